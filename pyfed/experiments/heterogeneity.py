"""The SCAFFOLD paper's heterogeneity experiment (Table 3) on a bundled dataset: the engine.

Karimireddy et al. (ICML 2020, arXiv:1910.06378v4, Section 7, Table 3) compare SGD, FedAvg,
FedProx (mu = 1) and SCAFFOLD on EMNIST split over N = 100 clients with "s% similarity", S = 20
clients per round, eta_g = 1, 1-20 local epochs of 5 minibatch steps (batch 0.2 of the local
data), eta_l tuned per method, and report the communication rounds until the test accuracy
first reaches 0.5. This module runs the same design through pyfed's vectorised simulators on
multiclass softmax regression (:class:`pyfed.problems.SoftmaxProblem`, scikit-learn's bundled
digits by default) and returns every number; it never prints (the front end is
:mod:`pyfed.commands.experiment`).

Design (every choice is recorded in the result):

* data: a stratified held-out test set (``n_test`` rows), pixels scaled to [0, 1] by the
  training maximum, an intercept column; the training rows are split among N clients by
  :func:`pyfed.data.split` ("similarity" scheme, one split per similarity level, seeded by
  ``data_seed``). Objective f = (1/N) sum_i f_i (equal client sizes: the training risk).
* methods (``eta_g`` = 1, client sampling uniform without replacement, S of N):
  "sgd": large-batch SGD, one step per round: :func:`pyfed.algorithms.fedavg` with K = 1 and a
  per-client minibatch of one epoch's samples (steps_per_epoch x b, drawn with replacement);
  "fedavg": :func:`~pyfed.algorithms.fedavg` (uniform-client mode), K = steps_per_epoch x epochs;
  "fedprox": :func:`~pyfed.algorithms.fedprox` with mu = ``prox_mu`` (local SGD on the proximal
  objective); "scaffold": :func:`~pyfed.algorithms.scaffold`, option II. Local minibatches:
  b = batch_fraction x n_i samples (with replacement, :class:`pyfed.oracles.MinibatchOracle`).
* replicates: the R seeds of a setting run as the R replicates of one vectorised simulation.
  Within one similarity level every method, epoch count and step size uses the same generator
  seed (common random numbers: the same client samples across methods).
* rounds to target of one replicate: the first round r (x_r after r rounds) whose test accuracy
  is >= target (exactly: at least ceil(target x n_test) test rows right); ``None`` ("cap+") if
  never within ``cap`` rounds, or if the iterate became non-finite first (divergence).
* step size: for every (method, similarity, epochs) each eta_l of ``eta_grid`` is scored by the
  mean over replicates of the rounds to target, a replicate that never reaches it counting
  cap + 1; the smallest score wins, ties going to the smaller eta_l.
* early stopping: the simulators run a fixed number of rounds, and a run of T rounds is the
  prefix of a run of T' > T rounds with the same seed (same draws in the same order; checked at
  run time on the last shared iterate). A candidate is therefore simulated to a horizon, and
  re-run to a longer one only while undecided: it stops once every replicate has reached the
  target (or diverged), at the cap, or as soon as even the best case of its unfinished
  replicates (crossing right after the horizon) cannot beat the best score found so far.
  The outcome (the chosen eta_l and every reported number) is that of the full grid search.
* curves: after the choice, every chosen setting of a similarity level is run to a common
  horizon (1.25 x the slowest replicate that reached the target, at least 10 rounds; the cap if
  some replicate did not reach it), and its test accuracy and training loss are recorded at
  every round for the plots and the JSON.

Errors: :class:`pyfed.errors.InputError` naming the configuration field (or the command-line
flag given in ``names``) before any simulation.

Why one module: the experiment's configuration, its runner (early stopping and pruning of the step-
size grid), the table and the paper's findings are one design read top to bottom; the simulators and
problems it uses live elsewhere.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction

import numpy as np

from ..algorithms import fedavg, fedprox, scaffold
from ..data import DATASETS
from ..errors import InputError, check_int
from ..oracles import MinibatchOracle
from ..problems.softmax import SoftmaxProblem

__all__ = ["METHODS", "METHOD_LABELS", "PAPER_TABLE3", "HeterogeneityConfig", "Candidate", "Setting",
           "HeterogeneityResult", "default_config", "validate_config", "run_heterogeneity"]

#: Methods in table order.
METHODS = ("sgd", "scaffold", "fedavg", "fedprox")
METHOD_LABELS = {"sgd": "SGD", "fedavg": "FedAvg", "fedprox": "FedProx", "scaffold": "SCAFFOLD"}

#: Karimireddy et al. (2020), Table 3 (EMNIST, rounds to 0.5 test accuracy) at 0 / 10 / 100 %
#: similarity; None = "1000+". FedProx's row is summarised as the paper's range.
PAPER_TABLE3 = {
    "dataset": "EMNIST", "target": 0.5, "similarities": (0, 10, 100),
    "rows": {
        ("sgd", 1): (317, 365, 416),
        ("scaffold", 1): (77, 62, 60), ("scaffold", 5): (152, 20, 10),
        ("scaffold", 10): (286, 16, 7), ("scaffold", 20): (266, 11, 4),
        ("fedavg", 1): (258, 74, 83), ("fedavg", 5): (428, 34, 10),
        ("fedavg", 10): (711, 25, 6), ("fedavg", 20): (None, 18, 4),
    },
    "fedprox": "1000+ at 0% similarity, 308-979 rounds at 10% and 100%",
}

#: First horizons tried for a candidate before its pruning bound is known (then the cap).
LADDER = (25, 100, 400)


@dataclass(frozen=True)
class HeterogeneityConfig:
    """The experiment's design (defaults: the full run).

    Attributes
    ----------
    methods : tuple of str
        Subset of :data:`METHODS`.
    similarities : tuple of numbers in [0, 100]
        "s% similarity" levels (percent).
    epochs : tuple of int >= 1
        Local epochs of FedAvg / FedProx / SCAFFOLD (K = steps_per_epoch x epochs local steps).
    eta_grid : tuple of float > 0
        Local step sizes eta_l tried for every (method, similarity, epochs).
    replicates : int >= 1
        Seeds per setting (vectorised replicates).
    seed : int >= 0
        Seed of the simulations' generators.
    target : Fraction in (0, 1]
        Test accuracy to reach.
    cap : int >= 1
        Round cap (not reached within cap rounds = "cap+").
    N, S : int
        Clients and clients per round (1 <= S <= N).
    steps_per_epoch : int >= 1
        Local steps per epoch (the paper: 5, with batches of 0.2 of the local data).
    batch_fraction : Fraction in (0, 1]
        Local minibatch size as a fraction of a client's data (rounded to an integer b >= 1).
    eta_g : float > 0
        Global step (the paper: 1).
    prox_mu : float >= 0
        FedProx's proximal weight (the paper: 1).
    lam : float > 0
        L2 weight of the softmax regression (its strong convexity mu).
    dataset : str
        Bundled multiclass dataset (:data:`pyfed.data.DATASETS`), default "digits".
    n_test : int
        Held-out test rows (digits: 297, leaving 1,500 training rows = 15 per client at N = 100).
    data_seed : int >= 0
        Seed of the test split and of the client splits.
    scale : {"max", "standardize"}
        Feature scaling (:func:`pyfed.data.holdout`).
    """

    methods: tuple = ("sgd", "scaffold", "fedavg", "fedprox")
    similarities: tuple = (0, 10, 100)
    epochs: tuple = (1, 5, 10, 20)
    eta_grid: tuple = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0, 10.0)
    replicates: int = 4
    seed: int = 0
    target: Fraction = Fraction(94, 100)
    cap: int = 1000
    N: int = 100
    S: int = 20
    steps_per_epoch: int = 5
    batch_fraction: Fraction = Fraction(1, 5)
    eta_g: float = 1.0
    prox_mu: float = 1.0
    lam: float = 1e-3
    dataset: str = "digits"
    n_test: int = 297
    data_seed: int = 0
    scale: str = "max"

    def to_json(self) -> dict:
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, Fraction):
                v = str(v)
            elif isinstance(v, tuple):
                v = [str(t) if isinstance(t, Fraction) else t for t in v]
            out[f.name] = v
        return out


def default_config(quick: bool = False) -> HeterogeneityConfig:
    """The full run's design, or with ``quick`` a reduced one (0% and 100% similarity, 1 and 5
    epochs, eta_l in {0.3, 1, 3}, 2 replicates, cap 200 rounds) that finishes in well under a
    minute."""
    if not quick:
        return HeterogeneityConfig()
    return HeterogeneityConfig(similarities=(0, 100), epochs=(1, 5), eta_grid=(0.3, 1.0, 3.0),
                               replicates=2, cap=200)


def _name(names, key):
    return (names or {}).get(key, key)


def _fraction(value, what: str, name: str) -> Fraction:
    if isinstance(value, bool):
        raise InputError(name, f"must be {what}, got {value!r}")
    try:
        f = Fraction(str(value)) if not isinstance(value, Fraction) else value
    except (ValueError, ZeroDivisionError):
        raise InputError(name, f"must be {what}, got {value!r}") from None
    return f


def validate_config(cfg: HeterogeneityConfig, names: dict | None = None) -> HeterogeneityConfig:
    """Check every field; return a normalised copy (methods in table order, similarities and
    epochs ascending, eta_grid ascending floats, target and batch_fraction as Fractions).

    ``names`` maps field names to the names the user typed (e.g. {"epochs": "--epochs"}); the
    :class:`InputError` names those. Raises InputError for: unknown/duplicate methods; empty
    lists; similarities outside [0, 100]; epochs not integers >= 1; eta_l not finite > 0;
    replicates, cap, N, steps_per_epoch, n_test not integers >= 1; seeds < 0; S outside [1, N];
    target outside (0, 1]; batch_fraction outside (0, 1]; eta_g, lam not > 0; prox_mu < 0;
    unknown dataset or scale.
    """

    n = lambda k: _name(names, k)  # noqa: E731
    methods = tuple(cfg.methods)
    if not methods:
        raise InputError(n("methods"), "needs at least one method")
    for m in methods:
        if m not in METHODS:
            raise InputError(n("methods"), f"unknown method {m!r}; choose from {', '.join(METHODS)}")
    if len(set(methods)) != len(methods):
        raise InputError(n("methods"), "lists a method twice")
    methods = tuple(m for m in METHODS if m in methods)

    sims = []
    for s in cfg.similarities:
        f = _fraction(s, "a percentage in [0, 100]", n("similarities"))
        if not 0 <= f <= 100:
            raise InputError(n("similarities"), f"must lie in [0, 100] (percent), got {s}")
        sims.append(int(f) if f.denominator == 1 else f)
    if not sims:
        raise InputError(n("similarities"), "needs at least one similarity level")
    if len(set(sims)) != len(sims):
        raise InputError(n("similarities"), "lists a similarity level twice")

    eps = []
    for e in cfg.epochs:
        eps.append(check_int(n("epochs"), e, minimum=1))
    if not eps:
        raise InputError(n("epochs"), "needs at least one epoch count")
    if len(set(eps)) != len(eps):
        raise InputError(n("epochs"), "lists an epoch count twice")

    grid = []
    for v in cfg.eta_grid:
        if isinstance(v, bool):
            raise InputError(n("eta_grid"), f"step sizes must be finite numbers > 0, got {v!r}")
        try:
            fv = float(v)
        except (TypeError, ValueError):
            raise InputError(n("eta_grid"), f"step sizes must be finite numbers > 0, got {v!r}") from None
        if not (math.isfinite(fv) and fv > 0):
            raise InputError(n("eta_grid"), f"step sizes must be finite numbers > 0, got {v!r}")
        grid.append(fv)
    if not grid:
        raise InputError(n("eta_grid"), "needs at least one step size")
    if len(set(grid)) != len(grid):
        raise InputError(n("eta_grid"), "lists a step size twice")

    R = check_int(n("replicates"), cfg.replicates, minimum=1)
    seed = check_int(n("seed"), cfg.seed, minimum=0)
    target = _fraction(cfg.target, "an accuracy in (0, 1]", n("target"))
    if not 0 < target <= 1:
        raise InputError(n("target"), f"must be an accuracy in (0, 1], got {cfg.target}")
    cap = check_int(n("cap"), cfg.cap, minimum=1)
    N = check_int(n("N"), cfg.N, minimum=1)
    S = check_int(n("S"), cfg.S, minimum=1)
    if S > N:
        raise InputError(n("S"), f"clients per round S={S} cannot exceed the number of clients N={N}")
    spe = check_int(n("steps_per_epoch"), cfg.steps_per_epoch, minimum=1)
    bf = _fraction(cfg.batch_fraction, "a fraction in (0, 1]", n("batch_fraction"))
    if not 0 < bf <= 1:
        raise InputError(n("batch_fraction"), f"must be a fraction in (0, 1], got {cfg.batch_fraction}")
    for key in ("eta_g", "lam"):
        v = getattr(cfg, key)
        try:
            fv = float(v)
        except (TypeError, ValueError):
            raise InputError(n(key), f"must be a finite number > 0, got {v!r}") from None
        if isinstance(v, bool) or not (math.isfinite(fv) and fv > 0):
            raise InputError(n(key), f"must be a finite number > 0, got {v!r}")
    try:
        pm = float(cfg.prox_mu)
    except (TypeError, ValueError):
        raise InputError(n("prox_mu"), f"must be a finite number >= 0, got {cfg.prox_mu!r}") from None
    if not (math.isfinite(pm) and pm >= 0):
        raise InputError(n("prox_mu"), f"must be a finite number >= 0, got {cfg.prox_mu!r}")
    if cfg.dataset not in DATASETS or DATASETS[cfg.dataset][1] < 2:
        raise InputError(n("dataset"), f"unknown dataset {cfg.dataset!r}; choose one of {sorted(DATASETS)}")
    n_test = check_int(n("n_test"), cfg.n_test, minimum=1)
    data_seed = check_int(n("data_seed"), cfg.data_seed, minimum=0)
    if cfg.scale not in ("max", "standardize"):
        raise InputError(n("scale"), f"must be 'max' or 'standardize', got {cfg.scale!r}")
    return replace(cfg, methods=methods, similarities=tuple(sorted(sims)), epochs=tuple(sorted(eps)),
                   eta_grid=tuple(sorted(grid)), replicates=R, seed=seed, target=target, cap=cap, N=N, S=S,
                   steps_per_epoch=spe, batch_fraction=bf, eta_g=float(cfg.eta_g), prox_mu=pm,
                   lam=float(cfg.lam), n_test=n_test, data_seed=data_seed)


# ----------------------------------------------------------------------------------------
# results
# ----------------------------------------------------------------------------------------

@dataclass
class Candidate:
    """One step size eta_l tried for one setting.

    Attributes
    ----------
    eta : float;  index : int (position in the ascending grid)
    rounds : list of (int | None), length R
        Rounds to target per replicate; None = not reached within ``horizon`` rounds.
    diverged_at : list of (int | None)
        First round with a non-finite iterate, per replicate (None: finite up to ``horizon``).
    horizon : int
        Rounds simulated (the last run's T).
    status : "decided" | "pruned"
        decided: every replicate reached the target or diverged, or the cap was run;
        pruned: stopped because it could no longer beat the best score.
    score : Fraction
        decided: mean over replicates of the rounds (cap + 1 for a replicate that never
        reaches the target); pruned: a lower bound on that mean.
    test_correct : ndarray int (R, horizon + 1)
        Correct test rows of x_0 .. x_horizon per replicate.
    runs : list of int
        Horizons of the simulations made (each a re-run from round 0).
    """

    eta: float
    index: int
    rounds: list
    diverged_at: list
    horizon: int
    status: str
    score: Fraction
    test_correct: np.ndarray
    runs: list = field(default_factory=list)

    def to_json(self, n_test: int) -> dict:
        return {"eta_l": self.eta, "status": self.status, "score": float(self.score),
                "score_is_lower_bound": self.status == "pruned", "rounds": self.rounds,
                "diverged_at": self.diverged_at, "horizon": self.horizon, "simulated_horizons": self.runs,
                "test_correct": self.test_correct.tolist()}


@dataclass
class Setting:
    """One (method, similarity, epochs) cell of the table.

    Attributes
    ----------
    method : str;  similarity : int | Fraction;  epochs : int
    K : int -- local steps per round (1 for SGD);  b : int -- per-client minibatch per step
    candidates : list of Candidate (in the order evaluated)
    chosen : Candidate -- the winning eta_l
    curve_horizon : int
    test_correct : ndarray int (R, curve_horizon + 1)
    train_loss : ndarray float (R, curve_horizon + 1) -- f(x_r); nan where x_r is non-finite
    local_steps : int -- local steps simulated for this setting (all runs, all replicates counted once)
    seconds : float
    """

    method: str
    similarity: object
    epochs: int
    K: int
    b: int
    candidates: list = field(default_factory=list)
    chosen: Candidate | None = None
    curve_horizon: int = 0
    test_correct: np.ndarray | None = None
    train_loss: np.ndarray | None = None
    local_steps: int = 0
    seconds: float = 0.0

    @property
    def rounds(self) -> list:
        return self.chosen.rounds

    def reached(self) -> int:
        return sum(r is not None for r in self.rounds)

    def complete(self) -> bool:
        return self.reached() == len(self.rounds)

    def mean_rounds(self) -> float | None:
        """Mean rounds to target over replicates, None unless every replicate reached it."""
        return float(np.mean(self.rounds)) if self.complete() else None


@dataclass
class HeterogeneityResult:
    """Everything the experiment computed (see :func:`run_heterogeneity`).

    Attributes
    ----------
    config : HeterogeneityConfig (validated)
    target_correct : int -- ceil(target x n_test)
    problems : dict similarity -> dict (constants, x* test accuracy, labels per client, ...)
    settings : list of Setting (SGD once per similarity, epochs recorded as 1)
    seconds : float -- wall time
    local_steps : int -- total simulated local steps (replicates counted once)
    """

    config: HeterogeneityConfig
    target_correct: int
    problems: dict
    settings: list
    seconds: float = 0.0
    local_steps: int = 0

    def setting(self, method: str, similarity, epochs: int | None = None) -> Setting | None:
        for s in self.settings:
            if s.method == method and s.similarity == similarity and (method == "sgd" or s.epochs == epochs):
                return s
        return None

    def row_keys(self) -> list:
        """(method, epochs) rows of the table in the paper's order (SGD first, epochs ascending)."""
        keys = []
        for m in self.config.methods:
            for e in ((1,) if m == "sgd" else self.config.epochs):
                keys.append((m, e))
        return keys

    def speedup(self, s: Setting) -> dict:
        """Speed-up over SGD at the same similarity: SGD's score / this score.

        Returns {"value": float | None, "text": str}. Exact means when both are complete;
        "<x" (this setting censored at the cap: at most x) or ">x" (SGD censored); None when
        both are censored or SGD was not run."""
        sgd = self.setting("sgd", s.similarity)
        if sgd is None:
            return {"value": None, "text": ""}
        cap = self.config.cap
        a, b = sgd.mean_rounds(), s.mean_rounds()
        if a is not None and b is not None:
            v = a / b
            return {"value": v, "text": f"{v:.2g}×" if v < 10 else f"{v:.0f}×"}
        if a is not None:    # this setting needs more than cap rounds: speed-up < a / cap
            return {"value": None, "text": f"<{bound_text(Fraction(a) / cap, 'up')}×"}
        if b is not None:    # SGD needs more than cap rounds: speed-up > cap / b
            return {"value": None, "text": f">{bound_text(cap / Fraction(b), 'down')}×"}
        return {"value": None, "text": "-"}

    def cell(self, method: str, epochs: int, similarity) -> dict | None:
        """Table cell: mean (or "cap+"), spread [min, max] over replicates, speed-up, chosen eta."""
        s = self.setting(method, similarity, epochs)
        if s is None:
            return None
        cap = self.config.cap
        reached = [r for r in s.rounds if r is not None]
        m = s.mean_rounds()
        if m is not None:
            text = f"{m:.0f}" if m >= 100 else f"{m:.3g}"
        else:
            text = f"{cap}+"
        spread = f"{min(reached)}-{max(reached)}" if reached else ""
        if reached and not s.complete():
            spread = f"{len(reached)}/{len(s.rounds)} reached"
        edge = s.chosen.index in (0, len(self.config.eta_grid) - 1) and len(self.config.eta_grid) > 1
        return {"mean": m, "text": text, "spread": spread, "rounds": s.rounds, "speedup": self.speedup(s),
                "eta": s.chosen.eta, "eta_at_grid_edge": bool(edge), "reached": len(reached)}

    def table(self) -> list:
        """Rows [{"method", "epochs", "cells": {similarity: cell}}] in the paper's layout."""
        return [{"method": m, "epochs": e, "cells": {str(sim): self.cell(m, e, sim)
                                                     for sim in self.config.similarities}}
                for m, e in self.row_keys()]

    def findings(self) -> list:
        """The paper's qualitative findings, each checked on this run: list of
        {"claim", "verdict": "reproduced" | "not reproduced" | "not tested", "evidence"}."""
        return _findings(self)

    def to_json(self) -> dict:
        cfg = self.config
        out = {
            "experiment": "heterogeneity (Karimireddy et al. 2020, Section 7, Table 3)",
            "config": cfg.to_json(),
            "target": str(cfg.target), "n_test": cfg.n_test, "target_correct": self.target_correct,
            "rounds_definition": "first r with test_correct[r] >= target_correct (x_r = model after r rounds); "
                                 "null = not reached within the cap (or the run diverged first)",
            "problems": {str(k): v for k, v in self.problems.items()},
            "settings": [],
            "table": self.table(),
            "findings": self.findings(),
            "paper": {"dataset": PAPER_TABLE3["dataset"], "target": PAPER_TABLE3["target"],
                      "similarities": list(PAPER_TABLE3["similarities"]),
                      "rows": [{"method": m, "epochs": e, "rounds": list(v)}
                               for (m, e), v in PAPER_TABLE3["rows"].items()],
                      "fedprox": PAPER_TABLE3["fedprox"]},
            "seconds": self.seconds, "local_steps": self.local_steps,
        }
        for s in self.settings:
            loss = [[None if not math.isfinite(v) else float(f"{v:.7g}") for v in row] for row in s.train_loss]
            out["settings"].append({
                "method": s.method, "similarity": str(s.similarity), "epochs": s.epochs, "K": s.K, "b": s.b,
                "eta_l": s.chosen.eta, "rounds": s.rounds, "mean_rounds": s.mean_rounds(),
                "reached": s.reached(), "speedup": self.speedup(s)["value"],
                "candidates": [c.to_json(cfg.n_test) for c in s.candidates],
                "curve": {"horizon": s.curve_horizon, "test_correct": s.test_correct.tolist(), "train_loss": loss},
                "local_steps": s.local_steps, "seconds": round(s.seconds, 3)})
        return out


# ----------------------------------------------------------------------------------------
# the run
# ----------------------------------------------------------------------------------------

def bound_text(value, direction: str, digits: int = 2) -> str:
    """``value`` (> 0) to ``digits`` significant digits, rounded ``"up"`` or ``"down"`` exactly, so
    that a printed bound stays a bound: ``bound_text(Fraction(317, 1000), "up") == "0.32"`` (for
    "< 0.32×"), ``bound_text(Fraction(317, 1000), "down") == "0.31"``; never in exponent form."""
    v = Fraction(value)
    if v <= 0:
        return "0"
    e = math.floor(math.log10(v)) - digits + 1
    while v >= Fraction(10) ** (e + digits):     # log10 of a float can be one off
        e += 1
    while v < Fraction(10) ** (e + digits - 1):
        e -= 1
    scaled = v / Fraction(10) ** e
    k = math.ceil(scaled) if direction == "up" else math.floor(scaled)
    out = Fraction(k) * Fraction(10) ** e
    if out.denominator == 1:
        return str(out.numerator)
    places = max(0, -e)
    text = f"{float(out):.{places}f}" if places < 17 else str(out)
    return text.rstrip("0").rstrip(".") if "." in text else text


def _sim_key(similarity) -> int:
    """An integer naming a similarity level in seeds (percent x 1000, rounded)."""
    return int(round(Fraction(similarity) * 1000))


class _Runner:
    """Simulates and scores candidates of one similarity level (internal)."""

    def __init__(self, cfg: HeterogeneityConfig, problem, similarity, target_correct: int, b: int, tick):

        self.cfg, self.problem, self.similarity = cfg, problem, similarity
        self.target_correct = target_correct
        self.b = b
        self.oracle = MinibatchOracle(problem, b)
        self.sgd_oracle = MinibatchOracle(problem, b * cfg.steps_per_epoch)
        self.tick = tick

    def simulate(self, setting: Setting, eta: float, T: int) -> np.ndarray:
        """x of a run of T rounds, shape (R, T + 1, d). Same seed for every call of this level."""

        cfg, P = self.cfg, self.problem
        rng = np.random.default_rng([cfg.seed, _sim_key(self.similarity)])
        common = dict(S=cfg.S, T=T, eta_l=eta, eta_g=cfg.eta_g, R=cfg.replicates, rng=rng)
        with np.errstate(all="ignore"):  # a diverging step size overflows; it is detected below
            if setting.method == "sgd":
                tr = fedavg(P, self.sgd_oracle, K=1, mode="uniform", **common)
            elif setting.method == "fedavg":
                tr = fedavg(P, self.oracle, K=setting.K, mode="uniform", **common)
            elif setting.method == "fedprox":
                tr = fedprox(P, self.oracle, K=setting.K, mu=cfg.prox_mu, **common)
            else:
                tr = scaffold(P, self.oracle, K=setting.K, option="II", **common)
        setting.local_steps += T * setting.K
        return tr.x

    def candidate(self, setting: Setting, eta: float, index: int, best: Candidate | None):
        """Score one eta_l (early stopping and pruning as in the module docstring).

        Returns (Candidate, x of its last run (R, horizon + 1, d))."""
        cfg = self.cfg
        R, cap = cfg.replicates, cfg.cap
        rounds: list = [None] * R
        diverged: list = [None] * R
        correct = np.zeros((R, 0), dtype=np.int64)
        H, x_last, x, runs = -1, None, None, []
        status = "decided"
        while True:
            resolved = [rounds[s] is not None or diverged[s] is not None for s in range(R)]
            ladder = next((h for h in LADDER if h > H), cap)
            T = ladder
            if best is not None:
                A = sum((rounds[s] if rounds[s] is not None else cap + 1) for s in range(R) if resolved[s])
                u = R - sum(resolved)
                # smallest horizon at which "no unfinished replicate crosses" prunes this candidate:
                # run straight to it unless it is far beyond the next rung of the ladder
                need = math.ceil((R * best.score - A) / u) - 1
                if need <= 4 * ladder:
                    T = need
            T = min(cap, T)
            if T <= H:  # degenerate tie case: still grow geometrically
                T = min(cap, 2 * H + 1)
            self.tick(f"{_label(setting)}  eta_l={eta:g}  rounds <= {T}")
            x = self.simulate(setting, eta, T)
            runs.append(T)
            if x_last is not None and not np.array_equal(x[:, H], x_last, equal_nan=True):
                raise RuntimeError("the simulator is not prefix-consistent: a longer run with the same seed "
                                   "changed an earlier round; early stopping would be wrong")
            new = x[:, H + 1:T + 1]
            c_new = self.problem.test_correct(new)
            fin = np.all(np.isfinite(new), axis=-1)
            for s in range(R):
                if rounds[s] is None and diverged[s] is None:
                    hit = np.flatnonzero(c_new[s] >= self.target_correct)
                    bad = np.flatnonzero(~fin[s])
                    first_hit = int(hit[0]) if hit.size else None
                    first_bad = int(bad[0]) if bad.size else None
                    if first_hit is not None and (first_bad is None or first_hit < first_bad):
                        rounds[s] = H + 1 + first_hit
                    elif first_bad is not None:
                        diverged[s] = H + 1 + first_bad
                elif diverged[s] is None:
                    bad = np.flatnonzero(~fin[s])
                    if bad.size:
                        diverged[s] = H + 1 + int(bad[0])
            correct = np.concatenate([correct, c_new], axis=1)
            H, x_last = T, x[:, T].copy()
            unresolved = [s for s in range(R) if rounds[s] is None and diverged[s] is None]
            if not unresolved or H >= cap:
                score = Fraction(sum(r if r is not None else cap + 1 for r in rounds), R)
                break
            lb = Fraction(sum(rounds[s] if rounds[s] is not None else (cap + 1 if diverged[s] is not None else H + 1)
                              for s in range(R)), R)
            if best is not None and (lb > best.score or (lb == best.score and index > best.index)):
                status, score = "pruned", lb
                break
        cand = Candidate(eta=eta, index=index, rounds=rounds, diverged_at=diverged, horizon=H, status=status,
                         score=score, test_correct=correct, runs=runs)
        return cand, x

    def select(self, setting: Setting, start: int) -> np.ndarray:
        """Evaluate the grid for one setting, starting at index ``start`` and moving outwards;
        sets setting.candidates / chosen; returns the chosen candidate's last x."""
        grid = self.cfg.eta_grid
        order = [start]
        for k in range(1, len(grid)):
            for j in (start + k, start - k):
                if 0 <= j < len(grid):
                    order.append(j)
        best, best_x = None, None
        for j in order:
            cand, x = self.candidate(setting, grid[j], j, best)
            setting.candidates.append(cand)
            if cand.status == "decided" and (best is None or (cand.score, cand.index) < (best.score, best.index)):
                best, best_x = cand, x
        setting.chosen = best
        return best_x

    def curves(self, setting: Setting, x: np.ndarray, horizon: int) -> None:
        """Record test accuracy and training loss of the chosen run for rounds 0..horizon."""
        ch = setting.chosen
        if x.shape[1] - 1 < horizon:
            self.tick(f"{_label(setting)}  curve to round {horizon}")
            x_new = self.simulate(setting, ch.eta, horizon)
            if not np.array_equal(x_new[:, ch.horizon], x[:, ch.horizon], equal_nan=True):
                raise RuntimeError("the simulator is not prefix-consistent (curve extension)")
            x = x_new
        x = x[:, :horizon + 1]
        correct = np.concatenate([ch.test_correct[:, :horizon + 1],
                                  self.problem.test_correct(x[:, ch.horizon + 1:])], axis=1) \
            if horizon > ch.horizon else ch.test_correct[:, :horizon + 1]
        setting.curve_horizon = horizon
        setting.test_correct = correct
        with np.errstate(all="ignore"):
            loss = self.problem.value(x)
        loss[~np.all(np.isfinite(x), axis=-1)] = np.nan
        setting.train_loss = loss


def _label(s: Setting) -> str:
    ep = "1 step" if s.method == "sgd" else f"E={s.epochs}"
    return f"{METHOD_LABELS[s.method]} {ep} s={s.similarity}%"


def run_heterogeneity(cfg: HeterogeneityConfig | None = None, *, progress=None,
                      names: dict | None = None) -> HeterogeneityResult:
    """Run the experiment.

    Parameters
    ----------
    cfg : HeterogeneityConfig | None
        The design (default: :func:`default_config`); validated first.
    progress : callable(advance: float, description: str) | None
        Called as work proceeds; the advances sum to :func:`work_units` (cfg) (one unit per
        setting's selection and one per its curve).
    names : dict | None
        Field -> user-facing name for error messages (see :func:`validate_config`).

    Returns
    -------
    HeterogeneityResult

    Raises
    ------
    InputError
        Invalid configuration (before any simulation), a dataset/split that cannot be made
        (e.g. N larger than the training rows), or a minibatch b = round(batch_fraction x n_i) < 1.
    """

    cfg = validate_config(cfg or default_config(), names)
    t0 = time.perf_counter()
    tick = (lambda desc: progress(0, desc)) if progress else (lambda desc: None)
    adv = (lambda k, desc: progress(k, desc)) if progress else (lambda k, desc: None)
    n = lambda k: _name(names, k)  # noqa: E731

    # problems first: every input error surfaces before the long work
    problems = {}
    for sim in cfg.similarities:
        tick(f"building the {cfg.dataset} problem at {sim}% similarity")
        try:
            P = SoftmaxProblem.from_dataset(cfg.dataset, cfg.N, "similarity", cfg.data_seed, lam=cfg.lam,
                                            n_test=cfg.n_test, scale=cfg.scale, similarity=sim, solve=False)
        except InputError as exc:
            key = {"N": "N", "n_test": "n_test", "lam": "lam"}.get(exc.argument, exc.argument)
            raise InputError(n(key), exc.reason) from None
        problems[sim] = P
    sizes = next(iter(problems.values())).counts
    b = round(cfg.batch_fraction * int(np.median(sizes)))
    if b < 1:
        raise InputError(n("batch_fraction"), f"{cfg.batch_fraction} of the median client size {int(np.median(sizes))} "
                                              "rounds to a minibatch of 0 samples")
    n_test = next(iter(problems.values())).y_test.size
    target_correct = math.ceil(cfg.target * n_test)

    # x*: Newton once, warm-started across levels (same training rows: one step or none)
    prev = None
    info = {}
    for sim, P in problems.items():
        tick(f"Newton's method for x* at {sim}% similarity")
        P.solve(None if prev is None else prev.x_star)
        prev = P
        labels_per_client = [int(np.unique(P.labels[P.offsets[i]:P.offsets[i + 1]]).size) for i in range(P.N)]
        info[sim] = {**P.describe(), "p": P.p, "C": P.C, "n_train": int(P.labels.size), "n_test": int(P.y_test.size),
                     "client_sizes": [int(sizes.min()), int(sizes.max())], "b": b,
                     "sgd_batch_per_client": b * cfg.steps_per_epoch,
                     "labels_per_client_mean": float(np.mean(labels_per_client)),
                     "labels_per_client_max": int(max(labels_per_client)),
                     "x_star_test_accuracy": float(P.test_accuracy(P.x_star)),
                     "x_star_test_correct": int(P.test_correct(P.x_star)),
                     "f_star": P.f_star, "newton_iterations": P.newton_iterations}

    settings = []
    for sim, P in problems.items():
        runner = _Runner(cfg, P, sim, target_correct, b, tick)
        level = []
        xs = {}
        mid = len(cfg.eta_grid) // 2
        prev_choice = {}
        for m in cfg.methods:
            for e in ((1,) if m == "sgd" else cfg.epochs):
                s = Setting(method=m, similarity=sim, epochs=e, K=1 if m == "sgd" else cfg.steps_per_epoch * e,
                            b=b * cfg.steps_per_epoch if m == "sgd" else b)
                t = time.perf_counter()
                xs[id(s)] = runner.select(s, prev_choice.get(m, mid))
                prev_choice[m] = s.chosen.index
                s.seconds = time.perf_counter() - t
                level.append(s)
                adv(1, f"{_label(s)}: eta_l = {s.chosen.eta:g}")
        worst = 0
        for s in level:
            if not s.complete():
                worst = None
                break
            worst = max(worst, max(s.rounds))
        horizon = cfg.cap if worst is None else min(cfg.cap, max(10, math.ceil(1.25 * worst)))
        for s in level:
            t = time.perf_counter()
            runner.curves(s, xs.pop(id(s)), horizon)
            s.seconds += time.perf_counter() - t
            adv(1, f"{_label(s)}: curve to round {horizon}")
        settings.extend(level)

    res = HeterogeneityResult(config=cfg, target_correct=target_correct, problems=info, settings=settings)
    res.seconds = time.perf_counter() - t0
    res.local_steps = sum(s.local_steps for s in settings)
    return res


def work_units(cfg: HeterogeneityConfig) -> int:
    """Total progress units of :func:`run_heterogeneity` for a validated config."""
    per_level = sum(1 if m == "sgd" else len(cfg.epochs) for m in cfg.methods)
    return 2 * per_level * len(cfg.similarities)


# ----------------------------------------------------------------------------------------
# the paper's qualitative findings, checked
# ----------------------------------------------------------------------------------------



def _range(s: Setting, cap: int):
    vals = [r if r is not None else cap + 1 for r in s.rounds]
    return min(vals), max(vals)


def _not_slower(a: Setting, b: Setting, cap: int) -> bool:
    """a is faster than or tied with b: a's score <= b's, or their replicate ranges overlap."""
    if a.chosen.score <= b.chosen.score:
        return True
    lo_a, _ = _range(a, cap)
    _, hi_b = _range(b, cap)
    return lo_a <= hi_b


def _monotone(seq: list, cap: int, *, slower: bool) -> bool:
    """Rounds grow (slower=True) or shrink along seq up to ties (overlapping replicate ranges),
    and the last setting's score is strictly beyond the first's in that direction."""
    for a, b in zip(seq, seq[1:]):
        if not (_not_slower(a, b, cap) if slower else _not_slower(b, a, cap)):
            return False
    first, last = seq[0].chosen.score, seq[-1].chosen.score
    return last > first if slower else last < first


def _spread(s: Setting, cap: int) -> str:
    lo, hi = _range(s, cap)
    return f"{lo}-{hi}" if hi <= cap else f"{lo}-{cap}+"


def _fmt(s: Setting, cap: int) -> str:
    m = s.mean_rounds()
    return f"{m:.3g}" if m is not None else f"{cap}+"


def _findings(res: HeterogeneityResult) -> list:
    cfg, cap = res.config, res.config.cap
    sims, eps, have = cfg.similarities, cfg.epochs, set(cfg.methods)
    out = []

    def add(claim, ok, evidence):
        out.append({"claim": claim, "verdict": "not tested" if ok is None else
                    ("reproduced" if ok else "not reproduced"), "evidence": evidence})

    # 1. SCAFFOLD fastest or tied
    if "scaffold" in have and len(have) > 1:
        bad = []
        for sim in sims:
            for e in eps:
                sc = res.setting("scaffold", sim, e)
                for m in ("sgd", "fedavg", "fedprox"):
                    o = res.setting(m, sim, e)
                    if m in have and o is not None and not _not_slower(sc, o, cap):
                        bad.append(f"s={sim}% E={e}: SCAFFOLD {_fmt(sc, cap)} vs {METHOD_LABELS[m]} {_fmt(o, cap)}")
        add("SCAFFOLD is the fastest method or tied (overlapping replicate ranges) in every setting",
            not bad, "; ".join(bad) if bad else "no setting where another method is faster beyond the replicate spread")
    else:
        add("SCAFFOLD is the fastest method or tied in every setting", None, "needs SCAFFOLD and another method")

    # 2. SCAFFOLD never slower than SGD
    if {"scaffold", "sgd"} <= have:
        bad = [f"s={sim}% E={e}: {_fmt(res.setting('scaffold', sim, e), cap)} vs SGD {_fmt(res.setting('sgd', sim), cap)}"
               for sim in sims for e in eps
               if not _not_slower(res.setting("scaffold", sim, e), res.setting("sgd", sim), cap)]
        add("SCAFFOLD is never slower than SGD", not bad, "; ".join(bad) if bad else "in every setting")
    else:
        add("SCAFFOLD is never slower than SGD", None, "needs SCAFFOLD and SGD")

    # 3. at 0% FedAvg gets worse with epochs, and falls behind SGD beyond ~5 epochs
    if "fedavg" in have and 0 in sims and len(eps) > 1:
        seq = [res.setting("fedavg", 0, e) for e in eps]
        ok = _monotone(seq, cap, slower=True)
        add("At 0% similarity FedAvg needs more rounds as the local epochs grow (each step slower or tied "
            "within the seeds' spread, the largest epoch count slower than the smallest)", ok,
            "FedAvg at 0%: " + ", ".join(f"E={e}: {_fmt(s, cap)} [{_spread(s, cap)}]" for e, s in zip(eps, seq)))
        if "sgd" in have:
            sgd = res.setting("sgd", 0)
            late = [(e, s) for e, s in zip(eps, seq) if e >= 5]
            ok2 = bool(late) and all(s.chosen.score > sgd.chosen.score for _, s in late)
            add("At 0% similarity FedAvg with 5 or more epochs is slower than SGD", ok2 if late else None,
                f"SGD {_fmt(sgd, cap)}; " + ", ".join(f"FedAvg E={e}: {_fmt(s, cap)}" for e, s in late))
    else:
        add("At 0% similarity FedAvg needs more rounds as the local epochs grow", None,
            "needs FedAvg, 0% similarity and two epoch counts")

    # 4. with similarity, local methods speed up with epochs
    pos = [s for s in sims if s > 0]
    ms = [m for m in ("fedavg", "scaffold") if m in have]
    claim = ("With similarity (s > 0), FedAvg and SCAFFOLD need fewer rounds as the epochs grow (each step "
             "faster or tied within the seeds' spread, the largest epoch count faster than the smallest)")
    if pos and ms and len(eps) > 1:
        bad, ev = [], []
        for sim in pos:
            for m in ms:
                seq = [res.setting(m, sim, e) for e in eps]
                ev.append(f"{METHOD_LABELS[m]} s={sim}%: " + " > ".join(f"{_fmt(s, cap)} [{_spread(s, cap)}]"
                                                                       for s in seq))
                if not _monotone(seq, cap, slower=False):
                    bad.append(f"{METHOD_LABELS[m]} at {sim}%")
        add(claim, not bad, ("not monotone: " + ", ".join(bad) + ". " if bad else "") + "; ".join(ev))
    else:
        add(claim, None, "needs a similarity > 0, FedAvg or SCAFFOLD and two epoch counts")

    # 5. SGD insensitive to similarity
    if "sgd" in have and len(sims) > 1:
        ss = [res.setting("sgd", sim) for sim in sims]
        sc = [float(s.chosen.score) for s in ss]
        ratio = max(sc) / min(sc)
        add("SGD is insensitive to similarity (rounds within a factor 1.5 across levels; the paper: 1.31)",
            ratio <= 1.5, "SGD: " + ", ".join(f"{sim}%: {_fmt(s, cap)}" for sim, s in zip(sims, ss))
            + f" (max/min {ratio:.2f})")
    else:
        add("SGD is insensitive to similarity", None, "needs SGD and two similarity levels")

    # 6. FedProx slowest local method
    others = [m for m in ("fedavg", "scaffold") if m in have]
    if "fedprox" in have and others:
        bad = []
        for sim in sims:
            for e in eps:
                fp = res.setting("fedprox", sim, e)
                for m in others:
                    o = res.setting(m, sim, e)
                    if not _not_slower(o, fp, cap):
                        bad.append(f"s={sim}% E={e}: FedProx {_fmt(fp, cap)} vs {METHOD_LABELS[m]} {_fmt(o, cap)}")
        add("FedProx is the slowest local method (or tied) in every setting", not bad,
            "; ".join(bad) if bad else "in every setting")
    else:
        add("FedProx is the slowest local method", None, "needs FedProx and FedAvg or SCAFFOLD")
    return out
