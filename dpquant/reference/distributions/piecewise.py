"""Piecewise log-linear densities: :class:`PiecewiseLogLinear`, a density on an interval made of
pieces with ``log f(y) = a·y + b``.

It covers the piecewise-constant laws (the exponential mechanism over Smith's intervals), the
truncated and flattened Laplace laws and the tzamos20 extension density. Floats serve the fast
path (``logpdf``, ``cdf``, ``sample``: :mod:`dpquant.reference.distributions.float_path`); optional exact
parameters (:mod:`dpquant.reference.distributions.exact_parameters`) serve the exact path (``*_mp``,
``mass``, the divergences), at :data:`dpquant.reference.exact.mp.DPS` digits.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from dpquant.reference.distributions.arithmetic import (
    Indexed,
    Number,
    affine_exact,
    diff,
    exact_difference,
    extra_digits,
    float_of_log,
    magnitude,
    rational,
)
from dpquant.reference.distributions.exact_parameters import checked_exact, exact_at, exact_or_none
from dpquant.reference.distributions.float_path import (
    anchors,
    float_cdf,
    float_sampling_error,
    float_view,
    piece_log_shapes,
)
from dpquant.reference.distributions.inputs import check_point, exact_real, float_vector
from dpquant.reference.distributions.limits import (
    FLOAT_SAMPLING_TOLERANCE,
    MAX_PIECES,
    NEGLIGIBLE_NATS,
)
from dpquant.reference.distributions.log_integral import log_integral_mp
from dpquant.reference.exact.mp import DPS, MP_NINF, logsumexp, to_mpf, workdps
from dpquant.reference.inverse_cdf import exponential_offset_inverse
from dpquant.reference.validation import (
    MAX_FLOAT,
    check_int,
    check_real_array,
    check_rng,
    check_size,
)


@dataclass(frozen=True)
class Piece:
    """One piece: ``log f(y) = slope·y + intercept`` on [left, right] (unnormalised, exact).

    Attributes:
        left: The piece's left end.
        right: Its right end.
        slope: The slope of its log-density.
        intercept: The intercept of its log-density (-inf for a piece of zero density).
    """

    left: Number
    right: Number
    slope: mpmath.mpf
    intercept: mpmath.mpf

    def __post_init__(self) -> None:
        exact_real(self.left, "left", neg_inf=True, pos_inf=True, fit=False)
        exact_real(self.right, "right", neg_inf=True, pos_inf=True, fit=False)
        exact_real(self.slope, "slope", fit=False)
        exact_real(self.intercept, "intercept", neg_inf=True, fit=False)


class PiecewiseLogLinear:
    """A density on [x_0, x_m] with log f(y) = a_i·y + b_i on [x_i, x_{i+1}] (normalised here).

    The float path (``logpdf``, ``cdf``, ``sample``) and the exact path agree to ~1e-12 in log
    density whatever the magnitudes of the slopes, breaks and intercepts (anchored pieces:
    :mod:`dpquant.reference.distributions.float_path`). :meth:`sample` refuses a law that float64
    cannot resolve (:meth:`float_sampling_error`).

    Args:
        breaks: m + 1 strictly increasing breakpoints; x_0 may be -inf (then a_0 > 0) and x_m
            may be +inf (then a_{m-1} < 0). At most :data:`MAX_PIECES` pieces.
        slopes: m finite numbers a_i.
        intercepts: m numbers b_i; an intercept of -inf marks a piece of zero density.
        exact_breaks: Optional exact breakpoints (``Fraction``, ``int``, ``mpf``, or a lazy
            sequence of them) used by the exact path instead of the floats.
        exact_slopes: Optional exact slopes, likewise.
        exact_intercepts: Optional exact intercepts, likewise. The exact values may differ from
            the floats' law by a constant factor of the density, never otherwise.
        sampling_hint: Text appended to the message of :meth:`sample` when it refuses the law
            (the constructor that built it can say which parameters float64 resolves).

    Raises:
        ValueError: An entry that is not a real number, a NaN, an infinity where none is
            allowed, or a value that does not fit a float64 (naming the parameter and the
            index). Exact values given as lists are checked too; lazy ones when they are used.
    """

    def __init__(
        self,
        breaks: Indexed,
        slopes: Indexed,
        intercepts: Indexed,
        *,
        exact_breaks: Indexed | None = None,
        exact_slopes: Indexed | None = None,
        exact_intercepts: Indexed | None = None,
        sampling_hint: str = "",
    ):
        self.breaks = float_vector(breaks, "breaks", MAX_PIECES + 1, neg_inf=True, pos_inf=True)
        self.slopes = float_vector(slopes, "slopes", MAX_PIECES)
        self.intercepts = float_vector(intercepts, "intercepts", MAX_PIECES, neg_inf=True)
        self._validate()
        self._xb = exact_or_none(breaks, exact_breaks, self.breaks, "exact_breaks", True, True)
        self._xa = exact_or_none(slopes, exact_slopes, self.slopes, "exact_slopes", False, False)
        self._xc = exact_or_none(
            intercepts, exact_intercepts, self.intercepts, "exact_intercepts", True, False
        )
        self._log_z_mp: mpmath.mpf | None = None
        self._breaks_exact: tuple[Number, ...] | None = None
        self._tops: dict[int, Number] = {}
        self._rel_tops: dict[int, mpmath.mpf] = {}
        self._ref_top: Number | None = None
        self._forms: dict[int, tuple[mpmath.mpf, Number, mpmath.mpf] | None] = {}
        self._sampling_error: float | None = None
        if not isinstance(sampling_hint, str):
            raise ValueError(f"sampling_hint must be a string, got {type(sampling_hint).__name__}")
        self._sampling_hint = sampling_hint
        if isinstance(self._xb, list | tuple | np.ndarray):
            self._check_exact_breaks()  # given in full: checked now (lazy ones when used)
        self._anchor_right, self._anchor = anchors(self.breaks, self.slopes)
        self._view = float_view(
            self.slopes,
            self.intercepts,
            self._anchor,
            piece_log_shapes(self.breaks, self.slopes),
            self._exact_top,
        )

    # -- construction ------------------------------------------------------------------------

    def _validate(self) -> None:
        x, a, b = self.breaks, self.slopes, self.intercepts
        m = len(a)
        if len(x) != m + 1 or len(b) != m or m == 0:
            raise ValueError(
                f"breaks must have one more entry than slopes and intercepts (>= 1 piece), got "
                f"{len(x)}, {len(a)}, {len(b)}"
            )
        with np.errstate(over="ignore", invalid="ignore"):
            increasing = bool(np.all(x[1:] > x[:-1]))
        if not increasing:
            raise ValueError("breaks must be strictly increasing")
        if not np.isfinite(x).all():  # checked only when an end is infinite
            self._validate_half_lines()
        if np.isneginf(b).all():
            raise ValueError("intercepts: the density must be positive on at least one piece")

    def _validate_half_lines(self) -> None:
        """Only the first break may be −inf and only the last +inf, each on an integrable piece."""
        x, a, b = self.breaks, self.slopes, self.intercepts
        m = len(a)
        if np.isinf(x[1:-1]).any() or np.isposinf(x[0]) or np.isneginf(x[-1]):
            raise ValueError("breaks: only the first may be -inf and only the last may be +inf")
        if np.isneginf(x[0]) and np.isfinite(b[0]) and not a[0] > 0:
            raise ValueError("slopes[0]: a piece reaching -inf needs a slope > 0 to be integrable")
        if np.isposinf(x[-1]) and np.isfinite(b[-1]) and not a[-1] < 0:
            raise ValueError(
                f"slopes[{m - 1}]: a piece reaching +inf needs a slope < 0 to be integrable"
            )

    # -- float path ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.slopes)

    def __repr__(self) -> str:
        return f"PiecewiseLogLinear({len(self)} pieces on [{self.breaks[0]}, {self.breaks[-1]}])"

    @property
    def support(self) -> tuple[float, float]:
        pos = np.flatnonzero(np.isfinite(self.intercepts))
        return float(self.breaks[pos[0]]), float(self.breaks[pos[-1] + 1])

    @property
    def piece_masses(self) -> np.ndarray:
        """Float mass of every piece (normalised; aligned with ``slopes``)."""
        return np.exp(self._view.log_mass)

    @property
    def log_normalizer(self) -> float:
        """Float log ∫ exp(a·y + b) (unnormalised density); see :attr:`log_normalizer_mp`."""
        return self._view.log_z

    def _piece_of(self, y: np.ndarray) -> np.ndarray:
        return np.clip(np.searchsorted(self.breaks, y, side="right") - 1, 0, len(self) - 1)

    def logpdf(self, y: Any) -> np.ndarray:
        """Normalised log-density, in float, vectorised.

        Args:
            y: Real numbers of any shape (±inf allowed; NaN and non-numbers refused).

        Returns:
            The log-density at each, -inf outside the support.
        """
        y = check_real_array(y, "y", allow_inf=True)
        i = self._piece_of(y)
        a, e = self.slopes[i], self._anchor[i]
        with np.errstate(over="ignore", invalid="ignore"):
            d = y - e
            prod = a * d
            wide = np.isinf(d) & np.isfinite(y)
            prod = np.where(wide, a * (y / 2 - e / 2) * 2, prod)
            prod = np.where(a == 0, 0.0, prod)
            out = self._view.log_top[i] + prod
        inside = (y >= self.breaks[0]) & (y <= self.breaks[-1])
        return np.where(inside & np.isfinite(self._view.log_top[i]), out, -np.inf)

    def pdf(self, y: Any) -> np.ndarray:
        """Normalised density, in float, vectorised.

        Args:
            y: Real numbers of any shape, as for :meth:`logpdf`.

        Returns:
            The density at each.
        """
        return np.exp(self.logpdf(y))

    def cdf(self, y: Any) -> np.ndarray:
        """P(Y <= y) in float, vectorised and stable for steep and for very wide pieces.

        Args:
            y: Real numbers of any shape (±inf allowed; NaN and non-numbers refused).

        Returns:
            The probability at each.
        """
        y = check_real_array(y, "y", allow_inf=True)
        return float_cdf(y, *self._cdf_parts(y))

    def _cdf_parts(self, y: np.ndarray) -> tuple[np.ndarray, ...]:
        """What :func:`float_cdf` reads of the law at each point of ``y`` (checked)."""
        i = self._piece_of(y)
        before = np.concatenate([[0.0], self._view.cum])[i]
        ends = np.broadcast_to(self.breaks[[0, -1]], (*y.shape, 2))
        return (
            self.slopes[i],
            self.breaks[i],
            self.breaks[i + 1],
            before,
            self._view.log_mass[i],
            ends[..., 0],
            ends[..., 1],
        )

    def float_sampling_error(self) -> float:
        """An upper bound on sup_y |G(y) − F(y)|, F the law's CDF and G the CDF of its float
        draws: rounding a draw to a double moves it by at most a few float spacings, which moves
        the CDF by at most (largest density nearby) × (spacing); mass beyond ±1.8e308 (where a
        draw can only be clamped) is added. Below :data:`FLOAT_SAMPLING_TOLERANCE` the float
        sampler is indistinguishable from the law."""
        if self._sampling_error is None:
            self._sampling_error = float_sampling_error(
                self.breaks, self.slopes, self._anchor, self._view
            )
        return self._sampling_error

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Independent draws: the piece by inverse CDF on the piece masses, then the stable
        truncated-exponential inverse inside it (two uniforms a draw, fully vectorised).

        Args:
            size: The draws, 0 (an empty array) to
                :data:`dpquant.reference.validation.MAX_DRAWS`.
            rng: A ``numpy.random.Generator``.

        Returns:
            ``size`` floats.

        Raises:
            ValueError: ``size`` out of range, or a law that float64 cannot resolve
                (:meth:`float_sampling_error` above :data:`FLOAT_SAMPLING_TOLERANCE`): its
                draws, rounded to doubles, would not follow it.
        """
        size, rng = check_size(size), check_rng(rng)
        error = self.float_sampling_error()
        if not error <= FLOAT_SAMPLING_TOLERANCE:
            raise ValueError(
                "this law cannot be sampled in float64: its slopes and breaks put mass on scales "
                "finer than the float spacing (or beyond ±1.8e308), so rounding the draws would "
                f"move its CDF by up to {error:.3g} > FLOAT_SAMPLING_TOLERANCE = "
                f"{FLOAT_SAMPLING_TOLERANCE:g}{self._sampling_hint}"
            )
        i = np.searchsorted(self._view.cum, rng.random(size), side="right")
        i = np.minimum(i, len(self) - 1)
        u = rng.random(size)
        a, lo, hi = self.slopes[i], self.breaks[i], self.breaks[i + 1]
        right = self._anchor_right[i]
        # The offset s from the anchor (the end where the density is largest) has density
        # ∝ exp(−|a|·s) on [0, width]: measured from the anchor, a draw keeps its digits however
        # wide the piece (measured from the far end, left + (width − s) would round to the anchor).
        with np.errstate(over="ignore", invalid="ignore"):
            # a half-line stops at the float range (its mass beyond is in float_sampling_error)
            lo = np.maximum(lo, -MAX_FLOAT)
            hi = np.minimum(hi, MAX_FLOAT)
            width = hi - lo
            wide = np.isinf(width)
            scale = np.where(wide, 2.0, 1.0)  # a width that overflows is measured in half units
            width = np.where(wide, hi / 2 - lo / 2, width)
            rate = np.where(right, -a, a) * scale
        offset = scale * exponential_offset_inverse(u, rate, width)
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.where(right, hi - offset, lo + offset)
        return np.clip(out, lo, hi)

    # -- exact path ---------------------------------------------------------------------------

    def _index(self, i: Any) -> int:
        return check_int(i, "i", minimum=0, maximum=len(self) - 1)

    def piece(self, i: int) -> Piece:
        """Exact parameters of one piece (unnormalised).

        Args:
            i: The piece, 0 to m − 1.

        Returns:
            The piece.
        """
        left, right, slope, intercept = self.exact_parameters(i)
        return Piece(left=left, right=right, slope=to_mpf(slope), intercept=to_mpf(intercept))

    def exact_parameters(self, i: int) -> tuple[Number, Number, Number, Number]:
        """One piece's parameters exactly as given: the input of the interval-arithmetic
        certification.

        Args:
            i: The piece, 0 to m − 1.

        Returns:
            The tuple (left, right, slope, intercept): Fractions, ints, floats or mpf, never
                rounded; breaks as ints, floats or Fractions.
        """
        i = self._index(i)
        xb = self.exact_breaks
        return (
            xb[i],
            xb[i + 1],
            checked_exact(exact_at(self._xa, self.slopes, i), "exact_slopes", i, False),
            checked_exact(exact_at(self._xc, self.intercepts, i), "exact_intercepts", i, True),
        )

    def anchor(self, i: int) -> tuple[Number, Number]:
        """One piece's anchor and its exact unnormalised log-density there.

        Args:
            i: The piece, 0 to m − 1.

        Returns:
            The pair (e, c): the anchor e (the piece's right end when its slope is > 0 or its
                left end is −inf, else its left end) and c = a·e + b (a ``Fraction`` when the
                parameters are rationals, else an mpf; -inf for a zero piece).
        """
        i = self._index(i)
        xb = self.exact_breaks
        return (xb[i + 1] if self._anchor_right[i] else xb[i]), self._exact_top(i)

    def _exact_top(self, i: int) -> Number:
        """The exact unnormalised log-density at piece ``i``'s anchor, a·e + b (cached)."""
        if i not in self._tops:
            left, right, a, b = self.exact_parameters(i)
            e = right if self._anchor_right[i] else left
            self._tops[i] = affine_exact(a, e, b)
        return self._tops[i]

    def _exact_slope(self, i: int) -> mpmath.mpf:
        return to_mpf(checked_exact(exact_at(self._xa, self.slopes, i), "exact_slopes", i, False))

    def reference_log_density(self) -> Number:
        """The exact log-density at the anchor of the heaviest piece: the exact path works with
        log-densities relative to it, so a density of e^(1e308) loses no digit to the normaliser."""
        if self._ref_top is None:
            for i in np.argsort(-self._view.log_mass, kind="stable")[:1000].tolist():
                top = self._exact_top(int(i))
                if not (isinstance(top, mpmath.mpf) and top == MP_NINF):
                    self._ref_top = top
                    break
            else:
                raise ValueError("exact_intercepts give a density that is zero everywhere")
        return self._ref_top

    def _rel_top(self, i: int) -> mpmath.mpf:
        """Piece ``i``'s exact log-density at its anchor minus the reference's (-inf for a zero
        piece), computed without cancellation: exactly for rationals, else with extra digits."""
        if i not in self._rel_tops:
            top, ref = self._exact_top(i), self.reference_log_density()
            if isinstance(top, mpmath.mpf) and top == MP_NINF:
                self._rel_tops[i] = MP_NINF
            else:
                self._rel_tops[i] = exact_difference(top, ref)
        return self._rel_tops[i]

    def _log_mass_between(self, i: int, lo: Number, hi: Number) -> mpmath.mpf:
        """Exact log ∫_lo^hi of piece ``i``'s density relative to the reference (``lo``, ``hi``
        inside the piece)."""
        top = self._rel_top(i)
        if top == MP_NINF:
            return MP_NINF
        e = self.exact_breaks[i + 1 if self._anchor_right[i] else i]
        return log_integral_mp(self._exact_slope(i), top, diff(lo, e), diff(hi, e))

    def _piece_log_mass_mp(self, i: int) -> mpmath.mpf:
        xb = self.exact_breaks
        return self._log_mass_between(i, xb[i], xb[i + 1])

    @property
    def _log_z_rel(self) -> mpmath.mpf:
        """Exact log ∫ of the density relative to the reference (skips pieces below e^-350)."""
        if self._log_z_mp is None:
            with workdps():
                log_mass = self._view.log_mass
                keep = np.flatnonzero(log_mass >= np.max(log_mass) - NEGLIGIBLE_NATS)
                self._log_z_mp = logsumexp(self._piece_log_mass_mp(int(i)) for i in keep)
            if not mpmath.isfinite(self._log_z_mp):
                raise ValueError("the exact parameters give a density whose mass is not finite")
        return self._log_z_mp

    @property
    def log_normalizer_mp(self) -> mpmath.mpf:
        """Exact log ∫ exp(a y + b) over all pieces (skips pieces below e^-350 relative); the
        digits of a huge log-density (1e308) are kept."""
        ref = self.reference_log_density()
        with workdps():
            bits = magnitude(to_mpf(ref))
        with mpmath.workdps(DPS + max(0, extra_digits(bits))):
            return to_mpf(ref) + self._log_z_rel

    def normalised_form(self, i: int) -> tuple[mpmath.mpf, Number, mpmath.mpf] | None:
        """One piece's normalised log-density, exactly: log f(y) = a·(y − e) + c on the piece.

        Args:
            i: The piece, 0 to m − 1.

        Returns:
            The triple (a, e, c): the slope, the anchor and the normalised log-density at the
                anchor; None for a piece of zero density.
        """
        if type(i) is not int or not 0 <= i < len(self):
            i = self._index(i)
        if i not in self._forms:
            top = self._rel_top(i)
            if top == MP_NINF:
                self._forms[i] = None
            else:
                e = self.exact_breaks[i + 1 if self._anchor_right[i] else i]
                with workdps():
                    self._forms[i] = (self._exact_slope(i), e, top - self._log_z_rel)
        return self._forms[i]

    def logpdf_mp(self, y: Number) -> mpmath.mpf:
        """Exact normalised log-density at a point.

        Args:
            y: A real number.

        Returns:
            The log-density (the right-continuous version at breakpoints).
        """
        y = check_point(y, "y")
        i = self._exact_piece_index(y)
        if i is None:
            return MP_NINF
        form = self.normalised_form(i)
        if form is None:
            return MP_NINF
        a, e, c = form
        with workdps():
            return c if a == 0 else a * diff(y, e) + c

    def cdf_mp(self, y: Number) -> mpmath.mpf:
        """Exact P(Y <= y).

        Args:
            y: A real number.

        Returns:
            The probability.
        """
        y = check_point(y, "y")
        return self.mass(self.exact_breaks[0], y)

    def mass(self, lo: Number, hi: Number) -> mpmath.mpf:
        """Exact P(lo <= Y <= hi).

        The (at most two) pieces cut by the ends are integrated exactly, and so is every piece
        inside whose float mass is within e^-350 of the largest term; lighter pieces change the
        result by less than (pieces)·e^-350 relative, far below the working precision.

        Args:
            lo: The lower end, real (±inf allowed, NaN refused).
            hi: The upper end, likewise.

        Returns:
            The probability; 0 when lo >= hi.
        """
        lo, hi = check_point(lo, "lo"), check_point(hi, "hi")
        with workdps():
            if not lo < hi:
                return mpmath.mpf(0)
            xb = self.exact_breaks
            m = len(self)
            first = max(bisect.bisect_right(xb, lo) - 1, 0)
            last = min(bisect.bisect_left(xb, hi) - 1, m - 1)
            if last < first:
                return mpmath.mpf(0)
            log_z = self._log_z_rel
            terms, partial = [], []
            for i in {first, last}:
                cl, cr = max(xb[i], lo), min(xb[i + 1], hi)
                if cl < cr:
                    partial.append(self._log_mass_between(i, cl, cr))
            inner = np.arange(first + 1, last)
            if inner.size:
                floats = self._view.log_mass[inner]
                top = max(
                    float(np.max(floats)),
                    max((float_of_log(t - log_z) for t in partial), default=-np.inf),
                )
                keep = inner[floats >= top - NEGLIGIBLE_NATS]
                terms = [self._piece_log_mass_mp(int(i)) for i in keep]
            return mpmath.exp(logsumexp(partial + terms) - log_z)

    def total_mass(self) -> mpmath.mpf:
        """Exact total mass: :meth:`mass` over the whole support, every piece integrated again
        (none skipped but the negligible ones, < e^-350 relative); 1 to the working precision."""
        xb = self.exact_breaks
        return self.mass(xb[0], xb[-1])

    @property
    def exact_breaks(self) -> tuple[Number, ...]:
        """The exact breakpoints as ints, floats or Fractions (computed once: the law is
        immutable)."""
        return self._check_exact_breaks()

    def _check_exact_breaks(self) -> tuple[Number, ...]:
        if self._breaks_exact is None:
            out = []
            for i in range(len(self) + 1):
                v = exact_at(self._xb, self.breaks, i)
                v = checked_exact(v, "exact_breaks", i, True, pos_inf=True)
                out.append(rational(v))
            if any(not x < y for x, y in zip(out[:-1], out[1:], strict=True)):
                raise ValueError("exact_breaks must be strictly increasing")
            self._breaks_exact = tuple(out)
        return self._breaks_exact

    def _exact_piece_index(self, y: Number) -> int | None:
        xb = self.exact_breaks
        if y < xb[0] or y > xb[-1]:
            return None
        return min(bisect.bisect_right(xb, y) - 1, len(self) - 1)

    def log_density_at_cell(self, left: Number, right: Number) -> tuple[mpmath.mpf, mpmath.mpf]:
        """The normalised log-density on a cell, exactly.

        Args:
            left: The cell's left end.
            right: Its right end; the cell lies inside one piece.

        Returns:
            (slope, normalised intercept) of the piece containing the cell; the intercept is
                -inf where the density is zero.
        """
        left, right = check_point(left, "left"), check_point(right, "right")
        xb = self.exact_breaks
        if left < xb[0] or right > xb[-1]:
            return mpmath.mpf(0), MP_NINF
        i = min(bisect.bisect_right(xb, left) - 1, len(self) - 1)
        form = self.normalised_form(i)
        if form is None:
            return self._exact_slope(i), MP_NINF
        a, e, c = form
        with mpmath.workdps(DPS + 20):
            return a, c - a * to_mpf(e)


__all__ = ["Piece", "PiecewiseLogLinear"]
