"""Threshold paper: zero redundancy (eq. 5), full redundancy (eq. 6) and KT.

Closed forms (docs: reference results, section 1; p = 1/2, unknown types, N = 10) and a
Monte Carlo check of E[B_i] by sampling jobs and applying the policy definition.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from straggler.engines.analysis import threshold
from straggler.model import dependence, distributions, two_pools

EXP10 = distributions.from_spec({"family": "exponential", "mean": 10})
PARETO = distributions.from_spec({"family": "pareto", "xm": 1, "alpha": 10 / 9})
IDENTICAL = dependence.from_spec({"kind": "identical"}, {})
IID = dependence.from_spec({"kind": "iid"}, {})


def load_bound(bound, X, dep, N=10):
    return threshold.to_load_units(bound.rate, X, dep, N)


@pytest.mark.parametrize("r", [0.05, 0.1, 0.3, 0.5, 0.8, 1.0])
@pytest.mark.parametrize("X", [EXP10, PARETO], ids=["exp", "pareto"])
def test_zero_redundancy_closed_form(r, X):
    system = two_pools.TwoPoolSystem.affinity(10, r)
    bound = two_pools.optimal_assignment_no_redundancy(system, X, IDENTICAL)
    assert load_bound(bound, X, IDENTICAL) == pytest.approx(2 * r / (1 + r), rel=1e-9)
    assert bound.q[0] == pytest.approx(0.5, abs=1e-9)


@pytest.mark.parametrize("r", [0.05, 0.1, 0.5, 1.0])
@pytest.mark.parametrize(
    "X",
    [
        EXP10,
        PARETO,
        distributions.from_spec({"family": "deterministic", "value": 10}),
        distributions.from_spec({"family": "uniform", "low": 0, "high": 20}),
    ],
    ids=["exp", "pareto", "det", "uniform"],
)
def test_full_redundancy_identical_is_half(r, X):
    system = two_pools.TwoPoolSystem.affinity(10, r)
    bound = threshold.full_redundancy_bound(system, X, IDENTICAL)
    assert load_bound(bound, X, IDENTICAL) == pytest.approx(0.5, rel=1e-9)


@pytest.mark.parametrize("r", [0.05, 0.1, 0.5, 1.0])
def test_full_redundancy_iid_exponential(r):
    system = two_pools.TwoPoolSystem.affinity(10, r)
    bound = threshold.full_redundancy_bound(system, EXP10, IID)
    assert load_bound(bound, EXP10, IID) == pytest.approx((1 + r) / 2, rel=1e-7)


@pytest.mark.parametrize("r", [0.1, 0.5, 1.0])
@pytest.mark.parametrize("X", [EXP10, PARETO], ids=["exp", "pareto"])
def test_known_types_reach_one(r, X):
    system = two_pools.TwoPoolSystem.affinity(10, r, knowledge="known")
    bound = two_pools.optimal_assignment_no_redundancy(system, X, IID)
    assert load_bound(bound, X, IID) == pytest.approx(1.0, rel=1e-9)


def test_partial_knowledge_between_unknown_and_known():
    r = 0.2
    values = []
    for b in [0.5, 0.6, 0.75, 0.9, 1.0]:
        system = two_pools.TwoPoolSystem.affinity(10, r, knowledge="partial", belief=b)
        values.append(load_bound(two_pools.optimal_assignment_no_redundancy(system, EXP10, IID), EXP10, IID))
    assert values[0] == pytest.approx(2 * r / (1 + r), rel=1e-9)  # belief 1/2 = no information
    assert values[-1] == pytest.approx(1.0, rel=1e-9)
    assert all(a <= b + 1e-12 for a, b in zip(values, values[1:]))


@settings(max_examples=40, deadline=None)
@given(
    p1=st.floats(0.05, 0.95),
    r=st.floats(0.05, 1.0),
    n1=st.integers(1, 8),
    n2=st.integers(1, 8),
)
def test_assignment_lp_matches_brute_force(p1, r, n1, n2):
    """The LP optimum equals a fine search over q (unknown types)."""
    system = two_pools.TwoPoolSystem.affinity(n1 + n2, r, p=(p1, 1 - p1), pools=(n1, n2))
    bound = two_pools.optimal_assignment_no_redundancy(system, EXP10, IID)
    qs = np.linspace(0, 1, 20001)
    best = 0.0
    for q in qs:
        work = two_pools.expected_work_zero_redundancy(system, EXP10, IID, two_pools.assignment_fractions(system, [q]))
        best = max(best, 1.0 / max(work[0] / n1, work[1] / n2))
    assert bound.rate >= best * (1 - 1e-9)
    assert bound.rate == pytest.approx(best, rel=1e-3)


def _monte_carlo_work(system, X, dep, q, n, rng, policy):
    """Sample jobs and apply the policy's definition: the processing time spent in
    each pool (ZRed: the one copy's run; FRed: both copies until the first ends)."""
    from straggler.model.dependence import sample_replicas, sampler_args

    args = sampler_args(dep, X)
    out = np.empty(2)
    work = np.zeros((2, n))
    p = np.asarray(system.p)
    for k in range(n):
        j = 0 if rng.random() < p[0] else 1
        sample_replicas(*args, 2, out, rng)
        t = out / np.array([system.speeds[0][j], system.speeds[1][j]])
        if policy == "ZRed":
            i = 0 if rng.random() < q else 1
            work[i, k] = t[i]
        else:
            work[:, k] = min(t[0], t[1])
    return work.mean(axis=1), work.std(axis=1) / math.sqrt(n)


@pytest.mark.parametrize("dep", [IDENTICAL, IID], ids=["identical", "iid"])
@pytest.mark.parametrize("policy", ["ZRed", "FRed"])
@pytest.mark.parametrize("r,q", [(0.1, 0.5), (0.4, 0.3), (1.0, 0.8)])
def test_expected_work_against_monte_carlo(dep, policy, r, q):
    rng = np.random.default_rng(20261129)
    system = two_pools.TwoPoolSystem.affinity(10, r)
    X = distributions.from_spec({"family": "weibull", "shape": 0.7, "scale": 3})
    if policy == "ZRed":
        exact = two_pools.expected_work_zero_redundancy(system, X, dep, two_pools.assignment_fractions(system, [q]))
    else:
        exact = threshold.expected_work_full_redundancy(system, X, dep)
    mean, se = _monte_carlo_work(system, X, dep, q, 40000, rng, policy)
    assert np.all(np.abs(mean - exact) < 4 * se), (mean, exact, se)
