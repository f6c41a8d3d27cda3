"""Report: how the chapters present the experiments' numbers (nothing is computed here).

* :mod:`calib.report.table_format` - HTML tables (rounding, intervals) recorded for download
* :mod:`calib.report.charts` - Altair chart builders;
  :mod:`calib.report.chart_rendering` - their offline rendering, enabled by
  :func:`~calib.report.chart_rendering.enable` in each chapter's setup cell
* :mod:`calib.report.prose` - the wording rules of a comparison, a correlation, a sample size;
  :mod:`calib.report.findings` - the sentences each chapter prints about its results
* :mod:`calib.report.beside` - this build beside the papers' reported values
  (:mod:`calib.data.reported`)
* :mod:`calib.report.ledger_page` - the ledger page's tables and sentences;
  :mod:`calib.report.bottom_line` - the bottom line of a chapter and the intro's summary
"""
