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
