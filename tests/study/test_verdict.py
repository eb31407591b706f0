"""Stability verdicts: the evidence rule and its calibration, the reconciliation with
the analysis, what estimates a verdict allows, heavy tails and sequential stopping
(docs/reference/verdicts.md). Fixed seeds throughout."""

import json
import math
import os
from types import SimpleNamespace

import numpy as np
import pytest

from straggler.engines.analysis.cell import analyze
from straggler.engines.analysis.tails import latency_tail
from straggler.engines.simulation import KnownStability, encode_model, engine_for, run_replication, simulate
from straggler.engines.simulation import statistics as S
from straggler.engines.simulation.driver import replications_for
from straggler.engines.simulation.encode import F_MONITOR_WAIT, I_CHECK
from straggler.engines.simulation.reference import make_model
from straggler.model import distributions as D
from straggler.model.dependence import SX
from straggler.model.policies import POLICIES, stability_monotone
from straggler.study import verdict as V
from straggler.study.config import ConfigError, load_config, resolve_config
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid

CI = bool(os.environ.get("STRAGGLER_CI"))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# ---------------------------------------------------------------- the evidence rule


def test_detection_table_is_ordered():
    """Each row rises with the level; a larger pool never detects more slowly."""
    sizes = sorted(S.DETECTION_WAITS)
    for n in sizes:
        row = S.DETECTION_WAITS[n]
        assert len(row) == len(S.DETECTION_LEVELS) and list(row) == sorted(row)
    for small, large in zip(sizes, sizes[1:]):
        assert all(b <= a for a, b in zip(S.DETECTION_WAITS[small], S.DETECTION_WAITS[large]))


def test_detection_probability_is_the_calibrated_step():
    row = S.DETECTION_WAITS[10]
    assert S.detection_probability(row[2], 10) == 0.9
    assert S.detection_probability(row[2] * (1 - 1e-9), 10) == 0.75
    assert S.detection_probability(0.99 * row[0], 10) == 0.0
    # a pool between tabulated sizes uses the smaller (slower) one
    assert S.detection_probability(S.DETECTION_WAITS[5][2], 7) == 0.9
    assert S.detection_probability(S.DETECTION_WAITS[5][2] * 0.999, 7) == 0.75
    assert S.detection_probability(S.DETECTION_WAITS[1000][4], 10**6) == 0.99


def _runs(waits, fired=()):
    """Accumulators of replications that brought ``waits`` monitor waits of work to one
    server (wait 1), one unit of work per arrival, and fired where asked."""
    accs = []
    for i, x in enumerate(waits):
        a = S.new_accumulator()
        a.acc[S.A_WORK] = x
        a.acc[S.A_ARRIVALS] = x
        if i in fired:
            a.acc[S.A_STABLE] = 0.0
        accs.append(a)
    return accs


@pytest.mark.parametrize(
    "reps,level,verdict",
    [
        (1, 0.99, "stable"),
        (1, 0.95, "undetermined"),
        (2, 0.9, "stable"),
        (2, 0.75, "undetermined"),
        (4, 0.75, "stable"),
        (7, 0.5, "stable"),
        (6, 0.5, "undetermined"),
    ],
)
def test_stable_needs_a_miss_probability_of_one_percent(reps, level, verdict):
    x = S.DETECTION_WAITS[10][S.DETECTION_LEVELS.index(level)]
    got, miss = S.simulation_verdict(_runs([x] * reps), wait=1.0, servers=1, pool=10)
    assert got == verdict
    assert miss == pytest.approx((1 - level) ** reps)


def test_a_fired_replication_makes_the_load_unstable_whatever_the_others():
    x = S.DETECTION_WAITS[10][-1]
    assert S.simulation_verdict(_runs([x, x, 0.1], fired=(2,)), 1.0, 1, 10)[0] == "unstable"


@pytest.mark.parametrize("reps,level", [(1, 0.99), (2, 0.9), (3, 0.9), (4, 0.75), (7, 0.5)])
def test_jobs_for_a_verdict_follow_the_table(reps, level):
    x = S.DETECTION_WAITS[5][S.DETECTION_LEVELS.index(level)]
    assert S.waits_for_verdict(reps, 5) == x
    # one unit of work per arrival on 10 servers: 10 x arrivals, minus the warm-up
    assert S.jobs_for_verdict(_runs([5.0] * reps), 1.0, 10, 5, 10) == math.ceil(10 * x) - 10


def test_the_checkpoint_interval_changes_only_the_monitor():
    """The monitor reads the state; it draws nothing: a stable run is bitwise the same
    whatever the checkpoint interval (the old fixed 4096 arrivals, or the finer default)."""
    m = make_model("CoC", 4, [0.6], d=2, dependence="iid", two_pools=False)
    enc = encode_model(m)
    assert enc.ints[I_CHECK] < 4096
    coarse = encode_model(m)
    coarse.ints[I_CHECK] = 4096
    kernel = engine_for(m).kernel
    lam = float(m.rates()[0])
    a, _ = run_replication(kernel, enc, lam, 1000, 200_000, np.random.SeedSequence(3))
    b, _ = run_replication(kernel, coarse, lam, 1000, 200_000, np.random.SeedSequence(3))
    np.testing.assert_array_equal(a.acc, b.acc)
    np.testing.assert_array_equal(a.hist, b.hist)


def _flagged_within(n, X, load, runs, waits, seed):
    m = make_model("ZRed", n, [load], size=X, two_pools=False)
    enc = encode_model(m)
    kernel = engine_for(m).kernel
    wait = float(enc.flts[F_MONITOR_WAIT])
    jobs = int(waits * n * wait / X.mean() / load)
    lam = float(m.rates()[0])
    fired = []
    for r in range(runs):
        acc, _ = run_replication(kernel, enc, lam, 0, jobs, np.random.SeedSequence([seed, r]))
        fired.append(acc.acc[S.A_STABLE] == 0.0)
    return np.array(fired)


@pytest.mark.slow
@pytest.mark.parametrize(
    "n,X",
    [(1, D.Exponential(1.0)), (10, D.Exponential(1.0)), (10, D.Pareto(xm=1.2 / 2.2, alpha=2.2))],
    ids=["n1-exp", "n10-exp", "n10-pareto2.2"],
)
def test_the_calibration_holds_on_fresh_seeds(n, X):
    """At load 1.05 the monitor fires within the table's x_0.9 waits in about 90 % of
    runs (seeds the table was not measured on; 3 standard errors of slack), and at
    0.95 it fires within 30 waits in at most 1 % of runs (plus 3 standard errors)."""
    runs = 100 if CI else 300
    x90 = S.DETECTION_WAITS[n][S.DETECTION_LEVELS.index(0.9)]
    hit = _flagged_within(n, X, 1.05, runs, x90, seed=77).mean()
    assert hit >= 0.9 - 3 * math.sqrt(0.09 / runs), hit
    false = _flagged_within(n, X, 0.95, runs, 30.0, seed=78).mean()
    assert false <= 0.01 + 3 * math.sqrt(0.0099 / runs), false


# ---------------------------------------------------------------- reconciliation


def _sim(verdicts, reason=None, skipped=None, need=None):
    L = len(verdicts)
    return SimpleNamespace(
        verdict=np.array(verdicts, dtype=object),
        reason=np.array(reason or [""] * L, dtype=object),
        skipped=np.array(skipped or [False] * L),
        jobs_to_verdict=np.array(need or [math.nan] * L, dtype=float),
    )


LOADS = np.array([0.3, 0.5, 0.7, 0.9])


def test_an_exact_bound_makes_its_load_and_those_above_unstable():
    v = V.reconcile(LOADS, 0.5, "exact", 0.5, _sim(["stable"] * 4))
    assert v.verdict.tolist() == ["stable", "unstable", "unstable", "unstable"]
    assert v.source.tolist() == ["both", "analysis", "analysis", "analysis"]
    assert any("a disagreement" in n for n in v.notes)  # 0.7 and 0.9 are > 1.05 x 0.5


def test_a_necessary_bound_makes_only_the_loads_above_it_unstable():
    v = V.reconcile(LOADS, 0.5, "necessary", math.nan, None)
    assert v.verdict.tolist() == ["undetermined", "undetermined", "unstable", "unstable"]
    assert v.source.tolist() == ["", "", "analysis", "analysis"]


@pytest.mark.parametrize("kind", ["conjectured", "approximate", "sufficient"])
def test_bounds_that_prove_nothing_decide_nothing(kind):
    v = V.reconcile(LOADS, 0.5, kind, math.nan, _sim(["stable"] * 4))
    assert v.verdict.tolist() == ["stable"] * 4 and set(v.source) == {"simulation"}


def test_a_simulated_instability_extends_upwards_when_monotone():
    sim = _sim(["stable", "unstable", "", ""], reason=["", "backlog", "", ""], skipped=[False, False, True, True])
    v = V.reconcile(LOADS, math.nan, "", math.nan, sim, monotone=True)
    assert v.verdict.tolist() == ["stable", "unstable", "unstable", "unstable"]
    assert v.source.tolist() == ["simulation"] * 4
    assert any("not simulated" in n for n in v.notes)
    v = V.reconcile(
        LOADS, math.nan, "", math.nan, _sim(["stable", "unstable", "stable", "undetermined"]), monotone=False
    )
    assert v.verdict.tolist() == ["stable", "unstable", "stable", "undetermined"]


def test_a_simulated_instability_below_a_proven_stable_load_is_a_contradiction():
    v = V.reconcile(LOADS, 1.0, "exact", 1.0, _sim(["stable", "unstable", "stable", "stable"]))
    assert v.verdict.tolist() == ["stable", "undetermined", "undetermined", "undetermined"]
    assert v.source.tolist() == ["both", "both", "both", "both"]
    assert any(n.startswith("contradiction") for n in v.notes)


def test_undetermined_loads_say_how_many_jobs_would_decide_them():
    sim = _sim(["undetermined"] * 4, reason=["short"] * 4, need=[1e5, 2e5, 3e5, 4e5])
    v = V.reconcile(LOADS, 0.8, "necessary", 0.4, sim)
    assert v.verdict.tolist() == ["stable", "undetermined", "undetermined", "unstable"]
    (note,) = [n for n in v.notes if n.startswith("undetermined")]
    assert "[0.5, 0.7]" in note and "[200000, 300000]" in note


def test_estimates_are_kept_only_where_stable():
    values = {
        "latency_mean": np.array([1.0, 2.0, 3.0, 4.0]),
        "latency_mean_ci": np.full(4, 0.1),
        "latency_quantile": np.ones((4, 5)),
        "latency_replication_quantile": np.ones((4, 5, 2)),
        "cost_mean": np.full(4, 1.5),
        "cost_mean_ci": np.full(4, 0.01),
        "precision_achieved": np.full(4, 0.1),
    }
    v = V.Verdicts(
        np.array(["stable", "undetermined", "unstable", "unstable"], dtype=object),
        np.array(["simulation", "", "simulation", "analysis"], dtype=object),
    )
    out = V.apply(values, v)
    assert out["latency_mean"][0] == 1.0 and np.isnan(out["latency_mean"][1:]).all()
    assert np.isnan(out["latency_quantile"][1:]).all() and np.isnan(out["cost_mean"][1:]).all()
    assert (out["latency_replication_quantile"][0] == 1.0).all()
    assert np.isnan(out["latency_replication_quantile"][1:]).all()
    assert out["latency_sample_mean"].tolist() == [1.0, 2.0, 3.0, 4.0]
    assert out["stable"][:1].tolist() == [1.0] and np.isnan(out["stable"][1])
    assert out["stable"][2:].tolist() == [0.0, 0.0]
    assert out["latency_mean_kind"].tolist() == ["estimate", "", "", ""]


# ---------------------------------------------------------------- heavy tails


@pytest.mark.parametrize(
    "policy,dep,alpha,d,infinite,undercovers",
    [
        ("ZRed", "iid", 1.8, None, True, True),  # E[X^2] = inf: P-K's mean is infinite
        ("ZRed", "iid", 2.2, None, False, True),  # E[X^3] = inf only
        ("ZRed", "iid", 3.5, None, False, False),
        ("CoC", "identical", 1.8, 2, True, True),  # both copies hold X
        ("CoC", "iid", 1.8, 2, False, False),  # min of 2 has index 3.6
        ("CoC", "iid", 1.4, 2, False, True),  # index 2.8
        ("CoS", "iid", 1.8, 2, True, True),  # the kept copy runs in full
        ("FRed", "iid", 1.4, None, False, True),
    ],
)
def test_heavy_tails_that_make_the_mean_or_its_variance_infinite(policy, dep, alpha, d, infinite, undercovers):
    X = D.Pareto(xm=1.0, alpha=alpha)
    m = make_model(policy, 10, [0.3], size=X, dependence=dep, d=d)
    tail = latency_tail(m)
    assert (tail.mean_infinite, tail.variance_infinite) == (infinite, undercovers)
    ps = make_model(policy, 10, [0.3], size=X, dependence=dep, d=d, discipline="PS")
    assert not latency_tail(ps).mean_infinite  # PS: insensitive, no claim


def test_sx_tails_take_the_heavier_factor():
    sx = SX(D.Pareto(xm=1.0, alpha=1.5))
    m = make_model("CoC", 10, [0.3], size=D.Exponential(1.0), dependence=sx, d=2)
    assert latency_tail(m).index == 3.0 and latency_tail(m).variance_infinite
    m = make_model("CoC", 10, [0.3], size=D.Pareto(xm=1.0, alpha=1.9), dependence=sx, d=2)
    assert latency_tail(m).mean_infinite


def test_an_infinite_mean_is_reported_as_infinite_not_as_the_sample_mean():
    cfg = resolve_config(
        {
            "study": "t",
            "grid": {"policy": ["ZRed"], "distribution": ["p"], "r_slow": [1.0], "N": [4]},
            "load": [0.3],
            "distributions": {"p": {"family": "pareto", "xm": 1, "alpha": 1.8}},
            "evaluate": ["analytic", "simulation"],
            "simulation": {"jobs": 20_000, "warmup": 1000, "replications": 2},
        }
    )
    (cid,) = build_grid(cfg).cells
    ds = evaluate_cell(cfg, cid)
    assert ds["verdict"].values.tolist() == ["stable"]  # exact bound 1
    assert np.isposinf(ds["latency_mean"].values).all()
    assert ds["latency_mean_kind"].values.tolist() == ["infinite"]
    assert np.isfinite(ds["latency_sample_mean"].values).all()
    assert any("mean waiting time" in n for n in json.loads(ds.attrs["notes"]))


# ---------------------------------------------------------------- whole cells


def _default_cell(**match):
    cfg = resolve_config(load_config(os.path.join(ROOT, "config", "config.yaml")))
    for cid, cell in build_grid(cfg).cells.items():
        if all(cell.get(k) == v for k, v in match.items()):
            return cfg, cid
    raise LookupError(match)


def _assert_consistent(ds):
    """No load at or above an exact bound, or above a necessary one, is stable; no
    stable load lies above an unstable one (a monotone policy); estimates only at
    stable loads."""
    loads = ds["load"].values
    verdict = ds["verdict"].values
    lm, kind = float(ds["lambda_max"]), str(ds["lambda_max_kind"].values)
    if kind == "exact":
        assert not any((loads >= lm * (1 - 1e-9)) & (verdict == "stable")), (lm, verdict)
    if kind == "necessary":
        assert not any((loads > lm * (1 + 1e-9)) & (verdict == "stable")), (lm, verdict)
    unstable = np.flatnonzero(verdict == "unstable")
    if len(unstable):
        assert not any(verdict[unstable[0] :] == "stable"), verdict
    assert np.isnan(ds["latency_mean"].values[verdict != "stable"]).all()


def test_the_default_studys_rer_pareto_cell_is_no_longer_stable_at_0_9():
    """The default study called Rer (Pareto, i.i.d., r_slow = 0.1) stable at load 0.9
    with E[T] = 14,449, above its necessary bound 0.454."""
    cfg, cid = _default_cell(policy="Rer", distribution="pareto", dependence="iid", r_slow=0.1)
    ds = evaluate_cell(cfg, cid)
    assert float(ds["lambda_max"]) == pytest.approx(0.454, abs=1e-3)
    i = list(ds["load"].values).index(0.9)
    assert ds["verdict"].values[i] == "unstable" and np.isnan(ds["latency_mean"].values[i])
    _assert_consistent(ds)


def test_a_short_heavy_tailed_run_is_never_stable_above_its_bound():
    """ZRed with Pareto sizes at r_slow = 0.1 (exact bound 2r / (1 + r) = 0.18) was
    called stable at every load up to 1.1 by 50,000-job runs: the monitor's wait is
    longer than the run. Now the loads above the bound are unstable, and a short run
    below it decides nothing by itself: CoC's light loads are stable only after their
    runs were lengthened for a verdict, on the idle evidence or the monitor's."""
    cfg = resolve_config(
        {
            "study": "t",
            "grid": {
                "policy": ["ZRed", "CoC"],
                "distribution": ["pareto"],
                "dependence": ["identical"],
                "r_slow": [0.1],
                "d": [2],
                "N": [10],
            },
            "load": [0.1, 0.15, 0.2, 0.5, 1.1],
            "distributions": {"pareto": {"family": "pareto", "xm": 1, "alpha": 2.2, "scale_to_mean": 1}},
            "evaluate": ["analytic", "simulation"],
            "simulation": {"jobs": 50_000, "warmup": 5_000, "replications": 2},
        }
    )
    grid = build_grid(cfg)
    for cid, cell in grid.cells.items():
        ds = evaluate_cell(cfg, cid)
        _assert_consistent(ds)
        verdict = ds["verdict"].values.tolist()
        if cell.policy == "ZRed":
            assert float(ds["lambda_max"]) == pytest.approx(2 * 0.1 / 1.1)
            assert verdict[2:] == ["unstable"] * 3
            assert ds["jobs"].values[3:].tolist() == [0.0, 0.0]  # above 0.2: not simulated
        else:  # CoC identical: a necessary bound only
            bound = float(ds["lambda_max"])
            per_replication = ds["jobs"].values / np.maximum(ds["replications"].values, 1)
            for load, v, why, jobs in zip(ds["load"].values, verdict, ds["verdict_evidence"].values, per_replication):
                if load > bound:
                    assert v == "unstable"
                if v == "stable":
                    assert why in ("idle", "monitor", "monotone")
                    assert why == "monotone" or jobs > 50_000  # not from the short run


# ---------------------------------------------------------------- sequential stopping


def _precision_run(workers=1, **kw):
    m = make_model("ZRed", 4, [0.5, 0.8], two_pools=False)
    args = dict(jobs=5_000, warmup=500, replications=2, confidence=0.95, precision=0.02)
    args.update(kw)
    return simulate(m, np.random.SeedSequence(8), workers=workers, **args)


def test_precision_decides_the_verdict_and_meets_the_target():
    res = _precision_run()
    assert res.verdict.tolist() == ["stable", "stable"]
    assert (res.jobs / res.replications > 5_000).all()  # lengthened for the verdict
    assert (res.precision_achieved <= 0.02).all()
    assert (res.replications >= 2).all()
    fixed = _precision_run(precision=None, max_jobs=10_000)  # no longer than the fixed runs
    assert fixed.verdict.tolist() == ["undetermined", "undetermined"]


def test_precision_is_the_same_on_any_number_of_workers():
    a, b = _precision_run(), _precision_run(workers=2)
    for name in ("latency_mean", "latency_mean_ci", "jobs", "replications", "verdict"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def test_precision_stops_at_the_cap():
    res = _precision_run(max_jobs=20_000)
    assert (res.jobs <= 20_000).all()
    # load 0.5: the servers idled half the time (decided within the cap); load 0.8 not
    assert res.verdict.tolist() == ["stable", "undetermined"]
    assert res.evidence.tolist() == ["idle", "short"]


def test_precision_runs_the_first_replications_of_the_fixed_length():
    """The paper scale's premise: a load that stops at R replications has the fixed
    length's first R (the same streams), so a load that runs to the cap is the fixed run."""
    m = make_model("ZRed", 4, [0.3, 0.7], two_pools=False)
    length = dict(jobs=20_000, warmup=2_000, confidence=0.95, known=KnownStability(stable_below=0.9))  # the analysis's
    seq = simulate(m, np.random.SeedSequence(3), replications=3, precision=0.02, max_jobs=200_000, **length)
    fixed = simulate(m, np.random.SeedSequence(3), replications=10, **length)
    reps = seq.replications.astype(int).tolist()
    assert reps[0] < reps[1] == 10  # the light load stops early, the heavier one at the cap
    for i, r in enumerate(reps):
        np.testing.assert_array_equal(seq.replication_means[i, :r], fixed.replication_means[i, :r])
    assert seq.latency_mean[1] == fixed.latency_mean[1] and seq.latency_mean_ci[1] == fixed.latency_mean_ci[1]
    assert seq.precision_achieved[0] <= 0.02 < seq.precision_achieved[1]


def test_precision_asks_for_the_replications_the_t_quantile_of_the_new_count_needs():
    t = S.t_quantile
    half = t(0.95, 9) * 1.0 / math.sqrt(10)  # 10 replications of spread 1
    r = replications_for(half, 10, 0.4, 0.95, 50)
    assert t(0.95, r - 1) / math.sqrt(r) <= 0.4 < t(0.95, r - 2) / math.sqrt(r - 1)
    assert replications_for(half, 10, 1e-6, 0.95, 50) == 50  # the cap


def test_precision_and_max_jobs_are_validated():
    base = load_config(os.path.join(ROOT, "config", "config.yaml"))
    bad = dict(base, simulation=dict(base["simulation"], max_jobs=10**7))
    with pytest.raises(ConfigError, match="simulation.max_jobs.*simulation.precision"):
        resolve_config(bad)
    bad = dict(base, simulation=dict(base["simulation"], precision=0.05, max_jobs=10))
    with pytest.raises(ConfigError, match="simulation.max_jobs: value 10"):
        resolve_config(bad)
    bad = dict(base, simulation=dict(base["simulation"], precision=0))
    with pytest.raises(ConfigError, match="simulation.precision"):
        resolve_config(bad)
    # absent keys leave the resolved config as before
    assert set(resolve_config(base).to_dict()["simulation"]) == {"jobs", "warmup", "replications", "confidence"}


# ---------------------------------------------------------------- monotonicity


#: simulated policies whose stable loads are not known to form an interval: every load is
#: simulated (none skipped above an unstable one). A hedge fires when its job is late,
#: which the load changes, so more load may mean fewer hedges.
NOT_KNOWN_MONOTONE = {"Hedge"}


def test_every_simulated_policy_says_why_its_verdict_is_monotone():
    for name, spec in POLICIES.items():
        assert spec.analytic_only or stability_monotone(name) or name in NOT_KNOWN_MONOTONE, name
    assert stability_monotone("Hedge") == ""
    assert stability_monotone("FJ", {"keep": "opt"}) == ""


@pytest.mark.slow
@pytest.mark.parametrize(
    "policy,kw",
    [
        ("ZRed", {}),
        ("KT", {}),
        ("FRed", {}),
        ("Rer", {"params": {"tau": 2.0}}),
        ("Rep", {"params": {"tau": 2.0}}),
        ("CoC", {"d": 2}),
        ("CoS", {"d": 2}),
        ("RIQ", {"d": 2}),
        ("FJ", {"d": 2, "params": {"k": 1}}),
    ],
)
def test_verdicts_are_monotone_where_no_theory_says_so(policy, kw):
    """Simulated at every load (no skipping), r_slow = 0.5 with affinity, loads on both
    sides of the bound: no load is stable above one that is unstable."""
    params = kw.get("params", {})
    m0 = make_model(policy, 10, [0.5], r_slow=0.5, d=kw.get("d"), params=params)
    a = analyze(m0)
    top = a.lambda_max if math.isfinite(a.lambda_max) else 1.0
    loads = list(np.round(np.linspace(0.5, 1.4, 7) * top, 4))
    m = make_model(policy, 10, loads, r_slow=0.5, d=kw.get("d"), params=params)
    tau = None if "tau" not in params else (params["tau"], params["tau"])
    res = simulate(
        m,
        np.random.SeedSequence(31),
        int(300_000 * (0.5 if CI else 1)),
        10_000,
        4,
        0.95,
        alpha=a.alpha,
        tau=tau,
        known=KnownStability(monotone=False),
    )
    verdict = res.verdict.tolist()
    assert not res.skipped.any()
    if "unstable" in verdict:
        assert "stable" not in verdict[verdict.index("unstable") :], (loads, verdict)
    assert "unstable" in verdict, (loads, verdict)  # 1.4 times the bound is seen
