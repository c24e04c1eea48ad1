"""What dpquant's pytest plugin adds to a user's test run that never audits (issue 35).

Run: ``.venv/bin/python benchmarks/bench_plugin_startup.py [--repeats N]``. In a temporary
project with one trivial test, prints the median wall time of ``pytest --collect-only -q`` with
the plugin loaded (as in any environment where dpquant is installed) and with it disabled
(``-p no:dpquant_audit``), run alternately so that both see the same machine, and their
difference; then the modules that loading the plugin imports (``python -X importtime``), the
heavy ones among them named (none is expected: numpy, scipy and mpmath load when ``dp_audit`` is
first used).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAVY = ("numpy", "scipy", "mpmath", "sympy", "matplotlib", "numba")
TRIVIAL_TEST = "def test_nothing():\n    assert True\n"


def collect_seconds(project: Path, disable: bool) -> float:
    cmd = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    if disable:
        cmd += ["-p", "no:dpquant_audit"]
    start = time.perf_counter()
    subprocess.run(cmd, cwd=project, check=True, capture_output=True)
    return time.perf_counter() - start


def plugin_imports() -> tuple[float, float, list[str]]:
    """Cumulative import times (ms) of the plugin and of ``dpquant`` itself (the plugin's own
    cost beside pytest's), and the top-level modules the plugin pulls in."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import dpquant.audit.pytest_plugin"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = [line.split("|") for line in done.stderr.splitlines() if line.startswith("import time:")]
    names = [r[2].strip() for r in rows[1:]]
    cumulative = {r[2].strip(): int(r[1]) / 1000.0 for r in rows[1:]}
    own = cumulative.get("dpquant", 0.0) + cumulative.get("dpquant.audit", 0.0)
    return cumulative["dpquant.audit.pytest_plugin"], own, sorted({n.split(".")[0] for n in names})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / "test_trivial.py").write_text(TRIVIAL_TEST, encoding="utf-8")
        collect_seconds(project, False)  # warm the file cache
        on, off = [], []
        for _ in range(args.repeats):
            on.append(collect_seconds(project, False))
            off.append(collect_seconds(project, True))
    m_on, m_off = statistics.median(on), statistics.median(off)
    print(f"pytest --collect-only, median of {args.repeats} (alternating):")
    print(f"  plugin loaded    {m_on * 1000:7.1f} ms")
    print(f"  plugin disabled  {m_off * 1000:7.1f} ms")
    print(f"  added            {(m_on - m_off) * 1000:7.1f} ms")
    ms, own, modules = plugin_imports()
    heavy = [m for m in modules if m in HEAVY]
    print(f"import dpquant.audit.pytest_plugin: {ms:.1f} ms cumulative (-X importtime), of")
    print(f"  which dpquant and dpquant.audit {own:.1f} ms (the rest: pytest)")
    print(f"  heavy modules imported: {', '.join(heavy) if heavy else 'none'}")


if __name__ == "__main__":
    main()
