"""Candidates of the adversarial search: rational quadratic instances drawn *inside the statement's
own hypotheses*, each a pure function of ``(seed, index)`` (:func:`candidate`; random ones use
``numpy.random.default_rng([seed, index])``).

The first candidates are structured edge cases: x0 = x⋆ with c0 = ∇fᵢ(x⋆) and σ > 0 (only the
noise is left), the same with σ = 0, full participation S = N and S = 1 of N = 3, a client that
is not strongly convex (μ = 0), T = 1 and a long horizon, ηg > 1; then the instances where the
convex / nonconvex bounds are tightest: the noise floor (x0 = x⋆, c0 = ∇fᵢ(x⋆), σ > 0, the
largest admissible step, T = 200 so that the noise term is all the right side has and the left
side has climbed to it), the noise floor with S = N = 3, ηg = 1/2 and ηg = 2 at the same
h = K ηl ηg, K = 20 local steps, μ = β (identical clients) with few of them sampled (where a
hypothesis μ h ≤ S/(c N) binds), and a
long horizon T = 200 from x0 ≠ x⋆. Each is labelled by its description. The step ``ηl`` of each
candidate is the largest one the hypotheses admit (found exactly,
:func:`pyfed.models.scaffold.hypotheses.max_eta_l`) or a fraction of it; when the statement
puts no upper bound on the step (it dropped the model's step-size hypothesis) the search goes where
that hypothesis used to fence it off: from the step bound of the model's convex theorem (read from
``lean/Pyfed/Scaffold/Theorems.lean``, :func:`.ours.reference_step_bound`) up to h = 3/β, beyond
divergence; a statement with a step bound of its own has its candidates' steps measured from that
bound, with the multiples that reach h β = 1, 2 and 3 derived from it (:func:`step_ladder`; the T =
200 cases try fewer multiples: each costs about a second of exact arithmetic)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from ...engines.statement.naturals import (
    moved_note,
    natural_hypotheses,
    nearest_naturals,
    numerals_of,
)
from ...exact import rational_str
from ...problems.quadratic import QuadraticProblem
from .hypotheses import _admissible, max_eta_l
from .instance import RunInstance
from .ours import reference_step_bound

__all__ = ["candidate", "structured_count", "step_ladder", "SLOTS", "DOUBLINGS"]


#: Multiples of the base step tried when the step is free (relaxed or unbounded): doublings, then
#: the three multiples of :func:`step_ladder` that reach h β = 1, 2, 3.
DOUBLINGS = (1, 2, 4, 8, 16, 32)
SLOTS = len(DOUBLINGS) + 3
#: The largest denominator of a statement's own h β bound the ladder is derived from (an irrational
#: bound such as (S/N)^(2/3)/(24 β), approached by a long rational, uses the model theorem's).
SIMPLE_DENOMINATOR = 10_000


def step_ladder(b) -> tuple:
    """The multiples of a base step with h β = ``b`` tried when the step is free: 1, 2, …, 32, then
    1/b, 2/b, 3/b (h β = 1, 2 and 3: gradient descent diverges beyond 2/β)."""
    b = Fraction(b)
    return DOUBLINGS + tuple(Fraction(k) / b for k in (1, 2, 3))


def _base_scale(st, inst, top) -> Fraction:
    """h β of the base step: the statement's own bound (``top``, the largest admissible ηl) when it
    is a short rational, else the model theorem's (:func:`.ours.reference_step_bound`)."""
    if top is not None:
        b = Fraction(top) * inst.K * Fraction(inst.eta_g) * Fraction(inst.problem.beta)
        if 0 < b and b.denominator <= SIMPLE_DENOMINATOR:
            return b
    return reference_step_bound()


def _q(v) -> str:
    return rational_str(Fraction(v))


def _mat(rows):
    return [[Fraction(v) for v in r] for r in rows]


def _problem(A, b, name="candidate"):
    return QuadraticProblem(np.array([_mat(a) for a in A], dtype=object),
                            np.array([[Fraction(v) for v in bi] for bi in b], dtype=object), name=name)


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
    slots: int = SLOTS        # step multiples tried when the step is free (expensive cases: the first few)
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
          slots=2, bits=20),
    _Base("noise floor with S = N = 3: x0 = x*, c0 = grad f_i(x*), sigma > 0, T = 40",
          [[[1]], [[2]], [[4]]], [[1], [0], [-2]], Fraction(1), 3, 2, 40, Fraction(1), "star", "grad_star",
          slots=5),
    _Base("eta_g = 1/2 < 1 (the same h as the eta_g = 2 case), sigma > 0, T = 10", [[[1]], [[3]]], [[1], [-1]],
          Fraction(1, 2), 1, 2, 10, Fraction(1, 2), [2], "grad_x0"),
    _Base("eta_g = 2 > 1 (the same h as the eta_g = 1/2 case), sigma > 0, T = 10", [[[1]], [[3]]], [[1], [-1]],
          Fraction(1, 2), 1, 2, 10, Fraction(2), [2], "grad_x0"),
    _Base("K = 20 local steps, S = 1 of N = 2, sigma > 0, T = 10", [[[1]], [[2]]], [[1], [-1]], Fraction(1),
          1, 20, 10, Fraction(1), [1], "grad_x0"),
    _Base("mu = beta (identical clients), few sampled clients (where a mu h <= S/(c N) step hypothesis binds): "
          "S = 1 of N = 6, sigma > 0, T = 20",
          [[[1]]] * 6, [[3], [2], [1], [-1], [-2], [-3]], Fraction(1), 1, 2, 20, Fraction(1), [1], "zero"),
    _Base("long horizon T = 200 from x0 != x*, zero controls, S = N = 2, sigma > 0", [[[1]], [[2]]], [[1], [-1]],
          Fraction(1, 2), 2, 2, 200, Fraction(1), [2], "zero", slots=1, bits=20),
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


#: Largest values a moved natural takes (a candidate's cost grows with them).
NATURAL_CAPS = {"N": 8, "S": 8, "K": 32, "T": 200}


def _movable_naturals(st) -> dict:
    """{name: role} of the statement's naturals a candidate may move: the problem's client count
    (role "N"), the run's S, K, T when they are names (not numerals), free ℕ parameters ("free")."""
    out = {}
    pa = list(getattr(st, "problem_args", []))
    if len(pa) > 1 and pa[1].kind == "ident":
        out[pa[1].text] = "N"
    for role in ("S", "K", "T"):
        node = st.run[role]
        if node is not None and node.kind == "ident":
            out[node.text] = role
    for prm in st.parameters:
        if prm.role == "free" and prm.kind == "nat":
            out[prm.name] = "free"
    return out


def _cycled(rows, n):
    return [rows[i % len(rows)] for i in range(n)]


def _move_naturals(st, base: _Base, inst: RunInstance, rng):
    """``(instance, note)``: ``inst`` with its naturals moved to the nearest values the statement's
    natural-only hypotheses admit (:func:`pyfed.engines.statement.naturals.nearest_naturals`), or
    unchanged with note "" when they already hold, none applies, or no values within
    :data:`NATURAL_CAPS` do. A new client count N' rebuilds the edge case with its clients
    repeated cyclically (client i' is client i' mod N); the random draws of the free parameters are
    replayed from ``rng``'s state (pure in ``(seed, index)``)."""
    movable = _movable_naturals(st)
    compares = [h for h in st.hypotheses if h.kind == "compare"]
    hyps = natural_hypotheses(compares, movable, {p.name for p in st.parameters if p.kind == "nat"}) if movable else []
    if not hyps:
        return inst, ""
    state = None if rng is None else rng.bit_generator.state
    built = {inst.problem.N: inst}

    def at_n(n):
        if n not in built:
            b2 = replace(base, A=_cycled(base.A, n), b=_cycled(base.b, n), S=min(base.S, n),
                         c0=base.c0 if isinstance(base.c0, str) else _cycled(base.c0, n))
            r2 = None
            if state is not None:
                r2 = np.random.default_rng()
                r2.bit_generator.state = state
            built[n] = _build(st, b2, rng=r2)
        return built[n]

    def current_of(i):
        return {name: int(i.problem.N if role == "N" else i.free[name] if role == "free" else getattr(i, role))
                for name, role in movable.items()}

    def assign(a):
        n = next((a[name] for name, role in movable.items() if role == "N"), inst.problem.N)
        i = at_n(n)
        for name, role in movable.items():
            if role == "free":
                i.free[name] = a[name]
            elif role != "N":
                setattr(i, role, a[name])
        return i

    def admissible(a):
        N = next((a[name] for name, role in movable.items() if role == "N"), inst.problem.N)
        S = next((a[name] for name, role in movable.items() if role == "S"), inst.S)
        return 1 <= int(S) <= int(N) and _admissible(st, assign(a), hyps)

    start = current_of(inst)
    nums = numerals_of(n.value for h in hyps for n in h.node.walk() if n.kind == "num")
    caps = {name: NATURAL_CAPS.get(role, 64) for name, role in movable.items()}
    found = nearest_naturals(start, nums, admissible, caps=caps)
    if found is None or found == start:
        assign(start)
        return inst, ""
    return assign(found), moved_note(start, found)


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
    slot = int(rng.integers(0, SLOTS))
    return _Base("random", A, b, sigma, S, K, T, eta_g, x0, c0, mu), frac, slot


_SIGNATURES: list = []    # [(statement, its step signature)], the last few statements
_STEPS: dict = {}         # {step signature: {(edge case, relax): step data}}, least recently used first
STEP_MEMO_STATEMENTS = 64
STEP_MEMO_CANDIDATES = 4096   # per statement


def _content(obj):
    """A hashable image of a statement's parsed content (dataclasses, Nodes, lists, dicts),
    without source positions (``line``, ``col``, ``location``): two statements read from
    different places with the same text and binders give the same image."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        names = [f.name for f in dataclasses.fields(obj)]
        out = (type(obj).__name__,) + tuple((n, _content(getattr(obj, n))) for n in names
                                            if n not in ("line", "col", "location"))
        # attributes set after construction (the elaboration's ``coerce``): plain values as they
        # are, anything else by identity (never shared between two statements, never wrong)
        extra = sorted((k, v) for k, v in vars(obj).items() if k not in names) if hasattr(obj, "__dict__") else []
        return out + tuple((k, _plain(v)) for k, v in extra)
    if isinstance(obj, (list, tuple)):
        return tuple(_content(v) for v in obj)
    if isinstance(obj, dict):
        return tuple(sorted(((str(k), _content(v)) for k, v in obj.items()), key=lambda kv: kv[0]))
    try:
        hash(obj)
        return obj
    except TypeError:
        return ("repr", type(obj).__name__, repr(obj))


def _plain(v):
    """``v`` itself when it is None, a bool, int, str or Fraction, or a tuple of such (recursively),
    else ``("id", id(v))``."""
    if v is None or isinstance(v, (bool, int, str, Fraction)):
        return v
    if isinstance(v, tuple):
        items = tuple(_plain(x) for x in v)
        if not any(isinstance(x, tuple) and x[:1] == ("id",) for x in items):
            return ("tuple",) + items
    return ("id", id(v))


class _Held:
    """A statement held by a memo key that compares by identity (the key keeps it alive, so its
    identity is not reused while the key is in the memo)."""

    def __init__(self, obj):
        self.obj = obj


def _has_identity(image) -> bool:
    """True when a :func:`_content` image holds an object keyed by its identity."""
    if isinstance(image, tuple):
        if len(image) == 2 and image[0] == "id" and isinstance(image[1], int):
            return True
        return any(_has_identity(x) for x in image)
    return False


def _step_signature(st) -> tuple:
    """Everything of ``st`` that the candidates' instances and largest steps depend
    on (binders, the run's arguments, initialisation, hypotheses, the file's defs): all of the
    statement but its name, position and conclusion."""
    return _content((st.parameters, st.run, st.init, st.controls, st.hypotheses, st.definitions, st.shape,
                     st.problem_args))


def _step_memo(st) -> dict:
    """Per-process memo of the candidates' largest steps (a pure function of the statement's
    :func:`_step_signature`, the edge case (structured candidates) or the seed and index (random
    ones) and ``relax``: the nine step multiples of one edge case share it, and so do the
    statements of a file that differ only in their conclusion, and the same statement read
    again)."""
    sig = next((g for s, g in _SIGNATURES if s is st), None)
    if sig is None:
        sig = _step_signature(st)
        if _has_identity(sig):     # something keyed by identity: this statement object only
            sig = ("statement object", _Held(st))
        _SIGNATURES.append((st, sig))
        del _SIGNATURES[:-8]
    memo = _STEPS.pop(sig, None)
    _STEPS[sig] = memo = {} if memo is None else memo
    while len(_STEPS) > STEP_MEMO_STATEMENTS:
        del _STEPS[next(iter(_STEPS))]
    return memo


def structured_count(st) -> int:
    """Number of structured candidates (indices 0 .. structured_count - 1)."""
    return len(_STRUCTURED) * SLOTS


def candidate(st, seed: int, index: int, *, relax=()) -> tuple:
    """Candidate ``index`` for ``st``: ``(RunInstance, description)``, a pure function of
    ``(seed, index)`` (random candidates use ``default_rng([seed, index])``); hypotheses in
    ``relax`` are ignored when the step is chosen (the constant profile's relaxed draws).

    Structured candidate ``index < structured_count(st)`` is edge case ``index // SLOTS`` at step
    multiple ``step_ladder(b)[index % SLOTS]`` of the base step (multiples above 1 only when the
    statement (or ``relax``) leaves the step unbounded or relaxed, and only the edge case's first
    ``slots``); the others are ``(None, why)`` (skipped)."""
    n = structured_count(st)
    relax = tuple(relax)
    if index < n:
        base = _STRUCTURED[index // SLOTS]
        slot = index % SLOTS
        frac = Fraction(1)
        rng = None
        if slot >= base.slots:
            return None, f"multiple {slot + 1} of {SLOTS} not tried for this edge case (long computation)"
    else:
        rng = np.random.default_rng([int(seed), int(index)])
        base, frac, slot = _random_base(st, rng)
    inst = _build(st, base, rng=rng)
    inst, moved = _move_naturals(st, base, inst, rng)
    # the steps depend on (statement, edge case, relax) for a structured candidate, on (statement,
    # seed, index, relax) for a random one
    key = (index // SLOTS, relax) if rng is None else ("random", int(seed), int(index), relax)
    memo = _step_memo(st)
    if key not in memo:
        memo[key] = (max_eta_l(st, inst, bits=base.bits),
                     max_eta_l(st, inst, ignore=relax, bits=base.bits) if relax else None)
        while len(memo) > STEP_MEMO_CANDIDATES:
            del memo[next(iter(memo))]
    (top, bounded), rest_pair = memo[key]
    rest, rest_bounded = rest_pair if relax else (top, bounded)
    free_step = not rest_bounded or bool(relax)
    ladder = step_ladder(_base_scale(st, inst, top))
    mult = ladder[slot]
    if top is None and bounded and not relax:
        return None, "no admissible step"
    if not free_step:
        if mult != 1 and rng is None:
            return None, "step bounded by the hypotheses: one multiple only"
        inst.eta_l = top * frac
        how = "largest admissible step" if frac == 1 else f"{frac} x largest admissible step"
    else:
        if top is None:     # unbounded: measure from the model theorem's step bound
            b = reference_step_bound()
            top = b / (inst.K * Fraction(inst.eta_g) * Fraction(inst.problem.beta))
            what = f"the model theorem's bound h = {b.numerator}/({b.denominator} beta)"
        else:
            what = "the largest admissible step"
        eta = top * mult * (frac if mult == 1 else 1)
        if rest is not None and rest_bounded and eta > rest:
            # the other hypotheses cap the step: keep the first multiple that reaches the cap
            prev = top * ladder[slot - 1] if slot > 0 else None
            if prev is not None and prev >= rest and rng is None:
                return None, "the other hypotheses cap the step below this multiple"
            eta, what = rest, "the largest step the other hypotheses admit"
            mult = 1
        inst.eta_l = eta
        how = f"{mult} x {what}"
    return inst, f"{base.name}; eta_l = {how}" + (f"; {moved}" if moved else "")
