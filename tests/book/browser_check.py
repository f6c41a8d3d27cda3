"""Open a built book in headless Chromium, with networking disabled, and check its pages.

Reusable by every book test (the fixture book here, the ``quick`` book of the real chapters)::

    from browser_check import check_book, problems

    reports = check_book(html_dir)                  # every page of the book
    assert not problems(reports, charts={"_build/chapters/calibration.html": 3})

Chromium (Debian package ``chromium``; ``$CALIB_CHROMIUM`` names another binary) is driven over
the DevTools protocol with ``websocket-client``. It runs with a dead proxy and a host resolver
that resolves nothing, so any request to another host fails; all requests are recorded, and
anything other than ``file:``, ``data:``, ``blob:`` or ``about:`` counts as an external request.
A page is read once ``load`` fired, MathJax finished, and every chart container
(``div.calib-chart``) was rendered by ``calib-charts.js`` or the wait timed out.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

#: the browser window: a laptop's screen (the width decides whether a table fits the page)
WINDOW = (1280, 900)
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
LOCAL_SCHEMES = ("file:", "data:", "blob:", "about:")
#: pages that are not book content
SKIP_PAGES = ("genindex.html", "search.html")
#: the limits of the browser's start, of a reply, and of a page settling (load, MathJax,
#: charts): each wait ends as soon as its condition holds, so the limits only bound a hang and
#: are generous for a loaded machine; a tooltip is looked for up to TOOLTIP_S
HANG_S, SETTLE_S, TOOLTIP_S = 120.0, 120.0, 30.0


def find_chromium() -> str | None:
    """``$CALIB_CHROMIUM``, else the first Chromium-like browser on ``PATH``."""
    env = os.environ.get("CALIB_CHROMIUM")
    if env:
        return env
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class PageReport:
    """What one page did in the browser."""

    page: str
    title: str = ""
    console_errors: list[str] = field(default_factory=list)
    external_requests: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    charts: int = 0
    charts_rendered: int = 0  # containers rendered by Vega-Embed that hold an svg or canvas
    tables: int = 0  # calib tables (table.calib-table)
    reported_tables: int = 0
    math_errors: int = 0
    #: tables wider than the page's content (they scroll sideways): caption or header text
    wide_tables: list[str] = field(default_factory=list)
    #: the text column's width (px: the chart containers' width) and each rendered chart's
    #: width as drawn (its Vega-Embed view's SVG, legend and title included)
    column_width: float = 0.0
    chart_widths: list[float] = field(default_factory=list)
    #: charts wider than the text column, or whose legend reaches past it (clipped: the
    #: container scrolls): "<title or chart id>: <width> px" and what sticks out
    wide_charts: list[str] = field(default_factory=list)
    text: str = ""  # the page's visible text (for label checks)
    tooltip: str | None = None  # the tooltip text shown on hovering a chart mark (hover=True)


class Chromium:
    """A headless Chromium with a DevTools connection (use as a context manager)."""

    def __init__(self, executable: str | None = None, timeout: float = HANG_S):
        self.executable = executable or find_chromium()
        if not self.executable:
            raise RuntimeError(
                "no Chromium found: install it (Debian: apt-get install -y "
                "chromium) or set CALIB_CHROMIUM to a Chromium binary"
            )
        self.timeout = timeout
        self._id = 0
        self._events: list[dict] = []

    def __enter__(self) -> Chromium:
        import websocket  # websocket-client

        self._profile = tempfile.mkdtemp(prefix="calib-chromium-")
        args = [
            self.executable,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-default-apps",
            "--disable-sync",
            "--disable-extensions",
            "--no-first-run",
            "--no-default-browser-check",
            "--mute-audio",
            f"--window-size={WINDOW[0]},{WINDOW[1]}",
            "--proxy-server=127.0.0.1:9",
            "--proxy-bypass-list=<-loopback>",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            "--remote-allow-origins=*",
            f"--user-data-dir={self._profile}",
            "about:blank",
        ]
        self._proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        port_file = Path(self._profile) / "DevToolsActivePort"
        deadline = time.time() + self.timeout
        while not (port_file.is_file() and len(port_file.read_text().splitlines()) >= 2):
            if self._proc.poll() is not None:
                err = self._proc.stderr.read().decode(errors="replace")[-2000:]
                raise RuntimeError(f"{self.executable} exited ({self._proc.returncode}): {err}")
            if time.time() > deadline:
                self.close()
                raise RuntimeError(
                    f"{self.executable} did not open its DevTools port in {self.timeout:.0f} s"
                )
            time.sleep(0.05)
        port, path = port_file.read_text().splitlines()[:2]
        self._ws = websocket.create_connection(
            f"ws://127.0.0.1:{port}{path}", timeout=self.timeout, suppress_origin=True
        )
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        ws = getattr(self, "_ws", None)
        if ws is not None:
            # the browser may already be gone, with any error
            with contextlib.suppress(Exception):
                self.send("Browser.close")
            ws.close()
            self._ws = None
        proc = getattr(self, "_proc", None)
        if proc is not None and proc.poll() is None:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        if proc is not None and proc.stderr:
            proc.stderr.close()
        shutil.rmtree(getattr(self, "_profile", ""), ignore_errors=True)

    # -- protocol ---------------------------------------------------------------------------

    def send(
        self,
        method: str,
        params: dict | None = None,
        session: str | None = None,
        timeout: float | None = None,
    ) -> dict:
        """Send a command and return its result; events that arrive meanwhile are kept."""
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._ws.send(json.dumps(msg))
        deadline = time.time() + (timeout or self.timeout)
        while True:
            reply = self._receive(deadline, f"the reply to {method}")
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _receive(self, deadline: float, what: str) -> dict:
        import websocket

        while True:
            left = deadline - time.time()
            if left <= 0:
                raise TimeoutError(f"no {what} within the time limit")
            self._ws.settimeout(left)
            try:
                message = json.loads(self._ws.recv())
            except websocket.WebSocketTimeoutException:
                raise TimeoutError(f"no {what} within the time limit") from None
            if "method" in message:
                self._events.append(message)
                if "id" not in message:
                    return message
            else:
                return message

    def wait_event(self, method: str, session: str, timeout: float | None = None) -> dict:
        """Wait for event ``method`` of ``session`` (already received ones count)."""
        deadline = time.time() + (timeout or self.timeout)
        seen = 0
        while True:
            for event in self._events[seen:]:
                if event.get("method") == method and event.get("sessionId") == session:
                    return event
            seen = len(self._events)
            self._receive(deadline, f"event {method}")

    # -- pages ------------------------------------------------------------------------------

    def hover_first_mark(self, session: str) -> str | None:
        """Move the mouse onto the first point or bar of the first rendered chart and return
        the text of the Vega tooltip that appears (``None``: no mark, or no tooltip)."""
        found = (
            self.send(
                "Runtime.evaluate", {"expression": _MARK_JS, "returnByValue": True}, session=session
            )
            .get("result", {})
            .get("value")
        )
        if not found:
            return None
        for dx in (-1, 0):  # enter, then move: Vega reacts to pointer moves over an item
            self.send(
                "Input.dispatchMouseEvent",
                {"type": "mouseMoved", "x": found["x"] + dx, "y": found["y"]},
                session=session,
            )
        deadline = time.time() + TOOLTIP_S
        while time.time() < deadline:
            text = (
                self.send(
                    "Runtime.evaluate",
                    {"expression": _TOOLTIP_JS, "returnByValue": True},
                    session=session,
                )
                .get("result", {})
                .get("value")
            )
            if text:
                return text
            time.sleep(0.1)
        return None

    def check_page(
        self, url: str, page: str = "", wait_s: float = SETTLE_S, hover: bool = False
    ) -> PageReport:
        """Load ``url`` in a fresh tab and report console errors, requests, charts, tables
        (and, with ``hover``, the tooltip of the first chart mark)."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        try:
            for domain in ("Page", "Runtime", "Log", "Network"):
                self.send(f"{domain}.enable", session=session)
            start = len(self._events)
            self.send("Page.navigate", {"url": url}, session=session)
            self.wait_event("Page.loadEventFired", session, timeout=wait_s)
            result = self.send(
                "Runtime.evaluate",
                {
                    "expression": _SETTLE_JS % int(wait_s * 1000),
                    "awaitPromise": True,
                    "returnByValue": True,
                },
                session=session,
                timeout=wait_s + 10,
            )
            time.sleep(0.1)  # let late console messages arrive
            self.send("Runtime.evaluate", {"expression": "1"}, session=session)
            state = result.get("result", {}).get("value") or {}
            if "exceptionDetails" in result:
                raise RuntimeError(f"{url}: page probe failed: {result['exceptionDetails']}")
            report = PageReport(page=page or url, **state)
            if hover and report.charts_rendered:
                report.tooltip = self.hover_first_mark(session)
            _collect(self._events[start:], session, report)
            return report
        finally:
            self.send("Target.closeTarget", {"targetId": target})

    def evaluate(self, url: str, expression: str, wait_s: float = SETTLE_S):
        """Load ``url`` in a fresh tab, wait until it has loaded, and return the value of the
        JavaScript ``expression`` (awaited when it is a promise)."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        try:
            self.send("Page.enable", session=session)
            self.send("Page.navigate", {"url": url}, session=session)
            self.wait_event("Page.loadEventFired", session, timeout=wait_s)
            result = self.send(
                "Runtime.evaluate",
                {"expression": expression, "awaitPromise": True, "returnByValue": True},
                session=session,
                timeout=wait_s + 10,
            )
            if "exceptionDetails" in result:
                raise RuntimeError(f"{url}: {result['exceptionDetails']}")
            return result.get("result", {}).get("value")
        finally:
            self.send("Target.closeTarget", {"targetId": target})


_SETTLE_JS = """(async () => {
  %s
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const deadline = Date.now() + %d;
  while (document.readyState !== "complete" && Date.now() < deadline) await sleep(20);
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    await Promise.race([MathJax.startup.promise, sleep(Math.max(0, deadline - Date.now()))]);
  }
  const boxes = () => Array.from(document.querySelectorAll("div.calib-chart"));
  while (boxes().some((b) => !b.hasAttribute("data-rendered")) && Date.now() < deadline) {
    await sleep(50);
  }
  const rendered = boxes().filter((b) => b.getAttribute("data-rendered") === "vega-embed"
      && b.querySelector(".calib-chart-view svg, .calib-chart-view canvas"));
  return {
    title: document.title,
    charts: boxes().length,
    charts_rendered: rendered.length,
    tables: document.querySelectorAll("table.calib-table").length,
    reported_tables: document.querySelectorAll("table.calib-reported").length,
    math_errors: document.querySelectorAll("mjx-merror, .MathJax_Error").length,
    wide_tables: Array.from(document.querySelectorAll("div.calib-table-wrap"))
      .filter((w) => w.scrollWidth > w.clientWidth + 1)
      .map((w) => (w.querySelector("caption") || w.querySelector("thead") || w)
        .innerText.slice(0, 120)),
    text: document.body ? document.body.innerText : "",
    ...chartWidths(rendered),
  };
})()"""

#: (JavaScript) the widths of the rendered charts against the text column (a chart container
#: spans the column): a chart is too wide when its SVG is wider than its container, and its
#: legend is clipped when any legend reaches past the container's right edge
_CHART_WIDTH_JS = """
  function chartWidths(rendered) {
    const out = {column_width: 0, chart_widths: [], wide_charts: []};
    for (const box of rendered) {
      const svg = box.querySelector(".calib-chart-view .vega-embed svg, .calib-chart-view svg");
      if (!svg) continue;
      const edge = box.getBoundingClientRect();
      const width = svg.getBoundingClientRect().width;
      const column = box.clientWidth;
      out.column_width = Math.max(out.column_width, column);
      out.chart_widths.push(Math.round(width));
      const title = (svg.querySelector("g.role-title text") || {}).textContent || box.id;
      const what = [];
      if (width > column + 1) what.push(`${Math.round(width)} px wide, column ${column} px`);
      const clipped = Array.from(svg.querySelectorAll("g.role-legend"))
        .filter((g) => g.getBoundingClientRect().right > edge.left + column + 1);
      if (clipped.length) what.push(`${clipped.length} legend(s) past the column's edge`);
      if (what.length) out.wide_charts.push(`${title.slice(0, 80)}: ${what.join("; ")}`);
    }
    return out;
  }
"""


_SETTLE_JS = _SETTLE_JS.replace("%s", _CHART_WIDTH_JS.replace("%", "%%"), 1)

#: the centre of the first point or bar of the first rendered chart, scrolled into view
_MARK_JS = """(() => {
  const view = 'div.calib-chart[data-rendered="vega-embed"] .calib-chart-view svg ';
  const marks = document.querySelectorAll(  // data marks only, not legend symbols
    view + 'g.mark-symbol.role-mark path, ' + view + 'g.mark-rect.role-mark path');
  for (const mark of marks) {
    mark.scrollIntoView({block: "center", inline: "center"});
    const r = mark.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) return {x: r.left + r.width / 2, y: r.top + r.height / 2};
  }
  return null;
})()"""
#: the text of the visible vega-tooltip element, if any
_TOOLTIP_JS = """(() => {
  const el = document.getElementById("vg-tooltip-element");
  return el && el.classList.contains("visible") && el.innerText.trim() ? el.innerText : null;
})()"""


def _collect(events: list[dict], session: str, report: PageReport) -> None:
    urls: dict[str, str] = {}
    for event in events:
        if event.get("sessionId") != session:
            continue
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            text = " ".join(
                str(a.get("value", a.get("description", ""))) for a in params.get("args", [])
            )
            report.console_errors.append(f"console.{params['type']}: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            text = details.get("exception", {}).get("description") or details.get("text", "")
            report.console_errors.append(f"uncaught: {text}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            report.console_errors.append(
                f"{entry.get('source')}: {entry.get('text')} {entry.get('url', '')}".strip()
            )
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            urls[params.get("requestId", "")] = url
            if not url.startswith(LOCAL_SCHEMES):
                report.external_requests.append(url)
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            url = urls.get(params.get("requestId", ""), "?")
            report.failed_requests.append(f"{url}: {params.get('errorText')}")


def is_redirect(path: Path) -> bool:
    """Whether a page only redirects (jupyter-book's ``index.html``)."""
    head = path.read_text(encoding="utf-8", errors="replace")[:2000].lower()
    return 'http-equiv="refresh"' in head and "<body" not in head.split("http-equiv")[0]


def book_pages(html_dir: str | os.PathLike) -> list[str]:
    """The content pages of a built book (relative paths), without the index and search
    pages and without redirects."""
    html_dir = Path(html_dir)
    pages = []
    for path in sorted(html_dir.rglob("*.html")):
        rel = path.relative_to(html_dir).as_posix()
        if (
            rel.startswith(("_static/", "_sources/", "_images/"))
            or rel in SKIP_PAGES
            or is_redirect(path)
        ):
            continue
        pages.append(rel)
    return pages


def check_book(
    html_dir: str | os.PathLike,
    pages: list[str] | None = None,
    *,
    chromium: str | None = None,
    wait_s: float = SETTLE_S,
    hover: bool = False,
) -> dict[str, PageReport]:
    """Open each page (default: :func:`book_pages`) of a built book; reports by page (with
    ``hover``, each page with a chart also records the tooltip of its first mark)."""
    html_dir = Path(html_dir).resolve()
    pages = book_pages(html_dir) if pages is None else pages
    reports = {}
    with Chromium(chromium) as browser:
        for page in pages:
            path = html_dir / page
            if not path.is_file():
                raise FileNotFoundError(f"{path}: no such page in the built book")
            reports[page] = browser.check_page(path.as_uri(), page, wait_s=wait_s, hover=hover)
    return reports


def problems(
    reports: dict[str, PageReport],
    *,
    charts: dict[str, int] | None = None,
    tables: dict[str, int] | None = None,
    require_text: str | None = None,
    tooltips: dict[str, list[str]] | None = None,
) -> list[str]:
    """Every failed expectation, one line each (empty when all is well).

    Always: no console error, no request to another host, no failed request, no MathJax
    error, every chart container rendered, no table wider than the page, no chart wider than
    the text column and no legend past its edge. ``charts`` /
    ``tables``: the minimum number of charts / calib tables a page must hold.
    ``require_text``: text every page must show (e.g. the quick profile's label).
    ``tooltips``: pages whose first chart mark must show a tooltip on hover, with texts the
    tooltip must contain (e.g. ``["model"]``).
    """
    out = []
    for page, r in reports.items():
        out += [f"{page}: {e}" for e in r.console_errors]
        out += [f"{page}: request to another host: {u}" for u in r.external_requests]
        out += [f"{page}: failed request: {u}" for u in r.failed_requests]
        if r.math_errors:
            out.append(f"{page}: {r.math_errors} MathJax error(s)")
        out += [
            f"{page}: a table wider than the page at {WINDOW[0]} px (it scrolls sideways): {t!r}"
            for t in r.wide_tables
        ]
        out += [
            f"{page}: a chart wider than the text column at {WINDOW[0]} px: {c}"
            for c in r.wide_charts
        ]
        if r.charts_rendered != r.charts:
            out.append(
                f"{page}: {r.charts - r.charts_rendered} of {r.charts} chart(s) not rendered"
            )
        if require_text is not None and require_text not in r.text:
            out.append(f"{page}: does not show {require_text!r}")
    for page, n in (charts or {}).items():
        if page not in reports:
            out.append(f"{page}: not checked (no such page)")
        elif reports[page].charts < n:
            out.append(f"{page}: {reports[page].charts} chart(s), expected at least {n}")
    for page, texts in (tooltips or {}).items():
        if page not in reports:
            out.append(f"{page}: not checked (no such page)")
        elif not reports[page].tooltip:
            out.append(f"{page}: no tooltip appeared on hovering a chart mark")
        else:
            out += [
                f"{page}: the tooltip does not show {t!r}: {reports[page].tooltip!r}"
                for t in texts
                if t not in reports[page].tooltip
            ]
    for page, n in (tables or {}).items():
        if page not in reports:
            out.append(f"{page}: not checked (no such page)")
        elif reports[page].tables < n:
            out.append(f"{page}: {reports[page].tables} table(s), expected at least {n}")
    return out
