"""tzamos20: the optimal private median via the extension lemma (work in progress, issue 7).

Tzamos, Vlatakis-Gkaragkounis, Zadik, "Optimal Private Median Estimation under Minimal
Distributional Assumptions" (NeurIPS 2020; spec ``specs/tzamos20.md``, a reconstruction: the main
body lost its displayed equations).

Conventions used by every module of this package:

* everything combinatorial is exact: data and parameters are Fractions (floats are read as their
  exact binary values);
* n is public; the distance is the positional Hamming distance d_H;
* the left median is x_(ℓ) with ℓ = ⌈n/2⌉ by default (``median_index="ceil"``; the printed
  Def. A.2's ⌊n/2⌋ is ``"floor"``, spec §1.4);
* δ = C/(Ln) is the grid step, K = ⌊Lrn/(2C)⌋ the number of window constraints and
  Ξ = [−R − r/2, R + r/2] the median's allowed range (spec §1.5).

Modules so far: ``parameters`` (the validated constants), ``typical_set`` (membership in H, the
exact TYPICALHAMMING, the paper's greedy, a brute-force oracle).
"""
