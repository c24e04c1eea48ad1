"""Calling a mechanism's function: with a deadline, and naming its data in messages.

A call with a deadline runs in a helper daemon thread; one that overruns is abandoned and
interrupted (CPython's ``PyThreadState_SetAsyncExc``): a mechanism looping in Python code stops
at once, one blocked inside a C call stops when that call returns. How the draws use it (the time
limit per draw) is described in :mod:`dpquant.audit.pipeline.draws`.
"""

from __future__ import annotations

import ctypes
import queue
import threading
from collections.abc import Callable
from typing import Any

import numpy as np


class _Interrupt(BaseException):
    """Raised inside a helper thread whose call overran (a ``BaseException``, so that a
    mechanism's own ``except Exception`` does not swallow it)."""



class _Worker:
    """A daemon thread running one call at a time; abandoned (and interrupted) after an overrun."""

    def __init__(self) -> None:
        self.tasks: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name="dpquant-audit-draw", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        try:
            while True:
                task = self.tasks.get()
                if task is None:
                    return
                fn, args, box, done = task
                try:
                    box.append(("ok", fn(*args)))
                except Exception as exc:  # noqa: BLE001 -- an exception is an output
                    box.append(("raised", exc))
                except _Interrupt:
                    return
                except BaseException as exc:  # noqa: BLE001 -- SystemExit & co: the caller's
                    box.append(("fatal", exc))
                    done.set()
                    return
                done.set()
        except BaseException:  # noqa: BLE001 -- the interrupt of an abandoned call
            return

    def abandon(self) -> None:
        ident = self.thread.ident
        if ident is not None and self.thread.is_alive():
            try:
                ctypes.pythonapi.PyThreadState_SetAsyncExc(
                    ctypes.c_ulong(ident), ctypes.py_object(_Interrupt)
                )
            except (AttributeError, OSError):  # pragma: no cover - not CPython
                pass
        self.tasks.put(None)


_local = threading.local()


def call_with_deadline(
    fn: Callable[..., Any], args: tuple[Any, ...], seconds: float | None
) -> tuple[str, Any]:
    """``fn(*args)`` in a helper thread: ``("ok", result)``, ``("raised", exception)`` or
    ``("timeout", None)`` when it did not return within ``seconds`` (the call is then
    interrupted where possible and abandoned; see the module docstring); ``seconds=None``: in
    this thread, without a deadline. A ``BaseException`` that is not an ``Exception``
    (``SystemExit``, ``KeyboardInterrupt``) is raised here."""
    if seconds is None:
        try:
            return "ok", fn(*args)
        except Exception as exc:  # noqa: BLE001 -- an exception is an output
            return "raised", exc
    worker = getattr(_local, "worker", None)
    if worker is None or not worker.thread.is_alive():
        worker = _local.worker = _Worker()
    box: list[tuple[str, Any]] = []
    done = threading.Event()
    worker.tasks.put((fn, args, box, done))
    if done.wait(seconds):
        if box[0][0] == "fatal":  # SystemExit, KeyboardInterrupt: as if raised here
            raise box[0][1]
        return box[0]
    _local.worker = None
    worker.abandon()
    return "timeout", None


def shown_data(data: Any) -> Any:
    """A data set as a message or a report names it: its records (up to 20 values), else how
    many."""
    return np.asarray(data).tolist() if np.size(data) <= 20 else f"{len(data)} records"
