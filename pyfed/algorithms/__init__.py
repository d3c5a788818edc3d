"""Federated algorithms vectorised over R independent replicates.

* :func:`fedavg` - FedAvg, count-weighted and uniform-client modes (seed 002);
* :func:`fedavg_shadow` - FedAvg with full participation recording the Field Guide's shadow
  statistics at every local step (Lean ``FedAvg.Run``);
* :func:`local_sgd` - Stich's Local SGD with minibatches and sync times (seed 002);
* :func:`scaffold` - SCAFFOLD options I/II as the seed-002 procedure (Algorithm 1);
* :func:`scaffold_run` - the seed-000 ``Run`` model of the Lean convergence theorem.

Results are :class:`Trajectory` / :class:`LocalSGDTrajectory` records.
"""

from .common import LocalSGDTrajectory, Trajectory
from .fedavg import fedavg
from .fedavg_shadow import ShadowTrajectory, fedavg_shadow
from .local_sgd import local_sgd
from .scaffold import scaffold, scaffold_run

__all__ = ["Trajectory", "LocalSGDTrajectory", "ShadowTrajectory", "fedavg", "fedavg_shadow", "local_sgd", "scaffold",
           "scaffold_run"]
