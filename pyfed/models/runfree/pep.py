"""The PEP row of a run-free statement over a function class: the claim ``LHS ≤ RHS`` for every
function of the class, decided as a performance-estimation problem with an exact certificate.

Applies when the statement (read by :mod:`pyfed.statements.elaboration`) quantifies over

* points ``x : Space d`` (each a leaf vector of the PEP's Gram matrix),
* functions ``h : Space d → ℝ`` described by first-order hypotheses over all pairs of points:
  smoothness ``‖∇h x − ∇h y‖ ≤ L * ‖x − y‖`` and convexity ``h x + ⟪∇h x, y − x⟫ (+ μ/2 ‖y − x‖²)
  ≤ h y`` (both required; ``HasGradientAt`` / ``Differentiable`` are implied by the class), an
  optional minimiser ``∀ y, h x⋆ ≤ h y`` (then ∇h(x⋆) = 0),
* a ``Problem d N`` with ``Convexity P μ`` (clients in F_{μ,β}, β = ``P.β``) and optionally
  ``IsMinimizer P x⋆`` (Σ_i ∇f_i(x⋆) = 0, equivalent for convex clients), client indices ``i : Fin N``,
* real scalars constrained by scalar hypotheses (``0 < β``, ``η ≤ 2 / β``, ...),

and both sides, once the scalars are fixed to rationals inside the hypotheses, are linear forms in
the Gram entries of the leaves (points and gradients) and in function values. The scalars are
fixed as follows: a smoothness constant (``β``, ``P.β``) to 1; a convexity constant to 0 and 1/2
(those the scalar hypotheses admit); every other real scalar, in parameter order, to the
boundary of its hypotheses (the largest boundary value they admit) and to a point inside; the
client count ``N`` to 2 (and 1 outside ``quick``), client indices to every value.

At each such choice the claim is ``sup (LHS − RHS) ≤ 0`` over the PEP (interpolation
inequalities of F_{μ,L} between all points of the same function: Taylor, Hendrickx & Glineur,
Math. Program. 161, 2017, Thm 4). It holds *certified* when
:func:`pyfed.engines.pep.certificate.find_certificate` returns a rational certificate of
``LHS − RHS ≤ 0·init`` (init the zero form) that :func:`~pyfed.engines.pep.certificate.verify_certificate`
accepts; the feasible set is a cone (every form is homogeneous, the constant term is the
certificate's slack), so without a certificate the SDP is solved with the Gram trace normalised
to ≤ 1 (:func:`pyfed.engines.pep.direct.solve_direct`): a value ≤ tolerance gives
``holds (numerical)``, a positive one means the claim fails by homogeneity. A failing case is
reported violated only with an exact witness (:func:`exact_witness`: the worst case's Gram matrix
factorised, each function replaced by a fitted rational quadratic of its class, or every point 0
and shifted quadratics when a constant term or a function shift decides), decided by the run-free
search's own exact decision; without one the row is inconclusive.

Terms outside that reach (``‖u‖`` other than as a whole side compared with another norm, products
of two quadratic terms, division by one, ``∃``, ``min``/``max``, sequences, ...) raise
:class:`NoLemmaPEP` with the reason (:func:`lemma_pep_applies`).

Why one module: reading the statement for the PEP (which names are points, functions, scalars;
which hypotheses describe the class), choosing the scalars, evaluating the terms as forms and
deciding each case are one pipeline over the same plan, and every step's refusal is the one
reason :class:`NoLemmaPEP` reports; no other module calls the intermediate steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product

from ...checkers import families as fam
from ...engines.pep.certificate import find_certificate
from ...engines.pep.direct import solve_direct
from ...engines.pep.exact_pep import ExactPEP, Form, Vec, _q, fvalue, inner, sq
from ...engines.pep.forms import LinearForms, Norm, as_form
from ...engines.pep.scaffold import _dyadic, fit_class_quadratic
from ...evaluation.evaluator import Atoms, Evaluator
from ...exact import rational_str as _fmt
from ...lean.terms import Node
from ...statements.elaboration import resolved
from ...verdicts import Evidence, Holds, Inconclusive, Violated
from .interpolation import interpolation_witness
from .reader import RunFreeStatement
from .search import LEMMA_WITNESS_SCHEMA, _num, _s, decide_lemma_instance

__all__ = ["NoLemmaPEP", "LemmaPEPCase", "lemma_pep_plan", "lemma_pep_cases", "lemma_pep_case", "lemma_pep_applies", "lemma_pep_row",
           "decide_case", "exact_witness", "scalar_value"]

_IGNORED = {"HasGradientAt", "Differentiable", "DifferentiableAt", "DifferentiableOn"}
#: numerical tolerance on the trace-normalised supremum (a larger value is a positive worst case)
_SUP_TOL = 1e-6


class NoLemmaPEP(Exception):
    """The statement has no PEP row; ``str(exc)`` says why, in words a user can act on."""



class _Problem:
    def __init__(self, fs, beta):
        self.fs, self.beta = fs, beta


# ------------------------------------------------------------------------------------- the plan
@dataclass
class _Plan:
    """The statement read for the PEP: names by role and the hypotheses by kind."""

    points: list = field(default_factory=list)          # Space d names
    functions: list = field(default_factory=list)       # Space d → ℝ names
    problems: list = field(default_factory=list)        # (name, N name)
    indices: list = field(default_factory=list)         # (name, N name) of Fin N
    reals: list = field(default_factory=list)
    dims: list = field(default_factory=list)
    counts: list = field(default_factory=list)          # ℕ names that are client counts
    scalar_hyps: list = field(default_factory=list)     # nodes
    smooth: dict = field(default_factory=dict)          # function name -> hypothesis node
    convex: dict = field(default_factory=dict)          # function name -> hypothesis node
    minimisers: list = field(default_factory=list)      # (function or problem name, point name)
    prob_convexity: dict = field(default_factory=dict)  # problem name -> μ node
    smooth_consts: set = field(default_factory=set)
    convex_consts: set = field(default_factory=set)


def _idents(node):
    """The names a term mentions (the type names of casts such as ``(4 : ℝ)`` excluded)."""
    return {n.value for n in node.walk() if n.kind == "ident"} - {"ℝ", "ℕ", "ℚ"}


def _head(node):
    h = node.head_name() if isinstance(node, Node) else None
    return (h or "").rsplit(".", 1)[-1]


def _strip_implications(node):
    while node.kind == "binop" and node.value == "→":
        node = node.args[1]
    return node


def lemma_pep_plan(st) -> _Plan:
    """Read ``st`` for the PEP (see the module docstring); raises :class:`NoLemmaPEP` with the
    reason when a parameter, hypothesis or the conclusion is outside its reach."""
    if not isinstance(st, RunFreeStatement):
        raise NoLemmaPEP(f"the statement is a {getattr(st, 'family', 'run statement')}, not run-free")
    pl = _Plan()
    nat_names = []
    for p in st.parameters:
        t = resolved(p.lty)
        k = getattr(t, "kind", "unknown")
        if k == "vec":
            pl.points.append(p.name)
        elif k == "fun" and getattr(t.args[0], "kind", "") == "vec" and getattr(t.args[1], "kind", "") == "real":
            pl.functions.append(p.name)
        elif k == "problem":
            n = t.args[2]
            pl.problems.append((p.name, n.value if isinstance(n, Node) and n.kind == "ident" else n))
        elif k == "fin":
            n = t.args[0]
            pl.indices.append((p.name, n.value if isinstance(n, Node) and n.kind == "ident" else n))
        elif k == "real":
            pl.reals.append(p.name)
        elif k == "nat":
            nat_names.append(p.name)
        else:
            raise NoLemmaPEP(f"parameter {p.name} has a type the PEP does not model ({p.lty}); it models points "
                             "of Space d, functions Space d → ℝ, a Problem, client indices and real scalars")
    if not pl.functions and not pl.problems:
        raise NoLemmaPEP("no function of a class (Space d → ℝ with smoothness and convexity hypotheses, or a "
                         "Problem with Convexity P μ) among the parameters")
    counts = {n for _, n in pl.problems} | {n for _, n in pl.indices}
    for n in nat_names:
        (pl.counts if n in counts else pl.dims).append(n)
    fnames = set(pl.functions)
    pnames = {n for n, _ in pl.problems}
    vecish = set(pl.points) | fnames | pnames
    for h in st.hypotheses:
        node = _strip_implications(h.node)
        head = _head(node)
        if head in _IGNORED:
            continue
        if node.kind == "forall" and head == "" and _body_head(node) in _IGNORED:
            continue
        if head == "Convexity" and node.kind == "app":
            pl.prob_convexity[node.args[1].value] = node.args[2]
            pl.convex_consts |= _idents(node.args[2]) & set(pl.reals)
            continue
        if head == "IsMinimizer" and node.kind == "app":
            pl.minimisers.append((node.args[1].value, node.args[2].value))
            continue
        if head == "ConvexOn":
            raise NoLemmaPEP(f"hypothesis `{node.text}`: state convexity in first-order form "
                             "(h x + ⟪∇h x, y - x⟫ ≤ h y) for the PEP")
        names = _idents(node)
        if not (names & vecish):
            pl.scalar_hyps.append(node)
            continue
        kind = _class_hypothesis(node, fnames, set(pl.points))
        if kind is None:
            raise NoLemmaPEP(f"hypothesis `{node.text}` is neither a condition on the scalars nor a smoothness, "
                             "convexity or minimiser hypothesis of a function")
        what, fname, extra = kind
        if what == "smooth":
            pl.smooth[fname] = node
            pl.smooth_consts |= names & set(pl.reals)
        elif what == "convex":
            pl.convex[fname] = node
            pl.convex_consts |= names & set(pl.reals)
        else:
            pl.minimisers.append((fname, extra))
    for f in pl.functions:
        if f not in pl.smooth:
            raise NoLemmaPEP(f"function {f} has no smoothness hypothesis ∀ x y, ‖∇{f} x - ∇{f} y‖ ≤ L * ‖x - y‖: "
                             "the PEP's class needs one")
        if f not in pl.convex:
            raise NoLemmaPEP(f"function {f} is not assumed convex (∀ x y, {f} x + ⟪∇{f} x, y - x⟫ ≤ {f} y): "
                             "the PEP's class is the smooth convex functions")
    for p, _ in pl.problems:
        if p not in pl.prob_convexity:
            raise NoLemmaPEP(f"problem {p} has no Convexity {p} μ hypothesis: the PEP's class is the smooth "
                             "convex functions")
    pl.convex_consts -= pl.smooth_consts
    rel = getattr(st, "relation", "≤")
    if rel not in ("≤", "≥"):
        raise NoLemmaPEP(f"the conclusion's relation is {rel}; the PEP decides ≤ and ≥")
    return pl


def _body_head(node):
    body = _strip_implications(node.args[0]) if node.args else node
    return _head(body)


def _class_hypothesis(node, fnames, points):
    """("smooth" | "convex", function, None) or ("min", function, point) for a quantified
    hypothesis over points about one function, by its shape; None otherwise."""
    if node.kind != "forall":
        return None
    body = _strip_implications(node.args[0])
    if not (body.kind == "binop" and body.value in ("≤", "≥")):
        return None
    used = _idents(body) & fnames
    if len(used) != 1:
        return None
    fname = used.pop()
    a, b = body.args
    if body.value == "≥":
        a, b = b, a
    if a.kind == "norm" and any(n.kind == "app" and _head(n) == "gradient" for n in a.walk()):
        return "smooth", fname, None
    bound = [bd.name for bd in node.value]
    if a.kind == "app" and b.kind == "app" and len(a.args) == 2 and len(b.args) == 2 \
            and _head(a) == fname and _head(b) == fname and a.args[1].kind == "ident" \
            and a.args[1].value in points and b.args[1].kind == "ident" and b.args[1].value in bound:
        return "min", fname, a.args[1].value
    return "convex", fname, None


# ------------------------------------------------------------------------------------- scalars
def _sym_eval(node, env):
    """Exact value of a scalar term (sympy numbers; free names as sympy symbols in ``env``)."""
    import sympy

    k = node.kind
    if k == "num":
        v = _q(node.value)
        return sympy.Rational(v.numerator, v.denominator)
    if k == "ident":
        if node.value in env:
            return env[node.value]
        raise NoLemmaPEP(f"`{node.value}` in a scalar hypothesis is not a scalar parameter")
    if k in ("cast", "coe"):
        return _sym_eval(node.args[0], env)
    if k == "neg":
        return -_sym_eval(node.args[0], env)
    if k == "inv":
        return 1 / _sym_eval(node.args[0], env)
    if k == "not":
        return sympy.Not(_sym_eval(node.args[0], env))
    if k == "binop":
        op = node.value
        a, b = _sym_eval(node.args[0], env), _sym_eval(node.args[1], env)
        ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
               "^": lambda: a ** b, "≤": lambda: sympy.Le(a, b), "<": lambda: sympy.Lt(a, b),
               "≥": lambda: sympy.Ge(a, b), ">": lambda: sympy.Gt(a, b), "=": lambda: sympy.Eq(a, b),
               "≠": lambda: sympy.Ne(a, b), "∧": lambda: sympy.And(a, b), "∨": lambda: sympy.Or(a, b)}
        if op in ops:
            return ops[op]()
    raise NoLemmaPEP(f"scalar term `{node.text}` is outside the PEP's arithmetic (+ - * / ^ and comparisons)")


#: the exact value of a scalar term (public name of :func:`_sym_eval`, for the range proofs)
scalar_value = _sym_eval


def _holds(node, env) -> bool | None:
    import sympy
    try:
        v = _sym_eval(node, env)
    except ZeroDivisionError:
        return False
    if v in (sympy.true, True):
        return True
    if v in (sympy.false, False):
        return False
    return None


def _scalar_choices(pl: _Plan, quick: bool) -> list:
    """Every assignment {name: Fraction} of the real scalars (and client counts) the PEP decides
    at (module docstring), each satisfying every scalar hypothesis."""
    import sympy

    def rat(q):
        q = _q(q)
        return sympy.Rational(q.numerator, q.denominator)

    options = {}
    for r in pl.reals:
        if r in pl.smooth_consts:
            options[r] = [Fraction(1)]
        elif r in pl.convex_consts:
            options[r] = [Fraction(0), Fraction(1, 2)]
    for p, _ in pl.problems:
        options[f"{p}.β"] = [Fraction(1)]
    counts = {c: [Fraction(2)] + ([] if quick else [Fraction(1)]) for c in pl.counts}
    fixed_names = list(options) + list(counts)
    base = [dict(zip(fixed_names, vals)) for vals in product(*([options[n] for n in options] +
                                                               [counts[c] for c in counts]))] or [{}]
    free = [r for r in pl.reals if r not in options]
    out = []
    for b in base:
        partial = [b]
        for name in free:
            nxt = []
            for env in partial:
                for v in _free_values(pl, env, name):
                    nxt.append({**env, name: v})
            partial = nxt
        for env in partial:
            senv = {k: rat(v) for k, v in env.items()}
            if all(_holds(h, senv) is True for h in pl.scalar_hyps if _idents(h) <= set(senv)):
                out.append(env)
    return out


def _free_values(pl, env, name) -> list:
    """A boundary value and an inner value of the scalar ``name`` under the hypotheses whose other
    names are fixed in ``env`` (1 when no hypothesis constrains it)."""
    import sympy

    t = sympy.Symbol("t_lemma_pep")
    senv = {k: sympy.Rational(_q(v).numerator, _q(v).denominator) for k, v in env.items()}
    local = {**senv, name: t}
    hyps = [h for h in pl.scalar_hyps if name in _idents(h) and _idents(h) <= set(local)]
    bounds = set()
    for h in hyps:
        if h.kind == "binop" and h.value in ("≤", "<", "≥", ">", "="):
            try:
                a, b = _sym_eval(h.args[0], local), _sym_eval(h.args[1], local)
                roots = sympy.solve(sympy.Eq(a, b), t)
            except Exception:  # not polynomial in the scalar: no boundary from this hypothesis
                continue
            bounds |= {Fraction(int(r.p), int(r.q)) for r in roots if r.is_Rational}
    bs = sorted(bounds)
    cands = [(v, "boundary") for v in reversed(bs)]
    inner_pts = [(a + b) / 2 for a, b in zip(bs, bs[1:])] + ([bs[0] - 1, bs[-1] + 1, bs[-1] / 2] if bs else [Fraction(1)])
    cands += [(v, "inside") for v in inner_pts]

    def ok(v):
        e = {**senv, name: sympy.Rational(v.numerator, v.denominator)}
        return all(_holds(h, e) is not False for h in hyps)
    picked = []
    for kind in ("boundary", "inside"):
        for v, k in cands:
            if k == kind and ok(v) and v not in picked:
                picked.append(v)
                break
    return picked


# ------------------------------------------------------------------------------------- terms
class _GramAtoms(Atoms):
    """The PEP's atoms for the evaluator: the statement's points (leaves of the Gram basis),
    functions (with their interpolation points), scalars and problems (``P.f``, ``P.β``) by name;
    ``⟪u, v⟫``, ``∇h x``, ``h x`` and ``objective P.f x`` as forms; sums over the ``count``
    clients only."""

    def __init__(self, count: int | None):
        self.count = count

    def ident(self, ev, node, env):
        name = node.value
        if name in env:
            return env[name]
        if "." in name:
            owner, fld = name.split(".", 1)
            if owner in env and isinstance(env[owner], _Problem):
                if fld == "f":
                    return env[owner].fs
                if fld == "β":
                    return env[owner].beta
                raise NoLemmaPEP(f"`{name}`: the PEP models the clients P.f and the constant P.β only")
        raise NoLemmaPEP(f"`{name}` is not a point, function or scalar the PEP models")

    def apply(self, ev, node, env):
        head = _head(node)
        args = node.args[1:]
        if head == "inner":
            vs = [ev.eval(a, env) for a in args if not (a.kind == "ident" and a.value == "ℝ")]
            if len(vs) != 2 or not all(isinstance(v, Vec) for v in vs):
                raise NoLemmaPEP(f"`{node.text}`: an inner product of two vectors expected")
            return inner(vs[0], vs[1])
        if head == "gradient":
            f = ev.eval(args[0], env)
            x = ev.eval(args[1], env)
            if not hasattr(f, "gradient") or not isinstance(x, Vec):
                raise NoLemmaPEP(f"`{node.text}`: the gradient of a class function at a point expected")
            return f.gradient(x, args[1].text)
        if head == "objective":
            fs = ev.eval(args[0], env)
            x = ev.eval(args[1], env)
            if not isinstance(fs, list) or not isinstance(x, Vec):
                raise NoLemmaPEP(f"`{node.text}`: objective of the clients at a point expected")
            total = Form()
            for f in fs:
                total = total + fvalue(f.add_point(x, name=args[1].text)[2])
            return Fraction(1, len(fs)) * total
        fn = ev.eval(node.args[0], env)
        for a in args:
            v = ev.eval(a, env)
            if isinstance(fn, list) and isinstance(v, int):
                fn = fn[v]
            elif hasattr(fn, "value") and isinstance(v, Vec):
                fn = fvalue(fn.add_point(v, name=a.text)[2])
            else:
                raise NoLemmaPEP(f"`{node.text}`: {head or 'this application'} is not a class function at a point")
        return fn

    def sum_items(self, ev, node, env):
        if node.args[0] is not None or self.count is None:
            raise NoLemmaPEP(f"`{node.text}`: only sums ∑ i over the clients are modelled")
        return range(self.count)


class _Eval:
    """A term's value over one PEP: the evaluator over :class:`~pyfed.engines.pep.forms.LinearForms`
    with the Gram basis' atoms (module docstring); ``env`` binds the statement's names."""

    def __init__(self, pep: ExactPEP, env: dict, count: int | None):
        self.env, self.count = env, count
        self.evaluator = Evaluator(LinearForms(NoLemmaPEP), _GramAtoms(count))

    def __call__(self, node, env=None):
        return self.evaluator.eval(node, self.env if env is None else env)


# ------------------------------------------------------------------------------------- cases
@dataclass
class LemmaPEPCase:
    """One choice of the statement's parameters and its exact PEP: ``pep.metric`` is LHS − RHS
    (after squaring both sides when they are norms), ``pep.init`` the zero form, so the claim is
    metric ≤ 0·init. ``values``: the scalars, client counts and indices chosen; ``squared``: the
    sides were norms compared through their squares; ``leaves``: each point's vector and each
    function of the statement; ``minimisers``: function -> its minimiser's name; ``dims``: the
    dimension names; ``problems``: a Problem's clients are among the functions; ``solution``: the
    trace-normalised SDP's answer once :func:`decide_case` solved it."""

    values: dict
    pep: ExactPEP
    squared: bool = False
    leaves: dict = field(default_factory=dict)
    minimisers: dict = field(default_factory=dict)
    solution: object = None
    dims: list = field(default_factory=list)
    problems: bool = False
    problem_values: dict = field(default_factory=dict)    # Problem name -> (namespace, its clients' functions)

    def label(self) -> str:
        return ", ".join(f"{k}={_fmt(v) if isinstance(v, Fraction) else v}" for k, v in self.values.items()) or "-"


def _function_class(pep, ev, fname, pl, env):
    """(L, μ) of function ``fname`` read from its smoothness and convexity hypotheses at the
    chosen scalars, by evaluating each hypothesis on two fresh points of a scratch function."""
    scratch = ExactPEP()
    f = scratch.new_function(1, 0)
    x, y = scratch.new_leaf("x"), scratch.new_leaf("y")
    ev2 = _Eval(scratch, env, ev.count)
    L = mu = None
    for what, node in (("smooth", pl.smooth[fname]), ("convex", pl.convex[fname])):
        names = [b.name for b in node.value]
        if len(names) != 2:
            raise NoLemmaPEP(f"hypothesis `{node.text}`: two points expected")
        body = _strip_implications(node.args[0])
        a, b = body.args
        if body.value == "≥":
            a, b = b, a
        local = {**env, fname: f, names[0]: x, names[1]: y}
        va, vb = ev2(a, local), ev2(b, local)
        if what == "smooth":
            if not (isinstance(va, Norm) and isinstance(vb, Norm)):
                raise NoLemmaPEP(f"hypothesis `{node.text}`: ‖∇h x - ∇h y‖ ≤ L * ‖x - y‖ expected")
            gx, gy = f.gradient(x, "x"), f.gradient(y, "y")
            want = sq(gx - gy)
            got = (va.c * va.c) * sq(va.v)
            if _diff(got, want) or vb.c <= 0 or _diff((vb.c * vb.c) * sq(vb.v), (vb.c * vb.c) * sq(x - y)):
                raise NoLemmaPEP(f"hypothesis `{node.text}`: ‖∇h x - ∇h y‖ ≤ L * ‖x - y‖ expected")
            L = vb.c
        else:
            d = _as_form(va) - _as_form(vb)
            base = None
            for p, q in ((x, y), (y, x)):
                cand = fvalue(f.add_point(p)[2]) - fvalue(f.add_point(q)[2]) + inner(f.gradient(p), q - p)
                rest = d - cand
                c = rest.gram.get(_diag(x), Fraction(0))
                if not _diff(rest, c * sq(q - p)) and c >= 0:
                    base = 2 * c
                    break
            if base is None:
                raise NoLemmaPEP(f"hypothesis `{node.text}`: h x + ⟪∇h x, y - x⟫ + μ/2 * ‖y - x‖ ^ 2 ≤ h y expected")
            mu = base
    if not (0 <= mu < L):
        raise NoLemmaPEP(f"function {fname}: the chosen constants give μ = {_fmt(mu)}, L = {_fmt(L)}; the PEP's "
                         "class needs 0 ≤ μ < L")
    return L, mu


def _diag(v: Vec):
    (k,) = v.coef
    return (k, k)


def _as_form(v):
    return as_form(v, NoLemmaPEP)


def _diff(a: Form, b: Form) -> bool:
    d = a - b
    return bool(d.gram or d.fval or d.const)


def lemma_pep_cases(st, *, quick: bool = False) -> list:
    """The :class:`LemmaPEPCase` of every parameter choice (module docstring). Raises
    :class:`NoLemmaPEP` with the reason when the statement has no PEP row."""
    try:
        return _cases(st, quick)
    except NoLemmaPEP:
        raise
    except (ValueError, TypeError, KeyError, AttributeError, IndexError, ZeroDivisionError) as exc:
        raise NoLemmaPEP(f"the statement could not be read for the PEP ({type(exc).__name__}: {exc})") from None


def _cases(st, quick):
    pl = lemma_pep_plan(st)
    choices = _scalar_choices(pl, quick)
    if not choices:
        raise NoLemmaPEP("no rational choice of the scalars satisfies the scalar hypotheses")
    cases = []
    for env0 in choices:
        counts = {c: int(v) for c, v in env0.items() if c in pl.counts}
        idx_ranges = []
        for name, n in pl.indices:
            if n not in counts:
                raise NoLemmaPEP(f"client index {name} : Fin {n} with {n} not a client count of a Problem")
            idx_ranges.append([(name, i) for i in range(counts[n])])
        for idx in product(*idx_ranges) if idx_ranges else [()]:
            cases.append(_build_case(st, pl, env0, dict(idx), counts))
    return cases


def _build_case(st, pl, env0, idx, counts) -> LemmaPEPCase:
    scal = {k: v for k, v in env0.items() if k not in pl.counts}
    pep = ExactPEP(f"{st.name} at " + (", ".join(f"{k}={_fmt(v)}" for k, v in env0.items()) or "-"))
    env = dict(scal)
    env.update({c: Fraction(v) for c, v in counts.items()})
    env.update(idx)
    for p in pl.points:
        env[p] = pep.new_leaf(p)
    count = None
    problem_values = {}
    for name, n in pl.problems:
        mu_node = pl.prob_convexity[name]
        mu = _Eval(pep, env, None)(mu_node)
        if not isinstance(mu, Fraction) or not (0 <= mu < 1):
            raise NoLemmaPEP(f"Convexity {name} μ: μ = {mu_node.text} must be a number in [0, β) at β = 1")
        N = counts.get(n)
        if N is None:
            raise NoLemmaPEP(f"the client count of {name} is not a parameter")
        count = N if count is None else count
        fs = [pep.new_function(1, mu) for _ in range(N)]
        env[name] = _Problem(fs, Fraction(1))
        problem_values[name] = (str(resolved(next(p.lty for p in st.parameters if p.name == name)).args[0]), fs)
    ev = _Eval(pep, env, count)
    for fname in pl.functions:
        L, mu = _function_class(pep, ev, fname, pl, env)
        env[fname] = pep.new_function(L, mu)
    for owner, point in pl.minimisers:
        x = env[point]
        if isinstance(env[owner], _Problem):
            fs = env[owner].fs
            gs = [pep.new_leaf(f"g{f.index}({point})") for f in fs[:-1]]
            last = Vec()
            for g in gs:
                last = last - g
            for f, g in zip(fs, gs + [last]):
                f.add_point(x, g, name=point)
        else:
            env[owner].add_point(x, Vec(), name=point)
    lhs, rhs = ev(st.lhs), ev(st.rhs)
    if st.relation == "≥":
        lhs, rhs = rhs, lhs
    squared = False
    if isinstance(lhs, Norm) or isinstance(rhs, Norm):
        if not (isinstance(lhs, Norm) and isinstance(rhs, Norm)) or rhs.c < 0:
            raise NoLemmaPEP("a side ‖u‖ without a square compared with something other than c * ‖v‖ (c ≥ 0): "
                             "not a linear form in the Gram entries")
        if lhs.c < 0:
            lhs = Form()      # -c‖u‖ ≤ 0 ≤ c'‖v‖ ... compared below through 0 ≤ rhs²
        else:
            lhs = (lhs.c * lhs.c) * sq(lhs.v)
        rhs = (rhs.c * rhs.c) * sq(rhs.v)
        squared = True
    pep.metric = _as_form(lhs) - _as_form(rhs)
    pep.init = Form()
    values = {**{k: v for k, v in env0.items()}, **idx}
    leaves = {n: env[n] for n in pl.points + pl.functions}
    mins = {owner: point for owner, point in pl.minimisers if owner in pl.functions}
    return LemmaPEPCase(values, pep, squared, leaves, mins, dims=list(pl.dims), problems=bool(pl.problems),
                        problem_values=problem_values)


# ------------------------------------------------------------------------------------- deciding
def decide_case(case: LemmaPEPCase, *, certify: bool = True) -> dict:
    """Decide one case: ``{"outcome": "certified" | "numerical" | "positive" | "unbounded" |
    "solver", "certificate": Certificate | None, "sup": float | None, "reason": str}``.

    certified: a verified rational certificate of metric ≤ 0 (exact); numerical: no certificate
    (reason given), the SDP with the Gram trace ≤ 1 has sup ≤ 1e-6 and the constant term is ≤ 0;
    positive: that sup (or the constant term) is > 0, so by homogeneity the claim fails (no exact
    witness here); unbounded: a function's values enter with a nonzero total weight (adding a
    constant to it moves LHS − RHS without bound); solver: the SDP did not solve."""

    pep = case.pep
    cert, why = (find_certificate(pep, Fraction(0)) if certify else (None, "certificate search disabled"))
    if cert is not None:
        return {"outcome": "certified", "certificate": cert, "sup": 0.0, "reason": ""}
    for f in pep.functions:
        w = sum((pep.metric.fval.get(j, 0) for _, _, _, j in f.points), Fraction(0))
        if w != 0:
            return {"outcome": "unbounded", "certificate": None, "sup": float("inf"),
                    "reason": f"the values of function {f.index} enter LHS − RHS with total weight {_fmt(w)}: adding a "
                              "constant to it moves LHS − RHS without bound"}
    const = pep.metric.const
    homog = Form(dict(pep.metric.gram), dict(pep.metric.fval), Fraction(0))
    trace = Form({(a, a): Fraction(1) for a in range(len(pep.leaves))})
    work = ExactPEP(pep.description)
    work.leaves, work.fvalues, work.functions = pep.leaves, pep.fvalues, pep.functions
    work.metric, work.init = homog, trace
    sol = solve_direct(work)
    case.solution = sol
    if sol.status not in ("optimal", "optimal_inaccurate") or sol.worst is None:
        return {"outcome": "solver", "certificate": None, "sup": None,
                "reason": f"SDP status {sol.status!r}; no certificate: {why}"}
    sup = max(sol.worst, sol.primal if sol.primal is not None else sol.worst)
    if sup > _SUP_TOL or const > 0:
        return {"outcome": "positive", "certificate": None, "sup": sup if sup > _SUP_TOL else float(const),
                "reason": f"the PEP finds LHS − RHS up to {sup:.3g} with the Gram trace ≤ 1 "
                          f"(constant term {_fmt(const)}), so it grows without bound by homogeneity"}
    return {"outcome": "numerical", "certificate": None, "sup": sup,
            "reason": f"SDP sup of LHS − RHS = {sup:.3g} ≤ {_SUP_TOL:g} with the Gram trace ≤ 1; no exact certificate: {why}"}


def exact_witness(st, case: LemmaPEPCase):
    """A counterexample built from a positive worst case of ``case`` (after :func:`decide_case`
    solved it), decided exactly by the run-free search's own decision
    (:func:`pyfed.models.runfree.search.decide_lemma_instance`): the solver's Gram
    matrix factorised (points in ℝ^r), each function replaced by the quadratic ½ xᵀAx − bᵀx with
    A fitted to its points and gradients inside μI ⪯ A ⪯ LI (a least-squares SDP), A, b and the
    points rounded to dyadic rationals (b = A x⋆ exactly at a minimiser). Nothing of the fit is
    trusted: the instance is a witness only when every hypothesis holds and the conclusion fails
    exactly. Returns ``(record, "")`` with the violated
    :class:`~pyfed.models.runfree.search.LemmaRecord`, or ``(None, reason)``."""
    import numpy as np


    if case.problems:
        return None, "witnesses are built for functions Space d → ℝ only, not for a Problem's clients"
    pep = case.pep
    if pep.metric.const > 0 or any(_weight(pep, f) for f in pep.functions):
        return _zero_witness(st, case)
    sol = case.solution
    if sol is None or not sol.grams:
        return None, "no solved worst case"
    G = 0.5 * (sol.grams[0] + sol.grams[0].T)
    lam, U = np.linalg.eigh(G)
    keep = lam > 1e-7 * max(float(lam.max()), 1e-300)
    if not keep.any():
        return None, "the worst case's Gram matrix is zero"
    V = U[:, keep] * np.sqrt(lam[keep])          # leaf a -> V[a] in R^r
    r = V.shape[1]

    def coords(v: Vec):
        out = np.zeros(r)
        for a, c in v.coef.items():
            out += float(c) * V[a]
        return out

    env = {d: r for d in case.dims}
    env.update({k: v for k, v in case.values.items() if isinstance(v, Fraction)})
    points = {n: v for n, v in case.leaves.items() if isinstance(v, Vec)}
    for n, v in points.items():
        env[n] = _vec([_dyadic(t) for t in coords(v)])
    for n, f in case.leaves.items():
        if isinstance(f, Vec):
            continue
        Aq, _b = fit_class_quadratic(np.array([coords(x) for _, x, _, _ in f.points]).T,
                                     np.array([coords(g) for _, _, g, _ in f.points]).T, f.mu, f.L, fallback=True)
        xs = case.minimisers.get(n)
        if xs is not None:
            x = env[xs]
            b = [sum((Aq[i][j] * x[j] for j in range(r)), Fraction(0)) for i in range(r)]
        else:
            pts = [coords(x) for _, x, _, _ in f.points]
            grads = [coords(g) for _, _, g, _ in f.points]
            A = np.array(Aq, dtype=float)
            b = [_dyadic(t) for t in np.mean([A @ p - g for p, g in zip(pts, grads)], axis=0)] if pts else [Fraction(0)] * r
        env[n] = _quadratic(Aq, b, n)
    rec = decide_lemma_instance(st, env, description=f"PEP worst case at {case.label()} (quadratic fit, dimension {r})")
    if rec.status != "violated":
        why = rec.reason or (f"hypotheses {', '.join(rec.failing)} fail after rounding" if rec.failing else rec.status)
        return None, f"the quadratic fitted to the worst case is not a counterexample ({why})"
    return rec, ""


def _weight(pep, f) -> Fraction:
    """Total weight of function ``f``'s values in the metric (nonzero: a constant shift of f moves
    the metric without bound)."""
    return sum((pep.metric.fval.get(j, 0) for _, _, _, j in f.points), Fraction(0))


def _zero_witness(st, case):
    """Every point 0 in dimension 1, every function L/2·x² + c_f (gradient 0 at every point, so
    LHS − RHS = its constant term + Σ_f w_f c_f, w_f the total weight of f's values): c_f chosen
    so that this is ≥ 1 (a positive constant term, or one function's shift)."""

    pep = case.pep
    const = pep.metric.const
    shift = {}
    if const <= 0:
        f = next(f for f in pep.functions if _weight(pep, f))
        w = _weight(pep, f)
        shift[f.index] = (abs(const) + 1) / w
    env = {d: 1 for d in case.dims}
    env.update({k: v for k, v in case.values.items() if isinstance(v, Fraction)})
    for n, v in case.leaves.items():
        if isinstance(v, Vec):
            env[n] = _vec([Fraction(0)])
    for n, f in case.leaves.items():
        if not isinstance(f, Vec):
            env[n] = _quadratic([[f.L]], [Fraction(0)], n, shift.get(f.index, Fraction(0)))
    rec = decide_lemma_instance(st, env, description=f"PEP at {case.label()}: every point 0, quadratics "
                                                     "L/2·x² shifted by constants (dimension 1)")
    if rec.status != "violated":
        why = rec.reason or (f"hypotheses {', '.join(rec.failing)} fail" if rec.failing else rec.status)
        return None, f"the shifted quadratics are not a counterexample ({why})"
    return rec, ""


def _vec(xs):
    return fam.vec(xs)


def _quadratic(A, b, name, c=Fraction(0)):
    return fam.quadratic(A, b, c, name=name)


def lemma_pep_applies(st) -> str | None:
    """None when ``st`` gets the run-free PEP row, else the reason (reads the statement and builds
    the problems without solving anything)."""
    try:
        lemma_pep_cases(st, quick=True)
    except NoLemmaPEP as exc:
        return str(exc)
    return None


def _violated(st, rec, details, row, how="exact quadratic witness"):

    details = dict(details, instance=f"PEP worst case at {row['parameters']} ({how})",
                   description=rec.description)
    if rec.lhs is not None and rec.rhs is not None:
        details.update(lhs_exact=_s(rec.lhs), rhs_exact=_s(rec.rhs))
    witness = {"schema": LEMMA_WITNESS_SCHEMA, "instance": rec.instance, "statement": st.name, "source": st.source,
               "index": 0, "origin": "PEP worst case"}
    return Violated(st.name, None if rec.lhs is None else _num(rec.lhs), None if rec.rhs is None else _num(rec.rhs),
                    True, details, evidence=Evidence.EXACT, witness=witness)


def lemma_pep_row(st, *, quick: bool = False, certify: bool = True, witness: bool = True):
    """The statement's run-free PEP verdict (module docstring): Holds certified (evidence "PEP
    certificate over the class") when every case has a verified certificate; Holds numerical
    when every case holds and some only numerically; Violated when a case has a positive
    worst case and :func:`exact_witness` turns it into an exact counterexample (``witness=False``
    skips that); Inconclusive for a positive worst case without one, an unbounded one or a
    solver failure. Raises
    :class:`NoLemmaPEP` when the statement has no PEP row. ``details["cases"]`` lists each case."""

    cases = lemma_pep_cases(st, quick=quick)
    rows = []
    for case in cases:
        res = decide_case(case, certify=certify)
        row = {"parameters": case.label(), "outcome": res["outcome"], "leaves": len(case.pep.leaves),
               "constraints": len(case.pep.constraints)}
        if res["certificate"] is not None:
            c = res["certificate"]
            row["nonzero_multipliers"] = c.info.get("nonzero_multipliers")
            row["slack"] = _fmt(c.slack)
        if res["reason"]:
            row["reason"] = res["reason"]
        if res["sup"] is not None and res["outcome"] not in ("certified", "unbounded"):
            row["sup"] = res["sup"]
        rows.append(row)
    details = {"engine": "PEP over the function class (run-free)", "cases": rows,
               "claim": "LHS − RHS ≤ 0 for every function of the class"
                        + (" (sides are norms: compared through their squares)" if cases[0].squared else ""),
               "instance": "PEP over the class at " + "; ".join(r["parameters"] for r in rows)}
    for case, r in zip(cases, rows):
        if r["outcome"] not in ("positive", "unbounded"):
            continue
        if not witness:
            r["reason"] += "; no exact witness (not built)"
            continue
        rec, why = exact_witness(st, case)
        how = "exact quadratic witness"
        if rec is None:         # the interpolating function of the class through the worst case
            rec, why_i = interpolation_witness(st, case)
            how = "realised as a function of the class, re-checked exactly"
            why = why if rec is not None else f"{why}; {why_i}"
        if rec is None:
            r["reason"] += f"; no exact witness: {why}"
            continue
        r["witness"] = rec.description
        return _violated(st, rec, details, r, how)
    bad = [r for r in rows if r["outcome"] not in ("certified", "numerical")]
    if bad:
        r = bad[0]
        return Inconclusive(statement=st.name, details=details,
                            reason=f"PEP at {r['parameters']}: {r['reason']}")
    where = "; ".join(r["parameters"] for r in rows)
    if all(r["outcome"] == "certified" for r in rows):
        nz = ", ".join(str(r["nonzero_multipliers"]) for r in rows)
        return Holds(statement=st.name, lhs=None, rhs=None, exact=True, details=details,
                     evidence=Evidence.PEP_CERTIFICATE,
                     certificate=f"PEP certificate over the class at {where}: LHS − RHS + Σ λ_k I_k = ⟨Q, G⟩ + slack "
                                 f"with rational λ ≥ 0 ({nz} nonzero), Q PSD by exact LDL^T, slack ≥ 0; identity "
                                 "checked coefficient by coefficient")
    r = next(r for r in rows if r["outcome"] == "numerical")
    return Holds(statement=st.name, lhs=None, rhs=None, exact=False, details=details,
                 evidence=Evidence.PEP_NUMERICAL,
                 certificate=f"PEP SDP over the class at {where} (numerical); at {r['parameters']}: {r['reason']}")


def lemma_pep_case(st, values: dict, indices: dict | None = None) -> LemmaPEPCase:
    """The case of ``st`` at the scalar values and client counts ``values`` (names, and
    ``P.β`` for a Problem, to Fractions) and the client indices ``indices``, built as the PEP row
    builds its own cases (:class:`NoLemmaPEP` when the statement has no PEP encoding)."""
    pl = lemma_pep_plan(st)
    counts = {c: int(values[c]) for c in pl.counts if c in values}
    return _build_case(st, pl, dict(values), dict(indices or {}), counts)
