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
Client indices are 0-based.

Source: Karimireddy, Kale, Mohri, Reddi, Stich, Suresh, "SCAFFOLD: Stochastic Controlled
Averaging for Federated Learning", ICML 2020, arXiv:1910.06378v4, Algorithm 1 (PDF p. 4),
Appendix E equations (18)-(22) and Remark 10 (PDF pp. 25-26), final warm-start paragraph
of Appendix E.2 (PDF p. 35); seeds 000 and 002.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..sampling import sample_clients
from .common import (Trajectory, as_global_step_run, as_step, call_oracle, check_c0, check_divergence,
                     check_oracle, check_problem, check_rounds, check_x0, replicate_blocks,
                     seed_of, split_streams)

__all__ = ["scaffold", "scaffold_run"]


def scaffold(problem, oracle, *, S, K, T, eta_l, eta_g, option="II", x0=None, c0=None, R=1,
             rng, record_controls=False) -> Trajectory:
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
    Only the S selected clients are computed: their states are gathered as (R, S, d) and the
    oracle is called with the (R, S) index array ``clients`` (with ``clients=None`` when S = N).

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
        stream serves, per round, the K local steps (each one pass over the (R, S, d) batch,
        issued as calls on consecutive replicate blocks: for an oracle drawing in C order,
        such as GaussianOracle, the same numbers as one call, see
        ``pyfed.algorithms.common.BLOCK_ENTRIES``) followed, for option I, by one call at x
        on (R, S, d). Same seed -> same run.
    record_controls : bool
        Keep c_history (R, T+1, N, d) and c_server_history (R, T+1, d).

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
    seed = seed_of(rng)
    sampling_rng, oracle_rng = split_streams(rng)
    N, d = problem.N, problem.d

    x = np.empty((R, T + 1, d))
    x[:, 0] = x0a
    C = np.zeros((R, N, d)) if c0a is None else np.repeat(c0a[None], R, axis=0)
    c = C.mean(axis=1)  # c^0 = N^-1 sum_i c_i^0; afterwards a separate state
    samples = np.empty((R, T, S), dtype=np.int64)
    c_hist = cs_hist = None
    if record_controls:
        c_hist = np.empty((R, T + 1, N, d))
        cs_hist = np.empty((R, T + 1, d))
        c_hist[:, 0] = C
        cs_hist[:, 0] = c
    full = S == N
    rows = np.arange(R)[:, None]
    inv_K_eta = 1.0 / (K * eta_l_f)
    blocks = replicate_blocks(R, S * d)
    frac = S / N

    for r in range(T):
        sel = sample_clients(sampling_rng, N, S, R)  # (R, S), sorted rows
        samples[:, r] = sel
        clients = None if full else sel
        xr = x[:, r]  # (R, d)
        c_sel = C if full else C[rows, sel]  # (R, S, d): c_i of the selected clients
        corr = c[:, None, :] - c_sel  # -c_i + c
        y = np.repeat(xr[:, None, :], S, axis=1)  # y_{i,0} = x
        for _ in range(K):
            for b in blocks:  # same draws as one call on the whole batch (see BLOCK_ENTRIES)
                yb = y[b]
                g = call_oracle(oracle, yb, oracle_rng, None if full else sel[b])
                g += corr[b]
                g *= eta_l_f
                yb -= g  # y <- y - eta_l (g_i(y) - c_i + c)
        if option == "I":
            c_plus = call_oracle(oracle, np.repeat(xr[:, None, :], S, axis=1), oracle_rng, clients)
        else:
            c_plus = (xr[:, None, :] - y) * inv_K_eta - corr  # c_i - c + (x - y_K)/(K eta_l)
        delta_x = (y - xr[:, None, :]).mean(axis=1)
        delta_c = (c_plus - c_sel).mean(axis=1)
        x[:, r + 1] = xr + eta_g_f * delta_x
        c = c + frac * delta_c
        if full:
            C = c_plus
        else:
            C[rows, sel] = c_plus
        check_divergence(r, x[:, r + 1])
        check_divergence(r, C, quantity="controls")
        if record_controls:
            c_hist[:, r + 1] = C
            cs_hist[:, r + 1] = c

    meta = {"algorithm": "scaffold", "procedure": "seed 002 (Algorithm 1)", "option": option,
            "S": S, "K": K, "T": T, "N": N, "d": d, "eta_l": eta_l, "eta_g": eta_g, "R": R,
            "c0": "zeros" if c0a is None else "given", "oracle": oracle.describe(),
            "problem": getattr(problem, "name", "problem"), "seed": seed}
    return Trajectory(x=x, c=C, c_history=c_hist, samples=samples, meta=meta, c_server=c,
                      c_server_history=cs_hist)


def scaffold_run(problem, oracle, *, S, K, T, eta_l, eta_g, x0=None, c0=None, R=1, rng,
                 record_controls=False) -> Trajectory:
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
        (one ``sample_clients(.., size=R)`` per round, after that round's paths); the
        *oracle* stream serves the K warm-start passes (only if c0 is None, each over the
        (R, N, d) batch at x0) and then, per round, the K path passes over (R, N, d) (each
        pass issued in replicate blocks as in :func:`scaffold`).

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
    seed = seed_of(rng)
    sampling_rng, oracle_rng = split_streams(rng)
    N, d = problem.N, problem.d

    x = np.empty((R, T + 1, d))
    x[:, 0] = x0a
    if c0a is None:  # warm start: K fresh samples at x0 for every client
        X0 = np.repeat(np.repeat(x0a[None, None, :], N, axis=1), R, axis=0)
        gsum = np.zeros((R, N, d))
        for _ in range(K):
            for b in replicate_blocks(R, N * d):
                gsum[b] += call_oracle(oracle, X0[b], oracle_rng, None)
        C = gsum / K
    else:
        C = np.repeat(c0a[None], R, axis=0)
    samples = np.empty((R, T, S), dtype=np.int64)
    c_hist = None
    if record_controls:
        c_hist = np.empty((R, T + 1, N, d))
        c_hist[:, 0] = C
    rows = np.arange(R)[:, None]
    step_g = eta_g_f / S
    blocks = replicate_blocks(R, N * d)

    for r in range(T):
        xr = x[:, r]
        corr = C.mean(axis=1)[:, None, :] - C  # c^r - c_i^r, (R, N, d)
        y = np.repeat(xr[:, None, :], N, axis=1)
        gsum = np.zeros((R, N, d))
        for _ in range(K):
            for b in blocks:
                yb = y[b]
                g = call_oracle(oracle, yb, oracle_rng, None)
                gsum[b] += g
                g += corr[b]
                g *= eta_l_f
                yb -= g
        sel = sample_clients(sampling_rng, N, S, R)  # drawn after the virtual paths
        samples[:, r] = sel
        C[rows, sel] = gsum[rows, sel] / K
        x[:, r + 1] = xr + step_g * (y[rows, sel] - xr[:, None, :]).sum(axis=1)
        check_divergence(r, x[:, r + 1])
        check_divergence(r, C, quantity="controls")
        if record_controls:
            c_hist[:, r + 1] = C

    meta = {"algorithm": "scaffold_run", "procedure": "seed 000 Run model (option II, average-gradient form)",
            "S": S, "K": K, "T": T, "N": N, "d": d, "eta_l": eta_l, "eta_g": eta_g, "R": R,
            "c0": "warm start (K samples at x0)" if c0a is None else "given",
            "oracle": oracle.describe(), "problem": getattr(problem, "name", "problem"), "seed": seed}
    return Trajectory(x=x, c=C, c_history=c_hist, samples=samples, meta=meta,
                      c_server=C.mean(axis=1),
                      c_server_history=None if c_hist is None else c_hist.mean(axis=2))
