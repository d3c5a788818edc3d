"""Tests of pyfed.sampling: the uniform fixed-size subset law (seed 002) and exact probabilities."""

from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from scipy.stats import chisquare

from pyfed.errors import InputError
from pyfed.sampling import inclusion_probability, pair_inclusion_probability, sample_clients

N, S, DRAWS = 5, 2, 100_000


@pytest.fixture(scope="module")
def draws():
    return sample_clients(np.random.default_rng(20260101), N, S, DRAWS)


def _subset_codes(rows):
    subsets = list(combinations(range(N), S))
    code = {s: j for j, s in enumerate(subsets)}
    return np.array([code[tuple(r)] for r in rows.tolist()]), len(subsets)


def test_shape_dtype_sorted_distinct(draws):
    assert draws.shape == (DRAWS, S)
    assert np.issubdtype(draws.dtype, np.integer)
    assert draws.min() >= 0 and draws.max() < N
    assert np.all(np.diff(draws, axis=1) > 0)  # sorted ascending and distinct


def test_every_subset_equally_likely_chi_square(draws):
    codes, m = _subset_codes(draws)
    assert m == 10
    freq = np.bincount(codes, minlength=m)
    assert np.all(freq > 0)
    assert chisquare(freq).pvalue > 1e-3


def test_inclusion_frequency_is_S_over_N(draws):
    p = float(inclusion_probability(N, S))
    assert p == 0.4
    se = np.sqrt(p * (1 - p) / DRAWS)
    freq = np.bincount(draws.ravel(), minlength=N) / DRAWS
    assert np.all(np.abs(freq - p) < 4 * se)


def test_pair_inclusion_frequency(draws):
    p = float(pair_inclusion_probability(N, S))
    se = np.sqrt(p * (1 - p) / DRAWS)
    for i, j in [(0, 1), (1, 3), (2, 4)]:
        f = np.mean(np.any(draws == i, axis=1) & np.any(draws == j, axis=1))
        assert abs(f - p) < 4 * se


def test_consecutive_rows_independent(draws):
    # joint law of (row t, row t+1) over disjoint pairs is uniform on the 100 cells
    codes, m = _subset_codes(draws)
    joint = codes[0::2] * m + codes[1::2]
    freq = np.bincount(joint, minlength=m * m)
    assert chisquare(freq).pvalue > 1e-3


def test_exact_probabilities():
    assert inclusion_probability(5, 2) == Fraction(2, 5)
    assert pair_inclusion_probability(5, 2) == Fraction(1, 10)
    assert pair_inclusion_probability(7, 1) == 0
    assert pair_inclusion_probability(4, 4) == 1
    assert isinstance(inclusion_probability(3, 1), Fraction)
    # sum over pairs of the pair probability = E[C(|S|, 2)] = C(S, 2)
    assert pair_inclusion_probability(9, 4) * 36 == 6


def test_full_participation_and_tuple_size():
    rng = np.random.default_rng(0)
    full = sample_clients(rng, 4, 4, 3)
    assert np.array_equal(full, np.tile(np.arange(4), (3, 1)))
    out = sample_clients(rng, 6, 3, (2, 5))
    assert out.shape == (2, 5, 3)
    assert np.all(np.diff(out, axis=-1) > 0)


def test_seeded_reproducible():
    a = sample_clients(7, 10, 3, 50)
    b = sample_clients(np.random.default_rng(7), 10, 3, 50)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, sample_clients(8, 10, 3, 50))


@pytest.mark.parametrize("args,name", [((5, 6, 1), "S"), ((5, 0, 1), "S"), ((0, 1, 1), "N"),
                                       ((5, 2, -1), "size"), ((5, 2.5, 1), "S")])
def test_invalid(args, name):
    with pytest.raises(InputError) as e:
        sample_clients(np.random.default_rng(0), *args)
    assert e.value.argument == name


def test_invalid_probabilities():
    with pytest.raises(InputError) as e:
        inclusion_probability(3, 4)
    assert e.value.argument == "S"
    with pytest.raises(InputError) as e:
        pair_inclusion_probability(1, 1)
    assert e.value.argument == "N"
    with pytest.raises(InputError) as e:
        sample_clients("seed", 3, 1, 1)
    assert e.value.argument == "rng"
