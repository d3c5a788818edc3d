"""Verdict engines, strongest certificate first: exact moments (:mod:`.exact`), the PEP worst
case over a function class (:mod:`.pep`), Monte Carlo with confidence intervals
(:mod:`.montecarlo`), and the exact tightness sweep (:mod:`.tightness`); experiments that reproduce
published results with the simulators (:mod:`.heterogeneity`: the SCAFFOLD paper's Table 3). Engines compute and
return result or verdict objects; they never print."""
