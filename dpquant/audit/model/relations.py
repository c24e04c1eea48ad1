"""Neighbour relations given to the auditor as objects: query answers, custom relations, and
data sets of records from a record space.

The relations between data sets of scalar records (``add_remove``, ``replace_one``, ``local``)
are the auditor's own (:mod:`dpquant.audit.model.neighbours`). A claim may also name a relation whose details
an object gives (:data:`dpquant.reference.core.OBJECT_RELATIONS`); the mechanism carries that object as
its ``relation`` attribute (:func:`dpquant.audit.from_callable` takes it), or the caller passes it to
:func:`dpquant.audit.audit_mechanism` as ``relation=``. A relation object has

* ``adjacency``: the claim's name for it (``"query_answers"`` or ``"custom"``, or, for records of
  a record space, ``"add_remove"`` or ``"replace_one"``);
* ``name``: how reports describe it;
* ``check_pair(d0, d1, name, domain)``: the pair as the mechanism receives it, or ``ValueError``
  (naming ``name``) when it is not a neighbouring pair inside ``domain``;
* ``candidates(domain)``: the neighbouring pairs the auditor searches when no pairs are given.

Pairs of a relation object keep their order (the inputs are vectors, not multisets).

**Record spaces** (:mod:`dpquant.audit.model.record_spaces`): records that are vectors in a box, bit vectors or
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

**What is checked.** Every data set a relation takes or gives is real numbers under the data
policy (:func:`real_array`; counted before anything is converted) inside the audit's domain. An
object of the caller's own class (anything but the classes here and
:class:`dpquant.audit.model.record_spaces.Records`; subclasses included) is wrapped by :func:`check_relation`
in a :class:`CheckedRelation`, which checks whatever its methods take and return: junk is a
``ValueError`` naming the relation and the method, before anything is drawn. Given or generated
pairs hold at most :data:`dpquant.audit.model.neighbours.MAX_PAIRS` pairs and
:data:`dpquant.audit.model.neighbours.MAX_PAIR_RECORDS` numbers; k, dim, elements and seeds are bounded when a
relation is built, so no family is ever astronomically large.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, ClassVar, Protocol, cast, runtime_checkable

import numpy as np

from dpquant.audit.model.neighbours import MAX_PAIR_RECORDS, MAX_PAIRS, len_or_none
from dpquant.audit.model.relation_inputs import (
    as_input,
    check_inside,
    check_name,
    count_numbers,
    describe,
    listed,
    real_array,
)
from dpquant.reference.core import ADJACENCIES, OBJECT_RELATIONS, Adjacency, check_claim_adjacency
from dpquant.reference.validation import (
    check_choice,
    check_domain,
    check_int,
    check_positive,
    read_attribute,
)

MAX_QUERIES = 10_000
"""Largest number of query answers k."""
MAX_CUSTOM_PAIRS = 1_000
"""Most pairs the auditor takes from a custom relation's neighbour generator."""
MAX_SEEDS = MAX_CUSTOM_PAIRS
"""Most seeds of a custom relation (each gives at least one pair)."""
NORMS = ("linf", "l1")
ANYWHERE = (-np.inf, np.inf)


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


# -- the library's relations -----------------------------------------------------------------------


@dataclass(frozen=True)
class QueryAnswers:
    """Inputs are vectors of ``k`` query answers; neighbours differ by at most ``sensitivity`` in
    ``norm`` (module docstring).

    The search's patterns with one odd answer have it first and, for k > 1, also last: a
    mechanism that reads the answers in order (the sparse vector technique) leaks most when the
    odd answer comes after all the others (SVT1 at ε = 0.1: the best event's log-ratio 0.098
    with the odd answer last, 0.040 first).

    Args:
        k: The number of answers, 1 to :data:`MAX_QUERIES`.
        sensitivity: The most two neighbours' answers differ by (Δ), positive.
        norm: ``"linf"`` (each answer moves by at most Δ) or ``"l1"`` (their total moves by at
            most Δ).

    Raises:
        ValueError: An argument out of range (named).
    """

    k: int
    sensitivity: float = 1.0
    norm: str = "linf"

    adjacency: ClassVar[str] = Adjacency.QUERY_ANSWERS
    checks_itself: ClassVar[bool] = True
    example: ClassVar[str] = "QueryAnswers(k=5)"

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int(self.k, "k", minimum=1, maximum=MAX_QUERIES))
        object.__setattr__(self, "sensitivity", check_positive(self.sensitivity, "sensitivity"))
        object.__setattr__(self, "norm", check_choice(self.norm, "norm", NORMS))

    @property
    def name(self) -> str:
        norm = "ℓ∞" if self.norm == "linf" else "ℓ1"
        return f"query answers (k = {self.k}, {norm} distance <= {self.sensitivity:g})"

    def distance(self, d0: Any, d1: Any) -> float:
        """‖d1 − d0‖ in the relation's norm.

        Args:
            d0: A vector of k answers.
            d1: Another.

        Returns:
            The distance (inf when the answers are too far apart for a float64).
        """
        a, b = (as_input(d, f"d{i}", ANYWHERE, (self.k,)) for i, d in enumerate((d0, d1)))
        with np.errstate(over="ignore"):
            diff = np.abs(b - a)
            return float(diff.max() if self.norm == "linf" else diff.sum())

    def check_pair(
        self, d0: Any, d1: Any, name: str, domain: tuple[float, float]
    ) -> tuple[np.ndarray, np.ndarray]:
        name = check_name(name)
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
        """The auditor's search pairs: StatDP's patterns scaled by Δ (module docstring).

        Args:
            domain: The interval the answers must lie in.

        Returns:
            The pairs inside ``domain`` (and finite: a Δ near the float range overflows some
                of them).
        """
        lo, hi = check_domain(domain, "domain")
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
    """Any neighbour relation, given by a predicate and, for the auditor's own search, a
    generator of neighbours.

    Args:
        is_pair: ``is_pair(d0, d1) -> bool`` decides a pair.
        neighbours: ``neighbours(d)`` yields neighbours of ``d`` for the auditor's own search;
            None: the caller gives the pairs.
        seeds: The data sets the search starts from (at most :data:`MAX_SEEDS`, checked now;
            they need ``neighbours``).
        label: The relation's name in reports.

    Raises:
        ValueError: ``is_pair`` or ``neighbours`` is not callable, a seed is refused, or seeds
            are given without ``neighbours``.
    """

    is_pair: Callable[[np.ndarray, np.ndarray], Any]
    neighbours: Callable[[np.ndarray], Iterable[Any]] | None = None
    seeds: Sequence[Any] = field(default=())
    label: str = "custom relation"

    adjacency: ClassVar[str] = Adjacency.CUSTOM
    checks_itself: ClassVar[bool] = True
    example: ClassVar[str] = "CustomRelation(is_pair, neighbours, seeds)"

    def __post_init__(self) -> None:
        if not callable(self.is_pair):
            raise ValueError(f"is_pair must be callable, got {type(self.is_pair).__name__}")
        if self.neighbours is not None and not callable(self.neighbours):
            raise ValueError(
                f"neighbours must be callable or None, got {type(self.neighbours).__name__}"
            )
        object.__setattr__(self, "seeds", _check_seeds(self.seeds))
        if self.seeds and self.neighbours is None:
            raise ValueError("seeds need neighbours(d) to search from them")
        check_name(self.label, "label")

    @property
    def name(self) -> str:
        return self.label

    def _decide(self, a: np.ndarray, b: np.ndarray, name: str) -> bool:
        try:
            verdict = self.is_pair(a.copy(), b.copy())
        except Exception as exc:  # noqa: BLE001 -- the user's predicate failed: say where
            raise ValueError(f"{name}: is_pair raised {describe(exc, 200)}") from None
        if not isinstance(verdict, bool | np.bool_):
            raise ValueError(f"{name}: is_pair must return a bool, got {describe(verdict)}")
        return bool(verdict)

    def check_pair(
        self, d0: Any, d1: Any, name: str, domain: tuple[float, float]
    ) -> tuple[np.ndarray, np.ndarray]:
        name = check_name(name)
        a = as_input(d0, f"{name}[0]", domain)
        b = as_input(d1, f"{name}[1]", domain)
        if a.shape == b.shape and np.array_equal(a, b):
            raise ValueError(f"{name} must be two different inputs (d0 = d1)")
        if not self._decide(a, b, name):
            raise ValueError(f"{name} must be neighbours under {self.name}: is_pair says no")
        return a, b

    def candidates(self, domain: tuple[float, float]) -> list[tuple[np.ndarray, np.ndarray]]:
        """The auditor's search pairs: (seed, neighbour) from the generator.

        Args:
            domain: The interval the inputs must lie in.

        Returns:
            Up to :data:`MAX_CUSTOM_PAIRS` pairs, each checked by ``is_pair``, until they hold
                :data:`dpquant.audit.model.neighbours.MAX_PAIR_RECORDS` numbers.

        Raises:
            ValueError: A generated input is not a neighbour (the generator and the predicate
                disagree), or the generator raises or returns no iterable.
        """
        domain = check_domain(domain, "domain")
        if self.neighbours is None:
            return []
        out: list[tuple[np.ndarray, np.ndarray]] = []
        numbers = 0
        for i, seed in enumerate(self.seeds):
            start = as_input(seed, f"seeds[{i}]", domain)
            for j, d in enumerate(self._neighbours_of(start, i, MAX_CUSTOM_PAIRS - len(out))):
                a, b = self.check_pair(start, d, f"neighbours(seeds[{i}])[{j}]", domain)
                numbers += a.size + b.size
                if numbers > MAX_PAIR_RECORDS:
                    return out
                out.append((a, b))
            if len(out) >= MAX_CUSTOM_PAIRS:
                break
        return out

    def _neighbours_of(self, start: np.ndarray, i: int, budget: int) -> list[Any]:
        """At most ``budget`` neighbours of seed ``i`` from the generator, as it gives them."""
        where = f"neighbours(seeds[{i}])"
        assert self.neighbours is not None
        try:
            moves = self.neighbours(start.copy())
        except Exception as exc:  # noqa: BLE001 -- the user's generator failed: say where
            raise ValueError(f"{where} raised {describe(exc, 200)}") from None
        if isinstance(moves, str | bytes | Mapping) or not isinstance(moves, Iterable):
            raise ValueError(f"{where} must return an iterable of data sets, got {describe(moves)}")
        try:
            return list(islice(moves, budget))
        except Exception as exc:  # noqa: BLE001 -- iterating the user's generator failed
            raise ValueError(f"{where} raised {describe(exc, 200)} while iterated") from None


def _check_seeds(seeds: Any) -> tuple[Any, ...]:
    """A custom relation's seeds: at most :data:`MAX_SEEDS` data sets, each finite reals under
    the data policy (checked against the audit's domain when searched)."""
    out = tuple(listed(seeds, "seeds", MAX_SEEDS, "data sets"))
    for i, seed in enumerate(out):
        as_input(seed, f"seeds[{i}]", ANYWHERE)
    return out


# -- pairs -----------------------------------------------------------------------------------------


def _unpack(pair: Any, name: str) -> tuple[Any, Any]:
    """The two data sets of a pair (a sequence or an array of two, in order: not a set)."""
    if isinstance(pair, str | bytes | Mapping | Set) or len_or_none(pair) != 2:
        raise ValueError(f"{name} must be a pair (data, data_prime), got {describe(pair)}")
    try:
        d0, d1 = pair
    except Exception:  # noqa: BLE001 -- an object of length 2 that cannot be unpacked
        raise ValueError(
            f"{name} must be a pair (data, data_prime), got {describe(pair)}"
        ) from None
    return d0, d1


def _checked_pairs(
    relation: NeighbourRelation, items: list[Any], domain: tuple[float, float], name: str
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each item a pair that ``relation.check_pair`` accepts, at most
    :data:`dpquant.audit.model.neighbours.MAX_PAIR_RECORDS` numbers in all; order kept."""
    out: list[tuple[np.ndarray, np.ndarray]] = []
    numbers = 0
    for i, pair in enumerate(items):
        where = f"{name}[{i}]"
        a, b = relation.check_pair(*_unpack(pair, where), where, domain)
        numbers += a.size + b.size
        if numbers > MAX_PAIR_RECORDS:
            raise ValueError(f"{name} must hold at most {MAX_PAIR_RECORDS} numbers in all")
        out.append((a, b))
    return out


def check_relation_pairs(
    relation: NeighbourRelation, pairs: Any, domain: tuple[float, float], name: str = "pairs"
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Check a caller's pairs under a relation.

    Args:
        relation: The relation (checked by :func:`as_relation`).
        pairs: An iterable (not a string or a mapping) of at least one and at most
            :data:`dpquant.audit.model.neighbours.MAX_PAIRS` pairs (D, D'), at most
            :data:`dpquant.audit.model.neighbours.MAX_PAIR_RECORDS` numbers in all.
        domain: The interval the inputs must lie in.
        name: The argument named in errors.

    Returns:
        The pairs, each checked by ``relation.check_pair``, order kept.

    Raises:
        ValueError: A pair is refused, or the pairs break one of these limits.
    """
    name = check_name(name)
    domain = check_domain(domain, "domain")
    relation = as_relation(relation)
    out = _checked_pairs(relation, listed(pairs, name), domain, name)
    if not out:
        raise ValueError(f"{name} must contain at least one neighbouring pair")
    return out


# -- relations of the caller's own class ------------------------------------------------------------


@dataclass(frozen=True)
class CheckedRelation:
    """A relation object of the caller's own class, whose answers are checked (module
    docstring).

    :meth:`check_pair` hands it finite real arrays inside the domain and checks the pair it
    returns; :meth:`candidates` checks every pair it gives by :meth:`check_pair`. Anything else
    it raises or returns is a ``ValueError`` naming ``owner`` and the method. Built by
    :func:`as_relation`.

    Attributes:
        inner: The caller's object.
        owner: Its name in messages.
        adjacency: Its ``adjacency``, read once.
        name: Its ``name``, read once.
    """

    inner: Any
    owner: str
    adjacency: str
    name: str

    checks_itself: ClassVar[bool] = True

    def _call(self, method: str, *args: Any) -> Any:
        try:
            return getattr(self.inner, method)(*args)
        except Exception as exc:  # noqa: BLE001 -- the caller's method failed: say which
            raise ValueError(f"{self.owner}.{method} raised {describe(exc, 200)}") from None

    def check_pair(
        self, d0: Any, d1: Any, name: str, domain: tuple[float, float]
    ) -> tuple[np.ndarray, np.ndarray]:
        name = check_name(name)
        domain = check_domain(domain, "domain")
        a, b = as_input(d0, f"{name}[0]", domain), as_input(d1, f"{name}[1]", domain)
        try:
            got = self.inner.check_pair(a.copy(), b.copy(), name, domain)
        except ValueError as exc:  # the relation's refusal, said with the caller's name
            raise ValueError(
                f"{name}: {self.owner}.check_pair refuses it: {describe(exc, 200)}"
            ) from None
        except Exception as exc:  # noqa: BLE001 -- the caller's method failed: say which
            raise ValueError(
                f"{name}: {self.owner}.check_pair raised {describe(exc, 200)}"
            ) from None
        what = f"{self.owner}.check_pair({name})"
        x, y = (as_input(d, f"{what}[{k}]", domain) for k, d in enumerate(_unpack(got, what)))
        if x.shape == y.shape and np.array_equal(x, y):
            raise ValueError(f"{what} must return two different data sets, got d0 = d1")
        return x, y

    def candidates(self, domain: tuple[float, float]) -> list[tuple[np.ndarray, np.ndarray]]:
        domain = check_domain(domain, "domain")
        got = self._call("candidates", domain)
        what = f"{self.owner}.candidates()"
        if not isinstance(got, list | tuple):
            raise ValueError(f"{what} must return a list of pairs (d0, d1), got {describe(got)}")
        if len(got) > MAX_PAIRS:
            raise ValueError(f"{what} must return at most {MAX_PAIRS} pairs, got {len(got)}")
        return _checked_pairs(self, list(got), domain, what)


def as_relation(relation: Any, name: str = "relation") -> NeighbourRelation:
    """A relation object as the auditor uses it.

    Args:
        relation: One of the library's relation objects, or any other object with
            ``adjacency`` and ``name`` (strings) and ``check_pair`` and ``candidates``
            (callable).
        name: The argument named in errors.

    Returns:
        The library's object as it is; another object wrapped as a :class:`CheckedRelation`.

    Raises:
        ValueError: A class, or anything else.
    """
    name = check_name(name)
    if isinstance(relation, type):
        example = vars(relation).get("example")
        example = example if isinstance(example, str) else f"{relation.__name__}(...)"
        raise ValueError(
            f"{name} must be a relation object, got the class {relation.__name__}: pass an "
            f"instance, e.g. {example}"
        )
    if vars(type(relation)).get("checks_itself") is True:  # the library's classes, not subclasses
        return cast(NeighbourRelation, relation)
    parts = {
        p: read_attribute(relation, p, name, None)
        for p in ("adjacency", "name", "check_pair", "candidates")
    }
    if not (callable(parts["check_pair"]) and callable(parts["candidates"])):
        raise ValueError(
            f"{name} must be a dpquant.audit.model.relations.QueryAnswers or CustomRelation, an "
            "dpquant.audit.model.record_spaces.Records (or an object with adjacency, name, check_pair and "
            f"candidates), got {type(relation).__name__}"
        )
    if not isinstance(parts["adjacency"], str):
        raise ValueError(
            f"{name}.adjacency must be a string (the relation the claim names), got "
            f"{describe(parts['adjacency'])}"
        )
    label = check_name(parts["name"], f"{name}.name")
    return CheckedRelation(relation, name, parts["adjacency"], label)


def check_relation(relation: Any, adjacency: str, name: str = "relation") -> NeighbourRelation:
    """Check a relation object for a claim.

    For a claim naming a relation between data sets of records, only a relation of records
    (:class:`dpquant.audit.model.record_spaces.Records`, or any relation object whose ``adjacency``
    is one of :data:`dpquant.reference.core.ADJACENCIES`) is accepted: query answers and custom
    relations are for claims naming them.

    Args:
        relation: The object (:func:`as_relation`).
        adjacency: The claim's relation; the object's ``adjacency`` must be it.
        name: The argument named in errors.

    Returns:
        The relation as the auditor uses it.

    Raises:
        ValueError: The object is refused, or its relation is not the claim's.
    """
    adjacency = check_claim_adjacency(adjacency, "adjacency")
    relation = as_relation(relation, name)
    if adjacency not in OBJECT_RELATIONS and relation.adjacency not in ADJACENCIES:
        raise ValueError(
            f"{name} is for claims naming {OBJECT_RELATIONS}, or, for a claim naming "
            f"{adjacency!r}, a relation of records (dpquant.audit.model.record_spaces.Records); {name} is a "
            f"{relation.adjacency!r} relation"
        )
    if relation.adjacency != adjacency:
        raise ValueError(
            f"{name} is a {relation.adjacency!r} relation but the claim names {adjacency!r}"
        )
    return cast(NeighbourRelation, relation)


__all__ = [
    "MAX_CUSTOM_PAIRS",
    "MAX_QUERIES",
    "MAX_SEEDS",
    "NORMS",
    "CheckedRelation",
    "CustomRelation",
    "NeighbourRelation",
    "QueryAnswers",
    "as_input",
    "as_relation",
    "check_inside",
    "check_name",
    "check_relation",
    "check_relation_pairs",
    "count_numbers",
    "listed",
    "real_array",
]
