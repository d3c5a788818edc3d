"""The FedProx model (:mod:`.model`): theorems about FedProx as a procedure
(``FedProxProcedure`` of ``lean/Pyfed/Algorithms/FedProx.lean``), their reader, instances
(quadratic clients with exact oracles), exact search, witness re-check and Lean counterexample
file. Only :mod:`pyfed.models.registry` imports this package; the rest of pyfed reaches it
through a statement's ``model``."""

from .model import MODEL

__all__ = ["MODEL"]
