"""Report noisy max, the four variants of StatDP's benchmark (Ding, Wang, Wang, Zhang, Kifer,
"Detecting violations of differential privacy", CCS 2018; DP-Sniper, Bichsel et al., IEEE S&P
2021, names them ReportNoisyMax1-4 after StatDP's algorithms 5-8).

The input is a vector q of k query answers, each of sensitivity 1, and neighbours differ by at
most 1 in every answer (ℓ∞; :class:`dpquant.audit.model.relations.QueryAnswers`). Each answer gets iid noise
of scale 2/ε, Laplace or exponential (one-sided, mean 2/ε), and the mechanism releases

* the **index** of the largest noisy answer (ties go to the first index, as numpy's ``argmax``):
  ε-DP with either noise (ReportNoisyMax1, Laplace; ReportNoisyMax2, exponential);
* the largest noisy **value** itself (StatDP's "INCORRECT: returning maximum value instead of the
  index"): with Laplace noise exactly (kε/2)-DP (ReportNoisyMax3, derived, see
  :func:`dpquant.audit.suites.classic.suite.entry`), with exponential noise not ε'-DP for any ε'
  (ReportNoisyMax4: its support [max q, ∞) moves with q).
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
from dpquant.reference.validation import check_choice, check_int

NOISES = ("laplace", "exponential")
RELEASES = ("index", "value")
MAX_QUERIES = MAX_WIDTH
"""Most query answers a noisy-max sampler takes (:mod:`dpquant.audit.suites.classic.inputs`)."""


@dataclass(frozen=True)
class NoisyMax:
    """Report noisy max on ``queries`` answers with ``noise`` of scale 2/``epsilon``, releasing
    the ``release`` (``"index"`` or ``"value"``) of the largest noisy answer.

    Called as ``fn(q, size, rng)`` (:func:`dpquant.audit.from_callable`, ``vectorized=True``): ``size``
    draws as a float array of shape (size,) (indices as floats 0.0, 1.0, ...). ε >= 2e-300: the
    noise scale at most :data:`dpquant.audit.suites.classic.inputs.MAX_SCALE`."""

    epsilon: float
    noise: str = "laplace"
    release: str = "index"
    queries: int = 5

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_noise_epsilon(self.epsilon, 2.0))
        object.__setattr__(self, "noise", check_choice(self.noise, "noise", NOISES))
        object.__setattr__(self, "release", check_choice(self.release, "release", RELEASES))
        object.__setattr__(
            self, "queries", check_int(self.queries, "queries", minimum=1, maximum=MAX_QUERIES)
        )

    @property
    def scale(self) -> float:
        """The noise scale 2/ε (Laplace scale, or the exponential's mean)."""
        return 2.0 / self.epsilon

    def __call__(self, q: Any, size: Any, rng: Any) -> np.ndarray:
        answers = check_answers(q, self.queries)
        size, rng = check_draws(size, rng, self.queries)
        shape = (size, self.queries)
        if self.noise == "laplace":
            noise = rng.laplace(scale=self.scale, size=shape)
        else:
            noise = rng.exponential(scale=self.scale, size=shape)
        noisy = answers + noise
        if self.release == "index":
            return np.argmax(noisy, axis=1).astype(float)
        return noisy.max(axis=1)


__all__ = ["MAX_QUERIES", "NOISES", "RELEASES", "NoisyMax"]
