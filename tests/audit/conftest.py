"""Shared set-up of the auditor's tests: a mechanism audited against another claim than its own."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest


@dataclass(frozen=True)
class Reclaimed:
    """Any mechanism, audited against the claim object it carries (a different claim than its
    own, possibly a corrupted one)."""

    inner: Any
    claim: Any

    @property
    def domain(self) -> tuple[float, float]:
        return self.inner.domain

    @property
    def input_values(self) -> Any:
        return getattr(self.inner, "input_values", None)

    def sample(self, data: Any, size: int, rng: np.random.Generator) -> Any:
        return self.inner.sample(data, size, rng)

    def exact(self, data: Any) -> Any:
        return self.inner.exact(data)


@pytest.fixture
def reclaimed() -> type[Reclaimed]:
    """``reclaimed(inner, claim)``: ``inner`` audited against ``claim``."""
    return Reclaimed
