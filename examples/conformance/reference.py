"""A correct FedAvg, FedProx, SCAFFOLD, Local SGD and FedAdam / FedYogi / FedAdagrad, written the way a user would write them:
a plain loop over the sampled clients with numpy vectors (no pyfed simulator), each round exposed
to ``pyfed conform`` through the adapter protocol (``inp`` holds the server state, the client
controls, the sampled set, the step sizes and pyfed's gradient oracle ``inp.oracle(i, y)``).

    pyfed conform examples/conformance/reference.py:Scaffold --option II
    pyfed conform examples/conformance/reference.py:Scaffold --option I
    pyfed conform examples/conformance/reference.py:FedAvg --mode uniform
    pyfed conform examples/conformance/reference.py:FedAvg --mode weighted
    pyfed conform examples/conformance/reference.py:FedProx
    pyfed conform examples/conformance/reference.py:LocalSGD
    pyfed conform examples/conformance/reference.py:FedAdam      (also FedYogi, FedAdagrad)

The bug files beside this one subclass these classes and change one method each.
"""

import numpy as np


class Scaffold:
    """SCAFFOLD (Karimireddy et al., Algorithm 1), options I and II."""

    algorithm = "scaffold"
    option = "II"

    def init(self, x0, c0):
        # the server control starts at the mean of the client controls
        return {"x": x0.copy(), "c": c0.mean(axis=0), "c_clients": c0.copy()}

    def local_steps(self, inp, i):
        y = inp.x.copy()
        for _ in range(inp.K):
            g = inp.oracle(i, y)
            y = y - inp.eta_l * (g - inp.c_clients[i] + inp.c)
        return y

    def client_control(self, inp, i, y):
        if inp.option == "I":
            return inp.oracle(i, inp.x)  # a fresh gradient sample at the server model
        return inp.c_clients[i] - inp.c + (inp.x - y) / (inp.K * inp.eta_l)

    def server_update(self, inp, dxs, dcs, new_controls):
        x = inp.x + inp.eta_g * np.mean(dxs, axis=0)
        c = inp.c + inp.S / inp.N * np.mean(dcs, axis=0)
        return x, c

    def round(self, inp):
        c_clients = inp.c_clients.copy()
        dxs, dcs, new_controls = [], [], []
        for i in inp.sampled:
            y = self.local_steps(inp, i)
            ci = self.client_control(inp, i, y)
            dxs.append(y - inp.x)
            dcs.append(ci - inp.c_clients[i])
            new_controls.append(ci)
            c_clients[i] = ci
        x, c = self.server_update(inp, dxs, dcs, new_controls)
        return {"x": x, "c": c, "c_clients": c_clients}


class FedAvg:
    """FedAvg (McMahan et al., Algorithm 1), uniform-client or count-weighted aggregation."""

    algorithm = "fedavg"
    mode = "uniform"

    def local_step(self, inp, i, y):
        return y - inp.eta_l * inp.oracle(i, y)

    def local_steps(self, inp, i):
        y = inp.x.copy()
        for _ in range(inp.K):
            y = self.local_step(inp, i, y)
        return y

    def aggregate(self, inp, deltas):
        if inp.mode == "weighted":
            n = inp.counts.sum()
            return inp.x + inp.eta_g * sum(inp.counts[i] / n * deltas[i] for i in inp.sampled)
        return inp.x + inp.eta_g * sum(deltas[i] for i in inp.sampled) / inp.S

    def round(self, inp):
        deltas = {}
        for i in inp.sampled:
            deltas[i] = self.local_steps(inp, i) - inp.x
        return {"x": self.aggregate(inp, deltas)}


class FedProx(FedAvg):
    """FedProx: FedAvg whose local steps minimise f_i(y) + mu/2 ||y - x||^2."""

    algorithm = "fedprox"

    def local_step(self, inp, i, y):
        return y - inp.eta_l * (inp.oracle(i, y) + inp.mu * (y - inp.x))


class LocalSGD:
    """Local SGD (Stich, Algorithm 1): one time step of every worker, averaging at sync times."""

    algorithm = "local-sgd"

    def round(self, inp):
        z = np.empty_like(inp.x)
        for k in range(inp.workers):
            g = np.mean([inp.oracle(j, inp.x[k]) for j in inp.draws[k]], axis=0)
            z[k] = inp.x[k] - inp.eta * g
        if inp.sync:
            z[:] = z.mean(axis=0)
        return {"x": z}


class FedAdagrad(FedAvg):
    """FedAdagrad (Reddi et al., Adaptive Federated Optimization, Algorithm 2): FedAvg's clients,
    the server steps with the moments m, v carried in the state (``inp.m``, ``inp.v``)."""

    algorithm = "fedadagrad"

    def second_moment(self, inp, delta):
        return inp.v + delta * delta

    def round(self, inp):
        delta = np.mean([self.local_steps(inp, i) - inp.x for i in inp.sampled], axis=0)
        m = inp.beta_1 * inp.m + (1 - inp.beta_1) * delta
        v = self.second_moment(inp, delta)
        return {"x": inp.x + inp.eta_g * m / (np.sqrt(v) + inp.tau), "m": m, "v": v}


class FedYogi(FedAdagrad):
    algorithm = "fedyogi"

    def second_moment(self, inp, delta):
        return inp.v - (1 - inp.beta_2) * delta * delta * np.sign(inp.v - delta * delta)


class FedAdam(FedAdagrad):
    algorithm = "fedadam"

    def second_moment(self, inp, delta):
        return inp.beta_2 * inp.v + (1 - inp.beta_2) * delta * delta
