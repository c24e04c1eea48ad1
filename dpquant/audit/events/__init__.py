"""The events a black-box audit counts: their families and selection (:mod:`.families`), the
real numbers they are placed on (:mod:`.projections`), their grids (:mod:`.grids`), fitted scores
(:mod:`.scores`) and the refined choice on a large selection sample (:mod:`.refine`).
"""
