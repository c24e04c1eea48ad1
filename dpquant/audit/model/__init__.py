"""What is audited: the model the auditor's stages work on.

A mechanism's claim (:mod:`.claimed`), the neighbour relations it is audited under
(:mod:`.relations`, :mod:`.record_spaces`, with the checks of a caller's inputs in
:mod:`.relation_inputs`), the candidate neighbouring pairs of the scalar relations
(:mod:`.neighbours`), its outputs as the auditor sees them and the sampling contract
(:mod:`.outputs`, :mod:`.sampling_contract`), a plain function wrapped as a mechanism
(:mod:`.wrap`, ``from_callable``), and the ranges of the auditor's arguments (:mod:`.limits`).
Nothing here imports a later part of the auditor.
"""
