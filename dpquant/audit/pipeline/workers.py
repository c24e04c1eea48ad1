"""Parallel draws: an audit's own pool of worker processes.

:func:`dpquant.audit.pipeline.draws.draw` cuts every job into chunks, each seeded by the audit's
seed, its job's key and its index, so a chunk gives the same draws wherever it is drawn. An
audit without an ``executor`` therefore draws its chunks in ``workers`` processes
(:class:`DrawPool`; default :func:`default_workers`, the usable cores), for vectorised samplers
and functions called once per draw alike, and its report is the same for any number of workers.

**The mechanism reaches the workers by fork.** The pool starts its processes with the ``fork``
method, handing them the mechanism as the argument of their initializer, which a forked process
inherits rather than unpickles: a lambda, a closure or a mechanism holding a lock is drawn as in
this process (a state it changes while drawing stays in the worker: a mechanism's draws must be
a function of its arguments, as the seeding already requires). A task then carries its chunks
only — (data, size, key) with the seed, the time limit and whether to retry — and the worker
draws them with :func:`dpquant.audit.pipeline.draws.draw_chunk`: exceptions become atoms and a
time limit runs on a helper thread of the worker, exactly as in this process. A breach of the
sampling contract (:class:`dpquant.audit.model.sampling_contract.MalformedOutput`, which
pickles) reaches the caller as the same error; so does a ``SystemExit``.

**Which calls are shipped** depends on their sizes and the kind of mechanism only, never on a
clock: the chunks of a call are grouped, in order, into tasks of at least :data:`TASK_DRAWS`
draws (:data:`COSTLY_TASK_DRAWS` for a mechanism called once per draw, or whose chunks are cut
small by a draw limit or a time limit); a call of fewer than two such tasks is drawn in this
process, since shipping it costs more than drawing it (the round trip of a task and the pickling
of its draws, measured in ``benchmarks/bench_parallel_draws.py``). The pool starts at the first
call worth shipping — an audit that never makes one starts no process — and serves the audit
until it ends: it is then shut down, and on an exception or an interrupt its processes are
terminated (they ignore SIGINT: an interrupt is the audit's to handle).

**Falling back to this process**, with a note in the report, never an error: where the platform
cannot fork, in a daemonic process (a ``multiprocessing.Pool`` worker, a dask worker: they may
have no children), when the pool cannot start, or when it breaks (a worker killed): the chunks
not yet drawn are then drawn here, the same draws. By default an audit in one of these workers
draws in that process, and under pytest-xdist each test process takes its share of the cores
(:func:`default_workers`).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from types import TracebackType
from typing import Any

import numpy as np

from dpquant.audit.model.limits import MAX_WORKERS
from dpquant.audit.model.outputs import NUMERIC, TIMEOUT, Outputs
from dpquant.audit.pipeline.draws import Chunk, draw_chunk
from dpquant.errors import ParameterError
from dpquant.reference.validation import check_int

TASK_DRAWS = 1 << 15
"""The fewest draws of a task sent to a worker by a vectorised mechanism: about 10 ms of a fast
sampler's work, against about 0.5 ms for the round trip of a task and the pickling of its draws
(``benchmarks/bench_parallel_draws.py``)."""
COSTLY_TASK_DRAWS = 256
"""The fewest draws of a task sent to a worker by a mechanism called once per draw (a Python
function takes 10 µs a draw or more), or whose chunks are cut small by a draw limit or a time
limit (its draws are slow)."""
XDIST_WORKERS = "PYTEST_XDIST_WORKER_COUNT"
"""The environment variable in which pytest-xdist tells its test processes how many there are."""
START_SECONDS = 60.0
"""How long the workers may take to start (a fork, then one task) before the audit draws in its
own process instead."""
JOIN_SECONDS = 5.0
"""How long closing an aborted pool waits for a terminated worker before killing it."""

_mechanism: Any = None
"""In a worker process: the audit's mechanism (set by the pool's initializer)."""
_in_worker = False
"""Whether this process is one of a pool's workers."""

Packed = tuple[np.ndarray, np.ndarray | None, np.ndarray | None, np.ndarray | None]
"""The draws of a chunk as a worker sends them (:func:`pack`)."""


# -- how many workers ------------------------------------------------------------------------------


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity where the platform tells it, else
    ``os.cpu_count()``."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no sched_getaffinity (macOS, Windows)
        return max(1, os.cpu_count() or 1)


def default_workers() -> int:
    """The workers of an audit that does not say: the usable cores (:func:`usable_cores`, at
    most :data:`MAX_WORKERS`), shared among the test processes of a pytest-xdist run
    (:data:`XDIST_WORKERS`), and one (this process) inside a pool's worker."""
    if _in_worker:
        return 1
    try:
        share = max(1, int(os.environ.get(XDIST_WORKERS, "1")))
    except ValueError:
        share = 1
    return max(1, min(MAX_WORKERS, usable_cores() // share))


def check_workers(workers: Any, name: str = "workers") -> int | None:
    """Check a number of worker processes.

    Args:
        workers: An integer in [1, :data:`MAX_WORKERS`] (not a boolean), or None for the
            default (:func:`default_workers`).
        name: The argument named in the error.

    Returns:
        The number, or None.

    Raises:
        ValueError: naming ``name`` and the allowed range.
    """
    if workers is None:
        return None
    value = check_int(workers, name)
    if not 1 <= value <= MAX_WORKERS:
        raise ParameterError(name, f"must be an integer in [1, {MAX_WORKERS}] or None", value)
    return value


def resolve_workers(workers: Any, executor: Any) -> int:
    """The worker processes of an audit.

    Args:
        workers: As given to the audit (:func:`check_workers`).
        executor: The audit's executor, or None.

    Returns:
        ``workers``, or :func:`default_workers` for None; one when an ``executor`` draws.

    Raises:
        ValueError: ``workers`` out of its range, or given with an ``executor`` (whose own
            workers draw), naming ``workers``.
    """
    workers = check_workers(workers)
    if executor is None:
        return default_workers() if workers is None else workers
    if workers is not None:
        raise ParameterError(
            "workers", "must be None when an executor draws the samples", repr(workers)
        )
    return 1


def unavailable() -> str | None:
    """Why this process cannot start worker processes, or None when it can."""
    if "fork" not in multiprocessing.get_all_start_methods():
        return "this platform cannot fork processes"
    if multiprocessing.current_process().daemon:
        return "this process is a daemonic worker, which may not have children"
    return None


def tasks(sizes: Sequence[int], least: int) -> list[range]:
    """Consecutive chunks (their numbers of draws, ``sizes``) grouped into tasks of at least
    ``least`` draws each: a group closes once it holds ``least`` draws, and a last group of fewer
    joins the one before it.

    Args:
        sizes: The draws of each chunk, in order.
        least: The fewest draws of a task.

    Returns:
        The tasks, as ranges of chunk indices covering ``sizes`` in order (one task when the
            chunks hold fewer than ``2 · least`` draws, or none without chunks).
    """
    groups: list[range] = []
    start = total = 0
    for i, n in enumerate(sizes):
        total += n
        if total >= least:
            groups.append(range(start, i + 1))
            start, total = i + 1, 0
    if start < len(sizes):
        if groups:
            groups[-1] = range(groups[-1].start, len(sizes))
        else:
            groups.append(range(start, len(sizes)))
    return groups


# -- the pool ----------------------------------------------------------------------------------------


class DrawPool:
    """The worker processes of one audit, bound to its mechanism (module docstring); started at
    the first call worth shipping, closed when the audit ends (a context manager).

    Args:
        mechanism: The mechanism the workers draw.
        workers: How many processes (one: every draw in this process, as without a pool).
        notes: The audit's notes, where a fallback to this process is said.
    """

    def __init__(self, mechanism: Any, workers: int, notes: list[str]) -> None:
        self.mechanism = mechanism
        self.workers = workers
        self.notes = notes
        self._pool: ProcessPoolExecutor | None = None
        self._off = workers < 2  # draws in this process from now on

    @property
    def running(self) -> bool:
        """Whether worker processes are running."""
        return self._pool is not None

    def outputs(
        self,
        chunks: Sequence[Chunk],
        seed: int,
        timeout: float | None,
        retry: bool,
        costly: bool,
    ) -> Iterator[Outputs]:
        """The draws of ``chunks``, in order (:class:`dpquant.audit.pipeline.draws.ChunkPool`):
        in the workers when they make at least two tasks (:func:`tasks`), else here.

        Args:
            chunks: The chunks (data, draws, key), in order.
            seed: The audit's seed.
            timeout: Seconds per draw, or None.
            retry: Whether a call that overruns is retried one draw at a time; when not (with
                a time limit), the draws may stop after a chunk holding the atom ``timeout``.
            costly: The mechanism is called once per draw, or its chunks are cut small: tasks
                of :data:`COSTLY_TASK_DRAWS` rather than :data:`TASK_DRAWS`.

        Returns:
            An iterator over the chunks' draws (close it to cancel the chunks not drawn).
        """
        least = COSTLY_TASK_DRAWS if costly else TASK_DRAWS
        groups = tasks([n for _, n, _ in chunks], least) if not self._off else []
        pool = self._started() if len(groups) > 1 else None
        if pool is None:
            return self._here(chunks, seed, timeout, retry)
        return self._spread(pool, chunks, groups, seed, timeout, retry)

    def _here(
        self, chunks: Sequence[Chunk], seed: int, timeout: float | None, retry: bool
    ) -> Iterator[Outputs]:
        for data, size, key in chunks:
            yield draw_chunk(self.mechanism, data, size, seed, key, timeout, retry)

    def _spread(
        self,
        pool: ProcessPoolExecutor,
        chunks: Sequence[Chunk],
        groups: list[range],
        seed: int,
        timeout: float | None,
        retry: bool,
    ) -> Iterator[Outputs]:
        """The groups drawn as tasks of ``pool``, their draws yielded in order; the tasks not
        drawn when the caller stops are cancelled; a pool that breaks leaves the rest to this
        process."""
        stop = timeout is not None and not retry
        futures: list[Future[list[Packed]]] = []
        done = 0
        try:
            for g in groups:
                futures.append(
                    pool.submit(_draw_task, [chunks[i] for i in g], seed, timeout, retry, stop)
                )
            for f in futures:
                for packed in f.result():
                    done += 1
                    yield unpack(packed)
        except BrokenProcessPool as exc:
            self._fall_back(f"the worker processes broke ({exc})", abort=True)
            yield from self._here(chunks[done:], seed, timeout, retry)
        finally:
            for f in futures:
                f.cancel()

    def _started(self) -> ProcessPoolExecutor | None:
        """The running pool, started if need be; None (and a note) when it cannot start."""
        if self._pool is not None or self._off:
            return self._pool
        why = unavailable()
        if why is None:
            try:
                self._pool = ProcessPoolExecutor(
                    self.workers,
                    mp_context=multiprocessing.get_context("fork"),
                    initializer=_start_worker,
                    initargs=(self.mechanism,),
                )
                # forks the workers: a failure, or a worker stuck at its start, shows here
                self._pool.submit(_ready).result(timeout=START_SECONDS)
            except Exception as exc:  # noqa: BLE001 -- OSError, BrokenProcessPool, a timeout
                detail = str(exc) or f"not within {START_SECONDS:g} s"
                why = f"the worker processes did not start ({type(exc).__name__}: {detail})"
        if why is not None:
            self._fall_back(why, abort=True)
        return self._pool

    def _fall_back(self, why: str, abort: bool) -> None:
        """Draw in this process from now on, and say why in the notes."""
        self.notes.append(
            f"parallel draws: {why}; the draws were made in this process from then on (the "
            "same draws: each chunk is seeded by its own key)"
        )
        self.close(abort=abort)
        self._off = True

    def close(self, abort: bool = False) -> None:
        """Shut the workers down; the pool then draws in this process.

        Args:
            abort: Terminate them, their tasks unfinished (an exception, an interrupt), rather
                than wait for the tasks running.
        """
        pool, self._pool = self._pool, None
        self._off = True
        if pool is None:
            return
        if abort:
            _terminate(pool)
        else:
            pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> DrawPool:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close(abort=kind is not None)


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` at once: pending tasks cancelled, its processes terminated (killed when
    they do not end within :data:`JOIN_SECONDS`) and joined."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(JOIN_SECONDS)
        if p.is_alive():  # pragma: no cover - a worker that ignores SIGTERM
            p.kill()
            p.join()


# -- in a worker ------------------------------------------------------------------------------------


def _start_worker(mechanism: Any) -> None:
    """The initializer of a worker: keep the mechanism (inherited through fork, never pickled),
    and leave interrupts to the audit's process."""
    global _mechanism, _in_worker
    _mechanism, _in_worker = mechanism, True
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _ready() -> bool:
    """A task that tells the pool its workers run."""
    return True


def _draw_task(
    chunks: list[Chunk], seed: int, timeout: float | None, retry: bool, stop: bool
) -> list[Packed]:
    """A task: its chunks drawn in order (:func:`dpquant.audit.pipeline.draws.draw_chunk`);
    with ``stop``, none after one that holds the atom ``timeout`` (the caller stops there)."""
    out: list[Packed] = []
    for data, size, key in chunks:
        drawn = draw_chunk(_mechanism, data, size, seed, key, timeout, retry)
        out.append(pack(drawn))
        if stop and TIMEOUT in drawn.atoms:
            break
    return out


def pack(out: Outputs) -> Packed:
    """A chunk's draws to send: the atoms left out (None) when every draw is numeric, the
    common case, whose object array would cost more to pickle than the draws themselves.

    Args:
        out: The draws.

    Returns:
        (values, atoms or None, tokens, numbers).
    """
    atoms = None if bool(np.all(out.atoms == NUMERIC)) else out.atoms
    return out.values, atoms, out.tokens, out.numbers


def unpack(packed: Packed) -> Outputs:
    """The draws :func:`pack` sent.

    Args:
        packed: What :func:`pack` gave.

    Returns:
        The draws.
    """
    values, atoms, tokens, numbers = packed
    if atoms is None:
        atoms = np.full(len(values), NUMERIC, dtype=object)
    return Outputs(values, atoms, tokens, numbers)


__all__ = [
    "COSTLY_TASK_DRAWS",
    "TASK_DRAWS",
    "DrawPool",
    "check_workers",
    "default_workers",
    "resolve_workers",
    "tasks",
    "unavailable",
    "usable_cores",
]
