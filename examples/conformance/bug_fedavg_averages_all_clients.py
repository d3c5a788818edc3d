"""Bug: FedAvg trains and averages every client instead of the sampled ones (reported in public
FedAvg code): with partial participation the sampled set is ignored.

    pyfed conform examples/conformance/bug_fedavg_averages_all_clients.py:FedAvg --mode uniform
"""

from reference import FedAvg as _Reference


class FedAvg(_Reference):
    def round(self, inp):
        deltas = [self.local_steps(inp, i) - inp.x for i in range(inp.N)]  # BUG: range(N), not inp.sampled
        return {"x": inp.x + inp.eta_g * sum(deltas) / inp.N}
