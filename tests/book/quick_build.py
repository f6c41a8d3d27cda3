"""Build the real book with the ``quick`` profile (strict Sphinx) into a staged ROOT, with the
score cache ``$CALIB_CACHE_DIR``: the quick book of the book tests, started by
``conftest.pytest_collection_finish`` in a process of its own as soon as the tests are
collected, so that it runs beside the tests that do not read it. Its last line gives the time
(``quick book built in S s``), which ``conftest.quick_book`` reads.

    python tests/book/quick_build.py ROOT
"""

from __future__ import annotations

import sys
import time


def main(root: str) -> int:
    from calib.book import build_book

    started = time.time()
    build_book("quick", root=root, strict=True, progress=False, stream_output=False, log=print)
    print(f"quick book built in {time.time() - started:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
