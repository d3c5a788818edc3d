"""Benchmark: a counterexample search serial vs on 2 Dask worker processes (issue 14, item 4).

The search: ``pyfed search FedAvg.TunedConvexFedAvgConvergence --seed 0 --budget 600`` (every
candidate decided exactly: exact-moment FedAvg engine in rationals; the first random candidate
is also improved by a Nelder-Mead climb), run in this process through
:func:`pyfed.search.search_to_dir`

* ``serial``: the default (in-process map);
* ``--workers 2``: a LocalCluster of 2 worker processes started by the search and closed after it
  (end to end: cluster start-up and the workers' imports included);
* ``warm cluster``: the same search through ``--scheduler`` on a 2-process LocalCluster started
  (and warmed up with one small search) before timing: the evaluation speed-up without the
  fixed start-up cost.

Every run's files are compared byte for byte with the serial run's (they must be identical).
Timings are repeated (``--repeat``, interleaved) and reported as min and median; the machine is
shared with other jobs, so read the ratios, not the seconds.

Ends with ``TARGET scale_workers2_speedup measured=X target=1.6 ok|short`` (X: serial min /
--workers 2 min, end to end), plus a ``REPORT`` line for the warm cluster and the identity check.

Run: ``python benchmarks/bench_scale.py [--quick] [--repeat 2] [--budget B] [--statement NAME]``.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time


def _identical(a: str, b: str) -> bool:
    fa, fb = sorted(os.listdir(a)), sorted(os.listdir(b))
    if fa != fb:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, fa, shallow=False)
    return not mismatch and not errors


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="budget 30, one repeat")
    ap.add_argument("--repeat", type=int, default=2, help="timing repeats (min and median)")
    ap.add_argument("--budget", type=int, default=None, help="search budget (default 600; 30 with --quick)")
    ap.add_argument("--statement", default="FedAvg.TunedConvexFedAvgConvergence")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    budget = args.budget if args.budget is not None else (30 if args.quick else 600)
    repeat = 1 if args.quick else args.repeat

    import distributed

    from pyfed.checkers.registry import get
    from pyfed.search import search_to_dir

    chk = get(args.statement)
    root = tempfile.mkdtemp(prefix="pyfed-bench-scale-")
    runs = {"serial": [], "--workers 2": [], "warm cluster": []}
    identical = True
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
    try:
        # warm-up of the persistent cluster: imports and the checker in both workers
        search_to_dir(chk.lean_name if "." not in args.statement else args.statement, seed=args.seed, budget=2,
                      out=os.path.join(root, "warmup"), scheduler=cluster.scheduler_address)
        name = args.statement
        ref = None
        for rep in range(repeat):
            for label, kw in (("serial", {}), ("--workers 2", {"workers": 2}),
                              ("warm cluster", {"scheduler": cluster.scheduler_address})):
                out = os.path.join(root, f"{label.strip('-').replace(' ', '_')}-{rep}")
                t0 = time.perf_counter()
                search_to_dir(name, seed=args.seed, budget=budget, out=out, **kw)
                runs[label].append(time.perf_counter() - t0)
                if ref is None:
                    ref = out
                else:
                    identical = identical and _identical(ref, out)
        rep_stats = {}
        chk.search(None, budget, seed=args.seed, report=rep_stats)
    finally:
        cluster.close()
        shutil.rmtree(root, ignore_errors=True)
    best = {k: min(v) for k, v in runs.items()}
    med = {k: statistics.median(v) for k, v in runs.items()}
    print(f"search {args.statement}, seed {args.seed}, budget {budget}: {rep_stats.get('candidates')} distinct "
          f"candidates ({rep_stats.get('holds')} holds, {rep_stats.get('violated')} violated, "
          f"{rep_stats.get('inconclusive')} inconclusive, {rep_stats.get('vacuous')} vacuous); {repeat} repeat(s)")
    print(f"{'run':>14} {'min s':>8} {'median s':>9} {'speed-up (min)':>15} {'(median)':>9}")
    for k in runs:
        print(f"{k:>14} {best[k]:>8.2f} {med[k]:>9.2f} {best['serial'] / best[k]:>15.2f} "
              f"{med['serial'] / med[k]:>9.2f}")
    print(f"outputs identical to the serial run: {identical}")
    sp = best["serial"] / best["--workers 2"]
    print(f"TARGET scale_workers2_speedup measured={sp:.3g} target=1.6 {'ok' if sp >= 1.6 else 'short'}")
    print(f"REPORT scale_warm_cluster_speedup min={best['serial'] / best['warm cluster']:.3g} "
          f"median={med['serial'] / med['warm cluster']:.3g}")
    print(f"REPORT scale_outputs_identical {json.dumps(identical)}")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
