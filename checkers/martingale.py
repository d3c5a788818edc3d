"""SCAFFOLD Appendix B Lemma 4 (martingale-difference bound), checked exactly on finite
probability spaces.

The checker builds a finite Omega = {0..n-1} with rational probabilities p, a filtration
F_0 <= F_1 <= ... <= F_m given by successively finer partitions of Omega (F_0 need not be
trivial), F_j-measurable Z_j (constant on the blocks of partition j), the exact conditional
expectations M_j = E[Z_j | F_{j-1}] (block averages in Fractions), xi_j = Z_j - M_j, and
F_{j-1}-measurable v_j >= E[||xi_j||^2 | F_{j-1}] (the exact conditional variance, or larger).

Instance: ``{"p": [n probs], "partitions": [m+1 lists of n block labels (ints)],
"Z": [m lists of n vectors], "v": [m lists of n scalars]}`` (all numbers "p/q" strings).
"""

from __future__ import annotations

from fractions import Fraction

from .base import Checker, Mutation, fvec, hyp, qvec, rand_rat, rand_vec


def cond_exp(p, labels, values):
    """E[X | sigma(partition)] on a finite space, exactly.

    p: n Fractions (probabilities); labels: n hashable block labels; values: n scalars or
    n vectors (lists). Returns the n-list of conditional expectations (constant on blocks).
    """
    vec = isinstance(values[0], list)
    mass, acc = {}, {}
    for w, lab in enumerate(labels):
        mass[lab] = mass.get(lab, Fraction(0)) + p[w]
        if vec:
            cur = acc.get(lab, [Fraction(0)] * len(values[w]))
            acc[lab] = [c + p[w] * x for c, x in zip(cur, values[w])]
        else:
            acc[lab] = acc.get(lab, Fraction(0)) + p[w] * values[w]
    if vec:
        return [[x / mass[lab] for x in acc[lab]] for lab in labels]
    return [acc[lab] / mass[lab] for lab in labels]


def _measurable(labels, values):
    seen = {}
    for lab, v in zip(labels, values):
        if lab in seen and seen[lab] != v:
            return False
        seen[lab] = v
    return True


def _refines(fine, coarse):
    m = {}
    for a, b in zip(fine, coarse):
        if m.setdefault(a, b) != b:
            return False
    return True


class MartingaleDifferenceBound(Checker):
    """MartingaleDifferenceBound: let F_0 <= ... <= F_m (m >= 1), Z_j F_j-measurable and square
    integrable, M_j = E[Z_j | F_{j-1}], xi_j = Z_j - M_j. If E[||xi_j||^2 | F_{j-1}] <= v_j a.s.
    with v_j >= 0 F_{j-1}-measurable, then

        E|| sum_{j=1}^m Z_j ||^2 <= 2 E|| sum_{j=1}^m M_j ||^2 + 2 sum_{j=1}^m E[v_j].

    Tight: Z_1 = +-1 (fair coin), Z_2 = Z_1 gives 4 <= 2 + 2. Source: Karimireddy et al.,
    SCAFFOLD, arXiv:1910.06378v4, Appendix B, Lemma 4 (PDF p. 14); seed 002.
    """

    lean_name = "MartingaleDifferenceBound"
    statement = "E||sum Z_j||^2 <= 2 E||sum M_j||^2 + 2 sum E[v_j], M_j = E[Z_j|F_{j-1}]"
    source = "SCAFFOLD arXiv:1910.06378v4, Appendix B, Lemma 4, PDF p. 14; seed 002"
    default_budget = 30
    mutations = {
        "constants_2_to_1": Mutation("constants_2_to_1", "both factors 2 replaced by 1"),
        "index_shift": Mutation("index_shift", "variance sum over j = 2..m instead of 1..m"),
        "drop_variance_bound": Mutation("drop_variance_bound",
                                        "hypothesis E[||xi_j||^2|F_{j-1}] <= v_j dropped", relax=("variance",)),
    }

    def _parse(self, inst):
        p = fvec(inst["p"])
        parts = [list(l) for l in inst["partitions"]]
        Z = [[fvec(z) for z in Zj] for Zj in inst["Z"]]
        v = [fvec(vj) for vj in inst["v"]]
        return p, parts, Z, v

    def hypotheses(self, instance, mutate=None):
        p, parts, Z, v = self._parse(instance)
        n, m = len(p), len(Z)
        if not p:
            return [hyp("probability", "p > 0, sum p = 1", Fraction(-1))]
        hs = [hyp("probability", "p > 0, sum p = 1", min(min(p), Fraction(1) if sum(p) == 1 else Fraction(-1)),
                  strict=True),
              hyp("m", "m >= 1", Fraction(m - 1)),
              hyp("shapes", "m+1 partitions, Z and v of length m over n atoms",
                  Fraction(0 if (len(parts) == m + 1 and len(v) == m and all(len(x) == n for x in parts + Z + v))
                           else -1))]
        if not (hs[0].holds and hs[-1].holds):
            return hs
        hs.append(hyp("filtration", "F_{j-1} <= F_j (partition j refines j-1)",
                      Fraction(0 if all(_refines(parts[j], parts[j - 1]) for j in range(1, m + 1)) else -1)))
        hs.append(hyp("Z_measurable", "Z_j is F_j-measurable",
                      Fraction(0 if all(_measurable(parts[j + 1], [tuple(z) for z in Z[j]]) for j in range(m))
                               else -1)))
        hs.append(hyp("v_measurable", "v_j is F_{j-1}-measurable",
                      Fraction(0 if all(_measurable(parts[j], v[j]) for j in range(m)) else -1)))
        hs.append(hyp("v_nonnegative", "v_j >= 0", min(min(vj) for vj in v)))
        margin = None
        for j in range(m):
            M = cond_exp(p, parts[j], Z[j])
            xi2 = [sum((a - b) ** 2 for a, b in zip(Z[j][w], M[w])) for w in range(n)]
            cv = cond_exp(p, parts[j], xi2)
            mj = min(v[j][w] - cv[w] for w in range(n))
            margin = mj if margin is None else min(margin, mj)
        hs.append(hyp("variance", "E[||xi_j||^2 | F_{j-1}] <= v_j", margin))
        return hs

    def lhs(self, instance, mutate=None):
        p, parts, Z, v = self._parse(instance)
        d = len(Z[0][0])
        return sum(p[w] * sum(sum(Z[j][w][k] for j in range(len(Z))) ** 2 for k in range(d))
                   for w in range(len(p)))

    def rhs(self, instance, mutate=None):
        p, parts, Z, v = self._parse(instance)
        n, m, d = len(p), len(Z), len(Z[0][0])
        Ms = [cond_exp(p, parts[j], Z[j]) for j in range(m)]
        em = sum(p[w] * sum(sum(Ms[j][w][k] for j in range(m)) ** 2 for k in range(d)) for w in range(n))
        js = range(1, m) if mutate == "index_shift" else range(m)
        ev = sum((sum(p[w] * v[j][w] for w in range(n)) for j in js), Fraction(0))
        c = 1 if mutate == "constants_2_to_1" else 2
        return c * em + c * ev

    def random(self, rng, relax=()):
        n = int(rng.integers(1, 9))
        m = int(rng.integers(1, 4))
        d = int(rng.integers(1, 3))
        raw = [int(rng.integers(1, 5)) for _ in range(n)]
        p = [Fraction(r, sum(raw)) for r in raw]
        parts = [[0] * n] if rng.random() < 0.7 else [[int(rng.integers(0, 2)) for _ in range(n)]]
        for _ in range(m):
            prev = parts[-1]
            new = [prev[w] * 3 + int(rng.integers(0, 3)) for w in range(n)]
            parts.append(new)
        Z, v = [], []
        for j in range(m):
            blocks = {}
            drift = rng.random() < 0.5
            Zj = []
            for w in range(n):
                lab = parts[j + 1][w]
                if lab not in blocks:
                    blocks[lab] = rand_vec(rng, d, 2, 4)
                    if drift and j > 0:  # predictable drift correlated with past noise
                        blocks[lab] = [a + b for a, b in zip(blocks[lab], Z[j - 1][w])]
                Zj.append(blocks[lab])
            Z.append(Zj)
            M = cond_exp(p, parts[j], Zj)
            xi2 = [sum((a - b) ** 2 for a, b in zip(Zj[w], M[w])) for w in range(n)]
            cv = cond_exp(p, parts[j], xi2)
            if "variance" in relax:
                cv = [Fraction(0)] * n  # v_j = 0: the variance hypothesis dropped
            slack, vj = {}, []
            for w in range(n):
                lab = parts[j][w]
                if lab not in slack:
                    slack[lab] = Fraction(0) if rng.random() < 0.6 else rand_rat(rng, 0, 1, 8)
                vj.append(cv[w] + slack[lab])
            v.append(vj)
        return {"p": qvec(p), "partitions": parts, "Z": [[qvec(z) for z in Zj] for Zj in Z],
                "v": [qvec(vj) for vj in v]}

    def structured(self):
        half = ["1/2", "1/2"]
        coin = {"p": half, "partitions": [[0, 0], [0, 1], [0, 1]],
                "Z": [[["1"], ["-1"]], [["1"], ["-1"]]], "v": [["1", "1"], ["0", "0"]]}
        single = {"p": ["1"], "partitions": [[0], [0]], "Z": [[["3", "-1"]]], "v": [["0"]]}
        noise = {"p": ["1/3", "2/3"], "partitions": [[0, 0], [0, 1]], "Z": [[["2"], ["-1"]]], "v": [["2", "2"]]}
        zero = {"p": half, "partitions": [[0, 0], [0, 1], [0, 1], [0, 1]],
                "Z": [[["0"], ["0"]]] * 3, "v": [["0", "0"]] * 3}
        return [coin, single, noise, zero]
