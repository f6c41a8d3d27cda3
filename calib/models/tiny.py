"""Tiny randomly initialised models with tokenizers trained locally.

They know nothing; they exist so that tests and the ``quick`` profile exercise exactly the code
paths of real models (GPT-2 and Llama causal LMs; BERT and RoBERTa masked LMs) in seconds,
offline. Each is built from a fixed corpus and seed and saved as an ordinary Hugging Face
folder, so it is loaded like any local model.

The folders are byte-identical wherever they are built (with the same library versions): the
weights come from a seeded initialisation, and every tokenizer is trained by a trainer whose
output does not depend on hash-map order. The byte-level and metaspace BPE trainers are such
trainers; the WordPiece trainer is not (it breaks ties between equally frequent merges in
hash-map order, so tiny-bert's vocabulary differed from one build to the next), so tiny-bert's
WordPiece vocabulary is derived from a BPE trained on the same words (``_wordpiece_vocab``).
"""

from __future__ import annotations

import os
from pathlib import Path

import torch

from calib.models.folders import intact, save_model_folder
from calib.settings import cache_lock

#: bump when the builder's output changes (v2: a reproducible tiny-bert vocabulary)
TINY_VERSION = "v2"

#: a small fixed corpus: probe-like sentences (enough for the tokenizers to learn common words)
_CORPUS = """\
The capital of France is Paris. Berlin is the capital of Germany. Rome is in Italy.
Albert Einstein was born in Ulm. Marie Curie was born in Warsaw. Mozart died in Vienna.
The official language of Brazil is Portuguese. People in Mexico speak Spanish.
The head of government of Canada is the prime minister. The river flows into the sea.
He was possibly born in London. She was certainly born in Madrid. I'm 50% confident he died there.
The birthplace of the author is Dublin. The novel was written by Jane Austen in England.
The film was directed by Akira Kurosawa. The song was performed by The Beatles.
The company was founded in Tokyo and produces cars. The team plays association football.
Asia, Africa, Europe, North America, South America, Oceania and Antarctica are continents.
The instrument he plays is the guitar, the piano or the violin. Christianity, Islam, Buddhism.
English, French, German, Russian, Chinese, Japanese, Arabic, Hindi, Dutch, Swedish.
""" + " ".join(chr(c) for c in range(33, 127))

SPECIALS = {
    "gpt2": dict(bos_token="<|endoftext|>", eos_token="<|endoftext|>", unk_token="<|endoftext|>"),
    "llama": dict(bos_token="<s>", eos_token="</s>", unk_token="<unk>"),
    "bert": dict(
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
        pad_token="[PAD]",
        unk_token="[UNK]",
    ),
    "roberta": dict(
        bos_token="<s>",
        eos_token="</s>",
        cls_token="<s>",
        sep_token="</s>",
        mask_token="<mask>",
        pad_token="<pad>",
        unk_token="<unk>",
    ),
}
_ARCH = {"tiny-gpt2": "gpt2", "tiny-llama": "llama", "tiny-bert": "bert", "tiny-roberta": "roberta"}


def _wordpiece_vocab(specials: list[str], vocab_size: int) -> dict[str, int]:
    """A WordPiece vocabulary: the special tokens, then the pieces of a BPE trained on the
    corpus's words (BERT normaliser and pre-tokenizer), then each piece again as a
    continuation (``##piece``), in the BPE's id order, so the same corpus always gives the same
    vocabulary."""
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, trainers

    bpe = Tokenizer(models.BPE(unk_token="[UNK]"))
    bpe.normalizer = normalizers.BertNormalizer(lowercase=False)
    bpe.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    bpe.train_from_iterator(
        _CORPUS.splitlines(),
        trainer=trainers.BpeTrainer(
            vocab_size=vocab_size, special_tokens=specials, show_progress=False
        ),
    )
    learned = bpe.get_vocab()
    pieces = [p for p in sorted(learned, key=learned.__getitem__) if p not in specials]
    tokens = [*specials, *pieces, *(f"##{p}" for p in pieces)]
    return {t: i for i, t in enumerate(tokens)}


def _special_id(tok, token: str) -> int:
    """The id of the special ``token`` in the trained tokenizer ``tok`` (always in its
    vocabulary: it is trained with the special tokens)."""
    found = tok.token_to_id(token)
    if found is None:
        raise ValueError(f"the tiny tokenizer has no special token {token!r}")
    return found


def _train_tokenizer(arch: str, vocab_size: int = 600):
    from tokenizers import (
        Tokenizer,
        decoders,
        models,
        normalizers,
        pre_tokenizers,
        processors,
        trainers,
    )
    from transformers import PreTrainedTokenizerFast

    specials = list(dict.fromkeys(SPECIALS[arch].values()))
    if arch in ("gpt2", "roberta"):
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            special_tokens=specials,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
    elif arch == "llama":
        tok = Tokenizer(models.BPE(unk_token="<unk>"))
        tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="first")
        tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="first")
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size, special_tokens=specials, show_progress=False
        )
    else:  # bert: WordPiece with a vocabulary derived from a BPE (see the module docstring)
        tok = Tokenizer(models.WordPiece(_wordpiece_vocab(specials, vocab_size), unk_token="[UNK]"))
        tok.normalizer = normalizers.BertNormalizer(lowercase=False)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        trainer = None
    if trainer is not None:
        tok.train_from_iterator(_CORPUS.splitlines(), trainer=trainer)
    if arch == "bert":
        cls, sep = _special_id(tok, "[CLS]"), _special_id(tok, "[SEP]")
        tok.post_processor = processors.TemplateProcessing(
            single="[CLS] $A [SEP]", special_tokens=[("[CLS]", cls), ("[SEP]", sep)]
        )
    elif arch == "roberta":
        tok.post_processor = processors.RobertaProcessing(
            ("</s>", _special_id(tok, "</s>")),
            ("<s>", _special_id(tok, "<s>")),
            trim_offsets=True,
            add_prefix_space=False,
        )
    return PreTrainedTokenizerFast(tokenizer_object=tok, **SPECIALS[arch])


def _config(arch: str, tokenizer):
    from transformers import BertConfig, GPT2Config, LlamaConfig, RobertaConfig

    n = len(tokenizer)
    if arch == "gpt2":
        eos = tokenizer.eos_token_id
        return GPT2Config(
            vocab_size=n,
            n_positions=256,
            n_embd=32,
            n_layer=2,
            n_head=2,
            bos_token_id=eos,
            eos_token_id=eos,
        )
    if arch == "llama":
        return LlamaConfig(
            vocab_size=n,
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            max_position_embeddings=256,
            bos_token_id=tokenizer.bos_token_id,
            eos_token_id=tokenizer.eos_token_id,
            tie_word_embeddings=False,
        )
    common = dict(
        vocab_size=n,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        pad_token_id=tokenizer.pad_token_id,
    )
    if arch == "bert":
        return BertConfig(max_position_embeddings=256, **common)
    return RobertaConfig(
        max_position_embeddings=258,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        **common,
    )


def build_tiny(name: str, folder: str | os.PathLike, seed: int = 0) -> Path:
    """Build the tiny model ``name`` (``tiny-gpt2``, ``tiny-llama``, ``tiny-bert``,
    ``tiny-roberta``) into ``folder`` (written atomically) and return the folder."""
    from transformers import AutoModelForCausalLM, AutoModelForMaskedLM

    if name not in _ARCH:
        raise ValueError(f"unknown tiny model {name!r}; known: {sorted(_ARCH)}")
    arch = _ARCH[name]
    folder = Path(folder)
    tokenizer = _train_tokenizer(arch)
    config = _config(arch, tokenizer)
    torch.manual_seed(seed)
    auto = AutoModelForMaskedLM if arch in ("bert", "roberta") else AutoModelForCausalLM
    model = auto.from_config(config)
    model.eval()
    return save_model_folder(model, tokenizer, folder, f"the tiny model {name}")


def tiny_folder(name: str, cache: Path) -> Path:
    """The cached folder of tiny model ``name``, built on first use, and again where it is
    damaged (:func:`calib.models.folders.intact`)."""
    folder = cache / "models" / f"{name}-{TINY_VERSION}"
    if not intact(folder):
        with cache_lock(folder.with_name(folder.name + ".lock"), f"the tiny model {name}"):
            if not intact(folder, say=False):  # another process may have built it
                build_tiny(name, folder)
    return folder
