r"""Monte Carlo decisions of a statement about a FedAvg run on any instance (real data included).

The runs are :func:`pyfed.algorithms.fedavg_shadow.fedavg_shadow` (R replicates, seeded); every
random variable of the statement is a per-replicate sample (:class:`SamplesBackend`), so the
statement's two sides are linear combinations of sample arrays plus deterministic numbers from
the instance (the right side's definitions evaluated by :mod:`pyfed.theory.fedavg`):

* ``∫ ω, X ω ∂μ ≤ RHS`` -- R replicates of the whole run; with X = c_X + part_X and RHS = c_Y +
  part_Y the statement is E[part_X − part_Y] ≤ c_Y − c_X, decided by the Student-t interval of the
  samples of part_X − part_Y (:func:`pyfed.engines.montecarlo.decide`);
* ``μ[X | R.history (t * τ)] ≤ᵐ[μ] Y`` -- conditional on the round start y: from x₀ and the round
  starts a simulated run visits (t = T//2 and T − 1), max(2, R // 2) replicates of one round from
  each start (``details.replicates_per_start``; the table's R is that number);
  the statistics at local step 0 are known exactly from y (deterministic parts), the others are
  samples; each (start, index) comparison E[part_X − part_Y | y] ≤ c_Y − c_X at the
  Bonferroni-adjusted level, so the stated confidence holds jointly (comparisons that are
  deterministic are decided exactly and not counted).

Assumptions stated in the verdicts: F⋆ is replaced by a certified lower bound where the instance
gives one (the left sides can only grow), x⋆ by the problem's numerical minimiser; D², σ, ζ are the
instance's certified upper bounds.

Source: Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1, Section
6.1.2, PDF p. 41.
"""

from __future__ import annotations

import zlib

import numpy as np

from ...algorithms.fedavg_shadow import fedavg_shadow
from ...engines.montecarlo import Estimate, decide
from ...exact import as_float, compare
from ...verdicts import Evidence, Holds, Inconclusive, Violated
from .access import (
    Backend,
    Evaluator,
    NotLinear,
    OutsideModel,
    Rand,
    Scalars,
    Undefined,
    assignments,
    bind,
)

__all__ = ["SamplesBackend", "decide_montecarlo", "stream_key", "STREAMS"]

#: Random streams of the built-in statements (the default report's draws): qualified name -> key.
STREAMS = {"FedAvg.PerRoundProgress": 0, "FedAvg.BoundedClientDrift": 1, "FedAvg.ConvexFedAvgConvergence": 2,
           "FedAvg.TunedConvexFedAvgConvergence": 3}


def stream_key(name: str) -> int:
    """The random stream of a statement: its entry of :data:`STREAMS`, else a CRC-32 of its name
    (reproducible across processes)."""
    return STREAMS.get(name, zlib.crc32(name.encode("utf-8")) & 0x7FFFFFFF)


class SamplesBackend(Backend):
    """Per-replicate samples of a simulated run (``traj``: a ShadowTrajectory). ``start``: the
    round start when the samples are one round from a given start (conditional statements; the
    statistics at local step 0 are then deterministic), else None (the whole run)."""

    def __init__(self, inst, traj, start=None):
        self.inst, self.traj, self.start = inst, traj, start
        self.scalars = Scalars("float")
        self.xs = np.asarray([as_float(v) for v in inst.x_star], dtype=np.float64)
        self.f_low = inst.f_star

    def primitive(self, name, t, k, i):
        tr, S = self.traj, self.scalars
        r = 0 if self.start is not None else t
        if self.start is not None and k == 0 and name in ("shadowDistanceSq", "clientDriftSq", "objectiveShadow"):
            y = np.asarray(self.start, dtype=np.float64)
            if name == "shadowDistanceSq":
                return Rand(S.lift(float(np.sum((y - self.xs) ** 2))), None)
            if name == "clientDriftSq":
                return Rand(S.lift(0), None)
            return Rand(S.lift(float(tr.value[0, 0, 0])), None)
        if name == "shadowDistanceSq":
            return Rand(S.lift(0), tr.shadow_dist_sq(self.xs)[:, r, k])
        if name == "clientDriftSq":
            return Rand(S.lift(0), tr.drift[:, r, k, i])
        if name == "objectiveShadow":
            return Rand(S.lift(0), tr.value[:, r, k])
        if name == "roundLoss":
            return Rand(S.lift(0), tr.round_loss(self.f_low)[:, r])
        if name == "avgLoss":
            return Rand(S.lift(0), tr.avg_loss(self.f_low))
        raise KeyError(name)

    def add(self, p, q):
        return p + q

    def scale(self, p, s):
        return p * as_float(s)


def _split(X: Rand, Y: Rand, S):
    """(samples of part_X − part_Y or None, bound c_Y − c_X)."""
    px, py = X.part, Y.part
    if px is None and py is None:
        z = None
    elif py is None:
        z = px
    elif px is None:
        z = -py
    else:
        z = px - py
    return z, S.sub(Y.const, X.const)


def _side(R: Rand, S):
    """A side's point estimate: its constant plus the mean of its samples (a float when the
    constant is 0, else in the arithmetic of the constant)."""
    if R.part is None:
        return R.const
    m = float(np.mean(R.part))
    return m if R.const == 0 else S.add(R.const, S.lift(m))


def _sides(X, Y, S):
    return _side(X, S), _side(Y, S)


def decide_montecarlo(st, inst, *, replicates: int = 256, seed: int = 0, confidence: float = 0.999, name=None,
                      values=None, details=None, witness=None):
    """Decide ``st`` on ``inst`` by Monte Carlo (module docstring); returns a Verdict whose
    statement is ``name`` (default the qualified Lean name). The draws come from
    ``default_rng([seed, stream_key(qualified name)])``, the same whatever the verdict's name.
    Failing hypotheses give an Inconclusive verdict naming them (nothing is simulated)."""
    name = name or st.qualified_name
    sp = st.spec
    S = Scalars("float")
    d = dict(details or {})
    w = dict(witness or {})
    try:
        b = bind(st, inst, S, values)
    except Undefined as exc:
        return Inconclusive(name, details=d, reason=f"undefined on this instance: {exc}")
    if b.why is not None:
        return Inconclusive(name, details=d, reason=f"the instance cannot bind the statement: {b.why}")
    d["hypotheses"] = [{"key": k, "statement": t, "holds": bool(h), "margin": str(m)} for k, t, h, m in b.hypotheses]
    d["problem_hypotheses"] = [{"key": h.key, "statement": h.statement, "holds": bool(h.holds)}
                               for h in inst.hypotheses]
    d.update(replicates=replicates, method="montecarlo", step=str(b.eta),
             assumptions=("F* replaced by a certified lower bound f_low (left sides can only grow); x* by the "
                          "problem's numerical minimiser; D^2, sigma, zeta are certified upper bounds"))
    bad = [t for k, t, h, m in b.hypotheses if not h] + [h.statement for h in inst.hypotheses if not h.holds]
    if bad:
        return Inconclusive(name, details=d, reason="hypotheses fail: " + "; ".join(bad))
    rng = np.random.default_rng([seed, stream_key(st.qualified_name)])
    p = inst.problem
    try:
        if sp.kind == "expectation":
            tr = fedavg_shadow(p, inst.oracle, tau=inst.tau, T=inst.T, eta=float(as_float(b.eta)), x0=inst.x0,
                               R=replicates, rng=rng)
            be = SamplesBackend(inst, tr)
            ev = Evaluator(st, inst, be, S)
            items = []
            for a, inside in assignments(st, inst, b.env, S):
                if not inside:
                    continue
                env = dict(b.env, **a)
                X, Y = ev.as_rand(ev.value(sp.lhs, env)), ev.as_rand(ev.value(sp.rhs, env))
                items.append((a, X, Y))
            if len(items) == 1 and items[0][1].part is not None:
                a, X, Y = items[0]
                z, bound = _split(X, Y, S)
                return decide(name, Estimate.from_samples(z, confidence), bound, details=d, witness=w)
            return _combine(name, items, S, confidence, d, w, lambda a: f"{_label(a)}")
        # conditional: from x0 and round starts a simulated run visits
        path = fedavg_shadow(p, inst.oracle, tau=inst.tau, T=inst.T, eta=float(as_float(b.eta)), x0=inst.x0, R=1,
                             rng=rng)
        idx = sorted({0, inst.T // 2, inst.T - 1})
        starts = path.round_starts[0, idx]
        d["round_starts"] = f"x0 and the round starts t = {idx[1:]} of one simulated run (seed {seed})"
        R = max(2, replicates // 2)
        items = []
        for j, (y, child) in enumerate(zip(starts, rng.spawn(len(starts)))):
            tr = fedavg_shadow(p, inst.oracle, tau=inst.tau, T=1, eta=inst.eta if inst.eta is not None
                               else float(as_float(b.eta)), x0=y, R=R, rng=child)
            be = SamplesBackend(inst, tr, start=y)
            ev = Evaluator(st, inst, be, S)
            for a, inside in assignments(st, inst, b.env, S):
                if not inside:
                    continue
                env = dict(b.env, **a)
                X, Y = ev.as_rand(ev.value(sp.lhs, env)), ev.as_rand(ev.value(sp.rhs, env))
                items.append((dict(a, start=j), X, Y))
        d.update(starts=len(starts), replicates_per_start=R)
        return _combine(name, items, S, confidence, d, w,
                        lambda a: f"round start #{a['start']}" + "".join(f", {k}={v}" for k, v in a.items()
                                                                          if k not in ("start", "t")))
    except NotLinear as exc:
        return Inconclusive(name, details=d, reason=f"Monte Carlo needs a statement linear in the run's random "
                                                    f"variables: {exc}")
    except OutsideModel as exc:
        return Inconclusive(name, details=d, reason=f"beyond the run: {exc}")


def _label(a) -> str:
    return ", ".join(f"{k}={v}" for k, v in a.items()) or "the statement"


def _combine(name, items, S, confidence, details, witness, label):
    """One verdict from the comparisons ``items`` = [(assignment, X, Y)]: duplicates (the same
    samples and bound) merged, deterministic ones decided exactly, the others at the
    Bonferroni-adjusted level (module docstring)."""
    comps, seen = [], set()
    for a, X, Y in items:
        z, bound = _split(X, Y, S)
        key = (None if z is None else np.asarray(z, dtype=np.float64).tobytes(), str(bound))
        if key in seen:
            continue
        seen.add(key)
        if z is None:
            if compare(0, bound) < 0:       # deterministic: 0 > bound
                lhs, rhs = _sides(X, Y, S)
                d = dict(details, at=label(a), decided="exactly (no random part)")
                return Violated(name, lhs, rhs, False, d, witness=dict(witness, at=label(a)),
                                evidence=Evidence.MONTE_CARLO)
            continue
        comps.append((a, z, bound, _sides(X, Y, S)))
    if not comps:
        return Inconclusive(name, details=details, reason="nothing random to estimate at the indices inside the run")
    level = 1 - (1 - confidence) / len(comps)
    per = [(Estimate.from_samples(z, level), bound, label(a), sides) for a, z, bound, sides in comps]
    details = dict(details, joint_confidence=confidence, per_comparison_confidence=level)
    worst, worst_key = None, None
    for item in per:
        est, bound = item[0], item[1]
        if compare(est.lower, bound) < 0:
            return _one(Violated, name, item, details, witness)
        key = est.upper - as_float(bound)
        if worst is None or key > worst_key:
            worst, worst_key = item, key
    if all(compare(e.upper, b) > 0 for e, b, *_ in per):
        return _one(Holds, name, worst, details, witness)
    return _one(Inconclusive, name, worst, details, witness)


def _one(kind, name, item, details, witness):
    est, bound, label, sides = item
    lhs, rhs = sides
    half = est.upper - est.mean
    shown = {"mean": float(lhs), "stderr": est.stderr, "replicates": est.replicates, "confidence": est.confidence,
             "lower": float(lhs) - half, "upper": float(lhs) + half}
    d = dict(details, estimate=shown, at=label, decided_on=est.to_json(), bound=str(bound))
    if kind is Violated:
        d["claim"] = (f"statistical: the {est.confidence:.4%} interval lies above the right side at {label}; "
                      "rerun the witness or decide the instance exactly before calling it a counterexample")
        return Violated(name, lhs=lhs, rhs=rhs, exact=False, details=d, witness=dict(witness, at=label),
                        evidence=Evidence.MONTE_CARLO)
    if kind is Holds:
        return Holds(name, lhs=lhs, rhs=rhs, exact=False, details=d, evidence=Evidence.MONTE_CARLO,
                     certificate=(f"Monte Carlo, R={est.replicates} replicates per comparison, every interval (joint "
                                  f"level {details['joint_confidence']:.1%}) below the right side; tightest: {label}"))
    return Inconclusive(name, lhs=lhs, rhs=rhs, exact=False, details=d,
                        reason=(f"the interval [{est.lower:.6g}, {est.upper:.6g}] at {label} contains "
                                f"{as_float(bound):.6g}; more replicates needed"))
