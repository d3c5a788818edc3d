"""The purity rule, checked: does an adapter keep state between calls?

:func:`snapshot` fingerprints an adapter's attributes (``vars(adapter)``): arrays by dtype, shape
and bytes, containers element by element, random generators by their bit generator's state,
other objects by their own attributes (to :data:`DEPTH` levels), anything else by identity.
:func:`changed` names the attributes whose fingerprint differs between two snapshots.
:func:`fresh_copy` is the copy of the adapter as it was before its first call that a stateful
adapter's sampling paths each start from. Source of the rule: :mod:`pyfed.conform.protocol`.
"""

from __future__ import annotations

import copy
import hashlib

import numpy as np

__all__ = ["snapshot", "changed", "fresh_copy", "DEPTH"]

#: How deep :func:`snapshot` follows objects held by the adapter.
DEPTH = 4


def _fp(v, depth: int):
    if isinstance(v, np.ndarray):
        return ("array", str(v.dtype), v.shape, hashlib.sha1(np.ascontiguousarray(v).tobytes()).hexdigest())
    if isinstance(v, (bool, int, float, complex, str, bytes, type(None), np.generic)):
        return ("value", repr(v))
    if isinstance(v, np.random.Generator):
        return ("rng", repr(v.bit_generator.state))
    if isinstance(v, np.random.RandomState):
        st = v.get_state()
        return ("rng", st[0], hashlib.sha1(np.asarray(st[1]).tobytes()).hexdigest(), st[2:])
    if depth <= 0:
        return ("id", id(v))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(_fp(x, depth - 1) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple((repr(k), _fp(x, depth - 1)) for k, x in v.items()))
    if isinstance(v, (set, frozenset)):
        return ("set", tuple(sorted(repr(x) for x in v)))
    if callable(v) and not hasattr(v, "__dict__"):
        return ("id", id(v))
    if hasattr(v, "detach") and hasattr(v, "numpy"):  # a torch tensor
        try:
            return _fp(v.detach().float().cpu().numpy(), depth)
        except Exception:  # noqa: BLE001 -- a tensor that cannot be read: its identity
            return ("id", id(v))
    attrs = getattr(v, "__dict__", None)
    if isinstance(attrs, dict):
        return (type(v).__name__, tuple((k, _fp(x, depth - 1)) for k, x in sorted(attrs.items())
                                        if not k.startswith("__")))
    return ("id", id(v))


def snapshot(adapter) -> dict:
    """{attribute name: fingerprint} of ``vars(adapter)`` ({} for an object without attributes,
    e.g. a plain function)."""
    attrs = getattr(adapter, "__dict__", None)
    if not isinstance(attrs, dict) or isinstance(adapter, type(snapshot)):
        return {}
    return {k: _fp(v, DEPTH) for k, v in attrs.items() if not k.startswith("__")}


def changed(before: dict, after: dict) -> list[str]:
    """The attributes added, removed or changed between two snapshots, sorted."""
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


def fresh_copy(adapter):
    """``copy.deepcopy(adapter)``, or None when it cannot be copied (the reason is then the
    exception's text, returned as a string)."""
    try:
        return copy.deepcopy(adapter)
    except Exception as exc:  # noqa: BLE001 -- the user's object: any failure means "cannot copy"
        return f"{type(exc).__name__}: {exc}"
