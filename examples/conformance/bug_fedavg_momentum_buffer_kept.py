"""Bug: the clients' local optimizer is SGD with momentum 1/2 and one momentum buffer, kept on the
training object and never reset, so each client's first step carries the previous client's (or
round's) momentum. FedAvg's local steps are plain SGD. The adapter returns the local end points
``y``, so pyfed sees the last local step too.

    pyfed conform examples/conformance/bug_fedavg_momentum_buffer_kept.py:FedAvg --mode uniform
"""

import numpy as np


class FedAvg:
    algorithm = "fedavg"
    mode = "uniform"
    momentum = 0.5

    def __init__(self):
        self.buffer = None  # BUG: one buffer for every client and round

    def round(self, inp):
        if self.buffer is None:
            self.buffer = np.zeros(inp.d)
        ends = []
        for i in inp.sampled:
            w = np.array(inp.x)
            for _ in range(inp.K):
                self.buffer = self.momentum * self.buffer + inp.oracle(i, w)
                w = w - inp.eta_l * self.buffer
            ends.append(w)
        ends = np.array(ends)
        return {"x": inp.x + inp.eta_g * np.mean(ends - inp.x, axis=0), "y": ends}
