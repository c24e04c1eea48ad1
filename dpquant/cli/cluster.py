"""``--scheduler ADDRESS``: run a command's tasks on a dask.distributed cluster.

``dpquant reproduce PAPER --scheduler ADDRESS`` and ``dpquant audit --all --scheduler ADDRESS``
connect a ``dask.distributed.Client`` to the scheduler at ``ADDRESS`` (``tcp://host:8786``), or
start a ``LocalCluster`` of one single-threaded worker process per CPU for ``local``, and send the
command's tasks to its executor. The results are the same as on one process: every task is
seeded by its own key, not by where or when it runs. Start a cluster with ``dask scheduler`` on
one machine and ``dask worker tcp://SCHEDULER:8786`` on each of the others (each with dpquant
installed); the README shows the commands.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from concurrent.futures import Executor

from dpquant.options import UsageError, show

LOCAL = "local"
CONNECT_TIMEOUT = "10s"
"""How long to try reaching a scheduler before the command gives up (exit code 2)."""


def _client(address: str) -> object:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - an extra of the package
        raise UsageError(
            "--scheduler needs dask.distributed: pip install 'dpquant[distributed]'"
        ) from None
    if address == LOCAL:
        cluster = LocalCluster(
            n_workers=os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
        return Client(cluster)
    try:
        return Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise UsageError(
            f"--scheduler: cannot connect to a dask scheduler at {show(address)} ({exc})"
        ) from None


@contextlib.contextmanager
def cluster_executor(address: str | None) -> Iterator[tuple[Executor | None, int | None]]:
    """(the cluster's executor, its number of worker threads) for ``address``, or (None, None)
    when ``address`` is None; the client (and a local cluster) closed on exit."""
    if address is None:
        yield None, None
        return
    if not isinstance(address, str) or not address.strip():
        raise UsageError(
            f"--scheduler needs an address (tcp://host:port) or 'local', got {show(address)}"
        )
    client = _client(address.strip())
    try:
        threads = sum(client.nthreads().values()) or 1  # type: ignore[attr-defined]
        yield client.get_executor(), threads  # type: ignore[attr-defined]
    finally:
        cluster = getattr(client, "cluster", None)
        client.close()  # type: ignore[attr-defined]
        if cluster is not None:
            cluster.close()


__all__ = ["CONNECT_TIMEOUT", "LOCAL", "cluster_executor"]
