"""pyfed.algorithms.rounds: the blocks of the client-major layout (layout_blocks) and the guarantee
that cutting a client's row of replicates into pieces changes neither the random draws nor (beyond
rounding) the trajectories, for the minibatch oracle of the real-data instances."""

from __future__ import annotations

import numpy as np
import pytest

import pyfed.algorithms.rounds as rounds
from pyfed.algorithms import fedavg, scaffold, scaffold_run
from pyfed.algorithms.fedavg_shadow import fedavg_shadow
from pyfed.algorithms.fedprox import fedprox
from pyfed.oracles import MinibatchOracle
from pyfed.problems import LogisticProblem


def test_layout_blocks_cover_the_layout_in_c_order(monkeypatch):
    monkeypatch.setattr(rounds, "CLIENT_BLOCK_ENTRIES", 12)
    # rows that fit: whole rows grouped (12 // (2 * 3) = 2 rows per block)
    assert rounds.layout_blocks((5, 2), 3) == [(slice(0, 2),), (slice(2, 4),), (slice(4, 5),)]
    # a row of 10 replicates x d = 3 is longer than a block: pieces of 4 replicates, row by row
    blocks = rounds.layout_blocks((2, 10), 3)
    assert blocks[:3] == [(slice(0, 1), slice(0, 4)), (slice(0, 1), slice(4, 8)), (slice(0, 1), slice(8, 10))]
    a = np.arange(2 * 10 * 3).reshape(2, 10, 3)
    assert np.array_equal(np.concatenate([a[b].ravel() for b in blocks]), a.ravel())   # C order, each once
    # the sorted layout (R*S slots) is 1-d: slices of slots
    assert rounds.layout_blocks((9,), 3) == [(slice(0, 4),), (slice(4, 8),), (slice(8, 9),)]
    # d larger than the budget: one slot per block
    assert len(rounds.layout_blocks((2, 3), 100)) == 6


@pytest.fixture(scope="module")
def lg():
    return LogisticProblem.from_dataset("breast_cancer", 4, "dirichlet", np.random.default_rng(0), lam=0.05,
                                        alpha=0.5)


def _runs(lg):
    o = MinibatchOracle(lg, 3)
    kw = dict(K=2, T=3, eta_l=0.05, R=9, rng=7)
    out = [scaffold_run(lg, o, S=2, eta_g=1.0, **kw).x, scaffold(lg, o, S=lg.N, eta_g=1.0, **kw).x,
           fedavg(lg, o, S=lg.N, eta_g=1.0, **kw).x, fedprox(lg, o, S=2, mu=1, **kw).x]
    sh = fedavg_shadow(lg, o, tau=2, T=3, eta=0.05, R=9, rng=7)
    return out + [sh.shadow, sh.drift]


def test_replicate_pieces_give_the_same_draws_and_trajectories(lg, monkeypatch):
    """With blocks of one or two slots (rows of 9 replicates cut into pieces) every simulator
    consumes the same minibatch indices in the same order, so the trajectories agree with the
    unblocked run to a relative 1e-12 (not bit for bit: batched products round by batch shape)."""
    ref = _runs(lg)
    monkeypatch.setattr(rounds, "CLIENT_BLOCK_ENTRIES", 2 * lg.d)
    new = _runs(lg)
    for a, b in zip(ref, new):
        scale = max(1.0, float(np.max(np.abs(a))))
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12 * scale)


def test_oracle_batches_are_bounded_by_the_block(lg, monkeypatch):
    """Every oracle call of the step-by-step path sees at most CLIENT_BLOCK_ENTRIES entries, whatever R."""
    seen = []
    o = MinibatchOracle(lg, 2)
    inner = MinibatchOracle.__call__

    def spy(self, y, rng, clients=None):
        seen.append(np.asarray(y).size)
        return inner(self, y, rng, clients)

    monkeypatch.setattr(MinibatchOracle, "__call__", spy)
    monkeypatch.setattr(rounds, "CLIENT_BLOCK_ENTRIES", 4 * lg.d)
    scaffold_run(lg, o, S=2, K=1, T=1, eta_l=0.05, eta_g=1.0, R=50, rng=0)
    assert seen and max(seen) <= 4 * lg.d
    # every (client, replicate) slot once in the warm start (K = 1 sample at x0) and once in the local step
    assert sum(seen) == 2 * lg.N * 50 * lg.d
