"""Run-free statements in the proof engine's terms: the scalar reading (:func:`proof_form`), closed
statements (:func:`closed_proof`) and the published run-free statements with accepted proofs
(:data:`PUBLISHED`).

The scalar reading of an elaborated term: numerals, ℕ/ℝ parameters (symbols), ``+ − * /``,
natural powers, ``⁻¹``, casts, ``|·|``, ``Real.sqrt``, ``Real.rpow``, ``min``/``max`` are sympy;
every other real-valued subterm (a norm, an inner product, a function value, a sum over clients,
an objective, a model definition) is an *atom* keyed by its canonical text, the statement's bound
names renamed by their first occurrence (conclusion, then hypotheses, then binders), so a
statement and a published one with other names share their atoms. Facts: a norm, ``|·|`` and a
sum of squared norms are ≥ 0; a ``Problem d N`` gives ``0 < N``, ``0 < P.β``, ``0 ≤ P.σ``;
``Convexity P μ`` gives ``0 ≤ μ``. Hypotheses that are not comparisons (``∀ x y, …``,
``Convexity P μ``, ``IsMinimizer P x⋆``, ``HasGradientAt …``) are matched by their canonical
text.
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from ...engines.proof.proof import Proof, Published, Step
from ...engines.proof.scalar import AtomFact, NotReadable, Relation, ScalarForm, Structural, divisors_of
from .search import decide_lemma_instance

__all__ = ["proof_form", "closed_proof", "PUBLISHED", "NotReadable", "Canon"]

_PROOFS = "prove2me/formalpedia, envs/c5ea003/Solutions/Sol_SCAFFOLD_{}.lean (status: ACCEPTED)"
_SOURCE = "Karimireddy et al., SCAFFOLD, ICML 2020, arXiv:1910.06378v4"

#: The published run-free statements (``lean/PyfedPublished/Scaffold.lean``) with accepted proofs.
PUBLISHED = {
    name: Published(f"SCAFFOLD.{name}", "lean/PyfedPublished/Scaffold.lean", _PROOFS.format(name), f"{_SOURCE}, {where}")
    for name, where in (("GradientGrowth", "Appendix B.1, inequality (9)"),
                        ("PerturbedStrongConvexity", "Appendix C, Lemma 5"))}

_COMPARE = ("≤", "<", "=", "≥", ">")


def _head(node) -> str:
    h = node.head_name() if node.kind == "app" else None
    return (h or "").removeprefix("SCAFFOLD.").removeprefix("_root_.")


class Canon:
    """Canonical names of a statement's bound names: by first occurrence in the conclusion, the
    hypotheses and the binders (``v0``, ``v1`` …); bound variables of sums and binders inside a
    term by their depth (``b0`` …)."""

    def __init__(self, st):
        self.names: dict = {}
        params = {p.name for p in st.parameters}
        for node in [st.lhs, st.rhs] + [h.node for h in st.hypotheses]:
            if node is None:
                continue
            for n in node.walk():
                if n.kind == "ident":
                    base = str(n.value).split(".")[0]
                    if base in params and base not in self.names:
                        self.names[base] = f"v{len(self.names)}"
        for p in st.parameters:
            self.names.setdefault(p.name, f"v{len(self.names)}")

    def ident(self, name: str, bound: dict) -> str:
        base, dot, rest = str(name).partition(".")
        if base in bound:
            return bound[base] + dot + rest
        if base in self.names:
            return self.names[base] + dot + rest
        return str(name)

    def text(self, node, bound=None) -> str:
        """The canonical text of a term."""
        bound = dict(bound or {})
        k = node.kind
        if k == "ident":
            return self.ident(node.value, bound)
        if k == "num":
            return str(node.value)
        if k in ("sum", "fun") and isinstance(node.value, str):
            inner = dict(bound, **{node.value: f"b{len(bound)}"})
            return f"{k}[{inner[node.value]}](" + ", ".join(self.text(a, inner) if a is not None else "-"
                                                           for a in node.args) + ")"
        if k in ("forall", "exists") and isinstance(node.value, list):
            inner = dict(bound)
            for b in node.value:
                inner[b.name] = f"b{len(inner)}"
            return f"{k}[{','.join(inner[b.name] for b in node.value)}](" + \
                ", ".join(self.text(a, inner) for a in node.args if a is not None) + ")"
        args = ", ".join(self.text(a, bound) if hasattr(a, "kind") else str(a) for a in (node.args or []))
        val = "" if node.value is None or not isinstance(node.value, (str, int, Fraction)) else str(node.value)
        return f"{k}[{val}]({args})"


class _Reader:
    """Elaborated term → sympy (module docstring)."""

    def __init__(self, st, canon: Canon):
        self.st, self.canon = st, canon
        self.kinds = {p.name: p.kind for p in st.parameters}
        self.atoms: dict = {}          # symbol -> (what, nonneg)
        self.divisors: list = []

    def atom(self, node, nonneg=False):
        s = sympy.Symbol(f"⟨{self.canon.text(node)}⟩")
        if s not in self.atoms:
            self.atoms[s] = (node.text, nonneg)
        return s

    def __call__(self, node, bound=None):
        k = node.kind
        ty = getattr(node, "ty", None)
        if k == "num":
            v = Fraction(node.value)
            return sympy.Rational(v.numerator, v.denominator)
        if k == "ident":
            name = str(node.value)
            if name in self.kinds and self.kinds[name] in ("nat", "real"):
                return sympy.Symbol(self.canon.ident(name, {}))
            if "." in name and name.rsplit(".", 1)[1] in ("β", "σ"):
                return sympy.Symbol(self.canon.ident(name, {}))
            if ty in ("real", "nat"):
                return self.atom(node)
            raise NotReadable(f"`{node.text}` is not a number")
        if k in ("cast", "coe"):
            return self(node.args[0])
        if k == "neg":
            return -self(node.args[0])
        if k == "inv":
            b = self(node.args[0])
            self.divisors.append(b)
            return 1 / b
        if k == "abs":
            return sympy.Abs(self(node.args[0]))
        if k == "norm":
            return self.atom(node, nonneg=True)
        if k == "binop" and ty in ("real", "nat"):
            return self._binop(node)
        if k == "app" and ty in ("real", "nat"):
            h = _head(node)
            if h == "Real.sqrt":
                return sympy.sqrt(self(node.args[1]))
            if h == "Real.rpow":
                return sympy.Pow(self(node.args[1]), self(node.args[2]), evaluate=False)
            if h in ("min", "max"):
                f = sympy.Min if h == "min" else sympy.Max
                return f(self(node.args[1]), self(node.args[2]))
            return self.atom(node)
        if k == "sum" and ty in ("real",):
            body = node.args[1] if len(node.args) > 1 else None
            nonneg = body is not None and body.kind == "binop" and body.value == "^" and \
                body.args[0].kind == "norm" and body.args[1].kind == "num" and int(body.args[1].value) % 2 == 0
            return self.atom(node, nonneg=nonneg)
        if ty in ("real", "nat"):
            return self.atom(node)
        raise NotReadable(f"`{node.text}` ({k}) is not a number")

    def _binop(self, node):
        op = node.value
        if op == "^":
            e = node.args[1]
            try:
                n = sympy.sympify(self(e))
            except NotReadable:
                n = None
            if n is None or not n.is_Integer or n < 0:
                return self.atom(node)
            return self(node.args[0]) ** int(n)
        a, b = self(node.args[0]), self(node.args[1])
        if node.ty == "nat" and op in ("-", "/", "%"):
            if a.is_Integer and b.is_Integer:
                ai, bi = int(a), int(b)
                return sympy.Integer(max(ai - bi, 0) if op == "-" else (ai // bi if bi else 0) if op == "/"
                                     else (ai % bi if bi else ai))
            return self.atom(node)
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op in ("*", "•"):
            return a * b
        if op == "/":
            self.divisors.append(b)
            return a / b
        raise NotReadable(f"`{node.text}`: operator {op}")


def proof_form(st) -> ScalarForm:
    """The :class:`~pyfed.engines.proof.scalar.ScalarForm` of a run-free statement (module
    docstring); :class:`NotReadable` when its conclusion is not a comparison of numbers."""
    if st.relation not in ("≤", "<", "=") or st.rhs is None:
        raise NotReadable(f"the conclusion `{getattr(st.conclusion, 'text', '')[:60]}` is not a comparison")
    if getattr(st.lhs, "ty", None) not in ("real", "nat"):
        raise NotReadable("the conclusion does not compare numbers")
    canon = Canon(st)
    rd = _Reader(st, canon)
    lhs, rhs = rd(st.lhs), rd(st.rhs)
    hyps, structural, facts = [], [], []
    ints = {sympy.Symbol(canon.ident(p.name, {})) for p in st.parameters if p.kind == "nat"}
    for s in ints:
        facts.append(AtomFact(Relation(s, "≥", 0), None, f"{s} is a natural number"))
    for p in st.parameters:
        if p.kind == "problem":
            n = p.lty.args[2] if hasattr(p.lty, "args") and len(p.lty.args) > 2 else None
            name = canon.ident(p.name, {})
            facts += [AtomFact(Relation(sympy.Symbol(f"{name}.β"), ">", 0), None, f"the Problem {p.name}'s 0 < β"),
                      AtomFact(Relation(sympy.Symbol(f"{name}.σ"), "≥", 0), None, f"the Problem {p.name}'s 0 ≤ σ")]
            if n is not None and getattr(n, "kind", "") == "ident" and str(n.value) in rd.kinds:
                facts.append(AtomFact(Relation(sympy.Symbol(canon.ident(str(n.value), {})), "≥", 1), None,
                                      f"the Problem {p.name}'s 0 < N"))
    order = []
    for h in st.hypotheses:
        node = h.node
        if node.kind == "binop" and node.value in _COMPARE and getattr(node.args[0], "ty", None) in ("real", "nat"):
            try:
                hyps.append(Relation(rd(node.args[0]), node.value, rd(node.args[1]), h.text, h.name, h.key))
                order.append(("H", len(hyps) - 1))
                continue
            except NotReadable:
                pass
        order.append(("S", len(structural)))
        structural.append(Structural(canon.text(node), h.text, h.name))
        if _head(node) == "Convexity" and len(node.args) == 3:
            try:
                facts.append(AtomFact(Relation(rd(node.args[2]), "≥", 0), None, f"`{h.text}` gives 0 ≤ μ"))
            except NotReadable:
                pass
    for s, (what, nonneg) in rd.atoms.items():
        if nonneg:
            facts.append(AtomFact(Relation(s, "≥", 0), None, f"{what} ≥ 0"))
    lhs_atoms = {s for s in sympy.sympify(lhs).free_symbols if s in rd.atoms}
    display = {sympy.Symbol(v): name for name, v in canon.names.items()}
    for name, v in canon.names.items():
        display[sympy.Symbol(f"{v}.β")], display[sympy.Symbol(f"{v}.σ")] = f"{name}.β", f"{name}.σ"
    display.update({s: w for s, (w, _n) in rd.atoms.items()})
    return ScalarForm(model=st.model.tag, name=st.qualified_name, shape=f"run-free {st.family}", lhs=lhs, rhs=rhs,
                      relation=st.relation, hypotheses=hyps, structural=structural, facts=facts, integers=ints,
                      denominators=divisors_of(rd.divisors),
                      atoms={s: w for s, (w, _n) in rd.atoms.items()},
                      binders=[(p.name, p.kind) for p in st.parameters], lhs_atoms=lhs_atoms, lhs_text=st.lhs.text, rhs_text=st.rhs.text,
                      display=display, order=order, keys=dict(canon.names))


def closed_proof(st):
    """The proof of a statement with nothing left to quantify over (no parameter, no hypothesis):
    its conclusion decided exactly (:func:`pyfed.models.runfree.search.decide_lemma_instance`);
    None otherwise or when it does not hold (the search reports the violation)."""

    if st.parameters or st.hypotheses:
        return None
    rec = decide_lemma_instance(st, {})
    if rec.status != "holds":
        return None
    sides = f": left side {rec.lhs} {st.relation} right side {rec.rhs}" if rec.lhs is not None else ""
    return Proof(st.qualified_name, "closed",
                 [Step(f"the conclusion `{st.conclusion.text}` evaluated exactly{sides}", "exact evaluation (rationals)")],
                 summary=f"nothing is quantified; `{st.conclusion.text}` decided exactly{sides}")
