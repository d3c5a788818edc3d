"""Two-sided constant profile from the PEP row: for a constant of a statement -- a model constant
of the right side (the 9 of ``convexRHS``'s potential, ...), a numeral of the right side, or a
numeral of a step-size hypothesis (the 81 of h ≤ 1/(81β)) -- the values with a verified exact
certificate over the whole class and the values with an exact witness, found by halving and
bisection at the PEP row's fixed parameters (σ = 0, S = N, small N, K, T; :func:`pep_row`),
beside the search's witness side (:func:`pyfed.models.scaffold.profile.constant_profile`).

Right-side constants. When the right side at σ = 0, α(c)‖x0 - x⋆‖² + γ(c) C₀ + κ(c), has α, γ
and κ nondecreasing in c > 0 -- decided exactly, with c a symbol (:func:`rhs_dependence`) -- a
certificate at c proves the statement at every c' ≥ c and a witness at c refutes it at every
c' ≤ c (same parameters): only then does the report say "certified at c and above". A constant
that does not occur in the right side at σ = 0 (the 12 of the noise term) is reported as one the
PEP cannot speak to, with no points.

Hypothesis constants. The statement with the numeral changed is re-read from its Lean text
(:func:`statement_with`) and its PEP row is solved at the largest step its hypotheses admit. A
certificate there covers that step only (not the smaller steps the hypothesis also admits), so
the report lists "certified at these points" and never a half-line; a witness at c is a
violation of the statement with the constant c. A numeral whose value leaves the PEP row
unchanged at these parameters (the 15 of μh ≤ S/(15N) at μ = 0) is reported as such."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from ...errors import InputError
from ...evaluation.numbers import Undecided
from ...exact import rational_str
from ...lean.paths import source_lean_dir
from ...statements.evaluate import evaluate
from ...statements.reader import ReaderError, read_text
from ...theory import effective_step
from .access import ExactAccess, SymbolicAccess, bind
from .constants import literals, safe_set
from .pep import NoPEP, pep_plan, pep_row
from .profile import constant_profile, outward_decimal

__all__ = ["certificate_profile", "hypothesis_profile", "constant_pep_profile", "two_sided_profile",
           "plot_certificate_profile", "rhs_dependence", "statement_with", "source_text", "pep_where"]


def _literal(st, key):
    lits = {lit.key: lit for lit in literals(st)}
    if key not in lits:
        raise InputError("key", f"no such constant: {key}; the constants are {', '.join(lits)}")
    return lits[key]


def _rhs_literal(st, key):
    lit = _literal(st, key)
    if lit.where != "rhs" or lit.model is None:
        raise InputError("key", f"{key} is not a model constant of the right side (the PEP row varies those only)")
    return lit


def pep_where(N, K, T, beta=1, mu=0, eta_g=1) -> str:
    """The PEP row's fixed parameters in words (``N = 2, K = 2, T = 2, S = N, σ = 0, β = 1, μ = 0, ηg = 1``)."""
    return (f"N = {N}, K = {K}, T = {T}, S = N, σ = 0, β = {rational_str(Fraction(beta))}, "
            f"μ = {rational_str(Fraction(mu))}, ηg = {rational_str(Fraction(eta_g))}")


def rhs_dependence(st, key: str, *, N: int = 2, K: int = 2, T: int = 2, beta=1, mu=0, eta_g=1) -> dict:
    """How the right side at σ = 0 of the PEP row depends on the model constant ``key``: the
    coefficients α(c), γ(c), κ(c) of ‖x0 - x⋆‖², C₀ and 1 with the constant a positive symbol c
    (the same evaluation as :func:`pep_plan`). Returns {"alpha", "gamma", "kappa" (sympy text),
    "enters" (some coefficient depends on c), "monotone" (each is nondecreasing on c > 0, decided
    exactly from the sign of its derivative, :func:`pyfed.models.scaffold.constants.safe_set`)}.
    Raises InputError for a key that is not a model constant of the right side, :class:`NoPEP`
    when the statement has no PEP row at these parameters."""
    import sympy


    lit = _rhs_literal(st, key)
    plan = pep_plan(st, N=N, K=K, T=T, beta=beta, mu=mu, eta_g=eta_g)
    inst = plan["instance"]
    c = sympy.Symbol("c", positive=True)
    sa = SymbolicAccess(ExactAccess(inst), pep=True)
    val = bind(st, inst, sa)
    val.constants[lit.model] = c
    rhs = sympy.expand(sympy.sympify(evaluate(st.rhs, val)))
    D, C = sa.D, sa.C
    alpha, gamma = rhs.coeff(D), rhs.coeff(C)
    kappa = sympy.simplify(rhs - alpha * D - gamma * C)
    coefs = [sympy.simplify(x) for x in (alpha, gamma, kappa)]
    enters = any(x.has(c) for x in coefs)
    monotone = True
    for x in coefs:
        if not x.has(c):
            continue
        try:
            ok = safe_set(sympy.diff(x, c), c)          # where the derivative is >= 0
        except Undecided:
            monotone = False
            break
        # nondecreasing on c > 0 iff (0, oo) lies in one piece of the safe set
        if not any((lo is None or (sympy.sympify(lo) <= 0)) and hi is None for lo, _lc, hi, _hc in ok):
            monotone = False
            break
    return {"alpha": str(coefs[0]), "gamma": str(coefs[1]), "kappa": str(coefs[2]), "enters": bool(enters),
            "monotone": bool(monotone)}


def source_text(st) -> str:
    """The Lean text ``st`` was read from (its ``location.path``, absolute or relative to the
    working directory, the checkout or :func:`pyfed.lean.paths.source_lean_dir`). Raises
    InputError when no such file is found."""


    p = Path(st.location.path)
    lean = source_lean_dir()
    for cand in (p, lean.parent / p, lean / p):
        if cand.is_file():
            return cand.read_text(encoding="utf-8")
    raise InputError("statement", f"cannot find the Lean file {st.location.path} of {st.name}")


def statement_with(st, lit, value, text: str | None = None):
    """The statement ``st`` with the numeral ``lit`` (a :class:`Literal` with a syntax node: a
    numeral of the file) replaced by the rational ``value``, re-read from the Lean text (``text``:
    the file's text, default :func:`source_text`) by the same reader. Raises InputError when the
    numeral is not found at its location or the edited text does not read back."""

    if lit.node is None:
        raise InputError("key", f"{lit.key} is a model constant, not a numeral of the file")
    text = source_text(st) if text is None else text
    lines = text.split("\n")
    n = lit.node
    off = sum(len(x) + 1 for x in lines[:n.line - 1]) + n.col - 1
    old = getattr(n, "text", None) or ""
    if not old or text[off:off + len(old)] != old:
        raise InputError("key", f"{lit.key}: the numeral {old!r} is not at {lit.location}")
    v = Fraction(value)
    new = f"({v.numerator} : ℝ)" if v.denominator == 1 else f"({v.numerator} / {v.denominator} : ℝ)"
    edited = text[:off] + new + text[off + len(old):]
    bare = st.name.split(".")[0]
    try:
        sts = read_text(edited, st.location.path, theorem=bare, models=[st.model])
    except (ReaderError, InputError) as exc:
        raise InputError("key", f"{lit.key} = {rational_str(v)}: the edited statement does not read back ({exc})") \
            from None
    same = [s for s in sts if s.name == st.name]
    if len(same) != 1:
        raise InputError("key", f"{lit.key}: the edited text does not state {st.name} once")
    return same[0]


def _point(v, value, extra=None) -> dict:
    """One profile point from a PEP verdict: certified / witness / undecided (with the reason)."""
    if v.status == "holds" and v.certified:
        res, why = "certified", ""
    elif v.status == "violated" and v.certified:
        res, why = "witness", ""
    else:
        res = "undecided"
        why = (v.details.get("pep_certificate") or {}).get("reason") or getattr(v, "reason", "") or v.label
    return {"value": rational_str(value), "result": res, "reason": str(why)[:300], **(extra or {})}


def _search(run, c0, larger_safer: bool, halvings: int, refine: int):
    """Halve (toward the unsafe side) from a certified c0, or double (toward the safe side) from
    an uncertified one, up to ``halvings`` times until the outcome changes, then ``refine``
    bisection steps between the last certified and the last uncertified value. ``run(c)`` ->
    "certified" / "witness" / "undecided". Returns (certified value nearest the unsafe side or
    None, uncertified value nearest the safe side or None)."""
    def unsafe(c):
        return c / 2 if larger_safer else (2 * c if c > 0 else Fraction(1))

    def safe(c):
        return (2 * c if c > 0 else Fraction(1)) if larger_safer else c / 2

    good = bad = None
    c = c0
    if run(c0) == "certified":
        good = c0
        for _ in range(halvings):
            c = unsafe(c)
            if run(c) == "certified":
                good = c
            else:
                bad = c
                break
    else:
        bad = c0
        for _ in range(halvings):
            c = safe(c)
            if run(c) == "certified":
                good = c
                break
            bad = c
    if good is not None and bad is not None:
        for _ in range(refine):
            mid = (good + bad) / 2
            if run(mid) == "certified":
                good = mid
            else:
                bad = mid
    return good, bad


def _witness_bound(points, larger_safer):
    ws = [Fraction(p["value"]) for p in points if p["result"] == "witness"]
    if not ws:
        return None
    return max(ws) if larger_safer else min(ws)


def certificate_profile(st, key: str, *, N: int = 2, K: int = 2, T: int = 2, beta=1, mu=0, eta_g=1,
                        halvings: int = 12, refine: int = 6, solver=None, progress=None,
                        try_zero: bool = False) -> dict:
    """Smallest value of the constant ``key`` (a :func:`literals` key of a model constant of the
    right side) with a verified PEP certificate at these parameters.

    From the statement's own value c₀: halve (or double, if c₀ itself is not certified) up to
    ``halvings`` times until the outcome changes, then ``refine`` bisection steps between the
    last two values; with ``try_zero``, when every halving is certified and the right side is
    monotone in the constant, the value 0 is tried too (one point, often slow: a tight bound
    there makes the certificate search try every rounding before it gives up). Each point is one :func:`pep_row` with the constant overridden: "certified"
    (exact certificate), "witness" (exactly re-verified violation) or "undecided" (the reason).
    ``progress(value)`` is called before each point.

    Returns {"key", "kind": "rhs", "constant", "parameters", "applies" (False when the constant
    does not occur in the right side at σ = 0: then no points, and "reason"), "monotone"
    (:func:`rhs_dependence`), "certified_from" ("p/q" or None), "not_certified_at" (largest
    tested value without a certificate, or None), "largest_witness" (largest value with an exact
    witness, or None), "points": [{"value", "result", "reason"}] in the order tested,
    "statement": a sentence}. Exact values only: the same statement and parameters give the same
    points whenever the oracle answers the same. Raises InputError (argument "statement") when
    the statement has no PEP row, (argument "key") for an unknown key."""
    lit = _rhs_literal(st, key)
    params = dict(N=N, K=K, T=T, beta=beta, mu=mu, eta_g=eta_g)
    c0 = Fraction(lit.value)
    try:
        dep = rhs_dependence(st, key, **params)
    except NoPEP as exc:
        raise InputError("statement", f"{st.name} has no PEP row: {exc}") from None
    where = pep_where(**params)
    out = {"key": key, "kind": "rhs", "constant": rational_str(c0), "parameters": {k: str(v) for k, v in params.items()},
           "applies": dep["enters"], "monotone": dep["monotone"], "rhs_at_sigma0": {k: dep[k] for k in
                                                                                   ("alpha", "gamma", "kappa")},
           "certified_from": None, "not_certified_at": None, "largest_witness": None, "points": []}
    if not dep["enters"]:
        out["reason"] = "it does not occur in the right side at σ = 0, the PEP row's regime"
        out["statement"] = f"{lit.description}: the PEP cannot speak to it: {out['reason']} ({where})"
        return out
    points = out["points"]

    def run(c):
        if progress is not None:
            progress(c)
        v = pep_row(st, **params, solver=solver, constants={lit.model: c})
        points.append(_point(v, c))
        return points[-1]["result"]

    hi, lo = _search(run, c0, True, halvings, refine)
    monotone = dep["monotone"]
    if try_zero and hi is not None and lo is None and hi > 0 and monotone:
        # every halving certified: try the constant 0 itself (no bisection after: an uncertified 0
        # is typically a tight bound, where every positive value certifies)
        if run(Fraction(0)) == "certified":
            hi = Fraction(0)
        else:
            lo = Fraction(0)
    w = _witness_bound(points, True)
    if hi is None:
        sentence = f"{lit.description}: no certificate up to {rational_str(lo)} ({where})"
    else:
        above = " and above" if monotone else " (right side not monotone in it: this point only)"
        sentence = f"{lit.description}: certified at {rational_str(hi)}{above} (PEP certificate, {where})"
    below = " and below" if monotone else ""
    witness = None if w is None else f"; violated at {rational_str(w)}{below} (exact witness)"
    return _finish(out, sentence, witness, certified=hi, not_certified=lo, largest_witness=w)


def _finish(out: dict, sentence: str, witness: str | None, *, certified, not_certified, largest_witness) -> dict:
    """Complete a profile record: the sentence with its witness clause (or the point neither side
    reached) and the interval's ends as exact rationals (strings; None where absent)."""
    if witness is not None:
        sentence += witness
    elif not_certified is not None and certified is not None:
        sentence += f"; not certified at {rational_str(not_certified)}, no witness found there"
    q = lambda v: None if v is None else rational_str(v)   # noqa: E731
    out.update({"certified_from": q(certified), "not_certified_at": q(not_certified),
                "largest_witness": q(largest_witness), "statement": sentence})
    return out


def hypothesis_profile(st, key: str, *, text: str | None = None, N: int = 2, K: int = 2, T: int = 2, beta=1, mu=0,
                       eta_g=1, halvings: int = 8, refine: int = 4, solver=None, progress=None) -> dict:
    """Profile of a numeral of the file (``key``: a :func:`literals` key with a syntax node: a
    step-size hypothesis' numeral such as the 81 of h ≤ 1/(81β), or a numeral of the right side):
    each point c is the statement with the numeral set to c (:func:`statement_with`; ``text``: the
    Lean text it was read from), decided by its PEP row at the largest step its hypotheses admit:
    "certified" (an exact certificate at that step only), "witness" (an exact violation of the
    statement with the constant c) or "undecided" (the reason, e.g. no step admitted). The search
    is :func:`certificate_profile`'s (halving toward the unsafe side, then bisection), in the
    direction where the admitted step shrinks; ``progress(value)`` before each point.

    Returns {"key", "kind": "hypothesis" or "rhs numeral", "constant", "parameters", "applies"
    (False when the PEP row is the same at c/2, c and 2c: the constant does not enter it at these
    parameters; then "reason" and no points), "direction" ("at least": larger is safer, "at
    most"), "monotone": False (no half-line is claimed), "certified_from" (the certified value
    nearest the unsafe side), "not_certified_at", "largest_witness" (the witness nearest the safe
    side), "certified_points", "witness_points", "points": [{"value", "result", "reason",
    "eta_l", "h"}], "statement"}. Raises InputError (argument "statement") when the statement has
    no PEP row at its own value, (argument "key") for a key without a numeral."""
    lit = _literal(st, key)
    if lit.node is None:
        return certificate_profile(st, key, N=N, K=K, T=T, beta=beta, mu=mu, eta_g=eta_g, halvings=halvings,
                                   refine=refine, solver=solver, progress=progress)

    text = source_text(st) if text is None else text
    params = dict(N=N, K=K, T=T, beta=beta, mu=mu, eta_g=eta_g)
    where = pep_where(**params)
    c0 = Fraction(lit.value)
    kind = "hypothesis" if lit.where == "hypothesis" else "rhs numeral"

    def plan_at(c):
        return pep_plan(statement_with(st, lit, c, text) if c != c0 else st, **params)

    try:
        p0 = plan_at(c0)
    except NoPEP as exc:
        raise InputError("statement", f"{st.name} has no PEP row: {exc}") from None
    out = {"key": key, "kind": kind, "constant": rational_str(c0), "parameters": {k: str(v) for k, v in params.items()},
           "applies": True, "direction": "at least", "monotone": False, "certified_from": None,
           "not_certified_at": None, "largest_witness": None, "certified_points": [], "witness_points": [],
           "points": []}
    sig = []
    for c in (c0 / 2, 2 * c0):
        try:
            p = plan_at(c)
            sig.append((p["eta_l"], p["alpha"], p["gamma"], p["kappa"]))
        except (NoPEP, InputError):     # no PEP row there, or the edited statement does not read back
            sig.append(None)
    s0 = (p0["eta_l"], p0["alpha"], p0["gamma"], p0["kappa"])
    if sig[0] == s0 and sig[1] == s0:
        out["applies"] = False
        out["reason"] = ("the PEP row is the same at c/2, c and 2c (same step and right side): at these parameters "
                         "the constant does not enter it" + (", e.g. μ = 0 makes μ·h ≤ … hold for every step"
                                                             if Fraction(mu) == 0 and lit.where == "hypothesis" else ""))
        out["statement"] = f"{lit.description}: the PEP cannot speak to it: {out['reason']} ({where})"
        return out
    if lit.where == "hypothesis":
        # larger is safer when the admitted step shrinks as the constant grows
        up, down = sig[1], sig[0]
        larger_safer = not (up is not None and down is not None and up[0] > down[0])
    else:
        larger_safer = True
    out["direction"] = "at least" if larger_safer else "at most"
    points = out["points"]

    def run(c):
        if progress is not None:
            progress(c)
        try:
            st2 = statement_with(st, lit, c, text) if c != c0 else st
            v = pep_row(st2, **params, solver=solver)
            eta_l = Fraction(v.details["parameters"]["eta_l"])
            extra = {"eta_l": rational_str(eta_l), "h": rational_str(effective_step(K, eta_l, Fraction(eta_g)))}
            points.append(_point(v, c, extra))
        except (NoPEP, InputError) as exc:
            points.append({"value": rational_str(c), "result": "undecided", "reason": str(exc)[:300],
                           "eta_l": None, "h": None})
        return points[-1]["result"]

    good, bad = _search(run, c0, larger_safer, halvings, refine)
    w = _witness_bound(points, larger_safer)
    key_of = (lambda p: Fraction(p["value"])) if larger_safer else (lambda p: -Fraction(p["value"]))
    cert = sorted((p for p in points if p["result"] == "certified"), key=key_of)
    wit = sorted((p for p in points if p["result"] == "witness"), key=key_of)
    out["certified_points"] = [p["value"] for p in cert]
    out["witness_points"] = [p["value"] for p in wit]
    step_note = ("each at the largest step the hypotheses then admit only; smaller steps are not covered"
                 if lit.where == "hypothesis" else "each at that value only: the right side's monotonicity in it "
                                                   "is not checked")
    if good is None:
        sentence = f"{lit.description}: no certificate at the points tried, up to {rational_str(bad)} ({where})"
    else:
        shown = ", ".join(f"{p['value']} (h = {p['h']})" if p.get("h") else p["value"] for p in cert[:6])
        more = f" and {len(cert) - 6} more" if len(cert) > 6 else ""
        sentence = (f"{lit.description}: certified at these points: {shown}{more} (PEP certificate, {step_note}; "
                    f"{where})")
    witness = None if w is None else (f"; violated at {rational_str(w)} (exact witness"
                                      + (f" at h = {wit[-1]['h']}" if wit[-1].get("h") else "") + ")")
    return _finish(out, sentence, witness, certified=good, not_certified=bad, largest_witness=w)


def constant_pep_profile(st, key: str, *, text: str | None = None, **kw) -> dict:
    """The PEP side of one constant: :func:`certificate_profile` for a model constant of the right
    side, :func:`hypothesis_profile` for a numeral of the file (hypothesis or right side)."""
    lit = _literal(st, key)
    if lit.node is None:
        kw.pop("text", None)
        return certificate_profile(st, key, **kw)
    return hypothesis_profile(st, key, text=text, **kw)


def two_sided_profile(st, key: str, *, seed: int = 0, budget: int = 8, search: bool = True, **pep) -> dict:
    """The constant ``key`` from both sides: the search's threshold on its decided instances
    (:func:`pyfed.models.scaffold.profile.constant_profile`, ``needed``: below it a witness
    exists on those instances) when ``search``, and :func:`constant_pep_profile` at the PEP row's
    parameters (``pep``: its keyword arguments). Same seed and budget give the same search side."""
    out = {"statement": st.name, "key": key, "certificate_side": constant_pep_profile(st, key, **pep)}
    if search:
        prof = constant_profile(st, seed=seed, budget=budget, only=[key])
        (entry,) = [e for e in prof["constants"] if e["key"] == key]
        out["witness_side"] = search_side(entry, seed, budget)
    return out


def search_side(entry, seed, budget) -> dict:
    """The witness side of one constant from a :func:`constant_profile` entry: its threshold
    ``needed`` (exact), ``needed_below`` (a decimal rounded down: violations exist on the search's
    instances at every value below it, direction "at least"; rounded up for "at most"), the
    pinning candidate's index and description, and the profile's sentence."""

    needed = entry.get("needed")
    at_least = entry["direction"] in ("at least", "between")
    return {"needed": needed, "needed_decimal": entry.get("needed_decimal"),
            "needed_inner": None if needed is None else outward_decimal(Fraction(needed), up=not at_least),
            "direction": entry["direction"], "strict": entry.get("strict"), "not_needed": entry.get("not_needed"),
            "decided": entry["decided"], "statement": entry.get("statement"), "seed": seed, "budget": budget,
            "pinned_by": (entry.get("pinned_by") or {}).get("description"),
            "pinned_index": (entry.get("pinned_by") or {}).get("index")}


def plot_certificate_profile(rows, path, *, constant=None, parameter: str = "T", search_needed=None,
                             title=None) -> None:
    """Plot certified and witness bounds of one constant against a parameter: ``rows`` =
    [(parameter value, :func:`constant_pep_profile` result)], ``constant``: the statement's value
    (a horizontal line), ``search_needed``: the search's threshold (a dashed line: witnesses below
    it on the search's instances, at other parameters). Writes a PNG to ``path`` (matplotlib, Agg
    backend); values are drawn as floats (the JSON has them exactly)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    def f(x):
        return float(Fraction(x)) if x else float("nan")

    fig, ax = plt.subplots(figsize=(6, 4))
    xs = [x for x, _ in rows]
    cert = [f(r.get("certified_from")) for _, r in rows]
    wit = [f(r.get("largest_witness")) for _, r in rows]
    unc = [f(r.get("not_certified_at")) for _, r in rows]
    hyp = bool(rows) and rows[0][1].get("kind") == "hypothesis"
    ax.plot(xs, cert, "o-", color="tab:green",
            label="smallest certified point (PEP certificate at its step only)" if hyp else
            "certified from (PEP certificate)" if rows and rows[0][1].get("monotone") else
            "certified at (PEP certificate)")
    if any(u == u for u in unc):
        ax.plot(xs, unc, "x", color="tab:gray", label="not certified at")
    if any(w == w for w in wit):
        ax.plot(xs, wit, "s-", color="tab:red", label="exact witness (PEP row)")
    if search_needed is not None:
        ax.axhline(float(Fraction(search_needed)), color="tab:red", lw=0.8, ls=":",
                   label="search: witnesses below (its instances)")
    if constant is not None:
        ax.axhline(float(Fraction(constant)), color="black", lw=0.8, ls="--", label=f"statement: {constant}")
    if all(v > 0 for v in cert + wit + unc if v == v):
        ax.set_yscale("log")
    else:
        ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_xlabel(parameter)
    ax.set_xticks(xs)
    ax.set_ylabel(rows[0][1]["key"] if rows else "constant")
    if title:
        ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
