"""What numba's compilation costs a study's jobs: per kind of cell, on a cold cache.

    .venv/bin/python benchmarks/compile_costs.py [CONFIG] [--jobs 2000]

A kind of cell (:func:`straggler.study.workunits.kernel_kind`: engine, policy, size family,
dependence, discipline, queueing) decides which kernels and signatures a cell compiles.
In a fresh numba cache (a temporary ``NUMBA_CACHE_DIR``), one process evaluates one
short cell of each of the config's kinds in turn, timing each: the first cell of an
engine pays for the engine's kernels, each later kind for its own signatures. A second
process then does the same on the now warm cache: each kind's time to load its kernels
from disk. A third evaluates the cells once more in a warm process, the baseline: the
cells' own work, which both other passes subtract. Prints the medians per engine that
:attr:`straggler.engines.registry.EngineSpec.compile_seconds` holds, beside the values it holds now.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PASS = r"""
import json, sys, time
from straggler.study.config import load_config, resolve_config
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid
from straggler.study.workunits import kernel_kind

cfg = load_config(sys.argv[1])
cfg["simulation"] = {**cfg["simulation"], "jobs": int(sys.argv[2]), "warmup": int(sys.argv[2]) // 10,
                     "replications": 2}
cfg["evaluate"] = ["simulation"]
resolved = resolve_config(cfg)
grid = build_grid(resolved)
firsts = {}
for cid, cell in grid.cells.items():
    kind = kernel_kind(resolved, cell)
    if kind is not None:
        firsts.setdefault(kind, cid)
out = []
for repeat in range(int(sys.argv[3])):
    for kind, cid in firsts.items():
        start = time.perf_counter()
        evaluate_cell(resolved, cid)
        out.append((repeat, kind, time.perf_counter() - start))
print(json.dumps(out))
"""


def run(config: str, jobs: int, cache: str, repeats: int) -> list[tuple[int, str, float]]:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    done = subprocess.run(
        [sys.executable, "-c", PASS, config, str(jobs), str(repeats)],
        check=True,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    return [tuple(row) for row in json.loads(done.stdout.strip().splitlines()[-1])]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", default=str(ROOT / "config" / "config.yaml"))
    parser.add_argument("--jobs", type=int, default=2000)
    args = parser.parse_args(argv)

    from straggler.study.progress import engine_compile_seconds

    with tempfile.TemporaryDirectory() as cache:
        cold = run(args.config, args.jobs, cache, 1)
        warm = run(args.config, args.jobs, cache, 2)  # repeat 0: loads; repeat 1: the cells' work
    work = {kind: s for r, kind, s in warm if r == 1}
    load = {kind: s - work[kind] for r, kind, s in warm if r == 0}
    first: dict[str, float] = {}
    later: dict[str, list[float]] = {}
    loads: dict[str, list[float]] = {}
    print(f"{'kind of cell':58} {'cold':>8} {'load':>8} {'work':>8}  (seconds)")
    for _, kind, s in cold:
        engine = kind.split("/")[0]
        compile_s = s - work[kind]
        if engine not in first:
            first[engine] = compile_s
        else:
            later.setdefault(engine, []).append(compile_s)
        loads.setdefault(engine, []).append(load[kind])
        print(f"{kind:58} {compile_s:8.2f} {load[kind]:8.2f} {work[kind]:8.2f}")
    print()
    for engine in first:
        kinds = statistics.median(later.get(engine, [0.0]))
        print(
            f"{engine}: first kind {first[engine]:.1f} s, each later kind {kinds:.1f} s, "
            f"a cached kind's load {statistics.median(loads[engine]):.2f} s"
            f"   (held now: {engine_compile_seconds(engine)})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
