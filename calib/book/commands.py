"""``calib run`` and ``calib book`` (called from ``calib.cli``)."""

from __future__ import annotations

import sys
import time

from calib.book.build import READERS, build_book, build_html, execution_order
from calib.book.chapters import run_chapter
from calib.book.layout import (
    BookError,
    ChapterDataMissing,
    ChapterNotFound,
    NotABookRoot,
    ParameterError,
    book_root,
    chapters_in_toc,
)
from calib.book.parameters import chapter_parameters, parse_cli_parameters
from calib.book.profiles import UnknownProfile
from calib.interrupt import exit_code, stop_on_signals


def _stoppable(command: str, body) -> int:
    """``body()``, stopped by Ctrl-C or SIGTERM (:mod:`calib.interrupt`: the chapter's kernel
    is interrupted, then killed) with one clear line and exit status 130 (143 for SIGTERM)."""
    try:
        with stop_on_signals():
            return body()
    except KeyboardInterrupt as exc:
        detail = str(exc) or "interrupted"
        print(
            f"\ncalib {command}: {detail}\nRun the same command again to finish; the "
            f"scores stored so far are reused.",
            file=sys.stderr,
        )
        return exit_code(exc)


def _on_cluster(command: str, args, body) -> int:
    """``body()`` with the chapters' scoring on the Ray cluster of ``--ray``, if given
    (:func:`calib.scoring.cluster.cluster_for_chapters`)."""
    address = getattr(args, "ray", None)
    if address is None:
        return body()
    from calib.scoring.cluster import ClusterError, cluster_for_chapters

    try:
        with cluster_for_chapters(address) as gcs:
            print(f"[calib] the chapters score their missing units on the Ray cluster {gcs}")
            return body()
    except ClusterError as exc:
        print(f"calib {command}: {exc}", file=sys.stderr)
        return 2


def cli_run(args) -> int:
    """``calib run CHAPTER [-p NAME VALUE]... [--profile P] [--no-build] [--ray [ADDRESS]]``:
    the chapter, then (unless ``--no-build``) the chapters that judge the recorded results (the
    ledger) again, then the book from what has been executed: a chapter not run yet gets a page
    that says so and gives its command (:func:`~calib.book.build.build_html`)."""
    return _stoppable("run", lambda: _on_cluster("run", args, lambda: _cli_run(args)))


def _cli_run(args) -> int:
    try:
        root = book_root(getattr(args, "root", None))
        declared = chapter_parameters(args.chapter, root)
        params = parse_cli_parameters(args.parameter, declared)
        started = time.time()
        path = run_chapter(args.chapter, args.profile, params, root=root)
    except BookError as exc:
        print(f"calib run: {exc}", file=sys.stderr)
        return usage_status(exc)
    try:
        if not args.no_build:
            readers = [n for n in execution_order(chapters_in_toc(root)) if n in READERS]
            for reader in [n for n in readers if n != args.chapter]:
                print(
                    f"[calib] chapter {reader!r} judges the chapters' recorded results: "
                    f"running it again"
                )
                run_chapter(reader, args.profile, root=root)
            build_html(root, profile=args.profile, strict=getattr(args, "strict", False))
        print(f"[calib] total {time.time() - started:.1f} s")
    except BookError as exc:
        print(
            f"calib run: chapter {args.chapter!r} was executed ({path}), but the book was "
            f"not rebuilt: {exc}",
            file=sys.stderr,
        )
        return 1
    return 0


def usage_status(exc: BookError) -> int:
    """The exit status of a ``calib run`` / ``calib book`` that failed with ``exc``: 2 for what
    the command line asked wrongly (a book root, chapter, profile or parameter that does not
    exist, a value out of range, data the chapter needs missing under the data root), 1 for a
    chapter or build that failed."""
    usage = (ParameterError, ChapterNotFound, UnknownProfile, ChapterDataMissing, NotABookRoot)
    return 2 if isinstance(exc, usage) else 1


def cli_book(args) -> int:
    """``calib book [--profile P] [--no-execute] [--strict] [--ray [ADDRESS]]``."""
    return _stoppable("book", lambda: _on_cluster("book", args, lambda: _cli_book(args)))


def _cli_book(args) -> int:
    try:
        build_book(
            args.profile,
            root=getattr(args, "root", None),
            execute=not getattr(args, "no_execute", False),
            strict=getattr(args, "strict", False),
        )
    except BookError as exc:
        print(f"calib book: {exc}", file=sys.stderr)
        return usage_status(exc)
    return 0
