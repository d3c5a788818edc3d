"""The ``pyfed search`` front end (pyfed.commands.search): bad input refused before searching, the
summary written without counterexamples, exit 1 for a counterexample to the statement itself."""

import argparse
import json
import os
from fractions import Fraction as Fr

import pytest

from pyfed import cli as main_cli
from pyfed.errors import EXIT_INPUT, EXIT_OK, EXIT_VIOLATED

from cli_helpers import forbid, one_error_line, run_main



@pytest.mark.parametrize("argv, argument, why", [
    (["YoungInner", "--seed", "-1", "--out", "{tmp}/o"], "--seed", ">= 0"),
    (["YoungInner", "--budget", "0", "--out", "{tmp}/o"], "--budget", ">= 1"),
    (["YoungInner", "--budget", "-3", "--out", "{tmp}/o"], "--budget", ">= 1"),
    (["YoungInner", "--out", ""], "--out", "required"),
    (["YoungInner", "--out", "{tmp}/file"], "--out", "is a file"),
    (["YoungInner", "--out", "/proc/pyfed-out"], "--out", "cannot create directory"),
    (["YoungInner", "--relax", "nope", "--out", "{tmp}/o"], "--relax", "unknown hypothesis"),
    (["YoungInner", "--mutate", "nope", "--out", "{tmp}/o"], "--mutate", "unknown mutation"),
    (["Nope", "--out", "{tmp}/o"], "lean_name", "unknown statement"),
])
def test_search_rejects_bad_input_before_searching(argv, argument, why, tmp_path, monkeypatch, capsys):
    (tmp_path / "file").write_text("x")
    forbid(monkeypatch, "pyfed.commands.search", "search_to_dir")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out, err = run_main(["search"] + argv, capsys)
    assert code == EXIT_INPUT
    one_error_line(err, argument)
    assert why in err


@pytest.mark.slow
def test_search_writes_a_summary_without_counterexamples(tmp_path, capsys):
    code, out, err = run_main(["search", "ConvexFiniteRoundConvergence", "--budget", "1", "--out", str(tmp_path)],
                           capsys)
    assert code == EXIT_OK
    files = os.listdir(tmp_path)
    assert files == ["ConvexFiniteRoundConvergence-s0-b1-summary.json"]
    s = json.loads((tmp_path / files[0]).read_text())
    assert s["statement"] == "ConvexFiniteRoundConvergence" and s["seed"] == 0 and s["budget"] == 1
    assert s["counterexamples"] == 0 and s["counterexample_files"] == []
    st = s["statistics"]
    assert st["drawn"] > 0 and st["candidates"] == st["decided"] + st["outside_hypotheses"] + st["undecided"]
    assert st["decided"] == st["holds"] + st["violated"] and st["violated"] == 0
    t = s["tightest"]
    lhs, rhs = Fr(t["lhs"]), Fr(t["rhs"])                       # full exact values in the export
    assert 0 <= lhs <= rhs
    from pyfed.checkers.registry import statements_of
    (stmt,) = statements_of("ConvexFiniteRoundConvergence")
    v = stmt.model.recheck(stmt, {"instance": t["instance"]})
    assert v.status == "holds" and (v.lhs, v.rhs) == (lhs, rhs)     # re-checks to the same numbers
    assert "summary written to" in out
    # same seed and budget: byte-identical summary
    before = (tmp_path / files[0]).read_bytes()
    assert run_main(["search", "ConvexFiniteRoundConvergence", "--budget", "1", "--out", str(tmp_path)], capsys)[0] == 0
    assert (tmp_path / files[0]).read_bytes() == before


def test_search_counterexample_to_the_statement_itself_is_exit_1(tmp_path, monkeypatch, capsys):
    """A counterexample to the real statement is a violated verdict (exit 1); with --mutate or
    --relax it is the expected outcome (exit 0)."""
    import pyfed.search
    from pyfed.checkers import registry
    real = registry.statements_of

    def halved(name, mutate=None, relax=()):
        return real(name, mutate=mutate or "u_constant_halved", relax=relax)
    # a false YoungInner: its catalogue text read with the constant halved, as if the file said so
    monkeypatch.setattr(registry, "statements_of", halved)
    monkeypatch.setattr(pyfed.search, "statements_of", halved)
    code, out, err = run_main(["search", "YoungInner", "--budget", "1", "--out", str(tmp_path)], capsys)
    assert code == EXIT_VIOLATED and "counterexample(s) to SCAFFOLD.YoungInner" in out
    assert json.loads((tmp_path / "YoungInner-s0-b1-summary.json").read_text())["counterexamples"] > 0
    monkeypatch.undo()
    code, out, err = run_main(["search", "YoungInner", "--budget", "1", "--mutate", "u_constant_halved",
                            "--out", str(tmp_path / "m")], capsys)
    assert code == EXIT_OK and "1 counterexample(s)" in out


def test_search_summary_on_stdout_and_mutate_writes_no_lean(capsys, tmp_path):
    code, out, err = run_main(["search", "YoungInner", "--budget", "2", "--mutate", "factor_3",
                            "--out", str(tmp_path)], capsys)
    assert code == 0
    assert "counterexample(s) to SCAFFOLD.YoungInner (mutation factor_3)" in out
    assert "no .lean file" in out and "counterexample(s)" not in err
    files = os.listdir(tmp_path)
    assert files and not any(f.endswith(".lean") for f in files)


def test_search_out_that_cannot_be_created(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, out, err = run_main(["search", "YoungInner", "--budget", "1", "--out", str(blocker / "sub")], capsys)
    assert code == 2
    assert err.startswith("pyfed: error: --out: cannot create directory") and "Not a directory" in err
    assert "Traceback" not in err


@pytest.mark.slow
def test_search_help_and_list_name_relax_keys_and_mutations(capsys):
    from pyfed.checkers.registry import get, statements_of
    parser = main_cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    help_text = " ".join(sub.choices["search"].format_help().split())
    assert "--list" in help_text and "no .lean file" in help_text
    code, out, _ = run_main(["search", "--list"], capsys)
    assert code == 0
    blocks = out.split("SCAFFOLD.")
    convex = next(b for b in blocks if b.startswith("ConvexFiniteRoundConvergence\n"))
    assert "step_size" in convex and "drop_noise_term" in convex
    young = next(b for b in blocks if b.startswith("YoungInner\n"))
    keys = {h.key for st in statements_of("YoungInner") for h in st.hypotheses}
    assert keys and all(key in young for key in keys)
    muts = get("YoungInner").mutations
    assert muts and all(f"    {m.name}: {m.description}" in young for m in muts)
    code, out, _ = run_main(["search", "YoungInner", "--list"], capsys)
    assert code == 0 and out.startswith("SCAFFOLD.YoungInner\n") and "Convex" not in out


@pytest.mark.slow
def test_fedavg_relax_prints_the_lean_file_it_writes(capsys, tmp_path):
    """--relax on a FedAvg statement writes a Lean file beside the JSON (its file says the instance
    lies outside the relaxed hypothesis): both paths are printed and listed in the summary."""
    code, out, err = run_main(["search", "FedAvg.BoundedClientDrift", "--relax", "step_size", "--budget", "2",
                               "--out", str(tmp_path)], capsys)
    assert code == EXIT_OK, err
    lean = sorted(p.name for p in tmp_path.glob("*.lean"))
    assert lean and all(str(tmp_path / n) in out for n in lean)
    summary = json.loads(next(tmp_path.glob("*-summary.json")).read_text())
    assert summary["lean_files"] == lean
    assert "no .lean file" not in out
