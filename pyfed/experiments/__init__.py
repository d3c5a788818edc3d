"""Experiments that reproduce published results with pyfed's simulators (not verdict engines):
:mod:`.heterogeneity`, the SCAFFOLD paper's Table 3 on scikit-learn's digits."""
