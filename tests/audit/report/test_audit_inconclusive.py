"""The INCONCLUSIVE verdict (``dpquant/audit/report/inconclusive.py``): an audit that could not look never
reports "no violation found" (issue 34)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dpquant.audit import audit_mechanism, from_callable
from dpquant.audit.model.outputs import Raised, normalise
from dpquant.audit.pipeline.budget import DrawBudget
from dpquant.audit.pipeline.context import AuditContext
from dpquant.audit.pipeline.plan import AuditPlan
from dpquant.audit.pipeline.stage3_evaluation import blackbox_stage
from dpquant.audit.pytest_plugin import make_auditor
from dpquant.audit.report.inconclusive import (
    EARLY_STOP_DRAWS,
    NO_OUTPUT_SHARE,
    CannotConclude,
    OutputTally,
    is_output,
)
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.primitives.randomized_response import RandomizedResponse

LOCAL = PrivacyClaim(1.0, 0.0, "local")
REPLACE = PrivacyClaim(1.0, 0.0, "replace_one")


class Broken:
    """A mechanism whose every draw fails in the way ``draw`` says."""

    claim = REPLACE
    domain = (0.0, 1.0)

    def __init__(self, draw: Any, name: str):
        self.draw, self.name = draw, name

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> Any:
        return self.draw(np.asarray(data, dtype=float), size, rng)


def _recursion_error(data: np.ndarray, size: int, rng: np.random.Generator) -> Any:
    raise RecursionError("maximum recursion depth exceeded")  # as a sampler that recurses


def _noisy_mean(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    centre = data.mean() if len(data) else 0.5
    return centre + rng.laplace(scale=1.0 / max(1, len(data)), size=size)


# -- the verdict, through every entry point --------------------------------------------------


def test_a_mechanism_that_recurses_forever_is_inconclusive_and_stops_early() -> None:
    """The issue's case: 518,288 failed draws and "no violation found". Now the audit stops
    after the first screen (every candidate drawn on, every draw the same failure). (A function
    that recurses is refused by ``from_callable``'s trial; a mechanism object is drawn.)"""
    pairs = [([0.0, 0.5], [1.0, 0.5]), ([0.0], [1.0]), ([0.25], [0.75]), ([0.5, 0.5], [0.5, 1.0])]
    broken = audit_mechanism(Broken(_recursion_error, "recurses"), pairs=pairs, samples=2000)
    working = audit_mechanism(Broken(_noisy_mean, "noisy mean"), pairs=pairs, samples=2000)
    assert broken.inconclusive is not None and broken.inconclusive.kind == "no_output"
    assert "every one of its" in broken.inconclusive.reason
    assert "raised RecursionError" in broken.inconclusive.reason
    assert broken.verdict.startswith("INCONCLUSIVE") and not broken.passed
    assert not broken.violation and broken.witness is None
    assert any("stopped early" in n for n in broken.notes)
    assert broken.samples_used < working.samples_used / 3  # not the whole budget
    assert working.passed and working.inconclusive is None


def test_every_way_of_reading_an_inconclusive_report_fails() -> None:
    report = audit_mechanism(
        from_callable(lambda d, rng: None, LOCAL, (0.0, 1.0), name="none"), samples=500
    )
    assert "returned None" in report.verdict
    with pytest.raises(AssertionError, match="INCONCLUSIVE"):
        report.assert_private()
    as_dict = report.to_dict()
    assert as_dict["inconclusive"]["kind"] == "no_output" and as_dict["passed"] is False
    assert as_dict["verdict"].startswith("INCONCLUSIVE")
    assert "INCONCLUSIVE" in report.to_markdown() and "INCONCLUSIVE" in report.summary()


def test_the_plugin_fails_an_inconclusive_audit_unless_asked_for_the_report() -> None:
    dp_audit = make_auditor({"samples": 500, "seed": 0})
    with pytest.raises(pytest.fail.Exception, match="INCONCLUSIVE"):
        dp_audit(lambda d, rng: None, claim=LOCAL, domain=(0.0, 1.0))
    report = dp_audit(lambda d, rng: None, claim=LOCAL, domain=(0.0, 1.0), allow_inconclusive=True)
    assert report.inconclusive is not None
    with pytest.raises(ValueError, match="allow_inconclusive"):
        dp_audit(RandomizedResponse(1.0), allow_inconclusive="yes")


def test_a_violation_outranks_a_mechanism_with_no_output() -> None:
    """Every draw fails, but in one way on D and in another on D': the kinds of failure leak,
    and the audit says VIOLATION (a bound above the claim is evidence)."""

    def fails_by_data(data: np.ndarray, rng: np.random.Generator) -> float:
        if data[0] > 0.5:
            raise KeyError("high")
        raise IndexError("low")

    mech = from_callable(
        lambda d, rng: fails_by_data(d, rng) if d[0] != 0.25 else 0.0,
        LOCAL,
        (0.0, 1.0),
        name="fails by data",
    )
    report = audit_mechanism(mech, pairs=[([0.0], [1.0])], samples=2000, seed=0)
    assert report.violation and report.inconclusive is None and report.verdict == "VIOLATION"


def test_a_mechanism_that_fails_on_some_draws_only_is_conclusive() -> None:
    """Exceptions are outputs below the threshold: half the draws raise, the audit concludes."""

    def half(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        out = rng.random(size).astype(object)
        out[rng.random(size) < 0.5] = None
        return out

    report = audit_mechanism(Broken(half, "half"), pairs=[([0.0], [1.0])], samples=2000)
    assert report.inconclusive is None and report.passed, report.summary()


def test_outputs_that_never_repeat_are_inconclusive() -> None:
    """A leaky mechanism whose draws are strings printing a continuous value: no event can count
    them (each is seen once), so "no violation found" would be a pass by omission."""

    def as_text(data: np.ndarray, size: int, rng: np.random.Generator) -> list[str]:
        return [f"{x:.9f}" for x in _noisy_mean(data, size, rng) / 100]

    report = audit_mechanism(Broken(as_text, "as text"), pairs=[([0.0], [1.0])], samples=2000)
    assert report.inconclusive is not None, report.summary()
    assert report.inconclusive.kind == "unreadable_outputs" and not report.passed


def test_symbols_that_repeat_are_read() -> None:
    """A few hundred labels repeat often enough to be counted: conclusive."""

    def label(data: np.ndarray, size: int, rng: np.random.Generator) -> list[str]:
        return [f"label {k}" for k in rng.integers(0, 200, size)]

    report = audit_mechanism(Broken(label, "labels"), pairs=[([0.0], [1.0])], samples=20_000)
    assert report.inconclusive is None and report.passed, report.summary()


def test_sequences_of_symbols_are_read_by_position_even_when_they_never_repeat_whole() -> None:
    """Three labels of 60 per draw: the pattern rarely repeats, but each position's symbol does
    (the auditor's position events read them): conclusive."""

    def three_labels(data: np.ndarray, size: int, rng: np.random.Generator) -> list[tuple]:
        return [tuple(f"l{k}" for k in row) for row in rng.integers(0, 60, (size, 3))]

    report = audit_mechanism(Broken(three_labels, "labels"), pairs=[([0.0], [1.0])], samples=2000)
    assert report.inconclusive is None and report.passed, report.summary()


def test_an_exact_mode_audit_that_computed_no_loss_is_inconclusive() -> None:
    class NoLaw(RandomizedResponse):
        def exact(self, data: Any) -> Any:
            raise RuntimeError("no law")

    report = audit_mechanism(NoLaw(1.0), pairs=[([0.0], [1.0])], mode="exact")
    assert report.inconclusive is not None and report.inconclusive.kind == "no_exact_loss"
    assert not report.passed


def test_a_black_box_stage_with_nothing_to_evaluate_cannot_conclude() -> None:
    plan = AuditPlan(
        RandomizedResponse(1.0), LOCAL, (0.0, 1.0), DrawBudget(100), 1e-6, 0, search=False
    )
    ctx = AuditContext(plan)
    with pytest.raises(CannotConclude) as stop:
        blackbox_stage(ctx, [], False)
    assert stop.value.inconclusive.kind == "nothing_evaluated"


# -- the tally and its thresholds ------------------------------------------------------------


def _batch(failed: int, numbers: int, atom: str = "raised:TypeError") -> Any:
    items = [Raised(atom.split(":", 1)[1]) if atom.startswith("raised:") else None] * failed
    return normalise(items + [0.5] * numbers, failed + numbers)


@pytest.mark.parametrize("failed", [989, 990, 1000])
def test_the_no_output_threshold_is_a_share_of_all_draws(failed: int) -> None:
    tally = OutputTally()
    tally.add(_batch(failed, 1000 - failed))
    verdict = tally.inconclusive()
    assert (verdict is not None) == (failed >= NO_OUTPUT_SHARE * 1000)
    if verdict is not None:
        assert verdict.kind == "no_output"


def test_the_early_stop_needs_enough_draws_all_the_same_failure() -> None:
    few = OutputTally()
    few.add(_batch(EARLY_STOP_DRAWS - 1, 0))
    assert few.stop() is None and few.inconclusive() is not None  # too few to stop, not to judge
    one_kind = OutputTally()
    one_kind.add(_batch(EARLY_STOP_DRAWS, 0))
    assert one_kind.stop() is not None
    two_kinds = OutputTally()
    two_kinds.add(_batch(EARLY_STOP_DRAWS, 0))
    two_kinds.add(_batch(10, 0, "raised:KeyError"))
    assert two_kinds.stop() is None  # the kinds of failure may leak: drawn to the end
    some_output = OutputTally()
    some_output.add(_batch(EARLY_STOP_DRAWS, 1))
    assert some_output.stop() is None


def test_an_audit_with_no_draw_is_inconclusive() -> None:
    verdict = OutputTally().inconclusive()
    assert verdict is not None and verdict.kind == "no_output"


@pytest.mark.parametrize(
    "atom, output",
    [
        ("", True),
        ("'a'", True),
        ("bool:True", True),
        ("(#, '⊥')", True),
        ("length:2", True),
        ("raised:ValueError", False),
        ("timeout", False),
        ("None", False),
        ("nan", False),
    ],
)
def test_what_counts_as_an_output(atom: str, output: bool) -> None:
    assert is_output(atom) is output
