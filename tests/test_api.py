"""The public API: ``import pyfed`` gives the documented names, loads them on first use, and the
notebook-style tour ``examples/api_tour.py`` runs on it alone."""

from __future__ import annotations

import runpy
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_import_pyfed_loads_no_numerical_library():
    code = ("import sys, pyfed; heavy = [m for m in ('numpy', 'sympy', 'flint', 'mpmath', 'rich') if m in sys.modules];"
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_public_names_resolve_to_the_documented_objects():
    import pyfed
    from pyfed.check import check_statement
    from pyfed.models.registry import read_text
    from pyfed.verdicts import Violated

    assert pyfed.check_statement is check_statement and pyfed.read_text is read_text and pyfed.Violated is Violated
    assert set(pyfed.__all__) == {"__version__", *pyfed._PUBLIC} <= set(dir(pyfed))
    for name in pyfed._PUBLIC:
        obj = getattr(pyfed, name)
        assert (obj.__doc__ or "").strip(), f"pyfed.{name} has no docstring"
    import pyfed.conform.engine  # noqa: F401  (the conformance package imported: no name of the API is shadowed)
    assert pyfed.check_conformance is pyfed.conform.conform and callable(pyfed.check_conformance)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        pyfed.nope  # noqa: B018


def test_read_and_check_a_statement_through_the_api():
    import pyfed

    (st,) = pyfed.read_text("import Pyfed\n\ntheorem T (a b : ℝ) : 2 * a * b ≤ (a ^ 2 + b ^ 2) / 2 := by sorry\n",
                            "t.lean")
    rep = pyfed.check_statement(st, quick=True, profile=False)
    (v,) = [v for v in rep.verdicts if v.status == "violated"]
    a, b = (int(v.witness["instance"][k]) for k in ("a", "b"))
    assert 2 * a * b > (a * a + b * b) / 2 and v.certified
    with pytest.raises(pyfed.InputError):
        pyfed.read_file("README.md")


@pytest.mark.slow
def test_the_api_tour_runs(capsys):
    runpy.run_path(str(ROOT / "examples" / "api_tour.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "YoungHalf: violated" in out and "re-checked exactly: violated" in out and "SCAFFOLD, 8 replicates" in out
