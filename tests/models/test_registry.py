"""The paper's 29 models in the registry (``paper_models.csv``): hub ids, sizes, objectives,
Table 3's BEAR accuracy and instruction-tuned variants; and the ``paper`` profile's list."""

from __future__ import annotations

import csv

import pytest

from calib.book.profiles import get_profile
from calib.models import registry as reg
from calib.models.listing import print_registry


def test_the_registry_holds_the_29_models_of_table3():
    specs = reg.paper_models()
    assert len(specs) == 29
    assert sum(s.objective == "clm" for s in specs) == 21
    assert sum(s.objective == "mlm" for s in specs) == 8
    assert len({s.name for s in specs}) == 29 and len({s.hub_id for s in specs}) == 29
    for s in specs:
        assert s.kind == "hub" and "/" in s.hub_id and s.size and s.family and s.paper_name
        assert s.name == s.name.lower() and " " not in s.name


def test_instruction_tuned_variants_are_the_it_hub_models():
    it = {s.name: s.hub_id for s in reg.paper_models() if s.instruction_tuned}
    assert len(it) == 11
    assert it["gemma-3-270m-it"] == "google/gemma-3-270m-it"
    assert it["llama-3.2-1b-instruct"] == "meta-llama/Llama-3.2-1B-Instruct"
    assert it["qwen3.5-0.8b"] == "Qwen/Qwen3.5-0.8B"  # the post-trained model; base is -Base
    assert all(h.endswith(("-it", "-Instruct")) or h.startswith("Qwen/") for h in it.values())
    assert not any(s.instruction_tuned for s in reg.paper_models() if s.objective == "mlm")


def test_hub_ids_not_in_the_authors_code_are_marked_inferred():
    specs = {s.name: s for s in reg.paper_models()}
    authors = {
        "gpt2",
        "gpt2-medium",
        "gpt2-large",
        "gpt2-xl",
        "opt-125m",
        "opt-350m",
        "opt-1.3b",
        "opt-6.7b",
        "gemma-2b",
        "gemma-7b",
        "bert-base-cased",
        "bert-large-cased",
        "roberta-base",
        "roberta-large",
        "xlm-roberta-base",
        "xlm-roberta-large",
    }  # the authors' src/main.py
    assert {n for n, s in specs.items() if not s.hub_id_inferred} == authors
    assert specs["gpt2"].hub_id == "openai-community/gpt2"
    assert specs["modernbert-base"].hub_id_inferred


def test_sizes_as_table3_prints_them_and_its_accuracy_from_the_reported_values():
    from calib.models.listing import paper_accuracy

    specs = {s.name: s for s in reg.paper_models()}
    assert specs["gpt2"].size == "137M"
    assert specs["qwen3.5-0.8b"].size == "800M"  # Table 3's "800B" is a typo
    assert "800B" in specs["qwen3.5-0.8b"].note
    accuracy = paper_accuracy()  # stored once: calib/data/reported/kissling2026_table3.yaml
    assert set(accuracy) == set(specs) and accuracy["gpt2"] == 12.8
    assert accuracy["gemma-7b"] == 62.4 and "bear_accuracy" not in reg.PAPER_COLUMNS


def test_the_embedded_gemma_is_not_the_papers_gemma():
    embedded, paper = reg.get_spec("gemma-3-270m"), reg.get_spec("gemma-3-270m-it")
    assert embedded.kind == "embedded" and paper.kind == "hub"
    assert paper.instruction_tuned and not embedded.instruction_tuned
    from calib.models.listing import paper_accuracy

    assert "gemma-3-270m" not in paper_accuracy()


def test_a_hub_id_resolves_to_its_registry_entry():
    assert reg.get_spec("meta-llama/Llama-3.1-8B-Instruct").name == "llama-3.1-8b-instruct"


def test_the_paper_profile_runs_all_29_models():
    models = get_profile("paper").defaults_for("calibration", {"models": None})["models"]
    assert models == [s.name for s in reg.paper_models()]


def test_calib_models_prints_the_papers_accuracy(capsys):
    print_registry()
    out = capsys.readouterr().out
    line = next(li for li in out.splitlines() if li.startswith("qwen3.5-9b "))
    assert "Qwen/Qwen3.5-9B*" in line and "51.0 IT" in line
    assert "paper acc." in out


def test_a_malformed_csv_row_names_file_line_and_field(tmp_path, monkeypatch):
    path = tmp_path / "paper_models.csv"
    with open(reg.PAPER_MODELS_CSV, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    rows[1]["instruction_tuned"] = "maybe"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(reg.PAPER_COLUMNS))
        writer.writeheader()
        writer.writerows(rows)
    monkeypatch.setattr(reg, "PAPER_MODELS_CSV", path)
    reg.paper_models.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"line 3: field 'instruction_tuned'"):
            reg.paper_models()
    finally:
        reg.paper_models.cache_clear()


def test_the_registry_is_data_only():
    """The registry imports nothing of calib (locating and listing build on it, not it on
    them); the embedded models' packaging differences are fields of their specs."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(reg))
    modules = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    modules |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not [m for m in modules if m.startswith("calib")]
    gemma, smollm = reg.get_spec("gemma-3-270m"), reg.get_spec("smollm2-135m-instruct")
    assert gemma.gguf_assembled and not smollm.gguf_assembled
    assert smollm.pip_no_deps and not gemma.pip_no_deps
