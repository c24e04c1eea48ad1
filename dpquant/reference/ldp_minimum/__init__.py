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

This module only re-exports what a user calls, a screenful (``notes/architecture.md``, "Issue 36:
narrow paper APIs"): the mechanisms, the schedules, the prepared data and the samplers of
Algorithm 2, its exact and pruned laws and the Laplace baseline's laws (``from
dpquant.reference.ldp_minimum import LDPMinimum``). The paper's analytic statements (Lemmas 1–2,
Theorems 1–7, Examples 1–2, Sec. 6.1) and the one-round internals are functions of their modules
(``from dpquant.reference.ldp_minimum import upper_bounds``, then
``upper_bounds.theorem_4_bound_corrected(...)``).
"""

from dpquant.reference.ldp_minimum.exact_law import SparseLeafLaw, leaf_probabilities, output_law
from dpquant.reference.ldp_minimum.laplace_baseline import laplace_scale, minimum_cdf
from dpquant.reference.ldp_minimum.mechanisms import LaplaceExtreme, LaplaceReport, LDPMinimum
from dpquant.reference.ldp_minimum.minimum_laws import (
    GUIDELINE_LOG_POWER,
    LaplaceMinimumLaw,
    guideline,
    laplace_error_quantile,
    laplace_law_fixed,
    laplace_law_iid,
    laplace_mae_exact,
)
from dpquant.reference.ldp_minimum.round_statistic import RoundRule, round_rule
from dpquant.reference.ldp_minimum.schedules import SCHEDULES, Schedule, schedule
from dpquant.reference.ldp_minimum.search import prepare, sample_binomial, sample_iid
from dpquant.reference.ldp_minimum.transcript import UserTranscript

__all__ = [
    # the mechanisms: Algorithm 2 (minimum and maximum), one user's view, the Laplace baseline
    "LDPMinimum",
    "LaplaceExtreme",
    "LaplaceReport",
    "UserTranscript",
    # the schedules of Corollaries 1–2 and their error guideline
    "GUIDELINE_LOG_POWER",
    "SCHEDULES",
    "Schedule",
    "guideline",
    "schedule",
    # Algorithm 2 on prepared data: the round rule and the samplers
    "RoundRule",
    "prepare",
    "round_rule",
    "sample_binomial",
    "sample_iid",
    # the exact and pruned output laws
    "SparseLeafLaw",
    "leaf_probabilities",
    "output_law",
    # the Laplace baseline's laws
    "LaplaceMinimumLaw",
    "laplace_error_quantile",
    "laplace_law_fixed",
    "laplace_law_iid",
    "laplace_mae_exact",
    "laplace_scale",
    "minimum_cdf",
]
