"""Reports of ``pyfed check``: the JSON of the default suite (:func:`report_json`) and of a Lean
file's statements (:func:`statement_report_json`). Tables are printed by the command front end
(:mod:`pyfed.commands.check`)."""

from __future__ import annotations

import json
from fractions import Fraction

from . import __version__
from .exact import cap_report

__all__ = ["report_json", "statement_report_json"]


def report_json(verdicts: list, *, seed: int, quick: bool, replicates, statements=()) -> str:
    """The JSON report written by ``pyfed check --json``: theorem verdicts, and the statement
    checkers' verdicts (``[(lean_name, Verdict)]`` from :func:`pyfed.checkers.run_all`)."""
    return json.dumps({"pyfed": __version__, "seed": seed, "quick": quick, "replicates": replicates,
                       "verdicts": [v.to_json() for v in verdicts],
                       "statements": [dict(v.to_json(), lean_name=name) for name, v in statements]},
                      indent=2, sort_keys=True, default=str)


def _json_text(value) -> str:
    """JSON text of a value json cannot write: exact rationals in full as ``"p/q"`` (any length),
    anything else as ``str``."""
    from .exact import rational_str
    return rational_str(value) if isinstance(value, Fraction) else str(value)


def statement_report_json(reports, *, seed: int, quick: bool, replicates, path: str | None, lemmas=(),
                          files=None) -> str:
    """The JSON report of ``pyfed check FILE.lean …``: the default report's schema (``verdicts``,
    each with ``statement`` = the theorem's name) plus ``source`` (``file:line``) on every
    verdict, and per statement what was read, the PEP note and the constant profile. ``file`` is
    the checked file (None when several were checked), ``files`` every checked file in order
    (default ``[path]``)."""
    def prof_json(p):
        # exact thresholds of long-horizon instances can run to thousands of digits: capped as
        # the verdicts' numbers are (the counterexample files written with --out keep every digit)
        return cap_report(json.loads(json.dumps(p, default=_json_text))) if p is not None else None

    verdicts = []
    for r in reports:
        for v in r.verdicts:
            verdicts.append(dict(v.to_json(), source=r.statement.source))
    files = [str(f) for f in files] if files is not None else [path]
    return json.dumps({"pyfed": __version__, "seed": seed, "quick": quick, "replicates": replicates, "file": path,
                       "files": files,
                       "verdicts": verdicts,
                       "statements": [dict(v.to_json(), lean_name=name) for name, v in lemmas],
                       "read": [dict(r.statement.describe(), pep=r.pep_note or "PEP row",
                                     engines={k: {"applies": a, "why": w} for k, (a, w) in r.engines.items()},
                                     profile=prof_json(r.profile), exports=list(r.exports),
                                     vacuous=bool(r.vacuous), vacuous_reason=r.vacuous,
                                     no_instance_in_hypotheses=bool(r.no_instance),
                                     instances_tried=int(getattr(r, "tried", 0)),
                                     instances_skipped=[{"instance": n, "why": w}
                                                        for n, w in getattr(r, "skipped", [])]) for r in reports]},
                      indent=2, sort_keys=True, default=str)
