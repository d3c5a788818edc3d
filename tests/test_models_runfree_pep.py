"""The run-free PEP row (:mod:`pyfed.models.runfree.pep`): pyfed's three function-class
lemmas and restatements a user would write get certified rows; false variants never hold; a
statement out of reach names the reason; a corrupted certificate fails exact verification."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pyfed.engines.pep.certificate import Certificate, verify_certificate
from pyfed.engines.statement.engines import applicable_engines, engines_for
from pyfed.models.runfree.pep import (LemmaPEPCase, NoLemmaPEP, decide_case, lemma_pep_applies,
                                               lemma_pep_cases, lemma_pep_row)
from pyfed.lean.paths import source_lean_dir
from pyfed import read_file, read_text

HEAD = "import Pyfed\n\nopen SCAFFOLD\n\n"
CLASS = """(f : Space d → ℝ) (β : ℝ) (hβ : 0 < β)
    (hconv : ∀ x y : Space d, f x + inner ℝ (gradient f x) (y - x) ≤ f y)
    (hsmooth : ∀ x y : Space d, ‖gradient f x - gradient f y‖ ≤ β * ‖x - y‖)"""


def _ours(rel: str, name: str):
    (st,) = [s for s in read_file(source_lean_dir() / rel) if s.name.rsplit(".", 1)[-1] == name]
    return st


def _user(body: str):
    (st,) = read_text(HEAD + body, "user.lean")
    return st


COCOERCIVE = f"""theorem Cocoercive {{d : ℕ}} {CLASS} (x y : Space d) :
    ‖gradient f x - gradient f y‖ ^ 2 ≤ 2 * β * (f x - f y - inner ℝ (gradient f y) (x - y)) := by sorry
"""


@pytest.mark.parametrize("rel,name,cases", [
    pytest.param("Pyfed/Scaffold/Theorems.lean", "GradientGrowth", ["P.β=1, N=2"], marks=pytest.mark.slow),
    pytest.param("Pyfed/Scaffold/Theorems.lean", "PerturbedStrongConvexity",
                 ["μ=0, P.β=1, N=2, i=0", "μ=0, P.β=1, N=2, i=1", "μ=1/2, P.β=1, N=2, i=0", "μ=1/2, P.β=1, N=2, i=1"],
                 marks=pytest.mark.slow),
    ("Pyfed/Lemmas/Inequalities.lean", "GradientStepNonexpansive", ["β=1, η=2", "β=1, η=1"]),
])
def test_anchors_get_certified_rows(rel, name, cases):
    st = _ours(rel, name)
    v = lemma_pep_row(st, quick=True)
    assert v.status == "holds" and v.certified and v.label == "holds"
    assert [c["parameters"] for c in v.details["cases"]] == cases
    assert all(c["outcome"] == "certified" for c in v.details["cases"])
    assert applicable_engines(st)["pep"][0] is True
    assert "PEP" in [e.name for e in engines_for(st)[0]]


def test_cocoercivity_certificate_is_the_interpolation_inequality():
    # ‖g_x - g_y‖² - 2(f x - f y - ⟨g_y, x - y⟩) = 2 · I(x, y) with I(x, y) = f y - f x + ⟨g_y, x - y⟩
    # + ½‖g_x - g_y‖² ≤ 0 the interpolation inequality of F_{0,1}: one multiplier 2, Q = 0, slack 0
    (case,) = lemma_pep_cases(_user(COCOERCIVE), quick=True)
    assert case.values == {"β": 1} and not case.squared
    res = decide_case(case)
    assert res["outcome"] == "certified"
    cert = res["certificate"]
    assert sorted(x for x in cert.multipliers if x) == [2]
    assert all(q == 0 for row in cert.Q for q in row) and cert.slack == 0


def test_corrupted_certificate_fails_verification():
    (case,) = lemma_pep_cases(_user(COCOERCIVE), quick=True)
    cert = decide_case(case)["certificate"]
    assert verify_certificate(case.pep, cert).ok
    k = next(i for i, x in enumerate(cert.multipliers) if x)
    lam = list(cert.multipliers)
    lam[k] = Fraction(3, 2)
    bad = verify_certificate(case.pep, Certificate(cert.tau, lam, cert.Q, cert.slack))
    assert not bad.ok and "function value" in bad.reason
    neg = verify_certificate(case.pep, Certificate(cert.tau, [-x for x in cert.multipliers], cert.Q, cert.slack))
    assert not neg.ok and "negative" in neg.reason
    Q = [row[:] for row in cert.Q]
    Q[0][0] = Fraction(1)
    assert not verify_certificate(case.pep, Certificate(cert.tau, cert.multipliers, Q, cert.slack)).ok


def test_user_restatements_certified():
    sts = [_user(COCOERCIVE), _user(f"""theorem StepSquared {{d : ℕ}} {CLASS.replace('f', 'h').replace('(h : ', '(h : ')}
    (η : ℝ) (hη0 : 0 ≤ η) (hη : η ≤ 2 / β) (x y : Space d) :
    ‖x - y - η • (gradient h x - gradient h y)‖ ^ 2 ≤ ‖x - y‖ ^ 2 := by sorry
"""), _user("""theorem StrongMonotone {d : ℕ} (f : Space d → ℝ) (β μ : ℝ) (hμ : 0 ≤ μ) (hβ : μ < β)
    (hconv : ∀ x y : Space d, f x + ⟪gradient f x, y - x⟫_ℝ + μ / 2 * ‖y - x‖ ^ 2 ≤ f y)
    (hsmooth : ∀ x y : Space d, ‖gradient f x - gradient f y‖ ≤ β * ‖x - y‖) (x y : Space d) :
    μ * ‖x - y‖ ^ 2 ≤ ⟪gradient f x - gradient f y, x - y⟫_ℝ := by sorry
"""), _user(f"""theorem GrowthMinimiser {{d : ℕ}} {CLASS}
    (xs : Space d) (hmin : ∀ y : Space d, f xs ≤ f y) (x : Space d) :
    ‖gradient f x‖ ^ 2 ≤ 2 * β * (f x - f xs) := by sorry
"""), _user("""theorem TwoFunctions {d : ℕ} (f g : Space d → ℝ) (β : ℝ) (hβ : 0 < β)
    (hcf : ∀ x y : Space d, f x + inner ℝ (gradient f x) (y - x) ≤ f y)
    (hsf : ∀ x y : Space d, ‖gradient f x - gradient f y‖ ≤ β * ‖x - y‖)
    (hcg : ∀ x y : Space d, g x + inner ℝ (gradient g x) (y - x) ≤ g y)
    (hsg : ∀ x y : Space d, ‖gradient g x - gradient g y‖ ≤ β * ‖x - y‖) (x y : Space d) :
    ‖gradient f x + gradient g x - gradient f y - gradient g y‖ ^ 2 ≤
      4 * β * (f x + g x - f y - g y - ⟪gradient f y + gradient g y, x - y⟫_ℝ) := by sorry
""")]
    want = {"Cocoercive": ["β=1"], "StepSquared": ["β=1, η=2", "β=1, η=1"],
            "StrongMonotone": ["β=1, μ=0", "β=1, μ=1/2"], "GrowthMinimiser": ["β=1"], "TwoFunctions": ["β=1"]}
    for st in sts:
        v = lemma_pep_row(st, quick=True)
        assert v.label == "holds", (st.name, v)
        assert [c["parameters"] for c in v.details["cases"]] == want[st.name]


@pytest.mark.slow
def test_false_variants_never_hold():
    # 2β → β in cocoercivity; the nonexpansive step allowed up to 3/β; GradientGrowth with factor 1
    false = _user(COCOERCIVE.replace("2 * β *", "β *").replace("Cocoercive", "CocoerciveFalse"))
    v = lemma_pep_row(false, quick=True)
    _assert_witness(false, v)
    (case,) = lemma_pep_cases(false, quick=True)
    assert decide_case(case)["certificate"] is None
    v = lemma_pep_row(false, quick=True, witness=False)
    assert v.status == "inconclusive" and "no exact witness (not built)" in v.reason
    long = _user(f"""theorem StepTooLong {{d : ℕ}} {CLASS}
    (η : ℝ) (hη0 : 0 ≤ η) (hη : η ≤ 3 / β) (x y : Space d) :
    ‖x - y - η • (gradient f x - gradient f y)‖ ≤ ‖x - y‖ := by sorry
""")
    v = lemma_pep_row(long, quick=True)
    _assert_witness(long, v)
    assert v.witness["instance"]["η"] == "3"
    outcome = {c["parameters"]: c["outcome"] for c in v.details["cases"]}
    # η = 3 > 2/β fails (a quadratic with curvature 1: |1 - 3| = 2 > 1), η = 3/2 ≤ 2/β holds
    assert outcome == {"β=1, η=3": "positive", "β=1, η=3/2": "certified"}
    gg = _ours("Pyfed/Scaffold/Theorems.lean", "GradientGrowth")
    text = (source_lean_dir() / "Pyfed/Scaffold/Theorems.lean").read_text(encoding="utf-8")
    bad = read_text(text.replace("2 * P.β * (objective", "P.β * (objective"), "gg.lean", theorem="GradientGrowth")[0]
    assert gg.rhs.text != bad.rhs.text
    v = lemma_pep_row(bad, quick=True)
    # no quadratic is fitted to a Problem's clients; the interpolating functions of the class through
    # the worst case are, and they re-check exactly (never holds)
    assert v.status == "violated" and v.details["cases"][0]["outcome"] == "positive"
    assert "realised as a function of the class" in v.details["instance"]
    _assert_witness(bad, v)
    assert {c["family"] for c in v.witness["instance"]["P"]["clients"]} == {"interpolated"}


def _assert_witness(st, v):
    """A violated row's witness re-decides exactly through the run-free search's re-check."""
    assert v.status == "violated" and v.certified
    rec = st.model.recheck(st, v.witness)
    assert rec.status == "violated"


def test_numerical_path_without_certificate():
    # with the certificate search off, the trace-normalised SDP decides: ≈ 0 (holds numerical)
    # on the true statement, > 0 (never holds) on the false one
    (case,) = lemma_pep_cases(_user(COCOERCIVE), quick=True)
    res = decide_case(case, certify=False)
    assert res["outcome"] == "numerical" and abs(res["sup"]) < 1e-6
    false = _user(COCOERCIVE.replace("2 * β *", "β *"))
    (case,) = lemma_pep_cases(false, quick=True)
    res = decide_case(case, certify=False)
    assert res["outcome"] == "positive" and res["sup"] > 0.1


@pytest.mark.parametrize("body,reason", [
    (f"""theorem ProductOut {{d : ℕ}} {CLASS} (x y : Space d) :
    ⟪gradient f x - gradient f y, x - y⟫_ℝ ≤ ‖gradient f x - gradient f y‖ * ‖x - y‖ := by sorry
""", "a product of two non-constant terms"),
    ("""theorem NoConvexity {d : ℕ} (f : Space d → ℝ) (β : ℝ) (hβ : 0 < β)
    (hsmooth : ∀ x y : Space d, ‖gradient f x - gradient f y‖ ≤ β * ‖x - y‖) (x y : Space d) :
    f y ≤ f x + ⟪gradient f x, y - x⟫_ℝ + β / 2 * ‖y - x‖ ^ 2 := by sorry
""", "is not assumed convex"),
    (f"""theorem NormSide {{d : ℕ}} {CLASS} (x y : Space d) :
    ‖gradient f x - gradient f y‖ ≤ β * ‖x - y‖ + f x - f y := by sorry
""", "a norm ‖u‖ without a square"),
    ("""theorem Vectors {d : ℕ} (u v : Space d) : ‖u + v‖ ^ 2 ≤ 2 * ‖u‖ ^ 2 + 2 * ‖v‖ ^ 2 := by sorry
""", "no function of a class"),
])
def test_out_of_reach_names_the_reason(body, reason):
    st = _user(body)
    why = lemma_pep_applies(st)
    assert why is not None and reason in why
    ok, text = applicable_engines(st)["pep"]
    assert not ok and reason in text
    with pytest.raises(NoLemmaPEP):
        lemma_pep_cases(st)


def test_shifted_function_is_unbounded_not_holds():
    st = _user(f"""theorem Shifted {{d : ℕ}} {CLASS} (x : Space d) : 0 ≤ f x := by sorry
""")
    (case,) = lemma_pep_cases(st, quick=True)
    assert isinstance(case, LemmaPEPCase)
    v = lemma_pep_row(st, quick=True, certify=False, witness=False)
    assert v.status == "inconclusive" and "without bound" in v.reason
    # the witness: every point 0, f = x²/2 − 1 (β = 1): f x = -1 < 0
    v = lemma_pep_row(st, quick=True)
    _assert_witness(st, v)
    assert v.witness["instance"]["f"]["c"] == "-1" and v.witness["instance"]["x"] == {"vec": ["0"]}


def test_run_statement_has_no_run_free_row():
    from pyfed.models.scaffold.model import our_statements
    st = next(iter(our_statements().values()))
    with pytest.raises(NoLemmaPEP, match="not run-free"):
        lemma_pep_row(st, quick=True)


@pytest.mark.slow
def test_check_statement_reports_the_row_and_the_reason():
    from pyfed.check import check_statement
    rep = check_statement(_user(COCOERCIVE), quick=True, profile=False, budget=1)
    (row,) = [v for v in rep.verdicts if v.details.get("engine") == "PEP over the function class (run-free)"]
    assert row.label == "holds" and rep.pep_note == ""
    out = _user(f"""theorem ProductOut {{d : ℕ}} {CLASS} (x y : Space d) :
    ⟪gradient f x - gradient f y, x - y⟫_ℝ ≤ ‖gradient f x - gradient f y‖ * ‖x - y‖ := by sorry
""")
    rep = check_statement(out, quick=True, profile=False, budget=1)
    assert rep.pep_note.startswith("no PEP row: ") and "product of two non-constant terms" in rep.pep_note
