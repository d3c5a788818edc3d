"""Mathlib API list: the Lean sources use no Mathlib import or name missing from lean/MATHLIB_API.md."""

from __future__ import annotations

import re
from pathlib import Path

from pyfed.lean import inventory

LEAN = Path(__file__).resolve().parents[1] / "lean"
API = LEAN / "MATHLIB_API.md"


def test_api_list_covers_sources():
    assert inventory.api_mismatch(LEAN) == {"modules": [], "names": []}


def test_api_list_rows_name_a_mathlib_file():
    rows = [ln for ln in API.read_text(encoding="utf-8").splitlines() if ln.startswith("| `")]
    assert len(rows) >= 25
    for row in rows:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]
        assert len(cells) == 5, row
        assert "Mathlib" in cells[2] or "Lean core" in cells[2], row


def test_no_file_imports_the_whole_of_mathlib():
    used = inventory.mathlib_usage(LEAN)
    assert "Mathlib" not in used["modules"]
    assert all(m.startswith("Mathlib.") for m in used["modules"])


def test_every_imported_module_is_listed_with_its_file():
    used = inventory.mathlib_usage(LEAN)
    listed = inventory.api_module_files(API)
    assert set(used["modules"]) <= set(listed), sorted(set(used["modules"]) - set(listed))
    for module in used["modules"]:
        assert listed[module] == module.replace(".", "/") + ".lean", module
    # the two model files import exactly the published models' modules
    assert sorted(m for m, files in used["modules"].items() if "Pyfed/Scaffold/Model.lean" in files) == [
        "Mathlib.Analysis.Calculus.Gradient.Basic", "Mathlib.Analysis.InnerProductSpace.PiL2",
        "Mathlib.Analysis.Normed.Lp.MeasurableSpace", "Mathlib.Analysis.SpecialFunctions.Pow.Real",
        "Mathlib.MeasureTheory.Function.L2Space", "Mathlib.Probability.Independence.Conditional",
        "Mathlib.Probability.Process.Adapted"]
    fedavg = sorted(m for m, files in used["modules"].items() if "Pyfed/FedAvg/Model.lean" in files)
    assert fedavg == sorted(["Mathlib.Analysis.Convex.Function", "Mathlib.Analysis.Calculus.Gradient.Basic",
                             "Mathlib.Analysis.InnerProductSpace.PiL2", "Mathlib.Analysis.Normed.Lp.MeasurableSpace",
                             "Mathlib.Analysis.SpecialFunctions.Pow.Real", "Mathlib.MeasureTheory.Function.L2Space",
                             "Mathlib.Probability.Independence.Conditional", "Mathlib.Probability.Process.Adapted"])


def test_importing_the_whole_of_mathlib_is_detected():
    rel = "Pyfed/Lemmas/Inequalities.lean"
    text = (LEAN / rel).read_text(encoding="utf-8")
    broken = "import Mathlib\n" + text
    assert inventory.api_mismatch(LEAN, sources={rel: broken})["modules"] == ["Mathlib"]
    assert "Mathlib" in inventory.mathlib_usage(LEAN, sources={rel: broken})["modules"]


def test_usage_is_detected():
    used = inventory.mathlib_usage(LEAN)
    assert {"Real.rpow", "Real.sqrt", "ProbabilityTheory.iCondIndepFun", "MeasureTheory.condExp", "MemLp",
            "EuclideanSpace", "Finset.powersetCard", "ConvexOn", "Set.univ"} <= set(used["names"])


def test_broken_copy_new_name_fails():
    rel = "Pyfed/Lemmas/Inequalities.lean"
    text = (LEAN / rel).read_text(encoding="utf-8")
    broken = text.replace("(1 + a⁻¹) * ‖v‖ ^ 2 := by sorry", "(1 + a⁻¹) * ‖v‖ ^ 2 + Real.exp 0 := by sorry")
    assert broken != text
    assert inventory.api_mismatch(LEAN, sources={rel: broken})["names"] == ["Real.exp"]


def test_broken_copy_new_import_fails():
    rel = "Pyfed/Lemmas/Inequalities.lean"
    text = (LEAN / rel).read_text(encoding="utf-8")
    broken = "import Mathlib.Analysis.SpecialFunctions.Sqrt\n" + text
    assert inventory.api_mismatch(LEAN, sources={rel: broken})["modules"] == [
        "Mathlib.Analysis.SpecialFunctions.Sqrt"]


def test_broken_api_list_fails(tmp_path):
    lines = API.read_text(encoding="utf-8").splitlines()
    cut = [ln for ln in lines if not ln.startswith("| `ProbabilityTheory.iCondIndepFun`")]
    assert len(cut) == len(lines) - 1
    p = tmp_path / "MATHLIB_API.md"
    p.write_text("\n".join(cut), encoding="utf-8")
    assert inventory.api_mismatch(LEAN, api_path=p)["names"] == ["ProbabilityTheory.iCondIndepFun"]


def test_names_in_comments_are_ignored():
    rel = "Pyfed/Lemmas/Inequalities.lean"
    text = (LEAN / rel).read_text(encoding="utf-8")
    broken = text + "\n-- Real.exp in a comment\n/- MeasureTheory.volume in a block -/\n"
    assert inventory.api_mismatch(LEAN, sources={rel: broken}) == {"modules": [], "names": []}


def test_the_review_notes_count_every_generated_fact():
    """lean/MATHLIB_API.md states how many generated `example`/`#guard` facts were re-evaluated;
    the number is the one in lean/PyfedTest/Generated today."""
    import re
    gen = sorted((LEAN / "PyfedTest" / "Generated").glob("*.lean"))
    facts = sum(len(re.findall(r"(?m)^(?:example|#guard)\b", p.read_text(encoding="utf-8"))) for p in gen)
    notes = (LEAN / "MATHLIB_API.md").read_text(encoding="utf-8")
    (stated,) = re.findall(r"all (\d+) hold", notes)
    assert int(stated) == facts
