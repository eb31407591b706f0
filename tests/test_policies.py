"""The policy registry is the one place a policy is declared (straggler.policies)."""

from __future__ import annotations

from straggler import config
from straggler.analysis.cell import HANDLERS
from straggler.engines import BY_NAME, choose
from straggler.policies import ALIASES, POLICIES, all_policy_names


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


def test_the_schema_file_names_no_policy():
    """The names live in the registry only; the file gets them when it is loaded."""
    from importlib import resources

    text = resources.files("straggler").joinpath("schemas/config.schema.yaml").read_text()
    named = [name for name in list(POLICIES) + list(ALIASES) if f" {name}:" in text or f"[{name}," in text]
    assert named == []


def test_the_hooks_named_by_a_spec_exist():
    """A hook that lives above the registry is named by the spec and looked up there."""
    from straggler.cell_build import TASK_LAWS
    from straggler.config.checks import POLICY_CHECKS
    from straggler.evaluate import ANALYSIS_CHOICES

    for name, spec in POLICIES.items():
        assert not spec.config_errors or spec.config_errors in POLICY_CHECKS, name
        assert not spec.task_law or spec.task_law in TASK_LAWS, name
        assert set(spec.chosen_by_analysis) <= set(ANALYSIS_CHOICES) & set(spec.parameters), name
        assert set(spec.chosen_per_load) <= set(spec.chosen_by_analysis), name
        assert not spec.picks_pool or spec.kernel_code is not None, name
        assert callable(spec.blocking_order), name
        assert spec.grid_impossible is None or callable(spec.grid_impossible), name


def test_every_engine_has_a_kernel_that_results_depend_on():
    from straggler import sources
    from straggler.engines import ENGINES
    from straggler.simulation.engines import KERNELS

    assert [e.name for e in ENGINES] == list(KERNELS)
    closure = {str(p.relative_to(sources.ROOT)) for p in sources.import_closure("simulation")}
    assert {"simulation/fast.py", "simulation/events.py"} <= closure
