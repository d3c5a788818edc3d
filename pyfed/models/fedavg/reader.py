"""The statement builder for theorems about a FedAvg run (``∀ R : Run P μ τ T η, …``, namespace
``FedAvg``; Wang et al., *A Field Guide to Federated Optimization*, arXiv:2107.06917v1,
Section 6.1), binders before or after the colon.

What it reads (:func:`statements_from`):

* binders ``d M : ℕ``, ``P : Problem d M``, ``Ω : Type u`` with its instances, ``μ : Measure Ω``
  (the probability measure), ``τ T : ℕ``, ``η : ℝ``, ``R : Run P μ τ T η`` (``η`` may be a term,
  e.g. ``optimizedStep P τ T``), further ℕ/ℝ parameters, and the indices of the conclusion
  (``t`` of a round, ``k`` of a local step, ``i : Fin M`` of a client; untyped ``∀ i,`` is typed
  from its use);
* hypotheses: comparisons of ℕ/ℝ terms (conjunctions split), ``∀ t, t < T → …``,
  ``∀ k, k ≤ τ → ∀ i, …``;
* the conclusion, one of

  - ``(∫ ω, X ω ∂μ) ≤ RHS`` (also ``<``, ``≥``, ``>``): an unconditional expectation;
  - ``μ[X | R.history (t * τ)] ≤ᵐ[μ] Y``: a conditional statement at the start of round ``t``,
    with ``Y`` measurable for ``R.history (t * τ)`` (constants ``fun _ => c``, the model's
    ``progressTerm``/``deviationTerm``/``progressRHS R t``, conditional expectations given the
    same σ-algebra, statistics at local step 0).

Names resolve as Lean resolves them (namespace ``FedAvg``, ``open FedAvg``, qualified names;
:func:`pyfed.statements.declarations.resolve_name`); the file's own defs are inlined. The result is
a :class:`~pyfed.statements.Statement` with ``shape="fedavg_run"``, ``family="FedAvg run"`` and
the elaborated terms in ``spec`` (:class:`FedAvgSpec`). Anything outside the subset raises
:class:`~pyfed.lean.terms.LeanSyntaxError` at its ``file:line:col``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...lean import terms
from ...lean.terms import LeanSyntaxError, Node
from ...statements.declarations import (
    Context,
    push_lets,
    theorem_header,
    used_variables,
)
from ...statements.statement import HypothesisSpec, Location, Parameter, Statement
from . import vocabulary as fm
from .terms import Entry, FedAvgElaborator, Term, binder_kind, read_def

__all__ = ["statements_from", "FedAvgRunStatement", "FedAvgSpec", "FedAvgHypothesis", "read_fedavg_defs"]

_COMPARE = {"≤", "<", "=", "≠", "≥", ">"}
_FLIP = {"≥": "≤", ">": "<"}


@dataclass
class FedAvgHypothesis:
    """An elaborated hypothesis ``lhs op rhs`` (``op`` in ``≤ < = ≠``; ``≥``/``>`` flipped), its
    sort (``nat`` or ``real``) and whether it constrains the conclusion's indices."""

    op: str
    lhs: Term
    rhs: Term
    sort: str
    index: bool = False


@dataclass
class FedAvgSpec:
    """What a statement about a FedAvg run says, elaborated (see the module docstring).

    kind : ``"conditional"`` (``μ[X | R.history (t * τ)] ≤ᵐ[μ] Y``) or ``"expectation"``
        (``∫ … ∂μ ≤ RHS``);
    lhs, rhs : :class:`~pyfed.models.fedavg.terms.Term` (random variables for the
        conditional kind, numbers for the expectation kind);
    relation : ``"≤ᵐ"``, ``"≤"`` or ``"<"``;
    round : the round ``t`` of the conditioning σ-algebra (conditional kind) or None;
    problem, run, measure : the bound names of ``P``, ``R``, ``μ``;
    dims : ``{"d": Term, "M": Term}`` (the problem's type arguments);
    run_args : ``{"tau": Term, "T": Term, "eta": Term}`` (the run's type arguments);
    hypotheses : list of :class:`FedAvgHypothesis`, aligned with ``Statement.hypotheses``;
    indices : ``[(name, kind, role)]`` of the indices the engines enumerate (``kind`` ``nat`` or
        ``client``; ``role`` ``round``, ``step``, ``client`` or ``index``);
    free : ``[(name, kind)]`` of the other ℕ/ℝ parameters (the search draws them; built-in
        instances cannot bind them);
    definitions : names of the file's defs the statement uses;
    statistics : the model's random variables it uses.
    """

    kind: str
    lhs: Term
    rhs: Term
    relation: str
    round: Term | None
    problem: str
    run: str
    measure: str
    dims: dict
    run_args: dict
    hypotheses: list = field(default_factory=list)
    indices: list = field(default_factory=list)
    free: list = field(default_factory=list)
    definitions: list = field(default_factory=list)
    statistics: list = field(default_factory=list)

    def names(self, role) -> list:
        return [n for n, _, r in self.indices if r == role]


@dataclass
class FedAvgRunStatement(Statement):
    """A theorem about a FedAvg ``Run`` (see the module docstring). Beyond :class:`Statement`:
    ``spec``, the elaborated terms (:class:`FedAvgSpec`)."""

    family: str = "FedAvg run"
    spec: FedAvgSpec | None = field(default=None, repr=False)


def read_fedavg_defs(decls, clean, path) -> dict:
    """``{key: FedAvgDef | LeanSyntaxError}`` of the file's defs, read for the FedAvg reader
    (an unreadable def is reported where it is used)."""
    out: dict = {}
    for name, full, cmd, variables, ctx in getattr(decls, "raw_defs", []):
        key = decls.def_keys.get(full, name)
        try:
            out[key] = read_def(key, name, cmd, variables, decls, clean, path, ctx)
        except LeanSyntaxError as e:
            out[key] = e
    return out


def _peel(node, binders, items):
    """Split a statement's type into an ordered list of ``("binder", Binder)`` and
    ``("hyp", node, name)`` items and the conclusion."""
    while True:
        if node.kind == "forall":
            for b in node.value:
                items.append(("binder", b))
            node = node.args[0]
        elif node.kind == "binop" and node.value == "→":
            ante = node.args[0]
            if ante.kind == "cast" and ante.args[0].kind == "ident":
                items.append(("binder", terms.Binder(ante.args[0].value, ante.args[1], "explicit", ante.line,
                                                     ante.col)))
            else:
                items.append(("hyp", ante, None))
            node = node.args[1]
        else:
            return items, node


def _client_uses(node, el, run_names) -> set:
    """Names standing at a client position (``clientDriftSq R t k i``, ``R.x t k i ω``, a
    ``Fin M`` argument of one of the file's defs)."""
    out = set()
    for n in node.walk():
        if n.kind != "app" or not n.args or n.args[0].kind != "ident":
            continue
        head = n.args[0].value
        pos = []
        if any(head == f"{r}.x" for r in run_names):
            pos = [3]
        elif head not in el.scope:
            try:
                hit = el.resolve(n.args[0])
            except LeanSyntaxError:
                hit = None
            if hit == ("model", "clientDriftSq"):
                pos = [4]
            elif hit is not None and hit[0] == "def":
                d = el.defs.get(hit[1])
                explicit = [k for b, k in getattr(d, "binders", []) if b.style == "explicit"]
                pos = [j + 1 for j, k in enumerate(explicit) if k == "client"]
        for p_ in pos:
            if len(n.args) > p_ and n.args[p_].kind == "ident":
                out.add(n.args[p_].value)
    return out


def statements_from(name, namespace, cmd, variables, decls, clean, path) -> list:
    """The statement of a theorem about a FedAvg run (a list of one; see the module docstring)."""
    binders, ty, header_text = theorem_header(name, cmd, clean, path)
    ctx = decls.contexts.get(name, Context(namespace))
    defs = getattr(decls, "_fedavg_defs", None)
    if defs is None:
        defs = read_fedavg_defs(decls, clean, path)
        decls._fedavg_defs = defs
    return [_build(name, namespace, cmd, variables, decls, path, binders, ty, header_text, ctx, defs)]


def _err(node, construct, detail="", supported="", path="<text>"):
    raise LeanSyntaxError(construct, detail, line=node.line, col=node.col, path=path, supported=supported)


def _build(name, namespace, cmd, variables, decls, path, binders, ty, header_text, ctx, defs) -> FedAvgRunStatement:
    loc = Location(path, cmd.line, cmd.col)
    items, conclusion = _peel(ty, binders, [("binder", b) for b in binders])
    own = {it[1].name for it in items if it[0] == "binder"}
    used = [b for b in used_variables(variables, binders, ty.text, exclude=own) if b.name not in own]
    items = [("binder", b) for b in used] + items
    el = FedAvgElaborator(path, decls, ctx, {}, defs)
    conclusion = push_lets(conclusion)

    # ---- binders, in order: kinds, the model's objects, hypotheses
    params: list = []
    hyps_raw: list = []          # (node, name, position among the items)
    problem = run = measure = None
    spaces: set = set()
    untyped: list = []
    run_pos = None
    for pos, it in enumerate(items):
        if it[0] == "hyp":
            hyps_raw.append((it[1], it[2], pos))
            continue
        b = it[1]
        kind = binder_kind(b, el.head)
        where = Location(path, b.line, b.col)
        tnode = b.type
        if kind == "omega_type" or kind == "unsupported":
            what = "instance argument" if b.style == "instance" else "binder type"
            _err(tnode or b, f"{what} `{tnode.text if tnode is not None else b.name}`", f"binder `{b.name}`",
                 fm.SUPPORTED_BINDERS, path)
        if kind == "prop":
            hyps_raw.append((tnode, b.name, pos))
            params.append(Parameter(b.name, "prop", None, tnode.text, where, tnode))
            continue
        if b.name in el.scope and b.name != "_":
            _err(b, f"name `{b.name}` bound twice", "", "distinct names", path)
        if kind == "space":
            spaces.add(b.name)
        elif kind == "problem":
            if problem is not None:
                _err(b, "a second problem", f"`{b.name}`", "exactly one `P : Problem d M`", path)
            problem = b
        elif kind == "measure":
            arg = tnode.args[1]
            if arg.kind != "ident" or arg.value not in spaces:
                _err(arg, f"measure on `{arg.text}`", "", "μ : Measure Ω with Ω : Type u bound before it", path)
            measure = b
        elif kind == "run":
            if run is not None:
                _err(b, "a second run", f"`{b.name}`", "one run per statement", path)
            run, run_pos = b, pos
            _bind_run(el, b, problem, measure, path)
        elif kind == "untyped":
            untyped.append(b)
        role = {"space": "Omega", "measure": "measure", "problem": "P", "run": "R", "instance": None}.get(kind)
        params.append(Parameter(b.name, kind if kind != "untyped" else "nat", role,
                                tnode.text if tnode is not None else "", where, tnode))
        if b.name != "_":
            el.scope[b.name] = Entry(kind)
        if kind == "problem":
            _bind_problem(el, b, path)
    if run is None:
        raise LeanSyntaxError(f"theorem `{name}` without a run", "", line=cmd.line, col=cmd.col, path=path,
                              supported="∀ R : Run P μ τ T η, …")
    # untyped binders (`∀ i, …`): clients when they index a client, else ℕ
    clients = _client_uses(conclusion, el, {run.name}) | set().union(
        *[_client_uses(h, el, {run.name}) for h, _, _ in hyps_raw])
    for b in untyped:
        kind = "client" if b.name in clients else "nat"
        el.scope[b.name] = Entry(kind)
        for prm in params:
            if prm.name == b.name and prm.kind == "nat":
                prm.kind = kind
                prm.type_text = "Fin M" if kind == "client" else "ℕ"

    # ---- the conclusion
    spec_kind, lhs, rhs, relation, rnd = _conclusion(conclusion, el, path)

    # ---- roles: the run's and problem's arguments, indices, free parameters
    by_name = {prm.name: prm for prm in params}
    role_of_arg = {}
    for key, role in (("__tau__", "tau"), ("__T__", "T"), ("__eta__", "eta"), ("__d__", "d"), ("__M__", "M")):
        t = el.scope[key].term
        if t.op == "var":
            role_of_arg[t.value] = role
        elif t.op == "cast" and t.args[0].op == "var":
            role_of_arg[t.args[0].value] = role
    idx_roles = _index_roles([lhs, rhs] + ([rnd] if rnd is not None else []))
    indices, free = [], []
    for pos, it in enumerate(items):
        if it[0] != "binder":
            continue
        prm = by_name.get(it[1].name)
        if prm is None or prm.kind not in ("nat", "real", "client"):
            continue
        if prm.name in role_of_arg:
            prm.role = role_of_arg[prm.name]
            continue
        role = idx_roles.get(prm.name)
        after_run = run_pos is not None and pos > run_pos
        if prm.kind == "client" or role is not None or (after_run and prm.kind == "nat"):
            prm.role = role or ("client" if prm.kind == "client" else "index")
            indices.append((prm.name, prm.kind, prm.role))
        else:
            prm.role = "free"
            free.append((prm.name, prm.kind))
    index_names = {n for n, _, _ in indices}

    # ---- hypotheses
    specs, elab = [], []
    for hnode, hname, _pos in hyps_raw:
        for hs, fh in _hypotheses(hnode, hname, el, path):
            fh.index = fh.lhs.mentions(index_names) or fh.rhs.mentions(index_names)
            specs.append(hs)
            elab.append(fh)
    _assign_keys(specs, elab, el)

    stats = []
    for t in [lhs, rhs]:
        for s in t.walk():
            if s.op == "stat" and s.value not in stats:
                stats.append(s.value)
    spec = FedAvgSpec(kind=spec_kind, lhs=lhs, rhs=rhs, relation=relation, round=rnd, problem=problem.name,
                      run=run.name, measure=measure.name, dims={"d": el.scope["__d__"].term,
                                                                "M": el.scope["__M__"].term},
                      run_args={"tau": el.scope["__tau__"].term, "T": el.scope["__T__"].term,
                                "eta": el.scope["__eta__"].term},
                      hypotheses=elab, indices=indices, free=free, definitions=list(el.used_defs), statistics=stats)
    rargs = run.type.args[1:]
    return FedAvgRunStatement(name=name, namespace=namespace, location=loc, parameters=params, hypotheses=specs,
                              run=dict(zip(("P", "mu", "tau", "T", "eta"), rargs)), init="", controls=None,
                              lhs=conclusion.args[0], rhs=conclusion.args[1], relation=relation, statistics=stats,
                              definitions={}, text=f"theorem {name} {header_text}", spec=spec)


def _bind_problem(el, b, path):
    d, M = b.type.args[1:]
    el.scope["__d__"] = Entry("nat", _nat_arg(el, d, "d", path))
    el.scope["__M__"] = Entry("nat", _nat_arg(el, M, "M", path))


def _nat_arg(el, node, role, path) -> Term:
    if node.kind == "num" or (node.kind == "ident" and el.scope.get(node.value) is not None
                              and el.scope[node.value].kind == "nat"):
        return el.term(node, "nat")
    _err(node, f"`{node.text}` as the {role} of the {'problem' if role in ('d', 'M') else 'run'}", "",
         "a bound ℕ name or a numeral", path)


def _bind_run(el, b, problem, measure, path):
    P, mu, tau, T, eta = b.type.args[1:]
    if problem is None or P.kind != "ident" or P.value != problem.name:
        _err(P, f"run of `{P.text}`", "the run's problem must be the statement's `P : Problem d M`",
             "Run P μ τ T η", path)
    if measure is None or mu.kind != "ident" or mu.value != measure.name:
        _err(mu, f"`{mu.text}` as the run's measure", "", "the statement's μ : Measure Ω", path)
    el.scope["__tau__"] = Entry("nat", _nat_arg(el, tau, "τ", path))
    el.scope["__T__"] = Entry("nat", _nat_arg(el, T, "T", path))
    t = el.term(eta, "real")
    if t.sort != "real":
        _err(eta, f"`{eta.text}` as the run's step", "", "a real term of the parameters", path)
    el.scope["__eta__"] = Entry("real", t)


def _index_roles(ts) -> dict:
    out: dict = {}
    for t in ts:
        for s in t.walk():
            if s.op in ("stat", "shadow", "iterate") and s.args:
                for a, role in zip(s.args, ("round", "step", "client")):
                    if a.op == "var":
                        out.setdefault(a.value, role)
            elif s.op == "condexp" and s.args[1].op == "var":
                out.setdefault(s.args[1].value, "round")
    return out


def _side(t: Term) -> Term:
    return t


def _conclusion(node, el, path):
    """``(kind, lhs, rhs, relation, round)`` of the conclusion (module docstring)."""
    if node.kind == "binop" and node.value in ("≤", "<", "≥", ">") and len(node.args) == 2:
        a, b = node.args
        if node.value in _FLIP:
            a, b = b, a
        for n in (a, b):
            if el.term(n, None).sort == "rand":
                _err(n, f"the random variable `{n.text}` compared pointwise", "the engines decide expectations and "
                     "conditional expectations", fm.SUPPORTED_CONCLUSIONS, path)
        lhs, rhs = el.term(a, "real"), el.term(b, "real")
        if not any(t.op == "integral" for s in (lhs, rhs) for t in s.walk()):
            _err(node, f"conclusion `{node.text[:60]}`", "it does not involve the run (no ∫ … ∂μ)",
                 fm.SUPPORTED_CONCLUSIONS, path)
        return "expectation", lhs, rhs, _FLIP.get(node.value, node.value), None
    if node.kind == "binop" and node.value == "≤ᵐ" and len(node.args) == 3:
        a, b, meas = node.args
        if meas.kind != "ident" or not el._obj(meas.value, "measure"):
            _err(meas, f"`≤ᵐ[{meas.text}]`", "", "≤ᵐ[μ] with μ the run's measure", path)
        lhs, rhs = el.term(a, "rand"), el.term(b, "rand")
        rnd = _conditional_round(lhs, rhs, node, path)
        for side, n in ((lhs, a), (rhs, b)):
            bad = _unmeasurable(side, rnd)
            if bad is not None:
                _err(bad.node or n, f"`{(bad.node or n).text}` on a side of `≤ᵐ`", "it is not measurable for "
                     "R.history (t * τ): wrap it in μ[… | R.history (t * τ)]", fm.SUPPORTED_CONCLUSIONS, path)
        return "conditional", lhs, rhs, "≤ᵐ", rnd
    if node.kind == "binop" and node.value == "=ᵐ":
        _err(node, "`=ᵐ` conclusion", "", fm.SUPPORTED_CONCLUSIONS, path)
    what = {"binop": f"conclusion with `{node.value}`", "forall": "conclusion `∀ …` after the hypotheses",
            "exists": "existential conclusion `∃ …`"}.get(node.kind, "conclusion")
    _err(node, what, f"`{node.text[:60]}`", fm.SUPPORTED_CONCLUSIONS, path)


def _conditional_round(lhs, rhs, node, path) -> Term:
    """The round ``t`` of the σ-algebra every conditional expectation of the conclusion uses;
    every random variable inside them must be of that round."""
    rounds = [t for s in (lhs, rhs) for t in s.walk() if t.op == "condexp"]
    rounds += [t for s in (lhs, rhs) for t in s.walk() if t.op == "stat" and t.value in fm.CONDITIONAL]
    if not rounds:
        _err(node, "conditional statement without a conditional expectation", "",
             "μ[X | R.history (t * τ)] ≤ᵐ[μ] Y", path)
    first = rounds[0]
    r0 = first.args[1] if first.op == "condexp" else first.args[0]
    for t in rounds:
        r = t.args[1] if t.op == "condexp" else t.args[0]
        if r.key() != r0.key():
            _err(t.node or node, f"conditioning on the start of round `{r.text}`", f"another part conditions on "
                 f"round `{r0.text}`", "one round start R.history (t * τ) per statement", path)
    for s in (lhs, rhs):
        for t in s.walk():
            if t.op == "stat":
                if t.value == "avgLoss":
                    _err(t.node or node, "`avgLoss` in a conditional statement", "it averages every round, "
                         "including those before t", "statistics of round t", path)
                if t.args[0].key() != r0.key():
                    _err(t.node or node, f"statistic of round `{t.args[0].text}` given the start of round "
                         f"`{r0.text}`", "", "statistics of the conditioning round", path)
    return r0


def _unmeasurable(t: Term, rnd) -> Term | None:
    """A subterm of ``t`` outside conditional expectations that is not measurable for the
    σ-algebra at the start of round ``rnd`` (None: ``t`` is measurable)."""
    if t.sort != "rand":
        return None
    if t.op == "condexp":
        return None
    if t.op == "stat":
        if t.value in fm.CONDITIONAL:
            return None
        if t.value in ("shadowDistanceSq", "clientDriftSq", "objectiveShadow") and t.args[1].op == "num" \
                and t.args[1].value == 0:
            return None
        return t
    for a in t.args:
        if isinstance(a, Term):
            bad = _unmeasurable(a, rnd)
            if bad is not None:
                return bad
    return None


def _hypotheses(node, name, el, path) -> list:
    """``[(HypothesisSpec, FedAvgHypothesis)]`` of one hypothesis (conjunctions split)."""
    loc = Location(path, node.line, node.col)
    if node.kind == "binop" and node.value == "∧":
        return (_hypotheses(node.args[0], f"{name}.1" if name else None, el, path)
                + _hypotheses(node.args[1], f"{name}.2" if name else None, el, path))
    if node.kind == "binop" and node.value in _COMPARE:
        op = node.value
        a, b = node.args
        if op in _FLIP:
            op, a, b = _FLIP[op], b, a
        la, lb = el.term(a, None), el.term(b, None)
        sort = "real" if "real" in (la.sort, lb.sort) else "nat"
        for t, n in ((la, a), (lb, b)):
            if t.sort not in ("nat", "real", "poly"):
                _err(n, f"`{n.text}` ({t.sort}) in a hypothesis", "", fm.SUPPORTED_HYPOTHESES, path)
        la, lb = el.term(a, sort), el.term(b, sort)
        cmp = Node("binop", op, [a, b], node.line, node.col, node.text)
        return [(HypothesisSpec("", node.text, loc, "compare", cmp, op=op, name=name),
                 FedAvgHypothesis(op, la, lb, sort))]
    what = {"binop": f"hypothesis with `{node.value}`", "not": "negated hypothesis `¬ …`",
            "exists": "existential hypothesis `∃ …`", "forall": "hypothesis `∀ …`"}.get(node.kind, "hypothesis")
    _err(node, what, f"`{node.text[:60]}`", fm.SUPPORTED_HYPOTHESES, path)


def _assign_keys(specs, elab, el):
    """Stable keys: the names of :func:`pyfed.theory.fedavg.fedavg_hypotheses` where a hypothesis
    is one of them (``local_steps`` for ``0 < τ``, ``rounds``, ``eta``, ``step_size`` for an upper
    bound on ``η``, ``distance``, ``sigma``, ``zeta``; ``round``, ``local_step`` for the indices),
    else the Lean name or ``h<i>``."""
    eta = el.scope["__eta__"].term.key()
    names = {el.scope["__tau__"].term.key(): "local_steps", el.scope["__T__"].term.key(): "rounds", eta: "eta",
             "sqrt(dist_sq())": "distance", "σ": "sigma", "ζ": "zeta", "L": "smoothness"}
    used: dict = {}
    for i, (h, fh) in enumerate(zip(specs, elab), 1):
        key = None
        lk, rk = _strip(fh.lhs).key(), _strip(fh.rhs).key()
        if h.op in ("<", "≤") and fh.lhs.op == "num" and fh.lhs.value == 0 and rk in names:
            key = names[rk]
        elif h.op in ("<", "≤") and lk == eta and eta not in rk:
            key = "step_size"
        elif fh.index and h.op in ("<", "≤"):
            role = "round" if rk == el.scope["__T__"].term.key() else (
                "local_step" if rk == el.scope["__tau__"].term.key() else None)
            key = role
        if key is None:
            key = (h.name or f"h{i}").replace(".", "_")
        base, k = key, 2
        while key in used:
            key = f"{base}_{k}"
            k += 1
        used[key] = h
        h.key = key
        h.step = key == "step_size"


def _strip(t: Term) -> Term:
    while t.op == "cast":
        t = t.args[0]
    return t
