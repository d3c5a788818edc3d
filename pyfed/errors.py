"""pyfed's errors, exit statuses, and input validation with errors that name the offending argument.

Every public entry point of pyfed validates its arguments through these helpers,
so a user sees ``InputError: S=7 must satisfy S <= N=5 (clients per round cannot
exceed the number of clients)`` instead of a traceback from deep inside numpy.

Exception hierarchy (all derive from :class:`PyfedError`):

* :class:`InputError` (also a ``ValueError``) -- a user-supplied argument is invalid; the CLI
  prints ``pyfed: error: <argument>: <why>`` and exits with :data:`EXIT_INPUT` (2).
* :class:`UndefinedValue` (an InputError and a ``ZeroDivisionError``) -- a formula is undefined at
  the given inputs (it would divide by zero, e.g. q = 1 - mu h / 2 = 0 in the weights).
* :class:`Diverged` -- a simulator's state became non-finite or exceeded
  :data:`pyfed.algorithms.common.DIVERGENCE_THRESHOLD` (carries the round and the magnitude).
"""

from __future__ import annotations

import math
import numbers
import os
import sys
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


#: Exit statuses of the ``pyfed`` command (docs/reference/exit-statuses.md).
EXIT_OK = 0            #: ran; no verdict is violated
EXIT_VIOLATED = 1      #: some verdict is violated (and nothing else)
EXIT_INPUT = 2         #: bad input or usage error (one line ``pyfed: error: <argument>: <why>``)
EXIT_INTERNAL = 3      #: internal error (a bug in pyfed: please report; PYFED_DEBUG=1 shows the traceback)
EXIT_CHECK_FAILED = 4  #: a consistency check of pyfed's own artefacts failed (``pyfed lean --check`` / ``--drift``)
EXIT_NUMERICS = 5      #: a numerical library failed (numpy/scipy LinAlgError, a cvxpy SolverError, a floating-point trap): no verdict
EXIT_INTERRUPTED = 130  #: interrupted (Ctrl-C)


class PyfedError(Exception):
    """Base class of every error pyfed raises on purpose."""


class InputError(PyfedError, ValueError):
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


class UndefinedValue(InputError, ZeroDivisionError):
    """A formula is undefined at the given inputs (it would divide by zero).

    Raised instead of a bare ``ZeroDivisionError`` by :mod:`pyfed.theory` (e.g. T = 0 in a right
    side, or mu h = 2, where q = 1 - mu h / 2 = 0 and the weights q^-(r+1) do not exist). It is
    an :class:`InputError` (the CLI reports it as bad input, exit 2) and a ``ZeroDivisionError``
    (code that treats an undefined point as "undefined", such as the tightness sweep, keeps
    working).
    """


class Diverged(PyfedError, ArithmeticError):
    """A simulated run diverged: its state became non-finite (NaN/inf) or exceeded the
    documented threshold :data:`pyfed.algorithms.common.DIVERGENCE_THRESHOLD`.

    Attributes
    ----------
    round : int
        0-based round (time step for Local SGD) whose update produced the offending state,
        i.e. the state x^{round+1} (rounds are 0..T-1).
    magnitude : float
        Largest absolute entry of the offending state (``inf`` or ``nan`` when non-finite).
    quantity : str
        Which state: ``"x"`` (server iterate / worker iterates) or ``"controls"``.
    replicate : int | None
        Index of a replicate where it happened (the first one found).
    threshold : float
        The threshold that was exceeded.
    """

    def __init__(self, round: int, magnitude: float, *, quantity: str = "x", replicate=None,
                 threshold: float | None = None):
        self.round = int(round)
        self.magnitude = float(magnitude)
        self.quantity = quantity
        self.replicate = None if replicate is None else int(replicate)
        self.threshold = threshold
        if math.isfinite(self.magnitude):
            what = f"reached magnitude {self.magnitude:.3g}" + (f" > {threshold:.3g}" if threshold else "")
        else:
            what = "is non-finite (NaN or inf)"
        rep = "" if self.replicate is None else f" (replicate {self.replicate})"
        super().__init__(f"diverged at round {self.round}: {quantity} {what}{rep}")

    def to_json(self) -> dict:
        """JSON-ready description (never NaN: a non-finite magnitude is written as a string)."""
        m = self.magnitude
        return {"round": self.round, "quantity": self.quantity, "replicate": self.replicate,
                "magnitude": m if math.isfinite(m) else ("nan" if math.isnan(m) else "inf"),
                "threshold": self.threshold}


def _numpy(name: str):
    """numpy's abstract scalar type ``name`` ("integer", "floating") if numpy is imported, else ``()``:
    without numpy in the process no value can be a numpy scalar, so this module (imported by
    ``pyfed --help``) does not import numpy itself."""
    np = sys.modules.get("numpy")
    return () if np is None else getattr(np, name)


def check_int(name: str, value, *, minimum: int | None = None) -> int:
    """Return ``value`` as a Python int, raising :class:`InputError` if it is not an
    integer (bools rejected) or is below ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, _numpy("integer"))):
        if isinstance(value, Fraction) and value.denominator == 1:
            value = int(value)
        else:
            raise InputError(name, f"must be an integer, got {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise InputError(name, f"must be >= {minimum}, got {value}")
    return value


def check_natural(name: str, value, *, minimum: int = 0) -> int:
    """A natural number (Lean ``ℕ``: N, S, K, T, r) given as any exact integer value -- int,
    numpy integer, Fraction or sympy Integer with denominator 1, a string such as ``"4"``, or a
    float with an integral value. Non-integers (``2.5``, ``"5/2"``), NaN, infinities, bools and
    values below ``minimum`` raise :class:`InputError` naming ``name`` (never silently truncated)."""
    v = value
    if isinstance(v, bool):
        raise InputError(name, f"must be a natural number, got {value!r}")
    if isinstance(v, str):
        try:
            v = Fraction(v.strip())
        except (ValueError, ZeroDivisionError):
            raise InputError(name, f"must be a natural number, got {value!r}") from None
    if isinstance(v, (float, _numpy("floating"))):
        if not math.isfinite(v) or v != int(v):
            raise InputError(name, f"must be a natural number (an integer), got {value!r}")
        v = int(v)
    if not isinstance(v, (numbers.Integral, _numpy("integer"))):
        p, q = getattr(v, "numerator", None), getattr(v, "denominator", None)
        if p is None or q is None or (callable(p) or callable(q)):
            p, q = getattr(v, "p", None), getattr(v, "q", None)  # sympy Rational / flint fmpq
        try:
            p, q = int(p), int(q)
        except (TypeError, ValueError):
            raise InputError(name, f"must be a natural number, got {value!r}") from None
        if q != 1:
            raise InputError(name, f"must be a natural number (an integer), got {value!r}")
        v = p
    v = int(v)
    if v < minimum:
        raise InputError(name, f"must be a natural number >= {minimum}, got {v}")
    return v


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
    if isinstance(value, str):  # rational strings such as "1/4", accepted everywhere in pyfed
        try:
            return float(Fraction(value.strip()))
        except (ValueError, ZeroDivisionError):
            raise InputError(name, f"must be a real number such as 1/4, got {value!r}") from None
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
    import numpy as np

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
    import numpy as np

    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (numbers.Integral, _numpy("integer"))) and not isinstance(rng, bool):
        if int(rng) < 0:
            raise InputError("rng", f"an integer seed must be >= 0, got {int(rng)}")
        return np.random.default_rng(int(rng))
    raise InputError("rng", f"must be a numpy.random.Generator or an integer seed, got {rng!r}")


# -- output paths (checked before any long computation) ---------------------------------------

def check_output_file(flag: str, path) -> str:
    """Validate a file path the command will write *after* its work (``--json PATH``), so a
    bad path fails in milliseconds instead of after the computation: not empty, not a
    directory, its directory exists, and a file can be created there (probed by creating
    and removing it, or by opening an existing file for appending). Returns the path.

    Raises InputError(flag) with the reason (e.g. ``--json: '/proc/x.json': cannot create
    file: No such file or directory``).
    """

    if path is None or str(path).strip() == "":
        raise InputError(flag, "is empty: give a file path such as report.json")
    path = str(path)
    if os.path.isdir(path):
        raise InputError(flag, f"{path!r} is a directory; give a file path such as {os.path.join(path, 'report.json')!r}")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise InputError(flag, f"directory {parent!r} does not exist")
    existed = os.path.exists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise InputError(flag, f"{path!r}: cannot create file: {exc.strerror or exc}") from None
    if not existed:
        try:
            os.remove(path)
        except OSError:
            pass
    return path


def prepare_output_dir(flag: str, path) -> str:
    """Create the output directory ``path`` of a command (``--out DIR``) and check that files can
    be written in it (probed by creating and removing a temporary file), before any long work.
    Returns the path. Raises InputError(flag) naming the OS reason (empty path, a file in the
    way, no permission, read-only file system)."""
    import tempfile

    if path is None or str(path).strip() == "":
        raise InputError(flag, "is empty: give a directory such as out/")
    path = str(path)
    if os.path.exists(path) and not os.path.isdir(path):
        raise InputError(flag, f"{path!r} is a file, not a directory")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise InputError(flag, f"cannot create directory {path!r}: {exc.strerror or exc}") from None
    try:
        with tempfile.NamedTemporaryFile(dir=path, prefix=".pyfed-probe-"):
            pass
    except OSError as exc:
        raise InputError(flag, f"directory {path!r} is not writable: {exc.strerror or exc}") from None
    return path
