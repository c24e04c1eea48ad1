"""tzamos20 PRIVATEMEDIAN (Algorithm 1) as a Mechanism: its modes, its samplers tied to the
exact law (Algorithms 2 and 7, Lemmas E.1 and E.9), its float-safe output, the median index,
the two constructions of Ψ, and bad input.

Statistical checks: ``check_sampler`` (DKW band, false alarm <= 1e-7 each); 20 such checks here,
so a correct implementation fails this module with probability < 2e-6 and, seeded, never in CI.
"""

from __future__ import annotations

import math
import pickle
from fractions import Fraction as F

import numpy as np
import pytest

from dpquant.reference.conformance import check_sampler
from dpquant.reference.core import Mechanism
from dpquant.reference.private_median.extended_density import envelope
from dpquant.reference.private_median.fixed_typical_set import (
    fixed_cap,
    fixed_restricted_pieces,
    in_fixed_typical_set,
)
from dpquant.reference.private_median.mechanism import (
    GRID_BITS,
    PrivateMedian,
    output_grid,
    snap_to_grid,
)
from dpquant.reference.private_median.parameters import MedianParameters
from dpquant.reference.private_median.restricted_density import (
    restricted_law,
    restricted_pieces,
    sample_restricted,
)
from dpquant.reference.private_median.typical_set import in_typical_set

FIX = dict(L=F(1, 2), r=F(1), R=F(5), C=F(1))  # the regression fixtures': B = 9, Ξ = [−11/2, 11/2]
FIXTURE_1 = [-5, -5, -5, 0, 0, 0, 5, 5]  # in H, A(X) ≠ Â(X)
FIXTURE_2 = [F(-1, 4), F(-1, 8), 0, 0, F(1, 8), F(1, 4), F(3, 8), F(1, 2)]  # in H and H_fix
FIXTURE_3 = [1000] * 8  # far from H
FIXTURE_4 = [-3, -1, 0, 2, 4, 6]  # outside H (κ = 1 window)
DRAWS = 200_000


def params_for(x, **kw) -> MedianParameters:
    return MedianParameters(len(x), **{**FIX, **kw})


# --------------------------------------------------------------------------------- the modes


def test_mechanism_protocol_claim_domain_and_pickling() -> None:
    mech = PrivateMedian(epsilon=1, **FIX)
    assert isinstance(mech, Mechanism)
    assert (mech.claim.epsilon, mech.claim.delta, mech.claim.adjacency) == (1.0, 0.0, "replace_one")
    assert mech.domain == (-math.inf, math.inf)
    clone = pickle.loads(pickle.dumps(mech))
    assert clone == mech and clone.name == mech.name
    a = mech.sample(FIXTURE_4, 20, np.random.default_rng(1))
    assert np.array_equal(a, clone.sample(FIXTURE_4, 20, np.random.default_rng(1)))


@pytest.mark.parametrize("x", [FIXTURE_1, FIXTURE_2, FIXTURE_3, FIXTURE_4])
def test_case_a_is_taken_exactly_on_the_modes_typical_set(x) -> None:
    """Algorithm 1's branch: never for "extension", X ∈ H for "paper", X ∈ H_fix for "fixed";
    Case (A) returns the restricted tent at m(X) (with the variant's cap d_M for "fixed")."""
    p = params_for(x)
    ext, paper, fixed = (
        PrivateMedian(epsilon=1, mode=m, **FIX) for m in ("extension", "paper", "fixed")
    )
    assert not ext.restricted(x)
    assert paper.restricted(x) == in_typical_set(x, p)
    assert fixed.restricted(x) == in_fixed_typical_set(x, p)
    assert ext.pieces(x) == envelope(x, p)
    m = sorted(F(v) for v in x)[p.ell - 1]
    if paper.restricted(x):
        assert paper.pieces(x) == restricted_pieces(m, p)
    else:
        assert paper.pieces(x) == ext.pieces(x)
    if fixed.restricted(x):
        assert fixed.pieces(x) == fixed_restricted_pieces(m, p)


def test_paper_mode_differs_from_the_extension_on_fixture_1_and_agrees_on_fixture_2() -> None:
    """On regression fixture 1 (X ∈ H) the printed Case (A) uses Â(X) while the extension's
    Ψ_X(0) = −1; on fixture 2 both are the single tent at 0."""
    paper, ext = PrivateMedian(epsilon=1, mode="paper", **FIX), PrivateMedian(epsilon=1, **FIX)
    assert paper.pieces(FIXTURE_1) != ext.pieces(FIXTURE_1)
    assert paper.pieces(FIXTURE_2) == ext.pieces(FIXTURE_2)


def test_direct_and_fast_constructions_give_the_same_laws_in_every_mode() -> None:
    for mode in ("extension", "paper", "fixed"):
        fast = PrivateMedian(epsilon=1, mode=mode, **FIX)
        direct = PrivateMedian(epsilon=1, mode=mode, construction="direct", **FIX)
        for x in (FIXTURE_1, FIXTURE_2, FIXTURE_3, FIXTURE_4, [0.3, -2.1, 4.4, 4.4, 0.3]):
            assert fast.pieces(x) == direct.pieces(x)


def test_median_index_floor_is_the_printed_left_median_for_odd_n() -> None:
    """Def. A.2 as printed (ℓ = ⌊n/2⌋) vs the default ⌈n/2⌉ (erratum E2): on X = (−2, 0, 2)
    with C = 1 (K = 0, H = {m ∈ Ξ}) the paper mode's restricted tent sits at −2 or at 0."""
    x = [-2, 0, 2]
    ceil = PrivateMedian(epsilon=1, mode="paper", **FIX)
    floor = PrivateMedian(epsilon=1, mode="paper", median_index="floor", **FIX)
    assert ceil.pieces(x) == restricted_pieces(0, params_for(x))
    assert floor.pieces(x) == restricted_pieces(-2, params_for(x, median_index="floor"))
    even = [-2, 0, 2, 4]
    assert ceil.pieces(even) == floor.pieces(even)


# ------------------------------------------------------------------- samplers vs exact laws


@pytest.mark.parametrize("mode", ["extension", "paper", "fixed"])
@pytest.mark.parametrize("x", [FIXTURE_1, FIXTURE_2, FIXTURE_4])
def test_sampler_conforms_to_the_exact_law(mode, x) -> None:
    """Algorithm 7 (m-ary coin on the exact piece masses, stable truncated-exponential inverse)
    and, in Case (A), Algorithm 2 (3-ary coin, uniform sides, truncated Laplace centre): DKW
    against the exact law (released on the grid Λ ≈ 4e-9, far below the DKW band)."""
    mech = PrivateMedian(epsilon=1, mode=mode, **FIX)
    draws = mech.sample(x, DRAWS, np.random.default_rng(20261124))
    check_sampler(mech.exact(x), draws).assert_ok()


def test_sampler_conforms_at_larger_n_and_small_epsilon() -> None:
    """n = 301 uniform data, ε = 1/4, C = 5/4 (the study's setting): Algorithm 7 on the fast Ψ."""
    x = np.random.default_rng(5).uniform(-1.25, 1.25, 301)
    mech = PrivateMedian(F(2, 5), 1, 1, F(5, 4), F(1, 4))
    draws = mech.sample(x, DRAWS, np.random.default_rng(6))
    check_sampler(mech.exact(x), draws).assert_ok()


@pytest.mark.parametrize("median", [F(0), F(-11, 2), F(9, 4)])
def test_algorithm_2_conforms_and_the_printed_inverse_does_not(median) -> None:
    """Algorithm 2 with the corrected (stable) TRUNCATEDLAPLACE draws from Eq. (A.2); the printed
    Algorithm 11 (spurious 1/σ in the CDF, erratum E11) does not, even on the centre interval, which
    is symmetric about m."""
    p = MedianParameters(8, **FIX)
    law = restricted_law(median, p, 1)
    good = sample_restricted(median, p, 1, DRAWS, np.random.default_rng(1))
    check_sampler(law, good).assert_ok()
    bad = sample_restricted(median, p, 1, DRAWS, np.random.default_rng(2), variant="paper")
    assert not check_sampler(law, bad).passed


def test_algorithm_2_with_the_variants_cap_conforms() -> None:
    """The fixed variant's Case (A) (cap d_M = 3CM/(Ln), M = min{Lrn, 4K}) with C = 4, n = 40:
    K = 2, M = 8 < Lrn = 20, so the flattening starts at d_M = 24/5 < 3Cr = 12."""
    mech = PrivateMedian(F(1, 2), 1, 5, 4, 1, mode="fixed")
    x = [F(k, 10) for k in range(-20, 20)]
    p = mech.parameters(40)
    assert mech.restricted(x) and fixed_cap(p) == F(24, 5) < 3 * p.C * p.r
    check_sampler(mech.exact(x), mech.sample(x, DRAWS, np.random.default_rng(3))).assert_ok()


# ------------------------------------------------------------------------ float-safe output


def test_output_grid_is_a_power_of_two_2_to_the_32_below_b() -> None:
    for R, C in [(F(5), F(1)), (F(10**6), F(5, 4)), (F(1, 3), F(1, 2)), (F(3), F(1, 4))]:
        p = MedianParameters(10, F(1, 2), F(1), R, C)
        g = output_grid(p)
        e = math.frexp(g)
        assert e[0] == 0.5  # a power of two
        assert F(g) * 2**GRID_BITS >= p.output_bound > F(g) * 2 ** (GRID_BITS - 1)


def test_grid_output_is_the_snapped_continuous_draw() -> None:
    """output="grid" releases Λ·round(Y/Λ) of the very draws output="continuous" releases
    (post-processing), all multiples of Λ within Λ/2 of Y."""
    grid = PrivateMedian(epsilon=1, **FIX)
    cont = PrivateMedian(epsilon=1, output="continuous", **FIX)
    y = cont.sample(FIXTURE_4, 10_000, np.random.default_rng(9))
    z = grid.sample(FIXTURE_4, 10_000, np.random.default_rng(9))
    lam = output_grid(grid.parameters(6))
    assert np.array_equal(z, snap_to_grid(y, lam))
    assert np.all(np.abs(z - y) <= lam / 2) and np.all(np.mod(z, lam) == 0)
    assert not np.all(np.mod(y, lam) == 0)


NEIGHBOURS = ([0.5] * 7 + [0.625] + [2.0] * 8, [0.5] * 8 + [0.625] + [2.0] * 7)


def test_float_output_puts_neighbours_on_different_lattices_of_doubles() -> None:
    """Why the default output is on a grid (Mironov 2012, as in fukuchi19's Laplace report): the
    float sampler computes y from an end of the piece containing y (y = right − s on a rising
    piece), and the pieces differ between neighbours. On (−1/2, 1/2) the rising piece ends at
    5/4 for D (y = 5/4 − s with s >= 3/4: a multiple of 2⁻⁵³) and at 1/2 for D′ (y = 1/2 − s with
    s small: finer bits), so at some power-of-two step one neighbour's float draws are all on the
    lattice and many of the other's are not: the float outputs have different supports, an
    infinite loss. On the grid both supports are the multiples of Λ."""
    cont = PrivateMedian(epsilon=1, output="continuous", **FIX)
    grid = PrivateMedian(epsilon=1, **FIX)
    lam = output_grid(grid.parameters(16))
    mids = {}
    for i, data in enumerate(NEIGHBOURS):
        for name, mech in (("cont", cont), ("grid", grid)):
            y = mech.sample(data, 50_000, np.random.default_rng(4))
            mids[name, i] = y[np.abs(y) < 0.5]
            assert len(mids[name, i]) > 2_000
    for i in (0, 1):
        assert np.all(np.mod(mids["grid", i], lam) == 0)

    def share_off(i: int, step: float) -> float:
        return float(np.mean(np.mod(mids["cont", i], step) != 0))

    separating = [
        k
        for k in range(48, 56)
        if min(share_off(0, 2.0**-k), share_off(1, 2.0**-k)) == 0.0
        and max(share_off(0, 2.0**-k), share_off(1, 2.0**-k)) > 0.2
    ]
    assert separating, "the continuous outputs of the neighbours share every low-bit lattice"


# ------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (dict(L=0), "L"),
        (dict(L=-1), "L"),
        (dict(r=0), "r"),
        (dict(R=-5), "R"),
        (dict(C=0), "C"),
        (dict(C=float("nan")), "C"),
        (dict(L=1, r=1), "L·r must be at most 1/2"),
        (dict(R=float("inf")), "R"),
        (dict(epsilon=0), "epsilon"),
        (dict(epsilon=-1), "epsilon"),
        (dict(epsilon=float("nan")), "epsilon"),
        (dict(mode="restricted"), "mode"),
        (dict(median_index="middle"), "median_index"),
        (dict(cap_rule="paper"), "cap_rule"),
        (dict(construction="slow"), "construction"),
        (dict(output="float"), "output"),
    ],
)
def test_bad_parameters_raise_value_error_naming_the_parameter(kwargs, match) -> None:
    args = {**FIX, "epsilon": 1, **kwargs}
    with pytest.raises(ValueError, match=match):
        PrivateMedian(**args)


@pytest.mark.parametrize(
    ("data", "match"),
    [
        ([], "non-empty"),
        ([0.0, float("nan"), 1.0], "finite"),
        ([0.0, float("inf")], "finite"),
        ("0.5", "string"),
        ([True, False], "numbers"),
        ([[0.0, None]], "numbers"),
    ],
)
@pytest.mark.parametrize("mode", ["extension", "paper", "fixed"])
def test_bad_data_raise_value_error(data, match, mode) -> None:
    mech = PrivateMedian(epsilon=1, mode=mode, **FIX)
    for call in (lambda: mech.exact(data), lambda: mech.sample(data, 3, np.random.default_rng(0))):
        with pytest.raises(ValueError, match=match):
            call()


def test_c_too_small_for_n_raises_where_h_is_empty_and_the_fixed_variant_still_works() -> None:
    """C <= Lr/2: K + 1 > n and H is empty, so the extension over H is undefined (ValueError);
    H_fix drops the windows that do not exist and stays usable."""
    ext = PrivateMedian(F(1, 2), 1, 5, F(1, 4), 1)
    for mode in ("extension", "paper"):
        mech = PrivateMedian(F(1, 2), 1, 5, F(1, 4), 1, mode=mode)
        with pytest.raises(ValueError, match=r"C must be greater than L·r/2"):
            mech.sample([0.0] * 4, 2, np.random.default_rng(0))
    assert ext.parameters(4).windows == 4
    fixed = PrivateMedian(F(1, 2), 1, 5, F(1, 4), 1, mode="fixed")
    check_sampler(fixed.exact([0] * 4), fixed.sample([0] * 4, 50_000, np.random.default_rng(1)))


def test_bad_size_and_rng_raise_value_error() -> None:
    mech = PrivateMedian(epsilon=1, **FIX)
    with pytest.raises(ValueError, match="size"):
        mech.sample(FIXTURE_4, -1, np.random.default_rng(0))
    with pytest.raises(ValueError, match="rng"):
        mech.sample(FIXTURE_4, 3, 42)


# ----------------------------------------------------- the exact law's fast path (issue 39)


def law_signature(law) -> tuple:
    """Everything a law is made of: the floats and every piece's exact (lo, hi, slope, b)."""
    exact = tuple(law.exact_parameters(i) for i in range(len(law)))
    return tuple(law.breaks), tuple(law.slopes), tuple(law.intercepts), exact


def small_data_sets(seed: int, count: int) -> list[list[F]]:
    """n = 1..6 on a k/8 grid (ties), at the ends of Ξ (±11/2) and of [−B, B] (±9), and far."""
    rng = np.random.default_rng(seed)
    pool = [F(k, 8) for k in range(-16, 17)] + [F(-11, 2), F(11, 2), F(-9), F(9), F(-1000)]
    return [
        [pool[int(i)] for i in rng.integers(len(pool), size=int(rng.integers(1, 7)))]
        for _ in range(count)
    ]


@pytest.mark.parametrize("mode", ["extension", "paper", "fixed"])
def test_exact_law_equals_the_law_of_the_direct_construction_on_many_small_data_sets(mode) -> None:
    """The fast path of ``exact`` (integer sweep, memoised constants and laws) gives the same
    law — the same floats and the same exact pieces — as the direct Fraction construction, for
    three ε (one a float read exactly)."""
    for epsilon in (1, F(1, 3), 0.7):
        fast = PrivateMedian(epsilon=epsilon, mode=mode, **FIX)
        direct = PrivateMedian(epsilon=epsilon, mode=mode, construction="direct", **FIX)
        for x in small_data_sets(39, 40):
            assert law_signature(fast.exact(x)) == law_signature(direct.exact(x)), x


def test_the_law_is_memoised_on_psi_and_epsilon_only() -> None:
    """Two data sets in H_fix with the same median have the same Ψ (Case (A): the tent at m),
    hence the one memoised law; another ε is another law; clearing the caches rebuilds an
    equal law."""
    from dpquant.reference.private_median.mechanism import clear_envelope_cache

    mech = PrivateMedian(epsilon=1, mode="fixed", **FIX)
    a, b = [0, 0, 0, 0], [F(-1, 8), 0, 0, F(1, 8)]
    assert mech.restricted(a) and mech.restricted(b) and mech.pieces(a) == mech.pieces(b)
    assert mech.exact(a) is mech.exact(b)
    other = PrivateMedian(epsilon=F(1, 2), mode="fixed", **FIX).exact(a)
    assert law_signature(other) != law_signature(mech.exact(a))
    before = mech.exact(FIXTURE_4)
    clear_envelope_cache()
    after = mech.exact(FIXTURE_4)
    assert after is not before and law_signature(after) == law_signature(before)


def test_parameters_are_memoised_per_size_and_still_checked() -> None:
    mech = PrivateMedian(epsilon=1, **FIX)
    assert mech.parameters(6) is mech.parameters(6) == params_for(FIXTURE_4)
    assert (mech.parameters(6).windows, mech.parameters(6).delta) == (1, F(1, 3))
    for bad in (0, -3, 2.5, "6", None):
        with pytest.raises(ValueError, match="n"):
            mech.parameters(bad)


def test_parameters_pickle_as_their_fields_without_cached_values() -> None:
    """The derived constants and the hash are cached per instance; a pickled copy carries the
    fields only (a str's hash differs between processes) and equals the original."""
    p = params_for(FIXTURE_4, median_index="floor")
    assert (hash(p), p.delta, p.windows) == (
        hash(params_for(FIXTURE_4, median_index="floor")),
        F(1, 3),
        1,
    )
    clone = pickle.loads(pickle.dumps(p))
    assert set(vars(clone)) == {"n", "L", "r", "R", "C", "median_index"}  # nothing cached came
    assert clone == p and hash(clone) == hash(p)


def test_the_envelope_cache_holds_an_audits_data_sets_and_gives_equal_laws() -> None:
    """Issue 39: the envelopes of many more data sets than the old 256 stay memoised (an audit of
    the registry's constants visits about 8,700), so a second pass over 600 distinct data sets
    finds every envelope, and the laws built from them equal the first pass's."""
    from dpquant.reference.private_median import mechanism as module

    assert module.ENVELOPE_CACHE_SIZE >= 8_192
    mech = PrivateMedian(epsilon=1, **FIX)
    data = list(
        {tuple(sorted(x)): x for x in small_data_sets(41, 1_200) if not mech.restricted(x)}.values()
    )
    data = data[:600]
    assert len(data) == 600
    module.clear_envelope_cache()
    first = [law_signature(mech.exact(x)) for x in data]
    misses = module._envelope.cache_info().misses
    module._law_of.cache_clear()  # the laws again, from the memoised envelopes
    second = [law_signature(mech.exact(x)) for x in data]
    info = module._envelope.cache_info()
    assert info.misses == misses and info.hits >= len(data), info
    assert second == first
