"""pyfed.conform.state and the purity rule: attribute fingerprints, a stateful correct adapter
reported as stateful and run path by path, hidden state caught on a repeated input, an adapter that
keeps state and cannot be copied refused with the attribute named."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from pyfed.conform import AdapterError, conform, load_adapter
from pyfed.conform.state import changed, fresh_copy, snapshot

ROOT = Path(__file__).resolve().parents[1]
ZOO = ROOT / "examples" / "conformance"
DATA = ROOT / "tests" / "data" / "conform" / "adapters.py"


class Holder:
    def __init__(self):
        self.w = np.zeros(2)
        self.rng = np.random.default_rng(0)
        self.table = {"a": [1, 2]}


def test_snapshot_names_what_changed():
    h = Holder()
    before = snapshot(h)
    assert changed(before, snapshot(h)) == []
    h.w[0] = 1.0
    h.rng.random()
    h.table["a"].append(3)
    h.new = 1
    assert changed(before, snapshot(h)) == ["new", "rng", "table", "w"]
    assert snapshot(lambda inp: inp) == {}
    assert isinstance(fresh_copy(h), Holder)


def test_stateful_correct_scaffold_is_reported_and_conforms():
    rep = conform(load_adapter(f"{ZOO / 'correct_scaffold_stateful.py'}:Scaffold"), option="II",
                  rungs=["one client", "S = 2 of N = 4"])
    assert rep.conforms
    st = rep.state
    assert st.stateful and st.sequential and {"clients", "server_control", "model"} <= set(st.attributes)
    assert "init" in st.first_seen and "fresh copy" in st.text()


def test_hidden_state_is_caught_on_a_repeated_input():
    d = conform(load_adapter(f"{DATA}:hidden_state"), "fedavg", mode="uniform", rungs=["global step"]).first_deviation
    assert d.kind == "state" and "keeps state outside them" in d.hint and d.round == 1


def test_uncopyable_stateful_adapter_is_refused():
    with pytest.raises(AdapterError) as exc:
        conform(load_adapter(f"{DATA}:Uncopyable"), "fedavg", mode="uniform", rungs=["one client"])
    msg = str(exc.value)
    assert "keeps state between calls" in msg and "rounds" in msg and "cannot be copied" in msg
