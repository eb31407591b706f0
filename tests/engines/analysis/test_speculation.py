"""Speculation paper (Anselmi and Walton, arXiv 2104.10426; docs: reference results,
section 2): load with a timeout, Theorem 2's timeout sets, optimal timeouts, the network
loads and SLB's bound."""

import math

import numpy as np
import pytest

from straggler.engines.analysis import speculation as sp
from straggler.model import dependence as dp
from straggler.model import distributions as D

IID, IDENT = dp.IID(), dp.Identical()
ONE = D.Deterministic(1.0)
BIMODAL = D.Discrete((1.0, 10.0), (0.9, 0.1))
SX_BIMODAL = dp.SX(BIMODAL)

# ---------------------------------------------------------------------------------
# L(tau) against Monte Carlo: sample (eta_1, eta_2) and apply the definition
# ---------------------------------------------------------------------------------

FAMILIES = {
    "exponential": D.Exponential(1.0),
    "hyperexponential": D.Hyperexponential((0.9, 0.1), (2.0, 0.2)),
    "lognormal": D.Lognormal(1.0, 1.5),
    "weibull": D.Weibull(0.6, 1.0),
    "pareto": D.Pareto(1.0, 3.0),
    "uniform": D.Uniform(0.0, 2.0),
    "erlang": D.Erlang(3, 1.0),
}
DEPENDENCES = {"identical": IDENT, "iid": IID, "sx_bimodal": SX_BIMODAL}


@pytest.mark.parametrize("dep_name", sorted(DEPENDENCES))
@pytest.mark.parametrize("fam", sorted(FAMILIES))
def test_load_ratio_against_monte_carlo(fam, dep_name):
    X, dep = FAMILIES[fam], DEPENDENCES[dep_name]
    rng = np.random.default_rng(1000 + 10 * sorted(FAMILIES).index(fam) + sorted(DEPENDENCES).index(dep_name))
    n = 200_000
    eta = dp.sample_jobs(dep, X, n, 2, rng)
    e1, e2 = eta[:, 0], eta[:, 1]
    m = dep.replica_mean(X)
    for tau in (0.3 * m, 1.5 * m, 4.0 * m):
        B = np.minimum(e1, tau) + e2 * (e1 > tau)
        est = B.mean() / m
        se = B.std(ddof=1) / math.sqrt(n) / m
        L = sp.load_ratio(tau, X, dep)
        assert abs(L - est) < 4 * se + 1e-12, (fam, dep_name, tau, L, est, se)


def test_load_ratio_monte_carlo_sx_continuous_slowdown():
    """S&X with continuous X and S (the quadrature path of the pair functionals)."""
    X, dep = D.Exponential(1.0), dp.SX(D.Pareto(1.0, 3.0))
    rng = np.random.default_rng(7)
    n = 200_000
    eta = dp.sample_jobs(dep, X, n, 2, rng)
    m = dep.replica_mean(X)
    for tau in (0.5, 3.0):
        B = np.minimum(eta[:, 0], tau) + eta[:, 1] * (eta[:, 0] > tau)
        se = B.std(ddof=1) / math.sqrt(n) / m
        assert abs(sp.load_ratio(tau, X, dep) - B.mean() / m) < 4 * se


def test_identical_replicas_never_gain_and_resume_is_neutral():
    X = D.Pareto(1.0, 1.5)
    for tau in (0.5, 1.0, 2.0, 10.0, 100.0):
        assert sp.load_ratio(tau, X, IDENT) >= 1.0 - 1e-12
        assert not sp.gains_capacity(tau, X, IDENT)
        assert sp.load_ratio(tau, X, IID, resume=True) == pytest.approx(1.0, abs=1e-12)
    assert sp.load_ratio(math.inf, X, IID) == 1.0
    assert sp.optimal_timeout(X, IDENT).tau == math.inf
    assert sp.timeout_set(X, IDENT) == []
    assert sp.timeout_set(X, IID, resume=True) == []


def test_theorem2_terms_decide_gain():
    cases = [
        (D.Pareto(1.0, 1.5), IID),
        (ONE, SX_BIMODAL),
        (D.Lognormal(1.0, 2.0), SX_BIMODAL),
        (D.Erlang(2, 1.0), IID),
        (D.Hyperexponential((0.5, 0.5), (1.0, 0.1)), IID),
    ]
    for X, dep in cases:
        for tau in np.geomspace(0.05, 50, 23):
            lhs, rhs = sp.theorem2_terms(tau, X, dep)
            L = sp.load_ratio(tau, X, dep)
            if abs(L - 1.0) > 1e-9:
                assert (lhs < rhs) == (L < 1.0) == sp.gains_capacity(tau, X, dep)
    assert all(math.isnan(v) for v in sp.theorem2_terms(20.0, ONE, SX_BIMODAL))


# ---------------------------------------------------------------------------------
# The timeout sets of section 5.1 (X = 1)
# ---------------------------------------------------------------------------------


def _same_intervals(a, b, rel=1e-9):
    assert len(a) == len(b), (a, b)
    for (l1, h1), (l2, h2) in zip(a, b):
        for u, v in ((l1, l2), (h1, h2)):
            if math.isinf(v) or v == 0.0:
                assert u == v, (a, b)
            else:
                assert u == pytest.approx(v, rel=rel), (a, b)


@pytest.mark.parametrize("s_m,s_M,p", [(1.0, 1000.0, 0.99), (1.0, 10.0, 0.9), (2.0, 50.0, 0.5), (1.0, 3.0, 0.4)])
def test_bimodal_timeout_set(s_m, s_M, p):
    S = D.Discrete((s_m, s_M), (p, 1.0 - p))
    closed = sp.timeout_set_closed_form(S)
    hi = (s_M - s_m) * p
    assert closed == ([(s_m, hi)] if hi > s_m else [])
    _same_intervals(sp.timeout_set(ONE, dp.SX(S)), closed)
    _same_intervals(sp.timeout_set(S, IID), closed)  # X = 1 and i.i.d. S is the same model
    if closed:
        mid = 0.5 * (s_m + hi)
        assert sp.gains_capacity(mid, ONE, dp.SX(S))
        assert not sp.gains_capacity(hi * 1.001, ONE, dp.SX(S))
        assert not sp.gains_capacity(s_m * 0.999, ONE, dp.SX(S))


@pytest.mark.parametrize(
    "p,rates", [((0.99, 0.01), (1.0, 1 / 99)), ((0.5, 0.5), (1.0, 0.1)), ((0.3, 0.3, 0.4), (5.0, 1.0, 0.2))]
)
def test_hyperexponential_gains_for_every_timeout(p, rates):
    S = D.Hyperexponential(p, rates)
    assert sp.timeout_set_closed_form(S) == [(0.0, math.inf)]
    assert sp.timeout_set(ONE, dp.SX(S)) == [(0.0, math.inf)]
    assert sp.timeout_set(S, IID) == [(0.0, math.inf)]
    for tau in np.geomspace(1e-3, 1e2, 11):  # beyond, D(tau) ~ P(S > tau) is below round-off
        assert sp.gains_capacity(tau, S, IID)


@pytest.mark.parametrize("alpha,s_m", [(1.1, 1.0), (1.5, 1.0), (2.5, 2.0)])
def test_pareto_gains_beyond_alpha_sm(alpha, s_m):
    S = D.Pareto(s_m, alpha)
    assert sp.timeout_set_closed_form(S) == [(alpha * s_m, math.inf)]
    _same_intervals(sp.timeout_set(S, IID), [(alpha * s_m, math.inf)])
    _same_intervals(sp.timeout_set(ONE, dp.SX(S)), [(alpha * s_m, math.inf)])


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_erlang_never_gains(k):
    S = D.Erlang(k, 1.0)
    assert sp.timeout_set_closed_form(S) == []
    assert sp.timeout_set(S, IID) == []
    assert sp.timeout_set(ONE, dp.SX(S)) == []
    assert sp.optimal_timeout(S, IID).tau == math.inf


def test_closed_form_rejects_other_laws():
    with pytest.raises(ValueError, match="timeout_set"):
        sp.timeout_set_closed_form(D.Lognormal(1.0, 1.0))


# ---------------------------------------------------------------------------------
# Optimal timeout: hazard-rate rule (Definition 2) against direct minimisation of L
# ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "X,dep",
    [
        (D.Pareto(1.0, 1.5), IID),
        (D.Pareto(2.0, 1.2), IID),
        (D.Hyperexponential((0.99, 0.01), (1.0, 1 / 99)), IID),
        (D.Weibull(0.5, 1.0), IID),
        (D.Lognormal(1.0, 2.0), IID),
        (ONE, dp.SX(D.Hyperexponential((0.9, 0.1), (2.0, 0.2)))),
        (D.Deterministic(3.0), dp.SX(D.Pareto(1.0, 1.5))),
    ],
)
def test_hazard_rule_matches_minimisation(X, dep):
    h = sp.hazard_rule_timeout(X, dep)
    opt = sp.optimal_timeout(X, dep)
    assert math.isfinite(h) and opt.L < 1
    assert h == pytest.approx(opt.tau, rel=1e-5)
    assert sp.load_ratio(h, X, dep) == pytest.approx(opt.L, abs=1e-10)
    # and it is a minimum: nearby timeouts give a larger load
    for f in (0.9, 1.1):
        assert sp.load_ratio(h * f, X, dep) > sp.load_ratio(h, X, dep)


def test_pareto_optimal_timeout_closed_form():
    # h(t) = alpha / t = (alpha - 1) / (alpha x_m) = 1 / E[eta_2]
    for alpha, xm in ((1.5, 1.0), (1.1, 1.0), (2.5, 3.0)):
        tau = alpha**2 * xm / (alpha - 1)
        assert sp.hazard_rule_timeout(D.Pareto(xm, alpha), IID) == pytest.approx(tau, rel=1e-10)


def test_bimodal_optimum_is_the_small_atom():
    # L(tau) = (p s_m + (1-p) tau + (1-p) E[S]) / E[S] on [s_m, s_M): least at tau = s_m
    opt = sp.optimal_timeout(ONE, SX_BIMODAL)
    ES = BIMODAL.mean()
    assert opt.tau == 1.0
    assert opt.L == pytest.approx((0.9 * 1.0 + 0.1 * 1.0 + 0.1 * ES) / ES, rel=1e-12)
    with pytest.raises(ValueError, match="density"):
        sp.hazard_rule_timeout(ONE, SX_BIMODAL)
    with pytest.raises(ValueError, match="independent"):
        sp.hazard_rule_timeout(D.Exponential(1.0), SX_BIMODAL)


def test_optimum_dependent_sx_beats_grid():
    """With dependent replicas (S&X, random X) only the minimisation applies."""
    X, dep = D.Exponential(1.0), SX_BIMODAL
    opt = sp.optimal_timeout(X, dep)
    taus = np.geomspace(0.01, 200, 400)
    assert opt.L <= sp.load_ratio_curve(taus, X, dep).min() + 1e-12
    assert opt.L < 1


# ---------------------------------------------------------------------------------
# The network loads (eq. 11) and the stability bound (Theorem 1)
# ---------------------------------------------------------------------------------


def test_network_loads_homogeneous_reduction():
    X = D.Pareto(1.0, 1.5)
    N, lam, tau = 5, 2.0, 4.5
    rho = sp.network_loads(lam, X, IID, [1.0] * N, [tau] * N, [1 / N] * N, [1 / N] * N)
    assert rho == pytest.approx(np.full(N, sp.nominal_load(lam, tau, X, IID, N)), rel=1e-12)
    assert sp.network_stability_rate(X, IID, [1.0] * N, [tau] * N, [1 / N] * N, [1 / N] * N) == pytest.approx(
        sp.stability_bound(X, IID, N, tau=tau).rate, rel=1e-12
    )


@pytest.mark.parametrize("resume", [False, True])
def test_network_loads_heterogeneous_by_hand(resume):
    """Exp(1) work, i.i.d.: E[min(eta/mu, t)] = (1 - e^{-mu t}) / mu,
    E[(eta_2/mu_i) 1{eta_1 > mu_j t_j}] = e^{-mu_j t_j} / mu_i, and with resume
    E[(eta_1 - mu_j t_j)^+] / mu_i = e^{-mu_j t_j} / mu_i as well (memoryless)."""
    mu = np.array([1.0, 2.0, 0.5])
    t = np.array([1.0, 0.5, math.inf])
    p0 = np.array([0.3, 0.5, 0.2])
    p1 = np.array([0.6, 0.1, 0.3])
    lam = 0.7
    first = (1 - np.exp(-mu * t)) / mu
    c = np.exp(-mu * t)
    expected = lam * (p0 * first + p1 * (p0 @ c) / mu)
    got = sp.network_loads(lam, D.Exponential(1.0), IID, mu, t, p0, p1, resume=resume)
    assert got == pytest.approx(expected, rel=1e-12)


def test_network_resume_differs_from_restart():
    X, mu, t = D.Pareto(1.0, 1.5), [1.0, 3.0], [3.0, 3.0]
    a = sp.network_loads(1.0, X, IID, mu, t, [0.5, 0.5], [0.5, 0.5])
    b = sp.network_loads(1.0, X, IID, mu, t, [0.5, 0.5], [0.5, 0.5], resume=True)
    assert not np.allclose(a, b)
    with pytest.raises(ValueError, match="sum to 1"):
        sp.network_loads(1.0, X, IID, mu, t, [0.5, 0.6], [0.5, 0.5])


def test_stability_bound_units_and_kinds():
    X, N = D.Pareto(1.0, 1.5), 10
    b = sp.stability_bound(X, IID, N)
    opt = sp.optimal_timeout(X, IID)
    assert b.tau == opt.tau and b.L == opt.L
    assert b.rate == pytest.approx(N / sp.expected_work(b.tau, X, IID), rel=1e-12)
    assert b.load == pytest.approx(b.rate * X.mean() / N, rel=1e-12)
    assert b.load == pytest.approx(1 / b.L, rel=1e-12) and b.load > 1
    assert b.kind == "exact"
    assert sp.stability_bound(X, IID, N, discipline="PS").kind == "necessary"
    none = sp.stability_bound(D.Erlang(3, 1.0), IID, N)
    assert none.tau == math.inf and none.load == 1.0
    low = sp.stability_bound(X, IID, N, tau=0.5)
    assert low.load < 1 and "violates" in low.note


def test_latency_approx_limits_and_threshold_consistency():
    X = D.Exponential(1.0)
    # tau = inf: random dispatch, M/M/1 per queue with rate lam / N
    assert sp.latency_approx(5.0, math.inf, X, IID, 10) == pytest.approx(1 / (1 - 0.5))
    # on two unit-speed single-server pools, random re-routing and the threshold
    # paper's rerouting to the other pool give the same loads and approximation
    from straggler.engines.analysis import threshold as th
    from straggler.model import two_pools

    Y = D.Hyperexponential((0.9, 0.1), (2.0, 0.2))
    system = two_pools.TwoPoolSystem.affinity(2, 1.0)
    alpha = two_pools.assignment_fractions(system, [0.5])
    for lam, tau in ((0.3, 1.0), (0.8, 3.0)):
        ref = th.latency_rerouting(system, Y, IID, alpha, (tau, tau), lam)
        assert sp.latency_approx(lam, tau, Y, IID, 2) == pytest.approx(ref, rel=1e-10)
    assert sp.latency_approx(100.0, 1.0, Y, IID, 2) == math.inf
