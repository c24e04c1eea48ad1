"""A catalogue of known-bad quantile mechanisms with exact answers: known-answer tests for the auditor.

Each entry is a small, picklable mechanism (it satisfies :class:`reference.core.Mechanism`) whose
privacy claim is *false*, together with a neighbouring pair on which its exact privacy loss is
known (:class:`CatalogueEntry`). The auditor is never given these witnesses: it must find its own
pairs and events. The catalogue checks it in two ways:

* **power** -- run on a catalogue entry, the auditor should report a violation;
* **soundness** -- its lower bound must never exceed the entry's exact privacy loss
  ``epsilon_exact`` when it is audited on the entry's witness.

A few correct mechanisms (:data:`CONTROLS`) are listed beside them, with their exact loss on the
same witnesses: the auditor must *not* report a violation on those.

Where the output law has a closed form the mechanism offers ``exact(data)`` (a
:class:`~reference.distributions.DiscreteLaw` or
:class:`~reference.distributions.PiecewiseLogLinear` with exact parameters) and its vectorised
sampler is tested against it (``tests/test_catalogue.py``); the others are black-box entries.

Sources of the bugs:

* ``../shared/specs/auditor.md`` §7 (B1, B3, B4, B5, B7, B8): exact values computed there with the
  piecewise formula, re-derived here from scratch (see the tests and each class docstring);
* SmartNoise-SQL issue #572 and diffprivlib issue #107: linear-space exponential-mechanism
  weights underflow and the mechanism raises on some data sets and not on their neighbours;
* Nissim, Raskhodnikova and Smith, "Smooth sensitivity and sampling in private data analysis"
  (STOC 2007, NRS07): the median with Laplace noise scaled to the *local* sensitivity;
* Smith, "Privacy-preserving statistical estimation with optimal convergence rates" (STOC 2011):
  the exponential mechanism over the intervals between clamped data points (the correct version,
  :class:`reference.primitives.exponential_mechanism.ExponentialQuantile`);
* the Google differential-privacy library's quantile tests (data at ±1000, far outside the
  bounds, "to check that bounding is applied correctly") and diffprivlib's ``PrivacyLeakWarning``
  when the bounds are computed from the data;
* Warner (1965) randomized response, with a mis-derived keep probability;
* sequential composition (Dwork and Roth 2014, Thm 3.16) for the multi-quantile release;
* Tzamos, Vlatakis-Gkaragkounis and Zadik (NeurIPS 2020), Algorithm 1 as printed: the restricted
  flattened Laplace on their typical set H is not ε/2-DP (Lemma 3.3 is false; ties at the median
  count on both sides of H's windows), so the shortcut "X ∈ H ⇒ sample Â(X)" loses (ε/4)·Lrn.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import mpmath
import numpy as np

from reference.core import ExactMechanismBase, MechanismBase
from reference.distributions import (
    FLOAT_SAMPLING_TOLERANCE,
    DiscreteLaw,
    PiecewiseLogLinear,
    ProductLaw,
    max_log_ratio,
)
from reference.exact.mp import LazySequence, to_mpf, workdps
from reference.primitives.exponential_mechanism import (
    ExponentialQuantile,
    check_bounds,
    smith_intervals,
)
from reference.primitives.laplace import laplace_law
from reference.primitives.randomized_response import RandomizedResponse
from reference.private_median.mechanism import PrivateMedian
from reference.validation import (
    MAX_FLOAT,
    check_data,
    check_epsilon,
    check_probability,
)

UNIT = (0.0, 1.0)

MAX_QUANTILES = 1000
"""The most quantiles one :class:`MultiQuantileFullBudget` releases (its draws and its exact law
grow with their number)."""

# --------------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------------


def _check_em_fields(mech: Any) -> None:
    """Validate and normalise the (quantile, epsilon, bounds) fields of a frozen dataclass."""
    object.__setattr__(mech, "quantile", check_probability(mech.quantile, "quantile"))
    object.__setattr__(mech, "epsilon", check_epsilon(mech.epsilon))
    object.__setattr__(mech, "bounds", check_bounds(mech.bounds))


def _em_log_weights(epsilon: float, ranks: np.ndarray, target: float) -> np.ndarray:
    """The float log-weights −ε·(|j − t| − min_k |j_k − t|)/2 of the ranks j (non-empty): shifted
    so that the largest is 0, which changes no law; −inf where the product overflows (a weight
    negligible against the largest), so a huge ε never gives −inf − (−inf) = NaN."""
    dist = np.abs(ranks - target)
    with np.errstate(over="ignore"):
        return -0.5 * epsilon * (dist - dist.min())


def _nearest_distance(ranks: np.ndarray, target: Fraction) -> Fraction:
    """min_k |ranks[k] − t| exactly, for sorted distinct integer ranks (non-empty): the exact
    shift of the log-weights, so that the largest exact log-weight is 0 and a huge ε·|j − t|
    never swamps the working precision of the normaliser."""
    i = int(np.searchsorted(ranks, float(target)))
    window = ranks[max(i - 2, 0) : i + 2]
    return min(abs(int(r) - target) for r in window)


def _pick(log_weights: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` indices drawn with probability ∝ exp(log_weights): inverse CDF on weights taken
    relative to the largest (log space, so nothing underflows that matters)."""
    w = np.exp(log_weights - np.max(log_weights))
    cum = np.cumsum(w)
    idx = np.searchsorted(cum, rng.random(size) * cum[-1], side="right")
    return np.minimum(idx, len(w) - 1)


def _float_draws(mech: Any, draw: Callable[[], np.ndarray]) -> np.ndarray:
    """``draw()``: draws from an exact law's float sampler on checked data and parameters. Its
    one refusal (a law that float64 cannot resolve, e.g. an interval narrower than the float
    spacing, where rounding would pile the draws on its ends) is re-raised naming the
    mechanism's parameters and the data, which together define the law."""
    try:
        return draw()
    except ValueError as exc:
        fields = ", ".join(f.name for f in dataclasses.fields(mech))
        raise ValueError(
            f"{type(mech).__name__}: the parameters ({fields}) and the data give a law that "
            f"float64 cannot sample exactly: {exc}"
        ) from None


def _check_resolution(mech: Any, law: PiecewiseLogLinear) -> None:
    """Refuse, like the law's own float sampler, a law whose float draws cannot follow it
    (:meth:`PiecewiseLogLinear.float_sampling_error` above :data:`FLOAT_SAMPLING_TOLERANCE`, e.g.
    an interval narrower than the float spacing, where a uniform point rounds to its ends): the
    catalogue's own samplers draw from the same law independently of its sampler."""
    error = law.float_sampling_error()
    if not error <= FLOAT_SAMPLING_TOLERANCE:
        fields = ", ".join(f.name for f in dataclasses.fields(mech))
        raise ValueError(
            f"{type(mech).__name__}: the parameters ({fields}) and the data give a law that "
            f"float64 cannot sample exactly: rounding would move its CDF by up to {error:.3g} "
            f"> FLOAT_SAMPLING_TOLERANCE = {FLOAT_SAMPLING_TOLERANCE:g}"
        )


def _uniform_in(
    breaks: np.ndarray, idx: np.ndarray, size: int, rng: np.random.Generator
) -> np.ndarray:
    """A uniform point inside [breaks[idx], breaks[idx + 1]] for each index."""
    left, right = breaks[idx], breaks[idx + 1]
    return left + (right - left) * rng.random(size)


def _half_scale(epsilon: float) -> Fraction:
    """ε/2 as an exact rational (the float ε is an exact binary rational)."""
    return Fraction(epsilon) / 2


@dataclass(frozen=True)
class _OneQuantileBug(MechanismBase):
    """Fields and claim shared by the one-quantile entries: q, ε, bounds [a, b]; the claim is
    ε-DP under replace-one; any finite value is valid input (values outside the bounds are
    clamped -- except by :class:`EMNoClamp`, which is the bug, and by the entries whose domain is
    the bounds). The inputs are checked by :class:`reference.core.MechanismBase` like those of
    every other mechanism: the bugs are in the privacy, not in the input checking."""

    quantile: float = 0.5
    epsilon: float = 1.0
    bounds: tuple[float, float] = UNIT

    clamps = True
    allow_empty = True

    def __post_init__(self) -> None:
        _check_em_fields(self)


# --------------------------------------------------------------------------------------------
# B1: the factor 1/2 missing from the exponent
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMNoHalf(_OneQuantileBug, ExactMechanismBase):
    """Smith's exponential mechanism with weights w_j·exp(ε·u_j): the ½ of exp(ε·u_j/(2Δ)) is
    missing (Δ = 1 under replace-one), so the mechanism is only 2ε-DP while it claims ε.

    It is :class:`ExponentialQuantile` with the utility sensitivity set to ½. Exact privacy loss on
    D = (0, .25, .25), D' = (.25, .25, 1) at ε = 1, q = ½ on [0, 1]:
    1 + ln((3e + 1)/(e + 3)) = 1.4706149197… (auditor spec §7 B1); it tends to 2ε as n grows.
    """

    @property
    def em(self) -> ExponentialQuantile:
        """The mis-calibrated exponential mechanism (utility sensitivity ½ instead of 1)."""
        return ExponentialQuantile(
            self.quantile, self.epsilon, self.bounds, adjacency="replace_one", sensitivity=0.5
        )

    def _law(self, data: np.ndarray) -> PiecewiseLogLinear:
        return self.em._law(data)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return _float_draws(self, lambda: self.em._draw(data, size, rng))


# --------------------------------------------------------------------------------------------
# B3: the interval chosen without its width
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMNoWidth(_OneQuantileBug, ExactMechanismBase):
    """The exponential mechanism that forgets the interval width: interval j is chosen with
    probability ∝ exp(ε·u_j/2), u_j = −|j − q·n|, then the output is uniform inside it.

    Only intervals of positive length are candidates (data clamped to ``bounds`` and sorted,
    Smith's intervals [z_j, z_{j+1}] with z_0 = a, z_{n+1} = b). The density on interval j is
    weight_j/width_j, so a narrow interval gets a huge density and the privacy loss is unbounded:
    on D = (.2, .5, .6), D' = (.2, .5, .9) (ε = 1, q = ½, [0, 1]) it is
    ln((.9 − .5)/(.6 − .5)) = ln 4 = 1.386… and on D = (.2, .5, .5 + g) it is ln(0.4/g) for small g
    (3.689 at g = 10⁻², 8.294 at 10⁻⁴, 17.50 at 10⁻⁸; auditor spec §7 B3).
    """

    def _law(self, data: np.ndarray) -> PiecewiseLogLinear:
        """Piecewise-constant density exp(ε·u_j/2)/(Z·width_j) on interval j, exact in mpmath."""
        cut = smith_intervals(data, self.bounds)
        breaks, ranks = cut.breaks, cut.ranks
        widths = np.diff(breaks)
        intercepts = _em_log_weights(self.epsilon, ranks, self.quantile * cut.n) - np.log(widths)
        half, t = _half_scale(self.epsilon), Fraction(self.quantile) * cut.n
        nearest = _nearest_distance(ranks, t)

        def exact_intercept(k: int) -> mpmath.mpf:
            width = Fraction(float(breaks[k + 1])) - Fraction(float(breaks[k]))
            with workdps():
                return to_mpf(-half * (abs(int(ranks[k]) - t) - nearest)) - mpmath.log(
                    to_mpf(width)
                )

        return PiecewiseLogLinear(
            breaks,
            np.zeros(len(ranks)),
            intercepts,
            exact_intercepts=LazySequence(len(ranks), exact_intercept),
        )

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """Pick an interval ∝ exp(ε·u_j/2) (no width), then a uniform point inside it (refused
        where float64 cannot resolve the law: :func:`_check_resolution`)."""
        _check_resolution(self, self._law(data))
        cut = smith_intervals(data, self.bounds)
        log_w = _em_log_weights(self.epsilon, cut.ranks, self.quantile * cut.n)
        return _uniform_in(cut.breaks, _pick(log_w, size, rng), size, rng)


# --------------------------------------------------------------------------------------------
# B4: no clamping
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMNoClamp(_OneQuantileBug, ExactMechanismBase):
    """The exponential mechanism without clamping: the interval ends are sorted({a, b} ∪ D), so a
    data point outside [a, b] stretches the output range.

    Interval j = [z_j, z_{j+1}] of the sorted list z_0 <= … <= z_{n+1} (the n data points and both
    bounds) has utility u_j = −|j − q·n| and weight width_j·exp(ε·u_j/2). On data inside the
    bounds it is the correct EM. On D = (.5, .5), D' = (.5, 1000) (replace-one, ε = 1, [0, 1]) the
    outputs in (1, 1000] are possible only under D': the exact privacy loss is ∞ (auditor spec §7
    B4; the Google library's ±1000 test entries).

    Any finite value is valid input (it is not clamped: that is the bug), and the outputs lie
    anywhere between the smallest and the largest of the data and the bounds, so
    :attr:`output_range` is None (no range fixed in advance). Data whose span with the bounds
    overflows a float are refused.
    """

    clamps = False

    @property
    def domain(self) -> tuple[float, float]:
        """Any finite value: values outside ``bounds`` are kept, not clamped (the bug)."""
        return (-math.inf, math.inf)

    @property
    def output_range(self) -> None:
        """None: the outputs follow the data outside ``bounds`` (the bug)."""
        return None

    def _intervals(self, data: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        full = np.sort(np.concatenate([self.bounds, data]))
        if not math.isfinite(float(full[-1]) - float(full[0])):
            raise ValueError(
                "data: the span of the data and the bounds overflows float64 "
                f"(max - min must be <= {MAX_FLOAT:.4g})"
            )
        ranks = np.flatnonzero(np.diff(full) > 0)
        return np.append(full[ranks], full[-1]), ranks, data.size

    def _law(self, data: np.ndarray) -> PiecewiseLogLinear:
        """Constant density exp(ε·u_j/2)/Z on each interval (exact rational log-weights)."""
        breaks, ranks, n = self._intervals(data)
        half, t = _half_scale(self.epsilon), Fraction(self.quantile) * n
        nearest = _nearest_distance(ranks, t)
        intercepts = _em_log_weights(self.epsilon, ranks, self.quantile * n)
        exact = LazySequence(len(ranks), lambda k: -half * (abs(int(ranks[k]) - t) - nearest))
        return PiecewiseLogLinear(breaks, np.zeros(len(ranks)), intercepts, exact_intercepts=exact)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """Pick an interval ∝ width·exp(ε·u_j/2), then a uniform point inside it (refused where
        float64 cannot resolve the law: :func:`_check_resolution`)."""
        _check_resolution(self, self._law(data))
        breaks, ranks, n = self._intervals(data)
        log_w = np.log(np.diff(breaks)) + _em_log_weights(self.epsilon, ranks, self.quantile * n)
        return _uniform_in(breaks, _pick(log_w, size, rng), size, rng)


# --------------------------------------------------------------------------------------------
# B5: bounds taken from the data
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMDataBounds(_OneQuantileBug, ExactMechanismBase):
    """The exponential mechanism run on the bounds [min(D), max(D)] instead of declared ones.

    ``bounds`` is the declared input domain (data outside it raise ``ValueError``); the mechanism
    ignores it and runs Smith's EM on [min(D), max(D)]. When all data values coincide that interval
    is a point and the mechanism outputs the value itself (its law is then a one-atom
    :class:`DiscreteLaw`). The output range depends on the data, so on D = (.2, .5, .5),
    D' = (.2, .5, .9) (replace-one, ε = 1) the outputs in (.5, .9] are possible only under D': the
    exact privacy loss is ∞ (auditor spec §7 B5). Empty data raise ``ValueError``.
    """

    clamps = False  # the domain is ``bounds``
    allow_empty = False

    def _em(self, data: np.ndarray) -> ExponentialQuantile | None:
        lo, hi = float(data.min()), float(data.max())
        if lo == hi:
            return None
        try:
            return ExponentialQuantile(self.quantile, self.epsilon, (lo, hi), "replace_one")
        except ValueError as exc:  # the bounds come from the data: say so
            raise ValueError(f"data give the bounds [min, max] = [{lo!r}, {hi!r}]: {exc}") from None

    def _law(self, data: np.ndarray) -> PiecewiseLogLinear | DiscreteLaw:
        em = self._em(data)
        if em is None:
            return DiscreteLaw([float(data[0])], [0])
        return em._law(data)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        em = self._em(data)
        if em is None:
            return np.full(size, float(data[0]))
        return _float_draws(self, lambda: em._draw(data, size, rng))


# --------------------------------------------------------------------------------------------
# Exponential mechanism over the data points
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMOutputsDataValue(_OneQuantileBug, ExactMechanismBase):
    """An exponential mechanism over the *data points* instead of the intervals between them:
    rank j = 1..n of the sorted data is chosen with probability ∝ exp(ε·u_j/2), u_j = −|j − q·n|,
    and the data value x_(j) itself is released.

    The output set is the data, so it differs between neighbours: on D = (.25,), D' = (.5,)
    (replace-one, ε = 1) the exact privacy loss is ∞. The domain is ``bounds``; empty data raise
    ``ValueError``, and so does :meth:`exact` on more than :attr:`max_exact_points` points.
    """

    clamps = False  # the domain is ``bounds``
    allow_empty = False
    max_exact_points: ClassVar[int] = 10**5
    """The largest data set :meth:`exact` takes (one mpmath atom per point: seconds at 10⁵)."""

    def _law(self, data: np.ndarray) -> DiscreteLaw:
        """Atoms at the distinct data values, log-weight −ε|j − q·n|/2 summed over their ranks."""
        if data.size > self.max_exact_points:
            raise ValueError(
                f"data: exact() of EMOutputsDataValue builds one exact atom per data point and "
                f"takes at most {self.max_exact_points} points, got {data.size}"
            )
        x = np.sort(data)
        half, t = _half_scale(self.epsilon), Fraction(self.quantile) * x.size
        nearest = _nearest_distance(np.arange(1, x.size + 1), t)
        log_w = [-half * (abs(j - t) - nearest) for j in range(1, x.size + 1)]
        return DiscreteLaw([float(v) for v in x], log_w)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        x = np.sort(data)
        log_w = _em_log_weights(self.epsilon, np.arange(1, x.size + 1), self.quantile * x.size)
        return x[_pick(log_w, size, rng)]


# --------------------------------------------------------------------------------------------
# B7: Laplace noise scaled to the local sensitivity
# --------------------------------------------------------------------------------------------

# The float draws median + Laplace(s) follow the Laplace law up to rounding while the rounding
# atom at the median, of mass about ulp(median)/(2s), stays below 2**-30 (s >= |median|·2**-23),
# the noise is a normal float (s >= 2**-1000), and the sum cannot overflow (numpy's standard
# Laplace draw is below 40 in magnitude: −log of a uniform that is at least 2**-53).
_LAPLACE_RELATIVE_RESOLUTION = 2.0**-23
_LAPLACE_SMALLEST_SCALE = 2.0**-1000
_LAPLACE_LARGEST_DRAW = 64.0


@dataclass(frozen=True)
class MedianLocalSensitivityLaplace(ExactMechanismBase):
    """The median plus Laplace noise scaled to the *local* sensitivity (NRS07's motivating
    example of why local sensitivity is not enough).

    Convention: the released median is x_(m) with m = ⌈n/2⌉ (the lower median for even n); the
    local sensitivity is LS(D) = max(x_(m+1) − x_(m), x_(m) − x_(m−1)) with x_(0) := a and
    x_(n+1) := b (the ends of ``bounds``); the output is x_(m) + Laplace(LS(D)/ε), and exactly
    x_(m) when LS(D) = 0. On D = (0, 0, 0, 0, 1) the output is the atom 0 (LS = 0); on its
    neighbour D' = (0, 0, 0, 1, 1) it is Laplace(0, 1) and never exactly 0: the exact privacy
    loss is ∞ (auditor spec §7 B7).

    On one data set the law is either an atom or a Laplace law, given by :meth:`exact`, so the
    exact mode sees the loss ∞ directly (an atom against a density). The domain is ``bounds``;
    the outputs are unbounded (:attr:`output_range` is None). A noise scale LS(D)/ε that float
    draws cannot follow (below 2⁻²³·|median| or 2⁻¹⁰⁰⁰, or so large that a draw could overflow)
    is refused by ``sample`` and ``exact`` alike with a ``ValueError`` naming ε and the data.
    """

    epsilon: float = 1.0
    bounds: tuple[float, float] = UNIT

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "bounds", check_bounds(self.bounds))

    @property
    def output_range(self) -> None:
        """None: Laplace noise has unbounded support."""
        return None

    def median_and_local_sensitivity(self, data: Any) -> tuple[float, float]:
        """(x_(m), LS(D)) with m = ⌈n/2⌉ and the neighbours beyond the data clamped to the bounds."""
        return self._median_ls(self.check_input(data))

    def _median_ls(self, data: np.ndarray) -> tuple[float, float]:
        x = np.sort(data)
        ext = np.concatenate([[self.bounds[0]], x, [self.bounds[1]]])
        m = (x.size + 1) // 2  # 1-based rank of the (lower) median; ext[m] = x_(m)
        ls = max(ext[m + 1] - ext[m], ext[m] - ext[m - 1])
        return float(ext[m]), float(ls)

    def _median_scale(self, data: np.ndarray) -> tuple[float, float]:
        """(median, LS/ε), LS/ε = 0 for the atom; refused where float draws cannot follow it."""
        median, ls = self._median_ls(data)
        if ls == 0:
            return median, 0.0
        scale = ls / self.epsilon
        if not (
            scale >= max(_LAPLACE_RELATIVE_RESOLUTION * abs(median), _LAPLACE_SMALLEST_SCALE)
            and abs(median) + _LAPLACE_LARGEST_DRAW * scale <= MAX_FLOAT
        ):
            raise ValueError(
                f"epsilon = {self.epsilon!r} and this data set give the noise scale "
                f"LS(D)/epsilon = {scale!r} around the median {median!r}: float draws cannot "
                f"follow that Laplace law (the scale must be >= 2**-23·|median| and >= 2**-1000, "
                f"and |median| + 64·scale <= {MAX_FLOAT:.4g})"
            )
        return median, scale

    def _law(self, data: np.ndarray) -> DiscreteLaw | PiecewiseLogLinear:
        """The output law on ``data``: the atom x_(m) if LS(D) = 0, else Laplace(x_(m), LS/ε)."""
        median, scale = self._median_scale(data)
        if scale == 0:
            return DiscreteLaw([median], [0])
        return laplace_law(median, scale)

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        median, scale = self._median_scale(data)
        if scale == 0:
            return np.full(size, median)
        return median + rng.laplace(0.0, scale, size)


# --------------------------------------------------------------------------------------------
# Linear-space weights that underflow (SmartNoise #572, diffprivlib #107)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMUnderflow(_OneQuantileBug):
    """A naive exponential mechanism: float64 weights width_j·exp(ε·u_j/2), with no shift by the
    largest exponent, normalised by their sum; ``ValueError("no candidate")`` when every weight
    underflows to 0.

    Otherwise it is the correct EM (data clamped to ``bounds``, an interval drawn by the float
    probabilities, a uniform point inside). Whether it raises depends only on the data (and the
    parameters), never on the generator: ``size``, ``rng`` and the data are checked first, like
    every mechanism's, and the exception is the mechanism's output on that data set (an atom for
    the auditor). On D = [0]·n + [1] the only interval of positive length is [0, 1], n − ½ ranks
    from the target (n + 1)/2, so its weight is exp(−ε(n − 1)/4); on the neighbour
    D' = [0]·(n − 1) + [1, 1] it is one rank closer. At ε = 1 the smallest n where D raises and D'
    does not is n = 2982 (the witness): the error is an output atom possible under D only, so the
    exact privacy loss is ∞ (SmartNoise-SQL #572, diffprivlib #107).
    """

    def probabilities(self, data: Any) -> tuple[np.ndarray, np.ndarray]:
        """(z, p): the interval ends z_0..z_{n+1} and the float probabilities of the n + 1
        intervals, computed the naive way; ``ValueError("no candidate")`` if all weights are 0."""
        return self._probabilities(self.check_input(data))

    def _probabilities(self, data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        a, b = self.bounds
        z = np.concatenate([[a], np.sort(np.clip(data, a, b)), [b]])
        j = np.arange(data.size + 1)
        with np.errstate(under="ignore", over="ignore"):
            weights = np.diff(z) * np.exp(self.epsilon * -np.abs(j - self.quantile * data.size) / 2)
        total = weights.sum()
        if not total > 0:
            raise ValueError("no candidate")
        return z, weights / total

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        z, p = self._probabilities(data)
        cum = np.cumsum(p)
        # side="right" never lands on a zero-weight interval (its cumulative sum repeats).
        idx = np.minimum(np.searchsorted(cum, rng.random(size) * cum[-1], side="right"), p.size - 1)
        return _uniform_in(z, idx, size, rng)


# --------------------------------------------------------------------------------------------
# Randomized response with a wrong keep probability
# --------------------------------------------------------------------------------------------


def wrong_keep_probability_mp(epsilon: float) -> mpmath.mpf:
    """The buggy keep probability 1 − e^{−ε}/2, at mpmath precision."""
    with workdps():
        return 1 - mpmath.exp(-to_mpf(check_epsilon(epsilon))) / 2


@dataclass(frozen=True)
class RRWrongFlip(RandomizedResponse):
    """Binary randomized response that keeps the bit with probability 1 − e^{−ε}/2 instead of
    e^ε/(1 + e^ε); claim, domain and inputs are those of :class:`RandomizedResponse`.

    The likelihood ratio of a report is (1 − e^{−ε}/2)/(e^{−ε}/2) = 2e^ε − 1 > e^ε, so the exact
    privacy loss (local DP, data 0 vs 1) is ln(2e^ε − 1) = 1.4899… at ε = 1.
    """

    epsilon: float = 1.0

    def _law(self, data: int) -> DiscreteLaw:
        keep = wrong_keep_probability_mp(self.epsilon)
        with workdps():
            row = [keep, 1 - keep] if data == 0 else [1 - keep, keep]
        return DiscreteLaw.from_probabilities([0, 1], row)

    def _draw(self, data: int, size: int, rng: np.random.Generator) -> np.ndarray:
        keep = 1.0 - math.exp(-self.epsilon) / 2.0
        flip = rng.random(size) >= keep
        return np.where(flip, 1 - data, data).astype(np.int8)


# --------------------------------------------------------------------------------------------
# B8: several quantiles, each with the full budget
# --------------------------------------------------------------------------------------------


def _check_quantiles(quantiles: Any) -> tuple[float, ...]:
    """A non-empty list, tuple, range or 1-D array of at most :data:`MAX_QUANTILES`
    probabilities, as a tuple of floats."""
    what = f"quantiles must be a non-empty sequence of at most {MAX_QUANTILES} numbers in [0, 1]"
    if isinstance(quantiles, np.ndarray):
        if quantiles.ndim != 1:
            raise ValueError(f"{what}, got an array of shape {quantiles.shape}")
        quantiles = quantiles.tolist()
    if not isinstance(quantiles, list | tuple | range):
        raise ValueError(f"{what}, got {type(quantiles).__name__} {quantiles!r:.80}")
    if not 1 <= len(quantiles) <= MAX_QUANTILES:
        raise ValueError(f"{what}, got {len(quantiles)} values")
    return tuple(check_probability(q, f"quantiles[{i}]") for i, q in enumerate(quantiles))


@dataclass(frozen=True)
class MultiQuantileFullBudget(ExactMechanismBase):
    """Several quantiles released together, each by an independent correct EM with the *full* ε
    (the budget is not split), while the claim is ε in total.

    Output: a vector of shape (size, k), one column per quantile (data clamped to ``bounds``, so
    any finite value is valid input). By composition the true loss is at most k·ε; on
    D = (0, .25, .25, .25), D' = (.25, .25, .25, 1) (replace-one, ε = 1, q = .25, .5, .75 on
    [0, 1]) it is exactly 2.15789… (the largest over all neighbouring pairs of size <= 4 on the
    grid {0, .25, .5, .75, 1}; :func:`multi_quantile_exact_epsilon`; auditor spec §7 B8).
    ``quantiles`` holds 1 to :data:`MAX_QUANTILES` values; one call draws at most
    ``max_draws // k`` vectors (k·size numbers).
    """

    epsilon: float = 1.0
    quantiles: tuple[float, ...] = (0.25, 0.5, 0.75)
    bounds: tuple[float, float] = UNIT

    clamps = True
    allow_empty = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "bounds", check_bounds(self.bounds))
        object.__setattr__(self, "quantiles", _check_quantiles(self.quantiles))

    def draw_limit(self, data: Any) -> int:
        """``max_draws // k``: each draw is a vector of k numbers."""
        return max(1, self.max_draws // len(self.quantiles))

    @property
    def components(self) -> tuple[ExponentialQuantile, ...]:
        """The per-quantile mechanisms, each with the full ε."""
        return tuple(
            ExponentialQuantile(q, self.epsilon, self.bounds, adjacency="replace_one")
            for q in self.quantiles
        )

    def _law(self, data: np.ndarray) -> ProductLaw:
        """The joint law: the product of the components' exact laws (independent coordinates)."""
        return ProductLaw([em._law(data) for em in self.components])

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return _float_draws(
            self, lambda: np.column_stack([em._draw(data, size, rng) for em in self.components])
        )


def multi_quantile_exact_epsilon(mech: MultiQuantileFullBudget, d0: Any, d1: Any) -> mpmath.mpf:
    """Exact privacy loss of the joint release on (d0, d1), computed coordinate by coordinate
    (an independent cross-check of ``privacy_loss(mech.exact(d0), mech.exact(d1))``).

    The coordinates are independent, so the log-likelihood ratio of the vector is the sum of the
    coordinates' ratios L_i(y_i), each a function of its own coordinate; the essential sup of such
    a sum over the product law is the sum of the essential sups. Both directions are summed
    separately: ε = max(Σ_i sup L_i, Σ_i sup(−L_i)). This can be smaller than Σ_i privacy_loss_i
    (the sum of the two-sided per-coordinate losses), which is only an upper bound when the
    coordinates' worst directions differ.

    ``mech`` must be a :class:`MultiQuantileFullBudget`; ``d0`` and ``d1`` are data sets under the
    data policy of :func:`reference.validation.check_data` (possibly empty).
    """
    if not isinstance(mech, MultiQuantileFullBudget):
        raise ValueError(f"mech must be a MultiQuantileFullBudget, got {type(mech).__name__}")
    x0 = check_data(d0, "d0", domain=mech.domain, allow_empty=mech.allow_empty)
    x1 = check_data(d1, "d1", domain=mech.domain, allow_empty=mech.allow_empty)
    laws0 = [em._law(x0) for em in mech.components]
    laws1 = [em._law(x1) for em in mech.components]
    with workdps():
        up = mpmath.fsum(max_log_ratio(p, q) for p, q in zip(laws0, laws1, strict=True))
        down = mpmath.fsum(max_log_ratio(q, p) for p, q in zip(laws0, laws1, strict=True))
        return max(up, down)


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CatalogueEntry:
    """A mechanism with a known answer: its exact privacy loss on a neighbouring pair."""

    name: str
    description: str  # one line: what is wrong
    mechanism: Any  # the configured mechanism instance (picklable)
    epsilon_exact: float | None  # exact privacy loss on `witness` (math.inf where supports differ)
    witness: tuple[tuple[float, ...], tuple[float, ...]] | None  # a neighbouring pair achieving it
    source: str  # where the bug comes from


# Exact values, re-derived from scratch by tests/test_catalogue.py:
_EM_NO_HALF_EPS = float(1 + mpmath.log((3 * mpmath.e + 1) / (mpmath.e + 3)))
_EM_NO_WIDTH_EPS = float(
    mpmath.log(to_mpf((Fraction(0.9) - Fraction(0.5)) / (Fraction(0.6) - Fraction(0.5))))
)
_CONTROL_EM_EPS = float(
    mpmath.mpf(0.5) + mpmath.log((3 * mpmath.sqrt(mpmath.e) + 1) / (mpmath.sqrt(mpmath.e) + 3))
)
_RR_WRONG_FLIP_EPS = float(mpmath.log(2 * mpmath.e - 1))
_MULTI_QUANTILE_EPS = 2.157894408761311  # multi_quantile_exact_epsilon on the witness below
_UNDERFLOW_N = 2982  # smallest n with [0]*n + [1] raising while [0]*(n-1) + [1, 1] does not
# tzamos20's printed Algorithm 1 on two neighbours in H (n = 9, C = 1, K = 2): medians −5 and −1/2,
# restricted laws (ε/4)·min{(Ln/3C)|Δm|, Lrn} = (ε/4)·Lrn = 9/8 apart at ε = 1
_TZAMOS20_PAPER_EPS = 9 / 8

CATALOGUE: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        "em_no_half",
        "exponential mechanism with weights w·exp(ε·u): the factor ½ is missing (2ε-DP, claims ε)",
        EMNoHalf(),
        _EM_NO_HALF_EPS,
        ((0.0, 0.25, 0.25), (0.25, 0.25, 1.0)),
        "auditor spec §7 B1",
    ),
    CatalogueEntry(
        "em_no_width",
        "exponential mechanism choosing the interval without its width: unbounded loss",
        EMNoWidth(),
        _EM_NO_WIDTH_EPS,
        ((0.2, 0.5, 0.6), (0.2, 0.5, 0.9)),
        "auditor spec §7 B3",
    ),
    CatalogueEntry(
        "em_no_clamp",
        "exponential mechanism without clamping: an outlier stretches the output range",
        EMNoClamp(),
        math.inf,
        ((0.5, 0.5), (0.5, 1000.0)),
        "auditor spec §7 B4; Google differential-privacy quantile tests (±1000 entries)",
    ),
    CatalogueEntry(
        "em_data_bounds",
        "exponential mechanism on the bounds [min D, max D]: the output range depends on the data",
        EMDataBounds(),
        math.inf,
        ((0.2, 0.5, 0.5), (0.2, 0.5, 0.9)),
        "auditor spec §7 B5; diffprivlib PrivacyLeakWarning (bounds computed from the data)",
    ),
    CatalogueEntry(
        "em_outputs_data_value",
        "exponential mechanism over the data points: it releases a data value",
        EMOutputsDataValue(),
        math.inf,
        ((0.25,), (0.5,)),
        "Smith 2011 (why the EM samples the intervals between the points); catalogue addition",
    ),
    CatalogueEntry(
        "median_local_sensitivity_laplace",
        "median plus Laplace noise scaled to the local sensitivity: an atom when LS = 0",
        MedianLocalSensitivityLaplace(),
        math.inf,
        ((0.0, 0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0, 1.0, 1.0)),
        "auditor spec §7 B7; Nissim, Raskhodnikova, Smith 2007 (NRS07)",
    ),
    CatalogueEntry(
        "em_underflow",
        "exponential mechanism with linear-space float weights: raises on some data only",
        EMUnderflow(),
        math.inf,
        ((0.0,) * _UNDERFLOW_N + (1.0,), (0.0,) * (_UNDERFLOW_N - 1) + (1.0, 1.0)),
        "SmartNoise-SQL #572; diffprivlib #107",
    ),
    CatalogueEntry(
        "rr_wrong_flip",
        "randomized response keeping the bit with probability 1 − e^−ε/2: loss ln(2e^ε − 1)",
        RRWrongFlip(),
        _RR_WRONG_FLIP_EPS,
        ((0.0,), (1.0,)),
        "Warner 1965 randomized response with a mis-derived keep probability; catalogue addition",
    ),
    CatalogueEntry(
        "tzamos20_paper_algorithm_1",
        "tzamos20 Algorithm 1 as printed: the restricted law on the typical set H is not ε/2-DP",
        PrivateMedian(Fraction(1, 2), 1, 5, 1, 1, mode="paper"),
        _TZAMOS20_PAPER_EPS,
        ((-5.0,) * 5 + (-0.5,) * 4, (-5.0,) * 4 + (-0.5,) * 5),
        "tzamos20 Lemma 3.3 / Prop. A.5(b) (spec §6 E1; proofs_checks/test_tzamos20_counterexamples.py)",
    ),
    CatalogueEntry(
        "multi_quantile_full_budget",
        "three quantiles each released with the full ε while the total claim is ε",
        MultiQuantileFullBudget(),
        _MULTI_QUANTILE_EPS,
        ((0.0, 0.25, 0.25, 0.25), (0.25, 0.25, 0.25, 1.0)),
        "auditor spec §7 B8; sequential composition (Dwork and Roth 2014, Thm 3.16)",
    ),
)

CONTROLS: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        "control_em_median",
        "correct exponential mechanism for the median (Smith 2011): no violation",
        ExponentialQuantile(0.5, 1.0, UNIT, adjacency="replace_one"),
        _CONTROL_EM_EPS,
        ((0.0, 0.25, 0.25), (0.25, 0.25, 1.0)),
        "Smith 2011; control for em_no_half",
    ),
    CatalogueEntry(
        "control_randomized_response",
        "correct binary randomized response: loss exactly ε",
        RandomizedResponse(1.0),
        1.0,
        ((0.0,), (1.0,)),
        "Warner 1965; control for rr_wrong_flip",
    ),
)


def catalogue_entry(name: str) -> CatalogueEntry:
    """The entry (of :data:`CATALOGUE` or :data:`CONTROLS`) called ``name`` (a ``str``);
    ``ValueError`` listing the known names otherwise."""
    if isinstance(name, str):
        for entry in CATALOGUE + CONTROLS:
            if entry.name == name:
                return entry
    names = ", ".join(e.name for e in CATALOGUE + CONTROLS)
    raise ValueError(
        f"name must be the name of a catalogue entry, got {name!r:.80} (unknown catalogue "
        f"entry); known entries: {names}"
    )


__all__ = [
    "CATALOGUE",
    "CONTROLS",
    "CatalogueEntry",
    "EMDataBounds",
    "EMNoClamp",
    "EMNoHalf",
    "EMNoWidth",
    "EMOutputsDataValue",
    "EMUnderflow",
    "MAX_QUANTILES",
    "MedianLocalSensitivityLaplace",
    "MultiQuantileFullBudget",
    "RRWrongFlip",
    "catalogue_entry",
    "multi_quantile_exact_epsilon",
    "wrong_keep_probability_mp",
]
