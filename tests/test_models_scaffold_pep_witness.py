"""A SCAFFOLD PEP row's worst case realised as interpolating functions of the class
(pyfed.models.scaffold.pep_witness): decided exactly on every sample path and replayable."""

import json
from pathlib import Path

import pytest

from pyfed.engines.pep.solver import DEFAULT_SOLVER_TOL
from pyfed.models.registry import read_file
from pyfed.models.scaffold.pep import _build, find_plan
from pyfed.models.scaffold.pep_witness import interpolated_reverification

DATA = Path(__file__).parent / "data" / "search" / "scaffold.lean"


@pytest.mark.slow
def test_seed_bound_over_four_is_realised_by_interpolated_clients():
    st = next(s for s in read_file(DATA) if s.name == "SeedQuarterBound")
    plan = find_plan(st)
    v, info = interpolated_reverification(st, plan, float(plan["gamma"] / plan["alpha"]), "CLARABEL",
                                          DEFAULT_SOLVER_TOL, _build)
    assert v is not None and v.status == "violated" and info["reproduced"]
    inst = v.witness["instance"]
    assert all(c["family"] == "interpolated" for c in inst["clients"])
    again = st.model.recheck(st, json.loads(json.dumps(v.witness)))
    assert again.status == "violated" and again.lhs == v.lhs and again.rhs == v.rhs
