"""Studies and the batch audit on a dask.distributed cluster (issue 21): the same files as on one
process, failures reported with the task's parameters, and the ``--scheduler`` option."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

distributed = pytest.importorskip("dask.distributed")

from audit.batch import audit_all  # noqa: E402
from dpquant.cli import cluster, main  # noqa: E402
from dpquant.studies import aamand25 as A  # noqa: E402
from dpquant.studies import harness  # noqa: E402

AUDITED = ["randomized_response[eps=1]", "rr_wrong_flip"]


@pytest.fixture(scope="module")
def executor():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = distributed.Client(cluster)
    try:
        yield client.get_executor()
    finally:
        client.close()
        cluster.close()


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


def test_reproduce_with_scheduler_local_writes_the_files_of_one_process(tmp_path, capsys):
    argv = ["reproduce", "aamand25", "--figure", "fig4", "--quick", "--runs", "3", "-q"]
    assert main([*argv, "--out", str(tmp_path / "one")]) == 0
    assert main([*argv, "--out", str(tmp_path / "dask"), "--scheduler", "local"]) == 0
    assert _files(tmp_path / "one") == _files(tmp_path / "dask")
    capsys.readouterr()


def test_scheduler_usage_errors_exit_2(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", "1s")
    argv = ["reproduce", "aamand25", "--figure", "fig4", "--quick", "-q", "--out", str(tmp_path)]
    assert main([*argv, "--scheduler", "tcp://127.0.0.1:9"]) == 2
    assert "cannot connect to a dask scheduler" in capsys.readouterr().err
    assert main(["audit", "tests/cli/cli_targets.py:rr", "--scheduler", "local"]) == 2
    assert "--scheduler only applies to --all" in capsys.readouterr().err
