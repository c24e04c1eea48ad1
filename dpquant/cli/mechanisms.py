"""``dpquant mechanisms``: list what ``dpquant audit --all`` audits (the reference registry, the
controls and the known-bad catalogue), one line each: name, kind, description; then the peers
(``peer:NAME``, other libraries' quantiles, not part of ``--all``), each with the options its
target takes (``peer:NAME:KEY=VALUE:...``, :mod:`dpquant.cli.peers`). Every name listed is a
target of ``dpquant audit`` and ``dpquant validate``."""

from __future__ import annotations

import argparse
from typing import Any

from dpquant.cli.messages import EXIT_OK
from dpquant.cli.paths import print_out
from dpquant.reference.registry import REGISTRY


def audited_targets() -> list[tuple[str, str, str]]:
    """(name, kind, description) of everything ``dpquant audit --all`` audits, in its order;
    kind is ``reference``, ``control`` or ``known-bad``."""
    from dpquant.audit.suites.catalogue import CATALOGUE, CONTROLS

    out = [(e.name, "reference", e.description) for e in REGISTRY]
    out += [(e.name, "control", e.description) for e in CONTROLS]
    out += [(e.name, "known-bad", e.description) for e in CATALOGUE]
    return out


def run(args: argparse.Namespace) -> int:
    """One line per target, then one per peer; a reader that quits early ends the listing
    quietly."""
    from dpquant.cli.peers import peer_lines

    rows = [(name, kind, description) for name, kind, description in audited_targets()]
    rows += [(name, "peer", description) for name, description in peer_lines()]
    for name, kind, description in rows:
        if not print_out(f"{name:<48} {kind:<10} {description}"):
            break
    return EXIT_OK


def add_parser(commands: Any) -> None:
    """The ``mechanisms`` sub-parser."""
    p = commands.add_parser(
        "mechanisms",
        help="list what `dpquant audit --all` audits (registry and catalogue) and the peers "
        "(peer:NAME) with their options",
        description="List the names `dpquant audit` and `dpquant validate` take: the reference "
        "registry, the controls and the known-bad catalogue (what `dpquant audit --all` "
        "audits), then the other libraries' quantiles, peer:NAME, each with the options its "
        "target takes as peer:NAME:KEY=VALUE:KEY=VALUE (e.g. "
        "peer:diffprivlib:epsilon=0.5:bounds=0,100:quantile=0.25).",
    )
    p.set_defaults(func=run)


__all__ = ["add_parser", "audited_targets", "run"]
