"""The ``dpquant`` command line.

* ``dpquant audit MODULE:ATTR`` (or ``path/to/file.py:ATTR``, or ``peer:NAME`` for a library
  adapter of :mod:`audit.adapters`) audits one mechanism, or one function
  ``fn(data, rng) -> output`` with the claim given by ``--epsilon/--delta/--adjacency``;
* ``dpquant audit --all`` audits the reference registry, the controls and the known-bad catalogue
  and writes ``reports/audit.md`` (the body of ``make audit``);
* ``dpquant claims`` prints the claims ledger; ``dpquant mechanisms`` lists what ``--all`` audits;
* ``dpquant validate REFERENCE CANDIDATE`` tests that a candidate implementation draws from the
  reference mechanism's law on a battery of data sets, and audits it;
* ``dpquant reproduce aamand25 [--figure NAME]`` and ``dpquant reproduce imola25 [--m LIST]
  [--panels LIST] [--duplication K] ...`` re-run a paper's experiments (CSV and PNG).

The CLI may import :mod:`audit`; the library modules of :mod:`reference` never do.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import importlib.util
import json
import math
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from reference.claims import format_ledger, ledger_problems, load_ledger
from reference.core import ADJACENCIES, PrivacyClaim
from reference.experiments.aamand25 import FIGURES as AAMAND25_FIGURES
from reference.registry import REGISTRY

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
MODES = ("auto", "exact", "blackbox")
DEFAULT_ALPHA = 1e-6
DEFAULT_OUT = "reports"
_SINGLE_ONLY = ("epsilon", "delta", "adjacency", "domain", "alpha", "json", "markdown", "plot")


# --------------------------------------------------------------------------------------------
# dpquant claims / dpquant mechanisms
# --------------------------------------------------------------------------------------------


def _claims(args: argparse.Namespace) -> int:
    claims = load_ledger(args.ledger)
    print(format_ledger(claims))
    problems = ledger_problems(claims)
    for p in problems:
        print(f"problem: {p}", file=sys.stderr)
    return EXIT_FAILED if problems else EXIT_OK


def _targets() -> list[tuple[str, str, str]]:
    """(name, kind, description) of everything ``dpquant audit --all`` audits, in its order."""
    from audit.catalogue import CATALOGUE, CONTROLS

    out = [(e.name, "reference", e.description) for e in REGISTRY]
    out += [(e.name, "control", e.description) for e in CONTROLS]
    out += [(e.name, "known-bad", e.description) for e in CATALOGUE]
    return out


def _mechanisms(args: argparse.Namespace) -> int:
    for name, kind, description in _targets():
        print(f"{name:<48} {kind:<10} {description}")
    return EXIT_OK


# --------------------------------------------------------------------------------------------
# dpquant audit MODULE:ATTR
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClaimOverride:
    """``mechanism`` audited against another ``claim``: everything else is the original's.

    ``sample`` and ``domain`` delegate; optional attributes (``exact``, ``input_values``,
    ``name``) are looked up on the original, so the adapter has them exactly when it does.
    """

    mechanism: Any
    claim: PrivacyClaim

    @property
    def domain(self) -> tuple[float, float]:
        return self.mechanism.domain

    def sample(self, data: Any, size: int, rng: Any) -> Any:
        return self.mechanism.sample(data, size, rng)

    def __getattr__(self, attr: str) -> Any:
        # only called for attributes not found normally; never for private names or the fields
        # (unpickling looks some up before the fields exist)
        if attr.startswith("_") or attr in ("mechanism", "claim"):
            raise AttributeError(attr)
        return getattr(self.mechanism, attr)


def is_mechanism(obj: Any) -> bool:
    """True for an object with a ``sample`` method and a ``claim`` (a configured mechanism)."""
    return (
        not isinstance(obj, type)
        and callable(getattr(obj, "sample", None))
        and getattr(obj, "claim", None) is not None
    )


def parse_domain(text: str) -> tuple[float, float]:
    """``"lo,hi"`` (``inf`` and ``-inf`` allowed) as a pair of floats."""
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"--domain must be 'lo,hi', got {text!r}")
    try:
        lo, hi = float(parts[0]), float(parts[1])
    except ValueError:
        raise ValueError(f"--domain must be two numbers 'lo,hi', got {text!r}") from None
    if math.isnan(lo) or math.isnan(hi) or not lo < hi:
        raise ValueError(f"--domain must have lo < hi, got {text!r}")
    return lo, hi


def _looks_like_file(module: str) -> bool:
    return module.endswith(".py") or "/" in module or (os.sep != "/" and os.sep in module)


def _load_file(path: Path) -> Any:
    if not path.is_file():
        raise ValueError(f"no such file: {path}")
    slug = re.sub(r"\W", "_", path.stem)
    name = f"dpquant_target_{slug}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)  # as `python file.py` would: its sibling modules import
    sys.modules[name] = module  # dataclasses and pickle look the module up by name
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        raise ValueError(f"loading {path} failed: {type(exc).__name__}: {exc}") from exc
    return module


def load_target(spec: str) -> Any:
    """The object named by ``MODULE:ATTR`` or ``path/to/file.py:ATTR`` (ATTR may be dotted)."""
    module_name, sep, attr = str(spec).rpartition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"target must be MODULE:ATTR or path/to/file.py:ATTR, got {spec!r}")
    if _looks_like_file(module_name):
        obj = _load_file(Path(module_name))
    else:
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.insert(0, os.getcwd())  # `dpquant audit mymodule:fn` from the project folder
        try:
            obj = importlib.import_module(module_name)
        except Exception as exc:
            raise ValueError(
                f"cannot import module {module_name!r}: {type(exc).__name__}: {exc}"
            ) from exc
    where = module_name
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ValueError(f"{where!r} has no attribute {part!r}") from None
        where = f"{where}.{part}" if where != module_name else f"{module_name}:{part}"
    return obj


def build_mechanism(obj: Any, args: argparse.Namespace, label: str) -> tuple[Any, str]:
    """The mechanism to audit and its name: ``obj`` itself (its claim overridden by the options
    given), or a plain function wrapped with :func:`audit.from_callable`."""
    from audit import from_callable

    if isinstance(obj, type):
        raise ValueError(
            f"{label} is a class; point to a configured mechanism instance or to a function "
            "fn(data, rng) -> output"
        )
    if is_mechanism(obj):
        claim = obj.claim
        if not isinstance(claim, PrivacyClaim):
            raise ValueError(f"{label}.claim must be a reference.PrivacyClaim, got {claim!r}")
        name = getattr(obj, "name", None)
        name = name if isinstance(name, str) and name else label
        if args.epsilon is None and args.delta is None and args.adjacency is None:
            return obj, name
        claim = PrivacyClaim(
            claim.epsilon if args.epsilon is None else args.epsilon,
            claim.delta if args.delta is None else args.delta,
            claim.adjacency if args.adjacency is None else args.adjacency,
        )
        return ClaimOverride(obj, claim), name
    if callable(obj):
        if args.epsilon is None:
            raise ValueError(
                f"{label} is a plain function, which carries no privacy claim: pass --epsilon "
                "(and --delta, --adjacency as needed)"
            )
        claim = PrivacyClaim(
            args.epsilon,
            0.0 if args.delta is None else args.delta,
            "replace_one" if args.adjacency is None else args.adjacency,
        )
        domain = args.domain if args.domain is not None else (-math.inf, math.inf)
        return from_callable(obj, claim, domain, name=label), label
    raise ValueError(
        f"{label} is neither a mechanism (with sample() and claim) nor a function "
        f"fn(data, rng) -> output: got {type(obj).__name__}"
    )


def passes(report: Any) -> bool:
    """An audit passes when it found no violation and the sampler matches its exact law."""
    return not report.violation and report.sampler_conforms is not False


def _stderr_progress(quiet: bool) -> Callable[[str], None] | None:
    if quiet:
        return None
    return lambda line: print(f"dpquant: {line}", file=sys.stderr, flush=True)


def _witness_text(witness: dict[str, Any] | None) -> str:
    from audit.report import witness_line

    try:
        text = witness_line(witness)
    except (KeyError, TypeError, ValueError):
        text = json.dumps(witness, default=str)
    source = (witness or {}).get("source")
    return f"{text} [{source}]" if source else text


def write_report_files(report: Any, json_path: str | None, markdown_path: str | None) -> None:
    """Write a report's ``to_dict()`` as JSON and its ``to_markdown()``, where paths are given."""
    if json_path:
        path = Path(json_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report.to_dict(), indent=1, default=str) + "\n")
        print(f"JSON written to {path}")
    if markdown_path:
        path = Path(markdown_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(report.to_markdown())
        print(f"Markdown written to {path}")


def _audit_one(args: argparse.Namespace) -> int:
    from audit import audit_mechanism

    if args.target.startswith("peer:"):
        obj, _ = resolve_candidate(args.target)
    else:
        obj = load_target(args.target)
    mech, name = build_mechanism(obj, args, args.target)
    report = audit_mechanism(
        mech,
        domain=args.domain,
        samples=args.samples,
        alpha=DEFAULT_ALPHA if args.alpha is None else args.alpha,
        seed=args.seed,
        mode=args.mode,
        name=name,
        progress=_stderr_progress(args.quiet),
    )
    print(report.summary())
    print(f"witness: {_witness_text(report.witness)}")
    if report.sampler_conforms is False:
        print("the sampler does not match its exact law (see the conformance section)")
    write_report_files(report, args.json, args.markdown)
    if args.plot:
        written = report.plot(args.plot)
        if written is None:
            print("dpquant: warning: matplotlib is not installed; no plot", file=sys.stderr)
        else:
            print(f"plot written to {written}")
    return EXIT_OK if passes(report) else EXIT_FAILED


# --------------------------------------------------------------------------------------------
# dpquant audit --all
# --------------------------------------------------------------------------------------------


def _all_progress(
    total: int, quiet: bool
) -> tuple[Callable[[str], None] | None, Callable[[], None]]:
    """A progress callback for ``audit_all`` and a function closing it: a tqdm bar over the
    mechanisms when tqdm is installed and stderr is a terminal, else one line per mechanism."""
    if quiet:
        return None, lambda: None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dev dependency
        tqdm = None
    if tqdm is None or not sys.stderr.isatty():
        return _stderr_progress(False), lambda: None
    bar = tqdm(total=total, unit="mech", file=sys.stderr, dynamic_ncols=True)
    seen: list[str] = []

    def progress(line: str) -> None:
        if seen:
            bar.update(1)
        seen.append(line)
        bar.set_description(line.split("] ", 1)[-1][:40])

    def close() -> None:
        if seen:
            bar.update(1)
        bar.close()

    return progress, close


def _fmt(x: float | None) -> str:
    if x is None:
        return "n/a"
    return "inf" if math.isinf(x) else f"{x:.4f}"


def _audit_all(args: argparse.Namespace) -> int:
    from audit.report import audit_all

    out = Path(args.out or DEFAULT_OUT)
    targets = _targets()
    progress, close = _all_progress(len(targets), args.quiet)
    try:
        reports = audit_all(out, seed=args.seed, samples=args.samples, progress=progress)
    finally:
        close()
    by_name = {r.mechanism: r for r in reports}
    unexpected = []
    print(f"{'mechanism':<48} {'kind':<10} {'verdict':<20} {'eps_lb':>8} {'exact eps':>9} seconds")
    for name, kind, _ in targets:
        r = by_name.get(name)
        if r is None:
            unexpected.append(f"{name} ({kind}): not audited")
            continue
        ok = r.violation if kind == "known-bad" else passes(r)
        print(
            f"{name:<48} {kind:<10} {r.verdict():<20} {_fmt(r.epsilon_lower_bound):>8} "
            f"{_fmt(r.epsilon_exact):>9} {r.seconds:7.1f}{'' if ok else '  UNEXPECTED'}"
        )
        if not ok:
            wanted = "a violation" if kind == "known-bad" else "no violation"
            unexpected.append(f"{name} ({kind}): expected {wanted}, got {r.verdict()}")
    print(
        f"report written to {out / 'audit.md'} and {out / 'audit.json'}, plots in {out / 'audit'}"
    )
    for line in unexpected:
        print(f"unexpected: {line}")
    return EXIT_FAILED if unexpected else EXIT_OK


def _audit(args: argparse.Namespace) -> int:
    if args.all:
        if args.target is not None:
            raise ValueError("pass either a target MODULE:ATTR or --all, not both")
        given = [f"--{o}" for o in _SINGLE_ONLY if getattr(args, o) is not None]
        if args.mode != "auto":
            given.append("--mode")
        if given:
            raise ValueError(f"not used with --all (they apply to one target): {', '.join(given)}")
        return _audit_all(args)
    if args.target is None:
        raise ValueError("pass a target MODULE:ATTR (or path/to/file.py:ATTR), or --all")
    if args.out is not None:
        raise ValueError("--out only applies to --all (use --json, --markdown, --plot)")
    return _audit_one(args)


# --------------------------------------------------------------------------------------------
# dpquant reproduce aamand25 | imola25
# --------------------------------------------------------------------------------------------


def _reproduce_progress(quiet: bool) -> Callable[[str, int, int], None] | None:
    """One stderr line per figure each time another tenth of its runs is done."""
    if quiet:
        return None
    shown: dict[str, int] = {}

    def progress(figure: str, done: int, total: int) -> None:
        tenth = 10 * done // max(total, 1)
        if tenth > shown.get(figure, -1):
            shown[figure] = tenth
            print(f"dpquant: {figure}: {done}/{total} runs", file=sys.stderr, flush=True)

    return progress


_IMOLA25_ONLY = ("m", "panels", "duplication", "jointexp_runs", "jointexp_m")
_FUKUCHI19_ONLY = (
    "settings", "other_runs", "min_log2n", "max_log2n", "data_models", "schedules", "laplace",
    "laplace_iid", "no_eps_sweep", "exact_max_levels",
)  # fmt: skip


_TZAMOS20_ONLY = ("regimes", "distributions", "n_values", "c", "c_rule")


# --------------------------------------------------------------------------------------------
# dpquant validate REFERENCE CANDIDATE
# --------------------------------------------------------------------------------------------


def resolve_reference(spec: str) -> tuple[Any, str]:
    """A registry entry by name (``dpquant mechanisms``) or a mechanism named by MODULE:ATTR."""
    for entry in REGISTRY:
        if entry.name == spec:
            return entry.build(), entry.name
    obj = load_target(spec)
    if not is_mechanism(obj) or not isinstance(getattr(obj, "claim", None), PrivacyClaim):
        raise ValueError(
            f"reference must be a registry name (see `dpquant mechanisms`) or a mechanism with "
            f"sample() and claim, got {spec!r}"
        )
    return obj, getattr(obj, "name", None) or spec


def resolve_candidate(spec: str) -> tuple[Any, str]:
    """``peer:NAME`` (an adapter of :mod:`audit.adapters` with its defaults), or MODULE:ATTR /
    path/to/file.py:ATTR naming a mechanism or a function fn(data, rng) -> output."""
    if spec.startswith("peer:"):
        from audit.adapters import PEERS

        name = spec[len("peer:") :]
        if name not in PEERS:
            raise ValueError(f"unknown peer {name!r}; known: {', '.join(sorted(PEERS))}")
        try:
            mech = PEERS[name]()
        except ImportError as exc:
            raise ValueError(str(exc)) from exc
        return mech, mech.name
    obj = load_target(spec)
    if isinstance(obj, type):
        raise ValueError(f"{spec} is a class; point to a mechanism instance or a function")
    return obj, spec


def _validate(args: argparse.Namespace) -> int:
    from audit.validate import battery, validate

    reference, ref_name = resolve_reference(args.reference)
    candidate, cand_name = resolve_candidate(args.candidate)
    datasets = None
    if args.sizes is not None:
        datasets = battery(reference.domain, reference.claim.adjacency, args.sizes)
    report = validate(
        reference,
        candidate,
        datasets=datasets,
        samples=args.samples,
        alpha=DEFAULT_ALPHA if args.alpha is None else args.alpha,
        beta=args.beta,
        seed=args.seed,
        audit=not args.no_audit,
        audit_samples=args.audit_samples,
        reference_name=ref_name,
        candidate_name=cand_name,
    )
    print(report.summary())
    write_report_files(report, args.json, args.markdown)
    return EXIT_OK if report.passed else EXIT_FAILED


def _written(paths: Sequence[Path]) -> int:
    """Print the files a study wrote; the exit code of a successful ``reproduce``."""
    for path in paths:
        print(f"written: {path}")
    return EXIT_OK


def _reproduce(args: argparse.Namespace) -> int:
    if args.paper == "tzamos20":
        return _reproduce_tzamos20(args)
    given = [f"--{o.replace('_', '-')}" for o in _TZAMOS20_ONLY if getattr(args, o) is not None]
    if given:
        raise ValueError(f"only for tzamos20, not {args.paper}: {', '.join(given)}")
    if args.paper == "fukuchi19":
        return _reproduce_fukuchi19(args)
    given = [
        f"--{o.replace('_', '-')}" for o in _FUKUCHI19_ONLY if getattr(args, o) not in (None, False)
    ]
    if given:
        raise ValueError(f"only for fukuchi19, not {args.paper}: {', '.join(given)}")
    if args.paper == "imola25":
        return _reproduce_imola25(args)
    given = [f"--{o.replace('_', '-')}" for o in _IMOLA25_ONLY if getattr(args, o) is not None]
    if given:
        raise ValueError(f"only for imola25, not aamand25: {', '.join(given)}")
    from reference.experiments.aamand25 import DEFAULT_OUT, run_figures

    paths = run_figures(
        None if args.figure is None else [args.figure],
        runs=args.runs,
        seed=args.seed,
        workers=args.workers,
        out=Path(args.out) if args.out is not None else DEFAULT_OUT,
        quick=args.quick,
        progress=_reproduce_progress(args.quiet),
    )
    return _written(paths)


def _reproduce_imola25(args: argparse.Namespace) -> int:
    """imola25 Sec. 6 / Figure 1 on Adult (spec §4): see :mod:`reference.experiments.imola25`."""
    from reference.experiments.imola25 import DEFAULT_OUT, run_study

    if args.figure is not None:
        raise ValueError("--figure only applies to aamand25 (imola25: use --panels)")
    paths = run_study(
        panels=args.panels,
        ms=args.m,
        runs=args.runs,
        jointexp_runs=args.jointexp_runs,
        jointexp_ms=args.jointexp_m,
        duplication=args.duplication,
        seed=args.seed,
        workers=args.workers,
        out=Path(args.out) if args.out is not None else DEFAULT_OUT,
        quick=args.quick,
        progress=_reproduce_progress(args.quiet),
    )
    feasibility = next((p for p in paths if p.name == "imola25_feasibility.csv"), None)
    if feasibility is not None:
        _print_duplications(feasibility)
    return _written(paths)


def _reproduce_fukuchi19(args: argparse.Namespace) -> int:
    """fukuchi19 Sec. 6.1 / Figures 1–2 (spec §4.1): see :mod:`reference.experiments.fukuchi19`."""
    from reference.experiments.fukuchi19 import DEFAULT_OUT, run_study

    given = [f"--{o.replace('_', '-')}" for o in _IMOLA25_ONLY if getattr(args, o) is not None]
    if args.figure is not None:
        given.append("--figure")
    if given:
        raise ValueError(f"not for fukuchi19: {', '.join(given)}")
    paths = run_study(
        settings=args.settings,
        runs=args.runs,
        other_runs=args.other_runs,
        min_log2n=args.min_log2n,
        max_log2n=args.max_log2n,
        data_models=args.data_models,
        schedules=args.schedules,
        laplace=args.laplace,
        laplace_iid=args.laplace_iid,
        eps_sweep=not args.no_eps_sweep,
        exact_max_levels=args.exact_max_levels,
        seed=args.seed,
        workers=args.workers if args.workers is not None else 1,
        out=Path(args.out) if args.out is not None else DEFAULT_OUT,
        quick=args.quick,
        progress=_reproduce_progress(args.quiet),
    )
    return _written(paths)


def _reproduce_tzamos20(args: argparse.Namespace) -> int:
    """tzamos20 accuracy study (spec §3 T9/T20, §5): see :mod:`reference.experiments.tzamos20`."""
    from reference.experiments.tzamos20 import DEFAULT_OUT, run_study

    given = [f"--{o.replace('_', '-')}" for o in _IMOLA25_ONLY if getattr(args, o) is not None]
    given += [
        f"--{o.replace('_', '-')}" for o in _FUKUCHI19_ONLY if getattr(args, o) not in (None, False)
    ]
    if args.figure is not None:
        given.append("--figure")
    if given:
        raise ValueError(f"not for tzamos20: {', '.join(given)}")
    paths = run_study(
        regimes=args.regimes,
        distributions=args.distributions,
        ns=args.n_values,
        runs=args.runs,
        c=args.c,
        c_rule=args.c_rule if args.c_rule is not None else "constant",
        seed=args.seed,
        workers=args.workers if args.workers is not None else 1,
        out=Path(args.out) if args.out is not None else DEFAULT_OUT,
        quick=args.quick,
        progress=_reproduce_progress(args.quiet),
    )
    return _written(paths)


def _fraction_arg(text: str) -> Fraction:
    """``"5/4"`` or ``"1.25"`` as an exact Fraction (argparse type; checked by the experiment)."""
    try:
        return Fraction(str(text).strip())
    except (ValueError, ZeroDivisionError):
        raise argparse.ArgumentTypeError(f"expected a rational such as 5/4, got {text!r}") from None


def _name_list(text: str) -> tuple[str, ...]:
    """``"fixed,iid"`` as a tuple of names (argparse type; checked by the experiment)."""
    values = tuple(v.strip() for v in str(text).split(",") if v.strip())
    if not values:
        raise argparse.ArgumentTypeError(f"expected names 'a,b', got {text!r}")
    return values


def _print_duplications(path: Path) -> None:
    """One line per adjacency: the duplication factor (and n) the study used."""
    with path.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["role"].endswith("(used)"):
                ok = "feasible" if row["feasible"] == "True" else "NOT feasible for every draw"
                print(
                    f"{row['adjacency']}: duplication {row['duplication']} (n = {row['n']}), "
                    f"SliceQuantiles {ok} at m <= {row['m']} (w = {row['w']}, h = {row['h']})"
                )


def _int_list(text: str) -> tuple[int, ...]:
    """``"10,20,30"`` as a tuple of ints (argparse type)."""
    try:
        values = tuple(int(v) for v in str(text).split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected integers 'a,b,c', got {text!r}") from None
    if not values:
        raise argparse.ArgumentTypeError(f"expected integers 'a,b,c', got {text!r}")
    return values


def _panel_list(text: str) -> tuple[str, ...]:
    """``"a,c"`` as a tuple of imola25 panels (argparse type)."""
    values = tuple(v.strip() for v in str(text).split(",") if v.strip())
    if not values or any(v not in ("a", "b", "c", "d") for v in values):
        raise argparse.ArgumentTypeError(f"panels must be among a,b,c,d, got {text!r}")
    return values


# --------------------------------------------------------------------------------------------
# parser
# --------------------------------------------------------------------------------------------


def _domain_arg(text: str) -> tuple[float, float]:
    try:
        return parse_domain(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dpquant",
        description="Reference DP quantile mechanisms, their claims ledger and a privacy auditor.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("claims", help="print the claims ledger with counts per status")
    p.add_argument(
        "--ledger", default=None, help="path to claims.toml (default: notes/claims.toml)"
    )
    p.set_defaults(func=_claims)

    p = sub.add_parser(
        "audit",
        help="audit a mechanism or function (MODULE:ATTR), or everything (--all)",
        description=(
            "Audit one mechanism (an object with sample() and claim) or one function "
            "fn(data, rng) -> output named by MODULE:ATTR or path/to/file.py:ATTR; or, with "
            "--all, the reference registry, the controls and the known-bad catalogue. Exit "
            "code 0: no violation found (--all: every outcome as expected); 1: a violation "
            "(or a sampler that does not match its exact law; --all: an unexpected outcome); "
            "2: usage error."
        ),
    )
    p.add_argument(
        "target", nargs="?", help="MODULE:ATTR, path/to/file.py:ATTR or peer:NAME (a library)"
    )
    p.add_argument("--all", action="store_true", help="audit the registry and the catalogue")
    claim = p.add_argument_group(
        "claim", "required for a plain function; for a mechanism, each one overrides its claim"
    )
    claim.add_argument("--epsilon", type=float, default=None, help="claimed ε")
    claim.add_argument("--delta", type=float, default=None, help="claimed δ (default 0)")
    claim.add_argument(
        "--adjacency",
        choices=ADJACENCIES,
        default=None,
        help="neighbouring relation (default for a function: replace_one)",
    )
    p.add_argument(
        "--domain",
        type=_domain_arg,
        default=None,
        metavar="LO,HI",
        help="input values to search, e.g. 0,1 or -inf,inf (default: the mechanism's domain)",
    )
    p.add_argument(
        "--samples", type=int, default=None, help="draws per data set (default: the auditor's)"
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--alpha", type=float, default=None, help="1 − confidence of the bound (default 1e-6)"
    )
    p.add_argument("--mode", choices=MODES, default="auto", help="default: auto")
    p.add_argument("--json", default=None, metavar="PATH", help="write the report as JSON")
    p.add_argument("--markdown", default=None, metavar="PATH", help="write the report as Markdown")
    p.add_argument("--plot", default=None, metavar="PATH", help="write a PNG plot")
    p.add_argument(
        "--out", default=None, help="--all: output folder (default: reports)", metavar="DIR"
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=_audit)

    p = sub.add_parser(
        "validate",
        help="test a candidate implementation against a reference mechanism, and audit it",
        description=(
            "Test that CANDIDATE draws from the same law as REFERENCE on a battery of data sets "
            "(against the reference's exact law where it has one, by a two-sample test "
            "otherwise; family-wise false alarm <= --alpha), report the smallest deviation each "
            "test detects with probability 1 − --beta, and audit the candidate under the "
            "reference's claim. REFERENCE: a name from `dpquant mechanisms` or MODULE:ATTR of a "
            "mechanism. CANDIDATE: MODULE:ATTR or path/to/file.py:ATTR of a mechanism or of a "
            "function fn(data, rng) -> output, or peer:NAME (diffprivlib, opendp, python-dp, "
            "eeprivacy with their defaults). Exit code 0: passed; 1: a difference or a violation; "
            "2: usage error."
        ),
    )
    p.add_argument("reference", help="registry name or MODULE:ATTR")
    p.add_argument("candidate", help="MODULE:ATTR, path/to/file.py:ATTR or peer:NAME")
    p.add_argument("--samples", type=int, default=20_000, help="draws per data set (20000)")
    p.add_argument(
        "--alpha", type=float, default=None, help="family-wise false alarm (default 1e-6)"
    )
    p.add_argument("--beta", type=float, default=0.05, help="1 − power of the reported deviation")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument(
        "--sizes", type=_int_list, default=None, metavar="LIST",
        help="data-set sizes of the battery (default 1,2,5,9,33,200)",
    )  # fmt: skip
    p.add_argument("--no-audit", action="store_true", help="skip the audit of the candidate")
    p.add_argument("--audit-samples", type=int, default=None, help="the audit's draws per data set")
    p.add_argument("--json", default=None, metavar="PATH", help="write the report as JSON")
    p.add_argument("--markdown", default=None, metavar="PATH", help="write the report as Markdown")
    p.set_defaults(func=_validate)

    p = sub.add_parser(
        "mechanisms", help="list what `dpquant audit --all` audits (registry and catalogue)"
    )
    p.set_defaults(func=_mechanisms)

    p = sub.add_parser(
        "reproduce",
        help="re-run a paper's experiments and write CSV and PNG files",
        description=(
            "Re-run the experiments of a paper (aamand25: Sec. 5 and App. I, figures 1a, 1b, 2, "
            "3, 4, 5) and write, per figure, <figure>.csv (success rate per configuration, "
            "mechanism, ε and α_test), <figure>_errors.csv (one row per run) and PNG plots. "
            "imola25: Sec. 6 / Figure 1 on Adult age and hours (ε = 1, δ = 1e-16, both "
            "adjacencies) at the smallest data duplication where SliceQuantiles is feasible; "
            "writes imola25.csv (max and mean rank error with bootstrap CIs per panel, m, "
            "mechanism), imola25_runs.csv, imola25_feasibility.csv and imola25.png. fukuchi19: "
            "Sec. 6.1 / Figures 1–2 (synthetic Beta data, Algorithm 2 with the Lower-α and "
            "Unknown-α schedules, the Laplace baseline); writes fukuchi19.csv (worst case over "
            "x_min of the MAE per setting, data model, schedule, N and ε), fukuchi19_xmin.csv, "
            "fukuchi19_fits.csv (guideline fits) and PNG figures. tzamos20: the accuracy study of "
            "the ε-DP private median (exact miss probability per data set, averaged over data "
            "sets, vs n, against the terms of Theorem 3.1); writes tzamos20.csv, "
            "tzamos20_runs.csv, tzamos20_crossings.csv and PNG figures."
        ),
    )
    p.add_argument(
        "paper",
        choices=("aamand25", "imola25", "fukuchi19", "tzamos20"),
        help="the paper whose experiments to run",
    )
    p.add_argument(
        "--figure",
        choices=AAMAND25_FIGURES,
        default=None,
        help="aamand25: one figure (default: all)",
    )
    p.add_argument(
        "--runs",
        type=int,
        default=None,
        help="runs per configuration (default 200; --quick: 4 for aamand25, 3 for imola25; "
        "fukuchi19: 1000, --quick 300; tzamos20: data sets per cell, 40, --quick 12)",
    )
    p.add_argument("--seed", type=int, default=0, help="random seed of the runs (default 0)")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes (default: the number of CPUs; fukuchi19: 1)",
    )
    p.add_argument(
        "--out", default=None, metavar="DIR", help="output folder (default: reports/<paper>)"
    )
    p.add_argument("--quick", action="store_true", help="a tiny version for smoke tests")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    imola = p.add_argument_group("imola25 only")
    imola.add_argument(
        "--m",
        type=_int_list,
        default=None,
        metavar="LIST",
        help="numbers of quantiles, e.g. 10,100,200 (default 10,20,...,200; --quick: 10,20)",
    )
    imola.add_argument(
        "--panels",
        type=_panel_list,
        default=None,
        metavar="LIST",
        help="a (age, substitute), b (hours, substitute), c (age, add/remove), d (hours, "
        "add/remove); default a,b,c,d (--quick: a,c)",
    )
    imola.add_argument(
        "--duplication",
        type=int,
        default=None,
        metavar="K",
        help="force the duplication factor (default: the smallest feasible per adjacency); "
        "infeasible SliceQuantiles runs are then skipped and noted",
    )
    imola.add_argument(
        "--jointexp-runs",
        type=int,
        default=None,
        metavar="R",
        help="JointExp runs per m (default 10; --quick: 1; 0: no JointExp)",
    )
    imola.add_argument(
        "--jointexp-m",
        type=_int_list,
        default=None,
        metavar="LIST",
        help="m values for JointExp, intersected with --m (default 10,50,100,200; --quick: 10)",
    )
    fukuchi = p.add_argument_group("fukuchi19 only")
    fukuchi.add_argument(
        "--settings",
        choices=("main", "all"),
        default=None,
        help="Beta settings: main (α = β = 1, Δ = 0.3) or all 30 (default all; --quick: main)",
    )
    fukuchi.add_argument(
        "--other-runs",
        type=int,
        default=None,
        metavar="R",
        help="runs per cell for the settings other than the main one (default: --runs)",
    )
    fukuchi.add_argument(
        "--min-log2n", type=int, default=None, metavar="n", help="smallest N = 2^n (default 10)"
    )
    fukuchi.add_argument(
        "--max-log2n",
        type=int,
        default=None,
        metavar="n",
        help="largest N = 2^n (default 20; --quick: 12)",
    )
    fukuchi.add_argument(
        "--data-models",
        type=_name_list,
        default=None,
        metavar="LIST",
        help="fixed, iid or fixed,iid (default both)",
    )
    fukuchi.add_argument(
        "--schedules",
        type=_name_list,
        default=None,
        metavar="LIST",
        help="lower_alpha, unknown_alpha or both (default both)",
    )
    fukuchi.add_argument(
        "--laplace",
        choices=("main", "all", "none"),
        default=None,
        help="settings of the Laplace baseline (N·runs draws per cell; default main)",
    )
    fukuchi.add_argument(
        "--laplace-iid", action="store_true", help="also run the baseline on i.i.d. data"
    )
    fukuchi.add_argument(
        "--no-eps-sweep", action="store_true", help="skip the Err-vs-ε panel (Fig. 1 right)"
    )
    fukuchi.add_argument(
        "--exact-max-levels",
        type=int,
        default=None,
        metavar="L",
        help="exact tree law on fixed data when L <= this (default 10; 0: never)",
    )
    tzamos = p.add_argument_group("tzamos20 only")
    tzamos.add_argument(
        "--regimes",
        type=_name_list,
        default=None,
        metavar="LIST",
        help="statistical, local, global (which of T1, T2, T3 dominates; default all three; "
        "--quick: quick)",
    )
    tzamos.add_argument(
        "--distributions",
        type=_name_list,
        default=None,
        metavar="LIST",
        help="uniform, pareto or both (default both)",
    )
    tzamos.add_argument(
        "--n-values",
        type=_int_list,
        default=None,
        metavar="LIST",
        help="sample sizes (default 20,40,80,160,320,480,640,1280,2560,5120; --quick: 8,16,32)",
    )
    tzamos.add_argument(
        "--c",
        type=_fraction_arg,
        default=None,
        metavar="C",
        help="the constant C (default 5/4), or C0 with --c-rule log (C = C0 ln n)",
    )
    tzamos.add_argument(
        "--c-rule",
        choices=("constant", "log"),
        default=None,
        help="C constant (default) or C0 ln n (Cor. E.10)",
    )
    p.set_defaults(func=_reproduce)
    return parser


def _join_domain(argv: Sequence[str]) -> list[str]:
    """``--domain -1,1`` as ``--domain=-1,1``: argparse would read ``-1,1`` as an option."""
    out: list[str] = []
    it = iter(argv)
    for a in it:
        if a == "--domain":
            nxt = next(it, None)
            out.append(a if nxt is None else f"--domain={nxt}")
        else:
            out.append(a)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(_join_domain(argv))
    except SystemExit as exc:  # --help, or a usage error argparse has already printed
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    try:
        return args.func(args)
    except ValueError as exc:
        print(f"dpquant: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
