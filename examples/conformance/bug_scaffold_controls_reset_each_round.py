"""Bug: the client controls live in a table on the training object that is re-created at the start
of every round (``self.controls = zeros``), so every client trains with c_i = 0 although the
returned controls are right (the table is filled after training). A stateful adapter: pyfed
reports the attribute and runs each path on a fresh copy.

    pyfed conform examples/conformance/bug_scaffold_controls_reset_each_round.py:Scaffold
"""

import numpy as np


class Scaffold:
    algorithm = "scaffold"
    option = "II"

    def round(self, inp):
        self.controls = np.zeros((inp.N, inp.d))  # BUG: the table is rebuilt every round
        new = inp.c_clients.copy()
        dxs, dcs = [], []
        for i in inp.sampled:
            y = inp.x.copy()
            for _ in range(inp.K):
                y = y - inp.eta_l * (inp.oracle(i, y) - self.controls[i] + inp.c)
            ci = inp.c_clients[i] - inp.c + (inp.x - y) / (inp.K * inp.eta_l)
            dxs.append(y - inp.x)
            dcs.append(ci - inp.c_clients[i])
            new[i] = self.controls[i] = ci
        return {"x": inp.x + inp.eta_g * np.mean(dxs, axis=0), "c": inp.c + inp.S / inp.N * np.mean(dcs, axis=0),
                "c_clients": new}
