"""A statement about a SCAFFOLD run in the proof engine's terms (:func:`proof_form`) and the
published SCAFFOLD statements with accepted proofs (:data:`PUBLISHED`).

The statement's terms are evaluated by :func:`pyfed.statements.evaluate.evaluate` in its symbolic
arithmetic (the model's definitions through :mod:`pyfed.theory`, one place per formula): the
run's parameters are symbols named by their role (``S K T eta_l eta_g``, the problem's ``N``,
``mu`` of ``Convexity P μ``, ``f_low`` …), ``P.β`` and ``P.σ`` the symbols ``β`` and ``σ``, and the
model's quantities that are not scalar arithmetic are atoms: ``‖x0 − x⋆‖²``, ``C₀``,
``F(x0)``, the run's statistics ``weightedGap`` and ``averageGradientSq``. What the model
guarantees becomes facts: the ``Run`` structure's ``0 < S ≤ N``, ``0 < K``, ``0 < T``; the
``Problem``'s ``0 < β``, ``0 ≤ σ``, ``0 < N``; norms and ``C₀`` are ≥ 0; ``Convexity P μ`` gives
``0 ≤ μ``; ``∀ x, fLower ≤ F x`` gives ``fLower ≤ F(x0)``; ``averageGradientSq ≥ 0``.
"""

from __future__ import annotations

import sympy

from ...engines.proof.proof import Published
from ...engines.proof.scalar import AtomFact, NotReadable, Relation, ScalarForm, Structural, divisors_of, role_keys
from ...statements.evaluate import MINIMIZER_KEY, X0_KEY, RunRef, Valuation, VecRef, evaluate

__all__ = ["proof_form", "PUBLISHED", "NotReadable"]

_SOURCE = "Karimireddy et al., SCAFFOLD, ICML 2020, arXiv:1910.06378v4"
_PROOFS = "prove2me/formalpedia, envs/c5ea003/Solutions/Sol_SCAFFOLD_{}.lean (status: ACCEPTED)"

#: The published SCAFFOLD statements about a run (``lean/PyfedPublished/Scaffold.lean``) whose
#: proofs the published formalization accepted (checked there, at Mathlib c5ea003).
PUBLISHED = {
    name: Published(f"SCAFFOLD.{name}", "lean/PyfedPublished/Scaffold.lean", _PROOFS.format(name), where)
    for name, where in (
        ("ConvexFiniteRoundConvergence", f"{_SOURCE}, Appendix E.1, Lemma 15 and PDF p. 31"),
        ("NonconvexFiniteRoundConvergence", f"{_SOURCE}, Appendix E.2, Lemma 19"),
        ("FiniteRoundConvergence", f"{_SOURCE}, Section 5, Theorem III"))}


class _Access:
    """The model's quantities as symbols and atoms (module docstring)."""

    arithmetic = "symbolic"

    def __init__(self, N):
        self.N, self.d = N, sympy.Symbol("d")
        self.beta, self.sigma = sympy.Symbol("β"), sympy.Symbol("σ")
        self.x0 = VecRef(X0_KEY, None)
        self.minimizer = VecRef(MINIMIZER_KEY, None)
        self.atoms: dict = {}           # symbol -> (what, facts)

    def atom(self, name: str, what: str, nonneg: bool = False):
        s = sympy.Symbol(name)
        if s not in self.atoms:
            self.atoms[s] = (what, nonneg)
        return s

    @staticmethod
    def _key(v) -> str:
        if isinstance(v, VecRef):
            return {X0_KEY: "x0", MINIMIZER_KEY: "xmin"}.get(v.key, v.key)
        raise NotReadable("a point that is not a bound name of the statement")

    def dist_sq(self, u, v):
        a, b = sorted((self._key(u), self._key(v)))
        return self.atom(f"‖{a}-{b}‖²", f"‖{a} − {b}‖²", nonneg=True)

    def norm_sq(self, u):
        return self.atom(f"‖{self._key(u)}‖²", f"‖{self._key(u)}‖²", nonneg=True)

    def control_error(self, c0, xs):
        if not isinstance(c0, str):
            raise NotReadable("controls that are not the statement's bound controls")
        return self.atom(f"C0[{c0},{self._key(xs)}]", f"initialControlError P {c0} {self._key(xs)}", nonneg=True)

    def objective(self, x):
        return self.atom(f"F[{self._key(x)}]", f"objective P.f {self._key(x)}")

    def gap(self, r, xs):
        return self.atom(f"expectedGap[{sympy.sstr(r)},{self._key(xs)}]", f"expectedGap A {self._key(xs)} {r}")

    def grad_sq(self, r):
        raise NotReadable("a per-round gradient statistic")

    def weighted_gap(self, run, xs, mu):
        return self.atom(f"weightedGap[{self._key(xs)},{sympy.sstr(mu)}]", f"weightedGap A {self._key(xs)} {mu}")

    def average_grad_sq(self, run):
        return self.atom("averageGradientSq", "averageGradientSq A", nonneg=True)


def _symbol(p) -> sympy.Symbol:
    role = p.role
    if role in ("S", "K", "T", "N", "d", "eta_l", "eta_g", "mu", "f_low"):
        return sympy.Symbol(role)
    return sympy.Symbol(f"{p.name}")


def proof_form(st) -> ScalarForm:
    """The :class:`~pyfed.engines.proof.scalar.ScalarForm` of a SCAFFOLD run statement (module
    docstring). Raises :class:`NotReadable` when a term has no symbolic reading."""
    env, integers = {}, set()
    N = None
    for p in st.parameters:
        if p.kind in ("nat", "real"):
            s = _symbol(p)
            env[p.name] = s
            if p.kind == "nat":
                integers.add(s)
            if p.role == "N":
                N = s
    if N is None:       # the problem's N is a numeral or not a binder: read it from the problem's type
        N = sympy.Symbol("N")
        integers.add(N)
    acc = _Access(N)
    for p in st.parameters:
        if p.role == "P":
            env[p.name] = "P"
        elif p.kind in ("instance", "space", "measure") or p.role in ("nu", "Omega"):
            env[p.name] = None
        elif p.role == "xstar" or p.kind == "vector":
            env[p.name] = VecRef("xstar" if p.role == "xstar" else p.name, None)
        elif p.kind == "controls":
            env[p.name] = "c0" if p.role == "c0" else p.name
    val = Valuation("symbolic", env, acc)
    val.definitions = st.definitions
    val.divisors = []

    def ev(node):
        try:
            return sympy.sympify(evaluate(node, val))
        except NotReadable:
            raise
        except Exception as exc:      # an integer-only operation on a symbol, an unsupported term
            raise NotReadable(f"`{node.text[:60]}` has no symbolic reading ({type(exc).__name__}: {exc})") from None

    run = {r: ev(st.run[r]) for r in ("S", "K", "T", "eta_l", "eta_g")}
    val.env[st.role_of("A")] = RunRef(run["S"], run["K"], run["T"], run["eta_l"], run["eta_g"])
    lhs, rhs = ev(st.lhs), ev(st.rhs)
    hyps, structural = [], []
    facts = [AtomFact(Relation(run["S"], "≥", 1), None, "the Run's 0 < S"),
             AtomFact(Relation(run["S"], "≤", N), None, "the Run's S ≤ N"),
             AtomFact(Relation(run["K"], "≥", 1), None, "the Run's 0 < K"),
             AtomFact(Relation(run["T"], "≥", 1), None, "the Run's 0 < T"),
             AtomFact(Relation(N, "≥", 1), None, "the Problem's 0 < N"),
             AtomFact(Relation(acc.beta, ">", 0), None, "the Problem's 0 < β"),
             AtomFact(Relation(acc.sigma, "≥", 0), None, "the Problem's 0 ≤ σ")]
    order = []
    for h in st.hypotheses:
        order.append(("H", len(hyps)) if h.kind == "compare" else ("S", len(structural)))
        if h.kind == "compare":
            a, b = (ev(x) for x in h.node.args)
            op = h.op
            hyps.append(Relation(a, op, b, h.text, h.name, h.key))
        elif h.kind == "convexity":
            mu = ev(h.args[1])
            structural.append(Structural(f"Convexity(P, {sympy.sstr(mu)})", h.text, h.name))
            facts.append(AtomFact(Relation(mu, "≥", 0), None, f"`{h.text}` gives 0 ≤ {sympy.sstr(mu)}"))
        elif h.kind == "minimizer":
            xs = acc._key(env[h.args[1].value]) if h.args[1].kind == "ident" and h.args[1].value in env else "?"
            structural.append(Structural(f"IsMinimizer(P, {xs})", h.text, h.name))
        elif h.kind == "lower_bound":
            lo = ev(h.args[0])
            structural.append(Structural(f"LowerBound(F, {sympy.sstr(lo)})", h.text, h.name))
            facts.append(AtomFact(Relation(lo, "≤", acc.objective(acc.x0)), None,
                                  f"`{h.text}` at x = P.x0"))
        else:
            raise NotReadable(f"hypothesis `{h.text}` of kind {h.kind}")
    for s, (what, nonneg) in acc.atoms.items():
        if nonneg:
            facts.append(AtomFact(Relation(s, "≥", 0), None, f"{what} ≥ 0"))
    stats = {s for s in acc.atoms if str(s).startswith(("weightedGap", "averageGradientSq", "expectedGap"))}
    binders = [(p.name, p.role or p.kind) for p in st.parameters]
    prob = st.problem or "P"
    display = {env[p.name]: p.name for p in st.parameters if p.kind in ("nat", "real")}
    display.update({acc.beta: f"{prob}.β", acc.sigma: f"{prob}.σ"})
    display.setdefault(N, "N")
    display.update({s: w for s, (w, _n) in acc.atoms.items()})
    return ScalarForm(model=st.model.tag, name=st.qualified_name, shape=f"SCAFFOLD Run (init {st.init})", lhs=lhs,
                      rhs=rhs, relation=st.relation, hypotheses=hyps, structural=structural, facts=facts,
                      integers=integers | {run["S"], run["K"], run["T"]} - {x for x in run.values() if x.is_number},
                      denominators=divisors_of(val.divisors),
                      atoms={s: w for s, (w, _n) in acc.atoms.items()}, binders=binders,
                      lhs_atoms=stats & lhs.free_symbols, lhs_text=st.lhs.text,
                      rhs_text=st.rhs.text, display=display, order=order,
                      keys=role_keys(st.parameters))

