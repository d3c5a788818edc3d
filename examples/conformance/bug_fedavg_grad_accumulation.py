"""Bug: the gradient buffer is zeroed only every other local step (``zero_grad`` inside
``if k % 2 == 0``), so odd steps apply the sum of two gradients: gradient accumulation where
plain SGD steps are meant.

    pyfed conform examples/conformance/bug_fedavg_grad_accumulation.py:FedAvg --mode uniform
"""

import numpy as np
from reference import FedAvg as _Reference


class FedAvg(_Reference):
    def local_steps(self, inp, i):
        y = inp.x.copy()
        grad = np.zeros_like(y)
        for k in range(inp.K):
            if k % 2 == 0:
                grad[:] = 0  # BUG: zeroed every other step only
            grad += inp.oracle(i, y)
            y = y - inp.eta_l * grad
        return y
