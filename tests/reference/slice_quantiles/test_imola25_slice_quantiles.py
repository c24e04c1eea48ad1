"""SliceQuantiles (imola25 Algorithm 1): parameters, sampler, exact law (Sec. 3.2, 4, 6;
notes/imola25.md)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.reference.conformance import check_sampler, dkw_test
from dpquant.reference.distributions import PiecewiseLogLinear, hockey_stick, privacy_loss
from dpquant.reference.slice_quantiles.clip_range import release_levels, release_order
from dpquant.reference.slice_quantiles.exact_law import (
    failure_probability,
    output_law,
    theorem_4_2_delta,
)
from dpquant.reference.slice_quantiles.inputs import SortedData
from dpquant.reference.slice_quantiles.mechanism import SliceQuantiles
from dpquant.reference.slice_quantiles.parameters import (
    budget_split,
    half_width,
    paper_pure_w,
    pure_log_delta,
    target_ranks,
    total_epsilon,
)
from dpquant.reference.slice_quantiles.single_quantile import sample_slices_em, slice_em_log_density
from dpquant.reference.slice_quantiles.slice_release import plan_slice_quantiles, slice_quantiles

X10 = np.arange(1.0, 11.0)
ALPHA = 1e-9  # each conformance test: a correct sampler fails with probability <= 1e-9


def _tiny(e1: float, e2: float, **kw) -> SliceQuantiles:
    return SliceQuantiles((3, 8), 1, e1, e2, (0.0, 11.0), "add_remove", clip_range=False, **kw)


# ---------------------------------------------------------------- parameters (Sec. 6)


def test_budget_split_composes_to_epsilon_under_both_adjacencies() -> None:
    for adj, (e1, e2) in (("add_remove", (0.5, 0.25)), ("replace_one", (0.25, 1 / 6))):
        split = budget_split(1.0, adj)
        assert (split.epsilon1, split.epsilon2) == pytest.approx((e1, e2))
        assert split.total == pytest.approx(1.0)
    assert total_epsilon(1.0, 1.0, "add_remove") == 3.0
    assert total_epsilon(1.0, 1.0, "replace_one") == 5.0


@pytest.mark.parametrize(
    ("m", "ar_tiny_g", "ar_paper_g", "sub_tiny_g", "sub_paper_g"),
    [(10, 302, 192, 453, 287), (100, 320, 210, 480, 315), (200, 326, 215, 489, 323)],
)
def test_half_width_reproduces_the_reference_values(
    m, ar_tiny_g, ar_paper_g, sub_tiny_g, sub_paper_g
) -> None:
    n = 586_104
    assert half_width(m, 0.25, 100 / (1e-6 / n)) == ar_tiny_g  # authors' g = 1e-6/n
    assert half_width(m, 0.25, 100 * n) == ar_paper_g  # paper's g = 1/n
    assert half_width(m, 1 / 6, 100 / (1e-6 / n)) == sub_tiny_g
    assert half_width(m, 1 / 6, 100 * n) == sub_paper_g


def test_section_4_worked_example_needs_base_2_logs() -> None:
    """Sec. 4: ε1 = ε2 = 1, b = 2^32, m = 100 gives w ≈ 65,000 only with log₂ (notes/imola25.md erratum 1)."""
    w2 = paper_pure_w(100, 1.0, 1.0, 0.05, 2.0**32, "add_remove", 2)
    we = paper_pure_w(100, 1.0, 1.0, 0.05, 2.0**32, "add_remove", math.e)
    assert 64_000 < w2 < 64_100
    assert 30_700 < we < 30_800


def test_corollary_4_4_corrected_delta_puts_expm1_in_the_numerator_of_delta() -> None:
    """Lemma 4.3 needs δ <= γ(e^ε − 1)/|Y|^m; the paper's log(2m(e^ε − 1)/γ) has it inverted."""
    gamma, eps, y, m = 0.05, 2.0, 101, 3
    log_d = pure_log_delta(gamma, eps, y, m)
    assert log_d == pytest.approx(math.log(gamma * math.expm1(eps) / y**m))
    # mixing weight recovered by Lemma 4.3 from this δ is γ again
    assert math.exp(log_d) * y**m / math.expm1(eps) == pytest.approx(gamma)
    printed = math.log(2 * m * math.expm1(eps) / gamma)  # the paper's bracket term
    corrected = math.log(2 * m / (gamma * math.expm1(eps)))
    assert printed - corrected == pytest.approx(2 * math.log(math.expm1(eps)))


def test_target_ranks_floor_q_n_and_bad_quantiles_raise() -> None:
    assert target_ranks([0.1, 0.5, 0.99], 10).tolist() == [1, 5, 9]
    for bad in ([0.5, 0.2], [0.2, 0.2], [0.0, 0.5], [0.5, 1.0], [np.nan], []):
        with pytest.raises(ValueError, match="quantiles"):
            target_ranks(bad, 10)


# ---------------------------------------------------------------- the slice EM


def _slice_law(pts: np.ndarray, lo: float, hi: float, eps: float) -> PiecewiseLogLinear:
    breaks, logd = slice_em_log_density(list(pts), lo, hi, eps)
    return PiecewiseLogLinear(
        np.array([float(b) for b in breaks]),
        np.zeros(len(logd)),
        np.array([float(v) for v in logd]),
    )


@pytest.mark.parametrize("method", ["inverse_cdf", "gumbel"])
@pytest.mark.parametrize(
    ("pts", "eps"),
    [
        ([1.0, 2.0, 2.5, 5.0, 9.0], 1.5),  # inverse CDF on every row
        ([1.0, 2.0, 2.0, 5.0, 9.0], 1.5),  # the target interval [2, 2] is empty: Gumbel rows
        ([1.0, 2.0, 2.5, 5.0, 9.0], 600.0),  # ε·max|j − t|/2 = 900: g underflows, Gumbel for all
    ],
)
def test_batched_slice_em_matches_its_exact_law(method, pts, eps) -> None:
    """Both ways of drawing the slice EM (App. C.2) against its exact law, DKW at 1e-9, on the
    rows each way draws directly and on those the inverse CDF hands to Gumbel-max."""
    pts = np.array(pts)
    rng = np.random.default_rng(11)
    k = 200_000
    z = sample_slices_em(
        np.tile(pts, (k, 1)), np.zeros(k), np.full(k, 10.0), eps, rng, method=method
    )
    dkw_test(z, _slice_law(pts, 0.0, 10.0, eps).cdf, ALPHA).assert_ok()


def test_inverse_cdf_slice_em_draws_mixed_rows_each_from_its_own_law() -> None:
    """One call with rows of two kinds, interleaved: rows the inverse CDF draws and rows with an
    empty target interval (handed to Gumbel-max); each kind matches its own exact law."""
    fine, tied = np.array([1.0, 2.0, 2.5, 5.0, 9.0]), np.array([1.0, 2.0, 2.0, 5.0, 9.0])
    k = 200_000
    rows = np.where((np.arange(2 * k) % 2 == 0)[:, None], fine, tied)
    z = sample_slices_em(rows, np.zeros(2 * k), np.full(2 * k, 10.0), 1.5, np.random.default_rng(4))
    dkw_test(z[0::2], _slice_law(fine, 0.0, 10.0, 1.5).cdf, ALPHA).assert_ok()
    dkw_test(z[1::2], _slice_law(tied, 0.0, 10.0, 1.5).cdf, ALPHA).assert_ok()


def test_inverse_cdf_slice_em_never_returns_a_point_of_an_empty_interval() -> None:
    """Ties make intervals of length 0, which have probability 0: no draw may land on a tied
    value (a draw in a positive-length interval hits a given point with probability 0)."""
    rows = np.tile([3.0, 3.0, 3.0, 6.0, 6.0, 6.0, 6.0], (100_000, 1))
    z = sample_slices_em(rows, np.full(100_000, 3.0), np.full(100_000, 6.0), 0.7,
                         np.random.default_rng(2))  # fmt: skip
    assert not np.isin(z, [3.0, 6.0]).any() and np.all((z > 3.0) & (z < 6.0))


def test_slice_em_refuses_an_unknown_method() -> None:
    with pytest.raises(ValueError, match="method must be one of"):
        sample_slices_em(np.ones((1, 3)), np.zeros(1), np.full(1, 2.0), 1.0,
                         np.random.default_rng(0), method="fast")  # fmt: skip
    with pytest.raises(ValueError, match="em_method must be one of"):
        _tiny(4.0, 2.0, em_method="exact")


def test_slice_em_clips_points_into_the_range() -> None:
    rng = np.random.default_rng(1)
    rows = np.array([[0.0, 5.0, 20.0]] * 1000)
    z = sample_slices_em(rows, np.full(1000, 2.0), np.full(1000, 8.0), 3.0, rng)
    assert np.all((z >= 2.0) & (z <= 8.0))


# ---------------------------------------------------------------- ClipRange (tree order)


def test_tree_order_releases_the_middle_first_and_covers_every_index() -> None:
    assert release_order(7) == [3, 1, 5, 0, 2, 4, 6]
    for m in range(1, 40):
        order = release_order(m)
        assert sorted(order) == list(range(m))
        assert order[0] == m // 2


@settings(max_examples=40, deadline=None)
@given(m=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_outputs_are_monotone_under_the_tree_order(m: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0, 100, 40 * m + 20))
    ranks = tuple(int(v) for v in np.linspace(10, len(x) - 10, m).astype(int))
    mech = SliceQuantiles(ranks, 2, 4.0, 2.0, (0.0, 100.0), "add_remove", cc_scale=0.01)
    z = mech.sample(x, 50, rng)
    assert np.all(np.diff(z, axis=1) >= 0)


def test_anchors_of_each_level_were_released_before() -> None:
    for m in (1, 2, 5, 16, 33):
        released: set[int] = {-1, m}
        for idx, left, right in release_levels(m):
            assert set(left.tolist()) <= released and set(right.tolist()) <= released
            released |= set(idx.tolist())


# ---------------------------------------------------------------- exact law (Thm 4.2, exactly)


def _digits(x, n: int = 10) -> str:
    return mpmath.nstr(x, n)


def test_regression_instance_failure_probabilities() -> None:
    mech = _tiny(2.0, 1.0)
    assert _digits(failure_probability(mech, 10), 9) == "0.269707864"
    assert _digits(failure_probability(mech, 11), 10) == "0.2136628316"
    assert _digits(failure_probability(mech, 10, 2), 9) == "0.786447733"
    assert _digits(failure_probability(_tiny(8.0, 4.0), 10), 4) == "0.0006821"
    assert _digits(failure_probability(_tiny(4.0, 2.0), 10), 4) == "0.03898"


def test_regression_instance_exact_epsilon_and_delta_at_eps1_2() -> None:
    mech = _tiny(2.0, 1.0)
    p, q = output_law(mech, X10), output_law(mech, np.append(X10, 5.5))
    assert _digits(privacy_loss(p, q), 10) == "0.2395624233"
    for eps in (3.0, 4.0):
        assert hockey_stick(p, q, eps) == 0 and hockey_stick(q, p, eps) == 0


@pytest.mark.parametrize(
    ("e1", "e2", "neighbour", "eps0", "deltas"),
    [
        (8.0, 4.0, "add 5.5", "1.91322", ("0.3881", "0.2981", "0.0")),
        (8.0, 4.0, "add 0.5", "3.84578", ("0.6384", "0.5611", "0.3096")),
        (8.0, 4.0, "sub 6 -> 2.5", "1.57785", ("0.2551", "0.1535", "0.0")),
        (4.0, 2.0, "add 5.5", "0.781417", None),
        (4.0, 2.0, "add 0.5", "1.52905", None),
        (4.0, 2.0, "sub 6 -> 2.5", "0.720309", None),
    ],
)
def test_regression_instance_numbers_at_eps1_8_and_4(e1, e2, neighbour, eps0, deltas) -> None:
    mech = _tiny(e1, e2)
    if neighbour.startswith("add"):
        other = np.append(X10, float(neighbour.split()[1]))
    else:
        other = X10.copy()
        other[5] = 2.5
    p, q = output_law(mech, X10), output_law(mech, other)
    significant = len(eps0.replace(".", "").lstrip("0"))
    assert _digits(privacy_loss(p, q), significant) == eps0
    if deltas is not None:
        for eps, want in zip((0.5, 1.0, 2.0), deltas, strict=True):
            got = max(hockey_stick(p, q, eps), hockey_stick(q, p, eps))
            assert (_digits(got, 4) if want != "0.0" else _digits(got, 1)) == want


def test_theorem_4_2_testable_core_holds_on_the_regression_instance() -> None:
    """The add and remove cases of Thm 4.2's proof (App. B.2) with Good*: δ(ε1 + ε2) of
    X → X ∪ {x} <= P(∉ Good*_{m,n,h}) and δ(ε1 + 2ε2) of the reverse
    <= P(∉ Good*_{m,|X'|−1,h+1}), for every half-integer x."""
    for e1, e2 in ((2.0, 1.0), (8.0, 4.0)):
        mech = _tiny(e1, e2)
        p = output_law(mech, X10)
        add_bound, remove_bound = failure_probability(mech, 10), failure_probability(mech, 10, 2)
        for v in np.arange(0.5, 11.0, 1.0):
            q = output_law(mech, np.append(X10, v))
            assert hockey_stick(p, q, e1 + e2) <= add_bound
            assert hockey_stick(q, p, e1 + 2 * e2) <= remove_bound
        assert theorem_4_2_delta(mech, 10) == remove_bound


@pytest.mark.parametrize("em_method", ["inverse_cdf", "gumbel"])
def test_sampler_matches_the_exact_law(em_method) -> None:
    mech = _tiny(4.0, 2.0, em_method=em_method)
    rng = np.random.default_rng(5)
    for data in (X10, np.append(X10, 0.5)):
        check_sampler(output_law(mech, data), mech.sample(data, 200_000, rng), ALPHA).assert_ok()


def test_exact_law_refuses_cliprange_and_laplace_noise() -> None:
    with pytest.raises(ValueError, match="clip_range"):
        output_law(SliceQuantiles((3, 8), 1, 2.0, 1.0, (0.0, 11.0)), X10)
    with pytest.raises(ValueError, match="discrete"):
        output_law(_tiny(2.0, 1.0, noise="laplace"), X10)


# ---------------------------------------------------------------- pure variant


def test_pure_variant_outputs_lie_on_the_grid() -> None:
    mech = SliceQuantiles((3, 8), 1, 4.0, 2.0, (0.0, 11.0), gamma=0.2, grid_step=0.5)
    z = mech.sample(X10, 2000, np.random.default_rng(2))
    k = z / 0.5
    assert np.all(k == np.round(k)) and np.all((z >= 0) & (z <= 11))
    assert mech.grid_size == 23


def test_pure_variant_gamma_branch_has_the_uniform_grid_law() -> None:
    """With γ close to 1 every output is uniform on the grid: atom frequencies match 1/|Y|."""
    from dpquant.reference.conformance import atom_test

    mech = SliceQuantiles((3, 8), 1, 4.0, 2.0, (0.0, 2.0), gamma=0.999999, grid_step=0.5)
    z = mech.sample(np.linspace(0.1, 1.9, 10), 50_000, np.random.default_rng(3))[:, 0]
    atom_test(z, {v: 0.2 for v in (0.0, 0.5, 1.0, 1.5, 2.0)}, ALPHA).assert_ok()


# ---------------------------------------------------------------- bad input


def test_bad_input_raises_value_error_naming_the_parameter() -> None:
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="bounds"):
        SliceQuantiles((3, 8), 1, 1.0, 1.0, (0.0, 5.0)).sample(X10, 1, rng)
    with pytest.raises(ValueError, match="ranks"):
        SliceQuantiles((8, 3), 1, 1.0, 1.0, (0.0, 11.0))
    with pytest.raises(ValueError, match="epsilon1"):
        SliceQuantiles((3, 8), 1, 0.0, 1.0, (0.0, 11.0))
    with pytest.raises(ValueError, match="adjacency"):
        SliceQuantiles((3, 8), 1, 1.0, 1.0, (0.0, 11.0), "local")
    with pytest.raises(ValueError, match="grid_step"):
        SliceQuantiles((3, 8), 1, 1.0, 1.0, (0.0, 11.0), gamma=0.1)
    with pytest.raises(ValueError, match="quantiles"):
        slice_quantiles(X10, [0.5, 0.3], bounds=(0, 11), epsilon=1, delta=1e-6, rng=rng)
    with pytest.raises(ValueError, match="add_remove"):
        slice_quantiles(
            X10, [0.5], bounds=(0, 11), epsilon=1, delta=1e-6, rng=rng, adjacency="add_remove"
        )
    with pytest.raises(ValueError, match="n is len"):
        slice_quantiles(X10, [0.5], bounds=(0, 11), epsilon=1, delta=1e-6, rng=rng, n=11)
    with pytest.raises(ValueError, match="delta"):
        slice_quantiles(X10, [0.5], bounds=(0, 11), epsilon=1, delta=1.5, rng=rng, half_width=1)


def test_clamp_accepts_out_of_bounds_data() -> None:
    mech = SliceQuantiles((3, 8), 1, 1.0, 1.0, (0.0, 5.0), clamp=True)
    assert mech.domain == (-math.inf, math.inf)
    z = mech.sample(X10, 100, np.random.default_rng(0))
    assert np.all((z >= 0) & (z <= 5))


def test_infeasible_spacing_and_out_of_range_budgets_are_refused() -> None:
    rng = np.random.default_rng(0)
    x = np.arange(1.0, 1001.0)
    common = {"bounds": (0, 1001), "rng": rng, "half_width": 5}
    with pytest.raises(ValueError, match="infeasible ranks"):
        slice_quantiles(x, np.linspace(0.1, 0.9, 40), epsilon=1.0, delta=1e-6, **common)
    with pytest.raises(ValueError, match="epsilon"):
        slice_quantiles(x, [0.5], epsilon=0.0, delta=1e-6, **common)
    with pytest.raises(ValueError, match="delta"):
        slice_quantiles(x, [0.5], epsilon=1.0, delta=0.0, **common)
    with pytest.raises(ValueError, match="delta must be 0"):
        slice_quantiles(x, [0.5], epsilon=1.0, delta=1e-6, variant="pure", grid_step=1.0, **common)
    with pytest.raises(ValueError, match="half_width, or min_gap"):
        slice_quantiles(x, [0.5], bounds=(0, 1001), epsilon=1.0, delta=1e-6, rng=rng)
    # with enough data (and the half-width from the data's gap) the quantiles are answered,
    # approximately and with pure DP alike: most of 200 releases are within 1000 ranks (the EM
    # and CC fail with probability <= 2β = 0.1, the γ branch with 0.05; P(Bin(200, 0.85) < 140)
    # < 1e-8)
    big = np.arange(1.0, 200_001.0)
    for variant, delta in (("approximate", 1e-6), ("pure", 0.0)):
        plan = plan_slice_quantiles(
            200_000,
            (0, 200_001),
            1.0,
            delta,
            quantiles=[0.25, 0.5, 0.75],
            min_gap=1.0,  # also the pure variant's output grid step
            variant=variant,
        )
        z = plan.mechanism.sample(big, 200, np.random.default_rng(1))
        close = np.all(np.abs(z - [50_000, 100_000, 150_000]) < 1_000, axis=1)
        assert close.sum() >= 140, (variant, close.sum())


def test_a_release_on_prepared_data_is_the_release_on_the_data() -> None:
    """``prepare`` validates, clamps and sorts once; the same seed gives the same release on the
    prepared data as on the raw data, which stays untouched."""
    raw = np.random.default_rng(3).uniform(0.0, 11.0, 400)
    keep = raw.copy()
    mech = SliceQuantiles((100, 200, 300), 5, 2.0, 1.0, (0.0, 11.0))
    prepared = mech.prepare(raw)
    assert isinstance(prepared, SortedData) and len(prepared) == 400
    assert not prepared.values.flags.writeable and np.all(np.diff(prepared.values) >= 0)
    for seed in range(5):
        a = mech.sample(raw, 3, np.random.default_rng(seed))
        b = mech.sample(prepared, 3, np.random.default_rng(seed))
        assert np.array_equal(a, b)
    assert np.array_equal(raw, keep) and mech.prepare(prepared) is prepared
    # prepared for other bounds: checked again as plain data
    other = SliceQuantiles((100, 200, 300), 5, 2.0, 1.0, (0.0, 5.0))
    with pytest.raises(ValueError, match="data must lie within bounds"):
        other.sample(prepared, 1, np.random.default_rng(0))
    clamped = SliceQuantiles((100, 200, 300), 5, 2.0, 1.0, (0.0, 5.0), clamp=True)
    assert clamped.prepare(prepared).values.max() <= 5.0
