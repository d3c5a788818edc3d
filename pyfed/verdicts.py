"""Verdict objects: every question pyfed answers ends in exactly one of these.

* :class:`Holds` — certified: exact arithmetic, a certified ball, or a confidence bound
  (``certificate`` says which, and at what level).
* :class:`Violated` — with a ``witness`` from which the counterexample is reproduced
  (instance, parameters and the seed).
* :class:`Inconclusive` — with the ``reason`` (e.g. confidence interval straddles the
  bound, solver status not optimal, a ball contains 0).

All carry ``lhs``, ``rhs``, ``margin = rhs - lhs`` and ``ratio = lhs / rhs`` (when defined)
so reports show how tight the statement is, not only a boolean.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .exact import as_float, format_number, number_json


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
    """

    statement: str
    lhs: object = None
    rhs: object = None
    exact: bool = False
    details: dict = field(default_factory=dict)

    status = "abstract"

    def _sides(self):
        """(lhs, rhs) in one arithmetic: exact only when both sides are exact; a float side
        (an estimate or a solver value) makes both floats, so nothing inexact is reported as
        an exact rational."""
        a, b = self.lhs, self.rhs
        if isinstance(a, float) or isinstance(b, float):
            return as_float(a), as_float(b)
        return a, b

    @property
    def margin(self):
        """rhs - lhs (None if either side is missing)."""
        if self.lhs is None or self.rhs is None:
            return None
        a, b = self._sides()
        return b - a

    @property
    def ratio(self):
        """lhs / rhs (None if undefined)."""
        if self.lhs is None or self.rhs is None or self.rhs == 0:
            return None
        a, b = self._sides()
        return a / b

    def __str__(self) -> str:
        name = self.statement if "." in self.statement else f"SCAFFOLD.{self.statement}"
        parts = [f"{self.status}: {name}"]
        for name, v in (("lhs", self.lhs), ("rhs", self.rhs), ("ratio", self.ratio)):
            if v is not None:
                parts.append(f"{name}={format_number(v)}")
        parts.append("exact" if self.exact else "estimate")
        extra = getattr(self, "reason", "") or getattr(self, "certificate", "")
        return " ".join(parts) + (f" ({extra})" if extra else "")

    def to_json(self) -> dict:
        """JSON-ready dict; exact numbers are given both as a string ``p/q`` and a float."""
        num = number_json
        return {
            "statement": self.statement,
            "status": self.status,
            "lhs": num(self.lhs),
            "rhs": num(self.rhs),
            "margin": num(self.margin),
            "ratio": num(self.ratio),
            "exact": self.exact,
            "details": self.details,
        }


@dataclass
class Holds(Verdict):
    """The statement holds on this instance; ``certificate`` says how it is certified."""

    certificate: str = ""
    status = "holds"


@dataclass
class Violated(Verdict):
    """The statement fails on this instance; ``witness`` reproduces the failure."""

    witness: dict = field(default_factory=dict)
    status = "violated"


@dataclass
class Inconclusive(Verdict):
    """Neither certified nor refuted; ``reason`` says why."""

    reason: str = ""
    status = "inconclusive"
