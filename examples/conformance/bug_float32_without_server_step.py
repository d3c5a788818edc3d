"""Bug in a float32 implementation: the server ignores eta_g (x_r = the clients' average). pyfed
compares in float32 (detected from the returned dtype) and still sees it on the global step rung.

    pyfed conform examples/conformance/bug_float32_without_server_step.py:FedAvg --mode uniform
"""

import numpy as np


class FedAvg:
    algorithm = "fedavg"
    mode = "uniform"

    def round(self, inp):
        x = inp.x.astype(np.float32)
        lr = np.float32(inp.eta_l)
        locals_ = []
        for i in inp.sampled:
            w = x.copy()
            for _ in range(inp.K):
                w = w - lr * inp.oracle(i, w).astype(np.float32)
            locals_.append(w)
        return {"x": np.mean(locals_, axis=0, dtype=np.float32)}  # BUG: no x + eta_g (mean - x)
