"""Every engine, one statement object: decisions of a :class:`~pyfed.statements.Statement` on instances.

* :func:`decide_exact` -- exact moments (:mod:`pyfed.engines.exact`): the run's per-round
  E[F(x_r)] - F(x⋆) and E‖∇F(x_r)‖² on rational quadratic clients with Gaussian-law noise,
  exact rationals (or certified balls with escalating precision); both sides of the
  statement evaluated from its Lean terms (:mod:`pyfed.statements.evaluate`).
* :func:`decide_montecarlo` -- simulated runs (:func:`pyfed.algorithms.scaffold_run`): the left
  side must be a linear combination of per-round expectations, estimated per replicate with a
  Student-t interval (:mod:`pyfed.engines.montecarlo`); a nonlinear left side is rejected.
* :func:`evaluate_hypotheses` -- the statement's hypotheses and the model's structural ones
  (``Problem``: N ≥ 1, β > 0, σ ≥ 0; ``Run``: 1 ≤ S ≤ N, K ≥ 1, T ≥ 1), each decided exactly.
* :func:`linear_form` -- the left side as c + Σ_r a_r G_r + Σ_r b_r D_r (G_r = E[F(x_r)] - F⋆,
  D_r = E‖∇F(x_r)‖²), for Monte Carlo and the PEP.

Engines never print. Instances are :class:`RunInstance` objects; :func:`instance_to_json` /
:func:`instance_from_json` write and read them with exact rationals as ``"p/q"`` strings, so a
witness re-checks exactly (:func:`recheck`).

The adversarial search and the constant profile live in :mod:`pyfed.engines.statement_search`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np
import sympy

from ..errors import Diverged, InputError
from ..exact import as_float, fraction_from_text, number_json, rational_str, to_arb, to_fraction
from ..statements.evaluate import (MINIMIZER_KEY, X0_KEY, EvaluationError, RunRef, Undecided, Valuation, VecRef,
                                   arith, compare, decide, decide_sign, evaluate, to_exact)
from ..theory import effective_step, initial_control_error, squared_distance, weight_sum, weights
from ..theory.hypotheses import Hypothesis
from ..verdicts import Holds, Inconclusive, Verdict, Violated, inequality_phrase, violation_wording

__all__ = ["RunInstance", "bind", "evaluate_hypotheses", "fit_step", "step_hypothesis", "hypothesis_mentions", "STEP_HALVINGS", "decide_exact", "decide_montecarlo", "linear_form",
           "instance_to_json", "instance_from_json", "recheck", "fits", "NotLinear", "sides_exact",
           "ExactAccess", "FloatAccess", "SymbolicAccess", "side_json", "INSTANCE_SCHEMA",
           "WITNESS_SCHEMA", "ORACLE_LAW", "SAMPLING_LAW"]


# --------------------------------------------------------------------------- instances

@dataclass
class RunInstance:
    """One instance of a statement's objects.

    Attributes
    ----------
    name : str
    problem : Problem
        Clients (a :class:`~pyfed.problems.quadratic.QuadraticProblem` with rational data for the
        exact engine; any problem for Monte Carlo). ``P.β`` is ``problem.beta``.
    sigma : Fraction | float
        ``P.σ`` (the oracle's noise level: E‖ξ‖² ≤ σ²).
    S, K, T : int
        Clients per round, local steps, rounds.
    eta_l, eta_g : Fraction
        Step sizes.
    x0 : ndarray (d,)
        ``P.x0`` (object array of Fractions for exact data).
    c0 : ndarray (N, d) | None
        The controls of ``some c0``; None for ``none`` (warm start).
    mu, f_low : optional
        Values of the statement's ``μ`` (``Convexity P μ``) and ``fLower``; None: the problem's
        ``mu`` and ``f_low``.
    xstar : ndarray (d,) | None
        The statement's ``xstar``; None: the problem's minimiser.
    free : dict
        Values of the statement's other bound names.
    oracle : Oracle | None
        Monte Carlo oracle (default :class:`~pyfed.oracles.GaussianOracle` with ``sigma``).
    description : str
    """

    name: str
    problem: object
    sigma: object
    S: int
    K: int
    T: int
    eta_l: object
    eta_g: object
    x0: object
    c0: object = None
    mu: object = None
    f_low: object = None
    xstar: object = None
    free: dict = field(default_factory=dict)
    oracle: object = None
    description: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def N(self) -> int:
        return self.problem.N

    @property
    def d(self) -> int:
        return self.problem.d

    def parameters(self) -> dict:
        """Display parameters (strings), as in the default report."""
        h = effective_step(self.K, self.eta_l, self.eta_g)
        out = {"N": self.N, "d": self.d, "S": self.S, "K": self.K, "T": self.T, "eta_l": str(self.eta_l),
               "eta_g": str(self.eta_g), "h": str(h), "beta": str(self.problem.beta)}
        if self.mu is not None or getattr(self.problem, "mu", None) is not None:
            out["mu"] = str(self.mu if self.mu is not None else self.problem.mu)
        out["sigma"] = str(self.sigma)
        if self.oracle is not None:
            out["oracle"] = self.oracle.name
        out["controls"] = "given c0" if self.c0 is not None else "warm start (K samples at x0)"
        return out


def _is_exact_quadratic(problem) -> bool:
    from ..problems.quadratic import QuadraticProblem
    return isinstance(problem, QuadraticProblem) and getattr(problem, "exact", False)


def _q(v) -> str:
    return rational_str(Fraction(v))


#: Version tag of :func:`instance_to_json`'s output (``"schema"``); bumped when a field changes meaning.
INSTANCE_SCHEMA = "pyfed.instance/1"

#: Version tag of a counterexample record (:func:`pyfed.lean.statement_export.counterexample_record`).
WITNESS_SCHEMA = "pyfed.counterexample/1"

#: The oracle the exact-moment engine decides (only the noise's first two moments enter).
ORACLE_LAW = ("gaussian: g_i(y) = grad f_i(y) + xi, xi ~ N(0, (sigma^2/d) I_d), E||xi||^2 = sigma^2, fresh and "
              "independent across clients, local steps and rounds")
#: The client sampling of a ``Run`` (seed 000): virtual paths of all N clients, then the sample.
SAMPLING_LAW = "uniform: each round a uniformly random S-subset of the N clients (without replacement)"
_KIND = "quadratic clients f_i(x) = 1/2 x^T A_i x - b_i^T x (exact rationals)"


def _qvec(v):
    return [_q(x) for x in v]


def _qmat(v):
    return [[_q(x) for x in r] for r in v]


def _free_json(v):
    if isinstance(v, (bool, np.bool_)):
        raise InputError("instance", f"free value {v!r} is not a number")
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (list, tuple, np.ndarray)):
        return _qvec(v) if np.ndim(v) == 1 else _qmat(v)
    return _q(v)


def instance_to_json(inst: RunInstance) -> dict:
    """Exact, self-describing JSON of a rational quadratic instance (schema :data:`INSTANCE_SCHEMA`).

    Every number is an exact rational written as a ``"p/q"`` string (``"p"`` for integers; counts
    N, d, S, K, T are JSON integers); no float anywhere. Fields:

    ``schema``, ``kind``, ``name``, ``description``; ``N``, ``d`` (clients, dimension); ``A``
    (N, d, d) and ``b`` (N, d): the clients f_i(x) = ½ xᵀA_i x - b_iᵀx; ``beta`` (``P.β``, certified
    β I ⪰ A_i), ``problem_mu`` (certified A_i ⪰ μ I); ``sigma`` (``P.σ``); ``S``, ``K``, ``T``,
    ``eta_l``, ``eta_g`` (the run); ``x0`` (d,); ``init`` (``"some"``: ``c0`` (N, d) are the given
    controls; ``"none"``: ``c0`` is null, the K-sample warm start); ``mu``, ``f_low``, ``xstar``:
    values the instance gives the statement's ``μ``, ``fLower``, ``xstar`` (null: the problem's
    own, see ``derived``); ``free`` (the statement's other bound names); ``oracle`` and
    ``sampling`` (the laws decided, :data:`ORACLE_LAW`, :data:`SAMPLING_LAW`); ``derived``: values
    that follow from the above and are recorded so a reader needs no solver: ``mu``, ``xstar``,
    ``f_low`` as bound to the statement, ``f_star`` (F(x⋆)), ``h`` (K ηl ηg). :func:`instance_from_json`
    recomputes ``derived`` and rejects a record whose values differ.

    Raises InputError for an instance whose problem is not a rational quadratic.
    Source: pyfed's own format (issue 10: "a witness that re-checks exactly").
    """
    p = inst.problem
    if not _is_exact_quadratic(p):
        raise InputError("instance", "only rational quadratic instances have an exact JSON form")
    out = {"schema": INSTANCE_SCHEMA, "kind": _KIND, "name": inst.name, "description": inst.description,
           "N": p.N, "d": p.d, "A": [_qmat(Ai) for Ai in p.A_exact], "b": _qmat(p.b_exact),
           "beta": _q(p.beta), "problem_mu": _q(p.mu), "sigma": _q(inst.sigma),
           "S": int(inst.S), "K": int(inst.K), "T": int(inst.T), "eta_l": _q(inst.eta_l), "eta_g": _q(inst.eta_g),
           "x0": _qvec(inst.x0), "init": "none" if inst.c0 is None else "some",
           "c0": None if inst.c0 is None else _qmat(inst.c0),
           "mu": None if inst.mu is None else _q(inst.mu),
           "f_low": None if inst.f_low is None else _q(inst.f_low),
           "xstar": None if inst.xstar is None else _qvec(inst.xstar),
           "free": {k: _free_json(v) for k, v in sorted(inst.free.items())},
           "oracle": ORACLE_LAW if inst.oracle is None or getattr(inst.oracle, "name", "") == "gaussian"
           else str(getattr(inst.oracle, "name", inst.oracle)),
           "sampling": SAMPLING_LAW}
    out["derived"] = _derived(inst)
    return out


def _derived(inst: RunInstance) -> dict:
    p = inst.problem
    return {"mu": _q(inst.mu if inst.mu is not None else p.mu),
            "xstar": _qvec(inst.xstar if inst.xstar is not None else p.x_star_exact),
            "f_low": _q(inst.f_low if inst.f_low is not None else p.f_low),
            "f_star": _q(p.f_star),
            "h": _q(effective_step(int(inst.K), Fraction(inst.eta_l), Fraction(inst.eta_g)))}


def _F(s, where: str = "instance") -> Fraction:
    if isinstance(s, bool) or not isinstance(s, (int, str)):
        raise InputError(where, f"{s!r} is not an exact rational (write it as a \"p/q\" string)")
    try:
        return fraction_from_text(s)
    except (TypeError, ValueError, ZeroDivisionError):
        raise InputError(where, f"{s!r} is not an exact rational") from None


def _count(data, key, minimum=0) -> int:
    v = data[key]
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise InputError(f"instance.{key}", f"{v!r} is not an integer >= {minimum}")
    return v


def _vec_json(v, where, n):
    if not isinstance(v, list) or len(v) != n:
        raise InputError(where, f"expected a list of {n} rationals")
    return np.array([_F(x, where) for x in v], dtype=object)


def _mat_json(v, where, n, m):
    if not isinstance(v, list) or len(v) != n:
        raise InputError(where, f"expected {n} rows")
    return np.array([list(_vec_json(r, f"{where}[{i}]", m)) for i, r in enumerate(v)], dtype=object).reshape(n, m)


def instance_from_json(data: dict) -> RunInstance:
    """The :class:`RunInstance` of :func:`instance_to_json`'s output, exactly.

    Accepts the current schema and the earlier one without ``schema``/``derived`` (absent
    optional keys mean None). Raises :class:`~pyfed.errors.InputError` whose argument names the
    bad field (``instance.A``, ``instance.derived.xstar`` …): a missing key, a float or
    malformed rational, a shape that disagrees with N and d, an unknown schema, or a recorded
    ``derived`` value that differs from the one recomputed from the data.
    """
    from ..problems.quadratic import QuadraticProblem
    if not isinstance(data, dict):
        raise InputError("instance", "expected a JSON object")
    schema = data.get("schema", INSTANCE_SCHEMA)
    if schema != INSTANCE_SCHEMA:
        raise InputError("instance.schema", f"unsupported schema {schema!r} (this pyfed reads {INSTANCE_SCHEMA!r})")
    try:
        N, d = _count(data, "N", 1), _count(data, "d", 1)
        A = np.array([_mat_json(Ai, f"instance.A[{i}]", d, d) for i, Ai in enumerate(_list(data, "A", N))],
                     dtype=object).reshape(N, d, d)
        b = _mat_json(data["b"], "instance.b", N, d)
        mu_p = data.get("problem_mu")
        try:
            problem = QuadraticProblem(A, b, beta=_F(data["beta"], "instance.beta"),
                                       mu=None if mu_p is None else _F(mu_p, "instance.problem_mu"),
                                       name=data.get("name", "instance"))
        except InputError as exc:
            raise InputError("instance.A", f"the recorded problem is not valid: {exc.reason}") from None
        free = {}
        for k, v in (data.get("free") or {}).items():
            where = f"instance.free.{k}"
            if isinstance(v, int) and not isinstance(v, bool):
                free[k] = v
            elif isinstance(v, list) and v and isinstance(v[0], list):
                free[k] = np.array([[_F(x, where) for x in r] for r in v], dtype=object)
            elif isinstance(v, list):
                free[k] = np.array([_F(x, where) for x in v], dtype=object)
            else:
                free[k] = _F(v, where)
        c0 = data.get("c0")
        init = data.get("init", "none" if c0 is None else "some")
        if init not in ("some", "none") or (init == "some") != (c0 is not None):
            raise InputError("instance.init", f"{init!r} with c0 {'null' if c0 is None else 'given'} "
                             "(\"some\" needs c0, \"none\" has c0 null)")
        inst = RunInstance(
            name=data.get("name", "instance"), problem=problem, sigma=_F(data["sigma"], "instance.sigma"),
            S=_count(data, "S", 1), K=_count(data, "K", 1), T=_count(data, "T", 1),
            eta_l=_F(data["eta_l"], "instance.eta_l"), eta_g=_F(data["eta_g"], "instance.eta_g"),
            x0=_vec_json(data["x0"], "instance.x0", d),
            c0=None if c0 is None else _mat_json(c0, "instance.c0", N, d),
            mu=_F(data["mu"], "instance.mu") if data.get("mu") is not None else None,
            f_low=_F(data["f_low"], "instance.f_low") if data.get("f_low") is not None else None,
            xstar=_vec_json(data["xstar"], "instance.xstar", d) if data.get("xstar") is not None else None,
            free=free, description=data.get("description", ""))
    except KeyError as exc:
        raise InputError(f"instance.{exc.args[0]}", "missing") from None
    if "derived" in data:
        got = data["derived"]
        if not isinstance(got, dict):
            raise InputError("instance.derived", "expected a JSON object")
        for k, v in _derived(inst).items():
            if k in got and got[k] != v:
                raise InputError(f"instance.derived.{k}", f"recorded {got[k]!r} but the instance's data give {v!r}")
    return inst


def _list(data, key, n):
    v = data[key]
    if not isinstance(v, list) or len(v) != n:
        raise InputError(f"instance.{key}", f"expected a list of {n} entries")
    return v


def side_json(v) -> dict:
    """A side or margin of a witness for JSON: ``{"exact": "p/q"}`` for an exact rational; for an
    irrational exact number (sympy) ``{"exact": None, "expression": str, "lower": "p/q", "upper":
    "p/q"}`` with certified rational bounds (an arb ball at 256 bits, endpoints exact);
    for a certified ball the same without ``expression``. Never a float."""
    from flint import arb

    from ..exact import _sympy_to_arb, precision
    v = to_exact(v)
    f = to_fraction(v)
    if f is not None:
        return {"exact": _q(f)}
    out = {"exact": None}
    if isinstance(v, sympy.Basic):
        out["expression"] = str(v)
    elif not isinstance(v, arb):
        raise InputError("witness", f"{v!r} is neither exact nor a certified ball")
    with precision(256):
        ball = _sympy_to_arb(v) if isinstance(v, sympy.Basic) else v
        out["lower"], out["upper"] = _q(_arb_fraction(ball.lower())), _q(_arb_fraction(ball.upper()))
    return out


def _arb_fraction(x) -> Fraction:
    """The exact value of an exact arb (a ball endpoint) as a Fraction."""
    m, e = x.mid().man_exp()
    m, e = int(m), int(e)
    return Fraction(m * 2 ** e) if e >= 0 else Fraction(m, 2 ** (-e))


# --------------------------------------------------------------------------- model access

class ExactAccess:
    """Model quantities of a rational quadratic instance in exact rationals (``res``: the exact
    moments, or None when only the right side and hypotheses are needed)."""

    arithmetic = "exact"

    def __init__(self, inst: RunInstance, res=None):
        p = inst.problem
        self.problem, self.inst, self.res = p, inst, res
        self.N, self.d = p.N, p.d
        self.beta = Fraction(p.beta)
        self.sigma = Fraction(inst.sigma)
        self.x0 = VecRef(X0_KEY, np.asarray(inst.x0, dtype=object))
        self.minimizer = VecRef(MINIMIZER_KEY, p.x_star_exact)
        self.f_star = p.f_star

    def dist_sq(self, u, v):
        return squared_distance(u.value, v.value)

    def norm_sq(self, u):
        return sum((x * x for x in u.value), Fraction(0))

    def control_error(self, c0, xs):
        return initial_control_error(c0, self.problem.grads_exact(xs.value))

    def objective(self, x):
        return self.problem.value_exact(x.value)

    def _offset(self, xs):
        return 0 if xs.key == MINIMIZER_KEY else self.f_star - self.objective(xs)

    def gap(self, r, xs):
        return self.res.gaps[r] + self._offset(xs)

    def grad_sq(self, r):
        return self.res.grad_sq[r]

    def weighted_gap(self, run, xs, mu):
        h = effective_step(run.K, run.eta_l, run.eta_g)
        ws, W = exact_weights(run.T, mu, h)
        off = self._offset(xs)
        gaps = self.res.gaps[:run.T] if not off else [g + off for g in self.res.gaps[:run.T]]
        if W == 0:      # Lean: (weightSum …)⁻¹ = 0⁻¹ = 0 (μ h = 2)
            return Fraction(0)
        if isinstance(W, sympy.Basic):      # an irrational μ: exact sympy, never a float
            return sum((w * _sympy(g) for w, g in zip(ws, gaps)), sympy.Integer(0)) / W
        return sum((w * g for w, g in zip(ws, gaps)), Fraction(0)) / W

    def average_grad_sq(self, run):
        return sum(self.res.grad_sq[:run.T], Fraction(0)) / run.T


class BallAccess:
    """Model quantities in certified balls (the exact-moment engine's ball field ``F``; must be
    used inside ``F.active()``); mirrors :func:`pyfed.engines.exact.decide_convex`'s ball path."""

    arithmetic = "ball"

    def __init__(self, F, inst: RunInstance, res, x0v, c0v):
        from .exact.model import _minimiser, _problem_data
        p = inst.problem
        self.problem, self.inst, self.res, self.F = p, inst, res, F
        self.N, self.d = p.N, p.d
        A, b = _problem_data(F, p)
        xs, fstar = _minimiser(F, p, A, b)
        self.A, self.b, self.xs, self.fstar = A, b, xs, fstar
        self.beta = to_arb(p.beta)
        self.sigma = to_arb(inst.sigma)
        self.x0 = VecRef(X0_KEY, x0v)
        self.minimizer = VecRef(MINIMIZER_KEY, xs)
        self.c0v = c0v

    def dist_sq(self, u, v):
        return sum(((u.value[j] - v.value[j]) ** 2 for j in range(self.d)), to_arb(0))

    def norm_sq(self, u):
        return sum((u.value[j] ** 2 for j in range(self.d)), to_arb(0))

    def control_error(self, c0, xs):
        gstar = [self.A[i].dot(xs.value) - self.b[i] for i in range(self.N)]
        return sum(((c0[i][j] - gstar[i][j]) ** 2 for i in range(self.N) for j in range(self.d)),
                   to_arb(0)) / self.N

    def objective(self, x):
        from fractions import Fraction as Fr
        invN = self.F.scalar(Fr(1, self.N))
        Abar, bbar = self.A.sum(axis=0) * invN, self.b.sum(axis=0) * invN
        v = x.value
        return v.dot(Abar).dot(v) * self.F.scalar(Fr(1, 2)) - bbar.dot(v) if self.d else self.F.scalar(0)

    def _offset(self, xs):
        return None if xs.key == MINIMIZER_KEY else self.fstar - self.objective(xs)

    def gap(self, r, xs):
        off = self._offset(xs)
        return self.res.gaps[r] if off is None else self.res.gaps[r] + off

    def grad_sq(self, r):
        return self.res.grad_sq[r]

    def weighted_gap(self, run, xs, mu):
        from .. import theory
        el, eg, m = to_arb(run.eta_l), to_arb(run.eta_g), to_arb(mu)
        h = theory.effective_step(run.K, el, eg)
        ws, W = theory.weights(run.T, m, h, lean=True), theory.weight_sum(run.T, m, h, lean=True)
        off = self._offset(xs)
        lhs = to_arb(0)
        for w, g in zip(ws, self.res.gaps[:run.T]):
            lhs = lhs + w * (g if off is None else g + off)
        if W.is_exact() and W == 0:     # Lean: 0⁻¹ = 0 (μ h = 2)
            return to_arb(0)
        if W.contains(0):
            raise Undecided("weightSum is a ball containing 0")
        return lhs / W

    def average_grad_sq(self, run):
        lhs = to_arb(0)
        for g in self.res.grad_sq[:run.T]:
            lhs = lhs + g
        return lhs / run.T


class FloatAccess:
    """Model quantities of a problem with floating data (real data): the same numpy formulas the
    default report has always used; statistics are Monte Carlo's (not available here)."""

    arithmetic = "float"

    def __init__(self, inst: RunInstance, exact_scalars: bool = False):
        p = inst.problem
        self.problem, self.inst = p, inst
        self.N, self.d = p.N, p.d
        conv = (lambda v: Fraction(v) if isinstance(v, float) else v) if exact_scalars else (lambda v: v)
        self.beta = conv(p.beta)
        self.sigma = conv(inst.sigma)
        self.conv = conv
        self.x0 = VecRef(X0_KEY, inst.x0)
        self.minimizer = VecRef(MINIMIZER_KEY, p.x_star)
        self.f_star = p.f_star

    def dist_sq(self, u, v):
        return self.conv(float(np.sum((np.asarray(u.value, dtype=float) - np.asarray(v.value, dtype=float)) ** 2)))

    def norm_sq(self, u):
        return self.conv(float(np.sum(np.asarray(u.value, dtype=float) ** 2)))

    def control_error(self, c0, xs):
        p = self.problem
        gs = p.client_grads(np.broadcast_to(np.asarray(xs.value, dtype=float), (p.N, p.d)))
        return self.conv(float(np.mean(np.sum((np.asarray(c0, dtype=float) - gs) ** 2, axis=1))))

    def objective(self, x):
        return self.conv(float(self.problem.value(np.asarray(x.value, dtype=float))))

    def _stat(self, *a):
        raise EvaluationError(None, "the run's statistics of a floating-data instance are estimated by Monte Carlo")

    gap = grad_sq = weighted_gap = average_grad_sq = _stat


class SymbolicAccess:
    """Exact parameter values with the run's per-round statistics as sympy symbols: G_r (gap of
    round r, key ``(\"gap\", r, xstar)``), D_r (key ``(\"gradsq\", r)``). ``pep=True`` also makes
    ``‖x0 - x⋆‖²`` and ``C₀`` the symbols ``D``, ``C`` (other problem quantities are then
    errors: the PEP knows the function class, not the data)."""

    arithmetic = "symbolic"

    def __init__(self, base, *, pep: bool = False):
        self.base, self.pep = base, pep
        self.N, self.d = base.N, base.d
        self.beta = _sympy(base.beta)
        self.sigma = _sympy(base.sigma)
        self.x0 = base.x0
        self.minimizer = base.minimizer
        self.atoms: dict = {}
        self.D, self.C = sympy.Symbol("distSq"), sympy.Symbol("C0")

    def atom(self, key):
        if key not in self.atoms:
            name = "_".join(str(k) for k in key)
            self.atoms[key] = sympy.Symbol(f"stat_{name}")
        return self.atoms[key]

    def _not_pep(self, what):
        raise NotLinear(f"the right side at σ = 0 involves {what}, not only ‖x0 - x⋆‖² and C₀")

    def dist_sq(self, u, v):
        if self.pep:
            if {u.key, v.key} == {X0_KEY, MINIMIZER_KEY}:
                return self.D
            self._not_pep(f"‖{u.key} - {v.key}‖")
        return _sympy(self.base.dist_sq(u, v))

    def norm_sq(self, u):
        if self.pep:
            self._not_pep(f"‖{u.key}‖")
        return _sympy(self.base.norm_sq(u))

    def control_error(self, c0, xs):
        if self.pep:
            if xs.key == MINIMIZER_KEY:
                return self.C
            self._not_pep("C₀ at a point other than the minimiser")
        return _sympy(self.base.control_error(c0, xs))

    def objective(self, x):
        if self.pep:
            self._not_pep(f"F({x.key}) (objective P.f)")
        return _sympy(self.base.objective(x))

    def gap(self, r, xs):
        g = self.atom(("gap", r))
        if xs.key == MINIMIZER_KEY:
            return g
        if self.pep:
            self._not_pep("a gap to a point other than the minimiser")
        return g + _sympy(self.base.f_star) - _sympy(self.base.objective(xs))

    def grad_sq(self, r):
        return self.atom(("gradsq", r))

    def weighted_gap(self, run, xs, mu):
        h = effective_step(run.K, to_exact(run.eta_l), to_exact(run.eta_g))
        ws, W = exact_weights(run.T, mu, h)
        if W == 0:      # Lean: 0⁻¹ = 0 (μ h = 2)
            return sympy.Integer(0)
        return sum((_sympy(w / W) * self.gap(r, xs) for r, w in enumerate(ws)), sympy.Integer(0))

    def average_grad_sq(self, run):
        return sum((self.grad_sq(r) for r in range(run.T)), sympy.Integer(0)) / run.T


def exact_weights(T: int, mu, h):
    """Lean's weights ``(1 - μ h/2)⁻¹ ^ (r+1)``, r < T, and their sum, exactly: Fractions for a
    rational μ and h (:func:`pyfed.theory.weights` with ``lean=True``: μ h = 2 gives zeros), exact
    sympy numbers for an irrational μ (``weightedGap A xstar (Real.sqrt 2)``) -- never mpmath,
    which would make an "exact" verdict rest on rounded weights."""
    m, hq = to_exact(mu), to_exact(h)
    if to_fraction(m) is not None and to_fraction(hq) is not None:
        m, hq = to_fraction(m), to_fraction(hq)
        return weights(T, m, hq, lean=True), weight_sum(T, m, hq, lean=True)
    q = sympy.simplify(1 - _sympy(m) * _sympy(hq) / 2)
    inv = sympy.Integer(0) if q.is_zero else 1 / q
    ws = [inv ** (r + 1) for r in range(int(T))]
    return ws, sum(ws, sympy.Integer(0))


def _sympy(v):
    if isinstance(v, sympy.Basic):
        return v
    f = to_fraction(v)
    if f is None and isinstance(v, float):
        f = Fraction(v)
    if f is None:
        return sympy.sympify(v)
    return sympy.Rational(f.numerator, f.denominator)


class NotLinear(Exception):
    """The left side is not a linear combination of per-round statistics (or, for the PEP, the
    right side is not a combination of ‖x0 - x⋆‖² and C₀); the message says why."""


# --------------------------------------------------------------------------- binding

def fits(st, inst: RunInstance) -> str | None:
    """None if ``inst`` can bind the statement's names, else why not (init kind, numerals in
    the run's or problem's arguments that differ, free names without values)."""
    if (st.init == "some") != (inst.c0 is not None):
        return ("the statement's initialisation is `some c0`" if st.init == "some"
                else "the statement's initialisation is `none` (warm start)")
    checks = [(st.run[r], getattr(inst, r)) for r in ("S", "K", "T", "eta_l", "eta_g")]
    checks += list(zip(getattr(st, "problem_args", []), (inst.d, inst.N)))
    for node, v in checks:
        if node.kind == "num" and Fraction(node.value) != Fraction(v):
            return f"the statement fixes `{node.text}` where the instance has {v}"
    for p in st.parameters:
        if p.role == "free" and p.name not in inst.free:
            return f"no value for the statement's parameter `{p.name}`"
    return None


def bind(st, inst: RunInstance, access) -> Valuation:
    """The :class:`Valuation` of ``st`` on ``inst`` with the model quantities of ``access``."""
    ar = access.arithmetic

    def real(v):
        if ar == "ball":
            return to_arb(v)
        if ar == "symbolic":
            return _sympy(v)
        if ar == "exact":
            f = to_fraction(v)
            if f is None and isinstance(v, float):
                f = Fraction(v)
            return f if f is not None else v
        return v

    p = inst.problem
    env: dict = {}
    for prm in st.parameters:
        r = prm.role
        if r == "P":
            env[prm.name] = "P"
        elif r in ("nu", "Omega") or prm.kind in ("instance", "space", "measure"):
            env[prm.name] = None
        elif r == "d":
            env[prm.name] = p.d
        elif r == "N":
            env[prm.name] = p.N
        elif r in ("S", "K", "T"):
            env[prm.name] = int(getattr(inst, r))
        elif r in ("eta_l", "eta_g"):
            env[prm.name] = real(getattr(inst, r))
        elif r == "mu":
            env[prm.name] = real(inst.mu if inst.mu is not None else p.mu)
        elif r == "f_low":
            v = inst.f_low if inst.f_low is not None else p.f_low
            env[prm.name] = as_float(v) if ar == "float" else real(v)
        elif r == "xstar":
            env[prm.name] = access.minimizer if inst.xstar is None else VecRef(prm.name, _vec(inst.xstar, access))
        elif r == "c0":
            env[prm.name] = _controls(inst.c0, access)
        elif r == "free":
            v = inst.free[prm.name]
            if prm.kind == "nat":
                env[prm.name] = int(v)
            elif prm.kind == "real":
                env[prm.name] = real(v)
            elif prm.kind == "vector":
                env[prm.name] = VecRef(prm.name, _vec(v, access))
            else:
                env[prm.name] = _controls(v, access)
    run = RunRef(int(inst.S), int(inst.K), int(inst.T), real(inst.eta_l), real(inst.eta_g))
    env[st.role_of("A")] = run
    val = Valuation(ar, env, access)
    val.definitions = st.definitions
    return val


def _vec(v, access):
    if access.arithmetic == "ball":
        return np.array([to_arb(x) for x in v], dtype=object)
    if access.arithmetic == "float":
        return np.asarray(v, dtype=float)
    return np.array([Fraction(x) for x in v], dtype=object)


def _controls(c, access):
    if access.arithmetic == "ball":
        return getattr(access, "c0v", None) if c is None else \
            np.array([[to_arb(x) for x in row] for row in c], dtype=object)
    if access.arithmetic == "float":
        return np.asarray(c, dtype=float)
    return np.array([[Fraction(x) for x in row] for row in c], dtype=object)


# --------------------------------------------------------------------------- hypotheses

def _structural(inst: RunInstance) -> list:
    p = inst.problem

    def h(key, stmt, margin, strict=False):
        return Hypothesis(key, stmt, bool(margin > 0) if strict else bool(margin >= 0), margin)

    beta = Fraction(p.beta) if isinstance(p.beta, (int, Fraction)) else p.beta
    sigma = Fraction(inst.sigma) if isinstance(inst.sigma, (int, Fraction)) else inst.sigma
    N, S, K, T = p.N, int(inst.S), int(inst.K), int(inst.T)
    F = Fraction
    return [h("clients", "N >= 1", F(N - 1)), h("participation", "1 <= S <= N", F(min(S - 1, N - S))),
            h("local_steps", "K >= 1", F(K - 1)), h("rounds", "T >= 1", F(T - 1)),
            h("beta", "beta > 0", beta, strict=True), h("sigma", "sigma >= 0", sigma)]


def evaluate_hypotheses(st, inst: RunInstance, *, relax=()) -> list:
    """[Hypothesis] of the model's structures (``Problem``, ``Run``) and the statement's own
    hypotheses (keys of :class:`~pyfed.statements.HypothesisSpec`), decided exactly: rational
    values as Fractions, floats at their exact binary value, irrational values (``Real.rpow``)
    by certified balls or an exact sympy test. Hypotheses in ``relax`` are evaluated but
    reported as they are (the caller decides what to do with them)."""
    out = _structural(inst)
    p = inst.problem
    if _is_exact_quadratic(p):
        access = ExactAccess(inst)
    else:
        access = FloatAccess(inst, exact_scalars=True)
    val = bind(st, inst, access)
    for hs in st.hypotheses:
        try:
            out.append(_hypothesis(hs, st, inst, val, access))
        except (EvaluationError, Undecided) as exc:
            out.append(Hypothesis(hs.key, hs.text, False, None))
            out[-1] = Hypothesis(hs.key, f"{hs.text} (undecided: {exc})", False, None)
    return out


#: At most this many halvings of ηl in :func:`fit_step` (2^-64: far below any step a statement needs).
STEP_HALVINGS = 64


def _step_names(st) -> set:
    """The bound names in the run's ηl and ηg arguments (``Run P ν S K T ηl ηg …``)."""
    return {n.value for role in ("eta_l", "eta_g") if st.run.get(role) is not None
            for n in st.run[role].walk() if n.kind == "ident"}


def hypothesis_mentions(spec, names) -> bool:
    """True when the hypothesis ``spec`` (a :class:`~pyfed.statements.HypothesisSpec`) is a
    comparison that mentions one of the bound ``names``."""
    return spec.kind == "compare" and spec.node is not None and any(
        n.kind == "ident" and n.value in names for n in spec.node.walk())


def step_hypothesis(st, spec) -> bool:
    """True when ``spec`` (a hypothesis of ``st``) is a comparison that involves the step: it
    mentions ηl or ηg (``effectiveStep K ηl ηg`` does)."""
    return hypothesis_mentions(spec, _step_names(st))


def fit_step(st, inst: RunInstance, *, halvings: int = STEP_HALVINGS) -> tuple:
    """``inst`` with its local step ηl made small enough for ``st``'s hypotheses, exactly.

    Returns ``(instance, k, hypotheses)``: when every hypothesis holds on ``inst``, ``(inst, 0,
    hyps)``; when the only failing ones are comparisons involving the step
    (:func:`step_hypothesis`), ηl is halved (an exact rational: ηl / 2^k) for k = 1, 2, …,
    ``halvings`` and ALL hypotheses are re-decided by :func:`evaluate_hypotheses` each time; the
    first k at which every one holds gives ``(copy of inst with ηl / 2^k, k, hyps)``. Otherwise
    (a structural or non-step hypothesis fails, or no k ≤ ``halvings`` works) ``(None, 0, hyps)``
    with the hypotheses of the unchanged ``inst``. ``inst`` itself is never modified."""
    hyps = evaluate_hypotheses(st, inst)
    bad = [i for i, h in enumerate(hyps) if not h.holds]
    if not bad:
        return inst, 0, hyps
    n_struct = len(hyps) - len(st.hypotheses)
    for i in bad:
        if i < n_struct or not step_hypothesis(st, st.hypotheses[i - n_struct]):
            return None, 0, hyps
    eta = Fraction(inst.eta_l)
    if eta <= 0:
        return None, 0, hyps
    for k in range(1, int(halvings) + 1):
        trial = replace(inst, eta_l=eta / 2 ** k)
        hs = evaluate_hypotheses(st, trial)
        if all(h.holds for h in hs):
            return trial, k, hs
    return None, 0, hyps


def _hypothesis(hs, st, inst, val, access) -> Hypothesis:
    p = inst.problem
    if hs.kind == "compare":
        a = evaluate(hs.node.args[0], val)
        b = evaluate(hs.node.args[1], val)
        holds = decide(hs.op, a, b)
        margin = _margin(b, a) if hs.op in ("≤", "<") else None
        return Hypothesis(hs.key, hs.text, bool(holds), margin)
    if hs.kind == "convexity":
        mu = evaluate(hs.args[1], val)
        if decide_sign(mu) < 0:
            return Hypothesis(hs.key, hs.text, False, _margin(mu, 0))
        holds, margin = p.convexity(to_exact(mu))
        return Hypothesis(hs.key, hs.text, bool(holds), margin)
    if hs.kind == "minimizer":
        xs = evaluate(hs.args[1], val)
        if _is_exact_quadratic(p):
            ok = xs.key == MINIMIZER_KEY or all(Fraction(a) == Fraction(b) for a, b in zip(xs.value, p.x_star_exact))
            return Hypothesis(hs.key, hs.text, bool(ok), Fraction(0) if ok else None)
        ok = xs.key == MINIMIZER_KEY
        return Hypothesis(hs.key, hs.text + " (the problem's numerical minimiser)", bool(ok), None)
    if hs.kind == "lower_bound":
        fl = evaluate(hs.args[0], val)
        if _is_exact_quadratic(p):
            margin = Fraction(p.f_star) - to_exact(fl)
            return Hypothesis(hs.key, hs.text, decide_sign(margin) >= 0, margin)
        cert = p.derivations.get("f_low")
        flow = Fraction(p.f_low) if isinstance(p.f_low, float) else p.f_low
        fx0 = access.objective(access.x0)
        margin = fx0 - to_exact(fl)
        ok = bool(cert) and decide_sign(Fraction(flow) - to_exact(fl)) >= 0 and decide_sign(margin) >= 0
        return Hypothesis(hs.key, hs.text, ok, margin)
    raise InputError("statement", f"unknown hypothesis kind {hs.kind}")


def _margin(b, a):
    m = arith("-", b, a)
    if isinstance(m, sympy.Basic):
        if m.is_Rational:
            return Fraction(int(m.p), int(m.q))
        import mpmath
        return mpmath.mpf(str(sympy.N(m, 50)))
    return m


def _hyp_json(hyps):
    from .exact.verdict import _hyp_json as hj
    return hj(hyps)


# --------------------------------------------------------------------------- verdicts

def _frac_str(v):
    """A number of a verdict's ``details``: exact rationals as :func:`pyfed.exact.number_json`
    ("p/q" with its correctly rounded float, capped at REPORT_EXACT_CHARS characters: the full
    value stays in the Verdict's sides); anything else as its text."""
    return number_json(v) if isinstance(v, Fraction) else str(v)


def _exact_verdict(st, lhs, rhs, details, witness, certificate):
    """Verdict of ``lhs (≤|<) rhs`` from exact values (Fractions, or exact sympy numbers)."""
    details = dict(details)
    lhs, rhs = to_exact(lhs), to_exact(rhs)
    lhs, rhs = (Fraction(lhs) if isinstance(lhs, int) else lhs), (Fraction(rhs) if isinstance(rhs, int) else rhs)
    s = compare(lhs, rhs)
    holds = s >= 0 if st.relation == "≤" else s > 0
    if all(isinstance(v, Fraction) for v in (lhs, rhs)):
        details["lhs_exact"] = _frac_str(lhs)
        details["rhs_exact"] = _frac_str(rhs)
        details["ratio_exact"] = _frac_str(lhs / rhs) if rhs > 0 else None
        details["margin_exact"] = _frac_str(rhs - lhs)
        lv, rv = lhs, rhs
    else:
        import mpmath
        details["lhs_exact"] = str(lhs)
        details["rhs_exact"] = str(rhs)
        details["margin_exact"] = str(arith("-", rhs, lhs))
        lv = lhs if isinstance(lhs, Fraction) else mpmath.mpf(str(sympy.N(_sympy(lhs), 50)))
        rv = rhs if isinstance(rhs, Fraction) else mpmath.mpf(str(sympy.N(_sympy(rhs), 50)))
        # an irrational side: its exact expression (above) and a certified enclosure with its digits
        from ..exact import _sympy_to_arb, precision
        with precision(128):
            for side, val in (("lhs", lhs), ("rhs", rhs)):
                if not isinstance(val, Fraction):
                    details[f"{side}_certified"] = number_json(_sympy_to_arb(_sympy(val)))
    if holds:
        return Holds(st.name, lv, rv, True, details, certificate=certificate)
    from ..exact import format_number
    details["witness_text"] = violation_wording(st.relation, format_number(lv), format_number(rv), s == 0)
    return Violated(st.name, lv, rv, True, details, witness=witness)


def _ball_verdict(st, lhs, rhs, details, witness, bits):
    from .exact.verdict import _inequality_verdict
    lhs, rhs = to_arb(lhs), to_arb(rhs)       # a side may have come out exact (min of numerals, sqrt of a square)
    v = _inequality_verdict(st.name, lhs, rhs, False, details, witness, None, bits)
    if v.status == "violated":
        v.details["witness_text"] = violation_wording(st.relation, lhs.str(10), rhs.str(10), False)
    if st.relation == "<" and v.status == "holds":
        margin = rhs - lhs
        if margin.is_exact() and margin == 0:      # both sides the same exact number: strict < fails
            v.details["witness_text"] = violation_wording("<", lhs.str(10), rhs.str(10), True)
            out = Violated(st.name, v.lhs, v.rhs, True, v.details, witness=witness)
            out.balls = v.balls
            return out
        if not (margin > 0):
            out = Inconclusive(st.name, v.lhs, v.rhs, False, v.details,
                               reason="the strict inequality < is not certified by the balls")
            out.balls = v.balls
            return out
    return v


def _finish(st, v, details):
    """The theorem's verdict: the inequality's own verdict when every hypothesis holds, else
    Inconclusive (the theorem claims nothing there) saying what the inequality does."""
    v.details["inequality"] = v.status if v.status != "inconclusive" else "undecided"
    if details.get("hypotheses_hold", True):
        return v
    bad = [h["statement"] for h in details.get("hypotheses", []) if not h["holds"]]
    out = Inconclusive(st.name, v.lhs, v.rhs, v.exact, v.details,
                       reason=(f"hypotheses fail ({'; '.join(bad)}): the theorem claims nothing here; "
                               f"the inequality itself {inequality_phrase(v.details['inequality'])} at this instance"))
    if getattr(v, "balls", None):  # reports print the balls' certified digits
        out.balls = v.balls
    return out


_PREC_LADDER = (128, 256, 512, 1024, 2048)


def _field_inputs(inst):
    return [inst.sigma, inst.eta_l, inst.eta_g] + list(np.asarray(inst.x0, dtype=object).ravel()) + \
        ([] if inst.c0 is None else list(np.asarray(inst.c0, dtype=object).ravel()))


def _rounds_needed(st, inst) -> int:
    return int(inst.T)


def decide_exact(st, inst: RunInstance, *, arithmetic: str = "auto", prec: int | None = None,
                 details_extra: dict | None = None) -> Verdict:
    """Decide ``st`` on a rational quadratic instance with the exact-moment engine.

    The left side's statistics come from :func:`pyfed.engines.exact.scaffold_run_moments`'s
    propagation (exact rationals, or certified balls beyond the exact budget with precision
    raised up to 2048 bits until the sign is certified); both sides are evaluated from the
    statement's Lean terms. Returns Holds / Violated (witness: the instance's exact JSON, see
    :func:`recheck`) / Inconclusive (hypotheses fail, or a ball containing 0).

    Raises InputError for a problem that is not a rational quadratic.
    """
    from .exact.arith import ExactField
    from .exact.model import _controls as mk_controls, _is_rational, _vector
    from .exact.propagation import _sampled_round_moments
    from .exact.verdict import _hyp_json as hj, _pick_field, _rhs_terms

    p = inst.problem
    if not _is_exact_quadratic(p):
        raise InputError("instance", "the exact-moment engine needs quadratic clients with rational data")
    why = fits(st, inst)
    if why:
        raise InputError("instance", why)
    hyps = evaluate_hypotheses(st, inst)
    N, d, S, K = p.N, p.d, int(inst.S), int(inst.K)
    rounds = _rounds_needed(st, inst)
    rational = all(_is_rational(v) for v in _field_inputs(inst))
    n_state = d * (N + 1)
    ladder = [prec] if prec else list(_PREC_LADDER)
    witness = {"instance": instance_to_json(inst), "statement": st.name, "source": st.source}
    warm = st.init == "none"
    base = {"engine": "exact moments (pyfed.engines.exact)",
            "model": "seed-000 Run (virtual paths, then sampling), " + ("K-sample warm start" if warm else "deterministic c0"),
            "hypotheses": hj(hyps), "hypotheses_hold": all(h.holds for h in hyps)}
    if not warm:
        base["c0"] = "given"
    base.update(details_extra or {})
    verdict = None
    for bits in ladder:
        F = _pick_field(arithmetic, rational, n_state, rounds, bits)
        with F.active():
            x0v = _vector(F, "x0", inst.x0, d)
            c0v = None if warm else mk_controls(F, "c0", inst.c0, N, d)
        res = _sampled_round_moments(p, inst.sigma, S=S, K=K, T=rounds, eta_l=inst.eta_l, eta_g=inst.eta_g,
                                     x0=x0v, c0=c0v, noise_cov=None, variant="run", field=F, warm_start=warm,
                                     algorithm="scaffold_run")
        details = dict(base, arithmetic=F.name)
        from .exact.verdict import _short  # 8 correct digits at any magnitude (no float overflow)
        if "averageGradientSq" in st.statistics and "weightedGap" not in st.statistics:
            details["grad_sq"] = [_short(g) for g in res.grad_sq]
        else:
            details["gaps"] = [_short(g) for g in res.gaps]
        if isinstance(F, ExactField):
            access = ExactAccess(inst, res)
            val = bind(st, inst, access)
            try:
                lhs, rhs = evaluate(st.lhs, val), evaluate(st.rhs, val)
            except EvaluationError as exc:
                return Inconclusive(st.name, details=details, reason=str(exc))
            _add_model_numbers(st, access, val, details)
            terms = _model_rhs_terms(st, val, lhs, rhs, _rhs_terms)
            if terms:
                details["rhs_terms"] = terms
            v = _exact_verdict(st, lhs, rhs, details, witness, "exact rational arithmetic (python-flint fmpq_mat)")
            return _finish(st, v, details)
        with F.active():
            access = BallAccess(F, inst, res, x0v, c0v)
            val = bind(st, inst, access)
            try:
                lhs, rhs = evaluate(st.lhs, val), evaluate(st.rhs, val)
            except Undecided as exc:
                verdict = Inconclusive(st.name, details=details, reason=f"undecided at {bits} bits: {exc}")
                continue
            except EvaluationError as exc:
                return Inconclusive(st.name, details=details, reason=str(exc))
            v = _ball_verdict(st, lhs, rhs, details, witness, bits)
            verdict = _finish(st, v, details)
        if verdict.details.get("inequality") != "undecided":
            return verdict
    return verdict


def _add_model_numbers(st, access, val, details):
    """dist_sq, C0 (or f_gap) of the model's right side, exactly, as the default report shows."""
    xs = st.role_of("xstar")
    c0 = st.controls
    try:
        if xs is not None and c0 is not None:
            xsv = val.env[xs]
            details["dist_sq"] = _frac_str(access.dist_sq(access.x0, xsv))
            details["C0"] = _frac_str(access.control_error(val.env[c0], xsv))
        fl = st.role_of("f_low")
        if fl is not None:
            details["f_gap"] = _frac_str(access.objective(access.x0) - val.env[fl])
    except Exception:      # reporting only: never let it change a verdict
        pass


def _model_rhs_terms(st, val, lhs, rhs, rhs_terms):
    """The default report's ``rhs_terms`` (first term, noise term, the noise constant this
    instance needs) when the right side is the model's convexRHS / nonconvexRHS itself."""
    from .. import theory
    head = st.rhs.head_name()
    if head not in ("convexRHS", "nonconvexRHS") or not isinstance(rhs, Fraction):
        return None
    args = [evaluate(a, val) for a in st.rhs.args[1:]]
    S, K, eg = args[1], args[2], args[5]
    h = theory.effective_step(K, args[4], eg)
    if head == "convexRHS":
        return rhs_terms(lhs, rhs, theory.noise_term(1, val.access.sigma, S, K, eg, h), 12, "V0/(h W_T)")
    return rhs_terms(lhs, rhs, theory.noise_term(val.access.beta, val.access.sigma, S, K, eg, h), 70,
                     "14 (f(x0) - f_low)/(h T)")


def sides_exact(st, inst: RunInstance):
    """(lhs, rhs, hypotheses) of ``st`` on a rational quadratic instance, exactly (exact
    rationals only; no verdict): the search and the constant profile use it."""
    from .exact.arith import ExactField
    from .exact.model import _controls as mk_controls, _vector
    from .exact.propagation import _sampled_round_moments

    p = inst.problem
    F = ExactField()
    warm = st.init == "none"
    with F.active():
        x0v = _vector(F, "x0", inst.x0, p.d)
        c0v = None if warm else mk_controls(F, "c0", inst.c0, p.N, p.d)
    res = _sampled_round_moments(p, inst.sigma, S=int(inst.S), K=int(inst.K), T=int(inst.T), eta_l=inst.eta_l,
                                 eta_g=inst.eta_g, x0=x0v, c0=c0v, noise_cov=None, variant="run", field=F,
                                 warm_start=warm, algorithm="scaffold_run")
    access = ExactAccess(inst, res)
    val = bind(st, inst, access)
    return evaluate(st.lhs, val), evaluate(st.rhs, val), val


def recheck(st, witness: dict) -> Verdict:
    """Re-decide ``st`` on a witness (``{"instance": instance_to_json(...)}``) exactly."""
    inst = instance_from_json(witness["instance"] if "instance" in witness else witness)
    return decide_exact(st, inst, arithmetic="exact")


# --------------------------------------------------------------------------- linear forms

def linear_form(st, inst: RunInstance, *, access=None, pep: bool = False):
    """The left side on ``inst`` as ``(c, {("gap", r): a_r, ("gradsq", r): b_r})`` with exact
    sympy coefficients: LHS = c + Σ a_r G_r + Σ b_r D_r. Raises :class:`NotLinear` (with the
    reason) when the left side is not affine in the per-round statistics."""
    base = access or (ExactAccess(inst) if _is_exact_quadratic(inst.problem) else FloatAccess(inst, True))
    sa = SymbolicAccess(base, pep=pep)
    val = bind(st, inst, sa)
    expr = sympy.expand(sympy.sympify(evaluate(st.lhs, val)))
    syms = list(sa.atoms.values())
    try:
        poly = sympy.Poly(expr, *syms) if syms else None
    except sympy.PolynomialError:
        poly = None
    if syms and (poly is None or poly.total_degree() > 1 or any(s in str(expr) for s in ()) ):
        raise NotLinear(f"the left side `{st.lhs.text[:60]}` is not a linear combination of per-round "
                        "expectations (Monte Carlo estimates expectations, so it cannot estimate it without bias)")
    coefs = {}
    const = expr
    for key, s in sa.atoms.items():
        c = expr.coeff(s)
        if c.free_symbols:
            raise NotLinear(f"the coefficient of {key} depends on another statistic")
        if c != 0:
            coefs[key] = c
        const = const - c * s
    const = sympy.simplify(const)
    if const.free_symbols:
        raise NotLinear("the left side is not affine in the per-round statistics")
    return const, coefs


# --------------------------------------------------------------------------- Monte Carlo

def decide_montecarlo(st, inst: RunInstance, *, replicates: int = 256, seed: int = 0,
                      confidence: float = 0.999, details_extra: dict | None = None) -> Verdict:
    """Decide ``st`` by simulating ``replicates`` runs (seeded ``default_rng(seed)``).

    The left side ``weightedGap`` / ``averageGradientSq`` is estimated by its library estimator
    (:mod:`pyfed.engines.montecarlo`); any other left side must be a linear combination of
    per-round statistics (:func:`linear_form`), estimated per replicate. The right side is
    evaluated from the statement (exact or mpmath). Nonlinear left sides give Inconclusive
    with the reason; so does a run that diverges (:class:`pyfed.errors.Diverged`): "diverged at
    round r", flagged as an anomaly since every hypothesis holds here
    (:func:`pyfed.engines.montecarlo.diverged`)."""
    from ..algorithms import scaffold_run
    from ..oracles import GaussianOracle
    from .montecarlo import Estimate, decide, estimate_average_gradient_sq, estimate_weighted_gap

    why = fits(st, inst)
    if why:
        raise InputError("instance", why)
    hyps = evaluate_hypotheses(st, inst)
    details = {"instance": inst.name, "description": inst.description, "parameters": inst.parameters(),
               "hypotheses": [{"key": h.key, "statement": h.statement, "holds": h.holds,
                               "margin": number_json(h.margin)} for h in hyps],
               "seed": seed}
    details.update(details_extra or {})
    access = ExactAccess(inst) if _is_exact_quadratic(inst.problem) else FloatAccess(inst)
    val = bind(st, inst, access)
    try:
        rhs = evaluate(st.rhs, val)
    except EvaluationError as exc:
        return Inconclusive(st.name, details=details, reason=str(exc))
    rhs = to_exact(rhs)
    if isinstance(rhs, sympy.Basic):
        import mpmath
        rhs = mpmath.mpf(str(sympy.N(rhs, 50)))
    bad = [h for h in hyps if not h.holds]
    if bad:
        return Inconclusive(st.name, rhs=rhs, details=details,
                            reason="hypotheses fail: " + "; ".join(h.statement for h in bad))
    single = st.lhs.kind == "app" and st.lhs.head_name() in ("weightedGap", "averageGradientSq")
    form = None
    if not single:
        try:
            form = linear_form(st, inst)
        except NotLinear as exc:
            return Inconclusive(st.name, rhs=rhs, details=details, reason=f"Monte Carlo not applicable: {exc}")
    oracle = inst.oracle if inst.oracle is not None else GaussianOracle(inst.problem, inst.sigma)
    c0 = None if st.init == "none" else inst.c0
    if c0 is not None and np.asarray(c0).dtype == object:
        c0 = np.array([[float(v) for v in row] for row in c0])
    x0 = inst.x0 if np.asarray(inst.x0).dtype != object else np.array([float(v) for v in inst.x0])
    witness = {"instance": inst.name, "seed": seed, "replicates": replicates, "parameters": inst.parameters()}
    try:
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is detected and reported below
            traj = scaffold_run(inst.problem, oracle, S=inst.S, K=inst.K, T=inst.T, eta_l=inst.eta_l,
                                eta_g=inst.eta_g, x0=x0, c0=c0, R=replicates, rng=np.random.default_rng(seed))
    except Diverged as exc:  # every hypothesis holds here (checked above): an anomaly worth reporting
        from .montecarlo import diverged
        details.update(replicates=replicates, method="montecarlo")
        return diverged(st.name, exc, rhs, inside_hypotheses=True, details=details, witness=witness)
    if single:
        if st.lhs.head_name() == "weightedGap":
            h = effective_step(inst.K, inst.eta_l, inst.eta_g)
            mu = evaluate(st.lhs.args[3], val)
            xs = evaluate(st.lhs.args[2], val)
            f_star = None if xs.key == MINIMIZER_KEY else as_float(access.objective(xs))
            from ..exact import fraction_of
            mu_q = fraction_of(to_exact(mu))           # a float μ at its exact binary value
            if mu_q is not None and weight_sum(inst.T, mu_q, h, lean=True) == 0:
                # μ h = 2: Lean's weights (1 - μh/2)⁻¹ ^ (r+1) are 0⁻¹ ^ (r+1) = 0, so weightedGap is exactly 0
                est = Estimate.from_samples(np.zeros(np.asarray(traj.x).shape[0]), confidence)
            else:
                est = estimate_weighted_gap(traj.x, inst.problem, mu, h, f_star=f_star, confidence=confidence)
        else:
            est = estimate_average_gradient_sq(traj.x, inst.problem, confidence=confidence)
    else:
        const, coefs = form
        x = np.asarray(traj.x, dtype=np.float64)
        fs = as_float(inst.problem.f_star)
        per = np.full(x.shape[0], float(const))
        for (kind, r), c in coefs.items():
            if kind == "gap":
                per = per + float(c) * (inst.problem.value(x[:, r, :]) - fs)
            else:
                g = inst.problem.grad(x[:, r, :])
                per = per + float(c) * np.einsum("rd,rd->r", g, g)
        est = Estimate.from_samples(per, confidence)
        details["linear_form"] = {f"{k[0]}[{k[1]}]": str(c) for k, c in coefs.items()}
    details.update(replicates=replicates, method="montecarlo")
    return decide(st.name, est, rhs, details=details, witness=witness)


def applicable_engines(st) -> dict:
    """Which engines apply to ``st`` and why not: ``{engine: (applies, reason)}`` for
    ``exact``, ``montecarlo``, ``pep`` and ``search`` (the left side's linearity is checked on
    the search's first structured instance; the PEP by :func:`pyfed.engines.pep.statement.pep_plan`)."""
    from .pep.statement import NoPEP, pep_plan
    from .statement_search import candidate

    out = {"exact": (True, "rational quadratic clients with Gaussian-law noise, every statistic exactly"),
           "search": (True, "instances drawn inside the statement's hypotheses, decided exactly")}
    try:
        inst, _ = candidate(st, 0, 0)
        linear_form(st, inst)
        out["montecarlo"] = (True, "the left side is a linear combination of per-round expectations")
    except NotLinear as exc:
        out["montecarlo"] = (False, str(exc))
    except Exception as exc:  # no instance to test linearity on
        out["montecarlo"] = (False, f"not determined: {exc}")
    try:
        pep_plan(st)
        out["pep"] = (True, "the hypotheses admit sigma = 0, S = N and the right side is a * ||x0 - x*||^2 + g * C0")
    except NoPEP as exc:
        out["pep"] = (False, str(exc))
    return out
