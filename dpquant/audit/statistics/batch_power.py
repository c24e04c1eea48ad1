"""The float screen of many pairs at once: :func:`pair_powers` gives, for a list of pairs of exact
laws, what :func:`dpquant.audit.statistics.power.pair_power` gives for each, bit for bit, at a
fraction of the cost (``notes/auditor.md``, "Fast exact stage (issue 39, item 2)").

The cost of screening one pair is almost all per-call overhead: the checks of the Clopper–Pearson
bound on arrays of a few cells, called three times a pair, and a ``cdf`` call per law and pair.
Here

* the masses of the piecewise laws are taken from one evaluation of their cdfs on every point
  any pair of the batch needs (:class:`CdfTable`, which keeps them for later batches); the
  ``cdf`` is elementwise, so each value is the one the per-pair call computes;
* the prefix masses of every pair's likelihood-ratio sets (each pair's own ``cumsum``, in the
  same order) go through one :func:`dpquant.audit.statistics.bounds.expected_bound` call, checked
  once; so do the masses of the events chosen forward, then those chosen backward (the backward
  choice compares with the forward event's bound, as the per-pair screen does).

Every operation on an element is the one :func:`pair_power` performs on it, so the results are
identical. A batch in which anything is refused is screened again pair by pair, so that the
error is the one :func:`pair_power` raises on the first pair that fails.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.audit.statistics.bounds import expected_bound
from dpquant.audit.statistics.power import MAX_EVAL, PairPower, cell_masses, pair_power
from dpquant.errors import ParameterError
from dpquant.reference.distributions import PiecewiseLogLinear, ProductLaw, piecewise_cdfs
from dpquant.reference.validation import check_delta, check_int, check_probability

Masses = tuple[np.ndarray, np.ndarray]


class CdfTable:
    """The cdf of piecewise laws at the points pairs need, computed once per law and point.

    :meth:`prepare` evaluates the cdf of every law at all the points a batch asks of it that are
    not yet known, in one call
    (:func:`dpquant.reference.distributions.piecewise_cdfs`: each law's ``cdf`` values);
    :meth:`values` then reads them. The table holds its laws (so their ids
    stay theirs); use one per audit stage.
    """

    def __init__(self) -> None:
        self._known: dict[int, tuple[PiecewiseLogLinear, np.ndarray, np.ndarray]] = {}

    def prepare(self, wanted: Sequence[tuple[PiecewiseLogLinear, np.ndarray]]) -> None:
        """Evaluate the cdf of each law at the points asked of it that are not known yet.

        Args:
            wanted: (law, points) requests; a law may appear several times.
        """
        asks: dict[int, tuple[PiecewiseLogLinear, list[np.ndarray]]] = {}
        for law, points in wanted:
            asks.setdefault(id(law), (law, []))[1].append(points)
        laws, news, keys = [], [], []
        for key, (law, chunks) in asks.items():
            points = np.unique(np.concatenate(chunks))
            have = self._known[key][1] if key in self._known else np.empty(0)
            new = np.setdiff1d(points, have, assume_unique=True)
            if new.size:
                laws.append(law)
                news.append(new)
                keys.append(key)
        for key, law, new, values in zip(keys, laws, news, piecewise_cdfs(laws, news), strict=True):
            _, have, known = self._known.get(key, (law, np.empty(0), np.empty(0)))
            merged = np.concatenate([have, new])
            order = np.argsort(merged, kind="stable")
            self._known[key] = (law, merged[order], np.concatenate([known, values])[order])

    def values(self, law: PiecewiseLogLinear, points: np.ndarray) -> np.ndarray:
        """The cdf of ``law`` at ``points`` (each prepared before), as ``law.cdf(points)``.

        Args:
            law: A law passed to :meth:`prepare`.
            points: Points asked of it there.

        Returns:
            The cdf at each point.

        Raises:
            KeyError: The law or a point was not prepared.
        """
        _, have, values = self._known[id(law)]
        at = np.searchsorted(have, points)
        if at.size and (at.max() >= have.size or np.any(have[at] != points)):
            raise KeyError("a point was not prepared")
        return values[at]


def _piecewise_requests(p: Any, q: Any, out: list[tuple[PiecewiseLogLinear, np.ndarray]]) -> None:
    """The cdf points the masses of (p, q) need (their merged breaks, for each law)."""
    if isinstance(p, PiecewiseLogLinear) and isinstance(q, PiecewiseLogLinear):
        out += [(p, p.breaks), (p, q.breaks), (q, p.breaks), (q, q.breaks)]
    elif isinstance(p, ProductLaw) and isinstance(q, ProductLaw) and len(p) == len(q):
        for a, b in zip(p.components, q.components, strict=True):
            _piecewise_requests(a, b, out)


@dataclass
class _Cells:
    """One pair's cells, sorted both ways, and where its prefix bounds sit in the batch."""

    loss: float
    P: np.ndarray
    Q: np.ndarray
    llr: np.ndarray
    orders: tuple[np.ndarray, np.ndarray]  # by decreasing, then increasing log-ratio
    starts: tuple[int, int]  # offsets of its forward and backward prefixes in the batch


def _prepare(masses: Masses, offset: int, prefixes: list[np.ndarray]) -> _Cells:
    """The per-pair part of :func:`pair_power` up to its prefix masses (appended to
    ``prefixes``, as (D-side, D'-side) pairs of arrays, forward then backward)."""
    P, Q = masses
    if np.isnan(P).any() or np.isnan(Q).any():
        raise ValueError("p and q yield NaN cell masses: their laws cannot be judged")
    keep = (P > 0) | (Q > 0)
    P, Q = P[keep], Q[keep]
    if not P.size:  # pair_power's argmax of no prefix raises
        raise ValueError("p and q have no cell of positive mass")
    with np.errstate(divide="ignore", invalid="ignore"):
        llr = np.log(P) - np.log(Q)
    loss = float(np.max(np.abs(llr)))
    orders = (np.argsort(-llr, kind="stable"), np.argsort(llr, kind="stable"))
    for forward, order in zip((True, False), orders, strict=True):
        a, b = (P, Q) if forward else (Q, P)
        prefixes += [np.minimum(np.cumsum(a[order]), 1.0), np.minimum(np.cumsum(b[order]), 1.0)]
    return _Cells(loss, P, Q, llr, orders, (offset, offset + P.size))


def _bounds(
    p0: Sequence[np.ndarray], p1: Sequence[np.ndarray], n: int, delta: float, alpha: float
) -> np.ndarray:
    """One :func:`expected_bound` call on the concatenated masses (checked once), each distinct
    (p0, p1), bit for bit, computed once: prefixes repeat (those that reached mass 1 on both
    sides, pairs that share laws); the bound is elementwise, so the values are those of the
    whole array."""
    if not p0:
        return np.empty(0)
    a, b = np.concatenate(p0), np.concatenate(p1)
    bits = np.stack([a, b], axis=1).view(np.int64)
    _, first, inverse = np.unique(bits, axis=0, return_index=True, return_inverse=True)
    return expected_bound(a[first], b[first], n, delta, alpha)[inverse.reshape(-1)]


def _event(cells: _Cells, forward: bool, k: int) -> tuple[float, float, float]:
    """The threshold and masses of the likelihood-ratio set through prefix ``k`` (the whole tie
    group at the threshold is in the event), as :func:`pair_power` takes them."""
    order = cells.orders[0 if forward else 1]
    a, b = (cells.P, cells.Q) if forward else (cells.Q, cells.P)
    t = float(cells.llr[order[k]])
    mask = cells.llr >= t if forward else cells.llr <= t
    return t, float(min(a[mask].sum(), 1.0)), float(min(b[mask].sum(), 1.0))


def _choose(
    cells: list[_Cells | None],
    bounds: np.ndarray,
    best: list[PairPower],
    forward: bool,
    n: int,
    delta: float,
    alpha: float,
) -> None:
    """One direction of :func:`pair_power`'s choice for every pair: its best prefix, if better
    than the pair's best so far, becomes its event (the events' bounds in one call)."""
    chosen: list[tuple[int, float, float, float]] = []
    for i, c in enumerate(cells):
        if c is None:
            continue
        start = c.starts[0 if forward else 1]
        seg = bounds[start : start + c.P.size]
        k = int(np.argmax(seg))
        if seg[k] > best[i].expected:
            chosen.append((i, *_event(c, forward, k)))
    p0s, p1s = np.array([x[2] for x in chosen]), np.array([x[3] for x in chosen])
    values = _bounds([p0s], [p1s], n, delta, alpha) if chosen else np.empty(0)
    for (i, t, p0, p1), value in zip(chosen, values, strict=True):
        best[i] = PairPower(best[i].loss, float(value), p0, p1, forward, t)


def _fast_powers(
    pairs: Sequence[tuple[Any, Any]], n: int, delta: float, alpha: float, table: CdfTable
) -> list[PairPower]:
    wanted: list[tuple[PiecewiseLogLinear, np.ndarray]] = []
    for p, q in pairs:
        _piecewise_requests(p, q, wanted)
    table.prepare(wanted)
    cells: list[_Cells | None] = []
    best: list[PairPower] = []
    prefixes: list[np.ndarray] = []
    singular: PairPower | None = None
    offset = 0
    for p, q in pairs:
        masses = cell_masses(p, q, table.values)
        if masses is None:
            if singular is None:
                value = float(expected_bound(1.0, 0.0, n, delta, alpha))
                singular = PairPower(math.inf, value, 1.0, 0.0, True)
            cells.append(None)
            best.append(singular)
            continue
        c = _prepare(masses, offset, prefixes)
        offset += 2 * c.P.size
        cells.append(c)
        best.append(PairPower(c.loss, -math.inf, 0.0, 0.0, True))
    bounds = _bounds(prefixes[0::2], prefixes[1::2], n, delta, alpha)
    _choose(cells, bounds, best, True, n, delta, alpha)
    _choose(cells, bounds, best, False, n, delta, alpha)
    return best


def _check_pairs(pairs: Any) -> list[tuple[Any, Any]]:
    """A list or tuple of pairs (p, q), each a list or tuple of two laws (as for
    :func:`pair_power`, anything that is not a pair of laws of one kind is judged singular)."""
    if not isinstance(pairs, list | tuple):
        raise ParameterError(
            "pairs", "must be a list or tuple of pairs (p, q)", type(pairs).__name__
        )
    for k, pair in enumerate(pairs):
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise ParameterError(f"pairs[{k}]", "must be a pair (p, q) of laws", f"{pair!r:.80}")
    return [(p, q) for p, q in pairs]


def pair_powers(
    pairs: Sequence[tuple[Any, Any]],
    n_eval: int,
    delta: float,
    alpha: float,
    table: CdfTable | None = None,
) -> list[PairPower]:
    """:func:`dpquant.audit.statistics.power.pair_power` of every pair, in one batch.

    Args:
        pairs: A list or tuple of pairs (p, q) of exact laws.
        n_eval: Evaluation draws per side, an int in [1, 2^40].
        delta: The claim's δ, in [0, 1).
        alpha: The level, in (0, 1).
        table: Where the piecewise laws' cdf values are kept between batches (None: a new one).

    Returns:
        ``pair_power(p, q, n_eval, delta, alpha)`` for each pair, identical to it.

    Raises:
        ValueError: An argument is refused (``pairs`` not a list of pairs, ``table`` not a
            :class:`CdfTable`, ...), or a pair cannot be judged (the error :func:`pair_power`
            raises on the first such pair).
    """
    pairs = _check_pairs(pairs)
    n_eval = check_int(n_eval, "n_eval", minimum=1, maximum=MAX_EVAL)
    delta = check_delta(delta, "delta")
    alpha = check_probability(alpha, "alpha", open_left=True, open_right=True)
    if table is not None and not isinstance(table, CdfTable):
        raise ParameterError("table", "must be a CdfTable or None", type(table).__name__)
    try:
        return _fast_powers(pairs, n_eval, delta, alpha, table if table is not None else CdfTable())
    except ValueError:  # the first pair that fails raises its own error
        return [pair_power(p, q, n_eval, delta, alpha) for p, q in pairs]


__all__ = ["CdfTable", "pair_powers"]
