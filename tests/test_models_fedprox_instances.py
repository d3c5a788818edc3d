"""FedProx instances (:mod:`pyfed.models.fedprox.instances`): parameters take the role of the
procedure's argument they are passed as; draws land inside the hypotheses (sampled sets of size S,
S ≤ N, μ ≥ 0, the step condition), oracles are the quadratic clients' exact affine maps, a draw is
a pure function of (seed, index), and a real parameter moves to the exact edge of its hypotheses."""

from __future__ import annotations

from fractions import Fraction as Fr
from pathlib import Path

import pytest

from pyfed import read_file, read_text
from pyfed.checkers import families as fam
from pyfed.engines.statement.lean_search import interpreter_for
from pyfed.models.fedprox.instances import STRUCTURED, Unsupported, boundary, dimensions, draw, failing, roles
from pyfed.statements.interpret import vec

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "statements"


@pytest.fixture(scope="module")
def contraction():
    (st,) = read_file(EXAMPLES / "fedprox_contraction.lean")
    return st, interpreter_for(st)


def test_roles_are_the_procedure_s_binders(contraction):
    st, _ = contraction
    assert roles(st) == {"S": "S", "K": "K", "ηl": "ηl", "μ": "μ", "samples": "samples", "x0": "x0", "r": "index"}
    assert dimensions(st) == {"N": "N", "d": "d"}
    (st2,) = read_file(EXAMPLES / "fedprox_mu_zero_is_fedavg.lean")
    assert roles(st2)["oracle"] == "oracle" and roles(st2)["ηg"] == "ηg"


def test_draws_land_inside_the_hypotheses(contraction):
    st, it = contraction
    for index in list(range(STRUCTURED)) + [STRUCTURED + 3, STRUCTURED + 7]:
        env = draw(st, 0, index, it).env
        assert failing(st, env, it) == []
        N, S = env["N"], env["S"]
        assert 1 <= S <= N and env["μ"] >= 0 and env["K"] >= 1
        assert all(len(env["samples"](t)) == S and max(env["samples"](t)) < N for t in range(env["__nat_bound__"]))
        assert all(env["ηl"] * (env["a"](i) + env["μ"]) <= 1 for i in range(N))


def test_oracles_are_exact_affine_maps_of_quadratic_clients():
    (st,) = read_file(EXAMPLES / "fedprox_mu_zero_is_fedavg.lean")
    it = interpreter_for(st)
    for index in (0, 3, STRUCTURED + 1):
        env = draw(st, 4, index, it).env
        spec = env["oracle"].spec                       # every round's clients
        for r, round_spec in enumerate(spec["values"]):
            for i, client in enumerate(round_spec["values"]):
                A = [[Fr(x) for x in row] for row in client["A"]]
                b = [Fr(x) for x in client["b"]]
                assert A == [list(c) for c in zip(*A)]              # symmetric
                y = vec([Fr(j + 1, 3) for j in range(env["d"])])
                for k in range(3):
                    off = [Fr(x) for x in client["offsets"][k]] if k < len(client["offsets"]) else [0] * env["d"]
                    want = vec([sum(a * v for a, v in zip(row, y)) - bi + o for row, bi, o in zip(A, b, off)])
                    assert env["oracle"](r)(i)(k)(y) == want


def test_a_draw_is_a_function_of_seed_and_index(contraction):
    st, it = contraction
    one = fam.env_to_spec(draw(st, 7, STRUCTURED + 2, it).env)
    assert one == fam.env_to_spec(draw(st, 7, STRUCTURED + 2, it).env)
    assert one != fam.env_to_spec(draw(st, 8, STRUCTURED + 2, it).env)


def test_a_step_moves_to_the_exact_edge_of_its_hypothesis(contraction):
    st, it = contraction
    env = draw(st, 0, 0, it).env            # one client, a = 1/2, μ = 1/2: ηl (a + μ) ≤ 1 is ηl ≤ 1
    assert (env["N"], env["a"](0), env["μ"], env["ηl"]) == (1, Fr(1, 2), Fr(1, 2), Fr(1, 4))
    assert boundary(st, env, "ηl", it)["ηl"] == 1
    assert boundary(st, env, "m", it) is None                 # m ≤ a = 1/2: already at its edge
    assert boundary(st, {**env, "m": Fr(0)}, "m", it) is None            # 0 cannot be doubled upward


def test_a_type_without_a_family_is_named():
    text = ("import Pyfed\nopen SCAFFOLD (Space LocalOracle Problem)\nopen FedProxProcedure\n"
            "theorem P {d N : ℕ} (Q : Problem d N) (S K : ℕ) (ηl ηg μ : ℝ) (oracle : Fin N → LocalOracle d) "
            "(sample : Finset (Fin N)) : fedProxRound S K ηl ηg μ oracle sample Q.x0 = Q.x0 := by sorry\n")
    (st,) = read_text(text, "p.lean")
    with pytest.raises(Unsupported, match="no FedProx instance family for `Q : Problem d N`"):
        draw(st, 0, 0, interpreter_for(st))
    v = st.model.search(st, seed=0, budget=0).verdict
    assert v.status == "inconclusive" and "no FedProx instance family for `Q" in v.reason
