"""``from_callable``: audit any function ``fn(data, rng) -> one output``.

The wrapper turns the function into a :class:`reference.core.Mechanism`: ``sample`` calls it once
per draw with the same generator, and an exception raised by a call becomes that draw's output (the
atom ``raised:<ExceptionType>``, see :mod:`audit.outputs`), so a function that crashes on one data
set and not on its neighbour is found to leak.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit.outputs import Raised
from reference.core import PrivacyClaim
from reference.validation import check_domain, check_rng, check_size


@dataclass(frozen=True)
class CallableMechanism:
    """A function ``fn(data, rng) -> output`` with the claim it is audited against."""

    fn: Callable[[np.ndarray, np.random.Generator], Any]
    claim: PrivacyClaim
    domain: tuple[float, float]
    name: str = ""

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` calls of ``fn``; numeric results give a float array of shape (size,) or
        (size, k), anything else (exceptions included) an object array."""
        size, rng = check_size(size), check_rng(rng)
        data = np.asarray(data)
        outs: list[Any] = []
        for _ in range(size):
            try:
                outs.append(self.fn(data.copy(), rng))
            except Exception as exc:  # noqa: BLE001 -- an exception is an output
                outs.append(Raised.of(exc))
        # None and strings would be coerced by numpy (None -> nan, "1.5" -> 1.5), merging atoms
        if not any(o is None or isinstance(o, (str, bytes)) for o in outs):
            try:
                arr = np.asarray(outs, dtype=float)
                if arr.ndim in (1, 2) and len(arr) == size:
                    return arr
            except (TypeError, ValueError):
                pass
        obj = np.empty(size, dtype=object)
        obj[:] = outs if all(np.ndim(o) == 0 for o in outs) else [_item(o) for o in outs]
        return obj


def _item(x: Any) -> Any:
    return x if isinstance(x, Raised) or np.ndim(x) == 0 else tuple(np.asarray(x).ravel().tolist())


def from_callable(
    fn: Callable[[np.ndarray, np.random.Generator], Any],
    claim: PrivacyClaim,
    domain: tuple[float, float] = (-np.inf, np.inf),
    name: str | None = None,
) -> CallableMechanism:
    """Wrap ``fn(data, rng) -> one output`` as a mechanism claiming ``claim`` on ``domain``."""
    if not callable(fn):
        raise ValueError(f"fn must be callable, got {fn!r}")
    if not isinstance(claim, PrivacyClaim):
        raise ValueError(f"claim must be a reference.PrivacyClaim, got {claim!r}")
    domain = check_domain(domain, "domain")
    label = name or getattr(fn, "__qualname__", None) or repr(fn)
    return CallableMechanism(fn, claim, domain, str(label))
