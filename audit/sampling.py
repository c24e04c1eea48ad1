"""Seeded, chunked sampling, optionally spread over a ``concurrent.futures.Executor``.

Every draw job (a data set, a number of draws, a key naming the job) is cut into chunks of a fixed
size; chunk ``c`` of job ``key`` draws from ``default_rng(SeedSequence(seed, spawn_key=key + (c,)))``.
The seeds depend on the job and the chunk only, never on the executor or its number of workers, so
an audit gives the identical report in-process, on a thread pool or on a dask cluster.

A vectorised ``sample`` that raises for a whole chunk is retried one draw at a time (each draw with
its own derived seed); the draws that raise become the atom ``raised:<ExceptionType>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit.outputs import Outputs, Raised, normalise

CHUNK = 1 << 16


@dataclass(frozen=True)
class DrawJob:
    """``size`` draws of ``mechanism`` on ``data``; ``key`` names the job in the seed tree."""

    data: np.ndarray
    size: int
    key: tuple[int, ...]


def chunk_rng(seed: int, key: tuple[int, ...]) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


def draw_chunk(
    mechanism: Any, data: np.ndarray, size: int, seed: int, key: tuple[int, ...]
) -> Outputs:
    """One chunk of draws (runs on a worker). Exceptions become atoms."""
    try:
        raw = mechanism.sample(data, size, chunk_rng(seed, key))
    except Exception:  # noqa: BLE001 -- any exception is an output
        return _one_at_a_time(mechanism, data, size, seed, key)
    return normalise(raw, size)


def _one_at_a_time(
    mechanism: Any, data: np.ndarray, size: int, seed: int, key: tuple[int, ...]
) -> Outputs:
    rows: list[Any] = []
    for i in range(size):
        try:
            out = np.asarray(mechanism.sample(data, 1, chunk_rng(seed, (*key, 1 << 30, i))))
            rows.append(out[0] if out.ndim <= 1 else out[0].tolist())
        except Exception as exc:  # noqa: BLE001
            rows.append(Raised.of(exc))
    return normalise(rows, size)


def draw(
    mechanism: Any,
    jobs: Sequence[DrawJob],
    seed: int,
    executor: Executor | None = None,
    chunk: int = CHUNK,
) -> list[Outputs]:
    """Run every job (all chunks submitted at once to ``executor``); results in job order."""
    plan: list[tuple[int, int, int]] = []  # (job index, chunk index, chunk size)
    for j, job in enumerate(jobs):
        for c, start in enumerate(range(0, job.size, chunk)):
            plan.append((j, c, min(chunk, job.size - start)))
    if executor is None:
        results = [
            draw_chunk(mechanism, jobs[j].data, n, seed, (*jobs[j].key, c)) for j, c, n in plan
        ]
    else:
        futures = [
            executor.submit(draw_chunk, mechanism, jobs[j].data, n, seed, (*jobs[j].key, c))
            for j, c, n in plan
        ]
        results = [f.result() for f in futures]
    grouped: list[list[Outputs]] = [[] for _ in jobs]
    for (j, _, _), out in zip(plan, results, strict=True):
        grouped[j].append(out)
    return [Outputs.concat(parts) if parts else Outputs.empty() for parts in grouped]
