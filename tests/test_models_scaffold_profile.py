"""The constant profile's hypothesis constants (:mod:`pyfed.models.scaffold.profile`): a
step-size constant's threshold comes from the smallest step of the pinning instance that is still
violated (bisected with exact re-decisions), not from the step the search happened to draw."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from pyfed.models.scaffold.search import Record
from pyfed.models.scaffold.constants import literals
from pyfed.models.scaffold.exact import sides_exact
from pyfed.models.scaffold.instance import instance_from_json
from pyfed.models.scaffold.profile import BISECT_STEPS, _profile_hyp, _smallest_violated_step
from pyfed import read_file
from pyfed.statements.evaluate import compare

DATA = Path(__file__).resolve().parent / "data" / "statements"


def _bigstep():
    (st,) = read_file(DATA / "scaffold_bigstep.lean")        # h ≤ 3/β: gradient descent diverges beyond 2/β
    lit = next(lit for lit in literals(st) if lit.where == "hypothesis" and lit.hyp == "step_size")
    inst = json.loads((DATA / "scaffold_bigstep_gd_instance.json").read_text(encoding="utf-8"))
    return st, lit, inst


def _violated_at(st, inst_json, boundary):
    """The instance with h = boundary/β (β = 1, K = ηg = 1: ηl = boundary), decided exactly."""
    inst = instance_from_json(inst_json)
    inst.eta_l = Fraction(boundary)
    lhs, rhs, _ = sides_exact(st, inst)
    return compare(lhs, rhs) < 0


def test_the_gd_witness_is_still_violated_below_the_statements_own_constant():
    st, _lit, inst = _bigstep()
    assert _violated_at(st, inst, 3) and _violated_at(st, inst, Fraction(5, 2))
    assert not _violated_at(st, inst, Fraction(3, 2))


def test_a_step_constant_threshold_is_the_smallest_violated_step_bisected():
    st, lit, inst = _bigstep()
    pin = Record(72, "violated", "GD on x^2/2 at the largest admissible step", inst)
    b_v, rec, b_h, n = _smallest_violated_step(st, lit, pin, Fraction(3), admitted_below=False)
    # the pinning instance's own boundary 3 is not the threshold: its violation goes on below 2
    assert b_h < b_v < 2 and b_v - b_h <= Fraction(3, 2) / 2 ** BISECT_STEPS
    assert _violated_at(st, rec.instance, b_v) and not _violated_at(st, inst, b_h)
    assert n == 1 + BISECT_STEPS
    # the profile's entry: "< b_v", never "< 3 excludes the violation"
    d = {lit.key: {"holds": False, "threshold": Fraction(3), "positive_above": True}}
    e = _profile_hyp(lit, [Record(72, "violated", "GD", inst, extra=d)], st)
    assert Fraction(e["needed"]) == b_v and e["direction"] == "at most" and e["excludes_violation"] is True
    assert "bisected" in e["note"] and e["pinned_by"]["instance"]["eta_l"] == str(b_v)
