"""Contract specimens and fuzz entries of the imola25 area (see :mod:`harness`)."""

from __future__ import annotations

from harness import Entry, Specimen

SPECIMENS: list[Specimen] = []

ENTRIES: list[Entry] = []
