"""Hedge's analysis (straggler.engines.analysis.hedging, hedging_handlers): its two limits are ZRed's
and CoC's analyses; otherwise the pathwise lower bound E[min_i((i-1) delay + X_i)], checked
against Monte Carlo and the exponential closed form, the light-traffic cost, and the
stability bounds in the right order."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from straggler.engines.analysis import hedging
from straggler.engines.analysis.cell import analyze
from straggler.model.dependence import IID, SX, Identical
from straggler.model.distributions import Discrete, Exponential, Pareto, Weibull
from straggler.study.cell_build import build_model
from straggler.study.config import resolve_config
from straggler.study.grid import build_grid

LOADS = [0.2, 0.5]
VALUES = ("lambda_max", "lambda_sufficient", "cost", "cost_lower", "cost_upper", "latency_approx", "latency_lower")
KINDS = ("lambda_max_kind", "cost_kind", "latency_approx_kind")


def cell(policy: str = "CoC", *, N: int = 4, d: int = 2, r_slow: float = 1.0, **extra):
    """The one cell of a small study (i.i.d. exponential sizes of mean 1)."""
    grid = {"policy": [policy], "distribution": ["x"], "dependence": ["iid"], "r_slow": [r_slow], "N": [N], "d": [d]}
    cfg = {
        "study": "t",
        "grid": grid,
        "load": LOADS,
        "distributions": {"x": {"family": "exponential", "mean": 1}},
        "evaluate": ["analytic"],
    }
    cfg.update(extra)
    resolved = resolve_config(cfg)
    (only,) = build_grid(resolved).cells.values()
    return build_model(resolved, only)


def hedge(delay: float, *, budget: float = math.inf, c: float = 0.0, dep=None, size=None, **kw):
    """A Hedge cell: CoC's cell (d copies on N servers) with Hedge's policy and parameters."""
    changes = dict(policy="Hedge", params={"delay": delay, "max_extra_load": budget}, cancel_delay=c)
    if dep is not None:
        changes["dependence"] = dep
    if size is not None:
        changes["size"] = size
    return dataclasses.replace(cell(**kw), **changes)


def as_policy(model, policy: str, params: dict):
    return dataclasses.replace(model, policy=policy, params=params)


def assert_same_values(a, b):
    for name in VALUES:
        np.testing.assert_array_equal(np.asarray(getattr(a, name)), np.asarray(getattr(b, name)), err_msg=name)
    for name in KINDS:
        assert getattr(a, name) == getattr(b, name), name
    if b.alpha is None:
        assert a.alpha is None
    else:
        np.testing.assert_array_equal(a.alpha, b.alpha)


# ------------------------------------------------------------------ the two limits


@pytest.mark.parametrize(
    "delay, budget, d",
    [(math.inf, math.inf, 2), (1.0, 0.0, 3), (0.5, math.inf, 1)],
    ids=["delay inf", "no budget", "d = 1"],
)
@pytest.mark.parametrize("setting", [dict(N=4, r_slow=0.5), dict(N=3), dict(N=4, system={"discipline": "PS"})])
def test_never_hedging_is_zero_redundancy(delay, budget, d, setting):
    for c in (0.0, 0.4):
        h = hedge(delay, budget=budget, c=c, d=d, **setting)
        result = analyze(h)
        zred = analyze(as_policy(h, "ZRed", {}))
        assert_same_values(result, zred)
        assert any("never hedges" in note for note in result.notes)


@pytest.mark.parametrize(
    "setting",
    [dict(N=3, d=2), dict(N=4, d=4), dict(N=3, d=3, system={"discipline": "PS"}), dict(N=5, d=3)],
    ids=["one pool", "d = N", "PS", "one pool, d = 3"],
)
@pytest.mark.parametrize("budget", [math.inf, 5.0])
def test_all_copies_at_once_is_cancel_on_complete(setting, budget):
    for c in (0.0, 0.4):
        h = hedge(0.0, budget=budget, c=c, **setting)
        result = analyze(h)
        coc = analyze(as_policy(h, "CoC", {"ps_bound": None}))
        assert_same_values(result, coc)
        assert any("sends its d copies at once" in note for note in result.notes)


def test_all_copies_at_once_with_two_pools_of_different_speeds_is_not_cancel_on_complete():
    """With two pools of different speeds the first hedge goes to the other pool: not CoC's
    d servers at random. Pools of one speed are identical servers: CoC's analysis."""
    result = analyze(hedge(0.0, N=4, d=2, r_slow=0.5))
    assert result.latency_approx_kind == "lower_bound"
    assert any("not CoC's placement" in note for note in result.notes)
    same = analyze(hedge(0.0, N=4, d=2))
    coc = analyze(cell(N=4, d=2))
    assert same.latency_approx_kind == coc.latency_approx_kind
    np.testing.assert_array_equal(same.latency_approx, coc.latency_approx)


def test_a_binding_budget_keeps_the_bounds_not_the_light_traffic_cost():
    free = analyze(hedge(0.0, budget=math.inf, N=3, d=3))  # CoC
    tight = analyze(hedge(0.5, budget=1.0, N=3, d=3))
    assert tight.cost_kind == "lower_bound" and tight.cost == tight.cost_lower
    assert tight.latency_approx_kind == "lower_bound"
    assert any("budget may bind" in note for note in tight.notes)
    assert free.lambda_max_kind == "exact"  # CoC with i.i.d. exponential replicas


# ------------------------------------------------------------------ the pathwise lower bound


def light_traffic_monte_carlo(draw, dep: str, delay: float, d: int, n: int = 200_000, seed: int = 7):
    """Mean and standard error of T0 = min_i ((i-1) delay + A_i), and the means of the
    copies' server time and of the copies cancelled with work left, for a job alone."""
    rng = np.random.default_rng(seed)
    if dep == "identical":
        A = np.repeat(draw(rng, n)[:, None], d, axis=1)
    elif dep == "iid":
        A = draw(rng, n * d).reshape(n, d)
    else:  # sx: X exponential(1) times i.i.d. slowdowns
        A = rng.exponential(1.0, n)[:, None] * draw(rng, n * d).reshape(n, d)
    starts = delay * np.arange(d)
    ends = starts + A
    T0 = ends.min(axis=1)
    work = np.clip(T0[:, None] - starts, 0.0, None).sum(axis=1)
    charged = (T0[:, None] >= starts).sum(axis=1) - np.isclose(ends, T0[:, None], rtol=1e-9, atol=0.0).sum(axis=1)
    return T0.mean(), T0.std() / math.sqrt(n), work.mean(), work.std() / math.sqrt(n), charged.mean()


CASES = {
    "weibull iid": (Weibull(shape=0.7, scale=1.0), IID(), "iid", lambda r, n: r.weibull(0.7, n), 0.4, 3),
    "pareto iid": (Pareto(alpha=2.5, xm=1.0), IID(), "iid", lambda r, n: 1.0 + r.pareto(2.5, n), 0.5, 3),
    "weibull identical": (
        Weibull(shape=0.7, scale=1.0),
        Identical(),
        "identical",
        lambda r, n: r.weibull(0.7, n),
        0.5,
        3,
    ),
    "bimodal iid, ties": (
        Discrete(values=(1.0, 2.0), p=(0.5, 0.5)),
        IID(),
        "iid",
        lambda r, n: r.choice([1.0, 2.0], n),
        1.0,
        3,
    ),
    "sx": (
        Exponential(mean_value=1.0),
        SX(slowdown=Weibull(shape=0.7, scale=1.0)),
        "sx",
        lambda r, n: r.weibull(0.7, n),
        0.5,
        2,
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_light_traffic_against_monte_carlo(name):
    X, dep, kind, draw, delay, d = CASES[name]
    exact = hedging.light_traffic(X, dep, delay, d)
    mean, se, work, work_se, charged = light_traffic_monte_carlo(draw, kind, delay, d)
    assert abs(exact.latency - mean) <= 4.0 * se
    assert abs(exact.work - work) <= 4.0 * work_se
    assert exact.charged == pytest.approx(charged, abs=0.01)


@pytest.mark.parametrize("delay, d", [(0.0, 3), (0.3, 2), (0.3, 4), (1.7, 3), (5.0, 5)])
def test_the_exponential_closed_form(delay, d):
    X = Exponential(mean_value=1.5)
    closed = hedging.exponential_light_traffic(1.5, delay, d)
    numeric = hedging.light_traffic(X, IID(), delay, d)
    assert numeric.latency == pytest.approx(closed.latency, rel=1e-8)
    assert numeric.work == pytest.approx(closed.work, rel=1e-8)  # memoryless: E[X] whatever the delay
    assert numeric.charged == pytest.approx(closed.charged, rel=1e-8)


def test_the_handler_gives_the_bound_and_the_light_traffic_cost():
    c = 0.3
    result = analyze(hedge(0.4, c=c, N=6, d=3))
    closed = hedging.exponential_light_traffic(1.0, 0.4, 3)
    np.testing.assert_allclose(result.latency_approx, closed.latency, rtol=1e-8)
    assert result.latency_approx_kind == "lower_bound"
    assert result.cost == pytest.approx(1.0 + c * closed.charged, rel=1e-8)
    assert result.cost_kind == "approximation"
    assert result.cost_lower <= result.cost <= result.cost_upper


def test_the_bound_increases_with_the_delay():
    X = Weibull(shape=0.7, scale=1.0)
    delays = [0.0, 0.05, 0.2, 0.5, 1.0, 3.0, 10.0, 100.0]
    bounds = [hedging.light_traffic(X, IID(), t, 3).latency for t in delays]
    assert all(a <= b * (1 + 1e-12) for a, b in zip(bounds, bounds[1:]))
    assert bounds[0] == pytest.approx(X.mean_min_of(3), rel=1e-9)  # all three at once
    assert bounds[-1] == pytest.approx(X.mean(), rel=1e-6)  # never hedged in time
    handled = [analyze(hedge(t, N=6, d=3, size=X)).latency_approx[0] for t in (0.1, 0.5, 2.0)]
    assert handled == sorted(handled)


def test_identical_copies_on_identical_servers_never_beat_the_first():
    X = Weibull(shape=0.7, scale=1.0)
    for delay in (0.1, 1.0):
        lt = hedging.light_traffic(X, Identical(), delay, 3)
        assert lt.latency == pytest.approx(X.mean(), rel=1e-12)
        assert lt.charged == pytest.approx(float(X.sf(delay) + X.sf(2 * delay)), rel=1e-9)


def test_two_pools_the_bound_is_below_the_light_traffic_latency():
    """r_slow = 0.5: the bound puts every copy at its type's fast speed; a job alone with
    its first copy in either pool (alpha) and its hedge in the other takes longer."""
    h = hedge(0.5, N=4, d=2, r_slow=0.5)
    result = analyze(h)
    bound = result.latency_approx[0]
    rng = np.random.default_rng(3)
    n = 200_000
    x = rng.exponential(1.0, (n, 2))
    speeds = np.asarray(h.system.speeds)  # speeds[i][j]
    j = rng.integers(0, 2, n)  # two types, p = 1/2 each
    first = np.where(rng.random(n) < result.alpha[0, j], 0, 1)
    t0 = np.minimum(x[:, 0] / speeds[first, j], 0.5 + x[:, 1] / speeds[1 - first, j])
    assert bound <= t0.mean() - 4.0 * t0.std() / math.sqrt(n)
    assert bound == pytest.approx(hedging.light_traffic(Exponential(mean_value=1.0), IID(), 0.5, 2).latency)


# ------------------------------------------------------------------ stability and cost bounds


@pytest.mark.parametrize(
    "kw",
    [dict(N=4, d=2), dict(N=6, d=3, r_slow=0.5), dict(N=5, d=3), dict(N=6, d=4, system={"pools": [2, 4]})],
    ids=["pools", "affinity", "one pool", "unequal pools"],
)
@pytest.mark.parametrize("c", [0.0, 0.5])
def test_stability_bounds_are_ordered(kw, c):
    for size in (None, Weibull(shape=0.7, scale=1.0)):
        result = analyze(hedge(0.5, c=c, size=size, **kw))
        assert result.lambda_max_kind == "necessary"
        assert result.lambda_sufficient <= result.lambda_max
        assert result.cost_lower <= result.cost <= result.cost_upper
        np.testing.assert_allclose(result.rho, np.asarray(LOADS) / result.lambda_max)


def test_the_sufficient_bound_serves_every_copy_in_full_and_the_delay():
    for c in (0.0, 0.25):
        result = analyze(hedge(0.5, c=c, N=5, d=3))
        # one pool: each server gets lambda d / N copies of E[X] + c: load 1 / (d (1 + c))
        assert result.lambda_sufficient == pytest.approx(1.0 / (3 * (1.0 + c)), rel=1e-12)
        assert result.cost_upper == pytest.approx(3.0 + 2 * c, rel=1e-12)
        assert result.cost_lower == pytest.approx(1.0, rel=1e-12)  # memoryless: E[C] >= E[X]


def test_copies_per_pool_add_up_to_d():
    system = cell(N=7, system={"pools": [3, 4]}).system
    for d in range(2, 8):
        m = hedging.copies_per_pool(system, 7, d)
        assert m.sum() == pytest.approx(d)
