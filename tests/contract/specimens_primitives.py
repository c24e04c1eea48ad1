"""Contract specimens and fuzz entries of the primitives (``reference.primitives``)."""

from __future__ import annotations

from harness import Entry, Specimen

from reference.primitives.exponential_mechanism import ExponentialQuantile
from reference.primitives.randomized_response import RandomizedResponse

SPECIMENS: list[Specimen] = [
    Specimen(
        "ExponentialQuantile",
        ExponentialQuantile,
        {"quantile": 0.5, "epsilon": 1.0, "bounds": (0.0, 1.0), "adjacency": "replace_one"},
        {"quantile": "real", "epsilon": "real", "bounds": "pair", "adjacency": "choice"},
        [0.1, 0.4, 0.4, 0.9],
        extra={"adjacency": ("local", "add_remove")},
    ),
    Specimen(
        "RandomizedResponse",
        RandomizedResponse,
        {"epsilon": 1.0},
        {"epsilon": "real"},
        1,
    ),
]

ENTRIES: list[Entry] = []
