"""The ``calib`` command line."""

from calib.cli import main


def test_models_lists_registry(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "gemma-3-270m" in out and "tiny-bert" in out


def test_score_prints_where_scores_went(tiny_models, capsys, tmp_path):
    code = main(["score", "--model", "tiny-llama", "--templates", "paraphrase-0..1",
                 "--per-relation", "1", "--relations", "P30,P36", "--cache-dir", str(tmp_path)])
    assert code == 0
    out = capsys.readouterr().out
    assert f"scores: {tmp_path}" in out
    assert "(2 instances x 2 templates)" in out
    assert "accuracy (Base" in out and "chance" in out
    assert list(tmp_path.rglob("chunk-*.parquet"))


def test_score_unknown_model_fails_with_message(capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    code = main(["score", "--model", "nobody/nothing-here", "--per-relation", "1",
                 "--relations", "P30"])
    assert code == 2
    assert "not a registry name" in capsys.readouterr().err
