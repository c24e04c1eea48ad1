"""The padding reduction of Lemma B.1 (App. B): any quantile τ from a median protocol.

Lemma B.1 adds ``(1 − τ)n`` virtual users holding ``1`` and ``τn`` virtual users holding ``B`` to a
dataset ``D`` of ``n`` users. The padded multiset ``D_P`` has ``2n`` elements and, for every
``y`` in ``[1, B − 1]``, the CDF identity (proof of Lemma B.1, Eq. (6))

    F_{D_P}(y) = (1 − τ)/2 + F_D(y)/2.

Hence a coin ``m`` that is an α-approximate median of ``D_P`` (α < 1/2) is a 2α-approximate
τ-quantile of ``D`` (Eq. (7)): the median error doubles.

Rounding (the paper assumes ``τn`` integral, footnote 7). When ``τn`` is not an integer we add
``bs = ⌊τn + 1/2⌋`` copies of ``B`` (nearest integer, ties up) and ``ones = n − bs`` copies of
``1``, so ``|D_P| = 2n`` always. The identity above then holds with the *effective* quantile
``τ' = bs/n`` in place of ``τ``, ``|τ' − τ| ≤ 1/(2n)``, and an α-approximate median of ``D_P`` is a
``(2α + |τ' − τ|)``-approximate τ-quantile of ``D`` (:func:`padded_quantile_guarantee`; test
``test_rounded_padding_gives_the_stated_error_bound``). When ``τn`` is an integer (up to the float
representation of τ) nothing changes: ``τ' = τ``.

Everything here is exact: τ and α are converted to ``Fraction`` (floats exactly) and the CDF is a
``Fraction``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles.mechanisms import check_options
from dpquant.reference.distributed_quantiles.users import MAX_B, check_domain_size, check_users
from dpquant.reference.validation import (
    check_data,
    check_epsilon,
    check_fraction,
    check_int,
    check_real,
    check_rng,
)

MedianProtocol = Callable[..., Any]


def check_tau(tau: Any, name: str = "tau") -> Fraction:
    """A quantile τ in the open interval (0, 1), returned as an exact ``Fraction``."""
    value = check_fraction(tau, name)
    if not 0 < value < 1:
        raise ParameterError(name, "must lie in (0, 1)", repr(tau))
    return value


def check_alpha(alpha: Any, name: str = "alpha") -> Fraction:
    """An accuracy α in (0, 1/2) (the range of Lemma B.1), returned as an exact ``Fraction``."""
    value = check_fraction(alpha, name)
    if not 0 < value < Fraction(1, 2):
        raise ParameterError(name, "must lie in (0, 1/2)", repr(alpha))
    return value


def padding_counts(n: int, tau: Any) -> tuple[int, int]:
    """Lemma B.1: the numbers ``(ones, bs)`` of virtual users holding 1 and B.

    ``bs = ⌊τn + 1/2⌋`` (τn rounded to the nearest integer, ties up) and ``ones = n − bs``: exactly
    ``((1 − τ)n, τn)`` when τn is an integer, and ``|D_P| = 2n`` in every case.
    """
    n = check_int(n, "n", minimum=1, maximum=MAX_B)
    t = check_tau(tau)
    bs = math.floor(t * n + Fraction(1, 2))
    return n - bs, bs


def effective_tau(n: int, tau: Any) -> Fraction:
    """The quantile τ' = bs/n that the padded median targets exactly (= τ when τn is integral)."""
    n = check_int(n, "n", minimum=1, maximum=MAX_B)
    _, bs = padding_counts(n, tau)
    return Fraction(bs, n)


def padded_quantile_guarantee(n: int, tau: Any, alpha: Any) -> Fraction:
    """The accuracy 2α + |τ' − τ| (≤ 2α + 1/(2n)) of Lemma B.1 after rounding.

    An α-approximate median of ``pad_users(D, B, τ)`` is an approximate τ-quantile of ``D`` with
    this accuracy (Eq. (7) with τ replaced by τ' = bs/n, then the triangle inequality).
    """
    a = check_alpha(alpha)
    t = check_tau(tau)
    return 2 * a + abs(effective_tau(n, t) - t)


def pad_users(users: Any, B: int, tau: Any) -> np.ndarray:
    """The padded multiset D_P of Lemma B.1: the users, then ``ones`` 1's, then ``bs`` B's.

    ``|D_P| = 2n``. The order does not matter: every protocol here puts its users in a uniformly
    random order before querying them.
    """
    B = check_domain_size(B)
    arr = check_users(users, B)
    ones, bs = padding_counts(arr.size, tau)
    return np.concatenate(
        [arr, np.ones(ones, dtype=np.int64), np.full(bs, B, dtype=np.int64)]
    ).astype(np.int64)


def exact_cdf(users: Any, y: float) -> Fraction:
    """F(y) = |{i : x_i ≤ y}|/n as an exact ``Fraction`` (Eq. (1)); F(y) = 1 for y > max."""
    arr = check_data(users, "users")
    point = check_real(y, "y")
    return Fraction(int(np.count_nonzero(arr <= point)), int(arr.size))


def is_exact_approximate_quantile(users: Any, m: int, tau: Any, alpha: Any) -> bool:
    """The strict criterion of Sec. 2 in exact arithmetic: F(m) < τ + α and F(m + 1) > τ − α.

    ``F(B + 1) = 1`` holds automatically because every user value is at most B.
    """
    m = check_int(m, "m", minimum=-MAX_B, maximum=MAX_B)
    t = check_fraction(tau, "tau")
    a = check_fraction(alpha, "alpha", positive=True)
    return exact_cdf(users, m) < t + a and exact_cdf(users, m + 1) > t - a


def quantile_via_median(
    median_protocol: MedianProtocol,
    users: Any,
    B: int,
    tau: Any,
    epsilon: float,
    rng: np.random.Generator,
    **kwargs: Any,
) -> int:
    """An approximate τ-quantile of ``users`` from a median protocol (Lemma B.1).

    Runs ``median_protocol(pad_users(users, B, tau), B, epsilon, rng, **kwargs)`` and returns its
    coin. If the protocol returns an α-approximate median of the padded data (α < 1/2), the coin
    is a ``padded_quantile_guarantee(n, tau, α)``-approximate τ-quantile of ``users`` (2α when τn
    is an integer).

    Privacy (our argument; Lemma B.1 is about accuracy only, ``notes/aamand25.md``). In an adaptive
    ε-LDP protocol the ``n`` virtual users are simulated by the server: when the protocol's random
    order reaches a virtual user and asks it coin ``m``, the server computes ``RR_ε([v ≤ m])``
    itself for the public value ``v ∈ {1, B}``, drawing the randomized-response coin from its own
    randomness. The reports so produced have exactly the law of a real user holding ``v``, so the
    transcript has exactly the law of the protocol run on the ``2n`` users of ``D_P``, which is what
    this function executes, and the protocol's accuracy guarantee on ``D_P`` applies unchanged. Each
    real user is still asked one threshold query and answers one ε-RR bit; the simulated reports
    depend on no real user's value. Changing one real user's value therefore changes the law of that
    user's single report only, by a likelihood ratio of at most e^ε: the real users keep exactly
    their ε-LDP guarantee. The protocol sees 2n users, so its sample-size requirement applies to 2n
    (of which n are real).

    Raises ``ValueError`` for bad input, and when the protocol returns something that is not a
    coin in ``[1, B]``.
    """
    if not callable(median_protocol):
        raise ParameterError(
            "median_protocol",
            "must be callable as median_protocol(users, B, epsilon, rng, **kwargs)",
            type(median_protocol).__name__,
        )
    B = check_domain_size(B)
    check_tau(tau)
    epsilon = check_epsilon(epsilon)
    rng = check_rng(rng)
    check_options(median_protocol, kwargs, "median_protocol")
    padded = pad_users(users, B, tau)
    coin = median_protocol(padded, B, epsilon, rng, **kwargs)
    if isinstance(coin, bool | np.bool_) or not isinstance(coin, int | np.integer):
        raise ParameterError(
            "median_protocol",
            f"must return an integer coin in [1, {B}]",
            repr(coin),
        )
    if not 1 <= int(coin) <= B:
        raise ParameterError("median_protocol", f"must return a coin in [1, {B}]", repr(coin))
    return int(coin)
