"""Lean text helpers shared by every writer of Lean files: exact literals (:func:`rat`,
:func:`nat`), safe identifiers and doc-comment text (:func:`sanitize`, :func:`doc_safe`) and the
Jinja2 environment of the templates in ``pyfed/lean/templates`` (:func:`environment`)."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2

from ..errors import InputError
from ..exact import to_fraction

__all__ = ["rat", "nat", "sanitize", "doc_safe", "environment"]


def rat(value) -> str:
    """Exact Lean ℚ literal ``(p/q : ℚ)`` of an exact rational (``(-p/q : ℚ)`` if negative).

    Raises InputError(argument="value") for a float or any inexact number.
    """
    f = to_fraction(value)
    if f is None:
        raise InputError("value", f"{value!r} is not an exact rational; Lean literals must be exact")
    return f"({f.numerator}/{f.denominator} : ℚ)"


def nat(value) -> str:
    """Lean ℕ literal (raises InputError for a negative or non-integer value)."""
    f = to_fraction(value)
    if f is None or f.denominator != 1 or f < 0:
        raise InputError("value", f"{value!r} is not a natural number")
    return str(f.numerator)


def sanitize(text: str) -> str:
    """A Lean/file-system safe identifier: ASCII letters, digits, ``_``; starts with a letter."""
    s = re.sub(r"[^A-Za-z0-9_]+", "_", str(text)).strip("_")
    if not s or not s[0].isalpha():
        s = "x" + s
    return s[:80]


def doc_safe(text: str) -> str:
    """Text safe inside a Lean doc comment (no comment terminator)."""
    return str(text).replace("-/", "- /").replace("/-", "/ -")


def environment() -> jinja2.Environment:
    """The Jinja2 environment (Lean-safe delimiters, strict undefined, no autoescape)."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
        block_start_string="<%", block_end_string="%>",
        variable_start_string="<<", variable_end_string=">>",
        comment_start_string="<#", comment_end_string="#>",
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined, autoescape=False)


