"""``--scheduler ADDRESS``: run a command's tasks on a dask.distributed cluster.

``dpquant reproduce PAPER --scheduler ADDRESS`` and ``dpquant audit --all --scheduler ADDRESS``
connect a ``dask.distributed.Client`` to the scheduler at ``ADDRESS`` (``tcp://host:8786``), or
start a ``LocalCluster`` of one single-threaded worker process per CPU for ``local``, and send the
command's tasks to its executor. The results are the same as on one process: every task is
seeded by its own key, not by where or when it runs. Start a cluster with ``dask scheduler`` on
one machine and ``dask worker tcp://SCHEDULER:8786`` on each of the others (each with dpquant
installed); the README shows the commands.

An address is checked before dask sees it (issue 34), and every refusal is one line naming
``--scheduler`` (exit code 2), within a few seconds:

* its form: ``[SCHEME://]HOST:PORT`` (scheme ``tcp`` when none is given, ``[...]`` around an
  IPv6 host), a port in 1..65535, nothing after the port;
* its transport: ``tcp`` and ``ws``; ``tls`` and ``wss`` only when dask's TLS settings (or a
  security loader) are configured, since dpquant takes no certificates; never ``inproc`` (a
  scheduler inside the same process, which a command cannot reach) or ``ucx`` (a transport dask
  does not ship); dask's errors for these were not usage errors (exit 3);
* its reachability: the host resolved and a TCP connection opened within :data:`REACH_SECONDS`
  (a refused connection or an unknown host is said at once, instead of dask retrying until its
  connection timeout); then dask's own handshake, within :data:`CONNECT_SECONDS`.

dask's ``Client(address, timeout=...)`` does not bound its handshake with a peer that accepts the
connection but is no dask scheduler (a web server, a silent port): it waited 30 s and more. So
the client is made in a daemon thread that the command waits for at most
:data:`CONNECT_SECONDS`; any exception of that attempt (``WebSocketError``, ``CommClosedError``,
...) is the address's fault, not dpquant's, and is a usage error too.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from dpquant.options import UsageError, show

LOCAL = "local"
CONNECT_SECONDS = 5.0
"""How long dask may take to greet a scheduler that accepted the connection (exit code 2
after)."""
REACH_SECONDS = 3.0
"""How long resolving the host and opening a TCP connection to it may take (exit code 2
after)."""
SCHEMES = ("tcp", "ws", "tls", "wss")
"""The transports ``--scheduler`` takes (``tls`` and ``wss`` need dask's TLS settings)."""
SECURE = ("tls", "wss")
DEFAULT_SCHEME = "tcp"
_PORT = re.compile(r"[0-9]{1,5}")
_REFUSED = {
    "inproc": "an inproc:// scheduler lives inside one Python process, which a command cannot "
    "reach: use tcp://HOST:PORT, or 'local' for a cluster on this machine",
    "ucx": "the ucx:// transport needs UCX support that dask does not ship and dpquant does not "
    "set up: use tcp://HOST:PORT",
}


@dataclass(frozen=True)
class Address:
    """A scheduler's address, checked: ``scheme`` (one of :data:`SCHEMES`), ``host`` (a name or
    an IP address, without brackets) and ``port`` (1..65535)."""

    scheme: str
    host: str
    port: int

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


def _refuse(shown: str, why: str) -> UsageError:
    return UsageError(f"--scheduler {shown}: {why}")


def _host_and_port(rest: str, shown: str) -> tuple[str, str]:
    """``HOST:PORT`` or ``[IPV6]:PORT`` split into the host and the port's text."""
    if rest.startswith("["):
        host, bracket, after = rest[1:].partition("]")
        if not bracket or not after.startswith(":"):
            raise _refuse(shown, "an IPv6 host needs the form [HOST]:PORT, e.g. tcp://[::1]:8786")
        return host, after[1:]
    host, colon, port = rest.rpartition(":")
    if not colon:
        raise _refuse(shown, "the port is missing: give HOST:PORT, e.g. tcp://127.0.0.1:8786")
    if ":" in host:
        raise _refuse(shown, "an IPv6 host needs brackets: tcp://[HOST]:PORT")
    return host, port


def parse_address(text: str) -> Address:
    """``[SCHEME://]HOST:PORT`` as an :class:`Address`; a usage error naming ``--scheduler``
    and saying what is wrong otherwise (module docstring)."""
    shown = show(text)
    scheme, sep, rest = text.partition("://")
    scheme = scheme.lower() if sep else DEFAULT_SCHEME
    rest = rest if sep else text
    if scheme in _REFUSED:
        raise _refuse(shown, _REFUSED[scheme])
    if scheme not in SCHEMES:
        raise _refuse(
            shown, f"unknown scheme {scheme!r}: give tcp://HOST:PORT (or {', '.join(SCHEMES)})"
        )
    host, port_text = _host_and_port(rest, shown)
    if not host or any(c.isspace() or c in "/?#@" for c in host):
        raise _refuse(shown, f"{host!r} is not a host name or an IP address")
    port = int(port_text) if _PORT.fullmatch(port_text) else 0
    if not 1 <= port <= 65535:
        raise _refuse(shown, f"the port must be an integer in 1..65535, got {port_text!r}")
    return Address(scheme, host, port)


def _tls_configured() -> bool:
    """Whether dask has TLS settings (or a security loader) for a client."""
    import dask.config
    from distributed.security import Security

    if dask.config.get("distributed.client.security-loader", None):
        return True
    return Security().get_connection_args("client").get("ssl_context") is not None


def _resolve(address: Address, shown: str) -> list[Any]:
    """The socket addresses of the host, looked up in a thread that may take at most
    :data:`REACH_SECONDS` (a resolver can hang for much longer)."""
    found: list[Any] = []

    def look_up() -> None:
        try:
            found.append(socket.getaddrinfo(address.host, address.port, type=socket.SOCK_STREAM))
        except (OSError, UnicodeError, ValueError) as exc:  # gaierror, a bad IDNA name, a NUL
            found.append(exc)

    thread = threading.Thread(target=look_up, daemon=True)
    thread.start()
    thread.join(REACH_SECONDS)
    if not found:
        raise _refuse(shown, f"the host {address.host!r} was not resolved in {REACH_SECONDS:g} s")
    if isinstance(found[0], BaseException) or not found[0]:
        raise _refuse(shown, f"the host {address.host!r} cannot be resolved (unknown host)")
    return list(found[0])


def _reach(address: Address, shown: str) -> None:
    """Open (and close) a TCP connection to the scheduler within :data:`REACH_SECONDS`."""
    deadline = time.monotonic() + REACH_SECONDS
    last: OSError | None = None
    for family, kind, proto, _, sockaddr in _resolve(address, shown):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        with socket.socket(family, kind, proto) as sock:
            sock.settimeout(left)
            try:
                sock.connect(sockaddr)
                return
            except OSError as exc:
                last = exc
    if isinstance(last, ConnectionRefusedError):
        why = "nothing listens there (connection refused); is the scheduler running?"
    elif last is None or isinstance(last, TimeoutError):
        why = f"no answer within {REACH_SECONDS:g} s"
    else:
        why = f"cannot connect ({last.strerror or type(last).__name__})"
    raise _refuse(shown, why)


def check_address(text: Any) -> Address:
    """A scheduler's address checked in full (module docstring): its form, its transport and
    that something listens there."""
    if not isinstance(text, str) or not text.strip():
        raise UsageError(
            f"--scheduler needs an address (tcp://host:port) or 'local', got {show(text)}"
        )
    address = parse_address(text.strip())
    shown = show(text)
    if address.scheme in SECURE and not _tls_configured():
        raise _refuse(
            shown,
            f"{address.scheme}:// needs dask's TLS settings (distributed.comm.tls.* in the dask "
            "config), which are not set; dpquant takes no certificates",
        )
    _reach(address, shown)
    return address


def _connect(address: Address, shown: str) -> object:
    """A ``dask.distributed.Client`` of the scheduler at ``address``, made in a daemon thread
    waited for at most :data:`CONNECT_SECONDS` (module docstring)."""
    from dask.distributed import Client

    made: list[Any] = []

    def connect() -> None:
        try:
            made.append(Client(str(address), timeout=f"{CONNECT_SECONDS:g}s"))
        except Exception as exc:  # noqa: BLE001 -- whatever the peer made dask raise
            made.append(exc)

    thread = threading.Thread(target=connect, name="dpquant-scheduler-connect", daemon=True)
    thread.start()
    thread.join(CONNECT_SECONDS + 1.0)
    if not made:
        raise _refuse(
            shown,
            f"no dask scheduler answered at {address} within {CONNECT_SECONDS:g} s (something "
            "accepted the connection: is it a dask scheduler?)",
        )
    if isinstance(made[0], Exception):
        text = " ".join(str(made[0]).split())[:200]
        raise _refuse(
            shown,
            f"cannot connect to a dask scheduler at {address} ({type(made[0]).__name__}: {text})",
        )
    return made[0]


def _client(text: str) -> object:
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - an extra of the package
        raise UsageError(
            "--scheduler needs dask.distributed: pip install 'dpquant[distributed]'"
        ) from None
    if text.strip() == LOCAL:
        cluster = LocalCluster(
            n_workers=os.cpu_count() or 1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
        )
        return Client(cluster)
    return _connect(check_address(text), show(text))


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
    client = _client(address)
    try:
        threads = sum(client.nthreads().values()) or 1  # type: ignore[attr-defined]
        yield client.get_executor(), threads  # type: ignore[attr-defined]
    finally:
        cluster = getattr(client, "cluster", None)
        client.close()  # type: ignore[attr-defined]
        if cluster is not None:
            cluster.close()


__all__ = [
    "CONNECT_SECONDS",
    "LOCAL",
    "REACH_SECONDS",
    "SCHEMES",
    "Address",
    "check_address",
    "cluster_executor",
    "parse_address",
]
