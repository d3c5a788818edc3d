"""pyfed.lean.terms: huge exact numbers and terms nested beyond MAX_TERM_DEPTH are refused when a statement is read, naming the term, its
position and its size (pyfed.resources.MAX_NUMERAL_DIGITS, MAX_EXPONENT)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from pyfed.lean import terms
from pyfed.lean.terms import LeanSyntaxError, parse_term
from pyfed.resources import MAX_EXPONENT, MAX_NUMERAL_DIGITS

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "statements"


@pytest.mark.parametrize("text, construct, size", [
    ("10^1000000", "power `10^1000000`", "1,000,000 decimal digits"),
    ("1 / (10 ^ 10 ^ 6 * β)", "power `10 ^ 10 ^ 6`", "1,000,000 decimal digits"),
    ("(10 : ℝ) ^ 2000", "power `(10 : ℝ) ^ 2000`", "2,000 decimal digits"),
    ("(1 / 7) ^ 5000", "power `(1 / 7) ^ 5000`", "4,225 decimal digits"),
    ("1e1000000", "numeral `1e1000000`", "1,000,001 decimal digits"),
    ("0.5e-3000", "numeral `0.5e-3000`", "3,002 decimal digits"),
    ("x ^ 1000000", "power `x ^ 1000000`", "exponent 1,000,000 is above the limit of 1000"),
    ("ηl ^ (10 ^ 4)", "power `ηl ^ (10 ^ 4)`", "exponent 10,000"),
])
def test_huge_numbers_are_refused_with_their_size(text, construct, size):
    with pytest.raises(LeanSyntaxError) as e:
        parse_term(text)
    assert e.value.construct == construct
    assert size in str(e.value)
    assert (e.value.line, e.value.col) == (1, 1) or e.value.col > 1


@pytest.mark.parametrize("text, value", [("2^64", Fraction(2**64)), ("10^999", Fraction(10**999)),
                                         ("(2^10)^100", Fraction(2**1000)), ("1e-3", Fraction(1, 1000)),
                                         ("(1/2)^100", None), ("x ^ T", None), (f"x ^ {MAX_EXPONENT}", None),
                                         ("1 ^ 100000", None)])
def test_moderate_numbers_are_read(text, value):
    node = parse_term(text)
    if value is not None and node.kind == "num":
        assert node.value == value


def test_the_limits_are_the_documented_ones():
    assert MAX_NUMERAL_DIGITS == 1000 and MAX_EXPONENT == 1000


def test_a_huge_constant_in_a_file_is_an_error_at_its_position(tmp_path):
    from cli_helpers import run_cli

    text = (EXAMPLES / "seed_convex.lean").read_text(encoding="utf-8").replace("1 / (81 * P.β)",
                                                                               "1 / (10 ^ 1000000 * P.β)", 1)
    path = tmp_path / "huge.lean"
    path.write_text(text, encoding="utf-8")
    line = next(i for i, x in enumerate(text.splitlines(), 1) if "10 ^ 1000000" in x)
    code, out, err = run_cli(["check", str(path)])
    assert code == 2 and out == ""
    assert err.startswith(f"pyfed: error: {path}:{line}:")
    assert "unsupported power `10 ^ 1000000`: its exact value has about 1,000,000 decimal digits" in err


@pytest.mark.parametrize("text, names", [
    ("fun t : ℝ => t ^ 2", ["t"]),
    ("fun t : ℝ ↦ t ^ 2", ["t"]),
    ("fun s t : ℝ => s * t", ["s", "t"]),
])
def test_fun_with_a_bare_typed_binder_reads_as_the_parenthesised_one(text, names):
    # `fun t : ℝ => …` is Lean 4 for `fun (t : ℝ) => …`: same binders, types and body
    node = parse_term(text)
    paren = parse_term(text.replace(f"{' '.join(names)} : ℝ", f"({' '.join(names)} : ℝ)"))
    assert node.kind == paren.kind == "fun"
    assert [(b.name, b.type.text) for b in node.value] == [(b.name, b.type.text) for b in paren.value] \
        == [(n, "ℝ") for n in names]
    assert node.args[0].text == paren.args[0].text


def test_fun_with_a_colon_and_no_name_is_still_an_error():
    with pytest.raises(LeanSyntaxError):
        parse_term("fun : ℝ => 1")


# ---------------------------------------------------------------- deep terms

def _deep_file(tmp_path, rhs, name="deep.lean"):
    f = tmp_path / name
    f.write_text(f"import Pyfed\nopen SCAFFOLD\n\ntheorem Deep (a : ℝ) (ha : 0 < a) :\n    a ≤ {rhs} := by sorry\n",
                 encoding="utf-8")
    return f


def _nested(n):
    e = "a"
    for _ in range(n):
        e = f"({e} + 1)"
    return e


def test_terms_deeper_than_the_limit_are_refused_at_read_time():
    from pyfed.resources import MAX_TERM_DEPTH

    with pytest.raises(terms.LeanSyntaxError, match=f"nested {MAX_TERM_DEPTH + 1} levels deep"):
        terms.parse_term(" + ".join(["a"] * (MAX_TERM_DEPTH + 5)))
    assert terms.parse_term(" + ".join(["a"] * 600)).depth == 600


@pytest.mark.slow
def test_deep_terms_are_refused_by_the_cli_before_the_work(tmp_path, capsys):
    from pyfed.cli import main
    from pyfed.resources import MAX_TERM_DEPTH

    n = MAX_TERM_DEPTH + 5
    for rhs in (" + ".join(f"{i} * a" for i in range(1, n + 1)), _nested(n)):
        f = _deep_file(tmp_path, rhs)
        assert main(["check", str(f), "--quick"]) == 2
        err = capsys.readouterr().err
        assert f"above the limit of {MAX_TERM_DEPTH} levels" in err and "RecursionError" not in err


@pytest.mark.slow
@pytest.mark.parametrize("rhs", [" + ".join(f"{i} * a" for i in range(1, 501)), _nested(300)],
                         ids=["sum of 500 terms", "300 nested parentheses"])
def test_deep_sums_and_nesting_are_checked(tmp_path, rhs, capsys):
    """These ended in RecursionError (exit 3); they are decided now (the statement is true)."""
    from pyfed.cli import main
    assert main(["check", str(_deep_file(tmp_path, rhs)), "--quick", "--no-profile"]) == 0
    out = capsys.readouterr().out
    assert "1 statement(s)" in out and "0 violated" in out
