"""From the answer to the setting a stack takes: units, the hedges budget, deployable
contenders, and ``--emit``'s formats (:mod:`straggler.decide.deploy`, :mod:`straggler.model.policies.stacks`).

The studies here are evaluated in the process (a few cells, short runs, fixed seeds):
the hedging numbers are simulated, the checks on them are exact light-traffic counts."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import yaml

from straggler.decide.deploy import is_deployable, setting_lines
from straggler.model.distributions import from_spec
from straggler.model.distributions.units import in_seconds, study_unit
from straggler.model.policies import POLICIES
from straggler.model.policies.spec import AT_ONCE, HEDGED, ONE_REQUEST
from straggler.model.policies.stacks import STACKS, Deployment, setting_text
from straggler.study.config import ConfigError, resolve_config

LAW = {"family": "exponential", "mean": 10, "unit": "ms"}


def _study(tmp_path, policies, decision=None, law=LAW, loads=(0.3,), N=4, d=(2,), params=None, sim=None):
    """A study dataset of ``policies`` evaluated here, its attributes the pipeline's."""
    from straggler.study.dataset import aggregate
    from straggler.study.evaluate import evaluate_cell
    from straggler.study.grid import build_grid
    from straggler.study.provenance import provenance

    raw = {
        "study": "deploy",
        "seed": 7,
        "grid": {
            "policy": list(policies),
            "distribution": ["w"],
            "dependence": ["iid"],
            "r_slow": [1],
            "d": list(d),
            "N": [N],
        },
        "load": list(loads),
        "distributions": {"w": law},
        "evaluate": ["analytic", "simulation"],
        "simulation": sim or {"jobs": 40000, "warmup": 4000, "replications": 4},
    }
    if params:
        raw["policies"] = params
    if decision:
        raw["decision"] = decision
    resolved = resolve_config(raw)
    grid = build_grid(resolved)
    cells = {cid: evaluate_cell(resolved, cid, tmp_path) for cid in grid.cells}
    text = yaml.safe_dump(resolved.to_dict(), sort_keys=False)
    return aggregate(grid, cells, provenance(resolved, text))


# ------------------------------------------------------------------ units


def test_a_law_states_its_unit_and_the_study_carries_it():
    assert from_spec(LAW).mean() == 10  # a label: the law is the same
    assert study_unit({"w": LAW}) == "ms"
    assert study_unit({"w": {"family": "exponential", "mean": 1}}) == ""
    assert in_seconds(12.5, "ms") == pytest.approx(0.0125)
    assert in_seconds(3, "us") == pytest.approx(3e-6)
    with pytest.raises(ValueError, match="unit"):
        in_seconds(1.0, "")


def test_a_study_refuses_two_units_and_an_unknown_one():
    base = {
        "study": "u",
        "grid": {
            "policy": ["CoC"],
            "distribution": ["a", "b"],
            "dependence": ["iid"],
            "r_slow": [1],
            "d": [2],
            "N": [4],
        },
        "load": [0.5],
    }
    with pytest.raises(ConfigError) as err:
        resolve_config({**base, "distributions": {"a": LAW, "b": {**LAW, "unit": "s"}}})
    assert "distributions.b.unit: value 's' is not allowed; expected 'ms'" in str(err.value)
    with pytest.raises(ConfigError) as err:
        resolve_config({**base, "distributions": {"a": {**LAW, "unit": "min"}, "b": LAW}})
    assert "distributions.a.unit" in str(err.value) and "s, ms, us" in str(err.value)


# ------------------------------------------------------------------ the policies' forms


def test_each_policy_says_whether_a_client_alone_runs_it():
    for name, spec in POLICIES.items():
        assert bool(spec.client_form) != bool(spec.server_help), name  # one or the other, never both
        assert spec.client_form in ("", ONE_REQUEST, AT_ONCE, HEDGED)
        assert is_deployable(name) == bool(spec.client_form)
    # the split: a client-side stack runs hedges and d copies at once; the others need the servers
    client = {n for n, s in POLICIES.items() if s.client_form and not s.oracle}
    assert {POLICIES[n].client_form for n in client} == {ONE_REQUEST, AT_ONCE, HEDGED}


# ------------------------------------------------------------------ the stacks' formats


def _hedged(d=2, delay=12.7, budget=math.inf, hedges=0.05, unit="ms"):
    return Deployment("H", HEDGED, d, delay, "p95", budget, hedges, unit)


def test_grpc_writes_attempts_and_the_delay_in_seconds():
    text, notes = setting_text("grpc", _hedged(d=3, delay=12.7))
    policy = json.loads(text)["methodConfig"][0]["hedgingPolicy"]
    assert policy["maxAttempts"] == 3
    assert policy["hedgingDelay"] == "0.0127s"
    at_once, _ = setting_text("grpc", Deployment("C", AT_ONCE, 4, 0.0, "", math.inf, 3.0, "ms"))
    policy = json.loads(at_once)["methodConfig"][0]["hedgingPolicy"]
    assert policy == {"maxAttempts": 4, "hedgingDelay": "0s", "nonFatalStatusCodes": []}
    capped, notes = setting_text("grpc", _hedged(d=6))
    assert any("lowers maxAttempts above 5" in n for n in notes)
    _, notes = setting_text("grpc", _hedged(budget=0.02))
    assert any("retryThrottling counts failed attempts" in n for n in notes)


def test_envoy_writes_a_route_that_parses():
    text, notes = setting_text("envoy", _hedged(d=3, delay=250, unit="us"))
    route = yaml.safe_load(text)["route"]
    assert route["retry_policy"]["num_retries"] == 2
    assert route["retry_policy"]["per_try_timeout"] == "0.00025s"
    assert route["hedge_policy"] == {"hedge_on_per_try_timeout": True}
    assert route["timeout"] == "15s" and any("route's timeout bounds all of them together: 15 s" in n for n in notes)
    text, notes = setting_text("envoy", Deployment("C", AT_ONCE, 2, 0.0, "", math.inf, 1.0, "ms"))
    assert text == "" and "cannot send 2 copies at once" in notes[0]


def test_finagle_and_brpc_send_one_backup():
    text, notes = setting_text("finagle", _hedged(d=3, hedges=0.043))
    assert ".idempotent(maxExtraLoad = 0.043)" in text
    assert any("one backup" in n for n in notes)
    text, notes = setting_text("brpc", _hedged(delay=12.7))
    assert "options.backup_request_ms = 13;" in text
    assert any("rounded to 13" in n for n in notes)
    with pytest.raises(ValueError, match="unit"):
        setting_text("grpc", _hedged(unit=""))


# ------------------------------------------------------------------ a question answered by Hedge


@pytest.fixture(scope="module")
def hedge_study(tmp_path_factory):
    return _study(
        tmp_path_factory.mktemp("hedge"),
        ["Hedge"],
        decision={"slo": {"quantile": 0.99, "target": 200}, "budget": {"hedges": 0.5}},
    )


def test_the_emitted_settings_are_the_answers_hedge(hedge_study):
    ds = hedge_study
    assert ds.attrs["time_unit"] == "ms"
    delay_ms = from_spec(LAW).quantile(0.95)  # Hedge's default delay, p95 of the size law
    lines = setting_lines(ds, "grpc")
    assert lines[0].startswith("gRPC setting for Hedge")
    policy = json.loads("\n".join(x for x in lines[1:] if not x.startswith("#")))["methodConfig"][0]["hedgingPolicy"]
    assert policy["maxAttempts"] == 2
    # a proto3 duration counts nanoseconds: the delay to the nearest one
    assert float(policy["hedgingDelay"].rstrip("s")) == pytest.approx(delay_ms * 1e-3, abs=5e-10)
    lines = setting_lines(ds, "envoy")
    route = yaml.safe_load("\n".join(x for x in lines[1:] if not x.startswith("#")))["route"]
    assert route["retry_policy"]["num_retries"] == 1
    assert float(route["retry_policy"]["per_try_timeout"].rstrip("s")) == pytest.approx(delay_ms * 1e-3, abs=5e-10)
    for stack in STACKS:
        assert setting_lines(ds, stack)[0].split(" setting for ")[1].startswith("Hedge")


def test_the_answer_names_the_unit_and_the_hedges(hedge_study):
    from straggler.decide.question_answer import answer_lines

    lines = answer_lines(hedge_study)
    assert lines[0].startswith("Asked: P99 <= 200 ms and hedges per job <= 0.5")
    load = next(x for x in lines if x.startswith("load 0.3"))
    assert " ms, P99 " in load and "hedges per job" in load


# ------------------------------------------------------------------ the hedges, exactly


def test_hedges_per_job_in_light_traffic_and_under_a_budget(tmp_path):
    """Hedge d = 2 with delay tau, no budget: a hedge is sent when the job has not
    finished tau after its arrival, so the hedges per job are P(W + X > tau), between
    P(X > tau) (no wait) and P(X > tau) + P(W > 0) <= P(X > tau) + rho (an arrival finds
    its server busy with probability rho under random dispatch, PASTA). At rho = 0.005
    that bracket is [0.05, 0.055]; the simulated CI must meet it. With the budget b =
    0.02 < 0.05 the token bucket holds the hedges at b: the CI's low end at most b."""
    law = {"family": "exponential", "mean": 1, "unit": "s"}
    sim = {"jobs": 200000, "warmup": 5000, "replications": 4}
    free = _study(tmp_path / "free", ["Hedge"], law=law, loads=(0.005,), N=10, sim=sim)
    p = 0.05  # P(X > p95)
    h = float(free["copies_mean"].values.ravel()[0]) - 1.0
    ci = float(free["copies_mean_ci"].values.ravel()[0])
    assert h + ci >= p and h - ci <= p + 0.005, (h, ci)
    capped = _study(
        tmp_path / "capped",
        ["Hedge"],
        law=law,
        loads=(0.3,),
        N=10,
        sim=sim,
        params={"Hedge": {"max_extra_load": 0.02}},
    )
    h = float(capped["copies_mean"].values.ravel()[0]) - 1.0
    ci = float(capped["copies_mean_ci"].values.ravel()[0])
    assert h - ci <= 0.02, (h, ci)
    assert h > 0.015  # the budget is spent: the p95 delay alone would send 0.05


def test_a_hedges_budget_rules_out_a_contender(tmp_path):
    """CoC d = 2 sends one extra copy per job: a budget of 0.5 hedges rules it out and
    leaves Hedge, which sends about 0.05."""
    from straggler.decide.decision import answer, decision_table

    ds = _study(tmp_path, ["CoC", "Hedge"], decision={"budget": {"hedges": 0.5}})
    table = decision_table(ds)
    index = tuple(0 for _ in table.dims)
    row = answer(table, index, 0)
    assert row["recommended"] == "Hedge"
    assert float(row["hedges"].strip("[]").split(",")[0]) < 0.5
    np.testing.assert_allclose(ds["copies_mean"].sel(policy="CoC").values, 2.0)


def test_finagle_s_rule_sets_the_delay_that_sends_b_hedges(tmp_path):
    """Hedge's delay tuned with ``objective: hedges=0.05``: the delay at which a job's
    first copy has not answered in 5 % of the jobs (Finagle's rule). With exponential
    sizes of mean 1 and no wait, P(X > tau) = exp(-tau) = 0.05 at tau = ln 20 = 2.996; at
    load 0.002 on 10 servers a job waits with probability at most 0.002, so the hedges
    per job at tau lie in [exp(-tau), exp(-tau) + 0.002] and the root in [ln 20,
    ln(1 / 0.048)] = [2.996, 3.037]. The search over [1, 5] ends on a grid of step
    0.125 (9 values, then two refinements of 5): its best lies within half a step of the
    root, plus the noise of 160,000 jobs (a hedges SE of 0.0005 at a slope of 0.05: 0.01
    in tau)."""
    law = {"family": "exponential", "mean": 1, "unit": "s"}
    ds = _study(
        tmp_path,
        ["Hedge"],
        law=law,
        loads=(0.002,),
        N=10,
        sim={"jobs": 40000, "warmup": 4000, "replications": 4},
        params={"Hedge": {"delay": {"tune": [1, 5], "objective": "hedges=0.05"}}},
    )
    tau = float(ds["tuned_value"].values.ravel()[0])
    assert math.log(20) - 0.0625 - 0.03 <= tau <= math.log(1 / 0.048) + 0.0625 + 0.03, tau
    h = float(ds["copies_mean"].values.ravel()[0]) - 1.0
    assert abs(h - 0.05) < 0.01, h
    assert ds["copies_replication_mean"].shape[-1] == 4
    # the setting of a tuned delay is the value the search chose at that load
    text = setting_lines(ds, "brpc")
    assert f"options.backup_request_ms = {round(tau * 1000)};" in text


# ------------------------------------------------------------------ an answer the stack cannot run


def test_a_coc_answer_is_answered_again_among_what_envoy_and_brpc_run(tmp_path):
    """CoC d = 3 sends its copies at once, which Envoy cannot: ``--emit envoy`` answers among
    the hedged contenders (Hedge d = 2 and 3 here), says what that costs beside CoC, and writes
    the route with its per-try timeout and a route timeout; brpc runs one backup, so d = 3 is
    out of its answer."""
    ds = _study(
        tmp_path,
        ["CoC", "Hedge"],
        decision={"slo": {"quantile": 0.99, "target": 200}},
        d=(2, 3),
        params={"Hedge": {"delay": ["p50", "p90"]}},
    )
    lines = setting_lines(ds, "envoy")
    said = next(x for x in lines if x.startswith("load 0.3: Envoy runs copies one after another, never at once"))
    assert "among what it runs the answer is Hedge" in said and "against the answer CoC" in said
    assert "ms at P99 and" in said
    head = next(k for k, x in enumerate(lines) if x.startswith("Envoy setting for Hedge"))
    body = []
    for x in lines[head + 1 :]:
        if x.startswith("#"):
            break
        body.append(x)
    route = yaml.safe_load("\n".join(body))["route"]
    assert route["retry_policy"]["per_try_timeout"].endswith("s") and route["timeout"] == "15s"
    brpc = setting_lines(ds, "brpc")
    heads = [x for x in brpc if x.startswith("brpc setting for")]
    assert heads and all(x.startswith("brpc setting for Hedge") and "up to 2 copies" in x for x in heads), brpc
