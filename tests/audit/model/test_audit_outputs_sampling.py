"""dpquant.audit.model.outputs (normalising draws into numbers and atoms), dpquant.audit.pipeline.draws (seeded chunked draws)
and dpquant.audit.model.wrap.from_callable (any function as a mechanism, exceptions as outputs)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dpquant.audit.model.outputs import NUMERIC, Outputs, Raised, normalise
from dpquant.audit.model.sampling_contract import MalformedOutput
from dpquant.audit.model.wrap import from_callable
from dpquant.audit.pipeline.draws import DrawJob, draw
from dpquant.reference import PrivacyClaim
from dpquant.reference.conformance import clopper_pearson
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.primitives.randomized_response import RandomizedResponse

# ---------------------------------------------------------------------------------------------
# normalise
# ---------------------------------------------------------------------------------------------


def test_normalise_turns_a_float_vector_into_one_numeric_column() -> None:
    out = normalise(np.array([0.5, -1.0, 3.0]), 3)
    assert out.values.shape == (3, 1) and out.width == 1 and len(out) == 3
    np.testing.assert_array_equal(out.values[:, 0], [0.5, -1.0, 3.0])
    assert out.numeric.all() and out.atom_counts() == {}


def test_normalise_keeps_the_columns_of_a_float_matrix() -> None:
    raw = np.arange(12.0).reshape(4, 3)
    out = normalise(raw, 4)
    assert out.values.shape == (4, 3) and out.width == 3
    np.testing.assert_array_equal(out.values, raw)
    assert out.numeric.all()


def test_normalise_accepts_integer_arrays_as_numbers() -> None:
    out = normalise(np.array([0, 1, 1], dtype=np.int8), 3)
    assert out.values.dtype == float and out.numeric.all()
    np.testing.assert_array_equal(out.values[:, 0], [0.0, 1.0, 1.0])


def test_normalise_makes_nan_draws_the_atom_nan() -> None:
    out = normalise(np.array([1.0, np.nan, 2.0, np.nan]), 4)
    assert list(out.atoms) == [NUMERIC, "nan", NUMERIC, "nan"]
    assert out.atom_counts() == {"nan": 2}
    # one NaN coordinate makes the whole vector draw the atom
    mat = normalise(np.array([[1.0, np.nan], [2.0, 3.0]]), 2)
    assert list(mat.atoms) == ["nan", NUMERIC]
    assert np.isnan(mat.values[0]).all() and not np.isnan(mat.values[1]).any()


def test_normalise_mixes_raised_atoms_and_numbers_in_object_arrays() -> None:
    raw = np.empty(4, dtype=object)
    raw[:] = [1.5, Raised("ZeroDivisionError"), np.float64(2.0), Raised("KeyError")]
    out = normalise(raw, 4)
    assert list(out.atoms) == [NUMERIC, "raised:ZeroDivisionError", NUMERIC, "raised:KeyError"]
    assert out.values[0, 0] == 1.5 and out.values[2, 0] == 2.0
    assert np.isnan(out.values[[1, 3], 0]).all()
    assert out.atom_counts() == {"raised:ZeroDivisionError": 1, "raised:KeyError": 1}
    assert str(Raised.of(ValueError("boom"))) == "raised:ValueError"


def test_normalise_names_non_numeric_objects_as_atoms() -> None:
    out = normalise([None, "x", True, float("nan"), 3], 5)
    assert list(out.atoms) == ["None", "'x'", "bool:True", "nan", NUMERIC]
    assert out.values[4, 0] == 3.0


def test_normalise_makes_each_length_of_varying_vectors_its_own_atom() -> None:
    raw = [np.array([1.0]), np.array([1.0, 2.0]), np.array([3.0, 4.0]), Raised("IndexError")]
    out = normalise(raw, 4)
    assert list(out.atoms) == ["length:1", "length:2", "length:2", "raised:IndexError"]
    assert not out.numeric.any()
    # vectors of one common length stay numeric
    same = normalise([np.array([1.0, 2.0]), Raised("KeyError"), (3.0, 4.0)], 3)
    assert same.width == 2 and list(same.atoms) == [NUMERIC, "raised:KeyError", NUMERIC]
    np.testing.assert_array_equal(same.values[[0, 2]], [[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize(
    "raw, size",
    [
        (np.zeros(5), 4),
        (np.zeros((3, 2)), 4),
        (np.float64(1.0), 1),
        ([1.0, 2.0], 3),
        (np.array([1.0, Raised("E")], dtype=object), 3),
        (None, 2),
        ((x for x in (1.0, 2.0)), 2),
    ],
)
def test_normalise_refuses_a_result_with_the_wrong_number_of_draws(raw, size) -> None:
    """A call that does not return one draw per requested draw breaks the sampling contract:
    it is refused (an atom the same on both sides of every pair would hide a leak)."""
    with pytest.raises(MalformedOutput, match=str(size)):
        normalise(raw, size)


@pytest.mark.parametrize("shape", [(4, 2, 2), (4, 0), (4, 1, 1)])
def test_normalise_refuses_a_matrix_per_draw_and_draws_with_no_value(shape) -> None:
    with pytest.raises(MalformedOutput, match=r"shape \(4, "):
        normalise(np.zeros(shape), 4)


def test_outputs_concat_pools_draws_and_makes_mixed_widths_atoms() -> None:
    a, b = normalise(np.array([1.0, 2.0]), 2), normalise([Raised("E")], 1)
    both = Outputs.concat([a, b])
    assert len(both) == 3 and list(both.atoms) == [NUMERIC, NUMERIC, "raised:E"]
    mixed = Outputs.concat([a, normalise(np.zeros((2, 2)), 2), b])
    assert list(mixed.atoms) == ["length:1"] * 2 + ["length:2"] * 2 + ["raised:E"]
    with pytest.raises(ValueError):
        Outputs.concat([])


# ---------------------------------------------------------------------------------------------
# draw: seeding, chunks, executors
# ---------------------------------------------------------------------------------------------

EM = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
DATASETS = [np.array([0.1, 0.5, 0.9]), np.array([0.2]), np.array([0.0, 0.0, 1.0, 1.0])]


def _same(a: Outputs, b: Outputs) -> bool:
    return np.array_equal(a.values, b.values, equal_nan=True) and list(a.atoms) == list(b.atoms)


def test_draw_is_deterministic_for_a_seed_and_changes_with_the_seed() -> None:
    jobs = [DrawJob(d, 2500, (j,)) for j, d in enumerate(DATASETS)]
    first = draw(EM, jobs, seed=7, chunk=1000)
    again = draw(EM, jobs, seed=7, chunk=1000)
    other = draw(EM, jobs, seed=8, chunk=1000)
    assert [len(o) for o in first] == [2500] * 3
    assert all(_same(a, b) for a, b in zip(first, again, strict=True))
    assert not any(_same(a, b) for a, b in zip(first, other, strict=True))
    # distinct keys give distinct streams even on equal data
    twins = draw(EM, [DrawJob(DATASETS[0], 100, (0,)), DrawJob(DATASETS[0], 100, (1,))], seed=7)
    assert not _same(*twins)


def test_draw_does_not_depend_on_the_executor() -> None:
    jobs = [DrawJob(d, 3000, (5, j)) for j, d in enumerate(DATASETS)]
    local = draw(EM, jobs, seed=11, chunk=700)
    with ThreadPoolExecutor(3) as pool:
        pooled = draw(EM, jobs, seed=11, executor=pool, chunk=700)
    assert all(_same(a, b) for a, b in zip(local, pooled, strict=True))


def test_draw_results_do_not_depend_on_job_order_or_on_the_other_jobs() -> None:
    jobs = [DrawJob(d, 1500, (j, 3)) for j, d in enumerate(DATASETS)]
    together = draw(EM, jobs, seed=3, chunk=400)
    reversed_ = draw(EM, jobs[::-1], seed=3, chunk=400)[::-1]
    alone = [draw(EM, [job], seed=3, chunk=400)[0] for job in jobs]
    for a, b, c in zip(together, reversed_, alone, strict=True):
        assert _same(a, b) and _same(a, c)


def test_draw_chunks_are_seeded_by_job_and_chunk_index() -> None:
    """A longer job begins with the draws of a shorter one (chunks are seeded by index)."""
    short, long_ = draw(
        EM, [DrawJob(DATASETS[0], 800, (1,)), DrawJob(DATASETS[0], 2000, (1,))], seed=0, chunk=400
    )
    assert _same(short, Outputs(long_.values[:800], long_.atoms[:800]))


def test_draw_of_zero_draws_gives_empty_outputs() -> None:
    (out,) = draw(EM, [DrawJob(DATASETS[0], 0, (0,))], seed=0)
    assert len(out) == 0


class _VectorisedFails:
    """sample raises for any batch of more than one draw; single draws are fine numbers."""

    def sample(self, data, size, rng):
        if size > 1:
            raise RuntimeError("no batches")
        return rng.normal(size=1)


class _HalfRaises:
    """Each single draw raises KeyError with probability 1/2 (batches always raise)."""

    def sample(self, data, size, rng):
        u = rng.random(size)
        if np.any(u < 0.5):
            raise KeyError("half")
        return u


def test_a_batch_that_raises_is_retried_draw_by_draw() -> None:
    (out,) = draw(_VectorisedFails(), [DrawJob(np.array([0.0]), 300, (0,))], seed=1, chunk=128)
    assert len(out) == 300 and out.numeric.all()
    assert np.isfinite(out.values).all() and len(np.unique(out.values)) == 300
    (again,) = draw(_VectorisedFails(), [DrawJob(np.array([0.0]), 300, (0,))], seed=1, chunk=128)
    assert _same(out, again)


def test_each_raising_draw_becomes_a_raised_atom_at_its_own_frequency() -> None:
    n = 4000
    (out,) = draw(_HalfRaises(), [DrawJob(np.array([0.0]), n, (0,))], seed=2, chunk=1000)
    counts = out.atom_counts()
    assert set(counts) == {"raised:KeyError"}
    k = counts["raised:KeyError"]
    # two-sided Clopper–Pearson interval at level 1e-9 (the sampler is seeded: deterministic)
    lo, hi = clopper_pearson(k, n, 1e-9)
    assert lo <= 0.5 <= hi
    assert np.all(out.values[out.numeric, 0] >= 0.5)


# ---------------------------------------------------------------------------------------------
# from_callable
# ---------------------------------------------------------------------------------------------

CLAIM = PrivacyClaim(1.0)


def test_from_callable_turns_exceptions_into_raised_atoms() -> None:
    def fn(data, rng):
        u = rng.random()
        if u < 0.3:
            raise ZeroDivisionError
        return float(np.median(data)) + u

    mech = from_callable(fn, CLAIM, domain=(0.0, 1.0))
    raw = mech.sample(np.array([0.2, 0.4]), 400, np.random.default_rng(0))
    out = normalise(raw, 400)
    assert set(out.atom_counts()) == {"raised:ZeroDivisionError"}
    assert 50 < out.atom_counts()["raised:ZeroDivisionError"] < 200
    assert np.all(out.values[out.numeric, 0] >= 0.3 + 0.3)


def test_from_callable_gives_float_arrays_for_numeric_outputs() -> None:
    scalar = from_callable(lambda d, rng: rng.random() + d.sum(), CLAIM)
    x = scalar.sample(np.array([1.0, 2.0]), 50, np.random.default_rng(1))
    assert x.dtype == float and x.shape == (50,) and np.all((x >= 3) & (x < 4))
    vector = from_callable(lambda d, rng: rng.random(3), CLAIM)
    v = vector.sample(np.array([1.0]), 20, np.random.default_rng(1))
    assert v.dtype == float and v.shape == (20, 3)
    assert normalise(v, 20).width == 3


def test_from_callable_is_seeded_and_gives_fn_a_copy_of_the_data() -> None:
    def fn(data, rng):
        data[:] = -1.0  # must not leak into later draws or the caller's array
        return rng.random()

    mech = from_callable(fn, CLAIM)
    data = np.array([1.0, 2.0])
    a = mech.sample(data, 10, np.random.default_rng(5))
    b = mech.sample(data, 10, np.random.default_rng(5))
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(data, [1.0, 2.0])


def test_from_callable_keeps_a_leaky_crash_visible_through_draw() -> None:
    """A function that crashes on one data set only: the atom tells the neighbours apart."""

    def fn(data, rng):
        if data.max() > 0.5:
            raise OverflowError
        return rng.random()

    mech = from_callable(fn, CLAIM, domain=(0.0, 1.0))
    a, b = draw(mech, [DrawJob(np.array([0.1]), 200, (0,)), DrawJob(np.array([0.9]), 200, (1,))], 0)
    assert a.atom_counts() == {} and b.atom_counts() == {"raised:OverflowError": 200}


def test_from_callable_keeps_none_and_strings_as_their_own_atoms() -> None:
    outputs = iter([0.5])  # the wrapper's trial call takes this one
    mech = from_callable(lambda d, rng: next(outputs), CLAIM)
    outputs = iter([None, float("nan"), "1.5", 1.5])
    out = normalise(mech.sample(np.array([0.0]), 4, np.random.default_rng(0)), 4)
    assert list(out.atoms) == ["None", "nan", "'1.5'", NUMERIC]


@pytest.mark.parametrize(
    "fn, claim, domain",
    [
        (None, CLAIM, (0.0, 1.0)),
        (3.0, CLAIM, (0.0, 1.0)),
        (lambda d, r: 0.0, 1.0, (0.0, 1.0)),
        (lambda d, r: 0.0, (1.0, 0.0), (0.0, 1.0)),
        (lambda d, r: 0.0, CLAIM, (1.0, 0.0)),
        (lambda d, r: 0.0, CLAIM, (0.0, float("nan"))),
        (lambda d, r: 0.0, CLAIM, (0.0,)),
        (lambda d, r: 0.0, CLAIM, "0..1"),
    ],
)
def test_from_callable_rejects_bad_fn_claim_or_domain(fn, claim, domain) -> None:
    with pytest.raises(ValueError):
        from_callable(fn, claim, domain=domain)


@given(st.integers(min_value=1, max_value=40), st.integers(min_value=1, max_value=17))
def test_draw_concatenates_chunks_to_the_requested_size(size, chunk) -> None:
    rr = RandomizedResponse(1.0)
    (out,) = draw(rr, [DrawJob(np.array([1.0]), size, (0,))], seed=0, chunk=chunk)
    assert len(out) == size and out.numeric.all()
    assert set(np.unique(out.values)) <= {0.0, 1.0}


def test_structured_draws_are_read_position_by_position() -> None:
    """A flat sequence of symbols and numbers: its pattern is its atom, its tokens and numbers
    are kept by position (padded past the end; NaN for a number too large for a float64)."""
    out = normalise([("⊥", 2.5), ("⊤",), 3.0, ("⊥", 10**400), ("⊥", 0.5)], 5)
    assert list(out.atoms) == ["('⊥', #)", "('⊤')", "", "('⊥', #)", "('⊥', #)"]
    assert out.tokens is not None and out.numbers is not None
    assert out.tokens.tolist() == [["'⊥'", "#"], ["'⊤'", ""], ["", ""], ["'⊥'", "#"], ["'⊥'", "#"]]
    assert np.array_equal(out.numbers[:, 1], [2.5, np.nan, np.nan, np.nan, 0.5], equal_nan=True)
    first, second = out.halves()
    assert first.tokens.shape == (2, 2) and second.tokens.shape == (3, 2)
    pooled = Outputs.concat([normalise([1.0, 2.0], 2), out])
    assert pooled.tokens.shape == (7, 2) and pooled.tokens[0].tolist() == ["", ""]
    assert normalise([1.0, (1.0, 2.0)], 2).tokens is None  # no symbols: no structure


ELEMENTS = ["⊤", "⊥", "-", None, True, np.False_, 1.5, 2, np.float32(-3.0), float("nan"),
            10**400, np.str_("⊤")]  # fmt: skip


def _same_outputs(a: Outputs, b: Outputs) -> None:
    assert np.array_equal(a.values, b.values, equal_nan=True)
    assert a.atoms.tolist() == b.atoms.tolist()
    assert (a.tokens is None) == (b.tokens is None)
    if a.tokens is not None and b.tokens is not None:
        assert a.tokens.tolist() == b.tokens.tolist()
        assert np.array_equal(a.numbers, b.numbers, equal_nan=True)


@given(
    st.integers(0, 12).flatmap(
        lambda length: st.lists(
            st.lists(st.sampled_from(range(len(ELEMENTS))), min_size=length, max_size=length),
            max_size=20,
        ).map(lambda rows: (length, rows))
    )
)
def test_a_block_of_structured_draws_reads_as_its_rows_one_by_one(shaped) -> None:
    """A vectorised function's (size, L) object array of symbols and numbers is read without a
    loop over draws, into exactly what its rows give read one by one as tuples."""
    length, rows = shaped
    raw = np.empty((len(rows), length), dtype=object)
    for i, row in enumerate(rows):
        for j, k in enumerate(row):
            raw[i, j] = ELEMENTS[k]
    _same_outputs(normalise(raw, len(rows)), normalise([tuple(r) for r in raw], len(rows)))


PLAIN = ["⊤", "⊥", "x", 0.25, -1.0, 3, float("nan"), float("inf"), 10**400, np.str_("⊥"), True]


@given(
    st.lists(
        st.lists(st.sampled_from(range(len(PLAIN))), max_size=8).map(
            lambda row: tuple(PLAIN[k] for k in row)
        ),
        min_size=1,
        max_size=30,
    ),
    st.booleans(),
)
def test_plain_structured_draws_read_by_their_remembered_pattern_as_in_general(
    rows, as_lists
) -> None:
    """The fast path for draws of Python strings and numbers (a pattern remembered by its
    strings and the places of its numbers) gives exactly what the general reading gives, cold
    and with the patterns already remembered; numpy strings, booleans and huge ints among the
    items are read as before."""
    from dpquant.audit.model import outputs

    draws = [list(r) for r in rows] if as_lists else rows
    outputs._PATTERNS.clear()
    cold, warm = normalise(draws, len(draws)), normalise(draws, len(draws))
    general = outputs._plain_pattern
    try:
        outputs._plain_pattern = lambda items: None  # type: ignore[assignment]
        slow = normalise(draws, len(draws))
    finally:
        outputs._plain_pattern = general  # type: ignore[assignment]
    _same_outputs(cold, slow)
    _same_outputs(warm, slow)


def test_the_remembered_patterns_are_bounded() -> None:
    from dpquant.audit.model import outputs

    outputs._PATTERNS.clear()
    draws = [("⊥", str(i), 0.5) for i in range(outputs.MAX_PATTERNS + 10)]
    out = normalise(draws, len(draws))
    assert len(outputs._PATTERNS) <= outputs.MAX_PATTERNS
    assert out.atoms[-1] == f"('⊥', '{outputs.MAX_PATTERNS + 9}', #)"


def test_a_block_of_strings_is_read_as_patterns() -> None:
    rng = np.random.default_rng(5)
    raw = np.where(rng.random((400, 7)) < 0.3, "⊤", "⊥")
    out = normalise(raw, 400)
    _same_outputs(out, normalise([tuple(r) for r in raw.tolist()], 400))
    assert out.tokens is not None and set(out.tokens.ravel()) == {"'⊤'", "'⊥'"}
    many = np.array([[str(i)] for i in range(100)])  # more symbols than a block reads at once
    _same_outputs(normalise(many, 100), normalise([tuple(r) for r in many.tolist()], 100))
    odd = np.array([[1.0, [2.0]], ["⊥", 3.0]], dtype=object)  # a nested element: refused
    with pytest.raises(MalformedOutput, match="holding sequences"):
        normalise(odd, 2)


def test_position_and_symbol_events_count_what_their_indicators_select() -> None:
    """Every event on structured draws (each position's symbol, a symbol at c or more positions,
    intervals of a position's numbers) counts on each sample exactly the draws its indicator
    selects, on draws of several lengths."""
    from dpquant.audit.events.families import candidate_events

    rng = np.random.default_rng(3)

    def draws(n: int) -> list[tuple]:
        out = []
        for _ in range(n):
            k = int(rng.integers(1, 5))
            out.append(tuple("⊥" if rng.random() < 0.6 else float(rng.normal()) for _ in range(k)))
        return [(*d, "⊤") for d in out]

    a, b = normalise(draws(300), 300), normalise(draws(200), 200)
    events, ka, kb, _, _ = candidate_events(a, b)
    kinds = set()
    for e, x, y in zip(events, ka, kb, strict=True):
        if e.kind in ("token", "token_count") or e.projection[:1] == ("pos",):
            kinds.add(e.kind)
            assert e.indicator(a).sum() == x and e.indicator(b).sum() == y, e.describe()
    assert kinds == {"token", "token_count", "interval"}


@pytest.mark.parametrize("step, per_block", [(400, 1), (400, 3), (128, 2)])
def test_a_job_drawn_in_blocks_of_whole_chunks_is_the_job_drawn_at_once(step, per_block) -> None:
    """Block b of a job (``per_block`` chunks, starting at chunk b·per_block) holds the job's own
    draws: concatenated, the blocks are the job, draw for draw (a long evaluation is counted
    block by block without changing what it counts)."""
    n, block = 2_345, step * per_block
    (whole,) = draw(EM, [DrawJob(DATASETS[1], n, (3, 1))], seed=5, chunk=step)
    parts = [
        draw(EM, [DrawJob(DATASETS[1], min(block, n - s), (3, 1), s // step)], 5, chunk=step)[0]
        for s in range(0, n, block)
    ]
    assert _same(whole, Outputs.concat(parts))
    (shifted,) = draw(EM, [DrawJob(DATASETS[1], n, (3, 1), 1)], seed=5, chunk=step)
    assert not _same(whole, shifted)
