"""aamand25: adaptive local-DP and shuffle-DP quantile search (Aamand, Boninsegna, Gentle, Imola,
Pagh, ICML 2025, "Lightweight Protocols for Distributed Private Quantile Estimation").

Conventions shared by every module here:

* a user holds one integer in ``[B] = {1, ..., B}``; coins are the values ``1..B`` and flipping coin
  ``m`` on user ``x`` asks the bit ``[x <= m]``;
* every protocol consumes users **without replacement in a uniformly random order** (one query,
  one ε-RR bit per user) through :class:`UserStream`; the batched searches can instead draw each
  batch's number of ones from the same exact joint law through :class:`CountStream` over a
  :class:`Population` (``sampler="counts"``: O(rounds) per batch, for n = 10^7 users);
* a protocol returns a coin ``m`` in ``[B]``; it is an α-approximate τ-quantile when
  ``F(m) < τ + α`` and ``F(m + 1) > τ − α`` with ``F(B + 1) = 1`` (the open-interval criterion of
  Sec. 2 and Sec. 5; Sec. 1's closed variant is not used, ``notes/aamand25.md``).

This module re-exports the protocols, the mechanisms and their building blocks. The exact helpers of
the proof checks (``concentration``, ``lower_bound``, ``potential``, ``weight_tree``) are imported
from their modules. Several protocols share their module's name (``dp_bayess``, ``shuffle_nbs``,
``bayes_learn``, ``protocol_law``): here the name is the function; import the module itself with
``from dpquant.reference.distributed_quantiles.private_bayess import ...``.
"""

from dpquant.reference.distributed_quantiles.amplification import (
    LOCAL_EPSILON_RULES,
    fmt_epsilon,
    fmt_epsilon_mp,
    fmt_precondition,
    local_epsilon_authors,
    local_epsilon_inverted,
    local_epsilon_lemma_g5,
    local_epsilon_paper,
    notebook_min_users,
    shuffle_local_epsilon,
)
from dpquant.reference.distributed_quantiles.bayes_learning import (
    Intervals,
    bayes_learn,
    bayes_learn_tree,
    learn_batch,
    learner_target,
)
from dpquant.reference.distributed_quantiles.bayess import bayess_statistical, bayess_theorem_1_1
from dpquant.reference.distributed_quantiles.channel import (
    BayesWeights,
    ChannelDerivation,
    bayes_weights,
    capacity,
    derive_channel,
    mutual_information,
    optimal_query_point,
    rr_domain_alpha,
    rr_domain_target,
)
from dpquant.reference.distributed_quantiles.hierarchical import (
    HierarchicalRandomizer,
    hierarchical_cdf,
    hierarchical_median,
    hierarchical_quantile,
    level_estimates,
    tree_depth,
)
from dpquant.reference.distributed_quantiles.mechanisms import (
    ProtocolMechanism,
    broken_nbs_mechanism,
    nbs_mechanism,
    two_answers_nbs,
)
from dpquant.reference.distributed_quantiles.naive_nbs import (
    batch_schedule,
    debiased_estimate,
    dp_naive_nbs,
    rr_tanh,
    search_rounds,
)
from dpquant.reference.distributed_quantiles.padding import pad_users, quantile_via_median
from dpquant.reference.distributed_quantiles.population import (
    MAX_POPULATION,
    SAMPLERS,
    CountStream,
    Population,
)
from dpquant.reference.distributed_quantiles.private_bayess import (
    AUTHORS_OPTIONS,
    dp_bayess,
    dp_bayess_runs,
    reduction_to_gamma,
    sample_split,
    select_quantiles,
    update_parameter,
)
from dpquant.reference.distributed_quantiles.protocol_enumeration import (
    CannotEnumerate,
    ScriptedGenerator,
    protocol_law,
)
from dpquant.reference.distributed_quantiles.shuffle_search import shuffle_nbs
from dpquant.reference.distributed_quantiles.threshold_query import (
    ThresholdQuery,
    threshold_bits,
    threshold_rr,
)
from dpquant.reference.distributed_quantiles.unary_encoding import (
    UnaryEncoding,
    ue_estimate,
    ue_probabilities,
)
from dpquant.reference.distributed_quantiles.users import (
    MAX_B,
    UserStream,
    check_domain_size,
    check_integers,
    check_user_value,
    check_users,
    empirical_cdf,
    is_approximate_quantile,
    quantile_error,
)

__all__ = [
    "AUTHORS_OPTIONS",
    "LOCAL_EPSILON_RULES",
    "MAX_B",
    "MAX_POPULATION",
    "SAMPLERS",
    "BayesWeights",
    "CannotEnumerate",
    "ChannelDerivation",
    "CountStream",
    "HierarchicalRandomizer",
    "Intervals",
    "Population",
    "ProtocolMechanism",
    "ScriptedGenerator",
    "ThresholdQuery",
    "UnaryEncoding",
    "UserStream",
    "batch_schedule",
    "bayes_learn",
    "bayes_learn_tree",
    "bayes_weights",
    "bayess_statistical",
    "bayess_theorem_1_1",
    "broken_nbs_mechanism",
    "capacity",
    "check_domain_size",
    "check_integers",
    "check_user_value",
    "check_users",
    "debiased_estimate",
    "derive_channel",
    "dp_bayess",
    "dp_bayess_runs",
    "dp_naive_nbs",
    "empirical_cdf",
    "fmt_epsilon",
    "fmt_epsilon_mp",
    "fmt_precondition",
    "hierarchical_cdf",
    "hierarchical_median",
    "hierarchical_quantile",
    "is_approximate_quantile",
    "learn_batch",
    "learner_target",
    "level_estimates",
    "local_epsilon_authors",
    "local_epsilon_inverted",
    "local_epsilon_lemma_g5",
    "local_epsilon_paper",
    "mutual_information",
    "nbs_mechanism",
    "notebook_min_users",
    "optimal_query_point",
    "pad_users",
    "protocol_law",
    "quantile_error",
    "quantile_via_median",
    "reduction_to_gamma",
    "rr_domain_alpha",
    "rr_domain_target",
    "rr_tanh",
    "sample_split",
    "search_rounds",
    "select_quantiles",
    "shuffle_local_epsilon",
    "shuffle_nbs",
    "threshold_bits",
    "threshold_rr",
    "tree_depth",
    "two_answers_nbs",
    "ue_estimate",
    "ue_probabilities",
    "update_parameter",
]
