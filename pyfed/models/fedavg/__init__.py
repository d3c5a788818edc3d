"""The FedAvg run model (:mod:`.model`): theorems about the Field Guide's ``FedAvg.Run``, their
reader, instance families, exact and Monte Carlo engines, search and witnesses. Only
:mod:`pyfed.models.registry` imports this package; the rest of pyfed reaches it through a
statement's ``model``."""

from .model import MODEL

__all__ = ["MODEL"]
