"""A correct FedAvg computed in float32, as PyTorch and most FL code compute it: the model, the
gradients and the aggregation are float32 arrays. pyfed reads the dtype of the returned arrays
and compares within float32's rounding bound (``--precision float32`` says it explicitly).

    pyfed conform examples/conformance/correct_fedavg_float32.py:FedAvg --mode uniform
"""

import numpy as np


class FedAvg:
    algorithm = "fedavg"
    mode = "uniform"

    def server_update(self, x, mean_update, inp):
        return x + np.float32(inp.eta_g) * mean_update

    def round(self, inp):
        x = inp.x.astype(np.float32)
        lr = np.float32(inp.eta_l)
        update = np.zeros_like(x)
        for i in inp.sampled:
            w = x.copy()
            for _ in range(inp.K):
                w -= lr * inp.oracle(i, w).astype(np.float32)
            update += w - x
        return {"x": self.server_update(x, update / np.float32(inp.S), inp)}
