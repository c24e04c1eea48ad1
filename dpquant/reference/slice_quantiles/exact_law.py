"""The exact output law of SliceQuantiles on tiny instances: Thm 4.2 checked by exact
computation (notes/imola25.md, "Exact law" and the regression instance of "Reference values").

Without ClipRange, with γ = 0 and the discrete CC, given r̃ the m outputs are independent
exponential-mechanism draws on the slices S_j(r̃), each with a piecewise-constant density whose
breakpoints are among {a, b} ∪ X. Hence

    f_X(z) = P_fail/(b − a)^m + Σ_{r̃ ∈ Good_{m,n,h}} P(CC(r) = r̃)·Π_j f_EM(z_j | S_j(r̃), (a, b)),

P_fail = 1 − Σ_{r̃ ∈ Good} P(CC(r) = r̃), is constant on the cells of the product grid of those
breakpoints: a :class:`dpquant.reference.distributions.GridLaw`, computed with mpmath from the closed-form
CC pmf (the sum over Good is finite). Two neighbours' laws are compared exactly on the merged grid:
the privacy loss (ε at δ = 0) and the hockey-stick δ(ε) in both directions.

Thm 4.2's δ, exactly (:func:`theorem_4_2_delta`): for neighbours whose smaller data set has size
>= n, δ <= P(CC(r) ∉ Good*_{m,n,h+1}) under add/remove (the remove direction; the add direction
needs only Good*_{m,n,h}), and P(∉ Good*_{m,n−1,h+1}) + e^{ε1+2ε2}·P(∉ Good*_{m,n−1,h}) under
replace-one (through the intermediate data set of size n − 1).
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any, Protocol, cast, runtime_checkable

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributions import GridLaw, hockey_stick, privacy_loss
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.slice_quantiles.good_set import MAX_RANK, good_set_members, good_set_size
from dpquant.reference.slice_quantiles.single_quantile import slice_em_log_density
from dpquant.reference.validation import check_data, check_int, check_real

if TYPE_CHECKING:  # the mechanism imports this module for its exact law
    from dpquant.reference.slice_quantiles.mechanism import SliceQuantiles

MAX_GOOD = 5_000
"""Most r̃ vectors summed over (and at most 10·MAX_GOOD vector entries |Good|·m): the exact
CC pmf of one r̃ costs about 90 µs per coordinate, so a sum stays within a few seconds."""
EXACT_COST_LIMIT = 3_000_000
"""Most mpmath operations one exact law may take (about 2 µs each, so about 6 s): |Good|·(cells^m
+ 60m + 20) for the mixture over r̃ (the cells of the product grid and the CC pmf of each r̃), plus
cells·(2h + 3) per distinct slice, with cells = the number of distinct values of {a, b} ∪ X minus
one. Larger inputs are refused before any work."""
MAX_EPSILONS = 1000


@runtime_checkable
class _SliceQuantilesFields(Protocol):
    """The fields of :class:`~dpquant.reference.slice_quantiles.mechanism.SliceQuantiles` the exact law
    reads (a runtime check without importing the mechanism, which imports this module)."""

    m: int
    ranks: Any
    half_width: int
    good_rule: str
    noise: str
    epsilon1: float
    epsilon2: float
    gamma: float
    clip_range: bool
    grid_step: Any
    bounds: tuple[float, float]
    target: str


def _check_mech(mech: Any) -> SliceQuantiles:
    if not isinstance(mech, _SliceQuantilesFields):
        raise ParameterError("mech", "must be a SliceQuantiles", type(mech).__name__)
    return cast("SliceQuantiles", mech)


def _check_exact_supported(mech: SliceQuantiles) -> None:
    if mech.clip_range:
        raise ValueError("the exact law needs clip_range=False (ClipRange couples the outputs)")
    if mech.noise != "discrete":
        raise ValueError("the exact law needs noise='discrete'")
    if mech.gamma != 0 or mech.grid_step is not None:
        raise ValueError("the exact law needs gamma = 0 and no output grid (approximate variant)")


def _good(mech: SliceQuantiles, n: int, h: int) -> np.ndarray:
    size = good_set_size(mech.m, n, h, mech.good_rule)
    if size > MAX_GOOD or size * mech.m > 10 * MAX_GOOD:
        raise ValueError(
            f"exact computation refused: the Good set of m = {mech.m}, n = {n}, h = {h} has "
            f"{size} members, more than MAX_GOOD = {MAX_GOOD} (use a smaller n)"
        )
    return good_set_members(mech.m, n, h, mech.good_rule)


def _check_n_h(n: Any, h: Any, mech: SliceQuantiles) -> tuple[int, int]:
    n = check_int(n, "n", minimum=0, maximum=MAX_RANK)
    h = mech.half_width if h is None else check_int(h, "h", minimum=0, maximum=MAX_RANK)
    return n, h


def good_probability(mech: SliceQuantiles, n: int, h: int | None = None) -> mpmath.mpf:
    """P(CC(r) ∈ Good_{m,n,h}) exactly (h defaults to the mechanism's half-width); refused when
    the Good set has more than :data:`MAX_GOOD` members."""
    mech = _check_mech(mech)
    n, h = _check_n_h(n, h, mech)
    if mech.noise != "discrete":
        raise ValueError("the exact Good-set probability needs noise='discrete'")
    return _good_probability(mech, n, h)


def _good_probability(mech: SliceQuantiles, n: int, h: int) -> mpmath.mpf:
    cc, r = mech.cc, np.array(mech.ranks, dtype=np.int64)
    with workdps():
        return mpmath.fsum(mpmath.exp(cc.release_logpmf_mp(r, rt)) for rt in _good(mech, n, h))


def failure_probability(mech: SliceQuantiles, n: int, h: int | None = None) -> mpmath.mpf:
    """P(CC(r) ∉ Good_{m,n,h}) = P_fail for a data set of size n (Algorithm 1, line 6)."""
    mech = _check_mech(mech)
    n, h = _check_n_h(n, h, mech)
    if mech.noise != "discrete":
        raise ValueError("the exact failure probability needs noise='discrete'")
    with workdps():
        return 1 - _good_probability(mech, n, h)


def theorem_4_2_delta(mech: SliceQuantiles, n: int) -> mpmath.mpf:
    """Thm 4.2's δ for neighbours whose smaller data set has size >= n (module docstring)."""
    mech = _check_mech(mech)
    n = check_int(n, "n", minimum=1, maximum=MAX_RANK)
    if mech.noise != "discrete":
        raise ValueError("theorem_4_2_delta needs noise='discrete' (an exact CC pmf)")
    h = mech.half_width
    if h + 1 > MAX_RANK:
        raise ValueError(f"the half-width of mech must be below {MAX_RANK} here")
    with workdps():
        if mech.adjacency == "add_remove":
            return 1 - _good_probability(mech, n, h + 1)
        factor = mpmath.exp(to_mpf(mech.epsilon1) + 2 * to_mpf(mech.epsilon2))
        return (1 - _good_probability(mech, n - 1, h + 1)) + factor * (
            1 - _good_probability(mech, n - 1, h)
        )


def _exact_cost(mech: SliceQuantiles, n: int, cells: int) -> int:
    """The mpmath operations :func:`output_law` needs (see :data:`EXACT_COST_LIMIT`)."""
    mech = _check_mech(mech)
    n = check_int(n, "n", minimum=0, maximum=MAX_RANK)
    cells = check_int(cells, "cells", minimum=1, maximum=MAX_RANK)
    m, h = mech.m, mech.half_width
    good = good_set_size(m, n, h, mech.good_rule)
    if m * max(cells, 2).bit_length() > 64:  # cells^m alone is beyond any limit
        return 1 << 64
    return good * (cells**m + 60 * m + 20) + min(n, good * m) * cells * (2 * h + 3)


def output_law(mech: SliceQuantiles, data: Any) -> GridLaw:
    """The exact law of ``mech.sample(data, ...)`` (module docstring): ``mech.exact(data)``."""
    return cast(GridLaw, _check_mech(mech).exact(data))


def sorted_data_law(mech: SliceQuantiles, x: Any) -> GridLaw:
    """The exact law on sorted data ``x`` inside ``mech.bounds`` (``mech.exact`` prepares them);
    refused before any work when its cost is above :data:`EXACT_COST_LIMIT`."""
    mech = _check_mech(mech)
    x = check_data(x, "x")
    if np.any(x[1:] < x[:-1]) or x[0] < mech.bounds[0] or x[-1] > mech.bounds[1]:
        raise ParameterError(
            "x",
            f"must be sorted and inside bounds {mech.bounds} (mech.exact does it)",
        )
    _check_exact_supported(mech)
    n, h = len(x), mech.half_width
    a, b = mech.bounds
    axis = sorted({a, b, *(float(v) for v in x)})
    cells = len(axis) - 1
    cost = _exact_cost(mech, n, cells)
    good = good_set_size(mech.m, n, h, mech.good_rule)
    if good > MAX_GOOD or good * mech.m > 10 * MAX_GOOD:
        raise ValueError(
            f"exact law refused: on this data (n = {n} points) the Good set of m = {mech.m}, "
            f"h = {h} has {good} members, more than MAX_GOOD = {MAX_GOOD} (use fewer data "
            "points or quantiles)"
        )
    if cost > EXACT_COST_LIMIT:
        raise ValueError(
            f"exact law refused: on this data (n = {n} points, {cells} cells) with m = {mech.m} "
            f"and h = {h} it needs about {cost:.3g} mpmath operations, more than "
            f"EXACT_COST_LIMIT = {EXACT_COST_LIMIT} (use fewer data points or quantiles)"
        )
    members = _good(mech, n, h)
    with workdps():
        lefts = [to_mpf(v) for v in axis[:-1]]
        cc, r = mech.cc, np.array(mech.ranks, dtype=np.int64)
        total = np.full((cells,) * mech.m, mpmath.mpf(0), dtype=object)
        good_mass = mpmath.mpf(0)
        offsets = np.arange(2 * h + 1 if len(members) else 0)  # no slices: h may be huge
        densities: dict[int, np.ndarray] = {}
        for rt in members:
            prob = mpmath.exp(cc.release_logpmf_mp(r, rt))
            good_mass += prob
            term = np.array([prob], dtype=object)
            for start in (int(v) - h - 1 for v in rt):
                if start not in densities:
                    densities[start] = _density_on_cells(x[start + offsets], a, b, mech, lefts)
                term = np.multiply.outer(term, densities[start]).reshape(-1)
            total = total + term.reshape(total.shape)
        p_fail = 1 - good_mass
        total = total + p_fail / (to_mpf(b) - to_mpf(a)) ** mech.m
        logd = np.array(
            [mpmath.log(v) if v > 0 else mpmath.mpf("-inf") for v in total.ravel()], dtype=object
        ).reshape(total.shape)
    return GridLaw([axis] * mech.m, logd)


def _density_on_cells(
    points: np.ndarray, a: float, b: float, mech: SliceQuantiles, lefts: list[mpmath.mpf]
) -> np.ndarray:
    """The slice EM's density on every cell of the global grid (object array of mpf)."""
    breaks, logd = slice_em_log_density(
        [float(v) for v in points], a, b, mech.epsilon2, mech.target
    )
    bmp = [to_mpf(v) for v in breaks]
    dens = [mpmath.exp(v) for v in logd]
    out = np.empty(len(lefts), dtype=object)
    last = len(bmp) - 2
    for k, left in enumerate(lefts):
        out[k] = dens[min(max(bisect.bisect_right(bmp, left) - 1, 0), last)]
    return out


def privacy_profile(
    mech: SliceQuantiles, data: Any, neighbour: Any, epsilons: Any = ()
) -> dict[str, Any]:
    """ε at δ = 0 and δ(ε) in both directions for one pair of data sets (exact)."""
    mech = _check_mech(mech)
    if isinstance(epsilons, str | bytes) or not isinstance(epsilons, list | tuple | np.ndarray):
        raise ParameterError("epsilons", "must be a sequence of finite real numbers")
    if len(epsilons) > MAX_EPSILONS:
        raise ParameterError("epsilons", f"must hold at most {MAX_EPSILONS} values")
    eps = []
    for i, e in enumerate(epsilons):
        value = check_real(e, f"epsilons[{i}]")
        if not np.isfinite(value):
            raise ParameterError(f"epsilons[{i}]", "must be a finite real number", repr(value))
        eps.append(value)
    p = mech.exact(data)
    try:
        q = mech.exact(neighbour)
    except ValueError as exc:
        raise ValueError(f"neighbour: {exc}") from None
    with workdps():
        return {
            "epsilon_at_delta_0": privacy_loss(p, q),
            "delta": {e: (hockey_stick(p, q, e), hockey_stick(q, p, e)) for e in eps},
        }
