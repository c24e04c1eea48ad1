"""tzamos20 Lemma B.2 and Lemma 3.5 / B.3 by simulation: how typical i.i.d. data are (T6, T8).

Both lemmas are asymptotic with unspecified constants, and their hypothesis C > 104.3 (Lemma 3.5:
C > 5 and 4Ce·e^{−2C/27} < 1/2) is far from the small C where the windows bind at moderate n, so
they are checked qualitatively, on X ~ U[−1, 1]ⁿ (L = 1/2, r = 1: the density is exactly L on
[m(D) − r, m(D) + r], the boundary of the admissible class), n = 400, 400 data sets per C, with
exact counts (Fractions):

* Lemma B.2: the probability that some window κ ∈ [T, K] fails at m(X) falls with T and with C;
* Lemma 3.5: TH(X, m(X)) — the Hamming distance from X to the nearest X′ ∈ H with the same
  median (exact TYPICALHAMMING) — is small and shrinks as C grows.

Each comparison uses Clopper–Pearson intervals at α = 1e-7 (two-sided) and asserts that they are
separated or below a bound; the measured rates (seed 20261124) are in notes/tzamos20.md. With 8
intervals a correct implementation fails with probability < 1e-6, and the seed makes it
deterministic in CI.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from dpquant.reference.conformance import clopper_pearson
from dpquant.reference.private_median.parameters import MedianParameters
from dpquant.reference.private_median.typical_set import (
    exact_data,
    left_median_presorted,
    typical_hamming_presorted,
    window_counts_presorted,
)

N_DATA, SETS, ALPHA = 400, 400, 1e-7
CS = (F(5, 4), F(2), F(4), F(8))


def largest_failing_window(x: list[F], params: MedianParameters) -> int:
    """The largest κ in [1, K] whose κ-Right or κ-Left window at m has fewer than κ + 1 points
    (closed windows, ties on both sides), 0 when none does: some κ ∈ [max(T, 1), K] fails (Lemma
    B.2's event, complemented) iff this is >= max(T, 1). ``x`` sorted and exact (the fixture's)."""
    m = left_median_presorted(x, params)
    for kappa in range(params.windows, 0, -1):
        right, left = window_counts_presorted(x, m, kappa, params.delta)
        if right < kappa + 1 or left < kappa + 1:
            return kappa
    return 0


@pytest.fixture(scope="module")
def data_sets() -> list[list[F]]:
    rng = np.random.default_rng(20261124)
    return [exact_data(rng.uniform(-1.0, 1.0, N_DATA)) for _ in range(SETS)]


def interval(hits: int) -> tuple[float, float]:
    return clopper_pearson(hits, SETS, ALPHA)


def test_lemma_b_2_window_failures_become_rare_as_t_and_c_grow(data_sets) -> None:
    """Lemma B.2's claim 1 − O((8Ce·e^{−C/8})^{⌈T⌉} + e^{−Θ(L²r²n)}) (vacuous below C ≈ 30, where
    8Ce·e^{−C/8} > 1): still, at n = 400 the failure rate falls geometrically in T at C = 2
    (T = 1 vs T = 8, separated intervals) and with C at T = 1 (C = 5/4: most data sets fail;
    C = 4: few; C = 8: next to none)."""
    rate = {}
    for C in CS:
        params = MedianParameters(N_DATA, F(1, 2), F(1), F(5), C)
        largest = [largest_failing_window(x, params) for x in data_sets]
        for t in (1, 8):
            rate[C, t] = interval(sum(k >= t for k in largest))
    assert rate[F(2), 8][1] < rate[F(2), 1][0]  # decay in T
    assert rate[F(5, 4), 1][0] > 0.5 > 0.2 > rate[F(4), 1][1]  # decay in C
    assert rate[F(8), 1][1] < 0.05


def test_lemma_3_5_distance_to_h_at_the_median_is_small_and_shrinks_with_c(data_sets) -> None:
    """Lemma 3.5 / B.3: w.p. >= 1 − β some X′ ∈ H with m(X′) = m(X) is within C′·log(1/β),
    C′ = Θ(1/C). Exact TH(X, m(X)) on the first 200 data sets: at C = 5/4 it is positive for most
    of them (X ∉ H) but rarely 8 or more (its upper tail is light, as "d_H <= C′ log(1/β) w.p.
    1 − β" says); at C = 4 it is at most 1 and mostly 0; at C = 8 zero for almost all
    (Clopper–Pearson bounds on P(TH > 0) and P(TH >= 8))."""
    first = data_sets[:200]
    th = {}
    for C in (F(5, 4), F(4), F(8)):
        params = MedianParameters(N_DATA, F(1, 2), F(1), F(5), C)
        th[C] = [typical_hamming_presorted(x, left_median_presorted(x, params), params) for x in first]
    positive = {C: clopper_pearson(sum(v > 0 for v in th[C]), len(first), ALPHA) for C in th}
    far = clopper_pearson(sum(v >= 8 for v in th[F(5, 4)]), len(first), ALPHA)
    assert positive[F(5, 4)][0] > 0.5 and far[1] < 0.2
    assert positive[F(4)][1] < 0.3 and max(th[F(4)]) <= 1
    assert positive[F(8)][1] < 0.1 and np.mean(th[F(8)]) < np.mean(th[F(4)]) < np.mean(th[F(5, 4)])
