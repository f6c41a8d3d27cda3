/* calib's sortable tables: a click on a column header of a <table class="calib-sortable">
 * (the claims summaries, calib.report.ledger_page.claims_summary) sorts its rows by that
 * column's text, ascending, a second click descending; the rows' own order (decided verdicts
 * first) is the page's default. No other script or host is involved.
 */
(function () {
  "use strict";

  function sortBy(table, column, th) {
    var body = table.tBodies[0];
    if (!body) { return; }
    var descending = th.getAttribute("data-sorted") === "ascending";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = (a.cells[column] || {}).textContent || "";
      var y = (b.cells[column] || {}).textContent || "";
      var order = x.localeCompare(y, undefined, { numeric: true });
      return descending ? -order : order;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) {
      cell.removeAttribute("data-sorted");
    });
    th.setAttribute("data-sorted", descending ? "descending" : "ascending");
  }

  function enable() {
    Array.prototype.forEach.call(document.querySelectorAll("table.calib-sortable"), function (table) {
      if (!table.tHead) { return; }
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, column) {
        th.style.cursor = "pointer";
        th.title = "sort by this column";
        th.addEventListener("click", function () { sortBy(table, column, th); });
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", enable);
  } else {
    enable();
  }
})();
