"""Bug: a learning-rate decay the algorithm does not have: from round 3 on every client's step size
is eta_l * 0.9^(r - 2), a schedule copied from a centralised training script (FedAvg's eta_l is
constant; the decay is invisible in rounds 1 and 2).

    pyfed conform examples/conformance/bug_lr_decays_from_round_3.py:FedAvg --mode uniform
"""

from reference import FedAvg as _Reference


class FedAvg(_Reference):
    def local_step(self, inp, i, y):
        lr = inp.eta_l * 0.9 ** max(0, inp.round - 2)  # BUG: a decay from round 3 on
        return y - lr * inp.oracle(i, y)
