"""Exact output laws and the divergences between them.

Four laws cover every mechanism of this project:

* :class:`DiscreteLaw` -- finitely many atoms with log-probabilities at mpmath precision;
* :class:`PiecewiseLogLinear` -- a density on an interval made of pieces with
  ``log f(y) = a·y + b`` (piecewise-constant, truncated and flattened Laplace, the exponential
  mechanism over Smith's intervals, the tzamos20 extension density);
* :class:`ProductLaw` -- independent coordinates, each one of the two laws above;
* :class:`GridLaw` -- a density on a box of R^k, constant on the cells of a product grid.

Each law has a float fast path (``logpdf``/``cdf``/``sample``, vectorised numpy) and an exact path
(``*_mp`` methods, ``mass``, ``total_mass``; mpmath at :data:`dpquant.reference.exact.mp.DPS` digits).
Between two laws of the same kind: the exact privacy loss :func:`privacy_loss` (sup |log f − log g|
over the merged breakpoints, infinite when the supports differ), the hockey-stick divergence
:func:`hockey_stick` δ(ε) and the Rényi divergence :func:`renyi_divergence` of any order α; for
two piecewise laws, :func:`certified_privacy_loss` encloses the loss in interval arithmetic.

Exact parameters: a law stores floats for speed and, optionally, exact values (``Fraction``,
``int``, ``mpf``) for the exact path; ``exact_*`` arguments may be lazy sequences (anything with
``__getitem__``) so that a law with 10^6 pieces costs nothing until its exact path is used.

Bad input: every constructor, method and divergence refuses what it cannot handle with a
``ValueError`` naming the parameter (types, NaN, ranges, sizes above the caps of
:mod:`dpquant.reference.distributions.limits`). The float sampler of a density refuses a law whose draws
float64 cannot resolve (:meth:`PiecewiseLogLinear.float_sampling_error` above
:data:`FLOAT_SAMPLING_TOLERANCE`).

One module per concept: ``discrete``, ``piecewise`` (with ``float_path`` and
``exact_parameters``), ``product``, ``grid``, ``divergences``, ``certified``; ``cells`` (the merged
cells of two densities, the float cdf of many laws at once), ``log_integral``, ``arithmetic``, ``inputs``, ``limits`` and ``protocol``
support them.
"""

from dpquant.reference.distributions import limits
from dpquant.reference.distributions.arithmetic import Number
from dpquant.reference.distributions.cells import piecewise_cdfs
from dpquant.reference.distributions.certified import (
    certified_log_normalizer,
    certified_max_log_ratio,
    certified_privacy_loss,
)
from dpquant.reference.distributions.discrete import DiscreteLaw
from dpquant.reference.distributions.divergences import (
    hockey_stick,
    max_log_ratio,
    privacy_loss,
    renyi_divergence,
)
from dpquant.reference.distributions.grid import GridLaw, grid_cell_masses, merged_grid_cells
from dpquant.reference.distributions.limits import *  # noqa: F403 -- every limit, re-exported below
from dpquant.reference.distributions.log_integral import log_integral_exp_linear
from dpquant.reference.distributions.piecewise import Piece, PiecewiseLogLinear
from dpquant.reference.distributions.product import ProductLaw
from dpquant.reference.distributions.protocol import ExactDistribution

__all__ = [
    "DiscreteLaw",
    "ExactDistribution",
    "GridLaw",
    "Number",
    "Piece",
    "PiecewiseLogLinear",
    "ProductLaw",
    "certified_log_normalizer",
    "certified_max_log_ratio",
    "certified_privacy_loss",
    "grid_cell_masses",
    "hockey_stick",
    "log_integral_exp_linear",
    "max_log_ratio",
    "merged_grid_cells",
    "piecewise_cdfs",
    "privacy_loss",
    "renyi_divergence",
]
__all__ += limits.__all__  # every limit of :mod:`dpquant.reference.distributions.limits`
