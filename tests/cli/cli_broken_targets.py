"""Broken targets for ``tests/cli/test_cli_audit_verdicts.py``: functions and mechanisms a user's
refactor could break. ``dpquant audit`` must never pass any of them."""

from __future__ import annotations

from typing import Any

import numpy as np

from dpquant.reference.core import PrivacyClaim

LOCAL = PrivacyClaim(1.0, 0.0, "local")


def one_argument(data: np.ndarray) -> float:
    """A per-draw function that lost its generator."""
    return float(data[0])


def plain(data: np.ndarray, rng: np.random.Generator) -> float:
    """A correct-looking per-draw function (audited with --vectorized by mistake)."""
    return float(data[0] + rng.laplace(scale=1.0))


def always_raises(data: np.ndarray, rng: np.random.Generator) -> float:
    raise RuntimeError("the refactor broke this")


def recurses(data: np.ndarray, rng: np.random.Generator) -> float:
    return recurses(data, rng)


def forgot_to_return(data: np.ndarray, rng: np.random.Generator) -> None:
    rng.laplace()


def returns_a_dict(data: np.ndarray, rng: np.random.Generator) -> dict[str, float]:
    return {"value": float(data[0] + rng.laplace())}


class _Leaky:
    """A leaky mechanism (its output is the input plus little noise) whose ``sample`` returns a
    result of the wrong shape, chosen by ``shape``."""

    claim = LOCAL
    domain = (0.0, 1.0)

    def __init__(self, shape: str):
        self.shape = shape
        self.name = f"leaky, {shape}"

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> Any:
        draws = float(np.asarray(data)[0]) + rng.laplace(scale=0.05, size=size)
        if self.shape == "more":
            return np.concatenate([draws, draws[:5]])
        if self.shape == "fewer":
            return draws[:-5] if size > 5 else draws[:0]
        if self.shape == "scalar":
            return float(draws[0])
        if self.shape == "none":
            return None
        if self.shape == "cube":
            return np.repeat(draws, 4).reshape(size, 2, 2)
        return draws


leaky_right_shape = _Leaky("right")
leaky_more = _Leaky("more")
leaky_fewer = _Leaky("fewer")
leaky_scalar = _Leaky("scalar")
leaky_none = _Leaky("none")
leaky_cube = _Leaky("cube")


class _RaisesAlways:
    claim = LOCAL
    domain = (0.0, 1.0)
    name = "raises always"

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> Any:
        raise ZeroDivisionError("broken")


raises_always = _RaisesAlways()
