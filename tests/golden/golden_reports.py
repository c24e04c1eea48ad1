"""Golden reports: what the auditor says at seed 0, kept so that a restructuring of the auditor
(issue 36) can show it changed nothing.

Two files in this folder, written by ``python tests/golden/golden_reports.py --write`` and
compared by ``--check`` (``make golden``; minutes):

* ``audit_all.json``: every report of ``dpquant audit --all`` at seed 0
  (:func:`dpquant.cli.batch_audit.audit_all`), as ``AuditReport.to_dict()`` gives it;
* ``classic_suite.json``: every run of the classic suite at ε = 0.5 and 1, seed 0
  (:func:`dpquant.audit.suites.classic.run.run_entry`).

What is compared leaves out what a clock decides: every key named ``seconds`` or ending in
``_seconds``, at any depth, and the notes' sentences that state a time. Everything else —
bounds, exact values, witnesses, events, counts, draws per stage, verdicts — must be identical.
``tests/golden/test_golden_reports.py`` checks a few cheap entries of each in ``make test``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
AUDIT_ALL = HERE / "audit_all.json"
CLASSIC_SUITE = HERE / "classic_suite.json"
SEED = 0
SUITE_EPSILONS = (0.5, 1.0)
_TIME = re.compile(r"\d+(\.\d+)? s\b")


def stable(x: Any) -> Any:
    """``x`` without what a clock decides (module docstring)."""
    if isinstance(x, dict):
        return {
            k: stable(v)
            for k, v in x.items()
            if not (k == "seconds" or str(k).endswith("_seconds"))
        }
    if isinstance(x, list):
        return [stable(v) for v in x if not (isinstance(v, str) and _TIME.search(v))]
    return x


def audit_all_reports(only: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The reports of ``dpquant audit --all`` at seed 0 (``only``: just these names)."""
    from dpquant.cli.batch_audit import audit_all

    with tempfile.TemporaryDirectory() as out:
        reports = audit_all(out, seed=SEED, only=only)
    return [stable(json.loads(json.dumps(r.to_dict()))) for r in reports]


def suite_runs(names: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The classic suite's runs at seed 0, ε = 0.5 and 1 (``names``: just these entries)."""
    from dpquant.audit.suites.classic import SUITE
    from dpquant.audit.suites.classic.run import run_entry

    entries = [e for e in SUITE if names is None or e.name in names]
    runs = [run_entry(e, eps, seed=SEED) for eps in SUITE_EPSILONS for e in entries]
    return [stable(json.loads(json.dumps(dataclasses.asdict(r)))) for r in runs]


def differences(kept: Any, now: Any, where: str = "") -> list[str]:
    """Where ``now`` differs from ``kept``, one line each (at most a few hundred)."""
    if isinstance(kept, dict) and isinstance(now, dict):
        out = [f"{where}.{k}: only in the golden file" for k in kept.keys() - now.keys()]
        out += [f"{where}.{k}: new" for k in now.keys() - kept.keys()]
        for k in kept.keys() & now.keys():
            out += differences(kept[k], now[k], f"{where}.{k}")
        return out[:300]
    if isinstance(kept, list) and isinstance(now, list):
        if len(kept) != len(now):
            return [f"{where}: {len(kept)} items in the golden file, {len(now)} now"]
        return [
            d
            for i, (a, b) in enumerate(zip(kept, now, strict=True))
            for d in differences(a, b, f"{where}[{i}]")
        ][:300]
    return [] if kept == now else [f"{where}: {kept!r:.120} in the golden file, {now!r:.120} now"]


def by_name(rows: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    """Rows by their name (``mechanism`` of a report; ``name@epsilon`` of a suite run)."""
    if key == "mechanism":
        return {r["mechanism"]: r for r in rows}
    return {f"{r['name']}@{r['epsilon']:g}": r for r in rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="write the golden files")
    mode.add_argument("--check", action="store_true", help="compare with the golden files")
    args = parser.parse_args(argv)
    now = {AUDIT_ALL: audit_all_reports(), CLASSIC_SUITE: suite_runs()}
    if args.write:
        for path, rows in now.items():
            path.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n", encoding="utf-8")
            print(f"written: {path} ({len(rows)} rows)")
        return 0
    found = []
    for path, rows in now.items():
        found += [f"{path.name}{d}" for d in differences(json.loads(path.read_text("utf-8")), rows)]
    for line in found:
        print(line)
    print("identical to the golden files" if not found else f"{len(found)} differences")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
