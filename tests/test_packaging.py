"""Packaging: a non-editable install carries pyfed's Lean sources and every reader finds them.

``pip install .`` must ship ``lean/**/*.lean`` (and ``lean/MATHLIB_API.md``) as the data package
``pyfed._lean``, because ``pyfed check`` (the default suite reads
``Pyfed/Scaffold/Theorems.lean``), ``pyfed lean --check`` and ``--drift`` read them outside any
checkout. The tests build the package with setuptools' ``build_py`` (what a wheel contains, without
network, index or ``wheel`` package) into a temporary directory and run the command line from that
installed layout, from a directory that is not a checkout; a real wheel is built only when
``pip wheel --no-build-isolation`` can work offline here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from pyfed.errors import InputError
from pyfed.lean import paths, render

ROOT = Path(__file__).resolve().parents[1]
LEAN = ROOT / "lean"


def _pyproject() -> dict:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _lean_sources() -> set:
    """Every file the wheel must carry under pyfed/_lean (relative paths)."""
    files = {str(p.relative_to(LEAN)) for p in LEAN.rglob("*.lean")}
    certs = {str(p.relative_to(LEAN)) for p in (LEAN / "PyfedTest" / "Generated").glob("Certificate_*.json")}
    return files | certs | {"MATHLIB_API.md"}      # + the PEP certificates' JSON (their Lean files render from it)


def _setuptools_or_skip():
    try:
        import setuptools
    except ImportError:
        pytest.skip("setuptools is not installed in this environment: cannot build pyfed here")
    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    if (major, minor) < (62, 3):  # recursive globs ('**/*.lean') in package-data
        pytest.skip(f"setuptools {setuptools.__version__} < 62.3 cannot expand '**' in package-data")


def _copy_project(dst: Path) -> Path:
    """The files a build reads, copied so that building never writes into the checkout."""
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, dst / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".lake")
    for name in ("pyfed", "checkers", "lean"):
        shutil.copytree(ROOT / name, dst / name, ignore=ignore)
    return dst


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """``build_py`` output of a copy of the project: the package tree a wheel installs."""
    _setuptools_or_skip()
    src = _copy_project(tmp_path_factory.mktemp("src"))
    lib = tmp_path_factory.mktemp("lib")
    proc = subprocess.run([sys.executable, "-c", "from setuptools import setup; setup()", "-q",
                           "build_py", "--build-lib", str(lib)],
                          cwd=src, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        pytest.fail(f"build_py failed:\n{proc.stderr[-3000:]}")
    return lib


def _run_installed(lib: Path, cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    """``pyfed ARGV`` with only the built tree (not the checkout) importable, run in ``cwd``."""
    env = dict(os.environ, PYTHONPATH=str(lib), PYTHONNOUSERSITE="1", COLUMNS="140")
    code = "import sys; from pyfed.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


# ----------------------------------------------------------------------------- configuration

def test_package_list_matches_the_source_tree():
    """The packages are listed explicitly (the Lean data package is not discoverable): every
    Python package of pyfed/ and checkers/ must be in the list, and nothing else but pyfed._lean."""
    cfg = _pyproject()["tool"]["setuptools"]
    found = {str(p.parent.relative_to(ROOT)).replace(os.sep, ".").replace("checkers", "pyfed.checkers", 1)
             if p.parent.relative_to(ROOT).parts[0] == "checkers" else str(p.parent.relative_to(ROOT)).replace(os.sep, ".")
             for top in ("pyfed", "checkers") for p in (ROOT / top).rglob("__init__.py")
             if "__pycache__" not in p.parts}
    lean_folders = {".".join(("pyfed._lean",) + d.relative_to(LEAN).parts).rstrip(".")
                    for d in [LEAN, *LEAN.rglob("*")] if d.is_dir() and any(d.glob("*.lean"))}
    assert "pyfed._lean.Pyfed.Scaffold" in lean_folders
    # every folder of lean/ holding Lean files is a listed data package (setuptools deprecates
    # installing unlisted folders as data), and nothing else is listed
    assert set(cfg["packages"]) == found | lean_folders | {"pyfed.lean.templates"}   # + Jinja2 templates
    assert cfg["package-data"]["pyfed.lean.templates"] == ["*.j2"]
    assert len(cfg["packages"]) == len(set(cfg["packages"]))
    assert cfg["package-dir"] == {"pyfed._lean": "lean", "pyfed.checkers": "checkers"}
    assert set(cfg["package-data"]["pyfed._lean"]) == {"*.lean", "MATHLIB_API.md"}
    assert all(cfg["package-data"][p] == (["*.lean", "*.json"] if p == "pyfed._lean.PyfedTest.Generated" else ["*.lean"])
               for p in lean_folders - {"pyfed._lean"})


@pytest.mark.slow
def test_build_ships_every_lean_source_and_template(built):
    shipped = {str(p.relative_to(built / "pyfed" / "_lean")) for p in (built / "pyfed" / "_lean").rglob("*")
               if p.is_file()}
    assert shipped == _lean_sources()
    assert {"Pyfed/Scaffold/Theorems.lean", "Pyfed/Scaffold/Model.lean", "Pyfed/Exact.lean",
            "Pyfed/FedAvg/Theorems.lean", "PyfedTest/Generated/ExactValues.lean"} <= shipped
    for rel in _lean_sources():  # byte-identical copies
        assert (built / "pyfed" / "_lean" / rel).read_bytes() == (LEAN / rel).read_bytes(), rel
    templates = {p.name for p in (ROOT / "pyfed" / "lean" / "templates").glob("*.j2")}
    assert templates and {p.name for p in (built / "pyfed" / "lean" / "templates").glob("*.j2")} == templates
    assert (built / "pyfed" / "checkers" / "registry.py").is_file()
    assert not (built / "checkers").exists()       # no top-level package named `checkers` in site-packages
    assert not (built / "lakefile.lean").exists()  # no checkout marker next to the installed package


def test_real_wheel_lists_every_lean_source(tmp_path):
    """A real wheel, when one can be built offline (``pip wheel --no-build-isolation`` needs
    setuptools with bdist_wheel: setuptools >= 70.1 or the ``wheel`` package)."""
    _setuptools_or_skip()
    import importlib.util

    if importlib.util.find_spec("setuptools.command.bdist_wheel") is None and importlib.util.find_spec("wheel") is None:
        pytest.skip("neither setuptools >= 70.1 nor the 'wheel' package is installed: "
                    "pip wheel --no-build-isolation cannot build offline here (build_py test covers the contents)")
    (tmp_path / "src").mkdir()
    src = _copy_project(tmp_path / "src")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                           "-w", str(tmp_path / "dist"), str(src)], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.skip(f"pip wheel failed offline: {proc.stderr.strip().splitlines()[-1:]}")
    (whl,) = (tmp_path / "dist").glob("pyfed-*.whl")
    names = set(zipfile.ZipFile(whl).namelist())
    assert {f"pyfed/_lean/{rel}" for rel in _lean_sources()} <= names
    assert "pyfed/lean/templates/root.lean.j2" in names


# ----------------------------------------------------------------------------- source_lean_dir

def _fake_checkout(root: Path) -> Path:
    (root / "lean" / "Pyfed").mkdir(parents=True)
    (root / "lakefile.lean").write_text("-- lake\n")
    (root / "pyfed").mkdir()
    return root / "pyfed"


def _fake_site_packages(root: Path) -> Path:
    (root / "pyfed" / "_lean" / "Pyfed").mkdir(parents=True)
    return root / "pyfed"


def test_source_lean_dir_prefers_the_checkout(tmp_path):
    pkg = _fake_checkout(tmp_path / "repo")
    (pkg / "_lean" / "Pyfed").mkdir(parents=True)  # a stale in-place build does not win
    assert paths.source_lean_dir(pkg) == tmp_path / "repo" / "lean"


def test_source_lean_dir_uses_the_packaged_copy_after_an_install(tmp_path):
    pkg = _fake_site_packages(tmp_path / "site-packages")
    assert paths.source_lean_dir(pkg) == pkg / "_lean"
    # a lakefile without lean/Pyfed next to the package is no checkout
    (tmp_path / "site-packages" / "lakefile.lean").write_text("")
    assert paths.source_lean_dir(pkg) == pkg / "_lean"


def test_source_lean_dir_missing_everywhere_is_a_named_error(tmp_path):
    (tmp_path / "pyfed").mkdir()
    with pytest.raises(InputError) as e:
        paths.source_lean_dir(tmp_path / "pyfed")
    assert e.value.argument == "lean" and "reinstall pyfed" in str(e.value)


def test_source_lean_dir_of_this_checkout_ignores_the_current_directory(tmp_path, monkeypatch):
    from pyfed.lean import drift
    from pyfed.models.scaffold.model import theorems_path

    monkeypatch.chdir(tmp_path)
    assert paths.source_lean_dir() == LEAN
    assert theorems_path() == LEAN / "Pyfed" / "Scaffold" / "Theorems.lean"
    assert set(drift.parse_definitions()) == set(drift.ARITHMETIC_DEFS)  # reads this checkout's lean/


def test_checked_lean_dir_prefers_the_project_around_the_current_directory(tmp_path):
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / "lakefile.lean").write_text("")
    pkg = _fake_site_packages(tmp_path / "site")
    assert paths.checked_lean_dir(cwd=project / "sub", package_dir=pkg) == project.resolve() / "lean"
    assert paths.checked_lean_dir(cwd=tmp_path / "site", package_dir=pkg) == pkg / "_lean"


# ----------------------------------------------------------------------------- installed layout

@pytest.mark.slow
def test_installed_layout_reads_its_own_lean_copy(built, tmp_path):
    """From a directory that is no checkout, the installed package reads pyfed/_lean: the
    statements of the default suite, the generated-file check and the drift check."""
    probe = ("from pyfed.lean.paths import source_lean_dir; from pyfed.models.scaffold.model import our_statements, "
             "theorems_path; print(source_lean_dir()); print(theorems_path()); print(sorted(our_statements()))")
    env = dict(os.environ, PYTHONPATH=str(built), PYTHONNOUSERSITE="1")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == str((built / "pyfed" / "_lean").resolve())
    assert lines[1] == str((built / "pyfed" / "_lean" / "Pyfed" / "Scaffold" / "Theorems.lean").resolve())
    assert "ConvexFiniteRoundConvergence" in lines[2] and "NonconvexFiniteRoundConvergence" in lines[2]

    proc = _run_installed(built, tmp_path, "lean", "--check", "--drift")
    assert proc.returncode == 0, proc.stderr
    assert "drift check: Lean definitions agree with pyfed.theory" in proc.stdout
    assert f"generated Lean files in {(built / 'pyfed' / '_lean').resolve()} are up to date" in proc.stdout


@pytest.mark.slow
def test_installed_layout_refuses_to_render_without_a_checkout(built, tmp_path):
    """Rendering writes Lean sources: outside a checkout it is a one-line error (exit 2) and the
    installed copy is left untouched."""
    before = {p: p.stat().st_mtime_ns for p in (built / "pyfed" / "_lean").rglob("*.lean")}
    proc = _run_installed(built, tmp_path, "lean")
    assert proc.returncode == 2
    assert proc.stderr.startswith("pyfed: error: --out: no Lean project found")
    assert "run it inside a checkout" in proc.stderr and len(proc.stderr.splitlines()) == 1
    assert {p: p.stat().st_mtime_ns for p in (built / "pyfed" / "_lean").rglob("*.lean")} == before
