"""What the command line audits: targets named ``MODULE:ATTR``, ``path/to/file.py:ATTR``,
``peer:NAME[:KEY=VALUE]...`` (:mod:`dpquant.cli.peers`) or a name of ``dpquant mechanisms``,
turned into mechanisms.

A target is a configured mechanism (an object with ``sample()`` and ``claim``; ``--epsilon``,
``--delta`` and ``--adjacency``, or a claim of another kind (``--rho``, ``--renyi``, ``--gdp``,
``--profile``: :mod:`dpquant.cli.claim_options`), override its claim through :class:`dpquant.audit.model.claimed.ClaimOverride`) or a plain
function ``fn(data, rng) -> output`` (wrapped with :func:`dpquant.audit.from_callable` under the claim
given by the options). Importing a target runs user code: whatever it raises, ``sys.exit`` and
Ctrl-C included, is a :class:`UsageError` naming the target (a target that cannot be imported is
never audited). A name that is neither (``em_no_hal``) is refused with the close names of
``dpquant mechanisms`` and of the peers ("did you mean 'em_no_half'?"); a ``MODULE:ATTR`` that
fails keeps its own message, with a hint only when it is close to a peer's (``peers:opendp``).
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import os
import re
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from dpquant.audit.model.claimed import ClaimOverride
from dpquant.cli.mechanisms import audited_targets
from dpquant.cli.messages import did_you_mean, exception_text
from dpquant.cli.peers import (
    PREFIX,
    build_peer,
    check_claim_options,
    is_peer,
    parse_peer,
    peer_factories,
)
from dpquant.options import UsageError, option_message, show
from dpquant.reference.core import PrivacyClaim, check_claim
from dpquant.reference.measures import AnyClaim
from dpquant.reference.registry import REGISTRY

Pairs = list[tuple[Any, Any]]
"""Explicit neighbouring pairs of a registry entry (``None``: the auditor searches)."""


def attribute(obj: Any, attr: str, label: str) -> Any:
    """``getattr(obj, attr, None)``; an attribute that raises is a usage error naming it."""
    try:
        return getattr(obj, attr, None)
    except Exception as exc:  # noqa: BLE001 -- the target's own code
        raise UsageError(f"{label}.{attr} raised {exception_text(exc)}") from None


def is_mechanism(obj: Any) -> bool:
    """True for an object with a ``sample`` method and a ``claim`` (a configured mechanism)."""
    if isinstance(obj, type):
        return False
    try:
        return callable(getattr(obj, "sample", None)) and getattr(obj, "claim", None) is not None
    except Exception:  # noqa: BLE001 -- a property of the target raised: not a usable mechanism
        return False


def _looks_like_file(module: str) -> bool:
    return module.endswith(".py") or "/" in module or (os.sep != "/" and os.sep in module)


def _guarded_import(what: str, run: Callable[[], Any]) -> Any:
    """``run()`` (an import of user code): whatever it raises, ``sys.exit`` and Ctrl-C included,
    becomes a usage error naming ``what`` (a target that cannot be imported is never audited)."""
    try:
        return run()
    except SystemExit as exc:
        raise UsageError(
            f"{what} failed: it called sys.exit({exc.code!r}) while being imported"
        ) from None
    except KeyboardInterrupt:
        raise UsageError(
            f"{what} failed: interrupted (KeyboardInterrupt) while being imported"
        ) from None
    except Exception as exc:  # noqa: BLE001 -- the target's own code
        raise UsageError(f"{what} failed: {exception_text(exc)}") from None


def _load_file(path: Path) -> Any:
    try:
        is_file = path.is_file()
    except (OSError, ValueError):
        is_file = False
    if not is_file:
        raise UsageError(f"no such file: {path}")
    slug = re.sub(r"\W", "_", path.stem)
    name = f"dpquant_target_{slug}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot load {path} as a Python module")
    loader = spec.loader
    module = importlib.util.module_from_spec(spec)
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # as `python file.py` would: its sibling modules import
    sys.modules[name] = module  # dataclasses and pickle look the module up by name
    try:
        _guarded_import(f"loading {path}", lambda: loader.exec_module(module))
    except UsageError:
        sys.modules.pop(name, None)
        raise
    return module


def load_target(spec: str) -> Any:
    """The object named by ``MODULE:ATTR`` or ``path/to/file.py:ATTR`` (ATTR may be dotted)."""
    module_name, sep, attr = str(spec).rpartition(":")
    if not sep or not module_name or not attr or "\0" in str(spec):
        raise UsageError(f"target must be MODULE:ATTR or path/to/file.py:ATTR, got {show(spec)}")
    if _looks_like_file(module_name):
        obj = _load_file(Path(module_name))
    else:
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.insert(0, os.getcwd())  # `dpquant audit mymodule:fn` from the project folder
        obj = _guarded_import(
            f"cannot import module {module_name!r}", lambda: importlib.import_module(module_name)
        )
    where = module_name
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise UsageError(f"{where!r} has no attribute {part!r}") from None
        except Exception as exc:  # noqa: BLE001 -- the target's own code
            raise UsageError(f"{where!r}.{part} raised {exception_text(exc)}") from None
        where = f"{where}.{part}" if where != module_name else f"{module_name}:{part}"
    return obj


def build_mechanism(
    obj: Any,
    label: str,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    adjacency: str | None = None,
    claim: AnyClaim | None = None,
    domain: tuple[float, float] | None = None,
    vectorized: bool = False,
    input_values: tuple[float, ...] | None = None,
) -> tuple[Any, str]:
    """The mechanism to audit and its name: ``obj`` itself (its claim overridden by the options
    given), or a plain function wrapped with :func:`dpquant.audit.from_callable` (``vectorized``,
    ``input_values``: how it is called and its finite input set). ``epsilon``, ``delta``,
    ``adjacency``, ``domain`` and ``input_values`` are checked values or None (not given);
    ``claim`` is a claim of another kind than (ε, δ) (:func:`dpquant.cli.claim_options.claim_from_options`),
    which replaces the target's (under the mechanism's relation unless ``adjacency`` is given)."""
    from dpquant.audit import from_callable

    if isinstance(obj, type):
        raise UsageError(
            f"{label} is a class; point to a configured mechanism instance or to a function "
            "fn(data, rng) -> output"
        )
    sample = attribute(obj, "sample", label)
    measure, claim = claim, attribute(obj, "claim", label) if callable(sample) else None
    if claim is not None and (vectorized or input_values is not None):
        raise UsageError(
            f"--vectorized and --input-values describe a plain function; {label} is a mechanism "
            "(its sample() and input_values say how it is called)"
        )
    if claim is not None:
        try:
            claim = check_claim(claim, f"{label}.claim")
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        name = attribute(obj, "name", label)
        name = name if isinstance(name, str) and name else label
        if claim.adjacency == "local" and adjacency not in (None, "local"):
            raise UsageError(
                f"--adjacency {adjacency} does not apply to {label}: a local randomizer "
                "takes one user's value, so its claim is for local adjacency"
            )
        if measure is not None:
            relation = claim.adjacency if adjacency is None else adjacency
            # the auditor takes a PrivacyClaim only, for now (issue 37 generalises it): it
            # refuses this override when the audit starts, naming the claim
            override = replace(measure, adjacency=relation)
            return ClaimOverride(obj, override), name
        if epsilon is None and delta is None and adjacency is None:
            return obj, name
        claim = PrivacyClaim(
            claim.epsilon if epsilon is None else epsilon,
            claim.delta if delta is None else delta,
            claim.adjacency if adjacency is None else adjacency,
        )
        return ClaimOverride(obj, claim), name
    if callable(obj):
        if epsilon is None and measure is None:
            raise UsageError(
                f"{label} is a plain function, which carries no privacy claim: pass --epsilon "
                "(and --delta, --adjacency as needed) or a claim of another kind (--rho, "
                "--renyi, --gdp, --profile)"
            )
        if measure is not None:
            claim = measure  # the auditor refuses it for now, as above
        else:
            assert epsilon is not None
            claim = PrivacyClaim(
                epsilon,
                0.0 if delta is None else delta,
                "replace_one" if adjacency is None else adjacency,
            )
        domain = domain if domain is not None else (-math.inf, math.inf)
        try:
            wrapped = from_callable(
                obj,
                claim,
                domain,
                name=label,
                vectorized=vectorized,
                input_values=input_values,
            )
        except ValueError as exc:  # input_values outside the domain
            raise UsageError(option_message(exc, {"input_values": "--input-values"})) from None
        return wrapped, label
    raise UsageError(
        f"{label} is neither a mechanism (with sample() and claim) nor a function "
        f"fn(data, rng) -> output: got {type(obj).__name__}"
    )


def named_mechanism(name: str) -> tuple[Any, Pairs | None] | None:
    """The mechanism ``dpquant mechanisms`` lists under ``name`` (a reference of the registry,
    a control or a known-bad entry of the catalogue) and its explicit pairs, or None.

    Args:
        name: The name as typed.

    Returns:
        ``(mechanism, pairs)`` (pairs: a registry entry's explicit neighbours, else None), or
        None when no entry has that name.
    """
    from dpquant.audit.suites.catalogue import CATALOGUE, CONTROLS

    for entry in REGISTRY:
        if entry.name == name:
            return entry.build(), entry.pairs() if entry.pairs else None
    for known in (*CONTROLS, *CATALOGUE):
        if known.name == name:
            return known.mechanism, None
    return None


def _close_targets(with_peers: bool) -> dict[str, str]:
    """What a mistyped name is matched against: the names of ``dpquant mechanisms`` and, where
    a peer is a target, ``peer:NAME`` (matched with or without its prefix)."""
    names = {name: name for name, _, _ in audited_targets()}
    if with_peers:
        for peer in peer_factories():
            names[peer] = names[f"{PREFIX}{peer}"] = f"{PREFIX}{peer}"
    return names


def load_named(spec: str, *, with_peers: bool) -> Any:
    """:func:`load_target`, except that a name without a colon (which cannot be MODULE:ATTR)
    close to a name of ``dpquant mechanisms`` (or to a peer's, ``with_peers``) is refused as
    ``unknown mechanism 'x'; did you mean 'y'?``, and a failing MODULE:ATTR close to a peer's
    target (``peers:opendp``) gets the hint after its own message.

    Args:
        spec: The target as typed.
        with_peers: Whether ``peer:NAME`` is a target here.

    Returns:
        The object :func:`load_target` returns.

    Raises:
        UsageError: as :func:`load_target`, with the hint when a name is close.
    """
    if ":" not in spec:
        hint = did_you_mean(spec, _close_targets(with_peers))
        if hint:
            raise UsageError(f"unknown mechanism {spec!r}; {hint}")
        return load_target(spec)
    try:
        return load_target(spec)
    except UsageError as exc:
        peers = {f"{PREFIX}{p}": f"{PREFIX}{p}" for p in peer_factories()} if with_peers else {}
        hint = did_you_mean(spec.split("=", 1)[0], peers)
        if hint:
            raise UsageError(f"{exc}; {hint}") from None
        raise


def resolve_reference(spec: str) -> tuple[Any, str]:
    """A mechanism by its name in ``dpquant mechanisms`` (a mistyped one is refused with the
    close names) or a mechanism named by MODULE:ATTR."""
    named = named_mechanism(spec)
    if named is not None:
        return named[0], spec
    if is_peer(spec):
        raise UsageError(
            f"the reference must be a name of `dpquant mechanisms` or MODULE:ATTR; {spec} is "
            "another library's implementation: pass it as the candidate"
        )
    obj = load_named(spec, with_peers=False)
    claim = attribute(obj, "claim", spec) if is_mechanism(obj) else None
    if not isinstance(claim, PrivacyClaim):
        raise UsageError(
            f"reference must be a registry name (see `dpquant mechanisms`) or a mechanism with "
            f"sample() and claim, got {show(spec)}"
        )
    try:
        check_claim(claim, f"{spec}.claim")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    name = attribute(obj, "name", spec)
    return obj, name if isinstance(name, str) and name else spec


def resolve_candidate(spec: str) -> tuple[Any, str]:
    """``peer:NAME[:KEY=VALUE]...`` (an adapter of :mod:`dpquant.audit.suites.adapters` at those
    parameters, named by its own name), a name of ``dpquant mechanisms``, or MODULE:ATTR /
    path/to/file.py:ATTR naming a mechanism or a function fn(data, rng) -> output."""
    if is_peer(spec):
        mech = build_peer(parse_peer(spec))
        return mech, mech.name
    named = named_mechanism(spec)
    if named is not None:
        return named[0], spec
    obj = load_named(spec, with_peers=True)
    if isinstance(obj, type):
        raise UsageError(f"{spec} is a class; point to a mechanism instance or a function")
    return obj, spec


def resolve_audited(
    spec: str, *, epsilon: float | None = None, adjacency: str | None = None
) -> tuple[Any, str | None, Pairs | None]:
    """What ``dpquant audit TARGET`` audits, before :func:`build_mechanism` applies the claim
    options.

    Args:
        spec: ``peer:NAME[:KEY=VALUE]...``, a name of ``dpquant mechanisms``, MODULE:ATTR or
            path/to/file.py:ATTR.
        epsilon: ``--epsilon`` (checked) or None.
        adjacency: ``--adjacency`` or None.

    Returns:
        ``(object, name, pairs)``: name is the entry's for a name of ``dpquant mechanisms`` (else
        None: the object's own, or the spec), pairs its explicit neighbours (or None).

    Raises:
        UsageError: as :func:`resolve_candidate`; also ``--epsilon``/``--adjacency`` for a peer
            whose spec leaves that parameter out (:func:`dpquant.cli.peers.check_claim_options`).
    """
    if is_peer(spec):
        peer = parse_peer(spec)
        check_claim_options(peer, epsilon=epsilon, adjacency=adjacency)
        return build_peer(peer), None, None
    named = named_mechanism(spec)
    if named is not None:
        return named[0], spec, named[1]
    return load_named(spec, with_peers=True), None, None


__all__ = [
    "ClaimOverride",
    "attribute",
    "build_mechanism",
    "is_mechanism",
    "load_named",
    "load_target",
    "named_mechanism",
    "resolve_audited",
    "resolve_candidate",
    "resolve_reference",
]
