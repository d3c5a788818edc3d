"""Inventories of the Lean sources: theorem names (registry check) and Mathlib names (API list).

* :func:`theorem_names` — every ``theorem`` declared under ``lean/`` (``SCAFFOLD.<name>``), split
  into checker statements and the cast theorems of ``lean/Pyfed/Exact.lean`` (covered by the
  drift check, not by a checker);
* :func:`registry_mismatch` — compares the statements with the checker registry's names;
* :func:`mathlib_usage` — the ``import Mathlib…`` modules and the Mathlib-looking names used in
  Lean code (comments and strings stripped): qualified names under Mathlib namespaces
  (``Real.``, ``MeasureTheory.``, ``ProbabilityTheory.``, ``Finset.``, ``Nat.``, ``Set.``,
  ``ENNReal.``, ``Filter.``, ``Rat.``, ``EuclideanSpace.``, ...) and bare Mathlib names from
  :data:`MATHLIB_BARE`;
* :func:`api_list_names`, :func:`api_mismatch` — the names of ``lean/MATHLIB_API.md`` and the
  used names missing from it.
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["theorem_names", "registry_mismatch", "mathlib_usage", "api_list_names",
           "api_mismatch", "strip_comments", "lean_files", "MATHLIB_BARE", "MATHLIB_NAMESPACES",
           "EXACT_FILE"]

EXACT_FILE = "Pyfed/Exact.lean"

#: Namespaces whose qualified names are Mathlib's (or core names re-exported by Mathlib).
MATHLIB_NAMESPACES = ("Real", "MeasureTheory", "ProbabilityTheory", "Finset", "Nat", "Set",
                      "ENNReal", "NNReal", "Filter", "Rat", "EuclideanSpace", "PiLp", "WithLp",
                      "Matrix", "Polynomial", "Complex", "InnerProductSpace", "Metric",
                      "Function", "Multiset", "List", "Fin", "Int", "PMF", "Mathlib")

#: Bare (unqualified) Mathlib names a Lean file here might use; each must be in the API list
#: when it appears in code.
MATHLIB_BARE = frozenset("""
EuclideanSpace inner gradient HasGradientAt HasFDerivAt fderiv Differentiable DifferentiableAt
MeasurableSpace Measure IsProbabilityMeasure IsFiniteMeasure StandardBorelSpace Filtration
StronglyMeasurable AEStronglyMeasurable MemLp Memℒp Integrable condExp condexp iCondIndepFun
CondIndepFun iIndepFun IndepFun ConvexOn StrongConvexOn LipschitzWith AddCommGroup Module
NormedAddCommGroup InnerProductSpace volume ae integral borel BorelSpace eLpNorm toReal
powersetCard indicator rpow sqrt abs card choose
""".split())

_QUALIFIED = re.compile(r"(?<![\w.])((?:" + "|".join(MATHLIB_NAMESPACES) + r")\.[A-Za-z_][\w'.]*)")
_IDENT = re.compile(r"(?<![\w.])([A-Za-z_ℒ][\w'ℒ]*)")


def lean_files(lean_dir: Path) -> list:
    """All ``*.lean`` files under ``lean_dir`` (sorted, relative paths as strings)."""
    return sorted(str(p.relative_to(lean_dir)) for p in Path(lean_dir).rglob("*.lean"))


def _read(lean_dir, rel, sources):
    if sources and rel in sources:
        return sources[rel]
    return (Path(lean_dir) / rel).read_text(encoding="utf-8")


def strip_comments(text: str) -> str:
    """Lean code without comments (``--`` lines, nested ``/- … -/`` blocks) and string literals."""
    out, i, depth, n = [], 0, 0, len(text)
    while i < n:
        if text.startswith("/-", i):
            depth += 1
            i += 2
            continue
        if depth and text.startswith("-/", i):
            depth -= 1
            i += 2
            continue
        if depth:
            i += 1
            continue
        if text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append('""')
            i = j + 1
            continue
        out.append(text[i])
        i += 1
    return "".join(out)


def theorem_names(lean_dir, sources: dict | None = None) -> tuple:
    """``(statements, exact_casts)``: dicts ``name -> file`` of the ``theorem``s under ``lean_dir``.

    ``exact_casts`` holds the theorems of ``Pyfed/Exact.lean`` (cast lemmas of the ℚ mirrors,
    covered by the drift check); ``statements`` all others outside the test library
    ``PyfedTest/`` (which restates the seed's statement verbatim, see ``PyfedTest/Seed000.lean``). A name declared twice raises
    ValueError. ``sources`` (``{relative path: text}``) overrides or adds files.
    """
    lean_dir = Path(lean_dir)
    files = set(lean_files(lean_dir)) | set(sources or {})
    statements, casts = {}, {}
    for rel in sorted(files):
        if Path(rel).parts[:1] == ("PyfedTest",) or rel == "PyfedTest.lean":
            continue  # the test library restates statements (e.g. the seed's, verbatim) on purpose
        code = strip_comments(_read(lean_dir, rel, sources))
        for m in re.finditer(r"(?m)^\s*(?:@\[[^\]]*\]\s*)?(?:private\s+|protected\s+)?theorem\s+([\w.']+)", code):
            name = m.group(1).removeprefix("SCAFFOLD.")
            target = casts if rel == EXACT_FILE else statements
            if name in statements or name in casts:
                raise ValueError(f"theorem {name} declared twice (second time in lean/{rel})")
            target[name] = rel
    return statements, casts


def registry_mismatch(statement_names, registry_names) -> dict:
    """``{"missing_checker": [...], "missing_theorem": [...]}`` (both empty when one-for-one)."""
    s, r = set(statement_names), set(registry_names)
    return {"missing_checker": sorted(s - r), "missing_theorem": sorted(r - s)}


def mathlib_usage(lean_dir, sources: dict | None = None) -> dict:
    """``{"modules": {module: [files]}, "names": {name: [files]}}`` used in Lean code."""
    lean_dir = Path(lean_dir)
    files = set(lean_files(lean_dir)) | set(sources or {})
    modules, names = {}, {}
    for rel in sorted(files):
        code = strip_comments(_read(lean_dir, rel, sources))
        for m in re.finditer(r"(?m)^\s*import\s+(\S+)", code):
            if m.group(1) == "Mathlib" or m.group(1).startswith("Mathlib."):
                modules.setdefault(m.group(1), []).append(rel)
        for m in _QUALIFIED.finditer(code):
            names.setdefault(m.group(1).rstrip("."), []).append(rel)
        for m in _IDENT.finditer(code):
            if m.group(1) in MATHLIB_BARE:
                names.setdefault(m.group(1), []).append(rel)
    return {"modules": modules, "names": names}


def api_list_names(api_path) -> set:
    """First-column names (inside backticks) of the table in ``MATHLIB_API.md``."""
    out = set()
    for line in Path(api_path).read_text(encoding="utf-8").splitlines():
        m = re.match(r"\|\s*`([^`]+)`\s*\|", line)
        if m:
            out.add(m.group(1))
    return out


def api_mismatch(lean_dir, api_path=None, sources: dict | None = None) -> dict:
    """Used Mathlib modules/names missing from the API list: ``{"modules": [...], "names": [...]}``.

    A dotted name is covered if it, or its last component (``B.card`` style dot notation is
    listed by the field name), is listed.
    """
    lean_dir = Path(lean_dir)
    listed = api_list_names(api_path or lean_dir / "MATHLIB_API.md")
    used = mathlib_usage(lean_dir, sources)
    missing_mod = sorted(m for m in used["modules"] if m not in listed)
    missing = sorted(n for n in used["names"] if n not in listed)
    return {"modules": missing_mod, "names": missing}
