"""The fuzz suite (issue 18): every public entry point, every parameter replaced by hostile
values, one at a time. Each call gives a ``ValueError`` naming the parameter or a correct result:
never another exception type, a hang or a silent wrong value (:mod:`harness`).

Two drivers: a deterministic sweep over the named hostile pools, and hypothesis drawing from the
same pools and from random floats, integers and lists (derandomized in CI; 10 examples per entry
here, the full-size run is benchmarks/study_fuzz_random.py)."""

from __future__ import annotations

import pytest
from harness import entries_of, run, strategy, sweep
from hypothesis import given, settings
from hypothesis import strategies as st
from specimens import ALL_ENTRIES, ALL_SPECIMENS

ENTRIES = [e for s in ALL_SPECIMENS for e in entries_of(s)] + ALL_ENTRIES


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_hostile_sweep(entry) -> None:
    counts = sweep(entry)
    assert counts["refused"] > 0  # the pools always hold something to refuse


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
# the sweep above covers the pools exhaustively; this adds randoms, 10 per entry (30 per entry,
# or any number: benchmarks/study_fuzz_random.py)
@settings(max_examples=10)
@given(data=st.data())
def test_hostile_random(entry, data) -> None:
    param, value = data.draw(strategy(entry))
    run(entry, param, value)
