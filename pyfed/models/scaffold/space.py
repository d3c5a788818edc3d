"""The search space of a statement about a SCAFFOLD run for the search by optimisation
(:mod:`pyfed.engines.search.optimise`).

A configuration fixes the client count N (1…8), the clients per round S (every S ≤ N up to N = 4,
then 1, N/2 and N: only pairs the statement's hypotheses on N and S admit), the dimension (1, and 2
for N ≤ 2), the clients' family —
rational quadratics (exact moments, Gaussian-law noise) or exact client sets beyond quadratics
(Huber with linear regions, max(0, z)² mixtures: every sample path exactly, :mod:`.paths`) — and a
regime: no noise with the controls at the optimum's gradients, noise σ > 0, or controls off the
optimum (C₀ > 0). Its axes, on logarithmic scales over their admissible ranges: K (1…32), T (1…200,
fewer where the exact cost grows), ηl as a fraction of the largest step the hypotheses admit (or
h = K ηl ηg β over 10⁻³…10² when they bound no step), ηg up to 10³ when nothing bounds it, the
start's distance from the minimiser (10⁻³…10³), the curvature (10⁻³…1) and anisotropy, the
clients' heterogeneity and curvature spread, the ridge's weight, threshold and offset, σ and the
control error. The statement's numerals, free parameters and natural-only hypotheses are applied as
the model's own candidates apply them (:mod:`.candidates`); every point is decided exactly
(:func:`.search.decide_record`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ...engines.search.space import (
    Axis,
    Config,
    NoSearchSpace,
    PointOutcome,
    SearchSpace,
    bisect,
    point_margin,
    short_rational,
)
from ...engines.statement.naturals import TYPE_NAMES, moved_note, natural_hypotheses, nearest_naturals, numerals_of
from ...errors import InputError
from ...exact import as_float
from ...problems.clients import ClientSet
from ...problems.quadratic import QuadraticProblem
from ...problems.ridge import RidgeFunction, centred
from ...statements.evaluate import EvaluationError, Undecided, decide, evaluate, to_exact
from .access import ExactAccess, bind
from .candidates import _fill_roles, _movable_naturals
from .hypotheses import _admissible, _simplest_between, _step_relevant, hypothesis_mentions, max_eta_l
from .instance import RunInstance
from .search import decide_record

__all__ = ["scaffold_space", "evaluate_point", "FAMILIES", "REGIMES"]

FAMILIES = ("quadratic", "huber", "relu2")
REGIMES = ("quiet", "noisy", "controls off")
_REGIME_WORDS = {"quiet": "sigma = 0, c0 = grad f_i(x*)", "noisy": "sigma > 0, c0 = grad f_i(x*)",
                 "controls off": "sigma = 0, c0 off the optimum's gradients"}



def _pairs(st, Ns) -> list:
    """(N, S) pairs the statement's hypotheses on N and S alone admit."""
    mov = _movable_naturals(st)
    n_name = next((k for k, r in mov.items() if r == "N"), None)
    s_name = next((k for k, r in mov.items() if r == "S"), None)
    names = {n for n in (n_name, s_name) if n}
    hyps = [h for h in st.hypotheses if h.kind == "compare" and h.node is not None
            and {n.value for n in h.node.walk() if n.kind == "ident"} & names
            and {n.value for n in h.node.walk() if n.kind == "ident"} <= names | TYPE_NAMES]
    out = []
    for N in Ns:
        for S in (range(1, N + 1) if N <= 4 else sorted({1, N // 2, N})):      # every S <= N up to N = 4
            if hyps:
                probe = _probe(st, N, S)
                val = bind(st, probe, ExactAccess(probe))
                try:
                    if not all(decide(h.op, evaluate(h.node.args[0], val), evaluate(h.node.args[1], val))
                               for h in hyps):
                        continue
                except (EvaluationError, Undecided, ZeroDivisionError):
                    continue
            out.append((N, S))
    return out


def _probe(st, N, S, d=1):
    """A small instance to decide hypotheses on (N quadratic clients in dimension d)."""
    A = np.array([[[Fraction(int(i == j)) for j in range(d)] for i in range(d)]] * N, dtype=object)
    b = np.array([[Fraction(0)] * d] * N, dtype=object)
    p = QuadraticProblem(A, b, name="probe")
    inst = RunInstance("probe", p, Fraction(0), S, 1, 1, Fraction(1, 1000), Fraction(1),
                       np.array([Fraction(1)] * d, dtype=object),
                       None if st.init == "none" else np.array([[Fraction(0)] * d] * N, dtype=object))
    _fill_roles(st, inst, None)
    return inst


def _eta_g_range(st):
    """(lo, hi, why) of the global step: the statement's numeral, else the range its hypotheses admit
    (up to 10³ when nothing bounds it)."""
    node = st.run["eta_g"]
    if node.kind == "num":
        return None
    probe = _probe(st, 1, 1)
    own = [h for h in st.hypotheses if hypothesis_mentions(h, {node.text})
           and not hypothesis_mentions(h, {st.run["eta_l"].text})]

    def admissible(g):
        probe.eta_g = Fraction(g)
        if own and not _admissible(st, probe, own):
            return False
        top, bounded = max_eta_l(st, probe, bits=8)
        return top is not None or not bounded
    lo = 1.0 if admissible(1) else (0.01 if admissible(Fraction(1, 100)) else 1.0)
    if admissible(1000):
        return lo, 1000.0, "unbounded by the hypotheses: up to 10^3"
    a, _ = bisect(admissible, Fraction(lo), Fraction(1000), 20)
    return lo, max(float(a), lo * 1.0001), "up to the largest value the hypotheses admit"


def scaffold_space(st, *, quick: bool = False, seed: int = 0) -> SearchSpace:
    """The search space of ``st`` (module docstring)."""
    pa = list(getattr(st, "problem_args", []))
    Ns = [1, 2, 3] if quick else list(range(1, 9))
    if len(pa) > 1 and pa[1].kind == "num":
        Ns = [int(pa[1].value)]
    pairs = _pairs(st, Ns)
    if not pairs:
        raise NoSearchSpace("no client count N <= 8 with S <= N satisfies the statement's hypotheses on N and S")
    eg = _eta_g_range(st)
    fams = FAMILIES[:2] if quick else FAMILIES
    regimes = ("quiet", "noisy") if quick else REGIMES
    configs = []
    for N, S in pairs:
        for d in ((1, 2) if N <= 2 and not quick else (1,)):
            if len(pa) > 0 and pa[0].kind == "num" and int(pa[0].value) != d:
                continue
            for fam in fams:
                for reg in regimes:
                    if fam != "quadratic" and reg == "noisy":
                        continue        # exact client sets run without noise
                    configs.append(_config(N, S, d, fam, reg, eg, quick))
    configs.sort(key=lambda c: (c.data["N"] > 2, c.data["d"], c.data["family"] != "quadratic", c.data["N"],
                                c.data["S"], REGIMES.index(c.data["regime"])))
    sizes = {"N": f"{min(n for n, _ in pairs)}…{max(n for n, _ in pairs)}",
             "S": "every S <= N up to N = 4, then 1, N/2, N (as admitted)",
             "d": ", ".join(str(d) for d in sorted({c.data["d"] for c in configs}))}
    return SearchSpace(configs, list(fams), sizes, [], scale=0.5 if quick else 0.7)


#: Distinct sample-path states the exact client sets may reach (S < N): every round multiplies the
#: paths by C(N, S), and every state costs K exact local steps per sampled client.
PATH_STATES = 256


def _path_rounds(N: int, S: int) -> int:
    """The most rounds (at most 6) whose C(N, S)^T sample paths stay within :data:`PATH_STATES`:
    6 for N = 2, S = 1; 2 for N = 8, S = 1; 1 for N = 6, S = 3."""
    per_round = math.comb(N, S)
    T = 1
    while T < 6 and per_round ** (T + 1) <= PATH_STATES:
        T += 1
    return T


def _config(N, S, d, fam, reg, eg, quick) -> Config:
    ridge = fam != "quadratic"
    axes = [Axis("K", 1, 8 if quick else 32, integer=True, why="local steps"),
            Axis("T", 1, (_path_rounds(N, S) if ridge and S < N else 20 if quick else 200), integer=True,
                 why="rounds"),
            Axis("step", 1e-3, 1.0, why="fraction of the largest admissible eta_l (or h beta in [1e-3, 1e2] "
                                        "when no hypothesis bounds the step)"),
            Axis("|x0 - x*|", 1e-3, 1e3, why="far starts"),
            Axis("curvature", 1e-3, 1.0), Axis("heterogeneity", 1e-3, 10.0)]
    if eg is not None:
        axes.append(Axis("eta_g", eg[0], eg[1], why=eg[2]))
    if N > 1:
        axes.append(Axis("curvature spread", 1e-2, 1e2, why="clients with different curvature"))
    if d > 1:
        axes += [Axis("anisotropy", 1e-3, 1.0), Axis("x0 direction", -1.0, 1.0, log=False)]
    if reg == "noisy":
        axes.append(Axis("sigma", 1e-3, 10.0))
    if reg == "controls off":
        axes.append(Axis("control error", 1e-3, 10.0))
    if ridge:
        axes += [Axis("ridge weight", 1e-2, 1e2), Axis("ridge offset", -1.0, 1.0, log=False)]
        if fam == "huber":
            axes.append(Axis("huber threshold", 1e-3, 1e2))
    label = f"N = {N}, S = {S}, d = {d}; {fam} clients; {_REGIME_WORDS[reg]}"
    return Config(label, {"N": N, "S": S, "d": d, "family": fam, "regime": reg}, tuple(axes))


# ---------------------------------------------------------------------- building an instance

def _clients(N, d, fam, v):
    lam, spread = v["curvature"], v.get("curvature spread", 1.0)
    rho, het = v.get("anisotropy", 1.0), v["heterogeneity"]
    out = []
    for i in range(N):
        t = i / (N - 1) if N > 1 else 0.0
        Q = [[short_rational(lam * spread ** t * rho ** j) if j == k else Fraction(0) for k in range(d)]
             for j in range(d)]
        b = [short_rational(het * (i - (N - 1) / 2)) if j == d - 1 else Fraction(0) for j in range(d)]
        if fam == "quadratic":
            out.append((Q, b))
            continue
        out.append(RidgeFunction.make(Q, b, [[1] + [0] * (d - 1)], [short_rational(2 * v.get("ridge offset", 0.0), 6)],
                                      [short_rational(v.get("ridge weight", 1.0), 6)], fam,
                                      short_rational(v.get("huber threshold", 1.0), 6)))
    if fam == "quadratic":
        return QuadraticProblem(np.array([q for q, _ in out], dtype=object),
                                np.array([b for _, b in out], dtype=object), name="search by optimisation")
    return ClientSet(centred(out), [Fraction(0)] * d, name="search by optimisation")


def _instance(st, cfg: Config, v: dict) -> tuple:
    """(RunInstance, what moved) of a point, or (None, why)."""
    N, S, d, fam, reg = (cfg.data[k] for k in ("N", "S", "d", "family", "regime"))
    p = _clients(N, d, fam, v)
    xs = list(p.x_star_exact)
    dirs = [1.0] + ([v.get("x0 direction", 0.5)] if d > 1 else [])
    norm = math.sqrt(sum(x * x for x in dirs))
    x0 = np.array([xs[j] + short_rational(v["|x0 - x*|"] * dirs[j] / norm) for j in range(d)], dtype=object)
    c0 = None
    if st.init != "none":
        c0 = np.array(p.grads_exact(p.x_star_exact), dtype=object)
        if reg == "controls off":
            kappa = short_rational(v["control error"], 6)
            c0 = np.array([[c0[i][j] + (kappa if (i + j) % 2 == 0 else -kappa) for j in range(d)]
                           for i in range(N)], dtype=object)
    K, T = int(v["K"]), int(v["T"])
    cap = 400 if fam != "quadratic" else 2000
    T = max(1, min(T, cap // K))
    sigma = short_rational(v["sigma"], 6) if reg == "noisy" else Fraction(0)
    eta_g = short_rational(v["eta_g"], 8) if "eta_g" in v else Fraction(1)
    inst = RunInstance("search by optimisation", p, sigma, S, K, T, Fraction(1, 1000), eta_g, x0, c0)
    _fill_roles(st, inst, None)
    moved = _move_run_naturals(st, inst)
    if moved is None:
        return None, "no K, T the hypotheses admit"
    top, bounded = max_eta_l(st, inst, bits=30)
    if top is None and bounded:
        top = _solve_step(st, inst)
        if top is None:
            return None, "no admissible step"
        bounded = True
    if bounded and any(h.op == "=" for h in _step_relevant(st)):
        inst.eta_l = top                # a step fixed by an equality: the step axis does not apply
    elif bounded:
        inst.eta_l = short_rational(float(top) * v["step"], 12) if v["step"] < 0.999 else top
        if inst.eta_l <= 0:
            inst.eta_l = top
    else:
        h = 10 ** (-3 + 5 * (math.log10(v["step"]) + 3) / 3)        # [1e-3, 1] -> h beta in [1e-3, 1e2]
        inst.eta_l = short_rational(h, 10) / (inst.K * Fraction(inst.eta_g) * Fraction(p.beta))
    return inst, moved


def _move_run_naturals(st, inst) -> str | None:
    """Move the run's K and T (names, not numerals) into the statement's natural-only hypotheses;
    "" when nothing moved, None when no values within 1…200 are admissible."""
    mov = {k: r for k, r in _movable_naturals(st).items() if r in ("K", "T")}
    if not mov:
        return ""
    compares = [h for h in st.hypotheses if h.kind == "compare"]
    hyps = natural_hypotheses(compares, mov, {p.name for p in st.parameters if p.kind == "nat"}
                              | set(_movable_naturals(st)))
    if not hyps:
        return ""
    current = {k: int(getattr(inst, r)) for k, r in mov.items()}

    def ok(a):
        for k, r in mov.items():
            setattr(inst, r, a[k])
        return _admissible(st, inst, hyps)
    nums = numerals_of(n.value for h in hyps for n in h.node.walk() if n.kind == "num")
    found = nearest_naturals(current, nums, ok, caps={k: 200 for k in mov})
    if found is None:
        return None
    ok(found)
    return "" if found == current else moved_note(current, found)


def _solve_step(st, inst):
    """ηl where a step hypothesis holds with equality (``effectiveStep K ηl ηg = 1 / P.β``): the exact
    rational root of lhs − rhs, bracketed and bisected, when every step hypothesis then holds."""
    hyps = _step_relevant(st)
    eqs = [h for h in hyps if h.op == "="]
    if not eqs:
        return None
    h0 = eqs[0]
    unit = Fraction(1) / (inst.K * Fraction(inst.eta_g) * Fraction(inst.problem.beta))

    def g(e):
        inst.eta_l = e
        val = bind(st, inst, ExactAccess(inst))
        return to_exact(evaluate(h0.node.args[0], val)) - to_exact(evaluate(h0.node.args[1], val))
    try:
        grid = [unit * Fraction(2) ** k for k in range(-20, 8)]
        vals = [g(e) for e in grid]
        for (a, ga), (b, gb) in zip(zip(grid, vals), zip(grid[1:], vals[1:])):
            if ga == 0:
                inst.eta_l = a
                return a if _admissible(st, inst, hyps) else None
            if (ga < 0) != (gb < 0):
                for _ in range(80):
                    m = (a + b) / 2
                    if (g(m) < 0) == (ga < 0):
                        a = m
                    else:
                        b = m
                r = _simplest_between(min(a, b), max(a, b))
                if g(r) == 0:
                    inst.eta_l = r
                    return r if _admissible(st, inst, hyps) else None
                return None
    except (EvaluationError, Undecided, ZeroDivisionError, TypeError):
        return None
    return None


# ---------------------------------------------------------------------- deciding a point

def evaluate_point(st, cfg: Config, values: dict, *, index: int = 0) -> PointOutcome:
    """Decide the point ``values`` of ``cfg`` exactly (:func:`.search.decide_record`)."""
    desc = f"search by optimisation: {cfg.label}"
    try:
        inst, moved = _instance(st, cfg, values)
    except (InputError, ValueError, ZeroDivisionError, EvaluationError, Undecided) as exc:
        return PointOutcome("undecided", None, None, f"{desc} ({exc})")
    if inst is None:
        return PointOutcome("outside", None, None, f"{desc}: {moved}")
    desc += (f"; K = {inst.K}, T = {inst.T}, eta_l = {inst.eta_l}, eta_g = {inst.eta_g}"
             + (f"; {moved}" if moved else ""))
    inst.name = desc
    try:
        rec = decide_record(st, inst, index, desc)
    except (InputError, ValueError, ZeroDivisionError) as exc:
        return PointOutcome("undecided", None, None, f"{desc} ({exc})")
    if rec.status not in ("holds", "violated"):
        return PointOutcome(rec.status, None, rec, desc)
    return PointOutcome(rec.status, point_margin(rec.status, rec.lhs, rec.rhs, lambda v: as_float(to_exact(v)),
                                                 st.relation), rec, desc)
