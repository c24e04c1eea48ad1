"""imola25 Theorem 5.1 (utility of SliceQuantiles) by a seeded Monte Carlo study.

Thm 5.1: with an (α, ℓ, β/m) SingleQuantile and Line 6 failing with probability <= δ + γ,
Err_X(Q, Z) <= α + (the CC error at level β) with probability >= 1 − 2β − δ − γ. With slices of
2h + 1 points and h = ⌈(2/ε2)·ln(2mψ/β)⌉ the EM is an (h, 2h + 1, β/m) algorithm (Thm C.1 for a
2h + 1 slice, proofs_checks/test_imola25.py), and the CC error at level β is our exact union bound
w_β (``cc_error_bound``; the paper's 3·log m·log(m/2β)/ε with the CC budget ε1 is an upper bound
of it in log₂, notes/imola25.md erratum 9). So P(Err > h + w_β) <= 2β + δ.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import beta as beta_dist

from dpquant.reference.slice_quantiles.cc_tails import cc_error_bound
from dpquant.reference.slice_quantiles.parameters import target_ranks
from dpquant.reference.slice_quantiles.slice_release import plan_slice_quantiles

RUNS = 4000
FAIL = 1e-7  # a correct mechanism fails the Clopper–Pearson test with probability <= 1e-7


def _rank_errors(x: np.ndarray, z: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    return np.abs(np.searchsorted(x, z, side="left") - ranks).max(axis=1)


def test_theorem_5_1_max_rank_error_bound_holds_with_probability_1_minus_2beta_minus_delta() -> None:
    n, eps, delta, beta = 20_000, 2.0, 1e-6, 0.05
    x = np.arange(1.0, n + 1)
    q = np.array([0.1, 0.3, 0.5, 0.7, 0.9])
    for adjacency in ("add_remove", "replace_one"):
        plan = plan_slice_quantiles(
            n, (0.0, n + 1.0), eps, delta, quantiles=q, adjacency=adjacency, min_gap=1.0, beta=beta
        )
        mech = plan.mechanism
        w_beta = cc_error_bound(mech.epsilon1, beta, len(q))
        errors = _rank_errors(x, mech.sample(x, RUNS, np.random.default_rng(7)), target_ranks(q, n))
        exceed = int(np.sum(errors > mech.half_width + w_beta))
        # one-sided Clopper–Pearson lower bound on P(exceed); it must not pass 2β + δ
        lower = 0.0 if exceed == 0 else float(beta_dist.ppf(FAIL, exceed, RUNS - exceed + 1))
        assert lower <= 2 * beta + delta, (adjacency, exceed)
        # and the bound is not vacuous: the typical error is well inside it
        assert np.median(errors) < mech.half_width + w_beta
