"""SCAFFOLD on Flower, written the way Flower's documentation and baselines suggest: a subclass of
Flower's ``FedAvg`` strategy that carries the server control. The server sends (x, c) as the
fit parameters; each client runs K corrected local steps, updates its own control (option II) and
returns (y_K, Delta c_i); the strategy aggregates both lists with Flower's own ``aggregate``
(weighted by ``num_examples``), moves the model by the global step and the control by
|S| / N times the aggregated Delta c.

Run in process by pyfed (no network, no simulation engine; needs ``pip install 'pyfed[flower]'``):

    pyfed conform examples/conformance/flower_scaffold.py:adapter --option II
    pyfed conform examples/conformance/flower_scaffold.py:adapter_equal_examples --option II

With clients reporting their record counts the aggregation is a count-weighted average normalised
within the sampled set, not SCAFFOLD's 1/S average; with equal ``num_examples`` it is SCAFFOLD.
"""

import numpy as np
from flwr.common import ndarrays_to_parameters, parameters_to_ndarrays
from flwr.server.strategy import FedAvg
from flwr.server.strategy.aggregate import aggregate

from pyfed.conform.flower import flower_round


class ScaffoldStrategy(FedAvg):
    """Flower FedAvg carrying SCAFFOLD's server control ``self.c`` and a global step ``eta_g``."""

    def __init__(self, *, num_clients, c, eta_g=1.0, **kwargs):
        super().__init__(**kwargs)
        self.num_clients = num_clients
        self.c = np.array(c, dtype=np.float64)
        self.eta_g = eta_g
        self.x = None

    def configure_fit(self, server_round, parameters, client_manager):
        self.x = parameters_to_ndarrays(parameters)[0]
        both = ndarrays_to_parameters([self.x, self.c])  # the clients need the server control
        pairs = super().configure_fit(server_round, both, client_manager)
        return pairs

    def aggregate_fit(self, server_round, results, failures):
        if not results:
            return None, {}
        models = [([parameters_to_ndarrays(r.parameters)[0]], r.num_examples) for _, r in results]
        control_changes = [([parameters_to_ndarrays(r.parameters)[1]], r.num_examples) for _, r in results]
        y_avg = aggregate(models)[0]
        dc_avg = aggregate(control_changes)[0]
        x_new = self.x + self.eta_g * (y_avg - self.x)
        self.c = self.c + len(results) / self.num_clients * dc_avg
        return ndarrays_to_parameters([x_new]), {}


class FlowerScaffold:
    """The pyfed adapter: one Flower round of :class:`ScaffoldStrategy` with in-process clients."""

    algorithm = "scaffold"
    option = "II"

    def __init__(self, report_counts=True):
        self.report_counts = report_counts

    def round(self, inp):
        strategy = ScaffoldStrategy(num_clients=inp.N, c=inp.c, eta_g=inp.eta_g, fraction_fit=inp.S / inp.N,
                                    min_fit_clients=inp.S, min_available_clients=inp.N, fraction_evaluate=0.0,
                                    min_evaluate_clients=0)
        c_clients = np.array(inp.c_clients)

        def fit(i, arrays, config):  # the client: corrected local steps and option II's control
            x, c = arrays
            y = x.copy()
            for _ in range(inp.K):
                y = y - inp.eta_l * (inp.oracle(i, y) - c_clients[i] + c)
            if inp.option == "I":
                ci_new = inp.oracle(i, x)
            else:
                ci_new = c_clients[i] - c + (x - y) / (inp.K * inp.eta_l)
            dc = ci_new - c_clients[i]
            c_clients[i] = ci_new
            return [y, dc], (int(inp.counts[i]) if self.report_counts else 1)

        arrays, _ = flower_round(strategy, inp, [np.array(inp.x)], fit)
        return {"x": arrays[0], "c": strategy.c, "c_clients": c_clients}


adapter = FlowerScaffold(report_counts=True)
adapter_equal_examples = FlowerScaffold(report_counts=False)
