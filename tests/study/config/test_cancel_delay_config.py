"""The cancellation delay and Hedge's parameters in a study's config: the axis, what it
applies to, and the errors that name the key, the value and what is allowed."""

import pytest

from straggler.study.cell_build import build_model
from straggler.study.config import ConfigError, resolve_config
from straggler.study.grid import build_grid, workload_id


def _raw(**over):
    raw = {
        "study": "cd",
        "grid": {"policy": ["ZRed", "CoC", "Hedge"], "distribution": ["exp"], "d": [2], "N": [4]},
        "load": [0.3],
        "distributions": {"exp": {"family": "exponential", "mean": 1}},
    }
    for key, value in over.items():
        raw[key] = {**raw.get(key, {}), **value} if isinstance(value, dict) else value
    return raw


def test_the_axis_applies_to_the_policies_that_cancel_and_not_to_the_workload():
    resolved = resolve_config(_raw(grid={"cancel_delay": [0, 0.1]}, policies={"Hedge": {"delay": "p95"}}))
    grid = build_grid(resolved)
    ids = list(grid.cells)
    assert sum("policy=ZRed" in c for c in ids) == 1  # one ZRed cell, repeated along the axis
    assert sum("policy=CoC" in c for c in ids) == 2
    assert len({workload_id(c) for c in grid.cells.values()}) == 1  # one workload: common random numbers
    hedge = [grid.cells[c] for c in ids if "policy=Hedge" in c and c.endswith("cancel_delay=0.1")][0]
    model = build_model(resolved, hedge)
    assert model.cancel_delay == 0.1
    assert model.params["delay"] == pytest.approx(2.995732273553991)  # the exponential's p95
    assert model.params["delay_given"] == "p95"


def test_a_fixed_delay_reaches_the_model():
    resolved = resolve_config(_raw(system={"cancel_delay": 0.25}))
    cell = next(c for c in build_grid(resolved).cells.values() if c.policy == "CoC")
    assert build_model(resolved, cell).cancel_delay == 0.25


@pytest.mark.parametrize(
    "over,message",
    [
        ({"system": {"cancel_delay": -1}}, "system.cancel_delay: value -1 is not allowed; expected a number >= 0"),
        ({"grid": {"cancel_delay": [0, -0.5]}}, "grid.cancel_delay[1] = -0.5: system.cancel_delay: value -0.5"),
        (
            {"system": {"discipline": "PS", "cancel_delay": 0.1}, "policies": {"CoC": {"ps_bound": "upper"}}},
            "system.cancel_delay: value 0.1 is not allowed; expected 0 while CoC.ps_bound is upper",
        ),
        ({"policies": {"Hedge": {"delay": "p150"}}}, "policies.Hedge.delay: value 'p150' is not allowed"),
        ({"policies": {"Hedge": {"delay": {"quantile": 1.5}}}}, "policies.Hedge.delay"),
        ({"policies": {"Hedge": {"max_extra_load": -0.1}}}, "policies.Hedge.max_extra_load"),
    ],
)
def test_bad_input_is_named_before_any_work(over, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        resolve_config(_raw(**over))


def test_an_infinite_budget_and_delay_are_allowed_on_the_grid():
    resolved = resolve_config(
        _raw(policies={"Hedge": {"delay": [1.0, float("inf")], "max_extra_load": [0.05, float("inf")]}})
    )
    assert len([c for c in build_grid(resolved).cells if "policy=Hedge" in c]) == 4


def test_a_p95_delay_under_sx_is_a_copys_p95():
    """Under S&X a copy takes X S: hedging at p95 is the p95 of what a client measures,
    X S (exponential X, slowdown {1: 0.9, 3: 0.1}), not of X alone; the deployment's
    delay (the words a client config gets) is the same number."""
    import math

    from straggler.model.dependence import SX
    from straggler.model.distributions import Discrete, Exponential

    sx = {"kind": "sx", "slowdown": {"family": "discrete", "values": [1, 3], "p": [0.9, 0.1]}}
    resolved = resolve_config(_raw(grid={"dependence": ["sx"]}, dependences={"sx": sx}))
    hedge = next(c for c in build_grid(resolved).cells.values() if c.policy == "Hedge")
    delay = build_model(resolved, hedge).params["delay"]
    assert 0.9 * -math.expm1(-delay) + 0.1 * -math.expm1(-delay / 3) == pytest.approx(0.95, abs=1e-10)
    assert delay > Exponential(1.0).quantile(0.95)
    assert SX(Discrete(values=[1.0, 3.0], p=[0.9, 0.1])).replica_quantile(Exponential(1.0), 0.95) == delay
