"""fukuchi19: locally differentially private minimum (and maximum) finding.

Fukuchi, Yu, Haishima, Sakuma, "Locally Differentially Private Minimum Finding"
(arXiv:1905.11067); decisions and errata in ``notes/fukuchi19.md``.

Conventions used by every module of this package:

* the algorithms work on [−1, 1]; :mod:`.domain_map` maps public bounds [a, b] onto it;
* N users, one value each; k(τ) = #{x_i <= τ} (sign(0) = +1, so ties count as "<=");
* L rounds, per-round budget u = ε/L; every user answers every round (no splitting of users);
* round t (t = 1..L) queries the midpoint τ of the current dyadic interval; node j of depth t is
  [−1 + j·2^{2−t}, −1 + (j+1)·2^{2−t}], so τ = −1 + (2j+1)·2^{1−t}; the output is leaf j's
  midpoint −1 + (2j+1)·2^{−L}, j = 0..2^L − 1;
* the decision Φ′ >= γ is made exactly on the integer number P of "+1" reports:
  go left ⇔ P >= m* (:func:`.round_statistic.left_threshold`); every sampler and every exact law
  shares that one integer, so they cannot disagree at a float boundary.

Modules: ``schedules`` (γ of Theorem 2, the Lower-α and Unknown-α schedules), ``round_statistic``
(one round: RR at ε/L, Φ′, the threshold, the exact law of the decision), ``search`` (Algorithm 1,
Algorithm 2's per-user, binomial and lazy i.i.d. samplers, the maximum), ``exact_law`` (the exact
output law by the tree computation), ``transcript`` (one user's view: the per-user transcript
channel), ``laplace_baseline`` (the naive baseline), ``domain_map`` (the affine map),
``mechanisms`` (the :class:`dpquant.reference.core.Mechanism` wrappers), and the paper's analytic
statements, as printed and corrected: ``concentration`` (Lemma 2), ``search_error`` (Lemma 1),
``upper_bounds`` (Theorems 4 and 5, Eqs. 11, 45–46), ``lower_bounds`` (Theorems 1, 3 and 7),
``fatness`` (Examples 1 and 2), ``section_6_1`` (the fixed data of Sec. 6.1 and its f(u) claim),
all reading their numbers through ``bound_inputs``.

This module only re-exports; import from here (``from dpquant.reference.ldp_minimum import LDPMinimum``).
"""

from dpquant.reference.ldp_minimum.bound_inputs import (
    per_round_factor,
    rounds_factor,
)
from dpquant.reference.ldp_minimum.concentration import (
    e_gamma_exact,
    hoeffding_bound,
    hoeffding_bound_float,
    lemma_2_bound,
    lemma_2_bound_float,
    phi_tail_exact,
)
from dpquant.reference.ldp_minimum.domain_map import UnitMap
from dpquant.reference.ldp_minimum.exact_law import (
    SparseLeafLaw,
    iid_leaf_probabilities_exact,
    leaf_probabilities,
    leaf_probabilities_exact,
    mean_absolute_error_exact,
    output_law,
)
from dpquant.reference.ldp_minimum.fatness import (
    beta_cdf_exact,
    beta_fatness_constant,
    normal_mass,
    truncated_normal_fatness_constant,
)
from dpquant.reference.ldp_minimum.laplace_baseline import (
    grid_report_law,
    laplace_reports,
    laplace_scale,
    minimum_cdf,
    sample_grid_reports,
    sample_laplace_extreme,
)
from dpquant.reference.ldp_minimum.lower_bounds import (
    lower_bound_cdfs,
    lower_bound_minima,
    lower_bound_tv,
    lower_bound_tv_quadrature,
    theorem_1_constant,
    theorem_1_neighbours,
    theorem_3_delta,
    theorem_3_lower_bound,
    theorem_7_bound,
)
from dpquant.reference.ldp_minimum.mechanisms import LaplaceExtreme, LaplaceReport, LDPMinimum
from dpquant.reference.ldp_minimum.minimum_laws import (
    GUIDELINE_LOG_POWER,
    LAPLACE_SERIES_TERMS,
    LaplaceMinimumLaw,
    guideline,
    laplace_error_quantile,
    laplace_law_fixed,
    laplace_law_iid,
    laplace_mae_exact,
)
from dpquant.reference.ldp_minimum.round_statistic import (
    RoundRule,
    left_probability,
    left_probability_exact,
    left_threshold,
    plus_count_pmf_exact,
    round_rule,
)
from dpquant.reference.ldp_minimum.schedules import (
    SCHEDULES,
    Schedule,
    e_gamma,
    lower_alpha_levels,
    schedule,
    theorem_2_gamma,
    theorem_2_gamma_mp,
    unknown_alpha_levels,
)
from dpquant.reference.ldp_minimum.search import (
    Transcript,
    UnitData,
    algorithm_1,
    counts_at_or_below,
    leaf_values,
    maximum,
    midpoints,
    prepare,
    run_protocol,
    sample_binomial,
    sample_iid,
    sample_minimum,
    sample_per_user,
)
from dpquant.reference.ldp_minimum.search_error import (
    Lemma1Report,
    empirical_quantile,
    far_mistake_term,
    lemma_1_printed_infimum,
    lemma_1_report,
)
from dpquant.reference.ldp_minimum.section_6_1 import (
    beta_fixed_data,
    section_6_1_f,
    section_6_1_f_float,
    section_6_1_series_coefficient,
)
from dpquant.reference.ldp_minimum.transcript import UserTranscript
from dpquant.reference.ldp_minimum.upper_bounds import (
    beta_order_statistic_moment,
    eq_11_ratio,
    rising_factorial,
    theorem_4_bound_corrected,
    theorem_4_bound_printed,
    theorem_4_condition,
    theorem_5_bound_corrected,
    theorem_5_bound_printed,
)

__all__ = [
    "GUIDELINE_LOG_POWER",
    "LAPLACE_SERIES_TERMS",
    "LDPMinimum",
    "LaplaceExtreme",
    "LaplaceMinimumLaw",
    "LaplaceReport",
    "Lemma1Report",
    "RoundRule",
    "SCHEDULES",
    "Schedule",
    "SparseLeafLaw",
    "Transcript",
    "UnitData",
    "UnitMap",
    "UserTranscript",
    "algorithm_1",
    "beta_cdf_exact",
    "beta_fatness_constant",
    "beta_fixed_data",
    "beta_order_statistic_moment",
    "counts_at_or_below",
    "e_gamma",
    "e_gamma_exact",
    "empirical_quantile",
    "eq_11_ratio",
    "far_mistake_term",
    "grid_report_law",
    "guideline",
    "hoeffding_bound",
    "hoeffding_bound_float",
    "iid_leaf_probabilities_exact",
    "laplace_error_quantile",
    "laplace_law_fixed",
    "laplace_law_iid",
    "laplace_mae_exact",
    "laplace_reports",
    "laplace_scale",
    "leaf_probabilities",
    "leaf_probabilities_exact",
    "leaf_values",
    "left_probability",
    "left_probability_exact",
    "left_threshold",
    "lemma_1_printed_infimum",
    "lemma_1_report",
    "lemma_2_bound",
    "lemma_2_bound_float",
    "lower_alpha_levels",
    "lower_bound_cdfs",
    "lower_bound_minima",
    "lower_bound_tv",
    "lower_bound_tv_quadrature",
    "maximum",
    "mean_absolute_error_exact",
    "midpoints",
    "minimum_cdf",
    "normal_mass",
    "output_law",
    "per_round_factor",
    "phi_tail_exact",
    "plus_count_pmf_exact",
    "prepare",
    "rising_factorial",
    "round_rule",
    "rounds_factor",
    "run_protocol",
    "sample_binomial",
    "sample_grid_reports",
    "sample_iid",
    "sample_laplace_extreme",
    "sample_minimum",
    "sample_per_user",
    "schedule",
    "section_6_1_f",
    "section_6_1_f_float",
    "section_6_1_series_coefficient",
    "theorem_1_constant",
    "theorem_1_neighbours",
    "theorem_2_gamma",
    "theorem_2_gamma_mp",
    "theorem_3_delta",
    "theorem_3_lower_bound",
    "theorem_4_bound_corrected",
    "theorem_4_bound_printed",
    "theorem_4_condition",
    "theorem_5_bound_corrected",
    "theorem_5_bound_printed",
    "theorem_7_bound",
    "truncated_normal_fatness_constant",
    "unknown_alpha_levels",
]
