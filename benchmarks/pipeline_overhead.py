"""The pipeline's overhead: a study through Snakemake against its cells in one process.

    .venv/bin/python benchmarks/pipeline_overhead.py [CONFIG ...] [--cores 2]

For each study (default: the default study and ``threshold_r_slow``), measured in one
run, in a temporary directory: every cell evaluated in one process on one core
(``straggler.study.evaluate.evaluate_cell``, after a warm-up cell so that numba's cache is
loaded, as in a job), then ``snakemake --cores N`` from empty results (all rules:
work units, dataset, figures, report). Prints both wall times and their ratio; the
docs/guide/running.md ("Work units") shows the figures. A benchmark, never a timed test.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNAKEMAKE = str(Path(sys.executable).with_name("snakemake"))
DEFAULT = [ROOT / "config" / "config.yaml", ROOT / "config" / "studies" / "threshold_r_slow.yaml"]


def in_process(config: Path) -> tuple[float, int]:
    code = f"""
import time
from straggler.study.config import load_config, resolve_config
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid
resolved = resolve_config(load_config({str(config)!r}))
cells = list(build_grid(resolved).cells)
evaluate_cell(resolved, cells[0])  # numba's cache loaded, as a job's first cell does
start = time.perf_counter()
for cell in cells:
    evaluate_cell(resolved, cell)
print(time.perf_counter() - start, len(cells))
"""
    # one process: one core (the kernels and the analysis are single-threaded)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), int(out[1])


def through_snakemake(config: Path, cores: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(config, Path(tmp) / "study.yaml")
        start = time.perf_counter()
        subprocess.run(
            [
                SNAKEMAKE,
                "--snakefile",
                str(ROOT / "workflow" / "Snakefile"),
                "--directory",
                tmp,
                "--configfile",
                str(Path(tmp) / "study.yaml"),
                "--cores",
                str(cores),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="*", type=Path, default=DEFAULT)
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args(argv)
    print(
        f"{'study':24s} {'cells':>6s} {'one process, 1 core':>20s} "
        f"{'snakemake --cores ' + str(args.cores):>20s} {'ratio':>6s}"
    )
    for config in args.configs:
        alone, cells = in_process(config)
        piped = through_snakemake(config, args.cores)
        print(f"{config.stem:24s} {cells:6d} {alone:19.1f}s {piped:19.1f}s {piped / alone:6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
