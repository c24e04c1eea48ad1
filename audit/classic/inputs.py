"""Checks shared by the classic benchmark's mechanisms (:mod:`audit.classic`): the inputs a
sampler receives (a vector of query answers, or one integer) and its ``size`` and ``rng``.

The auditor hands a sampler a float array already checked against its domain
(:func:`audit.relations.as_input`); a sampler called directly checks the same again, and the
shape, which the relation fixes for pairs but ``sample`` does not."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from audit.relations import as_input
from reference.validation import check_int, check_rng, check_size


def check_answers(q: Any, k: int, name: str = "data") -> np.ndarray:
    """A vector of ``k`` finite query answers, as a new float array (the checks of
    :func:`audit.relations.as_input`, and the length)."""
    arr = as_input(q, name, (-math.inf, math.inf))
    if arr.shape != (k,):
        raise ValueError(f"{name} must be a vector of {k} query answers, got shape {arr.shape}")
    return arr


def check_integer_input(q: Any, lo: int, hi: int, name: str = "data") -> int:
    """One integer in [``lo``, ``hi``], given as a number or a vector of one number (the
    auditor's :class:`audit.relations.QueryAnswers` with k = 1 hands over floats such as
    ``array([2.])``); a non-integer is refused, never rounded."""
    arr = check_answers(q, 1, name)
    value = float(arr[0])
    if value != round(value):
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")
    return check_int(int(value), name, minimum=lo, maximum=hi)


def check_draws(size: Any, rng: Any) -> tuple[int, np.random.Generator]:
    """``size`` (a number of draws) and ``rng`` (a numpy Generator), checked."""
    return check_size(size, "size"), check_rng(rng, "rng")


__all__ = ["check_answers", "check_draws", "check_integer_input"]
