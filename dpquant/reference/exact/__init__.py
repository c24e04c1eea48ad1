"""Exact arithmetic, the lowest layer of the library after the input policy: one mpmath working
precision and exact conversions (:mod:`dpquant.reference.exact.mp`), and interval enclosures of exact reals
(:mod:`dpquant.reference.exact.interval`). Nothing here knows about laws or mechanisms."""

from dpquant.reference.exact.interval import IV_DPS, iv_difference, iv_precision, to_iv
from dpquant.reference.exact.mp import (
    DPS,
    MP_INF,
    MP_NINF,
    LazySequence,
    logsumexp,
    to_mpf,
    workdps,
)

__all__ = [
    "DPS",
    "IV_DPS",
    "MP_INF",
    "MP_NINF",
    "LazySequence",
    "iv_difference",
    "iv_precision",
    "logsumexp",
    "to_iv",
    "to_mpf",
    "workdps",
]
