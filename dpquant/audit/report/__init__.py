"""What an audit returns: the :class:`~dpquant.audit.report.result.AuditReport` (:mod:`.result`),
the stages' findings as typed values (:mod:`.findings`), the INCONCLUSIVE verdict of an audit that could not look (:mod:`.inconclusive`), its rendering for
people (:mod:`.render`) and the optional dependencies that rendering needs (:mod:`.extras`).
"""
