"""Contract specimens and fuzz entries of the fukuchi19 area (``dpquant.reference.ldp_minimum``; see
:mod:`harness`).

Every valid call is tiny (N <= 3 users, L = 2 levels, a few draws). The checks verify that an
accepted hostile call gives a correct result: draws finite and inside the declared range, laws of
total mass 1, probabilities in [0, 1], thresholds and levels integers in their ranges, bounds
real numbers (no NaN, no infinity).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from harness import Entry, Specimen, check_draws, check_law, check_sane

from dpquant.reference.ldp_minimum import (
    bound_inputs,
    concentration,
    domain_map,
    exact_law,
    fatness,
    laplace_baseline,
    lower_bounds,
    mechanisms,
    round_statistic,
    schedules,
    search,
    search_error,
    section_6_1,
    transcript,
    upper_bounds,
)

# -- specimens ----------------------------------------------------------------------------------

SCHEDULES = ("lower_alpha", "unknown_alpha")

SPECIMENS: list[Specimen] = [
    Specimen(
        "fukuchi19.LDPMinimum",
        mechanisms.LDPMinimum,
        {
            "epsilon": 1.0,
            "levels": 2,
            "gamma": 0.5,
            "bounds": (0.0, 1.0),
            "target": "min",
            "sampler": "binomial",
            "clamp": False,
            "exp_u": None,
        },
        {
            "epsilon": "real",
            "levels": "int",
            "gamma": "real",
            "bounds": "pair",
            "target": "choice",
            "sampler": "choice",
            "clamp": "flag",
            "exp_u": "real",
        },
        [0.1, 0.4, 0.9],
        extra={"target": ("max",), "sampler": ("per_user",), "clamp": (True,)},
        aliases={"exp_u": ("epsilon",)},
    ),
    Specimen(
        "fukuchi19.LDPMinimum.with_exp_u",
        mechanisms.LDPMinimum.with_exp_u,
        {"exp_u": 3, "levels": 2, "gamma": 0.5},
        {"exp_u": "real", "levels": "int", "gamma": "real"},
        [-1.0, 0.2],
        extra={"exp_u": (Fraction(5, 4), Fraction(2**70 + 1, 2**70))},
    ),
    Specimen(
        "fukuchi19.LDPMinimum.for_schedule",
        mechanisms.LDPMinimum.for_schedule,
        {"name": "lower_alpha", "n": 3, "epsilon": 1.0, "schedule_options": None},
        {"name": "choice", "n": "int", "epsilon": "real", "schedule_options": "any"},
        [0.1, 0.4, 0.9],
        extra={"name": SCHEDULES, "schedule_options": ({"alpha0": 0.0}, {"nope": 1})},
        aliases={"schedule_options": ("alpha0",)},
    ),
    Specimen(
        "fukuchi19.LaplaceReport",
        mechanisms.LaplaceReport,
        {"epsilon": 1.0, "bounds": (0.0, 1.0), "noise": "grid", "grid": 0.25},
        {"epsilon": "real", "bounds": "pair", "noise": "choice", "grid": "real"},
        0.3,
        extra={"noise": ("continuous",), "grid": (2.0**-40, 2.0**-41, 0.75)},
    ),
    Specimen(
        "fukuchi19.LaplaceExtreme",
        mechanisms.LaplaceExtreme,
        {
            "epsilon": 1.0,
            "bounds": (0.0, 1.0),
            "target": "min",
            "clip": False,
            "clamp": False,
            "noise": "grid",
            "grid": 0.25,
        },
        {
            "epsilon": "real",
            "bounds": "pair",
            "target": "choice",
            "clip": "flag",
            "clamp": "flag",
            "noise": "choice",
            "grid": "real",
        },
        [0.1, 0.5],
        extra={"target": ("max",), "noise": ("continuous",)},
    ),
    Specimen(
        "fukuchi19.UserTranscript",
        transcript.UserTranscript,
        {
            "epsilon": 1.0,
            "levels": 2,
            "gamma": 0.5,
            "others": (0.0, 0.5),
            "exp_u": None,
            "sampler": "binomial",
        },
        {
            "epsilon": "real",
            "levels": "int",
            "gamma": "real",
            "others": "data",
            "exp_u": "real",
            "sampler": "choice",
        },
        0.3,
        extra={"sampler": ("per_user",)},
        aliases={"exp_u": ("epsilon",)},
    ),
    Specimen(
        "fukuchi19.UserTranscript.with_exp_u",
        transcript.UserTranscript.with_exp_u,
        {"exp_u": 3, "levels": 2, "gamma": 0.5, "others": (0.0, 0.5)},
        {"exp_u": "real", "levels": "int", "gamma": "real", "others": "data"},
        -1.0,
    ),
]

# -- checks of accepted results -----------------------------------------------------------------


def check_finite_real(x: Any) -> None:
    assert isinstance(x, float | int | Fraction | np.floating | np.integer | mpmath.mpf), type(x)
    assert not isinstance(x, bool)
    assert isinstance(x, Fraction) or mpmath.isfinite(x), f"not a finite number: {x}"


def check_positive_real(x: Any) -> None:
    check_finite_real(x)
    assert x > 0, f"not > 0: {x}"


def check_probability(x: Any) -> None:
    check_finite_real(x)
    assert 0 <= x <= 1, f"probability outside [0, 1]: {x}"


def check_probabilities(x: Any) -> None:
    arr = np.asarray([float(v) for v in np.ravel(x)])
    assert not np.isnan(arr).any() and ((arr >= 0) & (arr <= 1)).all(), f"probabilities {arr}"


def check_pmf(x: Any) -> None:
    assert all(v >= 0 for v in x)
    with mpmath.workdps(60):
        assert abs(mpmath.fsum(mpmath.mpf(v) if not isinstance(v, Fraction) else
                               mpmath.mpf(v.numerator) / v.denominator for v in x) - 1) < 1e-40


def check_int_at_least(lo: int) -> Any:
    def check(x: Any) -> None:
        assert isinstance(x, int) and not isinstance(x, bool) and x >= lo, f"{x!r}"

    return check


def check_levels(x: Any) -> None:
    assert isinstance(x, int) and 1 <= x <= 52, f"levels {x!r}"


def check_unit_draws(x: Any) -> None:
    check_draws(np.atleast_1d(x))
    assert np.all(np.abs(x) <= 1), f"draws outside [-1, 1]: {x}"


def check_rule(rule: Any) -> None:
    assert 0 <= rule.threshold <= rule.n + 1
    assert 0 < rule.keep <= 1 and math.isfinite(rule.debias)


def check_pair_probabilities(x: Any) -> None:
    left, right = x
    assert 0 <= left <= 1 and 0 <= right <= 1 and abs(left + right - 1) < 1e-9, f"{x}"


def check_cdf_values(x: Any) -> None:
    arr = np.asarray(x, dtype=float)
    assert not np.isnan(arr).any() and ((arr >= 0) & (arr <= 1)).all(), f"cdf {arr}"


def check_sparse(law: Any) -> None:
    assert 0 <= law.pruned <= 1 and abs(law.probabilities.sum() + law.pruned - 1) < 1e-9


# -- fixtures of the valid calls ----------------------------------------------------------------

DATA3 = [-0.5, 0.2, 0.7]
RULE3 = round_statistic.round_rule(3, 2, 0.5, epsilon=1.0)
RULE3_EXACT = round_statistic.round_rule(3, 2, 0.5, exp_u=3)
RULE2_EXACT = round_statistic.round_rule(2, 2, 0.5, exp_u=3)
TRANSCRIPT = transcript.UserTranscript.with_exp_u(3, 2, 0.5, (0.0, 0.5))


def _uniform_cdf(t: Any) -> Any:
    return np.clip((np.asarray(t, dtype=float) + 1) / 2, 0, 1)


def _uniform_cdf_exact(t: Fraction) -> Fraction:
    return min(max((t + 1) / 2, Fraction(0)), Fraction(1))


BAD_CDFS = (
    lambda t: np.full(np.shape(t), math.nan),
    lambda t: np.full(np.shape(t), "0.5"),
    lambda t: np.full(np.shape(t), 2.0),
    lambda t: np.ones(3),
)
BAD_EXACT_CDFS = (lambda t: math.nan, lambda t: "0.5", lambda t: Fraction(3, 2), lambda t: None)


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def _unit_map(lo: Any, hi: Any, clamp: Any, y: Any) -> Any:
    return domain_map.UnitMap(lo, hi, clamp).from_unit(y)


def _check_from_unit(x: Any) -> None:
    arr = np.asarray(x, dtype=float)
    assert np.isfinite(arr).all(), f"non-finite {arr}"


def _to_unit(lo: Any, hi: Any, data: Any) -> Any:
    return domain_map.UnitMap(lo, hi).to_unit(data)


def _mp(x: Any) -> None:
    check_finite_real(x)


def E(name: str, *args: Any, **options: Any) -> Entry:  # noqa: N802 -- a short constructor
    return Entry(f"fukuchi19.{name}", *args, **options)


# the valid parameters (and their hostile pools) shared by the bounds of Theorems 4 and 5
THEOREM_BOUND = {"gamma": 0.1, "c": 1.0, "alpha": 1.0, "n": 8, "levels": 3}
THEOREM_BOUND_KINDS = {"gamma": "real", "c": "real", "alpha": "real", "n": "int", "levels": "int"}

ENTRIES: list[Entry] = [
    # schedules
    *(E(fn.__name__, fn, {"epsilon": 1.0, "levels": 2, "n": 8, "h_n": 1.0},
        {"epsilon": "real", "levels": "int", "n": "int", "h_n": "real"}, check=check_positive_real)
      for fn in (schedules.theorem_2_gamma, schedules.theorem_2_gamma_mp)),
    E("e_gamma", schedules.e_gamma, {"epsilon": 1.0, "levels": 2, "n": 8, "gamma": 0.3},
      {"epsilon": "real", "levels": "int", "n": "int", "gamma": "real"}, check=check_probability),
    E("log2_n", schedules.log2_n, {"n": 8}, {"n": "int"}, check=check_finite_real),
    E("lower_alpha_levels", schedules.lower_alpha_levels, {"n": 8, "alpha0": 1.0},
      {"n": "int", "alpha0": "real"}, check=check_levels),
    E("unknown_alpha_levels", schedules.unknown_alpha_levels, {"n": 8, "scale": 1000},
      {"n": "int", "scale": "int"}, check=check_levels),
    E("schedule", schedules.schedule,
      {"name": "lower_alpha", "n": 8, "epsilon": 1.0, "alpha0": 1.0, "scale": 1000,
       "extra_log_levels": False},
      {"name": "choice", "n": "int", "epsilon": "real", "alpha0": "real", "scale": "int",
       "extra_log_levels": "flag"},
      check=lambda s: check_positive_real(s.gamma), aliases={"name": ("schedule name",)},
      extra={"name": SCHEDULES}),
    # round statistic
    E("round_rule",
      lambda n, levels, gamma, epsilon: round_statistic.round_rule(
          n, levels, gamma, epsilon=epsilon),
      {"n": 3, "levels": 2, "gamma": 0.5, "epsilon": 1.0},
      {"n": "int", "levels": "int", "gamma": "real", "epsilon": "real"}, check=check_rule),
    E("round_rule(exp_u)", lambda n, exp_u: round_statistic.round_rule(n, 2, 0.3, exp_u=exp_u),
      {"n": 3, "exp_u": 3}, {"n": "int", "exp_u": "real"}, check=check_rule),
    E("left_threshold", round_statistic.left_threshold,
      {"n": 5, "levels": 2, "gamma": 0.3, "epsilon": 1.0, "exp_u": None},
      {"n": "int", "levels": "int", "gamma": "real", "epsilon": "real", "exp_u": "real"},
      check=check_int_at_least(0)),
    E("tanh_half_u", round_statistic.tanh_half_u,
      {"levels": 2, "epsilon": 1.0, "exp_u": None, "dps": 60},
      {"levels": "int", "epsilon": "real", "exp_u": "real", "dps": "int"},
      check=check_probability),
    E("check_exp_u", round_statistic.check_exp_u, {"exp_u": 3}, {"exp_u": "real"},
      check=check_positive_real),
    E("epsilon_of_exp_u", round_statistic.epsilon_of_exp_u, {"exp_u": 3, "levels": 2},
      {"exp_u": "real", "levels": "int"}, check=check_positive_real),
    E("left_probability", round_statistic.left_probability, {"rule": RULE3, "k": 1},
      {"rule": "any", "k": "int"}, check=check_pair_probabilities),
    E("left_probability_exact", round_statistic.left_probability_exact,
      {"rule": RULE3_EXACT, "k": 1}, {"rule": "any", "k": "int"}, check=check_probability),
    E("plus_count_pmf_exact", round_statistic.plus_count_pmf_exact, {"rule": RULE3, "k": 2},
      {"rule": "any", "k": "int"}, check=check_pmf),
    # search
    E("algorithm_1", search.algorithm_1, {"data": DATA3, "levels": 3},
      {"data": "data", "levels": "int"}, check=check_finite_real),
    E("prepare", lambda data: search.prepare(data).sorted, {"data": DATA3}, {"data": "data"},
      check=check_unit_draws),
    E("leaf_values", search.leaf_values, {"levels": 3}, {"levels": "int"}, check=check_unit_draws),
    E("midpoints", search.midpoints, {"levels": 3, "depth": 2, "node": 1},
      {"levels": "int", "depth": "int", "node": "any"}, check=check_unit_draws),
    E("counts_at_or_below", search.counts_at_or_below, {"sorted_data": DATA3, "tau": 0.0},
      {"sorted_data": "data", "tau": "any"}, check=check_sane),
    E("sample_binomial", search.sample_binomial,
      {"data": DATA3, "rule": RULE3, "size": 4, "rng": _rng()},
      {"data": "data", "rule": "any", "size": "size", "rng": "rng"}, check=check_unit_draws),
    E("sample_per_user", search.sample_per_user,
      {"data": DATA3, "rule": RULE3, "size": 4, "rng": _rng()},
      {"data": "data", "rule": "any", "size": "size", "rng": "rng"}, check=check_unit_draws),
    E("sample_minimum", search.sample_minimum,
      {"data": DATA3, "rule": RULE3, "size": 4, "rng": _rng(), "sampler": "binomial"},
      {"data": "data", "size": "size", "rng": "rng", "sampler": "choice"},
      check=check_unit_draws, extra={"sampler": ("per_user",)}),
    E("maximum", search.maximum, {"data": DATA3, "rule": RULE3, "size": 4, "rng": _rng()},
      {"data": "data", "size": "size", "rng": "rng"}, check=check_unit_draws),
    E("run_protocol", lambda data, rng: search.run_protocol(data, RULE3, rng).output,
      {"data": DATA3, "rng": _rng()}, {"data": "data", "rng": "rng"}, check=check_finite_real),
    E("sample_iid", search.sample_iid,
      {"cdf": _uniform_cdf, "rule": RULE3, "size": 4, "rng": _rng()},
      {"cdf": "any", "rule": "any", "size": "size", "rng": "rng"}, check=check_unit_draws,
      extra={"cdf": BAD_CDFS}),
    # exact laws
    E("leaf_probabilities_exact", exact_law.leaf_probabilities_exact,
      {"data": DATA3, "rule": RULE3_EXACT}, {"data": "data", "rule": "any"}, check=check_pmf),
    E("output_law", exact_law.output_law, {"data": DATA3, "rule": RULE3},
      {"data": "data", "rule": "any"}, check=check_law),
    E("leaf_probabilities", exact_law.leaf_probabilities,
      {"data": DATA3, "rule": RULE3, "prune": 1e-15},
      {"data": "data", "rule": "any", "prune": "real"}, check=check_sparse),
    E("iid_leaf_probabilities_exact", exact_law.iid_leaf_probabilities_exact,
      {"cdf": _uniform_cdf_exact, "rule": RULE2_EXACT}, {"cdf": "any", "rule": "any"},
      check=check_pmf, extra={"cdf": BAD_EXACT_CDFS}),
    E("mean_absolute_error_exact", exact_law.mean_absolute_error_exact,
      {"probabilities": [Fraction(1, 4)] * 4, "levels": 2, "target": 0},
      {"probabilities": "any", "levels": "int", "target": "real"}, check=check_finite_real),
    E("SparseLeafLaw.error_quantile",
      lambda target, q: exact_law.leaf_probabilities(DATA3, RULE3).error_quantile(target, q),
      {"target": -0.5, "q": 0.5}, {"target": "real", "q": "real"}, check=check_finite_real),
    E("SparseLeafLaw.mean_absolute_error",
      lambda target: exact_law.leaf_probabilities(DATA3, RULE3).mean_absolute_error(target),
      {"target": -0.5}, {"target": "real"}, check=check_finite_real),
    # the Laplace baseline
    E("laplace_scale", laplace_baseline.laplace_scale, {"epsilon": 1.0}, {"epsilon": "real"},
      check=check_positive_real),
    E("check_grid", laplace_baseline.check_grid, {"grid": 0.25}, {"grid": "real"},
      check=check_positive_real),
    E("grid_noise_scale", laplace_baseline.grid_noise_scale, {"epsilon": 1.0, "grid": 0.25},
      {"epsilon": "real", "grid": "real"}, check=check_positive_real),
    E("grid_clamp", laplace_baseline.grid_clamp, {"epsilon": 1.0, "grid": 0.25},
      {"epsilon": "real", "grid": "real"}, check=check_int_at_least(1)),
    E("grid_index", laplace_baseline.grid_index, {"value": 0.3, "grid": 0.25},
      {"value": "real", "grid": "real"}, check=lambda i: isinstance(i, int)),
    E("sample_grid_reports", laplace_baseline.sample_grid_reports,
      {"value": 0.3, "epsilon": 1.0, "size": 4, "rng": _rng(), "grid": 0.25},
      {"value": "real", "epsilon": "real", "size": "size", "rng": "rng", "grid": "real"},
      check=check_draws),
    E("grid_report_law", laplace_baseline.grid_report_law,
      {"value": 0.3, "epsilon": 4.0, "grid": 0.25},
      {"value": "real", "epsilon": "real", "grid": "real"}, check=check_law),
    E("laplace_reports", laplace_baseline.laplace_reports,
      {"data": DATA3, "epsilon": 1.0, "rng": _rng()},
      {"data": "data", "epsilon": "real", "rng": "rng"}, check=check_draws),
    E("sample_laplace_extreme", laplace_baseline.sample_laplace_extreme,
      {"data": DATA3, "epsilon": 1.0, "size": 4, "rng": _rng(), "target": "min", "clip": False,
       "noise": "grid", "grid": 0.25},
      {"data": "data", "epsilon": "real", "size": "size", "rng": "rng", "target": "choice",
       "clip": "flag", "noise": "choice", "grid": "real"},
      check=check_draws, extra={"noise": ("continuous",)}),
    E("minimum_cdf", laplace_baseline.minimum_cdf,
      {"y": [-1.0, 0.0, 1.0], "data": DATA3, "epsilon": 1.0},
      {"y": "any", "data": "data", "epsilon": "real"}, check=check_cdf_values),
    # the affine map
    E("UnitMap.from_unit", _unit_map, {"lo": 0.0, "hi": 150.0, "clamp": False, "y": [-1.0, 0.5]},
      {"lo": "real", "hi": "real", "clamp": "flag", "y": "any"}, check=_check_from_unit,
      aliases={"lo": ("bounds",), "hi": ("bounds",)}),
    E("UnitMap.to_unit", _to_unit, {"lo": 0.0, "hi": 150.0, "data": [3.0, 150.0]},
      {"lo": "real", "hi": "real", "data": "data"}, check=check_unit_draws,
      aliases={"lo": ("bounds", "data must lie"), "hi": ("bounds", "data must lie")}),
    # one user's transcript
    E("check_user_value", transcript.check_user_value, {"data": 0.3}, {"data": "any"},
      check=check_finite_real),
    E("others_plus_pmf", transcript.others_plus_pmf, {"keep": Fraction(3, 4), "k": 1, "m": 2},
      {"keep": "real", "k": "int", "m": "int"}, check=check_pmf),
    E("UserTranscript.decode", lambda code: TRANSCRIPT.decode(code).output, {"code": 5},
      {"code": "int"}, check=check_finite_real),
    E("UserTranscript.encode", TRANSCRIPT.encode, {"reports": [1, -1], "others_plus": [0, 2]},
      {"reports": "any", "others_plus": "any"}, check=check_int_at_least(0)),
    E("UserTranscript.max_loss", TRANSCRIPT.max_loss, {"x": -1.0, "x_prime": 1.0},
      {"x": "any", "x_prime": "any"}, check=check_finite_real),
    E("UserTranscript.loss_bound", TRANSCRIPT.loss_bound, {"x": -1.0, "x_prime": 0.5},
      {"x": "any", "x_prime": "any"}, check=check_finite_real),
    # the paper's bounds (bound_inputs, concentration, search_error, upper_bounds, lower_bounds,
    # fatness, section_6_1)
    E("per_round_factor", bound_inputs.per_round_factor, {"u": 1.0, "exp_u": None},
      {"u": "real", "exp_u": "real"}, check=check_positive_real),
    E("rounds_factor", bound_inputs.rounds_factor, {"levels": 2, "epsilon": 1.0, "exp_u": None},
      {"levels": "int", "epsilon": "real", "exp_u": "real"}, check=check_positive_real),
    E("lemma_2_bound", concentration.lemma_2_bound,
      {"n": 8, "f_tilde": 0.5, "gamma": 0.2, "u": 1.0},
      {"n": "int", "f_tilde": "real", "gamma": "real", "u": "real"}, check=check_probability),
    E("e_gamma_exact", concentration.e_gamma_exact, {"n": 8, "gamma": 0.2, "u": 1.0},
      {"n": "int", "gamma": "real", "u": "real"}, check=check_probability),
    E("hoeffding_bound", concentration.hoeffding_bound,
      {"n": 8, "f_tilde": 0.5, "gamma": 0.2, "u": 1.0},
      {"n": "int", "f_tilde": "real", "gamma": "real", "u": "real"}, check=check_probability),
    *(E(fn.__name__, fn, {"n": 8, "f_tilde": [0.5, 0.1], "gamma": 0.2, "u": 1.0},
        {"n": "any", "f_tilde": "any", "gamma": "any", "u": "any"}, check=check_probabilities)
      for fn in (concentration.lemma_2_bound_float, concentration.hoeffding_bound_float)),
    E("phi_tail_exact", concentration.phi_tail_exact,
      {"n": 5, "k": 2, "gamma": 0.3, "event": ">=", "u": 1.0, "exp_u": None},
      {"n": "int", "k": "int", "gamma": "real", "event": "choice", "u": "real", "exp_u": "real"},
      check=check_probability, extra={"event": concentration.EVENTS}),
    E("far_mistake_term", search_error.far_mistake_term, {"e": 0.1, "levels": 3},
      {"e": "real", "levels": "int"}, check=check_finite_real),
    E("theorem_4_condition", upper_bounds.theorem_4_condition,
      {"gamma": 0.1, "c": 1.0, "alpha": 1.0, "x_bar_minus_x_min": 1.0},
      {"gamma": "real", "c": "real", "alpha": "real", "x_bar_minus_x_min": "real"},
      check=lambda x: isinstance(x, bool)),
    *(E(fn.__name__, fn, {**THEOREM_BOUND, "epsilon": 1.0},
        {**THEOREM_BOUND_KINDS, "epsilon": "real"}, check=check_finite_real)
      for fn in (upper_bounds.theorem_4_bound_printed, upper_bounds.theorem_4_bound_corrected,
                 upper_bounds.theorem_5_bound_printed)),
    E("theorem_5_bound_corrected", upper_bounds.theorem_5_bound_corrected,
      {**THEOREM_BOUND, "exp_u": 3},
      {**THEOREM_BOUND_KINDS, "exp_u": "real"}, check=check_finite_real),
    E("rising_factorial", upper_bounds.rising_factorial, {"x": 2.0, "a": 0.5},
      {"x": "real", "a": "real"}, check=check_finite_real),
    E("beta_order_statistic_moment", upper_bounds.beta_order_statistic_moment,
      {"k": 2, "n": 8, "alpha": 1.0}, {"k": "int", "n": "int", "alpha": "real"},
      check=check_probability),
    E("eq_11_ratio", upper_bounds.eq_11_ratio, {"gamma": 0.1, "n": 8, "alpha": 1.0},
      {"gamma": "real", "n": "int", "alpha": "real"}, check=check_finite_real),
    E("empirical_quantile", search_error.empirical_quantile, {"data": DATA3, "gamma": 0.5},
      {"data": "data", "gamma": "real"}, check=check_finite_real),
    E("lemma_1_report", lambda data, delta, reading: search_error.lemma_1_report(
        data, RULE3_EXACT, delta, reading).error,
      {"data": DATA3, "delta": 0.1, "reading": "conditional"},
      {"data": "data", "delta": "real", "reading": "choice"}, check=check_finite_real,
      extra={"reading": ("marginal",)}),
    E("lemma_1_printed_infimum", lambda data, reading: search_error.lemma_1_printed_infimum(
        data, RULE3_EXACT, reading)[0],
      {"data": DATA3, "reading": "conditional"}, {"data": "data", "reading": "choice"},
      check=check_finite_real),
    E("theorem_3_delta", lower_bounds.theorem_3_delta, {"epsilon": 0.5, "n": 8, "alpha": 1.0},
      {"epsilon": "real", "n": "int", "alpha": "real"}, check=check_positive_real),
    E("theorem_3_lower_bound", lower_bounds.theorem_3_lower_bound,
      {"epsilon": 0.5, "n": 8, "alpha": 1.0},
      {"epsilon": "real", "n": "int", "alpha": "real"}, check=check_positive_real),
    E("theorem_7_bound", lower_bounds.theorem_7_bound,
      {"delta": 0.1, "n": 8, "epsilon": 0.5, "tv": 0.01},
      {"delta": "real", "n": "int", "epsilon": "real", "tv": "real"}, check=check_finite_real),
    E("lower_bound_cdfs",
      lambda alpha, delta, x: [f(x) for f in lower_bounds.lower_bound_cdfs(alpha, delta)],
      {"alpha": 0.5, "delta": 0.1, "x": [-1.0, -0.5, 0.5]},
      {"alpha": "real", "delta": "real", "x": "any"}, check=check_probabilities),
    E("lower_bound_minima", lower_bounds.lower_bound_minima, {"delta": 0.1}, {"delta": "real"},
      check=check_sane),
    E("lower_bound_tv", lower_bounds.lower_bound_tv, {"alpha": 0.5, "delta": 0.1},
      {"alpha": "real", "delta": "real"}, check=check_probability),
    E("lower_bound_tv_quadrature", lower_bounds.lower_bound_tv_quadrature,
      {"alpha": 2.0, "delta": 0.25},
      {"alpha": "real", "delta": "real"}, check=check_probability),
    E("theorem_1_constant", lower_bounds.theorem_1_constant, {"epsilon": 1.0}, {"epsilon": "real"},
      check=check_probability),
    E("theorem_1_neighbours", lower_bounds.theorem_1_neighbours, {"n": 3}, {"n": "int"},
      check=check_sane),
    E("beta_fatness_constant", fatness.beta_fatness_constant,
      {"alpha": 2.0, "beta": 3.0, "width": 1.0, "form": "min"},
      {"alpha": "real", "beta": "real", "width": "real", "form": "choice"},
      check=check_positive_real, extra={"form": fatness.BETA_FORMS}),
    E("beta_cdf_exact", fatness.beta_cdf_exact, {"y": 0.3, "alpha": 2.0, "beta": 3.0},
      {"y": "real", "alpha": "real", "beta": "real"}, check=check_probability),
    E("normal_mass", fatness.normal_mass, {"a": -1.0, "b": 2.0}, {"a": "real", "b": "real"},
      check=check_probability),
    E("truncated_normal_fatness_constant", fatness.truncated_normal_fatness_constant,
      {"mu": 0.0, "sigma": 1.0, "x_min": -1.0, "x_max": 1.0},
      {"mu": "real", "sigma": "real", "x_min": "real", "x_max": "real"},
      check=check_positive_real),
    E("beta_fixed_data", section_6_1.beta_fixed_data,
      {"n": 4, "alpha": 2.0, "beta": 3.0, "x_min": -1.0, "width": 0.5},
      {"n": "int", "alpha": "real", "beta": "real", "x_min": "real", "width": "real"},
      check=check_unit_draws),
    E("section_6_1_f", section_6_1.section_6_1_f, {"u": 1.0}, {"u": "real"},
      check=check_positive_real),
    E("section_6_1_f_float", section_6_1.section_6_1_f_float, {"u": [0.5, 1.0]}, {"u": "any"},
      check=lambda x: check_draws(np.atleast_1d(x))),
    E("section_6_1_series_coefficient", section_6_1.section_6_1_series_coefficient, {"n": 5},
      {"n": "int"}, check=lambda x: isinstance(x, Fraction) and x >= 0),
]
