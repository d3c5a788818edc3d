"""Interoperability with the published Lean formalization (`prove2me/formalpedia`, `envs/c5ea003`).

The lists below were written by reading the published files `Definitions/Def_SCAFFOLD_Model.lean`,
`Definitions/Def_FedAvg_Model.lean`, `Theorems/Thm_SCAFFOLD_*.lean` and `Theorems/Thm_FedAvg_*.lean`:
every published declaration with its kind, its number of explicit arguments (including the explicit
section variables it uses and, for theorems, the explicit arguments of the statement's telescope)
and, for structures, its field names in order. `lean/` must declare each of them identically, so a
term written against the published model elaborates against ours. The published statements
themselves are restated in `lean/PyfedTest/Published*.lean` (built by `lake test`); here we also
check that those restatements equal our library's statements.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pyfed.lean import inventory, render, signatures

ROOT = Path(__file__).resolve().parents[1]
LEAN = ROOT / "lean"

SCAFFOLD_RUN_FIELDS = (
    "sample_pos", "sample_le", "steps_pos", "rounds_pos", "history", "warm", "x", "c", "y", "g",
    "sample", "warm_adapted", "warm_memLp", "warm_unbiased", "warm_variance", "warm_independent",
    "x_adapted", "x_memLp", "c_adapted", "c_memLp", "y_adapted", "y_memLp", "g_adapted", "g_memLp",
    "unbiased", "variance", "independent", "sample_card", "sample_adapted", "sample_uniform",
    "initial_x", "initial_c", "start", "local_update", "control_update", "server_update",
)
SCAFFOLD_PROBLEM_FIELDS = ("clients_pos", "f", "β", "σ", "x0", "smoothness_pos", "noise_nonneg",
                           "hasGradient", "smooth")

#: (qualified name, kind, explicit arity[, fields]) of `Def_SCAFFOLD_Model.lean` and the five
#: `Thm_SCAFFOLD_*.lean` files.
PUBLISHED_SCAFFOLD = [
    ("SCAFFOLD.Space", "abbrev", 1),
    ("SCAFFOLD.objective", "def", 2),
    ("SCAFFOLD.Problem", "structure", 2, SCAFFOLD_PROBLEM_FIELDS),
    ("SCAFFOLD.Convexity", "def", 2),
    ("SCAFFOLD.IsMinimizer", "def", 2),
    ("SCAFFOLD.Initialization", "abbrev", 2),
    ("SCAFFOLD.roundTime", "def", 2),
    ("SCAFFOLD.effectiveStep", "def", 3),
    ("SCAFFOLD.Run", "structure", 8, SCAFFOLD_RUN_FIELDS),        # P ν S K T ηl ηg init
    ("SCAFFOLD.initialControlError", "def", 3),                    # P c0 xstar
    ("SCAFFOLD.initialPotential", "def", 5),                       # P S h c0 xstar
    ("SCAFFOLD.weight", "def", 3),                                 # μ h r
    ("SCAFFOLD.weightSum", "def", 3),                              # μ h T
    ("SCAFFOLD.expectedGap", "def", 3),                            # A xstar r
    ("SCAFFOLD.weightedGap", "def", 3),                            # A xstar μ
    ("SCAFFOLD.averageGradientSq", "def", 1),                      # A
    ("SCAFFOLD.convexRHS", "def", 9),                              # P S K T ηl ηg μ c0 xstar
    ("SCAFFOLD.nonconvexRHS", "def", 7),                           # P S K T ηl ηg fLower
    # d N P Ω ν S K T ηl ηg μ c0 xstar, six hypotheses, A
    ("SCAFFOLD.ConvexFiniteRoundConvergence", "theorem", 20),
    # d N P Ω ν S K T ηl ηg fLower, four hypotheses, A
    ("SCAFFOLD.NonconvexFiniteRoundConvergence", "theorem", 16),
    ("SCAFFOLD.FiniteRoundConvergence", "theorem", 0),             # a conjunction
    ("SCAFFOLD.GradientGrowth", "theorem", 7),                     # d N P xstar, 2 hypotheses, x
    ("SCAFFOLD.PerturbedStrongConvexity", "theorem", 9),           # d N P μ, 1 hypothesis, i x y z
]

FEDAVG_PROBLEM_FIELDS = ("clients_pos", "f", "L", "σ", "ζ", "x0", "xstar", "smoothness_pos",
                         "noise_nonneg", "heterogeneity_nonneg", "hasGradient", "convex", "smooth",
                         "heterogeneous", "optimal")
FEDAVG_RUN_FIELDS = ("history", "x", "g", "x_adapted", "x_squareIntegrable", "g_adapted",
                     "g_squareIntegrable", "unbiased", "variance", "independent", "initial",
                     "local_update", "synchronize")

#: The same for `Def_FedAvg_Model.lean` and the four `Thm_FedAvg_*.lean` files.
PUBLISHED_FEDAVG = [
    ("FedAvg.ModelSpace", "abbrev", 1),
    ("FedAvg.objective", "def", 2),
    ("FedAvg.Problem", "structure", 2, FEDAVG_PROBLEM_FIELDS),
    ("FedAvg.Run", "structure", 5, FEDAVG_RUN_FIELDS),             # P μ τ T η
    ("FedAvg.shadow", "def", 4),                                   # R t k ω
    ("FedAvg.roundLoss", "def", 3),                                # R t ω
    ("FedAvg.avgLoss", "def", 2),                                  # R ω
    ("FedAvg.distance", "def", 1),                                 # P
    ("FedAvg.shadowDistanceSq", "def", 4),                         # R t k ω
    ("FedAvg.clientDriftSq", "def", 5),                            # R t k i ω
    ("FedAvg.progressTerm", "def", 3),                             # R t ω
    ("FedAvg.deviationTerm", "def", 3),
    ("FedAvg.progressRHS", "def", 3),
    ("FedAvg.driftRHS", "def", 3),                                 # P τ η
    ("FedAvg.convergenceRHS", "def", 4),                           # P τ T η
    ("FedAvg.optimizedStep", "def", 3),                            # P τ T
    ("FedAvg.optimizedRHS", "def", 3),                             # P τ T
    # d M P Ω μ τ T η, four hypotheses, R t, t < T
    ("FedAvg.PerRoundProgress", "theorem", 15),
    # ... and ∀ k, k ≤ τ → ∀ i
    ("FedAvg.BoundedClientDrift", "theorem", 18),
    # d M P Ω μ τ T η, four hypotheses, R
    ("FedAvg.ConvexFedAvgConvergence", "theorem", 13),
    # d M P Ω μ τ T, five hypotheses, R
    ("FedAvg.TunedConvexFedAvgConvergence", "theorem", 13),
]

MODEL = "Pyfed/Scaffold/Model.lean"
FEDAVG_MODEL = "Pyfed/FedAvg/Model.lean"


def _text(rel):
    return (LEAN / rel).read_text(encoding="utf-8")


def test_every_published_scaffold_declaration_is_declared_alike():
    assert signatures.interface_mismatch(PUBLISHED_SCAFFOLD, LEAN) == []


def test_every_published_fedavg_declaration_is_declared_alike():
    assert signatures.interface_mismatch(PUBLISHED_FEDAVG, LEAN) == []


def test_renamed_definition_fails():
    broken = _text(MODEL).replace("def initialPotential ", "def initialPotentialV0 ")
    assert broken != _text(MODEL)
    bad = signatures.interface_mismatch(PUBLISHED_SCAFFOLD, LEAN, sources={MODEL: broken})
    assert bad == ["SCAFFOLD.initialPotential: not declared"]


def test_renamed_field_fails():
    broken = _text(MODEL).replace("  history : Filtration ℕ mΩ", "  filtration : Filtration ℕ mΩ")
    assert broken != _text(MODEL)
    bad = signatures.interface_mismatch(PUBLISHED_SCAFFOLD, LEAN, sources={MODEL: broken})
    assert bad == ["SCAFFOLD.Run: fields differ (missing ['history'], unexpected ['filtration'])"]


def test_reordered_fields_fail():
    text = _text(FEDAVG_MODEL)
    broken = text.replace("  L : ℝ\n  σ : ℝ\n", "  σ : ℝ\n  L : ℝ\n")
    assert broken != text
    bad = signatures.interface_mismatch(PUBLISHED_FEDAVG, LEAN, sources={FEDAVG_MODEL: broken})
    assert bad == ["FedAvg.Problem: fields differ (missing [], unexpected [], order differs)"]


def test_changed_arity_fails():
    # the pre-interoperability signature of initialPotential took the two numbers, not P, c0, xstar
    text = _text(MODEL)
    broken = text.replace("def initialPotential {d N : ℕ} (P : Problem d N) (S : ℕ) (h : ℝ) (c0 : Fin N → Space d)\n"
                          "    (xstar : Space d) : ℝ :=",
                          "def initialPotential {d N : ℕ} (P : Problem d N) (S : ℕ) (h : ℝ) : ℝ :=")
    assert broken != text
    bad = signatures.interface_mismatch(PUBLISHED_SCAFFOLD, LEAN, sources={MODEL: broken})
    assert bad == ["SCAFFOLD.initialPotential: 3 explicit arguments, expected 5"]


def test_changed_theorem_telescope_fails():
    rel = "Pyfed/FedAvg/Theorems.lean"
    text = _text(rel)
    broken = text.replace("t < T → ∀ k, k ≤ τ → ∀ i,", "t < T → ∀ k i,")
    assert broken != text
    bad = signatures.interface_mismatch(PUBLISHED_FEDAVG, LEAN, sources={rel: broken})
    assert bad == ["FedAvg.BoundedClientDrift: 17 explicit arguments, expected 18"]


def test_kind_mismatch_fails():
    bad = signatures.interface_mismatch([("SCAFFOLD.weight", "structure", 3)], LEAN)
    assert bad == ["SCAFFOLD.weight: declared as def, expected structure"]


def test_section_variables_count_when_used():
    # published style: the structure and the definitions take their explicit arguments from a
    # `variable` line; a variable counts only where its name occurs, and `variable {…}` without a
    # type makes the listed ones implicit
    src = "\n".join([
        "namespace Demo",
        "variable {d N : ℕ} {Ω : Type*} [MeasurableSpace Ω] (P : Problem d N) (S K : ℕ) (η : ℝ)",
        "structure Thing where",
        "  a : S ≤ N",
        "  b : K = K",
        "def usesP : ℕ := P.f 0",
        "variable {P S K η}",
        "def rebinds (P : Problem d N) (x : ℕ) : ℕ := x",
        "def viaThing (t : Thing S K) : ℕ := 0",
        "theorem arrows : ∀ (a b : ℕ), a < b → ∀ c < a, ∀ e : ℕ, e = e := by sorry",
        "end Demo",
        "",
    ])
    have = signatures.declarations(LEAN, sources={"Demo.lean": src})
    assert have["Demo.Thing"].explicit_arity == 2 and have["Demo.Thing"].fields == ("a", "b")
    assert have["Demo.usesP"].explicit_arity == 1
    assert have["Demo.rebinds"].explicit_arity == 2
    assert have["Demo.viaThing"].explicit_arity == 1
    assert have["Demo.arrows"].explicit_arity == 2 + 1 + 2 + 1


def test_telescope_arity_examples():
    assert signatures.telescope_arity("∀ (x : ℕ) [h : Foo x] {y : ℕ}, x = y") == 1
    assert signatures.telescope_arity("A → (B → C) → D") == 2
    assert signatures.telescope_arity("(∀ x, P x) ∧ (∀ y, Q y)") == 0
    assert signatures.telescope_arity("∀ A : Run P ν S K T ηl ηg none, f A ≤ g") == 1


# ---------------------------------------------------------------- the restated published statements

def _block(rel, marker):
    text = _text(rel)
    m = re.search(rf"-- BEGIN {marker}\n(.*?)\n-- END {marker}", text, re.S)
    assert m, f"markers missing in {rel}"
    return m.group(1)


def _norm(s):
    return re.sub(r"\s+", " ", s).strip()


def _statements(text):
    return {m.group(1): _norm(m.group(2))
            for m in re.finditer(r"theorem (\w+) :(.*?):= by sorry", text, re.S)}


#: The published statement text, stored (statements only): what the copies and our library are
#: compared with, so a change on our side cannot agree with itself.
STORED = Path(__file__).resolve().parent / "data" / "published_statements.lean"
SCAFFOLD_NAMES = {"ConvexFiniteRoundConvergence", "NonconvexFiniteRoundConvergence", "FiniteRoundConvergence",
                  "GradientGrowth", "PerturbedStrongConvexity"}
FEDAVG_NAMES = {"PerRoundProgress", "BoundedClientDrift", "ConvexFedAvgConvergence", "TunedConvexFedAvgConvergence"}


def _stored():
    return _statements(STORED.read_text(encoding="utf-8"))


def test_the_stored_published_text_has_the_nine_statements():
    stored = _stored()
    assert set(stored) == SCAFFOLD_NAMES | FEDAVG_NAMES
    # the published BoundedClientDrift writes its constant function with ↦
    assert "≤ᵐ[μ] fun _ ↦ driftRHS P τ η" in stored["BoundedClientDrift"]


@pytest.mark.parametrize("rel,model,library,names", [
    ("PyfedPublished/Scaffold.lean", "Pyfed.Scaffold.Model", "Pyfed/Scaffold/Theorems.lean", SCAFFOLD_NAMES),
    ("PyfedPublished/FedAvg.lean", "Pyfed.FedAvg.Model", "Pyfed/FedAvg/Theorems.lean", FEDAVG_NAMES),
])
def test_published_copies_and_our_library_state_the_published_text(rel, model, library, names):
    stored = _stored()
    copy = _statements(_text(rel))
    lib = _statements(_text(library))
    assert set(copy) == names
    for name in names:
        assert copy[name] == stored[name], name
        assert lib[name] == stored[name], name
    # only the import differs from the published files: the model module alone, nothing of ours
    text = _text(rel)
    assert re.findall(r"(?m)^import .*$", text) == [f"import {model}"]
    assert "open MeasureTheory" in text and "universe u" in text
    ns = {"Pyfed.Scaffold.Model": "SCAFFOLD", "Pyfed.FedAvg.Model": "FedAvg"}[model]
    code = inventory.strip_comments(text)
    assert re.findall(r"(?m)^(?:open|namespace|end|universe)\b.*$", code) == [
        "open MeasureTheory", "universe u", f"namespace {ns}", f"end {ns}"]     # as published: no wrapper


def test_published_copies_are_a_default_lake_target():
    lakefile = (ROOT / "lakefile.lean").read_text(encoding="utf-8")
    assert "@[default_target]\nlean_lib PyfedPublished" in lakefile
    root = (LEAN / "PyfedPublished.lean").read_text(encoding="utf-8")
    assert re.findall(r"(?m)^import .*$", root) == ["import PyfedPublished.Scaffold", "import PyfedPublished.FedAvg"]
    assert all(not m.startswith("PyfedTest.Published") for m in render.STATIC_TEST_MODULES)


def test_finite_round_convergence_is_the_conjunction_of_the_two():
    lib = _statements(_text("Pyfed/Scaffold/Theorems.lean"))
    conj = lib["FiniteRoundConvergence"]
    m = re.fullmatch(r"\( (.*) \) ∧ \( (.*) \)", conj)
    assert m
    assert m.group(1) == lib["ConvexFiniteRoundConvergence"]
    assert m.group(2) == lib["NonconvexFiniteRoundConvergence"]


def test_gradient_growth_is_in_forall_form():
    lib = _statements(_text("Pyfed/Scaffold/Theorems.lean"))
    assert lib["GradientGrowth"].startswith("∀ (d N : ℕ) (P : Problem d N) (xstar : Space d), "
                                            "Convexity P 0 → IsMinimizer P xstar → ∀ x,")


@pytest.mark.parametrize("rel", ["lean/Pyfed/Scaffold/Model.lean", "lean/Pyfed/Scaffold/Theorems.lean",
                                 "pyfed/theory/bounds.py", "pyfed/theory/hypotheses.py",
                                 "docs/explanation/model.md", "docs/reference/lean-project.md"])
def test_nonconvex_constants_cite_lemma_19_beside_equations_26_27(rel):
    text = (ROOT / rel).read_text(encoding="utf-8")
    spots = [m.start() for m in re.finditer(r"\(26\)", text)]
    assert spots, f"{rel} documents the nonconvex statement without equations (26)-(27)"
    for s in spots:
        window = text[max(0, s - 400):s + 400]
        assert "Lemma 19" in window and "p. 34" in window, (rel, text[s - 200:s + 50])


def _wrapper_problems(text, model):
    """Why the wrapper of a restated published block would resolve names differently from the
    published file (empty when it resolves them alike).

    The published statements are elaborated inside `namespace SCAFFOLD` (`FedAvg`), where a model
    name such as `Space` or `Run` resolves to `SCAFFOLD.Space` before any root-level or opened
    declaration of that name. A restatement resolves names the same way when its wrapper namespace
    is nested in the model's namespace; merely `open`ing the model namespace would also admit a
    root-level homonym and make the name ambiguous."""
    code = inventory.strip_comments(text)
    problems = []
    outer = re.search(r"(?m)^namespace (\S+)", code).group(1)
    if outer.split(".")[0] != model or len(outer.split(".")) < 2:
        problems.append(f"wrapper namespace {outer} is not nested in {model}")
    if not re.search(rf"(?m)^end {re.escape(outer)}\s*$", code):
        problems.append(f"no `end {outer}`")
    if re.search(rf"(?m)^\s*open\b[^\n]*\b{model}\b", code):
        problems.append(f"`open {model}`")
    return problems


@pytest.mark.parametrize("rel,model,marker", [
    ("PyfedTest/Seed000.lean", "SCAFFOLD", "seed 000 formal statement"),
])
def test_restatements_resolve_names_as_the_published_files(rel, model, marker):
    assert _wrapper_problems(_text(rel), model) == []
    inner = _block(rel, marker)
    assert inner.startswith(f"namespace {model}\n") and inner.rstrip().endswith(f"end {model}")


def test_an_open_wrapper_is_rejected():
    rel = "PyfedTest/Seed000.lean"
    wrapper = re.search(r"(?m)^namespace (SCAFFOLD\.\S+)", inventory.strip_comments(_text(rel))).group(1)
    broken = _text(rel).replace(f"namespace {wrapper}\n", "namespace PyfedTest.PublishedScaffold\n\nopen SCAFFOLD\n")
    broken = broken.replace(f"end {wrapper}", "end PyfedTest.PublishedScaffold")
    assert broken != _text(rel)
    assert _wrapper_problems(broken, "SCAFFOLD") == [
        "wrapper namespace PyfedTest.PublishedScaffold is not nested in SCAFFOLD", "`open SCAFFOLD`"]
