"""Tests for pyfed.data: bundled datasets, standardisation and federated splits."""

import os
import subprocess
import sys

import numpy as np
import pytest

from pyfed.data import cache_dir, load_dataset, split, standardize
from pyfed.errors import InputError


@pytest.fixture(scope="module")
def digits():
    return load_dataset("digits")


def _tv_to_global(y, parts, C):
    g = np.bincount(y, minlength=C) / y.size
    return np.array([0.5 * np.abs(np.bincount(y[p], minlength=C) / p.size - g).sum() for p in parts])


def _assert_partition(parts, n, N):
    assert len(parts) == N
    allidx = np.concatenate(parts)
    assert allidx.size == n
    assert np.array_equal(np.sort(allidx), np.arange(n))  # disjoint and covering
    for p in parts:
        assert p.dtype == np.int64 and p.size >= 1
        assert np.all(np.diff(p) > 0)  # sorted ascending


# -- datasets --------------------------------------------------------------------------
@pytest.mark.parametrize("name,shape,classes", [("breast_cancer", (569, 30), 2), ("wine", (178, 13), 3),
                                                ("digits", (1797, 64), 10)])
def test_load_dataset_shapes_and_standardisation(name, shape, classes):
    X, y = load_dataset(name)
    assert X.shape == shape and X.dtype == np.float64
    assert y.shape == (shape[0],) and y.dtype == np.int64
    assert set(np.unique(y).tolist()) == set(range(classes))
    assert np.allclose(X.mean(axis=0), 0.0, atol=1e-12)
    std = X.std(axis=0)
    # unit variance, except constant columns which are exactly zero
    for k in range(X.shape[1]):
        if std[k] == 0:
            assert np.all(X[:, k] == 0)
        else:
            assert abs(std[k] - 1) < 1e-12


def test_digits_constant_columns_become_zero(digits):
    X, _ = digits
    zero_cols = np.flatnonzero(np.all(X == 0, axis=0))
    assert zero_cols.size == 3  # the blank border pixels of the 8x8 digits (columns 0, 32, 39)
    assert zero_cols.tolist() == [0, 32, 39]


def test_binary_mappings_and_intercept():
    _, y = load_dataset("digits")
    _, yp = load_dataset("digits", binary="parity")
    assert np.array_equal(yp, y % 2)
    _, y3 = load_dataset("wine", binary=2)
    _, yw = load_dataset("wine")
    assert np.array_equal(y3, (yw == 2).astype(int))
    _, yd = load_dataset("wine", binary="default")
    assert np.array_equal(yd, (yw == 0).astype(int))
    X1, _ = load_dataset("breast_cancer", intercept=True)
    assert X1.shape == (569, 31) and np.all(X1[:, -1] == 1.0)
    assert np.allclose(X1[:, :-1].mean(axis=0), 0.0, atol=1e-12)


def test_load_dataset_errors():
    with pytest.raises(InputError) as e:
        load_dataset("mnist")
    assert e.value.argument == "name"
    with pytest.raises(InputError) as e:
        load_dataset("wine", binary=3)
    assert e.value.argument == "binary"
    with pytest.raises(InputError) as e:
        load_dataset("wine", binary="odd")
    assert e.value.argument == "binary"


def test_standardize_hand_values_and_nan():
    Z = standardize([[1.0, 5.0], [3.0, 5.0]])
    assert np.array_equal(Z, np.array([[-1.0, 0.0], [1.0, 0.0]]))
    with pytest.raises(InputError) as e:
        standardize([[1.0, np.nan], [2.0, 3.0]])
    assert e.value.argument == "X"
    with pytest.raises(InputError) as e:
        standardize([[1.0, np.inf]])
    assert e.value.argument == "X"


# -- the dataset cache -------------------------------------------------------------------
def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("PYFED_CACHE_DIR", str(tmp_path / "own"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "own"
    monkeypatch.setenv("PYFED_CACHE_DIR", "")
    assert cache_dir() == tmp_path / "xdg" / "pyfed"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "pyfed"


_LOAD = ("import sys, numpy as np; from pyfed.data import load_dataset; X, y = load_dataset('wine', binary=0); "
         "print(int('sklearn' in sys.modules), repr(float(np.abs(X).sum())), int(y.sum()))")


def _load_in_fresh_process(cache):
    env = dict(os.environ, PYFED_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", _LOAD], env=env, capture_output=True, text=True, check=True)
    imported, total, ones = out.stdout.split()
    return imported == "1", total, int(ones)


@pytest.mark.slow
def test_cache_written_once_then_read_without_scikit_learn(tmp_path):
    cache = tmp_path / "cache"
    first = _load_in_fresh_process(cache)
    assert first[0] and first[2] == 59     # scikit-learn loaded it; wine has 59 samples of class 0
    assert len(list(cache.glob("dataset-wine-*.npz"))) == 1
    second = _load_in_fresh_process(cache)
    assert not second[0] and second[1:] == first[1:]    # same data, scikit-learn never imported


def test_cache_damaged_or_unwritable_gives_the_same_data(monkeypatch, tmp_path):
    import sklearn.datasets

    Xs, ys = sklearn.datasets.load_breast_cancer(return_X_y=True)
    monkeypatch.setenv("PYFED_CACHE_DIR", str(tmp_path))
    X0, y0 = load_dataset("breast_cancer", standardized=False)
    (path,) = tmp_path.glob("dataset-breast_cancer-*.npz")
    path.write_bytes(b"not an npz file")
    X1, y1 = load_dataset("breast_cancer", standardized=False)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("PYFED_CACHE_DIR", str(blocker / "below"))   # cannot be created
    X2, y2 = load_dataset("breast_cancer", standardized=False)
    for X, y in ((X0, y0), (X1, y1), (X2, y2)):
        assert np.array_equal(X, Xs) and np.array_equal(y, ys)
    assert np.load(path)["X"].shape == (569, 30)    # the damaged file was rewritten
    X0[0, 0] = -1.0                                # callers get their own copy, never the cached arrays
    assert load_dataset("breast_cancer", standardized=False)[0][0, 0] == Xs[0, 0]


# -- splits ----------------------------------------------------------------------------
@pytest.mark.parametrize("scheme,kw", [("iid", {}), ("dirichlet", {"alpha": 0.5}), ("similarity", {"similarity": 0}),
                                       ("similarity", {"similarity": 37.5}), ("similarity", {"similarity": 100})])
@pytest.mark.parametrize("N", [1, 7, 20])
def test_split_is_exact_partition(digits, scheme, kw, N):
    _, y = digits
    parts = split(y, N, scheme, 3, **kw)
    _assert_partition(parts, y.size, N)
    if scheme != "dirichlet":  # balanced sizes floor(n/N) or ceil(n/N), larger parts first
        sizes = np.array([p.size for p in parts])
        q, r = divmod(y.size, N)
        assert np.array_equal(sizes, q + (np.arange(N) < r))


@pytest.mark.parametrize("scheme,kw", [("iid", {}), ("dirichlet", {"alpha": 0.5}), ("similarity", {"similarity": 40})])
def test_split_reproducible_from_seed(digits, scheme, kw):
    _, y = digits
    a = split(y, 8, scheme, 11, **kw)
    b = split(y, 8, scheme, np.random.default_rng(11), **kw)
    c = split(y, 8, scheme, 12, **kw)
    assert all(np.array_equal(p, q) for p, q in zip(a, b))
    assert not all(np.array_equal(p, q) for p, q in zip(a, c))


def test_split_partition_tiny_edge_cases():
    y = np.array([0, 0, 1, 1, 2])
    for scheme, kw in [("iid", {}), ("similarity", {"similarity": 50}), ("similarity", {"similarity": 0})]:
        parts = split(y, 5, scheme, 0, **kw)  # N == n: every client gets exactly one sample
        _assert_partition(parts, 5, 5)
        assert all(p.size == 1 for p in parts)
    parts = split(y, 5, "similarity", 0, similarity=0)
    assert [int(y[p[0]]) for p in parts] == [0, 0, 1, 1, 2]  # dealt in label order


def test_dirichlet_label_skew(digits):
    _, y = digits
    skew = _tv_to_global(y, split(y, 10, "dirichlet", 0, alpha=0.1), 10)
    flat = _tv_to_global(y, split(y, 10, "dirichlet", 0, alpha=1000.0), 10)
    iid = _tv_to_global(y, split(y, 10, "iid", 0), 10)
    # alpha = 0.1: client label distributions far from the global one; alpha = 1000: close to iid
    assert skew.mean() > 0.5 and skew.max() > 0.7
    assert flat.max() < 0.06 and iid.max() < 0.15
    # and label distributions differ between clients
    h = np.array([np.bincount(y[p], minlength=10) / p.size for p in split(y, 10, "dirichlet", 0, alpha=0.1)])
    assert np.abs(h[:, None, :] - h[None, :, :]).sum(-1).max() > 1.5


def test_similarity_extremes(digits):
    _, y = digits
    iid_like = split(y, 10, "similarity", 5, similarity=100)
    assert _tv_to_global(y, iid_like, 10).max() < 0.15
    assert all(np.unique(y[p]).size == 10 for p in iid_like)
    sorted_split = split(y, 10, "similarity", 5, similarity=0)
    ys = np.sort(y)
    start = 0
    for i, p in enumerate(sorted_split):
        # s = 0: client i receives exactly the i-th contiguous chunk of the label-sorted data
        assert np.array_equal(np.sort(y[p]), ys[start:start + p.size])
        start += p.size
        assert np.unique(y[p]).size <= 3
        if i + 1 < len(sorted_split):
            assert y[p].max() <= y[sorted_split[i + 1]].min()
    assert np.mean([np.unique(y[p]).size for p in sorted_split]) <= 2.0
    half = split(y, 10, "similarity", 5, similarity=50)
    tv = _tv_to_global(y, half, 10)
    assert 0.2 < tv.max() < 0.7  # between the two extremes


def test_similarity_share_is_s_percent():
    # two balanced labels, N = 2: the (100-s)% sorted part gives client 0 only label 0, the s%
    # iid part gives it half label 0, so client 0's label-0 fraction is (1-s/100) + (s/100)/2.
    y = np.repeat([0, 1], 1000)
    for s in (0, 20, 50, 80, 100):
        parts = split(y, 2, "similarity", s, similarity=s)
        frac0 = np.mean(y[parts[0]] == 0)
        assert abs(frac0 - (1 - s / 200)) < 0.04, (s, frac0)
    # with s = 0 and N = 4 each client holds a single label
    y = np.repeat(np.arange(4), 5)
    parts = split(y, 4, "similarity", 0, similarity=0)
    assert [np.unique(y[p]).tolist() for p in parts] == [[0], [1], [2], [3]]


@pytest.mark.parametrize("kwargs,arg", [
    (dict(N=0, scheme="iid"), "N"),
    (dict(N=1.5, scheme="iid"), "N"),
    (dict(N=179, scheme="iid"), "N"),
    (dict(N=90, scheme="iid", min_size=2), "N"),
    (dict(N=3, scheme="shards"), "scheme"),
    (dict(N=3, scheme="dirichlet"), "alpha"),
    (dict(N=3, scheme="dirichlet", alpha=0.0), "alpha"),
    (dict(N=3, scheme="dirichlet", alpha=-1.0), "alpha"),
    (dict(N=3, scheme="dirichlet", alpha=float("nan")), "alpha"),
    (dict(N=3, scheme="similarity"), "similarity"),
    (dict(N=3, scheme="similarity", similarity=-1), "similarity"),
    (dict(N=3, scheme="similarity", similarity=100.5), "similarity"),
    (dict(N=3, scheme="similarity", similarity=float("nan")), "similarity"),
    (dict(N=3, scheme="iid", min_size=0), "min_size"),
])
def test_split_bad_arguments(kwargs, arg):
    _, y = load_dataset("wine")
    N = kwargs.pop("N")
    scheme = kwargs.pop("scheme")
    with pytest.raises(InputError) as e:
        split(y, N, scheme, 0, **kwargs)
    assert e.value.argument == arg


def test_split_bad_labels_and_rng():
    with pytest.raises(InputError) as e:
        split(np.array([0.0, np.nan, 1.0]), 2, "iid", 0)
    assert e.value.argument == "y"
    with pytest.raises(InputError) as e:
        split(np.array([0.5, 1.0]), 2, "iid", 0)
    assert e.value.argument == "y"
    with pytest.raises(InputError) as e:
        split(np.zeros((2, 2), dtype=int), 2, "iid", 0)
    assert e.value.argument == "y"
    with pytest.raises(InputError) as e:
        split(np.array([0, 1]), 2, "iid", None)
    assert e.value.argument == "rng"


def test_dirichlet_empty_client_raises_naming_alpha(digits):
    _, y = digits
    with pytest.raises(InputError) as e:
        split(y, 60, "dirichlet", 0, alpha=0.005, max_tries=5)
    assert e.value.argument == "alpha"
    assert "client" in e.value.reason and "increase alpha" in e.value.reason and "decrease N" in e.value.reason
    # the unconditioned draw (max_tries=1) fails at once on a tiny label set with many clients
    with pytest.raises(InputError) as e:
        split(np.repeat([0, 1], 10), 10, "dirichlet", 1, alpha=0.01, max_tries=1)
    assert e.value.argument == "alpha"


def test_dirichlet_min_size_respected(digits):
    _, y = digits
    parts = split(y, 10, "dirichlet", 2, alpha=0.3, min_size=20)
    _assert_partition(parts, y.size, 10)
    assert min(p.size for p in parts) >= 20
