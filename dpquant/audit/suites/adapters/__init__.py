"""Third-party DP quantile implementations as :class:`~dpquant.reference.core.Mechanism` objects (issue 8).

Each adapter wraps one library call with the claim the library documents, so that
:func:`dpquant.audit.audit_mechanism`, :func:`dpquant.audit.tools.equivalence.validate` and the conformance tests can run
on it. The libraries are the optional extra ``peers`` (``pip install -e '.[peers]'``); building
an adapter whose library is missing raises :class:`PeerUnavailable` (an ``ImportError``).

| adapter | library call | claim | seeded by the auditor's generator |
|---|---|---|---|
| :func:`diffprivlib_quantile` | ``diffprivlib.tools.quantile`` / ``median`` / ``percentile`` | ε, replace-one | yes (``random_state``) |
| :func:`opendp_quantile` | OpenDP ``make_private_quantile`` (contrib) | ε, add/remove (d_in = 1) | no (OS randomness) |
| :func:`pydp_percentile` | python-dp ``Median`` / ``Percentile`` (``quick_result``) | ε, add/remove | no (OpenSSL); tests preload a seeded ``RAND_bytes`` (:mod:`dpquant.audit.suites.adapters.seeding`) |
| :func:`eeprivacy_quantile` | eeprivacy ``PrivateQuantile.execute`` | ε, replace-one | yes (numpy's global RNG) |

Each adapter records the library version it was checked against (``checked_version``) and the one
installed (``version``); ``PEERS`` lists the factories.
"""

from __future__ import annotations

from dpquant.audit.suites.adapters.base import PeerMechanism, PeerUnavailable, installed_version
from dpquant.audit.suites.adapters.libraries import (
    PEERS,
    diffprivlib_quantile,
    eeprivacy_quantile,
    opendp_quantile,
    pydp_percentile,
)

__all__ = [
    "PEERS",
    "PeerMechanism",
    "PeerUnavailable",
    "diffprivlib_quantile",
    "eeprivacy_quantile",
    "installed_version",
    "opendp_quantile",
    "pydp_percentile",
]
