"""Bug: the count weights are looked up by the position in the sampled set, ``counts[k]``, where
``counts[sampled[k]]`` is meant: right when S_r = {0, ..., S - 1}, wrong for every other subset.

    pyfed conform examples/conformance/bug_weights_indexed_by_position.py:FedAvg --mode weighted
"""

from reference import FedAvg as _Reference


class FedAvg(_Reference):
    mode = "weighted"

    def aggregate(self, inp, deltas):
        n = inp.counts.sum()
        return inp.x + inp.eta_g * sum(inp.counts[k] / n * deltas[i]  # BUG: counts[k], k the position
                                       for k, i in enumerate(inp.sampled))
