"""PEP certificates of a function-class lemma over its whole parameter range, or over the part of it
they cover, said exactly (the run-free model's ``certificate_proof``).

The PEP row (:mod:`.pep`) certifies the lemma at fixed parameter values (smoothness 1, a few values
of the other scalars). Three arguments extend such certificates, each checked exactly:

1. **Homogeneity.** Scaling every function of the class by ``c > 0`` maps ``F_{μ,L}`` onto
   ``F_{cμ,cL}`` and multiplies function values and gradients by ``c``; if each scalar ``s`` can
   be given a weight ``w_s`` (the smoothness and convexity constants 1, a step ``η`` −1, …) so that
   every hypothesis compares terms of equal weight and both sides of the conclusion have one
   weight (a linear system, solved exactly), the lemma at ``L = 1`` is the lemma at every
   ``L > 0``.
2. **The class shrinks as μ grows.** ``F_{μ,L} ⊆ F_{0,L}``: when a convexity constant occurs in
   the class hypotheses only, the certificate at ``μ = 0`` covers every ``μ ∈ [0, L)``.
3. **A certified cover of a step range.** When one scalar ``p`` remains, ranges over an interval
   ``[a, b]`` by the hypotheses (at ``L = 1``), never enters a point at which a function is
   evaluated (the PEP's points do not move with it) and the sides are polynomials of degree ≤ 2
   in it, LHS − RHS is ``A + B p + C p²`` with ``C`` a form in the Gram matrix: ``C ⪰ 0`` (exact
   LDLᵀ, no function value, nonnegative constant) makes it convex in ``p`` for every function and
   point, so its supremum over ``[a, b]`` is at an endpoint, and certificates at ``a`` and ``b``
   cover the interval.

Client counts (``Problem d N``) are never extended: certificates at ``N = 2`` prove the lemma
for ``N = 2`` only, and the proof then says exactly that.
"""

from __future__ import annotations

from fractions import Fraction

import sympy

from ...engines.pep.certificate import ldl_pivots
from ...engines.pep.exact_pep import Form, gram_matrix
from ...engines.proof.proof import Attempt, Proof, Step
from .pep import NoLemmaPEP, decide_case, lemma_pep_case, lemma_pep_plan, scalar_value

__all__ = ["certificate_proof", "homogeneity_weights"]

_COMPARE = ("≤", "<", "=", "≥", ">")


class _NotHomogeneous(Exception):
    pass


def _head(node) -> str:
    h = node.head_name() if node.kind == "app" else None
    return (h or "").rsplit(".", 1)[-1]


class _Weights:
    """Weight of each term under f ↦ c·f (module docstring): a sympy expression in the unknown
    weights of the scalars, or None for the numeral 0 (of every weight)."""

    def __init__(self, pl):
        self.pl = pl
        self.unknown = {r: sympy.Symbol(f"w_{r}") for r in pl.reals}
        self.fixed = {r: 1 for r in pl.smooth_consts | pl.convex_consts}
        self.eqs: list = []

    def of(self, name):
        if name in self.fixed:
            return sympy.Integer(self.fixed[name])
        if name in self.unknown:
            return self.unknown[name]
        return None

    def same(self, a, b):
        if a is not None and b is not None:
            self.eqs.append(sympy.Eq(a, b))
        return a if a is not None else b

    def __call__(self, node):
        k = node.kind
        if k == "num":
            return None if Fraction(node.value) == 0 else sympy.Integer(0)
        if k == "ident":
            name = str(node.value)
            w = self.of(name)
            if w is not None:
                return w
            if name.endswith(".β"):
                return sympy.Integer(1)
            return sympy.Integer(0)          # points, counts, indices, functions as objects
        if k in ("cast", "coe", "norm", "abs"):
            return self(node.args[0])
        if k == "neg":
            return self(node.args[0])
        if k == "inv":
            w = self(node.args[0])
            return None if w is None else -w
        if k == "binop":
            op = node.value
            if op == "^":
                w = self(node.args[0])
                e = node.args[1]
                if e.kind != "num":
                    raise _NotHomogeneous(f"`{node.text}`: a power that is not a numeral")
                return None if w is None else w * int(e.value)
            a, b = self(node.args[0]), self(node.args[1])
            if op in ("+", "-") or op in _COMPARE:
                return self.same(a, b)
            if op in ("*", "•"):
                return None if (a is None or b is None) else a + b
            if op == "/":
                if b is None:
                    raise _NotHomogeneous(f"`{node.text}`: a division by 0")
                return None if a is None else a - b
            raise _NotHomogeneous(f"`{node.text}`: operator {op}")
        if k == "app":
            h = _head(node)
            if h == "inner":
                ws = [self(a) for a in node.args[1:] if not (a.kind == "ident" and a.value == "ℝ")]
                return None if any(w is None for w in ws) else sum(ws, sympy.Integer(0))
            if h in ("gradient", "objective") or _is_function(node.args[0], self.pl):
                return sympy.Integer(1)     # a gradient, an objective, a class function at a point
            raise _NotHomogeneous(f"`{node.text}`: {h or 'an application'} outside the class's terms")
        if k == "sum":
            return self(node.args[1])
        raise _NotHomogeneous(f"`{node.text}` ({k})")


def homogeneity_weights(st, pl) -> dict | None:
    """``{scalar: weight}`` making the lemma invariant under f ↦ c·f (module docstring), or None."""
    W = _Weights(pl)
    try:
        for node in pl.scalar_hyps:
            if node.kind == "binop" and node.value in _COMPARE:
                W(node)
        W.same(W(st.lhs), W(st.rhs))
    except _NotHomogeneous:
        return None
    unknowns = list(W.unknown.values())
    eqs = [e for e in W.eqs if e is not sympy.true]
    if any(e is sympy.false for e in eqs):
        return None
    sol = sympy.solve(eqs, unknowns, dict=True) if eqs else [{}]
    if not sol:
        return None
    out = {}
    for r, s in W.unknown.items():
        v = sympy.sympify(sol[0].get(s, 0))
        v = v.subs({u: 0 for u in unknowns})
        if r in W.fixed:
            v = sympy.Integer(W.fixed[r])
        out[r] = v
    # the fixed constants must not have been forced to another weight
    for r, w in W.fixed.items():
        if r in W.unknown and sympy.simplify(sympy.sympify(sol[0].get(W.unknown[r], w)).subs({u: 0 for u in unknowns})
                                             - w) != 0:
            return None
    return out


def _scaled(r, w) -> str:
    w = sympy.Rational(w)
    if w == 1:
        return f"{r} ↦ c·{r}"
    if w == -1:
        return f"{r} ↦ {r}/c"
    return f"{r} ↦ c^({w})·{r}"


def _occurs(name, node) -> bool:
    return any(n.kind == "ident" and str(n.value) == name for n in node.walk())


def _is_function(head, pl) -> bool:
    """Whether ``head`` names a class function (``h``, ``P.f``) or is one applied to a client."""
    funcs = set(pl.functions) | {f"{p}.f" for p, _ in pl.problems}
    if head.kind == "ident":
        return str(head.value) in funcs
    return head.kind == "app" and bool(head.args) and _is_function(head.args[0], pl)


def _inside_points(name, st, pl) -> bool:
    """Whether scalar ``name`` occurs inside a point at which a function or gradient is evaluated
    (the PEP's points would move with it)."""
    for node in (st.lhs, st.rhs):
        for n in node.walk():
            if n.kind == "app" and n.args and (_head(n) in ("gradient", "objective") or _is_function(n.args[0], pl)):
                if any(_occurs(name, a) for a in n.args[1:]):
                    return True
    return False


def _interval(name, pl, fixed):
    """``(lo, hi)`` of scalar ``name`` from the scalar hypotheses linear in it once ``fixed``
    (name → value) are substituted, or None when not a bounded interval."""
    t = sympy.Symbol(name)
    lo = hi = None
    for node in pl.scalar_hyps:
        if not (node.kind == "binop" and node.value in _COMPARE) or not _occurs(name, node):
            continue
        try:
            a, b = (scalar_value(x, {**{k: sympy.Rational(v) for k, v in fixed.items()}, name: t}) for x in node.args)
        except (NoLemmaPEP, ValueError, TypeError, ZeroDivisionError):
            return None
        d = sympy.expand(b - a)                     # a op b  ⇔  d (op') 0
        if d.free_symbols - {t}:
            return None
        poly = sympy.Poly(d, t)
        if poly.degree() != 1:
            return None
        c1, c0 = poly.all_coeffs()
        root = -c0 / c1
        op = node.value
        # a ≤ b ⇔ d ≥ 0 ⇔ t ≥ root (c1 > 0) or t ≤ root (c1 < 0)
        if op in ("≤", "<"):
            upper = c1 < 0
        elif op in ("≥", ">"):
            upper = c1 > 0
        else:
            lo = hi = root
            continue
        if upper:
            hi = root if hi is None else min(hi, root)
        else:
            lo = root if lo is None else max(lo, root)
    if lo is None or hi is None or lo > hi:
        return None
    return Fraction(int(lo.p), int(lo.q)), Fraction(int(hi.p), int(hi.q))


def _lagrange(forms: list, xs: list) -> list:
    """Coefficients (Forms) of the polynomial through (xs[i], forms[i]), degree len(xs) − 1."""
    n = len(xs)
    coefs = [Form() for _ in range(n)]
    for i, (xi, fi) in enumerate(zip(xs, forms)):
        # basis polynomial ℓ_i as coefficients
        basis = [Fraction(1)]
        denom = Fraction(1)
        for j, xj in enumerate(xs):
            if j == i:
                continue
            basis = [Fraction(0)] + basis
            for k in range(len(basis) - 1):
                basis[k] -= xj * basis[k + 1]
            denom *= xi - xj
        for k, c in enumerate(basis):
            coefs[k] = coefs[k] + (c / denom) * fi
    return coefs


def _is_zero(f: Form) -> bool:
    return not f.gram and not f.fval and f.const == 0


def certificate_proof(st):
    """The PEP certificate proof of ``st`` over its parameter ranges (module docstring): a
    complete :class:`~pyfed.engines.proof.proof.Proof`, a partial one with its exact scope, an
    :class:`~pyfed.engines.proof.proof.Attempt`, or None when the lemma has no PEP encoding."""
    try:
        pl = lemma_pep_plan(st)
    except NoLemmaPEP:
        return None
    steps, scope, complete = [], [], True
    weights = homogeneity_weights(st, pl)
    values: dict = {}
    smooth = sorted(pl.smooth_consts) + [f"{p}.β" for p, _ in pl.problems]
    if weights is not None:
        maps = ", ".join(_scaled(r, w) for r, w in sorted(weights.items()) if w != 0)
        steps.append(Step("homogeneity: f ↦ c·f" + (f", {maps}" if maps else "") + " (c > 0) leaves every hypothesis "
                          "and the conclusion invariant up to a positive factor, so the smoothness constant is 1 "
                          "without loss of generality", "exact weights (linear system)"))
    else:
        complete = False
        scope.append("smoothness constant 1")
    for r in smooth:
        values[r] = Fraction(1)
    for r in sorted(pl.convex_consts):
        if any(_occurs(r, n) for n in [st.lhs, st.rhs] + list(pl.scalar_hyps)):
            return Attempt("certificate", "PEP over the parameter range",
                           f"the convexity constant {r} occurs outside the class hypotheses: no cover of its range")
        values[r] = Fraction(0)
        steps.append(Step(f"{r} occurs in the class hypotheses only and F_(μ,L) ⊆ F_(0,L): μ = 0 is the worst case",
                          "inclusion of classes"))
    for p, _n in pl.problems:
        mu_node = pl.prob_convexity[p]
        if mu_node.kind != "num" or Fraction(mu_node.value) != 0:
            return Attempt("certificate", "PEP over the parameter range", f"Convexity {p} μ with μ = {mu_node.text}")
    for c in pl.counts:
        values[c] = Fraction(2)
        complete = False
        scope.append(f"{c} = 2")
    free = [r for r in pl.reals if r not in values]
    endpoints = [dict(values)]
    if len(free) > 1:
        return Attempt("certificate", "PEP over the parameter range",
                       f"{len(free)} scalars ({', '.join(free)}) vary together: no certified cover of their range")
    if free:
        p = free[0]
        rng = _interval(p, pl, values)
        if rng is None:
            return Attempt("certificate", "PEP over the parameter range",
                           f"the hypotheses do not bound {p} to an interval at smoothness 1")
        if _inside_points(p, st, pl):
            return Attempt("certificate", "PEP over the parameter range",
                           f"{p} occurs inside a point where a function is evaluated")
        lo, hi = rng
        try:
            xs = [lo, (lo + hi) / 2, hi] if lo != hi else [lo]
            forms = [lemma_pep_case(st, {**values, p: x}).pep.metric for x in xs + ([lo + (hi - lo) / 4]
                                                                                      if lo != hi else [])]
        except NoLemmaPEP as exc:
            return Attempt("certificate", "PEP over the parameter range", str(exc))
        if lo != hi:
            coefs = _lagrange(forms[:3], xs)
            check = coefs[0] + (xs[0] + (hi - lo) / 4) * coefs[1] + ((xs[0] + (hi - lo) / 4) ** 2) * coefs[2]
            if not _is_zero(check - forms[3]):
                return Attempt("certificate", "PEP over the parameter range",
                               f"LHS − RHS is not a polynomial of degree ≤ 2 in {p}")
            C = coefs[2]
            n = len(lemma_pep_case(st, {**values, p: lo}).pep.leaves)
            if C.fval or C.const < 0 or ldl_pivots(gram_matrix(C, n)) is None:
                return Attempt("certificate", "PEP over the parameter range",
                               f"LHS − RHS is not convex in {p} (its {p}² coefficient is not a PSD Gram form)")
            steps.append(Step(f"LHS − RHS = A + B·{p} + C·{p}² with C a PSD Gram form (exact LDLᵀ): convex in {p}, so "
                              f"its supremum over [{lo}, {hi}] is at an endpoint", "exact interpolation of the PEP forms"))
        endpoints = [{**values, p: lo}, {**values, p: hi}] if lo != hi else [{**values, p: lo}]
    for env in endpoints:
        label = ", ".join(f"{k} = {v}" for k, v in env.items())
        idx_sets = [{}]
        for name, n in pl.indices:
            idx_sets = [{**i, name: k} for i in idx_sets for k in range(int(env.get(n, 2)))]
        for idx in idx_sets:
            try:
                case = lemma_pep_case(st, env, idx)
            except NoLemmaPEP as exc:
                return Attempt("certificate", "PEP over the parameter range", str(exc), steps)
            res = decide_case(case)
            where = label + (", " + ", ".join(f"{k} = {v}" for k, v in idx.items()) if idx else "")
            if res["outcome"] != "certified":
                return Attempt("certificate", "PEP over the parameter range",
                               f"no exact certificate at {where}: {res['reason'] or res['outcome']}", steps)
            step = Step(f"exact PEP certificate at {where}", "PEP certificate (exact LDLᵀ, identity checked "
                        "coefficient by coefficient)", detail=f"{res['certificate'].info.get('nonzero_multipliers')} "
                        "nonzero multipliers", certificate=None)
            step.pep_certificate = (case, res["certificate"])
            steps.append(step)
    summary = "; ".join(s.claim for s in steps if not s.claim.startswith("exact PEP"))
    summary = (summary + "; " if summary else "") + f"certificates at {len(endpoints)} parameter point(s)"
    return Proof(st.qualified_name, "certificate", steps, scope=" and ".join(scope) if scope else
                 "the whole hypothesis region", complete=complete, summary=summary)
