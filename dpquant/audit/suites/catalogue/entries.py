"""The catalogue's entries: each known-bad mechanism with its exact privacy loss on a recorded
neighbouring pair (:data:`CATALOGUE`), and the correct controls beside them (:data:`CONTROLS`).
The sources of the bugs and the exact values are listed in ``notes/auditor.md`` ("Catalogue").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from dpquant.audit.suites.catalogue.base import UNIT
from dpquant.audit.suites.catalogue.composition import MultiQuantileFullBudget
from dpquant.audit.suites.catalogue.em_support import EMDataBounds, EMNoClamp, EMOutputsDataValue
from dpquant.audit.suites.catalogue.em_weights import EMNoHalf, EMNoWidth, EMUnderflow
from dpquant.audit.suites.catalogue.local_sensitivity import MedianLocalSensitivityLaplace
from dpquant.audit.suites.catalogue.wrong_flip import RRWrongFlip
from dpquant.reference.exact.mp import to_mpf
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.primitives.randomized_response import RandomizedResponse
from dpquant.reference.private_median import PrivateMedian


@dataclass(frozen=True)
class CatalogueEntry:
    """A mechanism with a known answer: its exact privacy loss on a neighbouring pair.

    Attributes:
        name: The entry's name.
        description: One line: what is wrong.
        mechanism: The configured mechanism instance (picklable).
        epsilon_exact: The exact privacy loss on ``witness`` (``math.inf`` where the supports
            differ).
        witness: A neighbouring pair achieving it.
        source: Where the bug comes from.
    """

    name: str
    description: str
    mechanism: Any
    epsilon_exact: float | None
    witness: tuple[tuple[float, ...], tuple[float, ...]] | None
    source: str


# Exact values, re-derived from scratch by tests/audit/suites/test_catalogue.py:
_EM_NO_HALF_EPS = float(1 + mpmath.log((3 * mpmath.e + 1) / (mpmath.e + 3)))
_EM_NO_WIDTH_EPS = float(
    mpmath.log(to_mpf((Fraction(0.9) - Fraction(0.5)) / (Fraction(0.6) - Fraction(0.5))))
)
_CONTROL_EM_EPS = float(
    mpmath.mpf(0.5) + mpmath.log((3 * mpmath.sqrt(mpmath.e) + 1) / (mpmath.sqrt(mpmath.e) + 3))
)
_RR_WRONG_FLIP_EPS = float(mpmath.log(2 * mpmath.e - 1))
_MULTI_QUANTILE_EPS = 2.157894408761311  # multi_quantile_exact_epsilon on the witness below
_UNDERFLOW_N = 2982  # smallest n with [0]*n + [1] raising while [0]*(n-1) + [1, 1] does not
# tzamos20's printed Algorithm 1 on two neighbours in H (n = 9, C = 1, K = 2): medians −5 and −1/2,
# restricted laws (ε/4)·min{(Ln/3C)|Δm|, Lrn} = (ε/4)·Lrn = 9/8 apart at ε = 1
_TZAMOS20_PAPER_EPS = 9 / 8

CATALOGUE: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        "em_no_half",
        "exponential mechanism with weights w·exp(ε·u): the factor ½ is missing (2ε-DP, claims ε)",
        EMNoHalf(),
        _EM_NO_HALF_EPS,
        ((0.0, 0.25, 0.25), (0.25, 0.25, 1.0)),
        "exponential mechanism (Smith 2011) with the ½ dropped; notes/auditor.md, B1",
    ),
    CatalogueEntry(
        "em_no_width",
        "exponential mechanism choosing the interval without its width: unbounded loss",
        EMNoWidth(),
        _EM_NO_WIDTH_EPS,
        ((0.2, 0.5, 0.6), (0.2, 0.5, 0.9)),
        "exponential mechanism (Smith 2011) without the widths; notes/auditor.md, B3",
    ),
    CatalogueEntry(
        "em_no_clamp",
        "exponential mechanism without clamping: an outlier stretches the output range",
        EMNoClamp(),
        math.inf,
        ((0.5, 0.5), (0.5, 1000.0)),
        "Google differential-privacy quantile tests (±1000 entries); notes/auditor.md, B4",
    ),
    CatalogueEntry(
        "em_data_bounds",
        "exponential mechanism on the bounds [min D, max D]: the output range depends on the data",
        EMDataBounds(),
        math.inf,
        ((0.2, 0.5, 0.5), (0.2, 0.5, 0.9)),
        "diffprivlib PrivacyLeakWarning (bounds computed from the data); notes/auditor.md, B5",
    ),
    CatalogueEntry(
        "em_outputs_data_value",
        "exponential mechanism over the data points: it releases a data value",
        EMOutputsDataValue(),
        math.inf,
        ((0.25,), (0.5,)),
        "Smith 2011 (why the EM samples the intervals between the points); catalogue addition",
    ),
    CatalogueEntry(
        "median_local_sensitivity_laplace",
        "median plus Laplace noise scaled to the local sensitivity: an atom when LS = 0",
        MedianLocalSensitivityLaplace(),
        math.inf,
        ((0.0, 0.0, 0.0, 0.0, 1.0), (0.0, 0.0, 0.0, 1.0, 1.0)),
        "Nissim, Raskhodnikova, Smith 2007 (NRS07); notes/auditor.md, B7",
    ),
    CatalogueEntry(
        "em_underflow",
        "exponential mechanism with linear-space float weights: raises on some data only",
        EMUnderflow(),
        math.inf,
        ((0.0,) * _UNDERFLOW_N + (1.0,), (0.0,) * (_UNDERFLOW_N - 1) + (1.0, 1.0)),
        "SmartNoise-SQL #572; diffprivlib #107",
    ),
    CatalogueEntry(
        "rr_wrong_flip",
        "randomized response keeping the bit with probability 1 − e^−ε/2: loss ln(2e^ε − 1)",
        RRWrongFlip(),
        _RR_WRONG_FLIP_EPS,
        ((0.0,), (1.0,)),
        "Warner 1965 randomized response with a mis-derived keep probability; catalogue addition",
    ),
    CatalogueEntry(
        "tzamos20_paper_algorithm_1",
        "tzamos20 Algorithm 1 as printed: the restricted law on the typical set H is not ε/2-DP",
        PrivateMedian(Fraction(1, 2), 1, 5, 1, 1, mode="paper"),
        _TZAMOS20_PAPER_EPS,
        ((-5.0,) * 5 + (-0.5,) * 4, (-5.0,) * 4 + (-0.5,) * 5),
        "tzamos20 Lemma 3.3 / Prop. A.5(b) (erratum E1 in notes/tzamos20.md; "
        "proofs_checks/test_tzamos20_counterexamples.py)",
    ),
    CatalogueEntry(
        "multi_quantile_full_budget",
        "three quantiles each released with the full ε while the total claim is ε",
        MultiQuantileFullBudget(),
        _MULTI_QUANTILE_EPS,
        ((0.0, 0.25, 0.25, 0.25), (0.25, 0.25, 0.25, 1.0)),
        "sequential composition (Dwork and Roth 2014, Thm 3.16); notes/auditor.md, B8",
    ),
)

CONTROLS: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        "control_em_median",
        "correct exponential mechanism for the median (Smith 2011): no violation",
        ExponentialQuantile(0.5, 1.0, UNIT, adjacency="replace_one"),
        _CONTROL_EM_EPS,
        ((0.0, 0.25, 0.25), (0.25, 0.25, 1.0)),
        "Smith 2011; control for em_no_half",
    ),
    CatalogueEntry(
        "control_randomized_response",
        "correct binary randomized response: loss exactly ε",
        RandomizedResponse(1.0),
        1.0,
        ((0.0,), (1.0,)),
        "Warner 1965; control for rr_wrong_flip",
    ),
)


def catalogue_entry(name: str) -> CatalogueEntry:
    """An entry of :data:`CATALOGUE` or :data:`CONTROLS` by its name.

    Args:
        name: The entry's name.

    Returns:
        The entry.

    Raises:
        ValueError: No entry has that name (the message lists the known names).
    """
    if isinstance(name, str):
        for entry in CATALOGUE + CONTROLS:
            if entry.name == name:
                return entry
    names = ", ".join(e.name for e in CATALOGUE + CONTROLS)
    raise ValueError(
        f"name must be the name of a catalogue entry, got {name!r:.80} (unknown catalogue "
        f"entry); known entries: {names}"
    )


__all__ = ["CATALOGUE", "CONTROLS", "CatalogueEntry", "catalogue_entry"]
