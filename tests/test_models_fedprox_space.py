"""The search space of a FedProx statement (:mod:`pyfed.models.fedprox.space`): sizes enumerated
inside the hypotheses on naturals, a parameter a hypothesis pins takes its value, the local steps
reach 32 (the model's ladder stops at 4), and every point is decided exactly."""

from __future__ import annotations

from fractions import Fraction as Fr
from pathlib import Path

from pyfed import read_file, read_text
from pyfed.check import check_statement
from pyfed.engines.search.optimise import optimise
from pyfed.models.fedprox.space import fedprox_space

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "statements"

LONG_EPOCHS = """import Pyfed
open SCAFFOLD (Space LocalOracle)
open FedProxProcedure

/-- False exactly for K ≥ 5: with N = S = 1, μ = 0, ηg = 1 and the client a (y - x⋆), a = 1, each of
the K local steps of size 1/2 halves y - x⋆, so after one round the squared distance is 4^(-K) of
the start's, below 1/1000 of it from K = 5 on (4^5 = 1024). -/
theorem LongLocalEpochsKeepSomeDistance {d N : ℕ} (S K : ℕ) (ηl ηg μ a : ℝ)
    (xstar x0 : Space d) (samples : ℕ → Finset (Fin N))
    (hN : N = 1) (hS : S = 1) (ha : a = 1) (hηl : ηl = 1 / 2) (hμ : μ = 0) (hηg : ηg = 1) (hK : 1 ≤ K)
    (hcard : ∀ t, (samples t).card = S) :
    ‖x0 - xstar‖ ^ 2 / 1000 ≤
      ‖fedProx S K ηl ηg μ (fun _ _ _ y => a • (y - xstar)) samples x0 1 - xstar‖ ^ 2 := by
  sorry
"""


def _long_epochs():
    (st,) = read_text(LONG_EPOCHS, "long_epochs.lean")
    return st


def test_sizes_follow_the_hypotheses_and_pinned_parameters_have_no_axis():
    st = _long_epochs()
    space = fedprox_space(st)
    assert [c.data["sizes"] for c in space.configs] == [{"N": 1, "S": 1, "d": 1}, {"N": 1, "S": 1, "d": 2}]
    names = {a.name for a in space.configs[0].axes}
    assert names == {"K", "|x| scale"}         # ηl, ηg, μ, a are pinned by their hypotheses
    K = next(a for a in space.configs[0].axes if a.name == "K")
    assert (K.lo, K.hi, K.integer) == (1, 32, True)


def test_a_statement_false_only_beyond_the_ladders_local_steps_is_violated_by_default():
    """The model's own candidates draw K ≤ 4, where the statement holds; the search by
    optimisation reaches K ≥ 5 and its witness has the hand-derived sides: left ‖x0 − x⋆‖²/1000,
    right 4^(-K) ‖x0 − x⋆‖²."""
    st = _long_epochs()
    rep = check_statement(st, profile=False)
    v = rep.search.verdict
    assert rep.status == "violated" and v.details["found_by"] == "search by optimisation"
    K = int(v.witness["instance"]["K"])
    lhs, rhs = Fr(v.details["lhs_exact"]), Fr(v.details["rhs_exact"])
    assert K >= 5 and lhs / rhs == Fr(4) ** K / 1000
    assert st.model.recheck(st, v.witness).status == "violated"
    again = check_statement(st, profile=False).search.verdict
    assert again.witness["instance"] == v.witness["instance"]           # reproducible from the seed


def test_a_true_statement_is_never_violated_by_the_optimiser():
    st = next(s for s in read_file(EXAMPLES / "fedprox_contraction.lean") if s.name == "FedProxContraction")
    out = optimise(st, seed=0, quick=True)
    assert out.verdict is None and out.evaluations > 0
    assert all(r.status != "violated" for r in out.records)


def test_a_point_past_the_hypotheses_moves_inside_them():
    """ηl = 1000 breaks ηl (a i + μ) ≤ 1 and m = -5 breaks 0 ≤ m: m becomes 5, then the reals the
    failing hypotheses name are halved until every hypothesis holds, so the point is decided."""
    from pyfed.engines.statement.lean_search import interpreter_for
    from pyfed.models.fedprox import space

    st = next(s for s in read_file(EXAMPLES / "fedprox_contraction.lean") if s.name == "FedProxContraction")
    cfg = fedprox_space(st).configs[0]
    values = {a.name: a.value(0.5) for a in cfg.axes}
    values.update(ηl=1000.0, m=-5.0, μ=0.5)
    interp, rl, dims = interpreter_for(st), space.roles(st), space.dimensions(st)
    env = space._env(st, cfg, values, interp, rl, dims)
    assert set(space.failing(st, env, interp)) >= {"hm", "hstep"}
    space._into_hypotheses(st, env, values, rl, interp)
    assert space.failing(st, env, interp) == []
    assert 0 <= env["m"] <= 5 and 0 < env["ηl"] < 1000 and env["ηl"] * 2 ** 16 >= 1000
    out = space.evaluate_point(st, cfg, values)
    assert out.status == "holds" and out.margin <= 0
