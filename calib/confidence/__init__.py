"""Confidence: reductions, estimators (paper Eqs. 1-7), calibration metrics."""
