"""The statement builder for theorems about a SCAFFOLD run (``∀ A : Run P ν S K T ηl ηg init,
LHS ≤ RHS``, binders before or after the colon): parameters with their roles, hypotheses with
their keys, the run's arguments, the two sides elaborated (:func:`statements_from`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...lean.terms import LeanSyntaxError, Node
from ...statements import model
from ...statements.declarations import (
    Context,
    push_lets,
    theorem_header,
    used_variables,
)
from ...statements.elaborate import (
    COMPARE,
    Elaborator,
    ScopeName,
    binder_scope,
    canon,
    canon_in,
    type_kind,
)
from ...statements.lean_statement import peel
from ...statements.statement import HypothesisSpec, Location, Parameter, Statement

__all__ = ["ScaffoldRunStatement", "statements_from", "is_run_type"]


@dataclass
class ScaffoldRunStatement(Statement):
    """A theorem about a SCAFFOLD ``Run`` (see the module docstring). Beyond :class:`Statement`:
    ``problem_args``, the problem binder's type arguments ``d N`` (terms)."""

    family: str = "SCAFFOLD run"
    problem_args: tuple = field(default=(), repr=False)


def is_run_type(t) -> bool:
    """``Run …`` however qualified (resolution proper happens when the binder's type is read)."""
    h = t.head_name() or ""
    return h.removeprefix("_root_.").removeprefix(model.NAMESPACE + ".") == "Run"


def _about_runs(node) -> bool:
    """Whether both conjuncts of ``node`` are statements about a run (then each is a statement)."""
    return all(any(n.kind == "forall" and any(b.type is not None and is_run_type(b.type) for b in n.value)
                   for n in side.walk()) for side in node.args)


def _peel(node, own_binders, hyps_raw):
    """Split a statement's type into [(binders, hypotheses, conclusion, suffix)]
    (:func:`pyfed.statements.lean_statement.peel`): a conclusion ``(∀ …, …) ∧ (∀ …, …)`` whose
    conjuncts are both statements about a run gives one entry per conjunct."""
    return peel(node, own_binders, hyps_raw, split=_about_runs)


def statements_from(name, namespace, cmd, variables, decls, clean, path) -> list:
    binders, ty, header_text = theorem_header(name, cmd, clean, path)
    out = []
    for own_binders, hyps_raw, conclusion, suffix in _peel(ty, binders, []):
        out.append(_build_statement(name + suffix, namespace, cmd, variables, decls, path, binders, ty,
                                    own_binders, hyps_raw, conclusion, header_text,
                                    ctx=decls.contexts.get(name, Context(namespace))))
    return out


def _build_statement(name, namespace, cmd, variables, decls, path, binders, ty, own_binders, hyps_raw, conclusion,
                     header_text, ctx=None) -> ScaffoldRunStatement:
    loc = Location(path, cmd.line, cmd.col)
    canon = canon_in(ctx, decls, path)
    if not any(b.type is not None and is_run_type(b.type) for b in own_binders) \
            and not any(b.type is not None and is_run_type(b.type) for b in variables):
        raise LeanSyntaxError(f"theorem `{name}` without a run", "the reader reads statements about SCAFFOLD runs "
                              "(`∀ A : Run P ν S K T ηl ηg init, …`)", line=cmd.line, col=cmd.col, path=path,
                              supported="theorems quantifying over `A : Run P ν S K T ηl ηg (some c0)` or `… none`")
    own_names = {b.name for b in own_binders}
    used_vars = [b for b in used_variables(variables, binders, ty.text, exclude=own_names)
                 if b.name not in own_names]
    all_binders = list(used_vars) + own_binders
    # parameters
    scope: dict = {}
    params: list = []
    for b in all_binders:
        if b.type is None:
            raise LeanSyntaxError(f"binder `{b.name}` without a type", "give every bound name a type",
                                  line=b.line, col=b.col, path=path, supported="∀ (x : T), …")
        kind, info = type_kind(b.type, b.style, scope, canon)
        if kind is None or kind.startswith("unsupported"):
            binder_scope([b], path, decls, scope, ctx=ctx)   # raises with the construct named
        if kind == "prop":
            hyps_raw.append((b.type, b.name))
            params.append(Parameter(b.name, "prop", None, b.type.text, Location(path, b.line, b.col), b.type))
            continue
        if b.name in scope and b.name != "_":
            raise LeanSyntaxError(f"name `{b.name}` bound twice", "", line=b.line, col=b.col, path=path,
                                  supported="distinct names")
        prm = Parameter(b.name, kind, None, b.type.text, Location(path, b.line, b.col), b.type)
        params.append(prm)
        if b.name != "_":
            scope[b.name] = ScopeName(kind, prm, b.type)
    runs = [p_ for p_ in params if p_.kind == "run"]
    if not runs:
        raise LeanSyntaxError(f"theorem `{name}` without a run", "the reader reads statements about SCAFFOLD runs "
                              "(`∀ A : Run P ν S K T ηl ηg init, …`)", line=cmd.line, col=cmd.col, path=path,
                              supported="theorems quantifying over `A : Run P ν S K T ηl ηg (some c0)` or `… none`")
    if len(runs) > 1:
        r2 = runs[1]
        raise LeanSyntaxError("a second run", f"`{r2.name}`", line=r2.location.line, col=r2.location.col, path=path,
                              supported="one run per statement")
    problems = [p_ for p_ in params if p_.kind == "problem"]
    if len(problems) != 1:
        where = problems[1].location if len(problems) > 1 else loc
        raise LeanSyntaxError("problems" if problems else "statement without `P : Problem d N`",
                              f"{len(problems)} bound problems", line=where.line, col=where.col, path=path,
                              supported="exactly one `P : Problem d N`")
    el = Elaborator(path, decls, scope, allow_stats=False, ctx=ctx)
    run = _run_args(runs[0], scope, el, path)
    _problem_args(problems[0], scope, el, path)
    for prm in params:
        if prm.kind == "vector" or prm.kind == "controls":
            pass
    problems[0].role = "P"
    runs[0].role = "A"
    if run["P"].value != problems[0].name:
        raise LeanSyntaxError(f"run of `{run['P'].text}`", f"the problem is `{problems[0].name}`", line=run["P"].line,
                              col=run["P"].col, path=path, supported="Run P ν … of the statement's problem P")
    # hypotheses
    hyps: list = []
    for hnode, hname in hyps_raw:
        hyps.extend(_hypotheses(hnode, hname, scope, el, path))
    # conclusion
    conclusion = push_lets(conclusion)
    if not (conclusion.kind == "binop" and conclusion.value in ("≤", "<", "≥", ">")):
        raise LeanSyntaxError(f"conclusion `{conclusion.text[:60]}`", "", line=conclusion.line, col=conclusion.col,
                              path=path, supported="LHS ≤ RHS (or <, ≥, >) with the run's statistics on the left")
    lhs, rhs = conclusion.args
    relation = conclusion.value
    if relation in ("≥", ">"):
        lhs, rhs = rhs, lhs
        relation = {"≥": "≤", ">": "<"}[relation]
    left = Elaborator(path, decls, scope, allow_stats=True, ctx=ctx)
    left.arith(lhs, "real")
    if not left.statistics:
        raise LeanSyntaxError(f"left side `{lhs.text[:60]}`", "it does not involve the run",
                              line=lhs.line, col=lhs.col, path=path, supported=model.SUPPORTED_LEFT)
    right = Elaborator(path, decls, scope, allow_stats=False, ctx=ctx)
    right.arith(rhs, "real")
    # roles
    _assign_roles(params, run, hyps)
    # keys
    _assign_keys(hyps, params, run)
    defs = {**left.used_defs, **right.used_defs}
    for e in (el,):
        defs.update(e.used_defs)
    return ScaffoldRunStatement(name=name, namespace=namespace, location=loc, parameters=params, hypotheses=hyps,
                                run=run, init="some" if run["init"].kind == "app" else "none",
                                controls=run["init"].args[1].value if run["init"].kind == "app" else None,
                                lhs=lhs, rhs=rhs, relation=relation, statistics=list(left.statistics),
                                definitions=defs, text=f"theorem {name} {header_text}",
                                problem_args=tuple(problems[0].type_node.args[1:]))


def _run_args(run_param, scope, el, path) -> dict:
    args = run_param.type_node.args[1:]
    names = ("P", "nu", "S", "K", "T", "eta_l", "eta_g", "init")
    out = dict(zip(names, args))
    P, nu = out["P"], out["nu"]
    for node, kind in ((P, "problem"), (nu, "measure")):
        if node.kind != "ident" or node.value not in scope or scope[node.value].kind != kind:
            raise LeanSyntaxError(f"`{node.text}` as the {kind} of the run", "", line=node.line, col=node.col,
                                  path=path, supported=f"the statement's bound {kind}")
    for role in ("S", "K", "T", "eta_l", "eta_g"):
        node = out[role]
        want = "nat" if role in ("S", "K", "T") else "real"
        if node.kind == "num":
            el.arith(node, want)
            continue
        if node.kind != "ident" or node.value not in scope or scope[node.value].kind != want:
            raise LeanSyntaxError(f"`{node.text}` as the run's {role}", "", line=node.line, col=node.col, path=path,
                                  supported=f"a bound {'ℕ' if want == 'nat' else 'ℝ'} name or a numeral")
        node.ty = want
    init = out["init"]
    if init.kind == "ident" and init.value == "none":
        pass
    elif init.kind == "app" and init.args[0].kind == "ident" and init.args[0].value == "some" and len(init.args) == 2 \
            and init.args[1].kind == "ident" and init.args[1].value in scope \
            and scope[init.args[1].value].kind == "controls":
        pass
    else:
        raise LeanSyntaxError(f"initialisation `{init.text}`", "", line=init.line, col=init.col, path=path,
                              supported="`some c0` (c0 : Fin N → Space d) or `none` (warm start)")
    seen = {}
    for role in ("S", "K", "T", "eta_l", "eta_g"):
        node = out[role]
        if node.kind == "ident":
            if node.value in seen:
                raise LeanSyntaxError(f"`{node.value}` as both the run's {seen[node.value]} and {role}", "",
                                      line=node.line, col=node.col, path=path, supported="distinct names")
            seen[node.value] = role
    return out


def _problem_args(prob_param, scope, el, path):
    for node, role in zip(prob_param.type_node.args[1:], ("d", "N")):
        if node.kind == "num":
            el.arith(node, "nat")
            continue
        if node.kind != "ident" or node.value not in scope or scope[node.value].kind != "nat":
            raise LeanSyntaxError(f"`{node.text}` as the problem's {role}", "", line=node.line, col=node.col,
                                  path=path, supported="a bound ℕ name or a numeral")


def _hypotheses(node, name, scope, el, path) -> list:
    """HypothesisSpecs of one hypothesis (conjunctions split)."""
    loc = Location(path, node.line, node.col)
    if node.kind == "binop" and node.value == "∧":
        a = _hypotheses(node.args[0], f"{name}.1" if name else None, scope, el, path)
        b = _hypotheses(node.args[1], f"{name}.2" if name else None, scope, el, path)
        return a + b
    if node.kind == "binop" and node.value in COMPARE:
        op = node.value
        lhs, rhs = node.args
        if op in ("≥", ">"):
            op = {"≥": "≤", ">": "<"}[op]
            lhs, rhs = rhs, lhs
        cmp = Node("binop", op, [lhs, rhs], node.line, node.col, node.text)
        # binrel%: both sides share one type
        kinds = []
        for side in (lhs, rhs):
            leaves: list = []
            el._collect(side, leaves)
            kinds.extend(el.leaf_kind(x) for x in leaves)
        ty = "real" if "real" in kinds else "nat"
        el.arith(lhs, ty)
        el.arith(rhs, ty)
        cmp.ty = ty
        return [HypothesisSpec("", node.text, loc, "compare", cmp, op=op, name=name)]
    h = node.head_name()
    if h and node.kind in ("app", "ident") and h not in scope:
        h = canon(node, el.ctx, el.decls, path)
    h = h.removeprefix(model.NAMESPACE + ".") if h else None
    if h in model.PREDICATES and node.kind == "app":
        kinds = model.PREDICATES[h]
        args = node.args[1:]
        if len(args) != len(kinds):
            raise LeanSyntaxError(f"`{h}` applied to {len(args)} arguments", "", line=node.line, col=node.col,
                                  path=path, supported=f"{h} P {'μ' if h == 'Convexity' else 'xstar'}")
        el.object_arg(args[0], "problem", h)
        if h == "Convexity":
            el.arith(args[1], "real")
            return [HypothesisSpec("", node.text, loc, "convexity", node, [args[0], args[1]], name=name)]
        el.object_arg(args[1], "vector", h)
        if args[1].kind != "ident" or args[1].value not in scope:
            raise LeanSyntaxError(f"`IsMinimizer` of `{args[1].text}`", "", line=args[1].line, col=args[1].col,
                                  path=path, supported="IsMinimizer P xstar with xstar a bound point")
        return [HypothesisSpec("", node.text, loc, "minimizer", node, [args[0], args[1]], name=name)]
    if node.kind == "forall" and len(node.value) == 1:
        b = node.value[0]
        body = node.args[0]
        if b.type is None or canon(b.type, el.ctx, el.decls, path) == "Space":
            if body.kind == "binop" and body.value in ("≤", "≥"):
                lo, hi = body.args if body.value == "≤" else body.args[::-1]
                if hi.kind == "app" and canon(hi, el.ctx, el.decls, path) == "objective" and len(hi.args) == 3 \
                        and hi.args[2].kind == "ident" and hi.args[2].value == b.name:
                    el.object_arg(hi.args[1], "clients", "objective")
                    if b.name in {n.value for n in lo.walk() if n.kind == "ident"}:
                        raise LeanSyntaxError("lower bound depending on the point", "", line=lo.line, col=lo.col,
                                              path=path, supported="∀ x, fLower ≤ objective P.f x")
                    el.arith(lo, "real")
                    return [HypothesisSpec("", node.text, loc, "lower_bound", node, [lo], name=name)]
        raise LeanSyntaxError(f"hypothesis `∀ {b.name}, …`", node.text[:60], line=node.line, col=node.col, path=path,
                              supported=model.SUPPORTED_HYPOTHESES)
    what = {"binop": f"hypothesis with `{node.value}`", "not": "negated hypothesis `¬ …`",
            "exists": "existential hypothesis `∃ …`", "forall": "hypothesis `∀ …`"}.get(node.kind, "hypothesis")
    raise LeanSyntaxError(what, f"`{node.text[:60]}`", line=node.line, col=node.col, path=path,
                          supported=model.SUPPORTED_HYPOTHESES)


def _assign_roles(params, run, hyps):
    by_name = {p.name: p for p in params}
    for role in ("S", "K", "T", "eta_l", "eta_g"):
        node = run[role]
        if node.kind == "ident":
            by_name[node.value].role = role
    by_name[run["nu"].value].role = "nu"
    prob = next(p for p in params if p.kind == "problem")
    for node, role in zip(prob.type_node.args[1:], ("d", "N")):
        if node.kind == "ident":
            p = by_name[node.value]
            if p.role is None:
                p.role = role
    if run["init"].kind == "app":
        by_name[run["init"].args[1].value].role = "c0"
    for h in hyps:
        if h.kind == "convexity" and h.args[1].kind == "ident" and h.args[1].value in by_name:
            p = by_name[h.args[1].value]
            if p.role is None and p.kind == "real":
                p.role = "mu"
        elif h.kind == "minimizer":
            p = by_name[h.args[1].value]
            if p.role is None:
                p.role = "xstar"
        elif h.kind == "lower_bound" and h.args[0].kind == "ident" and h.args[0].value in by_name:
            p = by_name[h.args[0].value]
            if p.role is None and p.kind == "real":
                p.role = "f_low"
    for p in params:
        if p.role is None and p.kind in ("nat", "real", "vector", "controls"):
            p.role = "free"
        elif p.role is None and p.kind == "space":
            p.role = "Omega"


def _is_h(node, run) -> bool:
    """``node`` is ``effectiveStep K ηl ηg`` of the run's own names."""
    if node.kind != "app" or node.head_name() not in ("effectiveStep", model.NAMESPACE + ".effectiveStep"):
        return False
    want = [run["K"].text, run["eta_l"].text, run["eta_g"].text]
    return [a.text for a in node.args[1:]] == want


def _mentions(node, name) -> bool:
    return any(n.kind == "ident" and n.value == name for n in node.walk())


def _assign_keys(hyps, params, run):
    mu = next((p.name for p in params if p.role == "mu"), None)
    eta_l, eta_g = run["eta_l"].text, run["eta_g"].text
    used: dict = {}
    for i, h in enumerate(hyps, 1):
        key = None
        if h.kind == "convexity":
            key = "convexity"
        elif h.kind == "minimizer":
            key = "minimizer"
        elif h.kind == "lower_bound":
            key = "f_low"
        elif h.kind == "compare":
            lhs, rhs = h.node.args
            if h.op in ("≤", "<") and _is_h(lhs, run):
                key, h.step = "step_size", True
            elif h.op in ("≤", "<") and lhs.kind == "binop" and lhs.value == "*" and mu is not None \
                    and lhs.args[0].kind == "ident" and lhs.args[0].value == mu and _is_h(lhs.args[1], run):
                key, h.step = "mu_h", True
            elif h.op == "<" and lhs.kind == "num" and lhs.value == 0 and rhs.kind == "ident" and rhs.value == eta_l:
                key = "eta_l"
            elif h.op == "≤" and lhs.kind == "num" and lhs.value == 1 and rhs.kind == "ident" and rhs.value == eta_g:
                key = "eta_g"
            elif h.op in ("≤", "<") and (_mentions(lhs, eta_l) or any(_is_h(n, run) for n in lhs.walk())) \
                    and not _mentions(rhs, eta_l):
                key, h.step = "step_size", True
        if key is None:
            key = (h.name or f"h{i}").replace(".", "_")
        base, k = key, 2
        while key in used:
            key = f"{base}_{k}"
            k += 1
        used[key] = h
        h.key = key
