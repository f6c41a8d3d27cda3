"""Run by the fault tests in a subprocess: score the fault tests' BEAR sample with a tiny model
into a cache, appending one line per unit it scores (``pid relation template instance``) to a
log, optionally sleeping after each chunk so that a test can kill it midway.

    python score_worker.py CACHE LOG [SLEEP_SECONDS]
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

MODEL = "tiny-gpt2"
RELATIONS = ["P30", "P105"]
PER_RELATION = 3
TEMPLATES = "paraphrase-0..1"
CHUNK_STATEMENTS = 10


def queries():
    from calib.data.bear import load_bear, template_names
    from calib.scoring.statements import bear_queries

    bear = load_bear(relations=RELATIONS).sample(PER_RELATION, seed=0)
    return bear_queries(bear, template_names(TEMPLATES))


def main(cache: str, log: str, sleep: float = 0.0) -> None:
    import calib.scoring.chunks as chunking
    import calib.scoring.run as run

    real = chunking.score_chunk

    def logged(lm, chunk, *args, **kwargs):
        frame = real(lm, chunk, *args, **kwargs)
        with open(log, "a") as fh:
            fh.write(
                "".join(f"{os.getpid()} {q.relation} {q.template} {q.instance}\n" for q in chunk)
            )
            fh.flush()
            os.fsync(fh.fileno())
        time.sleep(sleep)
        return frame

    chunking.score_chunk = logged
    run.score_queries(
        MODEL,
        queries(),
        cache_dir=cache,
        device="cpu",
        chunk_statements=CHUNK_STATEMENTS,
        progress=False,
    )
    Path(log).with_suffix(f".done-{os.getpid()}").touch()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]) if len(sys.argv) > 3 else 0.0)
