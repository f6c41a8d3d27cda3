/* calib's chart loader: renders every <div class="calib-chart"> of a page with Vega-Embed.
 *
 * A chart container (written by calib.report.chart_rendering.chart_html) holds the Vega-Lite spec in a
 * <script type="application/json" class="calib-chart-spec"> and a static SVG fallback in
 * <div class="calib-chart-view">. On pages with charts this script loads the local bundle
 * _static/vega/vega-bundle.js (Vega, Vega-Lite, Vega-Embed; written by the book build, no CDN),
 * replaces each fallback with an interactive SVG view and sets data-rendered="vega-embed" on
 * the container (or data-rendered="error" and a console error).
 */
(function () {
  "use strict";
  var self = document.currentScript;
  var bundleUrl = self ? new URL("vega/vega-bundle.js", self.src).href : null;

  function loadBundle(done) {
    if (window.vegaEmbed) { done(null); return; }
    if (!bundleUrl) { done(new Error("cannot locate vega-bundle.js")); return; }
    var tag = document.createElement("script");
    tag.src = bundleUrl;
    tag.onload = function () {
      done(window.vegaEmbed ? null : new Error("vega-bundle.js did not define vegaEmbed"));
    };
    tag.onerror = function () { done(new Error("could not load " + bundleUrl)); };
    document.head.appendChild(tag);
  }

  function fail(box, message) {
    box.setAttribute("data-rendered", "error");
    console.error("calib chart " + (box.id || "") + ": " + message);
  }

  function render(box) {
    var data = box.querySelector("script.calib-chart-spec");
    var view = box.querySelector(".calib-chart-view");
    if (!data || !view) { fail(box, "container lacks its spec or view"); return; }
    var spec;
    try { spec = JSON.parse(data.textContent); } catch (e) { fail(box, "bad spec: " + e); return; }
    var target = document.createElement("div");
    window.vegaEmbed(target, spec, { actions: false, renderer: "svg" })
      .then(function () {
        view.replaceChildren(target);
        box.setAttribute("data-rendered", "vega-embed");
      })
      .catch(function (e) { fail(box, String(e)); });
  }

  function renderAll() {
    var boxes = document.querySelectorAll("div.calib-chart");
    if (!boxes.length) return;
    loadBundle(function (err) {
      for (var i = 0; i < boxes.length; i++) {
        if (err) fail(boxes[i], String(err)); else render(boxes[i]);
      }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", renderAll);
  } else {
    renderAll();
  }
})();
