"""Hedge and the cancellation delay in the event engine: the hedge's limits (an infinite
delay is ZRed on the same streams, a zero delay is CoC-d), its budget, and the
cancellation delay against the fast path and in the direction it must move the cost.

Statistical checks: fixed seeds, 8 replications, tolerance 4 CI half-widths of the
difference (95 %, over replications); never loosened.
"""

import math
from dataclasses import replace

import numpy as np
import pytest

from straggler.engines.simulation import encode_model, events, fast, run_replication, simulate
from straggler.engines.simulation import statistics as S
from straggler.engines.simulation.reference import make_model

REPS = 8
K = 4.0
INF = math.inf
DEPS = ["iid", "identical", {"kind": "sx", "slowdown": {"family": "discrete", "values": [1.0, 5.0], "p": [0.8, 0.2]}}]


def _hedge(N=10, load=0.5, d=2, delay=1.0, budget=INF, **kw):
    kw.setdefault("two_pools", False)
    return make_model("Hedge", N, [load], d=d, params={"delay": delay, "max_extra_load": budget}, **kw)


def _sim(model, jobs=40_000, warmup=4_000, seed=5, engine="events"):
    return simulate(
        model, np.random.SeedSequence(seed), jobs=jobs, warmup=warmup, replications=REPS, confidence=0.95, engine=engine
    )


def _one(model, jobs=20_000, seed=3, trace=0, kernel=events.run):
    return run_replication(
        kernel, encode_model(model), float(model.rates()[0]), 0, jobs, np.random.SeedSequence(seed), trace
    )


@pytest.mark.parametrize("discipline", ["FCFS", "PS"])
@pytest.mark.parametrize("dep", DEPS, ids=["iid", "identical", "sx"])
def test_an_infinite_delay_is_zero_redundancy_bit_for_bit(discipline, dep):
    # no timer fires: the hedge draws what ZRed draws (one routing uniform, one size,
    # sx: one slowdown) and nothing else, so every job is ZRed's. A finite delay of 1e9
    # never fires either, but the monitor then allows for d copies a job: its
    # checkpoints (which bring every queue's residuals to their time) fall elsewhere,
    # and under PS a last-bit difference reorders completions; FCFS is unmoved.
    for delay in (INF, 1e9) if discipline == "FCFS" else (INF,):
        hedge = _hedge(d=3, delay=delay, dependence=dep, discipline=discipline)
        zred = make_model("ZRed", 10, [0.5], dependence=dep, discipline=discipline, two_pools=False)
        a, ta = _one(hedge, trace=500)
        b, tb = _one(zred, trace=500)
        np.testing.assert_array_equal(ta, tb)
        assert a.acc[S.A_SUM_T] == b.acc[S.A_SUM_T] and a.acc[S.A_SUM_C] == b.acc[S.A_SUM_C]
        assert a.acc[S.A_SUM_COPIES] == a.acc[S.A_N]


def test_a_delay_of_a_billion_is_zero_redundancy_within_the_ci_under_ps():
    h = _sim(_hedge(d=3, delay=1e9, discipline="PS"))
    z = _sim(make_model("ZRed", 10, [0.5], two_pools=False, discipline="PS"))
    assert np.all(h.copies_mean == 1.0)
    for what in ("latency", "cost"):
        m1, m2 = getattr(h, f"{what}_mean")[0], getattr(z, f"{what}_mean")[0]
        half = math.hypot(getattr(h, f"{what}_mean_ci")[0], getattr(z, f"{what}_mean_ci")[0])
        assert abs(m1 - m2) <= K * half, (what, m1, m2, half)


@pytest.mark.parametrize("discipline", ["FCFS", "PS"])
def test_a_zero_delay_is_cancel_on_complete_with_d_copies(discipline):
    # every copy at the arrival, on servers drawn otherwise than CoC's: equal in law
    for d in (2, 3):
        h = _sim(_hedge(d=d, delay=0.0, discipline=discipline))
        c = _sim(make_model("CoC", 10, [0.5], d=d, two_pools=False, discipline=discipline), engine="events")
        assert np.all(h.copies_mean == d)
        for what in ("latency", "cost"):
            m1, m2 = getattr(h, f"{what}_mean")[0], getattr(c, f"{what}_mean")[0]
            half = math.hypot(getattr(h, f"{what}_mean_ci")[0], getattr(c, f"{what}_mean_ci")[0])
            assert abs(m1 - m2) <= K * half, (what, d, m1, m2, half)


def test_hedges_stay_within_the_budget():
    # each job earns b tokens and a hedge spends one: over a run the hedges are at most
    # b per job plus the bucket's capacity (100 b tokens, at least one)
    for budget in (0.02, 0.1, 0.5):
        acc, _ = _one(_hedge(load=0.7, d=3, delay=0.5, budget=budget), jobs=30_000)
        hedges = acc.acc[S.A_SUM_COPIES] - acc.acc[S.A_N]
        assert hedges <= budget * acc.acc[S.A_N] + max(1.0, 100 * budget)
        # and the budget binds: without it the hedges at the p60 are far more
        assert hedges >= 0.9 * budget * acc.acc[S.A_N]
    free, _ = _one(_hedge(load=0.7, d=3, delay=0.5), jobs=30_000)
    assert free.acc[S.A_SUM_COPIES] / free.acc[S.A_N] > 1.5


def test_a_zero_budget_never_hedges():
    acc, tr = _one(_hedge(delay=0.0, budget=0.0), trace=300)
    zacc, ztr = _one(make_model("ZRed", 10, [0.5], two_pools=False), trace=300)
    np.testing.assert_array_equal(tr, ztr)


def test_the_hedge_is_sent_after_the_delay_counted_from_the_arrival():
    # a lone job on idle servers with deterministic size 3 and delay 1: the hedge starts
    # at 1 and ends at 4, so the first copy (ends at 3) wins; the cost is 3 + 2 = 5
    from straggler.model import distributions as D

    m = _hedge(N=4, load=1e-4, d=2, delay=1.0, size=D.Deterministic(3.0), dependence="identical")
    acc, tr = _one(m, jobs=50, trace=50)
    np.testing.assert_allclose(tr[:, 0], 3.0)
    np.testing.assert_allclose(tr[:, 1], 5.0)
    assert acc.acc[S.A_SUM_COPIES] == 2 * 50


def test_two_pools_send_the_first_hedge_to_the_other_pool():
    from straggler.model import distributions as D

    # pool 2 is 10 times slower for every job: a hedge there after 1 finishes at 11 > 3
    m = make_model(
        "Hedge",
        4,
        [1e-4],
        d=2,
        r_slow=0.1,
        params={"delay": 1.0, "max_extra_load": INF},
        size=D.Deterministic(3.0),
        dependence="identical",
        two_pools=True,
        p=(1.0, 0.0),
    )
    acc, tr = _one(m, jobs=200, trace=200)
    first_fast = np.isclose(tr[:, 0], 3.0)
    assert first_fast.any() and (~first_fast).any()  # jobs start in either pool
    # a job that started in the slow pool (30 long) is saved by its hedge in the fast one
    np.testing.assert_allclose(tr[~first_fast, 0], 4.0)


# ---------------------------------------------------------------- cancellation delay


def _with_delay(model, delay):
    return replace(model, cancel_delay=delay)


@pytest.mark.parametrize("policy", ["CoC", "Hedge", "RIQ", "FJ", "CoS"])
@pytest.mark.parametrize("discipline", ["FCFS", "PS"])
def test_a_zero_cancellation_delay_changes_nothing(policy, discipline):
    if policy in ("RIQ", "FJ", "CoS") and discipline == "FCFS":
        pytest.skip("the fast path's")
    params = {"delay": 0.5, "max_extra_load": INF} if policy == "Hedge" else {}
    m = make_model(policy, 10, [0.6], d=3, params=params, two_pools=False, discipline=discipline)
    a, ta = _one(m, trace=400)
    b, tb = _one(_with_delay(m, 0.0), trace=400)
    np.testing.assert_array_equal(ta, tb)
    np.testing.assert_array_equal(a.acc, b.acc)


@pytest.mark.parametrize("discipline", ["FCFS", "PS"])
def test_the_cost_grows_with_the_cancellation_delay(discipline):
    # common random numbers: the same seed at every delay. CoC's placements do not depend
    # on the delay, so even a small step raises the cost; a hedge fires when its job is
    # late, which the delay changes, so its steps are large against the noise
    for policy, params, delays in (
        ("CoC", {}, (0.0, 0.01, 0.1, 0.5)),
        ("Hedge", {"delay": 0.5, "max_extra_load": INF}, (0.0, 0.1, 0.5)),
    ):
        m = make_model(policy, 10, [0.4], d=2, params=params, two_pools=False, discipline=discipline)
        costs = [_one(_with_delay(m, c), jobs=20_000)[0] for c in delays]
        means = [acc.acc[S.A_SUM_C] / acc.acc[S.A_N] for acc in costs]
        assert all(b > a for a, b in zip(means, means[1:])), (policy, means)


def test_a_lone_job_s_cancelled_copy_costs_the_delay():
    # idle servers, identical copies of deterministic size 1 under CoC and iid exponential
    # under Hedge(0): the loser is in service when the winner ends, so it costs the delay
    from straggler.model import distributions as D

    m = make_model("CoC", 4, [1e-4], d=2, size=D.Exponential(1.0), dependence="iid", two_pools=False)
    a, ta = _one(m, jobs=200, trace=200)
    b, tb = _one(_with_delay(m, 0.25), jobs=200, trace=200)
    np.testing.assert_allclose(tb[:, 0], ta[:, 0])  # the latency does not change
    np.testing.assert_allclose(tb[:, 1], ta[:, 1] + 0.25)


@pytest.mark.parametrize("policy", ["CoC", "FRed", "Rer"])
def test_events_and_the_fast_path_agree_job_by_job_with_a_cancellation_delay(policy):
    if not getattr(fast, "CANCEL_DELAY_SUPPORTED", True):
        pytest.skip("the fast path has no cancellation delay yet")
    params = {"tau": 1.0} if policy == "Rer" else {}
    d = 3 if policy == "CoC" else None
    m = _with_delay(make_model(policy, 10, [0.6], d=d, params=params, dependence="iid"), 0.2)
    enc = encode_model(m)
    lam = float(m.rates()[0])
    seed = np.random.SeedSequence(9)
    _, a = run_replication(fast.run, enc, lam, 0, 4000, seed, trace=4000)
    _, b = run_replication(events.run, enc, lam, 0, 4000, seed, trace=4000)
    np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-9)
