"""`lake build` / `lake test` on the Lean project (only when the Lean toolchain is installed).

These take minutes (Mathlib) and need `lake exe cache get` first; they are skipped with a
clear reason when `lake` is not on PATH.
"""

from __future__ import annotations

import json
import re
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


MANIFEST = ROOT / "lake-manifest.json"
PIN = "c5ea00351c28e24afc9f0f84379aa41082b1188f"

#: Mathlib's transitive dependencies at the pin, as resolved in Lake-written downstream manifests
#: that require mathlib at the pin (provenance: lean/MATHLIB_API.md, last section).
TRANSITIVE = {
    "plausible": ("https://github.com/leanprover-community/plausible", "a456461b368b71d2accd95234832cd9c174b5437"),
    "LeanSearchClient": ("https://github.com/leanprover-community/LeanSearchClient",
                         "c5d5b8fe6e5158def25cd28eb94e4141ad97c843"),
    "importGraph": ("https://github.com/leanprover-community/import-graph", "515cf9d0c00ece5e661f6de4326a53dedc1e8ea1"),
    "proofwidgets": ("https://github.com/leanprover-community/ProofWidgets4", "a84b3e2475d5c5ab979567b1ad8aea21b764bcf8"),
    "aesop": ("https://github.com/leanprover-community/aesop", "558915ae105bfd8074e22d597613d1961822adc2"),
    "Qq": ("https://github.com/leanprover-community/quote4", "a6e6c34c4ef182f83b219a3a5a385f51f44bdc4c"),
    "batteries": ("https://github.com/leanprover-community/batteries", "32dc18cde3684679f3c003de608743b57498c56f"),
    "Cli": ("https://github.com/leanprover/lean4-cli", "6b907cf12b2e445ccb7c24bc208ef04a1f39e84c"),
}


def _lakefile_mathlib(text):
    m = re.search(r'require mathlib from git\s+"([^"]+)"\s*@\s*"([0-9a-f]{40})"', text)
    assert m, "lakefile.lean has no pinned `require mathlib`"
    return m.group(1), m.group(2)


def _pin_mismatch(lakefile_text: str, manifest: dict) -> list:
    """Differences between the lakefile's `require mathlib` and the manifest's mathlib entry."""
    url, rev = _lakefile_mathlib(lakefile_text)
    entries = [p for p in manifest["packages"] if p["name"] == "mathlib"]
    if len(entries) != 1:
        return [f"{len(entries)} mathlib entries in the manifest"]
    (m,) = entries
    out = []
    for key, want in (("url", url), ("rev", rev), ("inputRev", rev)):
        if m[key] != want:
            out.append(f"mathlib {key}: manifest {m[key]!r}, lakefile {want!r}")
    if m["inherited"] is not False:
        out.append("mathlib must be a direct dependency (inherited false)")
    return out


def _lakefile():
    return (ROOT / "lakefile.lean").read_text(encoding="utf-8")


def _manifest():
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def test_manifest_is_well_formed():
    data = _manifest()
    assert data["version"] == "1.2.0"
    assert data["packagesDir"] == ".lake/packages"
    assert data["name"] == "pyfed"
    assert isinstance(data["packages"], list) and data["packages"]
    names = [p["name"] for p in data["packages"]]
    assert len(names) == len(set(names))
    for p in data["packages"]:
        for key in ("url", "rev", "name", "inputRev", "inherited", "type", "manifestFile"):
            assert key in p, (p.get("name"), key)
        assert p["type"] == "git"
        assert re.fullmatch(r"[0-9a-f]{40}", p["rev"]), p
        assert isinstance(p["inherited"], bool)
        assert p["url"].startswith("https://github.com/")


def test_manifest_mathlib_rev_equals_the_lakefile():
    assert _lakefile_mathlib(_lakefile())[1] == PIN
    assert _pin_mismatch(_lakefile(), _manifest()) == []


def test_manifest_check_catches_a_moved_pin():
    other = "0123456789abcdef0123456789abcdef01234567"
    bad = _pin_mismatch(_lakefile().replace(PIN, other), _manifest())
    assert bad == [f"mathlib rev: manifest {PIN!r}, lakefile {other!r}",
                   f"mathlib inputRev: manifest {PIN!r}, lakefile {other!r}"]
    manifest = _manifest()
    manifest["packages"] = [p for p in manifest["packages"] if p["name"] != "mathlib"]
    assert _pin_mismatch(_lakefile(), manifest) == ["0 mathlib entries in the manifest"]


def test_manifest_pins_every_transitive_dependency():
    data = _manifest()
    inherited = {p["name"]: (p["url"], p["rev"]) for p in data["packages"] if p["inherited"]}
    assert inherited == TRANSITIVE
    assert [p["name"] for p in data["packages"] if not p["inherited"]] == ["mathlib"]


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
