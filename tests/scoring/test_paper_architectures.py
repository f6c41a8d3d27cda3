"""Every architecture of the paper's 29 models, shrunk, scores through ``score_bear`` in both
layouts (``pad=False``, the CPU's equal-length passes; ``pad=True``, the GPU's padded passes)
equal to the one-statement reference within the rounding tolerance.

A *shape* is a model class with its layer types (and, for OPT, its two layouts of the
embedding and layer norms); each of the 29 models of ``calib/models/paper_models.csv`` is
mapped to one (:func:`paper_shape`), from its architecture in ``paper_configs.json``.
"""

from __future__ import annotations

import csv
import functools
from pathlib import Path

import numpy as np
import pytest
import torch

from calib.models.loading import LoadedModel
from calib.models.shapes import _table, shape_config
from calib.scoring import chunks
from calib.scoring.reference import clm_reference, mlm_reference
from calib.scoring.schema import ROUNDING_TOLERANCE

PAPER_MODELS = Path(__file__).resolve().parents[2] / "calib" / "models" / "paper_models.csv"
RELATIONS, TEMPLATES = ["P30", "P103"], ["paraphrase-0", "paraphrase-4"]
SMALL = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2)


def paper_shape(name: str) -> str:
    """The tested shape of paper model ``name``: its model class, and for OPT whether its
    layers normalise after attention with a projected embedding (opt-350m) or before."""
    entry = _table()[name]
    arch = entry["architectures"][0]
    if arch == "OPTForCausalLM":
        post = entry.get("do_layer_norm_before") is False
        projected = entry["word_embed_proj_dim"] != entry["hidden_size"]
        return "OPTForCausalLM/post-norm-projected" if post or projected else arch
    return arch


def _configs(vocab: int, tok) -> dict:
    """Tiny configurations of every shape (class name, config), for a vocabulary of
    ``vocab`` and the special tokens of ``tok``."""
    import transformers as tf

    ids = dict(pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id)
    decoder = dict(SMALL, vocab_size=vocab, num_key_value_heads=1, head_dim=16, **ids)
    gemma3_text = dict(
        decoder,
        sliding_window=4,  # shorter than every statement: the window restriction is exercised
        layer_types=["sliding_attention", "full_attention"],
        max_position_embeddings=128,
    )
    opt = dict(
        vocab_size=vocab,
        hidden_size=32,
        ffn_dim=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        max_position_embeddings=128,
        **ids,
    )
    return {
        "GemmaForCausalLM": lambda: tf.GemmaConfig(**decoder),
        "GPT2LMHeadModel": lambda: tf.GPT2Config(
            vocab_size=vocab, n_embd=32, n_layer=2, n_head=2, n_positions=128, **ids
        ),
        "OPTForCausalLM": lambda: tf.OPTConfig(word_embed_proj_dim=32, **opt),
        "OPTForCausalLM/post-norm-projected": lambda: tf.OPTConfig(
            word_embed_proj_dim=16, do_layer_norm_before=False, **opt
        ),
        "Gemma3ForCausalLM": lambda: tf.Gemma3TextConfig(**gemma3_text),
        "Gemma3ForConditionalGeneration": lambda: tf.Gemma3Config(
            text_config=gemma3_text,
            vision_config=dict(
                hidden_size=16,
                intermediate_size=32,
                num_hidden_layers=1,
                num_attention_heads=2,
                image_size=28,
                patch_size=14,
            ),
            mm_tokens_per_image=1,
        ),
        "LlamaForCausalLM": lambda: tf.LlamaConfig(**decoder, tie_word_embeddings=True),
        "Qwen3_5ForCausalLM": lambda: tf.Qwen3_5TextConfig(
            **decoder,
            linear_num_key_heads=2,
            linear_num_value_heads=2,
            linear_key_head_dim=8,
            linear_value_head_dim=8,
            layer_types=["linear_attention", "full_attention"],
        ),
        "BertForMaskedLM": lambda: tf.BertConfig(**SMALL, vocab_size=vocab, **ids),
        "RobertaForMaskedLM": lambda: tf.RobertaConfig(
            **SMALL, vocab_size=vocab, max_position_embeddings=130, **ids
        ),
        "XLMRobertaForMaskedLM": lambda: tf.XLMRobertaConfig(
            **SMALL, vocab_size=vocab, max_position_embeddings=130, **ids
        ),
        "ModernBertForMaskedLM": lambda: tf.ModernBertConfig(
            **SMALL,
            vocab_size=vocab,
            local_attention=4,  # a window shorter than every statement
            global_attn_every_n_layers=2,  # layer 0 global, layer 1 local
            cls_token_id=tok.cls_token_id,
            sep_token_id=tok.sep_token_id,
            eos_token_id=tok.sep_token_id,
            **ids,
        ),
    }


SHAPES = (
    "GemmaForCausalLM",
    "GPT2LMHeadModel",
    "OPTForCausalLM",
    "OPTForCausalLM/post-norm-projected",
    "Gemma3ForCausalLM",
    "Gemma3ForConditionalGeneration",
    "LlamaForCausalLM",
    "Qwen3_5ForCausalLM",
    "BertForMaskedLM",
    "RobertaForMaskedLM",
    "XLMRobertaForMaskedLM",
    "ModernBertForMaskedLM",
)
MASKED = ("BertForMaskedLM", "RobertaForMaskedLM", "XLMRobertaForMaskedLM", "ModernBertForMaskedLM")
#: the tiny tokenizer each shape borrows (its vocabulary and special tokens)
TOKENIZER = {
    "BertForMaskedLM": "tiny-bert",
    "RobertaForMaskedLM": "tiny-roberta",
    "XLMRobertaForMaskedLM": "tiny-roberta",
    "ModernBertForMaskedLM": "tiny-roberta",
}


def _layer_types(config) -> set[str]:
    cfg = getattr(config, "text_config", None) or config
    return set(getattr(cfg, "layer_types", None) or ())


def test_every_paper_model_maps_to_a_tested_shape():
    """All 29 models of the paper (Table 3), by name, have a tested shape, and the shape's
    tiny configuration has the layer types of the model's own (sliding and full attention
    for Gemma 3, linear and full attention for Qwen3.5, global and local for ModernBERT)."""
    with PAPER_MODELS.open() as fh:
        names = [row["name"] for row in csv.DictReader(fh)]
    assert len(names) == 29
    by_shape: dict[str, list[str]] = {}
    for name in names:
        by_shape.setdefault(paper_shape(name), []).append(name)
    assert set(by_shape) == set(SHAPES)
    assert by_shape["Qwen3_5ForCausalLM"] == [
        "qwen3.5-0.8b",
        "qwen3.5-2b",
        "qwen3.5-4b",
        "qwen3.5-9b",
    ]
    assert by_shape["OPTForCausalLM/post-norm-projected"] == ["opt-350m"]
    assert by_shape["Gemma3ForConditionalGeneration"] == ["gemma-3-4b-it", "gemma-3-12b-it"]
    tok = _StubTokenizer()
    tiny = _configs(64, tok)
    for shape, members in by_shape.items():
        want = _layer_types(tiny[shape]())
        for name in members:
            assert _layer_types(shape_config(name)) <= want | {"full_attention"}, name
    assert _layer_types(tiny["Qwen3_5ForCausalLM"]()) == {"linear_attention", "full_attention"}
    assert _layer_types(tiny["Gemma3ForCausalLM"]()) == {"sliding_attention", "full_attention"}


class _StubTokenizer:
    pad_token_id, bos_token_id, cls_token_id, sep_token_id = 0, 1, 1, 2


def _loaded(shape: str, tiny_models) -> LoadedModel:
    import transformers as tf

    cls = shape.split("/")[0]
    if getattr(tf, cls, None) is None:
        pytest.skip(f"transformers {tf.__version__} has no {cls} (needed for this paper shape)")
    base = tiny_models[TOKENIZER.get(shape, "tiny-llama")]
    tok = base.tokenizer
    config = _configs(len(tok), tok)[shape]()
    torch.manual_seed(0)
    model = getattr(tf, cls)(config).eval()
    model.requires_grad_(False)
    assert type(model).__name__ == cls
    return LoadedModel(
        name=f"tiny-{shape.replace('/', '-')}",
        objective="mlm" if shape in MASKED else "clm",
        model=model,
        tokenizer=tok,
        device=torch.device("cpu"),
        dtype=torch.float32,
        key=f"tiny-{shape.replace('/', '-')}@test",
        start_token_id=None if shape in MASKED else tok.bos_token_id,
    )


@pytest.mark.parametrize("shape", SHAPES)
def test_paper_shape_scores_equal_the_reference_in_both_layouts(
    shape, tiny_models, bear, tmp_path, monkeypatch
):
    """``score_bear`` of the tiny shape, padded (lengths mixed freely, as many rows as fit)
    and unpadded, in small passes (prefix caches selected across several continuation
    passes), equals the naive one-statement scorer per token."""
    from calib.data.bear import template_names
    from calib.scoring.run import score_bear
    from calib.scoring.statements import bear_queries

    lm = _loaded(shape, tiny_models)
    templates = TEMPLATES[:1] if shape in MASKED else TEMPLATES  # a masked reference is slow
    queries = bear_queries(bear.select(RELATIONS).sample(1, seed=0), template_names(templates))
    encs = [e for g in chunks.encode_groups(lm, queries, "single") for e in g]
    if lm.objective == "clm":
        want = [clm_reference(lm.model, e) for e in encs]
    else:
        want = [mlm_reference(lm.model, e, lm.tokenizer.mask_token_id) for e in encs]
    monkeypatch.setattr("calib.scoring.batching.MAX_PADDING_SHARE", 1.0)
    real = {"clm": chunks.clm_score, "mlm": chunks.mlm_score}
    for pad in (False, True):
        for kind, fn in real.items():
            monkeypatch.setattr(
                f"calib.scoring.chunks.{kind}_score", functools.partial(fn, pad=pad)
            )
        got = score_bear(
            lm,
            templates=templates,
            per_relation=1,
            relations=RELATIONS,
            cache_dir=tmp_path / f"pad-{pad}",
            token_budget=48,
            progress=False,
        )
        assert len(got) == len(want)
        for row, w in zip(got["token_logprobs"], want):
            np.testing.assert_allclose(np.asarray(row), w, atol=ROUNDING_TOLERANCE, rtol=0)
