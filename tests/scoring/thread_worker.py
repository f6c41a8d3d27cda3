"""Run by ``test_thread_counts.py`` in a subprocess: score the test sample with ``THREADS``
intra-op threads (``torch.set_num_threads``; the test also sets ``OMP_NUM_THREADS``) into
``CACHE``; optionally read it from another cache ``STORED`` without loading any model. Writes
``OUT.parquet`` (the scored table), ``OUT-stored.parquet`` (the table read from ``STORED``) and
``OUT.json`` (threads, the store folders relative to their cache).

    python thread_worker.py THREADS CACHE OUT [STORED]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

MODELS = ["tiny-gpt2", "tiny-bert"]  # one causal, one masked
SAMPLE = dict(
    templates="paraphrase-0..4", per_relation=1, seed=0, relations=["P19", "P30", "P105"]
)  # 25, 6 and 5 options


def score(cache: Path):
    import pandas as pd

    import calib.scoring.run as run

    tables = [
        run.score_bear(m, cache_dir=cache, device="cpu", progress=False, **SAMPLE) for m in MODELS
    ]
    stores = {
        m: str(run.score_store(m, "bear", cache_dir=cache).folder.relative_to(cache))
        for m in MODELS
    }
    return pd.concat(tables, ignore_index=True), stores


def write(frame, path: str) -> None:
    """``frame`` as Parquet without pandas' metadata: that of a score table's Arrow list
    columns names a dtype ``pandas.read_parquet`` cannot read back."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(None)
    pq.write_table(table, path)


def main(threads: int, cache: str, out: str, stored: str | None = None) -> None:
    import torch

    torch.set_num_threads(threads)
    import calib.scoring.run as run

    table, stores = score(Path(cache))
    write(table, f"{out}.parquet")
    info = {"threads": torch.get_num_threads(), "stores": stores}
    if stored:

        def no_model(*args, **kwargs):
            raise AssertionError(f"a model was loaded: {stored} lacks a unit")

        run.load_model = no_model
        again, info["stored_stores"] = score(Path(stored))
        write(again, f"{out}-stored.parquet")
    Path(f"{out}.json").write_text(json.dumps(info))


if __name__ == "__main__":
    main(int(sys.argv[1]), *sys.argv[2:])
