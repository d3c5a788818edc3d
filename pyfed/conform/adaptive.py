"""The adaptive server optimisers FedAdagrad, FedYogi and FedAdam: their exact server step.

Reddi, Charles, Zaheer, Garrett, Rush, Konecny, Kumar, McMahan, *Adaptive Federated
Optimization*, ICLR 2021, Algorithm 2. Each round t the sampled clients run K local SGD steps from
x_t (FedAvg's client update) and the server forms Delta_t = |S|^-1 sum_{i in S} (y_{i,K} - x_t),
then, coordinatewise,

    m_t = beta_1 m_{t-1} + (1 - beta_1) Delta_t,
    v_t = v_{t-1} + Delta_t^2                                      (FedAdagrad)
    v_t = v_{t-1} - (1 - beta_2) Delta_t^2 sign(v_{t-1} - Delta_t^2)   (FedYogi)
    v_t = beta_2 v_{t-1} + (1 - beta_2) Delta_t^2                      (FedAdam)
    x_{t+1} = x_t + eta m_t / (sqrt(v_t) + tau),

from m_{-1} = 0 and v_{-1} >= tau^2. No bias correction (Algorithm 2 has none).

m_t and v_t are rational when Delta_t is: :func:`server_step` computes them in exact Fractions;
x_{t+1} involves square roots, so it is a certified ball (python-flint ``arb`` at
:data:`PRECISION_BITS` bits), and :func:`x_error_bound` bounds how far a correct floating-point
implementation may be from it (the precision's rounding bound of m and v propagated through the
square root and the division, :mod:`pyfed.conform.precision`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..exact import precision, to_arb

__all__ = ["ServerStep", "server_step", "x_error_bound", "arb_to_fraction", "bias_correction", "PRECISION_BITS",
           "OPS_X"]

#: Working precision of the certified balls of x_{t+1}.
PRECISION_BITS = 200
#: Roundings of the model step beyond m and v: the square root, + tau, the division, eta, + x, the cast.
OPS_X = 6


def _sign(q: Fraction) -> int:
    return (q > 0) - (q < 0)


@dataclass
class ServerStep:
    """One exact server step.

    Attributes
    ----------
    m, v : list of Fraction (d,)
        m_t and v_t, exact.
    x : list of flint.arb (d,)
        x_{t+1}, certified balls.
    """

    m: list
    v: list
    x: list

    def x_mid(self) -> list:
        """The balls' midpoints as exact Fractions (within their radius of x_{t+1})."""
        return [arb_to_fraction(b.mid()) for b in self.x]


def arb_to_fraction(a) -> Fraction:
    """The exact value of an exact (zero-radius) arb, e.g. a ball's midpoint."""
    man, exp = a.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man * 2 ** exp) if exp >= 0 else Fraction(man, 2 ** -exp)


def _with_precision(fn):
    with precision(PRECISION_BITS):
        return fn()


def server_step(algorithm: str, x, m, v, delta, *, eta, beta_1, beta_2, tau, eta_factor=Fraction(1)) -> ServerStep:
    """The server step of ``algorithm`` ("fedadam" | "fedyogi" | "fedadagrad") from the state
    x, m, v (each (d,) exact) and the pseudo-gradient Delta (d,) (module docstring).
    ``eta_factor`` multiplies eta (the diagnosis uses it for a bias correction)."""
    m_new, v_new = [], []
    for mk, vk, dk in zip(m, v, delta):
        m_new.append(beta_1 * mk + (1 - beta_1) * dk)
        sq = dk * dk
        if algorithm == "fedadagrad":
            v_new.append(vk + sq)
        elif algorithm == "fedyogi":
            v_new.append(vk - (1 - beta_2) * sq * _sign(vk - sq))
        elif algorithm == "fedadam":
            v_new.append(beta_2 * vk + (1 - beta_2) * sq)
        else:  # pragma: no cover - the callers pass one of the three
            raise ValueError(algorithm)

    def balls():
        return [to_arb(xk) + to_arb(eta) * to_arb(eta_factor) * to_arb(mk) / (to_arb(vk).sqrt() + to_arb(tau))
                for xk, mk, vk in zip(x, m_new, v_new)]

    return ServerStep(m_new, v_new, _with_precision(balls))


def x_error_bound(x, m, v, e_m, e_v, *, eta, tau, u) -> list:
    """How far a correct floating-point x_{t+1} may be from the exact one, per coordinate
    (Fractions, rounded up): m and v computed with errors at most e_m, e_v (d,), then
    t = eta m / (sqrt(v) + tau) and x + t with OPS_X more roundings of unit roundoff u.

    |sqrt(v') - sqrt(v)| <= |v' - v| / (sqrt(v) + sqrt(max(v - e_v, 0))); the quotient's error is
    eta e_m / den_lo + |eta m| e_den / (den den_lo) with den_lo = den - e_den (> 0 as tau > 0 is
    larger than the ladder's e_den); then the roundings of the step: gamma_OPS_X (|x| + |t|)."""
    g = OPS_X * u / (1 - OPS_X * u)

    def run():
        out = []
        for xk, mk, vk, em, ev in zip(x, m, v, e_m, e_v):
            sv = to_arb(vk).sqrt()
            lo = to_arb(max(vk - ev, Fraction(0))).sqrt()
            e_sq = to_arb(ev) / (sv + lo) if (vk > 0 or ev > 0) else to_arb(0)
            den = sv + to_arb(tau)
            e_den = e_sq + to_arb(u) * den
            den_lo = den - e_den
            t = to_arb(abs(eta * mk)) / den
            e_t = to_arb(abs(eta) * em) / den_lo + to_arb(abs(eta * mk)) * e_den / (den * den_lo)
            total = e_t + to_arb(g) * (to_arb(abs(xk)) + t + e_t)
            out.append(arb_to_fraction(total.upper()) if total.is_finite() else None)
        return out

    return _with_precision(run)


def bias_correction(beta_1, beta_2, t: int):
    """Adam's bias-correction factor of the step size at step t >= 1: sqrt(1 - beta_2^t) / (1 - beta_1^t)
    (a certified ball); Algorithm 2 has none (factor 1)."""
    return _with_precision(lambda: (1 - to_arb(beta_2) ** t).sqrt() / (1 - to_arb(beta_1) ** t))
