"""Bug: the proximal anchor is the local model itself: ``anchor = w`` keeps a reference, not a
copy, and the in-place update moves it along, so mu (w - anchor) is always zero and FedProx runs
FedAvg's local steps.

    pyfed conform examples/conformance/bug_fedprox_aliased_anchor.py:FedProx
"""

import numpy as np


class FedProx:
    algorithm = "fedprox"
    mode = "uniform"

    def round(self, inp):
        deltas = []
        for i in inp.sampled:
            w = np.array(inp.x)
            anchor = w  # BUG: an alias, not w.copy()
            for _ in range(inp.K):
                w -= inp.eta_l * (inp.oracle(i, w) + inp.mu * (w - anchor))
            deltas.append(w - inp.x)
        return {"x": inp.x + inp.eta_g * np.mean(deltas, axis=0)}
