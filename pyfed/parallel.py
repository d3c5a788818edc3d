"""Scale-out of independent evaluations (search candidates, sweep points, constant profiles) on
Dask, with results that do not depend on the number of workers.

One function does the work::

    results = parallel_map(fn, items, seed=S, workers=None, scheduler=None, progress=None)

* ``results[i] == fn(items[i], rng_i)`` for every index i, returned as a list **in index order**;
* ``rng_i = numpy.random.default_rng([S, i])`` (:func:`candidate_rng`) when a seed is given,
  ``None`` otherwise: item i's randomness depends only on (seed, i), never on which worker ran
  it, how items were batched, or in which order they finished;
* ``workers=None`` (default): serial, in this process, in index order; ``workers=N`` (N >= 1):
  starts a ``dask.distributed.LocalCluster`` of N worker processes (one thread each) for this
  call and closes it afterwards; ``scheduler="tcp://host:port"``: uses an existing Dask cluster
  (not closed); :class:`Pool` keeps one cluster for several maps;
* ``progress(k)`` (optional) is called with the number of items just finished, as the Dask
  futures complete (serially: after each item).

So a computation whose output is assembled from ``results`` in index order is byte-identical
for any number of workers, serial included. ``fn`` and the items must be picklable (Dask uses
cloudpickle: module-level functions, bound methods of picklable objects and
``functools.partial`` of those are fine); the results too. An exception raised by ``fn``
propagates to the caller (on Dask: the first failed chunk to be collected; the other chunks'
results are discarded).

Dask is an optional dependency (``pip install 'pyfed[parallel]'``, included in ``[test]``);
``workers``/``scheduler`` raise :class:`pyfed.errors.InputError` naming ``--workers`` /
``--scheduler`` when it is missing, when the value is invalid or when the scheduler cannot be
reached, before any work starts.

Users: ``pyfed search --workers N`` (candidates evaluated through the map, :mod:`pyfed.search`),
``pyfed tightness`` and ``pyfed worst-case`` (sweep points through the map), ``pyfed check
PATH.lean --workers N`` (the constant profile's candidates,
:func:`pyfed.models.scaffold.profile.constant_profile`).
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import math

import numpy as np

from .errors import InputError

__all__ = ["parallel_map", "candidate_rng", "Pool", "check_workers"]


def candidate_rng(seed, i) -> np.random.Generator:
    """The generator of item i: ``numpy.random.default_rng([seed, i])`` (seed, i >= 0 ints)."""
    return np.random.default_rng([int(seed), int(i)])


def check_workers(workers=None, scheduler=None):
    """Validate ``--workers`` (None or an int >= 1) and ``--scheduler`` (None or an address
    string); both given is an error. Returns (workers, scheduler). Raises InputError."""
    if workers is not None and scheduler is not None:
        raise InputError("--workers", "give either --workers N (a local cluster) or --scheduler ADDRESS, not both")
    if workers is not None:
        if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
            raise InputError("--workers", f"must be an integer >= 1 (worker processes), got {workers!r}")
        workers = int(workers)
    if scheduler is not None and (not isinstance(scheduler, str) or not scheduler.strip()):
        raise InputError("--scheduler", f"must be a Dask scheduler address such as tcp://127.0.0.1:8786, "
                                        f"got {scheduler!r}")
    if (workers is not None or scheduler is not None) and importlib.util.find_spec("distributed") is None:
        raise InputError("--workers" if workers is not None else "--scheduler",
                         "needs dask.distributed: pip install 'pyfed[parallel]'")
    return workers, scheduler


def _run_chunk(fn, start: int, items: list, seed):
    """Worker side: fn(item, rng_i) for the consecutive indices start, start + 1, ..."""
    out = []
    for k, item in enumerate(items):
        rng = candidate_rng(seed, start + k) if seed is not None else None
        out.append(fn(item, rng))
    return out


class Pool:
    """A place to run :meth:`map`: serial (``workers=None`` and ``scheduler=None``), a
    LocalCluster of ``workers`` processes started on entry and closed on exit, or the Dask
    cluster at ``scheduler`` (left running). Use as a context manager::

        with Pool(workers=2) as pool:
            a = pool.map(fn, items, seed=0)
            b = pool.map(gn, others)

    Raises InputError (``--workers``/``--scheduler``) for invalid values, a missing
    dask.distributed, or a scheduler that cannot be reached.
    """

    def __init__(self, workers=None, scheduler=None):
        self.workers, self.scheduler = check_workers(workers, scheduler)
        self.client = None
        self._cluster = None

    @property
    def serial(self) -> bool:
        return self.workers is None and self.scheduler is None

    def __enter__(self):
        if self.serial:
            return self
        from distributed import Client, LocalCluster

        if self.workers is not None:
            self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                         dashboard_address=":0", silence_logs=logging.ERROR)
            self.client = Client(self._cluster)
        else:
            try:
                self.client = Client(self.scheduler, timeout="10s")
            except (OSError, TimeoutError, ValueError) as exc:
                raise InputError("--scheduler", f"cannot reach a Dask scheduler at {self.scheduler!r}: {exc}") from None
        return self

    def __exit__(self, *exc):
        if self.client is not None:
            with contextlib.suppress(Exception):
                self.client.close()
        if self._cluster is not None:
            with contextlib.suppress(Exception):
                self._cluster.close()
        self.client = self._cluster = None
        return False

    def nworkers(self) -> int:
        """Number of workers (1 when serial)."""
        if self.client is None:
            return 1
        return max(1, len(self.client.scheduler_info().get("workers", {})))

    def map(self, fn, items, *, seed=None, progress=None, chunk_size=None) -> list:
        """``[fn(items[i], rng_i) for i in range(len(items))]`` in index order (see module
        docstring). ``chunk_size``: items per Dask task (default: about 8 tasks per worker, so
        uneven items balance; results do not depend on it)."""
        items = list(items)
        n = len(items)
        if self.client is None:
            out = []
            for i, item in enumerate(items):
                out.append(fn(item, candidate_rng(seed, i) if seed is not None else None))
                if progress is not None:
                    progress(1)
            return out
        from distributed import as_completed

        if chunk_size is None:
            chunk_size = max(1, math.ceil(n / (8 * self.nworkers())))
        starts = list(range(0, n, chunk_size))
        futures = {}
        for s in starts:
            f = self.client.submit(_run_chunk, fn, s, items[s:s + chunk_size], seed, pure=False)
            futures[f] = s
        results = [None] * n
        try:
            for f in as_completed(list(futures)):
                s = futures[f]
                chunk = f.result()
                results[s:s + len(chunk)] = chunk
                if progress is not None:
                    progress(len(chunk))
        finally:
            for f in futures:
                f.release()
        return results


def parallel_map(fn, items, *, seed=None, workers=None, scheduler=None, progress=None, chunk_size=None) -> list:
    """``[fn(items[i], rng_i) for i in range(len(items))]``, in index order, serially or on Dask.

    Parameters
    ----------
    fn : callable (item, rng) -> result
        Picklable; ``rng`` is ``numpy.random.default_rng([seed, i])`` for item i, or None
        without a seed.
    items : sequence
        The inputs (picklable), one task each (batched ``chunk_size`` per Dask task).
    seed : int | None
        Base seed of the per-item generators.
    workers : int >= 1 | None
        Start a LocalCluster of this many worker processes for this call (None: serial).
    scheduler : str | None
        Address of an existing Dask scheduler (mutually exclusive with ``workers``).
    progress : callable(int) | None
        Called with the number of items finished, as they finish.
    chunk_size : int | None
        Items per Dask task (default about 8 tasks per worker).

    Returns
    -------
    list
        One result per item, in index order (independent of workers, batching and timing).

    Raises
    ------
    InputError
        ``--workers`` / ``--scheduler`` invalid, dask.distributed missing, scheduler unreachable;
        and whatever ``fn`` raises.
    """
    with Pool(workers=workers, scheduler=scheduler) as pool:
        return pool.map(fn, items, seed=seed, progress=progress, chunk_size=chunk_size)
