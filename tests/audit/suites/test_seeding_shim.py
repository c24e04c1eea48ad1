"""The test-only seeding shim (dpquant/audit/suites/adapters/seedrand.c, seeding.py): what it seeds and what it
leaves alone. The seeded libraries themselves are checked in test_peers_audit.py."""

from __future__ import annotations

import json

import pytest

from dpquant.audit.suites.adapters import PeerUnavailable
from dpquant.audit.suites.adapters.seeding import ADDR_NO_RANDOMIZE, run_seeded, seeded_env

PROBE = """
import json, os
with open("/proc/self/personality") as f:
    persona = int(f.read().strip(), 16)
print(json.dumps({"urandom": os.urandom(16).hex(), "persona": persona,
                  "hashseed": os.environ.get("PYTHONHASHSEED")}))
"""


def probe(seed: int, folder, library: str | None = None) -> dict:
    try:
        return json.loads(run_seeded(PROBE, seed, folder, library=library))
    except PeerUnavailable as exc:  # no C compiler, or personality(2) refused by a sandbox
        pytest.skip(str(exc))


def test_seeded_env_rejects_an_unknown_library(tmp_path) -> None:
    with pytest.raises(ValueError, match="library must be one of"):
        seeded_env(0, tmp_path, library="numpy")


def test_the_shim_seeds_only_the_named_library_and_fixes_the_layout_it_needs(tmp_path) -> None:
    """Under the shim Python's own os.urandom stays OS-random (same seed, two runs: different
    bytes; getrandom is answered from the stream only for calls from inside the named library).
    With library="opendp" the subprocess runs with ADDR_NO_RANDOMIZE and PYTHONHASHSEED=0;
    without a library it runs as usual."""
    a, b = probe(5, tmp_path, "opendp"), probe(5, tmp_path, "opendp")
    assert a["urandom"] != b["urandom"]
    assert a["persona"] & ADDR_NO_RANDOMIZE and a["hashseed"] == "0"
    plain = probe(5, tmp_path)
    assert not plain["persona"] & ADDR_NO_RANDOMIZE
