"""Shared test set-up: the environment must not change what a report looks like; expensive results
that several test files check (the default suite's verdicts, one quick CLI check, a constant
profile) are computed once per session."""

from pathlib import Path

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


@pytest.fixture(scope="session")
def default_check():
    """``default_check(quick, seed)``: the default suite's verdicts, ``pyfed.check.run_check(quick=quick,
    seed=seed, replicates=default_replicates(quick))`` (FedAvg rows included, after the SCAFFOLD
    rows and the PEP row), computed once per (quick, seed) in a session."""
    from pyfed.check import default_replicates, run_check
    cache = {}

    def get(quick: bool, seed: int):
        if (quick, seed) not in cache:
            cache[quick, seed] = tuple(run_check(quick=quick, seed=seed, replicates=default_replicates(quick)))
        return cache[quick, seed]
    return get


@pytest.fixture(scope="session")
def quick_check_cli(tmp_path_factory):
    """``pyfed check --quick --seed 0 --json PATH`` run once: ``(status, stdout, stderr, report)``
    with ``report`` the JSON document it wrote."""
    import json

    from cli_helpers import run_cli
    path = tmp_path_factory.mktemp("quick-check") / "report.json"
    code, out, err = run_cli(["check", "--quick", "--seed", "0", "--json", str(path)])
    return code, out, err, json.loads(path.read_text(encoding="utf-8"))
