"""Tests for pyfed.blas: the BLAS thread limit of the small-matrix kernels."""

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from pyfed.algorithms import scaffold
from pyfed.blas import SMALL_DIMENSION, blas_thread_limit, small_matrix_kernel, small_matrix_threads
from pyfed.errors import InputError
from pyfed.oracles import GaussianOracle
from pyfed.problems import random_quadratic


def _blas_threads():
    return {i["filepath"]: i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"}


def test_thread_limit_from_the_environment(monkeypatch):
    monkeypatch.delenv("PYFED_BLAS_THREADS", raising=False)
    assert blas_thread_limit() == 1
    monkeypatch.setenv("PYFED_BLAS_THREADS", " 3 ")
    assert blas_thread_limit() == 3
    monkeypatch.setenv("PYFED_BLAS_THREADS", "Default")
    assert blas_thread_limit() is None
    for bad in ("0", "-2", "two", "1.5"):
        monkeypatch.setenv("PYFED_BLAS_THREADS", bad)
        with pytest.raises(InputError) as e:
            blas_thread_limit()
        assert e.value.argument == "PYFED_BLAS_THREADS"


def test_small_matrices_run_with_one_thread_and_the_limit_is_restored(monkeypatch):
    monkeypatch.delenv("PYFED_BLAS_THREADS", raising=False)
    before = _blas_threads()
    if not before:   # pragma: no cover (a numpy whose BLAS threadpoolctl cannot see)
        pytest.skip("no BLAS library visible to threadpoolctl")
    with small_matrix_threads(SMALL_DIMENSION):
        assert set(_blas_threads().values()) == {1}
    assert _blas_threads() == before
    with small_matrix_threads(SMALL_DIMENSION + 1):    # large matrices: untouched
        assert _blas_threads() == before
    monkeypatch.setenv("PYFED_BLAS_THREADS", "default")
    with small_matrix_threads(2):
        assert _blas_threads() == before


def test_kernel_decorator_limits_during_the_call_only(monkeypatch):
    monkeypatch.delenv("PYFED_BLAS_THREADS", raising=False)
    seen = []

    @small_matrix_kernel
    def kernel(problem, k):
        """doc"""
        seen.append(set(_blas_threads().values()))
        return k + 1

    class P:
        d = 4

    before = _blas_threads()
    if not before:   # pragma: no cover
        pytest.skip("no BLAS library visible to threadpoolctl")
    assert kernel(P(), 1) == 2 and seen == [{1}] and kernel.__doc__ == "doc"
    assert _blas_threads() == before


def test_simulation_results_do_not_depend_on_the_limit(monkeypatch):
    problem = random_quadratic(5, 3, np.random.default_rng(0))
    oracle = GaussianOracle(problem, 0.5)
    kw = dict(S=2, K=3, T=4, eta_l=0.05, eta_g=1.0, R=6, rng=7)
    monkeypatch.delenv("PYFED_BLAS_THREADS", raising=False)
    one = scaffold(problem, oracle, **kw).x
    monkeypatch.setenv("PYFED_BLAS_THREADS", "default")
    assert np.array_equal(scaffold(problem, oracle, **kw).x, one)


def test_the_library_list_is_reused_until_a_module_is_imported(monkeypatch):
    import sys
    import types

    from pyfed.blas import _controller

    first = _controller()
    assert _controller() is first           # no import in between: /proc/self/maps is not read again
    monkeypatch.setitem(sys.modules, "pyfed_test_dummy_module", types.ModuleType("pyfed_test_dummy_module"))
    second = _controller()
    assert second is not first and _controller() is second
