"""Exact-moment engine: exact first and second moments of federated algorithms on quadratic
clients with Gaussian-law oracle noise, and exact verdicts of the SCAFFOLD finite-round theorems.

Modules, one job each:

* :mod:`.arith` -- exact rationals (python-flint ``fmpq_mat``) or certified balls (``arb_mat``);
* :mod:`.model` -- the derivation and the affine round maps of each algorithm (model building);
* :mod:`.propagation` -- second moments carried round by round, statistics per round;
* :mod:`.local_sgd` -- the same for Local SGD (per step, with synchronisations);
* :mod:`.verdict` -- the theorems' inequalities decided exactly (or with a certified ball).
"""

from .local_sgd import local_sgd_moments
from .model import choose_field
from .propagation import MomentResult, fedavg_moments, scaffold_moments, scaffold_run_moments
from .verdict import EXACT_BUDGET, decide_convex, decide_nonconvex

__all__ = [
    "MomentResult",
    "scaffold_run_moments",
    "scaffold_moments",
    "fedavg_moments",
    "local_sgd_moments",
    "choose_field",
    "decide_convex",
    "decide_nonconvex",
    "EXACT_BUDGET",
]
