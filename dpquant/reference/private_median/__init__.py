"""tzamos20: the ε-DP median of (L, R, r)-admissible data via a Lipschitz extension.

Tzamos, Vlatakis-Gkaragkounis, Zadik, "Optimal Private Median Estimation under Minimal
Distributional Assumptions" (NeurIPS 2020). The paper's restricted algorithm Â — a flattened
Laplace around the left median, Eq. (3.4)/(A.2) — is private only on a typical set H of data
sets; the Extension Lemma (Prop. 2.1/A.3) extends it to every input, Eq. (A.6), and Algorithm 1
(PRIVATEMEDIAN) samples the extension. The main body lost its displayed equations; H, Assumption
1.2 and the rates are reconstructed from the appendix, and the errata (E1–E17) and decisions are
recorded in ``notes/tzamos20.md``.

Modules:

* :mod:`.parameters` — :class:`MedianParameters`: n, L, r, R, C as exact rationals and the
  derived ℓ, δ = C/(Ln), K = ⌊Lrn/(2C)⌋, Ξ = [−R − r/2, R + r/2], B = R + 4Cr;
* :mod:`.typical_set` — membership in H, the exact TYPICALHAMMING (Lemma E.2), the paper's
  greedy Algorithm 3, a brute-force oracle, CONSTRUCTION-P's anchors (Algorithm 4);
* :mod:`.extended_density` — the direct exact construction of the extension's log-density Ψ_X
  (Def. E.7, Eq. (E.1); computed directly in place of Algorithms 5–6), its normaliser and exact
  law;
* :mod:`.fast_envelope` — the same Ψ_X by a fast exact construction (ours, O(n·K·log n); its
  function ``fast_envelope`` is imported from the module, whose name it shares);
* :mod:`.restricted_density` — Â (Eq. (A.2)), Lemma A.4's normaliser, Algorithm 2;
* :mod:`.fixed_typical_set` — the fixed typical set H_fix (ours: a documented deviation that
  makes Algorithm 1's Case (A) ε-DP);
* :mod:`.mechanism` — :class:`PrivateMedian`, Algorithm 1 as a mechanism (modes ``"extension"``,
  ``"paper"``, ``"fixed"``).

Conventions: everything combinatorial is exact (data and constants are Fractions; floats are
read as their exact binary values); n is public and the distance is the positional Hamming
distance; the left median is x_(ℓ) with ℓ = ⌈n/2⌉ (``median_index="ceil"``; the printed Def. A.2's
⌊n/2⌋ is ``"floor"``, erratum E2).
"""

from dpquant.reference.private_median.extended_density import (
    Piece,
    cell_levels,
    envelope,
    envelope_from_levels,
    law_from_pieces,
    level_extremes,
    log_normalizer,
    normalizer_sympy,
    tent_slope,
)
from dpquant.reference.private_median.fast_envelope import (
    nested_level_bounds,
    sweep_envelope,
    typical_hamming_closed_form,
)
from dpquant.reference.private_median.fixed_typical_set import (
    fixed_envelope,
    fixed_pieces,
    fixed_typical_hamming,
    in_fixed_typical_set,
)
from dpquant.reference.private_median.mechanism import (
    PrivateMedian,
    extension_pieces,
    output_grid,
    snap_to_grid,
)
from dpquant.reference.private_median.parameters import MedianParameters
from dpquant.reference.private_median.rates import (
    MedianLaw,
    dominant_term,
    empirical_median_miss,
    miss_from_pieces,
    private_miss,
    rate_terms,
    theorem_3_6_bound,
)
from dpquant.reference.private_median.restricted_density import (
    lemma_a_4_normalizer,
    restricted_law,
    restricted_pieces,
    sample_restricted,
)
from dpquant.reference.private_median.typical_set import (
    distance_to_typical_set,
    exact_data,
    in_typical_set,
    left_median,
    typical_hamming,
    typical_hamming_greedy,
)

__all__ = [
    "MedianLaw",
    "MedianParameters",
    "Piece",
    "PrivateMedian",
    "cell_levels",
    "distance_to_typical_set",
    "dominant_term",
    "empirical_median_miss",
    "envelope",
    "envelope_from_levels",
    "exact_data",
    "extension_pieces",
    "fixed_envelope",
    "fixed_pieces",
    "fixed_typical_hamming",
    "in_fixed_typical_set",
    "in_typical_set",
    "law_from_pieces",
    "left_median",
    "lemma_a_4_normalizer",
    "level_extremes",
    "log_normalizer",
    "miss_from_pieces",
    "nested_level_bounds",
    "normalizer_sympy",
    "output_grid",
    "private_miss",
    "rate_terms",
    "restricted_law",
    "restricted_pieces",
    "sample_restricted",
    "snap_to_grid",
    "sweep_envelope",
    "tent_slope",
    "theorem_3_6_bound",
    "typical_hamming",
    "typical_hamming_closed_form",
    "typical_hamming_greedy",
]
