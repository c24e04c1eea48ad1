"""``validate`` / ``dpquant validate``: is a candidate the reference mechanism? (issue 8 item 5)

Shown on an independent, correct implementation of Smith's exponential mechanism written here
(passes equivalence and its audit) and on perturbed copies of ours (ε scaled by 1.6; the ½
missing from the exponent: caught by the equivalence tests, and the second also by the audit).
Each validation's family-wise false alarm is 1e-6 (the default), so a correct candidate fails this
module with probability below 1e-5; the seeds make it deterministic.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from dpquant.audit.suites.catalogue import EMNoHalf
from dpquant.audit.tools.equivalence import (
    battery,
    detectable_deviation,
    two_sample_check,
    validate,
)
from dpquant.cli import main
from dpquant.reference.conformance import dkw_threshold
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile

REFERENCE = ExponentialQuantile(0.5, 1.0, (0.0, 1.0), adjacency="replace_one")
SIZES = (1, 5, 33)


@functools.lru_cache(maxsize=4096)
def _smith_table(values: tuple[float, ...], epsilon: float) -> tuple[list[float], list[float]]:
    """The clamped, sorted points (with 0 and 1) and the cumulative interval weights of Smith's EM
    on ``values``: a function of the data alone, so the audit's many draws on one data set share
    it (the draws are the same numbers as recomputing it every time)."""
    z = sorted(min(max(v, 0.0), 1.0) for v in values)
    points = [0.0, *z, 1.0]
    n = len(z)
    logs = []
    for j in range(n + 1):
        width = points[j + 1] - points[j]
        logs.append(math.log(width) - epsilon / 2 * abs(j - n / 2) if width > 0 else -math.inf)
    top = max(logs)
    weights = [math.exp(v - top) for v in logs]
    return points, list(itertools.accumulate(weights))


def smith_median(data: np.ndarray, rng: np.random.Generator, epsilon: float = 1.0) -> float:
    """An independent implementation of Smith's EM for the median on (0, 1) (replace-one, Δ = 1):
    plain Python over the intervals between the clamped, sorted points, one draw at a time."""
    points, cumulative = _smith_table(tuple(np.asarray(data, dtype=float).tolist()), epsilon)
    n = len(points) - 2
    j = min(bisect.bisect_right(cumulative, rng.random() * cumulative[-1]), n)
    return points[j] + rng.random() * (points[j + 1] - points[j])


def hot_median(data: np.ndarray, rng: np.random.Generator) -> float:
    """A perturbed copy of ours: ε = 1.6 where 1 is claimed."""
    return smith_median(data, rng, epsilon=1.6)


def sets() -> list[np.ndarray]:
    return battery(REFERENCE.domain, "replace_one", SIZES)


def test_battery_covers_ties_splits_outliers_and_local_values() -> None:
    data = sets()
    assert len(data) == len({tuple(d) for d in data}) >= 10
    assert any(len(set(d)) == 1 and len(d) == 33 for d in data)  # all tied
    assert any(len(set(d)) == 2 and abs(sum(d == d[0]) - len(d) / 2) <= 0.5 for d in data)
    assert any(d.max() >= 1000 for d in data) and any(d.min() <= -1000 for d in data)
    local = battery((0.0, 1.0), "local")
    assert all(len(d) == 1 for d in local) and len(local) >= 3


def test_detectable_deviation_is_the_band_plus_the_power_term() -> None:
    t = dkw_threshold(10_000, 1e-7)
    assert detectable_deviation(t, 10_000, 0.05) == pytest.approx(
        t + math.sqrt(math.log(40) / 20_000)
    )
    assert detectable_deviation(t, 40_000, 0.05) < detectable_deviation(t, 10_000, 0.05)


def test_independent_correct_implementation_passes_equivalence_and_its_audit() -> None:
    report = validate(
        REFERENCE, smith_median, datasets=sets(), samples=4_000, audit_samples=20_000, seed=1
    )
    assert report.equivalent, report.summary()
    assert report.audit is not None and not report.audit.violation, report.summary()
    assert report.passed
    worst = report.worst
    assert worst is not None and worst.statistic <= worst.threshold
    assert all(c.detectable < 0.1 for c in report.checks)


def test_perturbed_epsilon_is_caught_by_the_equivalence_tests() -> None:
    report = validate(REFERENCE, hot_median, datasets=sets(), samples=4_000, audit=False, seed=2)
    assert not report.equivalent and not report.passed
    failed = [c for c in report.checks if not c.passed]
    assert failed and all(c.statistic > c.threshold for c in failed)
    assert "differs on" in report.summary()


def test_missing_half_is_caught_by_equivalence_and_by_the_audit() -> None:
    """The catalogue's EMNoHalf (exp(ε·u) instead of exp(ε·u/2): a 2ε mechanism claiming ε)."""
    report = validate(REFERENCE, EMNoHalf(), datasets=sets(), samples=4_000, seed=3)
    assert not report.equivalent
    assert report.audit is not None and report.audit.violation
    data = report.to_dict()
    assert data["passed"] is False and len(data["checks"]) == len(sets())


@dataclass(frozen=True)
class BlackBox:
    """Our reference without its exact law (sample and claim only)."""

    claim = REFERENCE.claim
    domain = REFERENCE.domain

    def sample(self, data, size, rng):
        return REFERENCE.sample(data, size, rng)


def test_two_sample_path_when_the_reference_has_no_exact_law() -> None:
    """A reference without ``exact`` is compared draw against draw (DKW on each side): the
    independent implementation passes; the missing ½ (a CDF gap of ~0.1 on tied data) is beyond
    the test's reported detectable deviation at 20 000 draws, and is caught."""
    same = validate(BlackBox(), smith_median, datasets=sets(), samples=4_000, audit=False, seed=4)
    assert same.equivalent and {c.test for c in same.checks} == {"two-sample"}
    bad = validate(BlackBox(), EMNoHalf(), datasets=sets(), samples=20_000, audit=False, seed=5)
    assert not bad.equivalent
    assert max(c.statistic for c in bad.checks) > max(c.detectable for c in bad.checks)


def test_two_sample_check_power_and_threshold() -> None:
    rng = np.random.default_rng(6)
    a, b = rng.random(5_000), rng.random(5_000)
    name, passed, stat, thr, power, _ = two_sample_check(a, b, 1e-6, 0.05)
    assert name == "two-sample" and passed and stat <= thr < power
    shifted = two_sample_check(a, b + 0.2, 1e-6, 0.05)
    assert not shifted[1]


def test_a_candidate_that_raises_fails_with_its_exception_named() -> None:
    def fragile(data, rng):
        if len(data) > 20:
            raise RuntimeError("too many points")
        return smith_median(data, rng)

    report = validate(REFERENCE, fragile, datasets=sets(), samples=500, audit=False)
    failed = [c for c in report.checks if not c.passed]
    assert failed and all(c.test == "outputs" and "raised:RuntimeError" in c.detail for c in failed)
    assert all(len(c.data) == 33 for c in failed)


def test_bad_arguments_raise_value_errors() -> None:
    with pytest.raises(ValueError, match="reference"):
        validate(object(), smith_median)
    with pytest.raises(ValueError, match="candidate"):
        validate(REFERENCE, 42)
    with pytest.raises(ValueError, match="samples"):
        validate(REFERENCE, smith_median, samples=10)
    with pytest.raises(ValueError, match="alpha"):
        validate(REFERENCE, smith_median, alpha=0.0)
    with pytest.raises(ValueError, match="datasets"):
        validate(REFERENCE, smith_median, datasets=[])


# ------------------------------------------------------------------------------------- CLI

REGISTRY_NAME = "exponential_quantile[q=0.5,eps=1,replace_one]"
HERE = Path(__file__).resolve()


def test_cli_validate_passes_an_independent_implementation(tmp_path, capsys) -> None:
    out = tmp_path / "v.json"
    code = main(
        ["validate", REGISTRY_NAME, f"{HERE}:smith_median", "--samples", "2000", "--sizes",
         "1,5", "--no-audit", "--json", str(out), "--markdown", str(tmp_path / "v.md")]
    )  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0, text
    assert "PASSED" in text and json.loads(out.read_text())["equivalent"] is True
    assert "| data | test |" in (tmp_path / "v.md").read_text()


def test_cli_validate_fails_a_perturbed_copy(capsys) -> None:
    code = main(
        ["validate", REGISTRY_NAME, f"{HERE}:hot_median", "--samples", "4000", "--sizes", "5,33",
         "--no-audit"]
    )  # fmt: skip
    assert code == 1 and "FAILED" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["no_such_mechanism[x]", f"{HERE}:smith_median"], "MODULE:ATTR"),
        ([REGISTRY_NAME, "peer:nope"], "unknown peer"),
        ([REGISTRY_NAME, f"{HERE}:REFERENCE_MISSING"], "no attribute"),
    ],
)
def test_cli_validate_usage_errors_exit_2(args, message, capsys) -> None:
    assert main(["validate", *args, "--no-audit"]) == 2
    assert message in capsys.readouterr().err
