"""dpquant's privacy auditor (contract in ``docs/DESIGN.md``).

``audit_mechanism(mech, ...)`` searches neighbouring data sets under the mechanism's declared
adjacency, computes exact privacy losses where the output law is known, and bounds ε from samples
with Clopper–Pearson intervals on held-out draws; ``from_callable`` wraps any ``fn(data, rng)``.
"""

from audit.conformance import ConformanceReport, conformance
from audit.result import AuditReport
from audit.runner import DEFAULT_SAMPLES, audit_mechanism
from audit.wrap import CallableMechanism, from_callable

__all__ = [
    "DEFAULT_SAMPLES",
    "AuditReport",
    "CallableMechanism",
    "ConformanceReport",
    "audit_mechanism",
    "conformance",
    "from_callable",
]
