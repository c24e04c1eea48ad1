"""Exhaustive verification of the implementations (issue 38, item 3): on a stated small domain
(values on a grid, data sets up to a stated size), every neighbouring pair under the claim's
relation, the privacy loss of the implemented exact law (``mechanism.exact(data)``, the code the
sampler-to-law conformance tests tie to the sampler) enclosed rigorously
(:mod:`dpquant.certify.enclosures`) and compared with the claim.

A pair's verdict: "verified ≤ claim" when the loss's upper end is at most the claimed ε (then
δ(ε) = 0 too), or, for an (ε, δ) claim, when the upper end of δ(ε)'s enclosure is at most the
claimed δ; "violation certified" when the loss's lower end exceeds ε (a pure claim) or δ(ε)'s
lower end exceeds δ; otherwise "undecided", never a pass. A mechanism's verdict: a violation
when some pair's is, verified when every pair's is, else undecided. A *tight* mechanism (its
loss exactly ε, so every enclosure holds ε) is "verified (exact: identity)" only through an exact
route (:mod:`dpquant.certify.tight`): its likelihood-ratio identities proven, its premise checked
exactly, and both laws of every undecided pair equal to the closed form within the budget;
without one it stays undecided. A law that cannot be
evaluated (``exact`` raises, returns no exact law, or holds a NaN) is a ``ValueError``: absence
of evidence is never a pass.

The neighbour enumeration is this module's own (``dpquant.certify`` depends on
:mod:`dpquant.reference` only): :func:`neighbouring_pairs` lists each pair once (a multiset's
law does not depend on order and the loss is symmetric).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from dpquant.certify.enclosures import (
    BUDGET,
    EXACT,
    Enclosure,
    check_law,
    delta_enclosure,
    loss_enclosure,
)
from dpquant.certify.tight import TIGHT_PROOFS, TightProof, identities_proven, law_matches
from dpquant.errors import ParameterError
from dpquant.reference.core import PrivacyClaim, check_claim, has_exact
from dpquant.reference.neighbourhoods import RELATIONS, are_neighbours, exhaustive_shapes
from dpquant.reference.registry import REGISTRY, RegistryEntry
from dpquant.reference.validation import check_int

VERIFIED = "verified ≤ claim"
VERIFIED_IDENTITY = "verified (exact: identity)"
VIOLATION = "violation certified"
UNDECIDED = "undecided"
VERDICTS = (VERIFIED, VERIFIED_IDENTITY, VIOLATION, UNDECIDED)
"""The verdicts: only :data:`VERIFIED` and :data:`VERIFIED_IDENTITY` are passes."""
PASSES = (VERIFIED, VERIFIED_IDENTITY)


MAX_PAIRS = 200_000
"""The most pairs one verification enumerates."""

Data = tuple[float, ...]
DataPair = tuple[Data, Data]


def _check_grid(grid: Any) -> tuple[float, ...]:
    if isinstance(grid, str | bytes) or not isinstance(grid, Sequence | np.ndarray):
        raise ParameterError("grid", "must be a sequence of finite values", repr(grid)[:80])
    values = []
    for k, v in enumerate(grid):
        if isinstance(v, bool) or not isinstance(v, int | float | np.integer | np.floating):
            raise ParameterError(f"grid[{k}]", "must be a finite real number", repr(v)[:80])
        if not math.isfinite(float(v)):
            raise ParameterError(f"grid[{k}]", "must be finite (not NaN or inf)", repr(v))
        values.append(float(v))
    if not values:
        raise ParameterError("grid", "must hold at least one value")
    return tuple(sorted(set(values)))


def _check_relation(relation: Any) -> str:
    if relation not in RELATIONS:
        raise ParameterError("relation", f"must be one of {RELATIONS}", repr(relation))
    return str(relation)


def pair_count(values: int, max_n: int, relation: str) -> int:
    """How many pairs :func:`neighbouring_pairs` lists, by counting.

    With g values: local, C(g, 2); add/remove, D' = D plus one value for every multiset D of
    size 0..max_n − 1, Σ_n C(g + n − 1, n)·g; replace-one, D = S + {x}, D' = S + {y} with x < y
    for every multiset S of size 0..max_n − 1, Σ_n C(g + n − 1, n)·C(g, 2).

    Args:
        values: g, the number of distinct grid values, an int >= 1.
        max_n: The largest data set, an int >= 1 (ignored for local).
        relation: One of :data:`RELATIONS`.

    Returns:
        The count.

    Raises:
        ValueError: An argument refused (named).
    """
    g = check_int(values, "values", minimum=1)
    max_n = check_int(max_n, "max_n", minimum=1)
    relation = _check_relation(relation)
    if relation == "local":
        return math.comb(g, 2)
    multisets = sum(math.comb(g + n - 1, n) for n in range(max_n))
    return multisets * (g if relation == "add_remove" else math.comb(g, 2))


def neighbouring_pairs(grid: Sequence[float], max_n: int, relation: str) -> list[DataPair]:
    """Every neighbouring pair of data sets over ``grid`` (sorted tuples), each once.

    Args:
        grid: The values, finite reals (repeats ignored).
        max_n: The largest data set, an int >= 1 (local: single values).
        relation: One of :data:`RELATIONS`.

    Returns:
        The pairs (:func:`pair_count` of them).

    Raises:
        ValueError: An argument refused, or more than :data:`MAX_PAIRS` pairs (named).
    """
    values = _check_grid(grid)
    relation = _check_relation(relation)
    max_n = check_int(max_n, "max_n", minimum=1)
    count = pair_count(len(values), max_n, relation)
    if count > MAX_PAIRS:
        raise ParameterError(
            "max_n", f"gives {count} pairs, more than MAX_PAIRS = {MAX_PAIRS}", max_n
        )
    return list(_pairs(values, max_n, relation))


def _pairs(values: tuple[float, ...], max_n: int, relation: str) -> Iterator[DataPair]:
    for shared, x, y in exhaustive_shapes(values, max_n, relation):
        before = shared if x is None else tuple(sorted((*shared, x)))
        yield before, tuple(sorted((*shared, y)))


def _as_data(d: Any, name: str) -> Data:
    arr = np.asarray(d, dtype=float).ravel()
    if not np.isfinite(arr).all():
        raise ParameterError(name, "must hold finite values", repr(d)[:80])
    return tuple(sorted(arr.tolist()))


def check_neighbours(d0: Any, d1: Any, relation: str, name: str = "pairs") -> DataPair:
    """Check that two data sets are neighbours under ``relation``.

    Args:
        d0: A data set (a sequence of finite reals; a local input: one value).
        d1: Another.
        relation: One of :data:`RELATIONS`.
        name: What the message names.

    Returns:
        The pair as sorted tuples.

    Raises:
        ValueError: They are not neighbours (named ``name``).
    """
    relation = _check_relation(relation)
    a, b = _as_data(d0, name), _as_data(d1, name)
    ok = a != b and are_neighbours(a, b, relation)
    if not ok:
        raise ParameterError(name, f"must be neighbours under {relation}", f"{a} and {b}")
    return a, b


@dataclass(frozen=True)
class ExhaustiveResult:
    """One mechanism's exhaustive verification.

    Attributes:
        name: The mechanism's name.
        domain: The domain, in words (grid and largest data set, or the explicit pairs).
        relation: The claim's relation.
        pairs: How many neighbouring pairs were checked.
        largest_loss: The largest upper end of a pair's loss enclosure.
        largest_loss_lower: The lower end of that pair's enclosure.
        witness: The pair where it was found.
        claim: The claim checked.
        largest_delta: The largest upper end of δ(ε_claimed) over the pairs where it was
            needed (None: no pair needed it).
        verdict: One of :data:`VERDICTS`.
        undecided_pairs: How many pairs were undecided.
        basis: What the enclosures trust (:data:`~dpquant.certify.enclosures.EXACT` or
            :data:`~dpquant.certify.enclosures.BUDGET`).
        seconds: The time it took.
    """

    name: str
    domain: str
    relation: str
    pairs: int
    largest_loss: mpmath.mpf
    largest_loss_lower: mpmath.mpf
    witness: DataPair
    claim: PrivacyClaim
    largest_delta: mpmath.mpf | None
    verdict: str
    undecided_pairs: int
    basis: str
    seconds: float

    @property
    def passed(self) -> bool:
        """Whether the verdict is :data:`VERIFIED` or :data:`VERIFIED_IDENTITY` (nothing else
        is a pass)."""
        return self.verdict in PASSES


def pair_verdict(loss: Enclosure, delta: Enclosure | None, claim: PrivacyClaim) -> str:
    """The verdict of one pair.

    Args:
        loss: The enclosure of its privacy loss.
        delta: The enclosure of its δ(ε_claimed), or None when none is available.
        claim: The claim.

    Returns:
        One of :data:`VERDICTS`.

    Raises:
        ValueError: An argument of the wrong type (named).
    """
    if not isinstance(loss, Enclosure):
        raise ParameterError("loss", "must be an Enclosure", type(loss).__name__)
    if delta is not None and not isinstance(delta, Enclosure):
        raise ParameterError("delta", "must be an Enclosure or None", type(delta).__name__)
    claim = check_claim(claim)
    eps = mpmath.mpf(claim.epsilon)
    if loss.hi <= eps:
        return VERIFIED
    if claim.delta == 0:
        return VIOLATION if loss.lo > eps else UNDECIDED
    if delta is None:
        return UNDECIDED
    if delta.hi <= mpmath.mpf(claim.delta):
        return VERIFIED
    return VIOLATION if delta.lo > mpmath.mpf(claim.delta) else UNDECIDED


def _law_of(mechanism: Any, name: str) -> Callable[[Data], Any]:
    cache: dict[Data, Any] = {}

    def law(d: Data) -> Any:
        if d not in cache:
            try:
                got = mechanism.exact(np.array(d, dtype=float))
            except Exception as exc:  # noqa: BLE001 -- any failure is loud, never a pass
                raise ValueError(
                    f"{name}: the exact law on {list(d)} could not be evaluated "
                    f"({type(exc).__name__}: {exc})"
                ) from exc
            try:
                cache[d] = check_law(got, "law")
            except ValueError as exc:
                raise ValueError(
                    f"{name}: the exact law on {list(d)} cannot be judged: {exc}"
                ) from None
        return cache[d]

    return law


def verify_exhaustive(
    mechanism: Any,
    grid: Sequence[float] | None = None,
    max_n: int = 1,
    *,
    pairs: Sequence[tuple[Any, Any]] | None = None,
    name: str | None = None,
    domain: str | None = None,
    exact_proof: TightProof | None = None,
) -> ExhaustiveResult:
    """Every neighbouring pair of a small domain, judged by the enclosure of its exact loss.

    Args:
        mechanism: A mechanism with ``exact(data)`` and a ``claim``
            (:class:`~dpquant.reference.core.PrivacyClaim`) whose relation is one of
            :data:`RELATIONS`.
        grid: The values of the domain (with ``max_n``), unless ``pairs`` is given.
        max_n: The largest data set, an int >= 1 (local mechanisms: single values).
        pairs: Explicit neighbouring pairs instead of the grid (each checked to be neighbours).
        name: The mechanism's name in the result (default: its class name).
        domain: The domain in words (default: the grid and ``max_n``, or the number of pairs).
        exact_proof: The exact route of a tight local mechanism (:mod:`dpquant.certify.tight`),
            which may settle its undecided pairs (module docstring).

    Returns:
        The result.

    Raises:
        ValueError: An argument refused (named), or a law that cannot be evaluated or judged
            (the mechanism and the data named).
    """
    if not has_exact(mechanism):
        raise ParameterError("mechanism", "must provide exact(data)", type(mechanism).__name__)
    claim = check_claim(getattr(mechanism, "claim", None), "mechanism.claim")
    relation = _check_relation(str(claim.adjacency))
    if name is None:
        name = type(mechanism).__name__
    elif not isinstance(name, str) or not name:
        raise ParameterError("name", "must be a non-empty string", repr(name))
    if domain is not None and not isinstance(domain, str):
        raise ParameterError("domain", "must be a string", repr(domain))
    if pairs is None:
        if grid is None:
            raise ParameterError("grid", "must be given when pairs is not")
        listed = neighbouring_pairs(grid, max_n, relation)
        if domain is None:
            n = "one value" if relation == "local" else f"data sets of size <= {max_n}"
            domain = f"{n} on the grid {list(_check_grid(grid))}"
    else:
        if isinstance(pairs, str | bytes) or not isinstance(pairs, Sequence) or not pairs:
            raise ParameterError("pairs", "must be a non-empty sequence of (data, data) pairs")
        listed = []
        for k, pair in enumerate(pairs):
            if not isinstance(pair, tuple | list) or len(pair) != 2:
                raise ParameterError(f"pairs[{k}]", "must be a pair (data, data)")
            listed.append(check_neighbours(pair[0], pair[1], relation, f"pairs[{k}]"))
        domain = domain or f"{len(listed)} explicit pairs"
    if not listed:
        raise ParameterError("grid", "must give at least one neighbouring pair")
    start = time.perf_counter()
    law = _law_of(mechanism, name)
    best: tuple[Enclosure, DataPair] | None = None
    largest_delta: mpmath.mpf | None = None
    verdicts = dict.fromkeys(VERDICTS, 0)
    bases = set()
    undecided: list[DataPair] = []
    for d0, d1 in listed:
        p, q = law(d0), law(d1)
        loss = loss_enclosure(p, q)
        delta = None
        if loss.hi > claim.epsilon and claim.delta > 0:
            delta = delta_enclosure(p, q, claim.epsilon)
            if delta is not None:
                largest_delta = delta.hi if largest_delta is None else max(largest_delta, delta.hi)
                bases.add(delta.basis)
        verdict = pair_verdict(loss, delta, claim)
        verdicts[verdict] += 1
        if verdict == UNDECIDED:
            undecided.append((d0, d1))
        bases.add(loss.basis)
        if best is None or loss.hi > best[0].hi:
            best = (loss, (d0, d1))
    assert best is not None  # noqa: S101 -- listed is not empty
    if exact_proof is not None and undecided and not verdicts[VIOLATION]:
        if _settled_exactly(exact_proof, mechanism, relation, law, undecided):
            verdicts[VERIFIED_IDENTITY], verdicts[UNDECIDED] = verdicts[UNDECIDED], 0
    if verdicts[VIOLATION]:
        verdict = VIOLATION
    elif verdicts[UNDECIDED]:
        verdict = UNDECIDED
    elif verdicts[VERIFIED_IDENTITY]:
        verdict = VERIFIED_IDENTITY
    else:
        verdict = VERIFIED
    return ExhaustiveResult(
        name=name,
        domain=domain,
        relation=relation,
        pairs=len(listed),
        largest_loss=best[0].hi,
        largest_loss_lower=best[0].lo,
        witness=best[1],
        claim=claim,
        largest_delta=largest_delta,
        verdict=verdict,
        undecided_pairs=verdicts[UNDECIDED],
        basis=BUDGET if BUDGET in bases else EXACT,
        seconds=time.perf_counter() - start,
    )


def _settled_exactly(
    proof: TightProof, mechanism: Any, relation: str, law: Callable[[Data], Any],
    pairs: list[DataPair],
) -> bool:
    """Whether the exact route settles ``pairs``: a local mechanism, its premise, its identities
    proven, and both laws of every pair equal to the closed form (:func:`law_matches`)."""
    if relation != "local" or not proof.premise(mechanism):
        return False
    if not identities_proven(proof.certification.claim):
        return False
    data = {d for pair in pairs for d in pair}
    return all(len(d) == 1 and law_matches(proof, mechanism, d[0], law(d)) for d in data)


# -- the registry ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Domain:
    """A small domain of a registry mechanism.

    Attributes:
        grid: Its values.
        max_n: The largest data set (ignored for local mechanisms).
    """

    grid: tuple[float, ...]
    max_n: int


def _small_domains() -> dict[str, Domain]:
    """The domains of the test-suite table: each registry entry's own grid and size, except the
    piecewise laws whose interval enclosure costs 4 to 12 ms a pair (data sets up to 2 records
    for replace-one, 3 for add/remove)."""
    out = {}
    for entry in REGISTRY:
        max_n = entry.max_n
        if entry.name.startswith(("exponential_quantile", "tzamos20")):
            max_n = 3 if "add_remove" in entry.name else 2
        out[entry.name] = Domain(entry.grid, max_n)
    return out


SMALL_DOMAINS: dict[str, Domain] = _small_domains()
"""The test suite's domains (``tests/certify/test_exhaustive.py``), under a minute in all."""
REGISTRY_DOMAINS: dict[str, Domain] = {e.name: Domain(e.grid, e.max_n) for e in REGISTRY}
"""The registry's own domains (``make audit``'s family; ``benchmarks/bench_exhaustive.py``)."""

NO_EXACT_LAW: dict[str, str] = {}
"""Registry entries without an exact law, and why (none at present: every entry has one)."""


def verify_entry(entry: RegistryEntry, domain: Domain | None = None) -> ExhaustiveResult:
    """The exhaustive verification of one registry entry.

    Args:
        entry: A :class:`~dpquant.reference.registry.RegistryEntry` whose mechanism has an exact
            law.
        domain: Its domain (default: :data:`SMALL_DOMAINS`'); ignored when the entry lists
            explicit pairs.

    Returns:
        The result.

    Raises:
        ValueError: An argument refused (named), or a law that cannot be evaluated.
    """
    if not isinstance(entry, RegistryEntry):
        raise ParameterError("entry", "must be a RegistryEntry", type(entry).__name__)
    if domain is None:
        domain = SMALL_DOMAINS.get(entry.name, Domain(entry.grid, entry.max_n))
    if not isinstance(domain, Domain):
        raise ParameterError("domain", "must be a Domain or None", type(domain).__name__)
    mechanism = entry.build()
    proof = TIGHT_PROOFS.get(entry.name)
    if entry.pairs is not None:
        return verify_exhaustive(
            mechanism, pairs=entry.pairs(), name=entry.name, domain=entry.description,
            exact_proof=proof,
        )
    return verify_exhaustive(mechanism, domain.grid, domain.max_n, name=entry.name,
                             exact_proof=proof)


def registry_results(domains: dict[str, Domain] | None = None) -> list[ExhaustiveResult]:
    """The exhaustive verification of every registry entry with an exact law.

    Args:
        domains: Per entry name, its domain (default :data:`SMALL_DOMAINS`).

    Returns:
        One result per entry, in the registry's order.

    Raises:
        ValueError: ``domains`` is not a dict, or a law cannot be evaluated.
    """
    if domains is None:
        domains = SMALL_DOMAINS
    if not isinstance(domains, dict):
        raise ParameterError(
            "domains", "must be a dict of entry name to Domain", type(domains).__name__
        )
    return [verify_entry(e, domains.get(e.name)) for e in REGISTRY if e.name not in NO_EXACT_LAW]


def _number(x: mpmath.mpf) -> str:
    return "inf" if mpmath.isinf(x) else mpmath.nstr(x, 12, min_fixed=-4, max_fixed=4)


def markdown_table(results: Sequence[ExhaustiveResult]) -> str:
    """The results as a Markdown table (the docs page's; no timings, which vary).

    Args:
        results: The results.

    Returns:
        The table's text, one row per result.

    Raises:
        ValueError: An item that is not an :class:`ExhaustiveResult`.
    """
    lines = [
        "| mechanism | domain | relation | pairs | largest loss (upper end) | claim | verdict |",
        "|---|---|---|---:|---:|---|---|",
    ]
    for k, r in enumerate(results):
        if not isinstance(r, ExhaustiveResult):
            raise ParameterError(f"results[{k}]", "must be an ExhaustiveResult", type(r).__name__)
        claim = f"ε = {r.claim.epsilon:.17g}" + (
            f", δ = {r.claim.delta:.6g}" if r.claim.delta else ""
        )
        verdict = r.verdict + ("" if r.basis == EXACT else " (budget)")
        lines.append(
            f"| {r.name} | {r.domain} | {r.relation} | {r.pairs} | {_number(r.largest_loss)} "
            f"| {claim} | {verdict} |"
        )
    return "\n".join(lines)


__all__ = [
    "MAX_PAIRS",
    "NO_EXACT_LAW",
    "REGISTRY_DOMAINS",
    "RELATIONS",
    "SMALL_DOMAINS",
    "UNDECIDED",
    "VERDICTS",
    "VERIFIED",
    "VERIFIED_IDENTITY",
    "VIOLATION",
    "Domain",
    "ExhaustiveResult",
    "check_neighbours",
    "markdown_table",
    "neighbouring_pairs",
    "pair_count",
    "pair_verdict",
    "registry_results",
    "verify_entry",
    "verify_exhaustive",
]
