"""The adapter protocol: one round of third-party code, plain numpy in and out.

An *adapter* exposes one round of a user's FedAvg / FedProx / SCAFFOLD / FedAdam / FedYogi /
FedAdagrad implementation (one time step of a Local SGD implementation) to ``pyfed conform``.
pyfed owns everything random and everything the algorithm's definition takes as given: the server
state at the start of the round, the client controls, the sampled set, the client record counts
and a gradient oracle (exact gradients of rational quadratic clients plus pyfed's seeded noise).
The adapter runs its own code on them and returns the new state.

**The purity rule.** pyfed branches: it runs a round once per client subset, from the state the
implementation returned, and replays rounds in breadth-first order. So an adapter should be a
function of its input: everything the next round needs goes into the returned dict. pyfed checks
it: it compares the adapter's attributes (``vars(adapter)``, arrays by value, random generators by
state) before and after every call and runs the first input of every rung twice. An adapter
whose attributes change keeps state between calls: pyfed names the attribute, reports the
adapter as stateful and runs every sampling path on a fresh copy of the adapter as it was before
the first call (``copy.deepcopy``), rounds in order, so stateful code that is correct still
conforms. Output that changes on a repeated input with no attribute changed (a global, a closure,
an unseeded random generator) is a deviation.

An adapter is any of

* a callable ``round(inp) -> dict``;
* an object with a method ``round(inp) -> dict`` and optionally ``init(x0, c0) -> dict``
  (SCAFFOLD: the initial state the implementation builds from the start point ``x0`` (d,) and
  the initial client controls ``c0`` (N, d); without it pyfed builds the seed's ``x = x0,
  c = N^-1 sum_i c0_i, c_clients = c0``) or ``init(x0) -> dict`` (the adaptive optimisers: the
  initial ``x``, ``m``, ``v``; without it pyfed uses m = 0, v = tau^2), and optionally the
  attributes ``algorithm`` (one of :data:`ALGORITHMS`), ``option`` ("I" | "II"), ``mode``
  ("uniform" | "weighted"), ``eta_g`` (a number: the global step size the implementation
  applies, e.g. 1 for FedAvg without a server step) and ``precision`` ("float64" | "float32" |
  "float16" | "bfloat16") saying what it implements (command-line flags override them);
* a class with such methods, instantiated without arguments.

The returned dict holds float arrays: ``x`` (d,) for FedAvg and FedProx (a bare array is
accepted too); ``x`` (d,), ``c`` (d,) and ``c_clients`` (N, d) for SCAFFOLD; ``x``, ``m``, ``v``
(d,) each for the adaptive optimisers; ``x`` (workers, d) for Local SGD. Optionally ``y`` (S, d):
the sampled clients' local end points y_{i,K} in the order of ``inp.sampled`` (the last local
iterate is never an oracle point, so without ``y`` a mistake in the last local step can only be
seen through the model). Shapes and finiteness are checked: an adapter that raises, returns the
wrong keys or shapes, or NaN/inf, is *broken* (:class:`AdapterError`, exit 2), which is not a
deviation from the algorithm. The dtype of the returned arrays tells pyfed the working precision
(float32, float16, bfloat16; :mod:`pyfed.conform.precision`).

The oracle. ``inp.oracle(i, y)`` returns client i's stochastic gradient at y (d,): the exact
gradient A_i y - b_i of the quadratic client plus pyfed's noise, rounded once to float64. The
noise of the j-th call (j = 0, 1, ...) that client i makes in round r is fixed by (seed, rung,
r, i, j), independently of the order in which the adapter visits the clients, so pyfed can
replay the round exactly with the very draws the implementation received: it matches the
algorithm's calls (the K local steps in order; option I's fresh sample at x anywhere) to the
client's calls by their points and reports extra calls (a diagnostic gradient, an evaluation)
as such. Calls of clients outside the sampled set are allowed (the seed-000 ``Run`` model
computes virtual paths for every client) and ignored.

Source: seed 002 (FedAvg, SCAFFOLD, Local SGD procedures), seed 000 (the ``Run`` oracle law);
Karimireddy et al., SCAFFOLD, ICML 2020, Algorithm 1; Reddi et al., Adaptive Federated
Optimization, ICLR 2021, Algorithm 2.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from ..errors import InputError
from .precision import detect_precision

__all__ = ["RoundInput", "LocalSGDStep", "AdapterError", "Adapter", "NoiseSource", "RecordingOracle", "Outputs",
           "call_round", "call_init", "adapter_attribute", "load_adapter", "readonly", "ALGORITHMS"]

#: The algorithms ``pyfed conform`` knows (command-line spelling).
ALGORITHMS = ("scaffold", "fedavg", "fedprox", "fedadam", "fedyogi", "fedadagrad", "local-sgd")


class AdapterError(InputError):
    """The adapter is broken (raised, returned the wrong keys, shapes or non-finite values, or
    called the oracle with bad arguments): not a verdict about the algorithm. The command line
    reports it as one line naming ``ADAPTER`` and exits 2."""

    def __init__(self, reason: str):
        super().__init__("ADAPTER", reason)


@dataclass(frozen=True)
class RoundInput:
    """What a federated round (FedAvg, FedProx, SCAFFOLD) receives. Arrays are read-only copies.

    Attributes
    ----------
    algorithm : str
        "scaffold", "fedavg", "fedprox", "fedadam", "fedyogi" or "fedadagrad".
    option : str | None
        SCAFFOLD control update "I" or "II" (Algorithm 1); None otherwise.
    mode : str | None
        Aggregation "uniform" (x + eta_g/S sum (y_i - x)) or "weighted"
        (x + eta_g sum (n_i/n)(y_i - x)) for FedAvg and FedProx (seed 002); None for SCAFFOLD.
    round : int
        The round r = 1, 2, ... (seed 002 numbering).
    N, S, K, d : int
        Clients, clients per round, local steps, dimension.
    eta_l, eta_g : float
        Local and global step sizes (for the adaptive optimisers eta_g is the server learning
        rate eta of Algorithm 2).
    mu : float | None
        FedProx proximal weight (local steps on f_i(y) + mu/2 ||y - x||^2); None otherwise.
    counts : ndarray of int64 (N,)
        Client record counts n_i (used by the weighted mode; reported by every client).
    x : ndarray (d,)
        Server model x_{r-1} at the start of the round.
    c : ndarray (d,) | None
        SCAFFOLD server control c^{r-1}.
    c_clients : ndarray (N, d) | None
        SCAFFOLD client controls c_i^{r-1}.
    sampled : ndarray of int64 (S,)
        The sampled set S_r (0-based client indices, ascending).
    oracle : callable (i, y) -> ndarray (d,)
        Client i's stochastic gradient at y (see the module docstring).
    m, v : ndarray (d,) | None
        The adaptive optimisers' moments m_{t-1}, v_{t-1} (None otherwise).
    beta_1, beta_2, tau : float | None
        The adaptive optimisers' decay rates and adaptivity (None otherwise).
    """

    algorithm: str
    option: str | None
    mode: str | None
    round: int
    N: int
    S: int
    K: int
    d: int
    eta_l: float
    eta_g: float
    mu: float | None
    counts: np.ndarray
    x: np.ndarray
    c: np.ndarray | None
    c_clients: np.ndarray | None
    sampled: np.ndarray
    oracle: object = field(repr=False)
    m: np.ndarray | None = None
    v: np.ndarray | None = None
    beta_1: float | None = None
    beta_2: float | None = None
    tau: float | None = None


@dataclass(frozen=True)
class LocalSGDStep:
    """What one time step t of Local SGD (Stich, Algorithm 1; seed 002) receives.

    Attributes
    ----------
    algorithm : str
        "local-sgd".
    t : int
        The time step t = 0, 1, ... (x_t -> x_{t+1}).
    n, workers, b, d : int
        Components f_j, workers, minibatch size, dimension.
    eta : float
        Step size eta_t.
    sync : bool
        Whether t + 1 is a synchronisation time (then every worker gets the workers' average of
        z_{t+1}).
    x : ndarray (workers, d)
        Worker iterates x_t^k.
    draws : ndarray of int64 (workers, b)
        The component indices i_{t,q}^k drawn for this step (0-based).
    oracle : callable (j, y) -> ndarray (d,)
        The exact gradient of component j at y.
    """

    algorithm: str
    t: int
    n: int
    workers: int
    b: int
    d: int
    eta: float
    sync: bool
    x: np.ndarray
    draws: np.ndarray
    oracle: object = field(repr=False)


class Adapter:
    """Optional base class documenting the protocol (duck typing suffices): subclasses implement
    :meth:`round` and, for SCAFFOLD, may implement :meth:`init`."""

    algorithm: str | None = None
    option: str | None = None
    mode: str | None = None
    eta_g: float | None = None
    precision: str | None = None

    def round(self, inp):  # pragma: no cover - the protocol's signature
        """One round: ``inp`` a :class:`RoundInput` (or :class:`LocalSGDStep`) -> dict of arrays."""
        raise NotImplementedError

    def init(self, x0: np.ndarray, c0: np.ndarray) -> dict:
        """SCAFFOLD's initial state from x0 (d,) and c0 (N, d): the seed's c^0 = N^-1 sum_i c0_i
        (a subclass that does not override it is treated as having no ``init``)."""
        return {"x": np.array(x0, dtype=float), "c": np.mean(c0, axis=0), "c_clients": np.array(c0, dtype=float)}


def adapter_attribute(adapter, name: str):
    """The adapter's declared ``algorithm`` / ``option`` / ``mode`` (None when it declares none)."""
    v = getattr(adapter, name, None)
    return v if isinstance(v, str) else None


# ----------------------------------------------------------------------------- noise and oracle

class NoiseSource:
    """pyfed's oracle noise: xi = s * eps with eps uniform on {-1, +1}^d (Rademacher), so
    E[xi] = 0, Cov(xi) = s^2 I and E||xi||^2 = sigma^2 = d s^2 exactly; ``s`` is a dyadic
    rational, so every noise value is an exact float. Draws are fixed by the key
    (seed, rung, replicate, round, client, call): ``numpy.random.default_rng`` of that key.

    Parameters
    ----------
    scale : Fraction
        s (0 for no noise).
    d : int
    key : tuple of int
        (seed, rung index, replicate); the round, client and call index are appended per draw.
    """

    def __init__(self, scale: Fraction, d: int, key: tuple):
        self.scale = Fraction(scale)
        self.d = d
        self.key = tuple(int(k) for k in key)
        self._cache: dict = {}

    def signs(self, r: int, i: int, j: int) -> np.ndarray:
        """eps of client i's j-th call in round r: int64 (d,) of +-1."""
        k = (r, i, j)
        e = self._cache.get(k)
        if e is None:
            if self.scale == 0:
                e = np.zeros(self.d, dtype=np.int64)
            else:
                e = np.random.default_rng(list(self.key) + [r, i, j]).integers(0, 2, size=self.d) * 2 - 1
            self._cache[k] = e
        return e


class RecordingOracle:
    """The oracle handed to an adapter for one round: exact client gradient plus noise, rounded
    once; records every call as (client, call index, point).

    Parameters
    ----------
    grad_exact : callable (i, y Fractions (d,)) -> Fractions (d,)
    N, d, r : int
    noise : NoiseSource
    """

    def __init__(self, grad_exact, N: int, d: int, r: int, noise: NoiseSource, what: str = "client"):
        self._grad = grad_exact
        self.N, self.d, self.r = N, d, r
        self.noise = noise
        self.what = what
        self.calls: list = []          # (i, j, y float64 (d,))
        self._count = [0] * N

    def count(self, i: int) -> int:
        return self._count[i]

    def __call__(self, i, y):
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= int(i) < self.N:
            raise AdapterError(f"called the oracle with {self.what} {i!r} (must be an integer 0..{self.N - 1})")
        i = int(i)
        try:
            ya = np.array(y, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            raise AdapterError(f"called the oracle of {self.what} {i} with a point that is not a numeric array") from None
        if ya.shape != (self.d,):
            raise AdapterError(f"called the oracle of {self.what} {i} with a point of shape {np.shape(y)} "
                               f"(expected ({self.d},))")
        if not np.all(np.isfinite(ya)):
            raise AdapterError(f"called the oracle of {self.what} {i} at a point with NaN or infinite entries")
        j = self._count[i]
        self._count[i] += 1
        self.calls.append((i, j, ya.copy()))
        g = self._grad(i, [Fraction(float(v)) for v in ya])
        eps = self.noise.signs(self.r, i, j)
        s = self.noise.scale
        return np.array([float(g[k] + s * int(eps[k])) for k in range(self.d)], dtype=np.float64)


# ----------------------------------------------------------------------------- calling the adapter

def _round_callable(adapter):
    if hasattr(adapter, "round") and callable(adapter.round):
        return adapter.round
    if callable(adapter):
        return adapter
    raise AdapterError(f"{type(adapter).__name__} is neither callable nor has a round(inp) method")


def _describe_exc(exc: BaseException) -> str:
    msg = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__


def _array(where: str, key: str, value, shape) -> np.ndarray:
    if hasattr(value, "detach") and hasattr(value, "float"):  # a torch tensor (bfloat16 has no numpy dtype)
        value = value.detach().float().cpu().numpy()
    try:
        a = np.array(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise AdapterError(f"{where}: `{key}` is not a numeric array (got {type(value).__name__})") from None
    if a.shape != shape:
        raise AdapterError(f"{where}: `{key}` has shape {a.shape}, expected {shape}")
    if not np.all(np.isfinite(a)):
        bad = int(np.count_nonzero(~np.isfinite(a)))
        raise AdapterError(f"{where}: `{key}` has {bad} NaN or infinite entr{'y' if bad == 1 else 'ies'}")
    return a


class Outputs(dict):
    """An adapter's validated outputs (float64 arrays by key) and ``precision``: the working
    precision its arrays' dtypes show (:func:`pyfed.conform.precision.detect_precision`), or None."""

    precision: str | None = None


def _outputs(where: str, out, shapes: dict, optional: dict | None = None) -> Outputs:
    """Validate an adapter's returned state against ``shapes`` {key: shape} (and the ``optional``
    keys when present)."""

    if isinstance(out, np.ndarray) and list(shapes) == ["x"]:
        out = {"x": out}
    if not hasattr(out, "keys") or not hasattr(out, "__getitem__"):
        raise AdapterError(f"{where}: returned {type(out).__name__}, expected a dict with "
                           + ", ".join(f"`{k}` {s}" for k, s in shapes.items()))
    missing = [k for k in shapes if k not in out]
    if missing:
        raise AdapterError(f"{where}: the returned dict has no " + ", ".join(f"`{k}`" for k in missing)
                           + " (expected " + ", ".join(f"`{k}` {s}" for k, s in shapes.items()) + ")")
    res = Outputs({k: _array(where, k, out[k], s) for k, s in shapes.items()})
    for k, s in (optional or {}).items():
        if k in out and out[k] is not None:
            res[k] = _array(where, k, out[k], s)
    res.precision = detect_precision([out[k] for k in res])
    return res


def call_round(adapter, inp, shapes: dict, optional: dict | None = None) -> Outputs:
    """Run the adapter's round on ``inp`` and validate its output against ``shapes``.

    Raises :class:`AdapterError` (one line: where, what) when the adapter raises, returns
    something that is not the expected dict of finite arrays, or misuses the oracle."""
    fn = _round_callable(adapter)
    where = f"round {inp.round}" if hasattr(inp, "round") else f"time step {inp.t}"
    try:
        with np.errstate(all="ignore"):
            out = fn(inp)
    except AdapterError:
        raise
    except Exception as exc:  # noqa: BLE001 -- the user's code: any exception is a broken adapter
        raise AdapterError(f"{where} raised {_describe_exc(exc)}") from None
    return _outputs(where, out, shapes, optional)


def call_init(adapter, x0: np.ndarray, c0, shapes: dict, default: dict | None = None) -> tuple[dict, bool]:
    """(initial state, whether the adapter built it): ``adapter.init(x0, c0)`` (SCAFFOLD) or
    ``adapter.init(x0)`` (``c0`` None: the adaptive optimisers) if it has one, else ``default``
    (SCAFFOLD: the seed's initial state, c^0 = N^-1 sum_i c0_i, rounded to float)."""
    init = getattr(adapter, "init", None)
    if getattr(init, "__func__", None) is Adapter.init:      # the base class's documentation default
        init = None
    if init is None or not callable(init):
        if default is not None:
            return dict(default), False
        c = np.array([float(sum((Fraction(float(v)) for v in col), Fraction(0)) / len(col)) for col in np.asarray(c0).T])
        return {"x": np.array(x0, dtype=float), "c": c.reshape(shapes["c"]), "c_clients": np.array(c0, dtype=float)}, False
    args = (np.array(x0, dtype=float),) if c0 is None else (np.array(x0, dtype=float), np.array(c0, dtype=float))
    try:
        with np.errstate(all="ignore"):
            out = init(*args)
    except Exception as exc:  # noqa: BLE001
        raise AdapterError(f"init raised {_describe_exc(exc)}") from None
    return _outputs("init", out, shapes), True


def readonly(a) -> np.ndarray:
    """A read-only float64 copy (what adapters receive)."""
    out = np.array(a, dtype=np.float64)
    out.setflags(write=False)
    return out


# ----------------------------------------------------------------------------- loading

def load_adapter(text: str):
    """The adapter named by ``text``: ``module:object`` (an importable module) or
    ``path.py:object`` (a file, imported as a script would be: its directory is on ``sys.path``
    while it loads, so it may import its neighbours). ``:object`` may be omitted when the module
    defines ``adapter``. A class is instantiated without arguments.

    Raises :class:`InputError` naming ``ADAPTER`` (exit 2) for a missing file, module or object,
    or a module that fails to import (its exception in one line)."""
    import importlib
    import importlib.util

    if not isinstance(text, str) or not text.strip():
        raise InputError("ADAPTER", "is empty: give module:object or path.py:object")
    target, sep, name = text.strip().rpartition(":")
    if not sep or (len(target) == 1 and target.isalpha()):  # no ':' (or a drive letter only)
        target, name = text.strip(), "adapter"
    if not name.isidentifier():
        raise InputError("ADAPTER", f"{name!r} is not a Python name (give module:object or path.py:object)")
    try:
        if target.endswith(".py") or "/" in target or "\\" in target:
            path = Path(target)
            if not path.is_file():
                raise InputError("ADAPTER", f"file {target!r} not found")
            modname = f"pyfed_adapter_{path.stem}_{abs(hash(str(path.resolve()))) % 10**8}"
            spec = importlib.util.spec_from_file_location(modname, path)
            module = importlib.util.module_from_spec(spec)
            folder = str(path.resolve().parent)
            sys.path.insert(0, folder)
            sys.modules[modname] = module
            try:
                spec.loader.exec_module(module)
            finally:
                try:
                    sys.path.remove(folder)
                except ValueError:
                    pass
        else:
            module = importlib.import_module(target)
    except InputError:
        raise
    except ModuleNotFoundError as exc:
        raise InputError("ADAPTER", f"cannot import {target!r}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 -- the user's module failed while importing
        raise InputError("ADAPTER", f"importing {target!r} raised {_describe_exc(exc)}") from None
    if not hasattr(module, name):
        raise InputError("ADAPTER", f"{target!r} has no {name!r}")
    obj = getattr(module, name)
    if isinstance(obj, type):
        try:
            obj = obj()
        except Exception as exc:  # noqa: BLE001
            raise InputError("ADAPTER", f"{name}() raised {_describe_exc(exc)}") from None
    if not (callable(obj) or callable(getattr(obj, "round", None))):
        raise InputError("ADAPTER", f"{text!r} is neither callable nor has a round(inp) method")
    return obj
