"""Flower's own server strategies, driven in process on pyfed's clients (needs ``flwr``:
``pip install 'pyfed[flower]'``).

No network and no simulation engine: one round is Flower's ``configure_fit`` (with a client
manager whose ``sample`` returns pyfed's sampled set, after checking that the strategy asked for
S clients), then each sampled client's ``fit`` (K local steps with pyfed's oracle: plain SGD for
FedAvg, with the proximal term ``config["proximal_mu"]`` for FedProx; the client reports its record
count n_i as ``num_examples``, or 1 with ``num_examples="equal"``), then Flower's
``aggregate_fit`` on the ``FitRes`` objects; the aggregated parameters are the new model. The
strategies are Flower's (``flwr.server.strategy.FedAvg`` / ``FedProx``), unmodified.

Adapters (for ``pyfed conform pyfed.conform.flower:NAME``):

* ``fedavg`` / ``fedprox``: clients report n_i;
* ``fedavg_equal`` / ``fedprox_equal``: every client reports ``num_examples = 1``;
* ``fedadam`` / ``fedyogi`` / ``fedadagrad``: Flower's ``FedAdam`` / ``FedYogi`` / ``FedAdagrad``
  (``flwr.server.strategy``), every client reporting ``num_examples = 1``, the strategy built each
  round from pyfed's state (its ``current_weights``, ``m_t``, ``v_t`` set to x, m, v; its
  ``eta``, ``eta_l``, ``beta_1``, ``beta_2``, ``tau`` from the rung) so that the adapter is a
  function of its input;
* ``fedadam_deployed`` (and the other two): the strategy as deployed, built once and kept on the
  adapter (its own m_t, v_t start from None, i.e. zeros): a stateful adapter, run path by path.

Every adapter returns the clients' fitted models as ``y`` (the local end points).
:func:`characterise_fedavg` runs the FedAvg adapters against both FedAvg modes of seed 002 and
:func:`characterise_fedopt` the adaptive ones against Reddi et al.'s Algorithm 2, and say what
Flower's strategies conform to.
"""

from __future__ import annotations

import logging

import numpy as np

from .engine import characterise, conform
from .protocol import AdapterError

__all__ = ["FlowerStrategyAdapter", "FlowerFedOptAdapter", "DeployedFedOptAdapter", "fedavg", "fedavg_equal", "fedprox", "fedprox_equal",
           "fedadam", "fedyogi", "fedadagrad", "fedadam_deployed", "fedyogi_deployed", "fedadagrad_deployed",
           "flower_round", "characterise_fedavg", "characterise_fedopt", "require_flwr"]


def require_flwr():
    """Import ``flwr`` or raise an AdapterError saying how to install it."""
    try:
        import flwr
    except ImportError:
        raise AdapterError("needs the Flower package: pip install 'pyfed[flower]' (flwr)") from None
    logging.getLogger("flwr").setLevel(logging.ERROR)  # Flower logs every round's sampling at INFO
    return flwr


def _classes():
    require_flwr()
    from flwr.server.client_manager import SimpleClientManager
    from flwr.server.client_proxy import ClientProxy

    class InProcessProxy(ClientProxy):
        """A client proxy that is only an identity: pyfed runs the client's fit itself."""

        def get_properties(self, ins, timeout, group_id):  # pragma: no cover - never called
            raise NotImplementedError

        def get_parameters(self, ins, timeout, group_id):  # pragma: no cover
            raise NotImplementedError

        def fit(self, ins, timeout, group_id):  # pragma: no cover
            raise NotImplementedError

        def evaluate(self, ins, timeout, group_id):  # pragma: no cover
            raise NotImplementedError

        def reconnect(self, ins, timeout, group_id):  # pragma: no cover
            raise NotImplementedError

    class SampledSetManager(SimpleClientManager):
        """Flower's client manager with the sample replaced by pyfed's sampled set."""

        def __init__(self, N, sampled):
            super().__init__()
            self.proxies = [InProcessProxy(str(i)) for i in range(N)]
            for p in self.proxies:
                self.register(p)
            self.sampled = [int(i) for i in sampled]
            self.asked = None

        def sample(self, num_clients, min_num_clients=None, criterion=None):
            self.asked = num_clients
            return [self.proxies[i] for i in self.sampled]

    return SampledSetManager


def flower_round(strategy, inp, parameters: list, fit) -> tuple[list, object]:
    """One round of a Flower (legacy API) strategy in process.

    Parameters
    ----------
    strategy : flwr.server.strategy.Strategy
    inp : RoundInput
    parameters : list of ndarray
        What the server sends (the model, and whatever else the strategy carries).
    fit : callable (i, ndarrays, config) -> (list of ndarray, num_examples)
        Client i's training on what it received.

    Returns
    -------
    (aggregated ndarrays, the strategy's metrics)

    Raises AdapterError when the strategy asks for another number of clients than S, or
    aggregates nothing."""
    from flwr.common import Code, FitRes, Status, ndarrays_to_parameters, parameters_to_ndarrays

    Manager = _classes()
    manager = Manager(inp.N, inp.sampled)
    pairs = strategy.configure_fit(inp.round, ndarrays_to_parameters(parameters), manager)
    if manager.asked != inp.S:
        raise AdapterError(f"the Flower strategy asked for {manager.asked} clients per round, the run has S = {inp.S} "
                           "(set fraction_fit = S/N and min_fit_clients = S)")
    results = []
    for proxy, ins in pairs:
        i = int(proxy.cid)
        arrays, n = fit(i, parameters_to_ndarrays(ins.parameters), dict(ins.config))
        results.append((proxy, FitRes(status=Status(code=Code.OK, message=""),
                                      parameters=ndarrays_to_parameters([np.asarray(a, dtype=np.float64) for a in arrays]),
                                      num_examples=int(n), metrics={})))
    params, metrics = strategy.aggregate_fit(inp.round, results, [])
    if params is None:
        raise AdapterError("the Flower strategy aggregated nothing (aggregate_fit returned None)")
    return parameters_to_ndarrays(params), metrics


class FlowerStrategyAdapter:
    """Adapter running Flower's ``FedAvg`` or ``FedProx`` server strategy (module docstring).

    Parameters
    ----------
    strategy : "FedAvg" | "FedProx"
    num_examples : "counts" | "equal"
        What each client reports: its record count n_i, or 1.
    """

    def __init__(self, strategy: str = "FedAvg", num_examples: str = "counts"):
        if strategy not in ("FedAvg", "FedProx"):
            raise ValueError(f"strategy must be 'FedAvg' or 'FedProx', got {strategy!r}")
        if num_examples not in ("counts", "equal"):
            raise ValueError(f"num_examples must be 'counts' or 'equal', got {num_examples!r}")
        self.strategy_name = strategy
        self.num_examples = num_examples
        self.algorithm = "fedavg" if strategy == "FedAvg" else "fedprox"

    def _strategy(self, inp):
        require_flwr()
        from flwr.server import strategy as st

        kw = dict(fraction_fit=inp.S / inp.N, min_fit_clients=inp.S, min_available_clients=inp.N,
                  fraction_evaluate=0.0, min_evaluate_clients=0)
        if self.strategy_name == "FedProx":
            return st.FedProx(proximal_mu=0.0 if inp.mu is None else inp.mu, **kw)
        return st.FedAvg(**kw)

    def round(self, inp):
        strategy = self._strategy(inp)
        fit, ends = _sgd_clients(inp, self.num_examples)
        arrays, _ = flower_round(strategy, inp, [np.array(inp.x)], fit)
        return {"x": arrays[0], "y": np.array([ends[int(i)] for i in inp.sampled])}


def _sgd_clients(inp, num_examples: str):
    """A Flower client's ``fit`` (K local SGD steps with pyfed's oracle; FedProx's proximal term
    when the config has ``proximal_mu``) and the dict its end points are recorded in."""
    ends = {}

    def fit(i, arrays, config):
        x = np.array(arrays[0], dtype=np.float64)
        mu = float(config.get("proximal_mu", 0.0))
        y = x.copy()
        for _ in range(inp.K):
            y = y - inp.eta_l * (inp.oracle(i, y) + mu * (y - x))
        ends[i] = y
        return [y], (int(inp.counts[i]) if num_examples == "counts" else 1)

    return fit, ends


class FlowerFedOptAdapter:
    """Adapter running Flower's ``FedAdam`` / ``FedYogi`` / ``FedAdagrad`` (module docstring).

    Parameters
    ----------
    strategy : "FedAdam" | "FedYogi" | "FedAdagrad"
    deployed : bool
        Keep one strategy on the adapter (Flower's own state, initialised as Flower does) instead
        of building it each round from pyfed's state.
    """

    def __init__(self, strategy: str = "FedAdam", deployed: bool = False):
        if strategy not in ("FedAdam", "FedYogi", "FedAdagrad"):
            raise ValueError(f"strategy must be FedAdam, FedYogi or FedAdagrad, got {strategy!r}")
        self.strategy_name = strategy
        self.algorithm = strategy.lower()
        self.deployed = deployed
        self.strategy = None

    def _strategy(self, inp):
        require_flwr()
        from flwr.common import ndarrays_to_parameters
        from flwr.server import strategy as st

        kw = dict(fraction_fit=inp.S / inp.N, min_fit_clients=inp.S, min_available_clients=inp.N,
                  fraction_evaluate=0.0, min_evaluate_clients=0,
                  initial_parameters=ndarrays_to_parameters([np.array(inp.x)]), eta=inp.eta_g, eta_l=inp.eta_l,
                  tau=inp.tau)
        if self.strategy_name != "FedAdagrad":        # Flower's FedAdagrad fixes beta_1 = beta_2 = 0
            kw.update(beta_1=inp.beta_1, beta_2=inp.beta_2)
        return getattr(st, self.strategy_name)(**kw)

    def round(self, inp):
        if self.deployed:
            if self.strategy is None:
                self.strategy = self._strategy(inp)
            strategy = self.strategy
        else:
            strategy = self._strategy(inp)
            strategy.m_t, strategy.v_t = [np.array(inp.m)], [np.array(inp.v)]
        fit, ends = _sgd_clients(inp, "equal")
        arrays, _ = flower_round(strategy, inp, [np.array(inp.x)], fit)
        return {"x": arrays[0], "m": strategy.m_t[0], "v": strategy.v_t[0],
                "y": np.array([ends[int(i)] for i in inp.sampled])}


fedavg = FlowerStrategyAdapter("FedAvg", "counts")
fedavg_equal = FlowerStrategyAdapter("FedAvg", "equal")
fedprox = FlowerStrategyAdapter("FedProx", "counts")
fedprox_equal = FlowerStrategyAdapter("FedProx", "equal")
fedadam = FlowerFedOptAdapter("FedAdam")
fedyogi = FlowerFedOptAdapter("FedYogi")
fedadagrad = FlowerFedOptAdapter("FedAdagrad")


class DeployedFedOptAdapter(FlowerFedOptAdapter):
    """Flower's FedOpt strategy as deployed: one strategy kept on the adapter, its moments starting
    where Flower starts them (``m_t = v_t = None``, read as zeros in the first aggregation), which
    :meth:`init` reports as the initial state."""

    def __init__(self, strategy: str = "FedAdam"):
        super().__init__(strategy, deployed=True)

    def init(self, x0):
        return {"x": np.array(x0), "m": np.zeros_like(x0), "v": np.zeros_like(x0)}


fedadam_deployed = DeployedFedOptAdapter("FedAdam")
fedyogi_deployed = DeployedFedOptAdapter("FedYogi")
fedadagrad_deployed = DeployedFedOptAdapter("FedAdagrad")


def characterise_fedavg(seed: int = 0) -> dict:
    """What Flower's FedAvg conforms to, against the two FedAvg modes of seed 002.

    Runs :func:`pyfed.conform.conform` for {clients report n_i, clients report 1} x {uniform,
    weighted} and returns ``{(num_examples, mode): ConformanceReport}`` plus ``"summary"``: the
    findings in words (which rungs conform, the weights Flower uses where it deviates)."""

    out = {}
    for name, adapter in (("counts", fedavg), ("equal", fedavg_equal)):
        for mode in ("uniform", "weighted"):
            out[(name, mode)] = conform(adapter, "fedavg", mode=mode, seed=seed)
    lines = []
    for (name, mode), rep in out.items():
        who = "clients report num_examples = n_i" if name == "counts" else "every client reports num_examples = 1"
        ok = [r.name for r in rep.rungs if r.status != "deviates"]
        bad = [(r.name, r.deviation) for r in rep.rungs if r.status == "deviates"]
        text = f"{who}, seed's {mode} mode: conforms on {len(ok)} of {len(rep.rungs)} rungs"
        if bad:
            first = bad[0][1]
            text += f"; first deviation at '{bad[0][0]}': {first.quantity}" + (f" ({first.hint})" if first.hint else "")
        lines.append(text)
    out["summary"] = lines
    return out


def characterise_fedopt(seed: int = 0) -> dict:
    """What Flower's FedAdam, FedYogi and FedAdagrad conform to, against Reddi et al.'s Algorithm 2:
    ``{name: ConformanceReport}`` for the strategies built from pyfed's state and, under
    ``name + " deployed"``, as deployed (Flower's own initial state), plus ``"summary"`` in words."""

    runs = [(label, adapter, dict(algorithm=name)) for name in ("fedadam", "fedyogi", "fedadagrad")
            for label, adapter in ((name, globals()[name]), (f"{name} deployed", globals()[f"{name}_deployed"]))]
    return characterise("Flower", runs, seed)
