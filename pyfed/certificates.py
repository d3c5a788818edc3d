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
from .engines.pep.exact_pep import (pep_gradient_growth_exact, pep_nonexpansive_exact,
                                    pep_perturbed_strong_convexity_exact, pep_scaffold_exact)
from .lean.certificates import GENERATED, render_certificate
from .lean.templating import sanitize

__all__ = ["CERTIFIED", "certificate_record", "certificate_from_json", "write_certificates",
           "verify_certificate_file", "verify_certificate_files"]

F = Fraction

#: name -> (builder of the exact PEP, τ)
CERTIFIED = {
    "GradientGrowth": (lambda: pep_gradient_growth_exact(2, 1, 2), F(0)),
    "PerturbedStrongConvexity": (lambda: pep_perturbed_strong_convexity_exact(1, F(1, 2)), F(0)),
    "GradientStepNonexpansive": (lambda: pep_nonexpansive_exact(1, 1, 0), F(1)),
    "ConvexFiniteRoundConvergence": (lambda: pep_scaffold_exact(2, 2, F(1, 162), 1, 1, 0, {0: F(1, 2), 1: F(1, 2)},
                                                                {}, F(1, 729)), F(81, 2)),
}


def certificate_record(name: str) -> dict:
    """Solve, certify and verify the lemma ``name`` of :data:`CERTIFIED`; returns the JSON record
    (``lean_name`` and the certificate's :meth:`Certificate.to_json`). Raises RuntimeError when no
    certificate verifies."""
    build, tau = CERTIFIED[name]
    pep = build()
    cert, why = find_certificate(pep, tau)
    if cert is None or not verify_certificate(pep, cert).ok:
        raise RuntimeError(f"{name}: no verified certificate ({why})")
    return {"lean_name": f"SCAFFOLD.{name}", **cert.to_json(pep)}


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
    return bool(check.ok), ("verified exactly" if check.ok else str(getattr(check, "reason", check)))


def verify_certificate_files(directory) -> list:
    """``[(path, ok, reason)]`` for every ``Certificate_*.json`` of ``directory`` (the files
    themselves, or a Lean directory's ``PyfedTest/Generated``), sorted by name; empty when there
    are none (:func:`verify_certificate_file`)."""
    d = Path(directory)
    files = sorted(d.glob("Certificate_*.json")) or sorted((d / GENERATED).glob("Certificate_*.json"))
    return [(p, *verify_certificate_file(p)) for p in files]
