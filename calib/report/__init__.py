"""Report: Altair charts, tables, and the papers' reported values with their source."""
