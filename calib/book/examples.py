"""The worked example of "Extending the book": a whole chapter, and its run in a scratch book.

``HELLO_CHAPTER`` is the text of a small chapter (``notebooks/hello.md``);
:func:`run_hello_chapter` writes a scratch book root around it (the real ``_config.yml``, a
``_toc.yml`` listing it) and executes it with the command a reader would type,
``calib run hello --profile quick --no-build``, in a subprocess.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from calib.book.layout import BookError, book_root, executed_path

HELLO_CHAPTER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# Hello, BEAR

Accuracy and calibration of Base-Confidence on the plain template, per model.

```{code-cell} ipython3
:tags: [parameters]

models: list[str] = ["smollm2-135m-instruct", "gemma-3-270m"]  # registry names, folders, hub ids
relations: list[str] | None = None  # BEAR relations (None: all 60)
per_relation: int | None = 1  # instances per relation, seeded sample (None: all)
seed: int = 0  # seed of the sample and of the bootstrap
n_bootstrap: int = 1000  # bootstrap resamples behind every interval
```

```{code-cell} ipython3
from calib.confidence import base, sentence_scores, summary
from calib.report import table_format
from calib.scoring.run import score_bear

scores = score_bear(models, "paraphrase-0", per_relation, seed, relations, progress=False)
table = summary(base(sentence_scores(scores)), by=["model"], n_boot=n_bootstrap, seed=seed)
table_format.html_table(table[["model", "n", "accuracy", "accuracy_low", "accuracy_high", "ace",
                               "ace_low", "ace_high"]],
                        intervals={"accuracy": ("accuracy_low", "accuracy_high"),
                                   "ace": ("ace_low", "ace_high")},
                        caption="Base-Confidence on the plain template")
```
"""

#: the toc of the scratch book: a root page and the chapter
_TOC = """format: jb-book
root: intro
parts:
  - caption: Experiments
    chapters:
      - file: _build/chapters/hello
"""


def run_hello_chapter(
    folder: str | os.PathLike, profile: str = "quick", params: dict | None = None
) -> Path:
    """Make ``folder`` a book root holding ``HELLO_CHAPTER`` (``notebooks/hello.md``, a toc
    entry, the real ``_config.yml``) and run ``calib run hello --profile <profile> --no-build``
    (plus ``-p NAME VALUE`` for ``params``; default: two relations) there. Returns the executed
    notebook; a failed run is a :exc:`~calib.book.layout.BookError` with the command's output."""
    folder = Path(folder)
    (folder / "notebooks").mkdir(parents=True, exist_ok=True)
    shutil.copy2(book_root() / "_config.yml", folder / "_config.yml")
    (folder / "_toc.yml").write_text(_TOC, encoding="utf-8")
    (folder / "intro.md").write_text("# A scratch book\n", encoding="utf-8")
    (folder / "notebooks" / "hello.md").write_text(HELLO_CHAPTER, encoding="utf-8")
    params = {"relations": ["P36", "P19"]} if params is None else params
    command = [
        sys.executable,
        "-m",
        "calib.cli",
        "run",
        "hello",
        "--profile",
        profile,
        "--no-build",
        "--root",
        str(folder),
    ]
    for name, value in params.items():
        command += ["-p", name, json.dumps(value)]
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode != 0:
        raise BookError(
            f"{' '.join(command)} failed ({proc.returncode}):\n"
            f"{(proc.stdout + proc.stderr)[-3000:]}"
        )
    return executed_path("hello", folder)


def last_output_html(path: str | os.PathLike) -> str:
    """The HTML of the last code output of an executed notebook that has one."""
    import nbformat

    nb = nbformat.read(path, as_version=4)
    for cell in reversed(nb.cells):
        for out in reversed(cell.get("outputs", [])):
            html = out.get("data", {}).get("text/html")
            if html:
                return html
    return ""
