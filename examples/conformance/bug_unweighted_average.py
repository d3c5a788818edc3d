"""Bug: an unweighted average where the record-count weights n_i / n were meant (count-weighted
deployment mode implemented as the plain mean).

    pyfed conform examples/conformance/bug_unweighted_average.py:FedAvg --mode weighted
"""

from reference import FedAvg as _Reference


class FedAvg(_Reference):
    mode = "weighted"

    def aggregate(self, inp, deltas):
        return inp.x + inp.eta_g * sum(deltas[i] for i in inp.sampled) / inp.S  # BUG: ignores n_i / n
