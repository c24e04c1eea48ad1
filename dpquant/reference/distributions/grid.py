"""Piecewise-constant densities on a product grid: :class:`GridLaw`, the output law of a
mechanism that releases k correlated real numbers, each piecewise uniform given its discrete
choices (imola25's SliceQuantiles, ``notes/imola25.md``)."""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from typing import Any

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributions.arithmetic import (
    Indexed,
    Number,
    diff,
    float_of_log,
    rational,
    relative_log_weights,
)
from dpquant.reference.distributions.inputs import (
    check_log_weight,
    check_point,
    check_rows,
    describe,
    exact_real,
    sequence,
)
from dpquant.reference.distributions.limits import (
    FLOAT_SAMPLING_TOLERANCE,
    MAX_AXES,
    MAX_GRID_CELLS,
    MAX_MERGED_CELLS,
)
from dpquant.reference.distributions.piecewise import PiecewiseLogLinear
from dpquant.reference.exact.mp import MP_NINF, logsumexp, workdps
from dpquant.reference.validation import MAX_DRAWS, check_int, check_rng, check_size


class GridLaw:
    """A density on a box in R^k that is constant on every cell of a product grid.

    This is the output law of a mechanism that releases k correlated real numbers, each
    piecewise uniform given the mechanism's discrete choices: a finite mixture of products of
    piecewise-constant densities, such as imola25's SliceQuantiles (``notes/imola25.md``). The
    law is normalised on construction, exactly (mpmath). Divergences against another
    :class:`GridLaw` of the same dimension are exact sums over the merged grid (the product of
    the axes' merged breakpoints), where both densities are constant.

    Args:
        breaks: One sequence per axis (at most :data:`MAX_AXES`): ``breaks[i]`` are the
            strictly increasing cut points of axis i (exact values: ``Fraction``, ``int``,
            float or ``mpf``; finite, fitting a float64).
        log_density: The log-density of each cell up to one additive constant, of shape the
            number of cells per axis (at most :data:`MAX_GRID_CELLS` cells; mpmath values or
            floats, ``-inf`` for empty cells; NaN and +inf refused).

    Raises:
        ValueError: An argument breaks one of these (named).
    """

    def __init__(self, breaks: Sequence[Indexed], log_density: Any):
        if isinstance(breaks, str | bytes | dict | set | frozenset) or not (
            hasattr(breaks, "__len__") and hasattr(breaks, "__getitem__")
        ):
            raise ParameterError("breaks", "must be a sequence of axes", describe(breaks))
        if len(breaks) == 0:
            raise ParameterError("breaks", "must give at least one axis")
        if len(breaks) > MAX_AXES:
            raise ParameterError("breaks", f"must give at most {MAX_AXES} axes", len(breaks))
        axes = []
        for i in range(len(breaks)):
            b = sequence(breaks[i], f"breaks[{i}]", MAX_GRID_CELLS + 1)
            vals = [rational(exact_real(b[j], f"breaks[{i}][{j}]")) for j in range(len(b))]
            if len(vals) < 2 or any(not x < y for x, y in zip(vals[:-1], vals[1:], strict=True)):
                raise ParameterError(
                    f"breaks[{i}]",
                    "must be >= 2 strictly increasing finite values",
                )
            axes.append(vals)
        shape = tuple(len(b) - 1 for b in axes)
        cells = math.prod(shape)
        if cells > MAX_GRID_CELLS:
            raise ValueError(
                f"breaks make {cells} cells, more than MAX_GRID_CELLS = {MAX_GRID_CELLS}"
            )
        if isinstance(log_density, str | bytes | dict | set | frozenset):
            raise ParameterError("log_density", f"must be an array of shape {shape}")
        try:
            dens = np.asarray(log_density, dtype=object)
        except ValueError:
            raise ParameterError("log_density", f"must be an array of shape {shape}") from None
        if dens.shape != shape:
            raise ParameterError(
                "log_density",
                f"must have shape {shape} (one value per cell of breaks)",
                dens.shape,
            )
        flat = relative_log_weights(
            [check_log_weight(v, "log_density") for v in dens.ravel().tolist()]
        )
        self.exact_breaks = tuple(axes)
        self.breaks = tuple(np.array([float(x) for x in b]) for b in axes)
        with workdps():
            logv = self._log_volumes(axes)
            log_total = logsumexp([a + v for a, v in zip(flat, logv.ravel(), strict=True)])
            if log_total == MP_NINF or not mpmath.isfinite(log_total):
                raise ParameterError("log_density", "must give a positive, finite total mass")
            self.logp = np.array([x - log_total for x in flat], dtype=object).reshape(shape)
        self._logmass = np.array(
            [float_of_log(a + v) for a, v in zip(self.logp.ravel(), logv.ravel(), strict=True)]
        ).reshape(shape)
        self._logpdf = np.array([float_of_log(a) for a in self.logp.ravel()]).reshape(shape)
        self._sampling_error: float | None = None

    @staticmethod
    def _log_volumes(axes: Sequence[Sequence[Number]]) -> np.ndarray:
        out = np.zeros(1, dtype=object)
        out[0] = mpmath.mpf(0)
        for b in axes:
            widths = np.array(
                [mpmath.log(diff(y, x)) for x, y in zip(b[:-1], b[1:], strict=True)],
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

    def total_mass(self) -> mpmath.mpf:
        """Exact total mass Σ_cells density·volume (1 to the working precision)."""
        with workdps():
            logv = self._log_volumes(self.exact_breaks)
            return mpmath.fsum(
                mpmath.exp(a + v) for a, v in zip(self.logp.ravel(), logv.ravel(), strict=True)
            )

    def logpdf(self, y: Any) -> np.ndarray:
        """Float log-density at points.

        Args:
            y: The points, the rows of an (n, k) array.

        Returns:
            n log-densities, -inf outside the box.
        """
        y = check_rows(y, "y", len(self))
        index, inside = [], np.ones(len(y), dtype=bool)
        for i, b in enumerate(self.breaks):
            j = np.searchsorted(b, y[:, i], side="right") - 1
            j = np.where(y[:, i] == b[-1], len(b) - 2, j)
            inside &= (j >= 0) & (j < len(b) - 1)
            index.append(np.clip(j, 0, len(b) - 2))
        out = self._logpdf[tuple(index)]
        return np.where(inside, out, -np.inf)

    def float_sampling_error(self) -> float:
        """An upper bound on how far rounding the draws to doubles moves any coordinate's
        marginal CDF (as :meth:`PiecewiseLogLinear.float_sampling_error`)."""
        if self._sampling_error is None:
            prob = self.probabilities
            worst = 0.0
            for i, b in enumerate(self.breaks):
                marginal = np.moveaxis(prob, i, 0).reshape(len(b) - 1, -1).sum(axis=1)
                with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                    w = np.where(
                        np.isinf(b[1:] - b[:-1]), 2 * (b[1:] / 2 - b[:-1] / 2), b[1:] - b[:-1]
                    )
                    spacing = np.spacing(np.maximum(np.abs(b[:-1]), np.abs(b[1:])))
                    local = np.nan_to_num(2.0 * marginal / w * spacing, nan=np.inf)
                worst = max(worst, float(np.max(np.where(marginal > 0, local, 0.0))))
            self._sampling_error = worst
        return self._sampling_error

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Independent draws: a cell by its mass, then uniform inside it.

        Args:
            size: The draws (0 gives an empty array).
            rng: A ``numpy.random.Generator``.

        Returns:
            Shape (size, k).

        Raises:
            ValueError: The law's cells are too small for float64 to resolve
                (:meth:`float_sampling_error` above :data:`FLOAT_SAMPLING_TOLERANCE`).
        """
        size, rng = check_size(size), check_rng(rng)
        if size * len(self) > 10 * MAX_DRAWS:
            raise ParameterError(
                "size",
                f"must be at most {10 * MAX_DRAWS // len(self)} for a grid law of {len(self)} axes",
                size,
            )
        error = self.float_sampling_error()
        if not error <= FLOAT_SAMPLING_TOLERANCE:
            raise ValueError(
                "this law cannot be sampled in float64: its breaks make cells carrying mass "
                f"that are within a few float spacings wide, so rounding the draws would move "
                f"its CDF by up to {error:.3g} > FLOAT_SAMPLING_TOLERANCE = "
                f"{FLOAT_SAMPLING_TOLERANCE:g}"
            )
        prob = self.probabilities.ravel()
        cells = rng.choice(prob.size, size=size, p=prob / prob.sum())
        index = np.unravel_index(cells, self.shape)
        cols = []
        for b, j in zip(self.breaks, index, strict=True):
            lo, hi, u = b[j], b[j + 1], rng.random(size)
            with np.errstate(over="ignore", invalid="ignore"):
                x = lo + u * (hi - lo)
                wide = np.isinf(hi - lo)
                x = np.where(wide, 2.0 * (lo / 2 + u * (hi / 2 - lo / 2)), x)
            cols.append(np.clip(x, lo, hi))
        return np.column_stack(cols) if size else np.empty((0, len(self)))

    def marginal(self, axis: int) -> PiecewiseLogLinear:
        """The exact marginal density of one coordinate.

        Args:
            axis: The coordinate, 0 to k − 1.

        Returns:
            Its density (piecewise constant).
        """
        axis = check_int(axis, "axis", minimum=0, maximum=len(self) - 1)
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
                logsumexp(list(row)) - mpmath.log(diff(y, x))
                for row, x, y in zip(terms, b[:-1], b[1:], strict=True)
            ]
        return PiecewiseLogLinear(
            self.breaks[axis],
            np.zeros(len(logs)),
            np.array([float_of_log(x) for x in logs]),
            exact_breaks=b,
            exact_intercepts=logs,
        )

    def on_grid(self, breaks: Sequence[Indexed]) -> np.ndarray:
        """Exact log-densities on a finer grid.

        Args:
            breaks: The finer grid's cut points, one sequence per axis, each containing this
                law's breakpoints.

        Returns:
            An object array of log-densities, one per cell of the finer grid; cells outside
                this law's box get -inf.
        """
        if not hasattr(breaks, "__len__") or len(breaks) != len(self):
            raise ParameterError("breaks", f"must give {len(self)} axes")
        index = []
        for i, (mine, theirs) in enumerate(zip(self.exact_breaks, breaks, strict=True)):
            theirs = [
                check_point(v, f"breaks[{i}]")
                for v in sequence(theirs, f"breaks[{i}]", MAX_MERGED_CELLS + 1)
            ]
            lo, hi = mine[0], mine[-1]
            idx = []
            for x, y in zip(theirs[:-1], theirs[1:], strict=True):
                idx.append(bisect.bisect_right(mine, x) - 1 if lo <= x and y <= hi else -1)
            index.append(np.array(idx, dtype=np.int64))
        out = np.empty(tuple(len(i) for i in index), dtype=object)
        for pos in np.ndindex(out.shape):
            js = tuple(index[a][p] for a, p in enumerate(pos))
            out[pos] = MP_NINF if min(js) < 0 else self.logp[js]
        return out


def merged_grid_cells(p: GridLaw, q: GridLaw) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two laws on their merged grid, exactly.

    Args:
        p: A grid law.
        q: Another, of the same dimension.

    Returns:
        (log-volume, log p, log q) per cell of the merged grid (flattened object arrays).
    """
    for name, law in (("p", p), ("q", q)):
        if not isinstance(law, GridLaw):
            raise ParameterError(name, "must be a GridLaw", type(law).__name__)
    if len(p) != len(q):
        raise ValueError(f"p and q: grid laws of different dimensions: {len(p)} and {len(q)}")
    merged = [sorted(set(a) | set(b)) for a, b in zip(p.exact_breaks, q.exact_breaks, strict=True)]
    cells = math.prod(len(m) - 1 for m in merged)
    if cells > MAX_MERGED_CELLS:
        raise ValueError(
            f"p and q: their merged grid has {cells} cells, more than MAX_MERGED_CELLS = "
            f"{MAX_MERGED_CELLS}"
        )
    with workdps():
        logv = GridLaw._log_volumes(merged).ravel()
        return logv, p.on_grid(merged).ravel(), q.on_grid(merged).ravel()


def grid_cell_masses(p: GridLaw, q: GridLaw) -> tuple[np.ndarray, np.ndarray]:
    """Float masses of two grid laws on their merged cells.

    Args:
        p: A grid law.
        q: Another, of the same dimension.

    Returns:
        (p's masses, q's masses), one per merged cell.
    """
    logv, lp, lq = merged_grid_cells(p, q)
    mass = np.vectorize(lambda v, a: 0.0 if a == MP_NINF else float(mpmath.exp(a + v)))
    return mass(logv, lp).astype(float), mass(logv, lq).astype(float)


__all__ = ["GridLaw", "grid_cell_masses", "merged_grid_cells"]
