"""Bug: a sign slip in SCAFFOLD's local step: the correction is written c_i - c instead of
c - c_i (the drift correction then doubles the drift instead of removing it).

    pyfed conform examples/conformance/bug_scaffold_correction_sign.py:Scaffold --option II
"""

from reference import Scaffold as _Reference


class Scaffold(_Reference):
    def local_steps(self, inp, i):
        y = inp.x.copy()
        for _ in range(inp.K):
            y = y - inp.eta_l * (inp.oracle(i, y) + inp.c_clients[i] - inp.c)  # BUG: + c_i - c
        return y
