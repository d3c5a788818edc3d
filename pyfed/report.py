"""The JSON report of ``pyfed check`` (:data:`SCHEMA`), one schema for the default suite
(:func:`report_json`) and for Lean files (:func:`statement_report_json`).

Top-level keys:

* ``schema``, ``pyfed`` (version), ``seed``, ``quick``, ``replicates``, ``budget``, ``files``
  (the Lean files whose statements were checked);
* ``verdicts``: every verdict of the run in order, each with ``statement``, ``source``
  (``file:line``), ``status``, exact or certified sides, ``evidence``, ``details`` and, for an
  inconclusive row, ``reason``;
* ``statements``: one entry per statement, ours and the user's alike: ``lean_name``,
  ``statement``, ``source``, ``status`` (``violated`` if one of its verdicts is, ``holds`` if all
  hold, else ``inconclusive``), ``verdicts`` (indices into the top-level list) and, for a Lean
  file, what was read (``read``), which engines apply, the constant profile and the vacuity note;
* ``summary``: counts of verdicts (holds split into certified and numerical) and of statements;
* ``timing`` (only when asked for, ``--timing``): every wall-clock figure an engine recorded
  (solver seconds), keyed by verdict index, and each statement's engines' wall-clock seconds
  (``engine.<name>.wall_s``; for the default report's statement table ``details.search_s``),
  keyed by its name -- run-free statements included. Without it the report holds no clock readings, so
  the same command gives a byte-identical file for any ``--workers``.

Tables are printed by the command front end (:mod:`pyfed.commands.render`)."""

from __future__ import annotations

import json
from fractions import Fraction

from ._version import __version__
from .exact import cap_report, rational_str

__all__ = ["SCHEMA", "report_json", "statement_report_json", "verdict_counts", "statement_status"]

#: Name and version of the report's layout.
SCHEMA = "pyfed-report/2"


def _is_timing(key: str) -> bool:
    """Whether a details key holds a clock reading (``solve_time_s``, ``verify_s``, ``seconds``)."""
    return key == "seconds" or key.endswith(("_s", "_seconds", "_time"))


def _split_timing(obj):
    """``(obj without clock readings, {path: seconds})``: every key :func:`_is_timing` names is
    moved out, wherever it sits in ``obj``."""
    found: dict = {}

    def walk(x, path):
        if isinstance(x, dict):
            out = {}
            for k, v in x.items():
                if isinstance(k, str) and _is_timing(k) and isinstance(v, (int, float)):
                    found[".".join(path + [k])] = v
                else:
                    out[k] = walk(v, path + [str(k)])
            return out
        if isinstance(x, list):
            return [walk(v, path + [str(i)]) for i, v in enumerate(x)]
        return x

    return walk(obj, []), found


def verdict_counts(verdicts) -> dict:
    """``{"holds", "certified", "numerical", "violated", "violated_exact", "inconclusive"}``:
    counts of a list of :class:`~pyfed.verdicts.Verdict` (``certified`` + ``numerical`` =
    ``holds``; ``violated_exact`` are the violations with a certified witness)."""
    holds = [v for v in verdicts if v.status == "holds"]
    violated = [v for v in verdicts if v.status == "violated"]
    certified = sum(bool(v.certified) for v in holds)
    return {"holds": len(holds), "certified": certified, "numerical": len(holds) - certified,
            "violated": len(violated), "violated_exact": sum(bool(v.certified) for v in violated),
            "inconclusive": sum(v.status == "inconclusive" for v in verdicts)}


def statement_status(verdicts, proof=None) -> str:
    """A statement's status: ``violated`` if one of its verdicts is, ``holds`` if it has a complete
    proof (:class:`pyfed.engines.proof.proof.Proof`: the whole hypothesis region covered), else
    ``inconclusive`` -- rows that hold (an instance, a certificate at stated parameters) never
    make a statement hold."""
    if any(v.status == "violated" for v in verdicts):
        return "violated"
    if proof is not None and getattr(proof, "complete", False):
        return "holds"
    return "inconclusive"


def _json_text(value) -> str:
    """JSON text of a value json cannot write: exact rationals in full as ``"p/q"`` (any length),
    anything else as ``str``."""
    return rational_str(value) if isinstance(value, Fraction) else str(value)


def _document(head: dict, verdicts: list, statements: list, timing: bool, engine_clocks=None) -> str:
    """The report text: ``verdicts`` is ``[(Verdict, source)]``, ``statements`` the entries
    (their ``verdicts`` given as lists of Verdict objects, turned into indices here);
    ``engine_clocks``: {statement's lean_name: {engine name: seconds}}, under ``timing`` only."""
    index = {id(v): i for i, (v, _) in enumerate(verdicts)}
    vjson, clocks = [], {}
    for i, (v, source) in enumerate(verdicts):
        j = json.loads(json.dumps(v.to_json(), default=_json_text))
        if source is not None:
            j["source"] = source
        if getattr(v, "reason", ""):        # why an inconclusive row is inconclusive (JUnit's skipped reason)
            j["reason"] = str(v.reason)
        j, found = _split_timing(j)
        if found:
            clocks[str(i)] = found
        vjson.append(j)
    entries = []
    kinds: dict = {}
    for e in statements:
        vs = e.pop("verdicts")
        proof = e.pop("_proof", None)
        e = dict(e, status=statement_status(vs, proof), verdicts=[index[id(v)] for v in vs])
        if e["status"] == "holds":
            kinds[proof.kind] = kinds.get(proof.kind, 0) + 1
        e, found = _split_timing(json.loads(json.dumps(e, default=_json_text)))
        if found:
            clocks[e["lean_name"]] = found
        entries.append(e)
    st_counts = {s: sum(e["status"] == s for e in entries) for s in ("holds", "violated", "inconclusive")}
    if kinds:
        st_counts["holds_by_kind"] = dict(sorted(kinds.items()))
    doc = dict(head, schema=SCHEMA, pyfed=__version__, verdicts=vjson, statements=entries,
               summary={"verdicts": dict(verdict_counts([v for v, _ in verdicts]), total=len(verdicts)),
                        "statements": dict(st_counts, total=len(entries))})
    for name, per in (engine_clocks or {}).items():
        for eng, secs in per.items():
            clocks.setdefault(name, {})[f"engine.{eng}.wall_s"] = secs
    if timing:
        doc["timing"] = clocks
    return json.dumps(doc, indent=2, sort_keys=True, default=_json_text)


def report_json(verdicts: list, *, seed: int, quick: bool, replicates, budget=None, statements=(),
                files=(), timing: bool = False) -> str:
    """The JSON report of ``pyfed check`` on the default suite (see the module docstring):
    ``verdicts`` are the built-in theorem instances' (then the PEP row and the FedAvg rows);
    ``statements`` the ``[(display name, Verdict)]`` of :func:`pyfed.search.run_all`, one entry
    each, their verdicts appended to the top-level list; ``files`` the statement files."""
    rows = [(v, v.facts.source) for v in verdicts]
    entries = []
    for name, v in statements:
        rows.append((v, v.facts.source))
        proof = getattr(v, "proof", None)
        entries.append({"lean_name": name, "statement": v.statement, "source": v.facts.source,
                        "family": (v.details or {}).get("family"), "verdicts": [v], "_proof": proof,
                        **({"holds": proof.to_json()} if proof is not None else {})})
    head = {"seed": seed, "quick": quick, "replicates": replicates, "budget": budget, "files": [str(f) for f in files]}
    return _document(head, rows, entries, timing)


def _proof_keys(r) -> dict:
    """The proof engine's keys of a statement entry: ``holds`` (the complete proof's kind, label,
    steps and scope, or None), ``holds_partial`` (proofs of parts of the region, with their
    scopes), ``proof_attempts`` (what was tried and why it failed). Only present when the engine
    found something, so statements it has nothing to say about keep their entry as it was."""
    out = r.outcome.to_json() if getattr(r, "outcome", None) is not None else {}
    keys = {}
    if out.get("proof"):
        keys["holds"] = out["proof"]
    if out.get("partial"):
        keys["holds_partial"] = out["partial"]
    if out.get("attempts"):
        keys["proof_attempts"] = out["attempts"]
    if getattr(r, "proof_files", None):
        keys["proof_files"] = list(r.proof_files)
    return keys


def statement_report_json(reports, *, seed: int, quick: bool, replicates, budget=None, files=(),
                          timing: bool = False) -> str:
    """The JSON report of ``pyfed check FILE.lean …`` (see the module docstring): one statement
    entry per :class:`pyfed.check.StatementReport`, with what was read (parameters, hypotheses,
    sides), the engines that apply and why the others do not, the PEP note, the constant profile
    (exact thresholds capped as the verdicts' numbers are; the counterexample files written with
    ``--out`` keep every digit), the counterexample files, the vacuity note and the built-in
    instances skipped with the reason."""
    rows, entries = [], []
    for r in reports:
        st = r.statement
        for v in r.verdicts:
            rows.append((v, st.source))
        prof = cap_report(json.loads(json.dumps(r.profile, default=_json_text))) if r.profile is not None else None
        entries.append({"lean_name": st.name, "statement": st.name, "source": st.source, "family": st.family,
                        "verdicts": list(r.verdicts), "read": st.describe(), "pep": r.pep_note or "PEP row",
                        "engines": {k: {"applies": a, "why": w} for k, (a, w) in r.engines.items()},
                        "profile": prof, "exports": list(r.exports), "vacuous": bool(r.vacuous),
                        "vacuous_reason": r.vacuous, "no_instance_in_hypotheses": bool(r.no_instance),
                        "instances_tried": int(getattr(r, "tried", 0)),
                        "instances_skipped": [{"instance": n, "why": w} for n, w in getattr(r, "skipped", [])],
                        **_proof_keys(r), "_proof": getattr(r, "proof", None)})
    head = {"seed": seed, "quick": quick, "replicates": replicates, "budget": budget, "files": [str(f) for f in files]}
    return _document(head, rows, entries, timing,
                     {r.statement.name: dict(getattr(r, "engine_seconds", {}) or {}) for r in reports})
