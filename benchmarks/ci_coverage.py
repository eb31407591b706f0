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

The quantiles' intervals too: on the ten M/G/1 queues, for the laws whose response-time
P99 is known (:data:`P99_LAWS`), the share of the simulation's 95 % intervals of the P99
(``latency_quantile`` +- ``latency_quantile_ci``: Student t over the replications' own
P99) that contain it. The P99 of M/M/1 is exact (ln 100 E[S] / (1 - rho)); a Pareto
law's is computed from the Pollaczek-Khinchine (Benes) form of the waiting time, T =
S + R_1 + ... + R_K with K geometric (P(K = n) = (1 - rho) rho^n) and R the
equilibrium residual of S, sampled exactly (:func:`reference_p99`, 10^7 draws: its
standard error, from 10 batches, is recorded beside it). A Pareto law with alpha <= 2
has no finite E[T] but a finite P99: a quantile needs no moment at all.

    .venv/bin/python benchmarks/ci_coverage.py --seeds 400 --laws exp,pareto_2.2,pareto_1.5,pareto_1.1 \
        --json > docs/validation/ci-coverage-quantiles.json

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
"""The shipped studies' laws, one of each shape (``straggler.model.distributions.from_spec``);
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
P99_LAWS = ("exp", "pareto_2.2", "pareto_1.5", "pareto_1.1")
"""The laws whose P99 of the response time on an M/G/1 queue :func:`reference_p99` knows."""
P99 = 0.99
REFERENCE_DRAWS = 10_000_000
"""Draws of :func:`reference_p99` (in 10 batches, for its standard error)."""

LENGTH = dict(jobs=200_000, warmup=20_000, replications=4)
"""The default study's run length (``simulation`` in config/config.yaml)."""


def cases(only: str | None, laws: str | None = None) -> list[tuple[str, str]]:
    """The (system, law) cases: every one, ``only`` one law or system, or the M/G/1
    cases of ``laws`` (several laws joined by ``,``)."""
    if laws:
        return [("M/G/1 x 10", law) for law in laws.split(",")]
    out = [("M/G/1 x 10", law) for law in LAWS]
    out += [(system, "exp") for system in EXPONENTIAL_ONLY]
    return [(s, law) for s, law in out if only is None or only in (law, s)]


def model(system: str, law: str):
    from straggler.engines.simulation.reference import make_model
    from straggler.model import distributions

    scale = PER_LOAD.get(system, 1.0)
    settings = dict(SYSTEMS[system])
    if LAWS[law]["family"] == "by_type":
        # a law per job type needs the types: two pools of five identical servers
        # (r_slow 1), so each server is still an M/G/1 queue of the mixture
        settings.update(two_pools=True, r_slow=1.0, p=tuple(LAWS[law]["p"]))
    return make_model(size=distributions.from_spec(LAWS[law]), loads=[x * scale for x in LOADS], **settings)


def reference_p99(law: str, rho: float, draws: int = REFERENCE_DRAWS, seed: int = 2024) -> tuple[float, float]:
    """(P99 of the response time, its standard error) of an M/G/1 FCFS queue at
    utilisation ``rho`` with sizes ``law`` (one of :data:`P99_LAWS`): exact for
    exponential sizes (T is exponential with rate (1 - rho) / E[S]: standard error 0);
    for a Pareto law, the 0.99 quantile of ``draws`` samples of T = S + R_1 + ... + R_K
    (Pollaczek-Khinchine in Benes's form: K geometric with P(K = n) = (1 - rho) rho^n,
    R the equilibrium residual of S, density P(S > x) / E[S]: uniform on [0, xm) with
    probability 1 / E[S] = (alpha - 1) / alpha, else Pareto(xm, alpha - 1)), the standard
    error from the spread of 10 batches' quantiles. (NaN, NaN) for another law."""
    import numpy as np

    spec = LAWS[law]
    if spec["family"] == "exponential":
        mean = float(spec["mean"])
        return math.log(100.0) * mean / (1.0 - rho), 0.0
    if spec["family"] != "pareto":
        return math.nan, math.nan
    xm, alpha = float(spec["xm"]), float(spec["alpha"])
    rng = np.random.default_rng(seed)
    per = draws // 10
    batches = []
    for _ in range(10):
        size = xm * rng.random(per) ** (-1.0 / alpha)
        k = rng.geometric(1.0 - rho, per) - 1  # P(K = n) = (1 - rho) rho^n, n >= 0
        total = int(k.sum())
        u = rng.random(total)
        tail = rng.random(total) < 1.0 / alpha  # P(R >= xm) = 1 - (alpha - 1) / alpha
        residual = np.where(tail, xm * rng.random(total) ** (-1.0 / (alpha - 1.0)), xm * u)
        owner = np.repeat(np.arange(per), k)
        wait = np.bincount(owner, weights=residual, minlength=per)
        batches.append(size + wait)
    whole = float(np.quantile(np.concatenate(batches), P99))
    each = np.array([np.quantile(b, P99) for b in batches])
    return whole, float(np.std(each, ddof=1) / math.sqrt(len(each)))


def run_case(args) -> dict:
    """Coverage of one (system, law) at every load over ``seeds`` seeds (``length``: the
    run length, :data:`LENGTH` unless given)."""
    import numpy as np

    from straggler.engines.analysis.cell import analyze
    from straggler.engines.analysis.tails import cost_tail, latency_tail
    from straggler.engines.simulation import QUANTILES, simulate
    from straggler.study.grid import seed_sequence
    from straggler.study.verdict import ci_reliability, cost_ci_reliability

    system, law, seeds, length = args
    m = model(system, law)
    qi = list(QUANTILES).index(P99)
    with_q = system == "M/G/1 x 10" and law in P99_LAWS
    ref = [reference_p99(law, load) if with_q else (math.nan, math.nan) for load in LOADS]
    exact = analyze(m)
    kinds = np.broadcast_to(np.asarray(exact.latency_approx_kind, dtype=object), (len(LOADS),))
    lat = np.where(kinds == "exact", np.asarray(exact.latency_approx, dtype=float), np.nan)
    cost = float(exact.cost) if exact.cost_kind == "exact" else math.nan
    keys = (
        "cover_t",
        "cover_c",
        "n",
        "reliable",
        "reliable_c",
        "cover_t_reliable",
        "cover_c_reliable",
        "cover_q",
        "n_q",
    )
    rows = {load: {**dict.fromkeys(keys, 0), "reasons": {}, "hw": [], "hw_q": []} for load in LOADS}
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
            q, q_ci = float(res.latency_quantile[i, qi]), float(res.latency_quantile_ci[i, qi])
            if with_q and math.isfinite(q) and math.isfinite(q_ci):
                row["n_q"] += 1
                row["cover_q"] += abs(q - ref[i][0]) <= q_ci
                row["hw_q"].append(q_ci / ref[i][0])
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
                exact_p99=ref[i][0],
                exact_p99_se=ref[i][1],
                runs_p99=row["n_q"],
                covered_p99=row["cover_q"] / row["n_q"] if row["n_q"] else math.nan,
                half_width_p99=float(np.median(row["hw_q"])) if row["hw_q"] else math.nan,
            )
        )
    return {"rows": out}


def measure(seeds: int, only: str | None, workers: int, jobs: int | None = None, laws: str | None = None) -> dict:
    length = dict(LENGTH) if jobs is None else {**LENGTH, "jobs": int(jobs), "warmup": int(jobs) // 10}
    todo = [(s, law, seeds, length) for s, law in cases(only, laws)]
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


def p99_markdown(out: dict) -> str:
    """The recorded run's P99 rows as a Markdown table for the docs: per law and
    utilisation, the reference P99 (and its standard error), the share of the 95 %
    intervals of the P99 that cover it, against the share of those of E[T] (``-``: no
    finite E[T]) and the share of runs whose E[T] interval is trusted."""

    def pct(v) -> str:
        return "-" if not math.isfinite(v) else f"{100 * v:.0f}"

    lines = [
        "| law | rho | P99 (reference ± se) | P99 covered, % | E[T] covered, % | E[T] trusted, % | runs |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in out["rows"]:
        if not math.isfinite(r.get("exact_p99", math.nan)):
            continue
        ref = f"{r['exact_p99']:.4g}" + ("" if r["exact_p99_se"] == 0 else f" ± {r['exact_p99_se']:.2g}")
        t = pct(r["covered_t"]) if math.isfinite(r["exact"]) else "-"
        lines.append(
            f"| `{r['law']}` | {r['load']:g} | {ref} | {pct(r['covered_p99'])} | {t} | {pct(r['reliable'])} | "
            f"{r['runs_p99']} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--only", help="one law or one system")
    parser.add_argument("--laws", help="several laws, joined by commas (the M/G/1 rows of each)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--jobs", type=int, help="measured jobs per replication (default: the default study's)")
    parser.add_argument("--json", action="store_true", help="print the run as JSON (for the docs)")
    args = parser.parse_args(argv)
    out = measure(args.seeds, args.only, args.workers, args.jobs, args.laws)
    print(json.dumps(out, indent=1) if args.json else table(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
