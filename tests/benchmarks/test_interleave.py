"""The timing helpers of ``benchmarks/_interleave.py`` (issue 39, item 5): a ratio is formed only
from two lists of timings taken in the same turns; a figure from elsewhere is text."""

from __future__ import annotations

import statistics

import pytest
from benchmark_scripts import load_script

interleave_module = load_script("_interleave")


def test_ratio_is_the_ratio_of_the_medians_of_two_measured_lists() -> None:
    slow, fast = [0.9, 0.3, 0.5, 0.7], [0.1, 0.2, 0.4, 0.1]
    expected = statistics.median(slow) / statistics.median(fast)
    assert interleave_module.ratio(slow, fast) == pytest.approx(expected, rel=1e-15)
    assert interleave_module.ratio(slow, fast) == pytest.approx(0.6 / 0.15, rel=1e-15)


def test_ratio_of_interleaved_calls_uses_their_own_timings() -> None:
    times = interleave_module.interleave({"a": lambda: None, "b": lambda: sum(range(10))}, 5)
    assert [len(v) for v in times.values()] == [5, 5]
    got = interleave_module.ratio(times["b"], times["a"])
    assert got == statistics.median(times["b"]) / statistics.median(times["a"])


@pytest.mark.parametrize("constant", [6.3e-3, 88e-3, 1, "6.3 ms", b"6.3"])
def test_ratio_refuses_a_constant_on_either_side(constant: object) -> None:
    with pytest.raises(TypeError, match="reference"):
        interleave_module.ratio(constant, [0.002, 0.003])
    with pytest.raises(TypeError, match="reference"):
        interleave_module.ratio([0.002, 0.003], constant)


def test_ratio_refuses_timings_not_from_the_same_turns() -> None:
    with pytest.raises(ValueError, match="same turns"):
        interleave_module.ratio([0.002, 0.003, 0.004], [0.001, 0.002])
    with pytest.raises(ValueError, match="same turns"):
        interleave_module.ratio([6.3e-3], [0.001, 0.002])


@pytest.mark.parametrize("bad", [[], [0.0, 0.1], [-0.1, 0.1], [float("nan"), 0.1], [float("inf")]])
def test_ratio_refuses_empty_or_impossible_timings(bad: list[float]) -> None:
    with pytest.raises(ValueError, match="positive finite seconds"):
        interleave_module.ratio(bad, [0.1] * len(bad))
    with pytest.raises(ValueError, match="positive finite seconds"):
        interleave_module.ratio([0.1] * len(bad), bad)


def test_a_reference_is_text_naming_its_source() -> None:
    text = interleave_module.reference("6.3 ms", "issue 21, another machine")
    assert text == "6.3 ms (reference: issue 21, another machine)"
