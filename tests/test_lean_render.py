"""`pyfed lean`: generated Lean test instances are reproducible, committed, and carry pyfed's exact values."""

from __future__ import annotations

import argparse
import re
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from pyfed.errors import InputError
from pyfed.commands import lean as cli
from pyfed.lean import render
from pyfed.theory import bounds
from pyfed.theory import fedavg as th

LEAN = Path(__file__).resolve().parents[1] / "lean"
GEN = LEAN / "PyfedTest" / "Generated"
LIT = re.compile(r"\((-?\d+)/(\d+) : ℚ\)|(?<![\w/])(\d+)(?![\w/])")


def _args(text: str) -> list:
    """Lean argument literals -> Fraction / int, in order."""
    out = []
    for m in LIT.finditer(text):
        if m.group(1) is not None:
            assert int(m.group(2)) > 0
            out.append(Fraction(int(m.group(1)), int(m.group(2))))
        else:
            out.append(int(m.group(3)))
    return out


def _python_value(name: str, a: list) -> Fraction:
    if name == "effectiveStepQ":
        return bounds.effective_step(*a, exact=True)
    if name == "weightQ":
        mu, h, r = a
        return bounds.weight(r, mu, h, exact=True)
    if name == "weightSumQ":
        mu, h, T = a
        return bounds.weight_sum(T, mu, h, exact=True)
    if name == "initialPotentialQ":
        return bounds.initial_potential(*a, exact=True)
    if name == "convexRHSQ":
        d, C0, N, S, K, T, el, eg, mu, s = a
        return bounds.convex_rhs(dist_sq=d, C0=C0, N=N, S=S, K=K, T=T, eta_l=el, eta_g=eg, mu=mu,
                                 sigma=s, exact=True)
    if name == "nonconvexRHSQ":
        fg, beta, S, K, T, el, eg, s = a
        return bounds.nonconvex_rhs(f_gap=fg, beta=beta, S=S, K=K, T=T, eta_l=el, eta_g=eg,
                                    sigma=s, exact=True)
    raise AssertionError(name)


def test_rendering_is_deterministic():
    assert render.render_all(LEAN) == render.render_all(LEAN)


def test_committed_files_equal_fresh_rendering():
    assert render.check_all(LEAN) == [], "run `pyfed lean` and commit lean/PyfedTest"


def test_every_file_has_the_header_and_no_module_keyword():
    for p in [LEAN / "PyfedTest.lean", *sorted(GEN.glob("*.lean"))]:
        text = p.read_text(encoding="utf-8")
        assert text.startswith(render.HEADER), p
        assert not re.search(r"(?m)^module\b", text), p
        assert "<<" not in text and "<%" not in text, p


def test_numbers_in_generated_files_equal_pyfed_values():
    text = (GEN / "ExactValues.lean").read_text(encoding="utf-8")
    seen = {}
    for kind in ("example : ", "#guard "):
        for m in re.finditer(rf"(?m)^{kind}(\w+Q) (.*?) (?:=|==) (\(-?\d+/\d+ : ℚ\))(?: := by)?$", text):
            name, args, value = m.group(1), _args(m.group(2)), _args(m.group(3))[0]
            assert value == _python_value(name, args), (name, args)
            seen[name] = seen.get(name, 0) + 1
    assert set(seen) == {"effectiveStepQ", "weightQ", "weightSumQ", "initialPotentialQ",
                         "convexRHSQ", "nonconvexRHSQ"}
    assert seen["convexRHSQ"] == 4 + 3        # 4 #guards, 3 norm_num examples (T=60 skipped)


def test_check_instances_cover_pyfed_check_and_carry_its_exact_values():
    from pyfed.suites.scaffold import default_suite, instance_rhs

    text = (GEN / "CheckInstances.lean").read_text(encoding="utf-8")
    suite = default_suite(quick=False)
    for inst in suite:
        assert f"instance `{inst.name}`" in text
    assert "¬" not in text                      # every instance of pyfed check meets its hypotheses
    n = 0
    for m in re.finditer(r"(?m)^#guard (\w+Q) (.*?) == (\(-?\d+/\d+ : ℚ\))$", text):
        name, args, value = m.group(1), _args(m.group(2)), _args(m.group(3))[0]
        assert value == _python_value(name, args), (name, args)
        n += 1
    assert n >= 5
    # the rational quadratic instance's right side is pyfed check's own exact right side
    quad = next(inst for inst in suite if inst.name.startswith("quadratic"))
    rhs = instance_rhs(quad)
    assert f"== ({rhs.numerator}/{rhs.denominator} : ℚ)" in text


def test_hand_derived_values_appear():
    text = (GEN / "ExactValues.lean").read_text(encoding="utf-8")
    # mu = 0, full participation: h = 2 * 1/200 * 2 = 1/50, W_3 = 3, V0 = 1, sigma = 0:
    # RHS = V0 / (h W) = 50/3
    assert ("convexRHSQ (1/1 : ℚ) (0/1 : ℚ) 5 5 2 3 (1/200 : ℚ) (2/1 : ℚ) (0/1 : ℚ) (0/1 : ℚ)"
            " = (50/3 : ℚ)") in text
    # nonconvex N=10,S=5,K=5,T=4, f_gap=3, beta=sigma=eta_g=1: h = 1/40;
    # 14*3/(h*4) = 420 and 70*h/(K*S)*(1 + S) = 21/50
    assert "nonconvexRHSQ (3/1 : ℚ) (1/1 : ℚ) 5 5 4 (1/200 : ℚ) (1/1 : ℚ) (1/1 : ℚ) = (21021/50 : ℚ)" in text


def test_hypothesis_facts_hold_and_use_pyfed_bounds():
    text = (GEN / "Hypotheses.lean").read_text(encoding="utf-8")
    assert "¬" not in text                     # all default instances meet their hypotheses
    # instance 1: h = 1/100 <= 1/(81 * 1); mu h <= 4/(15 * 8) = 1/30
    assert "example : effectiveStepQ 4 (1/400 : ℚ) (1/1 : ℚ) ≤ (1/81 : ℚ) := by" in text
    assert "example : (1/10 : ℚ) * effectiveStepQ 4 (1/400 : ℚ) (1/1 : ℚ) ≤ (1/30 : ℚ) := by" in text
    assert "(24 * (1/1 : ℚ) * effectiveStepQ 5 (1/200 : ℚ) (1/1 : ℚ)) ^ 3 ≤ (5 / 10 : ℚ) ^ 2" in text


def test_root_imports_generated_modules():
    text = (LEAN / "PyfedTest.lean").read_text(encoding="utf-8")
    imports = re.findall(r"(?m)^import (\S+)$", text)
    files = sorted(p.stem for p in GEN.glob("*.lean"))
    assert imports == sorted([f"PyfedTest.Generated.{f}" for f in files] + list(render.STATIC_TEST_MODULES))
    assert all((LEAN / (m.replace(".", "/") + ".lean")).is_file() for m in imports)


RECORD = {"lean_name": "SCAFFOLD.ConvexFiniteRoundConvergence", "id": "search #3/relaxed h",
          "instance": {"N": 8, "S": 4, "K": 4, "T": 4, "eta_l": "1/20", "eta_g": "1",
                       "mu": "1/10", "beta": "1", "sigma": "1/2", "dist_sq": "3", "C0": "2"},
          "lhs": "100", "note": "step size relaxed beyond 1/(81 beta)"}


def _record():
    rec = dict(RECORD)
    rec["rhs"] = str(bounds.convex_rhs(dist_sq=3, C0=2, N=8, S=4, K=4, T=4, eta_l=Fraction(1, 20),
                                       eta_g=1, mu=Fraction(1, 10), sigma=Fraction(1, 2)))
    return rec


def test_counterexample_file():
    rec = _record()
    text = render.render_counterexample(rec)
    assert text == render.render_counterexample(rec)
    assert text.startswith(render.COUNTEREXAMPLE_HEADER + "\n")
    assert text.startswith("-- generated by `pyfed search` — do not edit\n") and "pyfed lean" not in text
    assert "Left side (exact): 100;" in text and "estimated" not in text
    assert "Left side (estimate, rounded to a rational): 100;" in render.render_counterexample(
        dict(rec, lhs_exact=False))
    assert "namespace PyfedTest.Generated.Counterexample_search_3_relaxed_h" in text
    rhs = Fraction(rec["rhs"])
    assert f"8 4 4 4 (1/20 : ℚ) (1/1 : ℚ) (1/10 : ℚ) (1/2 : ℚ) = ({rhs.numerator}/{rhs.denominator} : ℚ)" in text
    assert f"example : ({rhs.numerator}/{rhs.denominator} : ℚ) < (100/1 : ℚ) := by" in text
    # h = 4 * 1/20 = 1/5 > 1/81: the relaxed hypothesis is stated negated
    assert "-- hypothesis: fails: h <= 1/(81 beta)" in text
    assert "example : ¬ (effectiveStepQ 4 (1/20 : ℚ) (1/1 : ℚ) ≤ (1/81 : ℚ)) := by" in text


def test_counterexample_for_a_lemma_has_the_witness_only():
    text = render.render_counterexample({"lean_name": "SamplingVarianceBound", "instance": {"N": 3},
                                         "lhs": "5/2", "rhs": "-1/3"})
    assert "example : (-1/3 : ℚ) < (5/2 : ℚ) := by" in text
    assert "#guard (-1/3 : ℚ) < (5/2 : ℚ)" in text
    assert re.search(r"Counterexample_SamplingVarianceBound_[0-9a-f]{12}", text)


def test_counterexample_names_its_namespace():
    text = render.render_counterexample({"lean_name": "SamplingVarianceBound", "instance": {"N": 3},
                                         "lhs": "5/2", "rhs": "-1/3"})
    assert "`SCAFFOLD.SamplingVarianceBound`" in text and "\nopen SCAFFOLD\n" in text
    text = render.render_counterexample({"lean_name": "FedAvg.BoundedClientDrift", "instance": {"tau": 2},
                                         "lhs": "5/2", "rhs": "1/3"})
    assert "`FedAvg.BoundedClientDrift`" in text and "\nopen FedAvg\n" in text
    assert "open SCAFFOLD" not in text
    assert "example : (1/3 : ℚ) < (5/2 : ℚ) := by" in text
    assert render.render_counterexample(dict(_record(), lean_name="ConvexFiniteRoundConvergence")) == \
        render.render_counterexample(_record())
    with pytest.raises(InputError) as e:
        render.render_counterexample({"lean_name": "LocalSGD.Foo", "instance": {}, "lhs": "1", "rhs": "0"})
    assert e.value.argument == "lean_name"


@pytest.mark.parametrize("field, value", [("lhs", 0.5), ("rhs", "abc"), ("lean_name", "bad name")])
def test_counterexample_rejects_inexact_or_malformed(field, value):
    rec = _record()
    rec[field] = value
    with pytest.raises(InputError) as e:
        render.render_counterexample(rec)
    assert e.value.argument == field


def test_counterexample_rhs_must_match_pyfed():
    rec = _record()
    rec["rhs"] = str(Fraction(rec["rhs"]) + 1)
    with pytest.raises(InputError) as e:
        render.render_counterexample(rec)
    assert e.value.argument == "rhs"


def test_write_counterexample_updates_root(tmp_path):
    lean = tmp_path / "lean"
    shutil.copytree(LEAN / "PyfedTest", lean / "PyfedTest")
    shutil.copy(LEAN / "PyfedTest.lean", lean / "PyfedTest.lean")
    path = render.write_counterexample(_record(), lean)
    assert path.name == "Counterexample_search_3_relaxed_h.lean"
    root = (lean / "PyfedTest.lean").read_text(encoding="utf-8")
    assert "import PyfedTest.Generated.Counterexample_search_3_relaxed_h" in root
    assert render.check_all(lean) == []       # the root now includes the counterexample


def test_literals_are_exact():
    assert render.rat(Fraction(-3, 4)) == "(-3/4 : ℚ)"
    assert render.rat("6/8") == "(3/4 : ℚ)"
    with pytest.raises(InputError):
        render.rat(0.75)
    assert render.sanitize("9 lives/ok!") == "x9_lives_ok"


def test_lean_braces_pass_through_templates():
    env = render.environment()
    out = env.from_string("def s : S := { x := << v >> } <# note #><% if true %>!<% endif %>").render(v=1)
    assert out == "def s : S := { x := 1 } !"


def test_cli_check_detects_stale_files(tmp_path, capsys):
    lean = tmp_path / "lean"
    shutil.copytree(LEAN / "PyfedTest", lean / "PyfedTest")
    shutil.copy(LEAN / "PyfedTest.lean", lean / "PyfedTest.lean")
    ap = argparse.ArgumentParser()
    cli.register(ap.add_subparsers(dest="command"))
    args = ap.parse_args(["lean", "--out", str(lean), "--check"])
    assert args.func(args) == 0
    target = lean / "PyfedTest" / "Generated" / "ExactValues.lean"
    target.write_text(target.read_text(encoding="utf-8").replace("(50/3 : ℚ)", "(49/3 : ℚ)"),
                      encoding="utf-8")
    assert args.func(args) == 4          # a failed consistency check, not a violated verdict (exit 1)
    assert "ExactValues.lean" in capsys.readouterr().err
    write = ap.parse_args(["lean", "--out", str(lean)])
    assert write.func(write) == 0
    assert args.func(args) == 0


def test_default_instances_meet_hypotheses():
    from pyfed.theory import convex_hypotheses, nonconvex_hypotheses
    for inst in render.DEFAULT_INSTANCES:
        kw = {k: inst[k] for k in ("N", "S", "K", "T", "eta_l", "eta_g", "beta", "sigma")}
        hyps = (convex_hypotheses(mu=inst["mu"], **kw) if inst["theorem"] == render.CONVEX
                else nonconvex_hypotheses(**kw)[:-1])      # f_low: a problem property
        assert all(h.holds for h in hyps), (inst["name"], [h.key for h in hyps if not h.holds])


def test_counterexample_outside_hypotheses_states_only_what_is_defined():
    # beta = 0 (relaxed): the step-size hypotheses are undefined and left out; K = 0 makes the
    # right side undefined -> InputError naming the instance
    rec = _record()
    rec["instance"] = dict(rec["instance"], beta="0")
    text = render.render_counterexample(rec)
    assert "-- hypothesis: fails: beta > 0" in text
    assert "hypothesis: fails: h <= 1/(81 beta)" not in text and "hypothesis: h <= 1/(81 beta)" not in text
    rec["instance"] = dict(rec["instance"], K=0)
    with pytest.raises(InputError) as e:
        render.render_counterexample(rec)
    assert e.value.argument == "instance"


@pytest.mark.slow
def test_pyfed_main_dispatches_lean(monkeypatch, capsys):
    from pyfed import cli as main_cli
    assert main_cli.main(["lean", "--check", "--drift"]) == 0
    out = capsys.readouterr().out
    assert "up to date" in out and "agree with pyfed.theory" in out


# ------------------------------------------------------------------------------------------ FedAvg

def test_fedavg_instances_file_states_exact_values_and_hypotheses():
    text = render.render_fedavg_instances()
    assert "open FedAvg" in text and "driftRHSQ" in text and "convergenceRHSQ" in text
    for inst in render.fedavg_instances():
        for fact in render.fedavg_value_facts(inst):
            assert fact["exact"] == (th.drift_rhs(inst["tau"], inst["eta"], sigma_sq=inst["sigma_sq"],
                                                  zeta_sq=inst["zeta_sq"]) if fact["name"] == "driftRHSQ" else
                                     th.convergence_rhs(dist_sq=inst["dist_sq"], M=inst["M"], tau=inst["tau"],
                                                        T=inst["T"], eta=inst["eta"], L=inst["L"],
                                                        sigma_sq=inst["sigma_sq"], zeta_sq=inst["zeta_sq"]))
            assert render.rat(fact["exact"]) in text
        assert all(f["holds"] for f in render.fedavg_hypothesis_facts(inst))


def test_committed_generated_files_are_in_sync():
    assert render.check_all(LEAN) == []


@pytest.mark.slow
def test_fedavg_counterexample_file_rederives_the_right_side(tmp_path):
    from pyfed.search import search_to_dir

    paths = search_to_dir("FedAvg.BoundedClientDrift", seed=0, budget=2, out=str(tmp_path), relax=("step_size",))
    assert paths
    lean = sorted(p for p in tmp_path.iterdir() if p.suffix == ".lean")
    assert lean
    text = lean[0].read_text()
    assert "open FedAvg" in text and "driftRHSQ" in text and "NOT a counterexample" in text
    # a record whose right side disagrees with the mirror is rejected
    rec = {"lean_name": "FedAvg.BoundedClientDrift", "lhs": "2", "rhs": "1",
           "instance": {"M": "2", "tau": "1", "T": "1", "eta": "1/4", "L": "1", "sigma": "0", "zeta_sq": "1",
                        "dist_sq": "1"}}
    from pyfed.errors import InputError
    with pytest.raises(InputError) as e:
        render.render_counterexample(rec)
    assert e.value.argument == "rhs"
    rec["rhs"] = str(th.drift_rhs(1, Fraction(1, 4), sigma_sq=0, zeta_sq=1))
    assert "driftRHSQ 1 (1/4 : ℚ)" in render.render_counterexample(rec)


def test_a_counterexample_of_certified_bounds_says_so_and_skips_the_mirror():
    """A FedAvg witness decided in certified balls: ``lhs`` a certified lower bound of the left
    side, ``rhs`` a certified upper bound of the right side; the file says so, states
    ``rhs < lhs`` between the bounds and does not re-derive a right side it only bounds."""
    rec = {"lean_name": "FedAvg.ConvexFedAvgConvergence", "lhs": "3/1024", "rhs": "1/1024", "lhs_bound": True,
           "rhs_bound": True, "instance": {"M": "2", "tau": "4", "T": "2", "eta": "1/8", "L": "2", "sigma_sq": "0",
                                          "zeta_sq": "4", "dist_sq": "0"}}
    text = render.render_counterexample(rec)
    assert "Left side (certified lower bound (python-flint arb ball)): 3/1024" in text
    assert "right side (certified upper bound (python-flint arb ball)): 1/1024" in text
    assert "a certified upper bound of the right side is below a certified lower bound of the left side" in text
    assert "#guard (1/1024 : ℚ) < (3/1024 : ℚ)" in text and "convergenceRHSQ" not in text
    exact = render.render_counterexample(dict(rec, lean_name="FedAvg.Trial.NoZeta", lhs_bound=False, rhs_bound=False))
    assert "the witness: the left side exceeds the right side" in exact and "certified" not in exact


def _comment(text):
    return " ".join(text.split("/-!", 1)[1].split("-/", 1)[0].split())


def test_a_counterexample_file_says_only_what_it_checks():
    # SCAFFOLD theorem: right side re-derived and hypotheses stated, so the comment says so
    full = _comment(render.render_counterexample(_record()))
    assert "checks the right side's value (from its ℚ mirror, pyfed.theory), which hypotheses hold and the comparison" \
        in full
    # a user's FedAvg statement without a ℚ mirror: the file holds the witness alone, and says that
    rec = {"lean_name": "FedAvg.Mine.F3_NoZetaTerm", "id": "F3_NoZetaTerm_s0_c5", "lhs": "1/3", "rhs": "0",
           "instance": {"M": "2", "tau": "4", "T": "2", "L": "2", "sigma_sq": "0", "zeta_sq": "4", "dist_sq": "0"},
           "clients": "sqrt family: Fᵢ(x) = a x²/2 − bᵢ x + cᵢ √(1 + x²)",
           "namespace": "PyfedCounterexample.F3_NoZetaTerm_s0_c5"}
    text = render.render_counterexample(rec)
    only = _comment(text)
    assert "this file checks only the comparison of the two numbers above" in only
    assert "which hypotheses hold" not in only and "checks the right side" not in only
    assert "Clients: sqrt family: Fᵢ(x) = a x²/2 − bᵢ x + cᵢ √(1 + x²)." in only
    assert text.count("example :") == 1
    assert "namespace PyfedCounterexample.F3_NoZetaTerm_s0_c5\n" in text
    assert text.rstrip().endswith("end PyfedCounterexample.F3_NoZetaTerm_s0_c5")
