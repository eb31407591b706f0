"""The plan's estimate against a whole run: for each study, what ``straggler plan``
estimates, then the study run by Snakemake from scratch in a temporary folder, timed.

    .venv/bin/python benchmarks/plan_against_run.py [STUDY ...] [--cores 2] [--keep DIR]

For each study (default: the default study and the hedging study): the estimated CPU
seconds of the plan (:meth:`straggler.study.workunits.Plan.cpu_seconds` and the study's other
rules, :func:`straggler.study.workunits.study_seconds`), then the CPU seconds the run took (every
process Snakemake started), their ratio, and per policy the cells' estimated seconds
against the seconds their jobs recorded (``units/*.json``); and each progress line's
time left against the truth, the run's end (the issue's check: within a factor of 2 after
the first job). The kernels should be in
numba's cache (run a study once before): the plan counts a cold compile apart. A
benchmark, not a timed test; run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def estimate(study: Path):
    from straggler.common.sources import model_hash
    from straggler.decide.break_even import delay_settings
    from straggler.study.config import load_config, resolve_config
    from straggler.study.grid import build_grid
    from straggler.study.workunits import plan, study_seconds

    resolved = resolve_config(load_config(study))
    grid = build_grid(resolved)
    p = plan(resolved, grid, model_hash())
    return resolved, grid, p, p.cpu_seconds() + sum(study_seconds(resolved, grid, p, delay_settings(grid)).values())


def run(study: Path, cores: str, folder: Path) -> tuple[float, list[tuple[float, str]], float]:
    """A Snakemake run of ``study`` in ``folder``: the CPU seconds of every process it
    started, its output lines each with the wall second it was read at, and its wall
    seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "snakemake", "--snakefile", str(ROOT / "workflow" / "Snakefile"),
         "--directory", str(folder), "--configfile", str(study.resolve()), "--cores", cores, "--quiet", "rules", "host"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    lines = [(time.perf_counter() - start, line.rstrip()) for line in process.stderr]
    if process.wait() != 0:
        raise SystemExit("\n".join(line for _, line in lines[-40:]))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), lines, wall


LEFT = re.compile(r"straggler: (\d+) of (\d+) .* in .*; about (.+) left")


def seconds_of(text: str) -> float:
    """``1 min 05 s``, ``2 h 05 min``, ``45 s`` in seconds (:func:`straggler.study.progress.duration`)."""
    units = {"h": 3600.0, "min": 60.0, "s": 1.0}
    return sum(float(n) * units[u] for n, u in re.findall(r"(\d+) (h|min|s)\b", text))


def time_left(lines: list[tuple[float, str]], wall: float) -> list[tuple[str, float, float]]:
    """Each progress line's "about ... left" against the truth (the run's end, less the
    second the line was read): (units done, estimated, true seconds left)."""
    out = []
    for at, line in lines:
        found = LEFT.search(line)
        if found:
            out.append((f"{found.group(1)} of {found.group(2)}", seconds_of(found.group(3)), wall - at))
    return out


def per_policy(results: Path, p) -> dict[str, list[float]]:
    """Policy -> [estimated seconds, recorded seconds] of its cells."""
    by_key = {key: cell for cell, key in p.keys.items()}
    out: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for manifest in results.glob("units/*.json"):
        for row in json.loads(manifest.read_text())["cells"]:
            cell = by_key.get(row["key"], row["cell"])
            policy = cell.split("__")[0].removeprefix("policy=")
            out[policy][0] += p.costs[cell].total if cell in p.costs else float("nan")
            out[policy][1] += row["seconds"]
    return dict(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("studies", nargs="*", type=Path)
    parser.add_argument("--cores", default="2")
    parser.add_argument("--keep", type=Path, help="run in this folder and keep it")
    args = parser.parse_args(argv)
    studies = args.studies or [ROOT / "config" / "config.yaml", ROOT / "config" / "studies" / "hedging.yaml"]
    for study in studies:
        resolved, grid, p, estimated = estimate(study)
        folder = args.keep or Path(tempfile.mkdtemp(prefix="plan-run-"))
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("config", "data"):
            if (ROOT / "config" / name).exists() and name == "config":
                shutil.copytree(ROOT / "config", folder / "config", dirs_exist_ok=True)
        measured, lines, wall = run(study, args.cores, folder)
        print(
            f"{resolved.study}: {len(grid.cells)} cells; estimated {estimated:.0f} s CPU, measured {measured:.0f} s "
            f"(measured / estimated {measured / estimated:.2f}); {wall:.0f} s wall"
        )
        left = time_left(lines, wall)
        for done, said, true in left:
            print(f"  after {done:9s} units: about {said:5.0f} s left said, {true:5.0f} s true ({said / true:4.2f})")
        if left:
            worst = max((max(s / t, t / s) for _, s, t in left if s > 0 and t > 0), default=float("nan"))
            print(f"  time left after the first job: within a factor {worst:.2f} of the truth")
        for policy, (est, rec) in sorted(per_policy(folder / "results" / resolved.study, p).items()):
            print(f"  {policy:8s} cells: estimated {est:7.1f} s, recorded {rec:7.1f} s ({rec / est:5.2f})")
        if args.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
