"""Bug: the control variates are not initialised as the algorithm says: the server control starts
at zero while the client controls start at their given values, so c^0 != N^-1 sum_i c_i^0 (a
widely used benchmark initialised SCAFFOLD's controls its own way and reported it unstable).

    pyfed conform examples/conformance/bug_controls_initialised_differently.py:Scaffold
"""

import numpy as np
from reference import Scaffold as _Reference


class Scaffold(_Reference):
    def init(self, x0, c0):
        return {"x": x0.copy(), "c": np.zeros_like(x0), "c_clients": c0.copy()}  # BUG: c^0 = 0
