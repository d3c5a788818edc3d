"""Conformance of an implementation to the exact law of FedAvg, FedProx, SCAFFOLD, the adaptive
server optimisers (FedAdam, FedYogi, FedAdagrad) or Local SGD.

:func:`conform` runs an adapter (:mod:`pyfed.conform.protocol`) on every rung of the ladder
(:mod:`pyfed.conform.ladder`): T = 4 rounds, every client subset in the first two rounds and every
subset in every later round across the paths (every combination of component draws for Local
SGD). Each round starts from the state the implementation itself returned (so errors never
accumulate) and is compared with the exact round from that same state (:mod:`pyfed.conform.law`):

* **Matched draws.** The implementation's oracle calls are matched to the algorithm's by their
  points (:mod:`pyfed.conform.matching`), in any order and with extra calls allowed, and the exact
  round is replayed with the very noise each matched call received; every float is then compared
  with its exact value within the precision's bound gamma_n |Q| (:mod:`pyfed.conform.precision`:
  n the roundings counted for the quantity, in the working precision declared or detected).
* **Law comparison** (only with noise, when the calls cannot be matched): R replicates of the
  round with fresh draws from one start state and sampled set; every output coordinate's mean is
  tested against its exact mean with the exact variance (z statistic), every pair's second
  central moment against its exact covariance (Student t of the replicate products), all at
  family-wise level :data:`LAW_ALPHA` (Bonferroni, normal approximation).

What is checked each round, in order: the number of oracle calls of every selected client, the
points of those calls (the local iterates y_{i,k}), the local end points y_{i,K} when the adapter
returns them (``y``), the client controls (SCAFFOLD; option II's control also reconstructs
y_{i,K}), the model, the server control; the adaptive optimisers' m, v and model; at
initialisation the state the adapter builds. The first deviation of a rung is diagnosed: rung,
round, client, quantity, the exact expected and the observed values, the equation it contradicts
(:data:`pyfed.conform.law.EQUATIONS`) and the likely cause (:mod:`pyfed.conform.diagnose`). A
local-path mistake is reported as such: aggregation weights are inferred only when the local
paths are known to be exact or no local mistake explains the model, and only when they are
plausible.

The purity rule (:mod:`pyfed.conform.state`): the adapter's attributes are compared before and
after every call; an adapter that keeps state is reported as stateful and run path by path on
fresh copies; the first input of every rung is run twice.

Engines never print: :func:`conform` returns a :class:`~pyfed.conform.results.ConformanceReport`.

Why one module: the federated, adaptive and Local SGD drivers share the runner (state detection,
precision detection, the per-round context) and the comparison of a round with its exact law;
the hints live in :mod:`pyfed.conform.diagnose`, the matching in :mod:`pyfed.conform.matching`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from fractions import Fraction
from statistics import NormalDist

import numpy as np

from ..errors import InputError, check_int
from ..exact import exact_decimal, rational_str, to_arb
from . import diagnose as dg
from .adaptive import bias_correction, server_step, x_error_bound
from .ladder import BRANCH_ROUNDS, draw_combinations, ladder, local_sgd_ladder, path_plan, subsets
from .law import ADAPTIVE, covariance, equation, exact_vector, mean, replay_local_sgd_step, replay_round, value
from .matching import exact_noise, match_client
from .precision import PRECISIONS, Tolerance, local_sgd_rounding_count, magnitudes, rounding_counts
from .protocol import (
    ALGORITHMS,
    AdapterError,
    LocalSGDStep,
    NoiseSource,
    RecordingOracle,
    RoundInput,
    adapter_attribute,
    call_init,
    call_round,
    readonly,
)
from .results import ConformanceReport, Deviation, RungResult
from .state import changed, fresh_copy, snapshot

__all__ = ["conform", "resolve", "characterise", "ConformanceReport", "RungResult", "Deviation", "LAW_ALPHA", "LAW_REPLICATES"]

#: Family-wise level of the law test (all mean and second-moment tests of one round together).
LAW_ALPHA = 1e-6
#: Replicates of the law test.
LAW_REPLICATES = 2000


# ----------------------------------------------------------------------------- arguments

def resolve(adapter, algorithm=None, option=None, mode=None) -> tuple[str, str | None, str | None]:
    """(algorithm, option, mode) from the arguments, else what the adapter declares, else the
    defaults (SCAFFOLD; option II; uniform mode). Raises InputError naming the flag."""
    algorithm = algorithm or adapter_attribute(adapter, "algorithm") or "scaffold"
    if algorithm not in ALGORITHMS:
        raise InputError("--algorithm", f"must be one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    if algorithm == "scaffold":
        if mode is not None:
            raise InputError("--mode", "applies to fedavg and fedprox only (SCAFFOLD averages uniformly)")
        option = option or adapter_attribute(adapter, "option") or "II"
        if option not in ("I", "II"):
            raise InputError("--option", f"must be I or II, got {option!r}")
        return algorithm, option, None
    if option is not None:
        raise InputError("--option", "applies to scaffold only")
    if algorithm == "local-sgd" or algorithm in ADAPTIVE:
        if mode is not None:
            raise InputError("--mode", "applies to fedavg and fedprox only")
        return algorithm, None, None
    mode = mode or adapter_attribute(adapter, "mode") or "uniform"
    if mode not in ("uniform", "weighted"):
        raise InputError("--mode", f"must be uniform or weighted, got {mode!r}")
    return algorithm, None, mode


def _resolve_eta_g(adapter, eta_g, algorithm) -> Fraction | None:
    flag = "--eta-g"
    if eta_g is None:
        v = getattr(adapter, "eta_g", None)
        if v is None or isinstance(v, bool) or not isinstance(v, (int, float, str, Fraction)):
            return None
        eta_g, flag = v, "ADAPTER"
    if algorithm not in ("scaffold", "fedavg", "fedprox"):
        raise InputError(flag, "a declared global step size applies to scaffold, fedavg and fedprox (the adaptive "
                               "optimisers' server learning rate is the rung's eta; Local SGD has none)")
    try:
        g = Fraction(str(eta_g))
    except (ValueError, ZeroDivisionError):
        raise InputError(flag, f"eta_g must be a positive number, got {eta_g!r}") from None
    if g <= 0:
        raise InputError(flag, f"eta_g must be positive, got {eta_g!r}")
    return g


def _resolve_precision(adapter, precision) -> tuple[str | None, str]:
    if precision is None:
        precision = adapter_attribute(adapter, "precision")
    if precision is None:
        return None, "default"
    if precision not in PRECISIONS:
        raise InputError("--precision", f"must be one of {', '.join(PRECISIONS)}, got {precision!r}")
    return precision, "declared"


def conform(adapter, algorithm=None, option=None, mode=None, *, seed: int = 0, rungs=None,
            law_replicates: int | None = None, eta_g=None, precision: str | None = None) -> ConformanceReport:
    """Run ``adapter`` on the ladder of ``algorithm`` and compare it with the exact law.

    Parameters
    ----------
    adapter : object
        An adapter (:mod:`pyfed.conform.protocol`).
    algorithm : one of :data:`pyfed.conform.protocol.ALGORITHMS` | None
        None: the adapter's ``algorithm`` attribute, else "scaffold".
    option : "I" | "II" | None
        SCAFFOLD's control update (default the adapter's, else "II").
    mode : "uniform" | "weighted" | None
        FedAvg / FedProx aggregation (default the adapter's, else "uniform").
    seed : int >= 0
        Seed of pyfed's oracle noise (the draws of the noise rung and of the law test).
    rungs : list of str | None
        Only the rungs with these names (default: all).
    law_replicates : int | None
        Replicates of the law test (default :data:`LAW_REPLICATES`).
    eta_g : number | str | None
        The global step size the implementation applies (``--eta-g``; default the adapter's
        ``eta_g``, else none declared: the ladder varies it). Every rung then uses it.
    precision : "float64" | "float32" | "float16" | "bfloat16" | None
        The implementation's working precision (default the adapter's ``precision``, else
        detected from the dtype of the arrays it returns, else float64).

    Returns
    -------
    ConformanceReport
        One :class:`RungResult` per rung (every rung is run, so the report characterises the
        implementation: which rungs conform and where each deviates).

    Raises
    ------
    InputError
        Bad ``algorithm`` / ``option`` / ``mode`` / ``seed`` / ``rungs`` / ``eta_g`` /
        ``precision`` (named as the flags).
    AdapterError
        The adapter is broken (raises, wrong keys, shapes, NaN, or keeps state and cannot be
        copied); an InputError naming ``ADAPTER``.
    """
    algorithm, option, mode = resolve(adapter, algorithm, option, mode)
    seed = check_int("--seed", seed, minimum=0)
    R = LAW_REPLICATES if law_replicates is None else check_int("law_replicates", law_replicates, minimum=10)
    g = _resolve_eta_g(adapter, eta_g, algorithm)
    prec, source = _resolve_precision(adapter, precision)
    all_rungs = local_sgd_ladder() if algorithm == "local-sgd" else ladder(algorithm, option, mode, eta_g=g)
    if rungs is not None:
        names = [r.name for r in all_rungs]
        bad = [n for n in rungs if n not in names]
        if bad:
            raise InputError("rungs", f"unknown rung {bad[0]!r} (rungs: {', '.join(names)})")
        all_rungs = [r for r in all_rungs if r.name in rungs]
    report = ConformanceReport(algorithm, option, mode, [], seed, eta_g=g, precision=prec or "float64",
                               precision_source=source)
    runner = _Runner(adapter, report, seed, R)
    for index, rung in enumerate(all_rungs):
        report.rungs.append(runner.run(rung, index))
    return report


# ----------------------------------------------------------------------------- the runner

class _StateChanged(Exception):
    def __init__(self, attrs):
        super().__init__(", ".join(attrs))
        self.attrs = attrs


class _Runner:
    """Calls the adapter (checking the purity rule and detecting the precision) and runs rungs."""

    def __init__(self, adapter, report: ConformanceReport, seed: int, R: int):
        self.adapter = adapter
        self.proto = fresh_copy(adapter)
        self.report = report
        self.seed, self.R = seed, R
        self.tol = Tolerance(report.precision)

    def call(self, obj, fn, where: str, *, watch: bool):
        before = snapshot(obj) if watch else None
        out = fn()
        if out is not None and getattr(out, "precision", None) and self.report.precision_source == "default":
            self.report.precision = out.precision
            self.report.precision_source = "detected from the returned arrays"
            self.tol = Tolerance(out.precision)
        if watch:
            attrs = changed(before, snapshot(obj))
            if attrs:
                st = self.report.state
                st.stateful, st.attributes, st.first_seen = True, attrs, where
                raise _StateChanged(attrs)
        return out

    def run(self, rung, index) -> RungResult:
        local = self.report.algorithm == "local-sgd"
        if not self.report.state.sequential:
            try:
                return _run_local_sgd(self, rung, False) if local else _run_federated(self, rung, index, False)
            except _StateChanged:
                if isinstance(self.proto, str):
                    st = self.report.state
                    raise AdapterError(
                        f"keeps state between calls (attribute{'s' if len(st.attributes) != 1 else ''} "
                        f"{', '.join(st.attributes)} changed in {st.first_seen}) and cannot be copied "
                        f"(copy.deepcopy raised {self.proto}): return the state in the round's dict, or make the "
                        "adapter copyable so that pyfed can run each sampling path on a fresh copy") from None
                self.report.state.sequential = True
        return _run_local_sgd(self, rung, True) if local else _run_federated(self, rung, index, True)


def _shapes(spec) -> tuple[dict, dict]:
    if spec.algorithm == "scaffold":
        shapes = {"x": (spec.d,), "c": (spec.d,), "c_clients": (spec.N, spec.d)}
    elif spec.adaptive:
        shapes = {"x": (spec.d,), "m": (spec.d,), "v": (spec.d,)}
    else:
        shapes = {"x": (spec.d,)}
    return shapes, {"y": (spec.S, spec.d)}


class _Ctx:
    """The exact data of a rung, its tolerance and its running largest error / bound."""

    def __init__(self, rung, tol: Tolerance):
        self.rung = rung
        self.spec = rung.spec
        p = rung.problem
        self.A, self.b = p.A_exact, p.b_exact
        self.tol = tol
        self.counts = rounding_counts(rung.spec)
        self.max_ratio = 0.0

    def grad(self, i, y):
        return self.A[i].dot(np.array(y, dtype=object)) - self.b[i]

    def check(self, observed, expected, absval, n) -> tuple[bool, float, float]:
        """(ok, error, bound) with the running largest ratio updated when ok."""
        ok, ratio, err, bnd = self.tol.compare(observed, expected, absval, n)
        if ok:
            self.max_ratio = max(self.max_ratio, ratio)
        return ok, err, bnd


def _abs(v) -> np.ndarray:
    return np.array([abs(a) for a in np.ravel(v)], dtype=object).reshape(np.shape(v))


def _round_input(spec, r, st, B, oracle) -> RoundInput:
    scaf = spec.algorithm == "scaffold"
    ad = spec.adaptive
    return RoundInput(
        algorithm=spec.algorithm, option=spec.option, mode=spec.mode, round=r, N=spec.N, S=spec.S, K=spec.K,
        d=spec.d, eta_l=float(spec.eta_l), eta_g=float(spec.eta_g),
        mu=None if spec.mu is None else float(spec.mu), counts=readonly(np.array(spec.counts)).astype(np.int64),
        x=readonly(st["x"]), c=readonly(st["c"]) if scaf else None,
        c_clients=readonly(st["c_clients"]) if scaf else None,
        sampled=np.array(B, dtype=np.int64), oracle=oracle,
        m=readonly(st["m"]) if ad else None, v=readonly(st["v"]) if ad else None,
        beta_1=float(spec.beta_1) if ad else None, beta_2=float(spec.beta_2) if ad else None,
        tau=float(spec.tau) if ad else None)


# ----------------------------------------------------------------------------- federated rungs

def _initial_state(runner, obj, ctx, *, watch):
    spec, rung = ctx.spec, ctx.rung
    shapes, _ = _shapes(spec)
    x0 = np.array([float(v) for v in rung.x0])
    if spec.algorithm == "scaffold":
        c0 = np.array([[float(v) for v in row] for row in rung.c0])
        return runner.call(obj, lambda: call_init(obj, x0, c0, shapes), f"rung '{rung.name}', init", watch=watch)
    if spec.adaptive:
        default = {"x": x0, "m": np.zeros(spec.d), "v": np.full(spec.d, float(spec.tau ** 2))}
        return runner.call(obj, lambda: call_init(obj, x0, None, shapes, default), f"rung '{rung.name}', init",
                           watch=watch)
    return {"x": x0}, False


def _run_federated(runner, rung, index: int, sequential: bool):
    spec = rung.spec
    ctx = _Ctx(rung, runner.tol)
    res = RungResult(rung.name, rung.description, rung.parameters(), rounds=spec.T)
    shapes, optional = _shapes(spec)
    noise = NoiseSource(spec.scale, spec.d, (runner.seed, index, 0))
    ctx.noise = noise
    subs = subsets(spec.N, spec.S)
    plan = path_plan(len(subs), spec.T)

    def one_round(obj, r, st, B, watch, prefix):
        oracle = RecordingOracle(ctx.grad, spec.N, spec.d, r, noise)
        inp = _round_input(spec, r, st, B, oracle)
        out = runner.call(obj, lambda: call_round(obj, inp, shapes, optional),
                          f"rung '{rung.name}', round {r}", watch=watch)
        ctx.tol = runner.tol
        res.adapter_calls += 1
        return out, oracle, inp

    def verify(obj, r, st, B, out, oracle):
        dev, pathwise_ok, notes = _check_round(ctx, r, st, out, B, oracle, noise)
        if dev is None and not pathwise_ok:
            dev, stats = _law_test(runner, obj, ctx, r, st, B, index)
            res.adapter_calls += runner.R
            if dev is None:
                res.status = "conforms in law"
                res.notes.append(f"the oracle calls could not be matched to the algorithm's, so the draws cannot be "
                                 f"matched; round {r} from S_r = {{{', '.join(map(str, B))}}}: {stats}")
        for note in notes:
            if note not in res.notes and len(res.notes) < 3:
                res.notes.append(note)
        return dev

    def twice(obj_factory, r, st, B, out):
        obj2 = obj_factory()
        oracle = RecordingOracle(ctx.grad, spec.N, spec.d, r, noise)
        out2 = call_round(obj2, _round_input(spec, r, st, B, oracle), shapes, optional)
        res.adapter_calls += 1
        if any(not np.array_equal(out[k], out2[k]) for k in shapes):
            k = next(k for k in shapes if not np.array_equal(out[k], out2[k]))
            return Deviation(rung.name, r, None, f"`{k}` on a repeated input", list(exact_vector(out[k])),
                             list(out2[k]), "an adapter is a function of its input (pyfed branches over client subsets "
                                            "and replays rounds)", "pyfed.conform.protocol (the purity rule)",
                             sampled=list(B), kind="state",
                             hint="the adapter returned different values for the same input without any of its "
                                  "attributes changing: it keeps state outside them (a global, a closure, an unseeded "
                                  "random generator)")
        return None

    def finish(dev, paths):
        return _finish(res, dev, paths, ctx.max_ratio)

    if sequential:
        for p_idx, path in enumerate(plan):
            obj = fresh_copy(runner.proto)
            state, built = _initial_state(runner, obj, ctx, watch=False)
            if p_idx == 0 and built:
                dev = _check_init(ctx, state)
                if dev is not None:
                    return finish(dev, 0)
            for r, opt in enumerate(path, 1):
                B = subs[opt][0]
                out, oracle, _ = one_round(obj, r, state, B, False, path[:r])
                dev = twice(lambda: _replayed_copy(runner, ctx, state), r, state, B, out) if p_idx == 0 and r == 1 \
                    else None
                dev = dev or verify(obj, r, state, B, out, oracle)
                if dev is not None:
                    return finish(dev, p_idx + 1)
                state = out
        return finish(None, len(plan))

    obj = runner.adapter
    state, built = _initial_state(runner, obj, ctx, watch=True)
    if built:
        dev = _check_init(ctx, state)
        if dev is not None:
            return finish(dev, 0)
    frontier = {(): (state, Fraction(1), _exact_start(ctx, state))}
    law_level = None
    for r in range(1, spec.T + 1):
        nxt = {}
        for pref in sorted({p[:r] for p in plan}):
            st, prob, ex = frontier[pref[:-1]]
            B, pB = subs[pref[-1]]
            out, oracle, _ = one_round(obj, r, st, B, True, pref)
            dev = twice(lambda: obj, r, st, B, out) if r == 1 and not nxt else None
            dev = dev or verify(obj, r, st, B, out, oracle)
            if dev is not None:
                return finish(dev, len(nxt) + 1)
            nxt[pref] = (out, prob * pB if r <= BRANCH_ROUNDS else prob, _exact_next(ctx, ex, B))
        frontier = nxt
        if r == min(BRANCH_ROUNDS, spec.T):
            law_level = (r, dict(frontier))
    if law_level is not None and spec.scale == 0 and not spec.adaptive:
        r, level = law_level
        d = spec.d
        law_exact = [sum((prob * ex["x"][k] for _, prob, ex in level.values()), Fraction(0)) for k in range(d)]
        law_obs = [sum((prob * Fraction(float(st["x"][k])) for st, prob, _ in level.values()), Fraction(0))
                   for k in range(d)]
        res.law = {"quantity": f"E[x_{r}] over the {len(level)} sampling paths of the first {r} rounds "
                               "(exact probabilities)",
                   "exact": [rational_str(v) for v in law_exact], "implementation": [exact_decimal(v, 17) for v in law_obs]}
    return finish(None, len(plan))


def _finish(res: RungResult, dev, paths: int, max_ratio: float) -> RungResult:
    """The rung's result: its paths, its largest error / bound and its deviation, if any."""
    res.max_ratio = max_ratio
    res.paths = paths
    if dev is not None:
        res.status, res.deviation = "deviates", dev
    return res


def characterise(framework: str, runs, seed: int = 0) -> dict:
    """Run several adapters of one framework: ``runs`` [(label, adapter, conform keyword
    arguments)] -> ``{label: ConformanceReport}`` and ``"summary"``: one line per run in words
    (conforms, or on how many rungs and the first deviation with its likely cause)."""
    out, lines = {}, []
    for label, adapter, kw in runs:
        rep = conform(adapter, seed=seed, **kw)
        out[label] = rep
        d = rep.first_deviation
        ok = sum(r.status != "deviates" for r in rep.rungs)
        lines.append(f"{framework} {label}: " + ("conforms" if rep.conforms else
                                                f"conforms on {ok} of {len(rep.rungs)} rungs; first deviation at "
                                                f"'{d.rung}', round {d.round}: {d.quantity}"
                                                + (f" ({d.hint})" if d.hint else "")))
    out["summary"] = lines
    return out


def _replayed_copy(runner, ctx, state):
    """A fresh copy of a stateful adapter brought to the state of round 1 (its init run)."""
    obj = fresh_copy(runner.proto)
    _initial_state(runner, obj, ctx, watch=False)
    return obj


def _exact_start(ctx, state):
    if ctx.spec.scale != 0 or ctx.spec.adaptive:
        return None
    out = {"x": exact_vector(state["x"])}
    if ctx.spec.algorithm == "scaffold":
        out["c"], out["C"] = exact_vector(state["c"]), exact_vector(state["c_clients"])
    return out


def _exact_next(ctx, ex, B):
    if ex is None:
        return None
    e = replay_round(ctx.A, ctx.b, ctx.spec, ex["x"], ex.get("c"), ex.get("C"), B)
    out = {"x": value(e.x, ())}
    if e.c is not None:
        out["c"], out["C"] = value(e.c, ()), value(e.c_clients, ())
    return out


def _check_init(ctx: _Ctx, state) -> Deviation | None:
    """The initial state the adapter built: SCAFFOLD's x_0, c_i^0, c^0 = N^-1 sum_i c_i^0; the
    adaptive optimisers' x_0, m_{-1} = 0, v_{-1} >= tau^2."""
    rung, spec = ctx.rung, ctx.spec
    N, d = spec.N, spec.d
    x0 = np.array(rung.x0, dtype=object)
    if spec.adaptive:
        eq, src = equation(spec.algorithm, "init")
        zero = np.zeros(d, dtype=object) + Fraction(0)
        if not ctx.tol.compare(state["x"], x0, _abs(x0), 1)[0]:
            return Deviation(rung.name, 0, None, "model x_0", list(x0), list(state["x"]), eq, src)
        if not ctx.tol.compare(state["m"], zero, zero, 1)[0]:
            return Deviation(rung.name, 0, None, "first moment m_{-1}", list(zero), list(state["m"]), eq, src,
                             hint="the first moment does not start at 0")
        tau2 = spec.tau ** 2
        low = [v for v in state["v"] if Fraction(float(v)) < tau2 * (1 - ctx.tol.u)]
        if low:
            hint = ("v_{-1} = 0: the second moment starts from zeros, below tau^2 (Algorithm 2 requires v_{-1} >= tau^2; "
                    "with v_{-1} = 0 the first step divides by |Delta_0| + tau)") if all(v == 0 for v in state["v"]) \
                else "the second moment starts below tau^2"
            return Deviation(rung.name, 0, None, "second moment v_{-1}", [tau2] * d, list(state["v"]),
                             "v_{-1} >= tau^2 (coordinatewise)", src, hint=hint)
        return None
    c0 = np.array(rung.c0, dtype=object).reshape(N, d)
    cbar = c0.sum(axis=0) / N
    eq, src = equation("scaffold", "init")
    grads = np.array([ctx.grad(i, x0) for i in range(N)], dtype=object).reshape(N, d)
    zero = np.zeros(d, dtype=object) + Fraction(0)
    for i in range(N):
        if not ctx.tol.compare(state["c_clients"][i], c0[i], _abs(c0[i]), 1)[0]:
            hint = None
            if dg.close(ctx, state["c_clients"][i], zero, _abs(c0[i]), 1):
                hint = "the client controls are initialised to zero, ignoring the given c_i^0"
            elif dg.close(ctx, state["c_clients"][i], grads[i], _abs(grads[i]), 3):
                hint = "the client controls are initialised to the gradients at x_0 instead of the given c_i^0"
            return Deviation(rung.name, 0, i, "client control c_i^0", list(c0[i]), list(state["c_clients"][i]), eq, src,
                             hint=hint)
    absbar = _abs(c0).sum(axis=0) / N
    if not ctx.tol.compare(state["c"], cbar, absbar, N + 2)[0]:
        hint = None
        if dg.close(ctx, state["c"], zero, absbar, N + 2):
            hint = ("the server control is initialised to zero while the client controls are not: c^0 != N^-1 sum_i "
                    "c_i^0, so c^r stays off the clients' mean")
        elif dg.close(ctx, state["c"], grads.sum(axis=0) / N, _abs(grads).sum(axis=0) / N, N + 4):
            hint = "the server control is initialised to the mean gradient at x_0 instead of the mean of the given c_i^0"
        return Deviation(rung.name, 0, None, "server control c^0", list(cbar), list(state["c"]), eq, src, hint=hint)
    if not ctx.tol.compare(state["x"], x0, _abs(x0), 1)[0]:
        return Deviation(rung.name, 0, None, "model x_0", list(x0), list(state["x"]), eq, src)
    return None


def _eps(spec, noise: NoiseSource, r: int, amap: dict) -> np.ndarray:
    """The signs (m,) in the law's column layout: column (i, k) gets the signs of the call matched
    to the algorithm's k-th call of client i (``amap[i]``: an Assignment)."""
    if spec.m == 0:
        return np.zeros(0, dtype=object)
    e = np.zeros(spec.m, dtype=object)
    for i, a in amap.items():
        js = list(a.local) + ([a.control] if a.control is not None else [])
        for k, j in enumerate(js):
            col = spec.column(i, k) - 1
            e[col:col + spec.d] = [int(v) for v in noise.signs(r, i, j)]
    return e


def _check_round(ctx: _Ctx, r, st, out, B, oracle: RecordingOracle, noise) -> tuple[Deviation | None, bool, list]:
    """(deviation, pathwise ok, notes). Pathwise ok is False only with noise when the calls cannot
    be matched to the algorithm's (the caller tests the law)."""
    spec, rung = ctx.spec, ctx.rung
    scaf = spec.algorithm == "scaffold"
    x = exact_vector(st["x"])
    c = exact_vector(st["c"]) if scaf else None
    C = exact_vector(st["c_clients"]) if scaf else None
    mags = magnitudes(ctx.A, ctx.b, spec, x, c, C, B)
    n = ctx.counts
    sampled = [int(i) for i in B]
    counts = [oracle.count(i) for i in range(spec.N)]
    eq_calls = equation(spec.algorithm, "calls")
    for i in B:
        if counts[i] < spec.calls:
            what = f"K = {spec.K} local steps" + (" and one fresh sample at x (option I)" if spec.calls > spec.K else "")
            return Deviation(rung.name, r, i, f"oracle calls of client {i} (expected {spec.calls}: {what})",
                             [spec.calls], [counts[i]], *eq_calls, sampled=sampled,
                             hint=dg.count_hint(spec, i, counts, B)), True, []
    calls: dict = {}
    for i, j, y in oracle.calls:
        calls.setdefault(i, []).append((j, y))
    per_client, ends = {}, {}
    absx = _abs(x)
    for i in B:
        corr = (c - C[i]) if scaf else None

        def noise_of(j, i=i):
            return exact_noise(spec.scale, noise.signs(r, i, j))

        def close_point(obs, want, k, i=i):
            absval = mags["points"][i][k] if k < spec.K else absx
            return ctx.tol.compare(obs, want, absval, n[f"point {min(k, spec.K)}"])[0]

        assigns, fail = match_client(ctx, i, x, corr, calls.get(i, []), noise_of, close_point)
        if fail is not None:
            if spec.m:
                return None, False, []
            return _local_deviation(ctx, r, x, c, C, B, fail, ends, mags, calls.get(i, [])), True, []
        per_client[i] = assigns
        ends[i] = assigns[0].points[-1]
    exp = replay_round(ctx.A, ctx.b, spec, x, c, C, B)
    first = None
    for combo in itertools.islice(itertools.product(*(per_client[i] for i in B)), 16):
        amap = dict(zip(B, combo))
        eps = _eps(spec, noise, r, amap)
        dev = _compare_outputs(ctx, r, st, x, c, C, exp, eps, out, B, mags, amap, calls)
        if dev is None:
            return None, True, _extra_call_notes(ctx, r, B, amap, calls, counts, x)
        first = first or dev
    return first, True, []


def _extra_call_notes(ctx, r, B, amap, calls, counts, x) -> list:
    spec = ctx.spec
    notes = []
    for i in B:
        unused = [(j, pt) for j, pt in calls.get(i, []) if j not in amap[i].used()]
        if not unused:
            continue
        where = []
        for j, pt in unused:
            at = next((f"y_{{{i},{k}}}" for k, p in enumerate(amap[i].points)
                       if dg.close(ctx, pt, p, _abs(p), ctx.counts['end'])), "another point")
            where.append(f"call {j + 1} at {'x_{r-1}' if at == f'y_{{{i},0}}' else at}")
        extra = counts[i] - spec.calls
        notes.append(f"client {i} called the oracle {counts[i]} times (K{' + 1' if spec.calls > spec.K else ''} + "
                     f"{extra}) in round {r}; the extra call{'s' if extra > 1 else ''} ({', '.join(where)}) "
                     f"{'were' if extra > 1 else 'was'} not used in the update (the round conforms with the "
                     "algorithm's calls matched by their points)")
    return notes


def _local_deviation(ctx, r, x, c, C, B, fail, ends, mags, client_calls) -> Deviation:
    """A local iterate y_{i,k} that is not among client i's calls (a MatchFailure)."""
    spec, rung = ctx.spec, ctx.rung
    i, k = fail.client, fail.step
    sampled = [int(j) for j in B]
    eq, src = equation(spec.algorithm, "local" if k < spec.K else "control I")
    if fail.observed is None:
        hint = (f"client {i} made only {len(client_calls)} oracle call{'s' if len(client_calls) != 1 else ''} along "
                f"its path: the local step {k + 1} was never evaluated")
        return Deviation(rung.name, r, i, f"local iterate y_{{{i},{k}}}", list(fail.expected), [], eq, src,
                         sampled=sampled, hint=hint)
    if k == spec.K:
        name, hint = "option I's oracle point (the round-start x)", None
    else:
        name = f"local iterate y_{{{i},{k}}}"
        hint = None
        if k == 0:
            hint = dg.start_hint(ctx, fail.observed, x, ends)
        else:
            p, g = fail.history[-1]
            corr = (c - C[i]) if spec.algorithm == "scaffold" else None
            hint = dg.step_hint(ctx, r, k - 1, p, g, fail.history[:-1], x, corr, fail.observed, mags["points"][i][k],
                                ctx.counts[f"point {k}"], C_i=None if C is None else C[i], c=c)
            if hint is None:
                hint = (f"step {k} of client {i} differs from the algorithm's local step (the points before it agree)")
    e = ctx.tol.compare(fail.observed, fail.expected, mags["points"][i][k] if k < spec.K else _abs(x),
                        ctx.counts[f"point {min(k, spec.K)}"])
    return Deviation(rung.name, r, i, name, list(fail.expected), list(fail.observed), eq, src, sampled=sampled,
                     hint=hint, error=e[2], bound=e[3],
                     detail=f"the first {k} point{'s' if k != 1 else ''} of the path agree{'s' if k == 1 else ''}; "
                            f"this is client {i}'s first oracle call after them" if k else None)


def _extra_next(ctx, i, a, calls, x, corr, noise_of_j):
    """The point after one more local step from y_{i,K}, with the draw of an unused call at y_{i,K}."""
    spec = ctx.spec
    yK = a.points[-1]
    for j, pt in calls.get(i, []):
        if j in a.used() or not dg.close(ctx, pt, yK, _abs(yK), ctx.counts["end"]):
            continue
        g = ctx.A[i].dot(yK) - ctx.b[i] + noise_of_j(j)
        step = g + corr if corr is not None else (g + spec.mu * (yK - x) if spec.algorithm == "fedprox" else g)
        return yK - spec.eta_l * step
    return None


def _end_hint(ctx, r, i, a, observed, x, c, C, calls, noise, absval):
    spec = ctx.spec
    corr = (c - C[i]) if spec.algorithm == "scaffold" else None
    K = spec.K
    hist = list(zip(a.points[:K - 1], a.grads[:K - 1]))
    extra = _extra_next(ctx, i, a, calls, x, corr, lambda j: exact_noise(spec.scale, noise.signs(r, i, j)))
    return dg.step_hint(ctx, r, K - 1, a.points[K - 1], a.grads[K - 1], hist, x, corr, observed, absval,
                        ctx.counts["end"], C_i=None if C is None else C[i], c=c, extra=extra)


def _compare_outputs(ctx, r, st, x, c, C, exp, eps, out, B, mags, amap, calls) -> Deviation | None:
    spec, rung = ctx.spec, ctx.rung
    scaf = spec.algorithm == "scaffold"
    alg = spec.algorithm
    n = ctx.counts
    sampled = [int(i) for i in B]
    y_end = {i: value(exp.y_end[i], eps) for i in B}

    def dev(client, quantity, key, expected, observed, err=None, bnd=None, hint=None, detail=None):
        eq, src = equation(alg, key)
        return Deviation(rung.name, r, client, quantity, list(expected), list(observed), eq, src, sampled=sampled,
                         hint=hint, error=err, bound=bnd, detail=detail)

    noise = ctx.noise
    # 1. the local end points, when returned
    if "y" in out:
        for idx, i in enumerate(B):
            ok, err, bnd = ctx.check(out["y"][idx], y_end[i], mags["end"][i], n["end"])
            if not ok:
                hint = _end_hint(ctx, r, i, amap[i], out["y"][idx], x, c, C, calls, noise, mags["end"][i])
                return dev(i, f"local end point y_{{{i},{spec.K}}}", "end point", y_end[i], out["y"][idx], err, bnd,
                           hint, "returned by the adapter (`y`); the oracle points before it agree")
    # 2. SCAFFOLD client controls
    if scaf:
        c_plus = {i: value(exp.c_plus[i], eps) for i in B}
        C_new = value(exp.c_clients, eps)
        for i in B:
            ok, err, bnd = ctx.check(out["c_clients"][i], C_new[i], mags["c_plus"][i], n["control"])
            if ok:
                continue
            if spec.option == "II" and "y" not in out:
                local = _reconstructed_end(ctx, r, x, c, C, B, out, y_end, mags, amap, calls, sampled, i)
                if local is not None:
                    return local
            key = "control I" if spec.option == "I" else "control II"
            return dev(i, f"client control c_{i}", key, C_new[i], out["c_clients"][i], err, bnd,
                       dg.control_hint(ctx, i, x, c, C, y_end[i], out["c_clients"][i], mags["c_plus"][i], n["control"]))
        for i in range(spec.N):
            if i in B:
                continue
            ok, err, bnd = ctx.check(out["c_clients"][i], C[i], _abs(C[i]), 0)
            if not ok:
                hint = None
                alt = replay_round(ctx.A, ctx.b, spec, x, c, C, [i])
                if dg.close(ctx, out["c_clients"][i], value(alt.c_plus[i], np.zeros(spec.m, dtype=object)),
                            mags["c_plus"][B[0]] * 4, n["control"]):
                    hint = "an unselected client's control was updated as if it had been sampled"
                return dev(i, f"client control c_{i} (client {i} not sampled)", "unselected control", C[i],
                           out["c_clients"][i], err, bnd, hint)
    if spec.adaptive:
        return _adaptive_outputs(ctx, r, st, x, exp, eps, out, B, mags, y_end, amap, calls, sampled)
    # 3. the model
    x_val = value(exp.x, eps)
    ok, err, bnd = ctx.check(out["x"], x_val, mags["model"], n["model"])
    if not ok:
        return _model_deviation(ctx, r, x, c, C, B, y_end, x_val, out, mags, amap, calls, err, bnd, sampled)
    # 4. the server control
    if scaf:
        c_val = value(exp.c, eps)
        ok, err, bnd = ctx.check(out["c"], c_val, mags["server control"], n["server control"])
        if not ok:
            return dev(None, "server control c", "server control", c_val, out["c"], err, bnd,
                       dg.server_control_hint(ctx, c, C, B, c_plus, out, mags["server control"], n["server control"]))
    return None


def _reconstructed_end(ctx, r, x, c, C, B, out, y_end, mags, amap, calls, sampled, i):
    """SCAFFOLD option II: y_{i,K} reconstructed from the returned control, c_i+ = c_i - c +
    (x - y_{i,K})/(K eta_l). When it differs from the exact end point and the returned model is
    the average of the reconstructed end points, the deviation is in the local path."""
    spec = ctx.spec
    Keta = spec.K * spec.eta_l
    rec = {j: x - Keta * (exact_vector(out["c_clients"][j]) - C[j] + c) for j in B}
    model = x + spec.eta_g * sum((rec[j] - x for j in B), x * 0) / spec.S
    slack = 4 * max(1, int(1 / Keta))
    if not ctx.tol.compare(out["x"], model, mags["model"] * slack, ctx.counts["model"] + ctx.counts["control"])[0]:
        return None
    ok = ctx.tol.compare(np.array([float(v) for v in rec[i]]), y_end[i], mags["end"][i] * slack, ctx.counts["end"])[0]
    if ok:
        return None
    yrec = np.array([float(v) for v in rec[i]])
    hint = _end_hint(ctx, r, i, amap[i], yrec, x, c, C, calls, ctx.noise, mags["end"][i] * slack)
    eq, src = equation("scaffold", "end point")
    e = ctx.tol.compare(yrec, y_end[i], mags["end"][i], ctx.counts["end"])
    return Deviation(ctx.rung.name, r, i, f"local end point y_{{{i},{spec.K}}}", list(y_end[i]), list(yrec), eq, src,
                     sampled=sampled, hint=hint, error=e[2], bound=e[3],
                     detail="reconstructed from the returned control: y_{i,K} = x - K eta_l (c_i+ - c_i + c); the "
                            "returned model is the average of the reconstructed end points and the oracle points "
                            "before them agree, so the control formula is right and the local path is not")


def _model_deviation(ctx, r, x, c, C, B, y_end, x_val, out, mags, amap, calls, err, bnd, sampled) -> Deviation:
    """Why the model deviates: another global step, a local mistake after the last oracle call
    (for every sampled client alike), a known weighting, every client averaged, or weights that
    cannot explain it (implied by exact least squares, reported only when plausible)."""
    spec, rung = ctx.spec, ctx.rung
    alg = spec.algorithm
    key = "model" if alg == "scaffold" else f"model {spec.mode}"
    eq, src = equation(alg, key)
    n = ctx.counts
    observed = out["x"]
    absm = mags["model"]
    expected_kind = "uniform" if (alg == "scaffold" or spec.mode == "uniform") else "weighted"
    cands = dg.weight_candidates(spec, B)
    deltas = [y_end[i] - x for i in B]
    zero = x * 0
    agg = sum((w * dl for w, dl in zip(cands[expected_kind], deltas)), zero)

    def model_dev(quantity, hint, detail=None, **kw):
        return Deviation(rung.name, r, None, quantity, list(x_val), list(observed), eq, src, sampled=sampled,
                         error=err, bound=bnd, hint=hint, detail=detail, **kw)

    # a known weighting at the given global step, then another global step, then a known weighting without it
    def weighting(eta_g, step_text):
        matches = []
        for kind, w in cands.items():
            if w == cands[expected_kind]:
                continue
            alt = x + eta_g * sum((wi * dl for wi, dl in zip(w, deltas)), zero)
            if dg.close(ctx, observed, alt, absm, n["model"]):
                matches.append((kind, w))
        if not matches:
            return None
        hint = " -- or, equally here, ".join(dg.WEIGHT_TEXT[kind] for kind, _ in matches) + step_text
        detail = "weights of the sampled clients, in the order of S_r (implied by the observed model exactly)"
        if "y" not in out:
            detail += "; the oracle points of the local paths agree with the algorithm's"
        return Deviation(rung.name, r, None, "aggregation weights", cands[expected_kind], matches[0][1], eq, src,
                         sampled=sampled, hint=hint, detail=detail)

    found = weighting(spec.eta_g, "")
    if found is not None:
        return found
    # another global step
    obs = exact_vector(observed)
    g2 = dg._solve_scalar(obs - x, agg)
    if g2 is not None and g2 > 0 and (spec.d >= 2 or r > 1):   # in one dimension every change is a multiple
        g2 = Fraction(g2).limit_denominator(1 << 12)
        if g2 != spec.eta_g and dg.close(ctx, observed, x + g2 * agg, absm, n["model"]):
            if r > 1:
                return model_dev("model x", f"from round {r} on the model's step is {rational_str(g2 / spec.eta_g)} "
                                            f"times the algorithm's, after {r - 1} conforming round"
                                            f"{'s' if r > 2 else ''}: a schedule (of eta_g, or of eta_l when K = 1) "
                                            "the algorithm does not have")
            hint = (f"the server applies no global step: x_r = the clients' average (eta_g = 1, expected eta_g = "
                    f"{rational_str(spec.eta_g)})" if g2 == 1 else
                    f"the server applies the global step {rational_str(g2)} instead of eta_g = {rational_str(spec.eta_g)}")
            return model_dev("model x (global step)", hint, implied_eta_g=g2)
    found = weighting(Fraction(1), "; and no global step eta_g (as if eta_g = 1)") if spec.eta_g != 1 else None
    if found is not None:
        return found
    # a local mistake after the last oracle call, the same for every sampled client
    if "y" not in out:
        alts: dict = {}
        for i in B:
            a = amap[i]
            corr = (c - C[i]) if alg == "scaffold" else None
            K = spec.K
            for kk, text, nxt in dg.step_candidates(ctx, K - 1, a.points[K - 1], a.grads[K - 1],
                                                   list(zip(a.points[:K - 1], a.grads[:K - 1])), x, corr,
                                                   None if C is None else C[i], c):
                if np.asarray(nxt).dtype == object:
                    alts.setdefault((kk, text), {})[i] = nxt
            nxt = _extra_next(ctx, i, a, calls, x, corr,
                              lambda j, i=i: exact_noise(spec.scale, ctx.noise.signs(r, i, j)))
            if nxt is not None:
                alts.setdefault(("kplus1", f"K + 1 = {spec.K + 1} local steps: the client took one more step than K (an "
                                           "off-by-one in the local loop)"), {})[i] = nxt
        for (kk, text), ends in alts.items():
            if len(ends) != len(B):
                continue
            alt = x + spec.eta_g * sum((w * (ends[i] - x) for w, i in zip(cands[expected_kind], B)), zero)
            if dg.close(ctx, observed, alt, absm, n["model"]):
                eqe, srce = equation(alg, "end point")
                i0 = B[0]
                return Deviation(rung.name, r, i0, f"local end point y_{{{i0},{spec.K}}}", list(y_end[i0]),
                                 [float(v) for v in ends[i0]], eqe, srce, sampled=sampled, hint=text,
                                 detail="inferred: the returned model is exactly the aggregation of end points with "
                                        "this mistake (every sampled client alike); the oracle points before them "
                                        "agree")
    # every client trained and averaged, ignoring the sample
    if spec.S < spec.N:
        everyone = replay_round(ctx.A, ctx.b, replace_noise_free(spec), x, c, C, list(range(spec.N)))
        ends = {i: value(everyone.y_end[i], ()) for i in range(spec.N)}
        if all(i in ends for i in range(spec.N)):
            alt = x + spec.eta_g * sum((ends[i] - x for i in range(spec.N)), zero) / spec.N
            if dg.close(ctx, observed, alt, absm * 2, n["model"]):
                return model_dev("model x", "the server averaged all N clients' local models (unselected clients "
                                            "trained too) instead of the sampled set S_r only")
    # implied weights, when plausible
    w = dg.implied_weights(deltas, (obs - x) / spec.eta_g) if spec.d > len(B) else None   # overdetermined only
    total = sum(cands[expected_kind])
    if w is not None and dg.close(ctx, observed, x + spec.eta_g * sum((wi * dl for wi, dl in zip(w, deltas)), zero),
                                  absm, n["model"]):
        shown = ", ".join(exact_decimal(v, 6) if len(rational_str(v)) > 12 else rational_str(v) for v in w)
        if all(v >= 0 for v in w) and abs(sum(w) - total) <= Fraction(1, 10 ** 9):
            return Deviation(rung.name, r, None, "aggregation weights", cands[expected_kind], w, eq, src,
                             sampled=sampled,
                             detail="weights of the sampled clients implied by the observed model (exact least squares)"
                                    + ("" if "y" in out else "; assuming the local paths end at the exact y_{i,K} "
                                       "(return the local end points as `y` to tell a mistake in the last local step "
                                       "apart)"))
        return model_dev("model x", f"the model deviates; the weights cannot explain it (the implied weights [{shown}] "
                                    f"are {'negative' if any(v < 0 for v in w) else 'not summing to'} "
                                    f"{'' if any(v < 0 for v in w) else rational_str(total)}"
                                    f"{' or do not sum to ' + rational_str(total) if any(v < 0 for v in w) else ''}): "
                                    "look at the last local step (return `y`, the local end points, to see them)")
    return model_dev("model x", None if "y" in out else
                     "the model deviates and no known mistake explains it; return the local end points as `y` to "
                     "see whether the last local step is the cause")


def replace_noise_free(spec):
    """The spec without noise (the diagnosis' alternatives that need no draws)."""
    return replace(spec, scale=Fraction(0))


# ----------------------------------------------------------------------------- adaptive optimisers

def _adaptive_outputs(ctx, r, st, x, exp, eps, out, B, mags, y_end, amap, calls, sampled) -> Deviation | None:
    spec, rung = ctx.spec, ctx.rung
    alg = spec.algorithm
    n = ctx.counts
    m0, v0 = exact_vector(st["m"]), exact_vector(st["v"])
    delta = value(exp.delta, eps)
    step = server_step(alg, x, m0, v0, delta, eta=spec.eta_g, beta_1=spec.beta_1, beta_2=spec.beta_2, tau=spec.tau)
    b1, b2 = spec.beta_1, spec.beta_2
    abs_d = mags["delta"]
    abs_m = b1 * _abs(m0) + (1 - b1) * abs_d
    if alg == "fedadam":
        abs_v = b2 * _abs(v0) + (1 - b2) * abs_d * abs_d
    elif alg == "fedyogi":
        abs_v = _abs(v0) + (1 - b2) * abs_d * abs_d
    else:
        abs_v = _abs(v0) + abs_d * abs_d

    def dev(quantity, key, expected, observed, err=None, bnd=None, hint=None, detail=None):
        eq, src = equation(alg, key)
        return Deviation(rung.name, r, None, quantity, list(expected), list(observed), eq, src, sampled=sampled,
                         hint=hint, error=err, bound=bnd, detail=detail)

    ok, err, bnd = ctx.check(out["m"], step.m, abs_m, n["m"])
    if not ok:
        d_obs = (exact_vector(out["m"]) - b1 * m0) / (1 - b1)
        deltas = [y_end[i] - x for i in B]
        hint = None
        for kind, w in dg.weight_candidates(spec, B).items():
            if kind == "uniform":
                continue
            alt = sum((wi * dl for wi, dl in zip(w, deltas)), x * 0)
            if dg.close(ctx, d_obs, alt, abs_d / (1 - b1), n["m"]):
                hint = f"the pseudo-gradient Delta averages the clients with {dg.WEIGHT_TEXT[kind]} (Algorithm 2: 1/|S|)"
                break
        if hint is None and dg.close(ctx, out["m"], delta, abs_d, n["m"]):
            hint = "m_t = Delta_t: no first-moment averaging (beta_1 ignored)"
        return dev("first moment m", "m", step.m, out["m"], err, bnd, hint)
    ok, err, bnd = ctx.check(out["v"], step.v, abs_v, n["v"])
    if not ok:
        hint = None
        others = {"fedadam": "FedAdam's", "fedyogi": "FedYogi's", "fedadagrad": "FedAdagrad's"}
        for other in ADAPTIVE:
            if other != alg:
                alt = server_step(other, x, m0, v0, delta, eta=spec.eta_g, beta_1=b1, beta_2=b2, tau=spec.tau)
                if dg.close(ctx, out["v"], alt.v, abs_v, n["v"]):
                    hint = f"the second moment follows {others[other]} update, not {others[alg]}"
        return dev("second moment v", "v", step.v, out["v"], err, bnd, hint)
    e_m = ctx.tol.bound(abs_m, n["m"])
    e_v = ctx.tol.bound(abs_v, n["v"])
    ebound = x_error_bound(x, step.m, step.v, e_m, e_v, eta=spec.eta_g, tau=spec.tau, u=ctx.tol.u)
    if any(e is None for e in ebound):
        raise InputError("--precision", f"{ctx.tol.precision} is too coarse to bound the adaptive step")
    xo = [Fraction(float(v)) for v in out["x"]]
    mid = step.x_mid()
    worst, ok = 0.0, True
    for o, ball, e in zip(xo, step.x, ebound):
        diff = abs(to_arb(o) - ball)
        if not (diff.upper() <= to_arb(e)):
            ok = False
        worst = max(worst, float(diff.upper().mid()))
    if ok:
        ctx.max_ratio = max(ctx.max_ratio, max((float(abs(o - m_) / e) if e else 0.0) for o, m_, e in zip(xo, mid, ebound)))
        return None
    hint = None
    for t in (r, r + 1):
        rho = bias_correction(b1, b2, t)
        alt = server_step(alg, x, m0, v0, delta, eta=spec.eta_g, beta_1=b1, beta_2=b2, tau=spec.tau, eta_factor=rho)
        if all(abs(to_arb(o) - ball).upper() <= to_arb(4 * e) for o, ball, e in zip(xo, alt.x, ebound)):
            power = "r" if t == r else "(r+1)"
            hint = (f"the server step is eta sqrt(1 - beta_2^{power}) / (1 - beta_1^{power}): Adam's bias correction"
                    + (" with the exponent r + 1 (one ahead of the round)" if t == r + 1 else "")
                    + "; Algorithm 2 has no bias correction")
            break
    if hint is None:
        alt = server_step(alg, x, m0, v0, delta, eta=spec.eta_g, beta_1=b1, beta_2=b2, tau=Fraction(0))
        if all(abs(to_arb(o) - ball).upper() <= to_arb(4 * e) for o, ball, e in zip(xo, alt.x, ebound)):
            hint = "tau is not added to sqrt(v_t) (or it is added inside the square root)"
    return dev("model x", "model", mid, out["x"], worst, float(max(ebound)), hint,
               "the exact x_{t+1} involves square roots: shown from a certified ball (radius < 1e-50)")


# ----------------------------------------------------------------------------- the law test

def _law_test(runner, obj, ctx: _Ctx, r, st, B, index):
    """Compare R replicates of round r from ``st`` with sampled set B against the exact mean and
    covariance of the round's outputs. Returns (deviation | None, summary text)."""
    spec, rung = ctx.spec, ctx.rung
    R, seed = runner.R, runner.seed
    scaf = spec.algorithm == "scaffold"
    shapes, optional = _shapes(spec)
    if spec.adaptive:
        eq, src = equation(spec.algorithm, "calls")
        return Deviation(rung.name, r, None, "oracle calls", [], [], eq, src, sampled=list(B),
                         hint="the oracle calls cannot be matched to the algorithm's (points differ from the local "
                              "iterates); the law test covers FedAvg, FedProx and SCAFFOLD only"), ""
    x = exact_vector(st["x"])
    c = exact_vector(st["c"]) if scaf else None
    C = exact_vector(st["c_clients"]) if scaf else None
    exp = replay_round(ctx.A, ctx.b, spec, x, c, C, B)
    mags = magnitudes(ctx.A, ctx.b, spec, x, c, C, B)
    forms = [exp.x]
    labels = [(None, "model x", k) for k in range(spec.d)]
    absv = list(mags["model"])
    ns = [ctx.counts["model"]] * spec.d
    if scaf:
        forms += [exp.c, exp.c_clients.reshape(spec.N * spec.d, -1)]
        labels += [(None, "server control c", k) for k in range(spec.d)]
        labels += [(i, f"client control c_{i}", k) for i in range(spec.N) for k in range(spec.d)]
        absv += list(mags["server control"])
        ns += [ctx.counts["server control"]] * spec.d
        for i in range(spec.N):
            absv += list(mags["c_plus"][i]) if i in B else list(_abs(C[i]))
            ns += [ctx.counts["control"]] * spec.d
    F = np.concatenate(forms, axis=0)
    mu = mean(F)
    cov = covariance(F)
    D = F.shape[0]
    V = np.empty((R, D))
    noise_rep = None
    for rep in range(R):
        noise_rep = NoiseSource(spec.scale, spec.d, (seed, index, rep + 1))
        oracle = RecordingOracle(ctx.grad, spec.N, spec.d, r, noise_rep)
        out = call_round(obj, _round_input(spec, r, st, B, oracle), shapes, optional)
        for i in B:
            if oracle.count(i) < spec.calls:
                eq, src = equation(spec.algorithm, "calls")
                return Deviation(rung.name, r, i, f"oracle calls of client {i}", [spec.calls], [oracle.count(i)], eq,
                                 src, sampled=list(map(int, B))), ""
        parts = [out["x"]] + ([out["c"], out["c_clients"].ravel()] if scaf else [])
        V[rep] = np.concatenate(parts)
    random_idx = [j for j in range(D) if cov[j, j] != 0]
    pairs = [(j, k) for a, j in enumerate(random_idx) for k in random_idx[a:]]
    n_tests = len(random_idx) + len(pairs)
    zstar = NormalDist().inv_cdf(1 - LAW_ALPHA / (2 * max(1, n_tests)))
    mu_f = np.array([float(v) for v in mu])
    sampled = list(map(int, B))

    def law_dev(j, k, expected, observed, stat, what):
        client, quantity, coord = labels[j]
        key = {"model x": "model" if scaf else f"model {spec.mode}", "server control c": "server control"}.get(
            quantity, "control I" if spec.option == "I" else "control II")
        eq, src = equation(spec.algorithm, key)
        if k is not None and k != j:
            c2, q2, coord2 = labels[k]
            quantity = f"covariance of {quantity}[{coord}] and {q2}[{coord2}]"
            eq = ("every oracle call draws a fresh sample, independent of the others; " + eq)
            src = "seed 000 (the Run oracle law: fresh, conditionally independent samples); " + src
        elif what.startswith("second moment"):
            quantity = f"variance of {quantity}[{coord}]"
        else:
            quantity = f"mean of {quantity}[{coord}]"
        return Deviation(rung.name, r, client, quantity, [expected], [observed], eq, src, sampled=sampled, kind="law",
                         detail=f"{what}: statistic {stat:.3g}, threshold {zstar:.3g} (family-wise level {LAW_ALPHA:g}, "
                                f"{n_tests} tests, R = {R} replicates)")

    for j in range(D):  # deterministic coordinates: every replicate exact
        if cov[j, j] == 0:
            ok, ratio, err, bnd = ctx.tol.compare(V[:, j], [mu[j]] * R, [absv[j]] * R, ns[j])
            if not ok:
                return law_dev(j, None, mu[j], float(V[:, j].mean()), ratio, "deterministic value (error / bound)"), ""
    for j in random_idx:
        z = (V[:, j].mean() - mu_f[j]) / math.sqrt(float(cov[j, j]) / R)
        if abs(z) > zstar:
            return law_dev(j, None, mu[j], float(V[:, j].mean()), z, "mean (z with the exact variance)"), ""
    Z = V - mu_f
    for j, k in pairs:
        p = Z[:, j] * Z[:, k]
        sd = float(p.std(ddof=1))
        t = (p.mean() - float(cov[j, k])) / (sd / math.sqrt(R)) if sd > 0 else (0.0 if p.mean() == float(cov[j, k])
                                                                              else math.inf)
        if abs(t) > zstar:
            return law_dev(j, k, cov[j, k], float(p.mean()), t, "second moment (t of the replicate products)"), ""
    return None, (f"mean and second moments of the round's {D} outputs agree with the exact law ({n_tests} tests at "
                  f"family-wise level {LAW_ALPHA:g}, R = {R})")


# ----------------------------------------------------------------------------- Local SGD

def _run_local_sgd(runner, rung, sequential: bool) -> RungResult:
    res = RungResult(rung.name, rung.description, rung.parameters(), rounds=rung.T)
    p = rung.problem
    A, b = p.A_exact, p.b_exact
    n, d, W, bsz = p.N, p.d, rung.workers, rung.b
    sync = set(rung.sync_times)
    X0 = np.array([[float(v) for v in rung.x0]] * W)
    combos = draw_combinations(n, W, bsz)
    plan = path_plan(len(combos), rung.T)
    shapes = {"x": (W, d)}
    eq, src = equation("local-sgd", "worker")
    zero_noise = NoiseSource(Fraction(0), d, (0, 0, 0))
    nops = local_sgd_rounding_count(bsz, W)
    absA = [np.vectorize(abs, otypes=[object])(A[j]) for j in range(n)]
    absb = [_abs(b[j]) for j in range(n)]
    worst = [0.0]

    def grad(j, y):
        return A[j].dot(np.array(y, dtype=object)) - b[j]

    def step(obj, t, X, draws, watch):
        oracle = RecordingOracle(grad, n, d, t, zero_noise, what="component")
        inp = LocalSGDStep(algorithm="local-sgd", t=t, n=n, workers=W, b=bsz, d=d, eta=float(rung.eta[t]),
                           sync=(t + 1) in sync, x=readonly(X), draws=np.array(draws), oracle=oracle)
        out = runner.call(obj, lambda: call_round(obj, inp, shapes),
                          f"rung '{rung.name}', time step {t}", watch=watch)
        res.adapter_calls += 1
        Xs = exact_vector(X)
        want, Z = replay_local_sgd_step(A, b, Xs, draws, rung.eta[t], (t + 1) in sync)
        absZ = np.array([_abs(Xs[k]) + rung.eta[t] * sum((absA[j].dot(_abs(Xs[k])) + absb[j] for j in draws[k]),
                                                        _abs(Xs[k]) * 0) / bsz for k in range(W)], dtype=object)
        absX = (np.array([absZ.sum(axis=0) / W] * W, dtype=object) if (t + 1) in sync else absZ).reshape(W, d)
        o = out["x"]
        for k in range(W):
            ok, ratio, err, bnd = runner.tol.compare(o[k], want[k], absX[k], nops)
            if not ok:
                return o, Deviation(rung.name, t + 1, k, f"worker iterate x^{k}_{t + 1}", list(want[k]), list(o[k]), eq,
                                    src, sampled=draws.tolist(), kind="draws", error=err, bound=bnd,
                                    hint=_local_sgd_hint(runner.tol, A, b, Xs, draws, rung.eta[t], (t + 1) in sync, o,
                                                         k, absX[k], nops))
            worst[0] = max(worst[0], ratio)
        return o, None

    def finish(dev, paths):
        return _finish(res, dev, paths, worst[0])

    if sequential:
        for p_idx, path in enumerate(plan):
            obj = fresh_copy(runner.proto)
            X = X0
            for t, opt in enumerate(path):
                X, dev = step(obj, t, X, combos[opt][0], False)
                if dev is not None:
                    return finish(dev, p_idx + 1)
        return finish(None, len(plan))
    obj = runner.adapter
    frontier = {(): (X0, Fraction(1), np.array([[Fraction(float(v)) for v in rung.x0]] * W, dtype=object))}
    law_level = None
    for t in range(rung.T):
        nxt = {}
        for pref in sorted({p[:t + 1] for p in plan}):
            X, prob, Xe = frontier[pref[:-1]]
            draws, pd = combos[pref[-1]]
            out, dev = step(obj, t, X, draws, True)
            if dev is not None:
                return finish(dev, len(nxt) + 1)
            ex = replay_local_sgd_step(A, b, Xe, draws, rung.eta[t], (t + 1) in sync)[0]
            nxt[pref] = (out, prob * pd if t < BRANCH_ROUNDS else prob, ex)
        frontier = nxt
        if t + 1 == min(BRANCH_ROUNDS, rung.T):
            law_level = (t + 1, dict(frontier))
    tt, level = law_level
    law_exact = [sum((pr * Xe[:, q].sum() / W for _, pr, Xe in level.values()), Fraction(0)) for q in range(d)]
    law_obs = [sum((pr * sum(Fraction(float(v)) for v in X[:, q]) / W for X, pr, _ in level.values()), Fraction(0))
               for q in range(d)]
    res.law = {"quantity": f"E[mean_k x^k_{tt}] over the {len(level)} draw sequences of the first {tt} steps "
                           "(exact probabilities)",
               "exact": [rational_str(v) for v in law_exact], "implementation": [exact_decimal(v, 17) for v in law_obs]}
    return finish(None, len(plan))


def _local_sgd_hint(tol, A, b, X, draws, eta, sync, out, k, absval, nops):
    _, Z = replay_local_sgd_step(A, b, X, draws, eta, sync)
    W = X.shape[0]

    def near(cand):
        return tol.compare(out[k], cand, absval * 4, nops)[0]

    if sync and near(Z[k]):
        return "the workers were not averaged at a synchronisation time"
    if not sync and near(Z.sum(axis=0) / W):
        return "the workers were averaged at a time step that is not a synchronisation time"
    bsz = draws.shape[1]
    Zs, _ = replay_local_sgd_step(A, b, X, draws, eta * bsz, sync)
    if bsz > 1 and near(Zs[k]):
        return "the minibatch gradient is summed instead of averaged (missing 1/b)"
    return None
