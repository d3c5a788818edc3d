"""Adversarial counterexample search for one of pyfed's statements, exported as JSON (the library
behind ``pyfed search``, whose front end is :mod:`pyfed.commands.search`).

    pyfed search LEAN_NAME --seed S --budget B [--relax HYPOTHESIS ...] [--mutate NAME] --out DIR

reads the statement ``LEAN_NAME`` from pyfed's Lean files (:mod:`pyfed.checkers.registry`) through
the one reader, optionally as a variant (``--mutate NAME``: a deliberately wrong edit of its Lean
text from its mutation list; ``--relax KEY``: the hypothesis KEY removed from the text), and runs
the adversarial search of its model (:meth:`pyfed.models.protocol.Model.search`).
It writes, for each conjunct with a counterexample, ``DIR/<stem>-NNN.json`` (exact: every number
a ``"p/q"`` string) and, for a statement about a SCAFFOLD run that is neither mutated nor relaxed,
a Lean file restating the theorem and the instance (:mod:`pyfed.export`); and
always ``DIR/<stem>-summary.json``: what was searched, even when nothing was found (statistics,
the tightest instance with its exact sides). Keys are sorted and nothing time-dependent is
written: the same seed and budget give byte-identical files.

Budget: one unit is one *random draw*; the structured edge cases are tried in addition, and each
candidate may be refined (hypothesis boundaries, worst points, a linear program), so
``--budget 1`` can decide, and find, several candidates.
"""

from __future__ import annotations

import json
import os
import re
import time

from pyfed.checkers.registry import catalogue, get, statements_of

from ._version import __version__
from .engines.proof.engine import combine_proofs, prove_statement
from .errors import InputError, prepare_output_dir
from .export import counterexample_record
from .models.registry import published_proof_forms
from .parallel import Pool, check_workers
from .verdicts import Inconclusive

__all__ = ["search_to_dir", "summary_path", "statement_options", "load_record", "recheck", "run_all", "file_stem",
           "statement_verdicts_json", "prepare_out", "default_statement_budget", "SEARCH_RECORD_SCHEMA"]

#: Schema of the records ``pyfed search`` writes: the counterexample records of
#: :func:`pyfed.export.counterexample_record` for every statement shape.
SEARCH_RECORD_SCHEMA = "pyfed.counterexample/1"


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.]+", "_", s)


def file_stem(lean_name: str, seed: int, budget: int, relax=(), mutate=None) -> str:
    """Deterministic file-name stem of a search's outputs (no timestamps)."""
    stem = f"{lean_name}-s{int(seed)}-b{int(budget)}"
    if relax:
        stem += "-relax-" + "+".join(_slug(r) for r in sorted(relax))
    if mutate:
        stem += "-mutate-" + _slug(mutate)
    return stem


def _dumps(obj) -> str:
    return json.dumps(obj, sort_keys=True, indent=2, default=str, ensure_ascii=True) + "\n"


def default_statement_budget(quick: bool = False) -> int:
    """Random draws per statement when none is given: 8 (2 with ``quick``)."""
    return 2 if quick else 8


def summary_path(out: str, lean_name: str, seed: int, budget: int, relax=(), mutate=None) -> str:
    """Path of the summary JSON that :func:`search_to_dir` writes for these arguments."""

    stem = file_stem(get(lean_name).bare, seed, budget, tuple(sorted(set(relax or ()))), mutate)
    return os.path.join(out, f"{stem}-summary.json")


def search_to_dir(lean_name: str, *, seed: int, budget: int, out: str, relax=(), mutate=None,
                  progress=None, workers=None, scheduler=None) -> list:
    """Run the search and write the files; returns the written counterexample JSON paths.

    Parameters: lean_name (bare or qualified); seed (int >= 0: candidate j's randomness is
    ``numpy.random.default_rng([seed, j])``); budget (int >= 0 random draws); out (directory,
    created); relax (hypothesis keys removed from the statement); mutate (a mutation name of the
    statement's list, or None); progress (callable(advance) or None); workers / scheduler: the
    candidates of a statement about a SCAFFOLD run evaluated on a Dask cluster
    (:mod:`pyfed.parallel`; the files do not depend on it).

    Raises InputError for an unknown name/mutation/relax key, a negative seed or budget, an ``out``
    that cannot be created (argument ``--out``), invalid ``--workers``/``--scheduler``.
    """


    entry = get(lean_name)
    seed, budget = int(seed), int(budget)
    if seed < 0:
        raise InputError("seed", f"must be >= 0, got {seed}")
    if budget < 0:
        raise InputError("budget", "must be >= 0")
    check_workers(workers, scheduler)
    relax = tuple(sorted(set(relax or ())))
    sts = statements_of(entry.name, mutate=mutate, relax=relax)   # unknown relax key / mutation: before any file
    prepare_out(out)
    stem = file_stem(entry.bare, seed, budget, relax, mutate)
    results = []
    with Pool(workers=workers, scheduler=scheduler) as pool:
        for st in sts:
            results.append((st, st.model.search(st, seed=seed, budget=budget, progress=progress,
                                                pool=pool if st.model.search_pool(st) else None)))
    paths, lean_files = [], []
    for st, res in results:
        v = res.verdict
        if v.status != "violated":
            continue
        i = len(paths)
        path = os.path.join(out, f"{stem}-{i:03d}.json")
        rec = _record(st, v, seed=seed, budget=budget, relax=relax, mutate=mutate, index=i)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(_dumps(rec))
        paths.append(path)
        # a Lean file restates the statement that is refuted: not for a mutated statement (it is
        # not the Lean one); with --relax only where the model's file says it is no counterexample
        if mutate is None:
            lean = st.model.counterexample_lean(st, v, rec, relax=relax)
            if lean is not None:
                with open(os.path.join(out, f"{stem}-{i:03d}.lean"), "w", encoding="utf-8", newline="\n") as fh:
                    fh.write(lean)
                lean_files.append(f"{stem}-{i:03d}.lean")
    summary = {"kind": "pyfed search summary", "statement": entry.display, "lean_declaration": entry.name,
               "file": f"lean/{entry.file}", "seed": seed, "budget": budget,
               "budget_unit": ("random draws of the search; its structured edge cases are tried in addition and each "
                               "candidate may be refined (drawn counts them all)"),
               "relax": list(relax), "mutate": mutate, "pyfed_version": __version__,
               "conjuncts": [_conjunct_summary(st, res) for st, res in results],
               "statistics": _statistics(results),
               "counterexamples": len(paths), "counterexample_files": [os.path.basename(p) for p in paths],
               "lean_files": lean_files}
    tight = [c["tightest"] for c in summary["conjuncts"] if c.get("tightest")]
    summary["tightest"] = tight[0] if tight else None
    with open(os.path.join(out, f"{stem}-summary.json"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(_dumps(summary))
    return paths


def _statistics(results) -> dict:
    keys = ("candidates", "decided", "holds", "violated", "outside_hypotheses", "undecided")
    out = {k: 0 for k in keys}
    for _, res in results:
        d = res.verdict.details or {}
        for k in keys:
            out[k] += int(d.get(k, 0) or 0)
    out["drawn"] = out["candidates"]
    return out


def _conjunct_summary(st, res) -> dict:
    d = res.verdict.details or {}
    out = {"statement": st.name, "source": st.source, "shape": st.shape, "family": st.family,
           "status": res.verdict.status}
    if d.get("tightest_instance") is not None:
        out["tightest"] = {"instance": d["tightest_instance"], "lhs": d.get("lhs_exact"), "rhs": d.get("rhs_exact"),
                           "description": d.get("tightest"),
                           "note": "the holding candidate with the largest lhs/rhs (1: the bound is attained)"}
    return out


def _record(st, v, *, seed, budget, relax, mutate, index) -> dict:
    """The counterexample record of every statement shape (:func:`pyfed.export.counterexample_record`,
    schema ``pyfed.counterexample/1``, which ``pyfed check --replay`` re-decides), with the search's
    ``relax``, ``mutate`` and ``record_index``."""
    rec = counterexample_record(st, v, seed=seed, budget=budget)
    rec.update(relax=list(relax), mutate=mutate, pyfed_version=__version__, record_index=index)
    return rec


def load_record(path: str) -> dict:
    """The full JSON record written by ``pyfed search`` (raises InputError if unreadable)."""
    try:
        with open(path, encoding="utf-8") as fh:
            rec = json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError("path", f"cannot read counterexample {path!r}: {exc}") from None
    for key in ("statement", "instance"):
        if key not in rec:
            raise InputError("path", f"{path!r} is not a pyfed counterexample (missing {key!r})")
    return rec


def recheck(path: str):
    """Re-decide a record of ``pyfed search`` exactly (the statement re-read from pyfed's Lean files
    with the record's mutation and relaxed hypotheses); returns the Verdict (run statements) or the
    decided record (run-free statements)."""

    rec = load_record(path)
    parts = str(rec["statement"]).split(".")
    while len(parts) > 1 and parts[-1].isdigit():     # a conjunct Name.1 of theorem Name
        parts.pop()
    sts = statements_of(".".join(parts), mutate=rec.get("mutate"), relax=tuple(rec.get("relax") or ()))
    st = next((s for s in sts if s.name == rec["statement"]), sts[0])
    return st.model.recheck(st, rec)


def run_all(budget=None, seed: int = 0, *, quick: bool = False, progress=None, select=None) -> list:
    """``[(display name, Verdict)]``: the adversarial search of every statement of pyfed's Lean
    files (the default report's statement table); a conjunction is violated when a conjunct is.
    Each verdict's ``proof`` attribute is the statement's complete proof
    (:func:`pyfed.engines.proof.engine.prove_statement`, every conjunct proven) or None.
    ``budget``: random draws per statement (default :func:`default_statement_budget`);
    ``select``: a predicate on the catalogue's entries (``pyfed check -k``), default all."""


    b = default_statement_budget(quick) if budget is None else int(budget)
    forms = published_proof_forms()
    out = []
    for entry in catalogue():
        if select is not None and not select(entry):
            continue
        if progress is not None:
            progress(entry.display)
        t0 = time.perf_counter()
        sts = statements_of(entry.name)
        verdicts = []
        for st in sts:
            why = st.model.search_applies(st)
            if why is not None:
                verdicts.append(Inconclusive(st.name, reason=why))
                continue
            verdicts.append(st.model.search(st, seed=seed, budget=b).verdict)
        v = next((x for x in verdicts if x.status == "violated"), verdicts[0])
        v.details = dict(v.details or {}, conjuncts=[x.status for x in verdicts], family=sts[0].family,
                         source=sts[0].source, search_s=round(time.perf_counter() - t0, 4))
        v.statement = entry.display
        # the statement's proof, when every conjunct has a complete one (the report's statement entry)
        v.proof = combine_proofs(entry.display, [prove_statement(st, forms=forms).proof for st in sts])
        out.append((entry.display, v))
    return out


def statement_verdicts_json(results) -> list:
    """JSON-ready list of ``run_all`` results (each verdict's ``to_json()``)."""
    out = []
    for name, v in results:
        j = v.to_json()
        j["details"] = json.loads(json.dumps(j.get("details") or {}, default=str))
        out.append(j)
    return out


def statement_options() -> list:
    """``[(qualified name, sorted --relax hypothesis keys, {--mutate name: description})]`` for every
    statement of pyfed's Lean files, in file order."""

    out = []
    for entry in catalogue():
        keys = sorted({h.key for st in statements_of(entry.name) for h in st.hypotheses})
        out.append((entry.name, keys, {m.name: m.description for m in entry.mutations}))
    return out


def prepare_out(out: str) -> None:
    """Create ``out`` and check that files can be written in it (InputError naming ``--out``
    with the OS reason if impossible; see :func:`pyfed.errors.prepare_output_dir`)."""

    prepare_output_dir("--out", out)
