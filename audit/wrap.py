"""``from_callable``: audit any function ``fn(data, rng) -> one output`` (or, vectorised,
``fn(data, size, rng) -> size outputs``).

The wrapper turns the function into a mechanism on :class:`reference.core.MechanismBase`:
``sample`` checks ``size``, ``rng`` and the data once (the base's data policy, on ``domain``, and
among ``input_values`` when the function declares a finite input set; the empty data set is
allowed, as add/remove audits need it), then calls the function once per draw with the same
generator, each time on a fresh copy of the data; a vectorised function is called once for all
the draws. An exception raised by a call of a per-draw function becomes that draw's output (the
atom ``raised:<ExceptionType>``, see :mod:`audit.outputs`), so a function that crashes on one
data set and not on its neighbour is found to leak. A vectorised call that raises raises from
``sample``, like any mechanism's; the auditor then draws that chunk again one draw at a time
(:func:`audit.draws.draw_chunk`), so each draw's atom comes from a call of its own and the draws
stay independent. (A vectorised function promises ``size`` independent draws per call; one that
raises *because of* some of its random draws breaks that promise, as the calls that do not raise
are then conditioned on their draws: such a function should return its exceptions per draw, or
not be vectorised.) The outputs are returned as they are (never checked or converted: they are
what the auditor judges).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from audit.claimed import ClaimedMechanism
from audit.limits import MAX_NAME
from audit.neighbours import check_probe_domain, check_values
from audit.outputs import Raised
from audit.record_spaces import Records
from audit.relations import as_input, check_relation
from reference.core import OBJECT_RELATIONS, PrivacyClaim, check_claim
from reference.validation import check_flag


@dataclass(frozen=True)
class CallableMechanism(ClaimedMechanism):
    """A function ``fn(data, rng) -> output`` with the claim it is audited against.

    The claim and the domain are stored as ``privacy_claim`` (:class:`audit.claimed.ClaimedMechanism`)
    and ``input_domain`` (the base derives ``domain`` as a property) and read as :attr:`claim` and
    :attr:`domain`; build it with :func:`from_callable`, which checks every argument."""

    fn: Callable[..., Any]
    privacy_claim: PrivacyClaim
    input_domain: tuple[float, float] = (-math.inf, math.inf)
    name: str = ""
    vectorized: bool = False
    input_values: tuple[float, ...] | None = None
    relation: Any = None

    allow_empty: ClassVar[bool] = True

    @property
    def domain(self) -> tuple[float, float]:
        return self.input_domain

    @property
    def output_range(self) -> None:
        return None

    def check_input(self, data: Any) -> np.ndarray:
        """The base's data policy, and values among :attr:`input_values` when declared; under a
        relation of records (:class:`audit.record_spaces.Records`), an (n, dim) array of records
        in its space inside the domain; under another relation object (:mod:`audit.relations`),
        a numeric array of any shape inside the domain; order kept."""
        if isinstance(self.relation, Records):
            return self.relation.check_data(data, "data", self.input_domain)
        if self.relation is not None:
            return as_input(data, "data", self.input_domain)
        x = super().check_input(data)
        if self.input_values is not None and x.size:
            outside = np.setdiff1d(x, np.asarray(self.input_values))
            if outside.size:
                raise ValueError(
                    f"data must hold values among input_values {list(self.input_values)[:20]}, "
                    f"got {outside[:5].tolist()}"
                )
        return x

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> Any:
        """``size`` outputs: one call of a vectorised ``fn`` (its result as it is), else ``size``
        calls; numeric results of single calls give a float array of shape (size,) or (size, k),
        anything else (exceptions included) an object array."""
        if self.vectorized:
            return self.fn(data.copy(), size, rng)
        outs: list[Any] = []
        for _ in range(size):
            try:
                outs.append(self.fn(data.copy(), rng))
            except Exception as exc:  # noqa: BLE001 -- an exception is an output
                outs.append(Raised.of(exc))
        if all(_is_real(o) or _is_real_row(o) for o in outs):
            try:
                arr = np.asarray(outs, dtype=float)
                if arr.ndim in (1, 2) and len(arr) == size:
                    return arr
            except (TypeError, ValueError, OverflowError):
                pass
        obj = np.empty(size, dtype=object)
        for i, o in enumerate(outs):
            obj[i] = o  # one object per draw (never broadcast into the array)
        return obj

    def _checked_output(self, out: Any, size: int) -> np.ndarray:
        return out  # a function's outputs are audited as they are, never checked or converted


def _is_real(x: Any) -> bool:
    return isinstance(x, int | float | np.integer | np.floating) and not isinstance(
        x, bool | np.bool_
    )


def _is_real_row(x: Any) -> bool:
    """A flat numpy array of reals (other sequences go through the auditor's atom rules)."""
    return isinstance(x, np.ndarray) and x.ndim == 1 and x.dtype.kind in "iuf"


def from_callable(
    fn: Callable[..., Any],
    claim: PrivacyClaim,
    domain: tuple[float, float] = (-math.inf, math.inf),
    name: str | None = None,
    *,
    vectorized: bool = False,
    input_values: Any = None,
    relation: Any = None,
) -> CallableMechanism:
    """Wrap ``fn(data, rng) -> one output`` as a mechanism claiming ``claim`` on ``domain``.

    ``claim`` is a :class:`reference.PrivacyClaim` (its fields checked now), ``domain`` a pair
    lo < hi (infinite ends allowed; finite ends whose width fits a float64), ``name`` a string or
    None (then the function's qualified name). ``vectorized=True``: ``fn(data, size, rng)``
    returns ``size`` independent outputs (an array with one row per draw, or a sequence of
    ``size`` objects). ``input_values``: the function's finite input set (finite reals inside
    ``domain``, at most :data:`audit.neighbours.MAX_VALUES`), which the auditor then searches
    instead of probe values; data outside it are refused. ``relation``: the neighbour relation
    object (:mod:`audit.relations`) of a claim that names ``"query_answers"`` or ``"custom"``
    (required for those claims; the function then takes numeric arrays of any shape, in the
    order given), or, for a claim naming ``"add_remove"`` or ``"replace_one"``, a relation of
    records from a record space (:class:`audit.record_spaces.Records`; the function then takes
    (n, dim) arrays of records in the space); other relations are refused for record claims,
    and ``input_values`` with any relation."""
    if not callable(fn):
        raise ValueError(f"fn must be callable, got {type(fn).__name__}")
    claim = check_claim(claim, "claim")
    domain = check_probe_domain(domain, "domain")
    if name is not None and not isinstance(name, str):
        raise ValueError(f"name must be a string or None, got {type(name).__name__}")
    if name is not None and len(name) > MAX_NAME:
        raise ValueError(f"name must have at most {MAX_NAME} characters, got {len(name)}")
    vectorized = check_flag(vectorized, "vectorized")
    values = None
    if input_values is not None:
        values = tuple(sorted(set(check_values(input_values, "input_values"))))
        lo, hi = domain
        if values[0] < lo or values[-1] > hi:
            raise ValueError(
                f"input_values must lie inside domain [{lo}, {hi}], got values in "
                f"[{values[0]}, {values[-1]}]"
            )
    if claim.adjacency in OBJECT_RELATIONS or relation is not None:
        if relation is None:
            raise ValueError(
                f"a {claim.adjacency!r} claim needs relation= (audit.relations.QueryAnswers or "
                "CustomRelation)"
            )
        relation = check_relation(relation, claim.adjacency)
        if values is not None:
            raise ValueError(
                "input_values are values of records; a relation object's inputs "
                "are whole arrays (give their values through pairs or seeds)"
            )
    label = name or getattr(fn, "__qualname__", None) or repr(fn)
    return CallableMechanism(fn, claim, domain, str(label)[:MAX_NAME], vectorized, values, relation)
