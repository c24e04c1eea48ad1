"""MkDocs hooks: what the site generates at build time, so that it cannot drift from the code.

* ``<!-- claims: PAPER -->`` becomes the paper's claims ledger as a table, read from
  ``notes/claims.toml`` by :func:`dpquant.reference.claims.load_ledger`;
* ``<!-- certified -->`` becomes the table of every ledger entry with a certificate (its status,
  domain and certificate);
* ``<!-- include: notes/FILE.md | HEADING -->`` becomes that section of a notes file (its body,
  down to the next heading of the same or a higher level; sub-headings shifted one level down);
* ``<!-- constants -->`` becomes the constants of the modules rendered above it on the page
  (``::: module`` lines), one ``::: module.NAME`` each: the API pages show the functions and
  classes first (mkdocs.yml filters the upper-case names out of the modules' members);
* ``<!-- catalogue -->`` becomes the known-bad catalogue (``dpquant.audit.suites.catalogue``): each entry with
  its witness, its exact loss there and a plot of its two exact output laws (drawn here);
* the committed figures ``notes/*_results/**/*.png`` are served under ``figures/``;
* the docstrings' Sphinx roles (``:func:`name``` and the like), which mkdocstrings shows as
  written, are shown as the code they name.

notes/docs.md says why. The hooks run in the ``mkdocs`` process, with the repository on
``sys.path`` (``make docs`` runs from the checkout, where the package is installed editable).
"""

from __future__ import annotations

import math
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from mkdocs.structure.files import File, Files  # noqa: E402

_DIRECTIVE = re.compile(
    r"<!--\s*(claims|include|catalogue|constants|certified)\s*:?\s*(.*?)\s*-->"
)
_CONSTANT = re.compile(r"^[A-Z][A-Z0-9_]*$")
"""A constant's name (upper case): mkdocs.yml's ``filters`` keep these out of the modules'
renderings, and ``<!-- constants -->`` renders them at the end of the page."""
_RENDERED = re.compile(r"^:::\s+(\S+)\s*$", re.MULTILINE)
_PLOTS: list[Path] = []  # the folder of this build's catalogue plots, removed after the build


def on_files(files: Files, config: Any) -> Files:
    for png in sorted(ROOT.glob("notes/*_results/**/*.png")):
        uri = "figures/" + png.relative_to(ROOT / "notes").as_posix()
        files.append(File.generated(config, uri, abs_src_path=str(png)))
    for name, path in _catalogue_plots().items():
        files.append(File.generated(config, f"auditor/plots/{name}.png", abs_src_path=str(path)))
    return files


def on_post_build(config: Any) -> None:
    for folder in _PLOTS:
        shutil.rmtree(folder, ignore_errors=True)
    _PLOTS.clear()
    _PLOT_CACHE.clear()
    _LOADER.clear()


_ROLE = re.compile(r":(?:py:)?(?:func|data|mod|class|meth|attr|exc|obj|const):(<code>)~?")


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:
    """The docstrings' Sphinx roles as plain code: ``:func:<code>~a.b</code>`` becomes
    ``<code>a.b</code>`` (the search index is built from the page after this)."""
    return _ROLE.sub(r"\1", html)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    def replace(match: re.Match[str]) -> str:
        kind, arg = match.group(1), match.group(2)
        if kind == "claims":
            return claims_table(arg)
        if kind == "include":
            path, _, heading = (part.strip() for part in arg.partition("|"))
            return include_section(path, heading)
        if kind == "constants":
            return constants_section(_RENDERED.findall(markdown[: match.start()]))
        if kind == "certified":
            return certified_table()
        return catalogue_table()

    return _DIRECTIVE.sub(replace, markdown)


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    text = " ".join(str(text).split())
    return text.replace("&", "&amp;").replace("<", "&lt;").replace("|", "\\|")


def claims_table(paper: str) -> str:
    """The ledger entries of ``paper``: number, kind, statement, status and the tests."""
    from dpquant.reference.claims import PAPERS, load_ledger

    if paper not in PAPERS:
        raise ValueError(f"claims: unknown paper {paper!r} (one of {PAPERS})")
    claims = [c for c in load_ledger() if c.paper == paper]
    if not claims:
        raise ValueError(f"claims: the ledger has no entry for {paper!r}")
    counts: dict[str, int] = {}
    for c in claims:
        counts[c.status] = counts.get(c.status, 0) + 1
    summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    rows = [
        f"{len(claims)} entries ({summary}), generated from `notes/claims.toml` when the site "
        "is built; `dpquant claims` prints the same ledger.",
        "",
        "| claim | statement | status | checked by |",
        "|---|---|---|---|",
    ]
    for c in claims:
        tests = "<br>".join(f"`{_cell(check.rpartition('::')[2])}`" for check in c.checks)
        statement = _cell(c.statement)
        if c.note:
            statement += f"<br>*Note:* {_cell(c.note)}"
        rows.append(
            f"| {_cell(c.kind)} {_cell(c.number)} | {statement} | {_status_cell(c)} | {tests or '—'} |"
        )
    return "\n".join(rows) + "\n"


def certified_table() -> str:
    """Every ledger entry with a certificate: its status, the certified domain, and what its
    certificate holds (parts, and the boxes or points the checker re-verifies)."""
    import json

    from dpquant.reference.claims import load_ledger

    claims = [c for c in load_ledger() if c.certificate]
    if not claims:
        raise ValueError("certified: the ledger has no entry with a certificate")
    rows = [
        f"{sum(c.status == 'certified' for c in claims)} entries certified and "
        f"{sum(c.status == 'refuted' for c in claims)} refuted with a certified counterexample, "
        "generated from `notes/claims.toml` and the certificates when the site is built.",
        "",
        "| claim | status | domain | certificate |",
        "|---|---|---|---|",
    ]
    for c in claims:
        data = json.loads((ROOT / c.certificate).read_text(encoding="utf-8"))
        methods = sorted({part["method"] for part in data["parts"]})
        held = f"{len(data['parts'])} part(s): {', '.join(methods)}"
        rows.append(
            f"| {_cell(c.id)} | **{c.status}** | {_cell(c.domain)} | "
            f"{_cell(c.certificate.removeprefix('proofs_checks/certificates/'))}<br>{held} |"
        )
    return "\n".join(rows) + "\n"


def _status_cell(claim: Any) -> str:
    """The status, and for a certificate the domain it proves (a refuted entry: where its
    certified counterexample lies) and the certificate's file."""
    if not claim.certificate:
        return f"**{claim.status}**"
    what = "on" if claim.status == "certified" else "counterexample certified at"
    return (
        f"**{claim.status}**<br>{what}: {_cell(claim.domain)}<br>"
        f"certificate: {_cell(claim.certificate.rpartition('/')[2])}"
    )


_LOADER: list[Any] = []  # one griffe loader per build: the package is read once


def module_constants(module: str) -> list[str]:
    """The constants (upper-case names) that mkdocstrings would show among ``module``'s members
    without the filter: public, documented, defined there or imported and public (the handler's
    own rules), in the module's order."""
    import griffe

    if not _LOADER:
        _LOADER.append(griffe.GriffeLoader(search_paths=[str(ROOT)]))
        _LOADER[0].load("dpquant")
    loaded = _LOADER[0].modules_collection[module]
    names = []
    for name, member in loaded.members.items():
        if not _CONSTANT.match(name) or not member.has_docstrings:
            continue
        if member.is_alias and not member.is_public:
            continue
        names.append(name)
    return names


def constants_section(modules: list[str]) -> str:
    """``::: MODULE.NAME`` for each constant of the modules rendered above on the page, in their
    order: the page shows the functions and classes first and the constants at its end."""
    blocks = [
        f"::: {module}.{name}\n    options:\n      heading_level: 3\n"
        for module in modules
        for name in module_constants(module)
    ]
    if not blocks:
        raise ValueError(f"constants: no constant in {modules}")
    return "\n".join(blocks)


def include_section(path: str, heading: str) -> str:
    """The body of the section ``heading`` of the notes file ``path`` (sub-headings shifted)."""
    source = (ROOT / path).resolve()
    if ROOT / "notes" not in source.parents:
        raise ValueError(f"include: only files under notes/ are included, got {path!r}")
    lines = source.read_text(encoding="utf-8").splitlines()
    start = level = None
    for k, line in enumerate(lines):
        m = re.match(r"(#+)\s+(.*)", line)
        if m and m.group(2).strip() == heading:
            start, level = k + 1, len(m.group(1))
            break
    if start is None or level is None:
        raise ValueError(f"include: no heading {heading!r} in {path}")
    body: list[str] = []
    fenced = False
    for line in lines[start:]:
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else re.match(r"(#+)(\s+.*)", line)
        if m and len(m.group(1)) <= level:
            break
        body.append("#" + line if m else line)
    text = "\n".join(body).strip("\n")
    return f'{text}\n\n*(From `{path}`, section "{heading}".)*\n'


def _short(data: Any) -> str:
    """A data set in a few characters: runs of one value written ``[v]×k``."""
    values = list(data)
    parts: list[str] = []
    k = 0
    while k < len(values):
        j = k
        while j < len(values) and values[j] == values[k]:
            j += 1
        parts.append(
            f"[{values[k]:g}]×{j - k}" if j - k > 3 else ", ".join(f"{v:g}" for v in values[k:j])
        )
        k = j
    return "(" + ", ".join(parts) + ")" if len(parts) > 1 or "×" not in parts[0] else parts[0]


_PLOT_CACHE: dict[str, Path] = {}


def _catalogue_plots() -> dict[str, Path]:
    """One PNG per catalogue entry or control whose two exact laws on the witness can be drawn."""
    if _PLOT_CACHE:
        return _PLOT_CACHE
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from dpquant.audit.suites.catalogue import CATALOGUE, CONTROLS
    from dpquant.reference.distributions import DiscreteLaw, PiecewiseLogLinear

    _PLOTS.append(Path(tempfile.mkdtemp(prefix="dpquant-docs-plots-")))
    for entry in CATALOGUE + CONTROLS:
        exact = getattr(entry.mechanism, "exact", None)
        if exact is None or entry.witness is None or len(entry.witness[0]) > 50:
            continue
        laws = [exact(list(d)) for d in entry.witness]
        fig, ax = plt.subplots(figsize=(5.5, 2.6), dpi=90)
        for law, label, style in zip(laws, ("D", "D′"), ("-", "--"), strict=True):
            if isinstance(law, PiecewiseLogLinear):
                finite = law.breaks[np.isfinite(law.breaks)]
                lo, hi = float(finite.min()), float(finite.max())
                pad = 0.05 * (hi - lo or 1.0)
                y = np.linspace(lo - pad, hi + pad, 2001)
                ax.plot(y, law.pdf(y), style, label=label)
                ax.set_ylabel("density")
            elif isinstance(law, DiscreteLaw):
                try:
                    x = law.float_support
                except (TypeError, ValueError):
                    x = np.arange(len(law))
                ax.plot(x, law.probabilities, style, marker="o", label=label)
                ax.set_ylabel("probability")
            else:
                break
        else:
            ax.set_title(f"{entry.name}: the exact output laws on its witness", fontsize=9)
            ax.set_xlabel("output")
            ax.legend(fontsize=8)
            fig.tight_layout()
            path = _PLOTS[-1] / f"{entry.name}.png"
            fig.savefig(path)
            _PLOT_CACHE[entry.name] = path
        plt.close(fig)
    return _PLOT_CACHE


def catalogue_table() -> str:
    """The known-bad catalogue and the controls, each with its witness and exact loss there.

    Three columns, so that the table fits a laptop's screen without scrolling: the entry's name
    above its witness, the exact loss, then what is wrong above where it comes from."""
    from dpquant.audit.suites.catalogue import CATALOGUE, CONTROLS

    plots = _catalogue_plots()
    out = [
        "| entry, and its witness D vs D′ | exact ε on the witness | what is wrong, and its source |",
        "|---|---|---|",
    ]
    for entry in CATALOGUE + CONTROLS:
        eps = entry.epsilon_exact
        shown = "—" if eps is None else ("∞" if math.isinf(eps) else f"{eps:.6g}")
        witness = (
            "no witness"
            if entry.witness is None
            else f"`{_short(entry.witness[0])}` vs `{_short(entry.witness[1])}`"
        )
        out.append(
            f"| `{entry.name}`<br>{witness} | {shown} | "
            f"{_cell(entry.description)}<br>*Source:* {_cell(entry.source)} |"
        )
    out.append("")
    for entry in CATALOGUE + CONTROLS:
        if entry.name in plots:
            out += [
                f"### `{entry.name}`",
                "",
                _cell(entry.description),
                "",
                f"![{entry.name}: exact laws on the witness](plots/{entry.name}.png)",
                "",
            ]
    return "\n".join(out) + "\n"
