"""The classic benchmark of DP-violation detectors (StatDP, Ding et al., CCS 2018; DP-Sniper,
Bichsel et al., IEEE S&P 2021; the sparse vector variants of Lyu, Su, Li, VLDB 2017) as
audit-ready mechanisms on query answers (:class:`audit.relations.QueryAnswers`).

``SUITE`` lists every mechanism as a :class:`ClassicEntry` (``entry(name)`` finds one by name or
alias; ``entry(name).make(epsilon)`` builds it); :mod:`audit.classic.published` holds the
published results. The samplers live in :mod:`audit.classic.noisy_max`,
:mod:`audit.classic.sparse_vector`, :mod:`audit.classic.laplace`, :mod:`audit.classic.geometric`
and :mod:`audit.classic.rappor`.
"""

from __future__ import annotations

from audit.classic.geometric import TruncatedGeometric
from audit.classic.laplace import LaplaceParallel, LaplaceRelease, PrefixSum
from audit.classic.noisy_max import NoisyMax
from audit.classic.rappor import Rappor
from audit.classic.sparse_vector import (
    ABORTED,
    ABOVE,
    BELOW,
    Concatenated,
    NumericalSVT,
    SparseVector,
    svt34_parallel,
)
from audit.classic.suite import SUITE, ClassicEntry, entry

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
