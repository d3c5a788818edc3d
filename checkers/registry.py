"""Registry: bare Lean name -> checker (the Lean declaration is ``SCAFFOLD.<name>``).

Checkers are imported lazily so that one module's optional dependency (e.g. the SCAFFOLD
simulators) cannot break the others. ``get(name)`` returns a checker instance;
``names()`` lists the registered Lean names in the brief's order.
"""

from __future__ import annotations

import importlib

from pyfed.errors import InputError

#: Lean name -> "module:Class" (modules inside the ``checkers`` package).
REGISTRY = {
    "ConvexFiniteRoundConvergence": "theorems:ConvexFiniteRoundConvergence",
    "NonconvexFiniteRoundConvergence": "theorems:NonconvexFiniteRoundConvergence",
    "GradientGrowth": "smooth:GradientGrowth",
    "RelaxedTriangle": "vectors:RelaxedTriangle",
    "YoungInner": "vectors:YoungInner",
    "SumSquares": "vectors:SumSquares",
    "MartingaleDifferenceBound": "martingale:MartingaleDifferenceBound",
    "StichWeightedAveraging": "stich:StichWeightedAveraging",
    "StichWeightSumLowerBound": "stich:StichWeightSumLowerBound",
    "UniformAveraging": "averaging:UniformAveraging",
    "GeometricAveraging": "averaging:GeometricAveraging",
    "GradientStepNonexpansive": "smooth:GradientStepNonexpansive",
    "SamplingVarianceIdentity": "sampling:SamplingVarianceIdentity",
    "SamplingVarianceBound": "sampling:SamplingVarianceBound",
    "SamplingSingleClient": "sampling:SamplingSingleClient",
    "LocalSGDOneStep": "local_sgd:LocalSGDOneStep",
    "OptionTwoControlIsAverage": "controls:OptionTwoControlIsAverage",
    "ServerControlIsMean": "controls:ServerControlIsMean",
    "PerturbedStrongConvexity": "smooth:PerturbedStrongConvexity",
    "FiniteRoundConvergence": "theorems:FiniteRoundConvergence",
}

_cache: dict = {}


def names() -> list:
    """Registered Lean names (bare, namespace SCAFFOLD)."""
    return list(REGISTRY)


def get(name: str):
    """Checker instance for a bare Lean name (``SCAFFOLD.`` prefix accepted).

    Raises InputError(argument="lean_name") for an unknown name.
    """
    if isinstance(name, str) and name.startswith("SCAFFOLD."):
        name = name[len("SCAFFOLD."):]
    if name not in REGISTRY:
        raise InputError("lean_name", f"unknown statement {name!r}; known: {', '.join(REGISTRY)}")
    if name not in _cache:
        mod, cls = REGISTRY[name].split(":")
        module = importlib.import_module(f"checkers.{mod}")
        _cache[name] = getattr(module, cls)()
    return _cache[name]


def all_checkers() -> dict:
    """{lean_name: checker} for every registered statement."""
    return {n: get(n) for n in REGISTRY}


def run_all(budget=None, seed: int = 0, *, quick: bool = False, progress=None) -> list:
    """[(lean_name, Verdict)] for every registered checker.

    budget: search budget per checker, the number of random draws of its search (None: each
    checker's ``default_budget``, or its ``quick_budget`` when ``quick``); seed: base seed;
    checker i uses ``numpy.random.default_rng([seed, i])`` so results do not depend on which
    other checkers ran; progress: optional callable(lean_name) called before each checker.
    """
    import numpy as np

    out = []
    for i, name in enumerate(names()):
        chk = get(name)
        if progress is not None:
            progress(name)
        rng = np.random.default_rng([int(seed), i])
        b = budget if budget is not None else (chk.quick_budget if quick else None)
        out.append((name, chk.verdict(rng, b)))
    return out
