"""Identities and inequalities of the model's algebra decided symbolically on the unrolled
definitions (run-free statements over scalars, points and finite families of points).

The statement's terms are evaluated by the run-free interpreter (:class:`pyfed.statements.
interpret.Interpreter`, the model's definitions from their Lean bodies) on *symbolic* values: every
real parameter a sympy symbol, every point a vector of symbols, a family ``Fin n → Space d`` one
such vector per index. Sizes must be numbers there, so each natural-number parameter takes every
value its hypotheses admit up to a bound (:data:`BOUND`); the dimension ``d`` needs no bound when
the terms only combine points linearly and through inner products and norms (no coordinate is
read and ``d`` is not used as a number): every such term depends on the points' Gram matrix alone,
and every Gram matrix of ``m`` points is realised in dimension ``m``, so dimension ``m`` (the
number of points) stands for every ``d``.

On each size the conclusion is decided exactly: an equality by cancelling the difference of the
two sides to 0 (coordinate by coordinate for points), an inequality by an exact certificate from
the scalar hypotheses (:mod:`pyfed.engines.proof.positivstellensatz`), every divisor proven
nonzero on the hypotheses first (Lean's ``x / 0 = 0``). The proof is complete when the sizes
decided are every size the hypotheses admit (a size fixed by ``n = 3`` or bounded by ``n ≤ 3``);
otherwise it is partial and says which sizes it covers ("N ≤ 4, every d").
"""

from __future__ import annotations

from itertools import product

import sympy

from ...engines.proof.proof import Attempt, Proof, Step
from ...engines.proof.scalar import Region, Relation, ScalarForm
from ...statements.interpret import Fun, Interpreter, Vec

__all__ = ["identity_proof", "BOUND"]

#: every natural-number size is decided up to this value when its hypotheses leave it unbounded
BOUND = 4
_COMPARE = ("≤", "<", "=", "≥", ">")


class _Refuse(Exception):
    pass


class _NotApplicable(Exception):
    pass


def _ty(p):
    return getattr(p, "lty", None)


def _name_of(node) -> str | None:
    return str(node.value) if getattr(node, "kind", "") == "ident" else None


def _shapes(st):
    """``(dims, sizes, scalars, points, families)`` of the parameters, or _Refuse."""
    dims, sizes, scalars, points, families = set(), {}, [], [], []
    for p in st.parameters:
        t = _ty(p)
        k = getattr(t, "kind", None)
        if p.kind == "nat":
            continue
        if p.kind == "real":
            scalars.append(p.name)
        elif k == "vec":
            dims.add(_name_of(t.args[0]) or "?")
            points.append(p.name)
        elif k == "fun" and getattr(t.args[0], "kind", "") == "fin" and getattr(t.args[1], "kind", "") in ("vec", "real"):
            arg = t.args[0].args[0]
            n = _name_of(arg) if hasattr(arg, "kind") else None
            if n is None and getattr(arg, "kind", "") == "num":
                n = int(arg.value)
            elif n is None and isinstance(arg, int):
                n = arg
            if n is None:
                raise _Refuse(f"the family {p.name} has a size that is neither a parameter nor a numeral")
            sizes[p.name] = n
            if t.args[1].kind == "vec":
                dims.add(_name_of(t.args[1].args[0]) or "?")
            families.append((p.name, t.args[1].kind))
        else:
            raise _NotApplicable(f"parameter {p.name} ({p.type_text}) is not a number, a point or a finite family")
    return dims, sizes, scalars, points, families


def _invariant(st, dims) -> bool:
    """Whether the terms read no coordinate and use no dimension as a number (module docstring),
    the model's definitions they use included."""
    nodes = [st.conclusion] + [h.node for h in st.hypotheses]
    for d in (st.definitions or {}).values():
        body = getattr(d, "body", None)
        if hasattr(body, "walk"):
            nodes.append(body)
        elif getattr(d, "cases", None):
            return False
    for node in nodes:
        for n in node.walk():
            if n.kind == "app" and n.args and getattr(n.args[0], "ty", None) == "vec":
                return False
            if n.kind == "ident" and str(n.value) in dims and getattr(n, "ty", None) in ("nat", "real"):
                return False
            if n.kind == "subscript":
                return False
    return True


def _size_values(st, nats) -> tuple:
    """``({nat: values}, {nat: covered})``: the values 0..BOUND each natural parameter may take by
    the hypotheses that mention it alone, and whether those are all it may take (an upper bound
    ≤ BOUND read from a hypothesis ``n = c``, ``n ≤ c``, ``n < c``)."""
    values, covered = {}, {}
    for n in nats:
        ub = None
        for h in st.hypotheses:
            node = h.node
            if node.kind == "binop" and node.value in _COMPARE:
                a, b = node.args
                op = node.value
                if _name_of(a) == n and b.kind == "num":
                    c = int(b.value)
                elif _name_of(b) == n and a.kind == "num":
                    c = int(a.value)
                    op = {"≤": "≥", "<": ">", "≥": "≤", ">": "<", "=": "="}[op]
                else:
                    continue
                bound = {"=": c, "≤": c, "<": c - 1}.get(op)
                if bound is not None:
                    ub = bound if ub is None else min(ub, bound)
        top = BOUND if ub is None else min(ub, BOUND)
        values[n] = list(range(0, top + 1))
        covered[n] = ub is not None and ub <= BOUND
    return values, covered


def identity_proof(st):
    """The symbolic decision of ``st`` (module docstring): a complete or partial
    :class:`~pyfed.engines.proof.proof.Proof` of kind ``identity``, an
    :class:`~pyfed.engines.proof.proof.Attempt` saying why not, or None when it does not apply."""
    if st.relation not in ("≤", "<", "=") or st.rhs is None:
        return None
    try:
        dims, sizes, scalars, points, families = _shapes(st)
    except _Refuse as exc:
        return Attempt("identity", "the unrolled definitions", str(exc))
    except _NotApplicable:
        return None
    if not points and not families:
        return None             # a scalar statement: the scalar reading decides it
    nats = [p.name for p in st.parameters if p.kind == "nat"]
    free_nats = [n for n in nats if n not in dims]
    invariant = _invariant(st, dims)
    values, covered = _size_values(st, free_nats + ([] if invariant else sorted(dims)))
    interp = Interpreter(getattr(st, "file_decls", {}), getattr(st, "context", None))
    order = list(values)
    decided, steps = [], []
    for combo in product(*[values[n] for n in order]):
        env_sizes = dict(zip(order, combo))
        m = len(points) + sum(sizes[f] if isinstance(sizes[f], int) else env_sizes.get(sizes[f], 0)
                              for f, kind in families if kind == "vec")
        for d in dims:
            env_sizes.setdefault(d, m)
        try:
            res = _decide(st, interp, env_sizes, scalars, points, families, sizes)
        except _Refuse as exc:
            return Attempt("identity", "the unrolled definitions", str(exc), steps)
        if res is None:          # the hypotheses on the sizes fail there
            continue
        ok, detail = res
        label = ", ".join(f"{k} = {v}" for k, v in env_sizes.items() if k in order)
        if not ok:
            return Attempt("identity", "the unrolled definitions",
                           f"not decided at {label or 'the sizes'}: {detail}", steps)
        decided.append(label)
        steps.append(Step(f"at {label or 'every size'}" + (", every d" if invariant and dims else ""),
                          "symbolic evaluation of the unrolled definitions", detail=detail))
    if not decided:
        return Attempt("identity", "the unrolled definitions", f"no size up to {BOUND} satisfies the hypotheses")
    complete = all(covered.get(n, False) for n in order)
    every_d = " for every d" if invariant and dims else ""
    scope = ("the whole hypothesis region" if complete else
             ", ".join(f"{n} ≤ {max(values[n])}" for n in order if not covered.get(n)) + every_d)
    summary = ("the two sides are equal as expressions" if st.relation == "=" else "the inequality has an exact "
               "certificate") + f" at every size the hypotheses admit{every_d} (definitions unrolled, values symbolic)"
    return Proof(st.qualified_name, "identity", steps, scope=scope, complete=complete, summary=summary)


def _fresh(name, shape):
    return sympy.symbols(f"{name}_0:{shape}") if shape else ()


def _decide(st, interp, sizes_env, scalars, points, families, sizes):
    """``(ok, detail)`` at one assignment of the sizes, None when a hypothesis on the sizes fails."""
    env = dict(sizes_env)
    for s in scalars:
        env[s] = sympy.Symbol(s)
    for p in points:
        d = sizes_env.get(next(iter(_dims_of(st, p))), 0)
        env[p] = Vec(_fresh(p, d))
    for f, kind in families:
        n = sizes[f] if isinstance(sizes[f], int) else sizes_env[sizes[f]]
        if kind == "vec":
            d = sizes_env.get(next(iter(_dims_of(st, f))), 0)
            vals = [Vec(_fresh(f"{f}{i}", d)) for i in range(n)]
        else:
            vals = [sympy.Symbol(f"{f}{i}") for i in range(n)]
        env[f] = Fun(lambda i, vals=vals: vals[int(i)], n=n, pure=True, name=f)
    facts = []
    for h in st.hypotheses:
        node = h.node
        names = {str(x.value) for x in node.walk() if x.kind == "ident"}
        try:
            if names <= set(sizes_env) | {"ℝ", "ℕ"} or not (names & (set(scalars) | set(points) | set(env))):
                if not interp.holds(node, env):
                    return None
                continue
            if node.kind == "binop" and node.value in _COMPARE:
                a, b = interp.eval(node.args[0], env), interp.eval(node.args[1], env)
                facts.append(Relation(sympy.sympify(a), node.value, sympy.sympify(b), h.text, h.name, h.key))
                continue
        except Exception as exc:      # a hypothesis the symbolic values cannot decide
            raise _Refuse(f"hypothesis `{h.text}`: {exc}") from None
        raise _Refuse(f"hypothesis `{h.text}` is not a comparison")
    try:
        lhs, rhs = interp.eval(st.lhs, env), interp.eval(st.rhs, env)
    except Exception as exc:
        raise _Refuse(f"the conclusion has no symbolic value ({type(exc).__name__}: {exc})") from None
    form = ScalarForm(st.model.tag, st.qualified_name, "symbolic", 0, 0, "≤", hypotheses=facts)
    region = Region(form)
    for den in _divisors(st, interp, env):
        step = region.nonzero_step(den, "a divisor")
        if not step.ok:
            return False, f"{step.claim}: {step.detail}"
    if isinstance(lhs, Vec) or isinstance(rhs, Vec):
        if st.relation != "=" or not (isinstance(lhs, Vec) and isinstance(rhs, Vec)) or len(lhs) != len(rhs):
            raise _Refuse("a comparison of points other than =")
        bad = [k for k, (a, b) in enumerate(zip(lhs, rhs)) if sympy.cancel(sympy.together(a - b)) != 0]
        return (not bad, "every coordinate of the difference cancels to 0" if not bad else
                f"coordinate {bad[0]} of the difference is {sympy.cancel(sympy.together(lhs[bad[0]] - rhs[bad[0]]))}")
    lhs, rhs = sympy.sympify(lhs), sympy.sympify(rhs)
    if st.relation == "=":
        diff = sympy.cancel(sympy.together(lhs - rhs))
        if diff == 0:
            return True, "the difference cancels to 0"
        return _in_ideal(diff, [f for f in facts if f.op == "="])
    
    step = region.step(Relation(lhs, st.relation, rhs), "the conclusion")
    return step.ok, step.detail


def _in_ideal(diff, equalities) -> tuple:
    """``(True, detail)`` when the numerator of ``diff`` lies in the ideal of the equality
    hypotheses (an exact Gröbner-basis reduction to 0: the difference is a combination of them),
    else ``(False, detail)``."""
    num = sympy.fraction(sympy.together(diff))[0]
    polys = [sympy.expand(sympy.sympify(r.lhs) - sympy.sympify(r.rhs)) for r in equalities]
    if not polys:
        return False, f"the difference is {diff}"
    gens = sorted(set().union(num.free_symbols, *[p.free_symbols for p in polys]), key=str)
    try:
        G = sympy.groebner(polys, *gens, order="grevlex", domain="QQ")
        _q, rem = sympy.reduced(sympy.expand(num), list(G), *gens, order="grevlex", domain="QQ")
    except (sympy.PolynomialError, sympy.GeneratorsNeeded, ValueError) as exc:
        return False, f"the difference is {diff} ({exc})"
    if sympy.expand(rem) == 0:
        return True, ("the difference reduces to 0 modulo the equalities " +
                      ", ".join(f"`{r.text}`" for r in equalities) + " (exact Gröbner-basis reduction)")
    return False, f"the difference is {diff}, not 0 modulo the equality hypotheses"


def _dims_of(st, name):
    for p in st.parameters:
        if p.name == name:
            t = _ty(p)
            if t.kind == "vec":
                return {_name_of(t.args[0])}
            return {_name_of(t.args[1].args[0])}
    return {None}


def _divisors(st, interp, env) -> list:
    """The values of the divisors of the statement's terms (``x⁻¹``, ``a / b``) whose value does
    not depend on a bound index; a divisor inside a sum or a definition that depends on one, or a
    definition that divides by a real, makes the method refuse."""
    out = []
    nodes = [st.conclusion] + [h.node for h in st.hypotheses]
    bound = set()
    for node in nodes:
        for n in node.walk():
            if n.kind in ("sum", "fun") and isinstance(n.value, str):
                bound.add(n.value)
    for node in nodes:
        for n in node.walk():
            den = n.args[0] if n.kind == "inv" else (n.args[1] if n.kind == "binop" and n.value == "/" else None)
            if den is None or getattr(n, "ty", None) not in ("real",):
                continue
            names = {str(x.value) for x in den.walk() if x.kind == "ident"}
            if names & bound:
                raise _Refuse(f"the divisor `{den.text}` depends on a summation index")
            try:
                v = sympy.sympify(interp.eval(den, env))
            except Exception as exc:
                raise _Refuse(f"the divisor `{den.text}` has no symbolic value ({exc})") from None
            if v.free_symbols:
                out.append(v)
            elif v == 0:
                raise _Refuse(f"the divisor `{den.text}` is 0 (Lean's x / 0 = 0)")
    for d in (st.definitions or {}).values():
        body = getattr(d, "body", None)
        reals = {b.name for b in getattr(d, "binders", []) if b.type is not None and b.type.text.strip() in ("ℝ", "Real")}
        if hasattr(body, "walk"):
            for n in body.walk():
                den = n.args[0] if n.kind == "inv" else (n.args[1] if n.kind == "binop" and n.value == "/" else None)
                if den is not None and {str(x.value) for x in den.walk() if x.kind == "ident"} & reals:
                    raise _Refuse(f"the definition {d.name} divides by `{den.text}`, a real number")
    return out
