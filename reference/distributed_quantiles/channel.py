"""The binary asymmetric channel of App. E: I(x), capacity C_{τ,α}, query point q, Bayes weights.

A coin left of the target answers heads with probability at least τ + α, one right of it at most
τ − α; the learner queries the point with a fraction x of the posterior on its left. The mutual
information between "which side" and the answer is (App. E, H the binary entropy in bits)

    I(x) = H((1 − x)(τ − α) + x(τ + α)) − (1 − x)·H(τ − α) − x·H(τ + α),

C_{τ,α} = max_x I(x) and q = argmax_x I(x). :func:`derive_channel` derives q, C and the Bayes
weights d_{x,y} with sympy from I and from the channel rows (nothing is typed in): dI/dx = 0 is
the equation (b − a)·lg((1 − m)/m) = H(b) − H(a) in the mixture m = a + x(b − a), which sympy
solves for m, giving with Z = 2^{(H(τ−α) − H(τ+α))/(2α)} the closed forms of spec §2.2:

    q = (1 − τ + α − 1/(1 + Z))/(2α),
    C = lg(1 + Z) + (τ − α)·H(τ + α)/(2α) − (τ + α)·H(τ − α)/(2α).

The Bayes weight d_{x,y} (x = the answer, 1 = heads; y = the side of the q-point, 0 = left) is the
likelihood of the answer given the side over its predictive probability τ + (2q − 1)α. The tests
check the derived expressions against these closed forms and a 50-digit numeric argmax.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy as sp

from reference.exact.mp import to_mpf, workdps
from reference.validation import check_epsilon, check_finite, check_probability


@dataclass(frozen=True)
class ChannelExpressions:
    """Symbolic results of :func:`derive_channel` (symbols ``tau``, ``alpha``, ``x``, ``q``)."""

    tau: sp.Symbol
    alpha: sp.Symbol
    x: sp.Symbol
    q_symbol: sp.Symbol
    information: sp.Expr  # I(x)
    derivative: sp.Expr  # dI/dx
    q: sp.Expr  # argmax, solved by sympy
    capacity: sp.Expr  # I(q)
    weights: dict[tuple[int, int], sp.Expr]  # d_{x,y} as functions of tau, alpha, q_symbol


def _entropy(p: sp.Expr) -> sp.Expr:
    """Binary entropy in bits."""
    return -(p * sp.log(p) + (1 - p) * sp.log(1 - p)) / sp.log(2)


@functools.cache
def derive_channel() -> ChannelExpressions:
    """Derive q, C and d_{x,y} from I(x) and the channel rows with sympy (App. E)."""
    tau, alpha = sp.symbols("tau alpha", positive=True)
    x, m, r, qs = sp.symbols("x m r q", positive=True)
    a, b = tau - alpha, tau + alpha
    info = _entropy((1 - x) * a + x * b) - (1 - x) * _entropy(a) - x * _entropy(b)
    deriv = sp.diff(info, x)
    # dI/dx, written in the mixture m = a + x(b − a): (b − a)·lg((1 − m)/m) − H(b) + H(a).
    # sympy confirms the rewrite, then solves lg((1 − m)/m) = ρ for m.
    rewritten = (b - a) * sp.log((1 - m) / m) / sp.log(2) - _entropy(b) + _entropy(a)
    check = sp.expand(sp.expand_log(deriv - rewritten.subs(m, a + x * (b - a)), force=True))
    if check != 0:  # pragma: no cover - a sympy regression
        raise ArithmeticError("dI/dx did not reduce to the mixture form")
    rho = (_entropy(b) - _entropy(a)) / (b - a)
    (m_star,) = sp.solve(sp.Eq(sp.log((1 - m) / m) / sp.log(2), r), m)
    q_expr = (m_star.subs(r, rho) - a) / (b - a)
    cap = info.subs(x, q_expr)
    # Bayes weights: likelihood of the answer given the side over the predictive probability.
    heads = {0: b, 1: a}  # P(heads | target left of the coin) = τ + α; right of it: τ − α
    pred_heads = qs * heads[0] + (1 - qs) * heads[1]
    weights = {}
    for side in (0, 1):
        weights[(1, side)] = heads[side] / pred_heads
        weights[(0, side)] = (1 - heads[side]) / (1 - pred_heads)
    return ChannelExpressions(tau, alpha, x, qs, info, deriv, q_expr, cap, weights)


def closed_forms() -> dict[str, sp.Expr]:
    """The closed forms of spec §2.2 as sympy expressions (for the tests' comparison)."""
    ch = derive_channel()
    tau, alpha = ch.tau, ch.alpha
    a, b = tau - alpha, tau + alpha
    z = 2 ** ((_entropy(a) - _entropy(b)) / (2 * alpha))
    q = (1 - tau + alpha - 1 / (1 + z)) / (2 * alpha)
    cap = sp.log(1 + z, 2) + a * _entropy(b) / (2 * alpha) - b * _entropy(a) / (2 * alpha)
    return {"Z": z, "q": q, "C": cap}


def check_channel(tau: Any, alpha: Any) -> tuple[float, float]:
    """τ in (0, 1) and α in (0, min(τ, 1 − τ)) (both channel rows are proper probabilities)."""
    tau = check_probability(tau, "tau", open_left=True, open_right=True)
    alpha = check_finite(alpha, "alpha")
    bound = min(tau, 1 - tau)
    if not 0 < alpha < bound:
        raise ValueError(
            f"alpha must lie in (0, min(tau, 1 - tau)) = (0, {bound!r}), got {alpha!r}"
        )
    return tau, alpha


@functools.cache
def _fast() -> dict[str, Any]:
    ch = derive_channel()
    args = (ch.tau, ch.alpha)
    return {
        "info": sp.lambdify((ch.x, *args), ch.information, "math"),
        "q": sp.lambdify(args, ch.q, "math"),
        "C": sp.lambdify(args, ch.capacity, "math"),
        "q_mp": sp.lambdify(args, ch.q, "mpmath"),
        "C_mp": sp.lambdify(args, ch.capacity, "mpmath"),
        "info_mp": sp.lambdify((ch.x, *args), ch.information, "mpmath"),
        "d": {k: sp.lambdify((*args, ch.q_symbol), v, "math") for k, v in ch.weights.items()},
        "d_mp": {k: sp.lambdify((*args, ch.q_symbol), v, "mpmath") for k, v in ch.weights.items()},
    }


def mutual_information(x: float, tau: float, alpha: float) -> float:
    """I(x) in bits (App. E)."""
    tau, alpha = check_channel(tau, alpha)
    x = check_probability(x, "x")
    return float(_fast()["info"](x, tau, alpha))


def optimal_query_point(tau: float, alpha: float) -> float:
    """q = argmax_x I(x) (App. E; q = 1/2 for τ = 1/2)."""
    tau, alpha = check_channel(tau, alpha)
    return float(_fast()["q"](tau, alpha))


def capacity(tau: float, alpha: float) -> float:
    """C_{τ,α} = max_x I(x) in bits (Thm E.2)."""
    tau, alpha = check_channel(tau, alpha)
    return float(_fast()["C"](tau, alpha))


def optimal_query_point_mp(tau: float, alpha: float) -> mpmath.mpf:
    tau, alpha = check_channel(tau, alpha)
    with workdps():
        return _fast()["q_mp"](to_mpf(tau), to_mpf(alpha))


def capacity_mp(tau: float, alpha: float) -> mpmath.mpf:
    tau, alpha = check_channel(tau, alpha)
    with workdps():
        return _fast()["C_mp"](to_mpf(tau), to_mpf(alpha))


def mutual_information_mp(x: float, tau: float, alpha: float) -> mpmath.mpf:
    tau, alpha = check_channel(tau, alpha)
    with workdps():
        return _fast()["info_mp"](to_mpf(x), to_mpf(tau), to_mpf(alpha))


def numeric_argmax_mp(tau: float, alpha: float) -> mpmath.mpf:
    """A 50-digit numeric maximiser of I (root of dI/dx by mpmath.findroot), for cross-checks."""
    tau, alpha = check_channel(tau, alpha)
    with workdps():
        t, a = to_mpf(tau), to_mpf(alpha)
        return mpmath.findroot(
            lambda x: mpmath.diff(lambda u: _fast()["info_mp"](u, t, a), x), mpmath.mpf("0.5")
        )


@dataclass(frozen=True)
class BayesWeights:
    """The multiplicative Bayes weights d_{x,y} at query point q (x = answer, y = side)."""

    q: float
    d00: float
    d01: float
    d10: float
    d11: float


def bayes_weights(tau: float, alpha: float, q: float | None = None) -> BayesWeights:
    """d_{x,y} at q (default: the optimal q). For τ = 1/2: 1 ± 2α."""
    tau, alpha = check_channel(tau, alpha)
    q = optimal_query_point(tau, alpha) if q is None else check_probability(q, "q")
    d = _fast()["d"]
    return BayesWeights(q, *(float(d[k](tau, alpha, q)) for k in ((0, 0), (0, 1), (1, 0), (1, 1))))


def bayes_weights_mp(tau: float, alpha: float, q: Any = None) -> dict[tuple[int, int], Any]:
    """d_{x,y} at 60 digits, keyed (x, y); q defaults to the optimal point."""
    tau, alpha = check_channel(tau, alpha)
    with workdps():
        qq = optimal_query_point_mp(tau, alpha) if q is None else to_mpf(q)
        d = _fast()["d_mp"]
        return {k: d[k](to_mpf(tau), to_mpf(alpha), qq) for k in d}


def rr_domain_target(tau: float, epsilon: float) -> float:
    """τ' = 1/(e^ε + 1) + τ·tanh(ε/2): the τ-quantile's target after RR_ε (spec §3.9)."""
    tau = check_probability(tau, "tau", open_left=True, open_right=True)
    epsilon = check_epsilon(epsilon)
    return 1.0 / (math.exp(epsilon) + 1.0) + tau * math.tanh(epsilon / 2)


def rr_domain_alpha(alpha: float, epsilon: float) -> float:
    """α·tanh(ε/2): a gap α in the CDF becomes this gap in the RR-domain coins."""
    alpha = check_finite(alpha, "alpha")
    return alpha * math.tanh(check_epsilon(epsilon) / 2)
