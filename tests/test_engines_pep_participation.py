"""The branching PEP of SCAFFOLD / FedAvg over subset sequences (pyfed.engines.pep.participation):
S = N, σ = 0 is exactly today's problem; on a concrete rational quadratic instance its metric and
initial condition evaluate to the exact engine's E[weightedGap] and V₀; sizes beyond the limit
are refused before anything is built."""

from fractions import Fraction

import numpy as np
import pytest

from pyfed.engines.pep.exact_pep import Vec, pep_scaffold_exact
from pyfed.engines.pep.participation import MAX_GRAM_LEAVES, pep_scaffold_wide_exact, tree_size
from pyfed.errors import InputError
from pyfed.theory import effective_step, weight_sum, weights

F = Fraction
GAP = {0: F(1, 2), 1: F(1, 2)}


@pytest.mark.parametrize("controls", [True, False])
def test_full_participation_without_noise_is_todays_problem(controls):
    old = pep_scaffold_exact(2, 2, F(1, 162), 1, 1, 0, GAP, {1: F(1, 3)}, F(1, 729), controls=controls)
    new = pep_scaffold_wide_exact(2, 2, 2, F(1, 162), 1, 1, 0, GAP, {1: F(1, 3)}, F(1, 729), controls=controls)
    assert new.leaves == old.leaves and new.fvalues == old.fvalues
    assert new.metric == old.metric and new.init == old.init
    assert new.constraints == old.constraints


def test_tree_sizes_count_the_subset_sequences():
    # N = 2, S = 1, K = 2, two branching rounds: 1 + 2 + 4 nodes, 4 sequences
    size = tree_size(2, 1, 2, 2, noisy=False)
    assert size == {"sequences": 4, "nodes": 7, "leaves": 2 + 1 + 2 + 3 * 4 + 4 * 2}
    pep = pep_scaffold_wide_exact(2, 1, 2, F(1, 162), 1, 1, 0, {0: 1, 1: 1, 2: 1}, {}, 1)
    assert len(pep.leaves) == size["leaves"]
    # every round-2 iterate is a distinct point of f_0: x*, 3 nodes x 2 path points, 4 leaves
    assert len(pep.functions[0].points) == 1 + 3 * 2 + 4


def test_too_large_a_tree_is_refused_before_building():
    with pytest.raises(InputError, match="T: .*sequences.*above the limit"):
        pep_scaffold_wide_exact(4, 2, 2, F(1, 100), 1, 1, 0, {r: 1 for r in range(4)}, {}, 1)
    assert tree_size(4, 2, 2, 3, noisy=False)["leaves"] > MAX_GRAM_LEAVES
    with pytest.raises(InputError, match="S"):
        pep_scaffold_wide_exact(2, 3, 1, F(1, 100), 1, 1, 0, GAP, {}, 1)


def _evaluate(pep, A, b, xstar, x0, c0):
    """(metric, init) of the PEP on the quadratic clients f_i(x) = x·A_i x/2 - b_i·x, exactly: each
    leaf's vector in order (x⋆, the gradients, x0, the controls given; a gradient leaf is ∇f_i at
    its registered point), the Gram matrix and function values, then the forms."""
    vec = {}
    dim = len(x0)

    def val(v: Vec):
        out = [F(0)] * dim
        for a, c in v.coef.items():
            out = [o + c * t for o, t in zip(out, vec[a])]
        return out

    grad_of = {}
    for i, f in enumerate(pep.functions):
        for _key, x, g, _j in f.points:
            if len(g.coef) == 1 and list(g.coef.values()) == [1]:
                grad_of.setdefault(next(iter(g.coef)), (i, x))
    for a, name in enumerate(pep.leaves):
        if name == "x*":
            vec[a] = xstar
        elif name == "x0":
            vec[a] = x0
        elif name.startswith("c") and name[1:].isdigit():
            vec[a] = c0[int(name[1:])]
        else:
            i, x = grad_of[a]
            xv = val(x)
            vec[a] = [sum(A[i][r][s] * xv[s] for s in range(dim)) - b[i][r] for r in range(dim)]
    fvals = {}
    for i, f in enumerate(pep.functions):
        for _key, x, _g, j in f.points:
            xv = val(x)
            fvals[j] = sum(xv[r] * A[i][r][s] * xv[s] for r in range(dim) for s in range(dim)) / 2 - \
                sum(b[i][r] * xv[r] for r in range(dim))

    def form(fm):
        tot = fm.const
        for (a, c), v in fm.gram.items():
            tot += v * sum(p * q for p, q in zip(vec[a], vec[c]))
        for j, v in fm.fval.items():
            tot += v * fvals[j]
        return tot
    return form(pep.metric), form(pep.init)


@pytest.mark.parametrize("controls", [True, False])
def test_metric_on_a_quadratic_instance_is_the_exact_expectation(controls):
    """N = 2, S = 1, K = 2, T = 3 (4 subset sequences), heterogeneous 2-d clients, nonzero
    controls: the PEP's metric and init on the instance equal the exact engine's E[weightedGap]
    and V₀ (SCAFFOLD's seed-000 Run, or FedAvg with the controls frozen at 0)."""
    from pyfed.models.scaffold.model import statement_of
    from pyfed.models.scaffold.exact import sides_exact
    from pyfed.models.scaffold.instance import RunInstance
    from pyfed.problems.quadratic import QuadraticProblem
    from pyfed.theory import initial_control_error, squared_distance

    A = [[[F(1, 2), F(1, 10)], [F(1, 10), F(1, 4)]], [[F(1, 5), F(0)], [F(0), F(3, 4)]]]
    b = [[F(1), F(-1, 2)], [F(-1, 3), F(1, 4)]]
    qp = QuadraticProblem(np.array(A, dtype=object), np.array(b, dtype=object), name="q", beta=1)
    xs = list(qp.x_star_exact)
    x0 = [F(2), F(-1)]
    c0 = [[F(1, 3), F(0)], [F(-1, 2), F(1, 5)]] if controls else [[F(0), F(0)], [F(0), F(0)]]
    N, S, K, T, eta_l, eta_g = 2, 1, 2, 3, F(1, 8), F(3, 2)
    h = effective_step(K, eta_l, eta_g)
    w, W = weights(T, 0, h), weight_sum(T, 0, h)
    pot = 9 * N * h**2 / S
    pep = pep_scaffold_wide_exact(N, S, K, eta_l, eta_g, 1, 0, {r: w[r] / W for r in range(T)}, {}, pot,
                                  controls=controls)
    metric, init = _evaluate(pep, A, b, xs, x0, c0)
    C0 = initial_control_error(np.array(c0, dtype=object), qp.grads_exact(qp.x_star_exact))
    assert init == squared_distance(np.array(x0, dtype=object), qp.x_star_exact) + pot * C0
    if controls:
        inst = RunInstance(name="q", problem=qp, sigma=F(0), S=S, K=K, T=T, eta_l=eta_l, eta_g=eta_g,
                           x0=np.array(x0, dtype=object), c0=np.array(c0, dtype=object), mu=F(0))
        lhs, _rhs, _ = sides_exact(statement_of("ConvexFiniteRoundConvergence"), inst)
        assert metric == lhs
    else:   # FedAvg by hand: the average over the 4 sequences of the weighted gaps
        def run(x, B):
            y = list(x)
            for _ in range(K):
                g = [sum(A[B][r][s] * y[s] for s in range(2)) - b[B][r] for r in range(2)]
                y = [yy - eta_l * gg for yy, gg in zip(y, g)]
            return [xx + eta_g * (yy - xx) for xx, yy in zip(x, y)]

        def fbar(x):
            return sum(sum(x[r] * A[i][r][s] * x[s] for r in range(2) for s in range(2)) / 2
                       - sum(b[i][r] * x[r] for r in range(2)) for i in range(2)) / 2
        fs = fbar(xs)
        total = F(0)
        for seq in [(0, 0), (0, 1), (1, 0), (1, 1)]:
            x1 = run(x0, seq[0])
            x2 = run(x1, seq[1])
            total += sum(w[r] / W * (fbar(x) - fs) for r, x in enumerate((x0, x1, x2))) / 4
        assert metric == total
