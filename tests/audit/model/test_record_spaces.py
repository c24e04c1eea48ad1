"""Data sets of records of any type (dpquant/audit/model/record_spaces.py, issue 20): vectors in a box, bit
vectors and elements of a finite set, under add/remove and replace-one, searched by the auditor."""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from decimal import Decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpquant.audit import audit_mechanism, from_callable
from dpquant.audit.model.record_spaces import (
    MAX_CANDIDATES,
    MAX_PROBES,
    BitVectors,
    Box,
    FiniteSet,
    Records,
)
from dpquant.audit.model.relations import QueryAnswers
from dpquant.audit.model.wrap import CallableMechanism
from dpquant.reference.core import Adjacency, PrivacyClaim
from dpquant.reference.distributions import DiscreteLaw

EPS = 0.5
REPLACE = PrivacyClaim(EPS, 0.0, "replace_one")
ADD_REMOVE = PrivacyClaim(EPS, 0.0, "add_remove")
ANYWHERE = (-math.inf, math.inf)
# the audits of correct mechanisms: a correct one is flagged with probability at most α = 1e-6
# whatever the number of draws, so 20 000 per finalist (a fifth of the default's draws in all);
# the flawed ones keep the default budget, whose power they need
CORRECT_SAMPLES = 20_000


# -- the spaces and the relation refuse bad parameters ----------------------------------------------


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: Box(0), "dim must"),
        (lambda: Box(True), "dim must"),
        (lambda: Box(10**6), "dim must"),
        (lambda: Box(2.0), "dim must"),
        (lambda: Box(2, math.nan, 1.0), "low must be finite"),
        (lambda: Box(2, 0.0, math.inf), "high must be finite"),
        (lambda: Box(2, 1.0, 0.0), "low must be below high"),
        (lambda: Box(2, [0.0, 1.0], [1.0, 1.0]), r"low\[1\] = 1.0 >= high\[1\]"),
        (lambda: Box(3, [0.0, 1.0], 2.0), "low must be a number or 3 numbers"),
        (lambda: Box(2, "0", 1.0), "low must be a finite number"),
        (lambda: Box(2, -1e308, 1e308), "high - low must fit"),
        (lambda: BitVectors(0), "dim must"),
        (lambda: BitVectors(False), "dim must"),
        (lambda: BitVectors(10**6), "dim must"),
        (lambda: FiniteSet([]), "elements must hold at least one"),
        (lambda: FiniteSet([[0, 1], [0, 1, 2]]), "elements must be .* same length"),
        (lambda: FiniteSet([0, [0, 1]]), "elements must be .* same length"),
        (lambda: FiniteSet([0.0, math.nan]), "elements must be finite"),
        (lambda: FiniteSet([[0, math.inf]]), "elements must be finite"),
        (lambda: FiniteSet([True, False]), "elements must be finite real numbers, got booleans"),
        (lambda: FiniteSet("abc"), "elements must be an iterable"),
        (lambda: FiniteSet(range(2_000)), "elements must hold at most 1000"),
        (lambda: FiniteSet([[], []]), "elements must be .* each of 1 to"),
        (lambda: Records(Box(2), "local"), "adjacency must"),
        (lambda: Records(Box(2), "custom"), "adjacency must"),
        (lambda: Records(Box(2), "query_answers"), "adjacency must"),
        (lambda: Records((0.0, 1.0)), "space must be a dpquant.audit.model.record_spaces.Box"),
        (lambda: Records(FiniteSet([[1, 2]]), "replace_one"), "space must hold at least two"),
    ],
)
def test_bad_parameters_are_refused_naming_the_parameter(make, match) -> None:
    with pytest.raises(ValueError, match=match):
        make()


def test_a_finite_set_keeps_distinct_elements_in_order() -> None:
    s = FiniteSet([[1, 2], [0, 0], [1, 2], [-0.0, 0.0]])
    assert s.elements == ((1.0, 2.0), (0.0, 0.0)) and s.dim == 2
    assert FiniteSet([3, 1]).dim == 1
    assert Records(FiniteSet([[1, 2]]), "add_remove").candidates(ANYWHERE)  # one element: add it


def test_names_describe_the_space() -> None:
    assert Records(Box(3)).name == "records in [0, 1]^3 (replace one)"
    assert Records(Box(2, [0, -1], [1, 2]), "add_remove").name == (
        "records in [0, 1] × [-1, 2] (add or remove one)"
    )
    assert Records(BitVectors(4), "add_remove").name == "records in {0, 1}^4 (add or remove one)"
    assert Records(FiniteSet([0, 1, 5])).name == "records in {0, 1, 5} (replace one)"
    assert "a set of 3 vectors of length 2" in Records(FiniteSet([[0, 0], [1, 0], [0, 1]])).name


def test_probes_are_the_distinctive_records() -> None:
    box = Box(3, 0.0, 2.0).probes()
    assert box.shape == (7, 3)  # all-low, all-high, centre, half-high, three one-hot
    assert [0, 0, 0] in box.tolist() and [2, 2, 2] in box.tolist() and [1, 1, 1] in box.tolist()
    assert [2, 0, 0] in box.tolist() and [0, 0, 2] in box.tolist()
    bits = BitVectors(4).probes().tolist()
    assert bits[:3] == [[0, 0, 0, 0], [1, 1, 1, 1], [1, 0, 1, 0]] and [0, 0, 0, 1] in bits
    assert len(Box(50).probes()) == len(BitVectors(50).probes()) == MAX_PROBES
    big = FiniteSet(range(100)).probes().ravel().tolist()
    assert len(big) == MAX_PROBES and big[:2] == [0, 99]  # smallest and largest first


# -- the search gives neighbouring pairs in the space ----------------------------------------------

SPACES = st.one_of(
    st.builds(
        Box,
        dim=st.integers(1, 12),
        low=st.floats(-10, 0),
        high=st.floats(0.5, 10),
    ),
    st.builds(BitVectors, dim=st.integers(1, 12)),
    st.integers(1, 4)
    .flatmap(
        lambda dim: st.lists(
            st.lists(st.floats(-5, 5), min_size=dim, max_size=dim), min_size=1, max_size=30
        )
    )
    .map(FiniteSet),
)


def _multiset(d: np.ndarray) -> Counter:
    return Counter(tuple(r) for r in d.tolist())


@settings(max_examples=60, deadline=None)
@given(space=SPACES, adjacency=st.sampled_from(["add_remove", "replace_one"]))
def test_every_candidate_is_a_neighbouring_pair_in_the_space(space, adjacency) -> None:
    if adjacency == "replace_one" and len(space.probes()) < 2:
        return  # a set of one distinct element: refused for replace-one (tested above)
    rel = Records(space, adjacency)
    pairs = rel.candidates(ANYWHERE)
    assert 0 < len(pairs) <= MAX_CANDIDATES
    keys = set()
    for d0, d1 in pairs:
        assert d0.ndim == d1.ndim == 2 and d0.shape[1] == d1.shape[1] == space.dim
        for d in (d0, d1):
            assert space.contains(d).all() if len(d) else True
        a, b = _multiset(d0), _multiset(d1)
        if adjacency == "add_remove":
            assert len(d1) == len(d0) + 1 and not a - b
        else:
            assert len(d0) == len(d1) >= 1 and sum((a - b).values()) == 1
        assert rel.check_pair(d0, d1, "pair", ANYWHERE)[1].shape == d1.shape
        keys.add((tuple(sorted(a.items())), tuple(sorted(b.items()))))
    assert len(keys) == len(pairs)  # each pair listed once
    again = rel.candidates(ANYWHERE)  # deterministic
    assert len(again) == len(pairs)
    assert all(
        np.array_equal(x, y)
        for p, q in zip(again, pairs, strict=True)
        for x, y in zip(p, q, strict=True)
    )


def test_the_search_covers_single_records_and_larger_data_sets() -> None:
    pairs = Records(Box(3)).candidates(ANYWHERE)
    assert {len(a) for a, _ in pairs} == {1, 2, 3, 5}
    assert sum(len(a) == 1 for a, _ in pairs) == 21  # every pair of the 7 probe records
    pairs = Records(BitVectors(4), "add_remove").candidates(ANYWHERE)
    assert {(len(a), len(b)) for a, b in pairs} == {(0, 1), (1, 2), (2, 3), (4, 5)}


def test_probes_outside_the_domain_are_left_out() -> None:
    pairs = Records(Box(2, -1.0, 1.0)).candidates((0.0, 1.0))
    assert pairs and all(min(a.min(), b.min()) >= 0 for a, b in pairs)
    assert Records(Box(2, -1.0, 1.0)).candidates((5.0, 6.0)) == []


# -- check_pair: shapes, the space and the relation -------------------------------------------------


def test_reordered_records_are_still_neighbours() -> None:
    rel = Records(Box(2))
    a, b = rel.check_pair([[0, 0], [1, 1], [0, 1]], [[1, 1], [0, 1], [1, 0]], "pairs[0]", ANYWHERE)
    assert a.tolist() == [[0, 0], [1, 1], [0, 1]] and b[0].tolist() == [1, 1]  # order kept
    add = Records(Box(2), "add_remove")
    add.check_pair([[0, 1], [1, 1]], [[1, 1], [0.5, 0.5], [0, 1]], "pairs[0]", ANYWHERE)
    add.check_pair([], [[0.5, 0.5]], "pairs[0]", ANYWHERE)  # the empty data set


def test_scalar_records_may_be_written_flat() -> None:
    a, b = Records(FiniteSet([0, 1, 5])).check_pair([0, 1], [5, 1], "pairs[0]", ANYWHERE)
    assert a.shape == b.shape == (2, 1)
    a, b = Records(Box(1), "add_remove").check_pair(0.5, [0.5, 1.0], "pairs[0]", ANYWHERE)
    assert a.shape == (1, 1) and b.shape == (2, 1)


@pytest.mark.parametrize(
    "rel, d0, d1, match",
    [
        (Records(Box(2)), [[0, 0]], [[1, 1], [0, 0]], r"pairs\[0\] must be neighbours"),
        (Records(Box(2)), [[0, 0], [1, 1]], [[1, 0], [0, 1]], "2 of d0 not in d1"),
        (Records(Box(2)), [[0, 0], [1, 1]], [[1, 1], [0, 0]], "different data sets"),
        (Records(Box(2), "add_remove"), [[0, 0]], [[1, 1]], "must be neighbours"),
        (Records(Box(2), "add_remove"), [], [[1, 1], [0, 0]], "must be neighbours"),
        (Records(Box(2)), [[0, 0]], [[2, 0]], r"pairs\[0\]\[1\] must hold records in \[0, 1\]"),
        (Records(BitVectors(3)), [[0, 0, 1]], [[0, 0.5, 1]], r"records in \{0, 1\}\^3"),
        (Records(FiniteSet([[0, 0], [1, 2]])), [[0, 0]], [[2, 1]], "records in a set of 2"),
        (Records(Box(2)), [0, 1], [1, 1], r"shape \(n, 2\)"),
        (Records(Box(2)), [[0, 0, 0]], [[1, 1, 1]], r"\(shape \(n, 2\)\), got shape \(1, 3\)"),
        (Records(Box(2)), [[[0, 0]]], [[[1, 1]]], r"got shape \(1, 1, 2\)"),
        (Records(Box(2)), [[0, math.nan]], [[1, 1]], "finite"),
        (Records(Box(2)), [[0, 0], [1]], [[1, 1], [1]], r"pairs\[0\]\[0\] must be finite real"),
        (Records(Box(2)), "ab", [[1, 1]], "sequence of records"),
        (Records(BitVectors(2)), [[True, False]], [[1, 1]], "got booleans"),
    ],
)
def test_check_pair_refuses_what_is_not_a_neighbouring_pair_in_the_space(
    rel, d0, d1, match
) -> None:
    with pytest.raises(ValueError, match=match):
        rel.check_pair(d0, d1, "pairs[0]", ANYWHERE)


def test_records_outside_the_domain_are_refused() -> None:
    with pytest.raises(ValueError, match="inside the domain"):
        Records(Box(2, -1.0, 1.0)).check_pair([[-1, 0]], [[0, 0]], "pairs[0]", (0.0, 1.0))


# -- claims, relations and mechanisms -------------------------------------------------------------


def vector_sum(scale):
    """The sum of the records (vectors) + Laplace(scale) on each coordinate, vectorised."""

    def release(data, size, rng):
        return data.sum(axis=0) + rng.laplace(scale=scale, size=(size, data.shape[1]))

    return release


def test_a_record_claim_takes_a_relation_of_records_and_no_other() -> None:
    rel = Records(Box(3))
    mech = from_callable(vector_sum(6.0), REPLACE, vectorized=True, relation=rel)
    out = mech.sample([[0, 0, 1], [1, 1, 1]], 4, np.random.default_rng(0))
    assert out.shape == (4, 3)
    with pytest.raises(ValueError, match=r"data must hold records in \[0, 1\]\^3"):
        mech.sample([[0, 0, 2]], 4, np.random.default_rng(0))
    with pytest.raises(
        ValueError, match=r"'replace_one' relation but the claim names 'add_remove'"
    ):
        from_callable(vector_sum(6.0), ADD_REMOVE, vectorized=True, relation=rel)
    with pytest.raises(ValueError, match="relation is for claims naming"):
        from_callable(vector_sum(6.0), REPLACE, vectorized=True, relation=QueryAnswers(3))
    with pytest.raises(ValueError, match="'replace_one' relation but the claim names 'local'"):
        from_callable(vector_sum(6.0), PrivacyClaim(EPS, 0.0, "local"), relation=rel)
    with pytest.raises(ValueError, match="input_values"):
        from_callable(vector_sum(6.0), REPLACE, vectorized=True, relation=rel, input_values=[0])
    with pytest.raises(ValueError, match="'add_remove' relation but the claim names 'replace_one'"):
        audit_mechanism(mech, relation=Records(Box(3), "add_remove"))


def test_a_mechanism_may_not_have_both_input_values_and_a_relation() -> None:
    mech = from_callable(vector_sum(6.0), REPLACE, vectorized=True, relation=Records(Box(3)))
    with pytest.raises(ValueError, match="mech.input_values are values of scalar records"):
        audit_mechanism(dataclasses.replace(mech, input_values=(0.0, 1.0)), seed=0)


def test_vector_pairs_are_understood_under_a_relation_of_records_only() -> None:
    pairs = [([[0, 0, 0], [1, 1, 1]], [[0, 0, 0], [0, 0, 1]])]

    def any_sum(data, size, rng):  # scalar records (the trial of from_callable) or vectors
        return vector_sum(6.0)(data.reshape(len(data), -1), size, rng)

    plain = from_callable(any_sum, REPLACE, (0.0, 1.0), vectorized=True)
    with pytest.raises(ValueError, match="1-D"):
        audit_mechanism(plain, pairs=pairs, seed=0)
    seen = []

    def fn(data, size, rng):
        seen.append(data.tolist())
        return vector_sum(6.0)(data, size, rng)

    mech = from_callable(fn, REPLACE, vectorized=True, relation=Records(Box(3)))
    r = audit_mechanism(mech, pairs=pairs, seed=0, samples=10_000)
    assert not r.violation
    assert [[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]] in seen  # each data set as given, (n, dim)
    with pytest.raises(ValueError, match=r"pairs\[0\] must be neighbours"):
        audit_mechanism(mech, pairs=[([[0, 0, 0]], [[1, 1, 1], [0, 0, 0]])], seed=0)
    # the relation may also be given to the auditor rather than carried by the mechanism
    r = audit_mechanism(plain, pairs=pairs, seed=0, samples=10_000, relation=Records(Box(3)))
    assert not r.violation


def test_a_vector_sum_with_the_l1_scale_passes_and_the_per_coordinate_scale_is_flagged() -> None:
    """Records in [0, 1]^3, replace-one, ε = 0.5: the sum has ℓ1 sensitivity 3, so Laplace(3/ε)
    on each coordinate is ε-DP; Laplace(1/ε) is only 3ε-DP (the pair (1, 1, 0) -> (0, 0, 1)
    shows it through the difference of two coordinates). The auditor's own search."""
    rel = Records(Box(3))
    ok = from_callable(vector_sum(3 / EPS), REPLACE, vectorized=True, relation=rel)
    r = audit_mechanism(ok, seed=0, samples=CORRECT_SAMPLES)
    assert not r.violation and r.epsilon_lower_bound <= EPS, r.summary()
    assert "neighbour relation: records in [0, 1]^3 (replace one)" in " ".join(r.notes)
    bad = from_callable(vector_sum(1 / EPS), REPLACE, vectorized=True, relation=rel)
    r = audit_mechanism(bad, seed=0)
    assert r.violation and EPS < r.epsilon_lower_bound <= 3 * EPS, r.summary()
    assert np.shape(r.witness.data)[1] == 3  # the witness is a data set of vector records


def first_coordinate_sum(scale):
    """The number of records whose first bit is set + Laplace(scale), vectorised."""

    def release(data, size, rng):
        return data[:, 0].sum() + rng.laplace(scale=scale, size=size)

    return release


def test_a_count_of_bit_vectors_under_add_remove() -> None:
    """Records in {0, 1}^4, add/remove, ε = 0.5: the count has sensitivity 1, so Laplace(1/ε) is
    ε-DP and Laplace(0.5/ε) is 2ε-DP."""
    rel = Records(BitVectors(4), "add_remove")
    ok = from_callable(first_coordinate_sum(1 / EPS), ADD_REMOVE, vectorized=True, relation=rel)
    r = audit_mechanism(ok, seed=0, samples=CORRECT_SAMPLES)
    assert not r.violation and r.epsilon_lower_bound <= EPS, r.summary()
    bad = from_callable(first_coordinate_sum(0.5 / EPS), ADD_REMOVE, vectorized=True, relation=rel)
    r = audit_mechanism(bad, seed=0)
    assert r.violation and EPS < r.epsilon_lower_bound <= 2 * EPS, r.summary()
    assert "records in {0, 1}^4 (add or remove one)" in " ".join(r.notes)


def test_a_finite_set_of_vectors_under_replace_one() -> None:
    """Records among five vectors whose first coordinates span [0, 2]: the sum of the first
    coordinates has sensitivity 2 under replace-one; Laplace(2/ε) is ε-DP, Laplace(1/ε) 2ε-DP
    (found on the single records with first coordinates 0 and 2)."""
    rel = Records(FiniteSet([[0, 0], [1, 0], [0, 1], [1, 1], [2, 3]]))
    ok = from_callable(first_coordinate_sum(2 / EPS), REPLACE, vectorized=True, relation=rel)
    r = audit_mechanism(ok, seed=0, samples=CORRECT_SAMPLES)
    assert not r.violation and r.epsilon_lower_bound <= EPS, r.summary()
    bad = from_callable(first_coordinate_sum(1 / EPS), REPLACE, vectorized=True, relation=rel)
    r = audit_mechanism(bad, seed=0)
    assert r.violation and EPS < r.epsilon_lower_bound <= 2 * EPS, r.summary()


@dataclasses.dataclass(frozen=True)
class AnyBitResponse(CallableMechanism):
    """Randomized response on "some record has its first bit set", with its exact law: ε-DP
    under add/remove (one record changes the answer), so the exact loss is ε."""

    def exact(self, data):
        some = bool(np.asarray(data)[:, 0].any())  # log-weights 0 and ε: odds e^ε exactly
        return DiscreteLaw([0.0, 1.0], [0, EPS] if some else [EPS, 0])


def any_bit_response(data, size, rng):
    p = math.exp(EPS) / (1 + math.exp(EPS))
    keep = p if data[:, 0].any() else 1 - p
    return (rng.random(size) < keep).astype(float)


def test_an_exact_law_on_vector_records_is_read_per_data_set() -> None:
    """The auditor keys the exact laws it reads by data set; data sets of vector records are
    (n, dim) arrays, keyed by shape and values."""
    wrapped = from_callable(
        any_bit_response, ADD_REMOVE, vectorized=True, relation=Records(BitVectors(3), "add_remove")
    )
    mech = AnyBitResponse(**{f.name: getattr(wrapped, f.name) for f in dataclasses.fields(wrapped)})
    r = audit_mechanism(mech, seed=0)
    assert r.epsilon_exact is not None and math.isclose(r.epsilon_exact, EPS, rel_tol=1e-9)
    assert not r.violation, r.summary()


# -- issue 34: hostile spaces, records and relations ----------------------------------------------


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: Box(-1), "dim must be an integer >= 1"),
        (lambda: Box(1.5), "dim must be an integer"),
        (lambda: Box(10**12), "dim must be an integer 1 <= dim <= 1000"),
        (lambda: Box(2, range(10**12), 1.0), "low must hold at most 2 real numbers"),
        (lambda: Box(2, 0.0, range(10**12)), "high must hold at most 2 real numbers"),
        (lambda: Box(2, [True, 0.0], 2.0), "low must be finite real numbers, got booleans"),
        (lambda: Box(2, [0.0, np.True_], 2.0), "low .*booleans"),
        (lambda: Box(2, Decimal(0), 1.0), "low must be finite real numbers"),
        (lambda: Box(2, np.array([Decimal(0)] * 2, dtype=object), 1.0), "low .*Decimal"),
        (lambda: Box(2, None, 1.0), "low must be finite real numbers"),
        (lambda: Box(2, 1 + 0j, 2.0), "low must be finite real numbers"),
        (lambda: Box(2, 10**400, 1.0), "low must fit a float64"),
        (lambda: Box(2, -math.inf, 0.0), "low must be finite"),
        (lambda: Box(2, 1e-300, 5e-324), "low must be below high"),
        (lambda: BitVectors(10**12), "dim must be an integer 1 <= dim <= 1000"),
        (lambda: BitVectors(None), "dim must be an integer"),
        (lambda: BitVectors(-1), "dim must be an integer >= 1"),
        (lambda: FiniteSet([True, 1]), "elements must be finite real numbers, got booleans"),
        (lambda: FiniteSet([[True, 1], [0, 0]]), "elements .*booleans"),
        (lambda: FiniteSet([range(10**12)]), "elements must hold at most 1000000 real numbers"),
        (lambda: FiniteSet(range(10**7)), "elements must hold at most 1000 records"),
        (lambda: FiniteSet(iter(range(10**7))), "elements must hold at most 1000 records"),
        (lambda: FiniteSet([Decimal(1)]), "elements .*Decimal"),
        (lambda: FiniteSet([None, 1]), "elements .*NoneType"),
        (lambda: FiniteSet(["a", "b"]), "elements .*strings"),
        (lambda: FiniteSet([[1], [[2]]]), "elements .*nested"),
        (lambda: FiniteSet(None), "elements must be an iterable"),
        (lambda: FiniteSet({1: 2}), "elements must be an iterable"),
        (lambda: FiniteSet([10**400]), "elements must hold values that fit a float64"),
        (lambda: Records(Box), "space must be a dpquant.audit.model.record_spaces.Box"),
        (lambda: Records(None), "space must be a dpquant.audit.model.record_spaces.Box"),
        (lambda: Records(Box(2), None), "adjacency must be one of"),
        (lambda: Records(Box(2), True), "adjacency must be one of"),
    ],
)
def test_hostile_space_parameters_are_refused_before_any_allocation(make, match) -> None:
    """A range(10**12) bound or element was listed (MemoryError); booleans inside lists were read
    as 0/1 and Decimals and object arrays converted: each a ValueError naming the parameter."""
    with pytest.raises(ValueError, match=match):
        make()


def test_a_subclass_of_a_space_is_refused() -> None:
    """A subclass's probes might be anything (None: a TypeError from inside)."""

    class Odd(Box):
        def probes(self):
            return None

    with pytest.raises(ValueError, match="space must be a dpquant.audit.model.record_spaces.Box"):
        Records(Odd(2))


def test_a_finite_set_keeps_a_single_copy_of_duplicates_and_takes_fractions() -> None:
    from fractions import Fraction

    assert FiniteSet([1, 1, 2]).elements == ((1.0,), (2.0,))
    assert FiniteSet([Fraction(1, 2), 1]).elements == ((0.5,), (1.0,))


@pytest.mark.parametrize(
    "d0, d1, match",
    [
        ([[True, 0]], [[1, 1]], r"pairs\[0\]\[0\] must be finite real numbers, got booleans"),
        ([[1, True]], [[1, 1]], "booleans"),
        ([["0", 0]], [[1, 1]], "strings"),
        ([[Decimal(1), 0]], [[1, 1]], "Decimal"),
        ([[10**400, 0]], [[1, 1]], "fit a float64"),
        ([[1 + 0j, 0]], [[1, 1]], "complex"),
        ([[None, 0]], [[1, 1]], "NoneType"),
        (range(10**12), [[1, 1]], r"pairs\[0\]\[0\] must hold at most 100000 real numbers"),
        ([[0, 0]] * 10**6, [[1, 1]], "at most 100000 real numbers"),
        ((r for r in [[0, 0]]), [[1, 1]], r"pairs\[0\]\[0\] must be finite real numbers"),
        ({(0, 0)}, [[1, 1]], r"pairs\[0\]\[0\] must be finite real numbers"),
        (np.array([[1, 1]], dtype="timedelta64[D]"), [[0, 0]], "dates or times"),
    ],
)
def test_records_are_numbers_under_the_data_policy(d0, d1, match) -> None:
    with pytest.raises(ValueError, match=match):
        Records(Box(2)).check_pair(d0, d1, "pairs[0]", ANYWHERE)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda r: r.candidates(None), "domain must be a pair"),
        (lambda r: r.candidates("ab"), "domain must be a pair"),
        (lambda r: r.candidates((math.nan, 1.0)), r"domain\[0\]"),
        (lambda r: r.check_data([[0, 0]], "data", ("a", "b")), r"domain\[0\]"),
        (lambda r: r.check_data([[0, 0]], None, ANYWHERE), "name must be a non-empty string"),
        (lambda r: r.check_pair([[0, 0]], [[1, 1]], "p", None), "domain must be a pair"),
        (lambda r: r.check_pair([[0, 0]], [[1, 1]], 5, ANYWHERE), "name must be"),
        (lambda r: r.space.contains(range(10**12)), "records must hold at most 100000"),
        (lambda r: r.space.contains([[math.nan, 0]]), "records must be real numbers, got nan"),
    ],
)
def test_the_relations_methods_check_their_parameters(call, match) -> None:
    """A junk domain ended in a TypeError (or numpy's UFuncTypeError) from inside."""
    with pytest.raises(ValueError, match=match):
        call(Records(Box(2)))
    assert Records(Box(2)).space.contains([[math.inf, 0], [0.5, 0.5]]).tolist() == [False, True]


def test_a_record_claim_refuses_a_relation_class_and_junk_pairs_before_any_draw() -> None:
    calls = []

    def fn(data, size, rng):
        calls.append(1)
        return vector_sum(6.0)(data, size, rng)

    with pytest.raises(
        ValueError, match=r"got the class Records: pass an instance, e.g. Records\("
    ):
        from_callable(fn, REPLACE, vectorized=True, relation=Records)
    mech = from_callable(fn, REPLACE, vectorized=True, relation=Records(Box(2)))
    calls.clear()
    with pytest.raises(ValueError, match="relation must be a relation object, got the class"):
        audit_mechanism(mech, relation=Records, samples=200)
    for pairs in ([([["1", "0"]], [["1", "1"]])], [([[True, 0]], [[1, 1]])], []):
        with pytest.raises(ValueError, match="pairs"):
            audit_mechanism(mech, pairs=pairs, samples=200)
    assert calls == []


@pytest.mark.parametrize("given", ["add_remove", Adjacency.ADD_REMOVE])
def test_records_and_the_relation_objects_hold_their_relation_as_an_adjacency(given) -> None:
    records = Records(Box(2), given)
    assert records.adjacency is Adjacency.ADD_REMOVE
    assert repr(records).endswith("adjacency='add_remove')")
    assert QueryAnswers(3).adjacency is Adjacency.QUERY_ANSWERS
