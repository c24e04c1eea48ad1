"""SingleQuantile on a slice: the exponential mechanism of imola25 App. C.2 (Algorithm 1,
line 16), batched.

For a sorted slice s_1 <= ... <= s_L clipped into the range (lo, hi), with s_0 = lo and
s_{L+1} = hi, interval j = [s_j, s_{j+1}] (j = 0..L) has utility u_j = −|j − t| and is chosen
with probability ∝ (s_{j+1} − s_j)·exp(ε·u_j/2) (utility sensitivity 1 for any neighbour and any
sub-list, so ε-DP); the output is uniform in the chosen interval. Algorithm 1 uses the target
t = ⌊L/2⌋ (``target="paper"``, = h for a slice of 2h + 1 points); the authors' code uses
t = L/2 (``target="authors"``, notes/imola25.md errata 10–11).

:func:`sample_slices_em` draws one output per row of a (k, L) array of slices, each row with its own
range: by default (``method="inverse_cdf"``) with one uniform per row against the row's cumulative
weights (s_{j+1} − s_j)·g_j, g_j = exp(−ε|j − t|/2) computed once for all rows; where that
cannot be done to full precision (ε·L so large that g underflows, an interval at the target of
length 0, weights that underflow or overflow) the rows go through the Gumbel-max trick in log
space (``method="gumbel"``, no underflow for any ε·L), which is also available for every row
(the draws of releases before issue 21). :func:`slice_em_log_density` is the exact law of one row (mpmath), and the tests tie
both methods to it.
"""

from __future__ import annotations

import numbers
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.exact.mp import logsumexp, to_mpf, workdps
from dpquant.reference.validation import (
    MAX_DRAWS,
    check_choice,
    check_data,
    check_epsilon,
    check_finite,
    check_flag,
    check_int,
    check_rng,
)

TARGETS = ("paper", "authors")
METHODS = ("inverse_cdf", "gumbel")
"""How :func:`sample_slices_em` draws: inverse CDF on linear weights (fast), or Gumbel-max in log
space (every row; the draws of earlier versions for the same seed)."""
TINY_TOTAL = 1e-280
"""A row whose total linear weight is below this (or not finite) is drawn by Gumbel-max: its
weights may have lost precision to underflow."""
MAX_SLICE_CELLS = 10**8
"""Most entries of the slices array one :func:`sample_slices_em` call takes."""
MAX_EXACT_POINTS = 10**5
"""Most points of one slice whose exact law :func:`slice_em_log_density` builds (mpmath)."""


def _slice_target(length: int, target: str = "paper") -> float:
    """t = ⌊L/2⌋ (paper, Algorithm 1 line 16) or L/2 (authors' code)."""
    length = check_int(length, "length", minimum=0, maximum=2**53)
    target = check_choice(target, "target", TARGETS)
    return float(length // 2) if target == "paper" else length / 2.0


def sample_slices_em(
    slices: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    epsilon: float,
    rng: np.random.Generator,
    target: str = "paper",
    *,
    check_values: bool = True,
    method: str = "inverse_cdf",
) -> np.ndarray:
    """One EM draw per row of ``slices`` (k, L), sorted rows, ranges (lo[k], hi[k]) with lo <= hi;
    ``method`` as :data:`METHODS` (the same law).

    ``check_values=False`` skips the O(k·L) scans of the values (finite, sorted rows, lo <= hi),
    as ``scipy.linalg``'s ``check_finite=False`` does, for callers whose arrays already satisfy
    them (Algorithm 1's release loop); shapes, ε, rng and target are checked either way."""
    if not isinstance(slices, np.ndarray) or slices.ndim != 2 or slices.shape[1] == 0:
        raise ParameterError(
            "slices",
            "must be a 2-D numpy array with one slice (L >= 1 points) per row",
        )
    if slices.size > MAX_SLICE_CELLS or slices.shape[0] > MAX_DRAWS:
        raise ParameterError("slices", f"must have at most {MAX_SLICE_CELLS} entries")
    if check_flag(check_values, "check_values"):
        s = check_data(slices, "slices", record_dim=slices.shape[1], allow_empty=True)
        if np.any(np.diff(s, axis=1) < 0):
            raise ParameterError("slices", "must have sorted rows")
        lo = check_data(lo, "lo", allow_empty=True)
        hi = check_data(hi, "hi", allow_empty=True)
        if lo.shape != (len(s),) or hi.shape != (len(s),) or np.any(hi < lo):
            raise ValueError("lo and hi must hold one range per row of slices, with lo <= hi")
    else:
        s = slices
        for arr, name in ((lo, "lo"), (hi, "hi")):
            if not isinstance(arr, np.ndarray) or arr.shape != (len(s),):
                raise ParameterError(name, "must be a numpy array with one value per row of slices")
    epsilon = check_epsilon(epsilon)
    rng = check_rng(rng)
    target = check_choice(target, "target", TARGETS)
    if check_choice(method, "method", METHODS) == "gumbel":
        return _sample_slices_em(s, lo, hi, epsilon, rng, target)
    return _sample_slices_inverse_cdf(s, lo, hi, epsilon, rng, target)


def _intervals(slices: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's breakpoints lo, its points clipped into [lo, hi], hi; and the interval lengths."""
    s = np.clip(slices, lo[:, None], hi[:, None])
    edges = np.concatenate([lo[:, None], s, hi[:, None]], axis=1)
    return edges, np.diff(edges, axis=1)


def _sample_slices_inverse_cdf(
    slices: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    epsilon: float,
    rng: np.random.Generator,
    target: str,
) -> np.ndarray:
    """:func:`sample_slices_em` by inverse CDF: weights w_j = (s_{j+1} − s_j)·g_j with
    g_j = exp(−ε|j − t|/2) (one vector for all rows), one uniform u·W per row against the running
    sums, the first interval whose running sum exceeds it (a zero-weight interval is never
    chosen), then a uniform point in it. Gumbel-max in log space (:func:`_sample_slices_em`)
    draws instead every row when some g_j is below 1e-300 (ε·L large: g would lose precision),
    and the rows whose target interval has length 0 or whose total W is not in
    [:data:`TINY_TOTAL`, inf) (there the shifted penalty or log space keeps full precision)."""
    L = slices.shape[1]
    dist = np.abs(np.arange(L + 1) - _slice_target(L, target))
    with np.errstate(over="ignore", under="ignore"):  # a huge ε: g underflows, log space below
        g = np.exp(-(epsilon / 2.0) * (dist - dist.min()))
    if g.min() < 1e-300:
        return _sample_slices_em(slices, lo, hi, epsilon, rng, target)
    edges, lengths = _intervals(slices, lo, hi)
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        cum = np.cumsum(lengths * g, axis=1)
    total = cum[:, -1]
    near = lengths[:, dist == dist.min()].max(axis=1) > 0
    fine = near & (total >= TINY_TOTAL) & np.isfinite(total)
    u = rng.random(len(slices)) * total
    choice = (cum <= u[:, None]).sum(axis=1)
    over = np.flatnonzero(choice > L)  # u rounded up to W: the last interval of positive weight
    if over.size:
        choice[over] = L - np.argmax(lengths[over, ::-1] > 0, axis=1)
    rows = np.arange(len(slices))
    width = lengths[rows, choice]
    out = np.minimum(edges[rows, choice] + rng.random(len(slices)) * width, hi)
    rest = np.flatnonzero(~fine)
    if rest.size:
        out[rest] = _sample_slices_em(slices[rest], lo[rest], hi[rest], epsilon, rng, target)
    return out


def _sample_slices_em(
    slices: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    epsilon: float,
    rng: np.random.Generator,
    target: str,
) -> np.ndarray:
    """:func:`sample_slices_em` on checked arguments. The penalty ε·|j − t|/2 is taken relative
    to its minimum over the intervals of positive length (the law is unchanged), so the best
    interval keeps a finite log-weight even when ε·|j − t| overflows a float."""
    edges, lengths = _intervals(slices, lo, hi)
    t = _slice_target(slices.shape[1], target)
    j = np.arange(lengths.shape[1])
    with np.errstate(divide="ignore"):
        log_len = np.log(lengths)
    dist = np.abs(j - t)[None, :]
    dmin = np.where(np.isfinite(log_len), dist, np.inf).min(axis=1, keepdims=True)
    dmin[~np.isfinite(dmin)] = 0.0
    with np.errstate(over="ignore"):
        logw = log_len - (epsilon / 2.0) * np.maximum(dist - dmin, 0.0)
    choice = np.argmax(logw + rng.gumbel(size=logw.shape), axis=1)
    rows = np.arange(len(slices))
    left = edges[rows, choice]
    width = lengths[rows, choice]
    out = left + rng.random(len(slices)) * width
    return np.where(np.isfinite(logw[rows, choice]), np.minimum(out, hi), lo)


def _exact_value(x: Any, name: str) -> Any:
    """A finite real kept exact (a Fraction or an int stays one; floats as they are)."""
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ParameterError(name, "must be a finite real number", x)
        return x
    check_finite(x, name)
    if isinstance(x, Fraction | numbers.Integral) and not isinstance(x, np.integer):
        return x
    return float(x)


def slice_em_log_density(
    points: Any, lo: Any, hi: Any, epsilon: Any, target: str = "paper"
) -> tuple[list[Any], list[mpmath.mpf]]:
    """Exact law of one slice EM: the breakpoints (lo, clipped points, hi, zero-length intervals
    dropped) and the log-density on each interval, mpmath; exact values (Fractions) pass through."""
    if isinstance(points, str | bytes) or not isinstance(points, list | tuple | np.ndarray):
        raise ParameterError("points", "must be a non-empty sequence of finite real numbers")
    if len(points) > MAX_EXACT_POINTS:
        raise ParameterError("points", f"must hold at most {MAX_EXACT_POINTS} values")
    if isinstance(points, np.ndarray):
        points = check_data(points, "points").tolist()
    pts_in = [_exact_value(p, f"points[{i}]") for i, p in enumerate(points)]
    if not pts_in:
        raise ParameterError("points", "must be a non-empty sequence of finite real numbers")
    lo, hi = _exact_value(lo, "lo"), _exact_value(hi, "hi")
    if isinstance(epsilon, mpmath.mpf):
        if not (mpmath.isfinite(epsilon) and epsilon > 0):
            raise ParameterError("epsilon", "must be a finite number > 0", epsilon)
    else:
        epsilon = epsilon if isinstance(epsilon, Fraction) else check_epsilon(epsilon)
        if isinstance(epsilon, Fraction) and epsilon <= 0:
            raise ParameterError("epsilon", "must be a finite number > 0", epsilon)
    target = check_choice(target, "target", TARGETS)
    pts = sorted(pts_in, key=to_mpf)
    t = _slice_target(len(pts), target)
    with workdps():
        lo_m, hi_m = to_mpf(lo), to_mpf(hi)
        if not lo_m < hi_m:
            raise ValueError("the range (lo, hi) must have positive length")
        clipped = [lo if to_mpf(p) < lo_m else hi if to_mpf(p) > hi_m else p for p in pts]
        edges = [lo, *clipped, hi]
        eps = to_mpf(epsilon)
        keep, logw = [], []
        for j in range(len(edges) - 1):
            width = to_mpf(edges[j + 1]) - to_mpf(edges[j])
            if width > 0:
                keep.append(j)
                logw.append(-eps * abs(j - to_mpf(t)) / 2)
        if not keep:
            raise ValueError("the range (lo, hi) must have positive length")
        log_z = logsumexp(
            [
                w + mpmath.log(to_mpf(edges[j + 1]) - to_mpf(edges[j]))
                for j, w in zip(keep, logw, strict=True)
            ]
        )
        breaks = [edges[keep[0]]] + [edges[j + 1] for j in keep]
        return breaks, [w - log_z for w in logw]


__all__ = ["TARGETS", "sample_slices_em", "slice_em_log_density"]
