"""Time to an answer on a heavy-tailed trace: ``straggler recommend`` on a question of an
operator with 32 servers whose request durations have a Pareto tail.

    .venv/bin/python benchmarks/heavy_question.py [FOLDER] [--cores 2] [--values 50000]

Writes ``FOLDER/trace.csv`` (``--values`` durations from the bench's heavy-tailed law,
:func:`straggler.engines.bench.heavy_trace`: 90 % lognormal of median 5, 9.5 % lognormal of
median 50, 0.5 % Pareto from 500 with alpha 1.6) and ``FOLDER/question.yaml`` (32 servers,
load 0.6, P99 at most 60, at most 20 % extra server time, the default contenders), then
prints what ``straggler recommend --dry-run`` estimates and what ``straggler recommend``
takes: the wall time to its answer (its first line), to its end (the report written),
and the CPU time of it and of every process it started. Run it twice:
the first run compiles the kernels the question needs (numba's cache); the second is the
warm time to an answer (remove ``FOLDER/results`` between them, or pass a new folder).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUESTION = """\
name: heavy
system: {{N: 32}}
workload: {{family: empirical, file: trace.csv, column: duration}}
load: [0.6]
slo: {{quantile: 0.99, target: 60}}
budget: {{extra_load: 0.2}}
"""


def write_inputs(folder: Path, values: int) -> Path:
    """The trace and the question in ``folder``; the question's path."""
    from straggler.engines import bench

    folder.mkdir(parents=True, exist_ok=True)
    old = bench.HEAVY_VALUES
    bench.HEAVY_VALUES = values
    try:
        sizes = bench.heavy_trace()
    finally:
        bench.HEAVY_VALUES = old
    with open(folder / "trace.csv", "w") as out:
        out.write("duration\n")
        out.writelines(f"{v:.4f}\n" for v in sizes)
    (folder / "question.yaml").write_text(QUESTION.format())
    return folder / "question.yaml"


def _straggler() -> str:
    return str(Path(sys.executable).with_name("straggler"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default="heavy-question")
    parser.add_argument("--cores", default="2")
    parser.add_argument("--values", type=int, default=50_000)
    args = parser.parse_args(argv)
    folder = Path(args.folder).resolve()
    question = write_inputs(folder, args.values)
    dry = subprocess.run(
        [_straggler(), "recommend", str(question), "--dry-run", "--results", str(folder / "results")],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    estimate = [line for line in dry.stdout.splitlines() if re.search(r"CPU|estimat", line)]
    print("\n".join(estimate))
    shutil.rmtree(folder / "results", ignore_errors=True)
    (folder / "question.study.yaml").unlink(missing_ok=True)  # its probes of c are kept from run to run
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    answered = None
    with tempfile.TemporaryFile("w+") as errors:
        command = [
            _straggler(),
            "recommend",
            str(question),
            "--cores",
            args.cores,
            "--results",
            str(folder / "results"),
        ]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True)
        out = []
        for line in process.stdout:
            if answered is None and line.startswith("Asked:"):
                answered = time.perf_counter() - start
            out.append(line)
        process.wait()
        wall = time.perf_counter() - start
        errors.seek(0)
        stderr = errors.read()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if process.returncode != 0:
        print("".join(out), stderr, sep="\n")
        return process.returncode
    print("".join(out))
    print(
        f"time to an answer: {answered:.1f} s wall (the command ends, its report written, at {wall:.1f} s); "
        f"{cpu:.1f} s CPU (every process), {os.cpu_count()} cores here"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
