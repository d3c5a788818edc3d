"""The one evaluator of Lean terms (:mod:`.evaluator`) over pluggable value domains
(:mod:`.domains`), with Lean's arithmetic on every kind of number (:mod:`.numbers`) and the
values terms evaluate to (:mod:`.values`)."""

from .domains import Domain, Numbers, numbers
from .evaluator import NOT_MINE, Atoms, Definitions, Evaluator
from .numbers import EvaluationError, Undecided

__all__ = ["Evaluator", "Atoms", "Definitions", "NOT_MINE", "Domain", "Numbers", "numbers", "EvaluationError",
           "Undecided"]
