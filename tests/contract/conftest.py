"""The contract tests' set-up: numba's kernels compiled before any call that has a time limit."""

from __future__ import annotations

import numpy as np
import pytest

from dpquant.reference.distributed_quantiles.bayes_kernel import learn_runs
from dpquant.reference.slice_quantiles.joint_exp_kernel import (
    fast_kernel_convolution,
    fast_prefix_lse,
    fast_window_lse,
)


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels() -> None:
    """numba compiles BayesLearn's and JointExp's kernels on their first call (about 10 s, more on
    a busy machine). The hostile-input tests give each call a time limit (SIGALRM): compiled
    first, the limit measures the call, not the compiler, and the alarm never interrupts numba
    half-way through a compilation (after which its next call raised "no compiled object yet")."""
    values = np.array([[1, 2, 3, 4]], dtype=np.int64)
    flips = np.zeros((1, 4), dtype=np.int8)
    counts = np.array([4], dtype=np.int64)
    assert learn_runs(
        values, flips, counts, None, None, None, 0.5, (2.0, 0.5), (0.5, 2.0), True
    ).shape == (1, 4)
    v = np.linspace(-1.0, 0.0, 8)
    assert np.all(np.isfinite(fast_prefix_lse(v, 0.5)))
    assert fast_window_lse(v, 0.5, 3).shape == v.shape
    assert fast_kernel_convolution(v, 2.0, 0.5).shape[0] > 0
