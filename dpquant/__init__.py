"""dpquant: reference implementations of differentially private quantile algorithms, exact
privacy checks, and a privacy auditor. Everything installed lives under this one name.

* :mod:`dpquant.reference` — contracts (:class:`PrivacyClaim`, the mechanism protocols), exact
  laws, primitives, and one package per paper: ``distributed_quantiles`` (aamand25),
  ``slice_quantiles`` (imola25), ``ldp_minimum`` (fukuchi19), ``private_median`` (tzamos20);
* :mod:`dpquant.audit` — the privacy auditor (:func:`audit_mechanism`, :func:`from_callable`)
  and its pytest plugin;
* :mod:`dpquant.cli` and :mod:`dpquant.studies` — the ``dpquant`` command line and the
  reproductions of the papers' experiments, the top layer.

The common case is importable from here (:data:`__all__`): the claim, the auditor's two entry
points and its report, and each paper's mechanism. The names are loaded on first use (PEP 562):
the pytest plugin (``dpquant.audit.pytest_plugin``) loads this package in every test run of an
environment where dpquant is installed, and that must not import numpy, scipy or mpmath. Type
checkers read the imports below as they are.

``__version__`` is the installed distribution's version, whose one source is ``version`` in
``pyproject.toml`` (``dpquant --version`` prints it; ``notes/packaging.md``), also read on first
use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from dpquant.metadata import package_version

if TYPE_CHECKING:
    from dpquant.audit.model.wrap import from_callable
    from dpquant.audit.pipeline.runner import audit_mechanism
    from dpquant.audit.report.result import AuditReport
    from dpquant.reference.core import PrivacyClaim
    from dpquant.reference.distributed_quantiles import dp_bayess, shuffle_nbs
    from dpquant.reference.ldp_minimum import LDPMinimum
    from dpquant.reference.private_median import PrivateMedian
    from dpquant.reference.slice_quantiles import SliceQuantiles

    __version__: str

_EXPORTS = {
    "PrivacyClaim": "dpquant.reference.core",
    "audit_mechanism": "dpquant.audit.pipeline.runner",
    "from_callable": "dpquant.audit.model.wrap",
    "AuditReport": "dpquant.audit.report.result",
    "dp_bayess": "dpquant.reference.distributed_quantiles",
    "shuffle_nbs": "dpquant.reference.distributed_quantiles",
    "SliceQuantiles": "dpquant.reference.slice_quantiles",
    "LDPMinimum": "dpquant.reference.ldp_minimum",
    "PrivateMedian": "dpquant.reference.private_median",
}
"""Each name of :data:`__all__` (but ``__version__``) and the module that defines it."""

__all__ = [
    "AuditReport",
    "LDPMinimum",
    "PrivacyClaim",
    "PrivateMedian",
    "SliceQuantiles",
    "__version__",
    "audit_mechanism",
    "dp_bayess",
    "from_callable",
    "shuffle_nbs",
]


def __getattr__(name: str) -> Any:
    """The names of :data:`__all__`, imported on first use (module docstring)."""
    if name in _EXPORTS or name == "__version__":
        value = (
            package_version()
            if name == "__version__"
            else getattr(import_module(_EXPORTS[name]), name)
        )
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dpquant' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
