"""The sparse vector technique (SVT): the six variants of Lyu, Su and Li ("Understanding the
sparse vector technique for differential privacy", VLDB 2017, Algs. 1-6), Wang et al.'s numerical
SVT (PLDI 2019, as DP-Sniper runs it) and DP-Sniper's SVT34Parallel (Bichsel et al., S&P 2021).

The input is a vector q of query answers of sensitivity 1; neighbours differ by at most 1 in
every answer (ℓ∞, :class:`dpquant.audit.model.relations.QueryAnswers`). Every variant follows one template
(Lyu et al., Alg. 1): draw the threshold noise ρ and set T̂ = T + ρ; for each query i draw ν_i and
answer "above" (⊤) when q_i + ν_i >= T̂, else ⊥; stop after c answers above (the cutoff), the
later positions holding :data:`ABORTED`. The variants differ in their noise scales and outputs:

======  ======================  ===================  ===============  ======  ==================
Lyu     threshold noise ρ       query noise ν_i      output if above  stops   privacy (claim ε)
======  ======================  ===================  ===============  ======  ==================
SVT1    Lap(2/ε) once           Lap(4c/ε)            ⊤                after c ε-DP
SVT2    Lap(2c/ε), redrawn      Lap(4c/ε)            ⊤                after c ε-DP
        after every ⊤
SVT3    Lap(2/ε)                Lap(2c/ε)            q_i + ν_i        after c not ε-DP
SVT4    Lap(4/ε)                Lap(4/(3ε))          ⊤                after c ((1+6c)/4)ε-DP
SVT5    Lap(2/ε)                none                 ⊤                never   no finite ε
SVT6    Lap(2/ε)                Lap(2/ε)             ⊤                never   not ε-DP
======  ======================  ===================  ===============  ======  ==================

StatDP (Ding et al., CCS 2018) runs the same algorithms as ``SVT`` (= SVT1) and ``iSVT1``-``iSVT4``
(= SVT5, SVT6, SVT4, SVT3); :mod:`dpquant.audit.suites.classic.suite` lists both names.

**Outputs.** ``size`` draws as a (size, k) numpy object array, one row per draw: the symbols
:data:`ABOVE`, :data:`BELOW` and :data:`ABORTED`, and for SVT3 the noisy answer (a float) in
place of ⊤ (the auditor's structured outputs, :mod:`dpquant.audit.model.outputs`).

**NumericalSVT** (Wang, Ding, Wang, Kifer, Zhang, "Proving differential privacy with shadow
execution", PLDI 2019): ρ ~ Lap(3/ε) once; a query is above when q_i + Lap(6c/ε) >= T + ρ, and then
the release is q_i + Lap(3c/ε), a fresh draw, else 0.0; it stops after c answers above.

**SVT34Parallel** (DP-Sniper): SVT3 and SVT4 run independently on the same input, each with the
full ε, and their outputs are concatenated (2k positions); not ε-DP since its SVT3 half is not.

**Ranges.** Every noise scale is at most :data:`dpquant.audit.suites.classic.inputs.MAX_SCALE`: ε is at least
the largest numerator of the table (4c for SVT1 and SVT2, 6c for NumericalSVT, ...) times
1e-300, so that every draw and every released answer is finite. :class:`Concatenated` checks that
each part returns one row per draw.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.audit.suites.classic.inputs import check_answers, check_draws, check_noise_epsilon
from dpquant.reference.validation import check_epsilon, check_finite, check_int, check_size

ABOVE = "⊤"
BELOW = "⊥"
ABORTED = "-"
"""The symbol of the positions after the cutoff (DP-Sniper's −1, StatDP's shorter list)."""
VARIANTS = (1, 2, 3, 4, 5, 6)
MAX_QUERIES = 64
"""Most queries of one run (the auditor reads up to 64 positions of a structured output)."""


def _check_run(epsilon: Any, cutoff: Any, threshold: Any, queries: Any) -> tuple[float, ...]:
    return (
        check_epsilon(epsilon),
        check_int(cutoff, "cutoff", minimum=1, maximum=MAX_QUERIES),
        check_finite(threshold, "threshold"),
        check_int(queries, "queries", minimum=1, maximum=MAX_QUERIES),
    )


@dataclass(frozen=True)
class SparseVector:
    """Lyu, Su and Li's SVT ``variant`` (1-6; module docstring) with budget ``epsilon``, cutoff
    c = ``cutoff`` (unused by SVT5 and SVT6, which never stop), public ``threshold`` T, on
    ``queries`` answers. Called as ``fn(q, size, rng)`` (:func:`dpquant.audit.from_callable`,
    ``vectorized=True``)."""

    variant: int
    epsilon: float
    cutoff: int = 1
    threshold: float = 1.0
    queries: int = 10

    def __post_init__(self) -> None:
        variant = check_int(self.variant, "variant", minimum=1, maximum=6)
        eps, c, t, k = _check_run(self.epsilon, self.cutoff, self.threshold, self.queries)
        for field, value in (
            ("variant", variant),
            ("epsilon", eps),
            ("cutoff", c),
            ("threshold", t),
            ("queries", k),
        ):
            object.__setattr__(self, field, value)
        numerator = max(self._threshold_numerator, self._query_numerator)
        object.__setattr__(self, "epsilon", check_noise_epsilon(self.epsilon, numerator))

    @property
    def _threshold_numerator(self) -> float:
        """ε times the Laplace scale of ρ."""
        if self.variant == 2:
            return 2.0 * self.cutoff
        return 4.0 if self.variant == 4 else 2.0

    @property
    def _query_numerator(self) -> float:
        """ε times the Laplace scale of ν_i."""
        numerators = {
            1: 4.0 * self.cutoff,
            2: 4.0 * self.cutoff,
            3: 2.0 * self.cutoff,
            4: 4.0 / 3.0,
            5: 0.0,
            6: 2.0,
        }
        return numerators[self.variant]

    @property
    def threshold_scale(self) -> float:
        """The Laplace scale of ρ: 2c/ε for SVT2, 4/ε for SVT4, 2/ε otherwise."""
        return self._threshold_numerator / self.epsilon

    @property
    def query_scale(self) -> float:
        """The Laplace scale of ν_i (0 for SVT5, which adds none)."""
        return self._query_numerator / self.epsilon

    @property
    def stops(self) -> bool:
        """Whether it stops after c answers above (SVT1-4)."""
        return self.variant <= 4

    def __call__(self, q: Any, size: Any, rng: Any) -> np.ndarray:
        answers = check_answers(q, self.queries)
        size, rng = check_draws(size, rng, self.queries, objects=True)
        k = self.queries
        redraws = self.variant == 2
        # SVT2 uses threshold noise number j after j answers above (j < c): one column each
        rho = rng.laplace(scale=self.threshold_scale, size=(size, self.cutoff if redraws else 1))
        noisy = np.broadcast_to(answers, (size, k))
        if self.query_scale:
            noisy = noisy + rng.laplace(scale=self.query_scale, size=(size, k))
        out = np.full((size, k), BELOW, dtype=object)
        count = np.zeros(size, dtype=np.int64)
        rows = np.arange(size)
        for i in range(k):
            active = count < self.cutoff if self.stops else np.ones(size, dtype=bool)
            shift = rho[rows, np.minimum(count, rho.shape[1] - 1)]
            above = active & (noisy[:, i] >= self.threshold + shift)
            out[~active, i] = ABORTED
            out[above, i] = noisy[above, i].tolist() if self.variant == 3 else ABOVE
            count += above
        return out


@dataclass(frozen=True)
class NumericalSVT:
    """Numerical SVT (Wang et al., PLDI 2019; module docstring) with budget ``epsilon``, cutoff
    c = ``cutoff``, threshold T = ``threshold``, on ``queries`` answers: per query the fresh noisy
    answer q_i + Lap(3c/ε) when above, 0.0 when below, :data:`ABORTED` after the cutoff."""

    epsilon: float
    cutoff: int = 2
    threshold: float = 1.0
    queries: int = 10

    def __post_init__(self) -> None:
        eps, c, t, k = _check_run(self.epsilon, self.cutoff, self.threshold, self.queries)
        for field, value in (("epsilon", eps), ("cutoff", c), ("threshold", t), ("queries", k)):
            object.__setattr__(self, field, value)
        object.__setattr__(self, "epsilon", check_noise_epsilon(eps, 6.0 * self.cutoff))

    @property
    def threshold_scale(self) -> float:
        return 3.0 / self.epsilon

    @property
    def query_scale(self) -> float:
        """The Laplace scale of the comparison's noise, 6c/ε."""
        return 6.0 * self.cutoff / self.epsilon

    @property
    def release_scale(self) -> float:
        """The Laplace scale of the released answer's fresh noise, 3c/ε."""
        return 3.0 * self.cutoff / self.epsilon

    def __call__(self, q: Any, size: Any, rng: Any) -> np.ndarray:
        answers = check_answers(q, self.queries)
        size, rng = check_draws(size, rng, self.queries, objects=True)
        k = self.queries
        rho = rng.laplace(scale=self.threshold_scale, size=(size, 1))
        above = answers + rng.laplace(scale=self.query_scale, size=(size, k)) >= (
            self.threshold + rho
        )
        released = answers + rng.laplace(scale=self.release_scale, size=(size, k))
        before = np.cumsum(above, axis=1) - above  # answers above before each position
        aborted = before >= self.cutoff
        out = np.zeros((size, k), dtype=object)
        out[:] = 0.0
        shown = above & ~aborted
        out[shown] = released[shown].tolist()
        out[aborted] = ABORTED
        return out


@dataclass(frozen=True)
class Concatenated:
    """Independent runs of ``parts`` (each ``fn(q, size, rng)`` returning a 2-D array) on the same
    input, their outputs side by side: DP-Sniper's SVT34Parallel is
    ``Concatenated((SparseVector(3, ε, 2), SparseVector(4, ε, 2)))``."""

    parts: tuple[Callable[..., np.ndarray], ...]

    def __post_init__(self) -> None:
        parts = self.parts
        if isinstance(parts, list | tuple) and parts and all(callable(p) for p in parts):
            object.__setattr__(self, "parts", tuple(parts))
            return
        raise ValueError(
            f"parts must be a non-empty list or tuple of samplers fn(q, size, rng), got "
            f"{type(parts).__name__}"
        )

    def __call__(self, q: Any, size: Any, rng: Any) -> np.ndarray:
        size = check_size(size, "size")
        outs = [np.asarray(part(q, size, rng), dtype=object) for part in self.parts]
        if any(o.ndim == 0 or len(o) != size for o in outs):
            raise ValueError(f"parts must each return one row per draw ({size} rows)")
        rows = [o.reshape(len(o), int(np.prod(o.shape[1:], dtype=np.int64))) for o in outs]
        return np.concatenate(rows, axis=1)


def svt34_parallel(epsilon: Any, cutoff: int = 2, threshold: float = 1.0) -> Concatenated:
    """DP-Sniper's SVT34Parallel: SVT3 ‖ SVT4, each with the full ``epsilon`` (c = 2, T = 1)."""
    return Concatenated(
        (
            SparseVector(3, epsilon, cutoff, threshold),
            SparseVector(4, epsilon, cutoff, threshold),
        )
    )


__all__ = [
    "ABORTED",
    "ABOVE",
    "BELOW",
    "MAX_QUERIES",
    "VARIANTS",
    "Concatenated",
    "NumericalSVT",
    "SparseVector",
    "svt34_parallel",
]
