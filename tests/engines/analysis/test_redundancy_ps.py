"""Redundancy-d with processor sharing (Raaijmakers, Borst and Boxma, arXiv 1912.00681;
docs: reference results, section 3)."""

import math

import numpy as np
import pytest

from straggler.engines.analysis import redundancy_ps as ps
from straggler.model import dependence as dp
from straggler.model import distributions as D
from straggler.model.dependence import mean_min_replicas

IID, IDENT = dp.IID(), dp.Identical()
SX = dp.SX(D.Discrete((1.0, 10.0), (0.9, 0.1)))
N = 10

FAMILIES = [
    D.Exponential(2.0),
    D.Pareto(1.0, 2.2),
    D.Lognormal(1.0, 1.5),
    D.Erlang(3, 1.0),
    D.Hyperexponential((0.9, 0.1), (2.0, 0.2)),
    D.Deterministic(1.0),
]


@pytest.mark.parametrize("X", FAMILIES, ids=lambda X: X.family)
def test_identical_replicas_give_one_over_d(X):
    for d in range(1, N + 1):
        b = ps.stability_bound(X, IDENT, N, d)
        assert b.load == pytest.approx(1.0 / d, rel=1e-12)
        assert b.rate == pytest.approx(N / (d * X.mean()), rel=1e-12)
        s = ps.stability_sufficient(X, IDENT, N, d)
        assert s.load == pytest.approx(b.load, rel=1e-12)  # the two conditions coincide
        exact = d in (1, N) or isinstance(X, D.Exponential)
        assert b.kind == ("exact" if exact else "sufficient")


def test_iid_exponential_gives_one():
    X = D.Exponential(3.0)
    for d in range(1, N + 1):
        b = ps.stability_bound(X, IID, N, d)
        assert b.load == pytest.approx(1.0, rel=1e-12)
        assert b.kind == "exact"
        assert ps.stability_sufficient(X, IID, N, d).load == pytest.approx(1.0 / d)


def test_nbu_nwu_ordering():
    """Section 3.4: for i.i.d. replicas d E[X_min] rises in d for NBU laws (capacity
    largest at d = 1) and falls for NWU laws (largest at d = N)."""
    nwu = [ps.stability_bound(D.Hyperexponential((0.9, 0.1), (2.0, 0.2)), IID, N, d).load for d in range(1, N + 1)]
    nbu = [ps.stability_bound(D.Erlang(3, 1.0), IID, N, d).load for d in range(1, N + 1)]
    assert np.all(np.diff(nwu) > 0) and nwu[0] == pytest.approx(1.0)
    assert np.all(np.diff(nbu) < 0) and nbu[0] == pytest.approx(1.0)
    assert ps.stability_bound(D.Erlang(3, 1.0), IID, N, 3).kind == "conjectured"


@pytest.mark.parametrize("dep", [IDENT, IID, SX], ids=["identical", "iid", "sx"])
@pytest.mark.parametrize("X", [D.Exponential(1.0), D.Lognormal(1.0, 1.0), D.Uniform(0.5, 1.5)], ids=lambda X: X.family)
def test_mean_min_against_monte_carlo(X, dep):
    rng = np.random.default_rng(11)
    n = 200_000
    for d in (2, 4):
        mins = dp.sample_jobs(dep, X, n, d, rng).min(axis=1)
        se = mins.std(ddof=1) / math.sqrt(n)
        assert abs(mean_min_replicas(X, dep, d) - mins.mean()) < 4 * se + 1e-12


def test_sufficient_is_below_conjectured():
    for X in FAMILIES:
        for dep in (IID, SX):
            for d in (2, 5):
                assert ps.stability_sufficient(X, dep, N, d).rate <= ps.stability_conjectured(X, dep, N, d).rate * (
                    1 + 1e-12
                )
    with pytest.raises(ValueError):
        ps.stability_bound(FAMILIES[0], IID, 3, 4)


def test_latency_closed_forms():
    X, lam = D.Pareto(1.0, 2.2), 3.0
    m = X.mean()
    # d = 1: an M/G/1-PS queue per server with rate lam / N
    t, kind = ps.latency(lam, X, IID, N, 1)
    assert kind == "exact" and t == pytest.approx(m / (1 - lam * m / N))
    # d = N, identical: E[X] / (1 - rho~) with rho~ = lam d E[X] / N = lam E[X]
    lam2 = 0.4
    t, kind = ps.latency(lam2, X, IDENT, N, N)
    assert kind == "exact" and t == pytest.approx(m / (1 - lam2 * m))
    assert ps.upper_bound_latency(lam2, X, IDENT, N, N) == pytest.approx(t)
    # d = N, i.i.d. exponential: one M/M/1-PS queue with service X_min ~ Exp(mean 1/N)
    E = D.Exponential(1.0)
    t, kind = ps.latency(5.0, E, IID, N, N)
    assert kind == "exact" and t == pytest.approx((1 / N) / (1 - 5.0 / N))
    # otherwise the alternative upper-bound system: insensitive beyond the mean
    t, kind = ps.latency(1.0, X, IID, N, 3)
    assert kind == "upper_bound"
    assert t == pytest.approx(ps.upper_bound_latency(1.0, D.Exponential(m), IID, N, 3))
    assert t == pytest.approx(m / (1 - 1.0 * 3 * m / N))
    assert ps.latency(10.0, X, IID, N, 3)[0] == math.inf


# ---------------------------------------------------------------------------------
# A small event-driven simulation of redundancy-d with PS servers
# ---------------------------------------------------------------------------------

import numba  # noqa: E402


@numba.njit(cache=True)
def _simulate_ps(lam, N, d, dep_code, x_code, x_params, s_code, s_params, n_jobs, warmup, rng):
    """Mean response time of redundancy-d (d distinct random servers, PS, cancel on
    first completion), over jobs warmup..n_jobs, in 20 batch means."""
    cap = 4096
    rem = np.zeros((cap, d))
    srv = np.zeros((cap, d), dtype=np.int64)
    arr = np.zeros(cap)
    active = np.zeros(cap, dtype=np.int64)  # slot ids of the jobs present
    free = np.arange(cap)[::-1].copy()
    n_free = cap
    n_act = 0
    cnt = np.zeros(N, dtype=np.int64)
    perm = np.arange(N)
    sizes = np.zeros(d)
    batch = (n_jobs - warmup) // 20
    sums = np.zeros(20)
    t = 0.0
    next_arr = rng.standard_exponential() / lam
    done = 0
    while done < n_jobs:
        best = np.inf
        bj = -1
        for a in range(n_act):
            j = active[a]
            for r in range(d):
                dt = rem[j, r] * cnt[srv[j, r]]
                if dt < best:
                    best = dt
                    bj = a
        if next_arr < t + best:
            dt = next_arr - t
            for a in range(n_act):
                j = active[a]
                for r in range(d):
                    rem[j, r] -= dt / cnt[srv[j, r]]
            t = next_arr
            if n_free == 0:
                return np.full(20, np.inf)  # backlog too large: unstable
            n_free -= 1
            j = free[n_free]
            for r in range(d):  # d distinct servers: partial Fisher-Yates
                k = r + int(rng.random() * (N - r))
                perm[r], perm[k] = perm[k], perm[r]
            dp.sample_replicas(dep_code, x_code, x_params, s_code, s_params, d, sizes, rng)
            for r in range(d):
                srv[j, r] = perm[r]
                rem[j, r] = sizes[r]
                cnt[perm[r]] += 1
            arr[j] = t
            active[n_act] = j
            n_act += 1
            next_arr = t + rng.standard_exponential() / lam
        else:
            for a in range(n_act):
                j = active[a]
                for r in range(d):
                    rem[j, r] -= best / cnt[srv[j, r]]
            t += best
            j = active[bj]
            for r in range(d):
                cnt[srv[j, r]] -= 1
            if done >= warmup:
                b = (done - warmup) // batch
                if b < 20:
                    sums[b] += t - arr[j]
            done += 1
            active[bj] = active[n_act - 1]
            n_act -= 1
            free[n_free] = j
            n_free += 1
    return sums / batch


def _sim(lam, X, dep, N, d, n_jobs=120_000, seed=5):
    args = dp.sampler_args(dep, X)
    means = _simulate_ps(lam, N, d, *args, n_jobs, n_jobs // 10, np.random.default_rng(seed))
    return means.mean(), means.std(ddof=1) / math.sqrt(len(means))


@pytest.mark.parametrize(
    "lam,X,dep,N_,d",
    [
        (2.0, D.Exponential(1.0), IID, 4, 4),  # d = N: M/M/1-PS with X_min ~ Exp(1/4)
        (1.6, D.Lognormal(1.0, 1.5), IID, 4, 1),  # d = 1: M/G/1-PS per server
        (0.5, D.Uniform(0.5, 1.5), IDENT, 3, 3),  # d = N identical: E[X] / (1 - rho~)
    ],
)
def test_simulation_matches_exact_cases(lam, X, dep, N_, d):
    t, kind = ps.latency(lam, X, dep, N_, d)
    assert kind == "exact"
    mean, se = _sim(lam, X, dep, N_, d)
    assert abs(mean - t) < 4 * se, (mean, se, t)


@pytest.mark.parametrize(
    "lam,X,dep",
    [
        (1.5, D.Exponential(1.0), IID),
        (1.2, D.Lognormal(1.0, 1.5), IDENT),
        (1.2, D.Hyperexponential((0.9, 0.1), (2.0, 0.2)), IID),
    ],
)
def test_simulation_below_upper_bound(lam, X, dep):
    N_, d = 4, 2
    ub, kind = ps.latency(lam, X, dep, N_, d)
    assert kind == "upper_bound" and math.isfinite(ub)
    mean, se = _sim(lam, X, dep, N_, d)
    assert mean < ub + 4 * se, (mean, se, ub)
    assert mean > mean_min_replicas(X, dep, d)  # no job is faster than its smallest replica
