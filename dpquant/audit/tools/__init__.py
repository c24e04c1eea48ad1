"""Tools built on the auditor: validating a candidate implementation against a reference one
(:mod:`.equivalence`, its report in :mod:`.validation_report`) and checking a sampler against its
own exact law (:mod:`.sampler_conformance`). The pytest plugin is
:mod:`dpquant.audit.pytest_plugin` (the entry point users' pytest loads).
"""
