"""PEP certificates of pyfed's lemmas, solved and written: each lemma's exact PEP, its certificate
found by :func:`pyfed.engines.pep.certificate.find_certificate` and verified exactly, then written
as JSON and as the Lean file :mod:`pyfed.lean.certificates` renders from it
(``lean/PyfedTest/Generated/Certificate_<Name>.{json,lean}``, by ``pyfed lean --certificates``).

Certified lemmas (:data:`CERTIFIED`): ``SCAFFOLD.GradientGrowth`` (N = 2, β = 1),
``SCAFFOLD.PerturbedStrongConvexity`` (β = 1, μ = 1/2), ``SCAFFOLD.GradientStepNonexpansive``
(β = η = 1, μ = 0) and ``SCAFFOLD.ConvexFiniteRoundConvergence``'s PEP row (σ = 0, S = N = 2,
K = T = 2, ηl = 1/162, ηg = β = 1, μ = 0; claim weightedGap ≤ 81/2 (‖x0 - x⋆‖² + C₀/729)).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from .engines.pep.certificate import Certificate, find_certificate, form_json, verify_certificate
from .engines.pep.exact_pep import (
    Form,
    pep_gradient_growth_exact,
    pep_nonexpansive_exact,
    pep_perturbed_strong_convexity_exact,
    pep_scaffold_exact,
)
from .engines.proof.lean import instance_statement
from .lean.certificates import GENERATED, render_certificate
from .lean.paths import source_lean_dir
from .lean.templating import sanitize
from .models.registry import read_file

__all__ = ["CERTIFIED", "INSTANCES", "certificate_record", "certificate_from_json", "write_certificates",
           "verify_certificate_file", "verify_certificate_files", "instance_of", "instance_ties", "same_problem"]

F = Fraction

#: name -> (builder of the exact PEP, τ)
CERTIFIED = {
    "GradientGrowth": (lambda: pep_gradient_growth_exact(2, 1, 2), F(0)),
    "PerturbedStrongConvexity": (lambda: pep_perturbed_strong_convexity_exact(1, F(1, 2)), F(0)),
    "GradientStepNonexpansive": (lambda: pep_nonexpansive_exact(1, 1, 0), F(1)),
    "ConvexFiniteRoundConvergence": (lambda: pep_scaffold_exact(2, 2, F(1, 162), 1, 1, 0, {0: F(1, 2), 1: F(1, 2)},
                                                                {}, F(1, 729)), F(81, 2)),
}


#: name -> (Lean file under lean/, the parameter values the certificate is for): the lemma instance
#: each certificate proves is the theorem of that file at those values (:func:`instance_of`)
INSTANCES = {
    "GradientGrowth": ("Pyfed/Scaffold/Theorems.lean", {"N": 2, "P.β": 1}),
    "PerturbedStrongConvexity": ("Pyfed/Scaffold/Theorems.lean", {"P.β": 1, "μ": F(1, 2)}),
    "GradientStepNonexpansive": ("Pyfed/Lemmas/Inequalities.lean", {"β": 1, "η": 1}),
    "ConvexFiniteRoundConvergence": ("Pyfed/Scaffold/Theorems.lean",
                                     {"N": 2, "S": 2, "K": 2, "T": 2, "ηl": F(1, 162), "ηg": 1, "μ": 0,
                                      "P.β": 1, "P.σ": 0}),
}


def instance_of(name: str) -> tuple:
    """``(statement, values, Lean text)``: the theorem ``name`` of pyfed's Lean file (read by the
    statement reader) and the lemma instance its certificate proves, stated in Lean
    (:func:`pyfed.engines.proof.lean.instance_statement`: the theorem with its parameters fixed
    by equality hypotheses)."""

    rel, values = INSTANCES[name]
    st = read_file(source_lean_dir() / rel, theorem=name)[0]
    return st, values, instance_statement(st, values)


def certificate_record(name: str) -> dict:
    """Solve, certify and verify the lemma ``name`` of :data:`CERTIFIED`; returns the JSON record
    (``lean_name`` and the certificate's :meth:`Certificate.to_json`). Raises RuntimeError when no
    certificate verifies."""
    build, tau = CERTIFIED[name]
    pep = build()
    cert, why = find_certificate(pep, tau)
    if cert is None or not verify_certificate(pep, cert).ok:
        raise RuntimeError(f"{name}: no verified certificate ({why})")
    _st, values, text = instance_of(name)
    return {"lean_name": f"SCAFFOLD.{name}", **cert.to_json(pep),
            "parameters": {k: str(Fraction(v)) for k, v in values.items()}, "instance": text}


def certificate_from_json(record: dict) -> Certificate:
    """The :class:`Certificate` of a JSON record (exact)."""
    return Certificate(F(record["tau"]), [F(c["multiplier"]) for c in record["constraints"]],
                       [[F(v) for v in row] for row in record["Q"]], F(record["slack"]))


def write_certificates(lean_dir, names=None) -> list:
    """Solve, verify and write ``Certificate_<Name>.json`` and ``.lean`` for each lemma (default:
    all of :data:`CERTIFIED`); returns the written paths. The numbers come from a floating-point
    oracle, so they may differ between machines; every written certificate verifies exactly."""
    gen = Path(lean_dir) / GENERATED
    gen.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in names or CERTIFIED:
        rec = certificate_record(name)
        pj = gen / f"Certificate_{sanitize(name)}.json"
        pj.write_text(json.dumps(rec, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        pl = pj.with_suffix(".lean")
        pl.write_text(render_certificate(rec), encoding="utf-8")
        paths += [pj, pl]
    return paths


def verify_certificate_file(path) -> tuple:
    """Re-verify one ``Certificate_<Name>.json`` exactly, whoever wrote it (``pyfed lean
    --certificates``, on any machine: the numbers of a floating-point oracle may differ, any
    verified certificate proves the same claim). Returns ``(ok, reason)``: the record's
    ``lean_name`` must be one of :data:`CERTIFIED`, its problem (metric, init, the interpolation
    inequalities' names and forms) the one pyfed rebuilds for that lemma, its ``tau`` the claim's,
    and :func:`~pyfed.engines.pep.certificate.verify_certificate` must accept its multipliers and
    Q in exact rational arithmetic. Never raises for a bad file: the reason says what is wrong."""
    try:
        rec = json.loads(Path(path).read_text(encoding="utf-8"))
        name = str(rec["lean_name"]).rpartition(".")[2]
        if name not in CERTIFIED:
            return False, f"unknown lemma {rec['lean_name']!r}; certified: {', '.join(CERTIFIED)}"
        build, tau = CERTIFIED[name]
        pep = build()
        if F(rec["tau"]) != tau:
            return False, f"tau {rec['tau']} is not the claim's {tau}"
        if rec.get("metric") != form_json(pep.metric) or rec.get("init") != form_json(pep.init):
            return False, "its metric or init is not the lemma's PEP"
        cons = rec.get("constraints") or []
        if [c.get("name") for c in cons] != [n for n, _ in pep.constraints] or \
                [c.get("form") for c in cons] != [form_json(f) for _, f in pep.constraints]:
            return False, "its interpolation inequalities are not the lemma's PEP"
        cert = certificate_from_json(rec)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, ZeroDivisionError) as exc:
        return False, f"unreadable certificate ({type(exc).__name__}: {exc})"
    check = verify_certificate(pep, cert)
    if not check.ok:
        return False, str(getattr(check, "reason", check))
    tie = instance_ties(name, rec)
    if tie:
        return False, tie
    return True, "verified exactly"


def _canonical(name: str) -> str:
    return name.replace("x*", "xstar")


def same_problem(pep, tau, other) -> str:
    """"" when ``τ·init − metric`` of ``pep`` (a hand-written builder's problem) is ``−metric`` of
    ``other`` (the problem re-encoded from the Lean statement, claim ``metric ≤ 0``) and both have
    the same interpolation inequalities, up to the order of their Gram vectors and function values
    (matched by name, ``x*`` read as ``xstar``); else what differs."""

    def relabel(form, leaves, fvals):
        g = {}
        for (a, b), v in form.gram.items():
            k = tuple(sorted((_canonical(leaves[a]), _canonical(leaves[b]))))
            g[k] = g.get(k, 0) + v
        f = {_canonical(fvals[j]): v for j, v in form.fval.items()}
        return ({k: v for k, v in g.items() if v}, f, form.const)

    if sorted(map(_canonical, pep.leaves)) != sorted(map(_canonical, other.leaves)):
        return f"Gram vectors differ: {pep.leaves} and {other.leaves}"
    mine = relabel(Fraction(tau) * pep.init - pep.metric if tau else Form() - pep.metric, pep.leaves, pep.fvalues)
    theirs = relabel(Form() - other.metric, other.leaves, other.fvalues)
    if mine != theirs:
        return "the claim τ·init − metric differs from the Lean statement's −(LHS − RHS)"
    cons_a = sorted(map(repr, (relabel(f, pep.leaves, pep.fvalues) for _, f in pep.constraints)))
    cons_b = sorted(map(repr, (relabel(f, other.leaves, other.fvalues) for _, f in other.constraints)))
    if cons_a != cons_b:
        return "the interpolation inequalities differ from those of the Lean statement's class"
    return ""


def instance_ties(name: str, rec: dict) -> str:
    """"" when the record states its lemma instance as pyfed states it now (:func:`instance_of`)
    and, where the statement's model encodes it (:meth:`pyfed.models.protocol.Model.
    certificate_problem`), its problem is that statement's PEP at those parameters
    (:func:`same_problem`); else why not. Ties the hand-written builders of :data:`CERTIFIED` to
    the Lean text."""
    st, values, text = instance_of(name)
    if rec.get("instance") != text:
        return "its stated lemma instance is not the Lean statement at its parameters"
    if rec.get("parameters") != {k: str(Fraction(v)) for k, v in values.items()}:
        return "its parameters are not the instance's"
    try:
        other = st.model.certificate_problem(st, values)
    except Exception as exc:       # NotProvided: the model has no encoding to compare with
        if type(exc).__name__ == "NotProvided":
            return ""
        raise
    build, tau = CERTIFIED[name]
    return same_problem(build(), tau, other)


def verify_certificate_files(directory) -> list:
    """``[(path, ok, reason)]`` for every ``Certificate_*.json`` of ``directory`` (the files
    themselves, or a Lean directory's ``PyfedTest/Generated``), sorted by name; empty when there
    are none (:func:`verify_certificate_file`)."""
    d = Path(directory)
    files = sorted(d.glob("Certificate_*.json")) or sorted((d / GENERATED).glob("Certificate_*.json"))
    return [(p, *verify_certificate_file(p)) for p in files]
