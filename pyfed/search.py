"""Adversarial counterexample search for one statement, exported as JSON (the library behind
``pyfed search``, whose front end is :mod:`pyfed.commands.search`).

    pyfed search LEAN_NAME --seed S --budget B [--relax HYPOTHESIS ...] [--mutate NAME] --out DIR

runs the checker registered under ``LEAN_NAME`` (:mod:`pyfed.checkers.registry`) with a progress
bar and writes, per counterexample found, ``DIR/<name>-s<seed>-b<budget>[-relax-..][-mutate-..]-NNN.json``
with the instance (exact rationals as "p/q" strings), both sides exactly ("p/q") and as
floats, the margin rhs - lhs, the seed, the budget and ``pyfed.__version__`` (for the two
SCAFFOLD theorems also ``derived``: the exact dist_sq and C0, or f_gap, of the right side). Keys are
sorted and nothing time-dependent is written, so the same seed and budget give
byte-identical files. When :func:`pyfed.lean.render.render_counterexample` exists, a Lean
file stating the instance is written next to each exact JSON file (not for ``--mutate``
runs: a counterexample to a mutated statement says nothing about the Lean statement).

Every run also writes ``DIR/<stem>-summary.json`` -- what was searched, even when nothing
was found: the statement, seed, budget (its unit: random draws, see below), relax/mutate, the
search statistics (candidates drawn, structured edge cases, decided, holding, violated, ...),
the counterexample files, and the tightest holding instance with its exact lhs and rhs.

Budget: one unit is one *random draw* of the checker's search; the checker's structured edge
cases are always tried in addition, and some checkers refine each draw into further candidates
(a local optimisation, an LP worst case), so ``--budget 1`` can decide, and find, several
candidates. The summary's ``drawn`` counts them all.

``--relax KEY`` searches beyond a hypothesis (e.g. ``--relax step_size`` for
ConvexFiniteRoundConvergence samples h > 1/(81 beta)) to show what the hypothesis protects;
``--mutate NAME`` checks a deliberately wrong variant (see each checker's ``mutations``).

Read back with :func:`load_counterexample` (the instance) or :func:`recheck` (its verdict).
"""

from __future__ import annotations

import json
import os
import re

from . import __version__
from .errors import InputError

__all__ = ["search_to_dir", "summary_path", "statement_options", "load_counterexample", "load_record", "recheck", "run_all",
           "file_stem", "statement_verdicts_json", "prepare_out"]


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


def summary_path(out: str, lean_name: str, seed: int, budget: int, relax=(), mutate=None) -> str:
    """Path of the summary JSON that :func:`search_to_dir` writes for these arguments."""
    from pyfed.checkers.registry import get

    stem = file_stem(get(lean_name).lean_name, seed, budget, tuple(sorted(set(relax or ()))), mutate)
    return os.path.join(out, f"{stem}-summary.json")


def search_to_dir(lean_name: str, *, seed: int, budget: int, out: str, relax=(), mutate=None,
                  progress=None, workers=None, scheduler=None) -> list:
    """Run the search and write the files; returns the list of written counterexample JSON paths.

    Parameters: lean_name (bare or namespace-qualified); seed (int >= 0: candidate j's randomness
    is ``numpy.random.default_rng([seed, j])``); budget (int >= 0, random draws of the checker's
    search: its structured edge cases are tried in addition, 0 tries only those); out
    (directory, created); relax (hypothesis keys); mutate (mutation name or None); progress
    (callable(advance) or None, advanced as candidates are evaluated); workers (int >= 1:
    evaluate the candidates on a Dask LocalCluster of that many processes) or scheduler
    (address of an existing Dask cluster), see :mod:`pyfed.parallel`.

    The candidates are generated in order (cheap), then evaluated -- derived candidates such as
    Nelder-Mead climbs computed and every candidate checked -- through
    :func:`pyfed.parallel.Pool.map`, and merged in candidate order: the files are byte-identical
    for any number of workers, serial included (:meth:`pyfed.checkers.base.Checker.search`, indexed path).

    Also writes ``<out>/<stem>-summary.json`` (:func:`summary_path`): what was searched and the
    tightest instance found, also when there is no counterexample.

    Raises InputError for an unknown name/mutation/relax key, a negative seed or budget, an
    ``out`` that cannot be created (argument ``--out``, with the OS reason), or invalid
    ``--workers``/``--scheduler``.
    """
    from pyfed.checkers.base import num_json
    from pyfed.checkers.registry import get

    from .parallel import Pool, check_workers

    chk = get(lean_name)
    seed, budget = int(seed), int(budget)
    if seed < 0:
        raise InputError("seed", f"must be >= 0, got {seed}")
    if budget < 0:
        raise InputError("budget", "must be >= 0")
    check_workers(workers, scheduler)
    relax = tuple(sorted(set(relax or ())))
    chk.effective_relax(relax, mutate)  # unknown relax key / mutation: before anything is written
    prepare_out(out)
    report: dict = {}
    with Pool(workers=workers, scheduler=scheduler) as pool:
        def mapper(fn, items, prog):
            return pool.map(fn, items, seed=seed, progress=prog)

        records = chk.search(None, budget, relax=relax, mutate=mutate, progress=progress, report=report,
                             seed=seed, mapper=mapper)
    stem = file_stem(chk.lean_name, seed, budget, relax, mutate)
    render = None
    if mutate is None:  # a mutated statement is not the Lean statement: no Lean file for it
        try:
            from .lean.render import render_counterexample as render
        except ImportError:
            render = None
    paths = []
    for i, rec in enumerate(records):
        rec = dict(rec, seed=seed, budget=budget, pyfed_version=__version__, index=i)
        derived = _derived(chk, rec["instance"])
        if derived:
            rec["derived"] = derived
        path = os.path.join(out, f"{stem}-{i:03d}.json")
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(_dumps(rec))
        paths.append(path)
        # a Lean file needs both sides as exact rationals (not a certified ball's midpoint)
        if render is not None and rec["exact"] and "exact" in rec["lhs"] and "exact" in rec["rhs"]:
            lean_rec = {"lean_name": chk.verdict_name, "instance": chk.lean_instance(rec["instance"]),
                        "lhs": rec["lhs"]["exact"], "rhs": rec["rhs"]["exact"], "id": f"{stem}-{i:03d}",
                        "lhs_exact": True, "generated_by": "pyfed search", "relax": list(relax),
                        "data": rec["instance"],
                        "note": (f"pyfed search seed {seed} budget {budget}"
                                 + (f", relaxing {', '.join(relax)}" if relax else ""))}
            text = render(lean_rec)
            with open(os.path.join(out, f"{stem}-{i:03d}.lean"), "w", encoding="utf-8", newline="\n") as fh:
                fh.write(text)
    tight = report.get("tightest")
    tv = report.get("tightest_verdict")
    summary = {
        "kind": "pyfed search summary", "statement": chk.verdict_name, "lean_declaration": chk.qualified_name,
        "seed": seed, "budget": budget,
        "budget_unit": ("random draws of the checker's search; its structured edge cases are tried in addition "
                        "and some checkers refine each draw into further candidates (drawn counts them all)"),
        "relax": list(relax), "mutate": mutate, "pyfed_version": __version__,
        "statistics": {k: report.get(k) for k in ("drawn", "structured", "random_draws", "candidates", "holds",
                                                   "violated", "inconclusive", "vacuous")},
        "counterexamples": len(paths), "counterexample_files": [os.path.basename(p) for p in paths],
        "tightest": None if tight is None else {
            "instance": tight["instance"], "lhs": tight["lhs"], "rhs": tight["rhs"],
            "ratio": num_json(tv.ratio) if tv is not None else None, "exact": tight["exact"],
            "note": "the holding candidate with the largest lhs/rhs (lhs/rhs = 1: the bound is attained)"},
    }
    with open(os.path.join(out, f"{stem}-summary.json"), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(_dumps(summary))
    return paths


#: Numbers the two SCAFFOLD theorems' right sides are built from (seed 000): dist_sq =
#: ||x0 - x*||^2 and C0 (initial control error) for the convex one, f_gap = f(x0) - f_low for
#: the nonconvex one.
DERIVED_KEYS = ("dist_sq", "C0", "f_gap")


def _derived(chk, instance) -> dict:
    """{key: "p/q"} of :data:`DERIVED_KEYS` that ``chk.lean_instance`` derives from ``instance``
    (empty for statements without such numbers, or when they cannot be derived exactly)."""
    try:
        lean = chk.lean_instance(instance)
    except Exception:  # an instance outside the problem class (e.g. relaxed): nothing to add
        return {}
    if lean is instance or not isinstance(lean, dict):
        return {}
    return {k: str(lean[k]) for k in DERIVED_KEYS if k in lean and k not in instance}


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


def load_counterexample(path: str) -> dict:
    """The instance of a counterexample file (exact rationals as "p/q" strings), ready for
    ``checkers.get(record["statement"]).check(instance, relax=..., mutate=...)``."""
    return load_record(path)["instance"]


def recheck(path: str):
    """Re-run the checker on a counterexample file (same relax and mutation); returns the Verdict."""
    from pyfed.checkers.registry import get

    rec = load_record(path)
    return get(rec["statement"]).check(rec["instance"], relax=tuple(rec.get("relax") or ()),
                                       mutate=rec.get("mutate"))


def run_all(budget=None, seed: int = 0, *, quick: bool = False, progress=None) -> list:
    """[(lean_name, Verdict)] for every registered checker (see :func:`pyfed.checkers.registry.run_all`:
    ``budget`` random draws per checker, default each checker's own, its quick one if ``quick``)."""
    from pyfed.checkers.registry import run_all as _run_all

    return _run_all(budget=budget, seed=seed, quick=quick, progress=progress)


def statement_verdicts_json(results) -> list:
    """JSON-ready list of ``run_all`` results (each verdict's ``to_json()``)."""
    out = []
    for name, v in results:
        j = v.to_json()
        j["details"] = json.loads(json.dumps(j.get("details") or {}, default=str))
        out.append(j)
    return out


def statement_options() -> list:
    """[(lean_name, sorted --relax hypothesis keys, {--mutate name: description})] for every
    statement of the checker registry (:mod:`pyfed.checkers.registry`), in the registry's order."""
    from pyfed.checkers.registry import get, names

    out = []
    for name in names():
        chk = get(name)
        out.append((name, sorted(chk.hypothesis_keys()),
                    {k: m.description for k, m in sorted(chk.mutations.items())}))
    return out


def prepare_out(out: str) -> None:
    """Create ``out`` and check that files can be written in it (InputError naming ``--out``
    with the OS reason if impossible; see :func:`pyfed.errors.prepare_output_dir`)."""
    from .errors import prepare_output_dir

    prepare_output_dir("--out", out)
