"""Fuzz entries of the command line (issue 18, item 6): ``dpquant.cli.main(argv)`` in-process,
one option at a time replaced by the text of a hostile value (``nan``, ``inf``, ``-1``,
``1e400``, ``''``, ``abc``, ``10**12``, a folder where a file goes, a path under a file, ...).

Each call runs ``main`` with stdout and stderr captured. The outcome must be

* exit code 2 and exactly one line on stderr naming the option (the call raises that line as a
  ``ValueError``, which the harness checks names the parameter), or
* a correct run: exit 0 or 1 with a verdict (or, for a study or ``audit --all``, the run
  reached with the values parsed: those entries replace the long computation by a stand-in that
  records its arguments, after the CLI's own checks and the study's ``make_study``).

Anything else (exit 3, a traceback, several lines, exit 2 not naming the option) fails the check.
Relative paths land in a scratch folder (each call runs there), never in the checkout.

Issue 34 adds an attacker's ledgers (nested 100 000 deep, 8 GiB sparse, binary, a FIFO, ...),
``--scheduler`` addresses, ``reproduce PAPER`` names, and ``--input-values``/``--max-draws``
of a plain function, whose audit is a stand-in raising :class:`AuditReached` (exit 3, named on
stderr): accepted is what reached the audit with parsed values, however a report is printed.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from harness import Entry, Specimen

SPECIMENS: list[Specimen] = []

TARGETS = Path(__file__).resolve().parents[1] / "cli" / "cli_targets.py"
MECH = f"{TARGETS}:rr_mechanism"
SCRATCH = Path(tempfile.mkdtemp(prefix="dpquant-cli-fuzz-"))
atexit.register(shutil.rmtree, SCRATCH, ignore_errors=True)


def _scratch_files() -> dict[str, str]:
    """Hostile paths and hostile target scripts, made once in the scratch folder."""
    (SCRATCH / "a_folder").mkdir(exist_ok=True)
    (SCRATCH / "a_file").write_text("not a folder\n")
    scripts = {
        "exit0": "import sys\nsys.exit(0)\n",
        "exit3": "import sys\nsys.exit(3)\n",
        "systemexit": "raise SystemExit\n",
        "interrupt": "raise KeyboardInterrupt\n",
        "zerodiv": "1 / 0\n",
        "syntax": "def broken(:\n",
    }
    out = {}
    for name, source in scripts.items():
        path = SCRATCH / f"target_{name}.py"
        path.write_text(source)
        out[name] = str(path)
    return out


SCRIPTS = _scratch_files()

BAD_FILE_PATHS: tuple[str, ...] = (
    str(SCRATCH / "a_folder"),  # a folder where a file goes
    str(SCRATCH / "a_folder") + "/",
    str(SCRATCH / "a_file" / "under.json"),  # under a file
    str(SCRATCH / "a_file" / "deeper" / "under.json"),
    "/proc/dpquant_cli_fuzz.json",  # a folder nobody can write in
    "/",
    ".",
    "",
    "nul\0byte.json",
    "x" * 300 + ".json",  # a name longer than the system allows
    "new/deeper/report.json",  # valid: missing folders are created
    "/dev/null",  # valid: a character device
)
BAD_FOLDERS: tuple[str, ...] = (
    str(SCRATCH / "a_file"),  # a file where a folder goes
    str(SCRATCH / "a_file" / "sub"),
    "/proc/dpquant_cli_fuzz",
    "",
    "nul\0byte",
    "x" * 300,
    "out/new",  # valid
    str(SCRATCH / "a_folder"),  # valid
)
_GOOD_CLAIM = (
    '[[claim]]\nid = "imola25/lemma-9.9"\npaper = "imola25"\nkind = "lemma"\nnumber = "9.9"\n'
    'statement = "x"\nstatus = "todo"\n'
)


def _hostile_ledgers() -> tuple[str, ...]:
    """An attacker's ledger files (issue 34), made once in the scratch folder."""
    contents: dict[str, str | bytes] = {
        "deep.toml": "x = " + "[" * 100_000 + "]" * 100_000,
        "deep_tables.toml": "x = " + "{a = " * 100_000 + "1" + "}" * 100_000,
        "long_int.toml": "x = " + "9" * 5000, "random.toml": np.random.default_rng(34).bytes(4096),
        "image.png": b"\x89PNG\r\n\x1a\n" + bytes(64), "nul.toml": bytes(100), "empty.toml": "",
        "latin1.toml": _GOOD_CLAIM.replace("x", "\xe9").encode("latin-1"),
        "escape.toml": _GOOD_CLAIM.replace('"x"', '"\\u001b[2J"'),
        "huge_string.toml": _GOOD_CLAIM.replace('"x"', '"' + "x" * 100_000 + '"'),
        "not_tables.toml": "claim = [1, 2]\n",
    }  # fmt: skip
    for name, content in contents.items():
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        (SCRATCH / name).write_bytes(data)
    with (SCRATCH / "sparse.toml").open("wb") as fh:
        fh.write(_GOOD_CLAIM.encode())
        fh.truncate(2**33)  # 8 GiB, none of it on disk
    os.mkfifo(SCRATCH / "fifo.toml")
    named = (*contents, "sparse.toml", "fifo.toml")
    return (*(str(SCRATCH / name) for name in named), "/dev/zero")


BAD_LEDGERS: tuple[str, ...] = (
    str(SCRATCH / "a_folder"),
    str(SCRATCH / "a_file"),  # not TOML
    SCRIPTS["exit0"],
    str(SCRATCH / "a_file" / "claims.toml"),
    "",
    "nul\0byte",
    "x" * 300,
    *_hostile_ledgers(),
)
BAD_SCHEDULERS: tuple[str, ...] = (
    "ucx://127.0.0.1:8786", "tls://127.0.0.1:8786", "wss://127.0.0.1:8786", "inproc://",
    "inproc://192.0.2.2/1/2", "ws://127.0.0.1:1", "tcp://127.0.0.1:1",  # refuse connections
    "tcp://no-such-host.invalid:8786", "tcp://127.0.0.1:99999", "tcp://127.0.0.1:0",
    "tcp://127.0.0.1:-1", "tcp://", "tcp://:8786", "tcp://[::1", "tcp://::1:8786",
    "http://127.0.0.1:8786", "garbage", "   ", "",
)  # fmt: skip
PAPER_NAMES: tuple[str, ...] = ("imola2", "IMOLA25", "tzamos", "aamand25 ", "", "-", "x" * 5000)
BAD_TARGETS: tuple[str, ...] = (
    *(f"{path}:mech" for path in SCRIPTS.values()),
    f"{TARGETS}:not_a_mechanism",
    f"{TARGETS}:claim_raises",
    f"{TARGETS}:nan_claim",
    f"{TARGETS}:KEEP",
    f"{TARGETS}:no_such_attribute",
    f"{TARGETS}:RandomizedResponse",  # a class
    f"{TARGETS}:rr_fn",  # a function without --epsilon
    f"{SCRATCH / 'a_folder'}:x",
    "no_such_module_for_dpquant:fn",
    "dpquant.cli:",
    ":",
    "peer:nope",
    MECH,  # valid
)


@dataclass(frozen=True)
class CliResult:
    """What a run of ``main`` gave: its exit code, stdout and stderr."""

    code: int
    out: str
    err: str


def _text(value: Any) -> str:
    """A hostile Python value as the command line carries it: its text."""
    try:
        return str(value)
    except Exception:  # noqa: BLE001 -- e.g. an int with too many digits for str()
        return repr(type(value))


def _list_text(value: Any) -> str:
    """A list-valued option: sequences joined by commas (``[1, 2]`` -> ``1,2``)."""
    if isinstance(value, list | tuple | np.ndarray):
        return ",".join(_text(v) for v in value)
    return _text(value)


@contextlib.contextmanager
def _in_scratch() -> Iterator[None]:
    old = os.getcwd()
    os.chdir(SCRATCH)
    try:
        yield
    finally:
        os.chdir(old)


@contextlib.contextmanager
def _replaced(module: Any, name: str, stand_in: Any) -> Iterator[None]:
    old = getattr(module, name)
    setattr(module, name, stand_in)
    try:
        yield
    finally:
        setattr(module, name, old)


def run_cli(argv: Sequence[str], names: Sequence[str]) -> CliResult:
    """``main(argv)`` in the scratch folder; exit 2 with one line naming one of ``names`` is
    raised as that line (a ``ValueError``), anything else is returned for the check."""
    from dpquant.cli import main

    out, err = io.StringIO(), io.StringIO()
    with _in_scratch(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    result = CliResult(code, out.getvalue(), err.getvalue())
    lines = result.err.splitlines()
    if code == 2 and len(lines) == 1 and any(n in lines[0] for n in names):
        raise ValueError(lines[0])
    return result


def check_verdict(result: CliResult) -> None:
    """An accepted command ran: exit 0 or 1 with a verdict on stdout, nothing but progress on
    stderr."""
    assert isinstance(result, CliResult), f"expected a CLI result, got {result!r:.200}"
    assert result.code in (0, 1), f"exit {result.code}; stderr {result.err!r:.400}"
    assert "no violation found" in result.out or "VIOLATION" in result.out, result.out[:400]
    assert "Traceback" not in result.err, result.err[:400]


def check_reached(result: CliResult) -> None:
    """An accepted study command reached the (stand-in) study and exited 0."""
    assert isinstance(result, CliResult), f"expected a CLI result, got {result!r:.200}"
    assert result.code == 0, f"exit {result.code}; stderr {result.err!r:.400}"
    assert "Traceback" not in result.err, result.err[:400]


def _option(param: str) -> str:
    return "--" + param.replace("_", "-")


def _options(kwargs: dict[str, Any], lists: Sequence[str] = ()) -> list[str]:
    argv = []
    for param, value in kwargs.items():
        argv += [_option(param), (_list_text if param in lists else _text)(value)]
    return argv


def _aliases(params: Sequence[str]) -> dict[str, tuple[str, ...]]:
    return {p: (_option(p),) for p in params}


# -- dpquant audit MODULE:ATTR ---------------------------------------------------------------


def _audit(**kwargs: Any) -> CliResult:
    argv = ["audit", MECH, "-q", *_options(kwargs, ("domain",))]
    return run_cli(argv, [_option(p) for p in kwargs])


_AUDIT_KWARGS: dict[str, Any] = {
    "epsilon": 1.0,
    "delta": 0.0,
    "adjacency": "local",
    "domain": (0.0, 1.0),
    "samples": 10,
    "seed": 0,
    "alpha": 1e-6,
    "mode": "exact",
    "json": "report.json",
    "markdown": "report.md",
    "plot": "report.png",
}
_AUDIT_KINDS = {
    "epsilon": "real",
    "delta": "real",
    "adjacency": "choice",
    "domain": "pair",
    "samples": "size",
    "seed": "int",
    "alpha": "real",
    "mode": "choice",
    "json": "choice",
    "markdown": "choice",
    "plot": "choice",
    "timeout": "real",  # fuzzed alone: the valid call sets no time limit (timed draws are slow)
}


def _audit_entry_call(**kwargs: Any) -> CliResult:
    """``dpquant audit`` of the randomized response; the plot is a stand-in PNG (the fuzz would
    otherwise draw one with matplotlib per accepted call)."""
    import dpquant.audit.report.render

    def no_png(report: Any, path: Any) -> Path:
        Path(path).write_bytes(b"\x89PNG\r\n\x1a\n")
        return Path(path)

    with _replaced(dpquant.audit.report.render, "plot_report", no_png):
        return _audit(**kwargs)


# -- dpquant audit TARGET --------------------------------------------------------------------


def _audit_target(target: Any) -> CliResult:
    spec = _text(target)
    names = ["target", spec.rpartition(":")[0] or spec]
    return run_cli(["audit", spec, "-q", "--mode", "exact", "--samples", "10"], names)


# -- dpquant audit FUNCTION --input-values --max-draws -------------------------------------------


class AuditReached(Exception):  # noqa: N818 -- a test outcome, not an error
    """Raised by the stand-in audit: the options were parsed and the audit reached."""


def _audit_function(**kwargs: Any) -> CliResult:
    """``dpquant audit`` of a plain function with its options; the audit is a stand-in that
    checks the parsed values it receives and raises :class:`AuditReached`."""
    from dpquant import audit

    def stand_in(mech: Any, **kw: Any) -> Any:
        budget = kw.get("max_draws")
        assert budget is None or (isinstance(budget, int) and budget >= 100_000), budget
        raise AuditReached("the audit was reached")

    argv = ["audit", f"{TARGETS}:rr_fn", "-q", "--epsilon", "1", "--adjacency", "local"]
    argv += ["--domain=0,1", *(f"{_option(p)}={_list_text(v)}" for p, v in kwargs.items())]
    with _replaced(audit, "audit_mechanism", stand_in):
        return run_cli(argv, [_option(p) for p in kwargs])


def check_audit_reached(result: CliResult) -> None:
    """An accepted call reached the stand-in audit (exit 3 naming :class:`AuditReached`)."""
    assert isinstance(result, CliResult), f"expected a CLI result, got {result!r:.200}"
    assert result.code == 3 and "AuditReached" in result.err, (result.code, result.err[:400])


# -- dpquant audit --all ---------------------------------------------------------------------


class _Report:
    """A stand-in audit report with the outcome ``audit --all`` expects of each kind."""

    def __init__(self, name: str, bad: bool) -> None:
        self.mechanism, self.violation, self.sampler_conforms = name, bad, None
        self.passed = not bad  # an audit that found nothing and could look
        self.epsilon_lower_bound, self.epsilon_exact, self.seconds = 0.5, None, 0.0

    @property
    def verdict(self) -> str:
        return "VIOLATION" if self.violation else "no violation found"


def _audit_all(**kwargs: Any) -> CliResult:
    import dpquant.cli.batch_audit
    from dpquant.audit.suites.catalogue import CATALOGUE, CONTROLS
    from dpquant.reference.registry import REGISTRY

    def stand_in(
        out: Any, seed: int = 0, samples: Any = None, progress: Any = None, executor: Any = None
    ) -> list:
        assert isinstance(seed, int) and (samples is None or isinstance(samples, int))
        bad = {e.name for e in CATALOGUE}
        return [_Report(e.name, e.name in bad) for e in (*REGISTRY, *CONTROLS, *CATALOGUE)]

    with _replaced(dpquant.cli.batch_audit, "audit_all", stand_in):
        result = run_cli(["audit", "--all", "-q", *_options(kwargs)], [_option(p) for p in kwargs])
    return result


def _audit_all_scheduler(scheduler: Any) -> CliResult:
    """``dpquant audit --all --scheduler ADDRESS`` (the batch audit a stand-in)."""
    import dpquant.cli.batch_audit

    def stand_in(out: Any, **kw: Any) -> list:
        raise AssertionError("an address of the hostile pool was accepted")

    argv = ["audit", "--all", "-q", "--out", "all", f"--scheduler={_text(scheduler)}"]
    with _replaced(dpquant.cli.batch_audit, "audit_all", stand_in):
        return run_cli(argv, ["--scheduler"])


# -- dpquant validate ------------------------------------------------------------------------


class _Validation:
    passed = True

    def summary(self) -> str:
        return "stand-in validation: PASSED"

    def to_dict(self) -> dict[str, Any]:
        return {"passed": True}

    def to_markdown(self) -> str:
        return "## stand-in\n"


def _validate(**kwargs: Any) -> CliResult:
    import dpquant.audit.tools.equivalence

    def stand_in(reference: Any, candidate: Any, **kw: Any) -> _Validation:
        assert isinstance(kw["samples"], int) and isinstance(kw["seed"], int)
        return _Validation()

    argv = ["validate", f"{TARGETS}:em_median", f"{TARGETS}:em_median", "--no-audit"]
    argv += _options(kwargs, ("sizes",))
    with _replaced(dpquant.audit.tools.equivalence, "validate", stand_in):
        return run_cli(argv, [_option(p) for p in kwargs])


def _check_validated(result: CliResult) -> None:
    check_reached(result)
    assert "PASSED" in result.out, result.out[:400]


# -- dpquant reproduce PAPER -----------------------------------------------------------------


def _reproduce(paper: str, lists: Sequence[str]) -> Callable[..., CliResult]:
    def call(**kwargs: Any) -> CliResult:
        from dpquant.cli.reproduce import STUDIES

        study, _ = STUDIES[paper]

        def stand_in(config: Any, **kw: Any) -> list[Path]:
            assert isinstance(config, study.Study) and isinstance(config.seed, int)
            assert isinstance(config.runs, int) and isinstance(kw["out"], Path)
            return []

        argv = ["reproduce", paper, "-q", *_options(kwargs, lists)]
        with _replaced(study, "run", stand_in):
            return run_cli(argv, [_option(p) for p in kwargs])

    return call


_COMMON = {"runs": 3, "seed": 0, "workers": 1, "out": "out"}
_COMMON_KINDS = {"runs": "int", "seed": "int", "workers": "int", "out": "choice"}
_COMMON_EXTRA: dict[str, Sequence[Any]] = {"out": BAD_FOLDERS, "runs": ("10**12", "1e3")}


def _study_entry(
    paper: str,
    kwargs: dict[str, Any],
    kinds: dict[str, str],
    extra: dict[str, Sequence[Any]],
    lists: Sequence[str] = (),
) -> Entry:
    kwargs, kinds = {**_COMMON, **kwargs}, {**_COMMON_KINDS, **kinds}
    return Entry(
        f"cli reproduce {paper}",
        _reproduce(paper, lists),
        kwargs,
        kinds,
        check=check_reached,
        aliases=_aliases(list(kinds)),
        extra={**_COMMON_EXTRA, **extra},
    )


_MISUSE_ENTRIES: list[Entry] = [
    Entry("cli audit function --input-values --max-draws", _audit_function,
          {"input_values": (0.0, 1.0), "max_draws": 100_000},
          {"input_values": "data", "max_draws": "size"}, check=check_audit_reached,
          aliases=_aliases(["input_values", "max_draws"]),
          extra={"input_values": ("0,0", "-0,0", "0,1,0", "1,,0", "0_1", "\u0660", "nan"),
                 "max_draws": ("1e6", "1000000.0", "10**400", "1_000_000", "true", "99999")}),
    # the valid calls below never run: the sweep replaces them by each hostile value
    Entry("cli audit --all --scheduler", _audit_all_scheduler, {"scheduler": "local"},
          {"scheduler": "choice"}, check=check_reached, aliases=_aliases(["scheduler"]),
          extra={"scheduler": BAD_SCHEDULERS}),
    Entry("cli reproduce PAPER",
          lambda paper: run_cli(["reproduce", _text(paper), "--quick"], ["PAPER"]),
          {"paper": "aamand25"}, {"paper": "choice"}, check=check_reached,
          aliases={"paper": ("PAPER",)}, extra={"paper": PAPER_NAMES}),
]  # fmt: skip
"""Issue 34's entries (module docstring)."""

ENTRIES: list[Entry] = [
    Entry(
        "cli audit MODULE:ATTR",
        _audit_entry_call,
        _AUDIT_KWARGS,
        _AUDIT_KINDS,
        check=check_verdict,
        aliases=_aliases(list(_AUDIT_KINDS)),
        extra={
            "epsilon": ("nan", "inf", "-1", "1e400", "1e-400", "", "abc", "10**12", "0.5"),
            "delta": ("nan", "-0", "1e-400", "0.999", "1e400"),
            "alpha": ("1e-400", "0.5", "1"),
            "samples": ("10**12", "1e6", "9", "10", "1000000000000"),
            "seed": ("10**12", "4294967295", "4294967296", str(2**128), "-0"),
            "mode": ("auto", "blackbox", "exact"),
            "adjacency": ("local",),
            "domain": ("0,1", "-inf,inf", "0,1e400", "nan,nan"),
            "json": BAD_FILE_PATHS,
            "markdown": BAD_FILE_PATHS,
            "plot": (*BAD_FILE_PATHS, "plot.xyz", "plot", "plot.pdf"),
            "timeout": ("1e400", "1e9", "0.5"),
        },
    ),
    Entry(
        "cli audit target",
        _audit_target,
        {"target": MECH},
        {"target": "choice"},
        check=check_verdict,
        aliases={"target": tuple(t.rpartition(":")[0] for t in BAD_TARGETS)},
        extra={"target": BAD_TARGETS},
    ),
    Entry(
        "cli audit --all",
        _audit_all,
        {"samples": 10, "seed": 0, "out": "all"},
        {"samples": "size", "seed": "int", "out": "choice"},
        check=check_reached,
        aliases=_aliases(["samples", "seed", "out"]),
        extra={"out": BAD_FOLDERS, "samples": ("10**12", "1e6")},
    ),
    Entry(
        "cli validate",
        _validate,
        {
            "samples": 100,
            "alpha": 1e-6,
            "beta": 0.05,
            "seed": 0,
            "sizes": (1, 2),
            "audit_samples": 10,
            "json": "v.json",
            "markdown": "v.md",
        },
        {
            "samples": "size",
            "alpha": "real",
            "beta": "real",
            "seed": "int",
            "sizes": "data",
            "audit_samples": "size",
            "json": "choice",
            "markdown": "choice",
        },
        check=_check_validated,
        aliases=_aliases(
            ["samples", "alpha", "beta", "seed", "sizes", "audit_samples", "json", "markdown"]
        ),
        extra={
            "json": BAD_FILE_PATHS,
            "markdown": BAD_FILE_PATHS,
            "sizes": ("10**12", "1,2,3", "0"),
        },
    ),
    Entry(
        "cli claims",
        lambda ledger: run_cli(["claims", "--ledger", _text(ledger)], ["--ledger"]),
        {"ledger": str(Path(__file__).resolve().parents[2] / "notes" / "claims.toml")},
        {"ledger": "choice"},
        check=check_reached,
        aliases=_aliases(["ledger"]),
        extra={"ledger": BAD_LEDGERS},
    ),
    *_MISUSE_ENTRIES,
    _study_entry(
        "aamand25",
        {"figure": "fig1a"},
        {"figure": "choice"},
        {"figure": ("fig1a", "fig5")},
    ),
    _study_entry(
        "imola25",
        {
            "m": (10, 20),
            "panels": "a",
            "duplication": 30,
            "jointexp_runs": 0,
            "jointexp_m": (10,),
        },
        {
            "m": "data",
            "panels": "choice",
            "duplication": "int",
            "jointexp_runs": "int",
            "jointexp_m": "data",
        },
        {"panels": ("a,c", "b", "e"), "m": ("10**12", "250", "251")},
        lists=("m", "jointexp_m"),
    ),
    _study_entry(
        "fukuchi19",
        {
            "settings": "main",
            "other_runs": 2,
            "min_log2n": 10,
            "max_log2n": 11,
            "data_models": "fixed",
            "schedules": "lower_alpha",
            "laplace": "none",
            "exact_max_levels": 0,
        },
        {
            "settings": "choice",
            "other_runs": "int",
            "min_log2n": "int",
            "max_log2n": "int",
            "data_models": "choice",
            "schedules": "choice",
            "laplace": "choice",
            "exact_max_levels": "int",
        },
        {
            "settings": ("all",),
            "data_models": ("iid", "fixed,iid"),
            "schedules": ("unknown_alpha",),
            "laplace": ("main", "all"),
        },
    ),
    _study_entry(
        "tzamos20",
        {
            "regimes": "quick",
            "distributions": "uniform",
            "n_values": (8, 16),
            "c": "5/4",
            "c_rule": "constant",
        },
        {
            "regimes": "choice",
            "distributions": "choice",
            "n_values": "data",
            "c": "real",
            "c_rule": "choice",
        },
        {
            "regimes": ("local", "statistical,global"),
            "distributions": ("pareto",),
            "c_rule": ("log",),
            "c": ("1e1000000000", "1/0", "x/y", "5/4"),
            "n_values": ("10**12", "2"),
        },
        lists=("n_values",),
    ),
]
