"""Benchmark of ``pyfed conform`` (issue 22): conformance of one algorithm on the whole ladder.

Target: the reference SCAFFOLD option II (examples/conformance/reference.py, a per-client loop)
on all seven rungs (every subset of every round, the noise rung with matched draws) in < 10 s.
Also times the other algorithms' ladders, and as a baseline in the same process the adapter calls
alone (the reference's rounds without pyfed's exact comparison), so the ratio says what the exact
law costs. Prints the machine load and the thread count (the figures are wall times on a shared
machine).

Run: ``python benchmarks/bench_conform.py [--repeat 3]``. Ends with
``TARGET scaffold-ladder measured=X target=10 ok|short``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from pathlib import Path

from pyfed.conform import conform, load_adapter

ZOO = Path(__file__).resolve().parents[1] / "examples" / "conformance"


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return out, min(times), statistics.median(times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
          f"{threading.active_count()} Python thread(s), OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}")
    runs = [("scaffold II", "Scaffold", dict(option="II")), ("scaffold I", "Scaffold", dict(option="I")),
            ("fedavg uniform", "FedAvg", dict(mode="uniform")), ("fedavg weighted", "FedAvg", dict(mode="weighted")),
            ("fedprox", "FedProx", {}), ("local-sgd", "LocalSGD", {})]
    first = None
    print(f"{'algorithm':<18}{'rungs':>6}{'adapter calls':>15}{'min s':>9}{'median s':>10}")
    for name, obj, kw in runs:
        adapter = load_adapter(f"{ZOO / 'reference.py'}:{obj}")
        rep, tmin, tmed = timed(lambda: conform(adapter, **kw), args.repeat)
        assert rep.conforms, name
        calls = sum(r.adapter_calls for r in rep.rungs)
        print(f"{name:<18}{len(rep.rungs):>6}{calls:>15}{tmin:>9.3f}{tmed:>10.3f}")
        if first is None:
            first = (tmin, calls, adapter)
    tmin, calls, adapter = first
    # baseline: the same number of reference rounds without the exact comparison
    from pyfed.conform.ladder import ladder
    from pyfed.conform.engine import _Ctx, _round_input
    from pyfed.conform.protocol import NoiseSource, RecordingOracle
    import numpy as np

    rung = ladder("scaffold", "II")[4]
    ctx = _Ctx(rung)
    st = {"x": np.array([2.0, -1.0]), "c": np.zeros(2), "c_clients": np.zeros((3, 2))}
    noise = NoiseSource(0, 2, (0, 0, 0))

    def rounds():
        for _ in range(calls):
            adapter.round(_round_input(rung.spec, 1, st, (0, 1), RecordingOracle(ctx.grad, 3, 2, 1, noise)))

    _, base, _ = timed(rounds, args.repeat)
    print(f"baseline: {calls} reference rounds alone (pyfed's oracle, no comparison) {base:.3f} s; "
          f"conformance / baseline = {tmin / base:.1f}x")
    print(f"TARGET scaffold-ladder measured={tmin:.3f} target=10 {'ok' if tmin < 10 else 'short'}")


if __name__ == "__main__":
    main()
