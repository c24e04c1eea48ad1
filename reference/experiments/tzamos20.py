"""Accuracy study of tzamos20's ε-DP private median (spec §3 T9/T20/T21, §5; issue item 5).

``dpquant reproduce tzamos20 [--runs 40] [--n-values 20,40,...,5120] [--regimes LIST]
[--distributions uniform,pareto] [--c 5/4] [--c-rule constant|log] [--seed 0] [--workers 1]
[--out DIR] [--quick]`` or :func:`run_study`.

The paper has no experiments (spec §5); this study is ours. It measures the **exact miss
probability** of PrivateMedian(mode="extension") as n grows,

    P(|A(X) − m(D)| > α) = E_{X~Dⁿ}[ 1 − P(A(X) ∈ [m(D) − α, m(D) + α] | X) ],

where the inner probability is exact for each sampled X (``law = mech.exact(X)``, the piecewise
log-linear output law of spec §4.1, integrated at 60 digits by
:meth:`~reference.distributions.PiecewiseLogLinear.mass`) and only the outer expectation over the
data is Monte Carlo (``runs`` data sets per cell; mean, its standard error, a normal 95% CI).

**Distributions** (both (L, R, r)-admissible in the sense of spec §1.2, both with density exactly
L on [m − r, m + r], so the study sits on the boundary of the class): :class:`UniformData`
(U[m − 1/(2L), m + 1/(2L)]) and :class:`ParetoTailedData` (a uniform core of mass 2Lr plus a
symmetric Pareto(1) tail, no mean). Their CDFs agree on [m − r, m + r], so the non-private
baseline (the empirical median) has the same miss probability under both for every α < r: any
difference in the private curves is due to the tails alone.

**Rate terms** (Theorem 3.1 [INF], spec §5): T₁ = log(1/β)/(L²α²) (statistical),
T₂ = log(1/β)/(εLα) (local privacy), T₃ = log(R/α + 1)/(εLr) (global privacy); the Thm 3.6 upper
bound T₁ + C·T₂ + T₃. The default :data:`REGIMES` choose (ε, α, R) so that each T dominates in
turn. For each regime and distribution the crossing n (the grid n from which the mean miss stays
<= β, and a log-log interpolation of the first crossing) is reported against max(T₁, T₂, T₃) and
the Thm 3.6 bound (``tzamos20_crossings.csv``).

**Baseline**: the left empirical median x_(ℓ), ℓ = ⌈n/2⌉, whose miss probability is exact:
P(Bin(n, F(m − α)) >= ℓ) + P(Bin(n, F(m + α)) <= ℓ − 1) (:func:`empirical_median_miss`, Fractions);
its Monte Carlo estimate on the same data sets is reported beside it.

**Typicality** (Lemma B.2/B.3, spec T6/T8, cheap): for every data set, X ∈ H and TH(X, m(X))
(the exact TYPICALHAMMING); the CSV has the rate P[X ∉ H] (Clopper–Pearson 95%) and the
quantiles of TH(X, m(X)), and the share of data sets on which A(X) = Â(X) exactly (Ψ_X is the
single tent at m(X), spec T11).

**Fixed-design data**: one extra data set per cell, the quantiles F⁻¹((i − ½)/n) (floats read
exactly): its miss probability is exact with no Monte Carlo at all (the dashed curves).

**C**: a constant (default 5/4: Lemma 3.4 needs C > 1) or C = C₀·ln n (Cor. E.10; rounded to a
multiple of 1/64 so that everything stays rational). The theory's C > 104.3 (Lemma 3.5, spec
§1.8) is out of reach: the Laplace rate of the output is λ = εLn/(12C), so the local term needs
n ≈ 12C·log(1/β)/(εLα), i.e. n ≈ 10⁴ already for ε = 1/4, α = 9/10.

**Randomness**: ``SeedSequence(seed, spawn_key=(crc("tzamos20"), crc(data key), j))`` for data
set j, the data key being (distribution, n, L, r, median): the results depend neither on
``workers`` nor on how the cells are chunked, and every regime sees the same data sets (common
random numbers, so the regimes' curves differ by the mechanism only).

Outputs in ``out``: ``tzamos20.csv`` (one row per regime, distribution and n),
``tzamos20_runs.csv`` (one row per data set), ``tzamos20_crossings.csv`` and the figures
``tzamos20_miss.png`` (miss vs n per regime, with T₁, T₂, T₃ and the Thm 3.6 bound),
``tzamos20_typical.png`` (P[X ∉ H] and TH(X, m(X)) quantiles vs n) and
``tzamos20_crossings.png`` (crossing n vs max(T₁, T₂, T₃) and vs the Thm 3.6 bound).
"""

from __future__ import annotations

import math
import time
import zlib
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import numpy as np

from reference.conformance import clopper_pearson
from reference.distributions import PiecewiseLogLinear
from reference.exact.mp import logsumexp, to_mpf, workdps
from reference.experiments.aamand25 import _axes_grid, write_csv
from reference.experiments.aamand25_data import check_seed
from reference.experiments.common import name_choices
from reference.private_median.extended_density import Piece
from reference.private_median.mechanism import PrivateMedian
from reference.private_median.parameters import MedianParameters
from reference.private_median.restricted_density import restricted_pieces
from reference.private_median.typical_set import (
    exact_data,
    in_typical_set,
    left_median,
    typical_hamming,
)
from reference.validation import (
    check_choice,
    check_flag,
    check_fraction,
    check_int,
    check_probability,
    check_rng,
)

MAX_STUDY_N = 10**5
MAX_RUNS = 10**6
MAX_WORKERS = 256


DISTRIBUTIONS = ("uniform", "pareto")
C_RULES = ("constant", "log")
DEFAULT_L = Fraction(2, 5)
DEFAULT_r = Fraction(1)
DEFAULT_C = Fraction(5, 4)
DEFAULT_BETA = Fraction(1, 10)
DEFAULT_RUNS = 40
QUICK_RUNS = 12
DEFAULT_NS: tuple[int, ...] = (20, 40, 80, 160, 320, 480, 640, 1280, 2560, 5120)
QUICK_NS: tuple[int, ...] = (8, 16, 32)
C_LOG_DENOMINATOR = 64
Z95 = 1.959963984540054
CHUNK = 8  # data sets per task
DEFAULT_OUT = Path("reports") / "tzamos20"

SUMMARY_COLUMNS = (
    "regime", "dominant_term", "distribution", "n", "epsilon", "alpha", "beta", "L", "r", "R",
    "median", "C", "K", "runs", "miss_mean", "miss_se", "miss_ci_low", "miss_ci_high",
    "miss_q10", "miss_q50", "miss_q90", "miss_fixed", "baseline_exact", "baseline_mc",
    "baseline_mc_se", "atypical_rate", "atypical_ci_low", "atypical_ci_high", "th_mean",
    "th_q50", "th_q90", "th_max", "restricted_share", "T1", "T2", "T3", "T_max", "thm36_bound",
    "seconds",
)  # fmt: skip
RUN_COLUMNS = (
    "regime", "distribution", "n", "run", "C", "miss", "baseline_miss", "in_h", "th_median",
    "pieces", "restricted", "seconds",
)  # fmt: skip
CROSSING_COLUMNS = (
    "regime", "dominant_term", "distribution", "epsilon", "alpha", "beta", "R", "C", "T1", "T2",
    "T3", "T_max", "thm36_bound", "n_star_mean", "n_star_ci", "n_cross", "ratio_to_T_max",
    "ratio_to_thm36", "baseline_n_star", "baseline_n_cross",
)  # fmt: skip
TIMING_COLUMNS = ("seconds",)

Progress = Callable[[str, int, int], None]


# --------------------------------------------------------------------------------------------
# the rate of Theorem 3.1
# --------------------------------------------------------------------------------------------


def rate_terms(L: Any, r: Any, R: Any, epsilon: Any, alpha: Any, beta: Any) -> dict[str, float]:
    """T₁ = log(1/β)/(L²α²), T₂ = log(1/β)/(εLα), T₃ = log(R/α + 1)/(εLr) (Theorem 3.1 as
    reconstructed, spec §5 / T20)."""
    L, r, R, e, a = (float(v) for v in (L, r, R, epsilon, alpha))
    b = check_probability(float(beta), "beta", open_left=True, open_right=True)
    if min(L, r, R, e, a) <= 0:
        raise ValueError("L, r, R, epsilon and alpha must be > 0")
    lb = math.log(1.0 / b)
    return {
        "T1": lb / (L * L * a * a),
        "T2": lb / (e * L * a),
        "T3": math.log(R / a + 1.0) / (e * L * r),
    }


def theorem_3_6_bound(terms: dict[str, float], C: Any) -> float:
    """The O(·) of Theorem 3.6/B.4 with constant 1: T₁ + C·T₂ + T₃ (spec T9)."""
    return terms["T1"] + float(C) * terms["T2"] + terms["T3"]


def dominant_term(terms: dict[str, float]) -> str:
    """Which of T₁, T₂, T₃ is largest."""
    return max(("T1", "T2", "T3"), key=lambda k: terms[k])


# --------------------------------------------------------------------------------------------
# admissible distributions
# --------------------------------------------------------------------------------------------


def _check_admissible(median: Fraction, L: Fraction, r: Fraction, R: Fraction) -> None:
    """The parts of Assumption 1.2 (spec §1.2) common to both families: Lr <= 1/2, |m| <= R."""
    if L * r > Fraction(1, 2):
        raise ValueError(f"L·r must be at most 1/2, got {L * r}")
    if abs(median) > R:
        raise ValueError(f"the median must lie in [-R, R] = [{-R}, {R}], got {median}")


@dataclass(frozen=True)
class UniformData:
    """D = U[m − w, m + w] with w = 1/(2L): density exactly L on its support.

    Admissibility (spec §1.2): the median is m (symmetry, F strictly increasing), and
    [m − r, m + r] ⊆ [m − w, m + w] because Lr <= 1/2 ⇔ r <= w, where the density is L; with
    |m| <= R it is (L, R, r)-admissible, and tight (the density bound holds with equality).
    CDF: F(m + t) = 1/2 + L·t for |t| <= w.
    """

    L: Fraction
    median: Fraction = Fraction(0)
    name: str = "uniform"

    @property
    def half_width(self) -> Fraction:
        return 1 / (2 * self.L)

    def check_admissible(self, L: Any, r: Any, R: Any) -> None:
        """ValueError unless D is (L, R, r)-admissible."""
        L, r, R = Fraction(L), Fraction(r), Fraction(R)
        _check_admissible(self.median, L, r, R)
        if self.L < L:
            raise ValueError(f"the density 1/(2w) = {self.L} is below L = {L}")

    def cdf(self, x: Any) -> Fraction:
        """F(x), exact."""
        t = Fraction(x) - self.median
        w = self.half_width
        return Fraction(0) if t <= -w else Fraction(1) if t >= w else Fraction(1, 2) + self.L * t

    def quantile(self, u: np.ndarray) -> np.ndarray:
        """F⁻¹(u), float."""
        w = float(self.half_width)
        return float(self.median) + w * (2.0 * np.asarray(u, dtype=float) - 1.0)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` i.i.d. draws (float, vectorised)."""
        return self.quantile(check_rng(rng).random(size))


@dataclass(frozen=True)
class ParetoTailedData:
    """A heavy-tailed admissible D: with probability w = 2Lr a point of U[m − r, m + r], otherwise
    m ± r/V with V ~ U(0, 1] and the sign a fair coin (a Pareto(1) tail on each side: no mean).

    Density: L·1{|t| <= r} + ((1 − w)/2)·r/t²·1{|t| > r} at m + t. Admissibility (spec §1.2):
    (i) D is symmetric about m and has density L > 0 at m, so m is its unique median; |m| <= R is
    checked. (ii) On [m − r, m + r] the density is w/(2r) = L (the tail puts no mass there), so
    the bound f >= L holds with equality. Outside, D is arbitrary (here: no moments).
    CDF: F(m + t) = ((1 − w)/2)·r/|t| for t <= −r, 1/2 + L·t for |t| <= r,
    1 − ((1 − w)/2)·r/t for t >= r. It agrees with :class:`UniformData` on [m − r, m + r].
    """

    L: Fraction
    r: Fraction
    median: Fraction = Fraction(0)
    name: str = "pareto"

    @property
    def core_mass(self) -> Fraction:
        return 2 * self.L * self.r

    def check_admissible(self, L: Any, r: Any, R: Any) -> None:
        """ValueError unless D is (L, R, r)-admissible."""
        L, r, R = Fraction(L), Fraction(r), Fraction(R)
        _check_admissible(self.median, L, r, R)
        if self.core_mass > 1:
            raise ValueError(f"the core mass 2Lr must be at most 1, got {self.core_mass}")
        if self.L < L or self.r < r:
            raise ValueError(f"the core (L = {self.L}, r = {self.r}) is narrower than (L, r)")

    def cdf(self, x: Any) -> Fraction:
        """F(x), exact."""
        t = Fraction(x) - self.median
        tail = (1 - self.core_mass) / 2
        if t <= -self.r:
            return tail * self.r / -t
        if t >= self.r:
            return 1 - tail * self.r / t
        return Fraction(1, 2) + self.L * t

    def quantile(self, u: np.ndarray) -> np.ndarray:
        """F⁻¹(u) for u ∈ (0, 1), float."""
        u = np.asarray(u, dtype=float)
        tail, r, L = float((1 - self.core_mass) / 2), float(self.r), float(self.L)
        with np.errstate(divide="ignore"):
            low = -tail * r / np.where(u < tail, u, 1.0)
            high = tail * r / np.where(u > 1.0 - tail, 1.0 - u, 1.0)
        core = (u - 0.5) / L
        t = np.where(u < tail, low, np.where(u > 1.0 - tail, high, core))
        return float(self.median) + t

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` i.i.d. draws (float, vectorised): the component, then the point."""
        rng = check_rng(rng)
        core = rng.random(size) < float(self.core_mass)
        u = rng.random(size)
        v = 1.0 - rng.random(size)  # (0, 1]
        sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
        r = float(self.r)
        t = np.where(core, r * (2.0 * u - 1.0), sign * r / v)
        return float(self.median) + t


Distribution = UniformData | ParetoTailedData


def make_distribution(name: str, L: Any, r: Any, median: Any = 0) -> Distribution:
    """The study's D ∈ {uniform, pareto} with density exactly L on [m − r, m + r]."""
    L, r, median = Fraction(L), Fraction(r), Fraction(median)
    if name == "uniform":
        return UniformData(L, median)
    if name == "pareto":
        return ParetoTailedData(L, r, median)
    raise ValueError(f"distribution must be one of {DISTRIBUTIONS}, got {name!r}")


def fixed_design(dist: Distribution, n: int) -> np.ndarray:
    """The quantile data set F⁻¹((i − ½)/n), i = 1..n (floats; read exactly by the mechanism)."""
    n = check_int(n, "n", minimum=1)
    return dist.quantile((np.arange(1, n + 1) - 0.5) / n)


# --------------------------------------------------------------------------------------------
# exact miss probabilities
# --------------------------------------------------------------------------------------------


def _binomial_cdf(n: int, p: Fraction, k: int) -> Fraction:
    """P(Bin(n, p) <= k), exact: Σ_{j<=k} C(n, j)·a^j·(d − a)^{n−j}/dⁿ for p = a/d (1 − p has
    the same reduced denominator d)."""
    if k < 0:
        return Fraction(0)
    if k >= n:
        return Fraction(1)
    a, d = p.numerator, p.denominator
    total = sum(math.comb(n, j) * a**j * (d - a) ** (n - j) for j in range(k + 1))
    return Fraction(total, d**n)


def empirical_median_miss(
    dist: Distribution, n: int, alpha: Any, ell: int | None = None
) -> Fraction:
    """P(|x_(ℓ) − m(D)| > α) for X ~ Dⁿ, exact (spec T7's binomial law of the order statistic):
    x_(ℓ) < m − α ⇔ #{X_i < m − α} >= ℓ and x_(ℓ) > m + α ⇔ #{X_i <= m + α} <= ℓ − 1, with
    P(X_i < m − α) = F(m − α) and P(X_i <= m + α) = F(m + α) (D has no atoms). ℓ = ⌈n/2⌉."""
    n = check_int(n, "n", minimum=1)
    alpha = check_fraction(alpha, "alpha", positive=True)
    ell = (n + 1) // 2 if ell is None else check_int(ell, "ell", minimum=1)
    p_lo = dist.cdf(dist.median - alpha)
    p_hi = dist.cdf(dist.median + alpha)
    below = 1 - _binomial_cdf(n, p_lo, ell - 1)  # Bin(n, F(m − α)) >= ℓ
    above = _binomial_cdf(n, p_hi, ell - 1)  # Bin(n, F(m + α)) <= ℓ − 1
    return below + above


def private_miss(law: PiecewiseLogLinear, center: Any, alpha: Any) -> mpmath.mpf:
    """P(|A(X) − center| > α) = 1 − law.mass(center − α, center + α) (exact, 60 digits)."""
    c, a = Fraction(center), Fraction(alpha)
    with workdps():
        return 1 - law.mass(c - a, c + a)


def miss_from_pieces(pieces: Sequence[Piece], epsilon: Any, center: Any, alpha: Any) -> mpmath.mpf:
    """The same miss probability integrated directly from Ψ's pieces (f ∝ exp((ε/2)Ψ), spec §4.1):
    the mass outside [c − α, c + α] over the total, each piece's part by the closed form of
    ∫ e^{ay + b}. An independent check of :func:`private_miss`."""
    c, a = Fraction(center), Fraction(alpha)
    half = Fraction(epsilon) / 2

    def log_part(p: Piece, lo: Fraction, hi: Fraction) -> mpmath.mpf:
        s, b = to_mpf(half * p.slope), to_mpf(half * p.intercept)
        lo_m, hi_m = to_mpf(lo), to_mpf(hi)
        if s == 0:
            return b + mpmath.log(hi_m - lo_m)
        return mpmath.log(abs(mpmath.exp(s * hi_m + b) - mpmath.exp(s * lo_m + b)) / abs(s))

    with workdps():
        total, outside = [], []
        for p in pieces:
            total.append(log_part(p, p.lo, p.hi))
            for lo, hi in ((p.lo, min(p.hi, c - a)), (max(p.lo, c + a), p.hi)):
                if lo < hi:
                    outside.append(log_part(p, lo, hi))
        return mpmath.exp(logsumexp(outside) - logsumexp(total))


# --------------------------------------------------------------------------------------------
# cells
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Regime:
    """A setting of (ε, α, R) with β; L, r, C are the study's."""

    name: str
    epsilon: Fraction
    alpha: Fraction
    R: Fraction
    beta: Fraction = DEFAULT_BETA

    def __post_init__(self) -> None:
        for k in ("epsilon", "alpha", "R", "beta"):
            object.__setattr__(self, k, check_fraction(getattr(self, k), k, positive=True))
        if not self.beta < Fraction(1, 2):
            raise ValueError(f"beta must lie in (0, 1/2), got {self.beta}")


# (ε, α, R) chosen so that T₁, T₂, T₃ dominate in turn for L = 2/5, r = 1, β = 1/10:
#   statistical: (T₁, T₂, T₃) = (230, 23, 4.0); local: (17.8, 25.6, 7.5); global: (17.8, 12.8, 69.5).
REGIMES: tuple[Regime, ...] = (
    Regime("statistical", Fraction(1), Fraction(1, 4), Fraction(1)),
    Regime("local", Fraction(1, 4), Fraction(9, 10), Fraction(1)),
    Regime("global", Fraction(1, 2), Fraction(9, 10), Fraction(10**6)),
)
QUICK_REGIMES: tuple[Regime, ...] = (Regime("quick", Fraction(1), Fraction(9, 10), Fraction(1)),)


def c_for(n: int, c: Fraction, c_rule: str) -> Fraction:
    """C for sample size n: the constant ``c``, or C₀·ln n with C₀ = ``c`` (Cor. E.10), rounded
    to a multiple of 1/64 and at least 1/64."""
    if c_rule == "constant":
        return c
    if c_rule == "log":
        value = float(c) * math.log(max(n, 2))
        return max(Fraction(round(value * C_LOG_DENOMINATOR), C_LOG_DENOMINATOR), Fraction(1, 64))
    raise ValueError(f"c_rule must be one of {C_RULES}, got {c_rule!r}")


@dataclass(frozen=True)
class Cell:
    """One curve point: a regime, a distribution and n."""

    regime: Regime
    distribution: str
    n: int
    L: Fraction
    r: Fraction
    C: Fraction
    median: Fraction
    runs: int

    @property
    def key(self) -> str:
        """The cell's identity (not ``runs``)."""
        g = self.regime
        return f"{g.name}|{g.epsilon}|{g.alpha}|{g.R}|{self.C}|{self.data_key}"

    @property
    def data_key(self) -> str:
        """What the data depend on: not the regime nor C (common random numbers: every regime
        sees the same data sets)."""
        return f"{self.distribution}|{self.n}|{self.L}|{self.r}|{self.median}"

    def mechanism(self) -> PrivateMedian:
        return PrivateMedian(self.L, self.r, self.regime.R, self.C, self.regime.epsilon)

    def dist(self) -> Distribution:
        return make_distribution(self.distribution, self.L, self.r, self.median)


def _crc(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


def data_seed(seed: int, cell: Cell, j: int) -> np.random.SeedSequence:
    """The randomness of data set ``j`` of ``cell`` (module docstring)."""
    key = (_crc("tzamos20"), _crc(cell.data_key), int(j))
    return np.random.SeedSequence(check_seed(seed), spawn_key=key)


def cell_data(cell: Cell, seed: int, j: int) -> np.ndarray:
    """Data set ``j`` of ``cell``: n i.i.d. draws of D; j = −1 is the fixed design."""
    dist = cell.dist()
    if j < 0:
        return fixed_design(dist, cell.n)
    return dist.sample(cell.n, np.random.default_rng(data_seed(seed, cell, j)))


@dataclass(frozen=True)
class DataResult:
    """What one data set gives: the exact private miss, the baseline's miss indicator, X ∈ H,
    TH(X, m(X)), the number of pieces of Ψ_X and whether Ψ_X is the restricted tent."""

    run: int
    miss: float
    baseline_miss: bool
    in_h: bool
    th_median: int
    pieces: int
    restricted: bool
    seconds: float


def evaluate_data(
    mech: PrivateMedian, data: Any, center: Any, alpha: Any
) -> tuple[float, bool, bool, int, int, bool]:
    """For one data set: (exact miss of A(X) around ``center``, |m(X) − center| > α, X ∈ H,
    TH(X, m(X)), #pieces of Ψ_X, Ψ_X = the single tent at m(X))."""
    x = exact_data(data)
    params: MedianParameters = mech.parameters(len(x))
    pieces = mech.pieces(x)
    law = mech.exact(x)
    miss = float(private_miss(law, center, alpha))
    m = left_median(x, params)
    tent = restricted_pieces(m, params)
    return (
        miss,
        abs(m - Fraction(center)) > Fraction(alpha),
        in_typical_set(x, params),
        int(typical_hamming(x, m, params)),
        len(pieces),
        list(pieces) == list(tent),
    )


def run_data(cell: Cell, seed: int, j: int) -> DataResult:
    """Evaluate data set ``j`` of ``cell`` (j = −1: the fixed design)."""
    start = time.perf_counter()
    x = cell_data(cell, seed, j)
    out = evaluate_data(cell.mechanism(), x, cell.median, cell.regime.alpha)
    return DataResult(j, *out, time.perf_counter() - start)


@dataclass(frozen=True)
class _Task:
    cell: Cell
    seed: int
    runs: tuple[int, ...]


def _run_task(task: _Task) -> tuple[Cell, list[DataResult]]:
    return task.cell, [run_data(task.cell, task.seed, j) for j in task.runs]


# --------------------------------------------------------------------------------------------
# summaries
# --------------------------------------------------------------------------------------------


def _quantile(values: Sequence[float], q: float) -> float:
    return float(np.quantile(np.asarray(values, dtype=float), q, method="inverted_cdf"))


def summary_row(cell: Cell, results: Sequence[DataResult]) -> dict[str, Any]:
    """The CSV row of one cell (module docstring): mean exact miss, SE, normal 95% CI, its
    quantiles over the data sets, the fixed-design miss, the baseline (exact and Monte Carlo),
    P[X ∉ H] (Clopper–Pearson 95%), TH(X, m(X)) quantiles, the rate terms."""
    g = cell.regime
    iid = [r for r in results if r.run >= 0]
    fixed = next((r for r in results if r.run < 0), None)
    m = len(iid)
    miss = np.array([r.miss for r in iid], dtype=float)
    mean = float(miss.mean()) if m else math.nan
    se = float(miss.std(ddof=1) / math.sqrt(m)) if m > 1 else math.nan
    hits = np.array([r.baseline_miss for r in iid], dtype=float)
    atypical = sum(1 for r in iid if not r.in_h)
    lo, hi = clopper_pearson(atypical, m, 0.05) if m else (math.nan, math.nan)
    th = [r.th_median for r in iid]
    terms = rate_terms(cell.L, cell.r, g.R, g.epsilon, g.alpha, g.beta)
    params = cell.mechanism().parameters(cell.n)
    return {
        "regime": g.name,
        "dominant_term": dominant_term(terms),
        "distribution": cell.distribution,
        "n": cell.n,
        "epsilon": float(g.epsilon),
        "alpha": float(g.alpha),
        "beta": float(g.beta),
        "L": float(cell.L),
        "r": float(cell.r),
        "R": float(g.R),
        "median": float(cell.median),
        "C": float(cell.C),
        "K": params.windows,
        "runs": m,
        "miss_mean": mean,
        "miss_se": se,
        "miss_ci_low": max(0.0, mean - Z95 * se) if m > 1 else math.nan,
        "miss_ci_high": min(1.0, mean + Z95 * se) if m > 1 else math.nan,
        "miss_q10": _quantile(miss, 0.1) if m else math.nan,
        "miss_q50": _quantile(miss, 0.5) if m else math.nan,
        "miss_q90": _quantile(miss, 0.9) if m else math.nan,
        "miss_fixed": fixed.miss if fixed is not None else math.nan,
        "baseline_exact": float(empirical_median_miss(cell.dist(), cell.n, g.alpha)),
        "baseline_mc": float(hits.mean()) if m else math.nan,
        "baseline_mc_se": float(hits.std(ddof=1) / math.sqrt(m)) if m > 1 else math.nan,
        "atypical_rate": atypical / m if m else math.nan,
        "atypical_ci_low": lo,
        "atypical_ci_high": hi,
        "th_mean": float(np.mean(th)) if m else math.nan,
        "th_q50": _quantile(th, 0.5) if m else math.nan,
        "th_q90": _quantile(th, 0.9) if m else math.nan,
        "th_max": float(max(th)) if m else math.nan,
        "restricted_share": sum(r.restricted for r in iid) / m if m else math.nan,
        **terms,
        "T_max": max(terms.values()),
        "thm36_bound": theorem_3_6_bound(terms, cell.C),
        "seconds": float(sum(r.seconds for r in results)),
    }


def run_rows(cell: Cell, results: Sequence[DataResult]) -> list[dict[str, Any]]:
    """One row per data set (run −1: the fixed design)."""
    return [
        {
            "regime": cell.regime.name,
            "distribution": cell.distribution,
            "n": cell.n,
            "run": r.run,
            "C": float(cell.C),
            "miss": r.miss,
            "baseline_miss": int(r.baseline_miss),
            "in_h": int(r.in_h),
            "th_median": r.th_median,
            "pieces": r.pieces,
            "restricted": int(r.restricted),
            "seconds": r.seconds,
        }
        for r in sorted(results, key=lambda r: r.run)
    ]


def first_stay_below(ns: Sequence[int], values: Sequence[float], beta: float) -> int | None:
    """The smallest grid n from which on every value is <= β (None if the last one is not)."""
    out = None
    for n, v in sorted(zip(ns, values, strict=True), reverse=True):
        if not v <= beta:
            break
        out = n
    return out


def crossing(ns: Sequence[int], values: Sequence[float], beta: float) -> float | None:
    """The n at which the curve first falls to β, by log-log interpolation between the last grid
    point above β and the next one (None if it never does; the first n if it starts below)."""
    pts = sorted(zip(ns, values, strict=True))
    for i, (n, v) in enumerate(pts):
        if v <= beta:
            if i == 0:
                return float(n)
            n0, v0 = pts[i - 1]
            if v <= 0:
                return float(n)
            t = (math.log(v0) - math.log(beta)) / (math.log(v0) - math.log(v))
            return float(math.exp(math.log(n0) + t * (math.log(n) - math.log(n0))))
    return None


def crossing_rows(summary: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per regime and distribution: the crossing n of the private curve (mean; upper CI) and of
    the baseline, against max(T₁, T₂, T₃) and the Thm 3.6 bound (at the crossing's C)."""
    out = []
    keys = dict.fromkeys((r["regime"], r["distribution"]) for r in summary)
    for regime, dist in keys:
        rows = sorted(
            (r for r in summary if r["regime"] == regime and r["distribution"] == dist),
            key=lambda r: r["n"],
        )
        ns = [r["n"] for r in rows]
        beta = rows[0]["beta"]
        n_cross = crossing(ns, [r["miss_mean"] for r in rows], beta)
        r0 = rows[-1]
        out.append(
            {
                **{k: r0[k] for k in ("regime", "dominant_term", "distribution", "epsilon")},
                **{k: r0[k] for k in ("alpha", "beta", "R", "C", "T1", "T2", "T3", "T_max")},
                "thm36_bound": r0["thm36_bound"],
                "n_star_mean": first_stay_below(ns, [r["miss_mean"] for r in rows], beta),
                "n_star_ci": first_stay_below(ns, [r["miss_ci_high"] for r in rows], beta),
                "n_cross": n_cross,
                "ratio_to_T_max": None if n_cross is None else n_cross / r0["T_max"],
                "ratio_to_thm36": None if n_cross is None else n_cross / r0["thm36_bound"],
                "baseline_n_star": first_stay_below(ns, [r["baseline_exact"] for r in rows], beta),
                "baseline_n_cross": crossing(ns, [r["baseline_exact"] for r in rows], beta),
            }
        )
    return out


# --------------------------------------------------------------------------------------------
# the study
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Study:
    """Every resolved option of a run (see :func:`make_study`)."""

    regimes: tuple[Regime, ...]
    distributions: tuple[str, ...]
    ns: tuple[int, ...]
    runs: int
    L: Fraction
    r: Fraction
    c: Fraction
    c_rule: str
    median: Fraction
    seed: int
    fixed_design: bool = True
    quick: bool = False

    def cells(self) -> list[Cell]:
        return [
            Cell(g, d, n, self.L, self.r, c_for(n, self.c, self.c_rule), self.median, self.runs)
            for g in self.regimes
            for d in self.distributions
            for n in self.ns
        ]


def make_study(
    *,
    regimes: Sequence[str] | str | None = None,
    distributions: Sequence[str] | str | None = None,
    ns: Sequence[int] | None = None,
    runs: int | None = None,
    L: Any = DEFAULT_L,
    r: Any = DEFAULT_r,
    c: Any = None,
    c_rule: str = "constant",
    median: Any = 0,
    seed: int = 0,
    fixed_design: bool = True,
    quick: bool = False,
) -> Study:
    """Resolve the options of :func:`run_study` (defaults: the three :data:`REGIMES`, both
    distributions, n ∈ :data:`DEFAULT_NS`, 40 data sets per cell, L = 2/5, r = 1, C = 5/4;
    ``quick``: one regime (ε = 1, α = 9/10, R = 1), n ∈ {8, 16, 32}, 12 data sets)."""
    quick = check_flag(quick, "quick")
    fixed_design = check_flag(fixed_design, "fixed_design")
    pool = {g.name: g for g in (*REGIMES, *QUICK_REGIMES)}
    default = QUICK_REGIMES if quick else REGIMES
    names = name_choices(
        [g.name for g in default] if regimes is None else regimes, tuple(pool), "regimes"
    )
    dists = name_choices(
        DISTRIBUTIONS if distributions is None else distributions, DISTRIBUTIONS, "distributions"
    )
    if ns is not None and not isinstance(ns, list | tuple | range):
        raise ValueError(f"ns must be a non-empty list of integers >= 2, got {ns!r:.80}")
    ns = (QUICK_NS if quick else DEFAULT_NS) if ns is None else tuple(ns)
    ns = tuple(sorted({check_int(n, "n", minimum=2, maximum=MAX_STUDY_N) for n in ns}))
    if not ns:
        raise ValueError("ns must be a non-empty list of integers >= 2")
    runs = (QUICK_RUNS if quick else DEFAULT_RUNS) if runs is None else runs
    runs = check_int(runs, "runs", minimum=2, maximum=MAX_RUNS)
    L = check_fraction(L, "L", positive=True)
    r = check_fraction(r, "r", positive=True)
    c = DEFAULT_C if c is None else check_fraction(c, "c", positive=True)
    check_choice(c_rule, "c_rule", C_RULES)
    median = check_fraction(median, "median")
    chosen = tuple(pool[k] for k in names)
    for g in chosen:
        if not g.alpha < min(r, g.R):
            raise ValueError(f"alpha must lie in (0, min(r, R)); regime {g.name} has {g.alpha}")
        for d in dists:
            make_distribution(d, L, r, median).check_admissible(L, r, g.R)
    return Study(
        regimes=chosen,
        distributions=dists,
        ns=ns,
        runs=runs,
        L=L,
        r=r,
        c=c,
        c_rule=c_rule,
        median=median,
        seed=check_seed(seed),
        fixed_design=bool(fixed_design),
        quick=bool(quick),
    )


def build_tasks(study: Study) -> list[_Task]:
    """Chunks of :data:`CHUNK` data sets (plus the fixed design), the most expensive (largest n)
    first."""
    tasks = []
    for cell in study.cells():
        runs = list(range(study.runs))
        if study.fixed_design:
            runs = [-1, *runs]
        for i in range(0, len(runs), CHUNK):
            tasks.append(_Task(cell, study.seed, tuple(runs[i : i + CHUNK])))
    return sorted(tasks, key=lambda t: -t.cell.n)


def run_tasks(
    tasks: Sequence[_Task], workers: int, progress: Progress | None = None
) -> dict[str, tuple[Cell, list[DataResult]]]:
    """Run every task (in ``workers`` processes when > 1); results grouped by cell key."""
    out: dict[str, tuple[Cell, list[DataResult]]] = {}
    total = sum(len(t.runs) for t in tasks)
    done = 0

    def collect(cell: Cell, results: list[DataResult]) -> None:
        nonlocal done
        out.setdefault(cell.key, (cell, []))[1].extend(results)
        done += len(results)
        if progress is not None:
            progress("tzamos20", done, total)

    if workers <= 1:
        for t in tasks:
            collect(*_run_task(t))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for cell, results in pool.map(_run_task, tasks):
                collect(cell, results)
    return out


# --------------------------------------------------------------------------------------------
# plots
# --------------------------------------------------------------------------------------------

DIST_COLOURS = {"uniform": "tab:blue", "pareto": "tab:red"}
TERM_STYLES = {"T1": ("tab:green", ":"), "T2": ("tab:purple", "--"), "T3": ("tab:brown", "-.")}


def _rows(summary: Sequence[dict[str, Any]], **match: Any) -> list[dict[str, Any]]:
    return sorted(
        (r for r in summary if all(r[k] == v for k, v in match.items())), key=lambda r: r["n"]
    )


def _col(rows: Sequence[dict[str, Any]], key: str) -> np.ndarray:
    return np.array([np.nan if r[key] is None else r[key] for r in rows], dtype=float)


def plot_miss(summary: Sequence[dict[str, Any]], out: Path) -> Path | None:
    """Miss probability vs n per regime: private mean with its 95% CI band (solid), the fixed
    design (dashed), the exact baseline (grey), β, and T₁, T₂, T₃ and the Thm 3.6 bound as
    vertical lines."""
    regimes = list(dict.fromkeys(r["regime"] for r in summary))
    if not regimes:
        return None
    fig, canvas, axes = _axes_grid(1, len(regimes), 4.6, 3.8)
    for col, regime in enumerate(regimes):
        ax = axes[0, col]
        rows0 = [r for r in summary if r["regime"] == regime]
        for dist in dict.fromkeys(r["distribution"] for r in rows0):
            rows = _rows(summary, regime=regime, distribution=dist)
            n = _col(rows, "n")
            colour = DIST_COLOURS.get(dist, "tab:gray")
            ax.plot(n, _col(rows, "miss_mean"), marker="o", ms=3, color=colour,
                    label=f"private, {dist} (mean over X)")  # fmt: skip
            ax.fill_between(n, _col(rows, "miss_ci_low"), _col(rows, "miss_ci_high"),
                            color=colour, alpha=0.15, lw=0)  # fmt: skip
            if np.any(np.isfinite(_col(rows, "miss_fixed"))):
                ax.plot(n, _col(rows, "miss_fixed"), ls="--", color=colour, lw=1,
                        label=f"private, {dist} quantile data")  # fmt: skip
        rows = _rows(summary, regime=regime, distribution=rows0[0]["distribution"])
        private = np.concatenate([_col(rows0, "miss_mean"), _col(rows0, "miss_fixed")])
        private = private[np.isfinite(private) & (private > 0)]
        floor = max(1e-30, float(private.min()) / 3) if private.size else 1e-6
        baseline = _col(rows, "baseline_exact")
        ax.plot(_col(rows, "n"), np.where(baseline >= floor, baseline, np.nan), color="gray",
                marker="x", ms=3, label="empirical median (exact)")  # fmt: skip
        r0 = rows[0]
        ax.axhline(r0["beta"], color="black", lw=0.7, ls=":")
        for term, (colour, ls) in TERM_STYLES.items():
            ax.axvline(r0[term], color=colour, ls=ls, lw=1, label=f"{term} = {r0[term]:.3g}")
        ax.axvline(r0["thm36_bound"], color="black", ls="--", lw=0.8,
                   label=f"T1 + C·T2 + T3 = {r0['thm36_bound']:.3g}")  # fmt: skip
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylim(min(floor, 1e-6), 1.5)
        ax.set_xlabel("n")
        ax.set_ylabel("P(|A(X) − m(D)| > α)")
        ax.set_title(
            f"{regime} ({r0['dominant_term']} largest): ε = {r0['epsilon']:g}, α = "
            f"{r0['alpha']:g}, R = {r0['R']:g}, C = {r0['C']:g}",
            fontsize=8,
        )
        ax.legend(fontsize=5)
    fig.suptitle(
        "tzamos20: exact miss probability of the ε-DP private median (extension), β dotted",
        fontsize=10,
    )
    path = out / "tzamos20_miss.png"
    canvas.print_png(str(path))
    return path


def plot_typical(summary: Sequence[dict[str, Any]], out: Path) -> Path | None:
    """P[X ∉ H] (with Clopper–Pearson band) and TH(X, m(X)) median / 90% quantile / max vs n."""
    if not summary:
        return None
    fig, canvas, axes = _axes_grid(1, 2, 4.8, 3.6)
    seen = set()
    for r0 in summary:
        if r0["distribution"] in seen:
            continue
        seen.add(r0["distribution"])
        rows = _rows(summary, regime=r0["regime"], distribution=r0["distribution"])
        n = _col(rows, "n")
        colour = DIST_COLOURS.get(r0["distribution"], "tab:gray")
        axes[0, 0].plot(n, _col(rows, "atypical_rate"), marker="o", ms=3, color=colour,
                        label=r0["distribution"])  # fmt: skip
        axes[0, 0].fill_between(n, _col(rows, "atypical_ci_low"), _col(rows, "atypical_ci_high"),
                                color=colour, alpha=0.15, lw=0)  # fmt: skip
        for key, ls in (("th_q50", "-"), ("th_q90", "--"), ("th_max", ":")):
            axes[0, 1].plot(n, _col(rows, key), ls=ls, marker="o", ms=2, color=colour,
                            label=f"{r0['distribution']} {key[3:]}")  # fmt: skip
    axes[0, 0].set_xscale("log")
    axes[0, 0].set_xlabel("n")
    axes[0, 0].set_ylabel("P[X ∉ H] (Lemma B.2, T = 1)")
    axes[0, 0].legend(fontsize=6)
    axes[0, 1].set_xscale("log")
    axes[0, 1].set_xlabel("n")
    axes[0, 1].set_ylabel("TH(X, m(X)) (Lemma B.3)")
    axes[0, 1].legend(fontsize=6)
    fig.suptitle(f"tzamos20: typicality of X ~ Dⁿ (regime {summary[0]['regime']})", fontsize=10)
    path = out / "tzamos20_typical.png"
    canvas.print_png(str(path))
    return path


def plot_crossings(crossings: Sequence[dict[str, Any]], out: Path) -> Path | None:
    """Crossing n (miss = β, interpolated) vs max(T₁, T₂, T₃) and vs the Thm 3.6 bound."""
    pts = [c for c in crossings if c["n_cross"] is not None]
    if not pts:
        return None
    fig, canvas, axes = _axes_grid(1, 2, 4.4, 3.6)
    for ax, key, label in (
        (axes[0, 0], "T_max", "max(T1, T2, T3)"),
        (axes[0, 1], "thm36_bound", "T1 + C·T2 + T3"),
    ):
        for c in pts:
            ax.scatter(c[key], c["n_cross"], color=DIST_COLOURS.get(c["distribution"], "gray"),
                       marker={"T1": "o", "T2": "s", "T3": "^"}[c["dominant_term"]],
                       label=f"{c['regime']} / {c['distribution']}")  # fmt: skip
        xs = np.array([c[key] for c in pts] + [c["n_cross"] for c in pts], dtype=float)
        lim = (xs.min() / 2, xs.max() * 2)
        ax.plot(lim, lim, color="gray", lw=0.7, ls=":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("n with miss = β (interpolated)")
        ax.legend(fontsize=6)
    fig.suptitle("tzamos20: sample size needed vs Theorem 3.1 / 3.6 terms", fontsize=10)
    path = out / "tzamos20_crossings.png"
    canvas.print_png(str(path))
    return path


# --------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------


def run_study(
    *,
    regimes: Sequence[str] | str | None = None,
    distributions: Sequence[str] | str | None = None,
    ns: Sequence[int] | None = None,
    runs: int | None = None,
    c: Any = None,
    c_rule: str = "constant",
    median: Any = 0,
    seed: int = 0,
    workers: int | None = None,
    out: str | Path = DEFAULT_OUT,
    quick: bool = False,
    progress: Progress | None = None,
    plot: bool = True,
) -> list[Path]:
    """Run the study (module docstring) and write its CSV and PNG files into ``out``; returns
    the paths written. ``workers`` processes (default 1; the results do not depend on it)."""
    study = make_study(
        regimes=regimes,
        distributions=distributions,
        ns=ns,
        runs=runs,
        c=c,
        c_rule=c_rule,
        median=median,
        seed=seed,
        quick=quick,
    )
    workers = 1 if workers is None else check_int(workers, "workers", minimum=1, maximum=MAX_WORKERS)
    plot = check_flag(plot, "plot")
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable or None, got {type(progress).__name__}")
    if not isinstance(out, str | Path) or (isinstance(out, str) and not out):
        raise ValueError(f"out must be a directory path (str or Path), got {out!r:.80}")
    out = Path(out)
    results = run_tasks(build_tasks(study), workers, progress)
    cells = [results[c.key] for c in study.cells()]
    summary = [summary_row(cell, res) for cell, res in cells]
    per_run = [row for cell, res in cells for row in run_rows(cell, res)]
    crossings = crossing_rows(summary)
    paths = [
        write_csv(out / "tzamos20.csv", summary, SUMMARY_COLUMNS),
        write_csv(out / "tzamos20_runs.csv", per_run, RUN_COLUMNS),
        write_csv(out / "tzamos20_crossings.csv", crossings, CROSSING_COLUMNS),
    ]
    if plot:
        figures = [plot_miss(summary, out), plot_typical(summary, out)]
        figures.append(plot_crossings(crossings, out))
        paths += [p for p in figures if p is not None]
    return paths


__all__ = [
    "C_RULES",
    "DISTRIBUTIONS",
    "QUICK_REGIMES",
    "REGIMES",
    "Cell",
    "DataResult",
    "ParetoTailedData",
    "Regime",
    "Study",
    "UniformData",
    "build_tasks",
    "c_for",
    "cell_data",
    "crossing",
    "crossing_rows",
    "data_seed",
    "dominant_term",
    "empirical_median_miss",
    "evaluate_data",
    "first_stay_below",
    "fixed_design",
    "make_distribution",
    "make_study",
    "miss_from_pieces",
    "private_miss",
    "rate_terms",
    "run_data",
    "run_study",
    "run_tasks",
    "summary_row",
    "theorem_3_6_bound",
]
