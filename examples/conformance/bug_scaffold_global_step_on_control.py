"""Bug: the global step size is applied to the server control as well as to the model
(c + eta_g (S/N) Delta c); Algorithm 1 applies eta_g to the model only. Invisible while eta_g = 1.

    pyfed conform examples/conformance/bug_scaffold_global_step_on_control.py:Scaffold
"""

import numpy as np
from reference import Scaffold as _Reference


class Scaffold(_Reference):
    def server_update(self, inp, dxs, dcs, new_controls):
        x = inp.x + inp.eta_g * np.mean(dxs, axis=0)
        c = inp.c + inp.eta_g * inp.S / inp.N * np.mean(dcs, axis=0)  # BUG: eta_g on the control
        return x, c
