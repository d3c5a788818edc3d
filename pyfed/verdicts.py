"""Verdict objects: every question pyfed answers ends in exactly one of these.

* :class:`Holds` — holds on the instance: certified (exact arithmetic, a certified ball, an
  exact search decision) or only numerically (a confidence bound, a numerical SDP with a
  tolerance, a high-precision float comparison); ``certificate`` says which, and
  :attr:`Verdict.certified` / :attr:`Verdict.label` tell the two apart.
* :class:`Violated` — with a ``witness`` from which the counterexample is reproduced
  (instance, parameters and the seed).
* :class:`Inconclusive` — with the ``reason`` (e.g. confidence interval straddles the
  bound, solver status not optimal, a ball contains 0).

All carry ``lhs``, ``rhs``, ``margin = rhs - lhs`` and ``ratio = lhs / rhs`` (when defined)
so reports show how tight the statement is, not only a boolean.

Reports (:meth:`Verdict.to_json`) print only certified digits: exact rationals as "p/q" (capped
at :data:`pyfed.exact.REPORT_EXACT_CHARS` characters) with a correctly rounded float; a verdict
decided in ball arithmetic (the exact-moment engine sets ``verdict.balls``, python-flint ``arb``
balls of lhs, rhs, margin, ratio) prints the digits its balls certify; a Monte Carlo left side
is an estimate, printed as such with its confidence interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from .exact import (
    REPORT_EXACT_CHARS,
    as_float,
    cap_report,
    format_estimate,
    format_number,
    number_json,
    to_mpf,
)


class Evidence(str, Enum):
    """What a verdict rests on, set by the engine that decided it (reports print its value and
    never guess it from ``details``). ``certified`` kinds: :data:`CERTIFIED_EVIDENCE`."""

    EXACT = "exact rationals"
    BALL = "certified ball"
    SEARCH = "adversarial search, decided exactly"
    PEP_CERTIFICATE = "PEP certificate over the class"
    PEP_NUMERICAL = "PEP SDP, numerical"
    MONTE_CARLO = "Monte Carlo"
    FLOAT = "high-precision float comparison"


#: Evidence kinds that certify a holds/violated verdict.
CERTIFIED_EVIDENCE = frozenset({Evidence.EXACT, Evidence.BALL, Evidence.SEARCH, Evidence.PEP_CERTIFICATE})


@dataclass
class Verdict:
    """Base class; use :class:`Holds`, :class:`Violated` or :class:`Inconclusive`.

    Attributes
    ----------
    statement : str
        Lean name of the statement checked: bare for namespace SCAFFOLD (e.g.
        ``"ConvexFiniteRoundConvergence"``), qualified otherwise (``"FedAvg.PerRoundProgress"``).
    lhs, rhs : Fraction | mpmath.mpf | float | None
        Left and right sides (an estimate for Monte Carlo left sides).
    exact : bool
        True when the decision was made in exact rational (or certified ball) arithmetic.
    details : dict
        Free-form JSON-serialisable extras (confidence interval, instance name, ...).
    evidence : Evidence | None
        What the decision rests on (set by the engine; None for an inconclusive verdict or an
        engine that does not say). A :data:`CERTIFIED_EVIDENCE` kind makes a holds/violated
        verdict certified even when its sides are not exact numbers (a PEP certificate).
    """

    statement: str
    lhs: object = None
    rhs: object = None
    exact: bool = False
    details: dict[str, Any] = field(default_factory=dict)
    evidence: Evidence | None = None

    status = "abstract"

    def _sides(self) -> tuple[Any, Any]:
        """(lhs, rhs) in one arithmetic: exact only when both sides are exact; a float side
        (an estimate or a solver value) makes both floats, so nothing inexact is reported as
        an exact rational."""
        a, b = self.lhs, self.rhs
        if isinstance(a, float) or isinstance(b, float):
            return as_float(a), as_float(b)
        return a, b

    @property
    def certified(self) -> bool:
        """True only for a decision in exact arithmetic: exact rationals, certified balls or an
        exact search decision (``exact`` and the status is holds or violated). A Monte Carlo
        confidence interval, a numerical SDP (PEP) or a float comparison within a tolerance is
        not certified, nor is any inconclusive verdict."""
        if self.status not in ("holds", "violated"):
            return False
        if self.evidence is not None:
            return self.evidence in CERTIFIED_EVIDENCE
        return bool(self.exact)

    @property
    def label(self) -> str:
        """The verdict as a report prints it: ``"holds"`` (certified), ``"holds (numerical)"``
        (a confidence interval, a numerical SDP, a float comparison), ``"violated"`` (a witness
        decided exactly), ``"violated (statistical)"`` (a confidence interval above the right
        side), ``"violated (numerical)"`` (a high-precision float comparison beyond its
        tolerance) or ``"inconclusive"``. ``status`` stays one of holds/violated/inconclusive."""
        if self.status == "holds":
            return "holds" if self.certified else "holds (numerical)"
        if self.status == "violated":
            if self.certified:
                return "violated"
            return "violated (statistical)" if (self.details or {}).get("estimate") else "violated (numerical)"
        return self.status

    def _numeric_sides(self) -> tuple[Any, Any]:
        """:meth:`_sides` with an mpmath side making both mpmath (a Fraction and an mpf do not
        mix in Python arithmetic)."""
        import mpmath
        a, b = self._sides()
        if isinstance(a, mpmath.mpf) != isinstance(b, mpmath.mpf):
            a, b = to_mpf(a), to_mpf(b)
        return a, b

    @property
    def margin(self) -> Any:
        """rhs - lhs (None if either side is missing)."""
        if self.lhs is None or self.rhs is None:
            return None
        a, b = self._numeric_sides()
        return b - a

    @property
    def ratio(self) -> Any:
        """lhs / rhs, or None when a side is missing or the right side is not positive (a ratio
        against a right side <= 0 is negative or infinite and says nothing about tightness;
        reports print "-")."""
        if self.lhs is None or self.rhs is None:
            return None
        a, b = self._numeric_sides()
        return ratio_display(a, b)

    @property
    def facts(self) -> Facts:
        """What the verdict's engine found beyond the sides, typed (:class:`Facts`)."""
        return facts_of(self.details)

    def __str__(self) -> str:
        name = self.statement if "." in self.statement else f"SCAFFOLD.{self.statement}"
        parts = [f"{self.status}: {name}"]
        balls = getattr(self, "balls", None) or {}  # ball verdicts: print the certified digits only
        est = (self.details or {}).get("estimate")
        for name, v in (("lhs", self.lhs), ("rhs", self.rhs), ("ratio", self.ratio)):
            v = balls.get(name, v)
            if name == "lhs" and est and "upper" in est:    # Monte Carlo: only the digits the CI supports
                parts.append(f"lhs={format_estimate(est['mean'], est['upper'] - est['mean'])}")
            elif v is not None:
                parts.append(f"{name}={format_number(v)}")
        parts.append("exact" if self.exact else "estimate")
        extra = getattr(self, "reason", "") or getattr(self, "certificate", "")
        return " ".join(parts) + (f" ({extra})" if extra else "")

    def to_json(self, max_exact_chars: int | None = REPORT_EXACT_CHARS) -> dict[str, Any]:
        """JSON-ready dict in which every printed digit is certified:

        * exact sides: ``{"exact": "p/q", "float": x}`` (x correctly rounded; "p/q" longer than
          ``max_exact_chars`` is replaced by 17 correct decimal digits, its length and SHA-256,
          see :func:`pyfed.exact.number_json`; ``None`` = no cap);
        * ball verdicts (``self.balls``): ``{"decimal": certified digits, "ball": "[m +/- r]",
          "float": midpoint}`` for lhs, rhs, margin and ratio;
        * Monte Carlo left sides (``details["estimate"]``): lhs, margin and ratio are
          ``{"estimate": x, "interval": [lo, hi], "confidence": c, "replicates": R}``;
        * ``certified`` and ``label``: see :attr:`certified` and :attr:`label` (``status`` is
          "holds" also for a numerical hold; ``certified`` tells it apart);
        * ``details``: any exact rational written as text longer than ``max_exact_chars`` is
          capped the same way (:func:`pyfed.exact.cap_report`), whichever engine wrote it.
        """
        def num(v: Any) -> Any:
            return number_json(v, max_exact_chars)

        balls = getattr(self, "balls", None)
        est = (self.details or {}).get("estimate")
        if balls:
            sides = {k: num(balls.get(k)) for k in ("lhs", "rhs", "margin", "ratio")}
        elif est and self.rhs is not None:
            sides = _estimate_sides(est, self.rhs)
            sides["rhs"] = num(self.rhs)
        else:
            sides = {"lhs": num(self.lhs), "rhs": num(self.rhs), "margin": num(self.margin),
                     "ratio": num(self.ratio)}
        return {
            "statement": self.statement,
            "status": self.status,
            **sides,
            "exact": self.exact,
            "certified": self.certified,
            "label": self.label,
            "evidence": None if self.evidence is None else self.evidence.value,
            "details": cap_report(self.details, max_exact_chars),
        }


# --------------------------------------------------------------------------- typed facts
#
# What an engine found beyond the two sides, by kind. An engine builds the kind it decides by and
# writes it into the verdict's ``details`` (:meth:`details`: the JSON report's documented keys,
# docs/reference/json-report.md); the report reads it back typed (:attr:`Verdict.facts`), never a
# key of ``details`` by name.

@dataclass(frozen=True)
class HypothesisCheck:
    """One hypothesis on an instance: its statement (Lean text or the model's words) and whether
    it holds there."""

    statement: str
    holds: bool


@dataclass(frozen=True)
class InstanceFacts:
    """A verdict decided on one named instance: ``instance`` (its name), ``parameters`` (name ->
    value, as printed under the table), ``hypotheses`` (each checked on the instance),
    ``arithmetic`` (how an exact-moment verdict was computed: ``"exact"`` / ``"ball …"`` or "" when
    not by exact moments), ``every_round_start`` (a conditional statement decided at every round
    start), ``step_reduced`` (the instance's step halved to fit the hypotheses: ``{"text", "h"}``)."""

    instance: str | None = None
    parameters: dict[str, Any] | None = None
    hypotheses: tuple[HypothesisCheck, ...] = ()
    arithmetic: str = ""
    every_round_start: bool = False
    step_reduced: dict[str, Any] | None = None

    @classmethod
    def of(cls, d: dict[str, Any]) -> InstanceFacts:
        return cls(instance=d.get("instance"), parameters=d.get("parameters") or None,
                   hypotheses=tuple(HypothesisCheck(str(h.get("statement", "")), bool(h.get("holds")))
                                    for h in d.get("hypotheses") or ()),
                   arithmetic=str(d.get("arithmetic", "") or ""), every_round_start=bool(d.get("checked")),
                   step_reduced=d.get("step_reduced"))


@dataclass(frozen=True)
class MonteCarloFacts:
    """A Monte Carlo left side: the replicate ``mean``, its Student-t interval ``[lower, upper]`` at
    level ``confidence`` over ``replicates`` runs; for a conditional statement simulated from
    several round starts, their number ``starts`` and the ``joint_confidence`` of the row."""

    mean: float
    lower: float
    upper: float
    confidence: float
    replicates: int
    starts: int | None = None
    joint_confidence: float | None = None

    @property
    def half_width(self) -> float:
        return self.upper - self.mean

    @property
    def level(self) -> float:
        """The level the row's interval holds at (joint over the round starts when there are several)."""
        return self.joint_confidence if self.joint_confidence is not None else self.confidence

    @classmethod
    def of(cls, d: dict[str, Any]) -> MonteCarloFacts | None:
        est = d.get("estimate")
        if not est:
            return None
        mean, upper = float(est["mean"]), float(est["upper"])
        return cls(mean=mean, lower=float(est.get("lower", 2 * mean - upper)), upper=upper,
                   confidence=float(est.get("confidence", 0.999)), replicates=int(est.get("replicates", 0)),
                   starts=d.get("starts") or None, joint_confidence=d.get("joint_confidence"))


@dataclass(frozen=True)
class SearchFacts:
    """An adversarial search's row: how many candidates were drawn (``drawn``; ``candidates``
    without refinements), decided (``decided``, of which ``decided_in_balls`` in certified balls),
    held (``holds``), fell inside the hypotheses with an undecided conclusion (``in_hypotheses``);
    ``result`` (the table's words), the witness (``index``, ``description``, ``witness_text``,
    ``lhs_exact`` / ``rhs_exact`` as text) or the tightest instance (``tightest_exact``: decided
    exactly; ``lhs_ball``: in balls); ``reach``: how far a search by optimisation without a
    counterexample went (:func:`pyfed.engines.search.space.reach_text` words it)."""

    candidates: int = 0
    drawn: int | None = None
    decided: int = 0
    decided_in_balls: int = 0
    holds: int | None = None
    in_hypotheses: int | None = None
    result: str = ""
    index: Any = None
    description: str = ""
    witness_text: str | None = None
    lhs_exact: str | None = None
    rhs_exact: str | None = None
    tightest_exact: bool | None = None
    lhs_ball: bool = False
    reach: dict[str, Any] | None = None

    @classmethod
    def of(cls, d: dict[str, Any]) -> SearchFacts | None:
        if not (str(d.get("engine", "")).startswith("adversarial search")
                or any(k in d for k in ("search_result", "decided", "candidates"))):
            return None
        return cls(candidates=int(d.get("candidates", 0) or 0), drawn=d.get("drawn"), decided=int(d.get("decided", 0) or 0),
                   decided_in_balls=int(d.get("decided_in_balls", 0) or 0), holds=d.get("holds"),
                   in_hypotheses=d.get("in_hypotheses"), result=str(d.get("search_result", "") or ""),
                   index=d.get("index"), description=str(d.get("description", "") or ""),
                   witness_text=d.get("witness_text"), lhs_exact=d.get("lhs_exact"), rhs_exact=d.get("rhs_exact"),
                   tightest_exact=d.get("tightest_exact"), lhs_ball=bool(d.get("lhs_ball")), reach=d.get("reach"))


@dataclass(frozen=True)
class PEPFacts:
    """A PEP row: the SDP solver's tolerance (``solver_tol``, None for an exact certificate) and
    whether a numerical violation was re-verified exactly on a concrete instance (``reproduced``)."""

    solver_tol: float | None = None
    reproduced: bool = False

    @classmethod
    def of(cls, d: dict[str, Any]) -> PEPFacts | None:
        rv = d.get("reverification") or {}
        if "solver_tol" not in d and not rv:
            return None
        return cls(solver_tol=d.get("solver_tol"), reproduced=bool(rv.get("reproduced")))


@dataclass(frozen=True)
class Facts:
    """Everything a report reads of a verdict beyond its sides, typed: ``instance``
    (:class:`InstanceFacts`), ``monte_carlo``, ``search``, ``pep`` (None when the verdict has none
    of that kind), ``source`` (``file:line`` of the statement), ``witness_text`` (a violation in
    words: "left side 2 > right side 3/2")."""

    instance: InstanceFacts
    monte_carlo: MonteCarloFacts | None
    search: SearchFacts | None
    pep: PEPFacts | None
    source: str | None
    witness_text: str | None = None


def facts_of(details: dict[str, Any] | None) -> Facts:
    """The typed :class:`Facts` of a verdict's ``details`` (the one place that reads its keys)."""
    d = details or {}
    return Facts(InstanceFacts.of(d), MonteCarloFacts.of(d), SearchFacts.of(d), PEPFacts.of(d), d.get("source"),
                 d.get("witness_text"))


def _estimate_sides(est: dict[str, Any], rhs: Any) -> dict[str, Any]:
    """lhs, margin and ratio of a Monte Carlo verdict, labelled as estimates with their
    confidence intervals (the left side is a replicate mean, not a certified number)."""
    r = as_float(rhs)
    lo, mean, hi = float(est["lower"]), float(est["mean"]), float(est["upper"])
    meta = {"confidence": est.get("confidence"), "replicates": est.get("replicates"),
            "kind": "Monte Carlo estimate (Student-t interval)"}
    out = {"lhs": {"estimate": mean, "interval": [lo, hi], **meta},
           "margin": {"estimate": r - mean, "interval": [r - hi, r - lo], **meta}, "ratio": None}
    if r > 0:
        out["ratio"] = {"estimate": mean / r, "interval": [lo / r, hi / r], **meta}
    return out


def violation_wording(relation: str, lhs_text: str, rhs_text: str, equal: bool) -> str:
    """How a violated ``lhs relation rhs`` reads: ``"left side L > right side R"`` for ``≤`` (and
    for ``<`` when lhs > rhs), ``"left side = right side = L, strict < fails"`` when a strict
    statement fails with equal sides (never "exceeds" then), ``"left side L ≠ right side R"`` for
    ``=`` (whichever side is larger)."""
    if relation == "=":
        return f"left side {lhs_text} ≠ right side {rhs_text}"
    if equal and relation == "<":
        return f"left side = right side = {lhs_text}, strict < fails"
    return f"left side {lhs_text} > right side {rhs_text}"


def ratio_display(lhs: Any, rhs: Any) -> Any:
    """The LHS/RHS ratio a report prints, or None (printed "-") when the right side is not
    positive: a negative or infinite ratio says nothing about tightness. ``lhs``/``rhs`` are
    numbers or python-flint balls (a ball counts as positive only when certified > 0)."""
    try:
        if rhs is None or lhs is None or not (rhs > 0):
            return None
    except TypeError:
        return None
    return lhs / rhs


@dataclass
class Holds(Verdict):
    """The statement holds on this instance; ``certificate`` says how it is certified."""

    certificate: str = ""
    status = "holds"


@dataclass
class Violated(Verdict):
    """The statement fails on this instance; ``witness`` reproduces the failure."""

    witness: dict[str, Any] = field(default_factory=dict)
    status = "violated"


@dataclass
class Inconclusive(Verdict):
    """Neither certified nor refuted; ``reason`` says why."""

    reason: str = ""
    status = "inconclusive"


def inequality_phrase(status: str) -> str:
    """``"holds"``, ``"is violated"``, ``"is undecided"``: the inequality's own status at an
    instance outside the hypotheses, as a verb phrase (``"the inequality itself holds"``)."""
    return {"holds": "holds", "violated": "is violated"}.get(status, f"is {status}")
