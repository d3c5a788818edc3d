"""pyfed.conform.nvflare: NVIDIA FLARE's FedAvg and Scaffold controllers (the real package, run in
process) characterised against seed 002 and Algorithm 1."""

from __future__ import annotations

from fractions import Fraction as Q

import pytest

from pyfed.conform import conform

pytest.importorskip("nvflare", reason="NVIDIA FLARE (pip install 'pyfed[nvflare]') is not installed")

from pyfed.conform import nvflare as nv  # noqa: E402


def test_fedavg_controller_is_fedavg_without_global_step():
    rep = conform(nv.fedavg, "fedavg", mode="uniform", rungs=["two clients, K = 3", "global step"])
    assert rep.rungs[0].status == "conforms"
    assert rep.conforms_at_eta_g == 1 and "no global step" in rep.first_deviation.hint
    assert conform(nv.fedavg, "fedavg", mode="uniform", eta_g=1, rungs=["S = 3 of N = 4"]).conforms


def test_fedavg_controller_with_count_weights_is_a_ratio_estimator():
    d = conform(nv.fedavg_counts, "fedavg", mode="weighted", eta_g=1, rungs=["S = 2 of N = 4"]).first_deviation
    assert d.quantity == "aggregation weights" and d.observed == [Q(2, 7), Q(5, 7)]
    assert "normalised within the sampled set" in d.hint


def test_scaffold_controller_lacks_s_over_n():
    rep = conform(nv.scaffold, "scaffold", option="II", rungs=["two clients, K = 3", "S = 2 of N = 4"])
    assert rep.rungs[0].status == "conforms"                    # full participation: Algorithm 1
    d = rep.first_deviation
    assert d.quantity == "server control c" and "lacks the factor S/N" in d.hint
