"""Contract specimens and fuzz entries of the imola25 area (see :mod:`harness`): the mechanisms of
:mod:`dpquant.reference.slice_quantiles` (SliceQuantiles, JointExp, KSS ApproximateQuantiles), the
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

from dpquant.reference.slice_quantiles.aq_mechanism import (
    ApproximateQuantilesMechanism,
    approximate_quantiles,
    sample_aq,
)
from dpquant.reference.slice_quantiles.aq_recursion import aq_plan, per_em_epsilon
from dpquant.reference.slice_quantiles.cc_tails import (
    cc_error_bound,
    cc_max_error_tail,
    chernoff_bound,
    corollary_a1_threshold,
    popcount_classes,
    sample_max_error,
    theorem_4_2_w,
)
from dpquant.reference.slice_quantiles.clip_range import release_levels
from dpquant.reference.slice_quantiles.exact_law import (
    failure_probability,
    good_probability,
    output_law,
    privacy_profile,
    theorem_4_2_delta,
)
from dpquant.reference.slice_quantiles.good_set import good_set_members, in_good_set, slices
from dpquant.reference.slice_quantiles.inputs import sorted_data
from dpquant.reference.slice_quantiles.integer_lattice import min_l1_cost
from dpquant.reference.slice_quantiles.joint_exp_forward import (
    decayed_window_lse,
    forward,
    kernel_convolution,
)
from dpquant.reference.slice_quantiles.joint_exp_mechanism import JointExpMechanism, joint_exp
from dpquant.reference.slice_quantiles.joint_exp_sampler import (
    path_log_probability,
    sample_joint_exp,
)
from dpquant.reference.slice_quantiles.kary_tree import (
    authors_auto_k,
    authors_chernoff_bound,
    contiguous_shift,
    fenwick_shift_report,
    kary_shift_report,
    shift_loss_over_box,
)
from dpquant.reference.slice_quantiles.laplace_sums import (
    discrete_laplace_sum_survival,
    laplace_mixture_sum_survival,
    laplace_sum_cdf_np,
    laplace_sum_survival,
)
from dpquant.reference.slice_quantiles.mechanism import SliceQuantiles, with_options
from dpquant.reference.slice_quantiles.parameters import (
    budget_split,
    check_feasible,
    check_ranks,
    grid_count,
    half_width,
    log_expm1,
    paper_pure_w,
    pure_log_delta,
    target_ranks,
    total_epsilon,
)
from dpquant.reference.slice_quantiles.rank_maps import (
    add_map,
    is_contiguous,
    remove_map,
    slice_distances,
    substitution_distance,
)
from dpquant.reference.slice_quantiles.single_quantile import sample_slices_em, slice_em_log_density
from dpquant.reference.slice_quantiles.slice_release import (
    SliceQuantilesPlan,
    cc_error,
    plan_slice_quantiles,
    slice_quantiles,
)
from dpquant.reference.slice_quantiles.subset_em import subset_em_sample
from dpquant.reference.slice_quantiles.zcdp import (
    em_zcdp_rho,
    epsilon_from_rho,
    epsilon_from_rho_mp,
    rho_from_epsilon,
)
from dpquant.studies import imola25 as study

RNG = np.random.default_rng(0)
X7 = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
X10 = [float(v) for v in range(1, 11)]
X20 = [float(v) for v in range(1, 21)]
Q2 = [0.3, 0.7]
X4 = [0.1, 0.4, 0.6, 0.9]  # the baselines' data set, inside (0, 1)
INT_LISTS = ([3, 5], [5, 3], [3, 3], [3.0, 5.0], [True, 5], [10**400], (3, 2**62), np.array([3, 5]))


# -- how an entry is written ------------------------------------------------------------------


def _split(params: dict[str, tuple[Any, str]]) -> tuple[dict[str, Any], dict[str, str]]:
    """{parameter: (valid value, hostile kind)} -> (the valid call's kwargs, the kinds)."""
    return {p: v for p, (v, _) in params.items()}, {p: k for p, (_, k) in params.items()}


def _entry(name: str, call: Any, params: dict[str, tuple[Any, str]], **options: Any) -> Entry:
    """The entry ``name``: ``call`` with each parameter's valid value, fuzzed by its kind."""
    return Entry(name, call, *_split(params), **options)


def _fn(call: Any, params: dict[str, tuple[Any, str]], **options: Any) -> Entry:
    """:func:`_entry` of a public function, named after it."""
    return _entry(call.__name__, call, params, **options)


def _specimen(
    name: str, build: Any, params: dict[str, tuple[Any, str]], data: Any, **options: Any
) -> Specimen:
    """The specimen ``name``: ``build`` with each parameter's valid value, fuzzed by its kind."""
    return Specimen(name, build, *_split(params), data, **options)


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


def _plan_in_bounds(plan: Any) -> None:
    """A plan whose draws may take the failure branch (m i.i.d. uniform values, unsorted: the
    pure variant's γ-branch): finite draws of m values inside the bounds."""
    assert isinstance(plan, SliceQuantilesPlan)
    assert plan.w >= 0 and plan.mechanism.claim.epsilon > 0
    a, b = plan.mechanism.bounds
    out = plan.mechanism.sample(a + (b - a) * (np.arange(1, 21) / 21), 2, np.random.default_rng(1))
    assert out.shape == (2, plan.mechanism.m) and np.isfinite(out).all()
    assert (out >= a).all() and (out <= b).all(), out


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
BASELINE_CONFIG = {  # the parameters JointExp and AQ share, with their hostile kinds
    "quantiles": ((0.3, 0.7), "data"),
    "epsilon": (1.0, "real"),
    "bounds": ((0.0, 1.0), "pair"),
    "adjacency": ("replace_one", "choice"),
}
BASELINE_RELEASE = {  # the same for the release functions joint_exp and approximate_quantiles
    "data": (X4, "data"),
    "quantiles": (Q2, "data"),
    "bounds": ((0.0, 1.0), "pair"),
    "epsilon": (1.0, "real"),
    "rng": (RNG, "rng"),
    "adjacency": ("replace_one", "choice"),
}


def _baseline_specimen(
    cls: Any, params: dict[str, tuple[Any, str]], extra: dict[str, tuple[Any, ...]]
) -> Specimen:
    """A baseline mechanism (JointExp, AQ) on :data:`X4` with the parameters they share; its
    law is not built exactly here, so no conformance draws."""
    return _specimen(cls.__name__, cls, {**BASELINE_CONFIG, **params}, X4, extra=extra, draws=0)


SPECIMENS: list[Specimen] = [
    _specimen(
        "SliceQuantiles",
        SliceQuantiles,
        {
            "ranks": ((2, 5), "data"),
            "half_width": (1, "int"),
            "epsilon1": (4.0, "real"),
            "epsilon2": (2.0, "real"),
            "bounds": ((0.0, 8.0), "pair"),
            "adjacency": ("add_remove", "choice"),
            "delta": (0.0, "real"),
            "gamma": (0.0, "real"),
            "grid_step": (None, "real"),
            "noise": ("discrete", "choice"),
            "good_rule": ("corrected", "choice"),
            "clip_range": (False, "flag"),
            "target": ("paper", "choice"),
            "cc_scale": (None, "real"),
            "clamp": (False, "flag"),
            "em_method": ("inverse_cdf", "choice"),
        },
        X7,
        extra={
            "em_method": ("gumbel",),
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
    _baseline_specimen(
        JointExpMechanism,
        {"method": ("auto", "choice"), "sensitivity": (None, "real")},
        {"method": ("exact", "rejection"), "adjacency": ("add_remove", "local")},
    ),
    _baseline_specimen(
        ApproximateQuantilesMechanism,
        {
            "mode": ("pure", "choice"),
            "delta": (None, "real"),
            "layers": ("authors", "choice"),
            "kss_original_constant": (False, "flag"),
            "composition": (None, "real"),
            "em_method": ("blocks", "choice"),
        },
        {
            "mode": ("zcdp",),
            "layers": ("ceil", "depth"),
            "adjacency": ("add_remove",),
            "em_method": ("linear",),
        },
    ),
]


# -- entries ----------------------------------------------------------------------------------


def _slice_quantiles(**kw: Any) -> Any:
    return slice_quantiles(kw.pop("data"), kw.pop("quantiles"), rng=np.random.default_rng(0), **kw)


def _rho(epsilon: Any, delta: Any, form: Any) -> tuple[float, float, float, str]:
    return rho_from_epsilon(epsilon, delta, form), float(epsilon), float(delta), form


def _with_options(**kw: Any) -> SliceQuantiles:
    return with_options(TINY, **kw)


JE_EXACT = JointExpMechanism((0.3, 0.7), 1.0, (0.0, 1.0), method="exact").forward(X4)
JE_REJECTION = JointExpMechanism((0.3, 0.7), 1.0, (0.0, 1.0), method="rejection").forward(X4)
A42 = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 1, 1]])  # a tiny tree matrix

ENTRIES: list[Entry] = [
    _entry(
        "slice_quantiles",
        _slice_quantiles,
        {
            "data": (X20, "data"),
            "quantiles": ([0.5], "data"),
            "bounds": ((0.0, 21.0), "pair"),
            "epsilon": (40.0, "real"),
            "delta": (1e-3, "real"),
            "half_width": (1, "int"),
            "adjacency": ("replace_one", "choice"),
            "variant": ("approximate", "choice"),
            "clip_range": (True, "flag"),
            # issue 34: min_gap other than the one giving h = 1 contradicts half_width = 1
            "min_gap": (None, "real"),
            "gamma": (None, "real"),
            "grid_step": (None, "real"),
        },
        check=_estimates,
        extra={
            "quantiles": ([0.2, 0.5], [0.5, 0.5]),
            "variant": ("pure",),
            "min_gap": (1.0, 2.5, 1e-300),
        },
    ),
    _fn(
        plan_slice_quantiles,
        {
            "n": (20, "int"),
            "bounds": ((0.0, 21.0), "pair"),
            "epsilon": (40.0, "real"),
            "delta": (1e-3, "real"),
            "quantiles": ([0.5], "data"),
            "half_width": (None, "int"),  # derived from min_gap: 3 (issue 34: others refused)
            "adjacency": ("replace_one", "choice"),
            "variant": ("approximate", "choice"),
            "min_gap": (1.0, "real"),
            "beta": (0.05, "real"),
            "half_width_rule": ("slice", "choice"),
            "epsilon_split": (None, "pair"),
            "error_bound": ("exact", "choice"),
            "noise": ("discrete", "choice"),
            "gamma": (None, "real"),
            "grid_step": (None, "real"),
            "target": ("paper", "choice"),
            "clamp": (False, "flag"),
        },
        check=_plan,
        extra={
            "error_bound": ("chernoff", "paper", "corollary_a1"),
            "noise": ("laplace",),
            "epsilon_split": ((10.0, 20.0 / 3), (1.0, 1.0)),
            "half_width_rule": ("paper", None),
            "beta": (None, 0.5),
        },
    ),
    _entry(
        "plan_slice_quantiles[pure]",
        plan_slice_quantiles,
        {
            "n": (20, "int"),
            "bounds": ((0.0, 21.0), "pair"),
            "epsilon": (40.0, "real"),
            "delta": (0.0, "real"),
            "quantiles": ([0.5], "data"),
            "variant": ("pure", "choice"),
            "half_width": (1, "int"),
            "gamma": (0.05, "real"),
            "grid_step": (1.0, "real"),
            "min_gap": (None, "real"),
            "beta": (None, "real"),
            "half_width_rule": (None, "choice"),
        },
        check=_plan_in_bounds,
        extra={"epsilon": (1.0, 1e4), "grid_step": (5e-324, 1e-300, 21.0, 10.5)},
    ),
    _fn(
        approximate_quantiles,
        {
            **BASELINE_RELEASE,
            "mode": ("pure", "choice"),
            "delta": (None, "real"),
            "rho": (None, "real"),
            "layers": ("authors", "choice"),
            "kss_original_constant": (False, "flag"),
            "em_method": ("blocks", "choice"),
        },
        check=_estimates,
        extra={"em_method": ("linear",)},
    ),
    _fn(
        joint_exp,
        {
            **BASELINE_RELEASE,
            "method": ("auto", "choice"),
        },
        check=_estimates,
    ),
    _entry(
        "output_law", output_law, {"mech": (TINY, "any"), "data": (X7, "data")}, check=check_law
    ),
    _entry(
        "privacy_profile",
        lambda **kw: privacy_profile(TINY, **kw),
        {"data": (X7, "data"), "neighbour": (X7[:-1], "data"), "epsilons": ([0.0, 1.0], "data")},
        check=_profile,
    ),
    _fn(
        theorem_4_2_delta,
        {"mech": (TINY, "any"), "n": (7, "int")},
        check=_theorem_delta(TINY),
    ),
    *(
        _fn(law, {"mech": (TINY, "any"), "n": (7, "int"), "h": (1, "int")}, check=_probability)
        for law in (good_probability, failure_probability)
    ),
    _entry(
        "with_options",
        _with_options,
        {"clip_range": (False, "flag"), "epsilon2": (2.0, "real"), "half_width": (1, "int")},
        check=lambda m: check_law(m.exact(X7)),
    ),
    _fn(
        grid_count,
        {"bounds": ((0.0, 11.0), "pair"), "step": (0.5, "real")},
        check=_grid_points,
        aliases={"step": ("grid_step",)},
    ),
    _entry(
        "release_levels",
        lambda m: [lvl[0].tolist() for lvl in release_levels(m)],
        {"m": (7, "int")},
    ),
    _fn(
        cc_error_bound,
        {
            "epsilon": (1.0, "real"),
            "delta": (1e-6, "real"),
            "m": (3, "int"),
            "noise": ("discrete", "choice"),
            "method": ("exact", "choice"),
            "log_delta": (None, "real"),
            "scale": (None, "real"),
            "log_base": (2, "any"),
        },
        check=_nonneg_int,
        extra={"method": ("chernoff", "paper", "lemma_3_1", "corollary_a1"), "noise": ("laplace",)},
    ),
    _fn(
        cc_max_error_tail,
        {
            "m": (3, "int"),
            "epsilon": (1.0, "real"),
            "t": (5, "real"),
            "noise": ("discrete", "choice"),
            "scale": (None, "real"),
            "inclusive": (False, "flag"),
        },
        check=_nonneg_finite,
        extra={"noise": ("laplace",)},
    ),
    _fn(
        discrete_laplace_sum_survival,
        {"t": (2, "int"), "k": (3, "int"), "p": (0.5, "real")},
        check=_probability,
    ),
    _fn(
        laplace_sum_survival,
        {"x": (1.5, "real"), "k": (3, "int"), "scale": (2.0, "real")},
        check=_probability,
    ),
    _fn(
        laplace_sum_cdf_np,
        {"x": (np.array([-1.0, 0.0, 2.0]), "any"), "k": (3, "int"), "scale": (2.0, "real")},
        check=_cdf,
    ),
    _fn(
        laplace_mixture_sum_survival,
        {"x": (1.0, "real"), "scales": ([1.0, 2.0], "data")},
        check=_probability,
    ),
    _fn(popcount_classes, {"m": (10, "int")}, check=_classes),
    _fn(
        sample_max_error,
        {
            "m": (3, "int"),
            "epsilon": (1.0, "real"),
            "size": (4, "size"),
            "rng": (RNG, "rng"),
            "noise": ("discrete", "choice"),
        },
        check=_nonneg_array,
    ),
    _entry(
        "rho_from_epsilon",
        _rho,
        {"epsilon": (1.0, "real"), "delta": (1e-6, "real"), "form": ("cks", "choice")},
        check=_rho_round_trip,
        extra={"form": ("bs16",)},
    ),
    _fn(
        epsilon_from_rho,
        {"rho": (0.01, "real"), "delta": (1e-6, "real"), "form": ("cks", "choice")},
        check=_positive_finite,
    ),
    _fn(em_zcdp_rho, {"epsilon": (1.0, "real")}, check=_positive_finite),
    _entry(
        "budget_split",
        lambda epsilon, adjacency: budget_split(epsilon, adjacency).total,
        {"epsilon": (1.0, "real"), "adjacency": ("replace_one", "choice")},
        check=_positive_finite,
    ),
    _fn(
        half_width,
        {
            "m": (2, "int"),
            "epsilon2": (0.5, "real"),
            "psi": (100.0, "real"),
            "beta": (0.05, "real"),
            "rule": ("slice", "choice"),
        },
        check=_nonneg_int,
        extra={"rule": ("paper",)},
    ),
    _fn(
        target_ranks,
        {"quantiles": (Q2, "data"), "n": (10, "int")},
        check=_nonneg_array,
    ),
    _fn(
        check_feasible,
        {
            "ranks": ([3, 8], "data"),
            "n": (12, "int"),
            "h": (1, "int"),
            "w": (0, "int"),
            "rule": ("corrected", "choice"),
        },
        extra={"ranks": INT_LISTS},
    ),
    _fn(log_expm1, {"x": (0.5, "real")}),
    _fn(
        pure_log_delta,
        {
            "gamma": (0.05, "real"),
            "epsilon_a": (1.0, "real"),
            "grid_size": (100, "int"),
            "m": (2, "int"),
        },
        check=_finite,
    ),
    _fn(
        paper_pure_w,
        {
            "m": (100, "int"),
            "epsilon1": (1.0, "real"),
            "epsilon2": (1.0, "real"),
            "gamma": (0.05, "real"),
            "b": (2.0**32, "real"),
            "adjacency": ("add_remove", "choice"),
            "base": (2, "real"),
        },
        check=_finite,
    ),
    _fn(
        in_good_set,
        {
            "r_tilde": ([[2, 5], [2, 3]], "data"),
            "n": (7, "int"),
            "h": (1, "int"),
            "rule": ("corrected", "choice"),
        },
        extra={"r_tilde": INT_LISTS},
    ),
    _fn(
        good_set_members,
        {"m": (2, "int"), "n": (7, "int"), "h": (1, "int"), "rule": ("corrected", "choice")},
        check=_good_rows,
    ),
    _fn(
        slices,
        {"sorted_data": (X7, "data"), "r_tilde": ([2, 5], "data"), "h": (1, "int")},
        extra={"r_tilde": INT_LISTS},
    ),
    _entry(
        "add_map/remove_map",
        lambda r_tilde, s, h: (add_map(r_tilde, s, h), remove_map(r_tilde, s, h)),
        {"r_tilde": ([3, 8], "data"), "s": (4, "int"), "h": (1, "int")},
        extra={"r_tilde": INT_LISTS},
    ),
    _fn(
        slice_distances,
        {
            "X": (X7, "data"),
            "X_prime": (X7[:-1], "data"),
            "r_tilde": ([2, 5], "data"),
            "r_tilde_prime": ([2, 5], "data"),
            "h": (1, "int"),
        },
        check=_distances,
    ),
    _entry(
        "sample_slices_em",
        lambda **kw: (sample_slices_em(**kw), kw["lo"], kw["hi"]),
        {
            "slices": (np.array([[1.0, 2.0, 3.0], [2.0, 2.0, 5.0]]), "data"),
            "lo": (np.array([0.0, 1.0]), "data"),
            "hi": (np.array([4.0, 6.0]), "data"),
            "epsilon": (1.0, "real"),
            "rng": (RNG, "rng"),
            "target": ("paper", "choice"),
        },
        check=_in_ranges,
    ),
    _fn(
        slice_em_log_density,
        {
            "points": ([1.0, 2.0, 3.0], "data"),
            "lo": (0.0, "real"),
            "hi": (4.0, "real"),
            "epsilon": (1.0, "real"),
            "target": ("paper", "choice"),
        },
    ),
    _entry(
        "per_em_epsilon",
        lambda **kw: per_em_epsilon(kw.pop("m"), kw.pop("adjacency"), kw.pop("mode"), **kw),
        {
            "m": (3, "int"),
            "adjacency": ("replace_one", "choice"),
            "mode": ("pure", "choice"),
            "epsilon": (1.0, "real"),
            "rho": (None, "real"),
            "layers": ("authors", "choice"),
            "kss_original_constant": (False, "flag"),
            "composition": (None, "real"),
        },
        check=_positive_finite,
    ),
    _entry(
        "sorted_data",
        lambda **kw: sorted_data(**kw).values,
        {"data": ([3.0, 1.0, 9.0], "data"), "bounds": ((0.0, 8.0), "pair")},
    ),
    _entry(
        "subset_em_sample",
        lambda **kw: (subset_em_sample(**kw), kw["lo"], kw["hi"]),
        {
            "x": (np.array([0.2, 0.4, 0.8]), "data"),
            "gaps": (np.array([0.2, 0.4]), "data"),
            "start": (np.array([0, 1]), "data"),
            "stop": (np.array([3, 2]), "data"),
            "lo": (np.array([0.0, 0.3]), "data"),
            "hi": (np.array([1.0, 0.5]), "data"),
            "q": (0.5, "real"),
            "epsilon": (1.0, "real"),
            "sensitivity": (0.5, "real"),
            "rng": (RNG, "rng"),
            "method": ("blocks", "choice"),
        },
        check=_in_ranges,
        extra={"method": ("linear",)},
    ),
    _entry(
        "aq_plan",
        lambda quantiles: [node.index for node in aq_plan(quantiles).order],
        {"quantiles": ([0.1, 0.5, 0.9], "data")},
    ),
    _entry(
        "decayed_window_lse/kernel_convolution",
        lambda v, c, width, t: (decayed_window_lse(v, c, width), kernel_convolution(v, t, c)),
        {
            "v": (np.array([0.0, -1.0, -np.inf, 2.0]), "data"),
            "c": (0.5, "real"),
            "width": (2, "int"),
            "t": (1.5, "real"),
        },
    ),
    _fn(
        authors_chernoff_bound,
        {
            "m": (10, "int"),
            "epsilon": (0.5, "real"),
            "delta": (1e-6, "real"),
            "k": (None, "int"),
            "two_sided": (False, "flag"),
            "grid": (True, "flag"),
        },
        check=_positive_finite,
    ),
    _fn(
        authors_auto_k,
        {"m": (20, "int"), "epsilon": (0.5, "real")},
        check=_branching,
    ),
    _entry(
        "kary_shift_report",
        lambda m, k, costs: kary_shift_report(m, k, costs=costs).rank,
        {"m": (4, "int"), "k": (2, "int"), "costs": (False, "flag")},
    ),
    _entry(
        "contiguous_shift", contiguous_shift, {"m": (4, "int"), "s": (2, "int"), "d": (1, "int")}
    ),
    _entry(
        "imola25.make_study",
        lambda **kw: study.make_study(**kw),
        {
            "panels": (["a"], "data"),
            "ms": ([10], "data"),
            "runs": (1, "int"),
            "seed": (0, "int"),
            "quick": (True, "flag"),
        },
    ),
    _entry(
        "imola25.make_distinct",
        study.make_distinct,
        {"values": ([1.0, 1.0, 2.0], "data"), "duplication": (2, "int")},
        check=_increasing,
    ),
    _entry(
        "imola25.bootstrap_mean_ci",
        study.bootstrap_mean_ci,
        {
            "values": ([1.0, 2.0, 4.0], "data"),
            "rng": (RNG, "rng"),
            "resamples": (50, "int"),
            "level": (0.95, "real"),
        },
        check=_interval,
    ),
    _entry(
        "imola25.rank_errors",
        study.rank_errors,
        {"x_sorted": (X7, "data"), "z": ([2.5, 5.5], "data"), "ranks": ([2, 5], "data")},
        check=_errors,
    ),
    _fn(
        chernoff_bound,
        {
            "m": (3, "int"),
            "epsilon": (1.0, "real"),
            "delta": (1e-6, "real"),
            "noise": ("discrete", "choice"),
            "k": (None, "int"),
            "two_sided": (True, "flag"),
        },
        check=_positive_finite,
    ),
    _fn(
        theorem_4_2_w,
        {
            "epsilon": (1.0, "real"),
            "delta": (1e-6, "real"),
            "m": (3, "int"),
            "log_base": (2, "any"),
        },
        check=_nonneg_finite,
    ),
    _fn(
        corollary_a1_threshold,
        {"scales": ([1.0, 2.0], "data"), "delta": (1e-6, "real")},
        check=_positive_finite,
    ),
    _fn(
        cc_error,
        {
            "epsilon1": (1.0, "real"),
            "m": (3, "int"),
            "noise": ("discrete", "choice"),
            "method": ("exact", "choice"),
            "delta": (1e-6, "real"),
        },
        check=_nonneg_int,
    ),
    _fn(
        SliceQuantilesPlan,
        {
            "mechanism": (TINY, "any"),
            "n": (7, "int"),
            "w": (1, "int"),
            "variant": ("approximate", "choice"),
            "cc_delta": (1e-6, "real"),
            "cc_log_delta": (-13.8, "real"),
            "error_bound": ("exact", "choice"),
        },
        check=_plan_record,
    ),
    _fn(
        total_epsilon,
        {
            "epsilon1": (1.0, "real"),
            "epsilon2": (1.0, "real"),
            "adjacency": ("add_remove", "choice"),
        },
        check=_positive_finite,
    ),
    _fn(
        check_ranks,
        {"ranks": ([3, 5], "data"), "n": (10, "int")},
        extra={"ranks": INT_LISTS},
        check=_nonneg_array,
    ),
    _entry(
        "is_contiguous/substitution_distance",
        lambda e, S, S_prime: (is_contiguous(e), substitution_distance(S, S_prime)),
        {"e": ([0, 1, 1], "data"), "S": ([1.0, 2.0], "data"), "S_prime": ([1.0, 3.0], "data")},
    ),
    _fn(
        sample_aq,
        {
            "x": (np.array([0.1, 0.5]), "data"),
            "plan": (aq_plan([0.5]), "any"),
            "bounds": ((0.0, 1.0), "pair"),
            "eps_prime": (1.0, "real"),
            "size": (3, "size"),
            "rng": (RNG, "rng"),
        },
        check=_estimates,
    ),
    _entry(
        "forward",
        lambda **kw: forward(**kw).log_z,
        {
            "x": (np.array([0.1, 0.5]), "data"),
            "quantiles": ([0.5], "data"),
            "bounds": ((0.0, 1.0), "pair"),
            "scale": (0.25, "real"),
            "method": ("auto", "choice"),
        },
        check=_finite,
        extra={"method": ("exact", "rejection")},
    ),
    _fn(
        path_log_probability,
        {"fw": (JE_EXACT, "any"), "path": ((1, 2), "data")},
        check=_log_probability,
        extra={"fw": (JE_REJECTION,), "path": INT_LISTS},
    ),
    _fn(
        sample_joint_exp,
        {"fw": (JE_REJECTION, "any"), "size": (3, "size"), "rng": (RNG, "rng")},
        check=_estimates,
        extra={"fw": (JE_EXACT,)},
    ),
    _entry(
        "fenwick_shift_report",
        lambda m, costs: fenwick_shift_report(m, costs=costs).is_valid_cc,
        {"m": (4, "int"), "costs": (True, "flag")},
    ),
    _fn(
        min_l1_cost,
        {"a": (A42, "data"), "e": ([0, 1, 1, 1], "data"), "integer": (False, "flag")},
    ),
    _entry(
        "shift_loss_over_box",
        lambda **kw: shift_loss_over_box(**kw)[0],
        {
            "a": (A42, "data"),
            "e": ([0, 1, 1, 1], "data"),
            "node_scale": (1.0, "real"),
            "radius": (1, "int"),
        },
    ),
    _entry(
        "imola25.Cell",
        study.Cell,
        {
            "panel": ("a", "choice"),
            "dataset": ("age", "choice"),
            "adjacency": ("add_remove", "choice"),
            "duplication": (1, "int"),
            "m": (10, "int"),
            "mechanism": ("AQ pure", "choice"),
            "runs": (1, "int"),
        },
        check=_cell,
    ),
    _entry(
        "imola25.slice_parameters",
        study.slice_parameters,
        {
            "n": (1000, "int"),
            "m": (2, "int"),
            "adjacency": ("add_remove", "choice"),
            "epsilon": (1.0, "real"),
            "delta": (1e-6, "real"),
        },
    ),
]
