"""The statement object: what the reader extracts from one Lean theorem and every engine consumes
(each model of :mod:`pyfed.models` reads its theorems into its own subclass).

A :class:`Statement` says, for a theorem of the form

    ∀ parameters, hypotheses → conclusion      (e.g. ∀ A : Run P ν S K T ηl ηg INIT, LHS ≤ RHS)

(binders before or after the colon), which names are bound and what each one is (its *role*:
the problem ``P``, the run's ``S K T ηl ηg``, ``μ`` of ``Convexity P μ``, ``xstar`` of
``IsMinimizer P xstar``, the controls ``c0`` of ``some c0``, …), every hypothesis with an
evaluable form, and the two sides of the conclusion, each with its source position.

The engines (:mod:`pyfed.engines.statement`) ask the statement's :attr:`Statement.model` for
what is particular to its model.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..lean.terms import Node

__all__ = ["Location", "Parameter", "HypothesisSpec", "UserDef", "Statement", "TheoremSource", "RUN_ROLES"]

#: Roles of the run's arguments, in the order of ``Run P ν S K T ηl ηg init``.
RUN_ROLES = ("P", "nu", "S", "K", "T", "eta_l", "eta_g", "init")


@dataclass(frozen=True)
class Location:
    """A source position: file, 1-based line and column."""

    path: str
    line: int
    col: int

    def __str__(self):
        return f"{self.path}:{self.line}:{self.col}"

    @property
    def short(self) -> str:
        """``file:line`` (the ``source`` field of reports)."""
        return f"{self.path}:{self.line}"


@dataclass
class Parameter:
    """A bound name of a statement.

    name : the Lean name; kind : ``nat``, ``real``, ``problem``, ``vector``, ``controls``,
    ``run``, ``space`` (the sample space Ω), ``measure`` (ν), ``instance`` (``[MeasurableSpace Ω]``
    …) or ``prop`` (a named hypothesis); role : what the engines draw or bind it to (``d``,
    ``N``, ``S``, ``K``, ``T``, ``eta_l``, ``eta_g``, ``mu``, ``f_low``, ``xstar``, ``c0``,
    ``P``, ``A``, ``nu``, ``free`` or None); type_text : the Lean type; location.
    """

    name: str
    kind: str
    role: str | None
    type_text: str
    location: Location
    type_node: Node | None = field(default=None, repr=False)


@dataclass
class HypothesisSpec:
    """One hypothesis of a statement.

    key : stable machine name (``step_size``, ``mu_h``, ``eta_l``, ``eta_g``, ``convexity``,
        ``minimizer``, ``f_low``, else the Lean hypothesis name or ``h<i>``);
    text : its Lean text; location; name : the Lean binder name (``h₁``) or None;
    kind : ``compare`` (ℕ/ℝ comparison), ``convexity`` (``Convexity P μ``), ``minimizer``
        (``IsMinimizer P xstar``) or ``lower_bound`` (``∀ x, fLower ≤ objective P.f x``);
    node : the evaluable form (the comparison tree; for predicates the argument trees in
        ``args``); op : the comparison operator for ``compare`` (``≤ < = ≠``, ``≥``/``>`` are
        flipped); step : True when it bounds the step size from above (the constant profile
        varies its numerals).
    """

    key: str
    text: str
    location: Location
    kind: str
    node: Node | None = field(default=None, repr=False)
    args: list = field(default_factory=list, repr=False)
    op: str | None = None
    name: str | None = None
    step: bool = False


@dataclass
class UserDef:
    """An arithmetic ``def`` of the user's file: explicit and implicit parameters (with kinds),
    result kind and body (a :class:`~pyfed.lean.terms.Node`); ``uses_run``: the body contains a
    statistic of a run (it belongs on the left side)."""

    name: str
    params: list
    implicit: list
    result: str
    body: Node = field(repr=False)
    location: Location = None
    uses_run: bool = False


@dataclass
class Statement:
    """A theorem read from Lean: what it quantifies over, its hypotheses and its two sides.

    Attributes
    ----------
    name : str
        Bare theorem name (``ConvexFiniteRoundConvergence``).
    namespace : str
        Enclosing namespace (``SCAFFOLD``) or ``""``.
    location : Location
        Position of the ``theorem`` keyword.
    parameters : list[Parameter]
        Every bound name, in order (binders before the colon, then ``∀`` binders).
    hypotheses : list[HypothesisSpec]
        The statement's hypotheses, in order (conjunctions split).
    run : dict
        The run's arguments ``Run P ν S K T ηl ηg INIT``: role -> Node (``init``: the INIT node).
    init : str
        ``"some"`` (deterministic controls ``c0``) or ``"none"`` (the K-sample warm start).
    controls : str | None
        The name of ``c0`` in ``some c0``.
    lhs, rhs : Node
        The two sides, elaborated (every node carries its kind in ``ty``).
    relation : str
        ``"≤"`` or ``"<"`` (``≥``/``>`` conclusions are flipped).
    statistics : list[str]
        Statistics the left side uses (``weightedGap``, ``averageGradientSq``, ``expectedGap``),
        including through the file's own defs.
    definitions : dict[str, UserDef]
        The file's own defs this statement uses.
    text : str
        The statement's Lean text (from the name to ``:=``).
    shape : str
        Which builder read it and which engines can decide it: ``"scaffold_run"`` (a theorem about
        a SCAFFOLD ``Run``), ``"fedavg_run"`` (a FedAvg ``Run``), ``"lemma"`` (no run: vectors,
        sequences, function classes, finite probability spaces, procedures).
    family : str
        The statement family in words, for reports (``"SCAFFOLD run"``, ``"FedAvg run"``,
        ``"Local SGD step"``, ``"function-class lemma"``, ``"vector lemma"`` …).
    spec : object
        What a shape's builder read beyond the fields above (None for a SCAFFOLD run; a FedAvg
        run: :class:`pyfed.models.fedavg.reader.FedAvgSpec`, the elaborated terms).
    """

    name: str
    namespace: str
    location: Location
    parameters: list
    hypotheses: list
    run: dict
    init: str
    controls: str | None
    lhs: Node = field(repr=False)
    rhs: Node = field(repr=False)
    relation: str = "≤"
    statistics: list = field(default_factory=list)
    definitions: dict = field(default_factory=dict, repr=False)
    text: str = field(default="", repr=False)
    family: str = ""

    model: ClassVar[Any] = None

    # ---- lookups
    @property
    def shape(self) -> str:
        """The tag of the model that read the statement (reports' ``shape``)."""
        return self.model.tag if self.model is not None else ""

    @property
    def qualified_name(self) -> str:
        return f"{self.namespace}.{self.name}" if self.namespace else self.name

    @property
    def source(self) -> str:
        """``file:line`` of the theorem."""
        return self.location.short

    def parameter(self, name: str) -> Parameter | None:
        for p in self.parameters:
            if p.name == name:
                return p
        return None

    def role_of(self, role: str) -> str | None:
        """The bound name playing ``role`` (``"mu"``, ``"xstar"``, ``"S"`` …) or None."""
        for p in self.parameters:
            if p.role == role:
                return p.name
        return None

    def hypothesis(self, key: str) -> HypothesisSpec | None:
        for h in self.hypotheses:
            if h.key == key:
                return h
        return None

    def hypothesis_keys(self) -> list:
        return [h.key for h in self.hypotheses]

    @property
    def problem(self) -> str:
        return self.role_of("P")

    def describe(self) -> dict:
        """A JSON-ready summary (name, source, parameters with roles, hypotheses, init, sides)."""
        return {
            "name": self.name, "namespace": self.namespace, "source": self.source,
            "location": str(self.location),
            "parameters": [{"name": p.name, "kind": p.kind, "role": p.role, "type": p.type_text}
                           for p in self.parameters if p.kind not in ("instance", "space", "measure")],
            "hypotheses": [{"key": h.key, "kind": h.kind, "text": h.text, "location": str(h.location)}
                           for h in self.hypotheses],
            "init": self.init, "lhs": self.lhs.text, "rhs": self.rhs.text, "relation": self.relation,
            "statistics": list(self.statistics), "shape": self.shape, "family": self.family,
        }


@dataclass
class TheoremSource:
    """One theorem of a Lean file as the reader found it, before any model read it.

    name, namespace : the declaration's bare name and its namespace; cmd : the declaration's
    command (:class:`pyfed.statements.declarations` command, with text and position); variables :
    the ``variable`` binders in force; decls : the file's :class:`~pyfed.statements.declarations.Declarations`;
    clean : the file's text without comments; path : the file's path (for positions);
    run_namespaces : the namespaces of the ``Run`` types its binders quantify over (``"SCAFFOLD"``,
    ``"FedAvg"``; ``""`` for a ``Run`` no namespace in scope resolves).
    """

    name: str
    namespace: str
    cmd: Any
    variables: list
    decls: Any
    clean: str
    path: str
    run_namespaces: frozenset = frozenset()

    def args(self) -> tuple:
        """The arguments of a model reader's ``statements_from`` (name, namespace, cmd, variables,
        decls, clean, path)."""
        return self.name, self.namespace, self.cmd, self.variables, self.decls, self.clean, self.path
