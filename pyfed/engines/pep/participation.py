"""PEP of SCAFFOLD / FedAvg with partial participation (S < N) and stochastic gradients (σ > 0).

Partial participation. The round's subset I_r is uniform over the C = C(N, S) subsets and
independent of the round's paths, so E[metric] is the average over the C^R subset sequences
(R: the last round the metric reads; for weightedGap R = T - 1, since I_{T-1} moves only x^T)
of the metric of the run along each sequence. The PEP carries the whole tree of sequences: one
iterate x^r and one set of controls per node (a prefix of the sequence), shared by the sequences
that share the prefix; the same client functions, x⋆, x⁰ and initial controls for all. Metric =
Σ_nodes C^-r (metric terms of round r at that node); every point of every branch is a point of the
same client functions, so the interpolation inequalities couple all of them. For deterministic
gradients this is exact (the PEP of a finite average of deterministic runs).

The round follows the seed-000 ``Run`` model (:func:`pyfed.algorithms.scaffold.scaffold_run`):
virtual paths of all N clients from x^r, y_{i,k+1} = y_{i,k} - ηl (g_{i,k} - c_i + c̄), computed
before the subset is drawn (shared by the node's children); then for each subset B: c_i ← (1/K)
Σ_k g_{i,k} for i ∈ B (other controls persist) and x^{r+1} = x^r + (ηg/S) Σ_{i∈B} (y_{i,K} - x^r).
FedAvg (``controls=False``, seed 002 uniform mode, :func:`pyfed.algorithms.fedavg.fedavg`) draws
the subset first and runs the selected clients' paths only, inside each child.

Stochastic gradients: :mod:`.stochastic` (a relaxation; certificates are sound, a PEP value above
the claim is not a counterexample).

With S = N and σ = 0 the builder makes exactly the problem of
:func:`.exact_pep.pep_scaffold_exact` (same leaves, values and constraints, in the same order).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from ...errors import InputError, check_int
from .exact_pep import ExactPEP, Form, Vec, _q, _sum_forms, mean_vec, sq
from .stochastic import NoiseLedger

__all__ = ["MAX_GRAM_LEAVES", "tree_size", "check_tree_size", "pep_scaffold_wide_exact"]

#: The largest Gram basis (leaf vectors) the branching PEP is built for: the SDP's size grows like
#: C(N, S)^R; beyond this an InputError says so before anything is built. Measured (2 shared cores,
#: load ~5): 18 leaves (N = 2, S = 1, K = 2, T = 2, σ > 0) solve 0.2 s, with certificate 0.6 s;
#: 38 leaves (same, T = 3) 5.5 s and 104 s; 46 leaves (N = 3, S = 1, K = 1, T = 3) 7 s and 320 s,
#: the exact LDLᵀ of the certificate's matrix taking most of it.
MAX_GRAM_LEAVES = 48


def tree_size(N: int, S: int, K: int, R: int, *, noisy: bool, controls: bool = True) -> dict:
    """Sizes of the branching PEP: ``sequences`` C(N,S)^R, ``nodes`` (Σ_{r≤R} C^r) and ``leaves``
    (the Gram basis: x⋆, N-1 gradients at x⋆, x⁰, N controls (SCAFFOLD), u (σ > 0), per non-final
    node N·K gradient leaves (+ N·K noises), per final node N gradient leaves; an upper estimate
    for FedAvg, whose paths are per child)."""
    C = math.comb(N, S)
    inner_nodes = sum(C**r for r in range(R))
    per = N * K * (2 if noisy else 1)
    if not controls:
        per = C * S * K * (2 if noisy else 1)
    leaves = 2 + (N - 1) + (N if controls else 0) + (1 if noisy else 0) + inner_nodes * per + C**R * N
    return {"sequences": C**R, "nodes": inner_nodes + C**R, "leaves": leaves}


def check_tree_size(N: int, S: int, K: int, R: int, *, noisy: bool, controls: bool = True,
                    limit: int = MAX_GRAM_LEAVES) -> dict:
    """:func:`tree_size`, or InputError (argument ``T``) when the Gram basis would exceed ``limit``."""
    size = tree_size(N, S, K, R, noisy=noisy, controls=controls)
    if size["leaves"] > limit:
        raise InputError("T", f"the PEP over subset sequences (N = {N}, S = {S}, K = {K}, {R} branching rounds, "
                              f"{'σ > 0' if noisy else 'σ = 0'}) has {size['sequences']} sequences and about "
                              f"{size['leaves']} Gram leaves, above the limit {limit}; lower T, N or K")
    return size


def pep_scaffold_wide_exact(N: int, S: int, K: int, eta_l, eta_g, beta, mu, gap_coefs: dict, grad_coefs: dict,
                            pot_coef, noise_coef=None, *, controls: bool = True,
                            limit: int = MAX_GRAM_LEAVES) -> ExactPEP:
    """SCAFFOLD (seed-000 ``Run``, option II) or FedAvg (``controls=False``) with S of N clients per
    round and, when ``noise_coef`` is not None, stochastic gradients (σ > 0, :mod:`.stochastic`).

    metric = E[Σ_r gap_coefs[r] (F(x^r) - F⋆) + Σ_r grad_coefs[r] ‖∇F(x^r)‖²] (the average over
    subset sequences, module docstring); init = ‖x⁰ - x⋆‖² + pot_coef·(1/N) Σ_i ‖c_i⁰ - ∇f_i(x⋆)‖²
    (+ noise_coef·σ² when σ > 0, with σ² = ‖u‖² for a leaf u). The claim to certify is metric ≤
    τ·init. All coefficients exact rationals; 1 ≤ S ≤ N.

    Raises InputError for S outside 1..N or a problem above ``limit`` Gram leaves
    (:func:`check_tree_size`)."""
    N = check_int("N", N, minimum=1)
    K = check_int("K", K, minimum=1)
    S = check_int("S", S, minimum=1)
    if S > N:
        raise InputError("S", f"S={S} must satisfy S <= N={N}")
    R = max(list(gap_coefs) + list(grad_coefs) + [0])
    noisy = noise_coef is not None
    check_tree_size(N, S, K, R, noisy=noisy, controls=controls, limit=limit)
    what = "SCAFFOLD" if controls else "FedAvg"
    pep = ExactPEP(f"{what} N={N} S={S} K={K} eta_l={eta_l} eta_g={eta_g} beta={beta} mu={mu}"
                   + (" sigma>0 (expectation relaxation)" if noisy else ""))
    eta_l, eta_g, pot_coef = _q(eta_l), _q(eta_g), _q(pot_coef)
    fs = [pep.new_function(beta, mu) for _ in range(N)]
    xs, gstar = pep.stationary_point(fs)
    x0 = pep.new_leaf("x0")
    c0 = [pep.new_leaf(f"c{i}") for i in range(N)] if controls else [Vec() for _ in range(N)]
    ledger = NoiseLedger(pep, noisy)
    ledger.mark(0)
    C0 = Form()
    for i in range(N):
        C0 = C0 + Fraction(1, N) * sq(c0[i] - gstar[i])
    pep.init = sq(x0 - xs) + pot_coef * C0
    if noisy:
        pep.init = pep.init + _q(noise_coef) * ledger.variance_form()
    subsets = list(itertools.combinations(range(N), S))
    share = Fraction(1, len(subsets))

    def F_at(x, name):
        return Fraction(1, N) * _sum_forms([f.value(x, name) for f in fs])

    F_star = F_at(xs, "x*")
    metric = [Form()]

    def paths(x, c, clients, node, tag):
        """Local paths of ``clients`` from x: {i: (y_{i,K}, (1/K) Σ_k samples)}."""
        cbar = mean_vec(c)
        out = {}
        for i in clients:
            y, samples = x, []
            for k in range(K):
                g = ledger.sample(fs[i], y, node, k, i, f"y{i},{tag},{k}")
                samples.append(g)
                y = y - eta_l * ((g - c[i] + cbar) if controls else g)
            out[i] = (y, mean_vec(samples))
        return out

    def visit(x, c, r, node, weight, tag):
        terms = Form()
        if r in gap_coefs:
            terms = terms + _q(gap_coefs[r]) * (F_at(x, f"x{tag}") - F_star)
        if r in grad_coefs:
            terms = terms + _q(grad_coefs[r]) * sq(mean_vec([f.gradient(x, f"x{tag}") for f in fs]))
        ledger.mark(node, 0)
        metric[0] = metric[0] + weight * terms
        if r == R:
            return
        shared = paths(x, c, range(N), node, tag) if controls else None
        for b, B in enumerate(subsets):
            stage = node if controls else ledger.new_node(node)
            sub = tag if len(subsets) == 1 else f"{tag}.{b}"
            run = shared if controls else paths(x, c, B, stage, sub)
            if S < N:
                x_new = x + (eta_g * Fraction(1, S)) * sum((run[i][0] - x for i in B), Vec())
            else:       # as pep_scaffold_exact writes it (the same point either way)
                x_new = x + eta_g * (mean_vec([run[i][0] for i in B]) - x)
            c_new = [run[i][1] if (controls and i in B) else c[i] for i in range(N)]
            visit(x_new, c_new, r + 1, ledger.new_node(stage), weight * share, sub if S < N else r + 1)

    visit(x0, c0, 0, 0, Fraction(1), 0)
    pep.metric = metric[0]
    ledger.attach()
    return pep
