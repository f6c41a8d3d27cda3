"""Chart builders (tidy frame in, Altair chart out) and their offline rendering."""

from __future__ import annotations

import json
import re

import altair as alt
import pandas as pd
import pytest

from calib.report import charts


@pytest.fixture
def bins():
    rows = [{"model": m, "estimator": e, "confidence": (b + 0.5) / 5,
             "accuracy": min(1.0, (b + 0.5) / 5 + d), "count": 10}
            for m in ("m1", "m2") for e, d in (("Base", 0.0), ("Margin", 0.1))
            for b in range(5)]
    return pd.DataFrame(rows)


def _layers(spec: dict) -> list[dict]:
    inner = spec.get("spec", spec)
    return inner.get("layer", [inner])


def _data_rows(spec: dict) -> list[list[dict]]:
    return list(spec.get("datasets", {}).values())


def test_calibration_curve_has_the_diagonal_and_a_panel_per_model(bins):
    spec = charts.calibration_curve(bins).to_dict()
    assert spec["facet"]["field"] == "model"
    diagonal, line = _layers(spec)
    assert diagonal["mark"]["type"] == "rule"
    assert {k: diagonal["encoding"][k]["field"] for k in ("x", "y", "x2", "y2")} == {
        "x": "x", "y": "y", "x2": "x2", "y2": "y2"}
    assert [{"x": 0.0, "y": 0.0, "x2": 1.0, "y2": 1.0}] in _data_rows(spec)
    assert line["encoding"]["x"]["field"] == "confidence"
    assert line["encoding"]["y"]["scale"]["domain"] == [0, 1]
    assert line["encoding"]["color"]["field"] == "estimator"
    assert len(max(_data_rows(spec), key=len)) == len(bins)


def test_calibration_curve_without_facets_and_with_renamed_columns(bins):
    frame = bins[bins.model == "m1"].rename(columns={"accuracy": "acc"})
    spec = charts.calibration_curve(frame, accuracy="acc", facet=None, title="t").to_dict()
    assert "facet" not in spec and spec["title"] == "t"
    assert _layers(spec)[1]["encoding"]["y"]["field"] == "acc"


def test_a_missing_column_is_named(bins):
    with pytest.raises(ValueError, match=r"calibration_curve: the frame lacks column\(s\) "
                                         r"\['accuracy'\]"):
        charts.calibration_curve(bins.drop(columns="accuracy"))
    with pytest.raises(ValueError, match="is empty"):
        charts.ace_accuracy_scatter(bins.iloc[:0].assign(ace=[]))
    with pytest.raises(TypeError, match="expected a pandas DataFrame"):
        charts.grouped_bars({"model": ["a"]})


def test_scatter_rejection_and_bars_encode_the_named_columns(bins):
    summary = bins.groupby(["model", "estimator"], as_index=False).agg(
        accuracy=("accuracy", "mean"), ace=("confidence", "mean"))
    spec = charts.ace_accuracy_scatter(summary).to_dict()
    enc = _layers(spec)[0]["encoding"]
    assert (enc["x"]["field"], enc["y"]["field"]) == ("accuracy", "ace")
    assert [t["field"] for t in enc["tooltip"]] == ["model", "estimator", "accuracy", "ace"]

    curve = bins.rename(columns={"confidence": "threshold"}).assign(rejected=0.3)
    spec = charts.accuracy_rejection(curve).to_dict()
    assert _layers(spec)[0]["encoding"]["x"]["field"] == "threshold"

    deltas = summary.assign(delta=summary.ace - 0.5, lo=summary.ace - 0.6, hi=summary.ace - 0.4)
    spec = charts.grouped_bars(deltas, lower="lo", upper="hi").to_dict()
    marks = [layer["mark"]["type"] for layer in _layers(spec)]
    assert marks == ["bar", "rule", "rule"]
    assert _layers(spec)[0]["encoding"]["xOffset"]["field"] == "estimator"
    with pytest.raises(ValueError, match="both lower and upper"):
        charts.grouped_bars(deltas, lower="lo")


def test_band_summary_is_mean_min_max_over_repeats():
    frame = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 2, "k": [5, 5, 5, 10, 5, 5],
                          "value": [0.1, 0.4, 0.7, 0.5, 0.2, 0.2]})
    out = charts.band_summary(frame, x="k", y="value", by=["model"])
    assert out.to_dict("records") == [
        {"model": "a", "k": 5, "mean": pytest.approx(0.4), "lower": 0.1, "upper": 0.7, "n": 3},
        {"model": "a", "k": 10, "mean": 0.5, "lower": 0.5, "upper": 0.5, "n": 1},
        {"model": "b", "k": 5, "mean": 0.2, "lower": 0.2, "upper": 0.2, "n": 2}]
    spec = charts.metric_band(frame).to_dict()
    band, line = _layers(spec)
    assert (band["mark"]["type"], band["encoding"]["y"]["field"],
            band["encoding"]["y2"]["field"]) == ("area", "lower", "upper")
    assert line["encoding"]["y"]["field"] == "mean"


def test_every_builder_makes_a_valid_vega_lite_spec_that_renders(bins):
    summary = bins.groupby(["model", "estimator"], as_index=False).agg(
        accuracy=("accuracy", "mean"), ace=("confidence", "mean"))
    built = [charts.calibration_curve(bins), charts.ace_accuracy_scatter(summary),
             charts.accuracy_rejection(bins.rename(columns={"confidence": "threshold"})
                                       .assign(rejected=0.2)),
             charts.metric_band(pd.DataFrame({"model": "a", "k": [5, 5, 10],
                                              "value": [0.1, 0.3, 0.2]})),
             charts.grouped_bars(summary.assign(delta=0.1))]
    for chart in built:
        spec = chart.to_dict(validate=True)
        svg = charts.static_svg(spec)
        assert svg.lstrip().startswith("<svg") and "<path" in svg


def test_the_chart_html_holds_the_spec_safely_and_a_static_fallback():
    spec = {"$schema": alt.SCHEMA_URL, "data": {"values": [{"a": "</script><b>&"}]},
            "mark": "point", "encoding": {"x": {"field": "a", "type": "nominal"}}}
    html = charts.chart_html(spec, svg="<svg>fallback</svg>")
    assert html.startswith('<div class="calib-chart" id="calib-chart-')
    data = re.search(r'<script type="application/json" class="calib-chart-spec">(.*?)</script>',
                     html, re.S).group(1)
    assert "<" not in data and ">" not in data and "&" not in data
    assert json.loads(data) == spec
    assert '<div class="calib-chart-view"><svg>fallback</svg></div>' in html
    assert charts.chart_html(spec) != charts.chart_html(spec)  # unique container ids


def test_the_offline_renderer_is_enabled_and_names_no_other_host(bins):
    assert alt.renderers.active == charts.RENDERER
    bundle = charts.calibration_curve(bins)._repr_mimebundle_()
    bundle = bundle[0] if isinstance(bundle, tuple) else bundle
    assert set(bundle) == {"text/html", "image/svg+xml", "text/plain"}
    html = bundle["text/html"]
    assert "<script src" not in html and "cdn" not in html.lower()
    assert "https://vega.github.io/schema" in html  # only the spec's $schema id, never loaded


def test_the_vega_bundle_is_a_classic_script_setting_vega_embed():
    header = charts.vega_bundle_header()
    code = charts.vega_bundle()
    assert code.startswith(header) and header.endswith("*/\n")
    assert code.rstrip().endswith("})();")
    assert "window.vegaEmbed=" in code.replace(" ", "")
    assert not re.search(r"^\s*(import|export)\s", code, re.M)
    assert f"Vega-Lite {alt.SCHEMA_VERSION.lstrip('v').rsplit('.', 1)[0]}" in header


def test_charts_do_not_compute_metrics():
    """Builders only plot: their input frame is unchanged."""
    frame = pd.DataFrame({"model": "a", "k": [5, 10], "value": [0.1, 0.2]})
    before = frame.copy()
    charts.metric_band(frame)
    pd.testing.assert_frame_equal(frame, before)
