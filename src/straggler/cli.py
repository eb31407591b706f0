"""The ``straggler`` command."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config.resolved import ResolvedConfig


class _Refused(Exception):
    """A config was refused; the message has been printed."""


def _resolve(path: str, scale: str | None = None) -> ResolvedConfig:
    """Load and resolve a config file (at ``scale``, when given), or print its errors
    and raise _Refused."""
    from .config import ConfigError, load_config, resolve_config

    try:
        raw = load_config(path)
        if scale is not None:
            raw["scale"] = scale
        return resolve_config(raw)
    except ConfigError as err:
        print(f"{path}: invalid configuration:\n{err}", file=sys.stderr)
        raise _Refused from None


def _check_config(args) -> int:
    from .config import dump_config
    from .grid import build_grid

    resolved = _resolve(args.file)
    grid = build_grid(resolved)
    if not grid.cells:
        print(f"{args.file}: invalid configuration: the grid has no possible cell", file=sys.stderr)
        return 1
    print(dump_config(resolved), end="")
    print(f"# {len(grid.cells)} distinct cells; {len(grid.impossible)} grid points left NaN:")
    for point, reason in grid.impossible.items():
        print(f"#   {dict(zip(grid.axes, point))}: {reason}")
    return 0


def _cells(args) -> int:
    from .grid import build_grid

    for cid in build_grid(_resolve(args.file)).cells:
        print(cid)
    return 0


def _evaluate(args) -> int:
    from .dataset import write_netcdf
    from .evaluate import evaluate_cell

    ds = evaluate_cell(_resolve(args.file), args.cell)
    if args.output:
        write_netcdf(ds, args.output)
    else:
        print(ds)
    return 0


def _plan(args) -> int:
    from .grid import build_grid
    from .sources import model_hash
    from .workunits import plan

    resolved = _resolve(args.file, args.scale)
    grid = build_grid(resolved)
    p = plan(resolved, grid, model_hash())
    sim = resolved.simulation
    simulated = [c for c in p.costs.values() if c.replications]
    jobs = len(simulated) * len(resolved.load) * int(sim.replications) * (int(sim.jobs) + int(sim.warmup))
    seconds = p.cpu_seconds()
    print(
        f"study {resolved.study}: {len(grid.cells)} cells ({len(simulated)} simulated), "
        f"{len(p.batches)} evaluate jobs, {len(p.shards)} shard jobs"
    )
    print(f"simulated jobs (all loads and replications): {jobs:.3g}")
    print(
        f"estimated CPU time: {seconds / 3600:.3g} h ({seconds:.0f} s; an upper estimate: "
        "unstable loads stop early and loads above them are not simulated)"
    )
    return 0


def _bench(args) -> int:
    from .bench import run_bench

    run_bench(json=args.json, quick=args.quick)
    return 0


def _archive(args) -> int:
    from .archive import ArchiveError, create

    try:
        path = create(args.study, results_root=args.results, output=args.output, force=args.force)
    except ArchiveError as err:
        print(f"straggler archive: {err}", file=sys.stderr)
        return 1
    print(path)
    return 0


def _verify(args) -> int:
    from .archive import ArchiveError, verify

    try:
        verdict = verify(args.archive, rerun=args.rerun)
    except ArchiveError as err:
        print(f"straggler verify: {err}", file=sys.stderr)
        return 1
    print("\n".join(verdict.lines))
    print("OK" if verdict.ok else "FAILED")
    return 0 if verdict.ok else 1


def _best(args) -> int:
    import xarray as xr

    from .report import best_at, parse_point

    try:
        point = parse_point(args.at)
    except ValueError as err:
        print(f"straggler best: {err}", file=sys.stderr)
        return 2
    try:
        ds = xr.open_dataset(args.dataset, engine="netcdf4")
    except (OSError, ValueError) as err:
        print(f"straggler best: cannot read {args.dataset}: {err}", file=sys.stderr)
        return 1
    with ds:
        lines, on_grid = best_at(ds.load(), point)
    print("\n".join(lines))
    return 0 if on_grid else 1


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="straggler", description="Parameter studies of redundancy policies.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check-config", help="validate a config and print it resolved")
    p.add_argument("file")
    p.set_defaults(func=_check_config)
    p = sub.add_parser("cells", help="list the distinct cells of a config's grid")
    p.add_argument("file")
    p.set_defaults(func=_cells)
    p = sub.add_parser("evaluate", help="evaluate one cell outside Snakemake")
    p.add_argument("file")
    p.add_argument("cell", help="a cell id, as listed by `straggler cells`")
    p.add_argument("-o", "--output", help="write the cell dataset to this netCDF file")
    p.set_defaults(func=_evaluate)
    p = sub.add_parser("plan", help="how a study is cut into jobs, and its estimated cost")
    p.add_argument("file")
    p.add_argument("--scale", choices=("quick", "paper"), help="the scale (default: the file's)")
    p.set_defaults(func=_plan)
    p = sub.add_parser("bench", help="simulation throughput, with a SimPy baseline measured in the same run")
    p.add_argument("--json", action="store_true", help='print {"workloads": {...}} as JSON')
    p.add_argument("--quick", action="store_true", help="10x fewer jobs (a smoke test)")
    p.set_defaults(func=_bench)
    p = sub.add_parser(
        "archive",
        help="pack results/<study> with its code, environment and a sha256 manifest into archives/<study>.tar.gz "
        "(refused unless every cell of the grid is there and the dataset is their aggregate)",
    )
    p.add_argument("study")
    p.add_argument("--results", default="results", help="results root (default: results)")
    p.add_argument("-o", "--output", help="archive path (default: archives/<study>.tar.gz)")
    p.add_argument("--force", action="store_true", help="replace an existing archive")
    p.set_defaults(func=_archive)
    p = sub.add_parser(
        "verify",
        help="check an archive against its manifest and its dataset against the aggregate of its cells; "
        "--rerun K re-evaluates K cells and compares them bit for bit",
    )
    p.add_argument("archive")
    p.add_argument(
        "--rerun",
        type=int,
        default=0,
        metavar="K",
        help="re-evaluate K cells (spread over the grid) with the installed code",
    )
    p.set_defaults(func=_verify)
    p = sub.add_parser(
        "best",
        help="the winning policies at one point of a finished dataset, "
        "by stability, latency and cost, with their evidence",
    )
    p.add_argument("dataset", help="a study dataset, e.g. results/default/default.nc")
    p.add_argument(
        "--at",
        nargs="+",
        default=[],
        metavar="AXIS=VALUE",
        help="the point: a value for every swept axis and the load, e.g. r_slow=0.3 distribution=pareto load=0.6",
    )
    p.set_defaults(func=_best)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except _Refused:
        return 1


if __name__ == "__main__":
    sys.exit(main())
