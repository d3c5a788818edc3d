"""The search space of a FedProx statement for the search by optimisation
(:mod:`pyfed.engines.search.optimise`).

A configuration fixes the sizes: each client count (a ``Fin N``) 1…4 and each dimension (a
``Space d``) 1, 2, the clients per round S (every S ≤ N), only combinations the statement's
natural-only hypotheses admit. Its axes, on logarithmic scales over ranges wider than the model's
ladders (:data:`.instances.LADDERS`): the local steps K (1…32), the round and step indices
(0…12), other naturals (0…20), the steps ``ηl`` and ``ηg`` and the proximal weight ``μ``
(10⁻³…10³: a server step nothing bounds, a tiny or a large proximal term), the other reals
(−10…10), and the distance of every point (``x0``, ``xstar``, …) from the origin (10⁻²…10³: far
starts). A parameter a hypothesis pins (``ηl = 1 / 2``, ``μ = 0``) has no axis: it takes that value; a
real past a bound the hypotheses set is halved until it is inside.
The clients (rational quadratics with exact affine oracles), the points' directions and
the sampled sets are drawn as the model's random candidates draw them (:func:`.instances.draw`),
from random numbers shared by every point of a configuration, so the margin moves continuously
with the axes. Every point is decided exactly by the one interpreter (:func:`.search.decide`).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np

from ...engines.search.space import (
    Axis,
    Config,
    NoSearchSpace,
    PointOutcome,
    SearchSpace,
    point_margin,
    short_rational,
)
from ...engines.statement.lean_search import interpreter_for
from ...engines.statement.naturals import natural_hypotheses
from ...evaluation.values import Vec
from ...exact import as_float, rational_str
from .instances import (
    _UNDECIDED,
    INDEX_ROLES,
    STRUCTURED,
    Unsupported,
    _horizon,
    _kind,
    _order,
    _Picker,
    _value,
    dimensions,
    failing,
    roles,
)
from .search import decide

__all__ = ["fedprox_space", "evaluate_point", "STEP_ROLES"]

#: Real roles drawn on a logarithmic scale over 10⁻³…10³ (positive by the model's definition).
STEP_ROLES = ("ηl", "ηg", "μ")

#: The sizes enumerated for a client count and a dimension.
CLIENTS, DIMENSIONS = (1, 2, 3, 4), (1, 2)


def _size_values(what: str, quick: bool) -> tuple:
    """The values enumerated for a client count (``"N"``) or a dimension (``"d"``)."""
    if what == "N":
        return CLIENTS[:3] if quick else CLIENTS
    return DIMENSIONS[:1] if quick else DIMENSIONS


def _sizes(st, dims: dict, rl: dict, quick: bool, interp) -> list:
    """Every assignment ``{name: value}`` of the dimensions and of S (every S ≤ the largest client
    count) that the hypotheses mentioning only these naturals admit (``N = 2``, ``S = N``)."""
    names = sorted(dims)
    choices = [_size_values(dims[n], quick) for n in names]
    size = next((n for n, r in rl.items() if r == "S"), None)
    out = []
    for combo in itertools.product(*choices):
        env = dict(zip(names, combo))
        n_max = max([v for n, v in env.items() if dims[n] == "N"] + [1])
        for S in (range(1, n_max + 1) if size is not None else (None,)):
            cand = dict(env, **({size: S} if size is not None else {}))
            hyps = natural_hypotheses(st.hypotheses, list(cand), list(cand))
            try:
                if all(interp.holds(h.node, cand) for h in hyps):
                    out.append(cand)
            except _UNDECIDED:
                out.append(cand)            # undecided here: the point's own decision says why
    return out


def _pinned(st) -> list:
    """``[(name, term)]``: the parameters a hypothesis ``name = term`` (or ``term = name``) pins,
    ``term`` not mentioning ``name`` (``ηl = 1 / 2``, ``μ = 0``, ``S = N``), in hypothesis order."""
    names = {p.name for p in st.parameters}
    out, seen = [], set()
    for h in st.hypotheses:
        n = getattr(h, "node", None)
        if n is None or n.kind != "binop" or n.value != "=":
            continue
        for a, b in ((n.args[0], n.args[1]), (n.args[1], n.args[0])):
            if a.kind == "ident" and a.value in names and a.value not in seen and \
                    a.value not in {x.value for x in b.walk() if x.kind == "ident"}:
                out.append((a.value, b))
                seen.add(a.value)
                break
    return out


def _axes(st, dims: dict, rl: dict, quick: bool) -> tuple:
    axes = []
    pinned = {name for name, _ in _pinned(st)}
    for p in st.parameters:
        if p.name in dims or rl.get(p.name) == "S" or p.name in pinned:
            continue
        k, role = _kind(p.lty), rl.get(p.name)
        if k == "nat":
            if role == "K":
                axes.append(Axis(p.name, 1, 8 if quick else 32, integer=True, why="local steps"))
            elif role in INDEX_ROLES or role == "index":
                axes.append(Axis(p.name, 0, 6 if quick else 12, log=False, integer=True, why="round or step index"))
            else:
                axes.append(Axis(p.name, 0, 20, log=False, integer=True))
        elif k == "real":
            if role in STEP_ROLES:
                axes.append(Axis(p.name, 1e-3, 1e3, why="beyond the hypotheses' bounds where they set none"))
            else:
                axes.append(Axis(p.name, -10.0, 10.0, log=False))
    if any(_kind(p.lty) == "vec" for p in st.parameters):
        axes.append(Axis("|x| scale", 1e-2, 1e3, why="far starts"))
    return tuple(axes)


def fedprox_space(st, *, quick: bool = False, seed: int = 0) -> SearchSpace:
    """The search space of ``st`` (module docstring). :class:`NoSearchSpace` when it has nothing
    to vary (no natural, real or point the model draws)."""
    dims, rl = dimensions(st), roles(st)
    axes = _axes(st, dims, rl, quick)
    if not axes:
        raise NoSearchSpace("the statement has no real, natural or point for the search to vary")
    configs = []
    for j, sizes in enumerate(_sizes(st, dims, rl, quick, interpreter_for(st))):
        label = ", ".join(f"{k} = {v}" for k, v in sizes.items()) or "the statement's sizes"
        configs.append(Config(f"{label}; quadratic clients", {"sizes": sizes, "draws": [int(seed), j]}, axes))
    shown = {}
    for n, what in dims.items():
        shown[n] = ", ".join(map(str, _size_values(what, quick)))
    if any(r == "S" for r in rl.values()):
        shown["S"] = "every S <= N"
    return SearchSpace(configs, ["quadratic"], shown, [], scale=0.4 if quick else 0.5)


def _env(st, cfg: Config, values: dict, interp, rl: dict, dims: dict) -> dict:
    """The instance of a point: the configuration's sizes, the axes' values, everything else
    drawn from random numbers fixed per configuration."""
    sizes = cfg.data["sizes"]
    rng = np.random.default_rng(cfg.data["draws"])          # [seed, configuration]: the same draws at every point
    pick = _Picker(STRUCTURED, 0, rng)              # a random (not structured) draw
    size_name = next((n for n, r in rl.items() if r == "S"), None)
    env: dict = {}
    for p in _order(st, dims):
        if p.name in sizes:
            env[p.name] = sizes[p.name]
        elif p.name in values:
            v = values[p.name]
            env[p.name] = int(v) if _kind(p.lty) == "nat" else short_rational(v)
        else:
            env[p.name] = _value(p, rl.get(p.name), dims, env.get(size_name), env, pick, interp)
    for name, term in _pinned(st):          # what a hypothesis pins takes its value
        if name in sizes:
            continue
        try:
            v = interp.eval(term, env)
        except _UNDECIDED:
            continue
        if isinstance(v, (int, Fraction)) and not isinstance(v, bool):
            env[name] = int(v) if isinstance(env.get(name), int) and Fraction(v).denominator == 1 else v
    scale = values.get("|x| scale")
    if scale is not None:
        c = short_rational(scale, 8)
        for p in st.parameters:
            if isinstance(env.get(p.name), Vec):
                env[p.name] = env[p.name].scale(c)
    env["__nat_bound__"] = _horizon(env) + 1
    return env


def _into_hypotheses(st, env: dict, values: dict, rl: dict, interp, halvings: int = 16) -> None:
    """Move the reals on the axes that a failing hypothesis mentions into the hypotheses: a
    negative one a sign hypothesis refuses to its absolute value, then all of them halved until
    every hypothesis holds (at most ``halvings`` times), then one still refused set to 0 where that
    helps: a point past a bound such as
    ``ηl (a + μ) ≤ 1`` lands just inside it, where steps are worst, instead of outside."""
    flipped = False
    for _ in range(halvings):
        bad = set(failing(st, env, interp))
        if not bad:
            return
        named = {n.value for h in st.hypotheses if h.key in bad for n in h.node.walk() if n.kind == "ident"}
        movable = [p.name for p in st.parameters if p.name in values and p.name in named
                   and isinstance(env.get(p.name), Fraction) and env[p.name] != 0]
        if not movable:
            return
        if not flipped:         # a negative real a sign hypothesis refuses (0 ≤ m): its absolute value first
            flipped = True
            trial = {**env, **{n: -env[n] for n in movable if env[n] < 0}}
            if len(failing(st, trial, interp)) <= len(bad):
                env.update(trial)
                continue
        for name in movable:
            env[name] = env[name] / 2
    for name in [p.name for p in st.parameters if p.name in values and isinstance(env.get(p.name), Fraction)]:
        bad = failing(st, env, interp)
        if not bad:
            return
        trial = {**env, name: Fraction(0)}        # a bound at 0 (m ≤ a i with a i = 0): halving never gets there
        if len(failing(st, trial, interp)) < len(bad):
            env.update(trial)


def evaluate_point(st, cfg: Config, values: dict, *, index: int = 0) -> PointOutcome:
    """Decide the point ``values`` of ``cfg`` exactly (module docstring); the record is the
    model's search record (numbered ``index``)."""
    interp = interpreter_for(st)
    rl, dims = roles(st), dimensions(st)
    try:
        env = _env(st, cfg, values, interp, rl, dims)
    except Unsupported as exc:
        return PointOutcome("undecided", None, None, f"{cfg.label}: {exc}")
    _into_hypotheses(st, env, values, rl, interp)
    shown = ", ".join(f"{p.name} = {rational_str(env[p.name]) if isinstance(env[p.name], Fraction) else env[p.name]}"
                      for p in st.parameters if isinstance(env.get(p.name), (int, Fraction))
                      and not isinstance(env.get(p.name), bool))
    desc = f"search by optimisation: {cfg.label}" + (f"; {shown}" if shown else "")
    if failing(st, env, interp):
        return PointOutcome("outside", None, None, desc)
    rec = decide(st, env, interp, index=index, description=desc)
    if rec.status in ("holds", "violated"):
        return PointOutcome(rec.status, point_margin(rec.status, rec.lhs, rec.rhs, as_float, st.relation), rec, desc)
    return PointOutcome(rec.status, None, rec, desc)
