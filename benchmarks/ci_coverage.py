"""How often the simulation's 95 % confidence intervals cover an exact value.

For every job-size law of the shipped studies (scale aside: coverage does not depend
on the unit of time), at three loads, this runs a cell whose mean response time is
known exactly, over many seeds, with the default study's run length, and counts the
intervals that contain the exact value:

- ten identical FCFS servers with random dispatch (``ZRed``): ten M/G/1 queues, exact
  by Pollaczek-Khinchine (its E[C] is E[X], exact too), for every law;
- one central queue of ten servers with exponential sizes: M/M/10, exact by Erlang C;
- the (2, 2) fork-join queue with exponential tasks: (12 - rho) / 8 / (mu - lambda).

Beside each coverage it prints what the pipeline marks the cell (``ci_reliable``, with
its reason), so the table shows whether the rule that marks an interval unreliable
finds the intervals that under-cover. A law whose mean response time is infinite (a
Pareto law with alpha <= 2 on FCFS servers) has no value to cover: its row says so.

    .venv/bin/python benchmarks/ci_coverage.py                  # the table, 100 seeds
    .venv/bin/python benchmarks/ci_coverage.py --seeds 20 --only exp
    .venv/bin/python benchmarks/ci_coverage.py --json > docs/validation/ci-coverage.json

The docs (validation: when a confidence interval can be trusted) show the last run
recorded with ``--json``, through :func:`table`.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import sys
from concurrent.futures import ProcessPoolExecutor

LAWS = {
    "exp": {"family": "exponential", "mean": 1},
    "det": {"family": "deterministic", "value": 1},
    "erlang2": {"family": "erlang", "k": 2, "mean": 1},
    "erlang4": {"family": "erlang", "k": 4, "mean": 1},
    "uniform": {"family": "uniform", "low": 0, "high": 2},
    "shifted_exp": {"family": "shifted_exponential", "mean": 2, "shift": 1},
    "shifted_exp_10": {"family": "shifted_exponential", "mean": 11, "shift": 10},
    "h2": {"family": "hyperexponential", "p": [0.9, 0.1], "rates": [1.8, 0.2]},
    "hyperexp": {"family": "hyperexponential", "p": [0.9, 0.1], "rates": [1, 0.1], "scale_to_mean": 2},
    "hyper_0.99": {"family": "hyperexponential", "p": [0.99, 0.01], "rates": [1, 1 / 99]},
    "bimodal": {"family": "discrete", "p": [0.99, 0.01], "values": [10, 1000]},
    "trace": {"family": "empirical", "file": "config/data/requests_ms.csv", "column": "duration_ms"},
    "trace_quantiles": {
        "family": "quantiles",
        "quantiles": {0: 1.3, 0.5: 8.4, 0.9: 18.7, 0.99: 202.1, 0.999: 372.3, 1: 390.0},
    },
    "by_type": {
        "family": "by_type",
        "p": [0.8, 0.2],
        "laws": [
            {"family": "empirical", "file": "config/data/requests_ms.csv", "column": "duration_ms"},
            {"family": "quantiles", "quantiles": {0: 5.0, 0.5: 30.0, 0.9: 80.0, 0.99: 250.0, 1: 400.0}},
        ],
    },
    "bounded_pareto_1.1": {"family": "bounded_pareto", "alpha": 1.1, "low": 1, "high": 1000},
    "bounded_pareto_1.5": {"family": "bounded_pareto", "alpha": 1.5, "low": 1, "high": 1000},
    "bounded_pareto_2": {"family": "bounded_pareto", "alpha": 2, "low": 1, "high": 1000},
    "pareto_2.2": {"family": "pareto", "xm": 1, "alpha": 2.2},
    "pareto_1.5": {"family": "pareto", "xm": 1, "alpha": 1.5},
    "pareto_1.1": {"family": "pareto", "xm": 1, "alpha": 1.1},
}
"""The shipped studies' laws, one of each shape (``straggler.distributions.from_spec``);
``by_type`` is measured_types.yaml's, 80 % reads from the shipped trace and 20 % writes."""

LOADS = (0.3, 0.6, 0.9)
"""Each server's utilisation in the three runs of a case."""
SYSTEMS = {
    "M/G/1 x 10": dict(policy="ZRed", N=10, two_pools=False),
    "M/M/10 central": dict(policy="ZRed", N=10, two_pools=False, queueing="central"),
    "fork-join (2,2)": dict(policy="FJ", N=2, d=2, params={"k": 2}, two_pools=False),
}
EXPONENTIAL_ONLY = ("M/M/10 central", "fork-join (2,2)")
PER_LOAD = {"fork-join (2,2)": 0.5}
"""The study load that makes each server's utilisation 1 (the fork-join's two tasks are
two copies of a job: utilisation = 2 x load)."""
LENGTH = dict(jobs=200_000, warmup=20_000, replications=4)
"""The default study's run length (``simulation`` in config/config.yaml)."""


def cases(only: str | None) -> list[tuple[str, str]]:
    out = [("M/G/1 x 10", law) for law in LAWS]
    out += [(system, "exp") for system in EXPONENTIAL_ONLY]
    return [(s, law) for s, law in out if only is None or only in (law, s)]


def model(system: str, law: str):
    from straggler import distributions
    from straggler.simulation.reference import make_model

    scale = PER_LOAD.get(system, 1.0)
    settings = dict(SYSTEMS[system])
    if LAWS[law]["family"] == "by_type":
        # a law per job type needs the types: two pools of five identical servers
        # (r_slow 1), so each server is still an M/G/1 queue of the mixture
        settings.update(two_pools=True, r_slow=1.0, p=tuple(LAWS[law]["p"]))
    return make_model(size=distributions.from_spec(LAWS[law]), loads=[x * scale for x in LOADS], **settings)


def run_case(args) -> dict:
    """Coverage of one (system, law) at every load over ``seeds`` seeds (``length``: the
    run length, :data:`LENGTH` unless given)."""
    import numpy as np

    from straggler.analysis.cell import analyze
    from straggler.analysis.tails import cost_tail, latency_tail
    from straggler.grid import seed_sequence
    from straggler.simulation import simulate
    from straggler.verdict import ci_reliability, cost_ci_reliability

    system, law, seeds, length = args
    m = model(system, law)
    exact = analyze(m)
    kinds = np.broadcast_to(np.asarray(exact.latency_approx_kind, dtype=object), (len(LOADS),))
    lat = np.where(kinds == "exact", np.asarray(exact.latency_approx, dtype=float), np.nan)
    cost = float(exact.cost) if exact.cost_kind == "exact" else math.nan
    keys = ("cover_t", "cover_c", "n", "reliable", "reliable_c", "cover_t_reliable", "cover_c_reliable")
    rows = {load: {**dict.fromkeys(keys, 0), "reasons": {}, "hw": []} for load in LOADS}
    for s in range(seeds):
        res = simulate(m, seed_sequence(s, f"coverage/{system}/{law}"), **length, confidence=0.95)
        reliable, reasons = ci_reliability(res.verdict == "stable", latency_tail(m), res.warmup_batches)
        reliable_c, _ = cost_ci_reliability(res.verdict == "stable", cost_tail(m))
        for i, load in enumerate(LOADS):
            if res.verdict[i] != "stable":
                continue
            row = rows[load]
            mean, ci = float(res.latency_mean[i]), float(res.latency_mean_ci[i])
            row["n"] += 1
            covered_t = abs(mean - lat[i]) <= ci
            covered_c = abs(float(res.cost_mean[i]) - cost) <= float(res.cost_mean_ci[i])
            row["cover_t"] += covered_t
            row["cover_c"] += covered_c
            row["hw"].append(ci / lat[i] if math.isfinite(lat[i]) else math.nan)
            row["reliable"] += bool(reliable[i] == 1.0)
            row["cover_t_reliable"] += bool(reliable[i] == 1.0) and covered_t
            row["reliable_c"] += bool(reliable_c[i] == 1.0)
            row["cover_c_reliable"] += bool(reliable_c[i] == 1.0) and covered_c
            if reasons[i]:
                key = reasons[i].split(":")[0]
                row["reasons"][key] = row["reasons"].get(key, 0) + 1
    out = []
    for i, load in enumerate(LOADS):
        row = rows[load]
        n = row["n"]
        out.append(
            dict(
                system=system,
                law=law,
                load=load,
                exact=float(lat[i]),
                runs=n,
                covered_t=row["cover_t"] / n if n else math.nan,
                covered_c=row["cover_c"] / n if n and math.isfinite(cost) else math.nan,
                half_width=float(np.nanmedian(row["hw"])) if n and math.isfinite(lat[i]) else math.nan,
                reliable=row["reliable"] / n if n else math.nan,
                covered_t_reliable=row["cover_t_reliable"] / row["reliable"] if row["reliable"] else math.nan,
                reliable_c=row["reliable_c"] / n if n else math.nan,
                covered_c_reliable=row["cover_c_reliable"] / row["reliable_c"] if row["reliable_c"] else math.nan,
                reasons=row["reasons"],
            )
        )
    return {"rows": out}


def measure(seeds: int, only: str | None, workers: int, jobs: int | None = None) -> dict:
    length = dict(LENGTH) if jobs is None else {**LENGTH, "jobs": int(jobs), "warmup": int(jobs) // 10}
    todo = [(s, law, seeds, length) for s, law in cases(only)]
    if workers <= 1:
        parts = [run_case(case) for case in todo]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            parts = list(pool.map(run_case, todo))
    import numpy

    import straggler

    return {
        "created": datetime.date.today().isoformat(),
        "seeds": seeds,
        "length": length,
        "loads": list(LOADS),
        "versions": {"straggler": straggler.__version__, "numpy": numpy.__version__},
        "rows": [r for p in parts for r in p["rows"]],
    }


def _se(p: float, n: int) -> float:
    return math.sqrt(max(p * (1 - p), 1e-12) / n) if n else math.nan


def _share(p: float, n: int, se: bool = False) -> str:
    if not n or not math.isfinite(p):
        return "-"
    return f"{p:.0%} ±{_se(p, n):.0%}" if se else f"{p:.0%}"


def table(out: dict) -> str:
    """The recorded run as a plain-text table: per system, law and utilisation, the share
    of 95 % intervals of E[T] that cover the exact value (with its standard error over
    the seeds), the share of runs the pipeline marks reliable and the coverage among
    those, then the same for E[C], and why runs were marked unreliable."""
    head = (
        f"{'system':<16} {'law':<19} {'rho':>4}  {'E[T] covered':>12} {'reliable':>8} {'if reliable':>11}"
        f"  {'E[C] covered':>12} {'reliable':>8}  why not (runs)"
    )
    lines = [head, "-" * len(head)]
    for r in out["rows"]:
        n = r["runs"]
        if not math.isfinite(r["exact"]):
            t = "no exact"
        else:
            t = _share(r["covered_t"], n, se=True) if n else "not stable"
        kept = round(r["reliable"] * n) if n else 0
        why = ", ".join(f"{k} ({v})" for k, v in sorted(r["reasons"].items()))
        lines.append(
            f"{r['system']:<16} {r['law']:<19} {r['load']:>4}  {t:>12} {_share(r['reliable'], n):>8} "
            f"{_share(r['covered_t_reliable'], kept) if math.isfinite(r['exact']) else '-':>11}  "
            f"{_share(r['covered_c'], n):>12} {_share(r['reliable_c'], n):>8}  {why}"
        )
    return "\n".join(lines)


def markdown(out: dict) -> str:
    """The recorded run as a Markdown table for the docs, one row per system and law with
    the three utilisations side by side (percentages; ``-`` where not defined)."""

    def pct(values) -> str:
        return " / ".join("-" if not math.isfinite(v) else f"{100 * v:.0f}" for v in values)

    groups: dict = {}
    for r in out["rows"]:
        groups.setdefault((r["system"], r["law"]), []).append(r)
    loads = " / ".join(f"{x:g}" for x in out["loads"])
    lines = [
        f"| system | law | E[T] covered, % (rho {loads}) | trusted, % | E[C] covered, % | E[C] trusted, % | "
        "not trusted because (runs) |",
        "|---|---|---|---|---|---|---|",
    ]
    for (system, law), rows in groups.items():
        exact = all(math.isfinite(r["exact"]) for r in rows)
        covered = pct(r["covered_t"] for r in rows) if exact else "no exact E[T]"
        reasons: dict = {}
        for r in rows:
            for k, v in r["reasons"].items():
                reasons[k] = reasons.get(k, 0) + v
        why = ", ".join(f"{k} ({v})" for k, v in sorted(reasons.items()))
        lines.append(
            f"| {system} | `{law}` | {covered} | {pct(r['reliable'] for r in rows)} | "
            f"{pct(r['covered_c'] for r in rows)} | {pct(r['reliable_c'] for r in rows)} | {why} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--only", help="one law or one system")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--jobs", type=int, help="measured jobs per replication (default: the default study's)")
    parser.add_argument("--json", action="store_true", help="print the run as JSON (for the docs)")
    args = parser.parse_args(argv)
    out = measure(args.seeds, args.only, args.workers, args.jobs)
    print(json.dumps(out, indent=1) if args.json else table(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
