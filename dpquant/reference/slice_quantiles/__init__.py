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

The names below are the package's public API, a screenful (``notes/architecture.md``, "Issue 36:
narrow paper APIs"): the mechanisms and their release functions, the exact laws, and the
parameter choices of Sec. 4 that ``plan_slice_quantiles`` makes; the modules hold the rest (the
good set, the rank maps, the slices' EM, the zCDP conversions, the CC tails: see
notes/imola25.md, "Modules").
"""

from dpquant.reference.slice_quantiles.aq_mechanism import (
    ApproximateQuantilesMechanism,
    approximate_quantiles,
)
from dpquant.reference.slice_quantiles.exact_law import (
    failure_probability,
    output_law,
    privacy_profile,
    theorem_4_2_delta,
)
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
from dpquant.reference.slice_quantiles.slice_release import (
    SliceQuantilesPlan,
    cc_error,
    plan_slice_quantiles,
    slice_quantiles,
)

__all__ = [
    # SliceQuantiles (Algorithm 1) and the baselines, as mechanisms and as release functions
    "ApproximateQuantilesMechanism",
    "JointExpMechanism",
    "SliceQuantiles",
    "SliceQuantilesPlan",
    "approximate_quantiles",
    "joint_exp",
    "plan_slice_quantiles",
    "slice_quantiles",
    "with_options",
    # data prepared once, and the integer-array policy of ranks
    "SortedData",
    "check_int_array",
    "sorted_data",
    # the exact laws (Thm 4.2)
    "failure_probability",
    "output_law",
    "privacy_profile",
    "theorem_4_2_delta",
    # the parameter choices of Sec. 4 (what plan_slice_quantiles chooses)
    "BudgetSplit",
    "budget_split",
    "cc_error",
    "check_feasible",
    "delta_multiplier",
    "half_width",
    "required_spacing",
    "target_ranks",
]
