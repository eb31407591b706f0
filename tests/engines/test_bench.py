"""`straggler bench`: its workloads, the table and its JSON form (smoke tests, no timing).

The runs here are shrunk (a few thousand jobs per workload): what is checked is the
structure (every simulated policy on every engine that simulates it, the ratios
computed against the baseline of the same run, a stopped run reporting no
throughput), never a throughput: that is a benchmark's figure, not a test's
(docs/contributing.md, "Benchmarks").
"""

import dataclasses
import io
import json

import numpy as np
import pytest

from straggler.engines import bench
from straggler.engines.registry import where_simulated
from straggler.model.policies import POLICIES


def test_simpy_baseline_simulates_the_same_system():
    pytest.importorskip("simpy")
    latency = bench.simpy_coc(50, 3000, seed=1)
    assert 0.5 < latency < 1.0  # CoC d = 2, N = 50, load 0.4: 0.6956


def test_every_simulated_policy_on_every_engine_and_setting():
    ws = bench.workloads()
    names = [w.name for w in ws]
    assert len(names) == len(set(names))
    rows = {(w.policy, w.engine, (w.discipline, w.queueing)) for w in ws if w.group == "policies"}
    expected = {
        (name, engine.name, setting)
        for name, spec in POLICIES.items()
        for engine, settings in where_simulated(spec)
        for setting in settings
    }
    assert rows == expected
    assert not any(spec.analytic_only and w.policy == name for w in ws for name, spec in POLICIES.items())
    # the old keys, which other code and the docs quote
    assert {"fast_coc_d2_n50", "fast_coc_d2_n1000", "fast_coc_d2_n10000", "event_coc_d2_n50", "ps_mm1"} <= set(names)
    assert set(bench.GOALS) <= set(names)


def test_scaling_rows_for_coc_on_both_engines():
    coc = next(w.policy for w in bench.workloads() if w.name == "fast_coc_d2_n50")
    for prefix in ("fast", "event", "event_ps"):
        for N in bench.N_SCALING:
            assert f"{prefix}_{coc.lower()}_d2_n{N}" in {w.name for w in bench.workloads()}
        for d in bench.D_SCALING:
            assert f"{prefix}_{coc.lower()}_d{d}_n50" in {w.name for w in bench.workloads()}
    for w in bench.workloads():
        if POLICIES[w.policy].uses_d and w.N == bench.N_POLICY and not w.params:
            # every policy that places d replicas, at every d
            assert {v.d for v in bench.workloads() if v.policy == w.policy and v.engine == w.engine} >= set(
                bench.D_SCALING
            )


def test_quick_is_ten_times_smaller():
    full = {w.name: w.jobs for w in bench.workloads()}
    quick = {w.name: w.jobs for w in bench.workloads(quick=True)}
    assert full.keys() == quick.keys()
    assert all(full[n] == 10 * quick[n] for n in full)


def test_loads_are_stable_by_the_analysis():
    for w in bench.workloads():
        load = w.load if w.load is not None else bench.stable_load(w.model(bench.LOAD))
        assert 0 < load <= max(bench.LOAD, bench.PS_MM1_LOAD), w.name
    coc = next(w for w in bench.workloads() if w.name == "fast_coc_d2_n50")
    assert bench.stable_load(coc.model(bench.LOAD)) == bench.LOAD  # the baseline's system


@pytest.fixture
def tiny(monkeypatch):
    """Runs of a few thousand jobs: the structure, not the numbers."""
    monkeypatch.setattr(bench, "TIMED_SECONDS", 0.00096)  # 20,000 jobs on the fast path, 4,000 on the event engine
    monkeypatch.setattr(bench, "SLOW_JOBS", 500)
    monkeypatch.setattr(bench, "SIMPY_JOBS", 2_000)


def test_run_bench_json_and_table(tiny):
    pytest.importorskip("simpy")
    buf = io.StringIO()
    out = bench.run_bench(json=True, file=buf)
    data = json.loads(buf.getvalue())
    assert set(data["workloads"]) == {w.name for w in bench.workloads()} | {bench.BASELINE, bench.BARE}
    assert data["baseline"] == bench.BASELINE
    base = data["workloads"][bench.BASELINE]["jobs_per_second"]
    assert {w["policy"] for w in data["workloads"].values()} == {n for n, s in POLICIES.items() if not s.analytic_only}
    for name, w in data["workloads"].items():
        assert w["stop"] == "done", name
        assert w["jobs_per_second"] > 0 and w["seconds"] > 0
        assert w["x_simpy"] == pytest.approx(w["jobs_per_second"] / base)  # against this run's baseline
    assert data["ratio"] == pytest.approx(data["workloads"]["fast_coc_d2_n50"]["x_simpy"])
    assert data["ratio"] == pytest.approx(out["ratio"])
    assert set(data["goals"]) == set(bench.GOALS)
    for name, g in data["goals"].items():
        assert g["ratio"] == pytest.approx(data["workloads"][name]["x_simpy"])
        assert g["met"] == (g["ratio"] >= g["goal"])
    table = io.StringIO()
    bench.run_bench(file=table, only=["ps_mm1"])
    text = table.getvalue()
    assert "x SimPy" in text and bench.BASELINE in text and "ps_mm1" in text
    assert "goals" in text and ("not met" in text or " met" in text)


def test_only_keeps_the_matching_workloads_and_the_baseline(tiny):
    pytest.importorskip("simpy")
    out = bench.run_bench(json=True, file=io.StringIO(), only=["event_central_", "fast_*_d8_n50"])
    names = set(out["workloads"]) - {bench.BASELINE}
    assert names and all(n.startswith("event_central_") or n.endswith("_d8_n50") for n in names)
    assert all(not n.startswith("event_central_") or "_d8_" not in n for n in names)
    assert out["goals"] == {} and out["ratio"] is None
    assert bench.selected(["a_b", "c"], None) == ["a_b", "c"]
    assert bench.selected(["a_b", "c"], ["b"]) == ["a_b"]


def test_a_run_stopped_early_reports_no_throughput(tiny):
    """A load above capacity: the backlog monitor stops the replication, and the
    workload reports why instead of a throughput."""
    pytest.importorskip("simpy")
    w = next(w for w in bench.workloads(quick=True) if w.name == "fast_coc_d2_n50")
    r = bench.measure(dataclasses.replace(w, load=1.5, jobs=200_000), repeat=1)
    assert r["stop"] == "backlog"
    assert r["jobs_per_second"] is None and r["seconds"] is None
    out = bench.run_bench(json=True, file=io.StringIO(), only=["fast_coc_d2_n50"])
    out["workloads"]["fast_coc_d2_n50"] = {**r, "x_simpy": None}
    out["goals"]["fast_coc_d2_n50"].update(ratio=None, met=False)
    text = bench.table(out)
    assert "fast_coc_d2_n50" in text and "stopped early (backlog)" in text and "not met" in text


@pytest.mark.parametrize(("N", "d", "lam", "mean"), [(1, 1, 0.3, 1 / 0.7), (2, 2, 0.6, 1 / 1.4)])
def test_the_bare_loop_is_the_fast_paths_model(N, d, lam, mean):
    # CoC-1 on one server is M/M/1; CoC-2 on two servers with i.i.d. exponential replicas
    # is M/M/1 at service rate 2 (both serve the head job, the first completion ends it).
    # 10^6 jobs at utilisation 0.3: the mean's standard error is about 0.2 %, so 1 % is
    # five of them.
    from straggler.engines.simulation.bare import coc_mean_latency

    got = coc_mean_latency(N, d, lam, 1_000_000, np.random.default_rng(2026))
    assert got == pytest.approx(mean, rel=0.01)


def test_the_bench_reports_the_fast_paths_share_of_the_bare_loop(tiny):
    pytest.importorskip("simpy")
    out = bench.run_bench(json=True, quick=True, only=["fast_coc_d2_n50"], file=io.StringIO())
    assert bench.BARE in out["workloads"]
    share = out["bare_share"]
    fast, bare = (out["workloads"][n]["jobs_per_second"] for n in ("fast_coc_d2_n50", bench.BARE))
    assert share["share"] == pytest.approx(fast / bare) and share["goal"] == bench.BARE_SHARE_GOAL


def test_the_fast_path_cost_split_runs(capsys):
    # benchmarks/fast_path_costs.py: every row printed, each as a share of the bare loop
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "fast_path_costs.py"
    spec = importlib.util.spec_from_file_location("fast_path_costs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--jobs", "20000", "--repeat", "1"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert len(rows) == 7 and rows[0].split()[-1] == "1.00"
    assert rows[-1].startswith("the fast path")


def test_the_event_set_comparison_runs_and_its_structures_agree(capsys):
    # benchmarks/event_sets.py: every structure returns the scan's winners (it raises
    # otherwise), one row per size
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "event_sets.py"
    spec = importlib.util.spec_from_file_location("event_sets", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--steps", "5000"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert len(rows) == len(module.SIZES) + 2 and rows[1].split()[0] == str(module.SIZES[0])


def test_the_heavy_tailed_trace_is_reproducible_and_heavy():
    x = bench.heavy_trace()
    assert x.shape == (bench.HEAVY_VALUES,) and np.array_equal(x, bench.heavy_trace())  # a fixed seed
    assert 15 < x.mean() < 21 and np.median(x) < 6 and x.max() > 1000 * np.median(x)
    assert (x >= bench.HEAVY_PARETO[1]).sum() >= round(bench.HEAVY_VALUES * bench.HEAVY_PARETO[0])
    assert bench.heavy_sizes().mean() == pytest.approx(1.0)


def test_every_event_engine_policy_has_a_heavy_tailed_twin():
    ws = {w.name: w for w in bench.workloads()}
    heavy = [w for w in ws.values() if w.sizes == "heavy" and w.group != "fleet"]
    assert {(w.policy, w.discipline, w.queueing) for w in heavy} == {
        (w.policy, w.discipline, w.queueing) for w in ws.values() if w.engine == "events" and w.group == "policies"
    }
    for w in heavy:
        twin = ws[w.name.replace("_heavy", "")]
        # the same system (a headline twin runs HEADLINE_FACTOR times the jobs)
        assert (twin.policy, twin.engine, twin.discipline, twin.queueing, twin.N, twin.d) == (
            w.policy,
            w.engine,
            w.discipline,
            w.queueing,
            w.N,
            w.d,
        )
        assert twin.sizes == "exponential" and twin.params == w.params


def test_the_heavy_tailed_shares(tiny):
    pytest.importorskip("simpy")
    out = bench.run_bench(json=True, file=io.StringIO(), only=["event_hedge_d2_n50", "event_hedge_heavy_d2_n50"])
    rows = out["workloads"]
    assert rows["event_hedge_heavy_d2_n50"]["load"] == rows["event_hedge_d2_n50"]["load"]  # the twin's
    share = out["heavy_shares"]["event_hedge_heavy_d2_n50"]
    assert share["of"] == "event_hedge_d2_n50" and share["goal"] == bench.HEAVY_SHARE_GOAL
    a, b = (rows[n]["jobs_per_second"] for n in ("event_hedge_heavy_d2_n50", "event_hedge_d2_n50"))
    assert share["share"] == pytest.approx(a / b)
    assert "heavy-tailed trace's share" in bench.table(out)


def test_fleet_rows_for_the_policies_a_large_question_compares():
    """CoC, RIQ and Hedge at every fleet size, on exponential sizes and the heavy trace, each on
    the engine that runs it on FCFS servers; n_flatness pairs them by series."""
    fleet = [w for w in bench.workloads() if w.group == "fleet"]
    assert {POLICIES[w.policy].kernel_code for w in fleet} == set(bench.FLEET_CODES)
    for w in fleet:
        assert w.d == 2 and (w.discipline, w.queueing) == ("FCFS", "per_server")
        assert {v.N for v in fleet if v.policy == w.policy and v.sizes == w.sizes} == set(bench.FLEET_N)
    fake = {
        w.name: {"group": "fleet", "policy": w.policy, "N": w.N, "jobs_per_second": 2e6 if w.N == 10 else 1e6}
        for w in fleet
    }
    flat = bench.n_flatness(fake)
    assert len(flat) == 2 * len(bench.FLEET_CODES)
    assert all(e["ratio"] == 0.5 and not e["met"] for e in flat.values())
