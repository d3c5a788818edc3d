"""The four FedAvg statements of the Field Guide (Lean namespace ``FedAvg``) as statement data:
their mutation lists (:data:`MUTATIONS`, edits of the Lean text of
``lean/Pyfed/FedAvg/Theorems.lean``) and the registry's checkers (``pyfed search FedAvg.NAME``).

What is checked is what the Lean file states: every checker reads its theorem through the
statement reader (:mod:`pyfed.statements`; a mutation edits the theorem's text first,
:func:`pyfed.checkers.mutations.mutated_statements`) and decides it on an instance with the FedAvg
engines (:func:`pyfed.engines.statement.fedavg_exact.decide_instance`: conditional statements at
every round start by an exact PSD test of the margin form, expectations from exact moments, the
non-quadratic families exactly or in certified balls; ``"method": "montecarlo"`` instances by
:func:`pyfed.engines.statement.fedavg_montecarlo.decide_montecarlo`). Instances are the JSON
dicts of :mod:`pyfed.engines.statement.fedavg_families` (exact rationals as ``"p/q"``).

A mutation that drops a term replaces the model's definition by its body without the term (the
right side of the edited theorem is the definition's body, inlined).

What each instance family can catch. With a shared Hessian A the shadow iterate is SGD on F
itself (heterogeneity never moves it) and client i's drift after k local steps is at most
k²η²‖bᵢ − b̄‖² + (1 − 1/M) k η² σ² ≤ τ²η²ζ² + τη²σ²: the constant 18 of ``driftRHS`` cannot be
lowered to 1 on that class, nor on one-dimensional clients (there the client farthest from the
mean moves away from it by at most η ζ per step when η ≤ 1/L). Clients with different curvature
in two dimensions can: three ``huber`` clients with an anisotropic common quadratic and two
ridges of opposite sign (structured instance of :class:`BoundedClientDrift`) have a drift of
1.0168 τ²η²ζ² at τ = 6 (exactly decided), so ``drift_constant_18_to_1`` is caught. The ``sqrt``
family (different curvatures, started at the optimum without noise) moves the shadow, which
catches dropping the ζ term of eq. (15).

Source: Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1, Section
6.1.2, PDF p. 41 (Lemma 1, Lemma 2, Theorem 1 eqs. (15)-(17)); Appendix D.1-D.2, PDF pp. 86-88.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from pyfed.engines.statement.fedavg_families import F, instance_from_json, q
from pyfed.errors import InputError
from pyfed.verdicts import Inconclusive

from .base import Checker, Mutation, hyp, later, qmat, qvec, rand_rat, rand_vec, rat
from .mutations import MUTATIONS, TextMutation

__all__ = ["PerRoundProgress", "BoundedClientDrift", "ConvexFedAvgConvergence", "TunedConvexFedAvgConvergence",
           "FEDAVG_MUTATIONS", "DRIFT_HUBER_INSTANCE"]

# --------------------------------------------------------------------------- mutations (data)

_STEP = ("η ≤ 1 / (4 * P.L)", "η ≤ 4 / P.L")
_DRIFT_BODY = "18 * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2 + 4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2"
_DEVIATION_NO_NOISE = ("fun ω => progressTerm R t ω + P.L / ((M : ℝ) * (τ : ℝ)) * ∑ i, ∑ k ∈ Finset.range τ, "
                       "MeasureTheory.condExp (R.history (t * τ)) μ (clientDriftSq R t k i) ω")
_CONVERGENCE_TERMS = ("distance P ^ 2 / (2 * η * (τ : ℝ) * (T : ℝ))", "η * P.σ ^ 2 / (M : ℝ)",
                      "4 * (τ : ℝ) * η ^ 2 * P.L * P.σ ^ 2", "18 * (τ : ℝ) ^ 2 * η ^ 2 * P.L * P.ζ ^ 2")
_STEP_BODY = ("min (1 / (4 * P.L)) (min (Real.sqrt (M : ℝ) * distance P / (Real.sqrt (τ : ℝ) * Real.sqrt (T : ℝ) * P.σ)) "
              "(min (Real.rpow (distance P) (2 / 3 : ℝ) / (Real.rpow (τ : ℝ) (2 / 3 : ℝ) * Real.rpow (T : ℝ) (1 / 3 : ℝ) * "
              "Real.rpow P.L (1 / 3 : ℝ) * Real.rpow P.σ (2 / 3 : ℝ))) (Real.rpow (distance P) (2 / 3 : ℝ) / ((τ : ℝ) * "
              "Real.rpow (T : ℝ) (1 / 3 : ℝ) * Real.rpow P.L (1 / 3 : ℝ) * Real.rpow P.ζ (2 / 3 : ℝ)))))")
_TUNED_RHS_NO_NOISE = ("(2 * P.L * distance P ^ 2 / ((τ : ℝ) * (T : ℝ)) + 19 * Real.rpow P.L (1 / 3 : ℝ) * "
                       "Real.rpow P.ζ (2 / 3 : ℝ) * Real.rpow (distance P) (4 / 3 : ℝ) / Real.rpow (T : ℝ) (2 / 3 : ℝ))")

#: Qualified Lean name -> its mutations (registered in :data:`pyfed.checkers.mutations.MUTATIONS`).
FEDAVG_MUTATIONS = {
    "FedAvg.PerRoundProgress": [
        TextMutation("step_4_over_L", "the step-size hypothesis η ≤ 1/(4L) replaced by η ≤ 4/L", *_STEP),
        TextMutation("drop_noise_term", "the noise term η σ²/M of deviationTerm dropped (progressRHS replaced by "
                     "its body without it)", "progressRHS R t", _DEVIATION_NO_NOISE),
    ],
    "FedAvg.BoundedClientDrift": [
        TextMutation("step_4_over_L", "the step-size hypothesis η ≤ 1/(4L) replaced by η ≤ 4/L", *_STEP),
        TextMutation("drop_heterogeneity_term", "the term 18 τ² η² ζ² of driftRHS dropped", "driftRHS P τ η",
                     "4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2"),
        TextMutation("drop_noise_term", "the term 4 τ η² σ² of driftRHS dropped", "driftRHS P τ η",
                     "18 * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2"),
        TextMutation("drift_constant_18_to_1", "the constant 18 of driftRHS replaced by 1", "driftRHS P τ η",
                     _DRIFT_BODY.replace("18 *", "1 *")),
    ],
    "FedAvg.ConvexFedAvgConvergence": [
        TextMutation("step_4_over_L", "the step-size hypothesis η ≤ 1/(4L) replaced by η ≤ 4/L", *_STEP),
        TextMutation("drop_noise_terms", "the noise terms η σ²/M + 4 τ η² L σ² of convergenceRHS dropped",
                     "convergenceRHS P τ T η", f"{_CONVERGENCE_TERMS[0]} + {_CONVERGENCE_TERMS[3]}"),
        TextMutation("drop_heterogeneity_term", "the term 18 τ² η² L ζ² of convergenceRHS dropped",
                     "convergenceRHS P τ T η", " + ".join(_CONVERGENCE_TERMS[:3])),
    ],
    "FedAvg.TunedConvexFedAvgConvergence": [
        TextMutation("step_4_over_L", "the first term 1/(4L) of optimizedStep replaced by 4/L",
                     "Run P μ τ T (optimizedStep P τ T)",
                     "Run P μ τ T (" + _STEP_BODY.replace("min (1 / (4 * P.L))", "min (4 / P.L)") + ")"),
        TextMutation("drop_noise_terms", "the noise terms 2 σ D/√(M τ T) and 5 L^(1/3) σ^(2/3) D^(4/3)/(τ^(1/3) "
                     "T^(2/3)) of optimizedRHS dropped", "optimizedRHS P τ T", _TUNED_RHS_NO_NOISE),
    ],
}
MUTATIONS.update(FEDAVG_MUTATIONS)

#: Three clients with different curvature (``huber`` family) whose drift at k = τ = 6 is
#: 1.0168 τ²η²ζ² (exact): it exceeds what shared-Hessian clients can reach.
DRIFT_HUBER_INSTANCE = {
    "family": "huber", "Q": [["1/64", "0"], ["0", "6/5"]], "b": [["1", "0"], ["-1/2", "-3/5"], ["-1/2", "3/5"]],
    "c": [["0", "0"], ["1/25", "-1/25"], ["-1/25", "1/25"]], "u": [["-1/2", "3"], ["-1/2", "-3"]], "L": "25/16",
    "sigma": "0", "zeta_sq": "1", "tau": "6", "T": "1", "eta": "4/25", "x0": ["1/64", "-1/50"]}


_STATEMENTS: dict = {}


def statement_of(name: str, mutate: str | None = None):
    """The :class:`~pyfed.statements.Statement` of ``FedAvg.<name>`` read from pyfed's
    ``lean/Pyfed/FedAvg/Theorems.lean``, with mutation ``mutate`` applied to its text (cached)."""
    key = (name, mutate)
    if key not in _STATEMENTS:
        from pyfed.statements.fedavg_run import fedavg_theorems_path
        from .mutations import mutated_statements, mutations_of

        path = fedavg_theorems_path()
        if mutate is None:
            from pyfed.statements import read_text
            (st,) = read_text(path.read_text(encoding="utf-8"), "lean/Pyfed/FedAvg/Theorems.lean", theorem=name)
        else:
            m = next((m for m in mutations_of(f"FedAvg.{name}") if m.name == mutate), None)
            if m is None:
                raise InputError("mutate", f"unknown mutation {mutate!r} of FedAvg.{name}")
            (st,) = mutated_statements(path, name, m)
        _STATEMENTS[key] = st
    return _STATEMENTS[key]


def _rand_spd(rng, d):
    """A random rational symmetric positive definite d x d matrix (B B^T + c I)."""
    B = [[Fraction(int(rng.integers(-2, 3)), 2) for _ in range(d)] for _ in range(d)]
    c = Fraction(int(rng.integers(1, 5)), 4)
    return [[sum(B[i][k] * B[j][k] for k in range(d)) + (c if i == j else 0) for j in range(d)] for i in range(d)]


def _l_bound(A):
    """A rational upper bound on lambda_max(A): the largest absolute row sum (Gershgorin)."""
    return max(sum(abs(x) for x in r) for r in A)


class _FedAvg(Checker):
    """Shared machinery of the four FedAvg checkers: the statement read from Lean, instances of
    :mod:`pyfed.engines.statement.fedavg_families`, the engines' verdicts."""

    namespace = "FedAvg"
    default_budget = 6
    tuned = False
    #: how many of the random instances are improved by Nelder-Mead (see :meth:`climb`)
    optimised_starts = 1

    def lean_statement(self, mutate=None):
        """The statement read from Lean (mutated by ``mutate``)."""
        return statement_of(self.lean_name, mutate)

    def instance(self, inst):
        """The engines' instance of a JSON dict (InputError ``instance`` when malformed)."""
        if not isinstance(inst, dict):
            raise InputError("instance", f"must be a dict, got {type(inst).__name__}")
        try:
            return instance_from_json(inst, name=self.lean_name)
        except InputError as exc:
            if exc.argument in ("instance", "A"):
                raise
            raise InputError("instance", f"malformed {self.lean_name} instance ({exc})") from None

    def hypotheses(self, instance, mutate=None):
        """The (mutated) statement's hypotheses on the instance, then the problem's (the fields of
        ``FedAvg.Problem``), each with its margin."""
        from pyfed.engines.statement.fedavg_access import Scalars, bind

        self._mutation(mutate)
        ri = self.instance(instance)
        st = self.lean_statement(mutate)
        b = bind(st, ri, Scalars("exact"))
        if b.why is not None:
            raise InputError("instance", f"malformed {self.lean_name} instance: {b.why}")
        out = [hyp(k, text, m if isinstance(m, (int, Fraction)) else (Fraction(0) if h else None)) if h
               else hyp(k, text, None) for k, text, h, m in b.hypotheses]
        return out + list(ri.hypotheses)

    def check(self, instance, relax=(), mutate=None):
        """The engines' verdict (exact, or Monte Carlo with ``"method": "montecarlo"``); failing
        hypotheses not relaxed make it Inconclusive."""
        relax = self.effective_relax(relax, mutate)
        self._mutation(mutate)
        try:
            hs = self.hypotheses(instance, mutate=mutate)
        except InputError:
            raise
        except (KeyError, TypeError, IndexError, ValueError, AttributeError) as exc:
            raise InputError("instance", f"malformed {self.lean_name} instance ({type(exc).__name__}: {exc}); "
                                         "see pyfed.engines.statement.fedavg_families for the expected keys") from None
        bad = [h for h in hs if not h.holds and h.key not in relax]
        if bad:
            return Inconclusive(self.verdict_name, exact=True, details={
                "failing_hypotheses": {h.key: (q(h.margin) if isinstance(h.margin, Fraction)
                                               else (None if h.margin is None else str(h.margin))) for h in bad}},
                reason="hypotheses fail (vacuous instance): " + ", ".join(h.statement for h in bad))
        v = self.decide(instance, mutate)
        if mutate:
            v.details["mutate"] = mutate
        return v

    def decide(self, instance, mutate=None):
        """The verdict of the (mutated) statement on ``instance``, hypotheses not gated."""
        ri = self.instance(instance)
        st = self.lean_statement(mutate)
        if instance.get("method", "exact") == "montecarlo":
            from pyfed.engines.statement.fedavg_montecarlo import decide_montecarlo
            return decide_montecarlo(st, ri, replicates=int(instance.get("replicates", 256)),
                                     seed=int(instance.get("seed", 0)), name=self.verdict_name,
                                     witness={"instance": instance})
        from pyfed.engines.statement.fedavg_exact import decide_instance
        return decide_instance(st, ri, gate=False, name=self.verdict_name).verdict

    def lhs(self, instance, mutate=None):
        return self.decide(instance, mutate).lhs

    def rhs(self, instance, mutate=None):
        return self.decide(instance, mutate).rhs

    def lean_instance(self, instance):
        """Scalars of the Lean right side (M, tau, T, eta, L, sigma, zeta_sq, dist_sq)."""
        ri = self.instance(instance)
        out = {"M": str(ri.M), "tau": str(ri.tau), "T": str(ri.T), "L": q(ri.L), "sigma": q(F(instance["sigma"])),
               "zeta_sq": q(ri.zeta_sq), "dist_sq": q(ri.dist_sq)}
        if not self.tuned and ri.eta is not None:
            out["eta"] = q(ri.eta)
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
            inst["zeta_sq"] = q(self.instance(inst).zeta_sq + rand_rat(rng, 0, 2, 4))
        if self.tuned:
            del inst["eta"]
            if sigma == 0:
                inst["sigma"] = "1/2"
            if "zeta_sq" not in inst and M == 1:
                inst["zeta_sq"] = "1/16"     # zeta > 0 is a hypothesis of the tuned statement
        return inst

    def candidates(self, rng, budget, relax=(), mutate=None):
        yield from self.structured()
        if "step_size" in relax or mutate == "step_4_over_L":
            # gradient steps of size 4/L along an eigenvalue L: |1 - eta L| = 3, the iterates grow
            yield self._boundary_instance()
        for i in range(budget):
            inst = self.random(rng, relax)
            yield inst
            if i < self.optimised_starts and not relax:
                yield later(self.climb, inst, mutate)

    def _boundary_instance(self):
        if self.tuned:   # one client, tiny noise and heterogeneity: the tuned step is its first term
            return {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "1/1000", "zeta_sq": "1/1000000", "tau": "4",
                    "T": "2", "x0": ["1"]}
        return {"A": [["1"]], "b": [["1"], ["-1"]], "L": "1", "sigma": "0", "tau": "4", "T": "2", "eta": "4",
                "x0": ["1"]}

    def climb(self, inst, mutate=None, maxiter=30):
        """Nelder-Mead on lhs/rhs over b, x0, the step fraction and sigma (rationalised; inside
        the hypotheses); returns the best instance found (deterministic)."""
        if inst.get("family", "quadratic") != "quadratic":
            return inst
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
            if v.rhs is None or v.lhs is None or not float(v.rhs) > 0:
                return 1e300
            r = float(v.lhs) / float(v.rhs)
            if r > best["ratio"]:
                best.update(inst=cand, ratio=r)
            return -r
        self.optimise(obj, vals, maxiter=maxiter)
        return best["inst"]


def _mutations(name, step_relax=True):
    """The checker's ``mutations`` (name -> :class:`Mutation`) from :data:`FEDAVG_MUTATIONS`; a
    loosened step hypothesis relaxes ``step_size`` (the search samples beyond it)."""
    out = {}
    for m in FEDAVG_MUTATIONS[f"FedAvg.{name}"]:
        relax = ("step_size",) if (m.name == "step_4_over_L" and step_relax) else ()
        out[m.name] = Mutation(m.name, m.description, relax=relax)
    return out


_ONE = {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "0", "tau": "1", "T": "1", "eta": "1/4", "x0": ["1"]}
_HET = {"A": [["2", "0"], ["0", "1"]], "b": [["1", "0"], ["-1", "1"], ["0", "-1"]], "L": "2", "sigma": "1/2",
        "tau": "3", "T": "2", "eta": "1/8", "x0": ["1", "1"]}


class PerRoundProgress(_FedAvg):
    """PerRoundProgress (Lemma 1): for 0 < tau, 0 < T, 0 < eta <= 1/(4L) and every round t < T,

        E[A_t | F_{t tau}] <= (||xbar^{t,0} - x*||^2 - E[||xbar^{t,tau} - x*||^2 | F_{t tau}])/(2 eta tau)
                              + eta sigma^2/M + L/(M tau) sum_i sum_{k<tau} E[||x_i^{t,k} - xbar^{t,k}||^2 | F_{t tau}]

    (Lean ``FedAvg.PerRoundProgress``, right side ``FedAvg.progressRHS``), read from
    ``lean/Pyfed/FedAvg/Theorems.lean``. Decided at every round start y in R^d: the margin is a
    quadratic form in (y, 1), PSD iff the lemma holds from every y.

    Source: Wang et al., Field Guide, arXiv:2107.06917v1, Section 6.1.2, PDF p. 41, Lemma 1;
    Appendix D.1, PDF pp. 86-87, equations (24)-(27).
    """

    lean_name = "PerRoundProgress"
    statement = ("E[A_t | F] <= (||xbar^{t,0} - x*||^2 - E[||xbar^{t,tau} - x*||^2 | F])/(2 eta tau) + eta sigma^2/M "
                      "+ L/(M tau) sum_i sum_{k<tau} E[drift_i^{t,k} | F]")
    source = "Field Guide arXiv:2107.06917v1, Sec. 6.1.2, PDF p. 41, Lemma 1; App. D.1, PDF pp. 86-87"
    mutations = _mutations("PerRoundProgress")

    def structured(self):
        # noise from the optimum: only the noise term is positive
        noisy = {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "1", "tau": "2", "T": "1", "eta": "1/4", "x0": ["0"]}
        return [_ONE, noisy, _HET]


class BoundedClientDrift(_FedAvg):
    """BoundedClientDrift (Lemma 2): for 0 < tau, 0 < T, 0 < eta <= 1/(4L), every round t < T,
    client i and local step k <= tau,

        E[||x_i^{t,k} - xbar^{t,k}||^2 | F_{t tau}] <= 18 tau^2 eta^2 zeta^2 + 4 tau eta^2 sigma^2

    (Lean ``FedAvg.BoundedClientDrift``, right side ``FedAvg.driftRHS P tau eta``), read from
    ``lean/Pyfed/FedAvg/Theorems.lean``. Decided at every round start, client and k <= tau on
    quadratic clients; on the huber clients along their run.

    Source: Wang et al., Field Guide, arXiv:2107.06917v1, Section 6.1.2, PDF p. 41, Lemma 2;
    Appendix D.2, PDF pp. 87-88.
    """

    lean_name = "BoundedClientDrift"
    statement = "E[||x_i^{t,k} - xbar^{t,k}||^2 | F_{t tau}] <= 18 tau^2 eta^2 zeta^2 + 4 tau eta^2 sigma^2"
    source = "Field Guide arXiv:2107.06917v1, Sec. 6.1.2, PDF p. 41, Lemma 2; App. D.2, PDF pp. 87-88"
    mutations = _mutations("BoundedClientDrift")

    def structured(self):
        # two clients pulling apart along a direction of tiny curvature: drift close to k^2 eta^2 zeta^2
        flat = {"A": [["1", "0"], ["0", "1/1000"]], "b": [["0", "1"], ["0", "-1"]], "L": "1", "sigma": "0",
                "tau": "4", "T": "1", "eta": "1/4", "x0": ["0", "0"]}
        # identical clients, pure noise (zeta = 0)
        noisy = {"A": [["1"]], "b": [["1"], ["1"]], "L": "1", "sigma": "1", "tau": "3", "T": "1", "eta": "1/4",
                 "x0": ["0"]}
        return [flat, noisy, _HET, DRIFT_HUBER_INSTANCE]


class ConvexFedAvgConvergence(_FedAvg):
    """ConvexFedAvgConvergence (Theorem 1, eq. (15)): for 0 < tau, 0 < T and 0 < eta <= 1/(4L),

        E[A] <= D^2/(2 eta tau T) + eta sigma^2/M + 4 tau eta^2 L sigma^2 + 18 tau^2 eta^2 L zeta^2

    (Lean ``FedAvg.ConvexFedAvgConvergence``, right side ``FedAvg.convergenceRHS P tau T eta``),
    read from ``lean/Pyfed/FedAvg/Theorems.lean``; E[A] exactly (exact moments, or the sqrt
    family's deterministic run in certified balls); ``"method": "montecarlo"`` instances simulated.

    Source: Wang et al., Field Guide, arXiv:2107.06917v1, Section 6.1.2, PDF p. 41, Theorem 1,
    equation (15).
    """

    lean_name = "ConvexFedAvgConvergence"
    statement = "E[A] <= D^2/(2 eta tau T) + eta sigma^2/M + 4 tau eta^2 L sigma^2 + 18 tau^2 eta^2 L zeta^2"
    source = "Field Guide arXiv:2107.06917v1, Sec. 6.1.2, PDF p. 41, Theorem 1, eq. (15)"
    mutations = _mutations("ConvexFedAvgConvergence")

    def structured(self):
        # start at the optimum with noise: only the noise terms are positive
        noisy = {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "1", "tau": "2", "T": "3", "eta": "1/4",
                 "x0": ["0"]}
        mc = dict(_HET, method="montecarlo", replicates=256, seed=0)
        out = [_ONE, noisy, _HET, mc]
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
        eta = 4 / L if "step_size" in relax else (1 / (4 * L)) * (1 if rng.random() < 0.5 else
                                                                rand_rat(rng, Fraction(1, 4), 1, 8))
        return {"family": "sqrt", "a": q(a), "b": qvec(b), "c": qvec(c), "L": q(L), "sigma": "0", "zeta_sq": q(z2),
                "tau": str(int(rng.integers(1, 6))), "T": str(int(rng.integers(1, 4))), "eta": q(eta),
                "x0": [q(rand_rat(rng, -2, 2, 4))]}


class TunedConvexFedAvgConvergence(ConvexFedAvgConvergence):
    """TunedConvexFedAvgConvergence (Theorem 1, eqs. (16)-(17)): for 0 < tau, 0 < T and D, sigma,
    zeta > 0, with eta = min{1/(4L), sqrt(M) D/(sqrt(tau) sqrt(T) sigma),
    D^(2/3)/(tau^(2/3) T^(1/3) L^(1/3) sigma^(2/3)), D^(2/3)/(tau T^(1/3) L^(1/3) zeta^(2/3))},

        E[A] <= 2 L D^2/(tau T) + 2 sigma D/sqrt(M tau T) + 5 L^(1/3) sigma^(2/3) D^(4/3)/(tau^(1/3) T^(2/3))
                + 19 L^(1/3) zeta^(2/3) D^(4/3)/T^(2/3)

    (Lean ``FedAvg.TunedConvexFedAvgConvergence``, ``optimizedStep``/``optimizedRHS``), read from
    ``lean/Pyfed/FedAvg/Theorems.lean``. The minimising term of the step is decided exactly; an
    irrational step (or right side) is handled in certified ball arithmetic.

    Source: Wang et al., Field Guide, arXiv:2107.06917v1, Section 6.1.2, PDF p. 41, Theorem 1,
    equations (16)-(17).
    """

    lean_name = "TunedConvexFedAvgConvergence"
    statement = "with eta = optimizedStep (eq. 16): E[A] <= optimizedRHS (eq. 17)"
    source = "Field Guide arXiv:2107.06917v1, Sec. 6.1.2, PDF p. 41, Theorem 1, eqs. (16)-(17)"
    tuned = True
    mutations = _mutations("TunedConvexFedAvgConvergence", step_relax=False)

    def structured(self):
        # small noise and heterogeneity: the step is 1/(4L) (rational), D = 1
        smooth = {"A": [["1"]], "b": [["1/100"], ["-1/100"]], "L": "1", "sigma": "1/100", "tau": "2", "T": "2",
                  "x0": ["1"]}
        # the noise terms set the step (irrational: certified balls)
        noisy = {"A": [["1"]], "b": [["1/2"], ["-1/2"]], "L": "1", "sigma": "2", "tau": "2", "T": "3", "x0": ["1"]}
        het = {k: v for k, v in _HET.items() if k != "eta"}
        # one client, large noise, tiny heterogeneity: the noise terms carry the bound
        noise_dominated = {"A": [["1"]], "b": [["0"]], "L": "1", "sigma": "10", "zeta_sq": "1/1000000", "tau": "2",
                           "T": "3", "x0": ["1"]}
        mc = dict(het, method="montecarlo", replicates=256, seed=0)
        return [smooth, noisy, het, noise_dominated, mc]
