"""The SCAFFOLD run model (:mod:`.model`): theorems about the seed-000 ``Run``, their reader,
instances, exact, Monte Carlo and PEP engines, search, constant profile and witnesses. Only
:mod:`pyfed.models.registry` imports this package; the rest of pyfed reaches it through a
statement's ``model``."""

from .model import MODEL

__all__ = ["MODEL"]
