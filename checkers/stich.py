"""Stich's weighted averaging lemma and its weight-sum bound (seed 002).

Source: S. U. Stich, "Local SGD Converges Fast and Communicates Little", ICLR 2019,
arXiv:1805.09767, Lemma 3.3 (PDF p. 5) and its proof in Appendix A (S_T >= T^3/3);
seed 002 auxiliary lemmas.

Instances: ``{"mu", "a", "T", "A", "B", "C", "u": [u_0..u_T], "e": [e_0..e_{T-1}]}`` and
``{"a", "T"}`` for the weight-sum bound.
"""

from __future__ import annotations

from fractions import Fraction

from .base import Checker, F, Mutation, hyp, q, rand_rat
from .recursion import RecursionChecker


def stich_weights(a, T):
    """w_t = (a+t)^2 for t = 0..T-1 (list of Fractions)."""
    return [(a + t) ** 2 for t in range(int(T))]


class StichWeightedAveraging(RecursionChecker):
    """StichWeightedAveraging: let mu > 0, a >= 4, T >= 1, eta_t = 4/(mu(a+t)),
    w_t = (a+t)^2, S_T = sum_{t=0}^{T-1} w_t. If u_t, e_t >= 0 satisfy, for 0 <= t < T,

        u_{t+1} <= (1 - mu eta_t) u_t - A eta_t e_t + B eta_t^2 + C eta_t^3,  A > 0, B, C >= 0,

    then (A/S_T) sum_t w_t e_t <= mu a^3 u_0/(4 S_T) + 2T(T+2a) B/(mu S_T) + 16 T C/(mu^2 S_T).

    Source: Stich, Local SGD Converges Fast and Communicates Little, arXiv:1805.09767,
    Lemma 3.3, PDF p. 5, proof in Appendix A; seed 002.
    """

    lean_name = "StichWeightedAveraging"
    statement = ("u_{t+1} <= (1-mu eta_t)u_t - A eta_t e_t + B eta_t^2 + C eta_t^3 => "
                 "(A/S_T) sum w_t e_t <= mu a^3 u_0/(4S_T) + 2T(T+2a)B/(mu S_T) + 16TC/(mu^2 S_T)")
    source = "Stich arXiv:1805.09767 Lemma 3.3 (PDF p. 5), Appendix A; seed 002"
    recursion_statement = "u_{t+1} <= (1 - mu eta_t) u_t - A eta_t e_t + B eta_t^2 + C eta_t^3"
    mutations = {
        "u0_term_halved": Mutation("u0_term_halved", "mu a^3 u_0/(4 S_T) replaced by mu a^3 u_0/(8 S_T)"),
        "B_term_halved": Mutation("B_term_halved", "2T(T+2a)B/(mu S_T) replaced by T(T+2a)B/(mu S_T)"),
    }

    def length(self, p):
        return int(p["T"])

    def param_hypotheses(self, p):
        T = p["T"]
        return [hyp("mu_positive", "mu > 0", p["mu"], strict=True),
                hyp("a_ge_4", "a >= 4", p["a"] - 4),
                hyp("a_positive", "a > 0", p["a"], strict=True),
                hyp("T", "T >= 1 (integer)", T - 1 if T.denominator == 1 else Fraction(-1)),
                hyp("A_positive", "A > 0", p["A"], strict=True),
                hyp("B_nonnegative", "B >= 0", p["B"]),
                hyp("C_nonnegative", "C >= 0", p["C"])]

    def terms(self, p, mutate=None):
        mu, a, T, A, B, C = (p[k] for k in ("mu", "a", "T", "A", "B", "C"))
        n = int(T)
        eta = [4 / (mu * (a + t)) for t in range(n)]
        w = stich_weights(a, n)
        S = sum(w)
        kappa = [1 - mu * e for e in eta]
        alpha = [A * e for e in eta]
        beta = [B * e**2 + C * e**3 for e in eta]
        lam = [A * wt / S for wt in w]
        gamma = mu * a**3 / (4 * S) / (2 if mutate == "u0_term_halved" else 1)
        cB = 1 if mutate == "B_term_halved" else 2
        delta = cB * T * (T + 2 * a) * B / (mu * S) + 16 * T * C / (mu**2 * S)
        return kappa, alpha, beta, lam, gamma, delta

    def random_params(self, rng, relax=()):
        lo_a = Fraction(1, 2) if "a_ge_4" in relax else Fraction(4)
        return {"mu": rand_rat(rng, Fraction(1, 16), 4, 16), "a": rand_rat(rng, lo_a, 24, 4),
                "T": Fraction(int(rng.integers(1, 25))), "A": rand_rat(rng, Fraction(1, 8), 4, 8),
                "B": rand_rat(rng, 0, 4, 4), "C": rand_rat(rng, 0, 4, 4)}

    def structured_params(self):
        F_ = Fraction
        return [{"mu": F_(1), "a": F_(4), "T": F_(1), "A": F_(1), "B": F_(0), "C": F_(0)},
                {"mu": F_(1, 2), "a": F_(4), "T": F_(10), "A": F_(2), "B": F_(1), "C": F_(1)},
                {"mu": F_(3), "a": F_(20), "T": F_(30), "A": F_(1), "B": F_(5), "C": F_(0)},
                {"mu": F_(1), "a": F_(9), "T": F_(3), "A": F_(1, 2), "B": F_(0), "C": F_(7)}]


class StichWeightSumLowerBound(Checker):
    """StichWeightSumLowerBound: for a >= 4 and T >= 1, with w_t = (a+t)^2,

        S_T = sum_{t=0}^{T-1} (a+t)^2 >= T^3/3.

    Written lhs <= rhs as T^3/3 <= S_T. Source: Stich arXiv:1805.09767, Lemma 3.3 proof,
    Appendix A; seed 002 ("Also S_T >= T^3/3").
    """

    lean_name = "StichWeightSumLowerBound"
    statement = "T^3/3 <= S_T = sum_{t=0}^{T-1} (a+t)^2 for a >= 4, T >= 1"
    source = "Stich arXiv:1805.09767 Lemma 3.3 / Appendix A; seed 002"
    default_budget = 40
    mutations = {
        "cube_over_2": Mutation("cube_over_2", "T^3/2 <= S_T (constant 1/3 made larger)"),
        "drop_a": Mutation("drop_a", "w_t = t^2 (the shift a dropped from the weights)"),
    }

    def hypotheses(self, instance, mutate=None):
        a, T = F(instance["a"]), F(instance["T"])
        return [hyp("a_ge_4", "a >= 4", a - 4),
                hyp("T", "T >= 1 (integer)", T - 1 if T.denominator == 1 else Fraction(-1))]

    def lhs(self, instance, mutate=None):
        T = F(instance["T"])
        return T**3 / (2 if mutate == "cube_over_2" else 3)

    def rhs(self, instance, mutate=None):
        a, T = F(instance["a"]), int(F(instance["T"]))
        if mutate == "drop_a":
            a = Fraction(0)
        # closed form of sum_{t<T} (a+t)^2 = T a^2 + a T(T-1) + (T-1)T(2T-1)/6
        return T * a * a + a * T * (T - 1) + Fraction((T - 1) * T * (2 * T - 1), 6)

    def random(self, rng, relax=()):
        lo = Fraction(0) if "a_ge_4" in relax else Fraction(4)
        T = int(rng.choice([rng.integers(1, 20), rng.integers(1, 5000)]))
        return {"a": q(rand_rat(rng, lo, 40, 4)), "T": str(T)}

    def structured(self):
        return [{"a": "4", "T": str(T)} for T in (1, 2, 3, 10, 100, 10**6)] + [{"a": "1000", "T": "1"}]
