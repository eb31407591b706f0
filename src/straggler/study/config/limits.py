"""How large a config may be: the limits that refuse a hostile or mistaken config before
any work starts (docs/reference/configuration.md, "Limits and safety"; the schema's maxima are the rest).

Each limit is far above what a study needs (the shipped studies: files of a few KB,
nesting depth 7, at most 912 grid points and 20 values on an axis) and far below what
would exhaust the machine, so that a config is refused in a second, not after minutes of
parsing, building a grid or writing files:

- :data:`MAX_CONFIG_BYTES`, :data:`MAX_DEPTH`, :data:`MAX_SCALAR_CHARS`: what the loader
  (:mod:`.loader`) reads, which also refuses YAML anchors and aliases (a "billion laughs"
  of a few lines expands to 10^10 nodes);
- :data:`MAX_AXIS_VALUES`, :data:`MAX_GRID_POINTS`: the grid, checked from the axis lengths
  before anything is validated or built (:func:`size_errors`);
- :data:`MAX_CELL_ID_BYTES`: a cell's file name (:func:`cell_id_errors`);
- :data:`SIZE_RANGE`: the mean of every size law and the arrival rate (``.checks``).
"""

from __future__ import annotations

import math

from ...model.policies import ALIASES, POLICIES, canonical_policy
from .errors import Err, format_value, one_of
from .nodes import list_at, section

MAX_CONFIG_BYTES = 256 * 1024
"""A study file's size: 256 KiB (the shipped ones are under 5 KB). Parsing it takes about
a second; without a limit a file of 10^6 list entries takes minutes."""

MAX_DEPTH = 20
"""Nested mappings and lists (a study needs 7: ``scales.paper.system.types.belief[i][j]``);
PyYAML's composer and the validation recurse, and 1000 levels exhaust Python's stack."""

MAX_SCALAR_CHARS = 1000
"""Characters of one key or value: no key takes free text, names have at most
:data:`MAX_NAME_LENGTH`, and an integer of more than 4300 digits is a ValueError in
Python itself."""

MAX_NAME_LENGTH = 64
"""Characters of a study, distribution or dependence name (the schema's name patterns):
names go into directory, file and cell names."""

MAX_AXIS_VALUES = 1000
"""Values of one grid axis (and of ``load``): each value of an extra axis is validated on
its own, a few milliseconds each (the schema's maxItems)."""

MAX_GRID_POINTS = 100_000
"""Points of the grid, the product of its axis lengths (a cell per point at most): the
grid, the work units and Snakemake's DAG are built from them at parse time. 10^5 points
(10 policies x 100 d x 100 N) take 3 s in ``straggler check-config`` and 8 s in
``snakemake -n``; 10^7 took more than 3 minutes and 4 GB."""

MAX_FILE_NAME_BYTES = 255
"""A file name's length on Linux and macOS file systems (ENAMETOOLONG beyond)."""

CELL_FILE_EXTRA_BYTES = len("@") + 12 + len(".nc") + len("..") + 7 + len(".tmp")
"""What a cell's file name adds to its id: ``<id>@<12 hex>.nc``, written as
``.<name>.<pid>.tmp`` first (a pid has at most 7 digits: Linux's pid_max is 2^22)."""

MAX_CELL_ID_BYTES = MAX_FILE_NAME_BYTES - CELL_FILE_EXTRA_BYTES
"""The longest cell id whose file names fit (226 bytes)."""

SIZE_RANGE = (1e-100, 1e100)
"""The range of a size law's mean, of a replica's mean size and of the arrival rate:
their squares and sums over 10^13 jobs stay finite and normal (a mean of 1e-320 made
the arrival rate infinite)."""

MAX_REPLICATION_RUNS = 1_000_000
"""Grid points times replications, when the study simulates: the work units split a
cell's replications into jobs, and the plan of 10^9 replications never finished."""


def _length(values) -> int:
    return len(values) if isinstance(values, list) else 1


def _policy_list_lengths(cfg: dict) -> dict[str, int]:
    """A policy parameter given as a list is an axis named by the parameter (the union of
    the lists of every policy of the grid that has it: at most their total length)."""
    grid = cfg["grid"]
    names = list_at(grid, "policy")
    used = {canonical_policy(n) for n in names if isinstance(n, str) and (n in POLICIES or n in ALIASES)}
    policies = section(cfg, "policies")
    out: dict[str, int] = {}
    for name, params in policies.items():
        if not (isinstance(name, str) and (name in POLICIES or name in ALIASES)) or canonical_policy(name) not in used:
            continue
        for param, value in (params if isinstance(params, dict) else {}).items():
            if isinstance(value, list):
                out[str(param)] = out.get(str(param), 0) + len(value)
    return out


def axis_lengths(cfg: dict) -> dict[str, int]:
    """Axis -> its number of values, from the config as written (an upper bound of the
    grid's: aliases and repeats are not yet removed); an axis not given counts 1."""
    grid = cfg["grid"]
    lengths = {str(key): _length(values) for key, values in grid.items()}
    lengths.update(_policy_list_lengths(cfg))
    return lengths


def size_errors(cfg: dict) -> list[Err]:
    """The grid's size against :data:`MAX_AXIS_VALUES` and :data:`MAX_GRID_POINTS`, from
    the lengths alone, before anything is validated or built."""
    if not isinstance(cfg.get("grid"), dict):
        return []
    lengths = axis_lengths(cfg)
    errs = [
        Err(("grid", axis), f"grid.{axis}: a list of {n} values is not allowed; expected at most {MAX_AXIS_VALUES}")
        for axis, n in lengths.items()
        if n > MAX_AXIS_VALUES
    ]
    if _length(cfg.get("load")) > MAX_AXIS_VALUES:
        n = _length(cfg.get("load"))
        errs.append(Err(("load",), f"load: a list of {n} values is not allowed; expected at most {MAX_AXIS_VALUES}"))
    points = math.prod(lengths.values())
    swept = " x ".join(f"{axis} {n}" for axis, n in lengths.items() if n > 1)
    if points > MAX_GRID_POINTS:
        errs.append(
            Err(
                ("grid",),
                f"grid: a grid of {points} points ({swept}) is not allowed; expected at most "
                f"{MAX_GRID_POINTS} points (the product of the axis lengths)",
            )
        )
    elif points * _replications(cfg) > MAX_REPLICATION_RUNS:
        reps = _replications(cfg)
        errs.append(
            Err(
                ("simulation", "replications"),
                f"simulation.replications: value {reps} is not allowed with a grid of {points} points ({swept}); "
                f"expected grid points x replications <= {MAX_REPLICATION_RUNS}",
            )
        )
    return errs


def _replications(cfg: dict) -> int:
    """The replications of a simulated study (1 when nothing is simulated)."""
    evaluate = cfg.get("evaluate", ["simulation"])
    if not isinstance(evaluate, list) or "simulation" not in evaluate:
        return 1
    sim = section(cfg, "simulation")
    reps = sim.get("replications", 4)
    return reps if isinstance(reps, int) and not isinstance(reps, bool) and reps > 0 else 1


def cell_id_errors(resolved: dict) -> list[Err]:
    """The longest cell id against :data:`MAX_CELL_ID_BYTES`. It is bounded by the sum of
    the longest ``axis=value`` of every axis (a cell drops the axes its policy ignores),
    so that no grid needs to be built."""
    from .axes import axes_of, literal
    from .resolved import ResolvedConfig

    try:
        axes = axes_of(ResolvedConfig.from_dict(resolved))
    except ValueError:
        return []  # the grid reports it
    parts = {axis: max(len(f"{axis}={literal(v)}".encode()) for v in values) for axis, values in axes.items()}
    longest = sum(parts.values()) + len("__") * (len(parts) - 1)
    if longest <= MAX_CELL_ID_BYTES:
        return []
    widest = sorted(parts, key=lambda a: -parts[a])[:3]
    example = {a: max(axes[a], key=lambda v: len(literal(v))) for a in widest}
    return [
        Err(
            ("grid",),
            f"grid: cell ids of up to {longest} bytes are not allowed; expected at most {MAX_CELL_ID_BYTES} bytes, "
            f"so that a cell's file name (<cell id>@<hash>.nc, written under a temporary name) stays within "
            f"{MAX_FILE_NAME_BYTES} bytes: shorten the longest names or values "
            f"({one_of(f'{a} {format_value(example[a], 40)}: {parts[a]} bytes' for a in widest)}) "
            f"or sweep fewer axes",
        )
    ]
