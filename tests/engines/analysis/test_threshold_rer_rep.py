"""Threshold paper: rerouting and replication after a threshold (Props. 1, 2, 5),
their optimisation, the Section 6 latency approximation and known sizes (KS).

Monte Carlo checks sample jobs and apply the policy definitions directly (the
processing time each job spends in each pool); closed forms are the reference
results' (docs: reference results, section 1); the paper's statements are those of Section 5.
"""

import math
import os

import numpy as np
import pytest

from straggler.engines.analysis import known_sizes, queues, threshold, threshold_search
from straggler.model import dependence, distributions, two_pools

CI = bool(os.environ.get("STRAGGLER_CI"))

EXP10 = distributions.from_spec({"family": "exponential", "mean": 10})
PARETO = distributions.from_spec({"family": "pareto", "xm": 1, "alpha": 10 / 9})
WEIBULL = distributions.from_spec({"family": "weibull", "shape": 0.6, "scale": 6})
DET10 = distributions.from_spec({"family": "deterministic", "value": 10})
IDENTICAL = dependence.from_spec("identical")
IID = dependence.from_spec("iid")
SX = dependence.from_spec({"kind": "sx", "slowdown": {"family": "discrete", "values": [1, 4], "p": [0.8, 0.2]}})
DEPS = {"identical": IDENTICAL, "iid": IID, "sx": SX}


def load(rate, X, dep, N=10):
    return threshold.to_load_units(rate, X, dep, N)


def system(r, **kw):
    return two_pools.TwoPoolSystem.affinity(10, r, **kw)


def three_types():
    """J = 3, an arbitrary speed matrix and unequal pools."""
    return two_pools.TwoPoolSystem(
        n=(2, 5),
        p=(0.5, 0.3, 0.2),
        speeds=((1.0, 0.25, 0.6), (0.3, 1.2, 0.5)),
        belief=two_pools.belief_matrix("unknown", 3),
    )


# ---------------------------------------------------------------------------------
# Monte Carlo of the policy definitions
# ---------------------------------------------------------------------------------


def simulate_work(sys_, X, dep, alpha, policy, taus, n, seed):
    """Per-job work in each pool, shape (2, n), by the policy's definition.

    ``policy``: "rer" (one threshold per starting pool, taus = (tau_1, tau_2)),
    "rep", or "multi" (taus = two lists: run k of a job that started in s lasts up
    to taus[s][k] of processing in that run, alternating pools, restarting from
    scratch; after the last one it runs to completion)."""
    rng = np.random.default_rng(seed)
    sizes = dependence.sample_jobs(dep, X, n, 2, rng)
    p = np.asarray(sys_.p)
    r = np.asarray(sys_.speeds)
    types = rng.choice(len(p), size=n, p=p)
    start = np.where(rng.random(n) < np.asarray(alpha)[0][types], 0, 1)
    A = sizes / r[:, types].T  # A[m, i] = X_i / r_{i, type}
    rows = np.arange(n)
    work = np.zeros((2, n))
    if policy in ("rer", "rep"):
        tau = np.asarray(taus, dtype=float)[start]
        a_s, a_l = A[rows, start], A[rows, 1 - start]
        go = a_s > tau
        first = np.minimum(a_s, tau)
        if policy == "rer":
            own, other = first, np.where(go, a_l, 0.0)
        else:
            both = np.where(go, np.minimum(a_s - tau, a_l), 0.0)
            own, other = first + both, both
        work[start, rows] += own
        work[1 - start, rows] += other
        return work
    assert policy == "multi"
    for s in (0, 1):
        jobs = rows[start == s]
        alive = np.ones(jobs.size, dtype=bool)
        limits = list(taus[s]) + [math.inf]
        for k, lim in enumerate(limits):
            pool = s if k % 2 == 0 else 1 - s
            a = A[jobs, pool]
            work[pool, jobs] += np.where(alive, np.minimum(a, lim), 0.0)
            alive &= a > lim
    return work


def mc_mean(work):
    n = work.shape[1]
    return work.mean(axis=1), work.std(axis=1, ddof=1) / math.sqrt(n)


MC_N = 30_000 if CI else 60_000

MC_CASES = [  # (r_slow, q, tau)
    (0.1, 0.5, (6.0, 15.0)),
    (0.4, 0.3, (0.0, 12.0)),
    (0.7, 0.8, (25.0, math.inf)),
]


@pytest.mark.parametrize("dep_name", list(DEPS))
@pytest.mark.parametrize("X", [EXP10, WEIBULL], ids=["exp", "weibull"])
@pytest.mark.parametrize("policy", ["rer", "rep"])
@pytest.mark.parametrize("case", range(len(MC_CASES)))
def test_expected_work_against_monte_carlo(dep_name, X, policy, case):
    r, q, tau = MC_CASES[case]
    dep = DEPS[dep_name]
    sys_ = system(r)
    alpha = two_pools.assignment_fractions(sys_, [q])
    fn = threshold.expected_work_rerouting if policy == "rer" else threshold.expected_work_replication
    exact = fn(sys_, X, dep, alpha, tau)
    work = simulate_work(sys_, X, dep, alpha, policy, tau, MC_N, seed=1000 + 17 * case)
    mean, se = mc_mean(work)
    assert np.all(se > 0)
    assert np.all(np.abs(mean - exact) < 4 * se), (mean, exact, se)


@pytest.mark.parametrize("dep_name", list(DEPS))
@pytest.mark.parametrize("policy", ["rer", "rep"])
def test_expected_work_monte_carlo_three_types(dep_name, policy):
    """Any J, any speed matrix, n_1 != n_2, a type-dependent assignment."""
    dep = DEPS[dep_name]
    sys_ = three_types()
    alpha = np.array([[0.7, 0.2, 0.5], [0.3, 0.8, 0.5]])
    tau = (4.0, 9.0)
    fn = threshold.expected_work_rerouting if policy == "rer" else threshold.expected_work_replication
    exact = fn(sys_, EXP10, dep, alpha, tau)
    mean, se = mc_mean(simulate_work(sys_, EXP10, dep, alpha, policy, tau, MC_N, seed=77))
    assert np.all(np.abs(mean - exact) < 4 * se), (mean, exact, se)


def test_monte_carlo_has_power():
    """The harness rejects a wrong answer: the rerouting formula against replication
    samples, and the right formula at a threshold 30% off."""
    sys_ = system(0.1)
    alpha = two_pools.assignment_fractions(sys_, [0.5])
    tau = (8.0, 8.0)
    mean, se = mc_mean(simulate_work(sys_, WEIBULL, IDENTICAL, alpha, "rep", tau, MC_N, seed=5))
    wrong_policy = threshold.expected_work_rerouting(sys_, WEIBULL, IDENTICAL, alpha, tau)
    wrong_tau = threshold.expected_work_replication(sys_, WEIBULL, IDENTICAL, alpha, (10.4, 10.4))
    assert np.any(np.abs(mean - wrong_policy) > 4 * se)
    assert np.any(np.abs(mean - wrong_tau) > 4 * se)


MULTI_CASES = [
    [3.0, 8.0, 20.0],  # the same increasing vector for both starting pools
    [[2.0, 6.0], [4.0, 9.0, 30.0]],  # the rows of T, different lengths
    [10.0, 2.0, 5.0, 1.0],  # not monotone: runs shorter than earlier ones
]


@pytest.mark.parametrize("dep_name", list(DEPS))
@pytest.mark.parametrize("X", [EXP10, WEIBULL], ids=["exp", "weibull"])
@pytest.mark.parametrize("case", range(len(MULTI_CASES)))
def test_multi_threshold_against_monte_carlo(dep_name, X, case):
    dep = DEPS[dep_name]
    sys_ = system(0.25)
    alpha = two_pools.assignment_fractions(sys_, [0.4])
    taus = MULTI_CASES[case]
    rows = taus if np.ndim(taus[0]) == 1 else [taus, taus]
    exact = threshold.expected_work_rerouting_multi(sys_, X, dep, alpha, taus)
    mean, se = mc_mean(simulate_work(sys_, X, dep, alpha, "multi", rows, MC_N, seed=31 + case))
    assert np.all(np.abs(mean - exact) < 4 * se), (mean, exact, se)


def test_multi_threshold_continuous_slowdown_monte_carlo():
    """S&X with a continuous slowdown goes through the quadrature path."""
    dep = dependence.from_spec({"kind": "sx", "slowdown": {"family": "exponential", "mean": 1}})
    sys_ = system(0.3)
    alpha = two_pools.assignment_fractions(sys_, [0.6])
    taus = [[5.0, 12.0], [7.0]]
    exact = threshold.expected_work_rerouting_multi(sys_, EXP10, dep, alpha, taus)
    mean, se = mc_mean(simulate_work(sys_, EXP10, dep, alpha, "multi", taus, MC_N, seed=8))
    assert np.all(np.abs(mean - exact) < 4 * se), (mean, exact, se)
    one = threshold.expected_work_rerouting(sys_, EXP10, dep, alpha, (3.0, 9.0))
    mean, se = mc_mean(simulate_work(sys_, EXP10, dep, alpha, "rer", (3.0, 9.0), MC_N, seed=9))
    assert np.all(np.abs(mean - one) < 4 * se), (mean, one, se)


@pytest.mark.parametrize("dep_name", list(DEPS))
def test_multi_threshold_reduces_to_single_and_zero(dep_name):
    dep = DEPS[dep_name]
    sys_ = three_types()
    alpha = np.array([[0.7, 0.2, 0.5], [0.3, 0.8, 0.5]])
    single = threshold.expected_work_rerouting(sys_, EXP10, dep, alpha, (4.0, 9.0))
    multi = threshold.expected_work_rerouting_multi(sys_, EXP10, dep, alpha, [[4.0], [9.0]])
    np.testing.assert_allclose(multi, single, rtol=1e-12)
    zero = two_pools.expected_work_zero_redundancy(sys_, EXP10, dep, alpha)
    np.testing.assert_allclose(threshold.expected_work_rerouting_multi(sys_, EXP10, dep, alpha, []), zero, rtol=1e-12)


# ---------------------------------------------------------------------------------
# Limits: eq. 5 (tau = inf) and eq. 6 (replication with tau = 0)
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dep_name", list(DEPS))
@pytest.mark.parametrize("X", [EXP10, PARETO, WEIBULL, DET10], ids=["exp", "pareto", "weibull", "det"])
def test_limits_zero_and_full_redundancy(dep_name, X):
    dep = DEPS[dep_name]
    for sys_, alpha in [
        (system(0.3), two_pools.assignment_fractions(system(0.3), [0.35])),
        (three_types(), np.array([[0.7, 0.2, 0.5], [0.3, 0.8, 0.5]])),
    ]:
        zero = two_pools.expected_work_zero_redundancy(sys_, X, dep, alpha)
        full = threshold.expected_work_full_redundancy(sys_, X, dep)
        inf = (math.inf, math.inf)
        rer, rep = threshold.expected_work_rerouting, threshold.expected_work_replication
        np.testing.assert_allclose(rer(sys_, X, dep, alpha, inf), zero, rtol=1e-12)
        np.testing.assert_allclose(rep(sys_, X, dep, alpha, inf), zero, rtol=1e-12)
        np.testing.assert_allclose(rep(sys_, X, dep, alpha, 0.0), full, rtol=1e-10)
        # rerouting at tau = 0 is zero redundancy with the pools swapped
        np.testing.assert_allclose(
            threshold.expected_work_rerouting(sys_, X, dep, alpha, 0.0),
            two_pools.expected_work_zero_redundancy(sys_, X, dep, alpha[::-1]),
            rtol=1e-12,
        )


def test_bad_arguments():
    sys_ = system(0.3)
    alpha = two_pools.assignment_fractions(sys_, [0.5])
    with pytest.raises(ValueError, match="tau"):
        threshold.expected_work_rerouting(sys_, EXP10, IID, alpha, (-1.0, 2.0))
    with pytest.raises(ValueError, match="alpha"):
        threshold.expected_work_replication(sys_, EXP10, IID, np.ones((2, 2)), (1.0, 2.0))
    with pytest.raises(ValueError, match="n_1 = n_2 = 1"):
        threshold.latency_rerouting(sys_, EXP10, IID, alpha, (1.0, 1.0), 0.01)


# ---------------------------------------------------------------------------------
# Optimisation: the closed forms (docs: reference results, section 1) and robustness
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("r", [0.1, 0.3, 0.5, 0.9])
def test_section5_closed_forms_exponential(r):
    s = system(r)
    zred = load(two_pools.optimal_assignment_no_redundancy(s, EXP10, IDENTICAL).rate, EXP10, IDENTICAL)
    assert zred == pytest.approx(2 * r / (1 + r), rel=1e-9)
    fred = threshold.full_redundancy_bound(s, EXP10, IDENTICAL)
    assert load(fred.rate, EXP10, IDENTICAL) == pytest.approx(0.5)
    assert load(threshold.full_redundancy_bound(s, EXP10, IID).rate, EXP10, IID) == pytest.approx((1 + r) / 2)
    kt = two_pools.optimal_assignment_no_redundancy(system(r, knowledge="known"), EXP10, IDENTICAL)
    assert load(kt.rate, EXP10, IDENTICAL) == pytest.approx(1.0, rel=1e-9)
    rer = load(threshold_search.optimal_rerouting(s, EXP10, IDENTICAL).rate, EXP10, IDENTICAL)
    rep = load(threshold_search.optimal_replication(s, EXP10, IDENTICAL).rate, EXP10, IDENTICAL)
    if r <= 0.3:
        assert rep == pytest.approx(0.5, rel=1e-9)  # Rep = FRed
    if r >= 0.5:  # Rer, Rep and ZRed coincide
        assert rer == pytest.approx(zred, rel=1e-9)
        assert rep == pytest.approx(zred, rel=1e-9)
    rep_iid = load(threshold_search.optimal_replication(s, EXP10, IID).rate, EXP10, IID)
    assert rep_iid == pytest.approx((1 + r) / 2, rel=1e-9)  # Rep = FRed (i.i.d.)


OPT_CASES = [
    ("exp-identical", EXP10, IDENTICAL, dict()),
    ("exp-iid", EXP10, IID, dict()),
    ("pareto-identical", PARETO, IDENTICAL, dict()),
    ("pareto-iid", PARETO, IID, dict()),
    ("det-identical", DET10, IDENTICAL, dict()),
    ("weibull-sx", WEIBULL, SX, dict()),
    ("exp-iid-partial-unequal", EXP10, IID, dict(knowledge="partial", belief=0.8, pools=(3, 7))),
    ("pareto-identical-p", PARETO, IDENTICAL, dict(p=(0.8, 0.2))),
]


@pytest.mark.parametrize("name,X,dep,kw", OPT_CASES, ids=[c[0] for c in OPT_CASES])
@pytest.mark.parametrize("r", [0.1, 0.5])
def test_thresholds_never_below_plain_policies(name, X, dep, kw, r):
    s = system(r, **kw)
    zred = two_pools.optimal_assignment_no_redundancy(s, X, dep).rate
    fred = threshold.full_redundancy_bound(s, X, dep).rate
    rer = threshold_search.optimal_rerouting(s, X, dep)
    rep = threshold_search.optimal_replication(s, X, dep)
    assert rer.rate >= zred * (1 - 1e-9)
    assert rep.rate >= max(zred, fred) * (1 - 1e-9)
    for b, fn in [(rer, threshold.expected_work_rerouting), (rep, threshold.expected_work_replication)]:
        # the reported (q, tau) attain the reported rate
        work = fn(s, X, dep, two_pools.assignment_fractions(s, b.q), b.tau)
        np.testing.assert_allclose(work, b.work, rtol=1e-12)
        assert b.rate == pytest.approx(1 / max(work[0] / s.n[0], work[1] / s.n[1]), rel=1e-12)
        assert all(0 <= q <= 1 for q in b.q) and all(t >= 0 for t in b.tau)


BRUTE_CASES = [
    ("exp-identical", EXP10, IDENTICAL, 0.2, dict(pools=(3, 7))),
    ("pareto-iid", PARETO, IID, 0.3, dict()),
    ("det-sx", DET10, SX, 0.3, dict()),
    (
        "uniform-iid-partial",
        distributions.from_spec({"family": "uniform", "low": 0, "high": 20}),
        IID,
        0.2,
        dict(knowledge="partial", belief=0.8),
    ),
    ("weibull-iid-partial", WEIBULL, IID, 0.4, dict(knowledge="partial", belief=0.7, pools=(3, 7))),
]


@pytest.mark.parametrize("name,X,dep,r,kw", BRUTE_CASES, ids=[c[0] for c in BRUTE_CASES])
@pytest.mark.parametrize("policy", ["rerouting", "replication"])
def test_optimiser_beats_brute_force_grid(name, X, dep, r, kw, policy):
    """The optimum is at least the best point of a 201 x 201 grid in u = tau/(s+tau)
    plus all the candidate thresholds (the inner LP in q is exact)."""
    s = system(r, **kw)
    fn = threshold_search.optimal_rerouting if policy == "rerouting" else threshold_search.optimal_replication
    best = fn(s, X, dep)
    opt = threshold_search.ThresholdOptimiser(s, X, dep, policy)
    us = np.linspace(0, 1, 101 if CI else 201)
    taus = [[opt.tau_of(i, u) for u in us] + list(opt.candidates(i)) for i in range(2)]
    V = opt.values(*taus)
    assert best.rate >= (1 / V.min()) * (1 - 1e-9)


def test_inner_lp_matches_scan_over_q():
    """The dual evaluation of min_q max_i E[B_i]/n_i equals a scan over q with the
    public E[B_i] (partly known types: q is a vector)."""
    s = system(0.3, knowledge="partial", belief=0.75, pools=(4, 6))
    tau = (7.0, 3.0)
    opt = threshold_search.ThresholdOptimiser(s, EXP10, IID, "replication")
    value = opt.value(*tau)
    grid = np.linspace(0, 1, 101)
    best = math.inf
    for q1 in grid:
        for q2 in grid:
            w = threshold.expected_work_replication(s, EXP10, IID, two_pools.assignment_fractions(s, [q1, q2]), tau)
            best = min(best, max(w[0] / 4, w[1] / 6))
    assert value <= best * (1 + 1e-12)
    assert value == pytest.approx(best, rel=2e-3)


def test_deterministic_sizes_atom_threshold():
    """Deterministic identical sizes: rerouting exactly at the atom tau = x (not just
    below, where every job is rerouted) gives 1/(1 + 1/2) = 2/3 for any r_slow < 1/2,
    which is also the known-sizes bound."""
    for r in (0.05, 0.2, 0.4):
        s = system(r)
        rer = threshold_search.optimal_rerouting(s, DET10, IDENTICAL)
        assert load(rer.rate, DET10, IDENTICAL) == pytest.approx(2 / 3, rel=1e-12)
        assert rer.tau == (10.0, 10.0)
        ks = known_sizes.known_sizes_bound(s, DET10, IDENTICAL)
        assert load(ks.rate, DET10, IDENTICAL) == pytest.approx(2 / 3, rel=1e-12)


def test_pareto_heavy_tail_optimisation():
    """Pareto(1, 10/9): finite bounds, thresholds in [0, inf], and the optimum is a
    real improvement over both plain policies for i.i.d. replicas."""
    s = system(0.3)
    rep = threshold_search.optimal_replication(s, PARETO, IID)
    rer = threshold_search.optimal_rerouting(s, PARETO, IID)
    fred = threshold.full_redundancy_bound(s, PARETO, IID).rate
    zred = two_pools.optimal_assignment_no_redundancy(s, PARETO, IID).rate
    assert math.isfinite(rep.rate) and math.isfinite(rer.rate)
    assert rep.rate > 1.003 * max(fred, zred)
    assert 0 < rep.tau[0] < math.inf and 0 < rer.tau[0] < math.inf


# ---------------------------------------------------------------------------------
# Statements of the paper (Section 5)
# ---------------------------------------------------------------------------------


def test_rerouting_vanishes_as_r_slow_to_zero():
    """Identical replicas: lambda_max(Rer) -> 0 as r_slow -> 0 (Section 5.1.1); the
    decay is slow (~ 1 / log(1 / r_slow) for exponential sizes)."""
    values = [
        load(threshold_search.optimal_rerouting(system(r), EXP10, IDENTICAL).rate, EXP10, IDENTICAL)
        for r in (0.1, 1e-2, 1e-4, 1e-8, 1e-12)
    ]
    assert all(a > b for a, b in zip(values, values[1:])), values
    assert values[-1] < 0.1


@pytest.mark.parametrize("X", [EXP10, PARETO], ids=["exp", "pareto"])
@pytest.mark.parametrize("dep", [IDENTICAL, IID], ids=["identical", "iid"])
def test_replication_beats_rerouting_when_unbalanced(X, dep):
    s = system(0.1)
    assert (
        threshold_search.optimal_replication(s, X, dep).rate > 1.05 * threshold_search.optimal_rerouting(s, X, dep).rate
    )


@pytest.mark.parametrize("X", [EXP10, PARETO], ids=["exp", "pareto"])
@pytest.mark.parametrize("dep", [IDENTICAL, IID], ids=["identical", "iid"])
def test_known_sizes_maximum_attained_by_rerouting(X, dep):
    for r in (0.1, 0.3, 0.5, 0.9):
        s = system(r)
        ks = known_sizes.known_sizes_bound(s, X, dep)
        assert ks.policy == "rerouting"
        assert ks.rerouting >= ks.replication * (1 - 1e-12)
        # KS dominates every policy with unknown sizes
        others = [
            threshold_search.optimal_rerouting(s, X, dep).rate,
            threshold_search.optimal_replication(s, X, dep).rate,
        ]
        assert ks.rate >= max(others) * (1 - 1e-9)


@pytest.mark.parametrize("X", [EXP10, PARETO], ids=["exp", "pareto"])
def test_known_sizes_beat_known_types_iid_balanced(X):
    for r in (0.9, 1.0):
        ks = load(known_sizes.known_sizes_bound(system(r), X, IID).rate, X, IID)
        kt_bound = two_pools.optimal_assignment_no_redundancy(system(r, knowledge="known"), X, IID)
        kt = load(kt_bound.rate, X, IID)
        assert ks > 1.2 * kt


@pytest.mark.parametrize("r", [0.1, 0.5])
def test_stability_grows_convexly_with_type_knowledge(r):
    """Figure 4 (identical, exponential; unbalanced and balanced speeds): lambda_max
    increases in a convex manner as p_{1->1} = p_{2->2} goes from 1/2 to 1."""
    bs = np.linspace(0.5, 1.0, 6 if CI else 11)
    curves = {k: [] for k in ("ZRed", "Rer", "Rep", "KS")}
    for b in bs:
        s = system(r, knowledge="partial", belief=float(b))
        curves["ZRed"].append(two_pools.optimal_assignment_no_redundancy(s, EXP10, IDENTICAL).rate)
        curves["Rer"].append(threshold_search.optimal_rerouting(s, EXP10, IDENTICAL).rate)
        curves["Rep"].append(threshold_search.optimal_replication(s, EXP10, IDENTICAL).rate)
        curves["KS"].append(known_sizes.known_sizes_bound(s, EXP10, IDENTICAL).rate)
    for name, c in curves.items():
        c = np.array([load(v, EXP10, IDENTICAL) for v in c])
        assert np.all(np.diff(c) >= -1e-9), (name, c)
        assert np.all(np.diff(c, 2) >= -1e-7), (name, c, np.diff(c, 2))
        assert c[-1] == pytest.approx(1.0, rel=1e-6)  # known types


# ---------------------------------------------------------------------------------
# Latency approximation (Section 6)
# ---------------------------------------------------------------------------------


def single_servers(r, p=(0.5, 0.5)):
    return two_pools.TwoPoolSystem.affinity(2, r, p=p)


@pytest.mark.parametrize("dep", [IDENTICAL, IID], ids=["identical", "iid"])
@pytest.mark.parametrize("X", [EXP10, WEIBULL], ids=["exp", "weibull"])
def test_latency_tau_inf_is_mg1_per_pool(dep, X):
    s = single_servers(0.3, p=(0.6, 0.4))
    alpha = np.array([[0.7, 0.2], [0.3, 0.8]])
    r = np.asarray(s.speeds)
    m1, m2 = dep.replica_marginal_moments(X)
    for lam in (0.01, 0.05, 0.08):
        expected = 0.0
        for i in range(2):
            wts = np.asarray(s.p) * alpha[i]
            lam_i = lam * wts.sum()
            s1 = wts @ (m1 / r[i]) / wts.sum()
            s2 = wts @ (m2 / r[i] ** 2) / wts.sum()
            W = queues.mg1_waiting_time(lam_i, s1, s2)
            expected += wts @ (W + m1 / r[i])
        for fn in (threshold.latency_rerouting, threshold.latency_replication):
            assert fn(s, X, dep, alpha, math.inf, lam) == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("dep", [IDENTICAL, IID], ids=["identical", "iid"])
def test_latency_replication_tau_zero_is_one_mg1_with_min(dep):
    s = single_servers(0.25)
    m1 = sum(
        pj * dependence.pair(dep, EXP10, 1 / s.speeds[0][j], 1 / s.speeds[1][j]).k(1, 0.0) for j, pj in enumerate(s.p)
    )
    m2 = sum(
        pj * dependence.pair(dep, EXP10, 1 / s.speeds[0][j], 1 / s.speeds[1][j]).k(2, 0.0) for j, pj in enumerate(s.p)
    )
    lams = np.array([0.01, 0.05, 0.1])
    for q in (0.0, 0.3, 1.0):
        alpha = two_pools.assignment_fractions(s, [q])
        got = threshold.latency_replication(s, EXP10, dep, alpha, 0.0, lams)
        want = [queues.mg1_fcfs_response_time(lam, m1, m2) for lam in lams]
        np.testing.assert_allclose(got, want, rtol=1e-10)


def test_latency_infinite_moments_and_overload():
    s = single_servers(0.3)
    alpha = two_pools.assignment_fractions(s, [0.5])
    assert np.all(np.isinf(threshold.second_moment_work_rerouting(s, PARETO, IDENTICAL, alpha, (5.0, 5.0))))
    assert np.all(np.isinf(threshold.second_moment_work_replication(s, PARETO, IDENTICAL, alpha, (5.0, 5.0))))
    for fn in (threshold.latency_rerouting, threshold.latency_replication):
        for tau in (0.0, 5.0, math.inf):
            assert math.isinf(fn(s, PARETO, IDENTICAL, alpha, tau, 0.01))
            assert math.isinf(fn(s, EXP10, IID, alpha, tau, 10.0))  # overloaded
    # the minimum of two i.i.d. Pareto(10/9) replicas has tail index 20/9 > 2
    finite = threshold.latency_replication(s, PARETO, IID, alpha, 0.0, 0.05)
    assert math.isfinite(finite) and finite > 0
    lam = np.array([0.01, 1.0])
    out = threshold.latency_rerouting(s, EXP10, IID, alpha, (4.0, 4.0), lam)
    assert math.isfinite(out[0]) and math.isinf(out[1])


def test_latency_light_traffic_is_service_time():
    """As lam -> 0 only the job's own processing remains."""
    s = single_servers(0.4)
    alpha = two_pools.assignment_fractions(s, [0.3])
    tau = (6.0, 11.0)
    for policy, fn in [("rerouting", threshold.latency_rerouting), ("replication", threshold.latency_replication)]:
        lat = fn(s, EXP10, IID, alpha, tau, 1e-12)
        work = simulate_work(s, EXP10, IID, alpha, policy[:3], tau, MC_N, seed=3)
        # response time with no queueing: rerouting = own run + run elsewhere,
        # replication = own run + the joint phase (replicas run in parallel)
        if policy == "rerouting":
            resp = work.sum(axis=0)
        else:
            rng = np.random.default_rng(3)
            sizes = dependence.sample_jobs(IID, EXP10, MC_N, 2, rng)
            types = rng.choice(2, size=MC_N, p=s.p)
            start = np.where(rng.random(MC_N) < alpha[0][types], 0, 1)
            r = np.asarray(s.speeds)
            A = sizes / r[:, types].T
            rows = np.arange(MC_N)
            a_s, a_l = A[rows, start], A[rows, 1 - start]
            t = np.asarray(tau)[start]
            resp = np.minimum(a_s, t) + np.where(a_s > t, np.minimum(a_s - t, a_l), 0.0)
        se = resp.std(ddof=1) / math.sqrt(MC_N)
        assert abs(resp.mean() - lat) < 4 * se


@pytest.mark.parametrize("dep_name", list(DEPS))
def test_second_moments_against_monte_carlo(dep_name):
    """E[B_i^2] of rerouting (exact per job) and the per-job replication moment;
    the paper's replication form drops the cross term 2 tau k^1."""
    dep = DEPS[dep_name]
    s = system(0.3)
    alpha = two_pools.assignment_fractions(s, [0.4])
    tau = (5.0, 12.0)
    for policy, exact in [
        ("rer", threshold.second_moment_work_rerouting(s, EXP10, dep, alpha, tau)),
        ("rep", threshold.second_moment_work_replication(s, EXP10, dep, alpha, tau, per_job=True)),
    ]:
        work = simulate_work(s, EXP10, dep, alpha, policy, tau, MC_N, seed=11)
        mean, se = mc_mean(work**2)
        assert np.all(np.abs(mean - exact) < 4 * se), (policy, mean, exact, se)
    paper = threshold.second_moment_work_replication(s, EXP10, dep, alpha, tau)
    per_job = threshold.second_moment_work_replication(s, EXP10, dep, alpha, tau, per_job=True)
    assert np.all(per_job > paper)
    for t in (0.0, math.inf):
        np.testing.assert_allclose(
            threshold.second_moment_work_replication(s, EXP10, dep, alpha, t),
            threshold.second_moment_work_replication(s, EXP10, dep, alpha, t, per_job=True),
            rtol=1e-12,
        )


# ---------------------------------------------------------------------------------
# Known sizes (KS)
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["rerouting", "replication"])
@pytest.mark.parametrize(
    "kw", [dict(), dict(knowledge="partial", belief=0.7, pools=(3, 7))], ids=["unknown", "partial-unequal"]
)
def test_known_sizes_identical_matches_primal_lp(policy, kw):
    """Identical replicas: the dual value equals the primal LP over randomised
    per-class choices (costs are homogeneous in the size)."""
    from scipy.optimize import linprog

    s = system(0.3, **kw)
    ks = known_sizes.known_sizes_bound(s, EXP10, IDENTICAL, policy=policy)
    pc, post = known_sizes.ks_posterior(s)
    n = np.asarray(s.n, dtype=float)
    # per class c and choice k: (E b_1, E b_2) for a job of size E[X]
    b = [known_sizes.ks_costs(s, post, policy, w, [10.0], [10.0])[:, 0, :] for w in (1.0, 0.0)]
    b1, b2 = b[0] * n[0], b[1] * n[1]  # undo the 1/n_i and w weights
    K, C = b1.shape
    nv = K * C + 1
    c = np.zeros(nv)
    c[-1] = 1.0
    A_ub = np.zeros((2, nv))
    A_ub[0, :-1] = (b1 * pc[None, :]).T.ravel() / n[0]
    A_ub[1, :-1] = (b2 * pc[None, :]).T.ravel() / n[1]
    A_ub[:, -1] = -1.0
    A_eq = np.zeros((C, nv))
    for cc in range(C):
        A_eq[cc, cc * K : (cc + 1) * K] = 1.0
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(2), A_eq=A_eq, b_eq=np.ones(C), bounds=[(0, None)] * nv, method="highs")
    assert res.success
    assert ks.rate == pytest.approx(1 / res.fun, rel=1e-7)


@pytest.mark.parametrize(
    "X",
    [EXP10, WEIBULL, distributions.from_spec({"family": "lognormal", "mean": 10, "cv": 1.5})],
    ids=["exp", "weibull", "lognormal"],
)
@pytest.mark.parametrize("policy", ["rerouting", "replication"])
def test_known_sizes_iid_dual_function_against_monte_carlo(X, policy):
    """Phi(w) = E[min over choices of the weighted work] for i.i.d. replicas (exact
    piecewise integration over X_2/X_1) against sampled sizes."""
    s = system(0.3, knowledge="partial", belief=0.7, pools=(4, 6))
    phi = known_sizes.ks_phi_factory(s, X, IID, policy)
    pc, post = known_sizes.ks_posterior(s)
    rng = np.random.default_rng(2024)
    sizes = dependence.sample_jobs(IID, X, MC_N, 2, rng)
    for w in (0.2, 0.5, 0.85):
        vals = known_sizes.ks_costs(s, post, policy, w, sizes[:, 0], sizes[:, 1]).min(axis=0) @ pc
        se = vals.std(ddof=1) / math.sqrt(MC_N)
        assert abs(vals.mean() - phi(w)) < 4 * se, (w, vals.mean(), phi(w), se)


def test_known_sizes_closed_forms_match_quadrature():
    """T(kappa) = E[Y P(Y' > kappa Y)]: closed forms (exponential, Pareto) against
    the generic quadrature, to 1e-8."""
    for Y in (EXP10, PARETO, distributions.from_spec({"family": "pareto", "xm": 2, "alpha": 2.5})):
        for kappa in (0.01, 0.3, 1.0, 2.5, 40.0):
            lo, hi = Y.support()
            pts = [v / kappa for v in (lo, hi) if 0 < v < math.inf]
            generic = known_sizes.expect_continuous(Y, lambda y: y * float(Y.sf(kappa * y)), pts)
            assert known_sizes.tail_mean_product(Y, kappa) == pytest.approx(generic, rel=1e-8)


def test_known_sizes_sx_and_atomic_laws():
    """sx (atomic slowdown) = E[X] times the finite sum over slowdown pairs, and
    an atomic i.i.d. law: both against sampling."""
    s = system(0.3)
    pc, post = known_sizes.ks_posterior(s)
    for X, dep in [
        (EXP10, SX),
        (distributions.from_spec({"family": "discrete", "values": [1, 7, 30], "p": [0.5, 0.3, 0.2]}), IID),
    ]:
        for policy in threshold.POLICIES:
            phi = known_sizes.ks_phi_factory(s, X, dep, policy)
            rng = np.random.default_rng(7)
            sizes = dependence.sample_jobs(dep, X, MC_N, 2, rng)
            vals = known_sizes.ks_costs(s, post, policy, 0.5, sizes[:, 0], sizes[:, 1]).min(axis=0) @ pc
            se = vals.std(ddof=1) / math.sqrt(MC_N)
            assert abs(vals.mean() - phi(0.5)) < 4 * se


def test_known_sizes_rational_thresholds_suffice():
    """Lemma 1 / Remark 2: for a job of known sizes no threshold on a fine grid
    beats the best rational one (rerouting and replication), and the choice set
    includes zero and full redundancy."""
    s = three_types()
    pc, post = known_sizes.ks_posterior(s)
    rng = np.random.default_rng(1)
    r = np.asarray(s.speeds)
    n = np.asarray(s.n, dtype=float)
    for _ in range(30):
        x0, x1 = rng.exponential(10, size=2)
        w = rng.random()
        for policy in threshold.POLICIES:
            best = known_sizes.ks_costs(s, post, policy, w, [x0], [x1]).min()
            for i in range(2):
                xi, xl = (x0, x1) if i == 0 else (x1, x0)
                ti, tl = xi / r[i], xl / r[1 - i]
                wi, wl = (w / n[0], (1 - w) / n[1]) if i == 0 else ((1 - w) / n[1], w / n[0])
                for tau in np.linspace(0, ti.max() * 1.1, 2001):
                    go = ti > tau
                    if policy == "rerouting":
                        bi, bl = np.minimum(ti, tau), np.where(go, tl, 0.0)
                    else:
                        both = np.where(go, np.minimum(ti - tau, tl), 0.0)
                        bi, bl = np.minimum(ti, tau) + both, both
                    cost = float((wi * bi + wl * bl) @ post[0])
                    assert cost >= best - 1e-12


def test_known_sizes_basic_values():
    """Homogeneous speeds: identical replicas give KT = 1; i.i.d. exponential
    replicas give E[X] / E[min(X_1, X_2)] = 2; identical KS is insensitive to the
    size law; with known types KS >= KT."""
    for X in (EXP10, PARETO, WEIBULL):
        ks = known_sizes.known_sizes_bound(system(1.0), X, IDENTICAL)
        assert load(ks.rate, X, IDENTICAL) == pytest.approx(1.0)
    assert load(known_sizes.known_sizes_bound(system(1.0), EXP10, IID).rate, EXP10, IID) == pytest.approx(2.0)
    ks = [
        load(known_sizes.known_sizes_bound(system(0.2), X, IDENTICAL).rate, X, IDENTICAL)
        for X in (EXP10, PARETO, DET10)
    ]
    assert ks == pytest.approx([ks[0]] * 3, rel=1e-12)
    known = system(0.2, knowledge="known")
    assert known_sizes.known_sizes_bound(known, EXP10, IID).rate >= two_pools.optimal_assignment_no_redundancy(
        known, EXP10, IID
    ).rate * (1 - 1e-12)
    with pytest.raises(ValueError, match="policy"):
        known_sizes.known_sizes_bound(system(0.2), EXP10, IID, policy="magic")


@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
def test_known_sizes_ratio_integration_against_quadrature():
    """The exact piecewise integration over rho = X_2/X_1 equals an independent
    adaptive quadrature of E[X_1 g(X_2/X_1)] = int g(rho) dM1(rho) (i.i.d.
    exponential: dM1 = 2 m / (1 + rho)^3 d rho) on random systems (J = 2, 3)."""
    from scipy import integrate

    rng = np.random.default_rng(0)
    for _ in range(4 if CI else 8):
        J = int(rng.integers(2, 4))
        s = two_pools.TwoPoolSystem(
            n=(int(rng.integers(1, 6)), int(rng.integers(1, 6))),
            p=tuple(rng.dirichlet(np.ones(J))),
            speeds=tuple(map(tuple, rng.uniform(0.05, 1.5, size=(2, J)))),
            belief=two_pools.belief_matrix("partial", J, 0.6),
        )
        pc, post = known_sizes.ks_posterior(s)
        w = float(rng.random())
        for policy in threshold.POLICIES:
            phi = known_sizes.ks_phi_factory(s, EXP10, IID, policy)(w)

            def f(rho):
                g = float(known_sizes.ks_costs(s, post, policy, w, [1.0], [rho]).min(axis=0)[0] @ pc)
                return g * 2 * 10 / (1 + rho) ** 3

            ref = (
                integrate.quad(f, 0, 1, limit=2000, epsabs=0, epsrel=1e-11)[0]
                + integrate.quad(f, 1, np.inf, limit=2000, epsabs=0, epsrel=1e-11)[0]
            )
            assert phi == pytest.approx(ref, rel=1e-7)


def test_known_sizes_choice_set_contains_plain_policies():
    """tau = 0 is among the choices: rerouting at 0 = the other pool without
    rerouting; replication at 0 = full redundancy for that job."""
    s = three_types()
    pc, post = known_sizes.ks_posterior(s)
    r = np.asarray(s.speeds)
    n = np.asarray(s.n, dtype=float)
    x0, x1, w = 7.0, 3.0, 0.3
    J = r.shape[1]
    t0, t1 = x0 / r[0], x1 / r[1]
    rer = known_sizes.ks_costs(s, post, "rerouting", w, [x0], [x1])[:, 0, 0]
    rep = known_sizes.ks_costs(s, post, "replication", w, [x0], [x1])[:, 0, 0]
    # index of (start in pool 1, tau = 0) is 0; (start in pool 2, tau = 0) is J + 1
    assert rer[0] == pytest.approx(post[0] @ ((1 - w) / n[1] * t1))
    assert rer[J + 1] == pytest.approx(post[0] @ (w / n[0] * t0))
    both = np.minimum(t0, t1)
    fred = post[0] @ ((w / n[0] + (1 - w) / n[1]) * both)
    assert rep[0] == pytest.approx(fred) and rep[J + 1] == pytest.approx(fred)
    # the largest rational threshold means 'never': zero redundancy in the start pool
    assert rer[int(np.argmax(t0)) + 1] == pytest.approx(post[0] @ (w / n[0] * t0))


@pytest.mark.parametrize("dep", [IDENTICAL, IID], ids=["identical", "iid"])
def test_latency_matches_section6_formulas(dep):
    """Unknown types, finite thresholds: the paper's expressions written out,
    E[T] = sum_i q_i E[T_i] with E[T_i] as in Section 6."""
    s = single_servers(0.3, p=(0.6, 0.4))
    q = 0.35
    alpha = two_pools.assignment_fractions(s, [q])
    tau = (4.0, 9.0)
    lam = 0.03
    p = s.p
    P = [[dependence.pair(dep, EXP10, 1 / s.speeds[i][j], 1 / s.speeds[1 - i][j]) for j in range(2)] for i in range(2)]
    qi = (q, 1 - q)
    # rerouting
    m1 = [
        sum(
            p[j] * (qi[i] * P[i][j].mean_min_A(tau[i]) + qi[1 - i] * P[i][j].mean_A_B_exceeds(tau[1 - i]))
            for j in range(2)
        )
        for i in range(2)
    ]
    m2 = [
        sum(
            p[j] * (qi[i] * P[i][j].second_min_A(tau[i]) + qi[1 - i] * P[i][j].second_A_B_exceeds(tau[1 - i]))
            for j in range(2)
        )
        for i in range(2)
    ]
    W = [queues.mg1_waiting_time(lam, m1[i], m2[i]) for i in range(2)]
    T = [
        W[i]
        + sum(p[j] * (P[i][j].mean_min_A(tau[i]) + P[1 - i][j].mean_A_B_exceeds(tau[i])) for j in range(2))
        + W[1 - i] * sum(p[j] * P[i][j].prob_A_exceeds(tau[i]) for j in range(2))
        for i in range(2)
    ]
    assert threshold.latency_rerouting(s, EXP10, dep, alpha, tau, lam) == pytest.approx(
        qi[0] * T[0] + qi[1] * T[1], rel=1e-12
    )
    # replication
    m1 = [
        sum(
            p[j]
            * (qi[i] * (P[i][j].mean_min_A(tau[i]) + P[i][j].k(1, tau[i])) + qi[1 - i] * P[1 - i][j].k(1, tau[1 - i]))
            for j in range(2)
        )
        for i in range(2)
    ]
    m2 = [
        sum(
            p[j]
            * (qi[i] * (P[i][j].second_min_A(tau[i]) + P[i][j].k(2, tau[i])) + qi[1 - i] * P[1 - i][j].k(2, tau[1 - i]))
            for j in range(2)
        )
        for i in range(2)
    ]
    W = [queues.mg1_waiting_time(lam, m1[i], m2[i]) for i in range(2)]
    T = [W[i] + sum(p[j] * (P[i][j].mean_min_A(tau[i]) + P[i][j].k(1, tau[i])) for j in range(2)) for i in range(2)]
    assert threshold.latency_replication(s, EXP10, dep, alpha, tau, lam) == pytest.approx(
        qi[0] * T[0] + qi[1] * T[1], rel=1e-12
    )
