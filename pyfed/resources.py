r"""Resource model: memory and time of pyfed's long computations, estimated from their sizes
before they start, and the limits they are checked against.

Every command that can run long (``check``, ``search``, ``tightness``, ``worst-case``,
``experiment``) adds the options ``--max-memory SIZE`` and ``--max-seconds TIME``
(:func:`add_limit_arguments`), estimates its cost with one estimator of this module from the
sizes it was given, and calls :func:`refuse_if_over` before any long work: an estimate above a
limit is an :class:`pyfed.errors.InputError` naming the size option whose value drives the
estimate (the option to lower), the estimate and the limit -- one line, exit status 2.

Limits
------
* memory: ``--max-memory`` (``4G``, ``512M``, ``1.5GB``, bytes), by default 80% of the memory
  the machine has available when the command starts (``MemAvailable`` of ``/proc/meminfo``);
* time: ``--max-seconds`` (``90``, ``30m``, ``2h``, ``1d``), by default :data:`DEFAULT_SECONDS`
  (2 hours). ``--max-seconds 0`` / ``--max-memory 0`` mean "no limit".

Estimates
---------
A :class:`Cost` holds the estimated peak memory of the process (bytes, including
:data:`BASE_BYTES` for the interpreter and libraries) and the estimated wall time (seconds on one
core). Stages that run one after the other combine with ``+`` (memory: the larger peak; time: the
sum). The formulas, in the papers' symbols (R replicates, N clients, S per round, K local steps,
T rounds, d dimension, b minibatch size, n data rows):

* one vectorised simulation (:func:`simulation`; the simulators of :mod:`pyfed.algorithms` and the
  left sides' evaluation of :mod:`pyfed.engines.montecarlo`)::

      memory  = 8 R [ (T+1) r + T (S + e) + STATE_COPIES N d ] + BLOCK_BYTES
      seconds = SECONDS_PER_GRADIENT_ENTRY R T K M d b + SECONDS_PER_EVAL_ENTRY R T e (N d + n d)

  with r float64 entries recorded per replicate and round (d for x^r), M clients computed per
  round (N for the ``Run`` model's virtual paths, S otherwise), e points evaluated per replicate
  and round. The simulators work in blocks of slots (:func:`pyfed.algorithms.rounds.layout_blocks`)
  and the objectives in blocks of points (:attr:`pyfed.problems.base.Problem.EVAL_BLOCK_ENTRIES`),
  so the temporaries beyond the record and the state are bounded by BLOCK_BYTES whatever R is;
* exact moments on a rational quadratic instance (:func:`exact_sweep`; ``pyfed tightness``)::

      build   = FRACTION_OP_SECONDS N d^3 (the rational instance), memory FRACTION_BYTES N d^2
      point   = EXACT_POINT_SECONDS N d^2 T^1.5 (K/2) (1 + K/64)
      memory  = EXACT_ENTRY_BYTES (d (N+1))^2 T max(1, K/2)

* performance estimation (:func:`pep_sweep`; ``pyfed worst-case``): one SDP over P = N K T
  gradient evaluations costs PEP_SECONDS P^3.6 seconds and PEP_BYTES P^3.5 bytes;
* searches (:func:`statement_search`, :func:`statement_file`): a random draw of a statement's
  search costs :data:`DRAW_SECONDS` of its own (a table per statement) and :data:`DRAW_BYTES` of records; a
  candidate of a Lean file's search or constant profile :data:`CANDIDATE_SECONDS`;
* evaluation of a statement's terms on one instance (:func:`evaluation`; the run-free searches):
  the evaluator's steps estimated from the term and the instance's sizes
  (:func:`pyfed.evaluation.cost.estimate_steps`) cost SECONDS_PER_STEP each; a candidate above
  MAX_CANDIDATE_STEPS is skipped by the search (its row says so) instead of being evaluated, so a
  search's candidate costs at most MAX_CANDIDATE_STEPS steps;
* the heterogeneity experiment (:func:`experiment`): every candidate step size simulated for
  min(cap, TYPICAL_ROUNDS) rounds (a candidate is stopped early once it reaches the target or can
  no longer win), the largest single run to the cap must fit in memory.

Calibration: ``benchmarks/calibrate_resources.py`` measures each constant on the machine it runs
on (peak memory by ``tracemalloc`` and ``ru_maxrss``, times by ``time.perf_counter`` at two sizes,
the difference divided by the difference of the formula's size term) and prints them beside
the values below, which were measured on a 2-core x86-64 machine (numpy with OpenBLAS). The
estimates are orders of magnitude (within a factor of about 3), meant to refuse sizes that cannot
finish, not to predict run times.

Huge exact numbers: a numeral of a Lean statement, or a power of numerals, with more than
:data:`MAX_NUMERAL_DIGITS` decimal digits, and a power with a numeral exponent above
:data:`MAX_EXPONENT`, are refused when the statement is read (:func:`check_numeral`,
:func:`check_power`, called by the term parser :mod:`pyfed.lean.terms`).

Why one module: the limits, the calibrated constants and the estimators are one model of cost --
every estimator combines the same constants with the same :class:`Cost` arithmetic, and the one
refusal (:func:`refuse_if_over`) names the option whose estimate it checks; the calibration script
measures them together.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, replace

from .errors import InputError

__all__ = ["Limits", "Cost", "Run", "add_limit_arguments", "limits_from_args", "default_limits",
           "available_memory", "parse_memory", "parse_seconds", "format_bytes", "format_seconds",
           "refuse_if_over", "blame", "simulation", "default_suite", "statement_searches", "statement_search",
           "statement_file", "evaluation", "candidate_seconds", "SECONDS_PER_STEP", "MAX_CANDIDATE_STEPS",
           "exact_sweep", "pep_sweep", "experiment", "MAX_NUMERAL_DIGITS", "MAX_EXPONENT", "MAX_TERM_DEPTH", "check_numeral",
           "check_power", "HugeNumber"]

# ------------------------------------------------------------------------------------------
# constants (calibrated: see the module docstring and benchmarks/calibrate_resources.py)
# ------------------------------------------------------------------------------------------

#: Default time limit (seconds) when ``--max-seconds`` is not given: 2 hours.
DEFAULT_SECONDS = 7200.0
#: Share of the available memory used as the default memory limit.
MEMORY_SHARE = 0.8
#: Interpreter, numpy/scipy/sympy/flint and pyfed's own data once loaded (measured: 150-250 MB).
BASE_BYTES = 250e6
#: Temporaries of the blocked simulators and evaluations (oracle blocks of
#: ``CLIENT_BLOCK_ENTRIES`` slot entries times (b + 4) copies, evaluation blocks of
#: ``EVAL_BLOCK_ENTRIES`` entries times 4), rounded up.
BLOCK_BYTES = 64e6
#: Copies of the client-major state (N, R, d) a simulator holds at once (controls, the local path,
#: its start, the correction, the oracle sum, the layout's gathers; measured 5.6-8 for
#: ``scaffold_run`` step by step).
STATE_COPIES = 8
#: Seconds per entry of a stochastic gradient: one coordinate of one sample of one slot
#: (R T K M d b; measured 3-5e-9 for logistic minibatches, 1.7e-9 for softmax).
SECONDS_PER_GRADIENT_ENTRY = 5e-9
#: Seconds per entry of an objective evaluation: one coordinate of one data row (or client copy)
#: for one point (measured 3e-9 for the logistic loss, whose log-sum-exp dominates).
SECONDS_PER_EVAL_ENTRY = 3e-9
#: Rational instance construction: seconds per N d^3 (Fraction products B B^T; measured 7.5e-5)
#: and bytes per entry of the N (d, d) Fraction matrices.
FRACTION_OP_SECONDS = 7.5e-5
FRACTION_BYTES = 200.0
#: Exact moments: seconds per N d^2 T^1.5 (K/2)(1 + K/64) per point (measured 2e-4 to 8e-4 over
#: N in 4..16, d in 2..8, T in 10..80 at K = 2; the K factor from K = 2, 64, 512: 0.13 s, 6.2 s,
#: 513 s, as the exact entries of the K-step maps grow), and bytes per entry of the (d (N+1))^2
#: moment matrices per round (exact entries grow by about 200 digits per round).
EXACT_POINT_SECONDS = 8e-4
EXACT_ENTRY_BYTES = 100.0
#: One PEP SDP over P = N K T gradient evaluations: PEP_SECONDS P^3.6 seconds (measured 2 s at
#: P = 36, 5-7 s at P = 48, 24 s at P = 72 with Clarabel) and PEP_BYTES P^3.5 bytes (solver
#: memory, measured by ru_maxrss: 110 MB at P = 48, 440 MB at P = 72).
PEP_SECONDS = 5e-6
PEP_SECONDS_EXPONENT = 3.6
PEP_BYTES = 200.0
PEP_BYTES_EXPONENT = 3.5
#: Seconds per random draw of each statement's search (by bare name; measured as the difference
#: of two budgets, 10 and 2, over the difference of draws, refinements included, on the 2-core
#: machine), and the value for a statement not in the table.
DRAW_SECONDS = {
    "ConvexFiniteRoundConvergence": 0.05, "NonconvexFiniteRoundConvergence": 0.05, "FiniteRoundConvergence": 0.05,
    "PerRoundProgress": 0.02, "BoundedClientDrift": 0.01, "ConvexFedAvgConvergence": 0.02,
    "TunedConvexFedAvgConvergence": 0.01, "GradientStepNonexpansive": 0.03, "SamplingVarianceIdentity": 0.03,
    "SamplingVarianceBound": 0.02, "StichWeightedAveraging": 0.02, "UniformAveraging": 0.07,
    "GeometricAveraging": 0.13, "MartingaleDifferenceBound": 0.09, "LocalSGDOneStep": 0.3, "ServerControlIsMean": 0.06,
    "convexRHSQ_cast": 0.03,
}
DEFAULT_DRAW_SECONDS = 0.01
#: Bytes kept per candidate of a search (its record: parameters, sides, verdict; measured 750).
DRAW_BYTES = 1000.0
#: Seconds per candidate of a Lean file's adversarial search or constant profile (each decided
#: exactly on a small instance; measured 0.035 for the profile of seed_convex.lean, more for the
#: search's refined candidates).
CANDIDATE_SECONDS = 0.05
#: Seconds per estimated evaluation step (:func:`pyfed.evaluation.cost.estimate_steps`; measured
#: 1.2e-6 for the SCAFFOLD procedure over rounds, 0.7-15e-6 on the default report's run-free
#: candidates, where a drawn function's own cost is not counted), and the estimated steps above which
#: a search does not evaluate a candidate (about 4 s; the default report's candidates stay below 6e4).
SECONDS_PER_STEP = 2e-6
MAX_CANDIDATE_STEPS = 2_000_000
#: Rounds a candidate step size of the heterogeneity experiment runs before it is decided or
#: pruned, re-runs included (measured: 1.81 M local steps over 273 candidates of mean K = 45).
TYPICAL_ROUNDS = 150
#: Seconds of the default suite's work that does not depend on R (exact moments, PEP, FedAvg
#: exact rows; measured with --skip-statements), quick and full.
SUITE_FIXED_SECONDS = {True: 15.0, False: 40.0}

#: The largest number of decimal digits of a numeral (or a power of numerals) in a Lean
#: statement: beyond it exact arithmetic on the statement's values is slow and its digits
#: cannot be printed (Python's int-to-text limit is 4300 digits).
MAX_NUMERAL_DIGITS = 1000
#: The largest numeral exponent of a power ``x ^ n`` in a Lean statement (``x`` not a numeral):
#: with the rational values pyfed substitutes, ``x ^ n`` has about n times their digits.
MAX_EXPONENT = 1000
#: The deepest Lean term (levels of its syntax tree: a sum of n terms, n nested parentheses), refused
#: beyond at read time; the CLI's thread (pyfed.cli.STACK_BYTES, RECURSION_LIMIT) holds this depth.
MAX_TERM_DEPTH = 2000


# ------------------------------------------------------------------------------------------
# formatting and parsing
# ------------------------------------------------------------------------------------------

def format_bytes(n: float) -> str:
    """``1.5 GB``, ``320 MB``, ``2.4 TB``, ``5.1e+12 TB`` (decimal units, 2 significant digits)."""
    n = float(n)
    for unit, size in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            v = n / size
            if v >= 1000:        # only in PB
                return f"{v:.1e} {unit}"
            return f"{v:.2g} {unit}" if v < 10 else f"{v:.0f} {unit}"
    return f"{n:.0f} bytes"


def format_seconds(s: float) -> str:
    """``12 s``, ``4.5 min``, ``3.1 h``, ``41 days``, ``2.3e+05 years``."""
    s = float(s)
    if s < 90:
        return f"{s:.2g} s"
    if s < 5400:
        return f"{s / 60:.2g} min"
    if s < 3 * 86400:
        return f"{s / 3600:.2g} h"
    if s < 730 * 86400:
        return f"{s / 86400:.0f} days"
    y = s / (365.25 * 86400)
    return f"{y:.2g} years" if y < 1000 else f"{y:.1e} years"


_MEMORY_UNITS = {"": 1, "b": 1, "k": 1e3, "kb": 1e3, "kib": 2**10, "m": 1e6, "mb": 1e6, "mib": 2**20,
                 "g": 1e9, "gb": 1e9, "gib": 2**30, "t": 1e12, "tb": 1e12, "tib": 2**40}
_TIME_UNITS = {"": 1, "s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}


def parse_memory(text, flag: str = "--max-memory") -> float:
    """Bytes of a memory size written ``4G``, ``512MB``, ``1.5GiB`` or a number of bytes;
    0 means no limit. InputError naming ``flag`` otherwise."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-zA-Z]*)\s*", str(text))
    if not m or m.group(2).lower() not in _MEMORY_UNITS:
        raise InputError(flag, f"must be a memory size such as 4G, 512M or 1.5GB (0: no limit), got {text!r}")
    return float(m.group(1)) * _MEMORY_UNITS[m.group(2).lower()]


def parse_seconds(text, flag: str = "--max-seconds") -> float:
    """Seconds of a duration written ``90``, ``30m``, ``2h``, ``1d``; 0 means no limit."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-zA-Z]*)\s*", str(text))
    if not m or m.group(2).lower() not in _TIME_UNITS:
        raise InputError(flag, f"must be a duration such as 90, 30m, 2h or 1d (0: no limit), got {text!r}")
    return float(m.group(1)) * _TIME_UNITS[m.group(2).lower()]


# ------------------------------------------------------------------------------------------
# limits
# ------------------------------------------------------------------------------------------

def available_memory() -> float | None:
    """Bytes of memory available to a new process now (``MemAvailable`` of ``/proc/meminfo``,
    else the free physical pages), or None when the platform does not say."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


@dataclass(frozen=True)
class Limits:
    """The limits an estimate is checked against.

    Attributes
    ----------
    memory : float
        Bytes (``math.inf``: no limit).
    seconds : float
        Seconds (``math.inf``: no limit).
    memory_source, seconds_source : str
        Where each limit comes from, for the message (``"--max-memory"`` or the default's rule).
    """

    memory: float
    seconds: float
    memory_source: str = "--max-memory"
    seconds_source: str = "--max-seconds"


def default_limits() -> Limits:
    """80% of the available memory (no memory limit when it is unknown) and 2 hours."""
    avail = available_memory()
    mem = MEMORY_SHARE * avail if avail else math.inf
    src = (f"default: {MEMORY_SHARE:.0%} of the {format_bytes(avail)} available; set --max-memory"
           if avail else "no memory limit known")
    return Limits(mem, DEFAULT_SECONDS, src, f"default: {format_seconds(DEFAULT_SECONDS)}; set --max-seconds")


def add_limit_arguments(parser) -> None:
    """Add ``--max-memory SIZE`` and ``--max-seconds TIME`` to a subcommand's parser."""
    parser.add_argument("--max-memory", dest="max_memory", metavar="SIZE", default=None,
                        help="refuse (exit 2) a run whose estimated memory exceeds SIZE, e.g. 4G, 512M; 0: no "
                             f"limit (default {round(MEMORY_SHARE * 100)}%% of the memory available at start)")
    parser.add_argument("--max-seconds", dest="max_seconds", metavar="TIME", default=None,
                        help="refuse (exit 2) a run whose estimated time exceeds TIME, e.g. 600, 30m, 2h; 0: no "
                             f"limit (default {format_seconds(DEFAULT_SECONDS)})")


def limits_from_args(args) -> Limits:
    """The :class:`Limits` of parsed arguments (``max_memory`` / ``max_seconds``; defaults from
    :func:`default_limits`). InputError naming the flag for an unreadable value."""
    base = default_limits()
    mem, msrc = base.memory, base.memory_source
    sec, ssrc = base.seconds, base.seconds_source
    if getattr(args, "max_memory", None) is not None:
        mem = parse_memory(args.max_memory) or math.inf
        msrc = "--max-memory"
    if getattr(args, "max_seconds", None) is not None:
        sec = parse_seconds(args.max_seconds) or math.inf
        ssrc = "--max-seconds"
    return Limits(mem, sec, msrc, ssrc)


# ------------------------------------------------------------------------------------------
# costs
# ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cost:
    """An estimate: peak ``memory`` (bytes, the whole process) and ``seconds`` (wall time, one
    core), and ``what`` it is the cost of (for the message). ``a + b``: two stages one after the
    other (the larger peak, the sum of the times)."""

    memory: float
    seconds: float
    what: str = ""

    def __add__(self, other: "Cost") -> "Cost":
        what = self.what if not other.what or other.what == self.what else \
            (other.what if not self.what else f"{self.what}; {other.what}")
        return Cost(max(self.memory, other.memory), self.seconds + other.seconds, what)


ZERO = Cost(BASE_BYTES, 0.0)


def total(costs, what: str = "") -> Cost:
    """The stages ``costs`` run one after the other (see :class:`Cost`)."""
    out = ZERO
    for c in costs:
        out = out + c
    return replace(out, what=what or out.what)


def blame(estimate, values: dict, defaults: dict) -> dict:
    """The option to lower for each resource: ``{"memory": option, "seconds": option}``.

    ``estimate(**values) -> Cost``; ``values`` the sizes as given, keyed by their option (e.g.
    ``{"--N": 4, "--d": 10**8}``), ``defaults`` the same keys at their default values. The
    option blamed for a resource is the one whose reset to its default lowers that resource's
    estimate the most; when no such reset lowers it, the one whose halving lowers it the most (the
    first option on a tie). An option that does not change the estimate (``--replicates`` of a
    file without Monte Carlo instances) is blamed only when no option lowers it. When the option
    blamed is at its default, ``"memory_note"`` / ``"seconds_note"`` say so (" (now 24, its
    default)"), for the message of :func:`refuse_if_over`."""
    full = estimate(**values)
    out = {}
    for res in ("memory", "seconds"):
        best, gain = None, 1.0
        for k in values:
            if values[k] == defaults.get(k, values[k]):
                continue
            v = getattr(estimate(**{**values, k: defaults[k]}), res)
            g = getattr(full, res) / v if v > 0 else math.inf
            if g > gain:
                best, gain = k, g
        if best is None:     # every option at its default: the one whose halving helps the most
            for k in values:
                try:
                    v = getattr(estimate(**{**values, k: max(1, values[k] // 2)}), res)
                except (TypeError, ValueError):
                    continue
                g = getattr(full, res) / v if v > 0 else math.inf
                if g > gain:
                    best, gain = k, g
        out[res] = best or next(iter(values))
        k = out[res]
        if values.get(k) == defaults.get(k, object()):      # the user did not set it: say which value it has
            out[f"{res}_note"] = f" (now {values[k]}, its default)"
    return out


def refuse_if_over(cost: Cost, limits: Limits, option, *, seconds_option=None) -> Cost:
    """Raise InputError when ``cost`` exceeds ``limits``; else return ``cost``.

    ``option`` names the size option to lower for memory (and for time, unless
    ``seconds_option`` is given); it may be a dict as returned by :func:`blame`. The one-line
    message names the estimate, what it is the cost of, the limit and where it comes from, e.g.
    ``--replicates: needs an estimated 2.4 TB of memory (...), above the limit of 18 GB (default:
    80% of the 22 GB available; set --max-memory); lower --replicates``."""
    mem_note = sec_note = ""
    if isinstance(option, dict):
        mem_opt, sec_opt = option["memory"], option["seconds"]
        mem_note, sec_note = option.get("memory_note", ""), option.get("seconds_note", "")
    else:
        mem_opt, sec_opt = option, seconds_option or option
    what = f" ({cost.what})" if cost.what else ""
    if cost.memory > limits.memory:
        raise InputError(mem_opt, f"needs an estimated {format_bytes(cost.memory)} of memory{what}, above the limit "
                                  f"of {format_bytes(limits.memory)} ({limits.memory_source}); lower {mem_opt}{mem_note}")
    if cost.seconds > limits.seconds:
        raise InputError(sec_opt, f"needs an estimated {format_seconds(cost.seconds)}{what}, above the limit of "
                                  f"{format_seconds(limits.seconds)} ({limits.seconds_source}); lower {sec_opt}{sec_note}")
    return cost


# ------------------------------------------------------------------------------------------
# estimators
# ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Run:
    """The sizes of one vectorised simulation and of the evaluation of its left side.

    R replicates, N clients, S sampled per round, d dimension, K local steps, T rounds; ``batch``
    samples per stochastic gradient (minibatch b; 1 for a Gaussian oracle); ``touched`` clients
    computed per round (default S; N for the ``Run`` model's virtual paths); ``record`` float64
    entries kept per replicate and round (default d: the iterate); ``evals`` points whose
    objective (value or gradient) is evaluated per replicate and round (default 1); ``rows``
    data rows each evaluation reads (finite sums; 0 for quadratics)."""

    R: int
    N: int
    S: int
    d: int
    K: int
    T: int
    batch: int = 1
    touched: int | None = None
    record: int | None = None
    evals: int = 1
    rows: int = 0


#: Sizes are taken at most this large in the formulas (so products and powers of them stay finite
#: floats); any size near it is far beyond every limit anyway.
SIZE_CAP = 1e15


def _real(v) -> float:
    """``float(v)`` capped at :data:`SIZE_CAP` (an integer beyond the float range too)."""
    try:
        return min(float(v), SIZE_CAP)
    except OverflowError:
        return SIZE_CAP


def simulation(run: Run, what: str = "") -> Cost:
    """Cost of one simulation (formula in the module docstring)."""
    R, N, S, d, K, T = (_real(v) for v in (run.R, run.N, run.S, run.d, run.K, run.T))
    M = float(run.touched if run.touched is not None else run.S)
    r = float(run.record if run.record is not None else run.d)
    e = float(run.evals)
    memory = BASE_BYTES + BLOCK_BYTES + 8.0 * R * ((T + 1) * r + T * (S + e) + STATE_COPIES * N * d)
    seconds = (SECONDS_PER_GRADIENT_ENTRY * R * T * K * M * d * float(run.batch)
               + SECONDS_PER_EVAL_ENTRY * R * T * e * (N * d + float(run.rows) * d))
    return Cost(memory, seconds, what)


#: The sizes of the default suite's Monte Carlo instances (:mod:`pyfed.suites`; tests/test_resources.py
#: checks them against the suites): breast cancer (569 rows, 30 features) over N = 10 clients,
#: minibatch b = 8; SCAFFOLD ``Run`` model with S = K = 5 (convex: weightedGap reads f at every
#: round; nonconvex: averageGradientSq keeps the (R, T, d) gradients); FedAvg shadow run with
#: tau = 5 (shadow, loss and drift recorded at every local step) for Theorem 1 and the tuned step,
#: one round from 3 starts with R/2 replicates for Lemmas 1-2. T = 8 (quick) or 40.
SUITE_DATA = {"rows": 569, "d": 30, "N": 10, "S": 5, "K": 5, "b": 8, "tau": 5}


def default_suite_runs(R: int, quick: bool) -> list:
    """The Monte Carlo simulations of ``pyfed check`` (default suite) as :class:`Run` sizes."""
    T = 8 if quick else 40
    g = SUITE_DATA
    N, S, K, d, b, n, tau = g["N"], g["S"], g["K"], g["d"], g["b"], g["rows"], g["tau"]
    scaffold_convex = Run(R, N, S, d, K, T, batch=b, touched=N, rows=n)
    scaffold_nonconvex = Run(R, N, S, d, K, T, batch=b, touched=N, record=2 * d, rows=n)
    shadow = Run(R, N, N, d, tau, T, batch=b, record=(tau + 1) * (d + 1 + N), evals=tau + 1, rows=n)
    lemmas = Run(max(2, R // 2), N, N, d, tau, 3, batch=b, record=(tau + 1) * (d + 1 + N), evals=tau + 1, rows=n)
    return [scaffold_convex, scaffold_nonconvex, shadow, shadow, lemmas, lemmas]


def default_suite(R: int, quick: bool, what: str | None = None) -> Cost:
    """Cost of the default suite of ``pyfed check`` with R Monte Carlo replicates (the statements'
    searches excluded): its Monte Carlo runs (one after the other) and the R-independent rest."""
    runs = [simulation(r) for r in default_suite_runs(R, quick)]
    fixed = Cost(BASE_BYTES, SUITE_FIXED_SECONDS[bool(quick)])
    return total(runs + [fixed], what if what is not None else f"Monte Carlo instances with R = {R} replicates")


def _draw_seconds(name: str) -> float:
    return DRAW_SECONDS.get(str(name).split(".")[-1], DEFAULT_DRAW_SECONDS)


def statement_search(name: str, budget: int, what: str | None = None) -> Cost:
    """Cost of ``budget`` random draws of the search of statement ``name`` (``pyfed search``)."""
    B = _real(budget)
    return Cost(BASE_BYTES + DRAW_BYTES * B, _draw_seconds(name) * B,
                what if what is not None else f"{budget} random draws of {name}")


def statement_searches(names, budget: int | None, quick: bool) -> Cost:
    """Cost of the statement searches of ``pyfed check`` (every name of ``names``, each with
    ``budget`` draws, or its own default when ``budget`` is None: no cost then)."""
    if budget is None:
        return Cost(BASE_BYTES, 0.0)
    return total([statement_search(n, budget, what="") for n in names],
                 f"{len(list(names))} statement searches with {budget} random draws each")


def evaluation(steps: float, what: str = "") -> Cost:
    """Cost of evaluating a statement's terms on one instance in an estimated ``steps`` steps
    (:func:`pyfed.evaluation.cost.estimate_steps`)."""
    return Cost(BASE_BYTES, SECONDS_PER_STEP * _real(steps), what)


def candidate_seconds(steps: float | None) -> float:
    """Seconds of one search candidate whose evaluation takes an estimated ``steps`` steps (None:
    not estimated): at least :data:`CANDIDATE_SECONDS`, at most the evaluation of
    :data:`MAX_CANDIDATE_STEPS` steps (a search skips a costlier candidate)."""
    if steps is None:
        return CANDIDATE_SECONDS
    return max(CANDIDATE_SECONDS, evaluation(min(_real(steps), MAX_CANDIDATE_STEPS)).seconds)


def statement_file(candidates: int, R: int, statements: int, quick: bool, seconds_per_candidate=None) -> Cost:
    """Cost of ``pyfed check PATH.lean``: for each of the ``statements`` statements the built-in
    instances apply to (statements about an algorithm's run; a run-free statement has none), the
    two Monte Carlo instances of the default suite (R replicates), and ``candidates`` search and
    profile candidates in all, each taking ``seconds_per_candidate`` on average (default
    :data:`CANDIDATE_SECONDS`; :func:`candidate_seconds` of a statement's evaluation). With
    ``statements`` 0 the cost does not depend on R."""
    T = 8 if quick else 40
    g = SUITE_DATA
    per = CANDIDATE_SECONDS if seconds_per_candidate is None else seconds_per_candidate
    search = Cost(BASE_BYTES + DRAW_BYTES * candidates, per * candidates)
    if not statements:
        return total([search], f"{candidates} search and profile candidates; no Monte Carlo instance applies")
    mc = simulation(Run(R, g["N"], g["S"], g["d"], g["K"], T, batch=g["b"], touched=g["N"], record=2 * g["d"],
                        rows=g["rows"]))
    per = Cost(mc.memory, 2 * mc.seconds)
    runs = Cost(per.memory, statements * per.seconds)
    return total([runs, search], f"{statements} statement(s) with Monte Carlo instances, R = {R}; {candidates} "
                                 "search and profile candidates")


def exact_sweep(N: int, d: int, K: int, T: int, points: int) -> Cost:
    """Cost of ``pyfed tightness``: a rational quadratic instance with N clients in dimension d,
    then ``points`` exact-moment evaluations of a T-round run (formula in the module docstring)."""
    N, d, K, T, points = (_real(v) for v in (N, d, K, T, points))
    n = d * (N + 1)
    steps = (K / 2) * (1 + K / 64)
    build = Cost(BASE_BYTES + FRACTION_BYTES * N * d * d, FRACTION_OP_SECONDS * N * d ** 3)
    point = Cost(BASE_BYTES + FRACTION_BYTES * N * d * d + EXACT_ENTRY_BYTES * n * n * T * max(1.0, K / 2),
                 points * EXACT_POINT_SECONDS * N * d * d * T ** 1.5 * steps)
    return total([build, point], f"exact moments of {points:.0f} points, N = {N:.0f}, d = {d:.0f}, T = {T:.0f}")


def pep_sweep(N: int, grid) -> Cost:
    """Cost of ``pyfed worst-case``: one SDP per point of ``grid`` (dict with ``multiples``,
    ``Ks``, ``mus``, ``Ts``), of size P = N K T."""
    per_KT = len(grid["multiples"]) * len(grid["mus"])
    seconds, memory = 0.0, BASE_BYTES
    for K in grid["Ks"]:
        for T in grid["Ts"]:
            P = _real(N) * K * T
            seconds += per_KT * PEP_SECONDS * P ** PEP_SECONDS_EXPONENT
            memory = max(memory, BASE_BYTES + PEP_BYTES * P ** PEP_BYTES_EXPONENT)
    return Cost(memory, seconds, f"PEP SDPs with N = {N} clients")


#: Shapes of the bundled datasets the experiment uses: (rows, features, classes)
#: (tests/test_resources.py checks them against pyfed.data).
DATASET_SHAPES = {"digits": (1797, 64, 10)}


def experiment(cfg) -> Cost:
    """Cost of ``pyfed experiment`` for a validated
    :class:`pyfed.experiments.heterogeneity.HeterogeneityConfig`: every (method, epochs, similarity)
    setting scores its step sizes, each simulated for about min(cap, TYPICAL_ROUNDS) rounds
    (:data:`TYPICAL_ROUNDS`), then the chosen run's curves to the cap at most; memory: the
    largest single run to the cap, and the chosen runs of one similarity level kept for their
    curves."""
    n, p, C = DATASET_SHAPES.get(cfg.dataset, DATASET_SHAPES["digits"])
    d = (p + 1) * C
    n_train = n - cfg.n_test
    b = max(1, round(cfg.batch_fraction * n_train / cfg.N))
    R, cap = int(cfg.replicates), int(cfg.cap)
    rounds = min(cap, TYPICAL_ROUNDS)
    settings = [(m, 1 if m == "sgd" else cfg.steps_per_epoch * e)
                for m in cfg.methods for e in ((1,) if m == "sgd" else cfg.epochs)]
    seconds, memory = 0.0, BASE_BYTES
    for m, K in settings:
        batch = b * cfg.steps_per_epoch if m == "sgd" else b
        run = Run(R, cfg.N, cfg.S, d, K, rounds, batch=batch, rows=cfg.n_test)
        seconds += len(cfg.eta_grid) * simulation(run).seconds
        memory = max(memory, simulation(replace(run, T=cap)).memory)
    seconds *= len(cfg.similarities)
    kept = 8.0 * len(settings) * _real(R) * (_real(cap) + 1) * (d + 2)
    return Cost(memory + kept, seconds, f"{len(settings) * len(cfg.similarities)} settings x {len(cfg.eta_grid)} "
                                        f"step sizes, R = {R} seeds, up to {cap} rounds")


# ------------------------------------------------------------------------------------------
# huge exact numbers (read time)
# ------------------------------------------------------------------------------------------

class HugeNumber(ValueError):
    """A numeral or power too large for exact arithmetic: ``digits`` (its decimal digits, about)
    and ``reason`` (one sentence)."""

    def __init__(self, digits: float, reason: str):
        self.digits = digits
        self.reason = reason
        super().__init__(reason)


def _digits_text(digits: float) -> str:
    return f"{digits:,.0f}" if digits < 1e15 else f"{digits:.2e}"


def check_numeral(whole: str, frac: str, exp: int) -> None:
    """Refuse a decimal numeral ``whole.frac e exp`` whose exact value (numerator or
    denominator) has more than :data:`MAX_NUMERAL_DIGITS` digits (HugeNumber)."""
    digits = len(whole.lstrip("0") or "0") + len(frac) + abs(int(exp))
    if digits > MAX_NUMERAL_DIGITS:
        raise HugeNumber(digits, f"its exact value has about {_digits_text(digits)} decimal digits, above the limit of "
                                 f"{MAX_NUMERAL_DIGITS} (pyfed.resources.MAX_NUMERAL_DIGITS)")


def check_power(base, exponent) -> None:
    """Refuse ``base ^ exponent`` (exponent a natural number given as a numeral; base a Fraction
    when it is a numeral too, else None) when the result would have more than
    :data:`MAX_NUMERAL_DIGITS` digits, or when the exponent of a non-numeral base exceeds
    :data:`MAX_EXPONENT` (HugeNumber)."""
    e = abs(int(exponent))
    if base is None:
        if e > MAX_EXPONENT:
            raise HugeNumber(e, f"the exponent {_digits_text(e)} is above the limit of {MAX_EXPONENT} "
                                "(pyfed.resources.MAX_EXPONENT): exact values of the power would have about that "
                                "many times the digits of its base")
        return
    num, den = abs(base.numerator), abs(base.denominator)
    per = max(math.log10(num) if num else 0.0, math.log10(den))
    digits = e * per
    if digits > MAX_NUMERAL_DIGITS:
        raise HugeNumber(digits, f"its exact value has about {_digits_text(digits)} decimal digits, above the limit of "
                                 f"{MAX_NUMERAL_DIGITS} (pyfed.resources.MAX_NUMERAL_DIGITS)")
