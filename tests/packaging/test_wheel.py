"""The wheel works outside the source tree (issue 22, item 3; decisions in notes/packaging.md).

``python -m build`` makes the sdist and, from it, the wheel; ``twine check`` passes; the wheel
is installed into a fresh virtual environment in a temporary folder, and from there (never the
checkout) ``dpquant --version``, ``claims``, ``mechanisms``, ``audit`` on a registry mechanism and
the pytest plugin on a small downstream test file all work.

One test, so that pytest-xdist never builds and installs twice. Cheap by design: the dependencies
are pinned to the versions of the environment running this test (``-c``), so pip takes them from
its cache or the local files it installed them from, and nothing is byte-compiled at install.
Deselect with ``-m "not packaging"``.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tarfile
import textwrap
import tomllib
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.packaging

ROOT = Path(__file__).resolve().parents[2]
LEDGER = ROOT / "notes" / "claims.toml"

SHIPPED_DATA = (
    "dpquant/reference/claims.toml",
    "dpquant/reference/py.typed",
    "dpquant/reference/data/README.md",
    "dpquant/reference/data/adult_age.csv",
    "dpquant/reference/data/adult_hours_per_week.csv",
    "dpquant/audit/py.typed",
    "dpquant/audit/suites/adapters/seedrand.c",
    "dpquant/py.typed",
    "dpquant/studies/imola25/figure_1_traced.csv",
)
"""Files besides the modules that the wheel must hold (the licence note of the data included)."""

NOT_SOURCE = (
    ".git",
    ".venv",
    "reports",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".*cache*",
    ".hypothesis",
)
"""What the copy of the checkout leaves out: version control, environments, outputs, caches."""

DOWNSTREAM_TEST = """
import pytest

from dpquant.reference import PrivacyClaim
from dpquant.reference.primitives import RandomizedResponse


@pytest.mark.audit
def test_randomized_response_is_private(dp_audit):
    dp_audit(RandomizedResponse(1.0)).assert_private()


@pytest.mark.audit
def test_a_function_that_releases_its_input_is_caught(dp_audit):
    def leaky(data, rng):
        return float(data[0]) + 0.01 * rng.random()

    report = dp_audit(leaky, claim=PrivacyClaim(1.0, adjacency="local"), domain=(0.0, 1.0))
    assert report.violation
"""

REGISTRY_TARGET = """
from dpquant.reference.registry import REGISTRY

MECH = next(e for e in REGISTRY if e.name == "randomized_response[eps=1]").build()
"""

USER_AUDIT_MODULE = """
\"\"\"The user's own audit log: a top-level module named audit, as in many projects.\"\"\"

def record(event):
    return f"logged {event}"
"""

USER_REFERENCE_PACKAGE = """
\"\"\"The user's own package named reference.\"\"\"

KIND = "the user's reference package"
"""

USER_TEST = """
import audit
import reference


def test_the_users_own_audit_and_reference_are_the_ones_imported():
    assert audit.record("x") == "logged x"
    assert reference.KIND == "the user's reference package"
"""

PROBE = """
import sys
import dpquant
from dpquant import audit, reference
from dpquant.reference import claims
from dpquant.reference.datasets import load_adult
from importlib import resources

print(reference.__file__, audit.__file__, dpquant.__file__, sep="\\n")
assert claims.default_ledger() == claims.PACKAGED_LEDGER, claims.default_ledger()
assert not claims.source_checkout()
assert len(load_adult("age")) == 48842
assert resources.files("dpquant.audit").joinpath("suites", "adapters", "seedrand.c").is_file()
print("SYS.PATH", *sys.path, sep="\\n")
"""


def _run(args: list[str | Path], cwd: Path, env: dict[str, str], timeout: float = 300) -> str:
    """Run a command; its stdout, or a failure showing both streams."""
    return _streams(args, cwd, env, timeout).stdout


def _streams(
    args: list[str | Path], cwd: Path, env: dict[str, str], timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run a command; both its streams, or a failure showing them."""
    done = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, (
        f"{' '.join(map(str, args))} exited {done.returncode}\n"
        f"--- stdout\n{done.stdout[-4000:]}\n--- stderr\n{done.stderr[-4000:]}"
    )
    return done


def _isolated_env(venv: Path) -> dict[str, str]:
    """This process's environment without what would let the checkout or its venv leak in."""
    drop = ("PYTHON", "PYTEST", "VIRTUAL_ENV", "HYPOTHESIS", "DPQUANT", "COV_CORE")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    return env


def _pins(path: Path) -> Path:
    """A constraints file pinning every distribution installed here but dpquant itself."""
    pins = sorted(
        {
            f"{d.metadata['Name']}=={d.version}"
            for d in importlib.metadata.distributions()
            if d.metadata["Name"] and d.metadata["Name"].lower() not in ("dpquant", "pip")
        }
    )
    path.write_text("\n".join(pins) + "\n", encoding="utf-8")
    return path


def test_the_wheel_installs_in_a_fresh_venv_and_works_outside_the_checkout(
    tmp_path: Path,
) -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    dist = tmp_path / "dist"
    outer = dict(os.environ)

    # build: the sdist from a copy of the checkout (a build writes its egg-info into the source
    # tree, and the checkout is shared with the tests running beside this one), then the wheel
    # from the sdist
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    _run([sys.executable, "-m", "build", "--outdir", dist, source], tmp_path, outer)
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    assert [w.name for w in wheels] == [f"dpquant-{version}-py3-none-any.whl"]
    assert [s.name for s in sdists] == [f"dpquant-{version}.tar.gz"]
    _run([sys.executable, "-m", "twine", "check", "--strict", *wheels, *sdists], tmp_path, outer)

    with zipfile.ZipFile(wheels[0]) as wheel:
        names = set(wheel.namelist())
        assert [f for f in SHIPPED_DATA if f not in names] == []
        top_level = {n.split("/")[0] for n in names}
        assert top_level == {"dpquant", f"dpquant-{version}.dist-info"}, top_level
        assert not any(n.startswith(("tests/", "notes/", "proofs_checks/")) for n in names)
        licences = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert len(licences) == 1 and b"MIT License" in wheel.read(licences[0])
        assert wheel.read("dpquant/reference/claims.toml") == LEDGER.read_bytes(), (
            "the wheel's ledger differs from notes/claims.toml"
        )
    with tarfile.open(sdists[0]) as sdist:
        top = f"dpquant-{version}/"
        members = set(sdist.getnames())
        for needed in ("notes/claims.toml", "CHANGELOG.md", "setup.py", "MANIFEST.in", "LICENSE"):
            assert top + needed in members, needed

    # a fresh venv in the temporary folder; pip of this environment installs into it
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], tmp_path, outer)
    python = venv / "bin" / "python"
    pytest_pin = f"pytest=={importlib.metadata.version('pytest')}"
    _run(
        [
            sys.executable, "-m", "pip", "--python", python, "install", "--quiet",
            "--no-compile", "--disable-pip-version-check", "-c", _pins(tmp_path / "pins.txt"),
            wheels[0], pytest_pin,
        ],
        tmp_path,
        outer,
        timeout=900,
    )  # fmt: skip

    work = tmp_path / "work"
    work.mkdir()
    env = _isolated_env(venv)
    dpquant = venv / "bin" / "dpquant"

    # the packages, their data and the ledger come from the venv, not from the checkout
    probe = _run([python, "-c", PROBE], work, env).splitlines()
    files, sys_path = probe[:3], probe[probe.index("SYS.PATH") + 1 :]
    assert all(Path(f).resolve().is_relative_to(venv.resolve()) for f in files), files
    assert not any(p and Path(p).resolve().is_relative_to(ROOT) for p in sys_path), sys_path

    assert _run([dpquant, "--version"], work, env).strip() == f"dpquant {version}"

    claims = _streams([dpquant, "claims"], work, env)
    assert "aamand25/theorem-1.1" in claims.stdout and "total:" in claims.stdout
    # outside a checkout the test ids cannot be checked: said once, on stderr
    assert claims.stderr.count("note: the test ids were not checked") == 1, claims.stderr
    assert len(claims.stderr.splitlines()) == 1, claims.stderr

    mechanisms = _streams([dpquant, "mechanisms"], work, env)
    assert "randomized_response[eps=1]" in mechanisms.stdout
    lines = mechanisms.stdout.splitlines()
    assert mechanisms.stderr == "" and len(lines) == len(set(lines)), mechanisms

    (work / "registry_target.py").write_text(REGISTRY_TARGET, encoding="utf-8")
    audited = _run(
        [dpquant, "audit", "registry_target.py:MECH", "--samples", "20000", "--seed", "1", "-q"],
        work,
        env,
    )
    assert "no violation found" in audited, audited

    # the pytest plugin (entry point pytest11) on a downstream project's test file
    (work / "test_downstream.py").write_text(textwrap.dedent(DOWNSTREAM_TEST), encoding="utf-8")
    ran = _run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "audit",
         "--audit-samples", "20000", "test_downstream.py"],
        work,
        env,
    )  # fmt: skip
    assert "2 passed" in ran, ran

    # a user project with its own top-level `audit.py` and `reference/` package: every pytest run
    # there loads dpquant's plugin, and neither the plugin nor the project's imports may collide
    project = tmp_path / "project"
    (project / "reference").mkdir(parents=True)
    (project / "audit.py").write_text(textwrap.dedent(USER_AUDIT_MODULE), encoding="utf-8")
    (project / "reference" / "__init__.py").write_text(
        textwrap.dedent(USER_REFERENCE_PACKAGE), encoding="utf-8"
    )
    (project / "test_own.py").write_text(textwrap.dedent(USER_TEST), encoding="utf-8")
    (project / "test_downstream.py").write_text(textwrap.dedent(DOWNSTREAM_TEST), encoding="utf-8")
    ran = _run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_own.py"], project, env
    )
    assert "1 passed" in ran, ran
    ran = _run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "audit",
         "--audit-samples", "20000", "."],
        project,
        env,
    )  # fmt: skip
    assert "2 passed" in ran and "1 deselected" in ran, ran
