"""Common machinery of the statement checkers.

A checker mirrors one Lean statement ``<namespace>.<lean_name>`` (namespace ``SCAFFOLD`` unless
the checker sets another, e.g. ``FedAvg``): its hypotheses (each with a
margin), its left and right sides (exact :class:`fractions.Fraction` where possible,
otherwise ``mpmath`` at a stated precision), a verdict, instance generators and an
adversarial search that tries to make ``rhs - lhs`` negative.

Instances are JSON-serialisable dicts whose numbers are exact rationals written as strings
``"p/q"`` (integers as ``"p"``), vectors as lists of such strings, so an instance written by
``pyfed search`` reads back into the same exact numbers.

Mutations: every checker lists in ``mutations`` deliberately *wrong* variants of its
statement (a constant made smaller, a hypothesis dropped, an index range shifted). A checker
evaluated with ``mutate=NAME`` checks the mutated statement; its default search must find
a counterexample to at least one mutation (tests assert this), which is the evidence that
the checker would catch a wrong statement.
"""

from __future__ import annotations

import contextvars
import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from pyfed.errors import Diverged, InputError, check_rng
from pyfed.exact import number_json, rational_str
from pyfed.theory.hypotheses import Hypothesis
from pyfed.verdicts import Holds, Inconclusive, Verdict, Violated

__all__ = [
    "Checker", "Mutation", "Deferred", "later", "Hypothesis", "F", "q", "qvec", "fvec", "qmat", "fmat", "rat",
    "rand_rat", "rand_vec", "norm2", "dot", "hyp", "record_of", "num_json", "DPS",
]

#: mpmath working precision (decimal digits) of the inexact checkers.
DPS = 60


# ---------------------------------------------------------------- exact rational helpers
def F(s) -> Fraction:
    """Parse an instance number ("p/q" string, int or Fraction) into a Fraction.

    Raises InputError for anything that is not an exact rational (floats included).
    """
    if isinstance(s, Fraction):
        return s
    if isinstance(s, bool) or isinstance(s, float):
        raise InputError("instance", f"{s!r} is not an exact rational (write it as 'p/q')")
    if isinstance(s, (int, np.integer)):
        return Fraction(int(s))
    if isinstance(s, str):
        try:
            return Fraction(s.strip())
        except (ValueError, ZeroDivisionError):
            raise InputError("instance", f"{s!r} is not a rational 'p/q' string") from None
    raise InputError("instance", f"{s!r} ({type(s).__name__}) is not an exact rational")


def q(x) -> str:
    """Exact rational -> canonical string "p/q" ("p" for integers); see pyfed.exact.rational_str."""
    return rational_str(Fraction(x))


def qvec(v) -> list:
    return [q(x) for x in v]


def fvec(v) -> list:
    return [F(x) for x in v]


def qmat(M) -> list:
    return [qvec(r) for r in M]


def fmat(M) -> list:
    return [fvec(r) for r in M]


def rat(x: float, max_den: int = 1000) -> Fraction:
    """Short rational approximation of a float (used to turn optimiser output into exact data)."""
    return Fraction(float(x)).limit_denominator(max_den)


def rand_rat(rng, lo, hi, den: int = 64) -> Fraction:
    """Uniform-ish rational in [lo, hi] with denominator dividing ``den`` (seeded rng)."""
    lo, hi = Fraction(lo), Fraction(hi)
    a, b = math.ceil(lo * den), math.floor(hi * den)
    return Fraction(int(rng.integers(a, b + 1)), den)


def rand_vec(rng, d, scale=2, den: int = 16) -> list:
    return [rand_rat(rng, -scale, scale, den) for _ in range(d)]


def norm2(v) -> Fraction:
    """Exact squared Euclidean norm of a list of Fractions (or mpf)."""
    return sum((x * x for x in v), Fraction(0))


def dot(u, v):
    return sum((a * b for a, b in zip(u, v)), Fraction(0))


def hyp(key: str, statement: str, margin, strict: bool = False) -> Hypothesis:
    """Hypothesis ``lhs <= rhs`` (``<`` if strict) with margin rhs - lhs."""
    if margin is None:
        return Hypothesis(key, statement, False, None)
    return Hypothesis(key, statement, bool(margin > 0) if strict else bool(margin >= 0), margin)


def num_json(v):
    """Number -> JSON (see :func:`pyfed.exact.number_json`): exact rationals as
    {"exact": "p/q", "float": x} in full, whatever their length (counterexample records must
    re-check exactly); mpf as {"float", "mpmath"}."""
    return number_json(v, max_chars=None)


#: True while :meth:`Checker._candidate_items` generates candidates for an indexed search: then
#: :func:`later` returns a :class:`Deferred` instead of computing its candidate.
_DEFER = contextvars.ContextVar("pyfed_defer_candidates", default=False)


class Deferred:
    """A candidate computed when it is evaluated: ``fn(*args)`` then each ``post`` function in
    turn (picklable when fn, args and posts are; see :func:`later`)."""

    __slots__ = ("fn", "args", "post")

    def __init__(self, fn, *args, post=()):
        self.fn, self.args, self.post = fn, args, tuple(post)

    def __call__(self):
        out = self.fn(*self.args)
        for g in self.post:
            out = g(out)
        return out

    def then(self, g) -> "Deferred":
        """The candidate g(self())."""
        return Deferred(self.fn, *self.args, post=self.post + (g,))


def later(fn, *args):
    """A derived candidate ``fn(*args)`` (e.g. a Nelder-Mead climb from a random instance): computed
    now, except while an indexed search generates its candidates, where it becomes a
    :class:`Deferred` that the search computes with the check (on a Dask worker under
    ``pyfed search --workers``). The candidate is the same either way."""
    if _DEFER.get():
        return Deferred(fn, *args)
    return fn(*args)


class _IndexedRng:
    """A stand-in for a numpy Generator whose draws come from ``default_rng([seed, j])`` for the
    candidate j selected last (:meth:`select`)."""

    def __init__(self, seed):
        self.seed = int(seed)
        self._g = None

    def select(self, j):
        self._g = np.random.default_rng([self.seed, int(j)])

    def __getattr__(self, name):
        return getattr(self._g, name)


class _CandidateTask:
    """Evaluate one candidate item of an indexed search: compute it if Deferred, then check it.
    Returns (instance, verdict), (None, None) for an empty candidate. Picklable (the checker is)."""

    def __init__(self, checker, relax, mutate):
        self.checker, self.relax, self.mutate = checker, tuple(relax), mutate

    def __call__(self, item, rng=None):
        inst = item() if isinstance(item, Deferred) else item
        if inst is None:
            return None, None
        return inst, self.checker.check(inst, relax=self.relax, mutate=self.mutate)


@dataclass(frozen=True)
class Mutation:
    """A deliberately wrong variant of a statement.

    name : machine name (``--mutate NAME``); description : the mutated statement in words;
    relax : hypothesis keys the mutation drops (the search then samples beyond them).
    """

    name: str
    description: str
    relax: tuple = ()


def record_of(checker, instance, verdict: Verdict, relax=(), mutate=None) -> dict:
    """Counterexample record (JSON-ready): statement, instance, both sides, margin."""
    return {
        "statement": checker.lean_name,
        "lean_declaration": checker.qualified_name,
        "instance": instance,
        "lhs": num_json(verdict.lhs),
        "rhs": num_json(verdict.rhs),
        "margin": num_json(verdict.margin),
        "exact": bool(verdict.exact),
        "relax": sorted(relax),
        "mutate": mutate,
        "details": verdict.details,
    }


def _mpf(x):
    """Any real (Fraction, int, mpf, float) -> mpf at the current precision."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def _margin_float(record) -> float:
    """The margin of a counterexample record as a float for ordering (+-inf beyond the float range)."""
    m = record["margin"] or {}
    if m.get("float") is not None:
        return m["float"]
    return float(m.get("decimal", "nan"))


def _tightness(v):
    """Ordering key of a verdict: lhs/rhs when rhs > 0, else -inf (for 'tightest instance')."""
    try:
        if v.rhs is not None and v.rhs > 0:
            return float(_mpf(v.lhs) / _mpf(v.rhs)) if not isinstance(v.rhs, Fraction) \
                else float(Fraction(v.lhs) / v.rhs)
    except (TypeError, ValueError):
        pass
    return float("-inf")


class Checker:
    """Base class of a statement checker (subclasses set the class attributes).

    Attributes
    ----------
    lean_name : str
        Bare Lean name (the declaration is ``<namespace>.<lean_name>``).
    namespace : str
        Lean namespace of the declaration (``"SCAFFOLD"`` by default, ``"FedAvg"``).
    statement : str
        The statement in plain math.
    source : str
        Paper, lemma, page.
    mutations : dict[str, Mutation]
        Wrong variants (see module docstring).
    default_budget : int
        Search budget used by ``run_all`` / ``pyfed check``: the number of *random draws* of the
        search (see :meth:`search` for what else is tried).
    quick_budget : int
        The budget of ``pyfed check --quick``: 0, the structured edge cases only (a smoke run;
        random draws are where the time goes, many of them start a local optimisation).
    identity : bool
        True when the statement is an equality (violated iff lhs != rhs).
    """

    lean_name = "abstract"
    namespace = "SCAFFOLD"
    statement = ""
    source = ""
    mutations: dict = {}
    default_budget = 20
    identity = False

    quick_budget = 0

    @property
    def qualified_name(self) -> str:
        """The Lean declaration, ``<namespace>.<lean_name>``."""
        return f"{self.namespace}.{self.lean_name}"

    @property
    def verdict_name(self) -> str:
        """The name on this checker's verdicts: bare in namespace SCAFFOLD (as before),
        qualified otherwise (``FedAvg.PerRoundProgress``)."""
        return self.lean_name if self.namespace == "SCAFFOLD" else self.qualified_name

    # ---- to be provided by subclasses ------------------------------------------------
    def hypotheses(self, instance, mutate=None) -> list:
        """All hypotheses of the statement evaluated on ``instance`` (list of Hypothesis)."""
        raise NotImplementedError

    def lhs(self, instance, mutate=None):
        raise NotImplementedError

    def rhs(self, instance, mutate=None):
        raise NotImplementedError

    def random(self, rng, relax=()) -> dict:
        """A random instance (inside the hypotheses unless relaxed ones are listed)."""
        raise NotImplementedError

    def structured(self) -> list:
        """Edge-case instances (inside the hypotheses)."""
        return []

    def candidates(self, rng, budget, relax=(), mutate=None):
        """Adversarial candidate instances (generator); default: structured then random."""
        for inst in self.structured():
            yield inst
        for _ in range(budget):
            yield self.random(rng, relax=relax)

    # ---- generic machinery ----------------------------------------------------------
    def _mutation(self, mutate):
        if mutate is None:
            return None
        if mutate not in self.mutations:
            raise InputError("mutate", f"unknown mutation {mutate!r} of {self.lean_name}; "
                             f"known: {sorted(self.mutations)}")
        return self.mutations[mutate]

    def lean_instance(self, instance) -> dict:
        """The instance as handed to :func:`pyfed.lean.render.render_counterexample`
        (default: unchanged; the theorem checkers reduce it to the scalars of the Lean RHS)."""
        return instance

    def hypothesis_keys(self) -> set:
        """Keys of this statement's hypotheses (the valid ``--relax`` values)."""
        cached = self.__dict__.get("_hypothesis_keys")
        if cached is not None:
            return cached
        keys = set()
        for inst in self.structured():
            keys |= {h.key for h in self.hypotheses(inst)}
        for m in self.mutations.values():
            keys |= set(m.relax)
        self.__dict__["_hypothesis_keys"] = keys
        return keys

    def effective_relax(self, relax=(), mutate=None) -> tuple:
        m = self._mutation(mutate)
        keys = set(relax or ())
        if relax:
            unknown = keys - self.hypothesis_keys()
            if unknown:
                raise InputError("relax", f"unknown hypothesis {sorted(unknown)} of {self.lean_name}; "
                                 f"known: {sorted(self.hypothesis_keys())}")
        if m is not None:
            keys |= set(m.relax)
        return tuple(sorted(keys))

    def tolerance(self):
        """Decision threshold for inexact (mpmath) sides; exact checkers use 0."""
        return mpmath.mpf(10) ** (-(DPS // 2))

    def check(self, instance, relax=(), mutate=None) -> Verdict:
        """Verdict on one instance.

        Hypotheses that fail (and are not relaxed, or dropped by the mutation) make the
        instance vacuous: :class:`Inconclusive` with the failing keys. Otherwise exact
        sides give Holds/Violated by the exact sign of rhs - lhs (equality for identities);
        mpmath sides are decided only when |rhs - lhs| exceeds :meth:`tolerance`.
        """
        relax = self.effective_relax(relax, mutate)
        self._mutation(mutate)
        if not isinstance(instance, dict):
            raise InputError("instance", f"must be a dict, got {type(instance).__name__}")
        try:
            hs = self.hypotheses(instance, mutate=mutate)
        except InputError:
            raise
        except (KeyError, TypeError, IndexError, ValueError, AttributeError) as exc:
            raise InputError("instance", f"malformed {self.lean_name} instance ({type(exc).__name__}: {exc}); "
                             f"see checkers.{type(self).__module__.split('.')[-1]} for the expected keys") from None
        bad = [h for h in hs if not h.holds and h.key not in relax]
        if bad:
            return Inconclusive(self.verdict_name, exact=True, details={
                "failing_hypotheses": {h.key: (q(h.margin) if isinstance(h.margin, Fraction)
                                               else (None if h.margin is None else str(h.margin)))
                                       for h in bad}},
                reason="hypotheses fail (vacuous instance): " + ", ".join(h.statement for h in bad))
        try:
            lhs = self.lhs(instance, mutate=mutate)
            rhs = self.rhs(instance, mutate=mutate)
        except ZeroDivisionError:
            return Inconclusive(self.verdict_name, exact=True, reason="a side is undefined (division by zero)")
        except Diverged as exc:  # a side simulated by a run that diverged (pyfed.algorithms)
            return Inconclusive(self.verdict_name, exact=False, details={"diverged": exc.to_json()},
                                reason=f"a side could not be evaluated: the simulated run {exc}")
        exact = isinstance(lhs, (int, Fraction)) and isinstance(rhs, (int, Fraction))
        details = {"mutate": mutate} if mutate else {}
        if exact:
            lhs, rhs = Fraction(lhs), Fraction(rhs)
            ok = (lhs == rhs) if self.identity else (lhs <= rhs)
            if ok:
                return Holds(self.verdict_name, lhs, rhs, True, details, certificate="exact rational arithmetic")
            return Violated(self.verdict_name, lhs, rhs, True, details, witness={"instance": instance})
        with mpmath.workdps(DPS):
            lhs, rhs = _mpf(lhs), _mpf(rhs)
            diff = rhs - lhs
            tol = self.tolerance()
            if self.identity:
                if abs(diff) <= tol:
                    return Holds(self.verdict_name, lhs, rhs, False, details,
                                 certificate=f"mpmath {DPS} digits, |rhs-lhs| <= {mpmath.nstr(tol, 3)}")
                return Violated(self.verdict_name, lhs, rhs, False, details, witness={"instance": instance})
            if diff > tol:
                return Holds(self.verdict_name, lhs, rhs, False, details,
                             certificate=f"mpmath {DPS} digits, margin > {mpmath.nstr(tol, 3)}")
            if diff < -tol:
                return Violated(self.verdict_name, lhs, rhs, False, details, witness={"instance": instance})
            return Inconclusive(self.verdict_name, lhs, rhs, False, details,
                                reason=f"|rhs - lhs| <= {mpmath.nstr(tol, 3)} at {DPS} digits")

    def optimise(self, objective, theta0, maxiter=200):
        """Minimise a float objective (a normalised rhs - lhs) with Nelder-Mead from theta0;
        returns the final parameter vector (float64 array). Deterministic given theta0."""
        from scipy.optimize import minimize

        def safe(t):
            try:
                val = float(objective(t))
            except (ZeroDivisionError, OverflowError, ValueError, FloatingPointError):
                return 1e300
            return val if math.isfinite(val) else 1e300
        res = minimize(safe, np.asarray(theta0, float), method="Nelder-Mead",
                       options={"maxiter": maxiter, "xatol": 1e-9, "fatol": 1e-12})
        return res.x

    def _candidate_items(self, rng, budget, relax, mutate, seed):
        """The candidate sequence of :meth:`search` for the indexed path: with ``seed``, the
        draws made while producing item j come from ``numpy.random.default_rng([seed, j])``
        (:class:`_IndexedRng`); expensive derived candidates (Nelder-Mead climbs, see
        :func:`later`) are left as :class:`Deferred` items, computed where the item is evaluated."""
        proxy = _IndexedRng(seed) if seed is not None else None
        token = _DEFER.set(True)
        try:
            gen = self.candidates(proxy if proxy is not None else rng, budget, relax=relax, mutate=mutate)
            items = []
            while True:
                if proxy is not None:
                    proxy.select(len(items))
                try:
                    items.append(next(gen))
                except StopIteration:
                    return items
        finally:
            _DEFER.reset(token)

    def search(self, rng, budget: int, relax=(), mutate=None, progress=None, report=None, *,
               seed=None, mapper=None) -> list:
        """Adversarial search: counterexample records (see :func:`record_of`), worst first.

        The unit of ``budget`` is one *random draw*: the search generates, in this order, the
        checker's structured edge cases (always, whatever the budget), then ``budget`` random
        instances, each possibly followed by candidates refined from it (a local optimisation,
        an LP worst case, ...; how many depends on the checker). So ``budget`` = 1 can decide
        (and find) several candidates; ``report["drawn"]`` counts every generated candidate,
        ``report["structured"]`` the edge cases among them. ``budget`` = 0 tries the edge
        cases only.

        rng: numpy Generator or int seed; budget: random draws (>= 0); relax: hypothesis keys to
        search beyond; mutate: mutation name; progress: optional callable(advance) called
        once per candidate; report: optional dict filled with the search statistics
        ``{"drawn", "structured", "random_draws", "candidates", "holds", "violated",
        "inconclusive", "vacuous", "tightest"}`` where ``candidates`` counts the distinct
        candidates decided and ``tightest`` is the record of the holding instance with the
        largest lhs/rhs. Records are deduplicated by instance. Raises InputError for a negative
        budget or an unknown mutation / relax key.

        Indexed search (``pyfed search``, :func:`pyfed.search.search_to_dir`): with ``seed`` (an
        int; ``rng`` is then ignored) candidate j's randomness is ``default_rng([seed, j])``;
        with ``mapper`` (callable(fn, items, progress) -> results in order, e.g.
        :meth:`pyfed.parallel.Pool.map`) the candidates are generated first and evaluated (derived
        candidates computed, then checked) through the mapper. Results are merged in candidate
        order, so the records and statistics do not depend on how the mapper runs them.
        """
        budget = int(budget)
        if budget < 0:
            raise InputError("budget", "must be >= 0")
        relax = self.effective_relax(relax, mutate)
        if seed is None:
            rng = check_rng(rng)
        if seed is None and mapper is None:
            pairs = self._streamed(rng, budget, relax, mutate, progress)
        else:
            items = self._candidate_items(rng, budget, relax, mutate, seed)
            task = _CandidateTask(self, relax, mutate)
            if mapper is None:
                pairs = [task(item) for item in items]
                if progress is not None:
                    progress(len(items))
            else:
                pairs = mapper(task, items, progress)
        out, seen = [], set()
        stats = {"drawn": 0, "structured": len(self.structured()), "random_draws": budget,
                 "candidates": 0, "holds": 0, "violated": 0, "inconclusive": 0, "vacuous": 0}
        best, best_key = None, float("-inf")
        for inst, v in pairs:
            stats["drawn"] += 1
            if inst is None:
                continue
            key = repr(sorted(inst.items()))
            if key in seen:
                continue
            seen.add(key)
            stats["candidates"] += 1
            if isinstance(v, Violated):
                stats["violated"] += 1
                out.append(record_of(self, inst, v, relax=relax, mutate=mutate))
            elif isinstance(v, Holds):
                stats["holds"] += 1
                t = _tightness(v)
                if best is None or t > best_key:
                    best, best_key = (inst, v), t
            elif v.lhs is None and "diverged" not in (v.details or {}):
                stats["vacuous"] += 1
            else:
                stats["inconclusive"] += 1
        if self.identity:
            out.sort(key=lambda r: -abs(_margin_float(r)))
        else:
            out.sort(key=lambda r: _margin_float(r))
        if report is not None:
            report.update(stats)
            report["tightest"] = None if best is None else record_of(self, best[0], best[1], relax, mutate)
            report["tightest_verdict"] = None if best is None else best[1]
        return out

    def _streamed(self, rng, budget, relax, mutate, progress):
        """(instance, verdict) pairs of the single-stream search, generated and checked one by one;
        duplicates (by instance) are not checked twice (verdict None)."""
        seen = set()
        for inst in self.candidates(rng, budget, relax=relax, mutate=mutate):
            if progress is not None:
                progress(1)
            if isinstance(inst, Deferred):
                inst = inst()
            if inst is None:
                yield None, None
                continue
            key = repr(sorted(inst.items()))
            if key in seen:
                yield inst, None
                continue
            seen.add(key)
            yield inst, self.check(inst, relax=relax, mutate=mutate)

    def verdict(self, rng, budget=None) -> Verdict:
        """One verdict for the statement from its default search.

        Violated (the worst counterexample, re-checked exactly, as witness) if the search finds
        one. Otherwise Inconclusive: a finite search cannot certify a universal statement, so
        "no counterexample among N candidates" is reported as such (``details["search_result"]``),
        with lhs/rhs of the tightest instance found (each candidate itself decided exactly where
        the checker is exact) and the search statistics in ``details``.
        """
        rng = check_rng(rng)
        budget = self.default_budget if budget is None else budget
        rep = {}
        recs = self.search(rng, budget, report=rep)
        details = {k: rep[k] for k in ("drawn", "structured", "random_draws", "candidates", "holds", "violated",
                                       "inconclusive", "vacuous")}
        details["search_budget"] = budget
        if recs:
            r = recs[0]
            v = self.check(r["instance"])
            return Violated(self.verdict_name, v.lhs, v.rhs, v.exact, details, witness=r)
        tv = rep.get("tightest_verdict")
        if tv is None:
            details["search_result"] = "nothing decided"
            return Inconclusive(self.verdict_name, details=details, reason="no instance inside the hypotheses was decided")
        details["tightest_instance"] = rep["tightest"]["instance"]
        details["search_result"] = "no counterexample"
        details["tightest_exact"] = bool(tv.exact)
        how = "exactly" if tv.exact else "in high precision"
        return Inconclusive(self.verdict_name, tv.lhs, tv.rhs, False, details,
                            reason=(f"no counterexample among {details['holds']} candidates decided {how} "
                                    f"({details['drawn']} drawn: {details['structured']} structured edge cases, "
                                    f"budget {budget} random draws and the candidates refined from them); a finite "
                                    "search does not "
                                    "prove the statement; lhs/rhs are the tightest instance found"))
