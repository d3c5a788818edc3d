"""The shape of the package: imports between pyfed's modules (``checkers/`` installed as
``pyfed.checkers`` included) form no circle, whether an import sits at the top of a module or
inside a function; and a module longer than :data:`MAX_LINES` says in its docstring why it is one
module (a paragraph starting ``Why one module:``)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 600


def _modules() -> dict:
    """``{module name: path}`` of every Python file of the installed package."""
    out = {}
    for base, prefix in ((ROOT / "pyfed", "pyfed"), (ROOT / "checkers", "pyfed.checkers")):
        for p in sorted(base.rglob("*.py")):
            rel = p.relative_to(base).with_suffix("")
            parts = [prefix] + list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = p
    return out


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def import_graph(mods: dict | None = None) -> dict:
    """``{module: {imported pyfed modules}}`` over every import statement, wherever it sits.

    Importing ``a.b.c`` from outside the package ``a.b`` first runs ``a.b/__init__.py``: that
    package is an edge too (from inside, Python has already started it, so it is not)."""
    mods = _modules() if mods is None else mods
    graph = {m: set() for m in mods}
    for m, path in mods.items():
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(m, is_pkg, node.level, node.module)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for t in targets:
                while t and t not in mods:          # `import pyfed.x.y` names the module pyfed.x.y
                    t = t.rpartition(".")[0]
                if t and t != m:
                    graph[m].add(t)
                parent = t.rpartition(".")[0]
                while parent and parent in mods and not (m == parent or m.startswith(parent + ".")):
                    graph[m].add(parent)
                    parent = parent.rpartition(".")[0]
    return graph


def circles(graph: dict) -> list:
    """The strongly connected components with more than one module (Tarjan), sorted."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    import sys
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def _package_of(m: str) -> str:
    return m if (ROOT / "pyfed").joinpath(*m.split(".")[1:]).is_dir() else m.rpartition(".")[0]


@pytest.mark.slow
def test_no_import_circle_among_modules():
    found = circles(import_graph())
    assert found == [], "import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_a_circle_through_a_package_init_is_detected(tmp_path):
    """models.r imports models.s, which reads checkers.f; checkers/__init__ imports checkers.g,
    which imports models.r: importing models.r first fails (a partially initialised module)."""
    files = {"pyfed/models/__init__.py": "", "pyfed/models/r.py": "from . import s\n",
             "pyfed/models/s.py": "from ..checkers import f\n", "pyfed/checkers/__init__.py": "from .g import x\n",
             "pyfed/checkers/f.py": "", "pyfed/checkers/g.py": "from ..models.r import y\n", "pyfed/__init__.py": ""}
    mods = {}
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        parts = rel[:-3].split("/")
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    assert circles(import_graph(mods)) == [["pyfed.checkers", "pyfed.checkers.g", "pyfed.models.r", "pyfed.models.s"]]


def test_a_circle_is_detected():
    g = {"pyfed.a": {"pyfed.b"}, "pyfed.b": {"pyfed.c"}, "pyfed.c": {"pyfed.a"}, "pyfed.d": {"pyfed.a"}}
    assert circles(g) == [["pyfed.a", "pyfed.b", "pyfed.c"]]


@pytest.mark.slow
def test_relative_imports_resolve_like_python():
    assert _resolve("pyfed.engines.statement.engines", False, 1, "search") == "pyfed.engines.statement.search"
    assert _resolve("pyfed.engines.statement", True, 1, "engines") == "pyfed.engines.statement.engines"
    assert _resolve("pyfed.engines.statement.engines", False, 3, "suites") == "pyfed.suites"
    g = import_graph()
    assert "pyfed.engines.statement.search" in g["pyfed.models.scaffold.search"]
    assert "pyfed.lean.terms" in g["pyfed.statements.declarations"]


def test_long_modules_say_why_they_are_one_module():
    missing = []
    for m, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") + 1 > MAX_LINES:
            doc = ast.get_docstring(ast.parse(text)) or ""
            if "Why one module:" not in doc:
                missing.append(f"{m} ({text.count(chr(10)) + 1} lines)")
    assert missing == [], "modules over 600 lines without a 'Why one module:' paragraph: " + ", ".join(missing)


#: Where a function may import a pyfed module: the command front ends, so that ``pyfed CMD --help``
#: and a usage error load no engine (pyfed.commands says so), and the entry point.
LAZY_IMPORTS = ("pyfed.commands", "pyfed.cli")


def function_local_imports(mods: dict) -> list:
    """``module:line`` of every import of a pyfed module inside a function, outside LAZY_IMPORTS."""
    found = []
    for m, path in mods.items():
        if m.startswith(LAZY_IMPORTS):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("pyfed")):
                    found.append(f"{m}:{node.lineno}")
                elif isinstance(node, ast.Import) and any(a.name.startswith("pyfed") for a in node.names):
                    found.append(f"{m}:{node.lineno}")
    return sorted(set(found))


def test_pyfed_modules_are_imported_at_the_top():
    assert function_local_imports(_modules()) == []


def test_a_function_local_import_is_detected(tmp_path):
    (tmp_path / "a.py").write_text("def f():\n    from .b import g\n    return g\n", encoding="utf-8")
    (tmp_path / "c.py").write_text("from .b import g\n", encoding="utf-8")
    mods = {"pyfed.a": tmp_path / "a.py", "pyfed.c": tmp_path / "c.py",
            "pyfed.commands.x": tmp_path / "a.py"}
    assert function_local_imports(mods) == ["pyfed.a:2"]


#: Test files not named after one module, each with the reason: what they test is not a module of
#: pyfed (the repository's set-up, the Lean sources under lean/) or is a behaviour across several.
NOT_A_MODULE = {
    "test_package_layout.py": "the shape of the package (this file)",
    "test_packaging.py": "the installed distribution",
    "test_readme.py": "README's commands and tables",
    "test_docs.py": "the documentation site under docs/",
    "test_browser.py": "the HTML report and the documentation site in headless Chromium",
    "test_lean_lake.py": "lake build / lake test of the Lean sources under lean/",
    "test_lean_seed.py": "seed 000's statement restated in the Lean sources under lean/",
    "test_lean_published.py": "the Lean sources under lean/ against the published formalization",
    "test_statement_edge_cases.py": "edge-case statements through `pyfed check PATH.lean`, reader to report",
    "test_witness.py": "counterexample records: instance schema, replay and Lean export together",
    "test_typing.py": "the type checker over the public modules (pyproject.toml [tool.mypy] files)",
    "test_api.py": "the public API (`import pyfed`, pyfed/__init__.py) and examples/api_tour.py on it",
}


def module_test_names() -> dict:
    """``{name: module}`` of the test-file names that are named after a module of pyfed: for the
    module ``pyfed.a.b.c`` (a package counts, ``pyfed.checkers`` included), ``test_a_b_c.py``,
    ``test_b_c.py`` and ``test_c.py`` (leading package names may be dropped)."""
    out = {}
    for m in _modules():
        parts = m.split(".")[1:]
        for i in range(len(parts)):
            out.setdefault("test_" + "_".join(parts[i:]) + ".py", m)
    return out


def test_every_test_file_is_named_after_a_module():
    names = module_test_names()
    files = sorted(p.name for p in (ROOT / "tests").glob("test_*.py"))
    unnamed = [f for f in files if f not in names and f not in NOT_A_MODULE]
    assert unnamed == [], f"name these after the module they test (tests/test_<module>.py): {unnamed}"
    assert sorted(set(NOT_A_MODULE) - set(files)) == []          # the list names existing files only
    assert sorted(set(NOT_A_MODULE) & set(names)) == []          # and none that is named after a module


def test_module_test_names_follow_the_dotted_path():
    names = module_test_names()
    assert names["test_commands_check.py"] == "pyfed.commands.check"
    assert names["test_models_scaffold_profile.py"] == names["test_scaffold_profile.py"] == "pyfed.models.scaffold.profile"
    assert names["test_checkers_registry.py"] == "pyfed.checkers.registry"
    assert names["test_engines_exact.py"] == "pyfed.engines.exact"
    assert "test_hardening.py" not in names and "test_engines.py" in names      # pyfed.engines, a package


# ----------------------------------------------------------------------------- the model protocol

#: The models' tags (a statement's ``shape``): only the model packages say them (the run-free
#: model's tag ``lemma`` is also a Lean keyword, so only its comparisons with ``.shape`` count).
MODEL_TAGS = {"scaffold_run", "fedavg_run"}
#: Where ``"scaffold_run"`` names the seed-000 simulator (pyfed.algorithms.scaffold_run, public as
#: ``pyfed.scaffold_run``) and the exact-moment engine's algorithm of that name, not a statement model.
ALGORITHM_NAME_USERS = ("pyfed.algorithms", "pyfed.engines.exact")


def _model_package(module: str) -> str | None:
    """``pyfed.models.<model>`` when ``module`` is inside a model package, else None."""
    parts = module.split(".")
    if len(parts) >= 3 and parts[:2] == ["pyfed", "models"] and parts[2] not in ("registry", "protocol"):
        return ".".join(parts[:3])
    return None


def test_only_the_registry_imports_a_model_package():
    """A model is one package behind the protocol: the pipeline, the generic engines, the commands
    and the other models reach it through a statement's ``model`` or the registry, never by
    importing its modules."""
    bad = []
    for m, targets in import_graph().items():
        own = _model_package(m)
        for t in targets:
            pkg = _model_package(t)
            if pkg is not None and pkg != own and m != "pyfed.models.registry":
                bad.append(f"{m} imports {t}")
    assert bad == [], "imports of a model package's internals: " + "; ".join(sorted(bad))


def _shape_dispatch(tree) -> list:
    """``(line, what)`` of every dispatch on a statement's model outside its package: a comparison
    with ``.shape`` or ``.family``, ``getattr(…, "shape")``, a model tag as a string."""
    out = []

    def strings(n) -> bool:
        if isinstance(n, ast.Constant):
            return isinstance(n.value, str)
        return isinstance(n, (ast.Tuple, ast.List, ast.Set)) and bool(n.elts) and all(strings(e) for e in n.elts)

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            for side in sides:
                if isinstance(side, ast.Attribute) and side.attr in ("shape", "family") \
                        and any(strings(o) for o in sides if o is not side):
                    out.append((node.lineno, f"compares .{side.attr}"))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and node.args[1].value in ("shape", "family"):
            out.append((node.lineno, f"getattr(…, {node.args[1].value!r})"))
        if isinstance(node, ast.Constant) and node.value in MODEL_TAGS:
            out.append((node.lineno, f"the model tag {node.value!r}"))
    return out


def test_no_model_dispatch_outside_the_model_packages():
    """No ``if st.shape == …``: what differs between models is a method of the model."""
    bad = []
    for m, path in _modules().items():
        if _model_package(m) is not None or m == "pyfed.models.registry":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, what in _shape_dispatch(tree):
            if what == "the model tag 'scaffold_run'" and (m == "pyfed" or m.startswith(ALGORITHM_NAME_USERS[:2])):
                continue
            bad.append(f"{m}:{line}: {what}")
    assert bad == [], "model dispatch outside pyfed/models: " + "; ".join(bad)


def test_model_dispatch_is_detected():
    tree = ast.parse('if st.shape == "lemma":\n    pass\nx = getattr(st, "family", "")\n'
                     'y = {"fedavg_run": 1}\nz = a.shape == b.shape\n')
    assert [w for _, w in _shape_dispatch(tree)] == ["compares .shape", "getattr(…, 'family')",
                                                      "the model tag 'fedavg_run'"]


# ----------------------------------------------------------------------------- one evaluator

#: The one evaluator of Lean terms (a ``_k_<kind>`` method per term kind) and the one module of
#: Lean's arithmetic conventions on numbers.
EVALUATOR = "pyfed.evaluation.evaluator"
LEAN_ARITHMETIC = "pyfed.evaluation.numbers"
LEAN_ARITHMETIC_NAMES = {"nat_arith", "lean_div", "lean_sqrt", "lean_rpow", "lean_minmax", "lean_abs", "lean_log",
                         "lean_exp", "decide_sign"}
#: The modules that evaluate terms (formerly each with its own evaluator), each through the one.
EVALUATOR_USERS = ("pyfed.statements.evaluate", "pyfed.statements.interpret", "pyfed.models.fedavg.access",
                   "pyfed.models.runfree.pep", "pyfed.lean.drift")
#: Operations on values per term kind: a class with three of them is a value domain of the evaluator.
DOMAIN_OPERATIONS = {"binop", "neg", "inv", "norm", "norm_sq", "power", "numeral", "cast", "coerce", "summand"}


def _evaluation_layout(modules=None) -> list:
    """What breaks "one evaluator" among ``modules`` (default: every module): per-kind methods
    outside it, Lean's arithmetic defined twice, a class of per-kind value operations that is not a
    Domain, a former evaluator that does not import the evaluator."""
    modules = modules if modules is not None else _modules()
    bad, bases, classes = [], {}, []
    for m, path in modules.items():
        imported = set()
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(n, ast.ImportFrom):
                imported.add(_resolve(m, path.name == "__init__.py", n.level, n.module))
            elif isinstance(n, ast.FunctionDef):
                if n.name.startswith("_k_") and m != EVALUATOR:
                    bad.append(f"{m}.{n.name}: a per-kind evaluation method outside {EVALUATOR}")
                if n.name in LEAN_ARITHMETIC_NAMES and m != LEAN_ARITHMETIC:
                    bad.append(f"{m}.{n.name}: Lean's arithmetic defined outside {LEAN_ARITHMETIC}")
            elif isinstance(n, ast.ClassDef):
                bases[n.name] = [b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in n.bases]
                ops = {f.name for f in n.body if isinstance(f, ast.FunctionDef)} & DOMAIN_OPERATIONS
                if len(ops) >= 3:
                    classes.append((m, n.name, ops))
        if m in EVALUATOR_USERS and EVALUATOR not in imported:
            bad.append(f"{m}: evaluates terms without {EVALUATOR}")

    def is_domain(name, seen=()):
        return name == "Domain" or any(b not in seen and is_domain(b, seen + (name,)) for b in bases.get(name, []))
    bad += [f"{m}.{c}: value operations per term kind ({', '.join(sorted(ops))}) outside a Domain"
            for m, c, ops in classes if not is_domain(c)]
    return bad


def test_one_evaluator_implements_the_term_kinds():
    assert _evaluation_layout() == []


def test_a_second_evaluator_is_detected():
    copy = {EVALUATOR: _modules()[EVALUATOR], "pyfed.statements.copy": _modules()[EVALUATOR],
            "pyfed.lean.drift": ROOT / "pyfed" / "lean" / "terms.py"}
    bad = _evaluation_layout(copy)
    assert any("pyfed.statements.copy._k_binop" in b for b in bad)
    assert "pyfed.lean.drift: evaluates terms without pyfed.evaluation.evaluator" in bad
