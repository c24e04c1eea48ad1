"""Scores fitted on selection draws, whose level sets are candidate events.

A fitted score is a function of the whole output; its events ``{score(y) > t}`` are counted on
draws it was not fitted to (:func:`dpquant.audit.events.families.candidate_events` fits on one half of the
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

from dpquant.audit.model.outputs import Outputs
from dpquant.reference.validation import check_int

EXACT_GRID_LIMIT = 256
"""A coordinate with at most this many distinct values gets one histogram bin per value."""
HISTOGRAM_BINS = 32
MAX_FEATURES = 256
"""Most features of the classifier (more: no classifier for that pair)."""
MAX_ATOM_FEATURES = 32
"""Most atoms with an indicator feature (the most frequent ones)."""
MAX_FIT = 50_000
"""Most draws per side the classifier is fitted on (the first ones of the fitting half)."""
LARGE_SELECTION = 1 << 20
"""Selection draws per side from which the classifier is fitted on up to :data:`LARGE_FIT`
(the size from which the selection also takes its counts at a stronger Wilson level,
:data:`dpquant.audit.events.refine.REFINE_FROM`)."""
LARGE_FIT = 1_000_000
"""Most draws per side the classifier is fitted on from a selection of :data:`LARGE_SELECTION`
draws per side (:func:`fit_size`)."""
MAX_FIT_LIMIT = 1 << 30
"""The largest ``fit`` :func:`classifier_score` takes."""
CHUNK = 1 << 18
"""Draws whose features are held at a time when fitting on, or scoring, more draws than this."""
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
        else:  # quantiles of the finite draws (±inf fall in the end bins)
            finite = pooled[np.isfinite(pooled)]
            levels = np.linspace(0, 1, HISTOGRAM_BINS + 1)[1:-1]
            cuts = np.unique(np.quantile(finite, levels)) if finite.size else distinct
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


def fit_size(selection: int) -> int:
    """The most draws per side the classifier is fitted on, for ``selection`` selection draws
    per side: :data:`MAX_FIT`, or :data:`LARGE_FIT` from :data:`LARGE_SELECTION`. Why: a
    classifier's level sets are only as good as its weights, and where the leak lies in a rare
    part of the output a fit on 50 000 draws a side mostly fits noise. On SVT34Parallel at
    ε = 0.1 (the half pair ([1]×10, [2]×5 + [0]×5), 4 M fresh draws a side) the level set of
    mass 1 % has log-ratio 0.169 fitted on 50 000 draws a side, 0.267 on 200 000 and 0.277 on
    10^6 (``notes/auditor.md``, "The classifier fitted on a large selection")."""
    selection = check_int(selection, "selection", minimum=0)
    return LARGE_FIT if selection >= LARGE_SELECTION else MAX_FIT


def _gradient_and_hessian(
    design: np.ndarray, y: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    z = np.clip(design @ w, -40.0, 40.0)
    p = 1.0 / (1.0 + np.exp(-z))
    return design.T @ (y - p), (design * (p * (1 - p))[:, None]).T @ design


def _logistic(x: np.ndarray, y: np.ndarray, steps: int = NEWTON_STEPS) -> tuple[np.ndarray, float]:
    """Weights and intercept of a ridge-penalised logistic regression of ``y`` on ``x`` (Newton's
    method; the intercept is not penalised). The gradient and Hessian are summed over blocks of
    :data:`CHUNK` rows (one block, the whole design, up to that size), so that memory beyond
    ``x`` stays a block's."""
    n, d = x.shape
    w = np.zeros(d + 1)
    penalty = np.full(d + 1, RIDGE * n)
    penalty[-1] = 0.0
    blocks = [slice(s, s + CHUNK) for s in range(0, n, CHUNK)]
    for _ in range(steps):
        grad = np.zeros(d + 1)
        hess = np.zeros((d + 1, d + 1))
        for rows in blocks:
            design = np.concatenate([x[rows], np.ones((len(x[rows]), 1))], axis=1)
            g, h = _gradient_and_hessian(design, y[rows], w)
            grad, hess = grad + g, hess + h
        grad = grad - penalty * w
        step = np.linalg.solve(hess + np.diag(penalty + 1e-9), grad)
        w += step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w[:-1], float(w[-1])


def _chunked(features: FeatureMap, out: Outputs) -> np.ndarray:
    """``features(out)``, computed :data:`CHUNK` draws at a time for long samples."""
    if len(out) <= CHUNK:
        return features(out)
    return np.concatenate(
        [features(out.rows(s, s + CHUNK)) for s in range(0, len(out), CHUNK)], axis=0
    )


def classifier_score(
    a: Outputs, b: Outputs, fit: int = MAX_FIT
) -> Callable[[Outputs], np.ndarray] | None:
    """A logistic regression of "drawn on D" on the features of :class:`FeatureMap`, fitted on
    ``a`` (draws on D) against ``b`` (on D'), at most ``fit`` of each (:func:`fit_size`); its
    log-odds as a function of :class:`Outputs`. None when there is nothing a linear score adds
    to the other event families (fewer than two features), or too many features."""
    fit = check_int(fit, "fit", minimum=2, maximum=MAX_FIT_LIMIT)
    features = FeatureMap.of(a, b)
    if not 2 <= features.size <= MAX_FEATURES or min(len(a), len(b)) < 2:
        return None
    xa, xb = _chunked(features, a.head(fit)), _chunked(features, b.head(fit))
    na, nb = len(xa), len(xb)
    x = np.concatenate([xa, xb])
    del xa, xb
    centre = x.mean(axis=0)
    spread = x.std(axis=0)
    used = spread > 0
    if used.sum() < 1:
        return None
    z = x[:, used]  # standardised in place: the same values as (x − centre) / spread
    del x
    z -= centre[used]
    z /= spread[used]
    y = np.r_[np.ones(na), np.zeros(nb)]
    try:
        w, w0 = _logistic(z, y)
    except np.linalg.LinAlgError:
        return None
    prior = np.log(nb / na)  # log-odds of a balanced sample
    if not (np.isfinite(w).all() and np.isfinite(w0)):
        return None

    def score(out: Outputs) -> np.ndarray:
        if len(out) > CHUNK:
            return np.concatenate([score(out.rows(s, s + CHUNK)) for s in range(0, len(out), CHUNK)])
        f = features(out)[:, used]
        return ((f - centre[used]) / spread[used]) @ w + w0 + prior

    return score


__all__ = [
    "EXACT_GRID_LIMIT",
    "HISTOGRAM_BINS",
    "LARGE_FIT",
    "LARGE_SELECTION",
    "MAX_FEATURES",
    "MAX_FIT",
    "FeatureMap",
    "classifier_score",
    "fit_size",
    "histogram_score",
    "increments",
    "increments_score",
]
