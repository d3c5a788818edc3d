"""pyfed.conform: the exact round law, the ladder, the engine's verdicts and diagnoses on the
reference implementation and the bug zoo of examples/conformance, the law test, broken adapters,
Flower, and the statements that apply."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from pyfed.conform import AdapterError, conform, ladder, load_adapter
from pyfed.conform.law import covariance, mean, replay_round, value
from pyfed.conform.ladder import draw_combinations, subsets
from pyfed.conform.statements import applicable_statements
from pyfed.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
ZOO = ROOT / "examples" / "conformance"
DATA = ROOT / "tests" / "data" / "conform"
Q = Fraction


def zoo(name: str, obj: str):
    return load_adapter(f"{ZOO / name}:{obj}")


def data(obj: str):
    return load_adapter(f"{DATA / 'adapters.py'}:{obj}")


# ----------------------------------------------------------------------------- the exact law

def test_one_scaffold_round_by_hand():
    """N = S = K = d = 1, f(y) = y^2/2 - y, x = 2, c = c_1 = 1/2, eta_l = 1/8, eta_g = 1:
    g = 1, y_1 = 2 - (1/8)(1 - 1/2 + 1/2) = 15/8; option II c+ = (2 - 15/8)/(1/8) = 1;
    x+ = 15/8; c+ = 1/2 + (1/1)(1 - 1/2) = 1."""
    rung = ladder("scaffold", "II")[0]
    p = rung.problem
    e = replay_round(p.A_exact, p.b_exact, rung.spec, np.array([Q(2)], dtype=object), np.array([Q(1, 2)], dtype=object),
                     np.array([[Q(1, 2)]], dtype=object), [0])
    assert list(value(e.x, ())) == [Q(15, 8)]
    assert list(value(e.c_plus[0], ())) == [Q(1)]
    assert list(value(e.c, ())) == [Q(1)]
    assert [list(value(pt, ())) for pt in e.points[0]] == [[Q(2)]]


def test_noise_law_of_one_step_by_hand():
    """With noise +-s (s = 1/4) and K = 1, x+ = x - eta_l (g + s eps): Var = eta_l^2 s^2 = 1/1024,
    mean the noise-free value; option I's control g_i(x) + s eps' has variance s^2 and is
    uncorrelated with x+ (a fresh sample)."""
    from dataclasses import replace

    rung = ladder("scaffold", "I")[0]
    spec = replace(rung.spec, scale=Q(1, 4))
    p = rung.problem
    e = replay_round(p.A_exact, p.b_exact, spec, np.array([Q(2)], dtype=object), np.array([Q(1, 2)], dtype=object),
                     np.array([[Q(1, 2)]], dtype=object), [0])
    F = np.concatenate([e.x, e.c_plus[0]], axis=0)
    assert list(mean(F)) == [Q(15, 8), Q(1)]
    cov = covariance(F)
    assert cov[0, 0] == Q(1, 1024) and cov[1, 1] == Q(1, 16) and cov[0, 1] == 0


@pytest.mark.parametrize("algorithm", ["scaffold", "fedavg"])
def test_replay_agrees_with_pyfed_simulators(algorithm):
    """The exact replay and pyfed's vectorised step-by-step simulators (exact oracle, S = N) give
    the same first round within a few ulps (two independent implementations of seed 002)."""
    from pyfed.algorithms import fedavg, scaffold
    from pyfed.conform.law import exact_vector
    from pyfed.oracles import ExactOracle

    rung = ladder(algorithm, "II" if algorithm == "scaffold" else None, None if algorithm == "scaffold" else "uniform")[2]
    p, s = rung.problem, rung.spec
    x0 = np.array([float(v) for v in rung.x0])
    c0 = np.array([[float(v) for v in row] for row in rung.c0])
    kw = dict(S=s.S, K=s.K, T=1, eta_l=s.eta_l, eta_g=s.eta_g, x0=x0, rng=0, method="steps")
    if algorithm == "scaffold":
        traj = scaffold(p, ExactOracle(p), option="II", c0=c0, **kw)
        C = exact_vector(c0)
        e = replay_round(p.A_exact, p.b_exact, s, exact_vector(x0), C.sum(axis=0) / s.N, C, [0, 1])
    else:
        traj = fedavg(p, ExactOracle(p), mode="uniform", **kw)
        e = replay_round(p.A_exact, p.b_exact, s, exact_vector(x0), None, None, [0, 1])
    want = value(e.x, ())
    got = traj.x[0, 1]
    assert all(abs(Fraction(float(g)) - w) <= 8 * np.spacing(2.0) for g, w in zip(got, want))
    assert any(w != Fraction(float(x)) for w, x in zip(want, x0))   # the round moved the model


def test_subsets_and_draws_carry_exact_probabilities():
    subs = subsets(3, 2)
    assert [B for B, _ in subs] == [(0, 1), (0, 2), (1, 2)]
    assert sum(p for _, p in subs) == 1 and {p for _, p in subs} == {Q(1, 3)}
    draws = draw_combinations(2, 2, 2)
    assert len(draws) == 16 and sum(p for _, p in draws) == 1


# ----------------------------------------------------------------------------- reference and zoo

@pytest.mark.slow
@pytest.mark.parametrize("obj,kw", [
    ("Scaffold", dict(option="I")), ("Scaffold", dict(option="II")),
    ("FedAvg", dict(mode="uniform")), ("FedAvg", dict(mode="weighted")),
    ("FedProx", dict(mode="uniform")), ("FedProx", dict(mode="weighted")),
    ("LocalSGD", {}), ("FedAdam", {}), ("FedYogi", {}), ("FedAdagrad", {}),
])
def test_reference_conforms(obj, kw):
    rep = conform(zoo("reference.py", obj), **kw)
    assert rep.conforms, rep.first_deviation and rep.first_deviation.lines()
    assert all(r.status == "conforms" for r in rep.rungs)
    assert all(r.max_ratio <= 1 for r in rep.rungs)
    # the exact law of x_T over the enumerated paths equals the implementation's average
    for r in rep.rungs:
        law = r.law
        if law:
            assert [float(Fraction(v)) for v in law["exact"]] == pytest.approx([float(v) for v in law["implementation"]],
                                                                               rel=1e-12, abs=1e-12)


ZOO_BUGS = [
    # file, class, kwargs, quantity (prefix), words of the hint, words of the equation
    ("bug_server_adds_full_control.py", "Scaffold", {}, "server control c", "full controls c_i+ instead of their changes",
     "c^r = c^{r-1} + (S/N) Delta c"),
    ("bug_control_divides_by_epochs.py", "Scaffold", dict(option="II"), "client control c_0",
     "by 1 instead of K eta_l", "option II: c_i+ = c_i - c + (K eta_l)^-1 (x - y_{i,K})"),
    ("bug_control_k_is_samples_times_epochs.py", "Scaffold", dict(option="II"), "client control c_0",
     "samples x 1 epoch", "option II"),
    ("bug_controls_initialised_differently.py", "Scaffold", {}, "server control c^0", "initialised to zero",
     "c^0 = N^-1 sum_i c_i^0"),
    ("bug_fedavg_averages_all_clients.py", "FedAvg", dict(mode="uniform"), "model x", "averaged all N clients",
     "uniform-client mode"),
    ("bug_unweighted_average.py", "FedAvg", dict(mode="weighted"), "aggregation weights", "weights 1/S",
     "count-weighted mode"),
    ("bug_weights_normalised_within_sample.py", "FedAvg", dict(mode="weighted"), "aggregation weights",
     "normalised within the sampled set", "count-weighted mode"),
    # the bug classes of issue 31, one file each
    ("bug_lr_decays_from_round_3.py", "FedAvg", dict(mode="uniform"), "model x", "from round 3 on", "uniform-client"),
    ("bug_scaffold_correction_sign.py", "Scaffold", dict(option="II"), "local end point y_{0,1}",
     "wrong sign (c_i - c instead of c - c_i)", "y_{i,K}"),
    ("bug_scaffold_server_control_without_s_over_n.py", "Scaffold", {}, "server control c", "lacks the factor S/N",
     "(S/N) Delta c"),
    ("bug_scaffold_global_step_on_control.py", "Scaffold", {}, "server control c", "eta_g is applied to the server "
     "control", "(S/N) Delta c"),
    ("bug_scaffold_controls_reset_each_round.py", "Scaffold", {}, "local end point y_{0,1}",
     "c_i is 0 in the local step", "y_{i,K}"),
    ("bug_fedavg_shared_model_buffer.py", "FedAvg", dict(mode="uniform"), "local iterate y_{1,0}",
     "one model buffer is shared", "y_{i,0} = x_{r-1}"),
    ("bug_fedavg_grad_accumulation.py", "FedAvg", dict(mode="uniform"), "local iterate y_{0,2}",
     "gradients accumulate across local steps", "y_{i,k} = y_{i,k-1} - eta_l g_i(y_{i,k-1})"),
    ("bug_fedprox_l1_proximal_term.py", "FedProx", {}, "local iterate y_{0,2}", "(not squared)", "mu (y_{i,k-1}"),
    ("bug_fedprox_aliased_anchor.py", "FedProx", {}, "local iterate y_{0,2}", "aliased to the local model",
     "mu (y_{i,k-1}"),
    ("bug_fedavg_momentum_buffer_kept.py", "FedAvg", dict(mode="uniform"), "local end point y_{0,1}",
     "momentum or a gradient buffer kept between clients or rounds", "y_{i,K}"),
    ("bug_sampling_with_replacement.py", "FedAvg", dict(mode="uniform"), "oracle calls of client",
     "drawn with replacement", "K times"),
    ("bug_local_loop_off_by_one.py", "Scaffold", dict(option="II"), "oracle calls of client 0",
     "off-by-one in the local loop", "K times"),
    ("bug_weights_indexed_by_position.py", "FedAvg", dict(mode="weighted"), "aggregation weights",
     "the position in S_r instead of the client index", "count-weighted mode"),
    ("bug_float32_without_server_step.py", "FedAvg", dict(mode="uniform"), "model x (global step)",
     "no global step", "uniform-client mode"),
]


@pytest.mark.slow
@pytest.mark.parametrize("file,obj,kw,quantity,hint,eq", ZOO_BUGS, ids=[b[0] for b in ZOO_BUGS])
def test_zoo_bug_is_caught_with_its_diagnosis(file, obj, kw, quantity, hint, eq):
    rep = conform(zoo(file, obj), **kw)
    assert not rep.conforms
    d = rep.first_deviation
    assert d.kind == "exact"
    assert d.quantity.startswith(quantity), d.lines()
    assert d.hint and hint in d.hint, d.lines()
    assert eq in d.equation and d.source
    assert rep.conforms_at_eta_g is None or file == "bug_float32_without_server_step.py"


def test_new_zoo_has_ten_bugs_and_three_correct_implementations():
    """Issue 31's zoo: every bug class of the issue has its own file, each listed above."""
    files = sorted(p.name for p in ZOO.glob("*.py"))
    new_bugs = [b[0] for b in ZOO_BUGS[7:]]
    assert len(new_bugs) >= 10 and all(f in files for f in new_bugs)
    assert {"correct_fedavg_no_server_step.py", "correct_fedavg_float32.py", "correct_scaffold_stateful.py"} <= set(files)


def test_ratio_estimator_weights_are_reported_exactly():
    """S = 2 of N = 4, counts (2, 5, 3, 4), sampled {0, 1}: the seed's n_i/n = (1/7, 5/14); the
    bug's n_i / (n_0 + n_1) = (2/7, 5/7)."""
    d = conform(zoo("bug_weights_normalised_within_sample.py", "FedAvg"), mode="weighted",
                rungs=["S = 2 of N = 4"]).first_deviation
    assert d.rung == "S = 2 of N = 4" and d.sampled == [0, 1] and d.round == 1
    assert d.expected == [Q(1, 7), Q(5, 14)] and d.observed == [Q(2, 7), Q(5, 7)]


def test_k_as_samples_times_epochs_names_the_assumed_k():
    d = conform(zoo("bug_control_k_is_samples_times_epochs.py", "Scaffold"), option="II",
                rungs=["one client"]).first_deviation
    # one client with n_1 = 2 records, K = 1 local step, eta_l = 1/8: divisor 2/8 = 1/4
    assert "by 1/4 instead of K eta_l = 1/8" in d.hint and "K' = 2 local steps" in d.hint
    assert d.expected == [Q(1)] and d.observed == [0.5]


def test_bug_is_invisible_where_the_law_agrees():
    """Averaging every client differs from averaging the sampled ones only when S < N."""
    rep = conform(zoo("bug_fedavg_averages_all_clients.py", "FedAvg"), mode="uniform",
                  rungs=["two clients, K = 3", "S = 2 of N = 4"])
    status = {r.name: r.status for r in rep.rungs}
    assert status["two clients, K = 3"] == "conforms" and status["S = 2 of N = 4"] == "deviates"


def test_local_sgd_without_averaging_is_caught():
    rep = conform(data("NoSyncAverage"), "local-sgd")
    d = rep.first_deviation
    assert d.quantity == "worker iterate x^0_1" and d.round == 1 and d.rung == "two workers, sync every step"
    assert "not averaged at a synchronisation time" in d.hint


def test_plain_function_adapter():
    assert conform(data("plain_function"), "fedavg", mode="uniform", rungs=["S = 2 of N = 4"]).conforms


# ----------------------------------------------------------------------------- the law test

def test_other_call_order_is_matched_exactly():
    """Option I's fresh sample drawn before the local steps: the calls are matched by their points,
    so the noise rung is compared with the very draws, not in law."""
    rep = conform(data("ControlFirst"), option="I", rungs=["noise"])
    assert rep.conforms and rep.rungs[0].status == "conforms"


def test_reused_sample_is_seen_with_matched_draws():
    """Option I whose control reuses the first local step's sample: the matched draws show it."""
    d = conform(data("ReusesSample"), option="I", rungs=["noise"]).first_deviation
    assert d.kind == "exact" and d.quantity == "client control c_0"


@pytest.mark.slow
def test_averaged_samples_fail_the_law_test():
    """Each local step averages two fresh samples: right without noise, half the variance with it;
    the points cannot be matched to single draws, so the round is tested in law."""
    rep = conform(data("AveragesTwoSamples"), "fedavg", mode="uniform", rungs=["one client", "noise"],
                  law_replicates=1000)
    assert rep.rungs[0].status == "conforms"
    d = rep.first_deviation
    assert d.kind == "law" and d.quantity.startswith("variance of model x") and "threshold" in d.detail


def test_extra_oracle_calls_are_counted_and_reported():
    rep = conform(data("DiagnosticGradient"), "fedavg", mode="uniform", rungs=["two clients, K = 1", "noise"])
    assert rep.conforms
    note = rep.rungs[0].notes[0]
    assert "client 0 called the oracle 2 times (K + 1)" in note and "at x_{r-1}" in note
    assert "not used in the update" in note
    assert rep.rungs[1].status == "conforms"        # the draws are matched past the extra call


def test_k_plus_one_steps_is_a_local_end_point_deviation():
    d = conform(data("OneStepTooMany"), "fedavg", mode="uniform", rungs=["two clients, K = 1"]).first_deviation
    assert d.quantity == "local end point y_{0,1}" and "K + 1 = 2 local steps" in d.hint
    assert "inferred" in d.detail


def test_implausible_weights_are_not_reported_as_weights():
    """A dropped last update on a three-dimensional rung: the model is not the aggregation of any
    end points pyfed can name with weights; the hint says so instead of inventing weights."""
    d = conform(data("DroppedLastUpdate"), "fedavg", mode="uniform", rungs=["d = 3"]).first_deviation
    assert d.quantity == "local end point y_{0,2}" and "computed but not applied" in d.hint


# ----------------------------------------------------------------------------- broken adapters

@pytest.mark.parametrize("obj,words", [
    ("Raises", "round 1 raised ZeroDivisionError"),
    ("WrongShape", "`c_clients` has shape (1, 1), expected (1, 1)"[:22]),
    ("ReturnsNaN", "`x` has 1 NaN or infinite entry"),
    ("MissingKey", "has no `c`, `c_clients`"),
    ("BadOracleCall", "called the oracle with client 1"),
])
def test_broken_adapter_is_an_adapter_error(obj, words):
    with pytest.raises(AdapterError) as exc:
        conform(data(obj), option="II")
    assert exc.value.argument == "ADAPTER" and words in str(exc.value)
    assert "\n" not in str(exc.value)


def test_load_adapter_errors():
    with pytest.raises(InputError, match="not found"):
        load_adapter(str(DATA / "nope.py") + ":x")
    with pytest.raises(InputError, match="has no 'Nope'"):
        load_adapter(str(DATA / "adapters.py") + ":Nope")
    with pytest.raises(InputError, match="raised RuntimeError: the module is broken"):
        load_adapter(str(DATA / "import_error.py") + ":x")
    with pytest.raises(InputError, match="cannot import"):
        load_adapter("no_such_module_for_pyfed:x")


def test_bad_arguments_name_the_flag():
    ref = zoo("reference.py", "FedAvg")
    with pytest.raises(InputError) as exc:
        conform(ref, "fedavg", option="II")
    assert exc.value.argument == "--option"
    with pytest.raises(InputError) as exc:
        conform(ref, "fedavg", mode="median")
    assert exc.value.argument == "--mode"


# ----------------------------------------------------------------------------- statements

def test_statements_that_apply():
    ok2 = conform(zoo("reference.py", "Scaffold"), option="II", rungs=["one client"])
    names = {a.statement: a for a in applicable_statements(ok2)}
    assert names["SCAFFOLD.ConvexFiniteRoundConvergence"].applies
    assert names["SCAFFOLD.NonconvexFiniteRoundConvergence"].montecarlo
    ok1 = conform(zoo("reference.py", "Scaffold"), option="I", rungs=["one client"])
    assert not any(a.applies for a in applicable_statements(ok1))
    weighted = conform(zoo("reference.py", "FedAvg"), mode="weighted", rungs=["one client"])
    assert not any(a.applies for a in applicable_statements(weighted))
    bad = conform(zoo("bug_server_adds_full_control.py", "Scaffold"), rungs=["one client"])
    assert applicable_statements(bad) == []


@pytest.mark.slow
def test_montecarlo_rows_on_the_implementations_trajectories():
    from pyfed.conform.statements import montecarlo_rows, trajectories
    from pyfed.models.scaffold.conformance import row_instance
    from pyfed.models.scaffold.model import our_statements

    ref = zoo("reference.py", "Scaffold")
    st = our_statements()["ConvexFiniteRoundConvergence"]
    inst = row_instance("ConvexFiniteRoundConvergence", st)
    x = trajectories(ref, inst, replicates=3, seed=5)
    assert x.shape == (3, inst.T + 1, inst.d)
    assert np.all(x[:, 0] == 1.0) and not np.allclose(x[0], x[1])      # x0 = 1; replicates differ
    np.testing.assert_array_equal(x, trajectories(ref, inst, replicates=3, seed=5))   # seeded
    (v,) = montecarlo_rows(ref, ["ConvexFiniteRoundConvergence"], replicates=16, seed=1)
    assert v.status == "holds" and v.details["hypotheses"] and all(h["holds"] for h in v.details["hypotheses"])


# ----------------------------------------------------------------------------- Flower

@pytest.mark.slow
def test_flower_fedavg_characterised():
    pytest.importorskip("flwr", reason="Flower (pip install 'pyfed[flower]') is not installed")
    from pyfed.conform.flower import fedavg, fedavg_equal

    weighted = conform(fedavg, "fedavg", mode="weighted", rungs=["two clients, K = 1", "S = 2 of N = 4"])
    status = {r.name: r.status for r in weighted.rungs}
    # S = N: Flower's sample-count average is the count-weighted mode
    assert status["two clients, K = 1"] == "conforms"
    d = weighted.first_deviation
    assert d.rung == "S = 2 of N = 4" and d.quantity == "aggregation weights"
    assert d.observed == [Q(2, 7), Q(5, 7)] and "normalised within the sampled set" in d.hint
    # equal num_examples: the uniform-client mode, except that Flower's FedAvg has no global step
    uniform = conform(fedavg_equal, "fedavg", mode="uniform")
    bad = [r for r in uniform.rungs if r.status == "deviates"]
    assert [r.name for r in bad] == ["global step"] and "no global step" in bad[0].deviation.hint
    assert uniform.conforms_at_eta_g == 1
    assert conform(fedavg_equal, "fedavg", mode="uniform", eta_g=1).conforms


@pytest.mark.slow
def test_flower_fedprox_and_scaffold_strategy():
    pytest.importorskip("flwr", reason="Flower (pip install 'pyfed[flower]') is not installed")
    from pyfed.conform.flower import fedprox_equal

    assert [r.name for r in conform(fedprox_equal, "fedprox").rungs if r.status == "deviates"] == ["global step"]
    assert conform(zoo("flower_scaffold.py", "adapter_equal_examples"), option="II").conforms
    d = conform(zoo("flower_scaffold.py", "adapter"), option="II").first_deviation
    assert d.quantity == "aggregation weights" and d.rung == "two clients, K = 1"
    assert d.observed == [Q(2, 7), Q(5, 7)]
