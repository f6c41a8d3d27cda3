"""Run every chapter of a staged book with the ``quick`` profile, as ``calib book`` runs them
(the ledger last), into the cache ``$CALIB_CACHE_DIR``: the second, fresh-cache run of the quick
book's determinism test, started by ``conftest.quick_book`` beside the first build (a
process of its own, so that the two builds' single-threaded work, kernels starting, imports,
pandas, overlaps on the CI machine's two cores).

    python tests/book/quick_again.py ROOT
"""

from __future__ import annotations

import sys


def main(root: str) -> int:
    from calib.book import chapters_in_toc, run_chapter
    from calib.book.build import execution_order

    for name in execution_order(chapters_in_toc(root)):
        run_chapter(name, "quick", root=root, progress=False, stream_output=False, log=print)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
