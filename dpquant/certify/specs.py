"""What a certification states: the variables and their box, the goal ``expression REL 0``, the
hypotheses that delimit the claim's domain, and the method of proof (the certificate format is in
``proofs_checks/certificate_checker.py``).

Plain frozen values: the catalogue (:mod:`dpquant.certify.catalogue`) is a list of
:class:`ClaimCertification`, and :func:`dpquant.certify.certificates.certify` turns one into the
certificate's JSON.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from dpquant.errors import ParameterError

RELATIONS = (">=", ">", "<=", "<")
"""The relations of a goal or hypothesis ``expression REL 0``."""
METHODS = ("boxes", "points", "identity")
"""The proofs of a part: branch and bound over its box, single points, a sympy identity."""
SCALES = ("linear", "log")
"""How a variable's range is split: at midpoints, or near geometric means."""
_CLAIM_ID = re.compile(r"[a-z0-9]+/[A-Za-z0-9.\-]+")


def _rational(value: object, name: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | str | Fraction):
        raise ParameterError(name, "must be an exact rational (int, Fraction or 'p/q')", value)
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError):
        raise ParameterError(
            name, "must be an exact rational (int, Fraction or 'p/q')", value
        ) from None


@dataclass(frozen=True)
class Variable:
    """A variable of a part and its closed range.

    Args:
        name: Its name in the expressions.
        lo: Least value (exact: ``int``, ``Fraction`` or ``"p/q"``).
        hi: Greatest value, at least ``lo``.
        integer: Whether it takes integers only (then ``lo`` and ``hi`` are integers).
        scale: ``"linear"`` (split at midpoints) or ``"log"`` (split near geometric means;
            ``lo > 0``).

    Raises:
        ValueError: A bound that is not exact, ``lo > hi``, or a scale refused (named).
    """

    name: str
    lo: Fraction | int | str
    hi: Fraction | int | str
    integer: bool = False
    scale: str = "linear"

    def __post_init__(self) -> None:
        lo, hi = _rational(self.lo, "lo"), _rational(self.hi, "hi")
        if lo > hi:
            raise ParameterError("hi", f"must be at least lo = {lo}", hi)
        if self.integer and (lo.denominator != 1 or hi.denominator != 1):
            raise ParameterError("lo", "must be an integer for an integer variable", lo)
        if self.scale not in SCALES or (self.scale == "log" and lo <= 0):
            raise ParameterError(
                "scale", f"must be one of {SCALES} ('log' needs lo > 0)", self.scale
            )
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)


@dataclass(frozen=True)
class Condition:
    """``expression REL 0``.

    Args:
        expression: Text of the certificates' language (:mod:`dpquant.certify.expressions`).
        relation: One of :data:`RELATIONS`.

    Raises:
        ValueError: A relation refused.
    """

    expression: str
    relation: str = ">="

    def __post_init__(self) -> None:
        if self.relation not in RELATIONS:
            raise ParameterError("relation", f"must be one of {RELATIONS}", self.relation)


@dataclass(frozen=True)
class Part:
    """One inequality (or identity) of a claim, proven on its box.

    Args:
        name: What it states, in a few words.
        variables: Its variables and box.
        goal: The goal, asserted where every hypothesis holds.
        hypotheses: The conditions delimiting the claim's domain inside the box.
        method: ``"boxes"`` (branch and bound), ``"points"`` (a counterexample: each of
            ``points`` is checked) or ``"identity"`` (sympy simplifies the goal's expression to 0).
        points: For ``"points"``: each point's exact coordinates.
        precision: Bits of the Arb arithmetic.
        max_leaves: The most boxes the branch and bound may use before it gives up.
        note: How the paper's statement maps to this inequality.
        monotone: Variables along which a box may be settled by monotonicity (the sign of
            the goal's derivative, proven on the box, and the goal on the box's face): for
            goals tight on a face of the domain (0 at ε = 0, say).

    Raises:
        ValueError: A method refused, or points given to another method.
    """

    name: str
    variables: tuple[Variable, ...]
    goal: Condition
    hypotheses: tuple[Condition, ...] = ()
    method: str = "boxes"
    points: tuple[dict[str, Fraction | int | str], ...] = ()
    precision: int = 128
    max_leaves: int = 20_000
    note: str = ""
    monotone: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ParameterError("method", f"must be one of {METHODS}", self.method)
        unknown = set(self.monotone) - {v.name for v in self.variables}
        if unknown or (self.monotone and self.method != "boxes"):
            raise ParameterError(
                "monotone", "must name variables of a 'boxes' part", sorted(unknown)
            )
        if (self.method == "points") != bool(self.points):
            raise ParameterError("points", "are given exactly when method is 'points'")

    @property
    def names(self) -> tuple[str, ...]:
        """The variables' names."""
        return tuple(v.name for v in self.variables)


@dataclass(frozen=True)
class ClaimCertification:
    """The certification of one ledger entry (the checker's id pattern: ``group/name``).

    Args:
        claim: The ledger id (``"aamand25/lemma-G.5"``).
        domain: The certified domain, in words (what the ledger shows beside the status);
            where the paper's domain is wider, it says so.
        parts: The inequalities whose conjunction is the claim on that domain.
        statement: What is proved, in words.
    """

    claim: str
    domain: str
    parts: tuple[Part, ...]
    statement: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.claim, str) or not _CLAIM_ID.fullmatch(self.claim):
            raise ParameterError("claim", "must be a ledger id 'group/name'", self.claim)
        if not isinstance(self.domain, str) or not self.domain.strip():
            raise ParameterError("domain", "must be a non-empty text", self.domain)
        if not isinstance(self.parts, tuple) or not self.parts:
            raise ParameterError(
                "parts", "must be a non-empty tuple of Part", type(self.parts).__name__
            )
        if not all(isinstance(p, Part) for p in self.parts):
            raise ParameterError("parts", "must hold Part values only")


__all__ = ["METHODS", "RELATIONS", "SCALES", "ClaimCertification", "Condition", "Part", "Variable"]
