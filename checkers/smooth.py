"""Smooth convex client functions: inequality (9) of SCAFFOLD Appendix B (GradientGrowth),
nonexpansiveness of the gradient step (GradientStepNonexpansive) and Lemma 5 of Appendix C
(PerturbedStrongConvexity).

Client families (all with rational data):

* ``quadratic``: h(x) = x^T A x / 2 - b^T x, A symmetric. Exact. Convexity = A PSD and
  beta-smoothness = beta I - A PSD (and beta I + A PSD), both decided exactly.
* ``huber``: h(x) = (1/n) sum_r H_delta(<a_r, x> - b_r), H_delta(z) = z^2/2 (|z| <= delta),
  delta(|z| - delta/2) otherwise. Piecewise quadratic: exact. Certified
  beta >= (1/n) sum_r ||a_r||^2 (H'' <= 1).
* ``logistic``: h(x) = (1/n) sum_r log(1 + exp(<a_r, x>)); beta >= (1/(4n)) sum_r ||a_r||^2.
  Evaluated in mpmath at :data:`pyfed.checkers.base.DPS` digits.
* ``logsumexp``: h(x) = log sum_r exp(<a_r, x>); beta >= max_r ||a_r||^2
  (Hessian A^T(diag p - p p^T)A <= sum_r p_r a_r a_r^T). mpmath.

For GradientGrowth the minimiser is made exact by construction: client i's function is
h_i = phi_i - <gbar, x> with gbar = (1/N) sum_i grad phi_i(x_star), so grad f(x_star) = 0
for the chosen x_star (a linear tilt keeps convexity and smoothness and cancels in
grad h_i(x) - grad h_i(x_star)). For quadratics the instance's b_i are used as given and
grad f(x_star) = 0 is a checked hypothesis.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

from pyfed.errors import InputError
from pyfed.problems.quadratic import is_psd_exact

from .base import DPS, Checker, F, Mutation, fmat, fvec, hyp, norm2, q, qmat, qvec, rand_rat, rand_vec

FAMILIES = ("quadratic", "huber", "logistic", "logsumexp")


def _mp(x):
    return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mpmath.mpf(x)


def _dot(a, x):
    return sum((ai * xi for ai, xi in zip(a, x)), Fraction(0) if all(isinstance(v, Fraction) for v in x) else 0)


def _huber(z, delta):
    return z * z / 2 if abs(z) <= delta else delta * (abs(z) - delta / 2)


def _huber_d(z, delta):
    return max(-delta, min(delta, z))


def value(fam, cl, x):
    """phi(x) for one client (Fraction for quadratic/huber, mpf otherwise). x: list (d,)."""
    if fam == "quadratic":
        A, b = fmat(cl["A"]), fvec(cl["b"])
        return sum(x[i] * A[i][j] * x[j] for i in range(len(x)) for j in range(len(x))) / 2 - _dot(b, x)
    rows = [fvec(r) for r in cl["a"]]
    if fam == "huber":
        bs, delta = fvec(cl["b"]), F(cl["delta"])
        return sum(_huber(_dot(r, x) - br, delta) for r, br in zip(rows, bs)) / len(rows)
    with mpmath.workdps(DPS):
        xm = [_mp(v) for v in x]
        zs = [sum(_mp(ai) * xi for ai, xi in zip(r, xm)) for r in rows]
        if fam == "logistic":
            return sum(mpmath.log1p(mpmath.exp(z)) for z in zs) / len(rows)
        if fam == "logsumexp":
            return mpmath.log(sum(mpmath.exp(z) for z in zs))
    raise ValueError(fam)


def grad(fam, cl, x):
    """grad phi(x) for one client (list of Fraction or mpf, length d)."""
    d = len(x)
    if fam == "quadratic":
        A, b = fmat(cl["A"]), fvec(cl["b"])
        return [sum(A[i][j] * x[j] for j in range(d)) - b[i] for i in range(d)]
    rows = [fvec(r) for r in cl["a"]]
    if fam == "huber":
        bs, delta = fvec(cl["b"]), F(cl["delta"])
        g = [Fraction(0)] * d
        for r, br in zip(rows, bs):
            s = _huber_d(_dot(r, x) - br, delta)
            g = [gi + s * ri for gi, ri in zip(g, r)]
        return [gi / len(rows) for gi in g]
    with mpmath.workdps(DPS):
        xm = [_mp(v) for v in x]
        zs = [sum(_mp(ai) * xi for ai, xi in zip(r, xm)) for r in rows]
        if fam == "logistic":
            ss = [1 / (1 + mpmath.exp(-z)) for z in zs]
            return [sum(s * _mp(r[k]) for s, r in zip(ss, rows)) / len(rows) for k in range(d)]
        if fam == "logsumexp":
            m = max(zs)
            ws = [mpmath.exp(z - m) for z in zs]
            tot = sum(ws)
            return [sum(w * _mp(r[k]) for w, r in zip(ws, rows)) / tot for k in range(d)]
    raise ValueError(fam)


def certified_beta(fam, cl):
    """Rational smoothness constant certified for a non-quadratic client (None for quadratic)."""
    if fam == "quadratic":
        return None
    rows = [fvec(r) for r in cl["a"]]
    sq = [sum(a * a for a in r) for r in rows]
    if fam == "huber":
        return sum(sq) / len(rows)
    if fam == "logistic":
        return sum(sq) / (4 * len(rows))
    return max(sq)


def _client_hyps(fam, clients, beta, mutate=None):
    """(convex margin, smooth margin) as Fractions 0 / -1 (quadratic) or beta - bound."""
    if fam == "quadratic":
        conv = all(is_psd_exact(fmat(c["A"])) for c in clients)
        smooth = True
        for c in clients:
            A = fmat(c["A"])
            d = len(A)
            sym = all(A[i][j] == A[j][i] for i in range(d) for j in range(d))
            up = [[(beta if i == j else 0) - A[i][j] for j in range(d)] for i in range(d)]
            lo = [[(beta if i == j else 0) + A[i][j] for j in range(d)] for i in range(d)]
            smooth = smooth and sym and is_psd_exact(up) and is_psd_exact(lo)
        return Fraction(0 if conv else -1), Fraction(0 if smooth else -1)
    bound = max(certified_beta(fam, c) for c in clients)
    delta_ok = all(F(c["delta"]) > 0 for c in clients) if fam == "huber" else True
    return Fraction(0 if delta_ok else -1), beta - bound


def _rand_psd(rng, d, scale=3):
    M = [[Fraction(int(rng.integers(-scale, scale + 1)), 2) for _ in range(d)] for _ in range(d)]
    return [[sum(M[i][k] * M[j][k] for k in range(d)) for j in range(d)] for i in range(d)]


def _gersh(A):
    return max(sum(abs(x) for x in row) for row in A) if A else Fraction(0)


def _rand_client(rng, fam, d, relax_convex=False):
    if fam == "quadratic":
        A = _rand_psd(rng, d)
        if relax_convex:
            A = [[A[i][j] - (3 if i == j == 0 else 0) for j in range(d)] for i in range(d)]
        return {"A": qmat(A), "b": qvec(rand_vec(rng, d, 2, 4))}
    n = int(rng.integers(1, 4))
    cl = {"a": [qvec(rand_vec(rng, d, 2, 4)) for _ in range(n)]}
    if fam == "huber":
        cl["b"] = qvec(rand_vec(rng, n, 1, 4))
        cl["delta"] = q(rand_rat(rng, Fraction(1, 4), 2, 4))
    return cl


def _beta_for(fam, clients):
    if fam == "quadratic":
        return max((_gersh(fmat(c["A"])) for c in clients), default=Fraction(1)) or Fraction(1)
    return max(certified_beta(fam, c) for c in clients) or Fraction(1)


class GradientGrowth(Checker):
    """GradientGrowth (SCAFFOLD inequality (9)): for convex, continuously differentiable
    h_1..h_N with beta-Lipschitz gradients (beta > 0), f = (1/N) sum h_i and x* a minimiser of f,

        (1/N) sum_i ||grad h_i(x) - grad h_i(x*)||^2 <= 2 beta (f(x) - f(x*))   for all x.

    Families: quadratic and Huber (exact), logistic and log-sum-exp (mpmath, decided only
    when |rhs - lhs| > 10^-30 at 60 digits, else Inconclusive). Source: Karimireddy et al.,
    SCAFFOLD, arXiv:1910.06378v4, Appendix B, inequality (9), PDF p. 14; seed 002.
    """

    lean_name = "GradientGrowth"
    statement = "(1/N) sum ||grad h_i(x) - grad h_i(x*)||^2 <= 2 beta (f(x) - f(x*))"
    source = "SCAFFOLD arXiv:1910.06378v4, Appendix B, inequality (9), PDF p. 14; seed 002"
    default_budget = 16
    mutations = {
        "beta_halved": Mutation("beta_halved", "2 beta replaced by beta"),
        "drop_convexity": Mutation("drop_convexity", "clients only smooth (convexity of each h_i dropped; f convex)",
                                   relax=("convex",)),
    }

    def _parse(self, inst):
        return inst["family"], inst["clients"], F(inst["beta"]), fvec(inst["x"]), fvec(inst["x_star"])

    def hypotheses(self, instance, mutate=None):
        fam, clients, beta, x, xs = self._parse(instance)
        conv, smooth = _client_hyps(fam, clients, beta)
        hs = [hyp("family", "family in " + "/".join(FAMILIES), Fraction(0 if fam in FAMILIES else -1)),
              hyp("beta_positive", "beta > 0", beta, strict=True),
              hyp("convex", "each h_i convex", conv),
              hyp("smooth", "each grad h_i beta-Lipschitz (certified bound <= beta)", smooth)]
        if fam == "quadratic":
            d = len(x)
            g = [sum(gi[k] for gi in (grad(fam, c, xs) for c in clients)) for k in range(d)]
            Abar = [[sum(F(c["A"][i][j]) for c in clients) for j in range(d)] for i in range(d)]
            ok = all(v == 0 for v in g) and is_psd_exact(Abar)
            hs.append(hyp("minimizer", "x* minimises f (grad f(x*) = 0, f convex)", Fraction(0 if ok else -1)))
        return hs

    def lhs(self, instance, mutate=None):
        fam, clients, beta, x, xs = self._parse(instance)
        tot = 0
        for c in clients:
            gx, gs = grad(fam, c, x), grad(fam, c, xs)
            tot += sum((a - b) ** 2 for a, b in zip(gx, gs))
        return tot / len(clients)

    def rhs(self, instance, mutate=None):
        fam, clients, beta, x, xs = self._parse(instance)
        N = len(clients)
        gap = sum(value(fam, c, x) - value(fam, c, xs) for c in clients) / N
        if fam != "quadratic":  # linear tilt h_i = phi_i - <gbar, x>, gbar = mean grad phi_i(x*)
            d = len(x)
            gs = [grad(fam, c, xs) for c in clients]
            gbar = [sum(g[k] for g in gs) / N for k in range(d)]
            gap -= sum(gbar[k] * (x[k] - xs[k]) for k in range(d))
        b = beta / 2 if mutate == "beta_halved" else beta
        if fam in ("logistic", "logsumexp"):
            with mpmath.workdps(DPS):
                return 2 * _mp(b) * gap
        return 2 * b * gap

    def random(self, rng, relax=()):
        fam = FAMILIES[int(rng.integers(0, len(FAMILIES)))]
        d = int(rng.choice([1, 1, 2, 3]))
        N = int(rng.integers(1, 4))
        relax_convex = "convex" in relax and fam == "quadratic"
        clients = [_rand_client(rng, fam, d, relax_convex and i == 0) for i in range(N)]
        xs = rand_vec(rng, d, 2, 4)
        if fam == "quadratic":
            if relax_convex:  # keep f convex: give the other clients the removed curvature back
                if N == 1:
                    clients[0] = _rand_client(rng, fam, d)
                else:
                    A1 = fmat(clients[1]["A"])
                    A1[0][0] += 3
                    clients[1]["A"] = qmat(A1)
            grads = [grad(fam, c, xs) for c in clients]
            last = fvec(clients[-1]["b"])
            tot = [sum(g[k] for g in grads) for k in range(d)]
            clients[-1]["b"] = qvec([last[k] + tot[k] for k in range(d)])
        scale = Fraction(1, 8) if rng.random() < 0.4 else 2
        x = [xi + rand_rat(rng, -scale, scale, 64) for xi in xs]
        return {"family": fam, "clients": clients, "beta": q(_beta_for(fam, clients)), "x": qvec(x),
                "x_star": qvec(xs)}

    def structured(self):
        out = [
            # d = 1, N = 1 quadratic with curvature beta: equality
            {"family": "quadratic", "clients": [{"A": [["2"]], "b": ["0"]}], "beta": "2", "x": ["1"], "x_star": ["0"]},
            # mu = 0 client (A = 0) next to a curved one
            {"family": "quadratic", "clients": [{"A": [["0", "0"], ["0", "0"]], "b": ["0", "0"]},
                                                {"A": [["1", "0"], ["0", "3"]], "b": ["0", "0"]}],
             "beta": "3", "x": ["1", "1"], "x_star": ["0", "0"]},
            {"family": "quadratic", "clients": [{"A": [["1"]], "b": ["1"]}], "beta": "1", "x": ["1"], "x_star": ["1"]},
            {"family": "huber", "clients": [{"a": [["1"]], "b": ["0"], "delta": "1"}], "beta": "1",
             "x": ["1/2"], "x_star": ["0"]},
            {"family": "logistic", "clients": [{"a": [["1"]]}], "beta": "1/4", "x": ["1/1000"], "x_star": ["0"]},
            {"family": "logsumexp", "clients": [{"a": [["1"], ["-1"]]}], "beta": "1", "x": ["1/1000"],
             "x_star": ["0"]},
        ]
        return out

    def candidates(self, rng, budget, relax=(), mutate=None):
        yield from self.structured()
        if "convex" in relax:
            yield {"family": "quadratic",
                   "clients": [{"A": [["1", "0"], ["0", "-1"]], "b": ["0", "0"]},
                               {"A": [["1", "0"], ["0", "3"]], "b": ["0", "0"]}],
                   "beta": "3", "x": ["0", "1"], "x_star": ["0", "0"]}
        for _ in range(budget):
            yield self.random(rng, relax)


class GradientStepNonexpansive(Checker):
    """GradientStepNonexpansive: for convex differentiable h with beta-Lipschitz gradient
    (beta > 0), every 0 <= eta <= 2/beta and x, y in R^d,

        || x - y - eta (grad h(x) - grad h(y)) ||  <=  || x - y ||

    (checked squared, exactly for quadratic/Huber, in mpmath for logistic/log-sum-exp).
    Source: seed 002 (local proof; cf. SCAFFOLD arXiv:1910.06378v4, Appendix C, Lemma 6,
    PDF p. 16 for the strongly convex contraction).
    """

    lean_name = "GradientStepNonexpansive"
    statement = "||x - y - eta(grad h(x) - grad h(y))||^2 <= ||x - y||^2, 0 <= eta <= 2/beta"
    source = "seed 002; SCAFFOLD arXiv:1910.06378v4, Appendix C, Lemma 6, PDF p. 16"
    default_budget = 16
    mutations = {
        "eta_up_to_3_over_beta": Mutation("eta_up_to_3_over_beta", "step range 0 <= eta <= 3/beta",
                                          relax=("eta_range",)),
        "drop_convexity": Mutation("drop_convexity", "h only smooth (convexity dropped)", relax=("convex",)),
    }

    def _parse(self, inst):
        return inst["family"], inst["client"], F(inst["beta"]), F(inst["eta"]), fvec(inst["x"]), fvec(inst["y"])

    def hypotheses(self, instance, mutate=None):
        fam, cl, beta, eta, x, y = self._parse(instance)
        conv, smooth = _client_hyps(fam, [cl], beta)
        top = (3 if mutate == "eta_up_to_3_over_beta" else 2) / beta if beta > 0 else None
        return [hyp("family", "family in " + "/".join(FAMILIES), Fraction(0 if fam in FAMILIES else -1)),
                hyp("beta_positive", "beta > 0", beta, strict=True),
                hyp("convex", "h convex", conv),
                hyp("smooth", "grad h beta-Lipschitz (certified bound <= beta)", smooth),
                hyp("eta_nonnegative", "eta >= 0", eta),
                hyp("eta_range", "eta <= 2/beta", None if top is None else top - eta)]

    def lhs(self, instance, mutate=None):
        fam, cl, beta, eta, x, y = self._parse(instance)
        gx, gy = grad(fam, cl, x), grad(fam, cl, y)
        if fam in ("logistic", "logsumexp"):
            with mpmath.workdps(DPS):
                x, y, eta = [_mp(v) for v in x], [_mp(v) for v in y], _mp(eta)
                return sum((xi - yi - eta * (a - b)) ** 2 for xi, yi, a, b in zip(x, y, gx, gy))
        return sum((xi - yi - eta * (a - b)) ** 2 for xi, yi, a, b in zip(x, y, gx, gy))

    def rhs(self, instance, mutate=None):
        fam, cl, beta, eta, x, y = self._parse(instance)
        return sum((a - b) ** 2 for a, b in zip(x, y))

    def random(self, rng, relax=()):
        fam = FAMILIES[int(rng.integers(0, len(FAMILIES)))]
        d = int(rng.choice([1, 1, 2, 3]))
        cl = _rand_client(rng, fam, d, relax_convex=("convex" in relax and fam == "quadratic"))
        beta = _beta_for(fam, [cl])
        if "eta_range" in relax:
            eta = rand_rat(rng, 2, 3, 16) / beta
        else:
            eta = rand_rat(rng, 0, 2, 16) / beta
        scale = Fraction(1, 8) if rng.random() < 0.4 else 2
        x = rand_vec(rng, d, 2, 4)
        y = [xi + rand_rat(rng, -scale, scale, 64) for xi in x]
        return {"family": fam, "client": cl, "beta": q(beta), "eta": q(eta), "x": qvec(x), "y": qvec(y)}

    def structured(self):
        return [
            {"family": "quadratic", "client": {"A": [["2"]], "b": ["0"]}, "beta": "2", "eta": "1", "x": ["1"], "y": ["0"]},
            {"family": "quadratic", "client": {"A": [["0"]], "b": ["5"]}, "beta": "1", "eta": "2", "x": ["1"], "y": ["-3"]},
            {"family": "quadratic", "client": {"A": [["1", "0"], ["0", "2"]], "b": ["0", "0"]}, "beta": "2",
             "eta": "0", "x": ["1", "1"], "y": ["0", "0"]},
            {"family": "huber", "client": {"a": [["1"]], "b": ["0"], "delta": "1"}, "beta": "1", "eta": "2",
             "x": ["1/2"], "y": ["-1/4"]},
            {"family": "logistic", "client": {"a": [["2"]]}, "beta": "1", "eta": "2", "x": ["1/100"], "y": ["0"]},
        ]

    def candidates(self, rng, budget, relax=(), mutate=None):
        yield from self.structured()
        if "convex" in relax:
            yield {"family": "quadratic", "client": {"A": [["-1"]], "b": ["0"]}, "beta": "1", "eta": "1",
                   "x": ["1"], "y": ["0"]}
        for _ in range(budget):
            yield self.random(rng, relax)


def _shift(A, s):
    """A + s I (rational matrix, list of lists)."""
    return [[A[i][j] + (s if i == j else 0) for j in range(len(A))] for i in range(len(A))]


class PerturbedStrongConvexity(Checker):
    """PerturbedStrongConvexity (SCAFFOLD Appendix C, Lemma 5): if every client f_j is
    mu-strongly convex (mu >= 0) with beta-Lipschitz gradient (beta > 0), then for every client i
    and all x, y, z in R^d

        f_i(z) - f_i(y) + (mu/4)||y - z||^2 - beta ||z - x||^2 <= <grad f_i(x), z - y>.

    Checked in the equivalent rearranged form (both sides then have a meaning of their own:
    the right side is >= 0 and lhs/rhs = 1 means the bound is attained)

        lhs = f_i(z) - f_i(y) - <grad f_i(x), z - y> + (mu/4)||y - z||^2  <=  rhs = beta ||z - x||^2.

    Instance: ``{"family", "clients": [N client dicts of the family, see the module docstring],
    "lam", "mu", "beta", "i", "x", "y", "z"}``; every client is f_j = phi_j + (lam/2)||x||^2
    with phi_j of the family (lam >= 0 supplies strong convexity to the families that have
    none of their own). Hypotheses, decided exactly: mu >= 0, lam >= 0, beta > 0, 0 <= i < N;
    strong convexity: A_j + (lam - mu) I PSD (quadratic), else phi_j convex and mu <= lam;
    smoothness: beta I -+ (A_j + lam I) PSD (quadratic), else the certified bound of phi_j plus
    lam is <= beta. The bound is attained (lhs = rhs) by f = (beta/2)||x||^2, mu = beta,
    x = (y + z)/2.

    Arithmetic: quadratic and Huber clients exactly (Fractions); logistic and log-sum-exp in
    mpmath at 60 digits, decided only when |rhs - lhs| > 10^-30 (else Inconclusive).
    Mutations: mu/4 replaced by mu; the beta term dropped. Source: Karimireddy et al., SCAFFOLD,
    arXiv:1910.06378v4, Appendix C, Lemma 5 (perturbed strong convexity), PDF p. 17.
    """

    lean_name = "PerturbedStrongConvexity"
    statement = "f_i(z) - f_i(y) + (mu/4)||y - z||^2 - beta||z - x||^2 <= <grad f_i(x), z - y>"
    source = "SCAFFOLD arXiv:1910.06378v4, Appendix C, Lemma 5, PDF p. 17"
    default_budget = 24
    mutations = {
        "mu_quarter_to_mu": Mutation("mu_quarter_to_mu", "(mu/4)||y - z||^2 replaced by mu ||y - z||^2"),
        "drop_beta_term": Mutation("drop_beta_term", "the term - beta ||z - x||^2 dropped"),
    }

    def _parse(self, inst):
        fam, clients = inst["family"], inst["clients"]
        if not isinstance(clients, list) or not clients:
            raise InputError("instance", "clients must be a nonempty list")
        i = inst["i"]
        if isinstance(i, bool) or not isinstance(i, int):
            raise InputError("instance", f"i must be an integer client index, got {i!r}")
        x, y, z = fvec(inst["x"]), fvec(inst["y"]), fvec(inst["z"])
        if not (len(x) == len(y) == len(z)):
            raise InputError("instance", "x, y and z must have the same dimension")
        return fam, clients, F(inst["lam"]), F(inst["mu"]), F(inst["beta"]), i, x, y, z

    def hypotheses(self, instance, mutate=None):
        fam, clients, lam, mu, beta, i, x, y, z = self._parse(instance)
        hs = [hyp("family", "family in " + "/".join(FAMILIES), Fraction(0 if fam in FAMILIES else -1)),
              hyp("mu", "mu >= 0", mu),
              hyp("lam", "lam >= 0 (the added (lam/2)||x||^2 is convex)", lam),
              hyp("beta_positive", "beta > 0", beta, strict=True),
              hyp("client", "0 <= i < N", Fraction(min(i, len(clients) - 1 - i)))]
        if fam == "quadratic":
            conv, smooth = True, True
            for c in clients:
                A = fmat(c["A"])
                d = len(A)
                if len(c["b"]) != d or any(len(r) != d for r in A) or d != len(x):
                    raise InputError("instance", "quadratic client: A must be (d, d) and b (d,) with d = len(x)")
                sym = all(A[a][b] == A[b][a] for a in range(d) for b in range(d))
                Al = _shift(A, lam)
                conv = conv and sym and is_psd_exact(_shift(Al, -mu))
                smooth = smooth and sym and is_psd_exact([[-v for v in r] for r in _shift(Al, -beta)]) \
                    and is_psd_exact(_shift(Al, beta))
            hs.append(hyp("convexity", "every f_j mu-strongly convex (A_j + (lam - mu) I PSD)",
                          Fraction(0 if conv else -1)))
            hs.append(hyp("smooth", "every grad f_j beta-Lipschitz (beta I -+ (A_j + lam I) PSD)",
                          Fraction(0 if smooth else -1)))
        elif fam in FAMILIES:
            for c in clients:
                if any(len(r) != len(x) for r in c["a"]):
                    raise InputError("instance", "client rows a_r must have dimension d = len(x)")
            delta_ok = all(F(c["delta"]) > 0 for c in clients) if fam == "huber" else True
            hs.append(hyp("convexity", "every f_j mu-strongly convex (phi_j convex, mu <= lam)",
                          (lam - mu) if delta_ok else Fraction(-1)))
            bound = max(certified_beta(fam, c) for c in clients) + lam
            hs.append(hyp("smooth", "every grad f_j beta-Lipschitz (certified bound of phi_j + lam <= beta)",
                          beta - bound))
        return hs

    def _exact_family(self, fam):
        return fam in ("quadratic", "huber")

    def lhs(self, instance, mutate=None):
        fam, clients, lam, mu, beta, i, x, y, z = self._parse(instance)
        c = clients[i]
        coef = mu if mutate == "mu_quarter_to_mu" else mu / 4
        reg = lam * (norm2(z) - norm2(y)) / 2 - lam * sum(a * (b - e) for a, b, e in zip(x, z, y))
        quad = coef * norm2([a - b for a, b in zip(y, z)])
        if self._exact_family(fam):
            g = grad(fam, c, x)
            return (value(fam, c, z) - value(fam, c, y) - sum(gk * (zk - yk) for gk, zk, yk in zip(g, z, y))
                    + reg + quad)
        with mpmath.workdps(DPS):
            g = grad(fam, c, x)
            inner = sum(gk * (_mp(zk) - _mp(yk)) for gk, zk, yk in zip(g, z, y))
            return value(fam, c, z) - value(fam, c, y) - inner + _mp(reg) + _mp(quad)

    def rhs(self, instance, mutate=None):
        fam, clients, lam, mu, beta, i, x, y, z = self._parse(instance)
        if mutate == "drop_beta_term":
            return Fraction(0)
        return beta * norm2([a - b for a, b in zip(z, x)])

    def _beta(self, fam, clients, lam):
        return _beta_for(fam, clients) + lam

    def random(self, rng, relax=()):
        fam = FAMILIES[int(rng.integers(0, len(FAMILIES)))]
        d = int(rng.choice([1, 1, 2, 3]))
        N = int(rng.integers(1, 4))
        i = int(rng.integers(0, N))
        lam = Fraction(0) if rng.random() < 0.3 else rand_rat(rng, Fraction(1, 4), 2, 4)
        y, z = rand_vec(rng, d, 2, 4), rand_vec(rng, d, 2, 4)
        u = rng.random()
        if u < 0.4:   # near the midpoint of y and z, where the quadratic case is tight
            x = [(a + b) / 2 + rand_rat(rng, -Fraction(1, 16), Fraction(1, 16), 64) * (rng.random() < 0.5)
                 for a, b in zip(y, z)]
        elif u < 0.55:
            x = list(z)
        else:
            x = rand_vec(rng, d, 2, 4)
        if fam == "quadratic" and rng.random() < 0.35:
            # all clients with the same curvature a I: mu = beta = a + lam can be taken
            a = rand_rat(rng, Fraction(1, 4), 3, 4)
            clients = [{"A": qmat([[a if r == s else 0 for s in range(d)] for r in range(d)]),
                        "b": qvec(rand_vec(rng, d, 2, 4))} for _ in range(N)]
            mu = beta = a + lam
        else:
            clients = [_rand_client(rng, fam, d) for _ in range(N)]
            beta = self._beta(fam, clients, lam) * (1 if rng.random() < 0.7 else rand_rat(rng, 1, 2, 4))
            mu = lam if rng.random() < 0.6 else lam * rand_rat(rng, 0, 1, 8)
        return {"family": fam, "clients": clients, "lam": q(lam), "mu": q(mu), "beta": q(beta), "i": i,
                "x": qvec(x), "y": qvec(y), "z": qvec(z)}

    def structured(self):
        return [
            # f = x^2 (beta = mu = 2), x the midpoint of y and z: equality
            {"family": "quadratic", "clients": [{"A": [["2"]], "b": ["0"]}], "lam": "0", "mu": "2", "beta": "2",
             "i": 0, "x": ["1"], "y": ["0"], "z": ["2"]},
            # the same curvature from the regulariser, two clients with different linear terms
            {"family": "quadratic", "clients": [{"A": [["0", "0"], ["0", "0"]], "b": ["1", "-1"]},
                                                {"A": [["0", "0"], ["0", "0"]], "b": ["0", "2"]}],
             "lam": "3", "mu": "3", "beta": "3", "i": 1, "x": ["1/2", "1"], "y": ["0", "1"], "z": ["1", "1"]},
            # a linear client (mu = 0): the left side is 0
            {"family": "quadratic", "clients": [{"A": [["0"]], "b": ["5"]}], "lam": "0", "mu": "0", "beta": "1",
             "i": 0, "x": ["3"], "y": ["-1"], "z": ["2"]},
            # x = z: the right side is 0 and the left side -(mu/4)||y - z||^2 or less
            {"family": "quadratic", "clients": [{"A": [["1", "0"], ["0", "3"]], "b": ["0", "1"]}], "lam": "0",
             "mu": "1", "beta": "3", "i": 0, "x": ["1", "1"], "y": ["-1", "0"], "z": ["1", "1"]},
            {"family": "huber", "clients": [{"a": [["1"]], "b": ["0"], "delta": "1"}], "lam": "1/2", "mu": "1/2",
             "beta": "3/2", "i": 0, "x": ["1/2"], "y": ["-2"], "z": ["3"]},
            {"family": "logistic", "clients": [{"a": [["1", "-1"]]}, {"a": [["2", "0"], ["0", "1"]]}],
             "lam": "1", "mu": "1", "beta": "9/4", "i": 1, "x": ["1/4", "0"], "y": ["-1", "1"], "z": ["1", "1/2"]},
            {"family": "logsumexp", "clients": [{"a": [["1"], ["-1"]]}], "lam": "0", "mu": "0", "beta": "1",
             "i": 0, "x": ["0"], "y": ["-1"], "z": ["1"]},
        ]
