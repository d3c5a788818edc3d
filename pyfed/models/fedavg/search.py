"""Adversarial search of a statement about a FedAvg run: structured edge cases first, then
``budget`` random instances of :mod:`.fedavg_families`, each drawn inside the statement's own
hypotheses and decided exactly (:func:`pyfed.models.fedavg.exact.decide_instance`).

Candidate ``j`` is a pure function of ``(statement, seed, j)`` (:func:`candidate`; its randomness
is ``numpy.random.default_rng([seed, j])``), so a search is reproducible and its records come in
index order. The step: when the statement's run names its step ``η``, each candidate takes the
largest step its hypotheses admit among the boundary values they state (``η ≤ e``: ``e`` on the
instance) and the multiples ``c/L`` (c = 4, 2, 1, 1/2, … 1/64, and 0, −1/4 where the hypotheses
admit them), scaled down at random or taken at the other end for the random draws: the search goes
up to the boundary of the hypotheses. Free ℕ/ℝ parameters of the
statement take small values that satisfy its hypotheses.

Families (edge cases, then random draws): rational quadratic clients sharing one Hessian (ζ exact,
with and without noise, a direction without curvature where the client drift grows by exactly
η ζ per step), the one-dimensional non-quadratic ``sqrt`` family (different curvatures; the shadow
leaves the optimum, in certified balls) and the ``huber`` family (different curvatures in several
directions, exact rationals), whose ζ is a certified upper bound (sound: every right side of the
model grows with ζ).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ...engines.statement.naturals import moved_note, nearest_naturals, numerals_of
from ...engines.statement.search import (
    Record,
    SearchResult,
    decided_count,
    no_counterexample_reason,
)
from ...errors import InputError
from ...evaluation.numbers import Undecided, compare, to_exact
from ...exact import format_number, precision, rational_str
from ...problems.heterogeneity import quadratic_heterogeneity
from ...problems.quadratic import QuadraticProblem
from ...verdicts import Evidence, Inconclusive, Violated, violation_wording
from .access import Evaluator, Scalars, Undefined, bind, float_of, value_str
from .exact import decide_instance, recheck
from .families import F, family_formula, huber_zeta_sq, instance_from_json, q
from .scalars import is_ball

__all__ = ["search", "candidate", "evaluate_candidate", "structured_instances", "random_instance", "STEP_MULTIPLES",
           "recheck_witness", "lean_record", "decide_record", "fedavg_verdict", "fit_to_statement"]

#: Steps c/L tried for a statement whose run names its step (largest admissible first).
STEP_MULTIPLES = (Fraction(4), Fraction(2), Fraction(1), Fraction(1, 2), Fraction(1, 4), Fraction(1, 8),
                  Fraction(1, 16), Fraction(1, 64))


def _qm(rows):
    return [[q(v) for v in r] for r in rows]


def structured_instances() -> list:
    """``[(description, instance JSON without "eta")]``: the edge cases, in order. ``step_fraction``
    (not part of the instance): the step is that fraction of the largest admissible one."""
    return [
        ("one client, no noise", {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "0", "tau": "1", "T": "1",
                                   "x0": ["1"]}),
        ("noise from the optimum (only the noise terms are positive)",
         {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "1", "tau": "2", "T": "3", "x0": ["0"]}),
        ("three heterogeneous clients with noise", {"A": [["2", "0"], ["0", "1"]],
                                                    "b": [["1", "0"], ["-1", "1"], ["0", "-1"]], "L": "2",
                                                    "sigma": "1/2", "tau": "3", "T": "2", "x0": ["1", "1"]}),
        ("two clients pulling apart along a direction of curvature 1/1000 (drift close to k^2 eta^2 zeta^2)",
         {"A": [["1", "0"], ["0", "1/1000"]], "b": [["0", "1"], ["0", "-1"]], "L": "1", "sigma": "0", "tau": "4",
          "T": "1", "x0": ["0", "0"]}),
        ("identical clients, pure noise (zeta = 0)", {"A": [["1"]], "b": [["1"], ["1"]], "L": "1", "sigma": "1",
                                                      "tau": "3", "T": "1", "x0": ["0"]}),
        ("non-quadratic clients with different curvature from the optimum (sqrt family, no noise)",
         {"family": "sqrt", "a": "1", "b": ["1", "-1"], "c": ["1", "-1"], "L": "2", "sigma": "0", "zeta_sq": "4",
          "tau": "4", "T": "2", "x0": ["0"]}),
        ("two clients at the step boundary (the largest step the hypotheses admit)",
         {"A": [["1"]], "b": [["1"], ["-1"]], "L": "1", "sigma": "0", "tau": "4", "T": "2", "x0": ["1"]}),
        ("one client, tiny noise and heterogeneity (the tuned step is its first term)",
         {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "1/1000", "zeta_sq": "1/1000000", "tau": "4", "T": "2",
          "x0": ["1"]}),
        ("small noise and heterogeneity, D = 1", {"A": [["1"]], "b": [["1/100"], ["-1/100"]], "L": "1",
                                                  "sigma": "1/100", "tau": "2", "T": "2", "x0": ["1"]}),
        ("one client, large noise, tiny heterogeneity (the noise terms carry the bound)",
         {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "10", "zeta_sq": "1/1000000", "tau": "2", "T": "3",
          "x0": ["1"]}),
        ("three huber clients with different curvature (anisotropic Q, two ridges; no noise): the client drift "
         "exceeds tau^2 eta^2 zeta^2, the ceiling of shared-Hessian clients",
         {"family": "huber", "Q": [["1/64", "0"], ["0", "6/5"]], "b": [["1", "0"], ["-1/2", "-3/5"], ["-1/2", "3/5"]],
          "c": [["0", "0"], ["1/25", "-1/25"], ["-1/25", "1/25"]], "u": [["-1/2", "3"], ["-1/2", "-3"]], "L": "25/16",
          "sigma": "0", "zeta_sq": "1", "tau": "6", "T": "1", "x0": ["1/64", "-1/50"]}),
        ("noise floor: one client from the optimum, sigma = 1, a small step (1/25 of the largest admissible) and a "
         "long horizon T = 64 (the eta sigma^2 / M term dominates the bound)",
         {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "1", "tau": "1", "T": "64", "x0": ["0"],
          "step_fraction": "1/25"}),
    ]


def _rr(rng, lo, hi, den):
    lo, hi = Fraction(lo), Fraction(hi)
    a, b = int(np.ceil(lo * den)), int(np.floor(hi * den))
    return Fraction(int(rng.integers(a, b + 1)), den)


def _rand_spd(rng, d):
    B = [[Fraction(int(rng.integers(-2, 3)), 2) for _ in range(d)] for _ in range(d)]
    c = Fraction(int(rng.integers(1, 5)), 4)
    return [[sum(B[i][k] * B[j][k] for k in range(d)) + (c if i == j else 0) for j in range(d)] for i in range(d)]


def random_instance(rng) -> tuple:
    """``(description, instance JSON without "eta")``: one random draw (shared-Hessian quadratic
    60%, sqrt 25%, huber 15%)."""
    u = rng.random()
    tau, T = int(rng.integers(1, 6)), int(rng.integers(1, 4))
    if u < 0.6:
        M, d = int(rng.integers(1, 4)), int(rng.integers(1, 3))
        if rng.random() < 0.4:
            a = Fraction(int(rng.integers(1, 9)), 4)
            A = [[a if i == j else Fraction(0) for j in range(d)] for i in range(d)]
            L = a
        else:
            A = _rand_spd(rng, d)
            L = max(sum(abs(x) for x in r) for r in A)
        b = [[_rr(rng, -2, 2, 4) for _ in range(d)] for _ in range(M)]
        sigma = Fraction(0) if rng.random() < 0.3 else _rr(rng, Fraction(1, 4), 2, 4)
        inst = {"A": _qm(A), "b": _qm(b), "L": q(L), "sigma": q(sigma), "tau": str(tau), "T": str(T),
                "x0": [q(_rr(rng, -3, 3, 4)) for _ in range(d)]}
        if rng.random() < 0.3:
            P = QuadraticProblem(np.array([A] * M, dtype=object), np.array(b, dtype=object))
            inst["zeta_sq"] = q(quadratic_heterogeneity(P).zeta_sq + _rr(rng, 0, 2, 4))
        return f"random shared-Hessian quadratic (M={M}, d={d})", inst
    if u < 0.85:
        M = int(rng.integers(2, 4))
        b = [_rr(rng, -2, 2, 4) for _ in range(M - 1)]
        c = [_rr(rng, -1, 1, 4) for _ in range(M - 1)]
        b.append(-sum(b))
        c.append(-sum(c))
        a = max(Fraction(1, 4), -min(c)) + _rr(rng, 0, 1, 4)
        L = a + max(max(c), 0)
        z2 = max((abs(bi) + abs(ci)) ** 2 for bi, ci in zip(b, c))
        return f"random sqrt family (M={M})", {"family": "sqrt", "a": q(a), "b": [q(v) for v in b],
                                                "c": [q(v) for v in c], "L": q(L), "sigma": "0", "zeta_sq": q(z2),
                                                "tau": str(tau), "T": str(T), "x0": [q(_rr(rng, -2, 2, 4))]}
    M, d, m = int(rng.integers(2, 4)), 2, 2
    U = [[Fraction(int(rng.integers(-2, 3))) for _ in range(d)] for _ in range(m)]
    U = [r if any(r) else [Fraction(1), Fraction(0)] for r in U]
    b = [[_rr(rng, -2, 2, 4) for _ in range(d)] for _ in range(M - 1)]
    c = [[_rr(rng, -1, 1, 4) for _ in range(m)] for _ in range(M - 1)]
    b.append([-sum(r[j] for r in b) for j in range(d)])
    c.append([-sum(r[k] for r in c) for k in range(m)])
    n2 = [sum(x * x for x in r) for r in U]
    a = max(Fraction(1, 4), max(sum(-min(ci[k], 0) * n2[k] for k in range(m)) for ci in c)) + _rr(rng, 0, 1, 4)
    L = a + max(sum(max(ci[k], 0) * n2[k] for k in range(m)) for ci in c)
    return f"random huber family (M={M})", {"family": "huber", "a": q(a), "b": _qm(b), "c": _qm(c), "u": _qm(U),
                                             "L": q(L), "sigma": "0", "zeta_sq": q(huber_zeta_sq(b, c, U)),
                                             "tau": str(tau), "T": str(T), "x0": [q(_rr(rng, -2, 2, 4))
                                                                                 for _ in range(d)]}


def structured_count(st=None) -> int:
    return len(structured_instances())


def _fix_run(st, inst: dict) -> dict:
    """The statement's numerals for τ, T override the instance's."""
    sp = st.spec
    out = dict(inst)
    for role, key in (("tau", "tau"), ("T", "T")):
        t = sp.run_args[role]
        if t.op == "num":
            out[key] = str(int(t.value))
    return out


#: Largest values a moved natural takes (M: clients, tau: local steps, T: rounds).
NATURAL_CAPS = {"M": 8, "tau": 64, "T": 64}

#: The per-client lists of each family's JSON (client i' of a moved M is client i' mod M).
_CLIENT_KEYS = ("b", "c")


def _move_naturals(st, inst: dict) -> tuple:
    """``(instance JSON, note)``: the candidate with its M, τ, T moved to the nearest values the
    statement's natural-only hypotheses (``40 ≤ τ``, ``M = 3``) admit
    (:func:`pyfed.engines.statement.naturals.nearest_naturals`), or unchanged with note "".
    A new client count is a multiple of the candidate's (its clients repeated, so the mean of
    the bᵢ, the sums the ``sqrt``/``huber`` families need and ζ² stay as they were)."""
    sp = st.spec
    movable = {}
    for role in ("M", "tau", "T"):
        t = sp.dims["M"] if role == "M" else sp.run_args[role]
        if t.op == "var":
            movable[t.value] = role
    hyps = [fh for fh in sp.hypotheses if not fh.index and fh.sort == "nat"
            and (fh.lhs.mentions(movable) or fh.rhs.mentions(movable))]
    if not hyps:
        return inst, ""
    ri = instance_from_json(inst)
    ev = Evaluator(st, ri, None, Scalars("exact"))
    env0 = {sp.dims["d"].value: ri.d} if sp.dims["d"].op == "var" else {}
    M0 = ri.M

    def admissible(a):
        if any(role == "M" and a[name] % M0 for name, role in movable.items()):
            return False
        try:
            return all(ev.hypothesis(fh, dict(env0, **a))[0] for fh in hyps)
        except (InputError, Undefined, Undecided, KeyError, ZeroDivisionError):
            return False

    current = {name: int(M0 if role == "M" else F(inst[role])) for name, role in movable.items()}
    nums = numerals_of(t.value for fh in hyps for side in (fh.lhs, fh.rhs) for t in side.walk() if t.op == "num")
    caps = {name: NATURAL_CAPS[role] for name, role in movable.items()}
    found = nearest_naturals(current, nums, admissible, caps=caps)
    if found is None or found == current:
        return inst, ""
    out = dict(inst)
    for name, role in movable.items():
        if role == "M":
            for key in _CLIENT_KEYS:
                if key in out:
                    out[key] = [out[key][i % M0] for i in range(found[name])]
        else:
            out[role] = str(found[name])
    return out, moved_note(current, found, {n: ", its clients repeated" for n, role in movable.items() if role == "M"})


def _choose_step(st, inst: dict, rng=None):
    """``(instance with the largest admissible step (module docstring), free values)``, or
    ``(None, None)`` when no candidate step (with values of the free parameters) satisfies the
    statement's hypotheses on the step."""
    sp = st.spec
    inst = dict(inst)
    frac = inst.pop("step_fraction", None)
    et = sp.run_args["eta"]
    if et.op != "var":
        vals = _free_values(st, inst, rng)
        return (inst, vals) if vals is not None else (None, None)
    base = instance_from_json(dict(inst, eta="1"))
    S = Scalars("exact")
    L = F(inst["L"])
    eta_keys = {h.key for h, fh in zip(st.hypotheses, sp.hypotheses)
                if not fh.index and (fh.lhs.mentions([et.value]) or fh.rhs.mentions([et.value]))}
    cands = [c / L for c in STEP_MULTIPLES] + [Fraction(0), -1 / (4 * L)]
    provisional = _free_values(st, dict(inst, eta=q(1 / (4 * L))), None, require=False) or {}
    env_b = bind(st, base, S, provisional)
    if env_b.why is None:
        ev = Evaluator(st, base, None, S)
        for h, fh in zip(st.hypotheses, sp.hypotheses):
            if h.key in eta_keys and fh.lhs.op == "var" and fh.lhs.value == et.value and fh.op in ("≤", "<") \
                    and not fh.rhs.mentions([et.value]):
                try:
                    v = to_exact(ev.value(fh.rhs, env_b.env))
                except (InputError, Undefined, Undecided, ZeroDivisionError):
                    continue
                if isinstance(v, Fraction) and v > 0:
                    cands.append(v if fh.op == "≤" else v * Fraction(63, 64))
    def admitted(eta):
        """The free values with which the step ``eta`` satisfies the step's hypotheses, or None."""
        cand = dict(inst, eta=q(eta))
        if sp.free:
            return _free_values(st, cand, None)
        b = bind(st, instance_from_json(cand), S)
        return {} if b.why is None and not (set(b.failing) & eta_keys) else None

    feasible = []
    for eta in sorted(set(cands), reverse=True):
        vals = admitted(eta)
        if vals is not None:
            feasible.append((eta, vals))
    if not feasible:
        return None, None
    eta, vals = feasible[0]
    if frac is not None:        # a structured case at a fraction of the largest step
        small = eta * F(frac)
        vals_small = admitted(small)
        return (dict(inst, eta=q(small)), vals_small) if vals_small is not None else (None, None)
    if rng is not None:
        u = rng.random()
        if u < 0.2:             # the other end of the admissible steps (0 or negative when admitted)
            eta, vals = feasible[-1]
        elif u < 0.6:
            smaller = eta * [Fraction(1, 2), Fraction(3, 4), Fraction(1, 4)][int(rng.integers(0, 3))]
            v2 = _free_values(st, dict(inst, eta=q(smaller)), rng) if sp.free else {}
            if v2 is not None:
                eta, vals = smaller, v2
    return dict(inst, eta=q(eta)), vals


def _free_values(st, inst: dict, rng=None, require=True):
    """Values of the statement's free parameters that satisfy its hypotheses (None: none found;
    ``require=False``: the first values tried whatever the hypotheses say)."""
    sp = st.spec
    if not sp.free:
        return {}
    ri = instance_from_json(inst)
    S = Scalars("exact")
    pools = {"nat": [0, 1, 2, 3, 4, 5], "real": [Fraction(1), Fraction(1, 2), Fraction(2), Fraction(0),
                                                 Fraction(1, 4), Fraction(4), Fraction(-1)]}
    order = list(range(40))
    for j in order:
        vals = {}
        for name, kind in sp.free:
            pool = pools[kind]
            vals[name] = pool[j % len(pool)] if rng is None or j == 0 else pool[int(rng.integers(0, len(pool)))]
        if not require:
            return vals
        b = bind(st, ri, S, vals)
        if b.why is None and not b.failing:
            return vals
    return None


def candidate(st, seed: int, index: int):
    """``(instance JSON or None, description, free values)`` of candidate ``index``."""
    n = structured_count()
    if index < n:
        desc, inst = structured_instances()[index]
        rng = None
    else:
        rng = np.random.default_rng([int(seed), int(index)])
        desc, inst = random_instance(rng)
    return fit_to_statement(st, inst, desc, rng)


def fit_to_statement(st, inst: dict, desc: str, rng=None):
    """``(instance JSON or None, description, free values)``: a family instance ``inst`` (without
    its step; ``step_fraction`` optional) given the statement's numerals for τ and T, its naturals
    moved into its natural-only hypotheses and the largest admissible step (or that fraction of it);
    None with the reason when no step satisfies the hypotheses."""
    inst = _fix_run(st, inst)
    inst, moved = _move_naturals(st, inst)
    if moved:
        desc = f"{desc}; {moved}"
    inst, vals = _choose_step(st, inst, rng)
    if inst is None:
        return None, desc + ": no step (and no value of the free parameters) satisfies the statement's hypotheses", {}
    return inst, desc, vals


def evaluate_candidate(st, seed: int, index: int, *, relax=()) -> Record:
    """Draw candidate ``index`` and decide it exactly; ``relax``: hypothesis keys not enforced."""
    try:
        inst, desc, vals = candidate(st, seed, index)
    except InputError as exc:
        return Record(index, "skipped", str(exc))
    if inst is None:
        return Record(index, "skipped", desc)
    return decide_record(st, index, desc, inst, vals, relax=relax)


def decide_record(st, index: int, desc: str, inst: dict, vals: dict, *, relax=()) -> Record:
    """The search record of instance ``inst`` (its JSON, with the step) and the free values
    ``vals``, decided exactly: ``skipped`` when the instance cannot be read, ``outside`` when a
    hypothesis not in ``relax`` fails, else the exact verdict's status with both sides."""
    try:
        ri = instance_from_json(inst, name=f"candidate {index}")
        out = decide_instance(st, ri, gate=False, values=vals)
    except InputError as exc:
        return Record(index, "skipped", f"{desc} ({exc})")
    relax = set(relax)
    failing = [k for k in out.failing if k not in relax]
    rec = Record(index, "outside" if failing else out.status, desc, dict(inst, **({"values": {
        k: value_str(v) for k, v in vals.items()}} if vals else {})), failing=failing)
    if failing:
        return rec
    if out.status in ("holds", "violated"):
        rec.lhs, rec.rhs = out.lhs, out.rhs
        rec.extra["verdict"] = out.verdict
    else:
        rec.status = "undecided"
        rec.description += f" ({getattr(out.verdict, 'reason', '')})"
    return rec


def search(st, *, seed: int = 0, budget: int = 24, relax=(), progress=None) -> SearchResult:
    """Every structured candidate, then ``budget`` random ones, each decided exactly; returns the
    records and a verdict (Violated with the first violation in index order, its witness
    re-checkable by :func:`pyfed.models.fedavg.exact.recheck`; otherwise Inconclusive
    with the tightest instance)."""
    n = structured_count()
    records = []
    for i in range(n + int(budget)):
        records.append(evaluate_candidate(st, seed, i, relax=relax))
        if progress:
            progress(1)
    return SearchResult(records, fedavg_verdict(st, records, seed, budget, relax), seed, budget)


def _s(v):
    v = to_exact(v)
    return rational_str(v) if isinstance(v, Fraction) else str(v)


def fedavg_verdict(st, records, seed, budget, relax=()):
    decided = [r for r in records if r.status in ("holds", "violated")]
    viol = [r for r in decided if r.status == "violated"]
    details = {"engine": "adversarial search (FedAvg families, decided exactly)", "seed": seed, "budget": budget,
               "candidates": len(records), "decided": len(decided), "holds": len(decided) - len(viol),
               "violated": len(viol), "outside_hypotheses": sum(r.status == "outside" for r in records),
               "undecided": sum(r.status == "undecided" for r in records),
               "skipped": sum(r.status == "skipped" for r in records),
               "instance": f"adversarial search ({decided_count(len(decided))})", "relax": list(relax)}
    in_balls = sum(is_ball(r.lhs) or is_ball(r.rhs) for r in decided)
    if in_balls:        # decided in certified balls (python-flint arb), not in exact arithmetic
        details.update(engine="adversarial search (FedAvg families, decided exactly or in certified balls)",
                       decided_in_balls=in_balls,
                       instance=(f"adversarial search ({len(decided)} decided instances: {len(decided) - in_balls} "
                                 f"exactly, {in_balls} in certified balls)"))
    if viol:
        r = viol[0]
        v = r.extra["verdict"]
        vd = v.details or {}
        exact = isinstance(to_exact(r.lhs), Fraction) and isinstance(to_exact(r.rhs), Fraction)
        details.update(index=r.index, description=r.description,
                       search_result=f"counterexample (candidate {r.index})", at=vd.get("witness_label", vd.get("at")),
                       witness_text=violation_wording("≤", _short(r.lhs), _short(r.rhs),
                                                      exact and compare(r.lhs, r.rhs) == 0))
        if exact:
            details.update(lhs_exact=vd.get("lhs_exact", _s(r.lhs)), rhs_exact=vd.get("rhs_exact", _s(r.rhs)),
                           margin_exact=vd.get("margin_exact", _s(to_exact(r.rhs) - to_exact(r.lhs))))
        else:       # decided in certified balls: the balls, never a rounded value called exact
            details.update({k: vd[k] for k in ("lhs_ball", "rhs_ball", "margin_ball", "arithmetic") if k in vd})
        if "witness_start" in vd:
            details["round_start"] = vd["witness_start"]
        w = dict(v.witness or {})
        w.update(instance=r.instance, statement=st.name, source=st.source, index=r.index, seed=seed)
        if exact:
            return Violated(st.name, r.lhs, r.rhs, True, details, evidence=Evidence.SEARCH, witness=w)
        out = Violated(st.name, float_of(r.lhs), float_of(r.rhs), True, details, evidence=Evidence.BALL, witness=w)
        out.balls = dict(getattr(v, "balls", None) or {"lhs": r.lhs, "rhs": r.rhs})
        return out
    tight = [r for r in decided if r.rhs is not None]
    if tight:
        def key(r):
            try:
                rv = float_of(r.rhs)
                return (float_of(r.lhs) / rv if rv > 0 else float("-inf"), -r.index)
            except (ZeroDivisionError, OverflowError, ValueError):
                return (float("-inf"), -r.index)
        t = max(tight, key=key)
        details.update(tightest_index=t.index, tightest=t.description, tightest_instance=t.instance)
        if is_ball(t.lhs) or is_ball(t.rhs):   # certified balls: their text, no value called exact
            details.update(lhs_ball=_s(t.lhs), rhs_ball=_s(t.rhs), tightest_exact=False)
            lhs, rhs = float_of(t.lhs), float_of(t.rhs)
        else:
            details.update(lhs_exact=_s(t.lhs), rhs_exact=_s(t.rhs), tightest_exact=True)
            lhs, rhs = t.lhs, t.rhs
    else:
        lhs = rhs = None
    details["search_result"] = f"no counterexample among {len(decided)} decided"
    how = "exactly decided" if not in_balls else "decided (exactly or in certified balls)"
    return Inconclusive(st.name, lhs, rhs, True, details,
                        reason=no_counterexample_reason(len(decided), details["outside_hypotheses"],
                                                        details["candidates"], how))


def _short(v) -> str:
    if is_ball(v):
        return format_number(v, 10)     # the digits the ball certifies
    e = _s(v)
    if len(e) <= 40:
        return e
    try:
        return f"~{float_of(v):.6g}"
    except (OverflowError, ValueError):
        return e[:40] + "…"


def recheck_witness(st, witness: dict):
    """Decide a search witness of ``st`` again from scratch (the instance from its JSON, the free
    parameters' values): the exact verdict when the violation is confirmed (and, for a
    conditional statement on quadratic clients, the reported round start re-evaluated exactly);
    otherwise an Inconclusive verdict saying so."""

    inst_json = dict(witness.get("instance") or {})
    values = {k: Fraction(v) for k, v in (inst_json.pop("values", None) or {}).items()}
    inst = instance_from_json(inst_json)
    out = decide_instance(st, inst, gate=False, values=values or None)
    if out.status == "violated" and ("round_start" not in witness or recheck(st, inst, witness,
                                                                            values=values or None)):
        return out.verdict
    return Inconclusive(st.name, details={"recheck": out.status},
                        reason="the witness is not confirmed by a fresh exact decision")


def lean_record(st, verdict, *, lean_name: str, relax=()) -> dict | None:
    """The record :func:`pyfed.lean.render.render_counterexample` turns into a Lean file for a
    violation ``verdict`` of the search (``lean_name`` qualified, ``FedAvg.X``): both sides as
    ``"p/q"`` and the instance's scalars (M, tau, T, eta, L, sigma_sq, zeta_sq, dist_sq). Sides
    decided in certified balls (``verdict.balls``) are stated by their certified rational bounds:
    ``lhs`` the lower end of the left side's ball, ``rhs`` the upper end of the right side's
    (``lhs_bound`` / ``rhs_bound`` True; a ball of radius 0 is its exact value), so ``rhs < lhs``
    still implies the violation. None when a side is neither (no balls) or the bounds do not
    separate."""
    d = verdict.details or {}
    lhs, rhs = to_exact(verdict.lhs), to_exact(verdict.rhs)
    flags = {}
    balls = getattr(verdict, "balls", None) or {}
    if not (isinstance(lhs, Fraction) and isinstance(rhs, Fraction)):
        if balls.get("lhs") is None or balls.get("rhs") is None:
            return None
        lhs, flags["lhs_bound"] = _ball_end(balls["lhs"], "lower")
        rhs, flags["rhs_bound"] = _ball_end(balls["rhs"], "upper")
        if not rhs < lhs:
            return None
    inst_json = dict((verdict.witness or {}).get("instance") or {})
    inst_json.pop("values", None)
    ri = instance_from_json(inst_json)
    scal = {"M": str(ri.M), "tau": str(ri.tau), "T": str(ri.T), "L": value_str(ri.L),
            "sigma_sq": value_str(ri.sigma_sq), "zeta_sq": value_str(ri.zeta_sq), "dist_sq": value_str(ri.dist_sq)}
    if ri.eta is not None:
        scal["eta"] = value_str(ri.eta)
    return {"lean_name": lean_name, "lhs": rational_str(lhs), "rhs": rational_str(rhs), "instance": scal,
            "relax": list(relax), "data": inst_json, "note": d.get("description", ""),
            "clients": family_formula(inst_json), **flags}


def _ball_end(ball, end: str) -> tuple:
    """``(Fraction, is_bound)``: the exact value of a ball of radius 0 (False), else its certified
    ``end`` (``"lower"`` or ``"upper"``) as an exact rational (True)."""

    def frac(x):
        m, e = x.mid().man_exp()
        m, e = int(m), int(e)
        return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** (-e))
    if ball.is_exact():
        return frac(ball), False
    with precision(256):        # the bounds of pyfed.export.side_json (the JSON record's)
        return frac(ball.lower() if end == "lower" else ball.upper()), True
