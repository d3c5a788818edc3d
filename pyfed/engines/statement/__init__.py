"""The engines of a statement that name no model: :mod:`.engines` (the one call shape
``applies`` / ``decide``, the run's :class:`~pyfed.engines.statement.engines.Context`) and
:mod:`.naturals` (natural-number parameters moved into a statement's hypotheses). What a model
contributes (its instances, exact engine, search space, PEP encoding) lives in its package under
:mod:`pyfed.models`."""
