"""``pyfed check``: orchestration only -- every statement through the engines that apply to it.

* :func:`run_check`: the default report: the built-in SCAFFOLD instances of
  :mod:`pyfed.suites.scaffold` against the statements read from ``lean/Pyfed/Scaffold/Theorems.lean``,
  one PEP row, and the FedAvg statements of the Field Guide on the instances of
  :mod:`pyfed.suites.fedavg`;
* :func:`check_statement`: one statement read from a Lean file (ours or a user's) with every
  engine: the built-in instances that fit, the adversarial search, the PEP row where it
  applies and the constant profile.

What is checked is what the Lean file states: hypotheses, left and right sides come from the
statement reader (:mod:`pyfed.statements`), and the engines (:mod:`pyfed.engines.statement`)
evaluate them. Reports are written by :mod:`pyfed.report`; the command front end is
:mod:`pyfed.commands.check`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from .errors import InputError, check_int
from .exact import number_json
from .suites.scaffold import CONVEX, Instance, default_suite, exact_engine_applies, to_run_instance
from .theory import effective_step
from .verdicts import Inconclusive, Verdict

__all__ = ["run_instance", "run_check", "check_statement", "StatementReport", "statement_of",
           "default_replicates", "default_budget", "fit_instance_step"]


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
    from .engines.statement import pep_row

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
    :func:`pyfed.engines.statement.constant_profile`) or None; search : the search's
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
    from .engines.statement import NoPEP, constant_profile, pep_row, search
    from .engines.statement import applicable_engines, fits
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
