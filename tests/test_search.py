"""pyfed search: deterministic JSON export, read-back, CLI wiring, run_all."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from fractions import Fraction

import pytest

from checkers.registry import get, names
from pyfed import __version__
from pyfed.errors import InputError
from pyfed.search import (file_stem, load_counterexample, load_record, recheck, register, run, run_all,
                          search_to_dir, statement_verdicts_json)
from pyfed.verdicts import Holds, Violated

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read_all(d):
    return {f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d))}


def test_export_contents_and_readback(tmp_path):
    paths = search_to_dir("SumSquares", seed=5, budget=3, out=str(tmp_path), mutate="factor_m_minus_1")
    assert paths and all(os.path.basename(p).startswith("SumSquares-s5-b3-mutate-factor_m_minus_1-") for p in paths)
    for p in paths:
        rec = load_record(p)
        assert rec["seed"] == 5 and rec["budget"] == 3 and rec["pyfed_version"] == __version__
        assert rec["statement"] == "SumSquares" and rec["mutate"] == "factor_m_minus_1"
        lhs, rhs, margin = (Fraction(rec[k]["exact"]) for k in ("lhs", "rhs", "margin"))
        assert margin == rhs - lhs < 0
        assert rec["margin"]["float"] == pytest.approx(float(margin))
        # read back: the instance re-checks to the same exact margin
        inst = load_counterexample(p)
        v = get("SumSquares").check(inst, mutate="factor_m_minus_1")
        assert isinstance(v, Violated) and v.margin == margin
        assert recheck(p).margin == margin
        # the true statement holds on the same instance
        assert isinstance(get("SumSquares").check(inst), Holds)
        text = open(p, encoding="utf-8").read()
        assert text == json.dumps(json.loads(text), sort_keys=True, indent=2) + "\n"


def test_same_seed_same_bytes_across_processes(tmp_path):
    """Two fresh interpreters (different hash seeds) write byte-identical files."""
    code = ("import sys; from pyfed.search import search_to_dir; "
            "search_to_dir('ConvexFiniteRoundConvergence', seed=3, budget=3, out=sys.argv[1], relax=['step_size']); "
            "search_to_dir('MartingaleDifferenceBound', seed=3, budget=6, out=sys.argv[1], mutate='constants_2_to_1')")
    outs = []
    for i, hs in enumerate(("1", "777")):
        d = tmp_path / f"run{i}"
        env = dict(os.environ, PYTHONHASHSEED=hs)
        subprocess.run([sys.executable, "-c", code, str(d)], check=True, cwd=ROOT, env=env, timeout=120)
        outs.append(_read_all(d))
    assert outs[0] and outs[0] == outs[1]
    assert any(f.startswith("ConvexFiniteRoundConvergence-s3-b3-relax-step_size") for f in outs[0])
    # a different seed gives a different search (names carry the seed)
    assert file_stem("X", 4, 3) != file_stem("X", 3, 3)


def test_relaxed_theorem_counterexample_readback(tmp_path):
    paths = search_to_dir("ConvexFiniteRoundConvergence", seed=0, budget=2, out=str(tmp_path), relax=["step_size"])
    assert paths
    rec = load_record(paths[0])
    assert rec["relax"] == ["step_size"]
    v = recheck(paths[0])
    assert isinstance(v, Violated) and v.margin == Fraction(rec["margin"]["exact"])
    # without the relaxation the instance is outside the hypotheses (h > 1/(81 beta))
    assert get("ConvexFiniteRoundConvergence").check(rec["instance"]).status == "inconclusive"


def test_lean_file_for_relaxed_theorem_not_for_mutations(tmp_path):
    pytest.importorskip("pyfed.lean.render")
    paths = search_to_dir("ConvexFiniteRoundConvergence", seed=0, budget=1, out=str(tmp_path / "r"),
                          relax=["step_size"])
    lean = [p[:-len(".json")] + ".lean" for p in paths]
    assert lean and all(os.path.exists(p) for p in lean)
    text = open(lean[0], encoding="utf-8").read()
    assert "SCAFFOLD.ConvexFiniteRoundConvergence" in text and "fails: h <= 1/(81 beta)" in text
    rec = load_record(paths[0])
    assert f"({rec['rhs']['exact']} : ℚ) < ({rec['lhs']['exact']} : ℚ)" in text
    paths = search_to_dir("SumSquares", seed=0, budget=1, out=str(tmp_path / "m"), mutate="index_shift")
    assert paths and not any(f.endswith(".lean") for f in os.listdir(tmp_path / "m"))


def test_cli_register_and_run(tmp_path, capsys):
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["search", "SCAFFOLD.YoungInner", "--seed", "1", "--budget", "2",
                              "--mutate", "u_constant_halved", "--out", str(tmp_path)])
    assert args.func is run
    assert run(args) == 0
    files = sorted(os.listdir(tmp_path))
    assert files and all(f.startswith("YoungInner-s1-b2-mutate-u_constant_halved-") for f in files)
    # true statement: nothing written
    args = parser.parse_args(["search", "YoungInner", "--budget", "2", "--out", str(tmp_path / "none")])
    assert run(args) == 0
    assert not os.path.exists(tmp_path / "none") or not os.listdir(tmp_path / "none")


def test_bad_input(tmp_path):
    with pytest.raises(InputError) as e:
        search_to_dir("Nope", seed=0, budget=1, out=str(tmp_path))
    assert e.value.argument == "lean_name"
    with pytest.raises(InputError) as e:
        search_to_dir("YoungInner", seed=0, budget=1, out=str(tmp_path), relax=["nope"])
    assert e.value.argument == "relax"
    with pytest.raises(InputError) as e:
        search_to_dir("YoungInner", seed=0, budget=-1, out=str(tmp_path))
    assert e.value.argument == "budget"
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(InputError):
        load_counterexample(str(bad))


def test_run_all_one_verdict_per_statement():
    res = run_all(budget=2, seed=0)
    assert [n for n, _ in res] == names()
    assert all(isinstance(v, Holds) for _, v in res), [(n, v) for n, v in res if not isinstance(v, Holds)]
    assert all(v.statement == n for n, v in res)
    js = statement_verdicts_json(res)
    assert [j["statement"] for j in json.loads(json.dumps(js))] == names()
    assert all(j["status"] == "holds" and j["details"]["violated"] == 0 for j in js)
