"""The pilot's projections (straggler.study.pilot): the CI arithmetic on a known pilot, and a
pilot's projection against a run of the projected length."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from straggler.study.config import load_config, resolve_config
from straggler.study.evaluate import evaluate_cell
from straggler.study.pilot import Pilot, PilotLoad, comparison_text, pilot_config, project, run_pilot

ROOT = Path(__file__).resolve().parents[2]


def known_pilot(spread=(0.01, 0.1), mean=1.0, verdicts=("stable", "stable")) -> Pilot:
    """Two loads of one cell, pilot replications of 10^4 jobs (no warm-up), 1 us a job."""
    loads = tuple(
        PilotLoad("c", 0.1 * (i + 1), v, mean, s if v == "stable" else math.nan, 1e-6, 1e4)
        for i, (s, v) in enumerate(zip(spread, verdicts, strict=True))
    )
    return Pilot("s", 10_000, 0, 8, 0.95, loads, 0.0)


def test_a_fixed_length_half_width_falls_as_one_over_the_root_of_the_jobs():
    # replications of 10^6 jobs: a replication mean's spread is 0.01 sqrt(10^4 / 10^6) = 0.001
    p = project(known_pilot(), jobs=1_000_000, warmup=0, replications=50)
    t49 = stats.t.ppf(0.975, 49)
    assert p.points[0].relative_half_width == pytest.approx(t49 * 0.001 / math.sqrt(50), rel=1e-12)
    assert p.points[1].relative_half_width == pytest.approx(t49 * 0.01 / math.sqrt(50), rel=1e-12)
    assert p.seconds == pytest.approx(2 * 50 * 1_000_000 * 1e-6)
    assert p.widest is p.points[1]


def test_precision_adds_the_fewest_replications_that_reach_it_within_the_cap():
    pilot = known_pilot()
    p = project(pilot, jobs=1_000_000, warmup=0, replications=10, precision=0.003, max_jobs=50_000_000)
    narrow, wide = p.points
    assert narrow.replications == 10  # t_9 0.001 / sqrt(10) = 0.0007: the minimum does
    need = next(r for r in range(10, 51) if stats.t.ppf(0.975, r - 1) * 0.01 / math.sqrt(r) <= 0.003)
    assert wide.replications == need and wide.relative_half_width <= 0.003
    capped = project(pilot, jobs=1_000_000, warmup=0, replications=10, precision=1e-4, max_jobs=50_000_000)
    assert [q.replications for q in capped.points] == [50, 50]  # the cap: the fixed length
    fixed = project(pilot, jobs=1_000_000, warmup=0, replications=50)
    assert capped.seconds == pytest.approx(fixed.seconds)
    assert capped.widest.relative_half_width == pytest.approx(fixed.widest.relative_half_width)


def test_an_unstable_load_stops_early_and_those_above_it_cost_nothing():
    pilot = known_pilot(verdicts=("unstable", "stable"))
    pilot = Pilot(
        pilot.study, pilot.jobs, 0, 8, 0.95, (pilot.loads[0], PilotLoad("c", 0.2, "", 1, math.nan, 1e-6, 0)), 0
    )
    p = project(pilot, jobs=1_000_000, warmup=0, replications=10, precision=0.001, max_jobs=50_000_000)
    assert p.points[0].seconds == pytest.approx(10 * 1e4 * 1e-6)  # its replications as long as the pilot's
    assert p.points[1].seconds == 0 and p.widest is None


def small_study(**over):
    cfg = load_config(ROOT / "config" / "config.yaml")
    cfg.update(
        grid={
            "policy": ["ZRed"],
            "distribution": ["exp"],
            "dependence": ["identical"],
            "r_slow": [1.0],
            "d": [2],
            "N": [4],
        },
        load=[0.3, 0.6],
        simulation={"jobs": 20_000, "warmup": 2_000, "replications": 20, "confidence": 0.95},
    )
    cfg.update(copy.deepcopy(over))
    return resolve_config(cfg)


def test_a_pilot_projects_the_half_width_of_a_longer_run():
    """A pilot of 20 replications of 2000 jobs against a run of 20 of 20000 (fixed seeds).
    Each half-width rests on 20 replications' spread, whose ratio is F(19, 19)-distributed
    if the projection is right: the ratio of the squares lies in its central 99.9 %."""
    resolved = small_study()
    pilot = run_pilot(resolved, jobs=2_000, replications=20)
    projected = project(pilot, 20_000, 2_000, 20)
    run = evaluate_cell(resolved, next(iter(_cells(resolved))))
    low, high = stats.f.ppf([0.0005, 0.9995], 19, 19)
    for point, mean, half in zip(
        projected.points, run["latency_mean"].values, run["latency_mean_ci"].values, strict=True
    ):
        assert low <= (point.relative_half_width * mean / half) ** 2 <= high, point


def _cells(resolved):
    from straggler.study.grid import build_grid

    return build_grid(resolved).cells


def test_the_pilot_runs_at_its_own_length_and_never_in_precision_mode():
    resolved = small_study(
        simulation={"jobs": 10**7, "warmup": 10**6, "replications": 10, "precision": 0.01, "max_jobs": 5 * 10**8}
    )
    short = pilot_config(resolved, 1000, 4)
    sim = short.simulation
    assert (sim.jobs, sim.warmup, sim.replications, sim.precision, sim.max_jobs) == (1000, 100, 4, None, None)
    assert short.grid == resolved.grid and short.load == resolved.load and short.seed == resolved.seed


def test_the_comparison_names_both_lengths_and_the_widest_point():
    resolved = small_study(
        simulation={"jobs": 100_000, "warmup": 10_000, "replications": 4, "precision": 0.01, "max_jobs": 2_000_000}
    )
    lines = comparison_text(run_pilot(resolved, jobs=1_000, replications=4), resolved)
    text = "\n".join(lines)
    assert "fixed length (20 x 1e+05 jobs a load)" in text  # the cap, max_jobs / jobs
    assert "precision 0.01 (4 to 20 x 1e+05 jobs a load)" in text
    assert "widest CI" in text and "at policy=ZRed" in text
    assert np.isfinite(float(lines[-1].split("precision of ")[1].split()[0]))
