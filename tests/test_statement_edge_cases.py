"""Edge-case statements a formalizer writes, through ``pyfed check PATH.lean``: mixed number types
in min/max/sqrt, Lean's division by zero (μ h = 2), strict inequalities violated with equal sides,
ratios against a right side <= 0, vacuous hypotheses, FedAvg-only files and an unknown
``--theorem``."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy
from flint import arb

from pyfed import theory
from pyfed.cli import main
from pyfed.errors import UndefinedValue
from pyfed import read_file, read_text
from pyfed.statements.evaluate import Valuation, evaluate
from pyfed.statements.vacuity import vacuity

ROOT = Path(__file__).resolve().parent.parent

HEAD = """import Pyfed

open MeasureTheory

namespace SCAFFOLD.Edge

universe u

"""
BINDERS = """{d N : ℕ} (P : Problem d N) {Ω : Type u} [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d)
    (hconv : Convexity P μ) (hmin : IsMinimizer P xstar)"""


def _statement(name, hyps, concl, *, more=""):
    text = (HEAD + f"theorem {name} {BINDERS} {hyps}\n    (A : Run P ν S K T ηl ηg (some c0)) :\n    {concl} := by sorry\n"
            + more + "\nend SCAFFOLD.Edge\n")
    return text


def _read(text, path="edge.lean"):
    (st,) = read_text(text, path)
    return st


def _instance(eta_l, *, sigma=Fraction(1, 2), x0=Fraction(1), c0=Fraction(0)):
    """One client f(x) = x²/2 on R¹ (β = μ = 1, x⋆ = 0), S = K = 1, T = 3, ηg = 1."""
    from pyfed.models.scaffold.instance import RunInstance
    from pyfed.problems.quadratic import QuadraticProblem
    p = QuadraticProblem(np.array([[[Fraction(1)]]], dtype=object), np.array([[Fraction(0)]], dtype=object),
                         beta=Fraction(1), mu=Fraction(1), name="x2")
    return RunInstance(name="edge", problem=p, sigma=sigma, S=1, K=1, T=3, eta_l=Fraction(eta_l), eta_g=Fraction(1),
                       x0=np.array([x0], dtype=object), c0=np.array([[c0]], dtype=object), mu=Fraction(1))


NO_MU_H = _statement("NoMuH", "(hηl : 0 < ηl) (hηg : 1 ≤ ηg)",
                     "weightedGap A xstar μ ≤ convexRHS P S K T ηl ηg μ c0 xstar")


# ---------------------------------------------------------------- 1. mixed number types

MIXED = _statement("Mixed", "(hηl : 0 < ηl) (hηg : 1 ≤ ηg)",
                   "weightedGap A xstar μ ≤ min (Real.sqrt (convexRHS P S K T ηl ηg μ c0 xstar)) "
                   "(max (Real.sqrt 2) P.σ)")


def test_min_max_sqrt_of_a_statement_in_every_arithmetic():
    """convexRHS = 12 on the μ h = 2 instance (see below): min(sqrt 12, max(sqrt 2, 1/2)) = sqrt 2,
    exactly (sympy), in certified balls and in mpmath."""
    from pyfed.models.scaffold.access import FloatAccess, bind
    from pyfed.models.scaffold.exact import decide_exact, sides_exact
    st = _read(MIXED)
    inst = _instance(2)
    lhs, rhs, _ = sides_exact(st, inst)
    assert lhs == 0 and rhs == sympy.sqrt(2)
    v = decide_exact(st, inst, arithmetic="ball")
    assert v.status == "holds" and v.balls["rhs"].overlaps(arb(2).sqrt()) and v.balls["rhs"].rad() < 1e-30
    r = evaluate(st.rhs, bind(st, inst, FloatAccess(inst, exact_scalars=True)))
    assert abs(mpmath.mpf(r) - mpmath.sqrt(2)) < mpmath.mpf(10) ** -40


# ---------------------------------------------------------------- 2. Lean's x / 0 = 0 (μ h = 2)

def test_theory_lean_mode_at_mu_h_two():
    assert theory.weight(0, 1, 2, lean=True) == 0
    assert theory.weights(3, 1, 2, lean=True) == [0, 0, 0]
    assert theory.weight_sum(3, 1, 2, lean=True) == 0
    with pytest.raises(UndefinedValue):
        theory.weight_sum(3, 1, 2)                  # the Python API still refuses it
    kw = dict(dist_sq=1, C0=0, N=1, S=1, K=1, T=3, eta_l=2, eta_g=1, mu=1, sigma=Fraction(1, 2))
    with pytest.raises(UndefinedValue):
        theory.convex_rhs(**kw)
    # Lean: V0 / (h * 0) = 0, only 12 h σ²/(K S) (1 + S/ηg²) = 12 * 2 * 1/4 * 2 = 12 remains
    assert theory.convex_rhs(**kw, lean=True) == Fraction(12)
    # ηl = 0 (a dropped 0 < ηl): h = 0, every term divided by h is Lean's 0
    assert theory.convex_rhs(**dict(kw, eta_l=0), lean=True) == 0
    assert theory.nonconvex_rhs(f_gap=1, beta=1, S=1, K=1, T=2, eta_l=0, eta_g=1, sigma=1, lean=True) == 0
    # irrational μ = h = sqrt 2 (exact sympy): q = 0 exactly, W = 0, no zoo
    r2 = sympy.sqrt(2)
    assert theory.weight_sum(3, r2, r2, exact="symbolic", lean=True) == 0
    assert theory.convex_rhs(**dict(kw, eta_l=r2, mu=r2, sigma=1), exact="symbolic", lean=True) == 24 * r2


def test_statement_without_mu_h_hypothesis_is_evaluated_as_lean_reads_it():
    """μ = 1, h = 2: every weight (1 - μh/2)⁻¹ ^ (r+1) is 0 in Lean, so weightedGap = 0 and the
    right side is its noise term 12, in every engine."""
    from pyfed.models.scaffold.exact import decide_exact, sides_exact
    from pyfed.models.scaffold.montecarlo import decide_montecarlo
    st = _read(NO_MU_H)
    inst = _instance(2)
    lhs, rhs, _ = sides_exact(st, inst)
    assert (lhs, rhs) == (0, 12)
    v = decide_exact(st, inst)
    assert v.status == "holds" and v.lhs == 0 and v.rhs == 12
    vb = decide_exact(st, inst, arithmetic="ball")
    assert vb.status == "holds" and vb.balls["lhs"] == 0 and vb.balls["rhs"].contains(12)
    vm = decide_montecarlo(st, inst, replicates=8)
    assert vm.status == "holds" and vm.details["estimate"]["mean"] == 0 and vm.rhs == 12


# ---------------------------------------------------------------- 3. strict inequalities

STRICT = _statement("StrictNoNoise", "(hηl : 0 < ηl) (hηg : 1 ≤ ηg)",
                    "weightedGap A xstar μ < convexRHS P S K T ηl ηg μ c0 xstar")


def test_strict_inequality_with_equal_sides_says_strict_fails():
    from pyfed.models.scaffold.exact import decide_exact
    from pyfed.verdicts import violation_wording
    assert violation_wording("<", "0", "0", True) == "left side = right side = 0, strict < fails"
    assert violation_wording("≤", "1/2", "-1/6", False) == "left side 1/2 > right side -1/6"
    st = _read(STRICT)
    inst = _instance(Fraction(1, 100), sigma=Fraction(0), x0=Fraction(0), c0=Fraction(0))  # nothing moves
    v = decide_exact(st, inst)
    assert v.status == "violated" and v.lhs == 0 and v.rhs == 0
    assert v.details["witness_text"] == "left side = right side = 0, strict < fails"
    vb = decide_exact(st, inst, arithmetic="ball")
    assert vb.status == "violated" and "strict < fails" in vb.details["witness_text"]
    out = " ".join(_render([v]).split())
    assert "left side = right side = 0, strict < fails" in out and "exceeds" not in out


def test_search_witness_of_a_strict_statement_is_not_worded_exceeds(tmp_path):
    from pyfed.models.scaffold.search import search
    from pyfed.export import counterexample_record, write_statement_counterexample
    st = _read(STRICT)
    res = search(st, seed=0, budget=0, indices=[9])       # x0 = x*, c0 = grad f_i(x*), sigma = 0
    v = res.verdict
    assert v.status == "violated"
    assert v.details["witness_text"] == "left side = right side = 0, strict < fails"
    files = write_statement_counterexample(counterexample_record(st, v, seed=0, budget=0), str(tmp_path), statement=st)
    lean = next(Path(f) for f in files if str(f).endswith(".lean")).read_text(encoding="utf-8")
    assert "exceeds" not in lean and "the strict < fails" in lean and "rhs ≤ lhs" in lean


# ---------------------------------------------------------------- 4. ratio against a right side <= 0

def _render(verdicts):
    from rich.console import Console

    from pyfed.commands.render import render_verdicts
    buf = io.StringIO()
    render_verdicts(Console(file=buf, width=200, color_system=None), verdicts, "t")
    return buf.getvalue()


def test_ratio_is_dash_when_the_right_side_is_not_positive():
    from pyfed.engines.exact.verdict import _inequality_verdict
    from pyfed.verdicts import Holds, Inconclusive, Violated
    v = Violated("S", Fraction(1, 2), Fraction(-1, 6), True, {"instance": "i"})
    assert v.ratio is None and v.to_json()["ratio"] is None
    assert Holds("S", Fraction(0), Fraction(0), True, {"instance": "i"}).ratio is None
    assert Holds("S", Fraction(1), Fraction(4), True, {"instance": "i"}).ratio == Fraction(1, 4)
    # Fraction and mpf sides mix (an mpmath right side against an exact left side)
    assert Holds("S", Fraction(1), mpmath.mpf(4), True, {}).ratio == mpmath.mpf(1) / 4
    # an inconclusive Monte Carlo row against a negative right side
    est = {"mean": 0.5, "lower": -0.1, "upper": 1.1, "confidence": 0.999, "replicates": 64}
    mc = Inconclusive("S", 0.5, Fraction(-1), False, {"instance": "mc", "estimate": est}, reason="straddles")
    assert mc.ratio is None and mc.to_json()["ratio"] is None
    # a ball verdict against a negative ball
    b = _inequality_verdict("S", arb(1), arb(-2), False, {"instance": "ball"}, {}, None, 128)
    assert b.balls["ratio"] is None and b.details["ratio_ball"] is None
    out = _render([v, mc, b])
    for line in out.splitlines():
        if any(name in line for name in ("│ i ", "│ mc ", "│ ball ")):
            cells = [c.strip() for c in line.split("│")]
            assert cells[5] == "-", line            # the ratio column
    assert "-3" not in out and "-0.5" not in out


# ---------------------------------------------------------------- 5. vacuous statements

VACUOUS = _statement("Vacuous", "(hηl : 0 < ηl) (hηl' : ηl ≤ 0) (hηg : 1 ≤ ηg)", "weightedGap A xstar μ ≤ 0")


@pytest.mark.parametrize("hyps, reason", [
    ("(hηl : 0 < ηl) (hηl' : ηl ≤ 0)", "no value of ηl satisfies `0 < ηl` and `ηl ≤ 0`"),
    ("(h1 : (3 : ℝ) < 2)", "the hypothesis `(3 : ℝ) < 2` is false"),
    ("(h1 : (T : ℝ) < 1)", "no value of T satisfies the model's T ≥ 1 and `(T : ℝ) < 1`"),
    ("(h1 : 2 ≤ ηg) (h2 : ηg = 1)", "no value of ηg satisfies `2 ≤ ηg` and `ηg = 1`"),
    ("(h1 : P.β ≤ 0)", "no value of P.β satisfies the model's P.β > 0 and `P.β ≤ 0`"),
    ("(h1 : μ < 0)", "no value of μ satisfies `Convexity P μ` (0 ≤ μ) and `μ < 0`"),
    ("(h1 : 0 < ηl) (h2 : ηl ≤ 1)", None),
    ("(h1 : (T : ℝ) = 1)", None),
    # several parameters at once: Fourier–Motzkin in exact rationals
    ("(h1 : ηl < ηg) (h2 : ηg < ηl)", "the linear hypotheses `ηg < ηl` and `ηl < ηg` have no common solution "
                                      "(Fourier–Motzkin elimination over the reals)"),
    ("(h1 : ηl ≤ ηg) (h2 : ηg ≤ ηl)", None),                           # ηl = ηg satisfies both
    ("(h1 : ηl ≤ ηg) (h2 : ηg < ηl)", "the linear hypotheses `ηg < ηl` and `ηl ≤ ηg` have no common solution "
                                      "(Fourier–Motzkin elimination over the reals)"),
    ("(h1 : ηl + ηg ≤ 1) (h2 : 1 < ηl) (h3 : 0 ≤ ηg)",
     "the linear hypotheses `0 ≤ ηg`, `1 < ηl` and `ηl + ηg ≤ 1` have no common solution "
     "(Fourier–Motzkin elimination over the reals)"),
    ("(h1 : ηl + ηg ≤ 1) (h2 : 1 < ηl)", None),                        # ηg may be negative
    ("(h1 : 2 * ηl = ηg) (h2 : ηg ≤ ηl) (h3 : 0 < ηl)",
     "the linear hypotheses `0 < ηl`, `2 * ηl = ηg` and `ηg ≤ ηl` have no common solution "
     "(Fourier–Motzkin elimination over the reals)"),
    ("(h1 : (S : ℝ) + K ≤ 1)", "the linear hypotheses `(S : ℝ) + K ≤ 1`, the model's K ≥ 1 and "
                               "the model's S ≥ 1 have no common solution (Fourier–Motzkin elimination over the reals)"),
    # non-linear hypotheses are not used for a proof (no claim either way)
    ("(h1 : ηl * ηg < 0) (h2 : 0 < ηl) (h3 : 0 < ηg)", None),
])
def test_vacuity_is_proven_from_the_text(hyps, reason):
    st = _read(_statement("V", hyps, "weightedGap A xstar μ ≤ 0"))
    assert vacuity(st) == reason


def test_vacuous_statement_note_and_json(tmp_path, capsys):
    path = tmp_path / "vacuous.lean"
    path.write_text(VACUOUS, encoding="utf-8")
    rep = tmp_path / "r.json"
    code = main(["check", str(path), "--quick", "--no-profile", "--budget", "1", "--json", str(rep)])
    out = capsys.readouterr().out
    assert code == 0
    assert ("Vacuous: vacuous: no value of ηl satisfies `0 < ηl` and `ηl ≤ 0`, so the hypotheses can never hold"
            in " ".join(out.split()))
    assert "1 vacuous (hypotheses never hold)" in out
    (read,) = json.loads(rep.read_text(encoding="utf-8"))["statements"]
    assert read["vacuous"] is True and read["vacuous_reason"] == "no value of ηl satisfies `0 < ηl` and `ηl ≤ 0`"


# ---------------------------------------------------------------- 6. FedAvg-only files

def test_file_mixing_scaffold_and_fedavg_theorems(tmp_path):
    """Each theorem goes to the builder of its shape (issue 19: FedAvg runs are read too; their
    engines are tested in tests/test_engines_statement_fedavg_engines.py)."""
    fedavg = (ROOT / "lean" / "Pyfed" / "FedAvg" / "Theorems.lean").read_text(encoding="utf-8")
    path = tmp_path / "mixed.lean"
    path.write_text(STRICT + "\n" + fedavg[fedavg.index("namespace FedAvg"):], encoding="utf-8")
    sts = read_file(path)
    assert [(s.name, s.shape) for s in sts] == [("StrictNoNoise", "scaffold_run"), ("PerRoundProgress", "fedavg_run"),
                                                ("BoundedClientDrift", "fedavg_run"),
                                                ("ConvexFedAvgConvergence", "fedavg_run"),
                                                ("TunedConvexFedAvgConvergence", "fedavg_run")]
    (st,) = read_file(path, theorem="StrictNoNoise")
    assert st.name == "StrictNoNoise"


# ---------------------------------------------------------------- 7. unknown --theorem

def test_unknown_theorem_lists_the_available_names(tmp_path, capsys):
    text = _statement("First", "(hηl : 0 < ηl)", "weightedGap A xstar μ ≤ 1",
                      more=f"\ntheorem Second {BINDERS} (hηl : 0 < ηl)\n    (A : Run P ν S K T ηl ηg (some c0)) :\n"
                           "    weightedGap A xstar μ ≤ 2 := by sorry\n")
    path = tmp_path / "two.lean"
    path.write_text(text, encoding="utf-8")
    assert main(["check", str(path), "--theorem", "Third"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "--theorem" in err and "available theorems: First, Second" in err
    assert "pick one with --theorem NAME, e.g. --theorem First" in err
    other = tmp_path / "other.lean"
    other.write_text(VACUOUS, encoding="utf-8")
    assert main(["check", str(path), str(other), "--theorem", "Third"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert f"available theorems: First ({path}), Second ({path}), Vacuous ({other})" in err
    assert "--theorem First," in err


def test_weighted_gap_with_an_irrational_mu_stays_exact():
    """weightedGap A xstar (Real.sqrt 2): the weights (1 - sqrt2 h/2)⁻¹ ^ (r+1) are exact sympy
    numbers, not mpmath (an exact verdict never rests on rounded weights)."""
    from pyfed.models.scaffold.exact import decide_exact, sides_exact
    st = _read(_statement("IrrationalMu", "(hηl : 0 < ηl)", "weightedGap A xstar (Real.sqrt 2) ≤ 1"))
    inst = _instance(Fraction(1, 10), sigma=Fraction(0))
    lhs, rhs, _ = sides_exact(st, inst)
    assert isinstance(lhs, sympy.Basic) and not lhs.is_Rational and not lhs.has(sympy.Float)
    # gradient descent on x²/2 from x0 = 1 with h = 1/10: gaps (9/10)^(2r)/2, q = 1 - sqrt2/20
    q = 1 - sympy.sqrt(2) / 20
    ws = [q ** -(r + 1) for r in range(3)]
    gaps = [sympy.Rational(81, 100) ** r / 2 for r in range(3)]
    assert sympy.simplify(lhs - sum(w * g for w, g in zip(ws, gaps)) / sum(ws)) == 0
    v = decide_exact(st, inst)
    assert v.status == "holds" and v.exact


@pytest.mark.slow
def test_irrational_side_of_an_exact_verdict_carries_a_certified_enclosure(tmp_path):
    # √V₀ / 800 on the exact quadratic instance: the verdict keeps the sympy expression and adds a
    # certified ball whose digits are certified (the trial saw only floats)
    from flint import arb
    text = (ROOT / "examples" / "statements" / "seed_convex.lean").read_text(encoding="utf-8").replace(
        "weightedGap A xstar μ ≤ convexRHS P S K T ηl ηg μ c0 xstar",
        "weightedGap A xstar μ ≤ Real.sqrt (initialPotential P S (effectiveStep K ηl ηg) c0 xstar) / 800")
    path = tmp_path / "sqrt_rhs.lean"
    path.write_text(text, encoding="utf-8")
    rep = tmp_path / "r.json"
    code = main(["check", str(path), "--quick", "--no-profile", "--budget", "1", "--json", str(rep)])
    assert code == 1
    (row,) = [v for v in json.loads(rep.read_text(encoding="utf-8"))["verdicts"]
              if v["details"].get("instance", "").startswith("quadratic-rational")]
    d = row["details"]
    assert d["rhs_exact"].startswith("sqrt(") and d["rhs_exact"].endswith("/13480158665610035774248329842105284479003734691674661641772658078750000000000")
    import sympy
    exact = sympy.sympify(d["rhs_exact"])
    from pyfed.exact import precision
    with precision(256):                                        # parse the printed ball without rounding it
        ball = arb(d["rhs_certified"]["ball"])
        assert ball.contains(arb(str(sympy.N(exact, 70))))      # encloses the exact value (to 70 digits)
        assert ball.rad() < arb("1e-30")
    assert sympy.N(exact, 20).__str__().startswith(d["rhs_certified"]["decimal"][:17])


@pytest.mark.slow
def test_a_statements_own_xstar_is_never_taken_for_the_minimiser():
    # Without `IsMinimizer P xstar` the statement's xstar is a free point. The left side
    # weightedGap A xstar μ is relative to F(xstar), so at a point v it is the gap to the minimiser
    # plus F(x⋆) - F(v); the bound name `xstar` must not pass for the problem's minimiser (the
    # trial saw a false certified violation: left side at x⋆, right side at v).
    from dataclasses import replace as dc_replace

    import numpy as np

    from pyfed.suites.scaffold import default_suite
    from pyfed.models.scaffold.builtin import to_run_instance
    from pyfed.models.scaffold.exact import decide_exact
    seed = (ROOT / "examples" / "statements" / "seed_convex.lean").read_text(encoding="utf-8")
    assert "IsMinimizer P xstar → " in seed
    st = _read(seed.replace("IsMinimizer P xstar → ", ""))
    inst = to_run_instance(default_suite(quick=True)[0])
    p = inst.problem
    xmin = np.asarray(p.x_star_exact, dtype=object)
    far = xmin + Fraction(3)
    at_min = decide_exact(st, dc_replace(inst, free=dict(inst.free or {}, xstar=xmin)))
    at_far = decide_exact(st, dc_replace(inst, free=dict(inst.free or {}, xstar=far)))
    assert at_min.exact and at_far.exact
    assert Fraction(at_far.lhs) == Fraction(at_min.lhs) + Fraction(p.f_star) - Fraction(p.value_exact(far))
    assert Fraction(at_far.lhs) < 0 and at_far.status == "holds"


@pytest.mark.slow
def test_built_in_instances_that_cannot_bind_are_named_with_the_reason(seed_file_check):
    # a free xstar (no IsMinimizer) has no value on the built-in instances: the report says so
    # instead of dropping the rows silently; the other family's instance is not listed
    from pyfed.check import check_statement
    from pyfed.suites.scaffold import default_suite
    seed = (ROOT / "examples" / "statements" / "seed_convex.lean").read_text(encoding="utf-8")
    rep = check_statement(_read(seed.replace("IsMinimizer P xstar → ", "")), quick=True, profile=False, budget=1)
    assert [n for n, _ in rep.skipped] == [i.name for i in default_suite(quick=True)[:2]]
    assert all(w == "no value for the statement's parameter `xstar`" for _, w in rep.skipped)
    # the seed itself binds every built-in instance: check_statement(seed, quick=True, budget=2).skipped == [],
    # as pyfed check seed_convex.lean --quick --budget 2 reports it
    (srep,) = json.loads(seed_file_check[3].read_text(encoding="utf-8"))["statements"]
    assert srep["lean_name"] == "SeedConvex" and srep["instances_skipped"] == []
