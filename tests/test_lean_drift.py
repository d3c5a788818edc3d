"""Drift check: the Lean arithmetic definitions equal pyfed.theory (and fail when either side moves).

Source of the formulas: seed 000 (SCAFFOLD.ConvexFiniteRoundConvergence), lean/Pyfed/Scaffold/
Model.lean and lean/Pyfed/Exact.lean versus pyfed/theory/bounds.py and hypotheses.py; the FedAvg
right sides and their ℚ mirrors (lean/Pyfed/FedAvg/Model.lean, Exact.lean) versus
pyfed.theory.fedavg.
"""

from __future__ import annotations

import types
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from pyfed.lean import drift
from pyfed.theory import bounds
from pyfed.theory import fedavg as th

LEAN = Path(__file__).resolve().parents[1] / "lean"
MODEL = "Pyfed/Scaffold/Model.lean"
EXACT = "Pyfed/Exact.lean"
THEOREMS = "Pyfed/Scaffold/Theorems.lean"
FEDAVG_MODEL = "Pyfed/FedAvg/Model.lean"
FEDAVG_THEOREMS = "Pyfed/FedAvg/Theorems.lean"


def _text(rel):
    return (LEAN / rel).read_text(encoding="utf-8")


@pytest.mark.slow
def test_lean_and_python_agree():
    assert drift.check_drift(LEAN) == []


def test_parsed_bodies_are_the_seed_formulas():
    defs = drift.parse_definitions(LEAN)
    K, eta_l, eta_g, mu, h, r, T = sympy.symbols("K eta_l eta_g mu h r T")
    assert sympy.simplify(defs["effectiveStep"].body - K * eta_l * eta_g) == 0
    assert sympy.simplify(defs["weight"].body - (1 / (1 - mu * h / 2)) ** (r + 1)) == 0
    assert defs["initialPotential"].params == ["P", "S", "h", "c0", "xstar"]
    assert defs["convexRHS"].params == ["P", "S", "K", "T", "ηl", "ηg", "μ", "c0", "xstar"]
    assert defs["nonconvexRHS"].params == ["P", "S", "K", "T", "ηl", "ηg", "fLower"]
    # W_T for T = 3 and mu = 0 is 3 (uniform weights), for mu h = 1 it is 2 + 4 + 8
    ws = defs["weightSum"].body
    assert ws.subs({T: 3, mu: 0, h: 1}).doit() == 3
    assert ws.subs({T: 3, mu: 1, h: 1}).doit() == 14
    assert defs["roundTime"].body.subs({K: 4, r: 2}) == 4 + 2 * 5
    assert defs["convexRHSQ"].params == ["distSq", "C0", "N", "S", "K", "T", "ηl", "ηg", "μ", "σ"]


@pytest.mark.slow
def test_constant_81_edited_in_lean_is_detected():
    broken = _text(THEOREMS).replace("1 / (81 * P.β)", "1 / (80 * P.β)")
    assert broken != _text(THEOREMS)
    bad = drift.check_drift(LEAN, points=6, sources={THEOREMS: broken})
    assert any("81" in m.name for m in bad)


@pytest.mark.slow
def test_lean_model_exponent_edit_is_detected():
    old = "(1 - μ * h / 2)⁻¹ ^ (r + 1)"
    assert old in _text(MODEL)
    broken = _text(MODEL).replace(old, "(1 - μ * h / 2)⁻¹ ^ r")
    bad = drift.check_drift(LEAN, points=6, sources={MODEL: broken})
    names = {m.name for m in bad}
    assert "weight" in names and "weight vs weightQ" in names


@pytest.mark.slow
def test_exact_mirror_edit_is_detected():
    old = "12 * effectiveStepQ K ηl ηg * σ ^ 2"
    assert old in _text(EXACT)
    broken = _text(EXACT).replace(old, "13 * effectiveStepQ K ηl ηg * σ ^ 2")
    bad = drift.check_drift(LEAN, points=6, sources={EXACT: broken})
    assert {m.name for m in bad} >= {"convexRHSQ", "convexRHS vs convexRHSQ"}


@pytest.mark.slow
def test_python_formula_edit_is_detected(monkeypatch):
    def broken_noise(constant, sigma, S, K, eta_g, h, *, exact=None, dps=50):
        (c, sigma, S, K, eta_g, h), _ = bounds.coerce([constant, sigma, S, K, eta_g, h], exact=exact)
        return c * h * sigma**2 / (K * S) * (1 + S / eta_g)       # eta_g instead of eta_g^2
    monkeypatch.setattr(bounds, "noise_term", broken_noise)
    bad = drift.check_drift(LEAN, points=6)
    assert {"convexRHS", "nonconvexRHS"} <= {m.name for m in bad}


@pytest.mark.slow
def test_python_weight_sum_off_by_one_is_detected(monkeypatch):
    real = bounds.weight_sum
    monkeypatch.setattr(bounds, "weight_sum", lambda T, mu, h, **kw: real(int(T) + 1, mu, h, **kw))
    bad = drift.check_drift(LEAN, points=6)
    assert "weightSum" in {m.name for m in bad}


def test_unsupported_syntax_is_an_error_not_a_pass():
    broken = _text(MODEL).replace("(K : ℝ) * ηl * ηg", "(K : ℝ) * ηl * ηg % 7")
    with pytest.raises(ValueError):
        drift.parse_definitions(LEAN, sources={MODEL: broken})


@pytest.mark.slow
def test_assert_no_drift_raises_with_message(monkeypatch):
    monkeypatch.setattr(bounds, "effective_step", lambda K, a, b, **kw: Fraction(2) * K * a * b)
    with pytest.raises(drift.DriftError, match="effectiveStep"):
        drift.assert_no_drift(LEAN, points=4)


def test_let_binding_is_substituted():
    K, eta_l, eta_g, S, sigma = sympy.symbols("K eta_l eta_g S sigma")
    e = drift.parse_expression("let h := K * ηl * ηg\n  h * σ ^ 2 / (S : ℝ)")
    assert sympy.simplify(e - K * eta_l * eta_g * sigma**2 / S) == 0
    e2 = drift.parse_expression("let h := K * ηl; h + h")
    assert sympy.simplify(e2 - 2 * K * eta_l) == 0


@pytest.mark.slow
def test_let_edit_in_lean_is_detected():
    old = "  let h := effectiveStep K ηl ηg\n  14 *"
    assert old in _text(MODEL)
    broken = _text(MODEL).replace(old, "  let h := effectiveStep K ηl (2 * ηg)\n  14 *")
    bad = drift.check_drift(LEAN, points=6, sources={MODEL: broken})
    assert {"nonconvexRHS", "nonconvexRHS vs nonconvexRHSQ"} <= {m.name for m in bad}


def test_fedavg_right_sides_parse_to_the_field_guide_formulas():
    """The FedAvg right sides of lean/Pyfed/FedAvg/Model.lean (Field Guide, Section 6.1.2, PDF
    p. 41: Lemma 2, equations (15)-(17)) parse with the same grammar, to these hand-written
    formulas (D = distance P)."""
    defs = drift.parse_definitions(LEAN, catalog=drift.FEDAVG_ARITHMETIC_DEFS)
    D, L, M, T, tau, eta, sigma, zeta = sympy.symbols("D L M T tau eta sigma zeta", positive=True)
    plain = {s.name: s for s in (D, L, M, T, tau, eta, sigma, zeta)}

    def body(name):
        e = defs[name].body
        return e.xreplace({s: plain[s.name] for s in e.free_symbols if s.name in plain})

    assert defs["driftRHS"].params == ["P", "τ", "η"]
    assert defs["convergenceRHS"].params == ["P", "τ", "T", "η"]
    assert defs["optimizedStep"].params == ["P", "τ", "T"]
    assert defs["optimizedRHS"].params == ["P", "τ", "T"]
    assert sympy.simplify(body("driftRHS") - (18 * tau**2 * eta**2 * zeta**2 + 4 * tau * eta**2 * sigma**2)) == 0
    conv = D**2 / (2 * eta * tau * T) + eta * sigma**2 / M + 4 * tau * eta**2 * L * sigma**2 \
        + 18 * tau**2 * eta**2 * L * zeta**2
    assert sympy.simplify(body("convergenceRHS") - conv) == 0
    third = sympy.Rational(1, 3)
    step = sympy.Min(1 / (4 * L), sympy.sqrt(M) * D / (sympy.sqrt(tau) * sympy.sqrt(T) * sigma),
                     D**(2 * third) / (tau**(2 * third) * T**third * L**third * sigma**(2 * third)),
                     D**(2 * third) / (tau * T**third * L**third * zeta**(2 * third)))
    got = body("optimizedStep")
    pt = {D: 3, L: 2, M: 5, T: 7, tau: 4, sigma: sympy.Rational(1, 2), zeta: sympy.Rational(3, 2)}
    assert abs(sympy.N(got.subs(pt) - step.subs(pt), 40)) < sympy.Float("1e-35")
    rhs = 2 * L * D**2 / (tau * T) + 2 * sigma * D / sympy.sqrt(M * tau * T) \
        + 5 * L**third * sigma**(2 * third) * D**(4 * third) / (tau**third * T**(2 * third)) \
        + 19 * L**third * zeta**(2 * third) * D**(4 * third) / T**(2 * third)
    assert sympy.simplify(body("optimizedRHS") - rhs) == 0


def test_fedavg_constant_edit_changes_the_parse():
    rel = "Pyfed/FedAvg/Model.lean"
    old = "18 * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2 + 4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2"
    assert old in _text(rel)
    broken = _text(rel).replace(old, "1 * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2 + 4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2")
    a = drift.parse_definitions(LEAN, catalog=drift.FEDAVG_ARITHMETIC_DEFS)["driftRHS"].body
    b = drift.parse_definitions(LEAN, catalog=drift.FEDAVG_ARITHMETIC_DEFS, sources={rel: broken})["driftRHS"].body
    assert sympy.simplify(a - b) != 0


def test_function_arity_is_checked():
    with pytest.raises(ValueError, match="Real.sqrt takes 1"):
        drift.parse_expression("Real.sqrt a b")
    with pytest.raises(ValueError, match="min takes 2"):
        drift.parse_expression("min a")


@pytest.mark.slow
def test_drift_reports_progress():
    steps = []
    drift.check_drift(points=2, progress=steps.append)
    assert len(steps) > 10 and any("convexRHS" in s for s in steps)


# ------------------------------------------------------------------------------------------ FedAvg

@pytest.mark.slow
def test_fedavg_definitions_are_in_sync_with_pyfed_theory():
    assert drift.check_fedavg_drift(LEAN, points=12) == []
    # and check_drift runs the FedAvg half by default
    assert drift.check_drift(LEAN, points=4) == []


@pytest.mark.slow
def test_a_changed_lean_constant_is_drift():
    old = "18 * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2 + 4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2"
    assert old in _text(FEDAVG_MODEL)
    broken = _text(FEDAVG_MODEL).replace(old, "17 * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2 + 4 * (τ : ℝ) * η ^ 2 * P.σ ^ 2")
    bad = {m.name for m in drift.check_fedavg_drift(LEAN, points=4, sources={FEDAVG_MODEL: broken})}
    assert {"driftRHS", "driftRHS vs driftRHSQ"} <= bad
    # a cube root turned into a square root in the tuned step
    old = "Real.rpow P.ζ (2 / 3 : ℝ)))))"
    assert old in _text(FEDAVG_MODEL)
    broken = _text(FEDAVG_MODEL).replace(old, "Real.rpow P.ζ (1 / 2 : ℝ)))))")
    bad = {m.name for m in drift.check_fedavg_drift(LEAN, points=4, sources={FEDAVG_MODEL: broken})}
    assert "optimizedStep" in bad


def test_a_changed_mirror_is_drift():
    old = "distSq / (2 * η * (τ : ℚ) * (T : ℚ))"
    assert old in _text(EXACT)
    broken = _text(EXACT).replace(old, "distSq / (η * (τ : ℚ) * (T : ℚ))")
    bad = {m.name for m in drift.check_fedavg_drift(LEAN, points=4, sources={EXACT: broken})}
    assert {"convergenceRHSQ", "convergenceRHS vs convergenceRHSQ"} <= bad


def test_a_changed_python_formula_is_drift():
    patched = types.SimpleNamespace(**{k: getattr(th, k) for k in dir(th) if not k.startswith("__")})
    patched.drift_rhs = lambda tau, eta, **kw: th.drift_rhs(tau, eta, **kw) + (eta**2 if tau else 0)
    bad = {m.name for m in drift.check_fedavg_drift(LEAN, points=4, theory=patched)}
    assert {"driftRHS", "driftRHSQ"} <= bad


@pytest.mark.slow
def test_a_changed_hypothesis_is_drift():
    old = "0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) →\n    ∀ R : Run P μ τ T η, (∫ ω"
    assert old in _text(FEDAVG_THEOREMS)
    broken = _text(FEDAVG_THEOREMS).replace(old, "0 < τ → 0 < T → 0 < η → η ≤ 1 / (2 * P.L) →\n    ∀ R : Run P μ τ T η, (∫ ω")
    bad = {m.name for m in drift.check_fedavg_drift(LEAN, points=4, sources={FEDAVG_THEOREMS: broken})}
    assert bad == {"ConvexFedAvgConvergence hypothesis eta <= 1/(4L)"}
    broken = _text(FEDAVG_THEOREMS).replace("0 < P.σ → 0 < P.ζ →", "0 < P.ζ →")
    bad = {m.name for m in drift.check_fedavg_drift(LEAN, points=4, sources={FEDAVG_THEOREMS: broken})}
    assert bad == {"TunedConvexFedAvgConvergence hypothesis 0 < P.σ"}
