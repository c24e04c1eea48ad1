"""imola25: SliceQuantiles with continual counting, its baselines, and exact privacy checks.

Imola, Boninsegna, Keller, Aamand, Roy Chowdhury, Pagh, "Differentially Private Quantiles with
Smaller Error" (decisions and errata: ``notes/imola25.md``).

Conventions used by every module of this package:

* data are a 1-D float array; x_(1) <= ... <= x_(n) its sorted values (1-indexed order statistics);
* rank_X(z) = #{x ∈ X : x < z} (strict, the paper's Sec. 1 and App. C.3); quantiles
  q_1 < ... < q_m in (0, 1) have target ranks r_i = ⌊q_i·n⌋ for a *public* n (notes/imola25.md,
  "Public ranks"; erratum 12);
* the rank error of outputs z is max_i |rank_X(z_i) − r_i| (Err_X(Q, Z), Sec. 2);
* adjacency "add_remove" or "replace_one" (the paper's "substitute").

The names below are the package's public API; the modules hold the rest (see notes/imola25.md,
"Modules").
"""

from dpquant.reference.slice_quantiles.aq_mechanism import (
    ApproximateQuantilesMechanism,
    approximate_quantiles,
)
from dpquant.reference.slice_quantiles.cc_tails import cc_error_bound, cc_max_error_tail
from dpquant.reference.slice_quantiles.exact_law import (
    failure_probability,
    output_law,
    privacy_profile,
    theorem_4_2_delta,
)
from dpquant.reference.slice_quantiles.good_set import good_set_members, in_good_set, slices
from dpquant.reference.slice_quantiles.inputs import SortedData, check_int_array, sorted_data
from dpquant.reference.slice_quantiles.joint_exp_mechanism import JointExpMechanism, joint_exp
from dpquant.reference.slice_quantiles.mechanism import SliceQuantiles, with_options
from dpquant.reference.slice_quantiles.parameters import (
    BudgetSplit,
    budget_split,
    check_feasible,
    delta_multiplier,
    half_width,
    required_spacing,
    target_ranks,
)
from dpquant.reference.slice_quantiles.rank_maps import add_map, remove_map
from dpquant.reference.slice_quantiles.single_quantile import sample_slices_em, slice_em_log_density
from dpquant.reference.slice_quantiles.slice_release import (
    SliceQuantilesPlan,
    cc_error,
    plan_slice_quantiles,
    slice_quantiles,
)
from dpquant.reference.slice_quantiles.zcdp import em_zcdp_rho, epsilon_from_rho, rho_from_epsilon

__all__ = [
    "ApproximateQuantilesMechanism",
    "BudgetSplit",
    "JointExpMechanism",
    "SliceQuantiles",
    "SortedData",
    "SliceQuantilesPlan",
    "add_map",
    "approximate_quantiles",
    "budget_split",
    "cc_error",
    "cc_error_bound",
    "cc_max_error_tail",
    "check_feasible",
    "check_int_array",
    "delta_multiplier",
    "em_zcdp_rho",
    "epsilon_from_rho",
    "failure_probability",
    "good_set_members",
    "half_width",
    "in_good_set",
    "joint_exp",
    "output_law",
    "plan_slice_quantiles",
    "privacy_profile",
    "remove_map",
    "required_spacing",
    "rho_from_epsilon",
    "sample_slices_em",
    "sorted_data",
    "slice_em_log_density",
    "slice_quantiles",
    "slices",
    "target_ranks",
    "theorem_4_2_delta",
    "with_options",
]
