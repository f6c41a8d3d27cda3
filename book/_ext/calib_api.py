"""Sphinx extension for the book's API part (``book/api/``): napoleon for docstrings only.

calib's functions and classes write their docstrings in numpydoc sections, which
``sphinx.ext.napoleon`` turns into fields. A module constant or attribute is documented by a
``#:`` comment instead ("the binned calibration errors: ..."), which napoleon would read as
``type: description`` and turn its first words into a type. This extension keeps those
docstrings as written: it saves them before napoleon runs and puts them back after.
"""

from __future__ import annotations

#: the kinds of object whose docstring is prose, never numpydoc sections
PROSE = ("attribute", "data", "property")


def _save(app, what, name, obj, options, lines) -> None:
    if what in PROSE:
        app.env.temp_data.setdefault("calib_api_prose", {})[name] = list(lines)


def _restore(app, what, name, obj, options, lines) -> None:
    saved = app.env.temp_data.get("calib_api_prose", {}).pop(name, None)
    if what in PROSE and saved is not None:
        lines[:] = saved


def setup(app):
    # napoleon's handler has the default priority (500)
    app.connect("autodoc-process-docstring", _save, priority=100)
    app.connect("autodoc-process-docstring", _restore, priority=900)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
