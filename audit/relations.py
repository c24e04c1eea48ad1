"""Neighbour relations given to the auditor as objects: query answers, custom relations, and
data sets of records from a record space.

The relations between data sets of scalar records (``add_remove``, ``replace_one``, ``local``)
are the auditor's own (:mod:`audit.neighbours`). A claim may also name a relation whose details
an object gives (:data:`reference.core.OBJECT_RELATIONS`); the mechanism carries that object as
its ``relation`` attribute (:func:`audit.from_callable` takes it), or the caller passes it to
:func:`audit.audit_mechanism` as ``relation=``. A relation object has

* ``adjacency``: the claim's name for it (``"query_answers"`` or ``"custom"``, or, for records of
  a record space, ``"add_remove"`` or ``"replace_one"``);
* ``name``: how reports describe it;
* ``check_pair(d0, d1, name, domain)``: the pair as the mechanism receives it, or ``ValueError``
  (naming ``name``) when it is not a neighbouring pair inside ``domain``;
* ``candidates(domain)``: the neighbouring pairs the auditor searches when no pairs are given.

Pairs of a relation object keep their order (the inputs are vectors, not multisets).

**Record spaces** (:mod:`audit.record_spaces`): records that are vectors in a box, bit vectors or
elements of a finite set. ``Records(space, adjacency)`` is a relation object for a claim naming
``"add_remove"`` or ``"replace_one"`` (the one kind of relation object a record claim accepts:
:func:`check_relation`); its data sets are (n, dim) arrays, lists of records, neighbours as
multisets of records, and its search builds small data sets from the space's probe records.

**Query answers** (:class:`QueryAnswers`): the input is a vector q of k query answers and q, q'
are neighbours when ‖q − q'‖ <= Δ, in ℓ∞ (each answer may move by Δ: the counting queries of
report-noisy-max and the sparse vector technique, whose answers all change when one record does)
or in ℓ1 (the moves sum to at most Δ: a histogram). Its search uses the input patterns of StatDP
(Ding et al., CCS 2018, Sec. 5), scaled by Δ: from q = Δ·1, one answer up or down; under ℓ∞ also
one up and the rest down, one down and the rest up, half up and half down, all up, all down, and
the "x shape" (Δ on the first half against Δ on the second half). The odd answer of the first
four is the first and (k > 1) also the last: for a mechanism reading its answers in order the
last place is where one answer against all the others shows most.

**Custom** (:class:`CustomRelation`): a predicate ``is_pair(d0, d1) -> bool`` that decides a
pair, and, for the auditor's own search, ``neighbours(d) -> iterable of d'`` with ``seeds`` to
start from. Data are numeric arrays of any shape (scalars, vectors, matrices of records); every
candidate the generator yields is checked by the predicate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from audit.neighbours import MAX_PAIRS, len_or_none
from reference.core import ADJACENCIES, OBJECT_RELATIONS
from reference.validation import check_choice, check_int, check_positive

MAX_QUERIES = 10_000
"""Largest number of query answers k."""
MAX_CUSTOM_PAIRS = 1_000
"""Most pairs the auditor takes from a custom relation's neighbour generator."""
MAX_RECORDS = 100_000
"""Most numbers in one data set of a relation object."""
NORMS = ("linf", "l1")


@runtime_checkable
class NeighbourRelation(Protocol):
    """What the auditor needs of a relation given as an object (module docstring)."""

    @property
    def adjacency(self) -> str: ...

    @property
    def name(self) -> str: ...

    def check_pair(
        self, d0: Any, d1: Any, name: str, domain: tuple[float, float]
    ) -> tuple[np.ndarray, np.ndarray]: ...

    def candidates(self, domain: tuple[float, float]) -> list[tuple[np.ndarray, np.ndarray]]: ...


def as_input(
    x: Any, name: str, domain: tuple[float, float], shape: tuple[int, ...] | None = None
) -> np.ndarray:
    """A data set of a relation object: finite reals, not booleans (a number is a data set of
    one), at most :data:`MAX_RECORDS` of them, inside ``domain``, of ``shape`` when given; a new
    float array."""
    if isinstance(x, bool | np.bool_ | str | bytes):
        raise ValueError(f"{name} must be an array of finite real numbers, got {x!r:.80}")
    try:
        arr = np.array(x, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name} must be an array of finite real numbers, got {x!r:.80}") from None
    if arr.dtype == object or arr.size > MAX_RECORDS:
        raise ValueError(f"{name} must hold at most {MAX_RECORDS} real numbers")
    if isinstance(x, np.ndarray | list | tuple) and np.asarray(x).dtype.kind == "b":
        raise ValueError(f"{name} must hold real numbers, not booleans (write bits as 0 and 1)")
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain finite numbers only (no NaN or inf)")
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
    return check_inside(arr, name, domain)


def check_inside(arr: np.ndarray, name: str, domain: tuple[float, float]) -> np.ndarray:
    """``arr`` when every number of it lies in the closed ``domain``, else ``ValueError``."""
    lo, hi = domain
    if arr.size and (arr.min() < lo or arr.max() > hi):
        raise ValueError(
            f"{name} must lie inside the domain [{lo}, {hi}], got values in "
            f"[{arr.min()}, {arr.max()}]"
        )
    return arr


@dataclass(frozen=True)
class QueryAnswers:
    """Inputs are vectors of ``k`` query answers; neighbours differ by at most ``sensitivity`` in
    ``norm`` (``"linf"`` or ``"l1"``; module docstring). The search's patterns with one odd
    answer have it first and, for k > 1, also last: a mechanism that reads the answers in order
    (the sparse vector technique) leaks most when the odd answer comes after all the others
    (SVT1 at ε = 0.1: the best event's log-ratio 0.098 with the odd answer last, 0.040 first)."""

    k: int
    sensitivity: float = 1.0
    norm: str = "linf"

    adjacency: ClassVar[str] = "query_answers"

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int(self.k, "k", minimum=1, maximum=MAX_QUERIES))
        object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))
        object.__setattr__(self, "norm", check_choice(self.norm, "norm", NORMS))

    @property
    def name(self) -> str:
        norm = "ℓ∞" if self.norm == "linf" else "ℓ1"
        return f"query answers (k = {self.k}, {norm} distance <= {self.sensitivity:g})"

    def distance(self, d0: np.ndarray, d1: np.ndarray) -> float:
        diff = np.abs(d1 - d0)
        return float(diff.max() if self.norm == "linf" else diff.sum())

    def check_pair(
        self, d0: Any, d1: Any, name: str, domain: tuple[float, float]
    ) -> tuple[np.ndarray, np.ndarray]:
        a = as_input(d0, f"{name}[0]", domain, (self.k,))
        b = as_input(d1, f"{name}[1]", domain, (self.k,))
        gap = self.distance(a, b)
        if not gap <= self.sensitivity:
            raise ValueError(
                f"{name} must be neighbours under {self.name}: the answers differ by {gap:g}"
            )
        if gap == 0:
            raise ValueError(f"{name} must be two different inputs (d0 = d1)")
        return a, b

    def candidates(self, domain: tuple[float, float]) -> list[tuple[np.ndarray, np.ndarray]]:
        """StatDP's patterns scaled by Δ (module docstring), those inside ``domain`` (and finite:
        a Δ near the float range overflows some of them)."""
        k, step = self.k, self.sensitivity
        base = np.full(k, step)
        half = np.r_[np.full(k // 2, step), np.zeros(k - k // 2)]
        ends = (0, k - 1) if k > 1 else (0,)
        patterns = []
        with np.errstate(over="ignore", invalid="ignore"):
            for end in ends:
                one = np.zeros(k)
                one[end] = step
                patterns += self._patterns(base, one, step - one, half, step, end == 0)
        lo, hi = domain
        out = []
        for a, b in patterns:
            inside = min(a.min(), b.min()) >= lo and max(a.max(), b.max()) <= hi
            if inside and np.isfinite(a).all() and np.isfinite(b).all():
                out.append((a.astype(float), b.astype(float)))
        return out

    def _patterns(
        self,
        base: np.ndarray,
        one: np.ndarray,
        rest: np.ndarray,
        half: np.ndarray,
        step: float,
        first: bool,
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """The patterns with the odd answer at ``one``'s place; the ones without an odd answer
        only when ``first``."""
        patterns = [(base, base + one), (base, base - one)]
        if self.norm == "linf":
            patterns += [(base, base + one - rest), (base, base - one + rest)]
            if first:
                patterns += [
                    (base, base + half - (step - half)),
                    (base, base + step),
                    (base, base - step),
                    (half, step - half),
                ]
        return patterns


@dataclass(frozen=True)
class CustomRelation:
    """Any neighbour relation: ``is_pair(d0, d1) -> bool`` decides a pair; ``neighbours(d)``
    (optional) yields neighbours of ``d`` for the auditor's own search, from ``seeds``."""

    is_pair: Callable[[np.ndarray, np.ndarray], Any]
    neighbours: Callable[[np.ndarray], Iterable[Any]] | None = None
    seeds: Sequence[Any] = field(default=())
    label: str = "custom relation"

    adjacency: ClassVar[str] = "custom"

    def __post_init__(self) -> None:
        if not callable(self.is_pair):
            raise ValueError(f"is_pair must be callable, got {type(self.is_pair).__name__}")
        if self.neighbours is not None and not callable(self.neighbours):
            raise ValueError(
                f"neighbours must be callable or None, got {type(self.neighbours).__name__}"
            )
        if isinstance(self.seeds, str | bytes) or not isinstance(self.seeds, Sequence):
            raise ValueError("seeds must be a sequence of data sets")
        if self.seeds and self.neighbours is None:
            raise ValueError("seeds need neighbours(d) to search from them")
        if not isinstance(self.label, str) or not self.label:
            raise ValueError("label must be a non-empty string")
        object.__setattr__(self, "seeds", tuple(self.seeds))

    @property
    def name(self) -> str:
        return self.label

    def _decide(self, a: np.ndarray, b: np.ndarray, name: str) -> bool:
        try:
            verdict = self.is_pair(a.copy(), b.copy())
        except Exception as exc:  # noqa: BLE001 -- the user's predicate failed: say where
            raise ValueError(f"{name}: is_pair raised {type(exc).__name__}: {exc}") from None
        if not isinstance(verdict, bool | np.bool_):
            raise ValueError(f"{name}: is_pair must return a bool, got {verdict!r:.80}")
        return bool(verdict)

    def check_pair(
        self, d0: Any, d1: Any, name: str, domain: tuple[float, float]
    ) -> tuple[np.ndarray, np.ndarray]:
        a = as_input(d0, f"{name}[0]", domain)
        b = as_input(d1, f"{name}[1]", domain)
        if a.shape == b.shape and np.array_equal(a, b):
            raise ValueError(f"{name} must be two different inputs (d0 = d1)")
        if not self._decide(a, b, name):
            raise ValueError(f"{name} must be neighbours under {self.name}: is_pair says no")
        return a, b

    def candidates(self, domain: tuple[float, float]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Up to :data:`MAX_CUSTOM_PAIRS` pairs (seed, neighbour) from the generator, each checked
        by ``is_pair``; a generated input that is not a neighbour is a ``ValueError`` (the
        generator and the predicate disagree)."""
        if self.neighbours is None:
            return []
        out: list[tuple[np.ndarray, np.ndarray]] = []
        for i, seed in enumerate(self.seeds):
            start = as_input(seed, f"seeds[{i}]", domain)
            budget = MAX_CUSTOM_PAIRS - len(out)
            try:
                moves = list(islice(self.neighbours(start.copy()), budget))
            except Exception as exc:  # noqa: BLE001 -- the user's generator failed: say where
                raise ValueError(
                    f"neighbours(seeds[{i}]) raised {type(exc).__name__}: {exc}"
                ) from None
            for j, d in enumerate(moves):
                out.append(self.check_pair(start, d, f"neighbours(seeds[{i}])[{j}]", domain))
            if len(out) >= MAX_CUSTOM_PAIRS:
                break
        return out


def check_relation_pairs(
    relation: NeighbourRelation, pairs: Any, domain: tuple[float, float], name: str = "pairs"
) -> list[tuple[np.ndarray, np.ndarray]]:
    """A caller's pairs under ``relation``: an iterable (not a string or a mapping) of at most
    :data:`audit.neighbours.MAX_PAIRS` pairs (D, D'), each checked by ``relation.check_pair``;
    order kept."""
    if isinstance(pairs, str | bytes | Mapping) or not isinstance(pairs, Iterable):
        raise ValueError(
            f"{name} must be an iterable of pairs (data, data_prime), got {type(pairs).__name__}"
        )
    out: list[tuple[np.ndarray, np.ndarray]] = []
    for i, pair in enumerate(islice(pairs, MAX_PAIRS + 1)):
        if i >= MAX_PAIRS:
            raise ValueError(f"{name} must hold at most {MAX_PAIRS} pairs")
        if isinstance(pair, str | bytes | Mapping) or len_or_none(pair) != 2:
            raise ValueError(f"{name}[{i}] must be a pair (data, data_prime), got {pair!r:.80}")
        out.append(relation.check_pair(pair[0], pair[1], f"{name}[{i}]", domain))
    if not out:
        raise ValueError(f"{name} must contain at least one neighbouring pair")
    return out


def check_relation(relation: Any, adjacency: str, name: str = "relation") -> NeighbourRelation:
    """A relation object whose ``adjacency`` is the claim's (``adjacency``). For a claim naming a
    relation between data sets of records, only a relation of records
    (:class:`audit.record_spaces.Records`, or any relation object whose ``adjacency`` is one of
    :data:`reference.core.ADJACENCIES`) is accepted: query answers and custom relations are
    for claims naming them."""
    if not isinstance(relation, NeighbourRelation):
        raise ValueError(
            f"{name} must be an audit.relations.QueryAnswers or CustomRelation, an "
            "audit.record_spaces.Records (or an object with adjacency, name, check_pair and "
            f"candidates), got {type(relation).__name__}"
        )
    if adjacency not in OBJECT_RELATIONS and relation.adjacency not in ADJACENCIES:
        raise ValueError(
            f"{name} is for claims naming {OBJECT_RELATIONS}, or, for a claim naming "
            f"{adjacency!r}, a relation of records (audit.record_spaces.Records); {name} is a "
            f"{relation.adjacency!r} relation"
        )
    if relation.adjacency != adjacency:
        raise ValueError(
            f"{name} is a {relation.adjacency!r} relation but the claim names {adjacency!r}"
        )
    return relation


__all__ = [
    "MAX_CUSTOM_PAIRS",
    "MAX_QUERIES",
    "MAX_RECORDS",
    "NORMS",
    "CustomRelation",
    "NeighbourRelation",
    "QueryAnswers",
    "as_input",
    "check_inside",
    "check_relation",
    "check_relation_pairs",
]
