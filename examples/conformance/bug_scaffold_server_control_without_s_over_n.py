"""Bug: the server control moves by the mean change of the sampled clients' controls without the
factor S/N (right with full participation only; with S < N the server control leaves the clients'
mean N^-1 sum_i c_i).

    pyfed conform examples/conformance/bug_scaffold_server_control_without_s_over_n.py:Scaffold
"""

import numpy as np
from reference import Scaffold as _Reference


class Scaffold(_Reference):
    def server_update(self, inp, dxs, dcs, new_controls):
        x = inp.x + inp.eta_g * np.mean(dxs, axis=0)
        c = inp.c + np.mean(dcs, axis=0)  # BUG: no S/N
        return x, c
