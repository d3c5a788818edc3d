"""Exact rational certificates for a PEP claim ``metric ≤ τ · init`` (:class:`.exact_pep.ExactPEP`).

A certificate is (τ, λ, Q, slack) with rational entries such that, as linear forms in the Gram
entries G_ab and the function values F_j, coefficient by coefficient,

    τ · init - metric + Σ_k λ_k · I_k  =  ⟨Q, G⟩ + slack,

with λ ≥ 0, Q positive semidefinite (decided by an exact LDLᵀ factorisation) and slack ≥ 0; I_k ≤ 0
are the interpolation inequalities. Then on every Gram matrix G ⪰ 0 and values F satisfying the
inequalities, metric = τ·init + Σ λ_k I_k - ⟨Q, G⟩ - slack ≤ τ·init: the claim holds for every
function of the class (at the PEP's fixed parameters and sizes).

:func:`verify_certificate` decides this in exact arithmetic and trusts nothing else.
:func:`find_certificate` produces candidates from an untrusted floating-point oracle
(:mod:`.certificate_oracle`): the face the dual matrix must vanish on (rationalised), a dual point
in the relative interior, its multipliers rounded to rationals and projected exactly onto the
affine equalities (function-value coefficients zero, Q·w = 0 on the face), then Q is *computed*
exactly from λ. Rounding is tried at several denominators; the first candidate that verifies wins.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

from ...verdicts import Evidence
from .certificate_oracle import OracleError, face_basis, interior_dual, project_multipliers
from .direct import lift_multipliers
from .exact_pep import ExactPEP, Form, gram_matrix

__all__ = ["Certificate", "CertificateCheck", "verify_certificate", "find_certificate", "certify_verdict",
           "residual_form", "ldl_pivots", "gram_matrix"]


@dataclass
class Certificate:
    """Exact data of a certificate (see the module docstring).

    Attributes
    ----------
    tau : Fraction
        The constant certified: metric ≤ tau · init.
    multipliers : list[Fraction]
        λ_k, one per ``pep.constraints`` entry (same order).
    Q : list[list[Fraction]]
        Symmetric n × n matrix, n = len(pep.leaves).
    slack : Fraction
        Constant term left over (≥ 0).
    timings : dict
        Seconds spent in the oracle, the rationalisation and the exact verification.
    """

    tau: Fraction
    multipliers: list
    Q: list
    slack: Fraction = Fraction(0)
    timings: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    def to_json(self, pep: ExactPEP) -> dict:
        """Exact rationals as "p/q" strings, with the problem's description (the forms) so the
        certificate can be re-checked without pyfed's builders."""
        return {
            "claim": "metric <= tau * init on every Gram matrix and function values satisfying the "
                     "interpolation inequalities I_k <= 0",
            "problem": pep.description, "leaves": list(pep.leaves), "function_values": list(pep.fvalues),
            "tau": _s(self.tau), "slack": _s(self.slack),
            "metric": form_json(pep.metric), "init": form_json(pep.init),
            "constraints": [{"name": name, "form": form_json(f), "multiplier": _s(lam)}
                            for (name, f), lam in zip(pep.constraints, self.multipliers)],
            "Q": [[_s(v) for v in row] for row in self.Q],
            "ldl_pivots": [_s(p) for p in (ldl_pivots(self.Q) or [])],
        }


def _s(q) -> str:
    q = Fraction(q)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def form_json(f: Form) -> dict:
    """A form as JSON: gram [[a, b, "p/q"], ...] (a ≤ b), fval [[j, "p/q"], ...], const."""
    return {"gram": [[a, b, _s(v)] for (a, b), v in sorted(f.gram.items())],
            "fval": [[j, _s(v)] for j, v in sorted(f.fval.items())], "const": _s(f.const)}


@dataclass
class CertificateCheck:
    """Outcome of :func:`verify_certificate`: ``ok`` and, when not, the first failed check."""

    ok: bool
    reason: str = ""


def residual_form(pep: ExactPEP, tau, multipliers) -> Form:
    """τ·init - metric + Σ_k λ_k I_k, exactly (accumulated as integers over one common
    denominator, then reduced)."""

    if len(multipliers) != len(pep.constraints):
        raise ValueError(f"{len(multipliers)} multipliers for {len(pep.constraints)} constraints")
    terms = [(Fraction(tau), pep.init), (Fraction(-1), pep.metric)]
    terms += [(Fraction(lam), form) for lam, (_, form) in zip(multipliers, pep.constraints) if lam != 0]
    Dl = Df = 1
    for s, form in terms:
        Dl = math.lcm(Dl, s.denominator)
        for v in (*form.gram.values(), *form.fval.values(), form.const):
            Df = math.lcm(Df, Fraction(v).denominator)
    # s·v·Dl·Df = (s·Dl)·(v·Df): a product of two integers
    gram: dict = {}
    fval: dict = {}
    const = 0
    for s, form in terms:
        si = s.numerator * (Dl // s.denominator)

        def iv(v):
            v = Fraction(v)
            return v.numerator * (Df // v.denominator)
        for k, v in form.gram.items():
            gram[k] = gram.get(k, 0) + si * iv(v)
        for k, v in form.fval.items():
            fval[k] = fval.get(k, 0) + si * iv(v)
        const += si * iv(form.const)
    D = Dl * Df
    return Form({k: Fraction(v, D) for k, v in gram.items() if v != 0},
                {k: Fraction(v, D) for k, v in fval.items() if v != 0}, Fraction(const, D))


def ldl_pivots(Q) -> list | None:
    """Pivots d_k of the exact LDLᵀ factorisation Q = L diag(d) Lᵀ of the symmetric rational matrix
    Q (no pivoting), or None when Q is not positive semidefinite: a negative pivot, or a zero
    pivot whose remaining row is not zero (a PSD matrix with a zero diagonal entry has that row
    zero; such a row is then dropped, pivot 0).

    Computed with python-flint rationals (fmpq, reduced after every operation, arithmetic in
    C) on the upper triangle only (Q symmetric: the Schur complement stays symmetric):
    A_ij -= (A_ki / A_kk) A_kj for k < i ≤ j. The caller checks symmetry (:func:`verify_certificate`
    does); only the upper triangle of Q is read."""
    from flint import fmpq

    n = len(Q)
    A = [[fmpq(Fraction(v).numerator, Fraction(v).denominator) if j >= i else None for j, v in enumerate(row)]
         for i, row in enumerate(Q)]
    zero = fmpq(0)
    pivots = []
    for k in range(n):
        row_k = A[k]
        p = row_k[k]
        if p < 0:
            return None
        if p == 0:
            if any(row_k[j] != 0 for j in range(k + 1, n)):
                return None
            pivots.append(Fraction(0))
            continue
        pivots.append(Fraction(int(p.p), int(p.q)))
        nz = [(j, row_k[j]) for j in range(k + 1, n) if row_k[j] != zero]
        for t, (i, a_ki) in enumerate(nz):
            c = a_ki / p
            row_i = A[i]
            for j, v in nz[t:]:
                row_i[j] -= c * v
    return pivots


def verify_certificate(pep: ExactPEP, cert: Certificate) -> CertificateCheck:
    """Decide, in exact rational arithmetic, that ``cert`` proves metric ≤ cert.tau · init on the
    PEP's feasible set: every multiplier ≥ 0; τ·init - metric + Σ λ_k I_k has zero
    function-value coefficients, constant term = slack ≥ 0 and Gram coefficients equal to those of
    ⟨Q, G⟩ (Q symmetric); Q positive semidefinite (exact LDLᵀ)."""
    n = len(pep.leaves)
    if len(cert.multipliers) != len(pep.constraints):
        return CertificateCheck(False, f"{len(cert.multipliers)} multipliers for {len(pep.constraints)} constraints")
    for lam, (name, _) in zip(cert.multipliers, pep.constraints):
        if not isinstance(lam, Fraction):
            return CertificateCheck(False, f"multiplier of {name} is not an exact rational")
        if lam < 0:
            return CertificateCheck(False, f"multiplier of {name} is negative ({lam})")
    Q = cert.Q
    if len(Q) != n or any(len(row) != n for row in Q):
        return CertificateCheck(False, f"Q is not {n} x {n}")
    for a in range(n):
        for b in range(n):
            if not isinstance(Q[a][b], Fraction):
                return CertificateCheck(False, f"Q[{a}][{b}] is not an exact rational")
            if Q[a][b] != Q[b][a]:
                return CertificateCheck(False, f"Q is not symmetric at ({a}, {b})")
    R = residual_form(pep, cert.tau, cert.multipliers)
    if R.fval:
        j = min(R.fval)
        return CertificateCheck(False, f"function value {pep.fvalues[j]} keeps the coefficient {R.fval[j]}")
    if R.const != cert.slack:
        return CertificateCheck(False, f"constant term {R.const} differs from the slack {cert.slack}")
    if cert.slack < 0:
        return CertificateCheck(False, f"negative slack {cert.slack}")
    for a in range(n):
        for b in range(a, n):
            want = Q[a][a] if a == b else 2 * Q[a][b]
            if R.gram.get((a, b), 0) != want:
                return CertificateCheck(False, f"Gram coefficient ({pep.leaves[a]}, {pep.leaves[b]}): identity "
                                               f"gives {R.gram.get((a, b), 0)}, Q gives {want}")
    if ldl_pivots(Q) is None:
        return CertificateCheck(False, "Q is not positive semidefinite (exact LDLᵀ)")
    return CertificateCheck(True)


def find_certificate(pep: ExactPEP, tau, *, solver: str = "CLARABEL", solver_tol: float = 1e-8,
                     denominators=(10**4, 10**6, 10**9, None), reduced=None) -> tuple[Certificate | None, str]:
    """A verified certificate of metric ≤ tau·init, or (None, reason). ``tau`` exact (Fraction).

    Steps: the face (:func:`.certificate_oracle.face_basis`), an interior dual point at this
    τ (:func:`.certificate_oracle.interior_dual`), then for each denominator bound
    (``None``: the floats' exact binary values) the multipliers are rounded, projected exactly
    (:func:`.certificate_oracle.project_multipliers`), Q computed exactly from them and the
    candidate verified by :func:`verify_certificate`. The face is searched in general, then inside
    the kernel of init (right when τ exceeds the PEP's value); the oracle is asked at
    ``solver_tol``, then at 100 × ``solver_tol``, then with SCS, until a candidate verifies; ``cert.info["oracle"]``
    says which answered, ``cert.timings`` the seconds of the oracle (all attempts), the
    rationalisation and the exact verification.

    ``reduced``: a :class:`.direct.BlockPEP` of the same claim, the client-symmetric reduction of
    ``pep`` (:func:`.direct.pep_scaffold_symmetric`, same inequalities per client). The oracle and
    the exact projection then run on it (two small PSD blocks), its multipliers are lifted to
    ``pep`` (:func:`.direct.lift_multipliers`: λ_k / N on each client's copy) and Q is computed
    and verified on ``pep`` itself: nothing about the reduction is trusted."""

    tau = Fraction(tau)
    full = pep
    if reduced is not None:
        pep = reduced
    t0 = time.perf_counter()
    attempts = [(solver, solver_tol), (solver, 100 * solver_tol)] + ([("SCS", 10 * solver_tol)] if solver != "SCS" else [])
    restrict = bool(pep.init.gram)
    attempts = [(name, tol, r) for name, tol in attempts for r in ((False, True) if restrict else (False,))]
    why = []
    for name, tol, face_in_init_kernel in attempts:
        try:
            W = face_basis(pep, tau, solver=name, tol=tol, restrict=face_in_init_kernel)
            lam_f, margin = interior_dual(pep, tau, W, solver=name, tol=tol)
        except OracleError as exc:
            why.append(f"{name} at {tol:g}{' (face in ker init)' if face_in_init_kernel else ''}: {exc}")
            continue
        if margin <= 0:
            why.append(f"{name} at {tol:g}: no dual point with a positive margin at tau = {_s(tau)} "
                       f"(margin {margin:.3g})")
            continue
        cert, reason = _round_and_verify(pep, tau, W, lam_f, margin, denominators,
                                         full=full if reduced is not None else None)
        if cert is not None:
            oracle = time.perf_counter() - t0 - cert.timings["rationalise_s"] - cert.timings["verify_s"]
            cert.timings = {"oracle_s": oracle, **cert.timings}
            cert.info["oracle"] = f"{name} at {tol:g}"
            return cert, ""
        why.append(f"{name} at {tol:g}: {reason}")
    return None, "; ".join(why) + " (the claim is not certified by the SDP at this constant)"


def _round_and_verify(pep, tau, W, lam_f, margin, denominators, full=None):
    """Rationalise an interior dual point at each denominator bound and verify; (cert, "") or
    (None, reasons). ``full``: the problem to certify when ``pep`` is its symmetric reduction
    (multipliers lifted by :func:`.direct.lift_multipliers`, verified on ``full``)."""

    reasons = []
    t_round = t_verify = 0.0
    for den, basic in [(d, b) for b in (True, False) for d in denominators]:
        t1 = time.perf_counter()
        lam = project_multipliers(pep, tau, W, lam_f, den, basic=basic)
        t_round += time.perf_counter() - t1
        if lam is None:
            reasons.append(f"denominators {den}{'' if basic else ' (least norm)'}: the exact projection has no solution")
            continue
        t2 = time.perf_counter()
        target = pep
        if full is not None:
            lam, target = lift_multipliers(pep, full, lam), full
        R = residual_form(target, tau, lam)
        cert = Certificate(tau, lam, gram_matrix(R, len(target.leaves)), R.const)
        check = verify_certificate(target, cert)
        t_verify += time.perf_counter() - t2
        if check.ok:
            cert.timings = {"rationalise_s": t_round, "verify_s": t_verify}
            cert.info = {"face_dimension": len(W), "margin": margin, "denominator_bound": den,
                         "nonzero_multipliers": sum(1 for v in lam if v != 0)}
            return cert, ""
        reasons.append(f"denominators {den}{'' if basic else ' (least norm)'}: {check.reason}")
    return None, "; ".join(reasons)


def certify_verdict(v, pep, tau, *, solver="CLARABEL", claim: str | None = None, reduced=None):
    """Try an exact certificate of pep.metric <= tau * pep.init
    (:func:`pyfed.engines.pep.certificate.find_certificate`); on success ``v`` becomes a certified
    hold (evidence "PEP certificate over the class"), otherwise ``v.details["pep_certificate"]``
    says why. ``claim``: how the certified inequality reads in the report (default: metric <= tau * init).
    ``reduced``: as :func:`find_certificate`. Returns the certificate or None."""

    cert, why = find_certificate(pep, tau, solver=solver, reduced=reduced)
    if cert is None:
        v.details["pep_certificate"] = {"verified": False, "reason": why}
        v.certificate += f"; no exact certificate: {why}"
        return None
    nz = cert.info["nonzero_multipliers"]
    v.details["pep_certificate"] = {"verified": True, "tau": _s(cert.tau), "nonzero_multipliers": nz,
                                    "constraints": len(pep.constraints), "gram_size": len(pep.leaves)}
    v.evidence = Evidence.PEP_CERTIFICATE
    claim = claim or f"metric <= {_s(cert.tau)} * init"
    kind = "constraint" if pep.extra else "interpolation"    # extra: the noise constraints (σ > 0)
    v.certificate = (f"PEP certificate over the class ({pep.description}): {claim}; {nz} of "
                     f"{len(pep.constraints)} {kind} multipliers, rational, >= 0; Q PSD by exact LDL^T; "
                     "identity checked coefficient by coefficient")
    return cert
