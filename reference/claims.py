"""The claims ledger ``notes/claims.toml``: every numbered result of the four papers, its status
and the tests that check it.

``load_ledger`` reads it, ``ledger_problems`` lists what is inconsistent (a listed check that does
not exist, a checked status without a check, a bad status), and ``format_ledger`` prints the table
shown by ``dpquant claims``.
"""

from __future__ import annotations

import ast
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

STATUSES = ("verified", "refuted", "simulated", "documented", "todo")
PAPERS = ("aamand25", "imola25", "fukuchi19", "tzamos20")
REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LEDGER = REPO_ROOT / "notes" / "claims.toml"


@dataclass(frozen=True)
class Claim:
    """One ledger entry."""

    id: str
    paper: str
    kind: str
    number: str
    statement: str
    status: str
    checks: tuple[str, ...] = field(default_factory=tuple)
    note: str = ""


def load_ledger(path: Path | str | None = None) -> list[Claim]:
    """Read the ledger (default: ``notes/claims.toml`` of the source tree)."""
    path = Path(path) if path is not None else DEFAULT_LEDGER
    if not path.is_file():
        raise ValueError(f"ledger file not found: {path} (pass --ledger PATH)")
    with path.open("rb") as fh:
        raw = tomllib.load(fh)
    entries = raw.get("claim", [])
    claims = []
    for entry in entries:
        missing = {"id", "paper", "kind", "number", "statement", "status"} - set(entry)
        if missing:
            raise ValueError(
                f"ledger entry {entry.get('id', '?')!r} lacks fields {sorted(missing)}"
            )
        claims.append(
            Claim(
                id=entry["id"],
                paper=entry["paper"],
                kind=entry["kind"],
                number=str(entry["number"]),
                statement=entry["statement"],
                status=entry["status"],
                checks=tuple(entry.get("checks", ())),
                note=entry.get("note", ""),
            )
        )
    return claims


def check_exists(node_id: str, root: Path = REPO_ROOT) -> bool:
    """True when the pytest node id ``path::[Class::]function[param]`` names a test in the tree.

    Checked statically (the file parses and defines the function), so it is fast and does not
    import the test module.
    """
    parts = node_id.split("::")
    path = root / parts[0]
    if len(parts) < 2 or not path.is_file():
        return False
    names = [p.split("[", 1)[0] for p in parts[1:]]
    body = ast.parse(path.read_text()).body
    for name in names:
        found = next(
            (
                n
                for n in body
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and n.name == name
            ),
            None,
        )
        if found is None:
            return False
        body = found.body if isinstance(found, ast.ClassDef) else []
    return True


def ledger_problems(claims: list[Claim], root: Path = REPO_ROOT) -> list[str]:
    """Every inconsistency of the ledger; empty when it is in step with the tests."""
    problems = []
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
            if not check_exists(node, root)
        ]
    return problems


def status_counts(claims: list[Claim]) -> dict[str, int]:
    counts = Counter(c.status for c in claims)
    return {s: counts.get(s, 0) for s in STATUSES}


def format_ledger(claims: list[Claim], *, width: int = 72) -> str:
    """The ledger as a plain-text table followed by counts per status (and per paper)."""
    rows = [("id", "status", "checks", "statement")]
    for c in claims:
        text = c.statement if len(c.statement) <= width else c.statement[: width - 1] + "…"
        rows.append((c.id, c.status, str(len(c.checks)), text))
    widths = [max(len(r[k]) for r in rows) for k in range(3)]
    lines = ["  ".join(r[k].ljust(widths[k]) for k in range(3)) + "  " + r[3] for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths) + "  " + "-" * 9)
    total = status_counts(claims)
    lines.append("")
    lines.append(
        "total: " + ", ".join(f"{s} {k}" for s, k in total.items()) + f" ({len(claims)} claims)"
    )
    for paper in PAPERS:
        sub = status_counts([c for c in claims if c.paper == paper])
        lines.append(f"{paper}: " + ", ".join(f"{s} {k}" for s, k in sub.items() if k))
    return "\n".join(lines)
