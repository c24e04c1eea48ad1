"""What the imola25 study runs (Sec. 6 and Figure 1 of Imola et al.): the panels, the mechanisms,
the privacy parameters, and the study's configuration (:class:`Study`, :func:`make_study`).

Setting (Sec. 6): domain (0, 100), ε = 1, δ = 10⁻¹⁶, β = 0.05, m ∈ {10, 20, ..., 200} quantiles;
panels a = age/substitute, b = hours/substitute, c = age/add-remove, d = hours/add-remove (the
paper's "substitute" is our ``replace_one``). Mechanisms: SliceQuantiles (Algorithm 1), the AQ
baseline in its pure and zCDP versions, and JointExp (Gillenwater et al. 2021; not in the paper's
figure, and O(m·n) per release: by default only 10 runs at m ∈ {10, 50, 100, 200}).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpquant.errors import ParameterError
from dpquant.reference.validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_flag,
    check_int,
)
from dpquant.studies.harness import check_seed, check_sequence
from dpquant.studies.imola25.data import ADULT_SIZE, MAX_DUPLICATION, check_dataset, check_m

ADJACENCIES = ("replace_one", "add_remove")
PANELS: dict[str, tuple[str, str]] = {
    "a": ("age", "replace_one"),
    "b": ("hours_per_week", "replace_one"),
    "c": ("age", "add_remove"),
    "d": ("hours_per_week", "add_remove"),
}
PANEL_TITLES = {
    "a": "a) AdultAge, substitute",
    "b": "b) AdultHours, substitute",
    "c": "c) AdultAge, add/remove",
    "d": "d) AdultHours, add/remove",
}
MECHANISMS = ("SliceQuantiles", "AQ pure", "AQ zCDP", "JointExp")
EPSILON = 1.0
DELTA = 1e-16
BETA = 0.05
M_VALUES: tuple[int, ...] = tuple(range(10, 201, 10))
DEFAULT_RUNS = 200
DEFAULT_JOINTEXP_RUNS = 10
DEFAULT_JOINTEXP_M: tuple[int, ...] = (10, 50, 100, 200)
QUICK_PANELS = ("a", "c")
QUICK_M: tuple[int, ...] = (10, 20)
QUICK_RUNS = 3
QUICK_JOINTEXP_RUNS = 1
QUICK_JOINTEXP_M: tuple[int, ...] = (10,)
DEFAULT_OUT = Path("reports") / "imola25"


def check_panel(panel: Any, name: str = "panels") -> str:
    """One of the panels "a".."d" of Figure 1."""
    return check_choice(panel, name, PANELS)


@dataclass(frozen=True)
class Cell:
    """One (panel, m, mechanism) at a duplication factor."""

    panel: str
    dataset: str
    adjacency: str
    duplication: int
    m: int
    mechanism: str
    runs: int
    epsilon: float = EPSILON
    delta: float = DELTA

    def __post_init__(self) -> None:
        def put(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)

        check_panel(self.panel, "panel")
        check_dataset(self.dataset)
        check_choice(self.adjacency, "adjacency", ADJACENCIES)
        put(
            "duplication",
            check_int(self.duplication, "duplication", minimum=1, maximum=MAX_DUPLICATION),
        )
        put("m", check_m(self.m))
        check_choice(self.mechanism, "mechanism", MECHANISMS)
        put("runs", check_int(self.runs, "runs", minimum=0))
        put("epsilon", check_epsilon(self.epsilon))
        put("delta", check_delta(self.delta))

    @property
    def n(self) -> int:
        return self.duplication * ADULT_SIZE


def check_cell(cell: Any, name: str = "cell") -> Cell:
    """``cell`` is a :class:`Cell`."""
    if not isinstance(cell, Cell):
        raise ParameterError(name, "must be a Cell", type(cell).__name__)
    return cell


@dataclass(frozen=True)
class Study:
    """What :func:`dpquant.studies.imola25.run` runs (defaults: Sec. 6; ``quick``: a tiny smoke
    version); see :func:`make_study`."""

    panels: tuple[str, ...]
    ms: tuple[int, ...]
    runs: int
    jointexp_runs: int
    jointexp_ms: tuple[int, ...]
    duplication: int | None
    epsilon: float
    delta: float
    seed: int


def check_study(study: Any) -> Study:
    """``study`` is a :class:`Study`."""
    if not isinstance(study, Study):
        raise ParameterError("study", "must be a Study (make_study(...))", type(study).__name__)
    return study


def _check_list(values: Iterable[Any], check: Callable[[Any, str], Any], name: str) -> tuple:
    out = tuple(dict.fromkeys(check(v, name) for v in values))
    if not out:
        raise ParameterError(name, "must not be empty")
    return out


def make_study(
    *,
    panels: Sequence[str] | None = None,
    ms: Sequence[int] | None = None,
    runs: int | None = None,
    jointexp_runs: int | None = None,
    jointexp_ms: Sequence[int] | None = None,
    duplication: int | None = None,
    epsilon: float = EPSILON,
    delta: float = DELTA,
    seed: int = 0,
    quick: bool = False,
) -> Study:
    """The validated configuration; ``None`` takes the default (or the ``quick`` default).

    ``panels`` among "a".."d" (default all; quick: a and c), ``ms`` (default 10..200; quick 10,
    20), ``runs`` per cell (200; quick 3), ``jointexp_runs``/``jointexp_ms`` (10 at 10, 50, 100,
    200; quick 1 at 10; 0 runs = no JointExp), ``duplication`` forces k (default: the smallest
    feasible per adjacency), ``seed`` >= 0."""
    quick = check_flag(quick, "quick")
    for name, value in (("panels", panels), ("ms", ms), ("jointexp_ms", jointexp_ms)):
        if value is not None:
            check_sequence(value, name)
    panels = QUICK_PANELS if panels is None and quick else panels or tuple(PANELS)
    ms = (QUICK_M if quick else M_VALUES) if ms is None else ms
    jm = (QUICK_JOINTEXP_M if quick else DEFAULT_JOINTEXP_M) if jointexp_ms is None else jointexp_ms
    runs = (QUICK_RUNS if quick else DEFAULT_RUNS) if runs is None else runs
    jr = (
        (QUICK_JOINTEXP_RUNS if quick else DEFAULT_JOINTEXP_RUNS)
        if jointexp_runs is None
        else jointexp_runs
    )
    return Study(
        panels=tuple(sorted(_check_list(panels, check_panel, "panels"))),
        ms=tuple(sorted(_check_list(ms, check_m, "ms"))),
        runs=check_int(runs, "runs", minimum=1),
        jointexp_runs=check_int(jr, "jointexp_runs", minimum=0),
        jointexp_ms=tuple(sorted(_check_list(jm, check_m, "jointexp_ms"))),
        duplication=None
        if duplication is None
        else check_int(duplication, "duplication", minimum=1, maximum=MAX_DUPLICATION),
        epsilon=check_epsilon(epsilon),
        delta=check_delta(delta),
        seed=check_seed(seed),
    )


def build_cells(study: Study, duplications: dict[str, int]) -> list[Cell]:
    """Cells in panel, m, mechanism order; JointExp only at m ∈ jointexp_ms ∩ ms with its own run
    count (none when jointexp_runs = 0)."""
    study = check_study(study)
    if not isinstance(duplications, dict) or any(
        PANELS[p][1] not in duplications for p in study.panels
    ):
        raise ParameterError("duplications", "must map every adjacency of the study to a factor")
    cells = []
    for panel in study.panels:
        dataset, adj = PANELS[panel]
        for m in study.ms:
            for mech in MECHANISMS:
                runs = study.runs
                if mech == "JointExp":
                    if m not in study.jointexp_ms or study.jointexp_runs == 0:
                        continue
                    runs = study.jointexp_runs
                cells.append(
                    Cell(
                        panel,
                        dataset,
                        adj,
                        duplications[adj],
                        m,
                        mech,
                        runs,
                        study.epsilon,
                        study.delta,
                    )
                )
    return cells


__all__ = [
    "ADJACENCIES",
    "BETA",
    "DEFAULT_OUT",
    "DELTA",
    "EPSILON",
    "MECHANISMS",
    "M_VALUES",
    "PANELS",
    "PANEL_TITLES",
    "Cell",
    "Study",
    "build_cells",
    "check_cell",
    "check_panel",
    "check_study",
    "make_study",
]
