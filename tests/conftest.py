"""Shared test set-up: the environment must not change what a report looks like."""

import pytest


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch):
    """Unset COLUMNS (and LINES), which rich reads for the table width: reports printed in tests
    use pyfed's own width for output that is not a terminal, whatever shell ran pytest."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


@pytest.fixture(autouse=True, scope="session")
def _private_cache_dir(tmp_path_factory):
    """pyfed's cache directory (PYFED_CACHE_DIR, pyfed.data.cache_dir) in a temporary folder for
    the whole session, inherited by the CLI subprocesses: tests never read or write the user's cache."""
    import os

    old = os.environ.get("PYFED_CACHE_DIR")
    os.environ["PYFED_CACHE_DIR"] = str(tmp_path_factory.mktemp("pyfed-cache"))
    yield
    if old is None:
        os.environ.pop("PYFED_CACHE_DIR", None)
    else:
        os.environ["PYFED_CACHE_DIR"] = old
