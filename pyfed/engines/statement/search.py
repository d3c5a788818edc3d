"""What every model's adversarial search shares: the record of one candidate (:class:`Record`),
the search's result (:class:`SearchResult`), and the words and numbers of its verdict (how many
instances were decided, why no counterexample was found, exact sides as text and as report
numbers)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import sympy

from ...evaluation.numbers import decide_sign, to_exact
from ...exact import as_float, rational_str, short_exact
from ...verdicts import Verdict

__all__ = ["Record", "SearchResult", "decided_count", "no_counterexample_reason", "short_side", "exact_text",
           "report_number"]


@dataclass
class Record:
    """One decided (or rejected) candidate: ``status`` is ``holds``, ``violated``, ``outside``
    (a hypothesis fails), ``skipped`` or ``undecided``; exact ``lhs``/``rhs``; ``extra``
    carries constant-profile data."""

    index: int
    status: str
    description: str = ""
    instance: dict | None = None
    lhs: object = None
    rhs: object = None
    failing: list = field(default_factory=list)
    extra: dict = field(default_factory=dict)

    @property
    def ratio(self):
        """lhs / rhs when both sides are known and rhs > 0 (certified), else None."""
        if self.lhs is None or self.rhs is None:
            return None
        try:
            if decide_sign(self.rhs) > 0:
                return self.quotient()
        except Exception:
            return None
        return None

    def quotient(self) -> float:
        """lhs / rhs as a float (the sides' floats; an irrational right side divided exactly first)."""
        return as_float(to_exact(self.lhs)) / as_float(to_exact(self.rhs)) \
            if not isinstance(self.rhs, sympy.Basic) else float(self.lhs / self.rhs)


@dataclass
class SearchResult:
    """A model's adversarial search of one statement: ``records`` (every candidate decided or
    rejected, in index order), ``verdict`` (violated with the first exactly re-checked witness, or
    inconclusive with the tightest instance), ``seed``, ``budget``, and ``tried`` (how many
    instances the report counts as tried)."""

    records: list[Any]
    verdict: Verdict
    seed: int
    budget: int
    tried: int = 0


def decided_count(n: int, how: str = "exactly decided") -> str:
    """``"1 exactly decided instance"`` / ``"3 exactly decided instances"``."""
    return f"{n} {how} instance" + ("" if n == 1 else "s")


def no_counterexample_reason(decided: int, outside: int, candidates: int, how: str = "exactly decided") -> str:
    """The reason of a search without counterexample: how many instances were decided and, when
    some of the ``candidates`` (the search's ``details["candidates"]``) fell outside the statement's
    hypotheses, how many (a search that decided few instances says why)."""
    out = f"no counterexample among {decided_count(decided, how)} (a finite search proves nothing)"
    if outside:
        out += f"; {outside} of {candidates} candidates fell outside the hypotheses"
    return out


def short_side(v) -> str:
    """A side for a one-line witness (:func:`pyfed.exact.short_exact` of its exact value)."""
    return short_exact(to_exact(v))


def exact_text(v) -> str:
    """An exact side as text: ``"p/q"`` for a rational, sympy's text for an irrational."""
    v = to_exact(v)
    return rational_str(v) if isinstance(v, Fraction) else str(v)


def report_number(v):
    """An exact side as a verdict's number: the rational itself, an irrational as a 50-digit mpmath number."""
    v = to_exact(v)
    if isinstance(v, sympy.Basic):
        return mpmath.mpf(str(sympy.N(v, 50)))
    return v
