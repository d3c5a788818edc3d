"""Stich's Local SGD one-step inequality (Lemma 3.1), with the expectation computed exactly
by enumerating every sampled index of the local SGD procedure of seed 002.

Components are quadratics f_j(x) = x^T A_j x / 2 - b_j^T x with rational data, so every
iterate, gradient and expectation is a Fraction. The run starts at x_0 for all K workers,
takes steps s = 0..t with step sizes eta_0..eta_t, each worker drawing b indices uniformly
from {1..n} per step (all draws independent), and averages the workers after step s when
s+1 is a synchronisation time. The lemma's expectations are over the finite product law
of all draws (n^(K b (t+1)) equally likely outcomes).

Instance: ``{"A": [n (d,d) matrices], "b": [n vectors], "mu", "L", "workers": K,
"batch": b, "x0": [d], "etas": [eta_0..eta_t], "sync": [sync times in 1..t]}``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from pyfed.problems.quadratic import is_psd_exact

from .base import Checker, F, Mutation, fmat, fvec, hyp, q, qmat, qvec, rand_rat, rand_vec


def solve_exact(A, b):
    """Solve A x = b exactly (Gauss-Jordan in Fractions); A: (d, d) list, b: (d,). None if singular."""
    d = len(A)
    M = [list(A[i]) + [b[i]] for i in range(d)]
    for c in range(d):
        piv = next((r for r in range(c, d) if M[r][c] != 0), None)
        if piv is None:
            return None
        M[c], M[piv] = M[piv], M[c]
        for r in range(d):
            if r != c and M[r][c] != 0:
                f = M[r][c] / M[c][c]
                M[r] = [x - f * y for x, y in zip(M[r], M[c])]
    return [M[i][d] / M[i][i] for i in range(d)]


def _mv(A, x):
    return [sum(a * b for a, b in zip(row, x)) for row in A]


def _sq(v):
    return sum(x * x for x in v)


class LocalSGDOneStep(Checker):
    """LocalSGDOneStep (Stich, Lemma 3.1): f = (1/n) sum_j f_j L-smooth and mu-strongly convex
    (0 < mu <= L) with minimum f* = f(x*); x_t^1..x_t^K from local SGD; xbar_t, g_t =
    (1/K) sum_k g_t^k(x_t^k), gbar_t = (1/K) sum_k grad f(x_t^k). If eta_t <= 1/(4L):

        E||xbar_{t+1} - x*||^2 <= (1 - mu eta_t) E||xbar_t - x*||^2 + eta_t^2 E||g_t - gbar_t||^2
                                  - (eta_t/2) E[f(xbar_t) - f*] + (2 eta_t L/K) sum_k E||xbar_t - x_t^k||^2.

    Source: Stich, Local SGD Converges Fast and Communicates Little, arXiv:1805.09767,
    Lemma 3.1 (PDF p. 4) and Appendix A; seed 002.
    """

    lean_name = "LocalSGDOneStep"
    statement = ("E||xbar_{t+1}-x*||^2 <= (1-mu eta_t)E||xbar_t-x*||^2 + eta_t^2 E||g_t-gbar_t||^2 "
                 "- (eta_t/2)E[f(xbar_t)-f*] + (2 eta_t L/K) sum_k E||xbar_t-x_t^k||^2, eta_t <= 1/(4L)")
    source = "Stich arXiv:1805.09767, Lemma 3.1 (PDF p. 4), Appendix A; seed 002"
    default_budget = 10
    mutations = {
        "contraction_doubled": Mutation("contraction_doubled", "(1 - mu eta_t) replaced by (1 - 2 mu eta_t)"),
        "drop_noise_term": Mutation("drop_noise_term", "eta_t^2 E||g_t - gbar_t||^2 dropped"),
    }

    def _parse(self, inst):
        A = [fmat(a) for a in inst["A"]]
        b = [fvec(v) for v in inst["b"]]
        return (A, b, F(inst["mu"]), F(inst["L"]), int(inst["workers"]), int(inst["batch"]),
                fvec(inst["x0"]), fvec(inst["etas"]), {int(s) for s in inst["sync"]})

    def hypotheses(self, instance, mutate=None):
        A, b, mu, L, K, B, x0, etas, sync = self._parse(instance)
        n, d = len(A), len(x0)
        Abar = [[sum(a[i][j] for a in A) / n for j in range(d)] for i in range(d)]
        lo = [[Abar[i][j] - (mu if i == j else 0) for j in range(d)] for i in range(d)]
        up = [[(L if i == j else 0) - Abar[i][j] for j in range(d)] for i in range(d)]
        sym = all(a[i][j] == a[j][i] for a in A for i in range(d) for j in range(d))
        eta_t = etas[-1] if etas else Fraction(-1)
        return [hyp("sizes", "n, K, b >= 1, at least one step", Fraction(min(n, K, B, len(etas)) - 1)),
                hyp("mu_positive", "0 < mu", mu, strict=True),
                hyp("mu_le_L", "mu <= L", L - mu),
                hyp("strongly_convex", "f mu-strongly convex (Abar - mu I PSD, A_j symmetric)",
                    Fraction(0 if sym and is_psd_exact(lo) else -1)),
                hyp("smooth", "f L-smooth (L I - Abar PSD)", Fraction(0 if is_psd_exact(up) else -1)),
                hyp("eta_positive", "eta_s > 0", min(etas) if etas else Fraction(-1), strict=True),
                hyp("step_size", "eta_t <= 1/(4L)", 1 / (4 * L) - eta_t if L > 0 else None)]

    _memo = (None, None)

    def _moments(self, instance):
        """Exact expectations by enumeration (memoised for the last instance); returns a dict
        of the lemma's quantities."""
        import json
        key = json.dumps(instance, sort_keys=True)
        if self._memo[0] == key:
            return self._memo[1]
        out = self._moments_uncached(instance)
        self._memo = (key, out)
        return out

    def _moments_uncached(self, instance):
        A, b, mu, L, K, B, x0, etas, sync = self._parse(instance)
        n, d = len(A), len(x0)
        Abar = [[sum(a[i][j] for a in A) / n for j in range(d)] for i in range(d)]
        bbar = [sum(v[i] for v in b) / n for i in range(d)]
        xs = solve_exact(Abar, bbar)
        fval = lambda x: sum(x[i] * _mv(Abar, x)[i] for i in range(d)) / 2 - sum(p * y for p, y in zip(bbar, x))
        fstar = fval(xs)
        gj = lambda j, x: [u - v for u, v in zip(_mv(A[j], x), b[j])]
        draws = list(itertools.product(range(n), repeat=K * B))
        pd = Fraction(1, len(draws))
        states = {tuple(tuple(x0) for _ in range(K)): Fraction(1)}
        t = len(etas) - 1
        for s in range(t):
            new = {}
            for X, p in states.items():
                for dr in draws:
                    Z = []
                    for k in range(K):
                        g = [sum(gj(dr[k * B + r], X[k])[i] for r in range(B)) / B for i in range(d)]
                        Z.append(tuple(x - etas[s] * gi for x, gi in zip(X[k], g)))
                    if s + 1 in sync:
                        avg = tuple(sum(z[i] for z in Z) / K for i in range(d))
                        Z = [avg] * K
                    key = tuple(Z)
                    new[key] = new.get(key, Fraction(0)) + p * pd
            states = new
        eta = etas[t]
        out = {k: Fraction(0) for k in ("next", "dist", "noise", "gap", "spread")}
        for X, p in states.items():
            xbar = [sum(x[i] for x in X) / K for i in range(d)]
            gbar = [sum(_mv(Abar, x)[i] - bbar[i] for x in X) / K for i in range(d)]
            out["dist"] += p * _sq([u - v for u, v in zip(xbar, xs)])
            out["gap"] += p * (fval(xbar) - fstar)
            out["spread"] += p * sum(_sq([u - v for u, v in zip(xbar, x)]) for x in X)
            for dr in draws:
                gs = [[sum(gj(dr[k * B + r], X[k])[i] for r in range(B)) / B for i in range(d)] for k in range(K)]
                g = [sum(gk[i] for gk in gs) / K for i in range(d)]
                nxt = [xbar[i] - eta * g[i] for i in range(d)]
                out["next"] += p * pd * _sq([u - v for u, v in zip(nxt, xs)])
                out["noise"] += p * pd * _sq([u - v for u, v in zip(g, gbar)])
        out.update(eta=eta, mu=mu, L=L, K=K)
        return out

    def lhs(self, instance, mutate=None):
        return self._moments(instance)["next"]

    def rhs(self, instance, mutate=None):
        m = self._moments(instance)
        eta, mu, L, K = m["eta"], m["mu"], m["L"], m["K"]
        c = 2 if mutate == "contraction_doubled" else 1
        noise = 0 if mutate == "drop_noise_term" else eta**2 * m["noise"]
        return (1 - c * mu * eta) * m["dist"] + noise - eta / 2 * m["gap"] + 2 * eta * L / K * m["spread"]

    def random(self, rng, relax=()):
        d = int(rng.integers(1, 3))
        while True:
            n, K, B, t = (int(rng.integers(1, 4)), int(rng.integers(1, 3)), int(rng.integers(1, 3)),
                          int(rng.integers(0, 2)))
            if n ** (K * B * (t + 1)) <= 100:
                break
        A = []
        for j in range(n):
            c = rand_rat(rng, Fraction(1, 4), 2, 4)
            M = [[Fraction(int(rng.integers(-2, 3)), 2) for _ in range(d)] for _ in range(d)]
            P = [[sum(M[i][k] * M[l][k] for k in range(d)) + (c if i == l else 0) for l in range(d)]
                 for i in range(d)]
            A.append(P)
        if n > 1 and rng.random() < 0.5:  # make components nonconvex, f unchanged
            D = [[Fraction(int(rng.integers(-3, 4))) for _ in range(d)] for _ in range(d)]
            D = [[(D[i][j] + D[j][i]) for j in range(d)] for i in range(d)]
            A[0] = [[A[0][i][j] + D[i][j] for j in range(d)] for i in range(d)]
            A[1] = [[A[1][i][j] - D[i][j] for j in range(d)] for i in range(d)]
        Abar = [[sum(a[i][j] for a in A) / n for j in range(d)] for i in range(d)]
        # mu: a certified lower bound (Gershgorin), L: upper bound
        mu = min(Abar[i][i] - sum(abs(Abar[i][j]) for j in range(d) if j != i) for i in range(d))
        L = max(Abar[i][i] + sum(abs(Abar[i][j]) for j in range(d) if j != i) for i in range(d))
        if mu <= 0:
            mu = Fraction(1, 100) if is_psd_exact([[Abar[i][j] - (Fraction(1, 100) if i == j else 0)
                                                   for j in range(d)] for i in range(d)]) else Fraction(1, 1000)
        top = 1 / (4 * L)
        etas = [top * rand_rat(rng, Fraction(1, 8), 4, 8) for _ in range(t)]
        etas.append(top if rng.random() < 0.5 else top * rand_rat(rng, Fraction(1, 8), 1, 8))
        sync = [s for s in range(1, t + 1) if rng.random() < 0.5]
        return {"A": [qmat(a) for a in A], "b": [qvec(rand_vec(rng, d, 2, 4)) for _ in range(n)],
                "mu": q(mu), "L": q(L), "workers": K, "batch": B, "x0": qvec(rand_vec(rng, d, 3, 4)),
                "etas": qvec(etas), "sync": sync}

    def structured(self):
        return [
            # n = 1 deterministic, f = mu/2 ||x||^2 with mu = L: (1-mu eta)^2 <= 1 - 5/4 mu eta
            {"A": [[["1"]]], "b": [["0"]], "mu": "1", "L": "1", "workers": 1, "batch": 1, "x0": ["1"],
             "etas": ["1/4"], "sync": []},
            # start at the optimum: pure noise step
            {"A": [[["1"]], [["1"]]], "b": [["1"], ["-1"]], "mu": "1", "L": "1", "workers": 1, "batch": 1,
             "x0": ["0"], "etas": ["1/4"], "sync": []},
            # two workers, one local step before the analysed one (no sync): spread term active
            {"A": [[["1"]], [["1"]]], "b": [["2"], ["-2"]], "mu": "1", "L": "1", "workers": 2, "batch": 1,
             "x0": ["1"], "etas": ["1/4", "1/4"], "sync": []},
            {"A": [[["2", "0"], ["0", "1"]]], "b": [["1", "1"]], "mu": "1", "L": "2", "workers": 2, "batch": 2,
             "x0": ["0", "0"], "etas": ["1/8", "1/8"], "sync": [1]},
        ]
