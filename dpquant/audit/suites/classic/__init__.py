"""The classic benchmark of DP-violation detectors (StatDP, Ding et al., CCS 2018; DP-Sniper,
Bichsel et al., IEEE S&P 2021; the sparse vector variants of Lyu, Su, Li, VLDB 2017) as
audit-ready mechanisms on query answers (:class:`dpquant.audit.model.relations.QueryAnswers`).

``SUITE`` lists every mechanism as a :class:`ClassicEntry` (``entry(name)`` finds one by name or
alias; ``entry(name).make(epsilon)`` builds it); :mod:`dpquant.audit.suites.classic.published` holds the
published results. The samplers live in :mod:`dpquant.audit.suites.classic.noisy_max`,
:mod:`dpquant.audit.suites.classic.sparse_vector`, :mod:`dpquant.audit.suites.classic.laplace`, :mod:`dpquant.audit.suites.classic.geometric`
and :mod:`dpquant.audit.suites.classic.rappor`.
"""

from __future__ import annotations

from dpquant.audit.suites.classic.geometric import TruncatedGeometric
from dpquant.audit.suites.classic.laplace import LaplaceParallel, LaplaceRelease, PrefixSum
from dpquant.audit.suites.classic.noisy_max import NoisyMax
from dpquant.audit.suites.classic.rappor import Rappor
from dpquant.audit.suites.classic.sparse_vector import (
    ABORTED,
    ABOVE,
    BELOW,
    Concatenated,
    NumericalSVT,
    SparseVector,
    svt34_parallel,
)
from dpquant.audit.suites.classic.suite import SUITE, ClassicEntry, entry

__all__ = [
    "ABORTED",
    "ABOVE",
    "BELOW",
    "SUITE",
    "ClassicEntry",
    "Concatenated",
    "LaplaceParallel",
    "LaplaceRelease",
    "NoisyMax",
    "NumericalSVT",
    "PrefixSum",
    "Rappor",
    "SparseVector",
    "TruncatedGeometric",
    "entry",
    "svt34_parallel",
]
