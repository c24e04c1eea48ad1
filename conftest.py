"""Shared test set-up: hypothesis profiles and seeded generators."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=60,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=200)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def rng() -> np.random.Generator:
    """A fixed-seed generator: every statistical test is reproducible."""
    return np.random.default_rng(20261121)


# The longest tests (each from 10 s to over 3 min) run first, so that pytest-xdist's two
# workers share them and the run does not end with one worker alone on a long test.
_HEAVY_FIRST = (
    "test_peers_audit.py",
    "test_audit_acceptance.py",
    "test_tzamos20_audit.py",
    "test_fukuchi19_rates.py",
    "test_tzamos20_typicality.py",
)


def pytest_collection_modifyitems(session, config, items) -> None:  # noqa: ARG001 -- pytest hook
    items.sort(key=lambda item: item.nodeid.split("::")[0].rsplit("/", 1)[-1] not in _HEAVY_FIRST)
