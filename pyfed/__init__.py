"""pyfed: a Lean-backed verification companion for federated optimization theory.

Simulators for FedAvg, Local SGD and SCAFFOLD that satisfy the Lean ``Run`` predicates,
exact evaluation of the theorems' right-hand sides, and honest verdicts
(holds / violated / inconclusive) on synthetic and real data.
"""

__version__ = "0.1.0"
