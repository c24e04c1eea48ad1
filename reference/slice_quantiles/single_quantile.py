"""SingleQuantile on a slice: the exponential mechanism of imola25 App. C.2 (spec §2.2), batched.

For a sorted slice s_1 <= ... <= s_L clipped into the range (lo, hi), with s_0 = lo and
s_{L+1} = hi, interval j = [s_j, s_{j+1}] (j = 0..L) has utility u_j = −|j − t| and is chosen
with probability ∝ (s_{j+1} − s_j)·exp(ε·u_j/2) (utility sensitivity 1 for any neighbour and any
sub-list, so ε-DP); the output is uniform in the chosen interval. Algorithm 1 uses the target
t = ⌊L/2⌋ (``target="paper"``, = h for a slice of 2h + 1 points); the authors' code uses
t = L/2 (``target="authors"``, spec §5 item 10).

:func:`sample_slices_em` draws one output per row of a (k, L) array of slices, each row with its own
range, by the Gumbel-max trick in log space (no underflow for any ε·L); :func:`slice_em_log_density`
is the exact law of one row (mpmath), and the tests tie the two.
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np

from reference.exact.mp import logsumexp, to_mpf, workdps

TARGETS = ("paper", "authors")


def slice_target(length: int, target: str = "paper") -> float:
    """t = ⌊L/2⌋ (paper, Algorithm 1 line 16) or L/2 (authors' code)."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    return float(length // 2) if target == "paper" else length / 2.0


def sample_slices_em(
    slices: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    epsilon: float,
    rng: np.random.Generator,
    target: str = "paper",
) -> np.ndarray:
    """One EM draw per row of ``slices`` (k, L), sorted rows, ranges (lo[k], hi[k]) with lo <= hi."""
    s = np.clip(slices, lo[:, None], hi[:, None])
    edges = np.concatenate([lo[:, None], s, hi[:, None]], axis=1)
    lengths = np.diff(edges, axis=1)
    t = slice_target(slices.shape[1], target)
    j = np.arange(lengths.shape[1])
    with np.errstate(divide="ignore"):
        logw = np.log(lengths) - (epsilon / 2.0) * np.abs(j - t)
    choice = np.argmax(logw + rng.gumbel(size=logw.shape), axis=1)
    rows = np.arange(len(s))
    left = edges[rows, choice]
    width = lengths[rows, choice]
    out = left + rng.random(len(s)) * width
    return np.where(np.isfinite(logw[rows, choice]), out, lo)


def slice_em_log_density(
    points: Any, lo: Any, hi: Any, epsilon: Any, target: str = "paper"
) -> tuple[list[Any], list[mpmath.mpf]]:
    """Exact law of one slice EM: the breakpoints (lo, clipped points, hi, zero-length intervals
    dropped) and the log-density on each interval, mpmath; exact values (Fractions) pass through."""
    pts = sorted(points, key=to_mpf)
    t = slice_target(len(pts), target)
    with workdps():
        lo_m, hi_m = to_mpf(lo), to_mpf(hi)
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
