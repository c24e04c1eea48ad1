"""The float view of a piecewise log-linear density: anchors, normalised piece masses and the
resolution of its float draws.

A piece's log-density is evaluated as ``a·(y − e) + c`` with ``e`` its *anchor* (the right end
when a > 0 or the left end is −inf, else the left end) and ``c = a·e + b`` the log-density there
(``notes/foundation.md``, "Exact laws at the extremes"). ``c`` is taken from floats when its
rounding error bound is below 2^-40 and recomputed exactly otherwise, so neither the float nor the
exact path loses digits to a huge slope times a huge breakpoint.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import mpmath
import numpy as np

from dpquant.reference.distributions.arithmetic import Number, float_logsumexp
from dpquant.reference.exact.mp import MP_NINF, to_mpf, workdps
from dpquant.reference.validation import MAX_FLOAT

# The float log-density at a piece's anchor is trusted when its rounding error bound is below
# this; otherwise it is recomputed exactly.
_FLOAT_TOP_TOLERANCE = 2.0**-40
_LN2 = math.log(2.0)


@dataclass(frozen=True)
class FloatView:
    """The float path of a density of m pieces, normalised (arrays of m entries but ``cum``).

    ``log_mass``: log-mass of each piece; ``log_top``: log-density at each piece's anchor;
    ``log_z``: log-normaliser of the unnormalised density; ``cum``: cumulative piece masses
    (the last is 1)."""

    log_mass: np.ndarray
    log_top: np.ndarray
    log_z: float
    cum: np.ndarray


def anchors(breaks: np.ndarray, slopes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(anchored at the right end?, anchor) of each piece: the right end when the slope is > 0
    or the left end is −inf, else the left end (the end where the density is largest)."""
    left, right = breaks[:-1], breaks[1:]
    anchor_right = (slopes > 0) | np.isneginf(left)
    return anchor_right, np.where(anchor_right, right, left)


def piece_log_shapes(breaks: np.ndarray, slopes: np.ndarray) -> np.ndarray:
    """log ∫_piece exp(a·(y − e)) dy per piece in float (e the anchor), without overflow."""
    x, a = breaks, slopes
    left, right = x[:-1], x[1:]
    half = np.isinf(left) | np.isinf(right)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        w = right - left
        wide = ~half & np.isinf(w)
        logw = np.log(w)
        if wide.any():  # a width that overflows a double: measured in half units
            half_w = right / 2 - left / 2
            logw = np.where(wide, np.log(half_w) + _LN2, logw)
        else:
            half_w = w
        if not a.any():  # piecewise constant (no half-lines then): log of the widths
            return logw
        aw = np.abs(a) * np.where(wide, half_w, w)
        aw = np.where(wide, aw * 2, aw)
        flat = ~half & (aw < 1e-12)
        shape = np.where(flat, logw, np.log(-np.expm1(-aw)) - np.log(np.abs(a)))
    return shape


def float_view(
    slopes: np.ndarray,
    intercepts: np.ndarray,
    anchor: np.ndarray,
    shape: np.ndarray,
    exact_top: Callable[[int], Number],
) -> FloatView:
    """Float log-masses of the pieces, their cumulative sums and each piece's log-density at
    its anchor, all normalised; O(m), vectorised. ``shape``: :func:`piece_log_shapes`;
    ``exact_top(i)``: the exact unnormalised log-density a·e + b at piece i's anchor, called only
    for the pieces whose float value a·e + b has a rounding error above 2^-40 and that are not
    too light to matter (their floats are relatively accurate)."""
    a, b = slopes, intercepts
    live = np.isfinite(b)
    tol = _FLOAT_TOP_TOLERANCE
    with np.errstate(over="ignore", invalid="ignore"):
        prod = a * anchor
        top = np.where(live, prod + b, -np.inf)
        # a·e + b rounds only where a·e is not 0: a flat piece's top is its intercept, exact
        err = np.where(live & (prod != 0), 2.0**-50 * (np.abs(prod) + np.abs(b)), 0.0)
        est = np.where(live, top + shape, -np.inf)
    cand = np.flatnonzero(live & ~(np.isfinite(top) & (err <= tol)))
    trusted = live.copy()
    trusted[cand] = False
    ref = int(np.argmax(np.where(trusted, est, -np.inf))) if trusted.any() else -1
    exact: dict[int, mpmath.mpf] = {}
    if cand.size:
        with np.errstate(over="ignore", invalid="ignore"):
            upper = est[cand] + err[cand]
        upper = np.where(np.isnan(upper), np.inf, upper)
        pending = cand[np.argsort(-upper, kind="stable")]
        while pending.size and ref < 0:  # no trusted piece: the heaviest candidate is ref
            i = int(pending[0])
            pending = pending[1:]
            with workdps():
                exact[i] = to_mpf(exact_top(i))
            if exact[i] != MP_NINF:
                ref = i
        if pending.size and np.isfinite(est[ref]) and np.isfinite(err[ref]):
            # skip candidates far below ref (negligible) whose floats are relatively exact
            floor = est[ref] - err[ref]
            with np.errstate(over="ignore", invalid="ignore"):
                hi = est[pending] + err[pending]
                skip = (
                    np.isfinite(hi)
                    & (hi < floor - 1000.0)
                    & (err[pending] + err[ref] <= tol * (floor - hi))
                )
            pending = pending[~skip]
        with workdps():
            for i in pending.tolist():
                exact[i] = to_mpf(exact_top(i))
    if ref < 0:  # every live piece is zero on the exact path: keep the float view
        ref = int(np.argmax(est))
    with np.errstate(over="ignore", invalid="ignore"):
        rel = np.where(live, top - top[ref], -np.inf)
    base: mpmath.mpf | None = None
    if exact:
        with workdps():
            if ref not in exact:
                exact[ref] = to_mpf(exact_top(ref))
            base = exact[ref]
            if base == MP_NINF:
                ref = max(exact, key=lambda k: exact[k])
                base = exact[ref]
            for i, v in exact.items():
                rel[i] = -np.inf if v == MP_NINF else float(v - base)
            j = int(np.argmax(np.where(live, rel + shape, -np.inf)))
            if j in exact and j != ref:  # re-base on the heaviest piece, exactly
                shift = exact[j] - base
                base = exact[j]
                with np.errstate(invalid="ignore"):
                    rel = rel - float(shift)
                for i, v in exact.items():
                    rel[i] = -np.inf if v == MP_NINF else float(v - base)
    with np.errstate(invalid="ignore"):
        log_mass = np.where(live, rel + shape, -np.inf)
    lse = float_logsumexp(log_mass)
    if not np.isfinite(lse):
        raise ValueError(
            "slopes and intercepts give a density whose float normaliser is not finite"
        )
    cum = np.cumsum(np.exp(log_mass - lse))
    return FloatView(
        log_mass=log_mass - lse,
        log_top=np.where(live, rel - lse, -np.inf),
        log_z=float(base + lse) if base is not None else float(top[ref] + lse),
        cum=cum / cum[-1],
    )


def float_sampling_error(
    breaks: np.ndarray, slopes: np.ndarray, anchor: np.ndarray, view: FloatView
) -> float:
    """An upper bound on sup_y |G(y) − F(y)|, F the law's CDF and G the CDF of its float draws:
    rounding a draw to a double moves it by at most a few float spacings, which moves the CDF by at
    most (largest density nearby) × (spacing); mass beyond ±1.8e308 (where a draw can only be
    clamped) is added."""
    # pieces whose log-density is below −1000 everywhere cannot matter: their spacing is at most
    # 2^971 < e^673 and their mass at most e^(−1000 + 710)
    keep = np.flatnonzero(np.isfinite(view.log_mass) & (view.log_top > -1000.0))
    x = np.concatenate([breaks[keep], breaks[keep + 1]])
    left, right = x[: keep.size], x[keep.size :]
    a = slopes[keep]
    anchor, log_top, log_mass = anchor[keep], view.log_top[keep], view.log_mass[keep]
    live = np.isfinite(log_mass)
    half = np.isinf(left) | np.isinf(right)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        end = np.where(
            half,
            np.where(np.isinf(left), np.abs(right), np.abs(left)),
            np.maximum(np.abs(left), np.abs(right)),
        )
        spacing = np.spacing(np.where(np.isfinite(end), end, 0.0))
        # on a sloped piece the density decays from the anchor e faster than the spacing grows:
        # f(y)·spacing(y) <= f(e)·(spacing(e) + 2^-52/|a|)
        anchored = np.spacing(np.abs(anchor)) + 2.0**-52 / np.abs(a)
        spacing = np.where(a != 0, np.minimum(spacing, anchored), spacing)
        local = 2.0 * np.exp(log_top + np.log(spacing))
        mass = np.exp(log_mass)
        local = local + np.where(half, mass * 2.0**-50, 0.0)
        # mass beyond the largest double on a half-line piece
        gap_left = np.where(np.isneginf(left), right / 2 + MAX_FLOAT / 2, np.inf)
        gap_right = np.where(np.isposinf(right), MAX_FLOAT / 2 - left / 2, np.inf)
        tail = mass * (np.exp(-np.abs(a) * gap_left * 2) + np.exp(-np.abs(a) * gap_right * 2))
    local = np.where(live, np.nan_to_num(local, nan=np.inf), 0.0)
    tail = np.where(live, np.nan_to_num(tail, nan=0.0), 0.0)
    return float(np.max(local, initial=0.0) + np.sum(tail))


def float_cdf(
    y: np.ndarray,
    a: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    before: np.ndarray,
    log_mass: np.ndarray,
    first: np.ndarray,
    last: np.ndarray,
) -> np.ndarray:
    """The cdf of a piecewise log-linear law at ``y``, elementwise: each point with the slope
    ``a`` and the ends ``lo``, ``hi`` of its piece, the mass ``before`` it and the log-mass of the
    piece, and the law's first and last breaks (all arrays of ``y``'s shape). Stable for steep
    and for very wide pieces (a width that overflows a double is measured in half units).

    Args:
        y: The points (±inf allowed).
        a: The slope of each point's piece.
        lo: Its left end.
        hi: Its right end.
        before: The mass of the pieces before it.
        log_mass: Its log-mass.
        first: The law's first break.
        last: The law's last break.

    Returns:
        P(Y <= y), in [0, 1].
    """
    yc = np.clip(y, lo, hi)
    piece = np.exp(log_mass)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        wide = np.isinf(hi - lo) & np.isfinite(lo) & np.isfinite(hi)
        s = np.where(wide, 0.5, 1.0)
        k = a / s
        w = hi * s - lo * s
        t = yc * s - lo * s  # distance from the left end
        r = hi * s - yc * s  # distance to the right end
        frac_flat = t / w
        frac_neg = np.expm1(k * t) / np.expm1(k * w)  # k < 0: both terms in (-1, 0]
        frac_pos = np.exp(-k * r) * (-np.expm1(-k * t)) / (-np.expm1(-k * w))
        frac_left_inf = np.exp(-k * r)  # piece (-inf, hi], a > 0
        frac_right_inf = -np.expm1(k * t)  # piece [lo, inf), a < 0
        frac = np.select(
            [np.isneginf(lo), np.isposinf(hi), np.abs(k * w) < 1e-12, k < 0],
            [frac_left_inf, frac_right_inf, frac_flat, frac_neg],
            frac_pos,
        )
    out = before + piece * np.clip(np.nan_to_num(frac, nan=0.0), 0.0, 1.0)
    out = np.where(y < first, 0.0, np.where(y >= last, 1.0, out))
    return np.clip(out, 0.0, 1.0)


__all__ = [
    "FloatView",
    "anchors",
    "float_cdf",
    "float_sampling_error",
    "float_view",
    "piece_log_shapes",
]
