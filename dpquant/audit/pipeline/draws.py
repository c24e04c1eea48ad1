"""Seeded, chunked sampling, optionally spread over worker processes or a
``concurrent.futures.Executor``.

Every draw job (a data set, a number of draws, a key naming the job) is cut into chunks of a fixed
size; chunk ``c`` of job ``key`` draws from ``default_rng(SeedSequence(seed, spawn_key=key + (c,)))``.
The seeds depend on the job and the chunk only, never on the executor or its number of workers, so
an audit gives the identical report in-process, in the audit's own worker processes
(:mod:`dpquant.audit.pipeline.workers`), on a thread pool or on a dask cluster.

A vectorised ``sample`` that raises for a whole chunk is retried one draw at a time (each draw with
its own derived seed); the draws that raise become the atom ``raised:<ExceptionType>``.

**The sampling contract** (:mod:`dpquant.audit.model.outputs`): a result that does not hold the draws asked for,
or a draw that is not an output, raises :class:`dpquant.audit.model.sampling_contract.MalformedOutput` naming the
mechanism, the call and the data, in every stage; so does a vectorised mechanism whose numeric
draws change width from one call to the next on the same data (its draws are then not
independent: each call chose a width for all of its draws). A function called once per draw
(``vectorized`` False, :func:`dpquant.audit.model.wrap.from_callable`) may return rows of any length: a length
that varies is an output (``length:<k>``).

**Time limit.** With ``timeout`` (seconds per draw), each call ``sample(data, k, rng)`` runs in a
helper thread and is given ``k · timeout`` seconds; chunks then hold at most
``max(1, ⌊TIMEOUT_WINDOW / timeout⌋)`` draws, so a hang is noticed within about
``max(timeout, TIMEOUT_WINDOW)`` seconds (the chunking depends on ``timeout`` only, never on
timing, so the draws stay a function of the seed). A call of k draws cannot overrun k · timeout
unless one of its draws overruns timeout (up to the scheduling of threads: choose a limit well
above the slowest draw). By default :func:`draw` then stops and raises :class:`DrawTimedOut`
(the draws of that call become the atom ``timeout``, :data:`dpquant.audit.model.outputs.TIMEOUT`); asked for
every draw, it retries the call one draw at a time, each with ``timeout`` seconds, and only the
draws that overrun become that atom. The abandoned helper thread is interrupted (CPython's
``PyThreadState_SetAsyncExc``), which stops a mechanism looping in Python code at once; one blocked
inside a C call (``time.sleep``, a long numpy operation) stops when that call returns, and keeps
its (daemon) thread until then. A mechanism that hangs thus costs a bounded time, not the audit.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from dpquant.audit.model.calls import call_with_deadline, shown_data
from dpquant.audit.model.outputs import TIMEOUT, Outputs, Raised, normalise
from dpquant.audit.model.sampling_contract import MalformedOutput
from dpquant.audit.statistics.exact_loss import mechanism_name

CHUNK = 1 << 16
TIMEOUT_WINDOW = 4.0  # with a time limit, one call is given at most ~this long (or one draw's)


@dataclass(frozen=True)
class DrawJob:
    """``size`` draws of ``mechanism`` on ``data``; ``key`` names the job in the seed tree.
    ``first_chunk`` numbers the job's first chunk: a job of n draws equals, draw for draw, its
    consecutive blocks of whole chunks (block b of m·step draws starting at chunk b·m, ``step``
    from :func:`chunk_size`), so a long job can be drawn and counted block by block."""

    data: np.ndarray
    size: int
    key: tuple[int, ...]
    first_chunk: int = 0


class DrawTimedOut(Exception):  # noqa: N818 -- an outcome of the mechanism, reported by the auditor
    """A draw of job ``job`` (an index into the jobs given to :func:`draw`) outlived the time
    limit; ``outputs`` holds what the jobs had produced by then (None for jobs not drawn)."""

    def __init__(self, job: int, outputs: list[Outputs | None]):
        super().__init__(f"a draw of job {job} exceeded the time limit")
        self.job = job
        self.outputs = outputs


def chunk_rng(seed: int, key: tuple[int, ...]) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=key))


# -- drawing ---------------------------------------------------------------------------------------


def draw_chunk(
    mechanism: Any,
    data: np.ndarray,
    size: int,
    seed: int,
    key: tuple[int, ...],
    timeout: float | None = None,
    retry: bool = True,
) -> Outputs:
    """One chunk of draws (runs on a worker). Exceptions (and overruns) become atoms; with
    ``retry=False`` a call that overruns makes all its draws the atom ``timeout``."""
    rng = chunk_rng(seed, key)
    limit = None if timeout is None else size * timeout
    status, raw = call_with_deadline(mechanism.sample, (data, size, rng), limit)
    if status == "ok":
        return _normalised(mechanism, raw, data, size)
    if status == "timeout" and (size == 1 or not retry):  # that call was the draw, or we stop
        return _timed_out(size)
    # any exception is an output: each draw again alone, with its own seed (made as needed)
    rngs = (chunk_rng(seed, (*key, 1 << 30, i)) for i in range(size))
    return _one_at_a_time(mechanism, data, rngs, timeout)


def _normalised(mechanism: Any, raw: Any, data: np.ndarray, size: int) -> Outputs:
    """:func:`dpquant.audit.model.outputs.normalise`, its refusal naming the mechanism, the call and the data."""
    try:
        return normalise(raw, size)
    except MalformedOutput as exc:
        call = f"sample(data, {size}, rng) on data {shown_data(data)}"
        raise exc.naming(f"mechanism {mechanism_name(mechanism)!r}:", call) from None


def _timed_out(size: int) -> Outputs:
    """``size`` draws that overran the time limit (the atom ``timeout``)."""
    atoms = np.empty(size, dtype=object)
    atoms[:] = TIMEOUT
    return Outputs(np.full((size, 1), np.nan), atoms)


def _one_at_a_time(
    mechanism: Any, data: np.ndarray, rngs: Iterable[np.random.Generator], timeout: float | None
) -> Outputs:
    """One call per generator of ``rngs`` (one draw each, within ``timeout`` when given); each
    result must hold one draw (:func:`_normalised`)."""
    parts: list[Outputs] = []
    for rng in rngs:
        status, raw = call_with_deadline(mechanism.sample, (data, 1, rng), timeout)
        if status == "ok":
            parts.append(_normalised(mechanism, raw, data, 1))
        elif status == "raised":
            parts.append(normalise([Raised.of(raw)], 1))
        else:
            parts.append(_timed_out(1))
    return Outputs.concat(parts) if parts else Outputs.empty()


Chunk = tuple[np.ndarray, int, tuple[int, ...]]
"""One chunk of a job: its data, its number of draws and its key (the job's key, then the
chunk's index): with the seed, the time limit and whether to retry, all a worker needs to draw
it (:func:`draw_chunk`)."""


class ChunkPool(Protocol):
    """Where :func:`draw` may spread the chunks of a call over processes
    (:class:`dpquant.audit.pipeline.workers.DrawPool`, bound to the mechanism)."""

    def outputs(
        self,
        chunks: Sequence[Chunk],
        seed: int,
        timeout: float | None,
        retry: bool,
        costly: bool,
    ) -> Iterator[Outputs]:
        """The draws of ``chunks``, in order (each as :func:`draw_chunk` makes it); ``costly``:
        the mechanism is called once per draw, or its chunks are cut small (a draw limit, a
        time limit). With a time limit and ``retry`` False it may stop after a chunk holding
        the atom ``timeout``."""
        ...


def draw(
    mechanism: Any,
    jobs: Sequence[DrawJob],
    seed: int,
    executor: Executor | None = None,
    chunk: int = CHUNK,
    timeout: float | None = None,
    stop_on_timeout: bool = True,
    pool: ChunkPool | None = None,
) -> list[Outputs]:
    """Run every job; results in job order.

    The chunks are drawn by ``pool`` when given (the audit's worker processes,
    :mod:`dpquant.audit.pipeline.workers`), else all submitted at once to ``executor``, else
    in this process: the same draws in each case (module docstring). With ``timeout`` (seconds
    per draw) and ``stop_on_timeout``, the first draw that overruns ends the call with
    :class:`DrawTimedOut` (the chunks not yet drawn are cancelled)."""
    plan: list[tuple[int, int, int]] = []  # (job index, chunk index, chunk size)
    costly = getattr(mechanism, "vectorized", True) is False
    for j, job in enumerate(jobs):
        step = chunk_size(mechanism, job.data, timeout, chunk)
        costly = costly or step < chunk
        for c, start in enumerate(range(0, job.size, step), start=job.first_chunk):
            plan.append((j, c, min(step, job.size - start)))
    stop = timeout is not None and stop_on_timeout
    chunks = [(jobs[j].data, n, (*jobs[j].key, c)) for j, c, n in plan]
    outs: Iterator[Outputs]
    if pool is not None:
        outs = pool.outputs(chunks, seed, timeout, not stop, costly)
    elif executor is not None:
        outs = _on_executor(executor, mechanism, chunks, seed, timeout, not stop)
    else:
        outs = (draw_chunk(mechanism, d, n, seed, k, timeout, not stop) for d, n, k in chunks)
    results: list[Outputs] = []
    try:
        for (j, _, _), out in zip(plan, outs, strict=True):
            results.append(out)
            if stop and TIMEOUT in out.atoms:
                raise DrawTimedOut(j, _grouped(mechanism, jobs, plan, results))
    finally:
        close = getattr(outs, "close", None)
        if close is not None:  # cancels the chunks not drawn
            close()
    return [
        g if g is not None else Outputs.empty() for g in _grouped(mechanism, jobs, plan, results)
    ]


def _on_executor(
    executor: Executor,
    mechanism: Any,
    chunks: Sequence[Chunk],
    seed: int,
    timeout: float | None,
    retry: bool,
) -> Iterator[Outputs]:
    """The chunks submitted at once to ``executor``, their draws in order; those not drawn when
    the caller stops are cancelled."""
    futures = [
        executor.submit(draw_chunk, mechanism, d, n, seed, k, timeout, retry) for d, n, k in chunks
    ]
    try:
        for f in futures:
            yield f.result()
    finally:
        for f in futures:
            f.cancel()


def chunk_size(
    mechanism: Any, data: np.ndarray, timeout: float | None = None, chunk: int = CHUNK
) -> int:
    """The chunk size for one data set: ``chunk``, fewer with a time limit (see the module
    docstring), and at most what the mechanism accepts in one call there
    (:meth:`dpquant.reference.core.MechanismBase.draw_limit`, whose draws cost time or memory growing with
    the data), so its chunks are drawn whole rather than one draw at a time. It depends on the
    mechanism, the data and the time limit only, so the seeds stay independent of the executor."""
    if timeout is not None:
        chunk = min(chunk, max(1, int(TIMEOUT_WINDOW / timeout)))
    limit = getattr(mechanism, "draw_limit", None)
    check = getattr(mechanism, "check_input", None)
    if not (callable(limit) and callable(check)):
        return chunk
    try:
        return max(1, min(chunk, int(limit(check(data))), int(mechanism.max_draws)))
    except Exception:  # noqa: BLE001 -- data it refuses: its calls raise, as atoms
        return chunk


def _grouped(
    mechanism: Any,
    jobs: Sequence[DrawJob],
    plan: list[tuple[int, int, int]],
    results: list[Outputs],
) -> list[Outputs | None]:
    """The chunks' draws pooled per job; numeric draws of one job whose width changes from one
    call to the next are refused (module docstring), unless the mechanism is called once per
    draw (its ``vectorized`` attribute is False)."""
    grouped: list[list[Outputs]] = [[] for _ in jobs]
    for (j, _, _), out in zip(plan, results, strict=False):
        grouped[j].append(out)
    if getattr(mechanism, "vectorized", True) is not False:
        for job, parts in zip(jobs, grouped, strict=True):
            widths = {p.width for p in parts if p.numeric.any()}
            if len(widths) > 1:
                raise width_changed(mechanism_name(mechanism), job.data, widths)
    return [Outputs.concat(parts) if parts else None for parts in grouped]


def width_changed(name: str, data: Any, widths: set[int]) -> MalformedOutput:
    """The refusal of a vectorised mechanism whose numeric draws on one data set changed width
    from one call to the next (module docstring, the sampling contract)."""
    return MalformedOutput(
        f"returned draws of {min(widths)} and of {max(widths)} values from one call to the "
        "next on the same data",
        f"mechanism {name!r}:",
        f"sample(data, size, rng) on data {shown_data(data)}",
    )
