"""The binary asymmetric channel (BAC) behind BayesLearn (App. E, Thm E.2, Lemma E.3).

A flip of the coin at BayesLearn's query point is heads with probability ``τ + α`` when the target
interval lies to the **left** of the coin and ``τ − α`` when it lies to the right. With ``x`` the
posterior mass left of the query point, the information one flip carries is

    I(x) = H((1−x)(τ−α) + x(τ+α)) − (1−x)·H(τ−α) − x·H(τ+α)        (H: binary entropy, bits)

and BayesLearn queries at ``q = argmax_x I(x)`` (Alg. 2 line 9); the capacity is
``C_{τ,α} = I(q)`` (Thm E.2, footnote 8). :func:`derive_channel` derives ``q``, ``C`` and the
multiplicative Bayes weights ``d_{x,y}`` (Lemma E.3) with sympy and proves them equal to the closed
forms below (Gretta & Price's; the paper gives none, ``notes/aamand25.md`` "Channel closed
forms"):

    Z = 2^{(H(τ−α) − H(τ+α))/(2α)},      q = (1 − τ + α − 1/(1+Z))/(2α),
    C = lg(1+Z) + (τ−α)·H(τ+α)/(2α) − (τ+α)·H(τ−α)/(2α).

Three tiers of evaluation, tied together by tests (``tests/reference/distributed_quantiles/test_aamand25_channel.py``):

* the symbolic derivation (:func:`derive_channel`, cached; about two seconds, once);
* mpmath versions (``*_mp``): the derived expressions lambdified for ``mpmath`` and evaluated with
  guard digits for their cancellation at small α; accurate to ``dps`` (>= 50) digits;
* float versions: hand-written closed forms rearranged so that nothing cancels (``log1p``,
  ``expm1`` and the KL form of I); they agree with the mpmath tier to 1e-12 relative. No sympy runs
  at call time in either numeric tier.

Weights: ``d_{x,y}`` with ``x`` the flip (1 = heads = "user value <= coin") and ``y`` the side of an
interval relative to the query point (0 = left, 1 = right). An interval left of the query point is
multiplied by ``d_{x,0}``, one right of it by ``d_{x,1}``; ``q·d_{x,0} + (1−q)·d_{x,1} = 1`` for
every ``q``, which keeps BayesLearn's weights summing to one.
"""

from __future__ import annotations

import functools
import math
import numbers
import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeAlias

import mpmath
import numpy as np
import sympy

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import DPS, to_mpf
from dpquant.reference.validation import (
    check_choice,
    check_epsilon,
    check_finite,
    check_int,
    check_real,
)

__all__ = [
    "BayesWeights",
    "ChannelDerivation",
    "bayes_weights",
    "bayes_weights_mp",
    "capacity",
    "capacity_mp",
    "check_channel_parameters",
    "derive_channel",
    "mutual_information",
    "mutual_information_mp",
    "numeric_argmax_mp",
    "optimal_query_point",
    "optimal_query_point_mp",
    "rr_domain_alpha",
    "rr_domain_target",
]

Real: TypeAlias = float | mpmath.mpf

# ----------------------------------------------------------------------------- validation


def check_channel_parameters(tau: Any, alpha: Any) -> tuple[float, float]:
    """τ in (0, 1) and α in (0, min(τ, 1 − τ)), so that the crossover probabilities τ ± α lie
    strictly inside (0, 1). (Thm E.2 and Lemma E.3 assume the stronger α <= ½·min(τ, 1 − τ).)"""
    return _channel_parameters(tau, alpha, check_finite, repr)


def _channel_parameters(
    tau: Any, alpha: Any, convert: Callable[[Any, str], Any], show: Callable[[Any], str]
) -> tuple[Any, Any]:
    """τ and α converted by ``convert`` (float or mpf) and checked at its precision; ``show``
    prints the bound min(τ, 1 − τ) in the error."""
    t = convert(tau, "tau")
    if not 0 < t < 1:
        raise ParameterError("tau", "must lie in (0, 1)", repr(tau))
    a = convert(alpha, "alpha")
    bound = min(t, 1 - t)
    if not 0 < a < bound:
        raise ParameterError(
            "alpha",
            f"must lie in (0, min(tau, 1 - tau)) = (0, {show(bound)})",
            repr(alpha),
        )
    return t, a


def _check_unit(value: Any, name: str) -> float:
    v = check_finite(value, name)
    if not 0.0 <= v <= 1.0:
        raise ParameterError(name, "must lie in [0, 1]", repr(value))
    return v


def mp_real(x: Any, name: str) -> mpmath.mpf:
    """An exact finite real (int, float, Fraction, mpf) as mpf; ValueError otherwise."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real | mpmath.mpf):
        raise ParameterError(name, "must be a real number", repr(x))
    if isinstance(x, np.integer):
        x = int(x)
    elif isinstance(x, np.floating):
        x = check_real(x, name)  # numpy floats (float32, longdouble) as exact doubles
    if isinstance(x, Fraction | numbers.Integral):
        value = to_mpf(Fraction(x))
    else:
        value = mpmath.mpf(x)
    if not mpmath.isfinite(value):
        raise ParameterError(name, "must be a finite real number", repr(x))
    return value


def mp_unit(x: Any, name: str) -> mpmath.mpf:
    """:func:`mp_real` of a number in [0, 1]."""
    value = mp_real(x, name)
    if not 0 <= value <= 1:
        raise ParameterError(name, "must lie in [0, 1]", repr(x))
    return value


def _mp_channel_parameters(tau: Any, alpha: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
    """:func:`check_channel_parameters` for exact inputs, compared at mpmath precision."""
    return _channel_parameters(tau, alpha, mp_real, lambda bound: mpmath.nstr(bound, 17))


MAX_DPS = 1000
"""The most decimal digits an mpmath-tier function works at (more would take minutes)."""


def _check_dps(dps: Any) -> int:
    return check_int(dps, "dps", minimum=50, maximum=MAX_DPS)


# ----------------------------------------------------------------------------- derivation


@dataclass(frozen=True)
class ChannelDerivation:
    """Sympy expressions of the BAC quantities (App. E), made by :func:`derive_channel`.

    ``tau``, ``alpha`` are positive symbols, ``x`` the posterior mass left of the query point and
    ``q`` a free query point (the Bayes weights are stated for any q). ``solved_query_point`` is
    what ``sympy.solve`` returned for dI/dx = 0; ``query_point`` and ``capacity`` are the closed
    forms of the module docstring, proven equal to that solution and to I at it. ``proofs`` records
    how each identity was closed: ``"simplify"`` (sympy reduced the difference to 0) or
    ``"numeric-60"`` (the difference is below 1e-50 at 40 seeded random rationals at 60 digits; used
    only where simplify cannot close it).
    """

    tau: sympy.Symbol
    alpha: sympy.Symbol
    x: sympy.Symbol
    q: sympy.Symbol
    mutual_information: sympy.Expr
    derivative: sympy.Expr
    second_derivative: sympy.Expr
    solved_query_point: sympy.Expr
    z: sympy.Expr
    query_point: sympy.Expr
    capacity: sympy.Expr
    predictive_heads: sympy.Expr
    d00: sympy.Expr
    d01: sympy.Expr
    d10: sympy.Expr
    d11: sympy.Expr
    proofs: tuple[tuple[str, str], ...]

    def proof(self, name: str) -> str:
        """How the identity ``name`` was proven: ``"simplify"`` or ``"numeric-60"``."""
        proofs = dict(self.proofs)
        return proofs[check_choice(name, "name", tuple(proofs))]

    def weight(self, flip: int, side: int) -> sympy.Expr:
        """d_{flip, side} as an expression in ``tau``, ``alpha``, ``q``."""
        return ((self.d00, self.d01), (self.d10, self.d11))[flip][side]


_LN2 = sympy.log(2)


def _entropy_bits(p: sympy.Expr) -> sympy.Expr:
    """Binary entropy in bits, H(p) = −p·lg p − (1−p)·lg(1−p)."""
    return -(p * sympy.log(p) + (1 - p) * sympy.log(1 - p)) / _LN2


def _split_logs(expr: sympy.Expr) -> sympy.Expr:
    """Factor every log's argument and expand the log into a sum (all symbols are positive)."""
    expr = expr.replace(
        lambda t: isinstance(t, sympy.log),
        lambda t: sympy.log(sympy.factor(sympy.together(t.args[0]))),
    )
    return sympy.expand(sympy.expand_log(expr, force=True))


def _random_channel_points(count: int, seed: int) -> list[tuple[sympy.Rational, sympy.Rational]]:
    """Seeded random rationals τ in (0, 1), α in (0, min(τ, 1−τ))."""
    gen = random.Random(seed)
    points = []
    for _ in range(count):
        tau = sympy.Rational(gen.randint(1, 999), 1000)
        alpha = min(tau, 1 - tau) * sympy.Rational(gen.randint(1, 999), 1000)
        points.append((tau, alpha))
    return points


def _prove_zero(
    difference: sympy.Expr,
    symbols: tuple[sympy.Symbol, ...],
    reduced: sympy.Expr | None = None,
) -> str:
    """``"simplify"`` if sympy reduces ``difference`` (or the supplied ``reduced`` form of it) to 0,
    else ``"numeric-60"`` if it is below 1e-50 at 40 seeded random rationals evaluated at 60
    digits; raises ``ArithmeticError`` otherwise. ``symbols`` = (tau, alpha, *others in [0, 1])."""
    if (sympy.simplify(difference) if reduced is None else reduced) == 0:
        return "simplify"
    tau, alpha, *others = symbols
    gen = random.Random(1)
    for t, a in _random_channel_points(40, seed=7):
        subs = {tau: t, alpha: a}
        subs.update({s: sympy.Rational(gen.randint(0, 1000), 1000) for s in others})
        value = difference.evalf(60, subs=subs)
        if abs(value) > sympy.Float("1e-50", 60):
            raise ArithmeticError(f"derived and closed forms differ at {subs}: {value}")
    return "numeric-60"


@functools.cache
def derive_channel() -> ChannelDerivation:
    """Derive the BAC quantities of App. E symbolically (cached).

    1. Build I(x) (Thm E.2 footnote 8) with H in bits; prove d²I/dx² = −4α²/(ln2·m(1−m)) < 0
       (m = τ − α + 2αx), so I is strictly concave and its stationary point is the maximiser.
    2. Solve dI/dx = 0: the logs combine into ln R(x) = 0 with R rational in x, and
       ``sympy.solve`` finds the single root of R(x) = 1.
    3. Prove that root equals the closed form q (module docstring; compare ln((1−m)/m) with −ln Z,
       both sums of logs) and that I(q) equals the closed form C (logs split, ln Z replaced by its
       value).
    4. Derive d_{x,y} as posterior/predictive ratios: heads has probability τ+α given the target
       left of the query point and τ−α given right, predictive probability q(τ+α) + (1−q)(τ−α);
       so d_{1,0} = (τ+α)/pred, d_{0,0} = (1−τ−α)/(1−pred), d_{1,1} = (τ−α)/pred and
       d_{0,1} = (1−τ+α)/(1−pred). Prove they equal Lemma E.3's printed forms, whose predictive
       probability is τ + (2q−1)α.
    """
    tau, alpha, x, q = sympy.symbols("tau alpha x q", positive=True)
    low, high = tau - alpha, tau + alpha  # heads probability: target right / left of the coin
    mixture = (1 - x) * low + x * high
    info = _entropy_bits(mixture) - (1 - x) * _entropy_bits(low) - x * _entropy_bits(high)
    derivative = sympy.diff(info, x)
    proofs: list[tuple[str, str]] = []

    second = sympy.diff(info, x, 2)
    concave = -4 * alpha**2 / (_LN2 * mixture * (1 - mixture))
    proofs.append(("concavity", _prove_zero(second - concave, (tau, alpha, x))))

    combined = sympy.logcombine(sympy.expand(derivative * _LN2 / (2 * alpha)), force=True)
    if not isinstance(combined, sympy.log):
        raise ArithmeticError(f"dI/dx did not combine into a single log: {combined}")
    roots = sympy.solve(sympy.numer(sympy.together(combined.args[0] - 1)), x)
    if len(roots) != 1:
        raise ArithmeticError(f"expected one stationary point, got {roots}")
    solved = roots[0]

    # the closed forms of the module docstring, first in a positive symbol Z, then with Z's value
    z_sym = sympy.Symbol("Z", positive=True)
    z_expr = 2 ** ((_entropy_bits(low) - _entropy_bits(high)) / (2 * alpha))
    log_z = _LN2 * (_entropy_bits(low) - _entropy_bits(high)) / (2 * alpha)
    q_closed_z = (1 - tau + alpha - 1 / (1 + z_sym)) / (2 * alpha)
    c_closed_z = (
        sympy.log(1 + z_sym) / _LN2
        + (tau - alpha) * _entropy_bits(high) / (2 * alpha)
        - (tau + alpha) * _entropy_bits(low) / (2 * alpha)
    )

    # q: the solved m = τ − α + 2αq has (1 − m)/m = 1/Z, and the closed form has m = Z/(1 + Z)
    m_solved = low + 2 * alpha * solved
    log_ratio = sympy.expand_log(
        sympy.log(sympy.factor(sympy.together((1 - m_solved) / m_solved))), force=True
    )
    q_gap = log_ratio + log_z
    q_numeric = solved - q_closed_z.subs(z_sym, z_expr)
    q_proof = "simplify" if sympy.simplify(q_gap) == 0 else _prove_zero(q_numeric, (tau, alpha))
    proofs.append(("query_point", q_proof))
    m_closed = low + 2 * alpha * q_closed_z
    proofs.append(
        ("query_point_mixture", _prove_zero(m_closed - z_sym / (1 + z_sym), (tau, alpha)))
    )

    # C: I(q_closed) − C_closed with the logs split and ln Z replaced by its value
    c_gap = _split_logs(info.subs(x, q_closed_z) - c_closed_z)
    c_gap = sympy.expand(c_gap.subs(sympy.log(z_sym), log_z))
    c_numeric = info.subs(x, solved) - c_closed_z.subs(z_sym, z_expr)
    c_proof = "simplify" if sympy.simplify(c_gap) == 0 else _prove_zero(c_numeric, (tau, alpha))
    proofs.append(("capacity", c_proof))

    predictive = q * high + (1 - q) * low
    d10 = high / predictive
    d00 = (1 - high) / (1 - predictive)
    d11 = low / predictive
    d01 = (1 - low) / (1 - predictive)
    printed_pred = tau + (2 * q - 1) * alpha
    printed = {
        "d00": (d00, (1 - tau - alpha) / (1 - printed_pred)),
        "d01": (d01, (1 - tau + alpha) / (1 - printed_pred)),
        "d10": (d10, (tau + alpha) / printed_pred),
        "d11": (d11, (tau - alpha) / printed_pred),
    }
    for name, (derived, lemma) in printed.items():
        proofs.append((f"bayes_weight_{name}", _prove_zero(derived - lemma, (tau, alpha, q))))
    proofs.append(("predictive_heads", _prove_zero(predictive - printed_pred, (tau, alpha, q))))

    return ChannelDerivation(
        tau=tau,
        alpha=alpha,
        x=x,
        q=q,
        mutual_information=info,
        derivative=derivative,
        second_derivative=second,
        solved_query_point=solved,
        z=z_expr,
        query_point=q_closed_z.subs(z_sym, z_expr),
        capacity=c_closed_z.subs(z_sym, z_expr),
        predictive_heads=predictive,
        d00=d00,
        d01=d01,
        d10=d10,
        d11=d11,
        proofs=tuple(proofs),
    )


# ----------------------------------------------------------------------------- mpmath tier


@dataclass(frozen=True)
class _MpFunctions:
    info: Callable[..., Any]
    derivative: Callable[..., Any]
    query_point: Callable[..., Any]
    capacity: Callable[..., Any]
    weights: tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any], Callable[..., Any]]


@functools.cache
def _mp_functions() -> _MpFunctions:
    """The derived expressions lambdified for mpmath (cached; no sympy at call time)."""
    d = derive_channel()

    def lam(args: tuple[sympy.Symbol, ...], expr: sympy.Expr) -> Callable[..., Any]:
        return sympy.lambdify(args, expr, modules="mpmath")

    taq = (d.tau, d.alpha, d.q)
    return _MpFunctions(
        info=lam((d.x, d.tau, d.alpha), d.mutual_information),
        derivative=lam((d.x, d.tau, d.alpha), d.derivative),
        query_point=lam((d.tau, d.alpha), d.query_point),
        capacity=lam((d.tau, d.alpha), d.capacity),
        weights=(lam(taq, d.d00), lam(taq, d.d01), lam(taq, d.d10), lam(taq, d.d11)),
    )


def _guard_digits(alpha: mpmath.mpf, dps: int) -> int:
    """Working digits for the closed forms, which cancel about 3·log10(1/α) digits at small α."""
    lost = int(mpmath.ceil(-mpmath.log10(alpha)))
    return dps + 3 * max(lost, 0) + 15


def mutual_information_mp(x: Any, tau: Any, alpha: Any, *, dps: int = DPS) -> mpmath.mpf:
    """I(x) in bits (Thm E.2 footnote 8), the derived expression at ``dps`` >= 50 digits."""
    dps = _check_dps(dps)
    with mpmath.workdps(dps + 15):
        t, a = _mp_channel_parameters(tau, alpha)
        xv = mp_unit(x, "x")
    if xv == 0 or xv == 1:
        return mpmath.mpf(0)  # a point mass carries no information (the form gives exactly 0)
    # the entropy form also cancels ~log10(1/min(x, 1 − x)) digits near the ends
    edge = int(mpmath.ceil(-mpmath.log10(min(xv, 1 - xv))))
    with mpmath.workdps(_guard_digits(a, dps) + edge):
        return +_mp_functions().info(xv, t, a)


def _at_guarded_precision(
    tau: Any, alpha: Any, dps: Any, evaluate: Callable[[mpmath.mpf, mpmath.mpf], Any]
) -> mpmath.mpf:
    """``evaluate(τ, α)`` on the checked exact parameters, at the closed forms' guard digits."""
    dps = _check_dps(dps)
    with mpmath.workdps(dps + 15):
        t, a = _mp_channel_parameters(tau, alpha)
    with mpmath.workdps(_guard_digits(a, dps)):
        return +evaluate(t, a)


def optimal_query_point_mp(tau: Any, alpha: Any, *, dps: int = DPS) -> mpmath.mpf:
    """q = argmax_x I(x) (Alg. 2 line 9; the closed form, derived) to ``dps`` digits."""
    return _at_guarded_precision(tau, alpha, dps, _mp_functions().query_point)


def capacity_mp(tau: Any, alpha: Any, *, dps: int = DPS) -> mpmath.mpf:
    """C_{τ,α} = max_x I(x) in bits (Thm E.2 footnote 8) to ``dps`` digits."""
    return _at_guarded_precision(tau, alpha, dps, _mp_functions().capacity)


def numeric_argmax_mp(tau: Any, alpha: Any, *, dps: int = DPS) -> mpmath.mpf:
    """The maximiser of I(x) found numerically, independent of the closed form (its check):
    the root of the derived dI/dx on the bracket [0, 1] by the Anderson–Björck method.

    The bracket is valid: dI/dx > 0 at 0 and < 0 at 1 because H is strictly concave.
    """
    slope = _mp_functions().derivative

    def root(t: mpmath.mpf, a: mpmath.mpf) -> Any:
        return mpmath.findroot(
            lambda x: slope(x, t, a), (mpmath.mpf(0), mpmath.mpf(1)), solver="anderson"
        )

    return _at_guarded_precision(tau, alpha, dps, root)


@dataclass(frozen=True)
class BayesWeights:
    """Multiplicative Bayes weights d_{x,y} of Lemma E.3 at query point ``q``.

    ``x`` is the flip (1 = heads = "user value <= coin"), ``y`` the side of an interval relative to
    the query point (0 = left, 1 = right). Floats from :func:`bayes_weights`, mpf from
    :func:`bayes_weights_mp`.
    """

    d00: Real
    d01: Real
    d10: Real
    d11: Real
    q: Real

    def d(self, flip: int, side: int) -> Real:
        """d_{flip, side}, flip and side in {0, 1}."""
        flip = check_int(flip, "flip", minimum=0, maximum=1)
        side = check_int(side, "side", minimum=0, maximum=1)
        return ((self.d00, self.d01), (self.d10, self.d11))[flip][side]


def bayes_weights_mp(tau: Any, alpha: Any, q: Any = None, *, dps: int = DPS) -> BayesWeights:
    """d_{x,y} (Lemma E.3), the derived posterior/predictive ratios at ``dps`` digits; ``q``
    defaults to the optimal query point."""
    dps = _check_dps(dps)
    with mpmath.workdps(dps + 15):
        t, a = _mp_channel_parameters(tau, alpha)
        qv = None if q is None else mp_unit(q, "q")
    if qv is None:
        qv = optimal_query_point_mp(t, a, dps=dps)
    with mpmath.workdps(dps + 15):
        d00, d01, d10, d11 = (+f(t, a, qv) for f in _mp_functions().weights)
    return BayesWeights(d00=d00, d01=d01, d10=d10, d11=d11, q=qv)


# ----------------------------------------------------------------------------- float tier

_SERIES_CUTOFF = 0.05


def _h(u: float) -> float:
    """(ln(1+u) − u)/u without cancellation: the series −u/2 + u²/3 − u³/4 + … for |u| < 0.05."""
    if u == 0.0:
        return 0.0
    if abs(u) < _SERIES_CUTOFF:
        total, power = 0.0, 1.0
        for k in range(2, 16):  # 0.05^14 < 1e-18: the tail is below double precision
            power *= -u
            total += power / k
        return total
    return (math.log1p(u) - u) / u


def _kl_nats(p: float, m: float, delta: float) -> float:
    """KL(Bernoulli(p) ‖ Bernoulli(m)) in nats, given ``delta = p − m`` without rounding loss.

    p·ln(1+s) + (1−p)·ln(1+t) with s = δ/m, t = −δ/(1−m); the linear parts add up to δ²/(m(1−m)),
    so KL = δ²/(m(1−m)) + p·s·h(s) + (1−p)·t·h(t), h(u) = (ln(1+u) − u)/u.
    """
    s = delta / m
    t = -delta / (1.0 - m)
    return delta * delta / (m * (1.0 - m)) + p * s * _h(s) + (1.0 - p) * t * _h(t)


def _low_high(tau: float, alpha: float) -> tuple[float, float]:
    return tau - alpha, tau + alpha


def _information_nats(x: float, tau: float, alpha: float) -> float:
    low, high = _low_high(tau, alpha)
    m = tau + (2.0 * x - 1.0) * alpha
    return x * _kl_nats(high, m, 2.0 * alpha * (1.0 - x)) + (1.0 - x) * _kl_nats(
        low, m, -2.0 * alpha * x
    )


def mutual_information(x: float, tau: float, alpha: float) -> float:
    """I(x) in bits (Thm E.2 footnote 8) as x·KL(τ+α ‖ m) + (1−x)·KL(τ−α ‖ m), m = τ+(2x−1)α.

    This KL form equals the entropy form of :func:`derive_channel` (test
    ``test_float_tier_agrees_with_the_derived_mp_tier_to_1e_12``) and does not cancel at small α.
    """
    tau, alpha = check_channel_parameters(tau, alpha)
    x = _check_unit(x, "x")
    # information is >= 0; a subnormal α can round the last bits below 0
    return max(_information_nats(x, tau, alpha) / math.log(2.0), 0.0)


def _query_point(tau: float, alpha: float) -> float:
    low, high = _low_high(tau, alpha)
    u = 2.0 * alpha / low
    v = -2.0 * alpha / (1.0 - low)
    r = (1.0 - high) / (1.0 - low)
    d = _h(u) + 2.0 * alpha / (1.0 - low) - r * _h(v)
    return (
        (1.0 - low)
        * (high * math.expm1(d) + 2.0 * alpha)
        / (2.0 * alpha * ((1.0 - low) + high * math.exp(d)))
    )


def optimal_query_point(tau: float, alpha: float) -> float:
    """q = argmax_x I(x) (Alg. 2 line 9): the closed form rearranged not to cancel.

    With a = τ−α, b = τ+α, u = 2α/a, v = −2α/(1−a), r = (1−b)/(1−a) and h as in ``_h``:
    ln Z = ln(b/(1−a)) + D with D = h(u) + 2α/(1−a) − r·h(v), hence
    q = (1−a)·(b·expm1(D) + 2α) / (2α·((1−a) + b·e^D)).
    """
    tau, alpha = check_channel_parameters(tau, alpha)
    return _query_point(tau, alpha)


def capacity(tau: float, alpha: float) -> float:
    """C_{τ,α} in bits (Thm E.2 footnote 8): I at the optimal query point, without cancellation."""
    tau, alpha = check_channel_parameters(tau, alpha)
    return max(_information_nats(_query_point(tau, alpha), tau, alpha) / math.log(2.0), 0.0)


def bayes_weights(tau: float, alpha: float, q: float | None = None) -> BayesWeights:
    """d_{x,y} of Lemma E.3 (floats): d_{1,0} = (τ+α)/m, d_{0,0} = (1−τ−α)/(1−m),
    d_{1,1} = (τ−α)/m, d_{0,1} = (1−τ+α)/(1−m), m = τ + (2q−1)α; ``q`` defaults to the optimum."""
    tau, alpha = check_channel_parameters(tau, alpha)
    q = _query_point(tau, alpha) if q is None else _check_unit(q, "q")
    low, high = _low_high(tau, alpha)
    m = tau + (2.0 * q - 1.0) * alpha
    return BayesWeights(
        d00=(1.0 - high) / (1.0 - m),
        d01=(1.0 - low) / (1.0 - m),
        d10=high / m,
        d11=low / m,
        q=q,
    )


# ----------------------------------------------------------------------------- RR domain


def rr_domain_target(tau: float, epsilon: float) -> float:
    """τ' = 1/(e^ε+1) + τ·tanh(ε/2): the τ-quantile's heads probability after ε-RR.

    Our alternative to Lemma B.1's padding (``notes/aamand25.md``, "BayesLearn in the RR domain");
    Lemma A.1 gives Pr[RR = 1] = p·tanh(ε/2) + 1/(e^ε+1).
    """
    tau = check_finite(tau, "tau")
    if not 0.0 < tau < 1.0:
        raise ParameterError("tau", "must lie in (0, 1)", repr(tau))
    epsilon = check_epsilon(epsilon)
    flip = math.exp(-epsilon) / (1.0 + math.exp(-epsilon))  # 1/(e^ε + 1) without overflow
    return flip + tau * math.tanh(epsilon / 2.0)


def rr_domain_alpha(alpha: float, epsilon: float) -> float:
    """α' = α·tanh(ε/2): a gap α in the CDF is a gap α' in RR heads probability (Thm C.1, Eq. 8)."""
    alpha = check_finite(alpha, "alpha")
    if not 0.0 < alpha < 1.0:
        raise ParameterError("alpha", "must lie in (0, 1)", repr(alpha))
    epsilon = check_epsilon(epsilon)
    return alpha * math.tanh(epsilon / 2.0)
