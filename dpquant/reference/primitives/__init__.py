"""Shared DP primitives: randomized response, the exponential mechanism over Smith's intervals,
candidate-set quantiles, Laplace, discrete Laplace and discrete Gaussian noise, binary-tree
continual counting and the truncated samplers of tzamos20 App. E.3; each beside its exact law.

One module per primitive; this package re-exports their main names, so that
``from dpquant.reference.primitives import ExponentialQuantile`` works. Limits and helpers stay in their
modules.
"""

from dpquant.reference.primitives.candidate_quantile import (
    CandidateQuantile,
    LaplaceNoisyMaxQuantile,
    below_equal_above,
    check_candidates,
    exponential_log_probabilities,
    laplace_noisy_max_log_probabilities,
    opendp_alpha,
    opendp_scores,
    permute_and_flip_log_probabilities,
)
from dpquant.reference.primitives.continual_counting import (
    ContinualCounting,
    fenwick_parents,
    lowbit,
    prefix_sums,
    round_half_up,
    shift_node_count,
    shift_nodes,
    shift_privacy_loss,
    tree_height,
)
from dpquant.reference.primitives.discrete_gaussian import (
    DiscreteGaussianLaw,
    discrete_gaussian_renyi,
)
from dpquant.reference.primitives.discrete_gaussian_sampler import sample_discrete_gaussian
from dpquant.reference.primitives.discrete_laplace import (
    DiscreteLaplaceLaw,
    sample_discrete_laplace,
)
from dpquant.reference.primitives.exact_discrete_gaussian import sample_discrete_gaussian_exact
from dpquant.reference.primitives.exact_discrete_laplace import (
    bernoulli_exp_neg,
    sample_discrete_laplace_exact,
)
from dpquant.reference.primitives.exponential_mechanism import (
    ExponentialQuantile,
    SmithIntervals,
    smith_intervals,
    utility_sensitivity,
)
from dpquant.reference.primitives.laplace import (
    check_laplace_sampler_parameters,
    laplace_law,
    sample_laplace,
)
from dpquant.reference.primitives.noise_mechanisms import (
    DiscreteGaussianCount,
    GaussianCount,
    LaplaceCount,
)
from dpquant.reference.primitives.randomized_response import (
    RandomizedResponse,
    debias_mean,
    keep_probability,
    keep_probability_mp,
    randomize_bits,
    rr_channel,
    rr_law,
)
from dpquant.reference.primitives.truncated import (
    sample_truncated_exponential,
    sample_truncated_laplace,
    sample_uniform,
    truncated_exponential_law,
    truncated_laplace_law,
    uniform_law,
)

__all__ = [
    "DiscreteGaussianCount",
    "GaussianCount",
    "LaplaceCount",
    "CandidateQuantile",
    "ContinualCounting",
    "DiscreteGaussianLaw",
    "DiscreteLaplaceLaw",
    "ExponentialQuantile",
    "LaplaceNoisyMaxQuantile",
    "RandomizedResponse",
    "SmithIntervals",
    "below_equal_above",
    "bernoulli_exp_neg",
    "check_candidates",
    "check_laplace_sampler_parameters",
    "debias_mean",
    "discrete_gaussian_renyi",
    "exponential_log_probabilities",
    "fenwick_parents",
    "keep_probability",
    "keep_probability_mp",
    "laplace_law",
    "laplace_noisy_max_log_probabilities",
    "lowbit",
    "opendp_alpha",
    "opendp_scores",
    "permute_and_flip_log_probabilities",
    "prefix_sums",
    "randomize_bits",
    "round_half_up",
    "rr_channel",
    "rr_law",
    "sample_discrete_gaussian",
    "sample_discrete_gaussian_exact",
    "sample_discrete_laplace",
    "sample_discrete_laplace_exact",
    "sample_laplace",
    "sample_truncated_exponential",
    "sample_truncated_laplace",
    "sample_uniform",
    "shift_node_count",
    "shift_nodes",
    "shift_privacy_loss",
    "smith_intervals",
    "tree_height",
    "truncated_exponential_law",
    "truncated_laplace_law",
    "uniform_law",
    "utility_sensitivity",
]
