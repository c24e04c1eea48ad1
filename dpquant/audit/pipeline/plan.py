"""The plan of one audit, fixed before its first draw: what is audited, against which claim, on
which probe values, with which budget, seed and options, and how α is split.

α is shared by Bonferroni: the black-box bound of each of the :data:`CARRIED` candidates
evaluated in each of the :data:`ROUNDS` rounds holds at level α/(CARRIED·ROUNDS), so the reported
bound (their maximum) holds with confidence 1 − α. An audit that is to ``tighten`` its bound, or
that has a total budget of draws, plans one round and carries one candidate
(:data:`CARRIED_TIGHTEN`), which gets all of α (``notes/auditor.md``, "What a report means").
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from dpquant.audit.pipeline.budget import DrawBudget
from dpquant.reference.core import PrivacyClaim

CARRIED = 2
"""Candidates carried from selection into evaluation, per round."""
CARRIED_TIGHTEN = 1
"""Candidates carried into evaluation by an audit that is to ``tighten`` its bound (in its one
round): all of α and all evaluation draws on the selection's best, as DP-Sniper's final test
(Bichsel et al., S&P 2021, Alg. 1) has."""
ROUNDS = 2
"""Rounds of selection and evaluation (:func:`dpquant.audit.pipeline.budget.round_plan`: an
eighth of the budget, then all of it; or, when the search predicts a clear violation, the cut
budget, then all of it)."""


def no_progress(line: str) -> None:
    """The progress of an audit nobody watches."""


@dataclass(frozen=True)
class AuditPlan:
    """What one audit is to do, decided by :func:`dpquant.audit.pipeline.runner.audit_mechanism`
    from its checked arguments before any draw.

    Attributes:
        mech: The mechanism audited.
        claim: The claim it is audited against (checked at the time of use).
        values: The probe values of the search.
        budget: The draws (:mod:`dpquant.audit.pipeline.budget`).
        alpha: The audit's level: the bound holds with confidence 1 − α.
        seed: The seed of every draw.
        executor: Where the draws are made (None: in the audit's worker processes).
        workers: How many worker processes draw when there is no executor (one: in this
            process; :mod:`dpquant.audit.pipeline.workers`).
        search: Whether the auditor searches pairs itself (no pairs nor relation given).
        progress: Receives one line per stage.
        name: The mechanism's name in the report and in messages.
        timeout: Seconds a draw may take, or None.
        float_lattice: Whether the float-lattice events are tested.
    """

    mech: Any
    claim: PrivacyClaim
    values: tuple[float, ...]
    budget: DrawBudget
    alpha: float
    seed: int
    executor: Executor | None = None
    workers: int = 1
    search: bool = True
    progress: Callable[[str], None] = no_progress
    name: str = ""
    timeout: float | None = None
    float_lattice: bool = False

    @property
    def carried(self) -> int:
        """Candidates evaluated per round: :data:`CARRIED`, or :data:`CARRIED_TIGHTEN` in a
        single-round audit."""
        return CARRIED_TIGHTEN if self.budget.one_round else CARRIED

    @property
    def rounds(self) -> int:
        """Rounds planned: :data:`ROUNDS`, or one in a single-round audit (fixed before any
        draw, :func:`dpquant.audit.pipeline.stage3_evaluation.blackbox_stage`)."""
        return 1 if self.budget.one_round else ROUNDS

    @property
    def alpha_eval(self) -> float:
        """α per evaluated candidate: Bonferroni over the carried candidates and the rounds."""
        return self.alpha / (self.carried * self.rounds)


__all__ = ["CARRIED", "CARRIED_TIGHTEN", "ROUNDS", "AuditPlan", "no_progress"]
