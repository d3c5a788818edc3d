"""User-facing behaviour of ``pyfed tightness | worst-case | search | lean`` (new-user trial fixes).

Every test drives the real command line (``pyfed.cli.main``) or the function the command prints
from, on small instances (the whole file runs in well under 20 s).
"""

from __future__ import annotations

import argparse
import json
import os
from fractions import Fraction as Fr
from pathlib import Path

import pytest

from pyfed import cli as main_cli
from pyfed.errors import InputError


def _main(argv, capsys):
    code = main_cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------------- tightness

def test_tightness_multiples_are_powers_of_two_up_to_the_maximum():
    from pyfed.commands.tightness import sweep_multiples
    assert sweep_multiples(4) == [Fr(1, 8), Fr(1, 4), Fr(1, 2), Fr(1), Fr(2), Fr(4)]
    assert sweep_multiples(1024)[-2:] == [Fr(512), Fr(1024)]
    for bad in (100, 0, 3):
        with pytest.raises(InputError) as e:
            sweep_multiples(bad)
        assert e.value.argument == "--max-multiple" and str(bad) in e.value.reason


@pytest.mark.parametrize("argv, arg, why", [
    (["--K", "0"], "--K", ">= 1"),
    (["--T", "0"], "--T", ">= 1"),
    (["--S", "0"], "--S", ">= 1"),
    (["--S", "5"], "--S", "cannot exceed"),           # N = 4 by default
    (["--N", "0"], "--N", ">= 1"),
    (["--seed", "-1"], "--seed", ">= 0"),
    (["--sigma=-1/2"], "--sigma", ">= 0"),
    (["--sigma", "x"], "--sigma", "rational"),
    (["--mu=-1"], "--mu", ">= 0"),
    (["--eta-g", "1/2"], "--eta-g", ">= 1"),
    (["--max-multiple", "100"], "--max-multiple", "power of two"),
])
def test_tightness_bad_numbers_are_named_errors(argv, arg, why, capsys, tmp_path):
    code, out, err = _main(["tightness", "--out", str(tmp_path)] + argv, capsys)
    assert code == 2
    assert err.startswith(f"pyfed: error: {arg}: ") and why in err and "Traceback" not in err
    assert not (tmp_path / "tightness.png").exists()


def test_tightness_summary_claims_only_the_swept_range(capsys, tmp_path):
    code, out, err = _main(["tightness", "--out", str(tmp_path), "--T", "4", "--max-multiple", "4"], capsys)
    assert code == 0
    assert "stays below 1 at every swept h <= 4/(81 beta)" in out
    assert "up to 4" not in out
    data = json.loads((tmp_path / "tightness.json").read_text())
    assert data["points"][-1]["multiple"]["exact"] == "4" and data["first_crossing"] is None
    # inside the hypotheses (m <= 1) the status is the verdict, beyond them it is labelled
    labels = {p["multiple"]["exact"]: p["label"] for p in data["points"]}
    assert labels["1"] == "holds" and labels["2"] == "holds (beyond hyp.)"


def test_status_label_wording():
    from pyfed.engines.tightness import status_label
    assert status_label("holds", True) == "holds"
    assert status_label("violated", True) == "violated"
    assert status_label("inconclusive", False, "violated") == "violated (beyond hyp.)"
    assert status_label("inconclusive", False, "holds") == "holds (beyond hyp.)"
    assert status_label("inconclusive", False, "undecided") == "inconclusive (beyond hyp.)"
    assert status_label("inconclusive", False) == "inconclusive (beyond hyp.)"   # older verdicts
    assert status_label("inconclusive", True, "undecided") == "inconclusive"
    assert status_label("violated", False) == "violated (beyond hyp.)"   # older verdicts
    assert status_label("undefined", False) == "undefined (q <= 0)"


def test_tightness_points_beyond_hypotheses_say_what_the_inequality_does():
    from pyfed.engines.tightness import default_instance, tightness_sweep
    P = default_instance(0)
    res = tightness_sweep(P, Fr(1, 2), S=2, K=2, T=4, mu=0, multiples=[1, 1024], bisect=0)
    inside, far = res.points
    assert inside.hypotheses_hold and inside.failing == () and inside.label == "holds"
    assert inside.ratio < 1
    # h = 1024/(81 beta): only the step-size hypothesis fails; LHS > RHS there (exact)
    assert far.failing == ("step_size",) and far.ratio > 1
    assert far.inequality == "violated" and far.label == "violated (beyond hyp.)"
    assert res.first_crossing is far


def test_tightness_mu_above_the_problems_strong_convexity_fails_convexity(capsys, tmp_path):
    from pyfed.engines.tightness import default_instance, tightness_sweep
    P = default_instance(0)
    assert P.mu < 1
    res = tightness_sweep(P, Fr(1, 2), S=2, K=2, T=4, mu=1, multiples=[Fr(1, 2)], bisect=0)
    (p,) = res.points
    assert p.failing == ("convexity",) and not p.hypotheses_hold
    assert p.ratio < 1 and p.label == "holds (beyond hyp.)"
    # the weights mu = P.mu itself: convexity holds
    (q,) = tightness_sweep(P, Fr(1, 2), S=2, K=2, T=4, mu=P.mu, multiples=[Fr(1, 2)], bisect=0).points
    assert "convexity" not in q.failing and q.hypotheses_hold
    code, out, _ = _main(["tightness", "--out", str(tmp_path), "--T", "3", "--max-multiple", "1", "--mu", "1"],
                         capsys)
    assert code == 0 and "convexity" in out and "exceeds the problem's certified strong convexity" in out


def test_tightness_plot_title_and_legend():
    import matplotlib.pyplot as plt

    from pyfed.commands.tightness import sweep_figure
    from pyfed.engines.tightness import default_instance, tightness_sweep
    res = tightness_sweep(default_instance(0), Fr(1, 2), S=2, K=2, T=4, mu=0, multiples=[1, 512, 1024],
                          bisect=1)
    fig = sweep_figure(res)
    try:
        ax = fig.axes[0]
        title = ax.get_title()
        for part in ("N=4", "S=2", "K=2", "T=4", "sigma=1/2", "mu=0"):
            assert part in title
        legend = ax.get_legend()
        texts = [t.get_text() for t in legend.get_texts()]
        assert f"first LHS >= RHS: h = {res.first_crossing.multiple}/(81 beta)" in texts
        assert any("h = 1/(81 beta)" in t for t in texts)
        assert min(t.get_fontsize() for t in legend.get_texts()) >= 8
    finally:
        plt.close(fig)


# --------------------------------------------------------------------------------- worst-case

def test_worst_case_summary_is_plain():
    from pyfed.commands.worst_case import summary_lines
    sc = {"c": Fr(3, 4), "m_star": 108, "m_fail": 135, "grid_max": 162, "used": 6, "excluded": 0,
          "all_optimal": True}
    (line,) = summary_lines(sc)
    assert line.startswith("smallest c on the swept grid such that h <= 1/(c beta) keeps worst/bound <= 1: "
                           "c = 0.75 (the theorem uses c = 81); first failure at h = 135/(81 beta)")
    assert "(0.6, 0.75]" in line and "81/" not in line
    lines = summary_lines(dict(sc, c=Fr(81, 162), m_star=162, m_fail=None, excluded=2, used=4))
    assert "c = 0.5 (the theorem uses c = 81)" in lines[0] and "162/(81 beta)" in lines[0]
    assert "2 of 6 points" in lines[1]
    assert "no constant c" in summary_lines(dict(sc, c=None, m_star=None, m_fail=1))[0]


def test_worst_case_plot_shows_the_hypothesis_line():
    import matplotlib.pyplot as plt

    from pyfed.engines.pep import WorstCaseResult
    from pyfed.commands.worst_case import _figure
    results = []
    for m, ratio in ((1, 0.01), (27, 0.25), (81, 0.5), (162, 2.0)):
        r = WorstCaseResult("scaffold", ratio, ratio, 1, ratio, "X", "optimal", 0.0)
        r.parameters.update(m=m, K=1, mu="0", T=2)
        results.append(r)
    fig = _figure(results, 2)
    try:
        ax = fig.axes[0]
        lo, hi = ax.get_xlim()
        assert lo < 1 / 1.2 and hi > 162 * 1.2      # m = 1 and m = 162 are inside, not on the edge
        legend = ax.get_legend()
        assert min(t.get_fontsize() for t in legend.get_texts()) >= 8
        assert "h = 1/(81 beta) (hypothesis)" in [t.get_text() for t in legend.get_texts()]
        assert any(t.get_text() == "h = 1/(81 beta)" for t in ax.texts)
    finally:
        plt.close(fig)


def test_worst_case_verdict_label():
    from types import SimpleNamespace

    from pyfed.commands.worst_case import verdict_label
    assert verdict_label(SimpleNamespace(status="violated", details={}), False) == "violated (beyond hyp.)"
    assert verdict_label(SimpleNamespace(status="inconclusive", details={"inequality": "holds"}), False) \
        == "holds (beyond hyp.)"
    assert verdict_label(SimpleNamespace(status="holds", details={}), True) == "holds"


# --------------------------------------------------------------------------------- help texts

@pytest.mark.parametrize("command", ["search", "lean", "tightness", "worst-case"])
def test_help_has_no_rst_markup(command):
    parser = main_cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    text = sub.choices[command].format_help()
    for markup in ("``", ":func:", ":mod:", ":data:"):
        assert markup not in text, (command, markup)


# --------------------------------------------------------------------------------- search

def test_search_summary_on_stdout_and_mutate_writes_no_lean(capsys, tmp_path):
    code, out, err = _main(["search", "YoungInner", "--budget", "2", "--mutate", "factor_3",
                            "--out", str(tmp_path)], capsys)
    assert code == 0
    assert "counterexample(s) to SCAFFOLD.YoungInner (mutation factor_3)" in out
    assert "no .lean file" in out and "counterexample(s)" not in err
    files = os.listdir(tmp_path)
    assert files and not any(f.endswith(".lean") for f in files)


def test_search_out_that_cannot_be_created(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, out, err = _main(["search", "YoungInner", "--budget", "1", "--out", str(blocker / "sub")], capsys)
    assert code == 2
    assert err.startswith("pyfed: error: --out: cannot create directory") and "Not a directory" in err
    assert "Traceback" not in err


def test_search_help_and_list_name_relax_keys_and_mutations(capsys):
    from pyfed.checkers.registry import get, statements_of
    parser = main_cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    help_text = " ".join(sub.choices["search"].format_help().split())
    assert "--list" in help_text and "no .lean file" in help_text
    code, out, _ = _main(["search", "--list"], capsys)
    assert code == 0
    blocks = out.split("SCAFFOLD.")
    convex = next(b for b in blocks if b.startswith("ConvexFiniteRoundConvergence\n"))
    assert "step_size" in convex and "drop_noise_term" in convex
    young = next(b for b in blocks if b.startswith("YoungInner\n"))
    keys = {h.key for st in statements_of("YoungInner") for h in st.hypotheses}
    assert keys and all(key in young for key in keys)
    muts = get("YoungInner").mutations
    assert muts and all(f"    {m.name}: {m.description}" in young for m in muts)
    code, out, _ = _main(["search", "YoungInner", "--list"], capsys)
    assert code == 0 and out.startswith("SCAFFOLD.YoungInner\n") and "Convex" not in out


# --------------------------------------------------------------------------------- lean dir

def test_default_lean_dir_is_next_to_the_nearest_lakefile(tmp_path, monkeypatch):
    from pyfed.lean import drift, render
    root = tmp_path / "proj"
    (root / "a" / "b").mkdir(parents=True)
    (root / "lakefile.lean").write_text("-- test\n")
    monkeypatch.chdir(root / "a" / "b")
    assert render.default_lean_dir() == root.resolve() / "lean"
    assert drift.default_lean_dir() == root.resolve() / "lean"
    assert render.default_lean_dir(cwd=root) == root.resolve() / "lean"


def test_no_lakefile_is_an_input_error_not_a_stray_directory(tmp_path, monkeypatch, capsys):
    from pyfed.lean import drift, paths, render
    site = tmp_path / "site-packages" / "pyfed" / "lean"
    site.mkdir(parents=True)
    monkeypatch.setattr(paths, "__file__", str(site / "paths.py"))   # a non-editable install
    work = tmp_path / "elsewhere"
    work.mkdir()
    monkeypatch.chdir(work)
    for fn in (render.default_lean_dir, drift.default_lean_dir):
        with pytest.raises(InputError) as e:
            fn()
        assert e.value.argument == "--out" and "no lakefile.lean" in e.value.reason
    code, out, err = _main(["lean"], capsys)  # rendering writes: only into a checkout
    assert code == 2 and err.startswith("pyfed: error: --out: no Lean project found"), err
    # the checks read the installed copy (tests/test_packaging.py); this fake installation has none
    for argv in (["lean", "--drift"], ["lean", "--check"]):
        code, out, err = _main(argv, capsys)
        assert code == 2 and err.startswith("pyfed: error: lean: pyfed's Lean sources are missing"), err
        assert err.rstrip().endswith("reinstall pyfed") and out == ""
    assert not (tmp_path / "site-packages" / "lean").exists() and not (work / "lean").exists()


def test_lean_check_on_missing_directory(tmp_path, capsys):
    missing = tmp_path / "nope"
    code, out, err = _main(["lean", "--check", "--out", str(missing)], capsys)
    assert code == 2 and "directory not found" in err and "out of date" not in err
    assert not missing.exists()


def test_lean_drift_reads_the_out_directory(tmp_path, monkeypatch, capsys):
    from pyfed.lean import drift
    seen = []
    monkeypatch.setattr(drift, "check_drift", lambda lean_dir=None, **kw: seen.append(Path(lean_dir)) or [])
    lean = tmp_path / "lean"
    code, out, err = _main(["lean", "--drift", "--out", str(lean)], capsys)
    assert code == 2 and "directory not found" in err and not seen and not lean.exists()
    lean.mkdir()
    code, out, err = _main(["lean", "--drift", "--out", str(lean)], capsys)
    assert code == 2 and "no Pyfed/" in err and not seen      # no Lean sources there
    (lean / "Pyfed").mkdir()
    code, out, err = _main(["lean", "--drift", "--out", str(lean)], capsys)
    assert code == 0 and seen == [lean]
    assert not (lean / "PyfedTest.lean").exists()            # a check never writes (issue 9)
    assert sorted(p.name for p in lean.iterdir()) == ["Pyfed"]
    monkeypatch.undo()
    code, out, err = _main(["lean", "--drift", "--check", "--out", str(lean)], capsys)   # Pyfed/ is empty
    assert code == 2 and err.startswith("pyfed: error: --out: Lean source not found:") and "Pyfed" in err


@pytest.mark.parametrize("command", ["tightness", "worst-case"])
def test_out_that_cannot_be_created(command, tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    extra = ["--quick"] if command == "worst-case" else []
    code, out, err = _main([command, "--out", str(blocker / "sub")] + extra, capsys)
    assert code == 2 and err.startswith("pyfed: error: --out: cannot create directory")
    assert "Not a directory" in err


# --------------------------------------------------------------------------- negative values

@pytest.mark.parametrize("argv, message", [
    (["tightness", "--mu", "-1/2"], "--mu: must be >= 0, got -1/2"),
    (["tightness", "--mu", "-3"], "--mu: must be >= 0, got -3"),
    (["tightness", "--mu", "-1e-3"], "--mu: must be >= 0, got -1e-3"),
    (["tightness", "--sigma", "-1/2"], "--sigma: noise level must be >= 0, got -1/2"),
    (["tightness", "--eta-g", "-1/2"], "--eta-g: global step must be >= 1 (hypothesis of the theorem), got -1/2"),
    (["worst-case", "--eta-g", "-3"], "--eta-g: must be >= 1 (hypothesis of the theorem), got -3"),
    (["worst-case", "--eta-g", "-1/2"], "--eta-g: must be >= 1 (hypothesis of the theorem), got -1/2"),
    (["experiment", "--target", "-1/2"], "--target: must be an accuracy in (0, 1], got -1/2"),
    (["check", "--seed", "-1/2"], "--seed: invalid int value: '-1/2'"),
    (["tightness", "--mu", "-inf"], "--mu: must be a rational number such as 1/2, got '-inf'"),
])
def test_negative_option_values_reach_validation(argv, message, capsys, tmp_path):
    """``--opt -1/2`` is the option's value (argparse alone reads it as an unknown option and
    says "expected one argument"): it gets the option's own one-line error, exit 2."""
    code, out, err = _main(argv + ["--out", str(tmp_path / "o")], capsys)
    assert code == 2
    assert err == f"pyfed: error: {message}\n"
    assert not (tmp_path / "o").exists()  # rejected before any work


def test_an_option_word_after_an_option_is_still_a_missing_value(capsys, tmp_path):
    code, out, err = _main(["tightness", "--mu", "-x", "--out", str(tmp_path)], capsys)
    assert (code, err) == (2, "pyfed: error: --mu: expected one argument\n")
    code, out, err = _main(["tightness", "--mu", "--out", str(tmp_path)], capsys)
    assert (code, err) == (2, "pyfed: error: --mu: expected one argument\n")


@pytest.mark.parametrize("word, number", [
    ("-3", True), ("-1/2", True), ("-0.5", True), ("-.5", True), ("-1e-3", True), ("-2E+4/3", True),
    ("-inf", True), ("-1/2,1", True), ("-x", False), ("--mu", False), ("-N", False), ("-", False),
    ("-1/", False), ("-/2", False), ("1/2", False)])
def test_negative_number_pattern(word, number):
    assert bool(main_cli.NEGATIVE_NUMBER.match(word)) is number


def test_worst_case_quick_free_text_is_one_line_per_message_in_a_pipe(capsys, tmp_path):
    """Written to a pipe, the lines under the table are not hard-wrapped (README: "the lines of
    free text under them are not broken"): the inconclusive point beyond the hypothesis is one
    line with its reason, and so is the smallest-constant summary."""
    code, out, err = _main(["worst-case", "--quick", "--out", str(tmp_path)], capsys)
    assert code == 0
    lines = out.splitlines()
    (point,) = [ln for ln in lines if ln.startswith("inconclusive at ")]
    assert point.startswith("inconclusive at K=2, mu=0, T=2, h=162/(81 beta): hypotheses fail (h <= 1/(81 beta))")
    assert point.endswith("is within the tolerance 0.0001 of 1)")
    (summary,) = [ln for ln in lines if ln.startswith("smallest c on the swept grid")]
    assert summary.endswith("the critical constant lies in (0.6, 1]. The failure was reproduced exactly on a "
                            "quadratic instance.")
    assert "inconclusive (beyond hyp.)" in out and "undecided (beyond hyp.)" not in out


# ------------------------------------------------------------------- trial 2 (small items)

def test_replay_of_a_search_record_names_the_command_that_reproduces_it(tmp_path, capsys):
    rec = {"statement": "ConvexFiniteRoundConvergence", "lean_declaration": "SCAFFOLD.ConvexFiniteRoundConvergence",
           "seed": 3, "budget": 16, "relax": ["step_size"], "mutate": None, "instance": {}, "index": 0}
    path = tmp_path / "rec.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    code, out, err = _main(["check", "--replay", str(path)], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "a record of `pyfed search ConvexFiniteRoundConvergence`" in err
    assert "`pyfed search ConvexFiniteRoundConvergence --seed 3 --budget 16 --relax step_size --out DIR`" in err
    assert "give PATH.lean" not in err


@pytest.mark.parametrize("argv, flag", [(["--workers", "0"], "--workers"), (["--out", ""], "--out")])
def test_path_only_options_are_refused_without_a_path_whatever_their_value(argv, flag, capsys):
    code, out, err = _main(["check", "--quick", *argv], capsys)
    assert code == 2 and err.startswith(f"pyfed: error: {flag}: only applies with a PATH.lean to check")


def test_inequality_phrase_reads_as_english():
    from pyfed.verdicts import inequality_phrase
    assert [f"the inequality itself {inequality_phrase(s)}" for s in ("holds", "violated", "undecided")] == [
        "the inequality itself holds", "the inequality itself is violated", "the inequality itself is undecided"]


def test_experiment_sample_range_collapses_when_clients_are_equal():
    from pyfed.commands.experiment import _size_range
    assert _size_range((15, 15)) == "15" and _size_range((12, 18)) == "12-18"


def test_text_off_a_terminal_is_one_line_and_tables_keep_the_width(capsys):
    from rich.table import Table

    from pyfed.commands import PIPE_WIDTH, make_console
    con = make_console()                       # pytest's stdout is not a terminal
    long = "word " * 60                        # 300 characters
    con.print(long.strip())
    t = Table("a", "b")
    t.add_row("x " * 100, "y")
    con.print(t)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == long.strip()              # not hard-wrapped
    assert all(len(line) <= PIPE_WIDTH for line in out[1:]) and len(out) > 5   # the table folds its cells
