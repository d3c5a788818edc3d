"""Certified interval subdivision (pyfed.engines.proof.intervals): a positive polynomial on a box
proven piece by piece in ball arithmetic, a negative one not, a region refuted, a corrupted cover
refused."""

from __future__ import annotations

from fractions import Fraction

import sympy

from pyfed.engines.proof.intervals import box_of, prove_on_box
from pyfed.engines.proof.positivstellensatz import Fact

x, y = sympy.symbols("x y")
BOX = [Fact(x, False, "0 ≤ x"), Fact(1 - x, False, "x ≤ 1")]


def test_the_box_is_read_from_single_variable_facts():
    assert box_of(BOX, [x]) == {x: (Fraction(0), Fraction(1))}
    assert box_of(BOX[:1], [x]) is None


def test_a_positive_cubic_on_the_unit_interval_and_a_negative_one():
    cover = prove_on_box(x ** 3 - x ** 2 + Fraction(1, 4), BOX, strict=True)
    assert cover is not None and cover.verify() and all(how == "target" for _, how in cover.pieces)
    assert prove_on_box(x ** 3 - x ** 2 + Fraction(1, 8), BOX, strict=True) is None     # −0.023 at x = 2/3


def test_a_region_is_refuted_and_a_corrupted_cover_is_refused():
    facts = BOX + [Fact(y, False), Fact(1 - y, False), Fact(x ** 3 + y ** 3 - Fraction(5, 2), True, "x³ + y³ > 5/2")]
    cover = prove_on_box(0, facts, refute=True)
    assert cover is not None and cover.verify()
    piece, how = cover.pieces[0]
    cover.pieces[0] = ({x: (Fraction(0), Fraction(1, 2)), y: piece[y]}, how)      # half the box left out
    assert not cover.verify()
