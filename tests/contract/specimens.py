"""Every specimen of the contract and fuzz suites, and the registry's and the catalogue's
configured mechanisms with a data set each."""

from __future__ import annotations

from typing import Any

import specimens_aamand25
import specimens_audit
import specimens_catalogue
import specimens_classic
import specimens_cli
import specimens_distributions
import specimens_foundation
import specimens_fukuchi19
import specimens_imola25
import specimens_measures
import specimens_primitives
import specimens_relations
import specimens_tzamos20
from harness import Entry, Specimen

AREAS = (
    specimens_foundation,
    specimens_primitives,
    specimens_distributions,
    specimens_measures,
    specimens_aamand25,
    specimens_imola25,
    specimens_fukuchi19,
    specimens_tzamos20,
    specimens_catalogue,
    specimens_classic,
    specimens_audit,
    specimens_relations,
    specimens_cli,
)

ALL_SPECIMENS: list[Specimen] = [s for area in AREAS for s in area.SPECIMENS]
ALL_ENTRIES: list[Entry] = [e for area in AREAS for e in area.ENTRIES]


def _registered() -> list[tuple[str, Any, Any, int]]:
    """(name, build, data, draws) for the registry (its first grid value, or its first pair) and
    the catalogue (each entry's witness)."""
    from dpquant.audit.suites.catalogue import CATALOGUE, CONTROLS
    from dpquant.reference.registry import REGISTRY

    out = []
    for e in REGISTRY:
        data = e.pairs()[0][0] if e.pairs is not None else [e.grid[len(e.grid) // 2]]
        out.append((f"registry:{e.name}", e.build, data, 4000))
    for c in CATALOGUE + CONTROLS:
        # em_underflow raises on witness[0] by design (the exception is its leak): use witness[1]
        which = 1 if c.name == "em_underflow" else 0
        data = list(c.witness[which]) if c.witness is not None else [0.5]
        out.append((f"catalogue:{c.name}", lambda c=c: c.mechanism, data, 4000))
    return out


REGISTERED = _registered()
