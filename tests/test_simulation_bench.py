"""`straggler bench`: the throughput table and its JSON form (a smoke test)."""

import io
import json

import pytest

from straggler import bench


def test_simpy_baseline_simulates_the_same_system():
    pytest.importorskip("simpy")
    latency = bench.simpy_coc(50, 3000, seed=1)
    assert 0.5 < latency < 1.0  # CoC d = 2, N = 50, load 0.4: 0.6956


def test_run_bench_json_and_table():
    pytest.importorskip("simpy")
    buf = io.StringIO()
    out = bench.run_bench(json=True, quick=True, file=buf)
    data = json.loads(buf.getvalue())
    assert set(data["workloads"]) == {
        "fast_coc_d2_n50",
        "simpy_coc_d2_n50",
        "fast_coc_d2_n1000",
        "fast_coc_d2_n10000",
        "event_coc_d2_n50",
        "ps_mm1",
    }
    for w in data["workloads"].values():
        assert w["jobs_per_second"] > 0 and w["seconds"] > 0
    assert data["ratio"] == pytest.approx(out["ratio"])
    assert data["ratio"] > 0  # its size is a benchmark's figure, not a test's (docs/contributing.md, "Benchmarks")
    table = io.StringIO()
    bench.run_bench(quick=True, file=table)
    assert "fast / simpy" in table.getvalue()
