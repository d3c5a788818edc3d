"""The cost of an evaluation estimated before it runs (pyfed.evaluation.cost): exact counts on
small terms, sums and quantifiers multiply, a recursive definition costs linear time in its
index, the estimate bounds the steps actually taken; the run-free search does not evaluate a
candidate above the cap, and `pyfed check` refuses a file whose estimate is over the time limit."""

from __future__ import annotations

from fractions import Fraction as Fr

import pytest

from pyfed import resources
from pyfed.checkers import families as fam
from pyfed.checkers.registry import statements_of
from pyfed.evaluation import evaluator as evaluator_module
from pyfed.evaluation.cost import estimate_steps
from pyfed.lean.terms import parse_term
from pyfed.statements.interpret import Fun, Interpreter, vec


def test_counts_by_hand():
    assert estimate_steps(parse_term("x + 1"), {}) == 3                      # binop, ident, num
    # a sum: 1 + the range's 3 nodes + n times the body's 3 nodes
    assert estimate_steps(parse_term("∑ r ∈ Finset.range n, (r + 1)"), {"n": 10}) == 1 + 3 + 10 * 3
    # an unknown bound counts as nat_default
    assert estimate_steps(parse_term("∑ r ∈ Finset.range m, r"), {}, nat_default=7) == 1 + 3 + 7 * 1
    # nested sums multiply
    assert estimate_steps(parse_term("∑ i ∈ Finset.range n, ∑ j ∈ Finset.range n, (i * j)"), {"n": 4}) == \
        1 + 3 + 4 * (1 + 3 + 4 * 3)


def _scaffold_env(r):
    orc = fam.affine_oracle([[2]], [1], [])
    return {"d": 1, "N": 1, "opt": "SCAFFOLD.ControlOption.optionII", "S": 1, "K": 1, "ηl": Fr(1, 4),
            "ηg": Fr(1), "oracle": Fun(lambda t: fam.client_oracles([orc])), "samples": fam.samples([[0]]),
            "x0": vec([Fr(3, 2)]), "c0": fam.fin_family([vec([0])]), "r": r}


def test_a_recursion_over_rounds_is_estimated_linear_in_the_round_index_and_bounds_the_steps(monkeypatch):
    st = statements_of("ServerControlIsMean")[0]
    it = Interpreter(st.file_decls)
    est = {r: estimate_steps(st.conclusion, _scaffold_env(r), it.definitions) for r in (30, 60, 120)}
    assert 1.8 < est[60] / est[30] < 2.2 and 1.8 < est[120] / est[60] < 2.2
    steps = [0]
    real = evaluator_module.Evaluator.eval

    def counting(self, node, env):
        steps[0] += 1
        return real(self, node, env)
    monkeypatch.setattr(evaluator_module.Evaluator, "eval", counting)
    assert it.holds(st.conclusion, _scaffold_env(60))
    assert steps[0] <= est[60] <= 10 * steps[0]          # an upper bound, within an order of magnitude


def test_the_search_does_not_evaluate_a_candidate_above_the_cap(monkeypatch):
    from pyfed.models.runfree import search

    st = statements_of("SumSquares")[0]
    env = {"d": 1, "m": 3, "u": fam.fin_family([vec([1]), vec([2]), vec([3])])}
    steps = search.candidate_steps(st, env, Interpreter(st.file_decls))
    assert search.decide_lemma_instance(st, env).status == "holds"
    from pyfed.engines.statement import lean_search
    monkeypatch.setattr(lean_search, "MAX_CANDIDATE_STEPS", steps - 1)   # the generic decision of every run-free model
    rec = search.decide_lemma_instance(st, env)
    assert rec.status == "undecided" and f"not evaluated: an estimated {steps:.2g} evaluation steps" in rec.reason


def test_candidate_seconds_are_bounded_by_the_cap():
    assert resources.candidate_seconds(None) == resources.CANDIDATE_SECONDS
    assert resources.candidate_seconds(10) == resources.CANDIDATE_SECONDS
    cap = resources.candidate_seconds(resources.MAX_CANDIDATE_STEPS)
    assert resources.candidate_seconds(10 ** 12) == cap == resources.SECONDS_PER_STEP * resources.MAX_CANDIDATE_STEPS


ROUNDS = """import Pyfed

namespace SCAFFOLD

theorem ControlAfterRounds {d N : ℕ} (opt : ControlOption) (S K : ℕ) (ηl ηg : ℝ)
    (oracle : ℕ → Fin N → LocalOracle d) (samples : ℕ → Finset (Fin N)) (x0 : Space d)
    (c0 : Fin N → Space d) (hS : 0 < S) (r : ℕ) :
    (scaffold opt S K ηl ηg oracle samples x0 c0 r).c =
      (N : ℝ)⁻¹ • ∑ i, (scaffold opt S K ηl ηg oracle samples x0 c0 r).ci i := by
  sorry

end SCAFFOLD
"""


def test_check_refuses_a_file_whose_evaluation_is_over_the_time_limit(tmp_path, capsys, monkeypatch):
    from cli_helpers import forbid, one_error_line, run_main

    p = tmp_path / "rounds.lean"
    p.write_text(ROUNDS, encoding="utf-8")
    # each candidate at the search's largest sizes (N, S, K, r up to 100) is estimated at the cap
    forbid(monkeypatch, "pyfed.check", "check_statement")
    code, _, err = run_main(["check", str(p), "--quick", "--budget", "50", "--max-seconds", "60"], capsys)
    assert code == 2
    one_error_line(err, "--budget")
    assert "above the limit of 60 s" in err
