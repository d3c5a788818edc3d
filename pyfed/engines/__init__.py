"""Verdict engines, strongest certificate first: exact moments (:mod:`.exact`), the PEP worst
case over a function class (:mod:`.pep`), Monte Carlo with confidence intervals
(:mod:`.montecarlo`), the exact tightness sweep (:mod:`.tightness`), and every engine on one
statement object (:mod:`.statement`). Engines compute and return result or verdict objects; they
never print. The paper experiment lives in :mod:`pyfed.experiments`."""
