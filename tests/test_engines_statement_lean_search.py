"""The generic search of statements read by the general elaborator
(:mod:`pyfed.engines.statement.lean_search`): one instance decided exactly (hypotheses, then both
sides, hand-derived values), the loop stopping at the first violation, and the verdict's exact
sides, witness and reasons."""

from __future__ import annotations

from fractions import Fraction as Fr

from pyfed import read_text
from pyfed.checkers import families as fam
from pyfed.engines.statement.lean_search import decide_instance, search_instances, search_verdict
from pyfed.errors import InputError
from pyfed.statements.interpret import vec

TEXT = """import Pyfed

open SCAFFOLD (Space)

theorem Scaled (a b : ℝ) (ha : 0 ≤ a) : a * b ≤ 2 * b := by sorry
theorem Points {d : ℕ} (u : Space d) : ‖u‖ ^ 2 = ‖u‖ ^ 2 := by sorry
"""


def _st(name):
    (st,) = read_text(TEXT, "generic.lean", theorem=name)
    return st


def _encode(env):
    return {k: fam.to_spec(v) for k, v in env.items()}


def test_an_instance_is_decided_exactly_hypotheses_first():
    st = _st("Scaled")
    # a = 3, b = 1: 3 ≤ 2 fails (violated, sides 3 and 2); a = -1: outside (ha fails); a = 1, b = 2: 2 ≤ 4
    r = decide_instance(st, {"a": Fr(3), "b": Fr(1)}, encode=_encode, index=4, description="by hand")
    assert (r.status, r.lhs, r.rhs, r.index, r.in_hypotheses) == ("violated", Fr(3), Fr(2), 4, True)
    assert r.instance == {"a": "3", "b": "1"}
    r = decide_instance(st, {"a": Fr(-1), "b": Fr(1)}, encode=_encode)
    assert (r.status, r.failing, r.in_hypotheses) == ("outside", ["ha"], False)
    r = decide_instance(st, {"a": Fr(1), "b": Fr(2)}, encode=_encode)
    assert (r.status, r.lhs, r.rhs, r.ratio) == ("holds", Fr(2), Fr(4), 0.5)


def test_a_hypothesis_the_model_cannot_decide_and_a_value_without_json_make_it_undecided():
    st = _st("Scaled")

    def refuse(h, env, interp):
        from pyfed.statements.interpret import Structural
        raise Structural("a class property", h.node)

    r = decide_instance(st, {"a": Fr(1), "b": Fr(1)}, encode=_encode, hypothesis=refuse)
    assert r.status == "undecided" and r.reason.startswith("hypothesis ha:")

    def no_json(env):
        raise InputError("instance", "no exact description")

    r = decide_instance(st, {"a": Fr(1), "b": Fr(1)}, encode=no_json)
    assert r.status == "undecided" and "no exact description" in r.reason


def test_vector_sides_are_not_reported_as_numbers():
    st = _st("Points")
    r = decide_instance(st, {"d": 2, "u": vec([1, 2])}, encode=_encode)
    assert (r.status, r.lhs, r.rhs) == ("holds", Fr(5), Fr(5))


def test_the_loop_stops_at_the_first_violation_and_the_verdict_has_its_witness():
    st = _st("Scaled")
    draws = {0: [({"a": Fr(1), "b": Fr(1)}, "one")], 1: [(None, "could not evaluate"),
                                                        ({"a": Fr(5), "b": Fr(1)}, "five")],
             2: [({"a": Fr(7), "b": Fr(1)}, "never reached")]}
    seen = []

    def decide(env, index, how):
        seen.append(index)
        return decide_instance(st, env, encode=_encode, index=index, description=how)

    res = search_instances(st, lambda i: draws[i], count=3, decide=decide, seed=9, budget=1, schema="test/1")
    assert seen == [0, 1] and [r.status for r in res.records] == ["holds", "undecided", "violated"]
    v = res.verdict
    assert v.status == "violated" and res.tried == 3
    assert (v.details["lhs_exact"], v.details["rhs_exact"], v.details["margin_exact"]) == ("5", "2", "-3")
    assert v.witness == {"schema": "test/1", "instance": {"a": "5", "b": "1"}, "statement": "Scaled",
                         "source": st.source, "index": 1, "seed": 9}
    assert v.details["undecided_reason"] == "could not evaluate"


def test_without_a_violation_the_verdict_names_the_tightest_instance_and_why():
    st = _st("Scaled")
    recs = [decide_instance(st, env, encode=_encode, index=i) for i, env in
            enumerate([{"a": Fr(1), "b": Fr(1)}, {"a": Fr(2), "b": Fr(3)}, {"a": Fr(-2), "b": Fr(3)}])]
    v = search_verdict(st, recs, 0, 2, schema="test/1")
    assert v.status == "inconclusive" and v.details["tightest_index"] == 1      # 6 ≤ 6: ratio 1
    assert (v.details["lhs_exact"], v.details["rhs_exact"]) == ("6", "6")
    assert v.reason.startswith("no counterexample among 2 exactly decided instances")
    assert "1 of 3 candidates fell outside the hypotheses" in v.reason
    assert search_verdict(st, recs[2:], 0, 2, schema="t").reason == "none of the instances tried satisfies the hypotheses"
    assert "no instance could be drawn" in search_verdict(st, [], 0, 2, schema="t").reason
