"""pyfed.conform.pfl: Apple's pfl FederatedAveraging and SCAFFOLD (the real package, its algorithm
classes run in process on a numpy model) characterised against seed 002 and Algorithm 1."""

from __future__ import annotations

import pytest

from pyfed.conform import conform

pytest.importorskip("pfl", reason="Apple's pfl (pip install 'pyfed[pfl]') is not installed")

from pyfed.conform import pfl as pf  # noqa: E402


def test_federated_averaging_conforms():
    assert conform(pf.fedavg, "fedavg", mode="uniform", rungs=["two clients, K = 3", "global step"]).conforms


def test_scaffold_option_two_control_has_the_model_change_reversed():
    d = conform(pf.scaffold, "scaffold", option="II", rungs=["one client"]).first_deviation
    assert d.quantity == "client control c_0" and d.round == 1
    assert "(y_{i,K} - x)/(K eta_l) instead of (x - y_{i,K})/(K eta_l)" in d.hint


def test_scaffold_option_one_control_is_negated():
    d = conform(pf.scaffold_option_one, "scaffold", option="I", rungs=["one client"]).first_deviation
    assert d.quantity == "client control c_0" and "-g_i(x)" in d.hint
