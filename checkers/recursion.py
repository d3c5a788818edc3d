"""Shared machinery of the recursion lemmas (Stich's weighted averaging, the uniform and
geometric averaging lemmas of seed 002).

Each lemma has the form: nonnegative sequences u_0..u_T, e_0..e_{T-1} with

    u_{t+1} <= kappa_t u_t - alpha_t e_t + beta_t          (0 <= t < T)

imply  sum_t lambda_t e_t <= gamma u_0 + delta.

For fixed constants the worst sequences solve a linear program (variables u, e >= 0,
u_0 <= 1, the recursion as inequality constraints, maximise lhs - rhs); scipy's HiGHS
solves it in floats, the answer is rationalised and *repaired* exactly (e_t capped so the
recursion holds, u_{t+1} set to the exact cap) and re-checked in Fractions before anything
is reported.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .base import Checker, F, fvec, hyp, q, qvec, rat

__all__ = ["RecursionChecker"]


class RecursionChecker(Checker):
    """Base of the recursion lemmas. Subclasses define ``u_name``/``e_name`` (instance keys
    of the two sequences), ``length(params)`` (T), ``param_hypotheses(params)``,
    ``terms(params, mutate)`` -> (kappa, alpha, beta, lam, gamma, delta) as Fraction lists /
    scalars, ``random_params(rng, relax)`` and ``structured_params()``."""

    u_name, e_name = "u", "e"
    default_budget = 6

    # --- subclass interface -------------------------------------------------------------
    def params(self, inst) -> dict:
        return {k: (F(v) if k not in (self.u_name, self.e_name) else None)
                for k, v in inst.items() if k not in (self.u_name, self.e_name)}

    # --- generic ----------------------------------------------------------------------------
    def _seqs(self, inst):
        return fvec(inst[self.u_name]), fvec(inst[self.e_name])

    def hypotheses(self, instance, mutate=None):
        p = self.params(instance)
        hs = list(self.param_hypotheses(p))
        u, e = self._seqs(instance)
        T = self.length(p)
        hs.append(hyp("lengths", f"len({self.u_name}) = T+1, len({self.e_name}) = T",
                      Fraction(0 if (len(u) == T + 1 and len(e) == T) else -1)))
        if len(u) != T + 1 or len(e) != T:
            return hs
        hs.append(hyp("nonnegative", "sequences >= 0", min(u + e)))
        try:
            kappa, alpha, beta, *_ = self.terms(p, mutate)
            rec = min((kappa[t] * u[t] - alpha[t] * e[t] + beta[t] - u[t + 1] for t in range(T)),
                      default=Fraction(0))
        except ZeroDivisionError:
            rec = None
        hs.append(hyp("recursion", self.recursion_statement, rec))
        return hs

    def lhs(self, instance, mutate=None):
        p = self.params(instance)
        u, e = self._seqs(instance)
        lam = self.terms(p, mutate)[3]
        return sum((l * x for l, x in zip(lam, e)), Fraction(0))

    def rhs(self, instance, mutate=None):
        p = self.params(instance)
        u, e = self._seqs(instance)
        gamma, delta = self.terms(p, mutate)[4:6]
        return gamma * u[0] + delta

    def _instance(self, p, u, e):
        inst = {k: q(v) for k, v in p.items()}
        inst[self.u_name] = qvec(u)
        inst[self.e_name] = qvec(e)
        return inst

    def repair(self, p, u0, e_guess, mutate=None):
        """Exact feasible sequences closest to a float guess: u_0 given, e_t capped so that
        u_{t+1} = kappa_t u_t - alpha_t e_t + beta_t >= 0 (recursion with equality)."""
        kappa, alpha, beta, *_ = self.terms(p, mutate)
        u, e = [Fraction(u0)], []
        for t in range(self.length(p)):
            cap = kappa[t] * u[t] + beta[t]
            et = max(Fraction(0), Fraction(e_guess[t]))
            if cap < 0:  # only possible outside the hypotheses (kappa < 0): stop the sequence
                cap = Fraction(0)
            if alpha[t] > 0:
                et = min(et, cap / alpha[t])
            e.append(et)
            u.append(max(Fraction(0), cap - alpha[t] * et))
        return u, e

    def lp_worst(self, p, mutate=None):
        """Solve the LP (floats) for fixed params; returns (u0, e list, optimum) with u0 and e
        rationalised and optimum = max(lhs - rhs) in floats, or None if the LP fails."""
        from scipy.optimize import linprog

        T = self.length(p)
        try:
            kappa, alpha, beta, lam, gamma, delta = self.terms(p, mutate)
        except ZeroDivisionError:
            return None
        n = (T + 1) + T  # u_0..u_T, e_0..e_{T-1}
        c = np.zeros(n)
        for t in range(T):
            c[T + 1 + t] = -float(lam[t])
        c[0] = float(gamma)
        A = np.zeros((T, n))
        b = np.zeros(T)
        for t in range(T):
            A[t, t + 1] = 1.0
            A[t, t] = -float(kappa[t])
            A[t, T + 1 + t] = float(alpha[t])
            b[t] = float(beta[t])
        bounds = [(0, 1)] + [(0, None)] * T + [(0, 1e8)] * T
        res = linprog(c, A_ub=A, b_ub=b, bounds=bounds, method="highs")
        if res.status != 0:
            return None
        x = res.x
        return (rat(x[0], 10**6), [Fraction(float(v)).limit_denominator(10**6) for v in x[T + 1:]],
                -float(res.fun) - float(delta))

    def random(self, rng, relax=()):
        """Random params and random feasible sequences (u_{t+1} a random fraction of the cap)."""
        p = self.random_params(rng, relax)
        T = self.length(p)
        kappa, alpha, beta, *_ = self.terms(p)
        u = [Fraction(int(rng.integers(0, 9)), 4)]
        e = []
        for t in range(T):
            cap = max(Fraction(0), kappa[t] * u[t] + beta[t])
            et = cap / alpha[t] * Fraction(int(rng.integers(0, 5)), 4) if alpha[t] > 0 else Fraction(0)
            e.append(et)
            u.append((cap - alpha[t] * et) * Fraction(int(rng.integers(0, 5)), 4))
        return self._instance(p, u, e)

    def structured(self):
        out = []
        for p in self.structured_params():
            T = self.length(p)
            out.append(self._instance(p, [Fraction(0)] * (T + 1), [Fraction(0)] * T))
            # greedy: spend all the budget on e at every step (tight for the telescoping)
            out.append(self._instance(p, *self.repair(p, 1, [Fraction(10**9)] * T)))
            lp = self.lp_worst(p)
            if lp is not None:
                out.append(self._instance(p, *self.repair(p, lp[0], lp[1])))
        return out

    def candidates(self, rng, budget, relax=(), mutate=None):
        yield from self.structured()
        for _ in range(budget):
            inst = self.random(rng, relax=relax)
            yield inst
            p = self.params(inst)
            lp = self.lp_worst(p, mutate)
            if lp is not None:
                yield self._instance(p, *self.repair(p, lp[0], lp[1], mutate))
            yield self._instance(p, *self.repair(p, 1, [Fraction(10**9)] * self.length(p), mutate))
