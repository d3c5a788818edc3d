"""Seed 000's formal statement is restated verbatim in the Lean test library, where `lake test`
elaborates it against pyfed's definitions (only the import changed), and it is the statement
of `SCAFFOLD.ConvexFiniteRoundConvergence` in `lean/Pyfed/Scaffold/Theorems.lean`."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEED_FILE = ROOT / "lean" / "PyfedTest" / "Seed000.lean"


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _seed_block() -> str:
    text = SEED_FILE.read_text(encoding="utf-8")
    m = re.search(r"-- BEGIN seed 000 formal statement\n(.*?)\n-- END seed 000 formal statement", text, re.S)
    assert m, "markers missing in Seed000.lean"
    return m.group(1)


def _theorem(text: str, name: str) -> str:
    m = re.search(rf"theorem {name} :(.*?):= by sorry", text, re.S)
    assert m, name
    return _norm(m.group(1))


def test_seed_statement_equals_the_library_statement():
    lib = (ROOT / "lean" / "Pyfed" / "Scaffold" / "Theorems.lean").read_text(encoding="utf-8")
    block = _seed_block()
    assert block.startswith("namespace SCAFFOLD\n") and block.endswith("\nend SCAFFOLD")
    assert _theorem(block, "ConvexFiniteRoundConvergence") == _theorem(lib, "ConvexFiniteRoundConvergence")


def test_seed_file_is_in_the_test_library_and_changes_only_the_import():
    root = (ROOT / "lean" / "PyfedTest.lean").read_text(encoding="utf-8")
    assert "import PyfedTest.Seed000" in root
    text = SEED_FILE.read_text(encoding="utf-8")
    assert re.findall(r"(?m)^import .*$", text) == ["import Pyfed"]
    assert "open MeasureTheory" in text and "universe u" in text  # the seed's preamble


def test_seed_block_matches_the_seed_document_when_available():
    seeds = sorted((ROOT.parent / "shared" / "seeds").glob("000_*.txt"))
    if not seeds:
        pytest.skip("the seed documents (../shared/seeds) are not next to this checkout")
    doc = seeds[0].read_text(encoding="utf-8")
    m = re.search(r"Formal statement\s*\n(.*?end SCAFFOLD)", doc, re.S)
    assert m
    assert _norm(m.group(1)) == _norm(_seed_block())
