"""Bug: option II's control update divides the model change by the number of local epochs
instead of K * eta_l (reported in public SCAFFOLD code, later fixed to match option II).

    pyfed conform examples/conformance/bug_control_divides_by_epochs.py:Scaffold --option II
"""

from reference import Scaffold as _Reference


class Scaffold(_Reference):
    epochs = 1

    def client_control(self, inp, i, y):
        return inp.c_clients[i] - inp.c + (inp.x - y) / self.epochs  # BUG: / epochs, not / (K eta_l)
