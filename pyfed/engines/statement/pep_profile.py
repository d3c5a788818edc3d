"""Two-sided constant profile from the PEP row: for a model constant of the right side (the 9 of
``convexRHS``'s potential, ...), the smallest value with a verified exact certificate over the
whole class, found by halving and bisection at the PEP row's fixed parameters (σ = 0, S = N, small
N, K, T), beside the values where the PEP finds an exact witness (a violation re-verified on a
fitted rational quadratic, :func:`pyfed.engines.statement.pep.pep_row`) and, optionally, the
search's witness side (:func:`pyfed.engines.statement.profile.constant_profile`).

Monotonicity makes one point speak for a half-line: when the right side at σ = 0,
α(c)‖x0 - x⋆‖² + γ(c) C₀, has α and γ nondecreasing in c (checked on the plan), a certificate at c
proves the statement at every c' ≥ c and a witness at c refutes it at every c' ≤ c (same
parameters). The report says "certified at c and above" only when that check passes.
"""

from __future__ import annotations

from fractions import Fraction

from ...errors import InputError
from ...exact import rational_str
from .constants import literals
from .pep import NoPEP, pep_plan, pep_row

__all__ = ["certificate_profile", "two_sided_profile", "plot_certificate_profile"]


def _rhs_literal(st, key):
    lits = {lit.key: lit for lit in literals(st)}
    if key not in lits:
        raise InputError("key", f"no such constant: {key}; the constants are {', '.join(lits)}")
    lit = lits[key]
    if lit.where != "rhs" or lit.model is None:
        raise InputError("key", f"{key} is not a model constant of the right side (the PEP row varies those only)")
    return lit


def certificate_profile(st, key: str, *, N: int = 2, K: int = 2, T: int = 2, beta=1, mu=0, eta_g=1,
                        halvings: int = 12, refine: int = 6, solver=None) -> dict:
    """Smallest value of the constant ``key`` (a :func:`literals` key of a model constant of the
    right side) with a verified PEP certificate at these parameters.

    From the statement's own value c₀: halve (or double, if c₀ itself is not certified) up to
    ``halvings`` times until the outcome changes, then ``refine`` bisection steps between the
    last two values. Each point is one :func:`pep_row` with the constant overridden: "certified"
    (exact certificate), "witness" (exactly re-verified violation) or "undecided" (the reason).

    Returns {"key", "constant", "parameters", "monotone", "certified_from" ("p/q" or None),
    "not_certified_at" (largest tested value without a certificate, or None), "largest_witness"
    (largest value with an exact witness, or None), "points": [{"value", "result", "reason"}]
    in the order tested, "statement": a sentence}. Exact values only: the same statement and
    parameters give the same points whenever the oracle answers the same."""
    lit = _rhs_literal(st, key)
    params = dict(N=N, K=K, T=T, beta=beta, mu=mu, eta_g=eta_g)
    c0 = Fraction(lit.value)
    try:
        a1 = pep_plan(st, **params, constants={lit.model: c0})
        a2 = pep_plan(st, **params, constants={lit.model: 2 * c0 + 1})
    except NoPEP as exc:
        raise InputError("statement", f"{st.name} has no PEP row: {exc}") from None
    monotone = a2["alpha"] >= a1["alpha"] and a2["gamma"] >= a1["gamma"]
    points = []

    def run(c):
        v = pep_row(st, **params, solver=solver, constants={lit.model: c})
        if v.status == "holds" and v.certified:
            res, why = "certified", ""
        elif v.status == "violated" and v.certified:
            res, why = "witness", ""
        else:
            res = "undecided"
            why = (v.details.get("pep_certificate") or {}).get("reason") or getattr(v, "reason", "") or v.label
        points.append({"value": rational_str(c), "result": res, "reason": why[:300]})
        return res

    first = run(c0)
    good = first == "certified"
    hi = lo = None
    c = c0
    if good:
        hi = c0
        for _ in range(halvings):
            c = c / 2
            if run(c) == "certified":
                hi = c
            else:
                lo = c
                break
    else:
        lo = c0
        for _ in range(halvings):
            c = 2 * c if c > 0 else Fraction(1)
            if run(c) == "certified":
                hi = c
                break
            lo = c
    if hi is not None and lo is not None:
        for _ in range(refine):
            mid = (lo + hi) / 2
            if run(mid) == "certified":
                hi = mid
            else:
                lo = mid
    witnesses = [Fraction(p["value"]) for p in points if p["result"] == "witness"]
    w = max(witnesses) if witnesses else None
    where = f"N = {N}, K = {K}, T = {T}, S = N, σ = 0, β = {beta}, μ = {mu}, ηg = {eta_g}"
    if hi is None:
        sentence = f"{lit.description}: no certificate up to {rational_str(lo)} ({where})"
    else:
        above = " and above" if monotone else " (right side not monotone in it: this point only)"
        sentence = f"{lit.description}: certified at {rational_str(hi)}{above} (PEP certificate, {where})"
        if w is not None:
            sentence += f"; violated at {rational_str(w)}{' and below' if monotone else ''} (exact witness)"
        elif lo is not None:
            sentence += f"; not certified at {rational_str(lo)}, no witness found there"
    return {"key": key, "constant": rational_str(c0), "parameters": {k: str(v) for k, v in params.items()},
            "monotone": monotone, "certified_from": None if hi is None else rational_str(hi),
            "not_certified_at": None if lo is None else rational_str(lo),
            "largest_witness": None if w is None else rational_str(w), "points": points, "statement": sentence}


def two_sided_profile(st, key: str, *, seed: int = 0, budget: int = 8, search: bool = True, **pep) -> dict:
    """The constant ``key`` from both sides: the search's threshold on its decided instances
    (:func:`pyfed.engines.statement.profile.constant_profile`, ``needed``: below it a witness
    exists on those instances) when ``search``, and :func:`certificate_profile` at the PEP row's
    parameters (``pep``: its keyword arguments). Same seed and budget give the same search side."""
    out = {"statement": st.name, "key": key, "certificate_side": certificate_profile(st, key, **pep)}
    if search:
        from .profile import constant_profile
        prof = constant_profile(st, seed=seed, budget=budget, only=[key])
        (entry,) = [e for e in prof["constants"] if e["key"] == key]
        out["witness_side"] = {"needed": entry["needed"], "needed_decimal": entry["needed_decimal"],
                               "direction": entry["direction"], "decided": entry["decided"],
                               "statement": entry.get("statement"), "seed": seed, "budget": budget,
                               "pinned_by": (entry.get("pinned_by") or {}).get("description")}
    return out


def plot_certificate_profile(rows, path, *, constant=None, parameter: str = "T") -> None:
    """Plot certified and witness bounds of one constant against a parameter: ``rows`` =
    [(parameter value, :func:`certificate_profile` result)], ``constant``: the statement's value
    (a horizontal line). Writes a PNG to ``path`` (matplotlib, Agg backend)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    xs = [x for x, _ in rows]
    cert = [float(Fraction(r["certified_from"])) if r["certified_from"] else float("nan") for _, r in rows]
    wit = [float(Fraction(r["largest_witness"])) if r["largest_witness"] else float("nan") for _, r in rows]
    unc = [float(Fraction(r["not_certified_at"])) if r["not_certified_at"] else float("nan") for _, r in rows]
    ax.plot(xs, cert, "o-", color="tab:green", label="certified from (PEP certificate)")
    ax.plot(xs, unc, "x", color="tab:gray", label="not certified at")
    if any(w == w for w in wit):
        ax.plot(xs, wit, "s-", color="tab:red", label="exact witness at")
    if constant is not None:
        ax.axhline(float(Fraction(constant)), color="black", lw=0.8, ls="--", label=f"statement: {constant}")
    ax.set_yscale("log")
    ax.set_xlabel(parameter)
    ax.set_ylabel(rows[0][1]["key"] if rows else "constant")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
