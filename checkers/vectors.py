"""Elementary vector inequalities of seed 002 (SCAFFOLD Appendix B, relaxed triangle and
Young inequalities; sum of squares).

Source: Karimireddy et al., SCAFFOLD, ICML 2020, arXiv:1910.06378v4, Appendix B
("relaxed triangle inequality", Lemma 3 area, PDF p. 14); seed 002 page "Federated
averaging, local SGD, and SCAFFOLD", auxiliary lemmas.

Instances: ``{"a": "p/q", "u": [...], "v": [...]}`` (RelaxedTriangle, YoungInner) and
``{"u": [[...], ...]}`` (SumSquares, m rows of dimension d). All exact.
Search: structured edge cases, random rational instances, and Nelder-Mead from seeded
starts on the normalised margin (rhs - lhs)/(sum of squared norms); each optimiser answer
is rationalised and re-checked exactly.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .base import Checker, F, Mutation, fvec, hyp, q, qvec, rand_rat, rand_vec, rat


def _a_from(theta0, relaxed):
    return theta0 if relaxed else math.exp(max(min(theta0, 30), -30))


class _PairChecker(Checker):
    """Shared machinery of the two-vector inequalities with a parameter a > 0."""

    default_budget = 12

    def _ab(self, inst):
        return F(inst["a"]), fvec(inst["u"]), fvec(inst["v"])

    def hypotheses(self, instance, mutate=None):
        a, u, v = self._ab(instance)
        return [hyp("a_positive", "a > 0", a, strict=True),
                hyp("dimension", "u, v in R^d (same d >= 1)",
                    Fraction(0) if len(u) == len(v) and len(u) >= 1 else Fraction(-1))]

    def lhs(self, instance, mutate=None):
        a, u, v = self._ab(instance)
        return self._lhs(a, u, v, mutate)

    def rhs(self, instance, mutate=None):
        a, u, v = self._ab(instance)
        return self._rhs(a, u, v, mutate)

    def random(self, rng, relax=()):
        d = int(rng.integers(1, 4))
        if "a_positive" in relax:
            a = rand_rat(rng, -3, 3, 8) or Fraction(-1, 2)
        else:
            a = rand_rat(rng, Fraction(1, 8), 8, 8)
        return {"a": q(a), "u": qvec(rand_vec(rng, d)), "v": qvec(rand_vec(rng, d))}

    def structured(self):
        out = []
        for a in ("1", "1/2", "4", "1/1000"):
            out.append({"a": a, "u": ["0"], "v": ["0"]})
            out.append({"a": a, "u": ["1"], "v": ["0"]})
            out.append({"a": a, "u": ["0", "1"], "v": ["0", "0"]})
            av = F(a)
            out.append({"a": a, "u": ["1", "-2"], "v": qvec([av, -2 * av])})   # v = a u (tight)
            out.append({"a": a, "u": ["1", "-2"], "v": qvec([-av, 2 * av])})  # v = -a u
        return out

    def candidates(self, rng, budget, relax=(), mutate=None):
        yield from self.structured()
        relaxed = "a_positive" in relax
        if relaxed:  # a < 0: the right side can be negative
            yield {"a": "-1/2", "u": ["1"], "v": ["1"]}
        for i in range(budget):
            inst = self.random(rng, relax=relax)
            yield inst
            d = len(inst["u"])
            theta0 = np.concatenate([[float(F(inst["a"])) if relaxed else math.log(float(F(inst["a"])))],
                                     [float(F(x)) for x in inst["u"]], [float(F(x)) for x in inst["v"]]])

            def obj(t, d=d):
                a = _a_from(t[0], relaxed)
                u, v = list(t[1:1 + d]), list(t[1 + d:])
                s = sum(x * x for x in u) + sum(x * x for x in v)
                if s < 1e-12:
                    return 1e300
                return (self._rhs(a, u, v, mutate) - self._lhs(a, u, v, mutate)) / s
            th = self.optimise(obj, theta0, maxiter=150)
            a = _a_from(th[0], relaxed)
            if not relaxed and a <= 0:
                continue
            yield {"a": q(rat(a)), "u": qvec([rat(x) for x in th[1:1 + d]]),
                   "v": qvec([rat(x) for x in th[1 + d:]])}


class RelaxedTriangle(_PairChecker):
    """RelaxedTriangle: for u, v in R^d and a > 0,

        ||u + v||^2 <= (1 + a) ||u||^2 + (1 + 1/a) ||v||^2.

    Equality iff v = a u. Source: SCAFFOLD (arXiv:1910.06378v4) Appendix B, relaxed triangle
    inequality, PDF p. 14; seed 002 auxiliary lemmas.
    """

    lean_name = "RelaxedTriangle"
    statement = "||u+v||^2 <= (1+a)||u||^2 + (1+1/a)||v||^2 for a > 0"
    source = "SCAFFOLD arXiv:1910.06378v4, Appendix B, PDF p. 14; seed 002"
    mutations = {
        "u_constant_a": Mutation("u_constant_a", "(1+a) replaced by a: ||u+v||^2 <= a||u||^2 + (1+1/a)||v||^2"),
        "v_constant_1_over_a": Mutation("v_constant_1_over_a", "(1+1/a) replaced by 1/a"),
        "drop_a_positive": Mutation("drop_a_positive", "hypothesis a > 0 dropped", relax=("a_positive",)),
    }

    def _lhs(self, a, u, v, mutate):
        return sum((x + y) * (x + y) for x, y in zip(u, v)) if u else 0 * a

    def _rhs(self, a, u, v, mutate):
        if a == 0:
            raise ZeroDivisionError
        cu = a if mutate == "u_constant_a" else 1 + a
        cv = 1 / a if mutate == "v_constant_1_over_a" else 1 + 1 / a
        return cu * sum(x * x for x in u) + cv * sum(y * y for y in v)

    def rhs(self, instance, mutate=None):
        a, u, v = self._ab(instance)
        return Fraction(self._rhs(a, u, v, mutate))


class YoungInner(_PairChecker):
    """YoungInner: for u, v in R^d and a > 0,

        2 |<u, v>| <= a ||u||^2 + ||v||^2 / a.

    Equality iff v = +-a u. Source: SCAFFOLD (arXiv:1910.06378v4) Appendix B, Young's
    inequality, PDF p. 14; seed 002 auxiliary lemmas.
    """

    lean_name = "YoungInner"
    statement = "2|<u,v>| <= a||u||^2 + ||v||^2/a for a > 0"
    source = "SCAFFOLD arXiv:1910.06378v4, Appendix B, PDF p. 14; seed 002"
    mutations = {
        "u_constant_halved": Mutation("u_constant_halved", "a||u||^2 replaced by (a/2)||u||^2"),
        "factor_3": Mutation("factor_3", "left side 3|<u,v>| instead of 2|<u,v>|"),
        "drop_a_positive": Mutation("drop_a_positive", "hypothesis a > 0 dropped", relax=("a_positive",)),
    }

    def _lhs(self, a, u, v, mutate):
        c = 3 if mutate == "factor_3" else 2
        return c * abs(sum(x * y for x, y in zip(u, v)))

    def _rhs(self, a, u, v, mutate):
        if a == 0:
            raise ZeroDivisionError
        ca = a / 2 if mutate == "u_constant_halved" else a
        return ca * sum(x * x for x in u) + sum(y * y for y in v) / a

    def lhs(self, instance, mutate=None):
        return Fraction(super().lhs(instance, mutate))

    def rhs(self, instance, mutate=None):
        return Fraction(super().rhs(instance, mutate))


class SumSquares(Checker):
    """SumSquares: for m >= 1 vectors u_1..u_m in R^d,

        || sum_{j=1}^m u_j ||^2 <= m sum_{j=1}^m ||u_j||^2.

    Equality iff all u_j are equal. Source: SCAFFOLD (arXiv:1910.06378v4) Appendix B,
    PDF p. 14 (Cauchy-Schwarz / Jensen); seed 002 auxiliary lemmas.
    """

    lean_name = "SumSquares"
    statement = "||sum_{j<=m} u_j||^2 <= m sum_{j<=m} ||u_j||^2"
    source = "SCAFFOLD arXiv:1910.06378v4, Appendix B, PDF p. 14; seed 002"
    default_budget = 10
    mutations = {
        "factor_m_minus_1": Mutation("factor_m_minus_1", "m replaced by m - 1"),
        "index_shift": Mutation("index_shift", "right-hand sum over j = 2..m instead of 1..m"),
    }

    def _u(self, inst):
        return [fvec(r) for r in inst["u"]]

    def hypotheses(self, instance, mutate=None):
        u = self._u(instance)
        ok = len(u) >= 1 and len({len(r) for r in u}) == 1 and len(u[0]) >= 1
        return [hyp("m_positive", "m >= 1", Fraction(len(u) - 1)),
                hyp("dimension", "all u_j in the same R^d", Fraction(0 if ok else -1))]

    @staticmethod
    def _sides(u, mutate):
        m = len(u)
        d = len(u[0])
        s = [sum(r[k] for r in u) for k in range(d)]
        lhs = sum(x * x for x in s)
        rows = u[1:] if mutate == "index_shift" else u
        c = m - 1 if mutate == "factor_m_minus_1" else m
        return lhs, c * sum(sum(x * x for x in r) for r in rows)

    def lhs(self, instance, mutate=None):
        return Fraction(self._sides(self._u(instance), mutate)[0])

    def rhs(self, instance, mutate=None):
        return Fraction(self._sides(self._u(instance), mutate)[1])

    def random(self, rng, relax=()):
        m, d = int(rng.integers(1, 5)), int(rng.integers(1, 4))
        return {"u": [qvec(rand_vec(rng, d)) for _ in range(m)]}

    def structured(self):
        return [{"u": [["0"]]}, {"u": [["1"]]}, {"u": [["1", "2"]] * 3},
                {"u": [["1"], ["-1"]]}, {"u": [["1", "0"], ["0", "0"], ["0", "0"]]},
                {"u": [["3/2", "-1"]] * 5}]

    def candidates(self, rng, budget, relax=(), mutate=None):
        yield from self.structured()
        for _ in range(budget):
            inst = self.random(rng)
            yield inst
            m, d = len(inst["u"]), len(inst["u"][0])

            def obj(t, m=m, d=d):
                u = [list(t[j * d:(j + 1) * d]) for j in range(m)]
                s = sum(x * x for r in u for x in r)
                if s < 1e-12:
                    return 1e300
                lhs, rhs = self._sides(u, mutate)
                return (rhs - lhs) / s
            th = self.optimise(obj, [float(F(x)) for r in inst["u"] for x in r], maxiter=150)
            yield {"u": [qvec([rat(x) for x in th[j * d:(j + 1) * d]]) for j in range(m)]}
