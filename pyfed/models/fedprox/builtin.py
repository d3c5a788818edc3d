"""FedProx's built-in instances: two fixed rational realizations of the procedure (quadratic
clients, their affine oracles with or without noise offsets, the sampled sets of every round, the
start, the steps, μ, K, S of N and the number of rounds), on which a FedProx statement whose
parameters are all arguments of the procedure is decided exactly, one certified row each.

A statement binds an instance by its parameters' roles (:func:`.instances.roles`): the client
count and dimension, ``S``, ``K``, ``ηl``, ``ηg``, ``μ``, the oracles (of every round, of round 0,
or client 0's), the sampled sets (of every round, or round 0's), the start and the round (or step)
index (the instance's T, or K). A parameter in no role (a curvature, a minimiser, a constant of the
right side) cannot be bound: the instance is skipped with that reason, as it is when a hypothesis
fails on it (the statement says nothing there). The instances are also the conformance test's:
:func:`pyfed.algorithms.fedprox` on the same clients, samples and start gives the same trajectory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction as Fr

from ...checkers import families as fam
from ...exact import rational_str
from ...statements.elaboration import resolved
from ...statements.interpret import Vec
from ...verdicts import Evidence, Holds, Inconclusive, Violated
from .instances import INDEX_ROLES, dimensions, roles
from .search import WITNESS_SCHEMA, decide, describe_hypotheses

__all__ = ["FedProxInstance", "BUILTIN", "bind", "rows"]


@dataclass(frozen=True)
class FedProxInstance:
    """One realization of FedProx with exact data.

    name, description : str; N, d, S, K, T : int (clients, dimension, sampled per round, local
    steps, rounds); eta_l, eta_g, mu : Fraction; eigenvalues, b : per client (N lists of d
    rationals; client i is ``fᵢ(y) = ½ yᵀAᵢy − bᵢᵀy`` with ``Aᵢ = Qᵢᵀ diag(λᵢ) Qᵢ``, Qᵢ the rational
    rotation ``pyfed.checkers.families.rotation(d, i)``); samples : the sampled clients of rounds
    0..T−1; x0 : the start (d rationals); noise : ``noise[r][i][k]`` the offset (d rationals) added
    to client i's call k in round r (empty: exact gradients).
    """

    name: str
    description: str
    N: int
    d: int
    S: int
    K: int
    T: int
    eta_l: Fr
    eta_g: Fr
    mu: Fr
    eigenvalues: tuple
    b: tuple
    samples: tuple
    x0: tuple
    noise: tuple = field(default=())

    def clients(self) -> list:
        """``[(A, b)]``: each client's matrix and vector (exact)."""
        out = []
        for i, (lams, b) in enumerate(zip(self.eigenvalues, self.b)):
            f = fam.quadratic_from_eigen([Fr(x) for x in lams], [Fr(x) for x in b], k=i)
            out.append((f.quadratic[0], f.quadratic[1]))
        return out

    def round_oracles(self, r: int):
        """Round ``r``'s ``Fin N → LocalOracle d`` (the affine oracles ``Aᵢy − bᵢ + noise``)."""
        offs = self.noise[min(r, len(self.noise) - 1)] if self.noise else [[] for _ in range(self.N)]
        return fam.client_oracles([fam.affine_oracle(A, b, offs[i]) for i, (A, b) in enumerate(self.clients())])

    def parameters(self) -> dict:
        """The instance's parameters for the report (exact)."""
        return {"N": self.N, "d": self.d, "S": self.S, "K": self.K, "T": self.T, "eta_l": rational_str(self.eta_l),
                "eta_g": rational_str(self.eta_g), "mu": rational_str(self.mu),
                "oracle": "affine with noise offsets" if self.noise else "exact gradients"}


#: The built-in instances (hand-picked rationals; the second is the hand-computed clients of the
#: simulator's tests, ``f₀ = y²/2 − y`` and ``f₁ = 3y²/2``, with noise offsets).
BUILTIN = (
    FedProxInstance("fedprox-quadratic-N3-d2", "3 rational quadratic clients in dimension 2, exact gradients",
                    N=3, d=2, S=2, K=3, T=3, eta_l=Fr(1, 4), eta_g=Fr(1), mu=Fr(1, 2),
                    eigenvalues=((1, Fr(1, 2)), (2, 1), (Fr(1, 2), Fr(3, 2))), b=((1, 0), (0, -1), (-1, Fr(1, 2))),
                    samples=((0, 1), (1, 2), (0, 2)), x0=(1, -1)),
    FedProxInstance("fedprox-noisy-N2-d1", "2 quadratic clients in dimension 1, affine oracles with noise offsets",
                    N=2, d=1, S=1, K=2, T=2, eta_l=Fr(1, 2), eta_g=Fr(3, 2), mu=Fr(1),
                    eigenvalues=((1,), (3,)), b=((1,), (0,)), samples=((1,), (0,)), x0=(1,),
                    noise=((((Fr(1, 4),), (Fr(-1, 4),)), ((Fr(1, 2),), (0,))),
                           (((Fr(-1, 2),), (Fr(1, 4),)), ((0,), (Fr(1, 4),))))),
)


def _oracle_value(t, inst: FedProxInstance):
    """The instance's oracles in the shape of the parameter's type ``t``."""
    t = resolved(t)
    dom = getattr(resolved(t.args[0]), "kind", "")
    cod = resolved(t.args[1])
    if dom == "nat" and getattr(cod, "kind", "") == "fun" and getattr(resolved(cod.args[0]), "kind", "") == "fin":
        return fam.process([inst.round_oracles(r) for r in range(inst.T)])
    if dom == "fin":
        return inst.round_oracles(0)
    return inst.round_oracles(0)(0)             # LocalOracle d: client 0's oracle in round 0


def bind(st, inst: FedProxInstance, rl: dict | None = None) -> tuple:
    """``(env, None)``: the statement's parameters bound to ``inst`` by their roles, or
    ``(None, why)`` when a parameter has no value in the instance."""
    rl = roles(st) if rl is None else rl
    dims = dimensions(st)
    scalars = {"S": inst.S, "K": inst.K, "ηl": inst.eta_l, "ηg": inst.eta_g, "μ": inst.mu, "k": inst.K}
    env: dict = {}
    for p in st.parameters:
        role = rl.get(p.name)
        if p.name in dims:
            env[p.name] = inst.N if dims[p.name] == "N" else inst.d
        elif role in scalars:
            env[p.name] = scalars[role]
        elif role in INDEX_ROLES:
            env[p.name] = inst.T
        elif role in ("x0", "x"):
            env[p.name] = Vec([Fr(v) for v in inst.x0])
        elif role == "samples":
            env[p.name] = fam.samples([list(s) for s in inst.samples])
        elif role == "sample":
            env[p.name] = frozenset(inst.samples[0])
        elif role == "oracle":
            env[p.name] = _oracle_value(p.lty, inst)
        else:
            return None, (f"`{p.name}` is not an argument of the FedProx procedure, so the instance gives it no "
                          "value")
    env["__nat_bound__"] = inst.T + 1
    return env, None


def rows(st) -> tuple:
    """``(verdicts, skipped)``: ``st`` decided exactly on each built-in instance it binds and whose
    hypotheses hold (a certified row each), and ``[(instance, why)]`` for the others."""
    rl = roles(st)
    verdicts, skipped = [], []
    for inst in BUILTIN:
        env, why = bind(st, inst, rl)
        if env is None:
            skipped.append((inst.name, why))
            continue
        rec = decide(st, env, description=inst.description)
        if rec.status == "outside":
            skipped.append((inst.name, "outside the statement's hypotheses (" + ", ".join(rec.failing) + " fails)"))
            continue
        details = {"instance": inst.name, "description": inst.description, "parameters": inst.parameters(),
                   "engine": "built-in FedProx instance, decided exactly", "hypotheses": describe_hypotheses(st),
                   **({"lhs_exact": rational_str(rec.lhs), "rhs_exact": rational_str(rec.rhs)}
                      if isinstance(rec.lhs, Fr) and isinstance(rec.rhs, Fr) else {})}
        if rec.status == "holds":
            verdicts.append(Holds(st.name, rec.lhs, rec.rhs, True, details, evidence=Evidence.EXACT,
                                  certificate="the statement's terms evaluated exactly (the FedProx procedure from "
                                              "its Lean body)"))
        elif rec.status == "violated":
            verdicts.append(Violated(st.name, rec.lhs, rec.rhs, True, details, evidence=Evidence.EXACT,
                                     witness={"schema": WITNESS_SCHEMA, "instance": rec.instance, "statement": st.name,
                                              "source": st.source, "index": 0, "seed": 0}))
        else:
            verdicts.append(Inconclusive(st.name, details=details, reason=rec.reason))
    return verdicts, skipped
