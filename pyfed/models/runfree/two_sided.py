"""The two-sided constant profile of a function-class lemma (``pyfed profile`` on a run-free
statement): per numeral of the right side and of the scalar hypotheses, the values the lemma's
PEP *certifies* and the values an *exact witness* violates, both at the same parameters -- the
PEP row's (smoothness 1, the other scalars at the values its cases choose, client count N) -- so a
certified value never sits beside a violated one from other sizes.

Each value ``c`` is decided by editing the numeral in the Lean text, reading the statement again
and deciding every PEP case (:func:`pyfed.models.runfree.pep.decide_case`): certified when every
case has a verified certificate, a witness when a case's positive worst case becomes an exact
counterexample (:func:`~pyfed.models.runfree.pep.exact_witness`), undecided otherwise. From the
statement's own value the constant is halved (and doubled) until the other outcome appears, then
bisected. :class:`TwoSidedProfile` is what :meth:`pyfed.models.protocol.Model.two_sided_profile`
hands the command.
"""

from __future__ import annotations

from fractions import Fraction

from ...errors import InputError
from ...exact import rational_str
from .pep import NoLemmaPEP, decide_case, exact_witness, lemma_pep_cases, lemma_pep_plan

__all__ = ["TwoSidedProfile", "lemma_constants"]


class _Constant:
    def __init__(self, key, value, node, where, description):
        self.key, self.value, self.node, self.where, self.description = key, value, node, where, description


def lemma_constants(st) -> list:
    """The profiled numerals of ``st``: real numerals other than 0 of its right side and of its
    scalar hypotheses, each with a key ``rhs:2@12:7`` / ``hypothesis:2@10:40``."""
    pl = lemma_pep_plan(st)
    out, seen = [], set()
    for where, nodes in (("rhs", [st.rhs]), ("hypothesis", list(pl.scalar_hyps))):
        for root in nodes:
            for n in root.walk():
                if n.kind != "num" or getattr(n, "ty", None) != "real" or Fraction(n.value) in (0,):
                    continue
                if (n.line, n.col) in seen:
                    continue
                seen.add((n.line, n.col))
                v = Fraction(n.value)
                key = f"{where}:{rational_str(v)}@{n.line}:{n.col}"
                out.append(_Constant(key, v, n, where, f"the numeral {rational_str(v)} of "
                                                       f"{'the right side' if where == 'rhs' else f'`{root.text}`'}"))
    return out


def _edit(text: str, node, value: Fraction) -> str:
    """``text`` with the numeral at ``node``'s position replaced by ``value``."""
    lines = text.split("\n")
    line = lines[node.line - 1]
    start = node.col - 1
    end = start
    while end < len(line) and (line[end].isdigit() or line[end] == "."):
        end += 1
    lit = f"({value.numerator} / {value.denominator} : ℝ)" if value.denominator != 1 else f"({value.numerator} : ℝ)"
    lines[node.line - 1] = line[:start] + lit + line[end:]
    return "\n".join(lines)


def _decide(st, const, value, text, read):
    """``(result, parameters, reason)`` at one value of the constant."""
    try:
        st2 = st if value == const.value else read(_edit(text, const.node, value))
        cases = lemma_pep_cases(st2, quick=True)
    except (NoLemmaPEP, InputError) as exc:
        return "undecided", "", str(exc)[:200]
    params = "; ".join(c.label() for c in cases)
    for case in cases:
        res = decide_case(case)
        if res["outcome"] == "certified":
            continue
        if res["outcome"] in ("positive", "unbounded"):
            rec, why = exact_witness(st2, case)
            return ("witness", params, rec.description) if rec is not None else ("undecided", params, why)
        return "undecided", params, res["reason"][:200]
    return "certificate", params, ""


def _not_certified(points, certified, at_least):
    """The undecided value nearest the certified ones on the side that could be violated (an SDP
    value above 0 without an exact witness), or None."""
    und = [Fraction(p["value"]) for p in points if p["result"] == "undecided"]
    if not und or not certified:
        return None
    side = [u for u in und if (u < min(certified) if at_least else u > max(certified))]
    return (max(side) if at_least else min(side)) if side else None


class TwoSidedProfile:
    """The two-sided profile of one function-class lemma (module docstring)."""

    def __init__(self, st, read):
        self.st = st
        self.read = read          # text -> the statement of the same name, re-read
        self.constants = {c.key: c for c in lemma_constants(st)}

    def resolve_constants(self, wanted) -> list:
        if not self.constants:
            raise InputError("--constant", f"{self.st.name} has no numeral to profile")
        if not wanted:
            return list(self.constants)
        out = []
        for w in wanted:
            hits = [k for k, c in self.constants.items() if k == w or rational_str(c.value) == str(w).strip()]
            if len(hits) != 1:
                raise InputError("--constant", f"{w!r} {'is ambiguous' if hits else 'is not a constant of the lemma'}; "
                                               f"its constants are {', '.join(self.constants)}")
            out.append(hits[0])
        return out

    def check_sizes(self, parameter, values, *, N, K, T, mu) -> None:
        if len(values) > 1 or mu != 0:
            raise InputError("--values" if len(values) > 1 else "--mu",
                             f"{self.st.name} is a function-class lemma: it has no rounds or local steps to vary, and "
                             "its class constants are its own")

    def search_size(self, budget, keys) -> int:
        return 0

    def profile(self, keys, *, text, parameter="T", values=(2,), N=2, K=2, T=2, mu=0, seed=0, budget=4,
                search=True, halvings=8, refine=4, try_zero=False, progress=None, search_progress=None,
                stage=None) -> dict:
        """The command's JSON (the format of :mod:`pyfed.commands.constant_profile`), every point at
        the PEP row's parameters."""
        out = {"format": "pyfed.profile/1", "statement": self.st.name, "seed": seed, "budget": None,
               "parameter": parameter, "values": list(values[:1]), "fixed": {"beta": "1", "N": N},
               "halvings": halvings, "refine": refine, "try_zero": try_zero, "constants": []}
        violated = False
        for key in keys:
            const = self.constants[key]
            if stage is not None:
                stage(f"{rational_str(const.value)}: PEP certificates and witnesses")
            pep = self._profile_one(const, text, halvings, refine, progress)
            violated = violated or pep["own"] == "witness"
            out["constants"].append({"key": key, "constant": rational_str(const.value),
                                     "description": const.description, "where": const.where, "search": None,
                                     "points": [{"value": values[0], "pep": pep}]})
        out["violated_at_own_value"] = violated
        if violated:
            out["own_violation"] = {"description": "the PEP row's exact witness at the lemma's own constants"}
        return out

    def _profile_one(self, const, text, halvings, refine, progress) -> dict:
        points = []

        def at(c):
            if progress is not None:
                progress(f"{rational_str(const.value)}: c = {rational_str(c)}")
            res, params, reason = _decide(self.st, const, c, text, self.read)
            points.append({"value": rational_str(c), "result": res, "parameters": params, "reason": reason})
            return res

        own = at(const.value)
        lo_w = hi_c = None          # a witness value and a certified value, adjacent after bisection
        if own in ("certificate", "witness"):
            for factor in (Fraction(1, 2), Fraction(2)):
                c = const.value
                for _ in range(halvings):
                    c = c * factor
                    r = at(c)
                    if r != own and r in ("certificate", "witness"):
                        a, b = (const.value, c) if own == "witness" else (c, const.value)
                        lo_w, hi_c = a, b
                        for _ in range(refine):
                            m = (lo_w + hi_c) / 2
                            rm = at(m)
                            if rm == "witness":
                                lo_w = m
                            elif rm == "certificate":
                                hi_c = m
                            else:
                                break
                        break
                    if r == "undecided":
                        break
                if lo_w is not None:
                    break
        certified = sorted(Fraction(p["value"]) for p in points if p["result"] == "certificate")
        witnesses = sorted(Fraction(p["value"]) for p in points if p["result"] == "witness")
        at_least = not witnesses or not certified or max(witnesses) < min(certified)
        if const.where == "hypothesis":
            size = "at smoothness 1, each value at the steps it admits (the PEP row's choices)"
        else:
            size = f"at {points[0]['parameters'] or 'the PEP row parameters'}"
        return {"key": const.key, "kind": "hypothesis" if const.where == "hypothesis" else "rhs numeral",
                "constant": rational_str(const.value), "parameters": {"N": "-", "K": "-", "T": "-", "mu": "0"},
                "size_text": size, "applies": True, "own": own,
                "direction": "at least" if at_least else "at most", "monotone": False,
                "certified_from": (min(certified) if at_least else max(certified)) if certified else None,
                "not_certified_at": _not_certified(points, certified, at_least),
                "largest_witness": (max(witnesses) if at_least else min(witnesses)) if witnesses else None,
                "certified_points": [rational_str(c) for c in certified],
                "witness_points": [rational_str(w) for w in witnesses], "points": points}

    def plot(self, rows, png, *, constant=None, parameter="T", search_needed=None, title=None) -> None:
        """The decided values of the constant on one axis: certified (green), witnessed (red)."""
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 2.2))
        for _v, pep in rows:
            for p in pep["points"]:
                color = {"certificate": "tab:green", "witness": "tab:red"}.get(p["result"], "tab:gray")
                ax.plot(float(Fraction(p["value"])), 0, "o", color=color)
        if constant is not None:
            ax.axvline(float(Fraction(constant)), color="black", linestyle=":", label="the lemma's constant")
        ax.set_yticks([])
        ax.set_xlabel("value of the constant (green: certified, red: exact witness; same parameters)")
        if title:
            ax.set_title(title, fontsize=9)
        fig.tight_layout()
        fig.savefig(png, dpi=120)
        plt.close(fig)
