"""Stage a copy of the book with fixture chapters (for the book tests).

``stage_book(dest, {"name": source.md})`` copies the real ``_config.yml`` and ``book/`` (prose
pages, bibliography, static files, Sphinx extension) into ``dest``, puts the chapter sources in
``dest/notebooks/`` and writes a ``_toc.yml`` = the real toc's prose pages plus an "Experiments"
part listing the chapters (a prose link to a chapter not staged becomes its name). Tests never
build into the repository's own ``_build/``.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import unquote

import yaml

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
#: a prose page's link to a chapter: {doc}`/_build/chapters/<name>`
_CHAPTER_LINK = re.compile(r"\{doc\}`/?_build/chapters/([\w-]+)`")


def stage_book(dest: Path, chapters: dict[str, Path], caption: str = "Experiments") -> Path:
    """A book root in ``dest`` with the real configuration and prose and ``chapters``."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(REPO / "_config.yml", dest / "_config.yml")
    shutil.copytree(
        REPO / "book",
        dest / "book",
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    (dest / "notebooks").mkdir(exist_ok=True)
    for name, source in chapters.items():
        shutil.copy2(source, dest / "notebooks" / f"{name}.md")
    toc = yaml.safe_load((REPO / "_toc.yml").read_text(encoding="utf-8"))
    # keep the prose pages only: the real chapters are not executed in a staged book, so a
    # prose page's link to one becomes its name in code (a strict build fails on the link)
    parts = []
    for part in toc.get("parts", []):
        prose = [
            c for c in part.get("chapters", []) if not str(c.get("file", "")).startswith("_build/")
        ]
        if prose:
            parts.append({**part, "chapters": prose})
    toc["parts"] = parts
    for page in (dest / "book").glob("*.md"):
        text = page.read_text(encoding="utf-8")
        unlinked = _CHAPTER_LINK.sub(
            lambda m: m.group(0) if m.group(1) in chapters else f"`{m.group(1)}`", text
        )
        if unlinked != text:
            page.write_text(unlinked, encoding="utf-8")
    if chapters:
        toc.setdefault("parts", []).insert(
            1,
            {
                "caption": caption,
                "chapters": [{"file": f"_build/chapters/{name}"} for name in chapters],
            },
        )
    (dest / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False), encoding="utf-8")
    return dest


def book_sources(root: Path) -> Path:
    """A copy of the real book's sources (configuration, toc, prose, chapter sources) in
    ``root``: a fresh clone's, with nothing executed."""
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy2(REPO / name, root / name)
    for folder in ("book", "notebooks"):
        shutil.copytree(
            REPO / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb")
        )
    return root


def download_links(page: Path) -> list[Path]:
    """The files a built page links as downloads (Sphinx's ``a.download``), as paths resolved
    relative to the page; an absolute or remote link fails the test."""
    text = page.read_text(encoding="utf-8")
    out = []
    for tag in re.findall(r"<a\b[^>]*\bclass=\"[^\"]*\bdownload\b[^>]*>", text):
        href = re.search(r'href="([^"]+)"', tag).group(1)
        assert "://" not in href and not href.startswith("/"), (
            f"{page}: link {href} is not relative"
        )
        out.append((page.parent / unquote(href)).resolve())
    return out


def page_text(page: Path) -> str:
    """A built page's text: tags dropped (Sphinx writes ``calib run x`` as one span per word),
    entities unescaped, Sphinx's typographic quotes made plain again, runs of blanks as one
    space."""
    import html

    text = re.sub(r"<(script|style)\b.*?</\1>", " ", page.read_text(encoding="utf-8"), flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", " ", text))
    text = text.translate(
        str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
    )
    return " ".join(text.split())


#: what a reader-facing page must not show in its prose (:func:`residue`): an instruction to
#: the maintainers, an issue number, a path in the repository, LaTeX left unrendered
RESIDUE = {
    "an instruction to fill in the paper's values": re.compile(r"\bFill (?:these|them|it)\b"),
    "an issue number": re.compile(r"\b[Ii]ssues? #?\d+"),
    "a repository path": re.compile(
        r"(?<![\w./])(?:calib|benchmarks|tests|notebooks|book|\.ci)/[\w.<>*/-]*"
        r"|(?<![\w/])[\w/-]+\.py\b"
    ),
    "raw LaTeX": re.compile(
        r"\\(?:mathrm|frac|text|textrm|mathit|mathbf|operatorname|lvert|rvert|sum|cdot|"
        r"leq|geq|approx)\b|\$[^$\s][^$]{0,200}?\$"
    ),
}
#: elements whose text is no prose: code, links (downloads, API entries), math that MathJax
#: renders, and what the reader does not see
_NOT_PROSE_TAGS = {"script", "style", "pre", "code.literal.notranslate.block", "a", "head"}
_NOT_PROSE_CLASSES = {"math", "highlight", "cell_input", "MathJax", "calib-chart-spec"}
_VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


def prose_text(page: Path) -> str:
    """The visible prose of a built page: its text without code blocks (``pre``), links,
    math (MathJax's ``span.math``/``div.math``, rendered in the browser) and scripts; inline
    code in a sentence stays (a path in backticks is still on the page)."""
    from html.parser import HTMLParser

    class Prose(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.stack: list[bool] = []  # per open element: does it hide its text
            self.parts: list[str] = []

        def handle_starttag(self, tag, attrs):
            if tag in _VOID:
                return
            classes = set((dict(attrs).get("class") or "").split())
            self.stack.append(tag in _NOT_PROSE_TAGS or bool(classes & _NOT_PROSE_CLASSES))

        def handle_endtag(self, tag):
            if tag not in _VOID and self.stack:
                self.stack.pop()

        def handle_data(self, data):
            if not any(self.stack):
                self.parts.append(data)

    parser = Prose()
    parser.feed(page.read_text(encoding="utf-8"))
    return " ".join(" ".join(parser.parts).split())


def residue(page: Path) -> list[str]:
    """Each kind of :data:`RESIDUE` a page's prose (:func:`prose_text`) shows, with the text
    around its first occurrence."""
    text = prose_text(page)
    found = []
    for kind, pattern in RESIDUE.items():
        hit = pattern.search(text)
        if hit:
            around = text[max(0, hit.start() - 60) : hit.end() + 60]
            found.append(f"{kind}: ...{around}...")
    return found
