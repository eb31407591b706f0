"""A paper study at its paper scale against its quick scale: CPU time, precision, claims.

    .venv/bin/python benchmarks/paper_scale.py RESULTS STUDY [STUDY ...] [--markdown]

For each study, reads ``RESULTS/<study>/`` (the quick scale) and ``RESULTS/<study>-paper/``
(the paper scale, precision-defined: ``simulation.precision``, from ``replications`` runs
of the papers' length up to their 50), and prints:

- the CPU time of the paper-scale run: ``RESULTS/<study>-paper/cpu_seconds`` when the
  run wrote one (``user + sys`` of the whole ``snakemake`` process tree, e.g. from
  ``/usr/bin/time``), else the sum of its jobs' ``benchmarks/`` records;
- the replications each simulated point took (fewest, median, most) and the share of
  the fixed length's jobs (50 runs at every point simulated) they used;
- the widest relative CI half-width of the mean latency over the stable points, as run
  and as the fixed length would have given it: the precision run's replications are
  the first of the fixed length's 50 (the same streams), so where a point ran all 50
  it is the fixed length's own, and elsewhere it is projected from the spread of the
  replications run (``t_49 s / sqrt(50)``);
- each claim's verdict at both scales, and which changed;
- with several studies, their total CPU time against the fixed length's, and whether
  every study's widest CI is at most the fixed length's.

``--markdown`` prints the tables the docs page ``docs/validation/paper-scale.md`` holds.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from pathlib import Path

import numpy as np
import xarray as xr
import yaml
from scipy import stats

FIXED_REPLICATIONS = 50


def cpu_seconds(folder: Path) -> tuple[float, str]:
    """The run's CPU seconds and where they come from."""
    recorded = folder / "cpu_seconds"
    if recorded.is_file():
        return float(recorded.read_text().split()[0]), "process tree"
    total = 0.0
    for tsv in folder.glob("benchmarks/**/*.tsv"):
        with tsv.open() as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
        total += sum(float(r["cpu_time"]) for r in rows if r.get("cpu_time") not in (None, "", "NA"))
    return total, "job records"


def fixed_replications(ran: np.ndarray, verdict: np.ndarray) -> np.ndarray:
    """The replications the fixed length runs at each load the precision run simulated:
    50 at a stable load, what was run at an unstable one (where the run stopped, the
    fixed length stops too; counted as run, the projection errs low, against the
    precision run)."""
    return np.where(verdict == "stable", FIXED_REPLICATIONS, ran)


def fixed_cpu_seconds(folder: Path) -> float:
    """The fixed length's CPU time, projected from the run: each cell's CPU seconds (its
    job's record: a precision cell is one job) over the replications it ran, times
    :func:`fixed_replications` (a replication of a load costing about the same in
    both)."""
    import json

    total = 0.0
    for unit in folder.glob("units/*.json"):
        tsv = folder / "benchmarks" / "evaluate" / f"{unit.stem}.tsv"
        cells = json.loads(unit.read_text())["cells"]
        cell_file = folder / "cells" / f"{cells[0]['key']}.nc" if len(cells) == 1 else None
        if not tsv.is_file() or cell_file is None or not cell_file.is_file():
            continue
        with tsv.open() as f:
            cpu = float(next(csv.DictReader(f, delimiter="\t"))["cpu_time"])
        with xr.open_dataset(cell_file) as cell:
            ran, verdict = cell["replications"].values, cell["verdict"].values.astype(str)
        simulated = np.isfinite(ran) & (ran > 0)
        if simulated.any():
            total += cpu * fixed_replications(ran[simulated], verdict[simulated]).sum() / float(ran[simulated].sum())
    return total


def _points(ds: xr.Dataset):
    """Per simulated stable point: (where, mean, replication means)."""
    stable = ds["verdict"] == "stable"
    dims = ds["latency_mean"].dims  # the grid's axes (policy parameters among them) and load
    means = ds["latency_mean"].where(stable).stack(point=dims)
    reps = ds["latency_replication_mean"].where(stable).stack(point=dims).transpose("point", "replication")
    for i in range(means.sizes["point"]):
        mean = float(means.values[i])
        row = reps.values[i]
        row = row[np.isfinite(row)]
        if math.isfinite(mean) and len(row) >= 2:
            yield means["point"].values[i], mean, row


def precision_summary(ds: xr.Dataset, confidence: float) -> dict:
    """Widest relative half-widths (as run; at the fixed length), replications used."""
    t50 = stats.t.ppf(0.5 + confidence / 2, FIXED_REPLICATIONS - 1)
    run, fixed, used = (0.0, None), (0.0, None), []
    for where, mean, row in _points(ds):
        r = len(row)
        spread = float(np.std(row, ddof=1))
        half = stats.t.ppf(0.5 + confidence / 2, r - 1) * spread / math.sqrt(r) / mean
        at_fixed = t50 * spread / math.sqrt(FIXED_REPLICATIONS) / mean
        run = max(run, (half, where), key=lambda x: x[0])
        fixed = max(fixed, (at_fixed, where), key=lambda x: x[0])
        used.append(r)
    ran = ds["replications"].values.ravel()
    verdict = ds["verdict"].values.astype(str).ravel()
    simulated = np.isfinite(ran) & (ran > 0)
    fixed_count = fixed_replications(ran[simulated], verdict[simulated]).sum()
    return {
        "widest": run,
        "widest_fixed": fixed,
        "replications": (min(used), float(np.median(used)), max(used)) if used else (0, 0.0, 0),
        "share_of_fixed": float(ran[simulated].sum()) / fixed_count if fixed_count else math.nan,
    }


def claims(folder: Path) -> dict[str, str]:
    path = folder / "claims.csv"
    if not path.is_file():
        return {}
    with path.open() as f:
        return {row["claim"]: row["verdict"] for row in csv.DictReader(f)}


def _where(point) -> str:
    if point is None:
        return "-"
    *cell, load = point
    return f"{'/'.join(str(v) for v in cell)} at load {load:g}"


def study_row(results: Path, study: str) -> dict:
    paper = results / f"{study}-paper"
    ds = xr.open_dataset(paper / f"{study}-paper.nc")
    config = yaml.safe_load(ds.attrs["config"])
    confidence = float(config["simulation"]["confidence"])
    row = {"study": study, **precision_summary(ds, confidence)}
    row["precision"] = config["simulation"].get("precision")
    row["cpu_seconds"], row["cpu_source"] = cpu_seconds(paper)
    row["fixed_cpu_seconds"] = fixed_cpu_seconds(paper)
    quick, at_paper = claims(results / study), claims(paper)
    row["claims"] = [(c, quick.get(c, "-"), at_paper.get(c, "-")) for c in sorted(set(quick) | set(at_paper))]
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("studies", nargs="+")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    rows = [study_row(args.results, s) for s in args.studies]
    out = sys.stdout
    if args.markdown:
        print("| study | precision | CPU time | the fixed length's, projected | replications (fewest / median / most) | "
              "replications of the fixed length's | widest CI half-width | at the fixed length |", file=out)  # fmt: skip
        print("|---|---|---|---|---|---|---|---|", file=out)
    for r in rows:
        lo, med, hi = r["replications"]
        widest, fixed = r["widest"], r["widest_fixed"]
        if args.markdown:
            print(
                f"| `{r['study']}` | {r['precision']} | {r['cpu_seconds'] / 3600:.2f} h | "
                f"{r['fixed_cpu_seconds'] / 3600:.2f} h | {lo} / {med:g} / {hi} | "
                f"{r['share_of_fixed']:.0%} | {widest[0]:.2%} ({_where(widest[1])}) | {fixed[0]:.2%} |",
                file=out,
            )
        else:
            print(
                f"{r['study']}: precision {r['precision']}, {r['cpu_seconds'] / 3600:.2f} CPU-h ({r['cpu_source']}; "
                f"the fixed length {r['fixed_cpu_seconds'] / 3600:.2f} CPU-h, projected from the cells' jobs), "
                f"replications {lo}/{med:g}/{hi}, {r['share_of_fixed']:.0%} of the fixed length's replications; widest CI "
                f"{widest[0]:.3%} ({_where(widest[1])}), at the fixed length {fixed[0]:.3%} ({_where(fixed[1])})",
                file=out,
            )
    if len(rows) > 1:
        cpu, fixed = sum(r["cpu_seconds"] for r in rows), sum(r["fixed_cpu_seconds"] for r in rows)
        better = all(r["widest"][0] <= r["widest_fixed"][0] for r in rows)
        verdict = "at least as precise everywhere" if better else "less precise somewhere"
        if args.markdown:
            print(
                f"| all | | {cpu / 3600:.2f} h | {fixed / 3600:.2f} h ({cpu / fixed:.2f} of it) | | | {verdict} | |",
                file=out,
            )
        else:
            print(f"all: {cpu / 3600:.2f} CPU-h, the fixed length {fixed / 3600:.2f} CPU-h: {cpu / fixed:.2f} of it; {verdict}",
                  file=out)  # fmt: skip
    print(file=out)
    if args.markdown:
        print("| study | claim | quick | paper |", file=out)
        print("|---|---|---|---|", file=out)
    for r in rows:
        for claim, quick, paper in r["claims"]:
            mark = "" if quick == paper else " (changed)"
            if args.markdown:
                print(f"| `{r['study']}` | {claim} | {quick} | {paper}{mark} |", file=out)
            else:
                print(f"  {claim}: quick {quick}, paper {paper}{mark}", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
