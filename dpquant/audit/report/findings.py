"""What the stages of an audit found, as typed values (issue 36): the parts of an
:class:`~dpquant.audit.report.result.AuditReport` that were ``dict[str, Any]``.

* :class:`DataPair`: two neighbouring data sets, D (``data``) and D' (``data_prime``);
* :class:`ExactFindings` (with :class:`ExactPlanning`): the exact stage's pairs, worst pair and
  planning (:mod:`dpquant.audit.pipeline.stage1_exact`);
* :class:`EvaluatedCandidate` and :class:`BlackboxFindings`: the black-box stage's finalists,
  rounds and evaluated events (:mod:`dpquant.audit.pipeline.stage3_evaluation`);
* :class:`TimeoutFinding` (with :class:`HangTest`): a draw that overran the time limit, and the
  hang test on its pair (:mod:`dpquant.audit.pipeline.hang_check`);
* :class:`ConformanceCheck`: one test of the sampler against its exact law on a data set of the
  witness;
* :class:`Witness`: the pair the verdict rests on, where it comes from (``source``), and for a
  black-box or timeout witness the event (:class:`dpquant.audit.events.families.Event`) and its
  counts.

Each value is frozen (its sequences are tuples) and its ``to_dict()`` is the JSON form the report
has always had: the same keys in the same order, the same values (data sets and sequences as
lists, an event as :meth:`~dpquant.audit.events.families.Event.to_dict`), so that
``AuditReport.to_dict()`` is unchanged (``tests/golden``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from dpquant.audit.events.families import Event
from dpquant.audit.statistics.exact_loss import ExactPair

Data = tuple[Any, ...]
"""A data set as an immutable value: its records in order (a number each, or a tuple of
numbers for a vector record, :class:`dpquant.audit.model.record_spaces.Records`)."""

WitnessSource = Literal["exact", "blackbox", "timeout"]
"""Where a witness comes from: the exact stage's worst pair, the black-box stage's best
evaluated event, or the hang test of a draw that overran the time limit."""
WITNESS_SOURCES: tuple[WitnessSource, ...] = ("exact", "blackbox", "timeout")

Counting = Literal["fixed", "poisson"]
"""How an evaluation's draws were counted (:attr:`EvaluatedCandidate.counting`)."""
COUNTINGS: tuple[Counting, ...] = ("fixed", "poisson")

EXACT_NOTE = "proof by computation on the searched family only, not for all data sets"
"""What the exact stage's values prove (its findings' ``note``)."""


def as_data(d: Any) -> Data:
    """A data set (an array or a sequence, of numbers or of vector records) as a :data:`Data`.

    Args:
        d: The data set: anything with ``tolist()`` (a numpy array) or a sequence.

    Returns:
        Its records as a tuple, each vector record a tuple too; the numbers are those
        ``tolist()`` gives.
    """
    values = d.tolist() if hasattr(d, "tolist") else list(d)
    return tuple(_tupled(v) for v in values)


def _tupled(v: Any) -> Any:
    return tuple(_tupled(x) for x in v) if isinstance(v, list | tuple) else v


def _listed(v: Any) -> Any:
    """A :data:`Data` (or any nest of tuples) as the lists of its JSON form."""
    return [_listed(x) for x in v] if isinstance(v, tuple) else v


@dataclass(frozen=True)
class DataPair:
    """Two neighbouring data sets.

    Attributes:
        data: D.
        data_prime: D', its neighbour.
    """

    data: Data
    data_prime: Data

    @classmethod
    def of(cls, d0: Any, d1: Any) -> DataPair:
        """The pair of two data sets given as arrays or sequences (:func:`as_data`).

        Args:
            d0: D.
            d1: D'.

        Returns:
            The pair.
        """
        return cls(as_data(d0), as_data(d1))

    def to_dict(self) -> dict[str, Any]:
        """``{"data": [...], "data_prime": [...]}``."""
        return {"data": _listed(self.data), "data_prime": _listed(self.data_prime)}


@dataclass(frozen=True)
class ExactPlanning:
    """What the exact laws promise the black-box stage on the most detectable pair
    (:class:`dpquant.audit.statistics.power.PairPower`).

    Attributes:
        best_expected_bound: The expected ε lower bound of its likelihood-ratio event at the
            evaluation draws.
        event_masses: That event's masses on D and on D'.
        samples_needed_to_exceed_claim: The draws per side at which the bound is expected to
            exceed the claim, or None when none up to the limit would.
    """

    best_expected_bound: float
    event_masses: tuple[float, float]
    samples_needed_to_exceed_claim: int | None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``event_masses`` a list)."""
        return {
            "best_expected_bound": self.best_expected_bound,
            "event_masses": list(self.event_masses),
            "samples_needed_to_exceed_claim": self.samples_needed_to_exceed_claim,
        }


@dataclass(frozen=True)
class ExactFindings:
    """The exact stage's findings (:mod:`dpquant.audit.pipeline.stage1_exact`): a proof by
    computation on the searched family of pairs only.

    Attributes:
        pairs_screened: The candidate pairs screened in floats.
        pairs_exact: The pairs whose loss was computed in mpmath.
        max_n: The largest data set of the exhaustive family, or None for the caller's pairs.
        epsilon_exact: The largest exact ε(D, D') over those pairs.
        epsilon_exact_digits: The same, to 30 significant digits.
        delta_at_claimed_epsilon: The largest δ(ε_claimed) over those pairs.
        violation: Whether some pair breaks the claim.
        worst_pair: The pair of the largest exact ε.
        worst_pair_analysis: Its hockey-stick curve and Rényi divergences
            (:class:`dpquant.audit.statistics.exact_loss.ExactPair`).
        planning: What the most detectable pair promises the black-box stage.
        note: What these values prove (:data:`EXACT_NOTE`).
    """

    pairs_screened: int
    pairs_exact: int
    max_n: int | None
    epsilon_exact: float
    epsilon_exact_digits: str
    delta_at_claimed_epsilon: float
    violation: bool
    worst_pair: DataPair
    worst_pair_analysis: ExactPair
    planning: ExactPlanning
    note: str = EXACT_NOTE

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the pairs as ``{"data", "data_prime"}``, the analysis as
        :meth:`~dpquant.audit.statistics.exact_loss.ExactPair.to_dict`."""
        return {
            "pairs_screened": self.pairs_screened,
            "pairs_exact": self.pairs_exact,
            "max_n": self.max_n,
            "epsilon_exact": self.epsilon_exact,
            "epsilon_exact_digits": self.epsilon_exact_digits,
            "delta_at_claimed_epsilon": self.delta_at_claimed_epsilon,
            "violation": self.violation,
            "worst_pair": self.worst_pair.to_dict(),
            "worst_pair_analysis": self.worst_pair_analysis.to_dict(),
            "planning": self.planning.to_dict(),
            "note": self.note,
        }


@dataclass(frozen=True)
class EvaluatedCandidate:
    """One candidate of the black-box stage counted on fresh evaluation draws: its event held
    ``k0`` of ``n0`` draws on D and ``k1`` of ``n1`` on D' (D the data set on which the event
    is the more likely, so the pair may be the candidate's reversed).

    Attributes:
        round: The round (0 for the first).
        pair: D and D', in the event's direction.
        event: The event chosen on the selection draws.
        k0: Evaluation draws on D in the event.
        n0: Evaluation draws on D.
        k1: Evaluation draws on D' in the event.
        n1: Evaluation draws on D'.
        epsilon_lower_bound: The ε lower bound of these counts
            (:func:`dpquant.audit.statistics.bounds.epsilon_lower_bound`).
        event_log_ratio_ci: The confidence interval of ln(p0/p1).
        selection_expected_bound: The bound the selection draws promised for the event.
        counting: ``"fixed"`` (n0, n1 fixed; :func:`dpquant.audit.statistics.bounds.epsilon_lower_bound`)
            or ``"poisson"`` (n0, n1 Poisson; :mod:`dpquant.audit.statistics.poisson_counts`).

    Raises:
        ValueError: ``counting`` not in :data:`COUNTINGS`.
    """

    round: int
    pair: DataPair
    event: Event
    k0: int
    n0: int
    k1: int
    n1: int
    epsilon_lower_bound: float
    event_log_ratio_ci: tuple[float, float]
    selection_expected_bound: float
    counting: Counting = "fixed"

    def __post_init__(self) -> None:
        if self.counting not in COUNTINGS:
            raise ValueError(f"counting must be one of {COUNTINGS}, got {self.counting!r}")

    @property
    def p0_hat(self) -> float:
        """The event's share of the draws on D (0 of none)."""
        return self.k0 / self.n0 if self.n0 else 0.0

    @property
    def p1_hat(self) -> float:
        """The event's share of the draws on D' (0 of none)."""
        return self.k1 / self.n1 if self.n1 else 0.0

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, with the shares ``p0_hat`` and ``p1_hat``."""
        return {
            "round": self.round,
            **self.pair.to_dict(),
            "event": self.event.to_dict(),
            "k0": self.k0,
            "n0": self.n0,
            "k1": self.k1,
            "n1": self.n1,
            "p0_hat": self.p0_hat,
            "p1_hat": self.p1_hat,
            "epsilon_lower_bound": self.epsilon_lower_bound,
            "event_log_ratio_ci": list(self.event_log_ratio_ci),
            "selection_expected_bound": self.selection_expected_bound,
            "counting": self.counting,
        }


@dataclass(frozen=True)
class BlackboxFindings:
    """The black-box stage's findings (:func:`dpquant.audit.pipeline.stage3_evaluation.blackbox_stage`).

    Attributes:
        finalists: The pairs given selection draws.
        budgets_per_side: Each finalist's planned draws per data set.
        rounds: The draws per data set of each finalist in each round run.
        selection_fraction: The share of a finalist's draws that chooses its event.
        carried: The finalists evaluated per round.
        alpha_per_candidate: The level of each evaluated candidate's bound.
        evaluated: Every evaluated candidate, round by round.
        epsilon_lower_bound: The largest bound of all rounds (at least 0).
        violation: Whether that bound exceeds the claim.
    """

    finalists: tuple[DataPair, ...]
    budgets_per_side: tuple[int, ...]
    rounds: tuple[tuple[int, ...], ...]
    selection_fraction: float
    carried: int
    alpha_per_candidate: float
    evaluated: tuple[EvaluatedCandidate, ...]
    epsilon_lower_bound: float
    violation: bool

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (sequences as lists)."""
        return {
            "finalists": [p.to_dict() for p in self.finalists],
            "budgets_per_side": list(self.budgets_per_side),
            "rounds": [list(r) for r in self.rounds],
            "selection_fraction": self.selection_fraction,
            "carried": self.carried,
            "alpha_per_candidate": self.alpha_per_candidate,
            "evaluated": [e.to_dict() for e in self.evaluated],
            "epsilon_lower_bound": self.epsilon_lower_bound,
            "violation": self.violation,
        }


@dataclass(frozen=True)
class HangTest:
    """The hang test on the pair where a draw overran the time limit
    (:func:`dpquant.audit.pipeline.hang_check.hang_test`): fresh single draws on D and on D',
    and the bound of the event "timed out".

    Attributes:
        draws_per_side: The draws planned per data set (0: the test was skipped, the limit
            allowing too few draws for any bound above the claim).
        draws_on_data: The draws made on D (fewer when they stopped at the overruns' cap).
        draws_on_data_prime: The draws made on D'.
        timeouts_on_data: The draws on D that timed out.
        timeouts_on_data_prime: The draws on D' that timed out.
        epsilon_lower_bound: The bound of the event "timed out", D against D' (at least 0).
        alpha: Its level.
    """

    draws_per_side: int
    draws_on_data: int
    draws_on_data_prime: int
    timeouts_on_data: int
    timeouts_on_data_prime: int
    epsilon_lower_bound: float
    alpha: float

    @property
    def skipped(self) -> bool:
        """No draws: the limit allowed too few for any bound above the claim."""
        return self.draws_per_side == 0

    def to_dict(self) -> dict[str, Any]:
        """The JSON form, with ``skipped``."""
        return {
            "draws_per_side": self.draws_per_side,
            "draws_on_data": self.draws_on_data,
            "draws_on_data_prime": self.draws_on_data_prime,
            "timeouts_on_data": self.timeouts_on_data,
            "timeouts_on_data_prime": self.timeouts_on_data_prime,
            "epsilon_lower_bound": self.epsilon_lower_bound,
            "alpha": self.alpha,
            "skipped": self.skipped,
        }


@dataclass(frozen=True)
class TimeoutFinding:
    """A draw that overran the audit's time limit, which stopped the audit there.

    Attributes:
        limit_seconds: The time limit of a draw.
        stage: The stage whose draw overran.
        pair: D (where the draw overran) and D', its pair.
        hang_test: The hang test on that pair.
    """

    limit_seconds: float
    stage: str
    pair: DataPair
    hang_test: HangTest

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (the pair's data sets at the top level)."""
        return {
            "limit_seconds": self.limit_seconds,
            "stage": self.stage,
            **self.pair.to_dict(),
            "hang_test": self.hang_test.to_dict(),
        }


@dataclass(frozen=True)
class ConformanceCheck:
    """One test of the sampler against its exact law on a data set of the witness
    (:func:`dpquant.audit.pipeline.stage3_evaluation.witness_conformance`): a test of
    :func:`dpquant.reference.conformance.check_sampler` (with its ``alpha`` and ``samples``),
    or ``"atoms"``, failed, when the draws are not outputs of the law (with the ``detail``).

    Attributes:
        data: The data set.
        test: The test's name.
        passed: Whether the draws fit the law.
        statistic: The test statistic.
        threshold: The statistic's threshold.
        alpha: The test's level (None for ``"atoms"``).
        samples: The draws tested (None for ``"atoms"``).
        detail: What the draws held instead (``"atoms"`` only).

    Raises:
        ValueError: when ``detail`` is given together with ``alpha`` or ``samples``, or neither
            is given.
    """

    data: Data
    test: str
    passed: bool
    statistic: float
    threshold: float
    alpha: float | None = None
    samples: int | None = None
    detail: str | None = None

    def __post_init__(self) -> None:
        tested = self.alpha is not None and self.samples is not None
        untested = self.alpha is None and self.samples is None
        if not (tested if self.detail is None else untested):
            raise ValueError(
                "a conformance check has alpha and samples (a test of check_sampler) or a "
                f"detail (draws that are not outputs of the law), got alpha={self.alpha!r}, "
                f"samples={self.samples!r}, detail={self.detail!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: ``alpha`` and ``samples``, or ``detail``."""
        d: dict[str, Any] = {
            "data": _listed(self.data),
            "test": self.test,
            "passed": self.passed,
            "statistic": self.statistic,
            "threshold": self.threshold,
        }
        if self.detail is not None:
            d["detail"] = self.detail
        else:
            d["alpha"], d["samples"] = self.alpha, self.samples
        return d


@dataclass(frozen=True)
class Witness:
    """The pair a verdict rests on (:attr:`~dpquant.audit.report.result.AuditReport.witness`).

    An ``"exact"`` witness is the exact stage's worst pair, nothing more. A ``"blackbox"`` or
    ``"timeout"`` witness also has the ``event`` and its counts, ``k0`` of ``n0`` draws on D
    and ``k1`` of ``n1`` on D', with the ``epsilon_lower_bound`` they give; a ``"blackbox"``
    one also its ``round``, ``event_log_ratio_ci`` and ``selection_expected_bound``
    (:class:`EvaluatedCandidate`). The other fields are None.

    Attributes:
        pair: D and D'.
        source: One of :data:`WITNESS_SOURCES`.
        event: The event counted.
        k0: Draws on D in the event.
        n0: Draws on D.
        k1: Draws on D' in the event.
        n1: Draws on D'.
        epsilon_lower_bound: The ε lower bound of the counts.
        round: The black-box round.
        event_log_ratio_ci: The confidence interval of ln(p0/p1).
        selection_expected_bound: The bound the selection draws promised.
        counting: A black-box witness's :attr:`EvaluatedCandidate.counting` (``"fixed"`` if None).

    Raises:
        ValueError: a ``source`` not in :data:`WITNESS_SOURCES`, or fields that do not fit it.
    """

    pair: DataPair
    source: WitnessSource
    event: Event | None = None
    k0: int | None = None
    n0: int | None = None
    k1: int | None = None
    n1: int | None = None
    epsilon_lower_bound: float | None = None
    round: int | None = None
    event_log_ratio_ci: tuple[float, float] | None = None
    selection_expected_bound: float | None = None
    counting: Counting | None = None

    def __post_init__(self) -> None:
        if self.source not in WITNESS_SOURCES:
            raise ValueError(f"source must be one of {WITNESS_SOURCES}, got {self.source!r}")
        if self.source == "blackbox" and self.counting is None:
            object.__setattr__(self, "counting", "fixed")
        if (self.counting is None) == (self.source == "blackbox") or (
            self.counting is not None and self.counting not in COUNTINGS
        ):
            raise ValueError(
                f"counting must be one of {COUNTINGS} for a black-box witness and None for"
                f" another, got {self.counting!r} for {self.source!r}"
            )
        counted = (self.event, self.k0, self.n0, self.k1, self.n1, self.epsilon_lower_bound)
        selected = (self.round, self.event_log_ratio_ci, self.selection_expected_bound)
        wanted_counted = self.source != "exact"
        wanted_selected = self.source == "blackbox"
        if any((v is None) == wanted_counted for v in counted) or any(
            (v is None) == wanted_selected for v in selected
        ):
            raise ValueError(
                f"{'an' if self.source == 'exact' else 'a'} {self.source} witness has "
                + ("its event, counts and bound" if wanted_counted else "no event, counts or bound")
                + (" and its round, interval and selection bound" if wanted_selected else "")
                + f", got {self!r:.300}"
            )

    @classmethod
    def from_exact(cls, pair: DataPair) -> Witness:
        """The exact stage's worst ``pair`` as the witness.

        Args:
            pair: The pair.

        Returns:
            An ``"exact"`` witness.
        """
        return cls(pair, "exact")

    @classmethod
    def from_evaluated(cls, e: EvaluatedCandidate) -> Witness:
        """The evaluated candidate ``e`` as the witness.

        Args:
            e: The candidate whose bound is the report's.

        Returns:
            A ``"blackbox"`` witness with ``e``'s fields.
        """
        return cls(
            e.pair,
            "blackbox",
            e.event,
            e.k0,
            e.n0,
            e.k1,
            e.n1,
            e.epsilon_lower_bound,
            e.round,
            e.event_log_ratio_ci,
            e.selection_expected_bound,
            e.counting,
        )

    @classmethod
    def from_hang_test(
        cls, pair: DataPair, event: Event, counts: tuple[int, int, int, int], bound: float
    ) -> Witness:
        """The hang test's pair as the witness.

        Args:
            pair: D (where a draw overran) and D'.
            event: The event "timed out".
            counts: ``(k0, n0, k1, n1)``: draws that timed out and draws made, on D then D'.
            bound: The ε lower bound of the counts.

        Returns:
            A ``"timeout"`` witness.
        """
        k0, n0, k1, n1 = counts
        return cls(pair, "timeout", event, k0, n0, k1, n1, bound)

    @property
    def data(self) -> Data:
        """D."""
        return self.pair.data

    @property
    def data_prime(self) -> Data:
        """D'."""
        return self.pair.data_prime

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: the pair and the ``source``; with the event and counts, for a
        black-box witness the fields of :meth:`EvaluatedCandidate.to_dict`."""
        if self.source == "exact":
            return {**self.pair.to_dict(), "source": self.source}
        assert self.event is not None and self.n0 is not None and self.n1 is not None
        assert self.k0 is not None and self.k1 is not None and self.epsilon_lower_bound is not None
        if self.source == "blackbox":
            assert self.round is not None and self.event_log_ratio_ci is not None
            assert self.selection_expected_bound is not None
            e = EvaluatedCandidate(
                self.round,
                self.pair,
                self.event,
                self.k0,
                self.n0,
                self.k1,
                self.n1,
                self.epsilon_lower_bound,
                self.event_log_ratio_ci,
                self.selection_expected_bound,
                self.counting or "fixed",
            )
            return {**e.to_dict(), "source": self.source}
        return {
            **self.pair.to_dict(),
            "event": self.event.to_dict(),
            "k0": self.k0,
            "n0": self.n0,
            "k1": self.k1,
            "n1": self.n1,
            "epsilon_lower_bound": self.epsilon_lower_bound,
            "source": self.source,
        }


__all__ = [
    "COUNTINGS",
    "EXACT_NOTE",
    "WITNESS_SOURCES",
    "BlackboxFindings",
    "ConformanceCheck",
    "Counting",
    "Data",
    "DataPair",
    "EvaluatedCandidate",
    "ExactFindings",
    "ExactPlanning",
    "HangTest",
    "TimeoutFinding",
    "Witness",
    "WitnessSource",
    "as_data",
]
