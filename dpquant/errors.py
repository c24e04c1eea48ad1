"""The errors dpquant raises for a value it refuses: a small hierarchy rooted in ``ValueError``.

A refused value is named in the error as an attribute, not only in its message, so that a caller
that needs the parameter (the command line writing its option ``--epsilon`` for the keyword
``epsilon``, a mechanism telling its own inputs from a helper's) reads the attribute and never
the text (docs/DESIGN.md, "Errors"):

* :class:`ParameterError`: one parameter's value is refused; its message is
  ``{parameter} {allowed}`` and, when the value is shown, ``, got {got}``
  (``epsilon must be a finite number > 0, got 0``);
* :class:`CombinationError`: the values of several parameters are refused together (each may be
  in range alone); its message is ``{p1}, {p2}: {allowed}`` (``min_log2n, max_log2n: need ...``);
* :class:`MissingAttributeError`: an object lacks an attribute it must have
  (``mech.claim is missing``).

Each is a ``ValueError``: ``except ValueError`` catches every one, and the messages read as the
library's messages always have. The attributes are read-only and the errors pickle with them (a
study's worker process sends its error back whole). This module sits below every other
(the layers of docs/DESIGN.md): it imports nothing of dpquant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def _text(value: object) -> str:
    """``value`` as text: a ``str`` as it is, anything else through ``str()``."""
    return value if isinstance(value, str) else str(value)


class ParameterError(ValueError):
    """A parameter's value is refused: the message is ``{parameter} {allowed}[, got {got}]``.

    Args:
        parameter: The parameter's name as the caller wrote it (``"epsilon"``,
            ``"claim.delta"``, ``"data"``, ``"domain[0]"``).
        allowed: What the value must be, in the words that follow the name in the message
            (``"must be a finite number > 0"``, ``"must lie in [0, 1)"``).
        got: The value received as the message shows it (``"0"``, ``"'abc'"``; a value that is not
            text is shown as ``str()`` writes it), or None when the message does not show it.

    Attributes:
        parameter: As given.
        parameters: The names the error refers to: ``(parameter,)``.
        allowed: As given.
        got: As given.
    """

    def __init__(self, parameter: str, allowed: str, got: object = None) -> None:
        parameter, allowed = _text(parameter), _text(allowed)
        got = None if got is None else _text(got)
        super().__init__(parameter, allowed, got)
        self._parameters: tuple[str, ...] = (parameter,)
        self._allowed = allowed
        self._got = got

    @property
    def parameter(self) -> str:
        """The name the message starts with (for several, the names joined by ``", "``)."""
        return ", ".join(self._parameters)

    @property
    def parameters(self) -> tuple[str, ...]:
        """Every parameter the error refers to, as the caller wrote it."""
        return self._parameters

    @property
    def allowed(self) -> str:
        """What the value must be, in the words that follow the name in the message."""
        return self._allowed

    @property
    def got(self) -> str | None:
        """The value received, described, or None when the message does not show it."""
        return self._got

    def _message(self, names: Sequence[str]) -> str:
        got = "" if self._got is None else f", got {self._got}"
        return f"{', '.join(names)} {self._allowed}{got}"

    def __str__(self) -> str:
        return self._message(self._parameters)

    def renamed(self, names: Mapping[str, str]) -> ParameterError:
        """The same error with each parameter written as ``names`` gives it (a parameter it
        lacks keeps its name): the command line writes ``--epsilon`` for ``epsilon``.

        Args:
            names: Each parameter's name → the name to write instead.

        Returns:
            A new error of the same type; ``self`` is unchanged.
        """
        first = self._parameters[0]
        return type(self)(names.get(first, first), self._allowed, self._got)


class CombinationError(ParameterError):
    """The values of several parameters are refused together: ``{p1}, {p2}: {allowed}``
    (``[, got {got}]``). One name is allowed too, for a value refused by what it gives rather
    than by its range (``pieces: two breakpoints ... are closer than the float resolution``).

    Args:
        parameters: The names, as the caller wrote them (at least one).
        allowed: Why they are refused, or what they must satisfy together.
        got: The values received as the message shows them (as for :class:`ParameterError`), or
            None.

    Raises:
        TypeError: No name is given (a programming error, not a refused value).
    """

    def __init__(self, parameters: Sequence[str], allowed: str, got: object = None) -> None:
        names = (parameters,) if isinstance(parameters, str) else tuple(parameters)
        if not names:
            raise TypeError("CombinationError needs at least one parameter's name")
        names = tuple(_text(n) for n in names)
        super().__init__(names[0], allowed, got)
        self.args = (names, self._allowed, self._got)
        self._parameters = names

    def _message(self, names: Sequence[str]) -> str:
        got = "" if self._got is None else f", got {self._got}"
        return f"{', '.join(names)}: {self._allowed}{got}"

    def renamed(self, names: Mapping[str, str]) -> CombinationError:
        """The same error with each of its parameters written as ``names`` gives it.

        Args:
            names: Each parameter's name → the name to write instead (a name it lacks stays).

        Returns:
            A new :class:`CombinationError`; ``self`` is unchanged.
        """
        renamed = tuple(names.get(n, n) for n in self._parameters)
        return type(self)(renamed, self._allowed, self._got)


class MissingAttributeError(ParameterError):
    """An object lacks an attribute it must have: ``{owner}.{attribute} {allowed}``, the
    parameter being ``owner.attribute`` (``mech.claim is missing``).

    Args:
        parameter: ``owner.attribute``, as the caller names it.
        allowed: What the message says after the name (default ``"is missing"``).
        got: As for :class:`ParameterError`.
    """

    def __init__(self, parameter: str, allowed: str = "is missing", got: object = None) -> None:
        super().__init__(parameter, allowed, got)


def recorded_name(exc: BaseException) -> str:
    """The name a raised exception is recorded and shown under (the auditor's atom
    ``raised:<name>``, the exact laws that enumerate a protocol's paths, the command line's
    ``raised <name>: ...``): its class's name, except that dpquant's own refusals are
    ``ValueError``, the class they refine, so an output or a message does not depend on which
    check refused.

    Args:
        exc: The exception raised.

    Returns:
        ``"ValueError"`` for a :class:`ParameterError`, else ``type(exc).__name__``.
    """
    return "ValueError" if isinstance(exc, ParameterError) else type(exc).__name__


__all__ = ["CombinationError", "MissingAttributeError", "ParameterError", "recorded_name"]
