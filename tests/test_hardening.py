"""Issue 9 (hardening): every bad input a clear one-line error before any long work, exit
statuses that mean something, certified digits in reports, divergence detection, d = 0, exact
inputs (rational strings, sigma^2), feedback (quick runs, progress, summaries, legends).

CLI tests drive ``pyfed.cli.main`` (or the console script in a subprocess where its exit status
matters) and prove that a rejected input never reached the engine with a monkeypatched engine
that fails the test if it is called.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from fractions import Fraction as Fr
from pathlib import Path

import numpy as np
import pytest

from pyfed import cli
from pyfed.errors import (EXIT_CHECK_FAILED, EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_VIOLATED, Diverged,
                          InputError, UndefinedValue)

ROOT = Path(__file__).resolve().parents[1]


def _main(argv, capsys):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _one_error_line(err: str, argument: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"pyfed: error: {argument}: "), err
    assert "Traceback" not in err


def _forbid(monkeypatch, target: str, name: str):
    """Replace ``target.name`` by a function that fails the test when called (the long work)."""
    def never(*a, **k):
        raise AssertionError(f"{target}.{name} was called: the input should have been rejected before the work")
    monkeypatch.setattr(f"{target}.{name}", never)


# ------------------------------------------------------------------------------------------
# item 2: exit statuses
# ------------------------------------------------------------------------------------------

def test_exit_status_constants_are_distinct_and_documented():
    codes = [EXIT_OK, EXIT_VIOLATED, EXIT_INPUT, EXIT_INTERNAL, EXIT_CHECK_FAILED]
    assert codes == [0, 1, 2, 3, 4]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Exit statuses", 1)[1].split("\n## ", 1)[0]
    for code in codes:
        assert f"| {code} |" in table, code


def test_internal_error_is_one_line_exit_3_never_exit_1(monkeypatch, capsys):
    import pyfed.check
    def boom(**kw):
        raise RuntimeError("boom\nsecond line")
    monkeypatch.setattr(pyfed.check, "run_check", boom)
    monkeypatch.delenv("PYFED_DEBUG", raising=False)
    code, out, err = _main(["check", "--skip-statements"], capsys)
    assert code == EXIT_INTERNAL == 3
    lines = err.strip().splitlines()
    assert lines == ["pyfed: internal error: RuntimeError: boom second line "
                     "(set PYFED_DEBUG=1 for the traceback; please report)"]
    monkeypatch.setenv("PYFED_DEBUG", "1")
    code, out, err = _main(["check", "--skip-statements"], capsys)
    assert code == 3 and "Traceback" in err and err.strip().splitlines()[-1].startswith("pyfed: internal error:")


def test_violated_verdict_is_exit_1(monkeypatch, capsys):
    import pyfed.check
    from pyfed.verdicts import Violated
    v = Violated("ConvexFiniteRoundConvergence", Fr(2), Fr(1), True, {"instance": "fake"}, witness={})
    monkeypatch.setattr(pyfed.check, "run_check", lambda **kw: [v])
    code, out, err = _main(["check", "--skip-statements"], capsys)
    assert code == EXIT_VIOLATED and "violated" in out


def test_keyboard_interrupt_is_exit_130(monkeypatch, capsys):
    import pyfed.check
    def interrupted(**kw):
        raise KeyboardInterrupt
    monkeypatch.setattr(pyfed.check, "run_check", interrupted)
    code, out, err = _main(["check", "--skip-statements"], capsys)
    assert code == 130 and err.strip() == "pyfed: interrupted"


@pytest.mark.parametrize("argv, argument", [
    (["nope"], "command"),
    ([], "command"),
    (["check", "--budget", "x"], "--budget"),
    (["check", "--frobnicate"], "--frobnicate"),
    (["worst-case", "-N", "x"], "-N"),                 # named as typed (not its alias --clients)
    (["worst-case", "--clients", "x"], "--clients"),
    (["search", "YoungInner", "--seed", "1.5"], "--seed"),
])
def test_usage_errors_are_one_line_exit_2(argv, argument, capsys):
    code, out, err = _main(argv, capsys)
    assert code == EXIT_INPUT
    _one_error_line(err, argument)


def test_help_and_version_exit_0(capsys):
    assert cli.main(["--version"]) == 0
    assert "pyfed" in capsys.readouterr().out
    assert cli.main(["check", "--help"]) == 0
    assert "--budget" in capsys.readouterr().out


def test_lean_drift_mismatch_is_exit_4(monkeypatch, capsys):
    from pyfed.lean import drift
    monkeypatch.setattr(drift, "check_drift", lambda lean_dir=None, **kw: ["convexRHS: 12 vs 13"])
    code, out, err = _main(["lean", "--drift"], capsys)
    assert code == EXIT_CHECK_FAILED and "drift: convexRHS: 12 vs 13" in err


def _console_script():
    exe = Path(sys.executable).parent / "pyfed"
    return [str(exe)] if exe.exists() else [sys.executable, "-c", "import sys; from pyfed.cli import main; "
                                                                  "sys.exit(main())"]


def test_console_script_exit_statuses(tmp_path):
    """The installed ``pyfed`` script returns main's status to the shell (2 bad input, 0 ran)."""
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    bad = subprocess.run(_console_script() + ["check", "--budget", "-5"], capture_output=True, text=True,
                         env=env, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.strip() == "pyfed: error: --budget: must be >= 1, got -5"
    ok = subprocess.run(_console_script() + ["search", "YoungInner", "--budget", "1", "--out", str(tmp_path)],
                        capture_output=True, text=True, env=env, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert ok.stderr == ""          # progress is not written to a non-terminal stderr


# ------------------------------------------------------------------------------------------
# items 3 and 4: bad input rejected before the work, naming the flag as typed
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv, argument, why", [
    (["--json", "/proc/pyfed-report.json"], "--json", "cannot create file"),
    (["--json", "{tmp}"], "--json", "is a directory"),
    (["--json", ""], "--json", "is empty"),
    (["--json", "{tmp}/missing-dir/r.json"], "--json", "does not exist"),
    (["--budget", "-5"], "--budget", ">= 1"),
    (["--budget", "0"], "--budget", ">= 1"),
    (["--seed", "-1"], "--seed", ">= 0"),
    (["--replicates", "1"], "--replicates", ">= 2"),
])
def test_check_rejects_bad_input_before_running(argv, argument, why, tmp_path, monkeypatch, capsys):
    _forbid(monkeypatch, "pyfed.check", "run_check")
    _forbid(monkeypatch, "pyfed.search", "run_all")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out, err = _main(["check"] + argv, capsys)
    assert code == EXIT_INPUT
    _one_error_line(err, argument)
    assert why in err
    assert not any(tmp_path.iterdir())      # nothing created (the probe file is removed)


def test_check_json_probe_leaves_an_existing_file_alone(tmp_path, monkeypatch, capsys):
    from pyfed.errors import check_output_file
    f = tmp_path / "old.json"
    f.write_text("keep")
    assert check_output_file("--json", str(f)) == str(f) and f.read_text() == "keep"
    new = tmp_path / "new.json"
    check_output_file("--json", str(new))
    assert not new.exists()


@pytest.mark.parametrize("argv, argument, why", [
    (["YoungInner", "--seed", "-1", "--out", "{tmp}/o"], "--seed", ">= 0"),
    (["YoungInner", "--budget", "0", "--out", "{tmp}/o"], "--budget", ">= 1"),
    (["YoungInner", "--budget", "-3", "--out", "{tmp}/o"], "--budget", ">= 1"),
    (["YoungInner", "--out", ""], "--out", "required"),
    (["YoungInner", "--out", "{tmp}/file"], "--out", "is a file"),
    (["YoungInner", "--out", "/proc/pyfed-out"], "--out", "cannot create directory"),
    (["YoungInner", "--relax", "nope", "--out", "{tmp}/o"], "--relax", "unknown hypothesis"),
    (["YoungInner", "--mutate", "nope", "--out", "{tmp}/o"], "--mutate", "unknown mutation"),
    (["Nope", "--out", "{tmp}/o"], "lean_name", "unknown statement"),
])
def test_search_rejects_bad_input_before_searching(argv, argument, why, tmp_path, monkeypatch, capsys):
    (tmp_path / "file").write_text("x")
    _forbid(monkeypatch, "pyfed.commands.search", "search_to_dir")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out, err = _main(["search"] + argv, capsys)
    assert code == EXIT_INPUT
    _one_error_line(err, argument)
    assert why in err


def test_search_library_rejects_a_negative_seed(tmp_path):
    from pyfed.search import search_to_dir
    with pytest.raises(InputError) as e:
        search_to_dir("YoungInner", seed=-1, budget=1, out=str(tmp_path))
    assert e.value.argument == "seed"


@pytest.mark.parametrize("command, argv, argument", [
    ("tightness", ["--out", ""], "--out"),
    ("tightness", ["--out", "/proc/pyfed-out"], "--out"),
    ("worst-case", ["--quick", "--out", ""], "--out"),
    ("worst-case", ["--quick", "--solver", "NO-SUCH-SOLVER"], "--solver"),
    ("lean", ["--out", "/proc/pyfed-lean"], "--out"),
    ("lean", ["--out", str(ROOT / "README.md")], "--out"),
])
def test_other_commands_reject_bad_output_and_options_before_work(command, argv, argument, monkeypatch, capsys):
    _forbid(monkeypatch, "pyfed.commands.tightness", "tightness_sweep")
    _forbid(monkeypatch, "pyfed.engines.pep", "sweep_scaffold")
    _forbid(monkeypatch, "pyfed.lean.render", "write_all")
    code, out, err = _main([command] + argv, capsys)
    assert code == EXIT_INPUT
    _one_error_line(err, argument)


def test_convex_rhs_at_mu_h_equal_two_is_a_named_error():
    from pyfed.theory import convex_rhs, weight, weight_sum, weights
    kw = dict(dist_sq=1, C0=1, N=2, S=1, K=1, T=3, eta_l=1, eta_g=1, sigma=0)
    with pytest.raises(UndefinedValue) as e:
        convex_rhs(mu=2, **kw)                          # h = 1, mu h = 2: q = 0
    assert e.value.argument == "mu" and "q = 1 - mu h/2 = 0" in e.value.reason
    assert isinstance(e.value, InputError) and isinstance(e.value, ZeroDivisionError)
    for fn in (lambda: weight(0, 2, 1), lambda: weights(3, 2, 1), lambda: weight_sum(3, 2, 1)):
        with pytest.raises(UndefinedValue):
            fn()
    # just beside it the formula is defined (q = 1/2: w_r = 2^(r+1))
    assert weights(3, 1, 1) == [2, 4, 8] and weight_sum(3, 1, 1) == 14


def test_decide_at_a_huge_step_does_not_hit_the_int_str_limit():
    """h = 50/beta, K = 20: exact entries exceed Python's 4300-digit int->str limit; the verdict,
    its JSON and its string must still work, and reports print no giant fraction."""
    from pyfed.engines.exact import decide_convex, decide_nonconvex
    from pyfed.exact import REPORT_EXACT_CHARS
    from pyfed.problems import random_quadratic
    P = random_quadratic(2, 2, np.random.default_rng(0), rational=True, mu=Fr(1, 10), L=1, heterogeneity=1)
    h = Fr(50) / P.beta
    for fn in (decide_convex, decide_nonconvex):
        v = fn(P, Fr(1, 2), S=1, K=20, T=20, eta_l=h / 20, eta_g=1, arithmetic="exact")
        assert v.status == "inconclusive"                       # beyond the step-size hypothesis
        assert v.details["inequality"] in ("holds", "violated")  # the inequality itself decided exactly
        assert v.lhs.numerator.bit_length() > 4300 * 3.33          # more than 4300 decimal digits
        text = json.dumps(v.to_json())
        assert "NaN" not in text and "Infinity" not in text
        lhs = v.to_json()["lhs"]
        assert "exact" not in lhs and lhs["exact_chars"] > 4300 and "e+" in lhs["decimal"]
        assert lhs["float"] is None or Fr(lhs["float"]) == Fr(float(v.lhs))      # correctly rounded
        longest = max(len(s) for s in _strings(v.to_json()))
        assert longest <= max(REPORT_EXACT_CHARS, 400)
        assert str(v)


def _strings(obj):
    if isinstance(obj, dict):
        for x in obj.values():
            yield from _strings(x)
    elif isinstance(obj, list):
        for x in obj:
            yield from _strings(x)
    elif isinstance(obj, str):
        yield obj


def test_tightness_ratio_beyond_the_float_range(tmp_path, capsys):
    """A sweep whose ratio exceeds 1.8e308 prints it (certified digits) and plots it off scale."""
    code, out, err = _main(["tightness", "--N", "2", "--d", "1", "--S", "1", "--K", "4", "--T", "40",
                            "--max-multiple", "8192", "--out", str(tmp_path)], capsys)
    assert code == EXIT_OK, err
    assert "e+418" in out and "inf" not in out.lower().replace("infinite", "")
    data = json.loads((tmp_path / "tightness.json").read_text())
    last = data["points"][-1]["ratio"]
    assert last["float"] is None and last["decimal"].endswith("e+415")
    assert (tmp_path / "tightness.png").stat().st_size > 1000


def test_tightness_plot_marks_off_scale_points():
    import matplotlib.pyplot as plt

    from pyfed.commands.tightness import sweep_figure
    from pyfed.engines.tightness import SweepPoint, SweepResult
    pts = [SweepPoint(Fr(1), Fr(1), Fr(1), Fr(1), Fr(2), Fr(1, 2), "holds", True),
           SweepPoint(Fr(2), Fr(2), Fr(2), Fr(10) ** 500, Fr(1), Fr(10) ** 500, "inconclusive", False,
                      inequality="violated", failing=("step_size",))]
    fig = sweep_figure(SweepResult(pts, pts[1], None, {"N": 2}))
    try:
        texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert any("off scale" in t for t in texts)
        ys = [y for line in fig.axes[0].get_lines() for y in np.atleast_1d(line.get_ydata())]
        assert all(np.isfinite(float(y)) for y in ys)
    finally:
        plt.close(fig)


# ------------------------------------------------------------------------------------------
# item 5: natural numbers, certified digits
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, value", [("T", 2.5), ("T", "5/2"), ("K", Fr(5, 2)), ("S", 1.5), ("N", -1),
                                         ("T", float("nan"))])
def test_non_natural_numbers_are_rejected_not_truncated(name, value):
    from pyfed.theory import convex_hypotheses, convex_rhs, nonconvex_hypotheses, nonconvex_rhs
    base = dict(N=4, S=2, K=2, T=3, eta_l=Fr(1, 1000), eta_g=1, sigma=Fr(1, 2))
    calls = [
        lambda kw: convex_rhs(dist_sq=1, C0=1, mu=0, **kw),
        lambda kw: convex_hypotheses(beta=1, mu=0, **kw),
        lambda kw: nonconvex_hypotheses(beta=1, **kw),
    ]
    if name != "N":
        calls.append(lambda kw: nonconvex_rhs(f_gap=1, beta=1, **{k: v for k, v in kw.items() if k != "N"}))
    for call in calls:
        with pytest.raises(InputError) as e:
            call(dict(base, **{name: value}))
        assert e.value.argument == name
    # the same values as exact integers are fine (4.0, "4", Fraction(4) are the natural number 4)
    a = convex_rhs(dist_sq=1, C0=1, mu=0, **base)
    assert convex_rhs(dist_sq=1, C0=1, mu=0, **dict(base, T=3.0)) == a
    assert convex_rhs(dist_sq=1, C0=1, mu=0, **dict(base, T="3", K=Fr(2))) == a


def test_convex_rhs_T_two_and_a_half_is_not_T_two():
    from pyfed.theory import convex_rhs
    kw = dict(dist_sq=1, C0=1, N=2, S=1, K=1, eta_l=1, eta_g=1, mu=0, sigma=0)
    assert convex_rhs(T=2, **kw) == Fr(19, 2)                 # V0/(h W) = (1 + 18)/2 by hand
    with pytest.raises(InputError):
        convex_rhs(T=2.5, **kw)


def test_convex_hypotheses_K_two_and_a_half_raises_as_documented():
    from pyfed.theory import convex_hypotheses
    with pytest.raises(InputError) as e:
        convex_hypotheses(N=4, S=2, K=2.5, T=3, eta_l=Fr(1, 1000), eta_g=1, beta=1, mu=0, sigma=0)
    assert e.value.argument == "K" and "2.5" in e.value.reason


def test_exact_decimal_is_correctly_rounded_at_any_magnitude():
    from pyfed.exact import exact_decimal, format_number, int_str, rational_str
    assert exact_decimal(Fr(2, 3), 6) == "0.666667" and exact_decimal(Fr(1, 8), 2) == "0.12"   # half to even
    assert exact_decimal(Fr(-123456, 7), 6) == "-17636.6" == f"{-123456 / 7:.6g}"
    assert exact_decimal(Fr(999999, 1000000), 3) == "1"
    big = Fr(2, 3) * Fr(10) ** 400
    assert exact_decimal(big, 5) == "6.6667e+399" and format_number(big) == "6.66667e+399"
    assert exact_decimal(Fr(1, 3) ** 300, 4) == "7.305e-144"
    rng = np.random.default_rng(0)
    for _ in range(200):    # agrees with the float's %g wherever the float is exact enough
        f = Fr(int(rng.integers(1, 10**12)), int(rng.integers(1, 10**12)))
        assert exact_decimal(f, 6) == f"{float(f):.6g}"
    n = 7 ** 6000   # > 4300 digits: no int->str limit
    assert int_str(n).startswith("2") and len(int_str(n)) == len(str(n)) if sys.get_int_max_str_digits() == 0 \
        else len(int_str(n)) > 4300
    assert rational_str(Fr(n, 3)).endswith("/3")


def test_report_numbers_are_certified():
    from flint import arb

    from pyfed.exact import number_json
    j = number_json(Fr(1, 3))
    assert j == {"float": 1 / 3, "exact": "1/3"}
    long = Fr(10 ** 200 + 1, 3)
    j = number_json(long)
    text = f"{long.numerator}/{long.denominator}"
    assert "exact" not in j and j["exact_chars"] == len(text)
    assert j["exact_sha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert j["decimal"] == "3.3333333333333333e+199" and j["float"] == float(long)
    assert number_json(long, max_chars=None)["exact"] == text            # search exports: in full
    ball = arb(1) / 3 + arb(0, 1e-6)                                      # 0.333333... +/- 1e-6
    j = number_json(ball)
    assert Fr(j["decimal"]) - Fr(1, 3) < Fr(2, 10 ** 6) and len(j["decimal"]) <= 10   # only certified digits
    assert number_json(float("nan")) == {"float": None, "nonfinite": "nan"}


def test_ball_verdict_prints_only_certified_digits():
    """The full check's quadratic row is decided in balls: margin and ratio in the report are the
    ball's certified digits, and they agree with the exact values (computed exactly here)."""
    from pyfed.engines.exact import decide_convex
    from pyfed.engines.tightness import default_instance
    P = default_instance(0)
    kw = dict(S=2, K=2, T=6, eta_l=1 / (162 * P.beta), eta_g=1)
    exact = decide_convex(P, Fr(1, 2), arithmetic="exact", **kw)
    ball = decide_convex(P, Fr(1, 2), arithmetic="ball", **kw)
    assert exact.status == ball.status == "holds"
    j = ball.to_json()
    for key, value in (("lhs", exact.lhs), ("rhs", exact.rhs), ("margin", exact.margin), ("ratio", exact.ratio)):
        dec = j[key]["decimal"]
        assert "mpmath" not in j[key] and "ball" in j[key]
        digits = len(dec.split("e")[0].replace("-", "").replace(".", "").lstrip("0"))
        ulp = Fr(10) ** (len(dec.split("e")[0].split(".")[1]) if "." in dec else 0)
        assert abs(Fr(dec) - value) * ulp <= 1, (key, dec, float(value))      # right to 1 unit in the last place
        assert digits >= 15


def test_monte_carlo_sides_are_labelled_estimates():
    from pyfed.engines.montecarlo import Estimate, decide
    est = Estimate.from_samples(np.array([1.0, 1.2, 0.8, 1.1, 0.9]))
    v = decide("ConvexFiniteRoundConvergence", est, Fr(10))
    j = v.to_json()
    assert j["lhs"]["kind"].startswith("Monte Carlo estimate") and j["lhs"]["estimate"] == pytest.approx(1.0)
    lo, hi = j["lhs"]["interval"]
    assert lo < 1 < hi and j["margin"]["interval"] == [pytest.approx(10 - hi), pytest.approx(10 - lo)]
    assert j["rhs"] == {"exact": "10", "float": 10.0}
    assert "mpmath" not in json.dumps(j)


# ------------------------------------------------------------------------------------------
# item 6: divergence
# ------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def quad():
    from pyfed.problems import random_quadratic
    return random_quadratic(3, 2, np.random.default_rng(0), mu=0.1, L=1)


@pytest.mark.parametrize("which", ["scaffold-I", "scaffold-II", "scaffold_run", "fedavg", "local_sgd"])
def test_every_simulator_stops_on_divergence(which, quad):
    from pyfed.algorithms import fedavg, local_sgd, scaffold, scaffold_run
    from pyfed.algorithms.common import DIVERGENCE_THRESHOLD
    from pyfed.oracles import ExactOracle
    o = ExactOracle(quad)
    kw = dict(S=2, K=2, T=200, eta_l=10, eta_g=1, R=3, rng=0)   # h = 20: |1 - h lambda| >> 1
    with pytest.raises(Diverged) as e, np.errstate(over="ignore", invalid="ignore"):
        if which == "scaffold-I":
            scaffold(quad, o, option="I", **kw)
        elif which == "scaffold-II":
            scaffold(quad, o, option="II", **kw)
        elif which == "scaffold_run":
            scaffold_run(quad, o, **kw)
        elif which == "fedavg":
            fedavg(quad, o, **kw)
        else:
            local_sgd(quad, workers=2, b=1, eta=10, sync_times=[100, 200], R=3, rng=0)
    exc = e.value
    assert 0 < exc.round < 200 and exc.magnitude > DIVERGENCE_THRESHOLD
    assert f"diverged at round {exc.round}" in str(exc) and exc.replicate in (0, 1, 2)
    assert json.dumps(exc.to_json())


def test_divergence_round_is_the_first_round_beyond_the_threshold(quad):
    """Gradient descent on one quadratic client with a step of 3/lambda: |x| grows by a known factor
    per round; the detector names the first round whose iterate exceeds the threshold."""
    from pyfed.algorithms import fedavg
    from pyfed.algorithms.common import DIVERGENCE_THRESHOLD
    from pyfed.oracles import ExactOracle
    from pyfed.problems.quadratic import QuadraticProblem
    P = QuadraticProblem([[[1]]], [[0]])                 # f(x) = x^2/2, gradient x
    with pytest.raises(Diverged) as e:
        fedavg(P, ExactOracle(P), S=1, K=1, T=500, eta_l=3, eta_g=1, x0=[1.0], rng=0)   # x_r = (-2)^r
    r = e.value.round                                   # x^{r+1} = (-2)^(r+1) is the first > 1e50
    assert 2.0 ** (r + 1) > DIVERGENCE_THRESHOLD >= 2.0 ** r
    assert e.value.magnitude == 2.0 ** (r + 1)


def test_non_finite_state_is_divergence_at_round_0(quad):
    from pyfed.algorithms import scaffold_run
    from pyfed.oracles import Oracle

    class NaNOracle(Oracle):
        sigma = 0

        def __call__(self, y, rng, clients=None):
            return np.full(np.shape(y), np.nan)
    with pytest.raises(Diverged) as e:
        scaffold_run(quad, NaNOracle(quad), S=2, K=1, T=3, eta_l=0.1, eta_g=1, c0=np.zeros((3, 2)), rng=0)
    assert e.value.round == 0 and np.isnan(e.value.magnitude) and "non-finite" in str(e.value)
    assert e.value.to_json()["magnitude"] == "nan"


def test_check_divergence_helper():
    from pyfed.algorithms.common import check_divergence
    check_divergence(0, np.zeros((2, 3)))
    check_divergence(0, np.zeros((0, 3)))
    a = np.zeros((4, 2))
    a[2, 1] = 1e60
    with pytest.raises(Diverged) as e:
        check_divergence(5, a, quantity="controls")
    assert (e.value.round, e.value.replicate, e.value.quantity, e.value.magnitude) == (5, 2, "controls", 1e60)
    check_divergence(5, a, threshold=1e61)


def test_monte_carlo_verdict_reports_divergence_inside_the_hypotheses(monkeypatch):
    """pyfed check's Monte Carlo rows: a run that diverges is "diverged at round r" (inconclusive),
    flagged as an anomaly because every hypothesis holds there; never "more replicates needed"."""
    import pyfed.algorithms
    from pyfed.check import run_instance, statement_of
    from pyfed.suites.scaffold import default_suite

    def diverging(*a, **k):
        raise Diverged(3, float("inf"), replicate=1, threshold=1e50)
    monkeypatch.setattr(pyfed.algorithms, "scaffold_run", diverging)
    inst = next(i for i in default_suite(quick=True) if i.name.startswith("logistic"))
    v = run_instance(inst, replicates=8, statement=statement_of(inst.theorem))
    assert v.status == "inconclusive" and v.reason.startswith("diverged at round 3")
    assert "inside the hypotheses" in v.reason and "more replicates" not in v.reason
    assert v.details["diverged"]["round"] == 3 and "anomaly" in v.details
    assert json.dumps(v.to_json(), default=str)


def test_montecarlo_decides_the_hypotheses_before_simulating_and_reports_divergence(monkeypatch):
    """A step far above 1/(81 beta): the statement's own hypothesis fails, so nothing is simulated
    (inconclusive, naming it); with that hypothesis relaxed the run is inside the relaxed
    statement's hypotheses, and its divergence is an inconclusive anomaly naming the round."""
    import pyfed.algorithms
    from pyfed.checkers.registry import statements_of
    from pyfed.engines.statement import RunInstance
    from pyfed.engines.statement.montecarlo import decide_montecarlo
    from pyfed.problems.quadratic import QuadraticProblem

    P = QuadraticProblem(np.array([[[1.0]], [[1.0]]]), np.array([[0.0], [0.0]]))
    inst = RunInstance(name="diverging", problem=P, sigma=0.0, S=1, K=1, T=400, eta_l=3.0, eta_g=1.0,
                       x0=np.array([1.0]), c0=np.zeros((2, 1)), mu=0, description="x <- -2x each step")
    (st,) = statements_of("ConvexFiniteRoundConvergence")
    real = pyfed.algorithms.scaffold_run

    def forbidden(*a, **k):
        raise AssertionError("simulated although a hypothesis fails")
    monkeypatch.setattr(pyfed.algorithms, "scaffold_run", forbidden)
    v = decide_montecarlo(st, inst, replicates=4)
    assert v.status == "inconclusive" and v.reason.startswith("hypotheses fail") and "81" in v.reason
    monkeypatch.setattr(pyfed.algorithms, "scaffold_run", real)
    (relaxed,) = statements_of("ConvexFiniteRoundConvergence", relax=("step_size",))
    v = decide_montecarlo(relaxed, inst, replicates=4)
    assert v.status == "inconclusive" and "diverged at round" in v.reason
    assert v.details["diverged"]["round"] <= 400 and "anomaly" in v.details


def test_a_lemma_side_that_cannot_be_evaluated_is_undecided_not_a_crash(monkeypatch):
    """An evaluation error inside a run-free statement's side leaves that candidate undecided, and
    the search inconclusive with the reason."""
    from pyfed.checkers.registry import statements_of
    from pyfed.engines.statement.engines import search_statement
    from pyfed.statements import interpret
    from pyfed.statements.evaluate import EvaluationError

    (st,) = statements_of("SumSquares")
    real = interpret.Interpreter.eval

    def failing(self, node, env):
        if node is st.lhs:
            raise EvaluationError(node, "overflow in the left side")
        return real(self, node, env)
    monkeypatch.setattr(interpret.Interpreter, "eval", failing)
    v = search_statement(st, seed=0, budget=1).verdict
    assert v.status == "inconclusive" and v.details["decided"] == 0 and v.details["undecided"] > 0
    assert "overflow in the left side" in v.reason


def test_cli_check_shows_the_divergence(monkeypatch, capsys):
    import pyfed.algorithms

    def diverging(*a, **k):
        raise Diverged(2, 3e55, threshold=1e50)
    monkeypatch.setattr(pyfed.algorithms, "scaffold_run", diverging)
    code, out, err = _main(["check", "--quick", "--skip-statements"], capsys)
    assert code == EXIT_OK and "diverged at round 2" in out


# ------------------------------------------------------------------------------------------
# item 7: d = 0
# ------------------------------------------------------------------------------------------

def test_dimension_zero_end_to_end():
    from pyfed import theory
    from pyfed.engines.exact import decide_convex, decide_nonconvex
    from pyfed.problems.quadratic import QuadraticProblem
    P = QuadraticProblem(np.zeros((2, 0, 0), dtype=object), np.zeros((2, 0), dtype=object))
    assert P.d == 0 and P.exact and P.beta == 1 and P.mu == 0 and "d = 0" in P.derivations["beta"]
    assert QuadraticProblem(np.zeros((2, 0, 0)), np.zeros((2, 0)), beta=Fr(7)).beta == 7
    with pytest.raises(InputError):
        QuadraticProblem(np.zeros((2, 0, 0)), np.zeros((2, 0)), beta=0)
    C0 = theory.initial_control_error(np.zeros((2, 0)), np.zeros((2, 0)))
    assert type(C0) is Fr and C0 == 0
    assert type(theory.squared_distance([], [])) is Fr
    kw = dict(S=1, K=1, T=3, eta_l=Fr(1, 81), eta_g=1)
    v = decide_convex(P, Fr(1, 2), **kw)
    assert v.status == "holds" and v.exact and v.lhs == 0
    # lhs = 0 (f is constant); rhs: V0 = 0, only the noise term 12 h sigma^2/(K S)(1 + S/eta_g^2) = 2/27
    assert v.rhs == Fr(12, 81) * Fr(1, 4) * 2 == Fr(2, 27)
    w = decide_nonconvex(P, Fr(1, 2), **kw)
    assert w.status == "holds" and w.lhs == 0 and w.rhs == 70 * Fr(1, 81) * Fr(1, 4) * 2


# ------------------------------------------------------------------------------------------
# item 8: exact inputs
# ------------------------------------------------------------------------------------------

def test_exact_engines_accept_rational_strings():
    from pyfed.engines.exact import decide_convex, decide_nonconvex, scaffold_run_moments
    from pyfed.engines.tightness import default_instance
    P = default_instance(0)
    eta_l = 1 / (162 * P.beta)
    a = decide_convex(P, Fr(1, 2), S=2, K=2, T=3, eta_l=eta_l, eta_g=1)
    b = decide_convex(P, "1/2", S=2, K=2, T=3, eta_l=str(eta_l), eta_g="1", mu="0")
    c = decide_convex(P, "1/2", S=2, K=2, T=3, eta_l=str(eta_l), eta_g="1")
    assert b.exact and (c.lhs, c.rhs) == (a.lhs, a.rhs) and isinstance(b.lhs, Fr)
    n = decide_nonconvex(P, "1/2", S=2, K=2, T=3, eta_l=str(eta_l), eta_g="1")
    assert n.exact and n.lhs == decide_nonconvex(P, Fr(1, 2), S=2, K=2, T=3, eta_l=eta_l, eta_g=1).lhs
    m = scaffold_run_moments(P, "1/2", S=2, K=2, T=2, eta_l=str(eta_l), eta_g="1", c0=np.zeros((4, 2), dtype=object))
    assert m.exact


def test_sigma_squared_keeps_the_right_side_exact():
    import sympy
    from flint import arb, fmpq

    from pyfed.engines.exact import decide_convex, fedavg_moments
    from pyfed.engines.tightness import default_instance
    from pyfed.exact import precision
    from pyfed.theory import convex_rhs, noise_term, nonconvex_rhs
    kw = dict(dist_sq=1, C0=1, N=2, S=1, K=1, T=2, eta_l=1, eta_g=1, mu=0)
    r = convex_rhs(sigma_sq=2, **kw)
    assert isinstance(r, Fr) and r == Fr(19, 2) + 12 * 2 * 2          # noise 12 h sigma^2/(KS)(1+S/eta_g^2)
    assert convex_rhs(sigma=sympy.sqrt(2), **kw) == r                  # symbolic sigma: the same value
    assert noise_term(12, S=1, K=1, eta_g=1, h=1, sigma_sq=2) == 48
    assert nonconvex_rhs(f_gap=1, beta=1, S=1, K=1, T=1, eta_l=1, eta_g=1, sigma_sq=2) == 14 + 70 * 2 * 2
    for bad in (dict(sigma=1, sigma_sq=1), {}):
        with pytest.raises(InputError):
            convex_rhs(**kw, **bad)
    P = default_instance(0)
    dk = dict(S=2, K=2, T=3, eta_l=1 / (162 * P.beta), eta_g=1)
    ex = decide_convex(P, sigma_sq=2, **dk)
    assert ex.exact and isinstance(ex.lhs, Fr) and isinstance(ex.rhs, Fr) and "exact rational" in ex.details["arithmetic"]
    irr = decide_convex(P, sympy.sqrt(2), **dk)                        # sigma = sqrt 2: certified balls
    assert "ball" in irr.details["arithmetic"]
    with precision(400):
        for side in ("lhs", "rhs"):
            f = getattr(ex, side)
            assert irr.balls[side].contains(arb(fmpq(f.numerator, f.denominator)))
    assert fedavg_moments(P, sigma_sq="2", S=2, K=1, T=2, eta_l=dk["eta_l"], eta_g=1).exact
    with pytest.raises(InputError):
        fedavg_moments(P, 1, sigma_sq=2, S=2, K=1, T=2, eta_l=dk["eta_l"], eta_g=1)


# ------------------------------------------------------------------------------------------
# item 9: feedback
# ------------------------------------------------------------------------------------------

def test_quick_check_does_less_work_than_the_full_check(monkeypatch):
    """--quick: T = 8 rounds (40 in full) and smaller search budgets (2 random draws per statement
    of the default report instead of 8; 8 per statement of a file instead of 24), passed to every
    statement's search in catalogue order; the timing ratio itself is measured in
    benchmarks/bench_check.py, not in a timed test."""
    from types import SimpleNamespace

    from pyfed.check import default_budget
    from pyfed.checkers.registry import catalogue
    from pyfed.engines.statement import engines
    from pyfed.search import default_statement_budget, run_all
    from pyfed.suites.scaffold import default_suite
    from pyfed.verdicts import Inconclusive

    assert {i.T for i in default_suite(quick=True)} == {8} and {i.T for i in default_suite()} == {40}
    assert default_statement_budget(True) == 2 < default_statement_budget() == 8
    assert default_budget(True) == 8 < default_budget(False) == 24
    calls = []

    def fake(st, *, seed, budget, **kw):
        calls.append((st.name, budget))
        return SimpleNamespace(verdict=Inconclusive(st.name, reason="not searched in this test"))
    monkeypatch.setattr(engines, "search_statement", fake)
    seen = []
    out = run_all(seed=0, quick=True, progress=seen.append)
    assert seen == [e.display for e in catalogue()] == [name for name, _ in out]
    assert calls and {b for _, b in calls} == {2}


def test_search_budget_unit_is_reported(tmp_path):
    """One budget unit = one random draw; the structured cases come on top, and the summary says
    so (issue 9: --budget 1 gave 9 counterexamples without explanation)."""
    from pyfed.engines.statement.lemma_instances import STRUCTURED
    from pyfed.search import search_to_dir, summary_path
    assert search_to_dir("YoungInner", seed=1, budget=1, out=str(tmp_path)) == []
    s = json.loads(Path(summary_path(str(tmp_path), "YoungInner", 1, 1)).read_text())
    st = s["statistics"]
    assert s["budget"] == 1 and "random draws" in s["budget_unit"] and "structured" in s["budget_unit"]
    assert st["drawn"] == st["candidates"] >= STRUCTURED + 1 and st["violated"] == 0
    paths = search_to_dir("YoungInner", seed=1, budget=1, out=str(tmp_path / "m"), mutate="u_constant_halved")
    s = json.loads(Path(summary_path(str(tmp_path / "m"), "YoungInner", 1, 1, (), "u_constant_halved")).read_text())
    assert s["statistics"]["violated"] == len(paths) == s["counterexamples"] == 1     # one witness per conjunct


def test_search_writes_a_summary_without_counterexamples(tmp_path, capsys):
    code, out, err = _main(["search", "ConvexFiniteRoundConvergence", "--budget", "1", "--out", str(tmp_path)],
                           capsys)
    assert code == EXIT_OK
    files = os.listdir(tmp_path)
    assert files == ["ConvexFiniteRoundConvergence-s0-b1-summary.json"]
    s = json.loads((tmp_path / files[0]).read_text())
    assert s["statement"] == "ConvexFiniteRoundConvergence" and s["seed"] == 0 and s["budget"] == 1
    assert s["counterexamples"] == 0 and s["counterexample_files"] == []
    st = s["statistics"]
    assert st["drawn"] > 0 and st["candidates"] == st["decided"] + st["outside_hypotheses"] + st["undecided"]
    assert st["decided"] == st["holds"] + st["violated"] and st["violated"] == 0
    t = s["tightest"]
    lhs, rhs = Fr(t["lhs"]), Fr(t["rhs"])                       # full exact values in the export
    assert 0 <= lhs <= rhs
    from pyfed.checkers.registry import statements_of
    from pyfed.engines.statement.engines import recheck_statement
    (stmt,) = statements_of("ConvexFiniteRoundConvergence")
    v = recheck_statement(stmt, {"instance": t["instance"]})
    assert v.status == "holds" and (v.lhs, v.rhs) == (lhs, rhs)     # re-checks to the same numbers
    assert "summary written to" in out
    # same seed and budget: byte-identical summary
    before = (tmp_path / files[0]).read_bytes()
    assert _main(["search", "ConvexFiniteRoundConvergence", "--budget", "1", "--out", str(tmp_path)], capsys)[0] == 0
    assert (tmp_path / files[0]).read_bytes() == before


def test_search_counterexample_to_the_statement_itself_is_exit_1(tmp_path, monkeypatch, capsys):
    """A counterexample to the real statement is a violated verdict (exit 1); with --mutate or
    --relax it is the expected outcome (exit 0)."""
    from pyfed.checkers import registry
    real = registry.statements_of
    # a false YoungInner: its catalogue text read with the constant halved, as if the file said so
    monkeypatch.setattr(registry, "statements_of",
                        lambda name, mutate=None, relax=(): real(name, mutate=mutate or "u_constant_halved",
                                                                 relax=relax))
    code, out, err = _main(["search", "YoungInner", "--budget", "1", "--out", str(tmp_path)], capsys)
    assert code == EXIT_VIOLATED and "counterexample(s) to SCAFFOLD.YoungInner" in out
    assert json.loads((tmp_path / "YoungInner-s0-b1-summary.json").read_text())["counterexamples"] > 0
    monkeypatch.undo()
    code, out, err = _main(["search", "YoungInner", "--budget", "1", "--mutate", "u_constant_halved",
                            "--out", str(tmp_path / "m")], capsys)
    assert code == EXIT_OK and "1 counterexample(s)" in out


def test_tightness_and_drift_report_progress(tmp_path):
    from pyfed.engines.tightness import default_instance, tightness_sweep
    from pyfed.lean import drift
    labels = []
    res = tightness_sweep(default_instance(0), Fr(1, 2), S=2, K=2, T=3, mu=0, multiples=[1, 1024], bisect=2,
                          progress=labels.append)
    assert len(labels) == len(res.points) == 4 and sum("bisection" in x for x in labels) == 2
    steps = []
    drift.check_drift(points=2, progress=steps.append)
    assert len(steps) > 10 and any("convexRHS" in s for s in steps)


def test_lean_drift_writes_nothing(tmp_path, capsys):
    import shutil
    lean = tmp_path / "lean"
    shutil.copytree(ROOT / "lean", lean)
    before = {p: p.read_bytes() for p in lean.rglob("*") if p.is_file()}
    gen = lean / "PyfedTest" / "Generated" / "ExactValues.lean"
    gen.write_text(gen.read_text(encoding="utf-8") + "\n-- stale\n", encoding="utf-8")
    before[gen] = gen.read_bytes()
    code, out, err = _main(["lean", "--drift", "--out", str(lean)], capsys)
    assert code == EXIT_OK and "agree" in out
    after = {p: p.read_bytes() for p in lean.rglob("*") if p.is_file()}
    assert after == before                          # nothing rewritten, nothing added
    code, out, err = _main(["lean", "--check", "--out", str(lean)], capsys)
    assert code == EXIT_CHECK_FAILED and "ExactValues.lean" in err


def test_worst_case_full_grid_legend_is_unambiguous():
    import matplotlib.pyplot as plt

    from pyfed.commands.worst_case import FULL_GRID, _figure
    from pyfed.engines.pep import WorstCaseResult
    results = []
    for K in FULL_GRID["Ks"]:
        for mu in FULL_GRID["mus"]:
            for T in FULL_GRID["Ts"]:
                for m in (1, 81):
                    r = WorstCaseResult("scaffold", 0.5, 1, 1, 0.5, "X", "optimal", 0.0)
                    r.parameters.update(m=m, K=K, mu=str(mu), T=T)
                    results.append(r)
    fig = _figure(results, 2)
    try:
        ax = fig.axes[0]
        series = [ln for ln in ax.get_lines() if ln.get_label().startswith("K=")]
        assert len(series) == 18
        styles = {(ln.get_color(), ln.get_marker(), ln.get_linestyle()) for ln in series}
        assert len(styles) == 18                   # every series distinguishable without colour alone
        assert "marker: mu" in ax.get_legend().get_title().get_text()
    finally:
        plt.close(fig)


def test_quick_report_has_floats_beside_exact_numbers_and_no_giant_fractions(tmp_path, capsys):
    from pyfed.exact import REPORT_EXACT_CHARS
    out = tmp_path / "quick.json"
    code, _, err = _main(["check", "--quick", "--json", str(out)], capsys)
    assert code == EXIT_OK, err
    report = json.loads(out.read_text())
    quad = next(v for v in report["verdicts"] if v["details"]["instance"].startswith("quadratic"))
    d = quad["details"]
    for key in ("dist_sq", "C0"):
        assert isinstance(d[key]["float"], float) and ("exact" in d[key] or "decimal" in d[key])
    for key in ("first", "noise"):
        assert isinstance(d["rhs_terms"][key]["float"], float)

    def walk(o):
        if isinstance(o, dict):
            if isinstance(o.get("exact"), str):     # an exact number (not the verdict's exact flag)
                assert "float" in o, o
                assert len(o["exact"]) <= REPORT_EXACT_CHARS
            for x in o.values():
                walk(x)
        elif isinstance(o, list):
            for x in o:
                walk(x)
        elif isinstance(o, float):
            assert np.isfinite(o)
    walk(report)
    assert max(len(s) for s in _strings(report)) < 400


# ------------------------------------------------------------------------------------------
# README: the tables this issue asks for
# ------------------------------------------------------------------------------------------

def test_readme_documents_errors_budget_sigma_sq_and_divergence():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    bad = text.split("## Bad input", 1)[1].split("\n## ", 1)[0]
    for flag in ("--json", "--out", "--budget", "--seed", "--replicates"):
        assert flag in bad, flag
    assert "random draw" in text and "sigma_sq" in text and "diverged at round" in text
    assert "DIVERGENCE_THRESHOLD" in text
