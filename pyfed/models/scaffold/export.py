"""A SCAFFOLD run's counterexample as a Lean file: the instance's numbers (sizes, steps, the
problem's constants, the clients' Hessians and vectors, the start, the controls) and the exact
sides, rendered by the Jinja2 template ``statement_counterexample.lean.j2``. Clients beyond
quadratics (ridge functions, interpolants) are recorded exactly in the JSON file beside it; the Lean
file then states the run's numbers and both sides."""

from __future__ import annotations

from ...export import counterexample_context, lean_list, lean_list_type, lean_q
from ...lean.templating import environment

__all__ = ["render_run_counterexample"]


def render_run_counterexample(record: dict) -> str:
    """The Lean file of a counterexample record of a SCAFFOLD run statement (raises InputError for a
    record whose sides are neither exact nor certified bounds)."""
    common = counterexample_context(record)
    sides = common.pop("sides")
    inst = record.get("instance") or {}
    defs = [{"name": "N", "type": "ℕ", "value": str(inst["N"]), "doc": "clients"},
            {"name": "d", "type": "ℕ", "value": str(inst["d"]), "doc": "dimension"},
            {"name": "S", "type": "ℕ", "value": str(inst["S"]), "doc": "clients per round"},
            {"name": "K", "type": "ℕ", "value": str(inst["K"]), "doc": "local steps"},
            {"name": "T", "type": "ℕ", "value": str(inst["T"]), "doc": "rounds"},
            {"name": "ηl", "type": "ℚ", "value": lean_q(inst["eta_l"]), "doc": "local step size"},
            {"name": "ηg", "type": "ℚ", "value": lean_q(inst["eta_g"]), "doc": "global step size"},
            {"name": "β", "type": "ℚ", "value": lean_q(inst["beta"]), "doc": "smoothness `P.β`"},
            {"name": "σ", "type": "ℚ", "value": lean_q(inst["sigma"]), "doc": "noise level `P.σ`"}]
    derived = inst.get("derived") or {}

    def given_or_derived(key):
        """The instance's value for the statement's name, else the one it derives (the problem's)."""
        if inst.get(key) is not None:
            return inst[key], ""
        if derived.get(key) is not None:
            return derived[key], " (the problem's own)"
        return None, ""

    for key, doc in (("mu", "strong convexity `μ`"), ("f_low", "lower bound `fLower`")):
        v, how = given_or_derived(key)
        if v is not None:
            defs.append({"name": {"mu": "μ", "f_low": "fLower"}[key], "type": "ℚ", "value": lean_q(v),
                         "doc": doc + how})
    if "A" in inst:
        defs += [{"name": "A", "type": lean_list_type(inst["A"]), "value": lean_list(inst["A"]),
                  "doc": "client Hessians `A i` (row-major)"},
                 {"name": "b", "type": lean_list_type(inst["b"]), "value": lean_list(inst["b"]),
                  "doc": "client vectors `b i`"}]
    # clients beyond quadratics (ridge functions, interpolants): recorded exactly in the JSON file
    defs.append({"name": "x0", "type": lean_list_type(inst["x0"]), "value": lean_list(inst["x0"]),
                 "doc": "start `P.x0`"})
    if inst.get("c0") is not None:
        defs.append({"name": "c0", "type": lean_list_type(inst["c0"]), "value": lean_list(inst["c0"]),
                     "doc": "initial controls `c0`"})
    v, how = given_or_derived("xstar")
    if v is not None:
        defs.append({"name": "xstar", "type": lean_list_type(v), "value": lean_list(v),
                     "doc": "the point `xstar`" + (" (the problem's exact minimiser)" if how else "")})
    defs += sides
    init_text = ("deterministic initial controls `c0` (`some c0`)" if record.get("init") == "some"
                 else "the K-sample warm start (`none`)")
    if "A" in inst:
        clients_text = ("quadratic clients `f i x = ½ xᵀ (A i) x - ⟪b i, x⟫` with the exact numbers below,\n"
                        "Gaussian oracle noise with `E‖ξ‖² = σ²`")
    else:
        kinds = sorted({c.get("family", "?") + (f" ({c['profile']})" if c.get("profile") else "")
                        for c in inst.get("clients") or []})
        clients_text = (f"clients beyond quadratics ({', '.join(kinds)}; recorded exactly in the JSON file beside\n"
                        "this one), exact gradients (zero noise, which the Run's variance bound σ² admits)")
    tpl = environment().get_template("statement_counterexample.lean.j2")
    return tpl.render(init_text=init_text, defs=defs, clients_text=clients_text, **common)


