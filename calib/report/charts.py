"""Altair chart builders for the book's figures.

Every builder takes a *tidy* frame (one row per plotted point, named columns) and returns an
Altair chart; none computes a metric (that is :mod:`calib.confidence`'s job). Column names
default to the ones the chapters use and can be renamed through keyword arguments; a missing
column is a ``ValueError`` that names it.

=============================  =============================================================
builder                        the paper's figure it serves
=============================  =============================================================
:func:`calibration_curve`      accuracy per confidence bin against the diagonal (Figs. 2, 6)
:func:`ace_accuracy_scatter`   ACE against accuracy, one point per model/estimator (Figs. 4, 9)
:func:`accuracy_rejection`     accuracy of the kept instances against the threshold (Fig. 10)
:func:`metric_band`            a metric against ``k`` with the spread of repeats (Fig. 3)
:func:`grouped_bars`           per-group deltas, e.g. change in ACE per injection (Figs. 5, 11)
:func:`interval_chart`         estimates with their intervals per model and estimator, beside
                               the long tables of intervals; ``band_low``/``band_high`` draw
                               each ACE's noise floor as a band
:func:`reliability_diagram`    one panel per model and estimator: the calibration curve with
                               per-bin intervals over a histogram of confidences, the bin
                               counts in the panel's subtitle (Figs. 2, 6)
=============================  =============================================================

**Width.** No chart is wider than the book's text column (:data:`TEXT_COLUMN`, measured in the
browser test over the built book): every builder finishes its chart with :func:`fit_column`,
which wraps a long title into lines; every legend goes under its chart, and a row of small
multiples stays within :data:`PANELS_WIDTH`. Charts side by side are one builder's facets, not
charts put together with ``alt.hconcat`` (each of which would take the whole width).

**Interaction.** Every point, line vertex and bar has a tooltip with its row's identifying
columns, its values, their interval bounds (``<column>_low``/``_high`` or ``low``/``high``, where
the frame has them) and the number of instances ``n`` (or a bin's ``count``). Clicking a legend
entry highlights that series (a model, or an estimator where colour shows estimators) and fades
the others; a second click, or a click on empty space, restores them. Calibration curves zoom
and pan with the mouse wheel and drag (double-click resets). All of it runs in the offline
Vega bundle; tooltips come from the vega-tooltip handler that Vega-Embed includes.

**Rendering.** The builders return Altair charts; how a displayed chart becomes HTML (the
offline Vega bundle, the ``calib-offline`` renderer) is :mod:`calib.report.chart_rendering`,
enabled by :func:`calib.report.chart_rendering.enable` in each chapter's setup cell.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Literal

import altair as alt
import numpy as np
import pandas as pd

WIDTH = 320
HEIGHT = 260
#: the width of the book's text column (px) in the sphinx-book-theme at a 1280 px window: no
#: chart is wider, legend and title included (the book's browser test measures it)
TEXT_COLUMN = 676
#: the most width a row of small multiples takes (the rest of the text column: axis labels)
PANELS_WIDTH = 480
#: a title longer than this many characters is wrapped into lines (Vega does not wrap text)
TITLE_CHARS = 80
#: the space Vega leaves between two panels of a facet (px)
FACET_SPACING = 20
#: the longest axis label (px) of a chart whose labels sit beside its panels
LABEL_LIMIT = 140
#: a legend under the chart lists its entries in this many columns
LEGEND_COLUMNS = 3


# ---------------------------------------------------------------------------------------------
# input checks


def _require(frame: pd.DataFrame, columns: Sequence[str | None], builder: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{builder}: expected a pandas DataFrame, got {type(frame).__name__}")
    wanted = [c for c in columns if c is not None]
    missing = [c for c in wanted if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{builder}: the frame lacks column(s) {missing}; it has "
            f"{list(frame.columns)} (rename them or pass the column names)"
        )
    if frame.empty:
        raise ValueError(f"{builder}: the frame is empty; nothing to plot")


def _type(frame: pd.DataFrame, column: str) -> Literal["quantitative", "nominal"]:
    numeric = pd.api.types.is_numeric_dtype(frame[column])
    return (
        "quantitative" if numeric and not pd.api.types.is_bool_dtype(frame[column]) else "nominal"
    )


def _legend() -> alt.Legend:
    """Every legend goes under its chart, in :data:`LEGEND_COLUMNS` columns: beside it, it
    made a chart wider than the text column (:data:`TEXT_COLUMN`) or was clipped there."""
    return alt.Legend(orient="bottom", direction="horizontal", columns=LEGEND_COLUMNS)


def _color(column: str | None):
    if not column:
        return alt.Undefined
    return alt.Color(field=column, type="nominal", title=column, legend=_legend())


#: columns a tooltip adds when the frame has them: who a row is about, and how many instances
_IDENTITY = ("model", "estimator")
_SIZE = ("n", "count")


def _bounds(frame: pd.DataFrame, column: str) -> list[str]:
    """The interval bound columns of ``column`` that ``frame`` has."""
    for lo, hi in ((f"{column}_low", f"{column}_high"), (f"{column}_lo", f"{column}_hi")):
        if lo in frame.columns and hi in frame.columns:
            return [lo, hi]
    return []


def _tooltip(frame: pd.DataFrame, columns: Sequence[str | None]) -> list:
    """Tooltip fields: ``model`` and ``estimator`` (where present), ``columns``, the interval
    bounds of each of them (:func:`_bounds`), then ``n`` or ``count``."""
    wanted = [c for c in _IDENTITY if c in frame.columns] + [c for c in columns if c]
    for c in list(wanted):
        wanted += _bounds(frame, c)
    wanted += [c for c in _SIZE if c in frame.columns]
    return [
        alt.Tooltip(
            field=c,
            type=_type(frame, c),
            format=".3f" if pd.api.types.is_float_dtype(frame[c]) else alt.Undefined,
        )
        for c in dict.fromkeys(wanted)
    ]


def _legend_selection(column: str | None):
    """A selection of the series ``column`` bound to the legend (``None`` without colour)."""
    if not column:
        return None
    return alt.selection_point(fields=[column], bind="legend")


def _highlight(selection, faded: float = 0.12):
    """Opacity 1 for the selected series (all when nothing is selected), ``faded`` otherwise."""
    if selection is None:
        return alt.Undefined
    return alt.when(selection).then(alt.value(1.0)).otherwise(alt.value(faded))


def _with_params(chart: alt.Chart, *params) -> alt.Chart:
    given = [p for p in params if p is not None]
    return chart.add_params(*given) if given else chart


def _title(title: str | None):
    """A chart title that fits :data:`TEXT_COLUMN`: as given when short, else wrapped into
    lines of at most :data:`TITLE_CHARS` characters (Vega draws a list of lines)."""
    if not title or len(title) <= TITLE_CHARS:
        return title
    return alt.TitleParams(text=textwrap.wrap(title, TITLE_CHARS), anchor="start")


def fit_column(chart, title: str | None = None):
    """``chart`` with ``title`` (if given) wrapped by ``_title``: what every builder returns,
    so that a chart stays within :data:`TEXT_COLUMN` with its legends under it (``_legend``)
    and a row of panels within :data:`PANELS_WIDTH` (``_finish``). No ``configure_*``: a
    chart may still be composed with others."""
    return chart.properties(title=_title(title)) if title else chart


def _finish(
    layers: list,
    frame: pd.DataFrame,
    facet: str | None,
    columns: int,
    title: str | None,
    width: float,
    height: float,
):
    """Layer data-less charts over ``frame``, as small multiples when ``facet`` is given; a row
    of panels is kept within :data:`PANELS_WIDTH` (square panels stay square), so that a chart
    fits the page's text column and its legend stays in view."""
    if facet is None:
        chart = alt.layer(*layers, data=frame).properties(width=width, height=height)
    else:
        per_row = max(1, min(columns, frame[facet].nunique()))
        room = PANELS_WIDTH - FACET_SPACING * (per_row - 1)  # Vega's space between panels
        if width * per_row > room:
            shrink = room / (width * per_row)
            width, height = width * shrink, (height * shrink if height == width else height)
        chart = (
            alt.layer(*layers)
            .properties(width=width, height=height)
            .facet(
                facet=alt.Facet(field=facet, type="nominal", title=None),
                columns=columns,
                data=frame,
            )
        )
    return fit_column(chart, title)


def _diagonal() -> alt.Chart:
    """The dashed line of perfect calibration."""
    ends = pd.DataFrame({"x": [0.0], "y": [0.0], "x2": [1.0], "y2": [1.0]})
    return (
        alt.Chart(ends)
        .mark_rule(strokeDash=[4, 4], color="gray")
        .encode(x="x:Q", y="y:Q", x2="x2:Q", y2="y2:Q")
    )


def _q(field: str, title: str | None = None, **kw):
    return dict(field=field, type="quantitative", title=title if title is not None else field, **kw)


# ---------------------------------------------------------------------------------------------
# builders


def calibration_curve(
    frame: pd.DataFrame,
    *,
    confidence: str = "confidence",
    accuracy: str = "accuracy",
    count: str | None = "count",
    color: str | None = "estimator",
    facet: str | None = "model",
    columns: int = 2,
    title: str | None = None,
) -> alt.TopLevelMixin:
    """Calibration curve (paper Fig. 2): accuracy per bin against the bin's mean confidence.

    ``frame`` has one row per bin (e.g. the metrics' calibration-curve data): the mean
    ``confidence``, the ``accuracy`` and optionally the ``count`` of each bin, per ``color``
    group and ``facet`` panel. The dashed diagonal marks perfect calibration.
    """
    _require(frame, [confidence, accuracy, count, color, facet], "calibration_curve")
    unit = alt.Scale(domain=[0, 1])
    legend = _legend_selection(color)
    line = _with_params(
        alt.Chart()
        .mark_line(point=True)
        .encode(
            x=alt.X(**_q(confidence, "confidence", scale=unit)),
            y=alt.Y(**_q(accuracy, "accuracy", scale=unit)),
            color=_color(color),
            opacity=_highlight(legend),
            tooltip=_tooltip(frame, [facet, color, confidence, accuracy, count]),
        ),
        legend,
        alt.selection_interval(bind="scales"),
    )
    side = WIDTH * 0.75
    return _finish([_diagonal(), line], frame, facet, columns, title, side, side)


def ace_accuracy_scatter(
    frame: pd.DataFrame,
    *,
    accuracy: str = "accuracy",
    ace: str = "ace",
    color: str | None = "estimator",
    shape: str | None = None,
    label: str | None = "model",
    facet: str | None = None,
    columns: int = 2,
    title: str | None = None,
) -> alt.TopLevelMixin:
    """ACE against accuracy (paper Figs. 4 and 9): one point per row (e.g. model x estimator)."""
    _require(frame, [accuracy, ace, color, shape, label, facet], "ace_accuracy_scatter")
    legend = _legend_selection(color)
    points = _with_params(
        alt.Chart()
        .mark_point(filled=True, size=70)
        .encode(
            x=alt.X(**_q(accuracy, "accuracy", scale=alt.Scale(zero=False))),
            y=alt.Y(**_q(ace, "ACE", scale=alt.Scale(zero=True))),
            color=_color(color),
            opacity=_highlight(legend),
            shape=(
                alt.Shape(field=shape, type="nominal", legend=_legend()) if shape else alt.Undefined
            ),
            tooltip=_tooltip(frame, [label, color, shape, facet, accuracy, ace]),
        ),
        legend,
    )
    return _finish([points], frame, facet, columns, title, WIDTH * 1.3, HEIGHT)


def accuracy_rejection(
    frame: pd.DataFrame,
    *,
    threshold: str = "threshold",
    accuracy: str = "accuracy",
    rejected: str | None = "rejected",
    color: str | None = "estimator",
    facet: str | None = "model",
    columns: int = 2,
    title: str | None = None,
) -> alt.TopLevelMixin:
    """Accuracy-rejection curves (paper Fig. 10): accuracy of the instances whose confidence
    reaches each ``threshold``; the share ``rejected`` shows in the tooltip."""
    _require(frame, [threshold, accuracy, rejected, color, facet], "accuracy_rejection")
    legend = _legend_selection(color)
    line = _with_params(
        alt.Chart()
        .mark_line(point=True)
        .encode(
            x=alt.X(**_q(threshold, "confidence threshold")),
            y=alt.Y(**_q(accuracy, "accuracy of kept instances", scale=alt.Scale(domain=[0, 1]))),
            color=_color(color),
            opacity=_highlight(legend),
            tooltip=_tooltip(
                frame,
                [facet, color, threshold, accuracy, rejected, "kept"]
                if "kept" in frame.columns
                else [facet, color, threshold, accuracy, rejected],
            ),
        ),
        legend,
    )
    return _finish([line], frame, facet, columns, title, WIDTH * 0.8, HEIGHT * 0.8)


def band_summary(
    frame: pd.DataFrame, *, x: str, y: str, by: Sequence[str | None] = ()
) -> pd.DataFrame:
    """Mean, minimum and maximum of ``y`` over the rows sharing ``x`` and ``by`` (the spread of
    seeded repeats, §5.2); columns ``[*by, x, "mean", "lower", "upper", "n"]``."""
    keys = [*[b for b in by if b], x]
    _require(frame, [*keys, y], "band_summary")
    grouped = frame.groupby(keys, sort=True, dropna=False)[y]
    return grouped.agg(mean="mean", lower="min", upper="max", n="count").reset_index()


#: the colour of a noise-floor band (issue 18)
FLOOR_COLOR = "#9e9e9e"


def metric_band(
    frame: pd.DataFrame,
    *,
    x: str = "k",
    y: str = "value",
    lower: str | None = None,
    upper: str | None = None,
    color: str | None = "model",
    facet: str | None = None,
    columns: int = 2,
    x_title: str | None = None,
    y_title: str | None = None,
    title: str | None = None,
    floor_low: str | None = None,
    floor_high: str | None = None,
) -> alt.TopLevelMixin:
    """A metric against ``x`` as a line with a band (paper Fig. 3: confidence, accuracy and
    ACE against the number of answer options ``k``).

    With ``lower`` and ``upper`` given, the frame is already summarised (one row per point).
    Without them, rows are repeats: the line is their mean and the band spans their minimum
    to maximum (:func:`band_summary`). ``floor_low`` / ``floor_high`` (summarised frames
    only) draw the noise floor of ACE as a grey band where they are not missing (the ACE
    panels): the range a perfectly calibrated estimator with the same confidences shows.
    """
    if (lower is None) != (upper is None):
        raise ValueError("metric_band: give both lower and upper, or neither")
    if (floor_low is None) != (floor_high is None):
        raise ValueError("metric_band: give both floor_low and floor_high, or neither")
    if floor_low is not None and lower is None:
        raise ValueError("metric_band: a floor band needs a summarised frame (lower, upper)")
    y_label = y_title or y
    if lower is None or upper is None:  # both (checked above)
        data = band_summary(frame, x=x, y=y, by=[color, facet])
        y, lower, upper = "mean", "lower", "upper"
    else:
        _require(frame, [x, y, lower, upper, color, facet, floor_low, floor_high], "metric_band")
        data = frame
    x_enc = alt.X(**_q(x, x_title or x))
    legend = _legend_selection(color)
    # the legend's selection lives in the first layer that has the colour (else the legend
    # Vega-Lite draws for the layers is not the one bound to it)
    band = _with_params(
        alt.Chart()
        .mark_area()
        .encode(
            x=x_enc,
            y=alt.Y(**_q(lower, y_label)),
            y2=alt.Y2(field=upper),
            color=_color(color),
            opacity=(
                alt.when(legend).then(alt.value(0.25)).otherwise(alt.value(0.04))
                if legend is not None
                else alt.value(0.25)
            ),
            tooltip=_tooltip(data, [facet, color, x, y, lower, upper]),
        ),
        legend,
    )
    line = (
        alt.Chart()
        .mark_line(point=True)
        .encode(
            x=x_enc,
            y=alt.Y(**_q(y, y_label)),
            color=_color(color),
            opacity=_highlight(legend),
            tooltip=_tooltip(data, [facet, color, x, y, lower, upper]),
        )
    )
    layers = [band, line]
    if floor_low is not None and floor_high is not None:  # both or neither (checked above)
        layers.insert(
            1,
            alt.Chart()
            .mark_area(color=FLOOR_COLOR, opacity=0.3)
            .encode(
                x=x_enc,
                y=alt.Y(**_q(floor_low, y_label)),
                y2=alt.Y2(field=floor_high),
                detail=alt.Detail(field=color, type="nominal") if color else alt.Undefined,
                tooltip=_tooltip(data, [facet, color, x, y, lower, upper, floor_low, floor_high]),
            )
            .transform_filter(f"isValid(datum['{floor_low}'])"),
        )
    chart = _finish(layers, data, facet, columns, title, WIDTH, HEIGHT * 0.8)
    return chart.resolve_scale(y="independent") if facet and floor_low is not None else chart


def grouped_bars(
    frame: pd.DataFrame,
    *,
    category: str = "model",
    group: str = "estimator",
    value: str = "delta",
    lower: str | None = None,
    upper: str | None = None,
    value_title: str | None = None,
    title: str | None = None,
    order: Sequence[str] | None = None,
    facet: str | None = None,
    columns: int = 2,
) -> alt.TopLevelMixin:
    """Grouped bars of ``value`` per ``category`` and ``group`` (paper Figs. 5 and 11: the change
    in ACE or accuracy per model and injected template), with a zero line and optional
    ``lower``/``upper`` error bars. ``order``: the groups' order within a category and in the
    legend (default alphabetical). ``facet``: one panel per value of that column (e.g. CLMs and
    MLMs side by side), wrapping after ``columns``."""
    if (lower is None) != (upper is None):
        raise ValueError("grouped_bars: give both lower and upper, or neither")
    _require(frame, [category, group, value, lower, upper, facet], "grouped_bars")
    x = alt.X(field=category, type="nominal", title=None, axis=alt.Axis(labelAngle=0))
    sort = list(order) if order is not None else alt.Undefined
    offset = alt.XOffset(field=group, type="nominal", sort=sort)
    color = alt.Color(field=group, type="nominal", title=group, sort=sort, legend=_legend())
    legend = _legend_selection(group)
    tooltip = _tooltip(frame, [category, group, value, lower, upper])
    layers = [
        _with_params(
            alt.Chart()
            .mark_bar()
            .encode(
                x=x,
                xOffset=offset,
                y=alt.Y(**_q(value, value_title or value)),
                color=color,
                opacity=_highlight(legend),
                tooltip=tooltip,
            ),
            legend,
        )
    ]
    if lower is not None and upper is not None:  # both or neither (checked above)
        layers.append(
            alt.Chart()
            .mark_rule()
            .encode(
                x=x,
                xOffset=offset,
                y=alt.Y(field=lower, type="quantitative"),
                y2=alt.Y2(field=upper),
                opacity=_highlight(legend),
                tooltip=tooltip,
            )
        )
    zero = alt.Chart().mark_rule(color="black").encode(y=alt.datum(0))
    return _finish([*layers, zero], frame, facet, columns, title, WIDTH * 1.3, HEIGHT)


def intervals_long(
    frame: pd.DataFrame,
    intervals: dict[str, tuple[str, str]],
    keep: Sequence[str] = (),
    names: dict[str, str] | None = None,
    bands: dict[str, tuple[str, str]] | None = None,
) -> pd.DataFrame:
    """A wide table of estimates with bounds (``{"ace": ("ace_low", "ace_high"), ...}``) as one
    row per estimate: the ``keep`` columns, ``metric`` (renamed by ``names``), ``value``,
    ``low``, ``high``, and ``n`` where the frame has it. ``bands`` (e.g. ``{"ace":
    ("ace_floor_low", "ace_floor_high")}``, the noise floor of ACE) adds ``band_low`` and
    ``band_high`` for those metrics (NaN for the others), for :func:`interval_chart`'s band.
    Only reshapes, computes nothing."""
    cols = [
        *keep,
        *[c for pair in intervals.items() for c in (pair[0], *pair[1])],
        *[c for pair in (bands or {}).values() for c in pair],
    ]
    _require(frame, cols, "intervals_long")
    extra = [c for c in _SIZE if c in frame.columns and c not in keep][:1]
    parts = []
    for metric, (lo, hi) in intervals.items():
        part = frame[[*keep, *extra, metric, lo, hi]].rename(
            columns={metric: "value", lo: "low", hi: "high"}
        )
        part.insert(len(keep), "metric", (names or {}).get(metric, metric))
        if bands:
            band = bands.get(metric)
            part["band_low"] = frame[band[0]].to_numpy(float) if band else np.nan
            part["band_high"] = frame[band[1]].to_numpy(float) if band else np.nan
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def interval_chart(
    frame: pd.DataFrame,
    *,
    value: str = "value",
    lower: str = "low",
    upper: str = "high",
    category: str = "estimator",
    color: str | None = "model",
    facet: str | None = "metric",
    columns: int = 3,
    zero: bool = False,
    value_title: str | None = None,
    title: str | None = None,
    band_low: str | None = None,
    band_high: str | None = None,
) -> alt.TopLevelMixin:
    """Estimates with their intervals (a point and a rule from ``lower`` to ``upper``), one row
    per ``category`` (in the frame's order), the ``color`` groups side by side within a row:
    the chart beside a long table of intervals. ``facet`` (default ``metric``, see
    :func:`intervals_long`) gives each metric its own panel and value scale; ``zero`` draws the
    line at 0 (for differences). ``band_low`` / ``band_high`` (e.g. ``intervals_long(...,
    bands=...)``'s ``band_low``, ``band_high``: the range of ACE a perfectly calibrated
    estimator shows at this sample size) draw a grey band behind each row's interval, where
    they are not NaN."""
    if (band_low is None) != (band_high is None):
        raise ValueError("interval_chart: give both band_low and band_high, or neither")
    _require(
        frame, [value, lower, upper, category, color, facet, band_low, band_high], "interval_chart"
    )
    order = list(dict.fromkeys(frame[category].astype(str)))
    n_colors = frame[color].nunique() if color else 1
    height = max(90, len(order) * (6 + 11 * n_colors))
    # a long label is cut (its tooltip has it whole): the labels and a row of panels fit the
    # text column
    y = alt.Y(
        field=category,
        type="nominal",
        sort=order,
        title=None,
        axis=alt.Axis(labelLimit=LABEL_LIMIT),
    )
    offset = alt.YOffset(field=color, type="nominal") if color else alt.Undefined
    legend = _legend_selection(color)
    tooltip = _tooltip(frame, [category, color, facet, value, lower, upper])
    axis_title = value_title or ("" if facet else value)
    x = alt.X(**_q(value, axis_title, scale=alt.Scale(zero=zero)))
    rules = _with_params(
        alt.Chart()
        .mark_rule(strokeWidth=2)
        .encode(
            x=alt.X(**_q(lower, axis_title, scale=alt.Scale(zero=zero))),
            x2=alt.X2(field=upper),
            y=y,
            yOffset=offset,
            color=_color(color),
            opacity=_highlight(legend),
            tooltip=tooltip,
        ),
        legend,
    )  # the first layer with the colour holds the legend's selection
    points = (
        alt.Chart()
        .mark_point(filled=True, size=45)
        .encode(
            x=x,
            y=y,
            yOffset=offset,
            color=_color(color),
            opacity=_highlight(legend),
            tooltip=tooltip,
        )
    )
    layers = [rules, points]
    if band_low is not None and band_high is not None:  # behind the intervals, same tooltip
        band_tooltip = _tooltip(
            frame, [category, color, facet, value, lower, upper, band_low, band_high]
        )
        layers.insert(
            0,
            alt.Chart()
            .mark_bar(color=FLOOR_COLOR, opacity=0.45)
            .encode(
                x=alt.X(**_q(band_low, axis_title, scale=alt.Scale(zero=zero))),
                x2=alt.X2(field=band_high),
                y=y,
                yOffset=offset,
                tooltip=band_tooltip,
            ),
        )
    if zero:
        layers.append(
            alt.Chart().mark_rule(color="black", strokeDash=[3, 3]).encode(x=alt.datum(0))
        )
    chart = _finish(layers, frame, facet, columns, title, WIDTH * 0.8, height)
    return chart.resolve_scale(x="independent") if facet else chart


# ---------------------------------------------------------------------------------------------
# builders appended by the calibration / linguistic / reductions chapters


def binned_histogram(
    frame: pd.DataFrame,
    *,
    lower: str = "lower",
    upper: str = "upper",
    value: str = "share",
    color: str | None = None,
    row: str | None = "model",
    column: str | None = "label",
    x_title: str = "confidence",
    y_title: str | None = None,
    title: str | None = None,
) -> alt.TopLevelMixin:
    """Histograms from already binned data (paper Fig. 8: the distribution of Base-Confidence
    under each reduction): one bar per row from ``lower`` to ``upper`` with height ``value``,
    as small multiples by ``row`` and ``column``."""
    _require(frame, [lower, upper, value, color, row, column], "binned_histogram")
    legend = _legend_selection(color)
    bars = _with_params(
        alt.Chart(frame)
        .mark_bar()
        .encode(
            x=alt.X(**_q(lower, x_title, scale=alt.Scale(domain=[0, 1]))),
            x2=alt.X2(field=upper),
            y=alt.Y(**_q(value, y_title or value)),
            y2=alt.Y2Datum(0),
            color=_color(color),
            opacity=_highlight(legend, 0.1) if legend is not None else alt.value(0.85),
            tooltip=_tooltip(frame, [row, column, color, lower, upper, value]),
        ),
        legend,
    ).properties(
        width=min(WIDTH * 0.55, PANELS_WIDTH / max(1, frame[column].nunique() if column else 1)),
        height=HEIGHT * 0.45,
    )
    facets: dict[str, alt.Row | alt.Column] = {}
    if row:
        facets["row"] = alt.Row(field=row, type="nominal", title=None)
    if column:
        facets["column"] = alt.Column(
            field=column, type="nominal", title=None, sort=list(dict.fromkeys(frame[column]))
        )
    chart = bars.facet(**facets) if facets else bars
    return fit_column(chart, title)


def _bin_counts(counts: pd.Series) -> str:
    """A panel's subtitle: how many bins its curve has and how many instances each holds."""
    counts = counts[counts > 0].astype(int)
    lo, hi = (int(counts.min()), int(counts.max())) if len(counts) else (0, 0)
    each = f"{lo}" if lo == hi else f"{lo}-{hi}"
    unit = "instance" if hi == 1 else "instances"
    bins = "bin" if len(counts) == 1 else "bins"
    return f"{len(counts)} {bins} of {each} {unit} (n = {int(counts.sum())})"


#: the most panels side by side in a reliability diagram
RELIABILITY_COLUMNS = 3


def _panel_columns(n_series: int, most: int = RELIABILITY_COLUMNS) -> int:
    """Panels per row: the series of one facet value on one row where they fit (``n_series``
    itself up to ``most``), else the largest divisor of ``n_series`` up to ``most`` (4 series:
    2 rows of 2), else ``most``."""
    if n_series <= most:
        return max(1, n_series)
    fits = [c for c in range(most, 1, -1) if n_series % c == 0]
    return fits[0] if fits else most


def reliability_diagram(
    curve: pd.DataFrame,
    histogram: pd.DataFrame,
    *,
    confidence: str = "mean_confidence",
    accuracy: str = "accuracy",
    lower: str | None = "accuracy_low",
    upper: str | None = "accuracy_high",
    count: str = "count",
    bin_lower: str = "lower",
    bin_upper: str = "upper",
    color: str | None = "estimator",
    facet: str | None = "model",
    columns: int | None = None,
    title: str | None = None,
) -> alt.TopLevelMixin:
    """Reliability diagrams (paper Figs. 2 and 6, as scikit-learn's ``CalibrationDisplay`` and
    netcal draw them), one small panel per ``facet`` value (a model) and ``color`` value (an
    estimator or template): the calibration curve (accuracy per bin against the bin's mean
    ``confidence``) with each bin's interval (a rule from ``lower`` to ``upper``, e.g. the
    Wilson interval of :func:`calib.confidence.reliability.reliability_curve`) and the dashed
    diagonal; the panel's title names the model and series, its subtitle the curve's bins and
    the ``count`` of instances each holds; under it the histogram of confidences (bars from
    ``bin_lower`` to ``bin_upper``, height the ``count`` of instances; e.g.
    :func:`calib.confidence.reliability.confidence_histogram`). One series per panel, so no
    curve hides another; the colour keeps each series recognisable across panels.

    ``curve`` and ``histogram`` are the two frames of
    :func:`calib.confidence.reliability.reliability_diagram`. Panels wrap after ``columns``
    (default ``_panel_columns``: a model's series on one row where they fit), sized so that
    a row stays within :data:`PANELS_WIDTH`.
    """
    if (lower is None) != (upper is None):
        raise ValueError("reliability_diagram: give both lower and upper, or neither")
    _require(
        curve, [confidence, accuracy, lower, upper, count, color, facet], "reliability_diagram"
    )
    _require(
        histogram, [bin_lower, bin_upper, count, color, facet], "reliability_diagram (histogram)"
    )
    facets = list(dict.fromkeys(curve[facet])) if facet else [None]
    series = list(dict.fromkeys(curve[color])) if color else [None]
    per_row = columns or _panel_columns(len(series))
    side = min(WIDTH * 0.75, PANELS_WIDTH / per_row)
    unit = alt.Scale(domain=[0, 1])
    colour = (
        alt.Color(field=color, type="nominal", scale=alt.Scale(domain=series), legend=None)
        if color
        else alt.value("#4c78a8")
    )
    x = alt.X(**_q(confidence, "confidence", scale=unit))
    tooltip = _tooltip(curve, [facet, color, confidence, accuracy, lower, upper, count])
    hist_tooltip = _tooltip(
        histogram,
        [
            facet,
            color,
            bin_lower,
            bin_upper,
            count,
            "share" if "share" in histogram.columns else None,
        ],
    )

    def rows(frame: pd.DataFrame, value, series_value) -> pd.DataFrame:
        keep = pd.Series(True, index=frame.index)
        if facet is not None:
            keep &= frame[facet] == value
        if color is not None:
            keep &= frame[color] == series_value
        return frame[keep]

    panels = []
    for value in facets:
        for series_value in series:
            c, h = rows(curve, value, series_value), rows(histogram, value, series_value)
            if c.empty and h.empty:
                continue
            layers = []
            if lower is not None and upper is not None:  # both or neither (checked above)
                layers.append(
                    alt.Chart(c)
                    .mark_rule(strokeWidth=1.5, opacity=0.6)
                    .encode(
                        x=x,
                        y=alt.Y(**_q(lower, "accuracy", scale=unit)),
                        y2=alt.Y2(field=upper),
                        color=colour,
                        tooltip=tooltip,
                    )
                )
            layers.append(
                alt.Chart(c)
                .mark_line(point=True)
                .encode(
                    x=x,
                    y=alt.Y(**_q(accuracy, "accuracy", scale=unit)),
                    color=colour,
                    tooltip=tooltip,
                )
            )
            name = " · ".join(str(v) for v in (value, series_value) if v is not None)
            top = alt.layer(*layers, _diagonal()).properties(
                width=side,
                height=side,
                title=alt.TitleParams(
                    text=name or " ",
                    subtitle=_bin_counts(c[count]),
                    fontSize=11,
                    subtitleFontSize=10,
                    anchor="start",
                    limit=side + 40,
                ),
            )
            bars = (
                alt.Chart(h)
                .mark_bar(opacity=0.6)
                .encode(
                    x=alt.X(**_q(bin_lower, "confidence", scale=unit)),
                    x2=alt.X2(field=bin_upper),
                    y=alt.Y(**_q(count, "instances")),
                    y2=alt.Y2Datum(0),
                    color=colour,
                    tooltip=hist_tooltip,
                )
                .properties(width=side, height=side * 0.3)
            )
            panels.append(alt.vconcat(top, bars, spacing=4))
    if not panels:
        raise ValueError("reliability_diagram: no panel has rows")
    chart = panels[0] if len(panels) == 1 else alt.concat(*panels, columns=per_row)
    return fit_column(chart, title)
