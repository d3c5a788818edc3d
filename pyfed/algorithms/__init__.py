"""Federated algorithms vectorised over R independent replicates.

* :func:`fedavg` - FedAvg, count-weighted and uniform-client modes (seed 002);
* :func:`fedprox` - FedProx: local SGD on the proximal objective f_i + mu/2 ||y - x||^2;
* :func:`local_sgd` - Stich's Local SGD with minibatches and sync times (seed 002);
* :func:`scaffold` - SCAFFOLD options I/II as the seed-002 procedure (Algorithm 1);
* :func:`scaffold_run` - the seed-000 ``Run`` model of the Lean convergence theorem.

Results are :class:`Trajectory` / :class:`LocalSGDTrajectory` records.
"""

from .common import LocalSGDTrajectory, Trajectory
from .fedavg import fedavg
from .fedprox import fedprox
from .local_sgd import local_sgd
from .scaffold import scaffold, scaffold_run

__all__ = ["Trajectory", "LocalSGDTrajectory", "fedavg", "fedprox", "local_sgd", "scaffold", "scaffold_run"]
