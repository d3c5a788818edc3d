"""Input validation with errors that name the offending argument.

Every public entry point of pyfed validates its arguments through these helpers,
so a user sees ``InputError: S=7 must satisfy S <= N=5 (clients per round cannot
exceed the number of clients)`` instead of a traceback from deep inside numpy.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np


class InputError(ValueError):
    """A user-supplied argument is invalid.

    Attributes
    ----------
    argument : str
        Name of the offending argument, exactly as the caller spelled it.
    reason : str
        Why the value is rejected.
    """

    def __init__(self, argument: str, reason: str):
        self.argument = argument
        self.reason = reason
        super().__init__(f"{argument}: {reason}")


def check_int(name: str, value, *, minimum: int | None = None) -> int:
    """Return ``value`` as a Python int, raising :class:`InputError` if it is not an
    integer (bools rejected) or is below ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        if isinstance(value, Fraction) and value.denominator == 1:
            value = int(value)
        else:
            raise InputError(name, f"must be an integer, got {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise InputError(name, f"must be >= {minimum}, got {value}")
    return value


def check_participation(N, S) -> tuple[int, int]:
    """Validate the number of clients N >= 1 and clients per round 1 <= S <= N."""
    N = check_int("N", N, minimum=1)
    S = check_int("S", S)
    if S < 1:
        raise InputError("S", f"must be >= 1 (at least one client per round), got {S}")
    if S > N:
        raise InputError("S", f"S={S} must satisfy S <= N={N} (cannot sample more clients than exist)")
    return N, S


def _as_real(name: str, value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(name, f"must be a real number, got {value!r}") from None
    if math.isnan(v):
        raise InputError(name, "is NaN")
    return v


def check_positive(name: str, value):
    """Require a finite real value > 0; returns the value unchanged (exact types kept)."""
    v = _as_real(name, value)
    if not (v > 0) or math.isinf(v):
        raise InputError(name, f"must be a finite number > 0, got {value!r}")
    return value


def check_nonnegative(name: str, value):
    """Require a finite real value >= 0; returns the value unchanged."""
    v = _as_real(name, value)
    if v < 0 or math.isinf(v):
        raise InputError(name, f"must be a finite number >= 0, got {value!r}")
    return value


def check_global_step(eta_g):
    """SCAFFOLD's theorems need a global step eta_g >= 1 (seed 000 hypotheses)."""
    v = _as_real("eta_g", eta_g)
    if math.isinf(v) or v < 1:
        raise InputError("eta_g", f"must be a finite number >= 1, got {eta_g!r}")
    return eta_g


def check_finite_array(name: str, array, *, ndim: int | None = None, shape: tuple | None = None) -> np.ndarray:
    """Convert to a float64 array and reject NaN/inf and wrong shapes.

    ``shape`` entries that are ``None`` are unconstrained.
    """
    try:
        a = np.asarray(array, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(name, "must be a numeric array") from None
    if ndim is not None and a.ndim != ndim:
        raise InputError(name, f"must have {ndim} dimensions, got shape {a.shape}")
    if shape is not None:
        if a.ndim != len(shape) or any(s is not None and s != t for s, t in zip(shape, a.shape)):
            want = tuple("*" if s is None else s for s in shape)
            raise InputError(name, f"must have shape {want}, got {a.shape}")
    if not np.all(np.isfinite(a)):
        bad = int(np.count_nonzero(~np.isfinite(a)))
        raise InputError(name, f"contains {bad} NaN or infinite entries")
    return a


def check_rng(rng) -> np.random.Generator:
    """Accept a ``numpy.random.Generator`` or an int seed (never global state)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (numbers.Integral, np.integer)) and not isinstance(rng, bool):
        if int(rng) < 0:
            raise InputError("rng", f"an integer seed must be >= 0, got {int(rng)}")
        return np.random.default_rng(int(rng))
    raise InputError("rng", f"must be a numpy.random.Generator or an integer seed, got {rng!r}")
