"""The lemmas' certificate files (:mod:`pyfed.certificates`): every committed
``Certificate_*.json`` re-verifies exactly, and a file whose numbers or problem were altered is
refused with the reason (what ``pyfed lean --check`` and ``--verify-certificates DIR`` rely on)."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

from pyfed.certificates import CERTIFIED, verify_certificate_file, verify_certificate_files

GEN = Path(__file__).resolve().parents[1] / "lean" / "PyfedTest" / "Generated"


def test_every_committed_certificate_verifies_exactly():
    results = verify_certificate_files(GEN.parents[1])          # a Lean directory: its PyfedTest/Generated
    assert sorted(p.stem for p, _, _ in results) == sorted(f"Certificate_{n}" for n in CERTIFIED)
    assert all(ok for _, ok, _ in results), [(p.name, why) for p, ok, why in results if not ok]


def test_an_altered_certificate_is_refused_with_the_reason(tmp_path):
    src = GEN / "Certificate_GradientGrowth.json"
    rec = json.loads(src.read_text(encoding="utf-8"))
    # a multiplier made negative: the exact check fails
    bad = json.loads(json.dumps(rec))
    k = next(i for i, c in enumerate(bad["constraints"]) if Fraction(c["multiplier"]) > 0)
    bad["constraints"][k]["multiplier"] = "-1"
    p = tmp_path / "Certificate_GradientGrowth.json"
    p.write_text(json.dumps(bad), encoding="utf-8")
    ok, why = verify_certificate_file(p)
    assert not ok and "negative" in why
    # a weaker claim (another tau) is not the lemma's certificate
    p.write_text(json.dumps(dict(rec, tau="1000")), encoding="utf-8")
    ok, why = verify_certificate_file(p)
    assert not ok and "tau 1000 is not the claim's" in why
    # a lemma pyfed does not certify, and a file that is not JSON
    p.write_text(json.dumps(dict(rec, lean_name="SCAFFOLD.Nope")), encoding="utf-8")
    assert verify_certificate_file(p) == (False, verify_certificate_file(p)[1])
    assert "unknown lemma" in verify_certificate_file(p)[1]
    p.write_text("{", encoding="utf-8")
    assert not verify_certificate_file(p)[0]
    # the untouched file, copied elsewhere, verifies: the check needs nothing but the JSON
    shutil.copy(src, p)
    assert verify_certificate_file(p) == (True, "verified exactly")
