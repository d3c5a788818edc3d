"""Conformance of third-party implementations to the algorithms pyfed's theorems are about.

``pyfed conform ADAPTER`` asks: does this FedAvg / FedProx / SCAFFOLD / Local SGD code produce
runs of the model? The user exposes one round of their code through an adapter
(:mod:`.protocol`: plain numpy in and out); pyfed runs it on a ladder of rational quadratic
instances (:mod:`.ladder`), every client subset with its exact probability, and compares every
state with the exact law of the algorithm (:mod:`.law`: the equations replayed in exact
rationals), reporting the first deviation in words (:mod:`.engine`). After a conforming run,
:mod:`.statements` says which of pyfed's statements apply and runs their Monte Carlo rows on the
implementation's own trajectories. :mod:`.flower` drives Flower's server strategies in process.
"""

from .engine import (LAW_ALPHA, LAW_REPLICATES, ULP_BOUND, ConformanceReport, Deviation, RungResult, conform,
                     resolve)
from .ladder import ladder, local_sgd_ladder
from .protocol import Adapter, AdapterError, LocalSGDStep, RoundInput, load_adapter

__all__ = ["conform", "resolve", "ConformanceReport", "RungResult", "Deviation", "ULP_BOUND", "LAW_ALPHA",
           "LAW_REPLICATES", "ladder", "local_sgd_ladder", "Adapter", "AdapterError", "RoundInput", "LocalSGDStep",
           "load_adapter"]
