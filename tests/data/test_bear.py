"""BEAR: counts, templates, samples, and errors that name file, line and field."""

import json
import shutil
from pathlib import Path

import pytest

from calib.data.bear import LINGUISTIC, PARAPHRASES, TEMPLATE_NAMES, load_bear, template_names
from calib.data.errors import DataFormatError
from calib.data.root import data_root


def test_counts_and_templates(bear):
    assert len(bear.relations) == 60
    assert len(bear) == 7731
    sizes = [r.n_options for r in bear.relations.values()]
    assert min(sizes) == 5 and max(sizes) == 60 and sizes.count(60) == 14
    p19 = bear.relations["P19"]
    assert list(p19.templates) == list(TEMPLATE_NAMES)
    assert p19.templates["possibly"] == "[X] was possibly born in [Y]."
    assert p19.templates["numeric-25"].startswith("I'm 25% confident")
    assert "Biographical" in p19.domains
    # each instance's answer index points at its object
    for rel, rows in bear.instances.groupby("relation"):
        labels = bear.relations[rel].answer_labels
        assert all(labels[i] == o for i, o in zip(rows["answer_idx"], rows["obj_label"]))
    # one template over all of BEAR (README: 209,499 statements)
    n_stmt = sum(bear.relations[r].n_options for r in bear.instances["relation"])
    assert n_stmt == 209_499


def test_template_names():
    assert template_names("paraphrase-0..4") == list(PARAPHRASES)
    assert template_names("numeric-0..100") == [f"numeric-{p}" for p in (0, 25, 50, 75, 100)]
    assert template_names("linguistic") == list(LINGUISTIC)
    assert template_names(["certainly", "0"]) == ["certainly", "paraphrase-0"]
    assert template_names("all") == list(TEMPLATE_NAMES)
    with pytest.raises(ValueError, match="unknown template"):
        template_names("paraphrase-9")


def test_sample_is_seeded_stratified_and_nested(bear):
    a = bear.sample(5, seed=1)
    assert a.instances.groupby("relation").size().max() == 5
    assert a.instances["relation"].nunique() == 60
    assert a.instances.equals(bear.sample(5, seed=1).instances)
    assert not a.instances.equals(bear.sample(5, seed=2).instances)
    bigger = bear.sample(8, seed=1)
    assert set(a.instances["instance"]) <= set(bigger.instances["instance"])
    with pytest.raises(ValueError):
        bear.sample(0)


def test_version_changes_with_data(bear, tmp_path):
    root = _copy_bear(tmp_path, ["P19", "P30"])
    v1 = load_bear(root).version
    f = root / "bear" / "P30.jsonl"
    f.write_text(f.read_text().splitlines()[0] + "\n")
    assert load_bear(root).version != v1


def _copy_bear(tmp_path, relations):
    src = data_root() / "bear"
    dst = tmp_path / "data" / "bear"
    dst.mkdir(parents=True)
    meta = json.loads((src / "metadata_relations.json").read_text())
    (dst / "metadata_relations.json").write_text(
        json.dumps({r: meta[r] for r in relations}, indent=1)
    )
    shutil.copy(src / "relation_info.json", dst / "relation_info.json")
    for r in relations:
        shutil.copy(src / f"{r}.jsonl", dst / f"{r}.jsonl")
    return dst.parent


def _edit_meta(root: Path, fn):
    path = root / "bear" / "metadata_relations.json"
    meta = json.loads(path.read_text())
    fn(meta)
    path.write_text(json.dumps(meta, indent=1))


def test_malformed_json_names_file_and_line(tmp_path):
    root = _copy_bear(tmp_path, ["P30"])
    f = root / "bear" / "P30.jsonl"
    lines = f.read_text().splitlines()
    lines[2] = lines[2][:-5]
    f.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataFormatError, match=r"P30\.jsonl, line 3, column \d+: malformed JSON"):
        load_bear(root)


def test_template_without_slot(tmp_path):
    root = _copy_bear(tmp_path, ["P30"])
    _edit_meta(root, lambda m: m["P30"]["templates"].__setitem__(1, "Somewhere is [Y]."))
    with pytest.raises(DataFormatError, match=r"field 'P30.templates\[1\]'.*\[X\] exactly once"):
        load_bear(root)


def test_answer_idx_must_point_at_object(tmp_path):
    root = _copy_bear(tmp_path, ["P30"])
    f = root / "bear" / "P30.jsonl"
    rows = [json.loads(x) for x in f.read_text().splitlines()]
    rows[4]["answer_idx"] = (rows[4]["answer_idx"] + 1) % 6
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(DataFormatError, match=r"P30\.jsonl, line 5, field 'answer_idx'"):
        load_bear(root)
    rows[4]["answer_idx"] = 99
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    with pytest.raises(DataFormatError, match="not an index into the answer space"):
        load_bear(root)


def test_duplicate_and_empty_answer_space(tmp_path):
    root = _copy_bear(tmp_path, ["P30"])
    _edit_meta(
        root,
        lambda m: m["P30"]["answer_space_labels"].__setitem__(
            1, m["P30"]["answer_space_labels"][0]
        ),
    )
    with pytest.raises(DataFormatError, match=r"answer_space_labels.: duplicate answer .Africa."):
        load_bear(root)

    def empty(m):
        m["P30"]["answer_space_labels"] = []
        m["P30"]["answer_space_ids"] = []

    _edit_meta(root, empty)
    with pytest.raises(DataFormatError, match="answer space is empty"):
        load_bear(root)


def test_relation_without_metadata(tmp_path):
    root = _copy_bear(tmp_path, ["P30", "P19"])
    _edit_meta(root, lambda m: m.pop("P19"))
    with pytest.raises(DataFormatError, match=r"P19\.jsonl: relation P19 has no entry"):
        load_bear(root)
