"""Evaluation of a statement's terms on one instance, in one arithmetic.

A :class:`Valuation` binds the statement's names to values and says how to compute the model's
quantities (``‖P.x0 - xstar‖²``, ``C₀``, ``F(x)``, the run's statistics) in its arithmetic:

* ``exact`` -- :class:`fractions.Fraction`; an irrational value (``Real.sqrt``, ``Real.rpow``
  with a non-integer exponent) becomes an exact sympy number (perfect powers simplify back to
  rationals);
* ``ball`` -- python-flint ``arb`` balls (the exact-moment engine's certified mode);
* ``float`` -- the problem's floating data (real-data instances): mpmath results, as
  :mod:`pyfed.theory` gives them;
* ``symbolic`` -- sympy, with the run's per-round statistics (and, for the PEP, ``‖x0 - x⋆‖²``
  and ``C₀``) as symbols: linear forms for Monte Carlo and the PEP, thresholds for the
  constant profile.

The model's arithmetic definitions are evaluated by their :mod:`pyfed.theory` functions (one
place per formula), called with ``lean=True``. Lean semantics are kept: ``x / 0 = 0``, ``x⁻¹`` of 0
is 0 (so ``μ h = 2`` makes every ``weight`` 0, ``weightSum`` 0 and ``V₀ / (h W_T)`` 0, as in Lean),
natural-number subtraction truncates at 0 and division floors, ``Real.sqrt`` of a negative number
is 0. Values of different arithmetics (Fraction/int, exact sympy, mpmath, arb) meet through
:func:`unify`: the weaker arithmetic wins, never a silent float.

:func:`evaluate` returns a value; :func:`decide` decides a comparison exactly (Fractions;
certified balls with escalating precision for irrational values, and an exact sympy test when
the two sides are equal).

Why one module: evaluation is one recursive function over the term kinds, and the three arithmetics
(exact, ball, float) are unified at each operation by the same helpers (unify, arith, compare), so
the arithmetic rules sit beside the evaluator that applies them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import numpy as np
import sympy

from ..errors import InputError
from ..exact import fraction_of, to_arb, to_fraction, to_mpf
from ..lean.terms import Node
from . import model

__all__ = ["Valuation", "VecRef", "X0_KEY", "MINIMIZER_KEY", "RunRef", "evaluate", "decide", "EvaluationError", "Undecided", "sign",
           "to_exact", "ATOM_PREFIX", "unify", "arith", "compare"]

ATOM_PREFIX = "stat"


class EvaluationError(InputError):
    """A term cannot be evaluated on an instance (e.g. ``Real.rpow`` of a negative base, a
    statistic at a round the run does not have); ``node`` locates it."""

    def __init__(self, node: Node | None, reason: str):
        self.node = node
        where = f"{node.line}:{node.col} `{node.text[:50]}`: " if node is not None else ""
        super().__init__("statement", where + reason)


class Undecided(Exception):
    """A comparison whose sign could not be certified (ball containing 0 at the highest precision)."""


#: :class:`VecRef` keys of the model's own points. Neither can be a Lean binder name (a binder
#: has no dot and no space), so a statement's own ``xstar`` bound to a drawn point never passes for
#: the problem's minimiser.
X0_KEY = "P.x0"
MINIMIZER_KEY = "x⋆ (the problem's minimiser)"


@dataclass(frozen=True)
class VecRef:
    """A point of the model space: ``key`` is :data:`X0_KEY`, :data:`MINIMIZER_KEY` or the bound
    name of a point the instance gives; ``value`` its coordinates (in the valuation's arithmetic)."""

    key: str
    value: object = field(compare=False, repr=False)


@dataclass(frozen=True)
class RunRef:
    """The run ``A``: its parameters (S, K, T ints; eta_l, eta_g in the valuation's arithmetic)."""

    S: int
    K: int
    T: int
    eta_l: object
    eta_g: object


class Valuation:
    """Names -> values and the model's quantities, for one instance in one arithmetic.

    Parameters
    ----------
    arithmetic : ``"exact"``, ``"ball"``, ``"float"`` or ``"symbolic"``.
    env : dict
        Bound name -> value (ints for ℕ, numbers for ℝ, :class:`VecRef`, controls arrays
        ``(N, d)``, :class:`RunRef`, anything for the problem/measure).
    access : object
        The model quantities (see :class:`pyfed.engines.statement` adapters): ``N``, ``d``,
        ``beta``, ``sigma``, ``x0`` (VecRef), ``dist_sq(u, v)``, ``control_error(c0, xs)``,
        ``objective(x)``, ``gap(r, xs)``, ``grad_sq(r)``, ``weighted_gap(run, xs, mu)``,
        ``average_grad_sq(run)``.
    constants : dict, optional
        Overrides of the model's constants ``{(definition, key): value}`` (the constant profile).
    """

    def __init__(self, arithmetic: str, env: dict, access, constants: dict | None = None):
        self.arithmetic = arithmetic
        self.env = dict(env)
        self.access = access
        self.constants = dict(constants or {})
        self.literal_overrides: dict = {}     # id(Node) -> value (constant profile of user literals)
        #: a list to record every divisor met (the proof engine's symbolic reading), or None
        self.divisors: list | None = None

    def num(self, v):
        """An exact rational (Fraction/int) in this arithmetic."""
        a = self.arithmetic
        if a == "ball":
            return to_arb(v)
        if a == "symbolic":
            f = to_fraction(v)
            return sympy.Rational(f.numerator, f.denominator) if f is not None else sympy.sympify(v)
        if a == "float":
            return Fraction(v) if isinstance(v, int) else v
        return Fraction(v) if isinstance(v, int) else v


# --------------------------------------------------------------------------- helpers

def _is_zero(x) -> bool:
    """True iff x is certainly 0 (exact zero, or a ball that is exactly 0)."""
    from flint import arb
    if isinstance(x, arb):
        return x.is_exact() and x == 0
    if isinstance(x, sympy.Basic):
        return x.is_zero is True
    return x == 0


def _maybe_zero(x) -> bool:
    from flint import arb
    if isinstance(x, arb):
        return x.contains(0)
    return _is_zero(x)


def to_exact(x):
    """sympy rational -> Fraction; other values unchanged."""
    if isinstance(x, sympy.Basic) and x.is_Rational:
        return Fraction(int(x.p), int(x.q))
    return x


def _kind(x) -> str:
    """The arithmetic a value belongs to: ``"symbolic"`` (sympy with free symbols), ``"ball"``
    (arb), ``"float"`` (mpf/float), ``"irrational"`` (an exact sympy number that is not
    rational) or ``"rational"`` (int, Fraction, sympy Rational, fmpq)."""
    if type(x) in _PLAIN_RATIONAL:   # the common case, without the tests below
        return "rational"
    from flint import arb
    if isinstance(x, arb):
        return "ball"
    if isinstance(x, sympy.Basic):
        if x.free_symbols:
            return "symbolic"
        if x.is_Rational:
            return "rational"
        if x.is_Float:
            return "float"
        return "irrational"
    if isinstance(x, (float, mpmath.mpf, np.floating)):
        return "float"
    return "rational"


_RANK = {"rational": 0, "irrational": 1, "float": 2, "ball": 3, "symbolic": 4}
#: Exact types :func:`_kind` calls "rational" at once (subclasses such as bool take the long way).
_PLAIN_RATIONAL = frozenset({int, Fraction})


def _to_kind(x, kind):
    """``x`` converted to ``kind`` (see :func:`_kind`): exactly for rationals and exact sympy
    numbers, at the exact binary value for floats, as an enclosing ball for ``"ball"``."""
    if kind == "ball":
        return to_arb(x)
    if kind == "float":
        if isinstance(x, mpmath.mpf):
            return x
        return to_mpf(x)
    if kind in ("irrational", "symbolic"):
        return _sym(to_exact(x)) if not isinstance(x, sympy.Basic) else x
    return to_exact(x)


def unify(*xs):
    """The values ``xs`` in one arithmetic, the weakest of theirs (rational < exact irrational <
    mpmath float < certified ball; sympy expressions with symbols stay symbolic): Fractions never
    meet mpf or arb values directly (Python raises TypeError there, and sympy would silently turn a
    ball into an uncertified Float)."""
    if all(type(x) in _PLAIN_RATIONAL for x in xs):   # ints and Fractions: unchanged
        return list(xs)
    kinds = [_kind(x) for x in xs]
    top = max(kinds, key=_RANK.__getitem__)
    if top == "rational":       # int, Fraction, sympy Rational, flint fmpq/fmpz: ints stay ints
        return [x if isinstance(x, (int, Fraction)) else to_fraction(x) for x in xs]
    return [x if k == top else _to_kind(x, top) for x, k in zip(xs, kinds)]


def arith(op: str, a, b):
    """``a op b`` for op in ``+ - *`` after :func:`unify` (division: :func:`_div`)."""
    a, b = unify(a, b)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    return a * b


#: The operators of :func:`nat_arith`.
NAT_OPS = ("+", "-", "*", "/", "%")


def nat_arith(op: str, a: int, b: int) -> int:
    """``a op b`` as Lean computes it on ℕ: truncated subtraction (``2 - 3 = 0``), floor division
    and modulo with ``a / 0 = 0`` and ``a % 0 = a``. ``op`` is one of :data:`NAT_OPS`."""
    if op == "+":
        return a + b
    if op == "-":
        return max(a - b, 0)
    if op == "*":
        return a * b
    if op == "/":
        return a // b if b else 0
    return a % b if b else a


def _div(a, b, node):
    a, b = unify(a, b)
    if _is_zero(b):
        return b * 0          # Lean: x / 0 = 0
    if _maybe_zero(b):
        raise Undecided(f"division by a ball containing 0 at {node.line}:{node.col}")
    return a / b


def _exact_value(x):
    """An exact value of a non-ball number for comparisons: Fraction (floats and mpf at their
    exact binary value) or an exact sympy number; None for a symbolic expression."""
    k = _kind(x)
    if k == "symbolic":
        return None
    if k == "irrational":
        return x
    return fraction_of(x)


def compare(a, b) -> int:
    """Sign of ``b - a`` decided exactly (balls: certified, Undecided if they overlap)."""
    if "ball" in (_kind(a), _kind(b)):
        return decide_sign(to_arb(b) - to_arb(a))
    ea, eb = _exact_value(a), _exact_value(b)
    if ea is None or eb is None:
        raise Undecided("comparison of symbolic expressions")
    if isinstance(ea, sympy.Basic) or isinstance(eb, sympy.Basic):
        return decide_sign(_sym(eb) - _sym(ea))
    return decide_sign(eb - ea)


def _rpow(x, y, val, node):
    """Real.rpow x y (x >= 0); y integral -> exact power."""
    fy = to_fraction(y) if not isinstance(y, sympy.Basic) or y.is_Rational else None
    if fy is not None and fy.denominator == 1:
        n = int(fy)
        if n >= 0:
            return x ** n
        return _div(val.num(1), x ** (-n), node)
    a = val.arithmetic
    if a == "ball" or "ball" in (_kind(x), _kind(y)):
        x, y = to_arb(x), to_arb(y)
        if x < 0:
            raise EvaluationError(node, "Real.rpow of a negative base is not supported")
        if not (x > 0):
            if _is_zero(x):
                return x * 0
            raise Undecided("Real.rpow of a ball containing 0")
        return x ** y
    if a == "float" or "float" in (_kind(x), _kind(y)):
        if _kind(x) == "symbolic" or _kind(y) == "symbolic":
            raise EvaluationError(node, "Real.rpow of a symbolic value")
        xf, yf = to_mpf(x), to_mpf(y)
        if xf < 0:
            raise EvaluationError(node, "Real.rpow of a negative base is not supported")
        if xf == 0:
            return mpmath.mpf(0) if yf != 0 else mpmath.mpf(1)
        return mpmath.power(xf, yf)
    sx, sy = sympy.sympify(_sym(x)), sympy.sympify(_sym(y))
    if sx.is_number and sx.is_negative:
        raise EvaluationError(node, "Real.rpow of a negative base is not supported")
    if sx == 0:
        return val.num(0) if sy != 0 else val.num(1)
    return to_exact(sympy.Pow(sx, sy))


def _sym(x):
    if isinstance(x, Fraction):
        return sympy.Rational(x.numerator, x.denominator)
    if isinstance(x, int):
        return sympy.Integer(x)
    if isinstance(x, (float, mpmath.mpf)):
        f = fraction_of(x)
        return sympy.Rational(f.numerator, f.denominator)
    return x


def _exact_sqrt(f: Fraction):
    """sqrt of a rational >= 0 as a Fraction when it is one (perfect squares), else None."""
    from math import isqrt
    p, q = f.numerator, f.denominator
    rp, rq = isqrt(p), isqrt(q)
    return Fraction(rp, rq) if rp * rp == p and rq * rq == q else None


def _sqrt(x, val, node):
    """Real.sqrt x (Lean: 0 for x <= 0). A rational perfect square gives an exact rational in
    every arithmetic; a ball gives the certified ball of sqrt(max(x, 0)) (never undecided);
    floats give mpmath; exact irrational inputs stay exact (sympy)."""
    k = _kind(x)
    if val.arithmetic == "ball" or k == "ball":
        b = to_arb(x)
        if b < 0:
            return b * 0
        return b.nonnegative_part().sqrt()
    if k == "rational":
        f = to_exact(x)
        f = Fraction(f) if isinstance(f, int) else f
        if f <= 0:
            return Fraction(0)
        r = _exact_sqrt(f)
        if r is not None:
            return r
        if val.arithmetic == "float":
            return mpmath.sqrt(to_mpf(f))
        return sympy.sqrt(_sym(f))
    if k == "float":
        xf = to_mpf(x)
        return mpmath.sqrt(xf) if xf > 0 else mpmath.mpf(0)
    sx = sympy.sympify(_sym(x))
    if sx.is_number and sx.is_negative:
        return val.num(0)
    if val.arithmetic == "float" and k == "irrational":
        xf = to_mpf(sx)
        return mpmath.sqrt(xf) if xf > 0 else mpmath.mpf(0)
    return to_exact(sympy.sqrt(sx))


def _theory(fn, *args, **kw):
    """Call a pyfed.theory function; exact-but-irrational (sympy) inputs go through its symbolic
    mode and the result is evaluated exactly."""
    vals = list(args) + list(kw.values())
    if any(isinstance(v, sympy.Basic) and not v.is_Rational for v in vals):
        args = [_sym(a) for a in args]
        kw = {k: _sym(v) for k, v in kw.items()}
        out = fn(*args, exact="symbolic", **kw)
        out = sympy.sympify(out)
        # a sum with symbolic bounds (∑ r < T with T a symbol: the proof engine's reading) stays a sum
        out = out.replace(lambda e: isinstance(e, sympy.Sum) and not e.free_symbols, lambda e: e.doit()) \
            if out.free_symbols else out.doit()
        return to_exact(sympy.nsimplify(out) if out.is_number and out.is_Rational else out)
    args = [to_exact(a) for a in args]
    kw = {k: to_exact(v) for k, v in kw.items()}
    return fn(*args, **kw)


# --------------------------------------------------------------------------- evaluation

def evaluate(node: Node, val: Valuation, env: dict | None = None):
    """Value of an elaborated term (see :mod:`pyfed.statements.reader`) in ``val``."""
    env = val.env if env is None else env
    k = node.kind
    if val.literal_overrides and id(node) in val.literal_overrides:
        v = val.literal_overrides[id(node)]
        return int(v) if node.ty == "nat" else val.num(v)
    if k == "num":
        if node.ty == "nat":
            return int(node.value)
        return val.num(node.value)
    if k == "ident":
        out = _ident(node, val, env)
        if getattr(node, "coerce", False) and isinstance(out, int):
            return val.num(out)
        return out
    if k == "app":
        out = _app(node, val, env)
        if getattr(node, "coerce", False) and isinstance(out, int):
            return val.num(out)
        return out
    if k == "binop":
        return _binop(node, val, env)
    if k == "neg":
        x = evaluate(node.args[0], val, env)
        if node.ty == "nat":
            return 0             # Lean: -n = 0 in ℕ
        return -x
    if k == "inv":
        x = evaluate(node.args[0], val, env)
        if val.divisors is not None:
            val.divisors.append(x)
        return _div(val.num(1), x, node)
    if k == "cast":
        x = evaluate(node.args[0], val, env)
        if node.ty == "real" and isinstance(x, int):
            return val.num(x)
        if getattr(node, "coerce", False) and isinstance(x, int):
            return val.num(x)
        return x
    if k == "coe":
        x = evaluate(node.args[0], val, env)
        return val.num(x) if isinstance(x, int) else x
    if k == "norm":
        return _norm(node, val, env)
    if k == "abs":
        x = evaluate(node.args[0], val, env)
        return x if compare(0, x) >= 0 else -x
    if k == "sum":
        rng, body = node.args
        upper = evaluate(rng.args[1], val, env)
        total = 0 if node.ty == "nat" else val.num(0)
        for r in range(int(upper)):
            term = evaluate(body, val, {**env, node.value: r})
            total = total + term if node.ty == "nat" else arith("+", total, term)
        return total
    if k == "let":
        value = evaluate(node.args[0], val, env)
        return evaluate(node.args[1], val, {**env, node.value: value})
    raise EvaluationError(node, f"cannot evaluate `{k}`")


def _ident(node, val, env):
    name = node.value.removeprefix(model.NAMESPACE + ".")
    if name in env:
        v = env[name]
        if isinstance(v, int) and node.ty == "real":
            return val.num(v)
        return v
    if "." in name:
        head, _, fld = name.partition(".")
        if fld == "β":
            return val.access.beta
        if fld == "σ":
            return val.access.sigma
        if fld == "x0":
            return val.access.x0
        if fld == "f":
            return "P.f"
    if name in model.FUNCTIONS or name in model.STATISTICS:
        return _apply(node, name, [], val, env)
    defs = getattr(val, "definitions", {})
    if name in defs:
        return _apply_def(node, defs[name], [], val, env)
    raise EvaluationError(node, f"name `{name}` has no value")


def _app(node, val, env):
    head = node.args[0].value.removeprefix(model.NAMESPACE + ".")
    if head in ("min", "max"):
        a, b = (evaluate(x, val, env) for x in node.args[1:])
        return _minmax(head, a, b, node)
    if head == "Real.rpow":
        a, b = (evaluate(x, val, env) for x in node.args[1:])
        return _rpow(a, b, val, node)
    if head == "Real.sqrt":
        return _sqrt(evaluate(node.args[1], val, env), val, node)
    args = [evaluate(a, val, env) for a in node.args[1:]]
    defs = getattr(val, "definitions", {})
    if head in defs:
        return _apply_def(node, defs[head], args, val, env)
    return _apply(node, head, args, val, env)


def _minmax(head, a, b, node):
    """Lean ``min a b`` / ``max a b`` for every mix of the engines' numbers: exact inputs give
    the chosen input itself (decided exactly, floats at their binary value); a ball among them
    gives the certified ball of the min/max (overlapping balls included); symbolic expressions
    (the PEP's and the constant profile's unknowns) give sympy's ``Min``/``Max``."""
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b) if head == "min" else max(a, b)
    kinds = (_kind(a), _kind(b))
    if "symbolic" in kinds:
        sa, sb = _sym(to_exact(a)), _sym(to_exact(b))
        if "ball" not in kinds:
            return sympy.Min(sa, sb) if head == "min" else sympy.Max(sa, sb)
        raise EvaluationError(node, f"`{head}` of a ball and a symbolic expression")
    if "ball" in kinds:
        ba, bb = to_arb(a), to_arb(b)
        if ba < bb or bb < ba:       # certified order: the chosen ball itself
            lower_first = ba < bb
            return (ba if lower_first else bb) if head == "min" else (bb if lower_first else ba)
        # overlapping balls: [min/max of the lower ends, min/max of the upper ends] (endpoints are exact)
        pick = (lambda x, y: x if x < y else y) if head == "min" else (lambda x, y: x if x > y else y)
        return pick(ba.lower(), bb.lower()).union(pick(ba.upper(), bb.upper()))
    d = compare(a, b)
    if head == "min":
        return a if d >= 0 else b
    return b if d >= 0 else a


def _const(val, defn, key):
    return val.constants.get((defn, key), model.MODEL_CONSTANTS[(defn, key)][0])


def _apply(node, name, args, val, env):
    from .. import theory

    acc = val.access
    if val.divisors is not None:
        val.divisors.extend(_definition_divisors(name, args))
    if name == "effectiveStep":
        K, el, eg = args
        return _theory(theory.effective_step, K, el, eg)
    if name == "roundTime":
        return theory.round_time(int(args[0]), int(args[1]))
    if name == "weight":
        mu, h, r = args
        return _theory(theory.weight, _index_value(r), mu, h, lean=True)
    if name == "weightSum":
        mu, h, T = args
        return _theory(theory.weight_sum, _index_value(T), mu, h, lean=True)
    if name == "initialControlError":
        _P, c0, xs = args
        return acc.control_error(c0, xs)
    if name == "initialPotential":
        _P, S, h, c0, xs = args
        return _theory(theory.initial_potential, acc.dist_sq(acc.x0, xs), acc.control_error(c0, xs), acc.N, S, h,
                       lean=True,
                       **({} if (c := _const(val, "initialPotential", "potential")) == 9 else {"constant": c}))
    if name == "convexRHS":
        _P, S, K, T, el, eg, mu, c0, xs = args
        kw = {}
        for key, kwname in (("potential", "potential_constant"), ("noise", "noise_constant")):
            c = _const(val, "convexRHS", key)
            if c != model.MODEL_CONSTANTS[("convexRHS", key)][0]:
                kw[kwname] = c
        return _theory(theory.convex_rhs, dist_sq=acc.dist_sq(acc.x0, xs), C0=acc.control_error(c0, xs), N=acc.N,
                       S=S, K=K, T=T, eta_l=el, eta_g=eg, mu=mu, sigma=acc.sigma, lean=True, **kw)
    if name == "nonconvexRHS":
        _P, S, K, T, el, eg, flow = args
        kw = {}
        for key, kwname in (("gap", "gap_constant"), ("noise", "noise_constant")):
            c = _const(val, "nonconvexRHS", key)
            if c != model.MODEL_CONSTANTS[("nonconvexRHS", key)][0]:
                kw[kwname] = c
        return _theory(theory.nonconvex_rhs, f_gap=acc.objective(acc.x0) - flow, beta=acc.beta, S=S, K=K, T=T,
                       eta_l=el, eta_g=eg, sigma=acc.sigma, lean=True, **kw)
    if name == "objective":
        _f, x = args
        return acc.objective(x)
    if name == "expectedGap":
        run, xs, r = args
        if int(r) > run.T:
            raise EvaluationError(node, f"round {int(r)} > T = {run.T}: the Run model leaves x_r unconstrained "
                                        "after its T rounds")
        return acc.gap(int(r), xs)
    if name == "weightedGap":
        run, xs, mu = args
        return acc.weighted_gap(run, xs, mu)
    if name == "averageGradientSq":
        (run,) = args
        return acc.average_grad_sq(run)
    raise EvaluationError(node, f"no evaluation for `{name}`")


def _index_value(n):
    """A natural-number argument: an int, or a sympy symbol kept as it is (the symbolic reading)."""
    return n if isinstance(n, sympy.Basic) and n.free_symbols else int(n)


def _definition_divisors(name, args) -> list:
    """The divisors inside the model definition ``name`` at ``args`` (symbolic reading: each must
    be nonzero for field arithmetic to agree with Lean's ``x / 0 = 0``)."""
    from .. import theory

    def q(mu, h):
        return 1 - mu * h / 2

    if name in ("weight", "weightSum"):
        return [q(args[0], args[1])]
    if name == "initialPotential":
        return [args[1]]
    if name == "convexRHS":
        _P, S, K, T, el, eg, mu, _c0, _xs = args
        h = K * el * eg
        return [S, K * S, eg ** 2, q(mu, h), h * theory.weight_sum(T, mu, h)]
    if name == "nonconvexRHS":
        _P, S, K, T, el, eg, _fl = args
        return [K * S, eg ** 2, K * el * eg * T]
    if name == "weightedGap":
        run, _xs, mu = args
        h = run.K * run.eta_l * run.eta_g
        return [q(mu, h), theory.weight_sum(run.T, mu, h)]
    if name == "averageGradientSq":
        return [args[0].T]
    return []


def _apply_def(node, d, args, val, env):
    """Apply a user def: explicit parameters from ``args``, implicit ones from the arguments'
    own parameters (a run's P S K T ηl ηg, a problem's d N)."""
    local = {}
    for (pname, _kind), a in zip(d.params, args):
        local[pname] = a
    # implicit parameters: unify the declared types of explicit run/vector parameters
    for pname, (kind, info, tnode) in d.binders.items():
        if kind == "run" and pname in local:
            run = local[pname]
            names = [a.value if a.kind == "ident" else None for a in tnode.args[1:]]
            vals = [None, None, run.S, run.K, run.T, run.eta_l, run.eta_g, None]
            for nm, v in zip(names, vals):
                if nm is not None and v is not None and nm not in local:
                    local[nm] = v
        if kind == "problem":
            local.setdefault(pname, "P")
            for nm, v in zip([a.value if a.kind == "ident" else None for a in tnode.args[1:]],
                             (val.access.d, val.access.N)):
                if nm is not None:
                    local.setdefault(nm, v)
    for pname, (kind, info, tnode) in d.binders.items():
        if kind in ("nat", "real") and pname not in local:
            raise EvaluationError(node, f"cannot infer the implicit argument `{pname}` of `{d.name}`")
    return evaluate(d.body, val, {**local})


def _binop(node, val, env):
    op = node.value
    base = node.args[0]
    if op == "^" and base.kind == "norm" and node.args[1].kind == "num" and node.args[1].value.denominator == 1 \
            and int(node.args[1].value) % 2 == 0:
        # ‖u - v‖ ^ (2k) = (‖u - v‖²)^k, without a square root
        return _norm(base, val, env, squared=True) ** (int(node.args[1].value) // 2)
    a = evaluate(base, val, env)
    if op in ("^", "^r"):
        b = evaluate(node.args[1], val, env)
        if op == "^":
            return a ** int(b)
        return _rpow(a, b, val, node)
    b = evaluate(node.args[1], val, env)
    if node.ty == "nat":
        a, b = int(a), int(b)
        if op in NAT_OPS:
            return nat_arith(op, a, b)
    if op in ("+", "-", "*"):
        return arith(op, a, b)
    if op == "/":
        if val.divisors is not None:
            val.divisors.append(b)
        return _div(a, b, node)
    raise EvaluationError(node, f"operator `{op}` on real numbers")


def _norm(node, val, env, squared=False):
    inner = node.args[0]
    acc = val.access
    if inner.kind == "binop" and inner.value == "-":
        u, v = evaluate(inner.args[0], val, env), evaluate(inner.args[1], val, env)
        sq = acc.dist_sq(u, v)
    else:
        u = evaluate(inner, val, env)
        sq = acc.norm_sq(u)
    return sq if squared else _sqrt(sq, val, node)


# --------------------------------------------------------------------------- decisions

_PRECISIONS = (64, 128, 256, 512, 1024, 2048, 4096)


def decide_sign(x) -> int:
    """Exact sign (-1, 0, +1) of a Fraction, int, certified arb ball, mpf/float (taken at its
    exact binary value) or exact sympy number. Raises :class:`Undecided` for a ball containing 0,
    for an irrational sympy number whose sign no precision up to 4096 bits certifies and for a
    sympy value no certified ball encloses."""
    from flint import arb
    if isinstance(x, (int, Fraction)):
        return (x > 0) - (x < 0)
    if isinstance(x, (float, mpmath.mpf)):
        f = fraction_of(x)
        return (f > 0) - (f < 0)
    if isinstance(x, arb):
        if x > 0:
            return 1
        if x < 0:
            return -1
        if x.is_exact() and x == 0:
            return 0
        raise Undecided(f"ball {x.str(10, radius=True)} contains 0")
    if isinstance(x, sympy.Basic):
        if x.is_Rational:
            return int(bool(x > 0)) - int(bool(x < 0))
        from ..errors import InputError
        from ..exact import _sympy_to_arb, precision
        for bits in _PRECISIONS:
            with precision(bits):
                try:
                    b = _sympy_to_arb(x)
                except InputError as exc:      # a value no ball encloses (e.g. complex): not decidable here
                    raise Undecided(f"sign of {x} not decidable: {exc.reason}") from None
                if b > 0:
                    return 1
                if b < 0:
                    return -1
        if sympy.simplify(x) == 0 or x.equals(0):
            return 0
        raise Undecided(f"sign of {x} not certified at 4096 bits")
    raise TypeError(f"cannot decide the sign of {x!r}")


sign = decide_sign


def decide(op: str, lhs, rhs) -> bool:
    """``lhs op rhs`` decided exactly (see :func:`decide_sign`); ``op`` in ``≤ < = ≠``."""
    s = compare(lhs, rhs) if not (isinstance(lhs, int) and isinstance(rhs, int)) else \
        ((rhs > lhs) - (rhs < lhs))
    return {"≤": s >= 0, "<": s > 0, "=": s == 0, "≠": s != 0}[op]
