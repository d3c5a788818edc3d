"""Search by optimisation: a statement as "maximise (left − right) / scale over everything it
quantifies over, inside its hypotheses", written once for every model.

The model describes the statement's search space (:meth:`pyfed.models.protocol.Model.search_space`:
configurations of naturals and function families, continuous axes on logarithmic scales, seed
points) and decides any point exactly (:meth:`~pyfed.models.protocol.Model.evaluate_point`); the
engine spends a fixed number of exact decisions in three stages:

1. *screening*: every configuration in the model's order, its seeds and a few scrambled Sobol
   points (``scipy.stats.qmc.Sobol`` seeded from ``[seed, configuration]``);
2. *focus*: more Sobol points in the configurations whose best margin is highest;
3. *local optimisation*: Nelder–Mead (``scipy.optimize.minimize``, bounded to the unit cube) from
   the best points found, on the margin (a float computed from the exact sides: it only steers);
4. *simpler witness*: a violation found is decided again with each number replaced by the simplest
   rational within 30 %, 10 %, 3 %, 1 % of it (:func:`~pyfed.engines.search.space.coarse_numbers`);
   the coarsest that still violates, re-checked, is the witness.

Every point is decided exactly by the model; the first violation is turned into the model's own
verdict (:meth:`~pyfed.models.protocol.Model.search_verdict`) and re-checked from its witness alone
(:meth:`~pyfed.models.protocol.Model.recheck`) before it is reported: no false alarm. The result is a
pure function of ``(statement, seed, quick)``: the engine is serial and every random draw comes from
``numpy.random.default_rng`` / ``Sobol(seed=...)`` seeded from ``seed``, so it does not depend on
worker counts. Engines never print; ``progress(label)`` names the stage that runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .space import PointOutcome, SearchSpace, coarse_numbers

__all__ = ["Optimised", "optimise", "DEFAULT_DECISIONS", "QUICK_DECISIONS"]

#: Exact decisions spent per statement by default (and with ``--quick``), times the space's ``scale``.
DEFAULT_DECISIONS = 480
QUICK_DECISIONS = 64


@dataclass
class Optimised:
    """What the search by optimisation did: ``records`` (the model's record of every exact
    decision, in order), ``verdict`` (the re-checked violation, or None), ``evaluations`` (exact
    decisions spent), ``space`` (the model's :class:`SearchSpace`), ``best`` ((margin, description)
    of the point closest to a violation), ``stages`` (what ran, in words), ``rejected`` (violations
    the re-check did not confirm: never reported as such)."""

    records: list = field(default_factory=list)
    verdict: object = None
    evaluations: int = 0
    space: SearchSpace | None = None
    best: tuple = (None, "")
    stages: list = field(default_factory=list)
    rejected: int = 0

    def reach(self) -> dict:
        """How far the search went (:meth:`SearchSpace.reach`) plus the closest point's margin
        (none for an equation that held at every decided point: it held exactly)."""
        out = self.space.reach(self.evaluations) if self.space is not None else {"points": self.evaluations}
        if self.best[0] is not None:
            out["closest"] = {"margin": round(float(self.best[0]), 6), "instance": self.best[1]}
        out["stages"] = list(self.stages)
        return out


class _Stop(Exception):
    pass


class _Run:
    """One optimisation: the memo of decided points, the budget, the stop on a confirmed violation."""

    def __init__(self, st, space, *, seed, budget, start_index, records_seed, records_budget, progress):
        self.st, self.space, self.seed, self.budget = st, space, int(seed), int(budget)
        self.index = int(start_index)
        self.memo: dict = {}
        self.out = Optimised(space=space)
        self.records_seed, self.records_budget = records_seed, records_budget
        self.progress = progress
        self.points: list = []          # (margin, config index, unit point)
        self.coarse = None              # the relative tolerance of simpler numbers (the last stage)
        self.found = None               # (config index, unit point) of the confirmed violation

    def evaluate(self, k: int, u) -> float:
        """Decide point ``u`` of configuration ``k`` exactly; returns the margin for the optimiser
        (−2 when there is no number: outside the hypotheses or undecided)."""
        cfg = self.space.configs[k]
        u = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
        key = (k, tuple(np.round(u, 6)), self.coarse)
        if key in self.memo:
            return self.memo[key]
        if self.out.evaluations >= self.budget and self.coarse is None:
            raise _Stop()
        self.out.evaluations += 1
        try:
            with coarse_numbers(self.coarse):
                res = self.st.model.evaluate_point(self.st, cfg, cfg.values(u), index=self.index)
        except Exception as exc:          # noqa: BLE001 -- one undecidable point never stops the search
            res = PointOutcome("undecided", None, None, f"{cfg.label}: {type(exc).__name__}: {exc}")
        self.index += 1
        if res.record is not None:
            self.out.records.append(res.record)
        m = -2.0 if res.margin is None or not np.isfinite(res.margin) else float(res.margin)
        self.memo[key] = m
        if res.margin is not None and (self.out.best[0] is None or m > self.out.best[0]):
            self.out.best = (m, res.description or cfg.label)
        self.points.append((m, k, u))
        if res.status == "violated" and res.record is not None:
            self._confirm(res.record, k, u)
        return m

    def _confirm(self, record, k, u) -> None:
        """The model's verdict of a violated record, re-checked from its witness alone; a
        confirmed one stops the search."""
        model = self.st.model
        v = model.search_verdict(self.st, [record], seed=self.records_seed, budget=self.records_budget)
        if v.status != "violated":
            self.out.rejected += 1
            return
        try:
            again = model.recheck(self.st, v.witness or {})
        except Exception:                 # noqa: BLE001 -- a witness that cannot be re-read is no witness
            again = None
        if getattr(again, "status", None) == "violated":
            self.out.verdict = v
            self.found = (k, u)
            raise _Stop()
        self.out.rejected += 1

    def simplify(self, tell) -> None:
        """Re-decide the confirmed violation with simpler numbers (each real the simplest rational
        within 30 %, 10 %, 3 %, 1 % of its value): the coarsest that still violates, re-checked,
        becomes the witness."""
        k, u = self.found
        tell("search by optimisation: the witness with simpler numbers")
        for rel in (0.3, 0.1, 0.03, 0.01):
            self.coarse = rel
            try:
                self.evaluate(k, u)
            except _Stop:
                self.out.stages.append(f"witness with numbers within {int(rel * 100)} %")
                break
        self.coarse = None


def _sobol(n_axes: int, n: int, seed) -> np.ndarray:
    if n <= 0:
        return np.zeros((0, n_axes))
    if n_axes == 0:
        return np.zeros((1, 0))
    from scipy.stats import qmc
    m = int(np.ceil(np.log2(max(n, 2))))
    pts = qmc.Sobol(d=n_axes, scramble=True, seed=np.random.default_rng(seed)).random_base2(m)
    return pts[:n]


def optimise(st, *, seed: int = 0, quick: bool = False, start_index: int = 0, budget: int | None = None,
             record_budget: int = 0, progress=None) -> Optimised:
    """Search ``st`` by optimisation over its model's search space (module docstring).

    seed : every draw derives from it; quick : the small budget (:data:`QUICK_DECISIONS`);
    start_index : the first record's index (records continue the model's own search's numbering);
    budget : exact decisions to spend (default from ``quick`` times the space's ``scale``);
    record_budget : the budget recorded in a verdict's details (the model's search budget);
    progress : callable(label) told each stage. Raises :class:`pyfed.models.protocol.NotProvided`
    when the model has no search space for ``st``."""
    space = st.model.search_space(st, quick=quick, seed=seed)
    if budget is None:
        budget = int(round((QUICK_DECISIONS if quick else DEFAULT_DECISIONS) * max(space.scale, 0.05)))
    run = _Run(st, space, seed=seed, budget=max(1, budget), start_index=start_index, records_seed=seed,
               records_budget=record_budget, progress=progress)
    tell = progress or (lambda label: None)
    try:
        _screen(run, tell, quick)
        _focus(run, tell, quick)
        _local(run, tell, quick)
    except _Stop:
        pass
    if run.found is not None:
        run.simplify(tell)
    if getattr(st, "relation", "≤") == "=" and run.out.verdict is None:
        run.out.best = (None, "")       # an equation that held everywhere has no closest margin to report
    return run.out


def _screen(run: _Run, tell, quick: bool) -> None:
    configs = run.space.configs
    if not configs:
        return
    tell(f"search by optimisation: screening {len(configs)} configuration{'s' if len(configs) != 1 else ''}")
    run.out.stages.append(f"screening of {len(configs)} configurations")
    share = max(2, min(8 if not quick else 3, (run.budget // 2) // max(len(configs), 1)))
    for k, cfg in enumerate(configs):
        for u in cfg.seeds:
            run.evaluate(k, u)
        n = share if cfg.axes else 1
        for u in _sobol(len(cfg.axes), n, [run.seed, 1, k]):
            run.evaluate(k, u)


def _focus(run: _Run, tell, quick: bool) -> None:
    best = {}
    for m, k, _u in run.points:
        best[k] = max(best.get(k, -3.0), m)
    ranked = [k for k, _ in sorted(best.items(), key=lambda kv: (-kv[1], kv[0])) if run.space.configs[k].axes]
    top = ranked[:2 if quick else 4]
    if not top:
        return
    left = run.budget - run.out.evaluations
    per = max(0, min(32, (left // 3) // len(top)))
    if per == 0:
        return
    tell(f"search by optimisation: {per} more points in the {len(top)} closest configurations")
    run.out.stages.append(f"focus on {len(top)} configurations")
    for k in top:
        for u in _sobol(len(run.space.configs[k].axes), per, [run.seed, 2, k]):
            run.evaluate(k, u)


def _local(run: _Run, tell, quick: bool) -> None:
    from scipy.optimize import minimize
    starts, seen = [], set()
    for m, k, u in sorted(run.points, key=lambda t: -t[0]):
        if m <= -2 or not run.space.configs[k].axes:
            continue
        key = (k, tuple(np.round(u, 3)))
        if key in seen:
            continue
        seen.add(key)
        starts.append((k, u))
        if len(starts) >= (2 if quick else 4):
            break
    if not starts:
        return
    tell(f"search by optimisation: Nelder–Mead from {len(starts)} start{'s' if len(starts) != 1 else ''}")
    run.out.stages.append(f"Nelder–Mead from {len(starts)} starts")
    for j, (k, u) in enumerate(starts):
        left = run.budget - run.out.evaluations
        if left <= 0:
            return
        n = len(u)
        simplex = [u] + [np.clip(u + 0.15 * np.eye(n)[i] * (1 if u[i] < 0.85 else -1), 0, 1) for i in range(n)]
        minimize(lambda x, k=k: -run.evaluate(k, x), u, method="Nelder-Mead", bounds=[(0.0, 1.0)] * n,
                 options={"maxfev": max(n + 2, left // (len(starts) - j)), "xatol": 1e-4, "fatol": 1e-10,
                          "initial_simplex": np.array(simplex)})
