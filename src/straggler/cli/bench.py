"""``straggler bench``: the simulation engines' throughput, with a SimPy baseline measured
in the same run (:mod:`straggler.engines.bench`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable


def _bench(args) -> int:
    from ..engines.bench import run_bench

    run_bench(json=args.json, quick=args.quick, only=args.only)
    return 0


def add_commands(command: Callable[..., argparse.ArgumentParser]) -> None:
    """The command on the engines: bench."""
    p = command(
        "bench",
        "simulation throughput, with a SimPy baseline measured in the same run",
        "straggler bench --quick",
        "straggler bench --quick --only fast_ --only ps_mm1",
        "(without --quick: 10x more jobs, about 1.5 minutes; --json prints the numbers as JSON)",
    )
    p.add_argument("--json", action="store_true", help='print {"workloads": {...}, "goals": {...}} as JSON')
    p.add_argument("--quick", action="store_true", help="10x fewer jobs (a smoke test)")
    p.add_argument(
        "--only",
        action="append",
        metavar="PATTERN",
        help="only the workloads whose names contain PATTERN or match it as a shell pattern "
        "(e.g. event_ps, '*_coc_*'; repeatable; the SimPy baseline always runs)",
    )
    p.set_defaults(func=_bench)
