"""The two-sided constant profile of a SCAFFOLD run statement (``pyfed profile``'s computation):
per constant, the values violated by an exact witness (the adversarial search's threshold on its
decided instances, :mod:`.profile`, and the PEP row's re-verified witnesses) and the values with
a verified PEP certificate over the whole class (:mod:`.pep_profile`), at one or several values of
T or K. :class:`TwoSidedProfile` is what the model hands the command
(:meth:`pyfed.models.protocol.Model.two_sided_profile`)."""

from __future__ import annotations

from fractions import Fraction

from ...errors import InputError
from ...exact import rational_str
from .constants import literals
from .pep import NoPEP, pep_plan
from .pep_profile import constant_pep_profile, plot_certificate_profile, search_side
from .profile import constant_profile, profile_size

__all__ = ["TwoSidedProfile", "resolve_constants", "profile_statement"]


class TwoSidedProfile:
    """The two-sided profile of one statement ``st`` (see the module docstring)."""

    def __init__(self, st):
        self.st = st

    def resolve_constants(self, wanted) -> list:
        """:func:`resolve_constants` of the statement."""
        return resolve_constants(self.st, wanted)

    def check_sizes(self, parameter: str, values, *, N: int, K: int, T: int, mu) -> None:
        """InputError naming ``NAME|PATH.lean`` when the PEP row does not apply at one of the
        ``values`` of ``parameter`` (before any solve)."""
        for v in values:
            kw = dict(N=N, K=K, T=T, mu=mu)
            kw[parameter] = v
            try:
                pep_plan(self.st, **kw)
            except NoPEP as exc:
                hint = "; set the PEP row's sizes with --N, --K, --T" if "problem size" in str(exc) else ""
                raise InputError("NAME|PATH.lean", f"the PEP does not apply to {self.st.name} at {parameter} = {v}: "
                                                   f"{exc}{hint}") from None

    def search_size(self, budget: int, keys) -> int:
        """Candidates the search side decides (for a progress bar)."""
        return profile_size(self.st, budget, only=keys)

    def profile(self, keys, **kw) -> dict:
        """:func:`profile_statement` of the statement."""
        return profile_statement(self.st, keys, **kw)

    def plot(self, rows, png, **kw) -> None:
        """One constant's plot (:func:`pyfed.models.scaffold.pep_profile.plot_certificate_profile`)."""
        plot_certificate_profile(rows, png, **kw)


def resolve_constants(st, wanted) -> list:
    """The :func:`~pyfed.models.scaffold.constants.literals` keys to profile: every constant of
    ``st`` when ``wanted`` is empty, else each given key, value (when one constant has it) or model
    name (``potential``). InputError naming ``--constant`` for an unknown or ambiguous one."""
    lits = literals(st)
    if not lits:
        raise InputError("--constant", f"{st.name} has no constant to profile")
    if not wanted:
        return [lit.key for lit in lits]
    out = []
    for w in wanted:
        w = str(w).strip()
        hits = [lit for lit in lits if lit.key == w]
        if not hits:
            hits = [lit for lit in lits if lit.model is not None and lit.model[1] == w]
        if not hits:
            try:
                v = Fraction(w)
                hits = [lit for lit in lits if lit.value == v]
            except (ValueError, ZeroDivisionError):
                hits = []
        if len(hits) != 1:
            why = "is ambiguous" if hits else "is not a constant of the statement"
            raise InputError("--constant", f"{w!r} {why}; the constants of {st.name} are "
                                           f"{', '.join(lit.key for lit in lits)}")
        if hits[0].key not in out:
            out.append(hits[0].key)
    return out


def profile_statement(st, keys, *, text, parameter="T", values=(2,), N=2, K=2, T=2, mu=0, seed=0, budget=4,
                      search=True, halvings=8, refine=4, try_zero=False, progress=None,
                      search_progress=None, stage=None) -> dict:
    """The two-sided profile of the constants ``keys`` of ``st`` (the command's JSON): the search
    side once (:func:`pyfed.models.scaffold.profile.constant_profile`, ``search_progress(k)`` as
    k more candidates finish), the PEP side per value of ``parameter`` (:func:`constant_pep_profile`,
    ``progress(label)`` before each PEP point); ``stage(label)`` at the start of the search and of
    each constant's PEP side at each value. Returns {"format": "pyfed.profile/1", "statement",
    "seed", "budget", "parameter", "values", "fixed", "violated_at_own_value", "own_violation" (when
    violated: the search's candidate "index" and "description", or the PEP row's witness), "constants": [{"key",
    "constant", "description", "where", "search" (None without search), "points": [{"value", "pep"}]}]}
    with exact rationals as strings."""
    lits = {lit.key: lit for lit in literals(st)}
    entries = {}
    violated = False
    own_violation = None
    if search:
        if stage is not None:
            stage("search side")
        prof = constant_profile(st, seed=seed, budget=budget, only=list(keys), progress=search_progress)
        entries = {e["key"]: e for e in prof["constants"]}
        violated = prof["violated"] is not None
        own_violation = prof["violated"]
    out = {"format": "pyfed.profile/1", "statement": st.name, "seed": seed, "budget": budget if search else None,
           "parameter": parameter, "values": list(values),
           "fixed": {"N": N, "K": K, "T": T, "S": "N", "sigma": "0", "beta": "1", "eta_g": "1", "mu": rational_str(mu)},
           "halvings": halvings, "refine": refine, "try_zero": try_zero, "constants": []}
    for key in keys:
        lit = lits[key]
        c = {"key": key, "constant": rational_str(lit.value), "description": lit.description, "where": lit.where,
             "search": search_side(entries[key], seed, budget) if key in entries else None, "points": []}
        for v in values:
            kw = dict(N=N, K=K, T=T, mu=mu)
            kw[parameter] = v

            def tick(value, key=key, v=v):
                if progress is not None:
                    progress(f"{lit.value} at {parameter} = {v}: c = {rational_str(value)}")

            if lits[key].node is None:
                kw["try_zero"] = try_zero
            if stage is not None:
                stage(f"{rational_str(lit.value)} at {parameter} = {v}: PEP certificates")
            pep = constant_pep_profile(st, key, text=text, halvings=halvings, refine=refine, progress=tick, **kw)
            if any(p["result"] == "witness" and Fraction(p["value"]) == lit.value for p in pep["points"]):
                violated = True
                own_violation = own_violation or {"description": f"the PEP row's exact witness at {parameter} = {v}"}
            c["points"].append({"value": v, "pep": pep})
        out["constants"].append(c)
    out["violated_at_own_value"] = violated
    if own_violation is not None:
        out["own_violation"] = {k: own_violation[k] for k in ("index", "description") if k in own_violation}
    return out
