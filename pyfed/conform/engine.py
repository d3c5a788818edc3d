"""Conformance of an implementation to the exact law of FedAvg, FedProx, SCAFFOLD or Local SGD.

:func:`conform` runs an adapter (:mod:`pyfed.conform.protocol`) on every rung of the ladder
(:mod:`pyfed.conform.ladder`), on every path of client subsets (every combination of component
draws for Local SGD), two rounds each, breadth first: all round-1 paths, then all round-2 paths.
Each round starts from the state the implementation itself returned (so errors never accumulate)
and is compared with the exact round from that same state (:mod:`pyfed.conform.law`):

* **Deterministic comparison.** A float is accepted when it is within :data:`ULP_BOUND` units in
  the last place of the round's largest magnitude (inputs, local iterates, outputs) of the exact
  rational value. With noise, the draws are matched: the exact round is replayed with the very
  signs the implementation's oracle calls received, so this comparison is exact too.
* **Law comparison** (only with noise, when the draws cannot be matched because the
  implementation calls the oracle in another order than the seed's): R replicates of the round
  with fresh draws from one start state and sampled set; every output coordinate's mean is
  tested against its exact mean with the exact variance (z statistic), every pair's second
  central moment against its exact covariance (Student t of the replicate products), all at
  family-wise level :data:`LAW_ALPHA` (Bonferroni, normal approximation).

What is checked, in order, each round: the number of oracle calls of every selected client, the
points of those calls (the local iterates y_{i,k}), the client controls (SCAFFOLD), the model,
the server control (SCAFFOLD); at initialisation (round 0) the state SCAFFOLD builds from
(x_0, c_i^0). The first deviation of a rung is diagnosed: rung, round, client, quantity, the
expected exact value and the observed float, the equation it contradicts (seed 002 / Algorithm 1
/ the Lean procedure, :data:`pyfed.conform.law.EQUATIONS`) and, when the observed value equals a
known wrong formula evaluated exactly, which one (the hint).

Engines never print: :func:`conform` returns a :class:`ConformanceReport`.

Why one module: the federated and the Local SGD ladders share the per-round context (_Ctx), the
comparison of floats with exact values and the diagnosis of known mistakes (the hints read the same
deviation records); each step of a conformance run is a private helper of conform, none is useful
alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from statistics import NormalDist

import numpy as np

from ..errors import InputError, check_int
from ..exact import exact_decimal, rational_str
from .ladder import Rung, draw_combinations, ladder, local_sgd_ladder, subsets
from .law import (covariance, equation, exact_vector, mean, replay_local_sgd_step, replay_round, value)
from .protocol import (ALGORITHMS, LocalSGDStep, NoiseSource, RecordingOracle, RoundInput,
                       adapter_attribute, call_init, call_round, readonly)

__all__ = ["conform", "resolve", "ConformanceReport", "RungResult", "Deviation", "ULP_BOUND", "LAW_ALPHA",
           "LAW_REPLICATES"]

#: Floats are compared with the exact rational law within this many ulps of the round's largest
#: magnitude (about 9.1e-13 relative); the deviations the ladder is built to expose are of order 1.
ULP_BOUND = 4096
#: Family-wise level of the law test (all mean and second-moment tests of one round together).
LAW_ALPHA = 1e-6
#: Replicates of the law test.
LAW_REPLICATES = 2000


@dataclass
class Deviation:
    """The first deviation of a rung from the algorithm's law.

    Attributes
    ----------
    rung : str
    round : int
        1, 2, ... (seed numbering); 0 for the initial state (SCAFFOLD); the time step t + 1 for
        Local SGD.
    client : int | None
        The client (worker for Local SGD), 0-based; None for server quantities.
    quantity : str
        "oracle calls", "local iterate y_{i,k}", "client control c_i", "model x",
        "aggregation weights", "server control c", "worker iterate x^k", ... in words.
    expected : list of Fraction
        The exact values (the law's mean / covariance for a law deviation).
    observed : list of float
        The implementation's values (the replicate mean / second moment for a law deviation).
    equation, source : str
        The equation contradicted and where it is defined.
    sampled : list of int | None
        The sampled set S_r of the round (draws for Local SGD).
    hint : str | None
        A known wrong formula that reproduces the observed value exactly, in words.
    kind : str
        "exact" (a deterministic or matched-draw comparison) or "law" (a statistical test).
    error_ulps : float | None
        Largest |observed - expected| in ulps of the round's scale (exact comparisons).
    detail : str | None
        The test statistic of a law deviation.
    """

    rung: str
    round: int
    client: int | None
    quantity: str
    expected: list
    observed: list
    equation: str
    source: str
    sampled: list | None = None
    hint: str | None = None
    kind: str = "exact"
    error_ulps: float | None = None
    detail: str | None = None

    def headline(self) -> str:
        """One line: where and what."""
        where = "initialisation" if self.round == 0 else f"round {self.round}"
        who = "" if self.client is None else f", client {self.client}"
        return f"{self.rung}: {where}{who}: {self.quantity} deviates from the algorithm"

    def lines(self) -> list[str]:
        """The diagnosis in words, one fact per line."""
        exp = ", ".join(_show(v) for v in self.expected)
        obs = ", ".join(_show_float(v) for v in self.observed)
        out = [self.headline()]
        if self.sampled is not None:
            out.append(f"sampled set S_r = {{{', '.join(map(str, self.sampled))}}}" if self.kind != "draws"
                       else f"draws {self.sampled}")
        label = "law" if self.kind == "law" else "exact"
        out.append(f"expected ({label}): [{exp}]")
        out.append(f"observed: [{obs}]" + (f"  ({self.error_ulps:.3g} ulps off)" if self.error_ulps is not None
                                           and math.isfinite(self.error_ulps) else ""))
        if self.detail:
            out.append(self.detail)
        out.append(f"contradicts: {self.equation}")
        out.append(f"source: {self.source}")
        if self.hint:
            out.append(f"likely cause: {self.hint}")
        return out

    def to_json(self) -> dict:
        return {"rung": self.rung, "round": self.round, "client": self.client, "quantity": self.quantity,
                "expected": [rational_str(v) for v in self.expected],
                "expected_decimal": [_show(v) for v in self.expected],
                "observed": [float(v) for v in self.observed], "equation": self.equation, "source": self.source,
                "sampled": self.sampled, "hint": self.hint, "kind": self.kind,
                "error_ulps": None if self.error_ulps is None or not math.isfinite(self.error_ulps) else self.error_ulps,
                "detail": self.detail}


def _show(v) -> str:
    f = Fraction(v)
    return rational_str(f) if len(rational_str(f)) <= 24 else exact_decimal(f, 17)


def _show_float(v) -> str:
    return repr(float(v))


@dataclass
class RungResult:
    """The outcome of one rung.

    Attributes
    ----------
    name, description : str
    parameters : dict
    status : str
        "conforms", "conforms in law" or "deviates".
    paths : int
        Sample paths (subset or draw sequences) run to the end (or to the deviation).
    adapter_calls : int
    deviation : Deviation | None
    max_ulps : float
        Largest error seen in the rung's exact comparisons (ulps of each round's scale).
    law : dict | None
        For a noise-free rung that conforms: E[x_T] under the sampling law, exact, and the same
        average of the implementation's outputs (exact average of its floats).
    note : str | None
    """

    name: str
    description: str
    parameters: dict
    status: str = "conforms"
    paths: int = 0
    adapter_calls: int = 0
    deviation: Deviation | None = None
    max_ulps: float = 0.0
    law: dict | None = None
    note: str | None = None

    def to_json(self) -> dict:
        return {"name": self.name, "description": self.description, "parameters": self.parameters,
                "status": self.status, "paths": self.paths, "adapter_calls": self.adapter_calls,
                "max_error_ulps": self.max_ulps, "law": self.law, "note": self.note,
                "deviation": None if self.deviation is None else self.deviation.to_json()}


@dataclass
class ConformanceReport:
    """The result of :func:`conform`.

    Attributes
    ----------
    algorithm : str
    option, mode : str | None
    rungs : list of RungResult
    initial_state : str
        Who built SCAFFOLD's initial state ("adapter" / "pyfed").
    seed : int
    """

    algorithm: str
    option: str | None
    mode: str | None
    rungs: list
    seed: int
    initial_state: str | None = None

    @property
    def conforms(self) -> bool:
        """No rung deviates."""
        return all(r.status != "deviates" for r in self.rungs)

    @property
    def first_deviation(self) -> Deviation | None:
        """The deviation of the first rung that deviates."""
        return next((r.deviation for r in self.rungs if r.deviation is not None), None)

    def label(self) -> str:
        """The algorithm as checked, e.g. "SCAFFOLD option II", "FedAvg (uniform-client mode)"."""
        if self.algorithm == "scaffold":
            return f"SCAFFOLD option {self.option}"
        if self.algorithm == "local-sgd":
            return "Local SGD"
        name = "FedAvg" if self.algorithm == "fedavg" else "FedProx"
        return f"{name} ({'uniform-client' if self.mode == 'uniform' else 'count-weighted'} mode)"

    def to_json(self) -> dict:
        return {"schema": "pyfed.conform/1", "algorithm": self.algorithm, "option": self.option, "mode": self.mode,
                "label": self.label(), "conforms": self.conforms, "seed": self.seed,
                "initial_state": self.initial_state,
                "comparison": {"ulp_bound": ULP_BOUND, "law_alpha": LAW_ALPHA, "law_replicates": LAW_REPLICATES,
                               "oracle_noise": "xi = s * eps, eps uniform on {-1, +1}^d (Rademacher), s dyadic; "
                                               "draws keyed by (seed, rung, replicate, round, client, call)"},
                "rungs": [r.to_json() for r in self.rungs],
                "first_deviation": None if self.first_deviation is None else self.first_deviation.to_json()}


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
    if algorithm == "local-sgd":
        if mode is not None:
            raise InputError("--mode", "applies to fedavg and fedprox only")
        return algorithm, None, None
    mode = mode or adapter_attribute(adapter, "mode") or "uniform"
    if mode not in ("uniform", "weighted"):
        raise InputError("--mode", f"must be uniform or weighted, got {mode!r}")
    return algorithm, None, mode


def conform(adapter, algorithm=None, option=None, mode=None, *, seed: int = 0, rungs=None,
            law_replicates: int | None = None) -> ConformanceReport:
    """Run ``adapter`` on the ladder of ``algorithm`` and compare it with the exact law.

    Parameters
    ----------
    adapter : object
        An adapter (:mod:`pyfed.conform.protocol`).
    algorithm : "scaffold" | "fedavg" | "fedprox" | "local-sgd" | None
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

    Returns
    -------
    ConformanceReport
        One :class:`RungResult` per rung (every rung is run, so the report characterises the
        implementation: which rungs conform and where each deviates).

    Raises
    ------
    InputError
        Bad ``algorithm`` / ``option`` / ``mode`` / ``seed`` / ``rungs`` (named as the flags).
    AdapterError
        The adapter is broken (raises, wrong keys, shapes, NaN); an InputError naming ``ADAPTER``.
    """
    algorithm, option, mode = resolve(adapter, algorithm, option, mode)
    seed = check_int("--seed", seed, minimum=0)
    R = LAW_REPLICATES if law_replicates is None else check_int("law_replicates", law_replicates, minimum=10)
    if algorithm == "local-sgd":
        all_rungs = local_sgd_ladder()
    else:
        all_rungs = ladder(algorithm, option, mode)
    if rungs is not None:
        names = [r.name for r in all_rungs]
        bad = [n for n in rungs if n not in names]
        if bad:
            raise InputError("rungs", f"unknown rung {bad[0]!r} (rungs: {', '.join(names)})")
        all_rungs = [r for r in all_rungs if r.name in rungs]
    report = ConformanceReport(algorithm, option, mode, [], seed)
    for index, rung in enumerate(all_rungs):
        if algorithm == "local-sgd":
            res = _run_local_sgd(adapter, rung)
        else:
            res, built = _run_federated(adapter, rung, index, seed, R)
            if algorithm == "scaffold":
                report.initial_state = "adapter (init)" if built else "pyfed (the adapter has no init)"
        report.rungs.append(res)
    return report


# ----------------------------------------------------------------------------- federated rungs

def _shapes(spec) -> dict:
    if spec.algorithm == "scaffold":
        return {"x": (spec.d,), "c": (spec.d,), "c_clients": (spec.N, spec.d)}
    return {"x": (spec.d,)}


class _Ctx:
    """The exact data of a rung and its running maximum error."""

    def __init__(self, rung: Rung):
        self.rung = rung
        self.spec = rung.spec
        p = rung.problem
        self.A, self.b = p.A_exact, p.b_exact
        self.max_ulps = 0.0

    def grad(self, i, y):
        return self.A[i].dot(np.array(y, dtype=object)) - self.b[i]


def _within(obs, exp, scale) -> tuple[bool, float]:
    """(all within ULP_BOUND ulps of scale, largest error in ulps)."""
    u = math.ulp(scale) if scale > 0 else math.ulp(1.0)
    worst = 0.0
    for o, e in zip(np.ravel(obs), np.ravel(exp)):
        diff = abs(Fraction(float(o)) - e)
        if diff:
            worst = max(worst, float(diff / Fraction(u)))
    return worst <= ULP_BOUND, worst


def _maxabs(*arrays) -> float:
    m = 0.0
    for a in arrays:
        for v in np.ravel(np.asarray(a, dtype=object)):
            m = max(m, abs(float(v)))
    return m


def _eps(spec, noise: NoiseSource, r: int) -> np.ndarray:
    """The signs (m,) of every (client, call) of round r, in the column layout of the law."""
    if spec.m == 0:
        return np.zeros(0, dtype=object)
    e = np.empty(spec.m, dtype=object)
    for i in range(spec.N):
        for j in range(spec.K + 1):
            c = spec.column(i, j) - 1
            e[c:c + spec.d] = [int(v) for v in noise.signs(r, i, j)]
    return e


def _run_federated(adapter, rung: Rung, index: int, seed: int, R: int):
    spec = rung.spec
    ctx = _Ctx(rung)
    res = RungResult(rung.name, rung.description, rung.parameters())
    shapes = _shapes(spec)
    x0 = np.array([float(v) for v in rung.x0])
    built = False
    if spec.algorithm == "scaffold":
        c0 = np.array([[float(v) for v in row] for row in rung.c0])
        state, built = call_init(adapter, x0, c0, shapes)
        if built:
            dev = _check_init(ctx, state)
            if dev is not None:
                res.status, res.deviation = "deviates", dev
                return res, built
    else:
        state = {"x": x0}
    noise = NoiseSource(spec.scale, spec.d, (seed, index, 0))
    exact_x = exact_vector(x0) if spec.scale == 0 else None
    exact_state = _exact_state(state, spec) if spec.scale == 0 else None
    frontier = [((), Fraction(1), state, exact_state)]
    subs = subsets(spec.N, spec.S)
    for r in range(1, spec.T + 1):
        nxt = []
        for path, prob, st, ex in frontier:
            for B, p in subs:
                oracle = RecordingOracle(ctx.grad, spec.N, spec.d, r, noise)
                inp = _round_input(spec, r, st, B, oracle)
                out = call_round(adapter, inp, shapes)
                res.adapter_calls += 1
                dev, pathwise_ok = _check_round(ctx, r, st, out, B, oracle, noise)
                if dev is None and not pathwise_ok:
                    # noise, the oracle calls not in the seed's order: compare in law
                    dev, stats = _law_test(adapter, ctx, r, st, B, index, seed, R, shapes)
                    res.adapter_calls += R
                    if dev is None:
                        res.status = "conforms in law"
                        res.note = (f"the oracle calls are not in the seed's order, so the draws cannot be matched; "
                                    f"round {r} from S_r = {{{', '.join(map(str, B))}}}: {stats}")
                        res.paths = len(frontier) * len(subs)
                        res.max_ulps = ctx.max_ulps
                        return res, built
                if dev is not None:
                    res.status, res.deviation = "deviates", dev
                    res.max_ulps = ctx.max_ulps
                    res.paths = len(nxt) + 1
                    return res, built
                ex_next = None
                if ex is not None:
                    e = replay_round(ctx.A, ctx.b, spec, ex["x"], ex.get("c"), ex.get("C"), B, every_client=False)
                    ex_next = {"x": value(e.x, ())}
                    if e.c is not None:
                        ex_next["c"], ex_next["C"] = value(e.c, ()), value(e.c_clients, ())
                nxt.append((path + (B,), prob * p, out, ex_next))
        frontier = nxt
    res.paths = len(frontier)
    res.max_ulps = ctx.max_ulps
    if exact_x is not None:
        d = spec.d
        law_exact = [sum((prob * ex["x"][k] for _, prob, _, ex in frontier), Fraction(0)) for k in range(d)]
        law_obs = [sum((prob * Fraction(float(st["x"][k])) for _, prob, st, _ in frontier), Fraction(0))
                   for k in range(d)]
        res.law = {"quantity": f"E[x_{spec.T}] over the {len(frontier)} equally likely sampling paths",
                   "exact": [rational_str(v) for v in law_exact],
                   "implementation": [exact_decimal(v, 17) for v in law_obs]}
    return res, built


def _exact_state(state, spec) -> dict:
    out = {"x": exact_vector(state["x"])}
    if spec.algorithm == "scaffold":
        out["c"], out["C"] = exact_vector(state["c"]), exact_vector(state["c_clients"])
    return out


def _round_input(spec, r, st, B, oracle) -> RoundInput:
    scaf = spec.algorithm == "scaffold"
    return RoundInput(
        algorithm=spec.algorithm, option=spec.option, mode=spec.mode, round=r, N=spec.N, S=spec.S, K=spec.K,
        d=spec.d, eta_l=float(spec.eta_l), eta_g=float(spec.eta_g),
        mu=None if spec.mu is None else float(spec.mu), counts=readonly(np.array(spec.counts)).astype(np.int64),
        x=readonly(st["x"]), c=readonly(st["c"]) if scaf else None,
        c_clients=readonly(st["c_clients"]) if scaf else None,
        sampled=np.array(B, dtype=np.int64), oracle=oracle)


def _check_init(ctx: _Ctx, state) -> Deviation | None:
    """The SCAFFOLD initial state the adapter built against x_0, c_i^0, c^0 = N^-1 sum_i c_i^0."""
    rung = ctx.rung
    N, d = rung.spec.N, rung.spec.d
    x0 = np.array(rung.x0, dtype=object)
    c0 = np.array(rung.c0, dtype=object).reshape(N, d)
    cbar = c0.sum(axis=0) / N
    scale = _maxabs(x0, c0, state["x"], state["c"], state["c_clients"], 1)
    eq, src = equation("scaffold", "init")
    grads = np.array([ctx.grad(i, x0) for i in range(N)], dtype=object).reshape(N, d)
    for i in range(N):
        ok, err = _within(state["c_clients"][i], c0[i], scale)
        if not ok:
            hint = _match_named(state["c_clients"][i], scale, [
                ("zero", np.zeros(d, dtype=object), "the client controls are initialised to zero, ignoring the given c_i^0"),
                ("grad", grads[i], "the client controls are initialised to the gradients at x_0 instead of the given c_i^0")])
            return Deviation(rung.name, 0, i, "client control c_i^0", list(c0[i]), list(state["c_clients"][i]), eq, src,
                             hint=hint, error_ulps=err)
    ok, err = _within(state["c"], cbar, scale)
    if not ok:
        hint = _match_named(state["c"], scale, [
            ("zero", np.zeros(d, dtype=object), "the server control is initialised to zero while the client controls are "
                                                "not: c^0 != N^-1 sum_i c_i^0, so c^r stays off the clients' mean"),
            ("gradmean", grads.sum(axis=0) / N, "the server control is initialised to the mean gradient at x_0 instead "
                                                "of the mean of the given client controls")])
        return Deviation(rung.name, 0, None, "server control c^0", list(cbar), list(state["c"]), eq, src, hint=hint,
                         error_ulps=err)
    ok, err = _within(state["x"], x0, scale)
    if not ok:
        return Deviation(rung.name, 0, None, "model x_0", list(x0), list(state["x"]), eq, src, error_ulps=err)
    return None


def _match_named(observed, scale, candidates):
    """The text of the first candidate (name, exact value, text) the observed value equals."""
    for _, val, text in candidates:
        ok, _ = _within(observed, val, scale)
        if ok:
            return text
    return None


def _check_round(ctx: _Ctx, r, st, out, B, oracle: RecordingOracle, noise) -> tuple[Deviation | None, bool]:
    """(deviation, pathwise ok). With noise, oracle calls at other points than the seed's local
    iterates in the seed's order mean the draws cannot be matched (pathwise ok = False): the
    caller tests the law. When the calls follow the seed's order, the draws are matched and the
    outputs are compared exactly."""
    spec, rung = ctx.spec, ctx.rung
    scaf = spec.algorithm == "scaffold"
    alg = spec.algorithm
    x = exact_vector(st["x"])
    c = exact_vector(st["c"]) if scaf else None
    C = exact_vector(st["c_clients"]) if scaf else None
    exp = replay_round(ctx.A, ctx.b, spec, x, c, C, B)
    eps = _eps(spec, noise, r)
    noisy = spec.m > 0
    ev = {k: value(v, eps) for k, v in (("x", exp.x),)}
    y_end = {i: value(v, eps) for i, v in exp.y_end.items()}
    c_plus = {i: value(v, eps) for i, v in exp.c_plus.items()}
    points = {i: [value(p, eps) for p in pts] for i, pts in exp.points.items()}
    if scaf:
        ev["c"], ev["C"] = value(exp.c, eps), value(exp.c_clients, eps)
    scale = _maxabs(x, ev["x"], out["x"], *(points[i] for i in B), *(y_end[i] for i in B),
                    *(() if not scaf else (c, C, ev["c"], ev["C"], out["c"], out["c_clients"],
                                           *(c_plus[i] for i in B))))
    sampled = [int(i) for i in B]

    def dev(client, quantity, key, expected, observed, err, hint=None):
        eq, src = equation(alg, key)
        return Deviation(rung.name, r, client, quantity, list(expected), list(observed), eq, src, sampled=sampled,
                         hint=hint, error_ulps=err)

    # 1. oracle calls of the selected clients
    for i in B:
        if oracle.count(i) != spec.calls:
            what = (f"K = {spec.K} local steps" + (" and one fresh sample at x (option I)"
                                                    if spec.calls > spec.K else ""))
            hint = None
            if oracle.count(i) and oracle.count(i) % spec.K == 0 and oracle.count(i) != spec.K and spec.calls == spec.K:
                hint = (f"{oracle.count(i)} local steps where the algorithm takes K = {spec.K}: "
                        "K is the number of local steps (not samples x epochs)")
            elif scaf and spec.option == "I" and oracle.count(i) == spec.K:
                hint = "option I's control reuses a local step's sample instead of a fresh call g_i(x)"
            return dev(i, f"oracle calls of client {i} (expected {spec.calls}: {what})", "calls",
                       [spec.calls], [oracle.count(i)], None, hint), True
    calls = {}
    for i, j, y in oracle.calls:
        calls.setdefault(i, []).append(y)
    # 2. the points of the calls: the local iterates (in order; with noise the order decides the draws)
    order_ok = True
    for i in B:
        got = calls.get(i, [])
        for k, want in enumerate(points[i]):
            ok, err = _within(got[k], want, scale)
            ctx.max_ulps = max(ctx.max_ulps, err) if ok else ctx.max_ulps
            if ok:
                continue
            if noisy:
                return None, False
            if any(_within(g, want, scale)[0] for g in got):
                order_ok = False
                continue
            name = (f"local iterate y_{{{i},{k}}}" if k < spec.K else "option I's oracle point (the round-start x)")
            return dev(i, name, "local", want, got[k], err, _local_hint(ctx, i, k, x, c, C, got[k], scale, eps)), True
    # 3. client controls (SCAFFOLD)
    if scaf:
        for i in B:
            ok, err = _within(out["c_clients"][i], ev["C"][i], scale)
            if not ok:
                key = "control I" if spec.option == "I" else "control II"
                return dev(i, f"client control c_{i}", key, ev["C"][i], out["c_clients"][i], err,
                           _control_hint(ctx, i, x, c, C, y_end[i], out["c_clients"][i], scale, eps)), True
            ctx.max_ulps = max(ctx.max_ulps, err)
        for i in range(spec.N):
            if i in B:
                continue
            ok, err = _within(out["c_clients"][i], C[i], scale)
            if not ok:
                hint = ("an unselected client's control was updated as if it had been sampled"
                        if _within(out["c_clients"][i], c_plus.get(i, C[i]), scale)[0] else None)
                return dev(i, f"client control c_{i} (client {i} not sampled)", "unselected control", C[i],
                           out["c_clients"][i], err, hint), True
    # 4. the model
    ok, err = _within(out["x"], ev["x"], scale)
    if not ok:
        return _model_deviation(ctx, r, x, B, y_end, exp, out["x"], scale, err, eps, sampled), True
    ctx.max_ulps = max(ctx.max_ulps, err)
    # 5. the server control (SCAFFOLD)
    if scaf:
        ok, err = _within(out["c"], ev["c"], scale)
        if not ok:
            return dev(None, "server control c", "server control", ev["c"], out["c"], err,
                       _server_control_hint(ctx, c, C, B, c_plus, out, scale)), True
        ctx.max_ulps = max(ctx.max_ulps, err)
    if not order_ok:
        return None, not noisy
    return None, True


# ----------------------------------------------------------------------------- hints

def _local_hint(ctx, i, k, x, c, C, observed, scale, eps):
    """A wrong local step that reproduces y_{i,k}: the control correction with the wrong sign or
    missing, or (FedProx) the proximal term missing."""
    spec = ctx.spec
    alts = []
    if spec.algorithm == "scaffold":
        alts.append(("the control correction has the wrong sign (c_i - c instead of c - c_i)", spec, c, _swap(C, i, c)))
        alts.append(("the local step has no control correction (FedAvg's step)",
                     replace(spec, algorithm="fedavg", mode="uniform", option=None), None, None))
    elif spec.algorithm == "fedprox":
        alts.append(("the local step has no proximal term mu (y - x_{r-1}) (a FedAvg step)",
                     replace(spec, algorithm="fedavg"), None, None))
    for text, sp, cc, CC in alts:
        alt = replay_round(ctx.A, ctx.b, sp, x, cc, CC, [i], every_client=False)
        pts = [value(p, eps) for p in alt.points[i]]
        if k < len(pts) and _within(observed, pts[k], scale)[0]:
            return text
    return None


def _swap(C, i, c):
    """Client controls with c_i replaced by 2c - c_i, so that c - c_i' = -(c - c_i)."""
    out = C.copy()
    out[i] = 2 * c - C[i]
    return out


def _control_hint(ctx, i, x, c, C, yK, observed, scale, eps):
    """Known wrong control updates: another divisor than K eta_l (the number of epochs, samples x
    epochs), the other option's value."""
    spec = ctx.spec
    d = spec.d
    base = C[i] - c
    diff = x - yK
    obs = exact_vector(observed)
    if spec.option == "II" and any(v != 0 for v in diff):
        k = max(range(d), key=lambda q: abs(diff[q]))
        alpha = (obs[k] - base[k]) / diff[k]
        if alpha != 0:
            D = 1 / alpha
            D_r = Fraction(D).limit_denominator(1 << 20)
            if _within(observed, base + diff / D_r, scale)[0]:
                Keta = spec.K * spec.eta_l
                steps = D_r / spec.eta_l
                text = f"the update divides (x - y_{{i,K}}) by {rational_str(D_r)} instead of K eta_l = {rational_str(Keta)}"
                if D_r == 1:
                    text += " (e.g. by the number of local epochs, 1, without K eta_l)"
                elif steps.denominator == 1 and steps != spec.K:
                    n_i = spec.counts[i]
                    text += f": K' = {steps} local steps assumed where the client took K = {spec.K}"
                    if steps % n_i == 0:
                        text += (f" (K' = n_i x epochs = {n_i} samples x {steps // n_i} epoch"
                                 f"{'s' if steps // n_i != 1 else ''}: K must count local steps)")
                return text
    if spec.option == "II":
        g = ctx.grad(i, x)
        if _within(observed, g, scale)[0]:
            return "the control is option I's g_i(x), not option II's"
    else:
        alt = C[i] - c + (x - yK) / (spec.K * spec.eta_l)
        if _within(observed, alt, scale)[0]:
            return "the control is option II's c_i - c + (x - y_{i,K})/(K eta_l), not option I's g_i(x)"
    if _within(observed, C[i], scale)[0]:
        return "the selected client's control was not updated"
    return None


def _server_control_hint(ctx, c, C, B, c_plus, out, scale):
    spec = ctx.spec
    S, N = spec.S, spec.N
    full = c + Fraction(S, N) * sum((c_plus[i] for i in B), c * 0) / S
    dc = sum((c_plus[i] - C[i] for i in B), c * 0) / S
    cands = [
        ("the server added the clients' full controls c_i+ instead of their changes Delta c_i = c_i+ - c_i", full),
        ("the server added the full controls c_i+ (without S/N) instead of their changes Delta c_i", c + sum((c_plus[i] for i in B), c * 0) / S),
        ("the server control update lacks the factor S/N: c + Delta c", c + dc),
        ("the server control is recomputed as the mean of the client controls, which equals the seed's update "
         "only while c^{r-1} = N^-1 sum_i c_i^{r-1} (check the initialisation)", exact_vector(out["c_clients"]).sum(axis=0) / N),
    ]
    for text, val in cands:
        if _within(out["c"], val, scale)[0]:
            return text
    return None


def _weights(spec, B, kind):
    S, N = spec.S, spec.N
    n = sum(spec.counts)
    nS = sum(spec.counts[i] for i in B)
    return {"uniform": [Fraction(1, S)] * S, "weighted": [Fraction(spec.counts[i], n) for i in B],
            "ratio": [Fraction(spec.counts[i], nS) for i in B], "1/N": [Fraction(1, N)] * S}[kind]


_WEIGHT_TEXT = {
    "uniform": "weights 1/S: the uniform-client mode's unweighted average",
    "weighted": "weights n_i/n: the count-weighted mode",
    "ratio": ("client weights normalised within the sampled set, n_i / sum_{j in S_r} n_j: a ratio estimator, biased "
              "under partial participation"),
    "1/N": ("weights 1/N: the sampled clients' changes divided by N, as if every client were averaged with the "
            "unselected ones contributing x_{r-1}"),
}


def _model_deviation(ctx, r, x, B, y_end, exp, observed, scale, err, eps, sampled) -> Deviation:
    spec, rung = ctx.spec, ctx.rung
    alg = spec.algorithm
    key = "model" if alg == "scaffold" else f"model {spec.mode}"
    eq, src = equation(alg, key)
    expected_kind = "uniform" if (alg == "scaffold" or spec.mode == "uniform") else "weighted"
    deltas = [y_end[i] - x for i in B]
    zero = x * 0
    # a known aggregation weighting, with or without the global step
    for eta_g, step_text in ((spec.eta_g, ""), (Fraction(1), "; and no global step eta_g (as if eta_g = 1)")):
        matches = []
        for kind in ("uniform", "weighted", "ratio", "1/N"):
            if kind == expected_kind and eta_g == spec.eta_g:
                continue
            w = _weights(spec, B, kind)
            alt = x + eta_g * sum((wi * dl for wi, dl in zip(w, deltas)), zero)
            if _within(observed, alt, scale)[0]:
                matches.append((kind, w))
        if not matches:
            continue
        if any(kind == expected_kind for kind, _ in matches):
            return Deviation(rung.name, r, None, "model x (global step)", list(value(exp.x, eps)), list(observed),
                             eq, src, sampled=sampled, error_ulps=err,
                             hint=f"the server applies no global step: x_r = the clients' average (eta_g = 1, "
                                  f"expected eta_g = {rational_str(spec.eta_g)})")
        hint = " -- or, equally here, ".join(_WEIGHT_TEXT[kind] for kind, _ in matches) + step_text
        return Deviation(rung.name, r, None, "aggregation weights", _weights(spec, B, expected_kind), matches[0][1],
                         eq, src, sampled=sampled, error_ulps=None, hint=hint,
                         detail="weights of the sampled clients, in the order of S_r (implied by the observed "
                                "model exactly)")
    # every client trained and averaged, ignoring the sample
    if spec.S < spec.N:
        alt = x + spec.eta_g * sum((y_end[i] - x for i in range(spec.N)), zero) / spec.N
        if _within(observed, alt, scale)[0]:
            return Deviation(rung.name, r, None, "model x", list(value(exp.x, eps)), list(observed), eq, src,
                             sampled=sampled, error_ulps=err,
                             hint="the server averaged all N clients' local models (unselected clients trained too) "
                                  "instead of the sampled set S_r only")
    # generic implied weights (exact least squares) when the changes determine them
    w = _implied_weights(deltas, (exact_vector(observed) - x) / spec.eta_g)
    if w is not None and _within(observed, x + spec.eta_g * sum((wi * dl for wi, dl in zip(w, deltas)), zero), scale)[0]:
        return Deviation(rung.name, r, None, "aggregation weights", _weights(spec, B, expected_kind), w, eq, src,
                         sampled=sampled, hint=None,
                         detail="weights of the sampled clients implied by the observed model (exact least squares)")
    return Deviation(rung.name, r, None, "model x", list(value(exp.x, eps)), list(observed), eq, src, sampled=sampled,
                     error_ulps=err)


def _implied_weights(deltas, target):
    """w with sum_i w_i delta_i = target when the deltas are linearly independent (exact normal
    equations); None otherwise."""
    S = len(deltas)
    if S == 0 or S > len(target):
        return None
    M = [[sum(a * b for a, b in zip(deltas[p], deltas[q])) for q in range(S)] for p in range(S)]
    v = [sum(a * b for a, b in zip(deltas[p], target)) for p in range(S)]
    # Gaussian elimination in Fractions
    for col in range(S):
        piv = next((row for row in range(col, S) if M[row][col] != 0), None)
        if piv is None:
            return None
        M[col], M[piv] = M[piv], M[col]
        v[col], v[piv] = v[piv], v[col]
        for row in range(S):
            if row != col and M[row][col] != 0:
                f = M[row][col] / M[col][col]
                M[row] = [a - f * b for a, b in zip(M[row], M[col])]
                v[row] -= f * v[col]
    return [v[k] / M[k][k] for k in range(S)]


# ----------------------------------------------------------------------------- the law test

def _law_test(adapter, ctx: _Ctx, r, st, B, index, seed, R, shapes):
    """Compare R replicates of round r from ``st`` with sampled set B against the exact mean and
    covariance of the round's outputs. Returns (deviation | None, summary text)."""
    spec, rung = ctx.spec, ctx.rung
    scaf = spec.algorithm == "scaffold"
    x = exact_vector(st["x"])
    c = exact_vector(st["c"]) if scaf else None
    C = exact_vector(st["c_clients"]) if scaf else None
    exp = replay_round(ctx.A, ctx.b, spec, x, c, C, B)
    forms = [exp.x]
    labels = [(None, "model x", k) for k in range(spec.d)]
    if scaf:
        forms += [exp.c, exp.c_clients.reshape(spec.N * spec.d, -1)]
        labels += [(None, "server control c", k) for k in range(spec.d)]
        labels += [(i, f"client control c_{i}", k) for i in range(spec.N) for k in range(spec.d)]
    F = np.concatenate(forms, axis=0)
    mu = mean(F)
    cov = covariance(F)
    D = F.shape[0]
    V = np.empty((R, D))
    for rep in range(R):
        noise = NoiseSource(spec.scale, spec.d, (seed, index, rep + 1))
        oracle = RecordingOracle(ctx.grad, spec.N, spec.d, r, noise)
        out = call_round(adapter, _round_input(spec, r, st, B, oracle), shapes)
        for i in B:
            if oracle.count(i) != spec.calls:
                eq, src = equation(spec.algorithm, "calls")
                return Deviation(rung.name, r, i, f"oracle calls of client {i}", [spec.calls], [oracle.count(i)], eq, src,
                                 sampled=list(map(int, B))), ""
        parts = [out["x"]] + ([out["c"], out["c_clients"].ravel()] if scaf else [])
        V[rep] = np.concatenate(parts)
    random_idx = [j for j in range(D) if cov[j, j] != 0]
    pairs = [(j, k) for a, j in enumerate(random_idx) for k in random_idx[a:]]
    n_tests = len(random_idx) + len(pairs)
    zstar = NormalDist().inv_cdf(1 - LAW_ALPHA / (2 * max(1, n_tests)))
    scale = max(1.0, float(np.max(np.abs(V))))
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
        elif what == "second moment":
            quantity = f"variance of {quantity}[{coord}]"
        else:
            quantity = f"mean of {quantity}[{coord}]"
        return Deviation(rung.name, r, client, quantity, [expected], [observed], eq, src, sampled=sampled, kind="law",
                         detail=f"{what}: statistic {stat:.3g}, threshold {zstar:.3g} (family-wise level {LAW_ALPHA:g}, "
                                f"{n_tests} tests, R = {R} replicates)")

    for j in range(D):  # deterministic coordinates: every replicate exact
        if cov[j, j] == 0:
            ok, err = _within(V[:, j], [mu[j]] * R, scale)
            if not ok:
                return law_dev(j, None, mu[j], float(V[:, j].mean()), err, "deterministic value (ulps)"), ""
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

def _run_local_sgd(adapter, rung) -> RungResult:
    res = RungResult(rung.name, rung.description, rung.parameters())
    p = rung.problem
    A, b = p.A_exact, p.b_exact
    n, d, W, bsz = p.N, p.d, rung.workers, rung.b
    sync = set(rung.sync_times)
    X0 = np.array([[float(v) for v in rung.x0]] * W)
    combos = draw_combinations(n, W, bsz)
    frontier = [(Fraction(1), X0, np.array([[Fraction(float(v)) for v in rung.x0]] * W, dtype=object))]
    shapes = {"x": (W, d)}
    eq, src = equation("local-sgd", "worker")
    zero_noise = NoiseSource(Fraction(0), d, (0, 0, 0))

    def grad(j, y):
        return A[j].dot(np.array(y, dtype=object)) - b[j]

    worst = 0.0
    for t in range(rung.T):
        nxt = []
        for prob, X, Xe in frontier:
            for draws, pd in combos:
                oracle = RecordingOracle(grad, n, d, t, zero_noise, what="component")
                inp = LocalSGDStep(algorithm="local-sgd", t=t, n=n, workers=W, b=bsz, d=d, eta=float(rung.eta[t]),
                                   sync=(t + 1) in sync, x=readonly(X), draws=np.array(draws), oracle=oracle)
                out = call_round(adapter, inp, shapes)["x"]
                res.adapter_calls += 1
                Xs = exact_vector(X)
                want, Z = replay_local_sgd_step(A, b, Xs, draws, rung.eta[t], (t + 1) in sync)
                scale = _maxabs(Xs, want, out, Z, 1e-300)
                for k in range(W):
                    ok, err = _within(out[k], want[k], scale)
                    if not ok:
                        res.status = "deviates"
                        res.deviation = Deviation(rung.name, t + 1, k, f"worker iterate x^{k}_{t + 1}", list(want[k]),
                                                  list(out[k]), eq, src, sampled=draws.tolist(), kind="draws",
                                                  error_ulps=err, hint=_local_sgd_hint(A, b, Xs, draws, rung.eta[t],
                                                                                       (t + 1) in sync, out, k, scale))
                        res.max_ulps = worst
                        res.paths = len(nxt) + 1
                        return res
                    worst = max(worst, err)
                nxt.append((prob * pd, out, replay_local_sgd_step(A, b, Xe, draws, rung.eta[t], (t + 1) in sync)[0]))
        frontier = nxt
    res.paths = len(frontier)
    res.max_ulps = worst
    law_exact = [sum((pr * Xe[:, q].sum() / W for pr, _, Xe in frontier), Fraction(0)) for q in range(d)]
    law_obs = [sum((pr * sum(Fraction(float(v)) for v in X[:, q]) / W for pr, X, _ in frontier), Fraction(0))
               for q in range(d)]
    res.law = {"quantity": f"E[mean_k x^k_{rung.T}] over the {len(frontier)} draw sequences (exact probabilities)",
               "exact": [rational_str(v) for v in law_exact], "implementation": [exact_decimal(v, 17) for v in law_obs]}
    return res


def _local_sgd_hint(A, b, X, draws, eta, sync, out, k, scale):
    _, Z = replay_local_sgd_step(A, b, X, draws, eta, sync)
    W = X.shape[0]
    if sync and _within(out[k], Z[k], scale)[0]:
        return "the workers were not averaged at a synchronisation time"
    if not sync and _within(out[k], Z.sum(axis=0) / W, scale)[0]:
        return "the workers were averaged at a time step that is not a synchronisation time"
    bsz = draws.shape[1]
    Zs, _ = replay_local_sgd_step(A, b, X, draws, eta * bsz, sync)
    if bsz > 1 and _within(out[k], Zs[k], scale)[0]:
        return "the minibatch gradient is summed instead of averaged (missing 1/b)"
    return None
