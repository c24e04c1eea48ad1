"""imola25's Adult experiments (Sec. 6, Figure 1; notes/imola25.md errata 19–28): the distinctness
transform, the rank-error metric, the duplication-factor search and the ``dpquant reproduce
imola25`` pipeline (quick runs; the full study is far too slow for a test)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from dpquant.cli import main
from dpquant.reference.datasets import load_adult
from dpquant.reference.slice_quantiles.parameters import check_feasible, target_ranks
from dpquant.reference.slice_quantiles.slice_release import cc_error, plan_slice_quantiles
from dpquant.studies import imola25 as I

PNG = b"\x89PNG\r\n\x1a\n"
ISSUE_COLUMNS = (
    "dataset", "adjacency", "n", "m", "epsilon", "delta", "mechanism", "runs", "max_rank_error",
    "mean_rank_error",
)  # fmt: skip


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def without_timing(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Rows minus the wall-clock columns (the only ones allowed to vary between runs)."""
    return [{k: v for k, v in r.items() if k not in I.TIMING_COLUMNS} for r in rows]


def quick(out: Path, *extra: str) -> int:
    return main(["reproduce", "imola25", "--quick", "-q", "--out", str(out), *extra])


# --------------------------------------------------------------------------------------------
# data and metric (Sec. 2's Err_X, Sec. 6's data)
# --------------------------------------------------------------------------------------------


def test_distinct_transform_adds_i_over_n_to_the_sorted_duplicated_values() -> None:
    x = I.make_distinct([3.0, 1.0, 3.0], 2)  # n = 6: sorted copies 1, 1, 3, 3, 3, 3
    expected = np.array([1, 1, 3, 3, 3, 3]) + np.arange(1, 7) / 6
    np.testing.assert_allclose(x, expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("dataset", I.DATASETS)
def test_distinct_adult_data_are_sorted_with_min_gap_one_over_n_inside_the_domain(
    dataset: str,
) -> None:
    k = 3
    x = I.adult_distinct(dataset, k)
    n = k * I.ADULT_SIZE
    assert x.shape == (n,)
    gaps = np.diff(x)
    assert np.all(gaps > 0)  # strictly increasing: distinct and sorted
    assert gaps.min() == pytest.approx(1 / n, rel=1e-6)  # attained between copies of a value
    assert I.BOUNDS[0] < x[0] and x[-1] <= I.BOUNDS[1]
    # removing i/n gives back the sorted, duplicated integer column
    back = np.rint(x - np.arange(1, n + 1) / n)
    np.testing.assert_array_equal(back, np.sort(np.repeat(load_adult(dataset), k)))


def test_rank_error_counts_points_strictly_below_each_output() -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    # rank_X(2.0) = 1 (strict: 2.0 itself is not below), rank(2.5) = 2, rank(10) = 5
    mx, mean = I.rank_errors(x, [2.0, 2.5, 10.0], [2, 1, 3])
    assert mx == 2.0
    assert mean == pytest.approx(4 / 3)
    with pytest.raises(ValueError, match="same length"):
        I.rank_errors(x, [1.0, 2.0], [1])


def test_quantile_draws_are_distinct_sorted_grid_points_shared_by_mechanisms() -> None:
    q = I.run_quantiles(0, "age", "add_remove", 200, 7)
    assert q.shape == (200,) and np.all(np.diff(q) > 0)
    idx = np.rint(q * I.GRID)
    np.testing.assert_allclose(q, idx / I.GRID, rtol=0, atol=1e-15)
    assert idx.min() >= 1 and idx.max() <= I.GRID - 1
    np.testing.assert_array_equal(q, I.run_quantiles(0, "age", "add_remove", 200, 7))
    assert not np.array_equal(q, I.run_quantiles(0, "age", "add_remove", 200, 8))
    with pytest.raises(ValueError, match=r"\[1, 250\]"):
        I.draw_quantiles(251, np.random.default_rng(0))


def test_noise_seeds_differ_per_run_and_per_mechanism() -> None:
    cells = [I.Cell("c", "age", "add_remove", 8, 10, mech, 3) for mech in I.MECHANISMS]
    states = {
        tuple(np.random.default_rng(I.noise_seed(0, c, run)).integers(0, 2**62, 4))
        for c in cells
        for run in range(3)
    }
    assert len(states) == len(cells) * 3  # fresh noise per run (notes/imola25.md erratum 25)


def test_bootstrap_ci_brackets_the_mean_and_is_seeded() -> None:
    values = np.arange(50, dtype=float)
    lo, hi = I.bootstrap_mean_ci(values, np.random.default_rng(1))
    assert lo < values.mean() < hi
    # the CI of a mean of 50 values with sd ≈ 14.6: half-width ≈ 1.96·14.6/√50 ≈ 4.0
    assert 2.5 < (hi - lo) / 2 < 5.5
    assert (lo, hi) == I.bootstrap_mean_ci(values, np.random.default_rng(1))
    assert I.bootstrap_mean_ci(np.full(7, 3.0), np.random.default_rng(0)) == (3.0, 3.0)


# --------------------------------------------------------------------------------------------
# duplication factor (notes/imola25.md erratum 28)
# --------------------------------------------------------------------------------------------


def worst_draw(m: int) -> np.ndarray:
    """m grid quantiles with both extremes and consecutive points (the binding draw)."""
    idx = np.concatenate([np.arange(1, m), [I.GRID - 1]])
    return idx / I.GRID


@pytest.mark.parametrize("adjacency", I.ADJACENCIES)
def test_duplication_search_returns_the_smallest_feasible_factor(adjacency: str) -> None:
    ms = (10, 20)
    f = I.find_duplication(adjacency, ms)
    assert f.feasible and f.duplication > 1
    assert f.spacing >= f.required_spacing
    below = I.slice_feasibility(adjacency, f.duplication - 1, ms)
    assert not below.feasible
    # tied to the real planner: the worst draw plans at k and is refused at k − 1
    for k, ok in ((f.duplication, True), (f.duplication - 1, False)):
        n = k * I.ADULT_SIZE
        q = worst_draw(20)

        def plan(n: int = n, q: np.ndarray = q) -> object:
            return plan_slice_quantiles(
                n, I.BOUNDS, 1.0, 1e-16, quantiles=q, adjacency=adjacency, min_gap=1 / n
            )

        if ok:
            assert plan().w == f.w  # type: ignore[attr-defined]
        else:
            with pytest.raises(ValueError, match="infeasible"):
                plan()


@pytest.mark.parametrize("adjacency", I.ADJACENCIES)
def test_the_papers_n_is_infeasible_with_a_correct_cc(adjacency: str) -> None:
    """Erratum 28 (notes/imola25.md): the paper's ×10 (n = 488,420) is infeasible at m = 200 on
    the 250-grid (binary-tree CC, exact tail w); so is the repo's ×12 (n = 586,104) under
    substitution."""
    paper = I.slice_feasibility(adjacency, 10, (200,))
    assert (
        paper.n == 488_420 and paper.spacing == 1945
    )  # grid spacing 1945 (notes/imola25.md, "Reference values")
    assert not paper.feasible
    repo = I.slice_feasibility(adjacency, 12, (200,))
    assert (
        repo.n == 586_104 and repo.spacing == 2335
    )  # grid spacing 2335 (notes/imola25.md, "Reference values")
    assert repo.feasible is (adjacency == "add_remove")


def test_repo_n_add_remove_is_infeasible_only_with_the_chernoff_bound() -> None:
    """With the authors' Chernoff E_CC = 967.7 (m = 200, ε1 = 0.5, δ = 1e-16; notes/imola25.md,
    "Reference values") ×12 is infeasible under add/remove; the exact union-bound tail is smaller
    and admits it (erratum 28)."""
    n = 12 * I.ADULT_SIZE
    h, w_exact, cc_delta = I.slice_parameters(n, 200, "add_remove")
    assert h == 215  # the repository's h, g = 1/n, A/R, m = 200 (notes/imola25.md)
    w_chernoff = cc_error(0.5, 200, "discrete", "chernoff", delta=cc_delta)
    assert w_chernoff == 968
    assert w_exact < w_chernoff
    ranks = target_ranks(I.grid_quantiles(), n)
    with pytest.raises(ValueError, match="infeasible"):
        check_feasible(ranks, n, h, w_chernoff)
    check_feasible(ranks, n, h, w_exact)


@pytest.mark.parametrize(("adjacency", "estimate"), [("add_remove", 14), ("replace_one", 25)])
def test_smallest_duplication_at_m_200_is_at_most_the_chernoff_estimate(
    adjacency: str, estimate: int
) -> None:
    """The earlier rough estimates (×14, ×25; notes/imola25.md, "Duplication factor") came from
    the Chernoff bound; the exact tail can only lower them; the paper's ×10 stays out of reach."""
    best = I.find_duplication(adjacency, I.M_VALUES)
    assert 10 < best.duplication <= estimate
    assert best.m == 200


# --------------------------------------------------------------------------------------------
# the pipeline
# --------------------------------------------------------------------------------------------


def test_quick_cli_run_writes_csvs_with_the_issue_columns_and_plots(tmp_path: Path) -> None:
    assert quick(tmp_path, "--workers", "1") == 0
    summary = read_csv(tmp_path / "imola25.csv")
    runs = read_csv(tmp_path / "imola25_runs.csv")
    feas = read_csv(tmp_path / "imola25_feasibility.csv")
    assert set(ISSUE_COLUMNS) <= set(summary[0])
    assert {"duplication", "max_rank_error_ci_low", "mean_rank_error_ci_high", "note"} <= set(
        summary[0]
    )
    for name in ("imola25.png", "imola25_mean.png"):
        assert (tmp_path / name).read_bytes()[:8] == PNG
    mechs = {r["mechanism"] for r in summary}
    assert mechs == set(I.MECHANISMS)
    used = {r["adjacency"]: int(r["duplication"]) for r in feas if r["role"].endswith("(used)")}
    assert set(used) == {"replace_one", "add_remove"}
    for r in summary:
        assert int(r["duplication"]) == used[r["adjacency"]]
        assert int(r["n"]) == used[r["adjacency"]] * I.ADULT_SIZE
        assert int(r["completed_runs"]) == int(r["runs"])  # feasible: nothing skipped
        for metric in ("max_rank_error", "mean_rank_error"):
            v = float(r[metric])
            assert float(r[f"{metric}_ci_low"]) <= v <= float(r[f"{metric}_ci_high"])
        assert float(r["mean_rank_error"]) <= float(r["max_rank_error"])
        # the summary is the mean of the per-run rows of its cell
        cell = [
            float(x["max_rank_error"])
            for x in runs
            if (x["panel"], x["m"], x["mechanism"]) == (r["panel"], r["m"], r["mechanism"])
        ]
        assert len(cell) == int(r["runs"])
        assert float(r["max_rank_error"]) == pytest.approx(np.mean(cell))
    je = [r for r in summary if r["mechanism"] == "JointExp"]
    assert je and all("JointExp: only" in r["note"] for r in je)
    sq = [r for r in summary if r["mechanism"] == "SliceQuantiles"]
    assert all(int(r["half_width"]) > 0 and int(r["cc_error_bound"]) > 0 for r in sq)


def test_results_do_not_depend_on_workers_and_seeds_reproduce(tmp_path: Path) -> None:
    outs = {}
    for name, extra in (("w1", ("--workers", "1")), ("w2", ("--workers", "2"))):
        assert quick(tmp_path / name, "--jointexp-runs", "0", *extra) == 0
        outs[name] = without_timing(read_csv(tmp_path / name / "imola25_runs.csv"))
    assert outs["w1"] == outs["w2"]
    assert quick(tmp_path / "s1", "--jointexp-runs", "0", "--workers", "1", "--seed", "1") == 0
    other = without_timing(read_csv(tmp_path / "s1" / "imola25_runs.csv"))
    assert [r["max_rank_error"] for r in other] != [r["max_rank_error"] for r in outs["w1"]]


def test_forced_infeasible_duplication_skips_slicequantiles_with_a_note(tmp_path: Path) -> None:
    args = ("--workers", "1", "--jointexp-runs", "0", "--panels", "c", "--duplication", "1")
    assert quick(tmp_path, *args) == 0
    summary = read_csv(tmp_path / "imola25.csv")
    sq = [r for r in summary if r["mechanism"] == "SliceQuantiles"]
    assert sq
    runs = read_csv(tmp_path / "imola25_runs.csv")
    for r in sq:
        # n = 48,842: grid spacing 194 < the needed 2(h + 1 + w) + 1, so most draws are refused;
        # each refusal is a per-run note and is counted in the summary note
        assert int(r["completed_runs"]) < int(r["runs"])
        assert "forced duplication 1" in r["note"] and "infeasible ranks" in r["note"]
        refused = [
            x
            for x in runs
            if (x["m"], x["mechanism"]) == (r["m"], "SliceQuantiles") and "infeasible" in x["note"]
        ]
        assert len(refused) == int(r["runs"]) - int(r["completed_runs"])
    others = [r for r in summary if r["mechanism"] != "SliceQuantiles"]
    assert others and all(r["completed_runs"] == r["runs"] for r in others)
    feas = read_csv(tmp_path / "imola25_feasibility.csv")
    forced = [r for r in feas if r["role"] == "forced (used)"]
    assert len(forced) == 1 and forced[0]["feasible"] == "False"


def test_cli_keeps_the_papers_options_apart(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reproduce", "aamand25", "--m", "10", "-q"]) == 2
    assert "unrecognized arguments: --m 10" in capsys.readouterr().err
    assert main(["reproduce", "imola25", "--figure", "fig1a", "-q"]) == 2
    assert "unrecognized arguments: --figure fig1a" in capsys.readouterr().err
    assert main(["reproduce", "imola25", "--panels", "e"]) == 2
    assert main(["reproduce", "imola25", "--m", "300", "--quick", "-q"]) == 2


def test_ranks_use_the_public_n_of_the_data() -> None:
    """Erratum 12 (notes/imola25.md): the ranks ⌊q·n⌋ use n = len(data), the same n given to the
    planner."""
    x = I.adult_distinct("age", 2)
    q = worst_draw(10)
    r = target_ranks(q, len(x))
    mx, _ = I.rank_errors(x, x[r - 1] + 0.5 / len(x), r)  # just above x_(r): rank r
    assert mx == 0.0


def test_traced_curves_of_figure_1_ship_with_the_package_one_per_panel_and_mechanism() -> None:
    """The authors' traced Figure 1 values (dpquant/studies/imola25/figure_1_traced.csv): four
    panels, the three mechanisms of their run, m = 10, 50, 100, 150, 200 each, errors positive."""
    from dpquant.studies.imola25.plots import traced_curves

    curves = traced_curves()
    assert sorted(curves) == ["a", "b", "c", "d"]
    for panel in curves.values():
        assert sorted(panel) == ["AQ pure", "AQ zCDP", "SliceQuantiles"]
        for curve in panel.values():
            assert [m for m, _ in curve] == [10, 50, 100, 150, 200]
            assert all(0 < e < 600 for _, e in curve)
    assert curves["a"]["AQ zCDP"][-1] == (200, 243)  # the paper's panel (a), m = 200


@pytest.mark.parametrize("mechanism", ["SliceQuantiles", "AQ pure", "AQ zCDP"])
def test_the_study_draws_with_the_samplers_of_its_committed_tables(mechanism: str) -> None:
    """The study keeps the draws its tables in notes/imola25.md were made with: SliceQuantiles'
    slice EM by Gumbel-max and AQ's EM with every interval's weight (the faster defaults of
    issue 21 have the same laws but other values for a seed)."""
    from dpquant.reference.slice_quantiles import (
        approximate_quantiles,
        plan_slice_quantiles,
        with_options,
    )

    x = np.sort(np.repeat(load_adult("age"), 21).astype(float))
    x = x + np.arange(1, x.size + 1) / x.size
    q = np.array([0.1, 0.5, 0.9])
    cell = I.Cell("a", "age", "replace_one", 21, 3, mechanism, 1)
    got = I.release(cell, x, q, np.random.default_rng(4))
    if mechanism == "SliceQuantiles":
        plan = plan_slice_quantiles(
            x.size, (0.0, 100.0), cell.epsilon, cell.delta, quantiles=q,
            adjacency="replace_one", min_gap=1.0 / x.size, beta=0.05,
        )  # fmt: skip
        old = with_options(plan.mechanism, em_method="gumbel").release(x, np.random.default_rng(4))
        new = plan.mechanism.release(x, np.random.default_rng(4))
    else:
        mode = "pure" if mechanism == "AQ pure" else "zcdp"
        extra = {} if mode == "pure" else {"delta": cell.delta}
        args = (x, q, (0.0, 100.0), cell.epsilon)
        old = approximate_quantiles(
            *args, np.random.default_rng(4), mode=mode, em_method="linear", **extra
        )
        new = approximate_quantiles(*args, np.random.default_rng(4), mode=mode, **extra)
    assert np.array_equal(got, old) and not np.array_equal(got, new)
