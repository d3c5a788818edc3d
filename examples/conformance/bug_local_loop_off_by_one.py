"""Bug: the local loop runs ``for step in range(1, K)``: K - 1 local steps.

    pyfed conform examples/conformance/bug_local_loop_off_by_one.py:Scaffold --option II
"""

from reference import Scaffold as _Reference


class Scaffold(_Reference):
    def local_steps(self, inp, i):
        y = inp.x.copy()
        for _ in range(1, inp.K):  # BUG: K - 1 steps
            y = y - inp.eta_l * (inp.oracle(i, y) - inp.c_clients[i] + inp.c)
        return y
