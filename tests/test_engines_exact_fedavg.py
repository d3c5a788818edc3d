"""Exact FedAvg shadow statistics (pyfed.engines.exact.fedavg) against brute force and sympy, and
the exact minimisation of a quadratic form in the round start (pyfed.engines.exact.fedavg_margin).
The decisions of statements are tested in tests/test_engines_statement_fedavg_engines.py."""

import itertools
from fractions import Fraction as Fr

import numpy as np
import pytest
import sympy

from pyfed.engines.exact.fedavg import fedavg_round_forms, fedavg_shadow_moments, form_value
from pyfed.engines.exact.fedavg_margin import fedavg_setup, psd_margin
from pyfed.errors import InputError
from pyfed.problems.quadratic import QuadraticProblem


def _quad(A, b):
    M = len(b)
    return QuadraticProblem(np.array([A] * M, dtype=object) if not isinstance(A[0][0], list) else
                            np.array(A, dtype=object), np.array(b, dtype=object))


def _run_exact(P, tau, T, eta, x0, noises=None):
    """Brute-force FedAvg in Fractions; ``noises[t][k][i]`` is client i's noise vector (or None).
    Returns gap[t][k], dist[t][k], drift[t][k][i]."""
    M, d = P.N, P.d
    A, b, xs = P.A_exact, P.b_exact, P.x_star_exact
    gap, dist, drift = [], [], []
    y = list(x0)
    for t in range(T):
        xi = [list(y) for _ in range(M)]
        g_t, d_t, r_t = [], [], []
        for k in range(tau + 1):
            xb = [sum(xi[i][c] for i in range(M)) / M for c in range(d)]
            g_t.append(P.value_exact(np.array(xb, dtype=object)) - P.f_star)
            d_t.append(sum((xb[c] - xs[c]) ** 2 for c in range(d)))
            r_t.append([sum((xi[i][c] - xb[c]) ** 2 for c in range(d)) for i in range(M)])
            if k < tau:
                new = []
                for i in range(M):
                    z = noises[t][k][i] if noises else [0] * d
                    new.append([xi[i][r] - eta * (sum(A[i][r][c] * xi[i][c] for c in range(d)) - b[i][r] + z[r])
                                for r in range(d)])
                xi = new
        gap.append(g_t)
        dist.append(d_t)
        drift.append(r_t)
        y = xb
    return gap, dist, drift


def test_sigma_zero_equals_brute_force_at_every_local_step():
    A = [[Fr(2), Fr(1, 2)], [Fr(1, 2), Fr(1)]]
    P = _quad(A, [[Fr(1), Fr(0)], [Fr(-1), Fr(2)], [Fr(1, 2), Fr(1, 3)]])
    tau, T, eta, x0 = 3, 3, Fr(1, 10), [Fr(1), Fr(-2)]
    m = fedavg_shadow_moments(P, 0, tau=tau, T=T, eta=eta, x0=x0)
    gap, dist, drift = _run_exact(P, tau, T, eta, x0)
    assert m.exact and m.gap == gap and m.shadow_dist_sq == dist and m.drift == drift
    assert m.round_loss == [sum(g[1:], Fr(0)) / tau for g in gap]
    assert m.avg_loss == sum(m.round_loss, Fr(0)) / T
    # different Hessians are fine for the moments (only the statements need a finite zeta)
    P2 = QuadraticProblem(np.array([[[Fr(2)]], [[Fr(1)]]], dtype=object), np.array([[Fr(1)], [Fr(-1)]], dtype=object))
    m2 = fedavg_shadow_moments(P2, 0, tau=2, T=2, eta=Fr(1, 5), x0=[Fr(3)])
    g2, d2, r2 = _run_exact(P2, 2, 2, Fr(1, 5), [Fr(3)])
    assert m2.gap == g2 and m2.drift == r2


def test_noisy_moments_equal_enumeration_of_rademacher_noise():
    """Quadratic FedAvg is affine in the noise, so its second moments depend on the noise law only
    through the covariance: +-s Rademacher noise (covariance diag(s^2)) enumerated exactly must
    give the engine's values for the same covariance."""
    A = [[Fr(1), Fr(0)], [Fr(0), Fr(1, 2)]]
    P = _quad(A, [[Fr(1), Fr(0)], [Fr(0), Fr(-1)]])
    s = [Fr(1, 2), Fr(1)]
    cov = [[s[0] ** 2, 0], [0, s[1] ** 2]]
    tau, T, eta, x0 = 2, 1, Fr(1, 4), [Fr(1), Fr(1)]
    m = fedavg_shadow_moments(P, tau=tau, T=T, eta=eta, x0=x0, noise_cov=cov)
    M, d = 2, 2
    n = tau * M * d
    acc_g = acc_d = acc_r = None
    for signs in itertools.product((-1, 1), repeat=n):
        it = iter(signs)
        noises = [[[[next(it) * s[c] for c in range(d)] for _ in range(M)] for _ in range(tau)]]
        g, dd, r = _run_exact(P, tau, T, eta, x0, noises)
        if acc_g is None:
            acc_g, acc_d, acc_r = g, dd, r
        else:
            acc_g = [[a + b for a, b in zip(x, y)] for x, y in zip(acc_g, g)]
            acc_d = [[a + b for a, b in zip(x, y)] for x, y in zip(acc_d, dd)]
            acc_r = [[[a + b for a, b in zip(u, v)] for u, v in zip(x, y)] for x, y in zip(acc_r, r)]
    N = 2 ** n
    assert m.gap == [[v / N for v in row] for row in acc_g]
    assert m.shadow_dist_sq == [[v / N for v in row] for row in acc_d]
    assert m.drift == [[[v / N for v in u] for u in row] for row in acc_r]


@pytest.mark.slow
def test_symbolic_expectation_d1_tau2_T2():
    """sigma > 0, d = 1, tau = 2, T = 2, M = 2: every statistic as a polynomial in the noises,
    expectation taken symbolically (E xi = 0, E xi^2 = sigma^2, independent), then evaluated at
    rational parameters: equal to the engine exactly."""
    a, b1, b2, eta, s, x0 = sympy.symbols("a b1 b2 eta sigma x0")
    xi = {(t, k, i): sympy.Symbol(f"xi_{t}{k}{i}") for t in range(2) for k in range(2) for i in range(2)}
    bs = [b1, b2]

    def expect(expr):
        poly = sympy.Poly(sympy.expand(expr), *xi.values())
        total = 0
        for monom, coeff in poly.terms():
            factor = 1
            for p in monom:
                factor *= {0: 1, 1: 0, 2: s**2}[p]
            total += coeff * factor
        return total

    xstar = (b1 + b2) / (2 * a)
    fstar = a * xstar**2 / 2 - (b1 + b2) / 2 * xstar
    y = x0
    sym_gap, sym_drift = [], []
    for t in range(2):
        xs_ = [y, y]
        g_t, r_t = [], []
        for k in range(3):
            xb = (xs_[0] + xs_[1]) / 2
            g_t.append(expect(a * xb**2 / 2 - (b1 + b2) / 2 * xb - fstar))
            r_t.append(expect((xs_[0] - xb) ** 2))
            if k < 2:
                xs_ = [xs_[i] - eta * (a * xs_[i] - bs[i] + xi[(t, k, i)]) for i in range(2)]
        sym_gap.append(g_t)
        sym_drift.append(r_t)
        y = xb
    for vals in ({a: 1, b1: 1, b2: -1, eta: sympy.Rational(1, 4), s: sympy.Rational(1, 2), x0: 2},
                 {a: sympy.Rational(3, 2), b1: sympy.Rational(1, 3), b2: 2, eta: sympy.Rational(1, 7),
                  s: 3, x0: sympy.Rational(-5, 4)}):
        P = QuadraticProblem(np.array([[[Fr(str(vals[a]))]]] * 2, dtype=object),
                             np.array([[Fr(str(vals[b1]))], [Fr(str(vals[b2]))]], dtype=object))
        m = fedavg_shadow_moments(P, Fr(str(vals[s])), tau=2, T=2, eta=Fr(str(vals[eta])), x0=[Fr(str(vals[x0]))])
        for t in range(2):
            for k in range(3):
                assert Fr(str(sympy.nsimplify(sym_gap[t][k].subs(vals)))) == m.gap[t][k]
                assert Fr(str(sympy.nsimplify(sym_drift[t][k].subs(vals)))) == m.drift[t][k][0]


def test_round_forms_are_the_conditional_expectations():
    """The forms evaluated at a start y equal the one-round moments started at y."""
    P = _quad([[Fr(1), Fr(1, 4)], [Fr(1, 4), Fr(1, 2)]], [[Fr(1), Fr(2)], [Fr(-1), Fr(0)]])
    forms = fedavg_round_forms(P, Fr(1, 3), tau=3, eta=Fr(1, 8))
    for y in ([Fr(0), Fr(0)], [Fr(3, 2), Fr(-1)]):
        m = fedavg_shadow_moments(P, Fr(1, 3), tau=3, T=1, eta=Fr(1, 8), x0=y)
        F = forms.field
        yy = [F.scalar(v) for v in y]
        for k in range(4):
            assert F.public(form_value(F, forms.gap[k], yy)) == m.gap[0][k]
            assert F.public(form_value(F, forms.shadow_dist_sq[k], yy)) == m.shadow_dist_sq[0][k]
            assert [F.public(form_value(F, W, yy)) for W in forms.drift[k]] == m.drift[0][k]


def test_psd_margin_minimum_and_witnesses():
    # (y - 1)^2 + 2 = y^2 - 2y + 3: minimum 2 at y = 1
    kind, mval, y = psd_margin([[Fr(1), Fr(-1)], [Fr(-1), Fr(3)]])
    assert kind == "bounded" and mval == 2 and y == [Fr(1)]
    # -y^2 + 5: unbounded below; the witness is negative
    kind, _, y = psd_margin([[Fr(-1), Fr(0)], [Fr(0), Fr(5)]])
    assert kind == "unbounded" and -y[0] ** 2 + 5 < 0
    # linear in y (zero pivot, nonzero homogeneous entry): unbounded
    G = [[Fr(0), Fr(0), Fr(0)], [Fr(0), Fr(1), Fr(2)], [Fr(0), Fr(2), Fr(1)]]
    kind, mval, y = psd_margin(G)
    assert kind == "bounded" and mval == -3  # (y2 + 2)^2 - 3, y1 free
    G = [[Fr(0), Fr(0), Fr(1)], [Fr(0), Fr(1), Fr(0)], [Fr(1), Fr(0), Fr(1)]]
    kind, _, y = psd_margin(G)
    assert kind == "unbounded" and 2 * y[0] + y[1] ** 2 + 1 < 0


def test_different_hessians_are_rejected_with_the_reason():
    P = QuadraticProblem(np.array([[[Fr(2)]], [[Fr(1)]]], dtype=object), np.array([[Fr(1)], [Fr(-1)]], dtype=object))
    with pytest.raises(InputError) as e:
        fedavg_setup(P, 0, tau=1, T=1, eta=Fr(1, 8), x0=[0])
    assert e.value.argument == "A" and "no finite" in e.value.reason
