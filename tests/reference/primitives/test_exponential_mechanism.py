"""The exponential mechanism over Smith's intervals: exact law, exact privacy, sampler, regressions."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.audit.model.neighbours import exhaustive_data_pairs
from dpquant.audit.statistics.exact_loss import exact_sweep
from dpquant.reference.conformance import check_sampler
from dpquant.reference.distributions import privacy_loss
from dpquant.reference.exact.mp import workdps
from dpquant.reference.primitives.exponential_mechanism import (
    ExponentialQuantile,
    smith_intervals,
    utility_sensitivity,
)

GRID = (-1.0, 0.0, 0.25, 0.5, 1.0, 2.0)  # the bounds (0, 1), interior points, values to clamp
TIGHT = mpmath.mpf("1e-40")


def brute_force_interval_probabilities(data, q, eps, bounds, adjacency):
    """Independent oracle: Smith's definition term by term in mpmath, zero-length intervals kept."""
    a, b = bounds
    qm = mpmath.mpf(q)
    delta_u = max(qm, 1 - qm) if adjacency == "add_remove" else 1
    z = [a, *sorted(min(max(x, a), b) for x in data), b]
    n = len(data)
    with workdps():
        w = [
            (mpmath.mpf(z[j + 1]) - z[j])
            * mpmath.exp(-mpmath.mpf(eps) * abs(j - mpmath.mpf(q) * n) / (2 * mpmath.mpf(delta_u)))
            for j in range(n + 1)
        ]
        total = mpmath.fsum(w)
        return z, [x / total for x in w]


def test_imola25_single_quantile_toy_numbers() -> None:
    """imola25 App. C.2's SingleQuantile on S = (1,2,3,4) in (0,5), t = 2, ε = 1: the interval
    probabilities and the normaliser, computed independently with mpmath."""
    em = ExponentialQuantile(0.5, 1.0, (0.0, 5.0))
    law = em.exact([1, 2, 3, 4])
    assert float(mpmath.exp(law.log_normalizer_mp)) == pytest.approx(2.94882020176815, abs=1e-13)
    expected = (0.124754788695, 0.205685873743, 0.339118675123, 0.205685873743, 0.124754788695)
    for k, p in enumerate(expected):
        assert float(law.mass(k, k + 1)) == pytest.approx(p, abs=1e-12)
    assert float(privacy_loss(law, em.exact([1, 2, 3, 4.5]))) == pytest.approx(
        0.460331749964, abs=1e-12
    )


@given(
    st.lists(st.sampled_from(GRID + (0.75, 0.1)), min_size=0, max_size=8),
    st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0]),
    st.sampled_from([0.1, 1.0, 3.0]),
    st.sampled_from(["add_remove", "replace_one"]),
)
def test_exact_law_matches_smiths_definition(data, q, eps, adjacency) -> None:
    em = ExponentialQuantile(q, eps, (0.0, 1.0), adjacency=adjacency)
    law = em.exact(data)
    z, probs = brute_force_interval_probabilities(data, q, eps, (0.0, 1.0), adjacency)
    with workdps():
        for j, p in enumerate(probs):
            if z[j + 1] > z[j]:
                assert abs(law.mass(z[j], z[j + 1]) - p) < TIGHT


@pytest.mark.audit
@pytest.mark.parametrize("adjacency", ["replace_one", "add_remove"])
@pytest.mark.parametrize("q, eps", [(0.5, 1.0), (0.25, 0.7), (0.9, 2.0)])
def test_em_exact_loss_is_at_most_epsilon_on_the_exhaustive_family(adjacency, q, eps) -> None:
    """Every neighbouring pair of size <= 5 over a grid with ties, both bounds and clamped values."""
    em = ExponentialQuantile(q, eps, (0.0, 1.0), adjacency=adjacency)
    sweep = exact_sweep(em, exhaustive_data_pairs(GRID, 5, adjacency))
    assert sweep.pairs > 1000
    assert sweep.max_loss <= eps, sweep.witness
    assert not sweep.violation
    assert sweep.max_loss > 0.4 * eps  # the family is not trivially loose


@pytest.mark.audit
@pytest.mark.parametrize(
    "adjacency, q, sensitivity",
    [("replace_one", 0.5, 0.5), ("add_remove", 0.25, 0.5), ("replace_one", 0.25, 0.5)],
)
def test_miscalibrated_em_exceeds_its_claim_on_the_family(adjacency, q, sensitivity) -> None:
    em = ExponentialQuantile(q, 1.0, (0.0, 1.0), adjacency=adjacency, sensitivity=sensitivity)
    sweep = exact_sweep(em, exhaustive_data_pairs(GRID, 5, adjacency))
    assert sweep.max_loss > 1.0 + 0.05
    assert sweep.violation and sweep.max_delta_at_claim > 0


def test_missing_half_witness_of_the_em_without_the_half() -> None:
    """The known-bad ``em_no_half`` (``notes/auditor.md``): weights without the ½ give
    ε_exact = 1.47 on (0, .25, .25) vs (.25, .25, 1)."""
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0), sensitivity=0.5)
    loss = privacy_loss(em.exact([0, 0.25, 0.25]), em.exact([0.25, 0.25, 1]))
    assert float(loss) == pytest.approx(1.4706149197, abs=1e-9)


def test_values_outside_the_bounds_are_clamped() -> None:
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    assert privacy_loss(em.exact([-5.0, 0.5, 7.0]), em.exact([0.0, 0.5, 1.0])) == 0


def test_empty_data_gives_the_uniform_law_on_the_bounds() -> None:
    law = ExponentialQuantile(0.3, 1.0, (2.0, 6.0), adjacency="add_remove").exact([])
    assert abs(law.mass(2, 3) - mpmath.mpf(1) / 4) < TIGHT


@pytest.mark.parametrize(
    "data, q, eps, adjacency",
    [
        ([0.2, 0.4, 0.4, 0.4, 0.9], 0.5, 1.0, "replace_one"),
        ([0.0, 0.0, 1.0, 1.0, 3.0, -2.0], 0.25, 0.3, "add_remove"),
        ([0.5] * 50 + [0.51], 0.5, 5.0, "replace_one"),
        ([], 0.5, 1.0, "add_remove"),
    ],
)
def test_em_sampler_conforms_to_its_exact_law(data, q, eps, adjacency, rng) -> None:
    em = ExponentialQuantile(q, eps, (0.0, 1.0), adjacency=adjacency)
    draws = em.sample(data, 200_000, rng)
    assert draws.shape == (200_000,) and np.all((draws >= 0) & (draws <= 1))
    check_sampler(em.exact(data), draws).assert_ok()


def test_diffprivlib_issue_107_input_samples_correctly(rng) -> None:
    """800000×[65000] + 200000 random integers in [0, 500000], q = 0.5, ε = 0.5: every linear-space
    weight underflows (the nearest intervals of positive length are ~2·10^5 ranks away)."""
    data_rng = np.random.default_rng(107)
    data = np.concatenate(
        [np.full(800_000, 65_000.0), data_rng.integers(0, 500_001, 200_000).astype(float)]
    )
    data_rng.shuffle(data)
    em = ExponentialQuantile(0.5, 0.5, (0.0, 500_000.0))
    law = em.exact(data)
    draws = em.sample(data, 200_000, rng)
    assert np.all(np.isfinite(draws))
    check_sampler(law, draws).assert_ok()
    # t = 500000 falls inside the block of ties (ranks ~26000..826000): the mass sits just above
    # the block, 326000 ranks from t, and below it (474000 ranks away) it is about e^-37000.
    above = np.unique(data[data > 65_000])
    assert law.mass(0.0, 65_000.0) < mpmath.mpf("1e-10000")
    assert law.mass(65_000.0, float(above[400])) > 1 - mpmath.mpf("1e-30")


def test_smartnoise_issue_572_input_samples_correctly(rng) -> None:
    """[0]*1492 + [1] on [0, 1], ε = 1: SmartNoise's quantile crashed with NaN probabilities."""
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    data = [0.0] * 1492 + [1.0]
    law = em.exact(data)
    draws = em.sample(data, 100_000, rng)
    check_sampler(law, draws).assert_ok()
    assert abs(law.mass(0, 1) - 1) < TIGHT  # one interval of positive length: uniform on [0, 1]


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"quantile": 1.5}, "quantile"),
        ({"quantile": math.nan}, "quantile"),
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": math.inf}, "epsilon"),
        ({"bounds": (1.0, 0.0)}, "bounds"),
        ({"bounds": (0.0, math.inf)}, "bounds"),
        ({"adjacency": "local"}, "adjacency"),
        ({"adjacency": "swap"}, "adjacency"),
        ({"sensitivity": -1.0}, "sensitivity"),
    ],
)
def test_bad_constructor_arguments_raise(kwargs, match) -> None:
    args = {"quantile": 0.5, "epsilon": 1.0, "bounds": (0.0, 1.0)} | kwargs
    with pytest.raises(ValueError, match=match):
        ExponentialQuantile(**args)


@given(st.one_of(st.just([math.nan]), st.just([0.1, math.inf]), st.just([[0.1]]), st.just("x")))
def test_bad_data_raise(data) -> None:
    with pytest.raises(ValueError, match="data"):
        ExponentialQuantile(0.5, 1.0, (0.0, 1.0)).sample(data, 3, np.random.default_rng(0))


def test_bad_size_and_rng_raise() -> None:
    em = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
    with pytest.raises(ValueError, match="size"):
        em.sample([0.5], -2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng"):
        em.sample([0.5], 2, 42)


@pytest.mark.parametrize("q", [0.0, 0.1, 0.5, 0.75, 1.0])
def test_utility_sensitivity_is_max_q_1_minus_q_for_add_remove_and_1_for_replace_one(q) -> None:
    assert utility_sensitivity(q, "add_remove") == max(q, 1 - q)
    assert utility_sensitivity(q, "replace_one") == 1.0


def direct_law(mech, data):
    """The EM's law built from its definition, every constant computed afresh for this data set."""
    cut = smith_intervals(data, mech.bounds)
    q = Fraction(mech.quantile)
    if mech.sensitivity is not None:
        delta, delta_exact = mech.sensitivity, Fraction(mech.sensitivity)
    else:
        delta = utility_sensitivity(mech.quantile, mech.adjacency)
        delta_exact = max(q, 1 - q) if mech.adjacency == "add_remove" else Fraction(1)
    dist = np.abs(cut.ranks - mech.quantile * cut.n)
    with np.errstate(over="ignore"):
        floats = -(mech.epsilon / (2.0 * delta)) * (dist - dist.min())
    t = q * cut.n
    nearest = min(abs(int(j) - t) for j in cut.ranks)
    exact = [
        -Fraction(mech.epsilon) / (2 * delta_exact) * (abs(int(j) - t) - nearest) for j in cut.ranks
    ]
    return cut.breaks, floats, exact


@pytest.mark.parametrize(
    "mech",
    [
        ExponentialQuantile(0.9, 2.0, (0.0, 1.0)),
        ExponentialQuantile(0.5, 1.0, (0.0, 1.0), adjacency="add_remove"),
        ExponentialQuantile(0.3, 0.7, (-2.0, 3.5), adjacency="add_remove"),
        ExponentialQuantile(0.25, 1.0, (0.0, 1.0), sensitivity=0.1),
        ExponentialQuantile(0.75, 1e300, (0.0, 1.0), adjacency="add_remove"),
    ],
)
def test_exact_law_equals_its_direct_construction(mech):
    """exact() (constants computed once per mechanism, the checked data not checked again) gives,
    on 300 seeded data sets, the breaks, float log-weights and exact log-weights of the EM's
    definition, bit for bit."""
    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(0, 7))
        data = rng.choice(np.array(GRID), n) if rng.random() < 0.5 else rng.uniform(-3, 4, n)
        law = mech.exact(data)
        breaks, floats, exact = direct_law(mech, data)
        assert law.breaks.tobytes() == breaks.tobytes()
        assert law.intercepts.tobytes() == floats.tobytes()
        assert not law.slopes.any()
        got = [law.exact_parameters(i)[3] for i in range(len(law))]
        assert got == exact and all(type(g) is Fraction for g in got)
