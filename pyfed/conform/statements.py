"""Statements, too: which of pyfed's statements apply to an implementation that conforms, and
their Monte Carlo rows computed from the implementation's own trajectories.

:func:`applicable_statements` maps a conforming :class:`~pyfed.conform.engine.ConformanceReport`
to the Lean statements whose run model the implementation's law is:

* SCAFFOLD option II with uniform S-of-N sampling is seed 000's ``Run`` model: option II's
  control is the average of the K path samples (Lean ``SCAFFOLD.OptionTwoControlIsAverage``), the
  server control stays the clients' mean (``SCAFFOLD.ServerControlIsMean``), the sample is drawn
  independently of the paths. So ``ConvexFiniteRoundConvergence`` (given deterministic controls
  ``some c0``), ``NonconvexFiniteRoundConvergence`` (the K-sample warm start ``none``) and their
  conjunction ``FiniteRoundConvergence`` apply, under their hypotheses (eta_g >= 1, the step
  conditions). Option I's control is a fresh sample at x: another law; none applies.
* FedAvg in the uniform-client mode with S = N and eta_g = 1 is the full-participation model of
  ``lean/Pyfed/FedAvg/Theorems.lean`` (the Field Guide statements); seed 002 says its rate holds
  for the uniform-client mode only, so nothing applies to the count-weighted mode.
* Local SGD: Stich's one-step lemma ``SCAFFOLD.LocalSGDOneStep``.

:func:`montecarlo_rows` runs the SCAFFOLD statements' Monte Carlo rows on trajectories x
(R, T+1, d) produced by the adapter itself (pyfed's client sampling and Gaussian oracle), with the
statements read from ``lean/Pyfed/Scaffold/Theorems.lean`` and their right sides evaluated from
their Lean terms.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_int
from ..models.registry import implementation_rows
from ..sampling import sample_clients
from .protocol import RoundInput, call_init, call_round, readonly

__all__ = ["Applicability", "applicable_statements", "montecarlo_rows", "trajectories"]

_SCAF = "lean/Pyfed/Scaffold/Theorems.lean"
_FEDAVG = "lean/Pyfed/FedAvg/Theorems.lean"



@dataclass(frozen=True)
class Applicability:
    """One statement and whether it applies to the implementation.

    Attributes
    ----------
    statement : str
        Lean name (namespace included).
    file : str
    applies : bool
    why : str
        The reason, in words (the model correspondence and the conditions of the run).
    montecarlo : bool
        :func:`montecarlo_rows` can run its row on the implementation's trajectories.
    """

    statement: str
    file: str
    applies: bool
    why: str
    montecarlo: bool = False

    def to_json(self) -> dict:
        return {"statement": self.statement, "file": self.file, "applies": self.applies, "why": self.why,
                "montecarlo": self.montecarlo}


def applicable_statements(report) -> list[Applicability]:
    """The statements that apply to a conforming implementation (module docstring); an empty list
    when ``report`` does not conform (no statement is about a procedure the code does not run),
    except that an implementation whose only deviation is its global step (it conforms at a fixed
    eta_g, :attr:`ConformanceReport.conforms_at_eta_g`) gets the statements that hold at that
    eta_g (all of pyfed's FedAvg and SCAFFOLD statements allow eta_g = 1)."""
    at = report.conforms_at_eta_g
    if not report.conforms and at is None:
        return []
    eta_g = report.eta_g if report.conforms else at
    if eta_g is not None and eta_g < 1:
        return [Applicability("(none)", "-", False, f"the implementation applies eta_g = {eta_g}; pyfed's SCAFFOLD "
                                                     "statements need eta_g >= 1 and its FedAvg statements eta_g = 1")]
    alg = report.algorithm
    if alg == "scaffold":
        if report.option == "II":
            why = ("SCAFFOLD option II with uniform S-of-N sampling is the Run model of seed 000 (option II's control "
                   "is the average of the K path samples, SCAFFOLD.OptionTwoControlIsAverage; the server control stays "
                   "the clients' mean, SCAFFOLD.ServerControlIsMean); needs eta_g >= 1 and the step-size hypotheses")
            return [Applicability("SCAFFOLD.ConvexFiniteRoundConvergence", _SCAF, True,
                                  why + "; with given deterministic controls c0 (`some c0`)", True),
                    Applicability("SCAFFOLD.NonconvexFiniteRoundConvergence", _SCAF, True,
                                  why + "; with the K-sample warm start (`none`), which pyfed supplies as c0", True),
                    Applicability("SCAFFOLD.FiniteRoundConvergence", _SCAF, True,
                                  "the conjunction of the two above, each with its own initialisation", False)]
        return [Applicability("SCAFFOLD.ConvexFiniteRoundConvergence", _SCAF, False,
                              "the Run model's control update is option II's (the average of the path samples); "
                              "option I's fresh sample at x has another law"),
                Applicability("SCAFFOLD.NonconvexFiniteRoundConvergence", _SCAF, False,
                              "the same: the Run model is option II")]
    if alg == "fedavg":
        if eta_g is not None and eta_g != 1:
            return [Applicability("FedAvg.ConvexFedAvgConvergence", _FEDAVG, False,
                                  f"the Field Guide model has no global step (eta_g = 1); the implementation applies "
                                  f"eta_g = {eta_g}")]
        if report.mode == "uniform":
            why = ("the Field Guide model is full-participation FedAvg (every client from the average of the "
                   "previous round's terminal iterates): it applies to runs with S = N and eta_g = 1"
                   + (" (the implementation's own global step)" if eta_g == 1 else ""))
            return [Applicability(f"FedAvg.{n}", _FEDAVG, True, why)
                    for n in ("PerRoundProgress", "BoundedClientDrift", "ConvexFedAvgConvergence",
                              "TunedConvexFedAvgConvergence")]
        return [Applicability("FedAvg.ConvexFedAvgConvergence", _FEDAVG, False,
                              "seed 002: the convergence rate is proved for the uniform-client mode and the equal-client "
                              "objective only; the count-weighted mode optimises f_wt = sum_i (n_i/n) F_i")]
    if alg == "local-sgd":
        return [Applicability("SCAFFOLD.LocalSGDOneStep", "lean/Pyfed/Algorithms/LocalSGD.lean", True,
                              "Stich's Lemma 3.1 is about one step of Local SGD as seed 002 defines it")]
    if alg in ("fedadam", "fedyogi", "fedadagrad"):
        return [Applicability("(none)", "-", False, "pyfed states no theorem about the adaptive server optimisers "
                                                    "(Reddi et al.'s Theorems 1 and 2 are not formalised here)")]
    return [Applicability("(none)", "-", False, "pyfed states no theorem about FedProx")]


# ----------------------------------------------------------------------------- trajectories

def trajectories(adapter, inst, *, replicates: int, seed: int, option: str = "II") -> np.ndarray:
    """Server iterates x (R, T+1, d) of ``replicates`` runs of the adapter on ``inst``
    (the model's instance: its ``problem``, ``oracle``, ``S``, ``K``, ``T``, ``eta_l``, ``eta_g``,
    ``x0``, ``c0``): each replicate's client samples from
    :func:`pyfed.sampling.sample_clients` and gradients from ``inst.oracle`` (pyfed's Gaussian
    oracle), both from ``numpy.random.default_rng([seed, replicate])``; initial controls
    ``inst.c0``, or when it is None the K-sample warm start at x0 drawn from the same oracle.

    Raises AdapterError (exit 2) for a broken adapter."""

    p, oracle = inst.problem, inst.oracle
    N, d, S, K, T = p.N, p.d, inst.S, inst.K, inst.T
    x0 = np.array([float(v) for v in inst.x0])
    shapes = {"x": (d,), "c": (d,), "c_clients": (N, d)}
    X = np.empty((replicates, T + 1, d))
    for rep in range(replicates):
        sampling, noise = np.random.default_rng([seed, rep]).spawn(2)

        def grad(i, y, noise=noise):
            return oracle(np.asarray(y, dtype=np.float64).reshape(1, d), noise, clients=np.array([int(i)]))[0]

        if inst.c0 is not None:
            c0 = np.array([[float(v) for v in row] for row in inst.c0])
        else:  # warm start: the average of K fresh samples at x0, every client
            c0 = np.array([np.mean([grad(i, x0) for _ in range(K)], axis=0) for i in range(N)])
        state, _ = call_init(adapter, x0, c0, shapes)
        X[rep, 0] = state["x"]
        for r in range(1, T + 1):
            sel = sample_clients(sampling, N, S, 1)[0]
            inp = RoundInput(algorithm="scaffold", option=option, mode=None, round=r, N=N, S=S, K=K, d=d,
                             eta_l=float(inst.eta_l), eta_g=float(inst.eta_g), mu=None,
                             counts=readonly(np.ones(N)).astype(np.int64), x=readonly(state["x"]),
                             c=readonly(state["c"]), c_clients=readonly(state["c_clients"]), sampled=sel, oracle=grad)
            state = call_round(adapter, inp, shapes)
            X[rep, r] = state["x"]
    return X


def montecarlo_rows(adapter, statements=None, *, replicates: int = 256, seed: int = 0, confidence: float = 0.999,
                    option: str = "II") -> list:
    """Monte Carlo verdicts of pyfed's SCAFFOLD statements on the implementation's own runs.

    Parameters
    ----------
    adapter : object
        A SCAFFOLD adapter (option II) that conforms (check with :func:`pyfed.conform.conform`).
    statements : list of str | None
        Names in ``lean/Pyfed/Scaffold/Theorems.lean`` (default: ConvexFiniteRoundConvergence and
        NonconvexFiniteRoundConvergence).
    replicates : int >= 2
    seed : int >= 0
    confidence : float
        Level of the Student-t interval.

    Returns
    -------
    list of pyfed.verdicts.Verdict
        One per statement: holds / violated / inconclusive, from the interval of the left side
        (``weightedGap`` or ``averageGradientSq`` of x (R, T+1, d) produced by the adapter) against
        the statement's right side evaluated from its Lean terms (the SCAFFOLD run model's
        :meth:`~pyfed.models.protocol.Model.implementation_rows`); Inconclusive when a hypothesis fails.

    Raises
    ------
    InputError
        Unknown statement, replicates < 2, seed < 0. AdapterError for a broken adapter.
    """

    replicates = check_int("--replicates", replicates, minimum=2)
    seed = check_int("--seed", seed, minimum=0)
    return implementation_rows("scaffold", lambda inst: trajectories(adapter, inst, replicates=replicates, seed=seed,
                                                                     option=option),
                               statements, replicates=replicates, seed=seed, confidence=confidence)
