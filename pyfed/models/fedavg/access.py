"""Statements about a FedAvg run evaluated on an instance: the instance object, the binding of the
statement's names, its hypotheses, and the evaluation of its terms in one arithmetic.

* :class:`FedAvgRunInstance` -- one instance of the Lean model ``FedAvg.Problem`` with a run's
  parameters (clients, their certified constants ``L σ ζ``, start, optimum, τ, T, η) and the
  problem's own hypotheses (convexity, smoothness, heterogeneity, noise) with margins;
* :func:`bind` -- the statement's names on an instance (``d M τ T η``, free parameters), with
  the statement's hypotheses decided exactly;
* :class:`Evaluator` -- a term's value, by the one evaluator of Lean terms
  (:class:`pyfed.evaluation.Evaluator`: the term lowered onto its node kinds by
  :func:`pyfed.models.fedavg.evaluation.lower`, the instance's quantities as atoms, values in the
  domain :class:`~pyfed.models.fedavg.evaluation.RandomVariables`):
  deterministic numbers in one arithmetic
  (:class:`Scalars`: exact rationals with exact irrationals, certified balls, or mpmath floats),
  random variables as :class:`Rand` (a constant plus a *part* the statistics backend knows:
  a quadratic form in the round start, an expectation, per-replicate samples or a deterministic
  run's value). Random variables enter linearly (sums, differences, deterministic factors);
  ``μ[X | R.history (t * τ)]`` and ``∫ ω, X ω ∂μ`` are the identity on them, and the backend's
  part says what the number means (conditional on the round start, or unconditional). The
  model's definitions are evaluated by :mod:`pyfed.theory.fedavg` (one place per formula):
  ``progressTerm``, ``deviationTerm``, ``progressRHS`` are affine in their conditional
  expectations, so each is the theory function's coefficients applied to the backend's parts.

Lean semantics are kept: ``x / 0 = 0``, ``0⁻¹ = 0``, ``Real.sqrt`` of a negative number is 0,
ℕ subtraction truncates and division floors, a numeral of ``Fin M`` is taken modulo ``M``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import sympy

from ...errors import InputError
from ...evaluation.evaluator import NOT_MINE, Atoms
from ...evaluation.evaluator import Evaluator as _Evaluator
from ...evaluation.numbers import compare, to_exact
from ...exact import as_float, rational_str, to_fraction
from ...theory import fedavg as th
from .evaluation import NotLinear, Rand, RandomVariables, lower
from .scalars import Scalars, is_ball

__all__ = ["FedAvgRunInstance", "Scalars", "Rand", "Backend", "Evaluator", "Binding", "bind", "NotLinear", "Undefined",
           "float_of", "OutsideModel", "assignments", "hypothesis_values", "instance_json", "value_str"]


class OutsideModel(Exception):
    """A random variable at a round ``t ≥ T`` or a local step ``k > τ``: the model's ``Run``
    constrains the iterates there in no way."""


@dataclass
class FedAvgRunInstance:
    """One instance of the Lean model: a ``FedAvg.Problem`` and a run's parameters.

    Attributes
    ----------
    name, description : str
    family : str
        ``quadratic`` (rational quadratic clients sharing one Hessian: exact forms and moments),
        ``deterministic`` (σ = 0 clients with an explicit gradient, see ``clients``: exact or
        certified-ball runs) or ``simulated`` (any problem: Monte Carlo).
    M, d : int
    tau, T : int;  eta : the step (Fraction, float) or None when the statement's run fixes it
    L, sigma, sigma_sq, zeta_sq, dist_sq : the problem's constants (exact, or certified floats);
        ``sigma`` may be None (then P.σ is the square root of ``sigma_sq``)
    x0 : list (d,) of the start;  x_star : list (d,);  f_star : F(x⋆) (or a certified lower bound)
    f_x0 : F(x0) (None: not available)
    problem, oracle : the problem and oracle objects of the simulators / exact engine (or None)
    clients : for the ``deterministic`` family, an object with ``grad(i, x, S)`` (client i's
        gradient at x, in the arithmetic ``S``) and ``value(x, S)`` (F(x)); else None
    hypotheses : list of :class:`pyfed.theory.hypotheses.Hypothesis` (the problem's fields)
    exact : bool (every number exact)
    extra : dict (derivations: ``zeta``, ``dist_sq``; the instance's JSON)
    """

    name: str
    description: str
    family: str
    M: int
    d: int
    tau: int
    T: int
    eta: object
    L: object
    sigma: object
    sigma_sq: object
    zeta_sq: object
    dist_sq: object
    x0: list
    x_star: list
    f_star: object
    f_x0: object = None
    problem: object = None
    oracle: object = None
    clients: object = None
    hypotheses: list = field(default_factory=list)
    exact: bool = True
    extra: dict = field(default_factory=dict)


def value_str(v) -> str:
    """An exact number as ``"p/q"``, anything else as its text."""
    f = to_fraction(v) if not isinstance(v, sympy.Basic) else (to_exact(v) if v.is_Rational else None)
    return rational_str(f) if isinstance(f, Fraction) else str(v)


def instance_json(inst: FedAvgRunInstance) -> dict:
    """The instance's scalars (exact as ``"p/q"``) and its own JSON description when it has one."""
    out = {"name": inst.name, "family": inst.family, "M": inst.M, "d": inst.d, "tau": inst.tau, "T": inst.T,
           "L": value_str(inst.L), "sigma_sq": value_str(inst.sigma_sq), "zeta_sq": value_str(inst.zeta_sq),
           "dist_sq": value_str(inst.dist_sq), "x0": [value_str(v) for v in inst.x0]}
    if inst.eta is not None:
        out["eta"] = value_str(inst.eta)
    if "json" in inst.extra:
        out["instance"] = inst.extra["json"]
    return out


# --------------------------------------------------------------------------- random variables

class Backend:
    """The statistics of one instance, as the parts of :class:`Rand` values.

    Subclasses implement :meth:`primitive` (``gap``/``objective``, ``shadowDistanceSq``,
    ``clientDriftSq``, ``roundLoss``, ``avgLoss`` at given indices, as a Rand) and the part
    arithmetic :meth:`add` / :meth:`scale`. ``scalars``: the deterministic arithmetic."""

    scalars: Scalars = Scalars("exact")
    #: True: conditional on the round start (the parts are functions of it)
    conditional = False

    def primitive(self, name, t, k, i) -> Rand:
        raise NotImplementedError

    def add(self, p, q):
        return p + q

    def scale(self, p, s):
        return p * s

    def check(self, inst, t=None, k=None):
        """OutsideModel when the run has no round ``t`` or local step ``k``."""
        if t is not None and t >= inst.T:
            raise OutsideModel(f"round t = {t} >= T = {inst.T}")
        if k is not None and k > inst.tau:
            raise OutsideModel(f"local step k = {k} > τ = {inst.tau}")


# --------------------------------------------------------------------------- binding

@dataclass
class Binding:
    """The statement's names on one instance: ``env`` (name -> value: ℕ as int, ℝ in the
    arithmetic of ``scalars``), ``eta`` (the run's step; None when it is undefined because a
    hypothesis fails), ``failing`` (keys of the statement's
    global hypotheses that fail), ``hypotheses`` (``[(key, text, holds, margin)]``), ``why``
    (None, or why the instance cannot bind the statement at all)."""

    env: dict
    eta: object
    failing: list
    hypotheses: list
    why: str | None = None


def _problem_scalar(inst, name, S: Scalars):
    if name == "L":
        return S.lift(inst.L)
    if name == "σ":
        return S.lift(inst.sigma) if inst.sigma is not None else S.sqrt(S.lift(inst.sigma_sq))
    if name == "ζ":
        return S.sqrt(S.lift(inst.zeta_sq))
    raise KeyError(name)


def bind(st, inst: FedAvgRunInstance, S: Scalars, values: dict | None = None) -> Binding:
    """Bind ``st`` (a FedAvg statement) to ``inst``: ``d``, ``M``, ``τ``, ``T`` of the statement
    must equal the instance's (a numeral there is compared), the run's ``η`` is the instance's
    step when the statement names it, else the statement's term evaluated on the instance; free
    parameters take ``values[name]`` (missing: ``why`` says so). Global hypotheses (those without
    the conclusion's indices) are decided exactly."""
    sp = st.spec
    env: dict = {}
    values = dict(values or {})
    ev = Evaluator(st, inst, None, S)
    for role, want in (("d", inst.d), ("M", inst.M), ("tau", inst.tau), ("T", inst.T)):
        t = sp.dims[role] if role in ("d", "M") else sp.run_args[role]
        if t.op == "var" and t.value not in env:
            env[t.value] = int(want)
        got = ev.nat(t, env)
        if got != int(want):
            return Binding(env, None, [], [], f"the statement fixes {role} = {got}, the instance has {want}")
    for name, kind in sp.free:
        if name not in values:
            return Binding(env, None, [], [], f"the statement's parameter `{name}` is not fixed by the instance")
        env[name] = int(values[name]) if kind == "nat" else S.lift(values[name])
    et = sp.run_args["eta"]
    if et.op == "var" and et.value not in env:
        if inst.eta is None:
            return Binding(env, None, [], [], "the instance has no step η")
        env[et.value] = S.lift(inst.eta)
    if S.mode == "ball" and _exact_data(inst):
        # the step and the hypotheses are decided exactly whenever the instance's data are exact (a
        # ball cannot decide a hypothesis that holds with equality, e.g. η = 1/(4L), nor a `min`
        # of two equal terms)
        hb = bind(st, inst, Scalars("exact"), values)
        if hb.why is None and hb.eta is not None and et.op != "var":
            env_eta = S.lift(hb.eta)
        elif hb.eta is None:
            env_eta = None
        else:
            env_eta = ev.value(et, env)
        return Binding(env, env_eta, hb.failing, hb.hypotheses, hb.why)
    hyps = []
    failing = []
    for h, fh in zip(st.hypotheses, sp.hypotheses):
        if fh.index:
            continue
        holds, margin = ev.hypothesis(fh, env)
        hyps.append((h.key, h.text, holds, margin))
        if not holds:
            failing.append(h.key)
    try:
        eta = ev.value(et, env)
    except Undefined:
        if not failing:
            raise
        eta = None          # the step is undefined where a hypothesis fails (e.g. the tuned step at σ = 0)
    if isinstance(eta, Rand):
        raise InputError("statement", "the run's step is random")
    return Binding(env, eta, failing, hyps)


def _exact_data(inst) -> bool:
    vals = [inst.L, inst.sigma_sq, inst.zeta_sq, inst.dist_sq] + ([inst.eta] if inst.eta is not None else [])
    return all(to_fraction(v) is not None and not isinstance(v, float) for v in vals)


def hypothesis_values(st, inst, S, env) -> list:
    """``[(key, text, holds, margin)]`` of every global hypothesis of ``st`` under ``env``."""
    ev = Evaluator(st, inst, None, S)
    out = []
    for h, fh in zip(st.hypotheses, st.spec.hypotheses):
        if not fh.index:
            holds, margin = ev.hypothesis(fh, env)
            out.append((h.key, h.text, holds, margin))
    return out


def assignments(st, inst, env, S, *, extra: int = 1):
    """The index assignments of the conclusion (``t``, ``k``, ``i`` …) that satisfy the index
    hypotheses, as ``(assignment dict, inside)`` pairs: ``inside`` is False when some index lies
    beyond the run (``t ≥ T`` or ``k > τ``; ``extra`` values beyond are tried to find out).
    Clients range over ``Fin M``; other ℕ indices over ``0 .. max(T, τ) + extra``."""
    sp = st.spec
    ev = Evaluator(st, inst, None, S)
    ranges = []
    for name, kind, role in sp.indices:
        if kind == "client":
            ranges.append(range(inst.M))
        elif role == "round":
            ranges.append(range(inst.T + extra))
        elif role == "step":
            ranges.append(range(inst.tau + 1 + extra))
        else:
            ranges.append(range(max(inst.T, inst.tau) + 1 + extra))
    idx_hyps = [fh for fh in sp.hypotheses if fh.index]

    def rec(j, cur):
        if j == len(sp.indices):
            e = dict(env, **cur)
            if all(ev.hypothesis(fh, e)[0] for fh in idx_hyps):
                inside = all(not (role == "round" and cur[n] >= inst.T) and not (role == "step" and cur[n] > inst.tau)
                             for n, _, role in sp.indices)
                yield dict(cur), inside
            return
        name = sp.indices[j][0]
        for v in ranges[j]:
            cur[name] = v
            yield from rec(j + 1, cur)
        cur.pop(name, None)

    yield from rec(0, {})


# --------------------------------------------------------------------------- evaluation

class _RunAtoms(Atoms):
    """The atoms of a FedAvg statement on one instance (:class:`Evaluator`): the bound names, client
    numerals (modulo ``M``), the problem's fields and constants, the model's deterministic
    definitions, the run's statistics and their conditional expectations, sums over the clients."""

    def __init__(self, terms: "Evaluator"):
        self.terms = terms

    def ident(self, ev, node, env):
        return self.terms.atom(node.term, env)

    def apply(self, ev, node, env):
        ref = getattr(node, "ref", None)
        if ref is not None and ref[0] == "atom":
            return self.terms.atom(node.term, env)
        return NOT_MINE

    def sum_items(self, ev, node, env):
        bound = node.term.args[0]
        return range(self.terms.inst.M if bound is None else self.terms.nat(bound, env))


class Evaluator:
    """Values of a FedAvg statement's terms on one instance (module docstring): the one evaluator
    (:class:`pyfed.evaluation.Evaluator`) over :class:`RandomVariables` with the instance's atoms.
    ``backend``: the statistics (None: deterministic terms only)."""

    def __init__(self, st, inst: FedAvgRunInstance, backend: Backend | None, S: Scalars):
        self.st, self.inst, self.backend, self.S = st, inst, backend, S
        self.domain = RandomVariables(S, backend)
        self.evaluator = _Evaluator(self.domain, _RunAtoms(self))

    # ---- entry points
    def nat(self, t, env) -> int:
        v = self.value(t, env)
        if not isinstance(v, int):
            raise InputError("statement", f"`{t.text}` is not a natural number here")
        return v

    def hypothesis(self, fh, env) -> tuple:
        """(holds, margin) of an elaborated hypothesis under ``env`` (margin rhs - lhs for ℝ, an
        int difference for ℕ)."""
        a, b = self.value(fh.lhs, env), self.value(fh.rhs, env)
        if fh.sort == "nat":
            a, b = int(a), int(b)
            s = (b > a) - (b < a)
            margin = b - a
        else:
            a, b = self.S.lift(a) if isinstance(a, int) else a, self.S.lift(b) if isinstance(b, int) else b
            s = compare(a, b)
            margin = self.S.sub(b, a)
        holds = {"≤": s >= 0, "<": s > 0, "=": s == 0, "≠": s != 0}[fh.op]
        return holds, margin

    def value(self, t, env):
        """The value of term ``t``: int (ℕ, client), a number of ``S``, or :class:`Rand`."""
        return self.evaluator.eval(lower(t), env)

    def atom(self, t, env):
        """The value of a term the instance supplies (an atom of :func:`lower`)."""
        m = getattr(self, "_" + t.op, None)
        if m is None:
            raise InputError("statement", f"cannot evaluate `{t.text}` ({t.op})")
        return m(t, env)

    # ---- atoms
    def _num(self, t, env):          # a numeral of Fin M
        v = int(t.value)
        return v % self.inst.M if self.inst.M else 0

    def _var(self, t, env):
        if t.value not in env:
            raise InputError("statement", f"`{t.value}` has no value on this instance")
        return env[t.value]

    def _field(self, t, env):
        return _problem_scalar(self.inst, t.value, self.S)

    def _dist_sq(self, t, env):
        return self.S.lift(self.inst.dist_sq)

    def _fstar(self, t, env):
        return self.S.lift(self.inst.f_star)

    def _f_x0(self, t, env):
        if self.inst.f_x0 is None:
            raise InputError("statement", "objective P.f P.x0 is not available on this instance")
        return self.S.lift(self.inst.f_x0)

    def _fn(self, t, env):
        args = [self.value(a, env) for a in t.args]
        return self.model_function(t.value, args)

    def model_function(self, name, args):
        """A deterministic model definition at its explicit arguments (after ``P``), by its
        :mod:`pyfed.theory.fedavg` function with the instance's ``M L σ² ζ² D²``."""
        inst, S = self.inst, self.S
        q = S.theory
        P = dict(M=q(S.lift(inst.M)) if S.mode != "exact" else inst.M, L=q(S.lift(inst.L)),
                 sigma_sq=q(S.lift(inst.sigma_sq)), zeta_sq=q(S.lift(inst.zeta_sq)))
        nat = [a for a in args]
        if name == "driftRHS":
            tau, eta = nat
            return self._public(th.drift_rhs(q(S.lift(tau)) if S.mode != "exact" else tau, q(eta),
                                             sigma_sq=P["sigma_sq"], zeta_sq=P["zeta_sq"]))
        tau, T = (q(S.lift(v)) if S.mode != "exact" else v for v in nat[:2])
        D2 = q(S.lift(inst.dist_sq))
        if name == "convergenceRHS":
            return self._public(th.convergence_rhs(dist_sq=D2, M=P["M"], tau=tau, T=T, eta=q(nat[2]), L=P["L"],
                                                   sigma_sq=P["sigma_sq"], zeta_sq=P["zeta_sq"]))
        kw = dict(dist_sq=D2, M=P["M"], tau=tau, T=T, L=P["L"], sigma_sq=P["sigma_sq"], zeta_sq=P["zeta_sq"])
        try:
            if name == "optimizedStep":
                return self._public(th.optimized_step(**kw))
            if name == "optimizedRHS":
                return self._public(th.optimized_rhs(**kw))
        except InputError as exc:
            raise Undefined(f"{name}: {exc.reason}") from None
        raise InputError("statement", f"unknown model definition {name}")

    def _public(self, v):
        if self.S.mode == "exact":
            return to_exact(v) if isinstance(v, sympy.Basic) else v
        return self.S.lift(v)

    # ---- the run
    def _condexp(self, t, env):
        return self.as_rand(self.value(t.args[0], env))

    def _integral(self, t, env):
        return self.as_rand(self.value(t.args[0], env))

    def as_rand(self, v):
        """``v`` as a random variable (a number: a constant one)."""
        return v if isinstance(v, Rand) else Rand(self.domain.real(v), None)

    def _stat(self, t, env):
        be = self.backend
        if be is None:
            raise InputError("statement", f"`{t.text}` needs the run's statistics")
        idx = [self.value(a, env) for a in t.args]
        name = t.value
        inst = self.inst
        if name in ("roundLoss", "shadowDistanceSq", "clientDriftSq", "objectiveShadow"):
            be.check(inst, t=idx[0], k=idx[1] if len(idx) > 1 else None)
            return be.primitive(name, *(idx + [None] * (3 - len(idx))))
        if name == "avgLoss":
            return be.primitive(name, None, None, None)
        # the model's definitions with conditional expectations: affine in them (module docstring)
        (r,) = idx
        be.check(inst, t=r)
        eta = self.domain.real(self.value(self.st.spec.run_args["eta"], env))
        S = self.S
        fixed = dict(tau=S.theory(S.lift(inst.tau)) if S.mode != "exact" else inst.tau, eta=S.theory(eta))
        start = lambda: be.primitive("shadowDistanceSq", r, 0, None)           # noqa: E731
        end = lambda: be.primitive("shadowDistanceSq", r, inst.tau, None)      # noqa: E731
        dev = dict(M=S.theory(S.lift(inst.M)) if S.mode != "exact" else inst.M, L=S.theory(S.lift(inst.L)),
                   sigma_sq=S.theory(S.lift(inst.sigma_sq)))
        if name == "progressTerm":
            return self.affine(lambda start_dist_sq, end_dist_sq: th.progress_term(start_dist_sq, end_dist_sq,
                                                                                   fixed["tau"], fixed["eta"]),
                               {"start_dist_sq": start(), "end_dist_sq": end()})
        if name == "deviationTerm":
            return self.affine(lambda drift_sum: th.deviation_term(drift_sum, dev["M"], fixed["tau"], fixed["eta"],
                                                                   dev["L"], sigma_sq=dev["sigma_sq"]),
                               {"drift_sum": self.drift_sum(r)})
        if name == "progressRHS":
            return self.affine(lambda start_dist_sq, end_dist_sq, drift_sum: th.progress_rhs(
                start_dist_sq=start_dist_sq, end_dist_sq=end_dist_sq, drift_sum=drift_sum, M=dev["M"],
                tau=fixed["tau"], eta=fixed["eta"], L=dev["L"], sigma_sq=dev["sigma_sq"]),
                {"start_dist_sq": start(), "end_dist_sq": end(), "drift_sum": self.drift_sum(r)})
        raise InputError("statement", f"unknown random variable {name}")

    def drift_sum(self, r) -> Rand:
        """∑ᵢ ∑_{k<τ} μ[clientDriftSq R r k i | R.history (r * τ)] (the sum of ``deviationTerm``)."""
        be, inst = self.backend, self.inst
        total = None
        for i in range(inst.M):
            for k in range(inst.tau):
                v = be.primitive("clientDriftSq", r, k, i)
                total = v if total is None else self.domain.add_rand(total, v)
        return total if total is not None else Rand(self.S.lift(0), None)

    def affine(self, fn, rands: dict) -> Rand:
        """``fn`` (affine in the keyword arguments ``rands``) applied to random variables: its
        constant and coefficients from exact evaluations at 0 and unit vectors."""
        S = self.S
        zero = {k: S.theory(S.lift(0)) for k in rands}
        c0 = self._public(fn(**zero))
        out = Rand(c0, None)
        for k, v in rands.items():
            ck = S.sub(self._public(fn(**dict(zero, **{k: S.theory(S.lift(1))}))), c0)
            out = self.domain.add_rand(out, self.domain.scale(v, ck))
        return out


class Undefined(Exception):
    """A definition has no value on the instance (e.g. the tuned step when σ = 0)."""


def float_of(v) -> float:
    """A float for ordering and display (never for a decision)."""
    return as_float(to_exact(v)) if not is_ball(v) else float(v.mid())
