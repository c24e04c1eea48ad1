"""The statistics of the auditor: the black-box bound on ε from counts (:mod:`.bounds`,
Clopper–Pearson on held-out draws), the exact privacy loss of a pair whose output laws are known
(:mod:`.exact_loss`), and the detection power planned from exact laws (:mod:`.power`).
"""
