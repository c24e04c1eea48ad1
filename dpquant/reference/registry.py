"""The reference mechanisms that ``dpquant audit --all`` (and ``make audit``) checks.

Each entry gives a configured mechanism, the grid of values its exhaustive neighbour family is
drawn from (the bounds, interior points with ties, and values outside the bounds) and the largest
data-set size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributed_quantiles import HierarchicalRandomizer, ThresholdQuery
from dpquant.reference.ldp_minimum import LaplaceReport, LDPMinimum, UserTranscript
from dpquant.reference.primitives import ExponentialQuantile, RandomizedResponse
from dpquant.reference.private_median import PrivateMedian
from dpquant.reference.slice_quantiles import SliceQuantiles, theorem_4_2_delta
from dpquant.reference.validation import check_data, check_int


@dataclass(frozen=True)
class RegistryEntry:
    """A configured reference mechanism, as ``make audit`` audits it.

    Args:
        name: Its name in reports.
        description: One line on what it is.
        build: ``build()`` makes the mechanism.
        grid: Finite values: with ``max_n``, they describe its neighbour family.
        max_n: The largest data set of the family, an int >= 1.
        pairs: ``pairs()`` lists explicit neighbours; None: the auditor searches them.

    Raises:
        ValueError: A field is refused at construction (named).
    """

    name: str
    description: str
    build: Callable[[], Any]
    grid: tuple[float, ...]
    max_n: int
    pairs: Callable[[], list[tuple[Any, Any]]] | None = None

    def __post_init__(self) -> None:
        for field_name in ("name", "description"):
            if not isinstance(getattr(self, field_name), str):
                raise ParameterError(field_name, "must be a string")
        if not callable(self.build):
            raise ParameterError("build", "must be a callable returning the mechanism")
        grid = check_data(self.grid, "grid")
        object.__setattr__(self, "grid", tuple(float(v) for v in grid))
        object.__setattr__(self, "max_n", check_int(self.max_n, "max_n", minimum=1))
        if self.pairs is not None and not callable(self.pairs):
            raise ParameterError("pairs", "must be None or a callable returning neighbouring pairs")


UNIT_GRID = (-1000.0, -1.0, 0.0, 0.25, 0.5, 0.75, 1.0, 2.0, 1000.0)


def _tiny_slice_quantiles() -> SliceQuantiles:
    """imola25 Algorithm 1 on the registry's instance (``notes/imola25.md``, "Registry"):
    X = {1..10}, (a, b) = (0, 11), r = (3, 8), h = 1, ε1 = 8, ε2 = 4, add/remove, no ClipRange;
    claim (ε1 + 2ε2, Thm 4.2's exact δ for sizes >= 10)."""
    mech = SliceQuantiles((3, 8), 1, 8.0, 4.0, (0.0, 11.0), "add_remove", clip_range=False)
    return SliceQuantiles(
        (3, 8),
        1,
        8.0,
        4.0,
        (0.0, 11.0),
        "add_remove",
        delta=float(theorem_4_2_delta(mech, 10)),
        clip_range=False,
    )


def _tiny_slice_quantiles_pairs() -> list[tuple[Any, Any]]:
    """X = {1..10} and X plus one point, the point at every half-integer of [0, 11]."""
    x = np.arange(1.0, 11.0)
    return [(x, np.sort(np.append(x, v))) for v in np.arange(0.5, 11.0, 1.0)]


FUKUCHI19_GRID = (-1.0, -0.5, 0.0, 0.5, 1.0)  # the auditor's probes on [−1, 1]: ends, τ's, ties
# fukuchi19's LaplaceReport is listed with its default grid noise (exactly ε-LDP as sampled); the
# paper's float report x + b·noise leaks through the low mantissa bits (Mironov 2012) and the
# auditor flags it (tests/reference/ldp_minimum/test_fukuchi19_audit.py).


def _fukuchi19_minimum(**options: Any) -> Callable[[], LDPMinimum]:
    """fukuchi19 Algorithm 2 with e^{ε/L} = 3, L = 2, γ = ½ (ε = 2 ln 3, the tight case of
    ``notes/fukuchi19.md``, "What the auditor finds")."""
    return lambda: LDPMinimum.with_exp_u(3, 2, 0.5, **options)


def _fukuchi19_transcript() -> UserTranscript:
    """One user's whole transcript in Algorithm 2 (e^u = 3, L = 2, γ = ½), others at 0 and ½."""
    return UserTranscript.with_exp_u(3, 2, 0.5, (0.0, 0.5))


def _tzamos20(mode: str) -> Callable[[], PrivateMedian]:
    """tzamos20 PRIVATEMEDIAN with the constants of ``notes/tzamos20.md``, "Regression fixtures"
    (L = 1/2, r = 1, R = 5, C = 1, so
    Ξ = [−11/2, 11/2], B = 9) at ε = 1, on the float-safe output grid. The printed Algorithm 1
    (mode="paper") is in the known-bad catalogue (dpquant/audit/suites/catalogue/entries.py)."""
    return lambda: PrivateMedian(Fraction(1, 2), 1, 5, 1, 1, mode=mode)


def _em(q: float, eps: float, adjacency: str, what: str) -> RegistryEntry:
    """Smith's EM for the ``q``-quantile (``what``) on bounds (0, 1)."""
    return RegistryEntry(
        f"exponential_quantile[q={q:g},eps={eps:g},{adjacency}]",
        f"Smith's EM, {what}",
        lambda: ExponentialQuantile(q, eps, (0.0, 1.0), adjacency=adjacency),
        UNIT_GRID,
        4,
    )


REGISTRY: tuple[RegistryEntry, ...] = (
    RegistryEntry(
        "randomized_response[eps=1]",
        "binary randomized response, local DP",
        lambda: RandomizedResponse(1.0),
        (0.0, 1.0),
        1,
    ),
    RegistryEntry(
        "randomized_response[eps=0.1]",
        "binary randomized response, local DP",
        lambda: RandomizedResponse(0.1),
        (0.0, 1.0),
        1,
    ),
    RegistryEntry(
        "aamand25_threshold_query[B=8,coin=4,eps=1]",
        "aamand25 local randomizer: ε-RR of [x <= coin], local DP",
        lambda: ThresholdQuery(8, 4, 1.0),
        tuple(float(v) for v in range(1, 9)),
        1,
    ),
    RegistryEntry(
        "aamand25_hm_randomizer[B=4,b=2,oue,eps=1]",
        "aamand25 Hierarchical Mechanism user report (OUE at a random level), local DP",
        lambda: HierarchicalRandomizer(4, 1.0, branching=2),
        (1.0, 2.0, 3.0, 4.0),
        1,
    ),
    _em(0.5, 1.0, "replace_one", "median, bounds (0, 1)"),
    _em(0.5, 1.0, "add_remove", "median, bounds (0, 1)"),
    _em(0.25, 0.5, "add_remove", "first quartile"),
    _em(0.9, 2.0, "replace_one", "0.9-quantile"),
    RegistryEntry(
        "imola25_slice_quantiles[m=2,h=1,eps1=8,eps2=4,add_remove]",
        "SliceQuantiles (no ClipRange, discrete CC) on X = {1..10} and X plus one point",
        _tiny_slice_quantiles,
        tuple(float(v) for v in np.arange(0.5, 11.0, 1.0)),
        11,
        _tiny_slice_quantiles_pairs,
    ),
    RegistryEntry(
        "fukuchi19_ldp_minimum[exp_u=3,L=2,gamma=0.5]",
        "fukuchi19 Algorithm 2 (ε-LDP minimum, ε = 2 ln 3), server output, exact law",
        _fukuchi19_minimum(),
        FUKUCHI19_GRID,
        4,
    ),
    RegistryEntry(
        "fukuchi19_ldp_maximum[exp_u=3,L=2,gamma=0.5,per_user]",
        "fukuchi19 maximum by symmetry, every user's report drawn, exact law",
        _fukuchi19_minimum(target="max", sampler="per_user"),
        FUKUCHI19_GRID,
        4,
    ),
    RegistryEntry(
        "fukuchi19_user_transcript[exp_u=3,L=2,gamma=0.5,others=(0,0.5)]",
        "fukuchi19 one user's transcript (Theorem 6), local DP, exact law",
        _fukuchi19_transcript,
        FUKUCHI19_GRID,
        1,
    ),
    RegistryEntry(
        "tzamos20_private_median[extension,L=1/2,r=1,R=5,C=1,eps=1]",
        "tzamos20 ε-DP median, the extension density always (Prop. A.5(a)), exact law",
        _tzamos20("extension"),
        UNIT_GRID,
        4,
    ),
    RegistryEntry(
        "tzamos20_private_median[fixed,L=1/2,r=1,R=5,C=1,eps=1]",
        "tzamos20 Algorithm 1 with the fixed typical set H_fix and cap min{Lrn, 4K} (ours)",
        _tzamos20("fixed"),
        UNIT_GRID,
        4,
    ),
    RegistryEntry(
        "fukuchi19_laplace_report[eps=1,grid=1/4]",
        "fukuchi19 Laplace baseline, one user's grid report (float-safe), local DP, exact law",
        lambda: LaplaceReport(1.0, grid=0.25),
        FUKUCHI19_GRID,
        1,
    ),
)
