"""Lean <-> Python drift check: the Lean arithmetic definitions equal ``pyfed.theory``.

The Lean sources (``lean/Pyfed/Scaffold/Model.lean``, ``lean/Pyfed/Exact.lean``,
``lean/Pyfed/Scaffold/Theorems.lean``) are the contract; ``pyfed.theory.bounds`` and
``pyfed.theory.hypotheses`` implement the same formulas in Python. This module

1. parses the body of each arithmetic Lean definition (``effectiveStep``, ``roundTime``,
   ``weight``, ``weightSum``, ``initialPotential``, ``convexRHS``, ``nonconvexRHS`` and the
   ℚ mirrors ``effectiveStepQ`` ... ``nonconvexRHSQ``) with the one Lean term grammar of pyfed
   (:mod:`pyfed.lean.terms`, shared with the statement reader :mod:`pyfed.statements`; its errors
   carry line and column) and evaluates it into a :mod:`sympy` expression with the one evaluator
   of Lean terms (:class:`pyfed.evaluation.Evaluator`, Lean's arithmetic over sympy symbols; a
   definition applied to arguments is its body evaluated with them bound), for the subset those
   bodies use:
   ``+ - * / ^ ⁻¹``,
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

Why one module: the Lean parser of arithmetic bodies, the comparison points and the two checks
(SCAFFOLD and FedAvg definitions) share the parsed definitions and the mismatch records; each half
is small and neither is used without the other.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import mpmath
import sympy

from ..evaluation.domains import Numbers
from ..evaluation.evaluator import NOT_MINE, Atoms, Evaluator
from ..evaluation.numbers import to_sympy
from ..theory import bounds as bounds_module
from ..theory import fedavg as fedavg_module
from ..theory import hypotheses as hyp_mod
from . import terms
from .inventory import strip_comments
from .paths import default_lean_dir as _shared
from .paths import source_lean_dir

__all__ = ["Mismatch", "parse_definitions", "parse_expression", "check_drift",
           "assert_no_drift", "default_lean_dir", "ARITHMETIC_DEFS", "FEDAVG_ARITHMETIC_DEFS",
           "FEDAVG_MIRROR_DEFS", "check_fedavg_drift", "DriftError"]


class DriftError(AssertionError):
    """Raised by :func:`assert_no_drift` when the Lean and Python sides disagree."""


def default_lean_dir(cwd=None) -> Path:
    """The Lean source directory holding ``Pyfed/``: :func:`pyfed.lean.paths.default_lean_dir`
    (``<root>/lean`` of the nearest ``lakefile.lean`` above ``cwd``; InputError if none)."""

    return _shared(cwd)


def _source_lean_dir() -> Path:
    """Default ``lean_dir`` of the drift check: pyfed's own Lean sources (the checkout's or the
    installed copy, :func:`pyfed.lean.paths.source_lean_dir`)."""

    return source_lean_dir()


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
#: grammar and compared with :mod:`pyfed.theory.fedavg` by :func:`check_fedavg_drift` (called by
#: :func:`check_drift`). ``distance P`` is the atom ``D``; ``P.L``, ``P.σ``, ``P.ζ``, ``M``, ``τ``,
#: ``T``, ``η`` are the symbols ``L``, ``sigma``, ``zeta``, ``M``, ``tau``, ``T``, ``eta``.
FEDAVG_ARITHMETIC_DEFS = {
    "driftRHS": "Pyfed/FedAvg/Model.lean",
    "convergenceRHS": "Pyfed/FedAvg/Model.lean",
    "optimizedStep": "Pyfed/FedAvg/Model.lean",
    "optimizedRHS": "Pyfed/FedAvg/Model.lean",
}

#: The ℚ mirrors of the FedAvg polynomial right sides (``lean/Pyfed/Exact.lean``, namespace
#: ``FedAvg``); they take the squares ``σSq``, ``ζSq``, ``distSq`` (symbols ``sigma_sq``,
#: ``zeta_sq``, ``dist_sq``).
FEDAVG_MIRROR_DEFS = {
    "driftRHSQ": "Pyfed/Exact.lean",
    "convergenceRHSQ": "Pyfed/Exact.lean",
}

#: FedAvg real definition -> its ℚ mirror.
FEDAVG_MIRRORS = {"driftRHS": "driftRHSQ", "convergenceRHS": "convergenceRHSQ"}

#: Lean identifier -> Python/sympy symbol name (the papers' symbols, as in pyfed.theory).
SYMBOL_NAMES = {
    "ηl": "eta_l", "ηg": "eta_g", "μ": "mu", "σ": "sigma", "β": "beta",
    "P.σ": "sigma", "P.β": "beta", "distSq": "dist_sq", "fGap": "f_gap", "fLower": "f_low",
    "η": "eta", "τ": "tau", "ζ": "zeta", "P.ζ": "zeta", "P.L": "L",
    "σSq": "sigma_sq", "ζSq": "zeta_sq",
}

#: Named atoms: Lean application text -> symbol.
NAMED_APPLICATIONS = {
    "initialControlError": "C0",     # initialControlError P c0 xstar
    "objective": "f_x0",             # objective P.f P.x0
    "distance": "D",                 # distance P = ‖P.x0 - P.xstar‖ (FedAvg)
}

#: Mathlib functions the parser reads: name -> arity (evaluated with Lean's semantics).
FUNCTIONS = {"Real.rpow": 2, "Real.sqrt": 1, "min": 2, "max": 2}
NORM_ATOMS = {"P.x0 - xstar": "dist_sq"}   # ‖P.x0 - xstar‖ = sqrt(dist_sq)


def sym(name: str) -> sympy.Symbol:
    """The sympy symbol for a Lean identifier."""
    return sympy.Symbol(SYMBOL_NAMES.get(name, name))


# --------------------------------------------------------------------------- parser
# The grammar lives in pyfed.lean.terms (shared with the statement reader); this module only
# turns its syntax trees into sympy expressions.

def tokenize(text: str) -> list[str]:
    """Token texts of a Lean term (:func:`pyfed.lean.terms.tokenize`); raises ValueError
    (a :class:`~pyfed.lean.terms.LeanSyntaxError`) at a character outside the grammar."""
    return [t.text for t in terms.tokenize(text)]


@dataclass
class LeanDef:
    """A parsed Lean definition: parameter names (in order), body expression (sympy, every
    parameter a symbol), the body's text and syntax tree (evaluated with the arguments bound where
    another definition applies it)."""

    name: str
    params: list
    body: sympy.Expr
    text: str
    node: object = None


_ARITH = ("+", "-", "*", "/", "^")


def _unsupported(node, what, supported="+ - * / ^ ⁻¹, casts, numerals, ∑ r ∈ Finset.range T, "
                 "Real.rpow, Real.sqrt, min, max, applications of parsed definitions"):
    raise terms.LeanSyntaxError(what, "drift parser", line=node.line, col=node.col, supported=supported)


class _LeanArithmetic(Numbers):
    """The drift parser's subset of Lean arithmetic over sympy symbols (module docstring): other
    term kinds, operators and ascriptions are refused with their position."""

    kinds = frozenset({"num", "ident", "app", "binop", "neg", "inv", "coe", "cast", "norm", "sum", "let"})
    propositions = False

    def __init__(self):
        super().__init__("symbolic")

    def unsupported(self, node):
        _unsupported(node, f"construct {node.kind}")

    def binop(self, node, op, a, b):
        if op not in _ARITH:
            _unsupported(node, f"operator {op!r}")
        return super().binop(node, op, a, b)

    def cast(self, node, x):
        if node.value not in terms.TYPES:
            _unsupported(node, f"ascription type {node.value!r}")
        return x


class _DefinitionAtoms(Atoms):
    """The drift parser's atoms: a parsed definition applied to its arguments (its body evaluated
    with the parameters bound), the named atoms (:data:`NAMED_APPLICATIONS`, :data:`NORM_ATOMS`),
    the Mathlib functions of :data:`FUNCTIONS` (arity checked) and every other name as its symbol."""

    def __init__(self, defs: dict):
        self.defs = defs

    def ident(self, ev, node, env):
        name = node.value
        if name in env:
            return env[name]
        if name in self.defs or name in NAMED_APPLICATIONS:
            return self.applied(ev, node, name, [])
        if name in FUNCTIONS:
            _unsupported(node, f"{name} without arguments")
        return sym(name)

    def apply(self, ev, node, env):
        head = node.args[0]
        if head.kind != "ident":
            _unsupported(node, f"application of {head.text!r}")
        return self.applied(ev, node, head.value, [ev.eval(a, env) for a in node.args[1:]])

    def applied(self, ev, node, head, args):
        if head in NAMED_APPLICATIONS:
            return sympy.Symbol(NAMED_APPLICATIONS[head])
        if head in FUNCTIONS:
            arity = FUNCTIONS[head]
            if len(args) != arity:
                _unsupported(node, f"{head} applied to {len(args)} arguments", f"{head} takes {arity}")
            dom = ev.domain
            if head == "Real.rpow":
                return dom.rpow(node, *args)
            if head == "Real.sqrt":
                return dom.sqrt(node, *args)
            return dom.minmax(node, head, *args)
        if head not in self.defs:
            _unsupported(node, f"application of {head!r}")
        d = self.defs[head]
        if len(args) != len(d.params):
            _unsupported(node, f"{head} applied to {len(args)} arguments", f"{head} expects {len(d.params)}")
        if d.node is None:
            return d.body.xreplace({sym(p): a for p, a in zip(d.params, args)})
        return _sympy_of(ev.eval(d.node, dict(zip(d.params, args))))

    def norm_sq(self, ev, node, env):
        key = re.sub(r"\s+", " ", node.args[0].text).strip()
        if key.startswith("(") and key.endswith(")"):
            key = key[1:-1].strip()
        if key not in NORM_ATOMS:
            _unsupported(node, f"norm atom ‖{key}‖")
        return sympy.Symbol(NORM_ATOMS[key])

    def sum_items(self, ev, node, env):
        rng = node.args[0]
        if rng is None or rng.head_name() != "Finset.range" or len(rng.args) != 2:
            _unsupported(node, "∑ not over Finset.range")
        return NOT_MINE


def _sympy_of(v) -> sympy.Expr:
    return sympy.sympify(to_sympy(v))


def to_sympy_expr(node, defs: dict, env: dict | None = None) -> sympy.Expr:
    """sympy expression of a syntax tree of :mod:`pyfed.lean.terms`, evaluated by the one
    evaluator (:class:`pyfed.evaluation.Evaluator`) over sympy symbols with Lean's arithmetic
    (``defs``: known LeanDefs, applied by evaluating their bodies; ``env``: ``let``-bound and
    bound-variable values)."""
    ev = Evaluator(_LeanArithmetic(), _DefinitionAtoms(defs))
    return _sympy_of(ev.eval(node, env or {}))


def parse_expression(text: str, defs: dict | None = None) -> sympy.Expr:
    """Parse one Lean term of the arithmetic subset into sympy (``defs``: known LeanDefs);
    leading ``let x := value`` bindings are substituted. Raises ValueError (a
    :class:`~pyfed.lean.terms.LeanSyntaxError` naming line and column) outside the subset."""
    return to_sympy_expr(terms.parse_term(terms.strip_comments(text)), defs or {})


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
    lean_dir : path to ``lean/`` (default: pyfed's own, :func:`pyfed.lean.paths.source_lean_dir`).
    names : which definitions (default: all of ``catalog``, in dependency order).
    sources : optional ``{relative path: text}`` overriding file contents (used by tests to
        check that a broken copy is detected).
    catalog : ``{definition name: file relative to lean/}`` (default :data:`ARITHMETIC_DEFS`;
        :data:`FEDAVG_ARITHMETIC_DEFS` for the FedAvg right sides).

    Raises ValueError if a definition is missing or uses syntax outside the parsed subset.
    """
    lean_dir = Path(lean_dir) if lean_dir is not None else _source_lean_dir()
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
        node = terms.parse_term(terms.strip_comments(body_text))
        defs[name] = LeanDef(name, params, to_sympy_expr(node, defs), body_text, node)
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
                sources: dict | None = None, fedavg: bool = True, fedavg_theory=None, progress=None) -> list:
    """Compare every parsed Lean definition with ``pyfed.theory``; return the mismatches.

    ``theory`` defaults to :mod:`pyfed.theory.bounds` (tests pass a patched module);
    ``sources`` overrides Lean file texts (``{"Pyfed/Exact.lean": text, ...}``). With ``fedavg``
    (default) the FedAvg definitions are checked too (:func:`check_fedavg_drift`, against
    ``fedavg_theory``, default :mod:`pyfed.theory.fedavg`). ``progress``: optional
    callable(label) called before each comparison (the check reads the Lean files and writes
    nothing).
    Raises ValueError if the Lean text cannot be parsed (that is drift too).
    """
    tick = progress or (lambda label: None)
    theory = bounds_module if theory is None else theory

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
    lean_dir_p = Path(lean_dir) if lean_dir is not None else _source_lean_dir()
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
    if fedavg:
        tick("FedAvg definitions vs pyfed.theory.fedavg")
        out.extend(check_fedavg_drift(lean_dir, points=points, seed=seed, theory=fedavg_theory, sources=sources))
    return out


# --------------------------------------------------------------------------- FedAvg

_FEDAVG_SYMBOLS = ("D", "L", "M", "T", "tau", "eta", "sigma", "zeta", "dist_sq", "sigma_sq", "zeta_sq")


def _positive(expr):
    """``expr`` with its symbols declared positive (the FedAvg parameters are), so that sympy
    simplifies rational powers of products (``(D**2)**(1/3) = D**(2/3)``)."""
    return expr.xreplace({s: sympy.Symbol(s.name, positive=True) for s in expr.free_symbols})


def _fedavg_python(th):
    """name -> callable(values dict) for each FedAvg Lean definition (real ones in D, σ, ζ; the
    ℚ mirrors in their squares)."""
    def common(p):
        return dict(M=p["M"], tau=p["tau"], T=p["T"], L=p["L"])
    return {
        "driftRHS": lambda p: th.drift_rhs(p["tau"], p["eta"], sigma=p["sigma"], zeta=p["zeta"]),
        "driftRHSQ": lambda p: th.drift_rhs(p["tau"], p["eta"], sigma_sq=p["sigma_sq"], zeta_sq=p["zeta_sq"]),
        "convergenceRHS": lambda p: th.convergence_rhs(dist_sq=p["D"] ** 2, eta=p["eta"], sigma=p["sigma"],
                                                       zeta=p["zeta"], **common(p)),
        "convergenceRHSQ": lambda p: th.convergence_rhs(dist_sq=p["dist_sq"], eta=p["eta"], sigma_sq=p["sigma_sq"],
                                                        zeta_sq=p["zeta_sq"], **common(p)),
        "optimizedStep": lambda p: th.optimized_step(dist_sq=p["D"] ** 2, sigma=p["sigma"], zeta=p["zeta"],
                                                     **common(p)),
        "optimizedRHS": lambda p: th.optimized_rhs(dist_sq=p["D"] ** 2, sigma=p["sigma"], zeta=p["zeta"],
                                                   **common(p)),
    }


def _fedavg_point(rng: random.Random) -> dict:
    pt = {"D": _rand_q(rng, 1, 30, 7), "L": _rand_q(rng, 1, 30, 7), "M": rng.randint(1, 12),
          "T": rng.randint(1, 40), "tau": rng.randint(1, 8), "eta": _rand_q(rng, 1, 9, 400),
          "sigma": _rand_q(rng, 1, 20, 9), "zeta": _rand_q(rng, 1, 20, 9)}
    pt.update(dist_sq=pt["D"] ** 2, sigma_sq=pt["sigma"] ** 2, zeta_sq=pt["zeta"] ** 2)
    return pt


def _sympy_value(v):
    return sympy.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else sympy.sympify(v)


def check_fedavg_drift(lean_dir=None, *, points: int = 25, seed: int = 20260923, theory=None,
                       sources: dict | None = None) -> list:
    """The FedAvg half of the drift check: ``driftRHS``, ``convergenceRHS``, ``optimizedStep``,
    ``optimizedRHS`` (``lean/Pyfed/FedAvg/Model.lean``) and the ℚ mirrors ``driftRHSQ``,
    ``convergenceRHSQ`` (``lean/Pyfed/Exact.lean``) against :mod:`pyfed.theory.fedavg`.

    1. each real definition vs its mirror, symbolically (``distSq = D²``, ``σSq = σ²``, ``ζSq = ζ²``);
    2. each definition vs the Python function called with positive sympy symbols: the difference
       simplifies to 0 (``optimizedStep`` is a ``Min`` of four terms: compared term by term);
    3. at seeded random rational points: exactly for the polynomial ones, to 40 digits for the
       two with roots (the Python side decides the minimising term of eq. (16) exactly, the Lean
       ``min`` is evaluated numerically: the values must agree);
    4. the step-size hypothesis ``η ≤ 1 / (4 * P.L)`` of the three constant-step statements
       (``lean/Pyfed/FedAvg/Theorems.lean``) against the margin of
       :func:`pyfed.theory.fedavg.fedavg_hypotheses`, and the tuned statement's hypotheses
       ``0 < τ``, ``0 < T``, ``0 < distance P``, ``0 < P.σ``, ``0 < P.ζ`` against
       :func:`pyfed.theory.fedavg.tuned_hypotheses` (the same keys, strict).

    ``theory`` defaults to :mod:`pyfed.theory.fedavg` (tests pass a patched module). Returns the
    list of :class:`Mismatch` (empty: in sync); raises ValueError if the Lean text cannot be parsed.
    """
    theory = fedavg_module if theory is None else theory
    catalog = dict(FEDAVG_ARITHMETIC_DEFS, **FEDAVG_MIRROR_DEFS)
    defs = parse_definitions(lean_dir, sources=sources, catalog=catalog)
    py = _fedavg_python(theory)
    rng = random.Random(seed + 12)
    out: list = []
    pos = {k: sympy.Symbol(k, positive=True) for k in _FEDAVG_SYMBOLS}
    squares = {pos["dist_sq"]: pos["D"] ** 2, pos["sigma_sq"]: pos["sigma"] ** 2, pos["zeta_sq"]: pos["zeta"] ** 2}

    # (1) real definitions vs their mirrors
    for real, mirror in FEDAVG_MIRRORS.items():
        a = _positive(defs[real].body)
        b_ = _positive(defs[mirror].body).xreplace(squares)
        if sympy.simplify(a - b_) != 0:
            out.append(Mismatch(f"{real} vs {mirror}", {"symbolic": True}, str(a), str(b_)))

    # (2) symbolic identity with pyfed.theory.fedavg
    for name, d in defs.items():
        lean = _positive(d.body)
        try:
            pexpr = sympy.sympify(py[name](pos))
        except Exception as exc:  # the theory cannot build the expression: drift too
            out.append(Mismatch(name, {"symbolic": True}, str(lean), f"pyfed.theory.fedavg failed symbolically: {exc}"))
            continue
        if isinstance(lean, sympy.Min) and isinstance(pexpr, sympy.Min):
            la, pa = list(lean.args), list(pexpr.args)
            same = len(la) == len(pa) and all(any(sympy.simplify(x - y) == 0 for y in pa) for x in la)
        else:
            same = sympy.simplify(lean - pexpr) == 0
        if not same:
            out.append(Mismatch(name, {"symbolic": True}, str(lean), str(pexpr)))

    # (3) random rational points
    for name, d in defs.items():
        for _ in range(points):
            pt = _fedavg_point(rng)
            vals = {sympy.Symbol(k): _sympy_value(v) for k, v in pt.items()}
            pv = py[name](pt)
            lv = d.body.xreplace(vals)
            if name in ("optimizedStep", "optimizedRHS"):
                gap = abs(sympy.N(lv - _sympy_value(pv), 50))
                if not gap <= sympy.Float("1e-40") * (1 + abs(sympy.N(lv, 20))):
                    out.append(Mismatch(name, pt, sympy.N(lv, 30), sympy.N(_sympy_value(pv), 30)))
                    break
            else:
                lv = sympy.simplify(lv)
                if not lv.is_Rational or Fraction(int(lv.p), int(lv.q)) != Fraction(pv):
                    out.append(Mismatch(name, pt, lv, pv))
                    break

    # (4) hypotheses of the four statements
    thm_path = "Pyfed/FedAvg/Theorems.lean"
    lean_dir_p = Path(lean_dir) if lean_dir is not None else _source_lean_dir()
    thm_text = sources[thm_path] if sources and thm_path in sources else (lean_dir_p / thm_path).read_text(encoding="utf-8")
    code = strip_comments(thm_text)
    for theorem in ("PerRoundProgress", "BoundedClientDrift", "ConvexFedAvgConvergence"):
        bound = parse_expression(_hypothesis_text(code, theorem, r"η"), defs)
        for _ in range(max(3, points // 3)):
            pt = _fedavg_point(rng)
            hs = {h.key: h for h in theory.fedavg_hypotheses(M=pt["M"], tau=pt["tau"], T=pt["T"], eta=pt["eta"],
                                                              L=pt["L"])}
            lean_margin = _lean_value(bound - sympy.Symbol("eta"), pt)
            if lean_margin != hs["step_size"].margin:
                out.append(Mismatch(f"{theorem} hypothesis eta <= 1/(4L)", pt, lean_margin, hs["step_size"].margin))
                break
    m = re.search(r"theorem\s+TunedConvexFedAvgConvergence\b(.*?):= by", code, re.S)
    stmt = re.sub(r"\s+", " ", m.group(1)) if m else ""
    want = {"local_steps": "0 < τ", "rounds": "0 < T", "distance": "0 < distance P", "sigma": "0 < P.σ",
            "zeta": "0 < P.ζ"}
    keys = {h.key: h for h in theory.tuned_hypotheses(M=1, tau=0, T=0, L=1, dist_sq=0, sigma=0, zeta=0)}
    for key, text in want.items():
        if f"{text} →" not in stmt:
            out.append(Mismatch(f"TunedConvexFedAvgConvergence hypothesis {text}", {"lean": "missing"}, None, key))
        elif key not in keys or keys[key].holds:   # at 0 the strict hypothesis must fail
            out.append(Mismatch(f"TunedConvexFedAvgConvergence hypothesis {text}", {"at": 0}, "strict",
                                None if key not in keys else keys[key].statement))
    return out


def assert_no_drift(lean_dir=None, **kw) -> None:
    """Raise :class:`DriftError` listing every mismatch (no return value when in sync)."""
    bad = check_drift(lean_dir, **kw)
    if bad:
        raise DriftError("Lean and pyfed.theory disagree:\n" + "\n".join(str(m) for m in bad))
