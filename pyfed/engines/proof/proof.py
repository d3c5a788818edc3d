"""The proof of a whole statement, as exact as a violation's witness: what kind of argument it is,
every step with its certificate, and the part of the hypothesis region it covers.

Kinds (:data:`KINDS`):

* ``published`` -- the statement *is* a published statement with an accepted proof (same
  hypotheses, same sides up to the names of the bound variables);
* ``reduction`` -- it follows from one: its hypotheses imply the published ones and its right side
  dominates the published right side on its whole hypothesis region (each side condition an exact
  certificate);
* ``closed`` -- nothing is left to quantify over and the two sides were evaluated exactly;
* ``identity`` -- the two sides are equal (or ordered) as expressions of the model's algebra,
  decided symbolically on the unrolled definitions;
* ``vacuous`` -- the hypotheses have no common solution (an exact certificate refutes them);
* ``certificate`` -- a PEP certificate valid over the whole hypothesis region (homogeneity and a
  certified cover of the remaining parameter range).

A :class:`Proof` whose ``complete`` is False covers only part of the region (``scope`` says
which, e.g. "N = 2"): the statement is then inconclusive and the proof's rows are reported as
partial. Steps that failed are kept in :class:`Attempt` objects so the report can say which side
condition failed or was undecided.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["KINDS", "Step", "Proof", "Attempt", "LABELS", "Published"]

#: longest text of a proof in a JSON report (the whole text is in the Python objects and in the
#: terminal report)
_CHARS = 360


def _cap(text: str) -> str:
    return text if len(text) <= _CHARS else f"{text[:_CHARS - 40]}… ({len(text)} characters)"

KINDS = ("published", "reduction", "closed", "identity", "vacuous", "certificate")

#: The verdict label of a statement proven by each kind.
LABELS = {"published": "holds (published, proved)", "reduction": "holds (by reduction)",
          "closed": "holds (closed, decided exactly)", "identity": "holds (decided symbolically)",
          "vacuous": "holds (vacuously)", "certificate": "holds (PEP certificate over the region)"}


@dataclass(frozen=True)
class Published:
    """A published statement with an accepted proof: ``lean_name`` (qualified), ``file`` (where
    pyfed keeps its statement, ``lean/PyfedPublished/…``), ``proof`` (where the accepted proof is),
    ``source`` (the paper and place)."""

    lean_name: str
    file: str
    proof: str
    source: str = ""

    def to_json(self) -> dict:
        return {"lean_name": self.lean_name, "file": self.file, "proof": self.proof, "source": self.source}


@dataclass
class Step:
    """One step of a proof: ``claim`` (what is established, in words), ``method`` (how: "given",
    "exact certificate", "symbolic identity", …), ``ok`` (established), ``detail`` (the
    certificate's identity, or why the step failed), ``certificate`` (the exact object, e.g. a
    :class:`~pyfed.engines.proof.positivstellensatz.Certificate`, or None), ``name`` (a short
    name for the Lean skeleton's ``have``)."""

    claim: str
    method: str
    ok: bool = True
    detail: str = ""
    certificate: object = field(default=None, repr=False)
    name: str = ""
    #: the Lean proposition the step establishes, in the statement's names (for the skeleton)
    statement: str = ""

    def to_json(self) -> dict:
        out = {"claim": _cap(self.claim), "method": self.method, "ok": self.ok}
        if self.detail:
            out["detail"] = _cap(self.detail)
        if self.certificate is not None and hasattr(self.certificate, "to_json"):
            out["certificate"] = self.certificate.to_json()
        return out


@dataclass
class Proof:
    """A proof that ``statement`` holds: ``kind`` (one of :data:`KINDS`), ``steps``, ``scope``
    (the part of the hypothesis region covered: "the whole hypothesis region" when ``complete``),
    ``source`` (the published statement used and where its proof is, for ``published`` and
    ``reduction``), ``summary`` (one line), ``lean`` (the Lean skeleton or certificate file text,
    when one was written)."""

    statement: str
    kind: str
    steps: list = field(default_factory=list)
    scope: str = "the whole hypothesis region"
    complete: bool = True
    source: dict = field(default_factory=dict)
    summary: str = ""
    lean: str | None = field(default=None, repr=False)
    #: for a reduction: how the published theorem is applied in the statement's names
    #: (``{"named": [(published binder, statement's name)], "hypotheses": [Lean text, …]}``)
    application: dict = field(default_factory=dict, repr=False)

    @property
    def label(self) -> str:
        return LABELS[self.kind] if self.complete else f"holds for {self.scope} only"

    def text(self) -> str:
        """``holds — follows from X (published, proved): step; step`` (the report's line)."""
        head = self.label
        body = self.summary or "; ".join(s.claim for s in self.steps)
        return f"{head} — {body}" if body else head

    def to_json(self) -> dict:
        return {"kind": self.kind, "label": self.label, "complete": self.complete, "scope": self.scope,
                "summary": _cap(self.summary), "source": dict(self.source),
                "steps": [s.to_json() for s in self.steps]}


@dataclass
class Attempt:
    """A proof that did not go through: ``kind`` tried, ``against`` (the published statement or
    method), ``steps`` (those established and the first that failed), ``reason`` (one line)."""

    kind: str
    against: str
    reason: str
    steps: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {"kind": self.kind, "against": self.against, "reason": _cap(self.reason),
                "steps": [s.to_json() for s in self.steps]}
