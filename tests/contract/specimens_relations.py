"""Contract specimens and fuzz entries of the neighbour relations and record spaces (issue 34;
see :mod:`harness`): ``dpquant/audit/model/relations.py`` (``QueryAnswers``, ``CustomRelation``, the data
checks, ``check_relation`` and ``check_relation_pairs``) and ``dpquant/audit/model/record_spaces.py``
(``Box``, ``BitVectors``, ``FiniteSet``, ``Records``, ``as_records``), each called directly and
through ``from_callable`` and ``audit_mechanism``.

Beside the pools of :mod:`harness`, the relations get their own hostile values: relation
classes instead of instances, objects of the caller's own class whose methods return junk or
raise (:class:`Duck`), custom relations whose ``is_pair`` and ``neighbours`` do, sizes that
would be astronomically large (``range(10**12)``, ten million elements), and pairs of strings,
booleans, Decimals, NaN and of the wrong shape. Every audit is tiny (two query answers or records
of one coordinate, 200 samples): the file's sweep takes under ten seconds on one core."""

from __future__ import annotations

import math
from decimal import Decimal
from itertools import count
from typing import Any

import numpy as np
from harness import Entry, Specimen, check_sane

from dpquant.audit import AuditReport, audit_mechanism, from_callable
from dpquant.audit.model.record_spaces import BitVectors, Box, FiniteSet, Records, as_records
from dpquant.audit.model.relation_inputs import as_input
from dpquant.audit.model.relations import (
    CustomRelation,
    QueryAnswers,
    check_relation,
    check_relation_pairs,
)
from dpquant.audit.model.wrap import CallableMechanism
from dpquant.reference.core import PrivacyClaim

QUERIES = PrivacyClaim(0.5, 0.0, "query_answers")
CUSTOM = PrivacyClaim(0.5, 0.0, "custom")
REPLACE = PrivacyClaim(0.5, 0.0, "replace_one")
ANYWHERE = (-math.inf, math.inf)
DOMAIN = (-10.0, 10.0)
PAIR = [([0.0, 0.0], [1.0, 0.0])]
RECORD_PAIR = [([[0.25], [0.5]], [[0.25], [0.75]])]


def noisy_sum(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """The sum of the inputs + Laplace(8), vectorised: ε-DP at 0.5 for two answers under ℓ∞
    (Δ 2), for bits differing in one place, and for records in [0, 1] under replace-one."""
    return float(np.sum(data)) + rng.laplace(scale=8.0, size=size)


def hamming_one(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(a.shape == b.shape and np.sum(a != b) == 1)


def flips(d: np.ndarray) -> list[np.ndarray]:
    return [np.where(np.arange(len(d)) == i, 1 - d, d) for i in range(len(d))]


class Huge(list):
    """A long list whose repr is short (the harness names every hostile value it tries)."""

    def __repr__(self) -> str:
        return f"<a list of {len(self)} items>"


# -- hostile relations -------------------------------------------------------------------------


class Duck:
    """A relation object of the caller's own class (ℓ∞ distance <= 1 on two answers) whose
    ``candidates`` returns ``candidates`` (called when callable) and whose ``check_pair``
    returns ``check_pair(d0, d1)`` when given; ``adjacency`` and ``name`` as given."""

    def __init__(
        self,
        candidates: Any = PAIR,
        check_pair: Any = None,
        adjacency: Any = "query_answers",
        name: Any = "duck",
    ) -> None:
        self._candidates, self._check_pair = candidates, check_pair
        self.adjacency, self.name = adjacency, name

    def check_pair(self, d0: Any, d1: Any, name: str, domain: Any) -> Any:
        if self._check_pair is not None:
            return self._check_pair(d0, d1)
        if np.abs(np.asarray(d0) - np.asarray(d1)).max() > 1:
            raise ValueError(f"{name} are not neighbours")
        return d0, d1

    def candidates(self, domain: Any) -> Any:
        return self._candidates() if callable(self._candidates) else self._candidates

    def __repr__(self) -> str:
        return f"Duck({self._candidates!r:.40}, {self._check_pair!r:.40}, {self.adjacency!r})"


class Unreadable(Duck):
    """A duck whose ``name`` property raises."""

    @property
    def name(self) -> str:
        raise RuntimeError("no name")

    @name.setter
    def name(self, value: Any) -> None:
        pass


class BrokenQueries(QueryAnswers):
    """A subclass of the library's relation whose candidates are None."""

    def candidates(self, domain: Any) -> Any:
        return None


def _raises(exc: Exception) -> Any:
    def fail(*args: Any) -> Any:
        raise exc

    return fail


DUCKS: tuple[Any, ...] = (
    Duck(),
    Duck(lambda: None),
    Duck(lambda: 5),
    Duck("ab"),
    Duck({1: 2}),
    Duck(lambda: (p for p in PAIR)),
    Duck(np.zeros((1, 2, 2))),
    Duck([(1,)]),
    Duck([([0], [1], [2])]),
    Duck([(np.array(["1", "2"]), np.array(["1", "3"]))]),
    Duck([([math.nan, 0.0], [0.0, 0.0])]),
    Duck([([math.inf, 0.0], [0.0, 0.0])]),
    Duck([([True, False], [1, 1])]),
    Duck([([0.0, 0.0], [0.0, 0.0])]),
    Duck([([0.0, 0.0], [5.0, 0.0])]),
    Duck(lambda: PAIR * 10**6),
    Duck(lambda: [(np.zeros(100_000), np.ones(100_000))] * 60),
    Duck(_raises(ZeroDivisionError("boom"))),
    Duck(_raises(ValueError("no"))),
    Duck(check_pair=lambda a, b: None),
    Duck(check_pair=lambda a, b: (["a"], ["b"])),
    Duck(check_pair=lambda a, b: ([math.nan], [0.0])),
    Duck(check_pair=lambda a, b: (a, a)),
    Duck(check_pair=_raises(KeyError("k"))),
    Duck(adjacency=None),
    Duck(adjacency="replace_one"),
    Duck(name=5),
    Duck(name="x" * 5000),
    Unreadable(),
    BrokenQueries(2),
)
CLASSES: tuple[Any, ...] = (QueryAnswers, CustomRelation, Records, Duck, Box)
CUSTOMS: tuple[Any, ...] = (
    CustomRelation(hamming_one, lambda d: None, seeds=[[0, 0]]),
    CustomRelation(hamming_one, lambda d: {1: 2}, seeds=[[0, 0]]),
    CustomRelation(hamming_one, lambda d: [["a", 1]], seeds=[[0, 0]]),
    CustomRelation(hamming_one, lambda d: (1 / 0 for _ in range(2)), seeds=[[0, 0]]),
    CustomRelation(hamming_one, lambda d: (d + i for i in count(1)), seeds=[[0, 0]]),
    CustomRelation(lambda a, b: math.nan, flips, seeds=[[0, 0]]),
    CustomRelation(_raises(RuntimeError("r")), flips, seeds=[[0, 0]]),
)
RELATIONS: tuple[Any, ...] = (
    *DUCKS,
    *CLASSES,
    *CUSTOMS,
    QueryAnswers(3),
    QueryAnswers(2, norm="l1"),
    Records(Box(2)),
    object(),
)

# -- hostile pairs, callables and sizes ----------------------------------------------------------

PAIRS: tuple[Any, ...] = (
    [(["1", "2"], ["1", "3"])],
    [(np.array(["1", "2"]), [1, 3])],
    [([b"1", 2], [1, 3])],
    [([True, 2], [1, 2])],
    [([1 + 0j, 2], [1, 2])],
    [([None, 2], [1, 2])],
    [([Decimal(1), 2], [1, 2])],
    [([[1], [2]], [[1], [3]])],
    [([[1, 2], [2]], [1, 2])],
    [([math.nan, 2], [1, 2])],
    [([math.inf, 2], [1, 2])],
    [([10**400, 2], [1, 2])],
    [([20, 2], [20, 3])],
    [([1, 1], [3, 1])],
    [([1, 1], [1, 1, 1])],
    [([1, 1], [1, 1])],
    [],
    Huge(PAIR * 10**6),
    (p for p in PAIR * 10_001),
    (p for p in PAIR),
    [[1, 1]],
    [(1, 2, 3)],
    {(1, 1): (1, 2)},
    range(10**12),
    [(range(10**12), range(10**12))],
    [(np.zeros(200_000), np.ones(200_000))],
)
PREDICATES: tuple[Any, ...] = (
    lambda a, b: math.nan,
    lambda a, b: None,
    lambda a, b: "yes",
    lambda a, b: np.array([True, False]),
    lambda a: True,
    _raises(ZeroDivisionError("z")),
)
GENERATORS: tuple[Any, ...] = (
    lambda d: None,
    lambda d: 5,
    lambda d: "ab",
    lambda d: {1: 2},
    lambda d: (d + i for i in count(1)),
    lambda d: [1 - d] * 10**6,
    lambda d: (1 / 0 for _ in range(2)),
    lambda d: [d],
    _raises(KeyError("k")),
)
SEEDS: tuple[Any, ...] = (
    range(10**12),
    [range(10**12)],
    [["a", "b"]],
    [[math.nan, 0]],
    [[True, False]],
    [np.zeros(200_000)],
    [[0, 0]] * 1001,
    (s for s in [[0, 0]]),
)
ELEMENTS: tuple[Any, ...] = (
    range(10**7),
    iter(range(10**7)),
    [range(10**12)],
    [[0, 1], [0, 1, 2]],
    [0, [0, 1]],
    [True, 1],
    [[True, 1], [0, 0]],
    [1, 1, 2],
    [[0.0] * 1001],
    [Decimal(1)],
    ["a", "b"],
    np.zeros((3, 0)),
)
SPACES: tuple[Any, ...] = (
    Box,
    Box(2),
    BitVectors(1),
    FiniteSet([0.0]),
    FiniteSet([0.0, 0.5, 1.0]),
    QueryAnswers(3),
    (0.0, 1.0),
)
BOUNDS: tuple[Any, ...] = (range(10**12), [True, 0.0, 0.0], np.array([Decimal(0)] * 3), [0.0] * 4)


# -- calls --------------------------------------------------------------------------------------


def _listed(pairs: list[tuple[np.ndarray, np.ndarray]]) -> list[Any]:
    """Pairs as nested lists (what the sanity check reads)."""
    return [(a.tolist(), b.tolist()) for a, b in pairs]


def _query_answers(k: Any, sensitivity: Any, norm: Any) -> list[Any]:
    rel = QueryAnswers(k, sensitivity, norm)
    pairs = rel.candidates(ANYWHERE)
    for i, (a, b) in enumerate(pairs):
        rel.check_pair(a, b, f"pairs[{i}]", ANYWHERE)
    return _listed(pairs)[:4]


def _custom(is_pair: Any, neighbours: Any, seeds: Any, label: Any) -> list[Any]:
    rel = CustomRelation(is_pair, neighbours, seeds, label)
    out = _listed(rel.candidates(ANYWHERE))
    out.append(_listed([rel.check_pair([0, 0], [0, 1], "pairs[0]", ANYWHERE)]))
    return out


def _records(space: Any, adjacency: Any) -> list[Any]:
    rel = Records(space, adjacency)
    pairs = rel.candidates(ANYWHERE)
    for i, (a, b) in enumerate(pairs):
        rel.check_pair(a, b, f"pairs[{i}]", ANYWHERE)
    return [rel.name, *_listed(pairs)[:4]]


def _box(dim: Any, low: Any, high: Any) -> list[Any]:
    return _records(Box(dim, low, high), "replace_one")


def _relation(relation: Any, adjacency: Any, name: Any) -> list[Any]:
    """check_relation, then the relation searched and its first pair checked again."""
    rel = check_relation(relation, adjacency, name)
    pairs = rel.candidates(DOMAIN)
    if pairs:
        rel.check_pair(pairs[0][0], pairs[0][1], "pairs[0]", DOMAIN)
    return [rel.name, rel.adjacency, *_listed(pairs)[:4]]


def _relation_pairs(relation: Any, pairs: Any, domain: Any, name: Any) -> list[Any]:
    return _listed(check_relation_pairs(relation, pairs, domain, name))


QUERY_MECH = from_callable(noisy_sum, QUERIES, DOMAIN, vectorized=True, relation=QueryAnswers(2))
CUSTOM_MECH = from_callable(
    noisy_sum,
    CUSTOM,
    (0.0, 1.0),
    vectorized=True,
    relation=CustomRelation(hamming_one, flips, [[0, 0]]),
)
RECORD_MECH = from_callable(
    noisy_sum, REPLACE, (0.0, 1.0), vectorized=True, relation=Records(Box(1))
)


def _audit(mech: Any, relation: Any, pairs: Any) -> AuditReport:
    return audit_mechanism(mech, relation=relation, pairs=pairs, samples=200, seed=0)


def check_report(r: Any) -> None:
    """An audit report with sane numbers (a hostile relation may make the correct mechanism
    leak, as a duck whose check_pair moves the data does: the verdict is not checked)."""
    assert isinstance(r, AuditReport), type(r)
    assert math.isfinite(r.epsilon_lower_bound) and r.epsilon_lower_bound >= 0
    check_sane(r.to_dict())


def check_callable(m: Any) -> None:
    assert isinstance(m, CallableMechanism)
    pairs = m.relation.candidates(m.domain) if m.relation is not None else [([0.5], [0.5])]
    out = m.sample(pairs[0][0], 4, np.random.default_rng(0))
    assert len(out) == 4 and np.isfinite(np.asarray(out, dtype=float)).all()


# -- the specimen and the entries ---------------------------------------------------------------

SPECIMENS: list[Specimen] = [
    Specimen(
        "CallableMechanism(Records)",
        from_callable,
        {
            "fn": noisy_sum,
            "claim": REPLACE,
            "domain": (0.0, 1.0),
            "vectorized": True,
            "relation": Records(Box(1)),
        },
        {"relation": "any"},
        [[0.25], [0.75]],
        extra={
            "relation": (
                *CLASSES,
                Records(Box(1), "add_remove"),
                Records(FiniteSet([0.0, 0.5, 1.0])),
                Records(BitVectors(1)),
                Records(Box(2)),
                QueryAnswers(1),
                Duck(adjacency="replace_one", candidates=RECORD_PAIR),
            )
        },
    ),
]

ENTRIES: list[Entry] = [
    Entry(
        "QueryAnswers()",
        _query_answers,
        {"k": 3, "sensitivity": 1.0, "norm": "linf"},
        {"k": "int", "sensitivity": "real", "norm": "choice"},
        extra={"k": (10**9, 10**12), "sensitivity": (1e308, 5e-324, 1e-300)},
    ),
    Entry(
        "QueryAnswers.check_pair",
        lambda d0, d1, name, domain: _listed([QueryAnswers(2).check_pair(d0, d1, name, domain)]),
        {"d0": [1.0, 1.0], "d1": [1.0, 2.0], "name": "pairs[0]", "domain": DOMAIN},
        {"d0": "data", "d1": "data", "name": "any", "domain": "pair"},
        aliases={"d0": ("pairs[0]",), "d1": ("pairs[0]",)},
        extra={"d0": (range(10**12), [1, True], ["1", "1"]), "name": ("", "x" * 5000)},
    ),
    Entry(
        "QueryAnswers.distance",
        lambda d0, d1: QueryAnswers(2, norm="l1").distance(d0, d1),
        {"d0": [1.0, 1.0], "d1": [1.0, 2.0]},
        {"d0": "data", "d1": "data"},
        extra={"d0": ([1e308, -1e308], ["1", "2"])},
    ),
    Entry(
        "QueryAnswers.candidates",
        lambda domain: _listed(QueryAnswers(4).candidates(domain)),
        {"domain": DOMAIN},
        {"domain": "pair"},
    ),
    Entry(
        "CustomRelation()",
        _custom,
        {"is_pair": hamming_one, "neighbours": flips, "seeds": [[0, 0]], "label": "one bit"},
        {"is_pair": "any", "neighbours": "any", "seeds": "any", "label": "any"},
        extra={
            "is_pair": PREDICATES,
            "neighbours": GENERATORS,
            "seeds": SEEDS,
            "label": ("", "x" * 5000, b"x"),
        },
    ),
    Entry(
        "CustomRelation.check_pair",
        lambda d0, d1, name, domain: _listed(
            [CustomRelation(hamming_one).check_pair(d0, d1, name, domain)]
        ),
        {"d0": [0.0, 1.0], "d1": [0.0, 0.0], "name": "pairs[0]", "domain": DOMAIN},
        {"d0": "data", "d1": "data", "name": "any", "domain": "pair"},
        aliases={"d0": ("pairs[0]",), "d1": ("pairs[0]",)},
    ),
    Entry(
        "CustomRelation.candidates",
        lambda domain: _listed(CustomRelation(hamming_one, flips, [[0, 1, 0]]).candidates(domain)),
        {"domain": (0.0, 1.0)},
        {"domain": "pair"},
        aliases={"domain": ("seeds",)},  # a domain the seeds leave is refused naming them
    ),
    Entry(
        "Box()",
        _box,
        {"dim": 3, "low": 0.0, "high": 1.0},
        {"dim": "int", "low": "any", "high": "any"},
        aliases={"low": ("high",), "high": ("low",)},  # low >= high names both
        extra={"dim": (10**12, 10**9), "low": BOUNDS, "high": BOUNDS},
    ),
    Entry(
        "BitVectors()",
        lambda dim: _records(BitVectors(dim), "add_remove"),
        {"dim": 2},
        {"dim": "int"},
    ),
    Entry(
        "FiniteSet()",
        lambda elements: _records(FiniteSet(elements), "add_remove"),
        {"elements": [0.0, 0.5, 1.0]},
        {"elements": "any"},
        extra={"elements": ELEMENTS},
    ),
    Entry(
        "Records()",
        _records,
        {"space": Box(2), "adjacency": "replace_one"},
        {"space": "any", "adjacency": "choice"},
        aliases={"space": ("space must hold",)},
        extra={"space": SPACES},
    ),
    Entry(
        "Records.check_pair",
        lambda d0, d1, name, domain: _listed(
            [Records(Box(1), "add_remove").check_pair(d0, d1, name, domain)]
        ),
        {"d0": [0.5], "d1": [0.5, 0.25], "name": "pairs[0]", "domain": (0.0, 1.0)},
        {"d0": "data", "d1": "data", "name": "any", "domain": "pair"},
        aliases={"d0": ("pairs[0]",), "d1": ("pairs[0]",)},
        extra={"d0": (range(10**12), Huge([[0.5]] * 200_000))},
    ),
    Entry(
        "Records.check_data",
        lambda data, name, domain: Records(Box(1)).check_data(data, name, domain).tolist(),
        {"data": [0.5, 0.25], "name": "data", "domain": (0.0, 1.0)},
        {"data": "data", "name": "any", "domain": "pair"},
        aliases={"name": ("data",)},  # a hostile name is refused, or names the data it holds
        extra={"data": (range(10**12),)},
    ),
    Entry(
        "as_records",
        lambda x, dim: as_records(x, "x", dim).tolist(),
        {"x": [[0.5, 0.25]], "dim": 2},
        {"x": "any", "dim": "int"},
        aliases={"dim": ("x",)},  # a valid dim that does not fit x names x
        extra={"x": (range(10**12), Huge([[0.5, 0.25]] * 10**6))},
    ),
    Entry(
        "as_input",
        lambda x, domain: as_input(x, "x", domain).tolist(),
        {"x": [0.5, 0.25], "domain": (0.0, 1.0)},
        {"x": "any", "domain": "pair"},
        aliases={"domain": ("x",)},  # a valid domain that x leaves names x
        extra={"x": (range(10**12), Huge([[0.0] * 10**6] * 10), Huge([[]] * 10**7))},
    ),
    Entry(
        "check_relation",
        _relation,
        {"relation": QueryAnswers(2), "adjacency": "query_answers", "name": "relation"},
        {"relation": "any", "adjacency": "choice", "name": "any"},
        aliases={"adjacency": ("relation",), "name": ("relation",)},
        extra={"relation": RELATIONS},
    ),
    Entry(
        "check_relation_pairs",
        _relation_pairs,
        {"relation": QueryAnswers(2), "pairs": PAIR, "domain": DOMAIN, "name": "pairs"},
        {"relation": "any", "pairs": "any", "domain": "pair", "name": "any"},
        aliases={"relation": ("pairs",), "domain": ("pairs",)},
        extra={"relation": RELATIONS, "pairs": PAIRS},
    ),
    Entry(
        "from_callable(relation)",
        lambda relation: from_callable(
            noisy_sum, QUERIES, DOMAIN, vectorized=True, relation=relation
        ),
        {"relation": QueryAnswers(2)},
        {"relation": "any"},
        check=check_callable,
        extra={"relation": RELATIONS},
    ),
    Entry(
        "audit_mechanism(query answers)",
        lambda relation, pairs: _audit(QUERY_MECH, relation, pairs),
        {"relation": None, "pairs": PAIR},
        {"relation": "any", "pairs": "any"},
        check=check_report,
        aliases={"relation": ("pairs",)},  # a relation that refuses the given pair names it
        extra={"relation": RELATIONS, "pairs": PAIRS},
    ),
    Entry(
        "audit_mechanism(custom)",
        lambda relation, pairs: _audit(CUSTOM_MECH, relation, pairs),
        {"relation": None, "pairs": [([0, 0], [0, 1])]},
        {"relation": "any", "pairs": "any"},
        check=check_report,
        aliases={"relation": ("pairs",)},
        extra={"relation": (*CUSTOMS, *CLASSES), "pairs": PAIRS},
    ),
    Entry(
        "audit_mechanism(records)",
        lambda relation, pairs: _audit(RECORD_MECH, relation, pairs),
        {"relation": None, "pairs": RECORD_PAIR},
        {"relation": "any", "pairs": "any"},
        check=check_report,
        aliases={"relation": ("pairs",)},
        extra={
            "relation": (*CLASSES, Records(Box(1), "add_remove"), Records(FiniteSet([0, 1]))),
            "pairs": PAIRS,
        },
    ),
]
