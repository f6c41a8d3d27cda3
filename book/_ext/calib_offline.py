"""Sphinx extension for calib's book: offline chart scripts and the placeholder-numbers label.

* Writes Vega, Vega-Lite and Vega-Embed (:func:`calib.report.chart_rendering.vega_bundle`, from the
  installed ``vl-convert-python``) to ``_static/vega/vega-bundle.js``; ``book/_static/
  calib-charts.js`` loads it on pages that hold a chart and renders every chart container.
  No page loads a script, style or font from another host.
* If a chapter of the toc was executed with a synthetic profile (``quick``: tiny random models),
  every page of the book gets an announcement saying so (the chapter itself also carries a
  warning cell, see :func:`calib.book.run_chapter`).
* The directive ``calib-run-times`` (on the reproduction page) is the table of each chapter's
  wall time as this build's runs recorded it (:func:`calib.book.build.run_times`): durations
  on a page are measured, never typed.
"""

from __future__ import annotations

import json
from pathlib import Path

BUNDLE = Path("vega") / "vega-bundle.js"


def _synthetic_chapters(srcdir: Path) -> list[tuple[str, str, str]]:
    """(chapter, profile, description) of each toc chapter run with a synthetic profile."""
    from calib.book import BookError, chapters_in_toc, executed_path

    try:
        names = chapters_in_toc(srcdir)
    except BookError:
        return []
    found = []
    for name in names:
        path = executed_path(name, srcdir)
        if not path.is_file():
            continue  # calib.book reports missing chapters before the build starts
        meta = json.loads(path.read_text(encoding="utf-8")).get("metadata", {}).get("calib", {})
        if meta.get("synthetic"):
            found.append((name, meta.get("profile", "?"), meta.get("profile_label", "")))
    return found


def _announce(app, config) -> None:
    synthetic = _synthetic_chapters(Path(app.srcdir))
    if not synthetic:
        return
    profiles = sorted({p for _, p, _ in synthetic})
    chapters = ", ".join(n for n, _, _ in synthetic)
    text = (
        f"Placeholder numbers: {'chapter' if len(synthetic) == 1 else 'chapters'} "
        f"{chapters} ran with the {'/'.join(profiles)} profile ({synthetic[0][2]}); "
        f"they test the pipeline and say nothing about language models."
    )
    options = dict(config.html_theme_options or {})
    options["announcement"] = text
    config.html_theme_options = options


def _write_bundle(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    from calib.report.chart_rendering import vega_bundle, vega_bundle_header

    target = Path(app.outdir) / "_static" / BUNDLE
    if target.is_file():
        with open(target, encoding="utf-8") as fh:
            if fh.readline() == vega_bundle_header():
                return  # already there, same versions
    code = vega_bundle()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".tmp")
    tmp.write_text(code, encoding="utf-8")
    tmp.replace(target)


def _duration(seconds: float) -> str:
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


def _row(cells: list[str]):
    from docutils import nodes

    row = nodes.row()
    for text in cells:
        entry = nodes.entry()
        entry += nodes.paragraph(text=text)
        row += entry
    return row


def _run_times_directive():
    from docutils import nodes
    from docutils.parsers.rst import Directive

    class RunTimes(Directive):
        """The chapters' wall times of this build (``calib-run-times``)."""

        has_content = False

        def run(self):
            from calib.book import executed_path
            from calib.book.build import run_times

            env = self.state.document.settings.env
            rows = run_times(env.srcdir)
            for r in rows:  # the page is read again when a chapter runs again
                env.note_dependency(str(executed_path(r["chapter"], env.srcdir)))
            timed = [r for r in rows if r["seconds"] is not None]
            if not timed:
                return [nodes.paragraph(text="No chapter was run in this build: no run times.")]
            table = nodes.table(classes=["calib-run-times"])
            group = nodes.tgroup(cols=4)
            table += group
            for _ in range(4):
                group += nodes.colspec(colwidth=1)
            head = nodes.thead()
            head += _row(["chapter", "profile", "run at", "wall time"])
            group += head
            body = nodes.tbody()
            for r in timed:
                body += _row([r["chapter"], r["profile"], r["executed"], _duration(r["seconds"])])
            total = sum(r["seconds"] for r in timed)
            body += _row([f"all {len(timed)} chapters", "", "", _duration(total)])
            group += body
            return [table]

    return RunTimes


def setup(app):
    app.add_directive("calib-run-times", _run_times_directive())
    app.connect("config-inited", _announce)
    app.connect("build-finished", _write_bundle)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
