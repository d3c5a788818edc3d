"""The FedProx model as a whole (:mod:`pyfed.models.fedprox`): one package and one registry line
(nothing else imports it; it claims before the run-free model, which claims everything), and the
Lean procedure, evaluated by pyfed's interpreter, is the simulator's and the conformance law's
FedProx: the same trajectory on a rational instance without noise (exactly equal to the law's
exact replay, equal to the simulator's floats to rounding), and a hand-computed noisy one."""

from __future__ import annotations

from fractions import Fraction as Fr

import numpy as np
import pytest

from pyfed import read_text
from pyfed.algorithms import fedprox
from pyfed.checkers import families as fam
from pyfed.conform import law
from pyfed.models import registry
from pyfed.models.fedprox import MODEL
from pyfed.models.fedprox.builtin import BUILTIN
from pyfed.oracles import ExactOracle
from pyfed.problems import QuadraticProblem
from pyfed.statements.interpret import Interpreter, vec
from test_package_layout import import_graph

TRAJECTORY = """import Pyfed
open SCAFFOLD (Space LocalOracle)
open FedProxProcedure
theorem Trajectory {d N : ℕ} (S K : ℕ) (ηl ηg μ : ℝ) (oracle : ℕ → Fin N → LocalOracle d)
    (samples : ℕ → Finset (Fin N)) (x0 : Space d) (r : ℕ) :
    fedProx S K ηl ηg μ oracle samples x0 r = fedProx S K ηl ηg μ oracle samples x0 r := by sorry
"""


@pytest.mark.slow
def test_only_the_registry_imports_the_package():
    importers = sorted(m for m, targets in import_graph().items()
                       if any(t.startswith("pyfed.models.fedprox") for t in targets)
                       and not m.startswith("pyfed.models.fedprox"))
    assert importers == ["pyfed.models.registry"]


def test_the_registry_asks_it_before_the_run_free_model():
    tags = [m.tag for m in registry.MODELS]
    assert tags.index("fedprox_procedure") < tags.index("lemma") == len(tags) - 1
    assert registry.model_by_tag("fedprox_procedure") is MODEL
    (st,) = read_text(TRAJECTORY, "t.lean")
    assert st.model is MODEL and st.shape == "fedprox_procedure" and st.family == "FedProx procedure lemma"


def _lean_trajectory(inst, samples):
    """x_0..x_T of the Lean procedure on ``inst`` with the sampled sets ``samples`` (exact)."""
    (st,) = read_text(TRAJECTORY, "t.lean")
    it = Interpreter(st.file_decls, st.context)
    env = {"d": inst.d, "N": inst.N, "S": inst.S, "K": inst.K, "ηl": inst.eta_l, "ηg": inst.eta_g, "μ": inst.mu,
           "oracle": fam.process([inst.round_oracles(r) for r in range(inst.T)]), "samples": fam.samples(samples),
           "x0": vec(inst.x0)}
    return [it.eval(st.lhs, {**env, "r": r}) for r in range(inst.T + 1)]


def test_the_lean_procedure_is_the_simulator_and_the_conformance_law_without_noise():
    inst = BUILTIN[0]
    clients = inst.clients()
    P = QuadraticProblem([A for A, _ in clients], [b for _, b in clients])
    tr = fedprox(P, ExactOracle(P), S=inst.S, K=inst.K, T=inst.T, eta_l=inst.eta_l, eta_g=inst.eta_g, mu=inst.mu,
                 x0=[float(v) for v in inst.x0], rng=3)
    samples = [sorted(int(i) for i in tr.samples[0, r]) for r in range(inst.T)]
    lean = _lean_trajectory(inst, samples)
    # the conformance law's exact replay, round by round from the same start and sampled sets
    spec = law.Spec("fedprox", None, "uniform", inst.N, inst.S, inst.K, inst.d, inst.T, inst.eta_l, inst.eta_g, inst.mu,
                    (1,) * inst.N, Fr(0))
    A = np.array([np.array(a, dtype=object) for a, _ in clients], dtype=object)
    b = np.array([np.array(v, dtype=object) for _, v in clients], dtype=object)
    x = np.array([Fr(v) for v in inst.x0], dtype=object)
    for r in range(inst.T):
        assert tuple(x) == tuple(lean[r])
        x = law.mean(law.replay_round(A, b, spec, x, None, None, samples[r]).x)
    assert tuple(x) == tuple(lean[inst.T])
    # the simulator's floats: the exact trajectory to rounding
    exact = np.array([[float(v) for v in xr] for xr in lean])
    assert np.allclose(tr.x[0], exact, rtol=0, atol=1e-12)
    assert not np.allclose(exact[1], exact[0])          # the rounds move


def test_a_noisy_round_by_hand():
    # fedprox-noisy-N2-d1: f0 = y²/2 - y, f1 = 3y²/2, μ = 1, ηl = 1/2, ηg = 3/2, K = 2, S = 1, x0 = 1
    # round 0, client 1, offsets 1/2 and 0: y1 = 1 - (3 + 1/2)/2 = -3/4,
    #   y2 = -3/4 - (3(-3/4) + (-3/4 - 1))/2 = 5/4, x1 = 1 + (3/2)(5/4 - 1) = 11/8
    # round 1, client 0, offsets -1/2 and 1/4: y1 = 11/8 - (11/8 - 1 - 1/2)/2 = 23/16,
    #   y2 = 23/16 - ((23/16 - 1 + 1/4) + (23/16 - 11/8))/2 = 17/16, x2 = 11/8 + (3/2)(17/16 - 11/8) = 29/32
    inst = BUILTIN[1]
    assert _lean_trajectory(inst, [list(s) for s in inst.samples]) == [vec([1]), vec([Fr(11, 8)]), vec([Fr(29, 32)])]
