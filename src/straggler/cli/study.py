"""The commands on a study file: check-config, schema, cells, evaluate and plan (and
:func:`print_estimate`, the plan's estimate, which ``recommend --dry-run`` prints too).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..study.pilot import PILOT_JOBS, PILOT_REPLICATIONS
from .errors import CONFIG_EXPECTED, Failure, Refused, Usage, os_reason, positive_int, readable, writable

if TYPE_CHECKING:
    from ..study.config.resolved import ResolvedConfig


CELL = "policy=CoC__distribution=exp__dependence=iid__r_slow=0.5__d=2__N=10"
"""A cell of the default study, for the examples."""


def _resolve(path: str, scale: str | None = None) -> ResolvedConfig:
    """Load and resolve a config file (at ``scale``, when given): a file that cannot be
    read is a :class:`Failure`; a refused config prints its errors and raises
    Refused."""
    from ..study.config import ConfigError, load_config, resolve_config

    readable(path, CONFIG_EXPECTED)
    try:
        raw = load_config(path)
        if scale is not None:
            raw["scale"] = scale
        return resolve_config(raw)
    except ConfigError as err:
        print(f"{path}: invalid configuration:\n{err}", file=sys.stderr)
        raise Refused from None


def _check_config(args) -> int:
    from ..study.config import dump_config
    from ..study.grid import build_grid, central_queues

    resolved = _resolve(args.file)
    grid = build_grid(resolved)
    if not grid.cells:
        print(f"{args.file}: invalid configuration: the grid has no possible cell", file=sys.stderr)
        return 1
    print(dump_config(resolved), end="")
    queues = central_queues(resolved, grid)
    if queues is not None:
        print(f"# {queues}")
    if not grid.impossible:
        print(f"# {len(grid.cells)} distinct cells; no grid point left NaN")
        return 0
    print(f"# {len(grid.cells)} distinct cells; {len(grid.impossible)} grid points left NaN:")
    for point, reason in grid.impossible.items():
        print(f"#   {dict(zip(grid.axes, point))}: {reason}")
    return 0


def _schema(args) -> int:
    from ..study.config.schema import schema_text

    print(schema_text(), end="")
    return 0


def _cells(args) -> int:
    from ..study.grid import build_grid

    for cid in build_grid(_resolve(args.file)).cells:
        print(cid)
    return 0


def _evaluate(args) -> int:
    from ..study.dataset import write_netcdf
    from ..study.evaluate import evaluate_cell
    from ..study.grid import UnknownCell, build_grid

    resolved = _resolve(args.file)
    try:
        build_grid(resolved).cell(args.cell)
    except UnknownCell as err:
        hint = f"did you mean {err.closest!r}?" if err.closest else f"e.g. {err.examples[0]}"
        raise Usage(
            f"cell {args.cell!r} is not in the grid of {args.file}; expected one of its {err.count} cells "
            f"(straggler cells {args.file} lists them), {hint}"
        ) from None
    if args.output:
        writable(args.output, "netCDF file")
    ds = evaluate_cell(resolved, args.cell)
    if args.output:
        try:
            write_netcdf(ds, args.output)
        except OSError as err:
            raise Failure(
                f"cannot write {args.output} ({os_reason(err)}); expected the path of a netCDF file to write"
            ) from None
    else:
        print(ds)
    return 0


def _plan(args) -> int:
    resolved = _resolve(args.file, args.scale)
    print_estimate(resolved)
    if args.pilot:
        from ..study.pilot import comparison_text, run_pilot

        def progress(done: int, total: int) -> None:
            print(f"\rpilot: {done}/{total} cells", end="\n" if done == total else "", file=sys.stderr, flush=True)

        pilot = run_pilot(resolved, args.pilot_jobs, args.pilot_replications, progress)
        print(file=sys.stderr)
        for line in comparison_text(pilot, resolved):
            print(line)
    return 0


def print_estimate(resolved: ResolvedConfig, extra: str = "", extra_seconds: float = 0.0) -> None:
    """The plan of a resolved study: its cells and jobs, and the estimated CPU time (with
    ``extra_seconds`` of work the study file does not show, called ``extra``)."""
    from ..common.sources import model_hash
    from ..decide.break_even import delay_settings
    from ..study.grid import build_grid, central_queues
    from ..study.workunits import plan, study_seconds, tuned_values

    grid = build_grid(resolved)
    p = plan(resolved, grid, model_hash())
    later = study_seconds(resolved, grid, p, delay_settings(grid) if "simulation" in resolved.evaluate else [])
    sim = resolved.simulation
    simulated = [c for c in p.costs.values() if c.replications]
    # a tuned knob runs each value its search tries (at most tuned_values per load)
    runs = sum(c.replications * max(1, tuned_values(resolved, grid.cells[cid])) for cid, c in p.costs.items())
    # a fleet that starts from the same cell on 100 servers runs that cell too
    runs += sum(c.replications for c in p.costs.values() if c.reference > 0)
    jobs = runs * len(resolved.load) * (int(sim.jobs) + int(sim.warmup))
    seconds = p.cpu_seconds() + sum(later.values()) + extra_seconds
    print(
        f"study {resolved.study}: {len(grid.cells)} cells ({len(simulated)} simulated), "
        f"{len(p.batches)} evaluate jobs, {len(p.shards)} shard jobs"
    )
    queues = central_queues(resolved, grid)
    if queues is not None:
        print(queues)
    if sim.precision is not None:
        most = max((c.replications for c in simulated), default=0)
        print(
            f"precision {float(sim.precision):g} (the mean latency's relative CI half-width): "
            f"{int(sim.replications)} to {most} replications of {int(sim.jobs):.3g} jobs a load"
        )
    print(f"simulated jobs (all loads and replications): {jobs:.3g}")
    parts = [f"cells' jobs {p.cpu_seconds():.0f} s", *(f"{name} {v:.0f} s" for name, v in later.items())]
    if extra_seconds:
        parts.append(f"{extra} {extra_seconds:.0f} s")
    print(f"estimated CPU time: {seconds / 3600:.3g} h ({seconds:.0f} s: {', '.join(parts)})")
    print(
        "  (an upper estimate: unstable loads stop early, the loads above them are not simulated"
        + (
            ", most loads reach the precision before the cap: --pilot projects it)"
            if sim.precision is not None
            else ")"
        )
    )


def add_check_config(command: Callable[..., argparse.ArgumentParser]) -> None:
    """The command that validates a study file: check-config (``command(name, help,
    *examples)`` adds one; ``straggler --help`` lists it before fit)."""
    p = command(
        "check-config",
        "validate a config and print it resolved",
        "straggler check-config config/config.yaml",
    )
    p.add_argument("file", help="a study file, e.g. config/config.yaml")
    p.set_defaults(func=_check_config)


def add_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    """The other commands on a study file: schema, cells, evaluate, plan."""
    p = command(
        "schema",
        "print the JSON schema of a study file (YAML): every key, its default and what it allows",
        "straggler schema > config.schema.yaml",
        "(an editor's YAML language server completes and checks a study file with it:",
        " # yaml-language-server: $schema=config.schema.yaml)",
    )
    p.set_defaults(func=_schema)
    p = command(
        "cells",
        "list the distinct cells of a config's grid",
        "straggler cells config/config.yaml",
        "straggler cells config/config.yaml | grep -c distribution=pareto",
    )
    p.add_argument("file", help="a study file, e.g. config/config.yaml")
    p.set_defaults(func=_cells)
    p = command(
        "evaluate",
        "evaluate one cell outside Snakemake",
        f"straggler evaluate config/config.yaml {CELL}",
        f"straggler evaluate config/config.yaml {CELL} -o cell.nc",
    )
    p.add_argument("file", help="a study file, e.g. config/config.yaml")
    p.add_argument("cell", help="a cell id, as listed by `straggler cells FILE`")
    p.add_argument("-o", "--output", help="write the cell dataset to this netCDF file")
    p.set_defaults(func=_evaluate)
    p = command(
        "plan",
        "how a study is cut into jobs, and its estimated cost",
        "straggler plan config/config.yaml",
        "straggler plan config/studies/ps_fig5.yaml --scale paper --pilot",
        "(--scale paper needs a study file that defines scales.paper; --pilot simulates every",
        " cell briefly to project the CPU time and the widest CI, a few seconds to minutes)",
    )
    p.add_argument("file", help="a study file, e.g. config/config.yaml")
    p.add_argument("--scale", choices=("quick", "paper"), help="the scale (default: the file's)")
    p.add_argument(
        "--pilot",
        action="store_true",
        help="simulate every cell briefly, then project the CPU time and the widest CI of the study's run "
        "length and of the fixed one it is capped by",
    )
    p.add_argument("--pilot-jobs", type=positive_int, default=PILOT_JOBS, help="jobs per pilot replication")
    p.add_argument(
        "--pilot-replications", type=positive_int, default=PILOT_REPLICATIONS, help="replications per pilot load"
    )
    p.set_defaults(func=_plan)
