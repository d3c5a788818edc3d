"""Benchmark of ``pyfed conform``: seconds per implementation on its whole ladder.

Every implementation of examples/conformance (the references, the correct implementations, the
bug files) and the framework adapters that are installed (Flower, NVFlare, pfl) is run through
:func:`pyfed.conform.conform` ``--repeat`` times; the table gives each one's median and largest
wall time, rungs, adapter calls and verdict, then the median and the maximum over all of them.
As a baseline in the same process, the reference FedAvg's rounds alone (pyfed's oracle, no exact
comparison) for the same number of adapter calls, so the ratio says what the exact law costs.
Prints the machine load and the thread count (the figures are wall times on a shared machine).

Run: ``python benchmarks/bench_conform.py [--repeat 3] [--only WORD]``. Ends with
``TARGET conform-per-implementation measured=<max median s> target=5 ok|short``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import threading
import time
from pathlib import Path

from pyfed.conform import conform, load_adapter

ZOO = Path(__file__).resolve().parents[1] / "examples" / "conformance"

#: (label, adapter text, conform keyword arguments, needed package)
RUNS = [(f"reference {obj} {' '.join(kw.values())}".strip(), f"{ZOO / 'reference.py'}:{obj}", kw, None) for obj, kw in (
    ("Scaffold", dict(option="II")), ("Scaffold", dict(option="I")), ("FedAvg", dict(mode="uniform")),
    ("FedAvg", dict(mode="weighted")), ("FedProx", {}), ("LocalSGD", {}), ("FedAdam", {}), ("FedYogi", {}),
    ("FedAdagrad", {}))]
RUNS += [
    ("correct_fedavg_no_server_step", f"{ZOO / 'correct_fedavg_no_server_step.py'}:FedAvg", {}, None),
    ("correct_fedavg_float32", f"{ZOO / 'correct_fedavg_float32.py'}:FedAvg", {}, None),
    ("correct_scaffold_stateful", f"{ZOO / 'correct_scaffold_stateful.py'}:Scaffold", {}, None),
    ("flower fedavg_equal", "pyfed.conform.flower:fedavg_equal", dict(algorithm="fedavg", eta_g=1), "flwr"),
    ("flower fedadam", "pyfed.conform.flower:fedadam", dict(algorithm="fedadam"), "flwr"),
    ("nvflare scaffold", "pyfed.conform.nvflare:scaffold", dict(algorithm="scaffold"), "nvflare"),
    ("pfl fedavg", "pyfed.conform.pfl:fedavg", dict(algorithm="fedavg"), "pfl"),
]
RUNS += [(p.stem, f"{p}:{cls}", {}, "flwr" if "flower" in p.stem else None)
         for p in sorted(ZOO.glob("bug_*.py"))
         for cls in [next(c for c in ("Scaffold", "FedAvg", "FedProx") if f"class {c}" in p.read_text())]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=None, help="only the implementations whose label contains this word")
    args = ap.parse_args()
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
          f"{threading.active_count()} Python thread(s), OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}")
    print(f"{'implementation':<48}{'rungs':>6}{'calls':>7}{'median s':>10}{'max s':>8}  verdict")
    medians, maxima = [], []
    fedavg_calls = None
    for label, text, kw, needs in RUNS:
        if args.only and args.only not in label:
            continue
        if needs and importlib.util.find_spec(needs) is None:
            print(f"{label:<48}  skipped: {needs} not installed")
            continue
        times = []
        for _ in range(args.repeat):
            adapter = load_adapter(text)
            t = time.perf_counter()
            rep = conform(adapter, **kw)
            times.append(time.perf_counter() - t)
        calls = sum(r.adapter_calls for r in rep.rungs)
        if label == "reference FedAvg uniform" and fedavg_calls is None:
            fedavg_calls = (calls, statistics.median(times), load_adapter(text))
        verdict = "conforms" if rep.conforms else f"deviates ({rep.first_deviation.quantity})"
        medians.append(statistics.median(times))
        maxima.append(max(times))
        print(f"{label:<48}{len(rep.rungs):>6}{calls:>7}{statistics.median(times):>10.3f}{max(times):>8.3f}  {verdict}")
    if not medians:
        return
    print(f"over {len(medians)} implementations: median {statistics.median(medians):.3f} s, "
          f"max {max(maxima):.3f} s per implementation")
    if fedavg_calls is not None:
        import numpy as np

        from pyfed.conform.engine import _Ctx, _round_input
        from pyfed.conform.ladder import ladder
        from pyfed.conform.precision import Tolerance
        from pyfed.conform.protocol import NoiseSource, RecordingOracle

        calls, med, adapter = fedavg_calls
        rung = ladder("fedavg", mode="uniform")[4]
        ctx = _Ctx(rung, Tolerance())
        st = {"x": np.array([2.0, -1.0])}
        noise = NoiseSource(0, 2, (0, 0, 0))
        t = time.perf_counter()
        for _ in range(calls):
            adapter.round(_round_input(rung.spec, 1, st, (0, 1), RecordingOracle(ctx.grad, 4, 2, 1, noise)))
        base = time.perf_counter() - t
        print(f"baseline: {calls} reference FedAvg rounds alone (pyfed's oracle, no comparison) {base:.3f} s; "
              f"conformance / baseline = {med / base:.1f}x")
    worst = max(medians)
    print(f"TARGET conform-per-implementation measured={worst:.3f} target=5 {'ok' if worst < 5 else 'short'}")


if __name__ == "__main__":
    main()
