"""Record spaces: data sets whose records are vectors, bit vectors or elements of a finite set.

The auditor's own relations take data sets of *scalar* records (:mod:`dpquant.audit.model.neighbours`). A
mechanism whose records are vectors declares its **record space** and audits under
``Records(space, adjacency)``, a relation object (:mod:`dpquant.audit.model.relations`) for a claim naming
``"add_remove"`` or ``"replace_one"`` (local DP has no data set of records to search):

* :class:`Box` -- vectors in [low, high]^dim (``low``, ``high`` numbers or one per coordinate);
* :class:`FiniteSet` -- the elements of a finite set of numbers, or of vectors of one length;
* :class:`BitVectors` -- vectors in {0, 1}^dim.

**Data sets** are lists of records: a data set of n records is an (n, dim) float array, which is
what the mechanism receives (also when dim = 1). Where dim = 1, a flat sequence of n numbers is
read as n records (and a number as one record); where dim > 1, a flat sequence is refused (it
could be one record or several), and the empty data set may be written ``[]``. Two data sets are
neighbours as *multisets* of records, as for scalar records: under add/remove one holds exactly
one record more than the other and every other record (with its multiplicity) in both; under
replace-one both hold n >= 1 records and exactly one record differs. The order of the records
does not matter to the relation (the pairs keep the order given, and the mechanism receives it).

**Search** (:meth:`Records.candidates`). Each space gives at most :data:`MAX_PROBES` probe
records, the records a sensitivity bound is usually tight on: the box's corners all-low and
all-high, its centre, the half-high corner and the one-hot-high corners (one coordinate high,
the rest low; the first :data:`MAX_ONE_HOT` coordinates); for bit vectors the zero and all-one
vectors, the alternating, half and one-hot vectors; for a finite set its elements (beyond
:data:`MAX_PROBES`, the smallest and largest by coordinate sum and an even spread of the rest).
StatDP's idea (Ding et al., CCS 2018, Sec. 5: a few extreme input patterns find most violations)
carried to records: the pairs are

* replace-one: every pair of single-record data sets ({x}, {y}) over the probes; then data sets
  of n in :data:`REPLACE_SIZES` records, n − 1 of them shared (all equal to the first or to the
  second probe, or a spread of the probes) and one record x replaced by y;
* add/remove: the empty data set against each probe record; then m in :data:`ADD_SIZES` shared
  records (the same three kinds) against them plus one probe record.

The sized families are interleaved (one pair of each in turn) and the list is cut at
:data:`MAX_CANDIDATES` pairs, so every size is searched; the pairs are deterministic, and each
is listed once (as multisets, and for replace-one in one direction only: the auditor tests both
directions of every event). Probes outside the audit's domain (a range every coordinate must
lie in) are left out.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from dpquant.audit.model.neighbours import len_or_none
from dpquant.audit.model.relation_inputs import (
    check_inside,
    check_name,
    describe,
    listed,
    real_array,
)
from dpquant.reference.core import Adjacency
from dpquant.reference.validation import check_choice, check_domain, check_int

MAX_DIM = 1_000
"""Largest number of coordinates of a record."""
MAX_ELEMENTS = 1_000
"""Most elements of a :class:`FiniteSet`."""
MAX_PROBES = 12
"""Most probe records of a space."""
MAX_ONE_HOT = 8
"""One-hot probes: on the first this many coordinates."""
MAX_CANDIDATES = 200
"""Most pairs :meth:`Records.candidates` gives."""
REPLACE_SIZES = (2, 3, 5)
"""Sizes of the replace-one data sets with shared records (besides single records)."""
ADD_SIZES = (1, 2, 4)
"""Shared records of the add/remove pairs (besides the empty data set)."""
RECORD_ADJACENCIES = ("add_remove", "replace_one")
"""The relations :class:`Records` takes."""


# -- records as arrays -----------------------------------------------------------------------------


def as_records(x: Any, name: str, dim: int, *, finite: bool = True) -> np.ndarray:
    """A data set of records of ``dim`` numbers as a new (n, dim) float array.

    Args:
        x: The records: real numbers under the data policy
            (:func:`dpquant.audit.model.relations.real_array`), at most
            :data:`dpquant.audit.model.relation_inputs.MAX_RECORDS` numbers; a flat sequence is n records
            only where dim = 1 (module docstring).
        name: The argument named in errors.
        dim: The numbers in a record.
        finite: Infinities are refused (NaN always is).

    Returns:
        A new (n, dim) float array.

    Raises:
        ValueError: ``x`` breaks one of these (naming ``name``).
    """
    dim = check_int(dim, "dim", minimum=1, maximum=MAX_DIM)
    shape_hint = f"a sequence of records, each {dim} real number{'s' if dim > 1 else ''}"
    if isinstance(x, str | bytes | Mapping | bool | np.bool_):
        raise ValueError(f"{name} must be {shape_hint}, got {describe(x)}")
    arr = real_array(x, name, allow_inf=not finite)
    if arr.ndim == 0 and dim == 1:
        arr = arr.reshape(1, 1)
    elif arr.ndim == 1 and (arr.size == 0 or dim == 1):
        arr = arr.reshape(-1, dim)
    if arr.ndim != 2 or arr.shape[1] != dim:
        raise ValueError(f"{name} must be {shape_hint} (shape (n, {dim})), got shape {arr.shape}")
    return arr + 0.0  # −0.0 is 0.0: records are compared by value


def _rows(records: np.ndarray) -> list[tuple[float, ...]]:
    """The records as hashable rows (−0.0 as 0.0)."""
    return [tuple(r) for r in (records + 0.0).tolist()]


def _unique_rows(rows: np.ndarray) -> np.ndarray:
    """The distinct rows in their first order."""
    keep = list(dict.fromkeys(_rows(rows)))
    return np.array(keep, dtype=float).reshape(len(keep), rows.shape[1])


def _fmt(v: float) -> str:
    return f"{v:g}"


# -- the spaces ------------------------------------------------------------------------------------


def _bound(value: Any, name: str, dim: int) -> tuple[float, ...]:
    """``low`` or ``high``: a finite number, or ``dim`` finite numbers."""
    if isinstance(value, str | bytes | Mapping | bool | np.bool_):
        raise ValueError(
            f"{name} must be a finite number or {dim} finite numbers, got {describe(value)}"
        )
    arr = real_array(value, name, limit=dim)
    if arr.ndim == 0:
        arr = np.full(dim, float(arr))
    if arr.shape != (dim,):
        raise ValueError(
            f"{name} must be a number or {dim} numbers (one per coordinate), got shape {arr.shape}"
        )
    return tuple((arr + 0.0).tolist())


@dataclass(frozen=True)
class Box:
    """Records in the box [low, high]^dim.

    Args:
        dim: The numbers in a record, 1 to :data:`MAX_DIM`.
        low: The lower corner: a finite number, or one per coordinate.
        high: The upper corner, likewise; low < high in every coordinate.

    Raises:
        ValueError: An argument out of range (named), or high − low overflows a float64.
    """

    dim: int
    low: float | Sequence[float] = 0.0
    high: float | Sequence[float] = 1.0

    def __post_init__(self) -> None:
        dim = check_int(self.dim, "dim", minimum=1, maximum=MAX_DIM)
        object.__setattr__(self, "dim", dim)
        low, high = _bound(self.low, "low", dim), _bound(self.high, "high", dim)
        bad = [i for i in range(dim) if not low[i] < high[i]]
        if bad:
            i = bad[0]
            raise ValueError(
                f"low must be below high in every coordinate, got low[{i}] = {low[i]!r} >= "
                f"high[{i}] = {high[i]!r}"
            )
        if not all(math.isfinite(h - lo) for lo, h in zip(low, high, strict=True)):
            raise ValueError("high - low must fit a float64 in every coordinate")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    @property
    def lows(self) -> np.ndarray:
        return np.array(self.low, dtype=float)

    @property
    def highs(self) -> np.ndarray:
        return np.array(self.high, dtype=float)

    @property
    def describe(self) -> str:
        low, high = self.lows, self.highs
        if np.all(low == low[0]) and np.all(high == high[0]):
            side = f"[{_fmt(low[0])}, {_fmt(high[0])}]"
            return side if self.dim == 1 else f"{side}^{self.dim}"
        if self.dim <= 4:
            return " × ".join(f"[{_fmt(a)}, {_fmt(b)}]" for a, b in zip(low, high, strict=True))
        return f"a box in R^{self.dim} (coordinates in [{_fmt(low.min())}, {_fmt(high.max())}])"

    def contains(self, records: Any) -> np.ndarray:
        """Which records lie in the box.

        Args:
            records: An (n, dim) array of records (infinities allowed, NaN refused).

        Returns:
            n booleans.
        """
        r = as_records(records, "records", self.dim, finite=False)
        return np.asarray(np.all((r >= self.lows) & (r <= self.highs), axis=1), dtype=bool)

    def probes(self) -> np.ndarray:
        """All-low, all-high, the centre, the half-high corner (first ⌈dim/2⌉ coordinates high)
        and the one-hot-high corners, one per row (module docstring)."""
        low, high = self.lows, self.highs
        rows = [low, high, low / 2 + high / 2]
        if self.dim >= 2:
            half = low.copy()
            half[: (self.dim + 1) // 2] = high[: (self.dim + 1) // 2]
            rows.append(half)
        for i in range(min(self.dim, MAX_ONE_HOT)):
            one = low.copy()
            one[i] = high[i]
            rows.append(one)
        return _unique_rows(np.array(rows))[:MAX_PROBES]


@dataclass(frozen=True)
class BitVectors:
    """Records in {0, 1}^dim.

    Args:
        dim: The bits in a record, 1 to :data:`MAX_DIM`.

    Raises:
        ValueError: ``dim`` out of range.
    """

    dim: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "dim", check_int(self.dim, "dim", minimum=1, maximum=MAX_DIM))

    @property
    def describe(self) -> str:
        return "{0, 1}" if self.dim == 1 else f"{{0, 1}}^{self.dim}"

    def contains(self, records: Any) -> np.ndarray:
        """Which records are bit vectors.

        Args:
            records: An (n, dim) array of records (infinities allowed, NaN refused).

        Returns:
            n booleans.
        """
        r = as_records(records, "records", self.dim, finite=False)
        return np.asarray(np.all((r == 0) | (r == 1), axis=1), dtype=bool)

    def probes(self) -> np.ndarray:
        """Zeros, ones, the alternating vector (1, 0, 1, ...), the half vector (ones on the first
        ⌈dim/2⌉ coordinates) and the one-hot vectors, one per row."""
        d = self.dim
        rows = [np.zeros(d), np.ones(d), (np.arange(d) % 2 == 0).astype(float)]
        rows.append((np.arange(d) < (d + 1) // 2).astype(float))
        rows += [np.eye(1, d, i)[0] for i in range(min(d, MAX_ONE_HOT))]
        return _unique_rows(np.array(rows))[:MAX_PROBES]


@dataclass(frozen=True)
class FiniteSet:
    """Records are the elements of a finite set.

    Args:
        elements: Numbers, or vectors of one length (at most :data:`MAX_DIM` coordinates);
            finite, at least one and at most :data:`MAX_ELEMENTS` of them. Stored as a tuple
            of distinct rows (tuples of floats) in their first order.

    Raises:
        ValueError: The elements break one of these.
    """

    elements: Sequence[Any]

    def __post_init__(self) -> None:
        object.__setattr__(self, "elements", tuple(_rows(_check_elements(self.elements))))

    @property
    def dim(self) -> int:
        return len(self.elements[0])

    @property
    def table(self) -> np.ndarray:
        """The elements, one per row."""
        return np.array(self.elements, dtype=float)

    @property
    def describe(self) -> str:
        k = len(self.elements)
        if self.dim == 1:
            if k <= 8:
                return "{" + ", ".join(_fmt(e[0]) for e in self.elements) + "}"
            return f"a set of {k} numbers"
        return f"a set of {k} vector{'s' if k > 1 else ''} of length {self.dim}"

    def contains(self, records: Any) -> np.ndarray:
        """Which records are elements of the set.

        Args:
            records: An (n, dim) array of records (infinities allowed, NaN refused).

        Returns:
            n booleans.
        """
        r = as_records(records, "records", self.dim, finite=False)
        known = set(self.elements)
        return np.array([row in known for row in _rows(r)], dtype=bool)

    def probes(self) -> np.ndarray:
        """The elements, smallest and largest coordinate sum first; beyond
        :data:`MAX_PROBES`, those two and an even spread of the others (in order of sum)."""
        table = self.table
        order = sorted(range(len(table)), key=lambda i: (float(table[i].sum()), self.elements[i]))
        if len(order) > MAX_PROBES:
            picks = np.unique(np.linspace(0, len(order) - 1, MAX_PROBES).round().astype(int))
            order = [order[int(i)] for i in picks]
        if len(order) > 1:
            order = [order[0], order[-1], *order[1:-1]]
        return table[order]


def _check_elements(elements: Any) -> np.ndarray:
    """A finite set's elements as distinct rows of a (k, dim) array (class docstring)."""
    what = "numbers, or vectors of one length,"
    items = listed(elements, "elements", MAX_ELEMENTS, "records")
    if not items:
        raise ValueError("elements must hold at least one record (the set is empty)")
    if len({len_or_none(e) for e in items}) > 1:
        raise ValueError(f"elements must be {what} all of the same length (mixed lengths or kinds)")
    arr = real_array(items, "elements", limit=MAX_ELEMENTS * MAX_DIM)
    if arr.ndim == 1:
        arr = arr.reshape(-1, 1)
    if arr.ndim != 2 or not 1 <= arr.shape[1] <= MAX_DIM:
        raise ValueError(
            f"elements must be {what} each of 1 to {MAX_DIM} numbers, got shape {arr.shape}"
        )
    return _unique_rows(arr)


RecordSpace = Box | FiniteSet | BitVectors
"""A record space (module docstring)."""
SPACES = (Box, FiniteSet, BitVectors)


# -- the relation ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Records:
    """Data sets of records from a space, neighbours under an adjacency as multisets: a
    relation object (:mod:`dpquant.audit.model.relations`) for a claim naming that adjacency (module
    docstring).

    Args:
        space: A :class:`Box`, :class:`FiniteSet` or :class:`BitVectors`.
        adjacency: ``"add_remove"`` or ``"replace_one"`` (the space must then hold at least
            two records).

    Raises:
        ValueError: An argument is refused (named).
    """

    space: RecordSpace
    adjacency: str = "replace_one"

    checks_itself: ClassVar[bool] = True  # taken as it is by dpquant.audit.model.relations.check_relation
    example: ClassVar[str] = "Records(Box(3), 'replace_one')"

    def __post_init__(self) -> None:
        if type(self.space) not in SPACES:  # a subclass's probes might be anything
            raise ValueError(
                "space must be a dpquant.audit.model.record_spaces.Box, FiniteSet or BitVectors, got "
                f"{type(self.space).__name__}"
            )
        adjacency = Adjacency(check_choice(self.adjacency, "adjacency", RECORD_ADJACENCIES))
        object.__setattr__(self, "adjacency", adjacency)
        if adjacency == "replace_one" and len(self.space.probes()) < 2:
            raise ValueError(
                f"space must hold at least two records for replace_one, got {self.space!r:.80}"
            )

    @property
    def dim(self) -> int:
        return self.space.dim

    @property
    def name(self) -> str:
        move = "replace one" if self.adjacency == "replace_one" else "add or remove one"
        return f"records in {self.space.describe} ({move})"

    def check_data(self, data: Any, name: str, domain: tuple[float, float]) -> np.ndarray:
        """Check a data set of records in the space.

        Args:
            data: The records.
            name: The argument named in errors.
            domain: The interval every coordinate must lie in.

        Returns:
            A new (n, dim) float array in the order given.

        Raises:
            ValueError: A record is not in the space or outside ``domain`` (naming ``name``).
        """
        name = check_name(name)
        domain = check_domain(domain, "domain")
        arr = as_records(data, name, self.dim)
        inside = self.space.contains(arr)
        if not inside.all():
            i = int(np.argmin(inside))
            raise ValueError(
                f"{name} must hold records in {self.space.describe}: record {i} is {_short(arr[i])}"
            )
        return check_inside(arr, name, domain)

    def check_pair(
        self, d0: Any, d1: Any, name: str, domain: tuple[float, float]
    ) -> tuple[np.ndarray, np.ndarray]:
        """Check a pair of data sets of records.

        Args:
            d0: A data set of records.
            d1: Its neighbour.
            name: The argument named in errors.
            domain: The interval every coordinate must lie in.

        Returns:
            The pair as the mechanism receives it ((n, dim) arrays, order kept).

        Raises:
            ValueError: A data set is not in the space, or the pair are not neighbours as
                multisets (module docstring), naming ``name``.
        """
        name = check_name(name)
        a = self.check_data(d0, f"{name}[0]", domain)
        b = self.check_data(d1, f"{name}[1]", domain)
        ca, cb = Counter(_rows(a)), Counter(_rows(b))
        if ca == cb:
            raise ValueError(f"{name} must be two different data sets (d0 = d1 as multisets)")
        if self.adjacency == "add_remove":
            small, big = (ca, cb) if len(a) < len(b) else (cb, ca)
            ok = abs(len(a) - len(b)) == 1 and not small - big
        else:
            ok = len(a) == len(b) and sum((ca - cb).values()) == 1
        if not ok:
            raise ValueError(
                f"{name} must be neighbours under {self.name}: {len(a)} and {len(b)} records, "
                f"{sum((ca - cb).values())} of d0 not in d1 and {sum((cb - ca).values())} of d1 "
                "not in d0 (as multisets)"
            )
        return a, b

    def candidates(self, domain: tuple[float, float]) -> list[tuple[np.ndarray, np.ndarray]]:
        """The auditor's search pairs over the space's probes (module docstring).

        Args:
            domain: The interval every coordinate must lie in.

        Returns:
            At most :data:`MAX_CANDIDATES` neighbouring pairs.
        """
        lo, hi = check_domain(domain, "domain")
        probes = self.space.probes()
        probes = probes[np.all((probes >= lo) & (probes <= hi), axis=1)]
        p = len(probes)
        if p < (2 if self.adjacency == "replace_one" else 1):
            return []
        bases: list[Callable[[int], list[int]]] = [
            lambda m: [0] * m,
            lambda m: [1 % p] * m,
            lambda m: [(2 + k) % p for k in range(m)],
        ]
        Move = tuple[list[int], int | None, int]  # (shared probes, x or None, y)
        first: list[Move]
        groups: list[list[Move]] = []
        if self.adjacency == "replace_one":
            moves = [(i, j) for i in range(p) for j in range(i + 1, p)]
            first = [([], i, j) for i, j in moves]
            for n in REPLACE_SIZES:
                groups += [[(base(n - 1), i, j) for i, j in moves] for base in bases]
        else:
            first = [([], None, j) for j in range(p)]
            for m in ADD_SIZES:
                groups += [[(base(m), None, j) for j in range(p)] for base in bases]
        out: list[tuple[np.ndarray, np.ndarray]] = []
        seen: set[Any] = set()
        for shared, x, y in [*first, *_interleave(groups)]:
            d0 = probes[shared + ([] if x is None else [x])].reshape(-1, self.dim)
            d1 = probes[[*shared, y]]
            key = _pair_key(d0, d1)
            if key not in seen:
                seen.add(key)
                out.append((d0.copy(), d1.copy()))
                if len(out) >= MAX_CANDIDATES:
                    break
        return out


def _interleave(groups: list[list[Any]]) -> list[Any]:
    """One item of each group in turn."""
    longest = max((len(g) for g in groups), default=0)
    return [g[k] for k in range(longest) for g in groups if k < len(g)]


def _pair_key(d0: np.ndarray, d1: np.ndarray) -> tuple[Any, Any]:
    """The pair as two multisets, unordered."""
    a, b = tuple(sorted(_rows(d0))), tuple(sorted(_rows(d1)))
    return (a, b) if a <= b else (b, a)


def _short(row: np.ndarray) -> str:
    values = row.tolist()
    return str(values) if len(values) <= 10 else f"[{len(values)} numbers: {values[:5]} ...]"


__all__ = [
    "ADD_SIZES",
    "MAX_CANDIDATES",
    "MAX_DIM",
    "MAX_ELEMENTS",
    "MAX_ONE_HOT",
    "MAX_PROBES",
    "RECORD_ADJACENCIES",
    "REPLACE_SIZES",
    "SPACES",
    "BitVectors",
    "Box",
    "FiniteSet",
    "RecordSpace",
    "Records",
    "as_records",
]
