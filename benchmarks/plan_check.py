"""The cost model against a measured run: per study and scale, what `straggler plan`
estimates, and one replication of the study's most expensive cell, timed.

    .venv/bin/python benchmarks/plan_check.py [CONFIG ...] [--scales quick paper]

For each study (default: the default study and every file in ``config/studies/``)
and each scale it defines: cells, evaluate jobs, shard jobs and the estimated CPU
hours (:func:`straggler.study.workunits.plan`, as ``straggler plan`` prints them); then
replication 0 of the cell with the largest estimate is simulated in this process, at
every load, into a temporary store (after a short run of it that loads its kernels) (``evaluate.simulate_cell_shard``, what a shard job
runs), and its seconds are set against the model's estimate for the jobs it actually
simulated (an unstable load stops early and the loads above it are skipped, so the
estimate for the configured jobs is an upper one). ``disk`` is the store's bytes per
replication and load, measured, times the study's replications and loads, plus the
cell files. docs/guide/running.md ("Work units") shows the table. A benchmark, not a timed test.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CELL_FILE_BYTES = 16_000
"""A cell file (`results/<study>/cells/*.nc`), about: 7.7 MB for the 480 of threshold_r_slow."""


def _resolve(path: Path, scale: str | None) -> dict:
    from straggler.study.config import load_config, resolve_config

    raw = load_config(path)
    if scale is not None:
        raw["scale"] = scale
    return resolve_config(raw)


def _scales(path: Path) -> list[str]:
    from straggler.study.config import load_config

    return ["quick"] + (["paper"] if "paper" in (load_config(path).get("scales") or {}) else [])


def check(path: Path, scale: str) -> str:
    from dataclasses import replace

    from straggler.common.sources import model_hash
    from straggler.study.evaluate import simulate_cell_shard
    from straggler.study.grid import build_grid
    from straggler.study.workunits import LOAD_SECONDS, engine_of, plan, seconds_per_job

    resolved = _resolve(path, scale)
    grid = build_grid(resolved)
    p = plan(resolved, grid, model_hash())
    hours = p.cpu_seconds() / 3600
    simulated = {cid: c for cid, c in p.costs.items() if c.replications}
    line = f"{resolved.study:22s} {scale:6s} {len(grid.cells):6d} {len(p.batches):6d} {len(p.shards):6d} {hours:9.3g}"
    if not simulated:
        return line + f" {'(analytic)':>28s} {len(grid.cells) * CELL_FILE_BYTES / 1e6:8.1f} MB"
    cid = max(simulated, key=lambda c: simulated[c].replication)
    loads = len(resolved.load)
    per_job = seconds_per_job(resolved, grid.cells[cid])
    engine = engine_of(resolved, grid.cells[cid]).bench_prefix
    short = replace(resolved, simulation=replace(resolved.simulation, jobs=1000, warmup=100))
    with tempfile.TemporaryDirectory() as tmp:  # the kernels loaded from numba's cache
        simulate_cell_shard(short, cid, 0, 1, Path(tmp) / "sim")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        jobs = simulate_cell_shard(resolved, cid, 0, 1, Path(tmp) / "sim")
        seconds = time.perf_counter() - start
        stored = sum(f.stat().st_size for f in Path(tmp).rglob("*") if f.is_file())
    expected = jobs * per_job + loads * LOAD_SECONDS
    reps = int(resolved.simulation.replications)
    disk = stored / loads * loads * reps * len(simulated) + len(grid.cells) * CELL_FILE_BYTES
    return line + f" {seconds:7.1f}s/{expected:6.1f}s ({seconds / expected:4.2f}, {engine:5s}) {disk / 1e6:8.1f} MB"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="*", type=Path)
    parser.add_argument("--scales", nargs="*", default=["quick", "paper"])
    args = parser.parse_args(argv)
    configs = args.configs or [ROOT / "config" / "config.yaml", *sorted((ROOT / "config" / "studies").glob("*.yaml"))]
    print(
        f"{'study':22s} {'scale':6s} {'cells':>6s} {'evals':>6s} {'shards':>6s} "
        f"{'CPU-h est':>9s} {'one replication: measured/model (ratio)':>28s} {'disk':>11s}"
    )
    for path in configs:
        for scale in _scales(path):
            if scale in args.scales:
                print(check(path, scale), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
