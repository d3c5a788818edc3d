"""Bundled real datasets and federated splits (label skew, SCAFFOLD's "similarity s%").

Datasets come from scikit-learn's *bundled* copies (``sklearn.datasets.load_*``), so nothing
is downloaded. The first load of a dataset writes its raw arrays to a small ``.npz`` file in
pyfed's cache directory (:func:`cache_dir`), and later loads read that file, so scikit-learn
(about a second of imports) is imported once per machine and scikit-learn version, not once per
run. Splits turn a label vector into N client index sets:

* ``"iid"``: a uniform random permutation cut into N near-equal parts;
* ``"dirichlet"``: label skew of Hsu, Qi & Brown (2019), "Measuring the effects of
  non-identical data distribution for federated visual classification", Sec. 3: for every
  class c, the proportions (p_{c,1}, ..., p_{c,N}) ~ Dirichlet(alpha * 1_N) and the
  (shuffled) samples of class c are cut into N consecutive pieces of those proportions;
  small alpha = strong skew, alpha -> infinity = iid label proportions;
* ``"similarity"``: Karimireddy et al. (2020), "SCAFFOLD", Sec. 7 (experiments on EMNIST):
  "s% similarity": s% of the data is allocated iid across clients, the remaining
  (100 - s)% is sorted by label and dealt to clients in contiguous chunks.

All randomness comes from a seeded ``numpy.random.Generator`` (:func:`pyfed.errors.check_rng`).
"""

from __future__ import annotations

import math
import numbers
import os
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np

from .errors import InputError, check_finite_array, check_int, check_rng

__all__ = ["DATASETS", "load_dataset", "standardize", "holdout", "split", "SCHEMES", "cache_dir"]

#: Dataset name -> (scikit-learn loader name, number of classes, default binary mapping).
DATASETS = {
    "breast_cancer": ("load_breast_cancer", 2, None),
    "wine": ("load_wine", 3, 0),
    "digits": ("load_digits", 10, "parity"),
}

#: Version of the cache files' layout (part of their names).
_CACHE_FORMAT = 1


def cache_dir() -> Path:
    """The directory of pyfed's cache files (the bundled datasets' raw arrays).

    ``$PYFED_CACHE_DIR`` if set and non-empty, else ``$XDG_CACHE_HOME/pyfed``, else
    ``~/.cache/pyfed``. The directory is created when a file is first written; a directory that
    cannot be written only costs speed (the data are then read from scikit-learn every time).
    """
    explicit = os.environ.get("PYFED_CACHE_DIR", "").strip()
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "pyfed"


def _sklearn_version() -> str:
    import importlib.metadata

    try:
        return importlib.metadata.version("scikit-learn")
    except importlib.metadata.PackageNotFoundError:   # pragma: no cover (a dependency)
        return "unknown"


def _cache_path(name: str) -> Path:
    return cache_dir() / f"dataset-{name}-sklearn{_sklearn_version()}-v{_CACHE_FORMAT}.npz"


def _raw_dataset(name: str) -> tuple[np.ndarray, np.ndarray]:
    """The raw arrays of a bundled dataset: X float64 (n, p), y int64 (n,), as scikit-learn's
    loader returns them, read from the cache file when there is a valid one (else loaded with
    scikit-learn and written to the cache, best effort)."""
    path = _cache_path(name)
    try:
        with np.load(path, allow_pickle=False) as f:
            X, y = f["X"], f["y"]
        if X.dtype == np.float64 and y.dtype == np.int64 and X.ndim == 2 and y.shape == (X.shape[0],):
            return X, y
    except (OSError, KeyError, ValueError):   # no cache file yet, or a damaged one: rebuild it
        pass
    import sklearn.datasets

    X, y = getattr(sklearn.datasets, DATASETS[name][0])(return_X_y=True)
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.int64)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                np.savez(out, X=X, y=y)
            os.replace(tmp, path)     # atomic: a concurrent reader sees the old file or the whole new one
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:   # a read-only or missing home: no cache, same data
        pass
    return X, y


#: Split schemes understood by :func:`split`.
SCHEMES = ("iid", "dirichlet", "similarity")


def standardize(X) -> np.ndarray:
    """Column-standardise a data matrix: zero mean and unit (population, ddof=0) variance.

    Parameters
    ----------
    X : array (n, p)
        Finite real data, n >= 1 samples of p features.

    Returns
    -------
    ndarray float64 (n, p)
        (X - mean) / std per column; a constant column (all entries equal) becomes all zeros.

    Raises
    ------
    InputError("X")
        Not a 2-D numeric array, no rows, or NaN/inf entries.
    """
    try:
        X = np.array(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("X", "must be a numeric array") from None
    if X.ndim != 2:
        raise InputError("X", f"must be 2-D (n, p), got shape {X.shape}")
    if X.shape[0] < 1:
        raise InputError("X", "needs at least one sample (row)")
    if not np.all(np.isfinite(X)):
        raise InputError("X", f"contains {int(np.count_nonzero(~np.isfinite(X)))} NaN or infinite entries")
    constant = np.ptp(X, axis=0) == 0
    mean = X.mean(axis=0)
    std = X.std(axis=0)
    std[constant] = 1.0
    Z = (X - mean) / std
    Z[:, constant] = 0.0
    return Z


def load_dataset(name: str, *, binary=None, intercept: bool = False,
                 standardized: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Load a scikit-learn bundled dataset (no download; read from pyfed's cache directory after
    the first load, see :func:`cache_dir`).

    Parameters
    ----------
    name : {"breast_cancer", "wine", "digits"}
        breast_cancer: 569 samples, 30 features, binary labels {0 = malignant, 1 = benign};
        wine: 178 samples, 13 features, 3 classes {0, 1, 2};
        digits: 1797 samples, 64 features (8x8 pixel intensities), 10 classes {0..9}.
    binary : None | int | "parity" | "default"
        Label mapping to {0, 1} for logistic regression.
        ``None`` keeps the original labels (multi-class for wine/digits);
        an int k gives y = 1 if label == k else 0 ("class k vs rest");
        ``"parity"`` gives y = label mod 2 (odd digits = 1);
        ``"default"`` uses the dataset's default (breast_cancer: as is; wine: class 0 vs rest;
        digits: parity).
    intercept : bool
        If True, append a column of ones *after* standardisation, so X has p + 1 columns and
        the last model coordinate acts as a bias (it is regularised like the others).
    standardized : bool
        If True (default) every feature column has zero mean and unit variance
        (:func:`standardize`; constant columns, e.g. the blank border pixels of digits, become 0).

    Returns
    -------
    X : ndarray float64 (n, p) or (n, p + 1)
    y : ndarray int64 (n,)

    Raises
    ------
    InputError("name")
        Unknown dataset. ``InputError("binary")`` for an invalid mapping (e.g. a class k that
        does not occur).
    """
    if not isinstance(name, str) or name not in DATASETS:
        raise InputError("name", f"unknown dataset {name!r}; choose one of {sorted(DATASETS)}")
    _, n_classes, default_binary = DATASETS[name]
    X, y = _raw_dataset(name)
    X = standardize(X) if standardized else X.copy()
    y = y.copy()
    if isinstance(binary, str) and binary == "default":
        binary = default_binary
    if binary is None:
        pass
    elif isinstance(binary, str) and binary == "parity":
        y = y % 2
    elif isinstance(binary, (numbers.Integral, np.integer)) and not isinstance(binary, bool):
        if not 0 <= int(binary) < n_classes:
            raise InputError("binary", f"class {binary} does not occur in {name!r} (classes 0..{n_classes - 1})")
        y = (y == int(binary)).astype(np.int64)
    else:
        raise InputError("binary", f"must be None, a class index, 'parity' or 'default', got {binary!r}")
    if intercept:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    return X, y


def holdout(X, y, n_test, rng, *, scale: str = "standardize") -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Stratified held-out test split, scaled with the training part's statistics only.

    Parameters
    ----------
    X : array (n, p)
        Raw (unstandardised) finite features, e.g. ``load_dataset(name, standardized=False)``.
    y : array (n,) of int
        Class labels; every class needs at least 2 samples (stratification).
    n_test : int
        Number of test samples, 1 <= n_test <= n - 1 (at least one per class is not required;
        scikit-learn's ``train_test_split(stratify=y)`` keeps the class proportions up to rounding).
    rng : numpy.random.Generator | int
        Source of the split (one ``rng.integers(2**31)`` draw seeds scikit-learn's shuffle).
    scale : {"standardize", "max"}
        "standardize": every column minus the *training* mean, divided by the training (ddof=0)
        standard deviation; a column constant on the training part becomes 0 in both parts.
        "max": every entry divided by the largest absolute training entry (pixel intensities
        0..16 of digits become [0, 1], as EMNIST's pixels are in the SCAFFOLD experiments);
        an all-zero training part is left unscaled.

    Returns
    -------
    X_train (n - n_test, p), y_train (n - n_test,), X_test (n_test, p), y_test (n_test,)
        Scaled features and labels; rows keep the order chosen by the shuffle.

    Raises
    ------
    InputError
        "X"/"y": wrong shapes, NaN/inf, non-integer labels; "n_test": not an integer in
        [1, n - 1], or too small/large to hold every class in both parts; "scale": unknown.
    """
    from sklearn.model_selection import train_test_split

    y = _check_labels(y)
    X = check_finite_array("X", X, ndim=2)
    if X.shape[0] != y.size:
        raise InputError("y", f"has {y.size} labels for {X.shape[0]} samples")
    n = y.size
    n_test = check_int("n_test", n_test, minimum=1)
    if n_test > n - 1:
        raise InputError("n_test", f"must leave at least one training sample: n_test <= {n - 1}, got {n_test}")
    if scale not in ("standardize", "max"):
        raise InputError("scale", f"must be 'standardize' or 'max', got {scale!r}")
    rng = check_rng(rng)
    state = int(rng.integers(2**31))
    try:
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=n_test, stratify=y, random_state=state)
    except ValueError as exc:
        raise InputError("n_test", f"cannot stratify {n_test} test samples over the classes: {exc}") from None
    if scale == "max":
        top = float(np.abs(X_tr).max()) if X_tr.size else 0.0
        if top > 0:
            X_tr, X_te = X_tr / top, X_te / top
        return X_tr, y_tr.astype(np.int64), X_te, y_te.astype(np.int64)
    mean = X_tr.mean(axis=0)
    std = X_tr.std(axis=0)
    constant = np.ptp(X_tr, axis=0) == 0
    std[constant] = 1.0
    X_tr = (X_tr - mean) / std
    X_te = (X_te - mean) / std
    X_tr[:, constant] = 0.0
    X_te[:, constant] = 0.0
    return X_tr, y_tr.astype(np.int64), X_te, y_te.astype(np.int64)


def _check_labels(y) -> np.ndarray:
    try:
        a = np.asarray(y)
    except Exception:  # pragma: no cover - exotic input
        raise InputError("y", "must be a 1-D array of integer labels") from None
    if a.ndim != 1:
        raise InputError("y", f"must be 1-D (n,), got shape {a.shape}")
    if a.size == 0:
        raise InputError("y", "is empty (no samples to split)")
    if a.dtype.kind in "iub":
        return a.astype(np.int64)
    try:
        f = a.astype(np.float64)
    except (TypeError, ValueError):
        raise InputError("y", "must be a 1-D array of integer labels") from None
    if not np.all(np.isfinite(f)):
        raise InputError("y", f"contains {int(np.count_nonzero(~np.isfinite(f)))} NaN or infinite entries")
    if not np.all(f == np.round(f)):
        raise InputError("y", "labels must be integers")
    return f.astype(np.int64)


def _check_similarity(similarity) -> Fraction:
    if similarity is None:
        raise InputError("similarity", "scheme 'similarity' needs similarity=s with s in [0, 100] (percent)")
    if isinstance(similarity, bool):
        raise InputError("similarity", f"must be a number in [0, 100], got {similarity!r}")
    try:
        s = Fraction(similarity)
    except (TypeError, ValueError, OverflowError):
        raise InputError("similarity", f"must be a finite number in [0, 100] (percent), got {similarity!r}") from None
    if not 0 <= s <= 100:
        raise InputError("similarity", f"must lie in [0, 100] (percent), got {similarity!r}")
    return s


def _check_alpha(alpha) -> float:
    if alpha is None:
        raise InputError("alpha", "scheme 'dirichlet' needs a concentration alpha > 0")
    try:
        a = float(alpha)
    except (TypeError, ValueError):
        raise InputError("alpha", f"must be a finite number > 0, got {alpha!r}") from None
    if isinstance(alpha, bool) or not math.isfinite(a) or a <= 0:
        raise InputError("alpha", f"must be a finite number > 0, got {alpha!r}")
    return a


def _balanced_sizes(n: int, N: int) -> np.ndarray:
    """Sizes of ``np.array_split(range(n), N)``: the first n % N parts get one extra."""
    q, r = divmod(n, N)
    return q + (np.arange(N) < r).astype(np.int64)


def split(y, N, scheme: str, rng, *, alpha=None, similarity=None, min_size: int = 1,
          max_tries: int = 100) -> list[np.ndarray]:
    """Partition the sample indices 0..n-1 among N clients.

    Parameters
    ----------
    y : array (n,) of int
        Class labels (used by the label-skewed schemes; "iid" uses only n).
    N : int
        Number of clients, 1 <= N <= n (and N * min_size <= n).
    scheme : {"iid", "dirichlet", "similarity"}
        "iid": a uniform random permutation cut into N parts of sizes floor(n/N) or ceil(n/N).
        "dirichlet": Hsu et al. (2019): for each class c, p_c ~ Dirichlet(alpha * 1_N) and the
        shuffled samples of class c are cut at the cumulative proportions
        floor(n_c * (p_1 + ... + p_k)), k = 1..N-1 (the reference implementation's rounding).
        "similarity": SCAFFOLD (Karimireddy et al. 2020, Sec. 7) "similarity s%": a uniformly
        random subset of round(s n / 100) samples is dealt iid (a random permutation cut into
        near-equal parts); the remaining samples are sorted by label (random order within a
        label) and cut into contiguous chunks in client order, client 0 receiving the lowest
        labels. The chunk sizes are chosen so that every client ends up with floor(n/N) or
        ceil(n/N) samples in total. s = 100 is the iid split, s = 0 gives each client a
        contiguous label range (few distinct labels per client).
    rng : numpy.random.Generator | int
        Source of all randomness; the same seed reproduces the same split.
    alpha : float > 0
        Dirichlet concentration (required for and only used by "dirichlet").
    similarity : number in [0, 100]
        Percentage s (required for and only used by "similarity").
    min_size : int >= 1
        Every client must receive at least this many samples.
    max_tries : int >= 1
        "dirichlet" only: the proportions are redrawn up to this many times until every client
        has at least ``min_size`` samples (the rejection loop of the reference implementations,
        i.e. the split is drawn from the Dirichlet scheme *conditioned* on no undersized client).
        ``max_tries=1`` gives the unconditioned scheme and fails at the first undersized client.

    Returns
    -------
    list of N ndarrays (int64, sorted ascending)
        Disjoint, and their union is exactly {0, ..., n-1}.

    Raises
    ------
    InputError
        "y": not 1-D integer labels / NaN; "N": N < 1, N > n, or N * min_size > n;
        "scheme": unknown scheme; "alpha": alpha missing or <= 0, or after ``max_tries`` draws
        some client still had fewer than ``min_size`` samples (the message names the client and
        suggests a larger alpha or a smaller N); "similarity": missing or outside [0, 100];
        "min_size"/"max_tries": not an integer >= 1. A split never returns an empty client.
    """
    y = _check_labels(y)
    n = y.size
    N = check_int("N", N, minimum=1)
    min_size = check_int("min_size", min_size, minimum=1)
    max_tries = check_int("max_tries", max_tries, minimum=1)
    if N > n:
        raise InputError("N", f"N={N} clients exceed the n={n} samples: some client would be empty; use N <= {n}")
    if N * min_size > n:
        raise InputError("N", f"N={N} clients with min_size={min_size} need at least {N * min_size} samples, "
                              f"only n={n}; use N <= {n // min_size} or a smaller min_size")
    if scheme not in SCHEMES:
        raise InputError("scheme", f"unknown split scheme {scheme!r}; choose one of {list(SCHEMES)}")
    rng = check_rng(rng)

    if scheme == "iid":
        parts = np.array_split(rng.permutation(n), N)
    elif scheme == "similarity":
        parts = _similarity_split(y, N, _check_similarity(similarity), rng)
    else:
        a = _check_alpha(alpha)
        parts = None
        for attempt in range(max_tries):
            parts = _dirichlet_split(y, N, a, rng)
            sizes = np.array([p.size for p in parts])
            if sizes.min() >= min_size:
                break
        else:
            k = int(np.argmin(sizes))
            raise InputError(
                "alpha",
                f"Dirichlet(alpha={alpha}) label split left client {k} with {int(sizes[k])} samples "
                f"(< min_size={min_size}) in each of {max_tries} draws; increase alpha, decrease N "
                f"(now {N}), lower min_size, or raise max_tries")
    out = [np.sort(np.asarray(p, dtype=np.int64)) for p in parts]
    sizes = np.array([p.size for p in out])
    if sizes.min() < min_size:  # pragma: no cover - guaranteed above for every scheme
        k = int(np.argmin(sizes))
        raise InputError("N", f"client {k} would get {int(sizes[k])} samples (< min_size={min_size}); decrease N")
    return out


def _dirichlet_split(y: np.ndarray, N: int, alpha: float, rng: np.random.Generator) -> list[np.ndarray]:
    buckets: list[list[np.ndarray]] = [[] for _ in range(N)]
    for c in np.unique(y):
        idx = rng.permutation(np.flatnonzero(y == c))
        p = rng.dirichlet(np.full(N, alpha))
        if not np.all(np.isfinite(p)):  # pragma: no cover - numpy's small-alpha path is finite
            raise InputError("alpha", f"Dirichlet({alpha}) sampling produced non-finite proportions; increase alpha")
        cuts = (np.cumsum(p) * idx.size).astype(np.int64)[:-1]
        for k, piece in enumerate(np.split(idx, cuts)):
            buckets[k].append(piece)
    return [np.concatenate(b) for b in buckets]


def _similarity_split(y: np.ndarray, N: int, s: Fraction, rng: np.random.Generator) -> list[np.ndarray]:
    n = y.size
    n_iid = math.floor(s * n / 100 + Fraction(1, 2))
    perm = rng.permutation(n)
    iid_pool, rest = perm[:n_iid], perm[n_iid:]
    rest = rest[np.argsort(y[rest], kind="stable")]  # sorted by label, random order within a label
    iid_sizes = _balanced_sizes(n_iid, N)
    # totals are balanced (floor/ceil of n/N); both size vectors are front-loaded, so the
    # differences are >= 0 (n_iid <= n) and sum to n - n_iid.
    chunk_sizes = _balanced_sizes(n, N) - iid_sizes
    iid_parts = np.split(iid_pool, np.cumsum(iid_sizes)[:-1])
    chunks = np.split(rest, np.cumsum(chunk_sizes)[:-1])
    return [np.concatenate([a, b]) for a, b in zip(iid_parts, chunks)]
