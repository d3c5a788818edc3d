"""``pyfed experiment`` (the SCAFFOLD paper's Table 3 on digits): outputs, JSON invariants, the
early-stopping grid search against a brute-force search, and command-line errors."""

import json
import math
from fractions import Fraction

import numpy as np
import pytest

from cli_helpers import run_cli
from pyfed.commands import experiment as front
from pyfed.experiments.heterogeneity import (HeterogeneityConfig, run_heterogeneity, validate_config,
                                         work_units)
from pyfed.errors import InputError
from pyfed.oracles import MinibatchOracle
from pyfed.problems import SoftmaxProblem


_run = run_cli


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("experiment")
    code, stdout, stderr = _run(["experiment", "--quick", "--out", str(out)])
    data = json.loads((out / "heterogeneity.json").read_text(encoding="utf-8"))
    return {"out": out, "code": code, "stdout": stdout, "stderr": stderr, "json": data}


def _first_crossing(curve, need):
    hits = [r for r, c in enumerate(curve) if c >= need]
    return hits[0] if hits else None


@pytest.mark.slow
def test_quick_prints_the_table_and_writes_json_and_pngs(quick):
    import matplotlib.image as mpimg

    assert quick["code"] == 0, quick["stderr"]
    text = quick["stdout"]
    for word in ("SGD", "SCAFFOLD", "FedAvg", "FedProx", "0% similarity", "100% similarity",
                 "speed-up over SGD", "Karimireddy et al. (2020), Table 3", "findings"):
        assert word in text
    cfg = validate_config(front.default_config(quick=True))
    for name, kind in [("heterogeneity_rounds.png", "rounds")] + \
                      [(f"heterogeneity_curves_E{e}.png", "curves") for e in cfg.epochs]:
        img = mpimg.imread(quick["out"] / name)
        w, h = front.png_size(cfg, kind)
        assert img.shape[:2] == (h, w)
        assert float(np.std(img[..., :3])) > 0.05  # not a blank canvas


@pytest.mark.slow
def test_json_rounds_are_the_first_crossing_of_the_recorded_curves(quick):
    data = quick["json"]
    cap, need, n_test = data["config"]["cap"], data["target_correct"], data["n_test"]
    assert need == math.ceil(Fraction(data["target"]) * n_test) == 280 and n_test == 297
    for s in data["settings"]:
        curve = s["curve"]
        assert len(curve["test_correct"]) == data["config"]["replicates"]
        for seed, rounds in enumerate(s["rounds"]):
            tc = curve["test_correct"][seed]
            assert len(tc) == curve["horizon"] + 1
            assert all(isinstance(c, int) and 0 <= c <= n_test for c in tc)
            assert rounds == _first_crossing(tc, need)
            if rounds is None:
                assert curve["horizon"] == cap
        for c in s["candidates"]:
            for seed, rounds in enumerate(c["rounds"]):
                tc = c["test_correct"][seed]
                assert len(tc) == c["horizon"] + 1 and c["simulated_horizons"][-1] == c["horizon"]
                assert rounds == _first_crossing(tc, need)


@pytest.mark.slow
def test_json_losses_are_finite_and_start_at_log_C(quick):
    """x_0 = 0: every logit is 0, so f(x_0) = log C = log 10 and the argmax (ties to the lowest
    class) predicts class 0: the test rows of class 0 are right."""
    data = quick["json"]
    P = SoftmaxProblem.from_dataset("digits", 100, "similarity", data["config"]["data_seed"], similarity=0,
                                    solve=False)
    zeros = int(np.sum(P.y_test == 0))
    for s in data["settings"]:
        f_star = data["problems"][s["similarity"]]["f_star"]
        for seed, loss in enumerate(s["curve"]["train_loss"]):
            assert all(v is not None and math.isfinite(v) for v in loss)  # the chosen runs never diverge
            assert abs(loss[0] - math.log(10)) < 1e-6
            assert min(loss) >= f_star - 1e-9
            assert s["curve"]["test_correct"][seed][0] == zeros


@pytest.mark.slow
def test_json_choice_is_the_argmin_over_the_grid(quick):
    data = quick["json"]
    cap, grid = data["config"]["cap"], sorted(data["config"]["eta_grid"])
    for s in data["settings"]:
        cands = s["candidates"]
        assert sorted(c["eta_l"] for c in cands) == grid
        decided = [c for c in cands if c["status"] == "decided"]
        for c in decided:
            assert c["score"] == pytest.approx(np.mean([r if r is not None else cap + 1 for r in c["rounds"]]))
        best = min(decided, key=lambda c: (c["score"], grid.index(c["eta_l"])))
        assert s["eta_l"] == best["eta_l"] and s["rounds"] == best["rounds"]
        for c in cands:
            if c["status"] == "pruned":  # its lower bound already could not win
                assert (c["score"], grid.index(c["eta_l"])) > (best["score"], grid.index(best["eta_l"]))
        sgd = next(t for t in data["settings"] if t["method"] == "sgd" and t["similarity"] == s["similarity"])
        if s["mean_rounds"] is not None and sgd["mean_rounds"] is not None:
            assert s["speedup"] == pytest.approx(sgd["mean_rounds"] / s["mean_rounds"])


@pytest.mark.slow
def test_findings_are_reported_for_every_claim(quick):
    found = quick["json"]["findings"]
    assert len(found) == 7
    assert {f["verdict"] for f in found} <= {"reproduced", "not reproduced", "not tested"}
    sgd = {t["similarity"]: t["mean_rounds"] for t in quick["json"]["settings"] if t["method"] == "sgd"}
    claim = next(f for f in found if f["claim"].startswith("SGD is insensitive"))
    ratio = max(sgd.values()) / min(sgd.values())
    assert claim["verdict"] == ("reproduced" if ratio <= 1.5 else "not reproduced")
    assert f"{ratio:.2f}" in claim["evidence"]


def _brute_rounds(x, P, need):
    correct = P.test_correct(x)
    out = []
    for row in correct:
        hits = np.flatnonzero(row >= need)
        out.append(int(hits[0]) if hits.size else None)
    return out


@pytest.mark.slow
def test_early_stopping_and_pruning_give_the_full_grid_search():
    """Every eta_l run to the cap without early stopping (the simulators called directly): the
    engine's choice and rounds are the same, and its progress adds up to work_units."""
    from pyfed.algorithms import fedavg, scaffold

    cfg = HeterogeneityConfig(methods=("sgd", "scaffold", "fedavg"), similarities=(100,), epochs=(1,),
                              eta_grid=(0.1, 0.3, 1.0, 3.0), replicates=2, cap=40, seed=3)
    ticks = []
    res = run_heterogeneity(cfg, progress=lambda k, d: ticks.append(k))
    assert sum(ticks) == work_units(validate_config(cfg)) == 6
    P = SoftmaxProblem.from_dataset("digits", 100, "similarity", 0, similarity=100, solve=False)
    for s in res.settings:
        scores = []
        for eta in cfg.eta_grid:
            rng = np.random.default_rng([3, 100_000])
            if s.method == "sgd":
                x = fedavg(P, MinibatchOracle(P, 15), S=20, K=1, T=40, eta_l=eta, eta_g=1.0, R=2, rng=rng).x
            elif s.method == "fedavg":
                x = fedavg(P, MinibatchOracle(P, 3), S=20, K=5, T=40, eta_l=eta, eta_g=1.0, R=2, rng=rng).x
            else:
                x = scaffold(P, MinibatchOracle(P, 3), S=20, K=5, T=40, eta_l=eta, eta_g=1.0, R=2, rng=rng,
                             option="II").x
            with np.errstate(all="ignore"):
                rounds = _brute_rounds(x, P, res.target_correct)
            scores.append((np.mean([r if r is not None else 41 for r in rounds]), eta, rounds))
        best = min(scores, key=lambda t: (t[0], t[1]))
        assert s.chosen.eta == best[1] and s.rounds == best[2]


@pytest.mark.parametrize("argv,flag", [
    (["--epochs", "0"], "--epochs"),
    (["--epochs", "1,,5"], "--epochs"),
    (["--epochs", "2.5"], "--epochs"),
    (["--methods", "sgd,fedsgd"], "--methods"),
    (["--similarities", "150"], "--similarities"),
    (["--target", "1.5"], "--target"),
    (["--target", "high"], "--target"),
    (["--seeds", "0"], "--seeds"),
    (["--eta-grid", "0.1,-1"], "--eta-grid"),
    (["--eta-grid", "1/0"], "--eta-grid"),
    (["--eta-grid", "inf"], "--eta-grid"),
    (["--cap", "0"], "--cap"),
    (["--seed", "-1"], "--seed"),
])
def test_invalid_input_exits_2_naming_the_flag_before_any_work(argv, flag, tmp_path, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("the experiment started before the input was validated")

    monkeypatch.setattr(front, "run_heterogeneity", boom)
    out = tmp_path / "never"
    code, stdout, stderr = _run(["experiment", "--quick", "--out", str(out)] + argv)
    assert code == 2
    assert stderr.count("\n") == 1 and stderr.startswith(f"pyfed: error: {flag}: ")
    assert not out.exists()


def test_unwritable_out_exits_2_before_any_work(tmp_path, monkeypatch):
    monkeypatch.setattr(front, "run_heterogeneity", lambda *a, **k: (_ for _ in ()).throw(AssertionError()))
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, stdout, stderr = _run(["experiment", "--quick", "--out", str(blocker / "sub")])
    assert code == 2 and stderr.startswith("pyfed: error: --out: cannot create directory")
    assert stderr.count("\n") == 1


def test_engine_config_errors_name_the_field():
    with pytest.raises(InputError) as ei:
        validate_config(HeterogeneityConfig(S=200))
    assert ei.value.argument == "S"
    with pytest.raises(InputError) as ei:
        validate_config(HeterogeneityConfig(batch_fraction=Fraction(3, 2)))
    assert ei.value.argument == "batch_fraction"
    with pytest.raises(InputError) as ei:
        run_heterogeneity(HeterogeneityConfig(N=2000, similarities=(0,)))
    assert ei.value.argument == "N"


def _fake_result(rounds_by_key, cfg):
    """A result whose settings have the given per-seed rounds (None = not reached)."""
    from pyfed.experiments.heterogeneity import Candidate, HeterogeneityResult, Setting

    settings = []
    for (m, sim, e), rounds in rounds_by_key.items():
        score = Fraction(sum(r if r is not None else cfg.cap + 1 for r in rounds), len(rounds))
        c = Candidate(eta=1.0, index=0, rounds=list(rounds), diverged_at=[None] * len(rounds), horizon=cfg.cap,
                      status="decided", score=score, test_correct=np.zeros((len(rounds), 1), dtype=int))
        settings.append(Setting(method=m, similarity=sim, epochs=e, K=5 * e, b=3, candidates=[c], chosen=c))
    return HeterogeneityResult(config=cfg, target_correct=1, problems={}, settings=settings)


@pytest.mark.parametrize("e20,verdict", [((19, 21), "reproduced"),       # tied with E=5 within the spread
                                         ((40, None), "reproduced"),     # censored at the cap: slower
                                         ((5, 6), "not reproduced")])    # faster beyond the spread
def test_monotone_claims_allow_ties_within_the_spread(e20, verdict):
    cfg = validate_config(HeterogeneityConfig(methods=("fedavg",), similarities=(0,), epochs=(1, 5, 20), cap=50))
    res = _fake_result({("fedavg", 0, 1): (10, 12), ("fedavg", 0, 5): (20, 22), ("fedavg", 0, 20): e20}, cfg)
    claim = next(f for f in res.findings() if f["claim"].startswith("At 0% similarity FedAvg needs more"))
    assert claim["verdict"] == verdict
    flat = _fake_result({("fedavg", 0, 1): (10, 12), ("fedavg", 0, 5): (11, 12), ("fedavg", 0, 20): (12, 11)}, cfg)
    claim = next(f for f in flat.findings() if f["claim"].startswith("At 0% similarity FedAvg needs more"))
    assert claim["verdict"] == "reproduced"  # ties all along, but the last mean 11.5 > 11
    same = _fake_result({("fedavg", 0, 1): (10, 12), ("fedavg", 0, 5): (11, 12), ("fedavg", 0, 20): (12, 10)}, cfg)
    claim = next(f for f in same.findings() if f["claim"].startswith("At 0% similarity FedAvg needs more"))
    assert claim["verdict"] == "not reproduced"  # no growth from the first to the last


def test_help_is_plain_text():
    code, out, _ = _run(["experiment", "--help"])   # main() maps argparse's SystemExit to its status
    assert code == 0 and "--quick" in out
    import argparse

    from pyfed.cli import build_parser
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    text = sub.choices["experiment"].format_help()
    assert "%%" not in text and "``" not in text and ":func:" not in text
    assert "--quick" in text and "--seeds" in text


def test_eta_grid_accepts_fractions_and_decimals():
    from pyfed.cli import build_parser
    from pyfed.commands.experiment import config_from_args
    args = build_parser().parse_args(["experiment", "--quick", "--eta-grid", "1/20,0.3,1e-1"])
    assert config_from_args(args).eta_grid == (0.05, 0.1, 0.3)   # read exactly, then sorted


def test_censored_speedups_are_printed_as_honest_bounds():
    """A speed-up known only as a bound is rounded toward the safe side: the paper's FedAvg
    20-epoch cell at 0% (1000+ rounds, SGD 317) is below 317/1000 = 0.317, printed "<0.32×"
    (not "<0.3×", which 0.317 is not below)."""
    from fractions import Fraction

    from pyfed.commands.experiment import paper_table
    from pyfed.experiments.heterogeneity import bound_text

    assert bound_text(Fraction(317, 1000), "up") == "0.32"
    assert bound_text(Fraction(317, 1000), "down") == "0.31"
    assert bound_text(Fraction(3, 10), "up") == "0.3"         # exact: no rounding needed
    assert bound_text(Fraction(1000, 3), "down") == "330" and bound_text(Fraction(1000, 3), "up") == "340"
    assert bound_text(Fraction(1, 30000), "up") == "0.000034"
    for v in (Fraction(317, 1000), Fraction(365, 1000), Fraction(416, 1000), Fraction(7, 9), Fraction(12345, 7)):
        assert Fraction(bound_text(v, "up")) >= v >= Fraction(bound_text(v, "down"))
    cells = [c for col in paper_table().columns for c in col.cells]
    assert "1000+ (<0.32×)" in cells and "1000+ (<0.3×)" not in cells


@pytest.mark.slow
def test_experiment_on_a_pipe_prints_one_line_per_finished_cell(tmp_path):
    """Off a terminal the progress is one line per finished unit (a setting's step size chosen, its
    curve), nothing else on stderr (about 20 s: the problem's set-up dominates)."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    exe = Path(sys.executable).parent / "pyfed"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "pyfed.cli"]
    proc = subprocess.run(cmd + ["experiment", "--methods", "sgd,scaffold", "--similarities", "100", "--epochs", "1",
                                 "--eta-grid", "1", "--seeds", "2", "--cap", "20", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    lines = [re.sub(r" done \(\d+\.\d s\)$", "", x) for x in proc.stderr.splitlines()]
    assert lines == ["pyfed experiment: SGD 1 step s=100%: eta_l = 1", "pyfed experiment: SCAFFOLD E=1 s=100%: eta_l = 1",
                     "pyfed experiment: SGD 1 step s=100%: curve to round 20",
                     "pyfed experiment: SCAFFOLD E=1 s=100%: curve to round 20"]


def test_experiment_sample_range_collapses_when_clients_are_equal():
    from pyfed.commands.experiment import _size_range
    assert _size_range((15, 15)) == "15" and _size_range((12, 18)) == "12-18"
