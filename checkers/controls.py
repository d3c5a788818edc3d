"""Control-variate identities of SCAFFOLD (seed 002 procedure, Algorithm 1), checked exactly.

The checkers re-run the seed-002 equations in Fractions on quadratic clients
f_i(y) = y^T A_i y / 2 - b_i^T y with an oracle g_i(y) = grad f_i(y) + xi whose noise values
xi are rational numbers stored in the instance (the identities hold for *any* oracle
outputs, so the noise is part of the instance, not a random draw). The floating-point
simulator :func:`pyfed.algorithms.scaffold` is cross-checked against these exact runs in
``tests/test_checkers_controls.py``.

Source: Karimireddy et al., SCAFFOLD, ICML 2020, arXiv:1910.06378v4, Algorithm 1 (PDF p. 4)
and Section 4 (option II, PDF p. 5); seed 002 page "SCAFFOLD".
"""

from __future__ import annotations

from fractions import Fraction

from .base import Checker, F, Mutation, fmat, fvec, hyp, q, qmat, qvec, rand_rat, rand_vec


def _grad(cl, y):
    A, b = fmat(cl["A"]), fvec(cl["b"])
    return [sum(A[i][j] * y[j] for j in range(len(y))) - b[i] for i in range(len(y))]


def local_path(cl, x, ci, c, K, eta_l, noise):
    """Seed-002 local steps of one client: y_0 = x, y_k = y_{k-1} - eta_l (g(y_{k-1}) - c_i + c).

    noise: K (or more) rational vectors; g(y_{k-1}) = grad f_i(y_{k-1}) + noise[k-1].
    Returns (y_K, [g_0..g_{K-1}]) exactly.
    """
    y, gs = list(x), []
    for k in range(K):
        g = [a + e for a, e in zip(_grad(cl, y), noise[k])]
        gs.append(g)
        y = [yj - eta_l * (gj - cij + cj) for yj, gj, cij, cj in zip(y, g, ci, c)]
    return y, gs


def _rand_client(rng, d):
    M = [[Fraction(int(rng.integers(-2, 3)), 2) for _ in range(d)] for _ in range(d)]
    A = [[sum(M[i][k] * M[j][k] for k in range(d)) for j in range(d)] for i in range(d)]
    return {"A": qmat(A), "b": qvec(rand_vec(rng, d, 2, 4))}


class OptionTwoControlIsAverage(Checker):
    """OptionTwoControlIsAverage: in seed-002 SCAFFOLD, a selected client's option-II control

        c_i^+ = c_i - c + (K eta_l)^{-1} (x - y_{i,K})

    equals the average (1/K) sum_{k=1}^K g_i(y_{i,k-1}) of its K local oracle outputs
    (because y_{i,K} = x - eta_l sum_k (g_i(y_{i,k-1}) - c_i + c)). Checked as the exact
    identity ||c_i^+ - (1/K) sum_k g_i(y_{i,k-1})||^2 = 0.

    Source: SCAFFOLD arXiv:1910.06378v4, Algorithm 1 (PDF p. 4), option II discussion
    (Section 4, PDF p. 5); seed 002.
    """

    lean_name = "OptionTwoControlIsAverage"
    statement = "c_i - c + (K eta_l)^-1 (x - y_{i,K}) = (1/K) sum_{k=1}^K g_i(y_{i,k-1})"
    source = "SCAFFOLD arXiv:1910.06378v4, Algorithm 1 (PDF p. 4), Sec. 4 (PDF p. 5); seed 002"
    identity = True
    default_budget = 12
    mutations = {
        "K_plus_1": Mutation("K_plus_1", "(K eta_l)^-1 replaced by ((K+1) eta_l)^-1"),
        "drop_server_control": Mutation("drop_server_control", "c_i^+ = c_i + (K eta_l)^-1 (x - y_{i,K}) (the -c dropped)"),
    }

    def hypotheses(self, instance, mutate=None):
        K, eta = F(instance["K"]), F(instance["eta_l"])
        return [hyp("K", "K >= 1 (integer)", K - 1 if K.denominator == 1 else Fraction(-1)),
                hyp("eta_l", "eta_l > 0", eta, strict=True),
                hyp("noise", "K oracle noise vectors", Fraction(0 if len(instance["noise"]) >= K else -1))]

    def lhs(self, instance, mutate=None):
        K, eta = int(F(instance["K"])), F(instance["eta_l"])
        x, ci, c = fvec(instance["x"]), fvec(instance["c_i"]), fvec(instance["c"])
        noise = [fvec(v) for v in instance["noise"]]
        y, gs = local_path(instance["client"], x, ci, c, K, eta, noise)
        Kd = K + 1 if mutate == "K_plus_1" else K
        cs = [Fraction(0)] * len(c) if mutate == "drop_server_control" else c
        cplus = [a - b + (xx - yy) / (Kd * eta) for a, b, xx, yy in zip(ci, cs, x, y)]
        avg = [sum(g[j] for g in gs) / K for j in range(len(x))]
        return sum((u - v) ** 2 for u, v in zip(cplus, avg))

    def rhs(self, instance, mutate=None):
        return Fraction(0)

    def random(self, rng, relax=()):
        d, K = int(rng.integers(1, 4)), int(rng.integers(1, 5))
        return {"client": _rand_client(rng, d), "K": str(K), "eta_l": q(rand_rat(rng, Fraction(1, 64), 1, 64)),
                "x": qvec(rand_vec(rng, d)), "c_i": qvec(rand_vec(rng, d)), "c": qvec(rand_vec(rng, d)),
                "noise": [qvec(rand_vec(rng, d, 1, 8)) for _ in range(K)]}

    def structured(self):
        z = ["0"]
        return [{"client": {"A": [["1"]], "b": ["0"]}, "K": "1", "eta_l": "1", "x": ["1"], "c_i": z, "c": z,
                 "noise": [z]},
                {"client": {"A": [["0"]], "b": ["0"]}, "K": "3", "eta_l": "1/3", "x": z, "c_i": ["1"], "c": ["2"],
                 "noise": [["1"], ["-1"], ["1/2"]]},
                {"client": {"A": [["2", "1"], ["1", "2"]], "b": ["1", "-1"]}, "K": "2", "eta_l": "1/10",
                 "x": ["1", "2"], "c_i": ["0", "0"], "c": ["0", "0"], "noise": [["0", "0"], ["0", "0"]]}]


class ServerControlIsMean(Checker):
    """ServerControlIsMean: in seed-002 SCAFFOLD (options I and II) with c^0 = (1/N) sum_i c_i^0,
    after every round r = 1..R the server control (updated as c^r = c^{r-1} + (S/N) Delta c)
    equals the mean of the client controls: c^r = (1/N) sum_i c_i^r.

    Checked as the exact identity sum_{r=0}^R ||c^r - (1/N) sum_i c_i^r||^2 = 0 on a run with
    given sampled subsets and rational oracle noise. Source: SCAFFOLD arXiv:1910.06378v4,
    Algorithm 1, PDF p. 4; seed 002 ("Thus c^r = N^-1 sum_i c_i^r whenever ...").
    """

    lean_name = "ServerControlIsMean"
    statement = "c^0 = mean_i c_i^0 => c^r = mean_i c_i^r for every round r"
    source = "SCAFFOLD arXiv:1910.06378v4, Algorithm 1, PDF p. 4; seed 002"
    identity = True
    default_budget = 10
    mutations = {
        "drop_S_over_N": Mutation("drop_S_over_N", "server update c^r = c^{r-1} + Delta c (factor S/N dropped)"),
        "drop_server_init": Mutation("drop_server_init", "hypothesis c^0 = mean_i c_i^0 dropped",
                                     relax=("server_init",)),
    }

    def hypotheses(self, instance, mutate=None):
        N, S, K = (int(F(instance[k])) for k in ("N", "S", "K"))
        c0 = [fvec(v) for v in instance["c0"]]
        d = len(instance["x0"])
        mean0 = [sum(c[j] for c in c0) / N for j in range(d)]
        cs0 = fvec(instance["c_server0"])
        subsets_ok = all(len(set(s)) == S and all(0 <= i < N for i in s) for s in instance["subsets"])
        return [hyp("participation", "1 <= S <= N", Fraction(min(S - 1, N - S))),
                hyp("K", "K >= 1", Fraction(K - 1)),
                hyp("steps", "eta_l, eta_g > 0", min(F(instance["eta_l"]), F(instance["eta_g"])), strict=True),
                hyp("option", "option in {I, II}", Fraction(0 if instance["option"] in ("I", "II") else -1)),
                hyp("subsets", "each round samples S distinct clients", Fraction(0 if subsets_ok else -1)),
                hyp("server_init", "c^0 = (1/N) sum_i c_i^0",
                    -sum((a - b) ** 2 for a, b in zip(cs0, mean0)))]

    def run(self, instance, mutate=None):
        """Exact seed-002 run; returns the list of (c^r, [c_i^r]) for r = 0..R."""
        N, S, K = (int(F(instance[k])) for k in ("N", "S", "K"))
        eta_l, eta_g = F(instance["eta_l"]), F(instance["eta_g"])
        clients = instance["clients"]
        x = fvec(instance["x0"])
        ci = [fvec(v) for v in instance["c0"]]
        c = fvec(instance["c_server0"])
        hist = [(c, ci)]
        for r, sub in enumerate(instance["subsets"]):
            noise = instance["noise"][r]
            dx, dc, newc = [Fraction(0)] * len(x), [Fraction(0)] * len(x), list(ci)
            for i in sub:
                nz = [fvec(v) for v in noise[i]]
                y, gs = local_path(clients[i], x, ci[i], c, K, eta_l, nz)
                if instance["option"] == "I":
                    cp = [a + e for a, e in zip(_grad(clients[i], x), nz[K])]
                else:
                    cp = [a - b + (xx - yy) / (K * eta_l) for a, b, xx, yy in zip(ci[i], c, x, y)]
                dx = [a + (yy - xx) / S for a, yy, xx in zip(dx, y, x)]
                dc = [a + (p - o) / S for a, p, o in zip(dc, cp, ci[i])]
                newc[i] = cp
            x = [a + eta_g * b for a, b in zip(x, dx)]
            fac = 1 if mutate == "drop_S_over_N" else Fraction(S, N)
            c = [a + fac * b for a, b in zip(c, dc)]
            ci = newc
            hist.append((c, ci))
        return hist

    def lhs(self, instance, mutate=None):
        N = int(F(instance["N"]))
        tot = Fraction(0)
        for c, ci in self.run(instance, mutate):
            mean = [sum(v[j] for v in ci) / N for j in range(len(c))]
            tot += sum((a - b) ** 2 for a, b in zip(c, mean))
        return tot

    def rhs(self, instance, mutate=None):
        return Fraction(0)

    def random(self, rng, relax=()):
        N = int(rng.integers(1, 5))
        S = int(rng.integers(1, N + 1))
        K, d, R = int(rng.integers(1, 4)), int(rng.integers(1, 3)), int(rng.integers(1, 4))
        c0 = [rand_vec(rng, d) for _ in range(N)]
        cs0 = [sum(c[j] for c in c0) / N for j in range(d)]
        if "server_init" in relax:
            cs0 = rand_vec(rng, d)
        return {"N": str(N), "S": str(S), "K": str(K), "eta_l": q(rand_rat(rng, Fraction(1, 32), 1, 32)),
                "eta_g": q(rand_rat(rng, Fraction(1, 4), 2, 4)), "option": ["I", "II"][int(rng.integers(0, 2))],
                "clients": [_rand_client(rng, d) for _ in range(N)], "x0": qvec(rand_vec(rng, d)),
                "c0": [qvec(c) for c in c0], "c_server0": qvec(cs0),
                "subsets": [sorted(int(i) for i in rng.choice(N, size=S, replace=False)) for _ in range(R)],
                "noise": [[[qvec(rand_vec(rng, d, 1, 8)) for _ in range(K + 1)] for _ in range(N)]
                          for _ in range(R)]}

    def structured(self):
        z = ["0"]
        cl = {"A": [["1"]], "b": ["1"]}
        base = {"N": "2", "S": "1", "K": "1", "eta_l": "1/2", "eta_g": "1", "option": "II", "clients": [cl, cl],
                "x0": ["1"], "c0": [["1"], ["-1"]], "c_server0": z, "subsets": [[0], [1]],
                "noise": [[[z, z], [z, z]]] * 2}
        full = dict(base, S="2", subsets=[[0, 1]], noise=[[[z, z], [z, z]]], option="I")
        single = dict(base, N="1", S="1", clients=[cl], c0=[["3"]], c_server0=["3"], subsets=[[0]],
                      noise=[[[["1"], ["-1"]]]])
        return [base, full, single]
