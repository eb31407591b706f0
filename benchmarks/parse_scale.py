"""How long the Snakefile's parse and a dry run take for 10^3, 10^4 and 10^5 cells.

    .venv/bin/python benchmarks/parse_scale.py [--cells 1000 10000 100000]

Every cluster job parses the Snakefile again, so the parse must stay light: it imports
no numpy, xarray, pandas or numba (the resolved config is cached under
``.snakemake/straggler``). A study of ZRed on two pools with ``types.p1`` swept over
many values (analytic) has as many cells as values x r_slow values. Measured, in a
temporary directory:

- ``parse``: what ``workflow/rules/common.smk`` does (resolve the config from its
  cache, build the grid, the work units and the figure names), in this process, with
  the modules it imports and whether any heavy one was loaded;
- ``dry run``: ``snakemake -n`` (a cold cache first, then warm), the whole command.

The figures are in docs/guide/running.md ("Work units"); this is a benchmark, not a timed test.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))


def study(cells: int) -> dict:
    r_slow = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    n = max(cells // len(r_slow), 1)
    p1 = [round(0.001 + 0.998 * i / max(n - 1, 1), 6) for i in range(n)]
    return {
        "study": f"parse{cells}",
        "seed": 1,
        "grid": {"policy": ["ZRed"], "distribution": ["exp"], "r_slow": r_slow, "N": [10], "types.p1": p1},
        "load": [0.5],
        "distributions": {"exp": {"family": "exponential", "mean": 1}},
        "evaluate": ["analytic"],
    }


def parse_in_process(config: dict, workdir: Path) -> tuple[float, list[str]]:
    code = """
import sys, time, yaml
start = time.perf_counter()
from straggler.outputs.catalog import figure_names
from straggler.study.config import resolve_config_cached
from straggler.study.grid import build_grid
from straggler.common.sources import model_hash
from straggler.study.workunits import plan
resolved = resolve_config_cached(yaml.safe_load(open("study.yaml")), ".snakemake/straggler")
grid = build_grid(resolved)
p = plan(resolved, grid, model_hash())
p.pending("results/" + resolved.study)
figure_names(grid.axes)
heavy = [m for m in ("numpy", "numba", "xarray", "pandas", "scipy") if m in sys.modules]
print(time.perf_counter() - start, len(grid.cells), len(p.batches), ",".join(heavy))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=workdir, capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[0]), out[1:]


def dry_run(workdir: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [
            SNAKEMAKE,
            "--snakefile",
            str(ROOT / "workflow" / "Snakefile"),
            "--directory",
            str(workdir),
            "--configfile",
            str(workdir / "study.yaml"),
            "-n",
            "--quiet",
            "rules",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, nargs="+", default=[1000, 10000, 100000])
    args = parser.parse_args(argv)
    print(
        f"{'cells':>8} {'units':>6} {'dry run (cold)':>15} {'dry run (warm)':>15} {'parse (warm)':>13}  heavy imports"
    )
    for cells in args.cells:
        with tempfile.TemporaryDirectory() as tmp:
            workdir = Path(tmp)
            (workdir / "study.yaml").write_text(yaml.safe_dump(study(cells)))
            cold = dry_run(workdir)
            warm = dry_run(workdir)
            parse, (n, units, *heavy) = parse_in_process(study(cells), workdir)
            print(
                f"{int(n):8d} {int(units):6d} {cold:14.1f}s {warm:14.1f}s {parse:12.2f}s  "
                f"{heavy[0] if heavy else 'none'}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
