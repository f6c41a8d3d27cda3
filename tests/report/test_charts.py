"""Chart builders (tidy frame in, Altair chart out) and their offline rendering."""

from __future__ import annotations

import json
import re

import altair as alt
import pandas as pd
import pytest

from calib.report import chart_rendering as rendering
from calib.report import charts


@pytest.fixture
def bins():
    rows = [
        {
            "model": m,
            "estimator": e,
            "confidence": (b + 0.5) / 5,
            "accuracy": min(1.0, (b + 0.5) / 5 + d),
            "count": 10,
        }
        for m in ("m1", "m2")
        for e, d in (("Base", 0.0), ("Margin", 0.1))
        for b in range(5)
    ]
    return pd.DataFrame(rows)


def _layers(spec: dict) -> list[dict]:
    inner = spec.get("spec", spec)
    return inner.get("layer", [inner])


def _params(spec: dict) -> list[dict]:
    """The chart's parameters, wherever Altair put them (top level or a layer)."""
    return [
        *spec.get("params", []),
        *[p for layer in _layers(spec) for p in layer.get("params", [])],
    ]


def _data_rows(spec: dict) -> list[list[dict]]:
    return list(spec.get("datasets", {}).values())


def test_calibration_curve_has_the_diagonal_and_a_panel_per_model(bins):
    spec = charts.calibration_curve(bins).to_dict()
    assert spec["facet"]["field"] == "model"
    diagonal, line = _layers(spec)
    assert diagonal["mark"]["type"] == "rule"
    assert {k: diagonal["encoding"][k]["field"] for k in ("x", "y", "x2", "y2")} == {
        "x": "x",
        "y": "y",
        "x2": "x2",
        "y2": "y2",
    }
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
    with pytest.raises(
        ValueError,
        match=r"calibration_curve: the frame lacks column\(s\) "
        r"\['accuracy'\]",
    ):
        charts.calibration_curve(bins.drop(columns="accuracy"))
    with pytest.raises(ValueError, match="is empty"):
        charts.ace_accuracy_scatter(bins.iloc[:0].assign(ace=[]))
    with pytest.raises(TypeError, match="expected a pandas DataFrame"):
        charts.grouped_bars({"model": ["a"]})


def test_scatter_rejection_and_bars_encode_the_named_columns(bins):
    summary = bins.groupby(["model", "estimator"], as_index=False).agg(
        accuracy=("accuracy", "mean"), ace=("confidence", "mean")
    )
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
    frame = pd.DataFrame(
        {
            "model": ["a"] * 4 + ["b"] * 2,
            "k": [5, 5, 5, 10, 5, 5],
            "value": [0.1, 0.4, 0.7, 0.5, 0.2, 0.2],
        }
    )
    out = charts.band_summary(frame, x="k", y="value", by=["model"])
    assert out.to_dict("records") == [
        {"model": "a", "k": 5, "mean": pytest.approx(0.4), "lower": 0.1, "upper": 0.7, "n": 3},
        {"model": "a", "k": 10, "mean": 0.5, "lower": 0.5, "upper": 0.5, "n": 1},
        {"model": "b", "k": 5, "mean": 0.2, "lower": 0.2, "upper": 0.2, "n": 2},
    ]
    spec = charts.metric_band(frame).to_dict()
    band, line = _layers(spec)
    assert (
        band["mark"]["type"],
        band["encoding"]["y"]["field"],
        band["encoding"]["y2"]["field"],
    ) == ("area", "lower", "upper")
    assert line["encoding"]["y"]["field"] == "mean"


def test_every_builder_makes_a_valid_vega_lite_spec_that_renders(bins):
    summary = bins.groupby(["model", "estimator"], as_index=False).agg(
        accuracy=("accuracy", "mean"), ace=("confidence", "mean")
    )
    built = [
        charts.calibration_curve(bins),
        charts.ace_accuracy_scatter(summary),
        charts.accuracy_rejection(
            bins.rename(columns={"confidence": "threshold"}).assign(rejected=0.2)
        ),
        charts.metric_band(pd.DataFrame({"model": "a", "k": [5, 5, 10], "value": [0.1, 0.3, 0.2]})),
        charts.grouped_bars(summary.assign(delta=0.1)),
    ]
    for chart in built:
        spec = chart.to_dict(validate=True)
        svg = rendering.static_svg(spec)
        assert svg.lstrip().startswith("<svg") and "<path" in svg


def test_the_chart_html_holds_the_spec_safely_and_a_static_fallback():
    spec = {
        "$schema": alt.SCHEMA_URL,
        "data": {"values": [{"a": "</script><b>&"}]},
        "mark": "point",
        "encoding": {"x": {"field": "a", "type": "nominal"}},
    }
    html = rendering.chart_html(spec, svg="<svg>fallback</svg>")
    assert html.startswith('<div class="calib-chart" id="calib-chart-')
    data = re.search(
        r'<script type="application/json" class="calib-chart-spec">(.*?)</script>', html, re.S
    ).group(1)
    assert "<" not in data and ">" not in data and "&" not in data
    assert json.loads(data) == spec
    assert '<div class="calib-chart-view"><svg>fallback</svg></div>' in html
    assert rendering.chart_html(spec) != rendering.chart_html(spec)  # unique container ids


def test_importing_changes_no_renderer_and_enable_registers_the_offline_one(bins):
    import subprocess
    import sys

    code = (
        "import altair as alt; before = alt.renderers.active; "
        "from calib.report import chart_rendering, charts; "
        "assert alt.renderers.active == before, alt.renderers.active; "
        "chart_rendering.enable(); print(alt.renderers.active)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == rendering.RENDERER


def test_the_offline_renderer_names_no_other_host(bins):
    rendering.enable()
    assert alt.renderers.active == rendering.RENDERER
    bundle = charts.calibration_curve(bins)._repr_mimebundle_()
    bundle = bundle[0] if isinstance(bundle, tuple) else bundle
    assert set(bundle) == {"text/html", "image/svg+xml", "text/plain"}
    html = bundle["text/html"]
    assert "<script src" not in html and "cdn" not in html.lower()
    assert "https://vega.github.io/schema" in html  # only the spec's $schema id, never loaded


def test_the_vega_bundle_is_a_classic_script_setting_vega_embed():
    header = rendering.vega_bundle_header()
    code = rendering.vega_bundle()
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


def _interval_table():
    rows = [
        {
            "model": m,
            "estimator": e,
            "n": 180,
            "ace": 0.1 + 0.01 * i,
            "ace_low": 0.05,
            "ace_high": 0.2,
            "brier": 0.2,
            "brier_low": 0.15,
            "brier_high": 0.25,
        }
        for i, (m, e) in enumerate((m, e) for m in ("a", "b") for e in ("Base", "Margin"))
    ]
    return pd.DataFrame(rows)


def test_interval_chart_shows_each_estimate_with_its_interval():
    long = charts.intervals_long(
        _interval_table(),
        {"ace": ("ace_low", "ace_high"), "brier": ("brier_low", "brier_high")},
        keep=["model", "estimator"],
        names={"ace": "ACE"},
    )
    assert list(long.columns) == ["model", "estimator", "metric", "n", "value", "low", "high"]
    assert long["metric"].tolist() == ["ACE"] * 4 + ["brier"] * 4
    spec = charts.interval_chart(long).to_dict(validate=True)
    assert spec["facet"]["field"] == "metric" and spec["resolve"]["scale"]["x"] == "independent"
    rule, point = _layers(spec)
    assert (rule["encoding"]["x"]["field"], rule["encoding"]["x2"]["field"]) == ("low", "high")
    assert point["encoding"]["y"]["sort"] == ["Base", "Margin"]
    assert [t["field"] for t in point["encoding"]["tooltip"]] == [
        "model",
        "estimator",
        "metric",
        "value",
        "low",
        "high",
        "n",
    ]
    assert rendering.static_svg(spec).lstrip().startswith("<svg")


def test_every_mark_has_a_tooltip_with_the_interval_and_n_and_a_legend_selects_a_series(bins):
    table = _interval_table().assign(accuracy=0.3, accuracy_low=0.2, accuracy_high=0.4)
    specs = {
        "curve": charts.calibration_curve(bins).to_dict(),
        "scatter": charts.ace_accuracy_scatter(table).to_dict(),
        "bars": charts.grouped_bars(
            table.assign(delta=0.1, lo=0.0, hi=0.2), lower="lo", upper="hi"
        ).to_dict(),
        "band": charts.metric_band(
            pd.DataFrame({"model": "a", "k": [5, 5, 10], "value": [0.1, 0.3, 0.2]})
        ).to_dict(),
    }
    for name, spec in specs.items():
        marks = [
            layer
            for layer in _layers(spec)
            if layer["mark"]["type"] in ("line", "point", "bar", "area")
        ]
        assert marks, name
        for layer in marks:
            assert layer["encoding"].get("tooltip"), (name, layer["mark"])
        params = _params(spec)
        assert any(p.get("bind") == "legend" for p in params), name
    specs["intervals"] = charts.interval_chart(
        charts.intervals_long(table, {"ace": ("ace_low", "ace_high")}, keep=["model", "estimator"])
    ).to_dict()
    import vl_convert as vlc

    for name, spec in specs.items():  # the legend Vega draws is the one bound to the selection
        vega = vlc.vegalite_to_vega(spec, vl_version=rendering._vl_version())
        legends = vega.get("legends") or [
            leg for mark in vega.get("marks", []) for leg in mark.get("legends", [])
        ]
        assert legends and all(leg["encode"]["symbols"].get("interactive") for leg in legends), name
    fields = [t["field"] for t in _layers(specs["scatter"])[0]["encoding"]["tooltip"]]
    assert fields == [
        "model",
        "estimator",
        "accuracy",
        "ace",
        "accuracy_low",
        "accuracy_high",
        "ace_low",
        "ace_high",
        "n",
    ]
    zoom = [p for p in _params(specs["curve"]) if p.get("bind") == "scales"]
    assert zoom and zoom[0]["select"]["type"] == "interval"


def _diagram_frames():
    import numpy as np

    from calib.confidence import reliability_diagram

    rng = np.random.default_rng(0)
    rows = []
    for m in ("m1", "m2", "m3"):
        for e in ("Base", "Margin"):
            c = rng.random(120)
            rows.append(
                pd.DataFrame(
                    {"model": m, "estimator": e, "confidence": c, "correct": rng.random(120) < c}
                )
            )
    return reliability_diagram(pd.concat(rows, ignore_index=True), n_bins=10)


def _views(spec: dict) -> list[dict]:
    """The unit/layer views of a (nested) concat spec, in order."""
    for key in ("concat", "vconcat", "hconcat"):
        if key in spec:
            return [v for sub in spec[key] for v in _views(sub)]
    return [spec]


def test_reliability_diagram_has_a_panel_per_model_and_estimator_with_its_bin_counts():
    d = _diagram_frames()
    spec = charts.reliability_diagram(d.curve, d.histogram).to_dict(validate=True)
    # 3 models x 2 estimators: one panel each, a model's two on one row
    assert len(spec["concat"]) == 6 and spec["columns"] == 2
    views = _views(spec)
    assert len(views) == 12  # per panel: curve over histogram
    curve, hist = views[0], views[1]
    assert curve["title"]["text"] == "m1 · Base"
    counts = d.curve[(d.curve.model == "m1") & (d.curve.estimator == "Base")]["count"]
    assert set(counts) == {12}  # equal-count bins
    assert curve["title"]["subtitle"] == "10 bins of 12 instances (n = 120)"
    marks = [
        layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
        for layer in curve["layer"]
    ]
    assert marks == ["rule", "line", "rule"]  # interval bars, curve, diagonal
    bars, line = curve["layer"][0], curve["layer"][1]
    assert (bars["encoding"]["y"]["field"], bars["encoding"]["y2"]["field"]) == (
        "accuracy_low",
        "accuracy_high",
    )
    assert line["encoding"]["x"]["field"] == "mean_confidence"
    assert [t["field"] for t in line["encoding"]["tooltip"]] == [
        "model",
        "estimator",
        "mean_confidence",
        "accuracy",
        "accuracy_low",
        "accuracy_high",
        "count",
    ]
    # one series per panel: the curve's and the histogram's rows are the panel's only
    rows = spec["datasets"][line["data"]["name"]]
    assert {(r["model"], r["estimator"]) for r in rows} == {("m1", "Base")}
    assert hist["mark"]["type"] == "bar"
    assert (
        hist["encoding"]["x"]["field"],
        hist["encoding"]["x2"]["field"],
        hist["encoding"]["y"]["field"],
    ) == ("lower", "upper", "count")
    assert "count" in [t["field"] for t in hist["encoding"]["tooltip"]]
    rows = spec["datasets"][hist["data"]["name"]]
    assert {(r["model"], r["estimator"]) for r in rows} == {("m1", "Base")}
    assert sum(r["count"] for r in rows) == 120
    assert views[2]["title"]["text"] == "m1 · Margin"
    assert rendering.static_svg(spec).lstrip().startswith("<svg")


def test_reliability_panels_per_row():
    assert [charts._panel_columns(n) for n in range(1, 8)] == [1, 2, 3, 2, 3, 3, 3]
    assert charts._bin_counts(pd.Series([3, 3, 0])) == "2 bins of 3 instances (n = 6)"
    assert charts._bin_counts(pd.Series([2, 3])) == "2 bins of 2-3 instances (n = 5)"
    assert charts._bin_counts(pd.Series([1])) == "1 bin of 1 instance (n = 1)"


def test_reliability_diagram_variants():
    d = _diagram_frames()
    one = charts.reliability_diagram(
        d.curve[d.curve.model == "m1"],
        d.histogram[d.histogram.model == "m1"],
        facet=None,
        title="t",
    ).to_dict(validate=True)
    assert one["title"] == "t" and len(one["concat"]) == 2  # m1's two estimators
    plain = charts.reliability_diagram(d.curve, d.histogram, lower=None, upper=None).to_dict()
    assert [layer["mark"]["type"] for layer in _views(plain)[0]["layer"]] == ["line", "rule"]
    with pytest.raises(ValueError, match="both lower and upper"):
        charts.reliability_diagram(d.curve, d.histogram, lower=None)
    with pytest.raises(ValueError, match=r"reliability_diagram \(histogram\): the frame lacks"):
        charts.reliability_diagram(d.curve, d.histogram.drop(columns="upper"))


# ---------------------------------------------------------------------------------------------
# width: every chart within the book's text column (the browser test measures the built book)

MODELS = ("smollm2-135m-instruct", "gemma-3-270m", "tiny-roberta", "tiny-bert")
ESTIMATORS = ("Base", "Margin", "Average/min", "Average/vote-2 (Platt)", "Base (temperature)")
LONG_TITLE = (
    "ACE against accuracy (averaged over the five paraphrases): this build and the paper's "
    "Tables 1 and 3, with every estimate's 95% interval and the noise floor of each ACE"
)


def _width(chart) -> float:
    """The width of the chart as Vega draws it (the SVG that vl-convert renders: the same
    Vega as the book's), legend and title included."""
    svg = rendering.static_svg(chart.to_dict(validate=True))
    return float(re.search(r'<svg[^>]*\bwidth="([\d.]+)"', svg).group(1))


def _wide_charts() -> dict[str, object]:
    """Every builder at the book's widest: four models with long names, five estimators,
    three facets in a row, a long title, a second legend."""
    import numpy as np

    rng = np.random.default_rng(0)
    table = pd.DataFrame(
        [
            {
                "source": src,
                "model": m,
                "estimator": e,
                "objective": "causal" if i % 2 else "masked",
                "accuracy": rng.random(),
                "ace": rng.random() / 3,
                "ace_low": 0.0,
                "ace_high": 0.5,
                "brier": rng.random() / 2,
                "brier_low": 0.0,
                "brier_high": 0.6,
                "accuracy_low": 0.0,
                "accuracy_high": 1.0,
                "n": 60,
            }
            for src in ("this build", "Kissling et al. (2026), Table 1 (reported in the paper)")
            for i, m in enumerate(MODELS)
            for e in ESTIMATORS
        ]
    )
    long = charts.intervals_long(
        table[table.source == "this build"],
        {
            "ace": ("ace_low", "ace_high"),
            "brier": ("brier_low", "brier_high"),
            "accuracy": ("accuracy_low", "accuracy_high"),
        },
        keep=["model", "estimator"],
    )
    curve = pd.DataFrame(
        [
            {
                "model": m,
                "estimator": e,
                "threshold": t / 10,
                "accuracy": t / 10,
                "rejected": t / 10,
                "confidence": t / 10,
                "count": 3,
            }
            for m in MODELS
            for e in ESTIMATORS
            for t in range(10)
        ]
    )
    d = _diagram_frames()
    return {
        "calibration_curve": charts.calibration_curve(curve, title=LONG_TITLE),
        "ace_accuracy_scatter": charts.ace_accuracy_scatter(
            table,
            color="source",
            shape="objective",
            facet="estimator",
            columns=3,
            title=LONG_TITLE,
        ),
        "accuracy_rejection": charts.accuracy_rejection(curve, title=LONG_TITLE),
        "metric_band": charts.metric_band(
            curve.rename(columns={"threshold": "k", "accuracy": "value"}),
            color="estimator",
            facet="model",
            title=LONG_TITLE,
        ),
        "grouped_bars": charts.grouped_bars(table.assign(delta=0.1), title=LONG_TITLE),
        "interval_chart": charts.interval_chart(long, category="estimator", title=LONG_TITLE),
        "interval_chart (long labels)": charts.interval_chart(
            long.assign(
                estimator="Average/vote-2 (Platt) - Base (temperature) " + long["estimator"]
            ),
            category="estimator",
            title=LONG_TITLE,
        ),
        "binned_histogram": charts.binned_histogram(
            d.histogram.assign(label=d.histogram["estimator"]), title=LONG_TITLE
        ),
        "reliability_diagram": charts.reliability_diagram(d.curve, d.histogram, title=LONG_TITLE),
    }


def test_no_chart_is_wider_than_the_text_column():
    widths = {name: _width(chart) for name, chart in _wide_charts().items()}
    wide = {name: w for name, w in widths.items() if w > charts.TEXT_COLUMN}
    assert not wide, f"wider than the text column ({charts.TEXT_COLUMN} px): {wide}"


def test_a_long_title_is_wrapped_and_a_short_one_kept():
    assert charts._title("short") == "short"
    wrapped = charts._title(LONG_TITLE).to_dict()
    assert all(len(line) <= charts.TITLE_CHARS for line in wrapped["text"])
    assert " ".join(wrapped["text"]) == LONG_TITLE
