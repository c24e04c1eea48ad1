"""The claim options of ``dpquant audit``: a claim in any measure (issue 37, notes/measures.md).

* ``--epsilon E`` and ``--delta D``: (ε, δ)-DP, each overriding that part of a mechanism's own
  claim (as before);
* ``--rho RHO`` (with ``--xi XI``): (ξ, ρ)-zCDP (Bun and Steinke, "Concentrated Differential
  Privacy", TCC 2016, Definition 1.1);
* ``--renyi ORDER:EPS``, repeatable: (α, ε_α)-Rényi DP at each order, ``inf`` allowed (Mironov,
  "Rényi Differential Privacy", CSF 2017, Definition 4);
* ``--gdp MU``: μ-GDP (Dong, Roth and Su, "Gaussian Differential Privacy", JRSS B 2022);
* ``--profile FILE``: a privacy profile as a table, a CSV file of two columns ``epsilon,delta``
  (a header line allowed) or a JSON list of ``[epsilon, delta]`` pairs, read up to
  :data:`MAX_PROFILE_BYTES` like the other files the command line reads (a regular file, opened
  without blocking).

The kinds exclude each other: two of them is a usage error naming both options. ``--adjacency``
goes with any of them. :func:`claim_from_options` turns the parsed options into the claim.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dpquant.errors import ParameterError
from dpquant.options import UsageError, parse_delta, parse_epsilon, parse_float, show
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.measures import AnyClaim, GDPClaim, ProfileClaim, RenyiClaim, ZCDPClaim
from dpquant.reference.measures.claims import MAX_PROFILE_POINTS, MAX_RENYI_ORDERS

MAX_PROFILE_BYTES = 2**20
"""The largest ``--profile`` file read (1 MiB: the most points a profile holds,
:data:`dpquant.reference.measures.claims.MAX_PROFILE_POINTS`, take about 0.3 MiB as CSV)."""

CLAIM_OPTIONS = ("epsilon", "delta", "rho", "xi", "renyi", "gdp", "profile")
"""The attributes of the parsed options that state a claim's values (``adjacency`` aside)."""

_RENAMED = {"rho": "--rho", "xi": "--xi", "mu": "--gdp", "orders": "--renyi", "points": "--profile"}


def parse_renyi(text: Any, option: str = "--renyi") -> tuple[float, float]:
    """``ORDER:EPS`` as an (order, ε) pair: the order a number > 1 or ``inf``, ε a finite
    number >= 0.

    Args:
        text: The option's text.
        option: The option named in errors.

    Returns:
        ``(order, epsilon)``.

    Raises:
        UsageError: Not two numbers ``ORDER:EPS``, or either out of range.
    """
    parts = str(text).split(":")
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise UsageError(f"{option} must be ORDER:EPS (e.g. 2:0.5 or inf:1), got {show(text)}")
    order, epsilon = parse_float(parts[0], option), parse_float(parts[1], option)
    if math.isnan(order) or not order > 1:
        raise UsageError(f"{option} ORDER must be a number > 1 or inf, got {show(text)}")
    if not math.isfinite(epsilon) or epsilon < 0:
        raise UsageError(f"{option} EPS must be a finite number >= 0, got {show(text)}")
    return order, epsilon


def _read_capped(path: Path, option: str) -> bytes:
    """The bytes of the regular file ``path`` (at most :data:`MAX_PROFILE_BYTES`), opened without
    blocking (a FIFO is refused, never waited on)."""
    shown = show(str(path))
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise UsageError(f"{option}: no such file: {shown}") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{option}: cannot open {shown} ({getattr(exc, 'strerror', None) or exc})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a folder, a FIFO, a device
        os.close(fd)
        raise UsageError(f"{option} must name a regular file, got {shown}")
    with os.fdopen(fd, "rb") as fh:
        try:
            data = fh.read(MAX_PROFILE_BYTES + 1)
        except OSError as exc:
            raise UsageError(f"{option}: cannot read {shown} ({exc.strerror or exc})") from None
    if len(data) > MAX_PROFILE_BYTES:
        raise UsageError(f"{option} file must be at most {MAX_PROFILE_BYTES} bytes: {shown} is larger")
    return data


def _csv_points(text: str, option: str, shown: str) -> list[tuple[float, float]]:
    """The rows ``epsilon,delta`` of a CSV text; the first line may be a header (not numbers)."""
    lines = [(k + 1, line.strip()) for k, line in enumerate(text.splitlines())]
    lines = [(k, line) for k, line in lines if line]
    points = []
    for index, (k, line) in enumerate(lines):
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != 2:
            raise UsageError(f"{option} {shown} line {k}: must be two columns epsilon,delta, got {show(line)}")
        try:
            points.append((parse_float(cells[0], "epsilon"), parse_float(cells[1], "delta")))
        except UsageError:
            if index == 0:  # a header line
                continue
            raise UsageError(f"{option} {shown} line {k}: must be two numbers epsilon,delta, got {show(line)}") from None
        if len(points) > MAX_PROFILE_POINTS:
            raise UsageError(f"{option} {shown} must hold at most {MAX_PROFILE_POINTS} points")
    return points


def _json_points(text: str, option: str, shown: str) -> list[tuple[float, float]]:
    """The pairs of a JSON list ``[[epsilon, delta], ...]``."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"{option} {shown} is not JSON: {str(exc)[:120]}") from None
    if not isinstance(data, list):
        raise UsageError(f"{option} {shown} must hold a JSON list of [epsilon, delta] pairs")
    if len(data) > MAX_PROFILE_POINTS:
        raise UsageError(f"{option} {shown} must hold at most {MAX_PROFILE_POINTS} points")
    points = []
    for k, pair in enumerate(data):
        if (
            not isinstance(pair, list)
            or len(pair) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in pair)
        ):
            raise UsageError(f"{option} {shown} item {k}: must be a pair [epsilon, delta] of numbers, got {show(pair)}")
        points.append((pair[0], pair[1]))
    return points


def read_profile(text: Any, option: str = "--profile") -> ProfileClaim:
    """The privacy profile of a file: CSV ``epsilon,delta`` rows (a header line allowed) or a
    JSON list of ``[epsilon, delta]`` pairs (a file whose first character is ``[``).

    Args:
        text: The file's path, as typed.
        option: The option named in errors.

    Returns:
        The table as a :class:`~dpquant.reference.measures.ProfileClaim` (its ``source`` the
        path; the relation is the default, set by :func:`claim_from_options`).

    Raises:
        UsageError: The file cannot be read, is larger than :data:`MAX_PROFILE_BYTES`, is not
            UTF-8 CSV or JSON of that form, or a point is out of range (ε finite >= 0 and
            distinct, δ in [0, 1]; at most :data:`~dpquant.reference.measures.claims.MAX_PROFILE_POINTS`).
    """
    name = str(text)
    if not name or "\0" in name:
        raise UsageError(f"{option} needs a file path, got {show(name)}")
    path = Path(name)
    shown = show(name)
    raw = _read_capped(path, option)
    try:
        content = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"{option} {shown} is not UTF-8 text") from None
    if content.lstrip().startswith("["):
        points = _json_points(content, option, shown)
    else:
        points = _csv_points(content, option, shown)
    if not points:
        raise UsageError(f"{option} {shown} holds no point epsilon,delta")
    try:
        return ProfileClaim(tuple(points), source=name[-200:])
    except ParameterError as exc:
        raise UsageError(f"{option} {shown}: {_point_message(exc)}") from None


def _point_message(exc: ParameterError) -> str:
    """A refusal of :class:`ProfileClaim` in the words of a file: ``points[2][1]`` is the delta
    of point 3."""
    got = "" if exc.got is None else f", got {exc.got}"
    parameter = exc.parameter
    if parameter.startswith("points[") and parameter.endswith(("[0]", "[1]")):
        k = int(parameter[len("points[") : parameter.index("]")])
        column = "epsilon" if parameter.endswith("[0]") else "delta"
        return f"point {k + 1}: {column} {exc.allowed}{got}"
    return f"the points {exc.allowed}{got}"


def _given(args: argparse.Namespace) -> list[str]:
    """The claim kinds given, each named by the first of its options typed."""
    def typed(name: str) -> bool:
        return getattr(args, name, None) not in (None, [])

    kinds = []
    if typed("epsilon") or typed("delta"):
        kinds.append("--epsilon" if typed("epsilon") else "--delta")
    if typed("rho") or typed("xi"):
        kinds.append("--rho" if typed("rho") else "--xi")
    kinds += [f"--{name}" for name in ("renyi", "gdp", "profile") if typed(name)]
    return kinds


def claim_from_options(args: argparse.Namespace, base: AnyClaim | None = None) -> AnyClaim | None:
    """The claim the options state: the one function from the parsed options to a claim.

    Exactly one kind of claim may be given: ``--epsilon``/``--delta``, ``--rho`` (with
    ``--xi``), ``--renyi`` (repeatable), ``--gdp`` or ``--profile``; ``--adjacency`` goes with
    any (and, alone, changes only the relation of ``base``).

    Args:
        args: The parsed options: attributes ``epsilon``, ``delta``, ``rho``, ``xi``, ``gdp``,
            ``profile`` (text, or numbers already checked), ``renyi`` (a list of ``ORDER:EPS``
            texts) and ``adjacency``; a missing attribute counts as not given.
        base: The target's own claim (a mechanism's), or None (a plain function, which has
            none). ``--epsilon``/``--delta`` override its parts; the other kinds replace it;
            the relation is ``--adjacency``, else ``base``'s, else ``replace_one``.

    Returns:
        The claim, or None when the options state none (no claim option; or ``--delta`` alone
        without a ``base`` to take ε from: a plain function needs ``--epsilon``, which the
        caller says naming the target).

    Raises:
        UsageError: Two kinds of claim (naming both options), ``--xi`` without ``--rho``, or a
            value out of range (naming its option).
    """
    kinds = _given(args)
    if len(kinds) > 1:
        raise UsageError(
            f"{kinds[0]} and {kinds[1]}: give one kind of claim (--epsilon/--delta, --rho, "
            "--renyi, --gdp or --profile)"
        )
    adjacency = getattr(args, "adjacency", None)
    relation = adjacency or (base.adjacency if base is not None else "replace_one")
    kind = kinds[0] if kinds else None
    try:
        if kind is None:
            if adjacency is None or base is None:
                return None
            return dataclasses.replace(base, adjacency=adjacency)
        if kind in ("--epsilon", "--delta"):
            return _privacy_claim(args, base, relation)
        if kind == "--xi":
            raise UsageError("--xi needs --rho: it is the ξ of (ξ, ρ)-zCDP")
        if kind == "--rho":
            rho = parse_float(args.rho, "--rho")
            xi = 0.0 if getattr(args, "xi", None) is None else parse_float(args.xi, "--xi")
            return ZCDPClaim(rho, xi, relation)
        if kind == "--renyi":
            texts: Sequence[Any] = args.renyi
            if len(texts) > MAX_RENYI_ORDERS:
                raise UsageError(f"--renyi may be given at most {MAX_RENYI_ORDERS} times")
            return RenyiClaim(tuple(parse_renyi(t) for t in texts), relation)
        if kind == "--gdp":
            return GDPClaim(parse_float(args.gdp, "--gdp"), relation)
        profile = args.profile
        table = profile if isinstance(profile, ProfileClaim) else read_profile(profile)
        return ProfileClaim(table.points, relation, table.source)
    except ParameterError as exc:
        raise UsageError(str(exc.renamed(_RENAMED))) from None


def _privacy_claim(
    args: argparse.Namespace, base: AnyClaim | None, relation: Any
) -> PrivacyClaim | None:
    """``--epsilon``/``--delta`` over ``base``'s parts (a plain function: δ = 0 by default)."""
    epsilon = getattr(args, "epsilon", None)
    delta = getattr(args, "delta", None)
    epsilon = None if epsilon is None else parse_epsilon(epsilon)
    delta = None if delta is None else parse_delta(delta)
    own = base if isinstance(base, PrivacyClaim) else None
    if epsilon is None:
        if own is None:
            return None
        epsilon = own.epsilon
    if delta is None:
        delta = own.delta if own is not None else 0.0
    return PrivacyClaim(epsilon, delta, relation)


def add_claim_options(group: Any) -> None:
    """The options ``--rho``, ``--xi``, ``--renyi``, ``--gdp`` and ``--profile`` on an argument
    group (``--epsilon``, ``--delta`` and ``--adjacency`` are the command's own).

    Args:
        group: An ``argparse`` parser or argument group.
    """
    group.add_argument("--rho", default=None, help="claimed ρ-zCDP (a finite number > 0)")
    group.add_argument("--xi", default=None, help="with --rho: ξ of (ξ, ρ)-zCDP (default 0)")
    group.add_argument(
        "--renyi",
        action="append",
        default=None,
        metavar="ORDER:EPS",
        help="claimed Rényi DP ε at an order > 1 or inf; repeatable",
    )
    group.add_argument("--gdp", default=None, metavar="MU", help="claimed μ-GDP (a finite number > 0)")
    group.add_argument(
        "--profile",
        default=None,
        metavar="FILE",
        help="claimed privacy profile: CSV epsilon,delta or JSON [[epsilon, delta], ...]",
    )


__all__ = [
    "CLAIM_OPTIONS",
    "MAX_PROFILE_BYTES",
    "add_claim_options",
    "claim_from_options",
    "parse_renyi",
    "read_profile",
]
