"""Shared test set-up: the environment must not change what a report looks like."""

import pytest


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch):
    """Unset COLUMNS (and LINES), which rich reads for the table width: reports printed in tests
    use pyfed's own width for output that is not a terminal, whatever shell ran pytest."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)
