"""Input validation shared by every constructor and sampler.

Each helper returns the cleaned value or raises ``ValueError`` naming the parameter and the allowed
range. Booleans are never accepted as numbers.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

import numpy as np


def _is_real_scalar(x: Any) -> bool:
    return isinstance(x, numbers.Real | np.floating | np.integer) and not isinstance(
        x, bool | np.bool_
    )


def check_real(x: Any, name: str) -> float:
    """A real scalar (not bool); returned as float (may be +-inf, never NaN)."""
    if not _is_real_scalar(x):
        raise ValueError(f"{name} must be a real number, got {x!r}")
    value = float(x)
    if math.isnan(value):
        raise ValueError(f"{name} must be a real number, got nan")
    return value


def check_finite(x: Any, name: str) -> float:
    """A finite real scalar, returned as float."""
    value = check_real(x, name)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return value


def check_positive(x: Any, name: str) -> float:
    """A finite real scalar > 0."""
    value = check_finite(x, name)
    if value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return value


def check_epsilon(epsilon: Any, name: str = "epsilon") -> float:
    """Privacy parameter epsilon: a finite number > 0."""
    return check_positive(epsilon, name)


def check_delta(delta: Any, name: str = "delta") -> float:
    """Privacy parameter delta in [0, 1)."""
    value = check_finite(delta, name)
    if not 0.0 <= value < 1.0:
        raise ValueError(f"{name} must lie in [0, 1), got {value!r}")
    return value


def check_probability(
    p: Any, name: str, *, open_left: bool = False, open_right: bool = False
) -> float:
    """A probability in [0, 1], optionally excluding either end."""
    value = check_finite(p, name)
    lo_ok = value > 0 if open_left else value >= 0
    hi_ok = value < 1 if open_right else value <= 1
    if not (lo_ok and hi_ok):
        interval = ("(" if open_left else "[") + "0, 1" + (")" if open_right else "]")
        raise ValueError(f"{name} must lie in {interval}, got {value!r}")
    return value


def check_size(size: Any, name: str = "size") -> int:
    """A non-negative integer number of samples."""
    if isinstance(size, bool | np.bool_) or not isinstance(size, numbers.Integral | np.integer):
        raise ValueError(f"{name} must be a non-negative integer, got {size!r}")
    if size < 0:
        raise ValueError(f"{name} must be a non-negative integer, got {size!r}")
    return int(size)


def check_int(x: Any, name: str, *, minimum: int | None = None) -> int:
    """An integer (not bool), optionally at least ``minimum``."""
    if isinstance(x, bool | np.bool_) or not isinstance(x, numbers.Integral | np.integer):
        raise ValueError(f"{name} must be an integer, got {x!r}")
    if minimum is not None and x < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {x!r}")
    return int(x)


def check_rng(rng: Any, name: str = "rng") -> np.random.Generator:
    """A ``numpy.random.Generator`` (seed it yourself: ``numpy.random.default_rng(seed)``)."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"{name} must be a numpy.random.Generator, got {type(rng).__name__}")
    return rng


def check_domain(domain: Any, name: str = "domain", *, finite: bool = False) -> tuple[float, float]:
    """A pair (lo, hi) of reals with lo < hi; infinite ends allowed unless ``finite``."""
    try:
        lo, hi = domain
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (lo, hi) with lo < hi, got {domain!r}") from None
    check = check_finite if finite else check_real
    lo, hi = check(lo, f"{name}[0]"), check(hi, f"{name}[1]")
    if not lo < hi:
        raise ValueError(f"{name} must be a pair (lo, hi) with lo < hi, got ({lo!r}, {hi!r})")
    return lo, hi


def check_data(
    data: Any,
    name: str = "data",
    *,
    domain: tuple[float, float] | None = None,
    allow_empty: bool = False,
) -> np.ndarray:
    """A 1-D array of finite floats, non-empty unless ``allow_empty``, inside ``domain`` if given.

    Returns a new float64 array (the caller's array is never modified).
    """
    if isinstance(data, str | bytes):
        raise ValueError(f"{name} must be a 1-D array of finite numbers, got a string")
    try:
        arr = np.array(data, dtype=float, copy=True)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a 1-D array of finite numbers, got {data!r:.80}"
        ) from None
    raw = np.asarray(data) if not isinstance(data, np.ndarray) else data
    if raw.dtype == bool:
        raise ValueError(f"{name} must be a 1-D array of finite numbers, got booleans")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of finite numbers, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} must be non-empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain finite numbers only (no NaN or inf)")
    if domain is not None and arr.size:
        lo, hi = domain
        if arr.min() < lo or arr.max() > hi:
            raise ValueError(
                f"{name} must lie inside the domain [{lo}, {hi}], got values in "
                f"[{arr.min()}, {arr.max()}]"
            )
    return arr


def check_fraction(
    x: Any, name: str, *, positive: bool = False, nonnegative: bool = False
) -> Fraction:
    """An exact rational (int or Fraction; floats are converted exactly)."""
    if isinstance(x, bool | np.bool_):
        raise ValueError(f"{name} must be a rational number, got {x!r}")
    if isinstance(x, Fraction | numbers.Integral | np.integer):
        value = Fraction(int(x)) if isinstance(x, np.integer) else Fraction(x)
    elif isinstance(x, float | np.floating) and math.isfinite(float(x)):
        value = Fraction(float(x))
    else:
        raise ValueError(
            f"{name} must be a rational number (int, Fraction or finite float), got {x!r}"
        )
    if positive and value <= 0:
        raise ValueError(f"{name} must be > 0, got {value}")
    if nonnegative and value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")
    return value
