"""straggler.decide.bound_checks: simulated means against the analytic bounds, on any study dataset,
and analytic values that are NaN or +inf without a note naming them."""

import copy
import json
from pathlib import Path

import numpy as np
import pytest
import xarray as xr
import yaml

from straggler.decide import bound_checks
from straggler.study.config import load_config, resolve_config
from straggler.study.dataset import aggregate
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid

ROOT = Path(__file__).resolve().parents[2]

CONFIG = {
    "distributions": {"exp": {"family": "exponential", "mean": 1}, "par": {"family": "pareto", "xm": 1, "alpha": 2.2}}
}


def _synthetic():
    """Four cells at two loads, with hand-set bounds and simulated means."""
    pol = ["A", "B", "C", "D"]
    load = [0.2, 0.5]
    f = lambda rows: (("policy", "load"), np.array(rows, dtype=float))  # noqa: E731
    g = lambda vals: (("policy",), np.array(vals, dtype=float))  # noqa: E731
    s = lambda vals: (("policy",), np.array(vals, dtype=object))  # noqa: E731
    ds = xr.Dataset(
        {
            "lambda_max": g([1, 1, 1, 1]),
            # A exact 2.0 / 3.0; B an upper bound 3.0 with a lower bound 2.6; C an
            # approximation (not a bound); D exact, but a heavy-tailed law
            "latency_approx": f([[2.0, 3.0], [3.0, 3.0], [1.0, 1.0], [4.0, 4.0]]),
            "latency_approx_kind": s(["exact", "upper_bound", "approximation", "exact"]),
            "latency_lower": f([[np.nan, np.nan], [2.6, 2.6], [np.nan, np.nan], [np.nan, np.nan]]),
            "latency_mean": f([[2.05, 2.99], [2.45, 3.5], [5.0, 5.0], [3.0, np.nan]]),
            "latency_mean_ci": f([[0.01, 0.02], [0.1, 0.01], [0.1, 0.1], [0.1, np.nan]]),
            "cost": g([1.0, 1.0, 2.0, 1.0]),
            "cost_kind": s(["exact", "lower_bound", "approximation", "exact"]),
            "cost_lower": g([1.0, 1.0, np.nan, 1.0]),
            "cost_upper": g([1.0, 1.5, np.nan, 1.0]),
            "cost_mean": f([[1.0, 1.0], [1.6, 0.9], [9.0, 9.0], [1.0, 1.0]]),
            "cost_mean_ci": f([[0.0, np.nan], [0.01, 0.2], [0.1, 0.1], [0.0, 0.0]]),
        },
        coords={"policy": pol, "load": load, "distribution": ("policy", ["exp", "exp", "exp", "par"])},
    )
    ds.attrs["config"] = yaml.safe_dump(CONFIG)
    return ds


def test_bound_table_finds_every_side_and_kind():
    ds = _synthetic()
    table = bound_checks.bound_table(ds)
    assert set(table["policy"]) == {"A", "B", "D"}  # C's approximation is not a bound
    v = bound_checks.bound_violations(ds)
    got = {(r.policy, r.load, r.quantity, r.side, r.bound_variable) for r in v.itertuples()}
    assert got == {
        ("A", 0.2, "latency", "upper", "latency_approx"),  # 2.05 - 0.01 > 2.0 (exact)
        ("B", 0.2, "latency", "lower", "latency_lower"),  # 2.45 + 0.1 < 2.6
        ("B", 0.5, "latency", "upper", "latency_approx"),  # 3.5 - 0.01 > 3.0
        ("B", 0.2, "cost", "upper", "cost_upper"),  # 1.6 - 0.01 > 1.5
        ("D", 0.2, "latency", "lower", "latency_approx"),  # heavy tail, below the exact value
    }
    row = v[(v.policy == "A") & (v.quantity == "latency")].iloc[0]
    assert row.excess == pytest.approx(5.0) and not row.heavy_tail
    assert bool(v[v.policy == "D"].heavy_tail.all())
    # at 25 half-widths only B at 0.5 (50 half-widths above its upper bound) remains ...
    wide = bound_checks.bound_violations(ds, widths=25.0)
    assert {(r.policy, r.load) for r in wide.itertuples()} == {("B", 0.5)}
    # ... and a missing half-width counts as 0: A's cost at 0.5 equals its bound exactly
    a = table[(table.policy == "A") & (table.quantity == "cost") & (table.load == 0.5)]
    assert len(a) == 2 and (a.excess == 0).all() and not a.violated.any()


def _tiny(**override):
    raw = {
        "study": "tiny",
        "seed": 5,
        "grid": {
            "policy": ["CoC", "FJ"],
            "distribution": ["se"],
            "dependence": ["iid"],
            "r_slow": [1.0],
            "d": [2, 4],
            "N": [4],
        },
        "load": [0.1, 0.3],
        "policies": {"FJ": {"k": 2}},
        "distributions": {"se": {"family": "shifted_exponential", "shift": 1, "mean": 2}},
        "evaluate": ["analytic", "simulation"],
        "simulation": {"jobs": 20000, "warmup": 2000, "replications": 4, "confidence": 0.95},
    }
    raw.update(override)
    return resolve_config(raw)


def _study_dataset(resolved):
    grid = build_grid(resolved)
    cells = {cid: evaluate_cell(resolved, cid) for cid in grid.cells}
    return aggregate(grid, cells, {"config": yaml.safe_dump(resolved.to_dict())})


def test_checks_on_a_small_study():
    ds = _study_dataset(_tiny())
    table = bound_checks.bound_table(ds, widths=4.0)
    assert {"latency", "cost"} <= set(table["quantity"])
    assert not table["violated"].any(), table[table["violated"]]
    assert bound_checks.unexplained_values(ds).empty
    # a NaN latency whose note is gone is reported (CoC, 1 < d < N, made NaN: the
    # mean-field tier now gives it)
    notes = json.loads(ds.attrs["cell_notes"])
    cid = next(c for c in notes if "CoC" in c and "d=2" in c)
    ds["latency_approx"].loc[dict(policy="CoC", d=2)] = float("nan")
    notes[cid] = [n for n in notes[cid] if "latency_approx" not in n]
    ds.attrs["cell_notes"] = json.dumps(notes)
    u = bound_checks.unexplained_values(ds)
    assert list(u["cell"]) == [cid] and list(u["variable"]) == ["latency_approx"]


SIMULATED = [
    "forkjoin_k_tradeoff",
    "forkjoin_replicas",
    "forkjoin_strategy",
    "ps_fig5",
    "ps_fig6",
    "ps_redundancy",
    "threshold_latency",
]
ANALYTIC = ["speculation_fig1", "threshold_belief", "threshold_p1", "threshold_r_slow"]


@pytest.mark.slow
@pytest.mark.parametrize("name", SIMULATED + ANALYTIC)
def test_shipped_paper_studies_lie_within_their_bounds(name, ci_scale):
    """Every shipped paper study, small: the simulation at 20000 jobs (CI: 5000) x 8
    replications, at the study's loads up to 0.9 (CI: 0.7). Every simulated mean lies
    within its analytic bounds up to 4 CI half-widths (the suite's tolerance; at 8
    replications a half-width is t_7 = 2.36 standard errors, and 8 keep the half-width's
    own estimate from being far too small), except where the size has an infinite third
    moment (Pareto 2.2 in forkjoin_strategy): there the mean converges from below and
    its CI under-covers, so only deviations below an exact value are tolerated. No
    analytic value is NaN or +inf without a note naming it.

    Why the loads are cut: a run that starts empty is biased low for a time that grows
    like 1 / (1 - rho)^2; at 0.95 a run of 20000 jobs is within it (ps_fig6, M/H2/1-PS
    at rho~ 0.95, exact mean 20: 12.9 +- 1.6), which is the budget of the small version,
    not an error of the analysis (the shipped studies run 10 to 25 times more jobs)."""
    raw = load_config(ROOT / "config" / "studies" / f"{name}.yaml")
    raw = copy.deepcopy(raw)
    if "simulation" in raw.get("evaluate", []):
        jobs = int(20_000 * ci_scale)
        raw["simulation"] = {"jobs": jobs, "warmup": jobs // 10, "replications": 8, "confidence": 0.95}
        top = 0.9 if ci_scale == 1.0 else 0.7
        raw["load"] = [x for x in raw["load"] if x <= top] or raw["load"][:1]
    ds = _study_dataset(resolve_config(raw))
    unexplained = bound_checks.unexplained_values(ds)
    assert unexplained.empty, unexplained.to_string()
    table = bound_checks.bound_table(ds, widths=4.0)
    if name in SIMULATED:
        assert len(table) > 0
    bad = table[table["violated"]]
    heavy_low = bad["heavy_tail"] & (bad["side"] == "lower") & (bad["kind"] == "exact")
    assert bad[~heavy_low].empty, bad[~heavy_low].to_string()
    # every stability verdict agrees with the analytic bounds
    wrong = bound_checks.verdict_violations(ds)
    assert wrong.empty, wrong.to_string()


def test_verdict_violations_are_found():
    loads = [0.3, 0.5, 0.7]
    ds = xr.Dataset(
        {
            "lambda_max": (("policy",), [0.5, 0.5]),
            "lambda_max_kind": (("policy",), ["exact", "necessary"]),
            "verdict": (("policy", "load"), [["stable", "stable", "unstable"], ["unstable", "stable", "stable"]]),
            "latency_mean": (("policy", "load"), [[1.0, 2.0, 3.0], [np.nan, 1.0, 1.0]]),
        },
        coords={"policy": ["ZRed", "CoC"], "load": loads},
    )
    wrong = bound_checks.verdict_violations(ds)
    problems = {(r["point"]["policy"], r["load"]): r["problem"] for _, r in wrong.iterrows()}
    assert problems[("ZRed", 0.5)].startswith("stable at or above the exact bound")
    assert problems[("ZRed", 0.7)].startswith("an estimate at a load that is unstable")
    assert problems[("CoC", 0.7)].startswith("stable above")
    assert ("CoC", 0.5) in problems  # stable above the unstable 0.3 (monotone)
    assert len(problems) == 4
