"""PRIVATEMEDIAN (tzamos20 Algorithm 1) as a :class:`~dpquant.reference.core.Mechanism`.

Modes (Algorithm 1; erratum E1 in ``notes/tzamos20.md``):

* ``"extension"`` (default): always sample D_general, f ∝ exp((ε/2)Ψ_X) on [−B, B] (Eq. (A.6),
  Prop. A.5(a)). ε-DP for every pair of inputs, whatever H is.
* ``"paper"``: Algorithm 1 as printed — the restricted flattened Laplace Â(X) when X ∈ H
  (Case (A), Algorithm 2), D_general otherwise (Case (B), Algorithm 7). **Not ε-DP**: Lemma 3.3
  and Prop. A.5(b) are false for the paper's H (erratum E1); the auditor finds a violation.
* ``"fixed"`` [OURS, a documented deviation]: Algorithm 1 with the fixed typical set H_fix
  (order-statistic constraints) and the cap M = min{Lrn, 4K} (``cap_rule="four_k"``) or
  min{Lrn, 2(K₋ + K₊ + 1)} (``"tight"``) — :mod:`fixed_typical_set`. For this H the extension
  equals the restricted law on H_fix (the variant's Prop. A.5(b), proved in ``notes/tzamos20.md``
  and checked exactly), so the Case-(A) shortcut is safe and the mechanism is ε-DP.

n is public (the data set's size; replace-one neighbours); L, r, R, C are the public constants of
:class:`MedianParameters`. The exact law of every output is a :class:`PiecewiseLogLinear`
(``exact``); ``sample`` draws from it by Algorithm 7 (an m-ary coin on the exact piece masses,
then the stable TRUNCATEDEXPONENTIAL inverse) or, in Case (A), by Algorithm 2.

Ψ is built by the fast exact construction of :mod:`fast_envelope` (``construction="fast"``,
default) or by the direct one of :mod:`extended_density` (``"direct"``, O(n²K) Fractions; the
reference the fast one is tested against). Both give the same exact pieces.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from dpquant.errors import CombinationError, ParameterError
from dpquant.reference.core import Adjacency, ExactMechanismBase
from dpquant.reference.distributions import PiecewiseLogLinear
from dpquant.reference.private_median.extended_density import (
    Piece,
    envelope,
    exact_epsilon,
    law_from_pieces,
)
from dpquant.reference.private_median.fast_envelope import (
    check_fast,
    check_typical_set_nonempty,
    fast_envelope_presorted,
)
from dpquant.reference.private_median.fixed_typical_set import (
    CAP_RULES,
    fixed_cap,
    fixed_envelope,
    fixed_restricted_pieces,
    in_fixed_typical_set_presorted,
)
from dpquant.reference.private_median.parameters import MedianParameters, check_params
from dpquant.reference.private_median.restricted_density import restricted_pieces, sample_restricted
from dpquant.reference.private_median.typical_set import (
    check_direct,
    exact_data,
    in_typical_set_presorted,
    left_median_presorted,
)
from dpquant.reference.validation import check_choice, check_positive, check_real_array

MODES = ("extension", "paper", "fixed")
CONSTRUCTIONS = ("fast", "direct")
OUTPUTS = ("grid", "continuous")
GRID_BITS = 32
_INPUTS = ("data", "epsilon", "L", "r", "R", "C")
"""What a user gives the mechanism: an error naming none of them is named as all of them."""
MIN_CONSTANT = Fraction(1, 2**64)
MAX_CONSTANT = Fraction(2**64)
"""The representable range of the constants L, r, R, C and of ε: each in [2^-64, 2^64]. Within
it the output bound B = R + 4Cr, the output grid, the slopes (ε/2)·Ln/(6C) and the float
sampler stay far from float overflow and underflow; outside it the mechanism is refused."""


def _check_constant(value: Fraction, name: str) -> Fraction:
    if not MIN_CONSTANT <= value <= MAX_CONSTANT:
        raise ParameterError(
            name,
            "must lie in [2^-64, 2^64] (the range where the mechanism's outputs and float sampler "
            "are representable)",
            float(value) if abs(value) < 1e300 else value,
        )
    return value


def output_grid(params: MedianParameters) -> float:
    """Λ = 2^(⌈log₂ B⌉ − 32): the public spacing of the released outputs (``output="grid"``).

    Every |y| <= B has ulp(y) <= 2^(⌈log₂ B⌉ − 52), so Λ is 2^20 ulps or more: the few-ulp
    rounding of the float sampler moves an output into a neighbouring grid cell only within
    ~2^-19 of a cell's width of its boundary, and every input has the same set of possible
    outputs (the multiples of Λ). Λ·j is an exact double for |j| <= 2^32."""
    params = check_params(params)
    if not Fraction(2) ** -1000 <= params.output_bound <= Fraction(2) ** 1000:
        raise ValueError("params: the output bound B = R + 4Cr must lie in [2^-1000, 2^1000]")
    exponent = math.ceil(math.log2(params.output_bound))
    while Fraction(2) ** exponent < params.output_bound:  # guard the float log2
        exponent += 1
    while exponent > -1074 and Fraction(2) ** (exponent - 1) >= params.output_bound:
        exponent -= 1
    return math.ldexp(1.0, exponent - GRID_BITS)


def snap_to_grid(values: np.ndarray, spacing: float) -> np.ndarray:
    """Λ·round(y/Λ) (exact in floats for a power-of-two Λ): post-processing of y."""
    y = check_real_array(values, "values")
    spacing = check_positive(spacing, "spacing")
    if math.frexp(spacing)[0] != 0.5:
        raise ParameterError("spacing", "must be a power of two > 0", repr(spacing))
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.round(y / spacing) * spacing
    if not np.all(np.isfinite(out)):
        raise ValueError("values and spacing: y/Λ must fit a float")
    return out


ENVELOPE_CACHE_SIZE = 16_384
"""Envelopes Ψ_X memoised per process (least recently used dropped first; about 3 KB each, so
at most about 50 MB; :func:`clear_envelope_cache` frees them). The auditor's exact stage on the
registry's constants visits about 8,700 data sets: this many keeps a whole audit's envelopes, so a
second audit of the same constants in the process (the paper mode, whose Ψ outside H is the
extension's, or another sample size, output or event option) reuses them instead of cycling
through a smaller cache with no hit (the four audits of
``tests/reference/private_median/test_tzamos20_audit.py``: 35.0 s → 23.5 s in one process,
issue 39)."""


@functools.lru_cache(maxsize=ENVELOPE_CACHE_SIZE)
def _envelope(
    params: MedianParameters,
    data: tuple[Fraction, ...],
    typical_set: str,
    cap_rule: str,
    construction: str,
) -> tuple[Piece, ...]:
    if typical_set == "paper":
        check_typical_set_nonempty(params)
    (check_direct if construction == "direct" else check_fast)(params, "data, L, r, C")
    if construction == "direct":
        if typical_set == "fixed":
            return tuple(fixed_envelope(list(data), params, cap_rule))
        return tuple(envelope(list(data), params))
    cap = _fixed_cap(params, cap_rule) if typical_set == "fixed" else None
    return tuple(fast_envelope_presorted(list(data), params, typical_set, cap))


_fixed_cap = functools.lru_cache(maxsize=256)(fixed_cap)
"""d_M per (params, cap rule): the same few constants for every data set of one size."""


@functools.lru_cache(maxsize=1024)
def _parameters(
    n: int, L: Fraction, r: Fraction, R: Fraction, C: Fraction, median_index: str
) -> MedianParameters:
    """The checked constants for data sets of size n, built once per size (issue 39)."""
    return MedianParameters(n, L, r, R, C, median_index)


@functools.lru_cache(maxsize=1024)
def _restricted(
    params: MedianParameters, median: Fraction, mode: str, cap_rule: str
) -> tuple[Piece, ...]:
    """Case (A)'s single tent at m(X), memoised: it depends on n and the median alone (in the
    auditor's search on ``tzamos20_paper_algorithm_1``, 115 distinct (n, m) among 7,614 data
    sets in H)."""
    if mode == "paper":
        return tuple(restricted_pieces(median, params))
    return tuple(fixed_restricted_pieces(median, params, cap_rule))


@functools.lru_cache(maxsize=1024)
def _law_of(pieces: tuple[Piece, ...], epsilon: Fraction) -> PiecewiseLogLinear:
    """:func:`law_from_pieces`, memoised: the law is a function of Ψ and ε alone, and many data
    sets share one Ψ (in the auditor's search on ``[fixed,…]``, 830 distinct Ψ among 4,781 data
    sets: Case (A)'s tent depends on the median only, and far points move no level bound)."""
    return law_from_pieces(list(pieces), epsilon)


def clear_envelope_cache() -> None:
    """Forget the memoised envelopes of :func:`extension_pieces`, Case (A)'s tents and the
    memoised laws (for timing the construction)."""
    _envelope.cache_clear()
    _restricted.cache_clear()
    _law_of.cache_clear()


def _choice(value: str, allowed: tuple[str, ...], name: str) -> str:
    return check_choice(value, name, allowed)


def extension_pieces(
    data: Any,
    params: MedianParameters,
    *,
    typical_set: str = "paper",
    cap_rule: str = "four_k",
    construction: str = "fast",
) -> list[Piece]:
    """Ψ_X (or Ψ^fix_X for ``typical_set="fixed"``), memoised on the sorted data: the partition
    does not depend on ε (ε enters Eq. (A.6) only as the factor ε/2 of the exponent). ValueError
    when the paper's H is empty (C <= Lr/2 for this n), or when the construction exceeds its budget (about 10 s:
    :data:`.fast_envelope.MAX_FAST_WORK`, :data:`.typical_set.MAX_DIRECT_WORK`)."""
    _choice(typical_set, ("paper", "fixed"), "typical_set")
    _choice(cap_rule, CAP_RULES, "cap_rule")
    _choice(construction, CONSTRUCTIONS, "construction")
    params = check_params(params)
    x = tuple(exact_data(data, params.n))
    return list(_envelope(params, x, typical_set, cap_rule, construction))


@dataclass(frozen=True)
class PrivateMedian(ExactMechanismBase):
    """tzamos20's ε-DP median estimator for (L, R, r)-admissible data (Assumption 1.2 as
    reconstructed in ``notes/tzamos20.md``). Outputs lie in [−B, B], B = R + 4Cr (on the grid:
    multiples of :func:`output_grid`, within Λ/2 of [−B, B]); n is the data set's size (any finite
    values).

    ``mode``: ``"extension"`` (default), ``"paper"`` (Algorithm 1 as printed, not ε-DP) or
    ``"fixed"`` (H_fix with ``cap_rule``); ``median_index``: ``"ceil"`` (ℓ = ⌈n/2⌉, default) or
    the printed ``"floor"``; ``construction``: ``"fast"`` (default) or ``"direct"``.

    ``L``, ``r``, ``R``, ``C`` and ``epsilon`` are real numbers (ints, floats read exactly, or
    Fractions; never strings or bools) in [2^-64, 2^64] (:data:`MAX_CONSTANT`). The law's
    construction is refused (ValueError) beyond about 20 s: n·(K + 2000) <= 6·10^7 for the fast
    construction (n = 10^4 at C = 1 passes), n²·(K + 1) <= 3·10^5 for the direct one
    (K = ⌊Lrn/(2C)⌋)."""

    L: Any
    r: Any
    R: Any
    C: Any
    epsilon: Any
    mode: str = "extension"
    median_index: str = "ceil"
    cap_rule: str = "four_k"
    construction: str = "fast"
    output: str = "grid"

    adjacency = Adjacency.REPLACE_ONE

    def __post_init__(self) -> None:
        checked = MedianParameters(1, self.L, self.r, self.R, self.C, self.median_index)
        for name in ("L", "r", "R", "C"):
            object.__setattr__(self, name, _check_constant(getattr(checked, name), name))
        _choice(self.mode, MODES, "mode")
        _choice(self.cap_rule, CAP_RULES, "cap_rule")
        _choice(self.construction, CONSTRUCTIONS, "construction")
        _choice(self.output, OUTPUTS, "output")
        object.__setattr__(self, "epsilon", _check_constant(exact_epsilon(self.epsilon), "epsilon"))

    @property
    def claimed_epsilon(self) -> float:
        return float(self.epsilon)

    @property
    def domain(self) -> tuple[float, float]:
        return (-math.inf, math.inf)

    @property
    def output_range(self) -> tuple[float, float]:
        """[−B, B], widened by half a grid step for ``output="grid"`` (snapping)."""
        bound = float(self.R + 4 * self.C * self.r)
        if self.output == "grid":
            bound += output_grid(self.parameters(1)) / 2
        return (-bound, bound)

    @property
    def name(self) -> str:
        extra = f",cap={self.cap_rule}" if self.mode == "fixed" else ""
        extra += ",output=continuous" if self.output == "continuous" else ""
        return (
            f"tzamos20_private_median[mode={self.mode}{extra},L={self.L},r={self.r},R={self.R},"
            f"C={self.C},eps={self.epsilon}]"
        )

    def parameters(self, n: int) -> MedianParameters:
        """The constants for data sets of size ``n`` (memoised per size for an int n)."""
        if type(n) is not int:
            return MedianParameters(n, self.L, self.r, self.R, self.C, self.median_index)
        return _parameters(n, self.L, self.r, self.R, self.C, self.median_index)

    def check_input(self, data: Any) -> list[Fraction]:
        """The data as sorted exact rationals (:func:`.typical_set.exact_data`: the data policy,
        floats read exactly)."""
        return exact_data(data)

    def _case(self, values: list[Fraction]) -> tuple[MedianParameters, bool]:
        params = self.parameters(len(values))
        if self.mode == "paper":
            check_typical_set_nonempty(params)
            return params, in_typical_set_presorted(values, params)
        if self.mode == "fixed":
            return params, in_fixed_typical_set_presorted(values, params)
        return params, False

    def restricted(self, data: Any) -> bool:
        """Whether ``data`` takes Algorithm 1's Case (A) (always False for ``"extension"``)."""
        return self._case(self.check_input(data))[1]

    def pieces(self, data: Any) -> list[Piece]:
        """Ψ for this input (f ∝ exp((ε/2)Ψ)): the extension's envelope, or the single tent at
        m(X) in Case (A)."""
        return self._pieces(self.check_input(data))

    def _pieces(self, values: list[Fraction]) -> list[Piece]:
        params, restricted = self._case(values)
        if restricted:
            median = left_median_presorted(values, params)
            return list(_restricted(params, median, self.mode, self.cap_rule))
        # the data are checked (sorted exact, n of them) and the options were checked at
        # construction: straight to the memoised envelope (what extension_pieces does after
        # its checks)
        typical_set = "fixed" if self.mode == "fixed" else "paper"
        return list(_envelope(params, tuple(values), typical_set, self.cap_rule, self.construction))

    def _law(self, values: list[Fraction]) -> PiecewiseLogLinear:
        """The exact output law on the checked data (``pieces`` refused where the float law
        cannot represent them: named as the data and the constants)."""
        try:
            return _law_of(tuple(self._pieces(values)), self.epsilon)
        except ParameterError as exc:
            if "pieces" in exc.parameters:
                raise CombinationError(_INPUTS, str(exc)) from None
            raise

    def _draw(self, values: list[Fraction], size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` independent outputs: Algorithm 2 in Case (A), Algorithm 7 otherwise; then,
        for ``output="grid"`` (default), snapped to the multiples of :func:`output_grid`
        (float-safe; ``"continuous"`` releases the sampler's doubles)."""
        params, restricted = self._case(values)
        try:
            if restricted:
                cap = fixed_cap(params, self.cap_rule) if self.mode == "fixed" else None
                m = left_median_presorted(values, params)
                draws = sample_restricted(m, params, self.epsilon, size, rng, cap=cap)
            else:
                draws = self._law(values).sample(size, rng)
        except ValueError as exc:
            if isinstance(exc, ParameterError) and set(exc.parameters) & set(_INPUTS):
                raise  # it names the mechanism's own inputs already
            raise CombinationError(_INPUTS, str(exc)) from None
        if self.output == "grid":
            return snap_to_grid(draws, output_grid(params))
        return draws


__all__ = [
    "CONSTRUCTIONS",
    "ENVELOPE_CACHE_SIZE",
    "GRID_BITS",
    "MODES",
    "OUTPUTS",
    "PrivateMedian",
    "clear_envelope_cache",
    "extension_pieces",
    "output_grid",
    "snap_to_grid",
]
