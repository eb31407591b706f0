"""The engines are data: one record per engine, chosen by what a policy needs
(straggler.engines.registry), and a kernel factory per engine (simulation.engines.KERNELS)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from straggler.engines import bench
from straggler.engines import registry as engines
from straggler.engines.simulation import encode_model, engine_for, run_replication
from straggler.engines.simulation import engines as sim_engines
from straggler.engines.simulation.reference import make_model
from straggler.model.policies import (
    EVENT_LIST,
    FCFS_PER_SERVER,
    POLICIES,
    PS_PER_SERVER,
    WORKLOAD_RECURSION,
)
from straggler.outputs import glossary
from straggler.study import progress, workunits
from straggler.study.config import load_config, resolve_config
from straggler.study.grid import build_grid

ROOT = Path(__file__).resolve().parents[2]


def test_a_policy_runs_on_the_first_engine_with_what_it_needs():
    # the d-of-N policies' FCFS dynamics are the workload recursion: the fast path only
    for policy in ("CoS", "RIQ", "FJ"):
        assert engines.choose(policy, "FCFS", "per_server").name == "fast"
        with pytest.raises(NotImplementedError, match="engine 'events' does not simulate"):
            engines.choose(policy, "FCFS", "per_server", name="events")
        assert engines.choose(policy, "PS", "per_server").name == "events"
    # Rep needs an event list everywhere
    assert engines.choose("Rep", "FCFS", "per_server").name == "events"
    # a bound system needs the PS bound feature, which only PS per-server queues have
    assert engines.choose("CoC", "PS", "per_server", "upper").name == "events"
    with pytest.raises(NotImplementedError, match="ps_bound upper"):
        engines.choose("CoC", "FCFS", "per_server", "upper")
    with pytest.raises(NotImplementedError, match="no simulation engine called 'gpu'"):
        engines.choose("CoC", "FCFS", "per_server", name="gpu")


def test_needs_are_the_specs_and_a_bound_only_for_a_policy_with_one():
    coc, zred = POLICIES["CoC"], POLICIES["ZRed"]
    assert engines.needs_of(coc, PS_PER_SERVER) == frozenset()
    assert engines.needs_of(coc, PS_PER_SERVER, "lower") == {engines.PS_BOUND}
    assert engines.needs_of(zred, PS_PER_SERVER, "lower") is None  # ZRed has no bound systems
    assert engines.needs_of(coc, ("FCFS", "central")) is None  # CoC is not simulated there


def test_a_toy_engine(monkeypatch):
    """docs/contributing.md, "Adding an engine", followed once: a record placed first and
    a kernel that delegates to the fast path's. The choice, the kernel, the cost model, the
    bench, the glossary and the coverage text all follow the record."""
    calls = []

    def toy_kernel_factory():
        kernel = sim_engines.KERNELS["fast"]()

        def run(*args):
            calls.append(len(args))
            kernel(*args)

        return run

    toy = engines.EngineSpec(
        name="toy",
        title="the toy engine",
        features={FCFS_PER_SERVER: frozenset({WORKLOAD_RECURSION, EVENT_LIST})},
        seconds_per_unit=1e-6,
        bench_prefix="toy",
        compile_seconds=(1.0, 0.0, 0.1),
    )
    monkeypatch.setattr(engines, "ENGINES", (toy, *engines.ENGINES))
    monkeypatch.setattr(engines, "BY_NAME", {e.name: e for e in engines.ENGINES})
    monkeypatch.setitem(sim_engines.KERNELS, "toy", toy_kernel_factory)

    # chosen first where it has what a policy needs, never elsewhere
    assert engines.choose("CoC", "FCFS", "per_server").name == "toy"
    assert engines.choose("Rep", "FCFS", "per_server").name == "toy"
    assert engines.choose("CoC", "PS", "per_server").name == "events"

    # its kernel runs, and gives the fast path's numbers
    model = make_model("CoC", 4, [0.5], d=2, two_pools=False)
    chosen = engine_for(model)
    assert chosen.name == "toy"
    enc = encode_model(model)
    lam = float(model.rates()[0])
    seed = np.random.SeedSequence(7)
    ours, _ = run_replication(chosen.kernel, enc, lam, 100, 2000, seed)
    theirs, _ = run_replication(engine_for(model, "fast").kernel, enc, lam, 100, 2000, seed)
    assert calls and np.array_equal(ours.acc, theirs.acc)

    # the work units' cost model reads its record
    cfg = load_config(ROOT / "config" / "config.yaml")
    resolved = resolve_config(cfg)
    cell = next(c for c in build_grid(resolved).cells.values() if c.policy == "CoC")
    assert (resolved.system.discipline, resolved.system.queueing) == FCFS_PER_SERVER
    assert workunits.engine_of(resolved, cell).name == "toy"
    spec = POLICIES["CoC"]
    replicas = int(cell.get("d", 1)) if spec.uses_d else spec.concurrent_replicas
    assert workunits.seconds_per_job(resolved, cell) == pytest.approx((1 + replicas) * toy.seconds_per_unit)
    kind = workunits.kernel_kind(resolved, cell)
    assert kind is not None and progress.kind_engine(kind) == "toy"
    assert progress.compile_seconds(kind, engine_cached=False) == toy.compile_seconds[0]

    # the bench measures it, the glossary and the coverage text name it
    names = {w.name for w in bench.workloads(quick=True)}
    assert "toy_coc_d2_n50" in names and "fast_coc_d2_n50" in names
    assert "the toy engine (FCFS per-server)" in glossary.policy_text("CoC")
    assert "the toy engine (FCFS per-server:" in engines.coverage()
