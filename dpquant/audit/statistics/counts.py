"""Counts of an event, checked, and the confidence bounds built on them: shared by the ε bound
(:mod:`.bounds`) and the bounds in every privacy measure (:mod:`.measure_bounds`).

* the checks: every function of those modules refuses a bad argument with
  :class:`dpquant.errors.ParameterError` naming it (a ``ValueError``; shapes that do not broadcast
  are a plain ``ValueError`` naming both arguments);
* the one-sided Clopper–Pearson bounds (:func:`cp_lower`, :func:`cp_upper`: the project's one
  Clopper–Pearson, :mod:`dpquant.reference.conformance`, with a level that underflowed to 0
  giving the trivial bound);
* the Wilson score bounds (:func:`wilson`) and the pessimistic masses by which events are ranked
  (:func:`pessimistic_masses`; Wilson, "Probable Inference, the Law of Succession, and Statistical
  Inference", JASA 1927).

The functions that take arrays here take them checked (the callers check them with the
``check_*`` functions first).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from dpquant.errors import ParameterError
from dpquant.reference.conformance import clopper_pearson_lower, clopper_pearson_upper
from dpquant.reference.validation import check_finite, check_probability, check_real_array

MAX_DRAWS_PLANNED = 2**40
"""The largest number of draws (``n``, ``limit``) the functions take, about 1.1e12 (far beyond
any audit's budget: :data:`dpquant.audit.model.limits.MAX_SAMPLES` is 10^10)."""

SELECTION_Z = 2.0
"""The Wilson level at which a selection score takes the selection counts by default."""
MAX_Z = 100.0
"""The largest normal quantile ``z`` of the Wilson bounds (z = 38 is already a level of 1e-300)."""


# -- input checks ------------------------------------------------------------------------------


def check_level(level: Any, name: str = "level") -> float:
    """A level (``alpha``): a real number in (0, 1).

    Args:
        level: The value to check.
        name: The parameter's name, for the error.

    Returns:
        The level, as a float.

    Raises:
        ParameterError: ``level`` is not a real number in (0, 1).
    """
    return check_probability(level, name, open_left=True, open_right=True)


def check_draws(n: Any, name: str) -> np.ndarray:
    """A number (or array) of draws: finite reals in [1, 2^40].

    Args:
        n: The value to check (a number or an array).
        name: The parameter's name, for the error.

    Returns:
        The numbers, as a new float64 array.

    Raises:
        ParameterError: A value is not a real number in [1, 2^40].
    """
    arr = check_real_array(n, name)
    if arr.size and (arr.min() < 1 or arr.max() > MAX_DRAWS_PLANNED):
        raise ParameterError(
            name,
            "must lie in [1, 2^40] (a number of draws)",
            f"values in [{arr.min()!r}, {arr.max()!r}]",
        )
    return arr


def check_broadcastable(a: np.ndarray, b: np.ndarray, aname: str, bname: str) -> None:
    """That two arrays broadcast to one shape.

    Args:
        a: The first array.
        b: The second array.
        aname: The first one's parameter name.
        bname: The second one's.

    Raises:
        ValueError: The shapes do not broadcast (the message names both).
    """
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(
            f"{aname} and {bname} must broadcast to one shape, got {a.shape} and {b.shape}"
        ) from None


def check_counts(
    k: Any, n: Any, kname: str = "k", nname: str = "n"
) -> tuple[np.ndarray, np.ndarray]:
    """Counts k of n draws: finite reals (expected counts p·n may be fractional), 0 <= k <= n,
    n in [1, 2^40], broadcastable.

    Args:
        k: The counts in the event.
        n: The draws.
        kname: ``k``'s parameter name, for the error.
        nname: ``n``'s parameter name.

    Returns:
        (k, n) as new float64 arrays (not broadcast).

    Raises:
        ParameterError: A count or a number of draws is out of range or not a real number.
        ValueError: ``k`` and ``n`` do not broadcast.
    """
    kk = check_real_array(k, kname)
    nn = check_draws(n, nname)
    if kk.size and kk.min() < 0:
        raise ParameterError(kname, "must be >= 0 (a count of draws)", repr(kk.min()))
    check_broadcastable(kk, nn, kname, nname)
    kb, nb = np.broadcast_arrays(kk, nn)
    if kb.size and np.any(kb > nb):
        raise ParameterError(kname, f"must be <= {nname} (a count among {nname} draws)")
    return kk, nn


def check_masses(p: Any, name: str) -> np.ndarray:
    """Probabilities: a number or an array of reals in [0, 1].

    Args:
        p: The value to check.
        name: The parameter's name, for the error.

    Returns:
        The masses, as a new float64 array.

    Raises:
        ParameterError: A value is not a real number in [0, 1].
    """
    arr = check_real_array(p, name)
    if arr.size and (arr.min() < 0 or arr.max() > 1):
        raise ParameterError(name, "must lie in [0, 1]", f"values in [{arr.min()}, {arr.max()}]")
    return arr


def check_nonnegative(x: Any, name: str) -> float:
    """A claimed value (ε, ρ, μ, ...): a finite real >= 0.

    Args:
        x: The value to check.
        name: The parameter's name, for the error.

    Returns:
        The value, as a float.

    Raises:
        ParameterError: ``x`` is not a finite real number >= 0 (NaN, inf, a bool, a string).
    """
    value = check_finite(x, name)
    if value < 0:
        raise ParameterError(name, "must be a finite number >= 0", repr(value))
    return value


def check_single(x: np.ndarray, name: str) -> float:
    """A 0-d array (one number), as a float.

    Args:
        x: A checked array.
        name: The parameter's name, for the error.

    Returns:
        The number.

    Raises:
        ParameterError: ``x`` holds more than one number.
    """
    if x.ndim != 0:
        raise ParameterError(name, "must be a single number", f"shape {x.shape}")
    return float(x)


def check_same_shape(*arrays: np.ndarray) -> tuple[int, ...]:
    """That the counts k0, n0, k1, n1 broadcast to one shape.

    Args:
        *arrays: The four checked arrays.

    Returns:
        The broadcast shape.

    Raises:
        ValueError: They do not broadcast.
    """
    try:
        return np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(str(a.shape) for a in arrays)
        raise ValueError(f"k0, n0, k1 and n1 must broadcast to one shape, got {shapes}") from None


def check_z(z: Any, name: str, what: str = "") -> float:
    """A normal quantile of the Wilson bounds: a real in [0, :data:`MAX_Z`].

    Args:
        z: The value to check.
        name: The parameter's name, for the error.
        what: Words added to the allowed range in the message (``" (a normal quantile)"``).

    Returns:
        ``z``, as a float.

    Raises:
        ParameterError: ``z`` is not a real number in [0, 100].
    """
    value = check_finite(z, name)
    if not 0 <= value <= MAX_Z:
        raise ParameterError(name, f"must lie in [0, {MAX_Z:g}]{what}", repr(value))
    return value


# -- Clopper–Pearson (dpquant.reference.conformance) -------------------------------------------


def cp_lower(k: np.ndarray, n: np.ndarray, level: float) -> np.ndarray:
    """The one-sided Clopper–Pearson lower bound at ``level`` (Clopper and Pearson, Biometrika
    1934); 0 (no bound: sound, powerless) when the level underflowed to 0, as α/2 or α/4 does for
    α below ~1e-323.

    Args:
        k: Checked counts (arrays broadcast with ``n``).
        n: Checked numbers of draws.
        level: The level, in [0, 1).

    Returns:
        The bounds, an array of the broadcast shape.
    """
    if level > 0.0:
        return clopper_pearson_lower(k, n, level)
    return np.zeros(np.broadcast(k, n).shape)


def cp_upper(k: np.ndarray, n: np.ndarray, level: float) -> np.ndarray:
    """The one-sided Clopper–Pearson upper bound at ``level``; 1 when the level underflowed to 0
    (as :func:`cp_lower`).

    Args:
        k: Checked counts (arrays broadcast with ``n``).
        n: Checked numbers of draws.
        level: The level, in [0, 1).

    Returns:
        The bounds, an array of the broadcast shape.
    """
    if level > 0.0:
        return clopper_pearson_upper(k, n, level)
    return np.ones(np.broadcast(k, n).shape)


# -- Wilson bounds and the selection's pessimistic masses -----------------------------------------


def wilson(p: np.ndarray, n: np.ndarray, z: float, upper: bool) -> np.ndarray:
    """The Wilson score bound of a proportion estimated as ``p`` from ``n`` draws (Wilson 1927),
    on checked arguments (:func:`dpquant.audit.statistics.bounds.wilson_bound` checks them).

    Args:
        p: Proportions in [0, 1].
        n: Draws, broadcast with ``p``.
        z: The normal quantile, in [0, 100].
        upper: True for the upper bound.

    Returns:
        The bounds, clipped to [0, 1].
    """
    centre = p + z * z / (2 * n)
    spread = z * np.sqrt(np.maximum(p * (1 - p), 0.0) / n + z * z / (4 * n * n))
    out = (centre + spread if upper else centre - spread) / (1 + z * z / n)
    return np.clip(out, 0.0, 1.0)


def one_sided_z(level: float) -> float:
    """The normal quantile z with Pr[Z > z] = ``level`` (a checked level in (0, 1)), accurate
    down to the smallest levels: √2·erfc⁻¹(2·level), 2·level taken at least 1e-300.

    Args:
        level: The upper tail's mass.

    Returns:
        z.
    """
    return math.sqrt(2.0) * float(special.erfcinv(max(2.0 * level, 1e-300)))


def selection_masses(
    k0: np.ndarray, n0: np.ndarray, k1: np.ndarray, n1: np.ndarray, z_selection: float
) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson lower bound of p0 and upper bound of p1 at ``z_selection`` from selection
    counts (checked arguments): what a selection score takes the masses to be.

    Args:
        k0: Selection counts on D.
        n0: Selection draws on D.
        k1: Selection counts on D'.
        n1: Selection draws on D'.
        z_selection: The selection's Wilson quantile.

    Returns:
        (lower mass on D, upper mass on D').
    """
    lower = wilson(k0 / n0, n0, z_selection, upper=False)
    return lower, wilson(k1 / n1, n1, z_selection, upper=True)


def pessimistic_masses(
    k0: np.ndarray,
    n0: np.ndarray,
    k1: np.ndarray,
    n1: np.ndarray,
    n_eval: int,
    alpha: float,
    z_selection: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The masses a selection score plugs into its bound, on checked arguments: the Wilson lower
    bound of p0 and upper bound of p1 at ``z_selection``, then the Wilson bounds ``n_eval``
    evaluation draws would give at the evaluation's normal quantile (level α/2).

    Args:
        k0: Selection counts on D.
        n0: Selection draws on D.
        k1: Selection counts on D'.
        n1: Selection draws on D'.
        n_eval: Evaluation draws per side.
        alpha: The evaluation's level, in (0, 1).
        z_selection: The selection's Wilson quantile.

    Returns:
        (lower mass on D, upper mass on D'), arrays of the broadcast shape.
    """
    p0, p1 = selection_masses(k0, n0, k1, n1, z_selection)
    z = float(special.ndtri(1.0 - alpha / 2.0))
    if not math.isfinite(z):  # 1 − α/2 rounds to 1 for α below 1e-16: the same quantile
        z = one_sided_z(alpha / 2.0)  # z(1e-300) ≈ 37.0
    lo = wilson(p0, np.asarray(float(n_eval)), z, upper=False)
    hi = wilson(p1, np.asarray(float(n_eval)), z, upper=True)
    return lo, hi


__all__ = [
    "MAX_DRAWS_PLANNED",
    "MAX_Z",
    "SELECTION_Z",
    "check_broadcastable",
    "check_counts",
    "check_draws",
    "check_level",
    "check_masses",
    "check_nonnegative",
    "check_same_shape",
    "check_single",
    "check_z",
    "cp_lower",
    "cp_upper",
    "one_sided_z",
    "pessimistic_masses",
    "selection_masses",
    "wilson",
]
