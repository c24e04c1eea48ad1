"""Seeding python-dp and OpenDP for tests: a preloaded deterministic generator (``seedrand.c``).

Neither library takes a seed. python-dp draws from OpenSSL's ``RAND_bytes`` in a libcrypto it
links dynamically, so a preloaded (``LD_PRELOAD``) shared library that defines ``RAND_bytes``
replaces it for the whole process: its draws are then a function of the seed alone.

OpenDP links OpenSSL statically, so its ``RAND_bytes`` cannot be replaced; its generator is seeded
by the operating system (``getentropy`` / ``getrandom``), which the same shim answers from the
seeded stream for calls made from inside OpenDP's shared object (``library="opendp"``). OpenSSL
also mixes the heap addresses of its generator objects into their seeds, so such a subprocess
runs with address-space randomization off (``personality(ADDR_NO_RANDOMIZE)``) and
``PYTHONHASHSEED=0``: its draws are then a function of the seed, the installation and the working
directory (the same seed gives the same draws on a given checkout; another checkout path gives
other, equally distributed, draws).

:func:`seeded_env` compiles the shim once per temporary folder and returns the environment of
such a subprocess; :func:`run_seeded` runs code in it (an audit, say).
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from dpquant.audit.suites.adapters.base import PeerUnavailable
from dpquant.reference.validation import check_int

SOURCE = Path(__file__).with_name("seedrand.c")
_BUILT: dict[str, Path] = {}

#: Libraries whose OS-level entropy the shim seeds, by the name of their shared object.
SEEDED_LIBRARIES = {"opendp": "opendp.abi3"}
ADDR_NO_RANDOMIZE = 0x0040000  # linux/personality.h


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
        [compiler, "-shared", "-fPIC", "-O2", "-o", str(target), str(SOURCE), "-ldl"],
        check=True,
        capture_output=True,
    )
    _BUILT[key] = target
    return target


def seeded_env(seed: int, folder: Path | None = None, library: str | None = None) -> dict[str, str]:
    """The environment of a subprocess whose python-dp draws (and, with ``library="opendp"``,
    OpenDP's) are a function of ``seed``; OpenDP also needs :func:`fixed_layout` at start."""
    if library is not None and (not isinstance(library, str) or library not in SEEDED_LIBRARIES):
        raise ValueError(
            f"library must be one of {sorted(SEEDED_LIBRARIES)} or None, got {library!r}"
        )
    seed = check_int(seed, "seed", minimum=0)
    env = dict(os.environ)
    shim = str(build_shim(folder))
    env["LD_PRELOAD"] = f"{shim} {env['LD_PRELOAD']}" if env.get("LD_PRELOAD") else shim
    env["DPQUANT_RAND_SEED"] = str(int(seed) % 2**64)
    if library is not None:
        env["DPQUANT_SEED_LIBRARY"] = SEEDED_LIBRARIES[library]
        env["PYTHONHASHSEED"] = "0"
    return env


def fixed_layout() -> None:
    """Turn address-space randomization off for the programs this process executes
    (``personality(2)`` with ADDR_NO_RANDOMIZE); OSError when the kernel or a sandbox refuses."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.personality.argtypes = [ctypes.c_ulong]
    libc.personality.restype = ctypes.c_int
    current = libc.personality(0xFFFFFFFF)
    if current == -1 or libc.personality(current | ADDR_NO_RANDOMIZE) == -1:
        raise OSError(ctypes.get_errno(), "personality(ADDR_NO_RANDOMIZE) refused")


def run_seeded(
    code: str,
    seed: int,
    folder: Path | None = None,
    timeout: float = 900,
    library: str | None = None,
) -> str:
    """Run ``python -c code`` with python-dp (and ``library``, if given) seeded by ``seed``; its
    stdout. PeerUnavailable when address randomization cannot be turned off for ``library``."""
    env = seeded_env(seed, folder, library)
    if library is not None and not sys.platform.startswith("linux"):
        raise PeerUnavailable(f"seeding {library} needs Linux (personality, dladdr)")
    try:
        result = subprocess.run(
            [sys.executable, "-c", code],
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            preexec_fn=fixed_layout if library is not None else None,
        )
    except subprocess.SubprocessError as exc:
        if isinstance(exc, subprocess.TimeoutExpired):
            raise
        raise PeerUnavailable(
            f"cannot turn address randomization off to seed {library}: {exc}"
        ) from exc
    if result.returncode != 0:
        raise RuntimeError(f"seeded subprocess failed ({result.returncode}): {result.stderr}")
    return result.stdout


__all__ = ["SEEDED_LIBRARIES", "SOURCE", "build_shim", "fixed_layout", "run_seeded", "seeded_env"]
