"""The search space of a run-free statement for the search by optimisation
(:mod:`pyfed.engines.search.optimise`).

A configuration fixes the statement's naturals (enumerated over small sizes: a family or client
count 1…8, a dimension 1…3, other naturals 0…8, 10 and 20; only assignments its natural-only hypotheses
admit),
the family of its functions (quadratic, Huber, max(0, x)² mixtures, log-cosh; clients with
different curvature, :mod:`pyfed.problems.ridge`), the synchronisation steps of a ``Finset ℕ``
(none, every step, every 2nd or 3rd) and the procedure's index draws (round robin or random). Its
continuous axes are the free reals (symmetric log scale, ±10⁻³…10³), each vector's entries and its
distance from the origin (10⁻²…10³: far starts), the functions' curvature, anisotropy, ridge weight,
threshold, offset and the clients' heterogeneity and curvature spread (log scales), and a
procedure's step size. Everything else (finite probability spaces, filtrations, processes, the names
the hypotheses define) is drawn as the model's search draws it (:mod:`.instances`) with random numbers
common to every point of a configuration, so the margin moves continuously with the axes.

Each point is refined as the model's search refines a draw (real parameters moved to the boundary of
their hypotheses; the worst points of a margin quadratic in the vectors, families ``Fin m → Space d``
included, found exactly) and decided exactly by :func:`.search.decide_lemma_instance`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ...checkers import families as fam
from ...engines.search.space import Axis, Config, NoSearchSpace, PointOutcome, SearchSpace, point_margin, short_rational
from ...engines.statement.naturals import natural_hypotheses
from ...exact import as_float
from ...problems.ridge import RidgeFunction, centred
from ...statements.elaboration import resolved
from ...statements.evaluate import EvaluationError, Undecided, to_exact
from ...statements.interpret import FiniteSpace, Fun, Interpreter, NotFinite, Structural, Vec
from .instances import SYNC_PERIODS, _is_index_draws, _Retry, _value, sync_steps
from .plan import _kind, _subtypes, plan
from .refine import worst_points
from .search import _is_sequence, _passed_to_definition, _repair, decide_lemma_instance

__all__ = ["runfree_space", "evaluate_point", "FAMILIES"]

#: Function families of the search space, in the order configurations use them (non-quadratic
#: first: the model's own search draws quadratics already).
FAMILIES = ("huber", "relu2", "quadratic", "logcosh")


@dataclass
class _Ctx:
    """What every point of a statement's space shares: the plan, the interpreter, the seed."""

    st: object
    pl: object
    interp: object
    seed: int


def _fin_dim(t):
    t = resolved(t)
    return t.args[0] if _kind(t) == "fin" else None


def _classify(st, pl):
    """(size naturals, dimension naturals, other naturals, function binders, finsets of ℕ)."""
    free_nats = [n for n, t in pl.types.items() if _kind(t) == "nat" and n not in pl.members and n not in pl.defined]
    sizes, dims = set(), set()
    funs, finsets = [], []
    for name, t in pl.types.items():
        for sub in _subtypes(t):
            if _kind(sub) == "fin" and getattr(sub.args[0], "kind", "") == "ident":
                sizes.add(sub.args[0].value)
            if _kind(sub) == "vec" and getattr(sub.args[0], "kind", "") == "ident":
                dims.add(sub.args[0].value)
            if _kind(sub) == "problem":
                for a, bucket in zip(sub.args[1:], (dims, sizes)):
                    if getattr(a, "kind", "") == "ident":
                        bucket.add(a.value)
        k = _kind(t)
        if k == "finset" and _kind(resolved(t.args[0])) == "nat" and name not in pl.members:
            finsets.append(name)
        if name in pl.defined or name in pl.members or name in pl.minimizers:
            continue
        if k in ("fun", "problem") and _function_role(st, pl, name, t):
            funs.append(name)
    size_n = [n for n in free_nats if n in sizes]
    dim_n = [n for n in free_nats if n in dims and n not in sizes]
    other = [n for n in free_nats if n not in sizes and n not in dims]
    return size_n, dim_n, other, funs, finsets


def _function_role(st, pl, name, t) -> str | None:
    """The role of a binder the space builds from its function axes, or None (drawn as the search
    draws it): ``function`` (Space d → ℝ), ``clients`` (Fin n → Space d → ℝ), ``gradients``
    (Fin n → Space d → Space d), ``gradient`` (Space d → Space d), ``problem``, ``steps`` (a
    sequence handed to a procedure)."""
    t = resolved(t)
    if _kind(t) == "problem":
        return "problem" if str(t.args[0]) == "SCAFFOLD" else None
    if _kind(t) != "fun" or len(getattr(t, "args", ())) != 2:
        return None
    dom, cod = resolved(t.args[0]), resolved(t.args[1])
    dk, ck = _kind(dom), _kind(cod)
    if dk == "vec" and ck == "real":
        return "function"
    if dk == "vec" and ck == "vec":
        return "gradient"
    if dk == "fin" and ck == "fun":
        a, b = _kind(resolved(cod.args[0])), _kind(resolved(cod.args[1]))
        if a == "vec" and b == "real":
            return "clients"
        if a == "vec" and b == "vec":
            return "gradients"
    if _is_sequence(t) and _passed_to_definition(st, name):
        return "steps"
    return None


def _nat_values(role: str, quick: bool) -> list:
    if role == "size":
        return list(range(1, 5 if quick else 9))
    if role == "dim":
        return [1, 2] if quick else [1, 2, 3]
    return [0, 1, 2, 3, 4, 5] if quick else list(range(9)) + [10, 20]


def _nat_assignments(st, pl, interp, size_n, dim_n, other, quick) -> list:
    names = size_n + dim_n + other
    if not names:
        return [{}]
    roles = {n: "size" for n in size_n} | {n: "dim" for n in dim_n} | {n: "other" for n in other}
    hyps = natural_hypotheses(st.hypotheses, set(names), {n for n, t in pl.types.items() if _kind(t) == "nat"})
    fixed = {n: 0 for n, t in pl.types.items() if _kind(t) == "nat" and n not in names}
    out = []
    for vals in itertools.product(*[_nat_values(roles[n], quick) for n in names]):
        a = dict(zip(names, vals))
        try:
            if all(interp.holds(h.node, {**fixed, **a}) for h in hyps):
                out.append(a)
        except (EvaluationError, Undecided, NotFinite, Structural, ZeroDivisionError, KeyError):
            continue
    # small instances first: the largest value, then the sum, then the values in order
    out.sort(key=lambda a: (max(a.values()), sum(a.values()), [a[n] for n in names]))
    return out


def runfree_space(st, *, quick: bool = False, seed: int = 0) -> SearchSpace:
    """The search space of ``st`` (module docstring). Raises :class:`NoSearchSpace` when nothing
    of the statement can be parametrised (no natural, real, vector or function to move)."""
    pl = plan(st)
    interp = Interpreter(getattr(st, "file_decls", {}), getattr(st, "context", None))
    ctx = _Ctx(st, pl, interp, int(seed))
    size_n, dim_n, other, funs, finsets = _classify(st, pl)
    nat_cfgs = _nat_assignments(st, pl, interp, size_n, dim_n, other, quick)
    if not nat_cfgs:
        raise NoSearchSpace("no assignment of the naturals within the enumerated sizes satisfies the hypotheses")
    families = (FAMILIES[:3] if quick else FAMILIES) if funs else ("-",)
    syncs = [[(n, p) for n in finsets] for p in SYNC_PERIODS] if finsets else [[]]
    draws = ["round robin", "random"] if any(_is_draws(pl.types[n]) for n in pl.order) else ["-"]
    cap = 16 if quick else 72
    configs = []
    variants = list(itertools.product(families, range(len(syncs)), draws))
    # every assignment of the naturals (small first) gets a variant (family, synchronisation, draws) in
    # turn, so that the first configurations already spread over sizes and variants alike; when the
    # assignments run out, the next round gives each the next variant
    ordered = []
    for rnd in range(len(variants)):
        for ni in range(len(nat_cfgs)):
            ordered.append((ni,) + variants[(ni + rnd) % len(variants)])
            if len(ordered) >= cap:
                break
        if len(ordered) >= cap:
            break
    for k, (ni, famname, si, dr) in enumerate(ordered):
        nats = nat_cfgs[ni]
        data = {"ctx": ctx, "nats": nats, "family": famname, "sync": dict(syncs[si]), "draws": dr, "index": k}
        axes = _axes(st, pl, interp, nats, funs, famname)
        label = ", ".join(f"{n} = {v}" for n, v in nats.items())
        if famname != "-":
            label += ("; " if label else "") + f"{famname} functions"
        if syncs[si]:
            label += "; sync " + ", ".join(_sync_words(p) for _, p in syncs[si])
        if dr != "-":
            label += f"; {dr} index draws"
        configs.append(Config(label or "the statement's parameters", data, tuple(axes), seeds=[]))
    sizes = {n: _range_words(_nat_values(r, quick)) for n, r in
             [(n, "size") for n in size_n] + [(n, "dim") for n in dim_n] + [(n, "other") for n in other]}
    notes = []
    for name in pl.order:
        t = pl.types[name]
        if _kind(t) == "fun" and name not in funs and name not in pl.defined and not _is_sequence(t) \
                and not _is_draws(t) and _kind(resolved(t.args[0])) not in ("fin", "point", "nat"):
            notes.append(f"`{name}` is drawn as the model's search draws it (no axes)")
    # statements over finite probability spaces (random variables defined by their hypotheses) cost
    # several times more per point: half the points
    costly = bool(pl.defined) or any(_kind(t) in ("measure", "filtration") for t in pl.types.values())
    return SearchSpace(configs, [f for f in families if f != "-"], sizes, notes,
                       scale=(0.5 if quick else 1.0) * (0.5 if costly else 1.0))


def _range_words(vals) -> str:
    return f"{vals[0]}…{vals[-1]}" if len(vals) > 2 else ", ".join(map(str, vals))


def _sync_words(period) -> str:
    return {0: "never (∅)", 1: "every step"}.get(period, f"every {period} steps")


def _is_draws(t) -> bool:
    t = resolved(t)
    return _kind(t) == "fun" and _kind(resolved(t.args[0])) == "nat" and _is_index_draws(t.args[1])


def _symlog(name, why=""):
    return Axis(name, 0.0, 1.0, log=False, why=why or "symmetric log scale: ±10⁻³ … ±10³",
                shown="in ±[0.001, 1000] (symmetric log scale)")


def _axes(st, pl, interp, nats, funs, famname) -> list:
    axes = []
    for name in pl.order:
        t = pl.types[name]
        k = _kind(t)
        if name in pl.defined or name in pl.members or name in pl.minimizers:
            continue
        if k == "real" and name not in pl.convexity:
            axes.append(_symlog(name))
        elif k == "vec":
            d = _dim(interp, t.args[0], nats)
            axes += [Axis(f"{name}[{j}]", -1.0, 1.0, log=False) for j in range(min(d, 3))]
            axes.append(Axis(f"|{name}|", 1e-2, 1e3, why="distance from the origin (far points)"))
        elif k == "fun" and _random_vectors(t):
            axes += [Axis(f"|{name}|", 1e-2, 1e3, why="size of the random vectors"),
                     Axis(f"{name} centring", 0.0, 1.0, log=False, why="their mean moved to the minimiser")]
        elif k == "fun" and _kind(resolved(t.args[0])) == "fin" and _kind(resolved(t.args[1])) == "vec":
            m = _dim(interp, resolved(t.args[0]).args[0], nats)
            d = _dim(interp, resolved(t.args[1]).args[0], nats)
            if 0 < m * d <= 6:
                axes += [Axis(f"{name}[{i}][{j}]", -1.0, 1.0, log=False) for i in range(m) for j in range(d)]
            axes.append(Axis(f"|{name}|", 1e-2, 1e3, why="size of the family's vectors"))
    if funs:
        axes += [Axis("curvature", 1e-3, 10.0), Axis("anisotropy", 1e-3, 1.0)]
        if famname != "quadratic":
            axes += [Axis("ridge weight", 1e-2, 1e2)]
        if famname == "huber":
            axes.append(Axis("huber threshold", 1e-3, 1e2))
        if famname in ("huber", "relu2"):
            axes.append(_symlog("ridge offset"))
        if any(_function_role(st, pl, n, pl.types[n]) in ("clients", "gradients", "problem") for n in funs):
            axes += [_symlog("heterogeneity"), Axis("curvature spread", 1e-2, 1e2)]
        if any(_function_role(st, pl, n, pl.types[n]) == "steps" for n in funs):
            axes.append(Axis("step", 1e-3, 10.0, why="a constant step of the procedure"))
    return axes


def _dim(interp, node, nats) -> int:
    try:
        return int(interp.dim(node, dict(nats), None))
    except Exception:       # noqa: BLE001 -- a size the naturals do not fix yet: one entry
        return 1


def _from_symlog(u: float) -> Fraction:
    """u in [0, 1] -> ±10⁻³ … ±10³ (negative below 1/2, positive above; 1/2 itself gives 10⁻³)."""
    s = 2 * float(u) - 1
    mag = 10 ** (-3 + 6 * abs(s))
    return short_rational(math.copysign(mag, s if s else 1.0))



# ---------------------------------------------------------------------- building an instance

def _client_set(n, d, famname, v, seed_offset=0) -> list:
    """``n`` client functions on ``Space d`` of family ``famname`` from the axis values ``v``,
    centred so that their average is minimised at 0."""
    lam = v.get("curvature", 1.0)
    rho = v.get("anisotropy", 1.0)
    het = float(_from_symlog(v.get("heterogeneity", 0.5)))
    spread = v.get("curvature spread", 1.0)
    out = []
    for i in range(n):
        t = (i / (n - 1)) if n > 1 else 0.0
        li = lam * spread ** t
        Q = [[short_rational(li * rho ** j) if j == jj else Fraction(0) for jj in range(d)] for j in range(d)]
        b = [short_rational(het * (i - (n - 1) / 2)) if j == 0 else Fraction(0) for j in range(d)]
        if famname == "quadratic" or d == 0:
            out.append(RidgeFunction.make(Q, b))
            continue
        rows = [[1] + [0] * (d - 1)]
        off = _from_symlog(v.get("ridge offset", 0.5)) if famname in ("huber", "relu2") else 0
        out.append(RidgeFunction.make(Q, b, rows, [off + short_rational(het * i / 2) if famname != "logcosh" else 0],
                                      [short_rational(v.get("ridge weight", 1.0))], famname,
                                      short_rational(v.get("huber threshold", 1.0))))
    return centred(out)


def _as_fun(f: RidgeFunction, name: str) -> Fun:
    if f.profile == "none":
        fun = fam.quadratic([list(r) for r in f.Q], list(f.b), f.c, name=name)
        fun.props = {"beta": f.smoothness(), "mu": f.strong_convexity(), "convex": True}
        return fun
    return fam.ridge(f, name=name)


def _build(ctx: _Ctx, cfg: Config, values: dict):
    """The instance of a point, or None when it cannot be drawn (a hypothesis on the drawn part fails
    or a draw is impossible)."""
    st, pl, interp = ctx.st, ctx.pl, ctx.interp
    data = cfg.data
    rng = np.random.default_rng([ctx.seed, 31, int(data["index"])])
    env: dict = dict(data["nats"])
    fins: dict = {}
    for name in pl.order:
        if name in env:
            continue
        t = pl.types[name]
        k = _kind(t)
        try:
            if name in pl.defined or name in pl.members or name in pl.minimizers:
                env[name] = _value(st, pl, name, env, rng, None, 0, interp)
            elif k == "real" and name not in pl.convexity:
                env[name] = _from_symlog(values.get(name, 0.5))
            elif k == "vec":
                d = int(interp.dim(t.args[0], env, None))
                r = values.get(f"|{name}|", 1.0)
                env[name] = Vec(short_rational(r * values.get(f"{name}[{j}]", (-1) ** j * 0.5)) for j in range(d))
            elif k == "fin":
                n = int(interp.dim(t.args[0], env, None))
                if n <= 0:
                    return None
                key = t.args[0].text if hasattr(t.args[0], "text") else str(t.args[0])
                env[name] = fins.get(key, 0) % n
                fins[key] = fins.get(key, 0) + 1
            elif k == "finset" and name in data["sync"]:
                env[name] = sync_steps(data["sync"][name], max([v for v in env.values() if isinstance(v, int)]
                                                               + [1]) + 3)
            elif k == "fun" and _is_draws(t) and data["draws"] == "round robin":
                env[name] = _value(st, pl, name, env, rng, 0, 0, interp)
            elif _function_role(st, pl, name, t) is not None:
                env[name] = _function(ctx, name, t, env, data["family"], values)
            elif k == "fun" and _random_vectors(t) and name not in pl.defined:
                env[name] = _measurable_vectors(ctx, name, t, env, rng, values)
            elif k == "fun" and _kind(resolved(t.args[0])) == "fin" and _kind(resolved(t.args[1])) == "vec":
                m = int(interp.dim(resolved(t.args[0]).args[0], env, None))
                d = int(interp.dim(resolved(t.args[1]).args[0], env, None))
                r = values.get(f"|{name}|", 1.0)
                if f"{name}[0][0]" in values:
                    vs = [Vec(short_rational(r * values[f"{name}[{i}][{j}]"]) for j in range(d)) for i in range(m)]
                else:
                    vs = [Vec(short_rational(r * float(rng.uniform(-1, 1))) for _ in range(d)) for _ in range(m)]
                env[name] = fam.fin_family(vs)
            else:
                env[name] = _value(st, pl, name, env, rng, None, 0, interp)
        except (_Retry, EvaluationError, NotFinite, Structural, Undecided, ZeroDivisionError, ValueError, TypeError):
            return None         # TypeError: a value without an exact form (a ball inside a random variable)
    env["__nat_bound__"] = max([v for v in env.values() if isinstance(v, int) and not isinstance(v, bool)] + [1]) + 5
    return env


def _random_vectors(t) -> bool:
    """``Fin m → Ω → Space d``: a family of random vectors on the drawn finite space."""
    t = resolved(t)
    cod = resolved(t.args[1])
    return _kind(resolved(t.args[0])) == "fin" and _kind(cod) == "fun" and _kind(resolved(cod.args[0])) == "point" \
        and _kind(resolved(cod.args[1])) == "vec"


def _measurable_level(st, name, env, interp):
    """The partition a hypothesis ``StronglyMeasurable[F e] (name k)`` asks ``name`` to be measurable
    for (the filtration's level e on the instance), or None."""
    for h in st.hypotheses:
        for n in h.node.walk():
            if n.kind == "app" and n.args and n.args[0].kind == "subscript" and \
                    n.args[0].value == "StronglyMeasurable" and any(
                        m.kind == "ident" and m.value == name for a in n.args[1:] for m in a.walk()):
                try:
                    return interp.eval(n.args[0].args[0], env).labels
                except Exception:      # noqa: BLE001 -- a level the instance does not fix: unconstrained
                    return None
    return None


def _measurable_vectors(ctx, name, t, env, rng, values):
    """``Fin m → Ω → Space d`` drawn measurable for the level its hypotheses name, entries uniform
    in ±|name| (the axis of the family's size)."""
    interp = ctx.interp
    t = resolved(t)
    m = int(interp.dim(resolved(t.args[0]).args[0], env, None))
    d = int(interp.dim(resolved(resolved(t.args[1]).args[1]).args[0], env, None))
    space = next((v for v in env.values() if isinstance(v, FiniteSpace)), None)
    n = space.n if space else 2
    labels = _measurable_level(ctx.st, name, env, interp) or tuple(range(n))
    r = values.get(f"|{name}|", 1.0)
    blocks = []
    for _ in range(m):
        block = {}
        for lab in labels:
            if lab not in block:
                block[lab] = Vec(short_rational(r * float(rng.uniform(-1, 1))) for _ in range(d))
        blocks.append(block)
    # centring: the members' mean moved toward the minimiser (or the origin) by the fraction c, at
    # every outcome (c = 1: the mean is the minimiser, where the terms of its distance vanish)
    c = Fraction(min(1.0, 1.25 * values.get(f"{name} centring", 0.0))).limit_denominator(64)
    if c and m:
        anchor = next((v for v in env.values() if isinstance(v, Vec) and len(v) == d), Vec([Fraction(0)] * d))
        for lab in set(labels):
            mean = Vec(sum((b[lab][j] for b in blocks), Fraction(0)) / m for j in range(d))
            shift = (mean - anchor).scale(c)
            for b in blocks:
                b[lab] = b[lab] - shift
    return fam.fin_family([fam.random_variable([b[lab] for lab in labels]) for b in blocks])


def _function(ctx, name, t, env, famname, values):
    interp = ctx.interp
    role = _function_role(ctx.st, ctx.pl, name, t)
    t = resolved(t)
    fam_name = "quadratic" if famname == "-" else famname
    if role == "steps":
        step = short_rational(values.get("step", 0.1))
        return fam.sequence([step] * (int(env.get("__nat_bound__", 0)) + 64), tail=step)
    if role == "problem":
        d = int(interp.dim(t.args[1], env, None))
        n = int(interp.dim(t.args[2], env, None))
        fs = [_as_fun(f, f"f{i}") for i, f in enumerate(_client_set(n, d, fam_name, values))]
        x0 = Vec(short_rational(values.get("|x0|", 1.0) * (1 if j == 0 else 0.5)) for j in range(d))
        P = fam.problem(str(t.args[0]), fs, {"β": max(f.props["beta"] for f in fs), "σ": Fraction(1), "x0": x0})
        P.argmin = Vec([Fraction(0)] * d)
        return P
    dom, cod = resolved(t.args[0]), resolved(t.args[1])
    if role in ("function", "gradient"):
        d = int(interp.dim(dom.args[0], env, None))
        f = _as_fun(_client_set(1, d, fam_name, values)[0], name)
        return f if role == "function" else fam.gradient_map(f)
    n = int(interp.dim(dom.args[0], env, None))
    d = int(interp.dim(resolved(cod.args[0]).args[0], env, None))
    fs = [_as_fun(f, f"{name}{i}") for i, f in enumerate(_client_set(n, d, fam_name, values))]
    out = fam.fin_family(fs if role == "clients" else [fam.gradient_map(f) for f in fs])
    out.argmin = Vec([Fraction(0)] * d)
    return out


# ---------------------------------------------------------------------- deciding a point

def _margin(st, rec) -> float | None:
    return point_margin(rec.status, rec.lhs, rec.rhs, lambda v: as_float(to_exact(v)), st.relation)


def evaluate_point(st, cfg: Config, values: dict, *, index: int = 0) -> PointOutcome:
    """Decide the point ``values`` of configuration ``cfg`` exactly (module docstring): the drawn
    instance, its real parameters moved to their hypotheses' boundary, and the worst points of a
    margin quadratic in its vectors; the first violation, else the decided candidate with the
    largest margin."""
    ctx = cfg.data["ctx"]
    env = _build(ctx, cfg, values)
    if env is None:
        return PointOutcome("outside", None, None, f"{cfg.label}: not drawable here")
    pl, interp = ctx.pl, ctx.interp
    desc = f"search by optimisation: {cfg.label}"
    cands = [(env, desc)]
    reals = [n for n in pl.order if _kind(pl.types[n]) == "real" and n not in pl.defined]
    fixed = _repair(st, pl, dict(env), reals, ctx.seed, index, interp)
    if fixed is not None and fixed is not env:
        cands.insert(0, (fixed, f"{desc}; real parameters at the boundary of their hypotheses"))
    base = cands[0][0]
    vecs = [n for n in pl.order if n not in pl.defined and n not in pl.minimizers and n not in pl.members
            and (_kind(pl.types[n]) == "vec" or _vector_family(base.get(n)))]
    if vecs:
        try:
            worst = worst_points(st, pl, base, vecs, interp)
        except (EvaluationError, Undecided, NotFinite, Structural, ZeroDivisionError, TypeError):
            worst = None
        if worst is not None:
            cands.append((worst, f"{desc}; the worst vectors of the margin (exact)"))
    best = None
    for e, how in cands:
        rec = decide_lemma_instance(st, e, interp, index=index, description=how)
        m = _margin(st, rec)
        out = PointOutcome(rec.status, m, rec, how)
        if rec.status == "violated":
            return out
        if best is None or (m is not None and (best.margin is None or m > best.margin)):
            best = out
    return best


def _vector_family(v) -> bool:
    vals = getattr(v, "values", None)
    return isinstance(vals, list) and bool(vals) and all(isinstance(x, Vec) for x in vals)
