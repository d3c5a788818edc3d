"""Bug: option II's control update takes K = (number of samples) x (epochs) instead of the
number of local steps the client took (reported in public SCAFFOLD code).

    pyfed conform examples/conformance/bug_control_k_is_samples_times_epochs.py:Scaffold --option II
"""

from reference import Scaffold as _Reference


class Scaffold(_Reference):
    epochs = 1

    def client_control(self, inp, i, y):
        K = inp.counts[i] * self.epochs  # BUG: samples x epochs, not the local steps taken (inp.K)
        return inp.c_clients[i] - inp.c + (inp.x - y) / (K * inp.eta_l)
