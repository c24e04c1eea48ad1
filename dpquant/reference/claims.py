"""The claims ledger ``notes/claims.toml``: every numbered result of the four papers, its status
and the tests that check it.

``load_ledger(path)`` reads a ledger file (by default the repository's ``notes/claims.toml`` in a
source checkout, else the copy an installed package ships as ``dpquant/reference/claims.toml``, made from
it when the wheel is built: ``notes/packaging.md``), ``ledger_problems`` lists what is
inconsistent (a listed check that does not exist, a checked status without a check, a bad
status), and ``format_ledger`` prints the table shown by ``dpquant claims``. The tests a ledger
names live in the source checkout only (:func:`source_checkout`): an installed package checks
everything but their existence.

Bad input gets a ``ValueError`` naming the parameter: a ledger path that is not a path, names no
file, or names a file that is not a TOML ledger of ``[[claim]]`` tables with string fields; a
``claims`` argument that is not a sequence of :class:`Claim`; a ``root`` that is not a path.

A ledger is input from anyone (``dpquant claims --ledger PATH``), so it is read with bounds
(issue 34): only a regular file, opened without blocking (a FIFO swapped in after the check does
not hang the read) and read up to :data:`MAX_LEDGER_BYTES`; TOML nested too deep for the parser
(``RecursionError``) or with an integer too long for Python (a plain ``ValueError``) is refused
like any other bad TOML; a claim's text fields are bounded (:data:`MAX_SHORT`, :data:`MAX_TEXT`,
:data:`MAX_CHECKS`) and hold no control characters (a statement is printed to a terminal: no
escape sequences, no line breaks). A check id names a ``.py`` file under ``root`` (not an
absolute path, no ``..``), read up to the same cap, and each module is parsed once per
:func:`ledger_problems` call however many checks name it.
"""

from __future__ import annotations

import ast
import json
import os
import stat
import tomllib
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from dpquant.errors import ParameterError
from dpquant.reference.validation import check_int

STATUSES = ("certified", "verified", "refuted", "simulated", "documented", "todo")
"""``certified``: proven over the entry's ``domain`` by a certificate the independent checker
(``proofs_checks/certificate_checker.py``) accepts; ``refuted`` with a ``certificate``: the
counterexample is certified."""
CERTIFIABLE = ("certified", "refuted")
"""The statuses an entry with a ``certificate`` may have."""
PAPERS = ("aamand25", "imola25", "fukuchi19", "tzamos20", "classic", "measures")
"""The ledger's groups: the four papers, the classic benchmark of violation detectors, and the
conversions between privacy measures (``notes/measures.md``)."""
REPO_ROOT = Path(__file__).resolve().parents[2]
"""The repository around the package (a source checkout): where the test ids of the ledger live."""

DEFAULT_LEDGER = REPO_ROOT / "notes" / "claims.toml"
"""The repository's ledger, read by :func:`load_ledger` when no path is given."""

PACKAGED_LEDGER = Path(__file__).resolve().parent / "claims.toml"
"""The copy of the repository's ledger that a built package ships (``setup.py`` copies it when
the wheel is built; a source checkout has none): read when :data:`DEFAULT_LEDGER` is absent."""

_TEXT_FIELDS = ("id", "paper", "kind", "number", "statement", "status")
_SHORT_FIELDS = ("id", "paper", "kind", "number", "status")
MAX_LEDGER_BYTES = 4 * 2**20
"""The largest ledger file read (4 MiB; the repository's is about 0.1 MiB); also the largest test
module a check id may name."""
MAX_SHORT = 200
"""Most characters of a claim's ``id``, ``paper``, ``kind``, ``number`` and ``status``."""
MAX_TEXT = 10_000
"""Most characters of a claim's ``statement`` and ``note``, and of one check id."""
MAX_CHECKS = 1000
"""Most check ids of one claim."""


def _check_text(value: Any, name: str, most: int) -> str:
    """A claim's text field: a string of at most ``most`` characters, no control characters."""
    if not isinstance(value, str):
        raise ParameterError(name, "must be a string", type(value).__name__)
    if len(value) > most:
        raise ParameterError(name, f"must have at most {most} characters", len(value))
    bad = next((c for c in value if unicodedata.category(c) == "Cc"), None)
    if bad is not None:
        raise ParameterError(name, "must not hold a control character", repr(bad))
    return value


@dataclass(frozen=True)
class Claim:
    """One ledger entry: text fields (``str``, bounded, no control characters) and the pytest
    node ids that check it.

    Args:
        id: The entry's id (``"aamand25/theorem-1.1"``).
        paper: Its group, one of :data:`PAPERS`.
        kind: ``"theorem"``, ``"lemma"``, ``"corollary"``, ...
        number: Its number in the paper (``"1.1"``).
        statement: What it states.
        status: One of :data:`STATUSES`.
        checks: The pytest node ids that check it, at most :data:`MAX_CHECKS`.
        note: A remark, or ``""``.
        domain: Where a certificate proves it (or, for a refuted entry, where its certified
            counterexample lies), or ``""``.
        certificate: The certificate's path in the repository
            (``proofs_checks/certificates/<paper>/<name>.json``), or ``""``.

    Raises:
        ValueError: A field that is not such a string, or too long (named).
    """

    id: str
    paper: str
    kind: str
    number: str
    statement: str
    status: str
    checks: tuple[str, ...] = field(default_factory=tuple)
    note: str = ""
    domain: str = ""
    certificate: str = ""

    def __post_init__(self) -> None:
        for name in (*_TEXT_FIELDS, "note", "domain", "certificate"):
            _check_text(getattr(self, name), name, MAX_SHORT if name in _SHORT_FIELDS else MAX_TEXT)
        checks = self.checks
        if isinstance(checks, str | bytes) or not isinstance(checks, list | tuple):
            raise ParameterError("checks", "must be a sequence of strings", type(checks).__name__)
        if not all(isinstance(c, str) for c in checks):
            raise ParameterError("checks", "must be a sequence of strings (pytest node ids)")
        if len(checks) > MAX_CHECKS:
            raise ParameterError("checks", f"must hold at most {MAX_CHECKS} checks", len(checks))
        for check in checks:
            _check_text(check, "checks", MAX_TEXT)
        object.__setattr__(self, "checks", tuple(checks))


def _check_path(path: Any, name: str) -> Path:
    """``path`` as a :class:`Path` (a ``str`` or an ``os.PathLike`` naming a text path)."""
    if isinstance(path, os.PathLike) and not isinstance(path, Path):
        path = os.fspath(path)
    if isinstance(path, str):
        path = Path(path)
    if not isinstance(path, Path):
        raise ParameterError(name, "must be a path (str or os.PathLike)", type(path).__name__)
    return path


def _show(path: Path) -> str:
    """``path`` for an error message (at most 200 characters)."""
    text = str(path)
    return text if len(text) <= 200 else text[:197] + "..."


def _mode(path: Path) -> int | None:
    """The file mode of ``path``, or None when it cannot be read (missing, bad name, ...)."""
    try:
        return path.stat().st_mode
    except (OSError, ValueError):
        return None


def _number_text(number: Any) -> Any:
    """A claim's ``number`` written as a TOML number (``number = 3``) as its text; an integer too
    long to write (4300 digits and more) stays an int, which :class:`Claim` refuses."""
    if isinstance(number, float) or (isinstance(number, int) and not isinstance(number, bool)):
        if isinstance(number, int) and number.bit_length() > MAX_SHORT * 4:
            return number
        return str(number)
    return number


def _entry(entry: Any, i: int, path: Path) -> Claim:
    if not isinstance(entry, dict):
        raise ValueError(f"path {_show(path)}: ledger entry {i} must be a [[claim]] table")
    missing = set(_TEXT_FIELDS) - set(entry)
    if missing:
        raise ValueError(
            f"path {_show(path)}: ledger entry {entry.get('id', '?')!r:.80} lacks fields "
            f"{sorted(missing)}"
        )
    number = _number_text(entry["number"])
    try:
        return Claim(
            id=entry["id"],
            paper=entry["paper"],
            kind=entry["kind"],
            number=number,
            statement=entry["statement"],
            status=entry["status"],
            checks=entry.get("checks", ()),
            note=entry.get("note", ""),
            domain=entry.get("domain", ""),
            certificate=entry.get("certificate", ""),
        )
    except ValueError as exc:
        raise ValueError(f"path {_show(path)}: ledger entry {entry['id']!r:.80}: {exc}") from None


def _open_ledger(path: Path) -> int:
    """A file descriptor of ``path`` opened for reading without blocking (a FIFO gives one at
    once, then :func:`_read_capped` refuses it)."""
    return os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))


def _read_capped(path: Path) -> bytes | None:
    """The bytes of the regular file ``path``, or None when it is larger than
    :data:`MAX_LEDGER_BYTES` (at most that many bytes and one more are read); ``OSError`` when it
    cannot be opened or read, ``ValueError`` when it is not a regular file."""
    with os.fdopen(_open_ledger(path), "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise ValueError("not a regular file")
        data = fh.read(MAX_LEDGER_BYTES + 1)
    return None if len(data) > MAX_LEDGER_BYTES else data


def _parse_toml(raw: bytes, path: Path) -> dict[str, Any]:
    """The TOML document ``raw``; a ``ValueError`` naming ``path`` for whatever is not TOML the
    parser can take (bad syntax, not UTF-8, an integer of 4300 digits or more, nesting deeper
    than the parser's recursion)."""
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ValueError(f"path {_show(path)} is not a TOML ledger: not UTF-8 ({exc})") from None
    except RecursionError:
        raise ValueError(f"path {_show(path)} is not a TOML ledger: nested too deep") from None
    except ValueError as exc:  # tomllib.TOMLDecodeError, and int()'s limit on digits
        raise ValueError(f"path {_show(path)} is not a TOML ledger: {exc}") from None


def _is_file(path: Path) -> bool:
    mode = _mode(path)
    return mode is not None and stat.S_ISREG(mode)


def default_ledger() -> Path:
    """:data:`DEFAULT_LEDGER` when it is there (a source checkout of the repository), else
    :data:`PACKAGED_LEDGER` when it is there (an installed package), else a ``ValueError`` saying
    where it looked and how to pass a ledger."""
    for path in (DEFAULT_LEDGER, PACKAGED_LEDGER):
        if _is_file(path):
            return path
    raise ValueError(
        f"ledger file not found: no path was given and the ledger is neither at "
        f"{_show(DEFAULT_LEDGER)} (a source checkout's notes/claims.toml) nor at "
        f"{_show(PACKAGED_LEDGER)} (an installed package's copy): pass "
        "path=<claims.toml> (on the command line: dpquant claims --ledger PATH)"
    )


def source_checkout() -> bool:
    """True in a source checkout of the repository (its ledger and its tests beside the
    package), where the test ids of a ledger can be checked; False in an installed package."""
    return _is_file(DEFAULT_LEDGER) and _mode(REPO_ROOT / "tests") is not None


def load_ledger(path: Path | str | None = None) -> list[Claim]:
    """Read a ledger.

    Args:
        path: A ``str`` or ``os.PathLike`` naming a TOML file of ``[[claim]]`` tables; None
            reads the repository's ledger (:func:`default_ledger`).

    Returns:
        The entries, in the file's order.

    Raises:
        ValueError: Naming ``path``, when it is not a path, names no regular file, is not UTF-8
            TOML, or does not hold a ``claim`` array of tables with the fields of
            :class:`Claim`; with no path, when the repository's ledger is not there.
    """
    path = default_ledger() if path is None else _check_path(path, "path")
    mode = _mode(path)
    if mode is None:
        raise ValueError(
            f"ledger file not found: {_show(path)} (path must name a TOML file: pass "
            "path=<claims.toml>, on the command line --ledger PATH)"
        )
    not_regular = ValueError(
        f"path must name a ledger file (TOML), got {_show(path)}: not a regular file"
    )
    if not stat.S_ISREG(mode):
        raise not_regular
    try:
        data = _read_capped(path)
    except OSError as exc:
        raise ValueError(
            f"path {_show(path)}: cannot read the ledger ({exc.strerror or exc})"
        ) from None
    except ValueError:  # replaced by something else between the two looks
        raise not_regular from None
    if data is None:
        raise ValueError(
            f"path {_show(path)} is larger than {MAX_LEDGER_BYTES} bytes: not a claims ledger"
        )
    raw = _parse_toml(data, path)
    if "claim" not in raw:
        raise ValueError(f"path {_show(path)} is not a claims ledger: it has no [[claim]] tables")
    entries = raw["claim"]
    if not isinstance(entries, list):
        raise ValueError(f"path {_show(path)}: 'claim' must be an array of [[claim]] tables")
    return [_entry(entry, i, path) for i, entry in enumerate(entries)]


def _check_claims(claims: Any, name: str = "claims") -> list[Claim]:
    if isinstance(claims, str | bytes) or not isinstance(claims, Sequence):
        raise ParameterError(
            name,
            "must be a list of Claim (see load_ledger)",
            type(claims).__name__,
        )
    bad = [c for c in claims if not isinstance(c, Claim)][:1]
    if bad:
        raise ParameterError(
            name,
            "must be a list of Claim (see load_ledger)",
            f"an element of type {type(bad[0]).__name__}",
        )
    return list(claims)


def _test_module(node_path: str, root: Path) -> Path | None:
    """The file a check id's path names under ``root``: a relative path to a ``.py`` file,
    without ``..`` (None otherwise: no test there)."""
    relative = PurePath(node_path)
    if relative.is_absolute() or ".." in relative.parts or relative.suffix != ".py":
        return None
    return root / relative


def _module_body(path: Path) -> list[ast.stmt] | None:
    """The statements of the Python file ``path`` (read up to :data:`MAX_LEDGER_BYTES`), or None
    when it cannot be read or parsed."""
    try:
        data = _read_capped(path)
        return None if data is None else ast.parse(data).body
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _names_test(body: list[ast.stmt] | None, names: list[str]) -> bool:
    """Whether the nested functions and classes ``names`` are defined in ``body``."""
    for name in names:
        found = next(
            (
                n
                for n in body or []
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and n.name == name
            ),
            None,
        )
        if found is None:
            return False
        body = found.body if isinstance(found, ast.ClassDef) else []
    return True


def _exists(node_id: str, root: Path, bodies: dict[Path, list[ast.stmt] | None]) -> bool:
    """:func:`check_exists`, each module parsed once into ``bodies``."""
    parts = node_id.split("::")
    if len(parts) < 2:
        return False
    path = _test_module(parts[0], root)
    mode = None if path is None else _mode(path)
    if path is None or mode is None or not stat.S_ISREG(mode):
        return False
    if path not in bodies:
        bodies[path] = _module_body(path)
    return _names_test(bodies[path], [p.split("[", 1)[0] for p in parts[1:]])


def check_exists(node_id: str, root: Path = REPO_ROOT) -> bool:
    """Whether a pytest node id names a test in the tree.

    Checked statically (the file parses and defines the function), so it is fast and does not
    import the test module. A file that cannot be read or parsed defines no test, and neither
    does a path that is absolute, leaves ``root`` (``..``) or is not a ``.py`` file.

    Args:
        node_id: ``path::[Class::]function[param]``.
        root: The tree the path is under.

    Returns:
        True when it names a test.
    """
    if not isinstance(node_id, str):
        raise ParameterError(
            "node_id",
            "must be a string (a pytest node id)",
            type(node_id).__name__,
        )
    return _exists(node_id, _check_path(root, "root"), {})


def ledger_problems(
    claims: list[Claim], root: Path = REPO_ROOT, *, check_ids: bool = True
) -> list[str]:
    """Every inconsistency of the ledger.

    Args:
        claims: The entries.
        root: The tree the checks' paths are under.
        check_ids: Check that each listed test id names a test under ``root``; False skips
            that one check, which needs the tests: for an installed package, which does not
            ship them.

    Returns:
        One sentence per problem; empty when the ledger is in step with the tests.

    Raises:
        ValueError: ``claims`` is not a sequence of :class:`Claim`, ``root`` not a path, or
            ``check_ids`` not a bool.
    """
    claims = _check_claims(claims)
    root = _check_path(root, "root")
    if not isinstance(check_ids, bool):
        raise ParameterError("check_ids", "must be a bool", type(check_ids).__name__)
    problems = []
    bodies: dict[Path, list[ast.stmt] | None] = {}
    seen: Counter[str] = Counter(c.id for c in claims)
    problems += [f"{cid}: duplicate id" for cid, k in seen.items() if k > 1]
    for c in claims:
        if c.status not in STATUSES:
            problems.append(f"{c.id}: status {c.status!r} is not one of {STATUSES}")
        if c.paper not in PAPERS or not c.id.startswith(f"{c.paper}/"):
            problems.append(f"{c.id}: paper {c.paper!r} must be one of {PAPERS} and prefix the id")
        if c.status != "todo" and not c.checks:
            problems.append(f"{c.id}: status {c.status!r} needs at least one check")
        problems += [
            f"{c.id}: check {node} does not exist"
            for node in c.checks
            if check_ids and not _exists(node, root, bodies)
        ]
        problems += _certificate_problems(c, root, check_ids)
    return problems


def _certificate_problems(c: Claim, root: Path, check_files: bool) -> list[str]:
    """What is wrong with an entry's ``domain`` and ``certificate``: a certified entry needs
    both; a refuted one may have both (its counterexample certified); no other status has
    either. With ``check_files``, the certificate must be a JSON file under ``root`` naming the
    entry's id and domain."""
    if c.status not in CERTIFIABLE:
        return [f"{c.id}: only a certified or refuted entry has a domain or certificate"] if (
            c.domain or c.certificate
        ) else []
    if not c.certificate and not c.domain:
        return [f"{c.id}: status 'certified' needs a domain and a certificate"] if (
            c.status == "certified"
        ) else []
    if not (c.certificate and c.domain):
        return [f"{c.id}: a certificate and its domain go together"]
    relative = PurePath(c.certificate)
    if relative.is_absolute() or ".." in relative.parts or relative.suffix != ".json":
        return [f"{c.id}: certificate must be a relative path to a .json file"]
    if not check_files:
        return []
    try:
        data = _read_capped(root / relative)
        raw = json.loads(data) if data is not None else None
    except (OSError, ValueError):
        raw = None
    if not isinstance(raw, dict):
        return [f"{c.id}: certificate {c.certificate} is not a readable JSON file"]
    if raw.get("claim") != c.id or raw.get("domain") != c.domain:
        return [f"{c.id}: certificate {c.certificate} names another claim or domain"]
    return []


def status_counts(claims: list[Claim]) -> dict[str, int]:
    """How many claims have each status.

    Args:
        claims: The entries.

    Returns:
        The count for each status of :data:`STATUSES`.

    Raises:
        ValueError: ``claims`` is not a sequence of :class:`Claim`.
    """
    counts = Counter(c.status for c in _check_claims(claims))
    return {s: counts.get(s, 0) for s in STATUSES}


def format_claims_full(claims: list[Claim]) -> str:
    """Every claim whole, one block each: its id, status, paper and result (kind and number),
    the statement uncut, the note, and each check's pytest node id; then the counts of
    :func:`format_ledger`.

    Args:
        claims: The ledger (:func:`load_ledger`).

    Returns:
        The text, blocks separated by a blank line.

    Raises:
        ValueError: ``claims`` is not a list of :class:`Claim`.
    """
    claims = _check_claims(claims)
    blocks = []
    for c in claims:
        lines = [
            f"{c.id}  [{c.status}]  ({c.paper}, {c.kind} {c.number})",
            f"  statement: {c.statement}",
        ]
        if c.domain:
            lines.append(f"  domain: {c.domain}")
            lines.append(f"  certificate: {c.certificate}")
        if c.note:
            lines.append(f"  note: {c.note}")
        lines.append(f"  checks ({len(c.checks)}):" if c.checks else "  checks: none")
        lines += [f"    {check}" for check in c.checks]
        blocks.append("\n".join(lines))
    return "\n\n".join([*blocks, _counts(claims)])


def _counts(claims: list[Claim]) -> str:
    """The counts per status, in all and per paper."""
    total = status_counts(claims)
    lines = ["total: " + ", ".join(f"{s} {k}" for s, k in total.items()) + f" ({len(claims)} claims)"]
    for paper in PAPERS:
        sub = status_counts([c for c in claims if c.paper == paper])
        lines.append(f"{paper}: " + ", ".join(f"{s} {k}" for s, k in sub.items() if k))
    return "\n".join(lines)


def format_ledger(claims: list[Claim], *, width: int = 72) -> str:
    """The ledger as ``dpquant claims`` prints it.

    Args:
        claims: The entries.
        width: Statements longer than this many characters (an int >= 1) are cut, ending in
            "…" (:func:`format_claims_full` shows every claim whole).

    Returns:
        A plain-text table followed by counts per status (and per paper).

    Raises:
        ValueError: ``claims`` is not a sequence of :class:`Claim`, or ``width`` is refused.
    """
    claims = _check_claims(claims)
    width = check_int(width, "width", minimum=1)
    rows = [("id", "status", "checks", "statement")]
    domains = [""]
    for c in claims:
        status = "refuted*" if c.status == "refuted" and c.certificate else c.status
        rows.append((c.id, status, str(len(c.checks)), _cut(c.statement, width)))
        domains.append(_cut(c.domain, width))
    widths = [max(len(r[k]) for r in rows) for k in range(3)]
    lines = []
    for r, domain in zip(rows, domains, strict=True):
        lines.append("  ".join(r[k].ljust(widths[k]) for k in range(3)) + "  " + r[3])
        if domain:
            lines.append(" " * (sum(widths) + 6) + "domain: " + domain)
    lines.insert(1, "  ".join("-" * w for w in widths) + "  " + "-" * 9)
    legend = "refuted*: refuted, its counterexample certified; certified: proven on the domain shown"
    return "\n".join([*lines, "", legend, _counts(claims)])


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


__all__ = [
    "CERTIFIABLE",
    "DEFAULT_LEDGER",
    "MAX_CHECKS",
    "MAX_LEDGER_BYTES",
    "MAX_SHORT",
    "MAX_TEXT",
    "PACKAGED_LEDGER",
    "PAPERS",
    "REPO_ROOT",
    "STATUSES",
    "Claim",
    "check_exists",
    "default_ledger",
    "format_claims_full",
    "format_ledger",
    "ledger_problems",
    "load_ledger",
    "source_checkout",
    "status_counts",
]
