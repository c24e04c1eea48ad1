"""``from_callable``: audit any function ``fn(data, rng) -> one output``.

The wrapper turns the function into a mechanism on :class:`reference.core.MechanismBase`:
``sample`` checks ``size``, ``rng`` and the data once (the base's data policy, on ``domain``;
the empty data set is allowed, as add/remove audits need it), then calls the function once per draw
with the same generator, each time on a fresh copy of the data. An exception raised by a call
becomes that draw's output (the atom ``raised:<ExceptionType>``, see :mod:`audit.outputs`), so a
function that crashes on one data set and not on its neighbour is found to leak; the outputs are
returned as they are (never checked or converted: they are what the auditor judges).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from audit.claimed import ClaimedMechanism
from audit.limits import MAX_NAME
from audit.neighbours import check_probe_domain
from audit.outputs import Raised
from reference.core import PrivacyClaim, check_claim


@dataclass(frozen=True)
class CallableMechanism(ClaimedMechanism):
    """A function ``fn(data, rng) -> output`` with the claim it is audited against.

    The claim and the domain are stored as ``privacy_claim`` (:class:`audit.claimed.ClaimedMechanism`)
    and ``input_domain`` (the base derives ``domain`` as a property) and read as :attr:`claim` and
    :attr:`domain`; build it with :func:`from_callable`, which checks every argument."""

    fn: Callable[[np.ndarray, np.random.Generator], Any]
    privacy_claim: PrivacyClaim
    input_domain: tuple[float, float] = (-math.inf, math.inf)
    name: str = ""

    allow_empty: ClassVar[bool] = True

    @property
    def domain(self) -> tuple[float, float]:
        return self.input_domain

    @property
    def output_range(self) -> None:
        return None

    def _draw(self, data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` calls of ``fn``; numeric results give a float array of shape (size,) or
        (size, k), anything else (exceptions included) an object array."""
        outs: list[Any] = []
        for _ in range(size):
            try:
                outs.append(self.fn(data.copy(), rng))
            except Exception as exc:  # noqa: BLE001 -- an exception is an output
                outs.append(Raised.of(exc))
        if all(_is_real(o) or _is_real_row(o) for o in outs):
            try:
                arr = np.asarray(outs, dtype=float)
                if arr.ndim in (1, 2) and len(arr) == size:
                    return arr
            except (TypeError, ValueError, OverflowError):
                pass
        obj = np.empty(size, dtype=object)
        for i, o in enumerate(outs):
            obj[i] = o  # one object per draw (never broadcast into the array)
        return obj

    def _checked_output(self, out: Any, size: int) -> np.ndarray:
        return out  # a function's outputs are audited as they are, never checked or converted


def _is_real(x: Any) -> bool:
    return isinstance(x, int | float | np.integer | np.floating) and not isinstance(
        x, bool | np.bool_
    )


def _is_real_row(x: Any) -> bool:
    """A flat numpy array of reals (other sequences go through the auditor's atom rules)."""
    return isinstance(x, np.ndarray) and x.ndim == 1 and x.dtype.kind in "iuf"


def from_callable(
    fn: Callable[[np.ndarray, np.random.Generator], Any],
    claim: PrivacyClaim,
    domain: tuple[float, float] = (-math.inf, math.inf),
    name: str | None = None,
) -> CallableMechanism:
    """Wrap ``fn(data, rng) -> one output`` as a mechanism claiming ``claim`` on ``domain``.

    ``claim`` is a :class:`reference.PrivacyClaim` (its fields checked now), ``domain`` a pair
    lo < hi (infinite ends allowed; finite ends whose width fits a float64), ``name`` a string or
    None (then the function's qualified name)."""
    if not callable(fn):
        raise ValueError(f"fn must be callable, got {type(fn).__name__}")
    claim = check_claim(claim, "claim")
    domain = check_probe_domain(domain, "domain")
    if name is not None and not isinstance(name, str):
        raise ValueError(f"name must be a string or None, got {type(name).__name__}")
    if name is not None and len(name) > MAX_NAME:
        raise ValueError(f"name must have at most {MAX_NAME} characters, got {len(name)}")
    label = name or getattr(fn, "__qualname__", None) or repr(fn)
    return CallableMechanism(fn, claim, domain, str(label)[:MAX_NAME])
