"""Users of a distributed protocol: validation, the empirical CDF and the without-replacement stream.

Every protocol of aamand25 queries each user at most once (sequential adaptivity, Eq. (2)): the
users are put in a uniformly random order and handed out in consecutive slices. The stream refuses,
with a ``ValueError``, to hand out more users than remain ("n too small for a stage").
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reference.validation import check_rng


def check_domain_size(B: Any, name: str = "B") -> int:
    """The domain size B: an integer >= 2 (values live in {1, ..., B})."""
    if isinstance(B, bool | np.bool_) or not isinstance(B, numbers.Integral | np.integer):
        raise ValueError(f"{name} must be an integer >= 2, got {B!r}")
    if B < 2:
        raise ValueError(f"{name} must be an integer >= 2, got {B!r}")
    return int(B)


def check_users(users: Any, B: int, name: str = "users") -> np.ndarray:
    """A non-empty 1-D array of integers in {1, ..., B}; returned as a new int64 array."""
    B = check_domain_size(B)
    if isinstance(users, str | bytes):
        raise ValueError(f"{name} must be a 1-D array of integers in [1, {B}], got a string")
    raw = np.asarray(users)
    if raw.dtype == bool or raw.dtype == object:
        raise ValueError(f"{name} must be a 1-D array of integers in [1, {B}]")
    if raw.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-D array of integers in [1, {B}], got shape {raw.shape}"
        )
    if raw.size == 0:
        raise ValueError(f"{name} must be non-empty")
    if not np.issubdtype(raw.dtype, np.integer):
        if not np.issubdtype(raw.dtype, np.floating) or not np.all(np.isfinite(raw)):
            raise ValueError(f"{name} must be a 1-D array of integers in [1, {B}]")
        if not np.all(raw == np.round(raw)):
            raise ValueError(f"{name} must hold integer values in [1, {B}]")
    arr = raw.astype(np.int64)
    lo, hi = int(arr.min()), int(arr.max())
    if lo < 1 or hi > B:
        raise ValueError(f"{name} must lie in [1, {B}], got values in [{lo}, {hi}]")
    return arr


def check_user_value(data: Any, B: int, what: str = "one user value") -> int:
    """The input of a local randomizer: a single integer in [1, B] (not bool, finite)."""
    arr = np.asarray(data)
    bad = f"data must be {what}, an integer in [1, {B}], got {data!r}"
    if arr.dtype == bool or arr.dtype == object or arr.size != 1:
        raise ValueError(bad)
    value = arr.reshape(()).item()
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise ValueError(bad)
    if not np.isfinite(value) or value != round(value) or not 1 <= value <= B:
        raise ValueError(bad)
    return int(value)


def empirical_cdf(users: np.ndarray, points: Any) -> np.ndarray:
    """F(m) = |{i : x_i <= m}| / n at each point (Eq. (1)); F(B + 1) = 1 by convention."""
    x = np.sort(np.asarray(users))
    pts = np.asarray(points)
    return np.searchsorted(x, pts, side="right") / x.size


def is_approximate_quantile(users: np.ndarray, m: int, tau: float, alpha: float) -> bool:
    """The strict success criterion of spec §6.1: F(m) < τ + α and F(m + 1) > τ − α."""
    f = empirical_cdf(users, [m, m + 1])
    return bool(f[0] < tau + alpha and f[1] > tau - alpha)


def quantile_error(users: np.ndarray, m: int, tau: float) -> float:
    """The distance from τ to the CDF step at m: 0 when F(m) <= τ <= F(m + 1), else the gap."""
    f_m, f_next = empirical_cdf(users, [m, m + 1])
    if f_m > tau:
        return float(f_m - tau)
    if f_next < tau:
        return float(tau - f_next)
    return 0.0


@dataclass
class UserStream:
    """The users in a uniformly random order, handed out without replacement.

    ``take(k, stage)`` returns the next ``k`` users; asking for more than remain raises a
    ``ValueError`` naming the stage. ``used`` counts the users handed out so far.
    """

    users: np.ndarray
    rng: np.random.Generator
    order: np.ndarray = field(init=False, repr=False)
    used: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        check_rng(self.rng)
        self.order = self.users[self.rng.permutation(self.users.size)]

    @property
    def remaining(self) -> int:
        return int(self.order.size - self.used)

    def take(self, k: int, stage: str = "stage") -> np.ndarray:
        if k < 0 or k > self.remaining:
            raise ValueError(
                f"n too small for {stage}: it needs {k} users but only {self.remaining} of "
                f"{self.order.size} remain"
            )
        out = self.order[self.used : self.used + k]
        self.used += k
        return out
