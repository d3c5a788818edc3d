"""Deciding a run-free statement's hypotheses on an instance (:func:`decide_hypothesis`) and
moving a real parameter to their boundary (:func:`tighten`).

A hypothesis is decided exactly by the interpreter when it is finite; a quantifier over
``Space d`` is decided exactly on quadratic data (both sides are polynomials of degree ≤ 2 in
the points, norms compared through their squares: a positive semidefiniteness test in exact
rationals, :func:`forall_on_quadratics`); a property of a named function class (Huber
functions: smoothness and convexity constants) from the class (:func:`class_property`); the
structural propositions (``HasGradientAt``, ``Convexity P μ``, ``IsMinimizer P x⋆``,
``ConvexOn``) from the functions' construction (:func:`structural`)."""

from __future__ import annotations

import copy
from fractions import Fraction

import sympy

from ...evaluation.evaluator import gradient_of
from ...problems.quadratic import is_psd_exact
from ...statements.elaboration import resolved
from ...statements.evaluate import compare
from ...statements.interpret import Fun, NotFinite, Structural, Vec
from .plan import _kind

__all__ = ["decide_hypothesis", "class_property", "structural", "forall_on_quadratics", "tighten"]


def decide_hypothesis(h, env, interp) -> bool:
    """The hypothesis ``h`` on the instance ``env``: exactly (see the module docstring). Raises
    :class:`~pyfed.statements.interpret.Structural` when the instance cannot certify it."""
    try:
        return interp.holds(h.node, env)
    except NotFinite as exc:
        try:
            return forall_on_quadratics(exc.node, env, interp)
        except (Structural, TypeError):
            return class_property(exc.node, env, interp)
    except Structural as exc:
        return structural(exc.name, exc.node, env, interp)


def class_property(node, env, interp) -> bool:
    """A quantified hypothesis over points about a function that is not quadratic, decided from the
    properties its family certifies (Huber: convex, smooth with the certified β): the three
    first-order forms ``‖∇F x − ∇F y‖ ≤ L ‖x − y‖`` (holds when L ≥ the certified β),
    ``F x + ⟪∇F x, y − x⟫ ≤ F y`` (convexity) and the same with ``+ μ / 2 * ‖y − x‖ ^ 2``
    (μ at most the certified strong convexity). Anything else raises Structural."""
    binders, body = node.value, node.args[0]
    names = [b.name for b in binders]
    if len(names) == 1 and body.kind == "binop" and body.value == "≤":
        return _minimum(node, names[0], body, env, interp)
    if len(names) != 2 or not (body.kind == "binop" and body.value == "≤"):
        raise Structural("a quantified hypothesis over points", node)
    x, y = names
    a, b = body.args
    if a.kind == "norm" and b.kind == "binop" and b.value == "*" and b.args[1].kind == "norm":
        inner = a.args[0]
        if inner.kind == "binop" and inner.value == "-" and all(
                t.kind == "app" and t.args[0].kind == "ident" and t.args[0].value == "gradient" for t in inner.args):
            f = interp.eval(inner.args[0].args[1], env)
            L = interp.eval(b.args[0], env)
            beta = _props(f).get("beta")
            if beta is not None and compare(beta, L) >= 0:
                return True
            raise Structural("smoothness beyond the certified constant", node)
    fterm = None
    mu = Fraction(0)
    left = a
    if left.kind == "binop" and left.value == "+" and left.args[1].kind == "binop" and left.args[1].value == "*" \
            and left.args[1].args[1].kind == "binop" and left.args[1].args[1].value == "^":
        coef = left.args[1].args[0]           # μ / 2
        mu = interp.eval(coef, env) * 2
        left = left.args[0]
    if left.kind == "binop" and left.value == "+" and left.args[0].kind == "app":
        fterm = _without_point(left.args[0]) if left.args[0].kind == "app" else None
    if fterm is not None and b.kind == "app" and _without_point(b).text == fterm.text:
        f = interp.eval(fterm, env)
        props = _props(f)
        if props.get("convex") and compare(mu, props.get("mu", Fraction(0))) >= 0:
            return True
        raise Structural("convexity not certified", node)
    raise Structural("a quantified hypothesis over points", node)


def _without_point(app):
    """``F`` of an application ``F x`` (``h x`` -> ``h``; ``objective f x`` -> ``objective f``)."""
    if len(app.args) == 2:
        return app.args[0]
    head = copy.copy(app)
    head.args = app.args[:-1]
    head.text = " ".join(a.text for a in head.args)
    return head


def _minimum(node, y, body, env, interp) -> bool:
    """``∀ y, F x⋆ ≤ F y`` (``F`` a function or the model's ``objective f``) for a convex function
    certified by its family: true iff ∇F(x⋆) = 0 exactly (a convex function is minimal exactly
    where its gradient vanishes)."""
    a, b = body.args
    if not (a.kind == "app" and b.kind == "app" and len(a.args) == len(b.args) >= 2
            and b.args[-1].kind == "ident" and b.args[-1].value == y
            and [x.text for x in a.args[:-1]] == [x.text for x in b.args[:-1]]):
        raise Structural("a quantified hypothesis over points", node)
    f = interp.eval(_without_point(a), env)
    if not _props(f).get("convex"):
        raise Structural("a minimiser of a function whose convexity is not certified", node)
    g = gradient_of(f, node)(interp.eval(a.args[-1], env))
    return all(compare(0, v) == 0 for v in g)


def _props(f) -> dict:
    """The certified class properties of a function value: its own, or for the model's ``objective
    F`` (the average of a ``Fin n`` family) those the average inherits: β at most the mean of the
    members' β, μ at least the mean of their μ, convex when every member is."""
    own = getattr(f, "props", None) or {}
    if own:
        return own
    part = getattr(f, "partial", None)
    if part is not None and part[0].rsplit(".", 1)[-1] == "objective" and len(part[1]) == 1:
        members = list(getattr(part[1][0], "values", None) or [])
        if members and all(getattr(m, "props", None) for m in members):
            n = len(members)
            if all("beta" in m.props for m in members):
                return {"beta": sum((Fraction(m.props["beta"]) for m in members), Fraction(0)) / n,
                        "mu": sum((Fraction(m.props.get("mu", 0)) for m in members), Fraction(0)) / n,
                        "convex": all(m.props.get("convex") for m in members)}
    return {}


def structural(name, node, env, interp) -> bool:
    """A structural proposition from the functions' construction."""
    base = name.removeprefix("MeasureTheory.").removeprefix("ProbabilityTheory.").rsplit(".", 1)[-1]
    args = node.args[1:] if node.kind == "app" else []
    if base == "HasGradientAt":
        f = interp.eval(args[0], env)
        return isinstance(f, Fun) and (f.grad is not None or getattr(f, "partial", None) is not None)
    if base in ("Convexity",):
        P = interp.eval(args[0], env)
        mu = interp.eval(args[1], env)
        if compare(0, mu) < 0:
            return False
        return all(_quadratic_psd(c.quadratic[0], shift=mu) for c in P.clients if hasattr(c, "quadratic")) and \
            all(hasattr(c, "quadratic") or (c.props.get("convex") and compare(mu, c.props.get("mu", 0)) >= 0)
                for c in P.clients)
    if base == "IsMinimizer":
        P = interp.eval(args[0], env)
        x = interp.eval(args[1], env)
        grads = [c.grad(x) for c in P.clients]
        total = grads[0]
        for g in grads[1:]:
            total = total + g
        if any(compare(0, v) != 0 for v in total):
            return False
        if not all(hasattr(c, "quadratic") for c in P.clients):
            # a zero gradient of the average of convex clients (certified by their family): a minimiser
            return all(c.props.get("convex") for c in P.clients)
        n = len(P.clients)
        mean = [[sum(c.quadratic[0][i][j] for c in P.clients) / n for j in range(len(x))] for i in range(len(x))]
        return _quadratic_psd(mean)
    if base == "ConvexOn":
        f = interp.eval(args[-1], env)
        if hasattr(f, "quadratic"):
            return _quadratic_psd(f.quadratic[0])
        return bool(f.props.get("convex"))
    if base == "iCondIndepFun":
        return True      # independence across clients of the drawn noises: they are drawn independently
    raise Structural(name, node)


def _quadratic_psd(A, shift=0) -> bool:
    d = len(A)
    return is_psd_exact([[A[i][j] - (shift if i == j else 0) for j in range(d)] for i in range(d)])


def forall_on_quadratics(node, env, interp) -> bool:
    """``∀ x y : Space d, LHS ≤ RHS`` decided exactly when every function involved is quadratic:
    the points become symbols, both sides polynomials of degree ≤ 2 (a side ``‖u‖`` or ``c * ‖u‖``
    with c ≥ 0 is compared through its square), and the margin is nonnegative everywhere iff its
    homogenised quadratic form is positive semidefinite (exact rationals)."""
    binders, body = node.value, node.args[0]
    syms = {}
    local = dict(env)
    for b in binders:
        t = resolved(getattr(b, "lty", None))
        if _kind(t) != "vec":
            raise Structural("∀ over a type that is not Space d", node)
        d = interp.dim(t.args[0], env, node)
        xs = [sympy.Symbol(f"{b.name}_{i}") for i in range(d)]
        syms[b.name] = xs
        local[b.name] = Vec(xs)
    while body.kind == "binop" and body.value == "→":
        body = body.args[1]
    if body.kind == "forall":
        inner = forall_on_quadratics(body, local, interp)
        return inner
    head = body.args[0] if body.kind == "app" else None
    if head is not None and getattr(body, "ref", (None,))[0] == "structural":
        return structural(body.ref[1], body, local, interp)
    if not (body.kind == "binop" and body.value in ("≤", "<", "≥", ">")):
        raise Structural("∀ over points of a proposition that is not an inequality", node)
    a, b = body.args[0], body.args[1]
    if body.value in ("≥", ">"):
        a, b = b, a
    sa, sb = _side_squared(a, local, interp), _side_squared(b, local, interp)
    if sa is None or sb is None:
        return False
    (ea, sq_a), (eb, sq_b) = sa, sb
    if sq_a != sq_b:
        if sq_a and not sq_b:          # ‖u‖ ≤ E: need E ≥ 0 everywhere and ‖u‖² ≤ E²
            if not _nonneg_everywhere(eb, [s for v in syms.values() for s in v]):
                return False
            eb = sympy.expand(eb ** 2)
        else:
            return False
    margin = sympy.expand(sympy.sympify(eb) - sympy.sympify(ea))
    return _nonneg_everywhere(margin, [s for v in syms.values() for s in v])


def _side_squared(node, env, interp):
    """(expression, squared?): a norm side ``‖u‖`` or ``c * ‖u‖`` (c ≥ 0 a number) as its square."""
    if node.kind == "norm":
        inner = interp.eval(node.args[0], env)
        return sympy.expand(sum((x * x for x in inner), sympy.Integer(0))), True
    if node.kind == "binop" and node.value == "*" and node.args[1].kind == "norm":
        c = interp.eval(node.args[0], env)
        if compare(0, c) < 0:
            return None
        inner = interp.eval(node.args[1].args[0], env)
        return sympy.expand(sympy.Rational(c) ** 2 * sum((x * x for x in inner), sympy.Integer(0))), True
    return sympy.expand(sympy.sympify(_sym(interp.eval(node, env)))), False


def _sym(v):
    if isinstance(v, Fraction):
        return sympy.Rational(v.numerator, v.denominator)
    return v


def _nonneg_everywhere(expr, symbols) -> bool:
    """An exact test that a polynomial of degree ≤ 2 in ``symbols`` is ≥ 0 for all real values."""
    expr = sympy.expand(expr)
    poly = sympy.Poly(expr, *symbols) if symbols else None
    if poly is None:
        return bool(sympy.sympify(expr) >= 0)
    if poly.total_degree() > 2:
        raise Structural("a quantified inequality of degree > 2", None)
    n = len(symbols)
    M = sympy.zeros(n + 1, n + 1)
    for monom, coef in poly.terms():
        idx = [i for i, e in enumerate(monom) for _ in range(e)]
        if len(idx) == 2:
            i, j = idx
            if i == j:
                M[i, i] += coef
            else:
                M[i, j] += coef / 2
                M[j, i] += coef / 2
        elif len(idx) == 1:
            M[idx[0], n] += coef / 2
            M[n, idx[0]] += coef / 2
        else:
            M[n, n] += coef
    return is_psd_exact([[Fraction(int(sympy.Rational(M[i, j]).p), int(sympy.Rational(M[i, j]).q))
                          for j in range(n + 1)] for i in range(n + 1)])


def _rational_roots(hyps, name, local, x, interp, ops) -> list:
    """The rational roots in the symbol ``x`` (bound in ``local``) of ``lhs = rhs`` for each
    hypothesis of ``hyps`` that compares with an operator of ``ops`` and mentions ``name``, solved
    exactly with sympy (a hypothesis that is not polynomial in ``x`` gives none)."""
    out = []
    for h in hyps:
        body = h.node
        if not (body.kind == "binop" and body.value in ops and
                any(n.kind == "ident" and n.value == name for n in body.walk())):
            continue
        try:
            a = sympy.sympify(_sym(interp.eval(body.args[0], local)))
            b = sympy.sympify(_sym(interp.eval(body.args[1], local)))
            roots = sympy.solve(sympy.Eq(a, b), x)
        except Exception:      # noqa: BLE001 -- not polynomial in the unknown: no candidate from it
            continue
        out += [Fraction(int(r.p), int(r.q)) for r in roots if r.is_Rational]
    return out


def tighten(st, pl, env, name, interp, hyps) -> list:
    """Candidate values of the real parameter ``name`` at the boundary of what the hypotheses that
    mention it admit, the others fixed: the roots of each comparison hypothesis in ``name``
    (solved exactly when the hypothesis is polynomial in it)."""
    x = sympy.Symbol("tighten_x")
    return _rational_roots(hyps, name, {**env, name: x}, x, interp, ("≤", "<", "≥", ">", "="))


def last_member_roots(env, name, interp, hyps) -> list:
    """Rational values of the last member of the family ``name`` (``Fin n → ℝ``, drawn in ``env``)
    that make an equation among ``hyps`` hold, the other members fixed (``∑ i, w i = 1`` gives
    1 − the others' sum): the exact roots, solved with sympy, of each ``=`` hypothesis that
    mentions ``name``."""
    vals = list(getattr(env.get(name), "values", None) or [])
    if not vals:
        return []
    x = sympy.Symbol("last_member")
    trial = vals[:-1] + [x]
    local = dict(env)
    local[name] = Fun(lambda i: trial[int(i)], n=len(trial), name="family")
    return _rational_roots(hyps, name, local, x, interp, ("=",))
