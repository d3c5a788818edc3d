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
    from pyfed.models.scaffold.profile import constant_profile
    from pyfed.models.scaffold.constants import literals
    from pyfed import read_file
    (st,) = read_file(EXAMPLES / "convex_no_noise.lean")
    key = next(lit.key for lit in literals(st) if lit.key.startswith("step_size:81"))
    return st, constant_profile(st, seed=0, budget=0, only=[key])


_QUICK_CLI = {}


def _quick_cli_run(tmp_path_factory):
    """``pyfed check --quick --seed 0 --json PATH`` run once per session, in this process, with the
    two computations it makes recorded as they return: ``run_check(quick=True, seed=0,
    replicates=default_replicates(True))`` (the default suite's verdicts) and ``run_all(budget=None,
    seed=0, quick=True)`` (the catalogue's searches). Several test files check each of these; the
    command computes both, so they are computed once."""
    if not _QUICK_CLI:
        import json

        import pyfed.check
        import pyfed.search
        from cli_helpers import run_cli
        recorded = {}
        real_check, real_all = pyfed.check.run_check, pyfed.search.run_all

        def run_check(**kw):
            out = real_check(**kw)
            recorded["run_check"] = (kw, out)
            return out

        def run_all(**kw):
            out = real_all(**kw)
            recorded["run_all"] = (kw, out)
            return out
        path = tmp_path_factory.mktemp("quick-check") / "report.json"
        pyfed.check.run_check, pyfed.search.run_all = run_check, run_all
        try:
            code, out, err = run_cli(["check", "--quick", "--seed", "0", "--json", str(path)])
        finally:
            pyfed.check.run_check, pyfed.search.run_all = real_check, real_all
        _QUICK_CLI.update(cli=(code, out, err, json.loads(path.read_text(encoding="utf-8"))), **recorded)
    return _QUICK_CLI


@pytest.fixture(scope="session")
def default_check(tmp_path_factory):
    """``default_check(quick, seed)``: the default suite's verdicts, ``pyfed.check.run_check(quick=quick,
    seed=seed, replicates=default_replicates(quick))`` (FedAvg rows included, after the SCAFFOLD
    rows and the PEP row), computed once per (quick, seed) in a session; (True, 0) is the one that
    ``pyfed check --quick --seed 0`` computes (see :func:`_quick_cli_run`)."""
    from pyfed.check import default_replicates, run_check
    cache = {}

    def get(quick: bool, seed: int):
        if (quick, seed) not in cache:
            if (quick, seed) == (True, 0):
                kw, out = _quick_cli_run(tmp_path_factory)["run_check"]
                assert (kw["quick"], kw["seed"], kw["replicates"]) == (True, 0, default_replicates(True)), kw
                cache[quick, seed] = tuple(out)
            else:
                cache[quick, seed] = tuple(run_check(quick=quick, seed=seed, replicates=default_replicates(quick)))
        return cache[quick, seed]
    return get


@pytest.fixture(scope="session")
def quick_check_cli(tmp_path_factory):
    """``pyfed check --quick --seed 0 --json PATH`` run once: ``(status, stdout, stderr, report)``
    with ``report`` the JSON document it wrote."""
    return _quick_cli_run(tmp_path_factory)["cli"]


@pytest.fixture(scope="session")
def quick_statement_searches(tmp_path_factory):
    """``pyfed.search.run_all(seed=0, quick=True)`` (the quick default budget): the catalogue's
    ``(display name, verdict)`` pairs, as ``pyfed check --quick --seed 0`` computes them."""
    kw, out = _quick_cli_run(tmp_path_factory)["run_all"]
    assert (kw["budget"], kw["seed"], kw["quick"]) == (None, 0, True), kw
    return tuple(out)


@pytest.fixture(scope="session")
def theorem_file_check(tmp_path_factory):
    """``theorem_file_check(path)``: ``pyfed check PATH --quick --no-profile --json REPORT`` (a Lean
    file of ours or a published restatement, the quick default budget of a file) run once per
    file in a session: ``(status, stdout, stderr, report)``."""
    import json

    from cli_helpers import run_cli
    cache = {}

    def get(path):
        key = Path(path).resolve()
        if key not in cache:
            rep = tmp_path_factory.mktemp("theorem-file-check") / "r.json"
            code, out, err = run_cli(["check", str(path), "--quick", "--no-profile", "--json", str(rep)])
            cache[key] = (code, out, err, json.loads(rep.read_text(encoding="utf-8")) if rep.exists() else None)
        return cache[key]
    return get


@pytest.fixture(scope="session")
def seed_file_check(tmp_path_factory):
    """``pyfed check examples/statements/seed_convex.lean --quick --budget 2 --json PATH`` (built-in
    rows, search, PEP row and constant profile; serial, no --timing) run once: ``(status, stdout,
    stderr, path of the JSON report)``."""
    from cli_helpers import run_cli
    path = tmp_path_factory.mktemp("seed-check") / "a.json"
    code, out, err = run_cli(["check", str(EXAMPLES / "seed_convex.lean"), "--quick", "--budget", "2",
                              "--json", str(path)])
    return code, out, err, path


@pytest.fixture(scope="session")
def no_noise_export(tmp_path_factory):
    """``pyfed check LEAN --quick --no-profile --budget 1 --seed 0 --out DIR --json REPORT`` run once,
    LEAN a copy of examples/statements/convex_no_noise.lean at ``.../a[red]b/[bold]no_noise.lean``
    and REPORT ``.../r[x].json`` (rich markup in paths: they must be printed, not eaten). A violated
    statement: exit 1, exact, Monte Carlo, search and PEP rows, its counterexample written to DIR.
    Returns ``(status, stdout, stderr, DIR, REPORT, LEAN)``; read-only: copy a file before editing it."""
    from cli_helpers import run_cli
    root = tmp_path_factory.mktemp("no-noise-export")
    d = root / "a[red]b"
    d.mkdir()
    lean = d / "[bold]no_noise.lean"
    lean.write_text((EXAMPLES / "convex_no_noise.lean").read_text(encoding="utf-8"), encoding="utf-8")
    out, rep = root / "cx", root / "r[x].json"
    code, stdout, stderr = run_cli(["check", str(lean), "--quick", "--no-profile", "--budget", "1", "--seed", "0",
                                    "--out", str(out), "--json", str(rep)])
    return code, stdout, stderr, out, rep, lean
