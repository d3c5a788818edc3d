"""Bug in a float32 implementation: the server ignores eta_g (x_r = the clients' average). pyfed
compares in float32 (detected from the returned dtype) and still sees it on the global step rung.

    pyfed conform examples/conformance/bug_float32_without_server_step.py:FedAvg --mode uniform
"""

from correct_fedavg_float32 import FedAvg as _Correct


class FedAvg(_Correct):
    def server_update(self, x, mean_update, inp):
        return x + mean_update  # BUG: no eta_g
