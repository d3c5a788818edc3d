"""Evaluation of a run statement's terms on one instance, in one arithmetic: the one evaluator
(:class:`pyfed.evaluation.Evaluator`) with the run's atoms (:class:`RunAtoms`).

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

The model's arithmetic definitions are evaluated by their :mod:`pyfed.theory` functions, called
with ``lean=True`` (the drift check proves them equal to the Lean bodies; the constant profile
varies their constants through the theory functions' keywords). Lean semantics are kept (see
:mod:`pyfed.evaluation.numbers`): ``x / 0 = 0``, ``x⁻¹`` of 0 is 0 (so ``μ h = 2`` makes every
``weight`` 0, ``weightSum`` 0 and ``V₀ / (h W_T)`` 0, as in Lean), natural-number subtraction
truncates at 0 and division floors, ``Real.sqrt`` of a negative number is 0.

:func:`evaluate` returns a value; :func:`decide` decides a comparison exactly (Fractions;
certified balls with escalating precision for irrational values, and an exact sympy test when
the two sides are equal). The arithmetic helpers are re-exported from
:mod:`pyfed.evaluation.numbers`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy

from .. import theory
from ..evaluation.domains import Numbers, numbers
from ..evaluation.evaluator import Atoms, Evaluator
from ..evaluation.numbers import (
    NAT_OPS,
    EvaluationError,
    Undecided,
    arith,
    compare,
    decide,
    decide_sign,
    lift,
    nat_arith,
    to_exact,
    to_sympy,
    unify,
)
from ..evaluation.values import Fun, Vec
from ..lean.terms import Node
from . import model

__all__ = ["Valuation", "VecRef", "X0_KEY", "MINIMIZER_KEY", "RunRef", "RunAtoms", "evaluate", "decide",
           "EvaluationError", "Undecided", "sign", "to_exact", "unify", "arith", "compare", "decide_sign",
           "nat_arith", "NAT_OPS"]

sign = decide_sign

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
        return lift(v, self.arithmetic)


class RunAtoms(Atoms):
    """The atoms of a run statement on one instance (:class:`Valuation` ``val``): the statement's
    names (ℕ values coerced where the reader typed them ℝ), the problem's fields ``P.β``, ``P.σ``,
    ``P.x0``, ``P.f``, the model's definitions (:data:`pyfed.statements.model.FUNCTIONS`, by
    their :mod:`pyfed.theory` functions), the run's statistics (by ``val.access``), the file's own
    defs (``val.definitions``) and the distances ``‖u - v‖²`` between the instance's points."""

    def __init__(self, val: Valuation):
        self.val = val
        self.overrides = val.literal_overrides

    def ident(self, ev, node, env):
        val = self.val
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
            return _apply(node, name, [], val)
        defs = getattr(val, "definitions", {})
        if name in defs:
            return _apply_def(ev, node, defs[name], [], val)
        raise EvaluationError(node, f"name `{name}` has no value")

    def apply(self, ev, node, env):
        val = self.val
        head = node.args[0].value.removeprefix(model.NAMESPACE + ".")
        if head in model.MATH_FUNCTIONS:
            return ev.apply_mathlib(head, node, node.args[1:], env)
        args = [ev.eval(a, env) for a in node.args[1:]]
        defs = getattr(val, "definitions", {})
        if head in defs:
            return _apply_def(ev, node, defs[head], args, val)
        return _apply(node, head, args, val)

    def norm_sq(self, ev, node, env):
        inner = node.args[0]
        acc = self.val.access
        if inner.kind == "binop" and inner.value == "-":
            u, v = ev.eval(inner.args[0], env), ev.eval(inner.args[1], env)
            return acc.dist_sq(u, v)
        return acc.norm_sq(ev.eval(inner, env))


class _RecordingNumbers(Numbers):
    """:class:`~pyfed.evaluation.domains.Numbers` that also record every real divisor met (the
    proof engine's symbolic reading: each must be nonzero for field arithmetic to agree with
    Lean's ``x / 0 = 0``)."""

    def __init__(self, mode: str, divisors: list):
        super().__init__(mode)
        self.divisors = divisors

    def binop(self, node, op, a, b):
        if op == "/" and not (node.ty == "nat" and isinstance(a, int) and isinstance(b, int)) \
                and not isinstance(a, (Vec, Fun)) and not isinstance(b, (Vec, Fun)):
            self.divisors.append(b)
        return super().binop(node, op, a, b)

    def inv(self, node, x):
        self.divisors.append(x)
        return super().inv(node, x)


def evaluate(node: Node, val: Valuation, env: dict | None = None):
    """Value of an elaborated term (see :mod:`pyfed.statements.reader`) in ``val`` (with
    ``val.divisors`` a list, every divisor met is recorded in it)."""
    domain = numbers(val.arithmetic) if val.divisors is None else _RecordingNumbers(val.arithmetic, val.divisors)
    ev = Evaluator(domain, RunAtoms(val))
    return ev.eval(node, val.env if env is None else env)


def _theory(fn, *args, **kw):
    """Call a pyfed.theory function; exact-but-irrational (sympy) inputs go through its symbolic
    mode and the result is evaluated exactly."""
    vals = list(args) + list(kw.values())
    if any(isinstance(v, sympy.Basic) and not v.is_Rational for v in vals):
        args = [to_sympy(a) for a in args]
        kw = {k: to_sympy(v) for k, v in kw.items()}
        out = fn(*args, exact="symbolic", **kw)
        out = sympy.sympify(out)
        # a sum with symbolic bounds (∑ r < T with T a symbol: the proof engine's reading) stays a sum
        out = out.replace(lambda e: isinstance(e, sympy.Sum) and not e.free_symbols, lambda e: e.doit()) \
            if out.free_symbols else out.doit()
        return to_exact(sympy.nsimplify(out) if out.is_number and out.is_Rational else out)
    args = [to_exact(a) for a in args]
    kw = {k: to_exact(v) for k, v in kw.items()}
    return fn(*args, **kw)


def _const(val, defn, key):
    return val.constants.get((defn, key), model.MODEL_CONSTANTS[(defn, key)][0])


def _apply(node, name, args, val):
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


def _apply_def(ev, node, d, args, val):
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
    return ev.eval(d.body, {**local})
