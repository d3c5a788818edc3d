"""Bug: the proximal term is written (mu/2) sum_k |y_k - x_k| (an L1 norm, not squared), so its
gradient is (mu/2) sign(y - x) instead of mu (y - x): right at y = x, wrong from the second local
step on.

    pyfed conform examples/conformance/bug_fedprox_l1_proximal_term.py:FedProx
"""

import numpy as np
from reference import FedProx as _Reference


class FedProx(_Reference):
    def local_step(self, inp, i, y):
        prox_grad = inp.mu / 2 * np.sign(y - inp.x)  # BUG: the gradient of (mu/2)||y - x||_1
        return y - inp.eta_l * (inp.oracle(i, y) + prox_grad)
