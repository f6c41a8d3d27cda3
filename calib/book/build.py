"""Building the book: the toc's chapters, ``jupyter-book build``, and the offline check."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

from calib.book.chapters import kernel_environment, run_chapter
from calib.book.layout import (
    HTML_DIR,
    NOTEBOOKS_DIR,
    BookError,
    Log,
    book_root,
    chapter_source,
    chapters_in_toc,
    check_chapters_executed,
    executed_path,
)
from calib.book.parameters import chapter_parameters, resolve_parameters
from calib.book.profiles import DEFAULT_PROFILE, Profile, get_profile
from calib.interrupt import run_stoppable

_EXTERNAL = re.compile(
    r"""<(script|link|img|iframe|source|audio|video|embed)\b[^>]*?\b(src|href)\s*=\s*["']"""
    r"""((?:https?:)?//[^"']+)["']""",
    re.IGNORECASE,
)
_CSS_EXTERNAL = re.compile(
    r"""(?:@import\s+|url\()\s*["']?((?:https?:)?//[^"')\s]+)""", re.IGNORECASE
)


def offline_violations(html_dir: str | os.PathLike) -> list[tuple[str, str]]:
    """(file, url) for each script, style sheet, font, image or frame that a built page or
    style sheet would load from another host. ``<a href>`` links are allowed."""
    html_dir = Path(html_dir)
    found = []
    for path in sorted(html_dir.rglob("*.html")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in _EXTERNAL.finditer(text):
            tag, url = match.group(1).lower(), match.group(3)
            if tag == "link" and not re.search(
                r"""rel\s*=\s*["'][^"']*(stylesheet|preload|icon|modulepreload|prefetch)""",
                match.group(0),
                re.IGNORECASE,
            ):
                continue
            found.append((str(path.relative_to(html_dir)), url))
    for path in sorted(html_dir.rglob("*.css")):
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in _CSS_EXTERNAL.finditer(text):
            found.append((str(path.relative_to(html_dir)), match.group(1)))
    return found


def _jupyter_book_command() -> list[str]:
    script = Path(sys.executable).with_name("jupyter-book")
    if script.is_file():
        return [str(script)]
    return [
        sys.executable,
        "-c",
        "import sys; from jupyter_book.cli.main import main; sys.exit(main())",
    ]


def build_html(
    root: str | os.PathLike | None = None,
    *,
    strict: bool = False,
    profile: str | None = None,
    log: Log | None = print,
    quiet: bool = False,
) -> Path:
    """``jupyter-book build`` the book root into ``_build/html`` from the executed chapters.

    Fails with :exc:`~calib.book.layout.ChapterNotExecuted` before building if a toc chapter has no
    executed notebook, with :exc:`~calib.book.layout.BookError` if the build fails (``strict``: on
    any Sphinx warning) or if a page would load anything from another host.
    """
    log = log or (lambda _msg: None)
    root = book_root(root)
    names = check_chapters_executed(root, profile)
    for name in names:
        source = root / NOTEBOOKS_DIR / f"{name}.md"
        if source.is_file() and source.stat().st_mtime > executed_path(name, root).stat().st_mtime:
            log(
                f"[calib] warning: {source.relative_to(root)} changed after chapter {name!r} "
                f"was executed; run `calib run {name}` to update it"
            )
    log(f"[calib] building the book ({len(names)} chapter(s)) -> {root / HTML_DIR}")
    cmd = [*_jupyter_book_command(), "build", str(root), "--path-output", str(root)]
    if strict:
        cmd += ["-W", "--keep-going"]
    if quiet:
        cmd += ["-q"]
    started = time.time()
    with kernel_environment():  # Ctrl-C / SIGTERM end the build (calib.interrupt)
        proc = run_stoppable(cmd, cwd=root, text=True, capture_output=quiet)
    if proc.returncode != 0:
        tail = ((proc.stdout or "") + (proc.stderr or ""))[-4000:] if quiet else ""
        raise BookError(
            f"jupyter-book build failed (exit {proc.returncode})"
            + (" with warnings treated as errors" if strict else "")
            + (f":\n{tail}" if tail else "; see the output above")
        )
    html = root / HTML_DIR
    bad = offline_violations(html)
    if bad:
        listing = "\n".join(f"  {f}: {u}" for f, u in bad[:20])
        raise BookError(
            f"the built book would load {len(bad)} resource(s) from other hosts:\n{listing}"
        )
    log(f"[calib] book built in {time.time() - started:.1f} s: {html / 'index.html'}")
    return html


#: the chapters that read the other chapters' recorded results: they run after all the others
READERS: tuple[str, ...] = ("ledger",)


def execution_order(names: list[str]) -> list[str]:
    """The toc's chapters in the order :func:`build_book` runs them: the toc's, with the
    :data:`READERS` (the ledger judges what the other chapters recorded) last."""
    return [n for n in names if n not in READERS] + [n for n in names if n in READERS]


def build_book(
    profile: str | Profile = DEFAULT_PROFILE,
    *,
    root: str | os.PathLike | None = None,
    execute: bool = True,
    strict: bool = False,
    progress: bool = True,
    stream_output: bool = True,
    log: Log | None = print,
) -> Path:
    """Execute every chapter of the toc with ``profile`` (unless ``execute=False``; the
    ledger last, :func:`execution_order`), then build the HTML (:func:`build_html`). Returns
    ``_build/html``."""
    log = log or (lambda _msg: None)
    root = book_root(root)
    prof = get_profile(profile)
    names = chapters_in_toc(root)
    for name in names:  # every source exists and every parameters cell parses: fail early
        declared = chapter_parameters(name, root)
        resolve_parameters(name, declared, prof, {}, where=str(chapter_source(name, root)))
    started = time.time()
    if execute:
        for i, name in enumerate(execution_order(names), 1):
            log(f"[calib] [{i}/{len(names)}] chapter {name}")
            run_chapter(
                name, prof, root=root, progress=progress, stream_output=stream_output, log=log
            )
    html = build_html(root, strict=strict, profile=prof.name, log=log)
    log(
        f"[calib] profile {prof.name!r}: {len(names)} chapter(s) and the book in "
        f"{time.time() - started:.1f} s"
    )
    return html
