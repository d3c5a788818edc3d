"""Expectation engines: Monte Carlo with confidence intervals, exact moments, PEP worst case."""
