"""Tuned knobs, ``{tune: [lo, hi]}`` (docs/guide/tuning.md): the config's checks, the
search (:mod:`straggler.study.tuning`) and a tuned cell's evaluation, its determinism and
its store, the integer search, the work-unit plan."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest
import yaml

from straggler.study import tuning, workunits
from straggler.study.config import ConfigError, apply_override, resolve_config
from straggler.study.dataset import aggregate, read_cell, write_cell
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid

# a two-point law: 90 % of the jobs take 1, 10 % take 20 (i.i.d. replicas)
TWO_POINT = {"family": "discrete", "values": [1, 20], "p": [0.9, 0.1]}


def raw(**over) -> dict:
    cfg = {
        "study": "tuning",
        "seed": 7,
        "grid": {"policy": ["Rer"], "distribution": ["two"], "dependence": ["iid"], "r_slow": [1.0], "N": [2]},
        "load": [0.5],
        "policies": {"Rer": {"tau": {"tune": [0.5, 20]}}},
        "distributions": {"two": copy.deepcopy(TWO_POINT)},
        "simulation": {"jobs": 20000, "warmup": 2000, "replications": 5},
    }
    cfg.update(copy.deepcopy(over))
    return cfg


def errors_of(cfg) -> list[str]:
    with pytest.raises(ConfigError) as info:
        resolve_config(cfg)
    return info.value.errors


# --------------------------------------------------------------------------- config


def test_a_tuned_threshold_is_accepted_and_kept():
    cfg = resolve_config(raw())
    assert cfg.policies["Rer"]["tau"] == {"tune": [0.5, 20]}
    # not an axis: the cell's id has no tau, and the alias SLB is the same policy
    assert list(build_grid(cfg).cells) == ["policy=Rer__distribution=two__dependence=iid__r_slow=1.0__N=2"]
    assert resolve_config(raw(policies={"SLB": {"tau": {"tune": [0.5, 20]}}})).policies["Rer"]["tau"] == {
        "tune": [0.5, 20]
    }


@pytest.mark.parametrize(
    ("over", "expected"),
    [
        ({"policies": {"Rer": {"tau": {"tune": [20, 0.5]}}}}, "policies.Rer.tau.tune: value [20, 0.5] is not allowed"),
        ({"policies": {"Rer": {"tau": {"tune": [2, 2]}}}}, "expected [lo, hi] with lo < hi"),
        ({"policies": {"Rer": {"tau": {"tune": [-1, 2]}}}}, "policies.Rer.tau.tune[0]: value -1 is not allowed"),
        ({"policies": {"Rer": {"tau": {"tune": [1, math.inf]}}}}, "policies.Rer.tau.tune[1]: value inf"),
        ({"policies": {"Rer": {"resume": {"tune": [0, 1]}}}}, "policies.Rer.resume: value {tune: [0, 1]}"),
        ({"policies": {"Rer": {"resume": {"tune": [0, 1]}}}}, "tunes a numeric policy parameter only: Rer.tau"),
        ({"evaluate": ["analytic"]}, "policies.Rer.tau: value {tune: [0.5, 20]} is not allowed"),
        ({"evaluate": ["analytic"]}, "add simulation to evaluate"),
        (
            {
                "grid": {"policy": ["FJ"], "distribution": ["two"], "N": [3], "d": [3]},
                "policies": {"FJ": {"k": {"tune": [1, 3]}, "keep": {"tune": [1, 3]}}},
            },
            "policies.FJ.keep: value {tune: [1, 3]} is not allowed; expected a value of keep itself: FJ tunes k",
        ),
        ({"policies": {"Rer": {"tau": [{"tune": [0.5, 20]}, 1]}}}, "policies.Rer.tau[0]: value {tune: [0.5, 20]}"),
        ({"policies": {"Rer": {"tau": [{"tune": [0.5, 20]}, 1]}}}, "never an item of a list or of a grid axis"),
        (
            {"policies": {}, "grid": {**raw()["grid"], "Rer.tau": [{"tune": [0.5, 20]}]}},
            "grid.Rer.tau[0]: value {tune: [0.5, 20]} is not allowed",
        ),
        (
            {
                "grid": {"policy": ["FJ"], "distribution": ["two"], "N": [3], "d": [3]},
                "policies": {"FJ": {"k": {"tune": [1, 2.5]}}},
            },
            "policies.FJ.k.tune[1]: value 2.5 is not allowed; expected an integer",
        ),
    ],
)
def test_a_bad_tune_is_refused_naming_the_key_the_value_and_what_is_allowed(over, expected):
    errors = errors_of(raw(**over))
    assert any(expected in e for e in errors), errors


# --------------------------------------------------------------------------- the search


def test_spread_and_candidates():
    assert tuning.spread(0.5, 20, 9, False) == [0.5 + 19.5 * i / 8 for i in range(8)] + [20.0]
    assert tuning.spread(1, 4, 9, True) == [1, 2, 3, 4]
    ints = tuning.spread(1, 100, 9, True)
    assert len(ints) == 9 and ints[0] == 1 and ints[-1] == 100 and all(isinstance(v, int) for v in ints)
    assert tuning.candidate_count(1, 4, True) == 4 and tuning.candidate_count(0.5, 20, False) == 18


def test_the_search_finds_the_least_mean_and_the_values_it_cannot_tell_apart():
    """A quadratic E[T] around 3 with common noise per replication: the search refines to
    near 3, and a value far from it is told apart; an unstable value cannot win."""
    noise = np.random.default_rng(1).normal(size=20)

    def run(v):
        reps = 1 + (v - 3.0) ** 2 + noise + 0.001 * np.random.default_rng(int(v * 1e6)).normal(size=20)
        return tuning.Outcome(float(reps.mean()), reps.tolist(), stable=v < 9)

    search, asked = tuning.Search(0.0, 10.0, False, 0.95), []
    while (value := search.ask()) is not None:
        asked.append(value)
        search.tell(run(value))
    choice = search.choice
    assert len(asked) == len(set(asked)) == len(choice.tried)  # each value asked for once
    assert abs(choice.best - 3.0) < 0.2
    assert choice.low <= choice.best <= choice.high and choice.high - choice.low < 1
    assert all(v < 9 for v in [choice.best, choice.low, choice.high])


def test_a_value_the_caller_cannot_run_is_skipped_and_never_asked_again():
    """An integer knob on [1, 6] whose values above 3 cannot be run (FJ's k above d): the
    caller answers None for them; the best is the least objective among the others."""
    search, asked = tuning.Search(1, 6, True, 0.95, optimum=5), []
    while (value := search.ask()) is not None:
        asked.append(value)
        reps = [10.0 - value + 0.01 * i for i in range(5)]
        search.tell(None if value > 3 else tuning.Outcome(float(np.mean(reps)), reps, stable=True))
    choice = search.choice
    assert asked == [1, 2, 3, 4, 5, 6] and sorted(choice.tried) == [1, 2, 3]
    assert choice.best == 3 and not choice.optimum_tried
    assert search.ask() is None and search.choice is choice  # done stays done


# --------------------------------------------------------------------------- a tuned cell


@pytest.fixture(scope="module")
def rer_study():
    return resolve_config(raw(grid={**raw()["grid"], "policy": ["Rer", "ZRed"]}, load=[0.3, 0.6]))


@pytest.fixture(scope="module")
def rer_cell(rer_study, tmp_path_factory):
    store = tmp_path_factory.mktemp("store")
    cid = "policy=Rer__distribution=two__dependence=iid__r_slow=1.0__N=2"
    stats: dict = {}
    ds = evaluate_cell(rer_study, cid, store, stats)
    return cid, store, stats, ds


def test_the_tuned_timeout_agrees_with_the_speculation_papers_optimum(rer_cell):
    """SLB (Rer on two identical servers, i.i.d. replicas) with the two-point law 1 or 20
    (p = 0.9, 0.1): the speculation paper's optimal timeout (Definition 2, Theorem 4;
    optimal_timeout: L(tau) drops at the atom 1 and grows on [1, 20)) is tau = 1 exactly.
    There the E[T] optimum is the same: a later timeout wastes more of every slow first
    run, an earlier one kills every job. The simulation's best range contains it."""
    _, _, _, ds = rer_cell
    assert np.all(ds["tuned_analysis"].values == 1.0) and float(ds["tau_opt"]) == 1.0
    low, high = ds["tuned_low"].values, ds["tuned_high"].values
    assert np.all(low <= 1.0) and np.all(1.0 <= high)
    assert np.all((low <= ds["tuned_value"].values) & (ds["tuned_value"].values <= high))
    assert json.loads(ds.attrs["tuned_agreement"]) == ["agrees", "agrees"]
    assert ds.attrs["tuned_parameter"] == "Rer.tau"
    note = json.loads(ds.attrs["notes"])[-1]
    assert note.startswith("Rer.tau tuned by simulation over [0.5, 20]") and "agrees" in note


def test_a_tuned_cell_holds_what_a_cell_at_the_chosen_value_gives(rer_study, rer_cell):
    cid, store, _, ds = rer_cell
    best = ds["tuned_value"].values
    assert best[0] == best[1] == 1.0  # one value at both loads: one plain cell to compare with
    plain = evaluate_cell(apply_override(rer_study, "Rer.tau", 1.0), cid, store)
    for name in ("latency_mean", "latency_replication_mean", "verdict", "stable", "cost_mean", "jobs"):
        np.testing.assert_array_equal(ds[name].values, plain[name].values)
    # the analytic variables are the analysis's with tau: opt
    for name in ("lambda_max", "tau_opt", "cost"):
        assert float(ds[name]) == float(plain[name])


def test_tuning_is_deterministic_and_reuses_its_store(rer_study, rer_cell):
    cid, store, stats, ds = rer_cell
    assert stats["simulated_jobs"] > 0
    again: dict = {}
    assert evaluate_cell(rer_study, cid, store, again).identical(ds)
    assert again["simulated_jobs"] == 0
    fresh = evaluate_cell(rer_study, cid)  # no store: simulated again, the same numbers
    assert fresh.identical(ds)


def test_the_study_dataset_has_the_tuned_variables_nan_for_an_untuned_cell(rer_study, rer_cell, tmp_path):
    cid, store, _, ds = rer_cell
    grid = build_grid(rer_study)
    other = next(c for c in grid.cells if c != cid)
    write_cell(ds, tmp_path / "tuned.nc")  # the cell file, as the workflow writes and reads it
    record = read_cell(tmp_path / "tuned.nc")
    assert record.values["tuned_value"].tolist() == [1.0, 1.0] and record.attrs["tuned_parameter"] == "Rer.tau"
    study = aggregate(grid, {cid: record, other: evaluate_cell(rer_study, other, store)}, {"study": "tuning"})
    assert study["tuned_value"].dims == (*grid.axes, "load")
    assert np.all(study["tuned_value"].sel(policy="Rer").values == 1.0)
    assert np.isnan(study["tuned_value"].sel(policy="ZRed").values).all()


def test_the_report_says_whether_the_simulation_agrees_with_the_analysis(rer_study, rer_cell):
    from straggler.outputs.report import markdown, tuned_table

    cid, store, _, ds = rer_cell
    grid = build_grid(rer_study)
    other = next(c for c in grid.cells if c != cid)
    config = yaml.safe_dump(rer_study.to_dict(), sort_keys=False)
    study = aggregate(grid, {cid: ds, other: evaluate_cell(rer_study, other, store)}, {"config": config})
    table = tuned_table(study)
    assert list(table["policy"]) == ["Rer", "Rer"] and list(table["load"]) == [0.3, 0.6]
    assert list(table["simulation agrees"]) == ["yes", "yes"]
    assert list(table["analysis's optimum"]) == ["1", "1"]
    assert "## Tuned knobs" in markdown(study)


# --------------------------------------------------------------------------- integers, work units


def test_an_integer_parameter_is_tuned_over_integers():
    """FJ's k on three servers, tuned over [1, 5]: k = 4 and 5 exceed d = 3 (not run), so
    the values are 1, 2 and 3; k = 1 (the first of three tasks) has the least E[T]."""
    cfg = resolve_config(
        raw(
            grid={"policy": ["FJ"], "distribution": ["exp"], "dependence": ["iid"], "N": [3], "d": [3]},
            distributions={"exp": {"family": "exponential", "mean": 1}},
            policies={"FJ": {"k": {"tune": [1, 5]}}},
            load=[0.2],
            simulation={"jobs": 5000, "warmup": 500, "replications": 4},
        )
    )
    (cid,) = build_grid(cfg).cells
    ds = evaluate_cell(cfg, cid)
    assert ds["tuned_value"].values.tolist() == [1.0]
    assert float(ds["tuned_low"][0]).is_integer() and float(ds["tuned_high"][0]).is_integer()
    assert np.isnan(ds["tuned_analysis"].values).all()  # the analysis does not choose k
    assert "the analysis (analytic variables) took k = lo" in json.loads(ds.attrs["notes"])[-1]
    # a range of k entirely above d leaves the point impossible
    high = resolve_config(raw(**{**cfg.to_dict(), "policies": {"FJ": {"k": {"tune": [4, 6]}}}}))
    assert not build_grid(high).cells and "no value of the tuned k" in next(iter(build_grid(high).impossible.values()))


def test_a_tuned_cell_is_never_sharded_and_costs_each_value(rer_study):
    grid = build_grid(rer_study)
    small = dict(execution={"replications_per_job": 1})
    cfg = resolve_config({**raw(grid={**raw()["grid"], "policy": ["Rer", "ZRed"]}), **small})
    plan = workunits.plan(cfg, grid, "code")
    tuned = next(c for c in grid.cells if c.startswith("policy=Rer"))
    assert all(shard.cell != tuned for shard in plan.shards.values())
    assert any(shard.cell != tuned for shard in plan.shards.values())  # the plain cell is
    plain = workunits.estimate(apply_override(cfg, "Rer.tau", 1.0), grid.cells[tuned])
    assert plan.costs[tuned].simulation == pytest.approx(18 * plain.simulation)


def test_the_plan_counts_every_value_a_tuned_knob_runs(tmp_path, capsys):
    """`straggler plan`: a tuned cell simulates each value its search tries."""
    from straggler import cli

    study = raw(grid={**raw()["grid"], "policy": ["Rer", "ZRed"]}, load=[0.3, 0.6])
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(study))
    assert cli.main(["plan", str(path)]) == 0
    out = capsys.readouterr().out
    sim = study["simulation"]
    values = workunits.tuned_values(
        resolve_config(study),
        build_grid(resolve_config(study)).cells["policy=Rer__distribution=two__dependence=iid__r_slow=1.0__N=2"],
    )
    runs = int(sim["replications"]) * (values + 1)
    expected = runs * 2 * (int(sim["jobs"]) + int(sim["warmup"]))
    assert f"simulated jobs (all loads and replications): {expected:.3g}" in out


def guide_hedge_study(block: int) -> dict:
    """A small study of Hedge with the policies of docs/guide/hedging.md's yaml block
    number ``block`` (as the guide shows them)."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "guide" / "hedging.md").read_text()
    shown = yaml.safe_load(re.findall(r"```yaml\n(.*?)```", page, re.DOTALL)[block])
    return {
        "study": "tune_hedge",
        "seed": 3,
        "grid": {"policy": ["Hedge"], "distribution": ["exp"], "dependence": ["iid"], "N": [10], "d": [2]},
        "load": [0.3],
        "policies": shown["policies"],
        "distributions": {"exp": {"family": "exponential", "mean": 1}},
        "simulation": {"jobs": 20000, "warmup": 2000, "replications": 4, "confidence": 0.95},
    }


def test_hedge_s_delay_is_tuned_within_its_budget(tmp_path):
    """The guide's example (docs/guide/hedging.md): Hedge's delay searched for the least
    E[T], the budget of 0.1 extra copies a job holding whatever delay is tried."""
    resolved = resolve_config(guide_hedge_study(1))
    (cid,) = build_grid(resolved).cells
    ds = evaluate_cell(resolved, cid, tmp_path)
    low, value, high = (float(ds[v].values.ravel()[0]) for v in ("tuned_low", "tuned_value", "tuned_high"))
    assert 0.0 <= low <= value <= high <= 4.0
    copies = float(ds["copies_mean"].values.ravel()[0])
    assert 1.0 < copies <= 1.1 + float(ds["copies_mean_ci"].values.ravel()[0])


def test_hedge_s_delay_tuned_for_the_tail_has_the_least_p99_it_tried(tmp_path):
    """The guide's tail example: ``objective: p99`` picks, among the delays tried, the one
    whose simulated P99 is least (not the least mean), each compared on common random
    numbers; the report's table says the search minimised the P99."""
    from straggler.outputs.report import tuned_table
    from straggler.study.evaluate import tuned_knob

    raw = guide_hedge_study(2)
    assert raw["policies"]["Hedge"]["delay"]["objective"] == "p99"
    resolved = resolve_config(raw)
    (cid,) = build_grid(resolved).cells
    knob = tuned_knob(resolved, build_grid(resolved).cell(cid))
    assert (knob.name, knob.objective, knob.level) == ("delay", "p99", 0.99)
    ds = evaluate_cell(resolved, cid, tmp_path)
    best = float(ds["tuned_value"].values.ravel()[0])
    p99 = float(ds["latency_quantile"].sel(quantile=0.99).values.ravel()[0])
    # the first pass's values are among those it tried (read back from its store)
    p99s, means = [], []
    for value in tuning.spread(0.0, 4.0, tuning.GRID, False):
        at = evaluate_cell(apply_override(resolved, "Hedge.delay", value), cid, tmp_path)
        p99s.append(float(at["latency_quantile"].sel(quantile=0.99).values.ravel()[0]))
        means.append(float(at["latency_mean"].values.ravel()[0]))
    assert p99 <= min(p99s)
    # here the least P99 (delay 3.375) is not where the least mean is (2.5): the mean was not minimised
    assert float(ds["latency_mean"].values.ravel()[0]) > min(means)
    assert 0.0 <= best <= 4.0
    notes = json.loads(ds.attrs["notes"])
    assert any("for the least P99" in n for n in notes), notes
    assert ds.attrs["tuned_objective"] == "p99"
    assert math.isnan(float(ds["tuned_analysis"].values.ravel()[0]))
    study = aggregate(build_grid(resolved), {cid: ds}, {"study": raw["study"], "config": yaml.safe_dump(raw)})
    assert list(tuned_table(study)["minimises"]) == ["P99"]


def test_a_bad_objective_on_hedge_s_delay_names_the_objective_key():
    """Hedge.delay also takes a {quantile: q} mapping: the error still goes to the tuned
    value's own key, not to a list of every form the delay takes."""
    raw = guide_hedge_study(2)
    raw["policies"]["Hedge"]["delay"]["objective"] = "p42"
    assert errors_of(raw) == [
        "policies.Hedge.delay.objective: value 'p42' is not allowed; expected one of mean, p50, p90, p95, p99, "
        "p99.9 or hedges=b with a number b >= 0 (the delay that sends b hedges per job)"
    ]
