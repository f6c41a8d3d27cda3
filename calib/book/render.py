"""What the runner adds to an executed chapter before the book shows it.

* :func:`run_note_cell`: the note under the title, saying how the chapter was run (profile,
  parameters, the command that repeats it) and its provenance
  (:mod:`calib.book.provenance`); for a synthetic profile, a warning that its numbers are
  placeholders.
* :func:`show_effective_parameters`: papermill injects the run's values as a second cell after
  the declared ``parameters`` cell; the page shows one: the declared cell, its values replaced
  by the ones the chapter ran with (a changed default is named in its comment), and the
  injected cell removed (the values stay in ``metadata["papermill"]["parameters"]``).
* :func:`downloads_cell`: the chapter's downloads section at the end of the page
  (:mod:`calib.book.downloads`).
* :func:`not_run_notebook`: the page of a chapter not run in this build (the book is built from
  what was executed; this page says so and gives the command that runs the chapter).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from calib.book.downloads import LABEL, downloads_markdown
from calib.book.layout import BANNER_TAG, PARAMETERS_TAG
from calib.book.profiles import Profile
from calib.book.provenance import provenance_lines

#: papermill's tag of the cell it injects
INJECTED_TAG = "injected-parameters"
#: the tag of the downloads cell
DOWNLOADS_TAG = "calib-downloads"


def literal(value: Any) -> str:
    """``value`` as a Python literal (strings in double quotes, as the chapters write them)."""
    import json

    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(literal(v) for v in value)
        return (
            f"[{inner}]"
            if isinstance(value, list)
            else f"({inner}{',' if len(value) == 1 else ''})"
        )
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def show_effective_parameters(source: str, values: Mapping[str, Any]) -> str:
    """The parameters cell ``source`` with each declared value that ``values`` sets replaced by
    it; where it differs from the declared default, the line's comment says so."""
    tree = ast.parse(source)
    lines = source.splitlines()
    edits = []
    for node in tree.body:
        target: ast.expr
        declared: ast.expr | None
        if isinstance(node, ast.AnnAssign):
            target, declared = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, declared = node.targets[0], node.value
        else:
            continue
        if not isinstance(target, ast.Name) or target.id not in values or declared is None:
            continue
        value = values[target.id]
        default = ast.literal_eval(declared)
        if value == default and type(value) is type(default):
            continue
        edits.append((declared, literal(value), literal(default)))
    for value_node, text, default in sorted(
        edits, key=lambda e: (e[0].lineno, e[0].col_offset), reverse=True
    ):
        if value_node.end_lineno is None or value_node.end_col_offset is None:
            raise ValueError("a parsed parameter value has no end position")  # ast.parse sets it
        first, last = value_node.lineno - 1, value_node.end_lineno - 1
        head = lines[first][: value_node.col_offset]
        tail = lines[last][value_node.end_col_offset :]
        note = f"(notebook default: {default})"
        tail = f"{tail}  # {note}" if "#" not in tail else f"{tail.rstrip()} {note}"
        lines[first : last + 1] = [head + text + tail]
    return "\n".join(lines)


def show_one_parameters_cell(nb, values: Mapping[str, Any]) -> None:
    """Rewrite the declared parameters cell with ``values`` and drop papermill's injected
    cell (in place)."""
    for cell in nb.cells:
        if PARAMETERS_TAG in cell.get("metadata", {}).get("tags", []):
            cell.source = show_effective_parameters(cell.source, values)
    nb.cells = [c for c in nb.cells if INJECTED_TAG not in c.get("metadata", {}).get("tags", [])]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def run_size(values: Mapping[str, Any]) -> str:
    """What a run covered, in words, from the values it ran with alone (never from its profile's
    description, which ``-p`` may contradict): its models, and for a BEAR sample the instances
    per relation, the relations and the seed; ``""`` for a chapter without such parameters
    (the ledger). E.g. ``"4 models (tiny-gpt2, ...); 2 instances per relation of 5 relations
    (P36, ...), seed 0"``."""
    parts = []
    models = values.get("models")
    if models:
        parts.append(f"{_plural(len(models), 'model')} ({', '.join(map(str, models))})")
    if "per_relation" in values or "relations" in values:
        n = values.get("per_relation")
        rels = values.get("relations")
        what = "every instance" if n is None else f"{_plural(n, 'instance')} per relation"
        where = (
            "of every BEAR relation"
            if rels is None
            else f"of {_plural(len(rels), 'relation')} ({', '.join(map(str, rels))})"
        )
        seed = f", seed {values['seed']}" if "seed" in values else ""
        parts.append(f"{what} {where}{seed}")
    return "; ".join(parts)


def overrides(given: Mapping[str, Any], defaults: Mapping[str, Any]) -> str:
    """The values given on the command line (``-p``), each with the profile's default it
    replaced: ``"per_relation = 2 (the profile's default: 3)"``; ``""`` when none was given."""
    out = []
    for key, value in given.items():
        text = f"{key} = {literal(value)}"
        if key in defaults and defaults[key] != value:
            text += f" (the profile's default: {literal(defaults[key])})"
        out.append(text)
    return "; ".join(out)


def run_note_cell(
    prof: Profile,
    command: str,
    values: Mapping[str, Any],
    when: str,
    record: dict,
    chapter: str,
    downloads: bool,
    given: Mapping[str, Any] | None = None,
    defaults: Mapping[str, Any] | None = None,
):
    """The note under a chapter's title (see the module docstring). Its sentences about the
    run's size come from ``values`` (:func:`run_size`); ``given`` (the ``-p`` values) are named
    with the ``defaults`` of the profile they replaced (:func:`overrides`)."""
    import nbformat

    size = run_size(values)
    changed = overrides(given or {}, defaults or {})
    lines = []
    if prof.synthetic:
        lines += [
            "```{warning}",
            f"**Placeholder numbers: `{prof.name}` profile ({prof.label}).** This chapter ran "
            + (f"on {size}. " if size else "on placeholder inputs. ")
            + "Nothing on this page is a result about language models or the papers.",
            "```",
            "",
        ]
    lines += [
        "```{admonition} How this chapter was run",
        ":class: note",
        f"Profile `{prof.name}` ({prof.label})"
        + (f", with {changed}" if changed else "")
        + (f"; this run: {size}" if size else "")
        + f"; executed {when}. Every value it ran with is shown in its parameters cell below.",
        "",
        f"Re-run: `{command}` (see {{doc}}`/book/reproduction`).",
        "",
        *provenance_lines(record),
    ]
    if downloads:
        lines += [
            "",
            f"Downloads: the executed notebook, its result tables and the scores it "
            f"used, at the {{ref}}`end of this page <{LABEL.format(chapter=chapter)}>`.",
        ]
    lines.append("```")
    cell = nbformat.v4.new_markdown_cell("\n".join(lines))
    cell.metadata["tags"] = [BANNER_TAG]
    return cell


#: the tag of the note on the page of a chapter not run in this build
NOT_RUN_TAG = "calib-not-run"


def not_run_notebook(title: str, chapter: str, command: str):
    """The page of a toc chapter that has no executed notebook in this build: its title, a note
    that it was not run and the ``command`` that runs it, and ``metadata["calib"]["not_run"]``
    (so that nothing mistakes it for an executed chapter,
    :func:`calib.book.layout.is_executed`)."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(f"# {title}"),
        nbformat.v4.new_markdown_cell(
            "\n".join(
                [
                    "```{important}",
                    "**Not run in this build.** This chapter has not been executed in this "
                    "build, so this page holds none of its results, and the ledger judges "
                    'its claims as "not run in this build". To run it and rebuild the book:',
                    "",
                    f"`{command}`",
                    "",
                    "(see {doc}`/book/reproduction`)",
                    "```",
                ]
            )
        ),
    ]
    nb.cells[1].metadata["tags"] = [NOT_RUN_TAG]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    nb.metadata["calib"] = {"chapter": chapter, "not_run": True, "command": command}
    return nb


def insert_after_title(nb, cell) -> None:
    """Put ``cell`` right after the notebook's first level-1 heading (``#`` and a space; else
    first)."""
    for i, existing in enumerate(nb.cells):
        if existing.cell_type == "markdown" and existing.source.lstrip().startswith("# "):
            nb.cells.insert(i + 1, cell)
            return
    nb.cells.insert(0, cell)


def downloads_cell(chapter: str, manifest: dict):
    """The downloads section as a markdown cell."""
    import nbformat

    cell = nbformat.v4.new_markdown_cell(downloads_markdown(chapter, manifest))
    cell.metadata["tags"] = [DOWNLOADS_TAG]
    return cell
