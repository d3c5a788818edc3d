"""SCAFFOLD (Karimireddy et al., ICML 2020): the one place for the SCAFFOLD update.

Two simulators, vectorised over R independent replicates:

* :func:`scaffold` - the procedure of seed 002 (Algorithm 1 of the paper, options I and II):
  sample S_r first, run K controlled local steps on the selected clients only, update the
  server control by c <- c + (S/N) Delta c (a separate state variable, not recomputed).
* :func:`scaffold_run` - the seed-000 ``Run`` model of the Lean theorem
  ``SCAFFOLD.ConvexFiniteRoundConvergence``: every round all N clients compute *virtual*
  paths from x^r, then the S-subset is drawn (independently of the paths), the selected
  clients' controls become the average of their K oracle samples (option II in
  average-gradient form, Appendix E), and x^{r+1} = x^r + (eta_g/S) sum_{i in S_r}(y_{i,K} - x^r).

Shapes: R replicates, N clients, S clients per round, K local steps, T rounds, d dimension.
Client indices are 0-based. For quadratic clients with a Gaussian (or exact) oracle both
simulators use the closed-form law of a round by default (:mod:`pyfed.algorithms.rounds`);
``method="steps"`` runs the K local steps one by one.

Source: Karimireddy, Kale, Mohri, Reddi, Stich, Suresh, "SCAFFOLD: Stochastic Controlled
Averaging for Federated Learning", ICML 2020, arXiv:1910.06378v4, Algorithm 1 (PDF p. 4),
Appendix E equations (18)-(22) and Remark 10 (PDF pp. 25-26), final warm-start paragraph
of Appendix E.2 (PDF p. 35); seeds 000 and 002.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np
from numpy.typing import ArrayLike

from ..blas import small_matrix_kernel
from ..errors import InputError
from ..sampling import sample_clients
from .common import (
    DIVERGENCE_THRESHOLD,
    Trajectory,
    as_global_step_run,
    as_step,
    check_c0,
    check_divergence,
    check_oracle,
    check_problem,
    check_rounds,
    check_x0,
    seed_of,
    split_streams,
)
from .rounds import Slots, local_path_law, step_displacements, step_fresh_samples

if TYPE_CHECKING:
    from ..oracles import Oracle
    from ..problems.base import Problem

__all__ = ["scaffold", "scaffold_run"]


def _check_controls(r, values, slots=None):
    """:func:`check_divergence` of the controls a round set (the others were checked when they
    were set): a max/min scan of the slots, and the replicate-major view (for the replicate the
    error names) only when that scan fails."""

    if values.size and max(float(values.max()), -float(values.min())) <= DIVERGENCE_THRESHOLD:
        return  # (False for NaN)
    check_divergence(r, values if slots is None else slots.to_slots(values), quantity="controls")


@small_matrix_kernel
def scaffold(problem: Problem, oracle: Oracle, *, S: int, K: int, T: int, eta_l: ArrayLike, eta_g: float,
             option: Literal["I", "II"] = "II", x0: ArrayLike | None = None, c0: ArrayLike | None = None,
             R: int = 1, rng: np.random.Generator, record_controls: bool = False,
             method: Literal["auto", "closed_form", "steps"] = "auto") -> Trajectory:
    """Simulate SCAFFOLD as the seed-002 procedure (Algorithm 1, options I and II).

    Round r = 0..T-1 of each replicate, with x = x_r, c = c^r, c_i = c_i^r:

    1. draw a uniform S-subset S_r of the N clients (:func:`pyfed.sampling.sample_clients`);
    2. every selected client i sets y_{i,0} = x and, for k = 1..K,
       y_{i,k} = y_{i,k-1} - eta_l (g_i(y_{i,k-1}) - c_i + c), one fresh oracle sample each;
    3. option "I": c_i+ = g_i(x), one more fresh oracle sample at the round-start x;
       option "II": c_i+ = c_i - c + (K eta_l)^-1 (x - y_{i,K});
    4. Delta x = (1/S) sum_{i in S_r} (y_{i,K} - x), Delta c = (1/S) sum_{i in S_r} (c_i+ - c_i);
       x_{r+1} = x + eta_g Delta x, c^{r+1} = c + (S/N) Delta c; selected c_i^{r+1} = c_i+,
       unselected clients keep c_i.

    The server control c is a separate state (c^0 = mean_i c_i^0), updated only by step 4,
    so ``c^r = mean_i c_i^r`` is a property of the procedure (seed 002), not an assumption.
    Only the S selected clients are computed: once per round the selected (replicate, client)
    slots are grouped client-major (:class:`pyfed.algorithms.rounds.Slots`: (N, R, d) when
    S = N, the R*S slots sorted by client when S < N), and the oracle is called on that layout
    with ``clients`` naming each slot's client.

    Parameters
    ----------
    problem : pyfed.problems.Problem
        N clients in dimension d.
    oracle : pyfed.oracles.Oracle
        Stochastic gradient oracle g_i of ``problem`` (``oracle.problem is problem``).
    S, K, T : int
        Clients per round (1 <= S <= N), local steps (>= 1), rounds (>= 1).
    eta_l, eta_g : positive reals
        Local and global step sizes (> 0; exact rationals such as "1/81" accepted).
    option : "I" or "II"
        Control update option of Algorithm 1.
    x0 : array (d,) | None
        Start point x_0 (default zeros).
    c0 : array (N, d) | None
        Initial client controls c_i^0 (default zeros, as seed 002 permits).
    R : int
        Number of independent replicates (>= 1).
    rng : numpy.random.Generator | int
        Randomness. Two child streams are spawned (``rng.spawn(2)``): the *sampling* stream
        draws S_0, S_1, ... (one ``sample_clients(.., size=R)`` per round); the *oracle*
        stream serves the local paths. Step by step: per round K passes over the selected
        (replicate, client) slots in client-major layout (:class:`pyfed.algorithms.rounds.Slots`;
        each pass one oracle call, split into blocks of consecutive rows only beyond
        ``pyfed.algorithms.rounds.CLIENT_BLOCK_ENTRIES`` entries: for an oracle drawing in C
        order, such as GaussianOracle, the same numbers as one call), then for option I one
        call at x on the same layout. Closed form: one standard normal vector per selected slot
        and round (and one more for option I), see :meth:`pyfed.algorithms.rounds.Slots.normals`.
        Same seed and method -> same run.
    record_controls : bool
        Keep c_history (R, T+1, N, d) and c_server_history (R, T+1, d).
    method : "auto" | "closed_form" | "steps"
        How the K local steps are simulated. "auto" (default): for a QuadraticProblem with a
        GaussianOracle or ExactOracle, the closed-form law of the round (:mod:`pyfed.algorithms.rounds`:
        the affine map D_i^K once and one Gaussian per client with the exact covariance of the
        accumulated local noise; the same law as the steps, not the same draws); step by step
        otherwise. "steps" forces the step-by-step path, "closed_form" demands the closed form.
        ``meta["path"]`` records which one ran.

    Returns
    -------
    Trajectory
        x (R, T+1, d); c (R, N, d) final client controls; c_server (R, d) final server
        control; samples (R, T, S); histories if requested; meta.

    Raises
    ------
    InputError
        Invalid S, K, T, R, eta_l, eta_g, option, x0, c0, problem, oracle or rng (the error
        names the argument).
    pyfed.errors.Diverged
        The iterate or the controls produced by round r became NaN/inf or exceeded
        :data:`pyfed.algorithms.common.DIVERGENCE_THRESHOLD` (typically a step size far beyond the
        hypotheses); ``exc.round``, ``exc.magnitude`` say where. Nothing is returned then.
    """
    problem = check_problem(problem)
    oracle = check_oracle(oracle, problem)
    S, K, T, R = check_rounds(problem, S, K, T, R)
    eta_l_f = as_step("eta_l", eta_l)
    eta_g_f = as_step("eta_g", eta_g)
    if option not in ("I", "II"):
        raise InputError("option", f"must be 'I' or 'II', got {option!r}")
    x0a = check_x0(problem, x0)
    c0a = check_c0(problem, c0)
    law = local_path_law(problem, oracle, eta_l_f, K, method)
    seed = seed_of(rng)
    sampling_rng, oracle_rng = split_streams(rng)
    N, d = problem.N, problem.d

    x = np.empty((R, T + 1, d))
    x[:, 0] = x0a
    # client controls, client-major (N, R, d): c_i^r of every replicate
    C = np.zeros((N, R, d)) if c0a is None else np.repeat(c0a[:, None, :], R, axis=1)
    c = C.mean(axis=0)  # c^0 = N^-1 sum_i c_i^0; afterwards a separate state
    samples = np.empty((R, T, S), dtype=np.int64)
    c_hist = cs_hist = None
    if record_controls:
        c_hist = np.empty((R, T + 1, N, d))
        cs_hist = np.empty((R, T + 1, d))
        c_hist[:, 0] = np.swapaxes(C, 0, 1)
        cs_hist[:, 0] = c
    full = S == N
    inv_K_eta = 1.0 / (K * eta_l_f)
    frac = S / N

    for r in range(T):
        sel = sample_clients(sampling_rng, N, S, R)  # (R, S), sorted rows
        samples[:, r] = sel
        slots = Slots(None if full else sel, N, R)  # the selected clients, client-major
        xr = x[:, r]  # (R, d)
        c_sel = slots.gather(C)  # c_i of the selected clients
        c_rep = slots.per_replicate(c)  # c of each slot's replicate; the correction is c - c_i
        if law is not None:
            v = law.displacements(xr, (c_rep, c_sel), slots, oracle_rng)  # y_{i,K} - x
        else:
            v = step_displacements(oracle, oracle_rng, slots, slots.per_replicate(xr), c_rep - c_sel, K, eta_l_f)
        delta_x = slots.replicate_sum(v) / S
        if option == "I":
            c_plus = (law.fresh_samples(xr, slots, oracle_rng) if law is not None
                      else step_fresh_samples(oracle, oracle_rng, slots, slots.per_replicate(xr)))
            delta_c = slots.replicate_sum(c_plus - c_sel) / S
        else:
            # c_i+ = c_i - c + (x - y_K)/(K eta_l), so c_i+ - c_i = -(y_K - x)/(K eta_l) - c
            v *= inv_K_eta
            c_plus = c_sel - c_rep
            c_plus -= v
            delta_c = -delta_x * inv_K_eta - c
        x[:, r + 1] = xr + eta_g_f * delta_x
        c = c + frac * delta_c
        slots.scatter(C, c_plus)
        check_divergence(r, x[:, r + 1])
        _check_controls(r, c_plus, slots)  # the controls this round changed
        if record_controls:
            c_hist[:, r + 1] = np.swapaxes(C, 0, 1)
            cs_hist[:, r + 1] = c

    meta = {"algorithm": "scaffold", "procedure": "seed 002 (Algorithm 1)", "option": option,
            "S": S, "K": K, "T": T, "N": N, "d": d, "eta_l": eta_l, "eta_g": eta_g, "R": R,
            "c0": "zeros" if c0a is None else "given", "oracle": oracle.describe(),
            "problem": getattr(problem, "name", "problem"), "seed": seed,
            "path": "closed form" if law is not None else "step by step"}
    return Trajectory(x=x, c=np.ascontiguousarray(np.swapaxes(C, 0, 1)), c_history=c_hist, samples=samples,
                      meta=meta, c_server=c, c_server_history=cs_hist)


@small_matrix_kernel
def scaffold_run(problem: Problem, oracle: Oracle, *, S: int, K: int, T: int, eta_l: ArrayLike, eta_g: float,
                 x0: ArrayLike | None = None, c0: ArrayLike | None = None, R: int = 1, rng: np.random.Generator,
                 record_controls: bool = False, method: Literal["auto", "closed_form", "steps"] = "auto") -> Trajectory:
    """Simulate the seed-000 ``Run`` model of SCAFFOLD (Lean ``SCAFFOLD.Run``).

    Initial controls: ``c0`` if given (deterministic, Lean ``some c0``); if ``None`` the
    warm start c_i^0 = (1/K) sum_{k<K} W_{k,i} with K fresh oracle samples W_{k,i} at x0 for
    every client (these N*K queries precede round 0 and are not counted among the T rounds).

    Round r = 0..T-1, with c^r = (1/N) sum_i c_i^r:

    1. virtual paths of all N clients: y_{i,0} = x^r,
       y_{i,k+1} = y_{i,k} - eta_l (g_{i,k} - c_i^r + c^r), k = 0..K-1, g_{i,k} a fresh sample;
    2. then a uniform S-subset I_r is drawn, independent of the paths;
    3. c_i^{r+1} = (1/K) sum_{k<K} g_{i,k} for i in I_r, c_i^{r+1} = c_i^r otherwise;
    4. x^{r+1} = x^r + (eta_g / S) sum_{i in I_r} (y_{i,K} - x^r).

    Parameters
    ----------
    problem, oracle, S, K, T, x0, R, record_controls
        As in :func:`scaffold`.
    eta_l : real > 0
        Local step size.
    eta_g : real >= 1
        Global step size, eta_g >= 1 as seed 000 defines a run (in Lean this is a hypothesis of
        the theorems, not a field of ``Run``).
    c0 : array (N, d) | None
        Given initial controls, or ``None`` for the K-sample warm start at x0.
    rng : numpy.random.Generator | int
        Two child streams (``rng.spawn(2)``): the *sampling* stream draws I_0, I_1, ...
        (one ``sample_clients(.., size=R)`` per round); the *oracle* stream serves the
        warm start (only if c0 is None) and the paths. Step by step: K warm-start passes at
        x0 over the client-major (N, R, d) batch, then per round the K path passes of all N
        clients over (N, R, d) (in client blocks as in :func:`scaffold`), the round's sample
        being drawn after its paths. Closed form: the warm start is one standard normal
        (N, R, d) draw (mean of K samples = grad f_i(x0) + N(0, sigma^2/(d K) I)); per round the
        sample is drawn first and only the S selected paths are computed (the sample is
        independent of the paths, and unselected paths are discarded, so the law is the same),
        one standard normal vector per selected slot.
    method : "auto" | "closed_form" | "steps"
        As in :func:`scaffold`.

    Returns
    -------
    Trajectory
        x (R, T+1, d); c (R, N, d) final controls; c_server = mean_i c_i^T (R, d);
        samples (R, T, S); c_history (R, T+1, N, d) and c_server_history if requested.

    Raises
    ------
    InputError
        As :func:`scaffold`, and eta_g < 1.
    pyfed.errors.Diverged
        As :func:`scaffold` (checked on x^{r+1} and the controls after every round).
    """
    problem = check_problem(problem)
    oracle = check_oracle(oracle, problem)
    S, K, T, R = check_rounds(problem, S, K, T, R)
    eta_l_f = as_step("eta_l", eta_l)
    eta_g_f = as_global_step_run(eta_g)
    x0a = check_x0(problem, x0)
    c0a = check_c0(problem, c0)
    law = local_path_law(problem, oracle, eta_l_f, K, method)
    seed = seed_of(rng)
    sampling_rng, oracle_rng = split_streams(rng)
    N, d = problem.N, problem.d

    x = np.empty((R, T + 1, d))
    x[:, 0] = x0a
    every = Slots(None, N, R)  # all N clients of every replicate, client-major (N, R, d)
    if c0a is None:  # warm start: K fresh samples at x0 for every client
        X0 = every.per_replicate(np.broadcast_to(x0a, (R, d)))
        if law is not None:  # (1/K) sum of K samples = grad f_i(x0) + N(0, s^2/K I)
            C = np.matmul(X0[:1], law.A) - law.b[:, None, :]  # (N, R, d)
            if law.scale:
                C += (law.scale / np.sqrt(K)) * every.normals(oracle_rng, d)
        else:
            gsum = np.zeros((N, R, d))
            for _ in range(K):
                gsum += step_fresh_samples(oracle, oracle_rng, every, X0)
            C = gsum / K
    else:
        C = np.repeat(c0a[:, None, :], R, axis=1)  # client-major (N, R, d)
    samples = np.empty((R, T, S), dtype=np.int64)
    c_hist = None
    if record_controls:
        c_hist = np.empty((R, T + 1, N, d))
        c_hist[:, 0] = np.swapaxes(C, 0, 1)
    rows = np.arange(R)[:, None]
    step_g = eta_g_f / S
    inv_K_eta = 1.0 / (K * eta_l_f)

    for r in range(T):
        xr = x[:, r]
        cbar = C.mean(axis=0)  # c^r = mean_i c_i^r, (R, d)
        if law is not None:
            # closed form: only the sampled clients' end points matter, and the sample is
            # independent of the paths, so draw it first and compute the S selected paths
            sel = sample_clients(sampling_rng, N, S, R)
            slots = Slots(None if S == N else sel, N, R)
            c_rep, c_sel = slots.per_replicate(cbar), slots.gather(C)  # correction c^r - c_i^r
            v = law.displacements(xr, (c_rep, c_sel), slots, oracle_rng)  # y_{i,K} - x^r
            x[:, r + 1] = xr + step_g * slots.replicate_sum(v)
            v *= inv_K_eta
            c_new = c_sel - c_rep
            c_new -= v  # (x - y_K)/(K eta_l) - (c^r - c_i^r) = (1/K) sum_k g_{i,k} (module rounds)
            slots.scatter(C, c_new)
            changed = (c_new, slots)  # the controls this round set
        else:
            X = every.per_replicate(xr)
            corr = every.per_replicate(cbar) - C
            gsum = np.zeros((N, R, d))
            v = step_displacements(oracle, oracle_rng, every, X, corr, K, eta_l_f, gsum=gsum)
            sel = sample_clients(sampling_rng, N, S, R)  # drawn after the virtual paths
            new = gsum[sel, rows] / K  # (R, S, d)
            C[sel, rows] = new
            changed = (new, None)
            x[:, r + 1] = xr + step_g * v[sel, rows].sum(axis=1)
        samples[:, r] = sel
        check_divergence(r, x[:, r + 1])
        _check_controls(r, *changed)  # unselected controls did not change
        if record_controls:
            c_hist[:, r + 1] = np.swapaxes(C, 0, 1)

    Cr = np.ascontiguousarray(np.swapaxes(C, 0, 1))
    meta = {"algorithm": "scaffold_run", "procedure": "seed 000 Run model (option II, average-gradient form)",
            "S": S, "K": K, "T": T, "N": N, "d": d, "eta_l": eta_l, "eta_g": eta_g, "R": R,
            "c0": "warm start (K samples at x0)" if c0a is None else "given",
            "oracle": oracle.describe(), "problem": getattr(problem, "name", "problem"), "seed": seed,
            "path": "closed form" if law is not None else "step by step"}
    return Trajectory(x=x, c=Cr, c_history=c_hist, samples=samples, meta=meta,
                      c_server=Cr.mean(axis=1),
                      c_server_history=None if c_hist is None else c_hist.mean(axis=2))
