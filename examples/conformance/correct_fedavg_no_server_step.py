"""A correct FedAvg as McMahan et al. wrote it (Algorithm 1): client objects that train on the
model they receive and report their record counts, a server that replaces its model by the
count-weighted average of the returned models. There is no server learning rate, so it is FedAvg
with eta_g = 1, which it declares (``eta_g = 1``; or ``--eta-g 1`` on the command line). With S = N
its average is the count-weighted mode; pyfed checks it in that mode with eta_g = 1 on every rung.

    pyfed conform examples/conformance/correct_fedavg_no_server_step.py:FedAvg --mode weighted
"""

import numpy as np


class Client:
    def __init__(self, cid, num_examples):
        self.cid, self.num_examples = cid, num_examples

    def fit(self, weights, lr, steps, oracle):
        w = weights.copy()
        for _ in range(steps):
            w -= lr * oracle(self.cid, w)
        return w, self.num_examples


class Server:
    def __init__(self, total_examples):
        self.total = total_examples

    def aggregate(self, weights, results):
        # unsampled clients keep the old model: x + sum_i n_i/n (w_i - x) (seed 002's weighted mode)
        return weights + sum(n / self.total * (w - weights) for w, n in results)


class FedAvg:
    algorithm = "fedavg"
    mode = "weighted"
    eta_g = 1

    def round(self, inp):
        clients = {i: Client(i, int(inp.counts[i])) for i in range(inp.N)}
        server = Server(int(inp.counts.sum()))
        results = [clients[int(i)].fit(np.array(inp.x), inp.eta_l, inp.K, inp.oracle) for i in inp.sampled]
        return {"x": server.aggregate(np.array(inp.x), results), "y": np.array([w for w, _ in results])}
