"""``pyfed conform ADAPTER`` and ``pyfed check --implementation ADAPTER``: exit statuses (0
conforms, 1 deviates, 2 broken adapter or bad input, one line), the report's words, the JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
ZOO = ROOT / "examples" / "conformance"
DATA = ROOT / "tests" / "data" / "conform" / "adapters.py"


@pytest.mark.slow
def test_reference_conforms_exit_0_and_names_the_statements():
    code, out, err = run_cli(["conform", f"{ZOO / 'reference.py'}:Scaffold", "--option", "II"])
    assert code == 0, err
    assert "conforms to SCAFFOLD option II on all 9 rungs" in out
    assert "SCAFFOLD.ConvexFiniteRoundConvergence" in out and "applies" in out


def test_bug_exit_1_with_the_diagnosis():
    code, out, err = run_cli(["conform", f"{ZOO / 'bug_server_adds_full_control.py'}:Scaffold"])
    assert code == 1 and err == ""
    assert "first deviation" in out and "round 1: server control c deviates" in out
    assert "contradicts: c^r = c^{r-1} + (S/N) Delta c" in out
    assert "likely cause: the server added the clients' full controls" in out
    assert "no statement about it applies" in out


@pytest.mark.slow
def test_flags_override_the_adapter_and_json(tmp_path):
    out_file = tmp_path / "conform.json"
    code, out, err = run_cli(["conform", f"{ZOO / 'reference.py'}:FedAvg", "--mode", "weighted",
                              "--json", str(out_file)])
    assert code == 0, err
    rep = json.loads(out_file.read_text())
    assert rep["schema"] == "pyfed.conform/2" and rep["mode"] == "weighted" and rep["conforms"] is True
    assert [r["status"] for r in rep["rungs"]] == ["conforms"] * 9
    assert all(r["rounds"] == 4 and r["max_error_over_bound"] <= 1 for r in rep["rungs"])
    assert rep["first_deviation"] is None and rep["comparison"]["precision"] == "float64"


def test_deviation_json_has_exact_values(tmp_path):
    out_file = tmp_path / "conform.json"
    code, _, _ = run_cli(["conform", f"{ZOO / 'bug_weights_normalised_within_sample.py'}:FedAvg",
                          "--json", str(out_file)])
    assert code == 1
    d = json.loads(out_file.read_text())["first_deviation"]
    assert d["quantity"] == "aggregation weights" and d["expected"] == ["1/7"] and d["observed"] == [1.0]
    assert d["round"] == 1 and d["sampled"] == [0] and d["rung"] == "S = 1 of N = 4"


def _one_line_error(argv, *words):
    code, out, err = run_cli(argv)
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("pyfed: error: ")
    for w in words:
        assert w in lines[0]
    return lines[0]


def test_broken_adapters_exit_2_one_line():
    _one_line_error(["conform", f"{DATA}:Raises"], "ADAPTER", "round 1 raised ZeroDivisionError")
    _one_line_error(["conform", f"{DATA}:WrongShape"], "ADAPTER", "`c_clients` has shape")
    _one_line_error(["conform", f"{DATA}:ReturnsNaN"], "ADAPTER", "NaN")
    _one_line_error(["conform", f"{DATA.parent / 'import_error.py'}:x"], "ADAPTER", "RuntimeError")
    _one_line_error(["conform", "no/such/file.py:x"], "ADAPTER", "not found")


def test_bad_flags_exit_2_before_the_run(tmp_path):
    _one_line_error(["conform", f"{ZOO / 'reference.py'}:FedAvg", "--option", "I"], "--option", "scaffold only")
    _one_line_error(["conform", f"{ZOO / 'reference.py'}:Scaffold", "--json", str(tmp_path)], "--json", "directory")
    _one_line_error(["conform", f"{ZOO / 'reference.py'}:Scaffold", "--algorithm", "fedsgd"], "--algorithm")


@pytest.mark.slow
def test_check_implementation_runs_the_statements_on_its_trajectories(tmp_path):
    out_file = tmp_path / "check.json"
    code, out, err = run_cli(["check", "--implementation", f"{ZOO / 'reference.py'}:Scaffold", "--replicates", "8",
                              "--json", str(out_file)])
    assert code == 0, err
    assert "ConvexFiniteRoundConvergence" in out and "NonconvexFiniteRoundConvergence" in out
    assert "statements on the implementation's trajectories: 2 holds" in out
    rep = json.loads(out_file.read_text())
    assert [v["statement"] for v in rep["verdicts"]] == ["ConvexFiniteRoundConvergence",
                                                        "NonconvexFiniteRoundConvergence"]
    assert rep["replicates"] == 8 and rep["conformance"]["conforms"] is True


def test_check_implementation_of_a_deviating_code_exit_1():
    code, out, _ = run_cli(["check", "--implementation", f"{ZOO / 'bug_controls_initialised_differently.py'}:Scaffold"])
    assert code == 1 and "none of pyfed's statements is about the runs it produces" in out


@pytest.mark.slow
def test_eta_g_declared_or_detected():
    """FedAvg without a server step: undeclared, it conforms only at eta_g = 1 (exit 1, said so);
    with --eta-g 1 it conforms (exit 0) and the FedAvg statements at eta_g = 1 are listed."""
    adapter = "pyfed.conform.flower:fedavg_equal"
    code, out, err = run_cli(["conform", adapter, "--algorithm", "fedavg", "--mode", "uniform"])
    assert code == 1, err
    assert "conforms to FedAvg (uniform-client mode) with eta_g = 1" in out and "--eta-g 1" in out
    assert "FedAvg.ConvexFedAvgConvergence" in out
    code, out, err = run_cli(["conform", adapter, "--algorithm", "fedavg", "--mode", "uniform", "--eta-g", "1"])
    assert code == 0, err
    assert "conforms to FedAvg (uniform-client mode) with eta_g = 1 on all 9 rungs" in out
    assert "FedAvg.ConvexFedAvgConvergence" in out and "applies" in out


@pytest.mark.slow
def test_precision_and_state_are_reported():
    code, out, _ = run_cli(["conform", f"{ZOO / 'correct_fedavg_float32.py'}:FedAvg", "--mode", "uniform"])
    assert code == 0 and "precision: float32 (detected from the returned arrays)" in out
    code, out, _ = run_cli(["conform", f"{ZOO / 'correct_scaffold_stateful.py'}:Scaffold"])
    assert code == 0 and "the adapter keeps state between calls" in out and "`server_control`" in out


def test_help_has_a_description():
    code, out, _ = run_cli(["conform", "--help"])
    assert code == 0 and "exact law" in out and "--eta-g" in out and "--precision" in out


def test_bad_eta_g_and_precision_exit_2():
    ref = f"{ZOO / 'reference.py'}:FedAvg"
    _one_line_error(["conform", ref, "--eta-g", "0"], "--eta-g", "positive")
    _one_line_error(["conform", ref, "--eta-g", "fast"], "--eta-g", "positive number")
    _one_line_error(["conform", ref, "--precision", "float8"], "--precision")
    _one_line_error(["conform", f"{ZOO / 'reference.py'}:FedAdam", "--eta-g", "1"], "--eta-g", "adaptive")
