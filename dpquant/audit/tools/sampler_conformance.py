"""``dpquant.audit.conformance``: does a mechanism's sampler draw from its own exact law?

(The function lives in this module and is exported as ``dpquant.audit.conformance``; the module is called
``sampler_conformance``, not ``conformance``, so that importing it can never shadow the function.)

A thin layer over :mod:`dpquant.reference.conformance` (DKW band for continuous laws, per-atom
Clopper–Pearson with Bonferroni for discrete ones): draws ``samples`` outputs on ``data`` with a
seeded generator and reports the test, its statistic, threshold and a p-value bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.audit.model.limits import MAX_SEED
from dpquant.audit.model.outputs import normalise
from dpquant.audit.model.sampling_contract import MalformedOutput
from dpquant.audit.pipeline.draws import chunk_rng
from dpquant.audit.statistics.exact_loss import check_exact_law, mechanism_name
from dpquant.reference.conformance import DEFAULT_ALPHA, check_sampler
from dpquant.reference.core import has_exact
from dpquant.reference.validation import MAX_DRAWS, check_int, check_probability


@dataclass(frozen=True)
class ConformanceReport:
    """Outcome of :func:`conformance`.

    Attributes:
        passed: The sampler conforms: ``p_value > alpha`` up to the test's own rule.
        test: ``"dkw"`` (a density) or ``"atoms"`` (a discrete law, or draws outside the law).
        statistic: The test's statistic (the DKW distance, or the worst atom's).
        threshold: The statistic's bound at level ``alpha``.
        p_value: An upper bound on the p-value: for the DKW test 2·exp(−2N·D²) (Massart), for
            the atom test K times the smallest per-atom two-sided binomial p-value
            (Bonferroni).
        alpha: The test's level.
        samples: The draws tested.
        seed: Their seed.
        detail: One sentence on the outcome.
    """

    passed: bool
    test: str
    statistic: float
    threshold: float
    p_value: float
    alpha: float
    samples: int
    seed: int
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def assert_ok(self) -> None:
        if not self.passed:
            raise AssertionError(
                f"{self.test} conformance failed: statistic {self.statistic:.6g} > threshold "
                f"{self.threshold:.6g} (p <= {self.p_value:.3g}, N = {self.samples}). {self.detail}"
            )


def conformance(
    mech: Any, data: Any, samples: int = 100_000, seed: int = 0, alpha: float = DEFAULT_ALPHA
) -> ConformanceReport:
    """Test ``mech.sample`` on ``data`` against ``mech.exact(data)``.

    Args:
        mech: A mechanism with ``sample`` and ``exact``.
        data: The data set, checked by the mechanism (its ``ValueError`` names the data).
        samples: The draws, 1 to ``MAX_DRAWS``.
        seed: Their seed, 0 to :data:`dpquant.audit.model.limits.MAX_SEED`.
        alpha: The test's level, in (0, 1).

    Returns:
        The outcome; draws outside the law fail it.

    Raises:
        ValueError: An argument is refused (named), the law yields NaN (naming the
            mechanism), or the draws break the sampling contract.
    """
    if not has_exact(mech) or not callable(getattr(mech, "sample", None)):
        raise ValueError("mech must have sample(data, size, rng) and an exact(data) law")
    samples = check_int(samples, "samples", minimum=1, maximum=MAX_DRAWS)
    seed = check_int(seed, "seed", minimum=0, maximum=MAX_SEED)
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    law = check_exact_law(mech.exact(data), f"the exact law of {mechanism_name(mech)} on data")
    try:
        raw = mech.sample(data, samples, chunk_rng(seed, (0,)))
    except ValueError as exc:
        raise ValueError(f"mech.sample(data, samples={samples}, rng) refused: {exc}") from None
    try:
        out = normalise(raw, samples)
    except (
        MalformedOutput
    ) as exc:  # the sampling contract (dpquant.audit.model.outputs), naming the mechanism
        raise exc.naming(
            f"mech {mechanism_name(mech)!r}:", f"sample(data, {samples}, rng)"
        ) from None
    if not out.numeric.all() or out.width != 1:
        return ConformanceReport(
            False,
            "atoms",
            math.inf,
            0.0,
            0.0,
            alpha,
            samples,
            seed,
            f"the sampler produced outputs outside the law: {out.atom_counts()}",
        )
    r = check_sampler(law, out.values[:, 0], alpha=alpha)
    if r.test == "dkw":
        p = min(1.0, 2.0 * math.exp(-2.0 * samples * r.statistic**2))
    else:
        p = _atom_p_value(law, out.values[:, 0])
    return ConformanceReport(
        r.passed, r.test, r.statistic, r.threshold, p, alpha, samples, seed, r.detail
    )


def _atom_p_value(law: Any, values: np.ndarray) -> float:
    from scipy import stats

    support = np.asarray(law.support, dtype=float)
    probs = law.probabilities
    n = values.size
    pvals = []
    for atom, p in zip(support, probs, strict=True):
        k = int(np.count_nonzero(values == atom))
        pvals.append(stats.binomtest(k, n, min(max(p, 0.0), 1.0)).pvalue)
    other = int(np.count_nonzero(~np.isin(values, support)))
    pvals.append(0.0 if other else 1.0)
    return float(min(1.0, len(pvals) * min(pvals)))
