"""Sampler conformance: does a sampler draw from the exact law it claims?

Two seeded, distribution-free tests whose false-alarm probability for a correct sampler is at most
``alpha`` (default 1e-7, so well below 1e-6):

* :func:`dkw_test` for continuous laws: the Dvoretzky–Kiefer–Wolfowitz–Massart band
  sup_y |F̂_N(y) − F(y)| <= sqrt(ln(2/α) / (2N)).
* :func:`atom_test` for discrete laws: a two-sided Clopper–Pearson interval for every listed atom
  and for "everything else", each at level α/K (Bonferroni over the K categories).

The project's one Clopper–Pearson lives here: :func:`clopper_pearson` (two-sided, one count) on
the vectorised one-sided bounds :func:`clopper_pearson_lower` and :func:`clopper_pearson_upper`,
which the auditor's black-box bounds use too.

:func:`check_sampler` picks the right one for a law of :mod:`dpquant.reference.distributions`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from dpquant.errors import ParameterError
from dpquant.reference.distributions import DiscreteLaw, GridLaw, PiecewiseLogLinear, ProductLaw
from dpquant.reference.validation import check_int, check_probability, check_real_array

DEFAULT_ALPHA = 1e-7

MAX_TRIALS = 2**53
"""The largest ``n`` of the Clopper–Pearson bounds (counts stay exact as floats)."""


@dataclass(frozen=True)
class ConformanceResult:
    """Outcome of one conformance test.

    Attributes:
        passed: The draws conform at level ``alpha``.
        test: ``"dkw"``, ``"atoms"``, or ``"product[<test>]"`` for a product or grid law (its
            worst coordinate's test).
        statistic: The test's statistic.
        threshold: Its bound at level ``alpha``.
        alpha: The test's level.
        samples: The draws tested.
        detail: One sentence on the outcome.
    """

    passed: bool
    test: str
    statistic: float
    threshold: float
    alpha: float
    samples: int
    detail: str = ""

    def assert_ok(self) -> None:
        if not self.passed:
            raise AssertionError(
                f"{self.test} conformance failed: statistic {self.statistic:.6g} > threshold "
                f"{self.threshold:.6g} (N = {self.samples}, alpha = {self.alpha:g}). {self.detail}"
            )


def _alpha(alpha: Any) -> float:
    return check_probability(alpha, "alpha", open_left=True, open_right=True)


def _numeric_samples(
    samples: Any, name: str = "samples", ndim: int = 1, ctx: str = "", width: int | None = None
) -> np.ndarray:
    """Draws of a real-valued sampler as a float array of ``ndim`` dimensions (a 1-D array of
    shape (n, 1) is flattened). Non-numbers (strings, booleans, complex numbers, None, objects)
    and ragged sequences are refused; NaN and infinite draws are kept: a sampler that emits them
    does not conform, and the tests report it as a failure."""
    what = "an array of real numbers (the sampler's draws)"
    if isinstance(samples, np.ndarray):
        raw = samples
    elif isinstance(samples, list | tuple | range):
        try:
            raw = np.array(samples, dtype=object)
        except ValueError:
            raise ParameterError(name, f"must be {what}", "ragged nested sequences") from None
    else:
        raise ParameterError(name, f"must be {what}", type(samples).__name__)
    kind = raw.dtype.kind
    if kind == "O":
        for t in {type(v) for v in raw.ravel().tolist()}:
            if issubclass(t, bool | np.bool_) or not issubclass(
                t, numbers.Real | np.integer | np.floating
            ):
                raise ParameterError(name, f"must be {what}", f"values of type {t.__name__}")
    elif kind not in "iuf":
        raise ParameterError(name, f"must be {what}", f"dtype {raw.dtype}")
    try:
        with np.errstate(over="ignore"):
            arr = np.asarray(raw, dtype=np.float64)  # no copy for a float64 array
    except (OverflowError, TypeError, ValueError):
        raise ParameterError(name, "must hold real numbers that fit a float64") from None
    if ndim == 1 and arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != ndim:
        shape = "(n,)" if ndim == 1 else f"(n, {width or 'k'})"
        raise ParameterError(name, f"must have shape {shape}{ctx}", f"shape {arr.shape}")
    if width is not None and arr.shape[1] != width:
        raise ParameterError(name, f"must have shape (n, {width}){ctx}", f"shape {arr.shape}")
    if arr.shape[0] == 0:
        raise ParameterError(name, "must be non-empty")
    return arr


def _callable_cdf(cdf: Any) -> Callable[[np.ndarray], np.ndarray]:
    if not callable(cdf):
        raise ParameterError("cdf", "must be a callable cdf(y)", type(cdf).__name__)
    return cdf


def _cdf_values(cdf: Callable[[np.ndarray], np.ndarray], x: np.ndarray) -> np.ndarray:
    try:
        f = np.asarray(cdf(x), dtype=float)
    except (TypeError, ValueError) as exc:
        raise ParameterError("cdf", f"must map an array of reals to probabilities: {exc}") from None
    if f.shape != x.shape:
        raise ParameterError("cdf", f"must return one value per point: shape {x.shape}", f.shape)
    if np.isnan(f).any() or f.min() < 0 or f.max() > 1:
        raise ParameterError("cdf", "must return probabilities in [0, 1] (no NaN)")
    return f


def dkw_threshold(n: int, alpha: float) -> float:
    """Half-width of the DKW–Massart band.

    Args:
        n: The draws, an int >= 1.
        alpha: The level, in (0, 1).

    Returns:
        t with P(sup|F̂_n − F| > t) <= 2 exp(−2 n t²) = alpha.
    """
    n = check_int(n, "n", minimum=1, maximum=MAX_TRIALS)
    alpha = _alpha(alpha)
    return math.sqrt(math.log(2.0 / alpha) / (2.0 * n))


def ks_statistic(samples: Any, cdf: Callable[[np.ndarray], np.ndarray]) -> tuple[float, float]:
    """The Kolmogorov–Smirnov distance of draws to a continuous CDF.

    Args:
        samples: A non-empty 1-D array of finite reals.
        cdf: A callable returning probabilities.

    Returns:
        sup_y |F̂_N(y) − F(y)|, and the y where it is reached.
    """
    cdf = _callable_cdf(cdf)
    x = np.sort(_numeric_samples(samples))
    if not np.all(np.isfinite(x)):
        raise ParameterError("samples", "must be finite (no NaN or inf)")
    n = len(x)
    f = _cdf_values(cdf, x)
    upper = np.arange(1, n + 1) / n - f
    lower = f - np.arange(0, n) / n
    k_up, k_lo = int(np.argmax(upper)), int(np.argmax(lower))
    if upper[k_up] >= lower[k_lo]:
        return float(upper[k_up]), float(x[k_up])
    return float(lower[k_lo]), float(x[k_lo])


def dkw_test(
    samples: Any, cdf: Callable[[np.ndarray], np.ndarray], alpha: float = DEFAULT_ALPHA
) -> ConformanceResult:
    """DKW band test of draws against a continuous CDF (false alarm <= ``alpha``).

    Args:
        samples: A non-empty 1-D array of reals (NaN or infinite draws make the test fail: such
            a sampler does not conform).
        cdf: A callable returning probabilities.
        alpha: The level, in (0, 1).

    Returns:
        The outcome.
    """
    alpha = _alpha(alpha)
    cdf = _callable_cdf(cdf)
    samples = _numeric_samples(samples)
    if not np.all(np.isfinite(samples)):
        return ConformanceResult(
            False, "dkw", math.inf, 0.0, alpha, samples.size, "non-finite samples"
        )
    stat, where = ks_statistic(samples, cdf)
    thr = dkw_threshold(samples.size, alpha)
    return ConformanceResult(
        stat <= thr, "dkw", stat, thr, alpha, samples.size, f"largest gap at y = {where!r}"
    )


def _counts(k: Any, n: Any) -> tuple[np.ndarray, np.ndarray]:
    """Counts k of n trials: real numbers (expected counts n·p may be fractional), arrays
    broadcast, 0 <= k <= n and 1 <= n <= :data:`MAX_TRIALS`."""
    k = check_real_array(k, "k")
    n = check_real_array(n, "n")
    if n.size and (n.min() < 1 or n.max() > MAX_TRIALS):
        raise ParameterError(
            "n",
            "must lie in [1, 2^53] (a number of trials)",
            f"values in [{n.min()!r}, {n.max()!r}]",
        )
    if k.size and k.min() < 0:
        raise ParameterError("k", "must be >= 0 (a count of trials)", repr(k.min()))
    try:
        kb, nb = np.broadcast_arrays(k, n)
    except ValueError:
        raise ValueError(f"k and n must broadcast to one shape, got {k.shape} and {n.shape}") from None
    if kb.size and np.any(kb > nb):
        raise ParameterError("k", "must be <= n (a count among n trials)")
    return kb, nb


def clopper_pearson_lower(k: Any, n: Any, level: float) -> np.ndarray:
    """One-sided Clopper–Pearson lower bound of a binomial proportion p from k successes in n
    trials: P_p(bound > p) <= ``level`` for every p; 0 when k = 0.

    The bound is the ``level`` quantile of Beta(k, n − k + 1) (``betaincinv``, accurate for any
    n <= 2^53; where it gives NaN, at levels far below 1e-200, a bisection on log x).

    Args:
        k: Successes, 0 <= k <= n: counts, arrays broadcast (real counts allowed: an expected
            count n·p gives the bound that count would give).
        n: Trials, 1 <= n <= :data:`MAX_TRIALS`, likewise.
        level: The level, in (0, 1).

    Returns:
        The bounds, an array of the broadcast shape (0-d for scalars).
    """
    k, n = _counts(k, n)
    return _lower(k, n, check_probability(level, "level", open_left=True, open_right=True))


def _lower(k: np.ndarray, n: np.ndarray, level: float) -> np.ndarray:
    out = _beta_quantile(np.where(k > 0, k, 1.0), n - k + 1.0, level)
    return np.where(k > 0, out, 0.0)


_LOG_SMALLEST = math.log(5e-324)  # the smallest positive double
_BISECTION_STEPS = 64  # halvings of [log 5e-324, 0]: log x to 745/2^64 ≈ 4e-17


def _beta_quantile(a: np.ndarray, b: np.ndarray, level: float) -> np.ndarray:
    """x with I_x(a, b) = ``level``: scipy's ``betaincinv``, and where it gives NaN (levels far
    below 1e-200 at some shapes) a bisection on log x with the forward ``betainc``, which stays
    accurate there."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    with np.errstate(invalid="ignore"):
        out = np.array(special.betaincinv(a, b, level), dtype=float, ndmin=1)
    bad = ~np.isfinite(out)
    if bad.any():
        fa, fb = np.atleast_1d(a)[bad], np.atleast_1d(b)[bad]
        lo, hi = np.full(fa.shape, _LOG_SMALLEST), np.zeros(fa.shape)
        for _ in range(_BISECTION_STEPS):
            mid = (lo + hi) / 2
            below = special.betainc(fa, fb, np.exp(mid)) < level
            lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
        out[bad] = np.exp((lo + hi) / 2)
    return out.reshape(a.shape)


def clopper_pearson_upper(k: Any, n: Any, level: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper bound of a binomial proportion p from k successes in n
    trials: P_p(bound < p) <= ``level`` for every p; 1 when k = n.

    The bound solves 1 − I_x(k + 1, n − k) = ``level`` directly (``betainccinv``, no 1 − x
    cancellation), so a tiny bound keeps its digits at any n <= 2^53; where scipy gives NaN (levels
    far below 1e-200, bounds within 1e-16 of 1) it is 1 − y with I_y(n − k, k + 1) = ``level``.

    Args:
        k: Successes, as for :func:`clopper_pearson_lower`.
        n: Trials, likewise.
        level: The level, in (0, 1).

    Returns:
        The bounds, an array of the broadcast shape (0-d for scalars).
    """
    k, n = _counts(k, n)
    return _upper(k, n, check_probability(level, "level", open_left=True, open_right=True))


def _upper(k: np.ndarray, n: np.ndarray, level: float) -> np.ndarray:
    a, b = k + 1.0, np.where(k < n, n - k, 1.0)
    with np.errstate(invalid="ignore"):
        out = np.asarray(special.betainccinv(a, b, level), dtype=float)
    bad = ~np.isfinite(out)
    if bad.any():  # 1 − I_x(a, b) = I_{1−x}(b, a)
        out = np.where(bad, 1.0 - _beta_quantile(b, a, level), out)
    return np.where(k < n, out, 1.0)


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval for a binomial proportion at level 1 − alpha.

    Args:
        k: Successes, an int with 0 <= k <= n.
        n: Trials, an int with 1 <= n <= :data:`MAX_TRIALS`.
        alpha: The level, in (0, 1).

    Returns:
        The one-sided bounds :func:`clopper_pearson_lower` and :func:`clopper_pearson_upper`,
            each at level alpha/2.
    """
    n = check_int(n, "n", minimum=1, maximum=MAX_TRIALS)
    k = check_int(k, "k", minimum=0, maximum=n)
    alpha = _alpha(alpha)
    counts, trials = np.array(float(k)), np.array(float(n))
    return float(_lower(counts, trials, alpha / 2)), float(_upper(counts, trials, alpha / 2))


def _label_samples(samples: Any, ctx: str = "") -> list[Hashable]:
    """Draws of a sampler with labelled (or numeric) atoms, as a list of hashable keys."""
    if isinstance(samples, np.ndarray):
        arr = samples
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = arr[:, 0]
        if arr.ndim != 1:
            raise ParameterError("samples", f"must have shape (n,){ctx}", f"shape {samples.shape}")
        values = arr.tolist()
    elif isinstance(samples, list | tuple | range):
        values = list(samples)
    else:
        raise ParameterError("samples", "must be a sequence of draws", type(samples).__name__)
    if not values:
        raise ParameterError("samples", "must be non-empty")
    keys = []
    for v in values:
        key = v.item() if isinstance(v, np.generic) else v
        try:
            hash(key)
        except TypeError:
            raise ParameterError(
                "samples",
                f"must hold atoms (numbers or hashable labels){ctx}",
                f"a {type(v).__name__}",
            ) from None
        keys.append(key)
    return keys


def _check_probabilities(probabilities: Any) -> tuple[list[Hashable], np.ndarray]:
    if not isinstance(probabilities, Mapping):
        raise ParameterError(
            "probabilities",
            "must be a mapping atom -> probability",
            type(probabilities).__name__,
        )
    atoms, probs = [], []
    for atom, p in probabilities.items():
        key = atom.item() if isinstance(atom, np.generic) else atom
        if isinstance(key, float) and math.isnan(key):
            raise ParameterError("probabilities", "must not have NaN as an atom")
        if isinstance(p, bool | np.bool_) or not isinstance(
            p, numbers.Real | np.integer | np.floating
        ):
            raise ValueError(f"probabilities[{atom!r}] must be a real number, got {p!r:.80}")
        try:
            value = float(p)
        except OverflowError:
            value = math.inf
        if not 0.0 <= value <= 1.0:  # also refuses NaN
            raise ValueError(f"probabilities[{atom!r}] must lie in [0, 1], got {value!r}")
        atoms.append(key)
        probs.append(value)
    arr = np.array(probs, dtype=float)
    if arr.sum() > 1 + 1e-12:
        raise ParameterError("probabilities", "must sum to at most 1", repr(arr.sum()))
    return atoms, arr


def atom_test(
    samples: Any, probabilities: Mapping[Hashable, float], alpha: float = DEFAULT_ALPHA
) -> ConformanceResult:
    """Per-atom Clopper–Pearson test with Bonferroni over the atoms and "other".

    Args:
        samples: A non-empty 1-D sequence of draws.
        probabilities: Maps atoms to their exact probabilities (each in [0, 1], NaN refused,
            sum <= 1); the rest of the mass (1 − Σ) is the category "other", which collects
            every sample not among the listed atoms (a NaN draw included).
        alpha: The level, in (0, 1).

    Returns:
        The outcome.
    """
    alpha = _alpha(alpha)
    atoms, probs = _check_probabilities(probabilities)
    counts: dict[Hashable, int] = {}
    if isinstance(samples, np.ndarray) and samples.dtype.kind in "iuf":
        flat = samples[:, 0] if samples.ndim == 2 and samples.shape[1] == 1 else samples
        if flat.ndim != 1:
            raise ParameterError("samples", "must have shape (n,)", f"shape {samples.shape}")
        if flat.size == 0:
            raise ParameterError("samples", "must be non-empty")
        n = flat.size
        values, freq = np.unique(flat, return_counts=True)  # vectorised count of numbers
        counts = {v: int(c) for v, c in zip(values.tolist(), freq.tolist(), strict=True)}
    else:
        keys = _label_samples(samples)
        n = len(keys)
        for key in keys:
            counts[key] = counts.get(key, 0) + 1
    listed = set(atoms)
    observed = [counts.get(a, 0) for a in atoms]
    other_count = n - sum(observed)
    other_prob = max(0.0, 1.0 - float(probs.sum()))
    cats = [*zip(atoms, observed, probs, strict=True), ("<other>", other_count, other_prob)]
    level = alpha / len(cats)
    worst, worst_detail = 0.0, ""
    passed = True
    for atom, k, p in cats:
        lo, hi = clopper_pearson(k, n, level)
        miss = max(lo - p, p - hi, 0.0)
        if miss > 0:
            passed = False
            if miss > worst:
                worst, worst_detail = (
                    miss,
                    f"atom {atom!r}: count {k}/{n}, exact p = {p:.6g}, CI [{lo:.6g}, {hi:.6g}]",
                )
    unexpected = [key for key in counts if key not in listed]
    detail = worst_detail or f"{len(cats)} categories, {len(unexpected)} unlisted values seen"
    return ConformanceResult(passed, "clopper-pearson", worst, 0.0, alpha, n, detail)


def check_sampler(
    law: DiscreteLaw | PiecewiseLogLinear | ProductLaw | GridLaw,
    samples: Any,
    alpha: float = DEFAULT_ALPHA,
) -> ConformanceResult:
    """Conformance of draws to an exact law: DKW for densities, Clopper–Pearson for atoms; for a
    product law or a grid law, each coordinate's marginal at level α/k (Bonferroni; the joint
    law beyond the marginals is not tested).

    Args:
        law: A law of :mod:`dpquant.reference.distributions`.
        samples: The draws: shape (n,), or (n, k) for a law on R^k; numbers for a law with
            numeric atoms or a density (NaN and infinite draws fail the test).
        alpha: The level, in (0, 1).

    Returns:
        The outcome.

    Raises:
        ValueError: Anything else.
    """
    alpha = _alpha(alpha)
    ctx = f" for law, a {type(law).__name__}"
    if isinstance(law, ProductLaw | GridLaw):
        k = len(law)
        samples = _numeric_samples(samples, ndim=2, ctx=f"{ctx} on R^{k}", width=k)
        marginals = (
            law.components if isinstance(law, ProductLaw) else [law.marginal(i) for i in range(k)]
        )
        results = [check_sampler(c, samples[:, i], alpha / k) for i, c in enumerate(marginals)]
        worst = max(range(k), key=lambda i: (not results[i].passed, results[i].statistic))
        r = results[worst]
        return ConformanceResult(
            all(x.passed for x in results),
            f"product[{r.test}]",
            r.statistic,
            r.threshold,
            alpha,
            r.samples,
            f"coordinate {worst}: {r.detail}",
        )
    if isinstance(law, PiecewiseLogLinear):
        return dkw_test(_numeric_samples(samples, ctx=ctx), law.cdf, alpha)
    if isinstance(law, DiscreteLaw):
        if not law.numeric:
            keys = _label_samples(samples, ctx)
            return atom_test(keys, dict(zip(law.support, law.probabilities, strict=True)), alpha)
        samples = _numeric_samples(samples, ctx=ctx)
        # keyed by the float draws (two atoms may share a float)
        probs: dict[Hashable, float] = {}
        for atom, p in zip(law.float_support.tolist(), law.probabilities.tolist(), strict=True):
            probs[atom] = probs.get(atom, 0.0) + p
        return atom_test(samples, probs, alpha)
    raise ParameterError(
        "law",
        "must be a DiscreteLaw, PiecewiseLogLinear, ProductLaw or GridLaw",
        type(law).__name__,
    )


__all__ = [
    "DEFAULT_ALPHA",
    "MAX_TRIALS",
    "ConformanceResult",
    "atom_test",
    "check_sampler",
    "clopper_pearson",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "dkw_test",
    "dkw_threshold",
    "ks_statistic",
]
