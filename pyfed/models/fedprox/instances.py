"""FedProx instances, drawn inside a statement's hypotheses.

A parameter's *role* is the binder it is passed to in a call of the model's procedures
(``fedProx S K ηl ηg μ oracle samples x0 r``, ``fedProxRound …``, ``proxPath ηl μ x oracle k``, and
FedAvg's and ``localPath``'s of the same names; an argument past the declared ones, the round or
step index, is an ``index``). Each role is drawn from its own range, all exact rationals:

* dimensions: ``N`` clients (a ``Fin N``) in 1..3, points of ``Space d`` with d in 1..2;
* ``S`` in 1..N (full participation first), ``K`` local steps in 1..4, round and step indices in 0..3;
* steps ``ηl`` and ``ηg`` and the proximal weight ``μ ≥ 0`` from short ladders of rationals (ηg up
  to 1000 and μ up to 100, for statements whose hypotheses bound neither);
* ``oracle``: rational quadratic clients ``fᵢ(y) = ½ yᵀAᵢy − bᵢᵀy`` (``Aᵢ = Qᵀ diag(λᵢ) Q`` with a
  rational rotation Q, eigenvalues λ in [0, 2]) and their exact affine oracles ``gᵢ(y) = Aᵢy − bᵢ``,
  in some draws plus a rational offset per call (a noise realization), for one client, one round
  (``Fin N → LocalOracle d``) or every round (``ℕ → Fin N → LocalOracle d``);
* ``samples`` / ``sample``: uniformly drawn client sets of size S (of any size without an ``S``);
* points (``x0``, ``x``, any ``Space d``), finite families, scalars: small rationals.

The first :data:`STRUCTURED` candidates are structured (deterministic picks from the ranges, the
smallest instance first: one client in dimension 1), the others random; each is a pure function of
``(seed, index)``. A draw is repeated until every hypothesis holds exactly (decided by the
interpreter); :func:`boundary` then moves a positive real parameter to the edge of what the
hypotheses admit (doubling, then bisection in exact dyadic rationals), where step-size and
proximal-weight conditions are tight.

Sources: the procedure is Li et al., "Federated Optimization in Heterogeneous Networks", MLSys 2020,
Algorithm 2 (``lean/Pyfed/Algorithms/FedProx.lean``); the quadratic clients and oracles are the
instance families of :mod:`pyfed.checkers.families`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as Fr

import numpy as np

from ...checkers import families as fam
from ...exact import rational_str
from ...statements.elaboration import resolved
from ...statements.evaluate import EvaluationError, Undecided
from ...statements.interpret import Interpreter, NotFinite, Structural, Vec
from ...statements.vocabulary import model_declarations

__all__ = ["roles", "dimensions", "Drawn", "draw", "boundary", "failing", "STRUCTURED", "LADDERS", "Unsupported",
           "INDEX_ROLES"]

#: Structured candidates before the random ones.
STRUCTURED = 12

#: Draws tried per candidate before keeping the one closest to the hypotheses.
TRIES = 40

#: Each role's range, in the order the structured candidates use it.
LADDERS = {
    "N": [1, 2, 3, 2],
    "d": [1, 2, 1],
    "K": [2, 1, 3, 2, 4],
    "index": [1, 2, 0, 3],
    "nat": [1, 2, 0, 3, 4],
    "ηl": [Fr(1, 4), Fr(1, 2), Fr(1, 8), Fr(1), Fr(1, 10), Fr(1, 3)],
    "ηg": [Fr(1), Fr(1, 2), Fr(2), Fr(3, 2), Fr(3), Fr(10), Fr(1000)],   # large: a server step nothing bounds
    "μ": [Fr(1), Fr(0), Fr(1, 2), Fr(2), Fr(3), Fr(1, 10), Fr(100)],
    "real": [Fr(1), Fr(1, 2), Fr(0), Fr(2), Fr(1, 4), Fr(3), Fr(-1), Fr(1, 10), Fr(-1, 2)],
    "member": [Fr(1), Fr(1, 2), Fr(2), Fr(0), Fr(3, 2), Fr(1, 4)],
    "eigenvalue": [Fr(1), Fr(1, 2), Fr(2), Fr(0), Fr(3, 2)],
}

#: Roles whose binders name a local step or round index.
INDEX_ROLES = {"index", "k", "r", "t"}

#: Errors that leave a hypothesis undecided while drawing (decide_instance reports them).
_UNDECIDED = (EvaluationError, Undecided, ZeroDivisionError, NotFinite, Structural)


class Unsupported(Exception):
    """A parameter of a type the FedProx instances have no family for (the message says which)."""


@dataclass
class Drawn:
    """A drawn instance: ``env`` (name -> value), ``description`` (its scalars in words) and
    ``failing`` (the hypotheses it still fails: empty for an instance of the statement)."""

    env: dict
    description: str
    failing: list


def _kind(t) -> str:
    return getattr(resolved(t), "kind", "")


def roles(st) -> dict:
    """``{parameter: role}``: the binder name of the model procedure's argument each parameter is
    passed as (first use wins), ``index`` for an argument past the declared ones."""
    names = {p.name for p in st.parameters}
    model = model_declarations()
    out: dict = {}
    nodes = [h.node for h in st.hypotheses] + [st.conclusion]
    for top in nodes:
        for n in top.walk():
            ref = getattr(n, "ref", None)
            if n.kind != "app" or ref is None or ref[0] != "decl":
                continue
            decl = st.file_decls.get(ref[1]) or model.get(ref[1])
            if decl is None:
                continue
            explicit = [b.name for b in decl.explicit]
            for k, a in enumerate(n.args[1:]):
                if a.kind == "ident" and a.value in names:
                    out.setdefault(a.value, explicit[k] if k < len(explicit) else "index")
    return out


def dimensions(st) -> dict:
    """``{name: "N" | "d"}``: the ℕ parameters that size a ``Fin`` (clients) or a ``Space`` (points)."""
    out: dict = {}

    def visit(t):
        t = resolved(t)
        k = getattr(t, "kind", "")
        if k in ("fin", "vec") and getattr(t.args[0], "kind", "") == "ident":
            out.setdefault(t.args[0].value, "N" if k == "fin" else "d")
        for a in getattr(t, "args", ()):
            if hasattr(a, "args") and not hasattr(a, "walk"):
                visit(a)
    for p in st.parameters:
        visit(p.lty)
    return out


class _Picker:
    """Picks from a range: structured (``(index + attempt + offset) mod length``) or random."""

    def __init__(self, index: int, attempt: int, rng):
        self.structured = index < STRUCTURED
        self.index, self.attempt, self.rng = index, attempt, rng

    def __call__(self, seq, name: str = ""):
        seq = list(seq)
        if self.structured:
            return seq[(self.index + self.attempt + sum(map(ord, name)) % 3) % len(seq)]
        return seq[int(self.rng.integers(0, len(seq)))]

    def rational(self, lo, hi, den=4):
        return fam.rand_rat(self.rng, lo, hi, den)


def _order(st, dims) -> list:
    """Dimensions first, then the naturals (S after the client count), the reals, the rest."""
    rank = {"nat": 1, "real": 2}
    return sorted(st.parameters, key=lambda p: (0 if p.name in dims else rank.get(_kind(p.lty), 3),
                                                st.parameters.index(p)))


def draw(st, seed: int, index: int, interp: Interpreter, rl: dict | None = None) -> Drawn:
    """Candidate ``index`` of ``seed``: the first of :data:`TRIES` draws that satisfies every
    hypothesis, else the draw failing the fewest. Raises :class:`Unsupported` for a parameter
    without a family."""
    rl = roles(st) if rl is None else rl
    dims = dimensions(st)
    size = next((n for n, r in rl.items() if r == "S"), None)
    rng = np.random.default_rng([int(seed), int(index)])
    best = None
    for attempt in range(TRIES):
        pick = _Picker(index, attempt, rng)
        env: dict = {}
        for p in _order(st, dims):
            env[p.name] = _value(p, rl.get(p.name), dims, env.get(size), env, pick, interp)
        env["__nat_bound__"] = _horizon(env) + 1
        bad = failing(st, env, interp)
        if best is None or len(bad) < len(best.failing):
            best = Drawn(env, _describe(st, env, index), bad)
        if not bad:
            break
    return best


def failing(st, env, interp) -> list:
    """The keys of the hypotheses that are false on ``env`` (decided exactly; one the interpreter
    cannot decide is not counted: the decision of the instance reports it)."""
    out = []
    for h in st.hypotheses:
        try:
            if not interp.holds(h.node, env):
                out.append(h.key)
        except _UNDECIDED:
            continue
    return out


def boundary(st, env, name, interp, *, doublings: int = 6, halvings: int = 6):
    """``env`` with the positive real ``name`` moved up to the edge of what the hypotheses admit
    (doubled while they hold, then bisected between the last admissible and the first inadmissible
    value, exactly), or None when it cannot move (not positive, or no hypothesis bounds it)."""
    v = env.get(name)
    if not isinstance(v, Fr) or v <= 0:
        return None

    def ok(x):
        return not failing(st, {**env, name: x}, interp)
    lo, hi = v, None
    for _ in range(doublings):
        if ok(2 * lo):
            lo = 2 * lo
        else:
            hi = 2 * lo
            break
    if hi is None:
        return None
    for _ in range(halvings):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return None if lo == v else {**env, name: lo}


def _horizon(env) -> int:
    """Rounds to draw per-round data for: beyond every natural of the instance (an index
    ``r + 1`` included); beyond them the last round's data repeat."""
    nats = [v for v in env.values() if isinstance(v, int) and not isinstance(v, bool)]
    return max(nats + [1]) + 2


def _clients_n(dims, env) -> int:
    ns = [env[n] for n, what in dims.items() if what == "N" and n in env]
    return max(ns) if ns else 1


def _value(p, role, dims, size, env, pick, interp):
    """The value of parameter ``p`` (its role ``role``; ``size``: the sampled sets' size S, when
    the statement has one)."""
    t = resolved(p.lty)
    k = getattr(t, "kind", "")
    if p.name in dims:
        return pick(LADDERS[dims[p.name]], p.name)
    if k == "nat":
        if role == "S":
            n = _clients_n(dims, env)
            return pick([n] + list(range(1, n)), p.name) if pick.structured else pick(range(1, n + 1))
        if role == "K":
            return pick(LADDERS["K"], p.name)
        return pick(LADDERS["index" if role in INDEX_ROLES else "nat"], p.name)
    if k == "real":
        if role not in LADDERS and not pick.structured and pick.rng.random() < 0.3:
            return pick.rational(-2, 2)
        return pick(LADDERS.get(role, LADDERS["real"]), p.name)
    if k == "vec":
        return _point(interp.dim(t.args[0], env, None), pick, p.name)
    if k == "fin":
        return pick(range(max(1, interp.dim(t.args[0], env, None))), p.name)
    if k == "finset" and _kind(t.args[0]) == "fin":
        return _subset(interp.dim(resolved(t.args[0]).args[0], env, None), size, pick)
    if k == "enum":
        decl = interp.model.get(t.args[0])
        if decl is not None and decl.constructors:
            return pick(decl.constructors, p.name)
    if k == "fun":
        return _function(p, t, size, env, pick, interp)
    raise Unsupported(f"no FedProx instance family for `{p.name} : {p.type_text}`")


def _point(d, pick, name: str = "") -> Vec:
    if pick.structured:
        base = [Fr(1), Fr(-1, 2), Fr(2), Fr(0), Fr(-3, 2)]
        shift = pick.index + pick.attempt + sum(map(ord, name))
        return Vec([base[(shift + j) % len(base)] for j in range(d)])
    return Vec([pick.rational(-2, 2) for _ in range(d)])


def _subset(n, size, pick) -> frozenset:
    size = min(n, size) if size is not None else None
    if pick.structured:
        k = size if size is not None else 1 + (pick.index + pick.attempt) % max(n, 1)
        start = (pick.index + pick.attempt) % max(n, 1)
        return frozenset((start + j) % n for j in range(k)) if n else frozenset()
    items = list(range(n))
    pick.rng.shuffle(items)
    k = size if size is not None else int(pick.rng.integers(0, n + 1))
    return frozenset(items[:k])


def _function(p, t, size, env, pick, interp):
    dom, cod = resolved(t.args[0]), resolved(t.args[1])
    dk, ck = getattr(dom, "kind", ""), getattr(cod, "kind", "")
    if dk == "fin" and ck in ("real", "vec"):
        n = interp.dim(dom.args[0], env, None)
        if ck == "real":
            return fam.fin_family([pick(LADDERS["member"], f"{p.name}{i}") if pick.structured or pick.rng.random() < 0.7
                                   else pick.rational(0, 3) for i in range(n)])
        d = interp.dim(cod.args[0], env, None)
        return fam.fin_family([_point(d, pick, f"{p.name}{i}") for i in range(n)])
    if dk == "nat" and ck == "real":
        return fam.sequence([pick(LADDERS["member"]) for _ in range(_horizon(env))])
    if dk == "nat" and ck == "finset" and _kind(cod.args[0]) == "fin":
        n = interp.dim(resolved(cod.args[0]).args[0], env, None)
        return fam.samples([sorted(_subset(n, size, _Picker(pick.index + r, pick.attempt, pick.rng)))
                            for r in range(_horizon(env))])
    oracle = _oracle_shape(t)
    if oracle is not None:
        rounds, clients, d_node = oracle
        n = interp.dim(clients, env, None) if clients is not None else 1
        return _oracles(n, interp.dim(d_node, env, None), rounds, clients is not None, env, pick)
    raise Unsupported(f"no FedProx instance family for `{p.name} : {p.type_text}`")


def _oracle_shape(t):
    """``(per round?, client count Node or None, dimension Node)`` of ``LocalOracle d``,
    ``Fin N → LocalOracle d`` or ``ℕ → Fin N → LocalOracle d``; None for another type."""
    t = resolved(t)
    rounds = clients = None
    if _kind(t) == "fun" and _kind(t.args[0]) == "nat" and _kind(t.args[1]) == "fun" and \
            _kind(resolved(t.args[1]).args[0]) == "fin":
        rounds, t = True, resolved(t.args[1])
    if _kind(t) == "fun" and _kind(t.args[0]) == "fin":
        clients, t = resolved(t.args[0]).args[0], resolved(t.args[1])
    if _kind(t) == "fun" and _kind(t.args[0]) == "nat":
        inner = resolved(t.args[1])
        if _kind(inner) == "fun" and _kind(inner.args[0]) == "vec" and _kind(inner.args[1]) == "vec":
            return bool(rounds), clients, resolved(inner.args[0]).args[0]
    return None


def _oracles(n, d, per_round, family, env, pick):
    """Quadratic clients' exact affine oracles (see the module docstring): one client's
    ``LocalOracle d`` (``family`` False), a round's ``Fin N → LocalOracle d`` or, ``per_round``,
    every round's (the same clients; the noise offsets, when drawn, differ per round and call)."""
    clients = []
    for i in range(n):
        lams = [pick(LADDERS["eigenvalue"], f"λ{i}{j}") if pick.structured else pick.rational(0, 2)
                for j in range(d)]
        b = [Fr((i + j + pick.index) % 3 - 1) if pick.structured else pick.rational(-2, 2) for j in range(d)]
        clients.append(fam.quadratic_from_eigen(lams, b, k=i if pick.structured else int(pick.rng.integers(0, 3))))
    noisy = (pick.index % 4 == 3) if pick.structured else pick.rng.random() < 0.35
    calls = max([v for v in env.values() if isinstance(v, int) and not isinstance(v, bool)] + [1]) + 1

    def one_round():
        return [fam.affine_oracle(f.quadratic[0], f.quadratic[1],
                                  [[pick.rational(-1, 1) for _ in range(d)] for _ in range(calls)] if noisy else [])
                for f in clients]
    if per_round:
        return fam.process([fam.client_oracles(one_round()) for _ in range(_horizon(env))])
    return fam.client_oracles(one_round()) if family else one_round()[0]


def _describe(st, env, index) -> str:
    """The candidate in words: structured or random, its naturals and reals (exact)."""
    head = f"structured case {index}" if index < STRUCTURED else f"random draw {index}"
    parts = []
    for p in st.parameters:
        v = env.get(p.name)
        if isinstance(v, bool) or not isinstance(v, (int, Fr)):
            continue
        parts.append(f"{p.name} = {rational_str(v) if isinstance(v, Fr) else v}")
    return head + (": " + ", ".join(parts) if parts else "")
