"""Inventories of the Lean sources: theorem names and Mathlib names (API list).

* :func:`theorem_declarations` — every ``theorem`` declared under ``lean/`` with its
  namespace-qualified name (``SCAFFOLD.GradientGrowth``, ``FedAvg.PerRoundProgress``): the
  statement catalogue (:mod:`pyfed.checkers.registry`) must hold exactly these;
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

__all__ = ["theorem_declarations", "is_restatement", "RESTATING_LIBRARIES", "mathlib_usage", "api_list_names", "api_mismatch", "api_module_files",
           "strip_comments", "lean_files", "MATHLIB_BARE", "MATHLIB_NAMESPACES"]

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


_SCOPE_RE = re.compile(
    r"(?m)^[ \t]*(?:noncomputable[ \t]+)?(?P<kind>namespace|section|end)\b[ \t]*(?P<name>[\w.']*)")
_THEOREM_RE = re.compile(
    r"(?m)^\s*(?:@\[[^\]]*\]\s*)?(?:private\s+|protected\s+)?theorem\s+(?P<name>[\w.']+)")


def _namespaced_theorems(code: str) -> list:
    """``[(qualified name, bare name)]`` of the theorems in comment-free Lean ``code``, tracking
    ``namespace A.B`` / ``section`` / ``end`` blocks."""
    events = [(m.start(), "scope", m) for m in _SCOPE_RE.finditer(code)]
    events += [(m.start(), "theorem", m) for m in _THEOREM_RE.finditer(code)]
    stack, out = [], []       # stack of ("namespace", [parts]) / ("section", name)
    for _, what, m in sorted(events, key=lambda e: e[0]):
        if what == "scope":
            kind, name = m.group("kind"), m.group("name")
            if kind == "namespace":
                stack.append(("namespace", name.split(".")))
            elif kind == "section":
                stack.append(("section", name))
            elif stack:       # `end X` closes the innermost block
                stack.pop()
            continue
        ns = [part for kind, parts in stack if kind == "namespace" for part in parts]
        name = m.group("name")
        qualified = ".".join(ns + [name])
        out.append((qualified, qualified.split(".")[-1]))
    return out


#: Libraries under ``lean/`` that restate statements of pyfed's own names on purpose: the test
#: library and the published statements against the model.
RESTATING_LIBRARIES = ("PyfedTest", "PyfedPublished")


def is_restatement(rel) -> bool:
    """Whether ``rel`` (relative to ``lean/``) belongs to one of :data:`RESTATING_LIBRARIES`."""
    parts = Path(rel).parts
    return parts[0] in RESTATING_LIBRARIES or (len(parts) == 1 and parts[0].removesuffix(".lean") in RESTATING_LIBRARIES)


def theorem_declarations(lean_dir, sources: dict | None = None) -> dict:
    """``{qualified name: file}`` of the ``theorem``s of pyfed's library ``Pyfed/`` under
    ``lean_dir`` (the test library ``PyfedTest/`` and the published statements ``PyfedPublished/``
    restate statements of the same names on purpose), namespaces resolved
    (``FedAvg.PerRoundProgress``). ``sources`` (``{relative path: text}``) overrides or adds files.
    A qualified name declared twice raises ValueError."""
    lean_dir = Path(lean_dir)
    files = set(lean_files(lean_dir)) | set(sources or {})
    out = {}
    for rel in sorted(files):
        if is_restatement(rel):
            continue
        for qualified, _ in _namespaced_theorems(strip_comments(_read(lean_dir, rel, sources))):
            if qualified in out:
                raise ValueError(f"theorem {qualified} declared twice (second time in lean/{rel})")
            out[qualified] = rel
    return out


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


def api_module_files(api_path) -> dict:
    """``{module: Mathlib file}`` of the rows of kind ``module`` in ``MATHLIB_API.md``."""
    out = {}
    for line in Path(api_path).read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if len(cells) >= 3 and cells[1] == "module":
            out[cells[0].strip("`")] = cells[2].strip("`")
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
