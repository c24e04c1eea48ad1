"""Studies and the batch audit on a dask.distributed cluster (issue 21): the same files as on one
process, failures reported with the task's parameters, and the ``--scheduler`` option: a bad
address is one line naming it and exit code 2, within seconds (issue 34)."""

from __future__ import annotations

import importlib.util
import json
import socket
import time
from pathlib import Path

import pytest

from dpquant.cli import cluster, main
from dpquant.cli.batch_audit import audit_all
from dpquant.studies import aamand25 as A
from dpquant.studies import harness

# dask.distributed is imported by the fixtures that start a cluster, not when the module is
# collected (by every test worker; about a second)
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None,
    reason="needs dask.distributed (pip install -e '.[distributed]')",
)

AUDITED = ["randomized_response[eps=1]", "rr_wrong_flip"]


@pytest.fixture(scope="module")
def local_cluster():
    import dask.distributed as distributed

    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture(scope="module")
def executor(local_cluster):
    import dask.distributed as distributed

    client = distributed.Client(local_cluster)
    try:
        yield client.get_executor()
    finally:
        client.close()


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.csv"))}


def test_a_study_on_a_dask_cluster_writes_the_csv_files_of_one_process(executor, tmp_path):
    study = A.make_study(["fig1a", "fig4"], runs=4, seed=9, quick=True)
    local = A.run(study, workers=1, out=tmp_path / "one", plot=False)
    remote = A.run(study, workers=2, out=tmp_path / "dask", plot=False, executor=executor)
    assert [p.name for p in local] == [p.name for p in remote]
    one, dask = _files(tmp_path / "one"), _files(tmp_path / "dask")
    assert one == dask and len(one) == 4


def test_a_failing_task_on_the_cluster_is_reported_with_its_parameters(executor) -> None:
    cells = [A.Cell("fig4", "t", "pareto", 300, 64, "DpNaiveNBS", 1.0)]
    not_a_coin = {"DpNaiveNBS": lambda users, B, epsilon, rng, **kw: B + 5}
    for where in (executor, None):
        with pytest.raises(harness.TaskFailed) as info:
            A.run_cells(cells, runs=2, seed=0, executor=where, estimators=not_a_coin)
        message = str(info.value)
        assert "_run_task failed on _Task(cell=Cell(figure='fig4'" in message
        assert "n=300, B=64, mechanism='DpNaiveNBS', epsilon=1.0" in message
        assert "returned 69, not a coin in [1, 64]" in message


def test_audit_all_on_a_dask_cluster_gives_the_reports_of_one_process(executor, tmp_path):
    one = audit_all(tmp_path / "one", seed=3, samples=20_000, only=AUDITED)
    dask = audit_all(tmp_path / "dask", seed=3, samples=20_000, only=AUDITED, executor=executor)
    assert [r.mechanism for r in one] == [r.mechanism for r in dask] == AUDITED

    def stable(folder: Path) -> list[dict]:
        reports = json.loads((folder / "audit.json").read_text())
        for r in reports:
            r.pop("seconds", None)
        return reports

    assert stable(tmp_path / "one") == stable(tmp_path / "dask")
    assert [r.violation for r in dask] == [False, True]


def test_audit_all_refuses_a_bad_executor_and_unknown_names(tmp_path) -> None:
    with pytest.raises(ValueError, match="executor must be a concurrent.futures.Executor"):
        audit_all(tmp_path, executor="tcp://localhost:1")
    with pytest.raises(ValueError, match="only names mechanisms that are not audited"):
        audit_all(tmp_path, only=["no_such_mechanism"])


def test_audit_all_refuses_workers_out_of_range_or_with_an_executor(executor, tmp_path) -> None:
    """On a cluster each audit draws in its own task's process (issue 39): ``workers`` goes
    with audits made here only."""
    for bad in (0, True, 1025):
        with pytest.raises(ValueError, match=r"^workers must be an integer"):
            audit_all(tmp_path, workers=bad)
    with pytest.raises(ValueError, match=r"^workers must be None when an executor draws"):
        audit_all(tmp_path, executor=executor, workers=2)


def test_reproduce_with_scheduler_local_writes_the_files_of_one_process(tmp_path, capsys):
    argv = ["reproduce", "aamand25", "--figure", "fig4", "--quick", "--runs", "3", "-q"]
    assert main([*argv, "--out", str(tmp_path / "one")]) == 0
    assert main([*argv, "--out", str(tmp_path / "dask"), "--scheduler", "local"]) == 0
    assert _files(tmp_path / "one") == _files(tmp_path / "dask")
    capsys.readouterr()


def test_scheduler_usage_errors_exit_2(tmp_path, capsys, monkeypatch) -> None:
    argv = ["reproduce", "aamand25", "--figure", "fig4", "--quick", "-q", "--out", str(tmp_path)]
    assert main([*argv, "--scheduler", f"tcp://127.0.0.1:{_closed_port()}"]) == 2
    assert "--scheduler" in capsys.readouterr().err
    assert main(["audit", "tests/cli/cli_targets.py:rr", "--scheduler", "local"]) == 2
    assert "--scheduler only applies to --all" in capsys.readouterr().err


def _closed_port() -> int:
    """A local TCP port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


BAD_SCHEDULERS = [
    ("ucx://127.0.0.1:8786", "ucx"),
    ("tls://127.0.0.1:8786", "TLS settings"),
    ("wss://127.0.0.1:8786", "TLS settings"),
    ("inproc://", "inproc"),
    ("inproc://192.0.2.2/1/2", "inproc"),
    ("http://127.0.0.1:8786", "unknown scheme 'http'"),
    ("tcp://127.0.0.1:99999", "port must be an integer in 1..65535"),
    ("tcp://127.0.0.1:0", "port must be an integer in 1..65535"),
    ("tcp://127.0.0.1:-1", "port must be an integer in 1..65535"),
    ("tcp://127.0.0.1:80a", "port must be an integer in 1..65535"),
    ("tcp://127.0.0.1:", "port must be an integer in 1..65535"),
    ("tcp://127.0.0.1:8786/path", "port must be an integer in 1..65535"),
    ("tcp://:8786", "not a host name"),
    ("tcp://a b:8786", "not a host name"),
    ("tcp://", "port is missing"),
    ("garbage", "port is missing"),
    ("127.0.0.1", "port is missing"),
    ("tcp://::1:8786", "IPv6 host needs brackets"),
    ("tcp://[::1", "IPv6 host needs the form"),
    ("tcp://no-such-host.invalid:8786", "cannot be resolved"),
    ("", "needs an address"),
    ("   ", "needs an address"),
]


@pytest.mark.parametrize(("address", "why"), BAD_SCHEDULERS)
def test_a_bad_scheduler_address_is_one_line_naming_it_within_seconds(
    address, why, tmp_path, capsys
) -> None:
    start = time.monotonic()
    assert main(["audit", "--all", "-q", "--out", str(tmp_path), "--scheduler", address]) == 2
    assert time.monotonic() - start < 8
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dpquant: error: --scheduler"), captured.err
    assert why in lines[0], lines[0]


@pytest.mark.parametrize("scheme", ["tcp", "ws"])
def test_a_scheduler_that_refuses_connections_is_said_at_once(scheme, capsys) -> None:
    address = f"{scheme}://127.0.0.1:{_closed_port()}"
    start = time.monotonic()
    with pytest.raises(ValueError, match="--scheduler .*connection refused"):
        with cluster.cluster_executor(address):
            pass
    assert time.monotonic() - start < cluster.REACH_SECONDS + 1


def test_a_host_that_does_not_answer_is_given_up_after_the_reach_time(monkeypatch) -> None:
    monkeypatch.setattr(cluster, "REACH_SECONDS", 0.2)

    def hangs(*args, **kwargs):
        time.sleep(5)

    monkeypatch.setattr(cluster.socket, "getaddrinfo", hangs)
    start = time.monotonic()
    with pytest.raises(ValueError, match="--scheduler .*was not resolved in 0.2 s"):
        cluster.check_address("tcp://slow.example:8786")
    assert time.monotonic() - start < 2


def test_parse_address_reads_the_forms_dask_takes() -> None:
    assert str(cluster.parse_address("127.0.0.1:8786")) == "tcp://127.0.0.1:8786"
    assert str(cluster.parse_address("TCP://host:1")) == "tcp://host:1"
    assert str(cluster.parse_address("tcp://[::1]:8786")) == "tcp://[::1]:8786"
    assert cluster.parse_address("ws://h:65535") == cluster.Address("ws", "h", 65535)


def test_a_running_scheduler_is_reached_by_its_address(local_cluster) -> None:
    address = local_cluster.scheduler_address
    assert cluster.check_address(address) == cluster.parse_address(address)
    with cluster.cluster_executor(address) as (executor, threads):
        assert executor is not None and threads == 2
        assert executor.submit(sum, [1, 2]).result() == 3


def test_a_port_that_is_no_dask_scheduler_is_given_up_after_the_connect_time(monkeypatch) -> None:
    """Something accepts the connection but never greets: dask's own timeout did not end that."""
    monkeypatch.setattr(cluster, "CONNECT_SECONDS", 1.0)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        start = time.monotonic()
        with pytest.raises(ValueError, match="--scheduler .*no dask scheduler answered"):
            with cluster.cluster_executor(address):
                pass
        assert time.monotonic() - start < 4


def test_whatever_dask_raises_while_connecting_is_a_usage_error(
    monkeypatch, capsys, tmp_path
) -> None:
    import dask.distributed

    class PeerSpokeNonsense(Exception):
        pass

    def client(*args, **kwargs):
        raise PeerSpokeNonsense("Non-websocket response")

    monkeypatch.setattr(dask.distributed, "Client", client)
    monkeypatch.setattr(cluster, "_reach", lambda address, shown: None)
    argv = ["audit", "--all", "-q", "--out", str(tmp_path), "--scheduler", "ws://127.0.0.1:8786"]
    assert main(argv) == 2
    line = capsys.readouterr().err.strip()
    assert line.startswith("dpquant: error: --scheduler") and "PeerSpokeNonsense" in line
