"""Adversarial search and constant profile of a :class:`~pyfed.statements.Statement`.

Candidates are rational quadratic instances drawn *inside the statement's own hypotheses* and
decided exactly (exact moments, exact rationals). Every candidate is a pure function of
``(seed, index)`` (:func:`candidate`; random ones use ``numpy.random.default_rng([seed, index])``)
and :func:`evaluate_candidate` decides it, so a parallel back end can map the indices and merge
the records in index order with byte-identical results.

The first candidates are structured edge cases: x0 = x⋆ with c0 = ∇fᵢ(x⋆) and σ > 0 (only the
noise is left), the same with σ = 0, full participation S = N and S = 1 of N = 3, a client that
is not strongly convex (μ = 0), T = 1 and a long horizon, ηg > 1; then the instances where the
convex / nonconvex bounds are tightest: the noise floor (x0 = x⋆, c0 = ∇fᵢ(x⋆), σ > 0, the
largest admissible step, T = 200 so that the noise term is all the right side has and the left
side has climbed to it), the noise floor with S = N = 3, ηg = 1/2 and ηg = 2 at the same
h = K ηl ηg, K = 20 local steps, μ = β (identical clients) with μ h ≤ S/(15 N) binding, and a
long horizon T = 200 from x0 ≠ x⋆. Each is labelled by its description. The step ``ηl`` of each
candidate is the largest one the hypotheses admit (found exactly, :func:`max_eta_l`) or a
fraction of it; when the statement puts no upper bound on the step (it dropped the seed's
step-size hypothesis) the search goes where that hypothesis used to fence it off: steps from
the seed's bound 1/(81 β) up to 243/(81 β) = 3/β, beyond divergence (the T = 200 cases try
fewer multiples: each costs about a second of exact arithmetic).

:func:`constant_profile` varies each numeric constant of the right side (the model's 9, 12, 14,
70 inside ``convexRHS`` / ``nonconvexRHS``, and the file's own literals) and of each step-size
hypothesis (81, 15, 24, …), others fixed, and reports the smallest value at which none of the
decided instances violates the statement, with the instance that pins it. On a finite set of
instances this is evidence, not a proof, and the report says so. Its candidates (the
unrelaxed search, then one search per step hypothesis with that hypothesis relaxed) go through
one index-ordered map, serially or on a :class:`pyfed.parallel.Pool` (``pyfed check PATH.lean
--workers N``), with identical output.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
import sympy

from ..errors import InputError
from ..exact import _decimal_exponent, _format_digits, as_float, rational_str
from ..statements.evaluate import EvaluationError, Undecided, arith, compare, decide, decide_sign, evaluate, to_exact
from ..verdicts import Inconclusive, Violated, violation_wording
from .statement import (ExactAccess, RunInstance, bind, evaluate_hypotheses, hypothesis_mentions, instance_to_json,
                        sides_exact)

__all__ = ["candidate", "evaluate_candidate", "search", "constant_profile", "profile_size", "max_eta_l",
           "literals", "structured_count", "outward_decimal", "SearchResult", "Literal"]

#: Multiples of the step boundary tried when a hypothesis is relaxed (up to divergence).
LADDER = (1, 2, 4, 8, 16, 32, 81, 162, 243)


# --------------------------------------------------------------------------- small helpers

def _q(v) -> str:
    return rational_str(Fraction(v))


def _mat(rows):
    return [[Fraction(v) for v in r] for r in rows]


def _problem(A, b, name="candidate"):
    from ..problems.quadratic import QuadraticProblem
    return QuadraticProblem(np.array([_mat(a) for a in A], dtype=object),
                            np.array([[Fraction(v) for v in bi] for bi in b], dtype=object), name=name)


def _simplest_between(lo: Fraction, hi: Fraction) -> Fraction:
    """The rational with the smallest denominator in [lo, hi] (lo <= hi, both > 0)."""
    if lo.denominator == 1 or math.floor(lo) < math.floor(hi) or hi.denominator == 1 and hi == math.floor(hi):
        c = Fraction(math.ceil(lo))
        if c <= hi:
            return c
    fl = math.floor(lo)
    if fl == lo:
        return lo
    # lo, hi in (fl, fl + 1): recurse on the reciprocals of the fractional parts
    a, b = lo - fl, hi - fl
    inner = _simplest_between(1 / b, 1 / a)
    return fl + 1 / inner


def _step_relevant(st):
    """The statement's comparison hypotheses that involve the run's step ηl."""
    return [h for h in st.hypotheses if hypothesis_mentions(h, {st.run["eta_l"].text})]


def _admissible(st, inst, hyps, ignore=()) -> bool:
    access = ExactAccess(inst)
    val = bind(st, inst, access)
    for h in hyps:
        if h.key in ignore:
            continue
        try:
            a, b = evaluate(h.node.args[0], val), evaluate(h.node.args[1], val)
            if not decide(h.op, a, b):
                return False
        except (EvaluationError, Undecided, ZeroDivisionError):
            return False
    return True


def max_eta_l(st, inst: RunInstance, *, ignore=(), bits: int = 60) -> tuple:
    """(largest admissible ηl, bounded) for ``inst`` with the other parameters fixed: the
    statement's step hypotheses (those mentioning ηl, minus ``ignore``) decided exactly. Returns
    (None, True) when no ηl with 2^-80/β <= h is admissible and (None, False) when the hypotheses
    put no upper bound on ηl below h = 64/β.

    The boundary is bracketed within a factor 2, bisected ``bits`` times, and the rational with
    the smallest denominator in the final bracket is returned if admissible (an exact rational
    boundary such as 1/(81 β) is found exactly; an irrational one such as (S/N)^(2/3)/(24 β) is
    approached from inside within a relative 2^-bits; fewer bits give smaller denominators, which
    long horizons need: the exact moments' denominators grow like the step's, per round)."""
    hyps = _step_relevant(st)
    unit = Fraction(1) / (inst.K * Fraction(inst.eta_g) * Fraction(inst.problem.beta))   # h = 1/beta

    def ok(e):
        inst.eta_l = e
        return _admissible(st, inst, hyps, ignore)

    saved = inst.eta_l
    try:
        if not [h for h in hyps if h.key not in ignore]:
            return None, False
        lo = hi = None
        for k in range(-20, 7):
            e = unit * Fraction(2) ** k
            if ok(e):
                lo = e
            elif lo is not None:
                hi = e
                break
        else:
            if lo is not None:
                return None, False
        if lo is None:
            # nothing admissible from h = 2^-20/β up: a very tight step hypothesis (e.g.
            # h ≤ 1/(10^10 β)); look further down, as far as 2^-80/β
            for k in range(-21, -81, -1):
                e = unit * Fraction(2) ** k
                if ok(e):
                    lo, hi = e, 2 * e
                    break
            else:
                return None, True
        for _ in range(int(bits)):
            mid = (lo + hi) / 2
            if ok(mid):
                lo = mid
            else:
                hi = mid
        s = _simplest_between(lo, hi)
        if s > lo and ok(s):
            lo = s
        return lo, True
    finally:
        inst.eta_l = saved


# --------------------------------------------------------------------------- candidates

@dataclass
class _Base:
    name: str
    A: list
    b: list
    sigma: Fraction
    S: int
    K: int
    T: int
    eta_g: Fraction
    x0: list                  # explicit list, or "star" (the minimiser x*)
    c0: str                   # "grad_star" | "grad_x0" | "zero" | explicit list
    mu: str = "problem"       # "problem" | "zero"
    ladder: tuple = LADDER    # step multiples tried when the step is free (expensive cases: fewer)
    bits: int = 60            # bisection steps of the largest admissible step (see max_eta_l)


_STRUCTURED = [
    _Base("x0 = x*, c0 = grad f_i(x*), sigma > 0 (only the noise remains)", [[[1]], [[2]]], [[1], [-1]],
          Fraction(1), 1, 2, 4, Fraction(1), [0], "grad_star"),
    _Base("x0 = x*, c0 = grad f_i(x*), sigma = 0 (nothing moves)", [[[1]], [[2]]], [[1], [-1]],
          Fraction(0), 1, 2, 4, Fraction(1), [0], "grad_star"),
    _Base("S = N = 2, d = 2, mu > 0, zero controls", [[[1, 0], [0, 2]], [[3, 1], [1, 2]]], [[1, 0], [0, 1]],
          Fraction(1, 2), 2, 3, 5, Fraction(1), [1, -1], "zero"),
    _Base("S = 1 of N = 3, controls grad f_i(x0)", [[[1]], [[2]], [[4]]], [[1], [0], [-2]],
          Fraction(1, 2), 1, 2, 6, Fraction(1), [2], "grad_x0"),
    _Base("mu = 0 (a client that is not strongly convex), sigma = 0", [[[0]], [[2]]], [[0], [1]],
          Fraction(0), 2, 1, 5, Fraction(1), [3], "zero", mu="zero"),
    _Base("T = 1, one client, sigma = 0", [[[1]]], [[0]], Fraction(0), 1, 1, 1, Fraction(1), [1], "zero"),
    _Base("long horizon T = 40, sigma > 0", [[[1]], [[3]]], [[1], [-1]], Fraction(1, 2), 1, 1, 40, Fraction(1),
          [3], "zero"),
    _Base("eta_g = 2 > 1, S = N = 2, mu = 0", [[[1]], [[1]]], [[2], [-2]], Fraction(1, 4), 2, 2, 5, Fraction(2),
          [1], "grad_x0", mu="zero"),
    _Base("one client x^2/2, K = 1, mu = 0, sigma = 0 (gradient descent; diverges for h > 2/beta)", [[[1]]], [[0]],
          Fraction(0), 1, 1, 5, Fraction(1), [1], "grad_star", mu="zero"),
    # -- where the theory's bounds are tightest (appended: the indices above stay as they were)
    _Base("noise floor: x0 = x*, c0 = grad f_i(x*), sigma > 0, S = 1 of N = 2, long horizon T = 200 (the noise "
          "term dominates)", [[[1]], [[2]]], [[1], [-1]], Fraction(1), 1, 2, 200, Fraction(1), "star", "grad_star",
          ladder=LADDER[:2], bits=20),
    _Base("noise floor with S = N = 3: x0 = x*, c0 = grad f_i(x*), sigma > 0, T = 40",
          [[[1]], [[2]], [[4]]], [[1], [0], [-2]], Fraction(1), 3, 2, 40, Fraction(1), "star", "grad_star",
          ladder=LADDER[:5]),
    _Base("eta_g = 1/2 < 1 (the same h as the eta_g = 2 case), sigma > 0, T = 10", [[[1]], [[3]]], [[1], [-1]],
          Fraction(1, 2), 1, 2, 10, Fraction(1, 2), [2], "grad_x0"),
    _Base("eta_g = 2 > 1 (the same h as the eta_g = 1/2 case), sigma > 0, T = 10", [[[1]], [[3]]], [[1], [-1]],
          Fraction(1, 2), 1, 2, 10, Fraction(2), [2], "grad_x0"),
    _Base("K = 20 local steps, S = 1 of N = 2, sigma > 0, T = 10", [[[1]], [[2]]], [[1], [-1]], Fraction(1),
          1, 20, 10, Fraction(1), [1], "grad_x0"),
    _Base("mu = beta (identical clients) with mu h <= S/(15 N) binding: S = 1 of N = 6, sigma > 0, T = 20",
          [[[1]]] * 6, [[3], [2], [1], [-1], [-2], [-3]], Fraction(1), 1, 2, 20, Fraction(1), [1], "zero"),
    _Base("long horizon T = 200 from x0 != x*, zero controls, S = N = 2, sigma > 0", [[[1]], [[2]]], [[1], [-1]],
          Fraction(1, 2), 2, 2, 200, Fraction(1), [2], "zero", ladder=LADDER[:1], bits=20),
    # only the control error moves the run: x0 = x*, no noise, controls that are not grad f_i(x*),
    # one client of two per round (what the 9 N h^2 C0 / S term of V0 pays for)
    _Base("controls off: x0 = x*, zero controls (C0 > 0), sigma = 0, S = 1 of N = 2, T = 10",
          [[[1]], [[2]]], [[1], [-1]], Fraction(0), 1, 2, 10, Fraction(1), "star", "zero"),
]


def _build(st, base: _Base, eta_l=None, rng=None) -> RunInstance:
    p = _problem(base.A, base.b, base.name)
    d = p.d
    x0 = (np.array(list(p.x_star_exact), dtype=object) if isinstance(base.x0, str) and base.x0 == "star"
          else np.array([Fraction(v) for v in base.x0], dtype=object))
    if st.init == "none":
        c0 = None
    elif base.c0 == "grad_star":
        c0 = p.grads_exact(p.x_star_exact)
    elif base.c0 == "grad_x0":
        c0 = p.grads_exact(x0)
    elif base.c0 == "zero":
        c0 = np.array([[Fraction(0)] * d for _ in range(p.N)], dtype=object)
    else:
        c0 = np.array([[Fraction(v) for v in r] for r in base.c0], dtype=object)
    inst = RunInstance(name=base.name, problem=p, sigma=base.sigma, S=base.S, K=base.K, T=base.T,
                       eta_l=eta_l if eta_l is not None else Fraction(1, 1000), eta_g=base.eta_g, x0=x0, c0=c0)
    inst.mu = Fraction(0) if base.mu == "zero" else None
    _fill_roles(st, inst, rng)
    return inst


def _fill_roles(st, inst, rng):
    """Values of the run's numerals and of free names (deterministic from ``rng``; structured
    candidates use the first choice)."""
    p = inst.problem
    for role in ("S", "K", "T", "eta_l", "eta_g"):
        node = st.run[role]
        if node.kind == "num":
            setattr(inst, role, int(node.value) if role in ("S", "K", "T") else Fraction(node.value))
    for prm in st.parameters:
        if prm.role == "free" and prm.name not in inst.free:
            if prm.kind == "nat":
                inst.free[prm.name] = 1 if rng is None else int(rng.integers(1, 5))
            elif prm.kind == "real":
                choices = [Fraction(1), Fraction(0), Fraction(1, 2), Fraction(2), Fraction(-1)]
                inst.free[prm.name] = choices[0] if rng is None else choices[int(rng.integers(0, len(choices)))]
            elif prm.kind == "vector":
                opts = [p.x_star_exact, np.asarray(inst.x0, dtype=object),
                        np.array([Fraction(1)] * p.d, dtype=object)]
                inst.free[prm.name] = opts[0] if rng is None else opts[int(rng.integers(0, len(opts)))]
            elif prm.kind == "controls":
                inst.free[prm.name] = p.grads_exact(p.x_star_exact)
    fl = st.role_of("f_low")
    if fl is not None and st.hypothesis("f_low") is None and inst.f_low is None:
        # the statement no longer assumes f_low <= F: try a lower "bound" above the minimum
        inst.f_low = p.f_star + (1 if rng is None else Fraction(int(rng.integers(0, 3))))
    if st.role_of("xstar") is not None and st.hypothesis("minimizer") is None and inst.xstar is None and rng is not None:
        opts = [None, np.asarray(inst.x0, dtype=object)]
        inst.xstar = opts[int(rng.integers(0, 2))]


def _rand_psd(rng, d, lo):
    M = [[Fraction(int(rng.integers(-2, 3)), 2) for _ in range(d)] for _ in range(d)]
    return [[sum(M[i][k] * M[j][k] for k in range(d)) + (lo if i == j else 0) for j in range(d)] for i in range(d)]


def _rand_rat(rng, lo, hi, den):
    a, b = math.ceil(Fraction(lo) * den), math.floor(Fraction(hi) * den)
    return Fraction(int(rng.integers(a, b + 1)), den)


def _random_base(st, rng) -> tuple:
    N = int(rng.integers(1, 4))
    S = int(rng.integers(1, N + 1))
    d = int(rng.integers(1, 3))
    K = int(rng.integers(1, 4))
    T = int(rng.integers(1, 7)) if rng.random() < 0.85 else int(rng.integers(10, 21))
    lo = Fraction(int(rng.integers(0, 3)), 4)
    A = [_rand_psd(rng, d, lo) for _ in range(N)]
    A[0] = [[A[0][i][j] + (Fraction(1, 4) if i == j else 0) for j in range(d)] for i in range(d)]
    b = [[_rand_rat(rng, -2, 2, 4) for _ in range(d)] for _ in range(N)]
    sigma = Fraction(0) if rng.random() < 0.3 else _rand_rat(rng, 0, 2, 4)
    eta_g = Fraction(1) if rng.random() < 0.5 else _rand_rat(rng, 1, 3, 4)
    if st.hypothesis("eta_g") is None and rng.random() < 0.3:
        eta_g = _rand_rat(rng, Fraction(1, 4), 1, 4)
    x0 = [_rand_rat(rng, -3, 3, 4) for _ in range(d)]
    u = rng.random()
    c0 = "grad_star" if u < 0.2 else "grad_x0" if u < 0.4 else "zero" if u < 0.55 else \
        [[_rand_rat(rng, -2, 2, 4) for _ in range(d)] for _ in range(N)]
    mu = "zero" if rng.random() < 0.3 else "problem"
    frac = Fraction(1) if rng.random() < 0.5 else _rand_rat(rng, Fraction(1, 8), 1, 8)
    mult = LADDER[int(rng.integers(0, len(LADDER)))]
    return _Base("random", A, b, sigma, S, K, T, eta_g, x0, c0, mu), frac, mult


_MEMO: list = []      # [(statement, {(edge case, relax): step data})], the last few statements


def _step_memo(st) -> dict:
    """Per-process memo of the structured candidates' largest steps (a pure function of the
    statement, the edge case and ``relax``: the nine step multiples of one edge case share it)."""
    for s, memo in _MEMO:
        if s is st:
            return memo
    _MEMO.append((st, {}))
    del _MEMO[:-4]
    return _MEMO[-1][1]


def structured_count(st) -> int:
    """Number of structured candidates (indices 0 .. structured_count - 1)."""
    return len(_STRUCTURED) * len(LADDER)


def candidate(st, seed: int, index: int, *, relax=()) -> tuple:
    """Candidate ``index`` for ``st``: ``(RunInstance, description)``, a pure function of
    ``(seed, index)`` (random candidates use ``default_rng([seed, index])``); hypotheses in
    ``relax`` are ignored when the step is chosen (the constant profile's relaxed draws).

    Structured candidate ``index < structured_count(st)`` is edge case ``index // len(LADDER)``
    at step multiple ``LADDER[index % len(LADDER)]`` of the largest admissible step (multiples
    above 1 only when the statement (or ``relax``) leaves the step unbounded or relaxed, and only
    those in the edge case's ``ladder``); the others are ``(None, why)`` (skipped)."""
    n = structured_count(st)
    relax = tuple(relax)
    if index < n:
        base = _STRUCTURED[index // len(LADDER)]
        mult = LADDER[index % len(LADDER)]
        frac = Fraction(1)
        rng = None
        if mult not in base.ladder:
            return None, f"multiple {mult} not tried for this edge case (long computation)"
    else:
        rng = np.random.default_rng([int(seed), int(index)])
        base, frac, mult = _random_base(st, rng)
    inst = _build(st, base, rng=rng)
    if rng is None:     # structured: the steps depend on (statement, edge case, relax) only
        key = (index // len(LADDER), relax)
        memo = _step_memo(st)
        if key not in memo:
            memo[key] = (max_eta_l(st, inst, bits=base.bits),
                         max_eta_l(st, inst, ignore=relax, bits=base.bits) if relax else None)
        (top, bounded), rest_pair = memo[key]
    else:
        top, bounded = max_eta_l(st, inst)
        rest_pair = max_eta_l(st, inst, ignore=relax) if relax else None
    rest, rest_bounded = rest_pair if relax else (top, bounded)
    free_step = not rest_bounded or bool(relax)
    if top is None and bounded and not relax:
        return None, "no admissible step"
    if not free_step:
        if mult != 1 and rng is None:
            return None, "step bounded by the hypotheses: one multiple only"
        inst.eta_l = top * frac
        how = "largest admissible step" if frac == 1 else f"{frac} x largest admissible step"
    else:
        if top is None:     # unbounded: measure from the seed's bound h = 1/(81 beta)
            top = Fraction(1) / (81 * inst.K * Fraction(inst.eta_g) * Fraction(inst.problem.beta))
            what = "the seed's bound 1/(81 beta)"
        else:
            what = "the largest admissible step"
        eta = top * mult * (frac if mult == 1 else 1)
        if rest is not None and rest_bounded and eta > rest:
            # the other hypotheses cap the step: keep the first multiple that reaches the cap
            prev = top * LADDER[LADDER.index(mult) - 1] if mult in LADDER and LADDER.index(mult) > 0 else None
            if prev is not None and prev >= rest and rng is None:
                return None, "the other hypotheses cap the step below this multiple"
            eta, what = rest, "the largest step the other hypotheses admit"
            mult = 1
        inst.eta_l = eta
        how = f"{mult} x {what}"
    return inst, f"{base.name}; eta_l = {how}"


@dataclass
class Record:
    """One decided (or rejected) candidate: ``status`` is ``holds``, ``violated``, ``outside``
    (a hypothesis fails), ``skipped`` or ``undecided``; exact ``lhs``/``rhs``; ``extra``
    carries constant-profile data."""

    index: int
    status: str
    description: str = ""
    instance: dict | None = None
    lhs: object = None
    rhs: object = None
    failing: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @property
    def ratio(self):
        if self.lhs is None or self.rhs is None:
            return None
        try:
            if decide_sign(self.rhs) > 0:
                return as_float(to_exact(self.lhs)) / as_float(to_exact(self.rhs)) \
                    if not isinstance(self.rhs, sympy.Basic) else float(self.lhs / self.rhs)
        except Exception:
            return None
        return None


def evaluate_candidate(st, seed: int, index: int, *, relax=(), profile=None) -> Record:
    """Draw candidate ``index`` and decide it exactly (a pure function of its arguments).

    ``profile``: list of :class:`Literal` whose per-instance data to compute (thresholds)."""
    try:
        inst, desc = candidate(st, seed, index, relax=relax)
    except InputError as exc:
        return Record(index, "skipped", str(exc))
    if inst is None:
        return Record(index, "skipped", desc)
    hyps = evaluate_hypotheses(st, inst)
    failing = [h.key for h in hyps if not h.holds and h.key not in relax]
    rec = Record(index, "outside" if failing else "pending", desc, instance_to_json(inst), failing=failing)
    if failing:
        return rec
    try:
        lhs, rhs, val = sides_exact(st, inst)
        s = compare(lhs, rhs)
    except (EvaluationError, Undecided) as exc:
        rec.status = "undecided"
        rec.description += f" ({exc})"
        return rec
    holds = s >= 0 if st.relation == "≤" else s > 0
    rec.lhs, rec.rhs = lhs, rhs
    rec.status = "holds" if holds else "violated"
    for lit in profile or ():
        try:
            rec.extra[lit.key] = lit.instance_data(st, inst, val, lhs, rhs, holds)
        except (EvaluationError, Undecided, ZeroDivisionError, InputError) as exc:
            rec.extra[lit.key] = {"error": str(exc)}
        except (OverflowError, RecursionError) as exc:
            # sympy on gigantic exact numbers (e.g. factoring the integer under a square root of
            # a long-horizon value): this constant's threshold is not determined on this instance
            rec.extra[lit.key] = {"error": f"the threshold's closed form is too large to compute "
                                           f"({type(exc).__name__})"}
    return rec


@dataclass
class SearchResult:
    """Records of a search, in index order, and its verdict."""

    records: list
    verdict: object
    seed: int
    budget: int


def _task(st, task, rng=None) -> Record:
    """Worker side of :func:`search` / :func:`constant_profile`: ``task = (seed, index, relax,
    keys)`` decided by :func:`evaluate_candidate` with the profile literals whose keys are in
    ``keys`` (recomputed from ``st`` here: a literal refers to its syntax node by identity, which
    pickling to a worker does not keep across separately pickled objects). ``rng`` is unused
    (candidates draw from ``default_rng([seed, index])`` themselves)."""
    seed, index, relax, keys = task
    lits = [lit for lit in literals(st) if lit.key in keys] if keys else None
    return evaluate_candidate(st, seed, index, relax=tuple(relax), profile=lits)


def _map(st, tasks, pool, progress) -> list:
    """Records of ``tasks`` in task order, serially (``pool`` None) or through
    :meth:`pyfed.parallel.Pool.map`."""
    fn = functools.partial(_task, st)
    if pool is None:
        out = []
        for t in tasks:
            out.append(fn(t))
            if progress:
                progress(1)
        return out
    return pool.map(fn, tasks, progress=progress)


def search(st, *, seed: int = 0, budget: int = 24, relax=(), profile=None, progress=None,
           indices=None, pool=None) -> SearchResult:
    """Adversarial search: every structured candidate, then ``budget`` random ones, each decided
    exactly; returns the records and a verdict (Violated with the first violation in index
    order as an exactly re-checkable witness; otherwise Inconclusive: no counterexample among
    the decided instances, with the tightest one).

    ``profile``: :class:`Literal` s (of ``literals(st)``) whose per-instance data to compute;
    ``progress(k)``: called as k candidates finish; ``pool``: a :class:`pyfed.parallel.Pool`
    to evaluate the candidates on (None: serially here). The result does not depend on the pool."""
    n = structured_count(st)
    idx = list(indices) if indices is not None else list(range(n + int(budget)))
    keys = tuple(lit.key for lit in profile) if profile else ()
    records = _map(st, [(seed, i, tuple(relax), keys) for i in idx], pool, progress)
    return SearchResult(records, _verdict(st, records, seed, budget, relax), seed, budget)


def _verdict(st, records, seed, budget, relax):
    decided = [r for r in records if r.status in ("holds", "violated")]
    viol = [r for r in decided if r.status == "violated"]
    details = {"engine": "adversarial search (exact moments, exact rationals)", "seed": seed, "budget": budget,
               "candidates": len(records), "decided": len(decided), "holds": len(decided) - len(viol),
               "violated": len(viol), "outside_hypotheses": sum(r.status == "outside" for r in records),
               "undecided": sum(r.status == "undecided" for r in records),
               "instance": f"adversarial search ({len(decided)} exactly decided instances)",
               "relax": list(relax)}
    if viol:
        r = viol[0]
        details.update(lhs_exact=_s(r.lhs), rhs_exact=_s(r.rhs), margin_exact=_s(arith("-", r.rhs, r.lhs)),
                       index=r.index, description=r.description,
                       search_result=f"counterexample (candidate {r.index})",
                       witness_text=violation_wording(st.relation, _short_side(r.lhs), _short_side(r.rhs),
                                                      compare(r.lhs, r.rhs) == 0))
        return Violated(st.name, _num(r.lhs), _num(r.rhs), True, details,
                        witness={"instance": r.instance, "statement": st.name, "source": st.source,
                                 "index": r.index, "seed": seed})
    tight = [r for r in decided if r.ratio is not None]
    if tight:
        t = max(tight, key=lambda r: (r.ratio, -r.index))
        details.update(tightest_index=t.index, tightest=t.description, tightest_instance=t.instance,
                       lhs_exact=_s(t.lhs), rhs_exact=_s(t.rhs), tightest_exact=True)
        lhs, rhs = _num(t.lhs), _num(t.rhs)
    else:
        lhs = rhs = None
    details["search_result"] = f"no counterexample among {len(decided)} decided"
    return Inconclusive(st.name, lhs, rhs, True, details,
                        reason=(f"no counterexample among {len(decided)} exactly decided instances "
                                "(a finite search proves nothing)"))


def _short_side(v) -> str:
    """A side for a one-line witness: the exact rational when at most 40 characters, else ``~``
    its 6 correctly rounded digits (the JSON report has every digit)."""
    from ..exact import format_number
    e = _s(v)
    return e if len(e) <= 40 else "~" + format_number(to_exact(v))


def _s(v):
    v = to_exact(v)
    return rational_str(v) if isinstance(v, Fraction) else str(v)


def _num(v):
    v = to_exact(v)
    if isinstance(v, sympy.Basic):
        import mpmath
        return mpmath.mpf(str(sympy.N(v, 50)))
    return v


# --------------------------------------------------------------------------- constant profile

@dataclass
class Literal:
    """A numeric constant the profile varies.

    key : stable name (``"convexRHS.noise=12"``, ``"step_size:81@12:33"``); value : its value;
    where : ``"rhs"`` (model constant or literal of the right side) or ``"hypothesis"``;
    description; location (``file:line:col`` for literals of the file); ``node`` (the literal's
    syntax node) or ``model`` (``(definition, key)`` of a model constant); ``hyp`` (the
    hypothesis key).
    """

    key: str
    value: Fraction
    where: str
    description: str
    location: str = ""
    node: object = None
    model: tuple | None = None
    hyp: str | None = None

    def _with(self, val, c):
        if self.model is not None:
            val.constants[self.model] = c
        else:
            val.literal_overrides[id(self.node)] = c

    def _reset(self, val):
        if self.model is not None:
            val.constants.pop(self.model, None)
        else:
            val.literal_overrides.pop(id(self.node), None)

    def instance_data(self, st, inst, val, lhs, rhs, holds) -> dict:
        """Per-instance data: for a right-side constant the threshold t with rhs(c) = lhs
        (violated for c on the unsafe side of t); for a hypothesis constant the boundary b of
        the hypothesis in c (admitted on one side) and whether the inequality holds."""
        c = sympy.Symbol("c")
        if self.where == "rhs":
            self._with(val, Fraction(0))
            r0 = to_exact(evaluate(st.rhs, val))
            self._with(val, Fraction(1))
            r1 = to_exact(evaluate(st.rhs, val))
            self._reset(val)
            slope = r1 - r0
            if isinstance(r0, Fraction) and isinstance(r1, Fraction) and r0 + self.value * slope == to_exact(rhs):
                if slope == 0:
                    return {"slope": "0"}
                t = (to_exact(lhs) - r0) / slope
                return {"threshold": t, "slope_sign": 1 if slope > 0 else -1}
            self._with(val, c)
            expr = sympy.sympify(evaluate(st.rhs, val)) - sympy.sympify(lhs)
            self._reset(val)
            return _solve_side(expr, c, self.value, "rhs")
        h = st.hypothesis(self.hyp)
        self._with(val, c)
        try:
            g = sympy.sympify(evaluate(h.node.args[1], val)) - sympy.sympify(evaluate(h.node.args[0], val))
        finally:
            self._reset(val)
        out = _solve_side(g, c, self.value, "hyp")
        out["holds"] = holds
        return out


def _solve_side(expr, c, current, kind) -> dict:
    """Root of ``expr(c) = 0`` nearest to the current value and the side where ``expr >= 0``."""
    expr = sympy.together(sympy.sympify(expr))
    if not expr.has(c):
        return {"constant": bool(decide_sign(expr) >= 0)}
    try:
        roots = [r for r in sympy.solve(sympy.Eq(expr, 0), c) if r.is_real]
    except (NotImplementedError, TypeError, ValueError) as exc:   # e.g. min/max of the constant: no closed form
        raise Undecided(f"no closed-form threshold for the constant in {_compact_expr(expr, c)}") from exc
    roots = [r for r in roots if decide_sign(r) > 0] or roots
    if not roots:
        v = expr.subs(c, sympy.Rational(current.numerator, current.denominator))
        return {"constant": bool(decide_sign(v) >= 0)}
    r = roots[0]
    probe = r * 2 if decide_sign(r) != 0 else sympy.Integer(1)
    up = decide_sign(sympy.simplify(expr.subs(c, probe)))
    return {"threshold": to_exact(r), "positive_above": up > 0}


def _compact_expr(expr, c, limit: int = 80) -> str:
    """Short text of an expression in the constant ``c`` for a message: ``~`` its form with every
    number rounded to 6 significant digits when that fits in ``limit`` characters, else the
    functions it applies (``an expression in c with Max, Min, sqrt``); never a number cut off."""
    try:
        import re
        text = "~" + re.sub(r"(?<![\d.e])1\.0\*", "", sympy.sstr(expr.evalf(6)).replace(" ", ""))
    except Exception:   # display only
        text = ""
    if text and len(text) <= limit:
        return text
    funcs = sorted({type(f).__name__ for f in sympy.preorder_traversal(expr)
                    if f.args and not isinstance(f, (sympy.Add, sympy.Mul, sympy.Pow))} |
                   ({"sqrt"} if any(p.exp == sympy.Rational(1, 2) for p in expr.atoms(sympy.Pow)) else set()))
    return f"an expression in {c} with {', '.join(funcs)}" if funcs else f"an expression in {c}"


def literals(st) -> list:
    """The constants the profile varies: the model's constants inside the right side
    (``convexRHS``: 9, 12; ``nonconvexRHS``: 14, 70), the file's numerals of the right side
    (other than 0, 1, exponents and natural-number ones), and the numerals of each step-size
    hypothesis (other than 0, 1 and exponents)."""
    from ..statements import model
    out = []
    seen_models = set()

    def walk_rhs(node, seen_defs):
        for n in node.walk():
            if n.kind == "app" and n.head_name() in ("convexRHS", "nonconvexRHS", "initialPotential"):
                for (defn, key), (value, what, _kw) in model.MODEL_CONSTANTS.items():
                    if defn == n.head_name() and (defn, key) not in seen_models:
                        if defn == "initialPotential" and ("convexRHS", "potential") in seen_models:
                            continue
                        seen_models.add((defn, key))
                        out.append(Literal(f"{defn}.{key}={value}", Fraction(value), "rhs",
                                           f"{value} in {defn}: {what}", model=(defn, key)))
            if n.kind == "app" and n.head_name() in st.definitions and n.head_name() not in seen_defs:
                d = st.definitions[n.head_name()]
                seen_defs.add(d.name)
                walk_rhs(d.body, seen_defs)
        for n in _numerals(node):
            out.append(Literal(f"rhs:{n.text}@{n.line}:{n.col}", Fraction(n.value_fraction), "rhs",
                               f"the numeral {n.text} of the right side", f"{st.location.path}:{n.line}:{n.col}",
                               node=n))

    walk_rhs(st.rhs, set())
    for h in st.hypotheses:
        if not h.step:
            continue
        for n in _numerals(h.node):
            out.append(Literal(f"{h.key}:{n.text}@{n.line}:{n.col}", Fraction(n.value_fraction), "hypothesis",
                               f"the numeral {n.text} of the hypothesis `{h.text}`",
                               f"{st.location.path}:{n.line}:{n.col}", node=n, hyp=h.key))
    return out


def _numerals(node):
    """Real-typed numerals other than 0 and 1, outside exponents and Real.rpow exponents; a
    quotient of two numerals (``1 / 2``) is one constant."""
    skip = set()
    for n in node.walk():
        if n.kind == "binop" and n.value in ("^", "^r"):
            skip |= {id(x) for x in n.args[1].walk()}
        if n.kind == "app" and n.head_name() == "Real.rpow" and len(n.args) == 3:
            skip |= {id(x) for x in n.args[2].walk()}
    for n in node.walk():
        if id(n) in skip or n.ty != "real":
            continue
        if n.kind == "binop" and n.value == "/" and all(a.kind == "num" for a in n.args):
            skip |= {id(a) for a in n.args}
            v = n.args[0].value / n.args[1].value if n.args[1].value else None
            if v is not None and v not in (0, 1):
                n.value_fraction = v
                yield n
        elif n.kind == "num" and n.value not in (0, 1):
            n.value_fraction = n.value
            yield n


def _hyp_groups(lits) -> list:
    """[(hypothesis key, [its literals])] in order of first appearance: one relaxed search per
    hypothesis serves all of its numerals."""
    groups: dict = {}
    for lit in lits:
        if lit.where == "hypothesis":
            groups.setdefault(lit.hyp, []).append(lit)
    return list(groups.items())


def profile_size(st, budget: int, only=None) -> int:
    """Number of candidates :func:`constant_profile` evaluates (for a progress bar's total):
    ``(structured_count + budget)`` once for the right side and once per relaxed hypothesis."""
    lits = [lit for lit in literals(st) if only is None or lit.key in set(only)]
    return (structured_count(st) + int(budget)) * (1 + len(_hyp_groups(lits)))


def constant_profile(st, *, seed: int = 0, budget: int = 24, progress=None, pool=None, only=None) -> dict:
    """The constant profile of ``st`` (see the module docstring).

    Right-side constants are profiled on the search's decided instances; the numerals of each
    step hypothesis on instances drawn with that hypothesis relaxed (steps up to 243 times the
    admissible one), decided exactly. All candidates go through one map (``pool``: a
    :class:`pyfed.parallel.Pool`, None: serially here; ``progress(k)`` as k of
    :func:`profile_size` candidates finish); the output does not depend on the pool.

    Returns ``{"statement", "source", "seed", "budget", "instances": N (decided instances of the
    unrelaxed search), "candidates": profile_size, "violated": None or {"index", "description",
    "lhs", "rhs"} (the statement is already violated at its own constants, inside its
    hypotheses: the first such candidate), "constants": [...]}``. Each constant has ``constant``
    (its value in the statement), ``direction`` ("at least": larger is safer, "at most"),
    ``needed`` (exact "p/q" of the threshold, or None), ``needed_float``, ``needed_decimal`` (6
    significant digits rounded outward, toward the safe side: a certified bound on the
    threshold), ``strict``, ``not_needed`` (a right-side constant whose threshold is <= 0: any
    value >= 0 works on these instances), ``violated_at_own_value`` (the statement's own value is
    on the unsafe side), ``pinned_by`` (the instance's index, description and exact JSON),
    ``decided``, ``note``, ``excludes_violation`` (hypothesis constants: True when the threshold
    shown excludes the violations drawn; False when no value does (every value admits one, or the
    pinning violation persists with ηl halved, :func:`_smaller_steps`, with
    ``excludes_violation_reason``); None for right-side constants and relaxed searches without
    a violation) and a ``statement`` sentence. Same seed and budget give identical
    output. ``only``: profile just the constants with these keys (the unrelaxed search is always
    run: it decides ``violated``); InputError for an unknown key."""
    lits = literals(st)
    if only is not None:
        unknown = set(only) - {lit.key for lit in lits}
        if unknown:
            raise InputError("only", f"no such constant: {', '.join(sorted(unknown))}; the constants are "
                                     f"{', '.join(lit.key for lit in lits)}")
        lits = [lit for lit in lits if lit.key in set(only)]
    rhs_keys = tuple(lit.key for lit in lits if lit.where == "rhs")
    groups = _hyp_groups(lits)
    idx = list(range(structured_count(st) + int(budget)))
    tasks = [(seed, i, (), rhs_keys) for i in idx]
    for hyp, hl in groups:
        tasks += [(seed, i, (hyp,), tuple(lit.key for lit in hl)) for i in idx]
    records = _map(st, tasks, pool, progress)
    parts = [records[k * len(idx):(k + 1) * len(idx)] for k in range(1 + len(groups))]

    def decided(recs):
        return [r for r in recs if r.status in ("holds", "violated")]

    base = decided(parts[0])
    out = {"statement": st.name, "source": st.source, "seed": seed, "budget": budget, "instances": len(base),
           "candidates": len(tasks), "violated": None, "constants": []}
    viol = [r for r in base if r.status == "violated"]
    if viol:
        out["violated"] = {"index": viol[0].index, "description": viol[0].description, "lhs": _s(viol[0].lhs),
                           "rhs": _s(viol[0].rhs)}
    for lit in lits:
        if lit.where == "rhs":
            out["constants"].append(_profile_rhs(lit, base))
    for k, (hyp, hl) in enumerate(groups):
        dec = decided(parts[k + 1])
        for lit in hl:
            out["constants"].append(_profile_hyp(lit, dec, st))
    return out


def _fmt(v):
    v = to_exact(v)
    if isinstance(v, Fraction):
        return rational_str(v)
    return str(v)


def _float(v):
    v = to_exact(v)
    return as_float(v) if isinstance(v, Fraction) else float(sympy.N(v, 30))


def _enclosure(v) -> tuple:
    """(lo, hi) Fractions with lo <= v <= hi: v itself for a rational; for an exact irrational
    sympy number (roots of the hypotheses' rpow terms) its 60-digit evaluation widened by a
    relative 10^-40 (far beyond evalf's guaranteed accuracy at that precision)."""
    v = to_exact(v)
    if isinstance(v, Fraction):
        return v, v
    approx = Fraction(str(sympy.N(v, 60)))
    w = abs(approx) / 10**40 + Fraction(1, 10**300)
    return approx - w, approx + w


def outward_decimal(v, up: bool, digits: int = 6) -> str:
    """A decimal of ``digits`` significant digits bounding the exact number ``v`` from above
    (``up``) or below: every printed digit is certified, and the rounding goes toward the safe
    side of a threshold (up for "at least", down for "at most"). Integers and short decimals
    that are exact print as themselves."""
    lo, hi = _enclosure(v)
    f = hi if up else lo
    if f == 0:
        return "0"
    neg = f < 0
    n, d = abs(f.numerator), f.denominator
    e = _decimal_exponent(n, d)
    shift = digits - 1 - e
    num, den = (n * 10 ** shift, d) if shift >= 0 else (n, d * 10 ** (-shift))
    m, rem = divmod(num, den)
    away = up != neg           # rounding up a positive or down a negative: away from zero
    if rem and away:
        m += 1
    if m == 10 ** digits:
        m //= 10
        e += 1
    text = str(m).rstrip("0") or "0"
    return _format_digits("-" if neg else "", text, e, digits)


def _display(needed, own, up: bool) -> str:
    """Short certified text of a threshold: itself when its "p/q" is short (<= 12 characters);
    ``own ± δ`` (δ rounded toward the safe side) when it lies within a relative 10^-4 of the
    statement's own value ``own`` (a violation at a hypothesis boundary: 24.0001 would hide how
    close it is); else :func:`outward_decimal`."""
    text = _fmt(needed)
    if len(text) <= 12:
        return text
    lo, hi = _enclosure(needed)
    own = Fraction(own)
    if own != 0 and abs((lo if up else hi) - own) < abs(own) / 10**4:
        diff = ((hi if up else lo) - own)
        if diff != 0:
            p = outward_decimal(diff, up=up)
            return f"{_fmt(own)} {'-' if p.startswith('-') else '+'} {p.lstrip('-')}"
    return outward_decimal(needed, up=up)


def _cmp(direction, strict) -> str:
    return (">" if strict else ">=") if direction == "at least" else ("<" if strict else "<=")


def _entry(lit, n, needed, strict, pin, direction, note, *, not_needed=False):
    e = {"key": lit.key, "constant": _fmt(lit.value), "description": lit.description, "location": lit.location,
         "decided": n, "direction": direction, "needed": None if needed is None else _fmt(needed),
         "needed_float": None if needed is None else _float(needed),
         "needed_decimal": None if needed is None else outward_decimal(needed, up=direction == "at least"),
         "strict": strict, "not_needed": bool(not_needed), "violated_at_own_value": False, "note": note,
         "excludes_violation": None}
    if pin is not None:
        e["pinned_by"] = {"index": pin.index, "description": pin.description, "instance": pin.instance,
                          "lhs": _s(pin.lhs), "rhs": _s(pin.rhs)}
    cmp = _cmp(direction, strict)
    e["needed_display"] = None
    if needed is not None:
        s = decide_sign(lit.value - needed) if direction == "at least" else decide_sign(needed - lit.value)
        e["violated_at_own_value"] = bool(s < 0 or (s == 0 and strict))
        e["needed_display"] = _display(needed, lit.value, up=direction == "at least")
    if not_needed:
        e["statement"] = (f"{lit.description}: not needed on {n} exactly decided instances (any value >= 0 works; "
                          f"the threshold is {e['needed_decimal']})")
    elif needed is None:
        e["statement"] = f"{lit.description}: {note} (on {n} exactly decided instances)"
    else:
        t = e["needed_display"] + ("" if e["needed_display"] == e["needed"] else " (rounded toward the safe side)")
        e["statement"] = (f"{lit.description}: no violation on {n} exactly decided instances iff the constant is "
                          f"{cmp} {t}; the statement has {_fmt(lit.value)}")
        if note:
            e["statement"] += f" ({note})"
    return e


def _profile_rhs(lit, records):
    best, pin, strict, direction = None, None, False, "at least"
    for r in records:
        d = r.extra.get(lit.key) or {}
        if "threshold" not in d:
            continue
        t = d["threshold"]
        if d.get("slope_sign", 1) > 0 or d.get("positive_above", True):
            if best is None or decide_sign(t - best) > 0:
                best, pin = t, r
        else:
            direction = "at most"
            if best is None or decide_sign(best - t) > 0:
                best, pin = t, r
    note = "" if best is not None else "no decided instance depends on it"
    not_needed = best is not None and direction == "at least" and decide_sign(best) <= 0
    failed = _failed(lit, records)
    if failed:      # a threshold that could not be computed is not evidence that the constant is free
        not_needed = False
        note = failed if best is None else f"{failed}; the value shown is from the others"
    return _entry(lit, len(records), best, strict, pin, direction, note, not_needed=not_needed)


def _failed(lit, records) -> str:
    """"" when every decided instance gave this constant's data, else a note saying on how many
    it could not be computed and why (the first reason)."""
    errs = [(r.extra.get(lit.key) or {}).get("error") for r in records]
    errs = [e for e in errs if e]
    if not errs:
        return ""
    return f"not determined on {len(errs)} of {len(records)} decided instances ({errs[0]})"


#: How many times the pinning instance's step is halved to see whether its violation persists.
PERSIST_HALVINGS = 3


def _smaller_steps(st, lit, pin, best, admitted_below: bool) -> tuple:
    """Re-decide the pinning instance ``pin`` of a hypothesis constant exactly with ηl halved
    1, 2, … :data:`PERSIST_HALVINGS` times (every other hypothesis must still hold). Returns
    ``(persists, further)``: ``persists`` is True when every halving is still violated and
    admitted by the hypothesis for constants beyond ``best`` (no value of the constant excludes
    that violation: each smaller step moves the boundary further); ``further`` is the list of
    ``(boundary, Record)`` of the violated halvings beyond ``best`` (real violations the
    threshold must also exclude when the violation does not persist at every halving)."""
    from .statement import instance_from_json
    further = []
    for k in range(1, PERSIST_HALVINGS + 1):
        try:
            inst = instance_from_json(pin.instance)
            inst.eta_l = Fraction(inst.eta_l) / 2 ** k
            if any(not h.holds and h.key != lit.hyp for h in evaluate_hypotheses(st, inst)):
                return False, further
            lhs, rhs, val = sides_exact(st, inst)
            s = compare(lhs, rhs)
            holds = s >= 0 if st.relation == "≤" else s > 0
            if holds:
                return False, further
            d = lit.instance_data(st, inst, val, lhs, rhs, holds)
        except (EvaluationError, Undecided, ZeroDivisionError, InputError):
            return False, further
        b = d.get("threshold")
        if b is None or (not d.get("positive_above", False)) != admitted_below:
            return False, further
        beyond = decide_sign(b - best) > 0 if admitted_below else decide_sign(best - b) > 0
        if not beyond:
            return False, further
        rec = Record(pin.index, "violated", f"{pin.description}; eta_l halved {k} time{'s' if k > 1 else ''}",
                     instance_to_json(inst), lhs=lhs, rhs=rhs)
        further.append((b, rec))
    return True, further


def _profile_hyp(lit, records, st=None):
    """Violating instances constrain the constant: the hypothesis admits the instance on one
    side of its boundary b; the constant is safe iff every violating instance is excluded.

    With ``st``, the pinning instance is re-decided at smaller steps (:func:`_smaller_steps`):
    a violation that persists there is not excluded by any value of the constant (a step-size
    constant's boundary moves with the step), and the entry says so (``excludes_violation``
    False, ``needed`` None) instead of showing the pinning instance's boundary as a threshold;
    violated halvings that do not persist all the way raise the threshold to theirs."""
    best, pin = None, None
    direction = "at least"
    admitted_all = []
    for r in records:
        d = r.extra.get(lit.key) or {}
        if d.get("holds", True) or "threshold" not in d:
            if "constant" in d and not d.get("holds", True) and d["constant"]:
                admitted_all.append(r)
            continue
        b = d["threshold"]
        # the hypothesis holds (instance admitted) where g(c) >= 0: below b if g decreases
        admitted_below = not d.get("positive_above", False)
        if admitted_below:
            if best is None or decide_sign(b - best) > 0:
                best, pin = b, r
        else:
            direction = "at most"
            if best is None or decide_sign(best - b) > 0:
                best, pin = b, r
    if admitted_all:
        e = _entry(lit, len(records), None, False, admitted_all[0], direction,
                   "every value of this constant admits a violating instance")
        e["violated_at_own_value"] = True
        e["excludes_violation"] = False
        return e
    failed = _failed(lit, records)
    if failed and best is None:
        return _entry(lit, len(records), None, True, None, direction, failed)
    if best is None:
        bs = [(r.extra.get(lit.key) or {}).get("threshold") for r in records]
        bs = [b for b in bs if b is not None and decide_sign(b) > 0]
        note = "no violation with this hypothesis relaxed"
        if bs:
            lo = min(bs, key=_float)
            note += f" (explored down to {outward_decimal(lo, up=False)})"
        return _entry(lit, len(records), None, True, None, direction, note)
    if st is not None:
        persists, further = _smaller_steps(st, lit, pin, best, direction == "at least")
        if persists:
            e = _entry(lit, len(records), None, True, pin, direction, PERSIST_NOTE)
            e["violated_at_own_value"] = True
            e["excludes_violation"] = False
            e["excludes_violation_reason"] = (
                f"the pinning violation (boundary {outward_decimal(best, up=direction == 'at least')}) is still "
                f"violated, and admitted beyond that boundary, with eta_l halved 1 to {PERSIST_HALVINGS} times")
            return e
        if further:
            best, pin = further[-1]
    e = _entry(lit, len(records), best, True, pin, direction,
               f"{failed}; the value shown is from the others" if failed else "")
    if st is not None:
        e["excludes_violation"] = True
    return e


#: The note of a hypothesis constant whose pinning violation persists at smaller steps.
PERSIST_NOTE = "no value excludes the violations drawn (they persist at smaller steps)"
