"""A correct SCAFFOLD (option II) that keeps its state the way deployed FL code does: each client
object holds its own control c_i, the server object holds c, and both persist between rounds on
the adapter (``self.clients``, ``self.server_control``). It reads none of ``inp.c`` and
``inp.c_clients``. That breaks the purity rule, and pyfed says so: it names the attributes and
runs every sampling path on a fresh copy of the adapter, rounds in order, where it conforms.

    pyfed conform examples/conformance/correct_scaffold_stateful.py:Scaffold --option II
"""

import numpy as np


class ScaffoldClient:
    def __init__(self, cid, control):
        self.cid = cid
        self.control = np.array(control, dtype=float)

    def train(self, x, c, lr, steps, oracle):
        y = x.copy()
        for _ in range(steps):
            y = y - lr * (oracle(self.cid, y) - self.control + c)
        new = self.control - c + (x - y) / (steps * lr)
        delta_c = new - self.control
        self.control = new
        return y - x, delta_c


class Scaffold:
    algorithm = "scaffold"
    option = "II"

    def init(self, x0, c0):
        self.clients = [ScaffoldClient(i, c0[i]) for i in range(len(c0))]
        self.server_control = c0.mean(axis=0)
        self.model = x0.copy()
        return self.state()

    def state(self):
        return {"x": self.model, "c": self.server_control, "c_clients": np.array([cl.control for cl in self.clients])}

    def round(self, inp):
        dxs, dcs = [], []
        for i in inp.sampled:
            dx, dc = self.clients[i].train(self.model, self.server_control, inp.eta_l, inp.K, inp.oracle)
            dxs.append(dx)
            dcs.append(dc)
        self.model = self.model + inp.eta_g * np.mean(dxs, axis=0)
        self.server_control = self.server_control + len(dxs) / len(self.clients) * np.mean(dcs, axis=0)
        return self.state()
