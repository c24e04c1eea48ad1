"""``validate``: is a candidate implementation the same mechanism as a reference one? (issue 8)

Given a reference mechanism (ours) and a candidate (a mechanism, or a function
``fn(data, rng) -> output`` given the reference's claim), :func:`validate`

1. draws a **battery of data sets** over the reference's domain (:func:`battery`: one value, a few
   values spread out, all tied, two clusters split at the median, an outlier at each end, sizes
   1 to 200) — or the caller's;
2. on each data set tests **distributional equivalence**: against the reference's exact law where
   it has one (DKW band for densities, per-atom Clopper–Pearson for discrete laws:
   :func:`reference.conformance.check_sampler`), otherwise by a distribution-free two-sample test
   against the reference's own draws (the DKW bound on each side, α/2 each); every test at level
   α/(number of tests), so the whole battery falsely rejects a correct candidate with probability
   at most α;
3. reports the **power** of each test: the smallest deviation (sup-distance between CDFs, or
   between one atom's probabilities) that the budget detects with probability at least 1 − β;
4. **audits** the candidate with :func:`audit.audit_mechanism` under the reference's claim.

The power statement: with N draws, a one-sample DKW test at level a rejects whenever the empirical
CDF leaves the band t_a = sqrt(ln(2/a)/(2N)); if the candidate's CDF is at distance d from the
reference's somewhere, the empirical CDF is within sqrt(ln(2/β)/(2N)) of the candidate's there
with probability >= 1 − β (DKW), so every d >= t_a + sqrt(ln(2/β)/(2N)) is detected. For atoms
the Clopper–Pearson interval lies inside Hoeffding's, so the same form holds with a/K. For the
two-sample test add the second sample's terms.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audit.outputs import Raised
from audit.search import probe_values
from audit.wrap import from_callable
from reference.conformance import check_sampler, dkw_threshold
from reference.core import PrivacyClaim, has_exact
from reference.distributions import DiscreteLaw, GridLaw, ProductLaw
from reference.validation import check_int, check_probability

DEFAULT_SAMPLES = 20_000
DEFAULT_ALPHA = 1e-6
DEFAULT_BETA = 0.05
BATTERY_SIZES = (1, 2, 5, 9, 33, 200)


@dataclass(frozen=True)
class EquivalenceCheck:
    """One data set's equivalence test."""

    data: tuple[float, ...]
    test: str  # "dkw", "atoms", "product[...]", "two-sample" or "outputs"
    passed: bool
    statistic: float
    threshold: float
    detectable: float  # smallest deviation detected with probability >= 1 − beta
    samples: int
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "data": list(self.data),
            "test": self.test,
            "passed": self.passed,
            "statistic": _finite(self.statistic),
            "threshold": self.threshold,
            "detectable": self.detectable,
            "samples": self.samples,
            "detail": self.detail,
        }


@dataclass
class ValidationReport:
    """The outcome of :func:`validate`."""

    reference: str
    candidate: str
    claim: PrivacyClaim
    alpha: float
    beta: float
    checks: list[EquivalenceCheck] = field(default_factory=list)
    audit: Any = None  # an AuditReport, or None when not audited

    @property
    def equivalent(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def passed(self) -> bool:
        """Equivalent on every data set and no violation found by the audit."""
        audit_ok = self.audit is None or (
            not self.audit.violation and self.audit.sampler_conforms is not False
        )
        return self.equivalent and audit_ok

    @property
    def worst(self) -> EquivalenceCheck | None:
        """The check furthest beyond (or closest to) its threshold."""
        if not self.checks:
            return None
        return max(self.checks, key=lambda c: _ratio(c.statistic, c.threshold))

    def summary(self) -> str:
        failed = [c for c in self.checks if not c.passed]
        lines = [
            f"validate {self.candidate} against {self.reference}: "
            f"{'PASSED' if self.passed else 'FAILED'}",
            f"  equivalence: {len(self.checks) - len(failed)}/{len(self.checks)} data sets pass "
            f"(family-wise false alarm <= {self.alpha:g}); detectable deviation (power "
            f"{1 - self.beta:g}) up to {max((c.detectable for c in self.checks), default=0):.4g}",
        ]
        for c in failed[:5]:
            lines.append(
                f"  differs on {_short(c.data)}: {c.test} statistic {c.statistic:.4g} > "
                f"{c.threshold:.4g} ({c.detail})"
            )
        if self.audit is not None:
            lines.append(f"  audit: {self.audit.summary()}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {
            "reference": self.reference,
            "candidate": self.candidate,
            "claim": {
                "epsilon": self.claim.epsilon,
                "delta": self.claim.delta,
                "adjacency": self.claim.adjacency,
            },
            "alpha": self.alpha,
            "beta": self.beta,
            "passed": self.passed,
            "equivalent": self.equivalent,
            "checks": [c.to_dict() for c in self.checks],
            "audit": None if self.audit is None else self.audit.to_dict(),
        }

    def to_markdown(self) -> str:
        rows = [
            f"# Validation of {self.candidate} against {self.reference}",
            "",
            f"Verdict: **{'passed' if self.passed else 'failed'}**. Claim: ε = "
            f"{self.claim.epsilon:g}, δ = {self.claim.delta:g}, {self.claim.adjacency}. "
            f"Family-wise false alarm <= {self.alpha:g}; detectable deviations at power "
            f"{1 - self.beta:g}.",
            "",
            "| data | test | statistic | threshold | detectable | draws | verdict |",
            "|---|---|---|---|---|---|---|",
        ]
        for c in self.checks:
            rows.append(
                f"| {_short(c.data)} | {c.test} | {c.statistic:.4g} | {c.threshold:.4g} | "
                f"{c.detectable:.4g} | {c.samples} | {'ok' if c.passed else 'DIFFERS'} |"
            )
        if self.audit is not None:
            rows += ["", "## Audit", "", self.audit.summary()]
        return "\n".join(rows) + "\n"


def _finite(x: float) -> float | str:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def _ratio(statistic: float, threshold: float) -> float:
    return math.inf if threshold <= 0 else statistic / threshold


def _short(data: Sequence[float]) -> str:
    values = list(data)
    if len(values) <= 6:
        return "(" + ", ".join(f"{v:g}" for v in values) + ")"
    counts: dict[float, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return "(" + ", ".join(f"{v:g}×{k}" for v, k in sorted(counts.items())) + ")"


# --------------------------------------------------------------------------------------------
# the battery of data sets
# --------------------------------------------------------------------------------------------


def battery(
    domain: tuple[float, float], adjacency: str, sizes: Sequence[int] = BATTERY_SIZES
) -> list[np.ndarray]:
    """Data sets that exercise a quantile mechanism: for local DP each probe value alone;
    otherwise, for each size, values spread over the probe values, all tied at the middle value,
    two clusters split at the median, and the middle value with one outlier at each end."""
    values = sorted(probe_values(domain))
    if adjacency == "local":
        return [np.array([v]) for v in values]
    lo, hi = values[0], values[-1]
    inner_lo, inner_hi = values[min(1, len(values) - 1)], values[max(len(values) - 2, 0)]
    mid = values[len(values) // 2]
    out: list[tuple[float, ...]] = []
    for n in sizes:
        n = check_int(n, "size", minimum=1)
        out.append(tuple(values[(k * len(values)) // n] for k in range(n)))
        out.append((mid,) * n)
        out.append((inner_lo,) * (n // 2) + (inner_hi,) * (n - n // 2))
        if n >= 2:
            out.append((mid,) * (n - 1) + (lo,))
            out.append((mid,) * (n - 1) + (hi,))
    unique = list(dict.fromkeys(tuple(sorted(d)) for d in out))
    return [np.array(d, dtype=float) for d in unique]


# --------------------------------------------------------------------------------------------
# equivalence tests
# --------------------------------------------------------------------------------------------


def detectable_deviation(threshold: float, samples: int, beta: float) -> float:
    """t + sqrt(ln(2/β)/(2N)): a true deviation this large is detected w.p. >= 1 − β."""
    return threshold + math.sqrt(math.log(2.0 / beta) / (2.0 * samples))


def _numeric(draws: np.ndarray) -> np.ndarray | None:
    """The draws as a float array, or None when some draw is not a finite number (an exception,
    NaN, an object)."""
    arr = np.asarray(draws)
    if arr.dtype == object:
        return None
    arr = arr.astype(float)
    return arr if np.all(np.isfinite(arr)) else None


def _non_numeric_detail(draws: np.ndarray) -> str:
    kinds: dict[str, int] = {}
    for d in np.asarray(draws, dtype=object).ravel():
        if isinstance(d, Raised):
            key = str(d)
        elif isinstance(d, float) and not math.isfinite(d):
            key = repr(d)
        elif isinstance(d, int | float | np.floating | np.integer):
            continue
        else:
            key = type(d).__name__
        kinds[key] = kinds.get(key, 0) + 1
    return "non-numeric outputs: " + ", ".join(f"{k} ×{v}" for k, v in sorted(kinds.items()))


def _exact_check(law: Any, draws: np.ndarray, alpha: float, beta: float) -> tuple:
    result = check_sampler(law, draws, alpha)
    categories = 1
    if isinstance(law, DiscreteLaw):
        categories = len(law.support) + 1
    elif isinstance(law, ProductLaw | GridLaw):
        categories = len(law)
    n = result.samples
    # atoms and marginals: the Hoeffding band at alpha/K contains the Clopper–Pearson interval
    band = dkw_threshold(n, alpha / categories) if categories > 1 else result.threshold
    return (
        result.test,
        result.passed,
        result.statistic,
        result.threshold,
        detectable_deviation(band, n, beta),
        result.detail,
    )


def two_sample_check(
    a: np.ndarray, b: np.ndarray, alpha: float, beta: float
) -> tuple[str, bool, float, float, float, str]:
    """Distribution-free two-sample test: sup|F̂_a − F̂_b| against the sum of the two DKW bands at
    α/2 each (per coordinate, Bonferroni, for vector outputs)."""
    a2 = a.reshape(len(a), -1)
    b2 = b.reshape(len(b), -1)
    k = a2.shape[1]
    worst = (0.0, 0)
    for j in range(k):
        x, y = np.sort(a2[:, j]), np.sort(b2[:, j])
        grid = np.concatenate([x, y])
        gap = np.max(
            np.abs(
                np.searchsorted(x, grid, side="right") / len(x)
                - np.searchsorted(y, grid, side="right") / len(y)
            )
        )
        worst = max(worst, (float(gap), j))
    t = dkw_threshold(len(a2), alpha / (2 * k)) + dkw_threshold(len(b2), alpha / (2 * k))
    power = t + math.sqrt(math.log(4.0 / beta) / (2.0 * len(a2)))
    power += math.sqrt(math.log(4.0 / beta) / (2.0 * len(b2)))
    return "two-sample", worst[0] <= t, worst[0], t, power, f"largest gap in coordinate {worst[1]}"


def as_mechanism(candidate: Any, reference: Any, name: str | None = None) -> Any:
    """The candidate as a mechanism: itself if it has ``sample``, else ``fn(data, rng)`` wrapped
    with the reference's claim and domain."""
    if callable(getattr(candidate, "sample", None)):
        return candidate
    if callable(candidate):
        return from_callable(candidate, reference.claim, reference.domain, name=name)
    raise ValueError(
        f"candidate must be a mechanism (with sample()) or a function fn(data, rng) -> output, "
        f"got {type(candidate).__name__}"
    )


def validate(
    reference: Any,
    candidate: Any,
    *,
    datasets: Iterable[Any] | None = None,
    samples: int = DEFAULT_SAMPLES,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    seed: int = 0,
    audit: bool = True,
    audit_samples: int | None = None,
    reference_name: str | None = None,
    candidate_name: str | None = None,
) -> ValidationReport:
    """Test that ``candidate`` draws from the same law as ``reference`` on a battery of data sets
    (module docstring) and audit it under the reference's claim; the seed fixes every draw of
    our own code (a candidate that ignores the generator it is given is not reproducible)."""
    if not callable(getattr(reference, "sample", None)) or not hasattr(reference, "claim"):
        raise ValueError("reference must be a mechanism with sample() and claim")
    samples = check_int(samples, "samples", minimum=100)
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    beta = check_probability(beta, "beta", open_left=True, open_right=True)
    ref_name = reference_name or getattr(reference, "name", None) or type(reference).__name__
    cand = as_mechanism(candidate, reference, candidate_name)
    cand_name = candidate_name or getattr(cand, "name", None) or type(cand).__name__
    claim = reference.claim
    if datasets is None:
        datasets = battery(reference.domain, claim.adjacency)
    datasets = [np.sort(np.asarray(d, dtype=float).ravel()) for d in datasets]
    if not datasets:
        raise ValueError("datasets must contain at least one data set")
    per_test = alpha / len(datasets)
    rng = np.random.default_rng(seed)
    report = ValidationReport(str(ref_name), str(cand_name), claim, alpha, beta)
    for data in datasets:
        draws = cand.sample(data, samples, rng)
        values = _numeric(draws)
        if values is None:
            test = ("outputs", False, math.inf, 0.0, math.inf, _non_numeric_detail(draws))
        elif has_exact(reference):
            test = _exact_check(reference.exact(data), values, per_test, beta)
        else:
            mine = np.asarray(reference.sample(data, samples, rng), dtype=float)
            test = two_sample_check(values, mine, per_test, beta)
        name, passed, statistic, threshold, detectable, detail = test
        report.checks.append(
            EquivalenceCheck(
                tuple(float(v) for v in data),
                name,
                bool(passed),
                float(statistic),
                float(threshold),
                float(detectable),
                samples,
                detail,
            )
        )
    if audit:
        from audit.runner import audit_mechanism

        report.audit = audit_mechanism(
            cand, seed=seed, alpha=alpha, samples=audit_samples, name=str(cand_name)
        )
    return report


__all__ = [
    "BATTERY_SIZES",
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "DEFAULT_SAMPLES",
    "EquivalenceCheck",
    "ValidationReport",
    "as_mechanism",
    "battery",
    "detectable_deviation",
    "two_sample_check",
    "validate",
]
