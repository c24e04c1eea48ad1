"""Events the black-box auditor tests, and their selection on the selection draws.

Families (``notes/auditor.md``, "Design" and "Decisions" 7):

* intervals (lo, hi] of one output projection, with lo, hi on an empirical-quantile grid of the
  pooled selection draws (lo = −inf or hi = +inf give the half-lines); when the draws take few
  distinct values, every value is a grid point, so every atom and every run of atoms is covered;
* points {y = v} for the most repeated numeric values, and "the output equals a value of the data"
  (of D ∪ D', of D only, of D' only);
* named atoms: each exception type (``raised:ValueError``), ``nan``, any other non-numeric output,
  and "any non-numeric output";
* projections (:mod:`dpquant.audit.events.projections`): the output itself, or for vector outputs each
  coordinate, each pairwise difference, and the whole vector's sum, maximum and minimum (StatDP's
  post-processings of a vector output: Ding et al., CCS 2018, Sec. 4; DP-Sniper's StatDP
  baseline adds them), and the count of coordinates on D's side of the midpoints between D's and
  D''s values, or between the medians of the draws on D and on D' (fitted on half of the
  selection draws and counted on the other half, as the scores are);
* float lattices (``lattice=True``, the auditor's ``float_lattice`` option): an interval of one
  coordinate intersected with "not a multiple of 2^-K", for the few most common lattice exponents
  K of the pooled draws. A float sampler that computes its output by different arithmetic on two
  neighbours puts their draws on different lattices of doubles (Mironov 2012): the supports
  differ although the real-valued laws are close. Most continuous float mechanisms leak that way
  (``notes/auditor.md``), so this family is an option, off by default;
* likelihood-ratio sets {y : ln f_D(y) − ln f_D'(y) > t} when both exact laws are known (the
  Neyman–Pearson sets, optimal for a given size);
* level sets of scores fitted on half of the selection draws and counted on the other half
  (:mod:`dpquant.audit.events.scores`): a naive-Bayes histogram score of numeric outputs, and a logistic
  regression on features of the whole output (DP-Sniper's classifier-chosen events).

Selection ranks (event, direction) by the bound the evaluation draws would give at pessimistic
estimates of the two masses (:func:`dpquant.audit.statistics.bounds.selection_score`), never by the raw ratio.
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpquant.audit.events.grids import grid_of_sorted, lattice_exponent, quantile_levels
from dpquant.audit.events.projections import (
    Projection,
    fitted_midpoint_count,
    midpoint_count,
    project,
    projection_name,
    projections,
)
from dpquant.audit.events.scores import (
    classifier_score,
    fit_size,
    histogram_score,
    increments_score,
)
from dpquant.audit.model.outputs import NUMERIC, Outputs
from dpquant.audit.statistics.bounds import SELECTION_Z, selection_score

MAX_POINT_EVENTS = 16
LATTICE_LEVELS = 8

RATIO_KINDS = (
    "likelihood_ratio",
    "likelihood_ratio_reverse",
    "histogram_ratio",
    "increments_ratio",
)
"""Events {score(y) > lo} of a score of the numeric output (``llr``)."""
@dataclass(frozen=True)
class Event:
    """A measurable set of outputs. ``kind`` is one of ``interval`` (lo, hi], ``point``,
    ``data_value`` (output in ``values``), ``atom`` (named atom ``atom``; ``*`` = any non-numeric),
    ``width`` (a numeric output with ``lo`` coordinates) or ``likelihood_ratio`` (ln f_D − ln f_D'
    > ``lo``). ``width`` > 0 says how many coordinates the numeric outputs had when the event was
    made: on draws of another width the event is empty (a projection or a likelihood ratio of
    one width says nothing about outputs of another)."""

    kind: str
    projection: Projection = ()
    lo: float = -np.inf
    hi: float = np.inf
    atom: str = ""
    values: tuple[float, ...] = ()
    llr: Callable[[Any], np.ndarray] | None = field(default=None, compare=False, repr=False)
    width: int = 0
    lattice: int | None = None  # intervals only: the value is also not a multiple of 2^-lattice

    def indicator(self, out: Outputs) -> np.ndarray:
        if self.kind == "atom":
            return ~out.numeric if self.atom == "*" else out.atoms == self.atom
        if self.kind in ("token", "token_count"):
            return _token_hit(self, out)
        if self.projection and self.projection[0] == "pos":  # numbers of structured draws
            z = project(out, self.projection)
            with np.errstate(invalid="ignore"):
                return (z > self.lo) & (z <= self.hi)
        numeric = out.numeric
        if self.kind == "width":
            return numeric & (out.width == int(self.lo))
        if self.width and out.width != self.width:
            return np.zeros(len(out), dtype=bool)
        if self.kind == "classifier":
            if self.llr is None:
                raise ValueError("a classifier event needs its score llr")
            with np.errstate(invalid="ignore"):
                return np.asarray(self.llr(out)) > self.lo
        if self.kind in RATIO_KINDS:
            llr = self.llr
            if llr is None:  # a ratio event is always made with its ratio
                raise ValueError(f"a {self.kind} event needs its log-likelihood ratio llr")
            z = np.where(numeric[:, None], out.values, 0.0)
            score = -llr(z) if self.kind == "likelihood_ratio_reverse" else llr(z)
            return numeric & (score > self.lo)
        z = project(out, self.projection)
        with np.errstate(invalid="ignore"):
            if self.kind == "interval":
                hit = (z > self.lo) & (z <= self.hi)
                if self.lattice is not None:
                    hit &= lattice_exponent(z) > self.lattice
            elif self.kind == "point":
                hit = z == self.lo
            else:
                hit = np.isin(z, np.asarray(self.values, dtype=float))
        return numeric & hit

    def describe(self) -> str:
        """The event in words (the report's ``description``)."""
        where = projection_name(self.projection)
        if self.kind == "data_value":
            return f"{where} in {{{', '.join(f'{v:g}' for v in self.values)}}}"
        if self.kind == "atom":
            return "any non-numeric output" if self.atom == "*" else f"output is atom {self.atom!r}"
        text = _DESCRIPTIONS[self.kind].format(where=where, lo=self.lo, hi=self.hi, atom=self.atom)
        if self.lattice is not None:
            text += f" and not a multiple of 2^-{self.lattice}"
        return text

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "description": self.describe()}
        if self.projection:
            d["projection"] = list(self.projection)
        if self.kind in (
            "interval",
            "likelihood_ratio",
            "likelihood_ratio_reverse",
            *RATIO_KINDS,
            "classifier",
            "point",
            "width",
        ):
            d["lo"] = _num(self.lo)
        if self.kind == "interval":
            d["hi"] = _num(self.hi)
            if self.lattice is not None:
                d["lattice"] = self.lattice
        if self.kind in ("atom", "token", "token_count"):
            d["atom"] = self.atom
        if self.kind == "token_count":
            d["lo"] = _num(self.lo)
        if self.kind == "data_value":
            d["values"] = list(self.values)
        return d


_DESCRIPTIONS = {
    "interval": "{where} in ({lo:.6g}, {hi:.6g}]",
    "point": "{where} == {lo!r}",
    "width": "numeric output with {lo:.0f} coordinate(s)",
    "histogram_ratio": "histogram log-ratio score of y > {lo:.6g} (fitted on selection draws)",
    "increments_ratio": (
        "histogram log-ratio score of the increments of y > {lo:.6g} (fitted on selection draws)"
    ),
    "classifier": "logistic-regression log-odds of D given y > {lo:.6g} (fitted on selection draws)",
    "likelihood_ratio": "ln f_D(y) - ln f_D'(y) > {lo:.6g}",
    "likelihood_ratio_reverse": "ln f_D'(y) - ln f_D(y) > {lo:.6g}",
    "token": "{where} is {atom}",
    "token_count": "{atom} at {lo:.0f} or more positions",
}
"""How :meth:`Event.describe` words each kind of event (``data_value`` and ``atom`` apart)."""


def _num(x: float) -> float | str:
    return x if np.isfinite(x) else ("inf" if x > 0 else "-inf")


@dataclass(frozen=True)
class Scored:
    """An event with a direction (``forward``: more likely on D than on D') and the bound the
    evaluation draws would give at the plug-in means."""

    event: Event
    forward: bool
    expected: float
    p0: float
    p1: float


class _Lazy(Sequence[Event]):
    """``n`` events made on demand (selection scores thousands, keeps a few)."""

    def __init__(self, n: int, make: Callable[[int], Event]):
        self._n, self._make = n, make

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, k: int) -> Event:  # type: ignore[override]
        if not 0 <= k < self._n:
            raise IndexError(k)
        return self._make(k)


class _Chain(Sequence[Event]):
    """Several event sequences seen as one."""

    def __init__(self) -> None:
        self._parts: list[Sequence[Event]] = []
        self._starts: list[int] = []
        self._n = 0

    def extend(self, part: Sequence[Event]) -> None:
        self._parts.append(part)
        self._starts.append(self._n)
        self._n += len(part)

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, k: int) -> Event:  # type: ignore[override]
        if not 0 <= k < self._n:
            raise IndexError(k)
        p = bisect.bisect_right(self._starts, k) - 1
        return self._parts[p][k - self._starts[p]]


def _interval_candidates(
    za: np.ndarray, zb: np.ndarray, projection: Projection, width: int = 0
) -> tuple[Sequence[Event], np.ndarray, np.ndarray]:
    """All intervals between grid points, with their counts on both samples (vectorised)."""
    za, zb = np.sort(za[~np.isnan(za)]), np.sort(zb[~np.isnan(zb)])
    grid = grid_of_sorted(za, zb)
    ca = np.searchsorted(za, grid, side="right")
    cb = np.searchsorted(zb, grid, side="right")
    ca[0] = cb[0] = 0
    i, j = np.triu_indices(len(grid), k=1)
    events = _Lazy(
        len(i),
        lambda k: Event("interval", projection, float(grid[i[k]]), float(grid[j[k]]), width=width),
    )
    return events, ca[j] - ca[i], cb[j] - cb[i]


def _lattice_candidates(
    za: np.ndarray, zb: np.ndarray, projection: Projection, width: int = 0
) -> tuple[Sequence[Event], np.ndarray, np.ndarray]:
    """Intervals intersected with "not a multiple of 2^-K", for the :data:`LATTICE_LEVELS` most
    common lattice exponents K of the pooled draws (counts on both samples, vectorised)."""
    la, lb = lattice_exponent(za), lattice_exponent(zb)
    pooled = np.concatenate([la, lb])
    pooled = pooled[np.isfinite(pooled)]
    if pooled.size == 0:
        return [], np.zeros(0), np.zeros(0)
    levels, counts = np.unique(pooled, return_counts=True)
    chosen = levels[np.argsort(-counts, kind="stable")[:LATTICE_LEVELS]]
    events = _Chain()
    ka, kb = [], []
    for level in sorted(int(k) for k in chosen):
        off_a = np.where(la > level, za, np.nan)
        off_b = np.where(lb > level, zb, np.nan)
        evs, ca, cb = _interval_candidates(off_a, off_b, projection, width)
        events.extend(_on_lattice(evs, level))
        ka.append(ca)
        kb.append(cb)
    return events, np.concatenate(ka), np.concatenate(kb)


def _on_lattice(events: Sequence[Event], level: int) -> Sequence[Event]:
    """The events, each intersected with "not a multiple of 2^-level"."""
    return _Lazy(len(events), lambda k: _with_lattice(events[k], level))


def _with_lattice(event: Event, level: int) -> Event:
    return Event(event.kind, event.projection, event.lo, event.hi, width=event.width, lattice=level)


def _point_candidates(
    za: np.ndarray, zb: np.ndarray, projection: Projection, width: int = 0
) -> tuple[Sequence[Event], np.ndarray, np.ndarray]:
    pooled = np.concatenate([za, zb])
    pooled = pooled[~np.isnan(pooled)]
    if pooled.size == 0:
        return [], np.zeros(0), np.zeros(0)
    values, counts = np.unique(pooled, return_counts=True)
    repeated = values[counts >= 2]
    order = np.argsort(-counts[counts >= 2], kind="stable")[:MAX_POINT_EVENTS]
    chosen = repeated[order]
    events = [Event("point", projection, float(v), width=width) for v in chosen]
    ka = np.array([np.count_nonzero(za == v) for v in chosen])
    kb = np.array([np.count_nonzero(zb == v) for v in chosen])
    return events, ka, kb


Counted = tuple[Sequence[Event], np.ndarray, np.ndarray, np.ndarray, np.ndarray]
"""Candidate events with their counts on D's and D''s draws and the number of draws each count
is among (the whole selection sample, or its held-out half for a fitted score)."""


@dataclass(frozen=True)
class Families:
    """What the candidate events may use beyond the draws: the pair's ``data`` (for the "output
    equals a data value" events), the exact log-likelihood ratio ``llr`` (its level sets), and
    ``lattice`` (the float-lattice family), ``classifier`` (a logistic regression's level
    sets, :func:`dpquant.audit.events.scores.classifier_score`; on by default) and
    ``fitted_count`` (the signed midpoint count about the medians of the draws,
    :func:`dpquant.audit.events.projections.fitted_midpoint_count`; on by default)."""

    data: Sequence[np.ndarray] = ()
    llr: Callable[[np.ndarray], np.ndarray] | None = None
    lattice: bool = False
    classifier: bool = True
    fitted_count: bool = True


def candidate_events(a: Outputs, b: Outputs, families: Families = Families()) -> Counted:
    """Every candidate event with its counts on ``a`` (draws on D) and ``b`` (draws on D'), and
    the draws each count is among (the families of :class:`Families`). The histogram score
    is fitted on the first half of each sample and its events counted on the second half, so that
    a score never rates itself on the draws it was fitted to."""
    data, llr, lattice = families.data, families.llr, families.lattice
    events = _Chain()
    ka: list[np.ndarray] = []
    kb: list[np.ndarray] = []
    na: list[np.ndarray] = []
    nb: list[np.ndarray] = []

    def add(
        evs: Sequence[Event], x: Any, y: Any, among: tuple[int, int] = (len(a), len(b))
    ) -> None:
        events.extend(evs)
        ka.append(np.asarray(x, dtype=float))
        kb.append(np.asarray(y, dtype=float))
        na.append(np.full(len(ka[-1]), among[0]))
        nb.append(np.full(len(kb[-1]), among[1]))

    width = a.width
    if a.width == b.width:
        mid = midpoint_count(data, a.width)
        for proj in projections(a.width) + ([mid] if mid else []):
            za, zb = project(a, proj), project(b, proj)
            add(*_interval_candidates(za, zb, proj, width))
            add(*_point_candidates(za, zb, proj, width))
            if lattice and (not proj or proj[0] == "coord"):
                add(*_lattice_candidates(za, zb, proj, width))
        if a.width == 1 and data:
            d0, d1 = (np.unique(np.asarray(d, dtype=float)) for d in data)
            for vals in (np.union1d(d0, d1), np.setdiff1d(d0, d1), np.setdiff1d(d1, d0)):
                if vals.size:
                    e = Event("data_value", (), values=tuple(float(v) for v in vals), width=1)
                    add([e], [e.indicator(a).sum()], [e.indicator(b).sum()])
    else:  # numeric outputs of different widths on D and D': the width itself is an event
        for w in sorted({a.width, b.width}):
            e = Event("width", lo=float(w))
            add([e], [e.indicator(a).sum()], [e.indicator(b).sum()])
    names = sorted(set(a.atom_counts()) | set(b.atom_counts()))
    if names:
        ca, cb = a.atom_counts(), b.atom_counts()
        atom_events = [Event("atom", atom=n) for n in names] + [Event("atom", atom="*")]
        add(
            atom_events,
            [ca.get(n, 0) for n in names] + [sum(ca.values())],
            [cb.get(n, 0) for n in names] + [sum(cb.values())],
        )
    length = max(a.positions(), b.positions())
    if length:
        for part in _structured_candidates(a, b, length):
            add(*part)
    if llr is not None and a.width == b.width:
        add(*_likelihood_ratio_candidates(a, b, llr, width=width))
    fit_a, held_a = a.halves()
    fit_b, held_b = b.halves()
    held = (len(held_a), len(held_b))
    if a.width == b.width and fit_a.numeric.any() and fit_b.numeric.any() and len(held_a):
        score = histogram_score(fit_a, fit_b)
        add(*_likelihood_ratio_candidates(held_a, held_b, score, "histogram_ratio", width), held)
        count = fitted_midpoint_count(fit_a, fit_b) if families.fitted_count else None
        if count is not None:  # the midpoint count on records, whose answers are not known
            za, zb = project(held_a, count), project(held_b, count)
            add(*_interval_candidates(za, zb, count, width), held)
        if width >= 3:  # cumulative outputs (prefix sums, running counts): their increments
            steps = increments_score(fit_a, fit_b)
            add(
                *_likelihood_ratio_candidates(held_a, held_b, steps, "increments_ratio", width),
                held,
            )
    if families.classifier and len(held_a) and len(held_b):
        fitted = classifier_score(fit_a, fit_b, fit_size(min(len(a), len(b))))
        if fitted is not None:
            add(*_threshold_candidates(fitted(held_a), fitted(held_b), fitted), held)
    return events, np.concatenate(ka), np.concatenate(kb), np.concatenate(na), np.concatenate(nb)


def _token_hit(event: Event, out: Outputs) -> np.ndarray:
    """``token``: the draw's token at the event's position is its symbol; ``token_count``: the
    symbol stands at ``lo`` or more positions."""
    if out.tokens is None:
        return np.zeros(len(out), dtype=bool)
    if event.kind == "token":
        position = event.projection[1]
        if position >= out.positions():
            return np.zeros(len(out), dtype=bool)
        return out.tokens[:, position] == event.atom
    return np.count_nonzero(out.tokens == event.atom, axis=1) >= event.lo


def _structured_candidates(
    a: Outputs, b: Outputs, length: int
) -> list[tuple[Sequence[Event], np.ndarray, np.ndarray]]:
    """Events on structured draws (:class:`dpquant.audit.model.outputs.Outputs`, ``tokens``): each position's
    symbol, each symbol's number of positions (at least c, every c seen), and intervals of the
    numbers at each position (their pattern, the joint event, is an atom)."""
    ta, na = a.padded(length)
    tb, nb = b.padded(length)
    parts: list[tuple[Sequence[Event], np.ndarray, np.ndarray]] = []
    seen: set[Any] = set()  # every position's tokens
    for i in range(length):
        ca, cb = Counter(ta[:, i].tolist()), Counter(tb[:, i].tolist())
        here = set(ca) | set(cb)
        seen |= here
        symbols = sorted(here - {""})
        events = [Event("token", ("pos", i), atom=str(t)) for t in symbols]
        parts.append(
            (events, np.array([ca[t] for t in symbols]), np.array([cb[t] for t in symbols]))
        )
        if np.isfinite(na[:, i]).any() or np.isfinite(nb[:, i]).any():
            parts.append(_interval_candidates(na[:, i], nb[:, i], ("pos", i)))
    for t in sorted(seen - {"", "#"}):
        ca, cb = np.count_nonzero(ta == t, axis=1), np.count_nonzero(tb == t, axis=1)
        levels = np.arange(1, max(ca.max(initial=0), cb.max(initial=0)) + 1)
        events = [Event("token_count", atom=str(t), lo=float(c)) for c in levels]
        parts.append(
            (events, np.array([np.sum(ca >= c) for c in levels]),
             np.array([np.sum(cb >= c) for c in levels]))
        )  # fmt: skip
    return parts


def _likelihood_ratio_candidates(
    a: Outputs,
    b: Outputs,
    llr: Callable[[np.ndarray], np.ndarray],
    kind: str = "likelihood_ratio",
    width: int = 0,
) -> tuple[Sequence[Event], np.ndarray, np.ndarray]:
    la = llr(a.values[a.numeric])
    lb = llr(b.values[b.numeric])
    thresholds, ka, kb = _thresholds(la, lb)
    events = _Lazy(
        len(thresholds), lambda k: Event(kind, lo=float(thresholds[k]), llr=llr, width=width)
    )
    return events, ka, kb


def _threshold_candidates(
    sa: np.ndarray, sb: np.ndarray, score: Callable[[Outputs], np.ndarray]
) -> tuple[Sequence[Event], np.ndarray, np.ndarray]:
    """The level sets {score > t} of a classifier's score, ``sa`` and ``sb`` its values on the
    draws they are counted on."""
    thresholds, ka, kb = _thresholds(sa, sb)
    events = _Lazy(
        len(thresholds), lambda k: Event("classifier", lo=float(thresholds[k]), llr=score)
    )
    return events, ka, kb


def _thresholds(la: np.ndarray, lb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Thresholds t on a quantile grid of the pooled scores with its tail levels
    (:func:`dpquant.audit.events.grids.quantile_levels`: a score's best level set may hold well under 1/64 of the
    draws, as SVT6's at ε = 0.1) and the infinite ends, with the number of scores above each in
    ``la`` and in ``lb``."""
    pooled = np.concatenate([la, lb])
    pooled = pooled[~np.isnan(pooled)]
    if pooled.size == 0:
        return np.zeros(0), np.zeros(0), np.zeros(0)
    finite = pooled[np.isfinite(pooled)]
    ts = (
        np.unique(np.quantile(finite, quantile_levels(finite.size))) if finite.size else np.zeros(0)
    )
    # thresholds just below each level, so {llr > t} includes that level; and the infinite ends
    thresholds = np.unique(
        np.concatenate([np.nextafter(ts, -np.inf), [-np.inf, np.finfo(float).max]])
    )
    la, lb = np.sort(la), np.sort(lb)
    ka = la.size - np.searchsorted(la, thresholds, side="right")
    kb = lb.size - np.searchsorted(lb, thresholds, side="right")
    return thresholds, ka, kb


def score_events(
    events: Sequence[Event],
    ka: np.ndarray,
    kb: np.ndarray,
    na: Any,
    nb: Any,
    n_eval: int,
    delta: float,
    alpha: float,
    top: int = 1,
    z: float = SELECTION_Z,
) -> list[Scored]:
    """The ``top`` best (event, direction) pairs by :func:`dpquant.audit.statistics.bounds.selection_score`
    at Wilson level ``z`` (``na``, ``nb``: the draws each count is among, one number or one per
    event)."""
    both = np.concatenate(
        [
            selection_score(ka, na, kb, nb, n_eval, delta, alpha, z),
            selection_score(kb, nb, ka, na, n_eval, delta, alpha, z),
        ]
    )
    pa = np.asarray(ka, dtype=float) / np.broadcast_to(np.asarray(na, dtype=float), len(events))
    pb = np.asarray(kb, dtype=float) / np.broadcast_to(np.asarray(nb, dtype=float), len(events))
    order = _best_first(both, top)
    m = len(events)
    out = []
    for k in order:
        i, forward = (k, True) if k < m else (k - m, False)
        p0, p1 = (pa[i], pb[i]) if forward else (pb[i], pa[i])
        out.append(Scored(events[i], forward, float(both[k]), float(p0), float(p1)))
    return out


def _best_first(scores: np.ndarray, top: int) -> np.ndarray:
    """The indices of the ``top`` largest scores, the first of equal ones first (a stable sort
    of −scores, NaN last; for ``top`` = 1 without NaN, the first maximum: the same index without
    sorting millions of scores)."""
    if top == 1 and scores.size and not np.isnan(scores).any():
        return np.array([int(np.argmax(scores))])
    return np.argsort(-scores, kind="stable")[:top]


def best_event(
    a: Outputs,
    b: Outputs,
    n_eval: int,
    delta: float,
    alpha: float,
    families: Families = Families(),
    z: float = SELECTION_Z,
) -> Scored:
    """The best (event, direction) on the selection draws ``a`` (on D) and ``b`` (on D') among
    the candidate events of ``families``, ranked for ``n_eval`` evaluation draws (Wilson level
    ``z`` on the selection counts)."""
    events, ka, kb, na, nb = candidate_events(a, b, families)
    return score_events(events, ka, kb, na, nb, n_eval, delta, alpha, z=z)[0]


__all__ = [
    "NUMERIC",
    "Event",
    "Families",
    "Scored",
    "best_event",
    "candidate_events",
    "score_events",
]
