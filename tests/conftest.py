"""Shared test set-up: the environment must not change what a report looks like."""

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch):
    """Unset COLUMNS (and LINES), which rich reads for the table width: reports printed in tests
    use pyfed's own width for output that is not a terminal, whatever shell ran pytest."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


# ------------------------------------------------------------------------------------------
# Expensive results shared by several test files (computed once per session; treat as read-only)
# ------------------------------------------------------------------------------------------

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "statements"


@pytest.fixture(scope="session")
def no_noise_profile():
    """(statement, profile) of examples/statements/convex_no_noise.lean profiled at its step-size
    constant 81 only (seed 0, no random draws): a statement already violated at its own value."""
    from pyfed.engines.statement import constant_profile, literals
    from pyfed.statements import read_file
    (st,) = read_file(EXAMPLES / "convex_no_noise.lean")
    key = next(lit.key for lit in literals(st) if lit.key.startswith("step_size:81"))
    return st, constant_profile(st, seed=0, budget=0, only=[key])
