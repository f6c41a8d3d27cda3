"""Which score rows a chapter used, recorded for the page's downloads.

When a chapter runs under ``calib run`` (``$CALIB_EXPORT_DIR`` set, see
:func:`calib.settings.export_dir`), :func:`calib.scoring.run.score_queries` passes every score
table it returns to :func:`record_scores`, which writes it as one Parquet part under
``<export dir>/scores/``. The book build (:mod:`calib.book.downloads`) joins the parts into one
file per model and dataset, each row once. Outside a chapter run nothing is written.
"""

from __future__ import annotations

import time
import uuid

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from calib.scoring.cache import SCHEMA
from calib.scoring.schema import SCORE_COLUMNS
from calib.settings import export_dir

#: where the parts go below the export folder
SCORES_SUBDIR = "scores"


def record_scores(frame: pd.DataFrame) -> None:
    """Write ``frame`` (a score table) as a Parquet part for the chapter's downloads, if a
    chapter run asked for it; otherwise do nothing."""
    folder = export_dir()
    if folder is None or frame.empty:
        return
    target = folder / SCORES_SUBDIR
    target.mkdir(parents=True, exist_ok=True)
    tmp = target / f".part-{uuid.uuid4().hex}.tmp"
    table = pa.Table.from_pandas(frame[list(SCORE_COLUMNS)], schema=SCHEMA, preserve_index=False)
    # no pandas metadata: that of a frame of Arrow lists names a dtype pandas cannot read back
    pq.write_table(table.replace_schema_metadata(None), tmp)
    tmp.rename(target / f"part-{time.time_ns():020d}-{uuid.uuid4().hex[:8]}.parquet")
