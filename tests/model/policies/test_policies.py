"""The policy registry is the one place a policy is declared (straggler.model.policies)."""

from __future__ import annotations

import pytest

from straggler.engines.analysis.cell import HANDLERS
from straggler.engines.registry import BY_NAME, choose
from straggler.model.policies import ALIASES, POLICIES, all_policy_names
from straggler.study import config


def test_every_policy_names_an_existing_analysis():
    assert {name: spec.analysis for name, spec in POLICIES.items() if spec.analysis not in HANDLERS} == {}


def test_kernel_codes_are_distinct_and_every_simulated_setting_has_an_engine():
    codes = [spec.kernel_code for spec in POLICIES.values() if spec.kernel_code is not None]
    assert len(codes) == len(set(codes))
    for name, spec in POLICIES.items():
        assert bool(spec.simulated_in) == (spec.kernel_code is not None), name
        for discipline, queueing in spec.simulated_in:
            assert choose(name, discipline, queueing).name in BY_NAME, name


def test_the_schema_is_completed_from_the_registry():
    schema = config.schema()
    assert schema["$defs"]["policy_name"]["enum"] == all_policy_names()
    entries = schema["properties"]["policies"]["properties"]
    assert set(entries) == set(POLICIES) | set(ALIASES)
    for name, entry in entries.items():
        assert entry["$ref"].removeprefix("#/$defs/") in schema["$defs"], name


def test_the_hooks_named_by_a_spec_exist():
    """A hook that lives above the registry is named by the spec and looked up there."""
    from straggler.study.cell_build import TASK_LAWS
    from straggler.study.config.checks import POLICY_CHECKS
    from straggler.study.evaluate import ANALYSIS_CHOICES

    for name, spec in POLICIES.items():
        assert not spec.config_errors or spec.config_errors in POLICY_CHECKS, name
        assert not spec.task_law or spec.task_law in TASK_LAWS, name
        assert set(spec.chosen_by_analysis) <= set(ANALYSIS_CHOICES) & set(spec.parameters), name
        assert set(spec.chosen_per_load) <= set(spec.chosen_by_analysis), name
        assert not spec.picks_pool or spec.kernel_code is not None, name
        assert callable(spec.blocking_order), name
        assert spec.grid_impossible is None or callable(spec.grid_impossible), name


def test_every_engine_has_a_kernel_that_results_depend_on():
    from straggler.common import sources
    from straggler.engines.registry import ENGINES
    from straggler.engines.simulation.engines import KERNELS

    assert [e.name for e in ENGINES] == list(KERNELS)
    closure = {str(p.relative_to(sources.ROOT)) for p in sources.import_closure("engines.simulation")}
    assert {"engines/simulation/fast.py", "engines/simulation/events.py"} <= closure


def test_a_toy_parametrised_policy(monkeypatch):
    """docs/contributing.md, "Adding a policy", followed once: a spec with a parameter in
    the registry, simulated by an existing kernel branch (CoC's). The config schema, the
    checks, a grid axis over its parameter, the cells, the encoding of its kernel parameter,
    the engine's choice, the simulation and the glossary all follow the spec; no other file
    changes."""
    import importlib

    import numpy as np

    from straggler.engines.simulation.encode import F_POLICY, encode
    from straggler.model import policies
    from straggler.outputs import glossary
    from straggler.study.config import resolve_config
    from straggler.study.evaluate import evaluate_cell
    from straggler.study.grid import build_grid

    toy = policies.PolicySpec(
        "Toy",
        "d copies, cancel on complete, with a knob",
        title="a toy",
        explanation="CoC with a knob its kernel branch may read.",
        analysis="cancel_on_complete",  # CoC's analysis, as its kernel branch is CoC's
        analysis_summary="None.",
        uses_d=True,
        two_pools=False,
        parameters={"knob": 1.5},
        parameter_schema={"knob": policies.swept({"type": "number", "minimum": 0}, "A knob >= 0, or a list.")},
        kernel_parameters=("knob",),
        kernel_code=policies.COC_CODE,
        simulated_in={policies.FCFS_PER_SERVER: policies.ANY},
        monotone=policies.PLACEMENT,
    )
    monkeypatch.setitem(POLICIES, "Toy", toy)
    schema_module = importlib.import_module("straggler.study.config.schema")
    for cached in (schema_module._schema, schema_module.family_parameters, schema_module.schema_validator):
        cached.cache_clear()
    try:
        study = {
            "study": "toy",
            "grid": {"policy": ["Toy", "CoC"], "distribution": ["exp"], "dependence": ["iid"], "N": [4], "d": [2]},
            "load": [0.5],
            "distributions": {"exp": {"family": "exponential", "mean": 1}},
            "evaluate": ["simulation"],
            "simulation": {"jobs": 2000, "warmup": 200, "replications": 2},
        }
        # its parameter: checked by the schema built from its spec, swept on the grid
        with pytest.raises(config.ConfigError, match=r"policies\.Toy\.knob: value -1"):
            resolve_config({**study, "policies": {"Toy": {"knob": -1}}})
        cfg = resolve_config({**study, "policies": {"Toy": {"knob": [0.5, 2.0]}}})
        cells = build_grid(cfg).cells
        toys = sorted(cid for cid in cells if "Toy" in cid)
        assert len(toys) == 2 and len(cells) == 3
        assert choose("Toy", "FCFS", "per_server").name == "fast"
        # its kernel parameter in the policy slots, simulated by CoC's branch: CoC's numbers
        values = [float(evaluate_cell(cfg, cid)["latency_mean"].values.ravel()[0]) for cid in toys]
        coc = float(evaluate_cell(cfg, next(c for c in cells if "CoC" in c))["latency_mean"].values.ravel()[0])
        assert values == [coc, coc]
        from straggler.study.cell_build import build_model
        from straggler.study.grid import cell_config

        grid = build_grid(cfg)
        knobs = {
            float(encode(build_model(cell_config(cfg, grid.cells[cid]), grid.cells[cid])).flts[F_POLICY])
            for cid in toys
        }
        assert knobs == {0.5, 2.0}
        assert np.isfinite(coc)
        # the glossary is written from the spec
        assert "A knob >= 0, or a list." in glossary.policy_text("Toy")
    finally:
        monkeypatch.undo()
        for cached in (schema_module._schema, schema_module.family_parameters, schema_module.schema_validator):
            cached.cache_clear()
