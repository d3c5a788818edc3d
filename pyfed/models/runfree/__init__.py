"""The run-free model (:mod:`.model`): theorems without a run (vectors, sequences, function
classes, finite probability spaces, the model's procedures), their reader, instance plans and
draws, search, PEP row and witnesses. Only :mod:`pyfed.models.registry` imports this package;
the rest of pyfed reaches it through a statement's ``model``."""

from .model import MODEL

__all__ = ["MODEL"]
