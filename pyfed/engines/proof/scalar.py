"""A statement in the proof engine's terms (:class:`ScalarForm`) and the decision of scalar side
conditions over its whole hypothesis region (:class:`Region`).

A model translates a statement (its hook ``proof_form``) into sympy: the bound ℕ/ℝ parameters
become symbols named by their role (``S``, ``K``, ``eta_l`` …, so that two statements of one model
share them), the model's quantities that are not scalar arithmetic become *atoms* (symbols
standing for ``‖x0 − x⋆‖²``, ``C₀``, a run statistic, an objective value), and the model says
what it knows of each (:class:`AtomFact`: ``‖x0 − x⋆‖² ≥ 0``; ``W_T > 0`` provided
``1 − μh/2 > 0``). Hypotheses are :class:`Relation` objects; structural ones (``Convexity P μ``)
are matched by key.

:class:`Region` turns relations into polynomial facts (:class:`~.positivstellensatz.Fact`):
denominators are cleared only after their sign is proven on the region (Lean's ``x / 0 = 0``
agrees with field division exactly where the divisor is nonzero), strict comparisons of
integer-valued terms are tightened (``a < b`` → ``b − a − 1 ≥ 0``), and what sympy cannot write as
a polynomial (``Real.rpow``, ``Real.sqrt``, ``min``, ``max``, ``|·|``, a sum ``∑ r < T``) becomes
an atom with the facts its construction gives. :meth:`Region.prove` then decides
``lhs op rhs`` by an exact certificate (:func:`~.positivstellensatz.prove`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy

from .intervals import prove_on_box
from .polynomial import Ring
from .positivstellensatz import Fact, prove, refute, sign_symbols
from .proof import Step

__all__ = ["Relation", "Structural", "AtomFact", "ScalarForm", "Region", "relation_text", "NotReadable",
           "divisors_of", "role_keys"]


class NotReadable(Exception):
    """A statement (or a term of it) without a scalar reading; the message says which and why."""


def divisors_of(values) -> list:
    """``[(divisor, where)]``: the distinct divisors among ``values`` that are not numbers (a
    number is decided where it is met)."""
    out = []
    for x in values:
        x = sympy.sympify(x)
        if x.free_symbols and x not in [d for d, _w in out]:
            out.append((x, "a divisor of the statement's terms"))
    return out


def role_keys(parameters) -> dict:
    """``{bound name: key}`` of a run statement's parameters: the role (``S``, ``eta_l``, ``t``),
    or ``free:<name>`` for a parameter without one."""
    return {p.name: (p.role if p.role not in (None, "free") else f"free:{p.name}") for p in parameters}


@dataclass(frozen=True)
class Relation:
    """``lhs op rhs`` with ``op`` in ``≤ < = ≥ >`` (sympy sides); ``text``: its Lean text;
    ``name``: the Lean hypothesis name, if any; ``key``: a stable key."""

    lhs: object
    op: str
    rhs: object
    text: str = ""
    name: str | None = None
    key: str = ""

    def difference(self):
        """``(d, strict, equality)`` with the relation meaning ``d ≥ 0`` (``> 0``; ``= 0``)."""
        if self.op in ("≤", "<"):
            return sympy.sympify(self.rhs) - sympy.sympify(self.lhs), self.op == "<", False
        if self.op in ("≥", ">"):
            return sympy.sympify(self.lhs) - sympy.sympify(self.rhs), self.op == ">", False
        if self.op == "=":
            return sympy.sympify(self.rhs) - sympy.sympify(self.lhs), False, True
        raise ValueError(self.op)


def relation_text(r: Relation) -> str:
    return r.text or f"{sympy.sstr(r.lhs)} {r.op} {sympy.sstr(r.rhs)}"


@dataclass(frozen=True)
class Structural:
    """A hypothesis that is not a scalar comparison (``Convexity P μ``, ``IsMinimizer P x⋆``,
    ``∀ x, fLower ≤ F x``): ``key`` its canonical form (roles, not names), ``text`` its Lean text."""

    key: str
    text: str = ""
    name: str | None = None


@dataclass(frozen=True)
class AtomFact:
    """What the model knows of its quantities: ``fact`` holds on the region when ``premise``
    (a Relation or None) does; ``why`` in words."""

    fact: Relation
    premise: Relation | None = None
    why: str = ""


@dataclass
class ScalarForm:
    """A statement in the proof engine's terms (module docstring).

    model : the model's tag; name : the statement's name; shape : what two statements must share
    to be compared at all (the run type and its initialisation, the conditioning, the family);
    lhs, rhs : sympy expressions (atoms for the model's quantities); relation : ``≤``, ``<``,
    ``=`` or ``≤ᵐ`` (almost surely); hypotheses : scalar :class:`Relation` objects; structural :
    :class:`Structural` hypotheses; facts : :class:`AtomFact` objects (the model's structural
    bounds and what it knows of its atoms); integers : the symbols that are natural numbers;
    denominators : ``[(expr, where)]`` every divisor of the statement's terms and of the model's
    definitions it uses (each must be proven nonzero before field arithmetic is Lean's);
    atoms : ``{symbol: what it stands for}``; binders : ``[(Lean name, role)]`` in order (for the
    Lean skeleton); lhs_atoms : the atoms the left side is built from.
    """

    model: str
    name: str
    shape: str
    lhs: object
    rhs: object
    relation: str
    hypotheses: list = field(default_factory=list)
    structural: list = field(default_factory=list)
    facts: list = field(default_factory=list)
    integers: set = field(default_factory=set)
    denominators: list = field(default_factory=list)
    atoms: dict = field(default_factory=dict)
    binders: list = field(default_factory=list)
    lhs_atoms: set = field(default_factory=set)
    lhs_text: str = ""
    rhs_text: str = ""
    #: how each symbol and atom reads in the statement's own names ({Symbol: text}), for reports
    display: dict = field(default_factory=dict)
    #: {bound name: key}: two statements' names with one key play one part (a role, or the place of
    #: first occurrence); a published statement's names are renamed to the statement's through it
    keys: dict = field(default_factory=dict)
    #: the hypotheses in source order: ``("S", i)`` for ``structural[i]``, ``("H", i)`` for
    #: ``hypotheses[i]``
    order: list = field(default_factory=list)

    def show(self, expr) -> str:
        """``expr`` written with the statement's own names."""
        names = {s: sympy.Symbol(t) for s, t in self.display.items()}
        return sympy.sstr(sympy.sympify(expr).xreplace(names))


# --------------------------------------------------------------------------- atoms of sympy
class _Atomizer:
    """Replaces the subexpressions that are not polynomial arithmetic by atoms (module
    docstring), recording the facts each one comes with."""

    def __init__(self):
        self.atoms: dict = {}          # expr -> symbol
        self.facts: list = []          # AtomFact

    def __call__(self, e):
        e = sympy.sympify(e)
        if e.is_Atom:
            return e
        if isinstance(e, (sympy.Add, sympy.Mul)):
            return e.func(*[self(a) for a in e.args])
        if isinstance(e, sympy.Pow):
            b, x = e.args
            if x.is_Integer:
                return self(b) ** x
            return self._atom(e, self._pow_facts)
        if isinstance(e, (sympy.Min, sympy.Max)):
            return self._atom(e, self._minmax_facts)
        if isinstance(e, sympy.Abs):
            return self._atom(e, self._abs_facts)
        if isinstance(e, sympy.Sum):
            # one canonical index for every sum (two readings make two Dummy indices)
            e = e.xreplace({lim[0]: sympy.Symbol(f"_index{k}") for k, lim in enumerate(e.limits)})
            return self._atom(e, self._sum_facts)
        return self._atom(e, lambda a, e: None)

    def _atom(self, e, facts):
        if e in self.atoms:
            return self.atoms[e]
        a = sympy.Symbol(f"atom{len(self.atoms)}")
        self.atoms[e] = a
        facts(a, e)
        return a

    def _pow_facts(self, a, e):
        b, x = e.args
        bb = self(b)
        self.facts.append(AtomFact(Relation(a, "≥", 0), Relation(bb, "≥", 0), f"{sympy.sstr(e)} ≥ 0 (a power of a "
                                                                            "nonnegative base)"))
        self.facts.append(AtomFact(Relation(a, ">", 0), Relation(bb, ">", 0), f"{sympy.sstr(e)} > 0 (a power of a "
                                                                            "positive base)"))

    def _minmax_facts(self, a, e):
        rel = "≤" if isinstance(e, sympy.Min) else "≥"
        for arg in e.args:
            self.facts.append(AtomFact(Relation(a, rel, self(arg)), None, f"{sympy.sstr(e)} {rel} {sympy.sstr(arg)}"))

    def _abs_facts(self, a, e):
        x = self(e.args[0])
        for r in (Relation(a, "≥", 0), Relation(a, "≥", x), Relation(a, "≥", -x)):
            self.facts.append(AtomFact(r, None, f"|{sympy.sstr(e.args[0])}| ≥ 0, ± its argument"))

    def _sum_facts(self, a, e):
        body, (r, lo, hi) = e.args[0], e.args[1]
        base = body.as_base_exp()[0] if isinstance(body, sympy.Pow) else None
        if base is None or r in base.free_symbols:
            return
        ok = Relation(self(base), ">", 0)
        self.facts.append(AtomFact(Relation(a, "≥", 0), ok,
                                   f"{sympy.sstr(e)} ≥ 0 (every term is a power of {sympy.sstr(base)} > 0)"))
        self.facts.append(AtomFact(Relation(a, ">", 0), _and(ok, Relation(self(hi - lo), "≥", 0)),
                                   f"{sympy.sstr(e)} > 0 (a nonempty sum of powers of {sympy.sstr(base)} > 0)"))


def _and(a: Relation, b: Relation) -> Relation:
    """Both premises (a Relation whose key lists both; :class:`Region` proves each)."""
    return Relation(a, "∧", b, key="and")


# --------------------------------------------------------------------------- the region
class Region:
    """The hypothesis region of one statement: its facts as polynomial inequalities, and exact
    decisions of relations over it (module docstring).

    ``form``: the :class:`ScalarForm` whose hypotheses and the model's facts define the region;
    ``extra``: further :class:`Relation` objects that hold on it (e.g. a published conclusion).
    """

    def __init__(self, form: ScalarForm, extra=(), atomizer: _Atomizer | None = None):
        self.form = form
        self.atomize = atomizer or _Atomizer()
        self.integers = set(form.integers)
        self.base: list = []            # Facts without denominators to clear
        self.steps: list = []           # how the facts were obtained (premises of atom facts)
        self.dropped: list = []         # relations not usable yet (with why)
        self._todo: list = []           # relations waiting for a divisor's sign
        self._cache: dict = {}
        self._pending: list = [af for af in form.facts if af.premise is not None]
        self._absorbed = 0
        for af in form.facts:
            if af.premise is None:
                self._todo.append((af.fact, af.why or relation_text(af.fact), None))
        self._todo += [(r, f"hypothesis `{relation_text(r)}`", r.name) for r in form.hypotheses]
        self._todo += [(r, r.text or relation_text(r), r.name) for r in extra]
        self._absorb()

    # ---------------------------------------------------------------- facts
    def _flush(self) -> bool:
        """Add the waiting relations whose divisors' signs are now proven; True if any was added."""
        added = False
        while self._todo:
            self.dropped, left = [], []
            for r, why, lean in self._todo:
                if not self.add(r, why, lean=lean):
                    left.append((r, why, lean))
            progress = len(left) < len(self._todo)
            self._todo = left
            added = added or progress
            if not progress:
                break
        return added

    def add(self, r: Relation, why: str, lean: str | None = None) -> bool:
        """Add the facts of relation ``r`` (False, with the reason in ``dropped``, when a divisor's
        sign cannot be proven)."""
        try:
            d, strict, eq = r.difference()
        except ValueError:
            self.dropped.append((why, f"relation {r.op} is not used"))
            return False
        made = self._polynomial(self.atomize(d), why)
        if made is None:
            return False
        num, strict = self._tighten(made[0], strict)
        self._cache.clear()
        if eq:
            self.base.append(Fact(num, False, why, lean))
            self.base.append(Fact(-num, False, why, lean))
        else:
            self.base.append(Fact(num, strict, why, lean))
        return True

    def _tighten(self, num, strict) -> tuple:
        """``(expr, strict)``: ``d > 0`` with ``d`` integer-valued (integer coefficients,
        natural-number symbols) becomes ``d − 1 ≥ 0``."""
        if not strict:
            return num, strict
        e = sympy.expand(num)
        syms = sorted(e.free_symbols, key=str)
        if not syms:
            return e, strict
        if set(syms) <= self.integers and all(c.is_Integer for c in sympy.Poly(e, *syms).coeffs()):
            return e - 1, False
        return e, strict

    def _absorb(self):
        """Take in the waiting relations and the facts of the atoms created since the last call
        (a premise is proven first; each proof becomes a step), until nothing changes."""
        for _round in range(6):
            changed = self._flush()
            while self._absorbed < len(self.atomize.facts):
                new = self.atomize.facts[self._absorbed:]
                self._absorbed = len(self.atomize.facts)
                for af in new:
                    if af.premise is None:
                        self._todo.append((af.fact, af.why, None))
                    else:
                        self._pending.append(af)
                changed = True
            changed = self._flush() or changed
            left = []
            for af in self._pending:
                prem = af.premise
                parts = [prem.lhs, prem.rhs] if prem.op == "∧" else [prem]
                certs = []
                for p in parts:
                    c = self._certify_raw(p)
                    if c is None:
                        break
                    certs.append(c)
                if len(certs) == len(parts):
                    self._todo.append((af.fact, af.why, None))
                    self.steps.append(Step(af.why, "premise proven by an exact certificate",
                                           detail="; ".join(c.text() for c in certs)))
                    changed = True
                else:
                    left.append(af)
            self._pending = left
            if not changed:
                break
        self._flush()

    def _polynomial(self, e, why):
        """``(numerator, steps)`` of ``e`` with its denominator's sign proven (numerator times
        that sign), or None (recorded in ``dropped``)."""
        e = sympy.together(sympy.sympify(e))
        num, den = sympy.fraction(e)
        den = sympy.expand(den)
        if den.free_symbols:
            pos = self._sign(den)
            if pos is None:
                self.dropped.append((why, f"the sign of the divisor {sympy.sstr(den)} is not proven"))
                return None
            return (sympy.expand(num if pos > 0 else -num), [])
        return (sympy.expand(num / den), [])

    def _sign(self, den):
        """+1 / -1 when ``den > 0`` / ``den < 0`` is proven from the facts so far, else None."""
        for s, target in ((1, den), (-1, -den)):
            c0, parts = sympy.factor_list(target)
            # a product of factors each proven positive (or even powers of nonzero ones)
            if c0 > 0 and all(self._positive(f) or (k % 2 == 0 and self._nonzero(f)) for f, k in parts):
                return s
        for s, target in ((1, den), (-1, -den)):
            if self._prove(target, True) is not None:
                return s
        return None

    def _prove(self, target, strict):
        key = (sympy.srepr(sympy.expand(target)), strict)
        if key not in self._cache:
            self._cache[key] = prove(target, self.base, strict=strict)
        return self._cache[key]

    def _positive(self, f) -> bool:
        if f.is_Symbol:
            known = sign_symbols(Ring([f]), [b for b in self.base if b.expr.free_symbols == {f}])
            if known.get(f):
                return True
        return self._prove(f, True) is not None

    def _nonzero(self, f) -> bool:
        return self._positive(f) or self._positive(-f)

    # ---------------------------------------------------------------- decisions
    def certify(self, r: Relation):
        """An exact certificate of relation ``r`` on the region (``=`` by a symbolic identity:
        returned as a certificate of both inequalities), or None."""
        self.atomize(sympy.sympify(r.lhs) - sympy.sympify(r.rhs))
        self._absorb()
        return self._certify_raw(r)

    def _certify_raw(self, r: Relation):
        try:
            d, strict, eq = r.difference()
        except ValueError:
            return None
        made = self._polynomial(self.atomize(d), relation_text(r))
        if made is None:
            return None
        num = made[0]
        if eq:
            if sympy.expand(num) == 0:
                return self._prove(sympy.Integer(0), False)
            a, b = self._prove(num, False), self._prove(-num, False)
            return a if (a is not None and b is not None) else None
        cert = self._prove(num, strict)
        if cert is None and strict:
            tight, still = self._tighten(num, strict)
            if not still:
                cert = self._prove(tight, False)
        if cert is None:        # a bounded region: a certified interval subdivision
            cert = prove_on_box(num, self.base, strict=strict)
        return cert

    def step(self, r: Relation, claim: str, name: str = "") -> Step:
        """The step "``claim``" proven by :meth:`certify` (``ok`` False with the reason when not)."""
        cert = self.certify(r)
        if cert is None:
            why = f"no exact certificate of {r.text or self.form.show(r.lhs) + ' ' + r.op + ' ' + self.form.show(r.rhs)} " \
                  "from the hypotheses found"
            if self.dropped:
                why += "; not used: " + "; ".join(f"{w} ({d})" for w, d in self.dropped[:3])
            return Step(claim, "exact certificate (Positivstellensatz)", ok=False, detail=why, name=name)
        cert.names = self.names()
        return Step(claim, "exact certificate (Positivstellensatz)", ok=True, detail=cert.text(), certificate=cert,
                    name=name)

    def names(self) -> dict:
        """Display names of the symbols and atoms (the statement's own names), for certificates."""
        out = {s: sympy.Symbol(t) for s, t in self.form.display.items()}
        for e, a in self.atomize.atoms.items():
            out[a] = sympy.Symbol(self.form.show(e))
        return out

    def nonzero_step(self, den, where: str) -> Step:
        """The step "``den ≠ 0``" (its sign proven), for a divisor of the terms."""
        e = self.atomize(den)
        self._absorb()
        made = self._polynomial(e, where)
        shown = self.form.show(den)
        if made is None:
            return Step(f"{where}: {shown} ≠ 0", "sign of the divisor", ok=False,
                        detail=f"the sign of {shown} is not proven")
        s = self._sign(sympy.expand(made[0])) if sympy.expand(made[0]).free_symbols else \
            (1 if made[0] > 0 else (-1 if made[0] < 0 else None))
        ok = s is not None
        return Step(f"{where}: {shown} {'>' if s == 1 else '<' if s == -1 else '≠'} 0",
                    "sign of the divisor (exact certificate)", ok=ok,
                    detail="" if ok else f"the sign of {shown} on the hypothesis region is not proven")

    def extended(self, extra) -> "Region":
        """A copy of this region with the relations ``extra`` added (its facts so far reused)."""
        out = Region.__new__(Region)
        out.__dict__.update(self.__dict__)
        out.base, out.steps, out.dropped = list(self.base), list(self.steps), list(self.dropped)
        out._todo = list(self._todo) + [(r, r.text or relation_text(r), r.name) for r in extra]
        out._pending, out._cache = list(self._pending), {}
        out._absorb()
        return out

    def identical(self, a, b) -> bool:
        """Whether ``a`` and ``b`` are the same expression (atoms shared, rational functions
        compared after cancellation)."""
        return sympy.cancel(sympy.together(self.atomize(sympy.sympify(a) - sympy.sympify(b)))) == 0

    def contradiction(self):
        """An exact certificate that the region is empty, or None."""
        self._absorb()
        return refute(self.base) or prove_on_box(0, self.base, refute=True)
