"""Drift check: the Lean arithmetic definitions equal pyfed.theory (and fail when either side moves).

Source of the formulas: seed 000 (SCAFFOLD.ConvexFiniteRoundConvergence), lean/Pyfed/Scaffold/
Model.lean and lean/Pyfed/Exact.lean versus pyfed/theory/bounds.py and hypotheses.py.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from pyfed.lean import drift
from pyfed.theory import bounds

LEAN = Path(__file__).resolve().parents[1] / "lean"
MODEL = "Pyfed/Scaffold/Model.lean"
EXACT = "Pyfed/Exact.lean"
THEOREMS = "Pyfed/Scaffold/Theorems.lean"


def _text(rel):
    return (LEAN / rel).read_text(encoding="utf-8")


def test_lean_and_python_agree():
    assert drift.check_drift(LEAN) == []


def test_parsed_bodies_are_the_seed_formulas():
    defs = drift.parse_definitions(LEAN)
    K, eta_l, eta_g, mu, h, r, T = sympy.symbols("K eta_l eta_g mu h r T")
    assert sympy.simplify(defs["effectiveStep"].body - K * eta_l * eta_g) == 0
    assert sympy.simplify(defs["weight"].body - (1 / (1 - mu * h / 2)) ** (r + 1)) == 0
    # W_T for T = 3 and mu = 0 is 3 (uniform weights), for mu h = 1 it is 2 + 4 + 8
    ws = defs["weightSum"].body
    assert ws.subs({T: 3, mu: 0, h: 1}).doit() == 3
    assert ws.subs({T: 3, mu: 1, h: 1}).doit() == 14
    assert defs["roundTime"].body.subs({K: 4, r: 2}) == 4 + 2 * 5
    assert defs["convexRHSQ"].params == ["distSq", "C0", "N", "S", "K", "T", "ηl", "ηg", "μ", "σ"]


def test_constant_81_edited_in_lean_is_detected():
    broken = _text(THEOREMS).replace("1 / (81 * P.β)", "1 / (80 * P.β)")
    assert broken != _text(THEOREMS)
    bad = drift.check_drift(LEAN, points=6, sources={THEOREMS: broken})
    assert any("81" in m.name for m in bad)


def test_lean_model_exponent_edit_is_detected():
    old = "(1 / (1 - μ * h / 2)) ^ (r + 1)"
    assert old in _text(MODEL)
    broken = _text(MODEL).replace(old, "(1 / (1 - μ * h / 2)) ^ r")
    bad = drift.check_drift(LEAN, points=6, sources={MODEL: broken})
    names = {m.name for m in bad}
    assert "weight" in names and "weight vs weightQ" in names


def test_exact_mirror_edit_is_detected():
    old = "12 * effectiveStepQ K ηl ηg * σ ^ 2"
    assert old in _text(EXACT)
    broken = _text(EXACT).replace(old, "13 * effectiveStepQ K ηl ηg * σ ^ 2")
    bad = drift.check_drift(LEAN, points=6, sources={EXACT: broken})
    assert {m.name for m in bad} >= {"convexRHSQ", "convexRHS vs convexRHSQ"}


def test_python_formula_edit_is_detected(monkeypatch):
    def broken_noise(constant, sigma, S, K, eta_g, h, *, exact=None, dps=50):
        (c, sigma, S, K, eta_g, h), _ = bounds.coerce([constant, sigma, S, K, eta_g, h], exact=exact)
        return c * h * sigma**2 / (K * S) * (1 + S / eta_g)       # eta_g instead of eta_g^2
    monkeypatch.setattr(bounds, "noise_term", broken_noise)
    bad = drift.check_drift(LEAN, points=6)
    assert {"convexRHS", "nonconvexRHS"} <= {m.name for m in bad}


def test_python_weight_sum_off_by_one_is_detected(monkeypatch):
    real = bounds.weight_sum
    monkeypatch.setattr(bounds, "weight_sum", lambda T, mu, h, **kw: real(int(T) + 1, mu, h, **kw))
    bad = drift.check_drift(LEAN, points=6)
    assert "weightSum" in {m.name for m in bad}


def test_unsupported_syntax_is_an_error_not_a_pass():
    broken = _text(MODEL).replace("(K : ℝ) * ηl * ηg", "(K : ℝ) * ηl * ηg % 7")
    with pytest.raises(ValueError):
        drift.parse_definitions(LEAN, sources={MODEL: broken})


def test_assert_no_drift_raises_with_message(monkeypatch):
    monkeypatch.setattr(bounds, "effective_step", lambda K, a, b, **kw: Fraction(2) * K * a * b)
    with pytest.raises(drift.DriftError, match="effectiveStep"):
        drift.assert_no_drift(LEAN, points=4)
