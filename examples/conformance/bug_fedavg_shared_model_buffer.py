"""Bug: one model buffer for all clients of a round, trained in place: the second client starts
where the first one stopped (the global model is copied once per round, not once per client).

    pyfed conform examples/conformance/bug_fedavg_shared_model_buffer.py:FedAvg --mode uniform
"""

import numpy as np


class FedAvg:
    algorithm = "fedavg"
    mode = "uniform"

    def round(self, inp):
        w = np.array(inp.x)  # BUG: one buffer, shared by every client below
        updates = []
        for i in inp.sampled:
            for _ in range(inp.K):
                w -= inp.eta_l * inp.oracle(i, w)
            updates.append(w - inp.x)
        return {"x": inp.x + inp.eta_g * np.mean(updates, axis=0)}
