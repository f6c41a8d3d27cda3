"""Back-translation plumbing (LPAQA §3.2) with a fake translator, and the real back-ends."""

from __future__ import annotations

import math
import shutil

import pandas as pd
import pytest

from calib.prompts.paraphrase import (
    Candidate,
    Translator,
    backtranslation_scores,
    paraphrase_prompts,
    protect,
    restore,
    round_trips,
)
from calib.prompts.translators import ApertiumTranslator, MarianTranslator, TranslatorUnavailable


class FakeTranslator:
    """A lookup table: (src, tgt) -> {text: [(translation, probability), ...]}; records calls."""

    name = "fake"

    def __init__(self, table):
        self.table, self.calls = table, []

    def translate(self, texts, src, tgt):
        self.calls.append((list(texts), src, tgt))
        return [
            [Candidate(t, math.log(p)) for t, p in self.table[(src, tgt)].get(x, [])] for x in texts
        ]


SOURCE = "[X] was born in [Y] ."
P = protect(SOURCE)  # "PX1 was born in PY1 ."
TABLE = {
    ("en", "de"): {P: [("PX1 wurde in PY1 geboren .", 0.6), ("PX1 kam in PY1 zur Welt .", 0.4)]},
    ("de", "en"): {
        "PX1 wurde in PY1 geboren .": [
            ("PX1 was born in PY1 .", 0.7),
            ("PX1 is born in PY1 .", 0.3),
        ],
        "PX1 kam in PY1 zur Welt .": [
            ("PX1 came into the world in PY1 .", 0.5),
            ("PX1 was born in PY1 .", 0.25),
            ("Y1 came into PX1 .", 0.25),
        ],
    },  # loses [Y]: dropped
    ("en", "es"): {P: [("PX1 nació en PY1 .", 1.0)]},
    ("es", "en"): {"PX1 nació en PY1 .": [("px1 Is born in PY1 .", 1.0)]},
}


def test_fake_is_a_translator():
    assert isinstance(FakeTranslator({}), Translator)


def test_protect_and_restore():
    assert protect("[X] is a [Y] .") == "PX1 is a PY1 ."
    assert restore("px1 es un  Py1 .") == "[X] es un [Y] ."
    assert restore("PX1 is a .") is None  # lost [Y]
    assert restore("PX1 and PX1 PY1") is None  # [X] twice
    assert restore("PX12 is PY1") is None  # not the sentinel word
    assert restore("PX1 Was born in PY1 .", SOURCE) == SOURCE
    assert restore("PX1 Was born in PY1 .") == "[X] Was born in [Y] ."
    assert restore("PX1 Paris PY1 .", "[X] Paris [Y] .") == "[X] Paris [Y] ."


def test_round_trip_scores_by_hand():
    fake = FakeTranslator(TABLE)
    (scores,) = round_trips(fake, [SOURCE], ["de"])
    assert fake.calls[0] == ([P], "en", "de")  # placeholders protected on the way out
    assert scores == pytest.approx(
        {
            SOURCE: 0.6 * 0.7 + 0.4 * 0.25,
            "[X] is born in [Y] .": 0.6 * 0.3,
            "[X] came into the world in [Y] .": 0.4 * 0.5,
        }
    )
    (two,) = round_trips(fake, [SOURCE], ["de", "es"])  # averaged over pivots
    assert two["[X] is born in [Y] ."] == pytest.approx((0.6 * 0.3 + 1.0) / 2)


def test_rounds_chain_round_trips():
    table = {
        ("en", "es"): {"PX1 a PY1": [("PX1 b PY1", 1.0)], "PX1 c PY1": [("PX1 d PY1", 1.0)]},
        ("es", "en"): {"PX1 b PY1": [("PX1 c PY1", 1.0)], "PX1 d PY1": [("PX1 e PY1", 1.0)]},
    }
    (one,) = backtranslation_scores(FakeTranslator(table), ["[X] a [Y]"], ["es"], rounds=1)
    assert one == {"[X] c [Y]": 1.0}
    fake = FakeTranslator(table)
    (two,) = backtranslation_scores(fake, ["[X] a [Y]"], ["es"], rounds=2)
    assert two == {"[X] c [Y]": 1.0, "[X] e [Y]": 1.0}
    assert len(fake.calls) == 4  # each text translated once per direction


def test_paraphrase_prompts_ranks_and_keeps_top():
    prompts = pd.DataFrame({"relation": ["P19"], "text": [SOURCE]})
    out = paraphrase_prompts(prompts, FakeTranslator(TABLE), ["de", "es"], top=3)
    assert list(out["text"]) == [SOURCE, "[X] is born in [Y] .", "[X] came into the world in [Y] ."]
    assert list(out["template"]) == ["bt-00", "bt-01", "bt-02"]
    assert math.isnan(out["score"][0])
    assert out["score"][1] == pytest.approx(0.59) and out["score"][2] == pytest.approx(0.1)
    ranked = paraphrase_prompts(prompts, FakeTranslator(TABLE), ["de"], keep_source=False)
    assert list(ranked["text"])[:2] == [SOURCE, "[X] came into the world in [Y] ."]  # .52, .2
    with pytest.raises(ValueError, match="pivot"):
        paraphrase_prompts(prompts, FakeTranslator(TABLE), [])


def _apertium_pair(src, tgt):
    if shutil.which("apertium") is None:
        pytest.skip("apertium is not installed (apt-get install apertium apertium-eng-spa)")
    try:
        ApertiumTranslator().mode(src, tgt)
        ApertiumTranslator().mode(tgt, src)
    except TranslatorUnavailable as exc:
        pytest.skip(f"the Apertium pair is not installed: {exc}")


def test_apertium_round_trip():
    _apertium_pair("en", "es")
    tr = ApertiumTranslator()
    (es,), (other,) = tr.translate(["PX1 was born in PY1 .", "The dog sleeps ."], "en", "es")
    assert es.text.split()[0] == "PX1" and "PY1" in es.text and es.logprob == 0.0
    assert "perro" in other.text
    out = paraphrase_prompts(
        pd.DataFrame({"relation": ["P19"], "text": [SOURCE]}), tr, ["es"], keep_source=False
    )
    assert out["text"][0] == SOURCE and out["score"][0] == 1.0


def test_apertium_unknown_pair_is_a_clear_error():
    if shutil.which("apertium") is None:
        pytest.skip("apertium is not installed")
    with pytest.raises(TranslatorUnavailable, match="no Apertium mode"):
        ApertiumTranslator().mode("en", "xx")


def test_missing_apertium_program_is_a_clear_error():
    with pytest.raises(TranslatorUnavailable, match="apt-get install apertium"):
        ApertiumTranslator(executable="no-such-apertium").translate(["a"], "en", "es")


def test_marian_without_the_model_is_a_clear_error(tmp_path):
    tr = MarianTranslator(
        models={("en", "de"): str(tmp_path / "opus-mt-en-de")}, local_files_only=True
    )
    with pytest.raises(TranslatorUnavailable, match=r"opus-mt-en-de.*could not be loaded"):
        tr.translate(["[X] was born in [Y] ."], "en", "de")
    with pytest.raises(TranslatorUnavailable, match="no MarianMT model configured"):
        tr.translate(["x"], "en", "fr")
