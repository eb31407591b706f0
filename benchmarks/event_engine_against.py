"""The event engine's throughput against an earlier revision's, workload by workload.

Runs ``straggler bench --json --only 'event_*' --only ps_mm1`` alternately under this
checkout and under REV (a git revision checked out into a temporary worktree), ``rounds``
times each, and keeps for every workload the two throughputs of each round and the
median of their ratios (this checkout / REV). Alternating the two in one session makes
the machine's drift fall on both alike; a ratio still moves by about 0.05 from round to
round on a quiet machine, so a workload is counted below REV only when its median ratio
is below 0.95.

Run on a quiet machine (nothing else running: a helper beside it makes the ratios
meaningless), from the repository's root::

    .venv/bin/python benchmarks/event_engine_against.py 970f22a --rounds 3 --json \\
        > docs/validation/event-engine-against.json

Each checkout's kernels are compiled afresh into a temporary cache of its own on the first
round and loaded from it on the others, the same way for both. The docs show the recorded
run.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PATTERNS = ("event_*", "ps_mm1")
HEAVY = "*_heavy*"
"""The heavy-tailed twins of the event workloads are left out: the bench measures each
against its exponential twin in the same run (its share of the twin's jobs per second), not
against another revision."""
BELOW = 0.95
"""A median ratio under this is counted as slower than REV (the round-to-round noise is
about 0.05)."""


def bench(src: Path, patterns, cache: Path) -> dict:
    """One ``straggler bench --json`` run of the workloads ``patterns`` with the package
    of ``src`` (its ``src`` folder first on the path) and its kernels cached in ``cache``."""
    only = [arg for p in patterns for arg in ("--only", p)]
    env = dict(os.environ, PYTHONPATH=str(src / "src"), NUMBA_CACHE_DIR=str(cache))
    out = subprocess.run(
        [sys.executable, "-m", "straggler.cli", "bench", "--json", *only],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        cwd=src,
    )
    return json.loads(out.stdout)


def short_commit(rev: str) -> str:
    """The short hash of the git revision ``rev`` in this repository."""
    out = subprocess.run(["git", "rev-parse", "--short", rev], cwd=ROOT, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def compare(rev: str, rounds: int, patterns=PATTERNS) -> dict:
    """Both checkouts' throughputs per round and the median ratio per workload."""
    commit, head = short_commit(rev), short_commit("HEAD")
    runs: dict[str, list[dict]] = {"head": [], "rev": []}
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "rev"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(tree), commit], cwd=ROOT, check=True)
        try:
            # each checkout's kernels compiled afresh into a cache of its own, in the same
            # way for both: code loaded from an older cache can run 10-15 % apart from the
            # same source compiled afresh
            for _ in range(rounds):
                runs["rev"].append(bench(tree, patterns, Path(tmp) / "cache-rev"))
                runs["head"].append(bench(ROOT, patterns, Path(tmp) / "cache-head"))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=True)
    workloads = {}
    new = []  # workloads this checkout has and REV has not
    for name in runs["head"][0]["workloads"]:
        if name == runs["head"][0]["baseline"] or fnmatch.fnmatch(name, HEAVY):
            continue
        if name not in runs["rev"][0]["workloads"]:
            new.append(name)
            continue
        head_jps = [r["workloads"][name]["jobs_per_second"] for r in runs["head"]]
        rev_jps = [r["workloads"][name]["jobs_per_second"] for r in runs["rev"]]
        ratios = [h / r for h, r in zip(head_jps, rev_jps)]
        workloads[name] = {"head": head_jps, "rev": rev_jps, "ratio": statistics.median(ratios)}
    return {
        "created": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "head": head,
        "rev": commit,
        "rounds": rounds,
        "below": BELOW,
        "versions": runs["head"][0]["versions"],
        "workloads": workloads,
        "new": new,
    }


def table(out: dict) -> str:
    """The run as text: one row per workload, slowest first."""
    rows = sorted(out["workloads"].items(), key=lambda kv: kv[1]["ratio"])
    width = max(len(name) for name, _ in rows)
    lines = [f"{'workload':{width}}  {out['head']} / {out['rev']}  per round", "-" * (width + 40)]
    for name, w in rows:
        per_round = ", ".join(f"{h / r:.2f}" for h, r in zip(w["head"], w["rev"]))
        lines.append(f"{name:{width}}  {w['ratio']:>9.2f}  ({per_round})")
    below = [name for name, w in rows if w["ratio"] < out["below"]]
    at_least = sum(w["ratio"] >= 1.0 for _, w in rows)
    lines.append("")
    lines.append(
        f"{at_least} of {len(rows)} workloads at least as fast as {out['rev']}; "
        f"{len(below)} below {out['below']:.2f} (median of {out['rounds']} rounds)"
    )
    if out["new"]:
        lines.extend(textwrap.wrap(f"not in {out['rev']}: {', '.join(out['new'])}", width=width + 40))
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the git revision to compare with")
    parser.add_argument("--rounds", type=int, default=3, help="alternated runs of each checkout (default 3)")
    parser.add_argument("--only", action="append", help="bench workload patterns (default: event_* and ps_mm1)")
    parser.add_argument("--json", action="store_true", help="print the run as JSON")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds: {args.rounds} is not allowed; expected at least 1")
    out = compare(args.rev, args.rounds, tuple(args.only) if args.only else PATTERNS)
    print(json.dumps(out, indent=1) if args.json else table(out))


if __name__ == "__main__":
    main()
