"""Seeding python-dp for tests: a preloaded deterministic ``RAND_bytes`` (``seedrand.c``).

python-dp has no seed, but it takes its randomness from OpenSSL's ``RAND_bytes`` in a libcrypto
it links dynamically, so a shared library that defines ``RAND_bytes`` and is preloaded
(``LD_PRELOAD``) replaces it for the whole process. :func:`seeded_env` compiles the shim once per
temporary folder and returns the environment of a subprocess whose python-dp draws are a function
of ``seed``; run the audit in that subprocess (:func:`run_seeded`). OpenDP links OpenSSL
statically and mixes other state into its generator, so it cannot be seeded this way.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from audit.adapters.base import PeerUnavailable

SOURCE = Path(__file__).with_name("seedrand.c")
_BUILT: dict[str, Path] = {}


def build_shim(folder: Path | None = None) -> Path:
    """Compile ``seedrand.c`` into a shared library (once per folder); PeerUnavailable when no C
    compiler is found."""
    folder = Path(folder or tempfile.gettempdir()) / "dpquant_seedrand"
    key = str(folder)
    if key in _BUILT and _BUILT[key].exists():
        return _BUILT[key]
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        raise PeerUnavailable("no C compiler (cc, gcc or clang) to build the seeding shim")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"libdpquant_seedrand_{os.getpid()}.so"
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-O2", "-o", str(target), str(SOURCE)],
        check=True,
        capture_output=True,
    )
    _BUILT[key] = target
    return target


def seeded_env(seed: int, folder: Path | None = None) -> dict[str, str]:
    """The environment of a subprocess whose python-dp draws are a function of ``seed``."""
    env = dict(os.environ)
    shim = str(build_shim(folder))
    env["LD_PRELOAD"] = f"{shim} {env['LD_PRELOAD']}" if env.get("LD_PRELOAD") else shim
    env["DPQUANT_RAND_SEED"] = str(int(seed) % 2**64)
    return env


def run_seeded(code: str, seed: int, folder: Path | None = None, timeout: float = 900) -> str:
    """Run ``python -c code`` with python-dp seeded by ``seed``; its stdout."""
    result = subprocess.run(
        [sys.executable, "-c", code],
        env=seeded_env(seed, folder),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"seeded subprocess failed ({result.returncode}): {result.stderr}")
    return result.stdout


__all__ = ["SOURCE", "build_shim", "run_seeded", "seeded_env"]
