"""Elaboration of the run's random variables in a statement about a FedAvg run (the methods of
:class:`RunTerms`, mixed into :class:`pyfed.models.fedavg.terms.FedAvgElaborator`): the model's
definitions and statistics (``roundLoss R t``, ``clientDriftSq R t k i``, ``shadow R t k ω``, …),
points and their squared distances, ``objective P.f x``, sums, ``μ[f | R.history (t * τ)]``,
``∫ ω, f ω ∂μ``, ``fun ω => …``, and the file's own defs (inlined)."""

from __future__ import annotations

from ...lean.terms import LeanSyntaxError
from . import vocabulary as fm
from .ir import Entry, Term, number_term

__all__ = ["RunTerms"]


class RunTerms:
    """The run's random variables and the file's defs (see the module docstring); a mixin of the
    elaborator, which provides ``term``, ``nat``, ``real``, ``field``, ``resolve``, ``head``,
    ``err``, ``child``, ``client_arg``, ``omega_arg``, ``problem_arg``, ``run_arg``."""

    def model_app(self, node, name, args) -> Term:
        if name in fm.FUNCTIONS:
            f = fm.FUNCTIONS[name]
            if len(args) != len(f.params):
                self.err(node, f"`{name}` applied to {len(args)} arguments", f"expects {len(f.params)}: "
                         f"{f.signature}", f.signature)
            if name == "objective":
                return self.objective(node, args)
            self.problem_arg(args[0], name)
            out = []
            for a, kind in zip(args[1:], f.params[1:]):
                out.append(self.nat(a) if kind == "nat" else self.real(a))
            if name == "distance":
                return Term("sqrt", (Term("dist_sq", (), None, "real", node),), None, "real", node)
            return Term("fn", tuple(out), name, "real", node)
        if name in fm.RANDOM:
            f = fm.RANDOM[name]
            n = len(f.params)
            if len(args) not in (n - 1, n):
                self.err(node, f"`{name}` applied to {len(args)} arguments", f"expects {n - 1} (a random variable) "
                         f"or {n} (its value at ω): {f.signature}", f.signature)
            if len(args) == n:
                self.omega_arg(args, node, len(args))
                args = args[:-1]
            self.run_arg(args[0], name)
            idx = []
            for a, kind in zip(args[1:], f.params[1:]):
                idx.append(self.client_arg(a) if kind == "client" else self.nat(a))
            if name == "shadow":
                if len(node.args) - 1 != n:
                    self.err(node, "the random point `shadow R t k` without ω", "",
                             "‖shadow R t k ω - P.xstar‖ ^ 2 and objective P.f (shadow R t k ω)")
                return Term("shadow", tuple(idx), None, "rpoint", node)
            return Term("stat", tuple(idx), name, "rand", node)
        if name in fm.TYPES:
            self.err(node, f"the type `{name}` inside a term")
        self.err(node, f"`{name}`")

    def objective(self, node, args) -> Term:
        f, x = args
        fld = self.field(f) if f.kind == "ident" else None
        if fld is None or fld.op != "clients":
            self.err(f, f"`{f.text}` as the clients of `objective`", "", "objective P.f x")
        p = self.point(x)
        if p.op == "point" and p.value == "xstar":
            return Term("fstar", (), None, "real", node)
        if p.op == "point" and p.value == "x0":
            return Term("f_x0", (), None, "real", node)
        if p.op == "shadow":
            return Term("stat", p.args, "objectiveShadow", "rand", node)
        self.err(x, f"`objective` at `{x.text}`", "", "objective P.f at P.xstar, P.x0 or shadow R t k ω")

    def point(self, node) -> Term:
        if node.kind == "ident":
            fld = self.field(node)
            if fld is not None and fld.sort == "point":
                return fld
        if node.kind == "app":
            head = node.args[0]
            if head.kind == "ident":
                fld = self.field(head)
                if fld is not None and fld.op == "runfield" and fld.value == "x":
                    return self.iterate(node, node.args[1:])
                hit = None if head.value in self.scope else self.resolve(head)
                if hit is not None and hit == ("model", "shadow"):
                    return self.model_app(node, "shadow", node.args[1:])
        self.err(node, f"`{node.text}` as a point of the model space", "",
                 "P.x0, P.xstar, shadow R t k ω, R.x t k i ω")

    def iterate(self, node, args) -> Term:
        if len(args) != 4:
            self.err(node, f"`{node.text}`", "the local iterate is R.x t k i ω", "R.x t k i ω")
        self.omega_arg(args, node, 4)
        return Term("iterate", (self.nat(args[0]), self.nat(args[1]), self.client_arg(args[2])), None, "rpoint",
                    node)

    def norm(self, node, squared, whole=None) -> Term:
        inner = node.args[0]
        where = whole if whole is not None else node
        if not (inner.kind == "binop" and inner.value == "-"):
            self.err(node, f"‖{inner.text}‖", "norms of a difference of two points",
                     "‖P.x0 - P.xstar‖, ‖shadow R t k ω - P.xstar‖ ^ 2, ‖R.x t k i ω - shadow R t k ω‖ ^ 2")
        u, v = self.point(inner.args[0]), self.point(inner.args[1])
        ops = {u.op, v.op}
        if u.sort == "point" and v.sort == "point":
            if {u.value, v.value} == {"x0", "xstar"}:
                d2 = Term("dist_sq", (), None, "real", where)
                return d2 if squared else Term("sqrt", (d2,), None, "real", where)
            if u.value == v.value:
                return number_term(0, "real", where)
        if not squared:
            self.err(node, f"the norm of a random point `{node.text}`", "its square is a statistic of the run",
                     "‖shadow R t k ω - P.xstar‖ ^ 2, ‖R.x t k i ω - shadow R t k ω‖ ^ 2")
        if ops == {"shadow", "point"}:
            s, p = (u, v) if u.op == "shadow" else (v, u)
            if p.value == "xstar":
                return Term("stat", s.args, "shadowDistanceSq", "rand", where)
        if ops == {"iterate", "shadow"}:
            it, s = (u, v) if u.op == "iterate" else (v, u)
            if it.args[0].key() == s.args[0].key() and it.args[1].key() == s.args[1].key():
                return Term("stat", it.args, "clientDriftSq", "rand", where)
        self.err(where, f"`{where.text}`", "not a statistic of the model",
                 "‖shadow R t k ω - P.xstar‖ ^ 2, ‖R.x t k i ω - shadow R t k ω‖ ^ 2, ‖P.x0 - P.xstar‖")

    def big_sum(self, node) -> Term:
        rng, body = node.args
        var = node.value
        if rng is None:
            kind, bound = "client", None
        else:
            if rng.kind != "app" or rng.head_name() not in ("Finset.range", "range") or len(rng.args) != 2:
                self.err(rng, f"∑ over `{rng.text}`", "", "∑ k ∈ Finset.range n, body  or  ∑ i, body (clients)")
            kind, bound = "nat", self.nat(rng.args[1])
        sub = self.child()
        sub.scope[var] = Entry(kind, Term("var", (), var, kind, node))
        b = sub.term(body, None)
        if b.sort == "poly":
            b = sub.coerce(b, "nat", body)
        if b.sort not in ("nat", "real", "rand"):
            self.err(body, f"∑ of `{body.text}`", "", "sums of numbers and random variables")
        return Term("sum", (bound, b), var, b.sort, node)

    def sigma_round(self, m) -> Term:
        """The round ``t`` of the σ-algebra ``R.history (t * τ)`` (else a located error)."""
        ok = m.kind == "app" and len(m.args) == 2 and m.args[0].kind == "ident"
        if ok:
            fld = self.field(m.args[0])
            ok = fld is not None and fld.op == "runfield" and fld.value == "history"
        if not ok:
            self.err(m, f"σ-algebra `{m.text}`", "", "R.history (t * τ): the history at the start of round t")
        e = m.args[1]
        tau = self.scope.get("__tau__")
        if e.kind == "binop" and e.value == "*":
            a, b = e.args
            for r, s in ((a, b), (b, a)):
                st = self.nat(s)
                if tau is not None and st.key() == tau.term.key():
                    return self.nat(r)
        self.err(e, f"conditioning on `{m.text}`", "the engines condition on the start of a round",
                 "R.history (t * τ) with τ the run's local steps")

    def condexp(self, node, meas, f, m) -> Term:
        if meas.kind != "ident" or not self._obj(meas.value, "measure"):
            self.err(meas, f"`{meas.text}` as the measure of a conditional expectation", "",
                     "the run's measure μ")
        r = self.sigma_round(m)
        x = self.term(f, "rand")
        return Term("condexp", (x, r), None, "rand", node)

    def integral(self, node) -> Term:
        body, meas = node.args
        if meas.kind != "ident" or not self._obj(meas.value, "measure"):
            self.err(meas, f"`∂{meas.text}`", "", "∫ ω, X ω ∂μ with μ the run's measure")
        sub = self.child(sample=node.value)
        sub.scope.pop(node.value, None)
        x = sub.term(body, "rand")
        return Term("integral", (x,), None, "real", node)

    def lam(self, node) -> Term:
        binders, body = node.value, node.args[0]
        if len(binders) != 1:
            self.err(node, "`fun` of several arguments", "", "fun ω => … (a random variable) or fun _ => c")
        b = binders[0]
        sub = self.child(sample=b.name if b.name != "_" else "__unused_omega__")
        sub.scope.pop(b.name, None)
        t = sub.term(body, "rand")
        return t

    # ------------------------------------------------------------------ the user's defs
    def inline(self, node, key, args) -> Term:
        """A def of the file applied to ``args``: its body elaborated with its binders bound to
        the arguments (implicit ones matched through the explicit ones' types)."""
        d = self.defs.get(key)
        if d is None or isinstance(d, LeanSyntaxError):
            if isinstance(d, LeanSyntaxError):
                raise d
            self.err(node, f"def `{key}`", "not readable as a FedAvg definition")
        if self.depth > 40:
            self.err(node, f"def `{key}` nested too deeply")
        explicit = [b for b in d.binders if b[0].style == "explicit"]
        omega_last = bool(explicit) and explicit[-1][1] == "omega"
        if len(args) == len(explicit) - 1 and omega_last:
            use, partial = explicit[:-1], True
        elif len(args) == len(explicit):
            use, partial = explicit, False
        else:
            self.err(node, f"def `{d.name}` applied to {len(args)} arguments", f"it takes {len(explicit)}")
        scope: dict = {}
        sample = None
        for (b, kind), a in zip(use, args):
            if kind in ("nat", "real"):
                scope[b.name] = Entry(kind, self.term(a, kind))
            elif kind == "client":
                scope[b.name] = Entry("client", self.client_arg(a))
            elif kind == "problem":
                self.problem_arg(a, d.name)
                scope[b.name] = Entry("problem")
                self._match_type(b.type, ("Problem",), scope, node, d)
            elif kind == "run":
                self.run_arg(a, d.name)
                scope[b.name] = Entry("run")
                self._match_type(b.type, ("Run",), scope, node, d)
            elif kind == "measure":
                if a.kind != "ident" or not self._obj(a.value, "measure"):
                    self.err(a, f"`{a.text}` as the measure argument of `{d.name}`")
                scope[b.name] = Entry("measure")
            elif kind == "omega":
                if a.kind != "ident" or a.value != self.sample:
                    self.err(a, f"`{a.text}` as the point of the sample space", "", fm.SUPPORTED_RANDOM)
                sample = b.name
            else:
                self.err(a, f"argument `{a.text}` of def `{d.name}` (binder of kind {kind})")
        if partial:
            sample = explicit[-1][0].name
        for b, kind in d.binders:
            if b.name in scope or kind in ("instance", "space", "omega", "omega_type", "prop"):
                continue
            if kind in ("problem", "run", "measure"):
                scope[b.name] = Entry(kind)
                if kind in ("problem", "run"):
                    self._match_type(b.type, (), scope, node, d)
        for k, v in self.scope.items():      # the statement's own objects (d, M, τ, T, η)
            if k.startswith("__") and k not in scope:
                scope[k] = v
        sub = type(self)(self.path, self.decls, d.ctx, {k: v for k, v in scope.items() if v is not None},
                               self.defs, sample=sample if sample is not None else self.sample, depth=self.depth + 1)
        sub.used_defs = self.used_defs
        if d.name not in self.used_defs:
            self.used_defs.append(d.name)
        want = "rand" if sample is not None else d.result
        t = sub.term(d.body, want if want != "nat" else "nat")
        if d.result == "nat" and t.sort not in ("nat",):
            self.err(node, f"def `{d.name}` of type ℕ with a real body")
        return Term(t.op, t.args, t.value, t.sort, t.node) if t.node is not None else t

    def _match_type(self, ty, heads, scope, node, d):
        """Bind the names in a def binder's type (``Problem d M``, ``Run P μ τ T η``) to the
        statement's objects of the same position."""
        names = [a for a in ty.args[1:]]
        h = self.head(ty)
        if h == "Problem":
            targets = [self.scope.get("__d__"), self.scope.get("__M__")]
        elif h == "Run":
            targets = [Entry("problem"), Entry("measure"), self.scope.get("__tau__"), self.scope.get("__T__"),
                       self.scope.get("__eta__")]
        else:
            return
        for a, tgt in zip(names, targets):
            if a.kind == "ident" and tgt is not None and a.value not in scope:
                scope[a.value] = tgt
