"""JointExp's fast forward pass (issue 21): the compiled kernel sums against the numpy reference,
rows of truncated arrays against whole rows, and the checkpointed forward pass and sampler
against the one that keeps every row (same rows, same normaliser, same draws, same path
probabilities). The reference itself is tied to direct sums and to the enumerated law in
``test_imola25_baselines.py``."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dpquant.reference.slice_quantiles.joint_exp_forward import (
    checkpoint_stride,
    decayed_prefix_lse,
    decayed_window_lse,
    forward,
    kernel_convolution,
    recompute_rows,
)
from dpquant.reference.slice_quantiles.joint_exp_kernel import (
    fast_kernel_convolution,
    fast_prefix_lse,
    fast_window_lse,
    rejection_row,
)
from dpquant.reference.slice_quantiles.joint_exp_sampler import (
    interval_logweights,
    path_log_probability,
    repeat_logprob,
    sample_intervals,
    sample_joint_exp,
)


def _assert_close(got: np.ndarray, ref: np.ndarray, span: float) -> None:
    """Same −inf entries; elsewhere |got − ref| <= 1e-12·max(1, |ref|, span), span = c·(window
    length): the contract's absolute error (|log-weight| + c·⌊t⌋)·1e-16 with room for sums."""
    assert np.array_equal(np.isneginf(got), np.isneginf(ref))
    fin = ~np.isneginf(ref)
    assert np.isfinite(got[fin]).all()
    scale = np.maximum(np.maximum(1.0, np.abs(ref[fin])), span)
    assert (np.abs(got[fin] - ref[fin]) <= 1e-12 * scale).all()


def _random_row(rng: np.random.Generator, n: int) -> np.ndarray:
    spread = float(rng.choice([0.1, 5.0, 100.0, 2000.0]))
    a = rng.normal(0.0, spread, n) + float(rng.choice([0.0, -1e4, 1e5]))
    a[rng.random(n) < rng.choice([0.0, 0.2, 0.9])] = -np.inf  # zero-length intervals
    if rng.random() < 0.3:
        a = np.sort(a)  # long monotone runs
    if rng.random() < 0.2:
        a = np.repeat(a[: -(-n // 4)], 4)[:n]  # ties
    return a


def test_compiled_kernel_sums_equal_the_numpy_reference() -> None:
    """Decayed prefix, decayed window and two-sided kernel, compiled against numpy, 1e-12
    relative: random rows with −inf entries (zero-length intervals), ties, monotone runs, values
    spread by 0.1..2000 around 0, −10^4 or 10^5; c from 0 (and 10^-9) to 10^6 (one-entry
    sub-blocks); integer, fractional and tiny t; windows of every width."""
    rng = np.random.default_rng(40)
    for trial in range(600):
        n = int(rng.integers(1, 300)) if trial % 10 else int(rng.integers(300, 12_000))
        a = _random_row(rng, n)
        c = float(rng.choice([0.0, 1e-9, 0.01, 0.25, 2.0, 50.0, 1e6]))
        t = float(rng.choice([rng.uniform(0, n + 2), float(rng.integers(0, n + 2)), 0.4]))
        width = int(rng.integers(1, n + 3))
        _assert_close(fast_prefix_lse(a, c), decayed_prefix_lse(a, c), 0.0)
        _assert_close(fast_window_lse(a, c, width), decayed_window_lse(a, c, width), c * width)
        _assert_close(fast_kernel_convolution(a, t, c), kernel_convolution(a, t, c), c * t)


def test_compiled_sums_follow_jumps_above_the_linear_range_exactly() -> None:
    """A term more than 650 above the first of its sub-block (summed by the exact recursion
    from there on) and a carry more than 700 above a sub-block (the carry as reference): still
    the reference to 1e-12."""
    n = 5000
    i = np.arange(n)
    rising = 0.9 * i  # +0.9 a step: 650 above the first after ~720 entries
    steps = np.where(i % 700 < 350, 0.0, 1500.0) - 0.01 * i  # jumps of 1500 up and down
    falling = np.concatenate([[3000.0], np.full(n - 1, -5.0)])  # a carry far above the rest
    for a in (rising, steps, falling, -rising, rising[::-1]):
        for c in (0.0, 0.25, 3.0):
            _assert_close(fast_prefix_lse(a, c), decayed_prefix_lse(a, c), 0.0)
            _assert_close(fast_window_lse(a, c, 1700), decayed_window_lse(a, c, 1700), c * 1700)
            _assert_close(
                fast_kernel_convolution(a, 900.5, c), kernel_convolution(a, 900.5, c), c * 900.5
            )


def test_rows_of_truncated_arrays_equal_whole_rows_bit_for_bit() -> None:
    """A_j(i) depends on A_{j−1}(i' <= i) only, and the compiled sums keep that bit for bit:
    the rejection method's row from the first ℓ entries equals the whole row's first ℓ entries
    exactly (random rows, jumps that take the exact recursion, D = ⌊t⌋ below and above ℓ)."""
    rng = np.random.default_rng(41)
    for trial in range(200):
        n = int(rng.integers(2, 4000))
        a = _random_row(rng, n)
        if trial % 5 == 0:
            a = a + np.where(np.arange(n) % 900 < 450, 0.0, 1200.0)
        log_len = rng.normal(-3.0, 2.0, n)
        log_len[rng.random(n) < 0.1] = -np.inf
        c = float(rng.choice([1e-9, 0.01, 0.25, 2.0, 50.0]))
        t = float(rng.uniform(0, n + 1))
        whole = rejection_row(a, log_len, t, c, n)
        for size in {1, int(rng.integers(1, n + 1)), int(t) + 1, n}:
            size = min(size, n)
            part = rejection_row(a[:size], log_len[:size], t, c, n)
            assert np.array_equal(part, whole[:size])


X_TIES = np.sort(np.concatenate([np.linspace(0.1, 2.9, 37), [1.0, 1.0, 1.0, 2.0, 2.0]]))
Q_CLOSE = np.array([0.1, 0.11, 0.12, 0.4, 0.41, 0.8, 0.9, 0.95])  # repeats and blocks of three


@pytest.mark.parametrize("stride", [2, 3, 8])
def test_checkpointed_forward_keeps_the_rows_and_normaliser_of_the_full_one(stride) -> None:
    """Kept rows A_1, A_{1+k}, ... and log Z equal those of the pass that keeps every row, and
    the rows recomputed from a kept one equal the full rows bit for bit at every limit."""
    full = forward(X_TIES, Q_CLOSE, (0.0, 3.0), 0.7, "rejection", stride=1)
    kept = forward(X_TIES, Q_CLOSE, (0.0, 3.0), 0.7, "rejection", stride=stride)
    m, n = full.m, full.n
    assert kept.total.shape == (-(-m // stride), n + 1)
    assert kept.log_z == full.log_z
    assert np.array_equal(kept.total, full.total[::stride])
    for lo in range(1, m + 1, stride):
        hi = min(lo + stride - 1, m)
        for limit in (1, n // 2, n + 1):
            rows = recompute_rows(kept, lo, hi, limit)
            assert np.array_equal(rows, full.total[lo:hi, :limit])


@pytest.mark.parametrize("stride", [2, 3, 8])
def test_checkpointed_sampler_draws_the_same_releases_as_the_full_rows(stride) -> None:
    """Same seed, same releases and interval sequences (the recomputed rows are bit for bit the
    kept ones), with ties (zero-length intervals) and repeated intervals (blocks of three)."""
    full = forward(X_TIES, Q_CLOSE, (0.0, 3.0), 0.7, "rejection", stride=1)
    kept = forward(X_TIES, Q_CLOSE, (0.0, 3.0), 0.7, "rejection", stride=stride)
    for seed in range(3):
        a = sample_joint_exp(full, 3000, np.random.default_rng(seed))
        b = sample_joint_exp(kept, 3000, np.random.default_rng(seed))
        assert np.array_equal(a, b)
        pa = sample_intervals(full, 3000, np.random.default_rng(seed))
        pb = sample_intervals(kept, 3000, np.random.default_rng(seed))
        assert np.array_equal(pa, pb)
    assert (np.diff(pa, axis=1) == 0).any()  # repeats do occur


def test_checkpointed_path_probabilities_equal_those_of_the_full_rows() -> None:
    """Every interval sequence's proposal probability, interval weights and repeat
    probabilities are the same numbers from kept-and-recomputed rows as from every row (the
    full rows' path probabilities are tied to the enumerated law in test_imola25_baselines)."""
    x, qs = np.array([0.5, 1.0, 1.0, 2.5, 2.7]), np.array([0.3, 0.5, 0.6, 0.62])
    full = forward(x, qs, (0.0, 3.0), 0.5, "rejection", stride=1)
    kept = forward(x, qs, (0.0, 3.0), 0.5, "rejection", stride=3)
    paths = list(itertools.combinations_with_replacement(range(full.n + 1), full.m))
    a = [path_log_probability(full, p) for p in paths]
    b = [path_log_probability(kept, p) for p in paths]
    assert a == b
    assert math.fsum(math.exp(v) for v in a) == pytest.approx(1.0, abs=1e-13)
    for j in range(1, full.m + 1):
        for up in range(full.n + 1):
            wa = interval_logweights(full, j, up, j == full.m)
            assert np.array_equal(wa, interval_logweights(kept, j, up, j == full.m))
        idx = np.arange(full.n + 1)
        assert np.array_equal(repeat_logprob(full, j, idx), repeat_logprob(kept, j, idx))


def test_large_inputs_keep_about_the_square_root_of_m_rows() -> None:
    """Every row up to 2·10^7 entries; beyond, every ⌈√m⌉-th (m = 200 at the Adult size: 14 kept
    rows and blocks of 14 recomputed, against 200 rows)."""
    assert checkpoint_stride(20, 10_000) == 1
    assert checkpoint_stride(200, 586_104) == 15
    assert checkpoint_stride(100, 586_104) == 10
    fw = forward(X_TIES, Q_CLOSE, (0.0, 3.0), 0.7, "exact", stride=3)
    assert fw.stride == 1 and fw.total.shape == (Q_CLOSE.size, X_TIES.size + 1)


def test_bad_stride_and_rows_are_refused_naming_the_parameter() -> None:
    kept = forward(X_TIES, Q_CLOSE, (0.0, 3.0), 0.7, "rejection", stride=3)
    exact = forward(X_TIES, Q_CLOSE, (0.0, 3.0), 0.7, "exact")
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="stride"):
            forward(X_TIES, Q_CLOSE, (0.0, 3.0), 0.7, "rejection", stride=bad)
    with pytest.raises(ValueError, match="fw"):
        recompute_rows(exact, 1, 2, 5)
    with pytest.raises(ValueError, match="lo"):
        recompute_rows(kept, 2, 3, 5)
    with pytest.raises(ValueError, match="lo"):
        recompute_rows(kept, 0, 3, 5)
    with pytest.raises(ValueError, match="hi"):
        recompute_rows(kept, 4, 3, 5)
    with pytest.raises(ValueError, match="limit"):
        recompute_rows(kept, 1, 3, kept.n + 2)
    with pytest.raises(ValueError, match="m"):
        checkpoint_stride(0, 5)


class _Strict(np.ndarray):
    """An array whose negative indices are errors (numpy wraps them): an index the compiled
    passes compute below 0 is a read outside the array there, where no bound is checked."""

    def __getitem__(self, key):
        if isinstance(key, int | np.integer) and key < 0:
            raise IndexError(f"negative index {key}")
        return super().__getitem__(key)


@pytest.mark.parametrize("reverse", [False, True])
def test_the_compiled_passes_never_index_outside_a_short_last_segment(monkeypatch, reverse) -> None:
    """The passes run as plain Python (bounds checked, negative indices refused) on arrays whose
    last segment is shorter than the segment length, so that some sub-blocks of it lie past the
    end (a read there once crashed the imola25 study), and give what the compiled passes give."""
    from dpquant.reference.slice_quantiles import joint_exp_kernel as kern

    monkeypatch.setattr(kern, "_CHUNK", 64)  # chunks of whole segments: a short last chunk too
    rng = np.random.default_rng(4)
    cases = [(n, seg, c) for n in (1, 3, 7, 40, 130) for seg in (5, 16, 100) for c in (0.5, 150.0)]
    compiled = [kern.scan(_random_row(rng, n), c, seg, reverse) for n, seg, c in cases]
    for name in ("_first_pass", "_second_pass", "_third_pass", "_positions", "_lse"):
        monkeypatch.setattr(kern, name, getattr(kern, name).py_func)
    rng = np.random.default_rng(4)
    for (n, seg, c), want in zip(cases, compiled, strict=True):
        v = _random_row(rng, n).view(_Strict)
        with np.errstate(invalid="ignore"):  # −inf − (−inf) in Python scalars: NaN, as compiled
            got = kern.scan(v, c, seg, reverse)
        np.testing.assert_array_equal(got, want)
