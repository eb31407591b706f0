"""The dispatcher (straggler.engines.analysis.cell): its handler table, what analyze returns for
each policy family, and the rules it applies to every handler's result."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from straggler.engines.analysis import cell
from straggler.engines.analysis.cell import HANDLERS, AnalyticResult, analyze
from straggler.model.policies import POLICIES
from straggler.study.cell_build import build_model
from straggler.study.config import resolve_config
from straggler.study.grid import build_grid

LOADS = [0.2, 0.5]
STABILITY_KINDS = {"exact", "necessary", "sufficient", "conjectured", "approximate"}
VALUE_KINDS = {"exact", "approximation", "upper_bound", "lower_bound", "mean-field"}


def model(policy: str, *, N: int = 4, d: int | None = 2, r_slow: float = 1.0, family: dict | None = None, **extra):
    """The one cell of a small study of ``policy`` (d only for a d-of-N policy)."""
    grid = {"policy": [policy], "distribution": ["x"], "dependence": ["iid"], "r_slow": [r_slow], "N": [N]}
    if POLICIES[policy].uses_d:
        grid["d"] = [d]
    cfg = {
        "study": "t",
        "grid": grid,
        "load": LOADS,
        "distributions": {"x": family or {"family": "exponential", "mean": 1}},
        "evaluate": ["analytic"],
    }
    cfg.update(extra)
    resolved = resolve_config(cfg)
    (only,) = build_grid(resolved).cells.values()
    return build_model(resolved, only)


def test_every_analysis_a_policy_names_has_a_handler_and_every_handler_a_policy():
    named = {spec.analysis for spec in POLICIES.values() if spec.analysis}
    assert named == set(HANDLERS)


# one small cell of each family, and what its analysis must at least give
FAMILIES = {
    "ZRed": dict(r_slow=0.5),
    "ZRed on identical servers": dict(policy="ZRed", N=3),
    "FRed": dict(r_slow=0.5),
    "Rer": dict(r_slow=0.5),
    "Rer on identical servers": dict(policy="Rer"),
    "Rep": dict(r_slow=0.5),
    "KT": dict(r_slow=0.5),
    "KS": dict(r_slow=0.5),
    "CoC": dict(),
    "CoS": dict(),
    "RIQ": dict(),
    "FJ": dict(d=4),
    "FJ keep: opt": dict(policy="FJ", d=4, policies={"FJ": {"keep": "opt"}}),
}


@pytest.mark.parametrize("name", list(FAMILIES))
def test_each_family_gives_a_complete_result(name):
    kwargs = dict(FAMILIES[name])
    policy = kwargs.pop("policy", name)
    m = model(policy, **kwargs)
    result = analyze(m)
    assert isinstance(result, AnalyticResult)
    n = len(LOADS)
    for array in ("rho", "latency_approx", "keep_opt", "latency_lower", "latency_group"):
        assert getattr(result, array).shape == (n,), array
    np.testing.assert_array_equal(result.loads, LOADS)
    assert math.isfinite(result.lambda_max) and result.lambda_max > 0
    assert result.lambda_max_kind in STABILITY_KINDS
    assert math.isfinite(result.cost) and result.cost > 0
    assert result.cost_kind in VALUE_KINDS
    assert result.cost_lower <= result.cost * (1 + 1e-12) or math.isnan(result.cost_lower)
    if np.isfinite(result.latency_approx).any():
        assert result.latency_approx_kind in VALUE_KINDS
    else:
        assert result.explains("latency_approx")
    assert (result.rho > 0).all() and (result.rho < 1).all()


def test_the_known_values_of_three_families():
    """ZRed on identical servers is N M/G/1 queues; FRed on one server per pool a single
    M/G/1 queue (exact); FJ keep: opt chooses a keep at each load."""
    zred = analyze(model("ZRed", N=3))
    assert zred.lambda_max == 1.0 and zred.lambda_max_kind == "exact" and zred.cost == 1.0
    # load 0.5 on M/M/1: E[T] = 1 / (1 - rho)
    assert zred.latency_approx[1] == pytest.approx(2.0, rel=1e-12)
    fred = analyze(model("FRed", N=2, r_slow=0.5))
    assert fred.lambda_max_kind == fred.cost_kind == fred.latency_approx_kind == "exact"
    opt = analyze(model("FJ", d=4, policies={"FJ": {"keep": "opt"}}))
    assert set(opt.keep_opt) <= {1.0, 2.0, 3.0, 4.0}


@pytest.mark.parametrize("analysis", sorted(HANDLERS))
def test_analyze_calls_the_handler_its_policy_names(analysis, monkeypatch):
    policy = next(name for name, spec in POLICIES.items() if spec.analysis == analysis)
    m = model(policy, r_slow=0.5)
    seen = []

    def handler(nominal):
        seen.append(nominal)
        return AnalyticResult(nominal.loads, lambda_max=0.9, lambda_max_kind="necessary", cost=1.0, cost_kind="exact")

    monkeypatch.setitem(HANDLERS, analysis, handler)
    result = analyze(m)
    assert seen == [m] and result.lambda_max == 0.9


def stubbed(monkeypatch, make) -> AnalyticResult:
    """analyze of a ZRed cell whose handler returns ``make(model)``: the post-processing alone
    (the mean-field tier, which would add ZRed's exact quantiles, left out)."""
    monkeypatch.setitem(HANDLERS, "zero_redundancy", make)
    monkeypatch.setattr(cell, "add_mean_field", lambda model, result: result)
    return analyze(model("ZRed", N=3))


def test_an_exact_stability_bound_is_also_sufficient(monkeypatch):
    exact = stubbed(monkeypatch, lambda m: AnalyticResult(m.loads, lambda_max=0.8, lambda_max_kind="exact"))
    assert exact.lambda_sufficient == 0.8
    necessary = stubbed(monkeypatch, lambda m: AnalyticResult(m.loads, lambda_max=0.8, lambda_max_kind="necessary"))
    assert math.isnan(necessary.lambda_sufficient)
    given = stubbed(
        monkeypatch,
        lambda m: AnalyticResult(m.loads, lambda_max=0.8, lambda_max_kind="exact", lambda_sufficient=0.7),
    )
    assert given.lambda_sufficient == 0.7


def test_an_exact_cost_is_its_own_bounds(monkeypatch):
    exact = stubbed(monkeypatch, lambda m: AnalyticResult(m.loads, lambda_max=1.0, cost=2.5, cost_kind="exact"))
    assert exact.cost_lower == exact.cost_upper == 2.5
    bound = stubbed(
        monkeypatch,
        lambda m: AnalyticResult(m.loads, lambda_max=1.0, cost=2.5, cost_kind="lower_bound", cost_upper=3.0),
    )
    assert math.isnan(bound.cost_lower) and bound.cost_upper == 3.0
    infinite = stubbed(monkeypatch, lambda m: AnalyticResult(m.loads, lambda_max=1.0, cost=math.inf, cost_kind="exact"))
    assert math.isnan(infinite.cost_lower) and math.isnan(infinite.cost_upper)


def test_no_main_value_is_nan_without_a_note(monkeypatch):
    silent = stubbed(monkeypatch, lambda m: AnalyticResult(m.loads))
    for name in ("lambda_max", "cost", "latency_approx"):
        (text,) = [item.text for item in silent.note_items if name in item.about]
        assert text.startswith(f"{name} is NaN: none of the four papers gives") and "ZRed" in text
        assert "identical servers" in text

    def explained(m):
        result = AnalyticResult(m.loads, lambda_max=1.0, cost=1.0, latency_approx=np.ones(len(m.loads)))
        result.lambda_max = math.nan
        result.add_note("lambda_max is NaN: a reason", about="lambda_max")
        return result

    said = stubbed(monkeypatch, explained)
    assert [item.text for item in said.note_items] == ["lambda_max is NaN: a reason"]


def test_an_infinite_latency_is_explained(monkeypatch):
    def overloaded(m):
        return AnalyticResult(
            m.loads, lambda_max=1.0, cost=1.0, rho=np.array([0.5, 1.2]), latency_approx=np.array([1.0, math.inf])
        )

    result = stubbed(monkeypatch, overloaded)
    assert result.notes == ["latency_approx is +inf at loads [0.5]: rho >= 1 (unstable)"]

    def other_system(m):
        return AnalyticResult(
            m.loads, lambda_max=1.0, cost=1.0, rho=np.array([0.1, 0.2]), latency_approx=np.array([math.inf, 1.0])
        )

    result = stubbed(monkeypatch, other_system)
    assert result.notes == [
        "latency_approx is +inf at loads [0.2]: the system the analysis uses for it is overloaded there (its kind says what it is)"
    ]


def test_an_infinite_second_moment_is_named():
    pareto = analyze(model("ZRed", N=3, family={"family": "pareto", "alpha": 1.5, "xm": 1}))
    assert np.isinf(pareto.latency_approx).all()
    assert any("infinite second moment" in text for text in pareto.notes)


def test_a_policy_without_a_handler_is_nan_with_a_note():
    m = dataclasses.replace(model("ZRed", N=3), policy="NoSuchPolicy")
    result = analyze(m)
    assert math.isnan(result.lambda_max) and math.isnan(result.cost) and np.isnan(result.latency_approx).all()
    assert result.notes[0] == "lambda_max, cost and latency_approx are NaN: no analysis of NoSuchPolicy yet"


def test_loads_change_basis_in_analyze_only(monkeypatch):
    """A redundancy-basis cell is analysed at its nominal loads; the load-valued answers
    come back times the basis factor, the loads as swept."""
    nominal = model("CoC", family={"family": "deterministic", "value": 1}, system={"discipline": "PS"})
    redundancy = dataclasses.replace(nominal, load_basis="redundancy")
    assert redundancy.load_factor == pytest.approx(2.0)
    seen = []

    def handler(m):
        seen.append(m)
        return AnalyticResult(m.loads, lambda_max=0.5, lambda_max_kind="exact", cost=1.0)

    monkeypatch.setitem(HANDLERS, "cancel_on_complete", handler)
    result = analyze(redundancy)
    (given,) = seen
    assert given.load_basis == "nominal"
    np.testing.assert_allclose(given.loads, np.asarray(LOADS) / redundancy.load_factor)
    np.testing.assert_array_equal(result.loads, LOADS)
    assert result.lambda_max == 0.5 * redundancy.load_factor
    assert result.lambda_sufficient == result.lambda_max
    assert result.load_unit.basis == "redundancy"


def test_the_dispatcher_module_holds_the_dispatch_only():
    """cell.py keeps analyze, HANDLERS and AnalyticResult importable; the handlers live
    in their families' modules."""
    assert cell.HANDLERS["fork_join"].__module__ == "straggler.engines.analysis.fork_join_handlers"
    assert cell.AnalyticResult.__module__ == "straggler.engines.analysis.result"
    assert all(handler.__module__ != "straggler.engines.analysis.cell" for handler in HANDLERS.values())
