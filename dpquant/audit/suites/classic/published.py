"""Published results of the classic benchmark, as data keyed by :mod:`dpquant.audit.suites.classic.suite` entry
names: DP-Sniper's ε lower bounds and run times against StatDP-Fixed (Bichsel, Steffen,
Bogunovic, Vechev, "DP-Sniper: black-box discovery of differential privacy violations using
classifiers", IEEE S&P 2021), and the transitions of StatDP's p-value curves (Ding, Wang, Wang,
Zhang, Kifer, "Detecting violations of differential privacy", CCS 2018).

Where the numbers come from is in :data:`SOURCES`: the authors' released result logs and figure
files, not the papers' text (whose figure numbers were not checked).
"""

from __future__ import annotations

from dataclasses import dataclass

SOURCES = """\
DP-Sniper: https://github.com/eth-sri/dp-sniper at commit
ee087b2584ca97d1064154db5dd2bda0bb5a8ceb, eval_sp2021/reference-results/
{dd_search_reg,dd_search_mlp,statdp_1,statdp_2}_data.log (the data of the paper's power and
run-time plots, drawn by eval_sp2021/plots/create_plots.py), floating_point_data.log and
floating_fixed_data.log; every mechanism at claimed ε = 0.1 except LaplaceParallel (20 copies of
0.005), Rappor and OneTimeRappor (no ε; f = 0.75 and 0.95). Values rounded to 4 decimals.
StatDP: https://github.com/cmla-psu/statdp at commit d1f1e8fafa1fe15342dc9502654ec241585b9919,
examples/{noisy_max_a,noisy_max_b,noisy_max_c,noisy_max_d,correct_histogram,
incorrect_histogram,SVT,iSVT1,iSVT2,iSVT3,iSVT4}.svg ("all the figures in our paper",
examples/README.md); p-values read off the SVG markers (about ±0.002); tested ε grid 0.1-2.0 in
steps of 0.1 unless noted. The map of figures (c) and (d) to ReportNoisyMax3 and 4 is inferred
(the figures carry only letters).
"""

DPSNIPER_EPSILON = 0.1
STATDP_CLAIMS = (0.2, 0.7, 1.5)


@dataclass(frozen=True)
class SniperResult:
    """One row of DP-Sniper's evaluation: the 90 %-confidence ε lower bounds of DD-Search with
    logistic regression (``lr``) and the neural network (``nn``), of StatDP-Fixed's two runs
    (``statdp1``, ``statdp2``) with their binary-search estimates (``statdp1_pre``,
    ``statdp2_pre``), and the run times in seconds; None where the logs have nothing."""

    lr: float
    nn: float
    statdp1: float | None
    statdp1_pre: float | None
    statdp2: float | None
    statdp2_pre: float | None
    time_lr: float
    time_nn: float
    time_statdp1: float | None
    time_statdp2: float | None


DPSNIPER: dict[str, SniperResult] = {
    "LaplaceMechanism": SniperResult(
        0.0968, 0.0976, 0.0998, 0.0988, 0.0996, 0.0975, 21, 217, 46, 47
    ),
    "TruncatedGeometricMechanism": SniperResult(
        0.1156, 0.1155, 0.1159, 0.1613, 0.1169, 0.2044, 19, 162, 352, 354
    ),
    "NoisyHist1": SniperResult(0.0978, 0.0977, 0.0828, 0.0975, 0.0994, 0.0963, 38, 211, 505, 504),
    "NoisyHist2": SniperResult(4.6020, 4.6015, 9.7169, 8.8594, 10.0022, 9.2256, 41, 254, 817, 816),
    "ReportNoisyMax1": SniperResult(
        0.0923, 0.0925, 0.0920, 0.0919, 0.0921, 0.0844, 62, 492, 60, 60
    ),
    "ReportNoisyMax2": SniperResult(
        0.0975, 0.0979, 0.0996, 0.0975, 0.0997, 0.0950, 58, 423, 59, 60
    ),
    "ReportNoisyMax3": SniperResult(
        0.2478, 0.2488, 0.1991, 0.1769, 0.1961, 0.1794, 62, 437, 132, 130
    ),
    "ReportNoisyMax4": SniperResult(
        0.3463, 0.3534, 0.1960, 0.1856, 0.1988, 0.1869, 63, 451, 132, 129
    ),
    "SparseVectorTechnique1": SniperResult(
        0.0858, 0.0858, 0.0298, 0.2163, 0.0298, 0.1856, 126, 966, 344, 352
    ),
    "SparseVectorTechnique2": SniperResult(
        0.0859, 0.0852, 0.0316, 0.1869, 0.0407, 0.1969, 160, 825, 403, 403
    ),
    "SparseVectorTechnique3": SniperResult(
        0.1716, 0.1822, 0.0231, 1.2138, 0.1793, 1.2056, 160, 880, 5821, 5857
    ),
    "SparseVectorTechnique4": SniperResult(
        0.1687, 0.1696, 0.1709, 0.1913, 0.1719, 0.1881, 130, 815, 556, 554
    ),
    "SparseVectorTechnique5": SniperResult(
        1.7612, 1.7610, 14.3143, 3.2356, 14.3143, 3.2475, 59, 527, 351, 358
    ),
    "SparseVectorTechnique6": SniperResult(
        0.2720, 0.2698, 0.3220, 0.3512, 0.3200, 0.3500, 96, 584, 755, 765
    ),
    "Rappor": SniperResult(0.2930, 0.3008, 0.2416, 0.5188, 0.0243, 0.5513, 145, 529, 1178, 1173),
    "OneTimeRappor": SniperResult(
        0.5978, 0.5999, 0.4706, 1.2613, 0.0602, 1.2600, 89, 408, 991, 982
    ),
    "LaplaceParallel": SniperResult(
        0.0350, 0.0299, 0.0126, 0.0600, 0.0135, 0.0569, 104, 341, 4717, 4728
    ),
    "SVT34Parallel": SniperResult(
        0.2610, 0.2616, 0.1371, 1.7800, 0.1963, 1.9200, 364, 1117, 27301, 27500
    ),
    "PrefixSum": SniperResult(0.5040, 0.5774, 0.3516, 0.3438, 0.3446, 0.3425, 97, 984, 3367, 3386),
    "NumericalSVT": SniperResult(0.0343, 0.0345, None, None, None, None, 152, 686, None, None),
}
"""DP-Sniper's table (module docstring, :data:`SOURCES`). StatDP-Fixed's SVT5 bound is limited
only by its 200M-sample upper confidence bound (its point estimate is ∞); DP-Sniper's bounds
cannot exceed ln(1/0.01) = 4.605 (its attack set holds 1 % of the second input's mass).
StatDP-Fixed's second-run bound for NoisyHist2, 10.0022, lies above the true ε = 10 (a 90 %
confidence bound may; the logs do not say more)."""

DPSNIPER_FLOATING_POINT = {
    "naive LaplaceMechanism (64-bit pattern features, MLP)": 0.2521,
    "LaplaceFixed (Mironov's snapping)": 0.0979,
}
"""DP-Sniper's floating-point experiment: ε lower bounds at claimed ε = 0.1."""


@dataclass(frozen=True)
class StatDPTransition:
    """Where one of StatDP's p-value curves (one claimed ε0) leaves rejection (p < 0.05):
    ``rejects_through`` is the largest tested ε with p < 0.05 before the curve first reaches
    p >= 0.05 at ``first_accepted`` (p-value ``p_first_accepted``); None when every tested ε up to
    ``grid_max`` is rejected. ``last_rejected`` is the largest rejected ε when the curve is not
    monotone."""

    figure: str
    claimed: float
    rejects_through: float | None
    first_accepted: float | None
    p_first_accepted: float | None
    grid_max: float = 2.0
    last_rejected: float | None = None
    note: str = ""


Row = tuple[float | None, float | None, float | None]


def _curves(
    name: str, figure: str, rows: tuple[Row, Row, Row], grid_max: float = 2.0
) -> tuple[str, tuple[StatDPTransition, ...]]:
    """The three curves (ε0 = 0.2, 0.7, 1.5) of one figure, each row (rejects_through,
    first_accepted, p_first_accepted)."""
    out = [
        StatDPTransition(figure, claim, through, first, p, grid_max)
        for claim, (through, first, p) in zip(STATDP_CLAIMS, rows, strict=True)
    ]
    return name, tuple(out)


_ALL: Row = (2.0, None, None)

STATDP: dict[str, tuple[StatDPTransition, ...]] = dict(
    [
        _curves(
            "ReportNoisyMax1",
            "Noisy Max (a)",
            ((0.1, 0.2, 0.664), (0.6, 0.7, 0.995), (1.4, 1.5, 0.951)),
        ),
        _curves(
            "ReportNoisyMax2",
            "Noisy Max (b)",
            ((0.1, 0.2, 0.259), (0.6, 0.7, 0.417), (1.4, 1.5, 0.255)),
        ),
        _curves("ReportNoisyMax3", "Noisy Max (c)", ((0.4, 0.5, 0.407), (1.7, 1.8, 0.956), _ALL)),
        _curves("ReportNoisyMax4", "Noisy Max (d)", ((1.2, 1.3, 0.268), _ALL, _ALL)),
        _curves(
            "NoisyHist1",
            "Correct Histogram",
            ((0.1, 0.2, 0.298), (0.6, 0.7, 0.225), (1.4, 1.5, 0.851)),
        ),
        _curves("NoisyHist2", "Incorrect Histogram", (_ALL, (1.4, 1.5, 0.977), (0.6, 0.7, 0.980))),
        _curves(
            "SparseVectorTechnique1",
            "SVT",
            ((0.1, 0.2, 1.000), (0.6, 0.7, 1.000), (1.2, 1.3, 0.380)),
        ),
        _curves("SparseVectorTechnique5", "iSVT1", (_ALL, _ALL, _ALL)),
        _curves(
            "SparseVectorTechnique6",
            "iSVT2",
            ((0.6, 0.7, 0.929), (2.0, 2.1, 0.136), (2.9, None, None)),
            grid_max=2.9,
        ),
        _curves(
            "SparseVectorTechnique4",
            "iSVT3",
            ((0.3, 0.4, 0.987), (1.1, 1.2, 0.822), (2.3, 2.4, 0.552)),
            grid_max=2.9,
        ),
    ]
)
"""StatDP's figures (:data:`SOURCES`), three curves each (ε0 = 0.2, 0.7, 1.5). StatDP's own
outputs differ from this package's: its histograms release the first bin only and its SVTs a
one-number statistic of the ⊤/⊥ list (the count of ⊥, or the Hamming distance to a fixed list).
StatDP's SVT curve at ε0 = 1.5 also has p(1.4) = 0.999."""

NOTE_ISVT4 = (
    "grid 0.1-2.15 in steps of 0.05; not monotone; rejects_through is the grid point before "
    "first_accepted"
)
STATDP["SparseVectorTechnique3"] = tuple(
    StatDPTransition("iSVT4", claim, through, first, p, 2.15, last, NOTE_ISVT4)
    for claim, (through, first, p, last) in zip(
        STATDP_CLAIMS,
        ((0.45, 0.5, 0.194, 0.85), (1.15, 1.2, 0.298, 1.3), (1.55, 1.6, 0.056, 1.75)),
        strict=True,
    )
)

__all__ = [
    "DPSNIPER",
    "DPSNIPER_EPSILON",
    "DPSNIPER_FLOATING_POINT",
    "SOURCES",
    "STATDP",
    "STATDP_CLAIMS",
    "SniperResult",
    "StatDPTransition",
]
