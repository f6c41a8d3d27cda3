"""``calib run`` and ``calib book`` (called from :mod:`calib.cli`)."""

from __future__ import annotations

import sys
import time

from calib.book.build import build_book, build_html
from calib.book.layout import BookError, ChapterNotFound, ParameterError, book_root
from calib.book.parameters import chapter_parameters, parse_cli_parameters
from calib.book.chapters import run_chapter


def cli_run(args) -> int:
    """``calib run CHAPTER [-p NAME VALUE]... [--profile P] [--no-build]``."""
    try:
        root = book_root(getattr(args, "root", None))
        declared = chapter_parameters(args.chapter, root)
        params = parse_cli_parameters(args.parameter, declared)
        started = time.time()
        path = run_chapter(args.chapter, args.profile, params, root=root)
    except BookError as exc:
        print(f"calib run: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, (ParameterError, ChapterNotFound)) else 1
    try:
        if not args.no_build:
            build_html(root, profile=args.profile, strict=getattr(args, "strict", False))
        print(f"[calib] total {time.time() - started:.1f} s")
    except BookError as exc:
        print(f"calib run: chapter {args.chapter!r} was executed ({path}), but the book was "
              f"not rebuilt: {exc}", file=sys.stderr)
        return 1
    return 0


def cli_book(args) -> int:
    """``calib book [--profile P] [--no-execute] [--strict]``."""
    try:
        build_book(args.profile, root=getattr(args, "root", None),
                   execute=not getattr(args, "no_execute", False),
                   strict=getattr(args, "strict", False))
    except BookError as exc:
        print(f"calib book: {exc}", file=sys.stderr)
        return 2 if isinstance(exc, (ParameterError, ChapterNotFound)) else 1
    return 0
