"""The engines of a statement, one call shape each, written once for every model.

Every engine has a ``name``, ``applies(statement) -> reason | None`` (None: it applies; else the
reason why not, in words a user can act on) and ``decide(statement, context) ->``
:class:`EngineOutcome` (its verdicts and what it found beyond them, typed). What is particular to
a model (its instances, search, PEP encoding, constant profile) the engine asks of the
statement's ``model`` (:class:`pyfed.models.protocol.Model`); no engine names a model.
:data:`ENGINES` lists them in the order ``pyfed check`` runs them; :func:`engines_for` gives the
ones that apply to a statement with the reasons of the others. Engines never print.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol, cast

from ..search.run import search_statement

if TYPE_CHECKING:
    from ...statements.statement import Statement
    from .search import SearchResult

__all__ = ["Context", "Engine", "EngineOutcome", "StatementModel", "model_of", "NoPEPRow", "ENGINES", "engines_for", "applicable_engines", "BuiltinInstances",
           "AdversarialSearch", "PEPRow", "ConstantProfile"]


@dataclass
class Context:
    """What one ``pyfed check`` run asks of the engines.

    quick : bool (smaller sizes and budgets); seed : int (every random draw derives from it);
    replicates : int (Monte Carlo replicates); budget : int (random draws of the search);
    profile : bool (run the constant profile); pool : a :class:`pyfed.parallel.Pool` or None
    (serial); progress : callable(label) or None; out : directory for counterexample files or None;
    cross_check : bool (the statement is proven: the search only cross-checks the proof).
    """

    quick: bool = False
    seed: int = 0
    replicates: int = 256
    budget: int = 24
    profile: bool = True
    pool: object = None
    progress: Callable[[str], object] | None = None
    out: str | None = None
    #: the statement is already proven (a complete proof) and no budget was asked for: the search
    #: by optimisation only cross-checks the proof, with the budget of ``quick``
    cross_check: bool = False

    def tell(self, label: str) -> None:
        """Report progress (the label of the stage starting), if anyone listens."""
        if self.progress:
            self.progress(label)


@dataclass
class EngineOutcome:
    """What one engine found for one statement.

    verdicts : its rows; tried : how many instances it decided (the report's ``instances_tried``);
    search : the search's :class:`~pyfed.engines.statement.search.SearchResult` (search engine);
    profile : the constant profile (profile engine); pep_note : why there is no PEP row, for the
    report ("" when there is one or the absence needs no word); skipped : ``[(instance, why)]``
    of built-in instances that cannot bind the statement.
    """

    verdicts: list[Any] = field(default_factory=list)
    tried: int = 0
    search: SearchResult | None = None
    profile: dict[str, Any] | None = None
    pep_note: str = ""
    skipped: list[tuple[str, str]] = field(default_factory=list)


class NoPEPRow(Exception):
    """A statement gets no PEP row: ``reason`` (the report's ``pep`` note when ``report`` is
    True), ``tried`` the instances the attempt decided."""

    def __init__(self, reason: str, *, tried: int = 0, report: bool = True) -> None:
        super().__init__(reason)
        self.tried = int(tried)
        self.report = report


class StatementModel(Protocol):
    """What the engines ask of a statement's model (the hooks of
    :class:`pyfed.models.protocol.Model` they call; the model implements the rest)."""

    def builtin_applies(self, st: Statement) -> str | None: ...
    def builtin_rows(self, st: Statement, ctx: Context) -> Any: ...
    def search_applies(self, st: Statement) -> str | None: ...
    def search(self, st: Statement, *, seed: int = 0, budget: int = 24, progress: Any = None,
               pool: Any = None) -> SearchResult: ...
    def pep_applies(self, st: Statement) -> str | None: ...
    def pep_row(self, st: Statement, *, quick: bool = False) -> tuple[Any, int]: ...
    def profiles(self, st: Statement) -> str | None: ...
    def constant_profile(self, st: Statement, *, seed: int, budget: int, pool: Any = None,
                         progress: Any = None) -> dict[str, Any]: ...
    def applicable(self, st: Statement) -> dict[str, tuple[bool, str]]: ...


def model_of(st: Statement) -> StatementModel:
    """The model that read ``st`` (its class attribute ``model``)."""
    return cast(StatementModel, st.model)


class BuiltinInstances:
    """The default report's instances that fit the statement (its model's built-in instances)."""

    name = "built-in instances"

    def applies(self, st: Statement) -> str | None:
        return model_of(st).builtin_applies(st)

    def decide(self, st: Statement, ctx: Context) -> EngineOutcome:
        rows = model_of(st).builtin_rows(st, ctx)
        return EngineOutcome(list(rows.verdicts), tried=len(rows.verdicts), skipped=list(rows.skipped))


class AdversarialSearch:
    """The adversarial search: instances drawn inside the statement's own hypotheses, structured
    edge cases first, each decided exactly (the model's search), then the search by optimisation
    over the model's search space (:func:`pyfed.engines.search.run.search_statement`)."""

    name = "adversarial search"

    def applies(self, st: Statement) -> str | None:
        return model_of(st).search_applies(st)

    def decide(self, st: Statement, ctx: Context) -> EngineOutcome:
        ctx.tell(f"{st.name}: adversarial search")
        res = search_statement(st, seed=ctx.seed, budget=ctx.budget, quick=ctx.quick or ctx.cross_check,
                               progress=ctx.tell)
        reach = (res.verdict.details or {}).get("reach")
        if ctx.cross_check and isinstance(reach, dict) and "not_searched" not in reach:
            reach["cross_check"] = ("the budget of --quick: the statement is proven, so the search only "
                                    "cross-checks the proof (--budget N searches in full)")
        return EngineOutcome([res.verdict], tried=res.tried, search=res)


class PEPRow:
    """The worst case over the whole function class (the model's PEP encoding, at the sizes and
    regime its hypotheses admit)."""

    name = "PEP"

    def applies(self, st: Statement) -> str | None:
        return model_of(st).pep_applies(st)

    def decide(self, st: Statement, ctx: Context) -> EngineOutcome:
        ctx.tell(f"{st.name}: PEP worst case")
        try:
            v, tried = model_of(st).pep_row(st, quick=ctx.quick)
        except NoPEPRow as exc:
            return EngineOutcome(tried=exc.tried, pep_note=f"no PEP row: {exc}" if exc.report else "")
        return EngineOutcome([v], tried=tried)


class ConstantProfile:
    """Each numeric constant of the right side and of the step-size hypotheses, varied on the
    search's instances (the model's profile); no verdict of its own."""

    name = "constant profile"

    def applies(self, st: Statement) -> str | None:
        return model_of(st).profiles(st)

    def decide(self, st: Statement, ctx: Context) -> EngineOutcome:
        if not ctx.profile:
            return EngineOutcome()
        ctx.tell(f"{st.name}: constant profile")
        return EngineOutcome(profile=model_of(st).constant_profile(st, seed=ctx.seed, budget=ctx.budget,
                                                                  pool=ctx.pool))


class Engine(Protocol):
    """The one call shape of an engine (see the module docstring)."""

    name: str

    def applies(self, st: Statement) -> str | None: ...

    def decide(self, st: Statement, ctx: Context) -> EngineOutcome: ...


#: Every engine, in the order ``pyfed check`` runs them (each says whether it applies).
ENGINES: tuple[Engine, ...] = (BuiltinInstances(), AdversarialSearch(), PEPRow(), ConstantProfile())


def engines_for(st: Statement) -> tuple[list[Engine], dict[str, str]]:
    """``(engines that apply, {engine name: reason it does not})`` for ``st``."""
    use, skip = [], {}
    for eng in ENGINES:
        why = eng.applies(st)
        if why is None:
            use.append(eng)
        else:
            skip[eng.name] = why
    return use, skip


def applicable_engines(st: Statement) -> dict[str, tuple[bool, str]]:
    """Which evidence ``st`` can get and why not: ``{kind: (applies, reason)}`` for ``exact``,
    ``montecarlo``, ``pep`` and ``search`` (its model's answer)."""
    return model_of(st).applicable(st)
