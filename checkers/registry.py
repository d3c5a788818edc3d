"""Registry: Lean name -> checker, per Lean namespace.

:data:`REGISTRY` holds namespace ``SCAFFOLD`` (bare names, as before), :data:`FEDAVG_REGISTRY`
namespace ``FedAvg`` (the Field Guide statements); :data:`NAMESPACES` maps each namespace to its
table. Bare names are unique across namespaces, so ``get`` accepts a bare name
(``"PerRoundProgress"``) as well as a qualified one (``"SCAFFOLD.YoungInner"``,
``"FedAvg.PerRoundProgress"``).

Checkers are imported lazily so that one module's optional dependency (e.g. the SCAFFOLD
simulators) cannot break the others. ``get(name)`` returns a checker instance;
``names()`` lists the registered bare Lean names (namespace SCAFFOLD first, in the brief's
order, then FedAvg); ``qualified_names()`` the same names with their namespace.
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

#: Namespace FedAvg (Wang et al., Field Guide, Section 6.1): bare Lean name -> "module:Class".
FEDAVG_REGISTRY = {
    "PerRoundProgress": "fedavg:PerRoundProgress",
    "BoundedClientDrift": "fedavg:BoundedClientDrift",
    "ConvexFedAvgConvergence": "fedavg:ConvexFedAvgConvergence",
    "TunedConvexFedAvgConvergence": "fedavg:TunedConvexFedAvgConvergence",
}

#: Lean namespace -> its table (bare name -> "module:Class").
NAMESPACES = {"SCAFFOLD": REGISTRY, "FedAvg": FEDAVG_REGISTRY}

_cache: dict = {}


def names() -> list:
    """Registered bare Lean names: namespace SCAFFOLD (brief's order), then FedAvg."""
    return [n for table in NAMESPACES.values() for n in table]


def qualified_names() -> list:
    """Registered Lean declarations, ``<namespace>.<name>``, in the order of :func:`names`."""
    return [f"{ns}.{n}" for ns, table in NAMESPACES.items() for n in table]


def namespace_of(name: str) -> str:
    """The Lean namespace of a registered (bare or qualified) name; InputError if unknown."""
    return _resolve(name)[0]


def display_name(name: str) -> str:
    """How reports name a statement: bare in namespace SCAFFOLD, qualified otherwise."""
    ns, bare = _resolve(name)
    return bare if ns == "SCAFFOLD" else f"{ns}.{bare}"


def _resolve(name):
    if isinstance(name, str) and "." in name:
        ns, _, bare = name.rpartition(".")
        if ns in NAMESPACES and bare in NAMESPACES[ns]:
            return ns, bare
    elif isinstance(name, str):
        for ns, table in NAMESPACES.items():
            if name in table:
                return ns, name
    raise InputError("lean_name", f"unknown statement {name!r}; known: {', '.join(qualified_names())}")


def get(name: str):
    """Checker instance for a bare Lean name or a namespace-qualified one (``SCAFFOLD.X``,
    ``FedAvg.X``).

    Raises InputError(argument="lean_name") for an unknown name (or a known bare name under
    the wrong namespace).
    """
    ns, bare = _resolve(name)
    key = f"{ns}.{bare}"
    if key not in _cache:
        mod, cls = NAMESPACES[ns][bare].split(":")
        module = importlib.import_module(f"pyfed.checkers.{mod}")
        _cache[key] = getattr(module, cls)()
    return _cache[key]


def all_checkers() -> dict:
    """{lean_name: checker} for every registered statement (bare names)."""
    return {n: get(n) for n in names()}


def run_all(budget=None, seed: int = 0, *, quick: bool = False, progress=None) -> list:
    """[(name, Verdict)] for every registered checker (name as :func:`display_name`: bare in
    namespace SCAFFOLD, ``FedAvg.X`` otherwise).

    budget: search budget per checker, the number of random draws of its search (None: each
    checker's ``default_budget``, or its ``quick_budget`` when ``quick``); seed: base seed;
    checker i uses ``numpy.random.default_rng([seed, i])`` so results do not depend on which
    other checkers ran; progress: optional callable(name) called before each checker (the
    registry name, as :func:`names` lists it).
    """
    import numpy as np

    out = []
    for i, name in enumerate(names()):
        chk = get(name)
        if progress is not None:
            progress(name)
        rng = np.random.default_rng([int(seed), i])
        b = budget if budget is not None else (chk.quick_budget if quick else None)
        out.append((display_name(name), chk.verdict(rng, b)))
    return out
