"""The statistics of the auditor: the black-box bound on ε from counts (:mod:`.bounds`,
Clopper–Pearson on held-out draws) and its generalisation to Rényi DP, zCDP, Gaussian DP and
privacy profiles (:mod:`.measure_bounds`, on the Bernoulli divergences of :mod:`.bernoulli`), the
exact privacy loss of a pair whose output laws are known (:mod:`.exact_loss`), and the detection
power planned from exact laws (:mod:`.power`).
"""
