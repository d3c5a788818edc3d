"""The four FedAvg statements of the Field Guide (Lean namespace ``FedAvg``), checked exactly on
quadratic clients that share one Hessian (the class on which ζ is exact).

Every candidate is decided by the exact-moment engine
(:mod:`pyfed.engines.exact.fedavg_verdict`): Lemma 1 and Lemma 2 at *every* round start (the
margin rhs − lhs is a quadratic form in the round start, decided positive semidefinite by exact
rational elimination; a violation comes with a rational witness start), Theorem 1 exactly,
the tuned step of eq. (16) exactly when rational and in certified balls otherwise. Right sides
and hypotheses come from :mod:`pyfed.theory.fedavg` (one place per formula).

Instance (JSON, exact rationals as "p/q" strings)::

    {"A": [[d x d]]  (the Hessian shared by every client), "b": [[d] x M], "L": smoothness,
     "sigma": noise bound (the oracle is Gaussian with E||xi||^2 = sigma^2),
     "zeta_sq": zeta^2 (optional; default the exact max_i ||b_i - mean b||^2),
     "tau": local steps, "T": rounds, "eta": step (not for the tuned statement), "x0": [d]}

plus, for the two Theorem 1 statements, optional ``"method": "montecarlo"`` (simulator
:func:`pyfed.algorithms.fedavg_shadow.fedavg_shadow`, ``"replicates"``, ``"seed"``), and, for
``ConvexFedAvgConvergence``, instances of the non-quadratic family below
(``{"family": "sqrt", "a", "b": [M], "c": [M], "L", "sigma": "0", "zeta_sq", "tau", "T", "eta", "x0": [x]}``).

What the quadratic class can and cannot catch. With a shared Hessian A the shadow iterate
x̄^{t,k+1} = x̄^{t,k} − η(A x̄^{t,k} − b̄ + ξ̄) is SGD on F itself: heterogeneity never moves the
shadow, so a mutation that only weakens a ζ term cannot be caught on this class. For eq. (15)
the checker therefore also draws instances of a one-dimensional *non-quadratic* family with
different curvatures, Fᵢ(x) = a x²/2 − bᵢ x + cᵢ √(1 + x²) with Σbᵢ = Σcᵢ = 0 (F = a x²/2, x⋆ = 0
exactly, ζ = maxᵢ(|bᵢ| + |cᵢ|); :func:`sqrt_family_hypotheses`), run deterministically in
certified balls: from x₀ = x⋆ the shadow leaves the optimum, and dropping the ζ term of eq. (15)
is caught (``drop_heterogeneity_term``). The constant 18 of ``driftRHS`` cannot be lowered to 1
on either class: the client drift of a shared-Hessian quadratic is at most
k²η²‖bᵢ − b̄‖² + (1 − 1/M) k η² σ² ≤ τ²η²ζ² + τη²σ², and for two convex clients the gradient-step
map of F is non-expansive for η <= 2/L, so ‖x₁ − x₂‖ grows by at most 2ηζ per step and the drift
stays below k²η²ζ² (a seeded search over the sqrt family with M <= 4 reached ratio 0.99995 to
τ²η²ζ², never above). The mutations listed per checker are the ones it catches.

Source: Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1, Section
6.1.2, PDF p. 41 (Lemma 1, Lemma 2, Theorem 1 eqs. (15)-(17)); Appendix D.1-D.2, PDF pp. 86-88.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from pyfed.errors import InputError
from pyfed.theory import fedavg as th
from pyfed.verdicts import Inconclusive

from .base import Checker, F, Mutation, fmat, fvec, hyp, q, qmat, qvec, rand_rat, rand_vec, rat

__all__ = ["PerRoundProgress", "BoundedClientDrift", "ConvexFedAvgConvergence", "TunedConvexFedAvgConvergence"]

STEP_4_OVER_L = Mutation("step_4_over_L", "the step-size hypothesis eta <= 1/(4L) replaced by eta <= 4/L",
                         relax=("step_size",))


def _problem(inst):
    from pyfed.problems.quadratic import QuadraticProblem

    A = fmat(inst["A"])
    b = [fvec(v) for v in inst["b"]]
    M, d = len(b), len(A)
    if M < 1 or d < 1 or any(len(r) != d for r in A) or any(len(v) != d for v in b):
        raise InputError("instance", "A must be d x d and every b_i of length d (M >= 1 clients, d >= 1)")
    return QuadraticProblem(np.array([A] * M, dtype=object), np.array(b, dtype=object))


def _rand_spd(rng, d):
    """A random rational symmetric positive definite d x d matrix (B B^T + c I)."""
    B = [[Fraction(int(rng.integers(-2, 3)), 2) for _ in range(d)] for _ in range(d)]
    c = Fraction(int(rng.integers(1, 5)), 4)
    return [[sum(B[i][k] * B[j][k] for k in range(d)) + (c if i == j else 0) for j in range(d)] for i in range(d)]


def _l_bound(A):
    """A rational upper bound on lambda_max(A): the largest absolute row sum (Gershgorin)."""
    return max(sum(abs(x) for x in r) for r in A)


class _FedAvg(Checker):
    """Shared machinery of the four FedAvg checkers (instances, hypotheses, search)."""

    namespace = "FedAvg"
    default_budget = 6
    tuned = False
    #: how many of the random instances are improved by Nelder-Mead (see :meth:`climb`)
    optimised_starts = 1

    # -- instance -> engine setup ---------------------------------------------------------
    def setup(self, inst, eta=None):
        from pyfed.engines.exact.fedavg_verdict import fedavg_setup

        P = _problem(inst)
        return fedavg_setup(P, F(inst["sigma"]), tau=int(F(inst["tau"])), T=int(F(inst["T"])),
                            eta=F(inst["eta"]) if eta is None else eta, x0=fvec(inst["x0"]), L=F(inst["L"]),
                            zeta_sq=F(inst["zeta_sq"]) if "zeta_sq" in inst else None)

    def _ints(self, inst):
        for k in ("tau", "T"):
            v = F(inst[k])
            if v.denominator != 1 or v < 1:
                raise InputError("instance", f"{k} must be an integer >= 1, got {inst[k]!r}")

    def hypotheses(self, instance, mutate=None):
        self._ints(instance)
        s = self.setup(instance, eta=None if not self.tuned else Fraction(1))
        if self.tuned:
            hs = th.tuned_hypotheses(M=s.M, tau=s.tau, T=s.T, L=s.L, dist_sq=s.dist_sq, sigma_sq=s.sigma_sq,
                                     zeta_sq=s.zeta_sq)
        else:
            hs = th.fedavg_hypotheses(M=s.M, tau=s.tau, T=s.T, eta=s.eta, L=s.L, sigma_sq=s.sigma_sq,
                                      zeta_sq=s.zeta_sq)
        out = list(hs) + list(s.hypotheses)
        if mutate == "step_4_over_L" and not self.tuned:
            out.append(hyp("step_size_mutated", "eta <= 4/L (mutated)", 4 / s.L - s.eta if s.L > 0 else None))
        return out

    # -- the verdict ---------------------------------------------------------------------------
    def check(self, instance, relax=(), mutate=None):
        """Exact verdict from the engine (or Monte Carlo with ``"method": "montecarlo"``)."""
        relax = self.effective_relax(relax, mutate)
        self._mutation(mutate)
        if not isinstance(instance, dict):
            raise InputError("instance", f"must be a dict, got {type(instance).__name__}")
        try:
            hs = self.hypotheses(instance, mutate=mutate)
        except InputError as exc:
            if exc.argument in ("instance", "A"):
                raise
            raise InputError("instance", f"malformed {self.lean_name} instance ({exc})") from None
        except (KeyError, TypeError, IndexError, ValueError, AttributeError) as exc:
            raise InputError("instance", f"malformed {self.lean_name} instance ({type(exc).__name__}: {exc}); "
                                         "see checkers.fedavg for the expected keys") from None
        bad = [h for h in hs if not h.holds and h.key not in relax]
        if bad:
            return Inconclusive(self.verdict_name, exact=True, details={
                "failing_hypotheses": {h.key: (q(h.margin) if isinstance(h.margin, Fraction)
                                               else (None if h.margin is None else str(h.margin))) for h in bad}},
                reason="hypotheses fail (vacuous instance): " + ", ".join(h.statement for h in bad))
        if instance.get("method", "exact") == "montecarlo":
            v = self._montecarlo(instance, mutate)
        else:
            v = self.decide(instance, mutate)
        if mutate:
            v.details["mutate"] = mutate
        return v

    def _montecarlo(self, instance, mutate):
        raise InputError("method", f"{self.lean_name} is decided exactly (no Monte Carlo instances)")

    def lhs(self, instance, mutate=None):
        return self.decide(instance, mutate).lhs

    def rhs(self, instance, mutate=None):
        return self.decide(instance, mutate).rhs

    def lean_instance(self, instance):
        """Scalars of the Lean right side (M, tau, T, eta, L, sigma, zeta_sq, dist_sq)."""
        s = self.setup(instance, eta=None if not self.tuned else Fraction(1))
        out = {"M": str(s.M), "tau": str(s.tau), "T": str(s.T), "L": q(s.L), "sigma": q(F(instance["sigma"])),
               "zeta_sq": q(s.zeta_sq), "dist_sq": q(s.dist_sq)}
        if not self.tuned:
            out["eta"] = q(s.eta)
        return out

    # -- generators -------------------------------------------------------------------------------
    def random(self, rng, relax=()):
        M = int(rng.integers(1, 4))
        d = int(rng.integers(1, 3))
        tau = int(rng.integers(1, 6))
        T = int(rng.integers(1, 4))
        if rng.random() < 0.4:   # A = a I: an eigenvalue equal to L (the tight direction)
            a = Fraction(int(rng.integers(1, 9)), 4)
            A = [[a if i == j else Fraction(0) for j in range(d)] for i in range(d)]
            L = a
        else:
            A = _rand_spd(rng, d)
            L = _l_bound(A)
        b = [rand_vec(rng, d, 2, 4) for _ in range(M)]
        if "step_size" in relax:
            eta = 4 / L if rng.random() < 0.5 else rand_rat(rng, Fraction(1, 4), 4, 8) / L
        else:
            eta = 1 / (4 * L) if rng.random() < 0.5 else rand_rat(rng, Fraction(1, 8), 1, 8) / (4 * L)
        sigma = Fraction(0) if rng.random() < 0.3 else rand_rat(rng, Fraction(1, 4), 2, 4)
        inst = {"A": qmat(A), "b": [qvec(v) for v in b], "L": q(L), "sigma": q(sigma), "tau": str(tau),
                "T": str(T), "eta": q(eta), "x0": qvec(rand_vec(rng, d, 3, 4))}
        if rng.random() < 0.3:   # a Problem's zeta may exceed the smallest valid one
            from pyfed.problems.heterogeneity import quadratic_heterogeneity
            inst["zeta_sq"] = q(quadratic_heterogeneity(_problem(inst)).zeta_sq + rand_rat(rng, 0, 2, 4))
        if self.tuned:
            del inst["eta"]
            if sigma == 0:
                inst["sigma"] = "1/2"
            if "zeta_sq" not in inst and M == 1:
                inst["zeta_sq"] = "1/16"     # zeta > 0 is a hypothesis of the tuned statement
        return inst

    def candidates(self, rng, budget, relax=(), mutate=None):
        yield from self.structured()
        if "step_size" in relax or (self.tuned and mutate == "step_4_over_L"):
            # gradient steps of size 4/L along an eigenvalue L: |1 - eta L| = 3, the iterates grow
            yield self._boundary_instance()
        for i in range(budget):
            inst = self.random(rng, relax)
            yield inst
            if i < self.optimised_starts and not relax:
                yield self.climb(inst, mutate)

    def _boundary_instance(self):
        inst = {"A": [["1"]], "b": [["1"], ["-1"]], "L": "1", "sigma": "0", "tau": "4", "T": "2", "eta": "4",
                "x0": ["1"]}
        if self.tuned:   # one client, tiny noise and heterogeneity: the tuned step is its first term
            inst = {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "1/1000", "zeta_sq": "1/1000000", "tau": "4",
                    "T": "2", "x0": ["1"]}
        return inst

    def climb(self, inst, mutate=None, maxiter=30):
        """Nelder-Mead on lhs/rhs over b, x0, the step fraction and sigma (rationalised; inside
        the hypotheses); returns the best instance found (deterministic)."""
        base = dict(inst)
        d, M = len(inst["A"]), len(inst["b"])
        L = F(inst["L"])
        vals = [float(F(v)) for r in inst["b"] for v in r] + [float(F(v)) for v in inst["x0"]]
        vals += [3.0, float(F(inst["sigma"]))]
        best = {"inst": inst, "ratio": -1.0}

        def decode(theta):
            c = dict(base)
            c["b"] = [qvec([rat(t) for t in theta[i * d:(i + 1) * d]]) for i in range(M)]
            c["x0"] = qvec([rat(t) for t in theta[M * d:M * d + d]])
            if not self.tuned:
                frac = Fraction(1) / (1 + Fraction(np.exp(-np.clip(theta[-2], -30, 30))).limit_denominator(1000))
                c["eta"] = q(frac / (4 * L))
            s = abs(rat(theta[-1]))
            c["sigma"] = q(s if (s > 0 or not self.tuned) else Fraction(1, 100))
            c.pop("zeta_sq", None)
            if self.tuned and M == 1:
                c["zeta_sq"] = "1/16"
            return c

        def obj(theta):
            cand = decode(theta)
            try:
                if not all(h.holds for h in self.hypotheses(cand)):
                    return 1e300
                v = self.decide(cand, mutate)
            except InputError:
                return 1e300
            if v.rhs is None or not float(v.rhs) > 0:
                return 1e300
            r = float(v.lhs) / float(v.rhs)
            if r > best["ratio"]:
                best.update(inst=cand, ratio=r)
            return -r
        self.optimise(obj, vals, maxiter=maxiter)
        return best["inst"]


# ------------------------------------------------------------------------------------------ a non-quadratic family

def _sqrt_family(inst):
    """(a, b, c) of a ``"family": "sqrt"`` instance (one dimension, M clients)."""
    a = F(inst["a"])
    b, c = fvec(inst["b"]), fvec(inst["c"])
    if len(b) != len(c) or not b:
        raise InputError("instance", "b and c must list one number per client (M >= 1)")
    if len(inst["x0"]) != 1:
        raise InputError("instance", "the sqrt family is one-dimensional: x0 has one entry")
    return a, b, c


def sqrt_family_hypotheses(inst) -> list:
    """Problem hypotheses of the one-dimensional family Fᵢ(x) = a x²/2 − bᵢ x + cᵢ √(1 + x²)
    with Σbᵢ = Σcᵢ = 0 (then F(x) = a x²/2, x⋆ = 0, F⋆ = 0 exactly):

    * convexity: Fᵢ'' = a + cᵢ (1 + x²)^(−3/2) with (1 + x²)^(−3/2) ∈ (0, 1], so every Fᵢ is convex
      iff a + min(cᵢ, 0) >= 0;
    * smoothness: Fᵢ'' <= a + max(cᵢ, 0) <= L;
    * heterogeneity: ∇Fᵢ(x) − ∇F(x) = −bᵢ + cᵢ x/√(1 + x²), and |x/√(1 + x²)| < 1, so
      sup |∇Fᵢ − ∇F| = |bᵢ| + |cᵢ| (approached as x → ±∞): ζ² >= maxᵢ (|bᵢ| + |cᵢ|)²;
    * noise: σ = 0 (the runs are deterministic and decided in certified balls).
    """
    a, b, c = _sqrt_family(inst)
    L, z2 = F(inst["L"]), F(inst["zeta_sq"])
    return [hyp("family_mean", "sum_i b_i = sum_i c_i = 0 (F = a x^2/2, x* = 0)",
                Fraction(0) if sum(b) == 0 and sum(c) == 0 else None),
            hyp("convexity", "every F_i convex (a + min(c_i, 0) >= 0)", a + min(min(c), 0)),
            hyp("smooth", "every F_i L-smooth (L >= a + max(c_i, 0))", L - a - max(max(c), 0)),
            hyp("heterogeneity", "zeta^2 >= max_i (|b_i| + |c_i|)^2",
                z2 - max((abs(bi) + abs(ci)) ** 2 for bi, ci in zip(b, c))),
            hyp("deterministic", "sigma = 0 (deterministic gradients)", Fraction(0) if F(inst["sigma"]) == 0 else None)]


def sqrt_family_avg_loss(inst, prec: int = 128):
    """A = T⁻¹ Σ_t τ⁻¹ Σ_{k=1}^{τ} F(x̄^{t,k}) for deterministic FedAvg on the sqrt family (F⋆ = 0),
    in certified ball arithmetic (python-flint arb at ``prec`` bits): a ball containing A."""
    from flint import arb, ctx

    a, b, c = _sqrt_family(inst)
    tau, T, eta = int(F(inst["tau"])), int(F(inst["T"])), F(inst["eta"])
    old = ctx.prec
    ctx.prec = prec
    try:
        q = lambda v: arb(f"{v.numerator}/{v.denominator}")  # noqa: E731 (exact rationals)
        A_, E = q(a), q(eta)
        B, C = [q(v) for v in b], [q(v) for v in c]
        M = len(B)
        y = q(F(inst["x0"][0]))
        total = arb(0)
        for _ in range(T):
            x = [y] * M
            for _ in range(tau):
                x = [xi - E * (A_ * xi - bi + ci * xi / (1 + xi * xi).sqrt()) for xi, bi, ci in zip(x, B, C)]
                xb = sum(x, arb(0)) / M
                total += A_ * xb * xb / 2
            y = xb
        return total / (tau * T)
    finally:
        ctx.prec = old


# ------------------------------------------------------------------------------------------ Lemma 1

class PerRoundProgress(_FedAvg):
    """PerRoundProgress (Lemma 1): for 0 < tau, 0 < T, 0 < eta <= 1/(4L) and every round t < T,

        E[A_t | F_{t tau}] <= (||xbar^{t,0} - x*||^2 - E[||xbar^{t,tau} - x*||^2 | F_{t tau}])/(2 eta tau)
                              + eta sigma^2/M + L/(M tau) sum_i sum_{k<tau} E[||x_i^{t,k} - xbar^{t,k}||^2 | F_{t tau}]

    (Lean ``FedAvg.PerRoundProgress``, right side ``FedAvg.progressRHS``). Decided at every round
    start y in R^d: the margin is a quadratic form in (y, 1), PSD iff the lemma holds from every y.

    Source: Wang et al., Field Guide, arXiv:2107.06917v1, Section 6.1.2, PDF p. 41, Lemma 1;
    Appendix D.1, PDF pp. 86-87, equations (24)-(27).
    """

    lean_name = "PerRoundProgress"
    statement = ("E[A_t | F] <= (||xbar^{t,0} - x*||^2 - E[||xbar^{t,tau} - x*||^2 | F])/(2 eta tau) + eta sigma^2/M "
                 "+ L/(M tau) sum_i sum_{k<tau} E[drift_i^{t,k} | F]")
    source = "Field Guide arXiv:2107.06917v1, Sec. 6.1.2, PDF p. 41, Lemma 1; App. D.1, PDF pp. 86-87"
    mutations = {
        "step_4_over_L": STEP_4_OVER_L,
        "drop_noise_term": Mutation("drop_noise_term", "the noise term eta sigma^2/M dropped"),
    }

    def decide(self, instance, mutate=None):
        from pyfed.engines.exact.fedavg_verdict import decide_per_round_progress
        s = self.setup(instance)
        return decide_per_round_progress(None, setup=s, tau=s.tau, eta=s.eta, gate=False,
                                         rhs_sigma_sq=0 if mutate == "drop_noise_term" else None)

    def structured(self):
        one = {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "0", "tau": "1", "T": "1", "eta": "1/4", "x0": ["1"]}
        # noise from the optimum: only the noise term is positive
        noisy = {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "1", "tau": "2", "T": "1", "eta": "1/4",
                 "x0": ["0"]}
        het = {"A": [["2", "0"], ["0", "1"]], "b": [["1", "0"], ["-1", "1"], ["0", "-1"]], "L": "2",
               "sigma": "1/2", "tau": "3", "T": "2", "eta": "1/8", "x0": ["1", "1"]}
        return [one, noisy, het]


# ------------------------------------------------------------------------------------------ Lemma 2

class BoundedClientDrift(_FedAvg):
    """BoundedClientDrift (Lemma 2): for 0 < tau, 0 < T, 0 < eta <= 1/(4L), every round t < T,
    client i and local step k <= tau,

        E[||x_i^{t,k} - xbar^{t,k}||^2 | F_{t tau}] <= 18 tau^2 eta^2 zeta^2 + 4 tau eta^2 sigma^2

    (Lean ``FedAvg.BoundedClientDrift``, right side ``FedAvg.driftRHS P tau eta``). Decided at every
    round start, every client and every k <= tau.

    Source: Wang et al., Field Guide, arXiv:2107.06917v1, Section 6.1.2, PDF p. 41, Lemma 2;
    Appendix D.2, PDF pp. 87-88.
    """

    lean_name = "BoundedClientDrift"
    statement = "E[||x_i^{t,k} - xbar^{t,k}||^2 | F_{t tau}] <= 18 tau^2 eta^2 zeta^2 + 4 tau eta^2 sigma^2"
    source = "Field Guide arXiv:2107.06917v1, Sec. 6.1.2, PDF p. 41, Lemma 2; App. D.2, PDF pp. 87-88"
    mutations = {
        "step_4_over_L": STEP_4_OVER_L,
        "drop_heterogeneity_term": Mutation("drop_heterogeneity_term", "the term 18 tau^2 eta^2 zeta^2 dropped"),
        "drop_noise_term": Mutation("drop_noise_term", "the term 4 tau eta^2 sigma^2 dropped"),
    }

    def decide(self, instance, mutate=None):
        from pyfed.engines.exact.fedavg_verdict import decide_bounded_client_drift
        s = self.setup(instance)
        return decide_bounded_client_drift(None, setup=s, tau=s.tau, eta=s.eta, gate=False,
                                           rhs_sigma_sq=0 if mutate == "drop_noise_term" else None,
                                           rhs_zeta_sq=0 if mutate == "drop_heterogeneity_term" else None)

    def structured(self):
        # two clients pulling apart at full heterogeneity, no curvature along b: drift k^2 eta^2 zeta^2
        flat = {"A": [["1", "0"], ["0", "1/1000"]], "b": [["0", "1"], ["0", "-1"]], "L": "1", "sigma": "0",
                "tau": "4", "T": "1", "eta": "1/4", "x0": ["0", "0"]}
        # identical clients, pure noise (zeta = 0)
        noisy = {"A": [["1"]], "b": [["1"], ["1"]], "L": "1", "sigma": "1", "tau": "3", "T": "1", "eta": "1/4",
                 "x0": ["0"]}
        het = {"A": [["2", "0"], ["0", "1"]], "b": [["1", "0"], ["-1", "1"], ["0", "-1"]], "L": "2",
               "sigma": "1/2", "tau": "3", "T": "2", "eta": "1/8", "x0": ["1", "1"]}
        return [flat, noisy, het]


# ------------------------------------------------------------------------------------------ Theorem 1

class ConvexFedAvgConvergence(_FedAvg):
    """ConvexFedAvgConvergence (Theorem 1, eq. (15)): for 0 < tau, 0 < T and 0 < eta <= 1/(4L),

        E[A] <= D^2/(2 eta tau T) + eta sigma^2/M + 4 tau eta^2 L sigma^2 + 18 tau^2 eta^2 L zeta^2

    (Lean ``FedAvg.ConvexFedAvgConvergence``, right side ``FedAvg.convergenceRHS P tau T eta``),
    A = T^-1 sum_t A_t the average post-update shadow loss. Decided exactly (E[A] from the
    exact-moment engine); ``"method": "montecarlo"`` instances use the simulator.

    Source: Wang et al., Field Guide, arXiv:2107.06917v1, Section 6.1.2, PDF p. 41, Theorem 1,
    equation (15).
    """

    lean_name = "ConvexFedAvgConvergence"
    statement = "E[A] <= D^2/(2 eta tau T) + eta sigma^2/M + 4 tau eta^2 L sigma^2 + 18 tau^2 eta^2 L zeta^2"
    source = "Field Guide arXiv:2107.06917v1, Sec. 6.1.2, PDF p. 41, Theorem 1, eq. (15)"
    mutations = {
        "step_4_over_L": STEP_4_OVER_L,
        "drop_noise_terms": Mutation("drop_noise_terms", "the noise terms eta sigma^2/M + 4 tau eta^2 L sigma^2 dropped"),
        "drop_heterogeneity_term": Mutation("drop_heterogeneity_term", "the term 18 tau^2 eta^2 L zeta^2 dropped"),
    }

    def hypotheses(self, instance, mutate=None):
        if instance.get("family") != "sqrt":
            return super().hypotheses(instance, mutate)
        self._ints(instance)
        a, b, c = _sqrt_family(instance)
        hs = th.fedavg_hypotheses(M=len(b), tau=F(instance["tau"]), T=F(instance["T"]), eta=F(instance["eta"]),
                                  L=F(instance["L"]), sigma=F(instance["sigma"]), zeta_sq=F(instance["zeta_sq"]))
        out = list(hs) + sqrt_family_hypotheses(instance)
        if mutate == "step_4_over_L":
            L = F(instance["L"])
            out.append(hyp("step_size_mutated", "eta <= 4/L (mutated)", 4 / L - F(instance["eta"]) if L > 0 else None))
        return out

    def decide(self, instance, mutate=None):
        from pyfed.engines.exact.fedavg_verdict import decide_convex_fedavg
        if instance.get("family") == "sqrt":
            return self._decide_sqrt_family(instance, mutate)
        s = self.setup(instance)
        return decide_convex_fedavg(None, setup=s, tau=s.tau, T=s.T, eta=s.eta, gate=False,
                                    rhs_sigma_sq=0 if mutate == "drop_noise_terms" else None,
                                    rhs_zeta_sq=0 if mutate == "drop_heterogeneity_term" else None)

    def _decide_sqrt_family(self, instance, mutate):
        """Deterministic FedAvg on the non-quadratic sqrt family (:func:`sqrt_family_hypotheses`),
        left side in certified balls (precision raised until the sign is certified)."""
        from pyfed.engines.exact.fedavg_verdict import _ball_verdict
        from pyfed.exact import to_arb

        a, b, c = _sqrt_family(instance)
        x0 = F(instance["x0"][0])
        rhs = th.convergence_rhs(dist_sq=x0 * x0, M=len(b), tau=F(instance["tau"]), T=F(instance["T"]),
                                 eta=F(instance["eta"]), L=F(instance["L"]), sigma=F(instance["sigma"]),
                                 zeta_sq=0 if mutate == "drop_heterogeneity_term" else F(instance["zeta_sq"]))
        details = {"engine": "deterministic FedAvg in certified balls (checkers.fedavg.sqrt_family_avg_loss)",
                   "family": "F_i = a x^2/2 - b_i x + c_i sqrt(1 + x^2), F = a x^2/2", "rhs_exact": q(rhs)}
        v = None
        for bits in (128, 256, 512, 1024):
            lhs = sqrt_family_avg_loss(instance, bits)
            from flint import ctx
            old = ctx.prec
            ctx.prec = bits
            try:
                v = _ball_verdict(self.verdict_name, lhs, to_arb(rhs), dict(details, arithmetic=f"arb {bits} bits"),
                                  {"instance": instance}, bits)
            finally:
                ctx.prec = old
            if v.status != "inconclusive":
                break
        return v

    def _mc_rhs(self, s, mutate):
        return th.convergence_rhs(dist_sq=s.dist_sq, M=s.M, tau=s.tau, T=s.T, eta=s.eta, L=s.L,
                                  sigma_sq=0 if mutate == "drop_noise_terms" else s.sigma_sq, zeta_sq=s.zeta_sq)

    def _montecarlo(self, instance, mutate):
        from pyfed.algorithms.fedavg_shadow import fedavg_shadow
        from pyfed.engines.montecarlo_fedavg import decide_avg_loss
        from pyfed.oracles import GaussianOracle

        s = self.setup(instance, eta=None if not self.tuned else Fraction(1))
        if self.tuned:
            s.eta = self._tuned_step(s, mutate)
        rhs = self._mc_rhs(s, mutate)
        if not isinstance(rhs, Fraction):   # an exact algebraic number: 50 digits suffice for a statistical verdict
            from pyfed.exact import to_mpf
            rhs = to_mpf(rhs)
        P = s.problem
        tr = fedavg_shadow(P, GaussianOracle(P, float(F(instance["sigma"]))), tau=s.tau, T=s.T,
                           eta=float(s.eta), x0=[float(v) for v in s.x0], R=int(instance.get("replicates", 256)),
                           rng=int(instance.get("seed", 0)))
        return decide_avg_loss(self.verdict_name, tr, P.f_star, rhs, details={"method": "montecarlo"},
                               witness={"instance": instance})

    def structured(self):
        one = {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "0", "tau": "1", "T": "1", "eta": "1/4", "x0": ["1"]}
        # start at the optimum with noise: only the noise terms are positive
        noisy = {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "1", "tau": "2", "T": "3", "eta": "1/4",
                 "x0": ["0"]}
        het = {"A": [["2", "0"], ["0", "1"]], "b": [["1", "0"], ["-1", "1"], ["0", "-1"]], "L": "2",
               "sigma": "1/2", "tau": "3", "T": "2", "eta": "1/8", "x0": ["1", "1"]}
        mc = dict(het, method="montecarlo", replicates=256, seed=0)
        out = [one, noisy, het, mc]
        if not self.tuned:
            # non-quadratic clients with different curvature, started at the optimum without noise: the
            # shadow leaves x* = 0 (heterogeneity moves it), so only the zeta term carries the bound
            out.append({"family": "sqrt", "a": "1", "b": ["1", "-1"], "c": ["1", "-1"], "L": "2", "sigma": "0",
                        "zeta_sq": "4", "tau": "4", "T": "2", "eta": "1/8", "x0": ["0"]})
        return out

    def random(self, rng, relax=()):
        if self.tuned or rng.random() < 0.6:
            return super().random(rng, relax)
        M = int(rng.integers(2, 4))
        b = [rand_rat(rng, -2, 2, 4) for _ in range(M - 1)]
        c = [rand_rat(rng, -1, 1, 4) for _ in range(M - 1)]
        b.append(-sum(b))
        c.append(-sum(c))
        a = max(Fraction(1, 4), -min(c)) + rand_rat(rng, 0, 1, 4)
        L = a + max(max(c), 0)
        z2 = max((abs(bi) + abs(ci)) ** 2 for bi, ci in zip(b, c))
        eta = 4 / L if "step_size" in relax else (1 / (4 * L)) * (1 if rng.random() < 0.5 else rand_rat(rng, Fraction(1, 4), 1, 8))
        return {"family": "sqrt", "a": q(a), "b": qvec(b), "c": qvec(c), "L": q(L), "sigma": "0", "zeta_sq": q(z2),
                "tau": str(int(rng.integers(1, 6))), "T": str(int(rng.integers(1, 4))), "eta": q(eta),
                "x0": [q(rand_rat(rng, -2, 2, 4))]}

    def lean_instance(self, instance):
        if instance.get("family") != "sqrt":
            return super().lean_instance(instance)
        a, b, c = _sqrt_family(instance)
        x0 = F(instance["x0"][0])
        return {"M": str(len(b)), "tau": instance["tau"], "T": instance["T"], "L": instance["L"],
                "sigma": instance["sigma"], "zeta_sq": instance["zeta_sq"], "dist_sq": q(x0 * x0),
                "eta": instance["eta"]}

    def climb(self, inst, mutate=None, maxiter=30):
        if inst.get("family") == "sqrt":
            return inst
        return super().climb(inst, mutate, maxiter)


class TunedConvexFedAvgConvergence(ConvexFedAvgConvergence):
    """TunedConvexFedAvgConvergence (Theorem 1, eqs. (16)-(17)): for 0 < tau, 0 < T and D, sigma,
    zeta > 0, with eta = min{1/(4L), sqrt(M) D/(sqrt(tau) sqrt(T) sigma),
    D^(2/3)/(tau^(2/3) T^(1/3) L^(1/3) sigma^(2/3)), D^(2/3)/(tau T^(1/3) L^(1/3) zeta^(2/3))},

        E[A] <= 2 L D^2/(tau T) + 2 sigma D/sqrt(M tau T) + 5 L^(1/3) sigma^(2/3) D^(4/3)/(tau^(1/3) T^(2/3))
                + 19 L^(1/3) zeta^(2/3) D^(4/3)/T^(2/3)

    (Lean ``FedAvg.TunedConvexFedAvgConvergence``, ``optimizedStep``/``optimizedRHS``). The
    minimising term of the step is decided exactly; an irrational step (or right side) is handled
    in certified ball arithmetic.

    Source: Wang et al., Field Guide, arXiv:2107.06917v1, Section 6.1.2, PDF p. 41, Theorem 1,
    equations (16)-(17).
    """

    lean_name = "TunedConvexFedAvgConvergence"
    statement = "with eta = optimizedStep (eq. 16): E[A] <= optimizedRHS (eq. 17)"
    source = "Field Guide arXiv:2107.06917v1, Sec. 6.1.2, PDF p. 41, Theorem 1, eqs. (16)-(17)"
    tuned = True
    mutations = {
        "step_4_over_L": Mutation("step_4_over_L", "the first term 1/(4L) of the tuned step replaced by 4/L"),
        "drop_noise_terms": Mutation("drop_noise_terms", "the noise terms 2 sigma D/sqrt(M tau T) and "
                                                         "5 L^(1/3) sigma^(2/3) D^(4/3)/(tau^(1/3) T^(2/3)) dropped"),
    }

    def _tk(self, s):
        return dict(dist_sq=s.dist_sq, M=s.M, tau=s.tau, T=s.T, L=s.L, sigma_sq=s.sigma_sq, zeta_sq=s.zeta_sq)

    def _tuned_step(self, s, mutate):
        tk = self._tk(s)
        if mutate != "step_4_over_L":
            return th.optimized_step(**tk)
        cands = [(c.radicand, c.root) for c in th.optimized_step_candidates(**tk)]
        cands[0] = (4 / s.L, 1)
        j = th.radical_argmin(cands)
        v = th.radical(*cands[j])
        return v

    def _mc_rhs(self, s, mutate):
        return self._rhs(s, mutate)

    def _rhs(self, s, mutate):
        tk = self._tk(s)
        if mutate != "drop_noise_terms":
            return th.optimized_rhs(**tk)
        import sympy
        terms = th.optimized_rhs_terms(**tk)
        total = sympy.Integer(0)
        for name, c, r, n in terms:
            if name in ("optimization", "heterogeneity"):
                v = th.radical(r, n)
                total += c * (sympy.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else v)
        return Fraction(int(total.p), int(total.q)) if total.is_Rational else total

    def decide(self, instance, mutate=None):
        from pyfed.engines.exact.fedavg_verdict import decide_tuned_convex_fedavg
        s = self.setup(instance, eta=Fraction(1))
        return decide_tuned_convex_fedavg(None, None, setup=s, tau=s.tau, T=s.T, gate=False,
                                          step=self._tuned_step(s, mutate), rhs=self._rhs(s, mutate))

    def structured(self):
        # small noise and heterogeneity: the step is 1/(4L) (rational), D = 1
        smooth = {"A": [["1"]], "b": [["1/100"], ["-1/100"]], "L": "1", "sigma": "1/100", "tau": "2", "T": "2",
                  "x0": ["1"]}
        # the noise terms set the step (irrational: certified balls)
        noisy = {"A": [["1"]], "b": [["1/2"], ["-1/2"]], "L": "1", "sigma": "2", "tau": "2", "T": "3",
                 "x0": ["1"]}
        het = {"A": [["2", "0"], ["0", "1"]], "b": [["1", "0"], ["-1", "1"], ["0", "-1"]], "L": "2",
               "sigma": "1/2", "tau": "3", "T": "2", "x0": ["1", "1"]}
        # one client, large noise, tiny heterogeneity: the noise terms carry the bound
        noise_dominated = {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "10", "zeta_sq": "1/1000000", "tau": "2",
                           "T": "3", "x0": ["1"]}
        mc = dict(het, method="montecarlo", replicates=256, seed=0)
        return [smooth, noisy, het, noise_dominated, mc]
