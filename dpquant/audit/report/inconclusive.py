"""When an audit could not look: the INCONCLUSIVE verdict.

"No violation found" is a statement about outputs the auditor saw. An audit that saw none —
every draw raised, hung, returned ``None`` or NaN; outputs that never repeat, so that no event
can count them; a search that evaluated no pair; an exact stage that computed no loss — has no
evidence either way, and says so: its report's verdict is INCONCLUSIVE, ``assert_private()``
fails on it, the command line exits with its own code and the pytest plugin fails the test. A
violation, when one is shown, is evidence and stays the verdict (a bound that exceeds the claim
holds with confidence 1 − α whatever else the mechanism produced).

**The thresholds.** Every draw the audit's stages make is tallied (:class:`OutputTally`). Draws
that are not outputs are the atoms ``raised:<Type>`` (an exception), ``timeout``, ``None`` and
``nan``. The audit is inconclusive when at least :data:`NO_OUTPUT_SHARE` of all its draws were not
outputs; or when, among the *evaluation* draws (those the bound rests on), that share were not
outputs or were unreadable: symbols (strings, say) of a batch of at least :data:`UNREADABLE_BATCH`
draws in which they rarely repeat (more distinct symbols than half their draws, as strings that
print a continuous value), so that no event can count them. (A flat sequence of symbols and
numbers is read position by position as well as whole, so its pattern need not repeat.) Exceptions stay outputs below that
share: a mechanism that raises on D and answers on D'
leaks, and the auditor bounds by how much. The audit **stops early** (:meth:`OutputTally.stop`)
once it has made at least :data:`EARLY_STOP_DRAWS` draws, at a stage boundary where every
candidate data set has been drawn on (after the search's first screen; after a round's
selection), when every one of them was the same non-output: no event can then tell two data sets
apart, and drawing the rest of the budget would only confirm it. Draws that fail in several
different ways are drawn to the end (the kinds of failure may themselves leak).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from dpquant.audit.model.outputs import TIMEOUT, Outputs

NO_OUTPUT_SHARE = 0.99
"""The share of an audit's draws that, when they are not outputs, makes it inconclusive."""
EARLY_STOP_DRAWS = 1_000
"""The fewest draws after which an audit whose every draw was the same non-output stops."""
UNREADABLE_BATCH = 100
"""The smallest batch of evaluation draws whose symbols are judged readable or not."""
KINDS = ("no_output", "unreadable_outputs", "nothing_evaluated", "no_exact_loss")
"""Why an audit is inconclusive: no output, outputs that never repeat, no pair evaluated, no exact
loss computed (``mode="exact"``)."""


@dataclass(frozen=True)
class Inconclusive:
    """Why an audit concluded nothing.

    Attributes:
        kind: One of :data:`KINDS`.
        reason: One sentence, for the report.
    """

    kind: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "reason": self.reason}


class CannotConclude(Exception):  # noqa: N818 -- control flow: a stage found nothing to judge
    """Raised by a stage that can go no further; the runner turns it into an INCONCLUSIVE
    report.

    Args:
        inconclusive: Why (kept as the attribute ``inconclusive``; its reason is the message).
    """

    def __init__(self, inconclusive: Inconclusive):
        super().__init__(inconclusive.reason)
        self.inconclusive = inconclusive


def is_output(atom: str) -> bool:
    """Is a draw's atom an output, rather than an exception, an overrun, ``None`` or NaN?

    Args:
        atom: A draw's atom (:class:`dpquant.audit.model.outputs.Outputs`): ``""`` for a number, a
            symbol, a pattern, or ``raised:<Type>``, ``timeout``, ``None``, ``nan``.

    Returns:
        True for a number, a symbol or a pattern.
    """
    return not (atom.startswith("raised:") or atom in (TIMEOUT, "None", "nan"))


def _described(atom: str) -> str:
    """What a non-output atom means, after "every draw"."""
    if atom.startswith("raised:"):
        return f"raised {atom[len('raised:') :]}"
    return {TIMEOUT: "exceeded the time limit", "None": "returned None", "nan": "was NaN"}[atom]


@dataclass
class OutputTally:
    """Counts of an audit's draws by what they were (module docstring).

    Attributes:
        draws: Every draw counted.
        failed: The draws that were not outputs, by atom (``raised:<Type>``, ``timeout``,
            ``None``, ``nan``).
        evaluated: The evaluation draws (those the bound rests on).
        evaluated_blind: The evaluation draws that were not outputs or were unreadable
            symbols.
        example: An unreadable symbol, for the report (``""`` when none).
    """

    draws: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    evaluated: int = 0
    evaluated_blind: int = 0
    example: str = ""

    def add(self, out: Outputs, evaluation: bool = False) -> None:
        """Count the draws of one batch.

        Args:
            out: The batch.
            evaluation: The batch is of evaluation draws (the bound is computed on them).
        """
        n = len(out)
        self.draws += n
        atoms = out.atoms[~out.numeric]
        counts = Counter(atoms.tolist()) if len(atoms) else Counter()
        failed = 0
        for atom, count in counts.items():
            if not is_output(atom):
                self.failed[atom] += count
                failed += count
        if not evaluation:
            return
        self.evaluated += n
        self.evaluated_blind += failed
        # symbols read only whole (a pattern is also read position by position: not counted)
        whole = {a: c for a, c in counts.items() if is_output(a) and not a.startswith("(")}
        symbols = sum(whole.values())
        if n >= UNREADABLE_BATCH and symbols and len(whole) > symbols / 2:
            self.evaluated_blind += symbols
            self.example = self.example or next(iter(whole))

    def stop(self) -> Inconclusive | None:
        """Inconclusive now, when at least :data:`EARLY_STOP_DRAWS` draws were made and every
        one was the same non-output; else None."""
        if self.draws < EARLY_STOP_DRAWS or len(self.failed) != 1:
            return None
        ((atom, count),) = self.failed.items()
        if count != self.draws:
            return None
        return Inconclusive(
            "no_output",
            f"the mechanism produced no output: every one of its {self.draws:,} draws "
            f"{_described(atom)}",
        )

    def inconclusive(self) -> Inconclusive | None:
        """Inconclusive at the end of an audit (the thresholds of the module docstring); None
        when enough draws were readable outputs."""
        if not self.draws:
            return Inconclusive("no_output", "the audit made no draw")
        stop = self.stop()
        if stop is not None:
            return stop
        failed = sum(self.failed.values())
        if failed >= NO_OUTPUT_SHARE * self.draws:
            kinds = ", ".join(f"{a} {c:,}" for a, c in self.failed.most_common(4))
            return Inconclusive(
                "no_output",
                f"the mechanism produced almost no output: {failed:,} of its {self.draws:,} "
                f"draws were not outputs ({kinds})",
            )
        if self.example and self.evaluated_blind >= NO_OUTPUT_SHARE * self.evaluated:
            return Inconclusive(
                "unreadable_outputs",
                f"the outputs cannot be counted: {self.evaluated_blind:,} of the "
                f"{self.evaluated:,} evaluation draws are symbols that rarely repeat (e.g. "
                f"{self.example[:60]}) or not outputs; return numbers, or symbols that repeat",
            )
        return None


__all__ = [
    "EARLY_STOP_DRAWS",
    "KINDS",
    "NO_OUTPUT_SHARE",
    "UNREADABLE_BATCH",
    "CannotConclude",
    "Inconclusive",
    "OutputTally",
    "is_output",
]
