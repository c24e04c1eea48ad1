"""The classic benchmark of DP-violation detectors (StatDP, Ding et al., CCS 2018; DP-Sniper,
Bichsel et al., IEEE S&P 2021; the sparse vector variants of Lyu, Su, Li, VLDB 2017) as
audit-ready mechanisms on query answers (:class:`dpquant.audit.relations.QueryAnswers`).

``SUITE`` lists every mechanism as a :class:`ClassicEntry` (``entry(name)`` finds one by name or
alias; ``entry(name).make(epsilon)`` builds it); :mod:`dpquant.audit.classic.published` holds the
published results. The samplers live in :mod:`dpquant.audit.classic.noisy_max`,
:mod:`dpquant.audit.classic.sparse_vector`, :mod:`dpquant.audit.classic.laplace`, :mod:`dpquant.audit.classic.geometric`
and :mod:`dpquant.audit.classic.rappor`.
"""

from __future__ import annotations

from dpquant.audit.classic.geometric import TruncatedGeometric
from dpquant.audit.classic.laplace import LaplaceParallel, LaplaceRelease, PrefixSum
from dpquant.audit.classic.noisy_max import NoisyMax
from dpquant.audit.classic.rappor import Rappor
from dpquant.audit.classic.sparse_vector import (
    ABORTED,
    ABOVE,
    BELOW,
    Concatenated,
    NumericalSVT,
    SparseVector,
    svt34_parallel,
)
from dpquant.audit.classic.suite import SUITE, ClassicEntry, entry

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
