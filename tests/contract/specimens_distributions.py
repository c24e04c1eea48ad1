"""Contract specimens and fuzz entries of the distributions area (see :mod:`harness`): the exact
laws of :mod:`dpquant.reference.distributions` (constructors and methods), the divergences, the exact
helpers (:mod:`dpquant.reference.exact.mp`, :mod:`dpquant.reference.exact.interval`; the certified divergences
of :mod:`dpquant.reference.distributions.certified`), ``laplace_law``, the
conformance tests (:mod:`dpquant.reference.conformance`) and the auditor's statistics
(:mod:`dpquant.audit.statistics.bounds`).

Every valid call is tiny (a few atoms or pieces, a few draws). The checks verify that an accepted
hostile call gives a correct result: laws of total mass 1 (:func:`harness.check_law`),
divergences real and >= 0, probabilities in [0, 1], CDFs monotone, bounds ordered.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from harness import Entry, Specimen, check_draws, check_law, check_sane

from dpquant.audit.statistics import bounds as statistics
from dpquant.reference import conformance
from dpquant.reference.distributions import (
    FLOAT_SAMPLING_TOLERANCE,
    DiscreteLaw,
    GridLaw,
    Piece,
    PiecewiseLogLinear,
    ProductLaw,
    certified_log_normalizer,
    certified_max_log_ratio,
    certified_privacy_loss,
    grid_cell_masses,
    hockey_stick,
    log_integral_exp_linear,
    max_log_ratio,
    merged_grid_cells,
    piecewise_cdfs,
    privacy_loss,
    renyi_divergence,
)
from dpquant.reference.exact.interval import iv_precision, to_iv
from dpquant.reference.exact.mp import LazySequence, logsumexp, to_mpf
from dpquant.reference.primitives.discrete_laplace import DiscreteLaplaceLaw
from dpquant.reference.primitives.laplace import laplace_law

SPECIMENS: list[Specimen] = []

TIGHT = mpmath.mpf(10) ** -40

# -- a few small laws -----------------------------------------------------------------------------

D0 = DiscreteLaw([0, 1, 2], [0.0, -0.5, -1.0])
D1 = DiscreteLaw([0, 1, 2], [-0.3, 0.0, -1.0])
LABELS = DiscreteLaw(["ok", "ValueError", None], [0.0, -2.0, -3.0])
P0 = PiecewiseLogLinear([0.0, 0.5, 1.0], [0.0, 1.0], [0.0, -0.2])
P1 = PiecewiseLogLinear([0.0, 0.25, 1.0], [0.0, -1.0], [0.1, 0.0])
LAPLACE = PiecewiseLogLinear([-math.inf, 0.0, math.inf], [1.0, -1.0], [0.0, 0.0])
FLAT0 = PiecewiseLogLinear([0.0, 0.5, 1.0], [0.0, 0.0], [0.0, 0.3])
FLAT1 = PiecewiseLogLinear([0.0, 0.5, 1.0], [0.0, 0.0], [0.2, 0.0])
PROD0 = ProductLaw([D0, FLAT0])
PROD1 = ProductLaw([D1, FLAT1])
G0 = GridLaw([[0, 1, 2], [0, Fraction(1, 2), 1]], [[0.0, 0.5], [0.2, -0.1]])
G1 = GridLaw([[0, 1, 2], [0, 1]], [[0.0], [0.3]])

OTHER_LAWS: tuple[Any, ...] = (
    D0,
    LABELS,
    P0,
    LAPLACE,
    PROD0,
    G0,
    G1,
    DiscreteLaplaceLaw(1.0),
    ProductLaw([P0]),
    ProductLaw([D0, D0]),
)


# -- checks of accepted results ---------------------------------------------------------------


def _mp_real(x: Any) -> mpmath.mpf:
    assert isinstance(x, mpmath.mpf), f"expected an mpf, got {type(x).__name__}"
    assert not mpmath.isnan(x), "NaN"
    return x


def check_divergence(x: Any) -> None:
    """A divergence: a real mpf >= 0 (to the working precision), +inf allowed."""
    assert _mp_real(x) >= -TIGHT, f"negative divergence {x}"


def check_log_ratio(x: Any) -> None:
    """ess sup log(p/q) over p's support: >= 0 since both laws have mass 1."""
    assert _mp_real(x) >= -TIGHT, f"negative sup log-ratio {x}"


def check_delta(x: Any) -> None:
    value = _mp_real(x)
    assert -TIGHT <= value <= 1 + TIGHT, f"δ outside [0, 1]: {x}"


def check_probability(x: Any) -> None:
    value = _mp_real(x)
    assert -TIGHT <= value <= 1 + TIGHT, f"probability outside [0, 1]: {x}"


def check_log_probability(x: Any) -> None:
    assert _mp_real(x) <= TIGHT, f"log-probability above 0: {x}"


def check_cdf(x: Any) -> None:
    arr = np.asarray(x, dtype=float)
    assert not np.isnan(arr).any() and ((arr >= 0) & (arr <= 1)).all(), f"cdf values {arr}"


def check_logs(x: Any) -> None:
    arr = np.asarray(x, dtype=float)
    assert not np.isnan(arr).any(), f"NaN log-density {arr}"


def check_density_logs(x: Any) -> None:
    arr = np.asarray(x, dtype=float)
    assert not np.isnan(arr).any() and not np.isposinf(arr).any(), f"log-density {arr}"


def check_log_probabilities(x: Any) -> None:
    arr = np.asarray(x, dtype=float)
    assert not np.isnan(arr).any() and (arr <= 1e-12).all(), f"log-probabilities {arr}"


def check_law_draws(law: Any) -> Any:
    def check(out: Any) -> None:
        assert isinstance(out, np.ndarray)
        if out.dtype.kind == "f":
            check_draws(out)
            if isinstance(law, PiecewiseLogLinear) and out.size:
                lo, hi = law.support
                assert lo <= out.min() and out.max() <= hi, "draws outside the support"

    return check


def check_conformance(x: Any) -> None:
    assert isinstance(x, conformance.ConformanceResult)
    assert not math.isnan(x.statistic) and not math.isnan(x.threshold)
    assert isinstance(x.passed, bool)


def check_interval(x: Any) -> None:
    lo, hi = x
    assert not (math.isnan(lo) or math.isnan(hi)) and 0.0 <= lo <= hi <= 1.0, f"interval {x}"


def check_bounds(x: Any) -> None:
    arr = np.asarray(x, dtype=float)
    assert not np.isnan(arr).any() and ((arr >= 0) & (arr <= 1)).all(), f"bounds {arr}"


def check_epsilon_bound(x: Any) -> None:
    arr = np.asarray(x, dtype=float)
    assert not np.isnan(arr).any() and not np.isposinf(arr).any(), f"bound {arr}"


def check_ratio_interval(x: Any) -> None:
    lo, hi = x
    assert not (math.isnan(lo) or math.isnan(hi)) and lo <= hi, f"interval {x}"


def check_samples_needed(x: Any) -> None:
    assert x is None or (isinstance(x, int) and x >= 1), f"samples_needed {x!r}"


def check_score(x: Any) -> None:
    arr = np.asarray(x, dtype=float)
    assert not np.isnan(arr).any(), f"score {arr}"


def check_iv(x: Any) -> None:
    assert not (mpmath.isnan(x.a) or mpmath.isnan(x.b)) and x.a <= x.b, f"interval {x}"


def check_iv_loss(x: Any) -> None:
    check_iv(x)
    assert x.b >= -TIGHT


def _law_and_draws(law: Any, size: int = 16) -> tuple[Any, Any]:
    """A law built from hostile parameters, and a few draws when float64 can resolve it."""
    error = law.float_sampling_error() if hasattr(law, "float_sampling_error") else 0.0
    draws = law.sample(size, np.random.default_rng(0)) if error <= FLOAT_SAMPLING_TOLERANCE else None
    return law, draws


def check_built(result: Any) -> None:
    law, draws = result
    check_law(law)
    if draws is not None:
        check_law_draws(law)(draws)


def _to_mpf_pair(x: Any) -> tuple[Any, mpmath.mpf]:
    return x, to_mpf(x)


def check_to_mpf(result: Any) -> None:
    x, value = result
    assert isinstance(value, mpmath.mpf)
    is_nan = isinstance(x, float | np.floating) and math.isnan(x)
    assert bool(mpmath.isnan(value)) == is_nan, f"to_mpf({x!r}) = {value}"
    if isinstance(x, float) and not is_nan:
        assert value == x, f"to_mpf({x!r}) = {value}: not exact"


def _lazy(length: Any, item: Any) -> list[Any]:
    seq = LazySequence(length, item)
    return [seq[i] for i in range(min(len(seq), 3))]


def _with_precision(dps: Any) -> Any:
    with iv_precision(dps):
        return to_iv(Fraction(1, 3))


def _ks(samples: Any, cdf: Any) -> tuple[float, float]:
    stat, where = conformance.ks_statistic(samples, cdf)
    assert 0.0 <= stat <= 1.0 and not math.isnan(where)
    return stat, where


# -- hostile extras -------------------------------------------------------------------------------

BAD_CDFS = (
    lambda y: np.full(np.shape(y), np.nan),
    lambda y: np.full(np.shape(y), 2.0),
    lambda y: np.zeros(3),
    lambda y: "0.5",
    np.sum,
    P0.cdf,
)
BAD_PROBABILITIES = (
    {0: math.nan},
    {0.0: math.nan},
    {0: -0.1},
    {0: 2.0},
    {0: math.inf},
    {math.nan: 0.5},
    {0: "0.5"},
    {0: 0.6, 1: 0.6},
    {0: True},
    {0: 10**400},
    {},
    [(0, 0.5)],
    {"ok": 1.0},
)
BAD_COMPONENTS = ([], [LABELS], [D0, "x"], [PROD0], (c for c in [D0]), [G0], [None], OTHER_LAWS)
EVENTS = (lambda a: a > 0, lambda a: True, len, 0, None, "a > 0")

# -- entries ------------------------------------------------------------------------------------


def _laws_entries() -> list[Entry]:
    rng = np.random.default_rng(0)
    return [
        # DiscreteLaw
        Entry(
            "DiscreteLaw",
            DiscreteLaw,
            {"support": [0, 1, 2], "log_weights": [0.0, -1.0, -2.0]},
            {"support": "data", "log_weights": "data"},
            check=check_law,
            extra={
                "support": (
                    ["a", "b", "c"],
                    [None, "ok", ("x", 1)],
                    [math.nan, 1, 2],
                    [complex(math.nan, 0), 1, 2],
                    [[0], [1], [2]],
                    [True, 1, 2],
                    [math.inf, 0, 1],
                    [0, 0, 0],
                    np.array([0.0, 1.0, math.nan]),
                ),
                "log_weights": (
                    [0.0, math.nan, 0.0],
                    [0.0, math.inf, 0.0],
                    [-math.inf] * 3,
                    ["0", "1", "2"],
                    [mpmath.mpf("1e400"), 0, 0],
                    # issue 34: log-weights far apart in exponent (−2·e^{−1e300} next to 0
                    # hung in exact rationals), and the same with a Fraction
                    [-2 * mpmath.exp(-mpmath.mpf("1e300")), 0.0, mpmath.mpf("-1e300")],
                    [mpmath.mpf("-1e-100000"), Fraction(1, 3), 0],
                    [mpmath.mpf("nan"), 0, 0],
                    np.array([0.0, np.nan, 1.0]),
                    [10**400, 0, 0],
                ),
            },
        ),
        Entry(
            "DiscreteLaw.from_probabilities",
            DiscreteLaw.from_probabilities,
            {"support": [0, 1], "probabilities": [Fraction(1, 4), Fraction(3, 4)]},
            {"support": "data", "probabilities": "data"},
            check=check_law,
            extra={
                "probabilities": (
                    [0.5, math.nan],
                    [1.5, -0.5],
                    [0.0, 0.0],
                    [0.3, 0.3],
                    [0.7, 0.7],
                    [math.inf, 0.0],
                    [0.25, 0.75 + 1e-15],
                    ["0.5", "0.5"],
                ),
            },
        ),
        Entry("DiscreteLaw.logpmf_mp", D0.logpmf_mp, {"atom": 1}, {"atom": "any"},
              check=check_log_probability),
        Entry("DiscreteLaw.pmf_mp", LABELS.pmf_mp, {"atom": "ok"}, {"atom": "any"},
              check=check_probability),
        Entry("DiscreteLaw.logpmf", D0.logpmf, {"atoms": [0, 1]}, {"atoms": "any"},
              check=check_log_probabilities),
        Entry("DiscreteLaw.logpmf[labels]", LABELS.logpmf, {"atoms": ["ok"]}, {"atoms": "any"},
              check=check_log_probabilities),
        Entry("DiscreteLaw.cdf", D0.cdf, {"y": 0.5}, {"y": "any"}, check=check_cdf),
        Entry("DiscreteLaw.mass", D0.mass, {"lo": 0, "hi": 1}, {"lo": "real", "hi": "real"},
              check=check_probability),
        Entry("DiscreteLaw.probability", D0.probability, {"event": lambda a: a > 0},
              {"event": "any"}, check=check_probability, extra={"event": EVENTS}),
        Entry("DiscreteLaw.sample", D0.sample, {"size": 4, "rng": rng},
              {"size": "size", "rng": "rng"}, check=check_law_draws(D0)),
        Entry("DiscreteLaw.sample[labels]", LABELS.sample, {"size": 4, "rng": rng},
              {"size": "size", "rng": "rng"}, check=check_law_draws(LABELS)),
        # PiecewiseLogLinear
        Entry(
            "PiecewiseLogLinear",
            lambda **kw: _law_and_draws(PiecewiseLogLinear(**kw)),
            {
                "breaks": [-1.0, 0.0, 2.0],
                "slopes": [1.0, -0.5],
                "intercepts": [0.0, 0.0],
                "exact_breaks": None,
                "exact_slopes": None,
                "exact_intercepts": None,
            },
            {
                "breaks": "data",
                "slopes": "data",
                "intercepts": "data",
                "exact_breaks": "data",
                "exact_slopes": "data",
                "exact_intercepts": "data",
            },
            check=check_built,
            extra={
                "breaks": (
                    [0.0, 1.0, math.nan],
                    [2.0, 1.0, 0.0],
                    [-math.inf, 0.0, math.inf],
                    [-1e308, 0.0, 1e308],
                    [1e15, 1e15 + 0.125, 1e15 + 1],
                    [-1.0, 0.0, 1e-300],
                    [Fraction(-1), Fraction(1, 3), 2],
                ),
                "slopes": ([1e308, -1e308], [1e16, -1e16], [5e-324, 0.0], [math.inf, 0.0]),
                "intercepts": (
                    [1e308, -1e308],
                    [1e300, 1e300],
                    [math.inf, 0.0],
                    [-math.inf, -math.inf],
                    [-math.inf, 0.0],
                ),
                "exact_breaks": ([-1, 0, 2], [-1, Fraction(1, 3), 2], [math.nan, 0, 2]),
                "exact_slopes": ([1, Fraction(-1, 2)], [mpmath.mpf(1), mpmath.mpf("nan")]),
                "exact_intercepts": ([0, 0], [-math.inf, 0], [mpmath.mpf(5), "0"]),
            },
        ),
        Entry("PiecewiseLogLinear.logpdf", P0.logpdf, {"y": [0.1, 0.7]}, {"y": "any"},
              check=check_density_logs),
        Entry("PiecewiseLogLinear.pdf", LAPLACE.pdf, {"y": [0.1, 0.7]}, {"y": "any"},
              check=check_logs),
        Entry("PiecewiseLogLinear.cdf", LAPLACE.cdf, {"y": [0.1, 0.7]}, {"y": "any"},
              check=check_cdf),
        Entry("PiecewiseLogLinear.logpdf_mp", P0.logpdf_mp, {"y": 0.3}, {"y": "real"},
              check=lambda x: _mp_real(x)),
        Entry("piecewise_cdfs", lambda laws, points: piecewise_cdfs(laws, points),
              {"laws": [LAPLACE, P0], "points": [[0.1, 0.7], [0.3]]},
              {"laws": "any", "points": "any"},
              check=lambda x: [check_cdf(v) for v in x],
              extra={"laws": ([LAPLACE, D0], (P0,), [P0, None]),
                     "points": ([[0.1], [math.nan]], ([0.1], "x"), [[0.1], [[0.2], [0.3, 0.4]]])}),
        Entry("PiecewiseLogLinear.cdf_mp", LAPLACE.cdf_mp, {"y": 0.3}, {"y": "real"},
              check=check_probability),
        Entry("PiecewiseLogLinear.mass", P0.mass, {"lo": 0.1, "hi": 0.6},
              {"lo": "real", "hi": "real"}, check=check_probability),
        Entry("PiecewiseLogLinear.piece", P0.piece, {"i": 0}, {"i": "int"}, check=check_sane),
        Entry("PiecewiseLogLinear.exact_parameters", P0.exact_parameters, {"i": 1},
              {"i": "int"}, check=check_sane),
        Entry("PiecewiseLogLinear.anchor", P0.anchor, {"i": 1}, {"i": "int"}, check=check_sane),
        Entry("PiecewiseLogLinear.log_density_at_cell", P0.log_density_at_cell,
              {"left": 0.0, "right": 0.5}, {"left": "real", "right": "real"}, check=check_sane),
        Entry("PiecewiseLogLinear.sample", LAPLACE.sample, {"size": 4, "rng": rng},
              {"size": "size", "rng": "rng"}, check=check_law_draws(LAPLACE)),
        Entry(
            "Piece",
            Piece,
            {"left": 0.0, "right": 1.0, "slope": mpmath.mpf(1), "intercept": mpmath.mpf(0)},
            {"left": "real", "right": "real", "slope": "real", "intercept": "real"},
        ),
        # ProductLaw
        Entry("ProductLaw", ProductLaw, {"components": [D0, FLAT0]}, {"components": "any"},
              check=check_law, extra={"components": BAD_COMPONENTS}),
        Entry("ProductLaw.sample", PROD0.sample, {"size": 4, "rng": rng},
              {"size": "size", "rng": "rng"}, check=check_law_draws(PROD0)),
        Entry("ProductLaw.logpdf", PROD0.logpdf, {"y": [[0, 0.3]]}, {"y": "any"},
              check=check_density_logs),
        # GridLaw
        Entry(
            "GridLaw",
            lambda **kw: _law_and_draws(GridLaw(**kw)),
            {"breaks": [[0, 1, 2]], "log_density": [0.0, 0.5]},
            {"breaks": "any", "log_density": "data"},
            check=check_built,
            extra={
                "breaks": (
                    [[0, 1, 1]],
                    [[0, 1, math.nan]],
                    [[0, 1, 2], [0, 1]],
                    [[0, 1e-320, 2e-320]],
                    [[-1e308, 0, 1e308]],
                    [[0, Fraction(1, 3), 2]],
                    [["0", "1", "2"]],
                    [[0, 1, 10**400]],
                    [list(range(10))] * 8,
                ),
                "log_density": ([0.0, math.inf], [-math.inf, -math.inf], [[0.0, 0.5]]),
            },
        ),
        Entry("GridLaw.sample", G0.sample, {"size": 4, "rng": rng},
              {"size": "size", "rng": "rng"}, check=check_law_draws(G0)),
        Entry("GridLaw.logpdf", G0.logpdf, {"y": [[0.5, 0.5]]}, {"y": "any"},
              check=check_density_logs),
        Entry("GridLaw.marginal", G0.marginal, {"axis": 1}, {"axis": "int"}, check=check_law),
        Entry("GridLaw.on_grid", G0.on_grid, {"breaks": [[0, 1, 2], [0, 0.5, 1]]},
              {"breaks": "any"}, check=check_sane),
    ]


def _divergence_entries() -> list[Entry]:
    pair_extra = {"p": OTHER_LAWS, "q": OTHER_LAWS}
    out = []
    for name, p, q in (("discrete", D0, D1), ("piecewise", P0, P1), ("product", PROD0, PROD1),
                       ("grid", G0, G1)):
        base = {"p": p, "q": q}
        kinds = {"p": "any", "q": "any"}
        out += [
            Entry(f"privacy_loss[{name}]", privacy_loss, base, kinds, check=check_divergence,
                  extra=pair_extra),
            Entry(f"max_log_ratio[{name}]", max_log_ratio, base, kinds, check=check_log_ratio,
                  extra=pair_extra),
            Entry(f"hockey_stick[{name}]", hockey_stick, {**base, "epsilon": 0.5},
                  {**kinds, "epsilon": "real"}, check=check_delta, extra=pair_extra),
            Entry(f"renyi_divergence[{name}]", renyi_divergence, {**base, "alpha": 2.0},
                  {**kinds, "alpha": "real"}, check=check_divergence, extra=pair_extra),
        ]
    out += [
        Entry(
            "log_integral_exp_linear",
            log_integral_exp_linear,
            {"a": -1.0, "b": 0.5, "left": 0.0, "right": 2.0},
            {"a": "real", "b": "real", "left": "real", "right": "real"},
            check=lambda x: _mp_real(x),
        ),
        Entry("merged_grid_cells", merged_grid_cells, {"p": G0, "q": G1},
              {"p": "any", "q": "any"}, check=check_sane, extra=pair_extra),
        Entry("grid_cell_masses", grid_cell_masses, {"p": G0, "q": G1},
              {"p": "any", "q": "any"}, check=check_sane, extra=pair_extra),
        Entry("certified_privacy_loss", certified_privacy_loss, {"p": P0, "q": P1},
              {"p": "any", "q": "any"}, check=check_iv_loss, extra=pair_extra),
        Entry("certified_max_log_ratio", certified_max_log_ratio, {"p": LAPLACE, "q": LAPLACE},
              {"p": "any", "q": "any"}, check=check_iv, extra=pair_extra),
        Entry("certified_log_normalizer", certified_log_normalizer, {"law": P0},
              {"law": "any"}, check=check_iv, extra={"law": OTHER_LAWS}),
        Entry("to_iv", to_iv, {"x": 0.5}, {"x": "any"}, check=lambda x: None),
        Entry("iv_precision", _with_precision, {"dps": 30}, {"dps": "int"},
              check=lambda x: None),
        Entry("to_mpf", _to_mpf_pair, {"x": 0.5}, {"x": "any"}, check=check_to_mpf),
        Entry("logsumexp", logsumexp, {"values": [0.0, -1.0]}, {"values": "any"},
              check=lambda x: _mp_real(x)),
        Entry("LazySequence", _lazy, {"length": 3, "item": lambda i: i * 2},
              {"length": "int", "item": "any"}, check=check_sane,
              extra={"item": (None, 0, "x")}),
        Entry("laplace_law", lambda loc, scale: _law_and_draws(laplace_law(loc, scale)),
              {"loc": 0.0, "scale": 1.0}, {"loc": "real", "scale": "real"}, check=check_built),
    ]
    return out


def _statistics_entries() -> list[Entry]:
    counts = np.array([0, 3, 10])
    return [
        Entry("dkw_threshold", conformance.dkw_threshold, {"n": 100, "alpha": 1e-7},
              {"n": "int", "alpha": "real"}, check=lambda x: None if x > 0 else 1 / 0),
        Entry("ks_statistic", _ks, {"samples": [0.1, 0.5, 0.9], "cdf": P0.cdf},
              {"samples": "data", "cdf": "any"}, extra={"cdf": BAD_CDFS}),
        Entry("dkw_test", conformance.dkw_test,
              {"samples": [0.1, 0.5, 0.9], "cdf": P0.cdf, "alpha": 1e-3},
              {"samples": "data", "cdf": "any", "alpha": "real"}, check=check_conformance,
              extra={"cdf": BAD_CDFS}),
        Entry("clopper_pearson", conformance.clopper_pearson, {"k": 3, "n": 10, "alpha": 0.05},
              {"k": "int", "n": "int", "alpha": "real"}, check=check_interval),
        Entry("clopper_pearson_lower", conformance.clopper_pearson_lower,
              {"k": counts, "n": 10, "level": 1e-3},
              {"k": "any", "n": "any", "level": "real"}, check=check_bounds),
        Entry("clopper_pearson_upper", conformance.clopper_pearson_upper,
              {"k": counts, "n": 10, "level": 1e-3},
              {"k": "any", "n": "any", "level": "real"}, check=check_bounds),
        Entry("atom_test", conformance.atom_test,
              {"samples": [0, 1, 1, 0], "probabilities": {0: 0.5, 1: 0.5}, "alpha": 1e-3},
              {"samples": "data", "probabilities": "any", "alpha": "real"},
              check=check_conformance, extra={"probabilities": BAD_PROBABILITIES}),
        Entry("check_sampler", conformance.check_sampler,
              {"law": P0, "samples": [0.1, 0.5, 0.9], "alpha": 1e-3},
              {"law": "any", "samples": "data", "alpha": "real"}, check=check_conformance,
              extra={"law": OTHER_LAWS}),
        Entry("check_sampler[discrete]", conformance.check_sampler,
              {"law": D0, "samples": [0, 1, 2, 0], "alpha": 1e-3},
              {"law": "any", "samples": "data", "alpha": "real"}, check=check_conformance,
              extra={"law": OTHER_LAWS}),
        Entry("check_sampler[product]", conformance.check_sampler,
              {"law": PROD0, "samples": [[0, 0.1], [1, 0.7]], "alpha": 1e-3},
              {"law": "any", "samples": "data", "alpha": "real"}, check=check_conformance,
              extra={"law": OTHER_LAWS}),
        Entry("epsilon_lower_bound", statistics.epsilon_lower_bound,
              {"k0": 8, "n0": 10, "k1": 1, "n1": 10, "delta": 0.0, "alpha": 0.05},
              {"k0": "any", "n0": "any", "k1": "any", "n1": "any", "delta": "real",
               "alpha": "real"}, check=check_epsilon_bound),
        Entry("event_ratio_interval", statistics.event_ratio_interval,
              {"k0": 8, "n0": 10, "k1": 1, "n1": 10, "alpha": 0.05},
              {"k0": "any", "n0": "any", "k1": "any", "n1": "any", "alpha": "real"},
              check=check_ratio_interval),
        Entry("expected_bound", statistics.expected_bound,
              {"p0": 0.5, "p1": 0.1, "n": 100, "delta": 0.0, "alpha": 0.05},
              {"p0": "any", "p1": "any", "n": "int", "delta": "real", "alpha": "real"},
              check=check_epsilon_bound),
        Entry("samples_needed", statistics.samples_needed,
              {"p0": 0.5, "p1": 0.1, "epsilon": 1.0, "delta": 0.0, "alpha": 0.05,
               "limit": 10**6},
              {"p0": "real", "p1": "real", "epsilon": "real", "delta": "real", "alpha": "real",
               "limit": "int"}, check=check_samples_needed),
        Entry("wilson_bound", statistics.wilson_bound,
              {"p": [0.1, 0.5], "n": 100, "z": 2.0, "upper": True},
              {"p": "any", "n": "any", "z": "real", "upper": "flag"}, check=check_bounds),
        Entry("selection_score", statistics.selection_score,
              {"k0": counts, "n0": 10, "k1": counts[::-1], "n1": 10, "n_eval": 1000,
               "delta": 0.0, "alpha": 1e-3, "z_selection": 2.0},
              {"k0": "any", "n0": "any", "k1": "any", "n1": "any", "n_eval": "int",
               "delta": "real", "alpha": "real", "z_selection": "real"}, check=check_score),
    ]


ENTRIES: list[Entry] = _laws_entries() + _divergence_entries() + _statistics_entries()
