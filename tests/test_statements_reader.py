"""The Lean statement reader (issue 10): both binder shapes, today's and the published statements,
Lean's typing of arithmetic, and file:line:col errors for everything outside the subset."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from pyfed.cli import main
from pyfed.lean import terms
from pyfed import ReaderError, read_file, read_text
from pyfed.models.scaffold.model import our_statements

HERE = Path(__file__).resolve().parent
FIX = HERE / "data" / "statements"
EXAMPLES = HERE.parent / "examples" / "statements"


def _shape(st):
    """What a statement says, independent of how its binders were written."""
    return {
        "params": [(p.name, p.kind, p.role) for p in st.parameters if p.kind not in ("prop", "instance")],
        "hyps": [(h.key, h.kind, h.op, " ".join(h.text.strip("()").split())) for h in st.hypotheses],
        "init": (st.init, st.controls), "lhs": st.lhs.text, "rhs": st.rhs.text, "rel": st.relation,
        "run": {k: v.text for k, v in st.run.items()}, "stats": st.statistics,
    }


def test_both_binder_shapes_read_to_the_same_statement():
    after = our_statements()["ConvexFiniteRoundConvergence"]
    (before,) = read_file(FIX / "binders_before.lean")
    assert before.name == "ConvexBindersBefore" and before.namespace == "SCAFFOLD.Fixtures"
    assert _shape(before) == _shape(after)
    # the named hypotheses keep their Lean names
    assert [h.name for h in before.hypotheses] == ["hconv", "hmin", "hηl", "hηg", "hstep", "hμ"]
    assert [h.key for h in before.hypotheses] == ["convexity", "minimizer", "eta_l", "eta_g", "step_size", "mu_h"]


def test_both_shapes_give_the_same_exact_verdict():
    from pyfed.models.scaffold.exact import decide_exact
    from pyfed.models.scaffold.candidates import candidate
    after = our_statements()["ConvexFiniteRoundConvergence"]
    (before,) = read_file(FIX / "binders_before.lean")
    inst, _ = candidate(after, 0, 18)
    a, b = decide_exact(after, inst), decide_exact(before, inst)
    assert a.status == b.status == "holds"
    assert a.lhs == b.lhs and a.rhs == b.rhs and isinstance(a.lhs, Fraction)


def test_published_statements_read_like_ours():
    ours = our_statements()
    pub = {st.name: st for st in read_file(FIX / "published_scaffold.lean")}
    assert set(pub) == {"ConvexFiniteRoundConvergence", "NonconvexFiniteRoundConvergence"}
    assert _shape(pub["ConvexFiniteRoundConvergence"]) == _shape(ours["ConvexFiniteRoundConvergence"])
    a, b = pub["NonconvexFiniteRoundConvergence"], ours["NonconvexFiniteRoundConvergence"]
    # fLower vs f_low and (2 / 3 : ℝ) vs (2 / 3): the same statement up to those spellings
    assert [p.role for p in a.parameters] == [p.role for p in b.parameters]
    assert [h.key for h in a.hypotheses] == [h.key for h in b.hypotheses] == ["f_low", "eta_l", "eta_g", "step_size"]
    assert a.role_of("f_low") == "fLower" and b.role_of("f_low") in ("f_low", "fLower")


def test_roles_of_the_seed_statement():
    st = our_statements()["ConvexFiniteRoundConvergence"]
    roles = {p.name: p.role for p in st.parameters if p.role}
    assert roles == {"d": "d", "N": "N", "P": "P", "Ω": "Omega", "ν": "nu", "S": "S", "K": "K", "T": "T",
                     "ηl": "eta_l", "ηg": "eta_g", "μ": "mu", "c0": "c0", "xstar": "xstar", "A": "A"}
    assert st.source == "lean/Pyfed/Scaffold/Theorems.lean:" + str(st.location.line)
    step = st.hypothesis("step_size")
    assert step.step and step.location.line > st.location.line


def _statement(body: str, *, header: str = "", binders: str = "", name: str = "T1"):
    """A one-theorem file: the seed's binders, ``binders`` more, hypotheses and conclusion ``body``."""
    text = f"""import Pyfed
open MeasureTheory
namespace SCAFFOLD.Tests
universe u
{header}
theorem {name} :
  ∀ (d N : ℕ) (P : Problem d N) (Ω : Type u) [MeasurableSpace Ω]
    [StandardBorelSpace Ω] (ν : Measure Ω) [IsProbabilityMeasure ν]
    (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d){binders},
    {body} := by sorry
end SCAFFOLD.Tests
"""
    return text


RUN = "∀ A : Run P ν S K T ηl ηg (some c0),"


def _read(body, **kw):
    return read_text(_statement(body, **kw), "t.lean")


def test_lean_typing_of_natural_number_arithmetic():
    from pyfed.models.scaffold.access import ExactAccess, bind
    from pyfed.models.scaffold.candidates import candidate
    from pyfed.statements.evaluate import evaluate
    (st,) = _read(f"{RUN} weightedGap A xstar μ ≤ (S / N : ℝ) + ((S - N : ℕ) : ℝ) + (T : ℝ) ^ (2 / 3) + "
                  "(3 / 2 : ℝ) + ((K / 2 : ℕ) : ℝ)")
    inst, _ = candidate(st, 0, 27)           # S = 1 of N = 3, K = 2, T = 6
    val = bind(st, inst, ExactAccess(inst))
    # ℝ division of the casts, truncated ℕ subtraction, ℕ exponent 2/3 = 0, ℕ floor division
    assert evaluate(st.rhs, val) == Fraction(1, 3) + 0 + 1 + Fraction(3, 2) + 1


def test_real_exponent_is_rpow_and_decided_exactly():
    from pyfed.models.scaffold.access import ExactAccess, bind
    from pyfed.models.scaffold.candidates import candidate
    from pyfed.statements.evaluate import decide, evaluate
    (st,) = _read(f"{RUN} weightedGap A xstar μ ≤ Real.rpow (8 : ℝ) (2 / 3) + Real.sqrt 2 + max 1 2")
    inst, _ = candidate(st, 0, 0)
    rhs = evaluate(st.rhs, bind(st, inst, ExactAccess(inst)))
    assert decide("<", Fraction(7413, 1000), rhs) and decide("<", rhs, Fraction(7415, 1000))   # 4 + √2 + 2


def test_user_defs_and_variables_are_read():
    header = """
variable {d N : ℕ} {P : Problem d N} {Ω : Type*} [MeasurableSpace Ω] [StandardBorelSpace Ω]
  {ν : Measure Ω} [IsProbabilityMeasure ν] {S K T : ℕ} {ηl ηg : ℝ} {init : Initialization d N}

noncomputable def firstGap (A : Run P ν S K T ηl ηg init) (xstar : Space d) : ℝ :=
  expectedGap A xstar 0

noncomputable def twice (x : ℝ) : ℝ := 2 * x
"""
    (st,) = _read(f"{RUN} firstGap A xstar ≤ twice (‖P.x0 - xstar‖ ^ 2)", header=header)
    assert st.statistics == ["expectedGap"] and set(st.definitions) == {"firstGap", "twice"}
    from pyfed.models.scaffold.exact import decide_exact
    from pyfed.models.scaffold.candidates import candidate
    inst, _ = candidate(st, 0, 18)
    v = decide_exact(st, inst)
    # at round 0 the gap is F(x0) - F(x*) <= beta/2 ||x0 - x*||^2 <= 2 ||x0 - x*||^2 (beta = 4)
    assert v.status == "holds" and v.lhs == inst.problem.value_exact(inst.x0) - inst.problem.f_star


# ---------------------------------------------------------------- unsupported constructs

UNSUPPORTED = [
    # (body, header, construct named in the message, the text the position must point at)
    (f"{RUN} ∫ ω, (1 : ℝ) ∂ν ≤ convexRHS P S K T ηl ηg μ c0 xstar", "", "integral", "∫ ω"),
    (f"{RUN} weightedGap A xstar μ ≤ 2 * weightedGap A xstar μ", "", "statistic `weightedGap`", "weightedGap"),
    ("(∃ y : Space d, y = xstar) → " + RUN + " weightedGap A xstar μ ≤ 1", "", "existential hypothesis", "(∃ y"),
    ("¬ (ηl = 0) → " + RUN + " weightedGap A xstar μ ≤ 1", "", "negated hypothesis", "¬ (ηl"),
    (f"{RUN} weightedGap A xstar μ = 1", "", "conclusion", "weightedGap A xstar μ = 1"),
    (f"{RUN} weightedGap A xstar μ ≤ ‖gradient (P.f 0) xstar‖", "", "gradient (P.f 0) xstar", "gradient (P.f"),
    ("(q : ℚ) → " + RUN + " weightedGap A xstar μ ≤ q", "", "number type", "ℚ) →"),
    ("(h : ∀ n : ℕ, n < K → 0 < ηl) → " + RUN + " weightedGap A xstar μ ≤ 1", "", "hypothesis `∀ n, …`", "∀ n :"),
    ("∀ A : Run P ν S K T ηl ηg c0, weightedGap A xstar μ ≤ 1", "", "initialisation", "c0, weightedGap"),
    (f"{RUN} weightedGap A xstar μ ≤ if 0 < ηl then 1 else 2", "", "`if … then … else …`", "if 0 < ηl"),
    (f"{RUN} weightedGap A xstar μ ≤ Real.cos ηl", "", "name `Real.cos`", "Real.cos"),
    (f"{RUN} weightedGap A xstar μ ≤ initialPotential P S (effectiveStep K ηl ηg) c0", "", "applied to 4 arguments",
     "initialPotential P S"),
]


def _case_text(body, header):
    text = _statement(body, header=header)
    return text


@pytest.mark.parametrize("body,header,construct,marker", UNSUPPORTED)
def test_unsupported_construct_is_a_located_error(body, header, construct, marker):
    text = _case_text(body, header)
    line, col = terms.position_of(text, text.rindex(marker))
    with pytest.raises(ReaderError) as info:
        read_text(text, "u.lean")
    msg = str(info.value)
    assert msg.startswith(f"u.lean:{line}:{col}: unsupported"), (msg, line, col)
    assert construct in msg, msg
    assert "supported:" in msg


def test_unsupported_constructs_exit_2_from_the_cli(tmp_path, capsys):
    for k, (body, header, construct, marker) in enumerate(UNSUPPORTED):
        text = _case_text(body, header)
        line, col = terms.position_of(text, text.rindex(marker))
        f = tmp_path / f"bad{k}.lean"
        f.write_text(text, encoding="utf-8")
        assert main(["check", str(f), "--quick"]) == 2
        err = capsys.readouterr().err
        assert f"{f}:{line}:{col}: unsupported" in err and construct in err, err
        assert "Traceback" not in err


def test_unreadable_and_modelless_files_exit_2(tmp_path, capsys):
    assert main(["check", str(tmp_path / "missing.lean")]) == 2
    assert "cannot read" in capsys.readouterr().err
    f = tmp_path / "noimport.lean"
    f.write_text(_statement(f"{RUN} weightedGap A xstar μ ≤ 1").replace("import Pyfed", "import Mathlib"))
    assert main(["check", str(f)]) == 2
    assert "import Pyfed" in capsys.readouterr().err
    assert main(["check", str(EXAMPLES / "seed_convex.lean"), "--theorem", "Nope"]) == 2
    assert "--theorem" in capsys.readouterr().err


def test_grammar_positions_and_lean_precedences():
    t = terms.parse_term("-x ^ 2 * y + ∑ r ∈ Finset.range T, w r * g r + z", line=3, col=5)
    assert repr(t) == "(((neg[None]((x ^ 2)) * y) + sum[r](((Finset.range T)), ((w r) * (g r)))) + z)" \
        or t.kind == "binop"
    assert (t.line, t.col) == (3, 5)
    with pytest.raises(terms.LeanSyntaxError) as info:
        terms.parse_term("a + ⟨b⟩", line=7, col=2)
    assert (info.value.line, info.value.col) == (7, 6)
    # drift check and reader share it: the drift parser's errors carry positions too
    from pyfed.lean import drift
    with pytest.raises(ValueError, match="1:5"):
        drift.parse_expression("x + y % 2")


def test_examples_are_read():
    names = {}
    for f in sorted(EXAMPLES.glob("*.lean")):
        text = f.read_text(encoding="utf-8")
        assert text.startswith("import Pyfed\n")
        for st in read_file(f):
            names[st.name] = st
    runs = {n for n, st in names.items() if st.shape == "scaffold_run"}
    assert runs == {"SeedConvex", "ConvexWithoutNoiseTerm", "ConvexWithoutStepSize", "ConvexLastIterate",
                    "NonconvexSmallConstant", "PartialNoisyConvex"}
    assert {st.family for n, st in names.items() if n not in runs} >= {"vector lemma", "function-class lemma",
                                                                        "sequence lemma"}
    names = {n: st for n, st in names.items() if n in runs}
    assert names["ConvexWithoutStepSize"].hypothesis("step_size") is None
    assert names["NonconvexSmallConstant"].init == "none"
    assert np.all([st.namespace == "SCAFFOLD.Examples" for st in names.values()])


# ---------------------------------------------------------------- odd files (issue 20, item 5)

LEMMA = "import Pyfed\n\nopen SCAFFOLD\n\ntheorem Half (x : ℝ) (hx : 0 ≤ x) : x / 2 ≤ x := by\n  sorry\n"


def test_a_byte_order_mark_is_ignored(tmp_path):
    f = tmp_path / "bom.lean"
    f.write_bytes("\ufeff".encode("utf-8") + LEMMA.encode("utf-8"))
    (st,) = read_file(f)
    assert st.name == "Half" and st.location.line == 5


def test_a_file_that_is_not_lean_is_named_in_the_error(tmp_path, capsys):
    f = tmp_path / "notes.lean"
    f.write_text("hello world\n", encoding="utf-8")
    with pytest.raises(ReaderError) as info:
        read_file(f)
    assert str(info.value).startswith(f"{f}:1:1: unsupported text outside a command")
    assert main(["check", str(f)]) == 2
    assert capsys.readouterr().err.startswith(f"pyfed: error: {f}:1:1")


def test_a_path_not_ending_in_lean_is_refused_before_reading(tmp_path, capsys):
    from pyfed.errors import InputError
    f = tmp_path / "README.md"
    f.write_text("# notes\n\ntheorems below\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"^PATH: .*README\.md' is not a Lean file"):
        read_file(f)
    assert main(["check", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("pyfed: error: PATH: ") and "not a Lean file" in err and err.count("\n") == 1
    # also a missing file with the wrong suffix: the suffix is named, not the missing file
    assert main(["check", str(tmp_path / "nope.txt")]) == 2
    assert "not a Lean file" in capsys.readouterr().err


def test_several_errors_are_one_line_each(tmp_path, capsys):
    f = tmp_path / "two.lean"
    f.write_text("import Pyfed\n\ntheorem A (x : ℤ) : x ≤ x := sorry\n\ntheorem B (x : ℤ) : x ≤ x := sorry\n",
                 encoding="utf-8")
    assert main(["check", str(f)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith(f"pyfed: error: {f}:") for line in lines)
    assert [line.split(":")[3] for line in lines] == ["3", "5"]


def test_let_in_a_conclusion_needs_no_parentheses():
    (st,) = read_text("import Pyfed\n\nopen SCAFFOLD\n\ntheorem L (x : ℝ) (hx : 0 ≤ x) :\n"
                      "    let y := x / 2\n    y ≤ x := by\n  sorry\n", "l.lean")
    assert st.name == "L" and st.relation == "≤"


def test_old_big_operator_spelling_names_the_new_one():
    with pytest.raises(ReaderError) as info:
        read_text("import Pyfed\n\nopen SCAFFOLD\n\ntheorem S (T : ℕ) (a : ℕ → ℝ) :\n"
                  "    ∑ r in Finset.range T, a r ≤ ∑ r in Finset.range T, |a r| := by\n  sorry\n", "s.lean")
    msg = str(info.value)
    assert msg.startswith("s.lean:6:") and "∑ x ∈ s" in msg


def test_a_file_that_is_not_utf8_is_named_with_line_and_column(tmp_path):
    from pyfed.errors import InputError
    from pyfed import read_file
    p = tmp_path / "latin1.lean"
    p.write_bytes("import Pyfed\n\ntheorem Bad".encode("utf-8") + b"\xff" + " (a : ℝ) : a ≤ a := by sorry\n".encode("utf-8"))
    with pytest.raises(InputError) as exc:
        read_file(p)
    msg = str(exc.value)
    assert msg.startswith(f"{p}:3:12: ") and "not UTF-8" in msg and "ff" in msg
    assert "codec" not in msg
    # a character before the bad byte counts as one column
    p.write_bytes("import Pyfed\n\n-- ℝ".encode("utf-8") + b"\xfe\n")
    with pytest.raises(InputError, match=r":3:5: the file is not UTF-8 \(byte fe\)"):
        read_file(p)
