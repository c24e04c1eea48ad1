"""The metrics of aamand25's experiments (Sec. 5, "Metrics"), in our shifted domain [B] = {1..B}
(the authors' value v is our v + 1, which changes no CDF value).

* success: F(m̃) < ½ + α_test ∧ F(m̃ + 1) > ½ − α_test (strict, F(B + 1) = 1), the criterion of
  Sec. 2 vectorised over outputs and α_test;
* absolute quantile error: |F(m̃) − F(m)| with m the authors' "true median", the left coin of the
  crossing interval (:func:`dpquant.studies.aamand25.data.authors_true_median`);
* the error bars of the success plots: the binomial standard error sqrt(p(1 − p)/runs) (the
  paper's "standard deviation", Fig. 1 caption).

The empirical F is the true one (the authors overwrite F(0) with 0; that only matters for an
output at their coin 0, ``notes/aamand25.md``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles import MAX_B, check_integers
from dpquant.reference.validation import check_choice, check_data, check_int, check_probability
from dpquant.studies.aamand25.config import ALPHA_TESTS, TAU
from dpquant.studies.aamand25.data import authors_true_median


class SortedUsers:
    """The users sorted once: F(v) = |{i : x_i <= v}|/n by binary search (Eq. (1))."""

    def __init__(self, users: np.ndarray):
        if isinstance(users, np.ndarray) and users.dtype.kind in "iu" and users.ndim == 1:
            values = users  # integer users as they are (exact beyond 2^53)
            if values.size == 0:
                raise ParameterError("users", "must be non-empty")
        else:
            values = check_data(users, "users")
        self.sorted = np.sort(values)

    def cdf(self, points: Any) -> np.ndarray:
        """F at each point; F(B + 1) = 1 and F(0) = 0 follow from the values lying in [1, B]."""
        if not (isinstance(points, np.ndarray) and points.dtype.kind in "iu"):
            points = check_data(points, "points", allow_empty=True)
        return np.searchsorted(self.sorted, points, side="right") / self.sorted.size


def check_coins(coins: Any) -> np.ndarray:
    """Output coins: integers (int64; the success criterion also reads the coin m + 1)."""
    return check_integers(coins, "coins", minimum=-MAX_B, maximum=MAX_B, allow_empty=True)


def success_indicators(
    users: np.ndarray | SortedUsers,
    coins: Sequence[int] | np.ndarray,
    alpha_tests: Sequence[float] = ALPHA_TESTS,
    tau: float = TAU,
) -> np.ndarray:
    """(runs × α_test) booleans: F(m̃) < τ + α ∧ F(m̃ + 1) > τ − α (Sec. 2 and Sec. 5).

    The strict criterion of :func:`dpquant.reference.distributed_quantiles.is_approximate_quantile`,
    vectorised over coins and α_test.
    """
    su = users if isinstance(users, SortedUsers) else SortedUsers(users)
    m = check_coins(coins)
    alphas = check_data(alpha_tests, "alpha_tests")
    tau = check_probability(tau, "tau")
    f_m, f_next = su.cdf(m)[:, None], su.cdf(m + 1)[:, None]
    return (f_m < tau + alphas[None, :]) & (f_next > tau - alphas[None, :])


def absolute_quantile_errors(
    users: np.ndarray | SortedUsers, coins: Sequence[int] | np.ndarray, reference: int
) -> np.ndarray:
    """|F(m̃) − F(m)| for each output m̃, with m = ``reference`` (Sec. 5 "absolute quantile
    error"; the authors' m is :func:`true_median`)."""
    su = users if isinstance(users, SortedUsers) else SortedUsers(users)
    reference = check_int(reference, "reference", minimum=-MAX_B, maximum=MAX_B)
    f_ref = su.cdf(np.array([reference], dtype=np.int64))[0]
    return np.abs(su.cdf(check_coins(coins)) - f_ref)


def true_median(users: np.ndarray, dataset: str) -> int:
    """The authors' reference coin for ``dataset`` ("pareto": largest value with F < ½;
    "uniform": largest value with F <= ½; see ``authors_true_median``)."""
    dataset = check_choice(dataset, "dataset", ("pareto", "uniform"))
    return authors_true_median(users, inclusive=dataset == "uniform")


def binomial_stderr(p: float, runs: int) -> float:
    """sqrt(p(1 − p)/runs): the error bars of the paper's success plots (Fig. 1 caption)."""
    runs = check_int(runs, "runs", minimum=1, maximum=MAX_B)
    p = check_probability(p, "p")
    return math.sqrt(p * (1.0 - p) / runs)


__all__ = [
    "SortedUsers",
    "absolute_quantile_errors",
    "binomial_stderr",
    "check_coins",
    "success_indicators",
    "true_median",
]
