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


# ------------------------------------------------------------------ the lemma instance a certificate proves
def test_every_committed_certificate_states_its_lemma_instance_and_ties_to_the_lean_text():
    import json

    from pyfed.certificates import CERTIFIED, INSTANCES, instance_ties
    from pyfed.lean.paths import source_lean_dir
    gen = source_lean_dir() / "PyfedTest" / "Generated"
    assert set(INSTANCES) == set(CERTIFIED)
    for name in CERTIFIED:
        rec = json.loads((gen / f"Certificate_{name}.json").read_text(encoding="utf-8"))
        assert rec["instance"].startswith("theorem instance_statement :")
        assert instance_ties(name, rec) == ""
        lean = (gen / f"Certificate_{name}.lean").read_text(encoding="utf-8")
        assert rec["instance"] in lean and "The lemma instance this certificate proves" in lean


def test_a_certificate_for_another_instance_or_class_does_not_pass():
    import json
    from fractions import Fraction

    from pyfed.certificates import CERTIFIED, instance_of, instance_ties, same_problem
    from pyfed.engines.pep.exact_pep import pep_nonexpansive_exact
    from pyfed.lean.paths import source_lean_dir
    rec = json.loads((source_lean_dir() / "PyfedTest" / "Generated" / "Certificate_GradientStepNonexpansive.json")
                     .read_text(encoding="utf-8"))
    bad = dict(rec, instance=rec["instance"].replace("η = (1 : ℝ)", "η = (2 : ℝ)"))
    assert instance_ties("GradientStepNonexpansive", bad) == ("its stated lemma instance is not the Lean statement at "
                                                             "its parameters")
    st, values, _text = instance_of("GradientStepNonexpansive")
    encoded = st.model.certificate_problem(st, values)
    assert same_problem(pep_nonexpansive_exact(1, 1, 0), Fraction(1), encoded) == ""
    # another step (the metric differs) and another class (μ = 1/2: other interpolation inequalities)
    assert "claim" in same_problem(pep_nonexpansive_exact(1, Fraction(1, 2), 0), Fraction(1), encoded)
    assert "interpolation" in same_problem(pep_nonexpansive_exact(1, 1, Fraction(1, 2)), Fraction(1), encoded)
    assert CERTIFIED["GradientStepNonexpansive"][1] == 1
