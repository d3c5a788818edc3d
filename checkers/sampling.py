"""Uniform fixed-size client sampling without replacement (seed 002), checked exactly by
enumerating all C(N, S) subsets in rationals.

Source: seed 002 page "Federated averaging, local SGD, and SCAFFOLD" (sampling lemma);
Karimireddy et al., SCAFFOLD, arXiv:1910.06378v4, Appendix B / E (client-sampling variance,
PDF p. 26); standard finite-population sampling identity.

Instances: ``{"N": "n", "S": "s", "v": [[...], ...]}`` (N rows of dimension d).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from .base import Checker, F, Mutation, fvec, hyp, qvec, rand_vec, rat


def _vecs(inst):
    return [fvec(r) for r in inst["v"]]


def subset_moments(v, S, scale=None):
    """Exact moments of the sample mean over all S-subsets of the N rows of v.

    v: list of N vectors (Fractions, each of length d); S: subset size; scale: the divisor
    of the sample sum (default S). Returns (mean_vector E[v_S], E||v_S - vbar||^2, vbar).
    """
    N, d = len(v), len(v[0])
    vbar = [sum(r[k] for r in v) / N for k in range(d)]
    div = S if scale is None else scale
    subsets = list(itertools.combinations(range(N), S))
    m = [Fraction(0)] * d
    second = Fraction(0)
    for sub in subsets:
        vs = [sum(v[i][k] for i in sub) / div for k in range(d)]
        for k in range(d):
            m[k] += vs[k]
        second += sum((vs[k] - vbar[k]) ** 2 for k in range(d))
    n = len(subsets)
    return [x / n for x in m], second / n, vbar


class _SamplingBase(Checker):
    default_budget = 12

    def _base_hyps(self, inst):
        N, S = F(inst["N"]), F(inst["S"])
        v = inst["v"]
        ok = len(v) == N and len({len(r) for r in v}) == 1 and len(v[0]) >= 1
        return [hyp("participation", "1 <= S <= N (integers)",
                    min(S - 1, N - S) if (N.denominator == 1 and S.denominator == 1) else Fraction(-1)),
                hyp("data", "v has N rows of equal dimension d >= 1", Fraction(0 if ok else -1))]

    def random(self, rng, relax=()):
        lo = 1 if ("N_gt_1" in relax or self.lean_name == "SamplingSingleClient") else 2
        hi = 1 if self.lean_name == "SamplingSingleClient" else 7
        N = int(rng.integers(lo, hi + 1))
        S = int(rng.integers(1, N + 1))
        d = int(rng.integers(1, 4))
        return {"N": str(N), "S": str(S), "v": [qvec(rand_vec(rng, d)) for _ in range(N)]}


class SamplingVarianceIdentity(_SamplingBase):
    """SamplingVarianceIdentity: for v_1..v_N in R^d, N > 1, 1 <= S <= N and a uniform
    S-subset (sampling without replacement),

        E[vbar_S] = vbar   and   E||vbar_S - vbar||^2 = (1 - S/N) sum_i ||v_i - vbar||^2 / (S (N-1)).

    Checked as an exact rational equality by enumerating all C(N, S) subsets. Source: seed
    002 sampling lemma; SCAFFOLD arXiv:1910.06378v4 (client sampling), PDF p. 26.
    """

    lean_name = "SamplingVarianceIdentity"
    statement = "E[vbar_S] = vbar and E||vbar_S - vbar||^2 = (1-S/N) sum||v_i-vbar||^2/(S(N-1)), N > 1"
    source = "seed 002 sampling lemma; SCAFFOLD arXiv:1910.06378v4, PDF p. 26"
    identity = True
    mutations = {
        "N_instead_of_N_minus_1": Mutation("N_instead_of_N_minus_1", "1/(S(N-1)) replaced by 1/(S N)"),
        "drop_finite_population_factor": Mutation("drop_finite_population_factor", "factor (1 - S/N) dropped"),
        "mean_over_S_plus_1": Mutation("mean_over_S_plus_1", "vbar_S = (S+1)^-1 sum_{i in S} v_i (mean identity)"),
    }

    def hypotheses(self, instance, mutate=None):
        return self._base_hyps(instance) + [hyp("N_gt_1", "N > 1", F(instance["N"]) - 1, strict=True)]

    def _moments(self, instance, mutate):
        v, S = _vecs(instance), int(F(instance["S"]))
        return subset_moments(v, S, scale=(S + 1) if mutate == "mean_over_S_plus_1" else None)

    def lhs(self, instance, mutate=None):
        return self._moments(instance, mutate)[1]

    def rhs(self, instance, mutate=None):
        v, N, S = _vecs(instance), F(instance["N"]), F(instance["S"])
        d = len(v[0])
        vbar = [sum(r[k] for r in v) / N for k in range(d)]
        spread = sum(sum((r[k] - vbar[k]) ** 2 for k in range(d)) for r in v)
        fpc = 1 if mutate == "drop_finite_population_factor" else 1 - S / N
        den = S * N if mutate == "N_instead_of_N_minus_1" else S * (N - 1)
        return fpc * spread / den

    def check(self, instance, relax=(), mutate=None):
        """Both identities: the variance identity (lhs = rhs) and E[vbar_S] = vbar (exact)."""
        from pyfed.verdicts import Holds, Violated
        v = super().check(instance, relax, mutate)
        if isinstance(v, Holds):
            mean, _, vbar = self._moments(instance, mutate)
            if mean != vbar:
                v = Violated(self.lean_name, v.lhs, v.rhs, True,
                             {"mean_identity": "fails", "E_vbar_S": qvec(mean), "vbar": qvec(vbar)},
                             witness={"instance": instance})
            else:
                v.details["mean_identity"] = "holds exactly"
        return v

    def structured(self):
        return [{"N": "2", "S": "1", "v": [["1"], ["-1"]]},
                {"N": "2", "S": "2", "v": [["1", "2"], ["3", "4"]]},
                {"N": "3", "S": "2", "v": [["0"], ["0"], ["0"]]},
                {"N": "4", "S": "1", "v": [["1", "0"], ["0", "1"], ["-1", "0"], ["0", "-1"]]},
                {"N": "5", "S": "3", "v": [["1/2"], ["1/3"], ["-7"], ["2"], ["5/4"]]}]


class SamplingVarianceBound(_SamplingBase):
    """SamplingVarianceBound: for N > 1 and 1 <= S <= N (uniform S-subset),

        E||vbar_S - vbar||^2 <= 2 (1 - S/N) (1/S) (1/N) sum_i ||v_i||^2.

    Tight at N = 2, S = 1, v_1 = -v_2. Source: seed 002 sampling lemma ("In particular");
    SCAFFOLD arXiv:1910.06378v4, PDF p. 26.
    """

    lean_name = "SamplingVarianceBound"
    statement = "E||vbar_S - vbar||^2 <= 2(1-S/N)(1/S)(1/N) sum||v_i||^2, N > 1"
    source = "seed 002 sampling lemma; SCAFFOLD arXiv:1910.06378v4, PDF p. 26"
    mutations = {
        "factor_2_to_1": Mutation("factor_2_to_1", "constant 2 replaced by 1"),
        "S_squared": Mutation("S_squared", "1/S replaced by 1/S^2"),
    }

    def hypotheses(self, instance, mutate=None):
        return self._base_hyps(instance) + [hyp("N_gt_1", "N > 1", F(instance["N"]) - 1, strict=True)]

    def lhs(self, instance, mutate=None):
        return subset_moments(_vecs(instance), int(F(instance["S"])))[1]

    def rhs(self, instance, mutate=None):
        v, N, S = _vecs(instance), F(instance["N"]), F(instance["S"])
        c = 1 if mutate == "factor_2_to_1" else 2
        Sd = S * S if mutate == "S_squared" else S
        return c * (1 - S / N) / Sd / N * sum(sum(x * x for x in r) for r in v)

    def structured(self):
        return [{"N": "2", "S": "1", "v": [["1"], ["-1"]]},
                {"N": "2", "S": "2", "v": [["1"], ["5"]]},
                {"N": "3", "S": "2", "v": [["1", "1"], ["-1", "0"], ["0", "-1"]]},
                {"N": "6", "S": "1", "v": [["0"]] * 6}]

    def candidates(self, rng, budget, relax=(), mutate=None):
        yield from self.structured()
        for _ in range(budget):
            inst = self.random(rng, relax)
            yield inst
            N, S, d = int(inst["N"]), int(inst["S"]), len(inst["v"][0])
            if S == N:
                continue
            idx = list(itertools.combinations(range(N), S))

            def obj(t):
                v = [list(t[i * d:(i + 1) * d]) for i in range(N)]
                vbar = [sum(r[k] for r in v) / N for k in range(d)]
                lhs = sum(sum((sum(v[i][k] for i in sub) / S - vbar[k]) ** 2 for k in range(d))
                          for sub in idx) / len(idx)
                s = sum(x * x for r in v for x in r)
                c = 1 if mutate == "factor_2_to_1" else 2
                Sd = S * S if mutate == "S_squared" else S
                return (c * (1 - S / N) / Sd / N * s - lhs) / max(s, 1e-12)
            th = self.optimise(obj, [float(F(x)) for r in inst["v"] for x in r], maxiter=120)
            yield {"N": str(N), "S": str(S), "v": [qvec([rat(x) for x in th[i * d:(i + 1) * d]])
                                                   for i in range(N)]}


class SamplingSingleClient(_SamplingBase):
    """SamplingSingleClient: if N = 1 then necessarily S = 1 and vbar_S = vbar, i.e.
    E||vbar_S - vbar||^2 = 0 (checked as an exact identity lhs = rhs = 0).

    Source: seed 002 sampling lemma, final sentence ("If N = 1, necessarily S = 1").
    """

    lean_name = "SamplingSingleClient"
    statement = "N = 1 => S = 1 and vbar_S = vbar"
    source = "seed 002 sampling lemma (N = 1 case)"
    identity = True
    default_budget = 6
    mutations = {
        "mean_over_S_plus_1": Mutation("mean_over_S_plus_1", "vbar_S = (S+1)^-1 sum_{i in S} v_i"),
    }

    def hypotheses(self, instance, mutate=None):
        return self._base_hyps(instance) + [hyp("N_eq_1", "N = 1", -abs(F(instance["N"]) - 1))]

    def lhs(self, instance, mutate=None):
        v, S = _vecs(instance), int(F(instance["S"]))
        return subset_moments(v, S, scale=(S + 1) if mutate == "mean_over_S_plus_1" else None)[1]

    def rhs(self, instance, mutate=None):
        return Fraction(0)

    def structured(self):
        return [{"N": "1", "S": "1", "v": [["0"]]}, {"N": "1", "S": "1", "v": [["1", "-2", "1/3"]]}]
