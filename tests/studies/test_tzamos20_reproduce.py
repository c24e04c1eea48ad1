"""tzamos20's accuracy study (Lemma B.2, (B.4), Lemma 3.5, Thm 3.6, Thm 3.1): the admissible
distributions, the exact miss probabilities (private: from the output law per data set; baseline:
the binomial law of the order statistic), the rate terms of Theorem 3.1, the seeding, and a smoke
run of ``dpquant reproduce tzamos20`` (the full study takes minutes; see notes).

Statistical tolerances: each Monte Carlo comparison uses Hoeffding's bound
P(|p̂ − p| >= t) <= 2·exp(−2Mt²) with t chosen so that this is below 1e-7; with fewer than ten
such comparisons in this file a correct implementation fails with probability below 1e-6.
Everything else is exact (Fractions, or mpmath at 60 digits compared with a 1e-40 margin).
"""

from __future__ import annotations

import csv
import math
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
from scipy import stats

from dpquant.cli import main
from dpquant.reference.exact.mp import to_mpf, workdps
from dpquant.reference.private_median import rates
from dpquant.reference.private_median.mechanism import PrivateMedian
from dpquant.reference.private_median.typical_set import exact_data
from dpquant.studies import tzamos20 as T

PNG = b"\x89PNG\r\n\x1a\n"
L, r = Fraction(2, 5), Fraction(1)
FAIL = 1e-7  # per Monte Carlo comparison


def hoeffding(m: int, fail: float = FAIL) -> float:
    """t with 2·exp(−2mt²) = fail."""
    return math.sqrt(math.log(2.0 / fail) / (2.0 * m))


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


# ------------------------------------------------------------------ rate terms (Theorem 3.1)


def test_theorem_3_1_terms_are_the_three_printed_rates_and_each_regime_has_its_dominant_term() -> (
    None
):
    terms = rates.rate_terms(L, r, 10**6, Fraction(1, 2), Fraction(9, 10), Fraction(1, 10))
    lb = math.log(10.0)
    assert terms["T1"] == pytest.approx(lb / (0.16 * 0.81), rel=1e-14)
    assert terms["T2"] == pytest.approx(lb / (0.5 * 0.4 * 0.9), rel=1e-14)
    assert terms["T3"] == pytest.approx(math.log(1e6 / 0.9 + 1.0) / (0.5 * 0.4), rel=1e-14)
    assert rates.theorem_3_6_bound(terms, 3) == pytest.approx(
        terms["T1"] + 3 * terms["T2"] + terms["T3"]
    )
    dominant = {
        g.name: rates.dominant_term(rates.rate_terms(L, r, g.R, g.epsilon, g.alpha, g.beta))
        for g in T.REGIMES
    }
    assert dominant == {"statistical": "T1", "local": "T2", "global": "T3"}
    # App. D (corrected, notes/tzamos20.md): T1 >= T2 exactly when ε >= Lα
    for g in T.REGIMES:
        t = rates.rate_terms(L, r, g.R, g.epsilon, g.alpha, g.beta)
        assert (t["T1"] >= t["T2"]) == (g.epsilon >= L * g.alpha)


# ------------------------------------------------------------------ admissible distributions


@pytest.mark.parametrize("name", T.DISTRIBUTIONS)
def test_both_distributions_are_admissible_with_density_exactly_l_on_the_core(name: str) -> None:
    for median in (Fraction(0), Fraction(-3, 2)):
        d = T.make_distribution(name, L, r, median)
        d.check_admissible(L, r, 2)
        assert d.cdf(median) == Fraction(1, 2)  # m(D) is the median
        for t in (Fraction(1, 7), Fraction(1, 2), r):
            # mass of [m − t, m + t] is exactly 2Lt: density L on the core
            assert d.cdf(median + t) - d.cdf(median - t) == 2 * L * t
        assert d.cdf(median + 10**9) < 1 and d.cdf(median - 10**9) > 0 or name == "uniform"
    with pytest.raises(ValueError, match="median"):
        T.make_distribution(name, L, r, 5).check_admissible(L, r, 2)
    with pytest.raises(ValueError, match="L·r"):
        T.make_distribution(name, L, r).check_admissible(1, 1, 2)


def test_pareto_tail_has_no_mean_and_cdf_is_continuous_at_the_core_ends() -> None:
    d = T.ParetoTailedData(L, r)
    for t in (r, -r):
        assert d.cdf(t) == Fraction(1, 2) + L * t  # both formulas agree at ±r
    # P(X > t) = (1 − 2Lr)/2 · r/t: t·P(X > t) is constant, so E|X| = ∫ P(|X| > t) dt = ∞
    assert {t * (1 - d.cdf(t)) for t in (2, 10, 10**6)} == {(1 - 2 * L * r) / 2 * r}


@pytest.mark.parametrize("name", T.DISTRIBUTIONS)
def test_sampler_and_quantile_follow_the_exact_cdf(name: str) -> None:
    d = T.make_distribution(name, L, r, Fraction(1, 3))
    m = 20_000
    x = d.sample(m, np.random.default_rng(20))
    points = [Fraction(-3), Fraction(-1, 2), Fraction(1, 3), Fraction(1), Fraction(5)]
    # 5 points: union bound 5·FAIL
    for p in points:
        assert abs(np.mean(x <= float(p)) - float(d.cdf(p))) < hoeffding(m, FAIL / 5)
    u = np.array([0.01, 0.2, 0.5, 0.77, 0.999])
    for ui, q in zip(u, d.quantile(u), strict=True):
        assert float(d.cdf(Fraction(float(q)))) == pytest.approx(ui, abs=1e-12)


# ------------------------------------------------------------------ the non-private baseline


@pytest.mark.parametrize("n", [1, 2, 7, 30, 101])
@pytest.mark.parametrize("name", T.DISTRIBUTIONS)
def test_empirical_median_miss_equals_the_beta_law_of_the_order_statistic(
    n: int, name: str
) -> None:
    d = T.make_distribution(name, L, r)
    ell = (n + 1) // 2
    for alpha in (Fraction(1, 4), Fraction(9, 10)):
        exact = rates.empirical_median_miss(d, n, alpha)
        # x_(ℓ) = F⁻¹(U_(ℓ)), U_(ℓ) ~ Beta(ℓ, n − ℓ + 1)
        lo, hi = float(d.cdf(-alpha)), float(d.cdf(alpha))
        beta = stats.beta(ell, n - ell + 1)
        assert float(exact) == pytest.approx(beta.cdf(lo) + beta.sf(hi), abs=1e-13)


def test_empirical_median_miss_matches_monte_carlo_over_data_sets() -> None:
    d = T.make_distribution("pareto", L, r)
    n, m, alpha = 15, 20_000, Fraction(1, 4)
    x = np.sort(d.sample(n * m, np.random.default_rng(7)).reshape(m, n), axis=1)
    hit = np.abs(x[:, (n + 1) // 2 - 1]) > float(alpha)
    assert abs(hit.mean() - float(rates.empirical_median_miss(d, n, alpha))) < hoeffding(m)


@pytest.mark.parametrize("name", T.DISTRIBUTIONS)
def test_b_4_median_concentration_bound_holds_exactly(name: str) -> None:
    """(B.4) ([BA19, ineq. 14]): P(|m(X) − m(D)| >= r/2) <= 2·exp(−nL²r²/8) (T7), exactly
    (D is continuous, so ">=" and ">" have the same probability), with a 1e-30 margin."""
    d = T.make_distribution(name, L, r)
    for n in range(1, 121):
        p = rates.empirical_median_miss(d, n, r / 2)
        with workdps():
            bound = 2 * mpmath.exp(-n * to_mpf(L * L * r * r) / 8)
            assert to_mpf(p) <= bound - mpmath.mpf("1e-30")


# ------------------------------------------------------------------ the private miss, exactly


@pytest.mark.parametrize(
    "data",
    [
        [Fraction(k, 4) for k in (-3, -1, 0, 0, 1, 1, 2, 5)],  # windows active (C = 1)
        [-7, -0.25, 0, 0.125, 0.5, 3, 40, 1e6],  # far outliers: X ∉ H
        [2] * 8,  # all ties at 2
    ],
)
def test_per_data_set_miss_equals_a_direct_integration_of_the_pieces(data: list) -> None:
    mech = PrivateMedian(L, r, 4, 1, Fraction(1, 2))
    x = exact_data(data)
    law = mech.exact(x)
    for center, alpha in ((0, Fraction(9, 10)), (Fraction(1, 3), Fraction(1, 4))):
        a = rates.private_miss(law, center, alpha)
        b = rates.miss_from_pieces(mech.pieces(x), mech.epsilon, center, alpha)
        assert abs(a - b) < mpmath.mpf("1e-40")
        assert 0 < a < 1


def test_fixed_design_miss_decreases_in_n_exactly_on_the_smoke_grid() -> None:
    """No randomness: the quantile data set of each n, and its exact miss probability."""
    g = T.QUICK_REGIMES[0]
    for name in T.DISTRIBUTIONS:
        d = T.make_distribution(name, L, r)
        mech = PrivateMedian(L, r, g.R, T.DEFAULT_C, g.epsilon)
        laws = [mech.exact(T.fixed_design(d, n)) for n in (8, 16, 32)]
        misses = [rates.private_miss(law, 0, g.alpha) for law in laws]
        assert misses[0] > misses[1] > misses[2]


def test_evaluate_data_reports_th_zero_exactly_for_typical_data_sets() -> None:
    mech = PrivateMedian(L, r, 4, 1, 1)
    rng = np.random.default_rng(3)
    seen = set()
    for _ in range(12):
        x = T.make_distribution("pareto", L, r).sample(10, rng)
        miss, base, in_h, th, pieces, restricted = T.evaluate_data(mech, x, 0, Fraction(1, 2))
        assert (th == 0) == in_h  # TH(X, m(X)) = 0 ⇔ X ∈ H (display (3.3), Lemma E.2)
        assert base == (abs(float(np.sort(x)[4])) > 0.5)
        assert pieces >= 1 and 0 <= miss <= 1
        seen.add(in_h)
        assert isinstance(restricted, bool)
    assert seen == {True, False}  # both cases occur on these seeded draws


# ------------------------------------------------------------------ seeding and helpers


def test_data_depend_on_the_seed_and_data_key_only() -> None:
    cells = [T.Cell(g, "pareto", 12, L, r, T.DEFAULT_C, Fraction(0), 5) for g in T.REGIMES]
    same = [T.cell_data(c, 3, 2) for c in cells]
    assert all(np.array_equal(same[0], s) for s in same[1:])  # common random numbers
    assert not np.array_equal(T.cell_data(cells[0], 3, 2), T.cell_data(cells[0], 4, 2))
    assert not np.array_equal(T.cell_data(cells[0], 3, 2), T.cell_data(cells[0], 3, 1))
    assert np.array_equal(T.cell_data(cells[0], 3, -1), T.fixed_design(cells[0].dist(), 12))


def test_crossing_interpolates_on_the_log_log_scale_and_first_stay_below() -> None:
    ns, v = [10, 20, 40, 80], [0.5, 0.2, 0.05, 0.2]
    # log-log line through (20, 0.2) and (40, 0.05): 0.1 at n = 20·2^(1/2)
    assert T.crossing(ns, v, 0.1) == pytest.approx(20 * math.sqrt(2.0))
    assert T.first_stay_below(ns, v, 0.1) is None
    assert T.first_stay_below(ns, [0.5, 0.2, 0.05, 0.01], 0.1) == 40
    assert T.crossing(ns, [0.5] * 4, 0.1) is None


def test_c_rule_log_is_c0_ln_n_on_a_1_over_64_grid() -> None:
    assert T.c_for(100, Fraction(5, 4), "constant") == Fraction(5, 4)
    c = T.c_for(1000, Fraction(1, 2), "log")
    assert c.denominator in (1, 2, 4, 8, 16, 32, 64)
    assert abs(float(c) - 0.5 * math.log(1000)) <= 1 / 128


def test_bad_options_raise_value_errors_naming_the_parameter(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="regimes"):
        T.make_study(regimes="nope")
    with pytest.raises(ValueError, match="distributions"):
        T.make_study(distributions=["cauchy"])
    with pytest.raises(ValueError, match="runs"):
        T.make_study(runs=1)
    with pytest.raises(ValueError, match="c_rule"):
        T.make_study(c_rule="sqrt")
    with pytest.raises(ValueError, match="n must be"):
        T.make_study(ns=[1, 8])
    with pytest.raises(ValueError, match="beta"):
        T.Regime("x", 1, Fraction(1, 2), 1, Fraction(1, 2))
    with pytest.raises(ValueError, match="beta"):
        rates.rate_terms(L, r, 1, 1, Fraction(1, 2), 0)
    with pytest.raises(ValueError, match="median"):
        T.make_study(median=2, quick=True)
    assert main(["reproduce", "aamand25", "--regimes", "local", "--out", str(tmp_path)]) == 2
    assert main(["reproduce", "tzamos20", "--m", "10", "--out", str(tmp_path)]) == 2
    assert main(["reproduce", "tzamos20", "--c", "x/y", "--out", str(tmp_path)]) == 2


# ------------------------------------------------------------------ the pipeline (smoke)


def test_smoke_cli_writes_the_csvs_with_their_columns_and_the_figures(tmp_path: Path) -> None:
    args = ["reproduce", "tzamos20", "-q", "--out", str(tmp_path), "--regimes", "quick"]
    args += ["--n-values", "8,16,32", "--runs", "3", "--distributions", "pareto", "--seed", "5"]
    assert main(args) == 0
    rows = read_csv(tmp_path / "tzamos20.csv")
    assert list(rows[0]) == list(T.SUMMARY_COLUMNS)
    assert [int(r["n"]) for r in rows] == [8, 16, 32]
    fixed = [float(r["miss_fixed"]) for r in rows]
    assert fixed[0] > fixed[1] > fixed[2]  # exact, no Monte Carlo
    runs = read_csv(tmp_path / "tzamos20_runs.csv")
    assert list(runs[0]) == list(T.RUN_COLUMNS)
    assert len(runs) == 3 * 4  # three data sets and the fixed design per n
    for row in rows:
        own = [float(x["miss"]) for x in runs if x["n"] == row["n"] and int(x["run"]) >= 0]
        assert float(row["miss_mean"]) == pytest.approx(np.mean(own), rel=1e-12)
        d = T.make_distribution("pareto", L, r)
        exact = rates.empirical_median_miss(d, int(row["n"]), Fraction(9, 10))
        assert float(row["baseline_exact"]) == float(exact)
        assert float(row["K"]) == math.floor(float(L * r) * int(row["n"]) / (2 * 1.25))
    crossings = read_csv(tmp_path / "tzamos20_crossings.csv")
    assert list(crossings[0]) == list(T.CROSSING_COLUMNS)
    for name in ("tzamos20_miss.png", "tzamos20_typical.png"):
        assert (tmp_path / name).read_bytes()[:8] == PNG


def test_results_do_not_depend_on_the_workers() -> None:
    study = T.make_study(regimes="quick", distributions="uniform", ns=[8, 12], runs=9, quick=True)
    one = T.run_tasks(T.build_tasks(study), 1)
    two = T.run_tasks(T.build_tasks(study), 2)
    for key, (_, res) in one.items():
        a = sorted((x.run, x.miss) for x in res)
        b = sorted((x.run, x.miss) for x in two[key][1])
        assert a == b
