"""What the runner adds to a chapter, without running one: the parameters cell it shows, the
downloads it collects, the interval check over them, and the provenance record."""

from __future__ import annotations

import json
import subprocess

import pandas as pd
import pytest

from calib.book import downloads, provenance, render
from calib.models.tiny import TINY_VERSION
from calib.report.table_format import html_table, reported_table
from calib.scoring.usage import record_scores
from calib.settings import EXPORT_ENV

CELL = """models: list[str] = ["a", "b"]  # models to score
per_relation: int | None = 2  # instances per relation
relations: list[str] | None = None
seed: int = 0"""


def test_the_parameters_cell_shows_the_values_the_chapter_ran_with():
    shown = render.show_effective_parameters(
        CELL, {"models": ["tiny-gpt2"], "per_relation": 3, "seed": 0, "relations": ["P1", "P2"]}
    )
    assert shown.splitlines() == [
        'models: list[str] = ["tiny-gpt2"]  # models to score (notebook default: ["a", "b"])',
        "per_relation: int | None = 3  # instances per relation (notebook default: 2)",
        'relations: list[str] | None = ["P1", "P2"]  # (notebook default: None)',
        "seed: int = 0",
    ]
    assert render.show_effective_parameters(CELL, {}) == CELL
    assert (
        render.literal({"k": (1,), "s": 'say "hi"', "n": None})
        == '{"k": (1,), "s": "say \\"hi\\"", "n": None}'
    )


def _score_rows(model, instances, template="paraphrase-0"):
    return pd.DataFrame(
        [
            {
                "model": model,
                "dataset": "bear",
                "relation": "P1",
                "instance": i,
                "template": template,
                "option": o,
                "answer": f"a{o}",
                "answer_idx": 0,
                "token_logprobs": [-1.0, -2.0],
                "token_roles": ["subject", "object"],
            }
            for i in instances
            for o in range(2)
        ]
    )


def test_a_chapter_run_collects_its_tables_and_the_scores_it_used(tmp_path, monkeypatch):
    export = tmp_path / "export"
    monkeypatch.setenv(EXPORT_ENV, str(export))
    frame = pd.DataFrame({"model": ["m"], "ace": [0.2], "ace_low": [0.1], "ace_high": [0.3]})
    html_table(frame, intervals={"ace": ("ace_low", "ace_high")}, caption="Table one")
    html_table(frame, name="second table", caption="Table two")
    reported_table(frame)  # the papers' values are not a result of the run
    record_scores(_score_rows("org/model", ["Q1", "Q2"]))
    record_scores(_score_rows("org/model", ["Q2", "Q3"]))  # Q2 again: stored once
    record_scores(_score_rows("other", ["Q1"]))
    manifest = downloads.collect(export, "chap", tmp_path)
    folder = tmp_path / "_build" / "downloads" / "chap"
    assert [t["file"] for t in manifest["tables"]] == [
        "tables/table-01.csv",
        "tables/second-table.csv",
    ]
    assert manifest["tables"][0]["intervals"] == {"ace": ["ace_low", "ace_high"]}
    pd.testing.assert_frame_equal(pd.read_csv(folder / "tables" / "table-01.csv"), frame)
    assert [(s["file"], s["instances"], s["rows"]) for s in manifest["scores"]] == [
        ("scores/org_model.bear.parquet", 3, 6),
        ("scores/other.bear.parquet", 1, 2),
    ]
    back = pd.read_parquet(folder / "scores" / "org_model.bear.parquet")
    assert back["instance"].tolist() == ["Q1", "Q1", "Q2", "Q2", "Q3", "Q3"]
    assert json.loads((folder / "manifest.json").read_text()) == manifest
    text = downloads.downloads_markdown("chap", manifest)
    assert "(downloads-chap)=" in text and "{download}`chap.ipynb <chap.ipynb>`" in text
    assert "{download}`table-01.csv <../downloads/chap/tables/table-01.csv>`: Table one" in text
    assert "`org/model` on bear, 3 instances, 1 template(s), 6 statements" in text
    # a second run replaces the downloads as a whole
    monkeypatch.setenv(EXPORT_ENV, str(tmp_path / "export2"))
    html_table(frame)
    again = downloads.collect(tmp_path / "export2", "chap", tmp_path)
    assert again["scores"] == [] and not (folder / "scores").exists()
    assert [p.name for p in (tmp_path / "_build" / "downloads").iterdir()] == ["chap"]


def test_outside_a_chapter_run_nothing_is_recorded(tmp_path, monkeypatch):
    monkeypatch.delenv(EXPORT_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    html_table(pd.DataFrame({"a": [1]}))
    record_scores(_score_rows("m", ["Q1"]))
    assert list(tmp_path.iterdir()) == []


def test_score_tables_above_the_limit_are_named_not_copied(tmp_path, monkeypatch):
    monkeypatch.setenv(EXPORT_ENV, str(tmp_path / "export"))
    record_scores(_score_rows("m", ["Q1"]))
    manifest = downloads.collect(tmp_path / "export", "chap", tmp_path, max_score_bytes=10)
    assert manifest["scores"] == [] and manifest["scores_skipped"]["limit"] == 10
    assert "larger than the book copies" in downloads.downloads_markdown("chap", manifest)


def test_the_interval_check_finds_an_estimate_outside_its_interval(tmp_path, monkeypatch):
    monkeypatch.setenv(EXPORT_ENV, str(tmp_path / "export"))
    html_table(
        pd.DataFrame(
            {
                "model": ["a", "b", "c"],
                "ace": [0.2, 0.05, None],
                "ace_low": [0.1, 0.1, 0.1],
                "ace_high": [0.3, 0.3, 0.3],
                "difference": [0.0, 0.5, 0.1],
                "low": [-0.1, -0.1, 0.0],
                "high": [0.1, 0.2, 0.2],
            }
        ),
        intervals={"ace": ("ace_low", "ace_high")},
        caption="x",
    )
    downloads.collect(tmp_path / "export", "chap", tmp_path)
    found = downloads.interval_violations(tmp_path)
    assert len(found) == 2, found
    assert found[0].startswith("chap/tables/table-01.csv row 1: ace 0.05 outside [0.1, 0.3]")
    assert found[1].startswith("chap/tables/table-01.csv row 1: difference 0.5 outside")


def test_the_provenance_record(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "f.txt").write_text("1")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "add", "f.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    state = provenance.git_state(tmp_path)
    assert len(state["commit"]) == 40 and state["modified"] is False
    (tmp_path / "untracked.txt").write_text("new")
    assert provenance.git_state(tmp_path)["modified"] is False  # untracked files do not count
    (tmp_path / "f.txt").write_text("2")
    assert provenance.git_state(tmp_path)["modified"] is True
    assert provenance.git_state(tmp_path / "untracked.txt") == {"commit": None, "modified": None}
    record = provenance.provenance(["tiny-gpt2", str(tmp_path)], tmp_path, seconds=3.21)
    assert record["seconds"] == 3.2 and record["device"].startswith(("cpu", "cuda"))
    tiny, folder = record["models"]
    assert tiny["hash"].startswith(f"tiny:{TINY_VERSION}-") and tiny["objective"] == "clm"
    assert folder["kind"] == "folder" and folder["hash"].startswith("folder:")
    # the commit named is the one of the code that ran: this checkout of calib
    assert record["commit"] == provenance.git_state(provenance.code_checkout(tmp_path))["commit"]
    lines = provenance.provenance_lines(record)
    assert lines[0].startswith("- **Code**: ") and "; calib " in lines[0]
    record["commit"], record["modified"] = "0123456789abcdef", True
    assert provenance.provenance_lines(record)[0].startswith(
        "- **Code**: commit `0123456789ab` (with local modifications); calib "
    )
    assert f"`tiny-gpt2`: tiny `tiny:{TINY_VERSION}-" in lines[1] and ", float32" in lines[1]
    assert lines[-1] == f"- **Run**: device {record['device']}; wall time 3 s."


@pytest.mark.parametrize(
    "n, text",
    [
        (180, "**180 BEAR facts** per model (d); the 20 equal-count bins of ACE hold 9 each."),
        (50, "the 20 equal-count bins of ACE hold about 2.5 each."),
        (15, "fewer than ACE's 20 equal-count bins, so some bins are empty and dropped."),
    ],
)
def test_the_sample_size_sentence(n, text):
    from calib.report.prose import sample_size_sentence

    assert sample_size_sentence(n, detail="d").endswith(text) or text in sample_size_sentence(
        n, detail="d"
    )


def test_the_run_size_comes_from_the_values_the_run_had():
    assert render.run_size(
        {"models": ["a", "b"], "relations": ["P1", "P2"], "per_relation": 2, "seed": 0}
    ) == ("2 models (a, b); 2 instances per relation of 2 relations (P1, P2), seed 0")
    assert render.run_size({"models": ["a"], "relations": None, "per_relation": None}) == (
        "1 model (a); every instance of every BEAR relation"
    )
    assert render.run_size({"build_dir": "_build"}) == ""  # the ledger: no size to speak of
    assert render.overrides({"per_relation": 2}, {"per_relation": 3, "seed": 0}) == (
        "per_relation = 2 (the profile's default: 3)"
    )


@pytest.mark.parametrize("profile", ["quick", "cpu", "paper"])
def test_the_run_note_says_the_size_the_run_had_not_the_profiles(profile):
    """Issue 28: after ``-p per_relation 7`` the note and the warning say 7 per relation, and
    never the profile's description (which states its defaults)."""
    from calib.book import PROFILES

    prof = PROFILES[profile]
    values = {"models": ["tiny-gpt2"], "relations": ["P30"], "per_relation": 7, "seed": 1}
    defaults = {"models": ["x"], "relations": None, "per_relation": 3, "seed": 0}
    cell = render.run_note_cell(
        prof,
        "calib run c -p per_relation 7",
        values,
        "now",
        {},
        "c",
        downloads=False,
        given={"per_relation": 7},
        defaults=defaults,
    )
    text = cell.source
    assert "7 instances per relation of 1 relation (P30), seed 1" in text
    assert "with per_relation = 7 (the profile's default: 3)" in text
    assert prof.description not in text and "3 per relation" not in text
    assert ("```{warning}" in text) == prof.synthetic
    if prof.synthetic:
        warning = text.split("```{warning}")[1].split("```")[0]
        assert "ran on 1 model (tiny-gpt2); 7 instances per relation" in warning


def test_the_profiles_labels_say_no_size():
    """The label is printed on every page of a profile's chapters whatever ``-p`` changed, so
    it names the kind of models only: no number, no sample."""
    import re

    from calib.book import PROFILES

    for prof in PROFILES.values():
        assert not re.search(r"\d|per relation|instances|sample", prof.label), prof.label
