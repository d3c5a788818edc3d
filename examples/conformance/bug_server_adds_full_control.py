"""Bug: the server adds the clients' full controls c_i+ to its control instead of their changes
Delta c_i = c_i+ - c_i (reported in public SCAFFOLD code).

    pyfed conform examples/conformance/bug_server_adds_full_control.py:Scaffold
"""

import numpy as np
from reference import Scaffold as _Reference


class Scaffold(_Reference):
    def server_update(self, inp, dxs, dcs, new_controls):
        x = inp.x + inp.eta_g * np.mean(dxs, axis=0)
        c = inp.c + inp.S / inp.N * np.mean(new_controls, axis=0)  # BUG: c_i+ where Delta c_i is meant
        return x, c
