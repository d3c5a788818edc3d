"""Bug: the client weights are normalised within the sampled set, n_i / sum_{j in S_r} n_j, instead
of n_i / n (a ratio estimator, biased under partial participation; what many frameworks do).

    pyfed conform examples/conformance/bug_weights_normalised_within_sample.py:FedAvg --mode weighted
"""

from reference import FedAvg as _Reference


class FedAvg(_Reference):
    mode = "weighted"

    def aggregate(self, inp, deltas):
        n_sampled = sum(inp.counts[i] for i in inp.sampled)  # BUG: the sampled clients' total, not n
        return inp.x + inp.eta_g * sum(inp.counts[i] / n_sampled * deltas[i] for i in inp.sampled)
