"""Counterexamples that re-check exactly (issue 10): the witness schema round-trips exactly and
holds no float; ``pyfed check --replay`` re-decides a recorded witness; the exported Lean file's
rational literals are the JSON instance's numbers."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from pyfed.export import WITNESS_SCHEMA, side_json
from pyfed.models.scaffold.instance import INSTANCE_SCHEMA, RunInstance, instance_from_json, instance_to_json
from pyfed.errors import InputError
from pyfed import read_file
from pyfed.models.scaffold.model import our_statements

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples" / "statements"


def _floats(obj, path="$"):
    """Paths of every float in a JSON tree (bools and ints are not floats)."""
    if isinstance(obj, float):
        return [path]
    if isinstance(obj, dict):
        return [p for k, v in obj.items() for p in _floats(v, f"{path}.{k}")]
    if isinstance(obj, list):
        return [p for i, v in enumerate(obj) for p in _floats(v, f"{path}[{i}]")]
    return []


def _same_instance(a: RunInstance, b: RunInstance):
    """Field-by-field exact equality (values and their exact types)."""
    def same(u, v):
        if u is None or v is None:
            return u is None and v is None
        if isinstance(u, np.ndarray) or isinstance(v, np.ndarray):
            u, v = np.asarray(u, dtype=object), np.asarray(v, dtype=object)
            return u.shape == v.shape and all(type(x) is type(y) is Fraction and x == y
                                              for x, y in zip(u.ravel(), v.ravel()))
        if isinstance(u, int) and isinstance(v, int):
            return u == v
        return Fraction(u) == Fraction(v) and type(v) is Fraction
    pa, pb = a.problem, b.problem
    assert same(pa.A_exact, pb.A_exact) and same(pa.b_exact, pb.b_exact)
    assert pa.beta == pb.beta and pa.mu == pb.mu and same(pa.x_star_exact, pb.x_star_exact)
    for f in ("sigma", "eta_l", "eta_g", "x0", "c0", "mu", "f_low", "xstar"):
        assert same(getattr(a, f), getattr(b, f)), f
    assert (a.S, a.K, a.T, a.name, a.description) == (b.S, b.K, b.T, b.name, b.description)
    assert set(a.free) == set(b.free) and all(same(a.free[k], b.free[k]) for k in a.free)


# ---------------------------------------------------------------- 1. the schema

def test_round_trip_of_search_candidates_is_identical_and_float_free():
    from pyfed.models.scaffold.candidates import candidate
    st = our_statements()["ConvexFiniteRoundConvergence"]
    seen = 0
    for index in (0, 18, 27, 81, 90):      # structured (x0 = x*, c0 = grad f_i(x*), S = 1 of 3, ...) and random
        inst, _ = candidate(st, 7, index)
        if inst is None:
            continue
        seen += 1
        data = instance_to_json(inst)
        assert data["schema"] == INSTANCE_SCHEMA and _floats(data) == []
        back = instance_from_json(json.loads(json.dumps(data)))
        _same_instance(inst, back)
        assert instance_to_json(back) == data
        # self-describing: the derived numbers are the problem's exact minimiser and h = K ηl ηg
        p = inst.problem
        assert data["derived"]["xstar"] == [str(v) for v in p.x_star_exact]
        assert Fraction(data["derived"]["h"]) == inst.K * Fraction(inst.eta_l) * Fraction(inst.eta_g)
        assert data["init"] == ("some" if inst.c0 is not None else "none")
    assert seen == 5


def test_round_trip_with_every_optional_field():
    from pyfed.problems.quadratic import QuadraticProblem
    F = Fraction
    A = np.array([[[F(2), F(1, 3)], [F(1, 3), F(1)]], [[F(3), F(0)], [F(0), F(5, 2)]]], dtype=object)
    b = np.array([[F(1), F(-2, 7)], [F(0), F(1, 9)]], dtype=object)
    p = QuadraticProblem(A, b, name="hand")
    inst = RunInstance("hand", p, F(1, 2), 1, 3, 2, F(1, 97), F(3, 2), np.array([F(1, 5), F(-1)], dtype=object),
                       c0=np.array([[F(1), F(2)], [F(-3, 4), F(0)]], dtype=object), mu=F(1, 10), f_low=F(-7),
                       xstar=np.array([F(1, 3), F(1, 4)], dtype=object),
                       free={"n": 4, "r": F(-5, 3), "v": np.array([F(1), F(1, 2)], dtype=object)},
                       description="every field")
    data = instance_to_json(inst)
    assert _floats(data) == []
    assert (data["mu"], data["f_low"], data["xstar"]) == ("1/10", "-7", ["1/3", "1/4"])
    assert data["derived"]["mu"] == "1/10" and data["derived"]["xstar"] == ["1/3", "1/4"]
    assert data["free"] == {"n": 4, "r": "-5/3", "v": ["1", "1/2"]}
    _same_instance(inst, instance_from_json(data))


@pytest.mark.parametrize("field,value,named", [
    ("sigma", 0.5, "instance.sigma"),                      # a float is not exact
    ("eta_l", "1/0", "instance.eta_l"),
    ("x0", ["0", "1"], "instance.x0"),                     # d = 1
    ("S", "1", "instance.S"),
    ("S", 5, "instance.S"),                                # more clients per round than N = 2
    ("schema", "pyfed.instance/99", "instance.schema"),
])
def test_malformed_instance_names_the_field(field, value, named):
    from pyfed.models.scaffold.candidates import candidate
    inst, _ = candidate(our_statements()["ConvexFiniteRoundConvergence"], 0, 0)
    data = instance_to_json(inst)
    data[field] = value
    with pytest.raises(InputError) as info:
        instance_from_json(data)
    assert info.value.argument == named


def test_tampered_derived_value_is_rejected():
    from pyfed.models.scaffold.candidates import candidate
    inst, _ = candidate(our_statements()["ConvexFiniteRoundConvergence"], 0, 0)
    data = instance_to_json(inst)
    data["derived"]["xstar"] = ["12345"]
    with pytest.raises(InputError) as info:
        instance_from_json(data)
    assert info.value.argument == "instance.derived.xstar"
    del data["derived"]
    instance_from_json(data)              # the earlier schema without `derived` still reads


def test_side_json_of_irrational_value_has_certified_rational_bounds():
    import sympy
    s = side_json(sympy.sqrt(2) / 3)
    lo, hi = Fraction(s["lower"]), Fraction(s["upper"])
    assert s["exact"] is None and lo < hi and hi - lo < Fraction(1, 10 ** 60)
    assert lo * lo * 9 < 2 < hi * hi * 9                 # the bounds enclose sqrt(2)/3
    assert side_json(Fraction(-3, 4)) == {"exact": "-3/4"}


@pytest.fixture(scope="module")
def no_noise_record():
    from pyfed.models.scaffold.search import search
    from pyfed.export import counterexample_record
    (st,) = read_file(EXAMPLES / "convex_no_noise.lean")
    res = search(st, seed=0, budget=0)
    assert res.verdict.status == "violated"
    return st, counterexample_record(st, res.verdict, seed=0, budget=0)


@pytest.mark.slow
def test_counterexample_record_is_complete_and_float_free(no_noise_record):
    import hashlib
    st, rec = no_noise_record
    assert _floats(json.loads(json.dumps(rec))) == []
    assert rec["schema"] == WITNESS_SCHEMA
    assert rec["lean_declaration"] == "SCAFFOLD.Examples.ConvexWithoutNoiseTerm"
    assert rec["source"] == f"{EXAMPLES / 'convex_no_noise.lean'}:19"
    assert rec["file"]["sha256"] == hashlib.sha256((EXAMPLES / "convex_no_noise.lean").read_bytes()).hexdigest()
    assert rec["statement_text"].startswith("theorem ConvexWithoutNoiseTerm {d N : ℕ}")
    lhs, rhs, margin = (Fraction(rec[k]["exact"]) for k in ("lhs", "rhs", "margin"))
    assert margin == rhs - lhs < 0 and rhs == 0
    assert (rec["seed"], rec["index"]) == (0, 0) and rec["relation"] == "≤"
    inst = rec["instance"]
    for key in ("A", "b", "x0", "c0", "N", "d", "S", "K", "T", "eta_l", "eta_g", "beta", "sigma", "oracle",
                "sampling", "derived"):
        assert inst[key] is not None, key
    assert set(inst["derived"]) >= {"mu", "xstar", "f_star", "h"}
    # the candidate index rebuilds the instance: same seed, same numbers
    from pyfed.models.scaffold.candidates import candidate
    again, _ = candidate(st, rec["seed"], rec["index"])
    assert instance_to_json(again) == inst


# ---------------------------------------------------------------- 2. pyfed check --replay

@pytest.fixture(scope="module")
def exported(no_noise_export):
    """The convex_no_noise example's counterexample, written by the CLI with --out (pyfed check
    <a copy of convex_no_noise.lean> --quick --no-profile --budget 1 --seed 0 --out DIR --json PATH)."""
    code, _, _, out, _, _ = no_noise_export
    assert code == 1
    (js,) = sorted(out.glob("*.json"))
    (lean,) = sorted(out.glob("*.lean"))
    return js, lean


@pytest.mark.slow
def test_replay_reconfirms_the_violation_exactly(exported, capsys):
    from pyfed.cli import main
    js, _ = exported
    capsys.readouterr()
    assert main(["check", "--replay", str(js)]) == 1
    out = capsys.readouterr().out
    rec = json.loads(js.read_text())
    assert "violated" in out and "equal the recorded ones exactly" in out
    # the exact margin, every digit (after its certified decimal: the fraction is long)
    assert f"(exactly {rec['margin']['exact']})" in " ".join(out.split())
    assert re.search(r"margin rhs - lhs = -\d\.\d+e-\d+ \(exactly ", " ".join(out.split())) or \
        re.search(r"margin rhs - lhs = -0\.\d+ \(exactly ", " ".join(out.split()))
    # an explicit PATH.lean (the same file) works too
    assert main(["check", "--replay", str(js), str(EXAMPLES / "convex_no_noise.lean")]) == 1


@pytest.mark.slow
def test_replay_of_a_tampered_number_that_no_longer_violates_exits_0(exported, tmp_path, capsys):
    from pyfed.cli import main
    js, _ = exported
    rec = json.loads(js.read_text())
    assert rec["instance"]["sigma"] != "0"
    rec["instance"]["sigma"] = "0"        # no noise: x0 = x*, c0 = grad f_i(x*) never move, lhs = 0 = rhs
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(rec))
    capsys.readouterr()
    assert main(["check", "--replay", str(bad)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "holds" in out and "left side weightedGap A xstar μ = 0 " in out and "differ from the recorded" in out


@pytest.mark.slow
@pytest.mark.parametrize("edit,field", [
    (lambda r: r["instance"].__setitem__("eta_l", 0.001), "instance.eta_l"),
    (lambda r: r["instance"].pop("A"), "instance.A"),
    (lambda r: r.pop("instance"), "instance"),
    (lambda r: r.__setitem__("schema", "pyfed.counterexample/9"), "schema"),
    (lambda r: r["instance"].__setitem__("c0", None), "instance.init"),
    (lambda r: r.__setitem__("statement", "NoSuchTheorem"), "statement"),
])
def test_replay_of_a_malformed_record_exits_2_naming_file_and_field(exported, tmp_path, capsys, edit, field):
    from pyfed.cli import main
    js, _ = exported
    rec = json.loads(js.read_text())
    edit(rec)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(rec))
    capsys.readouterr()
    assert main(["check", "--replay", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and str(bad) in err, err
    if field:
        assert f"field `{field}`" in err, err


@pytest.mark.slow
def test_replay_file_errors_exit_2(exported, tmp_path, capsys):
    from pyfed.cli import main
    js, _ = exported
    notjson = tmp_path / "x.json"
    notjson.write_text("{not json")
    for argv, words in [(["--replay", str(notjson)], ["not JSON", str(notjson)]),
                        (["--replay", str(tmp_path / "missing.json")], ["cannot read"])]:
        assert main(["check", *argv]) == 2
        err = capsys.readouterr().err
        assert all(w in err for w in words), err
    # the statement file moved away, and a changed statement file (hash), accepted with --force
    rec = json.loads(js.read_text())
    rec["file"]["path"] = rec["file"]["as_read"] = str(tmp_path / "gone.lean")
    moved = tmp_path / "moved.json"
    moved.write_text(json.dumps(rec))
    assert main(["check", "--replay", str(moved)]) == 2
    assert "not found" in capsys.readouterr().err
    edited = tmp_path / "edited.lean"
    edited.write_text((EXAMPLES / "convex_no_noise.lean").read_text(encoding="utf-8") + "\n-- edited\n",
                      encoding="utf-8")
    assert main(["check", "--replay", str(js), str(edited)]) == 2
    assert "SHA-256" in capsys.readouterr().err
    assert main(["check", "--replay", str(js), str(edited), "--force"]) == 1
    assert "re-decided with --force" in capsys.readouterr().out
    assert main(["check", str(EXAMPLES / "seed_convex.lean"), "--force"]) == 2
    assert "--force" in capsys.readouterr().err


# ---------------------------------------------------------------- 3. the exported Lean file

def _lean_literals(text):
    """``{name: value}`` of every ``def name : T := literal`` line, parsed independently of pyfed's
    own reader: integers and ``p / q`` become Fractions, lists stay lists. Asserts no decimal
    point or exponent appears in any literal (ℚ literals must be exact)."""
    import re
    out = {}
    for m in re.finditer(r"(?m)^def (\S+) : ([^:=]+) := (.+)$", text):
        name, value = m.group(1), m.group(3).strip()
        if value.startswith('"'):
            out[name] = value.strip('"')
            continue
        assert not re.search(r"\d\.\d|\d[eE][-+]?\d", value), (name, value)
        js = re.sub(r"(-?\d+)(?: / (\d+))?", lambda t: f'"{t.group(1)}/{t.group(2) or 1}"', value)
        tree = json.loads(js)
        conv = (lambda v: [conv(x) for x in v] if isinstance(v, list) else Fraction(v))
        out[name] = conv(tree)
    return out


@pytest.mark.slow
def test_exported_lean_literals_are_the_json_instance_exactly(exported):
    js, lean = exported
    rec = json.loads(js.read_text())
    text = lean.read_text(encoding="utf-8")
    lit = _lean_literals(text)
    inst = rec["instance"]
    Q = Fraction

    def qs(v):
        return [qs(x) for x in v] if isinstance(v, list) else Q(v)

    assert lit["theoremName"] == rec["lean_declaration"] == "SCAFFOLD.Examples.ConvexWithoutNoiseTerm"
    assert f"Counterexample to `{rec['lean_declaration']}`" in text
    for lean_name, key in (("N", "N"), ("d", "d"), ("S", "S"), ("K", "K"), ("T", "T")):
        assert lit[lean_name] == inst[key], lean_name
    for lean_name, key in (("ηl", "eta_l"), ("ηg", "eta_g"), ("β", "beta"), ("σ", "sigma")):
        assert lit[lean_name] == Q(inst[key]), lean_name
    for key in ("A", "b", "x0", "c0"):
        assert lit[key] == qs(inst[key]), key
    # the statement's μ and xstar: the instance's own or, as here, the problem's (derived) ones
    assert lit["μ"] == Q(inst["mu"] if inst["mu"] is not None else inst["derived"]["mu"])
    assert lit["xstar"] == qs(inst["xstar"] if inst["xstar"] is not None else inst["derived"]["xstar"])
    assert lit["lhs"] == Q(rec["lhs"]["exact"]) and lit["rhs"] == Q(rec["rhs"]["exact"])
    assert lit["rhs"] - lit["lhs"] == Q(rec["margin"]["exact"]) < 0
    assert "example : rhs < lhs := by norm_num [lhs, rhs]" in text
    # pyfed's own reader of the file agrees
    from pyfed.export import parse_counterexample_lean
    back = parse_counterexample_lean(text)
    assert back["mu"] == lit["μ"] and back["xstar"] == lit["xstar"] and back["A"] == lit["A"]


@pytest.mark.slow
def test_lean_export_of_irrational_sides_and_of_a_strict_statement_uses_certified_bounds(no_noise_record):
    import sympy
    from pyfed.models.registry import model_by_tag
    _, rec = no_noise_record
    rec = json.loads(json.dumps(rec))
    rec["relation"] = "<"
    rec["lhs"] = side_json(sympy.sqrt(3))
    rec["rhs"] = side_json(sympy.Rational(1))
    text = model_by_tag(rec.get("shape", "scaffold_run")).render_counterexample(rec)
    lit = _lean_literals(text)
    assert lit["lhs"] == Fraction(rec["lhs"]["lower"]) and lit["lhs"] ** 2 <= 3 < (lit["lhs"] + Fraction(1, 10 ** 50)) ** 2
    assert lit["rhs"] == 1
    assert "example : rhs ≤ lhs := by norm_num [lhs, rhs]" in text      # violating `<` is rhs ≤ lhs
    assert "certified lower bound of the left side" in text


def test_recorded_sides_of_any_length_are_read_exactly():
    # long-horizon witnesses carry rationals beyond CPython's 4300-digit int-from-text limit:
    # replay and the Lean export read them in full instead of dropping or crashing
    from fractions import Fraction
    from pyfed.commands.replay import _recorded
    from pyfed.exact import rational_str
    big = Fraction(10 ** 5000 + 7, 3 ** 2000)
    rec = {"lhs": {"exact": rational_str(big)}, "rhs": {"exact": "1/2"}}
    assert _recorded(rec, "lhs") == big and _recorded(rec, "rhs") == Fraction(1, 2)


# ---------------------------------------------------------------- run-free statements

YOUNG = Path(__file__).resolve().parents[1] / "examples" / "statements" / "young_small_constant.lean"


def test_a_lemma_counterexample_exports_replays_and_records_its_instance(tmp_path, capsys):
    from pyfed.cli import main
    out = tmp_path / "ce"
    assert main(["check", str(YOUNG), "--quick", "--no-profile", "--out", str(out)]) == 1
    capsys.readouterr()
    (jpath,) = out.glob("*.json")
    rec = json.loads(jpath.read_text(encoding="utf-8"))
    assert rec["shape"] == "lemma" and rec["family"] == "vector lemma" and "interpret" in rec["decided_by"]
    inst = rec["instance"]
    a, u, v = Fraction(inst["a"]), [Fraction(x) for x in inst["u"]["vec"]], [Fraction(x) for x in inst["v"]["vec"]]
    # the statement's own sides, by hand: 2|⟪u, v⟫| against a/2‖u‖² + a⁻¹‖v‖²
    lhs = 2 * abs(sum(x * y for x, y in zip(u, v)))
    rhs = a / 2 * sum(x * x for x in u) + sum(y * y for y in v) / a
    assert (Fraction(rec["lhs"]["exact"]), Fraction(rec["rhs"]["exact"])) == (lhs, rhs) and rhs < lhs
    lean = jpath.with_suffix(".lean").read_text(encoding="utf-8")
    assert f"def a : ℚ := {a.numerator}" in lean and "def u : List ℚ := [" in lean
    assert "#guard rhs < lhs" in lean and "YoungHalfConstant" in lean
    assert main(["check", "--replay", str(jpath)]) == 1
    text = capsys.readouterr().out
    assert "violated" in text and "both sides equal the recorded ones exactly" in text
    rec["instance"]["a"] = "4"           # at a = 4 with these vectors the inequality holds again
    jpath.write_text(json.dumps(rec), encoding="utf-8")
    assert main(["check", "--replay", str(jpath)]) == 0


def test_a_search_record_of_an_edited_statement_replays_with_its_edit(tmp_path, capsys):
    """pyfed search --mutate writes a counterexample record; --replay re-reads pyfed's statement
    with the same Lean-text edit, re-confirms the violation exactly and exits 0 (the edit's
    violation is the point of the search, as for `pyfed search --mutate` itself)."""
    from pyfed.cli import main
    out = tmp_path / "s"
    assert main(["search", "YoungInner", "--mutate", "u_constant_halved", "--budget", "1", "--out", str(out)]) == 0
    capsys.readouterr()
    (rec,) = [p for p in out.glob("*.json") if not p.name.endswith("summary.json")]
    assert main(["check", "--replay", str(rec)]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "mutation u_constant_halved" in text and "verdict: violated" in text
    assert "both sides equal the recorded ones exactly" in text


@pytest.mark.slow
def test_a_fedavg_counterexample_of_a_users_namespace_exports_and_replays(tmp_path, capsys):
    """A FedAvg statement in the user's own namespace (FedAvg.Examples): `pyfed check --out`
    writes its JSON record and a Lean file that opens the model's namespace only; the replay
    re-confirms the violation exactly."""
    from pyfed.cli import main
    path = Path(__file__).resolve().parents[1] / "examples" / "statements" / "fedavg_drift_small_constant.lean"
    out = tmp_path / "ce"
    assert main(["check", str(path), "--quick", "--no-profile", "--out", str(out)]) == 1
    capsys.readouterr()
    (jpath,) = out.glob("*.json")
    rec = json.loads(jpath.read_text(encoding="utf-8"))
    assert rec["shape"] == "fedavg_run" and rec["lean_declaration"] == "FedAvg.Examples.DriftSmallConstant"
    lean = jpath.with_suffix(".lean").read_text(encoding="utf-8")
    assert "\nopen FedAvg\n" in lean and "open FedAvg.Examples" not in lean and "pyfed check" in lean
    lhs, rhs = Fraction(rec["lhs"]["exact"]), Fraction(rec["rhs"]["exact"])
    assert rhs < lhs and f"({rhs.numerator}/{rhs.denominator} : ℚ) < ({lhs.numerator}/{lhs.denominator} : ℚ)" in lean
    assert main(["check", "--replay", str(jpath)]) == 1
    assert "both sides equal the recorded ones exactly" in capsys.readouterr().out
