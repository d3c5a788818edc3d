"""The cost of an evaluation, estimated before it runs: :func:`estimate_steps`.

The estimate counts the evaluator's steps (one per term node evaluated, :mod:`.evaluator`) from
the term's size and the sizes it enumerates: a sum ``∑`` multiplies its body by the number of
its indices, a quantifier by the product of its binders' ranges, a ``fun`` on ``Fin n`` by ``n``
(its values are computed once per point), an integral by the number of outcomes, a definition by
structural recursion on ℕ by its index plus one (each step computed once, :class:`~.evaluator.Evaluator`),
a definition's body by the sizes its arguments give it. Natural numbers are bounded from the
instance's values (``env``); one the estimate cannot bound counts as ``nat_default``. It is an
order of magnitude (constant factors, a vector's coordinates and a drawn function's own cost are
not counted), meant to refuse or skip instances that cannot finish, not to predict times
(:mod:`pyfed.resources` turns steps into seconds).
"""

from __future__ import annotations

from .evaluator import Definitions
from .values import FiniteSpace, Fun

__all__ = ["estimate_steps", "STEP_CAP"]

#: Estimates are capped here (a number of steps no evaluation reaches).
STEP_CAP = 10 ** 18


def estimate_steps(node, env: dict, definitions: Definitions | None = None, *, nat_default: int = 100) -> int:
    """Estimated evaluation steps of ``node`` with the bound names ``env`` (module docstring);
    ``definitions``: what the term's definitions are (their bodies are estimated too)."""
    est = _Estimate(definitions or Definitions(), nat_default)
    return min(est.cost(node, _bounds(env)), STEP_CAP)


def _bounds(env: dict) -> dict:
    """Upper bounds of the instance's values: ints as they are, the sizes of sets, spaces and
    functions on ``Fin n``."""
    out = {}
    for k, v in env.items():
        if isinstance(v, bool):
            continue
        if isinstance(v, int):
            out[k] = v
        elif isinstance(v, (frozenset, set, list, tuple)) and not hasattr(v, "dot"):
            out[k] = ("size", len(v))
        elif isinstance(v, FiniteSpace):
            out[k] = ("size", v.n)
        elif isinstance(v, Fun) and v.n is not None:
            out[k] = ("size", v.n)
    return out


def _mul(*xs) -> int:
    out = 1
    for x in xs:
        out = min(out * max(int(x), 1), STEP_CAP)
    return out


class _Estimate:
    def __init__(self, definitions, nat_default: int):
        self.defs = definitions
        self.nat_default = nat_default
        self.active: set = set()
        self.memo: dict = {}

    # ---- natural numbers
    def nat(self, node, ub: dict) -> int:
        """An upper bound of the ℕ term ``node`` (``nat_default`` when unknown)."""
        v = self._nat(node, ub)
        return self.nat_default if v is None else v

    def _nat(self, node, ub):
        if node is None:
            return None
        if isinstance(node, int):
            return node
        k = getattr(node, "kind", None)
        if k == "num":
            return int(node.value) if node.value.denominator == 1 else None
        if k == "ident":
            v = ub.get(node.value)
            if isinstance(v, int):
                return v
            return v[1] if isinstance(v, tuple) else None
        if k in ("cast", "coe"):
            return self._nat(node.args[0], ub)
        if k == "proj" and node.value == "card":
            return self._size(node.args[0], ub)
        if k == "binop":
            a = self._nat(node.args[0], ub)
            if node.value in ("-", "/"):
                return a
            b = self._nat(node.args[1], ub)
            if a is None or b is None:
                return None
            if node.value == "+":
                return a + b
            if node.value == "*":
                return a * b
            if node.value == "%":
                return b
            if node.value == "^":
                return min(a ** min(b, 64), STEP_CAP)
        return None

    def _size(self, node, ub):
        """The size of a finite set term (a bound set's size, ``Finset.range n``), or None."""
        if getattr(node, "kind", None) == "ident" and isinstance(ub.get(node.value), tuple):
            return ub[node.value][1]
        if getattr(node, "kind", None) == "app" and node.head_name() == "Finset.range" and len(node.args) == 2:
            return self.nat(node.args[1], ub)
        t = self.defs.resolved(getattr(node, "lty", None))
        if getattr(t, "kind", None) == "finset" and getattr(t.args[0], "kind", None) == "fin":
            return self.nat(t.args[0].args[0], ub)        # a subset of Fin n has at most n elements
        return None

    def size(self, node, ub) -> int:
        v = self._size(node, ub)
        return self.nat_default if v is None else v

    # ---- ranges of binders and sums
    def binder_size(self, b, body, ub) -> int:
        t = self.defs.resolved(getattr(b, "lty", None))
        kind = getattr(t, "kind", None)
        if kind == "fin":
            return self.nat(t.args[0], ub)
        if body.kind == "binop" and body.value == "→":
            g = body.args[0]
            if g.kind == "binop" and g.args[0].kind == "ident" and g.args[0].value == b.name:
                if g.value in ("<", "≤"):
                    return self.nat(g.args[1], ub) + (1 if g.value == "≤" else 0)
                if g.value == "∈":
                    return self.size(g.args[1], ub)
        if kind == "finset" and getattr(t.args[0], "kind", None) == "fin":
            return 2 ** min(self.nat(t.args[0].args[0], ub), 60)
        if kind == "point":
            v = ub.get(t.args[0]) if t.args else None
            return v[1] if isinstance(v, tuple) else self.nat_default
        if kind == "enum":
            d = self.defs.get(t.args[0])
            return len(d.constructors) if d is not None else 2
        if kind == "nat":
            v = ub.get("__nat_bound__")
            return v if isinstance(v, int) else 1     # not enumerated: NotFinite
        return 1                                      # an infinite type: not enumerated

    def sum_size(self, node, ub) -> int:
        rng = node.args[0]
        if rng is None:
            it = self.defs.resolved(getattr(node, "index_ty", None))
            return self.nat(it.args[0], ub) if getattr(it, "kind", None) == "fin" else self.nat_default
        return self.size(rng, ub)

    # ---- terms
    def cost(self, node, ub: dict) -> int:
        if node is None or not hasattr(node, "kind"):
            return 0
        k = node.kind
        if k == "num":
            return 1
        if k == "ident":
            ref = getattr(node, "ref", None)
            if ref is not None and ref[0] == "decl":
                return 1 + self.decl(ref[1], node, [], ub)
            return 1
        if k == "sum":
            n = self.sum_size(node, ub)
            inner = dict(ub, **{node.value: max(n - 1, 0)})
            return 1 + self.cost(node.args[0], ub) + _mul(n, self.cost(node.args[1], inner))
        if k in ("forall", "exists"):
            body = node.args[0]
            sizes, inner, guard = [], dict(ub), body
            for b in node.value:
                n = self.binder_size(b, guard, inner)
                sizes.append(n)
                inner[b.name] = max(n - 1, 0)
            return 1 + _mul(*sizes, self.cost(body, inner))
        if k == "fun":
            n = 1
            inner = dict(ub)
            for b, dt in zip(node.value, getattr(node, "domains", []) or [None] * len(node.value)):
                t = self.defs.resolved(dt)
                if getattr(t, "kind", None) == "fin":
                    m = self.nat(t.args[0], ub)
                    n = _mul(n, m)
                    inner[b.name] = max(m - 1, 0)
            return 1 + _mul(n, self.cost(node.args[0], inner))
        if k == "integral":
            space = self._size(node.args[1], ub) or self.nat_default
            return 1 + self.cost(node.args[1], ub) + _mul(space, self.cost(node.args[0], ub))
        if k == "let":
            return 1 + self.cost(node.args[0], ub) + self.cost(node.args[1], ub)
        if k == "ite":
            return 1 + self.cost(node.args[0], ub) + max(self.cost(node.args[1], ub), self.cost(node.args[2], ub))
        if k == "app":
            ref = getattr(node, "ref", None)
            args = node.args[1:]
            out = 1 + sum(self.cost(a, ub) for a in args)
            if ref is not None and ref[0] == "decl":
                out += self.decl(ref[1], node, args, ub)
            else:
                out += self.cost(node.args[0], ub)
            return min(out, STEP_CAP)
        return 1 + sum(self.cost(a, ub) for a in getattr(node, "args", ()) if hasattr(a, "kind"))

    def decl(self, name, app, args, ub) -> int:
        """The cost of the definition ``name`` applied to ``args`` (terms in the scope ``ub``)."""
        d = self.defs.get(name)
        if d is None or name in self.active:
            return 1            # unknown, or a recursive call inside its own body (memoised steps)
        inner = {}
        for b, meta in (getattr(app, "implicits", None) or {}).items():
            z = self.defs.implicit(meta)
            v = self._nat(z, ub) if z is not None else None
            if v is not None:
                inner[b] = v
        explicit = getattr(d, "explicit", [])
        for b, a in zip(explicit, args):
            v = self._nat(a, ub)
            if v is None:
                v = ub.get(a.value) if getattr(a, "kind", None) == "ident" else None
                v = v if isinstance(v, tuple) else None
            if v is not None:
                inner[b.name] = v
        key = (name, tuple(sorted(inner.items())))
        if key not in self.memo:
            self.active.add(name)
            try:
                self.memo[key] = self.body(d, inner)
            finally:
                self.active.discard(name)
        per = self.memo[key]
        if d.cases is not None and d.cases[0] is None:          # structural recursion: index + 1 steps
            extra = args[len(explicit):]
            steps = self.nat(extra[0], ub) + 1 if extra else self.nat_default
            return _mul(steps, per)
        return per

    def body(self, d, ub) -> int:
        try:
            body = self.defs.body(d)
        except Exception:           # a body the reader refuses: its evaluation fails at once
            return 1
        if d.cases is not None:
            scrut, alts, _ = d.cases
            costs = []
            for case in alts:
                inner = dict(ub)
                if case.pattern[0] == "succ":
                    inner[case.pattern[1]] = self.nat_default
                costs.append(self._value_cost(case.body, inner))
            return sum(costs) if scrut is None else max(costs or [1])
        return self._value_cost(body, ub)

    def _value_cost(self, body, ub) -> int:
        if isinstance(body, dict):
            return sum(self.cost(t, ub) for t in body.values())
        return self.cost(body, ub)


