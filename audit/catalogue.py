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

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from reference.core import PrivacyClaim
from reference.distributions import DiscreteLaw, PiecewiseLogLinear, ProductLaw, max_log_ratio
from reference.exact.mp import LazySequence, to_mpf, workdps
from reference.primitives.exponential_mechanism import ExponentialQuantile, smith_intervals
from reference.primitives.laplace import laplace_law
from reference.primitives.randomized_response import RandomizedResponse, check_bit
from reference.private_median.mechanism import PrivateMedian
from reference.validation import (
    check_data,
    check_domain,
    check_epsilon,
    check_probability,
    check_rng,
    check_size,
)

UNIT = (0.0, 1.0)

# --------------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------------


def _check_em_fields(mech: Any) -> None:
    """Validate and normalise the (quantile, epsilon, bounds) fields of a frozen dataclass."""
    object.__setattr__(mech, "quantile", check_probability(mech.quantile, "quantile"))
    object.__setattr__(mech, "epsilon", check_epsilon(mech.epsilon))
    object.__setattr__(mech, "bounds", check_domain(mech.bounds, "bounds", finite=True))


def _pick(log_weights: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` indices drawn with probability ∝ exp(log_weights): inverse CDF on weights taken
    relative to the largest (log space, so nothing underflows that matters)."""
    w = np.exp(log_weights - np.max(log_weights))
    cum = np.cumsum(w)
    idx = np.searchsorted(cum, rng.random(size) * cum[-1], side="right")
    return np.minimum(idx, len(w) - 1)


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
class _OneQuantileBug:
    """Fields and claim shared by the one-quantile entries: q, ε, bounds [a, b]; the claim is
    ε-DP under replace-one; any finite value is valid input (values outside the bounds are
    clamped -- except by :class:`EMNoClamp`, which is the bug)."""

    quantile: float = 0.5
    epsilon: float = 1.0
    bounds: tuple[float, float] = UNIT

    def __post_init__(self) -> None:
        _check_em_fields(self)

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, "replace_one")

    @property
    def domain(self) -> tuple[float, float]:
        return (-math.inf, math.inf)


# --------------------------------------------------------------------------------------------
# B1: the factor 1/2 missing from the exponent
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMNoHalf(_OneQuantileBug):
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

    def exact(self, data: Any) -> PiecewiseLogLinear:
        return self.em.exact(data)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.em.sample(data, size, rng)


# --------------------------------------------------------------------------------------------
# B3: the interval chosen without its width
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMNoWidth(_OneQuantileBug):
    """The exponential mechanism that forgets the interval width: interval j is chosen with
    probability ∝ exp(ε·u_j/2), u_j = −|j − q·n|, then the output is uniform inside it.

    Only intervals of positive length are candidates (data clamped to ``bounds`` and sorted,
    Smith's intervals [z_j, z_{j+1}] with z_0 = a, z_{n+1} = b). The density on interval j is
    weight_j/width_j, so a narrow interval gets a huge density and the privacy loss is unbounded:
    on D = (.2, .5, .6), D' = (.2, .5, .9) (ε = 1, q = ½, [0, 1]) it is
    ln((.9 − .5)/(.6 − .5)) = ln 4 = 1.386… and on D = (.2, .5, .5 + g) it is ln(0.4/g) for small g
    (3.689 at g = 10⁻², 8.294 at 10⁻⁴, 17.50 at 10⁻⁸; auditor spec §7 B3).
    """

    def exact(self, data: Any) -> PiecewiseLogLinear:
        """Piecewise-constant density exp(ε·u_j/2)/(Z·width_j) on interval j, exact in mpmath."""
        data = check_data(data, "data", allow_empty=True)
        cut = smith_intervals(data, self.bounds)
        breaks, ranks = cut.breaks, cut.ranks
        widths = np.diff(breaks)
        intercepts = -0.5 * self.epsilon * np.abs(ranks - self.quantile * cut.n) - np.log(widths)
        half, t = _half_scale(self.epsilon), Fraction(self.quantile) * cut.n

        def exact_intercept(k: int) -> mpmath.mpf:
            width = Fraction(float(breaks[k + 1])) - Fraction(float(breaks[k]))
            with workdps():
                return to_mpf(-half * abs(int(ranks[k]) - t)) - mpmath.log(to_mpf(width))

        return PiecewiseLogLinear(
            breaks,
            np.zeros(len(ranks)),
            intercepts,
            exact_intercepts=LazySequence(len(ranks), exact_intercept),
        )

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """Pick an interval ∝ exp(ε·u_j/2) (no width), then a uniform point inside it."""
        size, rng = check_size(size), check_rng(rng)
        data = check_data(data, "data", allow_empty=True)
        cut = smith_intervals(data, self.bounds)
        log_w = -0.5 * self.epsilon * np.abs(cut.ranks - self.quantile * cut.n)
        return _uniform_in(cut.breaks, _pick(log_w, size, rng), size, rng)


# --------------------------------------------------------------------------------------------
# B4: no clamping
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMNoClamp(_OneQuantileBug):
    """The exponential mechanism without clamping: the interval ends are sorted({a, b} ∪ D), so a
    data point outside [a, b] stretches the output range.

    Interval j = [z_j, z_{j+1}] of the sorted list z_0 <= … <= z_{n+1} (the n data points and both
    bounds) has utility u_j = −|j − q·n| and weight width_j·exp(ε·u_j/2). On data inside the
    bounds it is the correct EM. On D = (.5, .5), D' = (.5, 1000) (replace-one, ε = 1, [0, 1]) the
    outputs in (1, 1000] are possible only under D': the exact privacy loss is ∞ (auditor spec §7
    B4; the Google library's ±1000 test entries).
    """

    def _intervals(self, data: Any) -> tuple[np.ndarray, np.ndarray, int]:
        data = check_data(data, "data", allow_empty=True)
        full = np.sort(np.concatenate([self.bounds, data]))
        if not np.isfinite(full[-1] - full[0]):
            raise ValueError("data: the range of the data and bounds overflows float64")
        ranks = np.flatnonzero(np.diff(full) > 0)
        return np.append(full[ranks], full[-1]), ranks, data.size

    def exact(self, data: Any) -> PiecewiseLogLinear:
        """Constant density exp(ε·u_j/2)/Z on each interval (exact rational log-weights)."""
        breaks, ranks, n = self._intervals(data)
        half, t = _half_scale(self.epsilon), Fraction(self.quantile) * n
        intercepts = -0.5 * self.epsilon * np.abs(ranks - self.quantile * n)
        exact = LazySequence(len(ranks), lambda k: -half * abs(int(ranks[k]) - t))
        return PiecewiseLogLinear(breaks, np.zeros(len(ranks)), intercepts, exact_intercepts=exact)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        size, rng = check_size(size), check_rng(rng)
        breaks, ranks, n = self._intervals(data)
        log_w = np.log(np.diff(breaks)) - 0.5 * self.epsilon * np.abs(ranks - self.quantile * n)
        return _uniform_in(breaks, _pick(log_w, size, rng), size, rng)


# --------------------------------------------------------------------------------------------
# B5: bounds taken from the data
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMDataBounds(_OneQuantileBug):
    """The exponential mechanism run on the bounds [min(D), max(D)] instead of declared ones.

    ``bounds`` is the declared input domain (data outside it raise ``ValueError``); the mechanism
    ignores it and runs Smith's EM on [min(D), max(D)]. When all data values coincide that interval
    is a point and the mechanism outputs the value itself (its law is then a one-atom
    :class:`DiscreteLaw`). The output range depends on the data, so on D = (.2, .5, .5),
    D' = (.2, .5, .9) (replace-one, ε = 1) the outputs in (.5, .9] are possible only under D': the
    exact privacy loss is ∞ (auditor spec §7 B5).
    """

    @property
    def domain(self) -> tuple[float, float]:
        return self.bounds

    def _em(self, data: Any) -> tuple[np.ndarray, ExponentialQuantile | None]:
        data = check_data(data, "data", domain=self.bounds)
        lo, hi = float(data.min()), float(data.max())
        if lo == hi:
            return data, None
        return data, ExponentialQuantile(self.quantile, self.epsilon, (lo, hi), "replace_one")

    def exact(self, data: Any) -> PiecewiseLogLinear | DiscreteLaw:
        data, em = self._em(data)
        if em is None:
            return DiscreteLaw([float(data[0])], [0])
        return em.exact(data)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        size, rng = check_size(size), check_rng(rng)
        data, em = self._em(data)
        if em is None:
            return np.full(size, float(data[0]))
        return em.sample(data, size, rng)


# --------------------------------------------------------------------------------------------
# Exponential mechanism over the data points
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMOutputsDataValue(_OneQuantileBug):
    """An exponential mechanism over the *data points* instead of the intervals between them:
    rank j = 1..n of the sorted data is chosen with probability ∝ exp(ε·u_j/2), u_j = −|j − q·n|,
    and the data value x_(j) itself is released.

    The output set is the data, so it differs between neighbours: on D = (.25,), D' = (.5,)
    (replace-one, ε = 1) the exact privacy loss is ∞. Empty data raise ``ValueError``.
    """

    @property
    def domain(self) -> tuple[float, float]:
        return self.bounds

    def _sorted(self, data: Any) -> np.ndarray:
        return np.sort(check_data(data, "data", domain=self.bounds))

    def exact(self, data: Any) -> DiscreteLaw:
        """Atoms at the distinct data values, log-weight −ε|j − q·n|/2 summed over their ranks."""
        x = self._sorted(data)
        half, t = _half_scale(self.epsilon), Fraction(self.quantile) * x.size
        log_w = [-half * abs(j - t) for j in range(1, x.size + 1)]
        return DiscreteLaw([float(v) for v in x], log_w)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        size, rng = check_size(size), check_rng(rng)
        x = self._sorted(data)
        j = np.arange(1, x.size + 1)
        log_w = -0.5 * self.epsilon * np.abs(j - self.quantile * x.size)
        return x[_pick(log_w, size, rng)]


# --------------------------------------------------------------------------------------------
# B7: Laplace noise scaled to the local sensitivity
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MedianLocalSensitivityLaplace:
    """The median plus Laplace noise scaled to the *local* sensitivity (NRS07's motivating
    example of why local sensitivity is not enough).

    Convention: the released median is x_(m) with m = ⌈n/2⌉ (the lower median for even n); the
    local sensitivity is LS(D) = max(x_(m+1) − x_(m), x_(m) − x_(m−1)) with x_(0) := a and
    x_(n+1) := b (the ends of ``bounds``); the output is x_(m) + Laplace(LS(D)/ε), and exactly
    x_(m) when LS(D) = 0. On D = (0, 0, 0, 0, 1) the output is the atom 0 (LS = 0); on its
    neighbour D' = (0, 0, 0, 1, 1) it is Laplace(0, 1) and never exactly 0: the exact privacy
    loss is ∞ (auditor spec §7 B7).

    On one data set the law is either an atom or a Laplace law, given by :meth:`exact`, so the
    exact mode sees the loss ∞ directly (an atom against a density).
    """

    epsilon: float = 1.0
    bounds: tuple[float, float] = UNIT

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "bounds", check_domain(self.bounds, "bounds", finite=True))

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, "replace_one")

    @property
    def domain(self) -> tuple[float, float]:
        return self.bounds

    def median_and_local_sensitivity(self, data: Any) -> tuple[float, float]:
        """(x_(m), LS(D)) with m = ⌈n/2⌉ and the neighbours beyond the data clamped to the bounds."""
        x = np.sort(check_data(data, "data", domain=self.bounds))
        ext = np.concatenate([[self.bounds[0]], x, [self.bounds[1]]])
        m = (x.size + 1) // 2  # 1-based rank of the (lower) median; ext[m] = x_(m)
        ls = max(ext[m + 1] - ext[m], ext[m] - ext[m - 1])
        return float(ext[m]), float(ls)

    def exact(self, data: Any) -> DiscreteLaw | PiecewiseLogLinear:
        """The output law on ``data``: the atom x_(m) if LS(D) = 0, else Laplace(x_(m), LS/ε)."""
        median, ls = self.median_and_local_sensitivity(data)
        if ls == 0:
            return DiscreteLaw([median], [0])
        return laplace_law(median, ls / self.epsilon)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        size, rng = check_size(size), check_rng(rng)
        median, ls = self.median_and_local_sensitivity(data)
        if ls == 0:
            return np.full(size, median)
        return median + rng.laplace(0.0, ls / self.epsilon, size)


# --------------------------------------------------------------------------------------------
# Linear-space weights that underflow (SmartNoise #572, diffprivlib #107)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EMUnderflow(_OneQuantileBug):
    """A naive exponential mechanism: float64 weights width_j·exp(ε·u_j/2), with no shift by the
    largest exponent, normalised by their sum; ``ValueError("no candidate")`` when every weight
    underflows to 0.

    Otherwise it is the correct EM (data clamped to ``bounds``, an interval drawn by the float
    probabilities, a uniform point inside). Whether it raises depends only on the data, never on
    the generator. On D = [0]·n + [1] the only interval of positive length is [0, 1], n − ½ ranks
    from the target (n + 1)/2, so its weight is exp(−ε(n − 1)/4); on the neighbour
    D' = [0]·(n − 1) + [1, 1] it is one rank closer. At ε = 1 the smallest n where D raises and D'
    does not is n = 2982 (the witness): the error is an output atom possible under D only, so the
    exact privacy loss is ∞ (SmartNoise-SQL #572, diffprivlib #107).
    """

    def probabilities(self, data: Any) -> tuple[np.ndarray, np.ndarray]:
        """(z, p): the interval ends z_0..z_{n+1} and the float probabilities of the n + 1
        intervals, computed the naive way; ``ValueError("no candidate")`` if all weights are 0."""
        data = check_data(data, "data", allow_empty=True)
        a, b = self.bounds
        z = np.concatenate([[a], np.sort(np.clip(data, a, b)), [b]])
        j = np.arange(data.size + 1)
        with np.errstate(under="ignore"):
            weights = np.diff(z) * np.exp(self.epsilon * -np.abs(j - self.quantile * data.size) / 2)
        total = weights.sum()
        if not total > 0:
            raise ValueError("no candidate")
        return z, weights / total

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        size, rng = check_size(size), check_rng(rng)
        z, p = self.probabilities(data)
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

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    def exact(self, data: Any) -> DiscreteLaw:
        b = check_bit(data, "data")
        keep = wrong_keep_probability_mp(self.epsilon)
        with workdps():
            row = [keep, 1 - keep] if b == 0 else [1 - keep, keep]
        return DiscreteLaw.from_probabilities([0, 1], row)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        b = check_bit(data, "data")
        size, rng = check_size(size), check_rng(rng)
        keep = 1.0 - math.exp(-self.epsilon) / 2.0
        flip = rng.random(size) >= keep
        return np.where(flip, 1 - b, b).astype(np.int8)


# --------------------------------------------------------------------------------------------
# B8: several quantiles, each with the full budget
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MultiQuantileFullBudget:
    """Several quantiles released together, each by an independent correct EM with the *full* ε
    (the budget is not split), while the claim is ε in total.

    Output: a vector of shape (size, k), one column per quantile (data clamped to ``bounds``). By
    composition the true loss is at most k·ε; on D = (0, .25, .25, .25), D' = (.25, .25, .25, 1)
    (replace-one, ε = 1, q = .25, .5, .75 on [0, 1]) it is exactly 2.15789… (the largest over all
    neighbouring pairs of size <= 4 on the grid {0, .25, .5, .75, 1};
    :func:`multi_quantile_exact_epsilon`; auditor spec §7 B8).
    """

    epsilon: float = 1.0
    quantiles: tuple[float, ...] = (0.25, 0.5, 0.75)
    bounds: tuple[float, float] = UNIT

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "bounds", check_domain(self.bounds, "bounds", finite=True))
        try:
            qs = tuple(self.quantiles)
        except TypeError:
            raise ValueError(
                f"quantiles must be a non-empty sequence of numbers in [0, 1], got {self.quantiles!r}"
            ) from None
        if not qs:
            raise ValueError("quantiles must be a non-empty sequence of numbers in [0, 1]")
        qs = tuple(check_probability(q, f"quantiles[{i}]") for i, q in enumerate(qs))
        object.__setattr__(self, "quantiles", qs)

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim(self.epsilon, 0.0, "replace_one")

    @property
    def domain(self) -> tuple[float, float]:
        """Any finite value: values outside ``bounds`` are clamped."""
        return (-math.inf, math.inf)

    @property
    def components(self) -> tuple[ExponentialQuantile, ...]:
        """The per-quantile mechanisms, each with the full ε."""
        return tuple(
            ExponentialQuantile(q, self.epsilon, self.bounds, adjacency="replace_one")
            for q in self.quantiles
        )

    def exact(self, data: Any) -> ProductLaw:
        """The joint law: the product of the components' exact laws (independent coordinates)."""
        data = check_data(data, "data", allow_empty=True)
        return ProductLaw([em.exact(data) for em in self.components])

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        size, rng = check_size(size), check_rng(rng)
        data = check_data(data, "data", allow_empty=True)
        return np.column_stack([em.sample(data, size, rng) for em in self.components])


def multi_quantile_exact_epsilon(mech: MultiQuantileFullBudget, d0: Any, d1: Any) -> mpmath.mpf:
    """Exact privacy loss of the joint release on (d0, d1), computed coordinate by coordinate
    (an independent cross-check of ``privacy_loss(mech.exact(d0), mech.exact(d1))``).

    The coordinates are independent, so the log-likelihood ratio of the vector is the sum of the
    coordinates' ratios L_i(y_i), each a function of its own coordinate; the essential sup of such
    a sum over the product law is the sum of the essential sups. Both directions are summed
    separately: ε = max(Σ_i sup L_i, Σ_i sup(−L_i)). This can be smaller than Σ_i privacy_loss_i
    (the sum of the two-sided per-coordinate losses), which is only an upper bound when the
    coordinates' worst directions differ.
    """
    laws0 = [em.exact(d0) for em in mech.components]
    laws1 = [em.exact(d1) for em in mech.components]
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
    """The entry (of :data:`CATALOGUE` or :data:`CONTROLS`) called ``name``."""
    for entry in CATALOGUE + CONTROLS:
        if entry.name == name:
            return entry
    names = ", ".join(e.name for e in CATALOGUE + CONTROLS)
    raise ValueError(f"unknown catalogue entry {name!r}; known entries: {names}")


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
    "MedianLocalSensitivityLaplace",
    "MultiQuantileFullBudget",
    "RRWrongFlip",
    "catalogue_entry",
    "multi_quantile_exact_epsilon",
    "wrong_keep_probability_mp",
]
