"""Lean <-> Python drift check: the Lean arithmetic definitions equal ``pyfed.theory``.

The Lean sources (``lean/Pyfed/Scaffold/Model.lean``, ``lean/Pyfed/Exact.lean``,
``lean/Pyfed/Scaffold/Theorems.lean``) are the contract; ``pyfed.theory.bounds`` and
``pyfed.theory.hypotheses`` implement the same formulas in Python. This module

1. parses the body of each arithmetic Lean definition (``effectiveStep``, ``roundTime``,
   ``weight``, ``weightSum``, ``initialPotential``, ``convexRHS``, ``nonconvexRHS`` and the
   ℚ mirrors ``effectiveStepQ`` ... ``nonconvexRHSQ``) into a :mod:`sympy` expression, with a
   small recursive-descent parser for the subset those bodies use: ``+ - * / ^ ⁻¹``,
   parentheses, type ascriptions/casts ``(x : ℝ)``, ``↑x``, numerals, ``∑ r ∈ Finset.range T, …``
   (a symbolic :class:`sympy.Sum`), leading ``let x := value`` lines (``value`` substituted for
   ``x`` in the rest), applications of the other parsed definitions, ``Real.rpow a b`` ->
   ``a**b``, ``Real.sqrt a`` -> ``sqrt(a)``, ``min a b`` / ``max a b`` -> ``Min`` / ``Max``, and
   a few named atoms (``‖P.x0 - xstar‖`` -> ``sqrt(dist_sq)``, ``initialControlError P c0
   xstar`` -> ``C0``, ``objective P.f P.x0`` -> ``f_x0``, ``distance P`` -> ``D``). The FedAvg
   right sides of ``lean/Pyfed/FedAvg/Model.lean`` (:data:`FEDAVG_ARITHMETIC_DEFS`) parse with
   the same grammar (``parse_definitions(catalog=FEDAVG_ARITHMETIC_DEFS)``);
2. proves each real definition symbolically equal to its ℚ mirror (``sympy.simplify`` of the
   difference is 0, with ``T`` and ``r`` symbolic);
3. proves each definition symbolically equal to its ``pyfed.theory`` function called with
   sympy symbols (``pyfed.theory`` builds expressions in its symbolic mode; ``weight_sum``
   returns the defining ``Sum``): the difference simplifies to 0 with every real parameter
   symbolic, for T = 1..5 and r = 0..4 where a sum over ``range T`` does not cancel
   structurally;
4. compares each definition with its ``pyfed.theory`` function at many seeded random exact
   rational points (Fractions, no float) — this exercises the numeric code paths, such as the
   closed form of ``weight_sum``, that the symbolic mode does not use — and the hypotheses
   ``h <= 1/(81 beta)``, ``mu h <= S/(15 N)`` (exact) and ``h <= (S/N)^(2/3)/(24 beta)``
   (50 digits) with the margins of :func:`pyfed.theory.convex_hypotheses` /
   :func:`pyfed.theory.nonconvex_hypotheses`.

Public API: :func:`parse_definitions`, :func:`check_drift` (returns a list of
:class:`Mismatch`; empty means no drift), :func:`assert_no_drift`.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import mpmath
import sympy

__all__ = ["Mismatch", "parse_definitions", "parse_expression", "check_drift",
           "assert_no_drift", "default_lean_dir", "ARITHMETIC_DEFS", "FEDAVG_ARITHMETIC_DEFS",
           "DriftError"]


class DriftError(AssertionError):
    """Raised by :func:`assert_no_drift` when the Lean and Python sides disagree."""


def default_lean_dir(cwd=None) -> Path:
    """The Lean source directory holding ``Pyfed/``: :func:`pyfed.lean.render.default_lean_dir`
    (``<root>/lean`` of the nearest ``lakefile.lean`` above ``cwd``; InputError if none)."""
    from .render import default_lean_dir as _shared

    return _shared(cwd)


#: Lean definitions parsed by the drift check, with the file (relative to lean/) holding them.
ARITHMETIC_DEFS = {
    "effectiveStep": "Pyfed/Scaffold/Model.lean",
    "roundTime": "Pyfed/Scaffold/Model.lean",
    "weight": "Pyfed/Scaffold/Model.lean",
    "weightSum": "Pyfed/Scaffold/Model.lean",
    "initialPotential": "Pyfed/Scaffold/Model.lean",
    "convexRHS": "Pyfed/Scaffold/Model.lean",
    "nonconvexRHS": "Pyfed/Scaffold/Model.lean",
    "effectiveStepQ": "Pyfed/Exact.lean",
    "weightQ": "Pyfed/Exact.lean",
    "weightSumQ": "Pyfed/Exact.lean",
    "initialPotentialQ": "Pyfed/Exact.lean",
    "convexRHSQ": "Pyfed/Exact.lean",
    "nonconvexRHSQ": "Pyfed/Exact.lean",
}

#: The FedAvg right sides (namespace ``FedAvg``, Field Guide Section 6.1.2), parsed with the same
#: grammar; not yet compared with ``pyfed.theory`` (their Python mirrors are issue 12's Python
#: half). ``distance P`` is the atom ``D``; ``P.L``, ``P.σ``, ``P.ζ``, ``M``, ``τ``, ``T``, ``η``
#: are the symbols ``L``, ``sigma``, ``zeta``, ``M``, ``tau``, ``T``, ``eta``.
FEDAVG_ARITHMETIC_DEFS = {
    "driftRHS": "Pyfed/FedAvg/Model.lean",
    "convergenceRHS": "Pyfed/FedAvg/Model.lean",
    "optimizedStep": "Pyfed/FedAvg/Model.lean",
    "optimizedRHS": "Pyfed/FedAvg/Model.lean",
}

#: Lean identifier -> Python/sympy symbol name (the papers' symbols, as in pyfed.theory).
SYMBOL_NAMES = {
    "ηl": "eta_l", "ηg": "eta_g", "μ": "mu", "σ": "sigma", "β": "beta",
    "P.σ": "sigma", "P.β": "beta", "distSq": "dist_sq", "fGap": "f_gap", "fLower": "f_low",
    "η": "eta", "τ": "tau", "ζ": "zeta", "P.ζ": "zeta", "P.L": "L",
}

#: Named atoms: Lean application text -> symbol.
NAMED_APPLICATIONS = {
    "initialControlError": "C0",     # initialControlError P c0 xstar
    "objective": "f_x0",             # objective P.f P.x0
    "distance": "D",                 # distance P = ‖P.x0 - P.xstar‖ (FedAvg)
}

#: Mathlib functions the parser reads: name -> (arity, sympy constructor).
FUNCTIONS = {
    "Real.rpow": (2, lambda a, b: a ** b),
    "Real.sqrt": (1, sympy.sqrt),
    "min": (2, sympy.Min),
    "max": (2, sympy.Max),
}
NORM_ATOMS = {"P.x0 - xstar": "dist_sq"}   # ‖P.x0 - xstar‖ = sqrt(dist_sq)


def sym(name: str) -> sympy.Symbol:
    """The sympy symbol for a Lean identifier."""
    return sympy.Symbol(SYMBOL_NAMES.get(name, name))


# --------------------------------------------------------------------------- tokenizer

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<num>\d+)
  | (?P<ident>[^\W\d][\w'.₀-₉]*)
  | (?P<op>⁻¹|[-+*/^(),:↑‖∑∈])
""", re.VERBOSE | re.UNICODE)


def tokenize(text: str) -> list[str]:
    """Split a Lean term of the arithmetic subset into tokens (raises ValueError otherwise)."""
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"drift parser: unexpected character {text[pos]!r} in {text!r}")
        pos = m.end()
        if m.lastgroup != "ws":
            out.append(m.group())
    return out


# --------------------------------------------------------------------------- parser

@dataclass
class LeanDef:
    """A parsed Lean definition: parameter names (in order) and body expression."""

    name: str
    params: list
    body: sympy.Expr
    text: str


class _Parser:
    """Recursive descent over the token list; ``defs`` maps known definition names to LeanDef."""

    TYPES = {"ℝ", "ℚ", "ℕ"}

    def __init__(self, tokens, defs):
        self.toks = tokens
        self.i = 0
        self.defs = defs

    def peek(self, k=0):
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def take(self, expected=None):
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            raise ValueError(f"drift parser: expected {expected!r}, got {tok!r} at token {self.i} "
                             f"of {' '.join(self.toks)!r}")
        self.i += 1
        return tok

    def parse(self):
        e = self.expr()
        if self.peek() is not None:
            raise ValueError(f"drift parser: trailing tokens {self.toks[self.i:]!r}")
        return e

    def expr(self):
        e = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            rhs = self.term()
            e = e + rhs if op == "+" else e - rhs
        return e

    def term(self):
        e = self.unary()
        while self.peek() in ("*", "/"):
            op = self.take()
            rhs = self.unary()
            e = e * rhs if op == "*" else e / rhs
        return e

    def unary(self):
        if self.peek() == "-":
            self.take()
            return -self.unary()
        return self.power()

    def power(self):
        base = self.postfix()
        if self.peek() == "^":
            self.take()
            return base ** self.unary()      # ^ is right associative
        return base

    def postfix(self):
        e = self.application()
        while self.peek() == "⁻¹":
            self.take()
            e = 1 / e
        return e

    def starts_atom(self, tok):
        return tok is not None and (tok in ("(", "↑", "‖") or tok[0].isdigit()
                                    or (tok[0].isalpha() and tok not in self.TYPES
                                        and tok != "Finset.range"))

    def application(self):
        tok = self.peek()
        if tok == "∑":
            return self.big_sum()
        if tok is not None and (tok in self.defs or tok in NAMED_APPLICATIONS or tok in FUNCTIONS):
            head = self.take()
            args = []
            while self.starts_atom(self.peek()):
                args.append(self.atom(raw=True))
            return self.apply(head, args)
        return self.atom()

    def apply(self, head, args):
        if head in NAMED_APPLICATIONS:
            return sympy.Symbol(NAMED_APPLICATIONS[head])
        if head in FUNCTIONS:
            arity, fn = FUNCTIONS[head]
            if len(args) != arity:
                raise ValueError(f"drift parser: {head} takes {arity} arguments, got {len(args)}")
            return fn(*args)
        d = self.defs[head]
        if len(args) != len(d.params):
            raise ValueError(f"drift parser: {head} applied to {len(args)} arguments, expects "
                             f"{len(d.params)}")
        return d.body.xreplace({sym(p): a for p, a in zip(d.params, args)})

    def big_sum(self):
        self.take("∑")
        var = self.take()
        self.take("∈")
        self.take("Finset.range")
        upper = self.atom()
        self.take(",")
        body = self.term()                   # Lean: the body of ∑ is a term at precedence 67
        # bound variable renamed so that substituting a free `r` never touches it
        bound = sympy.Symbol(f"_bound_{var}")
        return sympy.Sum(body.xreplace({sym(var): bound}), (bound, 0, upper - 1))

    def atom(self, raw=False):
        tok = self.take()
        if tok[0].isdigit():
            return sympy.Integer(int(tok))
        if tok == "↑":
            return self.atom()
        if tok == "‖":
            start = self.i
            depth = 0
            while not (self.peek() == "‖" and depth == 0):
                t = self.take()
                depth += t == "("
                depth -= t == ")"
            inner = " ".join(self.toks[start:self.i])
            self.take("‖")
            key = re.sub(r"\s+", " ", inner).strip()
            if key not in NORM_ATOMS:
                raise ValueError(f"drift parser: unknown norm atom ‖{key}‖")
            return sympy.sqrt(sympy.Symbol(NORM_ATOMS[key]))
        if tok == "(":
            e = self.expr()
            if self.peek() == ":":
                self.take(":")
                ty = self.take()
                if ty not in self.TYPES:
                    raise ValueError(f"drift parser: unsupported ascription type {ty!r}")
            self.take(")")
            return e
        if tok[0].isalpha():
            if tok in self.defs or tok in NAMED_APPLICATIONS:
                # a definition used as an argument without arguments of its own
                return self.apply(tok, [])
            return sym(tok)
        raise ValueError(f"drift parser: unexpected token {tok!r}")


_LET_RE = re.compile(r"\A\s*let\s+(?P<name>[^\W\d][\w']*)\s*:=\s*(?P<value>[^\n;]+?)\s*(?:;|\n)(?P<rest>.*)\Z",
                     re.S | re.UNICODE)


def parse_expression(text: str, defs: dict | None = None) -> sympy.Expr:
    """Parse one Lean term of the arithmetic subset into sympy (``defs``: known LeanDefs).

    Leading ``let x := value`` bindings (one per line, or ended by ``;``) are parsed and their
    value substituted for ``x`` in the rest of the term.
    """
    m = _LET_RE.match(text)
    if m:
        value = parse_expression(m.group("value"), defs)
        rest = parse_expression(m.group("rest"), defs)
        return rest.xreplace({sym(m.group("name")): value})
    return _Parser(tokenize(text), defs or {}).parse()


_DEF_RE = re.compile(r"^(?:noncomputable\s+)?def\s+(?P<name>\w+)\b(?P<sig>.*?):=\s*\n?(?P<body>.*?)(?=\n\s*\n|\n/--|\n(?:theorem|def|end|section|structure|abbrev)\b|\Z)",
                     re.S | re.M)
_BINDER_RE = re.compile(r"[({\[]([^(){}\[\]]*?):\s*([^(){}\[\]]+)[)}\]]")


def _explicit_params(sig: str) -> list:
    """Names of the explicit binders ``(a b : T)`` of a signature (implicit ``{}`` skipped)."""
    # drop the result type: the signature ends with ' : TYPE '
    out = []
    for m in re.finditer(r"\(([^():]*?):([^()]*(?:\([^()]*\)[^()]*)*)\)", sig):
        names = m.group(1).split()
        out.extend(names)
    return out


def parse_definitions(lean_dir: Path | str | None = None, names=None, sources: dict | None = None,
                      catalog: dict | None = None) -> dict:
    """Parse the arithmetic Lean definitions into :class:`LeanDef` objects.

    Parameters
    ----------
    lean_dir : path to ``lean/`` (default: the repository's).
    names : which definitions (default: all of ``catalog``, in dependency order).
    sources : optional ``{relative path: text}`` overriding file contents (used by tests to
        check that a broken copy is detected).
    catalog : ``{definition name: file relative to lean/}`` (default :data:`ARITHMETIC_DEFS`;
        :data:`FEDAVG_ARITHMETIC_DEFS` for the FedAvg right sides).

    Raises ValueError if a definition is missing or uses syntax outside the parsed subset.
    """
    lean_dir = Path(lean_dir) if lean_dir is not None else default_lean_dir()
    catalog = ARITHMETIC_DEFS if catalog is None else catalog
    names = list(names or catalog)
    texts = {}
    defs: dict = {}
    for name in names:
        rel = catalog[name]
        if rel not in texts:
            texts[rel] = sources[rel] if sources and rel in sources else (lean_dir / rel).read_text(encoding="utf-8")
        found = None
        for m in _DEF_RE.finditer(texts[rel]):
            if m.group("name") == name:
                found = m
                break
        if found is None:
            raise ValueError(f"drift check: definition {name} not found in lean/{rel}")
        params = _explicit_params(found.group("sig"))
        body_text = found.group("body").strip()
        body = parse_expression(body_text, defs)
        defs[name] = LeanDef(name, params, body, body_text)
    return defs


def _hypothesis_text(theorems_text: str, theorem: str, pattern: str) -> str:
    """The right side of a hypothesis ``lhs ≤ rhs →`` inside ``theorem``'s statement."""
    m = re.search(rf"theorem\s+{theorem}\b(.*?):= by", theorems_text, re.S)
    if not m:
        raise ValueError(f"drift check: theorem {theorem} not found")
    stmt = m.group(1)
    h = re.search(pattern + r"\s*≤\s*(?P<rhs>[^→]+?)\s*→", stmt)
    if not h:
        raise ValueError(f"drift check: hypothesis {pattern!r} not found in {theorem}")
    return h.group("rhs")


# --------------------------------------------------------------------------- comparison

@dataclass
class Mismatch:
    """One disagreement: which definition, at which point, the two values."""

    name: str
    point: dict
    lean_value: object
    python_value: object

    def __str__(self):
        return (f"{self.name} at {self.point}: Lean gives {self.lean_value}, "
                f"pyfed.theory gives {self.python_value}")


def _rand_q(rng: random.Random, lo=1, hi=30, den=40) -> Fraction:
    return Fraction(rng.randint(lo, hi), rng.randint(1, den))


def _point(rng: random.Random) -> dict:
    N = rng.randint(1, 12)
    return {
        "N": N, "S": rng.randint(1, N), "K": rng.randint(1, 6), "T": rng.randint(1, 7),
        "r": rng.randint(0, 6),
        "eta_l": _rand_q(rng, 1, 9, 400), "eta_g": _rand_q(rng, 1, 20, 7),
        "mu": Fraction(0) if rng.random() < 0.2 else _rand_q(rng, 1, 9, 10),
        "h": _rand_q(rng, 1, 9, 100), "sigma": _rand_q(rng, 0, 9, 5),
        "dist_sq": _rand_q(rng, 0, 30, 7), "C0": _rand_q(rng, 0, 30, 7),
        "beta": _rand_q(rng, 1, 30, 7), "f_x0": _rand_q(rng, 1, 50, 3),
        "f_low": -_rand_q(rng, 0, 20, 3),
    }


def _lean_value(expr: sympy.Expr, pt: dict):
    vals = {sympy.Symbol(k): sympy.Rational(v.numerator, v.denominator) if isinstance(v, Fraction)
            else sympy.Integer(v) for k, v in pt.items()}
    out = sympy.simplify(expr.xreplace(vals).doit())
    if not out.is_Rational:
        raise ValueError(f"drift check: Lean value {out} is not rational")
    return Fraction(int(out.p), int(out.q))


def _symbolically_equal(a: sympy.Expr, b: sympy.Expr) -> bool:
    """True iff ``a - b`` is identically 0.

    First structurally (the real definition and its ℚ mirror parse to the same tree when in
    sync, which proves equality for every ``T`` and ``r``); otherwise the difference is expanded
    for ``T, r = 0..4`` and simplified, and any nonzero (or unsimplifiable) result counts as a
    mismatch.
    """
    diff = a - b
    if diff == 0 or sympy.expand(diff) == 0:
        return True
    T, r = sympy.Symbol("T"), sympy.Symbol("r")
    try:
        for t in range(5):
            for rr in range(5):
                d = diff.xreplace({T: sympy.Integer(t), r: sympy.Integer(rr)}).doit()
                if sympy.simplify(sympy.together(d)) != 0:
                    return False
    except Exception:       # sympy failure: do not claim equality
        return False
    return True


def _equal_for_indices(a: sympy.Expr, b: sympy.Expr) -> bool:
    """True iff ``a - b`` simplifies to 0 with every real parameter symbolic; where sums over
    ``Finset.range T`` or powers in ``r`` do not cancel structurally, for T = 1..5, r = 0..4."""
    diff = a - b
    if diff == 0 or sympy.expand(diff) == 0:
        return True
    T, r = sympy.Symbol("T"), sympy.Symbol("r")
    try:
        for t in range(1, 6):
            for rr in range(5):
                d = diff.xreplace({T: sympy.Integer(t), r: sympy.Integer(rr)}).doit()
                if sympy.simplify(sympy.together(d)) != 0:
                    return False
    except Exception:       # sympy failure: do not claim equality
        return False
    return True


def _python_functions(theory):
    """name -> (callable(point) -> Fraction) for each parsed Lean definition."""
    b = theory
    conv = lambda p: b.convex_rhs(dist_sq=p["dist_sq"], C0=p["C0"], N=p["N"], S=p["S"], K=p["K"],  # noqa: E731
                                  T=p["T"], eta_l=p["eta_l"], eta_g=p["eta_g"], mu=p["mu"],
                                  sigma=p["sigma"])
    nonc = lambda p: b.nonconvex_rhs(f_gap=p["f_x0"] - p["f_low"], beta=p["beta"], S=p["S"],  # noqa: E731
                                     K=p["K"], T=p["T"], eta_l=p["eta_l"], eta_g=p["eta_g"],
                                     sigma=p["sigma"])
    noncq = lambda p: b.nonconvex_rhs(f_gap=p["f_gap"], beta=p["beta"], S=p["S"], K=p["K"],  # noqa: E731
                                      T=p["T"], eta_l=p["eta_l"], eta_g=p["eta_g"], sigma=p["sigma"])
    return {
        "effectiveStep": lambda p: b.effective_step(p["K"], p["eta_l"], p["eta_g"]),
        "roundTime": lambda p: b.round_time(p["K"], p["r"]),
        "weight": lambda p: b.weight(p["r"], p["mu"], p["h"]),
        "weightSum": lambda p: b.weight_sum(p["T"], p["mu"], p["h"]),
        "initialPotential": lambda p: b.initial_potential(p["dist_sq"], p["C0"], p["N"], p["S"], p["h"]),
        "convexRHS": conv,
        "nonconvexRHS": nonc,
        "effectiveStepQ": lambda p: b.effective_step(p["K"], p["eta_l"], p["eta_g"]),
        "weightQ": lambda p: b.weight(p["r"], p["mu"], p["h"]),
        "weightSumQ": lambda p: b.weight_sum(p["T"], p["mu"], p["h"]),
        "initialPotentialQ": lambda p: b.initial_potential(p["dist_sq"], p["C0"], p["N"], p["S"], p["h"]),
        "convexRHSQ": conv,
        "nonconvexRHSQ": noncq,
    }


#: real definition -> its ℚ mirror (proved symbolically equal).
MIRRORS = {"effectiveStep": "effectiveStepQ", "weight": "weightQ", "weightSum": "weightSumQ",
           "initialPotential": "initialPotentialQ", "convexRHS": "convexRHSQ",
           "nonconvexRHS": "nonconvexRHSQ"}


def check_drift(lean_dir=None, *, points: int = 25, seed: int = 20260923, theory=None,
                sources: dict | None = None, progress=None) -> list:
    """Compare every parsed Lean definition with ``pyfed.theory``; return the mismatches.

    ``theory`` defaults to :mod:`pyfed.theory.bounds` (tests pass a patched module);
    ``sources`` overrides Lean file texts (``{"Pyfed/Exact.lean": text, ...}``);
    ``progress``: optional callable(label) called before each comparison (the check reads the
    Lean files and writes nothing).
    Raises ValueError if the Lean text cannot be parsed (that is drift too).
    """
    tick = progress or (lambda label: None)
    if theory is None:
        from ..theory import bounds as theory
    from ..theory import hypotheses as hyp_mod

    defs = parse_definitions(lean_dir, sources=sources)
    py = _python_functions(theory)
    rng = random.Random(seed)
    out: list = []

    # (2) real definitions vs their Q mirrors: symbolic identity
    for real, mirror in MIRRORS.items():
        tick(f"{real} = {mirror} (symbolic)")
        a, b_ = defs[real].body, defs[mirror].body
        if mirror == "nonconvexRHSQ":
            b_ = b_.xreplace({sympy.Symbol("f_gap"): sympy.Symbol("f_x0") - sympy.Symbol("f_low")})
        if not _symbolically_equal(a, b_):
            out.append(Mismatch(f"{real} vs {mirror}", {"symbolic": True}, str(a), str(b_)))

    # (3a) every definition vs pyfed.theory called with sympy symbols: symbolic identity in every
    # real parameter (N, S, K, mu, eta_l, ... symbolic), for T = 1..5 and r = 0..4 when a sum or
    # power over those indices does not cancel structurally
    syms = {k: sympy.Symbol(k) for k in ("N", "S", "K", "T", "r", "eta_l", "eta_g", "mu", "h", "sigma",
                                         "dist_sq", "C0", "beta", "f_x0", "f_low", "f_gap")}
    for name, d in defs.items():
        tick(f"{name} vs pyfed.theory (symbolic)")
        try:
            pexpr = sympy.sympify(py[name](syms))
        except Exception as exc:  # pyfed.theory cannot build the expression: that is drift too
            out.append(Mismatch(name, {"symbolic": True}, str(d.body), f"pyfed.theory failed symbolically: {exc}"))
            continue
        if not _equal_for_indices(d.body, pexpr):
            out.append(Mismatch(name, {"symbolic": True}, str(d.body), str(pexpr)))

    # (3b) every definition vs pyfed.theory at random rational points (the numeric code paths,
    # e.g. the closed form of weight_sum, which the symbolic mode does not use)
    for name, d in defs.items():
        tick(f"{name} vs pyfed.theory ({points} rational points)")
        checked = 0
        for _ in range(points * 3):
            if checked >= points:
                break
            pt = _point(rng)
            pt["f_gap"] = pt["f_x0"] - pt["f_low"]
            try:
                pv = py[name](pt)
                lv = _lean_value(d.body, pt)
            except ZeroDivisionError:
                continue
            checked += 1
            if Fraction(pv) != lv:
                out.append(Mismatch(name, pt, lv, pv))
                break

    # hypotheses of the two theorems (the constants 81, 15, 24 and the exponent 2/3)
    thm_path = "Pyfed/Scaffold/Theorems.lean"
    lean_dir_p = Path(lean_dir) if lean_dir is not None else default_lean_dir()
    thm_text = sources[thm_path] if sources and thm_path in sources else (lean_dir_p / thm_path).read_text(encoding="utf-8")
    hyp = {
        "step_size": parse_expression(_hypothesis_text(thm_text, "ConvexFiniteRoundConvergence", r"effectiveStep K ηl ηg"), defs),
        "mu_h": parse_expression(_hypothesis_text(thm_text, "ConvexFiniteRoundConvergence", r"μ \* effectiveStep K ηl ηg"), defs),
        "nonconvex_step": parse_expression(_hypothesis_text(thm_text, "NonconvexFiniteRoundConvergence", r"effectiveStep K ηl ηg"), defs),
    }
    h_expr = defs["effectiveStep"].body
    tick(f"hypotheses of the two theorems ({points} rational points)")
    for _ in range(points):
        pt = _point(rng)
        args = dict(N=pt["N"], S=pt["S"], K=pt["K"], T=pt["T"], eta_l=pt["eta_l"],
                    eta_g=pt["eta_g"], beta=pt["beta"], sigma=pt["sigma"])
        ch = {x.key: x for x in hyp_mod.convex_hypotheses(mu=pt["mu"], **args)}
        lean_step = _lean_value(hyp["step_size"] - h_expr, pt)
        if lean_step != ch["step_size"].margin:
            out.append(Mismatch("hypothesis h <= 1/(81 beta)", pt, lean_step, ch["step_size"].margin))
        lean_muh = _lean_value(hyp["mu_h"] - sympy.Symbol("mu") * h_expr, pt)
        if lean_muh != ch["mu_h"].margin:
            out.append(Mismatch("hypothesis mu h <= S/(15 N)", pt, lean_muh, ch["mu_h"].margin))
        nh = {x.key: x for x in hyp_mod.nonconvex_hypotheses(**args)}
        vals = {sympy.Symbol(k): sympy.Rational(v.numerator, v.denominator) if isinstance(v, Fraction)
                else sympy.Integer(v) for k, v in pt.items()}
        lean_nc = sympy.N((hyp["nonconvex_step"] - h_expr).xreplace(vals), 50)
        py_nc = nh["step_size"].margin
        with mpmath.workdps(60):
            gap = abs(mpmath.mpf(str(lean_nc)) - mpmath.mpf(py_nc))
        if py_nc is None or gap > mpmath.mpf(10) ** -30:
            out.append(Mismatch("hypothesis h <= (S/N)^(2/3)/(24 beta)", pt, lean_nc, py_nc))
    return out


def assert_no_drift(lean_dir=None, **kw) -> None:
    """Raise :class:`DriftError` listing every mismatch (no return value when in sync)."""
    bad = check_drift(lean_dir, **kw)
    if bad:
        raise DriftError("Lean and pyfed.theory disagree:\n" + "\n".join(str(m) for m in bad))
