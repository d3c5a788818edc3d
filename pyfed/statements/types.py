"""Types of run-free statements: what a bound name or a term of a lemma is.

A :class:`Ty` is one of

* ``nat`` (ℕ), ``real`` (ℝ), ``prop`` (a proposition), ``type`` (a sample space ``Ω : Type*``);
* ``vec`` (``Space d``, ``ModelSpace d``, ``EuclideanSpace ℝ (Fin d)``: ``args = (d,)``, a
  :class:`~pyfed.lean.terms.Node` for the dimension), ``fin`` (``Fin n``: ``args = (n,)``);
* ``fun`` (``A → B``: ``args = (A, B)``), ``finset`` (``Finset A``: ``args = (A,)``);
* ``problem`` (``Problem d N`` of a model namespace: ``args = (namespace, d, N)``), ``measure``
  (``Measure Ω``), ``filtration`` (``Filtration ℕ m``), ``enum`` (an inductive of the model such as
  ``ControlOption``: ``args = (name,)``), ``struct`` (a structure of the model such as
  ``ScaffoldState d N``: ``args = (name, …)``);
* ``var`` (an implicit parameter of a model definition still to be inferred: ``args = (name,)``).

:func:`unify` matches a declared parameter type against an argument's type and binds the
definition's implicit parameters (``{d N : ℕ}`` of ``objective`` from its ``Fin N → Space d → ℝ``
argument), which is how the interpreter later evaluates the definition's body.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..lean.terms import LeanSyntaxError, Node

__all__ = ["Ty", "NAT", "REAL", "PROP", "TYPE", "MEASURE", "FILTRATION", "vec", "fin", "fun", "finset", "unify",
           "show", "is_numeric", "arity"]


@dataclass(frozen=True)
class Ty:
    """A type (see the module docstring); ``args`` are Tys, :class:`Node` s (dimensions) or strings."""

    kind: str
    args: tuple = ()

    def __str__(self):
        return show(self)

    def __eq__(self, other):
        return isinstance(other, Ty) and self.kind == other.kind and len(self.args) == len(other.args) and all(
            _arg_eq(a, b) for a, b in zip(self.args, other.args))

    def __hash__(self):
        return hash(self.kind)


def _arg_eq(a, b) -> bool:
    if isinstance(a, Node) and isinstance(b, Node):
        return a.text == b.text
    return a == b


NAT = Ty("nat")
REAL = Ty("real")
PROP = Ty("prop")
TYPE = Ty("type")
MEASURE = Ty("measure")
FILTRATION = Ty("filtration")
UNKNOWN = Ty("unknown")


def vec(d) -> Ty:
    return Ty("vec", (d,))


def fin(n) -> Ty:
    return Ty("fin", (n,))


def fun(a: Ty, b: Ty) -> Ty:
    return Ty("fun", (a, b))


def finset(a: Ty) -> Ty:
    return Ty("finset", (a,))


def is_numeric(t: Ty) -> bool:
    return t.kind in ("nat", "real")


def arity(t: Ty) -> int:
    """Number of arguments a value of type ``t`` takes before it is not a function."""
    n = 0
    while t.kind == "fun":
        n += 1
        t = t.args[1]
    return n


def show(t: Ty) -> str:
    """Lean-like text of a type (for messages)."""
    k = t.kind
    if k in ("nat", "real"):
        return "ℕ" if k == "nat" else "ℝ"
    if k == "vec":
        return f"Space {_txt(t.args[0])}"
    if k == "fin":
        return f"Fin {_txt(t.args[0])}"
    if k == "fun":
        a, b = t.args
        left = show(a)
        return f"({left}) → {show(b)}" if a.kind == "fun" else f"{left} → {show(b)}"
    if k == "finset":
        return f"Finset ({show(t.args[0])})"
    if k == "problem":
        return f"{t.args[0]}.Problem {_txt(t.args[1])} {_txt(t.args[2])}"
    if k in ("enum", "struct", "var"):
        return str(t.args[0])
    return {"prop": "Prop", "type": "Type", "measure": "Measure Ω", "filtration": "Filtration ℕ m",
            "unknown": "?"}.get(k, k)


def _txt(x) -> str:
    if isinstance(x, Node):
        return x.text if " " not in x.text else f"({x.text})"
    return str(x)


def unify(param: Ty, arg: Ty, binding: dict, implicit: set) -> bool:
    """Match the declared type ``param`` (which may mention the definition's ``implicit`` names,
    as ``var`` types or as identifier dimensions) against the argument type ``arg``; new
    bindings go into ``binding`` (implicit name -> Node or Ty). False when they cannot match."""
    if param.kind == "var":
        name = param.args[0]
        if name in binding:
            return binding[name] == arg
        binding[name] = arg
        return True
    if arg.kind == "unknown":
        return True
    if param.kind != arg.kind:
        # a numeral where a real is expected, a natural number where a real is expected: coercions
        return param.kind == "real" and arg.kind == "nat"
    if param.kind in ("vec", "fin"):
        return _unify_dim(param.args[0], arg.args[0], binding, implicit)
    if param.kind == "problem":
        return param.args[0] == arg.args[0] and _unify_dim(param.args[1], arg.args[1], binding, implicit) and \
            _unify_dim(param.args[2], arg.args[2], binding, implicit)
    if param.kind in ("fun", "finset"):
        return all(unify(p, a, binding, implicit) for p, a in zip(param.args, arg.args))
    if param.kind in ("enum", "struct"):
        if param.args[0] != arg.args[0]:
            return False
        return all(_unify_dim(p, a, binding, implicit) if isinstance(p, Node) else True
                   for p, a in zip(param.args[1:], arg.args[1:]))
    return True


def _unify_dim(p, a, binding, implicit) -> bool:
    if isinstance(p, Node) and p.kind == "ident" and p.value in implicit:
        if p.value in binding:
            b = binding[p.value]
            return not isinstance(b, Node) or not isinstance(a, Node) or b.text == a.text
        binding[p.value] = a
        return True
    return True        # dimensions that are expressions are checked when the values meet


def located(node: Node, path: str, construct: str, detail: str = "", supported: str = "") -> LeanSyntaxError:
    """A :class:`LeanSyntaxError` at ``node``."""
    return LeanSyntaxError(construct, detail, line=node.line, col=node.col, path=path, supported=supported)
