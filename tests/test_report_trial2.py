"""Trial 2 report fixes: a step-size constant whose violation persists at smaller steps is not
given a threshold (3), no-closed-form notes are compact and never cut mid-number (9), a vacuous
statement gets only its vacuity note (10), and the ratio of a Monte Carlo estimate has no more
significant digits than the printed estimate (15)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from rich.console import Console

from pyfed.cli import main
from pyfed.commands.render import render_profile, render_verdicts
from pyfed.engines.statement import instance_from_json, instance_to_json, recheck
from pyfed.engines.statement import PERSIST_HALVINGS, constant_profile, literals
from pyfed.engines.statement.constants import _compact_expr, _solve_side
from pyfed.exact import estimate_digits, format_estimate, format_estimate_ratio
from pyfed.statements import read_file, read_text
from pyfed.statements.evaluate import Undecided

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "statements"


def _text(con) -> str:
    return " ".join(con.export_text().split())


# ---------------------------------------------------------------- 3. violations that persist at smaller steps

@pytest.fixture(scope="module")
def no_noise_profile():
    (st,) = read_file(EXAMPLES / "convex_no_noise.lean")
    key = next(lit.key for lit in literals(st) if lit.key.startswith("step_size:81"))
    return st, constant_profile(st, seed=0, budget=0, only=[key])


def test_step_constant_of_an_already_violated_statement_has_no_threshold(no_noise_profile):
    st, prof = no_noise_profile
    assert prof["violated"] is not None
    (c,) = prof["constants"]
    assert c["needed"] is None and c["needed_display"] is None and c["excludes_violation"] is False
    assert c["violated_at_own_value"] is True
    assert c["note"] == "no value excludes the violations drawn (they persist at smaller steps)"
    assert c["excludes_violation_reason"] == ("the pinning violation (boundary 81) is still violated, and admitted "
                                              "beyond that boundary, with eta_l halved 1 to 3 times")
    assert "iff the constant is" not in c["statement"]
    # the claim, by hand: the pinning instance with its step divided by 2^3 is still violated and
    # satisfies the statement's own step hypothesis with 81 replaced by 8 * 81
    inst = instance_from_json(c["pinned_by"]["instance"])
    inst.eta_l = Fraction(inst.eta_l) / 2 ** PERSIST_HALVINGS
    assert recheck(st, {"instance": instance_to_json(inst)}).status == "violated"
    h = inst.K * Fraction(inst.eta_l) * Fraction(inst.eta_g)
    assert h <= 1 / (8 * 81 * Fraction(inst.problem.beta))


def test_render_says_no_value_excludes_persistent_violations(no_noise_profile):
    _, prof = no_noise_profile
    con = Console(record=True, width=300)
    render_profile(con, prof)
    text = _text(con)
    assert "no value excludes the violations drawn (they persist at smaller steps)" in text
    assert "> 81" not in text


def test_real_step_threshold_is_kept():
    """The seed statement: gradient descent diverges for h > 2/beta, a violation that vanishes at
    half the step, so 81's threshold 1/2 stays (and says it excludes the violations)."""
    (st,) = read_file(EXAMPLES / "seed_convex.lean")
    key = next(lit.key for lit in literals(st) if lit.key.startswith("step_size:81"))
    (c,) = constant_profile(st, seed=0, budget=1, only=[key])["constants"]
    assert c["needed"] == "1/2" and c["excludes_violation"] is True and not c["violated_at_own_value"]
    assert "iff the constant is > 1/2; the statement has 81" in c["statement"]


# ---------------------------------------------------------------- 9. compact expressions

def test_no_closed_form_note_is_compact():
    c = sympy.Symbol("c")
    expr = (sympy.Integer(710440501680448312373867446272) * sympy.Max(0, sympy.Min(sympy.Rational(2, 27), sympy.sqrt(c)))
            - 1721376484959835301)
    assert _compact_expr(expr, c) == "~7.10441e+29*Max(0,Min(0.0740741,c**0.5))-1.72138e+18"
    with pytest.raises(Undecided) as exc:
        _solve_side(expr, c, Fraction(2), "rhs")
    assert str(exc.value) == ("no closed-form threshold for the constant in "
                              "~7.10441e+29*Max(0,Min(0.0740741,c**0.5))-1.72138e+18")
    # too long even rounded: the functions it applies, never a number cut off
    long = sympy.Max(0, sympy.Min(sympy.Rational(1, 3), sympy.sqrt(c))) + sum(c ** k / (k + 7) for k in range(2, 12))
    assert _compact_expr(long, c) == "an expression in c with Max, Min, sqrt"


def test_min_max_sqrt_profile_rows_are_short():
    text = (EXAMPLES / "seed_convex.lean").read_text(encoding="utf-8")
    rhs = ("max (min (convexRHS P S K T ηl ηg μ c0 xstar) (Real.sqrt 2 * P.σ ^ 2))\n"
           "        (Real.sqrt (initialPotential P S (effectiveStep K ηl ηg) c0 xstar) / (T : ℝ))")
    (st,) = read_text(text.replace("convexRHS P S K T ηl ηg μ c0 xstar", rhs, 1), "minmax.lean")
    key = next(lit.key for lit in literals(st) if lit.key.startswith("rhs:2@"))
    (c,) = constant_profile(st, seed=0, budget=0, only=[key])["constants"]
    assert c["note"].startswith("not determined on ") and "no closed-form threshold for the constant in ~" in c["note"]
    assert len(c["note"]) < 200 and c["note"].endswith(")")


# ---------------------------------------------------------------- 10. vacuous statements

VACUOUS_HYPS = "effectiveStep K ηl ηg ≤ 1 / (81 * P.β) →"


def test_vacuous_statement_prints_only_its_note(tmp_path, capsys):
    text = (EXAMPLES / "seed_convex.lean").read_text(encoding="utf-8")
    assert VACUOUS_HYPS in text
    path = tmp_path / "vac.lean"
    path.write_text(text.replace(VACUOUS_HYPS, VACUOUS_HYPS + " ηl < ηg → ηg < ηl →", 1), encoding="utf-8")
    rep = tmp_path / "r.json"
    assert main(["check", str(path), "--quick", "--budget", "1", "--json", str(rep)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("vacuous: the linear hypotheses `ηg < ηl` and `ηl < ηg` have no common solution (Fourier–Motzkin "
            "elimination over the reals), so the hypotheses can never hold") in out
    for leftover in ("all met", "constant profile", "no PEP row", "adversarial search", "inconclusive"):
        assert leftover not in out.replace("0 inconclusive", "")
    assert "0 holds (0 certified, 0 numerical), 0 violated, 0 inconclusive; 1 vacuous (hypotheses never hold)" in out
    doc = json.loads(rep.read_text(encoding="utf-8"))
    (entry,) = doc["statements"]
    assert doc["verdicts"] == [] and entry["verdicts"] == [] and entry["vacuous"] is True and entry["profile"] is None
    assert entry["pep"] == "no PEP row: the statement is vacuous" and entry["status"] == "inconclusive"


def test_check_statement_of_a_vacuous_statement_runs_nothing():
    from pyfed.check import check_statement
    text = (EXAMPLES / "seed_convex.lean").read_text(encoding="utf-8")
    (st,) = read_text(text.replace(VACUOUS_HYPS, VACUOUS_HYPS + " ηl ≤ 0 →", 1), "v.lean")
    rep = check_statement(st, quick=True, budget=1)
    assert rep.verdicts == [] and rep.search is None and rep.profile is None and not rep.no_instance
    assert rep.vacuous == "no value of ηl satisfies `0 < ηl` and `ηl ≤ 0`"


# ---------------------------------------------------------------- 15. ratio digits of an estimate

@pytest.mark.parametrize("mean, hw, ratio, shown", [
    (0.3, 41.0, 0.2596, "-"),                   # prints 0 ± 41: no significant digit
    (-2.0, 950.0, 0.000377, "-"),
    (0.511315, 0.000152, 0.98765432, "0.9877"),  # 4 digits printed: 4 digits of ratio
    (12.3, 1.5, 0.5123, "0.51"),                 # 12 ± 1.5: two
    (0.5, 0.24, 0.004954, "0.005"),              # 0.5 ± 0.24: one
    (0.2, 0.0, 0.123456, "0.1235"),              # no interval: the usual 4 digits
    (1.0, 1.0, None, "-"),
])
def test_ratio_of_an_estimate_keeps_its_digits(mean, hw, ratio, shown):
    assert format_estimate_ratio(ratio, mean, hw) == shown


def test_estimate_digits_match_the_printed_mean():
    assert (format_estimate(0.3, 41.0), estimate_digits(0.3, 41.0)) == ("0 ± 41", 0)
    assert (format_estimate(120.4, 13.0), estimate_digits(120.4, 13.0)) == ("120 ± 13", 2)
    assert (format_estimate(2.41e-5, 1.5e-6), estimate_digits(2.41e-5, 1.5e-6)) == ("(2.4 ± 0.15)e-05", 2)
    assert estimate_digits(1.0, 0.0) is None


def test_verdict_table_prints_a_dash_for_a_ratio_without_digits():
    from pyfed.verdicts import Inconclusive
    est = {"mean": 0.3, "upper": 41.3, "confidence": 0.999, "replicates": 2}
    v = Inconclusive("T", 0.3, Fraction(3, 2), False, {"instance": "mc", "estimate": est, "hypotheses": []},
                     reason="interval contains the right side")
    w = Inconclusive("T", 0.51, Fraction(1), False,
                     {"instance": "mc2", "estimate": {**est, "mean": 0.51, "upper": 0.75}, "hypotheses": []},
                     reason="r")
    con = Console(record=True, width=250)
    render_verdicts(con, [v, w], "t")
    rows = [line for line in con.export_text().splitlines() if "± " in line]
    cells = [[c.strip() for c in line.split("│")] for line in rows]
    assert [(c[3], c[5]) for c in cells] == [("0 ± 41", "-"), ("0.5 ± 0.24", "0.5")]
