"""The search space of a statement about a FedAvg run for the search by optimisation
(:mod:`pyfed.engines.search.optimise`).

A configuration fixes the client count M (1…8), the dimension d (1, 2) and the family of the clients
(:mod:`.families`): rational quadratics sharing one Hessian with Gaussian-law noise, or the
``ridge`` family, whose average F is itself not quadratic (Huber with linear regions, max(0, z)²
mixtures with a curvature that changes, log-cosh and softplus in certified balls). Its axes, on
logarithmic scales over the whole admissible range: the local steps τ (1…64) and rounds T (1…200,
with τ·T at most 512 exact local steps per client), the step η as a fraction of the largest one the hypotheses admit
(down to 10⁻³, where η L ≪ 1/4), the start's distance from the minimiser (10⁻²…10³: far starts)
and direction, the curvature of F (relative to L, down to 10⁻³: weak curvature) and its
anisotropy, the ridge's weight, threshold and offset, the clients' heterogeneity and the noise σ.
L and ζ² are the family's certified values (tight). Each point goes through the model's own search
path (the statement's numerals for τ, T, its natural-only hypotheses, its step hypotheses,
:mod:`.search`) and is decided exactly by :func:`.exact.decide_instance`.
"""

from __future__ import annotations

import math
from fractions import Fraction

from ...engines.search.space import Axis, Config, PointOutcome, SearchSpace, point_margin, short_rational
from ...errors import InputError
from ...problems.ridge import RidgeFunction, certified_upper, gradient_rational
from ...statements.evaluate import Undecided
from .access import Undefined, bind, float_of
from .exact import float_sides
from .families import instance_from_json, q
from .scalars import Scalars
from .search import decide_record, fit_to_statement

__all__ = ["fedavg_space", "evaluate_point", "FAMILIES", "MAX_LOCAL_STEPS"]

#: Client families of the space, in configuration order.
FAMILIES = ("quadratic", "huber", "relu2", "logcosh", "softplus")
#: At most this many local steps per client in one instance (τ·T), so an exact path stays cheap.
MAX_LOCAL_STEPS = 512
#: A deterministic run whose floating-point margin is below −FLOAT_SCREEN is not decided exactly
#: (it holds by a wide margin; only candidates near or past the boundary are worth exact arithmetic).
FLOAT_SCREEN = 0.02


def fedavg_space(st, *, quick: bool = False, seed: int = 0) -> SearchSpace:
    """The search space of ``st`` (module docstring)."""
    sp = st.spec
    Ms = [1, 2, 3] if quick else [1, 2, 3, 4, 6, 8]
    if sp.dims["M"].op == "num":
        Ms = [int(sp.dims["M"].value)]
    ds = [1, 2] if sp.dims["d"].op != "num" else [int(sp.dims["d"].value)]
    fams = FAMILIES[:2] if quick else FAMILIES
    configs = []
    for d in ds:
        for M in Ms:
            for fam in fams:
                axes = [Axis("tau", 1, 16 if quick else 64, integer=True, why="local steps"),
                        Axis("T", 1, 32 if quick else 200, integer=True, why="rounds"),
                        Axis("step fraction", 1e-3, 1.0, why="of the largest admissible step"),
                        Axis("|x0 - x*|", 1e-2, 1e3, why="far starts"),
                        Axis("curvature", 1e-3, 1.0, why="relative to L"),
                        Axis("heterogeneity", 1e-3, 10.0)]
                axes += [Axis(f"x0 direction[{j}]", -1.0, 1.0, log=False) for j in range(d)]
                if d > 1:
                    axes.append(Axis("anisotropy", 1e-3, 1.0))
                if fam == "quadratic":
                    axes.append(Axis("sigma", 1e-4, 10.0, why="noise level"))
                else:
                    axes += [Axis("ridge weight", 1e-2, 1e2), Axis("ridge offset", -1.0, 1.0, log=False)]
                    if fam == "huber":
                        axes.append(Axis("huber threshold", 1e-3, 1e2))
                label = f"M = {M}, d = {d}; {fam} clients"
                seeds = [_corner(axes)] if fam == "quadratic" else []     # noise lives in the quadratic family
                configs.append(Config(label, {"M": M, "d": d, "family": fam}, tuple(axes), seeds))
    return SearchSpace(configs, list(fams), {"M": ", ".join(map(str, Ms)), "d": ", ".join(map(str, ds))}, [],
                       scale=0.5 if quick else 0.6)



def _corner(axes) -> list:
    """The configuration's first point: one local step, a few rounds, the largest admissible step,
    weak curvature, clients almost alike and the most noise -- where a constant of a noise or drift
    term is tightest (the rest of the axes at their middle)."""
    at = {"tau": 0.0, "T": 0.3, "step fraction": 1.0, "curvature": 0.0, "heterogeneity": 0.0, "sigma": 1.0}
    return [at.get(a.name, 0.5) for a in axes]


def _instance(cfg: Config, v: dict) -> dict:
    """The family JSON of a point (without the step): F minimised at 0 with F(0) = 0."""
    M, d, fam = cfg.data["M"], cfg.data["d"], cfg.data["family"]
    tau = int(v["tau"])
    T = max(1, min(int(v["T"]), MAX_LOCAL_STEPS // max(tau, 1)))
    lam = v["curvature"]
    rho = v.get("anisotropy", 1.0)
    Q = [[short_rational(lam * rho ** j) if j == k else Fraction(0) for k in range(d)] for j in range(d)]
    het = v["heterogeneity"]
    hb = [[short_rational(het * (i - (M - 1) / 2)) if j == d - 1 else Fraction(0) for j in range(d)] for i in range(M)]
    r = v["|x0 - x*|"]
    direc = [v.get(f"x0 direction[{j}]", 1.0) for j in range(d)]
    norm = math.sqrt(sum(x * x for x in direc)) or 1.0
    x0 = [q(short_rational(r * x / norm)) for x in direc]
    common = {"tau": str(tau), "T": str(T), "x0": x0}
    if fam == "quadratic":
        L = certified_upper(Q)
        zeta_sq = max(sum((x * x for x in row), Fraction(0)) for row in hb)
        return dict(common, A=[[q(x) for x in row] for row in Q], b=[[q(x) for x in row] for row in hb],
                    L=q(max(L, Fraction(1, 1024))), sigma=q(short_rational(v["sigma"], 6)), zeta_sq=q(zeta_sq))
    off = short_rational(v["ridge offset"] * 2, 6) if fam in ("huber", "relu2") else Fraction(0)
    w = short_rational(v["ridge weight"], 6)
    delta = short_rational(v.get("huber threshold", 1.0), 6)
    rows = [[1] + [0] * (d - 1)]
    base = RidgeFunction.make(Q, [0] * d, rows, [off], [w], fam, delta)
    g0 = gradient_rational(base, [Fraction(0)] * d)        # ∇ of the ridge part at 0: b̄ = it
    c = -base.value([Fraction(0)] * d) if base.exact else Fraction(0)
    b = [[g0[j] + row[j] for j in range(d)] for row in hb]
    L = base.smoothness()
    zeta_sq = max(sum((x * x for x in row), Fraction(0)) for row in hb)
    return dict(common, family="ridge", profile=fam, Q=[[q(x) for x in row] for row in Q],
                b=[[q(x) for x in row] for row in b], rows=[[q(x) for x in row] for row in rows], offsets=[q(off)],
                weights=[q(w)], delta=q(delta), c=q(c), L=q(max(L, Fraction(1, 1024))), sigma="0", zeta_sq=q(zeta_sq))


def _margin(lhs, rhs, status: str = "holds") -> float | None:
    """The point's margin (:func:`point_margin`); for the float screen (``status`` "holds"): None
    when a side has no finite float, so such a run is decided exactly."""
    return point_margin(status, lhs, rhs, float_of, fallback=status != "holds")


def evaluate_point(st, cfg: Config, values: dict, *, index: int = 0) -> PointOutcome:
    """Decide the point ``values`` of ``cfg`` exactly through the model's search path (module
    docstring); the record is the model's search record."""
    desc = f"search by optimisation: {cfg.label}"
    try:
        inst = dict(_instance(cfg, values), step_fraction=q(short_rational(values["step fraction"], 6)))
        inst, desc, vals = fit_to_statement(st, inst, desc)
    except (InputError, ValueError, ZeroDivisionError) as exc:
        return PointOutcome("undecided", None, None, f"{desc} ({exc})")
    if inst is None:
        return PointOutcome("outside", None, None, desc)
    desc += f"; tau = {inst['tau']}, T = {inst['T']}, eta = {inst.get('eta')}"
    try:
        ri = instance_from_json(inst, name=f"candidate {index}")
        b = bind(st, ri, Scalars("exact"), vals)
    except (InputError, Undefined, Undecided, ZeroDivisionError):
        return PointOutcome("undecided", None, None, desc)
    if b.why is not None or b.failing or not all(h.holds for h in ri.hypotheses):
        return PointOutcome("outside", None, None, desc)
    sides = float_sides(st, ri, values=vals)
    if sides is not None:           # a deterministic run: decide exactly only where it is close
        m = _margin(*sides)
        if m is not None and m < -FLOAT_SCREEN:
            return PointOutcome("holds", m, None, desc)
    rec = decide_record(st, index, desc, inst, vals)
    if rec.status in ("holds", "violated"):
        return PointOutcome(rec.status, _margin(rec.lhs, rec.rhs, rec.status), rec, desc)
    return PointOutcome(rec.status, None, rec, desc)
