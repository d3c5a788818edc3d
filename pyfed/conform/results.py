"""What a conformance run returns: the first deviation of each rung in words, the rungs, the report.

Engines never print: :func:`pyfed.conform.conform` returns a :class:`ConformanceReport`, the
command line renders it (:mod:`pyfed.commands.conform`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from ..exact import exact_decimal, rational_str

__all__ = ["Deviation", "RungResult", "ConformanceReport", "StateReport", "show_value"]


def show_value(v) -> str:
    """An exact value in words: the fraction when short, else its certified 17-digit decimal."""
    f = Fraction(v)
    return rational_str(f) if len(rational_str(f)) <= 24 else exact_decimal(f, 17)


@dataclass
class Deviation:
    """The first deviation of a rung from the algorithm's law.

    Attributes
    ----------
    rung : str
    round : int
        1, 2, ... (seed numbering); 0 for the initial state; the time step t + 1 for Local SGD.
    client : int | None
        The client (worker for Local SGD), 0-based; None for server quantities.
    quantity : str
        "oracle calls", "local iterate y_{i,k}", "local end point y_{i,K}", "client control c_i",
        "model x", "aggregation weights", "server control c", "moment m", ... in words.
    expected : list of Fraction
        The exact values (the law's mean / covariance for a law deviation).
    observed : list of float
        The implementation's values.
    equation, source : str
        The equation contradicted and where it is defined.
    sampled : list of int | None
        The sampled set S_r of the round (draws for Local SGD).
    hint : str | None
        The likely cause, in words: a known mistake that reproduces the observed value exactly.
    kind : str
        "exact" (a deterministic or matched-draw comparison), "law" (a statistical test),
        "draws" (Local SGD), "state" (the adapter keeps state outside its attributes).
    error, bound : float | None
        Largest |observed - expected| and the precision's bound for it
        (:mod:`pyfed.conform.precision`).
    detail : str | None
        More evidence (the test statistic of a law deviation, how a value was reconstructed).
    implied_eta_g : Fraction | None
        When the only deviation is the global step: the step size the implementation applies.
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
    error: float | None = None
    bound: float | None = None
    detail: str | None = None
    implied_eta_g: Fraction | None = None

    def headline(self) -> str:
        """One line: where and what."""
        where = "initialisation" if self.round == 0 else f"round {self.round}"
        who = "" if self.client is None else f", client {self.client}"
        return f"{self.rung}: {where}{who}: {self.quantity} deviates from the algorithm"

    def lines(self) -> list[str]:
        """The diagnosis in words, one fact per line."""
        out = [self.headline()]
        if self.sampled is not None:
            out.append(f"sampled set S_r = {{{', '.join(map(str, self.sampled))}}}" if self.kind != "draws"
                       else f"draws {self.sampled}")
        label = "law" if self.kind == "law" else "exact"
        out.append(f"expected ({label}): [{', '.join(show_value(v) for v in self.expected)}]")
        err = ""
        if self.error is not None and math.isfinite(self.error):
            err = f"  (error {self.error:.3g}" + (f"; a correct implementation is within {self.bound:.3g})"
                                                  if self.bound is not None else ")")
        out.append(f"observed: [{', '.join(repr(float(v)) for v in self.observed)}]" + err)
        if self.detail:
            out.append(self.detail)
        out.append(f"contradicts: {self.equation}")
        out.append(f"source: {self.source}")
        if self.hint:
            out.append(f"likely cause: {self.hint}")
        return out

    def to_json(self) -> dict:
        return {"rung": self.rung, "round": self.round, "client": self.client, "quantity": self.quantity,
                "expected": [rational_str(Fraction(v)) for v in self.expected],
                "expected_decimal": [show_value(v) for v in self.expected],
                "observed": [float(v) for v in self.observed], "equation": self.equation, "source": self.source,
                "sampled": self.sampled, "hint": self.hint, "kind": self.kind,
                "error": None if self.error is None or not math.isfinite(self.error) else self.error,
                "bound": self.bound, "detail": self.detail,
                "implied_eta_g": None if self.implied_eta_g is None else rational_str(self.implied_eta_g)}


@dataclass
class RungResult:
    """The outcome of one rung.

    Attributes
    ----------
    name, description : str
    parameters : dict
    status : str
        "conforms", "conforms in law" or "deviates".
    rounds : int
        Rounds (time steps) run on every path.
    paths : int
        Sample paths (subset or draw sequences) run to the end (or to the deviation).
    adapter_calls : int
    deviation : Deviation | None
    max_ratio : float
        Largest error / bound seen in the rung's exact comparisons (<= 1 when it conforms).
    law : dict | None
        For a noise-free rung that conforms: E[x] after the branching rounds under the sampling
        law, exact, and the same average of the implementation's outputs.
    notes : list of str
        Facts that are not deviations (extra oracle calls, the law test's summary).
    """

    name: str
    description: str
    parameters: dict
    status: str = "conforms"
    rounds: int = 0
    paths: int = 0
    adapter_calls: int = 0
    deviation: Deviation | None = None
    max_ratio: float = 0.0
    law: dict | None = None
    notes: list = field(default_factory=list)

    @property
    def note(self) -> str | None:
        """The notes in one line (None when there are none)."""
        return "; ".join(self.notes) if self.notes else None

    def to_json(self) -> dict:
        return {"name": self.name, "description": self.description, "parameters": self.parameters,
                "status": self.status, "rounds": self.rounds, "paths": self.paths,
                "adapter_calls": self.adapter_calls, "max_error_over_bound": self.max_ratio, "law": self.law,
                "notes": list(self.notes), "deviation": None if self.deviation is None else self.deviation.to_json()}


@dataclass
class StateReport:
    """Whether the adapter keeps state between calls (the purity rule of
    :mod:`pyfed.conform.protocol`).

    Attributes
    ----------
    stateful : bool
    attributes : list of str
        The attributes that changed during a call.
    first_seen : str | None
        Where: "rung 'one client', round 1".
    sequential : bool
        Whether pyfed then ran every path on a fresh copy of the adapter, rounds in order.
    """

    stateful: bool = False
    attributes: list = field(default_factory=list)
    first_seen: str | None = None
    sequential: bool = False

    def text(self) -> str | None:
        if not self.stateful:
            return None
        names = ", ".join(f"`{a}`" for a in self.attributes)
        out = (f"the adapter keeps state between calls: attribute{'s' if len(self.attributes) != 1 else ''} {names} "
               f"changed in {self.first_seen}")
        if self.sequential:
            out += ("; every sampling path was run on a fresh copy of the adapter as it was before its first call "
                    "(copy.deepcopy), rounds in order")
        return out

    def to_json(self) -> dict:
        return {"stateful": self.stateful, "attributes": list(self.attributes), "first_seen": self.first_seen,
                "sequential": self.sequential}


@dataclass
class ConformanceReport:
    """The result of :func:`pyfed.conform.conform`.

    Attributes
    ----------
    algorithm : str
    option, mode : str | None
    rungs : list of RungResult
    seed : int
    initial_state : str | None
        Who built the initial state ("adapter (init)" / "pyfed ...").
    eta_g : Fraction | None
        The declared global step size (``--eta-g`` or the adapter's ``eta_g``), else None.
    precision : str
        The working precision of the comparison.
    precision_source : str
        "declared", "detected from the returned arrays" or "default".
    state : StateReport
    """

    algorithm: str
    option: str | None
    mode: str | None
    rungs: list
    seed: int
    initial_state: str | None = None
    eta_g: Fraction | None = None
    precision: str = "float64"
    precision_source: str = "default"
    state: StateReport = field(default_factory=StateReport)

    @property
    def conforms(self) -> bool:
        """No rung deviates."""
        return all(r.status != "deviates" for r in self.rungs)

    @property
    def first_deviation(self) -> Deviation | None:
        """The deviation of the first rung that deviates."""
        return next((r.deviation for r in self.rungs if r.deviation is not None), None)

    @property
    def conforms_at_eta_g(self) -> Fraction | None:
        """The global step size the implementation applies when that is its only deviation: every
        deviating rung deviates in the global step with the same implied eta_g (None otherwise,
        and None when it conforms)."""
        bad = [r.deviation for r in self.rungs if r.status == "deviates"]
        if not bad or any(d is None or d.implied_eta_g is None for d in bad):
            return None
        values = {d.implied_eta_g for d in bad}
        return values.pop() if len(values) == 1 else None

    def label(self, eta_g=None) -> str:
        """The algorithm as checked, e.g. "SCAFFOLD option II", "FedAvg (uniform-client mode)"."""
        if self.algorithm == "scaffold":
            text = f"SCAFFOLD option {self.option}"
        elif self.algorithm == "local-sgd":
            return "Local SGD"
        elif self.algorithm in ("fedadam", "fedyogi", "fedadagrad"):
            return {"fedadam": "FedAdam", "fedyogi": "FedYogi", "fedadagrad": "FedAdagrad"}[self.algorithm] + \
                " (Reddi et al., Algorithm 2)"
        else:
            name = "FedAvg" if self.algorithm == "fedavg" else "FedProx"
            text = f"{name} ({'uniform-client' if self.mode == 'uniform' else 'count-weighted'} mode)"
        g = self.eta_g if eta_g is None else eta_g
        return text + (f" with eta_g = {rational_str(Fraction(g))}" if g is not None else "")

    def to_json(self) -> dict:
        at = self.conforms_at_eta_g
        return {"schema": "pyfed.conform/2", "algorithm": self.algorithm, "option": self.option, "mode": self.mode,
                "label": self.label(), "conforms": self.conforms, "seed": self.seed,
                "eta_g": None if self.eta_g is None else rational_str(self.eta_g),
                "conforms_at_eta_g": None if at is None else rational_str(at),
                "initial_state": self.initial_state, "state": self.state.to_json(),
                "comparison": {"precision": self.precision, "precision_source": self.precision_source,
                               "bound": "gamma_n |Q| = n u / (1 - n u) times the round computed in absolute values, "
                                        "n the roundings counted per quantity (pyfed.conform.precision)",
                               "oracle_noise": "xi = s * eps, eps uniform on {-1, +1}^d (Rademacher), s dyadic; "
                                               "draws keyed by (seed, rung, replicate, round, client, call)"},
                "rungs": [r.to_json() for r in self.rungs],
                "first_deviation": None if self.first_deviation is None else self.first_deviation.to_json()}
