"""Instance families: the objects a run-free statement quantifies over, drawn with exact data.

Every value carries a ``spec`` (a JSON-ready description with exact rationals as ``"p/q"``
strings) from which :func:`from_spec` rebuilds it exactly, so a witness re-checks exactly.

* scalars, vectors, finite families of vectors, finite subsets, sequences ``ℕ → ℝ``;
* smooth (strongly) convex client functions: quadratics f(x) = ½ xᵀAx − bᵀx with
  A = Qᵀ diag(λ) Q, Q a rational orthogonal matrix (rotations by Pythagorean triples), so the
  eigenvalues are known exactly and the smoothness constant β = max |λ| and the strong convexity
  μ = min λ are *tight*; Huber functions (convex, piecewise quadratic, exact, certified β) for
  the statements whose hypotheses a quadratic cannot stress;
* functions beyond quadratics (:mod:`pyfed.problems.ridge`): Huber and piecewise quadratics,
  max(0, x)² mixtures (exact rationals), log-cosh / softplus (certified balls), with β and μ
  certified from the family's own formula; the Taylor–Hendrickx–Glineur interpolant of a class
  through given points (:mod:`pyfed.problems.interpolation`, a PEP worst case made concrete);
  gradient maps ``Space d → Space d`` of any of them (the ``grads`` of a procedure);
* finite probability spaces: outcomes with rational probabilities, filtrations of successively
  finer partitions, adapted processes;
* oracles (``LocalOracle d``: the call index and the point -> a gradient sample), affine with
  per-call offsets, per-round client samples of a given size, and the index draws of a procedure
  (``ℕ → Fin w → Fin b → Fin n``: one realization, as data).

Source of the constructions: the instance generators of pyfed's earlier statement checkers
(quadratic, Huber, logistic and log-sum-exp clients; finite filtrations), here as named families
that the generic search draws from for any statement whose binders and hypotheses they fit.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from pyfed.errors import InputError
from pyfed.exact import rational_str
from pyfed.problems.interpolation import interpolated_from_json
from pyfed.problems.ridge import ridge_from_json
from pyfed.statements.interpret import Filtration, FiniteSpace, Fun, Record, Sigma, Vec, vec

__all__ = ["q", "rat_from", "quadratic", "huber", "rotation", "sequence", "fin_family", "finset", "finite_space",
           "filtration", "random_variable", "process", "affine_oracle", "client_oracles", "samples", "from_spec",
           "to_spec", "problem", "rand_rat", "env_to_spec", "env_from_spec", "ridge", "interpolated", "gradient_map",
           "index_draws"]


def q(x) -> str:
    return rational_str(Fraction(x))


def rat_from(s) -> Fraction:
    if isinstance(s, bool) or isinstance(s, float):
        raise InputError("instance", f"{s!r} is not an exact rational")
    return Fraction(s) if not isinstance(s, Fraction) else s


def rand_rat(rng, lo, hi, den: int = 8) -> Fraction:
    a, b = math.ceil(Fraction(lo) * den), math.floor(Fraction(hi) * den)
    if b < a:
        return Fraction(lo)
    return Fraction(int(rng.integers(a, b + 1)), den)


# --------------------------------------------------------------------------- linear algebra

def rotation(d: int, k: int = 0) -> list:
    """A rational orthogonal d×d matrix (products of plane rotations by Pythagorean triples;
    ``k`` chooses among a few)."""
    triples = [(Fraction(3, 5), Fraction(4, 5)), (Fraction(5, 13), Fraction(12, 13)), (Fraction(8, 17), Fraction(15, 17))]
    Q = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    if d < 2 or k < 0:
        return Q
    for p in range(d - 1):
        c, s = triples[(k + p) % len(triples)]
        G = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
        G[p][p], G[p][p + 1], G[p + 1][p], G[p + 1][p + 1] = c, -s, s, c
        Q = [[sum(Q[i][t] * G[t][j] for t in range(d)) for j in range(d)] for i in range(d)]
    return Q


def _sym_from_eigen(lams, Q) -> list:
    d = len(lams)
    return [[sum(Q[t][i] * lams[t] * Q[t][j] for t in range(d)) for j in range(d)] for i in range(d)]


def _matvec(A, x):
    return [sum(a * b for a, b in zip(row, x)) for row in A]


# --------------------------------------------------------------------------- functions

def quadratic(A, b, c=Fraction(0), name="quadratic") -> Fun:
    """f(x) = ½ xᵀAx − bᵀx + c (A symmetric rational). ``props``: ``beta`` (an exact upper bound on
    the spectral norm, tight when A was built from its eigenvalues), ``mu`` (its smallest eigenvalue
    when known), ``convex``; ``quadratic`` = (A, b, c) for the engines' exact decisions."""
    A = [[Fraction(x) for x in row] for row in A]
    b = [Fraction(x) for x in b]
    c = Fraction(c)

    def f(x):
        Ax = _matvec(A, x)
        return sum(xi * ai for xi, ai in zip(x, Ax)) / 2 - sum(bi * xi for bi, xi in zip(b, x)) + c

    def g(x):
        return Vec(a - bi for a, bi in zip(_matvec(A, x), b))

    fun = Fun(f, grad=g, name=name)
    fun.spec = {"family": "quadratic", "A": [[q(x) for x in r] for r in A], "b": [q(x) for x in b], "c": q(c)}
    fun.quadratic = (A, b, c)
    return fun


def quadratic_from_eigen(lams, b, k=0, name="quadratic") -> Fun:
    """A quadratic with Hessian Qᵀ diag(lams) Q (rational orthogonal Q): smoothness max|λ| and strong
    convexity min λ exactly."""
    d = len(lams)
    A = _sym_from_eigen([Fraction(x) for x in lams], rotation(d, k))
    fun = quadratic(A, b, name=name)
    fun.props = {"beta": max(abs(Fraction(x)) for x in lams), "mu": min(Fraction(x) for x in lams),
                 "convex": min(Fraction(x) for x in lams) >= 0}
    fun.spec["eigenvalues"] = [q(x) for x in lams]
    return fun


def huber(rows, offsets, delta, name="huber") -> Fun:
    """h(x) = (1/n) Σ_r H_δ(⟨a_r, x⟩ − b_r), H_δ(z) = z²/2 for |z| ≤ δ, δ(|z| − δ/2) beyond:
    convex, piecewise quadratic (exact), smooth with β = (1/n) Σ‖a_r‖² (certified, H'' ≤ 1)."""
    rows = [[Fraction(x) for x in r] for r in rows]
    offsets = [Fraction(x) for x in offsets]
    delta = Fraction(delta)
    n = len(rows)

    def z(r, x):
        return sum(a * xi for a, xi in zip(rows[r], x)) - offsets[r]

    def f(x):
        out = Fraction(0)
        for r in range(n):
            zz = z(r, x)
            out += zz * zz / 2 if abs(zz) <= delta else delta * (abs(zz) - delta / 2)
        return out / n

    def g(x):
        d = len(x)
        out = [Fraction(0)] * d
        for r in range(n):
            s = max(-delta, min(delta, z(r, x)))
            out = [o + s * a for o, a in zip(out, rows[r])]
        return Vec(o / n for o in out)

    fun = Fun(f, grad=g, name=name)
    fun.props = {"beta": sum(sum(a * a for a in r) for r in rows) / n, "mu": Fraction(0), "convex": True}
    fun.spec = {"family": "huber", "rows": [[q(x) for x in r] for r in rows], "offsets": [q(x) for x in offsets],
                "delta": q(delta)}
    return fun


def _function_of(obj, name: str) -> Fun:
    """A :class:`Fun` of a function object with ``value``/``grad`` (exact) or ``value_ball``/
    ``grad_ball`` (certified balls) and certified ``smoothness``/``strong_convexity``."""
    exact = getattr(obj, "exact", True)

    def f(x):
        return obj.value(list(x)) if exact else obj.value_ball(list(x))

    def g(x):
        return Vec(obj.grad(list(x)) if exact else obj.grad_ball(list(x)))

    fun = Fun(f, grad=g, name=name)
    fun.props = {"beta": obj.smoothness(), "mu": obj.strong_convexity(), "convex": bool(obj.convex())}
    fun.spec = obj.to_json()
    fun.obj = obj
    return fun


def ridge(obj, name="ridge") -> Fun:
    """A :class:`pyfed.problems.ridge.RidgeFunction` as a function value (certified β and μ from its
    formula; exact rationals for Huber / max(0, x)², certified balls for log-cosh / softplus)."""
    return _function_of(obj, name)


def interpolated(obj, name="interpolated") -> Fun:
    """A :class:`pyfed.problems.interpolation.InterpolatedFunction` as a function value (its class
    F_{μ,L} certified by the exact interpolation conditions)."""
    return _function_of(obj, name)


def gradient_map(f: Fun) -> Fun:
    """``Space d → Space d``: the gradient of the function value ``f`` (a procedure's ``grads``)."""
    fun = Fun(lambda x: f.grad(x), name=f"gradient of {f.name}")
    fun.spec = {"family": "gradient map", "of": to_spec(f)}
    fun.props = dict(getattr(f, "props", {}) or {})
    fun.of = f
    return fun


def index_draws(table) -> Fun:
    """``ℕ → Fin w → Fin b → Fin n``: ``table[t][k][q]`` (beyond the table: its last step), one
    realization of a procedure's index draws."""
    table = [[[int(v) for v in row] for row in step] for step in table]

    def at(t):
        step = table[min(int(t), len(table) - 1)]
        return Fun(lambda k, step=step: Fun(lambda q, row=step[int(k)]: row[int(q)], n=len(step[0]), name="draw"),
                   n=len(step), name="draws of a step")
    fun = Fun(at, name="index draws")
    fun.spec = {"family": "index draws", "values": table}
    return fun


def problem(namespace: str, clients: list, fields: dict) -> Record:
    """A ``Problem d N`` of the model: ``f`` the clients (a ``Fin N`` family of functions) and the
    scalar fields (``β``, ``σ``, ``x0`` …)."""
    f = fin_family(clients)
    rec = Record(f"{namespace}.Problem", {"f": f, **fields})
    rec.spec = {"family": "problem", "namespace": namespace, "clients": [c.spec for c in clients],
                "fields": {k: to_spec(v) for k, v in fields.items()}}
    rec.clients = clients
    return rec


# --------------------------------------------------------------------------- finite objects

def fin_family(values) -> Fun:
    """``Fin n → X`` from a list of n values."""
    values = list(values)
    fun = Fun(lambda i: values[int(i)], n=len(values), name="family")
    fun.spec = {"family": "fin", "values": [to_spec(v) for v in values]}
    fun.values = values
    return fun


def sequence(values, tail=Fraction(0)) -> Fun:
    """``ℕ → ℝ``: ``values`` at 0..L−1 and ``tail`` beyond."""
    values = [Fraction(v) for v in values]
    tail = Fraction(tail)
    fun = Fun(lambda t: values[int(t)] if int(t) < len(values) else tail, name="sequence")
    fun.spec = {"family": "sequence", "values": [q(v) for v in values], "tail": q(tail)}
    fun.values = values
    return fun


def finset(elements) -> frozenset:
    return frozenset(int(e) for e in elements)


def finite_space(p) -> FiniteSpace:
    sp = FiniteSpace(tuple(Fraction(x) for x in p))
    return sp


def filtration(parts) -> Filtration:
    return Filtration(tuple(tuple(int(x) for x in part) for part in parts))


def random_variable(values) -> Fun:
    """A function of the outcome ω of a finite space: ``values[ω]``."""
    values = list(values)
    fun = Fun(lambda w: values[int(w)], name="random variable")
    fun.spec = {"family": "rv", "values": [to_spec(v) for v in values]}
    fun.values = values
    return fun


def process(rvs, tail=None) -> Fun:
    """``ℕ → Ω → X``: the random variable ``rvs[j]`` at index j (beyond: ``tail`` or the last)."""
    rvs = list(rvs)
    last = tail if tail is not None else (rvs[-1] if rvs else None)
    fun = Fun(lambda j: rvs[int(j)] if int(j) < len(rvs) else last, name="process")
    fun.spec = {"family": "process", "values": [r.spec for r in rvs],
                "tail": None if tail is None else tail.spec}
    fun.values = rvs
    return fun


def affine_oracle(A, b, offsets) -> Fun:
    """A ``LocalOracle d``: call k at point y returns A y − b + offsets[k] (offsets beyond the list
    are 0): an exact stand-in for a stochastic gradient oracle of ½yᵀAy − bᵀy."""
    A = [[Fraction(x) for x in r] for r in A]
    b = [Fraction(x) for x in b]
    offs = [[Fraction(x) for x in o] for o in offsets]
    d = len(b)

    def call(k):
        off = offs[int(k)] if int(k) < len(offs) else [Fraction(0)] * d
        return Fun(lambda y: Vec(a - bi + o for a, bi, o in zip(_matvec(A, y), b, off)), name="oracle call")
    fun = Fun(call, name="oracle")
    fun.spec = {"family": "affine oracle", "A": [[q(x) for x in r] for r in A], "b": [q(x) for x in b],
                "offsets": [[q(x) for x in o] for o in offs]}
    return fun


def client_oracles(oracles) -> Fun:
    """``Fin N → LocalOracle d``."""
    return fin_family(oracles)


def samples(sets) -> Fun:
    """``ℕ → Finset (Fin N)``: ``sets[r]`` at round r (beyond: the last)."""
    sets = [frozenset(s) for s in sets]
    fun = Fun(lambda r: sets[min(int(r), len(sets) - 1)], name="samples")
    fun.spec = {"family": "samples", "values": [sorted(s) for s in sets]}
    return fun


# --------------------------------------------------------------------------- specs

def to_spec(v):
    """The JSON-ready spec of a value (exact)."""
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, Fraction):
        return q(v)
    if isinstance(v, Vec):
        return {"vec": [q(x) for x in v]}
    if isinstance(v, frozenset):
        return {"finset": sorted(int(x) for x in v)}
    if isinstance(v, FiniteSpace):
        return {"space": [q(x) for x in v.p]}
    if isinstance(v, Filtration):
        return {"filtration": [list(p) for p in v.parts]}
    if isinstance(v, Sigma):
        return {"sigma": list(v.labels)}
    if isinstance(v, str):
        return {"ctor": v}
    spec = getattr(v, "spec", None)
    if spec is not None:
        return spec
    raise InputError("instance", f"no exact description of {v!r}")


def from_spec(s):
    """The value of :func:`to_spec` (inverse, exact)."""
    if isinstance(s, bool) or isinstance(s, int):
        return s
    if isinstance(s, str):
        return rat_from(s)
    if isinstance(s, list):
        return [from_spec(x) for x in s]
    if not isinstance(s, dict):
        raise InputError("instance", f"malformed value {s!r}")
    if "vec" in s:
        return vec([rat_from(x) for x in s["vec"]])
    if "finset" in s:
        return finset(s["finset"])
    if "space" in s:
        return finite_space([rat_from(x) for x in s["space"]])
    if "filtration" in s:
        return filtration(s["filtration"])
    if "ctor" in s:
        return s["ctor"]
    fam = s.get("family")
    if fam == "quadratic":
        f = quadratic([[rat_from(x) for x in r] for r in s["A"]], [rat_from(x) for x in s["b"]], rat_from(s.get("c", "0")))
        if "eigenvalues" in s:
            lams = [rat_from(x) for x in s["eigenvalues"]]
            f.props = {"beta": max(abs(x) for x in lams), "mu": min(lams), "convex": min(lams) >= 0}
            f.spec["eigenvalues"] = s["eigenvalues"]
        return f
    if fam == "huber":
        return huber([[rat_from(x) for x in r] for r in s["rows"]], [rat_from(x) for x in s["offsets"]],
                     rat_from(s["delta"]))
    if fam == "ridge":
        return ridge(ridge_from_json(s))
    if fam == "interpolated":
        return interpolated(interpolated_from_json(s))
    if fam == "gradient map":
        return gradient_map(from_spec(s["of"]))
    if fam == "index draws":
        return index_draws(s["values"])
    if fam == "fin":
        return fin_family([from_spec(x) for x in s["values"]])
    if fam == "sequence":
        return sequence([rat_from(x) for x in s["values"]], rat_from(s["tail"]))
    if fam == "rv":
        return random_variable([from_spec(x) for x in s["values"]])
    if fam == "process":
        return process([from_spec(x) for x in s["values"]], None if s.get("tail") is None else from_spec(s["tail"]))
    if fam == "affine oracle":
        return affine_oracle(s["A"], s["b"], s["offsets"])
    if fam == "samples":
        return samples(s["values"])
    if fam == "problem":
        clients = [from_spec(c) for c in s["clients"]]
        return problem(s["namespace"], clients, {k: from_spec(v) for k, v in s["fields"].items()})
    raise InputError("instance", f"unknown family {fam!r}")


def env_to_spec(env) -> dict:
    """An instance (bound name -> value) as exact JSON, for witnesses: each value's :func:`to_spec`,
    a finite sample space ``("Ω", n)`` as ``{"sample_space": n}``, ``__nat_bound__`` (how far
    ``∀ r : ℕ`` is checked: processes are constant beyond) as an integer; the other ``__`` keys are
    left out. Raises InputError for a value without an exact description."""
    out = {}
    for k, v in env.items():
        if k == "__nat_bound__":
            out[k] = int(v)
            continue
        if k.startswith("__"):
            continue
        if isinstance(v, tuple) and v and v[0] == "Ω":
            out[k] = {"sample_space": v[1]}
            continue
        out[k] = to_spec(v)
    return out


def env_from_spec(spec) -> dict:
    """The instance of :func:`env_to_spec` (inverse, exact)."""
    env = {}
    for k, v in spec.items():
        if k == "__nat_bound__":
            env[k] = int(v)
        elif isinstance(v, dict) and "sample_space" in v:
            env[k] = ("Ω", int(v["sample_space"]))
        else:
            env[k] = from_spec(v)
    return env


def subsets(n: int, k: int) -> list:
    return [frozenset(c) for c in itertools.combinations(range(n), k)]
