"""The statement catalogue (:mod:`pyfed.checkers.registry`): read from the Lean files, so it holds
exactly the theorems of ``lean/Pyfed`` (no Python list to keep in step), and every one of them is
read by the one reader into a statement that some engine decides."""

from __future__ import annotations

import shutil

import pytest

from pyfed.checkers.registry import catalogue, get, names, qualified_names
from pyfed.engines.statement.engines import engines_for
from pyfed.errors import InputError
from pyfed.lean import inventory
from pyfed.lean.paths import STATEMENT_FILES, source_lean_dir, theorem_files
from pyfed import read_file

LEAN = source_lean_dir()

#: The reader's shape for one theorem of each kind (the builder that reads it).
SHAPES = {
    "SCAFFOLD.ConvexFiniteRoundConvergence": "scaffold_run",
    "SCAFFOLD.YoungInner": "lemma",
    "SCAFFOLD.ServerControlIsMean": "lemma",
    "SCAFFOLD.effectiveStepQ_cast": "lemma",
    "FedAvg.PerRoundProgress": "fedavg_run",
}


def test_catalogue_is_exactly_the_theorems_of_lean_pyfed():
    declared = inventory.theorem_declarations(LEAN)
    entries = catalogue()
    assert {e.name for e in entries} == set(declared)
    assert len(entries) == len(declared)
    for e in entries:
        assert declared[e.name] == e.file
    # bare names are unique, so `pyfed search YoungInner` is unambiguous
    assert len(set(names())) == len(names())


def test_statement_files_come_first_in_their_order():
    files = [rel for rel, _ in theorem_files()]
    assert files[:len(STATEMENT_FILES)] == [f"lean/{rel}" for rel in STATEMENT_FILES]
    assert "lean/Pyfed/Exact.lean" in files          # the ℚ mirrors' cast theorems are statements too
    assert not any("PyfedTest" in f or "PyfedPublished" in f for f in files)   # the published statements are not ours
    assert catalogue()[0].name == "SCAFFOLD.ConvexFiniteRoundConvergence"


def test_every_theorem_is_read_into_a_statement_some_engine_decides():
    by_name = {e.name: e for e in catalogue()}
    seen = set()
    for rel, path in theorem_files():
        for st in read_file(path):
            q = f"{st.namespace.split('.')[0]}.{st.name.split('.')[0]}" if st.namespace else st.name
            assert q in by_name, (rel, st.name)
            assert engines_for(st), f"{rel}: no engine decides {st.name}"
            if q in SHAPES:
                assert st.shape == SHAPES[q], (q, st.shape)
            seen.add(q)
    assert seen == set(by_name)
    assert set(SHAPES) <= seen


def test_get_accepts_bare_and_qualified_names():
    assert get("YoungInner").name == "SCAFFOLD.YoungInner"
    assert get("SCAFFOLD.YoungInner").file == "Pyfed/Lemmas/Inequalities.lean"
    assert get("FedAvg.PerRoundProgress").display == "FedAvg.PerRoundProgress"
    assert get("GradientGrowth").display == "GradientGrowth"
    assert "FedAvg.BoundedClientDrift" in qualified_names()
    with pytest.raises(InputError) as e:
        get("NoSuchTheorem")
    assert e.value.argument == "lean_name" and "YoungInner" in str(e.value)


def _copy_lean(tmp_path):
    dst = tmp_path / "lean"
    shutil.copytree(LEAN, dst, ignore=shutil.ignore_patterns(".lake", "build"))
    return dst


def test_a_new_statement_file_joins_the_catalogue_without_python(tmp_path):
    lean = _copy_lean(tmp_path)
    (lean / "Pyfed" / "Lemmas" / "Extra.lean").write_text(
        "import Pyfed.Scaffold.Model\n\nnamespace SCAFFOLD\n\n"
        "theorem HalfBelow (x : ℝ) (hx : 0 ≤ x) : x / 2 ≤ x := by\n  sorry\n\nend SCAFFOLD\n", encoding="utf-8")
    (lean / "Pyfed" / "Lemmas" / "Commented.lean").write_text(
        "import Pyfed.Scaffold.Model\n\n/- theorem Hidden : True := trivial -/\n-- theorem Gone : True := trivial\n",
        encoding="utf-8")
    files = [rel for rel, _ in theorem_files(lean)]
    assert files[-2:] == ["lean/Pyfed/Exact.lean", "lean/Pyfed/Lemmas/Extra.lean"]
    assert "lean/Pyfed/Lemmas/Commented.lean" not in files
    entries = catalogue(lean)
    assert entries[-1].name == "SCAFFOLD.HalfBelow" and entries[-1].line == 5
    (st,) = read_file(entries[-1].path)
    assert st.shape == "lemma" and engines_for(st)


def test_a_theorem_declared_twice_is_refused(tmp_path):
    lean = _copy_lean(tmp_path)
    extra = "import Pyfed.Scaffold.Model\n\nnamespace SCAFFOLD\n\ntheorem YoungInner : True := trivial\n\nend SCAFFOLD\n"
    with pytest.raises(ValueError, match="SCAFFOLD.YoungInner declared twice"):
        inventory.theorem_declarations(lean, sources={"Pyfed/Lemmas/Twice.lean": extra})


THEOREM_FILES = [rel for rel, _ in theorem_files()] + ["lean/PyfedPublished/Scaffold.lean",
                                                        "lean/PyfedPublished/FedAvg.lean",
                                                        "lean/PyfedTest/Seed000.lean"]


@pytest.mark.slow
@pytest.mark.parametrize("rel", THEOREM_FILES)
def test_pyfed_check_decides_every_theorem_file(rel, theorem_file_check):
    """Every statement file of ours and every published restatement, through the command a user
    runs: all are true statements, so the exit status is 0 (never 2: every theorem is read)."""
    code, text, err, _ = theorem_file_check(LEAN.parent / rel)   # pyfed check PATH --quick --no-profile --json R
    assert code == 0, err[-2000:] + text[-2000:]
    assert " 0 violated" in text
