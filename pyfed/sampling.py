"""Uniform fixed-size client sampling without replacement.

Seed 002 ("uniform fixed-size client sample"): for integers 1 <= S <= N, a random subset
S_r of {0, ..., N-1} (0-based client indices) of cardinality S such that every S-element
subset has probability 1 / C(N, S); subsets of distinct rounds (and here, of distinct
replicates) are independent. Seed 000 (the ``Run`` model) requires the same law, conditionally
on the history: P(I_r = B | F) = C(N, S)^-1 for |B| = S.

Method: for each row draw N i.i.d. Uniform[0, 1) keys and keep the clients holding the S
smallest keys. The keys are exchangeable, so the chosen set is uniform over S-subsets
(ties among doubles have probability < N^2 2^-53 and only change which of the tied clients
is kept, never the subset size). Rows are returned sorted ascending.

Sources: McMahan et al., PMLR 54 (2017), Section 2 and Algorithm 1; Karimireddy et al.,
SCAFFOLD, ICML 2020, arXiv:1910.06378v4, Algorithm 1 (PDF p. 4); seed 002 (definitions).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .errors import InputError, check_int, check_participation, check_rng

__all__ = ["sample_clients", "inclusion_probability", "pair_inclusion_probability"]


def sample_clients(rng, N, S, size) -> np.ndarray:
    """Draw independent uniform S-subsets of the N clients {0, ..., N-1}.

    Parameters
    ----------
    rng : numpy.random.Generator | int
        Source of randomness (an int is a seed for ``numpy.random.default_rng``).
    N : int
        Number of clients, N >= 1.
    S : int
        Clients per subset, 1 <= S <= N.
    size : int | tuple of int
        Number of independent subsets (rows), >= 0; a tuple gives the leading shape.

    Returns
    -------
    ndarray of int64, shape (size, S) (or ``size + (S,)`` for a tuple)
        Each row a uniform S-subset sorted ascending; rows mutually independent.
        Draw order: one ``rng.random(size + (N,))`` call (nothing is drawn when S == N,
        where every row is 0..N-1).

    Raises
    ------
    InputError
        N < 1, S < 1, S > N, non-integer arguments, a negative size or an invalid rng.
    """
    N, S = check_participation(N, S)
    rng = check_rng(rng)
    if isinstance(size, tuple):
        shape = tuple(check_int("size", s, minimum=0) for s in size)
    else:
        shape = (check_int("size", size, minimum=0),)
    if S == N:
        return np.broadcast_to(np.arange(N, dtype=np.int64), shape + (N,)).copy()
    keys = rng.random(shape + (N,))
    idx = np.argpartition(keys, S - 1, axis=-1)[..., :S]
    idx = np.sort(idx, axis=-1)
    return idx.astype(np.int64, copy=False)


def inclusion_probability(N, S) -> Fraction:
    """P(i in S_r) = S/N exactly, for any fixed client i (uniform S-subset of N clients).

    Raises :class:`InputError` unless 1 <= S <= N.
    """
    N, S = check_participation(N, S)
    return Fraction(S, N)


def pair_inclusion_probability(N, S) -> Fraction:
    """P(i in S_r and j in S_r) = S(S-1) / (N(N-1)) exactly, for fixed clients i != j.

    Requires N >= 2 (there is no pair of distinct clients when N = 1). Raises
    :class:`InputError` for N < 2 or unless 1 <= S <= N.
    """
    N, S = check_participation(N, S)
    if N < 2:
        raise InputError("N", "pair inclusion needs two distinct clients (N >= 2)")
    return Fraction(S * (S - 1), N * (N - 1))
