"""``pyfed check``: orchestration only -- every statement through the engines that apply to it.

* :func:`run_check`: the default report: every model's built-in statements on its built-in
  instances (:mod:`pyfed.models.registry`);
* :func:`check_statement`: one statement read from a Lean file (ours or a user's) with every
  engine that applies (:mod:`pyfed.engines.statement.engines`): the built-in instances that fit,
  the adversarial search, the PEP row and the constant profile;
* :func:`check_file`: every theorem of a Lean file.

What is checked is what the Lean file states: hypotheses, left and right sides come from the
statement reader (the models of :mod:`pyfed.models`), and the engines decide them. Reports are
written by :mod:`pyfed.report`; the command front end is :mod:`pyfed.commands.check`.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from .engines.proof.engine import ProofOutcome, prove_statement
from .engines.proof.proof import Proof, Step
from .engines.statement.engines import Context, PEPRow, applicable_engines, engines_for
from .engines.statement.search import SearchResult
from .errors import prepare_output_dir
from .export import counterexample_record, write_proof_files, write_statement_counterexample
from .models import registry
from .report import statement_status
from .statements.statement import Statement
from .statements.vacuity import vacuity
from .verdicts import Verdict

__all__ = ["run_check", "check_statement", "check_file", "StatementReport", "default_replicates", "default_budget"]


def default_replicates(quick: bool) -> int:
    """Monte Carlo replicates per instance when the user gives none: 64 quick, 256 otherwise."""
    return 64 if quick else 256


def run_check(*, quick: bool = False, seed: int = 0, replicates: int | None = None,
              progress: Callable[[str], object] | None = None) -> list[Verdict]:
    """Run the default suite; returns the list of verdicts: every model's built-in statements on
    its built-in instances (:meth:`pyfed.models.protocol.Model.default_rows`): the SCAFFOLD theorem
    instances of ``lean/Pyfed/Scaffold/Theorems.lean``, one PEP worst-case row of the convex
    theorem (every function of the class, σ = 0, S = N), then the FedAvg statements of the Field
    Guide, read from ``lean/Pyfed/FedAvg/Theorems.lean``, on an exact quadratic and a real-data
    instance (their verdicts carry the qualified names ``FedAvg.*``).

    What is checked is what the Lean files state. ``progress``: optional callable
    ``progress(label)`` invoked before each task.
    """
    reps = replicates if replicates is not None else default_replicates(quick)
    return registry.default_rows(quick=quick, seed=seed, replicates=reps, progress=progress)


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
    :func:`pyfed.models.scaffold.profile.constant_profile`) or None; search : the search's
    SearchResult; exports : written counterexample files; engines : which engines apply
    (:func:`pyfed.engines.statement.engines.applicable_engines`); vacuous : why the hypotheses can never
    hold (:func:`pyfed.statements.vacuity.vacuity`) or None; no_instance : True when no instance of
    any engine satisfied the hypotheses and none failed to evaluate (the statement may be vacuous;
    not proven); tried : how
    many instances were tried (built-in rows, search candidates, the PEP row's instance);
    skipped : ``[(instance name, why)]`` of the built-in instances that cannot bind the statement
    (:func:`pyfed.models.scaffold.hypotheses.fits`), said in the report rather than dropped silently.
    """

    statement: Statement
    verdicts: list[Verdict]
    pep_note: str = ""
    profile: dict[str, Any] | None = None
    search: SearchResult | None = None
    exports: list[str] = field(default_factory=list)
    engines: dict[str, tuple[bool, str]] = field(default_factory=dict)
    vacuous: str | None = None
    no_instance: bool = False
    #: wall-clock seconds of each engine that ran ({engine name: s}); reported only with ``--timing``
    engine_seconds: dict[str, float] = field(default_factory=dict)
    tried: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: what the proof engine found (:class:`pyfed.engines.proof.engine.ProofOutcome`): a complete
    #: proof makes the statement hold; partial proofs and failed attempts are reported
    outcome: ProofOutcome = field(default_factory=ProofOutcome)
    #: the Lean artefacts of the proof written with ``--out`` (a skeleton, certificate files)
    proof_files: list[str] = field(default_factory=list)

    @property
    def proof(self) -> Proof | None:
        """The complete proof that the statement holds, or None."""
        return self.outcome.proof

    @property
    def status(self) -> str:
        """``violated`` (a row is), ``holds`` (a complete proof and no violated row), else
        ``inconclusive``; rows that hold never make a statement hold."""
        return statement_status(self.verdicts, self.proof)

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


def check_statement(st: Statement, *, quick: bool = False, seed: int = 0, replicates: int | None = None,
                    budget: int | None = None, profile: bool = True, out: str | None = None,
                    progress: Callable[[str], object] | None = None, pool: Any = None) -> StatementReport:
    """Decide one statement read from Lean with every engine that applies to it
    (:data:`pyfed.engines.statement.engines.ENGINES`, in order: the built-in instances that fit,
    the adversarial search, the PEP worst case where the hypotheses admit it, and the constant
    profile; which apply is the statement's model's answer). ``out``: directory for counterexample
    files (JSON + Lean). A statement proven vacuous (:func:`pyfed.statements.vacuity.vacuity`) is
    decided by nothing: its report has no verdicts, ``search`` and ``profile`` None, ``vacuous``
    the reason and ``pep_note`` "no PEP row: the statement is vacuous"."""
    why_vacuous = vacuity(st)
    if why_vacuous:
        outcome = ProofOutcome(Proof(st.qualified_name, "vacuous",
                                     [Step("the hypotheses have no common solution", "exact elimination", detail=why_vacuous)],
                                     summary=why_vacuous))
    else:
        outcome = prove_statement(st, forms=registry.published_proof_forms())
        if outcome.proof is not None and outcome.proof.kind == "vacuous":
            why_vacuous = outcome.proof.summary
    if why_vacuous:     # no instance can satisfy the hypotheses: no rows, no search, no PEP row, no profile
        return StatementReport(st, [], "no PEP row: the statement is vacuous", None, None,
                               engines=applicable_engines(st), vacuous=why_vacuous, outcome=outcome)
    ctx = Context(quick=quick, seed=seed, replicates=replicates if replicates is not None else default_replicates(quick),
                  budget=default_budget(quick) if budget is None else int(budget), profile=profile, pool=pool,
                  cross_check=outcome.proof is not None and budget is None and not quick,
                  progress=progress, out=out)
    use, skip = engines_for(st)
    verdicts, clocks = [], {}
    res, prof, skipped, tried = None, None, [], 0
    pep_note = f"no PEP row: {skip[PEPRow.name]}" if PEPRow.name in skip and st.model.explains_missing_pep(st) else ""
    for eng in use:
        t0 = time.perf_counter()
        found = eng.decide(st, ctx)
        clocks[eng.name] = round(time.perf_counter() - t0, 4)
        verdicts.extend(found.verdicts)
        tried += found.tried
        res = found.search if found.search is not None else res
        prof = found.profile if found.profile is not None else prof
        pep_note = found.pep_note or pep_note
        skipped.extend(found.skipped)
    for v in verdicts:
        v.details = dict(v.details or {})
        v.details["source"] = st.source
    rep = StatementReport(st, verdicts, pep_note, prof, res, engines=applicable_engines(st), vacuous=None,
                          skipped=skipped, engine_seconds=clocks, tried=tried, outcome=outcome)
    searched = (res.verdict.details or {}) if res is not None else {}
    # an instance the engines could not evaluate is not one that fails the hypotheses: then the
    # search's own reason (the evaluation error) is the report, not a note about the hypotheses
    rep.no_instance = (res is None or (searched.get("decided", 0) == 0 and not searched.get("undecided", 0))) and \
        all(v.status == "inconclusive" for v in verdicts)
    if out is not None and res is not None and res.verdict.status == "violated":
        prepare_output_dir("--out", out)
        rec = counterexample_record(st, res.verdict, seed=seed, budget=ctx.budget)
        rep.exports.extend(write_statement_counterexample(rec, out, statement=st, verdict=res.verdict))
    if out is not None:     # the Lean artefacts of what holds: a proof skeleton, certificate files
        for proof in ([rep.proof] if rep.proof is not None else []) + list(outcome.partial):
            prepare_output_dir("--out", out)
            rep.proof_files.extend(write_proof_files(st, proof, out))
    if out is not None:     # a PEP violation re-verified exactly has an instance too: its own files
        for v in verdicts:
            rec = st.model.reverified_pep_record(st, v, seed=seed, budget=ctx.budget)
            if rec is not None:
                prepare_output_dir("--out", out)
                rep.exports.extend(write_statement_counterexample(rec, out, statement=st))
    return rep


def check_file(path: str | os.PathLike[str], *, theorem: str | None = None, quick: bool = False, seed: int = 0,
               replicates: int | None = None, budget: int | None = None, profile: bool = True,
               out: str | None = None, progress: Callable[[str], object] | None = None) -> list[StatementReport]:
    """Decide every theorem of the Lean file ``path`` (or only ``theorem``) with
    :func:`check_statement`, in file order: the Python form of ``pyfed check PATH.lean``.

    The whole file is read before any computation: :class:`pyfed.statements.ReaderError` lists
    every unsupported construct (``file:line:col``), :class:`~pyfed.errors.InputError` names a
    path that is not a readable ``.lean`` file or a ``theorem`` the file does not state. The
    constant profile (``profile=True``) runs serially here (``pyfed check --workers`` spreads it).
    """
    statements = registry.read_file(path, theorem=theorem)
    return [check_statement(st, quick=quick, seed=seed, replicates=replicates, budget=budget, profile=profile,
                            out=out, progress=progress) for st in statements]
