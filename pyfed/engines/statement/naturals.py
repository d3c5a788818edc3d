"""Natural-number parameters moved into a statement's hypotheses.

A statement may pin or bound its ℕ parameters (``N = 2 →``, ``S = N →``, ``40 ≤ τ →``,
``2 * K ≤ T →``). A search whose candidates keep their own N, S, K, T (or τ) would then decide
no instance at all ("none of the instances tried satisfies the hypotheses"). Both searches
(SCAFFOLD runs, :mod:`.candidates`; FedAvg runs, :mod:`.fedavg_search`) instead move a
candidate's naturals to the nearest values the hypotheses admit, with
:func:`nearest_naturals`: the search over assignments is shared, the hypotheses are decided by
each search's own exact evaluator (the ``admissible`` callback), so the values a candidate ends
with are admissible by the same test its verdict uses.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

__all__ = ["nearest_naturals", "numerals_of", "natural_hypotheses", "moved_note", "TYPE_NAMES"]

#: Identifiers that name a type inside a cast, ``(S : ℝ)``: not parameters.
TYPE_NAMES = frozenset({"ℝ", "ℕ", "ℚ", "ℤ", "Real", "Nat", "Rat", "Int"})

#: At most this many assignments are tested per candidate (each test is one exact evaluation of
#: the hypotheses; moving one or two naturals is found long before).
MAX_TRIES = 4000


def numerals_of(values) -> set[int]:
    """The positive integers among ``values`` (the numerals of the hypotheses that mention a
    natural; Fractions with denominator 1 and ints)."""
    out = set()
    for v in values:
        f = Fraction(v)
        if f.denominator == 1 and f > 0:
            out.add(int(f))
    return out


def natural_hypotheses(hyps, movable, naturals) -> list:
    """The hypotheses of ``hyps`` (each with a ``node`` of the statement's term tree) whose
    identifiers are all naturals (``naturals``, or a type name of a cast) and include one of
    ``movable``: ``N = 2``, ``S = N``, ``(S : ℝ) ≤ 3``, ``40 ≤ τ``."""
    out = []
    for h in hyps:
        if getattr(h, "node", None) is None:
            continue
        ids = {n.value for n in h.node.walk() if n.kind == "ident"}
        if ids & set(movable) and ids <= set(naturals) | TYPE_NAMES:
            out.append(h)
    return out


def moved_note(start: dict, found: dict, how: dict | None = None) -> str:
    """The candidate's note on its moved naturals, ``"naturals moved into the hypotheses: now
    S = 2 (was 1), T = 2 (was 10)"``; ``how[name]`` adds to a name's parenthesis (", its clients
    repeated")."""
    how = how or {}
    parts = [f"{n} = {found[n]} (was {start[n]}{how.get(n, '')})" for n in start if found[n] != start[n]]
    return "naturals moved into the hypotheses: now " + ", ".join(parts)


def _product(xs) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def nearest_naturals(current: dict, numerals: set, admissible, *, caps: dict, lower: int = 1) -> dict | None:
    """The assignment of the naturals closest to ``current`` that ``admissible`` accepts.

    Parameters
    ----------
    current : dict name -> int
        The candidate's values (the names a search may move: N, S, K, T, τ, free ℕ parameters).
    numerals : set of int
        The positive integer numerals of the hypotheses that mention these names; every name may
        take c - 1, c, c + 1 and 2c for each numeral c, and the current value of any other name
        (``S = N``).
    admissible : callable dict -> bool
        The hypotheses that involve only naturals, decided exactly on an assignment.
    caps : dict name -> int
        The largest value tried per name (a candidate's cost grows with N, K, T); a current value
        above its cap is kept as an option.
    lower : int
        The smallest value tried (1: a run has at least one client, local step and round).

    Returns the current assignment when admissible, else the first admissible one in the order
    (number of names changed, total absolute change, values in name order), or None when none of
    the first :data:`MAX_TRIES` assignments in that order is admissible.
    """
    names = list(current)
    if admissible(dict(current)):
        return dict(current)
    hints = set(numerals) | {int(v) for v in current.values()}
    options = {}
    for n in names:
        vals = {int(current[n])}
        for c in hints:
            vals |= {c - 1, c, c + 1, 2 * c}
        options[n] = sorted(v for v in vals if lower <= v <= caps.get(n, 64) or v == current[n])
    tries = 0
    for k in range(1, len(names) + 1):
        layer = []
        size = sum(_product(len(options[n]) - 1 for n in moved) for moved in itertools.combinations(names, k))
        if size > 50 * MAX_TRIES:      # too many to sort; the nearer layers were tried
            return None
        for moved in itertools.combinations(names, k):
            for vals in itertools.product(*[[v for v in options[n] if v != current[n]] for n in moved]):
                a = dict(current)
                a.update(zip(moved, vals))
                layer.append((sum(abs(a[n] - current[n]) for n in names), [a[n] for n in names], a))
        layer.sort(key=lambda t: (t[0], t[1]))
        for _, _, a in layer:
            tries += 1
            if tries > MAX_TRIES:
                return None
            if admissible(a):
                return a
    return None
