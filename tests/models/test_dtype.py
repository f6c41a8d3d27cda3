"""The dtype a model runs in: bfloat16 on GPUs; on CPUs bfloat16 only for the registry entries
that ask for it and only where the CPU has native bfloat16; an explicit dtype always wins."""

import dataclasses

import pytest
import torch

import calib.models.loading as loading
import calib.models.registry as registry
from calib.models.loading import (
    cpu_flags,
    default_dtype,
    dtype_name,
    load_model,
    native_bfloat16,
    resolve_dtype,
)
from calib.models.registry import get_spec
from calib.scoring.run import score_store, scoring_options

AVX512_BF16 = {"fpu", "sse2", "avx2", "avx512f", "avx512bw", "avx512_vnni", "avx512_bf16"}
AMX = {"fpu", "sse2", "avx2", "avx512f", "amx_bf16", "amx_tile", "amx_int8"}
AVX512_ONLY = {"fpu", "sse2", "avx2", "avx512f", "avx512bw", "avx512_vnni"}
AVX2_ONLY = {"fpu", "sse2", "avx2", "fma"}


@pytest.mark.parametrize(
    "flags, native",
    [(AVX512_BF16, True), (AMX, True), (AVX512_ONLY, False), (AVX2_ONLY, False), (set(), False)],
)
def test_native_bfloat16_needs_avx512_bf16_or_amx(flags, native):
    assert native_bfloat16(flags) is native


def test_gemma_runs_in_bfloat16_on_cpus_with_native_bfloat16_only():
    gemma = get_spec("gemma-3-270m")
    assert gemma.cpu_bfloat16 and gemma.dtype is None
    for flags in (AVX512_BF16, AMX):
        assert default_dtype("cpu", gemma, flags) == "bfloat16"
        assert dtype_name(None, gemma, "cpu", flags) == "bfloat16"
    for flags in (AVX512_ONLY, AVX2_ONLY, set()):
        assert default_dtype("cpu", gemma, flags) == "float32"
        assert dtype_name(None, gemma, "cpu", flags) == "float32"
    assert default_dtype("cuda", gemma, AVX2_ONLY) == "bfloat16"


def test_smollm2_stays_in_float32_on_every_cpu():
    """Its bfloat16 scores missed the agreement bar on the cpu sample
    (benchmarks/results/cpu_smollm2_bf16_vs_fp32.json), so it does not ask for bfloat16."""
    smol = get_spec("smollm2-135m-instruct")
    for flags in (AVX512_BF16, AMX, AVX2_ONLY):
        assert dtype_name(None, smol, "cpu", flags) == "float32"
    assert dtype_name(None, smol, "cuda", AVX2_ONLY) == "bfloat16"


def test_an_explicit_dtype_wins_over_the_cpu_and_the_registry():
    gemma = get_spec("gemma-3-270m")
    assert dtype_name("float32", gemma, "cpu", AVX512_BF16) == "float32"
    assert dtype_name("bfloat16", gemma, "cpu", AVX2_ONLY) == "bfloat16"
    assert dtype_name(torch.float32, gemma, "cpu", AMX) == "float32"
    assert dtype_name("float32", gemma, "cuda", AMX) == "float32"
    fixed = dataclasses.replace(gemma, dtype="float16")  # a registry dtype wins over the CPU
    assert dtype_name(None, fixed, "cpu", AVX512_BF16) == "float16"
    assert dtype_name("float32", fixed, "cpu", AVX512_BF16) == "float32"


def test_other_models_stay_in_float32_on_any_cpu():
    for spec in (get_spec("tiny-gpt2"), None):
        assert default_dtype("cpu", spec, AVX512_BF16) == "float32"
        assert default_dtype("cuda", spec, AVX2_ONLY) == "bfloat16"


def test_cpu_flags_read_the_flags_line(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text(
        "processor\t: 0\nmodel name\t: X\nflags\t\t: fpu avx2 avx512_bf16\n\n"
        "processor\t: 1\nflags\t\t: fpu avx2 avx512_bf16\n"
    )
    assert cpu_flags(info) == {"fpu", "avx2", "avx512_bf16"}
    assert cpu_flags(tmp_path / "missing") == frozenset()
    (tmp_path / "arm").write_text("processor\t: 0\nFeatures\t: fp asimd bf16\n")
    assert cpu_flags(tmp_path / "arm") == frozenset()  # no `flags` line: not counted as native


@pytest.fixture
def cpu_with(monkeypatch):
    """Pretend this CPU has the given flags."""

    def pretend(flags):
        monkeypatch.setattr(loading, "cpu_flags", lambda *a: frozenset(flags))

    return pretend


def test_the_store_key_names_the_dtype_this_cpu_picks(cpu_with):
    cpu_with(AVX512_BF16)
    assert scoring_options("gemma-3-270m", None, None, device="cpu")["dtype"] == "bfloat16"
    assert resolve_dtype(None, get_spec("gemma-3-270m"), "cpu") is torch.bfloat16
    assert scoring_options("gemma-3-270m", None, "float32", device="cpu")["dtype"] == "float32"
    assert scoring_options("tiny-gpt2", None, None, device="cpu")["dtype"] == "float32"
    cpu_with(AVX2_ONLY)
    assert scoring_options("gemma-3-270m", None, None, device="cpu")["dtype"] == "float32"
    assert resolve_dtype(None, get_spec("gemma-3-270m"), "cpu") is torch.float32
    assert scoring_options("gemma-3-270m", None, None, device="cuda")["dtype"] == "bfloat16"


def test_a_model_loads_in_the_dtype_its_store_names(tiny_models, cpu_with, monkeypatch, tmp_path):
    """A tiny model registered with ``cpu_bfloat16``: bfloat16 on a CPU with native bfloat16,
    float32 without, float32 when asked for; the store of each names that dtype."""
    bf16_tiny = tuple(
        dataclasses.replace(s, cpu_bfloat16=True) if s.name == "tiny-gpt2" else s
        for s in registry.TINY
    )
    monkeypatch.setattr(registry, "TINY", bf16_tiny)
    for flags, asked, want in (
        (AVX512_BF16, None, torch.bfloat16),
        (AVX2_ONLY, None, torch.float32),
        (AMX, "float32", torch.float32),
    ):
        cpu_with(flags)
        assert load_model("tiny-gpt2", device="cpu", dtype=asked).dtype is want
        store = score_store("tiny-gpt2", "bear", dtype=asked, device="cpu")
        assert f"dtype_{str(want).replace('torch.', '')}_" in store.folder.parent.name
