"""Building the book: the toc's chapters, ``jupyter-book build``, and the offline check."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

from calib.book.chapters import check_data, kernel_environment, run_chapter, write_atomically
from calib.book.layout import (
    ALLOCATION_FILE,
    CHAPTERS_DIR,
    HTML_DIR,
    NOTEBOOKS_DIR,
    SUMMARY_FILE,
    BookError,
    Log,
    book_root,
    chapter_source,
    chapter_title,
    chapters_in_toc,
    executed_path,
    is_executed,
    not_executed,
)
from calib.book.parameters import chapter_parameters, resolve_parameters
from calib.book.profiles import DEFAULT_PROFILE, Profile, get_profile
from calib.book.render import not_run_notebook
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


def _executed_metadata(root: str | os.PathLike | None = None) -> dict[str, dict]:
    """Each executed toc chapter's ``metadata["calib"]`` (what its run recorded), by chapter."""
    import json

    root = book_root(root)
    out = {}
    for name in chapters_in_toc(root):
        if is_executed(name, root):
            try:
                meta = json.loads(executed_path(name, root).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            out[name] = meta.get("metadata", {}).get("calib") or {}
    return out


def executed_profiles(root: str | os.PathLike | None = None) -> dict[str, str]:
    """The profile each executed toc chapter ran with, by chapter (from its notebook's
    ``metadata["calib"]``)."""
    return {
        name: meta["profile"]
        for name, meta in _executed_metadata(root).items()
        if meta.get("profile")
    }


def run_times(root: str | os.PathLike | None = None) -> list[dict]:
    """The wall time of each chapter of this build, as its run recorded it (its notebook's
    ``metadata["calib"]``: ``seconds``, ``profile``, ``executed``), in the toc's order: one
    dict per executed chapter with ``chapter``, ``profile``, ``executed``, ``seconds`` (the
    reproduction page's table of durations: measured, never typed)."""
    return [
        {
            "chapter": name,
            "profile": meta.get("profile", ""),
            "executed": meta.get("executed", ""),
            "seconds": meta.get("seconds"),
        }
        for name, meta in _executed_metadata(root).items()
    ]


def write_not_run_pages(
    root: str | os.PathLike | None = None, profile: str | None = None
) -> list[str]:
    """Give every toc chapter without an executed notebook the page that says so and names the
    command that runs it (:func:`calib.book.render.not_run_notebook`), with ``--profile
    profile`` (default: the profile every executed chapter ran with, if they agree; else none,
    i.e. the default profile). Returns those chapters. An executed chapter is never touched;
    its next run replaces the page."""
    root = book_root(root)
    missing = not_executed(root)
    if profile is None:
        ran = set(executed_profiles(root).values())
        profile = ran.pop() if len(ran) == 1 else None
    for name in missing:
        command = f"calib run {name}" + (f" --profile {profile}" if profile else "")
        nb = not_run_notebook(chapter_title(name, root), name, command)
        write_atomically(nb, executed_path(name, root))
    return missing


def write_summary(root: str | os.PathLike | None = None) -> Path:
    """Write the intro's summary (:data:`~calib.book.layout.SUMMARY_FILE`): per paper, what this
    build confirms, contradicts and cannot decide
    (:func:`calib.report.bottom_line.book_summary`), from the ledger's recorded table (the
    verdicts its page shows); without a ledger record, a sentence that says so and names the
    command that runs it. Returns the file."""
    from calib.book.profiles import PROFILES
    from calib.experiments.records import load_record_folder, read_manifest, record_path
    from calib.report.bottom_line import book_summary

    root = book_root(root)
    folder = record_path("ledger", root / CHAPTERS_DIR.parent)
    if (folder / "manifest.json").is_file():
        text = book_summary(load_record_folder(folder).table)
        profile = read_manifest(folder).get("run", {}).get("profile", "")
        if profile in PROFILES and PROFILES[profile].synthetic:
            text = (
                f"*This build ran the {profile!r} profile ({PROFILES[profile].label}): its "
                f"verdicts are placeholders that only show the pipeline runs.*\n\n" + text
            )
    else:
        text = (
            "The ledger has not run in this build, so there is no summary of its verdicts: "
            "`calib run ledger` judges what the chapters recorded.\n"
        )
    return _write_generated(root / SUMMARY_FILE, text)


def write_allocation(root: str | os.PathLike | None = None) -> Path:
    """Write the reproduction page's table of how each real-model profile allocates facts to
    the toc's chapters (:data:`~calib.book.layout.ALLOCATION_FILE`,
    :func:`calib.book.profile_sizes.allocation_markdown`), derived from the profiles and the
    chapters' ``Params``. Returns the file."""
    from calib.book.profile_sizes import allocation_markdown
    from calib.book.profiles import PROFILES

    root = book_root(root)
    real = {n: p for n, p in PROFILES.items() if not p.synthetic}
    return _write_generated(
        root / ALLOCATION_FILE, allocation_markdown(real, chapters_in_toc(root))
    )


def _write_generated(target: Path, text: str) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(target)
    return target


def build_html(
    root: str | os.PathLike | None = None,
    *,
    strict: bool = False,
    profile: str | None = None,
    log: Log | None = print,
    quiet: bool = False,
) -> Path:
    """``jupyter-book build`` the book root into ``_build/html`` from the chapters executed so
    far.

    A toc chapter that has not been executed gets a page saying so, with the command that runs
    it (with ``--profile profile`` if given: :func:`write_not_run_pages`); the ledger, which
    reads the chapters' records, says "not run in this build" for its claims. Fails with
    :exc:`~calib.book.layout.BookError` if the build fails (``strict``: on any Sphinx warning)
    or if a page would load anything from another host.
    """
    log = log or (lambda _msg: None)
    root = book_root(root)
    names = chapters_in_toc(root)
    missing = write_not_run_pages(root, profile)
    if missing:
        log(
            f"[calib] {len(missing)} of {len(names)} chapter(s) not run in this build; their "
            f"pages say so and give the command that runs them: {', '.join(missing)}"
        )
    for name in names:
        source = root / NOTEBOOKS_DIR / f"{name}.md"
        if (
            name not in missing
            and source.is_file()
            and source.stat().st_mtime > executed_path(name, root).stat().st_mtime
        ):
            log(
                f"[calib] warning: {source.relative_to(root)} changed after chapter {name!r} "
                f"was executed; run `calib run {name}` to update it"
            )
    write_summary(root)
    write_allocation(root)
    log(
        f"[calib] building the book ({len(names) - len(missing)} executed chapter(s)) -> "
        f"{root / HTML_DIR}"
    )
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
    for name in names:  # every source, parameters cell and data set is there: fail early
        declared = chapter_parameters(name, root)
        resolve_parameters(name, declared, prof, {}, where=str(chapter_source(name, root)))
        if execute:
            check_data(name, declared)
    started = time.time()
    if execute:
        for i, name in enumerate(execution_order(names), 1):
            log(f"[calib] [{i}/{len(names)}] chapter {name}")
            run_chapter(
                name, prof, root=root, progress=progress, stream_output=stream_output, log=log
            )
    html = build_html(root, strict=strict, profile=prof.name if execute else None, log=log)
    log(
        f"[calib] {book_summary(root, executed=names if execute else [])} in "
        f"{time.time() - started:.1f} s"
    )
    return html


def book_summary(root: str | os.PathLike | None, executed: list[str]) -> str:
    """What a build holds, in words: the chapters ``executed`` now, and the profiles that the
    book's chapters ran with (from their notebooks, not from the command line), e.g.
    ``"0 chapter(s) executed now; the book shows 10 chapter(s) run with profile 'quick'"``."""
    ran = executed_profiles(root)
    by_profile: dict[str, int] = {}
    for profile in ran.values():
        by_profile[profile] = by_profile.get(profile, 0) + 1
    shown = ", ".join(f"{n} run with profile {p!r}" for p, n in sorted(by_profile.items()))
    missing = len(chapters_in_toc(root)) - len(ran)
    return (
        f"{len(executed)} chapter(s) executed now; the book shows "
        + (shown or "no executed chapter")
        + (f" and {missing} not run in this build" if missing else "")
    )
