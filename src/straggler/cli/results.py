"""The commands on a study's results: archive (pack them with their code), verify (check
an archive) and best (the winning policies at one point of a finished dataset).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from .errors import ARCHIVE_EXPECTED, DATASET_EXPECTED, Failure, Usage, os_reason, readable, writable


def _archive(args) -> int:
    from ..outputs.archive import ArchiveError, create

    if args.output:
        writable(args.output, "archive")
    try:
        path = create(args.study, results_root=args.results, output=args.output, force=args.force)
    except ArchiveError as err:
        raise Failure(str(err)) from None
    except OSError as err:
        where = " -> ".join(str(f) for f in (err.filename, err.filename2) if f is not None)
        raise Failure(
            f"{where or 'the archive'}: {os_reason(err)}; expected the archive's path to be writable"
        ) from None
    print(path)
    return 0


def _verify(args) -> int:
    from ..outputs.archive import ArchiveError, verify

    # (the words of the archive module's refusal of a file that is not an archive)
    readable(args.archive, ARCHIVE_EXPECTED, unreadable="{path}: not a readable .tar.gz archive")
    try:
        verdict = verify(args.archive, rerun=args.rerun)
    except ArchiveError as err:
        raise Failure(str(err)) from None
    print("\n".join(verdict.lines))
    print("OK" if verdict.ok else "FAILED")
    return 0 if verdict.ok else 1


def _best(args) -> int:
    import xarray as xr

    from ..outputs.report import best_at, parse_point

    try:
        point = parse_point(args.at)
    except ValueError as err:
        raise Usage(str(err)) from None
    readable(args.dataset, DATASET_EXPECTED)
    try:
        ds = xr.open_dataset(args.dataset, engine="netcdf4")
    except (OSError, ValueError) as err:
        why = os_reason(err) if isinstance(err, OSError) else str(err)
        raise Failure(f"{args.dataset} is not a netCDF dataset ({why}); {DATASET_EXPECTED}") from None
    with ds:
        if "lambda_max" not in ds or "policy" not in ds["lambda_max"].dims or "load" not in ds.dims:
            raise Failure(
                f"{args.dataset} is not a study dataset (no lambda_max by policy, no load); {DATASET_EXPECTED}"
            )
        study = ds.load()
    from ..decide.frontier import with_located

    # a study with decision.resolution: its located frontiers too
    study = with_located(study, Path(args.dataset).parent / "capacity.csv")
    lines, on_grid = best_at(study, point)
    if not on_grid:  # lines: "the point is not on the grid:", then one problem a line
        raise Usage(*(f"the point is not on the grid: {line.strip()}" for line in lines[1:]))
    print("\n".join(lines))
    return 0


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer; expected a count >= 0") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; expected a count >= 0")
    return value


def add_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    """The commands on a study's results: archive, verify, best."""
    p = command(
        "archive",
        "pack results/<study> with its code, environment and a sha256 manifest into archives/<study>.tar.gz "
        "(refused unless every cell of the grid is there and the dataset is their aggregate)",
        "straggler archive default",
        "straggler archive default --force",
        "straggler archive default -o default-copy.tar.gz",
    )
    p.add_argument("study", help="the study's name (its results are under RESULTS/<study>), e.g. default")
    p.add_argument("--results", default="results", help="results root (default: results)")
    p.add_argument("-o", "--output", help="archive path (default: archives/<study>.tar.gz)")
    p.add_argument("--force", action="store_true", help="replace an existing archive")
    p.set_defaults(func=_archive)
    p = command(
        "verify",
        "check an archive against its manifest and its dataset against the aggregate of its cells; "
        "--rerun K re-evaluates K cells and compares them bit for bit",
        "straggler verify archives/default.tar.gz",
        "straggler verify archives/default.tar.gz --rerun 2",
    )
    p.add_argument("archive", help="an archive written by straggler archive, e.g. archives/default.tar.gz")
    p.add_argument(
        "--rerun",
        type=_non_negative,
        default=0,
        metavar="K",
        help="re-evaluate K cells (spread over the grid) with the installed code",
    )
    p.set_defaults(func=_verify)
    p = command(
        "best",
        "the winning policies at one point of a finished dataset, by stability, latency and cost, with their evidence",
        "straggler best results/default/default.nc --at r_slow=0.5 distribution=exp dependence=iid load=0.5",
        "straggler best results/default/default.nc --at r_slow=0.1 distribution=pareto dependence=identical load=0.3",
    )
    p.add_argument("dataset", help="a study dataset, e.g. results/default/default.nc")
    p.add_argument(
        "--at",
        nargs="+",
        default=[],
        metavar="AXIS=VALUE",
        help="the point: a value for every swept axis and the load, "
        "e.g. r_slow=0.3 distribution=pareto dependence=iid load=0.5",
    )
    p.set_defaults(func=_best)
