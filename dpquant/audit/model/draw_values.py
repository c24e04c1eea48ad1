"""The auditor's value of a batch of draws: :class:`Outputs` (numbers, named atoms, and the
tokens of structured draws position by position) and the atoms' names.

:mod:`dpquant.audit.model.outputs` reads what a mechanism's ``sample`` returned into this value
(the sampling contract); the stages only read it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from dpquant.errors import recorded_name
from dpquant.reference.validation import check_int

NUMERIC = ""  # the atom name of a numeric draw
TIMEOUT = "timeout"  # the atom of a draw that exceeded the audit's per-draw time limit


@dataclass(frozen=True)
class Raised:
    """An exception raised while drawing one output, kept as an output atom.

    Attributes:
        type_name: The exception's class name (the atom is ``raised:<type_name>``), as
            :func:`dpquant.errors.recorded_name` gives it (``ValueError`` for dpquant's own
            refusals).
    """

    type_name: str

    @classmethod
    def of(cls, exc: BaseException) -> Raised:
        return cls(recorded_name(exc))

    def __str__(self) -> str:
        return f"raised:{self.type_name}"


@dataclass(frozen=True)
class Outputs:
    """``n`` draws, each a row of numbers or an atom."""

    values: np.ndarray
    """(n, k) floats, NaN where the draw is an atom."""
    atoms: np.ndarray
    """(n,) atom names, ``""`` (:data:`NUMERIC`) for numeric draws."""
    tokens: np.ndarray | None = None
    """Structured draws (flat sequences mixing symbols and numbers) position by position: an
    (n, L) object array of tokens (a symbol's name, ``"#"`` for a number, ``""`` past the end
    or for a draw that is not structured); None when no draw is structured."""
    numbers: np.ndarray | None = None
    """The numbers of structured draws, (n, L) floats (NaN where the token is not ``"#"``, and
    for a NaN or a number too large for a float64)."""

    def __len__(self) -> int:
        return len(self.atoms)

    def positions(self) -> int:
        """L, the positions of the longest structured draw (0 without structured draws)."""
        return 0 if self.tokens is None else self.tokens.shape[1]

    def padded(self, length: int) -> tuple[np.ndarray, np.ndarray]:
        """``tokens`` and ``numbers`` padded to ``length`` positions (``""`` and NaN); read-only
        views of the draws' own arrays when they have ``length`` positions already.

        Args:
            length: The positions wanted, at least the longest draw's.
        """
        if self.tokens is not None and self.numbers is not None and length == self.positions():
            return _read_only(self.tokens), _read_only(self.numbers)
        tokens = np.full((len(self), length), "", dtype=object)
        numbers = np.full((len(self), length), np.nan)
        if self.tokens is not None and self.numbers is not None:
            k = min(length, self.positions())
            tokens[:, :k] = self.tokens[:, :k]
            numbers[:, :k] = self.numbers[:, :k]
        return tokens, numbers

    def number_column(self, position: int) -> np.ndarray:
        """The numbers of structured draws at one position (NaN where there is none), as
        ``padded(position + 1)[1][:, position]`` without padding the other positions.

        Args:
            position: A position, an integer 0 or more.

        Raises:
            ValueError: ``position`` is not an integer 0 or more.
        """
        position = check_int(position, "position", minimum=0)
        if self.numbers is None or position >= self.positions():
            return np.full(len(self), np.nan)
        return self.numbers[:, position].copy()

    @property
    def width(self) -> int:
        return self.values.shape[1]

    @cached_property
    def numeric(self) -> np.ndarray:
        """Boolean mask of the numeric draws (read-only: computed once, as the stages ask for
        it many times per batch of draws)."""
        return _read_only(np.asarray(self.atoms == NUMERIC, dtype=bool))

    def atom_counts(self) -> dict[str, int]:
        """The number of draws of each atom, by name in sorted order (a new dict on each call)."""
        return dict(self._atom_counts)

    @cached_property
    def _atom_counts(self) -> tuple[tuple[str, int], ...]:
        if self.numeric.all():
            return ()
        counts = Counter(self.atoms[~self.numeric].tolist())
        return tuple((str(a), int(c)) for a, c in sorted(counts.items()))

    def as_atoms(self) -> Outputs:
        """The same draws with every numeric row made the atom ``length:<k>`` (used when draws
        of different widths must be pooled)."""
        atoms = np.where(self.numeric, f"length:{self.width}", self.atoms).astype(object)
        return Outputs(np.full((len(self), 1), np.nan), atoms, self.tokens, self.numbers)

    def halves(self) -> tuple[Outputs, Outputs]:
        """The first ⌊n/2⌋ draws and the rest (independent draws: two independent samples)."""
        h = len(self) // 2
        return self._rows(slice(0, h)), self._rows(slice(h, len(self)))

    def head(self, n: int) -> Outputs:
        """The first ``n`` draws (all when there are fewer).

        Args:
            n: How many.
        """
        return self._rows(slice(0, n))

    def rows(self, start: int, stop: int) -> Outputs:
        """Draws ``start`` to ``stop`` − 1 (as many as there are).

        Args:
            start: The first draw's index.
            stop: One past the last draw's index.
        """
        return self._rows(slice(start, stop))

    def _rows(self, rows: slice) -> Outputs:
        tokens = None if self.tokens is None else self.tokens[rows]
        numbers = None if self.numbers is None else self.numbers[rows]
        return Outputs(self.values[rows], self.atoms[rows], tokens, numbers)

    @staticmethod
    def concat(parts: list[Outputs]) -> Outputs:
        """Draws of several calls pooled.

        If the numeric rows of the calls have different widths, each numeric row becomes the
        atom ``length:<k>`` (a width that changes is an output like any other, never an error).

        Args:
            parts: The calls' draws, in order.
        """
        if not parts:
            raise ValueError("parts must be non-empty")
        widths = {p.width for p in parts if p.numeric.any()}
        if len(widths) > 1:
            parts = [p.as_atoms() for p in parts]
            widths = {1}
        width = widths.pop() if widths else 1
        values = np.concatenate(
            [p.values if p.width == width else np.full((len(p), width), np.nan) for p in parts]
        )
        atoms = np.concatenate([p.atoms for p in parts])
        length = max(p.positions() for p in parts)
        if not length:
            return Outputs(values, atoms)
        padded = [p.padded(length) for p in parts]
        tokens = np.concatenate([t for t, _ in padded])
        numbers = np.concatenate([n for _, n in padded])
        return Outputs(values, atoms, tokens, numbers)

    @staticmethod
    def empty(width: int = 1) -> Outputs:
        """No draws.

        Args:
            width: The numeric rows' width (k).
        """
        return Outputs(np.empty((0, width)), np.empty(0, dtype=object))


def _read_only(array: np.ndarray) -> np.ndarray:
    """A view of ``array`` that cannot be written to."""
    view = array.view()
    view.flags.writeable = False
    return view


__all__ = ["NUMERIC", "TIMEOUT", "Outputs", "Raised"]
