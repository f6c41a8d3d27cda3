"""Datasets: where they live (:mod:`calib.data.root`) and how they are read."""
