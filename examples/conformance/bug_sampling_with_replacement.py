"""Bug: the round re-draws its participants from the sampled set with numpy's default
``replace=True``: some rounds train one client twice and another not at all.

    pyfed conform examples/conformance/bug_sampling_with_replacement.py:FedAvg --mode uniform
"""

import numpy as np
from reference import FedAvg as _Reference


class FedAvg(_Reference):
    def round(self, inp):
        rng = np.random.default_rng(inp.round)
        chosen = rng.choice(inp.sampled, size=inp.S)  # BUG: replace=True by default
        deltas = [self.local_steps(inp, i) - inp.x for i in chosen]
        return {"x": inp.x + inp.eta_g * np.mean(deltas, axis=0)}
