"""Scoring with the cache: the entry points ``score_queries`` and ``score_bear`` (also behind
``calib score``).

Asking for scores that are stored returns them without loading the model; missing units are
scored in chunks of about ``chunk_statements`` statements (:data:`CPU_CHUNK_STATEMENTS` on a CPU,
:data:`GPU_CHUNK_STATEMENTS` on a GPU, so that its passes fill the token budget), each written
atomically as soon as it is done (so an interrupted run resumes), with a progress bar. The
token budget of a forward pass (:mod:`calib.scoring.batching`) is no part of the cache key: it
changes no score beyond float rounding. Each chunk is claimed first
(:class:`calib.scoring.cache.Claims`), so concurrent runs on one cache score each unit once
(:mod:`calib.scoring.chunks` scores them). Ctrl-C or SIGTERM stops the scoring at the next
forward pass (:mod:`calib.interrupt`) with :class:`ScoringInterrupted`: the chunk being scored
is discarded and the next call resumes with the chunks stored.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
from collections.abc import Sequence

import numpy as np
import pandas as pd
from tqdm import tqdm  # plain text bars: also readable in a notebook's stderr

from calib.interrupt import check_interrupted, stop_on_signals
from calib.models.loading import LoadedModel, device_type, dtype_name, load_model, model_key
from calib.models.registry import get_spec
from calib.scoring.cache import ScoreStore, UnitRows, empty_scores
from calib.scoring.chunks import count_statements, score_missing
from calib.scoring.cluster import ray_address
from calib.scoring.encoding import START_TOKENS
from calib.scoring.statements import Query, bear_queries
from calib.scoring.tokens import offsets_of, segment_index
from calib.scoring.usage import record_scores
from calib.settings import cache_root

#: bump when a change alters the scores the code produces ("2": statements capitalised as
#: lm-pub-quiz 0.3.3 builds them, :func:`calib.scoring.statements.fill_template`)
SCORER_VERSION = "2"
PLL_VARIANT = "within-word-l2r"
#: statements per stored chunk (one scorer call) on a CPU and on a GPU
CPU_CHUNK_STATEMENTS, GPU_CHUNK_STATEMENTS = 2000, 100_000


@contextlib.contextmanager
def gc_paused():
    """Python's cyclic garbage collector paused for the block (reference counting still frees
    everything that is not a cycle). Scoring allocates arrays, not cycles, but a collection
    that runs meanwhile walks every live object -- hundreds of thousands of statements at the
    paper's size -- and took up to a second of a chunk's host time; collections resume after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class ScoringInterrupted(KeyboardInterrupt):
    """Scoring was interrupted (Ctrl-C or SIGTERM: ``signum``; :mod:`calib.interrupt`);
    ``store`` holds every chunk finished so far, and the same call resumes from there.

    Parameters
    ----------
    store : calib.scoring.cache.ScoreStore
        The store of the dataset being scored (kept as ``store``; its folder is named in the
        message).
    signum : int
        The signal that stopped the scoring (default ``SIGINT``), kept as ``signum``.
    """

    def __init__(self, store: ScoreStore, signum: int = signal.SIGINT):
        super().__init__(f"scoring interrupted; the scores so far are in {store.folder}")
        self.store = store
        self.signum = int(signum)


def _check_start_token(start_token: str) -> None:
    if start_token not in START_TOKENS:
        raise ValueError(
            f"unknown start_token {start_token!r}; expected one of {list(START_TOKENS)}"
        )


def scoring_options(
    model: str,
    objective: str | None,
    dtype: str | None,
    start_token: str = "single",
    device: str | None = "auto",
) -> dict:
    """The settings that, with the model key, determine the scores (the cache key).
    ``start_token`` (:data:`~calib.scoring.encoding.START_TOKENS`) enters the key only when it
    is not calib's ``"single"``. Without ``dtype`` the registry's, else the default for
    ``device`` (:func:`calib.models.loading.dtype_name`: on a CPU bfloat16 for the embedded
    models where the CPU has native bfloat16), so the key names the dtype the model runs in.

    Parameters
    ----------
    model : str
        A registry name, local folder or hub id; its registry entry
        (:func:`calib.models.registry.get_spec`), if any, gives the default objective and dtype.
    objective : str or None
        ``"clm"`` or ``"mlm"``; ``None``: the registry's, else ``"auto"``.
    dtype : str or None
        The dtype's name (a ``torch.`` prefix is dropped); ``None``: the registry's, else the
        default for ``device``.
    start_token : str
        A rule of :data:`~calib.scoring.encoding.START_TOKENS` (default ``"single"``).
    device : str or None
        The device whose default dtype is taken when neither ``dtype`` nor the registry names
        one (default ``"auto"``).

    Returns
    -------
    dict
        ``version`` (:data:`SCORER_VERSION`), ``objective``, ``dtype``, ``pll``
        (``PLL_VARIANT``) and, for a start token other than ``"single"`` on a model whose
        objective is not ``"mlm"``, ``start``.

    Raises
    ------
    ValueError
        For a ``start_token`` that is not in :data:`~calib.scoring.encoding.START_TOKENS`.
    """
    _check_start_token(start_token)
    spec = get_spec(model)
    out = {
        "version": SCORER_VERSION,
        "objective": objective or (spec.objective if spec else "auto"),
        "dtype": dtype_name(str(dtype).replace("torch.", "") if dtype else None, spec, device),
        "pll": PLL_VARIANT,
    }
    if start_token != "single" and out["objective"] != "mlm":
        out["start"] = start_token
    return out


def score_store(
    model: str | LoadedModel,
    dataset: str,
    *,
    cache_dir: str | os.PathLike | None = None,
    dtype: str | None = None,
    objective: str | None = None,
    start_token: str = "single",
    device: str | None = "auto",
) -> ScoreStore:
    """The store that holds ``model``'s scores of ``dataset`` under these scoring options
    (computed without loading the model; ``device`` picks the default dtype).

    Parameters
    ----------
    model : str or calib.models.loading.LoadedModel
        A registry name, local folder or hub id (keyed by
        :func:`calib.models.loading.model_key`), or a loaded model (its own key, objective and
        dtype).
    dataset : str
        The dataset's name (the store's last folder).
    cache_dir : str or os.PathLike or None
        The cache root (default :func:`calib.settings.cache_root`).
    dtype : str or None
        As in :func:`scoring_options` (ignored for a loaded model).
    objective : str or None
        As in :func:`scoring_options` (ignored for a loaded model).
    start_token : str
        As in :func:`scoring_options` (default ``"single"``).
    device : str or None
        As in :func:`scoring_options` (default ``"auto"``; ignored for a loaded model).

    Returns
    -------
    calib.scoring.cache.ScoreStore
        The store (its folder need not exist yet).

    Raises
    ------
    ValueError
        For an unknown ``start_token``.
    calib.models.locate.ModelLoadError
        When the model's key cannot be computed (:func:`calib.models.loading.model_key`).
    """
    if isinstance(model, LoadedModel):
        key = model.key
        options = scoring_options(model.name, model.objective, str(model.dtype), start_token)
    else:
        key = model_key(model, cache_dir)
        options = scoring_options(model, objective, dtype, start_token, device)
    return ScoreStore.at(cache_root(cache_dir), key, options, dataset)


def _score_dataset(
    model,
    name: str,
    dataset: str,
    qs: list[Query],
    cluster: str | None,
    get_model,
    *,
    cache_dir,
    device,
    dtype,
    objective,
    chunk_statements: int,
    token_budget: int | None,
    progress: bool,
    start_token: str,
) -> list:
    """The score frames of ``qs`` (one dataset): the stored ones, and the missing ones scored
    here or on the cluster. An interruption (:mod:`calib.interrupt`) becomes
    :class:`ScoringInterrupted` naming the store."""
    store = score_store(
        model,
        dataset,
        cache_dir=cache_dir,
        dtype=dtype,
        objective=objective,
        start_token=start_token,
        device=device,
    )
    try:
        stored, missing = store.lookup_rows(qs)
        if not missing:
            return stored
        bar = tqdm(
            total=count_statements(missing),
            desc=f"scoring {name} on {dataset}",
            unit="stmt",
            disable=not progress,
            file=sys.stderr,
            mininterval=2.0,
        )
        try:
            if cluster is not None:
                from calib.scoring.cluster import score_on_ray

                scored = score_on_ray(
                    cluster,
                    store,
                    missing,
                    model=name,
                    objective=objective,
                    device=device,
                    dtype=dtype,
                    cache_dir=cache_dir,
                    chunk_statements=chunk_statements,
                    token_budget=token_budget,
                    start_token=start_token,
                    bar=bar,
                )
            else:
                scored = score_missing(
                    store, missing, get_model, chunk_statements, token_budget, bar, start_token
                )
        finally:
            bar.close()
        check_interrupted()  # a signal that came after the last safe point
    except KeyboardInterrupt as exc:
        raise ScoringInterrupted(store, getattr(exc, "signum", signal.SIGINT)) from exc
    return [*stored, *scored]


def score_queries(
    model: str | LoadedModel,
    queries: Sequence[Query],
    *,
    cache_dir: str | os.PathLike | None = None,
    device: str | None = "auto",
    dtype: str | None = None,
    objective: str | None = None,
    chunk_statements: int | None = None,
    token_budget: int | None = None,
    progress: bool = True,
    start_token: str = "single",
    ray: str | None = None,
) -> pd.DataFrame:
    """The score table (:mod:`calib.scoring.schema`) of ``queries`` under ``model``.

    ``model`` is a registry name, local folder or hub id (or an already loaded model). Stored
    units are read from the cache; the rest are scored and stored. Rows come back in the order
    of ``queries`` and their options. ``start_token``: calib's ``"single"`` start token, or
    ``"lm-pub-quiz-0.3.3"`` to reproduce that library's start tokens (two with a tokenizer that
    pads on the left; :func:`calib.scoring.encoding.encode_clm_lm_pub_quiz`), to measure
    what they change; a causal model's scores are stored apart for each rule.
    ``token_budget``: tokens per forward pass (default: picked from the device,
    :func:`calib.scoring.batching.model_token_budget`); it changes no score beyond float
    rounding and is no part of the cache key. ``device`` ``"auto"`` takes a GPU when there is
    one; models then run in bfloat16 unless ``dtype`` or the registry says otherwise (on a
    CPU: float32, or bfloat16 for the embedded models where the CPU has native bfloat16,
    :func:`calib.models.loading.default_dtype`). ``ray``: score the missing units on that Ray
    cluster (``"auto"``: the local one; default ``$CALIB_RAY``, else no Ray;
    :mod:`calib.scoring.cluster`); ``device`` ``"auto"`` then means the cluster's GPUs if it
    has any. A model given already loaded is scored here.

    Parameters
    ----------
    model : str or calib.models.loading.LoadedModel
        A registry name, local folder or hub id, loaded only if some unit is missing; or a
        loaded model.
    queries : sequence of calib.scoring.statements.Query
        The queries to score (of one or more datasets); none gives an empty score table.
    cache_dir : str or os.PathLike or None
        The cache root (default :func:`calib.settings.cache_root`).
    device : str or None
        ``"auto"`` (default), ``"cpu"``, ``"cuda"`` ...; with ``ray``, the cluster's device.
    dtype : str or None
        The dtype to run in; default the registry's, else the device's default.
    objective : str or None
        ``"clm"`` or ``"mlm"``; default the registry's, else inferred from the model.
    chunk_statements : int or None
        Statements per stored chunk; default :data:`CPU_CHUNK_STATEMENTS` on a CPU,
        :data:`GPU_CHUNK_STATEMENTS` otherwise.
    token_budget : int or None
        Tokens per forward pass (default: from the device).
    progress : bool
        Show a progress bar on stderr while scoring (default ``True``).
    start_token : str
        ``"single"`` (default) or ``"lm-pub-quiz-0.3.3"``
        (:data:`~calib.scoring.encoding.START_TOKENS`).
    ray : str or None
        The Ray cluster's address (``"auto"``: the local one); default ``$CALIB_RAY``, else no
        Ray. Ignored for a loaded model.

    Returns
    -------
    pandas.DataFrame
        The score table (:mod:`calib.scoring.schema`) with a ``model`` column (the name given,
        or the loaded model's), its rows in the order of ``queries`` and their options.

    Raises
    ------
    ValueError
        For an unknown ``start_token``.
    ScoringInterrupted
        When Ctrl-C or SIGTERM stopped the scoring; the chunks finished so far are stored.
    """
    _check_start_token(start_token)
    cluster = None if isinstance(model, LoadedModel) else ray_address(ray)
    if not queries:
        return empty_scores()
    name = model.name if isinstance(model, LoadedModel) else model
    by_dataset: dict[str, list[Query]] = {}
    for q in queries:
        by_dataset.setdefault(q.dataset, []).append(q)
    parts: list[tuple[str, UnitRows]] = []
    loaded = [model] if isinstance(model, LoadedModel) else []
    if cluster is not None:
        from calib.scoring.cluster import cluster_device

        device = cluster_device(cluster, device)  # the store key names the actors' device
    if not isinstance(model, LoadedModel):
        # named once, here: the store key and the loaders (also Ray actors on other machines,
        # whose CPUs may differ from this one) then agree on the dtype
        dtype = dtype_name(dtype, get_spec(name), device)
    if chunk_statements is None:
        on = model.device.type if isinstance(model, LoadedModel) else device_type(device)
        chunk_statements = CPU_CHUNK_STATEMENTS if on == "cpu" else GPU_CHUNK_STATEMENTS

    def get_model() -> LoadedModel:
        if not loaded:
            loaded.append(
                load_model(
                    name, objective=objective, device=device, dtype=dtype, cache_dir=cache_dir
                )
            )
        return loaded[0]

    with stop_on_signals(), gc_paused():  # Ctrl-C / SIGTERM stop at the next forward pass
        for dataset, qs in by_dataset.items():
            rows = _score_dataset(
                model,
                name,
                dataset,
                qs,
                cluster,
                get_model,
                cache_dir=cache_dir,
                device=device,
                dtype=dtype,
                objective=objective,
                chunk_statements=chunk_statements,
                token_budget=token_budget,
                progress=progress,
                start_token=start_token,
            )
            parts += [(dataset, r) for r in rows]
        out = in_query_order(parts, queries)
    out["model"] = name
    record_scores(out)  # for the chapter's downloads, when a chapter run asked for them
    return out


def in_query_order(parts: Sequence[tuple[str, UnitRows]], queries: Sequence[Query]) -> pd.DataFrame:
    """The rows of ``parts`` (each a dataset's :class:`~calib.scoring.cache.UnitRows`) as one
    score table in the order of ``queries`` and their options: the units are placed by their
    keys (a look-up per unit, not per row) and the rows taken in one ``take``."""
    if not parts:
        return empty_scores()
    order = {q.key: i for i, q in enumerate(queries)}
    unit_q = np.concatenate(
        [
            np.asarray([order[(ds, u[0], u[2], u[1])] for u in rows.units], dtype=np.int64)
            for ds, rows in parts
        ]
    )
    counts = np.concatenate([rows.counts for _ds, rows in parts])
    frames = [rows.pandas() for _ds, rows in parts]
    out = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    if np.any(np.diff(unit_q) < 0):  # whole units, each in option order: sort the units
        by = np.argsort(unit_q, kind="stable")
        starts = offsets_of(counts)[:-1]
        out = out.iloc[segment_index(starts[by], counts[by])].reset_index(drop=True)
    return out


def score_bear(
    models: str | LoadedModel | Sequence[str | LoadedModel],
    templates="paraphrase-0..4",
    per_relation: int | None = None,
    seed: int = 0,
    relations: Sequence[str] | None = None,
    data_dir=None,
    **kwargs,
) -> pd.DataFrame:
    """The score table of BEAR (optionally a seeded sample of ``per_relation`` instances per
    relation) under the named ``templates`` for one model or, given a list, for every model on
    the same sample (their tables one after another). Stored scores are reused; only what is
    missing is computed. See :func:`score_queries` for the other keyword arguments
    (``cache_dir``, ``device``, ``progress``, ``start_token`` ...).

    Parameters
    ----------
    models : str or calib.models.loading.LoadedModel or sequence
        One model (a name or a loaded model) or a list of them.
    templates : str or sequence of str
        A template selection (:func:`calib.data.bear.template_names`); default
        ``"paraphrase-0..4"``.
    per_relation : int or None
        Instances drawn per relation (:meth:`calib.data.probe.Probe.sample`); ``None``
        (default): all.
    seed : int
        The sample's seed (default 0).
    relations : sequence of str or None
        Only these BEAR relations (default: all).
    data_dir : str or os.PathLike or None
        The data root (:mod:`calib.data.root`).
    **kwargs
        Passed on to :func:`score_queries`.

    Returns
    -------
    pandas.DataFrame
        The score table; for a list of models, their tables one after another.

    Raises
    ------
    calib.data.errors.DataFormatError
        For malformed BEAR files (:func:`calib.data.bear.load_bear`).
    ValueError
        For an unknown relation, a ``per_relation`` below 1, a malformed template range or
        an unknown ``start_token``.
    ScoringInterrupted
        As in :func:`score_queries`.
    """
    from calib.data.bear import load_bear, template_names

    bear = load_bear(data_dir, relations=list(relations) if relations else None)
    queries = bear_queries(bear.sample(per_relation, seed), template_names(templates))
    if isinstance(models, (str, LoadedModel)):
        return score_queries(models, queries, **kwargs)
    return pd.concat([score_queries(m, queries, **kwargs) for m in models], ignore_index=True)
