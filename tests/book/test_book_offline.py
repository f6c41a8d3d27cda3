"""The offline check of built pages and the placeholder-numbers label (no build needed)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from book_staging import FIXTURES, REPO, stage_book
from module_from_file import module_from_file

from calib.book import executed_path, offline_violations


def test_offline_violations_finds_remote_scripts_styles_images_and_fonts(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "page.html").write_text(
        '<script src="https://cdn.example.org/vega.js"></script>'
        '<script src="../_static/local.js"></script>'
        "<link rel='stylesheet' href='//fonts.example.org/f.css'>"
        '<link rel="next" href="https://example.org/next.html">'
        '<a href="https://arxiv.org/abs/2601.18901">a link is fine</a>'
        '<img alt="x" src="http://example.org/x.png">'
    )
    (tmp_path / "style.css").write_text(
        "@import 'https://example.org/a.css'; .x { background: url(img/local.png); }"
        ' @font-face { src: url("https://fonts.example.org/f.woff2"); }'
    )
    assert offline_violations(tmp_path) == [
        ("sub/page.html", "https://cdn.example.org/vega.js"),
        ("sub/page.html", "//fonts.example.org/f.css"),
        ("sub/page.html", "http://example.org/x.png"),
        ("style.css", "https://example.org/a.css"),
        ("style.css", "https://fonts.example.org/f.woff2"),
    ]


def _extension():
    return module_from_file(REPO / "book" / "_ext" / "calib_offline.py", "calib_offline_under_test")


def _executed(root, name, synthetic):
    path = executed_path(name, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "cells": [],
                "nbformat": 4,
                "nbformat_minor": 5,
                "metadata": {
                    "calib": {
                        "profile": "quick" if synthetic else "cpu",
                        "synthetic": synthetic,
                        "profile_label": "tiny models",
                    }
                },
            }
        )
    )


@pytest.mark.parametrize(
    "synthetic, expected",
    [
        ({"a": False, "b": False}, None),
        (
            {"a": True, "b": False},
            "Placeholder numbers: chapter a ran with the quick profile "
            "(tiny models); they test the pipeline",
        ),
        ({"a": True, "b": True}, "Placeholder numbers: chapters a, b ran with the quick profile"),
    ],
)
def test_the_book_is_labelled_when_a_chapter_ran_with_a_synthetic_profile(
    tmp_path, synthetic, expected
):
    root = stage_book(tmp_path / "b", dict.fromkeys(synthetic, FIXTURES / "fixture.md"))
    for name, flag in synthetic.items():
        _executed(root, name, flag)
    config = SimpleNamespace(html_theme_options={"search_bar_text": "Search"})
    _extension()._announce(SimpleNamespace(srcdir=str(root)), config)
    announcement = config.html_theme_options.get("announcement")
    assert config.html_theme_options["search_bar_text"] == "Search"
    if expected is None:
        assert announcement is None
    else:
        assert announcement.startswith(expected)
