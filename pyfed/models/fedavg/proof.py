"""A statement about a FedAvg run in the proof engine's terms (:func:`proof_form`) and the published
FedAvg statements with accepted proofs (:data:`PUBLISHED`).

The elaborated terms (:class:`~pyfed.models.fedavg.ir.Term`) become sympy: the run's and
problem's arguments and the conclusion's indices are symbols named by their role (``tau T eta``,
``M``, ``t k i``), ``P.L P.σ P.ζ`` the symbols ``L σ ζ``; the deterministic right sides
``driftRHS`` and ``convergenceRHS`` are computed by :mod:`pyfed.theory.fedavg` (one place per
formula), the tuned ``optimizedStep``/``optimizedRHS`` are atoms; ``‖x0 − x⋆‖²`` is the atom
``D²``; every random variable (statistics, conditional expectations, integrals) is an atom keyed
by its canonical form with the indices' roles. Facts: the ``Problem``'s ``0 < M``, ``0 < L``,
``0 ≤ σ``, ``0 ≤ ζ``; ``D² ≥ 0``; the statistics the model defines as squares or as gaps to the
optimum (``clientDriftSq``, ``shadowDistanceSq``, ``roundLoss``, ``avgLoss``: ``Problem.optimal``
makes ``F(x̄) − F(x⋆) ≥ 0``) are ≥ 0, and so are their integrals and conditional expectations
(almost surely; a conclusion ``≤ᵐ`` is read pointwise, almost everywhere).
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from ...engines.proof.proof import Published
from ...engines.proof.scalar import AtomFact, NotReadable, Relation, ScalarForm, divisors_of, role_keys
from ...theory import fedavg as th

__all__ = ["proof_form", "PUBLISHED", "NotReadable"]

_SOURCE = "Wang et al., A Field Guide to Federated Optimization, arXiv:2107.06917v1, Section 6.1.2"
_PROOFS = "prove2me/formalpedia, envs/c5ea003/Solutions/Sol_FedAvg_{}.lean (status: ACCEPTED)"

#: The published FedAvg statements (``lean/PyfedPublished/FedAvg.lean``) whose proofs the
#: published formalization accepted (checked there, at Mathlib c5ea003).
PUBLISHED = {
    name: Published(f"FedAvg.{name}", "lean/PyfedPublished/FedAvg.lean", _PROOFS.format(name), f"{_SOURCE}, {where}")
    for name, where in (("PerRoundProgress", "Lemma 1"), ("BoundedClientDrift", "Lemma 2"),
                        ("ConvexFedAvgConvergence", "Theorem 1, eq. (15)"),
                        ("TunedConvexFedAvgConvergence", "Theorem 1, eqs. (16)-(17)"))}

#: Random variables of the model that are ≥ 0 at every ω (squares, or gaps to the optimum).
_NONNEG_STATS = {"clientDriftSq", "shadowDistanceSq", "roundLoss", "avgLoss"}


class _Reader:
    """Term → sympy (module docstring), recording divisors and atoms."""

    def __init__(self, names: dict):
        self.names = names              # bound name -> symbol
        self.divisors: list = []
        self.atoms: dict = {}           # symbol -> (what, nonneg)
        self.D2 = self.atom("D²", "‖P.x0 − P.xstar‖²", True)

    def atom(self, name, what, nonneg=False):
        s = sympy.Symbol(name)
        self.atoms.setdefault(s, (what, nonneg))
        return s

    def key(self, t) -> str:
        """The canonical text of a term with bound names replaced by their roles."""
        if t.op == "var":
            return str(self.names.get(t.value, t.value))
        if t.op in ("num", "field", "point"):
            return str(t.value)
        inner = ", ".join(self.key(a) if hasattr(a, "op") else str(a) for a in t.args)
        return f"{t.op}[{t.value}]({inner})" if t.value is not None else f"{t.op}({inner})"

    def __call__(self, t):
        op = t.op
        if op == "num":
            v = Fraction(t.value)
            return sympy.Rational(v.numerator, v.denominator)
        if op == "var":
            if t.value not in self.names:
                raise NotReadable(f"`{t.text}`: a name without a symbol")
            return self.names[t.value]
        if op == "field":
            return sympy.Symbol({"L": "L", "σ": "σ", "ζ": "ζ"}.get(str(t.value), str(t.value)))
        if op in ("+", "-", "*"):
            a, b = self(t.args[0]), self(t.args[1])
            if t.sort == "nat" and op == "-":
                raise NotReadable(f"`{t.text}`: natural-number subtraction truncates")
            return a + b if op == "+" else (a - b if op == "-" else a * b)
        if op == "/":
            if t.sort == "nat":
                raise NotReadable(f"`{t.text}`: natural-number division floors")
            a, b = self(t.args[0]), self(t.args[1])
            self.divisors.append(b)
            return a / b
        if op == "inv":
            b = self(t.args[0])
            self.divisors.append(b)
            return 1 / b
        if op == "neg":
            return -self(t.args[0])
        if op == "cast":
            return self(t.args[0])
        if op == "^":
            e = t.args[1]
            if e.op != "num" or Fraction(e.value).denominator != 1:
                raise NotReadable(f"`{t.text}`: an exponent that is not a numeral")
            return self(t.args[0]) ** int(Fraction(e.value))
        if op == "rpow":
            return sympy.Pow(self(t.args[0]), self(t.args[1]), evaluate=False)
        if op == "sqrt":
            return sympy.sqrt(self(t.args[0]))
        if op in ("min", "max"):
            f = sympy.Min if op == "min" else sympy.Max
            return f(self(t.args[0]), self(t.args[1]))
        if op == "abs":
            return sympy.Abs(self(t.args[0]))
        if op == "dist_sq":
            return self.D2
        if op == "fn":
            return self._fn(t)
        if op in ("fstar", "f_x0"):
            return self.atom(op, {"fstar": "objective P.f P.xstar", "f_x0": "objective P.f P.x0"}[op])
        if op in ("stat", "condexp", "integral", "sum", "shadow", "iterate"):
            return self.atom(self.key(t), t.text, self._nonneg(t))
        raise NotReadable(f"`{t.text}` ({op}) has no symbolic reading")

    def _nonneg(self, t) -> bool:
        if t.op == "stat":
            return str(t.value) in _NONNEG_STATS
        if t.op in ("condexp", "integral"):
            return bool(t.args) and hasattr(t.args[0], "op") and self._nonneg(t.args[0])
        return False

    def _fn(self, t):
        args = [self(a) for a in t.args]
        M, L, s, z = sympy.Symbol("M"), sympy.Symbol("L"), sympy.Symbol("σ"), sympy.Symbol("ζ")
        if t.value == "driftRHS":
            tau, eta = args
            return th.drift_rhs(tau, eta, sigma_sq=s ** 2, zeta_sq=z ** 2)
        if t.value == "convergenceRHS":
            tau, T, eta = args
            self.divisors.append(2 * eta * tau * T)
            self.divisors.append(M)
            return th.convergence_rhs(dist_sq=self.D2, M=M, tau=tau, T=T, eta=eta, L=L, sigma_sq=s ** 2,
                                      zeta_sq=z ** 2)
        return self.atom(self.key(t), t.text)


def _roles(st) -> dict:
    out = {}
    for p in st.parameters:
        if p.kind in ("nat", "real", "client") and p.name != "_":
            role = p.role if p.role not in (None, "free", "index") else p.name
            role = {"round": "t", "step": "k", "client": "i"}.get(role, role)
            out[p.name] = sympy.Symbol(role)
    return out


def proof_form(st) -> ScalarForm:
    """The :class:`~pyfed.engines.proof.scalar.ScalarForm` of a FedAvg run statement (module
    docstring); :class:`NotReadable` when a term has no symbolic reading."""
    spec = st.spec
    names = _roles(st)
    rd = _Reader(names)
    lhs, rhs = rd(spec.lhs), rd(spec.rhs)
    eta = rd(spec.run_args["eta"])
    hyps = []
    for h, fh in zip(st.hypotheses, spec.hypotheses):
        hyps.append(Relation(rd(fh.lhs), fh.op, rd(fh.rhs), h.text, h.name, h.key))
    ints = {names[p.name] for p in st.parameters if p.kind in ("nat", "client") and p.name in names}
    M = sympy.Symbol("M")
    facts = [AtomFact(Relation(M, "≥", 1), None, "the Problem's 0 < M"),
             AtomFact(Relation(sympy.Symbol("L"), ">", 0), None, "the Problem's 0 < L"),
             AtomFact(Relation(sympy.Symbol("σ"), "≥", 0), None, "the Problem's 0 ≤ σ"),
             AtomFact(Relation(sympy.Symbol("ζ"), "≥", 0), None, "the Problem's 0 ≤ ζ")]
    for s in ints:
        facts.append(AtomFact(Relation(s, "≥", 0), None, f"{s} is a natural number"))
    for s, (what, nonneg) in rd.atoms.items():
        if nonneg:
            facts.append(AtomFact(Relation(s, "≥", 0), None, f"{what} ≥ 0"))
    shape = f"FedAvg Run ({spec.kind}" + (f", given round {rd.key(spec.round)}" if spec.round is not None else "") + \
        (f", step {sympy.sstr(eta)}" if spec.run_args["eta"].op != "var" else "") + ")"
    rel = {"≤ᵐ": "≤ᵐ", "≤": "≤", "<": "<"}.get(spec.relation, spec.relation)
    lhs_atoms = {s for s in lhs.free_symbols if s in rd.atoms and s != rd.D2}
    display = {sym: name for name, sym in names.items()}
    display.update({sympy.Symbol(f): f"{spec.problem}.{f}" for f in ("L", "σ", "ζ")})
    display.update({s: w for s, (w, _n) in rd.atoms.items()})
    return ScalarForm(model=st.model.tag, name=st.qualified_name, shape=shape, lhs=lhs, rhs=rhs, relation=rel,
                      hypotheses=hyps, structural=[], facts=facts, integers=ints | {M},
                      denominators=divisors_of(rd.divisors),
                      atoms={s: w for s, (w, _n) in rd.atoms.items()},
                      binders=[(p.name, p.role or p.kind) for p in st.parameters], lhs_atoms=lhs_atoms, lhs_text=st.lhs.text, rhs_text=st.rhs.text,
                      display=display, order=[("H", k) for k in range(len(hyps))],
                      keys=role_keys(st.parameters))

