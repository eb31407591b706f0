"""The generalised (n, r_f, r, k) fork-join (FJ keep, section 8.1), the
diversity-parallelism split (FJ split, section 7.2) and the section 8.2 strategy
(FJ keep: opt): config checks, kernel identities, statistics, analysis wiring.

Statistical tolerance as in test_simulation_statistical: 4 CI half-widths at 95 %
over 10 replications (t_9 = 2.26, so about 9 standard errors), fixed seeds.
"""

import numpy as np
import pytest

from straggler.engines.analysis import forkjoin, queues
from straggler.engines.analysis.cell import analyze
from straggler.engines.simulation import encode_model, fast, run_replication, simulate
from straggler.engines.simulation.reference import make_model
from straggler.model import distributions as D
from straggler.study.cell_build import split_shift
from straggler.study.config import ConfigError, resolve_config

K = 4.0


def _sim(model, jobs=100_000, warmup=10_000, reps=10, seed=77, **kw):
    return simulate(model, np.random.SeedSequence(seed), jobs, warmup, reps, 0.95, **kw)


def _trace(model, n=4000, seed=5, **kw):
    enc = encode_model(model, **kw)
    _, tr = run_replication(fast.run, enc, float(model.rates()[0]), 0, n, np.random.SeedSequence(seed), trace=n)
    return tr


# ---------------------------------------------------------------- kernel identities


@pytest.mark.parametrize("k,d", [(1, 4), (2, 5), (3, 6)])
def test_keep_k_is_bitwise_early_cancel(k, d):
    size = D.Pareto(xm=1.0, alpha=2.5)
    a = make_model("FJ", 6, [0.5], d=d, size=size, params={"k": k, "early": True}, two_pools=False)
    b = make_model("FJ", 6, [0.5], d=d, size=size, params={"k": k, "keep": k}, two_pools=False)
    assert np.array_equal(_trace(a), _trace(b))


@pytest.mark.parametrize("k", [1, 2, 3])
def test_keep_d_is_bitwise_plain_fork_join(k):
    a = make_model("FJ", 6, [0.4], d=5, params={"k": k}, two_pools=False)
    b = make_model("FJ", 6, [0.4], d=5, params={"k": k, "keep": 5}, two_pools=False)
    assert np.array_equal(_trace(a), _trace(b))


def test_keep_between_k_and_d_differs_from_both():
    common = dict(d=6, params={"k": 1}, two_pools=False)
    plain = _trace(make_model("FJ", 6, [0.5], **common))
    mid = _trace(make_model("FJ", 6, [0.5], d=6, params={"k": 1, "keep": 3}, two_pools=False))
    early = _trace(make_model("FJ", 6, [0.5], d=6, params={"k": 1, "keep": 1}, two_pools=False))
    assert not np.array_equal(mid, plain) and not np.array_equal(mid, early)


# ---------------------------------------------------------------- statistics


def test_keep_one_of_n_is_mmn():
    """(n, r_f = n, r = 1, k = 1) is fork-early-cancel (n, 1), an M/M/n queue for
    exponential tasks (section 5.2; docs: reference results, section 4); cost E[X]."""
    n, load = 4, 0.7
    m = make_model("FJ", n, [load], d=n, params={"k": 1, "keep": 1}, two_pools=False)
    res = _sim(m)
    exact = queues.mmc_response_time(load * n, 1.0, n)
    assert abs(res.latency_mean[0] - exact) <= K * res.latency_mean_ci[0]
    assert abs(res.cost_mean[0] - 1.0) <= K * res.cost_mean_ci[0]


@pytest.mark.parametrize("k,keep", [(1, 3), (2, 4)])
def test_exponential_cost_is_k_mean_whatever_is_cut(k, keep):
    """Exponential tasks: while j tasks of a job run, completions come at rate j mu
    and server time accrues at rate j, so each completion costs 1/mu on average
    whatever the start times; k completions cost k E[X] (section 6.1: E[C] = E[X]
    for k = 1). This exercises the cut branch (k < keep < d). Load 0.4: the servers are
    busy k 0.4 of the time (at 0.5 with k = 2 they would be critically loaded, and the
    verdict says so: lambda E[C] / N = 1)."""
    m = make_model("FJ", 6, [0.4], d=6, params={"k": k, "keep": keep}, two_pools=False)
    res = _sim(m)
    assert np.all(res.verdict != "unstable")
    assert abs(res.cost_mean[0] - k) <= K * res.cost_mean_ci[0]


# ---------------------------------------------------------------- split and analysis


def test_split_shift_divides_delta_only():
    X = split_shift(D.ShiftedExponential(shift=4.0, tail_mean=2.0), 4)
    assert (X.shift, X.tail_mean) == (1.0, 2.0)
    with pytest.raises(ValueError, match="shifted_exponential"):
        split_shift(D.Exponential(1.0), 2)


def _cfg(**fj):
    return {
        "study": "t",
        "seed": 1,
        "grid": {"policy": ["FJ"], "distribution": ["se"], "dependence": ["iid"], "r_slow": [1.0], "d": [4], "N": [4]},
        "load": [0.1],
        "policies": {"FJ": fj},
        "distributions": {
            "se": {"family": "shifted_exponential", "shift": 2, "mean": 3},
            "ex": {"family": "exponential", "mean": 1},
        },
        "evaluate": ["analytic"],
    }


@pytest.mark.parametrize(
    "fj,grid,needles",
    [
        ({"k": 3, "keep": 2}, {}, ["policies.FJ.keep", "2", "k <= keep <= d", "keep = 2 < k = 3"]),
        ({"k": 1, "keep": 5}, {}, ["policies.FJ.keep", "5", "k <= keep <= d", "> d"]),
        ({"k": 2, "keep": 3, "early": True}, {}, ["policies.FJ.early", "keep = k"]),
        ({"keep": "opt", "early": True}, {}, ["policies.FJ.early", "'opt'"]),
        ({"keep": "all"}, {}, ["policies.FJ.keep", "'all'"]),
        ({"split": "shift"}, {"distribution": ["se", "ex"]}, ["policies.FJ.split", "'ex'", "shifted_exponential"]),
        ({"split": "halves"}, {}, ["policies.FJ.split", "'halves'"]),
        ({"cost_limit": -1}, {}, ["policies.FJ.cost_limit", "-1"]),
    ],
)
def test_bad_fork_join_parameters_are_refused_clearly(fj, grid, needles):
    raw = _cfg(**fj)
    raw["grid"].update(grid)
    with pytest.raises(ConfigError) as err:
        resolve_config(raw)
    text = str(err.value)
    for needle in needles:
        assert needle in text, text


def test_keep_above_some_d_leaves_those_cells_nan():
    from straggler.study.grid import build_grid

    raw = _cfg(k=1, keep=3)
    raw["grid"]["d"] = [2, 4]
    grid = build_grid(resolve_config(raw))
    assert any("keep = 3 > d = 2" in reason for reason in grid.impossible.values())


def test_split_keeps_the_arrival_rate_of_a_load_for_every_k():
    from straggler.study.cell_build import build_model
    from straggler.study.grid import build_grid

    raw = _cfg(split="shift")
    raw["grid"]["FJ.k"] = [1, 4]
    resolved = resolve_config(raw)
    models = [build_model(resolved, c) for c in build_grid(resolved).cells.values()]
    assert [m.size.shift for m in models] == [2.0, 0.5]
    assert models[0].rates()[0] == models[1].rates()[0] == pytest.approx(0.1 * 4 / 3)
    # the stability bound is in the same unit: (n, n) with Delta / n, mu = 1
    res = analyze(models[1])
    cb = forkjoin.fork_join_cost_bounds(models[1].size, 4, 4)
    assert res.lambda_max == pytest.approx(
        min(4 / cb.lower, 1 / forkjoin.order_statistic_mean(models[1].size, 1, 4)) * 3 / 4
    )


def test_strategy_chooses_keep_per_load_and_simulation_uses_it():
    """Pareto(1, 2.2), k = 1, C_hat(r) = r^2 alpha / (r alpha - 1) <= 5 allows r <= 4
    (C_hat(5) = 5.5): low load takes r = 4, heavier loads fewer."""
    X = D.Pareto(xm=1.0, alpha=2.2)
    m = make_model(
        "FJ", 10, [0.05, 0.6], d=8, size=X, two_pools=False, params={"k": 1, "keep": "opt", "cost_limit": 5.0}
    )
    res = analyze(m)
    assert res.keep_opt[0] == 4 and res.keep_opt[1] < 4
    for r, lam in zip(res.keep_opt, m.rates()):
        assert r == forkjoin.general_strategy(lam, X, 10, 1, 5.0, rf_max=8).r
    sim = _sim(m, jobs=20_000, warmup=2_000, reps=2, keep=res.keep_opt.astype(int))
    fixed = [
        _sim(
            make_model("FJ", 10, [load], d=8, size=X, two_pools=False, params={"k": 1, "keep": int(r)}),
            jobs=20_000,
            warmup=2_000,
            reps=2,
        )
        for load, r in zip(m.loads, res.keep_opt)
    ]
    # a load's streams depend on the seed and the load only, so each load must match
    # a fixed-keep run at that load bit for bit
    for li, one in enumerate(fixed):
        assert sim.latency_mean[li] == one.latency_mean[0]
        assert sim.cost_mean[li] == one.cost_mean[0]
    with pytest.raises(ValueError, match="keep the analysis chose"):
        encode_model(m)
