"""Finite discrete laws: :class:`DiscreteLaw`, atoms and their log-probabilities at mpmath
precision.

Atoms are real numbers (the law then has a ``cdf`` and a ``mass``) or hashable labels of any kind,
such as the name of an exception a mechanism raised: an exception is an output like any other
(``docs/DESIGN.md``, "Contracts").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any, SupportsFloat, cast

import mpmath
import numpy as np

from dpquant.errors import ParameterError
from dpquant.reference.distributions.arithmetic import (
    Indexed,
    Number,
    is_inf,
    rational,
    relative_log_weights,
)
from dpquant.reference.distributions.inputs import (
    check_log_weights,
    check_point,
    describe,
    exact_real,
    is_real,
    sequence,
)
from dpquant.reference.distributions.limits import MAX_ATOMS, PROBABILITY_SUM_TOLERANCE
from dpquant.reference.exact.mp import MP_NINF, logsumexp, to_mpf, workdps
from dpquant.reference.validation import MAX_FLOAT, check_real_array, check_rng, check_size


def _has_nan_label(x: Any, depth: int = 0) -> bool:
    """A label that is or contains a NaN (float, complex, Decimal, mpmath), never equal to itself."""
    if depth > 3:
        return False
    if isinstance(x, complex | np.complexfloating):
        return math.isnan(x.real) or math.isnan(x.imag)
    if isinstance(x, Decimal):
        return x.is_nan()
    if isinstance(x, mpmath.mpc):
        return bool(mpmath.isnan(x))
    if isinstance(x, float | np.floating):
        return math.isnan(x)
    if isinstance(x, tuple | frozenset):
        return any(_has_nan_label(v, depth + 1) for v in x)
    return False


def _check_atom(atom: Any, k: int) -> Hashable:
    """An atom: a finite real number (fitting a float64) or a hashable label; never NaN."""
    kind = type(atom)
    if kind is float:
        if math.isnan(atom) or math.isinf(atom):
            raise ParameterError(
                f"support[{k}]",
                "must be a finite number (or a label) and not NaN",
                repr(atom),
            )
        return atom
    if kind is int and -MAX_FLOAT <= atom <= MAX_FLOAT:
        return atom
    key = _atom_key(atom)
    try:
        hash(key)
    except TypeError:
        raise ParameterError(
            f"support[{k}]",
            "must be a number or a hashable label",
            type(atom).__name__,
        ) from None
    if _is_number(key):
        value = exact_real(key, f"support[{k}]", neg_inf=True, pos_inf=True)
        if is_inf(value):
            raise ParameterError(
                f"support[{k}]",
                "must be a finite number (or a label)",
                repr(value),
            )
        return value
    if _has_nan_label(key):
        raise ParameterError(f"support[{k}]", "must not be NaN", repr(atom))
    return key


def _check_paired(support: Sequence[Any], values: Sequence[Any], name: str) -> None:
    """``support`` and its per-atom ``values`` (named ``name``) must have the same length."""
    if len(support) != len(values):
        raise ValueError(
            f"support and {name} must have the same length, got {len(support)} and {len(values)}"
        )


class DiscreteLaw:
    """A finite discrete law: distinct atoms and their log-probabilities (mpf).

    Atoms with weight 0 (log-weight -inf) are dropped and repeated atoms are merged. Atoms are
    either all real numbers (then the law has a ``cdf`` and a ``mass`` and its support is sorted)
    or hashable labels of any kind, such as the name of an exception (``None``, strings, tuples,
    booleans, complex numbers: compared by equality).

    Args:
        support: The atoms, at most :data:`MAX_ATOMS`.
        log_weights: Their log-weights, one per atom; they need not be normalised.

    Attributes:
        support: The distinct atoms (sorted when numeric).
        logp: Their normalised log-probabilities, ``mpf`` at :data:`DPS` digits (rounded when
            the weights were not exact).
        exact_probabilities: The probabilities as exact ``Fraction`` values when the law was
            built by :meth:`from_probabilities` from ``int`` and ``Fraction`` values, else None.

    Raises:
        ValueError: ``support`` and ``log_weights`` of different lengths, empty, or longer than
            :data:`MAX_ATOMS`; an atom that is NaN (or a label containing one), an infinite or
            too-large numeric atom, an unhashable atom, booleans mixed with numbers (``True ==
            1``); a log-weight that is NaN, +inf or not a number; all weights 0.
    """

    def __init__(self, support: Indexed, log_weights: Indexed):
        support = sequence(support, "support", MAX_ATOMS)
        log_weights = sequence(log_weights, "log_weights", MAX_ATOMS)
        _check_paired(support, log_weights, "log_weights")
        if len(support) == 0:
            raise ValueError("support and log_weights must hold at least one atom, got none")
        weights = relative_log_weights(check_log_weights(log_weights, "log_weights"))
        if isinstance(support, np.ndarray) and support.dtype.kind in "iuf":
            bad = np.flatnonzero(~np.isfinite(support)) if support.dtype.kind == "f" else []
            if len(bad):
                raise ParameterError(
                    f"support[{bad[0]}]",
                    "must be a finite number (or a label) and not NaN",
                    repr(support[bad[0]]),
                )
            if support.dtype.kind == "f" and support.dtype.itemsize > 8:
                support = [_check_atom(support[k], k) for k in range(len(support))]
            else:
                support = support.tolist()
        merged: dict[Hashable, list[mpmath.mpf]] = {}
        has_bool = has_number = False
        for k in range(len(support)):
            atom = _check_atom(support[k], k)
            if isinstance(atom, bool):
                has_bool = True
            elif _is_number(atom):
                has_number = True
            if weights[k] != MP_NINF:
                merged.setdefault(atom, []).append(weights[k])
        if has_bool and has_number:
            raise ParameterError(
                "support",
                "must not mix booleans with numbers (True == 1 in Python)",
            )
        if not merged:
            raise ParameterError("log_weights", "must give positive weight to at least one atom")
        with workdps():
            atoms = list(merged)
            self.numeric = all(_is_number(a) for a in atoms)
            if self.numeric:
                atoms.sort(key=rational)
            logw = [w[0] if len(w) == 1 else logsumexp(w) for w in (merged[a] for a in atoms)]
            log_z = logsumexp(logw)
            self.support: tuple[Hashable, ...] = tuple(atoms)
            self.logp: tuple[mpmath.mpf, ...] = tuple(w - log_z for w in logw)
        self._index = {a: i for i, a in enumerate(self.support)}
        self._logp_float = np.array([float(lp) for lp in self.logp])
        self._p_float = np.exp(self._logp_float)
        cum = np.cumsum(self._p_float)
        self._cum = cum / cum[-1]
        self._numeric_cache: np.ndarray | None = None
        self.exact_probabilities: tuple[Fraction, ...] | None = None

    @classmethod
    def from_probabilities(cls, support: Indexed, probabilities: Indexed) -> DiscreteLaw:
        """Build from probabilities (Fractions stay exact up to the final logarithm).

        When every probability is an ``int`` or a ``Fraction``, the law also keeps them exactly:
        :attr:`exact_probabilities` (aligned with ``support``, repeated atoms summed, divided by
        their exact total), what a rigorous enclosure of a divergence starts from
        (:mod:`dpquant.certify.enclosures`); otherwise it is None.

        Args:
            support: The atoms.
            probabilities: One per atom: finite, >= 0 and summing to 1 within
                :data:`PROBABILITY_SUM_TOLERANCE` (the rounding of float probabilities,
                normalised away).

        Returns:
            The law.

        Raises:
            ValueError: As for the constructor, or a sum further from 1 (refused rather than
                silently renormalised).
        """
        probabilities = sequence(probabilities, "probabilities", MAX_ATOMS)
        support = sequence(support, "support", MAX_ATOMS)
        _check_paired(support, probabilities, "probabilities")
        values = []
        for k in range(len(probabilities)):
            p = probabilities[k]
            if not is_real(p):
                raise ParameterError(f"probabilities[{k}]", "must be a real number", describe(p))
            value = to_mpf(p, f"probabilities[{k}]")
            if mpmath.isnan(value) or mpmath.isinf(value) or value < 0:
                raise ParameterError(
                    "probabilities",
                    "must be >= 0 and finite",
                    f"{p!r} at index {k}",
                )
            values.append(value)
        with workdps():
            total = mpmath.fsum(values)
            if values and total == 0:
                raise ParameterError("probabilities", "must not all be 0")
            if values and abs(total - 1) > PROBABILITY_SUM_TOLERANCE:
                raise ParameterError(
                    "probabilities",
                    f"must sum to 1 (within {PROBABILITY_SUM_TOLERANCE:g})",
                    f"a sum of {mpmath.nstr(total, 17)}",
                )
            logs = [MP_NINF if v == 0 else mpmath.log(v) for v in values]
        law = cls(support, logs)
        given = [probabilities[k] for k in range(len(probabilities))]
        if all(isinstance(p, int | Fraction) and not isinstance(p, bool) for p in given):
            exact = [Fraction(0)] * len(law.support)
            for k, p in enumerate(given):
                if p:
                    exact[law._index[_check_atom(support[k], k)]] += Fraction(p)
            total = sum(exact, Fraction(0))
            law.exact_probabilities = tuple(x / total for x in exact)
        return law

    def __len__(self) -> int:
        return len(self.support)

    def __repr__(self) -> str:
        return f"DiscreteLaw({len(self)} atoms)"

    @property
    def probabilities(self) -> np.ndarray:
        """Atom probabilities as floats (aligned with ``support``)."""
        return self._p_float.copy()

    def total_mass(self) -> mpmath.mpf:
        """Exact total mass Σ P(atom) (1 to the working precision)."""
        with workdps():
            return mpmath.fsum(mpmath.exp(lp) for lp in self.logp)

    def _query(self, atom: Any, name: str) -> Hashable:
        key = _atom_key(atom)
        try:
            hash(key)
        except TypeError:
            raise ParameterError(name, "must be hashable", type(atom).__name__) from None
        if _has_nan_label(key) or (isinstance(key, mpmath.mpf) and mpmath.isnan(key)):
            raise ParameterError(name, "must not be NaN")
        return key

    def logpmf_mp(self, atom: Hashable) -> mpmath.mpf:
        """Exact log P(X = atom).

        Args:
            atom: An atom or any hashable value.

        Returns:
            The log-probability, -inf off the support.
        """
        i = self._index.get(self._query(atom, "atom"))
        return MP_NINF if i is None else self.logp[i]

    def pmf_mp(self, atom: Hashable) -> mpmath.mpf:
        """Exact P(X = atom).

        Args:
            atom: An atom or any hashable value.

        Returns:
            The probability, 0 off the support.
        """
        with workdps():
            return mpmath.exp(self.logpmf_mp(atom))

    def logpmf(self, atoms: Any) -> np.ndarray:
        """Float log-probabilities, vectorised.

        Args:
            atoms: Real numbers for a law with numeric atoms (NaN and strings refused); a
                sequence of labels for a law with labels.

        Returns:
            One log-probability per atom given, -inf off the support.
        """
        if self.numeric:
            arr = np.atleast_1d(check_real_array(atoms, "atoms", allow_inf=True))
            support = self._numeric_support()
            if all(isinstance(a, int | float) for a in self.support):
                idx = np.clip(np.searchsorted(support, arr), 0, len(support) - 1)
                return np.where(support[idx] == arr, self._logp_float[idx], -np.inf)
        else:
            if isinstance(atoms, np.ndarray):
                arr = np.atleast_1d(atoms.astype(object))
            elif isinstance(atoms, list | tuple):
                arr = np.empty(len(atoms), dtype=object)
                for k, a in enumerate(atoms):
                    arr[k] = a
            else:
                arr = np.empty(1, dtype=object)
                arr[0] = atoms
        out = np.full(arr.shape, -np.inf)
        for k, a in enumerate(arr.ravel().tolist()):
            i = self._index.get(self._query(a, "atoms"))
            if i is not None:
                out.flat[k] = self._logp_float[i]
        return out

    def cdf(self, y: Any) -> np.ndarray:
        """P(X <= y), vectorised (numeric atoms only).

        Args:
            y: Real numbers, ±inf allowed, NaN refused.

        Returns:
            Float probabilities, one per point.
        """
        support = self._numeric_support()
        y = check_real_array(y, "y", allow_inf=True)
        idx = np.searchsorted(support, y, side="right")
        return np.concatenate([[0.0], self._cum])[idx]

    def mass(self, lo: Number, hi: Number) -> mpmath.mpf:
        """Exact P(lo <= X <= hi) (numeric atoms only).

        Args:
            lo: The lower end, real, ±inf allowed.
            hi: The upper end, likewise.

        Returns:
            The probability.
        """
        self._numeric_support()
        lo, hi = check_point(lo, "lo"), check_point(hi, "hi")
        with workdps():
            terms = [
                lp for a, lp in zip(self.support, self.logp, strict=True) if lo <= rational(a) <= hi
            ]
            return mpmath.exp(logsumexp(terms))

    def probability(self, event: Callable[[Hashable], bool]) -> mpmath.mpf:
        """Exact P(event(X)).

        Args:
            event: A predicate on atoms.

        Returns:
            The probability of the atoms where it holds.
        """
        if not callable(event):
            raise ParameterError("event", "must be a callable predicate", type(event).__name__)
        terms = []
        for a, lp in zip(self.support, self.logp, strict=True):
            try:
                inside = bool(event(a))
            except Exception as exc:  # noqa: BLE001 -- the caller's predicate failed on an atom
                raise ParameterError(
                    "event",
                    f"must accept every atom: it raised {type(exc).__name__} on {a!r}: {exc}",
                ) from exc
            if inside:
                terms.append(lp)
        with workdps():
            return mpmath.exp(logsumexp(terms))

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Independent draws by inverse CDF (one uniform each, vectorised).

        Args:
            size: The draws, 0 (an empty array) to
                :data:`dpquant.reference.validation.MAX_DRAWS`.
            rng: A ``numpy.random.Generator``.

        Returns:
            ``size`` atoms.
        """
        size, rng = check_size(size), check_rng(rng)
        idx = np.searchsorted(self._cum, rng.random(size), side="right")
        idx = np.minimum(idx, len(self.support) - 1)
        if self.numeric:
            return self._numeric_support()[idx]
        values = np.empty(len(self.support), dtype=object)
        for k, a in enumerate(self.support):
            values[k] = a
        return values[idx]

    @property
    def float_support(self) -> np.ndarray:
        """The numeric atoms as floats, aligned with ``support`` and ``probabilities`` (a copy;
        numeric atoms only: two exact atoms may round to one float)."""
        return self._numeric_support().copy()

    def _numeric_support(self) -> np.ndarray:
        if not self.numeric:
            raise ValueError("this law has non-numeric atoms: cdf and mass need numbers")
        if self._numeric_cache is None:
            # numeric atoms: ints, floats, Fractions or mpfs
            self._numeric_cache = np.array([float(cast(SupportsFloat, a)) for a in self.support])
        return self._numeric_cache


def _is_number(x: Any) -> bool:
    return isinstance(
        x, int | float | Fraction | mpmath.mpf | np.integer | np.floating
    ) and not isinstance(x, bool | np.bool_)


def _atom_key(x: Any) -> Hashable:
    """Normalise numpy scalars so that 1, 1.0 and np.float64(1) are one atom."""
    if isinstance(x, np.generic):
        return x.item()
    return x


__all__ = ["DiscreteLaw"]
