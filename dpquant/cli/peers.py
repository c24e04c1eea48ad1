"""``peer:NAME[:KEY=VALUE]...``: another library's quantile (an adapter of
:mod:`dpquant.audit.suites.adapters`) at the user's parameters.

``peer:diffprivlib:epsilon=0.5:bounds=0,100:quantile=0.25`` builds
``PEERS["diffprivlib"](epsilon=0.5, bounds=(0.0, 100.0), quantile=0.25)``. The keys are exactly
the keyword parameters of the adapter's factory, read from its signature; each value is written
as the command line's own options are: a number (``0.5``, as ``--epsilon``), a pair ``LO,HI`` (as
``--domain``), a list ``V1,V2,...`` (as ``--input-values``), one of the names of a ``Literal``
choice, ``true``/``false``, an integer. Colons separate the options, commas the numbers of one
value, so a spec needs no quoting in a shell (``?``, ``&``, brackets and parentheses would). The
factory checks the ranges; whatever it refuses (``ValueError``) is a usage error naming the peer
and the parameter, as is an unknown key (with the keys it takes), a key given twice, an empty key
or value and a value of the wrong type.

The peer's claim is built at its parameters (``epsilon=0.5``: a claim of ε = 0.5), so the audited
claim and the peer's ε agree unless ``--epsilon`` overrides the claim explicitly; ``--epsilon``
(or ``--adjacency``) for a peer that takes ``epsilon`` (``adjacency``) but whose spec leaves it
out is refused, since it would set the claim and not the peer (:func:`check_claim_options`).
"""

from __future__ import annotations

import inspect
import math
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from dpquant.cli.messages import did_you_mean, exception_text, one_line
from dpquant.options import (
    UsageError,
    parse_domain,
    parse_float,
    parse_float_list,
    parse_int,
    show,
)

PREFIX = "peer:"
"""What starts a peer's target."""

KINDS = ("number", "integer", "flag", "pair", "list", "choice")
"""The kinds of value a peer's parameter takes on the command line."""

RANGES = {"epsilon": "> 0", "quantile": "in [0, 1]", "percentile": "in [0, 1]"}
"""The range of the peers' numbers, shown in the list of options (the factory checks it)."""

_PLACEHOLDERS = {
    "number": "NUMBER",
    "integer": "INTEGER",
    "flag": "true|false",
    "pair": "LO,HI",
    "list": "V1,V2,...",
}
_INT_RANGE = (-(2**63), 2**63 - 1)


@dataclass(frozen=True)
class PeerParameter:
    """One keyword parameter of a peer's factory, as the command line takes it.

    Attributes:
        name: The keyword.
        kind: One of :data:`KINDS`.
        default: The factory's default (``inspect.Parameter.empty`` when it has none).
        choices: The names a ``choice`` takes.
    """

    name: str
    kind: str
    default: Any = inspect.Parameter.empty
    choices: tuple[str, ...] = ()

    def describe(self) -> str:
        """``epsilon=NUMBER > 0 (default 1)``: the key, its value's form, range and default."""
        form = "|".join(self.choices) if self.kind == "choice" else _PLACEHOLDERS[self.kind]
        if self.kind == "pair":
            form += " with LO < HI"
        elif self.kind == "list":
            form += " all distinct"
        elif self.name in RANGES:
            form += f" {RANGES[self.name]}"
        if self.default is inspect.Parameter.empty:
            return f"{self.name}={form} (required)"
        return f"{self.name}={form} (default {_default_text(self.kind, self.default)})"


@dataclass(frozen=True)
class PeerSpec:
    """A parsed ``peer:NAME[:KEY=VALUE]...``.

    Attributes:
        name: The peer's name (a key of ``PEERS``).
        options: The parameters given, converted, in the order given (read-only).
    """

    name: str
    options: Mapping[str, Any]

    @property
    def label(self) -> str:
        """``peer:NAME``, the prefix of every message about this peer."""
        return f"{PREFIX}{self.name}"


def is_peer(spec: str) -> bool:
    """True when ``spec`` names a peer (starts with ``peer:``)."""
    return spec.startswith(PREFIX)


def peer_factories() -> dict[str, Callable[..., Any]]:
    """The adapters' factories by peer name (:data:`dpquant.audit.suites.adapters.PEERS`)."""
    from dpquant.audit.suites.adapters import PEERS

    return dict(PEERS)


def _default_text(kind: str, default: Any) -> str:
    """A factory's default as the command line would write it."""
    if kind == "flag":
        return "true" if default else "false"
    if kind == "number":
        return f"{default:g}"
    if kind == "pair":
        return ",".join(f"{float(v):g}" for v in default)
    if kind == "list":
        values = [float(v) for v in default]
        return f"{len(values)} numbers from {min(values):g} to {max(values):g}"
    return str(default)


def parameter_kind(annotation: Any) -> tuple[str, tuple[str, ...]]:
    """The kind of value (:data:`KINDS`) an annotation asks for, and the names of a choice.

    Args:
        annotation: A factory parameter's resolved annotation.

    Returns:
        ``(kind, choices)``; ``choices`` is empty unless ``kind`` is ``"choice"``.

    Raises:
        TypeError: for an annotation the command line cannot write (a fault of the adapter).
    """
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    simple = {bool: "flag", int: "integer", float: "number"}
    if annotation in simple:
        return simple[annotation], ()
    if origin is Literal and args and all(isinstance(a, str) for a in args):
        return "choice", tuple(args)
    if origin is tuple and args == (float, float):
        return "pair", ()
    if origin in (Sequence, list, tuple) and args in ((float,), (float, ...)):
        return "list", ()
    raise TypeError(f"the command line cannot give a value of type {annotation!r}")


def peer_parameters(name: str) -> dict[str, PeerParameter]:
    """The parameters the peer ``name`` takes, read from its factory's signature.

    Args:
        name: A key of ``PEERS``.

    Returns:
        Each keyword parameter by name, in the signature's order.

    Raises:
        TypeError: when a parameter is not a keyword or its type cannot be written on the
            command line (a fault of the adapter, which a test rules out).
    """
    factory = peer_factories()[name]
    hints = typing.get_type_hints(factory)
    out: dict[str, PeerParameter] = {}
    for p in inspect.signature(factory).parameters.values():
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            raise TypeError(f"peer {name!r}: parameter {p.name!r} is not a keyword parameter")
        kind, choices = parameter_kind(hints[p.name])
        out[p.name] = PeerParameter(p.name, kind, p.default, choices)
    return out


def peer_usage(name: str) -> str:
    """``quantile=NUMBER in [0, 1] (default 0.5), epsilon=...``: every option of a peer."""
    return ", ".join(p.describe() for p in peer_parameters(name).values())


def parse_value(param: PeerParameter, text: str) -> Any:
    """A parameter's value from its text, converted to the type the factory takes.

    Args:
        param: The parameter.
        text: The text after ``KEY=``.

    Returns:
        A float, an int, a bool, a pair or tuple of floats, or one of the choices.

    Raises:
        UsageError: naming the parameter, for text that is not of its kind (a string or
            ``true`` for a number, an infinite bound, a name that is not a choice).
    """
    key = param.name
    if param.kind == "number":
        return parse_float(text, key)  # nan and inf are left to the factory's range check
    if param.kind == "integer":
        return parse_int(text, key, *_INT_RANGE)
    if param.kind == "flag":
        word = text.strip().lower()
        if word not in ("true", "false"):
            raise UsageError(f"{key} must be true or false, got {show(text)}")
        return word == "true"
    if param.kind == "pair":
        lo, hi = parse_domain(text, key)
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise UsageError(f"{key} must be finite numbers 'lo,hi', got {show(text)}")
        return lo, hi
    if param.kind == "list":
        return parse_float_list(text, key)
    if text not in param.choices:
        raise UsageError(f"{key} must be one of {', '.join(param.choices)}, got {show(text)}")
    return text


def unknown_peer(name: str) -> UsageError:
    """The error for a peer name that is not a key of ``PEERS``, with the close names."""
    known = sorted(peer_factories())
    hint = did_you_mean(name, {n: f"{PREFIX}{n}" for n in known})
    return UsageError(
        f"unknown peer {name!r}; {hint + ' ' if hint else ''}(known: {', '.join(known)})"
    )


def _option(label: str, part: str, params: dict[str, PeerParameter]) -> tuple[str, str]:
    """``(key, text)`` of one ``KEY=VALUE`` of a spec, the key checked against ``params``."""
    if not part.strip():
        raise UsageError(
            f"{label}: an empty option (two colons in a row, or one at the end); write "
            f"{label}:KEY=VALUE:KEY=VALUE"
        )
    key, sep, text = part.partition("=")
    key = key.strip()
    if not sep:
        raise UsageError(f"{label}: option {show(part)} must be KEY=VALUE")
    if not key:
        raise UsageError(f"{label}: option {show(part)} has an empty key")
    if key not in params:
        hint = did_you_mean(key, {k: k for k in params})
        raise UsageError(
            f"{label} has no option {key!r}; {hint + ' It' if hint else 'it'} takes: "
            + ", ".join(p.describe() for p in params.values())
        )
    if not text.strip():
        raise UsageError(f"{label}: {key} has no value (write {key}=VALUE)")
    return key, text.strip()


def parse_peer(spec: str) -> PeerSpec:
    """``peer:NAME[:KEY=VALUE]...`` parsed and every value converted (nothing is built).

    Args:
        spec: The target as typed.

    Returns:
        The peer's name and its options.

    Raises:
        UsageError: for an unknown peer (with the close names), a malformed, unknown (with the
            keys it takes), repeated or empty option, or a value of the wrong kind.
    """
    name, *parts = spec[len(PREFIX) :].split(":")
    if name not in peer_factories():
        raise unknown_peer(name)
    label = f"{PREFIX}{name}"
    params = peer_parameters(name)
    options: dict[str, Any] = {}
    for part in parts:
        key, text = _option(label, part, params)
        if key in options:
            raise UsageError(f"{label}: {key} is given twice")
        try:
            options[key] = parse_value(params[key], text)
        except UsageError as exc:
            raise UsageError(f"{label}: {exc}") from None
    missing = [p.name for p in params.values() if p.default is inspect.Parameter.empty]
    missing = [k for k in missing if k not in options]
    if missing:
        raise UsageError(f"{label} needs {', '.join(f'{k}=VALUE' for k in missing)}")
    return PeerSpec(name, MappingProxyType(options))


def build_peer(peer: PeerSpec) -> Any:
    """The adapter of ``peer`` at its options (``PEERS[name](**options)``).

    Args:
        peer: A parsed spec.

    Returns:
        The :class:`~dpquant.audit.suites.adapters.PeerMechanism`.

    Raises:
        UsageError: the library is not installed (naming the extra), the factory refused a
            value (its ``ValueError``, which names the parameter, after ``peer:NAME:``), or the
            library failed to set up.
    """
    make = peer_factories()[peer.name]
    try:
        return make(**peer.options)
    except ImportError as exc:
        raise UsageError(str(exc)) from exc
    except ValueError as exc:
        raise UsageError(f"{peer.label}: {one_line(exc)}") from None
    except Exception as exc:  # noqa: BLE001 -- a third-party library failed to set up
        raise UsageError(f"peer {peer.name!r} is unavailable: {exception_text(exc)}") from None


def check_claim_options(peer: PeerSpec, **claimed: Any) -> None:
    """Refuse a claim option (``--epsilon``, ``--adjacency``) for a peer that takes the same
    parameter when its spec leaves that parameter out: the option sets only the audited claim,
    so the peer would run at its default and be audited against another claim. With the
    parameter in the spec the option is an explicit override of the claim, and accepted.

    Args:
        peer: A parsed spec.
        **claimed: The claim options by parameter name (``epsilon=0.5``); None: not given.

    Raises:
        UsageError: naming the option and the spec to write instead.
    """
    params = peer_parameters(peer.name)
    for key, value in claimed.items():
        if value is None or key not in params or key in peer.options:
            continue
        default = _default_text(params[key].kind, params[key].default)
        raise UsageError(
            f"--{key} sets the audited claim, not the peer's {key}: {peer.label} would run at "
            f"its default {key}={default}; write {peer.label}:{key}={value} to run it there "
            f"(its claim follows), or {peer.label}:{key}={default} --{key} {value} to audit "
            "it against that claim"
        )


def peer_lines() -> list[tuple[str, str]]:
    """``(peer:NAME, description)`` of every peer: its distribution, whether it is installed
    and the options it takes (for ``dpquant mechanisms``)."""
    from dpquant.audit.suites.adapters import installed_version

    out = []
    for name in sorted(peer_factories()):
        version = installed_version(name)
        status = f"{name} {version}" if version else f"{name} (not installed: the extra peers)"
        out.append((f"{PREFIX}{name}", f"{status}; options: {peer_usage(name)}"))
    return out


__all__ = [
    "KINDS",
    "PREFIX",
    "RANGES",
    "PeerParameter",
    "PeerSpec",
    "build_peer",
    "check_claim_options",
    "is_peer",
    "parameter_kind",
    "parse_peer",
    "parse_value",
    "peer_factories",
    "peer_lines",
    "peer_parameters",
    "peer_usage",
    "unknown_peer",
]
