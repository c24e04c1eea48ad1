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

This module re-exports what a user calls (:data:`__all__`, a screenful; ``notes/architecture.md``,
"Issue 36: narrow paper APIs"): the protocols, the mechanisms the auditor checks, the exact law of
a protocol, the users' data (their policy, the CDF and the success criterion) and the shuffle
budget. The building blocks (BayesLearn, the channel of App. E, the amplification rules, the
frequency oracles) and the exact helpers of the proof checks (``concentration``, ``lower_bound``,
``potential``, ``weight_tree``) are imported from their modules. Several protocols share their
module's name (``dp_bayess``, ``shuffle_nbs``, ``protocol_law``): here the name is the function;
import the module itself with ``from dpquant.reference.distributed_quantiles.private_bayess import
...``. The deliberately broken variants the auditor must catch (a user answering twice) live with
the known-bad catalogue, :mod:`dpquant.audit.suites.catalogue.repeated_answers`.
"""

from dpquant.reference.distributed_quantiles.amplification import shuffle_local_epsilon
from dpquant.reference.distributed_quantiles.hierarchical import (
    HierarchicalRandomizer,
    hierarchical_median,
    hierarchical_quantile,
)
from dpquant.reference.distributed_quantiles.mechanisms import ProtocolMechanism
from dpquant.reference.distributed_quantiles.naive_nbs import dp_naive_nbs
from dpquant.reference.distributed_quantiles.padding import quantile_via_median
from dpquant.reference.distributed_quantiles.population import Population
from dpquant.reference.distributed_quantiles.private_bayess import (
    AUTHORS_OPTIONS,
    dp_bayess,
    dp_bayess_runs,
)
from dpquant.reference.distributed_quantiles.protocol_enumeration import protocol_law
from dpquant.reference.distributed_quantiles.shuffle_search import shuffle_nbs
from dpquant.reference.distributed_quantiles.threshold_query import ThresholdQuery
from dpquant.reference.distributed_quantiles.users import (
    MAX_B,
    check_domain_size,
    check_integers,
    check_users,
    empirical_cdf,
    is_approximate_quantile,
    quantile_error,
)

__all__ = [
    # the protocols (Alg. 3, App. I, Thm 1.4, App. D, Lemma B.1) and the authors' options
    "AUTHORS_OPTIONS",
    "dp_bayess",
    "dp_bayess_runs",
    "dp_naive_nbs",
    "hierarchical_median",
    "hierarchical_quantile",
    "quantile_via_median",
    "shuffle_nbs",
    "shuffle_local_epsilon",
    # the mechanisms the auditor checks, and a protocol's exact law
    "HierarchicalRandomizer",
    "ProtocolMechanism",
    "ThresholdQuery",
    "protocol_law",
    # the users: the data policy, users as counts, the CDF and the success criterion of Sec. 2
    "MAX_B",
    "Population",
    "check_domain_size",
    "check_integers",
    "check_users",
    "empirical_cdf",
    "is_approximate_quantile",
    "quantile_error",
]
