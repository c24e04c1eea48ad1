"""Contract specimens and fuzz entries of the imola25 area (see :mod:`harness`): the mechanisms of
:mod:`reference.slice_quantiles` (SliceQuantiles, JointExp, KSS ApproximateQuantiles), the
planning and release functions of the README, the exact law and Thm 4.2's δ, the exact CC tails,
the zCDP conversions, and the public helpers of the package (Good sets, rank maps, the slice EM,
the k-ary tree analysis), plus the study's configuration entry points.

Every valid call is tiny (a handful of points, m <= 2, few draws) so that the whole sweep and the
hypothesis runs stay fast. The checks verify that an accepted hostile call gives a correct
result: draws finite, inside the bounds and non-decreasing where the mechanism sorts; exact laws
of total mass 1; probabilities in [0, 1]; bounds that are non-negative integers; conversions
that round-trip.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
from harness import Entry, Specimen, check_law

from reference.experiments import imola25 as study
from reference.slice_quantiles.approximate_quantiles import (
    ApproximateQuantilesMechanism,
    approximate_quantiles,
    aq_plan,
    per_em_epsilon,
    sample_aq,
    subset_em_sample,
)
from reference.slice_quantiles.cc_tails import (
    cc_error_bound,
    cc_max_error_tail,
    chernoff_bound,
    corollary_a1_threshold,
    discrete_laplace_sum_survival,
    laplace_mixture_sum_survival,
    laplace_sum_cdf_np,
    laplace_sum_survival,
    popcount_classes,
    sample_max_error,
    theorem_4_2_w,
)
from reference.slice_quantiles.exact_law import (
    failure_probability,
    good_probability,
    output_law,
    privacy_profile,
    theorem_4_2_delta,
)
from reference.slice_quantiles.good_set import good_set_members, in_good_set, slices
from reference.slice_quantiles.joint_exp import (
    JointExpMechanism,
    decayed_window_lse,
    forward,
    joint_exp,
    kernel_convolution,
    path_log_probability,
    sample_joint_exp,
)
from reference.slice_quantiles.kary_tree import (
    authors_auto_k,
    authors_chernoff_bound,
    contiguous_shift,
    fenwick_shift_report,
    kary_shift_report,
    min_l1_cost,
    shift_loss_over_box,
)
from reference.slice_quantiles.parameters import (
    budget_split,
    check_feasible,
    check_ranks,
    half_width,
    log_expm1,
    paper_pure_w,
    pure_log_delta,
    target_ranks,
    total_epsilon,
)
from reference.slice_quantiles.rank_maps import (
    add_map,
    is_contiguous,
    remove_map,
    slice_distances,
    substitution_distance,
)
from reference.slice_quantiles.single_quantile import sample_slices_em, slice_em_log_density
from reference.slice_quantiles.slice_quantiles import (
    SliceQuantiles,
    SliceQuantilesPlan,
    cc_error,
    grid_count,
    plan_slice_quantiles,
    release_levels,
    slice_quantiles,
    with_options,
)
from reference.slice_quantiles.zcdp import (
    em_zcdp_rho,
    epsilon_from_rho,
    epsilon_from_rho_mp,
    rho_from_epsilon,
)

RNG = np.random.default_rng(0)
X7 = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
X10 = [float(v) for v in range(1, 11)]
X20 = [float(v) for v in range(1, 21)]
Q2 = [0.3, 0.7]
INT_LISTS = ([3, 5], [5, 3], [3, 3], [3.0, 5.0], [True, 5], [10**400], (3, 2**62), np.array([3, 5]))


# -- checks of accepted results ---------------------------------------------------------------


def _sorted_in(lo: float, hi: float, m: int | None = None):
    def check(z: Any) -> None:
        z = np.asarray(z, dtype=float)
        assert np.isfinite(z).all(), z
        assert (z >= lo).all() and (z <= hi).all(), (z, lo, hi)
        assert np.all(np.diff(z, axis=-1) >= 0), z
        if m is not None:
            assert z.shape[-1] == m, z.shape

    return check


def _estimates(z: Any) -> None:
    """Estimates of an accepted hostile call: finite, sorted (every bounds the pool accepts lie
    inside [-1e308, 1e308])."""
    _sorted_in(-math.inf, math.inf)(z)


def _probability(p: Any) -> None:
    p = mpmath.mpf(p)
    assert mpmath.isfinite(p) and 0 <= p <= 1, p


def _nonneg_int(w: Any) -> None:
    assert isinstance(w, int) and w >= 0, w


def _positive_finite(v: Any) -> None:
    v = mpmath.mpf(v)
    assert mpmath.isfinite(v) and v > 0, v


def _nonneg_finite(v: Any) -> None:
    v = mpmath.mpf(v)
    assert mpmath.isfinite(v) and v >= 0, v


def _rho_round_trip(result: tuple[float, float, float, str]) -> None:
    rho, epsilon, delta, form = result
    assert math.isfinite(rho) and rho > 0, rho
    assert epsilon_from_rho_mp(rho, delta, form) <= mpmath.mpf(epsilon) * (1 + 1e-50)


def _plan(plan: Any) -> None:
    assert isinstance(plan, SliceQuantilesPlan)
    assert plan.w >= 0 and plan.mechanism.claim.epsilon > 0
    a, b = plan.mechanism.bounds
    x = a + (b - a) * (np.arange(1, 21) / 21)  # 20 points inside the bounds
    out = plan.mechanism.sample(x, 2, np.random.default_rng(1))
    _sorted_in(a, b, plan.mechanism.m)(out)


def _profile(result: dict[str, Any]) -> None:
    eps0 = result["epsilon_at_delta_0"]
    assert eps0 >= 0 and not mpmath.isnan(eps0)
    for d1, d2 in result["delta"].values():
        _probability(d1)
        _probability(d2)


def _theorem_delta(mech: SliceQuantiles):
    def check(d: Any) -> None:
        factor = 1 + mpmath.exp(mech.epsilon1 + 2 * mech.epsilon2)
        assert 0 <= d <= factor and not mpmath.isnan(d), d

    return check


def _cdf(values: Any) -> None:
    v = np.asarray(values, dtype=float)
    assert np.all((v >= 0) & (v <= 1)), v


def _grid_points(k: Any) -> None:
    assert isinstance(k, int) and 1 <= k <= 2**52, k


def _good_rows(result: Any) -> None:
    r = np.asarray(result)
    assert r.ndim == 2 and (r.size == 0 or np.all(np.diff(r, axis=1) >= 0))


def _classes(c: Any) -> None:
    assert isinstance(c, dict) and all(v > 0 for v in c.values()), c


def _nonneg_array(v: Any) -> None:
    assert (np.asarray(v) >= 0).all(), v


def _finite(v: Any) -> None:
    assert math.isfinite(v), v


def _distances(d: Any) -> None:
    assert all(isinstance(v, int) and v >= 0 for v in d), d


def _in_ranges(result: tuple[Any, Any, Any]) -> None:
    """EM draws, one per row, each inside its own range [lo, hi] (the call's, accepted)."""
    z, lo, hi = result
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    assert np.isfinite(z).all() and np.all((z >= lo) & (z <= hi)), (z, lo, hi)


def _branching(k: Any) -> None:
    assert isinstance(k, int) and k >= 2, k


def _increasing(x: Any) -> None:
    assert np.all(np.diff(x) > 0), x


def _interval(ci: Any) -> None:
    assert ci[0] <= ci[1], ci


def _errors(e: Any) -> None:
    assert e[0] >= e[1] >= 0, e


def _log_probability(v: Any) -> None:
    assert v <= 1e-12 and not math.isnan(v), v


def _plan_record(plan: Any) -> None:
    assert isinstance(plan, SliceQuantilesPlan) and plan.claim.epsilon > 0


def _cell(cell: Any) -> None:
    assert isinstance(cell, study.Cell) and cell.n >= study.ADULT_SIZE


# -- mechanisms -------------------------------------------------------------------------------

TINY = SliceQuantiles((2, 5), 1, 4.0, 2.0, (0.0, 8.0), "add_remove", clip_range=False)

SPECIMENS: list[Specimen] = [
    Specimen(
        "SliceQuantiles",
        SliceQuantiles,
        {
            "ranks": (2, 5),
            "half_width": 1,
            "epsilon1": 4.0,
            "epsilon2": 2.0,
            "bounds": (0.0, 8.0),
            "adjacency": "add_remove",
            "delta": 0.0,
            "gamma": 0.0,
            "grid_step": None,
            "noise": "discrete",
            "good_rule": "corrected",
            "clip_range": False,
            "target": "paper",
            "cc_scale": None,
            "clamp": False,
        },
        {
            "ranks": "data",
            "half_width": "int",
            "epsilon1": "real",
            "epsilon2": "real",
            "bounds": "pair",
            "adjacency": "choice",
            "delta": "real",
            "gamma": "real",
            "grid_step": "real",
            "noise": "choice",
            "good_rule": "choice",
            "clip_range": "flag",
            "target": "choice",
            "cc_scale": "real",
            "clamp": "flag",
        },
        X7,
        extra={
            "ranks": INT_LISTS,
            "adjacency": ("replace_one", "local"),
            "noise": ("laplace",),
            "good_rule": ("printed",),
            "target": ("authors",),
            "clip_range": (True,),
            "clamp": (True,),
            "epsilon1": (1e-25, 1e-12),
        },
        draws=4000,
    ),
    Specimen(
        "JointExpMechanism",
        JointExpMechanism,
        {
            "quantiles": (0.3, 0.7),
            "epsilon": 1.0,
            "bounds": (0.0, 1.0),
            "adjacency": "replace_one",
            "method": "auto",
            "sensitivity": None,
        },
        {
            "quantiles": "data",
            "epsilon": "real",
            "bounds": "pair",
            "adjacency": "choice",
            "method": "choice",
            "sensitivity": "real",
        },
        [0.1, 0.4, 0.6, 0.9],
        extra={"method": ("exact", "rejection"), "adjacency": ("add_remove", "local")},
        draws=0,
    ),
    Specimen(
        "ApproximateQuantilesMechanism",
        ApproximateQuantilesMechanism,
        {
            "quantiles": (0.3, 0.7),
            "epsilon": 1.0,
            "bounds": (0.0, 1.0),
            "adjacency": "replace_one",
            "mode": "pure",
            "delta": None,
            "layers": "authors",
            "kss_original_constant": False,
            "composition": None,
        },
        {
            "quantiles": "data",
            "epsilon": "real",
            "bounds": "pair",
            "adjacency": "choice",
            "mode": "choice",
            "delta": "real",
            "layers": "choice",
            "kss_original_constant": "flag",
            "composition": "real",
        },
        [0.1, 0.4, 0.6, 0.9],
        extra={"mode": ("zcdp",), "layers": ("ceil", "depth"), "adjacency": ("add_remove",)},
        draws=0,
    ),
]


# -- entries ----------------------------------------------------------------------------------


def _slice_quantiles(**kw: Any) -> Any:
    return slice_quantiles(kw.pop("data"), kw.pop("quantiles"), rng=np.random.default_rng(0), **kw)


def _rho(epsilon: Any, delta: Any, form: Any) -> tuple[float, float, float, str]:
    return rho_from_epsilon(epsilon, delta, form), float(epsilon), float(delta), form


def _with_options(**kw: Any) -> SliceQuantiles:
    return with_options(TINY, **kw)


JE_EXACT = JointExpMechanism((0.3, 0.7), 1.0, (0.0, 1.0), method="exact").forward(
    [0.1, 0.4, 0.6, 0.9]
)
JE_REJECTION = JointExpMechanism((0.3, 0.7), 1.0, (0.0, 1.0), method="rejection").forward(
    [0.1, 0.4, 0.6, 0.9]
)
A42 = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 1, 1]])  # a tiny tree matrix

ENTRIES: list[Entry] = [
    Entry(
        "slice_quantiles",
        _slice_quantiles,
        {
            "data": X20,
            "quantiles": [0.5],
            "bounds": (0.0, 21.0),
            "epsilon": 40.0,
            "delta": 1e-3,
            "half_width": 1,
            "adjacency": "replace_one",
            "variant": "approximate",
            "clip_range": True,
        },
        {
            "data": "data",
            "quantiles": "data",
            "bounds": "pair",
            "epsilon": "real",
            "delta": "real",
            "half_width": "int",
            "adjacency": "choice",
            "variant": "choice",
            "clip_range": "flag",
        },
        check=_estimates,
        extra={"quantiles": ([0.2, 0.5], [0.5, 0.5]), "variant": ("pure",)},
    ),
    Entry(
        "plan_slice_quantiles",
        plan_slice_quantiles,
        {
            "n": 20,
            "bounds": (0.0, 21.0),
            "epsilon": 40.0,
            "delta": 1e-3,
            "quantiles": [0.5],
            "half_width": 1,
            "adjacency": "replace_one",
            "variant": "approximate",
            "min_gap": 1.0,
            "beta": 0.05,
            "half_width_rule": "slice",
            "epsilon_split": None,
            "error_bound": "exact",
            "noise": "discrete",
            "gamma": 0.05,
            "grid_step": None,
            "target": "paper",
            "clamp": False,
        },
        {
            "n": "int",
            "bounds": "pair",
            "epsilon": "real",
            "delta": "real",
            "quantiles": "data",
            "half_width": "int",
            "adjacency": "choice",
            "variant": "choice",
            "min_gap": "real",
            "beta": "real",
            "half_width_rule": "choice",
            "epsilon_split": "pair",
            "error_bound": "choice",
            "noise": "choice",
            "gamma": "real",
            "grid_step": "real",
            "target": "choice",
            "clamp": "flag",
        },
        check=_plan,
        extra={
            "error_bound": ("chernoff", "paper", "corollary_a1"),
            "noise": ("laplace",),
            "epsilon_split": ((10.0, 20.0 / 3), (1.0, 1.0)),
        },
    ),
    Entry(
        "approximate_quantiles",
        lambda **kw: approximate_quantiles(
            kw.pop("data"), kw.pop("quantiles"), kw.pop("bounds"), kw.pop("epsilon"), **kw
        ),
        {
            "data": [0.1, 0.4, 0.6, 0.9],
            "quantiles": Q2,
            "bounds": (0.0, 1.0),
            "epsilon": 1.0,
            "rng": RNG,
            "adjacency": "replace_one",
            "mode": "pure",
            "delta": None,
            "rho": None,
            "layers": "authors",
            "kss_original_constant": False,
        },
        {
            "data": "data",
            "quantiles": "data",
            "bounds": "pair",
            "epsilon": "real",
            "rng": "rng",
            "adjacency": "choice",
            "mode": "choice",
            "delta": "real",
            "rho": "real",
            "layers": "choice",
            "kss_original_constant": "flag",
        },
        check=_estimates,
    ),
    Entry(
        "joint_exp",
        lambda **kw: joint_exp(
            kw.pop("data"), kw.pop("quantiles"), kw.pop("bounds"), kw.pop("epsilon"), **kw
        ),
        {
            "data": [0.1, 0.4, 0.6, 0.9],
            "quantiles": Q2,
            "bounds": (0.0, 1.0),
            "epsilon": 1.0,
            "rng": RNG,
            "adjacency": "replace_one",
            "method": "auto",
        },
        {
            "data": "data",
            "quantiles": "data",
            "bounds": "pair",
            "epsilon": "real",
            "rng": "rng",
            "adjacency": "choice",
            "method": "choice",
        },
        check=_estimates,
    ),
    Entry(
        "output_law",
        output_law,
        {"mech": TINY, "data": X7},
        {"mech": "any", "data": "data"},
        check=check_law,
    ),
    Entry(
        "privacy_profile",
        lambda **kw: privacy_profile(TINY, **kw),
        {"data": X7, "neighbour": X7[:-1], "epsilons": [0.0, 1.0]},
        {"data": "data", "neighbour": "data", "epsilons": "data"},
        check=_profile,
    ),
    Entry(
        "theorem_4_2_delta",
        theorem_4_2_delta,
        {"mech": TINY, "n": 7},
        {"mech": "any", "n": "int"},
        check=_theorem_delta(TINY),
    ),
    Entry(
        "good_probability",
        good_probability,
        {"mech": TINY, "n": 7, "h": 1},
        {"mech": "any", "n": "int", "h": "int"},
        check=_probability,
    ),
    Entry(
        "with_options",
        _with_options,
        {"clip_range": False, "epsilon2": 2.0, "half_width": 1},
        {"clip_range": "flag", "epsilon2": "real", "half_width": "int"},
        check=lambda m: check_law(m.exact(X7)),
    ),
    Entry(
        "grid_count",
        grid_count,
        {"bounds": (0.0, 11.0), "step": 0.5},
        {"bounds": "pair", "step": "real"},
        check=_grid_points,
        aliases={"step": ("grid_step",)},
    ),
    Entry(
        "release_levels",
        lambda m: [lvl[0].tolist() for lvl in release_levels(m)],
        {"m": 7},
        {"m": "int"},
    ),
    Entry(
        "cc_error_bound",
        cc_error_bound,
        {
            "epsilon": 1.0,
            "delta": 1e-6,
            "m": 3,
            "noise": "discrete",
            "method": "exact",
            "log_delta": None,
            "scale": None,
            "log_base": 2,
        },
        {
            "epsilon": "real",
            "delta": "real",
            "m": "int",
            "noise": "choice",
            "method": "choice",
            "log_delta": "real",
            "scale": "real",
            "log_base": "any",
        },
        check=_nonneg_int,
        extra={"method": ("chernoff", "paper", "lemma_3_1", "corollary_a1"), "noise": ("laplace",)},
    ),
    Entry(
        "cc_max_error_tail",
        cc_max_error_tail,
        {"m": 3, "epsilon": 1.0, "t": 5, "noise": "discrete", "scale": None, "inclusive": False},
        {
            "m": "int",
            "epsilon": "real",
            "t": "real",
            "noise": "choice",
            "scale": "real",
            "inclusive": "flag",
        },
        check=_nonneg_finite,
        extra={"noise": ("laplace",)},
    ),
    Entry(
        "discrete_laplace_sum_survival",
        discrete_laplace_sum_survival,
        {"t": 2, "k": 3, "p": 0.5},
        {"t": "int", "k": "int", "p": "real"},
        check=_probability,
    ),
    Entry(
        "laplace_sum_survival",
        laplace_sum_survival,
        {"x": 1.5, "k": 3, "scale": 2.0},
        {"x": "real", "k": "int", "scale": "real"},
        check=_probability,
    ),
    Entry(
        "laplace_sum_cdf_np",
        laplace_sum_cdf_np,
        {"x": np.array([-1.0, 0.0, 2.0]), "k": 3, "scale": 2.0},
        {"x": "any", "k": "int", "scale": "real"},
        check=_cdf,
    ),
    Entry(
        "laplace_mixture_sum_survival",
        laplace_mixture_sum_survival,
        {"x": 1.0, "scales": [1.0, 2.0]},
        {"x": "real", "scales": "data"},
        check=_probability,
    ),
    Entry(
        "popcount_classes",
        popcount_classes,
        {"m": 10},
        {"m": "int"},
        check=_classes,
    ),
    Entry(
        "sample_max_error",
        sample_max_error,
        {"m": 3, "epsilon": 1.0, "size": 4, "rng": RNG, "noise": "discrete"},
        {"m": "int", "epsilon": "real", "size": "size", "rng": "rng", "noise": "choice"},
        check=_nonneg_array,
    ),
    Entry(
        "rho_from_epsilon",
        _rho,
        {"epsilon": 1.0, "delta": 1e-6, "form": "cks"},
        {"epsilon": "real", "delta": "real", "form": "choice"},
        check=_rho_round_trip,
        extra={"form": ("bs16",)},
    ),
    Entry(
        "epsilon_from_rho",
        epsilon_from_rho,
        {"rho": 0.01, "delta": 1e-6, "form": "cks"},
        {"rho": "real", "delta": "real", "form": "choice"},
        check=_positive_finite,
    ),
    Entry(
        "em_zcdp_rho", em_zcdp_rho, {"epsilon": 1.0}, {"epsilon": "real"}, check=_positive_finite
    ),
    Entry(
        "budget_split",
        lambda epsilon, adjacency: budget_split(epsilon, adjacency).total,
        {"epsilon": 1.0, "adjacency": "replace_one"},
        {"epsilon": "real", "adjacency": "choice"},
        check=_positive_finite,
    ),
    Entry(
        "half_width",
        half_width,
        {"m": 2, "epsilon2": 0.5, "psi": 100.0, "beta": 0.05, "rule": "slice"},
        {"m": "int", "epsilon2": "real", "psi": "real", "beta": "real", "rule": "choice"},
        check=_nonneg_int,
        extra={"rule": ("paper",)},
    ),
    Entry(
        "target_ranks",
        target_ranks,
        {"quantiles": Q2, "n": 10},
        {"quantiles": "data", "n": "int"},
        check=_nonneg_array,
    ),
    Entry(
        "check_feasible",
        check_feasible,
        {"ranks": [3, 8], "n": 12, "h": 1, "w": 0, "rule": "corrected"},
        {"ranks": "data", "n": "int", "h": "int", "w": "int", "rule": "choice"},
        extra={"ranks": INT_LISTS},
    ),
    Entry("log_expm1", log_expm1, {"x": 0.5}, {"x": "real"}),
    Entry(
        "pure_log_delta",
        pure_log_delta,
        {"gamma": 0.05, "epsilon_a": 1.0, "grid_size": 100, "m": 2},
        {"gamma": "real", "epsilon_a": "real", "grid_size": "int", "m": "int"},
        check=_finite,
    ),
    Entry(
        "paper_pure_w",
        paper_pure_w,
        {
            "m": 100,
            "epsilon1": 1.0,
            "epsilon2": 1.0,
            "gamma": 0.05,
            "b": 2.0**32,
            "adjacency": "add_remove",
            "base": 2,
        },
        {
            "m": "int",
            "epsilon1": "real",
            "epsilon2": "real",
            "gamma": "real",
            "b": "real",
            "adjacency": "choice",
            "base": "real",
        },
        check=_finite,
    ),
    Entry(
        "in_good_set",
        in_good_set,
        {"r_tilde": [[2, 5], [2, 3]], "n": 7, "h": 1, "rule": "corrected"},
        {"r_tilde": "data", "n": "int", "h": "int", "rule": "choice"},
        extra={"r_tilde": INT_LISTS},
    ),
    Entry(
        "good_set_members",
        good_set_members,
        {"m": 2, "n": 7, "h": 1, "rule": "corrected"},
        {"m": "int", "n": "int", "h": "int", "rule": "choice"},
        check=_good_rows,
    ),
    Entry(
        "slices",
        slices,
        {"sorted_data": X7, "r_tilde": [2, 5], "h": 1},
        {"sorted_data": "data", "r_tilde": "data", "h": "int"},
        extra={"r_tilde": INT_LISTS},
    ),
    Entry(
        "add_map/remove_map",
        lambda r_tilde, s, h: (add_map(r_tilde, s, h), remove_map(r_tilde, s, h)),
        {"r_tilde": [3, 8], "s": 4, "h": 1},
        {"r_tilde": "data", "s": "int", "h": "int"},
        extra={"r_tilde": INT_LISTS},
    ),
    Entry(
        "slice_distances",
        slice_distances,
        {"X": X7, "X_prime": X7[:-1], "r_tilde": [2, 5], "r_tilde_prime": [2, 5], "h": 1},
        {"X": "data", "X_prime": "data", "r_tilde": "data", "r_tilde_prime": "data", "h": "int"},
        check=_distances,
    ),
    Entry(
        "sample_slices_em",
        lambda **kw: (sample_slices_em(**kw), kw["lo"], kw["hi"]),
        {
            "slices": np.array([[1.0, 2.0, 3.0], [2.0, 2.0, 5.0]]),
            "lo": np.array([0.0, 1.0]),
            "hi": np.array([4.0, 6.0]),
            "epsilon": 1.0,
            "rng": RNG,
            "target": "paper",
        },
        {
            "slices": "data",
            "lo": "data",
            "hi": "data",
            "epsilon": "real",
            "rng": "rng",
            "target": "choice",
        },
        check=_in_ranges,
    ),
    Entry(
        "slice_em_log_density",
        slice_em_log_density,
        {"points": [1.0, 2.0, 3.0], "lo": 0.0, "hi": 4.0, "epsilon": 1.0, "target": "paper"},
        {"points": "data", "lo": "real", "hi": "real", "epsilon": "real", "target": "choice"},
    ),
    Entry(
        "per_em_epsilon",
        lambda **kw: per_em_epsilon(kw.pop("m"), kw.pop("adjacency"), kw.pop("mode"), **kw),
        {
            "m": 3,
            "adjacency": "replace_one",
            "mode": "pure",
            "epsilon": 1.0,
            "rho": None,
            "layers": "authors",
            "kss_original_constant": False,
            "composition": None,
        },
        {
            "m": "int",
            "adjacency": "choice",
            "mode": "choice",
            "epsilon": "real",
            "rho": "real",
            "layers": "choice",
            "kss_original_constant": "flag",
            "composition": "real",
        },
        check=_positive_finite,
    ),
    Entry(
        "subset_em_sample",
        lambda **kw: (subset_em_sample(**kw), kw["lo"], kw["hi"]),
        {
            "x": np.array([0.2, 0.4, 0.8]),
            "gaps": np.array([0.2, 0.4]),
            "start": np.array([0, 1]),
            "stop": np.array([3, 2]),
            "lo": np.array([0.0, 0.3]),
            "hi": np.array([1.0, 0.5]),
            "q": 0.5,
            "epsilon": 1.0,
            "sensitivity": 0.5,
            "rng": RNG,
        },
        {
            "x": "data",
            "gaps": "data",
            "start": "data",
            "stop": "data",
            "lo": "data",
            "hi": "data",
            "q": "real",
            "epsilon": "real",
            "sensitivity": "real",
            "rng": "rng",
        },
        check=_in_ranges,
    ),
    Entry(
        "aq_plan",
        lambda quantiles: [node.index for node in aq_plan(quantiles).order],
        {"quantiles": [0.1, 0.5, 0.9]},
        {"quantiles": "data"},
    ),
    Entry(
        "decayed_window_lse/kernel_convolution",
        lambda v, c, width, t: (decayed_window_lse(v, c, width), kernel_convolution(v, t, c)),
        {"v": np.array([0.0, -1.0, -np.inf, 2.0]), "c": 0.5, "width": 2, "t": 1.5},
        {"v": "data", "c": "real", "width": "int", "t": "real"},
    ),
    Entry(
        "authors_chernoff_bound",
        authors_chernoff_bound,
        {"m": 10, "epsilon": 0.5, "delta": 1e-6, "k": None, "two_sided": False, "grid": True},
        {
            "m": "int",
            "epsilon": "real",
            "delta": "real",
            "k": "int",
            "two_sided": "flag",
            "grid": "flag",
        },
        check=_positive_finite,
    ),
    Entry(
        "authors_auto_k",
        authors_auto_k,
        {"m": 20, "epsilon": 0.5},
        {"m": "int", "epsilon": "real"},
        check=_branching,
    ),
    Entry(
        "kary_shift_report",
        lambda m, k, costs: kary_shift_report(m, k, costs=costs).rank,
        {"m": 4, "k": 2, "costs": False},
        {"m": "int", "k": "int", "costs": "flag"},
    ),
    Entry(
        "contiguous_shift",
        contiguous_shift,
        {"m": 4, "s": 2, "d": 1},
        {"m": "int", "s": "int", "d": "int"},
    ),
    Entry(
        "imola25.make_study",
        lambda **kw: study.make_study(**kw),
        {"panels": ["a"], "ms": [10], "runs": 1, "seed": 0, "quick": True},
        {"panels": "data", "ms": "data", "runs": "int", "seed": "int", "quick": "flag"},
    ),
    Entry(
        "imola25.make_distinct",
        study.make_distinct,
        {"values": [1.0, 1.0, 2.0], "duplication": 2},
        {"values": "data", "duplication": "int"},
        check=_increasing,
    ),
    Entry(
        "imola25.bootstrap_mean_ci",
        study.bootstrap_mean_ci,
        {"values": [1.0, 2.0, 4.0], "rng": RNG, "resamples": 50, "level": 0.95},
        {"values": "data", "rng": "rng", "resamples": "int", "level": "real"},
        check=_interval,
    ),
    Entry(
        "imola25.rank_errors",
        study.rank_errors,
        {"x_sorted": X7, "z": [2.5, 5.5], "ranks": [2, 5]},
        {"x_sorted": "data", "z": "data", "ranks": "data"},
        check=_errors,
    ),
    Entry(
        "chernoff_bound",
        chernoff_bound,
        {"m": 3, "epsilon": 1.0, "delta": 1e-6, "noise": "discrete", "k": None, "two_sided": True},
        {
            "m": "int",
            "epsilon": "real",
            "delta": "real",
            "noise": "choice",
            "k": "int",
            "two_sided": "flag",
        },
        check=_positive_finite,
    ),
    Entry(
        "theorem_4_2_w",
        theorem_4_2_w,
        {"epsilon": 1.0, "delta": 1e-6, "m": 3, "log_base": 2},
        {"epsilon": "real", "delta": "real", "m": "int", "log_base": "any"},
        check=_nonneg_finite,
    ),
    Entry(
        "corollary_a1_threshold",
        corollary_a1_threshold,
        {"scales": [1.0, 2.0], "delta": 1e-6},
        {"scales": "data", "delta": "real"},
        check=_positive_finite,
    ),
    Entry(
        "cc_error",
        cc_error,
        {"epsilon1": 1.0, "m": 3, "noise": "discrete", "method": "exact", "delta": 1e-6},
        {"epsilon1": "real", "m": "int", "noise": "choice", "method": "choice", "delta": "real"},
        check=_nonneg_int,
    ),
    Entry(
        "failure_probability",
        failure_probability,
        {"mech": TINY, "n": 7, "h": 1},
        {"mech": "any", "n": "int", "h": "int"},
        check=_probability,
    ),
    Entry(
        "SliceQuantilesPlan",
        SliceQuantilesPlan,
        {
            "mechanism": TINY,
            "n": 7,
            "w": 1,
            "variant": "approximate",
            "cc_delta": 1e-6,
            "cc_log_delta": -13.8,
            "error_bound": "exact",
        },
        {
            "mechanism": "any",
            "n": "int",
            "w": "int",
            "variant": "choice",
            "cc_delta": "real",
            "cc_log_delta": "real",
            "error_bound": "choice",
        },
        check=_plan_record,
    ),
    Entry(
        "total_epsilon",
        total_epsilon,
        {"epsilon1": 1.0, "epsilon2": 1.0, "adjacency": "add_remove"},
        {"epsilon1": "real", "epsilon2": "real", "adjacency": "choice"},
        check=_positive_finite,
    ),
    Entry(
        "check_ranks",
        check_ranks,
        {"ranks": [3, 5], "n": 10},
        {"ranks": "data", "n": "int"},
        extra={"ranks": INT_LISTS},
        check=_nonneg_array,
    ),
    Entry(
        "is_contiguous/substitution_distance",
        lambda e, S, S_prime: (is_contiguous(e), substitution_distance(S, S_prime)),
        {"e": [0, 1, 1], "S": [1.0, 2.0], "S_prime": [1.0, 3.0]},
        {"e": "data", "S": "data", "S_prime": "data"},
    ),
    Entry(
        "sample_aq",
        sample_aq,
        {
            "x": np.array([0.1, 0.5]),
            "plan": aq_plan([0.5]),
            "bounds": (0.0, 1.0),
            "eps_prime": 1.0,
            "size": 3,
            "rng": RNG,
        },
        {
            "x": "data",
            "plan": "any",
            "bounds": "pair",
            "eps_prime": "real",
            "size": "size",
            "rng": "rng",
        },
        check=_estimates,
    ),
    Entry(
        "forward",
        lambda **kw: forward(**kw).log_z,
        {
            "x": np.array([0.1, 0.5]),
            "quantiles": [0.5],
            "bounds": (0.0, 1.0),
            "scale": 0.25,
            "method": "auto",
        },
        {"x": "data", "quantiles": "data", "bounds": "pair", "scale": "real", "method": "choice"},
        check=_finite,
        extra={"method": ("exact", "rejection")},
    ),
    Entry(
        "path_log_probability",
        path_log_probability,
        {"fw": JE_EXACT, "path": (1, 2)},
        {"fw": "any", "path": "data"},
        check=_log_probability,
        extra={"fw": (JE_REJECTION,), "path": INT_LISTS},
    ),
    Entry(
        "sample_joint_exp",
        sample_joint_exp,
        {"fw": JE_REJECTION, "size": 3, "rng": RNG},
        {"fw": "any", "size": "size", "rng": "rng"},
        check=_estimates,
        extra={"fw": (JE_EXACT,)},
    ),
    Entry(
        "fenwick_shift_report",
        lambda m, costs: fenwick_shift_report(m, costs=costs).is_valid_cc,
        {"m": 4, "costs": True},
        {"m": "int", "costs": "flag"},
    ),
    Entry(
        "min_l1_cost",
        min_l1_cost,
        {"a": A42, "e": [0, 1, 1, 1], "integer": False},
        {"a": "data", "e": "data", "integer": "flag"},
    ),
    Entry(
        "shift_loss_over_box",
        lambda **kw: shift_loss_over_box(**kw)[0],
        {"a": A42, "e": [0, 1, 1, 1], "node_scale": 1.0, "radius": 1},
        {"a": "data", "e": "data", "node_scale": "real", "radius": "int"},
    ),
    Entry(
        "imola25.Cell",
        study.Cell,
        {
            "panel": "a",
            "dataset": "age",
            "adjacency": "add_remove",
            "duplication": 1,
            "m": 10,
            "mechanism": "AQ pure",
            "runs": 1,
        },
        {
            "panel": "choice",
            "dataset": "choice",
            "adjacency": "choice",
            "duplication": "int",
            "m": "int",
            "mechanism": "choice",
            "runs": "int",
        },
        check=_cell,
    ),
    Entry(
        "imola25.slice_parameters",
        study.slice_parameters,
        {"n": 1000, "m": 2, "adjacency": "add_remove", "epsilon": 1.0, "delta": 1e-6},
        {"n": "int", "m": "int", "adjacency": "choice", "epsilon": "real", "delta": "real"},
    ),
]
