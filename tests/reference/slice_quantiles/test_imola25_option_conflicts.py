"""Options of the SliceQuantiles planner and of AQ that contradict each other or have no effect
(issue 34; notes/imola25.md, "Issue 34"): refused with a ValueError naming both parameters and
what to give instead, never one silently overriding the other."""

from __future__ import annotations

import numpy as np
import pytest

from dpquant.reference.slice_quantiles.aq_mechanism import (
    ApproximateQuantilesMechanism,
    approximate_quantiles,
)
from dpquant.reference.slice_quantiles.slice_release import plan_slice_quantiles, slice_quantiles

X20 = np.arange(1.0, 21.0)
PLAN = dict(n=20, bounds=(0.0, 21.0), epsilon=40.0, delta=1e-3, quantiles=[0.5])
RELEASE = dict(bounds=(0.0, 21.0), epsilon=40.0, delta=1e-3, rng=np.random.default_rng(0))


def test_min_gap_and_a_different_half_width_are_refused_naming_both() -> None:
    """min_gap = 1 derives h = 3 (ψ = 21, ε2 = 40/6, β = 0.05); half_width = 1 used to win
    silently. Refused by the planner and by slice_quantiles, saying what to give instead."""
    assert plan_slice_quantiles(**PLAN, min_gap=1.0).mechanism.half_width == 3
    pattern = r"min_gap .* half_width|half_width .* min_gap"
    with pytest.raises(ValueError, match=pattern) as info:
        plan_slice_quantiles(**PLAN, min_gap=1.0, half_width=1)
    assert "h = 3" in str(info.value) and "grid_step" in str(info.value)
    with pytest.raises(ValueError, match=pattern):
        slice_quantiles(X20, [0.5], min_gap=1.0, half_width=1, **RELEASE)
    with pytest.raises(ValueError, match=pattern):
        plan_slice_quantiles(**{**PLAN, "delta": 0.0}, variant="pure", min_gap=1.0, half_width=5)


def test_min_gap_with_the_half_width_it_derives_is_the_same_plan() -> None:
    """Consistent options (half_width equal to the h that min_gap, β and the rule derive) are
    accepted: the same mechanism as either one alone."""
    alone = plan_slice_quantiles(**PLAN, min_gap=1.0).mechanism
    both = plan_slice_quantiles(**PLAN, min_gap=1.0, half_width=3).mechanism
    assert both == alone == plan_slice_quantiles(**PLAN, half_width=3).mechanism


@pytest.mark.parametrize(("option", "value"), [("gamma", 0.3), ("grid_step", 2.0)])
def test_pure_only_options_with_the_approximate_variant_are_refused(option, value) -> None:
    """γ (Lemma 4.3's uniform mixing) and the output grid Y exist only in the pure variant; the
    approximate plan dropped them silently (γ = 0, real-valued outputs)."""
    with pytest.raises(ValueError, match=rf"{option} .*variant") as info:
        plan_slice_quantiles(**PLAN, half_width=1, **{option: value})
    assert "variant='pure'" in str(info.value)


@pytest.mark.parametrize(("option", "value"), [("beta", 0.1), ("half_width_rule", "paper")])
def test_half_width_derivation_options_without_min_gap_are_refused(option, value) -> None:
    """β and the half-width rule only derive h from min_gap: with half_width alone they had no
    effect. With min_gap they count (and a consistent half_width is accepted)."""
    with pytest.raises(ValueError, match=rf"{option} .*half_width"):
        plan_slice_quantiles(**PLAN, half_width=1, **{option: value})
    derived = plan_slice_quantiles(**PLAN, min_gap=1.0, **{option: value}).mechanism.half_width
    assert derived != 3  # the option changed h
    both = plan_slice_quantiles(**PLAN, min_gap=1.0, half_width=derived, **{option: value})
    assert both.mechanism.half_width == derived


def test_the_pure_plan_with_a_huge_epsilon_needs_no_cc_error_bound() -> None:
    """δ_A = γ(e^ε − 1)/|Y|^m >= 1 at ε = 40 (any CC error is allowed, w = 0) was refused as
    "delta must lie in (0, 1), got 39335.9", naming a δ the caller never gave."""
    plan = plan_slice_quantiles(**{**PLAN, "delta": 0.0}, variant="pure", min_gap=1.0)
    assert plan.w == 0 and plan.cc_log_delta >= 0 and plan.mechanism.gamma == 0.05
    assert plan.mechanism.grid_step == 1.0


def test_kss_original_constant_in_pure_mode_is_refused() -> None:
    """KSS's original constant sqrt(2ρ/comp) is a zCDP constant: in mode 'pure' (ε' = ε/comp)
    it had no effect."""
    with pytest.raises(ValueError, match="kss_original_constant.*mode"):
        approximate_quantiles(
            X20, [0.5], (0.0, 21.0), 1.0, np.random.default_rng(0), kss_original_constant=True
        )
    with pytest.raises(ValueError, match="kss_original_constant.*mode"):
        ApproximateQuantilesMechanism((0.5,), 1.0, (0.0, 21.0), kss_original_constant=True)
