"""The statement builder for theorems about a FedAvg run (``∀ R : Run P μ τ T η, …``, namespace
``FedAvg``; Wang et al., *A Field Guide to Federated Optimization*, Section 6.1)."""

from __future__ import annotations

from ..lean.terms import LeanSyntaxError

__all__ = ["statements_from"]


def statements_from(name, namespace, cmd, variables, decls, clean, path) -> list:
    """Statements of a theorem about a FedAvg run (not read yet: a located error)."""
    raise LeanSyntaxError(f"theorem `{name}` about a FedAvg run", "FedAvg run statements are not read yet",
                          line=cmd.line, col=cmd.col, path=path,
                          supported="theorems about a SCAFFOLD run and run-free lemmas")
