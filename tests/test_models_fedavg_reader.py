"""The statement reader on theorems about a FedAvg run (pyfed.models.fedavg.reader, fedavg_terms):
our and the published statements, both binder styles, Lean's name resolution, the user's defs, and
a located error for every construct outside the subset."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from pyfed import ReaderError, read_file, read_text

ROOT = Path(__file__).resolve().parent.parent
THEOREMS = ROOT / "lean" / "Pyfed" / "FedAvg" / "Theorems.lean"
PUBLISHED = ROOT / "lean" / "PyfedPublished" / "FedAvg.lean"

BINDERS = ("∀ (d M : ℕ) (P : Problem d M) (Ω : Type) [MeasurableSpace Ω] [StandardBorelSpace Ω] (μ : Measure Ω) "
           "[IsProbabilityMeasure μ] (τ T : ℕ) (η : ℝ), 0 < τ → 0 < T → 0 < η → η ≤ 1 / (4 * P.L) →")
DRIFT = BINDERS + " ∀ (R : Run P μ τ T η) (t : ℕ), t < T → ∀ k, k ≤ τ → ∀ i, {concl}"
CONVEX = BINDERS + " ∀ R : Run P μ τ T η, {concl}"


def _file(body: str, opens: str = "open MeasureTheory FedAvg", defs: str = "") -> str:
    return f"import Pyfed\n\n{opens}\n\n{defs}\ntheorem X :\n  {body} := by sorry\n"


def _one(text):
    (st,) = read_text(text, "t.lean")
    return st


def _error(text) -> str:
    with pytest.raises(ReaderError) as e:
        read_text(text, "t.lean")
    return str(e.value)


@pytest.mark.parametrize("path", [THEOREMS, PUBLISHED], ids=["ours", "published"])
def test_every_fedavg_theorem_is_read(path):
    sts = read_file(path)
    assert [s.name for s in sts] == ["PerRoundProgress", "BoundedClientDrift", "ConvexFedAvgConvergence",
                                     "TunedConvexFedAvgConvergence"]
    assert all(s.shape == "fedavg_run" and s.family == "FedAvg run" for s in sts)
    prog, drift, conv, tuned = (s.spec for s in sts)
    assert (prog.kind, drift.kind, conv.kind, tuned.kind) == ("conditional", "conditional", "expectation",
                                                              "expectation")
    assert prog.lhs.key() == "condexp(stat[roundLoss](t), t)" and prog.rhs.key() == "stat[progressRHS](t)"
    assert drift.rhs.key() == "fn[driftRHS](τ, η)"
    assert drift.indices == [("t", "nat", "round"), ("k", "nat", "step"), ("i", "client", "client")]
    assert conv.lhs.key() == "integral(stat[avgLoss]())" and conv.rhs.key() == "fn[convergenceRHS](τ, T, η)"
    assert tuned.run_args["eta"].key() == "fn[optimizedStep](τ, T)"
    assert [h.key for h in sts[0].hypotheses] == ["local_steps", "rounds", "eta", "step_size", "round"]
    assert [h.key for h in sts[3].hypotheses] == ["local_steps", "rounds", "distance", "sigma", "zeta"]


def test_published_and_ours_read_to_the_same_terms():
    for a, b in zip(read_file(THEOREMS), read_file(PUBLISHED)):
        assert (a.spec.lhs.key(), a.spec.rhs.key(), [h.text for h in a.hypotheses]) == \
            (b.spec.lhs.key(), b.spec.rhs.key(), [h.text for h in b.hypotheses])


def test_binders_before_the_colon_read_as_after():
    before = ("import Pyfed\nopen MeasureTheory\nnamespace FedAvg\n"
              "theorem Y {d M : ℕ} (P : Problem d M) {Ω : Type*} [MeasurableSpace Ω] [StandardBorelSpace Ω]\n"
              "    (μ : Measure Ω) [IsProbabilityMeasure μ] (τ T : ℕ) (η : ℝ) (hτ : 0 < τ) (hT : 0 < T)\n"
              "    (hη : 0 < η) (hstep : η ≤ 1 / (4 * P.L)) (R : Run P μ τ T η) (t : ℕ) (ht : t < T) (k : ℕ)\n"
              "    (hk : k ≤ τ) (i : Fin M) :\n"
              "    μ[clientDriftSq R t k i | R.history (t * τ)] ≤ᵐ[μ] fun _ => driftRHS P τ η := by sorry\n"
              "end FedAvg\n")
    a = _one(before)
    b = [s for s in read_file(THEOREMS) if s.name == "BoundedClientDrift"][0]
    assert a.spec.lhs.key() == b.spec.lhs.key() and a.spec.rhs.key() == b.spec.rhs.key()
    assert [h.key for h in a.hypotheses] == ["local_steps", "rounds", "eta", "step_size", "round", "local_step"]
    assert a.spec.indices == b.spec.indices


def test_names_resolve_as_lean_resolves_them():
    concl = "(∫ ω, avgLoss R ω ∂μ) ≤ convergenceRHS P τ T η"
    opened = _one(_file(CONVEX.format(concl=concl)))
    qualified = _one(_file(CONVEX.format(concl="(∫ ω, FedAvg.avgLoss R ω ∂μ) ≤ FedAvg.convergenceRHS P τ T η")
                           .replace("Problem d M", "FedAvg.Problem d M").replace("Run P", "FedAvg.Run P"),
                           opens="open MeasureTheory"))
    assert opened.spec.lhs.key() == qualified.spec.lhs.key() and opened.spec.rhs.key() == qualified.spec.rhs.key()
    # without `open FedAvg` a model name is unknown, as in Lean
    msg = _error(_file(CONVEX.format(concl="(∫ ω, avgLoss R ω ∂μ) ≤ FedAvg.convergenceRHS P τ T η")
                       .replace("Problem d M", "FedAvg.Problem d M").replace("Run P", "FedAvg.Run P"),
                       opens="open MeasureTheory"))
    assert "t.lean:" in msg and "unknown identifier 'avgLoss'" in msg and "open FedAvg" in msg


def test_the_users_defs_are_inlined():
    defs = ("noncomputable def halfDrift {d M : ℕ} (P : FedAvg.Problem d M) (τ : ℕ) (η : ℝ) : ℝ :=\n"
            "  (1 / 2) * (τ : ℝ) ^ 2 * η ^ 2 * P.ζ ^ 2\n"
            "noncomputable def myDrift {d M : ℕ} {P : FedAvg.Problem d M} {Ω : Type*} [MeasurableSpace Ω]\n"
            "    [StandardBorelSpace Ω] {μ : Measure Ω} [IsProbabilityMeasure μ] {τ T : ℕ} {η : ℝ}\n"
            "    (R : FedAvg.Run P μ τ T η) (t k : ℕ) (i : Fin M) (ω : Ω) : ℝ :=\n"
            "  ‖R.x t k i ω - FedAvg.shadow R t k ω‖ ^ 2\n")
    st = _one(_file(DRIFT.format(concl="μ[myDrift R t k i | R.history (t * τ)] ≤ᵐ[μ] fun _ => halfDrift P τ η"),
                    defs=defs))
    assert st.spec.lhs.key() == "condexp(stat[clientDriftSq](t, k, i), t)"
    assert "*" in st.spec.rhs.key() and "ζ" in st.spec.rhs.key()
    assert st.spec.definitions == ["myDrift", "halfDrift"]


def test_spelled_out_statistics_are_the_models():
    st = _one(_file(CONVEX.format(
        concl="(∫ ω, (objective P.f (shadow R 0 1 ω) - objective P.f P.xstar) ∂μ) ≤ ‖P.x0 - P.xstar‖ ^ 2")))
    assert st.spec.lhs.key() == "integral(-(stat[objectiveShadow](0, 1), fstar()))"
    assert st.spec.rhs.key() == "dist_sq()"


@pytest.mark.parametrize("concl,construct", [
    ("μ[roundLoss R t | R.history (t * τ + 1)] ≤ᵐ[μ] progressRHS R t", "conditioning on `R.history (t * τ + 1)`"),
    ("μ[roundLoss R t | R.history (t * τ)] ≤ᵐ[μ] roundLoss R t", "on a side of `≤ᵐ`"),
    ("μ[fun ω => avgLoss R ω | R.history (t * τ)] ≤ᵐ[μ] fun _ => 1", "`avgLoss` in a conditional statement"),
    ("μ[fun ω => roundLoss R t ω * roundLoss R t ω | R.history (t * τ)] ≤ᵐ[μ] fun _ => 1",
     "product of two random variables"),
    ("μ[roundLoss R t | R.history (t * τ)] =ᵐ[μ] progressRHS R t", "`=ᵐ` conclusion"),
    ("μ[roundLoss (t + 1) t | R.history (t * τ)] ≤ᵐ[μ] progressRHS R t", "as the run argument of `roundLoss`"),
    ("μ[roundLoss R (t + 1) | R.history (t * τ)] ≤ᵐ[μ] progressRHS R t", "statistic of round `(t + 1)`"),
    ("μ[fun ω => ‖R.g t 0 0 ω - P.xstar‖ ^ 2 | R.history (t * τ)] ≤ᵐ[μ] fun _ => 1", "field `R.g` of the run"),
    ("roundLoss R t ≤ 1", "compared pointwise"),
])
def test_constructs_outside_the_subset_are_located_errors(concl, construct):
    body = BINDERS + f" ∀ (R : Run P μ τ T η) (t : ℕ), t < T → {concl}"
    msg = _error(_file(body))
    assert "t.lean:7:" in msg and construct in msg and "supported:" in msg


def test_binder_and_hypothesis_errors():
    msg = _error(_file(CONVEX.format(concl="(∫ ω, avgLoss R ω ∂μ) ≤ convergenceRHS P τ T η").replace("(η : ℝ)",
                                                                                                  "(η : ℚ)")))
    assert "t.lean:7:" in msg and "`ℚ`" in msg
    msg = _error(_file(CONVEX.format(concl="(∫ ω, avgLoss R ω ∂μ) ≤ convergenceRHS P τ T η")
                       .replace("0 < η →", "(∃ c : ℝ, c < η) →")))
    assert "existential hypothesis" in msg


def test_hypotheses_and_numbers_have_lean_types():
    st = _one(_file(CONVEX.format(concl="(∫ ω, avgLoss R ω ∂μ) ≤ (T - τ : ℕ) + 2⁻¹ * convergenceRHS P τ T η")))
    rhs = st.spec.rhs
    sub = [t for t in rhs.walk() if t.op == "-"][0]
    assert sub.sort == "nat"                       # (T - τ : ℕ): truncated subtraction, then cast
    inv = [t for t in rhs.walk() if t.op == "inv"][0]
    assert inv.sort == "real" and inv.args[0].value == Fraction(2)
