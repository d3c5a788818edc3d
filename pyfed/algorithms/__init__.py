"""Federated algorithms vectorised over R independent replicates.

* :func:`fedavg` - FedAvg, count-weighted and uniform-client modes (seed 002);
* :func:`fedavg_shadow` - FedAvg with full participation recording the Field Guide's shadow
  statistics at every local step (Lean ``FedAvg.Run``);
* :func:`fedprox` - FedProx: local SGD on the proximal objective f_i + mu/2 ||y - x||^2;
* :func:`local_sgd` - Stich's Local SGD with minibatches and sync times (seed 002);
* :func:`scaffold` - SCAFFOLD options I/II as the seed-002 procedure (Algorithm 1);
* :func:`scaffold_run` - the seed-000 ``Run`` model of the Lean convergence theorem.

Results are :class:`Trajectory` / :class:`LocalSGDTrajectory` records. For quadratic clients
with a Gaussian (or exact) oracle, :func:`fedavg`, :func:`scaffold` and :func:`scaffold_run`
draw each round from its closed-form law by default (:mod:`pyfed.algorithms.rounds`: one affine
map and one Gaussian per client; ``method="steps"`` runs the local steps one by one). Local SGD's
randomness is the choice of components, not Gaussian noise, so it has no such closed form.
:func:`fedavg`, :func:`fedprox`, :func:`scaffold` and :func:`scaffold_run` run with one BLAS
thread when d <= :data:`pyfed.blas.SMALL_DIMENSION` (:mod:`pyfed.blas`; ``PYFED_BLAS_THREADS``).
"""

from .common import LocalSGDTrajectory, Trajectory
from .fedavg import fedavg
from .fedavg_shadow import ShadowTrajectory, fedavg_shadow
from .fedprox import fedprox
from .local_sgd import local_sgd
from .scaffold import scaffold, scaffold_run

__all__ = ["Trajectory", "LocalSGDTrajectory", "ShadowTrajectory", "fedavg", "fedavg_shadow", "fedprox", "local_sgd",
           "scaffold", "scaffold_run"]
