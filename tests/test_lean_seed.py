"""Seed 000's formal statement is restated verbatim in the Lean test library, where `lake test`
elaborates it against pyfed's definitions (only the import changed), and it is the statement
of `SCAFFOLD.ConvexFiniteRoundConvergence` in `lean/Pyfed/Scaffold/Theorems.lean`.

The seed's text is kept in the repository as a fixture (`tests/fixtures/seed000_formal_statement.lean`
and `seed000_preamble.lean`, copied verbatim from the seed document's "Formal statement" and
"Preamble" sections), so every check runs in any clone; when the seed documents themselves are
next to the checkout (`../shared/seeds`, or `$PYFED_SEEDS_DIR`) the fixture is also compared
with them.
"""

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEED_FILE = ROOT / "lean" / "PyfedTest" / "Seed000.lean"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE_STATEMENT = FIXTURES / "seed000_formal_statement.lean"
FIXTURE_PREAMBLE = FIXTURES / "seed000_preamble.lean"


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


def _seed_documents() -> list:
    """Seed 000's documents found next to the checkout (none in a plain clone)."""
    dirs = [Path(os.environ["PYFED_SEEDS_DIR"])] if os.environ.get("PYFED_SEEDS_DIR") else []
    dirs += [ROOT.parent / "shared" / "seeds", ROOT.parent.parent / "shared" / "seeds"]
    for d in dirs:
        found = sorted(d.glob("000_*.txt")) if d.is_dir() else []
        if found:
            return found
    return []


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
    # the seed's preamble (the fixture), minus its import, is restated
    preamble = FIXTURE_PREAMBLE.read_text(encoding="utf-8").splitlines()
    assert preamble[0] == "import Definitions.Def_SCAFFOLD_Model"
    for line in preamble[1:]:
        assert re.search(rf"(?m)^{re.escape(line)}$", text), line


def test_seed_block_is_the_seed_statement_verbatim():
    """The restated block equals the seed's formal statement kept as a fixture in the repository
    (exactly, up to whitespace); when the seed document is next to the checkout, the fixture is
    checked against it too (never skipped: the fixture comparison always runs)."""
    fixture = FIXTURE_STATEMENT.read_text(encoding="utf-8")
    assert fixture.startswith("namespace SCAFFOLD\ntheorem ConvexFiniteRoundConvergence :")
    assert fixture.rstrip().endswith("end SCAFFOLD")
    assert _norm(_seed_block()) == _norm(fixture)
    docs = _seed_documents()
    for doc_path in docs:      # additionally, when available
        doc = doc_path.read_text(encoding="utf-8")
        m = re.search(r"Formal statement\s*\n(.*?end SCAFFOLD)", doc, re.S)
        assert m, doc_path
        assert _norm(m.group(1)) == _norm(fixture), f"fixture differs from {doc_path}"
        pre = re.search(r"Preamble\s*\n(.*?)\n\s*Formal statement", doc, re.S)
        assert pre and _norm(pre.group(1)) == _norm(FIXTURE_PREAMBLE.read_text(encoding="utf-8"))


def test_the_seed_comparison_cannot_pass_on_a_changed_statement(tmp_path):
    """The verbatim comparison is sensitive: changing one constant of the fixture breaks it."""
    fixture = FIXTURE_STATEMENT.read_text(encoding="utf-8")
    changed = fixture.replace("1 / (81 * P.β)", "1 / (80 * P.β)")
    assert changed != fixture and _norm(changed) != _norm(_seed_block())
