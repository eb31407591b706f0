"""A fleet (:mod:`straggler.study.fleet`): a cell of more than 100 servers starts in
equilibrium where its empty start would need more than the configured warm-up, and takes
its stability verdict from the mean-field limit or from the same cell on 100 servers where
its own run is too short; the work units' cost model reads the same rule."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pytest

from straggler.engines.analysis.cell import analyze
from straggler.engines.simulation.result import SimulationResult
from straggler.study import fleet, workunits
from straggler.study.cell_build import build_model
from straggler.study.config import load_config, resolve_config
from straggler.study.grid import build_grid

ROOT = Path(__file__).resolve().parents[2]
TRACE = {"family": "empirical", "file": str(ROOT / "config" / "data" / "requests_ms.csv"), "column": "duration_ms"}


def study(policies, N, load=(0.3, 0.7), execution=None, **system):
    cfg = load_config(ROOT / "config" / "config.yaml")
    cfg.update(
        copy.deepcopy(
            {
                "study": "fleet",
                "grid": {
                    "policy": list(policies),
                    "distribution": ["trace"],
                    "dependence": ["iid"],
                    "r_slow": [1],
                    "d": [2],
                    "N": [N],
                },
                "load": list(load),
                "distributions": {"trace": TRACE},
                "system": {"pools": 1, **system} if system.get("queueing") != "central" else system,
                **({"execution": execution} if execution else {}),
            }
        )
    )
    return resolve_config(cfg)


def plans(resolved):
    out = {}
    for cell in build_grid(resolved).cells.values():
        model = build_model(resolved, cell)
        out[cell.policy] = (fleet.plan(model, analyze(model), int(resolved.simulation.warmup)), model, cell)
    return out


def test_up_to_a_hundred_servers_nothing_changes():
    for policy, (plan, _, _) in plans(study(["CoC", "Hedge"], 100)).items():
        assert plan.how == ("", "") and not plan.start.laws and not plan.needs_reference, policy


def test_a_fleet_starts_from_the_limit_or_from_a_hundred_servers():
    got = plans(study(["CoC", "Hedge"], 2000))
    coc, model, _ = got["CoC"]
    assert coc.how == ("mean-field", "mean-field") and not coc.needs_reference
    # the empty start of 2,000 servers would need more than the 20,000 jobs of warm-up
    need = fleet.empty_warmup(model, analyze(model))
    assert all(n > 20_000 for n in need)
    assert coc.equilibrium == (True, True)
    law = coc.start.law(1)
    eq = analyze(model).mean_field[1]
    assert law is not None and law.source == "mean-field"
    # the start's law is the limit's workload: its mean, within the table's resolution
    u = np.linspace(0, 1, 200_001)[1:-1]
    assert law.mean == pytest.approx(float(np.mean(eq.workload_quantile(u))), rel=2e-2)
    assert all(coc.start.decided_elsewhere(li) for li in range(2))
    hedge, _, _ = got["Hedge"]
    assert hedge.how == ("reference", "reference") and hedge.needs_reference
    assert hedge.start.law(0) is None  # until the reference system's end state is known
    assert any("N = 100" in n for n in hedge.notes)


def test_a_fleet_the_tier_cannot_start_starts_empty_with_a_longer_warmup():
    plan, model, _ = plans(study(["Hedge"], 2000, discipline="PS"))["Hedge"]
    assert set(plan.how) <= {"empty", ""} and "empty" in plan.how
    li = plan.how.index("empty")
    assert plan.start.warmup(li, 20_000) > 20_000 and not plan.start.decided_elsewhere(li)
    assert any("a cost that grows with N" in n for n in plan.notes)


def test_the_reference_cell_is_the_same_cell_on_a_hundred_servers():
    _, _, cell = plans(study(["Hedge"], 2000))["Hedge"]
    ref = fleet.reference_cell(cell)
    assert ref["N"] == fleet.REFERENCE_N and ref.policy == "Hedge"
    assert {a: v for a, v in ref.coords if a != "N"} == {a: v for a, v in cell.coords if a != "N"}
    assert "N=100" in ref.id and "N=2000" not in ref.id


def _result(verdicts, reasons):
    n = len(verdicts)
    nan = np.full(n, math.nan)
    return SimulationResult(
        loads=np.arange(n, dtype=float),
        latency_mean=nan.copy(),
        latency_mean_ci=nan.copy(),
        latency_quantile=np.full((n, 5), math.nan),
        cost_mean=nan.copy(),
        cost_mean_ci=nan.copy(),
        verdict=np.array(verdicts, dtype=object),
        jobs=np.zeros(n, dtype=np.int64),
        replications=np.zeros(n, dtype=np.int64),
        jobs_to_verdict=np.full(n, 1e6),
        precision_achieved=nan.copy(),
        skipped=np.zeros(n, dtype=bool),
        reason=np.array(reasons, dtype=object),
        evidence=np.array([""] * n, dtype=object),
    )


def test_carried_verdicts_only_where_the_run_was_too_short_and_the_analysis_silent():
    from straggler.engines.simulation.start import EMPTY

    plan = fleet.FleetPlan(EMPTY, ("mean-field", "mean-field", "reference", "reference", ""))
    sim = _result(
        ["undetermined", "undetermined", "undetermined", "stable", "undetermined"],
        ["short", "short", "short", "", "short"],
    )
    reference = _result(["stable", "stable", "unstable", "stable", "stable"], ["", "", "backlog", "", ""])
    fleet.carry(sim, plan, reference, proven=[False, True, False, False, False])
    assert list(sim.verdict) == ["stable", "undetermined", "unstable", "stable", "undetermined"]
    assert list(sim.evidence) == ["mean-field", "", "N = 100", "", ""]
    assert math.isnan(sim.jobs_to_verdict[0]) and sim.jobs_to_verdict[1] == 1e6


@pytest.mark.parametrize(
    "policies,N,system,expected",
    [
        (["CoC", "RIQ", "ZRed"], 2000, {}, "mean-field"),
        (["Hedge", "Rep"], 2000, {}, "reference"),
        (["CoC", "Hedge"], 100, {}, ""),
        (["Hedge"], 2000, {"discipline": "PS"}, "empty"),
    ],
)
def test_the_cost_model_reads_the_same_rule(policies, N, system, expected):
    resolved = study(policies, N, **system)
    for cell in build_grid(resolved).cells.values():
        assert workunits.fleet_start_of(resolved, cell) == expected, cell.id
        plan = fleet.plan(build_model(resolved, cell), analyze(build_model(resolved, cell)), 20_000)
        assert expected in plan.how or (expected == "" and set(plan.how) == {""}), (cell.id, plan.how)


def test_a_reference_fleet_costs_its_reference_and_is_never_sharded():
    resolved = study(["Hedge"], 2000)
    cell = next(iter(build_grid(resolved).cells.values()))
    cost = workunits.estimate(resolved, cell)
    ref = workunits.estimate(resolved, fleet.reference_cell(cell))
    assert cost.reference == pytest.approx(ref.simulation) and cost.total > ref.total
    # never sharded, even one replication a job: each shard would run the reference again
    one_a_job = study(["Hedge", "CoC"], 2000, execution={"replications_per_job": 1})
    plan = workunits.plan(one_a_job, build_grid(one_a_job), "code")
    sharded = {shard.cell for shard in plan.shards.values()}
    assert sharded and all("Hedge" not in cell for cell in sharded)


def test_a_fleet_beyond_ten_thousand_is_simulated_on_ten_thousand():
    resolved = study(["CoC"], 1_000_000, load=(0.5,))
    cell = next(iter(build_grid(resolved).cells.values()))
    stand_in = fleet.simulated_cell(cell)
    assert stand_in["N"] == fleet.SIMULATED_N and stand_in.policy == "CoC"
    small = next(iter(build_grid(study(["CoC"], 2000, load=(0.5,))).cells.values()))
    assert fleet.simulated_cell(small) is small
    assert "10,000" in fleet.simulated_note(1_000_000) and "1,000,000" in fleet.simulated_note(1_000_000)


@pytest.mark.slow
def test_a_million_servers_are_answered_from_ten_thousand_and_the_limit():
    """The cell of 10^6 servers: its analysis its own (the limit), its simulation the same
    cell's on 10^4, which the note says."""
    import json

    from straggler.study.evaluate import evaluate_cell

    resolved = study(["CoC"], 1_000_000, load=(0.5,))
    (cid,) = build_grid(resolved).cells
    ds = evaluate_cell(resolved, cid)
    assert ds["latency_approx_kind"].item() == "mean-field"
    assert ds["stable"].item() == 1.0
    notes = json.loads(ds.attrs["notes"])
    assert any("simulated on N = 10,000 servers, not 1,000,000" in n for n in notes)
    gap = abs(ds["latency_mean"].item() - ds["latency_approx"].item())
    assert gap <= 4 * ds["latency_mean_ci"].item() + 2e-3 * ds["latency_approx"].item()
