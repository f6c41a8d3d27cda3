"""The score cache: reuse without the model, resume after a crash, corrupted chunks rescored."""

import numpy as np
import pandas as pd
import pytest

import calib.scoring.chunks as chunking
import calib.scoring.run as run
from calib.scoring.schema import SCORE_COLUMNS, check_score_table
from calib.scoring.statements import bear_queries

KEYS = ["relation", "instance", "template", "option"]


@pytest.fixture
def cache(tmp_path):
    return tmp_path / "cache"


@pytest.fixture
def qs(small_bear):
    return bear_queries(small_bear, ["paraphrase-0", "paraphrase-1"])


def _no_model(*args, **kwargs):
    raise AssertionError("the model was loaded although every score was stored")


def test_table_schema_and_order(tiny_models, qs, cache):
    scores = run.score_queries(tiny_models["tiny-gpt2"], qs, cache_dir=cache, progress=False)
    check_score_table(scores)
    assert list(scores.columns) == list(SCORE_COLUMNS)
    assert len(scores) == sum(len(q.statements) for q in qs)
    first = qs[0]
    head = scores.iloc[: len(first.statements)]
    assert (head["instance"] == first.instance).all()
    assert head["option"].tolist() == list(range(len(first.statements)))
    assert head["answer"].tolist() == list(first.answers)
    assert (head["answer_idx"] == first.answer_idx).all()
    assert all(len(lp) == len(r) for lp, r in zip(scores["token_logprobs"], scores["token_roles"]))
    assert set(np.concatenate(scores["token_roles"].to_numpy())) <= {
        "subject",
        "object",
        "template",
    }


def test_second_call_reads_cache_without_model(tiny_models, qs, cache, monkeypatch):
    first = run.score_queries("tiny-gpt2", qs, cache_dir=cache, progress=False)
    monkeypatch.setattr(run, "load_model", _no_model)
    again = run.score_queries("tiny-gpt2", qs, cache_dir=cache, progress=False)
    pd.testing.assert_frame_equal(first, again)
    # a subset is served from the same store, in the order asked for
    sub = run.score_queries("tiny-gpt2", qs[::-1][:3], cache_dir=cache, progress=False)
    assert sub["instance"].iloc[0] == qs[-1].instance


def test_chunks_with_the_old_index_column_name_are_read(tiny_models, qs, cache, monkeypatch):
    """Chunks written before the rename store the correct option's index as ``correct``; they
    are read back with it as ``answer_idx`` (same values), without rescoring."""
    import pyarrow.parquet as pq

    first = run.score_queries("tiny-gpt2", qs, cache_dir=cache, progress=False)
    chunks = list(cache.rglob("chunk-*.parquet"))
    assert chunks
    for path in chunks:
        table = pq.read_table(path)
        old = table.rename_columns(
            ["correct" if n == "answer_idx" else n for n in table.column_names]
        )
        pq.write_table(old.replace_schema_metadata(table.schema.metadata), path)
    monkeypatch.setattr(run, "load_model", _no_model)
    again = run.score_queries("tiny-gpt2", qs, cache_dir=cache, progress=False)
    pd.testing.assert_frame_equal(first, again)


def test_resume_after_crash(tiny_models, qs, cache, monkeypatch):
    full = run.score_queries(tiny_models["tiny-gpt2"], qs, cache_dir=cache / "ref", progress=False)
    calls = {"n": 0}
    real = chunking.score_chunk

    def crash_on_third(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt("killed")
        return real(*args, **kwargs)

    monkeypatch.setattr(chunking, "score_chunk", crash_on_third)
    with pytest.raises(KeyboardInterrupt):
        run.score_queries("tiny-gpt2", qs, cache_dir=cache, chunk_statements=100, progress=False)
    stored, missing = _store(cache, qs).lookup(qs)
    assert 0 < len(missing) < len(qs)
    done = {q.key[1:] for q in qs} - {q.key[1:] for q in missing}
    assert len(stored) == sum(len(q.statements) for q in qs if q.key[1:] in done)

    scored = []
    monkeypatch.setattr(
        chunking,
        "score_chunk",
        lambda lm, chunk, *a, **k: scored.extend(chunk) or real(lm, chunk, *a, **k),
    )
    resumed = run.score_queries(
        "tiny-gpt2", qs, cache_dir=cache, chunk_statements=100, progress=False
    )
    assert {q.key for q in scored} == {q.key for q in missing}
    assert not resumed.duplicated(KEYS).any()
    _assert_same_scores(resumed, full)
    assert not list((cache).rglob(".tmp-*"))


def test_corrupted_chunk_is_rescored(tiny_models, qs, cache, monkeypatch):
    full = run.score_queries("tiny-gpt2", qs, cache_dir=cache, chunk_statements=150, progress=False)
    chunks = _store(cache, qs).chunks()
    assert len(chunks) > 1
    victim = chunks[0]
    victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 2])  # truncated
    scored = []
    real = chunking.score_chunk
    monkeypatch.setattr(
        chunking,
        "score_chunk",
        lambda lm, chunk, *a, **k: scored.extend(chunk) or real(lm, chunk, *a, **k),
    )
    again = run.score_queries("tiny-gpt2", qs, cache_dir=cache, progress=False)
    assert 0 < len(scored) < len(qs)
    assert victim.with_suffix(".corrupt").exists() and not victim.exists()
    _assert_same_scores(again, full)


def test_changed_template_text_is_rescored(tiny_models, small_bear, cache, monkeypatch):
    from dataclasses import replace

    qs = bear_queries(small_bear, ["paraphrase-0"])
    run.score_queries("tiny-gpt2", qs, cache_dir=cache, progress=False)
    rel = small_bear.relations["P19"]
    changed = dict(rel.templates, **{"paraphrase-0": "[X] came into the world in [Y]."})
    bear2 = replace(
        small_bear, relations={**small_bear.relations, "P19": replace(rel, templates=changed)}
    )
    qs2 = bear_queries(bear2, ["paraphrase-0"])
    _stored, missing = _store(cache, qs2).lookup(qs2)
    assert {q.relation for q in missing} == {"P19"}


def test_dtype_is_part_of_the_key(tiny_models, qs, cache):
    a = _store(cache, qs, dtype=None).folder
    b = _store(cache, qs, dtype="bfloat16").folder
    assert a != b


def _store(cache, qs, dtype=None):
    return run.score_store("tiny-gpt2", qs[0].dataset, cache_dir=cache, dtype=dtype)


def _assert_same_scores(a, b):
    a = a.sort_values(KEYS).reset_index(drop=True)
    b = b.sort_values(KEYS).reset_index(drop=True)
    pd.testing.assert_frame_equal(a[KEYS], b[KEYS])
    for x, y in zip(a["token_logprobs"], b["token_logprobs"]):
        np.testing.assert_allclose(x, y, atol=1e-5)


def test_start_token_rule_and_version_are_part_of_the_key(tiny_models, qs, cache):
    single = run.score_store("tiny-llama", qs[0].dataset, cache_dir=cache).folder
    doubled = run.score_store(
        "tiny-llama", qs[0].dataset, cache_dir=cache, start_token="lm-pub-quiz-0.3.3"
    ).folder
    assert single != doubled
    assert run.scoring_options("tiny-llama", None, None)["version"] == run.SCORER_VERSION != "1"
    with pytest.raises(ValueError, match="unknown start_token"):
        run.score_queries("tiny-llama", qs, cache_dir=cache, start_token="double")


def test_lm_pub_quiz_start_tokens_with_right_padding_score_as_single(tiny_models, qs, cache):
    """The tiny tokenizers pad on the right, so lm-pub-quiz's rule gives one BOS: same scores,
    stored apart."""
    lm = tiny_models["tiny-llama"]
    a = run.score_queries(lm, qs[:4], cache_dir=cache, progress=False)
    b = run.score_queries(
        lm, qs[:4], cache_dir=cache, progress=False, start_token="lm-pub-quiz-0.3.3"
    )
    _assert_same_scores(a, b)


def test_score_frames_round_trip_through_pandas_parquet(tiny_models, tmp_path):
    """``score_bear``'s frame (Arrow list columns, cache.as_frame) written by
    ``DataFrame.to_parquet`` reads back with plain ``pandas.read_parquet`` as the same frame
    (pandas cannot parse the list dtypes' names in its metadata by itself: pandas#53011)."""
    from calib.scoring.cache import ArrowListDtypeName, parse_list_type

    scores = run.score_bear(
        tiny_models["tiny-gpt2"],
        "paraphrase-0..1",
        per_relation=1,
        relations=["P36", "P19"],
        cache_dir=tmp_path / "cache",
        progress=False,
    )
    assert isinstance(scores["token_logprobs"].dtype, pd.ArrowDtype)
    path = tmp_path / "scores.parquet"
    scores.to_parquet(path)
    back = pd.read_parquet(path)
    pd.testing.assert_frame_equal(back, scores)
    empty = scores.iloc[:0]
    empty.to_parquet(tmp_path / "empty.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "empty.parquet"), empty)
    import pyarrow as pa

    for t in (pa.list_(pa.float32()), pa.large_list(pa.string()), pa.list_(pa.list_(pa.int64()))):
        assert parse_list_type(str(t)) == t
    with pytest.raises(TypeError):
        ArrowListDtypeName.construct_from_string("float64")  # pandas' own dtypes stay theirs
    assert pd.api.types.pandas_dtype("int64[pyarrow]") == pd.ArrowDtype(pa.int64())
