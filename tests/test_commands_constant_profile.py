"""The ``pyfed profile`` front end (pyfed.commands.constant_profile): bad input refused in one line (exit 2)
before any solve; the two-sided profile of the seed's convex statement printed, in the JSON and
plotted; the same seed gives a byte-identical JSON."""

import json
from fractions import Fraction

import pytest

from pyfed.models.scaffold.two_sided import resolve_constants
from pyfed.commands.constant_profile import interval_line, parse_values, resolve_statement
from pyfed.errors import EXIT_INPUT, EXIT_OK, InputError

from cli_helpers import forbid, one_error_line, run_main

CONVEX = "ConvexFiniteRoundConvergence"


def test_parse_values():
    assert parse_values("2,3, 5") == [2, 3, 5]
    for bad in ("", "2,,3", "2,x", "0", "2,2", "1.5", "-1"):
        with pytest.raises(InputError, match="--values"):
            parse_values(bad)


def test_constants_by_key_value_or_model_name():
    st, _text, _src = resolve_statement(CONVEX)
    assert resolve_constants(st, []) == ["convexRHS.potential=9", "convexRHS.noise=12", "step_size:81@36:34",
                                         "mu_h:15@37:44"]
    assert resolve_constants(st, ["9", "noise", "81", "convexRHS.potential=9"]) == \
        ["convexRHS.potential=9", "convexRHS.noise=12", "step_size:81@36:34"]
    with pytest.raises(InputError, match="not a constant"):
        resolve_constants(st, ["7"])


@pytest.mark.parametrize("argv, argument", [
    (["profile", CONVEX, "--constant", "7"], "--constant"),
    (["profile", CONVEX, "--values", "2,0"], "--values"),
    (["profile", CONVEX, "--values", "2,x"], "--values"),
    (["profile", CONVEX, "--parameter", "T", "--values", "4,20"], "--values"),   # N·K·T = 80 > 60
    (["profile", CONVEX, "--mu", "-1"], "--mu"),
    (["profile", CONVEX, "--seed", "-1"], "--seed"),
    (["profile", CONVEX, "--budget", "0"], "--budget"),
    (["profile", "NoSuchTheorem"], "NAME|PATH.lean"),
    (["profile", "NonconvexFiniteRoundConvergence"], "NAME|PATH.lean"),   # no Convexity: no PEP row
    (["profile", "FedAvg.ConvexFedAvgConvergence"], "NAME|PATH.lean"),    # not a SCAFFOLD run
    (["profile", "FiniteRoundConvergence"], "--theorem"),                 # a conjunction: pick one
    (["profile", CONVEX, "--parameter", "S"], "--parameter"),
])
def test_bad_input_is_one_line_exit_2_before_any_solve(argv, argument, tmp_path, capsys, monkeypatch):
    forbid(monkeypatch, "pyfed.models.scaffold.two_sided", "profile_statement")
    code, out, err = run_main(argv + ["--out", str(tmp_path / "o")], capsys)
    assert code == EXIT_INPUT
    one_error_line(err, argument)
    assert not (tmp_path / "o").exists() or argument == "--parameter"


def test_missing_out_is_refused(capsys, monkeypatch):
    forbid(monkeypatch, "pyfed.models.scaffold.two_sided", "profile_statement")
    code, _out, err = run_main(["profile", CONVEX], capsys)
    assert code == EXIT_INPUT
    one_error_line(err, "--out")


def test_interval_line_wording():
    """The printed interval: the PEP row's witnesses and certificates at its own parameters first
    (one two-sided interval), the search's threshold (rounded down, 'violated below') apart and
    labelled as the search's own parameters, a half-line of certificates only for a monotone right
    side, points otherwise, and the PEP's silence on a constant that σ = 0 removes."""
    prm = {"N": "2", "K": "2", "T": "5", "mu": "0"}
    c = {"constant": "12", "description": "12 in convexRHS",
         "search": {"needed": "1456/10000", "needed_inner": "0.1456", "direction": "at least", "strict": False,
                    "not_needed": False, "decided": 18, "pinned_index": 81, "seed": 0, "budget": 4}}
    pep = {"applies": True, "kind": "rhs", "monotone": True, "direction": "at least", "certified_from": "3/4",
           "largest_witness": None, "not_certified_at": None, "parameters": prm}
    line = interval_line(c, {"value": 5, "pep": pep}, "T")
    assert line == ("12: at N = 2, K = 2, T = 5, S = N, σ = 0: certified at 3/4 and above (PEP certificate), no exact "
                    "witness at these parameters; on the search's own instances (other σ, S and sizes: not comparable "
                    "with the values above): violated below 0.1456 (witness #81, seed 0, budget 4)")
    line = interval_line(c, {"value": 5, "pep": {**pep, "largest_witness": "1/2"}}, "T")
    assert line.startswith("12: at N = 2, K = 2, T = 5, S = N, σ = 0: violated at 1/2 and below (exact witness), certified at "
                           "3/4 and above (PEP certificate)")
    line = interval_line(c, {"value": 5, "pep": {**pep, "monotone": False, "certified_points": ["3/4", "1"]}}, "T")
    assert "certified at these points: 3/4, 1" in line and "and above" not in line
    line = interval_line(c, {"value": 5, "pep": {**pep, "applies": False, "reason": "absent at σ = 0"}}, "T")
    assert "the PEP cannot speak to it (absent at σ = 0" in line


@pytest.mark.slow
def test_convex_statement_profile_printed_json_plot_and_reproducible(tmp_path, capsys):
    """The seed's convex statement at N = K = T = 2: the 9 is violated below 0.0275221 on the
    search's instances (seed 0, budget 1) and certified at 9/4 and above; the PEP cannot speak to
    the 12 (absent at σ = 0). Same seed twice: byte-identical JSON."""
    argv = ["profile", CONVEX, "--constant", "9", "--constant", "12", "--halvings", "2", "--refine", "0",
            "--budget", "1", "--seed", "0"]
    code, out, err = run_main(argv + ["--out", str(tmp_path / "a")], capsys)
    assert code == EXIT_OK, err
    lines = out.splitlines()
    # the PEP row's interval at its own parameters first; the search's threshold apart, as its own instances'
    assert any(x.startswith("9: at N = 2, K = 2, T = 2, S = N, σ = 0: certified at 9/4 and above (PEP certificate)")
               and "on the search's own instances" in x and "violated below 0.0275221 (witness #" in x
               for x in lines), out
    assert any(x.startswith("12: the PEP cannot speak to it") and "violated below 0.145622" in x for x in lines), out
    data = json.loads((tmp_path / "a" / "profile.json").read_text())
    nine = data["constants"][0]
    assert nine["key"] == "convexRHS.potential=9"
    pep = nine["points"][0]["pep"]
    assert pep["certified_from"] == "9/4" and pep["monotone"] is True and pep["rhs_at_sigma0"]["gamma"] == "c/162"
    assert Fraction(nine["search"]["needed"]) < Fraction(pep["certified_from"])
    assert data["constants"][1]["points"][0]["pep"]["applies"] is False
    assert (tmp_path / "a" / "profile-convexRHS.potential=9.png").stat().st_size > 1000
    code, _out, err = run_main(argv + ["--out", str(tmp_path / "b")], capsys)
    assert code == EXIT_OK, err
    assert (tmp_path / "a" / "profile.json").read_bytes() == (tmp_path / "b" / "profile.json").read_bytes()


@pytest.mark.slow
def test_step_constant_profile_points_and_a_too_small_constant(tmp_path, capsys):
    """The 81 of h ≤ 1/(81β) (PEP side only): certified at 81, 81/2, ..., 81/128, each at its
    largest step only (no half-line claimed); 81/256 (h = 256/81 > 2/β) gets no certificate but an
    exact witness; no value has both, and every witness lies below every certified point."""
    code, out, err = run_main(["profile", CONVEX, "--constant", "81", "--halvings", "8", "--refine", "0",
                               "--no-search", "--out", str(tmp_path)], capsys)
    assert code == EXIT_OK, err
    pep = json.loads((tmp_path / "profile.json").read_text())["constants"][0]["points"][0]["pep"]
    assert pep["kind"] == "hypothesis" and pep["monotone"] is False
    assert "81/128" in pep["certified_points"] and "81" in pep["certified_points"]
    assert pep["witness_points"] == ["81/256"] and pep["largest_witness"] == "81/256"
    assert not set(pep["certified_points"]) & set(pep["witness_points"])
    assert max(map(Fraction, pep["witness_points"])) < min(map(Fraction, pep["certified_points"]))
    assert ("81: at N = 2, K = 2, T = 2, S = N, σ = 0: violated at 81/256 (exact witness), certified at these points: "
            "81/128, 81/64, 81/32, 81/16 (+4 more) (PEP certificate; each at the largest step it admits only)") in out, out
    assert "and above" not in out


#: The seed's convex statement without its noise term, with S = N and K = 3 pinned: false (σ > 0,
#: x0 = x⋆, c0 = ∇fᵢ(x⋆): right side 0, left side > 0), whatever the potential's constant 9.
NO_NOISE_PINNED = """import Pyfed
open MeasureTheory
namespace SCAFFOLD.Mine
universe u
theorem ConvexPinnedNoNoise :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d),
    S = N → K = 3 →
    Convexity P μ → IsMinimizer P xstar → 0 < ηl → 1 ≤ ηg →
    effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →
    μ * effectiveStep K ηl ηg ≤ (S : ℝ) / (15 * (N : ℝ)) →
    ∀ A : Run P ν S K T ηl ηg (some c0),
      weightedGap A xstar μ ≤
        initialPotential P S (effectiveStep K ηl ηg) c0 xstar /
          (effectiveStep K ηl ηg * weightSum μ (effectiveStep K ηl ηg) T) := by sorry
end SCAFFOLD.Mine
"""


@pytest.mark.slow
def test_a_statement_violated_at_its_own_constants_says_so_before_exit_1(tmp_path, capsys):
    f = tmp_path / "pinned.lean"
    f.write_text(NO_NOISE_PINNED, encoding="utf-8")
    # the PEP row's default K = 2 fails the pin: the message names the options that set its sizes
    code, out, err = run_main(["profile", str(f), "--out", str(tmp_path / "x")], capsys)
    assert code == EXIT_INPUT and err.strip().endswith("set the PEP row's sizes with --N, --K, --T")
    code, out, err = run_main(["profile", str(f), "--K", "3", "--constant", "9", "--halvings", "1", "--refine", "0",
                               "--budget", "1", "--out", str(tmp_path / "a")], capsys)
    assert code == 1, err
    lines = out.splitlines()
    assert lines[1].startswith("ConvexPinnedNoNoise is violated at its own constants (candidate #")
    nine = next(x for x in lines if x.startswith("9: "))
    assert "no value of it excludes the violations drawn" in nine and "hold for every value" not in nine
    data = json.loads((tmp_path / "a" / "profile.json").read_text())
    assert data["violated_at_own_value"] is True and "index" in data["own_violation"]
