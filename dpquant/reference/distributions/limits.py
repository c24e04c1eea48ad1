"""The size caps and float tolerances of the exact laws.

Every cap bounds work done in mpmath (tens of microseconds an operation) or memory, so that a law
or a divergence finishes within seconds; a larger input is refused with a ``ValueError`` naming
the parameter and the cap.
"""

from __future__ import annotations

MAX_ATOMS = 200_000
"""The most atoms (entries of ``support``) a :class:`~dpquant.reference.distributions.DiscreteLaw` takes:
it is normalised atom by atom in mpmath (~10 µs an atom), and so are its divergences, which stay
within a few seconds."""

MAX_PIECES = 10**7
"""The most pieces a :class:`~dpquant.reference.distributions.PiecewiseLogLinear` takes (its float path
is O(pieces))."""

MAX_GRID_CELLS = 200_000
"""The most cells a :class:`~dpquant.reference.distributions.GridLaw` takes (it is normalised cell by cell
in mpmath)."""

MAX_MERGED_CELLS = 200_000
"""The most merged cells (pieces of two densities, cells of two grid laws) a divergence visits:
each costs tens of microseconds of mpmath, so the cap keeps a divergence within ~10 s."""

MAX_PRODUCT_CELLS = 200_000
"""The most product cells :func:`~dpquant.reference.distributions.hockey_stick` sums for two
:class:`~dpquant.reference.distributions.ProductLaw`."""

MAX_COMPONENTS = 10_000
"""The most coordinates of a :class:`~dpquant.reference.distributions.ProductLaw`."""

MAX_AXES = 32
"""The most axes of a :class:`~dpquant.reference.distributions.GridLaw`."""

FLOAT_SAMPLING_TOLERANCE = 2.0**-13
"""The float samplers of densities refuse a law whose draws, rounded to float64, would move its
CDF by more than this, about 1.2e-4
(:meth:`~dpquant.reference.distributions.PiecewiseLogLinear.float_sampling_error`): below what a
conformance test of the largest sample (10^7 draws, DKW band ≈ 9e-4 at level 1e-7) can see; the
same limit as the primitives' float samplers (:data:`dpquant.reference.inverse_cdf.FLOAT_GRID_FRACTION`)."""

PROBABILITY_SUM_TOLERANCE = 1e-9
""":meth:`~dpquant.reference.distributions.DiscreteLaw.from_probabilities` refuses probabilities whose sum
differs from 1 by more than this (rounding of float probabilities is normalised away; anything
larger is a caller's mistake, not rounding)."""

NEGLIGIBLE_NATS = 350.0
"""Pieces whose float log-mass lies this far below the largest contribute < e^-350 relative to the
normaliser: far below the 60-digit working precision, so the exact normaliser may skip them."""

__all__ = [
    "FLOAT_SAMPLING_TOLERANCE",
    "MAX_ATOMS",
    "MAX_AXES",
    "MAX_COMPONENTS",
    "MAX_GRID_CELLS",
    "MAX_MERGED_CELLS",
    "MAX_PIECES",
    "MAX_PRODUCT_CELLS",
    "NEGLIGIBLE_NATS",
    "PROBABILITY_SUM_TOLERANCE",
]
