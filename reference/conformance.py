"""Sampler conformance: does a sampler draw from the exact law it claims?

Two seeded, distribution-free tests whose false-alarm probability for a correct sampler is at most
``alpha`` (default 1e-7, so well below 1e-6):

* :func:`dkw_test` for continuous laws: the Dvoretzky–Kiefer–Wolfowitz–Massart band
  sup_y |F̂_N(y) − F(y)| <= sqrt(ln(2/α) / (2N)).
* :func:`atom_test` for discrete laws: a two-sided Clopper–Pearson interval for every listed atom
  and for "everything else", each at level α/K (Bonferroni over the K categories).

:func:`check_sampler` picks the right one for a law of :mod:`reference.distributions`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass

import numpy as np
from scipy import stats

from reference.distributions import DiscreteLaw, GridLaw, PiecewiseLogLinear, ProductLaw
from reference.validation import check_probability

DEFAULT_ALPHA = 1e-7


@dataclass(frozen=True)
class ConformanceResult:
    """Outcome of one conformance test."""

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


def dkw_threshold(n: int, alpha: float) -> float:
    """Half-width of the DKW–Massart band: P(sup|F̂_n − F| > t) <= 2 exp(−2 n t²) = alpha."""
    return math.sqrt(math.log(2.0 / alpha) / (2.0 * n))


def ks_statistic(
    samples: np.ndarray, cdf: Callable[[np.ndarray], np.ndarray]
) -> tuple[float, float]:
    """sup_y |F̂_N(y) − F(y)| for a continuous F, and the y where it is reached."""
    x = np.sort(np.asarray(samples, dtype=float))
    n = len(x)
    f = np.asarray(cdf(x), dtype=float)
    upper = np.arange(1, n + 1) / n - f
    lower = f - np.arange(0, n) / n
    k_up, k_lo = int(np.argmax(upper)), int(np.argmax(lower))
    if upper[k_up] >= lower[k_lo]:
        return float(upper[k_up]), float(x[k_up])
    return float(lower[k_lo]), float(x[k_lo])


def dkw_test(
    samples: np.ndarray, cdf: Callable[[np.ndarray], np.ndarray], alpha: float = DEFAULT_ALPHA
) -> ConformanceResult:
    """DKW band test of ``samples`` against a continuous CDF (false alarm <= ``alpha``)."""
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    samples = np.asarray(samples, dtype=float).ravel()
    if samples.size == 0:
        raise ValueError("samples must be non-empty")
    if not np.all(np.isfinite(samples)):
        return ConformanceResult(
            False, "dkw", math.inf, 0.0, alpha, samples.size, "non-finite samples"
        )
    stat, where = ks_statistic(samples, cdf)
    thr = dkw_threshold(samples.size, alpha)
    return ConformanceResult(
        stat <= thr, "dkw", stat, thr, alpha, samples.size, f"largest gap at y = {where!r}"
    )


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval for a binomial proportion at level 1 − alpha."""
    lo = 0.0 if k == 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return lo, hi


def atom_test(
    samples: np.ndarray, probabilities: Mapping[Hashable, float], alpha: float = DEFAULT_ALPHA
) -> ConformanceResult:
    """Per-atom Clopper–Pearson test with Bonferroni over the atoms and "other".

    ``probabilities`` maps atoms to their exact probabilities; the rest of the mass (1 − Σ) is the
    category "other", which collects every sample not among the listed atoms.
    """
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    samples = np.asarray(samples).ravel()
    n = samples.size
    if n == 0:
        raise ValueError("samples must be non-empty")
    atoms = list(probabilities)
    probs = np.array([float(probabilities[a]) for a in atoms])
    if np.any(probs < 0) or probs.sum() > 1 + 1e-12:
        raise ValueError("probabilities must be >= 0 and sum to at most 1")
    counts: dict[Hashable, int] = {}
    if samples.dtype.kind in "iuf":  # vectorised count of numeric samples
        values, freq = np.unique(samples, return_counts=True)
        counts = {v: int(c) for v, c in zip(values.tolist(), freq.tolist(), strict=True)}
    else:
        for key in (a.item() if isinstance(a, np.generic) else a for a in samples.tolist()):
            counts[key] = counts.get(key, 0) + 1
    listed = {a.item() if isinstance(a, np.generic) else a for a in atoms}
    observed = [counts.get(a.item() if isinstance(a, np.generic) else a, 0) for a in atoms]
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
    law: DiscreteLaw | PiecewiseLogLinear | ProductLaw,
    samples: np.ndarray,
    alpha: float = DEFAULT_ALPHA,
) -> ConformanceResult:
    """Conformance of ``samples`` to an exact law: DKW for densities, Clopper–Pearson for atoms;
    for a product law or a grid law, each coordinate's marginal at level α/k (Bonferroni; the
    joint law beyond the marginals is not tested)."""
    if isinstance(law, (ProductLaw, GridLaw)):
        samples = np.asarray(samples, dtype=float)
        k = len(law)
        if samples.ndim != 2 or samples.shape[1] != k:
            raise ValueError(f"samples must have shape (n, {k}) for this {type(law).__name__}")
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
        return dkw_test(samples, law.cdf, alpha)
    if isinstance(law, DiscreteLaw):
        return atom_test(samples, dict(zip(law.support, law.probabilities, strict=True)), alpha)
    raise ValueError(f"law must be a DiscreteLaw or PiecewiseLogLinear, got {type(law).__name__}")
