"""The steps that the Snakemake rules run, as plain functions.

Each takes file paths and plain values, so a step can be rerun by hand outside
Snakemake (``python -m straggler.pipeline evaluate SPEC.json CELL OUT.nc``).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def evaluate(spec_json: str, cell_id: str, out_path) -> None:
    """Evaluate one cell from its self-contained spec and write ``out_path``."""
    from .dataset import write_netcdf
    from .evaluate import evaluate_cell

    start = time.perf_counter()
    ds = evaluate_cell(json.loads(spec_json), cell_id)
    ds.attrs["evaluation_seconds"] = round(time.perf_counter() - start, 3)
    write_netcdf(ds, out_path)


def aggregate(resolved_yaml: str, cell_paths: list[str], out_nc, out_config) -> None:
    """Combine the cell files into the study dataset and copy the resolved config beside it."""
    import xarray as xr
    import yaml

    from .dataset import aggregate as combine
    from .dataset import provenance, write_netcdf
    from .grid import build_grid

    resolved = yaml.safe_load(resolved_yaml)
    grid = build_grid(resolved)
    cells = {}
    for path in cell_paths:
        with xr.open_dataset(path, engine="netcdf4") as ds:
            cells[ds.attrs["cell_id"]] = ds.load()
    missing = set(grid.cells) - set(cells)
    if missing:
        raise ValueError(f"missing cell results: {sorted(missing)[:5]}")
    study = combine(grid, cells, provenance(resolved, resolved_yaml))
    write_netcdf(study, out_nc)
    _write_text(out_config, resolved_yaml)


def figures(nc_path, outdir, names=None) -> None:
    import xarray as xr

    from .plots import write_figures

    with xr.open_dataset(nc_path, engine="netcdf4") as ds:
        write_figures(ds.load(), outdir, names)


def report(nc_path, markdown_path, csv_path, html_path=None, claims_path=None,
           figure_paths=()) -> None:
    """report.md, winners.csv and, given their paths, report.html (the figures at
    ``figure_paths`` embedded) and claims.csv."""
    import xarray as xr

    from .report import write_report

    figs = {Path(p).stem: Path(p) for p in figure_paths}
    with xr.open_dataset(nc_path, engine="netcdf4") as ds:
        write_report(ds.load(), markdown_path, csv_path, html_path, claims_path, figs)


def _write_text(path, text: str) -> None:
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    tmp.replace(path)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) == 4 and argv[0] == "evaluate":
        evaluate(Path(argv[1]).read_text(), argv[2], argv[3])
        return 0
    print("usage: python -m straggler.pipeline evaluate SPEC.json CELL_ID OUT.nc", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
