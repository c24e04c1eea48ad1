"""The exact output law of SliceQuantiles on tiny instances (spec §6.4, §6.5).

Without ClipRange, with γ = 0 and the discrete CC, given r̃ the m outputs are independent
exponential-mechanism draws on the slices S_j(r̃), each with a piecewise-constant density whose
breakpoints are among {a, b} ∪ X. Hence

    f_X(z) = P_fail/(b − a)^m + Σ_{r̃ ∈ Good_{m,n,h}} P(CC(r) = r̃)·Π_j f_EM(z_j | S_j(r̃), (a, b)),

P_fail = 1 − Σ_{r̃ ∈ Good} P(CC(r) = r̃), is constant on the cells of the product grid of those
breakpoints: a :class:`reference.distributions.GridLaw`, computed with mpmath from the closed-form
CC pmf (the sum over Good is finite). Two neighbours' laws are compared exactly on the merged grid:
the privacy loss (ε at δ = 0) and the hockey-stick δ(ε) in both directions.

Thm 4.2's δ, exactly (:func:`theorem_4_2_delta`): for neighbours whose smaller data set has size
>= n, δ <= P(CC(r) ∉ Good*_{m,n,h+1}) under add/remove (the remove direction; the add direction
needs only Good*_{m,n,h}), and P(∉ Good*_{m,n−1,h+1}) + e^{ε1+2ε2}·P(∉ Good*_{m,n−1,h}) under
replace-one (through the intermediate data set of size n − 1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import mpmath
import numpy as np

from reference.distributions import GridLaw, hockey_stick, privacy_loss
from reference.exact.mp import to_mpf, workdps
from reference.slice_quantiles.good_set import good_set_members, slices
from reference.slice_quantiles.single_quantile import slice_em_log_density

if TYPE_CHECKING:
    from reference.slice_quantiles.slice_quantiles import SliceQuantiles

MAX_GOOD = 20_000  # r̃ vectors summed over; beyond this the instance is not "tiny"


def _check_exact_supported(mech: SliceQuantiles) -> None:
    if mech.clip_range:
        raise ValueError("the exact law needs clip_range=False (ClipRange couples the outputs)")
    if mech.noise != "discrete":
        raise ValueError("the exact law needs noise='discrete'")
    if mech.gamma != 0 or mech.grid_step is not None:
        raise ValueError("the exact law needs gamma = 0 and no output grid (approximate variant)")


def _good(mech: SliceQuantiles, n: int, h: int) -> np.ndarray:
    members = good_set_members(mech.m, n, h, mech.good_rule)
    if len(members) > MAX_GOOD:
        raise ValueError(f"Good set has {len(members)} members, more than MAX_GOOD = {MAX_GOOD}")
    return members


def good_probability(mech: SliceQuantiles, n: int, h: int | None = None) -> mpmath.mpf:
    """P(CC(r) ∈ Good_{m,n,h}) exactly (h defaults to the mechanism's half-width)."""
    h = mech.half_width if h is None else h
    cc, r = mech.cc, np.array(mech.ranks, dtype=np.int64)
    with workdps():
        return mpmath.fsum(mpmath.exp(cc.release_logpmf_mp(r, rt)) for rt in _good(mech, n, h))


def failure_probability(mech: SliceQuantiles, n: int, h: int | None = None) -> mpmath.mpf:
    """P(CC(r) ∉ Good_{m,n,h}) = P_fail for a data set of size n (spec §6.4)."""
    with workdps():
        return 1 - good_probability(mech, n, h)


def theorem_4_2_delta(mech: SliceQuantiles, n: int) -> mpmath.mpf:
    """Thm 4.2's δ for neighbours whose smaller data set has size >= n (module docstring)."""
    h = mech.half_width
    with workdps():
        if mech.adjacency == "add_remove":
            return failure_probability(mech, n, h + 1)
        factor = mpmath.exp(to_mpf(mech.epsilon1) + 2 * to_mpf(mech.epsilon2))
        return failure_probability(mech, n - 1, h + 1) + factor * failure_probability(
            mech, n - 1, h
        )


def output_law(mech: SliceQuantiles, data: Any) -> GridLaw:
    """The exact law of ``mech.sample(data, ...)`` (module docstring)."""
    _check_exact_supported(mech)
    x = mech.prepare(data)
    n, h = len(x), mech.half_width
    a, b = mech.bounds
    with workdps():
        axis = sorted({a, b, *(float(v) for v in x)})
        cells = len(axis) - 1
        lefts = [to_mpf(v) for v in axis[:-1]]
        cc, r = mech.cc, np.array(mech.ranks, dtype=np.int64)
        total = np.full((cells,) * mech.m, mpmath.mpf(0), dtype=object)
        good_mass = mpmath.mpf(0)
        for rt in _good(mech, n, h):
            prob = mpmath.exp(cc.release_logpmf_mp(r, rt))
            good_mass += prob
            term = np.array([prob], dtype=object)
            for row in slices(x, rt, h):
                term = np.multiply.outer(term, _density_on_cells(row, a, b, mech, lefts)).reshape(
                    -1
                )
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
    out = np.empty(len(lefts), dtype=object)
    for k, left in enumerate(lefts):
        j = max(i for i in range(len(bmp) - 1) if bmp[i] <= left)
        out[k] = mpmath.exp(logd[j])
    return out


def privacy_profile(
    mech: SliceQuantiles, data: Any, neighbour: Any, epsilons: Any = ()
) -> dict[str, Any]:
    """ε at δ = 0 and δ(ε) in both directions for one pair of data sets (exact)."""
    p, q = output_law(mech, data), output_law(mech, neighbour)
    with workdps():
        return {
            "epsilon_at_delta_0": privacy_loss(p, q),
            "delta": {float(e): (hockey_stick(p, q, e), hockey_stick(q, p, e)) for e in epsilons},
        }
