"""The CPU time of a located SLO frontier against the fixed grid of the same resolution.

    .venv/bin/python benchmarks/located_share.py [SEED ...]

The case of issue 58: ZRed on 10 identical FCFS servers, exponential sizes, P99 at most
10 (exactly up to rho = 1 - ln(100)/10 = 0.5395), ``resolution: 0.01``, the default run
length (4 replications of 200,000 jobs). Located: the grid's five loads (0.1 to 0.9),
then the setting's search (:class:`straggler.decide.frontier.SettingSearch`); fixed: one cell
of 81 loads, 0.10 to 0.90 by 0.01. Both run warm in this process (a first located run
reads the kernels from numba's cache and does the imports), the CPU time of each read
around it. Prints the share located / fixed and the frontier found. A benchmark, not a
timed test: run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
from pathlib import Path


def _raw(seed: int, loads: list[float], decision: dict | None) -> dict:
    raw = {
        "study": "located_share",
        "seed": seed,
        "grid": {"policy": ["ZRed"], "distribution": ["exp"], "dependence": ["iid"], "r_slow": [1], "N": [10]},
        "load": loads,
        "distributions": {"exp": {"family": "exponential", "mean": 1}},
        "evaluate": ["analytic", "simulation"],
        "simulation": {"jobs": 200000, "warmup": 20000, "replications": 4, "confidence": 0.95},
    }
    if decision is not None:
        raw["decision"] = decision
    return raw


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def located(seed: int) -> tuple[float, dict]:
    """CPU seconds of the located study (its cells, then its search), and what it found."""
    import yaml

    from straggler.decide.frontier import SettingSearch
    from straggler.study.config import resolve_config
    from straggler.study.dataset import aggregate
    from straggler.study.evaluate import evaluate_cell
    from straggler.study.grid import build_grid, settings

    decision = {"slo": {"quantile": 0.99, "target": 10}, "resolution": 0.01}
    store = Path(tempfile.mkdtemp(prefix="located-"))
    try:
        start = _cpu()
        resolved = resolve_config(_raw(seed, [0.1, 0.3, 0.5, 0.7, 0.9], decision))
        grid = build_grid(resolved)
        cells = {cid: evaluate_cell(resolved, cid, store) for cid in grid.cells}
        attrs = {"config": yaml.safe_dump(resolved.to_dict(), sort_keys=False), "common_random_numbers": "true"}
        ds = aggregate(grid, cells, attrs)
        found = SettingSearch(resolved, grid, settings(grid)[0], store, dict(ds.attrs)).run(ds)
        return _cpu() - start, found
    finally:
        shutil.rmtree(store, ignore_errors=True)


def fixed(seed: int) -> float:
    """CPU seconds of the fixed grid of the same resolution: one cell of 81 loads."""
    from straggler.study.config import resolve_config
    from straggler.study.evaluate import evaluate_cell
    from straggler.study.grid import build_grid

    store = Path(tempfile.mkdtemp(prefix="fixed-"))
    try:
        resolved = resolve_config(_raw(seed, [round(0.1 + 0.01 * i, 2) for i in range(81)], None))
        start = _cpu()
        for cid in build_grid(resolved).cells:
            evaluate_cell(resolved, cid, store)
        return _cpu() - start
    finally:
        shutil.rmtree(store, ignore_errors=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seeds", nargs="*", type=int, default=[2024, 12345])
    args = parser.parse_args(argv)
    for seed in args.seeds:
        located(seed)  # warm
        grid_cpu = fixed(seed)
        search_cpu, found = located(seed)
        row = next(r for r in found["capacity"] if r["policy"] == "ZRed")
        print(
            f"seed {seed}: located {search_cpu:.2f} s CPU (its search {found['cpu_seconds']:.2f} s, "
            f"{found['evaluations']} probes, {found['simulated_jobs']:,} jobs), fixed grid {grid_cpu:.2f} s: "
            f"share {search_cpu / grid_cpu:.2f}; SLO frontier [{row['slo_low']}, {row['slo_high']}]"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
