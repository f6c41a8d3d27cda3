"""Machine-translation back-ends for :class:`calib.prompts.paraphrase.Translator`.

* :class:`ApertiumTranslator` - rule-based, offline, one output per input (probability 1). On
  Debian: ``apt-get install apertium apertium-eng-spa apertium-eng-cat apertium-en-gl
  apertium-eo-en`` gives the four English round trips of :data:`APERTIUM_PIVOTS` (Spanish,
  Catalan, Galician, Esperanto). ``apertium-hbs-eng`` adds Serbo-Croatian (poor quality here).
* :class:`MarianTranslator` - the neural models LPAQA used (English-German, Helsinki-NLP
  opus-mt), ``B`` beams each way with their log-probabilities. Needs ``transformers`` and the
  models from the Hugging Face hub (or folders holding them); imported and loaded lazily.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar

from calib.prompts.paraphrase import Candidate

#: pivot languages for Apertium round trips (ISO 639-1 codes)
APERTIUM_PIVOTS: tuple[str, ...] = ("es", "ca", "gl", "eo")
#: Debian packages that provide them (plus ``apertium`` itself)
APERTIUM_PACKAGES: tuple[str, ...] = (
    "apertium",
    "apertium-eng-spa",
    "apertium-eng-cat",
    "apertium-en-gl",
    "apertium-eo-en",
)
#: the codes Apertium's mode names use for a language
_CODES: dict[str, tuple[str, ...]] = {
    "en": ("eng", "en"),
    "es": ("spa", "es"),
    "ca": ("cat", "ca"),
    "gl": ("glg", "gl"),
    "eo": ("epo", "eo"),
    "hbs": ("hbs", "sh"),
    "pt": ("por", "pt"),
    "fr": ("fra", "fr"),
}
#: the pivot languages calib knows Apertium's codes for (English is the source)
PIVOT_CODES: tuple[str, ...] = tuple(c for c in _CODES if c != "en")


class TranslatorUnavailable(RuntimeError):
    """A translation back-end (program, language pair or model) is not installed/reachable."""


class ApertiumTranslator:
    """Translate with the ``apertium`` command line (``apertium -u <mode>``, unknown words kept
    unmarked). Each input gives one candidate with log-probability 0."""

    name = "apertium"

    def __init__(self, executable: str = "apertium", timeout: float = 120.0):
        self.executable = executable
        self.timeout = timeout

    def _run(self, args: list[str], text: str = "") -> str:
        exe = shutil.which(self.executable)
        if exe is None:
            raise TranslatorUnavailable(
                f"the {self.executable!r} program is not installed; on Debian/Ubuntu: apt-get "
                f"install {' '.join(APERTIUM_PACKAGES)}"
            )
        proc = subprocess.run(
            [exe, *args], input=text, capture_output=True, text=True, timeout=self.timeout
        )
        if proc.returncode != 0:
            raise RuntimeError(f"apertium {' '.join(args)} failed: {proc.stderr.strip()[:300]}")
        return proc.stdout

    def modes(self) -> list[str]:
        """The installed translation modes (``apertium -l``), e.g. ``eng-spa``."""
        return _modes(self.executable, shutil.which(self.executable) or "")

    def mode(self, src: str, tgt: str) -> str:
        """The installed mode that translates ``src`` into ``tgt``.

        Codes are ISO 639-1 (``"es"``) or Apertium's own (``"spa"``); a variant suffix on the
        target selects a variant mode (``"ca_valencia"`` -> ``eng-cat_valencia``), on the source
        it is ignored (``"ca_valencia"`` -> ``cat-eng``).
        """
        installed = set(self.modes())
        src_base = src.split("_", 1)[0]
        tgt_base, _, variant = tgt.partition("_")
        for a in _CODES.get(src_base, (src_base,)):
            for b in _CODES.get(tgt_base, (tgt_base,)):
                name = f"{a}-{b}_{variant}" if variant else f"{a}-{b}"
                if name in installed:
                    return name
        raise TranslatorUnavailable(
            f"no Apertium mode translates {src!r} into {tgt!r}; installed: {sorted(installed)}. "
            f"Install the pair's Debian package (apt-cache search apertium)"
        )

    def translate(self, texts: Sequence[str], src: str, tgt: str) -> list[list[Candidate]]:
        """One candidate (log-probability 0) per text; one process per call, a line per text."""
        if not texts:
            return []
        mode = self.mode(src, tgt)
        lines = [" ".join(t.split()) for t in texts]
        out = self._run(["-u", mode], "\n".join(lines) + "\n").rstrip("\n").split("\n")
        if len(out) != len(lines):  # line structure not kept: one call per text
            out = [self._run(["-u", mode], line + "\n").strip() for line in lines]
        return [[Candidate(" ".join(o.split()), 0.0)] for o in out]


@lru_cache(maxsize=4)
def _modes(executable: str, path: str) -> list[str]:
    if not path:
        raise TranslatorUnavailable(
            f"the {executable!r} program is not installed; on Debian/Ubuntu: apt-get install "
            f"{' '.join(APERTIUM_PACKAGES)}"
        )
    proc = subprocess.run([path, "-l"], capture_output=True, text=True, timeout=60)
    return [m.strip() for m in proc.stdout.splitlines() if m.strip()]


class MarianTranslator:
    """MarianMT (Helsinki-NLP opus-mt) back-translation, LPAQA's choice (§3.2: English-German,
    ``B`` = 7 beams each way). Candidate log-probabilities are the summed token log-probabilities
    of each beam (``length_penalty=0``).

    ``models`` maps ``(src, tgt)`` to a hub id or a local folder. Nothing is imported or loaded
    until :meth:`translate`; without the hub (and no local copy) it raises
    :class:`TranslatorUnavailable`. ``local_files_only`` forbids any download.
    """

    name = "marian"
    MODELS: ClassVar[dict[tuple[str, str], str]] = {
        ("en", "de"): "Helsinki-NLP/opus-mt-en-de",
        ("de", "en"): "Helsinki-NLP/opus-mt-de-en",
    }

    def __init__(
        self,
        models: dict[tuple[str, str], str] | None = None,
        beams: int = 7,
        batch_size: int = 16,
        device: str = "cpu",
        local_files_only: bool = False,
        max_new_tokens: int = 64,
    ):
        self.models = dict(models or self.MODELS)
        self.beams, self.batch_size, self.device = beams, batch_size, device
        self.local_files_only, self.max_new_tokens = local_files_only, max_new_tokens
        self._loaded: dict[tuple[str, str], tuple] = {}

    def _load(self, src: str, tgt: str):
        key = (src, tgt)
        if key in self._loaded:
            return self._loaded[key]
        if key not in self.models:
            raise TranslatorUnavailable(
                f"no MarianMT model configured for {src}->{tgt}; configured: {sorted(self.models)}"
            )
        ident = self.models[key]
        try:
            from transformers import MarianMTModel, MarianTokenizer
        except ImportError as exc:  # pragma: no cover - transformers is a core dependency
            raise TranslatorUnavailable("MarianMT needs transformers (and sentencepiece)") from exc
        try:
            # the model first: a missing one raises OSError there (the tokenizer can fail with
            # a TypeError on missing files)
            model = MarianMTModel.from_pretrained(ident, local_files_only=self.local_files_only)
            tok = MarianTokenizer.from_pretrained(ident, local_files_only=self.local_files_only)
        except (OSError, ValueError, TypeError, AssertionError) as exc:
            raise TranslatorUnavailable(
                f"the MarianMT model {ident!r} ({src}->{tgt}) could not be loaded: it is not in "
                f"the local Hugging Face cache and the hub is not reachable (or downloads are "
                f"off). Pass a folder holding it in `models`, or use ApertiumTranslator offline. "
                f"Cause: {str(exc).splitlines()[0][:200]}"
            ) from exc
        # transformers decorates .to with functools.wraps(nn.Module.to): typed as unbound
        model.to(self.device).eval()  # type: ignore[arg-type]  # transformers: wraps-typed .to
        self._loaded[key] = (tok, model)
        return tok, model

    def translate(self, texts: Sequence[str], src: str, tgt: str) -> list[list[Candidate]]:
        """``beams`` candidates per text, each with its summed token log-probability."""
        if not texts:
            return []
        import torch

        tok, model = self._load(src, tgt)
        out: list[list[Candidate]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            enc = tok(batch, return_tensors="pt", padding=True).to(self.device)
            with torch.no_grad():
                gen = model.generate(
                    **enc,
                    num_beams=self.beams,
                    num_return_sequences=self.beams,
                    length_penalty=0.0,
                    max_new_tokens=self.max_new_tokens,
                    output_scores=True,
                    return_dict_in_generate=True,
                )
            decoded = tok.batch_decode(gen.sequences, skip_special_tokens=True)
            scores = gen.sequences_scores.tolist()
            for i in range(len(batch)):
                part = slice(i * self.beams, (i + 1) * self.beams)
                out.append([Candidate(t, s) for t, s in zip(decoded[part], scores[part])])
        return out


def apertium(pivots: Sequence[str]):
    """``(translator, usable, note)``: an :class:`ApertiumTranslator` and the ``pivots`` it can
    translate both ways (``None`` and ``[]`` when none can), and the reason for each pivot
    left out (``"; "``-joined, empty when none is)."""
    translator, usable, missing = ApertiumTranslator(), [], []
    for pivot in pivots:
        try:
            translator.mode("en", pivot)
            translator.mode(pivot, "en")
            usable.append(pivot)
        except TranslatorUnavailable as exc:
            missing.append(f"{pivot}: {str(exc).splitlines()[0][:160]}")
    note = "; ".join(missing)
    return (translator if usable else None), usable, note
