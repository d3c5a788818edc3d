"""Worst case over the whole function class: performance estimation problems (PEP).

A performance-estimation problem computes, as a semidefinite program (SDP), the largest value
a performance metric can take over *every* admissible instance: every collection of
beta-smooth, mu-strongly convex client functions, every start point and every initial
control satisfying an initial condition. It turns "the statement holds on the instances we
tried" into "the statement holds for every function of the class, with this much room"
(Drori & Teboulle, Math. Program. 145, 2014; Taylor, Hendrickx & Glineur, Math. Program.
161, 2017, interpolation conditions; implemented with PEPit, Goujaud et al., 2022).

Problems built here (deterministic regime: sigma = 0, full participation S = N):

* :func:`worst_case_scaffold` -- ``SCAFFOLD.ConvexFiniteRoundConvergence`` (seed 000, the
  ``Run`` model with S = N): sup weightedGap subject to V_0 <= 1, compared with the
  theorem's right side V_0/(h W_T) = 1/(h W_T).
* :func:`worst_case_fedavg` -- FedAvg, uniform-client mode (seed 002), S = N, with the same
  metric; FedAvg is SCAFFOLD with the controls frozen at zero, so its initial condition is the
  SCAFFOLD potential with c_i^0 = 0. No FedAvg theorem is claimed: the SCAFFOLD bound is
  shown as a reference (client drift makes FedAvg exceed it once K > 1).
* :func:`worst_case_local_sgd` -- Local SGD (seed 002, Stich Alg. 1) with the deterministic
  full-batch oracle: every worker steps with grad f; the metric is f(xbar_T) - f*.
* :func:`worst_case_scaffold_wide` -- the same theorem (and FedAvg against it) with partial
  participation S < N (one branch per subset sequence, :mod:`.participation`) and stochastic
  gradients sigma > 0 (the expectation-Gram relaxation, :mod:`.stochastic`: sound for ``holds``,
  never a violation), solved and certified on the exact problem (:mod:`.wide`); small sizes only.
* Sanity anchors with known answers: :func:`worst_case_gradient_descent` (Drori-Teboulle
  L/(4 n gamma L + 2)), :func:`pep_gradient_growth` (inequality (9), ``SCAFFOLD.GradientGrowth``)
  and :func:`pep_nonexpansive` (``SCAFFOLD.GradientStepNonexpansive``).

Modules: :mod:`.solver` (result object, solves), :mod:`.scaffold` (SCAFFOLD, FedAvg,
re-verification), :mod:`.direct` (an exact PEP sent straight to Clarabel; the client-symmetric
reduction of SCAFFOLD/FedAvg and its relaxation, which decides holds quickly), :mod:`.anchors` (known answers, Local SGD), :mod:`.sweep` (check row, sweeps),
:mod:`.exact_pep` (the same problems with exact rational forms), :mod:`.certificate` (exact rational
certificates: verification trusts only exact arithmetic), :mod:`.certificate_oracle` (the
untrusted SDP side that proposes them), :mod:`.participation`, :mod:`.stochastic` and :mod:`.wide`
(the wider classes).

Solver discipline (issue 6): a solve whose status is not ``optimal`` gives
:class:`~pyfed.verdicts.Inconclusive`; a claimed violation of the SCAFFOLD bound is
re-verified by fitting a quadratic instance of the class to the PEP's worst-case data and
simulating it in exact rational arithmetic; only an exactly reproduced violation is
:class:`~pyfed.verdicts.Violated`, otherwise the verdict is ``Inconclusive``.

Numbers returned by the SDP are floats (numerical, at the solver's tolerance, stated in the
certificate); bounds are computed by :mod:`pyfed.theory` (exact Fractions for rational input).
"""

from .anchors import (
                      pep_gradient_growth,
                      pep_local_sgd_one_step,
                      pep_nonexpansive,
                      pep_perturbed_strong_convexity,
                      worst_case_gradient_descent,
                      worst_case_local_sgd,
)
from .scaffold import worst_case_fedavg, worst_case_scaffold
from .solver import DEFAULT_RATIO_TOL, DEFAULT_SOLVER, DEFAULT_SOLVER_TOL, WorstCaseResult, available_solvers
from .sweep import pep_row_for_check, smallest_constant, sweep_scaffold
from .wide import worst_case_scaffold_wide

__all__ = [
    "DEFAULT_SOLVER", "DEFAULT_SOLVER_TOL", "DEFAULT_RATIO_TOL", "WorstCaseResult",
    "available_solvers", "worst_case_scaffold", "worst_case_fedavg", "worst_case_local_sgd",
    "worst_case_gradient_descent", "pep_gradient_growth", "pep_nonexpansive", "pep_local_sgd_one_step",
    "pep_perturbed_strong_convexity",
    "pep_row_for_check", "sweep_scaffold", "smallest_constant", "worst_case_scaffold_wide",
]
