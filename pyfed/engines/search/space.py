"""What a model tells the search by optimisation about a statement: its *search space*.

A :class:`SearchSpace` is a list of :class:`Config` (one discrete choice each: the naturals of the
statement enumerated over small sizes, a function family, an initialisation, ...), each with
continuous :class:`Axis` (a real parameter over its whole admissible range, on a logarithmic scale
where it spans decades: a global step up to 10³ when nothing bounds it, a start far from the
minimiser, a tiny curvature) and optional seed points (the model's structured candidates). The
engine (:mod:`pyfed.engines.search.optimise`) maps the unit cube to an axis' values
(:meth:`Axis.value`) and asks the model for an exact decision of each point
(:meth:`pyfed.models.protocol.Model.evaluate_point`, a :class:`PointOutcome` whose ``margin``
steers the optimiser); :meth:`SearchSpace.reach` says how far the space goes, for the report of a
search that found nothing.
"""

from __future__ import annotations

import contextvars
import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction

__all__ = ["Axis", "Config", "SearchSpace", "PointOutcome", "NoSearchSpace", "fmt_number", "coarse_numbers",
           "short_rational", "reach_text", "bisect"]


class NoSearchSpace(Exception):
    """A model has no search space for a statement; the message says why (the report names it)."""


#: The relative tolerance within which :func:`short_rational` replaces a number by the simplest
#: rational (None: the caller's resolution); the engine sets it while it simplifies a witness.
_COARSE: contextvars.ContextVar = contextvars.ContextVar("pyfed_search_coarse", default=None)


@contextmanager
def coarse_numbers(rel: float | None):
    """Within the block, :func:`short_rational` gives the simplest rational within a relative ``rel``
    (the engine's last stage re-decides a witness with simpler numbers)."""
    token = _COARSE.set(rel)
    try:
        yield
    finally:
        _COARSE.reset(token)


def short_rational(x: float, bits: int = 12, coarse: float | None = None) -> Fraction:
    """A short exact rational for the float ``x``, how a model turns a point of its search space
    into exact data: within :func:`coarse_numbers` (or with ``coarse``) the rational with the
    smallest denominator within that relative tolerance of ``x``; else ``x`` rounded to ``bits``
    significant bits (a dyadic rational). 0 for 0 or a non-finite ``x``."""
    coarse = coarse if coarse is not None else _COARSE.get()
    if x == 0 or not math.isfinite(x):
        return Fraction(0)
    if coarse:
        lo, hi = sorted((x * (1 - coarse), x * (1 + coarse)))
        return _simplest(Fraction(lo), Fraction(hi))
    e = math.floor(math.log2(abs(x))) - bits
    return Fraction(round(x / 2.0 ** e)) * (Fraction(2) ** e)


def _simplest(lo: Fraction, hi: Fraction) -> Fraction:
    """The rational with the smallest denominator in [lo, hi] (Stern–Brocot)."""
    if lo <= 0 <= hi:
        return Fraction(0)
    if hi < 0:
        return -_simplest(-hi, -lo)
    fl = math.floor(lo)
    if fl + 1 <= hi or fl == lo:
        return Fraction(fl if fl == lo else fl + 1)
    return fl + 1 / _simplest(1 / (hi - fl), 1 / (lo - fl))


def bisect(ok, good, bad, steps: int) -> tuple:
    """The boundary of what ``ok`` admits between ``good`` (admitted) and ``bad`` (not), bisected
    ``steps`` times: ``(good, bad)``, the last admitted and refused points (exact when the points
    are Fractions)."""
    for _ in range(int(steps)):
        mid = (good + bad) / 2
        if ok(mid):
            good = mid
        else:
            bad = mid
    return good, bad


def fmt_number(v) -> str:
    """A range end for the report: integers as they are, other numbers with 3 significant digits."""
    if isinstance(v, int) or float(v).is_integer() and abs(v) < 1e6:
        return str(int(v))
    return f"{float(v):.3g}"


@dataclass(frozen=True)
class Axis:
    """One continuous parameter of a configuration.

    name : the parameter (the statement's symbol where it has one: ``eta_g``, ``K``, ``x0 scale``);
    lo, hi : its range (lo < hi; lo > 0 when ``log``); log : sampled uniformly in log(value);
    integer : rounded to an integer (a natural spanning decades: K, T, τ); why : what sets the range
    (``"unbounded by the hypotheses"``, ``"up to the largest admissible value"``)."""

    name: str
    lo: float
    hi: float
    log: bool = True
    integer: bool = False
    why: str = ""
    shown: str = ""         # the range in words when the unit cube is mapped otherwise (a symmetric log)

    def value(self, u: float):
        """The value at ``u`` in [0, 1] (clipped): lo at 0, hi at 1."""
        u = min(1.0, max(0.0, float(u)))
        if self.log and self.lo > 0:
            v = math.exp(math.log(self.lo) + u * (math.log(self.hi) - math.log(self.lo)))
        else:
            v = self.lo + u * (self.hi - self.lo)
        if self.integer:
            return int(min(self.hi, max(self.lo, round(v))))
        return v

    def unit(self, v) -> float:
        """The inverse of :meth:`value` (a seed's value placed in the unit cube)."""
        v = float(v)
        if self.hi == self.lo:
            return 0.0
        if self.log and self.lo > 0:
            v = max(v, self.lo)
            return min(1.0, max(0.0, (math.log(v) - math.log(self.lo)) / (math.log(self.hi) - math.log(self.lo))))
        return min(1.0, max(0.0, (v - self.lo) / (self.hi - self.lo)))

    def describe(self) -> str:
        if self.shown:
            return f"{self.name} {self.shown}"
        scale = " (log scale)" if self.log and self.lo > 0 and self.hi / max(self.lo, 1e-300) >= 100 else ""
        return f"{self.name} in [{fmt_number(self.lo)}, {fmt_number(self.hi)}]{scale}"


@dataclass
class Config:
    """One discrete choice of a statement's search space: ``label`` (in words, for progress and
    records), ``data`` (the model's own description: naturals, family, ...), ``axes`` (its
    continuous parameters) and ``seeds`` (points of the unit cube tried first, e.g. the model's
    structured candidates placed on the axes)."""

    label: str
    data: dict
    axes: tuple = ()
    seeds: list = field(default_factory=list)

    def values(self, u) -> dict:
        """The axes' values at the unit-cube point ``u`` (length ``len(axes)``)."""
        return {a.name: a.value(x) for a, x in zip(self.axes, u)}


@dataclass
class SearchSpace:
    """A statement's search space (module docstring): ``configs``; ``families`` (the function
    families drawn, by name); ``sizes`` ({natural: values enumerated}, in words); ``notes``
    (binders the search cannot draw, named: "cannot draw `grads : …`"); ``scale``: how many exact
    decisions the engine may spend relative to its default (a model whose decisions are costly
    asks for fewer)."""

    configs: list
    families: list = field(default_factory=list)
    sizes: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)
    scale: float = 1.0

    def ranges(self) -> dict:
        """{axis name: "name in [lo, hi] …"}: the widest range of each axis over the configurations."""
        out: dict = {}
        for c in self.configs:
            for a in c.axes:
                lo, hi = out.get(a.name, (a.lo, a.hi, a))[:2]
                out[a.name] = (min(lo, a.lo), max(hi, a.hi), a)
        return {k: Axis(k, lo, hi, a.log, a.integer, shown=a.shown).describe() for k, (lo, hi, a) in out.items()}

    def reach(self, evaluations: int = 0) -> dict:
        """How far the search went, for a row without counterexample: configurations, the naturals'
        sizes, the families, each axis' range, the points evaluated, the binders not drawn."""
        return {"configurations": len(self.configs), "sizes": dict(self.sizes), "families": list(self.families),
                "ranges": sorted(self.ranges().values()), "points": int(evaluations),
                "not_drawn": list(self.notes)}


def point_margin(status: str, lhs, rhs, to_float, relation: str = "≤", *, fallback: bool = True) -> float | None:
    """The margin a model reports for a decided point (:class:`PointOutcome`): (left − right) /
    (|left| + |right|) oriented by ``relation`` so that positive means violated (``≥``, ``>``
    flip the sign; ``=``: the relative gap when violated), kept on the side of the exact
    ``status`` (a violation's margin is positive, a hold's at most 0); ``to_float`` turns a side
    into a float (it only steers the optimiser). None when ``status`` is neither ``holds`` nor
    ``violated``; ±1 when a side has no finite float (None with ``fallback`` False)."""
    if status not in ("holds", "violated"):
        return None
    fallback = (1.0 if status == "violated" else -1.0) if fallback else None
    if lhs is None or rhs is None:
        return fallback
    try:
        a, b = float(to_float(lhs)), float(to_float(rhs))
    except Exception:        # noqa: BLE001 -- a side without a float: only the exact status steers
        return fallback
    if not (math.isfinite(a) and math.isfinite(b)):
        return fallback
    scale = abs(a) + abs(b) + 1e-300
    if relation == "=":
        return abs(a - b) / scale if status == "violated" else -1.0
    m = (b - a if relation in ("≥", ">") else a - b) / scale
    return max(m, 1e-12) if status == "violated" else min(m, 0.0)


@dataclass
class PointOutcome:
    """The exact decision of one point of a search space.

    status : ``holds``, ``violated``, ``outside`` (a hypothesis fails) or ``undecided``;
    margin : (left − right) / (|left| + |right|) as a float, in [−1, 1] (positive: violated; it only
        steers the optimiser), or None when there is no number (outside, undecided);
    record : the model's record of the decided instance (what its verdict is built from);
    description : the instance in words."""

    status: str
    margin: float | None = None
    record: object = None
    description: str = ""


def reach_text(reach: dict) -> str:
    """One line for the report: how far a search without counterexample went."""
    if not reach:
        return ""
    if "not_searched" in reach:
        return f"no search by optimisation: {reach['not_searched']}"
    parts = [f"search by optimisation: {reach.get('points', 0)} points (a violation only after an exact re-check)"]
    if reach.get("cross_check"):
        parts.append(reach["cross_check"])
    if reach.get("configurations"):
        parts.append(f"{reach['configurations']} configurations")
    if reach.get("sizes"):
        parts.append("sizes " + ", ".join(f"{k} {v}" for k, v in reach["sizes"].items()))
    if reach.get("families"):
        parts.append("families " + ", ".join(reach["families"]))
    if reach.get("ranges"):
        parts.append("; ".join(reach["ranges"]))
    if reach.get("closest"):
        margin = float(reach["closest"]["margin"]) + 0.0       # + 0.0: a margin rounded to -0 reads 0
        parts.append(f"closest margin {margin:.3g} (at {reach['closest']['instance']})")
    if reach.get("not_drawn"):
        parts.append("not drawn: " + "; ".join(reach["not_drawn"]))
    return "; ".join(parts)
