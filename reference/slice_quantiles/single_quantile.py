"""SingleQuantile on a slice: the exponential mechanism of imola25 App. C.2 (Algorithm 1,
line 16), batched.

For a sorted slice s_1 <= ... <= s_L clipped into the range (lo, hi), with s_0 = lo and
s_{L+1} = hi, interval j = [s_j, s_{j+1}] (j = 0..L) has utility u_j = −|j − t| and is chosen
with probability ∝ (s_{j+1} − s_j)·exp(ε·u_j/2) (utility sensitivity 1 for any neighbour and any
sub-list, so ε-DP); the output is uniform in the chosen interval. Algorithm 1 uses the target
t = ⌊L/2⌋ (``target="paper"``, = h for a slice of 2h + 1 points); the authors' code uses
t = L/2 (``target="authors"``, notes/imola25.md errata 10–11).

:func:`sample_slices_em` draws one output per row of a (k, L) array of slices, each row with its own
range, by the Gumbel-max trick in log space (no underflow for any ε·L); :func:`slice_em_log_density`
is the exact law of one row (mpmath), and the tests tie the two.
"""

from __future__ import annotations

import numbers
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from reference.exact.mp import logsumexp, to_mpf, workdps
from reference.validation import (
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
MAX_SLICE_CELLS = 10**8
"""Most entries of the slices array one :func:`sample_slices_em` call takes."""
MAX_EXACT_POINTS = 10**5
"""Most points of one slice whose exact law :func:`slice_em_log_density` builds (mpmath)."""


def slice_target(length: int, target: str = "paper") -> float:
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
) -> np.ndarray:
    """One EM draw per row of ``slices`` (k, L), sorted rows, ranges (lo[k], hi[k]) with lo <= hi.

    ``check_values=False`` skips the O(k·L) scans of the values (finite, sorted rows, lo <= hi),
    as ``scipy.linalg``'s ``check_finite=False`` does, for callers whose arrays already satisfy
    them (Algorithm 1's release loop); shapes, ε, rng and target are checked either way."""
    if not isinstance(slices, np.ndarray) or slices.ndim != 2 or slices.shape[1] == 0:
        raise ValueError("slices must be a 2-D numpy array with one slice (L >= 1 points) per row")
    if slices.size > MAX_SLICE_CELLS or slices.shape[0] > MAX_DRAWS:
        raise ValueError(f"slices must have at most {MAX_SLICE_CELLS} entries")
    if check_flag(check_values, "check_values"):
        s = check_data(slices, "slices", record_dim=slices.shape[1], allow_empty=True)
        if np.any(np.diff(s, axis=1) < 0):
            raise ValueError("slices must have sorted rows")
        lo = check_data(lo, "lo", allow_empty=True)
        hi = check_data(hi, "hi", allow_empty=True)
        if lo.shape != (len(s),) or hi.shape != (len(s),) or np.any(hi < lo):
            raise ValueError("lo and hi must hold one range per row of slices, with lo <= hi")
    else:
        s = slices
        for arr, name in ((lo, "lo"), (hi, "hi")):
            if not isinstance(arr, np.ndarray) or arr.shape != (len(s),):
                raise ValueError(f"{name} must be a numpy array with one value per row of slices")
    epsilon = check_epsilon(epsilon)
    rng = check_rng(rng)
    target = check_choice(target, "target", TARGETS)
    return _sample_slices_em(s, lo, hi, epsilon, rng, target)


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
    s = np.clip(slices, lo[:, None], hi[:, None])
    edges = np.concatenate([lo[:, None], s, hi[:, None]], axis=1)
    lengths = np.diff(edges, axis=1)
    t = slice_target(slices.shape[1], target)
    j = np.arange(lengths.shape[1])
    with np.errstate(divide="ignore"):
        log_len = np.log(lengths)
    dist = np.abs(j - t)[None, :]
    dmin = np.where(np.isfinite(log_len), dist, np.inf).min(axis=1, keepdims=True)
    dmin[~np.isfinite(dmin)] = 0.0
    with np.errstate(over="ignore"):
        logw = log_len - (epsilon / 2.0) * np.maximum(dist - dmin, 0.0)
    choice = np.argmax(logw + rng.gumbel(size=logw.shape), axis=1)
    rows = np.arange(len(s))
    left = edges[rows, choice]
    width = lengths[rows, choice]
    out = left + rng.random(len(s)) * width
    return np.where(np.isfinite(logw[rows, choice]), np.minimum(out, hi), lo)


def _exact_value(x: Any, name: str) -> Any:
    """A finite real kept exact (a Fraction or an int stays one; floats as they are)."""
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ValueError(f"{name} must be a finite real number, got {x}")
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
        raise ValueError("points must be a non-empty sequence of finite real numbers")
    if len(points) > MAX_EXACT_POINTS:
        raise ValueError(f"points must hold at most {MAX_EXACT_POINTS} values")
    if isinstance(points, np.ndarray):
        points = check_data(points, "points").tolist()
    pts_in = [_exact_value(p, f"points[{i}]") for i, p in enumerate(points)]
    if not pts_in:
        raise ValueError("points must be a non-empty sequence of finite real numbers")
    lo, hi = _exact_value(lo, "lo"), _exact_value(hi, "hi")
    if isinstance(epsilon, mpmath.mpf):
        if not (mpmath.isfinite(epsilon) and epsilon > 0):
            raise ValueError(f"epsilon must be a finite number > 0, got {epsilon}")
    else:
        epsilon = epsilon if isinstance(epsilon, Fraction) else check_epsilon(epsilon)
        if isinstance(epsilon, Fraction) and epsilon <= 0:
            raise ValueError(f"epsilon must be a finite number > 0, got {epsilon}")
    target = check_choice(target, "target", TARGETS)
    pts = sorted(pts_in, key=to_mpf)
    t = slice_target(len(pts), target)
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


__all__ = ["TARGETS", "sample_slices_em", "slice_em_log_density", "slice_target"]
