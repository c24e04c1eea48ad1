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

Noise mechanisms at the library's own guarantee, of any kind (issue 37;
:mod:`dpquant.audit.suites.adapters.measurements` and
:mod:`dpquant.audit.suites.adapters.opendp_measurements`, whose docstring tabulates how a measure
and a metric are read); each takes ``scale`` (a noise multiplier: < 1 builds a ``BROKEN``
configuration under the correct claim):

| adapter | library call | claim | seeded by the auditor's generator |
|---|---|---|---|
| :func:`opendp_measurement` | any OpenDP measurement on numbers, ``measurement(x)`` | ``measurement.map(d_in)`` in its output measure: ε, ρ-zCDP, (ε, δ) or a profile table; relation from the input metric | no (OS randomness) |
| :func:`diffprivlib_gaussian` | diffprivlib ``GaussianAnalytic`` / ``Gaussian`` / ``GaussianDiscrete`` ``.randomise`` | (ε, δ), query answers (k = 1, Δ) | yes (``random_state``) |
| :func:`pydp_gaussian` | python-dp ``GaussianMechanism.add_noise`` | (ε, δ), query answers (k = 1, Δ) | no (OpenSSL) |

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
from dpquant.audit.suites.adapters.measurements import (
    MeasuredPeer,
    diffprivlib_gaussian,
    pydp_gaussian,
)
from dpquant.audit.suites.adapters.opendp_measurements import opendp_measurement

__all__ = [
    "PEERS",
    "MeasuredPeer",
    "PeerMechanism",
    "PeerUnavailable",
    "diffprivlib_gaussian",
    "diffprivlib_quantile",
    "eeprivacy_quantile",
    "installed_version",
    "opendp_measurement",
    "opendp_quantile",
    "pydp_gaussian",
    "pydp_percentile",
]
