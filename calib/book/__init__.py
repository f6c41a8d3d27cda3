"""The book: profiles, chapter runs with checked parameters, and the jupyter-book build.

Layout, relative to the *book root* (the repository root):

===================================  ==========================================================
``_config.yml``, ``_toc.yml``        jupyter-book 1 configuration. The toc lists the prose pages
                                     (``book/*.md``) and each chapter as
                                     ``_build/chapters/<name>``: the executed notebook.
``notebooks/<name>.md``              a chapter's source: a jupytext MyST notebook with one cell
                                     tagged ``parameters`` (``name: type = literal`` lines).
``_build/chapters/<name>.ipynb``     the executed chapter (a build product, replaced atomically).
``_build/chapters/<name>.result/``   a chapter unit's recorded result (parameters, frames,
                                     values, provenance: :mod:`calib.experiments.records`),
                                     installed with the executed notebook; the ledger reads it.
``_build/failed/<name>.ipynb``       the partial notebook of a chapter's last failed run.
``_build/html``                      the built book.
===================================  ==========================================================

A :class:`~calib.book.profiles.Profile` gives default parameters (models, data size);
:func:`~calib.book.chapters.run_chapter` merges them with the caller's parameters, checks names and
types against the chapter's ``parameters`` cell *before* anything runs, executes the notebook with
papermill and writes it into the build tree; :func:`~calib.book.build.build_book` runs every chapter
in the toc (the ledger last), then ``jupyter-book build`` (``execute_notebooks: "off"``:
jupyter-book never re-executes), and checks that the HTML loads nothing from another host
(:func:`~calib.book.build.offline_violations`). The book is built from what has been executed:
a toc chapter not run in this build gets a page at its place that says so and gives the
command that runs it (:func:`~calib.book.build.write_not_run_pages`; its metadata says
``not_run``, :func:`~calib.book.layout.is_executed`). ``calib run`` and ``calib book``
(:func:`~calib.book.commands.cli_run`, :func:`~calib.book.commands.cli_book`) are the command-line
entry points.

After a run the chapter carries its provenance (:mod:`~calib.book.provenance`: commit, versions,
model hashes, data checksums, device, wall time) and its downloads (:mod:`~calib.book.downloads`:
the executed notebook, its result tables as CSV, the score rows it used as Parquet, under
``_build/downloads/<name>/``); :mod:`~calib.book.render` adds them to the page and shows one
parameters cell with the values the chapter ran with.

Modules: :mod:`~calib.book.layout` (paths, toc, errors), :mod:`~calib.book.profiles`,
:mod:`~calib.book.parameters`, :mod:`~calib.book.chapters`, :mod:`~calib.book.build`,
:mod:`~calib.book.commands`, :mod:`~calib.book.provenance`, :mod:`~calib.book.downloads`,
:mod:`~calib.book.render`, :mod:`~calib.book.examples` (the worked example of a new chapter).
Everything public is importable from ``calib.book``.
"""

from calib.book.build import (
    book_summary,
    build_book,
    build_html,
    offline_violations,
    write_not_run_pages,
)
from calib.book.chapters import KERNEL_NAME, kernel_environment, rerun_command, run_chapter
from calib.book.commands import cli_book, cli_run
from calib.book.layout import (
    BANNER_TAG,
    CHAPTERS_DIR,
    FAILED_DIR,
    HTML_DIR,
    NOTEBOOKS_DIR,
    PARAMETERS_TAG,
    BookError,
    ChapterDataMissing,
    ChapterFailed,
    ChapterNotExecuted,
    ChapterNotFound,
    NotABookRoot,
    ParameterError,
    available_chapters,
    book_root,
    chapter_source,
    chapters_in_toc,
    check_chapters_executed,
    executed_path,
    is_executed,
    not_executed,
)
from calib.book.parameters import (
    Parameter,
    chapter_parameters,
    describe_parameters,
    parse_cli_parameters,
    parse_parameters,
    profile_parameters,
    resolve_parameters,
)
from calib.book.profiles import (
    DEFAULT_PROFILE,
    PROFILES,
    QUICK_RELATIONS,
    SHARED_PARAMETERS,
    Profile,
    UnknownProfile,
    get_profile,
)
from calib.book.render import run_size

__all__ = [
    "BANNER_TAG",
    "CHAPTERS_DIR",
    "DEFAULT_PROFILE",
    "FAILED_DIR",
    "HTML_DIR",
    "KERNEL_NAME",
    "NOTEBOOKS_DIR",
    "PARAMETERS_TAG",
    "PROFILES",
    "QUICK_RELATIONS",
    "SHARED_PARAMETERS",
    "BookError",
    "ChapterDataMissing",
    "ChapterFailed",
    "ChapterNotExecuted",
    "ChapterNotFound",
    "NotABookRoot",
    "Parameter",
    "ParameterError",
    "Profile",
    "UnknownProfile",
    "available_chapters",
    "book_root",
    "book_summary",
    "build_book",
    "build_html",
    "chapter_parameters",
    "chapter_source",
    "chapters_in_toc",
    "check_chapters_executed",
    "cli_book",
    "cli_run",
    "describe_parameters",
    "executed_path",
    "get_profile",
    "is_executed",
    "kernel_environment",
    "not_executed",
    "offline_violations",
    "parse_cli_parameters",
    "parse_parameters",
    "profile_parameters",
    "rerun_command",
    "resolve_parameters",
    "run_chapter",
    "run_size",
    "write_not_run_pages",
]
