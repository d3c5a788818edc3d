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

import time

from dataclasses import dataclass, field

from .errors import InputError
from .engines.statement.builtin import fit_instance_step, run_instance  # noqa: F401 (the default report's rows)
from .suites.scaffold import CONVEX, default_suite
from .verdicts import Verdict

__all__ = ["run_instance", "run_check", "check_statement", "check_file", "StatementReport", "statement_of",
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


def default_replicates(quick: bool) -> int:
    """Monte Carlo replicates per instance when the user gives none: 64 quick, 256 otherwise."""
    return 64 if quick else 256


def run_check(*, quick: bool = False, seed: int = 0, replicates: int | None = None,
              progress=None, fedavg: bool = True) -> list[Verdict]:
    """Run the default suite; returns the list of verdicts: the theorem instances, then one
    PEP worst-case row for the convex theorem (every function of the class, sigma = 0, S = N),
    then (``fedavg=True``) the FedAvg statements of the Field Guide, read from
    ``lean/Pyfed/FedAvg/Theorems.lean``, on an exact quadratic and a real-data instance
    (:func:`pyfed.engines.statement.fedavg_engines.default_fedavg_rows`; their verdicts carry the
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
        st = statement_of(inst.theorem)
        v = run_instance(inst, replicates=reps, seed=seed, statement=st)
        v.details.setdefault("source", st.source)
        out.append(v)
    # worst case over the whole function class at a small size (PEP, deterministic regime)
    if progress:
        progress("PEP worst case (ConvexFiniteRoundConvergence, N=2 K=2 T=2)")
    v = pep_row(statement_of(CONVEX))
    v.details.setdefault("source", statement_of(CONVEX).source)
    out.append(v)
    if fedavg:
        from .engines.statement.fedavg_engines import default_fedavg_rows

        out.extend(default_fedavg_rows(quick=quick, seed=seed, replicates=reps, progress=progress))
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
    any engine satisfied the hypotheses and none failed to evaluate (the statement may be vacuous;
    not proven); tried : how
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
    #: wall-clock seconds of each engine that ran ({engine name: s}); reported only with ``--timing``
    engine_seconds: dict = field(default_factory=dict)
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


def check_statement(st, *, quick: bool = False, seed: int = 0, replicates: int | None = None,
                    budget: int | None = None, profile: bool = True, out: str | None = None,
                    progress=None, pool=None) -> StatementReport:
    """Decide one statement read from Lean with every engine that applies to it
    (:data:`pyfed.engines.statement.engines.ENGINES`, in order: for a statement about a SCAFFOLD
    run the built-in instances that fit, the adversarial search, the PEP worst case where the
    hypotheses admit it, and the constant profile). ``out``: directory for counterexample files
    (JSON + Lean). A statement proven vacuous (:func:`pyfed.statements.vacuity.vacuity`) is
    decided by nothing: its report has no verdicts, ``search`` and ``profile`` None, ``vacuous``
    the reason and ``pep_note`` "no PEP row: the statement is vacuous"."""
    from .engines.statement import applicable_engines
    from .engines.statement.engines import Context, engines_for
    from .statements.vacuity import vacuity

    why_vacuous = vacuity(st)
    if why_vacuous:     # no instance can satisfy the hypotheses: no rows, no search, no PEP row, no profile
        return StatementReport(st, [], "no PEP row: the statement is vacuous", None, None,
                               engines=applicable_engines(st), vacuous=why_vacuous)
    ctx = Context(quick=quick, seed=seed, replicates=replicates if replicates is not None else default_replicates(quick),
                  budget=default_budget(quick) if budget is None else int(budget), profile=profile, pool=pool,
                  progress=progress, out=out)
    use, skip = engines_for(st)
    verdicts = []
    clocks = {}
    for eng in use:
        t0 = time.perf_counter()
        verdicts.extend(eng.decide(st, ctx))
        clocks[eng.name] = round(time.perf_counter() - t0, 4)
    for v in verdicts:
        v.details = dict(v.details or {})
        v.details["source"] = st.source
    rec = ctx.record
    if getattr(st, "family", "") == "function-class lemma" and "PEP (run-free)" in skip:
        rec.setdefault("pep_note", f"no PEP row: {skip['PEP (run-free)']}")
    res = rec.get("search")
    rep = StatementReport(st, verdicts, rec.get("pep_note", ""), rec.get("profile"), res,
                          engines=applicable_engines(st), vacuous=None, skipped=rec.get("skipped", []),
                          engine_seconds=clocks)
    found = (res.verdict.details or {}) if res is not None else {}
    # an instance the engines could not evaluate is not one that fails the hypotheses: then the
    # search's own reason (the evaluation error) is the report, not a note about the hypotheses
    rep.no_instance = (res is None or (found.get("decided", 0) == 0 and not found.get("undecided", 0))) and \
        all(v.status == "inconclusive" for v in verdicts)
    rep.tried = int(rec.get("tried", 0))
    if out is not None and res is not None and res.verdict.status == "violated":
        from .errors import prepare_output_dir
        from .export import counterexample_record, write_statement_counterexample
        prepare_output_dir("--out", out)
        rec = counterexample_record(st, res.verdict, seed=seed, budget=ctx.budget)
        rep.exports.extend(write_statement_counterexample(rec, out, statement=st, verdict=res.verdict))
    if out is not None:     # a PEP violation re-verified exactly has an instance too: its own files
        from .export import is_reverified_pep_violation, pep_counterexample_record, write_statement_counterexample
        for v in verdicts:
            if is_reverified_pep_violation(v) and getattr(st, "shape", "scaffold_run") == "scaffold_run":
                from .errors import prepare_output_dir
                prepare_output_dir("--out", out)
                rec = pep_counterexample_record(st, v, seed=seed, budget=ctx.budget)
                rep.exports.extend(write_statement_counterexample(rec, out))
    return rep


def check_file(path, *, theorem: str | None = None, quick: bool = False, seed: int = 0,
               replicates: int | None = None, budget: int | None = None, profile: bool = True,
               out: str | None = None, progress=None) -> list[StatementReport]:
    """Decide every theorem of the Lean file ``path`` (or only ``theorem``) with
    :func:`check_statement`, in file order: the Python form of ``pyfed check PATH.lean``.

    The whole file is read before any computation: :class:`pyfed.statements.ReaderError` lists
    every unsupported construct (``file:line:col``), :class:`~pyfed.errors.InputError` names a
    path that is not a readable ``.lean`` file or a ``theorem`` the file does not state. The
    constant profile (``profile=True``) runs serially here (``pyfed check --workers`` spreads it).
    """
    from .statements import read_file

    statements = read_file(path, theorem=theorem)
    return [check_statement(st, quick=quick, seed=seed, replicates=replicates, budget=budget, profile=profile,
                            out=out, progress=progress) for st in statements]
