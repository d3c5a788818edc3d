"""The ``pyfed tightness`` front end (pyfed.commands.tightness): ratios beyond the float range, the
plot's off-scale points, a bad ``--out`` refused before any work."""

import json
from fractions import Fraction as Fr

import numpy as np
import pytest

from pyfed.errors import EXIT_INPUT, EXIT_OK, InputError

from cli_helpers import forbid, one_error_line, run_main



@pytest.mark.slow
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


@pytest.mark.slow
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


def test_tightness_multiples_are_powers_of_two_up_to_the_maximum():
    from pyfed.commands.tightness import sweep_multiples
    assert sweep_multiples(4) == [Fr(1, 8), Fr(1, 4), Fr(1, 2), Fr(1), Fr(2), Fr(4)]
    assert sweep_multiples(1024)[-2:] == [Fr(512), Fr(1024)]
    for bad in (100, 0, 3):
        with pytest.raises(InputError) as e:
            sweep_multiples(bad)
        assert e.value.argument == "--max-multiple" and str(bad) in e.value.reason


@pytest.mark.parametrize("argv, arg, why", [
    (["--K", "0"], "--K", ">= 1"),
    (["--T", "0"], "--T", ">= 1"),
    (["--S", "0"], "--S", ">= 1"),
    (["--S", "5"], "--S", "cannot exceed"),           # N = 4 by default
    (["--N", "0"], "--N", ">= 1"),
    (["--seed", "-1"], "--seed", ">= 0"),
    (["--sigma=-1/2"], "--sigma", ">= 0"),
    (["--sigma", "x"], "--sigma", "rational"),
    (["--mu=-1"], "--mu", ">= 0"),
    (["--eta-g", "1/2"], "--eta-g", ">= 1"),
    (["--max-multiple", "100"], "--max-multiple", "power of two"),
])
def test_tightness_bad_numbers_are_named_errors(argv, arg, why, capsys, tmp_path):
    code, out, err = run_main(["tightness", "--out", str(tmp_path)] + argv, capsys)
    assert code == 2
    assert err.startswith(f"pyfed: error: {arg}: ") and why in err and "Traceback" not in err
    assert not (tmp_path / "tightness.png").exists()


@pytest.mark.slow
def test_tightness_summary_claims_only_the_swept_range(capsys, tmp_path):
    code, out, err = run_main(["tightness", "--out", str(tmp_path), "--T", "4", "--max-multiple", "4"], capsys)
    assert code == 0
    assert "stays below 1 at every swept h <= 4/(81 beta)" in out
    assert "up to 4" not in out
    data = json.loads((tmp_path / "tightness.json").read_text())
    assert data["points"][-1]["multiple"]["exact"] == "4" and data["first_crossing"] is None
    # inside the hypotheses (m <= 1) the status is the verdict, beyond them it is labelled
    labels = {p["multiple"]["exact"]: p["label"] for p in data["points"]}
    assert labels["1"] == "holds" and labels["2"] == "holds (beyond hyp.)"


def test_tightness_plot_title_and_legend():
    import matplotlib.pyplot as plt

    from pyfed.commands.tightness import sweep_figure
    from pyfed.engines.tightness import default_instance, tightness_sweep
    res = tightness_sweep(default_instance(0), Fr(1, 2), S=2, K=2, T=4, mu=0, multiples=[1, 512, 1024],
                          bisect=1)
    fig = sweep_figure(res)
    try:
        ax = fig.axes[0]
        title = ax.get_title()
        for part in ("N=4", "S=2", "K=2", "T=4", "sigma=1/2", "mu=0"):
            assert part in title
        legend = ax.get_legend()
        texts = [t.get_text() for t in legend.get_texts()]
        assert f"first LHS >= RHS: h = {res.first_crossing.multiple}/(81 beta)" in texts
        assert any("h = 1/(81 beta)" in t for t in texts)
        assert min(t.get_fontsize() for t in legend.get_texts()) >= 8
    finally:
        plt.close(fig)
