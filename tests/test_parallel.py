"""pyfed.parallel (Dask scale-out): index-ordered results, per-item randomness from (seed, i),
byte-identical search files and sweep results for any number of workers (a 2-process
LocalCluster), and the --workers / --scheduler errors."""

import filecmp
import os
from fractions import Fraction

import numpy as np
import pytest

from pyfed.cli import main
from pyfed.errors import InputError
from pyfed.parallel import Pool, candidate_rng, check_workers, parallel_map

distributed = pytest.importorskip("distributed")


def _draw(item, rng):
    """A task whose result depends on its own generator only."""
    return item, float(rng.random()), int(rng.integers(0, 10**9))


@pytest.fixture(scope="module")
def cluster():
    """One 2-process LocalCluster for the module (its address is used via --scheduler)."""
    import logging

    lc = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  silence_logs=logging.ERROR)
    try:
        yield lc.scheduler_address
    finally:
        lc.close()


def test_serial_map_uses_one_generator_per_index():
    """results[i] = fn(items[i], default_rng([seed, i])), in index order; no seed -> rng None."""
    items = ["a", "b", "c", "d"]
    out = parallel_map(_draw, items, seed=7)
    for i, (item, u, k) in enumerate(out):
        g = np.random.default_rng([7, i])
        assert item == items[i] and u == g.random() and k == g.integers(0, 10**9)
    assert candidate_rng(7, 2).random() == out[2][1]
    assert parallel_map(lambda item, rng: rng, [1, 2]) == [None, None]
    seen = []
    parallel_map(_draw, items, seed=1, progress=seen.append)
    assert sum(seen) == len(items)


@pytest.mark.slow
def test_map_on_a_cluster_equals_serial_for_any_chunking(cluster):
    items = list(range(37))
    ref = parallel_map(_draw, items, seed=3)
    seen = []
    with Pool(scheduler=cluster) as pool:
        assert pool.nworkers() == 2
        for chunk in (1, 5, None):
            assert pool.map(_draw, items, seed=3, chunk_size=chunk, progress=seen.append) == ref
    assert sum(seen) == 3 * len(items)


def _search(tmp, name, *extra):
    out = os.path.join(tmp, name)
    assert main(["search", "ConvexFiniteRoundConvergence", "--mutate", "drop_noise_term", "--seed", "3",
                 "--budget", "6", "--out", out, *extra]) == 0
    return out


def _same_files(a, b):
    fa, fb = sorted(os.listdir(a)), sorted(os.listdir(b))
    assert fa == fb and fa, (fa, fb)
    match, mismatch, errors = filecmp.cmpfiles(a, b, fa, shallow=False)
    assert not mismatch and not errors


@pytest.mark.slow
def test_search_files_are_byte_identical_with_two_workers(tmp_path, cluster):
    """pyfed search with --workers 2 (its own 2-process LocalCluster) and with --scheduler (the
    module's cluster) writes byte-identical files to the serial run; candidates with Nelder-Mead
    climbs (derived candidates) are included."""
    serial = _search(str(tmp_path), "serial")
    _same_files(serial, _search(str(tmp_path), "workers", "--workers", "2"))
    _same_files(serial, _search(str(tmp_path), "scheduler", "--scheduler", cluster))


@pytest.mark.slow
def test_indexed_search_records_do_not_depend_on_the_mapper():
    """The search of a run statement: the same records and verdict serially and through a pool
    that evaluates the candidates in reverse order; candidate j is a pure function of (seed, j)."""
    from pyfed.checkers.registry import statements_of
    from pyfed.models.scaffold.candidates import candidate
    from pyfed.models.scaffold.search import search

    (st,) = statements_of("ConvexFiniteRoundConvergence", mutate="drop_noise_term")

    class ReversePool:
        def map(self, fn, items, *, seed=None, progress=None):
            out = [fn(item, None) for item in reversed(list(items))]
            return out[::-1]

    a = search(st, seed=11, budget=2)
    b = search(st, seed=11, budget=2, pool=ReversePool())
    assert [(r.index, r.status, r.lhs, r.rhs) for r in a.records] == [(r.index, r.status, r.lhs, r.rhs) for r in b.records]
    assert a.verdict.status == b.verdict.status == "violated"     # the mutation is caught
    assert a.verdict.details["index"] == b.verdict.details["index"]
    n = len(a.records) - 2
    first, again = candidate(st, 11, n)[0], candidate(st, 11, n)[0]
    assert first.parameters() == again.parameters()


@pytest.mark.slow
def test_sweeps_on_a_cluster_equal_serial(cluster):
    """tightness and PEP worst-case sweeps: the same points through the map on 2 workers."""
    from pyfed.engines.pep import sweep_scaffold
    from pyfed.engines.tightness import default_instance, tightness_sweep

    P = default_instance(0, N=3, d=1)
    kw = dict(S=2, K=2, T=3, multiples=[Fraction(1, 2), 1, 64, 512], bisect=2)
    a = tightness_sweep(P, Fraction(1, 2), **kw)
    b = tightness_sweep(P, Fraction(1, 2), scheduler=cluster, **kw)
    assert a.to_json() == b.to_json()
    grid = dict(multiples=(1, 81), Ks=(1,), mus=(0,), Ts=(2,), N=2, verify=False)
    ra = sweep_scaffold(**grid)
    rb = sweep_scaffold(scheduler=cluster, **grid)

    def solved(r):  # everything but the wall-clock seconds
        j = r.to_json()
        j.pop("solve_time_s")
        return j
    assert [solved(r) for r in ra] == [solved(r) for r in rb]
    assert ra[0].worst is not None and ra[0].worst == rb[0].worst


@pytest.mark.parametrize("workers,scheduler,arg", [
    (0, None, "--workers"), (-1, None, "--workers"), (1.5, None, "--workers"), (True, None, "--workers"),
    (2, "tcp://127.0.0.1:1", "--workers"), (None, "", "--scheduler"),
])
def test_invalid_workers_and_scheduler(workers, scheduler, arg):
    with pytest.raises(InputError) as e:
        check_workers(workers, scheduler)
    assert e.value.argument == arg


@pytest.mark.slow
def test_unreachable_scheduler_is_a_clear_error(tmp_path, capsys):
    code = main(["search", "SamplingVarianceBound", "--budget", "1", "--out", str(tmp_path),
                 "--scheduler", "tcp://127.0.0.1:9"])
    assert code == 2
    err = capsys.readouterr().err
    assert "--scheduler" in err and "Traceback" not in err
