"""Bounds for CoC, CoS, RIQ and FJ where no paper applies (analysis/replica_bounds.py):
closed forms, Monte Carlo, a brute-force optimisation, and simulation."""

import math

import numpy as np
import pytest

from straggler.engines.analysis import forkjoin
from straggler.engines.analysis import replica_bounds as rb
from straggler.engines.analysis.cell import analyze
from straggler.engines.simulation import simulate
from straggler.engines.simulation.reference import make_model
from straggler.model import distributions as D
from straggler.model.dependence import IID, SX, Identical
from straggler.model.two_pools import TwoPoolSystem

LAWS = {
    "exp": D.Exponential(1.0),
    "pareto": D.Pareto(xm=0.6, alpha=2.5),
    "det": D.Deterministic(1.0),
    "discrete": D.Discrete(values=(0.5, 2.0, 5.0), p=(0.6, 0.3, 0.1)),
    "shifted": D.ShiftedExponential(shift=1.0, tail_mean=1.0),
}


@pytest.mark.parametrize("name", sorted(LAWS))
@pytest.mark.parametrize(
    "groups,k",
    [([(1.0, 2), (10.0, 1)], 1), ([(1.0, 2), (10.0, 1)], 2), ([(0.3, 1), (2.0, 3)], 3), ([(0.0, 1), (1.0, 2)], 2)],
)
def test_sum_of_smallest_against_monte_carlo(name, groups, k):
    Y = LAWS[name]
    rng = np.random.default_rng(7)
    n = 400_000
    cols = [c * D.sample_many(Y, n * m, rng).reshape(n, m) for c, m in groups]
    z = np.sort(np.concatenate(cols, axis=1), axis=1)[:, :k].sum(axis=1)
    half = 4.5 * z.std(ddof=1) / math.sqrt(n)  # ~4.5 standard errors
    assert rb.mean_sum_smallest(Y, groups, k) == pytest.approx(z.mean(), abs=half, rel=1e-12)


def test_one_pool_closed_forms():
    """Identical servers, i.i.d. exponential (rate 1), d of N: necessary
    lambda E[X_{1:d}] < N, sufficient lambda d E[X] < N, cost in [E[X_{1:d}], d E[X]]."""
    N, d = 10, 3
    b = rb.bounds(D.Exponential(1.0), IID(), rb.Pools.single(N), d)
    assert b.necessary_rate == pytest.approx(N * d, rel=1e-9)
    assert b.sufficient_rate == pytest.approx(N / d, rel=1e-12)
    assert (b.cost_lower, b.cost_upper) == pytest.approx((1.0 / d, d), rel=1e-9)
    # k of d: E[sum of the k smallest] = sum_i E[X_{i:d}]
    b = rb.bounds(D.Exponential(1.0), IID(), rb.Pools.single(N), d, k=2)
    low = sum(forkjoin.order_statistic_mean(D.Exponential(1.0), i, d) for i in (1, 2))
    assert b.cost_lower == pytest.approx(low, rel=1e-9)


def test_single_copy_is_exact_with_affinity():
    """d = 1 is random dispatch over all N servers: both bounds are the per-server
    load of pool i, lambda / N sum_j p_j E[X] / r_ij, so they coincide."""
    system = TwoPoolSystem.affinity(10, 0.1, p=(0.3, 0.7))
    b = rb.bounds(D.Exponential(2.0), Identical(), rb.Pools.of(system, 10), 1)
    mean = 2.0  # Exponential(2.0) has mean 2
    per_server = max(0.3 / 1 + 0.7 / 0.1, 0.3 / 0.1 + 0.7 / 1) * mean
    assert b.exact_rate and b.necessary_rate == pytest.approx(10 / per_server, rel=1e-9)
    assert b.exact_cost
    assert b.cost_lower == pytest.approx(mean * (0.5 * (0.3 + 7.0) + 0.5 * (3.0 + 0.7)), rel=1e-12)


@pytest.mark.parametrize(
    "dep", [Identical(), IID(), SX(D.Discrete(values=(1.0, 3.0), p=(0.8, 0.2)))], ids=["identical", "iid", "sx"]
)
@pytest.mark.parametrize("choice", ["completion", "start"])
def test_necessary_bound_is_the_best_weight(dep, choice):
    """The golden-section search finds the weight a fine grid finds (the bound is
    1 / max_w of a concave function), on asymmetric pools and types."""
    X = D.Pareto(xm=0.6, alpha=2.5)
    pools = rb.Pools(n=(3, 7), p=(0.8, 0.2), speeds=((1.0, 0.2), (0.3, 1.0)))
    b = rb.bounds(X, dep, pools, 3, 1, choice)
    fn = (
        (lambda g, k: rb.scaled_sum(X, dep, g, k))
        if choice == "completion"
        else (lambda g, k: dep.replica_mean(X) * sum(sorted(c for c, m in g for _ in range(m))[:k]))
    )
    grid = np.linspace(0.0, 1.0 / 3, 301)
    best = max(rb.per_job(pools, 3, 1, (w, (1 - 3 * w) / 7), fn) for w in grid)
    assert 1.0 / b.necessary_rate == pytest.approx(best, rel=2e-3)
    assert 1.0 / b.necessary_rate >= best * (1 - 1e-9)
    assert b.sufficient_rate <= b.necessary_rate
    assert b.cost_lower <= b.cost_upper


def test_compositions_are_hypergeometric():
    pools = rb.Pools(n=(4, 6), p=(1.0,), speeds=((1.0,), (1.0,)))
    comp = dict(rb.compositions(pools, 3))
    assert sum(comp.values()) == pytest.approx(1.0)
    assert comp[(0, 3)] == pytest.approx(math.comb(6, 3) / math.comb(10, 3))
    with pytest.raises(ValueError, match="1 <= d <= N"):
        rb.compositions(pools, 11)


# ---------------------------------------------------------------- against simulation


@pytest.mark.slow
@pytest.mark.parametrize("policy", ["CoC", "CoS", "RIQ"])
@pytest.mark.parametrize("dep", ["identical", "iid"])
def test_simulation_lies_within_the_bounds_with_affinity(policy, dep):
    """r_slow = 0.1, N = 10, d = 2 (the default study's cells with no theory): the
    simulated cost lies in [cost_lower, cost_upper] (4 CI half-widths of slack),
    a load below the sufficient bound is stable and one 20 % above the necessary
    bound is not."""
    m0 = make_model(policy, 10, [0.1], r_slow=0.1, dependence=dep, d=2)
    a = analyze(m0)
    assert a.lambda_max_kind == "necessary" and a.cost_kind == "lower_bound"
    b = rb.bounds(
        m0.size, m0.dependence, rb.Pools.of(m0.system, 10), 2, 1, "start" if policy == "CoS" else "completion"
    )
    sufficient = b.sufficient_rate * m0.replica_mean / 10
    loads = [0.9 * sufficient, 1.2 * a.lambda_max]
    m = make_model(policy, 10, loads, r_slow=0.1, dependence=dep, d=2)
    # enough jobs for the backlog monitor's wait at r_slow = 0.1 (statistics.monitor_wait)
    res = simulate(m, np.random.SeedSequence(11), 400_000, 20_000, 6, 0.95)
    assert res.verdict[0] != "unstable" and res.verdict[1] == "unstable"
    slack = 4 * res.cost_mean_ci[0]
    assert b.cost_lower - slack <= res.cost_mean[0] <= b.cost_upper + slack


@pytest.mark.parametrize(
    "policy,kw",
    [
        ("CoC", dict(r_slow=0.3, dependence="iid", d=2)),
        ("CoC", dict(r_slow=1.0, dependence="identical", d=2, discipline="PS", two_pools=False)),
        ("FJ", dict(r_slow=1.0, dependence="iid", d=6, params={"k": 2}, two_pools=False)),
        ("ZRed", dict(r_slow=0.3)),
        ("RIQ", dict(r_slow=0.3, dependence="identical", d=3)),
    ],
)
def test_proven_load_is_below_the_bound(policy, kw):
    """lambda_sufficient <= lambda_max, with equality when the bound is exact."""
    a = analyze(make_model(policy, 6, [0.1], **kw))
    assert math.isfinite(a.lambda_sufficient)
    if a.lambda_max_kind == "exact":
        assert a.lambda_sufficient == a.lambda_max
    else:
        assert a.lambda_sufficient < a.lambda_max


def test_memoryless_cost_bound_applies_to_iid_exponential_replicas_only():
    pools = rb.Pools.of(TwoPoolSystem.affinity(10, 0.5), 10)
    X = D.Exponential(2.0)
    assert rb.memoryless_cost_lower(X, IID(), pools, 1) == pytest.approx(2.0)  # the fast pool has speed 1
    assert rb.memoryless_cost_lower(X, IID(), pools, 3) == pytest.approx(6.0)
    assert math.isnan(rb.memoryless_cost_lower(X, Identical(), pools, 1))
    pareto = D.from_spec({"family": "pareto", "xm": 1, "alpha": 2.5})
    assert math.isnan(rb.memoryless_cost_lower(pareto, IID(), pools, 1))
    # CoC, i.i.d. exponential, r_slow = 0.5: the full-service bound allowed load 1.42
    a = analyze(make_model("CoC", 10, [0.5], r_slow=0.5, dependence="iid", d=2))
    assert a.lambda_max == pytest.approx(1.0) and a.lambda_max_kind == "necessary"
    assert a.cost_lower == pytest.approx(1.0)


@pytest.mark.parametrize("discipline", ["FCFS", "PS"])
@pytest.mark.parametrize("policy", ["CoC", "RIQ"])
def test_simulated_cost_respects_the_memoryless_bound(policy, discipline):
    """E[C] >= E[X] / r_max with i.i.d. exponential replicas (the proof in
    replica_bounds.memoryless_cost_lower): 3 CI half-widths of slack, at light and
    heavy load, FCFS and PS."""
    m = make_model(policy, 10, [0.1, 0.6], r_slow=0.5, dependence="iid", d=3, discipline=discipline)
    bound = rb.memoryless_cost_lower(m.size, m.dependence, rb.Pools.of(m.system, 10), 1)
    res = simulate(m, np.random.SeedSequence(21), 40_000, 4_000, 4, 0.95)
    for mean, half in zip(res.cost_mean, res.cost_mean_ci):
        assert mean + 3 * half >= bound
