"""What stays statement-specific, installed as ``pyfed.checkers``: the catalogue of pyfed's own
statements with their mutation lists (:mod:`.registry`, :mod:`.scaffold`, :mod:`.lemmas`,
:mod:`.fedavg`), mutations as edits of the Lean text (:mod:`.mutations`) and the instance
families the generic search draws from (:mod:`.families`).

What is checked comes from the Lean files through the one reader (:mod:`pyfed.statements`); the
engines (:mod:`pyfed.engines.statement`) decide it. No statement has a hand-written checker.

The package itself imports nothing: ``pyfed.checkers.families`` is read by the models, which the
catalogue (through the reader) reads in turn, so an import here would run in a circle.
"""
