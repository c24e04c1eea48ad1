"""Users of a distributed protocol: validation, the empirical CDF, the without-replacement stream,
and the base of the local randomizers that take one user's value (:class:`UserValueRandomizer`).

Every protocol of aamand25 queries each user at most once (sequential adaptivity, Eq. (2)): the
users are put in a uniformly random order and handed out in consecutive slices. The stream refuses,
with a ``ValueError``, to hand out more users than remain ("n too small for a stage").
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.core import Adjacency, ExactMechanismBase
from dpquant.reference.validation import (
    check_data,
    check_int,
    check_positive,
    check_probability,
    check_rng,
)

MAX_B = 2**62
"""The largest domain size B: user values and coins are int64 (with room for the coin B + 1 of
the success criterion F(m + 1))."""


def check_domain_size(B: Any, name: str = "B") -> int:
    """The domain size B: an integer in [2, :data:`MAX_B`] (values live in {1, ..., B})."""
    return check_int(B, name, minimum=2, maximum=MAX_B)


def _integral(value: Any) -> bool:
    """A real scalar (not bool) whose value is a finite integer: ints, integral floats (3.0) and
    Fractions with denominator 1."""
    if isinstance(value, bool | np.bool_):
        return False
    if isinstance(value, numbers.Integral | np.integer):
        return True
    if isinstance(value, Fraction):
        return value.denominator == 1
    if isinstance(value, float | np.floating):
        return bool(np.isfinite(value)) and float(value) == int(value)
    return False


def _short(value: int) -> str:
    text = str(value)
    return text if len(text) <= 24 else f"{text[:8]}...({len(text)} digits)"


def _from_sequence(values: Any, lo: int, hi: int, name: str, what: str) -> np.ndarray:
    """A sequence of integer values, checked type by type (no numpy coercion of strings or
    booleans), as int64."""
    types = set(map(type, values))
    for t in types:
        if issubclass(t, bool | np.bool_):
            raise ParameterError(name, f"must be {what}", "booleans")
        if issubclass(t, str | bytes):
            raise ParameterError(name, f"must be {what}", "strings")
        if issubclass(t, list | tuple | np.ndarray | range):
            raise ParameterError(name, f"must be {what}", "nested sequences")
        if not issubclass(t, numbers.Real | np.floating | np.integer):
            raise ParameterError(name, f"must be {what}", f"values of type {t.__name__}")
    if types <= {int}:
        ints = values if isinstance(values, list) else list(values)
    else:
        bad = next((v for v in values if not _integral(v)), None)
        if bad is not None:
            raise ParameterError(name, f"must be {what}", f"{bad!r:.60}")
        ints = [int(v) for v in values]
    if ints and (min(ints) < lo or max(ints) > hi):
        raise ParameterError(
            name,
            f"must lie in [{lo}, {hi}]",
            f"values in [{_short(min(ints))}, {_short(max(ints))}]",
        )
    return np.array(ints, dtype=np.int64)


def _from_array(raw: np.ndarray, lo: int, hi: int, name: str, what: str) -> np.ndarray:
    kind = raw.dtype.kind
    if kind == "b":
        raise ParameterError(name, f"must be {what}", "booleans")
    if kind not in "iufO":
        raise ParameterError(name, f"must be {what}", f"dtype {raw.dtype}")
    if raw.ndim != 1:
        raise ParameterError(name, f"must be {what}", f"shape {raw.shape}")
    if kind == "O":
        return _from_sequence(raw.tolist(), lo, hi, name, what)
    if raw.size == 0:
        return np.zeros(0, dtype=np.int64)
    if kind == "f":
        if not np.all(np.isfinite(raw)):
            raise ParameterError(name, f"must be {what}", "NaN or inf")
        if not np.all(raw == np.floor(raw)):
            raise ParameterError(name, f"must hold integer values in [{lo}, {hi}]")
    low, high = raw.min(), raw.max()
    if low < lo or high > hi:
        raise ParameterError(name, f"must lie in [{lo}, {hi}]", f"values in [{low}, {high}]")
    return raw.astype(np.int64)


def check_integers(
    values: Any, name: str, *, minimum: int, maximum: int, allow_empty: bool = False
) -> np.ndarray:
    """A 1-D sequence of integers in [``minimum``, ``maximum``] (within int64); a new int64 array.

    The data policy of :mod:`dpquant.reference.validation` for integer records: ints (Python or numpy),
    integral floats (``3.0``) and ``Fraction``s equal to an integer are accepted; booleans,
    strings, NaN/inf, non-integral values, nested sequences and other objects are refused, as is
    any value outside the range (huge ints included), with a ``ValueError`` naming ``name``.
    """
    minimum = check_int(minimum, "minimum", minimum=-(2**63), maximum=2**63 - 1)
    maximum = check_int(maximum, "maximum", minimum=-(2**63), maximum=2**63 - 1)
    if maximum < minimum:
        raise ParameterError(
            "minimum",
            "must be <= maximum",
            f"minimum = {minimum}, maximum = {maximum}",
        )
    what = f"a 1-D sequence of integers in [{minimum}, {maximum}]"
    if isinstance(values, str | bytes):
        raise ParameterError(name, f"must be {what}", "a string")
    if isinstance(values, np.ndarray):
        out = _from_array(values, minimum, maximum, name, what)
    elif isinstance(values, list | tuple | range):
        out = _from_sequence(values, minimum, maximum, name, what)
    else:
        raise ParameterError(name, f"must be {what}", type(values).__name__)
    if out.size == 0 and not allow_empty:
        raise ParameterError(name, "must be non-empty")
    return out


def check_users(users: Any, B: int, name: str = "users") -> np.ndarray:
    """A non-empty 1-D sequence of integers in {1, ..., B}; returned as a new int64 array
    (:func:`check_integers`: integral floats such as ``3.0`` are accepted, booleans never)."""
    B = check_domain_size(B)
    return check_integers(users, name, minimum=1, maximum=B)


def check_user_value(data: Any, B: int, what: str = "one user value") -> int:
    """The input of a local randomizer: a single integer in [1, B] (a scalar, or a sequence
    holding exactly one), under the rules of :func:`check_users`; named ``data`` in errors."""
    B = check_domain_size(B)
    bad = f"data must be {what}, an integer in [1, {B}]"
    if isinstance(data, np.ndarray) and data.ndim == 0:
        data = data.reshape(1)
    if isinstance(data, list | tuple | np.ndarray):
        if len(data) != 1:
            raise ValueError(f"{bad}, got a sequence of {len(data)} values")
        return int(check_users(data, B, "data")[0])
    if not _integral(data):
        raise ValueError(f"{bad}, got {data!r:.80}")
    value = int(data)
    if not 1 <= value <= B:
        raise ValueError(f"{bad}, got {_short(value)}")
    return value


class UserValueRandomizer(ExactMechanismBase):
    """The base of this package's local randomizers (the local model of Sec. 2): the input is one
    user's value in {1, ..., :attr:`value_count`} (:func:`check_user_value`, named
    :attr:`value_name` in errors), any two values are neighbours (``adjacency`` is
    ``Adjacency.LOCAL``) and the report is bits (``output_range`` (0, 1); a randomizer with
    another report overrides it).
    :attr:`input_values` (the values an auditor probes) are all of them by default."""

    adjacency = Adjacency.LOCAL
    value_name: ClassVar[str] = "one user value"

    @property
    def value_count(self) -> int:
        """The number of user values: the ``B`` field (a subclass with another field overrides)."""
        return int(getattr(self, "B"))  # noqa: B009 -- a subclass field

    @property
    def domain(self) -> tuple[float, float]:
        return (1.0, float(self.value_count))

    @property
    def output_range(self) -> tuple[float, float]:
        return (0.0, 1.0)

    @property
    def input_values(self) -> tuple[float, ...]:
        return tuple(float(v) for v in range(1, self.value_count + 1))

    def check_input(self, data: Any) -> int:
        return check_user_value(data, self.value_count, self.value_name)


def _values(users: Any, name: str = "users") -> np.ndarray:
    """A non-empty 1-D array of numbers: integer arrays as they are, anything else through
    :func:`dpquant.reference.validation.check_data` (the data policy)."""
    if isinstance(users, np.ndarray) and users.dtype.kind in "iu" and users.ndim == 1:
        if users.size == 0:
            raise ParameterError(name, "must be non-empty")
        return users
    return check_data(users, name)


def empirical_cdf(users: Any, points: Any) -> np.ndarray:
    """F(m) = |{i : x_i <= m}| / n at each point (Eq. (1)); F(B + 1) = 1 by convention."""
    x = np.sort(_values(users))
    if isinstance(points, np.ndarray) and points.dtype.kind in "iu":
        pts = points
    else:
        pts = check_data(
            np.atleast_1d(points) if np.isscalar(points) else points, "points", allow_empty=True
        )
    return np.searchsorted(x, pts, side="right") / x.size


def _criterion_args(m: Any, tau: Any) -> tuple[int, float]:
    m = check_int(m, "m", minimum=-MAX_B, maximum=MAX_B)
    return m, check_probability(tau, "tau")


def is_approximate_quantile(users: Any, m: int, tau: float, alpha: float) -> bool:
    """The strict success criterion of Sec. 2: F(m) < τ + α and F(m + 1) > τ − α."""
    m, tau = _criterion_args(m, tau)
    alpha = check_positive(alpha, "alpha")
    f = empirical_cdf(users, np.array([m, m + 1], dtype=np.int64))
    return bool(f[0] < tau + alpha and f[1] > tau - alpha)


def quantile_error(users: Any, m: int, tau: float) -> float:
    """The distance from τ to the CDF step at m: 0 when F(m) <= τ <= F(m + 1), else the gap."""
    m, tau = _criterion_args(m, tau)
    f_m, f_next = empirical_cdf(users, np.array([m, m + 1], dtype=np.int64))
    if f_m > tau:
        return float(f_m - tau)
    if f_next < tau:
        return float(tau - f_next)
    return 0.0


@dataclass
class UserStream:
    """The users in a uniformly random order, handed out without replacement.

    ``users`` is a 1-D integer array (the protocols pass :func:`check_users`'s output).
    ``take(k, stage)`` returns the next ``k`` users; asking for more than remain raises a
    ``ValueError`` naming the stage. ``used`` counts the users handed out so far.
    """

    users: np.ndarray
    rng: np.random.Generator
    order: np.ndarray = field(init=False, repr=False)
    used: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        check_rng(self.rng)
        u = self.users
        if not (isinstance(u, np.ndarray) and u.dtype.kind in "iu" and u.ndim == 1):
            raise ParameterError(
                "users",
                "must be a 1-D numpy array of integers (see check_users)",
                type(u).__name__,
            )
        self.order = u[self.rng.permutation(u.size)]

    @property
    def remaining(self) -> int:
        return int(self.order.size - self.used)

    def take(self, k: int, stage: str = "stage") -> np.ndarray:
        k = check_int(k, "k", minimum=0)
        if k > self.remaining:
            raise ValueError(
                f"n too small for {stage}: it needs {k} users but only {self.remaining} of "
                f"{self.order.size} remain"
            )
        out = self.order[self.used : self.used + k]
        self.used += k
        return out
