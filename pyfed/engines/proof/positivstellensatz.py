"""Exact certificates of polynomial inequalities under polynomial hypotheses (Positivstellensatz
style, with a linear program as the oracle).

To prove ``t ≥ 0`` (or ``t > 0``) on the region where every fact ``p_i ≥ 0`` (``p_i > 0``) holds,
:func:`prove` looks for an identity

    t = Σ_k c_k · m_k · Π_{i ∈ I_k} p_i  +  Σ_l d_l · (a_l ± b_l)²,     c_k, d_l ≥ 0 rational,

where each ``I_k`` has at most two facts, each ``m_k`` is a monomial in variables the facts make
nonnegative (``x ≥ 0`` read from a fact ``a x + b ≥ 0``, ``a > 0 ≥ b``) and each ``(a ± b)²`` is a
square of monomials (diagonally dominant sums of squares). Every summand is nonnegative on the
region, so the identity proves ``t ≥ 0``; ``t > 0`` needs one summand with a positive coefficient
that is strictly positive there (strict facts and positive variables only, no square). The
identity is found by a linear program in floating point (scipy's HiGHS) and then rebuilt exactly:
the solver's support is solved again over ℚ and the identity is checked coefficient by
coefficient in exact rationals (:meth:`Certificate.verify`); a float never decides anything.
Refuting a region (vacuity) is proving ``-1 ≥ 0`` or ``0 > 0`` from its facts
(:func:`refute`).

Incomplete by design (bounded degree, two facts per product): a failure proves nothing and is
reported as "not proven".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations_with_replacement

import numpy as np
import sympy

from .polynomial import NotPolynomial, Ring, mono_degree, mono_div, mono_mul, monomial_text

__all__ = ["Fact", "Summand", "Certificate", "prove", "refute", "sign_symbols"]

#: give up (no proof) above this many generator columns
_MAX_COLUMNS = 20000
#: multipliers are bounded in the linear program (scale only; the exact solve removes the bound)
_BOUND = 1e6


@dataclass(frozen=True)
class Fact:
    """``expr ≥ 0`` (``> 0`` when ``strict``) on the region; ``why``: where it comes from, in
    words (``hypothesis `0 < ηl```, ``the model's S ≤ N``); ``lean``: the Lean name of a
    hypothesis proving it, when there is one (the Lean skeleton's hints)."""

    expr: object
    strict: bool = False
    why: str = ""
    lean: str | None = None

    def text(self) -> str:
        return f"{sympy.sstr(self.expr)} {'>' if self.strict else '≥'} 0"


@dataclass
class Summand:
    """One term of a certificate: ``coef · monomial · Π facts`` or ``coef · square``
    (``square = (a, sign, b)``: ``(a + sign·b)²`` of monomials a, b; ``b`` None: ``a²``)."""

    coef: Fraction
    facts: tuple = ()
    mono: tuple | None = None
    square: tuple | None = None


@dataclass
class Certificate:
    """An exact certificate of ``target ≥ 0`` (``> 0``) from ``facts`` (see the module
    docstring): ``signs`` maps each variable used as a nonnegative multiplier to the index of
    the fact that makes it nonnegative (and ``positive`` those proven strictly positive)."""

    ring: Ring
    target: dict
    strict: bool
    facts: list
    summands: list
    signs: dict = field(default_factory=dict)
    positive: set = field(default_factory=set)
    #: a monomial m of variables proven > 0 by which the target was multiplied: the identity is
    #: for m · target (m > 0, so m · target ≥ 0 proves target ≥ 0); None: m = 1
    scale: tuple | None = None

    def scaled_target(self) -> dict:
        if self.scale is None:
            return self.target
        return self.ring.mul(self.ring.monomial(self.scale), self.target)

    # ------------------------------------------------------------------ exact check
    def generator(self, s: Summand) -> dict:
        """The polynomial of one summand without its coefficient."""
        R = self.ring
        if s.square is not None:
            a, sign, b = s.square
            base = R.monomial(a) if b is None else R.add(R.monomial(a), R.monomial(b), Fraction(sign))
            return R.mul(base, base)
        out = R.monomial(s.mono)
        for i in s.facts:
            out = R.mul(out, _poly_of(R, self.facts[i].expr))
        return out

    def verify(self) -> tuple:
        """``(ok, why)``: every coefficient is ≥ 0, every monomial multiplier is a product of
        variables the facts make nonnegative, ``target − Σ summands`` is the zero polynomial
        (exact rationals; the sympy expansion of both sides agrees too) and, for a strict claim,
        one summand with a positive coefficient is strictly positive on the region."""
        R = self.ring
        if self.scale is not None:
            for sym, e in zip(R.symbols, self.scale):
                i = self.signs.get(sym)
                if e and (i is None or sign_symbols(R, [self.facts[i]]).get(sym) is not True):
                    return False, f"target multiplier {monomial_text(self.scale, R.symbols)}: no fact makes {sym} > 0"
        rest = dict(self.scaled_target())
        strict_ok = False
        for s in self.summands:
            if s.coef < 0:
                return False, f"negative coefficient {s.coef}"
            if s.square is None:
                for sym, e in zip(R.symbols, s.mono):
                    if e % 2 and sym not in self.signs:
                        return False, f"multiplier {monomial_text(s.mono, R.symbols)}: {sym} not known ≥ 0"
                if s.coef > 0 and all(self.facts[i].strict for i in s.facts) and \
                        all(e == 0 or sym in self.positive for sym, e in zip(R.symbols, s.mono)):
                    strict_ok = True
            rest = R.add(rest, self.generator(s), -s.coef)
        if rest:
            return False, f"identity fails: remainder {R.text(rest)}"
        check = sympy.expand(R.expr(self.scaled_target()) - sum((sympy.Rational(s.coef.numerator, s.coef.denominator)
                                                        * R.expr(self.generator(s)) for s in self.summands),
                                                       sympy.Integer(0)))
        if check != 0:
            return False, f"identity fails: remainder {check}"
        if self.strict and not strict_ok:
            return False, "no summand is strictly positive"
        for sym, i in self.signs.items():
            if sign_symbols(R, [self.facts[i]]).get(sym) is None:
                return False, f"fact {i} does not make {sym} nonnegative"
        return True, ""

    # ------------------------------------------------------------------ words
    #: display names of the ring's symbols ({Symbol: Symbol}) used by the texts below
    names: dict = field(default_factory=dict)

    def _show(self, expr) -> str:
        return sympy.sstr(sympy.sympify(expr).xreplace(self.names)) if self.names else sympy.sstr(expr)

    def _mono(self, mono) -> str:
        return self._show(self.ring.expr(self.ring.monomial(mono)))

    def summand_text(self, s: Summand) -> str:
        c = _qtext(s.coef)
        if s.square is not None:
            a, sign, b = s.square
            inner = self._mono(a) if b is None else f"{self._mono(a)} {'+' if sign > 0 else '-'} {self._mono(b)}"
            return f"{c}·({inner})²"
        parts = [f"({self._show(self.facts[i].expr)})" for i in s.facts]
        m = self._mono(s.mono)
        if m != "1":
            parts.insert(0, m)
        return f"{c}·" + "·".join(parts or ["1"])

    def text(self) -> str:
        """``t = c₁·(fact)·… + …`` (the identity, exact)."""
        body = " + ".join(self.summand_text(s) for s in self.summands) or "0"
        head = self._show(self.ring.expr(self.target))
        if self.scale is not None:
            head = f"{self._mono(self.scale)}·({head})"
        return f"{head} = {body}"

    def used_facts(self) -> list:
        """Indices of the facts the identity uses (its hypotheses and sign facts)."""
        used = {i for s in self.summands if s.square is None for i in s.facts}
        for s in self.summands:
            if s.square is None:
                for sym, e in zip(self.ring.symbols, s.mono):
                    if e % 2 and sym in self.signs:
                        used.add(self.signs[sym])
        return sorted(used)

    def lean_hints(self) -> list:
        """Terms for ``nlinarith [...]`` (which also uses every hypothesis in context): each
        square of the identity, ``sq_nonneg (a - b)`` (Mathlib's ``sq_nonneg``)."""
        out = []
        for s in self.summands:
            if s.square is not None:
                a, sign, b = s.square
                t = self._mono(a) if b is None else f"{self._mono(a)} {'+' if sign > 0 else '-'} {self._mono(b)}"
                out.append(f"sq_nonneg ({t.replace('**', ' ^ ').replace('*', ' * ')})")
        return list(dict.fromkeys(out))

    def to_json(self) -> dict:
        used = self.used_facts()
        return {"identity": _cap(self.text()), "strict": self.strict,
                "facts": [{"fact": _cap(f"{self._show(self.facts[i].expr)} {'>' if self.facts[i].strict else '≥'} 0"),
                           "why": _cap(self.facts[i].why)} for i in used],
                "summands": [_cap(self.summand_text(s)) for s in self.summands]}


#: longest text of a certificate in a JSON report (the exact certificate is the Python object and the
#: files ``pyfed check --out`` writes; a report keeps its strings short)
REPORT_CHARS = 300


def _cap(text: str) -> str:
    """``text``, or its first characters and how long it is when it is longer than
    :data:`REPORT_CHARS`."""
    return text if len(text) <= REPORT_CHARS else f"{text[:REPORT_CHARS - 40]}… ({len(text)} characters)"


def _qtext(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


# --------------------------------------------------------------------------- signs of variables
def sign_symbols(ring: Ring, facts) -> dict:
    """``{symbol: strict}`` for every symbol a single fact ``a x + b ≥ 0`` (``> 0``) with ``a > 0``
    and ``b ≤ 0`` makes nonnegative (strict when ``b < 0`` or the fact is strict)."""
    out: dict = {}
    for f in facts:
        p = _poly_of(ring, f.expr)
        if p is None:
            continue
        lin = [m for m in p if mono_degree(m) == 1]
        if len(lin) != 1 or any(mono_degree(m) > 1 for m in p):
            continue
        m = lin[0]
        a, b = p[m], p.get(ring.one_mono, Fraction(0))
        if a > 0 and b <= 0:
            sym = ring.symbols[m.index(1)]
            strict = f.strict or b < 0
            out[sym] = out.get(sym, False) or strict
    return out


# --------------------------------------------------------------------------- search
def prove(target, facts, *, strict: bool = False, extra_degree: int = 2) -> Certificate | None:
    """A verified :class:`Certificate` of ``target ≥ 0`` (``> 0`` when ``strict``) from ``facts``
    (a list of :class:`Fact`), or None when none is found (which proves nothing). ``target``: a
    sympy polynomial expression with rational coefficients. When the target itself has no
    certificate, it is multiplied by each variable the facts make strictly positive in turn
    (``m · t ≥ 0`` with ``m > 0`` proves ``t ≥ 0``)."""
    cert = _prove(target, facts, strict, extra_degree, None)
    if cert is not None:
        return cert
    tvars = set(sympy.sympify(target).free_symbols)
    syms = set(tvars)
    for f in facts:
        syms |= sympy.sympify(f.expr).free_symbols
    ring = Ring(sorted(syms, key=str))
    # multipliers: variables proven > 0 that the target lacks but that share a fact with it
    near = set()
    for f in facts:
        fs = sympy.sympify(f.expr).free_symbols
        if fs & tvars:
            near |= fs - tvars
    for s, st in sign_symbols(ring, facts).items():
        if st and s in near:
            mono = tuple(1 if x == s else 0 for x in ring.symbols)
            cert = _prove_stage(target, facts, strict, extra_degree, mono, 1)
            if cert is not None:
                return cert
    return None


def _prove(target, facts, strict, extra_degree, scale) -> Certificate | None:
    for stage in (1, 2):
        cert = _prove_stage(target, facts, strict, extra_degree, scale, stage)
        if cert is not None:
            return cert
    return None


def _prove_stage(target, facts, strict, extra_degree, scale, stage) -> Certificate | None:
    """Stage 1: single facts times monomials (most side conditions); stage 2: also products of
    two facts and squares of monomials."""
    facts = list(facts)
    syms = set(sympy.sympify(target).free_symbols)
    for f in facts:
        syms |= sympy.sympify(f.expr).free_symbols
    ring = Ring(sorted(syms, key=str))
    try:
        t0 = ring.poly(target)
    except NotPolynomial:
        return None
    t = t0 if scale is None else ring.mul(ring.monomial(scale), t0)
    polys = []
    for i, f in enumerate(facts):
        p = _poly_of(ring, f.expr)
        if p is not None:
            polys.append((i, p))
    if not strict and (not t or all(c > 0 for c in t.values()) and list(t) == [ring.one_mono]):
        # a nonnegative constant (or 0): nothing to combine
        cert = Certificate(ring, t, strict, facts, [Summand(t.get(ring.one_mono, Fraction(0)), (), ring.one_mono)]
                           if t else [])
        return cert if cert.verify()[0] else None
    signs = {}
    for i, p in polys:
        for sym, st in sign_symbols(ring, [facts[i]]).items():
            if sym not in signs or (st and sym not in _positive(signs)):
                signs[sym] = (i, st)
    sign_idx = {s: v[0] for s, v in signs.items()}
    positive = {s for s, v in signs.items() if v[1]}
    cols = _generators(ring, t, polys, facts, sign_idx, positive, extra_degree, stage)
    if not cols or len(cols) > _MAX_COLUMNS:
        return None
    sol = _solve_lp(ring, t, cols, strict)
    if sol is None:
        return None
    summands = _exact(ring, t, cols, sol, strict)
    if summands is None:
        return None
    cert = Certificate(ring, t0, strict, facts, summands, {s: sign_idx[s] for s in sign_idx}, positive, scale)
    # keep only the sign facts the multipliers need
    needed = {sym for s in summands if s.square is None for sym, e in zip(ring.symbols, s.mono) if e % 2}
    needed |= {sym for sym, e in zip(ring.symbols, scale or ()) if e}
    cert.signs = {s: i for s, i in cert.signs.items() if s in needed}
    ok, _why = cert.verify()
    return cert if ok else None


_POLY_CACHE: dict = {}


def _poly_of(ring: Ring, expr) -> dict | None:
    """``ring.poly(expr)`` (None when not a polynomial), cached: the same facts are converted for
    every target of a region."""
    key = (ring.symbols, expr)
    if key not in _POLY_CACHE:
        if len(_POLY_CACHE) > 20000:
            _POLY_CACHE.clear()
        try:
            _POLY_CACHE[key] = ring.poly(expr)
        except NotPolynomial:
            _POLY_CACHE[key] = None
    return _POLY_CACHE[key]


def refute(facts) -> Certificate | None:
    """A certificate that ``facts`` have no common solution (``-1 ≥ 0`` or ``0 > 0`` proven from
    them), or None."""
    return prove(sympy.Integer(-1), facts) or prove(sympy.Integer(0), facts, strict=True)


def _positive(signs) -> set:
    return {s for s, v in signs.items() if v[1]}


@dataclass
class _Col:
    poly: dict
    summand: Summand
    strict: bool


def _nonneg_mono(mono, ring, signs) -> bool:
    return all(e % 2 == 0 or ring.symbols[k] in signs for k, e in enumerate(mono))


def _generators(ring, t, polys, facts, signs, positive, extra_degree, stage=2) -> list:
    """The candidate columns (module docstring), chosen from the monomials of the target and of
    the facts so that the program stays small."""
    R = ring
    prods = [((), R.const(1))]
    singles = [((i,), p) for i, p in polys]
    prods += singles
    if stage > 1 and len(singles) <= 40:
        for (a, pa), (b, pb) in combinations_with_replacement(singles, 2):
            prods.append((a + b, R.mul(pa, pb)))
    support = set(t)
    for _, p in singles:
        support |= set(p)
    dmax = max([R.degree(t)] + [R.degree(p) for _, p in singles]) + extra_degree
    cols, seen = [], set()

    def add(poly, summand, strict):
        key = (summand.facts, summand.mono, summand.square)
        if key in seen or not poly:
            return
        seen.add(key)
        cols.append(_Col(poly, summand, strict))

    targets = set(t)
    for idx, p in prods:
        if R.degree(p) > dmax:
            continue
        strict_p = all(facts[i].strict for i in idx)
        for u in p:
            for w in (targets if idx and stage == 1 else support):
                m = mono_div(w, u)
                if m is None or not _nonneg_mono(m, R, signs) or R.degree(p) + mono_degree(m) > dmax:
                    continue
                strict_m = all(e == 0 or R.symbols[k] in positive for k, e in enumerate(m))
                add(R.mul(R.monomial(m), p), Summand(Fraction(0), idx, m), strict_p and strict_m)
            if len(cols) > _MAX_COLUMNS:
                return cols
    # squares of monomials: a², (a ± b)² with a·b a monomial of the support
    if stage == 1:
        return cols
    for w in support:
        for a in _divisors(w):
            b = mono_div(w, a)
            if b is None or a > b:
                continue
            for x in (a, b):
                sq = mono_mul(x, x)
                if mono_degree(sq) <= dmax:
                    add(R.monomial(sq), Summand(Fraction(0), (), None, (x, 0, None)), False)
            if a != b and 2 * max(mono_degree(a), mono_degree(b)) <= dmax:
                for sign in (1, -1):
                    base = R.add(R.monomial(a), R.monomial(b), Fraction(sign))
                    add(R.mul(base, base), Summand(Fraction(0), (), None, (a, sign, b)), False)
        if len(cols) > _MAX_COLUMNS:
            break
    return cols


def _divisors(w: tuple):
    """Every monomial dividing ``w``."""
    out = [()]
    for e in w:
        out = [m + (k,) for m in out for k in range(e + 1)]
    return out


def _solve_lp(ring, t, cols, strict):
    from scipy.optimize import linprog
    from scipy.sparse import lil_matrix

    monos = {}
    for m in t:
        monos.setdefault(m, len(monos))
    for c in cols:
        for m in c.poly:
            monos.setdefault(m, len(monos))
    A = lil_matrix((len(monos), len(cols)))
    for j, c in enumerate(cols):
        for m, v in c.poly.items():
            A[monos[m], j] = float(v)
    b = np.zeros(len(monos))
    for m, v in t.items():
        b[monos[m]] = float(v)
    if strict:
        cost = np.array([-1.0 if c.strict else 1e-6 for c in cols])
    else:
        cost = np.ones(len(cols))
    try:
        res = linprog(cost, A_eq=A.tocsr(), b_eq=b, bounds=(0, _BOUND), method="highs-ds")
    except (ValueError, MemoryError):
        return None
    if res.status != 0 or res.x is None:
        return None
    if strict and not any(res.x[j] > 1e-9 and c.strict for j, c in enumerate(cols)):
        return None
    return res.x


def _exact(ring, t, cols, x, strict):
    """Exact nonnegative coefficients on the solver's support (module docstring), or None: the
    support's columns solved again over ℚ (a vertex of the program: its columns are independent),
    else the solver's values rounded to small denominators and kept only when the identity then
    holds exactly."""
    support = [j for j in np.argsort(-x) if x[j] > 1e-10]
    coefs = _solve_exact(t, [cols[j].poly for j in support])
    if coefs is not None and all(c >= 0 for c in coefs):
        if strict and not any(cols[j].strict and c > 0 for j, c in zip(support, coefs)):
            return None
        return [Summand(c, cols[j].summand.facts, cols[j].summand.mono, cols[j].summand.square)
                for j, c in zip(support, coefs) if c]
    out, rest = [], dict(t)
    for j in support:
        c = Fraction(x[j]).limit_denominator(10 ** 6)
        if c > 0:
            s = cols[j].summand
            out.append(Summand(c, s.facts, s.mono, s.square))
            rest = Ring.add(rest, cols[j].poly, -c)
    return out if not rest else None


def _solve_exact(t: dict, polys: list):
    """A solution ``c`` of Σ c_j polys_j = t over ℚ (free unknowns set to 0), or None when the
    system has none. Gaussian elimination in Fractions."""
    monos = list({m for p in polys for m in p} | set(t))
    rows = [[p.get(m, Fraction(0)) for p in polys] + [t.get(m, Fraction(0))] for m in monos]
    n = len(polys)
    pivots, r = [], 0
    for c in range(n):
        piv = next((i for i in range(r, len(rows)) if rows[i][c] != 0), None)
        if piv is None:
            continue
        rows[r], rows[piv] = rows[piv], rows[r]
        inv = 1 / rows[r][c]
        rows[r] = [v * inv for v in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][c] != 0:
                f = rows[i][c]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[r])]
        pivots.append(c)
        r += 1
        if r == len(rows):
            break
    for i in range(r, len(rows)):
        if rows[i][n] != 0:
            return None
    sol = [Fraction(0)] * n
    for i, c in enumerate(pivots):
        sol[c] = rows[i][n]
    return sol
