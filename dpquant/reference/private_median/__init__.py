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
* :mod:`.sweep` — its last step, the envelope from the nested level bounds, on Fractions (the
  reference) and on integers on one common scale (what the mechanism runs, issue 39);
* :mod:`.restricted_density` — Â (Eq. (A.2)), Lemma A.4's normaliser, Algorithm 2;
* :mod:`.fixed_typical_set` — the fixed typical set H_fix (ours: a documented deviation that
  makes Algorithm 1's Case (A) ε-DP);
* :mod:`.mechanism` — :class:`PrivateMedian`, Algorithm 1 as a mechanism (modes ``"extension"``,
  ``"paper"``, ``"fixed"``).

Conventions: everything combinatorial is exact (data and constants are Fractions; floats are
read as their exact binary values); n is public and the distance is the positional Hamming
distance; the left median is x_(ℓ) with ℓ = ⌈n/2⌉ (``median_index="ceil"``; the printed Def. A.2's
⌊n/2⌋ is ``"floor"``, erratum E2).

The package exports what a user calls (:data:`__all__`, ``notes/architecture.md``, "Issue 36:
narrow paper APIs"): the mechanism and its parameters, the typical set and TYPICALHAMMING, the
extension's and the restricted algorithm's exact log-densities and laws, and the rates of
Theorem 3.6; the brute-force oracles, the fast construction's pieces and H_fix's internals are
imported from their modules.
"""

from dpquant.reference.private_median.extended_density import Piece, envelope, law_from_pieces
from dpquant.reference.private_median.fixed_typical_set import in_fixed_typical_set
from dpquant.reference.private_median.mechanism import PrivateMedian
from dpquant.reference.private_median.parameters import MedianParameters
from dpquant.reference.private_median.rates import (
    MedianLaw,
    dominant_term,
    empirical_median_miss,
    private_miss,
    rate_terms,
    theorem_3_6_bound,
)
from dpquant.reference.private_median.restricted_density import restricted_law, restricted_pieces
from dpquant.reference.private_median.typical_set import (
    distance_to_typical_set,
    exact_data,
    in_typical_set,
    left_median,
    typical_hamming,
)

__all__ = [
    # the mechanism (Algorithm 1 / 7) and its constants
    "MedianParameters",
    "PrivateMedian",
    # the data: exact values, the left median, the typical sets and TYPICALHAMMING (Lemma E.2)
    "distance_to_typical_set",
    "exact_data",
    "in_fixed_typical_set",
    "in_typical_set",
    "left_median",
    "typical_hamming",
    # the exact log-densities and laws: the extension Ψ_X (A.6) and the restricted Â (A.2)
    "Piece",
    "envelope",
    "law_from_pieces",
    "restricted_law",
    "restricted_pieces",
    # the rates of Theorem 3.6 and the exact miss probabilities
    "MedianLaw",
    "dominant_term",
    "empirical_median_miss",
    "private_miss",
    "rate_terms",
    "theorem_3_6_bound",
]
