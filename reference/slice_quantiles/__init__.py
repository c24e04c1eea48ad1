"""imola25: SliceQuantiles with continual counting, its baselines, and exact privacy checks.

Imola, Boninsegna, Keller, Aamand, Roy Chowdhury, Pagh, "Differentially Private Quantiles with
Smaller Error" (spec ``specs/imola25.md``).

Conventions used by every module of this package:

* data are a 1-D float array; x_(1) <= ... <= x_(n) its sorted values (1-indexed order statistics);
* rank_X(z) = #{x ∈ X : x < z} (strict, spec §1); quantiles q_1 < ... < q_m in (0, 1) have target
  ranks r_i = ⌊q_i·n⌋ for a *public* n (spec §5 item 12);
* the rank error of outputs z is max_i |rank_X(z_i) − r_i| (Err_X(Q, Z));
* adjacency "add_remove" or "replace_one" (the paper's "substitute").

Modules: :mod:`~reference.primitives.continual_counting` (CC, shared primitive), ``good_set``
(Good*, slices), ``cc_tails`` (exact tail bounds E_CC), ``kary_tree`` (why the authors' k-ary tree
is not a valid CC), ``rank_maps`` (Lemma 4.1's maps), ``parameters`` (budget splits, half-width,
w, feasibility), ``single_quantile`` (the slice EM, batched), ``slice_quantiles`` (Algorithm 1),
``exact_law`` (the exact output law for tiny instances), ``approximate_quantiles`` (KSS AQ),
``zcdp`` (ρ ↔ (ε, δ)), ``joint_exp`` (Gillenwater et al. 2021).
"""
