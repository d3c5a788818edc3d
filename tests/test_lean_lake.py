"""`lake build` / `lake test` on the Lean project (only when the Lean toolchain is installed).

These take minutes (Mathlib) and need `lake exe cache get` first; they are skipped with a
clear reason when `lake` is not on PATH.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAKE = shutil.which("lake")
needs_lake = pytest.mark.skipif(LAKE is None, reason="lake (Lean toolchain) is not on PATH; "
                                "install elan and run `lake exe cache get && lake build && lake test`")


def test_lakefile_pins():
    text = (ROOT / "lakefile.lean").read_text(encoding="utf-8")
    assert '@ "c5ea00351c28e24afc9f0f84379aa41082b1188f"' in text
    assert 'testDriver := "PyfedTest"' in text
    assert "@[default_target]\nlean_lib Pyfed" in text
    assert (ROOT / "lean-toolchain").read_text().strip() == "leanprover/lean4:v4.30.0"


@pytest.mark.lake
@needs_lake
def test_lake_build():
    subprocess.run([LAKE, "exe", "cache", "get"], cwd=ROOT, check=False)
    r = subprocess.run([LAKE, "build"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]


@pytest.mark.lake
@needs_lake
def test_lake_test():
    r = subprocess.run([LAKE, "test"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-4000:]
