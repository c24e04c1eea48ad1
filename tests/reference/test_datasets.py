"""The shipped Adult columns are complete and match the quartiles of the data README."""

import numpy as np
import pytest

from dpquant.reference.datasets import load_adult


@pytest.mark.parametrize(
    "column, lo, hi, quartiles",
    [("age", 17, 90, (28, 37, 48)), ("hours_per_week", 1, 99, (40, 40, 45))],
)
def test_adult_column_has_48842_rows_in_range_with_the_documented_quartiles(
    column, lo, hi, quartiles
) -> None:
    x = load_adult(column)
    assert x.shape == (48_842,) and x.min() == lo and x.max() == hi
    assert tuple(np.percentile(x, [25, 50, 75], method="inverted_cdf")) == quartiles


def test_unknown_column_raises() -> None:
    with pytest.raises(ValueError, match="column"):
        load_adult("income")


@pytest.mark.parametrize("bad", ["AGE", "age ", ["age"], None, 1, b"age"])
def test_column_must_be_one_of_the_exact_names(bad) -> None:
    """A list used to raise TypeError (unhashable); every non-name is a ValueError naming column."""
    with pytest.raises(ValueError, match=r"^column must be one of \('age', 'hours_per_week'\)"):
        load_adult(bad)
