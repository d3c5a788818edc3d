"""The likely cause of a deviation: known mistakes, each evaluated exactly and compared with what
the implementation returned.

Every hint is a candidate computation that reproduces the observed value within the precision's
bound (:mod:`pyfed.conform.precision`; a small slack, as the candidate's own roundings differ),
said in words. The candidates cover the mistakes public bug reports show in federated code:

* local steps (:func:`step_hint`): a dropped update, a different step size (a schedule, a
  decay), the control correction with the wrong sign, missing, or with the client's control
  reset to zero, the server control missing, the proximal term missing (or its anchor aliased to
  the local model), with the wrong sign, halved, or not squared, gradients accumulated across
  steps (the buffer zeroed once per round), heavy-ball momentum, and state carried into a
  client's first step (a momentum or gradient buffer shared between clients or rounds);
* the start of a local path (:func:`start_hint`): a model buffer shared between clients;
* the number of calls (:func:`count_hint`): K - 1 or K + 1 steps, a client that did not train,
  clients drawn with replacement;
* controls (:func:`control_hint`, :func:`server_control_hint`): another divisor than K eta_l,
  the sign of option II's correction, the other option, a control not updated, the full controls
  added instead of their changes, S/N missing, eta_g applied to the control;
* aggregation (:func:`weight_candidates`): 1/S, n_i/n, weights normalised within the sampled
  set, 1/N, count weights indexed by the position in S_r instead of the client.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..exact import rational_str
from .law import exact_vector

__all__ = ["close", "step_candidates", "step_hint", "start_hint", "count_hint", "control_hint",
           "server_control_hint", "weight_candidates", "implied_weights", "WEIGHT_TEXT", "HINT_SLACK"]

#: Candidates are accepted within this multiple of the expected quantity's bound.
HINT_SLACK = 4


def close(ctx, observed, candidate, absval, n, slack=HINT_SLACK) -> bool:
    """Whether ``observed`` (floats) equals the exact ``candidate`` within slack x the bound of a
    quantity of magnitude ``absval`` after n roundings; a float candidate (an irrational mistake,
    e.g. an unsquared norm) within 1e-9 of the magnitude."""
    cand = np.asarray(candidate)
    if cand.dtype != object:
        scale = 1.0 + max(float(np.max(np.abs(np.asarray(absval, dtype=float)))), 0.0)
        return bool(np.all(np.abs(np.asarray(observed, dtype=float) - cand) <= 1e-9 * scale))
    return ctx.tol.compare(observed, candidate, absval, n, slack=slack)[0]


def _norm(v) -> float:
    return float(np.sqrt(sum(float(a) ** 2 for a in v)))


def step_candidates(ctx, k, p, g, hist, x, corr, C_i=None, c=None) -> list:
    """Wrong versions of local step k + 1 from y_{i,k} = p with stochastic gradient g (both exact):
    [(key, text, next point)]; ``hist`` the earlier (point, gradient) pairs of the path."""
    spec = ctx.spec
    eta = spec.eta_l
    out = [("dropped", f"the update of local step {k + 1} is computed but not applied (the model after step {k + 1} is "
                       f"y_{{i,{k}}}; a dropped or misplaced optimizer step)", p)]
    if spec.algorithm == "scaffold":
        out += [("sign", "the control correction has the wrong sign (c_i - c instead of c - c_i)", p - eta * (g - corr)),
                ("nocorr", "the local step has no control correction (FedAvg's step)", p - eta * g),
                ("reset", "the client's control c_i is 0 in the local step (controls reset or lost between rounds, "
                          "or never stored)", p - eta * (g + c)),
                ("noserver", "the local step omits the server control c (uses g - c_i)", p - eta * (g - C_i))]
    elif spec.algorithm == "fedprox":
        mu = spec.mu
        diff = p - x
        out += [("noprox", "the local step has no proximal term mu (y - x_{r-1}): the anchor x_{r-1} is missing or "
                           "aliased to the local model (an in-place update moves it along)", p - eta * g),
                ("proxsign", "the proximal term has the wrong sign (mu (x_{r-1} - y) instead of mu (y - x_{r-1}))",
                 p - eta * (g - mu * diff)),
                ("proxhalf", "the proximal gradient is (mu/2)(y - x_{r-1}); the derivative of (mu/2)||y - x_{r-1}||^2 is "
                             "mu (y - x_{r-1})", p - eta * (g + mu / 2 * diff))]
        nrm = _norm(diff)
        if nrm > 0:
            pf = np.array([float(v) for v in p])
            gf = np.array([float(v) for v in g])
            df = np.array([float(v) for v in diff])
            for factor, name in ((1.0, "mu"), (0.5, "mu/2")):
                out.append(("unsquared", f"the proximal term is {name} ||y - x_{{r-1}}|| (not squared): its gradient "
                                         f"{name} (y - x_{{r-1}})/||y - x_{{r-1}}|| has the wrong length",
                            pf - float(eta) * (gf + factor * float(mu) * df / nrm)))
                out.append(("unsquared", f"the proximal term is {name} sum_k |y_k - x_k| (not squared): its gradient is "
                                         f"{name} sign(y - x_{{r-1}})",
                            pf - float(eta) * (gf + factor * float(mu) * np.sign(df))))
    if hist:
        gsum = sum((gg for _, gg in hist), g)
        extra = 0
        if spec.algorithm == "scaffold":
            extra = (len(hist) + 1) * corr
        elif spec.algorithm == "fedprox":
            extra = sum((spec.mu * (pp - x) for pp, _ in hist), spec.mu * (p - x))
        out.append(("accum", "gradients accumulate across local steps: step k uses the sum of the gradients of steps "
                             "1..k (the gradient buffer is zeroed once per round, not once per step)",
                    p - eta * (gsum + extra)))
    return out


def _solve_scalar(num, den):
    """s with num = s * den coordinatewise (exact Fractions; den's zero coordinates must have num 0),
    or None."""
    s = None
    for a, b in zip(num, den):
        if b == 0:
            if a != 0:
                return None
            continue
        q = a / b
        if s is None:
            s = q
    return s


def step_hint(ctx, r, k, p, g, hist, x, corr, observed, absval, n, *, C_i=None, c=None, extra=None) -> str | None:
    """The likely cause of y_{i,k+1} = ``observed`` where the algorithm has p - eta_l (step at p):
    a named wrong step (:func:`step_candidates`), a K + 1-th step (``extra``: the next point
    after an extra call), or a solved scalar (another step size, heavy-ball momentum), or state
    carried into the first step; None when nothing explains it."""
    spec = ctx.spec
    for key, text, cand in step_candidates(ctx, k, p, g, hist, x, corr, C_i, c):
        if close(ctx, observed, cand, absval, n):
            return text
    if extra is not None and close(ctx, observed, extra, absval, n):
        return (f"K + 1 = {spec.K + 1} local steps: the client took one more step than K (an off-by-one in the local "
                "loop, e.g. range(K + 1) or a final step after the loop)")
    obs = exact_vector(observed)
    d = g
    if spec.algorithm == "scaffold":
        d = g + corr
    elif spec.algorithm == "fedprox":
        d = g + spec.mu * (p - x)
    a = _solve_scalar(p - obs, d) if spec.d >= 2 else None   # in one dimension every step is a multiple
    if a is not None and a != 0:
        a_r = Fraction(a).limit_denominator(1 << 12)
        if close(ctx, observed, p - a_r * d, absval, n) and a_r != spec.eta_l:
            ratio = a_r / spec.eta_l
            text = (f"local step size {rational_str(a_r)} instead of eta_l = {rational_str(spec.eta_l)} "
                    f"({rational_str(ratio)} eta_l)")
            if r > 1:
                text += (f" in round {r}, after {r - 1} conforming round{'s' if r > 2 else ''}: a learning-rate schedule "
                         "or decay the algorithm does not have")
            return text
    residual = (p - spec.eta_l * d) - obs
    if hist and spec.d >= 2:
        prev_update = hist[-1][0] - p
        beta = _solve_scalar(residual * -1, prev_update)
        if beta is not None and beta != 0:
            b_r = Fraction(beta).limit_denominator(1 << 10)
            if close(ctx, observed, p - spec.eta_l * d + b_r * (p - hist[-1][0]), absval, n):
                return (f"heavy-ball momentum beta = {rational_str(b_r)} in the local optimizer: step {k + 1} adds beta "
                        f"times step {k}'s update (plain SGD steps expected)")
    if k == 0 and all(v == 0 for v in p - x):
        return ("the first local step of the client's path carries state from before the path started: an optimizer's "
                "momentum or a gradient buffer kept between clients or rounds (not reset per client)")
    return None


def start_hint(ctx, observed, x, ends: dict) -> str | None:
    """Why a client's first oracle call is not at x_{r-1}: it is another client's end point (a
    model buffer shared between clients) or zero."""
    n0 = ctx.counts["point 0"]
    absx = np.array([abs(v) for v in x], dtype=object)
    for j, y in ends.items():
        absy = np.array([abs(v) for v in y], dtype=object)
        if close(ctx, observed, y, absy + absx, ctx.counts["end"]):
            return (f"the client starts from client {j}'s local end point, not from x_{{r-1}}: one model buffer is shared "
                    "between clients and trained in place (copy the global model for every client)")
    if close(ctx, observed, np.array([Fraction(0)] * len(x), dtype=object), absx, n0):
        return "the client starts from zero, not from the server model x_{r-1}"
    return None


def count_hint(spec, i: int, counts: list, sampled) -> str | None:
    """Why selected client i made ``counts[i]`` oracle calls where the algorithm makes spec.calls."""
    got, want = counts[i], spec.calls
    if got == 0:
        twice = [j for j in sampled if counts[j] >= 2 * want]
        if twice:
            return (f"client {i} of S_r did not train while client {twice[0]} trained {counts[twice[0]] // want} times: "
                    "the clients were drawn with replacement (e.g. numpy.random.choice without replace=False) instead "
                    "of taking the sampled set S_r")
        outside = [j for j in range(spec.N) if j not in sampled and counts[j] >= want]
        if outside:
            return (f"client {i} of S_r did not train while client {outside[0]}, not sampled, did: the clients trained "
                    "are not S_r (inp.sampled ignored or indexed wrongly)")
    if got == want - 1 and not (spec.algorithm == "scaffold" and spec.option == "I"):
        return f"K - 1 = {want - 1} local steps: an off-by-one in the local loop (e.g. range(1, K))"
    if got == 0:
        return f"client {i} of S_r did not train (no oracle call)"
    if spec.algorithm == "scaffold" and spec.option == "I" and got == spec.K:
        return "option I's control reuses a local step's sample instead of a fresh call g_i(x)"
    return f"{got} oracle calls where the algorithm makes {want} (K is the number of local steps)"


def control_hint(ctx, i, x, c, C, yK, observed, absval, n) -> str | None:
    """Known wrong control updates: another divisor than K eta_l (the number of epochs, samples x
    epochs), the correction's sign, the other option's value, the control not updated."""
    spec = ctx.spec
    base = C[i] - c
    diff = x - yK
    obs = exact_vector(observed)
    if spec.option == "II" and any(v != 0 for v in diff):
        if close(ctx, observed, c - C[i] + diff / (spec.K * spec.eta_l), absval, n):
            return "option II's correction has the wrong sign: c - c_i + (x - y_{i,K})/(K eta_l) instead of c_i - c + ..."
        if close(ctx, observed, base - diff / (spec.K * spec.eta_l), absval, n):
            return "option II's model change has the wrong sign: (y_{i,K} - x)/(K eta_l) instead of (x - y_{i,K})/(K eta_l)"
        k = max(range(spec.d), key=lambda q: abs(diff[q]))
        alpha = (obs[k] - base[k]) / diff[k]
        if alpha != 0:
            D_r = Fraction(1 / alpha).limit_denominator(1 << 20)
            if D_r > 0 and close(ctx, observed, base + diff / D_r, absval, n):
                Keta = spec.K * spec.eta_l
                steps = D_r / spec.eta_l
                text = f"the update divides (x - y_{{i,K}}) by {rational_str(D_r)} instead of K eta_l = {rational_str(Keta)}"
                if D_r == 1:
                    text += " (e.g. by the number of local epochs, 1, without K eta_l)"
                elif steps.denominator == 1 and steps != spec.K:
                    n_i = spec.counts[i]
                    text += f": K' = {steps} local steps assumed where the client took K = {spec.K}"
                    if steps % n_i == 0:
                        text += (f" (K' = n_i x epochs = {n_i} samples x {steps // n_i} epoch"
                                 f"{'s' if steps // n_i != 1 else ''}: K must count local steps)")
                elif D_r == spec.eta_l:
                    text += " (eta_l without K)"
                return text
    g = ctx.grad(i, x)
    if spec.option == "I" and close(ctx, observed, -g, absval, n):
        return ("option I's control has the wrong sign: -g_i(x) (the model change y - x after one step of size 1 "
                "from x) instead of g_i(x)")
    if spec.option == "II":
        if close(ctx, observed, g, absval, n):
            return "the control is option I's g_i(x), not option II's"
    else:
        alt = C[i] - c + (x - yK) / (spec.K * spec.eta_l)
        if close(ctx, observed, alt, absval, n):
            return "the control is option II's c_i - c + (x - y_{i,K})/(K eta_l), not option I's g_i(x)"
    if close(ctx, observed, C[i], absval, n):
        return "the selected client's control was not updated"
    return None


def server_control_hint(ctx, c, C, B, c_plus, out, absval, n) -> str | None:
    """Known wrong server control updates."""
    spec = ctx.spec
    S, N = spec.S, spec.N
    zero = c * 0
    dc = sum((c_plus[i] - C[i] for i in B), zero) / S
    full = sum((c_plus[i] for i in B), zero) / S
    cands = [
        ("the server added the clients' full controls c_i+ instead of their changes Delta c_i = c_i+ - c_i",
         c + Fraction(S, N) * full),
        ("the server added the full controls c_i+ (without S/N) instead of their changes Delta c_i", c + full),
        ("the server control update lacks the factor S/N: c + Delta c (the mean change of the sampled clients, as if "
         "every client had been sampled)", c + dc),
        ("the server control update subtracts the clients' changes: c - (S/N) Delta c (a sign slip)",
         c - Fraction(S, N) * dc),
        ("the server control update is c + (1/N) Delta c: divided by N where S/N is meant", c + dc / N),
    ]
    if spec.eta_g != 1:
        cands.append(("the global step eta_g is applied to the server control too: c + eta_g (S/N) Delta c (Algorithm "
                      "1 applies eta_g to the model only)", c + spec.eta_g * Fraction(S, N) * dc))
    cands.append(("the server control is recomputed as the mean of the client controls, which equals the seed's update "
                  "only while c^{r-1} = N^-1 sum_i c_i^{r-1} (check the initialisation)",
                  exact_vector(out["c_clients"]).sum(axis=0) / N))
    for text, val in cands:
        if close(ctx, out["c"], val, absval, n):
            return text
    return None


#: Aggregation weightings in words (:func:`weight_candidates`).
WEIGHT_TEXT = {
    "uniform": "weights 1/S: the uniform-client mode's unweighted average",
    "weighted": "weights n_i/n: the count-weighted mode",
    "ratio": ("client weights normalised within the sampled set, n_i / sum_{j in S_r} n_j: a ratio estimator, biased "
              "under partial participation"),
    "1/N": ("weights 1/N: the sampled clients' changes divided by N, as if every client were averaged with the "
            "unselected ones contributing x_{r-1}"),
    "position": ("count weights n_k/n with k the position in S_r instead of the client index (counts[k] where "
                 "counts[sampled[k]] is meant)"),
}


def weight_candidates(spec, B) -> dict:
    """{kind: weights of the sampled clients in the order of S_r} of :data:`WEIGHT_TEXT`'s kinds."""
    S, N = len(B), spec.N
    n = sum(spec.counts)
    nS = sum(spec.counts[i] for i in B)
    out = {"uniform": [Fraction(1, S)] * S, "weighted": [Fraction(spec.counts[i], n) for i in B],
           "ratio": [Fraction(spec.counts[i], nS) for i in B], "1/N": [Fraction(1, N)] * S}
    pos = [Fraction(spec.counts[k], n) for k in range(S)]
    if pos != out["weighted"]:
        out["position"] = pos
    return out


def implied_weights(deltas, target):
    """w with sum_i w_i delta_i = target when the deltas are linearly independent (exact normal
    equations); None otherwise."""
    S = len(deltas)
    if S == 0 or S > len(target):
        return None
    M = [[sum(a * b for a, b in zip(deltas[p], deltas[q])) for q in range(S)] for p in range(S)]
    v = [sum(a * b for a, b in zip(deltas[p], target)) for p in range(S)]
    for col in range(S):
        piv = next((row for row in range(col, S) if M[row][col] != 0), None)
        if piv is None:
            return None
        M[col], M[piv] = M[piv], M[col]
        v[col], v[piv] = v[piv], v[col]
        for row in range(S):
            if row != col and M[row][col] != 0:
                f = M[row][col] / M[col][col]
                M[row] = [a - f * b for a, b in zip(M[row], M[col])]
                v[row] -= f * v[col]
    return [v[k] / M[k][k] for k in range(S)]
