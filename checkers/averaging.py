"""The two averaging lemmas of seed 002 (uniform and geometric weights).

Source: Karimireddy et al., SCAFFOLD, ICML 2020, arXiv:1910.06378v4, Appendix E.1, PDF
p. 31 (averaging displays used after Lemma 15; cf. Stich 2019, "Unified optimal analysis
of the (stochastic) gradient method", Lemmas 2-3); seed 002 auxiliary lemmas.

Instances: ``{"R", "a", "eta", "b", "c", ["rho"], "d": [d_0..d_R], "q": [q_0..q_{R-1}]}``.
"""

from __future__ import annotations

from fractions import Fraction

from .base import Mutation, hyp, rand_rat
from .recursion import RecursionChecker


class _Averaging(RecursionChecker):
    u_name, e_name = "d", "q"

    def length(self, p):
        return int(p["R"])

    def _common_hyps(self, p):
        R = p["R"]
        return [hyp("R", "R >= 1 (integer)", R - 1 if R.denominator == 1 else Fraction(-1)),
                hyp("a_positive", "a > 0", p["a"], strict=True),
                hyp("eta_positive", "eta > 0", p["eta"], strict=True),
                hyp("b_nonnegative", "b >= 0", p["b"]),
                hyp("c_nonnegative", "c >= 0", p["c"])]

    def _rand_common(self, rng, relax):
        return {"R": Fraction(int(rng.integers(1, 13))),
                "a": rand_rat(rng, Fraction(1, 8), 4, 8),
                "eta": rand_rat(rng, Fraction(1, 32), 1, 32),
                "b": rand_rat(rng, 0, 3, 4),
                "c": rand_rat(rng, 0, 3, 4)}


class UniformAveraging(_Averaging):
    """UniformAveraging: let R >= 1, d_0..d_R >= 0, q_0..q_{R-1} >= 0, a, eta > 0, b, c >= 0 with

        d_r + a eta q_{r-1} <= d_{r-1} + b eta^2 + c eta^3      (1 <= r <= R).

    Then (1/R) sum_{r=1}^R q_{r-1} <= d_0/(a eta R) + (b eta + c eta^2)/a.

    Tight (telescoping with d_R = 0). Source: seed 002, averaging lemma part 1; SCAFFOLD
    arXiv:1910.06378v4 Appendix E.1, PDF p. 31.
    """

    lean_name = "UniformAveraging"
    statement = ("d_r + a eta q_{r-1} <= d_{r-1} + b eta^2 + c eta^3 (1<=r<=R) => "
                 "(1/R) sum q_{r-1} <= d_0/(a eta R) + (b eta + c eta^2)/a")
    source = "seed 002 averaging lemma 1; SCAFFOLD arXiv:1910.06378v4 App. E.1, PDF p. 31"
    recursion_statement = "d_r + a eta q_{r-1} <= d_{r-1} + b eta^2 + c eta^3"
    mutations = {
        "d0_halved": Mutation("d0_halved", "d_0/(a eta R) replaced by d_0/(2 a eta R)"),
        "drop_c_term": Mutation("drop_c_term", "(b eta + c eta^2)/a replaced by b eta/a"),
    }

    def param_hypotheses(self, p):
        return self._common_hyps(p)

    def terms(self, p, mutate=None):
        R, a, eta, b, c = (p[k] for k in ("R", "a", "eta", "b", "c"))
        n = int(R)
        kappa = [Fraction(1)] * n
        alpha = [a * eta] * n
        beta = [b * eta**2 + c * eta**3] * n
        lam = [1 / R] * n
        gamma = 1 / (a * eta * R) / (2 if mutate == "d0_halved" else 1)
        delta = (b * eta + (0 if mutate == "drop_c_term" else c * eta**2)) / a
        return kappa, alpha, beta, lam, gamma, delta

    def random_params(self, rng, relax=()):
        return self._rand_common(rng, relax)

    def structured_params(self):
        F_ = Fraction
        return [{"R": F_(1), "a": F_(1), "eta": F_(1, 2), "b": F_(0), "c": F_(0)},
                {"R": F_(5), "a": F_(2), "eta": F_(1, 10), "b": F_(1), "c": F_(3)},
                {"R": F_(20), "a": F_(1, 3), "eta": F_(1), "b": F_(2), "c": F_(0)}]


class GeometricAveraging(_Averaging):
    """GeometricAveraging: let R >= 1, d_0..d_R >= 0, q_0..q_{R-1} >= 0, 0 < rho eta < 1,
    a > 0, b, c >= 0 with

        d_r <= (1 - rho eta) d_{r-1} - a eta q_{r-1} + b eta^2 + c eta^3    (1 <= r <= R).

    With w_r = (1 - rho eta)^{-r} and W_R = sum_{r=1}^R w_r:
    (1/W_R) sum_{r=1}^R w_r q_{r-1} <= d_0/(a eta W_R) + (b eta + c eta^2)/a.

    Source: seed 002, averaging lemma part 2; SCAFFOLD arXiv:1910.06378v4 Appendix E.1,
    PDF p. 31.
    """

    lean_name = "GeometricAveraging"
    statement = ("d_r <= (1-rho eta) d_{r-1} - a eta q_{r-1} + b eta^2 + c eta^3 => "
                 "(1/W_R) sum_{r=1}^R w_r q_{r-1} <= d_0/(a eta W_R) + (b eta + c eta^2)/a, "
                 "w_r = (1-rho eta)^-r")
    source = "seed 002 averaging lemma 2; SCAFFOLD arXiv:1910.06378v4 App. E.1, PDF p. 31"
    recursion_statement = "d_r <= (1 - rho eta) d_{r-1} - a eta q_{r-1} + b eta^2 + c eta^3"
    mutations = {
        "weight_sum_index_shift": Mutation(
            "weight_sum_index_shift", "W_R = sum_{r=0}^{R-1} w_r (index range shifted down by one)"),
        "d0_halved": Mutation("d0_halved", "d_0/(a eta W_R) replaced by d_0/(2 a eta W_R)"),
    }

    def param_hypotheses(self, p):
        re = p["rho"] * p["eta"]
        return self._common_hyps(p) + [hyp("rho_eta", "0 < rho eta < 1", min(re, 1 - re), strict=True)]

    def terms(self, p, mutate=None):
        R, a, eta, b, c, rho = (p[k] for k in ("R", "a", "eta", "b", "c", "rho"))
        n = int(R)
        kap = 1 - rho * eta
        w = [(1 / kap) ** r for r in range(0, n + 1)]  # w_0..w_R
        W = sum(w[0:n]) if mutate == "weight_sum_index_shift" else sum(w[1:n + 1])
        kappa = [kap] * n
        alpha = [a * eta] * n
        beta = [b * eta**2 + c * eta**3] * n
        lam = [w[r] / W for r in range(1, n + 1)]
        gamma = 1 / (a * eta * W) / (2 if mutate == "d0_halved" else 1)
        delta = (b * eta + c * eta**2) / a
        return kappa, alpha, beta, lam, gamma, delta

    def random_params(self, rng, relax=()):
        p = self._rand_common(rng, relax)
        hi = Fraction(3, 2) if "rho_eta" in relax else Fraction(31, 32)
        re = rand_rat(rng, Fraction(1, 32), hi, 32)
        if re == 1:
            re = Fraction(33, 32)
        p["rho"] = re / p["eta"]
        return p

    def structured_params(self):
        F_ = Fraction
        return [{"R": F_(1), "a": F_(1), "eta": F_(1, 2), "b": F_(0), "c": F_(0), "rho": F_(1)},
                {"R": F_(6), "a": F_(2), "eta": F_(1, 10), "b": F_(1), "c": F_(3), "rho": F_(9)},
                {"R": F_(15), "a": F_(1, 3), "eta": F_(1), "b": F_(2), "c": F_(0), "rho": F_(1, 100)}]
