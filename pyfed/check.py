"""``pyfed check``: the main job — honest verdicts on the SCAFFOLD theorems on concrete runs.

The default suite (``default_suite``):

1. ``ConvexFiniteRoundConvergence`` on a rational quadratic instance with Gaussian noise;
2. ``ConvexFiniteRoundConvergence`` on L2-regularised logistic regression over scikit-learn's
   bundled breast-cancer data, split non-iid (Dirichlet label skew) across N clients, S < N,
   with the minibatch oracle and its certified sigma;
3. ``NonconvexFiniteRoundConvergence`` on the nonconvex-regularised logistic loss over the
   same data ("similarity 10%" split), warm-start controls as the theorem requires;
4. the four FedAvg statements of the Field Guide (namespace ``FedAvg``) on an exact shared-Hessian
   quadratic instance and a real-data Monte Carlo instance (:mod:`pyfed.check_fedavg`, appended by
   :func:`run_check`).

The SCAFFOLD statements themselves are read from ``lean/Pyfed/Scaffold/Theorems.lean`` by the statement
reader (:mod:`pyfed.statements`): hypotheses, left statistic and right side come from the Lean
text, and the engines (:mod:`pyfed.engines.statement`) evaluate them. The rational quadratic
instance is decided exactly (exact moments); the real-data instances are simulated with the
seed-000 ``Run`` model over R replicates (Monte Carlo with a confidence interval); step sizes are
chosen inside the hypotheses (and printed). Each result is a :class:`pyfed.verdicts.Verdict`.

:func:`check_statement` does the same for any statement read from a user's Lean file
(``pyfed check PATH.lean``), adding the adversarial search, the PEP row where it applies and the
constant profile.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from . import __version__
from .errors import InputError, check_int
from .exact import as_float, cap_report, number_json, to_fraction
from .theory import (convex_hypotheses, convex_rhs, effective_step, initial_control_error,
                     nonconvex_hypotheses, nonconvex_rhs, squared_distance)
from .verdicts import Inconclusive, Verdict

CONVEX = "ConvexFiniteRoundConvergence"
NONCONVEX = "NonconvexFiniteRoundConvergence"

__all__ = ["Instance", "default_suite", "run_instance", "run_check", "CONVEX", "NONCONVEX",
           "round_down", "round_up", "convex_step", "nonconvex_step", "instance_constants",
           "instance_hypotheses", "instance_rhs"]


def round_down(value, digits: int = 6) -> Fraction:
    """A short rational <= value (value > 0), keeping ``digits`` significant digits.

    Used to pick step sizes that are exact rationals strictly inside a hypothesis.
    """
    v = float(value)
    if not (v > 0) or not math.isfinite(v):
        raise InputError("value", f"must be a finite positive number, got {value!r}")
    e = math.floor(math.log10(v)) - digits + 1
    scale = Fraction(10) ** (-e)
    k = math.floor(Fraction(v) * scale)
    out = Fraction(k) / scale
    # guard: the float value might round above an exact bound; callers verify hypotheses exactly
    return out if out > 0 else Fraction(v)


def round_up(value, digits: int = 6) -> Fraction:
    """A short rational >= value (value > 0) with ``digits`` significant digits (exact
    comparison: never below ``value``, floats taken at their exact binary value)."""
    v = float(value)
    if not (v > 0) or not math.isfinite(v):
        raise InputError("value", f"must be a finite positive number, got {value!r}")
    e = math.floor(math.log10(v)) - digits + 1
    scale = Fraction(10) ** (-e)
    exact = Fraction(v) if to_fraction(value) is None else to_fraction(value)
    return Fraction(math.ceil(exact * scale)) / scale


def convex_step(beta, mu, N: int, S: int, K: int, eta_g=1) -> Fraction:
    """eta_l (rational) with h = K eta_l eta_g <= min(1/(81 beta), S/(15 N mu)) (seed 000 hypotheses)."""
    bound = 1 / (81 * float(beta))
    if float(mu) > 0:
        bound = min(bound, S / (15 * N * float(mu)))
    return round_down(bound * (1 - 1e-9) / (K * float(eta_g)))


def nonconvex_step(beta, N: int, S: int, K: int, eta_g=1) -> Fraction:
    """eta_l (rational) with h <= (S/N)^(2/3)/(24 beta) (nonconvex theorem's hypothesis)."""
    bound = (S / N) ** (2 / 3) / (24 * float(beta))
    return round_down(bound * (1 - 1e-9) / (K * float(eta_g)))


@dataclass
class Instance:
    """One theorem instance: a problem, an oracle and run parameters.

    Attributes
    ----------
    name : str
    theorem : str
        ``CONVEX`` or ``NONCONVEX`` (Lean names).
    problem, oracle
    S, K, T : int
        Clients per round, local steps, rounds.
    eta_l, eta_g : Fraction
        Local and global step sizes.
    x0 : ndarray (d,)
    c0 : ndarray (N, d) | None
        Given initial controls (convex theorem) or None for the K-sample warm start.
    description : str
    """

    name: str
    theorem: str
    problem: object
    oracle: object
    S: int
    K: int
    T: int
    eta_l: Fraction
    eta_g: Fraction
    x0: np.ndarray
    c0: np.ndarray | None
    description: str = ""
    c0_exact: object = None
    x0_exact: object = None
    extra: dict = field(default_factory=dict)

    def parameters(self) -> dict:
        h = effective_step(self.K, self.eta_l, self.eta_g)
        return {"N": self.problem.N, "d": self.problem.d, "S": self.S, "K": self.K, "T": self.T,
                "eta_l": str(self.eta_l), "eta_g": str(self.eta_g), "h": str(h),
                "beta": str(self.problem.beta),
                **({"mu": str(self.problem.mu)} if self.theorem == CONVEX else {}),
                "sigma": str(self.oracle.sigma), "oracle": self.oracle.name,
                "controls": "given c0 = grad f_i(x0)" if self.c0 is not None else "warm start (K samples at x0)"}


def _sigma(oracle):
    s = getattr(oracle, "sigma", 0)
    return s


def default_suite(*, quick: bool = False, seed: int = 0) -> list[Instance]:
    """The built-in instances of ``pyfed check`` (see module docstring).

    ``quick`` shortens the horizon to T = 8 rounds (40 otherwise).
    """
    from .oracles import GaussianOracle, MinibatchOracle
    from .problems import random_quadratic
    from .problems.logistic import LogisticProblem
    from .problems.nonconvex import NonconvexLogisticProblem

    rng = np.random.default_rng(seed)
    T = 8 if quick else 40
    suite = []

    # 1. rational quadratic, Gaussian noise, exact right side
    q = random_quadratic(8, 4, np.random.default_rng(1000 + seed), mu=Fraction(1, 10), L=1,
                         rational=True, heterogeneity=1, name="quadratic-rational-N8-d4")
    N, S, K = q.N, 4, 4
    eta_g = Fraction(1)
    eta_l = convex_step(q.beta, q.mu, N, S, K, eta_g)
    x0e = np.array([Fraction(1)] * q.d, dtype=object)
    c0e = q.grads_exact(x0e)
    suite.append(Instance(
        name=q.name, theorem=CONVEX, problem=q, oracle=GaussianOracle(q, Fraction(1, 2)),
        S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g,
        x0=np.array([float(v) for v in x0e]), c0=np.array([[float(v) for v in row] for row in c0e]),
        c0_exact=c0e, x0_exact=x0e,
        description="8 rational quadratic clients (mu=1/10, L=1), Gaussian noise sigma=1/2"))

    # 2. L2-logistic regression on real data, Dirichlet label skew, minibatch oracle
    lg = LogisticProblem.from_dataset("breast_cancer", N=10, scheme="dirichlet", rng=np.random.default_rng(2000 + seed),
                                      lam=0.05, alpha=0.5)
    N, S, K = lg.N, 5, 5
    eta_l = convex_step(lg.beta, lg.mu, N, S, K, eta_g)
    x0 = np.zeros(lg.d)
    c0 = lg.client_grads(np.broadcast_to(x0, (lg.N, lg.d)))
    suite.append(Instance(
        name="logistic-breast_cancer-dirichlet0.5", theorem=CONVEX, problem=lg, oracle=MinibatchOracle(lg, 8),
        S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, x0=x0, c0=c0,
        description="L2-logistic regression (lambda=0.05), breast cancer, 10 clients, Dirichlet(0.5) label skew, minibatch b=8"))

    # 3. nonconvex real-data loss, similarity split, warm start
    nc = NonconvexLogisticProblem.from_dataset("breast_cancer", N=10, scheme="similarity",
                                               rng=np.random.default_rng(3000 + seed), lam=0.05, similarity=10)
    N, S, K = nc.N, 5, 5
    eta_l = nonconvex_step(nc.beta, N, S, K, eta_g)
    suite.append(Instance(
        name="nonconvex-logistic-breast_cancer-sim10", theorem=NONCONVEX, problem=nc, oracle=MinibatchOracle(nc, 8),
        S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g, x0=np.zeros(nc.d), c0=None,
        description="logistic loss + 0.05 sum x_j^2/(1+x_j^2), breast cancer, 10 clients, similarity 10%, minibatch b=8, warm start"))
    del rng
    return suite


def instance_hypotheses(inst: Instance):
    """The theorem's hypotheses evaluated on ``inst`` (list of pyfed.theory.Hypothesis)."""
    p = inst.problem
    common = dict(N=p.N, S=inst.S, K=inst.K, T=inst.T, eta_l=inst.eta_l, eta_g=inst.eta_g,
                  beta=p.beta, sigma=_sigma(inst.oracle))
    if inst.theorem == CONVEX:
        return convex_hypotheses(mu=p.mu, convexity=p.convexity(p.mu), **common)
    f_x0 = float(p.value(inst.x0))
    return nonconvex_hypotheses(f_low=p.f_low, f_x0=f_x0, f_low_certificate=p.derivations.get("f_low"), **common)


def instance_constants(inst: Instance) -> dict:
    """The problem-dependent numbers of the right side: ``dist_sq`` = ||x0 - x*||^2 and ``C0``
    (convex theorem) or ``f_gap`` = f(x0) - f_low (nonconvex). Exact Fractions for rational
    quadratic data with exact x0, c0; floats otherwise."""
    p = inst.problem
    if inst.theorem == CONVEX:
        if inst.c0_exact is not None and getattr(p, "exact", False):
            dist_sq = squared_distance(inst.x0_exact, p.x_star_exact)
            C0 = initial_control_error(inst.c0_exact, p.grads_exact(p.x_star_exact))
        else:
            dist_sq = float(np.sum((inst.x0 - p.x_star) ** 2))
            gs = p.client_grads(np.broadcast_to(p.x_star, (p.N, p.d)))
            C0 = float(np.mean(np.sum((inst.c0 - gs) ** 2, axis=1)))
        return {"dist_sq": dist_sq, "C0": C0}
    return {"f_gap": float(p.value(inst.x0)) - as_float(p.f_low)}


def instance_rhs(inst: Instance):
    """The theorem's right side on ``inst`` (exact Fraction when all inputs are rational)."""
    p = inst.problem
    k = instance_constants(inst)
    if inst.theorem == CONVEX:
        return convex_rhs(dist_sq=k["dist_sq"], C0=k["C0"], N=p.N, S=inst.S, K=inst.K, T=inst.T,
                          eta_l=inst.eta_l, eta_g=inst.eta_g, mu=p.mu, sigma=_sigma(inst.oracle))
    return nonconvex_rhs(f_gap=k["f_gap"], beta=p.beta, S=inst.S, K=inst.K, T=inst.T, eta_l=inst.eta_l,
                         eta_g=inst.eta_g, sigma=_sigma(inst.oracle))


def exact_engine_applies(inst: Instance) -> bool:
    """True when the left side can be computed exactly: quadratic clients with rational data
    and exact or Gaussian (known covariance) noise (issue 3, :mod:`pyfed.engines.exact`)."""
    from .oracles import ExactOracle, GaussianOracle
    from .problems.quadratic import QuadraticProblem

    return (isinstance(inst.problem, QuadraticProblem) and getattr(inst.problem, "exact", False)
            and type(inst.oracle) in (ExactOracle, GaussianOracle))


def to_run_instance(inst: Instance):
    """The :class:`pyfed.engines.statement.RunInstance` of a default-suite instance."""
    from .engines.statement import RunInstance

    return RunInstance(name=inst.name, problem=inst.problem, sigma=_sigma(inst.oracle), S=inst.S, K=inst.K, T=inst.T,
                       eta_l=inst.eta_l, eta_g=inst.eta_g,
                       x0=inst.x0_exact if inst.x0_exact is not None else inst.x0,
                       c0=inst.c0_exact if inst.c0_exact is not None else inst.c0,
                       oracle=inst.oracle, description=inst.description)


def statement_of(theorem: str):
    """The :class:`pyfed.statements.Statement` of one of our theorems, read from
    ``lean/Pyfed/Scaffold/Theorems.lean`` (InputError if the file does not state it)."""
    from .statements import our_statements

    sts = our_statements()
    if theorem not in sts:
        raise InputError("theorem", f"{theorem!r} is not a run statement of lean/Pyfed/Scaffold/Theorems.lean "
                                    f"(found: {', '.join(sts)})")
    return sts[theorem]


def run_instance(inst: Instance, *, replicates: int = 256, seed: int = 0, confidence: float = 0.999,
                 statement=None) -> Verdict:
    """Decide ``statement`` (default: ``inst.theorem`` as ``lean/Pyfed/Scaffold/Theorems.lean`` states
    it, read by :mod:`pyfed.statements`) on ``inst``: exactly (exact-moment engine) for rational
    quadratic clients with Gaussian/exact oracles, otherwise by simulating the ``Run`` model over
    ``replicates`` replicates (Monte Carlo with a ``confidence`` interval).

    Returns a Verdict whose ``details`` hold the parameters, hypotheses, estimate and seed.
    If a hypothesis fails the verdict is Inconclusive (the theorem says nothing there). If the
    simulated run diverges (:class:`pyfed.errors.Diverged`) the verdict is Inconclusive with
    "diverged at round r" and ``details["anomaly"]`` (it happened inside the hypotheses; see
    :func:`pyfed.engines.montecarlo.diverged`).
    """
    from .engines.statement import decide_exact, decide_montecarlo, evaluate_hypotheses, fits

    replicates = check_int("replicates", replicates, minimum=2)
    st = statement if statement is not None else statement_of(inst.theorem)
    ri = to_run_instance(inst)
    why = fits(st, ri)
    details = {"instance": inst.name, "description": inst.description, "parameters": inst.parameters(),
               "seed": seed}
    if why:
        return Inconclusive(st.name, details=details, reason=f"instance does not fit the statement: {why}")
    hyps = evaluate_hypotheses(st, ri)
    details["hypotheses"] = [{"key": h.key, "statement": h.statement, "holds": h.holds,
                              "margin": number_json(h.margin)} for h in hyps]
    if exact_engine_applies(inst):
        v = decide_exact(st, ri)
        hyp_engine = v.details.get("hypotheses")
        v.details.update(details)
        rhs = v.rhs
        if isinstance(rhs, Fraction):  # the exact right side, also when the engine used balls
            v.details["rhs_exact"] = number_json(rhs)
        elif "rhs_exact" not in v.details:
            try:
                from .engines.statement import ExactAccess, bind
                from .statements.evaluate import evaluate
                exact_rhs = evaluate(st.rhs, bind(st, ri, ExactAccess(ri)))
                if isinstance(exact_rhs, Fraction):
                    v.details["rhs_exact"] = number_json(exact_rhs)
            except Exception:  # reporting only
                pass
        v.details["method"] = "exact-moments"
        if hyp_engine:
            v.details["hypotheses"] = hyp_engine
        return v
    bad = [h for h in hyps if not h.holds]
    if bad:
        from .engines.statement import FloatAccess, bind
        from .statements.evaluate import evaluate
        try:
            rhs = evaluate(st.rhs, bind(st, ri, FloatAccess(ri)))
        except Exception:
            rhs = None
        return Inconclusive(st.name, rhs=rhs, details=details,
                            reason="hypotheses fail: " + "; ".join(h.statement for h in bad))
    return decide_montecarlo(st, ri, replicates=replicates, seed=seed, confidence=confidence, details_extra=details)


def default_replicates(quick: bool) -> int:
    """Monte Carlo replicates per instance when the user gives none: 64 quick, 256 otherwise."""
    return 64 if quick else 256


def run_check(*, quick: bool = False, seed: int = 0, replicates: int | None = None,
              progress=None, fedavg: bool = True) -> list[Verdict]:
    """Run the default suite; returns the list of verdicts: the theorem instances, then one
    PEP worst-case row for the convex theorem (every function of the class, sigma = 0, S = N),
    then (``fedavg=True``) the FedAvg statements of the Field Guide on an exact quadratic and a
    real-data instance (:func:`pyfed.check_fedavg.run_fedavg_check`; their verdicts carry the
    qualified names ``FedAvg.*``).

    The statements are read from ``lean/Pyfed/Scaffold/Theorems.lean`` by :mod:`pyfed.statements`
    (what is checked is what the Lean file states). ``progress``: optional callable
    ``progress(label)`` invoked before each task.
    """
    from .engines.pep.statement import pep_row

    reps = replicates if replicates is not None else default_replicates(quick)
    out = []
    for inst in default_suite(quick=quick, seed=seed):
        if progress:
            progress(inst.name)
        out.append(run_instance(inst, replicates=reps, seed=seed, statement=statement_of(inst.theorem)))
    # worst case over the whole function class at a small size (PEP, deterministic regime)
    if progress:
        progress("PEP worst case (ConvexFiniteRoundConvergence, N=2 K=2 T=2)")
    out.append(pep_row(statement_of(CONVEX)))
    if fedavg:
        from .check_fedavg import run_fedavg_check

        out.extend(run_fedavg_check(quick=quick, seed=seed, replicates=reps, progress=progress))
    return out


def report_json(verdicts: list[Verdict], *, seed: int, quick: bool, replicates, statements=()) -> str:
    """The JSON report written by ``pyfed check --json``: theorem verdicts, and the statement
    checkers' verdicts (``[(lean_name, Verdict)]`` from :func:`checkers.run_all`)."""
    return json.dumps({"pyfed": __version__, "seed": seed, "quick": quick, "replicates": replicates,
                       "verdicts": [v.to_json() for v in verdicts],
                       "statements": [dict(v.to_json(), lean_name=name) for name, v in statements]},
                      indent=2, sort_keys=True, default=str)


# --------------------------------------------------------------------------- a user's statements

def default_budget(quick: bool) -> int:
    """Random candidates of the adversarial search per statement (after the structured ones):
    8 with ``--quick``, 24 otherwise."""
    return 8 if quick else 24


@dataclass
class StatementReport:
    """Everything ``pyfed check FILE.lean`` found for one statement.

    statement : pyfed.statements.Statement; verdicts : list[Verdict] (default-suite instances
    that fit, the adversarial search, the PEP row when there is one); pep_note : why there is
    no PEP row (or ""); profile : the constant profile (dict, see
    :func:`pyfed.engines.statement_search.constant_profile`) or None; search : the search's
    SearchResult; exports : written counterexample files; engines : which engines apply
    (:func:`pyfed.engines.statement.applicable_engines`); vacuous : why the hypotheses can never
    hold (:func:`pyfed.statements.vacuity.vacuity`) or None; no_instance : True when no instance of
    any engine satisfied the hypotheses (the statement may be vacuous; not proven); tried : how
    many instances were tried (built-in rows, search candidates, the PEP row's instance);
    skipped : ``[(instance name, why)]`` of the built-in instances that cannot bind the statement
    (:func:`pyfed.engines.statement.fits`), said in the report rather than dropped silently.
    """

    statement: object
    verdicts: list
    pep_note: str = ""
    profile: dict | None = None
    search: object = None
    exports: list = field(default_factory=list)
    engines: dict = field(default_factory=dict)
    vacuous: str | None = None
    no_instance: bool = False
    tried: int = 0
    skipped: list = field(default_factory=list)

    def vacuity_note(self) -> str:
        """One line for the report: the statement is vacuous (its hypotheses never hold, proven
        from its text), or no instance any engine tried satisfied them (not a proof), or ""."""
        if self.vacuous:
            return (f"{self.statement.name}: vacuous: {self.vacuous}, so the hypotheses can never hold; the statement "
                    "is true in Lean for that reason alone and no instance can test it")
        if self.no_instance:
            n = self.tried
            what = f"none of the {n} instance{'s' if n != 1 else ''} tried satisfies" if n else "no instance was tried that satisfies"
            return (f"{self.statement.name}: {what} the hypotheses (pyfed's instance ranges may be the limit; "
                    "vacuity is not proven): the verdicts above say nothing about the conclusion")
        return ""


def fit_instance_step(st, inst: Instance) -> tuple:
    """``(instance, note)``: ``inst`` unchanged with note None when ``st``'s hypotheses hold on it
    or cannot be met by a smaller step; otherwise a copy whose local step ηl is halved exactly
    until every hypothesis holds (:func:`pyfed.engines.statement.fit_step`: only when the failing
    hypotheses all involve the step, at most 64 halvings, all hypotheses re-decided each time),
    with the description saying so, and the note ``{"from", "to", "halvings", "h"}`` (exact
    rationals as strings, h = K ηl ηg)."""
    import dataclasses
    from .engines.statement import fit_step

    fitted, k, _ = fit_step(st, to_run_instance(inst))
    if fitted is None or k == 0:
        return inst, None
    new = Fraction(fitted.eta_l)
    times = "once" if k == 1 else f"{k} times"
    text = f"ηl reduced from {inst.eta_l} to {new} (halved {times}) to satisfy the statement's hypotheses"
    out = dataclasses.replace(inst, eta_l=new, description=f"{inst.description}; {text}" if inst.description else text)
    return out, {"from": str(inst.eta_l), "to": str(new), "halvings": k,
                 "h": str(effective_step(out.K, out.eta_l, out.eta_g)), "text": text}


def check_statement(st, *, quick: bool = False, seed: int = 0, replicates: int | None = None,
                    budget: int | None = None, profile: bool = True, out: str | None = None,
                    progress=None) -> StatementReport:
    """Decide one statement read from Lean with every engine: the default suite's instances
    whose initialisation matches (exact moments on the rational quadratic one, Monte Carlo on
    real data), the adversarial search (exact), the PEP worst case where the hypotheses admit
    σ = 0 and S = N, and the constant profile. ``out``: directory for counterexample files
    (JSON + Lean). A statement proven vacuous (:func:`pyfed.statements.vacuity.vacuity`) is
    decided by nothing: its report has no verdicts, ``search`` and ``profile`` None, ``vacuous``
    the reason and ``pep_note`` "no PEP row: the statement is vacuous"."""
    from .engines.pep.statement import NoPEP, pep_row
    from .engines.statement import applicable_engines, fits
    from .engines.statement_search import constant_profile, search
    from .statements.vacuity import vacuity

    why_vacuous = vacuity(st)
    if why_vacuous:     # no instance can satisfy the hypotheses: no rows, no search, no PEP row, no profile
        return StatementReport(st, [], "no PEP row: the statement is vacuous", None, None,
                               engines=applicable_engines(st), vacuous=why_vacuous)
    reps = replicates if replicates is not None else default_replicates(quick)
    budget = default_budget(quick) if budget is None else int(budget)
    verdicts, skipped = [], []
    for inst in default_suite(quick=quick, seed=seed):
        why = fits(st, to_run_instance(inst))
        if why is not None:
            if not why.startswith("the statement's initialisation"):   # the other family's instance: expected
                skipped.append((inst.name, why))
            continue
        if progress:
            progress(f"{st.name}: {inst.name}")
        inst, reduced = fit_instance_step(st, inst)
        v = run_instance(inst, replicates=reps, seed=seed, statement=st)
        if reduced:
            v.details = dict(v.details or {}, step_reduced=reduced)
        verdicts.append(v)
    n_rows = len(verdicts)
    if progress:
        progress(f"{st.name}: adversarial search")
    res = search(st, seed=seed, budget=budget)
    verdicts.append(res.verdict)
    note = ""
    if progress:
        progress(f"{st.name}: PEP worst case")
    pep_tried = True
    try:
        verdicts.append(pep_row(st))
    except NoPEP as exc:
        note = f"no PEP row: {exc}"
        pep_tried = exc.tried
    prof = None
    if profile:
        if progress:
            progress(f"{st.name}: constant profile")
        prof = constant_profile(st, seed=seed, budget=budget)
    for v in verdicts:
        v.details = dict(v.details or {})
        v.details["source"] = st.source
    rep = StatementReport(st, verdicts, note, prof, res, engines=applicable_engines(st), vacuous=None,
                          skipped=skipped)
    d = res.verdict.details or {}
    rep.no_instance = d.get("decided", 0) == 0 and all(v.status == "inconclusive" for v in verdicts)
    rep.tried = n_rows + int(d.get("candidates", 0)) + int(pep_tried)
    if out is not None and res.verdict.status == "violated":
        from .lean.statement_export import counterexample_record, write_statement_counterexample
        from .search import prepare_out
        prepare_out(out)
        rec = counterexample_record(st, res.verdict, seed=seed, budget=budget)
        rep.exports.extend(write_statement_counterexample(rec, out))
    return rep


def _json_text(value) -> str:
    """JSON text of a value json cannot write: exact rationals in full as ``"p/q"`` (any length),
    anything else as ``str``."""
    from .exact import rational_str
    return rational_str(value) if isinstance(value, Fraction) else str(value)


def statement_report_json(reports, *, seed: int, quick: bool, replicates, path: str | None, lemmas=(),
                          files=None) -> str:
    """The JSON report of ``pyfed check FILE.lean …``: the default report's schema (``verdicts``,
    each with ``statement`` = the theorem's name) plus ``source`` (``file:line``) on every
    verdict, and per statement what was read, the PEP note and the constant profile. ``file`` is
    the checked file (None when several were checked), ``files`` every checked file in order
    (default ``[path]``)."""
    def prof_json(p):
        # exact thresholds of long-horizon instances can run to thousands of digits: capped as
        # the verdicts' numbers are (the counterexample files written with --out keep every digit)
        return cap_report(json.loads(json.dumps(p, default=_json_text))) if p is not None else None

    verdicts = []
    for r in reports:
        for v in r.verdicts:
            verdicts.append(dict(v.to_json(), source=r.statement.source))
    files = [str(f) for f in files] if files is not None else [path]
    return json.dumps({"pyfed": __version__, "seed": seed, "quick": quick, "replicates": replicates, "file": path,
                       "files": files,
                       "verdicts": verdicts,
                       "statements": [dict(v.to_json(), lean_name=name) for name, v in lemmas],
                       "read": [dict(r.statement.describe(), pep=r.pep_note or "PEP row",
                                     engines={k: {"applies": a, "why": w} for k, (a, w) in r.engines.items()},
                                     profile=prof_json(r.profile), exports=list(r.exports),
                                     vacuous=bool(r.vacuous), vacuous_reason=r.vacuous,
                                     no_instance_in_hypotheses=bool(r.no_instance),
                                     instances_tried=int(getattr(r, "tried", 0)),
                                     instances_skipped=[{"instance": n, "why": w}
                                                        for n, w in getattr(r, "skipped", [])]) for r in reports]},
                      indent=2, sort_keys=True, default=str)
