"""The Lean file of a FedProx counterexample: the instance's numbers and vectors
(:func:`pyfed.export.render_values_counterexample`) and, written out as lists of rationals, what a
run-free file leaves to the JSON: the quadratic clients' affine oracles (``A``, ``b`` by client and
the noise offsets by round, client and call), the sampled sets by round, and the finite families
and sequences. Every number is exact; the sides are pyfed's exact evaluation of the statement's
terms (the file checks the witness inequality between them, not the procedure)."""

from __future__ import annotations

from ...exact import fraction_from_text
from ...export import lean_list, lean_list_type, render_values_counterexample

__all__ = ["render", "value_defs"]


def _q(x):
    return fraction_from_text(x)


def _oracle_parts(spec):
    """``(A, b, offsets)`` of an affine oracle spec (rationals), or None."""
    if isinstance(spec, dict) and spec.get("family") == "affine oracle":
        A = [[_q(x) for x in row] for row in spec["A"]]
        return A, [_q(x) for x in spec["b"]], [[_q(x) for x in o] for o in spec["offsets"]]
    return None


def _by_round(spec) -> list | None:
    """Client oracles by round (``[[(A, b, offsets)] per client] per round``) of a ``LocalOracle d``,
    ``Fin N → LocalOracle d`` or ``ℕ → Fin N → LocalOracle d`` spec; None for another value."""
    one = _oracle_parts(spec)
    if one is not None:
        return [[one]]
    fam = spec.get("family") if isinstance(spec, dict) else None
    if fam == "fin":
        clients = [_oracle_parts(v) for v in spec["values"]]
        return [clients] if clients and all(c is not None for c in clients) else None
    if fam == "process":
        rounds = [_by_round(v) for v in spec["values"]]
        return [r[0] for r in rounds] if rounds and all(r is not None and len(r) == 1 for r in rounds) else None
    return None


def _def(name, value, doc, typ=None):
    return {"name": name, "type": typ or lean_list_type(value), "value": lean_list(value), "doc": doc}


def value_defs(name: str, spec) -> list | None:
    """The Lean defs of one instance value the generic file only names (see the module docstring),
    or None when it is none of those."""
    rounds = _by_round(spec)
    if rounds is not None:
        A = [A for A, _, _ in rounds[0]]
        b = [b for _, b, _ in rounds[0]]
        out = [_def(f"{name}_A", A, f"`{name}`: client i's matrix Aᵢ (a quadratic fᵢ(y) = ½ yᵀAᵢy − bᵢᵀy), by client"),
               _def(f"{name}_b", b, f"`{name}`: client i's vector bᵢ, by client")]
        if any(off for r in rounds for _, _, off in r):
            noise = [[off for _, _, off in r] for r in rounds]
            out.append({"name": f"{name}_noise", "type": "List (List (List (List ℚ)))", "value": lean_list(noise),
                        "doc": f"`{name}`: the offset added to call k of client i in round r, by round, client and "
                               "call (none listed: 0; beyond the last round: the last)"})
        return out
    fam = spec.get("family") if isinstance(spec, dict) else None
    if fam == "samples":
        return [_def(name, spec["values"], f"`{name}`: the sampled clients by round (beyond the last: the last)",
                     "List (List ℕ)")]
    if fam in ("fin", "sequence") and spec["values"] and all(isinstance(v, str) for v in spec["values"]):
        what = "by client" if fam == "fin" else f"by index (beyond: {spec['tail']})"
        return [_def(name, [_q(v) for v in spec["values"]], f"`{name}`, {what}", "List ℚ")]
    if fam == "fin" and spec["values"] and all(isinstance(v, dict) and set(v) == {"vec"} for v in spec["values"]):
        return [_def(name, [[_q(x) for x in v["vec"]] for v in spec["values"]], f"`{name}`, by member, by coordinates",
                     "List (List ℚ)")]
    return None


def render(record: dict) -> str:
    """The Lean file of a FedProx counterexample record (see the module docstring)."""
    return render_values_counterexample(record, more=value_defs)
