"""NVIDIA FLARE's own server workflows, driven in process on pyfed's clients (needs ``nvflare``:
``pip install 'pyfed[nvflare]'``; no torch: the server code is numpy).

No simulator, no network: the controller classes ``nvflare.app_common.workflows.fedavg.FedAvg``
and ``nvflare.app_common.workflows.scaffold.Scaffold`` run their own round loop (``run`` /
``_run_rounds``: sampling, aggregation with ``WeightedAggregationHelper``, ``update_model``, the
SCAFFOLD control update) for one round, with four hooks replaced so that no engine is needed:
``sample_clients`` returns pyfed's sampled set, the task dispatch (``send_model`` /
``send_model_and_wait``) runs pyfed's clients in process, and the engine events and model
persistence are no-ops. The clients are numpy: K SGD steps with pyfed's oracle; for SCAFFOLD
NVFlare's client update (``nvflare.app_opt.pt.scaffold.PTScaffoldHelper``: the SGD step, then
the correction step -lr (c - c_i), then option II's c_i+ = c_i - c + (x - y)/(K lr)), which needs
torch in NVFlare, written here in numpy. Every client reports ``NUM_STEPS_CURRENT_ROUND = K``
(NVFlare weighs results by it) and its model change (``ParamsType.DIFF``).

Adapters (for ``pyfed conform pyfed.conform.nvflare:NAME``):

* ``fedavg``: NVFlare's FedAvg controller with no ``aggregation_weights``;
* ``fedavg_counts``: with ``aggregation_weights = {site: n_i}``, the record counts;
* ``scaffold``: NVFlare's Scaffold controller (option II clients).

:func:`characterise` says what each conforms to.
"""

from __future__ import annotations

import logging

import numpy as np

from .engine import characterise as run_all
from .protocol import AdapterError

__all__ = ["NVFlareFedAvgAdapter", "NVFlareScaffoldAdapter", "fedavg", "fedavg_counts", "scaffold", "characterise",
           "require_nvflare"]

_KEY = "w"


def require_nvflare():
    """Import ``nvflare`` or raise an AdapterError saying how to install it."""
    try:
        import nvflare
    except ImportError:
        raise AdapterError("needs NVIDIA FLARE: pip install 'pyfed[nvflare]' (nvflare)") from None
    logging.getLogger("nvflare").setLevel(logging.ERROR)
    return nvflare


def _site(i) -> str:
    return f"site-{int(i)}"


def _result(params_diff: dict, meta: dict, inp):
    from nvflare.apis.fl_constant import FLMetaKey
    from nvflare.app_common.abstract.fl_model import FLModel, ParamsType

    meta = dict(meta, **{FLMetaKey.NUM_STEPS_CURRENT_ROUND: inp.K})
    return FLModel(params=params_diff, params_type=ParamsType.DIFF, current_round=inp.round - 1, meta=meta)


def _in_process(base):
    """A subclass of an NVFlare controller whose engine-facing hooks run in process."""
    from nvflare.apis.fl_context import FLContext
    from nvflare.apis.signal import Signal

    class InProcess(base):
        def __init__(self, targets, clients, **kw):
            super().__init__(**kw)
            self.fl_ctx = FLContext()
            self.abort_signal = Signal()
            self._targets, self._clients = targets, clients

        def event(self, *args, **kwargs):
            pass

        def fire_event_with_data(self, *args, **kwargs):
            pass

        def save_model(self, *args, **kwargs):
            pass

        def sample_clients(self, num_clients=None):
            return list(self._targets)

        def send_model_and_wait(self, targets=None, data=None, **kwargs):
            return [self._clients(t, data) for t in targets]

        def send_model(self, task_name=None, targets=None, data=None, callback=None, **kwargs):
            for t in targets:
                callback(self._clients(t, data))

        def get_num_standing_tasks(self):
            return 0

    return InProcess


class NVFlareFedAvgAdapter:
    """NVFlare's FedAvg controller for one round (module docstring).

    Parameters
    ----------
    weights : "none" | "counts"
        ``aggregation_weights``: none, or the clients' record counts n_i.
    """

    algorithm = "fedavg"

    def __init__(self, weights: str = "none"):
        if weights not in ("none", "counts"):
            raise ValueError(f"weights must be 'none' or 'counts', got {weights!r}")
        self.weights = weights

    def round(self, inp):
        require_nvflare()
        from nvflare.app_common.abstract.fl_model import FLModel, ParamsType
        from nvflare.app_common.workflows.fedavg import FedAvg

        ends = {}

        def client(site, data):
            i = int(site.split("-")[1])
            x = np.array(data.params[_KEY], dtype=np.float64)
            y = x.copy()
            for _ in range(inp.K):
                y = y - inp.eta_l * inp.oracle(i, y)
            ends[i] = y
            return _result({_KEY: y - x}, {"client_name": site}, inp)

        agg = {_site(i): float(inp.counts[i]) for i in range(inp.N)} if self.weights == "counts" else None
        ctl = _in_process(FedAvg)([_site(i) for i in inp.sampled], client, num_clients=inp.S, num_rounds=1,
                                  start_round=inp.round - 1, aggregation_weights=agg,
                                  model=FLModel(params={_KEY: np.array(inp.x)}, params_type=ParamsType.FULL))
        ctl.run()
        return {"x": np.array(ctl.model.params[_KEY] if not isinstance(ctl.model, dict) else ctl.model[_KEY]),
                "y": np.array([ends[int(i)] for i in inp.sampled])}


class NVFlareScaffoldAdapter:
    """NVFlare's Scaffold controller for one round, option II clients (module docstring)."""

    algorithm = "scaffold"
    option = "II"

    def round(self, inp):
        require_nvflare()
        from nvflare.app_common.abstract.fl_model import FLModel, ParamsType
        from nvflare.app_common.app_constant import AlgorithmConstants
        from nvflare.app_common.workflows.scaffold import Scaffold

        c_clients = np.array(inp.c_clients, dtype=np.float64)
        ends = {}

        def client(site, data):
            i = int(site.split("-")[1])
            x = np.array(data.params[_KEY], dtype=np.float64)
            c = np.array(data.meta[AlgorithmConstants.SCAFFOLD_CTRL_GLOBAL][_KEY], dtype=np.float64)
            ci = c_clients[i].copy()
            y = x.copy()
            for _ in range(inp.K):
                y = y - inp.eta_l * inp.oracle(i, y)       # the optimizer's SGD step
                y = y - inp.eta_l * (c - ci)               # PTScaffoldHelper.model_update: -lr (c - c_i)
            new = ci - c + (x - y) / (inp.K * inp.eta_l)   # PTScaffoldHelper.terms_update
            c_clients[i] = new
            ends[i] = y
            return _result({_KEY: y - x}, {"client_name": site, AlgorithmConstants.SCAFFOLD_CTRL_DIFF: {_KEY: new - ci}},
                           inp)

        ctl = _in_process(Scaffold)([_site(i) for i in inp.sampled], client, num_clients=inp.S, num_rounds=1,
                                    start_round=inp.round - 1)
        ctl.model = FLModel(params={_KEY: np.array(inp.x)}, params_type=ParamsType.FULL)
        ctl._global_ctrl_weights = {_KEY: np.array(inp.c)}      # the controller's control, as initialize() keeps it
        ctl._run_rounds()
        return {"x": np.array(ctl.model.params[_KEY]), "c": np.array(ctl._global_ctrl_weights[_KEY]),
                "c_clients": c_clients, "y": np.array([ends[int(i)] for i in inp.sampled])}


fedavg = NVFlareFedAvgAdapter("none")
fedavg_counts = NVFlareFedAvgAdapter("counts")
scaffold = NVFlareScaffoldAdapter()


def characterise(seed: int = 0) -> dict:
    """What NVFlare's FedAvg and Scaffold controllers conform to: ``{name: ConformanceReport}``
    (FedAvg against both modes, with and without count weights; Scaffold against option II) and
    ``"summary"`` in words."""

    return run_all("NVFlare", [
        ("fedavg, uniform", fedavg, dict(algorithm="fedavg", mode="uniform")),
        ("fedavg, uniform, eta_g = 1", fedavg, dict(algorithm="fedavg", mode="uniform", eta_g=1)),
        ("fedavg_counts, weighted, eta_g = 1", fedavg_counts, dict(algorithm="fedavg", mode="weighted", eta_g=1)),
        ("scaffold, option II", scaffold, dict(algorithm="scaffold", option="II"))], seed)
