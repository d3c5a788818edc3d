"""Lean's name resolution in the statement reader: the model's names (namespace SCAFFOLD) are in
scope only through `open SCAFFOLD`, an enclosing `namespace SCAFFOLD…` or qualification; a def
of the current namespace shadows a model definition (and its body is what is evaluated); a
bare name with two interpretations after `open` is ambiguous. Errors carry file:line:col. Commands Lean refuses (a misspelt keyword, a theorem without a proof)
are refused at their position."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from pyfed.cli import main
from pyfed.lean import terms
from pyfed import ReaderError, read_file, read_text

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples" / "statements"

BINDERS = """{d N : ℕ} (P : PROBLEM d N) {Ω : Type u} [MeasurableSpace Ω] [StandardBorelSpace Ω]
    (ν : Measure Ω) [IsProbabilityMeasure ν] (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → SPACE d)
    (xstar : SPACE d) (hconv : CONVEXITY P μ) (hmin : IS_MIN P xstar) (hηl : 0 < ηl) (hηg : 1 ≤ ηg)
    (hstep : EFF K ηl ηg ≤ 1 / (81 * P.β))
    (A : RUN P ν S K T ηl ηg (some c0))"""


def _file(*, head: str = "", ns: str | None = None, q: str = "", rhs: str = "RHS P S K T ηl ηg μ c0 xstar",
          pre: str = ""):
    """A one-theorem file; ``q`` qualifies every model name (``"SCAFFOLD."``), ``head`` goes after
    the imports (opens, defs), ``ns`` wraps the theorem in a namespace, ``pre`` precedes `theorem`."""
    names = {"PROBLEM": "Problem", "SPACE": "Space", "CONVEXITY": "Convexity", "IS_MIN": "IsMinimizer",
             "EFF": "effectiveStep", "RUN": "Run", "RHS": "convexRHS", "GAP": "weightedGap"}
    binders = BINDERS
    for k, v in names.items():
        binders = binders.replace(k, q + v)
        rhs = rhs.replace(k, q + v)
    body = f"""{pre}theorem T1 {binders} :
    {q}weightedGap A xstar μ ≤ {rhs} := by sorry
"""
    if ns is not None:
        body = f"namespace {ns}\n\n{body}\nend {ns}\n"
    return f"import Pyfed\nopen MeasureTheory\nuniverse u\n{head}\n{body}"


def _error(text, path="n.lean"):
    with pytest.raises(ReaderError) as info:
        read_text(text, path)
    return str(info.value)


def test_missing_open_is_an_unknown_identifier_at_its_position():
    text = _file()
    msg = _error(text)
    line, col = terms.position_of(text, text.index("Problem d N"))
    first = msg.splitlines()[0]
    assert first == (f"n.lean:{line}:{col}: unknown identifier 'Problem' (the model's definitions live in "
                     "namespace SCAFFOLD: add `open SCAFFOLD` or write SCAFFOLD.Problem)"), msg


def test_missing_open_on_the_right_side_names_the_definition():
    # binder types qualified, the right side's convexRHS bare: the error points at convexRHS
    text = _file(q="SCAFFOLD.").replace("SCAFFOLD.convexRHS", "convexRHS")
    msg = _error(text)
    line, col = terms.position_of(text, text.index("convexRHS"))
    assert f"n.lean:{line}:{col}: unknown identifier 'convexRHS'" in msg and "open SCAFFOLD" in msg, msg


def test_missing_open_exits_2_from_the_cli(tmp_path, capsys):
    f = tmp_path / "noopen.lean"
    f.write_text(_file(), encoding="utf-8")
    assert main(["check", str(f), "--quick"]) == 2
    err = capsys.readouterr().err
    assert f"{f}:" in err and "unknown identifier 'Problem'" in err and "Traceback" not in err


@pytest.mark.parametrize("how", ["open", "open_in", "open_in_line", "namespace", "nested_namespace", "qualified",
                                 "root_qualified", "section_open"])
def test_every_lean_way_to_name_the_model_reads_the_same_statement(how):
    base = read_text(_file(head="open SCAFFOLD"), "a.lean")[0]
    text = {"open": _file(head="open SCAFFOLD"),
            "open_in": _file(pre="open SCAFFOLD in\n"),
            "open_in_line": _file(pre="open SCAFFOLD in ").replace("in theorem", "in theorem"),
            "namespace": _file(ns="SCAFFOLD"),
            "nested_namespace": _file(ns="SCAFFOLD.Mine"),
            "qualified": _file(q="SCAFFOLD."),
            "root_qualified": _file(q="_root_.SCAFFOLD."),
            "section_open": _file(head="section\nopen SCAFFOLD").replace(":= by sorry\n", ":= by sorry\nend\n")}[how]
    (st,) = read_text(text, "b.lean")
    assert st.lhs.head_name() == "weightedGap" and st.rhs.head_name() == "convexRHS"
    assert [p.role for p in st.parameters] == [p.role for p in base.parameters]
    assert [h.key for h in st.hypotheses] == [h.key for h in base.hypotheses]


def test_open_in_and_section_open_do_not_leak():
    # `open SCAFFOLD in` covers one command; a section's `open` ends with the section
    two = _file(pre="open SCAFFOLD in\n") + _file().split("universe u\n", 1)[1].replace("T1", "T2")
    msg = _error(two)
    assert "unknown identifier 'Problem'" in msg and ":1:" not in msg.split("unknown")[0][-4:]
    leak = "import Pyfed\nopen MeasureTheory\nuniverse u\nsection\nopen SCAFFOLD\nend\n" + \
        _file().split("universe u\n", 1)[1]
    assert "unknown identifier 'Problem'" in _error(leak)


def test_local_def_shadows_the_model_definition_and_its_body_is_used():
    from pyfed.models.scaffold.exact import decide_exact
    from pyfed.models.scaffold.candidates import candidate
    shadow = ("def convexRHS (P : Problem d N) (S K T : ℕ) (ηl ηg μ : ℝ) (c0 : Fin N → Space d) (xstar : Space d) : ℝ "
              ":= 1000 + ηl")
    text = _file(ns="SCAFFOLD.Mine").replace("namespace SCAFFOLD.Mine\n\n",
                                             "namespace SCAFFOLD.Mine\n\nvariable {d N : ℕ}\n\n" + shadow + "\n\n")
    (st,) = read_text(text, "s.lean")
    (model_st,) = read_text(_file(ns="SCAFFOLD.Mine"), "m.lean")
    assert st.rhs.head_name() != "convexRHS"                       # not the model's definition
    assert list(st.definitions) == [st.rhs.head_name()]
    assert st.definitions[st.rhs.head_name()].body.text == "1000 + ηl"
    inst, _ = candidate(model_st, 0, 18)
    v = decide_exact(st, inst)
    assert v.rhs == 1000 + Fraction(inst.eta_l)                    # the user's body, evaluated exactly
    assert decide_exact(model_st, inst).rhs != v.rhs


def test_ambiguous_name_after_open_is_an_error():
    # a root-level def `weightSum` and SCAFFOLD.weightSum, both visible after `open SCAFFOLD`
    head = "open SCAFFOLD\ndef weightSum (μ h : ℝ) (T : ℕ) : ℝ := T"
    text = _file(head=head, rhs="weightSum μ (effectiveStep K ηl ηg) T")
    msg = _error(text)
    line, col = terms.position_of(text, text.rindex("weightSum μ"))
    assert f"n.lean:{line}:{col}: ambiguous identifier `weightSum`" in msg, msg
    assert "`weightSum`" in msg and "`SCAFFOLD.weightSum`" in msg
    # qualifying either one resolves it
    (st,) = read_text(text.replace("≤ weightSum", "≤ SCAFFOLD.weightSum"), "q.lean")
    assert st.rhs.head_name() == "weightSum" and not st.definitions
    (st,) = read_text(text.replace("≤ weightSum", "≤ _root_.weightSum"), "r.lean")
    assert st.rhs.head_name() != "weightSum" and st.definitions[st.rhs.head_name()].body.text == "T"


def test_user_defs_resolve_in_their_namespace():
    head = "namespace Extra\ndef twice (x : ℝ) : ℝ := 2 * x\nend Extra"
    ok = _file(head="open SCAFFOLD\n" + head, rhs="Extra.twice μ")
    (st,) = read_text(ok, "e.lean")
    assert st.definitions[st.rhs.head_name()].body.text == "2 * x"
    bad = _file(head="open SCAFFOLD\n" + head, rhs="twice μ")
    assert "unknown identifier 'twice'" in _error(bad)      # Lean's words: `twice` is Extra.twice


def test_repository_files_still_read():
    for f in sorted(EXAMPLES.glob("*.lean")):
        assert read_file(f)
    from pyfed.models.scaffold.model import our_statements
    assert {"ConvexFiniteRoundConvergence", "NonconvexFiniteRoundConvergence"} <= set(our_statements())


STMT = "(a : ℝ) (ha : 0 < a) :\n    0 < a * a"


def _refused(text) -> str:
    with pytest.raises(ReaderError) as exc:
        read_text(text, "t.lean")
    return str(exc.value)


@pytest.mark.parametrize("typo, meant", [("theorm", "theorem"), ("namespce", "namespace"), ("lema", "lemma")])
def test_misspelt_command_is_named_at_its_position(typo, meant):
    text = f"import Pyfed\n\nnamespace SCAFFOLD.Trial\n\n{typo} T {STMT} := by sorry\n\nend SCAFFOLD.Trial\n"
    msg = _refused(text)
    assert msg.startswith("t.lean:5:1: ")
    assert f"`{typo}`" in msg and f"did you mean `{meant}`?" in msg


def test_misspelt_command_after_a_theorem_is_not_swallowed_by_it():
    text = f"import Pyfed\n\ntheorem A {STMT} := by sorry\n\ntheorm B {STMT} := by sorry\n"
    assert _refused(text).startswith("t.lean:6:1: ")


def test_a_continuation_line_at_column_one_is_not_a_command():
    text = "import Pyfed\n\ntheorem A (a : ℝ) (ha : 0 < a) :\n0 < a * a := by\n  sorry\n"
    assert [s.name for s in read_text(text, "t.lean")] == ["A"]


def test_theorem_without_a_proof_is_refused_where_the_proof_should_start():
    text = f"import Pyfed\n\ntheorem NoBody {STMT}\n\ntheorem Fine {STMT} := by sorry\n"
    msg = _refused(text)
    # the statement ends at `a * a` on line 4: `:=` was expected right after it
    assert msg.startswith(f"t.lean:4:{len('    0 < a * a') + 1}: ")
    assert "NoBody" in msg and "without a proof" in msg and "Fine" not in msg


def test_an_unclosed_bracket_is_reported_as_such_not_as_a_missing_proof():
    text = "import Pyfed\n\ntheorem P (a : ℝ) (ha : 0 < a) :\n    0 < a * (a + 1 := by sorry\n"
    msg = _refused(text)
    assert msg.startswith(f"t.lean:4:{'    0 < a * (a + 1 '.__len__() + 1}: ") and "expected ')'" in msg
    assert "without a proof" not in msg


# ---------------------------------------------------------------- Lean's own rules, Lean's words

YOUNG = """theorem NAME {d : ℕ} (u v : Space d) (a : ℝ) (ha : 0 < a) :
    2 * |inner ℝ u v| ≤ A * ‖u‖ ^ 2 + a⁻¹ * ‖v‖ ^ 2 := by sorry
"""


def _young(name="Young", a="a", head="import Pyfed\nopen SCAFFOLD\n\n"):
    return head + YOUNG.replace("NAME", name).replace("A *", f"{a} *")


def test_duplicate_theorem_names_are_an_error_at_the_second_as_in_lean(tmp_path, capsys):
    # the earlier (false) theorem used to be dropped silently: exit 0 on the true one, twice
    text = _young(a="a / 2") + "\n" + YOUNG.replace("NAME", "Young").replace("A *", "a *")
    line, col = terms.position_of(text, text.rindex("Young"))
    first = terms.position_of(text, text.index("Young"))
    msg = _error(text)
    assert msg == f"n.lean:{line}:{col}: 'Young' has already been declared; first declared at n.lean:{first[0]}:{first[1]}"
    f = tmp_path / "dup.lean"
    f.write_text(text, encoding="utf-8")
    assert main(["check", str(f), "--quick"]) == 2
    assert f"{f}:{line}:{col}: 'Young' has already been declared" in capsys.readouterr().err
    # in a namespace Lean names the full name; a def and a theorem share one name space too
    ns = "import Pyfed\nopen SCAFFOLD\nnamespace X\ndef Young (a : ℝ) : ℝ := a\n" + YOUNG.replace("NAME", "Young") \
        .replace("A *", "a *") + "end X\n"
    assert "'X.Young' has already been declared" in _error(ns)


def test_same_theorem_name_in_two_namespaces_is_refused_not_lost():
    text = ("import Pyfed\nopen SCAFFOLD\nnamespace A\n" + YOUNG.replace("NAME", "Young").replace("A *", "a / 2 *")
            + "end A\nnamespace B\n" + YOUNG.replace("NAME", "Young").replace("A *", "a *") + "end B\n")
    msg = _error(text)
    assert "two theorems named `Young` (A.Young and B.Young)" in msg and "rename one" in msg


@pytest.mark.parametrize("bad,where,message", [
    ("\t2 * |inner", "\t2", "tabs are not allowed; please configure your editor to expand them"),
    ("a⁻¹ * ‖v‖ ^ 2", "２", "unexpected character '２' (U+FF12 FULLWIDTH DIGIT TWO); Lean's numerals are written "
                              "with the ASCII digits 0-9 (write 2)"),
    ("(ha : 0 < a)", "\u200b", "unexpected invisible character U+200B ZERO WIDTH SPACE"),
    ("theorem Young", "\u2060", "unexpected invisible character U+2060 WORD JOINER"),
])
def test_what_lean_refuses_is_refused_in_its_words(bad, where, message):
    text = _young()
    edited = {"\t2 * |inner": text.replace("    2 * |inner", "\t2 * |inner"),
              "a⁻¹ * ‖v‖ ^ 2": text.replace("‖v‖ ^ 2", "‖v‖ ^ ２"),
              "(ha : 0 < a)": text.replace("(ha : 0 < a)", "(ha : 0 < a\u200b)"),
              "theorem Young": text.replace("theorem Young", "theorem You\u2060ng")}[bad]
    line, col = terms.position_of(edited, edited.index(where))
    msg = _error(edited)
    assert msg.startswith(f"n.lean:{line}:{col}: {message}"), msg
    assert "supported:" not in msg


def test_tabs_and_invisible_characters_inside_comments_are_fine_as_in_lean():
    text = _young().replace("open SCAFFOLD\n", "open SCAFFOLD\n-- a\ttab \u200b here\n/- and\there -/\n")
    (st,) = read_text(text, "c.lean")
    assert st.name == "Young"


@pytest.mark.parametrize("proof,expected", [(":= by\n", "expected '{' or tactic"), (":=\n", "expected term")])
def test_an_empty_proof_is_refused_as_lean_does(proof, expected):
    text = _young().replace(":= by sorry\n", proof)
    msg = _error(text)
    assert f"unexpected end of input; {expected}" in msg, msg
    two = text + "\ntheorem Other (a : ℝ) : a ≤ a := by sorry\n"
    line, col = terms.position_of(two, two.index("theorem Other"))
    assert f"n.lean:{line}:{col}: unexpected token 'theorem'; {expected}" in _error(two)


def test_guillemet_names_example_and_lemma_are_read_as_lean_reads_them():
    (st,) = read_text(_young(name="«Young's inequality, halved»", a="a / 2"), "g.lean")
    assert st.name == "«Young's inequality, halved»"
    # «x» is the name x
    (st,) = read_text(_young(name="«Young»"), "g.lean")
    assert st.name == "Young"
    ex = _young().replace("theorem Young", "example")
    (st,) = read_text(ex, "e.lean")
    assert st.name == f"example@{terms.position_of(ex, ex.index('example'))[0]}"
    (st,) = read_text(_young().replace("theorem Young", "lemma Young"), "l.lean")
    assert st.name == "Young"
    # a guillemet component inside a term
    t = terms.tokenize("«a b».«c» + «d»")
    assert [x.text for x in t] == ["«a b».c", "+", "d"]


def test_an_unbound_name_is_lean_s_unknown_identifier_at_its_position(tmp_path, capsys):
    text = _young(a="w")
    line, col = terms.position_of(text, text.index("w *"))
    msg = _error(text)
    assert msg == f"n.lean:{line}:{col}: unknown identifier 'w'", msg     # no list of supported constructs
    f = tmp_path / "typo.lean"
    f.write_text(text.replace("w *", "aa *"), encoding="utf-8")
    assert main(["check", str(f), "--quick"]) == 2
    err = capsys.readouterr().err
    assert "unknown identifier 'aa'; did you mean `a`?" in err and "supported" not in err
    # a run statement and a FedAvg statement say the same
    assert "unknown identifier 'foo'" in _error(_file(head="open SCAFFOLD", rhs="foo"))
    # a name that may be Mathlib's is outside the vocabulary: then the list is useful
    cos = _error(_young(a="Real.cos a"))
    assert "unsupported name `Real.cos`" in cos and "supported:" in cos
