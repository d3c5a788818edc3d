"""Instances of run-free statements, drawn inside the statement's own hypotheses.

:func:`draw` builds instance ``index`` of ``(seed, index)`` following the statement's
:class:`~pyfed.models.runfree.plan.Plan` (a pure function of them:
``numpy.random.default_rng([seed, index])``), the first :data:`STRUCTURED` ones structured (small
dimensions, the pool's first values, aligned vectors), each name from its family: scalars,
rational vectors, finite families, sequences, quadratic and Huber functions (with their certified
smoothness and convexity), problems, finite probability spaces with filtrations, random
variables and processes, affine oracles, client samples, the model's inductives; the names the
hypotheses define are built from them (:mod:`.lemma_plan`). The hypotheses are decided by
:mod:`.lemma_hypotheses`; instances go to and from exact JSON (:func:`to_spec_env`,
:func:`from_spec_env`).

Why one module: the dispatcher (_value) and the family builders call each other (a function family
draws its vectors, a process its random variables, a defined name its parts, all through _value), so
splitting them would put an import circle between the dispatcher and the families.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ...checkers import families as fam
from ...engines.statement.naturals import (
    moved_note,
    natural_hypotheses,
    nearest_naturals,
    numerals_of,
)
from ...errors import InputError
from ...problems.interpolation import solve_exact
from ...statements.elaboration import resolved
from ...statements.evaluate import EvaluationError, Undecided
from ...statements.interpret import (
    Filtration,
    FiniteSpace,
    Fun,
    Interpreter,
    NotFinite,
    Sigma,
    Structural,
    Vec,
    condexp,
)
from ...statements.types import show as show_type
from .hypotheses import decide_hypothesis, tighten
from .plan import Plan, _kind, _strip_foralls, plan

__all__ = ["Plan", "plan", "draw", "Unevaluable", "decide_hypothesis", "STRUCTURED", "tighten", "Drawn", "to_spec_env",
           "from_spec_env"]

#: Structured candidates tried before the random ones: the first :data:`STRUCTURED_SPREAD` give
#: each real scalar its own value of the pool; the last two give every real scalar the same value
#: and every member of a finite family the same member (the diagonal a = b where inequalities such
#: as 2ab ≤ a² + b² or ‖∑ uᵢ‖² ≤ n ∑ ‖uᵢ‖² are tight), the reals first from the pool, then from
#: :data:`EQUAL_POOL` (0 first).
STRUCTURED = 14
STRUCTURED_SPREAD = 12

#: Scalar pool, in the order structured candidates use it.
POOL = [Fraction(1), Fraction(1, 2), Fraction(2), Fraction(1, 4), Fraction(4), Fraction(3), Fraction(1, 10),
        Fraction(0), Fraction(-1), Fraction(1, 1000), Fraction(10), Fraction(-1, 2)]

#: Largest dimension or family size a natural is moved to (``n = 8 →`` with ``u : Fin n → Space d``).
DIM_CAP = 12

#: The common value of every real scalar in the last structured case, by attempt.
EQUAL_POOL = [Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(2)]


# --------------------------------------------------------------------------- drawing

@dataclass
class Drawn:
    """A drawn instance: ``env`` (name -> value), ``description``, ``notes``."""

    env: dict
    description: str


def draw(st, pl: Plan, seed: int, index: int, interp: Interpreter, tries: int = 40) -> Drawn | None:
    """Instance ``index`` of ``st`` (structured for ``index < STRUCTURED``), or None when no draw
    satisfied the finite hypotheses on the drawn part. Raises :class:`Unevaluable` when no draw
    succeeded and some attempt could not be evaluated (a term the interpreter cannot evaluate is
    not a failed hypothesis)."""
    rng = np.random.default_rng([int(seed), int(index)])
    structured = index < STRUCTURED
    error = None
    nats = _movable_naturals(pl)
    nat_hyps = natural_hypotheses(st.hypotheses, nats,
                                  {n for n, t in pl.types.items() if getattr(t, "kind", "") == "nat"})
    for attempt in range(tries):
        env: dict = {}
        moved = ""          # after half the attempts failed, naturals move into their hypotheses
        try:
            for name in pl.order:
                if moved == "" and nat_hyps and attempt >= tries // 2 and set(env) == nats:
                    # every free natural drawn, nothing else yet: nothing depends on them so far
                    moved = _move_naturals(pl, env, nats, nat_hyps, interp)
                env[name] = _value(st, pl, name, env, rng, index if structured else None, attempt, interp)
            if moved == "" and nat_hyps and attempt >= tries // 2 and set(env) == nats:
                moved = _move_naturals(pl, env, nats, nat_hyps, interp)
            env["__nat_bound__"] = _horizon(pl, env) + 2     # sequences are constant beyond their drawn values
            ok = _scalars_ok(st, pl, env, interp)
        except (EvaluationError, ZeroDivisionError) as exc:
            error = error or exc
            continue
        except CannotDraw as exc:
            raise Unevaluable(str(exc)) from None
        except (NotFinite, Structural, Undecided, InputError, _Retry):
            continue
        if ok:
            desc = "structured case %d" % index if structured else "random draw %d" % index
            if structured and index >= STRUCTURED_SPREAD:
                desc += " (equal real scalars, equal members of each family)"
            return Drawn(env, desc + (f"; {moved}" if moved and moved != "-" else ""))
    if error is not None:
        raise Unevaluable(f"no draw could be evaluated: {error}")
    return None


def _movable_naturals(pl) -> set:
    """The statement's ℕ names drawn freely (not members of a set, not defined by a hypothesis)."""
    return {n for n, t in pl.types.items() if getattr(t, "kind", "") == "nat" and n not in pl.members
            and n not in pl.defined}


def _move_naturals(pl, env, nats, hyps, interp) -> str:
    """Move the drawn naturals of ``env`` (in place) to the nearest values the natural-only
    hypotheses admit (:func:`pyfed.engines.statement.naturals.nearest_naturals`; dimensions at most
    4, other naturals at most 100); returns the note ("-" when nothing moved)."""
    def admissible(a):
        e = dict(env, **a)
        try:
            return all(interp.holds(h.node, e) for h in hyps)
        except (EvaluationError, Undecided, NotFinite, Structural, ZeroDivisionError):
            return False

    current = {n: int(env[n]) for n in sorted(nats)}
    nums = numerals_of(n.value for h in hyps for n in h.node.walk() if n.kind == "num")
    caps = {n: (DIM_CAP if n in pl.dims else 100) for n in current}
    found = nearest_naturals(current, nums, admissible, caps=caps, lower=0)
    if found is None or found == current:
        return "-"
    env.update(found)
    return moved_note(current, found)


class Unevaluable(Exception):
    """No attempt of :func:`draw` could be evaluated (the first evaluation error is the message)."""


class _Retry(Exception):
    pass


class CannotDraw(_Retry):
    """No instance family draws a value of this binder's type: the report names it
    (``cannot draw `grads : Fin n → Space d → Space d```) rather than blaming the hypotheses."""

    def __init__(self, name, t):
        try:
            shown = show_type(resolved(t))
        except Exception:       # noqa: BLE001 -- a type without a printed form: its Python text
            shown = str(t)
        super().__init__(f"cannot draw `{name} : {shown}` (pyfed has no instance family for this type)")


def _scalars_ok(st, pl, env, interp) -> bool:
    """The hypotheses that mention only ℕ/ℝ names hold (decided exactly)."""
    scal = {n for n, t in pl.types.items() if getattr(t, "kind", "") in ("nat", "real")}
    for h in st.hypotheses:
        used = {part for n in h.node.walk() if n.kind == "ident"
                for part in (n.value, n.value.split(".", 1)[0])}      # `P.β` mentions P
        if used & set(pl.types) and (used & set(pl.types)) <= scal:
            try:
                if not interp.holds(h.node, env):
                    return False
            except Undecided:        # the sign of a comparison is not certified: not a usable draw
                return False
    return True


def _pick(seq, structured, attempt, rng):
    if structured is not None:
        return seq[(structured + attempt) % len(seq)]
    return seq[int(rng.integers(0, len(seq)))]


def _value(st, pl, name, env, rng, structured, attempt, interp):
    t = pl.types[name]
    k = _kind(t)
    if name in pl.members:
        s = interp.eval(pl.members[name], env)
        items = sorted(s, key=lambda x: (len(x), sorted(x)) if isinstance(x, frozenset) else (0, x))
        if not items:
            raise _Retry()
        return items[(structured or 0) % len(items)] if structured is not None else items[int(rng.integers(0, len(items)))]
    if name in pl.defined:
        return _defined(st, pl, name, env, rng, interp)
    if name in pl.minimizers:
        return _minimiser(pl.minimizers[name], env, interp)
    if name in pl.convexity and k == "real":
        P = interp.eval(pl.convexity[name], env) if _has_values(pl.convexity[name], env) else None
        if P is not None and getattr(P, "clients", None):
            tight = min(c.props.get("mu", Fraction(0)) for c in P.clients)
            opts = [tight, Fraction(0), tight / 2]
            return _pick(opts, structured, attempt, rng) if structured is not None else opts[int(rng.integers(0, 3))]
    if k == "nat":
        if name in pl.dims:
            return _pick([1, 2, 3, 2, 1, 3, 2, 4], structured, attempt, rng) if structured is not None or attempt < 20 \
                else int(rng.integers(1, 5))
        if structured is not None:
            return _pick([1, 2, 3, 0, 4, 5, 2, 1, 6, 3, 12, 40], structured, attempt, rng)
        return int(rng.integers(0, 7)) if rng.random() < 0.85 else int(rng.choice([8, 16, 40, 100]))
    if k == "real":
        if structured is not None and structured >= STRUCTURED_SPREAD:       # every real the same value
            return POOL[attempt % len(POOL)] if structured == STRUCTURED_SPREAD else EQUAL_POOL[attempt % len(EQUAL_POOL)]
        if structured is not None:
            return POOL[(structured + attempt + _offset(name)) % len(POOL)]
        r = rng.random()
        if r < 0.5:
            return POOL[int(rng.integers(0, len(POOL)))]
        if r < 0.8:
            return fam.rand_rat(rng, -4, 4, 8)
        return Fraction(int(rng.integers(1, 9)), 2 ** int(rng.integers(0, 8)))
    if k == "vec":
        d = interp.dim(t.args[0], env, None)
        return _vector(d, rng, structured, attempt, env, pl, name)
    if k == "fin":
        n = interp.dim(t.args[0], env, None)
        if n <= 0:
            raise _Retry()
        return _pick(list(range(n)), structured, attempt, rng) if structured is not None else int(rng.integers(0, n))
    if k == "finset":
        inner = resolved(t.args[0])
        if getattr(inner, "kind", "") == "fin":
            n = interp.dim(inner.args[0], env, None)
            return fam.finset(i for i in range(n) if rng.random() < 0.5)
        if getattr(inner, "kind", "") == "nat":        # synchronisation steps: none, every step, periodic
            period = _pick(SYNC_PERIODS, structured, attempt, rng) if structured is not None else \
                SYNC_PERIODS[int(rng.integers(0, len(SYNC_PERIODS)))]
            return sync_steps(period, _horizon(pl, env))
        raise CannotDraw(name, t)
    if k == "enum":
        decl = interp.model.get(t.args[0])
        ctors = decl.constructors if decl is not None else []
        if not ctors:
            raise _Retry()
        return _pick(ctors, structured, attempt, rng)
    if k == "problem":
        return _problem(st, pl, t, env, rng, structured, attempt, interp)
    if k == "type":
        n = _pick([2, 3, 4, 2, 6], structured, attempt, rng) if structured is not None else int(rng.integers(2, 7))
        return ("Ω", n)
    if k == "measure":
        space = next((v for v in env.values() if isinstance(v, tuple) and v and v[0] == "Ω"), None)
        n = space[1] if space else 2
        w = [int(rng.integers(1, 4)) for _ in range(n)] if structured is None or structured % 2 else [1] * n
        tot = sum(w)
        return FiniteSpace(tuple(Fraction(x, tot) for x in w))
    if k == "filtration":
        space = next((v for v in env.values() if isinstance(v, FiniteSpace)), None)
        n = space.n if space else 2
        return _filtration(n, rng, structured)
    if k == "fun":
        return _function(st, pl, name, t, env, rng, structured, attempt, interp)
    raise CannotDraw(name, t)


#: Synchronisation periods of a drawn ``sync : Finset ℕ`` (0: never, ∅; 1: every step; H: every H-th).
SYNC_PERIODS = (0, 1, 2, 3)


def sync_steps(period: int, horizon: int) -> frozenset:
    """The steps ``{H, 2H, …} ∩ [1, 4·horizon + 8]`` of a synchronisation every ``period`` steps
    (∅ for 0): enough for every step a statement's naturals reach."""
    if period <= 0:
        return frozenset()
    return frozenset(range(period, 4 * max(int(horizon), 1) + 9, period))


def _anchor(pl, env):
    """A distinguished point already drawn (a minimiser): structured draws put points there,
    where the terms that depend on the distance to it vanish and the others are all that is left."""
    for name in pl.minimizers:
        v = env.get(name)
        if isinstance(v, Vec):
            return v
    return None


def spectral_hints(env) -> list:
    """Exact candidate values for the constants of quantified hypotheses about the instance's
    quadratic functions: each function's smallest and largest eigenvalue (and largest absolute
    one), and for a ``Fin n`` family of quadratics with common eigenvectors the same numbers of
    their average (its eigenvalues are the averages of theirs, direction by direction)."""
    out = set()
    for v in env.values():
        fs = []
        if isinstance(v, Fun) and getattr(v, "spec", {}).get("eigenvalues") if isinstance(getattr(v, "spec", None), dict) else False:
            fs = [v]
        vals = getattr(v, "values", None)
        if isinstance(vals, list) and vals and all(isinstance(f, Fun) and isinstance(getattr(f, "spec", None), dict)
                                                   and "eigenvalues" in f.spec for f in vals):
            lams = [[Fraction(x) for x in f.spec["eigenvalues"]] for f in vals]
            mean = [sum(col) / len(lams) for col in zip(*lams)]
            out.update({min(mean), max(mean), max(abs(x) for x in mean)})
        for f in fs:
            lam = [Fraction(x) for x in f.spec["eigenvalues"]]
            out.update({min(lam), max(lam), max(abs(x) for x in lam)})
        if isinstance(v, Fun) and isinstance(getattr(v, "spec", None), dict) and \
                v.spec.get("family") in ("ridge", "interpolated"):
            out.update({Fraction(v.props["beta"]), Fraction(v.props.get("mu", 0))})     # certified by its family
        if isinstance(vals, list) and vals and all(isinstance(f, Fun) and "beta" in (getattr(f, "props", None) or {})
                                                   and isinstance(getattr(f, "spec", None), dict)
                                                   and f.spec.get("family") in ("ridge", "interpolated") for f in vals):
            out.update({sum((Fraction(f.props["beta"]) for f in vals), Fraction(0)) / len(vals),
                        sum((Fraction(f.props.get("mu", 0)) for f in vals), Fraction(0)) / len(vals)})
        rec_clients = getattr(v, "clients", None)
        if rec_clients:
            for f in rec_clients:
                if isinstance(getattr(f, "spec", None), dict) and "eigenvalues" in f.spec:
                    lam = [Fraction(x) for x in f.spec["eigenvalues"]]
                    out.update({min(lam), max(lam)})
    return sorted(out)


def _has_values(node, env) -> bool:
    return all(n.value in env for n in node.walk() if n.kind == "ident" and "." not in n.value)


def _minimiser(spec, env, interp):
    """The exact minimiser of ``P``'s objective (or of ``objective F``) for quadratic clients:
    the solution of (Σ Aᵢ) x = Σ bᵢ; a singular system is redrawn."""
    kind, node = spec
    v = interp.eval(node, env)
    if getattr(v, "argmin", None) is not None:        # a client set built around its minimiser
        return v.argmin
    clients = v.clients if kind == "problem" else list(getattr(v, "values", []))
    if not clients or not all(hasattr(c, "quadratic") for c in clients):
        raise _Retry()
    d = len(clients[0].quadratic[1])
    A = [[sum(c.quadratic[0][i][j] for c in clients) for j in range(d)] for i in range(d)]
    b = [sum(c.quadratic[1][i] for c in clients) for i in range(d)]
    x = solve_exact(A, b)
    if x is None:
        raise _Retry()
    return Vec(x)


def _offset(name: str) -> int:
    return sum(ord(c) for c in name) % 5


def _vector(d, rng, structured, attempt, env, pl, name):
    if d < 0:
        raise _Retry()
    others = [v for n, v in env.items() if isinstance(v, Vec) and len(v) == d]
    if structured is not None:
        s = (structured + attempt) % 6
        if s == 0:
            return Vec([Fraction(1)] + [Fraction(0)] * (d - 1)) if d else Vec([])
        if s == 1 and others:
            scal = [v for v in env.values() if isinstance(v, Fraction) and v != 0]
            c = scal[0] if scal else Fraction(1)
            return others[-1].scale(c)
        if s == 2 and others:
            return -others[-1]
        if s == 3:
            return Vec([Fraction(0)] * d)
        if s == 4 and others:
            return others[-1]
        return Vec([Fraction(1 + (i % 2), 1 + i) * (1 if i % 2 == 0 else -1) for i in range(d)])
    r = rng.random()
    if others and r < 0.3:
        scal = [v for v in env.values() if isinstance(v, Fraction)] + [Fraction(1), Fraction(-1)]
        return others[int(rng.integers(0, len(others)))].scale(scal[int(rng.integers(0, len(scal)))])
    return Vec(fam.rand_rat(rng, -2, 2, 4) for _ in range(d))


def _filtration(n, rng, structured, levels: int = 8):
    """Nested partitions of ``0..n-1``: level 0 trivial, each level splitting one block of the
    previous in two (so level j has at most j + 1 blocks: conditioning on an early level leaves
    randomness, on a late one little)."""
    parts = [tuple([0] * n)]
    for j in range(levels - 1):
        prev = list(parts[-1])
        blocks = sorted(set(prev))
        splittable = [b for b in blocks if prev.count(b) > 1]
        if not splittable:
            parts.append(tuple(prev))
            continue
        b = splittable[0] if structured is not None else splittable[int(rng.integers(0, len(splittable)))]
        members = [w for w in range(n) if prev[w] == b]
        half = members[len(members) // 2:] if structured is not None else \
            [w for w in members if rng.random() < 0.5] or members[-1:]
        if len(half) == len(members):
            half = members[1:]
        new = max(blocks) + 1
        parts.append(tuple(new if w in half else prev[w] for w in range(n)))
    return Filtration(tuple(parts))


def _problem(st, pl, t, env, rng, structured, attempt, interp):
    ns = t.args[0]
    d = interp.dim(t.args[1], env, None)
    N = interp.dim(t.args[2], env, None)
    if N < 1 or d < 0:
        raise _Retry()
    clients = []
    for i in range(N):
        if structured is not None:
            lams = [Fraction(1 + ((i + j + structured) % 3)) for j in range(d)]
            if (structured + i) % 4 == 3:
                lams = [Fraction(0)] + lams[1:]
        else:
            lo = -1 if rng.random() < 0.2 else 0
            lams = [fam.rand_rat(rng, lo, 3, 4) for _ in range(d)]
        b = [fam.rand_rat(rng, -2, 2, 4) if structured is None else Fraction((i + j) % 3 - 1) for j in range(d)]
        clients.append(fam.quadratic_from_eigen(lams, b, k=int(rng.integers(0, 3)) if structured is None else i))
    beta = max([c.props["beta"] for c in clients] + [Fraction(1, 100)])
    x0 = Vec(Fraction(1 + j) for j in range(d)) if structured is not None else \
        Vec(fam.rand_rat(rng, -2, 2, 4) for _ in range(d))
    fields = {"β": beta, "σ": POOL[(structured or 0) % 4] if structured is not None else fam.rand_rat(rng, 0, 2, 4),
              "x0": x0}
    if ns == "FedAvg":
        fields = {"L": beta, "σ": fields["σ"], "ζ": Fraction(1), "x0": x0, "xstar": Vec([Fraction(0)] * d)}
    return fam.problem(ns, clients, fields)


def _function(st, pl, name, t, env, rng, structured, attempt, interp):
    dom, cod = resolved(t.args[0]), resolved(t.args[1])
    dk, ck = getattr(dom, "kind", ""), getattr(cod, "kind", "")
    if dk == "fin":
        n = interp.dim(dom.args[0], env, None)
        if n < 0:
            raise _Retry()
        anchor = _anchor(pl, env)
        at_anchor = anchor is not None and ((structured is not None and structured % 3 == 2) or
                                            (structured is None and rng.random() < 0.25))
        if at_anchor and _kind(cod) == "fun" and _kind(resolved(cod.args[0])) == "point":
            space = _space_of(env)
            return fam.fin_family([fam.random_variable([anchor] * (space.n if space else 2)) for _ in range(n)])
        if at_anchor and _kind(cod) == "vec":
            return fam.fin_family([anchor] * n)
        if _kind(cod) == "fun" and _kind(resolved(cod.args[0])) == "vec" and _kind(resolved(cod.args[1])) == "real":
            # client functions sharing their eigenvectors: the average's spectrum is known exactly
            d = interp.dim(resolved(cod.args[0]).args[0], env, None)
            k = int(rng.integers(0, 3)) if structured is None else (structured % 3)
            clients = []
            for i in range(n):
                lams = [Fraction(1 + (i + j + (structured or 0)) % 3) for j in range(d)] if structured is not None \
                    else [fam.rand_rat(rng, 0, 3, 4) for _ in range(d)]
                clients.append(fam.quadratic_from_eigen(lams, [fam.rand_rat(rng, -2, 2, 4) for _ in range(d)], k=k))
            return fam.fin_family(clients)
        if _kind(cod) == "fun" and _kind(resolved(cod.args[0])) == "vec" and _kind(resolved(cod.args[1])) == "vec":
            # a procedure's gradients: the gradient maps of client functions drawn as above
            d = interp.dim(resolved(cod.args[0]).args[0], env, None)
            return fam.fin_family([fam.gradient_map(f) for f in _clients(n, d, rng, structured)])
        if structured is not None and structured >= STRUCTURED_SPREAD:     # every member the same (a = b)
            return fam.fin_family([_element(st, pl, name, cod, env, rng, structured, attempt, interp)] * n)
        vals = []
        for i in range(n):
            sub = _element(st, pl, name, cod, env, rng, structured, attempt + i, interp)
            vals.append(sub)
        return fam.fin_family(vals)
    if dk == "nat" and ck == "real":
        L = _horizon(pl, env)
        if structured is not None:
            vals = [POOL[(structured + attempt + i) % 8] for i in range(L)]
            vals = [abs(v) for v in vals]
        else:
            vals = [fam.rand_rat(rng, 0, 4, 4) for _ in range(L)]
        return fam.sequence(vals)
    if dk == "vec" and ck == "real":
        d = interp.dim(dom.args[0], env, None)
        if structured is None and rng.random() < 0.2 and d >= 1:     # a convex piecewise quadratic
            rows = [[fam.rand_rat(rng, -2, 2, 2) for _ in range(d)] for _ in range(int(rng.integers(1, 3)))]
            return fam.huber(rows, [fam.rand_rat(rng, -1, 1, 4) for _ in rows], fam.rand_rat(rng, 1, 2, 4))
        if structured is not None:
            lams = [Fraction(1 + (j + structured) % 3) for j in range(d)]
        else:
            lams = [fam.rand_rat(rng, 0 if rng.random() < 0.8 else -1, 3, 4) for _ in range(d)]
        b = [fam.rand_rat(rng, -2, 2, 4) for _ in range(d)]
        return fam.quadratic_from_eigen(lams, b, k=int(rng.integers(0, 3)))
    if dk == "vec" and ck == "vec":                     # a gradient map Space d → Space d
        d = interp.dim(dom.args[0], env, None)
        return fam.gradient_map(_clients(1, d, rng, structured)[0])
    if dk == "nat" and ck == "fun" and _is_index_draws(cod):
        return _index_draws(cod, pl, env, rng, structured, interp)
    if dk == "nat" and ck == "fun":
        inner_dom = resolved(cod.args[0])
        if getattr(inner_dom, "kind", "") == "vec":          # LocalOracle d
            d = interp.dim(inner_dom.args[0], env, None)
            return _oracle(d, rng, structured)
        if getattr(inner_dom, "kind", "") == "fin":           # ℕ → Fin N → LocalOracle d
            n = interp.dim(inner_dom.args[0], env, None)
            inner = resolved(cod.args[1])
            d = interp.dim(resolved(resolved(inner.args[1]).args[0]).args[0], env, None)
            per_round = [fam.client_oracles([_oracle(d, rng, structured) for _ in range(n)]) for _ in range(3)]
            fun = Fun(lambda r: per_round[min(int(r), 2)], name="oracles")
            fun.spec = {"family": "process", "values": [p.spec for p in per_round], "tail": None}
            return fun
        if getattr(inner_dom, "kind", "") == "point":         # ℕ → Ω → X: an adapted process
            return _process(st, pl, name, resolved(cod.args[1]), env, rng, structured, interp)
    if dk == "nat" and ck == "finset":
        inner = resolved(cod.args[0])
        n = interp.dim(inner.args[0], env, None)
        size = int(interp.eval(pl.cards[name], env)) if name in pl.cards else None
        sets = []
        for _ in range(4):
            items = list(range(n))
            rng.shuffle(items)
            k = size if size is not None else int(rng.integers(0, n + 1))
            if k > n or k < 0:
                raise _Retry()
            sets.append(sorted(items[:k]))
        return fam.samples(sets)
    if dk == "point":
        return _rv(resolved(t.args[1]), env, rng, interp, measurable_for=None)
    raise CannotDraw(name, t)


def _clients(n, d, rng, structured) -> list:
    """``n`` quadratic client functions on ``Space d`` sharing their eigenvectors (as the ``fs`` of
    a Fin n family are drawn)."""
    k = int(rng.integers(0, 3)) if structured is None else (structured % 3)
    out = []
    for i in range(n):
        lams = [Fraction(1 + (i + j + (structured or 0)) % 3) for j in range(d)] if structured is not None \
            else [fam.rand_rat(rng, 0, 3, 4) for _ in range(d)]
        b = [Fraction((i + j) % 3 - 1) for j in range(d)] if structured is not None else \
            [fam.rand_rat(rng, -2, 2, 4) for _ in range(d)]
        out.append(fam.quadratic_from_eigen(lams, b, k=k))
    return out


def _is_index_draws(cod) -> bool:
    """``Fin w → Fin b → Fin n`` (the codomain of a procedure's index draws ``ℕ → …``)."""
    cod = resolved(cod)
    if _kind(cod) != "fun" or _kind(resolved(cod.args[0])) != "fin":
        return False
    inner = resolved(cod.args[1])
    return _kind(inner) == "fun" and _kind(resolved(inner.args[0])) == "fin" and _kind(resolved(inner.args[1])) == "fin"


def _index_draws(cod, pl, env, rng, structured, interp):
    """``ℕ → Fin w → Fin b → Fin n`` as data: structured draws give worker k the client
    (k + q + step) mod n; random ones draw every index uniformly."""
    cod = resolved(cod)
    inner = resolved(cod.args[1])
    w = interp.dim(resolved(cod.args[0]).args[0], env, None)
    b = interp.dim(resolved(inner.args[0]).args[0], env, None)
    n = interp.dim(resolved(inner.args[1]).args[0], env, None)
    if n <= 0 and w > 0 and b > 0:
        raise _Retry()
    steps = _horizon(pl, env) + 1
    if structured is not None:
        table = [[[(k + q + (t * (structured % 2))) % max(n, 1) for q in range(b)] for k in range(w)]
                 for t in range(steps)]
    else:
        table = [[[int(rng.integers(0, n)) for _ in range(b)] for _ in range(w)] for _ in range(steps)]
    return fam.index_draws(table)


def _element(st, pl, name, t, env, rng, structured, attempt, interp):
    k = _kind(t)
    if k == "vec":
        d = interp.dim(t.args[0], env, None)
        return _vector(d, rng, structured, attempt, env, pl, name)
    if k == "real":
        return POOL[(structured + attempt) % len(POOL)] if structured is not None else rng_rat(rng)
    if k == "nat":
        return int(rng.integers(1, 5))
    if k == "fun":
        return _function(st, pl, name, t, env, rng, structured, attempt, interp)
    raise _Retry()


def rng_rat(rng):
    return fam.rand_rat(rng, -3, 3, 4)


def _horizon(pl, env) -> int:
    """Length of drawn sequences: beyond every ℕ parameter, so every index a hypothesis or the
    conclusion reads is drawn (``u (T + 1)`` included)."""
    nats = [v for n, v in env.items() if isinstance(v, int) and not isinstance(v, bool)]
    return max(nats + [1]) + 3


def _oracle(d, rng, structured):
    A = [[Fraction(int(i == j) * (1 + (i % 2))) for j in range(d)] for i in range(d)] if structured is not None else \
        [[fam.rand_rat(rng, -1, 2, 4) if i == j else Fraction(0) for j in range(d)] for i in range(d)]
    b = [fam.rand_rat(rng, -2, 2, 4) for _ in range(d)]
    offs = [[fam.rand_rat(rng, -1, 1, 4) for _ in range(d)] for _ in range(8)]
    return fam.affine_oracle(A, b, offs)


def _space_of(env):
    return next((v for v in env.values() if isinstance(v, FiniteSpace)), None)


def _filtration_of(env):
    return next((v for v in env.values() if isinstance(v, Filtration)), None)


def _rv(t, env, rng, interp, measurable_for=None):
    space = _space_of(env)
    n = space.n if space else 2
    labels = measurable_for if measurable_for is not None else tuple(range(n))
    vals: dict = {}
    out = []
    for w in range(n):
        lab = labels[w]
        if lab not in vals:
            vals[lab] = _point(t, env, rng, interp)
        out.append(vals[lab])
    return fam.random_variable(out)


def _point(t, env, rng, interp):
    k = _kind(t)
    if k == "vec":
        d = interp.dim(t.args[0], env, None)
        return Vec(fam.rand_rat(rng, -2, 2, 4) for _ in range(d))
    if k == "real":
        return fam.rand_rat(rng, 0, 3, 4)
    raise _Retry()


def _process(st, pl, name, t, env, rng, structured, interp):
    """An adapted process ``ℕ → Ω → X``: index j measurable for the filtration's level j."""
    filt = _filtration_of(env)
    L = _horizon(pl, env)
    rvs = [_rv(t, env, rng, interp, measurable_for=filt.at(j) if filt is not None else None) for j in range(L)]
    return fam.process(rvs)


def _defined(st, pl, name, env, rng, interp):
    """A name defined by its hypotheses (see the module docstring)."""
    t = pl.types[name]
    entries = {}
    for h, mode in pl.defined[name]:
        body, guards = _strip_foralls(h.node)
        binders = _forall_binders(h.node)
        for assignment in _enumerate(binders, guards, env, interp):
            local = {**env, **assignment}
            if mode == "equal":
                value = _materialize(interp.eval(body.args[1], local), env)
                key = _index_key(body.args[0], name, local, interp)
            elif mode == "upper":
                value = interp.eval(body.args[0], local)
                key = _index_key(body.args[1], name, local, interp)
                value = _plus_slack(value, rng, interp, local)
            else:       # condexp: X := E + (ξ - E[ξ | m])
                ce = body.args[0]
                sigma = interp.eval(ce.args[1], local)
                space = interp.eval(ce.args[2], local)
                target = interp.eval(body.args[1], local)
                key = _index_key(ce.args[3], name, local, interp)
                noise = _rv(_codomain(t, key), env, rng, interp)
                mean = condexp(space, sigma, noise)
                value = fam.random_variable([_add(target(w), noise(w) - mean(w) if isinstance(noise(w), Vec)
                                                  else noise(w) - mean(w)) for w in space.outcomes()])
            entries[key] = value
    return _assemble(t, entries, env, pl, interp)


def _materialize(value, env):
    """A function of the outcome (a term's closure) as an exact random variable of the space."""
    space = _space_of(env)
    if isinstance(value, Fun) and getattr(value, "spec", None) is None and space is not None:
        return fam.random_variable([value(w) for w in space.outcomes()])
    return value


def _forall_binders(node):
    out = []
    while node.kind in ("forall", "binop"):
        if node.kind == "forall":
            out.extend(node.value)
            node = node.args[0]
        elif node.value == "→":
            node = node.args[1]
        else:
            break
    return out


def _enumerate(binders, guards, env, interp):
    if not binders:
        yield {}
        return
    b = binders[0]
    dom = None
    for g in guards:
        if g.kind == "binop" and g.args[0].kind == "ident" and g.args[0].value == b.name and g.value in ("<", "≤"):
            hi = int(interp.eval(g.args[1], env))
            dom = range(hi + (1 if g.value == "≤" else 0))
    if dom is None:
        t = resolved(getattr(b, "lty", None))
        if getattr(t, "kind", "") == "fin":
            dom = range(interp.dim(t.args[0], env, None))
    if dom is None:
        raise _Retry()
    for x in dom:
        for rest in _enumerate(binders[1:], guards, {**env, b.name: x}, interp):
            yield {b.name: x, **rest}


def _index_key(node, name, env, interp):
    """The indices at which a defining hypothesis gives a name its value: ``v (j + 1)`` -> (j+1,)."""
    args = []
    n = node
    while n.kind == "app":
        args.append(n.args[1:])
        n = n.args[0]
    flat = [a for group in reversed(args) for a in group]
    out = []
    for a in flat:
        if a.kind == "ident" and a.value in ("ω",):
            break
        try:
            out.append(interp.eval(a, env))
        except EvaluationError:
            break
    return tuple(int(x) if isinstance(x, int) else x for x in out)


def _codomain(t, key):
    t = resolved(t)
    for _ in key:
        t = resolved(t.args[1])
    if _kind(t) == "fun":
        t = resolved(t.args[1])
    return t


def _add(a, b):
    return a + b


def _plus_slack(value, rng, interp, env):
    slack = Fraction(0) if rng.random() < 0.6 else fam.rand_rat(rng, 0, 1, 4)
    if isinstance(value, Fun):
        space = _space_of(env)
        return fam.random_variable([value(w) + slack for w in space.outcomes()]) if space else value
    if isinstance(value, Fraction):
        return value + slack
    return value


def _assemble(t, entries, env, pl, interp):
    k = _kind(t)
    if k == "fun" and _kind(resolved(t).args[0]) == "nat":
        L = max([key[0] for key in entries if key] + [0]) + 1
        cod = resolved(resolved(t).args[1])
        if _kind(cod) == "fun":
            space = _space_of(env)
            zero = _zero_rv(_codomain(t, (0,)), env, interp, space)
            rvs = [entries.get((j,), zero) for j in range(max(L, _horizon(pl, env)))]
            return fam.process(rvs)
        vals = [entries.get((j,), Fraction(0)) for j in range(max(L, _horizon(pl, env)))]
        return fam.sequence(vals)
    if k == "fun" and _kind(resolved(t).args[0]) == "fin":
        n = interp.dim(resolved(resolved(t).args[0]).args[0], env, None)
        return fam.fin_family([entries[(i,)] for i in range(n)])
    if () in entries:
        return entries[()]
    raise _Retry()


def _zero_rv(t, env, interp, space):
    n = space.n if space else 2
    if _kind(t) == "vec":
        d = interp.dim(t.args[0], env, None)
        return fam.random_variable([Vec([Fraction(0)] * d)] * n)
    return fam.random_variable([Fraction(0)] * n)


# --------------------------------------------------------------------------- hypotheses


def to_spec_env(env) -> dict:
    """The instance as JSON (exact), for witnesses (:func:`pyfed.checkers.families.env_to_spec`)."""
    return fam.env_to_spec(env)


def from_spec_env(spec) -> dict:
    return fam.env_from_spec(spec)


_ = Sigma
