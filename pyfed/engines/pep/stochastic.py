"""Stochastic gradients in a PEP: the expectation-Gram relaxation (σ > 0).

An oracle answers ∇f_i(y) + ξ with E[ξ | past] = 0 and E[‖ξ‖² | past] ≤ σ², noises of different
clients at one local step conditionally independent (seed 000's ``Run`` model). The PEP keeps one
noise vector ξ per gradient sample as an extra leaf of the Gram basis and takes the Gram matrix of
*expectations*, G_ab = E⟨leaf_a, leaf_b⟩, and the function values' expectations. Every constraint
below is a linear form in these and holds for every run of the model:

* interpolation: the inequalities of F_{μ,β} hold pointwise for every pair of points of one
  function, so they hold in expectation (they are linear in the Gram entries and values);
* unbiasedness: E⟨ξ, v⟩ = 0 for every leaf v fixed before ξ is drawn (the tower rule), for the
  other clients' noises of the same local step and the gradients at the points those noises lead
  to (conditional independence across clients), and, when the run branches over client subsets
  (:mod:`.participation`), for every leaf of another branch (the branches are coupled
  conditionally independently given their common history, each with the law of the run given its
  subsets);
* variance: E‖ξ‖² ≤ σ², written ‖ξ‖² ≤ ‖u‖² with one more leaf u, ‖u‖² = σ² (this keeps the
  PEP homogeneous: the claim metric ≤ τ (V₀ + ρ σ²) is then the same for every σ > 0, by the
  scaling x ↦ s x, f ↦ s² f(·/s) of the class).

The Gram matrix of expectations is positive semidefinite, so every run gives a feasible point of
this PEP with the same metric: the PEP's value is an upper bound on the true worst case over
stochastic runs. It is a *relaxation*: a certificate (``holds``) proves the claim for every run of
the model; a PEP value above the claim is not a counterexample (the maximising Gram matrix need
not come from any oracle), so such a row is reported ``inconclusive`` unless re-verified on an
exact instance. Source of the technique: performance estimation of stochastic methods with the
variance and unbiasedness constraints in expectation (Taylor & Bach, "Stochastic first-order
methods: non-asymptotic and computer-aided analyses via potential functions", COLT 2019).
"""

from __future__ import annotations

from fractions import Fraction

from .exact_pep import ExactPEP, Form, Vec, inner, sq

__all__ = ["NoiseLedger"]


class NoiseLedger:
    """When each leaf of an :class:`.exact_pep.ExactPEP` was fixed, and the noise leaves' constraints.

    Time is a tree of *nodes* (the root: data fixed before round 0; one node per round of a
    branch, see :mod:`.participation`) and, inside a node, local steps k = 0..K-1. Every leaf gets
    a stamp ``(node, step, client, kind)`` (kind ``"grad"`` or ``"noise"``) when it is created;
    :meth:`constraints` reads the stamps.

    Parameters
    ----------
    pep : ExactPEP
        The problem being built (its ``extra`` constraints receive the noise constraints via
        :meth:`attach`).
    noisy : bool
        False: σ = 0, :meth:`sample` adds no noise and :meth:`attach` nothing.
    """

    def __init__(self, pep: ExactPEP, noisy: bool):
        self.pep, self.noisy = pep, noisy
        self.parent: dict = {0: None}     # node -> parent node (0 is the root)
        self.stamps: dict = {}            # leaf index -> (node, step, client, kind)
        self.noises: list = []            # leaf indices of the noise vectors
        self.u = pep.new_leaf("sigma") if noisy else None   # ‖u‖² = σ²
        if noisy:
            self.stamps[len(pep.leaves) - 1] = (0, -1, None, "sigma")

    def new_node(self, parent: int) -> int:
        """A node whose history is ``parent``'s followed by one more stage."""
        node = len(self.parent)
        self.parent[node] = parent
        return node

    def mark(self, node: int, step: int = -1, client=None, kind: str = "grad"):
        """Stamp every leaf created since the last call with (node, step, client, kind)."""
        for a in range(len(self.pep.leaves)):
            if a not in self.stamps:
                self.stamps[a] = (node, step, client, kind)

    def sample(self, f, y: Vec, node: int, step: int, client: int, name: str) -> Vec:
        """The oracle's answer at y for function f: ∇f(y) (+ a new noise leaf ξ when noisy)."""
        g = f.gradient(y, name)
        self.mark(node, step, client)
        if not self.noisy:
            return g
        xi = self.pep.new_leaf(f"xi{client}({name})")
        self.stamps[len(self.pep.leaves) - 1] = (node, step, client, "noise")
        self.noises.append(len(self.pep.leaves) - 1)
        return g + xi

    def _ancestors(self, node: int) -> set:
        out = set()
        while node is not None:
            out.add(node)
            node = self.parent[node]
        return out

    def _future(self, xi: int, a: int) -> bool:
        """Whether leaf a may depend on the noise leaf xi (so E⟨ξ, a⟩ is unconstrained)."""
        p, k, i, _ = self.stamps[xi]
        q, s, j, kind = self.stamps[a]
        if q != p:
            return p in self._ancestors(q)            # a descendant node: the future
        if kind == "noise":
            return s > k or (s == k and j == i)
        if kind == "grad":                             # ∇f_j at y_{j,s}: fixed by noises of steps < s
            return s > k + 1 or (s == k + 1 and j == i)
        return False

    def constraints(self) -> list:
        """(name, form ≤ 0) pairs: E⟨ξ, v⟩ ≤ 0 and -E⟨ξ, v⟩ ≤ 0 for every leaf v orthogonal to ξ
        (module docstring), and ‖ξ‖² - ‖u‖² ≤ 0, for every noise leaf ξ."""
        out = []
        leaves = self.pep.leaves
        for xi in self.noises:
            e = Vec({xi: Fraction(1)})
            for a in range(len(leaves)):
                if a == xi or self.stamps[a][3] == "sigma" or self._future(xi, a):
                    continue
                form = inner(e, Vec({a: Fraction(1)}))
                out.append((f"E<{leaves[xi]}, {leaves[a]}> = 0 (<=)", form))
                out.append((f"E<{leaves[xi]}, {leaves[a]}> = 0 (>=)", (-1) * form))
            out.append((f"E|{leaves[xi]}|^2 <= sigma^2", sq(e) - sq(self.u)))
        return out

    def attach(self):
        """Append :meth:`constraints` to the PEP's extra constraints (call once, after building)."""
        if self.noisy:
            self.pep.extra.extend(self.constraints())
            self.pep._constraints = None

    def variance_form(self) -> Form:
        """‖u‖² = σ² as a form (zero form when σ = 0)."""
        return sq(self.u) if self.noisy else Form()
