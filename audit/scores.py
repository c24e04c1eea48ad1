"""Scores fitted on selection draws, whose level sets are candidate events.

A fitted score is a function of the whole output; its events ``{score(y) > t}`` are counted on
draws it was not fitted to (:func:`audit.events.candidate_events` fits on one half of the
selection draws and counts on the other, and the chosen event is then evaluated on fresh draws),
so a score never rates itself. Two scores:

* :func:`histogram_score`: a naive-Bayes log-likelihood ratio from per-coordinate histograms of
  numeric outputs, and :func:`increments_score`, the same on the increments y_i − y_{i−1} of a
  vector: the outputs of a cumulative release (prefix sums, the running counts of a continual
  counter) are dependent, their increments are not, so it is there that a per-coordinate score is
  the Neyman–Pearson statistic (DP-Sniper's PrefixSum, Bichsel et al. 2021);
* :func:`classifier_score`: a logistic regression, D's draws against D''s, on features of the
  whole output (numeric coordinates, atoms, and each position's symbol and number of structured
  draws). This is the idea of DP-Sniper (Bichsel, Steffen, Bogunovic and Vechev, IEEE S&P 2021,
  Sec. IV): a classifier's estimate of Pr[D | y] orders the outputs by how much they favour D,
  and thresholds on it are the attack's events. Its log-odds approximate ln f_D(y) − ln f_D'(y)
  (the Neyman–Pearson statistic) wherever that ratio is linear in the features: the sum of a
  vector of independent Laplace releases, the bits of RAPPOR, the ⊤ count of the sparse vector
  technique.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from audit.outputs import Outputs

EXACT_GRID_LIMIT = 256
"""A coordinate with at most this many distinct values gets one histogram bin per value."""
HISTOGRAM_BINS = 32
MAX_FEATURES = 256
"""Most features of the classifier (more: no classifier for that pair)."""
MAX_ATOM_FEATURES = 32
"""Most atoms with an indicator feature (the most frequent ones)."""
MAX_FIT = 50_000
"""Most draws per side the classifier is fitted on (the first ones of the fitting half)."""
NEWTON_STEPS = 30
RIDGE = 1e-3
"""L2 penalty of the logistic regression, per fitted draw (keeps separable draws finite)."""


def histogram_score(a: Outputs, b: Outputs) -> Callable[[np.ndarray], np.ndarray]:
    """Naive-Bayes log-likelihood-ratio score from per-coordinate histograms of the numeric
    draws ``a`` (on D) and ``b`` (on D'), with ½-smoothed counts; a function of the (n, k)
    output matrix. Bins are quantiles of the pooled draws (every value when few are distinct)."""
    va, vb = a.values[a.numeric], b.values[b.numeric]
    edges, ratios = [], []
    for i in range(va.shape[1]):
        pooled = np.concatenate([va[:, i], vb[:, i]])
        distinct = np.unique(pooled)
        if distinct.size <= EXACT_GRID_LIMIT:
            cuts = distinct
        else:
            cuts = np.unique(np.quantile(pooled, np.linspace(0, 1, HISTOGRAM_BINS + 1)[1:-1]))
        ca = np.bincount(np.searchsorted(cuts, va[:, i], side="left"), minlength=cuts.size + 1)
        cb = np.bincount(np.searchsorted(cuts, vb[:, i], side="left"), minlength=cuts.size + 1)
        ratio = np.log((ca + 0.5) / (len(va) + 1.0)) - np.log((cb + 0.5) / (len(vb) + 1.0))
        edges.append(cuts)
        ratios.append(ratio)

    def score(values: np.ndarray) -> np.ndarray:
        values = np.asarray(values, dtype=float).reshape(len(values), -1)
        total = np.zeros(len(values))
        for i, (cuts, ratio) in enumerate(zip(edges, ratios, strict=True)):
            total += ratio[np.searchsorted(cuts, values[:, i], side="left")]
        return total

    return score


def increments(values: np.ndarray) -> np.ndarray:
    """The increments y_0, y_1 − y_0, …, y_{k−1} − y_{k−2} of each row of ``values``."""
    values = np.asarray(values, dtype=float).reshape(len(values), -1)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.diff(values, axis=1, prepend=0.0)


def increments_score(a: Outputs, b: Outputs) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`histogram_score` of the increments of the numeric draws (module docstring); a
    function of the (n, k) output matrix."""
    on_steps = histogram_score(_stepped(a), _stepped(b))

    def score(values: np.ndarray) -> np.ndarray:
        return on_steps(increments(values))

    return score


def _stepped(out: Outputs) -> Outputs:
    return Outputs(np.where(out.numeric[:, None], increments(out.values), np.nan), out.atoms)


@dataclass(frozen=True)
class FeatureMap:
    """Features of an output, fixed by the draws a classifier is fitted on: the ``width``
    numeric coordinates (0 for atoms), an indicator per atom of ``atoms``, and for structured
    draws, an indicator per (position, symbol) of ``symbols`` and the number at each position of
    ``numbered`` (0 where there is none)."""

    width: int
    atoms: tuple[str, ...]
    symbols: tuple[tuple[int, str], ...]
    numbered: tuple[int, ...]

    @property
    def size(self) -> int:
        return self.width + len(self.atoms) + len(self.symbols) + len(self.numbered)

    @classmethod
    def of(cls, a: Outputs, b: Outputs) -> FeatureMap:
        counts = a.atom_counts()
        for name, c in b.atom_counts().items():
            counts[name] = counts.get(name, 0) + c
        atoms = tuple(sorted(counts, key=lambda n: (-counts[n], n))[:MAX_ATOM_FEATURES])
        width = a.width if (a.numeric.any() or b.numeric.any()) and a.width == b.width else 0
        length = max(a.positions(), b.positions())
        symbols: list[tuple[int, str]] = []
        numbered: list[int] = []
        if length:
            ta, na = a.padded(length)
            tb, nb = b.padded(length)
            for i in range(length):
                seen = (set(ta[:, i]) | set(tb[:, i])) - {"", "#"}
                symbols += [(i, str(t)) for t in sorted(seen)]
                if np.isfinite(na[:, i]).any() or np.isfinite(nb[:, i]).any():
                    numbered.append(i)
        return cls(width, atoms, tuple(symbols), tuple(numbered))

    def __call__(self, out: Outputs) -> np.ndarray:
        cols: list[np.ndarray] = []
        if self.width:
            ok = out.numeric & (out.width == self.width)
            vals = out.values if out.width == self.width else np.zeros((len(out), self.width))
            cols.append(np.where(ok[:, None], np.nan_to_num(vals), 0.0))
        if self.atoms:
            cols.append(np.stack([out.atoms == n for n in self.atoms], axis=1).astype(float))
        length = 1 + max((i for i, _ in self.symbols), default=-1)
        length = max(length, 1 + max(self.numbered, default=-1))
        if length:
            tokens, numbers = out.padded(length)
            if self.symbols:
                cols.append(
                    np.stack([tokens[:, i] == t for i, t in self.symbols], axis=1).astype(float)
                )
            if self.numbered:
                cols.append(np.nan_to_num(numbers[:, list(self.numbered)], nan=0.0))
        if not cols:
            return np.zeros((len(out), 0))
        with np.errstate(over="ignore", invalid="ignore"):
            x = np.concatenate(cols, axis=1)
        return np.clip(x, -1e150, 1e150)  # infinities and huge values stay finite in the fit


def _logistic(x: np.ndarray, y: np.ndarray, steps: int = NEWTON_STEPS) -> tuple[np.ndarray, float]:
    """Weights and intercept of a ridge-penalised logistic regression of ``y`` on ``x`` (Newton's
    method; the intercept is not penalised)."""
    n, d = x.shape
    design = np.concatenate([x, np.ones((n, 1))], axis=1)
    w = np.zeros(d + 1)
    penalty = np.full(d + 1, RIDGE * n)
    penalty[-1] = 0.0
    for _ in range(steps):
        z = np.clip(design @ w, -40.0, 40.0)
        p = 1.0 / (1.0 + np.exp(-z))
        grad = design.T @ (y - p) - penalty * w
        hess = (design * (p * (1 - p))[:, None]).T @ design + np.diag(penalty + 1e-9)
        step = np.linalg.solve(hess, grad)
        w += step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w[:-1], float(w[-1])


def classifier_score(a: Outputs, b: Outputs) -> Callable[[Outputs], np.ndarray] | None:
    """A logistic regression of "drawn on D" on the features of :class:`FeatureMap`, fitted on
    ``a`` (draws on D) against ``b`` (on D'), at most :data:`MAX_FIT` of each; its log-odds as a
    function of :class:`Outputs`. None when there is nothing a linear score adds to the other
    event families (fewer than two features), or too many features."""
    features = FeatureMap.of(a, b)
    if not 2 <= features.size <= MAX_FEATURES or min(len(a), len(b)) < 2:
        return None
    xa, xb = features(a.head(MAX_FIT)), features(b.head(MAX_FIT))
    x = np.concatenate([xa, xb])
    centre = x.mean(axis=0)
    spread = x.std(axis=0)
    used = spread > 0
    if used.sum() < 1:
        return None
    z = (x[:, used] - centre[used]) / spread[used]
    y = np.r_[np.ones(len(xa)), np.zeros(len(xb))]
    try:
        w, w0 = _logistic(z, y)
    except np.linalg.LinAlgError:
        return None
    prior = np.log(len(xb) / len(xa))  # log-odds of a balanced sample
    if not (np.isfinite(w).all() and np.isfinite(w0)):
        return None

    def score(out: Outputs) -> np.ndarray:
        f = features(out)[:, used]
        return ((f - centre[used]) / spread[used]) @ w + w0 + prior

    return score


__all__ = [
    "EXACT_GRID_LIMIT",
    "HISTOGRAM_BINS",
    "MAX_FEATURES",
    "FeatureMap",
    "classifier_score",
    "histogram_score",
    "increments",
    "increments_score",
]
