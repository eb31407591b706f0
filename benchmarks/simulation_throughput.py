"""Simulation throughput: every engine and policy against an idiomatic SimPy baseline.

    .venv/bin/python benchmarks/simulation_throughput.py [--json] [--quick] [--only PATTERN ...]

Measures jobs per second (one core, best of a few repeats) of every policy of the
registry on every engine and setting that simulates it (the FCFS fast path; the
event engine with FCFS and PS per-server queues and FCFS central queues), CoC's
scaling with N (10 to 10^4) and the policies' with d (2, 4, 8), and M/M/1-PS, each
as a ratio to SimPy's CoC d = 2, N = 50 measured in the same run; prints a table
grouped by engine and the goals (fast path >= 1000x, event engine >= 250x,
M/M/1-PS >= 600x) met or not. The same as ``straggler bench`` (see straggler.engines.bench).
"""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help='print JSON {"workloads": {...}, "goals": {...}}')
    parser.add_argument("--quick", action="store_true", help="10x fewer jobs (a smoke test)")
    parser.add_argument(
        "--only", action="append", metavar="PATTERN", help="only the workloads matching PATTERN (repeatable)"
    )
    args = parser.parse_args(argv)
    from straggler.engines.bench import run_bench

    run_bench(json=args.json, quick=args.quick, only=args.only)
    return 0


if __name__ == "__main__":
    sys.exit(main())
