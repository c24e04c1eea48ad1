"""The report of :func:`dpquant.audit.tools.equivalence.validate`: one :class:`EquivalenceCheck` per
data set of the battery and the candidate's audit, in a :class:`ValidationReport` (a summary, a
JSON-ready dict and Markdown)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from dpquant.audit.report.render import short
from dpquant.reference.core import PrivacyClaim


@dataclass(frozen=True)
class EquivalenceCheck:
    """One data set's equivalence test.

    Attributes:
        data: The data set.
        test: ``"dkw"``, ``"atoms"``, ``"product[...]"``, ``"two-sample"`` or ``"outputs"``.
        passed: The candidate's draws are consistent with the reference's law.
        statistic: The test's statistic.
        threshold: Its bound at the test's level.
        detectable: The smallest deviation detected with probability >= 1 − β.
        samples: The candidate's draws.
        detail: One sentence on the outcome.
    """

    data: tuple[float, ...]
    test: str
    passed: bool
    statistic: float
    threshold: float
    detectable: float
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
    """The outcome of :func:`validate`.

    Attributes:
        reference: The reference's name.
        candidate: The candidate's name.
        claim: The reference's claim, which the candidate was audited against.
        alpha: The battery's level.
        beta: The power's miss probability.
        checks: One test per data set.
        audit: The candidate's :class:`dpquant.audit.AuditReport`, or None when not audited.
    """

    reference: str
    candidate: str
    claim: PrivacyClaim
    alpha: float
    beta: float
    checks: list[EquivalenceCheck] = field(default_factory=list)
    audit: Any = None

    @property
    def equivalent(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def passed(self) -> bool:
        """Equivalent on every data set, and the audit (when run) passed: no violation, and it
        could look (:attr:`dpquant.audit.AuditReport.passed`; an inconclusive audit never passes)."""
        return self.equivalent and (self.audit is None or self.audit.passed)

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
                f"  differs on {short(c.data)}: {c.test} statistic {c.statistic:.4g} > "
                f"{c.threshold:.4g} ({c.detail})"
            )
        if self.audit is not None:
            summary, witness = self.audit.explanation().split("\n", 1)
            lines += [f"  audit: {summary}", f"  {witness}"]
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
                f"| {short(c.data)} | {c.test} | {c.statistic:.4g} | {c.threshold:.4g} | "
                f"{c.detectable:.4g} | {c.samples} | {'ok' if c.passed else 'DIFFERS'} |"
            )
        if self.audit is not None:
            summary, witness = self.audit.explanation().split("\n", 1)
            rows += ["", "## Audit", "", summary, "", witness]
        return "\n".join(rows) + "\n"


def _finite(x: float) -> float | str:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def _ratio(statistic: float, threshold: float) -> float:
    return math.inf if threshold <= 0 else statistic / threshold


__all__ = ["EquivalenceCheck", "ValidationReport"]
