"""The sampling contract and its breach.

``sample(data, size, rng)`` returns ``size`` draws (:data:`CONTRACT`); what breaks it is a
:class:`MalformedOutput`, a ``ValueError`` naming what was returned, which the auditor re-raises
naming the mechanism, the call and the data. :func:`dpquant.audit.model.outputs.normalise` reads the
draws and raises it.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

CONTRACT = (
    "sample(data, size, rng) must return size draws: an array of shape (size,) or (size, k), or "
    "a sequence of size outputs, each a number, a complex number, a flat sequence of numbers and "
    "symbols, a string, bytes, a boolean or None"
)
"""The sampling contract, as error messages state it."""


class MalformedOutput(ValueError):
    """What a mechanism returned breaks the sampling contract (module docstring).

    :meth:`naming` gives the error the auditor raises, naming the mechanism, the call and the
    data. A ``ValueError``: misuse, never an output.

    Args:
        what: What was returned (``"returned None"``, ``"returned 69 draws"``, ``"returned a
            draw that is a dict"``).
        mechanism: The mechanism's name (``""`` before it is known).
        call: The call that returned it, with its data (``""`` before it is known).
    """

    def __init__(self, what: str, mechanism: str = "", call: str = ""):
        where = f"{mechanism} {call}".strip()
        super().__init__(f"{where + ' ' if where else ''}{what}; {CONTRACT}")
        self.what, self.mechanism, self.call = what, mechanism, call

    def __reduce__(self) -> tuple[Any, ...]:  # picklable across process pools
        return (type(self), (self.what, self.mechanism, self.call))

    def naming(self, mechanism: str, call: str) -> MalformedOutput:
        """The same breach, naming the mechanism and the call.

        Args:
            mechanism: The mechanism's name.
            call: The call that made the breach, with its data.

        Returns:
            A new error with the same ``what``.
        """
        return type(self)(self.what, mechanism, call)


def kind_of(x: Any) -> str:
    """What an object is, for an error message.

    Args:
        x: Any object.

    Returns:
        A few words: ``None``, ``a generator``, ``a float (a scalar)``, ``an array of shape (4,
            2, 2)``, ``a list of 3 items``.
    """
    if x is None:
        return "None"
    if isinstance(x, np.ndarray):
        return f"an array of shape {x.shape}"
    if isinstance(x, list | tuple):
        return f"a {type(x).__name__} of {len(x)} items"
    name = type(x).__name__
    article = "an" if name[:1].lower() in "aeiou" else "a"
    if isinstance(x, numbers.Number | np.generic):
        return f"{article} {name} (a scalar)"
    return f"{article} {name}"


__all__ = ["CONTRACT", "MalformedOutput", "kind_of"]
