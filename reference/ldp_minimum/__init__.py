"""fukuchi19: locally differentially private minimum (and maximum) finding.

Fukuchi, Yu, Haishima, Sakuma, "Locally Differentially Private Minimum Finding"
(arXiv:1905.11067; spec ``specs/fukuchi19.md``).

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
``mechanisms`` (the :class:`reference.core.Mechanism` wrappers), ``bounds`` (the paper's bounds,
corrected and as printed).
"""
