"""A corpus of bad data files, one per fault: each is a clear error naming file, line (and
column) and field, raised by the loader before any model is loaded.

``good_data/`` is a tiny hand-made data root (BEAR, LAMA, LPAQA and FACTOR files) that every
loader reads without complaint; ``bad_data/<fault>/`` holds one file that replaces its namesake
there. The table below is the expected outcome of each fault.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from calib.data.bear import load_bear
from calib.data.errors import DataFormatError
from calib.data.factor import load_factor
from calib.data.lama import load_lama, load_lpaqa_prompts, load_sentences

HERE = Path(__file__).resolve().parent
GOOD, BAD = HERE / "good_data", HERE / "bad_data"

LOADERS = {
    "bear": lambda root: load_bear(root),
    "bear P30": lambda root: load_bear(root, relations=["P30"]),
    "lama": lambda root: load_lama(root),
    "lpaqa mine": lambda root: load_lpaqa_prompts("mine", root),
    "lpaqa manual": lambda root: load_lpaqa_prompts("manual_paraphrase", root),
    "sentences": lambda root: load_sentences(root, splits=["train"]),
    "factor": lambda root: load_factor(["news"], root),
    "factor strict": lambda root: load_factor(["news"], root, on_invalid="error"),
}

_UTF8 = (
    r"is not UTF-8 \(invalid continuation byte\); data files must be UTF-8: re-save the "
    r"file as UTF-8"
)
_EMPTY = r": the file holds no records \(it is empty\)"
#: fault (folder in bad_data) -> loader, expected message (a regular expression)
CASES = {
    "bear-not-utf8": (
        "bear",
        r"bear/P30\.jsonl, line 2, column 33: byte 0xe2 \(byte offset "
        r"158\) " + _UTF8,
    ),
    "bear-empty-relation": ("bear", r"bear/P30\.jsonl" + _EMPTY),
    "bear-empty-relation:by-name": ("bear P30", r"bear/P30\.jsonl" + _EMPTY),
    "bear-blank-relation": ("bear", r"bear/P30\.jsonl" + _EMPTY),
    "bear-null-sub-label": (
        "bear",
        r"bear/P30\.jsonl, line 2, field 'sub_label': expected a "
        r"non-empty string, got null",
    ),
    "bear-malformed-json": (
        "bear",
        r"bear/P30\.jsonl, line 3, column 34: malformed JSON "
        r"\(Expecting ',' delimiter\)",
    ),
    "bear-answer-idx-string": (
        "bear",
        r"bear/P30\.jsonl, line 3, field 'answer_idx': expected "
        r"an integer, got str '2'",
    ),
    "bear-answer-idx-bool": (
        "bear",
        r"bear/P30\.jsonl, line 2, field 'answer_idx': expected an "
        r"integer, got true",
    ),
    "bear-answer-idx-out-of-range": (
        "bear",
        r"bear/P30\.jsonl, line 2, field 'answer_idx': "
        r"answer_idx 7 is not an index into the answer "
        r"space of 3 options",
    ),
    "bear-answer-idx-other-object": (
        "bear",
        r"bear/P30\.jsonl, line 2, field 'answer_idx': "
        r"answer_idx 2 points at 'Europe' \(Q46\), but the "
        r"object is 'Asia' \(Q48\)",
    ),
    "bear-aliases-not-a-list": (
        "bear",
        r"bear/P30\.jsonl, line 1, field 'sub_aliases': "
        r"expected a list of strings, got str 'Nile River'",
    ),
    "bear-obj-label-number": (
        "bear",
        r"bear/P30\.jsonl, line 2, field 'obj_label': expected a "
        r"non-empty string, got int 48",
    ),
    "bear-missing-field": ("bear", r"bear/P30\.jsonl, line 2, field 'obj_id': missing"),
    "bear-not-an-object": ("bear", r"bear/P30\.jsonl, line 2: expected a JSON object, got list"),
    "bear-duplicate-subject": (
        "bear",
        r"bear/P30\.jsonl, line 3, field 'sub_id': subject Q1 "
        r"repeats line 1",
    ),
    "bear-meta-label-null": (
        "bear",
        r"bear/metadata_relations\.json, field "
        r"'P30\.answer_space_labels\[1\]': expected a non-empty "
        r"string, got null",
    ),
    "bear-meta-template-without-slot": (
        "bear",
        r"bear/metadata_relations\.json, field "
        r"'P30\.templates\[3\]': template 'paraphrase-3' "
        r".* must hold \[Y\] exactly once",
    ),
    "bear-meta-malformed": (
        "bear",
        r"bear/metadata_relations\.json, line 21, column 3: "
        r"malformed JSON \(Expecting value\)",
    ),
    "bear-meta-not-utf8": (
        "bear",
        r"bear/metadata_relations\.json, line 5, column 11: byte "
        r"0xe9 \(byte offset 68\) " + _UTF8,
    ),
    "bear-domains-not-a-list": (
        "bear",
        r"bear/relation_info\.json, field 'P30\.domains': "
        r"expected a list of strings, got str 'Geography'",
    ),
    "lama-facts-int-sub-label": (
        "lama",
        r"lama/facts/P1\.jsonl, line 2, field 'sub_label': "
        r"expected a non-empty string, got int 7",
    ),
    "lama-facts-empty": ("lama", r"lama/facts/P1\.jsonl" + _EMPTY),
    "lama-facts-not-utf8": (
        "lama",
        r"lama/facts/P1\.jsonl, line 2, column 39: byte 0xf1 "
        r"\(byte offset 96\) " + _UTF8,
    ),
    "lama-train-null-obj-uri": (
        "lama",
        r"lpaqa/TREx_train/P1\.jsonl, line 1, field 'obj_uri': "
        r"expected a non-empty string, got null",
    ),
    "lama-relations-label-number": (
        "lama",
        r"lama/relations\.jsonl, line 1, field 'label': "
        r"expected a string, got int 3",
    ),
    "lama-prompt-weight-string": (
        "lpaqa mine",
        r"lpaqa/prompt/mine/P1\.jsonl, line 2, field "
        r"'weight': expected a number, got str '0\.2'",
    ),
    "lama-prompt-file-empty": (
        "lpaqa manual",
        r"lpaqa/prompt/manual_paraphrase/P1\.txt: the "
        r"file holds no prompts",
    ),
    "lama-sentences-evidences-not-a-list": (
        "sentences",
        r"lama/sentences/train/P1\.jsonl, line "
        r"1, field 'evidences': expected a "
        r"list, got str",
    ),
    "factor-not-utf8": (
        "factor",
        r"factor/news_factor\.csv, line 3, column 9: byte 0xef "
        r"\(byte offset 170\) " + _UTF8,
    ),
    "factor-header-only": (
        "factor",
        r"factor/news_factor\.csv: the file holds a header but no "
        r"items",
    ),
    "factor-missing-column": (
        "factor",
        r"factor/news_factor\.csv, line 1, field "
        r"'contradiction_2': missing column",
    ),
    "factor-too-many-fields": (
        "factor",
        r"factor/news_factor\.csv, line 2: the record has 9 "
        r"fields, the header 8",
    ),
    "factor-empty-completion": (
        "factor strict",
        r"factor/news_factor\.csv, line 3, field "
        r"'contradiction_0': the completion is empty",
    ),
}


def data_root(tmp_path: Path, fault: str | None = None) -> Path:
    """A copy of ``good_data`` with the file of ``fault`` put in place."""
    root = shutil.copytree(GOOD, tmp_path / "data")
    if fault is not None:
        shutil.copytree(BAD / fault.split(":")[0], root, dirs_exist_ok=True)
    return root


def test_every_fault_of_the_corpus_has_an_expected_outcome():
    assert sorted(p.name for p in BAD.iterdir()) == sorted({c.split(":")[0] for c in CASES})
    for fault in BAD.iterdir():
        assert len([p for p in fault.rglob("*") if p.is_file()]) == 1, fault.name


def test_the_good_data_root_loads_with_every_loader(tmp_path):
    root = data_root(tmp_path)
    for name, load in LOADERS.items():
        assert len(load(root)) > 0, name


@pytest.mark.parametrize("fault", sorted(CASES))
def test_a_bad_file_is_an_error_naming_file_line_and_field(fault, tmp_path):
    loader, expected = CASES[fault]
    root = data_root(tmp_path, fault)
    with pytest.raises(DataFormatError) as info:
        LOADERS[loader](root)
    message = str(info.value)
    assert message.startswith(str(root) + "/"), message
    assert "\n" not in message
    assert re.search(expected, message), message


def test_calib_score_reports_bad_data_in_one_line_before_loading_a_model(
    tmp_path, capsys, monkeypatch
):
    import calib.scoring.run as run
    from calib.cli import main

    def no_model(*args, **kwargs):
        raise AssertionError("a model was loaded although the data are bad")

    monkeypatch.setattr(run, "load_model", no_model)
    root = data_root(tmp_path, "bear-null-sub-label")
    code = main(
        [
            "score",
            "--model",
            "tiny-gpt2",
            "--data-dir",
            str(root),
            "--cache-dir",
            str(tmp_path / "cache"),
        ]
    )
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err == (
        f"calib score: {root}/bear/P30.jsonl, line 2, field 'sub_label': expected a "
        f"non-empty string, got null"
    )


def test_a_relation_file_that_is_a_folder_is_named(tmp_path):
    root = data_root(tmp_path)
    (root / "bear" / "P30.jsonl").unlink()
    (root / "bear" / "P30.jsonl").mkdir()
    with pytest.raises(DataFormatError) as info:
        load_bear(root)
    assert str(info.value) == (
        f"{root}/bear/P30.jsonl: is a folder; expected a data file: put the file in its place"
    )
