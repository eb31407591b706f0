"""Work units: the cost model, batches and shards, the cells' keys, the sources each
result depends on, and a light parse (docs/guide/running.md, "Work units")."""

import ast
import copy
import subprocess
import sys
from pathlib import Path

import pytest

from straggler.common import sources
from straggler.study import workunits
from straggler.study.config import load_config, resolve_config
from straggler.study.grid import build_grid

ROOT = Path(__file__).resolve().parents[2]


def study(**over):
    cfg = load_config(ROOT / "config" / "config.yaml")
    cfg.update(copy.deepcopy(over))
    return resolve_config(cfg)


def test_cheap_cells_are_batched_up_to_the_target():
    analytic = study(evaluate=["analytic"])
    p = workunits.plan(analytic, build_grid(analytic), "code")
    # 112 cells of tens of milliseconds, but for the replica bounds of 16 (about 2 s
    # each): about 35 s, cut for four cores
    assert len(p.batches) <= workunits.MIN_BATCHES + 1 and not p.shards
    simulated = study()
    p = workunits.plan(simulated, build_grid(simulated), "code")
    target = workunits.DEFAULTS["target_seconds"]
    assert 2 <= len(p.batches) < 112
    for batch in p.batches.values():  # a batch passes the target only by its last cell
        costs = [p.costs[c].total for c in batch.cells]
        assert sum(costs[:-1]) <= target
    cells = [c for b in p.batches.values() for c in b.cells]
    assert cells == list(build_grid(simulated).cells)  # every cell once, in grid order


def test_a_small_study_is_cut_for_a_few_cores_a_large_one_by_the_target():
    startup = workunits.STARTUP_SECONDS * workunits.MIN_BATCH_STARTUPS
    assert workunits.batch_seconds(0.5 * startup, 20.0) == 0.5 * startup  # one job
    assert workunits.batch_seconds(3.5 * startup, 20.0) == 3.5 * startup / 2
    assert workunits.batch_seconds(10 * startup, 20.0) == 10 * startup / workunits.MIN_BATCHES
    assert workunits.batch_seconds(1000.0, 20.0) == 1000.0 / 52  # 50 shares, rounded up to 4s
    assert workunits.batch_seconds(800.0, 20.0) == 20.0


def test_cells_per_job_and_replications_per_job_counts():
    cfg = study(execution={"cells_per_job": 10, "replications_per_job": 1})
    p = workunits.plan(cfg, build_grid(cfg), "code")
    reps = cfg.simulation.replications
    simulated = [c for c in build_grid(cfg).cells if not c.startswith("policy=KS")]
    assert len(p.shards) == len(simulated) * reps
    assert all(len(b.shards) == reps and len(b.cells) == 1 for b in p.batches.values() if b.shards)


def test_an_expensive_cell_is_split_into_shards_of_about_the_target():
    cfg = study(simulation={"jobs": 10**7, "warmup": 10**5, "replications": 50})
    p = workunits.plan(cfg, build_grid(cfg), "code")
    cell = next(iter(build_grid(cfg).cells))
    shards = [s for s in p.shards.values() if s.cell == cell]
    assert len(shards) > 1
    assert [(s.first, s.stop) for s in shards][0][0] == 0 and shards[-1].stop == 50
    per_replication = p.costs[cell].replication
    for s in shards:
        assert (s.stop - s.first) * per_replication <= workunits.DEFAULTS["target_seconds"] or s.stop - s.first == 1
    # sequential stopping decides its replications one round after another: never split
    cfg = study(simulation={"jobs": 10**7, "warmup": 10**5, "replications": 50, "precision": 0.05, "max_jobs": 10**9})
    assert not workunits.plan(cfg, build_grid(cfg), "code").shards


def test_cell_keys_follow_the_spec_and_the_code_not_how_work_is_cut():
    a = study()
    b = study(execution={"target_seconds": 5, "cells_per_job": 3})
    grid = build_grid(a)
    cell = next(iter(grid.cells.values()))
    key = workunits.cell_key(a, cell, "code")
    assert key.startswith(cell.id + "@")
    assert workunits.cell_key(b, cell, "code") == key
    assert workunits.cell_key(a, cell, "other code") != key
    c = study(simulation={"jobs": 100000, "warmup": 20000, "replications": 4})
    assert workunits.cell_key(c, cell, "code") != key
    # another policy's parameters do not touch a ZRed cell
    d = study(policies={"Rer": {"tau": 3.0}, "Rep": {"tau": "opt"}})
    assert workunits.cell_key(d, cell, "code") == key


def test_the_plan_does_not_depend_on_which_results_exist(tmp_path):
    cfg = study()
    grid = build_grid(cfg)
    p = workunits.plan(cfg, grid, "code")
    results = tmp_path / "results" / "default"
    assert len(p.pending(str(results))) == len(p.batches)
    first = next(iter(p.batches.values()))
    (results / "cells").mkdir(parents=True)
    for key in first.keys:
        (results / "cells" / f"{key}.nc").write_text("")
    again = workunits.plan(cfg, grid, "code")
    assert again.batches == p.batches
    assert first.id not in {b.id for b in again.pending(str(results))}


def test_a_batch_that_lost_a_cell_since_it_ran_is_a_new_target_and_nothing_is_deleted(tmp_path):
    """The job of a pending batch writes units/<batch>~<todo>.json. A batch that ran (its
    manifest is there) and then lost a cell, or had one damaged, gets a target of another
    name, so Snakemake runs it again although its old manifest stays; a batch of one cell
    too (its cells to compute are the same each time, its manifests are not)."""
    cfg = study()
    p = workunits.plan(cfg, build_grid(cfg), "code")
    results = tmp_path / "results" / "default"
    (results / "units").mkdir(parents=True)
    (results / "cells").mkdir()
    batch = next(b for b in p.batches.values() if len(b.keys) > 1)
    first = p.unit_target(str(results), batch)
    assert Path(first).parent == results / "units" and Path(first).name.startswith(f"{batch.id}~")
    assert p.unit_target(str(results), batch) == first, "the same state names the same target"
    for key in batch.keys:
        (results / "cells" / f"{key}.nc").write_text("")
    Path(first).write_text("{}")
    assert batch not in p.pending(str(results))
    lost = results / "cells" / f"{batch.keys[0]}.nc"
    lost.unlink()
    assert batch in p.pending(str(results))
    second = p.unit_target(str(results), batch)
    assert second != first and Path(first).exists()
    lost.write_text("")
    damaged = [str(results / "cells" / f"{batch.keys[1]}.nc")]
    assert batch in p.pending(str(results), damaged)
    assert p.unit_target(str(results), batch, damaged) not in (first, second)
    alone = workunits.Batch("b99999-0", ("c",), ("c@k",), 1.0)
    one = p.unit_target(str(results), alone)
    Path(one).write_text("{}")
    assert p.unit_target(str(results), alone) != one


def test_runtime_requests_grow_with_the_estimate_and_the_attempt():
    assert workunits.runtime_minutes(1.0) == 5
    assert workunits.runtime_minutes(600.0) == 31
    assert workunits.runtime_minutes(1.0, attempt=3) == 15


# ---------------------------------------------------------------- sources


def _ast_imports(path: Path) -> set[str]:
    """The straggler modules a file imports, by a full parse (the reference)."""
    rel = path.relative_to(sources.ROOT).with_suffix("")
    parts = list(rel.parts)
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
            mod = ".".join(base + ([node.module] if node.module else []))
            found.add(mod)
            found.update(f"{mod}.{a.name}" if mod else a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("straggler"):
            found.add(node.module.removeprefix("straggler").lstrip("."))
    return {m for m in found if sources.module_file(m) is not None}


def test_the_import_scan_finds_every_import_a_parse_finds():
    for path in sorted(sources.ROOT.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        assert _ast_imports(path) <= set(sources.imports_of(path)), path


def test_presentation_code_is_outside_what_the_numbers_depend_on():
    closure = {str(p.relative_to(sources.ROOT)) for p in sources.import_closure("study.evaluate", "study.dataset")}
    for name in (
        "outputs/figures/__init__.py",
        "outputs/report/__init__.py",
        "outputs/archive.py",
        "cli/__init__.py",
        "engines/bench.py",
        "study/workunits.py",
        "outputs/catalog.py",
        "run/pipeline.py",
    ):
        assert name not in closure, name
    assert {
        "study/evaluate.py",
        "study/verdict.py",
        "engines/simulation/fast.py",
        "engines/analysis/cell.py",
    } <= closure
    simulation = {
        str(p.relative_to(sources.ROOT))
        for p in sources.import_closure("engines.simulation", "study.cell_build", "study.grid")
    }
    assert "engines/analysis/cell.py" not in simulation and "study/verdict.py" not in simulation
    assert "engines/simulation/events.py" in simulation


def test_the_parse_imports_no_heavy_module(tmp_path):
    """What workflow/rules/common.smk runs at every parse, cluster jobs included."""
    code = f"""
import sys
from straggler.outputs.catalog import figure_names
from straggler.study.config import load_config, resolve_config_cached
from straggler.study.grid import build_grid
from straggler.common.sources import model_hash, presentation_hash
from straggler.study.workunits import plan
raw = load_config({str(ROOT / "config" / "config.yaml")!r})
from straggler.study.workunits import cache_law_facts, _LAW_FACTS
cache_law_facts(resolve_config_cached(raw, "cache"), "cache")  # the first parse validates (numpy)
"""
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True)
    code += """
for m in [m for m in sys.modules if m.split(".")[0] in ("numpy", "numba", "scipy")]:
    del sys.modules[m]
_LAW_FACTS.clear()
resolved = resolve_config_cached(raw, "cache")  # a job's parse: read back
cache_law_facts(resolved, "cache")
grid = build_grid(resolved)
plan(resolved, grid, model_hash()).pending("results/default")
figure_names(grid.axes), presentation_hash()
heavy = [m for m in ("numpy", "numba", "xarray", "pandas", "scipy", "netCDF4") if m in sys.modules]
assert not heavy, heavy
"""
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]


def test_a_cached_resolution_is_the_resolution(tmp_path):
    from straggler.study.config import resolve_config_cached

    for path in [ROOT / "config" / "config.yaml", *sorted((ROOT / "config" / "studies").glob("*.yaml"))]:
        raw = load_config(path)
        first = resolve_config_cached(raw, tmp_path)
        assert first == resolve_config(raw)
        assert resolve_config_cached(raw, tmp_path) == first


@pytest.mark.parametrize("key,value", [("target_seconds", 0), ("cells_per_job", "some"), ("replications_per_job", 0)])
def test_execution_keys_are_validated(key, value):
    from straggler.study.config import ConfigError

    with pytest.raises(ConfigError, match=f"execution.{key}: value"):
        study(execution={key: value})


def test_the_cost_model_reads_the_size_law(tmp_path):
    """A trace of many values costs TABLE_FACTOR a job (cache misses), a heavy tail
    HEAVY_RUNS (its verdicts need longer runs), and Rep's analysis grows with the trace;
    the facts are kept with the cached resolution, so a job's parse builds no law."""
    import json

    import numpy as np

    values = np.where(np.arange(10_000) % 100 == 0, 1000.0, 1.0)  # scv about 89
    np.savetxt(tmp_path / "trace.txt", values)
    raw = load_config(ROOT / "config" / "config.yaml")
    raw["distributions"] = {
        **raw["distributions"],
        "trace": {"family": "empirical", "file": str(tmp_path / "trace.txt")},
    }
    raw["grid"] = {**raw["grid"], "distribution": ["exp", "trace"]}
    resolved = resolve_config(raw)
    facts = workunits.law_facts(resolved, "trace")
    mean = float(values.mean())
    assert facts == workunits.LawFacts(
        10_000, True, pytest.approx(mean), pytest.approx(float((values**2).mean()) / mean)
    )
    assert workunits.law_facts(resolved, "exp") == workunits.LawFacts(0, False, 1.0, 2.0)
    cells = build_grid(resolved).cells.values()
    pick = {
        (c.policy, c["distribution"]): c
        for c in cells
        if c["dependence"] == "iid" and c.get("r_slow", 1.0) == raw["grid"]["r_slow"][0]
    }
    ratio = workunits.seconds_per_job(resolved, pick["CoC", "trace"]) / workunits.seconds_per_job(
        resolved, pick["CoC", "exp"]
    )
    assert ratio == pytest.approx(workunits.TABLE_FACTOR * workunits.HEAVY_RUNS)
    rep = workunits.analysis_seconds(resolved, pick["Rep", "trace"]) - workunits.WRITE_SECONDS
    assert rep == pytest.approx(workunits.TABLE_ANALYSIS_SECONDS * 10_000)
    kept = json.loads(json.dumps(workunits.study_law_facts(resolved)))
    assert kept[workunits.law_key(resolved.distributions["trace"])][:2] == [10_000, True]
    workunits.remember_law_facts(kept)  # as a job's parse reads them back
    assert workunits.law_facts(resolved, "trace") == facts


def test_the_study_s_estimate_counts_the_work_after_its_cells():
    """The report always; the break-even searches of a study that sweeps cancel_delay."""
    resolved = resolve_config(load_config(ROOT / "config" / "studies" / "hedging.yaml"))
    grid = build_grid(resolved)
    from straggler.decide.break_even import delay_settings

    parts = workunits.study_seconds(resolved, grid, workunits.plan(resolved, grid, "code"), delay_settings(grid))
    assert set(parts) == {"report", "break-even"}
    assert parts["break-even"] > parts["report"] > workunits.REPORT_SECONDS
    plain = resolve_config(load_config(ROOT / "config" / "config.yaml"))
    grid = build_grid(plain)
    assert set(workunits.study_seconds(plain, grid, workunits.plan(plain, grid, "code"))) == {"report"}
