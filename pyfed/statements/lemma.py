"""The statement builder for run-free theorems: vectors, sequences, function classes, finite
probability spaces and the model's procedures."""

from __future__ import annotations

from ..lean.terms import LeanSyntaxError

__all__ = ["statements_from"]


def statements_from(name, namespace, cmd, variables, decls, clean, path) -> list:
    """Statements of a run-free theorem (not read yet: a located error)."""
    raise LeanSyntaxError(f"theorem `{name}` without a run", "the reader reads statements about SCAFFOLD runs "
                          "(`∀ A : Run P ν S K T ηl ηg init, …`)", line=cmd.line, col=cmd.col, path=path,
                          supported="theorems quantifying over `A : Run P ν S K T ηl ηg (some c0)` or `… none`")
