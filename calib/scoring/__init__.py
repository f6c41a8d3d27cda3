"""Scoring: (model, statements) -> per-token log-probabilities, cached on disk."""
