"""Parallel draws (issue 39): an audit's own worker processes give the report of one process.

Each test that means to exercise the workers checks that they drew (the mechanisms write the
process id of each call into a folder): a report equal to the one-process report proves nothing
when the draws never left the process."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dpquant.audit import AuditReport, audit_mechanism, from_callable
from dpquant.audit.model.limits import MAX_WORKERS
from dpquant.audit.model.sampling_contract import MalformedOutput
from dpquant.audit.pipeline import draws as draws_module
from dpquant.audit.pipeline import workers
from dpquant.audit.pipeline.draws import DrawJob, DrawTimedOut, draw
from dpquant.audit.pipeline.workers import DrawPool, tasks
from dpquant.reference.core import PrivacyClaim
from dpquant.reference.primitives.exponential_mechanism import ExponentialQuantile
from dpquant.reference.primitives.randomized_response import RandomizedResponse

EM = ExponentialQuantile(0.5, 1.0, (0.0, 1.0))
EM_PAIR = [([0.0, 0.25, 0.25], [0.25, 0.25, 1.0])]
REPLACE = PrivacyClaim(1.0, 0.0, "replace_one")
RR = RandomizedResponse(1.0)
RR_PAIR = [([0.0], [1.0])]


def _stable(r: AuditReport) -> dict[str, Any]:
    d = r.to_dict()
    d.pop("seconds")
    return d


def _pids(folder: Path) -> set[int]:
    return {int(p.name) for p in folder.iterdir()}


def _marked(folder: Path) -> Callable[[], None]:
    """A function that records the calling process in ``folder``."""

    def mark() -> None:
        (folder / str(os.getpid())).touch()

    return mark


def _vectorised_em(folder: Path) -> Any:
    """The exponential-mechanism median as a user's vectorised lambda (no exact law: the
    auditor searches by drawing)."""
    mark = _marked(folder)
    return from_callable(
        lambda data, size, rng: (mark(), EM.sample(data, size, rng))[1],
        REPLACE,
        (0.0, 1.0),
        vectorized=True,
    )


def _raising_mean(folder: Path) -> Any:
    """A correct clipped Laplace mean, called once per draw, that raises on some draws (its
    noise beyond 3 scales on either data set): a closure."""
    mark = _marked(folder)

    def noisy_mean(data: np.ndarray, rng: np.random.Generator) -> float:
        mark()
        noise = rng.laplace(scale=1.0 / len(data))
        if abs(noise) * len(data) > 3.0:
            raise ZeroDivisionError("a draw that raises")
        return float(np.clip(data, 0.0, 1.0).mean() + noise)

    return from_callable(noisy_mean, REPLACE, (0.0, 1.0))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def no_leaks() -> Any:
    """The test leaves no worker process behind."""
    before = set(multiprocessing.active_children())
    yield
    assert set(multiprocessing.active_children()) <= before


# -- the same report for any number of workers ---------------------------------------------------


@pytest.mark.parametrize(
    ("make", "budget"),
    [
        # a total budget: the search of a default budget screens ~1.1 million draws, whatever
        # ``samples``; 200 000 draws in all still search, select and evaluate, and are enough
        # for the audit to hand draws to its workers (100 000 are drawn here)
        (_vectorised_em, {"max_draws": 200_000}),
        (_raising_mean, {"samples": 6_000, "pairs": [([0.2, 0.9], [0.2, 0.1])]}),
    ],
    ids=["vectorised-lambda-searched", "per-draw-closure-raising"],
)
def test_the_report_is_the_same_for_one_two_workers_and_a_thread_pool(
    make: Callable[[Path], Any], budget: dict[str, Any], folder: Path, no_leaks: None
) -> None:
    mech = make(folder)
    one = audit_mechanism(mech, seed=3, workers=1, **budget)
    assert _pids(folder) == {os.getpid()}
    for p in folder.iterdir():
        p.unlink()
    two = audit_mechanism(mech, seed=3, workers=2, **budget)
    assert len(_pids(folder) - {os.getpid()}) >= 2  # the workers drew
    with ThreadPoolExecutor(2) as pool:
        threads = audit_mechanism(mech, seed=3, executor=pool, **budget)
    assert _stable(one) == _stable(two) == _stable(threads)
    assert not any("parallel draws" in n for n in two.notes)
    assert two.samples_used == one.samples_used > 20_000


# -- draws, chunk by chunk -----------------------------------------------------------------------


def _same(a: list[Any], b: list[Any]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x.values, y.values)
        assert x.atoms.tolist() == y.atoms.tolist()


def _sometimes_raises(folder: Path) -> Any:
    """A vectorised closure whose call raises half the time (the chunk is then retried one draw
    at a time, each draw a call of its own)."""
    mark = _marked(folder)

    def noisy(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        mark()
        if rng.random() < 0.5:  # a call of several draws raises with any of them
            raise OverflowError("the whole call")
        return data[0] + rng.laplace(size=size)

    return from_callable(noisy, PrivacyClaim(1.0, 0.0, "local"), (0.0, 1.0), vectorized=True)


@pytest.mark.parametrize(
    ("make", "atom"),
    [(_sometimes_raises, "raised:OverflowError"), (_raising_mean, "raised:ZeroDivisionError")],
    ids=["vectorised-retried", "per-draw"],
)
def test_draws_in_workers_are_the_draws_of_this_process(
    make: Callable[[Path], Any],
    atom: str,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    no_leaks: None,
) -> None:
    """Chunk for chunk, whatever the grouping into tasks (small tasks forced here); the draws
    that raise are the same atoms there as here."""
    monkeypatch.setattr(workers, "TASK_DRAWS", 700)
    mech = make(folder)
    jobs = [DrawJob(np.array([0.0]), 2_900, (1, 0)), DrawJob(np.array([1.0]), 2_100, (1, 1))]
    here = draw(mech, jobs, seed=5, chunk=300)
    notes: list[str] = []
    with DrawPool(mech, 2, notes) as pool:
        spread = draw(mech, jobs, seed=5, chunk=300, pool=pool)
        assert pool.running
    _same(here, spread)
    assert {"", atom} <= set(here[0].atoms.tolist())
    assert len(_pids(folder) - {os.getpid()}) >= 1 and notes == []


def test_a_breach_of_the_sampling_contract_in_a_worker_is_the_same_error(
    monkeypatch: pytest.MonkeyPatch, no_leaks: None
) -> None:
    monkeypatch.setattr(workers, "TASK_DRAWS", 500)

    def short(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        return rng.random(size - 1 if size >= 400 else size)

    mech = from_callable(short, PrivacyClaim(1.0, 0.0, "local"), (0.0, 1.0), vectorized=True)
    jobs = [DrawJob(np.array([0.0]), 2_000, (1, 0))]
    with pytest.raises(MalformedOutput) as here:
        draw(mech, jobs, seed=5, chunk=500)
    with DrawPool(mech, 2, []) as pool, pytest.raises(MalformedOutput) as there:
        draw(mech, jobs, seed=5, chunk=500, pool=pool)
    assert str(there.value) == str(here.value) and "499 draws for 500" in str(here.value)


def test_a_draw_over_the_time_limit_stops_the_call_as_in_this_process(
    monkeypatch: pytest.MonkeyPatch, no_leaks: None
) -> None:
    """The first job whose draw overruns is the one named, the calls left are cancelled, and
    the worker stuck in the mechanism's loop is interrupted (the pool closes at once)."""
    monkeypatch.setattr(draws_module, "TIMEOUT_WINDOW", 0.5)

    def loops_on_one(data: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        while data[0] > 0.5:
            pass
        return rng.random(size)

    mech = from_callable(loops_on_one, PrivacyClaim(1.0, 0.0, "local"), (0.0, 1.0), vectorized=True)
    jobs = [DrawJob(np.array([0.0]), 1_000, (1, 0)), DrawJob(np.array([1.0]), 1_000, (1, 1))]
    with pytest.raises(DrawTimedOut) as here:
        draw(mech, jobs, seed=5, timeout=0.02)
    start = time.perf_counter()
    with DrawPool(mech, 2, []) as pool, pytest.raises(DrawTimedOut) as there:
        draw(mech, jobs, seed=5, timeout=0.02, pool=pool)
    assert time.perf_counter() - start < 30.0
    assert there.value.job == here.value.job == 1
    _same([there.value.outputs[0]], [here.value.outputs[0]])


# -- the pool's lifetime -------------------------------------------------------------------------


def test_an_interrupt_terminates_the_workers(folder: Path, no_leaks: None) -> None:
    """A worker interrupts the audit's process while the workers draw (once): the audit ends
    with KeyboardInterrupt, and its workers are gone.

    The interrupt is sent by exactly one worker (the flag file is created atomically, so two
    workers cannot both send one), and the test process's SIGINT handler is Python's default
    for the duration of the test: how SIGINT is handled is the host process's choice (a test
    runner's worker process, or a library loaded earlier in it, may change it), and this test
    is about what the audit does with a KeyboardInterrupt."""
    parent = os.getpid()
    flag = folder / "sent"

    def slow(data: np.ndarray, rng: np.random.Generator) -> float:
        if os.getpid() != parent:
            try:
                os.close(os.open(flag, os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                pass
            else:
                os.kill(parent, signal.SIGINT)
        time.sleep(0.0005)
        return float(rng.random())

    mech = from_callable(slow, REPLACE, (0.0, 1.0))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        start = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            audit_mechanism(mech, pairs=[([0.2], [0.7])], samples=400_000, workers=2)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert flag.exists() and time.perf_counter() - start < 60.0


def test_small_audits_start_no_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Calls too small to ship (a few hundred draws of a vectorised sampler) stay here."""
    started: list[int] = []
    real = workers.ProcessPoolExecutor

    def counting(*args: Any, **kwargs: Any) -> Any:
        started.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(workers, "ProcessPoolExecutor", counting)
    r = audit_mechanism(RR, pairs=RR_PAIR, samples=20_000, workers=2)
    assert started == [] and r.samples_used > 0


# -- falling back to this process, with a note ---------------------------------------------------


def _without_parallel_notes(r: AuditReport) -> dict[str, Any]:
    d = _stable(r)
    d["notes"] = [n for n in d["notes"] if not n.startswith("parallel draws:")]
    return d


def test_without_fork_the_audit_draws_here_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    one = audit_mechanism(EM, pairs=EM_PAIR, samples=150_000, seed=2, workers=1)
    monkeypatch.setattr(workers, "unavailable", lambda: "this platform cannot fork processes")
    r = audit_mechanism(EM, pairs=EM_PAIR, samples=150_000, seed=2, workers=2)
    assert [n for n in r.notes if n.startswith("parallel draws:")] == [
        "parallel draws: this platform cannot fork processes; the draws were made in this "
        "process from then on (the same draws: each chunk is seeded by its own key)"
    ]
    assert _without_parallel_notes(r) == _stable(one)


def test_a_pool_that_cannot_start_leaves_the_draws_here(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise OSError(12, "Cannot allocate memory")

    one = audit_mechanism(EM, pairs=EM_PAIR, samples=150_000, seed=2, workers=1)
    monkeypatch.setattr(workers, "ProcessPoolExecutor", refused)
    r = audit_mechanism(EM, pairs=EM_PAIR, samples=150_000, seed=2, workers=2)
    assert any("did not start (OSError" in n for n in r.notes)
    assert _without_parallel_notes(r) == _stable(one)


def _slow_start() -> bool:
    time.sleep(30.0)
    return True


def test_workers_stuck_at_their_start_leave_the_draws_here(
    monkeypatch: pytest.MonkeyPatch, no_leaks: None
) -> None:
    """A worker that does not answer its first task (a lock held at the fork, say) is given up
    after START_SECONDS: terminated, and the draws made here."""
    monkeypatch.setattr(workers, "_ready", _slow_start)
    monkeypatch.setattr(workers, "START_SECONDS", 0.5)
    one = audit_mechanism(EM, pairs=EM_PAIR, samples=150_000, seed=2, workers=1)
    start = time.perf_counter()
    r = audit_mechanism(EM, pairs=EM_PAIR, samples=150_000, seed=2, workers=2)
    assert time.perf_counter() - start < 25.0
    assert any("did not start (TimeoutError: not within 0.5 s)" in n for n in r.notes)
    assert _without_parallel_notes(r) == _stable(one)


def test_a_worker_that_dies_leaves_the_rest_to_this_process(folder: Path, no_leaks: None) -> None:
    parent = os.getpid()
    flag = folder / "died"

    def dies_once_in_a_worker(data: np.ndarray, size: int, rng: np.random.Generator) -> Any:
        if os.getpid() != parent and not flag.exists():
            flag.touch()
            os._exit(3)
        return EM.sample(data, size, rng)

    mech = from_callable(dies_once_in_a_worker, REPLACE, (0.0, 1.0), vectorized=True)
    one = audit_mechanism(mech, pairs=EM_PAIR, samples=150_000, seed=2, workers=1)
    r = audit_mechanism(mech, pairs=EM_PAIR, samples=150_000, seed=2, workers=2)
    assert flag.exists() and any("the worker processes broke" in n for n in r.notes)
    assert _without_parallel_notes(r) == _stable(one)


def _unavailable_here() -> str | None:
    return workers.unavailable()


def test_a_daemonic_process_cannot_start_workers() -> None:
    assert workers.unavailable() is None
    with multiprocessing.get_context("fork").Pool(1) as pool:  # its workers are daemonic
        why = pool.apply(_unavailable_here)
    assert why == "this process is a daemonic worker, which may not have children"


# -- how many workers ----------------------------------------------------------------------------


def test_the_default_is_the_usable_cores_shared_among_xdist_processes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(workers, "usable_cores", lambda: 8)
    monkeypatch.delenv(workers.XDIST_WORKERS, raising=False)
    assert workers.default_workers() == 8
    monkeypatch.setenv(workers.XDIST_WORKERS, "3")
    assert workers.default_workers() == 2
    monkeypatch.setenv(workers.XDIST_WORKERS, "16")
    assert workers.default_workers() == 1
    monkeypatch.setattr(workers, "_in_worker", True)  # an audit inside a worker: no nested pool
    monkeypatch.delenv(workers.XDIST_WORKERS)
    assert workers.default_workers() == 1


def test_the_usable_cores_are_at_most_the_machine_s() -> None:
    assert 1 <= workers.usable_cores() <= (os.cpu_count() or 1)


@pytest.mark.parametrize("bad", [0, -1, MAX_WORKERS + 1, True, 2.0, "2", np.float64(2.0)])
def test_workers_out_of_range_are_refused_by_name(bad: Any) -> None:
    with pytest.raises(ValueError, match=r"^workers must be an integer"):
        audit_mechanism(RR, pairs=RR_PAIR, samples=100, workers=bad)


def test_workers_with_an_executor_are_refused() -> None:
    with ThreadPoolExecutor(1) as pool:
        with pytest.raises(ValueError, match=r"^workers must be None when an executor draws"):
            audit_mechanism(RR, pairs=RR_PAIR, samples=100, executor=pool, workers=2)


def test_workers_accepts_numpy_integers_and_the_maximum() -> None:
    assert workers.check_workers(np.int64(3)) == 3
    assert workers.check_workers(MAX_WORKERS) == MAX_WORKERS
    assert workers.check_workers(None) is None


@pytest.mark.parametrize(
    ("sizes", "least", "expected"),
    [
        ([], 10, []),
        ([3, 3], 10, [range(0, 2)]),
        ([10, 10, 10], 10, [range(0, 1), range(1, 2), range(2, 3)]),
        ([4, 4, 4, 4, 1], 8, [range(0, 2), range(2, 5)]),
        ([65536, 17856, 65536, 17856], 256, [range(0, 1), range(1, 2), range(2, 3), range(3, 4)]),
        ([500, 500], 256, [range(0, 1), range(1, 2)]),
        ([4, 4], 256, [range(0, 2)]),
    ],
)
def test_chunks_are_grouped_into_tasks_in_order(
    sizes: list[int], least: int, expected: list[range]
) -> None:
    got = tasks(sizes, least)
    assert got == expected
    assert [i for g in got for i in g] == list(range(len(sizes)))
    if len(got) > 1:  # every task holds at least `least` draws
        assert all(sum(sizes[i] for i in g) >= least for g in got)
