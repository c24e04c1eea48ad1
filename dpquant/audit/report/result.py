"""The :class:`AuditReport`: what an audit found, as a plain value (JSON-ready with ``to_dict``).

Rendering it for people lives in :mod:`dpquant.audit.report.render`; ``summary()``, ``to_markdown()`` and
``plot()`` are conveniences that call it (a deferred import: :mod:`dpquant.audit.report.render` imports nothing
of the auditor, so there is no cycle).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpquant.audit.model.claimed import ClaimParts
from dpquant.audit.report.findings import (
    BlackboxFindings,
    ConformanceCheck,
    ExactFindings,
    TimeoutFinding,
    Witness,
)
from dpquant.audit.report.inconclusive import Inconclusive
from dpquant.reference.core import PrivacyClaim


@dataclass
class AuditReport(ClaimParts):
    """Result of :func:`dpquant.audit.audit_mechanism`.

    ``epsilon_lower_bound`` holds with confidence 1 − ``alpha`` (black-box: Clopper–Pearson on
    fresh evaluation draws, Bonferroni over the candidates carried into evaluation; with
    ``max_draws`` and a pure claim, of Poisson numbers of draws, conditional on the event's
    total count, ``witness.counting``; in ``exact``
    mode only, it is the exact loss of the worst pair found). ``epsilon_exact`` is a lower bound
    on the mechanism's true ε, exact on the searched family. For an approximate claim the
    violation is judged with δ subtracted from the bound, or on the exact δ(ε_claimed).

    Attributes:
        mechanism: The audited mechanism's name.
        claim: The privacy claim audited.
        mode: The stages that ran: ``"exact+blackbox"``, ``"exact"`` or ``"blackbox"``.
        epsilon_lower_bound: The ε lower bound, at confidence 1 − ``alpha``.
        epsilon_exact: The largest exact ε(D, D') over the searched pairs; None without an
            exact law.
        violation: Whether the bound or the exact value exceeds the claim.
        witness: The neighbours (``witness.data``, ``witness.data_prime``) and its ``source``;
            for a black-box or timeout witness also the event and its counts (``k0``/``n0`` on
            D, ``k1``/``n1`` on D'): a :class:`~dpquant.audit.report.findings.Witness`, or None
            without one. :meth:`explanation` shows it on one line.
        alpha: The confidence level's complement.
        seed: The seed of every draw.
        samples_used: The draws made in all, search included.
        seconds: The audit's wall-clock time.
        samples_by_stage: The draws of each stage.
        exact: The exact stage's findings (pairs, worst pair, δ curve, planning:
            :class:`~dpquant.audit.report.findings.ExactFindings`), or None.
        blackbox: The black-box stage's findings (candidates, evaluated events:
            :class:`~dpquant.audit.report.findings.BlackboxFindings`), or None.
        conformance: The checks of the sampler against its exact law
            (:class:`~dpquant.audit.report.findings.ConformanceCheck` each).
        notes: What the audit wants a reader to know (budgets, limits, a time budget's pilot).
        timed_out: Set when a draw exceeded the time limit (``timeout=``): the audit stopped
            there; the pair, the stage and the hang test's counts and bound
            (:class:`~dpquant.audit.report.findings.TimeoutFinding`). Unless that bound (or the
            exact stage) shows a violation the verdict is "INCOMPLETE".
        inconclusive: Set when the audit could not look (:mod:`dpquant.audit.report.inconclusive`: no
            output, outputs that never repeat, no pair evaluated, no exact loss) and found no
            violation: the verdict is then "INCONCLUSIVE".
    """

    mechanism: str
    claim: PrivacyClaim
    mode: str
    epsilon_lower_bound: float
    epsilon_exact: float | None
    violation: bool
    witness: Witness | None
    alpha: float
    seed: int
    samples_used: int
    seconds: float
    samples_by_stage: dict[str, int] = field(default_factory=dict)
    exact: ExactFindings | None = None
    blackbox: BlackboxFindings | None = None
    conformance: list[ConformanceCheck] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    timed_out: TimeoutFinding | None = None
    inconclusive: Inconclusive | None = None

    @property
    def tightness(self) -> float:
        """ε_lb / ε_claimed (1 means the bound reaches the claim)."""
        return self.epsilon_lower_bound / self.claim.epsilon

    @property
    def sampler_conforms(self) -> bool | None:
        """Whether every check of the sampler against its exact law passed (None without
        checks)."""
        if not self.conformance:
            return None
        return all(c.passed for c in self.conformance)

    @property
    def passed(self) -> bool:
        """No violation found, and the audit could look: no draw exceeded the time limit, the
        sampler matches its exact law (where it has one) and the audit is not inconclusive."""
        return not (
            self.violation
            or self.timed_out is not None
            or self.sampler_conforms is False
            or self.inconclusive is not None
        )

    @property
    def verdict(self) -> str:
        """The verdict, the same string as the JSON's ``verdict``: VIOLATION; INCOMPLETE (a draw exceeded the time limit); SAMPLER DOES NOT MATCH ITS
        EXACT LAW; INCONCLUSIVE (the audit could not look, with the reason); or no violation
        found (which is never a proof of privacy)."""
        if self.violation:
            return "VIOLATION"
        if self.timed_out is not None:
            return "INCOMPLETE: A DRAW EXCEEDED THE TIME LIMIT"
        if self.sampler_conforms is False:
            return "SAMPLER DOES NOT MATCH ITS EXACT LAW"
        if self.inconclusive is not None:
            return f"INCONCLUSIVE: {self.inconclusive.reason}"
        return "no violation found"

    def summary(self) -> str:
        """One line: the verdict, the claim, the ε lower bound, the exact ε on the searched pairs
        (when the audit computed one), the draws and the time."""
        from dpquant.audit.report.render import fmt

        exact = (
            ""
            if self.epsilon_exact is None
            else f"; exact ε on the searched pairs {fmt(self.epsilon_exact)}"
        )
        return (
            f"{self.mechanism}: {self.verdict} -- claimed ε = {self.claim.epsilon:g} "
            f"(δ = {self.claim.delta:g}, {self.claim.adjacency}); ε lower bound "
            f"{fmt(self.epsilon_lower_bound)} at confidence 1 - {self.alpha:g}{exact}; "
            f"{self.samples_used} draws, {self.seconds:.1f} s"
        )

    def explanation(self) -> str:
        """Two lines, as ``dpquant audit`` prints them and a failing test shows them: the
        :meth:`summary` and ``witness: D = ..., D' = ...; event: ...; counts k0/n0 vs k1/n1``
        (:func:`dpquant.audit.report.render.witness_line`)."""
        from dpquant.audit.report.render import witness_line

        return f"{self.summary()}\nwitness: {witness_line(self.witness)}"

    def assert_private(self) -> None:
        """Raise ``AssertionError`` with the :meth:`explanation` unless the audit :attr:`passed`:
        a violation, a sampler that does not match its exact law, a draw that exceeded the time
        limit, or an inconclusive audit (no output to judge) all fail.

        Raises:
            AssertionError: the audit did not pass; its message is the :meth:`explanation`.
        """
        __tracebackhide__ = True  # pytest shows the caller's line, not this one
        if not self.passed:
            raise AssertionError(self.explanation())

    def to_dict(self) -> dict[str, Any]:
        return _json_object(
            {
                "mechanism": self.mechanism,
                "claim": self.claim.to_dict(),
                "mode": self.mode,
                "claimed_epsilon": self.claimed_epsilon,
                "epsilon_lower_bound": self.epsilon_lower_bound,
                "epsilon_exact": self.epsilon_exact,
                "tightness": self.tightness,
                "violation": self.violation,
                "verdict": self.verdict,
                "witness": _dict_of(self.witness),
                "alpha": self.alpha,
                "seed": self.seed,
                "samples_used": self.samples_used,
                "samples_by_stage": self.samples_by_stage,
                "seconds": round(self.seconds, 3),
                "exact": _dict_of(self.exact),
                "blackbox": _dict_of(self.blackbox),
                "conformance": [c.to_dict() for c in self.conformance],
                "notes": self.notes,
                "timed_out": _dict_of(self.timed_out),
                "inconclusive": None if self.inconclusive is None else self.inconclusive.to_dict(),
                "passed": self.passed,
            }
        )

    def to_markdown(self) -> str:
        """The report as Markdown (:func:`dpquant.audit.report.render.render_report`)."""
        from dpquant.audit.report.render import render_report

        return render_report(self)

    def plot(self, path: str | Path) -> Path:
        """Write the report's plot (:func:`dpquant.audit.report.render.plot_report`).

        Args:
            path: A file path whose suffix names an image format matplotlib writes, e.g.
                ``.png``; missing folders are created.

        Returns:
            The path written.

        Raises:
            ValueError: naming ``path``, when it cannot be written.
            dpquant.audit.report.extras.MissingExtra: without matplotlib (install ``dpquant[plots]``).
        """
        from dpquant.audit.report.render import plot_report

        return plot_report(self, path)


def _json_object(x: dict[str, Any]) -> dict[str, Any]:
    """A dict, JSON-ready (:func:`_jsonable`)."""
    out: dict[str, Any] = _jsonable(x)
    return out


def _dict_of(
    value: Witness | ExactFindings | BlackboxFindings | TimeoutFinding | None,
) -> dict[str, Any] | None:
    return None if value is None else value.to_dict()


def _jsonable(x: Any) -> Any:
    """Floats that JSON cannot hold (inf, nan) become strings; tuples become lists."""
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):
        return _jsonable(x.item())
    return x


__all__ = ["AuditReport"]
