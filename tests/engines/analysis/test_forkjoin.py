"""Fork-join with redundancy (Joshi, Soljanin and Wornell, arXiv 1508.03599; docs:
reference results, section 4)."""

import math

import numba
import numpy as np
import pytest

from straggler.engines.analysis import forkjoin as fj
from straggler.model import dependence as dp
from straggler.model import distributions as D

# ---------------------------------------------------------------------------------
# Order statistics
# ---------------------------------------------------------------------------------

MC_FAMILIES = [
    D.Lognormal(1.0, 1.0),
    D.Weibull(0.7, 1.0),
    D.Hyperexponential((0.8, 0.2), (2.0, 0.25)),
    D.BoundedPareto(1.0, 100.0, 1.5),
    D.Erlang(3, 2.0),
    D.Uniform(1.0, 3.0),
    D.Discrete((1.0, 2.0, 5.0), (0.5, 0.3, 0.2)),
    D.Pareto(1.0, 5.0),
    D.ShiftedExponential(1.0, 0.5),
    D.Exponential(2.0),
]


@pytest.mark.parametrize("X", MC_FAMILIES, ids=lambda X: X.family)
def test_order_statistics_against_monte_carlo(X):
    rng = np.random.default_rng(2024)
    n_s = 100_000
    for k, n in ((1, 4), (3, 5), (5, 5), (2, 7)):
        s = np.sort(D.sample_many(X, n_s * n, rng).reshape(n_s, n), axis=1)[:, k - 1]
        for m in (1, 2):
            v = s**m
            se = v.std(ddof=1) / math.sqrt(n_s)
            got = fj.order_statistic_moment(X, k, n, m)
            assert abs(got - v.mean()) < 4 * se + 1e-12, (X, k, n, m, got, v.mean(), se)


@pytest.mark.parametrize("k,n", [(1, 1), (1, 5), (2, 5), (5, 5), (4, 9)])
def test_generic_quadrature_matches_closed_forms(k, n):
    # Erlang(1) is an exponential taken through the generic betainc quadrature;
    # a bounded Pareto with a far upper end is the Pareto through it
    e, e_gen = D.Exponential(1.5), D.Erlang(1, 1.5)
    p, p_gen = D.Pareto(1.0, 2.5), D.BoundedPareto(1.0, 1e24, 2.5)
    for m in (1, 2):
        assert fj.order_statistic_moment(e_gen, k, n, m) == pytest.approx(
            fj.order_statistic_moment(e, k, n, m), rel=1e-9
        )
        assert fj.order_statistic_moment(p_gen, k, n, m) == pytest.approx(
            fj.order_statistic_moment(p, k, n, m), rel=1e-7
        )
    mu = 1 / 1.5
    H = lambda j: sum(1.0 / i for i in range(1, j + 1))  # noqa: E731
    assert fj.order_statistic_mean(e, k, n) == pytest.approx((H(n) - H(n - k)) / mu, rel=1e-12)


def test_pareto_infinite_order_moments():
    X = D.Pareto(1.0, 1.5)
    assert fj.order_statistic_second_moment(X, 1, 2) < math.inf  # 2 alpha = 3 > 2
    assert fj.order_statistic_second_moment(X, 3, 3) == math.inf  # alpha = 1.5 < 2
    assert fj.order_statistic_mean(X, 3, 3) < math.inf


def test_replica_min_moment_dependences():
    X, S = D.Lognormal(1.0, 1.0), D.Discrete((1.0, 4.0), (0.7, 0.3))
    assert fj.replica_min_moment(X, dp.Identical(), 4, 2) == pytest.approx(X.second_moment())
    assert fj.replica_min_moment(X, dp.IID(), 4) == pytest.approx(X.mean_min_of(4), rel=1e-9)
    assert fj.replica_min_moment(X, dp.SX(S), 3, 2) == pytest.approx(
        X.second_moment() * fj.order_statistic_second_moment(S, 1, 3)
    )


# ---------------------------------------------------------------------------------
# (n, 1): exact latency and cost
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n,mu,lam", [(1, 1.0, 0.5), (3, 1.0, 2.0), (5, 0.5, 1.0), (10, 2.0, 15.0)])
def test_n1_exponential(n, mu, lam):
    X = D.Exponential(1 / mu)
    e = fj.fork_join_n1(lam, X, n)
    assert e.latency == pytest.approx(1 / (n * mu - lam), rel=1e-12)
    assert e.latency_kind == "exact"
    assert e.cost == pytest.approx(X.mean(), rel=1e-12)  # n E[X_{1:n}] = n E[X] / n
    s_nec, s_suf = fj.fork_join_stability(X, n, 1)
    assert s_nec.kind == s_suf.kind == "exact" and s_nec.rate == pytest.approx(n * mu)
    assert fj.fork_join_n1(n * mu, X, n).latency == math.inf


def test_coc_full_replication_identical_and_cos():
    X = D.Lognormal(2.0, 1.0)
    e = fj.coc_full_replication(0.3, X, dp.Identical(), 4)
    assert e.latency == pytest.approx(2.0 + 0.3 * X.second_moment() / (2 * (1 - 0.6)))
    assert e.cost == pytest.approx(4 * 2.0)
    c = fj.cos_stability(X, dp.IID(), 4)
    assert c.rate == pytest.approx(2.0) and c.load == 1.0 and c.kind == "exact"
    m = fj.fork_early_cancel_n1(3.0, D.Exponential(1.0), 4)
    # M/M/4 with offered load 3: Erlang C = 0.509..., E[T] = 1 + C / (4 - 3)
    assert m.latency_kind == "exact" and m.cost == 1.0
    assert m.latency == pytest.approx(1 + 0.5094339622641509, rel=1e-9)
    assert fj.fork_early_cancel_n1(3.0, X, 4).latency_kind == "approximation"


def test_shifted_exponential_replication_cost():
    delta, mu = 0.7, 2.0
    X = D.ShiftedExponential(delta, 1 / mu)
    for r in range(1, 12):
        assert r * fj.order_statistic_mean(X, 1, r) == pytest.approx(r * delta + 1 / mu, rel=1e-12)


# ---------------------------------------------------------------------------------
# The dichotomy (section 4.2) and the choice of r (section 6.2)
# ---------------------------------------------------------------------------------


def test_dichotomy_log_concave_log_convex():
    se = fj.dichotomy(D.ShiftedExponential(1.0, 1.0))
    assert se["tail_class"] == "log-concave" and se["trend"] == "non-decreasing" and se["consistent"]
    he = fj.dichotomy(D.Hyperexponential((0.5, 0.5), (1.0, 0.1)))
    assert he["tail_class"] == "log-convex" and he["trend"] == "non-increasing" and he["consistent"]
    ex = fj.dichotomy(D.Exponential(3.0))
    assert ex["trend"] == "constant" and ex["consistent"]
    wb = fj.dichotomy(D.Weibull(0.5, 1.0))
    assert wb["tail_class"] == "log-convex" and wb["trend"] == "non-increasing"
    er = fj.dichotomy(D.Erlang(3, 1.0))
    assert er["tail_class"] == "log-concave" and er["trend"] == "non-decreasing"


def test_dichotomy_pareto():
    # Pareto type I is neither log-concave nor log-convex on x >= 0; the cost
    # r E[X_{1:r}] = r^2 alpha / (r alpha - 1) rises for alpha >= 2 (Pareto(1, 2.2))
    # and falls, then rises, for alpha < 2
    p = fj.dichotomy(D.Pareto(1.0, 2.2), 10)
    r = np.arange(1, 11)
    assert p["costs"] == pytest.approx(r**2 * 2.2 / (r * 2.2 - 1), rel=1e-12)
    assert p["tail_class"] == "neither" and p["expected"] is None
    assert p["trend"] == "non-decreasing"
    assert fj.dichotomy(D.Pareto(1.0, 1.1), 10)["trend"] == "neither"


def test_optimal_r():
    n = 10
    assert fj.optimal_r(D.ShiftedExponential(1.0, 1.0), n, "low")[0] == n
    assert fj.optimal_r(D.ShiftedExponential(1.0, 1.0), n, "heavy")[0] == 1
    assert fj.optimal_r(D.Hyperexponential((0.5, 0.5), (1.0, 0.1)), n, "heavy")[0] == n
    assert fj.optimal_r(D.Hyperexponential((0.5, 0.5), (1.0, 0.1)), n, "heavy", r_max=4)[0] == 4
    assert fj.optimal_r(D.Pareto(1.0, 1.1), n, "heavy")[0] == 2  # argmin r^2 a / (r a - 1)
    # the heavy-traffic choice is the group-based system of least latency near capacity
    X = D.Pareto(1.0, 1.1)
    divisors = [1, 2, 5, 10]
    cap = {r: n / (r * fj.order_statistic_mean(X, 1, r)) for r in divisors}
    assert max(cap, key=cap.get) == 2
    lat = {r: fj.partial_fork_group(0.95 * cap[2], X, n, r).latency for r in divisors}
    assert min(lat, key=lat.get) == 2


def test_uniform_partial_fork_cost_bounds():
    lo, hi, tc = fj.uniform_partial_fork_cost_bounds(D.ShiftedExponential(1.0, 1.0), 3)
    assert tc == "log-concave" and lo == pytest.approx(2.0) and hi == pytest.approx(3 * 1 + 1)
    lo, hi, tc = fj.uniform_partial_fork_cost_bounds(D.Hyperexponential((0.5, 0.5), (1.0, 0.1)), 3)
    assert tc == "log-convex" and lo < hi == pytest.approx(5.5)
    assert all(math.isnan(v) for v in fj.uniform_partial_fork_cost_bounds(D.Pareto(1, 2.2), 3)[:2])


# ---------------------------------------------------------------------------------
# (n, k): bounds, against a simulation of the FCFS fork-join queue
# ---------------------------------------------------------------------------------


def test_cost_bounds_ends_exponential_and_tail_order():
    for X in (
        D.Pareto(1.0, 2.2),
        D.ShiftedExponential(1.0, 1.0),
        D.Lognormal(1.0, 1.0),
        D.Uniform(0.0, 1.0),
        D.Hyperexponential((0.5, 0.5), (1.0, 0.1)),
    ):
        n = 6
        cb = fj.fork_join_cost_bounds(X, n, 1)
        assert cb.kind == "exact" and cb.lower == pytest.approx(n * fj.order_statistic_mean(X, 1, n))
        cb = fj.fork_join_cost_bounds(X, n, n)
        assert cb.kind == "exact" and cb.upper == pytest.approx(n * X.mean())
        for k in range(2, n):
            cb = fj.fork_join_cost_bounds(X, n, k)
            if cb.kind == "bounds":
                assert cb.lower <= cb.upper * (1 + 1e-12)
                first = cb.staggered if cb.tail_class == "log-concave" else cb.simultaneous
                assert cb.lower == first
            else:
                assert X.tail_class() == "neither" and math.isnan(cb.lower) and math.isnan(cb.upper)
    # a Pareto treated as log-convex (its tail on the support) gets the log-convex order
    cb = fj.fork_join_cost_bounds(D.Pareto(1.0, 2.2), 6, 3, tail="log-convex")
    assert cb.kind == "bounds" and cb.lower == cb.simultaneous < cb.upper == cb.staggered
    E = D.Exponential(0.5)
    for k in range(1, 7):
        cb = fj.fork_join_cost_bounds(E, 6, k)
        assert cb.kind == "exact" and cb.simultaneous == pytest.approx(k * 0.5)
        assert cb.staggered == pytest.approx(k * 0.5)
        nec, suf = fj.fork_join_stability(E, 6, k)
        assert nec.rate == pytest.approx(6 * 2.0 / k)  # n mu / k
        assert suf.rate <= nec.rate * (1 + 1e-12)
    # section 7.3: log-convex tails, fork-early-cancel costs k E[X] >= the fork-join upper bound
    H = D.Hyperexponential((0.5, 0.5), (1.0, 0.1))
    for k in range(1, 6):
        assert fj.fork_early_cancel_cost(H, k) >= fj.fork_join_cost_bounds(H, 6, k).upper
    assert fj.fork_early_cancel_stability(H, 6, 2).kind == "necessary"
    # the necessary bound for a tail that is neither uses sum_{i<=k} E[X_{i:n}]
    L = D.Lognormal(1.0, 1.0)
    nec, _ = fj.fork_join_stability(L, 6, 3)
    assert nec.rate == pytest.approx(
        min(6 / sum(fj.order_statistic_mean(L, i, 6) for i in (1, 2, 3)), 1 / fj.order_statistic_mean(L, 1, 6))
    )


@numba.njit(cache=True)
def _simulate_fj(lam, n, k, x_code, x_params, n_jobs, warmup, rng):
    """FCFS (n, k) fork-join with cancellation: batch means of latency and cost.

    Each server keeps the time it is free; job j's task i starts at
    max(arrival, free_i) and ends at start + X; the job completes at the k-th
    smallest end c; tasks still running at c are cancelled (free_i = c). A task
    never starts after c (at most k - 1 tasks can start before the previous job's
    completion), so the recursion is exact."""
    free = np.zeros(n)
    start = np.zeros(n)
    end = np.zeros(n)
    nb = 20
    batch = (n_jobs - warmup) // nb
    lat = np.zeros(nb)
    cost = np.zeros(nb)
    t = 0.0
    for j in range(n_jobs):
        t += rng.standard_exponential() / lam
        for i in range(n):
            start[i] = max(t, free[i])
            end[i] = start[i] + D.sample(x_code, x_params, rng)
        c = np.sort(end)[k - 1]
        cj = 0.0
        for i in range(n):
            e = min(end[i], c)
            cj += e - start[i]
            free[i] = e
        if j >= warmup:
            b = (j - warmup) // batch
            if b < nb:
                lat[b] += c - t
                cost[b] += cj
    return lat / batch, cost / batch


def _fj_sim(lam, X, n, k, n_jobs=200_000, seed=3):
    lat, cost = _simulate_fj(lam, n, k, X.code, X.sampler_params(), n_jobs, n_jobs // 10, np.random.default_rng(seed))
    se = lambda v: v.std(ddof=1) / math.sqrt(len(v))  # noqa: E731
    return lat.mean(), se(lat), cost.mean(), se(cost)


@pytest.mark.parametrize(
    "X,n,k,lam",
    [
        (D.Exponential(1.0), 4, 1, 2.5),
        (D.ShiftedExponential(0.5, 0.5), 5, 1, 0.8),
        (D.Exponential(1.0), 5, 3, 0.6),
        (D.Pareto(1.0, 2.2), 6, 3, 0.3),
        (D.ShiftedExponential(1.0, 1.0), 6, 4, 0.25),
        (D.Hyperexponential((0.5, 0.5), (1.0, 0.1)), 5, 2, 0.3),
        (D.Uniform(0.0, 1.0), 6, 2, 3.0),
        (D.Weibull(0.5, 1.0), 6, 3, 1.5),
    ],
)
def test_fork_join_simulation_within_bounds(X, n, k, lam):
    t, t_se, c, c_se = _fj_sim(lam, X, n, k)
    lo, hi = fj.fork_join_bounds(lam, X, n, k)
    cb = fj.fork_join_cost_bounds(X, n, k)
    assert lo - 4 * t_se < t < hi + 4 * t_se, (t, t_se, lo, hi)
    if cb.kind != "none":
        assert cb.lower - 4 * c_se < c < cb.upper + 4 * c_se, (c, c_se, cb)
    if k == 1:  # exact
        assert abs(t - hi) < 4 * t_se and abs(c - cb.upper) < 4 * c_se
    nec, suf = fj.fork_join_stability(X, n, k)
    assert lam < nec.rate


def test_cost_moves_from_simultaneous_to_staggered():
    """Light traffic: tasks start together (cost = simultaneous); heavier traffic:
    the k - 1 early tasks pull the cost towards the staggered value."""
    for X, n, k, lams in (
        (D.Uniform(0.0, 1.0), 6, 2, (0.05, 3.3)),
        (D.Hyperexponential((0.5, 0.5), (1.0, 0.1)), 6, 2, (0.02, 1.0)),
    ):
        cb = fj.fork_join_cost_bounds(X, n, k)
        (_, _, c0, se0), (_, _, c1, se1) = (_fj_sim(lam, X, n, k) for lam in lams)
        assert abs(c0 - cb.simultaneous) < 4 * se0
        towards = np.sign(cb.staggered - cb.simultaneous)
        assert towards * (c1 - c0) > 4 * math.hypot(se0, se1)


def test_nn_exponential_lemma8_tighter_than_split_merge():
    for n, lam in ((5, 0.3), (10, 0.1)):
        lemma8 = fj.fork_join_nn_upper_bound_exponential(lam, 1.0, n)
        lo, sm = fj.fork_join_bounds(lam, D.Exponential(1.0), n, n)
        assert lo <= lemma8 < sm
    t, t_se, _, _ = _fj_sim(0.3, D.Exponential(1.0), 5, 5)
    assert t < fj.fork_join_nn_upper_bound_exponential(0.3, 1.0, 5) + 4 * t_se


# ---------------------------------------------------------------------------------
# Lemma 8 (k = n) for any task law: E[max of n independent M/G/1 response times]
# ---------------------------------------------------------------------------------


@numba.njit(cache=True)
def _max_independent_mg1(lam, n, x_code, x_params, n_jobs, warmup, rng):
    """Batch means of max_i T_i over n independent M/G/1 FCFS queues, each with its
    own Poisson arrivals (Lindley: W' = max(W + S - A, 0), T = W + S): job j's
    response times at the n queues are independent and, after the warm-up,
    stationary, so the mean of their maximum is Lemma 8's right-hand side."""
    w = np.zeros(n)
    nb = 20
    batch = (n_jobs - warmup) // nb
    out = np.zeros(nb)
    for j in range(n_jobs):
        m = 0.0
        for i in range(n):
            t = w[i] + D.sample(x_code, x_params, rng)
            m = max(m, t)
            w[i] = max(t - rng.standard_exponential() / lam, 0.0)
        if j >= warmup:
            b = (j - warmup) // batch
            if b < nb:
                out[b] += m
    return out / batch


@pytest.mark.parametrize("lam,mean,n", [(0.5, 1.0, 10), (0.3, 2.0, 5), (0.05, 1.0, 3), (0.9, 1.0, 4)])
def test_lemma8_lattice_brackets_the_exponential_closed_form(lam, mean, n):
    """Exponential tasks: the maximum of n independent Exp(mu - lam) is H_n / (mu - lam).
    The lattice values must bracket it, within 0.3 % (the step is E[T] / 2048 and the
    gap is about h (1 + rho / (1 - rho)) times a factor of order one)."""
    r = fj.mean_max_mg1_response(lam, D.Exponential(mean), n)
    exact = fj.fork_join_nn_upper_bound_exponential(lam, 1.0 / mean, n)
    assert r.lower <= exact <= r.upper
    assert (r.upper - r.lower) / exact < 3e-3


@pytest.mark.parametrize(
    "X,lam,n",
    [
        (D.Deterministic(1.0), 0.6, 4),
        (D.ShiftedExponential(0.1, 1.0), 0.4, 10),  # forkjoin_k_tradeoff, Delta = 1, k = 10
        (D.Uniform(0.5, 1.5), 0.7, 6),
        (D.Hyperexponential((0.9, 0.1), (2.0, 0.2)), 0.3, 5),
    ],
)
def test_lemma8_lattice_against_monte_carlo(X, lam, n):
    """An independent evaluation: n independent M/G/1 queues simulated by Lindley's
    recursion (fixed seed, 20 batch means); the lattice bracket must contain the
    estimate up to 4 standard errors."""
    r = fj.mean_max_mg1_response(lam, X, n)
    batches = _max_independent_mg1(lam, n, X.code, X.sampler_params(), 400_000, 40_000, np.random.default_rng(11))
    mc, se = batches.mean(), batches.std(ddof=1) / math.sqrt(len(batches))
    assert r.lower - 4 * se <= mc <= r.upper + 4 * se, (r, mc, se)
    assert (r.upper - r.lower) / r.upper < 5e-3


def test_lemma8_overload_light_traffic_and_heavy_tail():
    X = D.ShiftedExponential(0.1, 1.0)
    assert fj.mean_max_mg1_response(1.0 / X.mean(), X, 3).upper == math.inf
    assert fj.mean_max_mg1_response(0.0, X, 3).upper == pytest.approx(fj.order_statistic_mean(X, 3, 3))
    # a heavy tail (Pareto 2.2: E[T^2] infinite) is cut at the lattice end, and
    # n E[(T - L)^+] bounds what is cut, so upper stays an upper bound, only looser
    P = D.Pareto(1.0, 2.2)
    r = fj.mean_max_mg1_response(0.2, P, 4)
    assert math.isfinite(r.upper) and r.upper > r.lower > fj.order_statistic_mean(P, 4, 4)


def test_lemma8_bounds_the_nn_fork_join_where_split_merge_is_infinite():
    """forkjoin_k_tradeoff, Delta = 1, k = n = 10, load 0.08 (lambda = 0.4, tasks
    ShiftedExp(0.1, 1)): split-merge needs lambda E[X_{10:10}] < 1 and is +inf;
    each server is M/G/1 at load 0.44, so Lemma 8 is finite, and the simulated
    (10, 10) fork-join lies between Theorem 4's lower bound and it."""
    X, n, lam = D.ShiftedExponential(0.1, 1.0), 10, 0.4
    lo, split_merge = fj.fork_join_bounds(lam, X, n, n)
    lemma8 = fj.fork_join_nn_upper_bound(lam, X, n)
    assert split_merge == math.inf and math.isfinite(lemma8)
    t, t_se, _, _ = _fj_sim(lam, X, n, n)
    assert lo - 4 * t_se < t < lemma8 + 4 * t_se, (lo, t, t_se, lemma8)
    # where both are finite Lemma 8 is the tighter one (section 7.1)
    lo2, sm2 = fj.fork_join_bounds(0.1, X, n, n)
    assert lo2 < fj.fork_join_nn_upper_bound(0.1, X, n) < sm2


# ---------------------------------------------------------------------------------
# Partial forking and the general strategy (sections 6 and 8)
# ---------------------------------------------------------------------------------


def test_partial_fork_group_k1_exact():
    X, n, r, lam = D.Pareto(1.0, 2.2), 10, 5, 2.0
    e = fj.partial_fork_group(lam, X, n, r)
    ref = fj.fork_join_n1(lam * r / n, X, r)
    assert e.latency == pytest.approx(ref.latency) and e.latency_kind == "exact"
    assert e.cost == pytest.approx(r * fj.order_statistic_mean(X, 1, r))
    with pytest.raises(ValueError, match="r \\| n"):
        fj.partial_fork_group(lam, X, n, 3)


def test_general_strategy_pareto():
    """Section 8.3's setting: Pareto(1, 2.2), E[C] <= 5, r_f <= 8 (n = 10, k = 1)."""
    X, n = D.Pareto(1.0, 2.2), 10
    for lam in (0.5, 2.0, 3.5):
        ch = fj.general_strategy(lam, X, n, k=1, c_max=5.0, rf_max=8)
        assert ch.r_f == 8 and ch.feasible and 1 <= ch.r <= 8
        assert ch.cost_estimate <= 5.0
        feas = [c for c in ch.candidates if c[2] <= 5.0]
        assert ch.latency_estimate == min(c[1] for c in feas)
        t_hat, c_hat = fj.strategy_estimates(lam, X, n, ch.r, 1)
        assert (t_hat, c_hat) == (ch.latency_estimate, ch.cost_estimate)
        if n % ch.r == 0:  # k = 1: the estimate is group-based random's exact latency
            assert t_hat == pytest.approx(fj.partial_fork_group(lam, X, n, ch.r).latency)
        no_red = fj.partial_fork_group(lam, X, n, 1).latency
        assert ch.latency_estimate <= no_red  # r = 1 (no redundancy) is a candidate
        if lam < 1.0:
            assert ch.r > 1 and ch.latency_estimate < no_red  # light traffic: redundancy pays
    strict = fj.general_strategy(0.5, X, n, k=1, c_max=1.0, rf_max=8)
    assert not strict.feasible and strict.r == 1
    k3 = fj.general_strategy(0.5, X, n, k=3, c_max=8.0, rf_max=8)
    assert 3 <= k3.r <= 8 and k3.cost_estimate <= 8.0
    # the cost estimate is the simultaneous-start cost of (r, k)
    for r in range(3, 9):
        assert fj.strategy_estimates(0.5, X, n, r, 3)[1] == pytest.approx(
            fj.fork_join_cost_bounds(X, r, 3).simultaneous
        )


@pytest.mark.parametrize("n,k,lam", [(4, 2, 1.2), (5, 3, 0.9), (6, 4, 0.8), (3, 3, 0.6), (2, 2, 0.7)])
def test_exponential_closed_forms_bound_the_simulated_fork_join(n, k, lam):
    """Exponential tasks, the separate small simulator above (fixed seed, 4 standard
    errors): E[T] lies between the Joshi-Liu-Soljanin lower bound, which is above Theorem
    4's there, and the split-merge bound (k = n: the smaller of it and H_n / (mu - lam));
    for (2, 2) the estimate is the exact Flatto-Hahn / Nelson-Tantawi value."""
    t, t_se, _, _ = _fj_sim(lam, D.Exponential(1.0), n, k)
    lower = fj.fork_join_lower_bound_exponential(lam, 1.0, n, k)
    upper = fj.fork_join_split_merge_exponential(lam, 1.0, n, k)
    if k == n:
        upper = min(upper, fj.fork_join_nn_upper_bound_exponential(lam, 1.0, n))
    assert lower > fj.fork_join_bounds(lam, D.Exponential(1.0), n, k)[0]
    assert lower - 4 * t_se < t < upper + 4 * t_se, (lower, t, t_se, upper)
    if n == k == 2:
        assert abs(t - fj.fork_join_22_exponential(lam, 1.0)) < 4 * t_se
