"""Adapters used by tests/test_conform.py and tests/test_commands_conform.py: broken ones (exit 2),
ones whose oracle calls are not in the seed's order, extra or averaged calls, local mistakes
after the last oracle call, hidden state, and a Local SGD bug."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "conformance"))
from reference import FedAvg, LocalSGD, Scaffold  # noqa: E402


class Raises(Scaffold):
    def round(self, inp):
        steps_left = inp.K - inp.K
        return {"x": inp.x * (1 / steps_left)}  # ZeroDivisionError


class WrongShape(Scaffold):
    def round(self, inp):
        out = super().round(inp)
        out["c_clients"] = out["c_clients"][:1]
        return out


class ReturnsNaN(Scaffold):
    def round(self, inp):
        out = super().round(inp)
        out["x"] = out["x"] * np.nan
        return out


class MissingKey(Scaffold):
    def round(self, inp):
        return {"x": super().round(inp)["x"]}


class BadOracleCall(Scaffold):
    def round(self, inp):
        inp.oracle(inp.N, inp.x)
        return super().round(inp)


class ControlFirst(Scaffold):
    """Option I with the fresh sample at x drawn before the local steps: the seed's law, other draws."""

    option = "I"

    def round(self, inp):
        c_clients = inp.c_clients.copy()
        dxs, dcs = [], []
        for i in inp.sampled:
            ci = inp.oracle(i, inp.x)
            y = self.local_steps(inp, i)
            dxs.append(y - inp.x)
            dcs.append(ci - inp.c_clients[i])
            c_clients[i] = ci
        x, c = self.server_update(inp, dxs, dcs, None)
        return {"x": x, "c": c, "c_clients": c_clients}


class ReusesSample(Scaffold):
    """Option I whose control reuses the first local step's sample (the right number of calls:
    one of them thrown away): every marginal law right, the joint law wrong."""

    option = "I"

    def round(self, inp):
        c_clients = inp.c_clients.copy()
        dxs, dcs = [], []
        for i in inp.sampled:
            inp.oracle(i, inp.x)
            y, first = inp.x.copy(), None
            for _ in range(inp.K):
                g = inp.oracle(i, y)
                first = g if first is None else first
                y = y - inp.eta_l * (g - inp.c_clients[i] + inp.c)
            dxs.append(y - inp.x)
            dcs.append(first - inp.c_clients[i])
            c_clients[i] = first
        x, c = self.server_update(inp, dxs, dcs, None)
        return {"x": x, "c": c, "c_clients": c_clients}


class NoSyncAverage(LocalSGD):
    """Local SGD that never averages the workers."""

    def round(self, inp):
        z = np.array([inp.x[k] - inp.eta * np.mean([inp.oracle(j, inp.x[k]) for j in inp.draws[k]], axis=0)
                      for k in range(inp.workers)])
        return {"x": z}


def plain_function(inp):
    """A bare function adapter (FedAvg, uniform mode)."""
    y = {i: inp.x.copy() for i in inp.sampled}
    for i in inp.sampled:
        for _ in range(inp.K):
            y[i] = y[i] - inp.eta_l * inp.oracle(i, y[i])
    return inp.x + inp.eta_g * sum(y[i] - inp.x for i in inp.sampled) / inp.S


class AveragesTwoSamples(FedAvg):
    """Each local step averages two fresh samples at the same point."""

    def local_step(self, inp, i, y):
        return y - inp.eta_l * (inp.oracle(i, y) + inp.oracle(i, y)) / 2


class DiagnosticGradient(FedAvg):
    """A correct FedAvg that also logs a gradient norm at x before training (an unused call)."""

    def local_steps(self, inp, i):
        self_norm = float(np.linalg.norm(inp.oracle(i, inp.x)))  # noqa: F841 -- a diagnostic, unused
        return super().local_steps(inp, i)


class OneStepTooMany(FedAvg):
    def local_steps(self, inp, i):
        y = inp.x.copy()
        for _ in range(inp.K + 1):
            y = self.local_step(inp, i, y)
        return y


class DroppedLastUpdate(FedAvg):
    """The last local step's gradient is computed, its update not applied."""

    def local_steps(self, inp, i):
        y = inp.x.copy()
        for k in range(inp.K):
            g = inp.oracle(i, y)
            if k < inp.K - 1:
                y = y - inp.eta_l * g
        return y


_CALLS = []


def hidden_state(inp):
    """FedAvg whose server step grows with a module-level call counter: no attribute changes."""
    _CALLS.append(1)
    y = {i: inp.x.copy() for i in inp.sampled}
    for i in inp.sampled:
        for _ in range(inp.K):
            y[i] = y[i] - inp.eta_l * inp.oracle(i, y[i])
    return inp.x + inp.eta_g * (1 + len(_CALLS) % 2) * sum(y[i] - inp.x for i in inp.sampled) / inp.S


class Uncopyable(FedAvg):
    """Keeps a counter on itself and holds a lock (copy.deepcopy fails)."""

    def __init__(self):
        import threading
        self.lock = threading.Lock()
        self.rounds = 0

    def round(self, inp):
        self.rounds += 1
        return super().round(inp)
