"""Apple's pfl (private federated learning simulation) algorithms, driven in process on pyfed's
clients (needs ``pfl``: ``pip install 'pyfed[pfl]'``; no torch).

pfl's algorithm classes hold the federated logic: ``pfl.algorithm.FederatedAveraging`` and
``pfl.algorithm.SCAFFOLD`` (``train_one_user``: the client's update and, for SCAFFOLD, its control
from the user-state storage; ``process_aggregated_statistics``: the average of the summed user
statistics, the server control update, the model update). They call two framework-specific
pieces: a model (``pfl.model.base.StatefulModel``) and an SGD "bridge" (PyTorch, TensorFlow or
MLX). Here the model is numpy, following ``pfl.model.pytorch.PyTorchModel`` with a central SGD
optimiser of learning rate eta_g: ``get_model_difference`` is current minus given parameters,
``apply_model_update`` moves the model by eta_g times the averaged statistics; and the bridges run
pyfed's oracle (``do_sgd``: ``local_num_steps`` steps, else epochs x batches, of
y <- y - lr g_i(y); ``do_control_variate_sgd``: the same step with pfl's PyTorch correction
g + c - c_i). The bridges are installed only while a round runs (the factory's methods are
swapped and restored). A user's dataset has K records and batch size 1, so pfl's own count of
local steps, epochs x ceil(records / batch), is K. Every user statistic has weight 1, as pfl's
default weighting does.

Adapters (for ``pyfed conform pyfed.conform.pfl:NAME``): ``fedavg`` (FederatedAveraging),
``scaffold`` (SCAFFOLD option II, ``use_gradient_as_control_variate=False``) and
``scaffold_option_one``. :func:`characterise` says what they conform to.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np

from .engine import characterise as run_all
from .protocol import AdapterError

__all__ = ["PflAdapter", "fedavg", "scaffold", "scaffold_option_one", "characterise", "require_pfl"]

_KEY = "w"


def require_pfl():
    """Import ``pfl`` or raise an AdapterError saying how to install it."""
    try:
        import pfl
    except ImportError:
        raise AdapterError("needs Apple's pfl: pip install 'pyfed[pfl]' (pfl)") from None
    return pfl


def _classes():
    from pfl.metrics import Metrics
    from pfl.model.base import StatefulModel
    from pfl.stats import MappedVectorStatistics

    class NumpyModel(StatefulModel):
        """pfl's model interface on one numpy vector (module docstring)."""

        def __init__(self, x, eta_g):
            super().__init__()
            self.w = np.array(x, dtype=np.float64)
            self.eta_g = eta_g

        def get_parameters(self, placeholders=None):
            return MappedVectorStatistics({_KEY: self.w.copy()})

        def set_parameters(self, w):
            self.w = np.array(w[_KEY], dtype=np.float64)

        def get_model_difference(self, other_parameters, clone=False):
            return MappedVectorStatistics({_KEY: self.w - other_parameters[_KEY]})

        def apply_model_update(self, statistics):
            self.w = self.w + self.eta_g * np.asarray(statistics[_KEY])
            return self, Metrics()

        def evaluate(self, dataset, name_formatting_fn=lambda n: n, eval_params=None):
            return Metrics()

        def save(self, dir_path):  # pragma: no cover - pfl's checkpointing, unused in one round
            raise NotImplementedError

        def load(self, dir_path):  # pragma: no cover
            raise NotImplementedError

    return NumpyModel


@contextlib.contextmanager
def _bridges(oracle, client_of):
    """pyfed's SGD and SCAFFOLD bridges in pfl's bridge factory while the block runs."""
    from pfl.internal.bridge.factory import FrameworkBridgeFactory as F

    def steps(params, dataset):
        if params.local_num_steps is not None:
            return int(params.local_num_steps)
        batch = params.local_batch_size or len(dataset)
        return int(params.local_num_epochs) * math.ceil(len(dataset) / batch)

    class SGD:
        @staticmethod
        def do_sgd(model, user_dataset, train_params):
            i = client_of(user_dataset)
            for _ in range(steps(train_params, user_dataset)):
                model.w = model.w - train_params.local_learning_rate * oracle(i, model.w)

    class ControlVariateSGD:
        @staticmethod
        def do_control_variate_sgd(model, user_dataset, train_params, local_c, server_c):
            i = client_of(user_dataset)
            for _ in range(steps(train_params, user_dataset)):
                g = oracle(i, model.w) + server_c[_KEY] - local_c[_KEY]     # pfl's PyTorch train step
                model.w = model.w - train_params.local_learning_rate * g

    saved = F.sgd_bridge, F.scaffold_bridge
    F.sgd_bridge, F.scaffold_bridge = staticmethod(lambda: SGD), staticmethod(lambda: ControlVariateSGD)
    try:
        yield
    finally:
        F.sgd_bridge, F.scaffold_bridge = saved


class PflAdapter:
    """One round of pfl's FederatedAveraging or SCAFFOLD (module docstring).

    Parameters
    ----------
    algorithm : "fedavg" | "scaffold"
    option : "I" | "II"
        SCAFFOLD's control (``use_gradient_as_control_variate``).
    """

    def __init__(self, algorithm: str = "fedavg", option: str = "II"):
        if algorithm not in ("fedavg", "scaffold"):
            raise ValueError(f"algorithm must be 'fedavg' or 'scaffold', got {algorithm!r}")
        self.algorithm = algorithm
        self.option = option if algorithm == "scaffold" else None
        if algorithm == "fedavg":
            self.mode = "uniform"

    def round(self, inp):
        require_pfl()
        from pfl.algorithm import SCAFFOLD, FederatedAveraging, NNAlgorithmParams
        from pfl.algorithm.scaffold import SCAFFOLDParams
        from pfl.common_types import Population
        from pfl.context import CentralContext
        from pfl.data.dataset import Dataset
        from pfl.data.user_state import InMemoryUserStateStorage
        from pfl.hyperparam.base import NNTrainHyperParams
        from pfl.metrics import Metrics
        from pfl.stats import MappedVectorStatistics

        model = _classes()(inp.x, inp.eta_g)
        train = NNTrainHyperParams(local_num_epochs=1, local_learning_rate=inp.eta_l, local_batch_size=1)
        common = dict(central_num_iterations=inp.round, evaluation_frequency=1, train_cohort_size=inp.S,
                      val_cohort_size=0)
        if self.algorithm == "scaffold":
            storage = InMemoryUserStateStorage()
            for i in range(inp.N):
                storage.save_state(MappedVectorStatistics({_KEY: np.array(inp.c_clients[i])}), str(i), "local_c")
            params = SCAFFOLDParams(population=inp.N, use_gradient_as_control_variate=self.option == "I",
                                    user_state_storage=storage, **common)
            algo = SCAFFOLD()
            algo._server_c = MappedVectorStatistics({_KEY: np.array(inp.c)})   # the server control of round r - 1
        else:
            params = NNAlgorithmParams(**common)
            algo = FederatedAveraging()
        ctx = CentralContext(current_central_iteration=inp.round - 1, do_evaluation=False, cohort_size=inp.S,
                             population=Population.TRAIN, algorithm_params=params, model_train_params=train)
        datasets = {int(i): Dataset((np.zeros((inp.K, 1)), np.zeros(inp.K)), user_id=str(int(i)))
                    for i in inp.sampled}
        ends, total = {}, None
        with _bridges(inp.oracle, lambda ds: int(ds.user_id)):
            for i in inp.sampled:
                start = model.get_parameters()
                stats, _ = algo.train_one_user(start, model, datasets[int(i)], ctx)
                ends[int(i)] = model.w.copy()
                model.set_parameters(start)
                total = stats if total is None else total + stats
            algo.process_aggregated_statistics(ctx, Metrics(), model, total)
        out = {"x": model.w, "y": np.array([ends[int(i)] for i in inp.sampled])}
        if self.algorithm == "scaffold":
            out["c"] = np.array(algo._server_c[_KEY])
            out["c_clients"] = np.array([storage.load_state(str(i), "local_c")[_KEY] for i in range(inp.N)])
        return out


fedavg = PflAdapter("fedavg")
scaffold = PflAdapter("scaffold", "II")
scaffold_option_one = PflAdapter("scaffold", "I")


def characterise(seed: int = 0) -> dict:
    """What pfl's FederatedAveraging and SCAFFOLD conform to: ``{name: ConformanceReport}`` and
    ``"summary"`` in words."""

    return run_all("pfl", [("FederatedAveraging, uniform", fedavg, dict(algorithm="fedavg", mode="uniform")),
                           ("SCAFFOLD option II", scaffold, dict(algorithm="scaffold", option="II")),
                           ("SCAFFOLD option I", scaffold_option_one, dict(algorithm="scaffold", option="I"))], seed)
