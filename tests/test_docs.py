"""The documentation site (docs/): it builds offline with Sphinx with warnings as errors, documents
exactly the public API of `pyfed/__init__.py` (`_PUBLIC`), every subcommand of the CLI, and keeps
what the README used to say (the README is short now; its long text moved here)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _pages() -> dict:
    return {p.relative_to(DOCS).as_posix(): p.read_text(encoding="utf-8") for p in sorted(DOCS.rglob("*.md"))}


def test_the_python_api_page_documents_exactly_the_public_names():
    import pyfed

    page = (DOCS / "reference" / "python-api.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"\.\. auto(?:function|class|exception):: pyfed\.(\w+)", page))
    assert documented == set(pyfed._PUBLIC)


def test_every_page_is_in_a_toctree_and_the_structure_is_diataxis():
    pages = _pages()
    index = pages["index.md"]
    for name in pages:
        if name != "index.md":
            assert name[:-3] in index, name
    for part in ("tutorials/", "howto/", "explanation/", "reference/"):
        assert any(n.startswith(part) for n in pages), part
    for need in ("howto/scaffold-run.md", "howto/fedavg-run.md", "howto/procedures.md", "howto/function-class.md",
                 "howto/profiles.md", "howto/certificates.md", "howto/conformance.md", "howto/dask.md",
                 "howto/paper-experiment.md", "reference/cli.md", "reference/json-report.md",
                 "reference/exit-statuses.md", "reference/lean-vocabulary.md", "reference/benchmarks.md",
                 "explanation/verdicts.md", "explanation/engines.md", "explanation/exactness.md",
                 "explanation/model.md"):
        assert need in pages, need


def test_what_the_readme_said_is_findable_in_the_docs():
    text = " ".join(" ".join(_pages().values()).split())
    for phrase in ("DIVERGENCE_THRESHOLD", "sigma_sq", "diverged at round", "random draw", "OPENBLAS_CORETYPE",
                   "PYFED_CACHE_DIR", "PYFED_BLAS_THREADS", "pyfed-report/2", "pyfed.counterexample/1",
                   "--max-memory", "MAX_NUMERAL_DIGITS", "lake exe cache get", "prove2me/formalpedia",
                   "Flower's FedAvg averages the returned models", "flower_scaffold.py", "heterogeneity_rounds.png",
                   "pyfed lean --verify-certificates DIR", "excludes_violation", "Fourier–Motzkin",
                   "`--budget: must be >= 1, got 0`", "Dimension 0", "holds (numerical)", "Karimireddy et al.",
                   "tabs are not allowed; please configure your editor to expand them", "MAX_TERM_DEPTH",
                   "--junit-xml", "[tool.pyfed]", "| 5 |"):
        assert phrase in text, phrase
    # the adapter's inputs are all named (they were found only in an example before)
    tutorial = _pages()["tutorials/test-your-code.md"]
    for field in ("`sampled`", "`S`, `N`, `d`", "`counts`", "`oracle(i, y)`", "`eta_l`"):
        assert field in tutorial, field


def test_every_subcommand_is_in_the_generated_cli_reference():
    from pyfed.commands import SUBCOMMANDS

    page = (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    assert ":func: build_parser" in page and ":module: pyfed.cli" in page
    assert len(SUBCOMMANDS) >= 8


@pytest.mark.slow
def test_the_site_builds_offline_without_warnings(tmp_path):
    pytest.importorskip("sphinx", reason="the docs extra (sphinx, myst-parser, sphinx-argparse) is not installed")
    pytest.importorskip("myst_parser", reason="myst-parser is not installed")
    pytest.importorskip("sphinxarg", reason="sphinx-argparse is not installed")
    out = tmp_path / "html"
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", "-q", str(DOCS), str(out)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-4000:]
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "Check your first statement in five minutes" in index
    cli = (out / "reference" / "cli.html").read_text(encoding="utf-8")
    for name in ("check", "conform", "--junit-xml", "--html", "-k"):
        assert name in cli, name
    api = (out / "reference" / "python-api.html").read_text(encoding="utf-8")
    assert "check_statement" in api and "read_file" in api
