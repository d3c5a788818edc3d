"""The ``pyfed tightness`` front end (pyfed.commands.tightness): ratios beyond the float range, the
plot's off-scale points, a bad ``--out`` refused before any work."""

import json
from fractions import Fraction as Fr

import numpy as np
import pytest

from pyfed.errors import EXIT_INPUT, EXIT_OK

from cli_helpers import forbid, one_error_line, run_main



def test_tightness_ratio_beyond_the_float_range(tmp_path, capsys):
    """A sweep whose ratio exceeds 1.8e308 prints it (certified digits) and plots it off scale."""
    code, out, err = run_main(["tightness", "--N", "2", "--d", "1", "--S", "1", "--K", "4", "--T", "40",
                            "--max-multiple", "8192", "--out", str(tmp_path)], capsys)
    assert code == EXIT_OK, err
    assert "e+418" in out and "inf" not in out.lower().replace("infinite", "")
    data = json.loads((tmp_path / "tightness.json").read_text())
    last = data["points"][-1]["ratio"]
    assert last["float"] is None and last["decimal"].endswith("e+415")
    assert (tmp_path / "tightness.png").stat().st_size > 1000


def test_tightness_plot_marks_off_scale_points():
    import matplotlib.pyplot as plt

    from pyfed.commands.tightness import sweep_figure
    from pyfed.engines.tightness import SweepPoint, SweepResult
    pts = [SweepPoint(Fr(1), Fr(1), Fr(1), Fr(1), Fr(2), Fr(1, 2), "holds", True),
           SweepPoint(Fr(2), Fr(2), Fr(2), Fr(10) ** 500, Fr(1), Fr(10) ** 500, "inconclusive", False,
                      inequality="violated", failing=("step_size",))]
    fig = sweep_figure(SweepResult(pts, pts[1], None, {"N": 2}))
    try:
        texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert any("off scale" in t for t in texts)
        ys = [y for line in fig.axes[0].get_lines() for y in np.atleast_1d(line.get_ydata())]
        assert all(np.isfinite(float(y)) for y in ys)
    finally:
        plt.close(fig)


@pytest.mark.parametrize("argv", [["--out", ""], ["--out", "/proc/pyfed-out"]])
def test_bad_output_is_refused_before_work(argv, monkeypatch, capsys):
    forbid(monkeypatch, "pyfed.commands.tightness", "tightness_sweep")
    forbid(monkeypatch, "pyfed.engines.pep", "sweep_scaffold")
    forbid(monkeypatch, "pyfed.lean.render", "write_all")
    code, out, err = run_main(["tightness"] + argv, capsys)
    assert code == EXIT_INPUT
    one_error_line(err, "--out")
