"""Simulation throughput: the FCFS fast path against an idiomatic SimPy baseline.

    .venv/bin/python benchmarks/simulation_throughput.py [--json] [--quick]

Measures jobs per second (one core, best of a few repeats) for CoC with d = 2,
i.i.d. exponential replicas, load 0.4: the fast path at N = 50, 1000 and 10^4
servers and the same N = 50 system in SimPy, measured in the same run; prints a
table and the ratio (targets: >= 1.5e7 jobs/s, >= 500x). The same as
``straggler bench`` (see straggler.bench).
"""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help='print JSON {"workloads": {...}}')
    parser.add_argument("--quick", action="store_true", help="10x fewer jobs (a smoke test)")
    args = parser.parse_args(argv)
    from straggler.bench import run_bench

    run_bench(json=args.json, quick=args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
