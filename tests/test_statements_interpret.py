"""The interpreter evaluates pyfed's statements from their Lean text: hand-derived exact values of
each side on hand-built instances (a wrong formula, or a wrong reading of the Lean text, cannot
pass), and the model's procedures evaluated from their Lean bodies."""

from __future__ import annotations

import itertools
from fractions import Fraction as Fr

import pytest

from pyfed.checkers import families as fam
from pyfed.checkers.registry import statements_of
from pyfed.statements.interpret import FiniteSpace, Filtration, Fun, Interpreter, NotFinite, vec


def _st(name, mutate=None, k=0):
    return statements_of(name, mutate=mutate)[k]


def sides(name, env, mutate=None, k=0):
    st = _st(name, mutate, k)
    it = Interpreter(st.file_decls)
    return it.eval(st.lhs, env), it.eval(st.rhs, env)


def hyps(name, env, k=0):
    """The hypotheses decidable by evaluation (a quantifier over points gives None)."""
    st = _st(name, k=k)
    it = Interpreter(st.file_decls)
    out = {}
    for h in st.hypotheses:
        try:
            out[h.key] = it.holds(h.node, env)
        except NotFinite:
            out[h.key] = None
    return out


def test_relaxed_triangle_and_young_values():
    # a = 1, u = v = 1: ||2||^2 = 4 = 2*1 + 2*1 (equality at v = a u)
    assert sides("RelaxedTriangle", {"d": 1, "a": Fr(1), "u": vec([1]), "v": vec([1])}) == (4, 4)
    # a = 2, u = e1, v = e2: lhs 2, rhs 3 + 3/2
    assert sides("RelaxedTriangle", {"d": 2, "a": Fr(2), "u": vec([1, 0]), "v": vec([0, 1])}) == (2, Fr(9, 2))
    # Young: a = 2, u = v = 1: 2 <= 2 + 1/2; v = -a u: equality 2*2 = 2 + 2
    assert sides("YoungInner", {"d": 1, "a": Fr(2), "u": vec([1]), "v": vec([1])}) == (2, Fr(5, 2))
    assert sides("YoungInner", {"d": 1, "a": Fr(2), "u": vec([1]), "v": vec([-2])}) == (4, 4)
    # the mutation factor_3 at v = a u: 3*2 > 4
    assert sides("YoungInner", {"d": 1, "a": Fr(2), "u": vec([1]), "v": vec([2])}, "factor_3") == (6, 4)
    assert hyps("YoungInner", {"d": 1, "a": Fr(-1), "u": vec([1]), "v": vec([2])}) == {"ha": False}


def test_sum_squares_values():
    u = fam.fin_family([vec([1]), vec([2]), vec([3])])
    assert sides("SumSquares", {"d": 1, "m": 3, "u": u}) == (36, 42)
    assert sides("SumSquares", {"d": 1, "m": 3, "u": u}, "factor_m_minus_1") == (36, 28)
    assert sides("SumSquares", {"d": 1, "m": 3, "u": u}, "drop_factor_m") == (36, 14)


def _coin():
    """Ω = {0, 1} fair, F_0 trivial, F_1 = 2^Ω; Z_1 = ±1 (a fair coin), v_1 = 1."""
    space = FiniteSpace((Fr(1, 2), Fr(1, 2)))
    filt = Filtration(((0, 0), (0, 1)))
    Z = fam.process([fam.random_variable([vec([0]), vec([0])]), fam.random_variable([vec([1]), vec([-1])])])
    v = fam.process([fam.random_variable([Fr(0), Fr(0)]), fam.random_variable([Fr(1), Fr(1)])])
    return {"d": 1, "m": 1, "Ω": ("Ω", 2), "ν": space, "F": filt, "Z": Z, "v": v}


def test_martingale_values():
    env = _coin()
    # E|Z_1|^2 = 1 <= 2 |E Z_1|^2 + 2 E v_1 = 0 + 2
    assert sides("MartingaleDifferenceBound", env) == (1, 2)
    assert all(hyps("MartingaleDifferenceBound", env).values())
    assert sides("MartingaleDifferenceBound", env, "constants_2_to_1") == (1, 1)
    # v_1 = 1/2 below the conditional variance 1: the variance hypothesis fails
    low = dict(env, v=fam.process([fam.random_variable([Fr(0), Fr(0)]), fam.random_variable([Fr(1, 2)] * 2)]))
    assert hyps("MartingaleDifferenceBound", low)["hvar"] is False
    # v_1 not F_0-measurable (it varies while F_0 is trivial)
    bad = dict(env, v=fam.process([fam.random_variable([Fr(0), Fr(0)]), fam.random_variable([Fr(1), Fr(2)])]))
    assert hyps("MartingaleDifferenceBound", bad)["hv_adapted"] is False
    # Z_1 not F_1-measurable under a trivial F_1
    coarse = dict(env, F=Filtration(((0, 0), (0, 0))))
    assert hyps("MartingaleDifferenceBound", coarse)["hZ_adapted"] is False


def test_stich_values():
    # S_T for a = 4, T = 2: 16 + 25 = 41 >= 8/3
    assert sides("StichWeightSumLowerBound", {"a": Fr(4), "T": 2}) == (Fr(8, 3), 41)
    for a, T in [(Fr(9, 2), 7), (Fr(4), 1), (Fr(17, 3), 13)]:
        assert sides("StichWeightSumLowerBound", {"a": a, "T": T})[1] == sum((a + t) ** 2 for t in range(T))
    # T = 1, a = 8, mu = 2: eta_0 = 1/4, 1 - mu eta_0 = 1/2; u_0 = A = 3, e_0 = 2 = the largest the
    # recursion admits: lhs = A w_0 e_0 / S_1 = 6, rhs = mu a^3 u_0 / (4 S_1) = 12
    env = {"μ": Fr(2), "a": Fr(8), "T": 1, "A": Fr(3), "B": Fr(0), "C": Fr(0), "u": fam.sequence([3, 0]),
           "e": fam.sequence([2]), "__nat_bound__": 4}
    assert all(hyps("StichWeightedAveraging", env).values())
    assert sides("StichWeightedAveraging", env) == (6, 12)
    over = dict(env, e=fam.sequence([3]))       # e_0 above its cap: the recursion fails
    assert hyps("StichWeightedAveraging", over)["hrec"] is False


def test_averaging_values():
    # uniform: R = 1, d = (1, 0), q_0 = 1/(a eta): equality d_0/(a eta)
    env = {"R": 1, "a": Fr(2), "η": Fr(1, 4), "b": Fr(0), "c": Fr(0), "dist": fam.sequence([1, 0]),
           "q": fam.sequence([2])}
    assert sides("UniformAveraging", env) == (2, 2)
    # geometric: rho eta = 1/2, a = eta = 1, d_0 = 1: q_0 <= 1/2, w_0 = 2, rhs = 1/(1*1*2)
    env = {"R": 1, "a": Fr(1), "η": Fr(1), "b": Fr(0), "c": Fr(0), "ρ": Fr(1, 2), "dist": fam.sequence([1, 0]),
           "q": fam.sequence([Fr(1, 2)])}
    assert sides("GeometricAveraging", env) == (Fr(1, 2), Fr(1, 2))


def test_sampling_identity_values_and_brute_force():
    # N = 3, S = 2, v = (0, 0, 3): vbar = 1, E||vbar_S - 1||^2 = (1 + 1/4 + 1/4)/3 = 1/2
    env = {"d": 1, "N": 3, "S": 2, "v": fam.fin_family([vec([0]), vec([0]), vec([3])])}
    assert sides("SamplingVarianceIdentity", env, k=1) == (Fr(1, 2), Fr(1, 2))
    assert sides("SamplingVarianceIdentity", env, "N_instead_of_N_minus_1", k=1) == (Fr(1, 2), Fr(1, 3))
    assert sides("SamplingVarianceIdentity", env, k=0) == (vec([1]), vec([1]))
    # the bound is tight at N = 2, S = 1, v = ±1
    assert sides("SamplingVarianceBound", {"d": 1, "N": 2, "S": 1,
                                           "v": fam.fin_family([vec([1]), vec([-1])])}) == (1, 1)
    # an independent brute force: N = 4, S = 2 over the explicit pairs
    xs = [Fr(1), Fr(2), Fr(4), Fr(8)]
    brute = sum(((a + b) / 2 - Fr(15, 4)) ** 2 for a, b in itertools.combinations(xs, 2)) / 6
    env = {"d": 1, "N": 4, "S": 2, "v": fam.fin_family([vec([x]) for x in xs])}
    assert sides("SamplingVarianceIdentity", env, k=1)[0] == brute


def test_single_client_values():
    env = {"d": 1, "N": 1, "S": 1, "v": fam.fin_family([vec([2])]), "B": frozenset({0})}
    assert sides("SamplingSingleClient", env, k=1) == (vec([2]), vec([2]))
    assert sides("SamplingSingleClient", env, "mean_over_S_plus_1", k=1) == (vec([1]), vec([2]))


def _problem(A, b, beta, x0=(1,)):
    return fam.problem("SCAFFOLD", [fam.quadratic(A, b)], {"β": Fr(beta), "σ": Fr(0), "x0": vec(x0)})


def test_gradient_growth_and_nonexpansive_values():
    P = _problem([[2]], [0], 2)
    env = {"d": 1, "N": 1, "P": P, "xstar": vec([0]), "x": vec([1])}
    assert sides("GradientGrowth", env) == (4, 4)
    assert sides("GradientGrowth", env, "beta_halved") == (4, 2)
    # Huber (exact): grad clip(3) = 1 vs 0 -> lhs 1; f(3) - f(0) = 3 - 1/2 -> rhs 5
    hub = fam.problem("SCAFFOLD", [fam.huber([[1]], [0], 1)], {"β": Fr(1), "σ": Fr(0), "x0": vec([0])})
    assert sides("GradientGrowth", {"d": 1, "N": 1, "P": hub, "xstar": vec([0]), "x": vec([3])}) == (1, 5)
    h = fam.quadratic([[2]], [0])
    env = {"d": 1, "h": h, "β": Fr(2), "η": Fr(1), "x": vec([1]), "y": vec([0])}
    assert sides("GradientStepNonexpansive", env) == (1, 1)
    assert hyps("GradientStepNonexpansive", dict(env, η=Fr(3, 2)))["hη"] is False


def test_perturbed_strong_convexity_tight_value_by_hand():
    # f = x^2 (A = 2), mu = beta = 2, x = 1, y = 0, z = 2:
    # f(2) - f(0) + (2/4)(0 - 2)^2 - 2 (2 - 1)^2 = 4 + 2 - 2 = 4 <= <f'(1), 2 - 0> = 4
    P = _problem([[2]], [0], 2)
    env = {"d": 1, "N": 1, "P": P, "μ": Fr(2), "i": 0, "x": vec([1]), "y": vec([0]), "z": vec([2])}
    assert sides("PerturbedStrongConvexity", env) == (4, 4)
    assert sides("PerturbedStrongConvexity", env, "mu_quarter_to_mu") == (10, 4)


def test_option_two_control_by_hand_from_the_lean_bodies():
    # d = 1, K = 2, ηl = 1/2, x = 1, c = 0, ci = 0, oracle k y = y (f = y^2/2): y1 = 1/2, y2 = 1/4
    # (K ηl)^-1 (x - y_K) = 3/4 = (1/2)(1 + 1/2)
    oracle = Fun(lambda k: Fun(lambda y: y))
    env = {"d": 1, "K": 2, "ηl": Fr(1, 2), "x": vec([1]), "c": vec([0]), "ci": vec([0]), "oracle": oracle}
    assert sides("OptionTwoControlIsAverage", env) == (vec([Fr(3, 4)]), vec([Fr(3, 4)]))
    assert sides("OptionTwoControlIsAverage", env, "K_plus_1") == (vec([Fr(3, 4)]), vec([Fr(1, 2)]))


def test_server_control_is_the_mean_after_rounds_of_the_lean_procedure():
    st = _st("ServerControlIsMean")
    it = Interpreter(st.file_decls)
    orc = fam.affine_oracle([[1]], [1], [[Fr(1, 4)], [Fr(-1, 2)]])
    per_round = fam.client_oracles([orc, orc, orc])
    oracles = Fun(lambda r: per_round)
    samples = fam.samples([[0, 2], [1, 2], [0, 1]])
    for opt in ("SCAFFOLD.ControlOption.optionI", "SCAFFOLD.ControlOption.optionII"):
        env = {"d": 1, "N": 3, "opt": opt, "S": 2, "K": 2, "ηl": Fr(1, 4), "ηg": Fr(1), "oracle": oracles,
               "samples": samples, "x0": vec([2]), "c0": fam.fin_family([vec([0]), vec([1]), vec([Fr(1, 3)])]),
               "r": 3}
        lhs, rhs = it.eval(st.lhs, env), it.eval(st.rhs, env)
        assert lhs == rhs and lhs != vec([0])


def test_a_quantifier_over_points_is_not_enumerated():
    st = _st("GradientStepNonexpansive")
    it = Interpreter(st.file_decls)
    env = {"d": 1, "h": fam.quadratic([[2]], [0]), "β": Fr(2), "η": Fr(1), "x": vec([1]), "y": vec([0])}
    hconv = next(h for h in st.hypotheses if h.key == "hconv")
    with pytest.raises(NotFinite):
        it.holds(hconv.node, env)


def test_the_numeral_0_among_points_is_the_zero_point():
    from pyfed import read_text
    text = ("import Pyfed\n\nnamespace SCAFFOLD.X\n\n"
            "theorem Z {d : ℕ} (u : Space d) : ‖u + 0‖ ^ 2 = ‖0 - u‖ ^ 2 := by sorry\n\nend SCAFFOLD.X\n")
    (st,) = read_text(text, "z.lean")
    v = st.model.search(st, seed=0, budget=2).verdict
    assert v.status == "inconclusive" and v.details["decided"] > 0 and v.details["violated"] == 0


def test_the_numeral_0_where_a_point_is_expected_is_lean_s_zero_point():
    # Lean's `0 : Space d` as an argument: FedAvg's local path is `localPath ηl x 0 (oracle i) K`.
    # d = 1, S = N = 2, K = 1, ηl = 1/2, ηg = 1, g_0(y) = y - 1, g_1(y) = y + 1, x = 2:
    # y_0 = 2 - (1/2)(1) = 3/2, y_1 = 2 - (1/2)(3) = 1/2, x+ = 2 + (1/2)((3/2 - 2) + (1/2 - 2)) = 1
    from pyfed import read_text
    text = ("import Pyfed\n\nopen SCAFFOLD (Space LocalOracle)\n\ntheorem R {d N : ℕ} (S K : ℕ) (ηl ηg : ℝ) "
            "(oracle : Fin N → LocalOracle d) (sample : Finset (Fin N)) (x : Space d) (i : Fin N) :\n"
            "    FedAvgProcedure.fedAvgRound FedAvgProcedure.FedAvgMode.uniform S K ηl ηg oracle sample x = "
            "SCAFFOLD.localPath ηl x 0 (oracle i) K := by sorry\n")
    (st,) = read_text(text, "zero.lean")
    it = Interpreter(st.file_decls)
    env = {"d": 1, "N": 2, "S": 2, "K": 1, "ηl": Fr(1, 2), "ηg": Fr(1), "x": vec([2]), "sample": frozenset({0, 1}), "i": 0,
           "oracle": fam.client_oracles([fam.affine_oracle([[1]], [1], []), fam.affine_oracle([[1]], [-1], [])])}
    assert it.eval(st.lhs, env) == vec([1]) and it.eval(st.rhs, env) == vec([Fr(3, 2)])


def _steps(it, node, env) -> tuple:
    """(value, term evaluations): the evaluation steps the interpreter took, counted exactly (no clock)."""
    from pyfed.evaluation.evaluator import Evaluator

    calls = [0]
    original = Evaluator.eval

    def counting(self, n, e):
        calls[0] += 1
        return original(self, n, e)

    Evaluator.eval = counting
    try:
        out = it.eval(node, env)
    finally:
        Evaluator.eval = original
    return out, calls[0]


def _linear_and_under_a_second(steps_at: dict) -> None:
    """Steps at r and 2r grow linearly (twice the index costs at most 2.2 times the steps), and the
    steps at the largest index cost under a second at the calibrated seconds per step."""
    from pyfed.resources import SECONDS_PER_STEP
    (r1, s1), (r2, s2) = sorted(steps_at.items())
    assert r2 == 2 * r1 and s2 <= 2.2 * s1, steps_at
    assert s2 * SECONDS_PER_STEP < 1.0, steps_at


def test_the_scaffold_recursion_costs_linear_time_in_the_round_index():
    # every round reads the previous state's x, c and ci several times (s.ci i, newControl … s i):
    # evaluated by name this is exponential in r; by value each state is computed once. With the
    # affine oracle 2y - 1 on every client, option II, S = N = 1, K = 1, ηl = ηg = 1/4, x_{r+1} =
    # x_r - (1/4)(2 x_r - 1) (the controls cancel for one client): x_r - 1/2 = (1/2)^r (x0 - 1/2)
    st = _st("ServerControlIsMean")
    it = Interpreter(st.file_decls)
    orc = fam.affine_oracle([[2]], [1], [])
    oracles = Fun(lambda r: fam.client_oracles([orc]))
    env = {"d": 1, "N": 1, "opt": "SCAFFOLD.ControlOption.optionII", "S": 1, "K": 1, "ηl": Fr(1, 4),
           "ηg": Fr(1), "oracle": oracles, "samples": fam.samples([[0]]), "x0": vec([Fr(3, 2)]),
           "c0": fam.fin_family([vec([0])]), "r": 60}
    steps = {}
    for r in (30, 60):
        lhs, n_l = _steps(Interpreter(st.file_decls), st.lhs, dict(env, r=r))
        rhs, n_r = _steps(Interpreter(st.file_decls), st.rhs, dict(env, r=r))
        assert lhs == rhs
        steps[r] = n_l + n_r
    _linear_and_under_a_second(steps)
    del it
    # the server model after 60 rounds, read through the same recursion (a field of the state)
    from pyfed.lean.terms import Node  # noqa: F401 (the proj node below is built by the reader)
    from pyfed import read_text
    text = ("import Pyfed\n\nnamespace SCAFFOLD\n\ntheorem ModelAfterRounds {d N : ℕ} (opt : ControlOption) "
            "(S K : ℕ) (ηl ηg : ℝ) (oracle : ℕ → Fin N → LocalOracle d) (samples : ℕ → Finset (Fin N)) "
            "(x0 : Space d) (c0 : Fin N → Space d) (r : ℕ) :\n"
            "    (scaffold opt S K ηl ηg oracle samples x0 c0 r).x = (scaffold opt S K ηl ηg oracle samples x0 c0 r).x "
            ":= by sorry\n\nend SCAFFOLD\n")
    (st2,) = read_text(text, "rounds.lean")
    x30, n30 = _steps(Interpreter(st2.file_decls), st2.lhs, dict(env, r=30))
    x60, n60 = _steps(Interpreter(st2.file_decls), st2.lhs, env)
    assert x30 == vec([Fr(1, 2) + Fr(1, 2 ** 30)]) and x60 == vec([Fr(1, 2) + Fr(1, 2 ** 60)])
    _linear_and_under_a_second({30: n30, 60: n60})


def test_the_local_sgd_recursion_costs_linear_time_in_the_step_index():
    # one worker, grads of f(x) = x^2/2 (gradient x), constant step 1/2, synchronising every step:
    # x_t = (1/2)^t x0; read at t = 60 through `localSGD … t k`
    from pyfed import read_text
    text = ("import Pyfed\n\nnamespace SCAFFOLD\n\ntheorem LocalSGDAfterSteps {d n workers b : ℕ} "
            "(grads : Fin n → Space d → Space d) (η : ℕ → ℝ) (sync : Finset ℕ) "
            "(draws : ℕ → Fin workers → Fin b → Fin n) (x0 : Space d) (t : ℕ) (k : Fin workers) :\n"
            "    localSGD grads η sync draws x0 t k = localSGD grads η sync draws x0 t k := by sorry\n\n"
            "end SCAFFOLD\n")
    (st,) = read_text(text, "localsgd.lean")
    it = Interpreter(st.file_decls)
    grads = Fun(lambda j: Fun(lambda x: x), n=1)
    draws = Fun(lambda t: Fun(lambda k: Fun(lambda q: 0, n=1), n=1))
    env = {"d": 1, "n": 1, "workers": 1, "b": 1, "grads": grads, "η": Fun(lambda t: Fr(1, 2)),
           "sync": frozenset(range(1, 61)), "draws": draws, "x0": vec([Fr(3)]), "t": 60, "k": 0}
    x30, n30 = _steps(Interpreter(st.file_decls), st.lhs, dict(env, t=30))
    x60, n60 = _steps(it, st.lhs, env)
    assert x30 == vec([Fr(3, 2 ** 30)]) and x60 == vec([Fr(3, 2 ** 60)])
    _linear_and_under_a_second({30: n30, 60: n60})
