"""dpquant's privacy auditor (contract in ``docs/DESIGN.md``).

``audit_mechanism(mech, ...)`` searches neighbouring data sets under the mechanism's declared
adjacency, computes exact privacy losses where the output law is known, and bounds ε from samples
with Clopper–Pearson intervals on held-out draws; ``from_callable`` wraps any ``fn(data, rng)``.

The names are imported lazily (PEP 562): the pytest plugin loads this package in every test run
of an environment where dpquant is installed, and should not pay for scipy there. Type checkers
read the imports below as they are (``mypy --strict`` on the public API is part of ``make
test``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dpquant.audit.model.limits import DEFAULT_SAMPLES
    from dpquant.audit.model.record_spaces import BitVectors, Box, FiniteSet, Records
    from dpquant.audit.model.relations import CustomRelation, QueryAnswers
    from dpquant.audit.model.sampling_contract import MalformedOutput
    from dpquant.audit.model.wrap import CallableMechanism, from_callable
    from dpquant.audit.pipeline.options import AuditOptions
    from dpquant.audit.pipeline.runner import audit_mechanism
    from dpquant.audit.report.inconclusive import Inconclusive
    from dpquant.audit.report.result import AuditReport
    from dpquant.audit.tools.claim_report import ClaimAuditReport
    from dpquant.audit.tools.measure_audit import audit_claim
    from dpquant.audit.tools.sampler_conformance import ConformanceReport, conformance

_EXPORTS = {
    "DEFAULT_SAMPLES": "dpquant.audit.model.limits",
    "audit_mechanism": "dpquant.audit.pipeline.runner",
    "audit_claim": "dpquant.audit.tools.measure_audit",
    "ClaimAuditReport": "dpquant.audit.tools.claim_report",
    "AuditOptions": "dpquant.audit.pipeline.options",
    "AuditReport": "dpquant.audit.report.result",
    "Inconclusive": "dpquant.audit.report.inconclusive",
    "MalformedOutput": "dpquant.audit.model.sampling_contract",
    "CallableMechanism": "dpquant.audit.model.wrap",
    "from_callable": "dpquant.audit.model.wrap",
    "ConformanceReport": "dpquant.audit.tools.sampler_conformance",
    "conformance": "dpquant.audit.tools.sampler_conformance",
    "Records": "dpquant.audit.model.record_spaces",
    "Box": "dpquant.audit.model.record_spaces",
    "FiniteSet": "dpquant.audit.model.record_spaces",
    "BitVectors": "dpquant.audit.model.record_spaces",
    "QueryAnswers": "dpquant.audit.model.relations",
    "CustomRelation": "dpquant.audit.model.relations",
}

__all__ = [
    "AuditOptions",
    "AuditReport",
    "BitVectors",
    "Box",
    "CallableMechanism",
    "ClaimAuditReport",
    "ConformanceReport",
    "CustomRelation",
    "DEFAULT_SAMPLES",
    "FiniteSet",
    "Inconclusive",
    "MalformedOutput",
    "QueryAnswers",
    "Records",
    "audit_claim",
    "audit_mechanism",
    "conformance",
    "from_callable",
]


def __getattr__(name: str) -> Any:
    """The names of :data:`__all__`, imported on first use (module docstring)."""
    if name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'audit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
