"""The resource model (pyfed.resources): limits, estimates, the option a refusal names, huge exact
numbers, and every size option of the README's "Big inputs" table driven end to end: exit 2 within
5 s and under 1 GB of memory, with one line naming the option to lower."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pytest

from pyfed import resources
from pyfed.errors import InputError

ROOT = Path(__file__).resolve().parents[1]


def _options(blamed: dict) -> dict:
    """The options ``resources.blame`` names, without its notes about defaults."""
    return {k: v for k, v in blamed.items() if not k.endswith("_note")}
EXAMPLES = ROOT / "examples" / "statements"


# ------------------------------------------------------------------------------------------
# parsing, formatting, limits
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, value", [("4G", 4e9), ("512M", 512e6), ("1.5GB", 1.5e9), ("2GiB", 2 * 2**30),
                                         ("1000", 1000.0), ("0", 0.0), (" 3 tb ", 3e12)])
def test_parse_memory(text, value):
    assert resources.parse_memory(text) == value


@pytest.mark.parametrize("text, value", [("90", 90.0), ("30m", 1800.0), ("2h", 7200.0), ("1d", 86400.0), ("0", 0.0)])
def test_parse_seconds(text, value):
    assert resources.parse_seconds(text) == value


@pytest.mark.parametrize("bad", ["12x", "-1G", "", "G", "1e9"])
def test_unreadable_limits_name_their_flag(bad):
    with pytest.raises(InputError) as e:
        resources.parse_memory(bad)
    assert e.value.argument == "--max-memory"
    with pytest.raises(InputError) as e:
        resources.parse_seconds(bad + "q")
    assert e.value.argument == "--max-seconds"


def test_formatting():
    assert resources.format_bytes(2.4e12) == "2.4 TB"
    assert resources.format_bytes(764e12) == "764 TB"
    assert resources.format_bytes(3.2e20).endswith("PB")
    assert resources.format_bytes(512) == "512 bytes"
    assert resources.format_seconds(12) == "12 s"
    assert resources.format_seconds(4.5 * 60) == "4.5 min"
    assert resources.format_seconds(3 * 3600) == "3 h"
    assert resources.format_seconds(41 * 86400) == "41 days"
    assert resources.format_seconds(1e9) == "32 years"


def test_limits_from_args_defaults_and_zero_means_none(monkeypatch):
    monkeypatch.setattr(resources, "available_memory", lambda: 10e9)
    lim = resources.limits_from_args(SimpleNamespace(max_memory=None, max_seconds=None))
    assert lim.memory == pytest.approx(8e9) and lim.seconds == resources.DEFAULT_SECONDS
    assert "80% of the 10 GB available" in lim.memory_source
    lim = resources.limits_from_args(SimpleNamespace(max_memory="0", max_seconds="0"))
    assert lim.memory == math.inf and lim.seconds == math.inf
    lim = resources.limits_from_args(SimpleNamespace(max_memory="1G", max_seconds="1m"))
    assert (lim.memory, lim.seconds, lim.memory_source) == (1e9, 60.0, "--max-memory")


def test_available_memory_is_positive_here():
    m = resources.available_memory()
    assert m is None or m > 0


# ------------------------------------------------------------------------------------------
# costs and refusals
# ------------------------------------------------------------------------------------------

def test_costs_in_sequence_take_the_larger_peak_and_the_sum_of_times():
    a, b = resources.Cost(3.0, 10.0, "a"), resources.Cost(5.0, 1.0, "b")
    c = a + b
    assert (c.memory, c.seconds, c.what) == (5.0, 11.0, "a; b")


def test_refusal_names_the_option_the_estimate_and_the_limit():
    lim = resources.Limits(1e9, 60.0, "--max-memory", "--max-seconds")
    with pytest.raises(InputError) as e:
        resources.refuse_if_over(resources.Cost(2.4e12, 1.0, "the runs"), lim, "--replicates")
    assert e.value.argument == "--replicates"
    assert str(e.value) == ("--replicates: needs an estimated 2.4 TB of memory (the runs), above the limit of 1 GB "
                            "(--max-memory); lower --replicates")
    with pytest.raises(InputError) as e:
        resources.refuse_if_over(resources.Cost(1e6, 7200.0), lim, {"memory": "--d", "seconds": "--T"})
    assert str(e.value) == "--T: needs an estimated 2 h, above the limit of 60 s (--max-seconds); lower --T"
    ok = resources.Cost(1e6, 1.0)
    assert resources.refuse_if_over(ok, lim, "--x") is ok


def test_blame_names_the_option_whose_default_lowers_the_estimate_most():
    def est(**kw):
        return resources.exact_sweep(kw["--N"], kw["--d"], kw["--K"], kw["--T"], 21)
    defaults = {"--N": 4, "--d": 2, "--K": 2, "--T": 10}
    assert resources.blame(est, {**defaults, "--d": 10**8}, defaults) == {"memory": "--d", "seconds": "--d"}
    assert resources.blame(est, {**defaults, "--T": 10**6}, defaults)["seconds"] == "--T"
    # several options set: the one with the larger effect
    assert resources.blame(est, {**defaults, "--N": 8, "--T": 10**6}, defaults)["seconds"] == "--T"
    # nothing beyond the defaults: the option whose halving helps most (d enters as d^3 and (N d)^2)
    assert resources.blame(est, dict(defaults), defaults) == {"memory": "--d", "seconds": "--d",
                                                              "memory_note": " (now 2, its default)",
                                                              "seconds_note": " (now 2, its default)"}


def test_a_limit_message_says_when_the_option_to_lower_was_left_at_its_default():
    limits = resources.Limits(memory=1, seconds=10**9, memory_source="--max-memory", seconds_source="default")
    option = {"memory": "--budget", "seconds": "--budget", "memory_note": " (now 24, its default)"}
    with pytest.raises(InputError) as info:
        resources.refuse_if_over(resources.Cost(memory=2, seconds=1), limits, option)
    assert info.value.argument == "--budget" and str(info.value).endswith("lower --budget (now 24, its default)")


def test_simulation_cost_follows_its_formula():
    run = resources.Run(R=100, N=10, S=5, d=30, K=5, T=40, batch=8, touched=10, rows=569)
    c = resources.simulation(run)
    R, N, S, d, K, T = 100, 10, 5, 30, 5, 40
    mem = resources.BASE_BYTES + resources.BLOCK_BYTES + 8 * R * ((T + 1) * d + T * (S + 1) + resources.STATE_COPIES * N * d)
    sec = (resources.SECONDS_PER_GRADIENT_ENTRY * R * T * K * N * d * 8
           + resources.SECONDS_PER_EVAL_ENTRY * R * T * (N * d + 569 * d))
    assert c.memory == pytest.approx(mem) and c.seconds == pytest.approx(sec)
    # linear in R beyond the fixed part
    c2 = resources.simulation(resources.Run(R=200, N=10, S=5, d=30, K=5, T=40, batch=8, touched=10, rows=569))
    fixed = resources.BASE_BYTES + resources.BLOCK_BYTES
    assert (c2.memory - fixed) == pytest.approx(2 * (c.memory - fixed)) and c2.seconds == pytest.approx(2 * c.seconds)


def test_integers_beyond_the_float_range_are_huge_not_an_error():
    c = resources.exact_sweep(4, 10**400, 2, 10, 21)
    assert c.memory >= 1e30 and c.seconds >= 1e30 and math.isfinite(c.memory)
    assert resources.statement_search("YoungInner", 10**400).memory >= 1e15
    assert math.isfinite(resources.pep_sweep(10**400, {"multiples": (1,), "mus": (0,), "Ks": (3,), "Ts": (4,)}).seconds)


def test_default_suite_sizes_match_the_suites():
    """The sizes the model assumes for pyfed check's Monte Carlo instances are those of pyfed.suites."""
    from pyfed.suites.fedavg import fedavg_suite
    from pyfed.suites.scaffold import default_suite

    g = resources.SUITE_DATA
    for quick in (True, False):
        T = 8 if quick else 40
        for inst in default_suite(quick=quick)[1:]:
            p = inst.problem
            assert (p.N, p.d, inst.S, inst.K, inst.T, inst.oracle.b, p.X.shape[0]) == \
                (g["N"], g["d"], g["S"], g["K"], T, g["b"], g["rows"])
        mc = [i for i in fedavg_suite(quick=quick) if not i.exact]
        assert len(mc) == 1
        i = mc[0]
        assert (i.problem.N, i.problem.d, i.tau, i.T, i.oracle.b) == (g["N"], g["d"], g["tau"], T, g["b"])
        runs = resources.default_suite_runs(256, quick)
        assert {r.T for r in runs[:4]} == {T}


def test_dataset_shapes_match_the_bundled_data():
    from pyfed.data import load_dataset

    for name, (n, p, C) in resources.DATASET_SHAPES.items():
        X, y = load_dataset(name)[:2]
        assert X.shape == (n, p) and len(set(y.tolist())) == C


def test_default_runs_fit_in_their_default_limits():
    """The default sizes of every command are within the default time limit (with room)."""
    from pyfed.commands.worst_case import FULL_GRID
    from pyfed.experiments.heterogeneity import default_config

    assert resources.default_suite(256, False).seconds < resources.DEFAULT_SECONDS / 10
    assert resources.pep_sweep(2, FULL_GRID).seconds < resources.DEFAULT_SECONDS / 10
    assert resources.exact_sweep(4, 2, 2, 10, 21).seconds < 60
    assert resources.experiment(default_config()).seconds < resources.DEFAULT_SECONDS
    assert resources.experiment(default_config()).memory < 4e9


# ------------------------------------------------------------------------------------------
# huge exact numbers
# ------------------------------------------------------------------------------------------

def test_numerals_and_powers_beyond_the_limit_are_refused():
    resources.check_numeral("1", "", resources.MAX_NUMERAL_DIGITS - 1)
    with pytest.raises(resources.HugeNumber) as e:
        resources.check_numeral("1", "", 1_000_000)
    assert e.value.digits == 1_000_001 and "1,000,001 decimal digits" in e.value.reason
    with pytest.raises(resources.HugeNumber):
        resources.check_numeral("1", "5", -2000)       # 1.5e-2000: a 2001-digit denominator
    resources.check_power(Fraction(10), 999)
    with pytest.raises(resources.HugeNumber):
        resources.check_power(Fraction(10), 1001)
    with pytest.raises(resources.HugeNumber):
        resources.check_power(Fraction(1, 10), 1001)    # the denominator counts
    resources.check_power(None, resources.MAX_EXPONENT)
    with pytest.raises(resources.HugeNumber) as e:
        resources.check_power(None, 10**6)
    assert "exponent 1,000,000" in e.value.reason
    resources.check_power(Fraction(1), 10**9)           # 1 ^ n has one digit
    resources.check_power(Fraction(0), 10**9)


# ------------------------------------------------------------------------------------------
# big inputs, end to end (README, "Big inputs")
# ------------------------------------------------------------------------------------------

#: One fresh process runs ``pyfed.cli.main`` (the console script's entry point) on each argv of
#: ``argv_json`` in turn, in directory ``cwd_json[i]``, and prints per command: its exit status,
#: stdout, stderr, the CPU seconds it took (this process's and any child's) and the process's peak
#: memory after it (a high-water mark, so it bounds every command so far). The imports are paid once
#: for all commands instead of once per command.
_BATCH = ("import contextlib, io, json, os, resource, sys\n"
          "from pyfed.cli import main\n"
          "def cpu():\n"
          "    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)\n"
          "    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime\n"
          "res = []\n"
          "for argv, cwd in zip(json.loads(sys.argv[1]), json.loads(sys.argv[2])):\n"
          "    os.chdir(cwd)\n"
          "    out, err = io.StringIO(), io.StringIO()\n"
          "    t = cpu()\n"
          "    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
          "        rc = main(argv)\n"
          "    res.append({'rc': rc, 'cpu_seconds': cpu() - t, 'stderr': err.getvalue(), 'stdout': out.getvalue(),\n"
          "                'maxrss_kb': max(resource.getrusage(w).ru_maxrss for w in\n"
          "                                 (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))})\n"
          "print(json.dumps(res))\n")


def _huge_lean(tmp_path) -> Path:
    text = (EXAMPLES / "seed_convex.lean").read_text(encoding="utf-8")
    text = text.replace("1 / (81 * P.β)", "1 / (10 ^ 1000000 * P.β)", 1)
    assert "10 ^ 1000000" in text
    path = tmp_path / "huge.lean"
    path.write_text(text, encoding="utf-8")
    return path


#: (argv, option named, text in the message): one row of README's "Big inputs" table each.
BIG_INPUTS = [
    (["check", "--replicates", "1000000000"], "--replicates", "of memory"),
    (["check", "--budget", "1000000000"], "--budget", "of memory"),
    (["check", "{seed_convex}", "--budget", "1000000000"], "--budget", "of memory"),
    (["check", "{seed_convex}", "--replicates", "1000000000"], "--replicates", "of memory"),
    (["search", "YoungInner", "--budget", "1000000000", "--out", "{tmp}"], "--budget", "of memory"),
    (["tightness", "--N", "1000000000", "--out", "{tmp}"], "--N", "of memory"),
    (["tightness", "--d", "100000000", "--out", "{tmp}"], "--d", "of memory"),
    (["tightness", "--K", "1000000000", "--out", "{tmp}"], "--K", "of memory"),
    (["tightness", "--T", "1000000000", "--out", "{tmp}"], "--T", "needs an estimated"),
    (["worst-case", "--clients", "1000", "--out", "{tmp}"], "--clients", "of memory"),
    (["experiment", "--seeds", "1000000000", "--out", "{tmp}"], "--seeds", "of memory"),
    (["experiment", "--cap", "1000000000", "--out", "{tmp}"], "--cap", "of memory"),
    (["experiment", "--epochs", "1000000", "--out", "{tmp}"], "--epochs", "needs an estimated"),
    (["check", "{huge}"], "{huge}", "unsupported power `10 ^ 1000000`: its exact value has about 1,000,000 decimal digits"),
]


def _substitutions(tmp_path) -> dict:
    return {"{seed_convex}": str(EXAMPLES / "seed_convex.lean"), "{tmp}": str(tmp_path / "out"),
            "{huge}": str(tmp_path / "huge.lean")}


@pytest.fixture(scope="module")
def big_input_runs(tmp_path_factory):
    """Every row of BIG_INPUTS run by ``pyfed`` in one fresh process (see _BATCH), each in its own
    directory: ``{row index: (directory, result)}``."""
    dirs = [tmp_path_factory.mktemp("big-input") for _ in BIG_INPUTS]
    argvs = []
    for (argv, _, _), d in zip(BIG_INPUTS, dirs):
        if "{huge}" in argv:
            _huge_lean(d)
        subs = _substitutions(d)
        argvs.append([subs.get(a, a) for a in argv])
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    proc = subprocess.run([sys.executable, "-c", _BATCH, json.dumps(argvs), json.dumps([str(d) for d in dirs])],
                          capture_output=True, text=True, env=env, timeout=300, cwd=dirs[0])
    assert proc.returncode == 0, proc.stderr[-3000:]
    return dict(enumerate(zip(dirs, json.loads(proc.stdout))))


@pytest.mark.slow
@pytest.mark.parametrize("row", range(len(BIG_INPUTS)), ids=[" ".join(a[:3]) for a, _, _ in BIG_INPUTS])
def test_big_input_is_refused_in_seconds_with_little_memory(row, big_input_runs):
    argv, option, text = BIG_INPUTS[row]
    tmp_path, res = big_input_runs[row]
    option = _substitutions(tmp_path).get(option, option)
    lines = res["stderr"].strip().splitlines()
    assert res["rc"] == 2, res["stderr"]
    assert len(lines) == 1 and lines[0].startswith(f"pyfed: error: {option}"), lines
    assert text in lines[0]
    if option.startswith("--"):
        assert lines[0].endswith(f"lower {option}")
    # a guard against doing the work (or hanging), not a speed target: CPU seconds of the command, which
    # a busy machine does not inflate the way it inflates wall time (the imports are paid before it)
    assert res["cpu_seconds"] < 10, res["cpu_seconds"]
    assert res["maxrss_kb"] * 1024 < 1e9, res["maxrss_kb"]
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_readme_lists_every_big_input():
    readme = (ROOT / "docs" / "reference" / "bad-input.md").read_text(encoding="utf-8")
    table = readme.split("## Big inputs", 1)[1].split("\n## ", 1)[0]
    for argv, option, _ in BIG_INPUTS:
        words = [a for a in argv if not a.startswith("{")]
        flag = next((a for a in words if a.startswith("--") and a != "--out"), None)
        if flag:
            assert f"`{flag}" in table or f"{flag} " in table, flag
    assert "10 ^ 1000000" in table and "--max-memory" in table and "--max-seconds" in table


def test_cost_check_runs_before_any_work(monkeypatch):
    """A refused size never reaches the long work (the suite is never run)."""
    import pyfed.check
    from cli_helpers import run_cli

    def never(**kw):
        raise AssertionError("run_check was called")

    monkeypatch.setattr(pyfed.check, "run_check", never)
    code, out, err = run_cli(["check", "--replicates", "1000", "--max-seconds", "1", "--skip-statements"])
    assert code == 2 and err.startswith("pyfed: error: --replicates: needs an estimated ")
    assert "above the limit of 1 s (--max-seconds); lower --replicates" in err


def test_out_of_memory_is_exit_2_one_line(monkeypatch):
    import pyfed.check
    from cli_helpers import run_cli

    def oom(**kw):
        raise MemoryError

    monkeypatch.setattr(pyfed.check, "run_check", oom)
    code, out, err = run_cli(["check", "--skip-statements"])
    assert code == 2
    assert err.strip().splitlines() == [err.strip()] and err.startswith("pyfed: error: memory: ")


def test_generous_limits_let_a_run_through(monkeypatch):
    import pyfed.check
    from cli_helpers import run_cli
    from pyfed.verdicts import Holds

    monkeypatch.setattr(pyfed.check, "run_check", lambda **kw: [Holds("S", Fraction(1), Fraction(2), True,
                                                                      {"instance": "i"})])
    code, out, err = run_cli(["check", "--replicates", "1000000000", "--max-memory", "0", "--max-seconds", "0",
                              "--skip-statements"])
    assert code == 0 and "1 holds" in out and re.search(r"pyfed check", out)


def test_blame_with_every_option_at_its_default_names_the_one_whose_halving_helps_most():
    from pyfed.resources import Cost, blame

    def estimate(**kw):      # seconds dominated by the budget, memory by the replicates
        return Cost(100.0 * kw["--replicates"] + kw["--budget"], 1.0 * kw["--replicates"] + 50.0 * kw["--budget"])

    defaults = {"--replicates": 256, "--budget": 24}
    assert _options(blame(estimate, dict(defaults), defaults)) == {"memory": "--replicates", "seconds": "--budget"}
    # an option given by the user away from its default is the one blamed when resetting it helps
    assert blame(estimate, {"--replicates": 10 ** 6, "--budget": 24}, defaults)["seconds"] == "--replicates"


def test_a_file_without_monte_carlo_costs_the_same_for_any_replicates():
    # run-free statements: no built-in instance, so R does not enter the estimate or its description
    a, b = resources.statement_file(48, 256, 0, False), resources.statement_file(48, 10 ** 6, 0, False)
    assert (a.memory, a.seconds) == (b.memory, b.seconds)
    assert "Monte Carlo with" not in a.what and "no Monte Carlo instance applies" in a.what
    # with one statement about a run, R matters
    assert resources.statement_file(48, 10 ** 6, 1, False).memory > resources.statement_file(48, 256, 1, False).memory


def test_blame_never_names_an_option_that_does_not_change_the_estimate():
    from pyfed.resources import Cost, blame

    def estimate(**kw):      # --replicates has no effect (a run-free file)
        return Cost(1000.0 + kw["--budget"], 1.0 + kw["--budget"])

    defaults = {"--replicates": 256, "--budget": 24}
    assert _options(blame(estimate, dict(defaults), defaults)) == {"memory": "--budget", "seconds": "--budget"}
    # a user's --replicates below its default is not blamed either: resetting it lowers nothing
    assert _options(blame(estimate, {"--replicates": 3, "--budget": 24}, defaults)) == {"memory": "--budget",
                                                                              "seconds": "--budget"}


def test_check_of_a_run_free_file_blames_the_budget_not_the_replicates(tmp_path):
    from cli_helpers import run_cli
    f = tmp_path / "young.lean"
    f.write_text("import Pyfed\n\nnamespace SCAFFOLD.Mine\n\n"
                 "theorem T {d : ℕ} (u v : Space d) (a : ℝ) (ha : 0 < a) :\n"
                 "    ‖u + v‖ ^ 2 ≤ (1 + a) * ‖u‖ ^ 2 + (1 + a⁻¹) * ‖v‖ ^ 2 := by sorry\n\n"
                 "end SCAFFOLD.Mine\n", encoding="utf-8")
    code, out, err = run_cli(["check", str(f), "--max-memory", "1K"])
    assert code == 2 and out == ""
    assert err.startswith("pyfed: error: --budget: ") and "replicates" not in err and "Monte Carlo with" not in err
