"""The policy registry is the one place a policy is declared (straggler.policies)."""

from __future__ import annotations

from straggler import config
from straggler.analysis.cell import HANDLERS
from straggler.policies import ALIASES, POLICIES, all_policy_names
from straggler.simulation import ENGINES


def test_every_policy_names_an_existing_analysis():
    assert {name: spec.analysis for name, spec in POLICIES.items() if spec.analysis not in HANDLERS} == {}


def test_kernel_codes_are_distinct_and_engines_known():
    codes = [spec.kernel_code for spec in POLICIES.values() if spec.kernel_code is not None]
    assert len(codes) == len(set(codes))
    engines = {factory().name for factory in ENGINES}
    for name, spec in POLICIES.items():
        assert set(spec.engines) <= engines, name
        assert bool(spec.engines) == (spec.kernel_code is not None), name


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
