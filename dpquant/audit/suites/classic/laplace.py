"""Laplace releases of StatDP's and DP-Sniper's benchmarks (Ding et al., CCS 2018; Bichsel et al.,
IEEE S&P 2021): the Laplace mechanism and the noisy histogram, right and wrong, the prefix sum of
Wang et al. (PLDI 2019) and the parallel composition of Laplace mechanisms.

* :class:`LaplaceRelease`: q + Lap(1/ε) on every one of k answers. Under ℓ1 neighbours (one count
  moves by 1; :class:`dpquant.audit.model.relations.QueryAnswers` with ``norm="l1"``) this is ε-DP (Dwork,
  McSherry, Nissim, Smith, TCC 2006): DP-Sniper's LaplaceMechanism (k = 1) and NoisyHist1
  (k = 5, StatDP's ``histogram``). With ``wrong_scale=True`` the noise is Lap(ε) instead
  (StatDP's ``histogram_eps``, "INCORRECT: using (epsilon) noise instead of (1 / epsilon)";
  DP-Sniper's NoisyHist2), exactly (1/ε)-DP: the Laplace density ratio over a shift of 1 is
  e^{1/b} with b = ε, reached on the tails.
* :class:`PrefixSum`: the prefix sums s_j = Σ_{i<=j} (q_i + η_i), η_i ~ Lap(1/ε) iid. The sums are
  a bijective post-processing of q + η, so the release is ε-DP under ℓ1 neighbours; DP-Sniper
  audits it under ℓ∞ neighbours (every answer may move by 1), where its exact guarantee is kε
  (derived: k independent Laplace releases each shifted by 1, the ratio e^{kε} reached when every
  coordinate lies in its tail).
* :class:`LaplaceParallel`: ``copies`` independent Laplace mechanisms on one answer, each with
  ε/copies (DP-Sniper: 20 copies of 0.005), ε-DP by basic composition and exactly so (derived:
  the ratio e^{ε} is reached when every copy lies in its tail).

``size`` draws come as a float array of shape (size, k) (k = ``copies`` for the parallel one).
The noise scale is at most :data:`dpquant.audit.suites.classic.inputs.MAX_SCALE`: ε >= 1e-300 (``copies``·1e-300
for the parallel one; ε <= 1e300 with ``wrong_scale``), so that every draw is finite.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpquant.audit.suites.classic.inputs import (
    MAX_WIDTH,
    check_answers,
    check_draws,
    check_noise_epsilon,
)
from dpquant.reference.validation import check_flag, check_int

MAX_ANSWERS = MAX_WIDTH
"""Most answers (or copies) of one release (:mod:`dpquant.audit.suites.classic.inputs`)."""


@dataclass(frozen=True)
class LaplaceRelease:
    """q + Lap(1/``epsilon``) (Lap(``epsilon``) when ``wrong_scale``) on ``answers`` answers."""

    epsilon: float
    answers: int = 5
    wrong_scale: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "answers", check_int(self.answers, "answers", minimum=1, maximum=MAX_ANSWERS)
        )
        object.__setattr__(self, "wrong_scale", check_flag(self.wrong_scale, "wrong_scale"))
        eps = check_noise_epsilon(self.epsilon, 1.0, grows=self.wrong_scale)
        object.__setattr__(self, "epsilon", eps)

    @property
    def scale(self) -> float:
        return self.epsilon if self.wrong_scale else 1.0 / self.epsilon

    def __call__(self, q: Any, size: Any, rng: Any) -> np.ndarray:
        answers = check_answers(q, self.answers)
        size, rng = check_draws(size, rng, self.answers)
        return answers + rng.laplace(scale=self.scale, size=(size, self.answers))


@dataclass(frozen=True)
class PrefixSum:
    """The prefix sums of q + Lap(1/``epsilon``) over ``answers`` answers (module docstring)."""

    epsilon: float
    answers: int = 10

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_noise_epsilon(self.epsilon, 1.0))
        object.__setattr__(
            self, "answers", check_int(self.answers, "answers", minimum=1, maximum=MAX_ANSWERS)
        )

    @property
    def scale(self) -> float:
        return 1.0 / self.epsilon

    def __call__(self, q: Any, size: Any, rng: Any) -> np.ndarray:
        answers = check_answers(q, self.answers)
        size, rng = check_draws(size, rng, self.answers)
        noisy = answers + rng.laplace(scale=self.scale, size=(size, self.answers))
        return np.cumsum(noisy, axis=1)


@dataclass(frozen=True)
class LaplaceParallel:
    """``copies`` independent releases q + Lap(copies/``epsilon``) of one answer q (each copy
    spends ``epsilon``/``copies``; module docstring)."""

    epsilon: float
    copies: int = 20

    def __post_init__(self) -> None:
        copies = check_int(self.copies, "copies", minimum=1, maximum=MAX_ANSWERS)
        object.__setattr__(self, "copies", copies)
        object.__setattr__(self, "epsilon", check_noise_epsilon(self.epsilon, float(copies)))

    @property
    def scale(self) -> float:
        """The scale of each copy's noise, copies/ε."""
        return self.copies / self.epsilon

    def __call__(self, q: Any, size: Any, rng: Any) -> np.ndarray:
        answer = check_answers(q, 1)
        size, rng = check_draws(size, rng, self.copies)
        return answer[0] + rng.laplace(scale=self.scale, size=(size, self.copies))


__all__ = ["MAX_ANSWERS", "LaplaceParallel", "LaplaceRelease", "PrefixSum"]
