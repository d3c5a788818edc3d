"""Conformance of third-party implementations to the algorithms pyfed's theorems are about.

``pyfed conform ADAPTER`` asks: does this FedAvg / FedProx / SCAFFOLD / FedAdam / FedYogi /
FedAdagrad / Local SGD code produce runs of the model? The user exposes one round of their code through an adapter
(:mod:`.protocol`: plain numpy in and out); pyfed runs it on a ladder of rational quadratic
instances (:mod:`.ladder`), every client subset with its exact probability, and compares every
state with the exact law of the algorithm (:mod:`.law`: the equations replayed in exact
rationals), reporting the first deviation in words (:mod:`.engine`). After a conforming run,
:mod:`.statements` says which of pyfed's statements apply and runs their Monte Carlo rows on the
implementation's own trajectories. :mod:`.precision` bounds the rounding of a correct
implementation, :mod:`.matching` matches its oracle calls, :mod:`.diagnose` names the likely
cause, :mod:`.state` checks the purity rule, :mod:`.adaptive` is the adaptive server optimisers'
law. :mod:`.flower`, :mod:`.nvflare` and :mod:`.pfl` drive those frameworks' own server code in
process.
"""

from .engine import LAW_ALPHA, LAW_REPLICATES, conform, resolve
from .ladder import ladder, local_sgd_ladder
from .precision import PRECISIONS, Tolerance
from .protocol import ALGORITHMS, Adapter, AdapterError, LocalSGDStep, RoundInput, load_adapter
from .results import ConformanceReport, Deviation, RungResult, StateReport

__all__ = ["conform", "resolve", "ConformanceReport", "RungResult", "Deviation", "StateReport", "LAW_ALPHA",
           "LAW_REPLICATES", "ladder", "local_sgd_ladder", "Adapter", "AdapterError", "RoundInput", "LocalSGDStep",
           "load_adapter", "ALGORITHMS", "PRECISIONS", "Tolerance"]
