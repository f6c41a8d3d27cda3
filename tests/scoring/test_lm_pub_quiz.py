"""calib builds and scores statements as lm-pub-quiz 0.3.3 (the BEAR authors' library, with which
the paper's scores were computed) does, statement by statement, on the tiny models.

lm-pub-quiz is a dev dependency (installed in CI); without it these tests are skipped.
"""

import copy
from dataclasses import replace

import numpy as np
import pytest
from helpers import encode

from calib.scoring.clm import clm_score
from calib.scoring.encoding import encode_clm_lm_pub_quiz, start_token_count
from calib.scoring.mlm import mlm_score
from calib.scoring.statements import bear_queries, fill_template

lpq = pytest.importorskip("lm_pub_quiz")
from lm_pub_quiz.evaluators.templating_util import Templater  # noqa: E402

#: templates of P105 and P641 that start with the subject (paraphrase-0) or with the answer
#: (paraphrase-3 of P105, paraphrase-4 of P641), whose subjects and answers are often lower-case
LOWER_TEMPLATES = ["paraphrase-0", "paraphrase-3", "paraphrase-4"]


@pytest.fixture(scope="module")
def lower_case_bear(bear):
    """Two instances each of P105 and P641 whose subject starts with a lower-case letter."""
    part = bear.select(["P105", "P641"])
    inst = part.instances
    keep = inst[inst["sub_label"].str[:1].str.islower()].groupby("relation").head(2)
    return replace(part, instances=keep.reset_index(drop=True))


def _subject(bear, q):
    row = bear.instances.set_index(["relation", "instance"]).loc[(q.relation, q.instance)]
    return str(row["sub_label"])


def _evaluator(lm, tokenizer=None, **kw):
    kind = "CLM" if lm.objective == "clm" else "MLM"
    return lpq.Evaluator.from_model(
        lm.model, model_type=kind, tokenizer=tokenizer or lm.tokenizer, device="cpu", **kw
    )


def _their_sums(ev, bear, queries):
    """lm-pub-quiz's sentence scores (sum over the scored tokens), per query and option."""
    return [
        ev.evaluate_instance(
            template=bear.relations[q.relation].templates[q.template],
            answers=list(q.answers),
            subject=_subject(bear, q),
            reduction="sum",
            batch_size=64,
        )
        for q in queries
    ]


def test_every_bear_template_fills_as_lm_pub_quiz(bear):
    """Text and spans equal lm-pub-quiz's Templater for all 60 relations x 12 templates, on
    the first instance and every lower-case-subject instance, with every answer option."""
    templater = Templater()
    inst = bear.instances
    lower = inst["sub_label"].str[:1].str.islower()
    changed = 0
    for rel_id, rel in bear.relations.items():
        rows = inst[(inst["relation"] == rel_id) & (lower | ~inst["relation"].duplicated())]
        for template in rel.templates.values():
            for subject in rows["sub_label"]:
                for answer in rel.answer_labels:
                    ours = fill_template(template, subject, answer)
                    text, spans = templater.replace_placeholders(
                        template=template, subject=subject, answer=answer
                    )
                    assert ours.text == text
                    assert {r: [(a, b)] for r, a, b in ours.spans} == {
                        "subject": spans["subject"],
                        "object": spans["answer"],
                    }
                    changed += text != template.replace("[X]", subject).replace("[Y]", answer)
    assert changed > 1000  # the capitalisation is exercised, not only matched trivially


@pytest.mark.parametrize("name", ["tiny-gpt2", "tiny-llama", "tiny-bert", "tiny-roberta"])
def test_scores_equal_lm_pub_quiz(name, tiny_models, small_bear, lower_case_bear):
    """Per statement, calib's sentence log-likelihood (CLM: one start token; MLM: within-word
    l2r PLL) equals lm-pub-quiz's sum, to 1e-4. The tiny tokenizers pad on the right, so
    lm-pub-quiz's start token is the single one calib uses."""
    lm = tiny_models[name]
    ev = _evaluator(lm, **({"pll_metric": "within_word_l2r"} if lm.objective == "mlm" else {}))
    cases = [
        (lower_case_bear, bear_queries(lower_case_bear, LOWER_TEMPLATES)),
        (small_bear, bear_queries(small_bear, ["paraphrase-0", "certainly"])[::2]),
    ]
    n, worst = 0, 0.0
    for part, queries in cases:
        groups = encode(lm, queries)
        if lm.objective == "clm":
            ours = clm_score(lm.model, groups)
        else:
            ours = mlm_score(
                lm.model, groups, lm.tokenizer.mask_token_id, lm.tokenizer.pad_token_id
            )
        for mine, theirs in zip(ours, _their_sums(ev, part, queries)):
            assert len(mine) == len(theirs)
            for a, b in zip(mine, theirs):
                worst = max(worst, abs(a.sum() - b))
                n += 1
    assert n > 150
    assert worst < 1e-4, f"{name}: max |calib - lm-pub-quiz| = {worst:.2e} over {n} statements"


@pytest.mark.parametrize("side", ["right", "left"])
def test_lm_pub_quiz_start_tokens_reproduced(side, tiny_models, small_bear):
    """``encode_clm_lm_pub_quiz`` gives lm-pub-quiz's token ids and scores, also with a
    tokenizer that pads on the left, where lm-pub-quiz doubles the BOS for an instance whose
    first statement is not its longest."""
    lm = tiny_models["tiny-llama"]
    tok = copy.deepcopy(lm.tokenizer)
    tok.padding_side = side
    ev = _evaluator(lm, tokenizer=tok)
    queries = bear_queries(small_bear, ["paraphrase-0", "paraphrase-4"])
    counts = []
    for q, theirs in zip(queries, _their_sums(ev, small_bear, queries)):
        encs = encode_clm_lm_pub_quiz(tok, q.statements)
        batch, _ = ev.encode([s.text for s in q.statements], [{}] * len(q.statements))
        for row, mask, enc in zip(batch["input_ids"], batch["attention_mask"], encs):
            assert row[mask.bool()].tolist() == enc.ids.tolist()
        lengths = [len(e.ids) for e in encode(lm, [q])[0]]
        counts.append(start_token_count(encs[0], tok.bos_token_id))
        assert counts[-1] == (2 if side == "left" and lengths[0] < max(lengths) else 1)
        np.testing.assert_allclose(
            [s.sum() for s in clm_score(lm.model, [encs])[0]], theirs, atol=1e-4
        )
    assert set(counts) == ({1, 2} if side == "left" else {1})
