"""The Lean side of pyfed: template rendering of the test library and the drift check.

* :mod:`pyfed.lean.render` — ``pyfed lean``: renders ``lean/PyfedTest/Generated/*.lean`` (exact
  values of the ℚ mirrors, hypothesis facts, counterexamples) from Jinja2 templates;
* :mod:`pyfed.lean.drift` — parses the Lean arithmetic definitions and checks them against
  :mod:`pyfed.theory`;
* :mod:`pyfed.lean.inventory` — theorem names (namespace-qualified) against the checker
  registry, Mathlib imports and names against ``lean/MATHLIB_API.md``;
* :mod:`pyfed.lean.signatures` — declarations with their explicit arity and structure fields
  (the interface shared with the published formalization);
* the ``pyfed lean`` front end is :mod:`pyfed.commands.lean`.
"""

from .drift import assert_no_drift, check_drift, parse_definitions
from .render import check_all, render_all, render_counterexample, write_all, write_counterexample

__all__ = ["assert_no_drift", "check_drift", "parse_definitions", "check_all", "render_all",
           "render_counterexample", "write_all", "write_counterexample"]
