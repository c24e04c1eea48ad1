"""The auditor's value of a batch of draws (:mod:`dpquant.audit.model.draw_values`): what the
stages read from :class:`Outputs` many times per batch is kept or shared, never writable."""

from __future__ import annotations

import numpy as np
import pytest

from dpquant.audit.model.outputs import Raised, normalise


def test_the_numeric_mask_is_computed_once_and_cannot_be_written() -> None:
    """The stages ask for the mask many times per batch: it is kept, so it is read-only (a
    caller that wrote into it would change every later reading)."""
    out = normalise([1.0, "a symbol", 2.0], 3)
    mask = out.numeric
    assert mask.tolist() == [True, False, True] and out.numeric is mask
    with pytest.raises(ValueError, match="read-only"):
        mask[0] = False
    assert out.numeric.tolist() == [True, False, True]


def test_padding_to_the_draws_own_length_reads_their_arrays_and_cannot_write_them() -> None:
    """``padded`` at the draws' own number of positions gives their arrays as read-only views
    (no copy: the stages pad every sample many times); at more positions, padded copies;
    ``number_column`` is the padded numbers' column without padding the others."""
    out = normalise([("⊥", 2.5), ("⊤",), 3.0, ("⊥", 10**400), ("⊥", 0.5)], 5)
    assert out.tokens is not None and out.numbers is not None
    tokens, numbers = out.padded(2)
    assert np.shares_memory(tokens, out.tokens) and np.shares_memory(numbers, out.numbers)
    with pytest.raises(ValueError, match="read-only"):
        tokens[0, 0] = "x"
    with pytest.raises(ValueError, match="read-only"):
        numbers[0, 1] = 1.0
    assert out.tokens[0, 0] == "'⊥'" and out.numbers[0, 1] == 2.5
    wider_tokens, wider_numbers = out.padded(4)
    assert wider_tokens[:, 2:].tolist() == [["", ""]] * 5 and np.isnan(wider_numbers[:, 2:]).all()
    wider_tokens[0, 0] = "x"  # a copy: the draws keep theirs
    assert out.tokens[0, 0] == "'⊥'"
    for position in range(4):
        column = out.number_column(position)
        assert np.array_equal(column, out.padded(4)[1][:, position], equal_nan=True)
        column[:] = 7.0  # a copy as well
    assert out.numbers[0, 1] == 2.5
    for bad in (-1, 1.0, True, "0", None):
        with pytest.raises(ValueError, match="position"):
            out.number_column(bad)  # type: ignore[arg-type]
    plain = normalise([1.0, 2.0], 2)
    assert np.isnan(plain.number_column(0)).all() and plain.padded(1)[0].tolist() == [[""], [""]]


def test_atom_counts_are_counted_once_and_each_call_gets_its_own_dict() -> None:
    out = normalise([None, "x", 1.0, None, Raised("KeyError"), 2.0], 6)
    counts = out.atom_counts()
    assert counts == {"'x'": 1, "None": 2, "raised:KeyError": 1}
    assert list(counts) == sorted(counts)
    counts["None"] = 99  # a caller adding to its counts (the classifier's features do)
    assert out.atom_counts()["None"] == 2
    assert normalise([1.0, 2.0], 2).atom_counts() == {}
