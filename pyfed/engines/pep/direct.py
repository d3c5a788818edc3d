"""PEP engine, direct solves: an :class:`.exact_pep.ExactPEP` sent to Clarabel as one sparse conic
problem (no PEPit, no cvxpy), and deterministic SCAFFOLD / FedAvg reduced by the symmetry between
clients.

Symmetric reduction (exact, not a relaxation). Deterministic SCAFFOLD with S = N treats every
client alike: permuting the clients (their functions, controls and gradients) maps a feasible
point of the PEP (Gram matrix G, function values F) to a feasible point with the same metric and
the same initial condition. The PEP is a convex problem, so the average over all N! permutations
of an optimal point is optimal too: the supremum is attained on *invariant* points. On those,
every per-client vector u_i (control, gradient) splits as u_i = ū + d_i with the client mean ū and
a deviation d_i (Σ_i d_i = 0), and

* ⟨d_i, s⟩ = ⟨d_i, ū⟩ = 0 for every shared vector s (x⋆, x0, the iterates) and mean ū;
* the Gram matrix of client 0's deviations, P2, determines every other ⟨d_i, d_j⟩
  (= P2 if i = j, -P2/(N - 1) otherwise);
* the full Gram matrix is PSD iff P1 (the Gram of the shared vectors and the means) and P2 are
  (the two isotypic blocks of the permutation action; every PSD pair is realised by
  d_i = √(N/(N-1)) (e_i - 𝟙/N) ⊗ z with z of Gram P2);
* f_i(x) = f_0(x) at the shared points, so the interpolation inequalities of client 0 stand for all.

So the PEP equals the one over (P1, P2, client 0's function values) with client 0's
interpolation inequalities only: two PSD blocks of about K·T each instead of one of about
N·K·T, and 1/N of the constraints (:func:`pep_scaffold_symmetric`). Its value is the full
formulation's value (up to the solver's tolerance), and a dual point of it lifts to one of the
full problem: multipliers λ_k / N on each client's copy of inequality k
(:func:`lift_multipliers`).

Source: the symmetry of the method (Karimireddy et al. 2020, Alg. 1 with S = N); the block
decomposition is the standard one for group-invariant SDPs (Gatermann & Parrilo, J. Pure Appl.
Algebra 192, 2004).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .exact_pep import ExactPEP, Form, Vec, _q, fvalue, mean_vec, sq
from .solver import _solver_kwargs

__all__ = ["BlockPEP", "DirectSolution", "pep_scaffold_symmetric", "solve_direct", "lift_multipliers",
           "neighbour_pair", "starting_rows"]


class BlockPEP(ExactPEP):
    """An :class:`ExactPEP` whose Gram matrix is block diagonal: ``block_of[a]`` is the block of
    leaf a (0: shared vectors and client means; 1: client 0's deviations). Entries across blocks
    are zero by construction, and :meth:`finish` drops their coefficients from every form."""

    def __init__(self, description: str = ""):
        super().__init__(description)
        self.block_of: dict = {}
        #: clients the reduction stands for (:func:`lift_multipliers` divides by it)
        self.N = 1

    def new_leaf_in(self, name: str, block: int) -> Vec:
        v = self.new_leaf(name)
        self.block_of[len(self.leaves) - 1] = block
        return v

    def blocks(self) -> list:
        """Leaf indices of each block (non-empty blocks only, in block order)."""
        out: dict = {}
        for a in range(len(self.leaves)):
            out.setdefault(self.block_of[a], []).append(a)
        return [out[b] for b in sorted(out)]

    def part(self, v: Vec, block: int) -> Vec:
        """The components of v on the leaves of ``block``."""
        return Vec({a: c for a, c in v.coef.items() if self.block_of[a] == block})

    def _clean(self, f: Form) -> Form:
        g = {k: v for k, v in f.gram.items() if self.block_of[k[0]] == self.block_of[k[1]]}
        return Form(g, dict(f.fval), f.const)

    def finish(self):
        """Drop cross-block Gram coefficients (zero entries) from metric, init and constraints."""
        self.metric = self._clean(self.metric)
        self.init = self._clean(self.init)
        self._constraints = [(name, self._clean(f)) for name, f in ExactPEP.constraints.fget(self)]
        return self


def pep_scaffold_symmetric(N: int, K: int, eta_l, eta_g, beta, mu, gap_coefs: dict, grad_coefs: dict,
                           pot_coef, *, controls: bool = True, keep_pair=None) -> BlockPEP:
    """The client-symmetric reduction (module docstring) of
    :func:`.exact_pep.pep_scaffold_exact` with the same arguments: same metric
    Σ_r gap_coefs[r] (F(x_r) - F⋆) + Σ_r grad_coefs[r] ‖∇F(x_r)‖² and init
    ‖x0 - x⋆‖² + pot_coef·(1/N) Σ_i ‖c_i - ∇f_i(x⋆)‖², over client 0's function only.

    Leaves: block 0 = x⋆, x0, the mean control and the mean gradient at each point of client 0;
    block 1 (N ≥ 2) = client 0's deviations (∇f_0(x⋆) itself, since the mean gradient at x⋆ is
    0; the control; the gradient at each point). Client 0's points are registered in the order of
    :func:`.exact_pep.pep_scaffold_exact`, so its inequality k is the full problem's inequality k
    of every client (:func:`lift_multipliers`). ``keep_pair``: as ``ExactPEP.keep_pair`` (e.g.
    :func:`neighbour_pair`; a relaxation)."""

    pep = BlockPEP(f"{'SCAFFOLD' if controls else 'FedAvg'} N={N} K={K} eta_l={eta_l} eta_g={eta_g} "
                   f"beta={beta} mu={mu} (client-symmetric reduction)")
    eta_l, eta_g, pot_coef = _q(eta_l), _q(eta_g), _q(pot_coef)
    dev = N >= 2
    f = pep.new_function(beta, mu)
    xs = pep.new_leaf_in("x*", 0)
    gstar = pep.new_leaf_in("dev g(x*)", 1) if dev else Vec()
    f.add_point(xs, gstar, name="x*")
    x0 = pep.new_leaf_in("x0", 0)
    if controls:
        c_mean = pep.new_leaf_in("mean c", 0)
        c_dev = pep.new_leaf_in("dev c", 1) if dev else Vec()
    else:
        c_mean = c_dev = Vec()
    pep.init = sq(x0 - xs) + pot_coef * (sq(c_mean) + sq(c_dev - gstar))

    def point(x, name):
        found = f._lookup(x)
        if found is not None:
            return found
        g = pep.new_leaf_in(f"mean g({name})", 0)
        if dev:
            g = g + pep.new_leaf_in(f"dev g({name})", 1)
        return f.add_point(x, g, name=name)

    j_star = f._lookup(xs)[2]
    x = x0
    R = max(list(gap_coefs) + list(grad_coefs) + [0])
    metric = Form()
    for r in range(R + 1):
        if r in gap_coefs:
            metric = metric + _q(gap_coefs[r]) * (fvalue(point(x, f"x{r}")[2]) - fvalue(j_star))
        if r in grad_coefs:
            metric = metric + _q(grad_coefs[r]) * sq(pep.part(point(x, f"x{r}")[1], 0))
        if r == R:
            break
        y = x
        grads = []
        for k in range(K):
            g = point(y, f"y0,{r},{k}")[1]
            grads.append(g)
            # g_0 - c_0 + cbar = g - c_dev (cbar is the mean control)
            y = y - eta_l * ((g - c_dev) if controls else g)
        # (1/N) Σ_i y_{i,K} = x - eta_l Σ_k (mean gradient): the deviations and controls cancel
        mean_y = x
        for g in grads:
            mean_y = mean_y - eta_l * pep.part(g, 0)
        x = x + eta_g * (mean_y - x)
        if controls:
            c_mean = mean_vec([pep.part(g, 0) for g in grads])
            c_dev = mean_vec([pep.part(g, 1) for g in grads]) if dev else Vec()
    pep.metric = metric
    pep.N = N
    pep.keep_pair = keep_pair
    return pep.finish()


def lift_multipliers(reduced: BlockPEP, full: ExactPEP, lam) -> list:
    """Multipliers of the full problem from those of :func:`pep_scaffold_symmetric`: λ_k / N on
    each client's copy of inequality k (exact when ``lam`` holds Fractions, floats otherwise).
    Raises ValueError when the two problems do not match (constraint counts)."""
    N = reduced.N
    m = len(reduced.constraints)
    if len(full.constraints) != N * m or len(lam) != m:
        raise ValueError(f"the reduced problem ({m} inequalities, N = {N}) does not match the full one "
                         f"({len(full.constraints)} inequalities)")
    share = [v / N for v in lam]
    return share * N


# --------------------------------------------------------------------------------------------
# one sparse conic problem for Clarabel
# --------------------------------------------------------------------------------------------
@dataclass
class DirectSolution:
    """Outcome of :func:`solve_direct` (floats, numerical at the solver's tolerance).

    worst: the dual value (min τ with a dual certificate of metric ≤ τ·init; an upper bound on
    the supremum up to the tolerance) or None; primal: the primal value (attained by the
    solver's Gram matrix); status: "optimal", "optimal_inaccurate" or another cvxpy-style status;
    multipliers: λ_k ≥ 0, one per ``pep.constraints`` entry; tau: multiplier of init ≤ 1;
    duals: the dual PSD matrix of each block; grams: the primal Gram block of each block;
    seconds: wall time of assembly and solve; solver_tol: the tolerance that produced it."""

    worst: float | None
    primal: float | None
    status: str
    multipliers: np.ndarray | None = None
    tau: float | None = None
    duals: list = field(default_factory=list)
    grams: list = field(default_factory=list)
    seconds: float = 0.0
    solver_tol: float = 0.0
    block_sizes: list = field(default_factory=list)
    generation: dict = field(default_factory=dict)
    x: np.ndarray | None = None


_STATUS = {"Solved": "optimal", "AlmostSolved": "optimal_inaccurate", "PrimalInfeasible": "infeasible",
           "DualInfeasible": "unbounded", "AlmostPrimalInfeasible": "infeasible_inaccurate",
           "AlmostDualInfeasible": "unbounded_inaccurate", "MaxIterations": "user_limit",
           "MaxTime": "user_limit", "NumericalError": "solver_error", "InsufficientProgress": "solver_error"}


def _assemble(pep: ExactPEP):
    """(q, A, b, blocks layout) of: minimise -metric subject to every inequality ≤ 0 (rows 0..m-1),
    init ≤ 1 (row m), each Gram block PSD (rows after: svec, upper triangle column-wise,
    off-diagonal entries scaled by √2 as Clarabel's PSDTriangleConeT)."""
    import scipy.sparse as sp

    n = len(pep.leaves)
    blocks = pep.blocks() if isinstance(pep, BlockPEP) else [list(range(n))]
    pos = {}
    off = []
    nG = 0
    for b, leaves in enumerate(blocks):
        off.append(nG)
        for p, a in enumerate(leaves):
            pos[a] = (b, p)
        nG += len(leaves) * (len(leaves) + 1) // 2
    nF = len(pep.fvalues)
    r2 = 1 / math.sqrt(2)

    def row(form: Form, r, ri, ci, vi):
        for (a, c), v in form.gram.items():
            ba, pa = pos[a]
            bc, pc = pos[c]
            if ba != bc:
                raise ValueError(f"cross-block Gram coefficient ({pep.leaves[a]}, {pep.leaves[c]})")
            i, j = (pa, pc) if pa <= pc else (pc, pa)
            ri.append(r)
            ci.append(off[ba] + j * (j + 1) // 2 + i)
            vi.append(float(v) * (1.0 if i == j else r2))
        for jf, v in form.fval.items():
            ri.append(r)
            ci.append(nG + jf)
            vi.append(float(v))

    ri, ci, vi = [], [], []
    cons = pep.constraints
    m = len(cons)
    b = np.zeros(m + 1 + nG)
    for r, (_, form) in enumerate(cons):
        row(form, r, ri, ci, vi)
        b[r] = -float(form.const)
    row(pep.init, m, ri, ci, vi)
    b[m] = 1.0 - float(pep.init.const)
    ri += list(range(m + 1, m + 1 + nG))
    ci += list(range(nG))
    vi += [-1.0] * nG
    A = sp.csr_matrix((vi, (ri, ci)), shape=(m + 1 + nG, nG + nF))
    qr, qc, qv = [], [], []
    row(pep.metric, 0, qr, qc, qv)
    q = np.zeros(nG + nF)
    np.add.at(q, np.array(qc, dtype=int), -np.array(qv))
    return q, A, b, (blocks, off, nG, m)


def _smat(v, k):
    M = np.zeros((k, k))
    t = 0
    for j in range(k):
        for i in range(j + 1):
            M[i, j] = M[j, i] = v[t] if i == j else v[t] / math.sqrt(2)
            t += 1
    return M


def neighbour_pair(a: int, b: int) -> bool:
    """The interpolation inequalities kept by the relaxation: pairs of point indices involving a
    function's first point (x⋆ in the builders here) or consecutive points (in the order the
    method visits them). Dropping the others gives an upper bound on the worst case (sound for a
    hold and for a certificate, never for a violation); on the SCAFFOLD instances measured it
    equals the full value within the solver's tolerance (tests/test_engines_pep_direct.py)."""
    return a == 0 or b == 0 or abs(a - b) == 1


def starting_rows(pep: ExactPEP) -> list:
    """Indices of the inequalities the constraint generation starts from: per function the pairs
    of :func:`neighbour_pair`, plus every extra constraint (all rows when ``pep.keep_pair`` is
    already set: the problem is the relaxation itself)."""
    if pep.keep_pair is not None:
        return list(range(len(pep.constraints)))
    out, k = [], 0
    for f in pep.functions:
        p = len(f.points)
        for a in range(p):
            for b in range(p):
                if a == b:
                    continue
                if neighbour_pair(a, b):
                    out.append(k)
                k += 1
    return out + list(range(k, len(pep.constraints)))


def solve_direct(pep: ExactPEP, *, tol: float = 1e-6, options: dict | None = None, retry: bool = True,
                 generate: bool = False, max_rounds: int = 30) -> DirectSolution:
    """Solve sup metric subject to the inequalities, init ≤ 1 and G ⪰ 0 (block by block for a
    :class:`BlockPEP`) with Clarabel, from a sparse matrix assembled straight from the exact
    forms (coefficients rounded to floats: the answer is numerical).

    ``generate`` (constraint generation): solve with the inequalities of :func:`starting_rows`
    only, evaluate every inequality at the solver's primal point, add those violated by more than
    10·tol·max(1, |primal value|) and solve again, until none is. Each
    intermediate problem is a relaxation, so its dual value is an upper bound on the full
    problem's (sound for a ``holds (numerical)`` verdict); at the end the primal point satisfies
    every inequality within the tolerance, so primal and dual value are the full problem's within
    the tolerance (``details["generation"]`` records rounds and rows). If the rounds run out, the
    status is ``"relaxation_only"``: the value is an upper bound only (never a violation).

    ``tol``: Clarabel's gap and feasibility tolerances; ``optimal_inaccurate`` at ``tol`` is
    retried once at 10·tol unless ``options`` (Clarabel settings overriding these) were given or
    ``retry`` is False. The factorisation is the one pinned for the PEPit path
    (:data:`.solver.CLARABEL_FACTORIZATION`). Never raises on a solver failure: the status says
    what happened."""
    t0 = time.perf_counter()
    q, A, b, layout = _assemble(pep)
    m = layout[3]
    rows = starting_rows(pep) if generate else list(range(m))
    rounds = 0
    while True:
        rounds += 1
        out = _solve_rows(q, A, b, layout, rows, tol, options)
        if retry and not options and out.status == "optimal_inaccurate":
            out = _solve_rows(q, A, b, layout, rows, 10 * tol, options)
        if not generate or out.status != "optimal" or len(rows) == m:
            break
        viol = A[:m] @ out.x - b[:m]
        thresh = 10 * out.solver_tol * max(1.0, abs(out.primal or 0.0))
        have = set(rows)
        new = [k for k in np.nonzero(viol > thresh)[0].tolist() if k not in have]
        if not new:
            break
        if rounds >= max_rounds:
            out.status = "relaxation_only"
            break
        rows = sorted(have.union(new))
    c = float(pep.metric.const)
    if out.worst is not None:
        out.worst += c
    if out.primal is not None:
        out.primal += c
    out.seconds = time.perf_counter() - t0
    out.generation = {"rounds": rounds, "rows": len(rows), "inequalities": m}
    return out


def _solve_rows(q, A, b, layout, rows, tol, options) -> DirectSolution:
    import clarabel
    import scipy.sparse as sp


    blocks, off, nG, m = layout
    t0 = time.perf_counter()
    sel = np.array(list(rows) + list(range(m, A.shape[0])), dtype=int)
    As, bs = A[sel].tocsc(), b[sel]
    ms = len(rows)
    cones = [clarabel.NonnegativeConeT(ms + 1)] + [clarabel.PSDTriangleConeT(len(lv)) for lv in blocks]
    sizes = [len(lv) for lv in blocks]
    try:
        st = clarabel.DefaultSettings()
        st.verbose = False
        for k, v in _solver_kwargs("CLARABEL", tol, options).items():
            setattr(st, k, v)   # an unknown option raises here: reported as the status
        solver = clarabel.DefaultSolver(sp.csc_matrix((len(q), len(q))), q, As, bs, cones, st)
        sol = solver.solve()
    except Exception as exc:  # solver failure: a status, never an exception
        return DirectSolution(None, None, f"error: {type(exc).__name__}: {exc}"[:200],
                              seconds=time.perf_counter() - t0, solver_tol=tol, block_sizes=sizes)
    status = _STATUS.get(str(sol.status), str(sol.status))
    ok = status in ("optimal", "optimal_inaccurate")
    worst = -float(sol.obj_val_dual) if ok else None
    primal = -float(sol.obj_val) if ok else None
    if worst is not None and not np.isfinite(worst):
        worst, status = None, "optimal but no finite value"
    z = np.asarray(sol.z)
    x = np.asarray(sol.x)
    lam = np.zeros(m)
    lam[np.array(rows, dtype=int)] = np.maximum(z[:ms], 0.0)
    duals = [_smat(z[ms + 1 + off[k]: ms + 1 + off[k] + s * (s + 1) // 2], s) for k, s in enumerate(sizes)]
    grams = [_smat(x[off[k]: off[k] + s * (s + 1) // 2], s) for k, s in enumerate(sizes)]
    out = DirectSolution(worst, primal, status, multipliers=lam, tau=float(z[ms]), duals=duals, grams=grams,
                         seconds=time.perf_counter() - t0, solver_tol=tol, block_sizes=sizes)
    out.x = x
    return out
