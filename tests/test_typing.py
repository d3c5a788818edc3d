"""The public surface type-checks: mypy in strict mode over the modules behind ``import pyfed``
and the model protocol (the list is ``[tool.mypy] files`` in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_public_modules_pass_mypy_strict():
    pytest.importorskip("mypy", reason="mypy is in the test extra (pip install -e '.[test]')")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--config-file",
                           str(ROOT / "pyproject.toml")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_checked_files_exist_and_cover_the_public_api():
    import tomllib

    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    files = cfg["files"]
    assert cfg["strict"] is True
    assert all((ROOT / f).is_file() for f in files), files
    import pyfed
    modules = {pyfed._PUBLIC[name][0] for name in pyfed._PUBLIC}
    # the reader, the pipeline and the verdicts are checked; the simulators and conform are typed at their
    # signatures (their modules are numerical kernels checked by their own tests)
    for must in ("pyfed.check", "pyfed.verdicts", "pyfed.models.registry"):
        assert must in modules and must.replace(".", "/") + ".py" in files
