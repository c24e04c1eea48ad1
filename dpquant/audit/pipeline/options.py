"""How an audit runs, beside what it audits: :class:`AuditOptions`.

:func:`dpquant.audit.audit_mechanism` takes what an audit is about as keywords (the pairs or the
domain, the relation, the draws, α, the seed, the mode, the executor) and the rest — a time
limit per draw, the tightest bound rather than the quickest verdict, the float-lattice events, a
name, a progress callback — as one ``options`` value, so a call reads::

    audit_mechanism(mech, samples=100_000, options=AuditOptions(timeout=2.0, tighten=True))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dpquant.audit.model.limits import MAX_NAME, MAX_TIMEOUT, MIN_TIMEOUT
from dpquant.errors import ParameterError
from dpquant.reference.validation import check_flag, check_positive


@dataclass(frozen=True)
class AuditOptions:
    """The options of one audit (each checked when the value is made, and again when an audit
    uses it).

    Attributes:
        timeout: Seconds each draw may take (:data:`dpquant.audit.model.limits.MIN_TIMEOUT` to
            :data:`dpquant.audit.model.limits.MAX_TIMEOUT`), or None for no limit; a draw that
            overruns starts the hang test (:mod:`dpquant.audit.pipeline.hang_check`).
        tighten: Give every finalist the full budget even when the search already shows a
            clear violation, in one round that evaluates its best finalist with all of α: the
            tightest bound rather than the quickest verdict, at more draws.
        float_lattice: Add the float-lattice events (:mod:`dpquant.audit.events.families`): a
            float sampler whose draws sit on different lattices of doubles on two neighbours
            leaks (Mironov 2012); most mechanisms with continuous float outputs leak that way,
            so they are an option.
        name: The name in the report (at most :data:`dpquant.audit.model.limits.MAX_NAME`
            characters); None: the mechanism's own.
        progress: A callable that receives one line per stage, or None.

    Raises:
        ValueError: A field out of its range, named.
    """

    timeout: float | None = None
    tighten: bool = False
    float_lattice: bool = False
    name: str | None = None
    progress: Callable[[str], None] | None = None

    def __post_init__(self) -> None:
        for field_name, value in zip(_FIELDS, _checked_fields(self), strict=True):
            object.__setattr__(self, field_name, value)


_FIELDS = ("timeout", "tighten", "float_lattice", "name", "progress")


def _checked_fields(options: AuditOptions) -> tuple[Any, ...]:
    """The fields of ``options``, checked (a float timeout, bool flags)."""
    _check_name(options.name)
    if options.progress is not None and not callable(options.progress):
        raise ParameterError(
            "progress", "must be callable (one line per stage) or None", f"{options.progress!r:.80}"
        )
    return (
        _check_timeout(options.timeout),
        check_flag(options.tighten, "tighten"),
        check_flag(options.float_lattice, "float_lattice"),
        options.name,
        options.progress,
    )


def check_options(options: Any) -> AuditOptions:
    """Check an audit's options at the time of use (a frozen dataclass can still be changed
    with ``object.__setattr__``).

    Args:
        options: An :class:`AuditOptions`, or None for the defaults.

    Returns:
        New options whose fields are valid now.

    Raises:
        ValueError: ``options`` is not an :class:`AuditOptions`, or a field is out of its range
            (named).
    """
    if options is None:
        return AuditOptions()
    if not isinstance(options, AuditOptions):
        raise ParameterError(
            "options", "must be a dpquant.audit.AuditOptions or None", type(options).__name__
        )
    return AuditOptions(*_checked_fields(options))


def _check_name(name: Any) -> None:
    """``name``: None or a string of at most :data:`MAX_NAME` characters."""
    if name is None:
        return
    if not isinstance(name, str):
        raise ParameterError("name", "must be a string or None", type(name).__name__)
    if len(name) > MAX_NAME:
        raise ParameterError("name", f"must have at most {MAX_NAME} characters", len(name))


def _check_timeout(timeout: Any) -> float | None:
    """``timeout``: None, or seconds in [:data:`MIN_TIMEOUT`, :data:`MAX_TIMEOUT`]."""
    if timeout is None:
        return None
    seconds = check_positive(timeout, "timeout")
    if not MIN_TIMEOUT <= seconds <= MAX_TIMEOUT:
        raise ParameterError(
            "timeout",
            f"must lie in [{MIN_TIMEOUT:g}, {MAX_TIMEOUT:g}] seconds (or be None)",
            repr(seconds),
        )
    return seconds


__all__ = ["AuditOptions", "check_options"]
