"""Exact output laws and the divergences between them.

Four laws cover every mechanism of this project:

* :class:`DiscreteLaw` -- finitely many atoms with log-probabilities at mpmath precision;
* :class:`PiecewiseLogLinear` -- a density on an interval made of pieces with
  ``log f(y) = a·y + b`` (piecewise-constant, truncated and flattened Laplace, the exponential
  mechanism over Smith's intervals, the tzamos20 extension density);
* :class:`ProductLaw` -- independent coordinates, each one of the two laws above;
* :class:`GridLaw` -- a density on a box of R^k, constant on the cells of a product grid.

Each law has a float fast path (``logpdf``/``cdf``/``sample``, vectorised numpy) and an exact path
(``*_mp`` methods, ``mass``, ``total_mass``; mpmath at :data:`reference.exact.mp.DPS` digits).
Between two laws of the same kind: the exact privacy loss :func:`privacy_loss` (sup |log f − log g|
over the merged breakpoints, infinite when the supports differ), the hockey-stick divergence
:func:`hockey_stick` δ(ε) and the Rényi divergence :func:`renyi_divergence` of any order α.

Exact parameters: a law stores floats for speed and, optionally, exact values (``Fraction``,
``int``, ``mpf``) for the exact path; ``exact_*`` arguments may be lazy sequences (anything with
``__getitem__``) so that a law with 10^6 pieces costs nothing until its exact path is used.

Anchored pieces (``notes/foundation.md``, "Exact laws"): a piece's log-density is evaluated as
``a·(y − e) + c`` with ``e`` its *anchor* (the right end when a > 0 or the left end is −inf, else
the left end) and ``c = a·e + b`` the log-density there. ``c`` is computed once per piece, exactly
(``Fraction`` arithmetic, or mpmath at a precision raised by the digits that cancel) whenever
``a·e`` and ``b`` are large and cancel, so neither path loses digits to a huge slope times a huge
breakpoint (a Laplace law with |loc/scale| = 10^200 has mass 1 to the working precision).

Bad input: every constructor, method and divergence refuses what it cannot handle with a
``ValueError`` naming the parameter (types, NaN, ranges, sizes above the caps below). The float
sampler of a density refuses a law whose draws float64 cannot resolve
(:meth:`PiecewiseLogLinear.float_sampling_error` above :data:`FLOAT_SAMPLING_TOLERANCE`).
"""

from __future__ import annotations

import bisect
import math
import numbers
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Protocol, runtime_checkable

import mpmath
import numpy as np

from reference.exact.mp import DPS, MP_INF, MP_NINF, logsumexp, to_mpf, workdps
from reference.sampling import exponential_offset_inverse
from reference.validation import (
    MAX_DRAWS,
    MAX_FLOAT,
    check_int,
    check_real_array,
    check_rng,
    check_size,
)

Number = float | int | Fraction | mpmath.mpf

# Pieces whose float log-mass lies this far below the largest contribute < e^-350 relative to the
# normaliser: far below the 60-digit working precision, so the exact normaliser may skip them.
_NEGLIGIBLE_NATS = 350.0

MAX_ATOMS = 200_000
"""The most atoms (entries of ``support``) a :class:`DiscreteLaw` takes: it is normalised atom by
atom in mpmath (~10 µs an atom), and so are its divergences, which stay within a few seconds."""

MAX_PIECES = 10**7
"""The most pieces a :class:`PiecewiseLogLinear` takes (its float path is O(pieces))."""

MAX_GRID_CELLS = 200_000
"""The most cells a :class:`GridLaw` takes (it is normalised cell by cell in mpmath)."""

MAX_MERGED_CELLS = 200_000
"""The most merged cells (pieces of two densities, cells of two grid laws) a divergence visits:
each costs tens of microseconds of mpmath, so the cap keeps a divergence within ~10 s."""

MAX_PRODUCT_CELLS = 200_000
"""The most product cells :func:`hockey_stick` sums for two :class:`ProductLaw`."""

MAX_COMPONENTS = 10_000
"""The most coordinates of a :class:`ProductLaw`."""

MAX_AXES = 32
"""The most axes of a :class:`GridLaw`."""

FLOAT_SAMPLING_TOLERANCE = 2.0**-13
"""The float samplers of densities refuse a law whose draws, rounded to float64, would move its
CDF by more than this, about 1.2e-4 (:meth:`PiecewiseLogLinear.float_sampling_error`): below what
a conformance test of the largest sample (10^7 draws, DKW band ≈ 9e-4 at level 1e-7) can see; the
same limit as the primitives' float samplers (:data:`reference.sampling.FLOAT_GRID_FRACTION`)."""

PROBABILITY_SUM_TOLERANCE = 1e-9
""":meth:`DiscreteLaw.from_probabilities` refuses probabilities whose sum differs from 1 by more
than this (rounding of float probabilities is normalised away; anything larger is a caller's
mistake, not rounding)."""

# The float log-density at a piece's anchor is trusted when its rounding error bound is below
# this; otherwise it is recomputed exactly (see the module docstring).
_FLOAT_TOP_TOLERANCE = 2.0**-40
_LN2 = math.log(2.0)


@runtime_checkable
class ExactDistribution(Protocol):
    """What every exact law offers."""

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray: ...

    def total_mass(self) -> mpmath.mpf: ...


# --------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------


def _describe(x: Any) -> str:
    text = repr(x)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_real(x: Any) -> bool:
    """A real number of any exact or float type (int, float, Fraction, mpf, numpy), not a bool."""
    return isinstance(x, numbers.Real | np.integer | np.floating) and not isinstance(
        x, bool | np.bool_
    )


def _is_inf(x: Any) -> bool:
    if isinstance(x, float):
        return math.isinf(x)
    if isinstance(x, mpmath.mpf):
        return bool(mpmath.isinf(x))
    return False


def _rational(x: Any) -> int | float | Fraction:
    """An exact real as an int, float or Fraction (an mpf becomes the Fraction it equals exactly;
    an infinite mpf the float infinity), so that any two values compare exactly in Python."""
    if isinstance(x, mpmath.mpf):
        if mpmath.isinf(x):
            return math.inf if x > 0 else -math.inf
        sign, man, exp, _ = x._mpf_
        man = -int(man) if sign else int(man)
        return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2 ** (-exp))
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    return x


def _exact_real(
    x: Any, name: str, *, neg_inf: bool = False, pos_inf: bool = False, fit: bool = True
) -> int | float | Fraction | mpmath.mpf:
    """A real number kept exact (int, Fraction, float, mpf; numpy scalars as Python numbers):
    NaN refused, infinities refused unless allowed, finite values that do not fit a float64
    refused when ``fit``."""
    if not _is_real(x):
        raise ValueError(f"{name} must be a real number, got {_describe(x)}")
    if isinstance(x, np.integer):
        x = int(x)
    elif isinstance(x, np.floating):
        value = float(x)
        if math.isinf(value) and np.isfinite(x):
            raise ValueError(f"{name} must fit a float64 (|{name}| <= {MAX_FLOAT:.4g}), got {x!r}")
        x = value
    if isinstance(x, float):
        nan, inf = math.isnan(x), math.isinf(x)
    elif isinstance(x, mpmath.mpf):
        nan, inf = bool(mpmath.isnan(x)), bool(mpmath.isinf(x))
    else:
        nan, inf = False, False
    if nan:
        raise ValueError(f"{name} must be a real number, got nan")
    if inf:
        if (x > 0 and not pos_inf) or (x < 0 and not neg_inf):
            allowed = (
                "finite" if not (neg_inf or pos_inf) else ("finite or -inf" if neg_inf else
                                                             "finite or +inf")
            )
            raise ValueError(f"{name} must be {allowed}, got {x!r}")
        return x
    if fit and not isinstance(x, float) and abs(x) > MAX_FLOAT:
        raise ValueError(f"{name} must fit a float64 (|{name}| <= {MAX_FLOAT:.4g})")
    return x


def _sequence(values: Any, name: str, cap: int) -> Sequence[Any]:
    """A sequence (list, tuple, range, 1-D array or any object with ``__len__`` and
    ``__getitem__``) of at most ``cap`` items; strings, mappings and sets are refused."""
    if isinstance(values, str | bytes | dict | set | frozenset) or not (
        hasattr(values, "__len__") and hasattr(values, "__getitem__")
    ):
        raise ValueError(f"{name} must be a sequence, got {_describe(values)}")
    if isinstance(values, np.ndarray) and values.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {values.shape}")
    n = len(values)
    if n > cap:
        raise ValueError(f"{name} must have at most {cap} items, got {n}")
    return values


def _float_vector(
    values: Any, name: str, cap: int, *, neg_inf: bool = False, pos_inf: bool = False
) -> np.ndarray:
    """A sequence of real numbers as a float64 array (exact values rounded once); NaN refused,
    infinities refused unless allowed, values that do not fit a float64 refused."""
    values = _sequence(values, name, cap)
    if isinstance(values, np.ndarray) and values.dtype.kind in "iuf":
        with np.errstate(over="ignore"):
            arr = values.astype(np.float64)
        if values.dtype.kind == "f" and values.dtype.itemsize > 8:
            if np.any(np.isinf(arr) & np.isfinite(values)):
                raise ValueError(f"{name} must hold values that fit a float64")
    elif isinstance(values, np.ndarray) and values.dtype.kind != "O":
        raise ValueError(f"{name} must hold real numbers, got dtype {values.dtype}")
    else:
        arr = np.empty(len(values))
        for k in range(len(values)):
            v = values[k]
            if type(v) is float:
                arr[k] = v
                continue
            v = _exact_real(v, f"{name}[{k}]", neg_inf=True, pos_inf=True)
            arr[k] = float(v)
    bad = np.flatnonzero(np.isnan(arr))
    if bad.size:
        raise ValueError(f"{name} must not contain NaN (at index {bad[0]})")
    bad = np.flatnonzero((np.isposinf(arr) & (not pos_inf)) | (np.isneginf(arr) & (not neg_inf)))
    if bad.size:
        allowed = "finite" + (" or -inf" if neg_inf else "") + (" or +inf" if pos_inf else "")
        raise ValueError(f"{name} must be {allowed}, got {arr[bad[0]]} at index {bad[0]}")
    return arr


def _check_point(x: Any, name: str) -> int | float | Fraction:
    """An evaluation point of a law's exact path: a real number (±inf allowed, NaN refused), kept
    exact (an mpf becomes the Fraction it equals)."""
    return _rational(_exact_real(x, name, neg_inf=True, pos_inf=True))


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


_LAW_KINDS = "a DiscreteLaw, PiecewiseLogLinear, ProductLaw or GridLaw"


def _law_kind(law: Any, name: str) -> type:
    for kind in (DiscreteLaw, PiecewiseLogLinear, ProductLaw, GridLaw):
        if isinstance(law, kind):
            return kind
    hint = ""
    if hasattr(law, "truncated") or hasattr(law, "clamped"):
        hint = " (take a finite image of an infinite law first: .clamped(lo, hi) or .truncated(r))"
    raise ValueError(f"{name} must be {_LAW_KINDS}, got {type(law).__name__}{hint}")


def _check_pair(p: Any, q: Any) -> tuple[type, type]:
    """The kinds of two laws, refused unless the divergences between them are defined here: two
    laws of one kind, or an atomic and a continuous law on the real line (mutually singular)."""
    kp, kq = _law_kind(p, "p"), _law_kind(q, "q")
    if kp is not kq and {kp, kq} != {DiscreteLaw, PiecewiseLogLinear}:
        raise ValueError(
            f"p and q must be laws on the same space: a {kp.__name__} and a {kq.__name__} "
            "cannot be compared"
        )
    return kp, kq


def _check_epsilon_value(epsilon: Any) -> mpmath.mpf:
    """ε of the hockey-stick divergence: a finite real (negative allowed), kept exact."""
    value = _exact_real(epsilon, "epsilon")
    return to_mpf(value)


# --------------------------------------------------------------------------------------------
# Finite discrete laws
# --------------------------------------------------------------------------------------------


def _check_atom(atom: Any, k: int) -> Hashable:
    """An atom: a finite real number (fitting a float64) or a hashable label; never NaN."""
    kind = type(atom)
    if kind is float:
        if math.isnan(atom) or math.isinf(atom):
            raise ValueError(
                f"support[{k}] must be a finite number (or a label) and not NaN, got {atom!r}"
            )
        return atom
    if kind is int and -MAX_FLOAT <= atom <= MAX_FLOAT:
        return atom
    key = _atom_key(atom)
    try:
        hash(key)
    except TypeError:
        raise ValueError(
            f"support[{k}] must be a number or a hashable label, got {type(atom).__name__}"
        ) from None
    if _is_number(key):
        value = _exact_real(key, f"support[{k}]", neg_inf=True, pos_inf=True)
        if _is_inf(value):
            raise ValueError(f"support[{k}] must be a finite number (or a label), got {value!r}")
        return value
    if _has_nan_label(key):
        raise ValueError(f"support[{k}] must not be NaN, got {atom!r}")
    return key


def _log_weight(x: Any, name: str) -> Number:
    """A log-weight kept exact: a real number or -inf (a weight of 0); NaN and +inf refused."""
    if not _is_real(x):
        raise ValueError(f"{name} must be a real number or -inf, got {_describe(x)}")
    return _exact_real(x, name, neg_inf=True, fit=False)


def _log_weights(values: Sequence[Any], name: str) -> list[Number]:
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        return values.tolist()
    if isinstance(values, np.ndarray) and values.dtype.kind == "f" and values.dtype.itemsize <= 8:
        bad = np.flatnonzero(np.isnan(values) | np.isposinf(values))
        if bad.size:
            raise ValueError(f"{name}[{bad[0]}] must be finite or -inf, got {values[bad[0]]}")
        return values.astype(np.float64).tolist()
    return [_log_weight(values[k], f"{name}[{k}]") for k in range(len(values))]


def _relative(weights: Sequence[Number]) -> list[mpmath.mpf]:
    """Each log-weight minus the largest finite one, computed exactly and rounded once (-inf
    stays -inf): normalising then loses no digit, however large the weights (1e21, 10**400)."""
    finite = [w for w in weights if not _is_inf(w)]
    if not finite:
        return [MP_NINF] * len(weights)
    with workdps():
        if all(type(w) is float for w in finite):
            shift = mpmath.mpf(max(finite))
            return [MP_NINF if _is_inf(w) else mpmath.mpf(w) - shift for w in weights]
        exact = [None if _is_inf(w) else _rational(w) for w in weights]
        top = max(r for r in exact if r is not None)
        out = []
        for r in exact:
            if r is None:
                out.append(MP_NINF)
            elif type(r) is float and type(top) is float:
                out.append(mpmath.mpf(r) - mpmath.mpf(top))
            else:
                out.append(to_mpf(Fraction(r) - Fraction(top)))
        return out


class DiscreteLaw:
    """A finite discrete law: distinct atoms and their log-probabilities (mpf).

    ``log_weights`` need not be normalised; atoms with weight 0 (log-weight -inf) are dropped and
    repeated atoms are merged. Atoms are either all real numbers (then the law has a ``cdf`` and
    a ``mass`` and its support is sorted) or hashable labels of any kind, such as the name of an
    exception (``None``, strings, tuples, booleans, complex numbers: compared by equality).

    Refused with ``ValueError``: ``support`` and ``log_weights`` of different lengths, empty, or
    longer than :data:`MAX_ATOMS`; an atom that is NaN (or a label containing one), an infinite or
    too-large numeric atom, an unhashable atom, booleans mixed with numbers (``True == 1``); a
    log-weight that is NaN, +inf or not a number; all weights 0.
    """

    def __init__(self, support: Sequence[Hashable], log_weights: Sequence[Number]):
        support = _sequence(support, "support", MAX_ATOMS)
        log_weights = _sequence(log_weights, "log_weights", MAX_ATOMS)
        if len(support) != len(log_weights):
            raise ValueError(
                f"support and log_weights must have the same length, got {len(support)} and "
                f"{len(log_weights)}"
            )
        if len(support) == 0:
            raise ValueError("support and log_weights must hold at least one atom, got none")
        weights = _relative(_log_weights(log_weights, "log_weights"))
        if isinstance(support, np.ndarray) and support.dtype.kind in "iuf":
            bad = np.flatnonzero(~np.isfinite(support)) if support.dtype.kind == "f" else []
            if len(bad):
                raise ValueError(
                    f"support[{bad[0]}] must be a finite number (or a label) and not NaN, got "
                    f"{support[bad[0]]!r}"
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
            raise ValueError("support must not mix booleans with numbers (True == 1 in Python)")
        if not merged:
            raise ValueError("log_weights must give positive weight to at least one atom")
        with workdps():
            atoms = list(merged)
            self.numeric = all(_is_number(a) for a in atoms)
            if self.numeric:
                atoms.sort(key=_rational)
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

    @classmethod
    def from_probabilities(
        cls, support: Sequence[Hashable], probabilities: Sequence[Number]
    ) -> DiscreteLaw:
        """Build from probabilities (Fractions stay exact up to the final logarithm).

        The probabilities must be finite, >= 0 and sum to 1 within
        :data:`PROBABILITY_SUM_TOLERANCE` (the rounding of float probabilities, normalised away);
        a sum further from 1 is refused rather than silently renormalised.
        """
        probabilities = _sequence(probabilities, "probabilities", MAX_ATOMS)
        support = _sequence(support, "support", MAX_ATOMS)
        if len(support) != len(probabilities):
            raise ValueError(
                f"support and probabilities must have the same length, got {len(support)} and "
                f"{len(probabilities)}"
            )
        values = []
        for k in range(len(probabilities)):
            p = probabilities[k]
            if not _is_real(p):
                raise ValueError(f"probabilities[{k}] must be a real number, got {_describe(p)}")
            value = to_mpf(p, f"probabilities[{k}]")
            if mpmath.isnan(value) or mpmath.isinf(value) or value < 0:
                raise ValueError(
                    f"probabilities must be >= 0 and finite, got {p!r} at index {k}"
                )
            values.append(value)
        with workdps():
            total = mpmath.fsum(values)
            if values and total == 0:
                raise ValueError("probabilities must not all be 0")
            if values and abs(total - 1) > PROBABILITY_SUM_TOLERANCE:
                raise ValueError(
                    f"probabilities must sum to 1 (within {PROBABILITY_SUM_TOLERANCE:g}), got a "
                    f"sum of {mpmath.nstr(total, 17)}"
                )
            logs = [MP_NINF if v == 0 else mpmath.log(v) for v in values]
        return cls(support, logs)

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
            raise ValueError(f"{name} must be hashable, got {type(atom).__name__}") from None
        if _has_nan_label(key) or (isinstance(key, mpmath.mpf) and mpmath.isnan(key)):
            raise ValueError(f"{name} must not be NaN")
        return key

    def logpmf_mp(self, atom: Hashable) -> mpmath.mpf:
        """Exact log P(X = atom) (-inf off the support)."""
        i = self._index.get(self._query(atom, "atom"))
        return MP_NINF if i is None else self.logp[i]

    def pmf_mp(self, atom: Hashable) -> mpmath.mpf:
        """Exact P(X = atom)."""
        with workdps():
            return mpmath.exp(self.logpmf_mp(atom))

    def logpmf(self, atoms: Any) -> np.ndarray:
        """Float log-probabilities of ``atoms`` (vectorised; -inf off the support). A law with
        numeric atoms takes real numbers (NaN and strings refused); a law with labels takes a
        sequence of labels."""
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
        """P(X <= y), vectorised (numeric atoms only; y real, ±inf allowed, NaN refused)."""
        support = self._numeric_support()
        y = check_real_array(y, "y", allow_inf=True)
        idx = np.searchsorted(support, y, side="right")
        return np.concatenate([[0.0], self._cum])[idx]

    def mass(self, lo: Number, hi: Number) -> mpmath.mpf:
        """Exact P(lo <= X <= hi) (numeric atoms only; ends real, ±inf allowed)."""
        self._numeric_support()
        lo, hi = _check_point(lo, "lo"), _check_point(hi, "hi")
        with workdps():
            terms = [
                lp
                for a, lp in zip(self.support, self.logp, strict=True)
                if lo <= _rational(a) <= hi
            ]
            return mpmath.exp(logsumexp(terms))

    def probability(self, event: Callable[[Hashable], bool]) -> mpmath.mpf:
        """Exact P(event(X)) for a predicate on atoms."""
        if not callable(event):
            raise ValueError(f"event must be a callable predicate, got {type(event).__name__}")
        terms = []
        for a, lp in zip(self.support, self.logp, strict=True):
            try:
                inside = bool(event(a))
            except Exception as exc:  # noqa: BLE001 -- the caller's predicate failed on an atom
                raise ValueError(
                    f"event must accept every atom: it raised {type(exc).__name__} on {a!r}: {exc}"
                ) from exc
            if inside:
                terms.append(lp)
        with workdps():
            return mpmath.exp(logsumexp(terms))

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent draws by inverse CDF (one uniform each, vectorised); size 0 gives
        an empty array, sizes above :data:`reference.validation.MAX_DRAWS` are refused."""
        size, rng = check_size(size), check_rng(rng)
        idx = np.searchsorted(self._cum, rng.random(size), side="right")
        idx = np.minimum(idx, len(self.support) - 1)
        if self.numeric:
            return self._numeric_support()[idx]
        values = np.empty(len(self.support), dtype=object)
        for k, a in enumerate(self.support):
            values[k] = a
        return values[idx]

    def _numeric_support(self) -> np.ndarray:
        if not self.numeric:
            raise ValueError("this law has non-numeric atoms: cdf and mass need numbers")
        if self._numeric_cache is None:
            self._numeric_cache = np.array([float(a) for a in self.support])
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


# --------------------------------------------------------------------------------------------
# Piecewise log-linear densities
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Piece:
    """One piece: ``log f(y) = slope·y + intercept`` on [left, right] (unnormalised, exact)."""

    left: Number
    right: Number
    slope: mpmath.mpf
    intercept: mpmath.mpf

    def __post_init__(self) -> None:
        _exact_real(self.left, "left", neg_inf=True, pos_inf=True, fit=False)
        _exact_real(self.right, "right", neg_inf=True, pos_inf=True, fit=False)
        _exact_real(self.slope, "slope", fit=False)
        _exact_real(self.intercept, "intercept", neg_inf=True, fit=False)


def _diff(x: Any, y: Any) -> mpmath.mpf:
    """x − y for exact reals (int, float, Fraction; ±inf floats), rounded once to the working
    precision: no cancellation, whatever the magnitudes."""
    if _is_inf(x) or _is_inf(y):
        if _is_inf(x) and _is_inf(y):
            if (x > 0) == (y > 0):
                raise ValueError("x − y of two equal infinities is undefined")
            return MP_INF if x > 0 else MP_NINF
        return (MP_INF if x > 0 else MP_NINF) if _is_inf(x) else (MP_NINF if y > 0 else MP_INF)
    if type(x) is float and type(y) is float:
        return mpmath.mpf(x) - mpmath.mpf(y)
    if isinstance(x, mpmath.mpf) or isinstance(y, mpmath.mpf):
        return to_mpf(x) - to_mpf(y)
    return to_mpf(Fraction(x) - Fraction(y))


def _affine_exact(a: Any, e: Any, b: Any) -> Number:
    """a·e + b exactly: a Fraction when the three are rationals (int, float, Fraction), else an
    mpf computed at a precision raised by the digits that a·e and b may cancel; -inf when b is."""
    if _is_inf(b):
        return MP_NINF
    if a == 0:
        return _rational(b) if not isinstance(b, mpmath.mpf) else b
    if not any(isinstance(v, mpmath.mpf) for v in (a, e, b)):
        return Fraction(_rational(a)) * Fraction(_rational(e)) + Fraction(_rational(b))
    with workdps():
        am, em, bm = to_mpf(a), to_mpf(e), to_mpf(b)
        bits = max(0, _mag(am) + _mag(em), _mag(bm))
    with mpmath.workdps(DPS + int(bits * 0.30103) + 10):
        return to_mpf(a) * to_mpf(e) + to_mpf(b)


def _mag(x: mpmath.mpf) -> int:
    """About log2 |x| (0 for 0)."""
    return 0 if x == 0 else int(mpmath.mag(x))


def _lie(a: mpmath.mpf, b: mpmath.mpf, lo: mpmath.mpf, hi: mpmath.mpf) -> mpmath.mpf:
    """log ∫_lo^hi exp(a·t + b) dt for mpf arguments (validated by the caller)."""
    if b == MP_NINF or not lo < hi:
        return MP_NINF
    if mpmath.isinf(lo) or mpmath.isinf(hi):
        if mpmath.isinf(lo) and mpmath.isinf(hi):
            return MP_INF
        if mpmath.isinf(hi):
            if a >= 0:
                return MP_INF
            return a * lo + b - mpmath.log(-a)
        if a <= 0:
            return MP_INF
        return a * hi + b - mpmath.log(a)
    w = hi - lo
    if a == 0:
        return b + mpmath.log(w)
    if a > 0:
        return a * hi + b + mpmath.log(-mpmath.expm1(-a * w)) - mpmath.log(a)
    return a * lo + b + mpmath.log(-mpmath.expm1(a * w)) - mpmath.log(-a)


def _float_logsumexp(x: np.ndarray) -> float:
    peak = float(np.max(x))
    if not np.isfinite(peak):
        return peak
    return peak + math.log(float(np.sum(np.exp(x - peak))))


class PiecewiseLogLinear:
    """A density on [x_0, x_m] with log f(y) = a_i·y + b_i on [x_i, x_{i+1}] (normalised here).

    Parameters
    ----------
    breaks : m + 1 strictly increasing breakpoints; x_0 may be -inf (then a_0 > 0) and x_m may be
        +inf (then a_{m-1} < 0). At most :data:`MAX_PIECES` pieces.
    slopes, intercepts : m numbers each (finite slopes); an intercept of -inf marks a piece of
        zero density.
    exact_breaks, exact_slopes, exact_intercepts : optional exact values (``Fraction``, ``int``,
        ``mpf``, or lazy sequences of them) used by the exact path instead of the floats (they may
        differ from the floats' law by a constant factor of the density, never otherwise).

    Every entry is checked (real numbers only, no NaN, infinities only where stated, values that
    fit a float64); a bad one raises ``ValueError`` naming the parameter and the index. Exact
    values given as lists are checked too; lazy ones when they are used.

    The float path (``logpdf``, ``cdf``, ``sample``) and the exact path agree to ~1e-12 in log
    density whatever the magnitudes of the slopes, breaks and intercepts (module docstring,
    "Anchored pieces"). :meth:`sample` refuses a law that float64 cannot resolve
    (:meth:`float_sampling_error`).
    """

    def __init__(
        self,
        breaks: Sequence[Number],
        slopes: Sequence[Number],
        intercepts: Sequence[Number],
        *,
        exact_breaks: Sequence[Number] | None = None,
        exact_slopes: Sequence[Number] | None = None,
        exact_intercepts: Sequence[Number] | None = None,
    ):
        self.breaks = _float_vector(breaks, "breaks", MAX_PIECES + 1, neg_inf=True, pos_inf=True)
        self.slopes = _float_vector(slopes, "slopes", MAX_PIECES)
        self.intercepts = _float_vector(intercepts, "intercepts", MAX_PIECES, neg_inf=True)
        self._validate()
        self._xb = _exact_or_none(breaks, exact_breaks, self.breaks, "exact_breaks", True, True)
        self._xa = _exact_or_none(slopes, exact_slopes, self.slopes, "exact_slopes", False, False)
        self._xc = _exact_or_none(
            intercepts, exact_intercepts, self.intercepts, "exact_intercepts", True, False
        )
        self._log_z_mp: mpmath.mpf | None = None
        self._breaks_exact: list[Number] | None = None
        self._tops: dict[int, Number] = {}
        self._rel_tops: dict[int, mpmath.mpf] = {}
        self._ref_top: Number | None = None
        self._forms: dict[int, tuple[mpmath.mpf, Number, mpmath.mpf] | None] = {}
        self._sampling_error: float | None = None
        self._sampling_hint = ""
        if isinstance(self._xb, list | tuple | np.ndarray):
            self._exact_list()  # exact breaks given in full: checked now (lazy ones when used)
        self._float_path()

    # -- construction ------------------------------------------------------------------------

    def _validate(self) -> None:
        x, a, b = self.breaks, self.slopes, self.intercepts
        m = len(a)
        if len(x) != m + 1 or len(b) != m or m == 0:
            raise ValueError(
                f"breaks must have one more entry than slopes and intercepts (>= 1 piece), got "
                f"{len(x)}, {len(a)}, {len(b)}"
            )
        with np.errstate(over="ignore", invalid="ignore"):
            increasing = bool(np.all(x[1:] > x[:-1]))
        if not increasing:
            raise ValueError("breaks must be strictly increasing")
        if np.isinf(x[1:-1]).any() or np.isposinf(x[0]) or np.isneginf(x[-1]):
            raise ValueError("breaks: only the first may be -inf and only the last may be +inf")
        if np.isneginf(x[0]) and np.isfinite(b[0]) and not a[0] > 0:
            raise ValueError("slopes[0]: a piece reaching -inf needs a slope > 0 to be integrable")
        if np.isposinf(x[-1]) and np.isfinite(b[-1]) and not a[-1] < 0:
            raise ValueError(
                f"slopes[{m - 1}]: a piece reaching +inf needs a slope < 0 to be integrable"
            )
        if np.isneginf(b).all():
            raise ValueError("intercepts: the density must be positive on at least one piece")

    def _float_shapes(self) -> np.ndarray:
        """log ∫_piece exp(a·(y − e)) dy per piece in float (e the anchor), without overflow."""
        x, a = self.breaks, self.slopes
        left, right = x[:-1], x[1:]
        half = np.isinf(left) | np.isinf(right)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            w = right - left
            wide = ~half & np.isinf(w)
            logw = np.log(w)
            if wide.any():  # a width that overflows a double: measured in half units
                half_w = right / 2 - left / 2
                logw = np.where(wide, np.log(half_w) + _LN2, logw)
            else:
                half_w = w
            if not a.any():  # piecewise constant (no half-lines then): log of the widths
                return logw
            aw = np.abs(a) * np.where(wide, half_w, w)
            aw = np.where(wide, aw * 2, aw)
            flat = ~half & (aw < 1e-12)
            shape = np.where(flat, logw, np.log(-np.expm1(-aw)) - np.log(np.abs(a)))
        return shape

    def _float_path(self) -> None:
        """Float log-masses of the pieces, their cumulative sums and each piece's log-density at
        its anchor, all normalised; O(m), vectorised. A piece's log-density at the anchor,
        a·e + b, is taken from floats when its rounding error is below 2^-40 and recomputed
        exactly otherwise (skipping pieces too light to matter, whose floats are relatively
        accurate)."""
        x, a, b = self.breaks, self.slopes, self.intercepts
        left, right = x[:-1], x[1:]
        live = np.isfinite(b)
        self._anchor_right = (a > 0) | np.isneginf(left)
        self._anchor = np.where(self._anchor_right, right, left)
        shape = self._float_shapes()
        tol = _FLOAT_TOP_TOLERANCE
        with np.errstate(over="ignore", invalid="ignore"):
            prod = a * self._anchor
            top = np.where(live, prod + b, -np.inf)
            # a·e + b rounds only where a·e is not 0: a flat piece's top is its intercept, exact
            err = np.where(live & (prod != 0), 2.0**-50 * (np.abs(prod) + np.abs(b)), 0.0)
            est = np.where(live, top + shape, -np.inf)
        cand = np.flatnonzero(live & ~(np.isfinite(top) & (err <= tol)))
        trusted = live.copy()
        trusted[cand] = False
        ref = int(np.argmax(np.where(trusted, est, -np.inf))) if trusted.any() else -1
        exact: dict[int, mpmath.mpf] = {}
        if cand.size:
            with np.errstate(over="ignore", invalid="ignore"):
                upper = est[cand] + err[cand]
            upper = np.where(np.isnan(upper), np.inf, upper)
            pending = cand[np.argsort(-upper, kind="stable")]
            while pending.size and ref < 0:  # no trusted piece: the heaviest candidate is ref
                i = int(pending[0])
                pending = pending[1:]
                with workdps():
                    exact[i] = to_mpf(self._exact_top(i))
                if exact[i] != MP_NINF:
                    ref = i
            if pending.size and np.isfinite(est[ref]) and np.isfinite(err[ref]):
                # skip candidates far below ref (negligible) whose floats are relatively exact
                floor = est[ref] - err[ref]
                with np.errstate(over="ignore", invalid="ignore"):
                    hi = est[pending] + err[pending]
                    skip = (
                        np.isfinite(hi)
                        & (hi < floor - 1000.0)
                        & (err[pending] + err[ref] <= tol * (floor - hi))
                    )
                pending = pending[~skip]
            with workdps():
                for i in pending.tolist():
                    exact[i] = to_mpf(self._exact_top(i))
        if ref < 0:  # every live piece is zero on the exact path: keep the float view
            ref = int(np.argmax(est))
        with np.errstate(over="ignore", invalid="ignore"):
            rel = np.where(live, top - top[ref], -np.inf)
        base: mpmath.mpf | None = None
        if exact:
            with workdps():
                if ref not in exact:
                    exact[ref] = to_mpf(self._exact_top(ref))
                base = exact[ref]
                if base == MP_NINF:
                    ref = max(exact, key=lambda k: exact[k])
                    base = exact[ref]
                for i, v in exact.items():
                    rel[i] = -np.inf if v == MP_NINF else float(v - base)
                j = int(np.argmax(np.where(live, rel + shape, -np.inf)))
                if j in exact and j != ref:  # re-base on the heaviest piece, exactly
                    shift = exact[j] - base
                    base = exact[j]
                    with np.errstate(invalid="ignore"):
                        rel = rel - float(shift)
                    for i, v in exact.items():
                        rel[i] = -np.inf if v == MP_NINF else float(v - base)
        with np.errstate(invalid="ignore"):
            log_mass = np.where(live, rel + shape, -np.inf)
        lse = _float_logsumexp(log_mass)
        if not np.isfinite(lse):
            raise ValueError(
                "slopes and intercepts give a density whose float normaliser is not finite"
            )
        self._log_mass = log_mass - lse
        self._log_top = np.where(live, rel - lse, -np.inf)
        self._log_z = float(base + lse) if base is not None else float(top[ref] + lse)
        self._cum = np.cumsum(np.exp(self._log_mass))
        self._cum /= self._cum[-1]

    # -- float path ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.slopes)

    def __repr__(self) -> str:
        return f"PiecewiseLogLinear({len(self)} pieces on [{self.breaks[0]}, {self.breaks[-1]}])"

    @property
    def support(self) -> tuple[float, float]:
        pos = np.flatnonzero(np.isfinite(self.intercepts))
        return float(self.breaks[pos[0]]), float(self.breaks[pos[-1] + 1])

    @property
    def log_normalizer(self) -> float:
        """Float log ∫ exp(a·y + b) (unnormalised density); see :attr:`log_normalizer_mp`."""
        return self._log_z

    def _piece_of(self, y: np.ndarray) -> np.ndarray:
        return np.clip(np.searchsorted(self.breaks, y, side="right") - 1, 0, len(self) - 1)

    def logpdf(self, y: Any) -> np.ndarray:
        """Normalised log-density (float, vectorised; -inf outside the support). ``y``: real
        numbers of any shape (±inf allowed; NaN and non-numbers refused)."""
        y = check_real_array(y, "y", allow_inf=True)
        i = self._piece_of(y)
        a, e = self.slopes[i], self._anchor[i]
        with np.errstate(over="ignore", invalid="ignore"):
            d = y - e
            prod = a * d
            wide = np.isinf(d) & np.isfinite(y)
            prod = np.where(wide, a * (y / 2 - e / 2) * 2, prod)
            prod = np.where(a == 0, 0.0, prod)
            out = self._log_top[i] + prod
        inside = (y >= self.breaks[0]) & (y <= self.breaks[-1])
        return np.where(inside & np.isfinite(self._log_top[i]), out, -np.inf)

    def pdf(self, y: Any) -> np.ndarray:
        """Normalised density (float, vectorised)."""
        return np.exp(self.logpdf(y))

    def cdf(self, y: Any) -> np.ndarray:
        """P(Y <= y) in float, vectorised and stable for steep and for very wide pieces. ``y``:
        real numbers of any shape (±inf allowed; NaN and non-numbers refused)."""
        y = check_real_array(y, "y", allow_inf=True)
        i = self._piece_of(y)
        a = self.slopes[i]
        lo, hi = self.breaks[i], self.breaks[i + 1]
        yc = np.clip(y, lo, hi)
        before = np.concatenate([[0.0], self._cum])[i]
        piece = np.exp(self._log_mass[i])
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            # a piece whose width overflows a double is measured in half units
            wide = np.isinf(hi - lo) & np.isfinite(lo) & np.isfinite(hi)
            s = np.where(wide, 0.5, 1.0)
            k = a / s
            w = hi * s - lo * s
            t = yc * s - lo * s  # distance from the left end
            r = hi * s - yc * s  # distance to the right end
            frac_flat = t / w
            frac_neg = np.expm1(k * t) / np.expm1(k * w)  # k < 0: both terms in (-1, 0]
            frac_pos = np.exp(-k * r) * (-np.expm1(-k * t)) / (-np.expm1(-k * w))
            frac_left_inf = np.exp(-k * r)  # piece (-inf, hi], a > 0
            frac_right_inf = -np.expm1(k * t)  # piece [lo, inf), a < 0
            frac = np.select(
                [np.isneginf(lo), np.isposinf(hi), np.abs(k * w) < 1e-12, k < 0],
                [frac_left_inf, frac_right_inf, frac_flat, frac_neg],
                frac_pos,
            )
        out = before + piece * np.clip(np.nan_to_num(frac, nan=0.0), 0.0, 1.0)
        out = np.where(y < self.breaks[0], 0.0, np.where(y >= self.breaks[-1], 1.0, out))
        return np.clip(out, 0.0, 1.0)

    def float_sampling_error(self) -> float:
        """An upper bound on sup_y |G(y) − F(y)|, F the law's CDF and G the CDF of its float
        draws: rounding a draw to a double moves it by at most a few float spacings, which moves
        the CDF by at most (largest density nearby) × (spacing); mass beyond ±1.8e308 (where a
        draw can only be clamped) is added. Below :data:`FLOAT_SAMPLING_TOLERANCE` the float
        sampler is indistinguishable from the law."""
        if self._sampling_error is None:
            # pieces whose log-density is below −1000 everywhere cannot matter: their spacing is
            # at most 2^971 < e^673 and their mass at most e^(−1000 + 710)
            keep = np.flatnonzero(np.isfinite(self._log_mass) & (self._log_top > -1000.0))
            x = np.concatenate([self.breaks[keep], self.breaks[keep + 1]])
            left, right = x[: keep.size], x[keep.size :]
            a = self.slopes[keep]
            anchor, log_top, log_mass = self._anchor[keep], self._log_top[keep], self._log_mass[keep]
            live = np.isfinite(log_mass)
            half = np.isinf(left) | np.isinf(right)
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                end = np.where(
                    half,
                    np.where(np.isinf(left), np.abs(right), np.abs(left)),
                    np.maximum(np.abs(left), np.abs(right)),
                )
                spacing = np.spacing(np.where(np.isfinite(end), end, 0.0))
                # on a sloped piece the density decays from the anchor e faster than the spacing
                # grows: f(y)·spacing(y) <= f(e)·(spacing(e) + 2^-52/|a|)
                anchored = np.spacing(np.abs(anchor)) + 2.0**-52 / np.abs(a)
                spacing = np.where(a != 0, np.minimum(spacing, anchored), spacing)
                local = 2.0 * np.exp(log_top + np.log(spacing))
                mass = np.exp(log_mass)
                local = local + np.where(half, mass * 2.0**-50, 0.0)
                # mass beyond the largest double on a half-line piece
                gap_left = np.where(np.isneginf(left), right / 2 + MAX_FLOAT / 2, np.inf)
                gap_right = np.where(np.isposinf(right), MAX_FLOAT / 2 - left / 2, np.inf)
                tail = mass * (np.exp(-np.abs(a) * gap_left * 2) + np.exp(-np.abs(a) * gap_right * 2))
            local = np.where(live, np.nan_to_num(local, nan=np.inf), 0.0)
            tail = np.where(live, np.nan_to_num(tail, nan=0.0), 0.0)
            self._sampling_error = float(np.max(local, initial=0.0) + np.sum(tail))
        return self._sampling_error

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws: the piece by inverse CDF on the piece masses, then the stable
        truncated-exponential inverse inside it (two uniforms a draw, fully vectorised).

        ``size`` 0 gives an empty array; sizes above :data:`reference.validation.MAX_DRAWS` are
        refused. A law that float64 cannot resolve is refused (:meth:`float_sampling_error`
        above :data:`FLOAT_SAMPLING_TOLERANCE`): its draws, rounded to doubles, would not follow
        it."""
        size, rng = check_size(size), check_rng(rng)
        error = self.float_sampling_error()
        if not error <= FLOAT_SAMPLING_TOLERANCE:
            raise ValueError(
                "this law cannot be sampled in float64: its slopes and breaks put mass on scales "
                "finer than the float spacing (or beyond ±1.8e308), so rounding the draws would "
                f"move its CDF by up to {error:.3g} > FLOAT_SAMPLING_TOLERANCE = "
                f"{FLOAT_SAMPLING_TOLERANCE:g}{self._sampling_hint}"
            )
        i = np.searchsorted(self._cum, rng.random(size), side="right")
        i = np.minimum(i, len(self) - 1)
        u = rng.random(size)
        a, lo, hi = self.slopes[i], self.breaks[i], self.breaks[i + 1]
        right = self._anchor_right[i]
        # The offset s from the anchor (the end where the density is largest) has density
        # ∝ exp(−|a|·s) on [0, width]: measured from the anchor, a draw keeps its digits however
        # wide the piece (measured from the far end, left + (width − s) would round to the anchor).
        with np.errstate(over="ignore", invalid="ignore"):
            # a half-line stops at the float range (its mass beyond is in float_sampling_error)
            lo = np.maximum(lo, -MAX_FLOAT)
            hi = np.minimum(hi, MAX_FLOAT)
            width = hi - lo
            wide = np.isinf(width)
            scale = np.where(wide, 2.0, 1.0)  # a width that overflows is measured in half units
            width = np.where(wide, hi / 2 - lo / 2, width)
            rate = np.where(right, -a, a) * scale
        offset = scale * exponential_offset_inverse(u, rate, width)
        with np.errstate(over="ignore", invalid="ignore"):
            out = np.where(right, hi - offset, lo + offset)
        return np.clip(out, lo, hi)

    # -- exact path ---------------------------------------------------------------------------

    def _index(self, i: Any) -> int:
        return check_int(i, "i", minimum=0, maximum=len(self) - 1)

    def piece(self, i: int) -> Piece:
        """Exact parameters of piece ``i`` (unnormalised)."""
        left, right, slope, intercept = self.exact_parameters(i)
        return Piece(left=left, right=right, slope=to_mpf(slope), intercept=to_mpf(intercept))

    def exact_parameters(self, i: int) -> tuple[Number, Number, Number, Number]:
        """(left, right, slope, intercept) of piece ``i`` exactly as given (Fractions, ints, floats
        or mpf, never rounded; breaks as ints, floats or Fractions): the input of the
        interval-arithmetic certification."""
        i = self._index(i)
        xb = self._exact_list()
        return (
            xb[i],
            xb[i + 1],
            _checked_exact(_exact_at(self._xa, self.slopes, i), "exact_slopes", i, False),
            _checked_exact(_exact_at(self._xc, self.intercepts, i), "exact_intercepts", i, True),
        )

    def anchor(self, i: int) -> tuple[Number, Number]:
        """(e, c): piece ``i``'s anchor e (its right end when its slope is > 0 or its left end is
        −inf, else its left end) and the exact unnormalised log-density c = a·e + b there (a
        ``Fraction`` when the parameters are rationals, else an mpf; -inf for a zero piece)."""
        i = self._index(i)
        xb = self._exact_list()
        return (xb[i + 1] if self._anchor_right[i] else xb[i]), self._exact_top(i)

    def _exact_top(self, i: int) -> Number:
        """The exact unnormalised log-density at piece ``i``'s anchor, a·e + b (cached)."""
        if i not in self._tops:
            left, right, a, b = self.exact_parameters(i)
            e = right if self._anchor_right[i] else left
            self._tops[i] = _affine_exact(a, e, b)
        return self._tops[i]

    def _exact_slope(self, i: int) -> mpmath.mpf:
        return to_mpf(_checked_exact(_exact_at(self._xa, self.slopes, i), "exact_slopes", i, False))

    def _reference_top(self) -> Number:
        """The exact log-density at the anchor of the heaviest piece: the exact path works with
        log-densities relative to it, so a density of e^(1e308) loses no digit to the normaliser."""
        if self._ref_top is None:
            for i in np.argsort(-self._log_mass, kind="stable")[:1000].tolist():
                top = self._exact_top(int(i))
                if not (isinstance(top, mpmath.mpf) and top == MP_NINF):
                    self._ref_top = top
                    break
            else:
                raise ValueError("exact_intercepts give a density that is zero everywhere")
        return self._ref_top

    def _rel_top(self, i: int) -> mpmath.mpf:
        """Piece ``i``'s exact log-density at its anchor minus the reference's (-inf for a zero
        piece), computed without cancellation: exactly for rationals, else with extra digits."""
        if i not in self._rel_tops:
            top, ref = self._exact_top(i), self._reference_top()
            if isinstance(top, mpmath.mpf) and top == MP_NINF:
                value = MP_NINF
            elif not isinstance(top, mpmath.mpf) and not isinstance(ref, mpmath.mpf):
                value = to_mpf(Fraction(top) - Fraction(ref))
            else:
                with workdps():
                    bits = max(_mag(to_mpf(top)), _mag(to_mpf(ref)), 0)
                with mpmath.workdps(DPS + int(bits * 0.30103) + 10):
                    value = to_mpf(top) - to_mpf(ref)
                value = +value
            self._rel_tops[i] = value
        return self._rel_tops[i]

    def _log_mass_between(self, i: int, lo: Number, hi: Number) -> mpmath.mpf:
        """Exact log ∫_lo^hi of piece ``i``'s density relative to the reference (``lo``, ``hi``
        inside the piece)."""
        top = self._rel_top(i)
        if top == MP_NINF:
            return MP_NINF
        e = self._exact_list()[i + 1 if self._anchor_right[i] else i]
        return _lie(self._exact_slope(i), top, _diff(lo, e), _diff(hi, e))

    def _piece_log_mass_mp(self, i: int) -> mpmath.mpf:
        xb = self._exact_list()
        return self._log_mass_between(i, xb[i], xb[i + 1])

    @property
    def _log_z_rel(self) -> mpmath.mpf:
        """Exact log ∫ of the density relative to the reference (skips pieces below e^-350)."""
        if self._log_z_mp is None:
            with workdps():
                keep = np.flatnonzero(self._log_mass >= np.max(self._log_mass) - _NEGLIGIBLE_NATS)
                self._log_z_mp = logsumexp(self._piece_log_mass_mp(int(i)) for i in keep)
            if not mpmath.isfinite(self._log_z_mp):
                raise ValueError("the exact parameters give a density whose mass is not finite")
        return self._log_z_mp

    @property
    def log_normalizer_mp(self) -> mpmath.mpf:
        """Exact log ∫ exp(a y + b) over all pieces (skips pieces below e^-350 relative); the
        digits of a huge log-density (1e308) are kept."""
        ref = self._reference_top()
        with workdps():
            bits = _mag(to_mpf(ref))
        with mpmath.workdps(DPS + max(0, int(bits * 0.30103))):
            return to_mpf(ref) + self._log_z_rel

    def _form(self, i: int) -> tuple[mpmath.mpf, Number, mpmath.mpf] | None:
        """(a, e, c): slope, anchor and normalised log-density at the anchor of piece ``i``, exact;
        None for a piece of zero density."""
        if i not in self._forms:
            top = self._rel_top(i)
            if top == MP_NINF:
                self._forms[i] = None
            else:
                e = self._exact_list()[i + 1 if self._anchor_right[i] else i]
                with workdps():
                    self._forms[i] = (self._exact_slope(i), e, top - self._log_z_rel)
        return self._forms[i]

    def logpdf_mp(self, y: Number) -> mpmath.mpf:
        """Exact normalised log-density at ``y`` (the right-continuous version at breakpoints)."""
        y = _check_point(y, "y")
        i = self._exact_piece_index(y)
        if i is None:
            return MP_NINF
        form = self._form(i)
        if form is None:
            return MP_NINF
        a, e, c = form
        with workdps():
            return c if a == 0 else a * _diff(y, e) + c

    def cdf_mp(self, y: Number) -> mpmath.mpf:
        """Exact P(Y <= y)."""
        y = _check_point(y, "y")
        return self.mass(self._exact_list()[0], y)

    def mass(self, lo: Number, hi: Number) -> mpmath.mpf:
        """Exact P(lo <= Y <= hi) (ends real, ±inf allowed, NaN refused; 0 when lo >= hi).

        The (at most two) pieces cut by the ends are integrated exactly, and so is every piece
        inside whose float mass is within e^-350 of the largest term; lighter pieces change the
        result by less than (pieces)·e^-350 relative, far below the working precision."""
        lo, hi = _check_point(lo, "lo"), _check_point(hi, "hi")
        with workdps():
            if not lo < hi:
                return mpmath.mpf(0)
            xb = self._exact_list()
            m = len(self)
            first = max(bisect.bisect_right(xb, lo) - 1, 0)
            last = min(bisect.bisect_left(xb, hi) - 1, m - 1)
            if last < first:
                return mpmath.mpf(0)
            log_z = self._log_z_rel
            terms, partial = [], []
            for i in {first, last}:
                cl, cr = max(xb[i], lo), min(xb[i + 1], hi)
                if cl < cr:
                    partial.append(self._log_mass_between(i, cl, cr))
            inner = np.arange(first + 1, last)
            if inner.size:
                floats = self._log_mass[inner]
                top = max(
                    float(np.max(floats)),
                    max((_float_log_mp(t - log_z) for t in partial), default=-np.inf),
                )
                keep = inner[floats >= top - _NEGLIGIBLE_NATS]
                terms = [self._piece_log_mass_mp(int(i)) for i in keep]
            return mpmath.exp(logsumexp(partial + terms) - log_z)

    def total_mass(self) -> mpmath.mpf:
        """Exact total mass: :meth:`mass` over the whole support, every piece integrated again
        (none skipped but the negligible ones, < e^-350 relative); 1 to the working precision."""
        xb = self._exact_list()
        return self.mass(xb[0], xb[-1])

    def _exact_list(self) -> list[Number]:
        """The exact breakpoints as ints, floats or Fractions (computed once: the law is
        immutable)."""
        if self._breaks_exact is None:
            out = []
            for i in range(len(self) + 1):
                v = _exact_at(self._xb, self.breaks, i)
                v = _checked_exact(v, "exact_breaks", i, True, pos_inf=True)
                out.append(_rational(v))
            if any(not x < y for x, y in zip(out[:-1], out[1:], strict=True)):
                raise ValueError("exact_breaks must be strictly increasing")
            self._breaks_exact = out
        return self._breaks_exact

    def _exact_piece_index(self, y: Number) -> int | None:
        xb = self._exact_list()
        if y < xb[0] or y > xb[-1]:
            return None
        return min(bisect.bisect_right(xb, y) - 1, len(self) - 1)

    def log_density_at_cell(self, left: Number, right: Number) -> tuple[mpmath.mpf, mpmath.mpf]:
        """(slope, normalised intercept) of the piece containing the cell (left, right), exactly;
        the intercept is -inf where the density is zero."""
        left, right = _check_point(left, "left"), _check_point(right, "right")
        xb = self._exact_list()
        if left < xb[0] or right > xb[-1]:
            return mpmath.mpf(0), MP_NINF
        i = min(bisect.bisect_right(xb, left) - 1, len(self) - 1)
        form = self._form(i)
        if form is None:
            return self._exact_slope(i), MP_NINF
        a, e, c = form
        with mpmath.workdps(DPS + 20):
            return a, c - a * to_mpf(e)


def _exact_at(exact: Sequence[Number] | None, floats: np.ndarray, i: int) -> Number:
    if exact is not None:
        return exact[i]
    return float(floats[i])


def _checked_exact(
    v: Any, name: str, i: int, neg_inf: bool, *, pos_inf: bool = False
) -> Number:
    """An exact parameter read from a (possibly lazy) sequence: a real number, not NaN."""
    if type(v) is float or type(v) is Fraction or type(v) is int:
        if type(v) is float and math.isnan(v):
            raise ValueError(f"{name}[{i}] must be a real number, got nan")
        return v
    return _exact_real(v, f"{name}[{i}]", neg_inf=neg_inf, pos_inf=pos_inf, fit=False)


def _rounds_to(exact: Any, value: float) -> bool:
    """``exact`` lies within 4 float spacings of the double ``value``."""
    try:
        approx = float(exact)
    except OverflowError:
        return False
    with np.errstate(over="ignore"):
        return abs(approx - value) <= 4 * float(np.spacing(abs(value)))


def _exact_or_none(
    values: Any,
    exact: Sequence[Number] | None,
    floats: np.ndarray,
    name: str,
    neg_inf: bool,
    pos_inf: bool,
) -> Sequence[Number] | None:
    if exact is not None:
        exact = _sequence(exact, name, MAX_PIECES + 1)
        if len(exact) != len(floats):
            raise ValueError(
                f"{name} must have the same length as the float values ({len(floats)}), got "
                f"{len(exact)}"
            )
        if isinstance(exact, list | tuple | np.ndarray):
            for k in range(len(exact)):
                v = _exact_real(exact[k], f"{name}[{k}]", neg_inf=neg_inf, pos_inf=pos_inf,
                                fit=False)
                if _is_inf(v) != bool(np.isinf(floats[k])):
                    raise ValueError(
                        f"{name}[{k}] must be infinite exactly where the float value is, got "
                        f"{_describe(v)} for {floats[k]!r}"
                    )
                if name != "exact_intercepts" and not _is_inf(v) and not _rounds_to(v, floats[k]):
                    raise ValueError(
                        f"{name}[{k}] must round to the float value {floats[k]!r}, got "
                        f"{_describe(v)}"
                    )
        return exact
    if isinstance(values, np.ndarray) and values.dtype != object:
        return None
    items = [values[k] for k in range(len(values))]
    if any(
        isinstance(v, Fraction | mpmath.mpf)
        or (isinstance(v, numbers.Integral) and not isinstance(v, bool) and abs(int(v)) > 2**53)
        for v in items
    ):
        return items
    return None


class ProductLaw:
    """The law of a vector of independent coordinates, coordinate i drawn from ``components[i]``
    (each a :class:`DiscreteLaw` with numeric atoms or a :class:`PiecewiseLogLinear`): the output
    of a mechanism that releases k statistics with independent randomness (k quantiles, say).

    Divergences between two product laws of the same shape are exact: the log-likelihood ratio is
    a sum of per-coordinate ratios, so its essential sup is the sum of theirs and Rényi divergences
    add up; the hockey-stick divergence is summed over the product of the coordinates' cells (atoms
    or pieces), which needs piecewise-constant or discrete coordinates.
    """

    def __init__(self, components: Sequence[DiscreteLaw | PiecewiseLogLinear]):
        if isinstance(components, str | bytes | dict | set | frozenset):
            raise ValueError(
                f"components must be a non-empty sequence of laws, got {_describe(components)}"
            )
        try:
            items = iter(components)
        except TypeError:
            raise ValueError(
                f"components must be a non-empty sequence of laws, got {_describe(components)}"
            ) from None
        comps = []
        for c in items:
            comps.append(c)
            if len(comps) > MAX_COMPONENTS:
                raise ValueError(f"components must hold at most {MAX_COMPONENTS} laws")
        if not comps:
            raise ValueError("components must be a non-empty sequence of laws")
        for i, c in enumerate(comps):
            numeric = isinstance(c, DiscreteLaw) and c.numeric
            if not (numeric or isinstance(c, PiecewiseLogLinear)):
                raise ValueError(
                    f"components[{i}] must be a numeric DiscreteLaw or a PiecewiseLogLinear, "
                    f"got {_describe(c)}"
                )
        self.components = tuple(comps)

    def __len__(self) -> int:
        return len(self.components)

    def __repr__(self) -> str:
        return f"ProductLaw({', '.join(map(repr, self.components))})"

    def total_mass(self) -> mpmath.mpf:
        """Exact total mass: the product of the coordinates' total masses."""
        with workdps():
            return mpmath.fprod(c.total_mass() for c in self.components)

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws, shape (size, k): the coordinates drawn one after another (size 0 gives
        an empty array; size·k above 10·MAX_DRAWS numbers is refused)."""
        size, rng = check_size(size), check_rng(rng)
        if size * len(self) > 10 * MAX_DRAWS:
            raise ValueError(
                f"size must be at most {10 * MAX_DRAWS // len(self)} for a product law of "
                f"{len(self)} coordinates (size·k <= {10 * MAX_DRAWS} numbers), got {size}"
            )
        cols = [np.asarray(c.sample(size, rng), dtype=float) for c in self.components]
        return np.column_stack(cols) if size else np.empty((0, len(self)))

    def logpdf(self, y: Any) -> np.ndarray:
        """Sum of the coordinates' float log-densities (log-probabilities for atoms), (n, k) in."""
        y = _rows(y, "y", len(self))
        total = np.zeros(len(y))
        for i, c in enumerate(self.components):
            total = total + (c.logpmf(y[:, i]) if isinstance(c, DiscreteLaw) else c.logpdf(y[:, i]))
        return total


def _rows(y: Any, name: str, k: int) -> np.ndarray:
    """Points of R^k: an array (n, k), or one point of k coordinates; reals, ±inf allowed."""
    arr = check_real_array(y, name, allow_inf=True)
    if arr.ndim == 2 and arr.shape[1] == k:
        return arr
    if arr.ndim == 1 and arr.size == k:
        return arr.reshape(1, k)
    if k == 1 and arr.ndim <= 1:
        return arr.reshape(-1, 1)
    raise ValueError(f"{name} must be points of R^{k}: shape (n, {k}), got shape {arr.shape}")


def _same_shape(p: ProductLaw, q: ProductLaw) -> None:
    kinds = [type(c) for c in p.components], [type(c) for c in q.components]
    if kinds[0] != kinds[1]:
        raise ValueError(
            "p and q: product laws must have the same number and kinds of coordinates"
        )


def _cells_mp(p: DiscreteLaw | PiecewiseLogLinear, q: DiscreteLaw | PiecewiseLogLinear):
    """Exact (mass under p, mass under q) of the cells on which both laws are constant: the
    atoms, or the merged pieces of two piecewise-constant densities."""
    if isinstance(p, DiscreteLaw):
        atoms = list(dict.fromkeys([*p.support, *q.support]))
        return [(p.pmf_mp(a), q.pmf_mp(a)) for a in atoms]
    cells = []
    for cell in _cells(p, q):
        t_lo, t_hi, ap, cp, aq, cq = cell.values()
        if (cp != MP_NINF and ap != 0) or (cq != MP_NINF and aq != 0):
            raise ValueError(
                "p and q: the hockey-stick divergence of a product law needs piecewise-constant "
                "coordinates (a sloped piece was found)"
            )
        width = t_hi - t_lo
        cells.append(
            (
                mpmath.exp(cp) * width if cp != MP_NINF else mpmath.mpf(0),
                mpmath.exp(cq) * width if cq != MP_NINF else mpmath.mpf(0),
            )
        )
    return cells


def _product_hockey_stick(p: ProductLaw, q: ProductLaw, eps: mpmath.mpf) -> mpmath.mpf:
    _same_shape(p, q)
    cells = [_cells_mp(a, b) for a, b in zip(p.components, q.components, strict=True)]
    count = 1
    for c in cells:
        count *= len(c)
    if count > MAX_PRODUCT_CELLS:
        raise ValueError(
            f"p and q: the product law has {count} cells, more than MAX_PRODUCT_CELLS = "
            f"{MAX_PRODUCT_CELLS}"
        )
    # Float prefilter in log space: a combination whose float log ratio is below ε − 1e-6 has
    # p − e^ε q < 0 exactly (the float error of a sum of k logs is ~1e-15, far below the margin);
    # the others are summed exactly.
    logs = [
        (np.array([_float_log(a) for a, _ in c]), np.array([_float_log(b) for _, b in c]))
        for c in cells
    ]
    lp = np.zeros(1)
    lq = np.zeros(1)
    for a, b in logs:
        lp, lq = np.add.outer(lp, a).ravel(), np.add.outer(lq, b).ravel()
    with np.errstate(invalid="ignore"):
        keep = np.flatnonzero(np.isfinite(lp) & ~(lp - lq < float(eps) - 1e-6))
    shape = [len(c) for c in cells]
    factor = mpmath.exp(eps)
    total = mpmath.mpf(0)
    for flat in keep:
        index = np.unravel_index(flat, shape)
        mp_, mq = mpmath.mpf(1), mpmath.mpf(1)
        for coordinate, j in zip(cells, index, strict=True):
            mp_, mq = mp_ * coordinate[j][0], mq * coordinate[j][1]
        diff = mp_ - factor * mq
        if diff > 0:
            total += diff
    return total


def _float_log(x: mpmath.mpf) -> float:
    return -np.inf if x == 0 else float(mpmath.log(x))


def log_integral_exp_linear(a: Number, b: Number, left: Number, right: Number) -> mpmath.mpf:
    """Exact log ∫_left^right exp(a·y + b) dy (mpmath); ends may be infinite, +inf where the
    integral diverges, -inf when left >= right or b = -inf. ``a`` finite, ``b`` finite or -inf,
    ends real (±inf allowed); NaN and non-numbers are refused."""
    a = _exact_real(a, "a", fit=False)
    b = _exact_real(b, "b", neg_inf=True, fit=False)
    left = _check_point(left, "left")
    right = _check_point(right, "right")
    with workdps():
        if _is_inf(b) or not left < right:
            return MP_NINF
        if _is_inf(left) or _is_inf(right):
            return _lie(to_mpf(a), to_mpf(b), to_mpf(left), to_mpf(right))
        # anchored at the end where a·y is largest: a·(y − e) + (a·e + b), exact
        e = right if a > 0 else left
        top = to_mpf(_affine_exact(a, e, b))
        return _lie(to_mpf(a), top, _diff(left, e), _diff(right, e))


# --------------------------------------------------------------------------------------------
# Divergences between two laws
# --------------------------------------------------------------------------------------------


def _merged_points(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> list[Number]:
    if len(p) + len(q) > MAX_MERGED_CELLS:
        raise ValueError(
            f"p and q have {len(p)} + {len(q)} pieces: more than MAX_MERGED_CELLS = "
            f"{MAX_MERGED_CELLS} merged cells for an exact divergence"
        )
    return sorted(set(p._exact_list()) | set(q._exact_list()))


def _merged_cells(p: PiecewiseLogLinear, q: PiecewiseLogLinear) -> list[tuple[Number, Number]]:
    points = _merged_points(p, q)
    return [(points[k], points[k + 1]) for k in range(len(points) - 1)]


class _Walker:
    """The pieces of one law met by the merged cells, in increasing order (two-pointer walk)."""

    def __init__(self, law: PiecewiseLogLinear):
        self.law, self.xb, self.j = law, law._exact_list(), 0

    def form(self, left: Number, right: Number) -> tuple[mpmath.mpf, Number, mpmath.mpf] | None:
        """(a, e, c) of the piece covering the cell (anchor e, normalised log-density c there);
        None off the support or on a piece of zero density."""
        xb = self.xb
        if left < xb[0] or right > xb[-1]:
            return None
        while self.j < len(self.law) - 1 and xb[self.j + 1] <= left:
            self.j += 1
        return self.law._form(self.j)


_MAX_CELL_DPS = DPS + 800


class _Cell:
    """One merged cell: t = y − r runs over [t_lo, t_hi] (r the cell's left end, its right end
    when the left is −inf). :meth:`values` gives (t_lo, t_hi, a_p, c_p, a_q, c_q) with
    log p(y) = a_p·t + c_p and log q(y) = a_q·t + c_q (c = −inf where the law vanishes), exact at
    the current precision; the caller evaluates them under ``mpmath.workdps(cell.dps)``: enough
    digits that slope × width and the values themselves cancel without loss (a cell of width
    1e308 on which a density rises from e^-1e308 to 1)."""

    __slots__ = ("left", "right", "ref", "fp", "fq", "dps")

    def __init__(self, left: Number, right: Number, fp: Any, fq: Any):
        self.left, self.right = left, right
        self.ref = right if _is_inf(left) else left
        self.fp, self.fq = fp, fq
        width = MP_INF if _is_inf(left) or _is_inf(right) else _diff(right, left)
        bits = 0
        for form in (fp, fq):
            if form is None:
                continue
            a, e, c = form
            bits = max(bits, _mag(c))
            if a != 0:
                bits = max(bits, _mag(a) + _mag(_diff(self.ref, e)))
                if mpmath.isfinite(width):
                    bits = max(bits, _mag(a) + _mag(width))
        extra = int(bits * 0.30103)
        self.dps = DPS if extra <= 20 else min(DPS + extra + 10, _MAX_CELL_DPS)

    def _value(self, form: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
        if form is None:
            return mpmath.mpf(0), MP_NINF
        a, e, c = form
        return a, (+c if a == 0 else a * _diff(self.ref, e) + c)

    def values(self) -> tuple[mpmath.mpf, ...]:
        t_lo = MP_NINF if _is_inf(self.left) else mpmath.mpf(0)
        if _is_inf(self.right):
            t_hi = MP_INF
        else:
            t_hi = mpmath.mpf(0) if _is_inf(self.left) else _diff(self.right, self.ref)
        ap, cp = self._value(self.fp)
        aq, cq = self._value(self.fq)
        return t_lo, t_hi, ap, cp, aq, cq


def _cells(p: PiecewiseLogLinear, q: PiecewiseLogLinear):
    """The merged cells of two piecewise laws, in increasing order (:class:`_Cell`)."""
    points = _merged_points(p, q)
    wp, wq = _Walker(p), _Walker(q)
    for left, right in zip(points[:-1], points[1:], strict=False):
        yield _Cell(left, right, wp.form(left, right), wq.form(left, right))


def max_log_ratio(p: ExactDistribution, q: ExactDistribution) -> mpmath.mpf:
    """Exact ess sup log(p/q) over the support of p (one direction of the privacy loss).

    +inf when p puts mass where q has none (an atomic law against a density, for instance)."""
    kp, kq = _check_pair(p, q)
    with workdps():
        if kp is not kq:
            return MP_INF  # an atomic law against a continuous one: mutually singular
        if kp is DiscreteLaw:
            best = MP_NINF
            for atom, lp in zip(p.support, p.logp, strict=True):
                best = max(best, lp - q.logpmf_mp(atom))
            return best
        if kp is PiecewiseLogLinear:
            best = MP_NINF
            for cell in _cells(p, q):
                if cell.fp is None:
                    continue
                if cell.fq is None:
                    return MP_INF
                with mpmath.workdps(cell.dps):
                    t_lo, t_hi, ap, cp, aq, cq = cell.values()
                    value = _linear_sup(ap - aq, cp - cq, t_lo, t_hi)
                best = max(best, +value)
            return best
        if kp is GridLaw:
            return _grid_max_log_ratio(p, q)
        _same_shape(p, q)  # sup of a sum of independent terms = the sum of their sups
        return mpmath.fsum(
            max_log_ratio(a, b) for a, b in zip(p.components, q.components, strict=True)
        )


def privacy_loss(p: ExactDistribution, q: ExactDistribution) -> mpmath.mpf:
    """Exact ε(p, q) = ess sup |log p − log q|: the smallest ε with both directions ε-bounded.

    ``p`` and ``q``: two laws of one kind (:class:`DiscreteLaw`, :class:`PiecewiseLogLinear`,
    :class:`ProductLaw`, :class:`GridLaw`), or an atomic and a continuous law (loss +inf);
    anything else raises ``ValueError`` naming ``p`` or ``q``."""
    _check_pair(p, q)
    return max(max_log_ratio(p, q), max_log_ratio(q, p))


def _linear_sup(slope: mpmath.mpf, const: mpmath.mpf, lo: mpmath.mpf, hi: mpmath.mpf) -> mpmath.mpf:
    """sup of slope·t + const over [lo, hi] (ends may be infinite)."""
    ends = []
    for t in (lo, hi):
        if mpmath.isinf(t):
            ends.append(const if slope == 0 else (MP_INF if slope * t > 0 else MP_NINF))
        else:
            ends.append(slope * t + const)
    return max(ends)


def hockey_stick(p: ExactDistribution, q: ExactDistribution, epsilon: Number) -> mpmath.mpf:
    """Exact δ(ε) = ∫ max(0, p − e^ε q): the smallest δ with P(S) <= e^ε Q(S) + δ for all S.

    ``epsilon``: a finite real (negative allowed), kept exact (Fractions, ints); NaN, infinities
    and non-numbers raise ``ValueError``. Between an atomic and a continuous law δ = 1."""
    kp, kq = _check_pair(p, q)
    eps = _check_epsilon_value(epsilon)
    with workdps():
        if kp is not kq:
            return mpmath.mpf(1)
        if kp is DiscreteLaw:
            total = mpmath.mpf(0)
            for atom, lp in zip(p.support, p.logp, strict=True):
                diff = mpmath.exp(lp) - mpmath.exp(eps + q.logpmf_mp(atom))
                if diff > 0:
                    total += diff
            return total
        if kp is PiecewiseLogLinear:
            total = mpmath.mpf(0)
            for cell in _cells(p, q):
                if cell.fp is None:
                    continue
                with mpmath.workdps(cell.dps):
                    t_lo, t_hi, ap, cp, aq, cq = cell.values()
                    if cq == MP_NINF:
                        total += mpmath.exp(_lie(ap, cp, t_lo, t_hi))
                        continue
                    # p − e^ε q > 0 <=> (ap − aq)·t + (cp − cq − ε) > 0: one part of the cell.
                    lo, hi = _positive_part(ap - aq, cp - cq - eps, t_lo, t_hi)
                    if lo is None:
                        continue
                    mp_ = mpmath.exp(_lie(ap, cp, lo, hi))
                    mq = mpmath.exp(_lie(aq, cq + eps, lo, hi))
                    total += max(mp_ - mq, mpmath.mpf(0))
            return +total
        if kp is ProductLaw:
            return _product_hockey_stick(p, q, eps)
        return _grid_hockey_stick(p, q, eps)


def _positive_part(slope, const, left, right):
    """The sub-interval of [left, right] where slope·t + const > 0, or (None, None)."""
    if slope == 0:
        return (left, right) if const > 0 else (None, None)
    root = -const / slope
    lo, hi = (max(left, root), right) if slope > 0 else (left, min(right, root))
    return (lo, hi) if lo < hi else (None, None)


def _check_alpha(alpha: Any) -> mpmath.mpf:
    value = _exact_real(alpha, "alpha", pos_inf=True, neg_inf=True)
    if not value > 0:
        raise ValueError(f"alpha must be > 0 (inf allowed), got {value!r}")
    return to_mpf(value)


def renyi_divergence(p: ExactDistribution, q: ExactDistribution, alpha: Number) -> mpmath.mpf:
    """Exact Rényi divergence D_α(p‖q) = log(∫ p^α q^{1−α})/(α − 1); α = 1 is KL, α = inf is
    :func:`max_log_ratio`. ``alpha``: a real > 0 or +inf (NaN, 0, negatives and non-numbers
    raise ``ValueError``)."""
    kp, kq = _check_pair(p, q)
    with workdps():
        alpha = _check_alpha(alpha)
        if alpha == MP_INF:
            return max_log_ratio(p, q)
        if kp is not kq:
            return MP_INF  # mutually singular: ∫ p^α q^(1−α) = 0 (α < 1) or = inf (α >= 1)
        if kp is GridLaw:
            return _grid_renyi(p, q, alpha)
        if kp is ProductLaw:
            _same_shape(p, q)  # Rényi divergences of independent coordinates add up
            return mpmath.fsum(
                renyi_divergence(a, b, alpha)
                for a, b in zip(p.components, q.components, strict=True)
            )
        if alpha == 1:
            return _kl(p, q)
        if kp is DiscreteLaw:
            terms = []
            for atom, lp in zip(p.support, p.logp, strict=True):
                lq = q.logpmf_mp(atom)
                if lq == MP_NINF:
                    if alpha > 1:
                        return MP_INF
                    continue
                terms.append(alpha * lp + (1 - alpha) * lq)
            return logsumexp(terms) / (alpha - 1)
        terms = []
        for cell in _cells(p, q):
            if cell.fp is None:
                continue
            if cell.fq is None:
                if alpha > 1:
                    return MP_INF
                continue
            with mpmath.workdps(cell.dps + max(0, int(_mag(alpha) * 0.30103))):
                t_lo, t_hi, ap, cp, aq, cq = cell.values()
                a = alpha * ap + (1 - alpha) * aq
                b = alpha * cp + (1 - alpha) * cq
                terms.append(_lie(a, b, t_lo, t_hi))
        return logsumexp(terms) / (alpha - 1)


def _kl(p: ExactDistribution, q: ExactDistribution) -> mpmath.mpf:
    if isinstance(p, DiscreteLaw):
        total = mpmath.mpf(0)
        for atom, lp in zip(p.support, p.logp, strict=True):
            lq = q.logpmf_mp(atom)
            if lq == MP_NINF:
                return MP_INF
            total += mpmath.exp(lp) * (lp - lq)
        return total
    total = mpmath.mpf(0)
    for cell in _cells(p, q):
        if cell.fp is None:
            continue
        if cell.fq is None:
            return MP_INF
        with mpmath.workdps(cell.dps):
            t_lo, t_hi, ap, cp, aq, cq = cell.values()
            total += _kl_cell(ap, cp, ap - aq, cp - cq, t_lo, t_hi)
    return +total


def _kl_cell(a, c, k, m, lo, hi) -> mpmath.mpf:
    """∫_lo^hi e^{a·t + c}·(k·t + m) dt (integrable: a > 0 at −inf, a < 0 at +inf), in closed
    form: [e^{a·t + c}·((k·t + m)/a − k/a²)] between the ends; by quadrature when |a|·width is
    below 1e-3 (the closed form's two terms would cancel)."""
    if a == 0 or (mpmath.isfinite(hi - lo) and abs(a) * (hi - lo) < mpmath.mpf("1e-3")):
        if a == 0:
            return mpmath.exp(c) * (k * (hi**2 - lo**2) / 2 + m * (hi - lo))
        width = hi - lo
        return width * mpmath.quad(
            lambda u: mpmath.exp(a * (lo + u * width) + c) * (k * (lo + u * width) + m), [0, 1]
        )

    def primitive(t: mpmath.mpf) -> mpmath.mpf:
        if mpmath.isinf(t):
            return mpmath.mpf(0)
        return mpmath.exp(a * t + c) * ((k * t + m) / a - k / a**2)

    return primitive(hi) - primitive(lo)


# --------------------------------------------------------------------------------------------
# Piecewise-constant densities on a product grid
# --------------------------------------------------------------------------------------------


class GridLaw:
    """A density on a box in R^k that is constant on every cell of a product grid.

    ``breaks[i]`` are the strictly increasing cut points of axis i (exact values: ``Fraction``,
    ``int``, float or ``mpf``; finite, fitting a float64); ``log_density`` (shape = the number of
    cells per axis) holds the log-density of each cell up to one additive constant (mpmath values
    or floats, ``-inf`` for empty cells; NaN and +inf refused); the law is normalised on
    construction, exactly (mpmath). At most :data:`MAX_AXES` axes and :data:`MAX_GRID_CELLS`
    cells. This is the output law of a mechanism that releases k correlated real numbers, each
    piecewise uniform given the mechanism's discrete choices: a finite mixture of products of
    piecewise-constant densities, such as imola25's SliceQuantiles (``notes/imola25.md``).

    Divergences against another :class:`GridLaw` of the same dimension are exact sums over the
    merged grid (the product of the axes' merged breakpoints), where both densities are constant.
    """

    def __init__(self, breaks: Sequence[Sequence[Number]], log_density: Any):
        if isinstance(breaks, str | bytes | dict | set | frozenset) or not (
            hasattr(breaks, "__len__") and hasattr(breaks, "__getitem__")
        ):
            raise ValueError(f"breaks must be a sequence of axes, got {_describe(breaks)}")
        if len(breaks) == 0:
            raise ValueError("breaks must give at least one axis")
        if len(breaks) > MAX_AXES:
            raise ValueError(f"breaks must give at most {MAX_AXES} axes, got {len(breaks)}")
        axes = []
        for i in range(len(breaks)):
            b = _sequence(breaks[i], f"breaks[{i}]", MAX_GRID_CELLS + 1)
            vals = [_rational(_exact_real(b[j], f"breaks[{i}][{j}]")) for j in range(len(b))]
            if len(vals) < 2 or any(not x < y for x, y in zip(vals[:-1], vals[1:], strict=True)):
                raise ValueError(f"breaks[{i}] must be >= 2 strictly increasing finite values")
            axes.append(vals)
        shape = tuple(len(b) - 1 for b in axes)
        cells = math.prod(shape)
        if cells > MAX_GRID_CELLS:
            raise ValueError(
                f"breaks make {cells} cells, more than MAX_GRID_CELLS = {MAX_GRID_CELLS}"
            )
        if isinstance(log_density, str | bytes | dict | set | frozenset):
            raise ValueError(f"log_density must be an array of shape {shape}")
        try:
            dens = np.asarray(log_density, dtype=object)
        except ValueError:
            raise ValueError(f"log_density must be an array of shape {shape}") from None
        if dens.shape != shape:
            raise ValueError(
                f"log_density must have shape {shape} (one value per cell of breaks), got "
                f"{dens.shape}"
            )
        flat = _relative([_log_weight(v, "log_density") for v in dens.ravel().tolist()])
        self.exact_breaks = tuple(axes)
        self.breaks = tuple(np.array([float(x) for x in b]) for b in axes)
        with workdps():
            logv = self._log_volumes(axes)
            log_total = logsumexp([a + v for a, v in zip(flat, logv.ravel(), strict=True)])
            if log_total == MP_NINF or not mpmath.isfinite(log_total):
                raise ValueError("log_density must give a positive, finite total mass")
            self.logp = np.array([x - log_total for x in flat], dtype=object).reshape(shape)
        self._logmass = np.array(
            [_float_log_mp(a + v) for a, v in zip(self.logp.ravel(), logv.ravel(), strict=True)]
        ).reshape(shape)
        self._logpdf = np.array([_float_log_mp(a) for a in self.logp.ravel()]).reshape(shape)
        self._sampling_error: float | None = None

    @staticmethod
    def _log_volumes(axes: Sequence[Sequence[Number]]) -> np.ndarray:
        out = np.zeros(1, dtype=object)
        out[0] = mpmath.mpf(0)
        for b in axes:
            widths = np.array(
                [mpmath.log(_diff(y, x)) for x, y in zip(b[:-1], b[1:], strict=True)],
                dtype=object,
            )
            out = np.add.outer(out, widths).ravel()
        return out.reshape(tuple(len(b) - 1 for b in axes))

    def __len__(self) -> int:
        return len(self.breaks)

    def __repr__(self) -> str:
        return f"GridLaw({len(self)} axes, cells {self.logp.shape})"

    @property
    def shape(self) -> tuple[int, ...]:
        return self.logp.shape

    @property
    def probabilities(self) -> np.ndarray:
        """Float mass of every cell (shape :attr:`shape`)."""
        return np.exp(self._logmass)

    def total_mass(self) -> mpmath.mpf:
        """Exact total mass Σ_cells density·volume (1 to the working precision)."""
        with workdps():
            logv = self._log_volumes(self.exact_breaks)
            return mpmath.fsum(
                mpmath.exp(a + v) for a, v in zip(self.logp.ravel(), logv.ravel(), strict=True)
            )

    def logpdf(self, y: Any) -> np.ndarray:
        """Float log-density at the rows of ``y`` (n, k); -inf outside the box."""
        y = _rows(y, "y", len(self))
        index, inside = [], np.ones(len(y), dtype=bool)
        for i, b in enumerate(self.breaks):
            j = np.searchsorted(b, y[:, i], side="right") - 1
            j = np.where(y[:, i] == b[-1], len(b) - 2, j)
            inside &= (j >= 0) & (j < len(b) - 1)
            index.append(np.clip(j, 0, len(b) - 2))
        out = self._logpdf[tuple(index)]
        return np.where(inside, out, -np.inf)

    def float_sampling_error(self) -> float:
        """An upper bound on how far rounding the draws to doubles moves any coordinate's
        marginal CDF (as :meth:`PiecewiseLogLinear.float_sampling_error`)."""
        if self._sampling_error is None:
            prob = self.probabilities
            worst = 0.0
            for i, b in enumerate(self.breaks):
                marginal = np.moveaxis(prob, i, 0).reshape(len(b) - 1, -1).sum(axis=1)
                with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
                    w = np.where(
                        np.isinf(b[1:] - b[:-1]), 2 * (b[1:] / 2 - b[:-1] / 2), b[1:] - b[:-1]
                    )
                    spacing = np.spacing(np.maximum(np.abs(b[:-1]), np.abs(b[1:])))
                    local = np.nan_to_num(2.0 * marginal / w * spacing, nan=np.inf)
                worst = max(worst, float(np.max(np.where(marginal > 0, local, 0.0))))
            self._sampling_error = worst
        return self._sampling_error

    def sample(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` draws, shape (size, k): a cell by its mass, then uniform inside it (size 0
        gives an empty array). A law whose cells float64 cannot resolve is refused
        (:meth:`float_sampling_error` above :data:`FLOAT_SAMPLING_TOLERANCE`)."""
        size, rng = check_size(size), check_rng(rng)
        if size * len(self) > 10 * MAX_DRAWS:
            raise ValueError(
                f"size must be at most {10 * MAX_DRAWS // len(self)} for a grid law of "
                f"{len(self)} axes, got {size}"
            )
        error = self.float_sampling_error()
        if not error <= FLOAT_SAMPLING_TOLERANCE:
            raise ValueError(
                "this law cannot be sampled in float64: its breaks make cells carrying mass "
                f"that are within a few float spacings wide, so rounding the draws would move "
                f"its CDF by up to {error:.3g} > FLOAT_SAMPLING_TOLERANCE = "
                f"{FLOAT_SAMPLING_TOLERANCE:g}"
            )
        prob = self.probabilities.ravel()
        cells = rng.choice(prob.size, size=size, p=prob / prob.sum())
        index = np.unravel_index(cells, self.shape)
        cols = []
        for b, j in zip(self.breaks, index, strict=True):
            lo, hi, u = b[j], b[j + 1], rng.random(size)
            with np.errstate(over="ignore", invalid="ignore"):
                x = lo + u * (hi - lo)
                wide = np.isinf(hi - lo)
                x = np.where(wide, 2.0 * (lo / 2 + u * (hi / 2 - lo / 2)), x)
            cols.append(np.clip(x, lo, hi))
        return np.column_stack(cols) if size else np.empty((0, len(self)))

    def marginal(self, axis: int) -> PiecewiseLogLinear:
        """The exact marginal density of coordinate ``axis`` (piecewise constant)."""
        axis = check_int(axis, "axis", minimum=0, maximum=len(self) - 1)
        with workdps():
            logv = self._log_volumes(self.exact_breaks)
            terms = np.moveaxis(
                np.array(
                    [a + v for a, v in zip(self.logp.ravel(), logv.ravel(), strict=True)],
                    dtype=object,
                ).reshape(self.shape),
                axis,
                0,
            ).reshape(self.shape[axis], -1)
            b = self.exact_breaks[axis]
            logs = [
                logsumexp(list(row)) - mpmath.log(_diff(y, x))
                for row, x, y in zip(terms, b[:-1], b[1:], strict=True)
            ]
        return PiecewiseLogLinear(
            self.breaks[axis],
            np.zeros(len(logs)),
            np.array([_float_log_mp(x) for x in logs]),
            exact_breaks=b,
            exact_intercepts=logs,
        )

    def on_grid(self, breaks: Sequence[Sequence[Number]]) -> np.ndarray:
        """Exact log-densities (object array) on a finer grid whose axes contain this law's
        breakpoints; cells outside this law's box get -inf."""
        if not hasattr(breaks, "__len__") or len(breaks) != len(self):
            raise ValueError(f"breaks must give {len(self)} axes")
        index = []
        for i, (mine, theirs) in enumerate(zip(self.exact_breaks, breaks, strict=True)):
            theirs = [_check_point(v, f"breaks[{i}]") for v in _sequence(
                theirs, f"breaks[{i}]", MAX_MERGED_CELLS + 1)]
            lo, hi = mine[0], mine[-1]
            idx = []
            for x, y in zip(theirs[:-1], theirs[1:], strict=True):
                idx.append(bisect.bisect_right(mine, x) - 1 if lo <= x and y <= hi else -1)
            index.append(np.array(idx, dtype=np.int64))
        out = np.empty(tuple(len(i) for i in index), dtype=object)
        for pos in np.ndindex(out.shape):
            js = tuple(index[a][p] for a, p in enumerate(pos))
            out[pos] = MP_NINF if min(js) < 0 else self.logp[js]
        return out


def _float_log_mp(x: mpmath.mpf) -> float:
    return -np.inf if x == MP_NINF else float(x)


def merged_grid_cells(p: GridLaw, q: GridLaw) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(log-volume, log p, log q) per cell of the merged grid, exact (flattened object arrays)."""
    for name, law in (("p", p), ("q", q)):
        if not isinstance(law, GridLaw):
            raise ValueError(f"{name} must be a GridLaw, got {type(law).__name__}")
    if len(p) != len(q):
        raise ValueError(f"p and q: grid laws of different dimensions: {len(p)} and {len(q)}")
    merged = [sorted(set(a) | set(b)) for a, b in zip(p.exact_breaks, q.exact_breaks, strict=True)]
    cells = math.prod(len(m) - 1 for m in merged)
    if cells > MAX_MERGED_CELLS:
        raise ValueError(
            f"p and q: their merged grid has {cells} cells, more than MAX_MERGED_CELLS = "
            f"{MAX_MERGED_CELLS}"
        )
    with workdps():
        logv = GridLaw._log_volumes(merged).ravel()
        return logv, p.on_grid(merged).ravel(), q.on_grid(merged).ravel()


def grid_cell_masses(p: GridLaw, q: GridLaw) -> tuple[np.ndarray, np.ndarray]:
    """Float masses of two grid laws on their merged cells."""
    logv, lp, lq = merged_grid_cells(p, q)
    mass = np.vectorize(lambda v, a: 0.0 if a == MP_NINF else float(mpmath.exp(a + v)))
    return mass(logv, lp).astype(float), mass(logv, lq).astype(float)


def _grid_max_log_ratio(p: GridLaw, q: GridLaw) -> mpmath.mpf:
    _, lp, lq = merged_grid_cells(p, q)
    best = MP_NINF
    for a, b in zip(lp, lq, strict=True):
        if a == MP_NINF:
            continue
        if b == MP_NINF:
            return MP_INF
        best = max(best, a - b)
    return best


def _grid_hockey_stick(p: GridLaw, q: GridLaw, eps: mpmath.mpf) -> mpmath.mpf:
    logv, lp, lq = merged_grid_cells(p, q)
    total = mpmath.mpf(0)
    for v, a, b in zip(logv, lp, lq, strict=True):
        if a == MP_NINF:
            continue
        diff = mpmath.exp(a + v) - (0 if b == MP_NINF else mpmath.exp(b + eps + v))
        if diff > 0:
            total += diff
    return total


def _grid_renyi(p: GridLaw, q: GridLaw, alpha: mpmath.mpf) -> mpmath.mpf:
    logv, lp, lq = merged_grid_cells(p, q)
    if alpha == 1:
        total = mpmath.mpf(0)
        for v, a, b in zip(logv, lp, lq, strict=True):
            if a == MP_NINF:
                continue
            if b == MP_NINF:
                return MP_INF
            total += mpmath.exp(a + v) * (a - b)
        return total
    terms = []
    for v, a, b in zip(logv, lp, lq, strict=True):
        if a == MP_NINF:
            continue
        if b == MP_NINF:
            if alpha > 1:
                return MP_INF
            continue
        terms.append(alpha * a + (1 - alpha) * b + v)
    return logsumexp(terms) / (alpha - 1)


__all__ = [
    "FLOAT_SAMPLING_TOLERANCE",
    "MAX_ATOMS",
    "MAX_GRID_CELLS",
    "MAX_MERGED_CELLS",
    "MAX_PIECES",
    "MAX_PRODUCT_CELLS",
    "PROBABILITY_SUM_TOLERANCE",
    "DiscreteLaw",
    "ExactDistribution",
    "GridLaw",
    "Piece",
    "PiecewiseLogLinear",
    "ProductLaw",
    "grid_cell_masses",
    "hockey_stick",
    "log_integral_exp_linear",
    "max_log_ratio",
    "merged_grid_cells",
    "privacy_loss",
    "renyi_divergence",
]
