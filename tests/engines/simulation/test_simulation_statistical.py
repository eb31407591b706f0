"""The fast path against exact results (docs: reference results, sections 1, 3-5).

Fixed seeds; the tolerance is 4 confidence-interval half-widths at 95 % over 10
replications (about 9 standard errors), never widened to make a test pass. Tests marked ``slow`` use
long runs; CI runs them with ``STRAGGLER_CI`` set, at a quarter of the size.
"""

import math
import os

import numpy as np
import pytest

from straggler.engines.analysis import queues, threshold
from straggler.engines.analysis.cell import analyze
from straggler.engines.simulation import encode_model, fast, monitor_scale, replication_seeds, run_replication, simulate
from straggler.engines.simulation import statistics as S
from straggler.engines.simulation.reference import make_model
from straggler.model import distributions as D
from straggler.model import two_pools
from straggler.model.dependence import SX, pair

SCALE = 0.25 if os.environ.get("STRAGGLER_CI") else 1.0
K = 4.0  # tolerance in CI half-widths


def sim(model, jobs, warmup, reps=10, seed=2024, **kw):
    return simulate(model, np.random.SeedSequence(seed), int(jobs), int(warmup), reps, 0.95, **kw)


def assert_close(res, exact, what="latency"):
    mean = getattr(res, f"{what}_mean")
    ci = getattr(res, f"{what}_mean_ci")
    exact = np.broadcast_to(np.asarray(exact, dtype=float), mean.shape)
    assert np.all(res.verdict != "unstable")
    assert np.all(np.isfinite(ci))
    err = np.abs(mean - exact)
    # (a deterministic quantity has ci = 0 and must then be exact up to rounding)
    assert np.all(err <= K * ci + 1e-12 * np.abs(exact)), f"{what}: sim {mean} exact {exact} ci {ci}"


# ---------------------------------------------------------------- M/G/1 (Pollaczek-Khinchine)

MG1 = {
    "M/M/1": D.Exponential(1.0),
    "M/D/1": D.Deterministic(1.0),
    "M/H2/1": D.Hyperexponential(p=(0.9, 0.1), rates=(2.0, 0.2)),
}


@pytest.mark.parametrize("name", sorted(MG1))
def test_single_server_fcfs_is_pollaczek_khinchine(name):
    X = MG1[name]
    loads = [0.3, 0.7]
    res = sim(make_model("ZRed", 1, loads, size=X), 2_000_000, 100_000)
    lam = np.array(loads) / X.mean()
    exact = [queues.mg1_fcfs_response_time(l, X.mean(), X.second_moment()) for l in lam]
    assert_close(res, exact)
    assert_close(res, X.mean(), "cost")


def test_two_homogeneous_pools_are_two_mg1_queues():
    X = MG1["M/H2/1"]
    m = make_model("ZRed", 2, [0.6], size=X, r_slow=1.0)
    assert m.system is not None
    res = sim(m, 1_000_000, 100_000)
    lam_server = 0.6 / X.mean()  # load = lambda E[X] / N, each server gets lambda / 2
    assert_close(res, queues.mg1_fcfs_response_time(lam_server, X.mean(), X.second_moment()))


def test_mm1_latency_quantiles():
    """M/M/1: T ~ Exp(mu - lambda); CI of each quantile from the replications'
    histograms (Student t, 8 replications)."""
    load = 0.8
    m = make_model("ZRed", 1, [load])
    enc = encode_model(m)
    qs = []
    for seed in replication_seeds(np.random.SeedSequence(77), load, 8):
        acc, _ = run_replication(fast.run, enc, load, 50_000, 500_000, seed)
        qs.append(S.hist_quantiles(acc.hist))
    qs = np.array(qs)
    mean = qs.mean(axis=0)
    ci = S.t_quantile(0.95, 7) * qs.std(axis=0, ddof=1) / math.sqrt(8)
    exact = -np.log1p(-np.array(S.QUANTILES)) / (1.0 - load)
    assert np.all(np.abs(mean - exact) < K * ci + exact * 2.0**-S.HIST_SUB_BITS), (mean, exact, ci)


def test_affinity_random_dispatch_matches_the_exact_analysis():
    """ZRed on two pools with r_slow = 0.1 and the analysis's optimal q: each
    server is an M/G/1 queue with a two-type mixture (analysis.cell). Its
    capacity is 2 r / (1 + r) = 0.18 in load units."""
    m = make_model("ZRed", 4, [0.05, 0.15], r_slow=0.1, size=D.Exponential(1.0))
    assert analyze(m).lambda_max == pytest.approx(2 * 0.1 / 1.1)
    a = analyze(m)
    assert a.latency_approx_kind == "exact"
    system = m.system
    bound = two_pools.optimal_assignment_no_redundancy(system, m.size, m.dependence)
    alpha = two_pools.assignment_fractions(system, bound.q)
    res = sim(m, 1_000_000, 100_000, alpha=alpha)
    assert_close(res, a.latency_approx)
    assert_close(res, a.cost, "cost")


# ---------------------------------------------------------------- fork-join and CoS


@pytest.mark.parametrize("policy", ["CoC", "FJ"])
def test_n1_fork_join_exponential(policy):
    """(n,1) fork-join with cancellation = M/M/1 with service min of n: 1/(n mu - lambda)."""
    n, load = 4, 0.5
    m = make_model(policy, n, [load], d=n, two_pools=False, params={"k": 1} if policy == "FJ" else None)
    res = sim(m, 1_000_000, 50_000)
    lam = load * n
    assert_close(res, 1.0 / (n - lam))
    assert_close(res, n * m.size.mean_min_of(n), "cost")


def test_n1_fork_join_shifted_exponential_is_pollaczek_khinchine():
    n, load = 4, 0.3
    X = D.ShiftedExponential(shift=0.5, tail_mean=1.0)
    m = make_model("CoC", n, [load], d=n, size=X, two_pools=False)
    res = sim(m, 1_000_000, 50_000)
    lam = load * n / X.mean()
    s1 = X.mean_min_of(n)  # min of n: shift + Exp(n)
    s2 = (1.0 / n) ** 2 + s1**2
    assert_close(res, queues.mg1_fcfs_response_time(lam, s1, s2))
    assert_close(res, n * s1, "cost")


@pytest.mark.parametrize("policy,n", [("CoS", 5), ("FJ", 4)])
def test_cancel_on_start_to_all_servers_is_mmc(policy, n):
    """CoS with d = N (and fork-early-cancel (n,1)) is the central FCFS queue
    M/M/n (Erlang C); the cost is one replica, E[X]."""
    load = 0.7
    params = {"k": 1, "early": True} if policy == "FJ" else None
    m = make_model(policy, n, [load], d=n, two_pools=False, params=params)
    res = sim(m, 1_000_000, 50_000)
    assert_close(res, queues.mmc_response_time(load * n, 1.0, n))
    assert_close(res, 1.0, "cost")


# ---------------------------------------------------------------- cost against the threshold analysis

DEPENDENCES = {
    "identical": "identical",
    "iid": "iid",
    "sx": SX(D.Discrete(values=(1.0, 3.0), p=(0.8, 0.2))),
}
X_COST = D.Pareto(xm=0.6, alpha=2.5)


def _rerouting_work(system, X, dep, alpha, tau):
    f = getattr(threshold, "expected_work_rerouting", None)
    if f is not None:
        return f(system, X, dep, alpha, tau)
    # Prop. 1 directly: E[B_i] = sum_j p_j (alpha_ij E[min(A_ij, tau_i)] + alpha_lj E[A_ij 1{A_lj > tau_l}])
    r = system.speeds
    out = np.zeros(2)
    for i in range(2):
        l = 1 - i
        for j, p in enumerate(system.p):
            own = pair(dep, X, 1 / r[i][j], 1 / r[l][j]).mean_min_A(tau[i])
            cross = pair(dep, X, 1 / r[i][j], 1 / r[l][j]).mean_A_B_exceeds(tau[l])
            out[i] += p * (alpha[i][j] * own + alpha[l][j] * cross)
    return out


@pytest.mark.parametrize("dep", sorted(DEPENDENCES))
@pytest.mark.parametrize("policy", ["ZRed", "KT", "Rer"])
def test_cost_matches_the_expected_work(policy, dep):
    """Server time per job = E[B_1] + E[B_2] of eqs. 2 and 5 (r_slow = 0.1);
    for these policies it does not depend on the queues."""
    m = make_model(
        policy,
        6,
        [0.05],
        r_slow=0.1,
        size=X_COST,
        dependence=DEPENDENCES[dep],
        knowledge="known" if policy == "KT" else "unknown",
    )
    system = m.system
    kw = {}
    if policy == "Rer":
        alpha = np.array([[0.7, 0.4], [0.3, 0.6]])
        tau = (0.8, 2.5)
        exact = _rerouting_work(system, X_COST, m.dependence, alpha, tau).sum()
        kw = dict(alpha=alpha, tau=tau)
    else:
        bound = two_pools.optimal_assignment_no_redundancy(system, X_COST, m.dependence)
        alpha = two_pools.assignment_fractions(system, bound.q)
        exact = two_pools.expected_work_zero_redundancy(system, X_COST, m.dependence, alpha).sum()
        kw = dict(alpha=alpha)
    res = sim(m, 500_000, 0, **kw)
    assert_close(res, exact, "cost")


@pytest.mark.parametrize("dep", sorted(DEPENDENCES))
def test_full_redundancy_cost_in_light_traffic(dep):
    """FRed's cost is eq. 6, E[min(X_1/r_1j, X_2/r_2j)] per pool, when both
    replicas start together: with per-server queues that is the light-traffic
    limit (load 0.001 here; the bias there is ~0.1 % of the CI)."""
    m = make_model("FRed", 6, [0.001], r_slow=0.1, size=X_COST, dependence=DEPENDENCES[dep])
    exact = threshold.expected_work_full_redundancy(m.system, X_COST, m.dependence).sum()
    res = sim(m, 500_000, 0)
    assert_close(res, exact, "cost")


def test_full_redundancy_per_server_costs_more_under_load_with_affinity():
    """Per-server FCFS queues start the two replicas at different times: with
    r_slow = 0.1 the slow replica may run while the fast one waits, so the cost
    rises above eq. 6 with the load (the threshold paper's model has central
    pool queues, where eq. 6 holds at every load)."""
    m = make_model("FRed", 10, [0.2], r_slow=0.1, dependence="identical")
    exact = threshold.expected_work_full_redundancy(m.system, m.size, m.dependence).sum()
    res = sim(m, 500_000, 50_000)
    assert res.cost_mean[0] > exact + K * res.cost_mean_ci[0]


@pytest.mark.parametrize("dep", sorted(DEPENDENCES))
@pytest.mark.parametrize("policy", ["FRed", "Rep"])
def test_central_queue_replication_cost_is_the_papers_at_high_load(policy, dep):
    """The threshold paper's model has one FCFS queue per pool: FRed's cost is
    eq. 6 and Rep's is Prop. 2's E[B_1] + E[B_2] at every load, here at 90 % of
    the stability bound (r_slow = 0.1; Rep with a fixed tau = 0.8 in both
    pools so that replication happens part of the time)."""
    params = {"tau": 0.8} if policy == "Rep" else {}
    m0 = make_model(
        policy, 6, [0.05], r_slow=0.1, size=X_COST, dependence=DEPENDENCES[dep], queueing="central", params=params
    )
    a = analyze(m0)
    assert a.lambda_max_kind == "necessary"
    m = make_model(
        policy,
        6,
        [0.9 * a.lambda_max],
        r_slow=0.1,
        size=X_COST,
        dependence=DEPENDENCES[dep],
        queueing="central",
        params=params,
    )
    kw = dict(alpha=a.alpha, tau=(0.8, 0.8)) if policy == "Rep" else dict(alpha=a.alpha)
    res = sim(m, 400_000 * SCALE, 40_000 * SCALE, **kw)
    assert_close(res, a.cost, "cost")


def test_rer_resume_cost_is_the_size_at_its_speeds():
    """Rer with resume on the homogeneous two pools: the work is conserved, cost = E[X]."""
    m = make_model("Rer", 4, [0.5], r_slow=1.0, params={"tau": 0.5, "resume": True})
    res = sim(m, 500_000, 50_000)
    assert_close(res, 1.0, "cost")


# ---------------------------------------------------------------- stability


def test_overload_is_reported_quickly_and_a_stable_load_is_not():
    """Quickly means in bounded work (a count, not a timed test): the overloaded load
    stops long before its jobs are done. Wall time: benchmarks, closing notes."""
    m = make_model("ZRed", 10, [0.9, 1.2], two_pools=False)
    res = sim(m, 200_000, 20_000, reps=4)
    assert res.verdict.tolist() == ["stable", "unstable"]
    assert res.reason.tolist() == ["", "backlog"] and res.jobs[1] < 4 * 200_000
    assert res.jobs[0] == 4 * 200_000


def test_rerouting_overload_is_reported():
    """Rer with tau = 1 on r_slow = 0.5 (capacity 0.724 in load units, Prop. 1)."""
    alpha = np.full((2, 2), 0.5)
    m0 = make_model("Rer", 10, [0.5], r_slow=0.5)
    work = _rerouting_work(m0.system, m0.size, m0.dependence, alpha, (1.0, 1.0))
    cap = threshold.to_load_units(1.0 / max(work / 5.0), m0.size, m0.dependence, 10)
    m = make_model("Rer", 10, [0.9 * cap, 1.2 * cap], r_slow=0.5)
    res = sim(m, 400_000, 40_000, reps=2, alpha=alpha, tau=1.0)
    assert res.verdict.tolist() == ["stable", "unstable"]


MONITOR_SIZES = {
    "exp": D.Exponential(1.0),
    "h2": D.Hyperexponential(p=(0.95, 0.05), rates=(1.9, 0.1)),  # scv 9.5
    "pareto2.2": D.Pareto(xm=1.2 / 2.2, alpha=2.2),
    "det": D.Deterministic(1.0),
}


def _runs(model, jobs, seeds):
    enc = encode_model(model)
    lam = float(model.rates()[0])
    return [run_replication(fast.run, enc, lam, 0, jobs, np.random.SeedSequence([s, 99]))[0] for s in range(seeds)]


def _verdicts(model, jobs, seeds):
    return [(int(a.acc[S.A_STABLE]), int(a.acc[S.A_ARRIVALS])) for a in _runs(model, jobs, seeds)]


@pytest.mark.parametrize("size", sorted(MONITOR_SIZES))
@pytest.mark.parametrize("N", [1, 10, 100])
def test_backlog_monitor_both_sides(N, size):
    """Load 0.95 is never flagged (10^6 + the limit below); load 1.05 is flagged
    within 1.5 times the arrivals of the monitor's wait (statistics.monitor_wait:
    1200 E[S^2] / E[S] of work per server, at most 10^4 E[S]) plus 4 10^5, about
    three checkpoints (measured: at most 0.6 of that limit over 6 seeds)."""
    X = MONITOR_SIZES[size]
    wait = S.monitor_wait(X.mean(), X.second_moment())
    limit = int(1.5 * N * wait / X.mean()) + 400_000
    stable = _verdicts(make_model("ZRed", N, [0.95], size=X, two_pools=False), 1_000_000 + limit, 3)
    assert all(v == 1 for v, _ in stable)
    over = _verdicts(make_model("ZRed", N, [1.05], size=X, two_pools=False), limit, 3)
    assert all(v == 0 for v, _ in over), over


@pytest.mark.slow
@pytest.mark.parametrize(
    "policy,load", [("CoC", 0.95), ("CoC", 1.05), ("KT", 0.95), ("KT", 1.05), ("ZRed-1000", 0.95), ("ZRed-1000", 1.05)]
)
def test_backlog_monitor_policies_and_many_servers(policy, load):
    """The pipeline's verdict (the monitor plus the evidence rule): a load 5 % below
    capacity is never flagged and, run as long as the rule asks, is ``stable``; one
    5 % above is ``unstable`` at that length, and never ``stable`` at any length."""
    if policy == "CoC":  # iid exponential CoC is stable below load 1
        m = make_model("CoC", 50, [load], d=2, two_pools=False)
        jobs = 3_000_000
    elif policy == "KT":  # known types, r_slow = 0.1: capacity 1
        m = make_model("KT", 10, [load], r_slow=0.1)
        jobs = 2_000_000
    else:
        m = make_model("ZRed", 1000, [load], size=MONITOR_SIZES["h2"], two_pools=False)
        jobs = 30_000_000  # the wait alone is 10^4 work on each of 10^3 servers
    wait, servers, pool = monitor_scale(encode_model(m))
    reps = 3
    accs = _runs(m, int(jobs * max(SCALE, 0.5)), reps)
    # never shorter than the rule asks for a verdict with 3 replications (+10 %)
    need = 1.1 * S.jobs_for_verdict(accs, wait, servers, pool, 0)
    if need > accs[0].acc[S.A_ARRIVALS]:
        accs = _runs(m, int(need), reps)
    verdict, miss = S.simulation_verdict(accs, wait, servers, pool)
    if load < 1:
        assert all(a.acc[S.A_STABLE] == 1 for a in accs), "false alarm"
        assert verdict == "stable", (verdict, miss)
    else:
        assert verdict == "unstable", (verdict, miss)


# ---------------------------------------------------------------- redundancy-d (Gardner et al.)


def mean_field_d2(rho):
    """E[T] of CoC d = 2, i.i.d. exponential, N -> inf (docs: reference results, section 5)."""
    return math.log(1.0 / (1.0 - rho)) / rho**2 - 1.0 / rho


def test_mean_field_formula():
    assert mean_field_d2(0.7) == pytest.approx(1.028516, abs=5e-7)
    series = sum(0.4**n / (n + 2) for n in range(200))
    assert mean_field_d2(0.4) == pytest.approx(series, rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["fast", "events"])
def test_coc_d2_n50(engine):
    """CoC d = 2, N = 50, load 0.4: 0.6956 (finite N, above the mean field 0.69266),
    by each of the two independent simulators (10 x 4e6 jobs; 10^8 in the closing
    note's run of benchmarks/coc_n50_two_engines.py)."""
    m = make_model("CoC", 50, [0.4], d=2, two_pools=False)
    res = sim(m, 4_000_000 * SCALE, 200_000, engine=engine)
    assert res.latency_mean[0] == pytest.approx(0.6956, rel=0.005)
    assert abs(res.latency_mean[0] - 0.6956) < K * res.latency_mean_ci[0] + 5e-5  # 0.6956 is rounded
    assert_close(res, 1.0, "cost")  # i.i.d. exponential: d E[min] = E[X]


@pytest.mark.slow
@pytest.mark.parametrize("load", [0.4, 0.7])
def test_coc_d2_many_servers_is_the_mean_field_limit(load):
    N = 10_000
    m = make_model("CoC", N, [load], d=2, two_pools=False)
    res = sim(m, 2_000 * N * SCALE, 100 * N)
    exact = mean_field_d2(load)
    assert res.latency_mean[0] == pytest.approx(exact, rel=0.005)
    assert_close(res, exact)


@pytest.mark.parametrize(
    "X,n,k,load",
    [
        (D.Exponential(1.0), 6, 3, 0.3),
        (D.Pareto(xm=1.0 / 2.2 * 1.2, alpha=2.2), 6, 3, 0.15),
        (D.ShiftedExponential(1.0, 1.0), 6, 4, 0.1),
    ],
)
def test_fork_join_engine_within_the_papers_bounds(X, n, k, load):
    """(n, k) fork-join (FJ, d = N = n, i.i.d. tasks) on the fast path: the mean
    latency lies between Theorem 4's lower and split-merge upper bounds and the
    cost within the cost bounds of section 7.1 (4 CI half-widths of slack)."""
    from straggler.engines.analysis import forkjoin

    m = make_model("FJ", n, [load], size=X, d=n, params={"k": k}, two_pools=False)
    res = sim(m, 300_000 * SCALE, 30_000 * SCALE)
    lam = float(m.rates()[0])
    lo, hi = forkjoin.fork_join_bounds(lam, X, n, k)
    t, t_ci = res.latency_mean[0], res.latency_mean_ci[0]
    assert lo - K * t_ci <= t <= hi + K * t_ci
    cb = forkjoin.fork_join_cost_bounds(X, n, k, tail="log-convex" if X.family == "pareto" else None)
    c, c_ci = res.cost_mean[0], res.cost_mean_ci[0]
    assert cb.lower - K * c_ci <= c <= cb.upper + K * c_ci
