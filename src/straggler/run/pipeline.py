"""The steps that the Snakemake rules run, as plain functions.

Each takes file paths and plain values, so a step can be rerun by hand outside
Snakemake (``python -m straggler.run.pipeline evaluate SPEC.json CELL OUT.nc``).
"""

from __future__ import annotations

import json
import logging
import sys
import time
from pathlib import Path

from ..common.files import CHECKSUM_SUFFIX, damage, discard, keep_previous, sweep_temporaries, write_text

log = logging.getLogger(__name__)


def evaluate(spec_json: str, cell_id: str, out_path, store_root=None) -> None:
    """Evaluate one cell from its self-contained config (:func:`straggler.study.grid.cell_spec`,
    as JSON) and write ``out_path``."""
    from ..study.config.resolved import ResolvedConfig
    from ..study.dataset import write_cell
    from ..study.evaluate import evaluate_cell

    resolved = ResolvedConfig.from_dict(json.loads(spec_json))
    write_cell(evaluate_cell(resolved, cell_id, store_root), out_path)


def _progress(text: str) -> None:
    """One line per cell in the job's log and on stderr (where Snakemake shows it)."""
    log.info(text)
    print(text, file=sys.stderr, flush=True)


def announce_compile(resolved, cells: list[str]) -> list[str]:
    """The kinds of ``cells`` (:func:`straggler.study.workunits.kernel_kind`) that numba's
    cache lacks, to record once the job has run (:func:`note_compiled`). Every job that
    will compile says so on the console, with what it will compile and about how long
    it takes (:attr:`straggler.engines.registry.EngineSpec.compile_seconds`): the compiles happen per job,
    and a job that compiled silently looked like a hang."""
    from ..common import kernel_cache
    from ..study.grid import build_grid
    from ..study.progress import compile_seconds, duration, kind_engine
    from ..study.workunits import kernel_kind

    grid = build_grid(resolved)
    kinds = [kernel_kind(resolved, grid.cells[c]) for c in cells if c in grid.cells]
    missing = kernel_cache.missing_kinds(k for k in kinds if k is not None)
    if missing:
        cached = {kind_engine(kind) for kind in kernel_cache.compiled_kinds()}
        seconds = 0.0
        for kind in missing:
            engine = kind_engine(kind)
            seconds += compile_seconds(kind, engine in cached)
            cached.add(engine)
        names = sorted({kind.split("/")[1] for kind in missing})
        if seconds < 1:
            return missing  # signatures of engines compiled before: nothing a reader waits for
        _progress(
            f"compiling the simulation kernels of {len(missing)} kind{'s' if len(missing) != 1 else ''} of cell "
            f"new to numba's cache ({', '.join(names)}): about {duration(seconds)}, unless a job beside "
            "this one has just cached them ..."
        )
    return missing


def note_compiled(kinds: list[str], seconds: float | None = None) -> None:
    """Record ``kinds`` as compiled (:func:`straggler.common.kernel_cache.record_compiled`), once
    the job that compiled them has run, and ``seconds``, given, as what it took (the
    job's first cell: the compile and a cell's work)."""
    if kinds:
        from ..common import kernel_cache

        kernel_cache.record_compiled(kinds, seconds)


def evaluate_batch(resolved_yaml: str, cells: list[str], keys: list[str], results, manifest_path) -> None:
    """Evaluate a batch of cells (:mod:`straggler.study.workunits`): each result goes to
    ``results/cells/<key>.nc``; a cell whose file exists and is whole
    (:func:`straggler.common.files.damage`) is skipped, a damaged one replaced. The replications
    are kept in (and read back from) ``results/sim``. Writes a manifest last."""

    from ..study.config.resolved import ResolvedConfig
    from ..study.dataset import write_cell
    from ..study.evaluate import evaluate_cell

    resolved = ResolvedConfig.from_yaml(resolved_yaml)
    results = Path(results)
    done: list[dict] = []
    start_all = time.perf_counter()
    todo = [c for c, k in zip(cells, keys) if not (results / "cells" / f"{k}.nc").exists()]
    compiling = announce_compile(resolved, todo)
    for i, (cell, key) in enumerate(zip(cells, keys), 1):
        path = results / "cells" / f"{key}.nc"
        if path.exists() and not damage(path):
            _progress(f"[{i}/{len(cells)}] {cell}: done before, skipped")
            continue
        start = time.perf_counter()
        stats: dict = {}
        ds = evaluate_cell(resolved, cell, store_root=results / "sim", stats=stats)
        write_cell(ds, path)
        seconds = time.perf_counter() - start
        jobs = stats.get("simulated_jobs", 0)
        done.append({"cell": cell, "key": key, "seconds": round(seconds, 3), "jobs": jobs})
        _progress(f"[{i}/{len(cells)}] {cell}: {ds.sizes['load']} loads, {jobs:,} jobs simulated, {seconds:.2f} s")
    note_compiled(compiling, done[0]["seconds"] if done else None)
    write_text(
        manifest_path, json.dumps({"cells": done, "seconds": round(time.perf_counter() - start_all, 3)}, indent=1)
    )


def run_shard(resolved_yaml: str, cell: str, first: int, stop: int, results, marker_path) -> None:
    """The job of ``rule simulate_shard``: simulate replications ``first .. stop - 1``
    of ``cell`` into ``results/sim`` (a shard, :mod:`straggler.study.workunits`), then write
    a marker."""

    from ..study.config.resolved import ResolvedConfig
    from ..study.evaluate import simulate_cell_shard as run

    resolved = ResolvedConfig.from_yaml(resolved_yaml)
    compiling = announce_compile(resolved, [cell])
    start = time.perf_counter()
    jobs = run(resolved, cell, first, stop, Path(results) / "sim")
    seconds = time.perf_counter() - start
    note_compiled(compiling, seconds)
    _progress(f"{cell} replications {first}..{stop - 1}: {jobs:,} jobs simulated, {seconds:.2f} s")
    write_text(
        marker_path,
        json.dumps({"cell": cell, "first": first, "stop": stop, "jobs": jobs, "seconds": round(seconds, 3)}),
    )


def aggregate(resolved_yaml: str, cell_paths: list[str], out_nc, out_config, recorded_yaml: str | None = None) -> None:
    """Combine the cell files into the study dataset and copy the resolved config
    beside it. The dataset records ``recorded_yaml`` (the config without the keys
    that never change a number), so it is the same however the work was cut."""

    from ..study.dataset import write_netcdf

    study = combined(resolved_yaml, cell_paths, recorded_yaml)
    write_netcdf(study, out_nc)
    keep_previous(out_nc)
    write_text(out_config, resolved_yaml)
    _prune(cell_paths)
    # every job that writes under the study's folder has finished: what a killed job left
    for tmp in sweep_temporaries([Path(out_nc).parent]):
        log.info("removed %s (left by a killed job)", tmp)


def combined(resolved_yaml: str, cell_paths: list[str], recorded_yaml: str | None = None):
    """The study dataset of the cell files, in memory (what :func:`aggregate` writes)."""
    from ..study.config.resolved import ResolvedConfig
    from ..study.dataset import aggregate as combine
    from ..study.dataset import read_cell
    from ..study.grid import build_grid
    from ..study.provenance import provenance

    resolved = ResolvedConfig.from_yaml(resolved_yaml)
    grid = build_grid(resolved)
    cells = {}
    for path in cell_paths:
        why = damage(path)
        if why:
            # the Snakefile recomputes a damaged cell before this step; one damaged since
            raise ValueError(f"cell file {path}: {why}; run the workflow again to recompute it")
        record = read_cell(path)
        cells[record.attrs["cell_id"]] = record
    missing = set(grid.cells) - set(cells)
    if missing:
        raise ValueError(f"missing cell results: {sorted(missing)[:5]}")
    recorded = resolved_yaml if recorded_yaml is None else recorded_yaml
    return combine(grid, cells, provenance(ResolvedConfig.from_yaml(recorded), recorded))


def _prune(cell_paths: list[str]) -> None:
    """Leave in the cells' folder exactly the cells of this dataset: older versions
    (another spec or code) and cells no longer on the grid go (their replications stay
    in the store, so widening the grid again simulates nothing twice)."""
    keep = {Path(p).resolve() for p in cell_paths}
    folders = {Path(p).resolve().parent for p in cell_paths}
    for folder in folders:
        for path in folder.glob("*.nc"):
            if path.resolve() not in keep:
                discard(path)
                log.info("removed %s (not a cell of this dataset)", path.name)
        for checksum in folder.glob(f"*.nc{CHECKSUM_SUFFIX}"):
            if not checksum.with_suffix("").exists():
                checksum.unlink()


def search(resolved_yaml: str, nc_path, setting: dict, store_root, out_json) -> None:
    """The frontiers and crossovers of one setting (:mod:`.frontier`), probed into the
    cells' stores under ``store_root``, as JSON."""
    import xarray as xr

    from ..decide.frontier import SettingSearch
    from ..study.config.resolved import ResolvedConfig
    from ..study.grid import build_grid

    resolved = ResolvedConfig.from_yaml(resolved_yaml)
    with xr.open_dataset(nc_path, engine="netcdf4") as ds:
        grid_ds = ds.load()
    found = SettingSearch(resolved, build_grid(resolved), setting, store_root, dict(grid_ds.attrs)).run(grid_ds)
    log.info("%s: %d evaluations, %d jobs simulated", setting, found["evaluations"], found["simulated_jobs"])
    write_text(out_json, json.dumps(found, indent=1, default=str))


def break_even(resolved_yaml: str, nc_path, setting: dict, store_root, out_json) -> None:
    """The break-even cancellation delays of one setting (:mod:`.break_even`), probed into
    the cells' stores under ``store_root``, as JSON."""
    import xarray as xr

    from ..decide.break_even import BreakEvenSearch
    from ..study.config.resolved import ResolvedConfig
    from ..study.grid import build_grid

    resolved = ResolvedConfig.from_yaml(resolved_yaml)
    with xr.open_dataset(nc_path, engine="netcdf4") as ds:
        attrs = dict(ds.attrs)
    found = BreakEvenSearch(resolved, build_grid(resolved), setting, store_root, attrs).run()
    log.info("%s: %d evaluations, %d jobs simulated", setting, found["evaluations"], found["simulated_jobs"])
    write_text(out_json, json.dumps(found, indent=1, default=str))


def break_even_csv(paths: list[str], csv_path) -> None:
    """``break_even.csv`` from the settings' break-even searches."""
    from ..decide.break_even import break_even_table

    found = [json.loads(Path(p).read_text()) for p in paths]
    write_text(csv_path, break_even_table(found).to_csv(index=False))


def locate(search_paths: list[str], capacity_csv, crossovers_csv, figure_dir=None) -> None:
    """``capacity.csv`` and ``crossovers.csv`` from the settings' searches (and, given
    ``figure_dir``, the capacity figure)."""
    from ..decide.frontier import capacity_table, crossover_table

    found = [json.loads(Path(p).read_text()) for p in search_paths]
    capacity = capacity_table(found)
    write_text(capacity_csv, capacity.to_csv(index=False))
    write_text(crossovers_csv, crossover_table(found).to_csv(index=False))
    if figure_dir is not None:
        from ..outputs.figures.capacity import write_capacity_figure

        write_capacity_figure(capacity, figure_dir)


def figures(nc_path, outdir, names=None, capacity_csv=None) -> None:
    """The figures ``names`` of a dataset (all by default); given ``capacity_csv``, with
    the located frontiers (:func:`straggler.decide.frontier.attach`)."""
    import xarray as xr

    from ..outputs.figures import write_figures

    with xr.open_dataset(nc_path, engine="netcdf4") as ds:
        study = ds.load()
    from ..decide.frontier import with_located

    study = with_located(study, capacity_csv)
    write_figures(study, outdir, names)


def report(
    nc_path,
    markdown_path,
    csv_path,
    html_path=None,
    claims_path=None,
    figure_paths=(),
    capacity_csv=None,
    break_even_csv=None,
) -> None:
    """report.md, winners.csv and, given their paths, report.html (the figures at
    ``figure_paths`` embedded) and claims.csv; given ``capacity_csv``, with the located
    frontiers (:func:`straggler.decide.frontier.attach`); given ``break_even_csv``, with the
    break-even cancellation delays (the dataset's attribute ``break_even``)."""
    import xarray as xr

    from ..outputs.report import write_report

    figs = {Path(p).stem: Path(p) for p in figure_paths}
    with xr.open_dataset(nc_path, engine="netcdf4") as ds:
        study = ds.load()
    from ..decide.frontier import with_located

    study = with_located(study, capacity_csv)
    if break_even_csv is not None:
        study.attrs["break_even"] = Path(break_even_csv).read_text()
    write_report(study, markdown_path, csv_path, html_path, claims_path, figs)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) == 4 and argv[0] == "evaluate":
        evaluate(Path(argv[1]).read_text(), argv[2], argv[3])
        return 0
    print("usage: python -m straggler.run.pipeline evaluate SPEC.json CELL_ID OUT.nc", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
