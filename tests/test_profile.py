"""The constant profile of ``pyfed check PATH.lean``: structured candidates where the bounds are
tightest (the noise floor pins the noise constant 12 and exposes a too small one), certified
outward-rounded decimals, the 'not needed' and 'already violated' framing, the progress count,
and byte-identical profiles on a 2-process Dask cluster."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from pyfed.cli import main
from pyfed.exact import outward_decimal
from pyfed.models.scaffold.profile import PERSIST_HALVINGS, constant_profile, profile_size
from pyfed.models.scaffold.candidates import candidate, structured_count
from pyfed.models.scaffold.instance import instance_from_json, instance_to_json
from pyfed.models.scaffold.constants import literals
from pyfed.models.scaffold.exact import recheck
from pyfed.models.scaffold.search import search
from pyfed.errors import InputError
from pyfed import read_file, read_text

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "statements"
SEED = EXAMPLES / "seed_convex.lean"

#: seed_convex.lean with convexRHS spelled out and its noise constant 12 replaced by 1/1000
SMALL_NOISE_RHS = ("initialPotential P S (effectiveStep K ηl ηg) c0 xstar /\n"
                   "        (effectiveStep K ηl ηg * weightSum μ (effectiveStep K ηl ηg) T) +\n"
                   "      1 / 1000 * effectiveStep K ηl ηg * P.σ ^ 2 / ((K : ℝ) * (S : ℝ)) * (1 + (S : ℝ) / ηg ^ 2)")


def _dump(p) -> str:
    return json.dumps(p, sort_keys=True, default=str)


def _keys(st):
    """The right side's constants and the step-size hypothesis's 81 (the mu h hypothesis's 15 is
    left out to keep the tests fast: its relaxed search adds nothing these tests need)."""
    from pyfed.models.scaffold.constants import literals
    return tuple(lit.key for lit in literals(st) if lit.where == "rhs" or lit.key.startswith("step_size:81"))


@pytest.fixture(scope="module")
def seed_profile():
    (st,) = read_file(SEED)
    seen = []
    return st, constant_profile(st, seed=0, budget=1, progress=seen.append, only=_keys(st)), seen


def _row(prof, key):
    return next(c for c in prof["constants"] if c["key"] == key)


@pytest.mark.slow
def test_progress_counts_every_candidate(seed_profile):
    st, prof, seen = seed_profile
    # the right side once, then the step-size hypothesis relaxed, each structured + budget
    assert sum(seen) == profile_size(st, 1, only=_keys(st)) == prof["candidates"] == 2 * (structured_count(st) + 1)
    assert profile_size(st, 1) == 3 * (structured_count(st) + 1)          # and 15's mu h hypothesis
    assert [c["key"] for c in prof["constants"]] == list(_keys(st))
    with pytest.raises(InputError, match="no such constant"):
        constant_profile(st, only=["convexRHS.noise=13"])


@pytest.mark.slow
def test_noise_constant_is_pinned_by_the_noise_floor(seed_profile):
    """needed(12) = (lhs - (rhs - 12 u)) / u on the pinning instance (u = the noise unit, by
    hand), below 12, reached at x0 = x*, c0 = grad f_i(x*), T = 200: a structured candidate."""
    from pyfed import theory
    from pyfed.models.scaffold.instance import instance_from_json
    from pyfed.models.scaffold.exact import sides_exact
    st, prof, _ = seed_profile
    c = _row(prof, "convexRHS.noise=12")
    need = Fraction(c["needed"])
    assert 0 < need <= 12 and c["direction"] == "at least" and not c["violated_at_own_value"]
    pin = c["pinned_by"]
    assert pin["index"] < structured_count(st) and pin["description"].startswith("noise floor")
    inst = instance_from_json(pin["instance"])
    assert inst.T == 200 and inst.sigma > 0 and list(inst.x0) == list(inst.problem.x_star_exact)
    lhs, rhs, _ = sides_exact(st, inst)
    h = theory.effective_step(inst.K, inst.eta_l, inst.eta_g)
    unit = theory.noise_term(1, inst.sigma, inst.S, inst.K, inst.eta_g, h)
    assert need == (lhs - (rhs - 12 * unit)) / unit
    # the printed decimal bounds the threshold from above (the safe side), within one unit of its 6th digit
    dec = Fraction(c["needed_decimal"])
    assert need <= dec < need * (1 + Fraction(1, 10**5))
    assert "iff the constant is >= " + c["needed_decimal"] in c["statement"]


@pytest.mark.slow
def test_potential_constant_is_pinned_by_the_control_error(seed_profile):
    """The 9 of 9 N h² C₀ / S is tested: on the structured "controls off" candidate (x0 = x*,
    zero controls so C₀ > 0, σ = 0, S = 1 of N = 2) only that term is left on the right side,
    RHS = 9 u with u = N h² C₀ / (S h W_T), so the threshold is exactly 9 lhs / rhs (by hand). Before
    that candidate the profile called 9 "not needed" and `9 → 0` went uncaught."""
    from pyfed.models.scaffold.instance import instance_from_json
    from pyfed.models.scaffold.exact import sides_exact
    st, prof, _ = seed_profile
    assert prof["violated"] is None
    c = _row(prof, "convexRHS.potential=9")
    need = Fraction(c["needed"])
    assert 0 < need < 9 and not c["not_needed"] and not c["violated_at_own_value"]
    pin = c["pinned_by"]
    assert pin["description"].startswith("controls off") and pin["index"] < structured_count(st)
    inst = instance_from_json(pin["instance"])
    assert inst.sigma == 0 and list(inst.x0) == list(inst.problem.x_star_exact)
    lhs, rhs, _ = sides_exact(st, inst)
    assert lhs > 0 and need == 9 * lhs / rhs


@pytest.mark.slow
def test_render_prints_short_rows(seed_profile):
    from rich.console import Console

    from pyfed.commands.render import render_profile
    _, prof, _ = seed_profile
    con = Console(record=True, width=250)
    render_profile(con, prof)
    text = con.export_text()
    assert ">= " + _row(prof, "convexRHS.potential=9")["needed_decimal"] in text
    assert ">= " + _row(prof, "convexRHS.noise=12")["needed_decimal"] in text
    assert _row(prof, "convexRHS.potential=9")["needed"].split("/")[0] not in text     # no giant fraction
    assert "already violated" not in text


@pytest.mark.slow
def test_profile_on_two_workers_is_identical(seed_profile):
    """The same candidates through pyfed.parallel on a 2-process LocalCluster: the same JSON."""
    pytest.importorskip("distributed")
    from pyfed.parallel import Pool
    st, prof, _ = seed_profile
    seen = []
    with Pool(workers=2) as pool:
        again = constant_profile(st, seed=0, budget=1, pool=pool, progress=seen.append, only=_keys(st))
    assert _dump(again) == _dump(prof) and sum(seen) == prof["candidates"]


@pytest.mark.slow
def test_too_small_noise_constant_is_caught_by_a_structured_candidate():
    from pyfed.models.scaffold.exact import recheck
    text = SEED.read_text().replace("convexRHS P S K T ηl ηg μ c0 xstar", SMALL_NOISE_RHS)
    (st,) = read_text(text, "small_noise.lean")
    from pyfed.models.scaffold.constants import literals
    key = next(lit.key for lit in literals(st) if lit.value == Fraction(1, 1000))
    prof = constant_profile(st, seed=0, budget=0, only=[key])
    assert prof["candidates"] == structured_count(st)             # the unrelaxed search alone
    # the statement's verdict: that search's first violation (pyfed check exits 1), a structured case
    assert prof["violated"]["index"] < structured_count(st)
    v = search(st, seed=0, budget=0, indices=[prof["violated"]["index"]]).verdict
    assert v.status == "violated" and recheck(st, v.witness).status == "violated"
    (c,) = prof["constants"]
    assert c["violated_at_own_value"] and Fraction(c["needed"]) > Fraction(1, 1000)
    pin = c["pinned_by"]["description"]
    assert c["pinned_by"]["index"] < structured_count(st) and ("noise floor" in pin or "only the noise remains" in pin)
    assert recheck(st, {"instance": c["pinned_by"]["instance"]}).status == "violated"
    from rich.console import Console

    from pyfed.commands.render import render_profile
    con = Console(record=True, width=250)
    render_profile(con, prof)
    assert con.export_text().count("already violated at its own constants") == 1


def test_structured_candidates_where_the_bounds_are_tightest():
    """eta_g = 1/2 and eta_g = 2 at the same h; K = 20; mu = beta with mu h = S/(15 N) binding."""
    (st,) = read_file(SEED)
    found = {}
    for i in range(0, structured_count(st), 9):
        inst, desc = candidate(st, 0, i)
        if inst is not None:
            found[desc.split(";")[0]] = inst
    lo = next(v for k, v in found.items() if k.startswith("eta_g = 1/2"))
    hi = next(v for k, v in found.items() if k.startswith("eta_g = 2 > 1 (the same h"))
    assert lo.eta_g == Fraction(1, 2) and hi.eta_g == 2
    assert lo.K * lo.eta_l * lo.eta_g == hi.K * hi.eta_l * hi.eta_g == Fraction(1, 81 * 3)    # beta = 3
    assert next(v for k, v in found.items() if k.startswith("K = 20")).K == 20
    mu = next(v for k, v in found.items() if k.startswith("mu = beta"))
    h = mu.K * mu.eta_l * mu.eta_g
    assert mu.problem.mu == mu.problem.beta == 1 and mu.problem.mu * h == Fraction(mu.S, 15 * mu.N)
    assert any(v.T == 200 for v in found.values())


def test_outward_decimal():
    assert (outward_decimal(Fraction(1, 3), True), outward_decimal(Fraction(1, 3), False)) == ("0.333334", "0.333333")
    assert (outward_decimal(Fraction(-1, 3), True), outward_decimal(Fraction(-1, 3), False)) == \
        ("-0.333333", "-0.333334")
    assert outward_decimal(Fraction(81), True) == "81" and outward_decimal(Fraction(1, 2), False) == "0.5"
    assert outward_decimal(Fraction(9999995, 10**6), True) == "10"
    assert outward_decimal(Fraction(2, 3) / 10**8, True) == "6.66667e-09"
    cbrt2 = sympy.Integer(2) ** sympy.Rational(1, 3)       # 1.2599210498...
    assert (outward_decimal(cbrt2, True), outward_decimal(cbrt2, False)) == ("1.25993", "1.25992")
    # the displayed threshold: exact when short; just beside the statement's own value as own +- delta
    from pyfed.models.scaffold.profile import _display
    assert _display(Fraction(1, 2), 81, True) == "1/2"
    near = 24 + Fraction(1, 3 * 10**17)
    assert (_display(near, 24, True), _display(near, 24, False)) == ("24 + 3.33334e-18", "24 + 3.33333e-18")
    assert _display(Fraction(1234567, 1000003), 12, True) == "1.23457"


@pytest.mark.parametrize("argv,arg", [
    (["check", str(SEED), "--workers", "0"], "--workers"),
    (["check", "--workers", "2"], "--workers"),
    (["check", str(SEED), "--scheduler", " "], "--scheduler"),
    (["check", str(SEED), "--workers", "2", "--scheduler", "tcp://127.0.0.1:1"], "--workers"),
])
def test_workers_and_scheduler_are_validated_before_work(argv, arg, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert arg in err and "Traceback" not in err


def test_profile_json_caps_giant_exact_thresholds():
    # a long-horizon threshold can be a rational of thousands of digits: the report writes it in
    # the capped number form (digits, float, length, hash), short rationals stay as they are
    import json
    from types import SimpleNamespace
    from pyfed.report import statement_report_json
    from fractions import Fraction
    from pyfed.exact import fraction_from_text
    big = "3" * 5000 + "/7"
    assert fraction_from_text(big) == Fraction((10 ** 5000 - 1) // 3, 7)     # 5000 threes over 7
    assert fraction_from_text("-12/8") == Fraction(-3, 2) and fraction_from_text("5") == 5
    st = SimpleNamespace(describe=lambda: {"name": "T"}, source="f.lean:1", name="T", family="SCAFFOLD run")
    rep = SimpleNamespace(statement=st, verdicts=[], pep_note=None, engines={}, exports=[], vacuous=None,
                          no_instance=False,
                          profile={"constants": [{"threshold": big, "small": "1/2",
                                                  "exact": Fraction(10 ** 4500 + 1, 3)}]})
    doc = json.loads(statement_report_json([rep], seed=0, quick=True, replicates=1, files=["f.lean"]))
    c = doc["statements"][0]["profile"]["constants"][0]
    assert c["small"] == "1/2"
    assert isinstance(c["threshold"], dict) and len(json.dumps(c["threshold"])) < 400
    assert isinstance(c["exact"], dict)   # a giant Fraction object is capped too, not a crash


@pytest.mark.slow
def test_render_says_a_free_constant_cannot_exclude_the_violations(seed_profile):
    # a statement violated whatever a constant's value: that constant's "not needed" row says
    # no value of it excludes the violations drawn (it does not read as if everything were fine)
    import copy

    from rich.console import Console

    from pyfed.commands.render import render_profile
    _, prof, _ = seed_profile
    prof = copy.deepcopy(prof)
    prof["violated"] = {"index": 0, "description": "x0 = xstar"}
    _row(prof, "convexRHS.potential=9")["not_needed"] = True         # as if no instance needed it
    con = Console(record=True, width=300)
    render_profile(con, prof)
    text = con.export_text()
    assert "any value >= 0 works); no" in text and "value of it excludes the violations drawn" in text  # may wrap
    assert text.count("already violated at its own constants") == 1


@pytest.mark.slow
def test_a_threshold_too_large_for_sympy_is_not_determined_not_a_crash(monkeypatch):
    # sympy can overflow on gigantic exact numbers (factoring the integer under a square root of a
    # long-horizon value): that instance's threshold is "not determined", the profile goes on
    import pyfed.models.scaffold.constants as ss
    from pyfed.models.scaffold.constants import literals

    def boom(*a, **k):
        raise OverflowError("int too large to convert to float")

    monkeypatch.setattr(ss, "safe_set", boom)
    (st,) = read_text(SEED.read_text().replace("convexRHS P S K T ηl ηg μ c0 xstar",
                                               "Real.sqrt (convexRHS P S K T ηl ηg μ c0 xstar) * 100"), "s.lean")
    key = next(lit.key for lit in literals(st) if lit.value == 100)
    prof = constant_profile(st, seed=0, budget=0, only=[key])
    (c,) = prof["constants"]
    assert c["needed"] is None and "too large to compute" in c["note"]


# ------------------------------------------------------------------ direction of each constant

def _profile_of(rhs_extra, key_text):
    """The profile entry of the numeral ``key_text`` added to the seed statement's right side."""
    text = SEED.read_text().replace("convexRHS P S K T ηl ηg μ c0 xstar", "convexRHS P S K T ηl ηg μ c0 xstar" + rhs_extra)
    (st,) = read_text(text, "dir.lean")
    lits = [lit for lit in literals(st) if lit.where == "rhs" and lit.description.startswith(f"the numeral {key_text} ")]
    assert lits, [lit.description for lit in literals(st)]
    prof = constant_profile(st, seed=0, budget=0, only=[lits[0].key])
    assert prof["violated"] is None
    (c,) = prof["constants"]
    return c


@pytest.mark.slow
def test_a_numerator_constant_is_at_least():
    c = _profile_of(" + 3 * ‖P.x0 - xstar‖ ^ 2", "3")
    # a larger coefficient only adds: any value >= 0 keeps every instance (the seed holds without it)
    assert c["direction"] == "at least" and c["not_needed"] and not c["violated_at_own_value"]


@pytest.mark.slow
def test_a_denominator_constant_is_not_claimed_violated():
    c = _profile_of(" + P.β / 2 * ‖P.x0 - xstar‖ ^ 2", "2")
    # rhs(c) = convexRHS + β D / c: safe for every c > 0 (and for c below a negative root)
    assert not c["violated_at_own_value"]
    assert c["direction"] == "at least" and Fraction(c["needed"]) == 0 and c["strict"]


@pytest.mark.slow
def test_a_subtracted_constant_is_at_most():
    c = _profile_of(" - 1 / 1000 * ‖P.x0 - xstar‖ ^ 2", "1 / 1000")
    assert c["direction"] == "at most" and not c["violated_at_own_value"]
    assert Fraction(c["needed"]) > Fraction(1, 1000)       # the own value lies inside the safe range
    assert "<=" in c["statement"] or "at most" in c["statement"] or "iff the constant is" in c["statement"]


@pytest.mark.slow
def test_a_real_exponent_constant_gets_an_exact_interval():
    c = _profile_of(" + (2 : ℝ) ^ ((1 : ℝ) / 2) * ‖P.x0 - xstar‖ ^ 2", "2")
    assert not c["violated_at_own_value"]
    assert c["direction"] in ("at least", "any", "between", "at most")


def test_the_numerals_left_out_are_listed_with_the_reason():
    text = SEED.read_text()
    (st,) = read_text(text, "s.lean")
    from pyfed.models.scaffold.constants import skipped_numerals
    skipped = skipped_numerals(st)
    # the step hypothesis 1 / (81 * P.β): its numerator 1 is left out, said to be the numerator
    assert any(s["numeral"] == "1" and "numerator of the reciprocal `1 / (81 * P.β)`" in s["why"] for s in skipped)
    # a 1 written as a coefficient is profiled
    (st,) = read_text(text.replace("convexRHS P S K T ηl ηg μ c0 xstar", "1 * convexRHS P S K T ηl ηg μ c0 xstar"),
                      "s.lean")
    assert any(lit.description.startswith("the numeral 1 ") for lit in literals(st))


def test_a_hypothesis_boundary_below_zero_has_its_admitted_side_found():
    """g(c) = (1/2)^c - 4 (a step 4 times too large under `h ≤ (S/N)^c / …` with S/N = 1/2) is
    decreasing with its root at c = -2: the hypothesis admits the instance for c ≤ -2 only, so any
    value above -2 (the statement's 2/3 among them) excludes it."""
    from pyfed.models.scaffold.constants import _solve_side

    c = sympy.Symbol("c")
    out = _solve_side(sympy.Rational(1, 2) ** c - 4, c, Fraction(2, 3), "hyp")
    assert out == {"threshold": Fraction(-2), "positive_above": False}
    out = _solve_side(4 - sympy.Rational(1, 2) ** c, c, Fraction(2, 3), "hyp")
    assert out == {"threshold": Fraction(-2), "positive_above": True}


def test_a_hypothesis_no_instance_relaxed_says_it_was_not_explored():
    """Boundaries all on the admitted side of the statement's own value (c ≤ b with b ≥ 15 for a
    hypothesis `… ≤ S / (c N)` at c = 15) test nothing relaxed; one boundary below 15 does."""
    from types import SimpleNamespace

    from pyfed.models.scaffold.profile import _explored_note

    lit = SimpleNamespace(key="k", value=Fraction(15))

    def rec(b, above=False):
        return SimpleNamespace(extra={"k": {"threshold": Fraction(b), "positive_above": above, "holds": True}})

    assert _explored_note(lit, [rec(27), rec(40)]).startswith("not explored")
    assert _explored_note(lit, [rec(27), rec(6)]) == "no violation with this hypothesis relaxed (explored down to 6)"
    assert _explored_note(lit, [rec(20, above=True)]) == \
        "no violation with this hypothesis relaxed (explored up to 20)"


@pytest.mark.slow
def test_step_constant_of_an_already_violated_statement_has_no_threshold(no_noise_profile):
    st, prof = no_noise_profile
    assert prof["violated"] is not None
    (c,) = prof["constants"]
    assert c["needed"] is None and c["needed_display"] is None and c["excludes_violation"] is False
    assert c["violated_at_own_value"] is True
    assert c["note"] == "no value excludes the violations drawn (they persist at smaller steps)"
    assert c["excludes_violation_reason"] == ("the pinning violation (boundary 81) is still violated, and admitted "
                                              "beyond that boundary, with eta_l halved 1 to 3 times")
    assert "iff the constant is" not in c["statement"]
    # the claim, by hand: the pinning instance with its step divided by 2^3 is still violated and
    # satisfies the statement's own step hypothesis with 81 replaced by 8 * 81
    inst = instance_from_json(c["pinned_by"]["instance"])
    inst.eta_l = Fraction(inst.eta_l) / 2 ** PERSIST_HALVINGS
    assert recheck(st, {"instance": instance_to_json(inst)}).status == "violated"
    h = inst.K * Fraction(inst.eta_l) * Fraction(inst.eta_g)
    assert h <= 1 / (8 * 81 * Fraction(inst.problem.beta))


@pytest.mark.slow
def test_real_step_threshold_is_kept(seed_profile):
    """The seed statement: gradient descent on x²/2 diverges for h > 2/beta, but the statement already
    fails on it below that step; the pinning instance's step is bisected down to the smallest violated
    step found, h = 1537/1024 (it holds at h = 3/2 = 1536/1024), so 81's threshold is 1024/1537 (and
    says it excludes the violations), not the 1/2 of the divergence boundary."""
    st, prof, _ = seed_profile                        # seed_convex.lean, seed 0, budget 1
    key = next(lit.key for lit in literals(st) if lit.key.startswith("step_size:81"))
    c = _row(prof, key)
    assert c["needed"] == "1024/1537" and c["excludes_violation"] is True and not c["violated_at_own_value"]
    assert "iff the constant is > 1024/1537; the statement has 81" in c["statement"]
    w = c["pinned_by"]
    assert w["instance"]["derived"]["h"] == "1537/1024" and Fraction(w["lhs"]) > Fraction(w["rhs"])


@pytest.mark.slow
def test_min_max_sqrt_profile_rows_are_short():
    text = (EXAMPLES / "seed_convex.lean").read_text(encoding="utf-8")
    rhs = ("max (min (convexRHS P S K T ηl ηg μ c0 xstar) (Real.sqrt 2 * P.σ ^ 2))\n"
           "        (Real.sqrt (initialPotential P S (effectiveStep K ηl ηg) c0 xstar) / (T : ℝ))")
    (st,) = read_text(text.replace("convexRHS P S K T ηl ηg μ c0 xstar", rhs, 1), "minmax.lean")
    key = next(lit.key for lit in literals(st) if lit.key.startswith("rhs:2@"))
    (c,) = constant_profile(st, seed=0, budget=0, only=[key])["constants"]
    assert c["note"].startswith("not determined on ") and "no closed-form threshold for the constant in ~" in c["note"]
    assert len(c["note"]) < 200 and c["note"].endswith(")")
