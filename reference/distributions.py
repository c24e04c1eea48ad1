"""Exact output laws and the divergences between them.

Two laws cover every mechanism of this project:

* :class:`DiscreteLaw` -- finitely many atoms with log-probabilities at mpmath precision;
* :class:`PiecewiseLogLinear` -- a density on an interval made of pieces with
  ``log f(y) = a·y + b`` (piecewise-constant, truncated and flattened Laplace, the exponential
  mechanism over Smith's intervals, the tzamos20 extension density).

Each law has a float fast path (``logpdf``/``cdf``/``sample``, vectorised numpy) and an exact path
(``*_mp`` methods, ``mass``; mpmath at :data:`reference.exact.mp.DPS` digits). Between two laws of
the same kind: the exact privacy loss :func:`privacy_loss` (sup |log f − log g| over the merged
breakpoints, infinite when the supports differ), the hockey-stick divergence :func:`hockey_stick`
δ(ε) and the Rényi divergence :func:`renyi_divergence` of any order α.

Exact parameters: a law stores floats for speed and, optionally, exact values (``Fraction``, ``int``,
``mpf``) for the exact path; ``exact_*`` arguments may be lazy sequences (anything with
``__getitem__``) so that a law with 10^6 pieces costs nothing until its exact path is used.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol, runtime_checkable

import mpmath
import numpy as np

from reference.exact.mp import MP_INF, MP_NINF, logsumexp, to_mpf, workdps
from reference.sampling import truncated_exponential_inverse
from reference.validation import check_rng, check_size

Number = float | int | Fraction | mpmath.mpf

# Pieces whose float log-mass lies this far below the largest contribute < e^-350 relative to the
# normaliser: far below the 60-digit working precision, so the exact normaliser may skip them.
_NEGLIGIBLE_NATS = 350.0


@runtime_checkable
class ExactDistribution(Protocol):
    """What every exact law offers."""

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray: ...

    def cdf(self, y: Any) -> np.ndarray: ...

    def mass(self, lo: Number, hi: Number) -> mpmath.mpf: ...


# --------------------------------------------------------------------------------------------
# Finite discrete laws
# --------------------------------------------------------------------------------------------


class DiscreteLaw:
    """A finite discrete law: distinct atoms and their log-probabilities (mpf).

    ``log_weights`` need not be normalised; atoms with weight 0 (log-weight -inf) are dropped and
    repeated atoms are merged. Atoms may be numbers (then the law has a ``cdf`` and the support is
    sorted) or any hashable label, such as the name of an exception.
    """

    def __init__(self, support: Sequence[Hashable], log_weights: Sequence[Number]):
        if len(support) != len(log_weights):
            raise ValueError(
                f"support and log_weights must have the same length, got {len(support)} and "
                f"{len(log_weights)}"
            )
        merged: dict[Hashable, list[mpmath.mpf]] = {}
        with workdps():
            for atom, lw in zip(support, log_weights, strict=True):
                value = to_mpf(lw)
                if mpmath.isnan(value) or value == MP_INF:
                    raise ValueError(f"log_weights must be finite or -inf, got {lw!r} for {atom!r}")
                if value != MP_NINF:
                    merged.setdefault(_atom_key(atom), []).append(value)
            if not merged:
                raise ValueError("log_weights must give positive weight to at least one atom")
            atoms = list(merged)
            self.numeric = all(_is_number(a) for a in atoms)
            if self.numeric:
                atoms.sort()
            logw = [logsumexp(merged[a]) for a in atoms]
            log_z = logsumexp(logw)
            self.support: tuple[Hashable, ...] = tuple(atoms)
            self.logp: tuple[mpmath.mpf, ...] = tuple(w - log_z for w in logw)
        self._index = {a: i for i, a in enumerate(self.support)}
        self._p_float = np.array([float(mpmath.exp(lp)) for lp in self.logp])
        self._logp_float = np.array([float(lp) for lp in self.logp])
        cum = np.cumsum(self._p_float)
        self._cum = cum / cum[-1]

    @classmethod
    def from_probabilities(
        cls, support: Sequence[Hashable], probabilities: Sequence[Number]
    ) -> DiscreteLaw:
        """Build from probabilities (Fractions stay exact up to the final logarithm)."""
        logs = []
        for p in probabilities:
            value = to_mpf(p)
            if value < 0 or mpmath.isnan(value):
                raise ValueError(f"probabilities must be >= 0, got {p!r}")
            logs.append(MP_NINF if value == 0 else mpmath.log(value))
        return cls(support, logs)

    def __len__(self) -> int:
        return len(self.support)

    def __repr__(self) -> str:
        return f"DiscreteLaw({len(self)} atoms)"

    @property
    def probabilities(self) -> np.ndarray:
        """Atom probabilities as floats (aligned with ``support``)."""
        return self._p_float.copy()

    def logpmf_mp(self, atom: Hashable) -> mpmath.mpf:
        i = self._index.get(_atom_key(atom))
        return MP_NINF if i is None else self.logp[i]

    def pmf_mp(self, atom: Hashable) -> mpmath.mpf:
        with workdps():
            return mpmath.exp(self.logpmf_mp(atom))

    def logpmf(self, atoms: Any) -> np.ndarray:
        """Float log-probabilities of ``atoms`` (vectorised; -inf off the support)."""
        arr = np.atleast_1d(np.asarray(atoms, dtype=float if self.numeric else object))
        out = np.full(arr.shape, -np.inf)
        if self.numeric and all(isinstance(a, int | float) for a in self.support):
            support = self._numeric_support()  # sorted; exact float atoms
            idx = np.clip(np.searchsorted(support, arr), 0, len(support) - 1)
            return np.where(support[idx] == arr, self._logp_float[idx], -np.inf)
        for k, a in enumerate(arr.ravel()):
            i = self._index.get(_atom_key(a))
            if i is not None:
                out.flat[k] = self._logp_float[i]
        return out

    def cdf(self, y: Any) -> np.ndarray:
        """P(X <= y), vectorised (numeric atoms only)."""
        support = self._numeric_support()
        idx = np.searchsorted(support, np.asarray(y, dtype=float), side="right")
        return np.concatenate([[0.0], self._cum])[idx]

    def mass(self, lo: Number, hi: Number) -> mpmath.mpf:
        """Exact P(lo <= X <= hi) (numeric atoms only)."""
        self._numeric_support()
        with workdps():
            terms = [lp for a, lp in zip(self.support, self.logp, strict=True) if lo <= a <= hi]
            return mpmath.exp(logsumexp(terms))

    def probability(self, event: Callable[[Hashable], bool]) -> mpmath.mpf:
        """Exact P(event(X)) for a predicate on atoms."""
        with workdps():
            return mpmath.exp(
                logsumexp(lp for a, lp in zip(self.support, self.logp, strict=True) if event(a))
            )

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent draws by inverse CDF (one uniform each, vectorised)."""
        size, rng = check_size(size), check_rng(rng)
        idx = np.searchsorted(self._cum, rng.random(size), side="right")
        idx = np.minimum(idx, len(self.support) - 1)
        values = self._numeric_support() if self.numeric else np.array(self.support, dtype=object)
        return values[idx]

    def _numeric_support(self) -> np.ndarray:
        if not self.numeric:
            raise ValueError("this law has non-numeric atoms: cdf and mass need numbers")
        return np.array([float(a) for a in self.support])


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float | Fraction | np.integer | np.floating) and not isinstance(
        x, bool
    )


def _atom_key(x: Any) -> Hashable:
    """Normalise numpy scalars so that 1, 1.0 and np.float64(1) are one atom."""
    if isinstance(x, np.generic):
        return x.item()
    return x


# --------------------------------------------------------------------------------------------
# Piecewise log-linear densities
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """One piece: ``log f(y) = slope·y + intercept`` on [left, right] (unnormalised, exact)."""

    left: Number
    right: Number
    slope: mpmath.mpf
    intercept: mpmath.mpf


class PiecewiseLogLinear:
    """A density on [x_0, x_m] with log f(y) = a_i·y + b_i on [x_i, x_{i+1}] (normalised here).

    Parameters
    ----------
    breaks : m + 1 strictly increasing breakpoints; x_0 may be -inf (then a_0 > 0) and x_m may be
        +inf (then a_{m-1} < 0).
    slopes, intercepts : m numbers each; an intercept of -inf marks a piece of zero density.
    exact_breaks, exact_slopes, exact_intercepts : optional exact values (``Fraction``, ``int``,
        ``mpf``, or lazy sequences of them) used by the exact path instead of the floats.
    """

    def __init__(
        self,
        breaks: Sequence[Number],
        slopes: Sequence[Number],
        intercepts: Sequence[Number],
        *,
        exact_breaks: Sequence[Number] | None = None,
        exact_slopes: Sequence[Number] | None = None,
        exact_intercepts: Sequence[Number] | None = None,
    ):
        self._xb = _exact_or_none(breaks, exact_breaks)
        self._xa = _exact_or_none(slopes, exact_slopes)
        self._xc = _exact_or_none(intercepts, exact_intercepts)
        self.breaks, self.slopes, self.intercepts = (
            _float_array(breaks),
            _float_array(slopes),
            _float_array(intercepts),
        )
        self._validate()
        self._float_path()
        self._log_z_mp: mpmath.mpf | None = None
        self._breaks_exact: list[Number] | None = None

    # -- construction ------------------------------------------------------------------------

    def _validate(self) -> None:
        x, a, b = self.breaks, self.slopes, self.intercepts
        m = len(a)
        if x.ndim != 1 or len(x) != m + 1 or len(b) != m or m == 0:
            raise ValueError(
                f"breaks must have one more entry than slopes and intercepts (>= 1 piece), got "
                f"{len(x)}, {len(a)}, {len(b)}"
            )
        if np.isnan(x).any() or np.isnan(a).any() or np.isnan(b).any():
            raise ValueError("breaks, slopes and intercepts must not contain NaN")
        if not np.all(np.diff(x) > 0):
            raise ValueError("breaks must be strictly increasing")
        if np.isinf(x[1:-1]).any() or np.isposinf(x[0]) or np.isneginf(x[-1]):
            raise ValueError("only the first break may be -inf and only the last may be +inf")
        if not np.all(np.isfinite(a)):
            raise ValueError("slopes must be finite")
        if np.isposinf(b).any():
            raise ValueError("intercepts must be finite or -inf (a zero piece)")
        if np.isneginf(x[0]) and np.isfinite(b[0]) and not a[0] > 0:
            raise ValueError("a piece reaching -inf needs a slope > 0 to be integrable")
        if np.isposinf(x[-1]) and np.isfinite(b[-1]) and not a[-1] < 0:
            raise ValueError("a piece reaching +inf needs a slope < 0 to be integrable")
        if np.isneginf(b).all():
            raise ValueError("the density must be positive on at least one piece")

    def _float_path(self) -> None:
        """Float log-masses of the pieces, their cumulative sums and each piece's log f at the
        end where it is largest (the anchor), all normalised; O(m), vectorised."""
        x, a, b = self.breaks, self.slopes, self.intercepts
        left, right = x[:-1], x[1:]
        live = np.isfinite(b)
        flat = live & (a == 0)
        steep = live & (a != 0)
        log_mass = np.full(len(a), -np.inf)
        log_top = np.where(live, b, -np.inf)
        log_mass[flat] = b[flat] + np.log(right[flat] - left[flat])
        if steep.any():
            al, bl, lo, hi = a[steep], b[steep], left[steep], right[steep]
            anchor = np.where((al > 0) | np.isneginf(lo), hi, lo)
            top = al * anchor + bl
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                aw = np.abs(al) * (hi - lo)  # +inf for a half-line piece
                shape = np.where(
                    aw < 1e-12,
                    np.log(hi - lo),  # numerically flat piece (never a half-line: |a| > 0 there)
                    np.log(-np.expm1(-aw)) - np.log(np.abs(al)),
                )
            log_top[steep] = top
            log_mass[steep] = top + shape
        peak = np.max(log_mass)
        self._log_z = float(peak + np.log(np.sum(np.exp(log_mass - peak))))
        self._log_mass = log_mass - self._log_z  # normalised
        self._cum = np.cumsum(np.exp(self._log_mass))
        self._cum /= self._cum[-1]
        self._log_top = log_top - self._log_z

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
    def log_normalizer(self) -> float:
        return self._log_z

    def _piece_of(self, y: np.ndarray) -> np.ndarray:
        return np.clip(np.searchsorted(self.breaks, y, side="right") - 1, 0, len(self) - 1)

    def logpdf(self, y: Any) -> np.ndarray:
        """Normalised log-density (float, vectorised; -inf outside the support)."""
        y = np.asarray(y, dtype=float)
        i = self._piece_of(y)
        with np.errstate(invalid="ignore"):
            anchor = np.where(
                (self.slopes[i] > 0) | np.isneginf(self.breaks[i]),
                self.breaks[i + 1],
                self.breaks[i],
            )
            out = self._log_top[i] + self.slopes[i] * (y - anchor)
        inside = (y >= self.breaks[0]) & (y <= self.breaks[-1])
        return np.where(inside & np.isfinite(self._log_top[i]), out, -np.inf)

    def pdf(self, y: Any) -> np.ndarray:
        return np.exp(self.logpdf(y))

    def cdf(self, y: Any) -> np.ndarray:
        """P(Y <= y) in float, vectorised and stable for steep pieces."""
        y = np.asarray(y, dtype=float)
        i = self._piece_of(y)
        a = self.slopes[i]
        lo, hi = self.breaks[i], self.breaks[i + 1]
        yc = np.clip(y, lo, hi)
        before = np.concatenate([[0.0], self._cum])[i]
        piece = np.exp(self._log_mass[i])
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            # fraction of the piece's mass below yc: truncated-exponential CDF.
            w = hi - lo
            frac_flat = (yc - lo) / w
            frac_neg = np.expm1(a * (yc - lo)) / np.expm1(a * w)  # a < 0: both terms in (-1, 0]
            frac_pos = np.exp(a * (yc - hi)) * (-np.expm1(-a * (yc - lo))) / (-np.expm1(-a * w))
            frac_left_inf = np.exp(a * (yc - hi))  # piece (-inf, hi], a > 0
            frac_right_inf = -np.expm1(a * (yc - lo))  # piece [lo, inf), a < 0
            frac = np.select(
                [np.isneginf(lo), np.isposinf(hi), np.abs(a * w) < 1e-12, a < 0],
                [frac_left_inf, frac_right_inf, frac_flat, frac_neg],
                frac_pos,
            )
        out = before + piece * np.nan_to_num(frac, nan=0.0)
        out = np.where(y < self.breaks[0], 0.0, np.where(y >= self.breaks[-1], 1.0, out))
        return np.clip(out, 0.0, 1.0)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws: the piece by inverse CDF on the piece masses, then the stable
        truncated-exponential inverse inside it (two uniforms a draw, fully vectorised)."""
        size, rng = check_size(size), check_rng(rng)
        i = np.searchsorted(self._cum, rng.random(size), side="right")
        i = np.minimum(i, len(self) - 1)
        return truncated_exponential_inverse(
            rng.random(size), self.slopes[i], self.breaks[i], self.breaks[i + 1]
        )

    # -- exact path ---------------------------------------------------------------------------

    def piece(self, i: int) -> Piece:
        """Exact parameters of piece ``i`` (unnormalised)."""
        return Piece(
            left=_exact_at(self._xb, self.breaks, i),
            right=_exact_at(self._xb, self.breaks, i + 1),
            slope=to_mpf(_exact_at(self._xa, self.slopes, i)),
            intercept=to_mpf(_exact_at(self._xc, self.intercepts, i)),
        )

    def exact_parameters(self, i: int) -> tuple[Number, Number, Number, Number]:
        """(left, right, slope, intercept) of piece ``i`` exactly as given (Fractions, ints, floats
        or mpf, never rounded): the input of the interval-arithmetic certification."""
        return (
            _exact_at(self._xb, self.breaks, i),
            _exact_at(self._xb, self.breaks, i + 1),
            _exact_at(self._xa, self.slopes, i),
            _exact_at(self._xc, self.intercepts, i),
        )

    def _piece_log_mass_mp(self, i: int) -> mpmath.mpf:
        p = self.piece(i)
        return log_integral_exp_linear(p.slope, p.intercept, p.left, p.right)

    @property
    def log_normalizer_mp(self) -> mpmath.mpf:
        """Exact log ∫ exp(a y + b) over all pieces (skips pieces below e^-350 relative)."""
        if self._log_z_mp is None:
            with workdps():
                keep = np.flatnonzero(self._log_mass >= np.max(self._log_mass) - _NEGLIGIBLE_NATS)
                self._log_z_mp = logsumexp(self._piece_log_mass_mp(int(i)) for i in keep)
        return self._log_z_mp

    def logpdf_mp(self, y: Number) -> mpmath.mpf:
        """Exact normalised log-density at ``y`` (the right-continuous version at breakpoints)."""
        i = self._exact_piece_index(y)
        if i is None:
            return MP_NINF
        p = self.piece(i)
        with workdps():
            if p.intercept == MP_NINF:
                return MP_NINF
            return p.slope * to_mpf(y) + p.intercept - self.log_normalizer_mp

    def cdf_mp(self, y: Number) -> mpmath.mpf:
        """Exact P(Y <= y)."""
        return self.mass(self._exact_breaks(0), y)

    def mass(self, lo: Number, hi: Number) -> mpmath.mpf:
        """Exact P(lo <= Y <= hi)."""
        with workdps():
            if not lo < hi:
                return mpmath.mpf(0)
            xb = self._exact_list()
            terms = []
            first = max(bisect.bisect_right(xb, lo) - 1, 0)
            for i in range(first, len(self)):
                left, right = xb[i], xb[i + 1]
                if left >= hi:
                    break
                cl, cr = max(left, lo), min(right, hi)
                if cl < cr:
                    p = self.piece(i)
                    terms.append(log_integral_exp_linear(p.slope, p.intercept, cl, cr))
            return mpmath.exp(logsumexp(terms) - self.log_normalizer_mp)

    def _exact_breaks(self, i: int) -> Number:
        return _exact_at(self._xb, self.breaks, i)

    def _exact_list(self) -> list[Number]:
        """The exact breakpoints (computed once: the law is immutable)."""
        if self._breaks_exact is None:
            self._breaks_exact = [self._exact_breaks(i) for i in range(len(self) + 1)]
        return self._breaks_exact

    def _exact_piece_index(self, y: Number) -> int | None:
        xb = self._exact_list()
        if y < xb[0] or y > xb[-1]:
            return None
        return min(bisect.bisect_right(xb, y) - 1, len(self) - 1)

    def log_density_at_cell(self, left: Number, right: Number) -> tuple[mpmath.mpf, mpmath.mpf]:
        """(slope, normalised intercept) of the piece containing the cell (left, right), exactly;
        the intercept is -inf where the density is zero."""
        xb = self._exact_list()
        if left < xb[0] or right > xb[-1]:
            return mpmath.mpf(0), MP_NINF
        i = min(bisect.bisect_right(xb, left) - 1, len(self) - 1)
        p = self.piece(i)
        return p.slope, p.intercept - self.log_normalizer_mp


def _float_array(values: Sequence[Number]) -> np.ndarray:
    if isinstance(values, np.ndarray) and values.dtype != object:
        return values.astype(float, copy=False)
    return np.array([float(v) for v in values], dtype=float)


def _exact_or_none(
    values: Sequence[Number], exact: Sequence[Number] | None
) -> Sequence[Number] | None:
    if exact is not None:
        if len(exact) != len(values):
            raise ValueError("exact parameters must have the same length as the float ones")
        return exact
    if isinstance(values, np.ndarray) and values.dtype != object:
        return None
    if any(isinstance(v, Fraction | mpmath.mpf) for v in values):
        return list(values)
    return None


def _exact_at(exact: Sequence[Number] | None, floats: np.ndarray, i: int) -> Number:
    if exact is not None:
        return exact[i]
    return float(floats[i])


class ProductLaw:
    """The law of a vector of independent coordinates, coordinate i drawn from ``components[i]``
    (each a :class:`DiscreteLaw` with numeric atoms or a :class:`PiecewiseLogLinear`): the output
    of a mechanism that releases k statistics with independent randomness (k quantiles, say).

    Divergences between two product laws of the same shape are exact: the log-likelihood ratio is
    a sum of per-coordinate ratios, so its essential sup is the sum of theirs and Rényi divergences
    add up; the hockey-stick divergence is summed over the product of the coordinates' cells (atoms
    or pieces), which needs piecewise-constant or discrete coordinates.
    """

    def __init__(self, components: Sequence[DiscreteLaw | PiecewiseLogLinear]):
        comps = tuple(components)
        if not comps:
            raise ValueError("components must be a non-empty sequence of laws")
        for i, c in enumerate(comps):
            numeric = isinstance(c, DiscreteLaw) and c.numeric
            if not (numeric or isinstance(c, PiecewiseLogLinear)):
                raise ValueError(
                    f"components[{i}] must be a numeric DiscreteLaw or a PiecewiseLogLinear, "
                    f"got {c!r}"
                )
        self.components = comps

    def __len__(self) -> int:
        return len(self.components)

    def __repr__(self) -> str:
        return f"ProductLaw({', '.join(map(repr, self.components))})"

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws, shape (size, k): the coordinates drawn one after another."""
        size, rng = check_size(size), check_rng(rng)
        return np.column_stack([c.sample(size, rng) for c in self.components]).astype(float)

    def logpdf(self, y: Any) -> np.ndarray:
        """Sum of the coordinates' float log-densities (log-probabilities for atoms), (n, k) in."""
        y = np.asarray(y, dtype=float).reshape(-1, len(self))
        total = np.zeros(len(y))
        for i, c in enumerate(self.components):
            total = total + (c.logpmf(y[:, i]) if isinstance(c, DiscreteLaw) else c.logpdf(y[:, i]))
        return total


def _same_shape(p: ProductLaw, q: ProductLaw) -> None:
    kinds = [type(c) for c in p.components], [type(c) for c in q.components]
    if kinds[0] != kinds[1]:
        raise ValueError("product laws must have the same number and kinds of coordinates")


MAX_PRODUCT_CELLS = 200_000


def _cells_mp(p: DiscreteLaw | PiecewiseLogLinear, q: DiscreteLaw | PiecewiseLogLinear):
    """Exact (mass under p, mass under q) of the cells on which both laws are constant: the
    atoms, or the merged pieces of two piecewise-constant densities."""
    if isinstance(p, DiscreteLaw):
        atoms = list(dict.fromkeys([*p.support, *q.support]))
        return [(p.pmf_mp(a), q.pmf_mp(a)) for a in atoms]
    cells = []
    for left, right, ap, bp, aq, bq in _cell_forms(p, q):
        if ap != 0 or aq != 0:
            raise ValueError(
                "the hockey-stick divergence of a product law needs piecewise-constant "
                "coordinates (a sloped piece was found)"
            )
        width = to_mpf(right) - to_mpf(left)
        cells.append(
            (
                mpmath.exp(bp) * width if bp != MP_NINF else mpmath.mpf(0),
                mpmath.exp(bq) * width if bq != MP_NINF else mpmath.mpf(0),
            )
        )
    return cells


def _product_hockey_stick(p: ProductLaw, q: ProductLaw, eps: mpmath.mpf) -> mpmath.mpf:
    _same_shape(p, q)
    cells = [_cells_mp(a, b) for a, b in zip(p.components, q.components, strict=True)]
    count = 1
    for c in cells:
        count *= len(c)
    if count > MAX_PRODUCT_CELLS:
        raise ValueError(
            f"the product law has {count} cells, more than MAX_PRODUCT_CELLS = {MAX_PRODUCT_CELLS}"
        )
    # Float prefilter in log space: a combination whose float log ratio is below ε − 1e-6 has
    # p − e^ε q < 0 exactly (the float error of a sum of k logs is ~1e-15, far below the margin);
    # the others are summed exactly.
    logs = [
        (np.array([_float_log(a) for a, _ in c]), np.array([_float_log(b) for _, b in c]))
        for c in cells
    ]
    lp = np.zeros(1)
    lq = np.zeros(1)
    for a, b in logs:
        lp, lq = np.add.outer(lp, a).ravel(), np.add.outer(lq, b).ravel()
    with np.errstate(invalid="ignore"):
        keep = np.flatnonzero(np.isfinite(lp) & ~(lp - lq < float(eps) - 1e-6))
    shape = [len(c) for c in cells]
    factor = mpmath.exp(eps)
    total = mpmath.mpf(0)
    for flat in keep:
        index = np.unravel_index(flat, shape)
        mp_, mq = mpmath.mpf(1), mpmath.mpf(1)
        for coordinate, j in zip(cells, index, strict=True):
            mp_, mq = mp_ * coordinate[j][0], mq * coordinate[j][1]
        diff = mp_ - factor * mq
        if diff > 0:
            total += diff
    return total


def _float_log(x: mpmath.mpf) -> float:
    return -np.inf if x == 0 else float(mpmath.log(x))


def log_integral_exp_linear(a: Number, b: Number, left: Number, right: Number) -> mpmath.mpf:
    """Exact log ∫_left^right exp(a·y + b) dy (mpmath); ends may be infinite where integrable."""
    with workdps():
        a, b = to_mpf(a), to_mpf(b)
        if b == MP_NINF:
            return MP_NINF
        lo, hi = to_mpf(left), to_mpf(right)
        if not lo < hi:
            return MP_NINF
        if mpmath.isinf(lo) or mpmath.isinf(hi):
            if mpmath.isinf(lo) and mpmath.isinf(hi):
                return MP_INF
            if mpmath.isinf(hi):
                if a >= 0:
                    return MP_INF
                return a * lo + b - mpmath.log(-a)
            if a <= 0:
                return MP_INF
            return a * hi + b - mpmath.log(a)
        w = hi - lo
        if a == 0:
            return b + mpmath.log(w)
        if a > 0:
            return a * hi + b + mpmath.log(-mpmath.expm1(-a * w)) - mpmath.log(a)
        return a * lo + b + mpmath.log(-mpmath.expm1(a * w)) - mpmath.log(-a)


# --------------------------------------------------------------------------------------------
# Divergences between two laws
# --------------------------------------------------------------------------------------------


def _merged_cells(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> list[tuple[Number, Number]]:
    points = sorted(set(p._exact_list()) | set(q._exact_list()), key=lambda v: to_mpf(v))
    return [(points[k], points[k + 1]) for k in range(len(points) - 1)]


def _cell_forms(p: PiecewiseLogLinear, q: PiecewiseLogLinear):
    """Yield (left, right, a_p, b_p, a_q, b_q) per merged cell, normalised intercepts, exact."""
    for left, right in _merged_cells(p, q):
        ap, bp = p.log_density_at_cell(left, right)
        aq, bq = q.log_density_at_cell(left, right)
        yield left, right, ap, bp, aq, bq


def max_log_ratio(p: ExactDistribution, q: ExactDistribution) -> mpmath.mpf:
    """Exact ess sup log(p/q) over the support of p (one direction of the privacy loss).

    +inf when p puts mass where q has none."""
    with workdps():
        if isinstance(p, DiscreteLaw) and isinstance(q, DiscreteLaw):
            best = MP_NINF
            for atom, lp in zip(p.support, p.logp, strict=True):
                best = max(best, lp - q.logpmf_mp(atom))
            return best
        if isinstance(p, PiecewiseLogLinear) and isinstance(q, PiecewiseLogLinear):
            best = MP_NINF
            for left, right, ap, bp, aq, bq in _cell_forms(p, q):
                if bp == MP_NINF:
                    continue
                if bq == MP_NINF:
                    return MP_INF
                best = max(best, _linear_sup(ap - aq, bp - bq, left, right))
            return best
        if isinstance(p, GridLaw) and isinstance(q, GridLaw):
            return _grid_max_log_ratio(p, q)
        if isinstance(p, ProductLaw) and isinstance(q, ProductLaw):
            _same_shape(p, q)  # sup of a sum of independent terms = the sum of their sups
            return mpmath.fsum(
                max_log_ratio(a, b) for a, b in zip(p.components, q.components, strict=True)
            )
        return MP_INF  # an atomic law against a continuous one: mutually singular


def privacy_loss(p: ExactDistribution, q: ExactDistribution) -> mpmath.mpf:
    """Exact ε(p, q) = ess sup |log p − log q|: the smallest ε with both directions ε-bounded."""
    return max(max_log_ratio(p, q), max_log_ratio(q, p))


def _linear_sup(slope: mpmath.mpf, const: mpmath.mpf, left: Number, right: Number) -> mpmath.mpf:
    """sup of slope·y + const over [left, right] (ends may be infinite)."""
    ends = []
    for y in (to_mpf(left), to_mpf(right)):
        if mpmath.isinf(y):
            ends.append(const if slope == 0 else (MP_INF if slope * y > 0 else MP_NINF))
        else:
            ends.append(slope * y + const)
    return max(ends)


def hockey_stick(p: ExactDistribution, q: ExactDistribution, epsilon: Number) -> mpmath.mpf:
    """Exact δ(ε) = ∫ max(0, p − e^ε q): the smallest δ with P(S) <= e^ε Q(S) + δ for all S."""
    with workdps():
        eps = to_mpf(epsilon)
        if isinstance(p, DiscreteLaw) and isinstance(q, DiscreteLaw):
            total = mpmath.mpf(0)
            for atom, lp in zip(p.support, p.logp, strict=True):
                diff = mpmath.exp(lp) - mpmath.exp(eps + q.logpmf_mp(atom))
                if diff > 0:
                    total += diff
            return total
        if isinstance(p, PiecewiseLogLinear) and isinstance(q, PiecewiseLogLinear):
            total = mpmath.mpf(0)
            for left, right, ap, bp, aq, bq in _cell_forms(p, q):
                if bp == MP_NINF:
                    continue
                bq_eps = bq + eps
                # p − e^ε q > 0  <=>  (ap − aq)·y + (bp − bq − ε) > 0: one sub-interval of the cell.
                lo, hi = _positive_part(ap - aq, bp - bq_eps, to_mpf(left), to_mpf(right))
                if lo is None:
                    continue
                mp_ = mpmath.exp(log_integral_exp_linear(ap, bp, lo, hi))
                mq = mpmath.exp(log_integral_exp_linear(aq, bq_eps, lo, hi)) if bq != MP_NINF else 0
                total += max(mp_ - mq, mpmath.mpf(0))
            return total
        if isinstance(p, ProductLaw) and isinstance(q, ProductLaw):
            return _product_hockey_stick(p, q, eps)
        if isinstance(p, GridLaw) and isinstance(q, GridLaw):
            return _grid_hockey_stick(p, q, eps)
        return mpmath.mpf(1)


def _positive_part(slope, const, left, right):
    """The sub-interval of [left, right] where slope·y + const > 0, or (None, None)."""
    if slope == 0:
        return (left, right) if const > 0 else (None, None)
    root = -const / slope
    lo, hi = (max(left, root), right) if slope > 0 else (left, min(right, root))
    return (lo, hi) if lo < hi else (None, None)


def renyi_divergence(p: ExactDistribution, q: ExactDistribution, alpha: Number) -> mpmath.mpf:
    """Exact Rényi divergence D_α(p‖q) = log(∫ p^α q^{1−α})/(α − 1); α = 1 is KL, α = inf is
    :func:`max_log_ratio`."""
    with workdps():
        alpha = to_mpf(alpha)
        if not alpha > 0 or mpmath.isnan(alpha):
            raise ValueError(f"alpha must be > 0 (inf allowed), got {alpha}")
        if alpha == MP_INF:
            return max_log_ratio(p, q)
        if isinstance(p, GridLaw) and isinstance(q, GridLaw):
            return _grid_renyi(p, q, alpha)
        if isinstance(p, ProductLaw) and isinstance(q, ProductLaw):
            _same_shape(p, q)  # Rényi divergences of independent coordinates add up
            return mpmath.fsum(
                renyi_divergence(a, b, alpha)
                for a, b in zip(p.components, q.components, strict=True)
            )
        if alpha == 1:
            return _kl(p, q)
        if isinstance(p, DiscreteLaw) and isinstance(q, DiscreteLaw):
            terms = []
            for atom, lp in zip(p.support, p.logp, strict=True):
                lq = q.logpmf_mp(atom)
                if lq == MP_NINF:
                    if alpha > 1:
                        return MP_INF
                    continue
                terms.append(alpha * lp + (1 - alpha) * lq)
            return logsumexp(terms) / (alpha - 1)
        if isinstance(p, PiecewiseLogLinear) and isinstance(q, PiecewiseLogLinear):
            terms = []
            for left, right, ap, bp, aq, bq in _cell_forms(p, q):
                if bp == MP_NINF:
                    continue
                if bq == MP_NINF:
                    if alpha > 1:
                        return MP_INF
                    continue
                a = alpha * ap + (1 - alpha) * aq
                b = alpha * bp + (1 - alpha) * bq
                terms.append(log_integral_exp_linear(a, b, left, right))
            return logsumexp(terms) / (alpha - 1)
        return MP_INF  # mutually singular laws: ∫ p^α q^(1−α) = 0 (α < 1) or = inf (α > 1)


def _kl(p: ExactDistribution, q: ExactDistribution) -> mpmath.mpf:
    if isinstance(p, DiscreteLaw) and isinstance(q, DiscreteLaw):
        total = mpmath.mpf(0)
        for atom, lp in zip(p.support, p.logp, strict=True):
            lq = q.logpmf_mp(atom)
            if lq == MP_NINF:
                return MP_INF
            total += mpmath.exp(lp) * (lp - lq)
        return total
    if isinstance(p, PiecewiseLogLinear) and isinstance(q, PiecewiseLogLinear):
        total = mpmath.mpf(0)
        for left, right, ap, bp, aq, bq in _cell_forms(p, q):
            if bp == MP_NINF:
                continue
            if bq == MP_NINF:
                return MP_INF
            total += mpmath.quad(
                lambda y, ap=ap, bp=bp, aq=aq, bq=bq: (
                    mpmath.exp(ap * y + bp) * ((ap - aq) * y + bp - bq)
                ),
                [to_mpf(left), to_mpf(right)],
            )
        return total
    return MP_INF


# --------------------------------------------------------------------------------------------
# Piecewise-constant densities on a product grid
# --------------------------------------------------------------------------------------------


class GridLaw:
    """A density on a box in R^k that is constant on every cell of a product grid.

    ``breaks[i]`` are the strictly increasing cut points of axis i (exact values: ``Fraction``,
    ``int``, float or ``mpf``); ``log_density`` (shape = the number of cells per axis) holds the
    log-density of each cell up to one additive constant (mpmath values or floats, ``-inf`` for
    empty cells); the law is normalised on construction, exactly (mpmath). This is the output law
    of a mechanism that releases k correlated real numbers, each piecewise uniform given the
    mechanism's discrete choices: a finite mixture of products of piecewise-constant densities,
    such as imola25's SliceQuantiles (spec §6.5).

    Divergences against another :class:`GridLaw` of the same dimension are exact sums over the
    merged grid (the product of the axes' merged breakpoints), where both densities are constant.
    """

    def __init__(self, breaks: Sequence[Sequence[Number]], log_density: Any):
        axes = [list(b) for b in breaks]
        if not axes:
            raise ValueError("breaks must give at least one axis")
        for i, b in enumerate(axes):
            if len(b) < 2 or any(
                not to_mpf(x) < to_mpf(y) for x, y in zip(b[:-1], b[1:], strict=True)
            ):
                raise ValueError(f"breaks[{i}] must be >= 2 strictly increasing finite values")
            if any(not mpmath.isfinite(to_mpf(x)) for x in b):
                raise ValueError(f"breaks[{i}] must be finite")
        shape = tuple(len(b) - 1 for b in axes)
        dens = np.asarray(log_density, dtype=object)
        if dens.shape != shape:
            raise ValueError(f"log_density must have shape {shape}, got {dens.shape}")
        self.exact_breaks = tuple(axes)
        self.breaks = tuple(np.array([float(x) for x in b]) for b in axes)
        with workdps():
            logv = self._log_volumes(axes)
            flat = [to_mpf(x) for x in dens.ravel()]
            log_total = logsumexp([a + v for a, v in zip(flat, logv.ravel(), strict=True)])
            if log_total == MP_NINF or not mpmath.isfinite(log_total):
                raise ValueError("log_density must give a positive, finite total mass")
            self.logp = np.array([x - log_total for x in flat], dtype=object).reshape(shape)
        self._logmass = np.array(
            [_float_log_mp(a + v) for a, v in zip(self.logp.ravel(), logv.ravel(), strict=True)]
        ).reshape(shape)
        self._logpdf = np.array([_float_log_mp(a) for a in self.logp.ravel()]).reshape(shape)

    @staticmethod
    def _log_volumes(axes: Sequence[Sequence[Number]]) -> np.ndarray:
        out = np.zeros(1, dtype=object)
        out[0] = mpmath.mpf(0)
        for b in axes:
            widths = np.array(
                [mpmath.log(to_mpf(y) - to_mpf(x)) for x, y in zip(b[:-1], b[1:], strict=True)],
                dtype=object,
            )
            out = np.add.outer(out, widths).ravel()
        return out.reshape(tuple(len(b) - 1 for b in axes))

    def __len__(self) -> int:
        return len(self.breaks)

    def __repr__(self) -> str:
        return f"GridLaw({len(self)} axes, cells {self.logp.shape})"

    @property
    def shape(self) -> tuple[int, ...]:
        return self.logp.shape

    @property
    def probabilities(self) -> np.ndarray:
        """Float mass of every cell (shape :attr:`shape`)."""
        return np.exp(self._logmass)

    def logpdf(self, y: Any) -> np.ndarray:
        """Float log-density at the rows of ``y`` (n, k); -inf outside the box."""
        y = np.asarray(y, dtype=float).reshape(-1, len(self))
        index, inside = [], np.ones(len(y), dtype=bool)
        for i, b in enumerate(self.breaks):
            j = np.searchsorted(b, y[:, i], side="right") - 1
            j = np.where(y[:, i] == b[-1], len(b) - 2, j)
            inside &= (j >= 0) & (j < len(b) - 1)
            index.append(np.clip(j, 0, len(b) - 2))
        out = self._logpdf[tuple(index)]
        return np.where(inside, out, -np.inf)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws, shape (size, k): a cell by its mass, then uniform inside it."""
        size, rng = check_size(size), check_rng(rng)
        prob = self.probabilities.ravel()
        cells = rng.choice(prob.size, size=size, p=prob / prob.sum())
        index = np.unravel_index(cells, self.shape)
        cols = []
        for b, j in zip(self.breaks, index, strict=True):
            cols.append(b[j] + rng.random(size) * (b[j + 1] - b[j]))
        return np.column_stack(cols)

    def marginal(self, axis: int) -> PiecewiseLogLinear:
        """The exact marginal density of coordinate ``axis`` (piecewise constant)."""
        if not 0 <= axis < len(self):
            raise ValueError(f"axis must be in [0, {len(self)}), got {axis}")
        with workdps():
            logv = self._log_volumes(self.exact_breaks)
            terms = np.moveaxis(
                np.array(
                    [a + v for a, v in zip(self.logp.ravel(), logv.ravel(), strict=True)],
                    dtype=object,
                ).reshape(self.shape),
                axis,
                0,
            ).reshape(self.shape[axis], -1)
            b = self.exact_breaks[axis]
            logs = [
                logsumexp(list(row)) - mpmath.log(to_mpf(y) - to_mpf(x))
                for row, x, y in zip(terms, b[:-1], b[1:], strict=True)
            ]
        return PiecewiseLogLinear(
            self.breaks[axis],
            np.zeros(len(logs)),
            np.array([_float_log_mp(x) for x in logs]),
            exact_breaks=b,
            exact_intercepts=logs,
        )

    def on_grid(self, breaks: Sequence[Sequence[Number]]) -> np.ndarray:
        """Exact log-densities (object array) on a finer grid whose axes contain this law's
        breakpoints; cells outside this law's box get -inf."""
        index = []
        for mine, theirs in zip(self.exact_breaks, breaks, strict=True):
            lo, hi = to_mpf(mine[0]), to_mpf(mine[-1])
            mine_mp = [to_mpf(x) for x in mine]
            idx = []
            for x, y in zip(theirs[:-1], theirs[1:], strict=True):
                xl, yr = to_mpf(x), to_mpf(y)
                idx.append(bisect.bisect_right(mine_mp, xl) - 1 if lo <= xl and yr <= hi else -1)
            index.append(np.array(idx))
        out = np.empty(tuple(len(i) for i in index), dtype=object)
        for pos in np.ndindex(out.shape):
            js = tuple(index[a][p] for a, p in enumerate(pos))
            out[pos] = MP_NINF if min(js) < 0 else self.logp[js]
        return out


def _float_log_mp(x: mpmath.mpf) -> float:
    return -np.inf if x == MP_NINF else float(x)


def merged_grid_cells(p: GridLaw, q: GridLaw) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(log-volume, log p, log q) per cell of the merged grid, exact (flattened object arrays)."""
    if len(p) != len(q):
        raise ValueError(f"grid laws of different dimensions: {len(p)} and {len(q)}")
    with workdps():
        merged = []
        for a, b in zip(p.exact_breaks, q.exact_breaks, strict=True):
            merged.append(sorted(set(a) | set(b), key=to_mpf))
        logv = GridLaw._log_volumes(merged).ravel()
        return logv, p.on_grid(merged).ravel(), q.on_grid(merged).ravel()


def grid_cell_masses(p: GridLaw, q: GridLaw) -> tuple[np.ndarray, np.ndarray]:
    """Float masses of two grid laws on their merged cells."""
    logv, lp, lq = merged_grid_cells(p, q)
    mass = np.vectorize(lambda v, a: 0.0 if a == MP_NINF else float(mpmath.exp(a + v)))
    return mass(logv, lp).astype(float), mass(logv, lq).astype(float)


def _grid_max_log_ratio(p: GridLaw, q: GridLaw) -> mpmath.mpf:
    _, lp, lq = merged_grid_cells(p, q)
    best = MP_NINF
    for a, b in zip(lp, lq, strict=True):
        if a == MP_NINF:
            continue
        if b == MP_NINF:
            return MP_INF
        best = max(best, a - b)
    return best


def _grid_hockey_stick(p: GridLaw, q: GridLaw, eps: mpmath.mpf) -> mpmath.mpf:
    logv, lp, lq = merged_grid_cells(p, q)
    total = mpmath.mpf(0)
    for v, a, b in zip(logv, lp, lq, strict=True):
        if a == MP_NINF:
            continue
        diff = mpmath.exp(a + v) - (0 if b == MP_NINF else mpmath.exp(b + eps + v))
        if diff > 0:
            total += diff
    return total


def _grid_renyi(p: GridLaw, q: GridLaw, alpha: mpmath.mpf) -> mpmath.mpf:
    logv, lp, lq = merged_grid_cells(p, q)
    if alpha == 1:
        total = mpmath.mpf(0)
        for v, a, b in zip(logv, lp, lq, strict=True):
            if a == MP_NINF:
                continue
            if b == MP_NINF:
                return MP_INF
            total += mpmath.exp(a + v) * (a - b)
        return total
    terms = []
    for v, a, b in zip(logv, lp, lq, strict=True):
        if a == MP_NINF:
            continue
        if b == MP_NINF:
            if alpha > 1:
                return MP_INF
            continue
        terms.append(alpha * a + (1 - alpha) * b + v)
    return logsumexp(terms) / (alpha - 1)


__all__ = [
    "DiscreteLaw",
    "ExactDistribution",
    "GridLaw",
    "Piece",
    "PiecewiseLogLinear",
    "ProductLaw",
    "grid_cell_masses",
    "hockey_stick",
    "log_integral_exp_linear",
    "max_log_ratio",
    "privacy_loss",
    "renyi_divergence",
]
