"""What :func:`dpquant.audit.tools.measure_audit.audit_claim` reports: the exact part in the
claim's measure (:class:`ExactMeasureFinding`), the black-box points (:class:`ProxyAudit`), the
best bound in each of the claim's measures (:class:`MeasureBound`), and the whole
(:class:`ClaimAuditReport`: verdict, explanation, Markdown, JSON, and a plot of the worst pair's
privacy profile and Rényi curve against the claim's).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpquant.audit.report.findings import DataPair
from dpquant.audit.report.result import AuditReport
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.measures import (
    AnyClaim,
    GDPClaim,
    RenyiClaim,
    ZCDPClaim,
    claim_measure,
)

EXACT_SLACK = 1e-30
"""The exact part's slack: a value attained above the claim by less than this (relative to the
claim, absolute below 1) is rounding at the working precision of 60 digits, as the (ε, δ) exact
sweep's 1e-30 (a mechanism tight at its claim, randomised response at its ε, attains its claim
to about 1e-60)."""
CURVE_POINTS = 25
"""Points of the worst pair's privacy profile in a report."""
CURVE_ORDERS: tuple[float, ...] = (1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 64.0)
"""Orders of the worst pair's Rényi curve in a report."""


@dataclass(frozen=True)
class ExactMeasureFinding:
    """The exact part of :func:`audit_claim`, in the claim's measure.

    Attributes:
        measure: The claim's measure (``"zcdp"``, ``"renyi"``, ``"gdp"``, ``"profile"``,
            ``"pure"``, ``"approximate"``).
        claimed: The claimed value in that measure (ρ, the worst order's ε_α, μ; 0 for a
            profile, whose value is an excess of δ).
        value: The largest value attained over the pairs (a witness when above ``claimed``).
        upper: The least upper bound proven over the pairs (+inf when a search could not
            bound a pair).
        argument: Where the worst value is attained: the order α (zCDP, Rényi), the type I
            error or ε (GDP), the ε (profile).
        witness: The worst pair of data sets.
        pairs: Pairs searched.
        undecided: Pairs whose search ended with the claim inside its proven interval.
        profile_curve: On the worst pair: (ε, δ of the pair, δ the claim implies) at
            :data:`CURVE_POINTS` values of ε.
        renyi_curve: On the worst pair: (α, D_α of the pair, the bound the claim implies or
            NaN) at :data:`CURVE_ORDERS`.
    """

    measure: str
    claimed: float
    value: float
    upper: float
    argument: float
    witness: tuple[list[Any], list[Any]] | None
    pairs: int
    undecided: int
    profile_curve: tuple[tuple[float, float, float], ...] = ()
    renyi_curve: tuple[tuple[float, float, float], ...] = ()

    @property
    def violation(self) -> bool:
        """A value above the claim by more than :data:`EXACT_SLACK` (relative, at least 1e-30
        absolute) was attained on some pair: the working precision's rounding is no finding."""
        return self.value > self.claimed + EXACT_SLACK * max(1.0, abs(self.claimed))

    def to_dict(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "claimed": self.claimed,
            "value": self.value,
            "upper": self.upper,
            "argument": self.argument,
            "witness": None if self.witness is None else [list(d) for d in self.witness],
            "pairs": self.pairs,
            "undecided": self.undecided,
            "profile_curve": [list(p) for p in self.profile_curve],
            "renyi_curve": [list(p) for p in self.renyi_curve],
            "violation": self.violation,
        }


@dataclass(frozen=True)
class ProxyAudit:
    """One black-box (ε*, δ*) audit the claim implies.

    Attributes:
        epsilon: ε*.
        delta: δ* = the claim's δ at ε*.
        report: The :class:`~dpquant.audit.report.result.AuditReport` at α/k.
    """

    epsilon: float
    delta: float
    report: AuditReport

    def to_dict(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self.delta, "report": self.report.to_dict()}


@dataclass(frozen=True)
class ClaimBound:
    """A black-box lower bound in one of the claim's measures (the partition stage's, and the
    base of :class:`MeasureBound`).

    Attributes:
        measure: The measure's name (``"epsilon"``, ``"renyi"``, ``"rho"``, ``"mu"``,
            ``"profile"``).
        label: How a report names the value (e.g. ``"ρ"``, ``"D_2"``).
        claimed: The claimed value in that measure.
        bound: The lower bound (−inf when no event gave one).
        argument: The order (Rényi, zCDP) or the profile point's index where it was attained
            (NaN otherwise, or when there is no bound).
    """

    measure: str
    label: str
    claimed: float
    bound: float
    argument: float

    @property
    def violation(self) -> bool:
        """The bound exceeds the claim."""
        return self.bound > self.claimed

    def to_dict(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "label": self.label,
            "claimed": self.claimed,
            "bound": self.bound,
            "argument": self.argument,
            "violation": self.violation,
        }


@dataclass(frozen=True)
class MeasureBound(ClaimBound):
    """The best black-box bound in one of the claim's measures, from the counts of the events the
    black-box points evaluated (each at the level its point gave it).

    Attributes:
        measure: As for :class:`ClaimBound`.
        label: As for :class:`ClaimBound`.
        claimed: As for :class:`ClaimBound`.
        bound: The largest lower bound found (−inf when no event gave one).
        argument: As for :class:`ClaimBound`.
        point: The index of the black-box point whose event gave it (−1: none).
        counts: (k0, n0, k1, n1) of that event (zeros: none).
    """

    point: int
    counts: tuple[int, int, int, int]

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "point": self.point, "counts": list(self.counts)}


@dataclass(frozen=True)
class PartitionFinding:
    """The partition stage of :func:`audit_claim` (Rényi and zCDP claims;
    :mod:`dpquant.audit.tools.partition_stage`).

    Attributes:
        pair: D and D', in the direction bounded (D(M(D) ‖ M(D'))).
        event: The event whose score orders the outputs.
        cuts: The inner cut points of the score's line, chosen on selection draws.
        counts0: Evaluation draws on D in each cell kept (the last is the cell of draws
            without a score, when kept).
        counts1: Evaluation draws on D' in each cell kept.
        n: Evaluation draws per data set.
        alpha: The stage's level (its share of the audit's α).
        bounds: The bound in each of the claim's measures.
        draws: Draws made by the stage (selection and evaluation, both data sets).
    """

    pair: DataPair
    event: str
    cuts: tuple[float, ...]
    counts0: tuple[int, ...]
    counts1: tuple[int, ...]
    n: int
    alpha: float
    bounds: tuple[ClaimBound, ...]
    draws: int

    @property
    def violation(self) -> bool:
        """A bound exceeds the claim."""
        return any(b.violation for b in self.bounds)

    def to_dict(self) -> dict[str, Any]:
        return {
            "pair": self.pair.to_dict(),
            "event": self.event,
            "cuts": list(self.cuts),
            "counts0": list(self.counts0),
            "counts1": list(self.counts1),
            "n": self.n,
            "alpha": self.alpha,
            "bounds": [b.to_dict() for b in self.bounds],
            "draws": self.draws,
            "violation": self.violation,
        }


@dataclass(frozen=True)
class ClaimAuditReport:
    """What :func:`audit_claim` found.

    Attributes:
        mechanism: The mechanism's name.
        claim: The claim audited.
        alpha: The confidence parameter of the black-box part (over all its points).
        exact: The exact part, or None (no exact law, or ``mode="blackbox"``).
        proxies: The black-box audits at implied (ε*, δ*) points.
        bounds: The best black-box bound in each of the claim's measures
            (:func:`measure_bounds`).
        notes: What a reader needs to know (points skipped, searches that ended undecided).
        partition: The partition stage (Rényi and zCDP claims), or None (not run, or no event
            with a score to order outputs by).
    """

    mechanism: str
    claim: AnyClaim
    alpha: float
    exact: ExactMeasureFinding | None
    proxies: tuple[ProxyAudit, ...]
    bounds: tuple[MeasureBound, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    partition: PartitionFinding | None = None

    @property
    def violation(self) -> bool:
        """The exact part witnessed a value above the claim, a black-box point was violated, or a
        black-box bound in the claim's measure (an event's or the partition's) exceeds it."""
        exact = self.exact is not None and self.exact.violation
        blackbox = any(p.report.violation for p in self.proxies)
        partition = self.partition is not None and self.partition.violation
        return exact or blackbox or partition or any(b.violation for b in self.bounds)

    @property
    def draws(self) -> int:
        """Black-box draws made: the points' and the partition stage's."""
        stage = 0 if self.partition is None else self.partition.draws
        return sum(p.report.samples_used for p in self.proxies) + stage

    @property
    def looked(self) -> bool:
        """Whether anything was evaluated: an exact pair, or a black-box point that could
        conclude."""
        exact = self.exact is not None and self.exact.pairs > 0
        return exact or any(p.report.inconclusive is None for p in self.proxies)

    @property
    def verdict(self) -> str:
        """VIOLATION; INCONCLUSIVE (nothing could be evaluated); or no violation found (never
        a proof of privacy)."""
        if self.violation:
            return "VIOLATION"
        if not self.looked:
            return "INCONCLUSIVE: nothing was evaluated"
        return "no violation found"

    @property
    def inconclusive(self) -> str | None:
        """Why the audit could not look (nothing evaluated), or None."""
        return None if self.looked else "nothing was evaluated"

    def assert_private(self) -> None:
        """Raise ``AssertionError`` with the :meth:`explanation` unless the audit :attr:`passed`.

        Raises:
            AssertionError: the audit did not pass; its message is the :meth:`explanation`.
        """
        __tracebackhide__ = True  # pytest shows the caller's line, not this one
        if not self.passed:
            raise AssertionError(self.explanation())

    @property
    def passed(self) -> bool:
        """No violation, and every part could look (a black-box point that timed out, whose
        sampler does not match its law or that was inconclusive fails the audit)."""
        return self.looked and not self.violation and all(p.report.passed for p in self.proxies)

    def to_dict(self) -> dict[str, Any]:
        return {
            "mechanism": self.mechanism,
            "claim": self.claim.to_dict(),
            "measure": claim_measure(self.claim),
            "alpha": self.alpha,
            "verdict": self.verdict,
            "exact": None if self.exact is None else self.exact.to_dict(),
            "proxies": [p.to_dict() for p in self.proxies],
            "bounds": [b.to_dict() for b in self.bounds],
            "notes": list(self.notes),
            "partition": None if self.partition is None else self.partition.to_dict(),
            "draws": self.draws,
        }

    def explanation(self) -> str:
        """Several lines for a reader: the verdict, the claim, each part's finding."""
        lines = [f"{self.verdict}: {self.mechanism}", f"claim: {_claim_text(self.claim)}"]
        if self.exact is not None:
            e = self.exact
            where = "" if e.witness is None else f" on D = {e.witness[0]}, D' = {e.witness[1]}"
            lines.append(
                f"exact ({e.pairs} pairs): {e.measure} value {e.value:.6g} against {e.claimed:.6g}"
                f", proven at most {e.upper:.6g}{where}"
            )
        for b in self.bounds:
            lines.append(
                f"black-box {b.label} >= {b.bound:.6g} at confidence 1 - {self.alpha:g} "
                f"(claimed {b.claimed:.6g})"
            )
        if self.partition is not None:
            part = self.partition
            for pb in part.bounds:
                lines.append(
                    f"partition of {len(part.counts0)} cells ({part.n} draws per data set, at "
                    f"{part.alpha:.3g}): {pb.label} >= {pb.bound:.6g} (claimed {pb.claimed:.6g})"
                )
        for p in self.proxies:
            lines.append(
                f"black-box point (ε* = {p.epsilon:.6g}, δ* = {p.delta:.3g}): {p.report.verdict}, "
                f"ε_lb = {p.report.epsilon_lower_bound:.4g}, {p.report.samples_used} draws"
            )
        lines.extend(f"note: {n}" for n in self.notes)
        lines.append("no violation found is never a proof of privacy")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """The explanation as a Markdown section."""
        body = "\n".join(f"* {line}" for line in self.explanation().splitlines()[1:])
        return f"# {self.verdict}: {self.mechanism}\n\n{body}\n"

    def plot(self, path: str | os.PathLike[str]) -> Path:
        """The worst pair's privacy profile δ(ε) and Rényi curve D_α against the claim's (the
        exact part's curves; without them, the black-box bounds against the claim).

        Args:
            path: A file path with an image suffix matplotlib writes (missing folders are
                created).

        Returns:
            The path written.

        Raises:
            ValueError: naming ``path``, when it is not such a path or cannot be written.
            dpquant.audit.report.extras.MissingExtra: when matplotlib is not installed.
        """
        from dpquant.audit.report.render import image_path, save_figure

        target = image_path(path)
        import matplotlib.pyplot as plt

        fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
        exact = self.exact
        if exact is not None and exact.profile_curve:
            eps = [p[0] for p in exact.profile_curve]
            left.plot(eps, [p[1] for p in exact.profile_curve], label="δ(ε), worst pair")
            left.plot(eps, [p[2] for p in exact.profile_curve], "--", label="δ(ε) claimed")
            left.set_yscale("log")
            left.set_xlabel("ε")
            left.set_ylabel("δ")
            left.legend(fontsize=8)
        if exact is not None and exact.renyi_curve:
            orders = [p[0] for p in exact.renyi_curve]
            right.plot(orders, [p[1] for p in exact.renyi_curve], "o-", label="D_α, worst pair")
            right.plot(orders, [p[2] for p in exact.renyi_curve], "--", label="claimed")
            right.set_xscale("log", base=2)
            right.set_xticks(orders[2::2], [f"{a:g}" for a in orders[2::2]])
            right.set_xlabel("order α")
            right.set_ylabel("D_α")
            right.legend(fontsize=8)
        if exact is None:
            shown: list[ClaimBound] = list(self.bounds)
            if self.partition is not None:
                shown += self.partition.bounds
            names = [b.label for b in shown]
            left.bar(range(len(names)), [max(b.bound, 0.0) for b in shown], label="bound")
            left.scatter(
                range(len(names)),
                [b.claimed for b in shown],
                color="k",
                zorder=3,
                label="claimed",
            )
            left.set_xticks(range(len(names)), [n[:18] for n in names], fontsize=7)
            left.legend(fontsize=8)
            right.axis("off")
        fig.suptitle(f"{self.verdict}: {self.mechanism[:60]}", fontsize=9)
        return save_figure(fig, target)

    def summary(self) -> str:
        """One line: the verdict, the measure, the exact value against the claim, the points."""
        parts = [f"{self.verdict}: {self.mechanism} against {claim_measure(self.claim)}"]
        if self.exact is not None:
            e = self.exact
            parts.append(f"exact {e.value:.6g} (claimed {e.claimed:.6g}, proven <= {e.upper:.6g})")
        for p in self.proxies:
            parts.append(f"(ε*={p.epsilon:.4g}, δ*={p.delta:.3g}): {p.report.verdict}")
        for b in self.bounds:
            parts.append(f"{b.label} >= {b.bound:.4g} (claimed {b.claimed:.4g})")
        if self.partition is not None:
            for pb in self.partition.bounds:
                parts.append(f"partition {pb.label} >= {pb.bound:.4g} (claimed {pb.claimed:.4g})")
        return "; ".join(parts)


def _claim_text(claim: AnyClaim) -> str:
    if isinstance(claim, PrivacyClaim):
        return f"(ε = {claim.epsilon:g}, δ = {claim.delta:g}), {claim.adjacency}"
    if isinstance(claim, ZCDPClaim):
        xi = f", ξ = {claim.xi:g}" if claim.xi else ""
        return f"ρ = {claim.rho:g}{xi} (zCDP), {claim.adjacency}"
    if isinstance(claim, GDPClaim):
        return f"μ = {claim.mu:g} (GDP), {claim.adjacency}"
    if isinstance(claim, RenyiClaim):
        orders = ", ".join(f"ε_{a:g} = {e:g}" for a, e in claim.orders)
        return f"Rényi DP {orders}, {claim.adjacency}"
    return f"profile of {len(claim.points)} points ({claim.source}), {claim.adjacency}"


__all__ = [
    "EXACT_SLACK",
    "CURVE_ORDERS",
    "CURVE_POINTS",
    "ClaimAuditReport",
    "ExactMeasureFinding",
    "ClaimBound",
    "MeasureBound",
    "PartitionFinding",
    "ProxyAudit",
]
