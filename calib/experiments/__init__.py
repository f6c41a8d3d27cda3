"""Experiments: the computations behind each chapter, from scores to tidy result frames.

This stage sits between :mod:`calib.confidence` (estimators, metrics) and :mod:`calib.report`
(charts, tables): each module here turns cached scores into the frames one chapter shows, so
that the notebooks only call these functions and display what they return.
"""
