"""Instances of a run statement and their exact JSON: :class:`RunInstance` (the problem, the run's
parameters, the values of the statement's own names), :func:`instance_to_json` /
:func:`instance_from_json` (every number an exact rational ``"p/q"`` string, schema
:data:`INSTANCE_SCHEMA`), (a witness side exactly, or as a certified
enclosure)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ...errors import InputError
from ...exact import fraction_from_text, rational_str
from ...problems.clients import ClientSet, client_from_json
from ...problems.quadratic import QuadraticProblem
from ...theory import effective_step

__all__ = ["RunInstance", "instance_to_json", "instance_from_json", "INSTANCE_SCHEMA", "ORACLE_LAW", "SAMPLING_LAW",
           "EXACT_ORACLE_LAW", "is_exact_problem", "is_client_set"]


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
    return isinstance(problem, QuadraticProblem) and getattr(problem, "exact", False)


def is_client_set(problem) -> bool:
    """The problem is a :class:`pyfed.problems.clients.ClientSet` (exact clients beyond quadratics)."""
    return isinstance(problem, ClientSet)


def is_exact_problem(problem) -> bool:
    """The exact engines decide the problem: rational quadratic clients, or an exact client set."""
    return _is_exact_quadratic(problem) or is_client_set(problem)


def _q(v) -> str:
    return rational_str(Fraction(v))


#: Version tag of :func:`instance_to_json`'s output (``"schema"``); bumped when a field changes meaning.
INSTANCE_SCHEMA = "pyfed.instance/1"


#: The oracle the exact-moment engine decides (only the noise's first two moments enter).
ORACLE_LAW = ("gaussian: g_i(y) = grad f_i(y) + xi, xi ~ N(0, (sigma^2/d) I_d), E||xi||^2 = sigma^2, fresh and "
              "independent across clients, local steps and rounds")


#: The client sampling of a ``Run`` (seed 000): virtual paths of all N clients, then the sample.
SAMPLING_LAW = "uniform: each round a uniformly random S-subset of the N clients (without replacement)"


_KIND = "quadratic clients f_i(x) = 1/2 x^T A_i x - b_i^T x (exact rationals)"
_CLIENTS_KIND = ("client functions beyond quadratics (clients: ridge functions of pyfed.problems.ridge or "
                 "interpolants of pyfed.problems.interpolation; exact rationals)")

#: The oracle of a run on a client set: exact gradients, which the model's oracle law admits for every σ.
EXACT_ORACLE_LAW = ("exact gradients: g_i(y) = grad f_i(y) (zero noise, which the Run's conditional variance bound "
                    "sigma^2 admits for every sigma >= 0)")


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
    if not is_exact_problem(p):
        raise InputError("instance", "only rational quadratic instances and exact client sets have an exact JSON form")
    data = ({"kind": _CLIENTS_KIND, "clients": p.to_json(), "problem_xstar": _qvec(p.x_star_exact)}
            if is_client_set(p) else {"kind": _KIND, "A": [_qmat(Ai) for Ai in p.A_exact], "b": _qmat(p.b_exact)})
    out = {"schema": INSTANCE_SCHEMA, "name": inst.name, "description": inst.description,
           "N": p.N, "d": p.d, **data,
           "beta": _q(p.beta), "problem_mu": _q(p.mu), "sigma": _q(inst.sigma),
           "S": int(inst.S), "K": int(inst.K), "T": int(inst.T), "eta_l": _q(inst.eta_l), "eta_g": _q(inst.eta_g),
           "x0": _qvec(inst.x0), "init": "none" if inst.c0 is None else "some",
           "c0": None if inst.c0 is None else _qmat(inst.c0),
           "mu": None if inst.mu is None else _q(inst.mu),
           "f_low": None if inst.f_low is None else _q(inst.f_low),
           "xstar": None if inst.xstar is None else _qvec(inst.xstar),
           "free": {k: _free_json(v) for k, v in sorted(inst.free.items())},
           "oracle": EXACT_ORACLE_LAW if is_client_set(p) else
           ORACLE_LAW if inst.oracle is None or getattr(inst.oracle, "name", "") == "gaussian"
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
    malformed rational, a shape that disagrees with N and d, S > N, an unknown schema, or a recorded
    ``derived`` value that differs from the one recomputed from the data.
    """
    if not isinstance(data, dict):
        raise InputError("instance", "expected a JSON object")
    schema = data.get("schema", INSTANCE_SCHEMA)
    if schema != INSTANCE_SCHEMA:
        raise InputError("instance.schema", f"unsupported schema {schema!r} (this pyfed reads {INSTANCE_SCHEMA!r})")
    try:
        N, d = _count(data, "N", 1), _count(data, "d", 1)
        if "clients" in data:
            problem = _client_set(data, N, d)
        else:
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
    if inst.S > N:      # the Run model samples S of the N clients (1 <= S <= N)
        raise InputError("instance.S", f"{inst.S} clients per round but the instance has N = {N} clients (need S <= N)")
    if "derived" in data:
        got = data["derived"]
        if not isinstance(got, dict):
            raise InputError("instance.derived", "expected a JSON object")
        for k, v in _derived(inst).items():
            if k in got and got[k] != v:
                raise InputError(f"instance.derived.{k}", f"recorded {got[k]!r} but the instance's data give {v!r}")
    return inst


def _client_set(data, N, d):
    """The :class:`pyfed.problems.clients.ClientSet` of a record's ``clients`` and ``problem_xstar``;
    its recorded ``beta`` and ``problem_mu`` must be the certified ones."""
    clients = [client_from_json(c) for c in _list(data, "clients", N)]
    problem = ClientSet(clients, _vec_json(data["problem_xstar"], "instance.problem_xstar", d),
                        name=data.get("name", "instance"))
    if problem.d != d:
        raise InputError("instance.clients", f"clients on Space {problem.d}, the record says d = {d}")
    for key, v in (("beta", problem.beta), ("problem_mu", problem.mu)):
        if key in data and _F(data[key], f"instance.{key}") != v:
            raise InputError(f"instance.{key}", f"recorded {data[key]!r} but the clients certify {_q(v)}")
    return problem


def _list(data, key, n):
    v = data[key]
    if not isinstance(v, list) or len(v) != n:
        raise InputError(f"instance.{key}", f"expected a list of {n} entries")
    return v


