"""Constant profile of a statement: :func:`constant_profile` varies each numeric constant of the
right side (the model's 9, 12, 14, 70 inside ``convexRHS`` / ``nonconvexRHS``, and the file's own
literals) and of each step-size hypothesis (81, 15, 24, …), others fixed, and reports the value
at which none of the decided instances violates the statement, with the instance that pins it. On
a finite set of instances this is evidence, not a proof, and the report says so. Its candidates
(the unrelaxed search, then one search per step hypothesis with that hypothesis relaxed) go
through one index-ordered map, serially or on a :class:`pyfed.parallel.Pool`, with identical
output."""

from __future__ import annotations

from fractions import Fraction

import sympy

from ...engines.statement.search import Record, exact_text
from ...errors import InputError
from ...evaluation.numbers import EvaluationError, Undecided, compare, decide_sign, to_exact
from ...exact import as_float, enclosure, outward_decimal, rational_str
from .candidates import structured_count
from .constants import literals, skipped_numerals
from .exact import sides_exact
from .hypotheses import evaluate_hypotheses
from .instance import instance_from_json, instance_to_json
from .reader import ScaffoldRunStatement
from .search import _map

__all__ = ["constant_profile", "profile_size", "PERSIST_NOTE", "PERSIST_HALVINGS"]


def _hyp_groups(lits) -> list:
    """[(hypothesis key, [its literals])] in order of first appearance: one relaxed search per
    hypothesis serves all of its numerals."""
    groups: dict = {}
    for lit in lits:
        if lit.where == "hypothesis":
            groups.setdefault(lit.hyp, []).append(lit)
    return list(groups.items())


def profile_size(st, budget: int, only=None) -> int:
    """Number of candidates :func:`constant_profile` evaluates (for a progress bar's total):
    ``(structured_count + budget)`` once for the right side and once per relaxed hypothesis."""
    lits = [lit for lit in literals(st) if only is None or lit.key in set(only)]
    return (structured_count(st) + int(budget)) * (1 + len(_hyp_groups(lits)))


def constant_profile(st, *, seed: int = 0, budget: int = 24, progress=None, pool=None, only=None) -> dict:
    """The constant profile of ``st`` (see the module docstring).

    Right-side constants are profiled on the search's decided instances; the numerals of each
    step hypothesis on instances drawn with that hypothesis relaxed (steps up to 243 times the
    admissible one), decided exactly. All candidates go through one map (``pool``: a
    :class:`pyfed.parallel.Pool`, None: serially here; ``progress(k)`` as k of
    :func:`profile_size` candidates finish); the output does not depend on the pool.

    Returns ``{"statement", "source", "seed", "budget", "instances": N (decided instances of the
    unrelaxed search), "candidates": profile_size, "violated": None or {"index", "description",
    "lhs", "rhs"} (the statement is already violated at its own constants, inside its
    hypotheses: the first such candidate), "constants": [...]}``. Each constant has ``constant``
    (its value in the statement), ``direction`` ("at least": larger is safer, "at most"),
    ``needed`` (exact "p/q" of the threshold, or None), ``needed_float``, ``needed_decimal`` (6
    significant digits rounded outward, toward the safe side: a certified bound on the
    threshold), ``strict``, ``not_needed`` (a right-side constant whose threshold is <= 0: any
    value >= 0 works on these instances), ``violated_at_own_value`` (the statement's own value is
    on the unsafe side), ``pinned_by`` (the instance's index, description and exact JSON),
    ``decided``, ``note``, ``excludes_violation`` (hypothesis constants: True when the threshold
    shown excludes the violations drawn; False when no value does (every value admits one, or the
    pinning violation persists with ηl halved, :func:`_smaller_steps`, with
    ``excludes_violation_reason``); None for right-side constants and relaxed searches without
    a violation) and a ``statement`` sentence. Same seed and budget give identical
    output. ``only``: profile just the constants with these keys (the unrelaxed search is always
    run: it decides ``violated``); InputError for an unknown key."""
    if not isinstance(st, ScaffoldRunStatement):
        raise InputError("statement", f"{st.name} is a {st.family}: the constant profile is for statements about "
                                      "a SCAFFOLD run")
    lits = literals(st)
    if only is not None:
        unknown = set(only) - {lit.key for lit in lits}
        if unknown:
            raise InputError("only", f"no such constant: {', '.join(sorted(unknown))}; the constants are "
                                     f"{', '.join(lit.key for lit in lits)}")
        lits = [lit for lit in lits if lit.key in set(only)]
    rhs_keys = tuple(lit.key for lit in lits if lit.where == "rhs")
    groups = _hyp_groups(lits)
    idx = list(range(structured_count(st) + int(budget)))
    tasks = [(seed, i, (), rhs_keys) for i in idx]
    for hyp, hl in groups:
        tasks += [(seed, i, (hyp,), tuple(lit.key for lit in hl)) for i in idx]
    records = _map(st, tasks, pool, progress)
    parts = [records[k * len(idx):(k + 1) * len(idx)] for k in range(1 + len(groups))]

    def decided(recs):
        return [r for r in recs if r.status in ("holds", "violated")]

    base = decided(parts[0])
    out = {"statement": st.name, "source": st.source, "seed": seed, "budget": budget, "instances": len(base),
           "candidates": len(tasks), "violated": None, "constants": [], "skipped": skipped_numerals(st)}
    viol = [r for r in base if r.status == "violated"]
    if viol:
        out["violated"] = {"index": viol[0].index, "description": viol[0].description, "lhs": exact_text(viol[0].lhs),
                           "rhs": exact_text(viol[0].rhs)}
    for lit in lits:
        if lit.where == "rhs":
            out["constants"].append(_profile_rhs(lit, base))
    for k, (hyp, hl) in enumerate(groups):
        dec = decided(parts[k + 1])
        for lit in hl:
            out["constants"].append(_profile_hyp(lit, dec, st))
    return out


def _fmt(v):
    v = to_exact(v)
    if isinstance(v, Fraction):
        return rational_str(v)
    return str(v)


def _float(v):
    v = to_exact(v)
    return as_float(v) if isinstance(v, Fraction) else float(sympy.N(v, 30))


def _display(needed, own, up: bool) -> str:
    """Short certified text of a threshold: itself when its "p/q" is short (<= 12 characters);
    ``own ± δ`` (δ rounded toward the safe side) when it lies within a relative 10^-4 of the
    statement's own value ``own`` (a violation at a hypothesis boundary: 24.0001 would hide how
    close it is); else :func:`outward_decimal`."""
    text = _fmt(needed)
    if len(text) <= 12:
        return text
    lo, hi = enclosure(needed)
    own = Fraction(own)
    if own != 0 and abs((lo if up else hi) - own) < abs(own) / 10**4:
        diff = ((hi if up else lo) - own)
        if diff != 0:
            p = outward_decimal(diff, up=up)
            return f"{_fmt(own)} {'-' if p.startswith('-') else '+'} {p.lstrip('-')}"
    return outward_decimal(needed, up=up)


def _cmp(direction, strict) -> str:
    return (">" if strict else ">=") if direction == "at least" else ("<" if strict else "<=")


def _entry(lit, n, needed, strict, pin, direction, note, *, not_needed=False):
    e = {"key": lit.key, "constant": _fmt(lit.value), "description": lit.description, "location": lit.location,
         "decided": n, "direction": direction, "needed": None if needed is None else _fmt(needed),
         "needed_float": None if needed is None else _float(needed),
         "needed_decimal": None if needed is None else outward_decimal(needed, up=direction == "at least"),
         "strict": strict, "not_needed": bool(not_needed), "violated_at_own_value": False, "note": note,
         "excludes_violation": None}
    if pin is not None:
        e["pinned_by"] = {"index": pin.index, "description": pin.description, "instance": pin.instance,
                          "lhs": exact_text(pin.lhs), "rhs": exact_text(pin.rhs)}
    cmp = _cmp(direction, strict)
    e["needed_display"] = None
    if needed is not None:
        s = decide_sign(lit.value - needed) if direction == "at least" else decide_sign(needed - lit.value)
        e["violated_at_own_value"] = bool(s < 0 or (s == 0 and strict))
        e["needed_display"] = _display(needed, lit.value, up=direction == "at least")
    if not_needed:
        e["statement"] = (f"{lit.description}: not needed on {n} exactly decided instances (any value >= 0 works; "
                          f"the threshold is {e['needed_decimal']})")
    elif needed is None:
        e["statement"] = f"{lit.description}: {note} (on {n} exactly decided instances)"
    else:
        t = e["needed_display"] + ("" if e["needed_display"] == e["needed"] else " (rounded toward the safe side)")
        e["statement"] = (f"{lit.description}: no violation on {n} exactly decided instances iff the constant is "
                          f"{cmp} {t}; the statement has {_fmt(lit.value)}")
        if note:
            e["statement"] += f" ({note})"
    return e


def _contains(piece, x) -> bool:
    lo, lc, hi, hc = piece
    if lo is not None:
        s = decide_sign(sympy.sympify(x) - sympy.sympify(lo))
        if s < 0 or (s == 0 and not lc):
            return False
    if hi is not None:
        s = decide_sign(sympy.sympify(hi) - sympy.sympify(x))
        if s < 0 or (s == 0 and not hc):
            return False
    return True


def _cmp_num(a, b) -> int:
    return decide_sign(sympy.sympify(a) - sympy.sympify(b))


def _intersect(A, B) -> list:
    """Intersection of two unions of intervals (see :func:`pyfed.models.scaffold.constants.safe_set`)."""
    out = []
    for (alo, alc, ahi, ahc) in A:
        for (blo, blc, bhi, bhc) in B:
            if alo is None:
                lo, lc = blo, blc
            elif blo is None:
                lo, lc = alo, alc
            else:
                s = _cmp_num(alo, blo)
                lo, lc = (alo, alc) if s > 0 else ((blo, blc) if s < 0 else (alo, alc and blc))
            if ahi is None:
                hi, hc = bhi, bhc
            elif bhi is None:
                hi, hc = ahi, ahc
            else:
                s = _cmp_num(ahi, bhi)
                hi, hc = (ahi, ahc) if s < 0 else ((bhi, bhc) if s > 0 else (ahi, ahc and bhc))
            if lo is not None and hi is not None:
                s = _cmp_num(lo, hi)
                if s > 0 or (s == 0 and not (lc and hc)):
                    continue
            out.append((lo, lc, hi, hc))
    return out


def _profile_rhs(lit, records):
    """The values of a right-side constant at which no decided instance is violated: on each
    instance an exact union of intervals (roots and poles of ``rhs(c) − lhs``, see
    :func:`~pyfed.models.scaffold.constants.safe_set`), intersected over the instances. The
    statement's own value lies in the result unless an instance violates the statement there;
    the report gives the interval around it (``at least``, ``at most``, ``between`` or ``any``)
    with the instances that pin its ends, or, for a statement violated at its own value, the
    nearest values that would exclude the violations drawn."""
    own = lit.value
    per = []
    for r in records:
        d = r.extra.get(lit.key) or {}
        if "safe" in d:
            per.append((r, d["safe"]))
    failed = _failed(lit, records)
    if not per:
        return _entry(lit, len(records), None, False, None, "at least", failed or "no decided instance depends on it")
    bad = [r for r, S in per if not any(_contains(p, own) for p in S)]
    if not bad:
        lo = hi = None
        lc = hc = False
        pin_lo = pin_hi = None
        for r, S in per:
            piece = next(p for p in S if _contains(p, own))
            if piece[0] is not None and (lo is None or _cmp_num(piece[0], lo) > 0):
                lo, lc, pin_lo = piece[0], piece[1], r
            if piece[2] is not None and (hi is None or _cmp_num(piece[2], hi) < 0):
                hi, hc, pin_hi = piece[2], piece[3], r
        violated_own = False
    else:
        common = [(None, False, None, False)]
        for _, S in per:
            common = _intersect(common, S)
        above = [p for p in common if p[0] is not None and _cmp_num(p[0], own) >= 0]
        below = [p for p in common if p[2] is not None and _cmp_num(p[2], own) <= 0]
        lo = hi = None
        lc = hc = False
        pin_lo = pin_hi = bad[0]
        up = min(above, key=lambda p: _float(p[0])) if above else None
        down = max(below, key=lambda p: _float(p[2])) if below else None
        if up is not None and (down is None or abs(_float(up[0]) - float(own)) <= abs(float(own) - _float(down[2]))):
            lo, lc = up[0], up[1]
        elif down is not None:
            hi, hc = down[2], down[3]
        violated_own = True
    if lo is not None and hi is not None:
        direction = "between"
    elif hi is not None:
        direction = "at most"
    elif lo is not None:
        direction = "at least"
    else:
        direction = "any"
    needed = lo if direction in ("at least", "between") else hi
    strict = (not lc) if direction in ("at least", "between") else (not hc)
    pin = pin_lo if direction in ("at least", "between") else pin_hi
    not_needed = direction == "any" or (direction == "at least" and decide_sign(sympy.sympify(lo)) <= 0)
    note = ""
    if violated_own and needed is None:
        note = "no value of it excludes the violations drawn"
    if failed:      # a threshold that could not be computed is not evidence that the constant is free
        not_needed = False
        note = failed if needed is None else f"{failed}; the value shown is from the others"
    e = _entry(lit, len(records), needed, strict, pin, "at least" if direction in ("between", "any") else direction,
               note, not_needed=not_needed and not violated_own)
    e["direction"] = direction
    e["violated_at_own_value"] = bool(violated_own)
    if direction == "between":
        e["needed_high"] = _fmt(hi)
        e["needed_high_decimal"] = outward_decimal(hi, up=False)
        e["needed_high_strict"] = not hc
        e["pinned_high_by"] = {"index": pin_hi.index, "description": pin_hi.description}
        e["statement"] = (f"{lit.description}: no violation on {len(records)} exactly decided instances iff the "
                          f"constant is {'>' if strict else '>='} {e['needed_display']} and "
                          f"{'<' if not hc else '<='} {_display(hi, own, up=False)}; the statement has {_fmt(own)}")
    if direction == "any" and not failed and violated_own:     # violated whatever its value
        e["statement"] = (f"{lit.description}: no value of it excludes the violations drawn (on {len(records)} "
                          "exactly decided instances)")
    elif direction == "any" and not failed:
        e["statement"] = (f"{lit.description}: no decided instance constrains it ({len(records)} exactly decided "
                          "instances hold for every value)")
    return e


def _failed(lit, records) -> str:
    """"" when every decided instance gave this constant's data, else a note saying on how many
    it could not be computed and why (the first reason)."""
    errs = [(r.extra.get(lit.key) or {}).get("error") for r in records]
    errs = [e for e in errs if e]
    if not errs:
        return ""
    return f"not determined on {len(errs)} of {len(records)} decided instances ({errs[0]})"


#: How many times the pinning instance's step is halved to see whether its violation persists.
PERSIST_HALVINGS = 3


def _smaller_steps(st, lit, pin, best, admitted_below: bool) -> tuple:
    """Re-decide the pinning instance ``pin`` of a hypothesis constant exactly with ηl halved
    1, 2, … :data:`PERSIST_HALVINGS` times (every other hypothesis must still hold). Returns
    ``(persists, further)``: ``persists`` is True when every halving is still violated and
    admitted by the hypothesis for constants beyond ``best`` (no value of the constant excludes
    that violation: each smaller step moves the boundary further); ``further`` is the list of
    ``(boundary, Record)`` of the violated halvings beyond ``best`` (real violations the
    threshold must also exclude when the violation does not persist at every halving)."""

    further = []
    for k in range(1, PERSIST_HALVINGS + 1):
        try:
            inst = instance_from_json(pin.instance)
            inst.eta_l = Fraction(inst.eta_l) / 2 ** k
            if any(not h.holds and h.key != lit.hyp for h in evaluate_hypotheses(st, inst)):
                return False, further
            lhs, rhs, val = sides_exact(st, inst)
            s = compare(lhs, rhs)
            holds = s >= 0 if st.relation == "≤" else s > 0
            if holds:
                return False, further
            d = lit.instance_data(st, inst, val, lhs, rhs, holds)
        except (EvaluationError, Undecided, ZeroDivisionError, InputError):
            return False, further
        b = d.get("threshold")
        if b is None or (not d.get("positive_above", False)) != admitted_below:
            return False, further
        beyond = decide_sign(b - best) > 0 if admitted_below else decide_sign(best - b) > 0
        if not beyond:
            return False, further
        rec = Record(pin.index, "violated", f"{pin.description}; eta_l halved {k} time{'s' if k > 1 else ''}",
                     instance_to_json(inst), lhs=lhs, rhs=rhs)
        further.append((b, rec))
    return True, further


#: Exact re-decisions spent bisecting the pinning instance's step between a held and a violated one.
BISECT_STEPS = 10
#: Halvings tried below the pinning instance's step to find one where the statement holds.
BISECT_HALVINGS = 8


def _at_step(st, lit, pin, eta_l, admitted_below: bool):
    """The pinning instance ``pin`` re-decided exactly with local step ``eta_l`` (every hypothesis
    but the profiled one must still hold): ``("violated", boundary, Record)``, ``("holds", None,
    None)``, or ``(None, None, None)`` when it cannot be decided or leaves the other hypotheses or
    its boundary lies on the other side."""
    try:
        inst = instance_from_json(pin.instance)
        inst.eta_l = Fraction(eta_l)
        if any(not h.holds and h.key != lit.hyp for h in evaluate_hypotheses(st, inst)):
            return None, None, None
        lhs, rhs, val = sides_exact(st, inst)
        s = compare(lhs, rhs)
        holds = s >= 0 if st.relation == "≤" else s > 0
        if holds:
            return "holds", None, None
        d = lit.instance_data(st, inst, val, lhs, rhs, holds)
    except (EvaluationError, Undecided, ZeroDivisionError, InputError):
        return None, None, None
    b = d.get("threshold")
    if b is None or (not d.get("positive_above", False)) != admitted_below:
        return None, None, None
    rec = Record(pin.index, "violated", f"{pin.description}; eta_l = {rational_str(inst.eta_l)} (the smallest "
                                        "violated step found by bisection)", instance_to_json(inst), lhs=lhs, rhs=rhs)
    return "violated", b, rec


def _smallest_violated_step(st, lit, pin, best, admitted_below: bool):
    """Bisect the pinning instance's local step downward with exact re-decisions: halve it until
    the statement holds (at most :data:`BISECT_HALVINGS` times), then bisect between that step
    and the smallest violated one (:data:`BISECT_STEPS` re-decisions). Returns None when no held
    step is found (or a step cannot be decided), else ``(boundary, Record, held_boundary,
    decisions)``: the boundary of the smallest violated step found (a value of the constant
    beyond it excludes that violation, the threshold the profile reports), the record of that
    instance, the boundary of the largest held step below it, and the number of exact
    re-decisions. The violated steps need not form an interval: this is the smallest violated
    step bisection finds, evidence on one instance family, not a proof."""
    eta_v, b_v, rec_v = Fraction(instance_from_json(pin.instance).eta_l), best, pin
    eta_h = None
    n = 0
    for _ in range(BISECT_HALVINGS):
        status, b, rec = _at_step(st, lit, pin, eta_v / 2, admitted_below)
        n += 1
        if status == "holds":
            eta_h = eta_v / 2
            break
        if status is None:
            return None
        eta_v, b_v, rec_v = eta_v / 2, b, rec
    if eta_h is None:
        return None
    for _ in range(BISECT_STEPS):
        mid = (eta_h + eta_v) / 2
        status, b, rec = _at_step(st, lit, pin, mid, admitted_below)
        n += 1
        if status == "holds":
            eta_h = mid
        elif status == "violated":
            eta_v, b_v, rec_v = mid, b, rec
        else:
            break
    inst = instance_from_json(pin.instance)
    inst.eta_l = eta_h
    try:
        _lhs, _rhs, val = sides_exact(st, inst)
        b_h = lit.instance_data(st, inst, val, _lhs, _rhs, True).get("threshold")
    except (EvaluationError, Undecided, ZeroDivisionError, InputError):
        b_h = None
    return b_v, rec_v, b_h, n


def _profile_hyp(lit, records, st=None):
    """Violating instances constrain the constant: the hypothesis admits the instance on one
    side of its boundary b; the constant is safe iff every violating instance is excluded.

    With ``st``, the pinning instance is re-decided at smaller steps (:func:`_smaller_steps`):
    a violation that persists there is not excluded by any value of the constant (a step-size
    constant's boundary moves with the step), and the entry says so (``excludes_violation``
    False, ``needed`` None) instead of showing the pinning instance's boundary as a threshold;
    violated halvings that do not persist all the way raise the threshold to theirs."""
    best, pin = None, None
    direction = "at least"
    admitted_all = []
    for r in records:
        d = r.extra.get(lit.key) or {}
        if d.get("holds", True) or "threshold" not in d:
            if "constant" in d and not d.get("holds", True) and d["constant"]:
                admitted_all.append(r)
            continue
        b = d["threshold"]
        # the hypothesis holds (instance admitted) where g(c) >= 0: below b if g decreases
        admitted_below = not d.get("positive_above", False)
        if admitted_below:
            if best is None or decide_sign(b - best) > 0:
                best, pin = b, r
        else:
            direction = "at most"
            if best is None or decide_sign(best - b) > 0:
                best, pin = b, r
    if admitted_all:
        e = _entry(lit, len(records), None, False, admitted_all[0], direction,
                   "every value of this constant admits a violating instance")
        e["violated_at_own_value"] = True
        e["excludes_violation"] = False
        return e
    failed = _failed(lit, records)
    if failed and best is None:
        return _entry(lit, len(records), None, True, None, direction, failed)
    if best is None:
        return _entry(lit, len(records), None, True, None, direction, _explored_note(lit, records))
    if st is not None:
        persists, further = _smaller_steps(st, lit, pin, best, direction == "at least")
        if persists:
            e = _entry(lit, len(records), None, True, pin, direction, PERSIST_NOTE)
            e["violated_at_own_value"] = True
            e["excludes_violation"] = False
            e["excludes_violation_reason"] = (
                f"the pinning violation (boundary {outward_decimal(best, up=direction == 'at least')}) is still "
                f"violated, and admitted beyond that boundary, with eta_l halved 1 to {PERSIST_HALVINGS} times")
            return e
        if further:
            best, pin = further[-1]
        # the pinning witness's own boundary is only where its violation starts at its drawn
        # step: smaller steps of the same instance may still be violated, so bisect down
        found = _smallest_violated_step(st, lit, pin, best, direction == "at least")
        note = f"{failed}; the value shown is from the others" if failed else ""
        if found is not None:
            b_v, rec_v, b_h, n = found
            best, pin = b_v, rec_v
            where = ("" if b_h is None else
                     f"; it holds at the boundary {outward_decimal(b_h, up=direction == 'at least')}")
            note = ((note + "; ") if note else "") + (
                f"from the smallest violated step of the pinning instance, bisected with {n} exact re-decisions"
                f"{where}")
        else:
            note = ((note + "; ") if note else "") + (
                "only the pinning witness's own boundary: no smaller step of it could be decided, so a value "
                "beyond it may still admit a violation")
        e = _entry(lit, len(records), best, True, pin, direction, note)
        e["excludes_violation"] = found is not None
        if found is None:
            e["excludes_violation_reason"] = "the threshold is the pinning witness's boundary, not bisected"
        return e
    e = _entry(lit, len(records), best, True, pin, direction,
               f"{failed}; the value shown is from the others" if failed else "")
    return e


def _explored_note(lit, records) -> str:
    """The note of a hypothesis constant no violating instance constrains: how far beyond the
    statement's own value the decided instances reach. An instance with boundary b is admitted
    for values below b (or above b, ``positive_above``); it lies beyond the statement's hypothesis
    when b is below (above) the statement's own value."""
    own = sympy.sympify(lit.value)
    below, above = [], []
    for r in records:
        d = r.extra.get(lit.key) or {}
        b = d.get("threshold")
        if b is None:
            continue
        if d.get("positive_above", False):
            if decide_sign(sympy.sympify(b) - own) > 0:
                above.append(b)
        elif decide_sign(own - sympy.sympify(b)) > 0:
            below.append(b)
    parts = []
    if below:
        parts.append(f"down to {outward_decimal(min(below, key=_float), up=False)}")
    if above:
        parts.append(f"up to {outward_decimal(max(above, key=_float), up=True)}")
    if parts:
        return f"no violation with this hypothesis relaxed (explored {' and '.join(parts)})"
    return ("not explored: every decided instance satisfies this hypothesis at the statement's own value, "
            "so none tested it relaxed")


#: The note of a hypothesis constant whose pinning violation persists at smaller steps.
PERSIST_NOTE = "no value excludes the violations drawn (they persist at smaller steps)"
