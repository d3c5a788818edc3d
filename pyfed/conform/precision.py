"""How far a correct implementation's floats may lie from the exact law: a stated bound from the
number of roundings, in the precision the implementation computes in.

The model of floating-point arithmetic (Higham, Accuracy and Stability of Numerical Algorithms,
2nd ed., §2.2 and Lemma 3.1): every operation and every conversion to the working precision
returns the exact result times (1 + delta) with |delta| <= u, the unit roundoff of the precision
(:data:`UNIT_ROUNDOFF`: 2^-53 float64, 2^-24 float32, 2^-11 float16, 2^-8 bfloat16). Every
quantity a round computes (a local iterate, a client control, the model, the server control, the
adaptive moments) is, given the round's start state, the draws and the sampled set, a sum of
products of the inputs and the constants; each product passes through at most n roundings,
whatever the order in which the implementation evaluates the sum. So (Higham, Lemma 3.1 and
§3.1)

    |computed - exact| <= gamma_n * |Q|,    gamma_n = n u / (1 - n u),

where |Q| is the same computation with every input, constant and noise value replaced by its
absolute value and every subtraction by an addition (:func:`magnitudes`, exact rationals). n is
counted per quantity (:func:`rounding_counts`): :data:`OPS_START` casts of the inputs and step
sizes, :data:`OPS_PER_STEP` roundings per local step (the oracle's own float64 rounding, the cast
of the gradient to the working precision, at most four operations forming the step direction,
the product with eta_l and the subtraction), then the aggregation's S + :data:`OPS_AGGREGATE`
(differences, weights, the sum of S terms, the division by S, eta_g, the addition to x, the cast
back), option II's :data:`OPS_CONTROL` and the server control's S + :data:`OPS_SERVER_CONTROL`.
The oracle's gradient is exact at the point the implementation passed, so errors of earlier
steps enter through A_i and are covered by the same products. No tuned tolerance: a correct
implementation in the stated precision is inside the bound; the ladder's mistakes are of the
order of the quantities themselves, far outside it (float64: about 1e-14 relative).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import InputError

__all__ = ["UNIT_ROUNDOFF", "PRECISIONS", "Tolerance", "magnitudes", "rounding_counts", "detect_precision",
           "OPS_START", "OPS_PER_STEP", "OPS_AGGREGATE", "OPS_CONTROL", "OPS_SERVER_CONTROL", "local_sgd_rounding_count"]

#: Unit roundoff u of each working precision (round to nearest).
UNIT_ROUNDOFF = {"float64": Fraction(1, 2 ** 53), "float32": Fraction(1, 2 ** 24), "float16": Fraction(1, 2 ** 11),
                 "bfloat16": Fraction(1, 2 ** 8)}
#: The precisions ``--precision`` accepts.
PRECISIONS = tuple(UNIT_ROUNDOFF)

#: Casts of the start state and the step sizes to the working precision.
OPS_START = 3
#: Roundings of one local step (module docstring).
OPS_PER_STEP = 8
#: Roundings of the aggregation beyond the S - 1 additions of its sum.
OPS_AGGREGATE = 8
#: Option II's control: x - y, K eta_l, the division, - c, + c_i, the cast back.
OPS_CONTROL = 6
#: The server control beyond its sum of S terms: Delta c_i, the division by S, S/N, the addition.
OPS_SERVER_CONTROL = 6


def detect_precision(values) -> str | None:
    """The working precision of arrays an adapter returned: "float32", "float16", "bfloat16" when
    any returned array has that dtype (numpy, ml_dtypes or torch tensors by dtype name), else
    None (float64 or plain Python floats say nothing)."""
    found = None
    for v in values:
        name = str(getattr(v, "dtype", "")).replace("torch.", "")
        if name in ("float32", "float16", "bfloat16"):
            if found is None or UNIT_ROUNDOFF[name] > UNIT_ROUNDOFF[found]:
                found = name
    return found


@dataclass(frozen=True)
class Tolerance:
    """The comparison of floats with exact values in one working precision.

    Attributes
    ----------
    precision : str
        A key of :data:`UNIT_ROUNDOFF`.
    """

    precision: str = "float64"

    def __post_init__(self):
        if self.precision not in UNIT_ROUNDOFF:
            raise InputError("--precision", f"must be one of {', '.join(PRECISIONS)}, got {self.precision!r}")

    @property
    def u(self) -> Fraction:
        """The unit roundoff."""
        return UNIT_ROUNDOFF[self.precision]

    def gamma(self, n: int) -> Fraction:
        """gamma_n = n u / (1 - n u) (Higham, Lemma 3.1); InputError when n u >= 1 (the precision is
        too coarse for a bound after n roundings)."""
        nu = n * self.u
        if nu >= 1:
            raise InputError("--precision", f"{self.precision} cannot bound {n} roundings (n u = {float(nu):.3g} >= 1)")
        return nu / (1 - nu)

    def bound(self, absval, n: int) -> np.ndarray:
        """gamma_n |Q| elementwise (object array of Fractions, the shape of ``absval``)."""
        g = self.gamma(n)
        a = np.asarray(absval, dtype=object)
        out = np.empty(a.shape, dtype=object)
        for idx, v in np.ndenumerate(a):
            out[idx] = g * v
        return out

    def compare(self, observed, expected, absval, n: int, *, slack: int = 1) -> tuple[bool, float, float, float]:
        """(every coordinate within slack * gamma_n |Q|, largest error / bound, largest error, largest bound).

        ``observed`` floats, ``expected`` and ``absval`` exact (same shape). A zero bound demands
        equality; the ratio is then 0 or inf."""
        g = self.gamma(n) * slack
        ok, ratio, err_max, bound_max = True, 0.0, 0.0, 0.0
        for o, e, a in zip(np.ravel(np.asarray(observed, dtype=np.float64)), np.ravel(np.asarray(expected, dtype=object)),
                           np.ravel(np.asarray(absval, dtype=object))):
            err = abs(Fraction(float(o)) - e)
            bnd = g * a
            bound_max = max(bound_max, float(bnd))
            if err:
                err_max = max(err_max, float(err))
                if err > bnd:
                    ok = False
                    ratio = float("inf") if bnd == 0 else max(ratio, float(err / bnd))
                else:
                    ratio = max(ratio, float(err / bnd))
        return ok, ratio, err_max, bound_max

    def describe(self) -> str:
        return f"{self.precision} (u = 2^{-(self.u.denominator.bit_length() - 1)})"


def rounding_counts(spec) -> dict:
    """n of every checked quantity of a federated round (module docstring): keys "point k"
    (k = 0..K), "end", "model", "control", "server control", "delta", "m", "v"."""
    K, S = spec.K, spec.S
    out = {f"point {k}": OPS_START + OPS_PER_STEP * k for k in range(K + 1)}
    end = OPS_START + OPS_PER_STEP * K
    out["end"] = end
    out["model"] = end + S + OPS_AGGREGATE
    out["control"] = (end + OPS_CONTROL) if spec.option != "I" else OPS_START + 2
    out["server control"] = out["control"] + S + OPS_SERVER_CONTROL
    out["delta"] = end + S + 3
    out["m"] = out["delta"] + 4
    out["v"] = 2 * out["delta"] + 5
    return out


def local_sgd_rounding_count(b: int, workers: int) -> int:
    """n of a Local SGD step: start casts, b oracle roundings and casts, the minibatch sum and
    division, eta_t, the subtraction, the workers' sum and division."""
    return OPS_START + 2 * b + b + 3 + workers + 1


def magnitudes(A, b, spec, x, c, C, sampled) -> dict:
    """|Q| of every quantity of a federated round (module docstring), exact.

    Returns ``{"points": {i: [(d,) ...]}, "end": {i: (d,)}, "model": (d,), "c_plus": {i: (d,)},
    "server control": (d,), "delta": (d,)}`` (object arrays of Fractions; the SCAFFOLD and
    adaptive entries only for those algorithms). The noise enters as its magnitude s."""
    X = np.array([abs(v) for v in x], dtype=object)
    s = spec.scale
    scaf = spec.algorithm == "scaffold"
    absA = {i: np.vectorize(abs, otypes=[object])(A[i]) for i in sampled}
    out = {"points": {}, "end": {}, "c_plus": {}}
    cabs = np.array([abs(v) for v in c], dtype=object) if scaf else None
    for i in sampled:
        bi = np.array([abs(v) for v in b[i]], dtype=object)
        Ci = np.array([abs(v) for v in C[i]], dtype=object) if scaf else None
        Y = X
        pts = []
        for _ in range(spec.K):
            pts.append(Y)
            step = absA[i].dot(Y) + bi + s
            if scaf:
                step = step + cabs + Ci
            elif spec.algorithm == "fedprox":
                step = step + spec.mu * (Y + X)
            Y = Y + spec.eta_l * step
        out["points"][i] = pts
        out["end"][i] = Y
        if scaf:
            if spec.option == "I":
                out["c_plus"][i] = absA[i].dot(X) + bi + s
            else:
                out["c_plus"][i] = Ci + cabs + (X + Y) / (spec.K * spec.eta_l)
    S = len(sampled)
    total = sum((out["end"][i] + X for i in sampled), X * 0)
    if spec.adaptive:
        out["delta"] = total / S
        return out
    if scaf or spec.mode == "uniform":
        out["model"] = X + abs(spec.eta_g) * total / S
    else:
        n = sum(spec.counts)
        out["model"] = X + abs(spec.eta_g) * sum((Fraction(spec.counts[i], n) * (out["end"][i] + X) for i in sampled),
                                                 X * 0)
    if scaf:
        Cabs = {i: np.array([abs(v) for v in C[i]], dtype=object) for i in sampled}
        out["server control"] = cabs + Fraction(S, spec.N) * sum((out["c_plus"][i] + Cabs[i] for i in sampled),
                                                                 X * 0) / S
    return out
