"""aamand25's experiments (Sec. 5, App. I; ``notes/aamand25.md``): data generators, metrics,
configurations and the ``dpquant reproduce aamand25`` pipeline (quick runs with stand-in
estimators, so the file stays fast whatever the real protocols cost)."""

from __future__ import annotations

import csv
import dataclasses
import math
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from dpquant.cli import main
from dpquant.reference.distributed_quantiles.private_bayess import dp_bayess
from dpquant.reference.distributed_quantiles.users import empirical_cdf, is_approximate_quantile
from dpquant.reference.exact.mp import workdps
from dpquant.studies import aamand25 as A
from dpquant.studies.aamand25.data import (
    authors_true_median,
    dataset_users,
    lomax_cdf,
    lomax_median,
    lomax_quantile,
    pareto_clip_probability,
    pareto_data_cdf,
    pareto_values,
    skewed_uniform_sample,
    to_coins,
    uniform_data_cdf,
)

PNG = b"\x89PNG\r\n\x1a\n"
DKW_ALPHA = 1e-9  # false-alarm bound of each DKW check below (the generator seeds are arbitrary)


# --------------------------------------------------------------------------------------------
# stand-in estimators (module level: picklable for the process pool)
# --------------------------------------------------------------------------------------------


def noisy_median(users: np.ndarray, B: int, epsilon: float, rng: Any, **options: Any) -> int:
    """The exact lower median plus seeded noise of a few coins: uses rng, so runs differ."""
    x = np.sort(users)
    jitter = int(rng.integers(-3, 4)) * max(1, B // 200)
    return int(np.clip(x[(x.size - 1) // 2] + jitter, 1, B))


def refusing_shuffle(
    users: np.ndarray, B: int, epsilon: float, delta: float, rng: Any, **options: Any
) -> int:
    """A shuffle stand-in whose local-ε rule refuses small ε, as the real one does."""
    if epsilon < 0.2:
        raise ValueError(f"local epsilon <= 0 at epsilon = {epsilon}")
    return noisy_median(users, B, epsilon, rng)


def c_as_coin(users: np.ndarray, B: int, epsilon: float, rng: Any, **options: Any) -> int:
    return int(round(options["c"] * 10))


STANDINS = {
    name: refusing_shuffle if spec.shuffle else noisy_median for name, spec in A.SERIES.items()
}


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def dkw_threshold(n: int, alpha: float = DKW_ALPHA) -> float:
    """sup |F_n − F| exceeds this with probability <= alpha for any law (DKW–Massart)."""
    return math.sqrt(math.log(2 / alpha) / (2 * n))


def sup_gap_integer_law(values: np.ndarray, cdf: Any) -> float:
    """sup_v |F_n(v) − F(v)| for an integer law: both are steps, F_n only jumps at data values,
    so the sup is attained at a data value or just before one (v − 1)."""
    keys = np.unique(values)
    points = np.unique(np.concatenate([keys, keys - 1]))
    emp = empirical_cdf(values, points)
    law = np.array([float(cdf(int(v))) for v in points])
    return float(np.max(np.abs(emp - law)))


# --------------------------------------------------------------------------------------------
# data generators and their population laws (Sec. 5, App. I)
# --------------------------------------------------------------------------------------------


def test_lomax_median_is_2000_times_2_to_the_two_thirds_minus_1() -> None:
    with workdps():
        med = lomax_median()
        exact = sympy.Integer(2000) * (sympy.Integer(2) ** sympy.Rational(2, 3) - 1)
        assert abs(med - mpmath.mpf(str(sympy.N(exact, 60)))) < mpmath.mpf("1e-50")
        assert abs(med - mpmath.mpf("1174.80")) < mpmath.mpf("0.005")  # 2000·(2^{2/3} − 1)
        assert abs(lomax_cdf(med) - mpmath.mpf(1) / 2) < mpmath.mpf("1e-50")
        assert round(float(med)) == 1175  # the rounded population median


@given(st.floats(min_value=0.0, max_value=0.999))
def test_lomax_quantile_function_inverts_its_cdf(u: float) -> None:
    with workdps():
        assert abs(lomax_cdf(lomax_quantile(u)) - mpmath.mpf(u)) < mpmath.mpf("1e-45")


def test_pareto_clip_probability_formula_and_its_values_at_b_4_8_and_4_9() -> None:
    with workdps():
        for B in (4**8, 4**9):
            p = pareto_clip_probability(B)
            closed = (1 + (mpmath.mpf(B) - mpmath.mpf("1.5")) / 2000) ** mpmath.mpf("-1.5")
            assert abs(p - closed) < mpmath.mpf("1e-50")
            # the clipped atom is what the data CDF lacks just below B − 1
            assert abs(1 - pareto_data_cdf(B - 2, B) - p) < mpmath.mpf("1e-50")
        assert abs(pareto_clip_probability(4**9) - mpmath.mpf("0.000659")) < mpmath.mpf("5e-7")
        # the formula gives 0.0050963 for B = 4⁸, not 0.005093 (``notes/aamand25.md`` erratum 9:
        # off by 3.3e-6, far more than the 4-digit rounding)
        p8 = pareto_clip_probability(4**8)
        assert abs(p8 - mpmath.mpf("0.005096")) < mpmath.mpf("5e-7")
        assert abs(p8 - mpmath.mpf("0.005093")) > mpmath.mpf("3e-6")


def test_pareto_generator_follows_the_clipped_rounded_lomax_law() -> None:
    n, B = 200_000, 4**6  # a small B, so the clipped atom (P = 0.19) is exercised too
    values = pareto_values(n, B, seed=20261121)
    assert values.min() >= 0 and values.max() <= B - 1
    gap = sup_gap_integer_law(values, lambda v: pareto_data_cdf(v, B))
    assert gap <= dkw_threshold(n), gap


def test_skewed_uniform_generator_draws_l_below_half_r_above_and_x_uniform_on_l_r() -> None:
    n, B = 200_000, 10**4
    values, left, right = skewed_uniform_sample(n, B, seed=7)
    assert 0 <= left < B // 2 <= right <= B - 1
    assert values.min() >= left and values.max() <= right
    gap = sup_gap_integer_law(values, lambda v: uniform_data_cdf(v, left, right))
    assert gap <= dkw_threshold(n), gap


@given(st.integers(0, 40), st.integers(0, 40), st.integers(-5, 90))
def test_uniform_cdf_formula_counts_the_integers_of_l_r_up_to_v(a: int, w: int, v: int) -> None:
    left, right = a, a + w
    count = sum(1 for x in range(left, right + 1) if x <= v)
    assert uniform_data_cdf(v, left, right) == pytest.approx(count / (w + 1), abs=1e-15)


def test_authors_seed_42_reproduces_their_data_sets() -> None:
    # the authors' committed results: medians 1198 / 1170 / 1148 (0-based); 12 and 2 clipped
    # values at n = 2500
    for n, median in ((2500, 1198), (5000, 1170), (7500, 1148)):
        users = dataset_users("pareto", n, 4**9)
        assert authors_true_median(users, inclusive=False) == median + 1  # our shifted domain
    assert int(np.sum(pareto_values(2500, 4**8) == 4**8 - 1)) == 12
    assert int(np.sum(pareto_values(2500, 4**9) == 4**9 - 1)) == 2
    table = {10**3: (102, 935, 505), 10**4: (861, 8766, 4813), 10**5: (15804, 50852, 33504)}
    table[10**6] = (122084, 646586, 374722)
    for B, (lo, hi, median) in table.items():
        values, _, _ = skewed_uniform_sample(2500, B)
        assert (int(values.min()), int(values.max())) == (lo, hi)
        assert authors_true_median(to_coins(values), inclusive=True) == median + 1


def test_data_sets_are_fixed_and_read_only() -> None:
    a = dataset_users("uniform", 500, 10**3)
    b = dataset_users("uniform", 500, 10**3)
    assert np.array_equal(a, b) and a.min() >= 1 and a.max() <= 10**3
    with pytest.raises(ValueError):
        a[0] = 1


# --------------------------------------------------------------------------------------------
# metrics (Sec. 2 criterion, Sec. 5)
# --------------------------------------------------------------------------------------------


users_strategy = st.lists(st.integers(1, 30), min_size=1, max_size=40).map(np.array)


@given(users_strategy, st.lists(st.integers(1, 30), min_size=1, max_size=8))
def test_success_metric_agrees_with_is_approximate_quantile(users: np.ndarray, coins: list) -> None:
    hits = A.success_indicators(users, coins)
    assert hits.shape == (len(coins), len(A.ALPHA_TESTS))
    for i, m in enumerate(coins):
        for j, alpha in enumerate(A.ALPHA_TESTS):
            assert hits[i, j] == is_approximate_quantile(users, m, 0.5, alpha)


@given(users_strategy, st.lists(st.integers(0, 31), min_size=1, max_size=8), st.integers(0, 31))
def test_absolute_error_is_the_gap_between_cdf_values(
    users: np.ndarray, coins: list, ref: int
) -> None:
    expected = np.abs(empirical_cdf(users, coins) - empirical_cdf(users, [ref])[0])
    assert np.allclose(A.absolute_quantile_errors(users, coins, ref), expected, atol=0)


@given(users_strategy, st.lists(st.integers(1, 30), min_size=1, max_size=8))
def test_shifting_the_authors_zero_based_domain_by_one_changes_no_metric(
    users: np.ndarray, coins: list
) -> None:
    zero_based = users - 1
    shifted = np.array(coins)
    assert np.array_equal(
        A.success_indicators(zero_based, shifted - 1), A.success_indicators(users, shifted)
    )
    for inclusive in (False, True):
        m0 = authors_true_median(zero_based + 1, inclusive=inclusive)  # shift back and forth
        assert np.allclose(
            A.absolute_quantile_errors(zero_based, shifted - 1, m0 - 1),
            A.absolute_quantile_errors(users, shifted, m0),
            atol=0,
        )


@given(users_strategy)
def test_true_median_is_the_left_coin_of_the_crossing_interval(users: np.ndarray) -> None:
    keys = np.unique(users)
    for dataset, inclusive in (("pareto", False), ("uniform", True)):
        m = A.true_median(users, dataset)
        f_m = empirical_cdf(users, [m])[0]
        assert (f_m <= 0.5) if inclusive else (f_m < 0.5)
        above = keys[keys > m]
        f_next = empirical_cdf(users, [above[0]])[0]  # the next data value crosses ½
        assert (f_next > 0.5) if inclusive else (f_next >= 0.5)
        assert m == 0 or m in keys


def test_true_median_rules_differ_exactly_when_a_value_has_cdf_one_half() -> None:
    users = np.array([1, 2, 3, 4])  # F(2) = 1/2
    assert A.true_median(users, "pareto") == 1  # "first key with F >= ½, minus one step"
    assert A.true_median(users, "uniform") == 2  # "first key with F > ½, minus one step"
    assert A.true_median(np.array([5, 5, 5]), "pareto") == 0  # the sentinel coin, F(0) = 0


def test_binomial_stderr_is_sqrt_p_1_minus_p_over_runs() -> None:
    assert A.binomial_stderr(0.5, 200) == pytest.approx(math.sqrt(0.25 / 200), rel=1e-15)
    assert A.binomial_stderr(0.0, 7) == 0.0 and A.binomial_stderr(1.0, 7) == 0.0


# --------------------------------------------------------------------------------------------
# configurations (Sec. 5 and App. I: grids and figures)
# --------------------------------------------------------------------------------------------


def test_grids_are_the_papers() -> None:
    paper_eps = (0.1, 0.15445, 0.23853, 0.36840, 0.56898, 0.87876, 1.35721, 2.09614, 3.23739, 5)
    assert np.allclose(A.EPS_GRID, paper_eps, atol=6e-6)
    assert A.EPS_GRID[4] == pytest.approx(0.569, abs=1e-3)  # "ε = 0.57" of Fig. 1a
    assert np.allclose(A.C_GRID, 0.1 + 1.9 / 9 * np.arange(10), atol=1e-12)
    assert np.allclose(A.C_GRID[:3], (0.1, 0.311, 0.522), atol=6e-4) and A.C_GRID[-1] == 2.0
    assert A.ALPHA_TESTS == (0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.1, 0.15, 0.2)


def test_full_figures_run_every_configuration_of_the_paper() -> None:
    fig1a = A.build_figure("fig1a")
    assert {(c.n, c.B, c.dataset) for c in fig1a.cells} == {(2500, 4**9, "pareto")}
    assert {c.mechanism for c in fig1a.cells} == {
        "DpBayeSS", "DpBayeSS (paper rounding)", "DpNaiveNBS", "HM"
    }  # fmt: skip
    assert len(fig1a.cells) == 4 * 10
    fig1b = A.build_figure("fig1b")
    assert {c.B for c in fig1b.cells} == {10**3, 10**4, 10**5, 10**6}
    assert {c.epsilon for c in fig1b.cells} == {1.0} and {c.n for c in fig1b.cells} == {2500}
    fig2 = A.build_figure("fig2")
    assert {(c.n, c.B) for c in fig2.cells} == {(2500, 4**9), (5000, 4**8)}
    assert {c.epsilon for c in fig2.cells} == {0.5, 1.0, 1.5} and len(fig2.cells) == 60
    assert {c.mechanism for c in fig2.cells} == {"DpBayeSS"}
    fig3 = A.build_figure("fig3")
    assert {c.epsilon for c in fig3.cells} == {0.5, 1.0}
    assert {10**3, 10**4, 10**5, 10**6} <= {c.B for c in fig3.cells}
    fig4 = A.build_figure("fig4")
    assert {(c.n, c.B) for c in fig4.cells} == {(10**7, 4**8)}
    assert {c.delta for c in fig4.cells if A.SERIES[c.mechanism].shuffle} == {1e-8}
    fig5 = A.build_figure("fig5")
    assert {(c.n, c.B) for c in fig5.cells} == {
        (n, B) for n in (2500, 5000, 7500) for B in (4**8, 4**9)
    }
    for spec in (fig1a, fig1b, fig2, fig3, fig4, fig5):
        keys = [(c.configuration, c.mechanism, c.epsilon) for c in spec.cells]
        assert len(keys) == len(set(keys))  # one cell per (configuration, mechanism, ε)


def test_series_options_are_the_authors_and_the_papers() -> None:
    fn, opts = A.resolve_series("DpBayeSS", STANDINS)
    assert fn is noisy_median and opts["rounding"] == "left" and opts["selection"] == "numpy"
    _, opts = A.resolve_series("DpBayeSS (paper rounding)", STANDINS)
    assert opts["rounding"] == "paper" and opts["selection"] == "paper"
    assert A.resolve_series("DpNaiveNBS", STANDINS)[1]["faithful"] is True
    assert (
        A.resolve_series("Shuffle DpNaiveNBS (paper ε_L)", STANDINS)[1]["local_epsilon"] == "paper"
    )
    rule = A.resolve_series("Shuffle DpNaiveNBS (Lemma G.5 ε_L)", STANDINS)[1]["local_epsilon"]
    assert rule == "lemma_g5"


def test_run_seeds_differ_across_every_key_component_and_repeat_for_the_same_key() -> None:
    cell = A.Cell("fig1a", "p", "pareto", 2500, 4**9, "HM", A.EPS_GRID[0])
    variants = [
        cell,
        A.Cell("fig5", "p", "pareto", 2500, 4**9, "HM", A.EPS_GRID[0]),
        A.Cell("fig1a", "p", "pareto", 5000, 4**9, "HM", A.EPS_GRID[0]),
        A.Cell("fig1a", "p", "pareto", 2500, 4**9, "DpNaiveNBS", A.EPS_GRID[0]),
        A.Cell("fig1a", "p", "pareto", 2500, 4**9, "HM", A.EPS_GRID[1]),
    ]
    states = {tuple(A.run_seed(0, c, 0).generate_state(4)) for c in variants}
    states.add(tuple(A.run_seed(0, cell, 1).generate_state(4)))
    states.add(tuple(A.run_seed(1, cell, 0).generate_state(4)))
    assert len(states) == len(variants) + 2
    assert A.run_seed(0, cell, 3).generate_state(4).tolist() == (
        A.run_seed(0, cell, 3).generate_state(4).tolist()
    )


def test_cells_pass_their_update_constant_c_to_the_estimator() -> None:
    cells = [A.Cell("fig2", "p", "uniform", 200, 10**3, "DpBayeSS", 1.0, c) for c in (0.3, 0.7)]
    results = A.run_cells(cells, runs=2, seed=0, estimators={"DpBayeSS": c_as_coin})
    assert [[coin for _, coin, _ in r] for r in results] == [[3, 3], [7, 7]]


def test_bad_arguments_raise_value_errors_naming_them() -> None:
    with pytest.raises(ValueError, match="figure"):
        A.run_figure("fig9", quick=True, workers=1)
    with pytest.raises(ValueError, match="runs"):
        A.run_figure("fig1b", runs=0, quick=True, workers=1, estimators=STANDINS)
    with pytest.raises(ValueError, match="workers"):
        A.run_figure("fig1b", workers=0, quick=True, estimators=STANDINS)
    with pytest.raises(ValueError, match="seed"):
        A.run_figure("fig1b", seed=-1, quick=True, workers=1, estimators=STANDINS)
    with pytest.raises(ValueError, match="kind"):
        dataset_users("lognormal", 10, 100)
    with pytest.raises(ValueError, match="n"):
        pareto_values(0, 100)
    with pytest.raises(ValueError, match="mechanism"):
        A.resolve_series("NoSuchMechanism")


# --------------------------------------------------------------------------------------------
# the pipeline (quick runs, stand-in estimators)
# --------------------------------------------------------------------------------------------


def test_quick_run_writes_one_summary_row_per_configuration_mechanism_epsilon_alpha(
    tmp_path: Path,
) -> None:
    runs = 3
    paths = A.run_figure(
        "fig4", runs=runs, seed=5, workers=1, out=tmp_path, quick=True, estimators=STANDINS
    )
    assert {p.name for p in paths} == {"fig4.csv", "fig4_errors.csv", "fig4.png", "fig4_alpha.png"}
    for p in paths:
        if p.suffix == ".png":
            assert p.read_bytes()[:8] == PNG
    rows = read_csv(tmp_path / "fig4.csv")
    assert list(rows[0]) == list(A.SUMMARY_COLUMNS)
    cells = A.build_figure("fig4", quick=True).cells
    keys = [(r["n"], r["B"], r["mechanism"], r["epsilon"], r["alpha_test"]) for r in rows]
    assert len(keys) == len(set(keys)) == len(cells) * len(A.ALPHA_TESTS)
    for r in rows:
        shuffle = A.SERIES[r["mechanism"]].shuffle
        assert (r["delta"] == "1e-08") == shuffle
        if shuffle and float(r["epsilon"]) < 0.2:  # the stand-in's rule refuses: a noted row
            assert r["success_rate"] == "" and r["note"].startswith("skipped")
            assert r["completed_runs"] == "0"
        else:
            p = float(r["success_rate"])
            assert int(r["runs"]) == runs and p == int(r["successes"]) / runs
            assert float(r["stderr"]) == pytest.approx(math.sqrt(p * (1 - p) / runs), abs=1e-15)
            assert r["note"] == ""
    errors = read_csv(tmp_path / "fig4_errors.csv")
    assert list(errors[0]) == list(A.ERROR_COLUMNS) and len(errors) == len(cells) * runs
    users = dataset_users("pareto", int(errors[0]["n"]), int(errors[0]["B"]))
    for e in errors:
        if e["coin"]:
            assert float(e["error"]) == pytest.approx(
                abs(empirical_cdf(users, [int(e["coin"])])[0] - float(e["F_true_median"])),
                abs=1e-15,
            )
    # success and mean error of the summary agree with the per-run rows
    for r in rows:
        mine = [
            e for e in errors if (e["mechanism"], e["epsilon"]) == (r["mechanism"], r["epsilon"])
        ]
        done = [e for e in mine if e["coin"]]
        if done:
            hits = sum(
                is_approximate_quantile(users, int(e["coin"]), 0.5, float(r["alpha_test"]))
                for e in done
            )
            assert hits == int(r["successes"])
            assert float(r["mean_error"]) == pytest.approx(
                np.mean([float(e["error"]) for e in done]), abs=1e-15
            )


def test_results_do_not_depend_on_workers_and_repeat_under_the_same_seed(tmp_path: Path) -> None:
    def run(out: Path, workers: int, seed: int) -> tuple[str, str]:
        A.run_figure(
            "fig1b", runs=5, seed=seed, workers=workers, out=out, quick=True,
            estimators=STANDINS, plot=False,
        )  # fmt: skip
        return (out / "fig1b.csv").read_text(), (out / "fig1b_errors.csv").read_text()

    one = run(tmp_path / "w1", 1, 11)
    two = run(tmp_path / "w2", 2, 11)
    other = run(tmp_path / "s12", 1, 12)
    assert one == two
    assert one[1] != other[1]  # the stand-in's noise follows the seed


def test_cli_reproduce_quick_writes_csv_and_png(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, spec in A.SERIES.items():
        stand_in = refusing_shuffle if spec.shuffle else noisy_median
        monkeypatch.setitem(
            A.SERIES, name, A.Series(stand_in, spec.options, spec.takes_c, spec.shuffle)
        )
    out = tmp_path / "out"
    code = main(
        ["reproduce", "aamand25", "--figure", "fig1a", "--quick", "--runs", "2"]
        + ["--workers", "1", "--seed", "3", "--out", str(out)]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    for name in ("fig1a.csv", "fig1a_errors.csv", "fig1a.png", "fig1a_alpha.png"):
        assert f"written: {out / name}" in captured.out
        assert (out / name).stat().st_size > 0
    assert captured.err == ""  # stderr is not a terminal: no progress (tests/cli/test_cli_output.py)
    rows = read_csv(out / "fig1a.csv")
    assert len(rows) == len(A.build_figure("fig1a", quick=True).cells) * len(A.ALPHA_TESTS)
    assert {r["c"] for r in rows if r["mechanism"].startswith("DpBayeSS")} == {"0.6"}


def test_cli_reproduce_rejects_unknown_figures_and_bad_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["reproduce", "aamand25", "--figure", "fig9"]) == 2
    assert main(["reproduce", "aamand25", "--runs", "0", "--quick", "--out", str(tmp_path)]) == 2
    assert "runs must be an integer >= 1" in capsys.readouterr().err


def test_real_naive_and_shuffle_protocols_run_and_refusals_become_notes(tmp_path: Path) -> None:
    A.run_figure("fig4", runs=2, seed=0, workers=1, out=tmp_path, quick=True, plot=False)
    rows = [r for r in read_csv(tmp_path / "fig4.csv") if r["alpha_test"] == "0.2"]
    local = [r for r in rows if r["mechanism"] == "DpNaiveNBS"]
    assert all(r["note"] == "" and r["completed_runs"] == "2" for r in local)
    # quick fig4: n = 2·10⁵, 12 batches of 16666 users; at ε = 0.1 both rules give ε_L <= 0
    # (ε²·16666/(80 ln(4·10⁸)) = 0.105 < 1), so both shuffle rows at ε = 0.1 are skipped notes
    low = [r for r in rows if A.SERIES[r["mechanism"]].shuffle and float(r["epsilon"]) == 0.1]
    assert len(low) == 2 and all(r["note"].startswith("skipped") for r in low)


def test_real_bayess_naive_and_hierarchical_complete_every_quick_fig1a_run(tmp_path: Path) -> None:
    A.run_figure("fig1a", runs=2, seed=0, workers=1, out=tmp_path, quick=True, plot=False)
    rows = read_csv(tmp_path / "fig1a.csv")
    assert {r["mechanism"] for r in rows} == set(A.COMPARISON)
    assert all(r["note"] == "" and r["completed_runs"] == "2" for r in rows)
    for e in read_csv(tmp_path / "fig1a_errors.csv"):
        assert 1 <= int(e["coin"]) <= int(e["B"])


def test_the_batched_searches_run_by_counts_from_a_million_users_and_only_fig4_reaches_it(
    monkeypatch,
) -> None:
    """From ``counts_from`` users on, a series gets the users as a Population (sorted once per
    task) and ``sampler="counts"``; below it, the raw users and no sampler option (the per-user
    draws the committed figures were made with). Only Fig. 4 reaches a million users."""
    nbs = [name for name, s in A.SERIES.items() if s.counts_from is not None]
    assert sorted(nbs) == sorted(
        ["DpNaiveNBS", "HM", "Shuffle DpNaiveNBS (paper ε_L)", "Shuffle DpNaiveNBS (Lemma G.5 ε_L)"]
    )
    assert {A.SERIES[name].counts_from for name in nbs} == {A.COUNTS_FROM} == {10**6}
    for figure in A.FIGURES:
        sizes = {c.n for c in A.build_figure(figure).cells}
        assert (max(sizes) >= A.COUNTS_FROM) == (figure == "fig4"), figure

    seen: list[tuple[str, Any]] = []

    def standin(users, B, epsilon, rng, **options):
        seen.append((type(users).__name__, options.get("sampler")))
        return 1

    monkeypatch.setitem(
        A.SERIES, "DpNaiveNBS", dataclasses.replace(A.SERIES["DpNaiveNBS"], counts_from=1000)
    )
    cells = [A.Cell("fig4", "t", "pareto", n, 64, "DpNaiveNBS", 1.0) for n in (999, 1000)]
    A.run_cells(cells, runs=2, seed=0, estimators={"DpNaiveNBS": standin})
    assert seen == [("ndarray", None)] * 2 + [("Population", "counts")] * 2


def test_dp_bayess_runs_of_a_task_in_one_batch_give_the_coins_of_run_by_run() -> None:
    """The DpBayeSS series run a task's runs as one batch (``Series.batched``); a stand-in that
    calls ``dp_bayess`` run by run gives the same coins. A batch in which runs fail falls back to
    run by run and records each failure."""
    cells = [A.Cell("fig1a", "t", "pareto", 2500, 4**9, "DpBayeSS", 0.57, 0.6)]
    one_by_one = {"DpBayeSS": lambda *args, **kw: dp_bayess(*args, **kw)}
    batched = A.run_cells(cells, runs=6, seed=3)
    per_run = A.run_cells(cells, runs=6, seed=3, estimators=one_by_one)
    assert batched == per_run
    assert all(coin is not None for _, coin, _ in batched[0])
    tiny = [A.Cell("fig1a", "t", "pareto", 20, 4**9, "DpBayeSS", 0.57, 0.6)]
    failed = A.run_cells(tiny, runs=2, seed=3)[0]
    assert [(run, coin) for run, coin, _ in failed] == [(0, None), (1, None)]
    assert all(note.startswith("ValueError: n too small for DpBayeSS") for _, _, note in failed)
