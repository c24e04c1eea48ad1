"""Contract specimens and fuzz entries of the tzamos20 area (``dpquant.reference.private_median``; see
:mod:`harness`).

Every valid call is tiny (n = 4 values, the regression fixtures' constants L = 1/2, r = 1, R = 5,
C = 1). The checks verify that an accepted hostile call gives a correct result: draws finite and
inside [−B, B] (widened by half a grid step), laws of total mass 1, TYPICALHAMMING a non-negative
integer or +inf, envelopes contiguous exact pieces.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from harness import Entry, Specimen, check_law, check_sane

from dpquant.reference.private_median import (
    MedianParameters,
    Piece,
    PrivateMedian,
    distance_to_typical_set,
    envelope,
    exact_data,
    in_fixed_typical_set,
    in_typical_set,
    law_from_pieces,
    left_median,
    restricted_law,
    restricted_pieces,
    typical_hamming,
)
from dpquant.reference.private_median.extended_density import (
    cell_levels,
    envelope_brute,
    envelope_from_levels,
    exact_epsilon,
    level_extremes,
    log_normalizer,
    piece_log_mass,
)
from dpquant.reference.private_median.fast_envelope import (
    check_typical_set_nonempty,
    fast_cells,
    fast_envelope,
    make_lattice,
    nested_extremes,
    nested_level_bounds,
    sweep_envelope,
    typical_hamming_closed_form,
)
from dpquant.reference.private_median.fixed_typical_set import (
    brute_force_grid,
    fixed_cap,
    fixed_cap_level,
    fixed_envelope,
    fixed_envelope_brute,
    fixed_lemma_a_4_normalizer,
    fixed_normalizer_is_constant,
    fixed_pieces,
    fixed_restricted_pieces,
    fixed_typical_hamming,
    fixed_typical_hamming_brute,
    fixed_window_ranges,
    tight_cap_level,
)
from dpquant.reference.private_median.mechanism import extension_pieces, output_grid, snap_to_grid
from dpquant.reference.private_median.restricted_density import (
    lemma_a_4_normalizer,
    restricted_intervals,
    sample_restricted,
)
from dpquant.reference.private_median.sweep import (
    check_cap,
    common_scale,
    paper_cap,
    scaled_int,
    scaled_sweep,
)
from dpquant.reference.private_median.typical_set import (
    anchor_points,
    typical_hamming_brute,
    typical_hamming_greedy,
    window_counts,
)

HALF = Fraction(1, 2)
CONSTANTS = {"L": HALF, "r": 1, "R": 5, "C": 1}
DATA4 = [-0.5, 0.1, 0.2, 0.9]
P4 = MedianParameters(4, HALF, 1, 5, 1)
CHOICES = {
    "mode": ("paper", "fixed"),
    "median_index": ("floor",),
    "cap_rule": ("tight",),
    "construction": ("direct",),
    "output": ("continuous",),
}

SPECIMENS: list[Specimen] = [
    Specimen(
        f"tzamos20.PrivateMedian[{mode}]",
        PrivateMedian,
        {
            **CONSTANTS,
            "epsilon": 1,
            "mode": mode,
            "median_index": "ceil",
            "cap_rule": "four_k",
            "construction": "fast",
            "output": "grid",
        },
        {
            "L": "real",
            "r": "real",
            "R": "real",
            "C": "real",
            "epsilon": "real",
            "mode": "choice",
            "median_index": "choice",
            "cap_rule": "choice",
            "construction": "choice",
            "output": "choice",
        },
        DATA4,
        extra=CHOICES,
        aliases={"r": ("L·r",), "L": ("L·r",)},
    )
    for mode in ("extension", "paper", "fixed")
]

# -- checks of accepted results -----------------------------------------------------------------


def check_th(x: Any) -> None:
    assert x == math.inf or (isinstance(x, int) and not isinstance(x, bool) and x >= 0), f"{x!r}"


def check_pieces(x: Any) -> None:
    assert x and all(isinstance(p, Piece) and p.lo < p.hi for p in x)
    assert all(a.hi == b.lo for a, b in zip(x, x[1:], strict=False))


def check_cells(x: Any) -> None:
    assert all(a <= b and (k >= 0) for a, b, k in x)


def check_rational(x: Any) -> None:
    assert isinstance(x, Fraction), f"{x!r}"


def check_mp_positive(x: Any) -> None:
    assert isinstance(x, mpmath.mpf) and mpmath.isfinite(x) and x > 0, f"{x!r}"


def check_mp_finite(x: Any) -> None:
    assert isinstance(x, mpmath.mpf) and mpmath.isfinite(x), f"{x!r}"


def check_bool(x: Any) -> None:
    assert isinstance(x, bool)


def check_draws_in(lo: float, hi: float) -> Any:
    def check(x: Any) -> None:
        assert isinstance(x, np.ndarray) and np.isfinite(x).all()
        assert (x >= lo).all() and (x <= hi).all(), f"draws outside [{lo}, {hi}]"

    return check


def _params(n: Any, L: Any, r: Any, R: Any, C: Any, median_index: Any) -> Any:
    p = MedianParameters(n, L, r, R, C, median_index)
    return (p.ell, p.delta, p.windows, p.xi_range, p.output_bound)


def E(name: str, *args: Any, **options: Any) -> Entry:  # noqa: N802 -- a short constructor
    return Entry(f"tzamos20.{name}", *args, **options)


PIECES = envelope(DATA4, P4)
LEVELS = level_extremes(DATA4, P4)
CAP4 = 3 * P4.C * P4.r
SCALE4 = common_scale(P4, CAP4, [v.denominator for _, a, b in nested_extremes(LEVELS) for v in (a, b)])
NESTED4 = [(k, int(lo * SCALE4), int(hi * SCALE4)) for k, lo, hi in nested_extremes(LEVELS)]
XI = {"xi": 0.1}

ENTRIES: list[Entry] = [
    E("MedianParameters", _params,
      {"n": 4, **CONSTANTS, "median_index": "ceil"},
      {"n": "int", "L": "real", "r": "real", "R": "real", "C": "real", "median_index": "choice"},
      check=check_sane, extra={"median_index": ("floor",)},
      aliases={"r": ("L·r",), "L": ("L·r",)}),
    # the typical set
    E("exact_data", exact_data, {"data": DATA4}, {"data": "data"},
      check=lambda x: all(isinstance(v, Fraction) for v in x)),
    E("left_median", left_median, {"sorted_data": DATA4, "params": P4},
      {"sorted_data": "data", "params": "any"}, check=check_rational),
    E("window_counts", window_counts,
      {"sorted_data": DATA4, "xi": 0.1, "kappa": 1, "delta": HALF},
      {"sorted_data": "data", "xi": "real", "kappa": "int", "delta": "real"}, check=check_sane),
    E("in_typical_set", in_typical_set, {"data": DATA4, "params": P4},
      {"data": "data", "params": "any"}, check=check_bool),
    E("typical_hamming", typical_hamming, {"data": DATA4, **XI, "params": P4},
      {"data": "data", "xi": "real", "params": "any"}, check=check_th),
    E("typical_hamming_greedy", typical_hamming_greedy, {"data": DATA4, **XI, "params": P4},
      {"data": "data", "xi": "real", "params": "any"}, check=check_th),
    E("typical_hamming_brute", typical_hamming_brute, {"data": DATA4, **XI, "params": P4},
      {"data": "data", "xi": "real", "params": "any"}, check=check_th),
    E("typical_hamming_closed_form", typical_hamming_closed_form,
      {"data": DATA4, **XI, "params": P4}, {"data": "data", "xi": "real", "params": "any"},
      check=check_th),
    E("anchor_points", anchor_points, {"data": DATA4, "params": P4},
      {"data": "data", "params": "any"}, check=lambda x: all(isinstance(v, Fraction) for v in x)),
    E("distance_to_typical_set", distance_to_typical_set, {"data": DATA4, "params": P4},
      {"data": "data", "params": "any"}, check=check_th),
    # the extended density (direct)
    E("cell_levels", cell_levels, {"data": DATA4, "params": P4},
      {"data": "data", "params": "any"}, check=check_cells),
    E("level_extremes", level_extremes, {"data": DATA4, "params": P4},
      {"data": "data", "params": "any"}, check=check_sane),
    E("envelope", envelope, {"data": DATA4, "params": P4}, {"data": "data", "params": "any"},
      check=check_pieces),
    E("envelope_from_levels", envelope_from_levels, {"levels": LEVELS, "params": P4, "cap": None},
      {"levels": "any", "params": "any", "cap": "real"}, check=check_pieces),
    E("envelope_brute", envelope_brute, {"data": DATA4, "params": P4, "y": 0.3},
      {"data": "data", "params": "any", "y": "real"}, check=check_rational),
    E("Piece", lambda lo, hi, slope, intercept: Piece(lo, hi, slope, intercept)(lo),
      {"lo": 0, "hi": 1, "slope": 2, "intercept": -1},
      {"lo": "real", "hi": "real", "slope": "real", "intercept": "real"}, check=check_rational,
      aliases={"lo": ("hi",), "hi": ("lo",)}),
    E("piece_log_mass", piece_log_mass, {"piece": PIECES[0], "epsilon": 1},
      {"piece": "any", "epsilon": "real"}, check=check_mp_finite),
    E("exact_epsilon", exact_epsilon, {"epsilon": 1}, {"epsilon": "real"}, check=check_rational),
    E("law_from_pieces", law_from_pieces, {"pieces": PIECES, "epsilon": 1},
      {"pieces": "any", "epsilon": "real"}, check=check_law),
    E("log_normalizer", log_normalizer, {"pieces": PIECES, "epsilon": 1},
      {"pieces": "any", "epsilon": "real"}, check=check_mp_finite),
    # the restricted density
    E("restricted_pieces", restricted_pieces, {"median": 0.1, "params": P4},
      {"median": "real", "params": "any"}, check=check_pieces),
    E("restricted_law", restricted_law, {"median": 0.1, "params": P4, "epsilon": 1},
      {"median": "real", "params": "any", "epsilon": "real"}, check=check_law),
    E("lemma_a_4_normalizer", lemma_a_4_normalizer, {"params": P4, "epsilon": 1},
      {"params": "any", "epsilon": "real"}, check=check_mp_positive),
    E("restricted_intervals", restricted_intervals, {"median": 0.1, "params": P4, "cap": None},
      {"median": "real", "params": "any", "cap": "real"}, check=check_sane),
    E("sample_restricted", sample_restricted,
      {"median": 0.1, "params": P4, "epsilon": 1, "size": 4, "rng": np.random.default_rng(0)},
      {"median": "real", "params": "any", "epsilon": "real", "size": "size", "rng": "rng"},
      check=check_draws_in(-9.0, 9.0)),
    # the fast construction
    E("check_typical_set_nonempty", check_typical_set_nonempty, {"params": P4},
      {"params": "any"}, check=lambda x: x is None),
    E("make_lattice", lambda bases, params: make_lattice(bases, params).m,
      {"bases": [-1, 0, HALF], "params": P4}, {"bases": "data", "params": "any"},
      check=lambda m: isinstance(m, int) and m >= 1),
    E("fast_cells", fast_cells, {"data": DATA4, "params": P4, "typical_set": "paper"},
      {"data": "data", "params": "any", "typical_set": "choice"}, check=check_cells,
      extra={"typical_set": ("fixed",)}),
    E("nested_level_bounds", nested_level_bounds,
      {"data": DATA4, "params": P4, "typical_set": "paper"},
      {"data": "data", "params": "any", "typical_set": "choice"}, check=check_sane),
    E("nested_extremes", nested_extremes, {"levels": LEVELS}, {"levels": "any"},
      check=check_sane),
    E("sweep_envelope", sweep_envelope,
      {"nested": nested_extremes(LEVELS), "params": P4, "cap": None},
      {"nested": "any", "params": "any", "cap": "real"}, check=check_pieces),
    E("check_cap", check_cap, {"cap": 1}, {"cap": "real"}, check=check_sane),
    E("paper_cap", paper_cap, {"params": P4}, {"params": "any"}, check=check_sane),
    E("scaled_int", scaled_int, {"value": Fraction(3, 4), "scale": 8},
      {"value": "any", "scale": "int"}, check=lambda v: isinstance(v, int)),
    E("common_scale", common_scale, {"params": P4, "cap": CAP4, "denominators": [1, 3]},
      {"params": "any", "cap": "real", "denominators": "any"},
      check=lambda d: isinstance(d, int) and d > 0 and d % 2 == 0),
    E("scaled_sweep", scaled_sweep,
      {"nested": NESTED4, "scale": SCALE4, "params": P4, "cap": CAP4},
      {"nested": "any", "scale": "int", "params": "any", "cap": "real"}, check=check_pieces,
      aliases={"cap": ("scale",), "params": ("scale",)}),
    E("fast_envelope", fast_envelope, {"data": DATA4, "params": P4, "typical_set": "paper"},
      {"data": "data", "params": "any", "typical_set": "choice"}, check=check_pieces,
      extra={"typical_set": ("fixed",)}),
    # the fixed typical set
    E("fixed_window_ranges", fixed_window_ranges, {"params": P4}, {"params": "any"},
      check=check_sane),
    E("in_fixed_typical_set", in_fixed_typical_set, {"data": DATA4, "params": P4},
      {"data": "data", "params": "any"}, check=check_bool),
    E("fixed_typical_hamming", fixed_typical_hamming, {"data": DATA4, **XI, "params": P4},
      {"data": "data", "xi": "real", "params": "any"}, check=check_th),
    E("brute_force_grid", brute_force_grid, {"data": DATA4, **XI, "params": P4},
      {"data": "data", "xi": "real", "params": "any"},
      check=lambda x: all(isinstance(v, Fraction) for v in x)),
    E("fixed_typical_hamming_brute", fixed_typical_hamming_brute,
      {"data": DATA4, **XI, "params": P4, "grid": None},
      {"data": "data", "xi": "real", "params": "any", "grid": "data"}, check=check_th),
    E("tight_cap_level", tight_cap_level, {"params": P4}, {"params": "any"},
      check=check_rational),
    E("fixed_cap_level", fixed_cap_level, {"params": P4, "rule": "four_k"},
      {"params": "any", "rule": "choice"}, check=check_rational, extra={"rule": ("tight",)}),
    E("fixed_cap", fixed_cap, {"params": P4, "rule": "four_k"},
      {"params": "any", "rule": "choice"}, check=check_rational),
    E("fixed_envelope", fixed_envelope,
      {"data": DATA4, "params": P4, "rule": "four_k", "cap_level": None},
      {"data": "data", "params": "any", "rule": "choice", "cap_level": "real"},
      check=check_pieces),
    E("fixed_envelope_brute", fixed_envelope_brute,
      {"data": DATA4, "params": P4, "y": 0.3, "rule": "four_k", "cap_level": None},
      {"data": "data", "params": "any", "y": "real", "rule": "choice", "cap_level": "real"},
      check=check_rational),
    E("fixed_restricted_pieces", fixed_restricted_pieces,
      {"median": 0.1, "params": P4, "rule": "four_k", "cap_level": None},
      {"median": "real", "params": "any", "rule": "choice", "cap_level": "real"},
      check=check_pieces),
    E("fixed_normalizer_is_constant", fixed_normalizer_is_constant,
      {"params": P4, "rule": "four_k", "cap_level": None},
      {"params": "any", "rule": "choice", "cap_level": "real"}, check=check_bool),
    E("fixed_lemma_a_4_normalizer", fixed_lemma_a_4_normalizer,
      {"params": P4, "epsilon": 1, "rule": "four_k", "cap_level": None},
      {"params": "any", "epsilon": "real", "rule": "choice", "cap_level": "real"},
      check=check_mp_positive),
    E("fixed_pieces", fixed_pieces,
      {"data": DATA4, "params": P4, "rule": "four_k", "cap_level": None},
      {"data": "data", "params": "any", "rule": "choice", "cap_level": "real"},
      check=check_pieces),
    # the mechanism's helpers
    E("output_grid", output_grid, {"params": P4}, {"params": "any"},
      check=lambda x: isinstance(x, float) and x > 0),
    E("snap_to_grid", snap_to_grid, {"values": [0.1, -2.5], "spacing": 2.0**-20},
      {"values": "any", "spacing": "real"}, check=lambda x: np.isfinite(x).all()),
    E("extension_pieces", extension_pieces,
      {"data": DATA4, "params": P4, "typical_set": "paper", "cap_rule": "four_k",
       "construction": "fast"},
      {"data": "data", "params": "any", "typical_set": "choice", "cap_rule": "choice",
       "construction": "choice"},
      check=check_pieces,
      extra={"typical_set": ("fixed",), "cap_rule": ("tight",), "construction": ("direct",)}),
    E("PrivateMedian.pieces",
      lambda data: PrivateMedian(HALF, 1, 5, 1, 1).pieces(data), {"data": DATA4},
      {"data": "data"}, check=check_pieces),
    E("PrivateMedian.restricted",
      lambda data: PrivateMedian(HALF, 1, 5, 1, 1, mode="fixed").restricted(data),
      {"data": DATA4}, {"data": "data"}, check=check_bool),
]
