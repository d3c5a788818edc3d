"""The model protocol: what a model of :mod:`pyfed.models` gives the pipeline and the engines.

A *model* is one kind of statement pyfed decides (theorems about a SCAFFOLD ``Run``, about a
FedAvg ``Run``, run-free lemmas, FedProx procedures, …), one package behind this interface:

* reading: :meth:`Model.claims` says whether a theorem of a Lean file is the model's (the
  registry asks the models in order; the first that claims it reads it) and :meth:`Model.read`
  turns it into the model's own :class:`~pyfed.statements.statement.Statement` subclass (whose
  class attribute ``model`` is the model);
* deciding: the built-in instances that fit a statement (:meth:`Model.builtin_rows`), its
  adversarial search (:meth:`Model.search`) with the exact re-check of a witness
  (:meth:`Model.recheck`), its search space for the search by optimisation
  (:meth:`Model.search_space`, :meth:`Model.evaluate_point`, :meth:`Model.search_verdict`), its worst case over a function class (:meth:`Model.pep_row`), its
  constant profile (:meth:`Model.constant_profile`), and which evidence kinds apply
  (:meth:`Model.applicable`);
* the default report's rows (:meth:`Model.default_rows`);
* witnesses as files: the model's fields of a counterexample record
  (:meth:`Model.witness_fields`) and its Lean file (:meth:`Model.counterexample_lean`);
* proofs that a whole statement holds (:mod:`pyfed.engines.proof`): the published statements the
  model has with accepted proofs (:meth:`Model.published_proofs`), the statement in the proof
  engine's scalar terms (:meth:`Model.proof_form`: which names are which symbols, which of its
  quantities are atoms and what the model knows of them), and the model's own kinds of proof
  (:meth:`Model.closed_proof`, :meth:`Model.identity_proof`, :meth:`Model.certificate_proof`).

The generic engines (:mod:`pyfed.engines.statement.engines`), the pipeline
(:mod:`pyfed.check`), the exports (:mod:`pyfed.export`) and the command front ends ask a
statement's ``model`` and never name a model; only :mod:`pyfed.models.registry` lists them.
Every hook a model does not provide answers with the reason in words (:class:`NotProvided`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar

from ..engines.proof.scalar import NotReadable
from ..engines.search.space import NoSearchSpace
from ..engines.statement.engines import NoPEPRow
from ..engines.statement.search import SearchResult
from ..errors import InputError
from ..statements.statement import Statement, TheoremSource

if TYPE_CHECKING:
    from ..engines.pep.exact_pep import ExactPEP
    from ..engines.proof.proof import Attempt, Proof, Published
    from ..engines.proof.scalar import ScalarForm
    from ..engines.search.space import PointOutcome, SearchSpace
    from ..engines.statement.engines import Context
    from ..verdicts import Verdict

__all__ = ["Model", "TheoremSource", "NotProvided", "NoPEPRow", "NoSearchSpace", "RecheckError", "BuiltinRows"]


class RecheckError(InputError):
    """A witness that cannot be re-decided on a statement: ``argument`` names the record's field
    (``instance`` or ``instance.<key>``), ``reason`` says why in full."""


class NotProvided(Exception):
    """A hook the model does not provide for a statement; the message says why, in words a user
    can act on (it becomes the report's reason that an engine does not apply)."""


@dataclass
class BuiltinRows:
    """What the built-in instances did for one statement: ``verdicts`` (one per instance that
    fits), ``skipped`` (``[(instance name, why)]`` of those that cannot bind it, said in the report)."""

    verdicts: list[Verdict] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


class Model:
    """One model of statements behind the protocol (see the module docstring).

    Class attributes: ``tag`` (the statement shape in reports: the JSON's ``read.shape`` and a
    counterexample record's ``shape``), ``family`` (the default statement family in words),
    ``statement_class`` (its :class:`~pyfed.statements.statement.Statement` subclass).
    """

    tag: ClassVar[str] = ""
    family: ClassVar[str] = ""
    statement_class: ClassVar[type[Statement]] = Statement

    # ------------------------------------------------------------------ reading
    def claims(self, source: TheoremSource) -> bool:
        """Whether the theorem ``source`` is this model's to read."""
        return False

    def read(self, source: TheoremSource) -> list[Statement]:
        """The statements of theorem ``source`` (a conclusion ``A ∧ B`` may give several).
        Raises :class:`pyfed.lean.terms.LeanSyntaxError` at ``file:line:col`` for what the
        model's reader does not support."""
        raise NotProvided(f"the {self.family} reader is missing")

    # ------------------------------------------------------------------ the default report
    def default_rows(self, *, quick: bool, seed: int, replicates: int,
                     progress: Callable[[str], object] | None = None) -> list[Verdict]:
        """The verdicts this model contributes to ``pyfed check``'s default report (its built-in
        statements on its built-in instances); none by default."""
        return []

    # ------------------------------------------------------------------ engines
    def builtin_rows(self, st: Statement, ctx: Context) -> BuiltinRows:
        """The built-in instances that fit ``st``, each decided (``ctx``: the run's
        :class:`~pyfed.engines.statement.engines.Context`). :class:`NotProvided` when the model has
        none for it."""
        raise NotProvided(f"the statement is a {st.family}: no built-in instances")

    def search(self, st: Statement, *, seed: int = 0, budget: int = 24, progress: Any = None,
               pool: Any = None) -> SearchResult:
        """The adversarial search of ``st``: instances drawn inside its hypotheses, each decided
        exactly (a :class:`~pyfed.engines.statement.search.SearchResult` whose ``tried`` counts
        the instances the report calls tried). ``progress(k)`` is called as ``k`` candidates
        finish; ``pool``: a :class:`pyfed.parallel.Pool` (the result does not depend on it)."""
        raise NotProvided(f"no adversarial search for a {st.family} yet")

    # ------------------------------------------------------------------ search by optimisation
    def search_space(self, st: Statement, *, quick: bool = False, seed: int = 0) -> SearchSpace:
        """The :class:`~pyfed.engines.search.space.SearchSpace` of ``st`` for the search by
        optimisation (:mod:`pyfed.engines.search.optimise`): configurations of its naturals (small
        sizes enumerated) and function families, continuous axes over the admissible ranges (log
        scales), seed points; ``quick``: a smaller space; ``seed``: the random numbers a configuration
        shares among its points derive from it. :class:`NoSearchSpace` with the reason
        when the model has none for ``st``."""
        raise NoSearchSpace(f"no search space for a {st.family} yet")

    def evaluate_point(self, st: Statement, config: Any, values: dict[str, Any], *, index: int = 0) -> PointOutcome:
        """The exact decision of one point of :meth:`search_space` (``config`` and the values of
        its axes, ``{axis name: value}``): a :class:`~pyfed.engines.search.space.PointOutcome` whose
        ``record`` is the model's search record (numbered ``index``) and whose ``margin`` (a float
        from the exact sides) steers the optimiser."""
        raise NoSearchSpace(f"no search space for a {st.family} yet")

    def search_verdict(self, st: Statement, records: list[Any], *, seed: int, budget: int) -> Verdict:
        """The model's search verdict of ``records`` (its search's records, in index order): the
        first violation as a Violated verdict with a witness :meth:`recheck` accepts, else
        Inconclusive, as :meth:`search` words it."""
        raise NoSearchSpace(f"no search space for a {st.family} yet")

    def recheck(self, st: Statement, witness: dict[str, Any]) -> Any:
        """Re-decide ``witness`` (``witness["instance"]``, the instance's exact JSON) on ``st``
        exactly; returns an object with ``status``, ``lhs``, ``rhs`` (and ``reason`` when
        undecided). :class:`RecheckError` for an instance that does not fit the statement."""
        raise NotProvided(f"no exact re-check for a {st.family} yet")

    def recheck_method(self, verdict: Any) -> str:
        """How :meth:`recheck` decided ``verdict``, in words (``pyfed check --replay`` prints it)."""
        if getattr(verdict, "balls", None):
            return ("the statement's terms evaluated in certified ball arithmetic (python-flint arb) on the "
                    "recorded instance")
        return "the statement's terms evaluated exactly on the recorded instance"

    def pep_row(self, st: Statement, *, quick: bool = False) -> tuple[Verdict, int]:
        """``(verdict, tried)``: the worst case of ``st`` over its function class as a verdict and
        how many instances it decided; :class:`NoPEPRow` (with the reason) when there is none."""
        raise NoPEPRow(f"the statement is a {st.family}", report=False)

    def profiles(self, st: Statement) -> str | None:
        """None when :meth:`constant_profile` profiles ``st``, else the reason it does not."""
        return f"the statement is a {st.family}"

    def constant_profile(self, st: Statement, *, seed: int, budget: int, pool: Any = None,
                         progress: Any = None) -> dict[str, Any]:
        """The constant profile of ``st`` (each numeric constant varied on the search's
        instances); only called when :meth:`profiles` is None."""
        raise NotProvided(f"no constant profile for a {st.family}")

    def profile_size(self, st: Statement, budget: int) -> int:
        """How many candidates :meth:`constant_profile` decides (for progress bars and the
        resource estimate); 0 when it does not profile ``st``."""
        return 0

    def evaluation_steps(self, st: Statement) -> int | None:
        """The estimated evaluation steps of deciding one search candidate of ``st`` at the largest
        sizes its search draws (:func:`pyfed.evaluation.cost.estimate_steps`; the resource estimate
        of a file's search), or None when the model does not estimate it."""
        return None

    def two_sided_profile(self, st: Statement) -> Any:
        """The two-sided constant profile of ``st`` (``pyfed profile``): an object with
        ``resolve_constants(wanted)``, ``check_sizes(parameter, values, N=, K=, T=, mu=)``,
        ``search_size(budget, keys)``, ``profile(keys, **options)`` and ``plot(rows, png, **kw)``
        (:class:`pyfed.models.scaffold.two_sided.TwoSidedProfile` is one). :class:`NotProvided`
        with the reason when the model has none for ``st``."""
        raise NotProvided(f"{st.name} is a {st.family}: the PEP profile is for statements about a SCAFFOLD run")

    def applicable(self, st: Statement) -> dict[str, tuple[bool, str]]:
        """Which evidence ``st`` can get and why not: ``{kind: (applies, reason)}`` for
        ``exact``, ``montecarlo``, ``pep`` and ``search`` (the report's ``engines``)."""
        why = f"the statement is a {st.family}"
        return {k: (False, why) for k in ("exact", "montecarlo", "pep", "search")}

    def builtin_applies(self, st: Statement) -> str | None:
        """None when :meth:`builtin_rows` applies to ``st``, else why not."""
        return f"the statement is a {st.family}: no built-in instances"

    def search_applies(self, st: Statement) -> str | None:
        """None when :meth:`search` applies to ``st``, else why not."""
        return f"no adversarial search for a {st.family} yet"

    def pep_applies(self, st: Statement) -> str | None:
        """None when :meth:`pep_row` is worth calling for ``st`` (it may still raise
        :class:`NoPEPRow`), else why not."""
        return f"the statement is a {st.family}"

    def explains_missing_pep(self, st: Statement) -> bool:
        """Whether the report says why ``st`` has no PEP row when :meth:`pep_applies` refuses it
        (a statement whose class the PEP could speak to, not one far from it)."""
        return False

    def search_pool(self, st: Statement) -> bool:
        """Whether :meth:`search` spreads its candidates over a :class:`pyfed.parallel.Pool`."""
        return False

    # ------------------------------------------------------------------ implementations
    #: The algorithms of ``pyfed conform`` whose conforming implementations this model's statements
    #: can be run on (:meth:`implementation_rows`).
    implementation_algorithms: ClassVar[tuple[str, ...]] = ()

    def implementation_rows(self, run: Callable[[Any], Any], names: list[str] | None = None, *, replicates: int,
                            seed: int, confidence: float = 0.999) -> list[Verdict]:
        """Monte Carlo verdicts of the model's own statements ``names`` on an implementation's
        trajectories: ``run(instance)`` returns its iterates on the model's instance for the
        statement. :class:`NotProvided` when the model has none."""
        raise NotProvided(f"the {self.family} statements have no rows on an implementation's trajectories")

    # ------------------------------------------------------------------ witnesses
    def witness_fields(self, st: Statement, verdict: Verdict) -> dict[str, Any]:
        """The model's fields of a counterexample record (:func:`pyfed.export.counterexample_record`):
        at least ``decided_by`` (the exact engine that decided the witness, in words)."""
        return {"decided_by": "the statement's terms evaluated in exact arithmetic"}

    def counterexample_lean(self, st: Statement, verdict: Verdict, record: dict[str, Any], *,
                            relax: tuple[str, ...] = ()) -> str | None:
        """The Lean file of a violation of ``st`` (its instance's numbers and exact sides), or
        None when there is none to write: the sides are neither exact rationals nor certified
        rational bounds, or the violation is of the statement with the hypotheses ``relax``
        removed and the model's file would restate the theorem itself."""
        return None if relax else self.render_counterexample(record)

    def render_counterexample(self, record: dict[str, Any]) -> str:
        """The Lean file of a counterexample record read back from JSON (no statement at hand)."""
        raise NotProvided(f"no Lean counterexample file for a {record.get('family', 'statement')}")

    # ------------------------------------------------------------------ proofs of holds
    #: the model's published statements with accepted proofs: ``{short name: Published}``
    published: ClassVar[dict[str, Published]] = {}

    def published_proofs(self) -> dict[str, Published]:
        """``{qualified Lean name: pyfed.engines.proof.proof.Published}``: the published statements
        of this model (``lean/PyfedPublished``) whose proofs the published formalization accepted,
        with where each proof is (:attr:`published`). A conjunct ``Name.1`` inherits ``Name``'s
        record."""
        return {rec.lean_name: rec for rec in self.published.values()}

    def scalar_reading(self, st: Statement) -> ScalarForm:
        """The model's reading of ``st`` as a ScalarForm (raises
        :class:`pyfed.engines.proof.scalar.NotReadable`); :meth:`proof_form` calls it."""
        raise NotProvided(f"no scalar reading of a {st.family} yet")

    def proof_form(self, st: Statement) -> ScalarForm:
        """``st`` as a :class:`pyfed.engines.proof.scalar.ScalarForm` (its parameters as symbols
        named by role, the model's quantities as atoms with the facts the model guarantees).
        :class:`NotProvided` (with the reason) when the statement has no such reading."""
        try:
            return self.scalar_reading(st)
        except NotReadable as exc:
            raise NotProvided(str(exc)) from None

    def closed_proof(self, st: Statement) -> Proof | Attempt | None:
        """A :class:`pyfed.engines.proof.proof.Proof` of kind ``closed`` when ``st`` has nothing
        left to quantify over and its sides are decided exactly, an ``Attempt``, or None."""
        raise NotProvided(f"no closed-statement decision for a {st.family}")

    def identity_proof(self, st: Statement) -> Proof | Attempt | None:
        """A ``Proof`` of kind ``identity`` (equalities and inequalities of the model's algebra
        decided symbolically on the unrolled definitions; ``complete`` False with the sizes
        covered when only sizes up to a bound are), an ``Attempt``, or None."""
        raise NotProvided(f"no symbolic decision for a {st.family}")

    def certificate_proof(self, st: Statement) -> Proof | Attempt | None:
        """A ``Proof`` of kind ``certificate`` (PEP certificates extended to the parameter ranges
        of the hypotheses; ``complete`` False with the scope covered otherwise), an ``Attempt``,
        or None."""
        raise NotProvided(f"no certificate over parameter ranges for a {st.family}")

    def certificate_problem(self, st: Statement, values: dict[str, Any]) -> ExactPEP:
        """The exact PEP (:class:`pyfed.engines.pep.exact_pep.ExactPEP`, claim ``metric ≤ 0``) of
        ``st`` at the parameter ``values`` (names to numbers), read from the statement as the PEP
        row reads it (a certificate file's lemma instance is re-encoded through it).
        :class:`NotProvided` when the model has no such encoding of ``st``."""
        raise NotProvided(f"no PEP encoding of a {st.family} at given parameters")

    def reverified_pep_record(self, st: Statement, verdict: Verdict, *, seed: int,
                              budget: int) -> dict[str, Any] | None:
        """The counterexample record of a PEP row whose worst case was re-verified exactly on a
        concrete instance, or None when ``verdict`` is not such a row."""
        return None
