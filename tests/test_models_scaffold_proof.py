"""The scalar reading of a SCAFFOLD run statement (pyfed.models.scaffold.proof): role symbols,
the run's and the problem's facts, atoms for the model's quantities, the divisors to prove nonzero."""

from __future__ import annotations

import sympy

from pyfed.models.registry import read_file
from pyfed.models.scaffold.proof import PUBLISHED, proof_form
from pyfed.lean.paths import source_lean_dir


def _convex():
    sts = read_file(source_lean_dir() / "PyfedPublished" / "Scaffold.lean")
    return next(s for s in sts if s.name == "ConvexFiniteRoundConvergence")


def test_the_convex_statement_read_as_scalars():
    f = proof_form(_convex())
    K, el, eg, mu, S, N, beta = sympy.symbols("K eta_l eta_g mu S N β")
    assert f.shape == "SCAFFOLD Run (init some)" and f.relation == "≤"
    assert [(h.op, sympy.simplify(h.rhs - h.lhs)) for h in f.hypotheses][2] == ("≤", 1 / (81 * beta) - K * el * eg)
    assert [s.key for s in f.structural] == ["Convexity(P, mu)", "IsMinimizer(P, xstar)"]
    whys = {af.why for af in f.facts}
    assert {"the Run's S ≤ N", "the Problem's 0 < β", "`Convexity P μ` gives 0 ≤ mu"} <= whys
    assert f.lhs_atoms == {sympy.Symbol("weightedGap[xstar,mu]")}
    assert any(d == S for d, _w in f.denominators) and any(isinstance(d, sympy.Mul) for d, _w in f.denominators)
    assert f.display[el] == "ηl" and f.keys["ηl"] == "eta_l" and f.order[:2] == [("S", 0), ("S", 1)]


def test_the_published_scaffold_records_name_their_accepted_proofs():
    assert set(PUBLISHED) == {"ConvexFiniteRoundConvergence", "NonconvexFiniteRoundConvergence",
                              "FiniteRoundConvergence"}
    assert PUBLISHED["ConvexFiniteRoundConvergence"].file == "lean/PyfedPublished/Scaffold.lean"
