"""The data sets of aamand25's experiments (Sec. 5 "Data Generation", App. I).

Both generators reproduce the authors' arrays bit for bit: they draw from numpy's legacy
``RandomState(seed)`` in the same order as the authors' ``np.random.seed(42)`` scripts, so with the
default seed 42 the realised medians and ranges are the authors' (Pareto n = 2500: median 1198;
uniform B = 10³: data 102..935, median 505; ``notes/aamand25.md``, "Reproduction").

* **"Pareto/income"**: ``round(2000·X)`` with X ~ Lomax(1.5) (numpy's ``pareto`` is the Lomax, or
  Pareto II, law: CDF 1 − (1 + x)^{−1.5} for x >= 0), clipped to the authors' 0-based domain
  {0, ..., B − 1}. The paper calls it a density ∝ 1/x^{γ+1}, γ = 1.5, "multiplicative factor
  2000".
* **"Uniform/skewed"**: l ~ U{0..B/2 − 1}, r ~ U{B/2..B − 1}, then x ~ U{l..r} i.i.d. The paper says
  "a random interval [l, r], 1 <= l <= r <= B"; the authors' code draws l < B/2 <= r.

The protocols of :mod:`dpquant.reference.distributed_quantiles` take values in [B] = {1, ..., B}:
:func:`to_coins` shifts the authors' 0-based values by +1, and every metric of
:mod:`dpquant.studies.aamand25` is computed in that shifted domain (the authors' coin v is
our coin v + 1, so every CDF value and every success/error is unchanged by the shift).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles import (
    MAX_B,
    check_domain_size,
    check_integers,
    empirical_cdf,
)
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.validation import (
    MAX_DRAWS,
    check_choice,
    check_data,
    check_flag,
    check_int,
    check_positive,
    check_real,
)
from dpquant.studies.harness import check_seed

AUTHORS_SEED = 42
LOMAX_SHAPE = 1.5
LOMAX_SCALE = 2000.0
DATASETS = ("pareto", "uniform")


def check_n(n: Any, name: str = "n") -> int:
    """A number of users: an integer in [1, MAX_DRAWS] (one generated value each)."""
    return check_int(n, name, minimum=1, maximum=MAX_DRAWS)


# --------------------------------------------------------------------------------------------
# generators
# --------------------------------------------------------------------------------------------


def pareto_values(
    n: int,
    B: int,
    *,
    seed: int = AUTHORS_SEED,
    shape: float = LOMAX_SHAPE,
    scale: float = LOMAX_SCALE,
) -> np.ndarray:
    """The authors' "Pareto/income" data in their 0-based domain {0..B−1} (Sec. 5).

    ``clip(round(scale·X), 0, B − 1)`` with X_1..X_n ~ Lomax(shape) drawn by
    ``RandomState(seed).pareto(shape, n)`` (``np.round`` rounds half to even, as theirs).
    """
    n, B, seed = check_n(n), check_domain_size(B), check_seed(seed)
    shape, scale = check_positive(shape, "shape"), check_positive(scale, "scale")
    with np.errstate(over="ignore"):  # a draw beyond the float range is clipped to B − 1 below
        draws = np.random.RandomState(seed).pareto(shape, n) * scale
    # clip before the int cast (same result for finite draws; a huge shape·scale tail is B − 1)
    return np.minimum(np.round(np.minimum(draws, B - 1)).astype(np.int64), B - 1)


def skewed_uniform_sample(
    n: int, B: int, *, seed: int = AUTHORS_SEED
) -> tuple[np.ndarray, int, int]:
    """The authors' "uniform/skewed" data (App. I): (values in {0..B−1}, l, r).

    l ~ U{0..⌊B/2⌋ − 1}, r ~ U{⌊B/2⌋..B − 1}, then n i.i.d. values ~ U{l..r}, drawn in this order
    from ``RandomState(seed)`` (the authors' ``np.random.choice(range(...))`` draws the same
    integers as ``randint`` on the same range).
    """
    n, B, seed = check_n(n), check_domain_size(B), check_seed(seed)
    rs = np.random.RandomState(seed)
    half = B // 2
    left = int(rs.randint(0, half))
    right = int(rs.randint(half, B))
    values = rs.randint(left, right + 1, size=n).astype(np.int64)
    return values, left, right


def to_coins(values: np.ndarray) -> np.ndarray:
    """The authors' 0-based values {0..B−1} as our users in [B] = {1..B} (shift by +1)."""
    return check_integers(values, "values", minimum=0, maximum=MAX_B - 1) + 1


@functools.lru_cache(maxsize=4)
def _cached_users(kind: str, n: int, B: int, seed: int) -> np.ndarray:
    if kind == "pareto":
        values = pareto_values(n, B, seed=seed)
    else:
        values = skewed_uniform_sample(n, B, seed=seed)[0]
    users = to_coins(values)
    users.flags.writeable = False
    return users


def dataset_users(kind: str, n: int, B: int, seed: int = AUTHORS_SEED) -> np.ndarray:
    """The users (values in [B], read-only, generation order) of one data set of Sec. 5.

    ``kind`` is "pareto" (:func:`pareto_values`) or "uniform" (:func:`skewed_uniform_sample`);
    generated once per (kind, n, B, seed) and process (a small cache), shifted by +1.
    """
    kind = check_choice(kind, "kind", DATASETS)
    return _cached_users(kind, check_n(n), check_domain_size(B), check_seed(seed))


# --------------------------------------------------------------------------------------------
# the population laws behind the generators
# --------------------------------------------------------------------------------------------


def lomax_cdf(x: Any, shape: Any = LOMAX_SHAPE, scale: Any = LOMAX_SCALE) -> mpmath.mpf:
    """P(scale·X <= x) = 1 − (1 + x/scale)^{−shape} for x >= 0, 0 below (mpmath, 60 digits)."""
    shape, scale = check_positive(shape, "shape"), check_positive(scale, "scale")
    with workdps():
        return _lomax_cdf(_exact(x, "x"), shape, scale)


def _exact(x: Any, name: str) -> mpmath.mpf:
    """An mpf as it is (not NaN), any other real through :func:`check_real`, exactly."""
    if isinstance(x, mpmath.mpf):
        if mpmath.isnan(x):
            raise ParameterError(name, "must be a real number", "nan")
        return x
    return to_mpf(check_real(x, name))


def _lomax_cdf(x: mpmath.mpf, shape: float, scale: float) -> mpmath.mpf:
    """:func:`lomax_cdf` on checked arguments (``x`` an exact mpf, inside ``workdps``)."""
    a, s = to_mpf(shape), to_mpf(scale)
    if x <= 0:
        return mpmath.mpf(0)
    if mpmath.isinf(x):
        return mpmath.mpf(1)
    return 1 - (1 + x / s) ** (-a)


def lomax_quantile(u: Any, shape: Any = LOMAX_SHAPE, scale: Any = LOMAX_SCALE) -> mpmath.mpf:
    """Q(u) = scale·((1 − u)^{−1/shape} − 1) for u in [0, 1)."""
    shape, scale = check_positive(shape, "shape"), check_positive(scale, "scale")
    with workdps():
        u = _exact(u, "u")
        if not 0 <= u < 1:
            raise ParameterError("u", "must lie in [0, 1)", u)
        return to_mpf(scale) * ((1 - u) ** (-1 / to_mpf(shape)) - 1)


def lomax_median(shape: Any = LOMAX_SHAPE, scale: Any = LOMAX_SCALE) -> mpmath.mpf:
    """The population median scale·(2^{1/shape} − 1): 2000·(2^{2/3} − 1) = 1174.80."""
    shape, scale = check_positive(shape, "shape"), check_positive(scale, "scale")
    with workdps():
        return to_mpf(scale) * (mpmath.mpf(2) ** (1 / to_mpf(shape)) - 1)


def pareto_data_cdf(v: Any, B: int, shape: Any = LOMAX_SHAPE, scale: Any = LOMAX_SCALE) -> Any:
    """P(clip(round(scale·X), 0, B−1) <= v) for integer v (the law of one "Pareto" value).

    round(scale·X) <= v iff scale·X < v + 1/2 (ties have probability 0), so the CDF is
    lomax_cdf(v + 1/2) for 0 <= v < B − 1, 0 below 0 and 1 from B − 1 on.
    """
    B = check_domain_size(B)
    v = check_real(v, "v")
    shape, scale = check_positive(shape, "shape"), check_positive(scale, "scale")
    with workdps():
        if v < 0:
            return mpmath.mpf(0)
        if v >= B - 1:
            return mpmath.mpf(1)
        return _lomax_cdf(mpmath.mpf(math.floor(v)) + mpmath.mpf(1) / 2, shape, scale)


def pareto_clip_probability(
    B: int, shape: Any = LOMAX_SHAPE, scale: Any = LOMAX_SCALE
) -> mpmath.mpf:
    """P(a value is clipped to B − 1) = P(scale·X >= B − 3/2) = (1 + (B − 1.5)/scale)^{−shape}.

    0.0050963 for B = 4⁸ and 0.000659 for B = 4⁹ (``notes/aamand25.md``, erratum 9; this
    includes the values that round to B − 1 exactly, as the clipped atom at B − 1 does).
    """
    B = check_domain_size(B)
    shape, scale = check_positive(shape, "shape"), check_positive(scale, "scale")
    with workdps():
        return 1 - _lomax_cdf(mpmath.mpf(B) - mpmath.mpf(3) / 2, shape, scale)


def uniform_data_cdf(v: Any, left: int, right: int) -> float:
    """F(v) = (v − l + 1)/(r − l + 1) clipped to [0, 1]: the CDF of U{l..r} at integer v."""
    left = check_int(left, "left", minimum=-MAX_B, maximum=MAX_B)
    right = check_int(right, "right", minimum=-MAX_B, maximum=MAX_B)
    if right < left:
        raise ParameterError("right", "must be >= left", f"l = {left}, r = {right}")
    v = check_real(v, "v")
    if v < left:
        return 0.0
    if v >= right:
        return 1.0
    return min(1.0, max(0.0, (math.floor(v) - left + 1) / (right - left + 1)))


# --------------------------------------------------------------------------------------------
# the authors' "true median" (Sec. 5, "Absolute quantile error")
# --------------------------------------------------------------------------------------------


def authors_true_median(users: np.ndarray, *, inclusive: bool) -> int:
    """The authors' reference coin m of the absolute quantile error |F(m̃) − F(m)| (Sec. 5).

    Their data scripts sort the distinct data values ("keys", with a sentinel key 0 at CDF 0)
    and take the key *before* the first key whose CDF crosses ½: "first key with F >= ½" for the
    Pareto data (``inclusive=False``), "first key with F > ½" for the uniform data
    (``inclusive=True``). So m is the largest data value with F(m) < ½ (resp. <= ½): the left coin
    of the crossing interval. In our shifted domain the sentinel is coin 0 with F(0) = 0, returned
    when no data value qualifies. (On the six seed-42 Pareto sets no value has F = ½ exactly, so
    the two rules agree there; on the uniform sets some do.)
    """
    inclusive = check_flag(inclusive, "inclusive")
    if not (isinstance(users, np.ndarray) and users.dtype.kind in "iu" and users.ndim == 1):
        users = check_data(users, "users")
    keys = np.unique(users)
    cdf = empirical_cdf(users, keys)
    below = keys[cdf <= 0.5] if inclusive else keys[cdf < 0.5]
    return int(below[-1]) if below.size else 0


__all__ = [
    "AUTHORS_SEED",
    "DATASETS",
    "LOMAX_SCALE",
    "LOMAX_SHAPE",
    "authors_true_median",
    "check_n",
    "check_seed",
    "dataset_users",
    "lomax_cdf",
    "lomax_median",
    "lomax_quantile",
    "pareto_clip_probability",
    "pareto_data_cdf",
    "pareto_values",
    "skewed_uniform_sample",
    "to_coins",
    "uniform_data_cdf",
]
