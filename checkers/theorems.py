"""The SCAFFOLD finite-round theorems (seed 000 and its nonconvex companion), checked on
small quadratic instances of the seed-000 ``Run`` model.

Left side: by default *exactly*, through the exact-moment engine
:func:`pyfed.engines.exact.scaffold_run_moments` (rational quadratic clients,
Gaussian-law oracle with E||xi||^2 = sigma^2: all expectations are rationals); with
``"method": "montecarlo"`` in the instance, through the simulator
:func:`pyfed.algorithms.scaffold_run` with R replicates and a Student-t confidence interval
(:mod:`pyfed.engines.montecarlo`). Right side and hypotheses: :mod:`pyfed.theory` (the
one place for each formula), plus the problem hypotheses checked exactly here
(mu-strong convexity and beta-smoothness of every client: A_i - mu I and beta I - A_i PSD).

Instance: ``{"A": [N (d,d)], "b": [N (d)], "beta", "mu" (convex), "S", "K", "T", "eta_l",
"eta_g", "sigma", "x0": [d], "c0": [N (d)] (convex; nonconvex uses the warm start)}``
plus optional ``"method"``, ``"replicates"``, ``"seed"``.

:class:`FiniteRoundConvergence` is the conjunction of the two (as published): its instances
name the conjunct they test and are decided by that conjunct's checker.

Source: Karimireddy et al., SCAFFOLD, ICML 2020, arXiv:1910.06378v4, Appendix E.1 (PDF
pp. 30-31, Lemma 15 and the averaging display) and Appendix E.2 (PDF p. 34, Lemma 19, the
source of the nonconvex constants 14 and 70, summed over rounds as in equations (26)-(27) on
PDF p. 31; warm start PDF p. 35); seed 000.
"""

from __future__ import annotations

import dataclasses
import functools
from fractions import Fraction

import mpmath
import numpy as np
import sympy

from pyfed.errors import InputError, check_rng
from pyfed.exact import number_json
from pyfed.problems.quadratic import is_psd_exact
from pyfed.theory import (convex_hypotheses, convex_rhs, effective_step, initial_control_error,
                          nonconvex_hypotheses, nonconvex_rhs, squared_distance, weights)
from pyfed.verdicts import Inconclusive, Violated

from .base import (Checker, Deferred, F, Mutation, _tightness, fmat, fvec, hyp, later, q, qmat, qvec,
                   rand_rat, rand_vec, rat, record_of)


def _problem(inst):
    from pyfed.problems.quadratic import QuadraticProblem
    A = np.array([[[F(v) for v in row] for row in a] for a in inst["A"]], dtype=object)
    b = np.array([[F(v) for v in row] for row in inst["b"]], dtype=object)
    return QuadraticProblem(A, b)


def _psd_shift(a, s):
    """a - s I (rational matrix)."""
    return [[a[i][j] - (s if i == j else 0) for j in range(len(a))] for i in range(len(a))]


def _rand_psd(rng, d, lo):
    M = [[Fraction(int(rng.integers(-2, 3)), 2) for _ in range(d)] for _ in range(d)]
    return [[sum(M[i][k] * M[j][k] for k in range(d)) + (lo if i == j else 0) for j in range(d)] for i in range(d)]


class _Theorem(Checker):
    default_budget = 8
    convex = True

    def _p(self, inst):
        g = {k: F(inst[k]) for k in ("S", "K", "T", "eta_l", "eta_g", "sigma", "beta")}
        g["N"] = Fraction(len(inst["A"]))
        return g

    def problem_hypotheses(self, inst):
        A = [fmat(a) for a in inst["A"]]
        beta = F(inst["beta"])
        mu = F(inst.get("mu", "0"))
        sym = all(a[i][j] == a[j][i] for a in A for i in range(len(a)) for j in range(len(a)))
        smooth = sym and all(is_psd_exact(_psd_shift([[-x for x in r] for r in a], -beta)) and
                             is_psd_exact(_psd_shift(a, -beta)) for a in A)
        out = [hyp("smooth", "every f_i beta-smooth (beta I -+ A_i PSD)", Fraction(0 if smooth else -1))]
        if self.convex:
            conv = all(is_psd_exact(_psd_shift(a, mu)) for a in A)
            out.append(hyp("convexity", "every f_i mu-strongly convex (A_i - mu I PSD)", Fraction(0 if conv else -1)))
        else:
            d = len(A[0])
            Abar = [[sum(a[i][j] for a in A) for j in range(d)] for i in range(d)]
            out.append(hyp("bounded_below", "f bounded below (mean A PSD, minimiser exists)",
                           Fraction(0 if is_psd_exact(Abar) else -1)))
        return out

    def _lhs_exact(self, inst, P):
        from pyfed.engines.exact import scaffold_run_moments
        p = self._p(inst)
        c0 = None if not self.convex else np.array([[F(v) for v in r] for r in inst["c0"]], dtype=object)
        x0 = np.array([F(v) for v in inst["x0"]], dtype=object)
        return scaffold_run_moments(P, p["sigma"], S=int(p["S"]), K=int(p["K"]), T=int(p["T"]),
                                    eta_l=p["eta_l"], eta_g=p["eta_g"], x0=x0, c0=c0)

    def _trajectory(self, inst, P):
        from pyfed.algorithms import scaffold_run
        from pyfed.oracles import GaussianOracle
        p = self._p(inst)
        c0 = None if not self.convex else np.array([[float(F(v)) for v in r] for r in inst["c0"]])
        x0 = np.array([float(F(v)) for v in inst["x0"]])
        return scaffold_run(P, GaussianOracle(P, float(p["sigma"])), S=int(p["S"]), K=int(p["K"]), T=int(p["T"]),
                            eta_l=float(p["eta_l"]), eta_g=float(p["eta_g"]), x0=x0, c0=c0,
                            R=int(inst.get("replicates", 256)), rng=int(inst.get("seed", 0)))

    def check(self, instance, relax=(), mutate=None):
        """Exact verdict (default) or a Monte Carlo one (``"method": "montecarlo"``)."""
        if instance.get("method", "exact") != "montecarlo":
            return super().check(instance, relax, mutate)
        from pyfed.engines.montecarlo import decide
        relax = self.effective_relax(relax, mutate)
        bad = [h for h in self.hypotheses(instance, mutate) if not h.holds and h.key not in relax]
        if bad:
            return Inconclusive(self.lean_name, reason="hypotheses fail: " + ", ".join(h.statement for h in bad))
        P = _problem(instance)
        from pyfed.errors import Diverged
        try:
            est = self.mc_estimate(instance, P)
        except Diverged as exc:  # "diverged at round r": inconclusive (an anomaly inside the hypotheses)
            from pyfed.engines.montecarlo import diverged
            inside = not any(not h.holds for h in self.hypotheses(instance, mutate))
            return diverged(self.lean_name, exc, self.rhs(instance, mutate), inside_hypotheses=inside,
                            details={"method": "montecarlo"}, witness={"instance": instance})
        return decide(self.lean_name, est, self.rhs(instance, mutate), details={"method": "montecarlo"},
                      witness={"instance": instance})

    def candidates(self, rng, budget, relax=(), mutate=None):
        yield from self.structured()
        if "step_size" in relax:  # gradient descent with h = 3/beta on x^2/2 doubles |x| every round
            inst = {"A": [[["1"]]], "b": [["0"]], "beta": "1", "S": "1", "K": "1", "T": "5",
                    "eta_l": "3", "eta_g": "1", "sigma": "0", "x0": ["1"]}
            if self.convex:
                inst.update(mu="0", c0=[["0"]])
            yield inst
        for i in range(budget):
            inst = self.random(rng, relax)
            yield inst
            if i < self.optimised_starts and not relax:
                yield later(self.climb, inst, mutate)

    #: how many of the random instances are improved by Nelder-Mead (see :meth:`climb`)
    optimised_starts = 2

    def _decode(self, base, theta):
        """Instance from continuous parameters: x0, b, (c0), step fraction s in (0, 1] of the
        largest step inside the hypotheses (sigmoid), sigma = |theta_sigma|. All rationalised."""
        d, N = len(base["x0"]), len(base["A"])
        k = 0
        inst = dict(base)
        inst["x0"] = qvec([rat(t) for t in theta[k:k + d]]); k += d
        inst["b"] = [qvec([rat(t) for t in theta[k + i * d:k + (i + 1) * d]]) for i in range(N)]; k += N * d
        if self.convex:
            inst["c0"] = [qvec([rat(t) for t in theta[k + i * d:k + (i + 1) * d]]) for i in range(N)]; k += N * d
        frac = Fraction(1) / (1 + Fraction(np.exp(-np.clip(theta[k], -30, 30))).limit_denominator(1000)); k += 1
        p = self._p(base)
        mu = F(base.get("mu", "0"))
        h = self.max_h(p["beta"], mu, int(p["N"]), int(p["S"])) * frac
        inst["eta_l"] = q(h / (p["K"] * p["eta_g"]))
        inst["sigma"] = q(abs(rat(theta[k])))
        return inst

    def climb(self, inst, mutate=None, maxiter=40):
        """Nelder-Mead on lhs/rhs (exact sides, rationalised parameters) from ``inst``, inside
        the hypotheses; returns the best instance found (deterministic)."""
        base = dict(inst)
        vals = [float(F(v)) for v in inst["x0"]] + [float(F(v)) for r in inst["b"] for v in r]
        if self.convex:
            vals += [float(F(v)) for r in inst["c0"] for v in r]
        vals += [3.0, float(F(inst["sigma"]))]
        best = {"inst": inst, "ratio": -1.0}

        def obj(theta):
            cand = self._decode(base, theta)
            if not all(h.holds for h in self.hypotheses(cand)):
                return 1e300
            lhs, rhs = self.lhs(cand, mutate), self.rhs(cand, mutate)
            if rhs <= 0:
                return 1e300
            r = float(lhs / rhs)
            if r > best["ratio"]:
                best.update(inst=cand, ratio=r)
            return -r
        self.optimise(obj, vals, maxiter=maxiter)
        return best["inst"]

    def random(self, rng, relax=()):
        relaxed = "step_size" in relax
        N = int(rng.integers(1, 4))
        S = int(rng.integers(1, N + 1))
        d = 1 if relaxed else int(rng.integers(1, 3))
        K, T = int(rng.integers(1, 4)), int(rng.integers(4, 7) if relaxed else rng.integers(1, 6))
        lo = Fraction(int(rng.integers(0, 3)), 4)
        A = [_rand_psd(rng, d, lo) for _ in range(N)]
        A[0] = _psd_shift(A[0], Fraction(-1, 4))  # mean Hessian positive definite (x* unique)
        beta = max(max(sum(abs(x) for x in r) for r in a) for a in A)
        mu = lo if self.convex and rng.random() < 0.7 else Fraction(0)
        eta_g = Fraction(1) if rng.random() < 0.5 else rand_rat(rng, 1, 3, 4)
        if "step_size" in relax:
            h = rand_rat(rng, 3, 6, 8) / beta
            mu = Fraction(0)
        else:
            h = self.max_h(beta, mu, N, S) * (1 if rng.random() < 0.5 else rand_rat(rng, Fraction(1, 8), 1, 8))
        eta_l = h / (K * eta_g)
        sigma = Fraction(0) if rng.random() < 0.3 else rand_rat(rng, 0, 2, 4)
        inst = {"A": [qmat(a) for a in A], "b": [qvec(rand_vec(rng, d, 2, 4)) for _ in range(N)],
                "beta": q(beta), "S": str(S), "K": str(K), "T": str(T), "eta_l": q(eta_l), "eta_g": q(eta_g),
                "sigma": q(sigma), "x0": qvec(rand_vec(rng, d, 3, 4))}
        if self.convex:
            inst["mu"] = q(mu)
            inst["c0"] = [qvec(rand_vec(rng, d, 2, 4)) for _ in range(N)]
        return inst


class ConvexFiniteRoundConvergence(_Theorem):
    """ConvexFiniteRoundConvergence (seed 000): under h = K eta_l eta_g <= 1/(81 beta),
    mu h <= S/(15 N), eta_l > 0, eta_g >= 1, mu-strongly convex (mu >= 0) beta-smooth clients
    and a minimiser x*, every ``Run`` with deterministic initial controls c0 satisfies

        (1/W_T) sum_{r<T} w_r E[f(x^r) - f(x*)] <= V_0/(h W_T) + 12 h sigma^2/(K S) (1 + S/eta_g^2),

    w_r = (1 - mu h/2)^-(r+1), W_T = sum_{r<T} w_r, V_0 = ||x0 - x*||^2 + 9 N h^2 C_0 / S.

    Source: Karimireddy et al., SCAFFOLD, arXiv:1910.06378v4, Appendix E.1, PDF p. 30
    (Lemma 15) and p. 31 (averaging display); seed 000.
    """

    lean_name = "ConvexFiniteRoundConvergence"
    statement = "weightedGap <= V_0/(h W_T) + 12 h sigma^2/(K S) (1 + S/eta_g^2)"
    source = "SCAFFOLD arXiv:1910.06378v4, App. E.1, PDF pp. 30-31 (Lemma 15); seed 000"
    mutations = {
        "drop_step_size": Mutation("drop_step_size", "hypothesis h <= 1/(81 beta) dropped", relax=("step_size",)),
        "drop_noise_term": Mutation("drop_noise_term", "the noise term 12 h sigma^2/(KS)(1 + S/eta_g^2) dropped"),
    }

    @staticmethod
    def max_h(beta, mu, N, S):
        top = 1 / (81 * beta)
        return min(top, Fraction(S, 15 * N) / mu) if mu > 0 else top

    def hypotheses(self, instance, mutate=None):
        p = self._p(instance)
        hs = convex_hypotheses(N=p["N"], S=p["S"], K=p["K"], T=p["T"], eta_l=p["eta_l"], eta_g=p["eta_g"],
                               beta=p["beta"], mu=F(instance["mu"]), sigma=p["sigma"])
        return list(hs) + self.problem_hypotheses(instance)

    def lhs(self, instance, mutate=None):
        P = _problem(instance)
        m = self._lhs_exact(instance, P)
        p = self._p(instance)
        T = int(p["T"])
        h = effective_step(p["K"], p["eta_l"], p["eta_g"])
        w = weights(T, F(instance["mu"]), h)
        return sum(wr * g for wr, g in zip(w, m.gaps[:T])) / sum(w)

    def rhs(self, instance, mutate=None):
        P = _problem(instance)
        p = self._p(instance)
        xs = list(P.x_star_exact)
        c0 = [fvec(v) for v in instance["c0"]]
        gs = [[Fraction(v) for v in row] for row in P.grads_exact(np.array(xs, dtype=object))]
        C0 = initial_control_error(c0, gs)
        dist = squared_distance(fvec(instance["x0"]), xs)
        sigma = Fraction(0) if mutate == "drop_noise_term" else p["sigma"]
        return convex_rhs(dist_sq=dist, C0=C0, N=p["N"], S=p["S"], K=p["K"], T=p["T"], eta_l=p["eta_l"],
                          eta_g=p["eta_g"], mu=F(instance["mu"]), sigma=sigma)

    def lean_instance(self, instance):
        """Scalars of the Lean right side: N, S, K, T, eta_l, eta_g, mu, beta, sigma, dist_sq, C0."""
        P = _problem(instance)
        xs = list(P.x_star_exact)
        gs = [[Fraction(v) for v in row] for row in P.grads_exact(np.array(xs, dtype=object))]
        out = {k: instance[k] for k in ("S", "K", "T", "eta_l", "eta_g", "mu", "beta", "sigma")}
        out["N"] = str(len(instance["A"]))
        out["dist_sq"] = q(squared_distance(fvec(instance["x0"]), xs))
        out["C0"] = q(initial_control_error([fvec(v) for v in instance["c0"]], gs))
        return out

    def mc_estimate(self, instance, P):
        from pyfed.engines.montecarlo import estimate_weighted_gap
        p = self._p(instance)
        tr = self._trajectory(instance, P)
        return estimate_weighted_gap(tr.x, P, F(instance["mu"]), effective_step(p["K"], p["eta_l"], p["eta_g"]),
                                     f_star=P.f_star)

    def structured(self):
        one = {"A": [[["1"]]], "b": [["0"]], "beta": "1", "mu": "0", "S": "1", "K": "1", "T": "1",
               "eta_l": "1/81", "eta_g": "1", "sigma": "0", "x0": ["1"], "c0": [["0"]]}
        # start at the optimum with exact controls and noise: only the noise term is positive
        noisy = {"A": [[["1"]], [["2"]]], "b": [["1"], ["-1"]], "beta": "2", "mu": "1", "S": "1", "K": "2",
                 "T": "4", "eta_l": "1/324", "eta_g": "1", "sigma": "1", "x0": ["0"], "c0": [["-1"], ["1"]]}
        # S = N, d = 2, mu > 0 at the mu h boundary-ish, zero controls
        full = {"A": [[["1", "0"], ["0", "2"]], [["3", "1"], ["1", "2"]]], "b": [["1", "0"], ["0", "1"]],
                "beta": "4", "mu": "1/2", "S": "2", "K": "3", "T": "5", "eta_l": "1/972", "eta_g": "1",
                "sigma": "1/2", "x0": ["1", "-1"], "c0": [["0", "0"], ["0", "0"]]}
        # the same noisy instance through the simulator (Monte Carlo, 99.9% Student-t interval)
        mc = dict(noisy, method="montecarlo", replicates=256, seed=0)
        # the noise floor over a long horizon: the right side is the noise term alone (V0 = 0) and
        # does not depend on T, while the left side climbs towards its stationary level (at T = 100
        # about 70% of its T = 200 value, at a fifth of the cost): where a too small noise constant shows
        floor = dict(noisy, T="100")
        return [one, noisy, full, mc, floor]


class NonconvexFiniteRoundConvergence(_Theorem):
    """NonconvexFiniteRoundConvergence: under h = K eta_l eta_g <= (S/N)^(2/3)/(24 beta),
    eta_l > 0, eta_g >= 1, beta-smooth clients, f >= f_low, warm-start controls (K fresh
    oracle samples at x0 per client), every ``Run`` satisfies

        (1/T) sum_{r<T} E||grad f(x^r)||^2 <= 14 (f(x0) - f_low)/(h T) + 70 beta h sigma^2/(K S) (1 + S/eta_g^2).

    Checked on quadratics with PSD mean Hessian (f_low = f* exactly, certificate: the
    quadratic minimum). The search draws steps up to the hypothesis boundary: the largest step
    it uses (:meth:`max_h`) is h = t/(24 beta) with t the largest p/1000 such that
    t^3 <= (S/N)^2, decided in integers exactly as the hypothesis check decides
    (24 beta h)^3 <= (S/N)^2, so it lies within 1/p (< 0.25% for N <= 3) below the boundary;
    half of the random draws use it, the others a fraction of it, and the Nelder-Mead climb moves
    the step fraction in (0, 1]. The verdict reports the tightest instance with its h as a
    fraction of the boundary (``details["tightest_step_over_boundary"]``).

    Source: SCAFFOLD arXiv:1910.06378v4, Appendix E.2, Lemma 19 (PDF p. 34; the constants 14
    and 70), summed over the rounds as in equations (26)-(27) (PDF p. 31), warm start PDF p. 35;
    seed 000 notation.
    """

    lean_name = "NonconvexFiniteRoundConvergence"
    statement = "(1/T) sum E||grad f(x^r)||^2 <= 14(f(x0)-f_low)/(hT) + 70 beta h sigma^2/(KS)(1+S/eta_g^2)"
    source = ("SCAFFOLD arXiv:1910.06378v4, App. E.2, Lemma 19 (PDF p. 34) with eqs. (26)-(27) (PDF p. 31), "
              "warm start PDF p. 35")
    convex = False
    mutations = {
        "drop_step_size": Mutation("drop_step_size", "hypothesis h <= (S/N)^(2/3)/(24 beta) dropped",
                                   relax=("step_size",)),
        "drop_noise_term": Mutation("drop_noise_term", "the noise term 70 beta h sigma^2/(KS)(1 + S/eta_g^2) dropped"),
    }

    #: denominator Q of t = 24 beta h in the near-boundary step (see :meth:`max_h`)
    BOUNDARY_DEN = 1000

    @classmethod
    def max_h(cls, beta, mu, N, S):
        """The largest step the search uses: h = t/(24 beta) with t = p/Q (Q = BOUNDARY_DEN) the
        largest such rational with t^3 <= (S/N)^2, i.e. p^3 N^2 <= Q^3 S^2 (integers, exact), so
        h <= (S/N)^(2/3)/(24 beta) exactly as the hypothesis check decides it. ``mu`` is unused
        (the signature is shared with the convex checker)."""
        Q, N, S = cls.BOUNDARY_DEN, int(N), int(S)
        if N <= 0 or S <= 0:
            raise InputError("instance", "N and S must be positive")
        p = int(sympy.integer_nthroot(Q**3 * S**2 // N**2, 3)[0])   # floor of the cube root
        assert p**3 * N**2 <= Q**3 * S**2 < (p + 1)**3 * N**2
        return Fraction(p, Q) / (24 * Fraction(beta))

    @staticmethod
    def step_over_boundary(instance, dps: int = 30):
        """h / ((S/N)^(2/3)/(24 beta)) of an instance, in mpmath at ``dps`` digits (a report
        figure; the hypothesis itself is decided exactly by :func:`pyfed.theory.nonconvex_hypotheses`)."""
        h = effective_step(F(instance["K"]), F(instance["eta_l"]), F(instance["eta_g"]))
        S, N, beta = F(instance["S"]), Fraction(len(instance["A"])), F(instance["beta"])
        with mpmath.workdps(dps):
            mp = lambda v: mpmath.mpf(v.numerator) / v.denominator  # noqa: E731
            return mp(h) * 24 * mp(beta) / mpmath.cbrt(mp(S / N)) ** 2

    def verdict(self, rng, budget=None):
        v = super().verdict(rng, budget)
        inst = v.details.get("tightest_instance")
        if inst is not None:
            v.details["tightest_step_over_boundary"] = mpmath.nstr(self.step_over_boundary(inst), 6)
            v.details["tightest_S_N"] = [int(F(inst["S"])), len(inst["A"])]
        return v

    def hypotheses(self, instance, mutate=None):
        p = self._p(instance)
        P = _problem(instance)
        fx0 = Fraction(P.value_exact(np.array(fvec(instance["x0"]), dtype=object)))
        hs = nonconvex_hypotheses(N=p["N"], S=p["S"], K=p["K"], T=p["T"], eta_l=p["eta_l"], eta_g=p["eta_g"],
                                  beta=p["beta"], sigma=p["sigma"], f_low=P.f_star, f_x0=fx0,
                                  f_low_certificate="quadratic minimum f(x*) with mean Hessian PSD")
        return list(hs) + self.problem_hypotheses(instance)

    def lhs(self, instance, mutate=None):
        P = _problem(instance)
        m = self._lhs_exact(instance, P)
        T = int(F(instance["T"]))
        return sum(m.grad_sq[:T], Fraction(0)) / T

    def rhs(self, instance, mutate=None):
        P = _problem(instance)
        p = self._p(instance)
        fx0 = P.value_exact(np.array(fvec(instance["x0"]), dtype=object))
        sigma = Fraction(0) if mutate == "drop_noise_term" else p["sigma"]
        return nonconvex_rhs(f_gap=Fraction(fx0) - P.f_star, beta=p["beta"], S=p["S"], K=p["K"], T=p["T"],
                             eta_l=p["eta_l"], eta_g=p["eta_g"], sigma=sigma)

    def lean_instance(self, instance):
        """Scalars of the Lean right side: N, S, K, T, eta_l, eta_g, beta, sigma, f_gap."""
        P = _problem(instance)
        out = {k: instance[k] for k in ("S", "K", "T", "eta_l", "eta_g", "beta", "sigma")}
        out["N"] = str(len(instance["A"]))
        out["f_gap"] = q(Fraction(P.value_exact(np.array(fvec(instance["x0"]), dtype=object))) - P.f_star)
        return out

    def mc_estimate(self, instance, P):
        from pyfed.engines.montecarlo import estimate_average_gradient_sq
        return estimate_average_gradient_sq(self._trajectory(instance, P).x, P)

    def structured(self):
        one = {"A": [[["1"]]], "b": [["0"]], "beta": "1", "S": "1", "K": "1", "T": "1",
               "eta_l": "1/24", "eta_g": "1", "sigma": "0", "x0": ["1"]}
        noisy = {"A": [[["1"]], [["2"]]], "b": [["1"], ["-1"]], "beta": "2", "S": "1", "K": "2",
                 "T": "4", "eta_l": "1/192", "eta_g": "1", "sigma": "1", "x0": ["0"]}
        full = {"A": [[["1", "0"], ["0", "2"]], [["3", "1"], ["1", "2"]]], "b": [["1", "0"], ["0", "1"]],
                "beta": "4", "S": "2", "K": "3", "T": "5", "eta_l": "1/576", "eta_g": "2",
                "sigma": "1/2", "x0": ["1", "-1"]}
        # S = 1 of N = 2 at the near-boundary step h = (629/1000)/(24 beta) <= (1/2)^(2/3)/(24 beta)
        # (629^3 * 4 <= 1000^3 < 630^3 * 4), where (S/N)/(24 beta) would be 20% smaller
        edge = dict(noisy, eta_l=q(self.max_h(2, 0, 2, 1) / 2))
        # the same noisy instance through the simulator (Monte Carlo, 99.9% Student-t interval)
        mc = dict(noisy, method="montecarlo", replicates=256, seed=0)
        # the noise floor over a long horizon at the near-boundary step: x0 = x*, so the right side
        # is the noise term alone and does not depend on T while the left side climbs with T
        floor = dict(edge, T="100")
        return [one, noisy, full, edge, mc, floor]


class FiniteRoundConvergence(Checker):
    """FiniteRoundConvergence (SCAFFOLD, as published): the conjunction of
    ``ConvexFiniteRoundConvergence`` (deterministic controls c0; weighted gap <= V_0/(h W_T)
    + 12 h sigma^2/(K S)(1 + S/eta_g^2) under h <= 1/(81 beta), mu h <= S/(15 N)) and
    ``NonconvexFiniteRoundConvergence`` (warm start; average squared gradient <= 14(f(x0) -
    f_low)/(h T) + 70 beta h sigma^2/(K S)(1 + S/eta_g^2) under h <= (S/N)^(2/3)/(24 beta)).

    An instance is ``{"conjunct": "ConvexFiniteRoundConvergence" | "NonconvexFiniteRoundConvergence",
    "instance": {...}}``, the inner instance being one of that conjunct's checker, which decides
    it (exactly by default). The search runs both conjuncts' searches (each with the full budget);
    the conjunction is violated iff one conjunct is, and the verdict's details hold each
    conjunct's search statistics. Mutations apply to both conjuncts (their names are shared).

    Source: Karimireddy et al., SCAFFOLD, arXiv:1910.06378v4, Section 5, PDF p. 5, Theorem III;
    Appendix E.1 (PDF p. 30, Lemma 15; PDF p. 31) and Appendix E.2 (PDF p. 34, Lemma 19, with
    equations (26)-(27), PDF p. 31).
    """

    lean_name = "FiniteRoundConvergence"
    statement = "ConvexFiniteRoundConvergence and NonconvexFiniteRoundConvergence"
    source = ("SCAFFOLD arXiv:1910.06378v4, Sec. 5 Thm III (PDF p. 5); App. E.1 Lemma 15 (PDF pp. 30-31); "
              "App. E.2 Lemma 19 (PDF p. 34) with eqs. (26)-(27)")
    default_budget = 8
    CONJUNCTS = ("ConvexFiniteRoundConvergence", "NonconvexFiniteRoundConvergence")
    mutations = {
        "drop_step_size": Mutation("drop_step_size", "each conjunct's step-size hypothesis dropped",
                                   relax=("step_size",)),
        "drop_noise_term": Mutation("drop_noise_term", "each conjunct's noise term dropped"),
    }

    def _conjunct_checker(self, name):
        from .registry import get
        return get(name)

    def _split(self, instance):
        conj = instance["conjunct"]
        if conj not in self.CONJUNCTS:
            raise InputError("instance", f"conjunct must be one of {list(self.CONJUNCTS)}, got {conj!r}")
        inner = instance["instance"]
        if not isinstance(inner, dict):
            raise InputError("instance", "instance['instance'] must be a dict (an instance of the conjunct)")
        return conj, self._conjunct_checker(conj), inner

    def hypotheses(self, instance, mutate=None):
        _, chk, inner = self._split(instance)
        return chk.hypotheses(inner, mutate)

    def lhs(self, instance, mutate=None):
        _, chk, inner = self._split(instance)
        return chk.lhs(inner, mutate)

    def rhs(self, instance, mutate=None):
        _, chk, inner = self._split(instance)
        return chk.rhs(inner, mutate)

    def lean_instance(self, instance):
        """The conjunct's scalars of the Lean right side (see its checker) and ``conjunct``."""
        conj, chk, inner = self._split(instance)
        return dict(chk.lean_instance(inner), conjunct=conj)

    def check(self, instance, relax=(), mutate=None):
        """The conjunct's verdict, relabelled as this statement's (``details["conjunct"]``)."""
        self.effective_relax(relax, mutate)
        if not isinstance(instance, dict):
            raise InputError("instance", f"must be a dict, got {type(instance).__name__}")
        try:
            conj, chk, inner = self._split(instance)
        except (KeyError, TypeError) as exc:
            raise InputError("instance", f"malformed FiniteRoundConvergence instance ({type(exc).__name__}: "
                             f"{exc}); expected {{'conjunct': ..., 'instance': {{...}}}}") from None
        v = chk.check(inner, relax=relax, mutate=mutate)
        details = dict(v.details, conjunct=conj)
        changes = {"statement": self.lean_name, "details": details}
        if isinstance(v, Violated):
            changes["witness"] = dict(v.witness, instance=instance)
        return dataclasses.replace(v, **changes)

    def _wrap(self, conj, inner):
        if isinstance(inner, Deferred):  # a conjunct's derived candidate, computed later
            return inner.then(functools.partial(self._wrap, conj))
        return None if inner is None else {"conjunct": conj, "instance": inner}

    def random(self, rng, relax=()):
        conj = self.CONJUNCTS[int(rng.integers(0, 2))]
        return self._wrap(conj, self._conjunct_checker(conj).random(rng, relax))

    def structured(self):
        return [self._wrap(c, inst) for c in self.CONJUNCTS for inst in self._conjunct_checker(c).structured()]

    def candidates(self, rng, budget, relax=(), mutate=None):
        """Each conjunct's own adversarial candidates (full budget each), tagged with the conjunct."""
        for conj in self.CONJUNCTS:
            for inst in self._conjunct_checker(conj).candidates(rng, budget, relax=relax, mutate=mutate):
                yield self._wrap(conj, inst)

    def verdict(self, rng, budget=None):
        """The conjunction's verdict from both conjuncts' default searches (in order, one rng).

        Violated iff a conjunct's search finds a counterexample (the worst one, re-checked, as
        witness, tagged with its conjunct). Otherwise Inconclusive, as every finite search is,
        with the tightest instance over both conjuncts; ``details["conjuncts"]`` holds each
        conjunct's search statistics (candidates, holds, violated, inconclusive, vacuous) and its
        tightest lhs/rhs.
        """
        rng = check_rng(rng)
        budget = self.default_budget if budget is None else int(budget)
        per, found, best, best_key = {}, [], None, float("-inf")
        keys = ("drawn", "structured", "random_draws", "candidates", "holds", "violated", "inconclusive", "vacuous")
        for conj in self.CONJUNCTS:
            rep = {}
            recs = self._conjunct_checker(conj).search(rng, budget, report=rep)
            per[conj] = {k: rep[k] for k in keys}
            tv = rep.get("tightest_verdict")
            if tv is not None:
                per[conj]["tightest_ratio"] = number_json(tv.ratio)   # a report: long "p/q" capped
                key = _tightness(tv)
                if best is None or key > best_key:
                    best, best_key = (self._wrap(conj, rep["tightest"]["instance"]), tv), key
            found += [self._wrap(conj, r["instance"]) for r in recs]
        details = {k: sum(per[c][k] for c in per) for k in keys}
        details.update(search_budget=budget, conjuncts=per)
        if found:
            verdicts = [(inst, self.check(inst)) for inst in found]
            inst, v = min(verdicts, key=lambda iv: float(iv[1].margin))
            return Violated(self.lean_name, v.lhs, v.rhs, v.exact, details,
                            witness=record_of(self, inst, v))
        if best is None:
            details["search_result"] = "nothing decided"
            return Inconclusive(self.lean_name, details=details, reason="no instance inside the hypotheses was decided")
        inst, tv = best
        details.update(tightest_instance=inst, tightest_conjunct=inst["conjunct"], search_result="no counterexample",
                       tightest_exact=bool(tv.exact))
        return Inconclusive(self.lean_name, tv.lhs, tv.rhs, False, details,
                            reason=(f"no counterexample to either conjunct among {details['holds']} candidates "
                                    f"decided ({details['drawn']} drawn, budget {budget} random draws per conjunct); a "
                                    "finite search does not prove the statement; lhs/rhs are the tightest instance found"))
