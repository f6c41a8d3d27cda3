"""Offline rendering of the charts of :mod:`calib.report.charts`: no CDN anywhere.

:func:`enable` (called by each chapter's setup cell) registers and enables the Altair renderer
``"calib-offline"``. A displayed chart becomes a MIME bundle whose ``text/html`` holds a
``<div class="calib-chart">`` with the Vega-Lite spec as JSON data and a static SVG (rendered by
``vl-convert``) as fallback. The book's ``calib-charts.js`` replaces the fallback with an
interactive view from the Vega/Vega-Lite/Vega-Embed bundle (:func:`vega_bundle`) that the book
build writes into its own static files (``book/_ext/calib_offline.py``); nothing is loaded from
another host. Notebook front ends show the static SVG.
"""

from __future__ import annotations

import html
import itertools
import json
import re

import altair as alt

#: the CSS class of a chart container in the built book (the browser test looks for it)
CHART_CLASS = "calib-chart"
#: the Altair renderer that :func:`enable` registers
RENDERER = "calib-offline"
_ids = itertools.count(1)


def _json_for_html(spec: dict) -> str:
    """JSON text that is safe inside ``<script type="application/json">``."""
    text = json.dumps(spec, separators=(",", ":"), sort_keys=False, allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def static_svg(spec: dict) -> str:
    """The chart as an SVG string, rendered offline by ``vl-convert`` (no browser)."""
    import vl_convert as vlc

    svg = vlc.vegalite_to_svg(spec, vl_version=_vl_version())
    return svg


def _vl_version() -> str:
    major, minor = alt.SCHEMA_VERSION.lstrip("v").split(".")[:2]
    return f"{major}.{minor}"


def chart_html(spec: dict, *, svg: str | None = None) -> str:
    """The HTML of one chart container: the spec as JSON data plus an optional static SVG.

    The book's ``calib-charts.js`` renders the spec with Vega-Embed into the container's
    ``.calib-chart-view`` (replacing the static SVG) and marks it ``data-rendered``.
    """
    chart_id = f"calib-chart-{next(_ids)}"
    fallback = svg if svg is not None else "<p>(chart: needs JavaScript)</p>"
    return (
        f'<div class="{CHART_CLASS}" id="{html.escape(chart_id)}">'
        f'<script type="application/json" class="calib-chart-spec">'
        f"{_json_for_html(spec)}</script>"
        f'<div class="calib-chart-view">{fallback}</div></div>'
    )


def offline_mimebundle(spec: dict, *, with_svg: bool = True) -> dict:
    """The MIME bundle of a chart for notebooks and the book (no CDN anywhere).

    ``text/html``: :func:`chart_html` (the book renders it interactively; notebook front ends
    show its static SVG); ``image/svg+xml`` (when ``with_svg``) for viewers without HTML
    output. (Altair's Vega-Lite MIME type is left out: nbformat rejects its dict value.)
    """
    svg = static_svg(spec) if with_svg else None
    bundle = {"text/html": chart_html(spec, svg=svg), "text/plain": "<calib chart>"}
    if svg is not None:
        bundle["image/svg+xml"] = svg
    return bundle


def _renderer(spec: dict, **metadata) -> dict:
    return offline_mimebundle(spec, with_svg=metadata.get("with_svg", True))


#: the start of Altair's warning when panels side by side (``alt.hconcat``) carry the same
#: legend selection: they then share one, which is what calib's panels mean (a click on the
#: shared legend highlights the series in every panel), so the warning says nothing here
SHARED_SELECTION_WARNING = "Automatically deduplicated selection parameter"


def enable(with_svg: bool = True) -> None:
    """Register the Altair renderer :data:`RENDERER` and make Altair display charts through
    :func:`offline_mimebundle`; silence Altair's :data:`SHARED_SELECTION_WARNING` (it landed on
    the page of every chapter with panels side by side). Each chapter's setup cell calls it
    (importing this module changes nothing)."""
    import warnings

    warnings.filterwarnings("ignore", message=SHARED_SELECTION_WARNING, category=UserWarning)
    if RENDERER not in alt.renderers.names():
        alt.renderers.register(RENDERER, _renderer)
    alt.renderers.enable(RENDERER, with_svg=with_svg)


def vega_bundle_header() -> str:
    """The first line of :func:`vega_bundle`: the bundled versions (a cheap staleness check)."""
    import vl_convert as vlc

    return (
        f"/* Vega {vlc.get_vega_version()}, Vega-Lite {_vl_version()}, Vega-Embed "
        f"{vlc.get_vega_embed_version()} and their dependencies (BSD-3-Clause, ISC and MIT "
        f"licences), bundled by vl-convert-python {getattr(vlc, '__version__', '?')} "
        f"for calib's offline book. */\n"
    )


def vega_bundle() -> str:
    """Vega, Vega-Lite and Vega-Embed as one classic script (no module, no CDN).

    Built by ``vl_convert.javascript_bundle()`` for the Vega-Lite version of the installed
    Altair, wrapped in a function so its top-level names stay private; it sets
    ``window.vegaEmbed``, ``window.vega`` and ``window.vegaLite``. The book build writes it to
    ``_static/vega/vega-bundle.js`` (``book/_ext/calib_offline.py``).
    """
    import vl_convert as vlc

    # vl_convert's stub makes ``snippet`` required; at run time it is ``snippet=None`` (default)
    code = vlc.javascript_bundle(vl_version=_vl_version())  # type: ignore[call-arg]  # bad stub
    if re.search(r"^\s*(import|export)\s", code, re.MULTILINE):
        raise RuntimeError(
            "vl_convert.javascript_bundle() returned an ES module; "
            "calib cannot wrap it as a classic script"
        )
    return vega_bundle_header() + "(function () {\n" + code + "\n})();\n"
