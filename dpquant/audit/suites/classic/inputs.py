"""Checks shared by the classic benchmark's mechanisms (:mod:`dpquant.audit.suites.classic`): the inputs a
sampler receives (a vector of query answers, or one integer) and its ``size`` and ``rng``.

The auditor hands a sampler a float array already checked against its domain
(:func:`dpquant.audit.model.relations.as_input`); a sampler called directly checks the same again, and the
shape, which the relation fixes for pairs but ``sample`` does not.

**Bounds that keep every draw finite** (issue 34). A sampler adds Laplace or exponential noise to
its answers (and PrefixSum sums up to :data:`MAX_WIDTH` of them). numpy's draws lie within 45
scales of their centre (its Laplace and exponential samplers invert a uniform double, at most 2⁻⁵³
from 0 or 1), so with answers of magnitude at most :data:`MAX_ANSWER` and a noise scale at most
:data:`MAX_SCALE`, even a sum of 256 noisy answers stays below 2·10³⁰⁴, a finite double. A claimed ε that would make the scale larger (PrefixSum at ε = 5e-324 has scale
1/ε = inf and drew inf and NaN) is refused by :func:`check_noise_epsilon`, naming ``epsilon`` and
its least (or, for noise that grows with ε, largest) value; larger answers are refused by
:func:`check_answers`.

**Bounded calls.** One call returns at most :data:`MAX_CELLS` numbers (size × its width: answers,
copies, queries or bits, at most :data:`MAX_WIDTH`) and an SVT at most :data:`MAX_OBJECT_CELLS`
entries of its object array (:func:`check_draws`): 10⁷ draws of 1000 answers asked for 80 GB, and
10⁷ SVT draws took minutes. The auditor draws 65 536 at a time (:data:`dpquant.audit.pipeline.draws.CHUNK`), which
fits both."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpquant.audit.model.relation_inputs import as_input
from dpquant.reference.validation import MAX_DRAWS, check_epsilon, check_int, check_rng, check_size

MAX_SCALE = 1e300
"""Largest noise scale of a classic sampler (module docstring)."""
MAX_ANSWER = 1e300
"""Largest magnitude of a query answer a classic sampler takes (module docstring)."""
MAX_CELLS = 2**24
"""Most numbers one call of a sampler returns (size × width; 128 MiB of doubles): the auditor's
65 536 draws of the widest output a sampler allows (256 answers, copies, queries or bits)."""
MAX_WIDTH = 256
"""Most answers (copies, queries, bits) of one sampler: its widest draws still fit
:data:`MAX_CELLS` 65 536 at a time."""
MAX_OBJECT_CELLS = 2**22
"""Most entries of one call's object array (an SVT's: 65 536 draws of 64 queries)."""


def check_noise_epsilon(epsilon: Any, numerator: float, *, grows: bool = False) -> float:
    """A claimed ε whose noise scale, ``numerator``/ε (``grows``: ``numerator``·ε), is at most
    :data:`MAX_SCALE`: ε at least ``numerator``/:data:`MAX_SCALE` (at most
    :data:`MAX_SCALE`/``numerator`` when it ``grows``); a ``ValueError`` naming it otherwise."""
    eps = check_epsilon(epsilon)
    why = f"so that the noise scale {numerator:g}{'·' if grows else '/'}epsilon is at most"
    if grows and eps > MAX_SCALE / numerator:
        raise ValueError(
            f"epsilon must be at most {MAX_SCALE / numerator:g} here, {why} {MAX_SCALE:g} and "
            f"every draw a finite double; got {eps!r}"
        )
    if not grows and eps < numerator / MAX_SCALE:
        raise ValueError(
            f"epsilon must be at least {numerator / MAX_SCALE:g} here, {why} {MAX_SCALE:g} and "
            f"every draw a finite double; got {eps!r}"
        )
    return eps


def check_answers(q: Any, k: int, name: str = "data") -> np.ndarray:
    """A vector of ``k`` finite query answers, as a new float array (the checks of
    :func:`dpquant.audit.model.relations.as_input`, and the length)."""
    arr = as_input(q, name, (-math.inf, math.inf))
    if arr.shape != (k,):
        raise ValueError(f"{name} must be a vector of {k} query answers, got shape {arr.shape}")
    largest = float(np.abs(arr).max())
    if largest > MAX_ANSWER:
        raise ValueError(
            f"{name} must hold answers of magnitude at most {MAX_ANSWER:g}, got {largest:g}"
        )
    return arr


def check_integer_input(q: Any, lo: int, hi: int, name: str = "data") -> int:
    """One integer in [``lo``, ``hi``], given as a number or a vector of one number (the
    auditor's :class:`dpquant.audit.model.relations.QueryAnswers` with k = 1 hands over floats such as
    ``array([2.])``); a non-integer is refused, never rounded."""
    arr = check_answers(q, 1, name)
    value = float(arr[0])
    if value != round(value):
        raise ValueError(f"{name} must be an integer in [{lo}, {hi}], got {value!r}")
    return check_int(int(value), name, minimum=lo, maximum=hi)


def check_draws(
    size: Any, rng: Any, width: int = 1, *, objects: bool = False
) -> tuple[int, np.random.Generator]:
    """``size`` (a number of draws of ``width`` numbers each, or entries of an object array
    when ``objects``) and ``rng`` (a numpy Generator), checked (module docstring)."""
    cap = (MAX_OBJECT_CELLS if objects else MAX_CELLS) // width
    return check_size(size, "size", cap=min(cap, MAX_DRAWS)), check_rng(rng, "rng")


__all__ = [
    "MAX_ANSWER",
    "MAX_CELLS",
    "MAX_OBJECT_CELLS",
    "MAX_SCALE",
    "MAX_WIDTH",
    "check_answers",
    "check_draws",
    "check_integer_input",
    "check_noise_epsilon",
]
