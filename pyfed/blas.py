"""BLAS thread limits for the small dense matrices of the simulators.

The quadratic simulators multiply many small matrices (an (m, d) block by a (d, d) Hessian,
d in the tens) and decompose N Hessians of size d x d. A multithreaded BLAS gains nothing on
such sizes, and on a machine whose cores are busy its threads wait for each other: measured on
2 cores at load 8, a run of 100 eigendecompositions and products with d = 50 took 10-20 times
longer with OpenBLAS's default 2 threads than with one (benchmarks/bench_scaffold.py). The
kernels that work on such matrices therefore run under :func:`small_matrix_threads`, which
limits the BLAS libraries loaded in the process (threadpoolctl) to one thread for the duration
of the call, and restores the previous limit afterwards.

``PYFED_BLAS_THREADS`` (environment) changes the limit: a positive integer, or ``default`` for
no limit (the BLAS library's own setting). The limit is process-wide while it is in force:
another thread of the same process calling BLAS meanwhile gets it too.

The BLAS libraries of the process are listed once (a threadpoolctl ``ThreadpoolController``,
whose construction reads ``/proc/self/maps``: 3-10 ms, more than most kernels it guards) and
listed again only when a module was imported since (a new extension module can bring a new BLAS).
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from typing import Any, Callable, TypeVar, cast

from .errors import InputError

__all__ = ["SMALL_DIMENSION", "small_matrix_threads", "blas_thread_limit", "small_matrix_kernel"]

#: Matrices whose dimension is at most this are "small": their products and decompositions run
#: with :func:`blas_thread_limit` threads (beyond it a multithreaded BLAS can pay off).
SMALL_DIMENSION = 512


def blas_thread_limit() -> int | None:
    """The thread limit for small-matrix kernels: ``PYFED_BLAS_THREADS`` if set (``None`` for
    ``default``: no limit), else 1.

    Raises
    ------
    InputError("PYFED_BLAS_THREADS")
        Neither a positive integer nor ``default``.
    """
    text = os.environ.get("PYFED_BLAS_THREADS", "").strip()
    if not text:
        return 1
    if text.lower() == "default":
        return None
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise InputError("PYFED_BLAS_THREADS", f"must be a positive integer or 'default', got {text!r}")
    return n


@contextlib.contextmanager
def small_matrix_threads(d: int):
    """Context in which BLAS uses :func:`blas_thread_limit` threads when ``d`` (the matrices'
    dimension) is at most :data:`SMALL_DIMENSION`; no change otherwise."""
    limit = blas_thread_limit()
    if limit is None or int(d) > SMALL_DIMENSION:
        yield
        return
    with _controller().limit(limits=limit, user_api="blas"):
        yield


_CONTROLLER = [None, -1]   # the ThreadpoolController and len(sys.modules) when it was built


def _controller():
    """The process's threadpoolctl ``ThreadpoolController``, rebuilt when ``sys.modules`` changed
    size since it was built (libraries are loaded by imports)."""
    n = len(sys.modules)
    if _CONTROLLER[0] is None or _CONTROLLER[1] != n:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER[:] = [ThreadpoolController(), len(sys.modules)]
    return _CONTROLLER[0]


_F = TypeVar("_F", bound=Callable[..., Any])


def small_matrix_kernel(func: _F) -> _F:
    """Decorator: run ``func(problem, ...)`` under :func:`small_matrix_threads` of the problem's
    dimension ``problem.d`` (no limit when the first argument has no ``d``); the signature is kept."""

    @functools.wraps(func)
    def wrapper(problem: Any, *args: Any, **kwargs: Any) -> Any:
        d = getattr(problem, "d", None)
        if not isinstance(d, int):
            return func(problem, *args, **kwargs)
        with small_matrix_threads(d):
            return func(problem, *args, **kwargs)

    return cast(_F, wrapper)
