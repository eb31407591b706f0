"""Hedge in the pure-Python reference simulators (FCFS and PS per server).

Reference-level properties: with an infinite delay, no budget or d = 1 it is ZRed, job by
job on one seed (the same routing, sizes and nothing else drawn); a job alone in the
system gets what its copies' sizes say; the hedges stay within the budget; with two pools
the first hedge goes to the other pool, and every copy to a server without one. Then the
event engine against the reference, job by job (skipped while the engine does not
simulate Hedge).
"""

import math
from dataclasses import replace

import numpy as np
import pytest

from straggler.engines.simulation import encode as E
from straggler.engines.simulation import encode_model, run_replication
from straggler.engines.simulation import statistics as S
from straggler.engines.simulation.reference import PSReferenceSimulator, ReferenceSimulator, make_model
from straggler.engines.simulation.streams import PyStreams, replication_streams
from straggler.model import distributions as D
from straggler.model.dependence import SX

SX_EXP = SX(D.Exponential(1.0))
H2 = D.Hyperexponential(p=(0.8, 0.2), rates=(2.0, 0.4))
SIMULATORS = {"FCFS": ReferenceSimulator, "PS": PSReferenceSimulator}


def hedge(N, load, d=3, delay=0.5, budget=math.inf, cancel_delay=0.0, **kw):
    model = make_model("Hedge", N, [load], d=d, params={"delay": delay, "max_extra_load": budget}, **kw)
    return replace(model, cancel_delay=cancel_delay)


def zred(load, cancel_delay=0.0, **kw):
    return replace(make_model("ZRed", loads=[load], **kw), cancel_delay=cancel_delay)


def run(model, n, seed):
    """``(latency, cost, copies, simulator)`` of the reference for ``model``'s setting."""
    enc = encode_model(model)
    sim = SIMULATORS[model.discipline](enc, float(model.rates()[0]), replication_streams(seed))
    latency, cost = sim.run(n)
    return latency, cost, sim.copies, sim


def assert_same_jobs(a, b, exact):
    if exact:
        np.testing.assert_array_equal(a, b)
    else:  # sx: the slowdown and the speed multiply in another order; PS: the servers are
        # advanced to the timers' times too, in more steps
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


# ---------------------------------------------------------------- ZRed in disguise

SETTINGS = {
    "one-pool-iid": dict(N=5, two_pools=False),
    "two-pools-identical-h2": dict(N=6, r_slow=0.4, dependence="identical", size=H2),
    "two-pools-sx": dict(N=4, r_slow=0.5, dependence=SX_EXP),
    "one-pool-sx-delay": dict(N=5, two_pools=False, dependence=SX_EXP, cancel_delay=0.3),
}


@pytest.mark.parametrize("discipline", ["FCFS", "PS"])
@pytest.mark.parametrize("name", sorted(SETTINGS))
@pytest.mark.parametrize("variant", [dict(delay=math.inf), dict(delay=0.2, budget=0.0), dict(d=1, delay=0.0)])
def test_hedge_without_hedges_is_zred_job_by_job(discipline, name, variant):
    """delay = inf, a budget of 0, or d = 1: no copy is ever launched, and the job is
    ZRed's (the same pool, server and size, on the same streams: a timer that finds no
    token draws nothing)."""
    setting = dict(SETTINGS[name], discipline=discipline)
    n = 600
    seed = np.random.SeedSequence(11)
    lat_h, cost_h, copies, sim = run(hedge(load=0.6, **setting, **variant), n, seed)
    lat_z, cost_z, copies_z, _ = run(zred(0.6, **setting), n, seed)
    exact = discipline == "FCFS" and setting.get("dependence") != SX_EXP
    assert np.all(copies == 1) and np.all(copies_z == 1)
    assert_same_jobs(lat_h, lat_z, exact)
    assert_same_jobs(cost_h, cost_z, exact)


# ---------------------------------------------------------------- one job alone


@pytest.mark.parametrize("discipline", ["FCFS", "PS"])
@pytest.mark.parametrize("dependence", ["iid", "identical", "sx"])
def test_a_job_alone_is_the_min_over_its_launched_copies(discipline, dependence):
    """A single job in an empty system: copy q (0-based) is launched at q delay if the
    job is not done by then, and served at once (idle servers, one pool of speed 1);
    latency = min_q (q delay + x_q); cost = the winner's size plus, for each other copy,
    its service until the completion and the cancellation delay."""
    delay, cd, d = 0.4, 0.25, 3
    dep = SX_EXP if dependence == "sx" else dependence
    for s in range(40):
        seed = np.random.SeedSequence(100 + s)
        model = hedge(
            N=5, load=0.5, d=d, delay=delay, two_pools=False, dependence=dep, discipline=discipline, cancel_delay=cd
        )
        latency, cost, copies, _ = run(model, 1, seed)
        # the job's sizes, read from the streams in the contract's order
        enc = encode_model(model)
        streams = PyStreams(
            replication_streams(seed), enc.ints[E.I_XCODE], enc.x_params, enc.ints[E.I_SCODE], enc.s_params
        )
        x = streams.size()
        sizes = [x * streams.slowdown() if dependence == "sx" else x]
        for _ in range(d - 1):
            if dependence == "iid":
                sizes.append(streams.extra_size())
            elif dependence == "sx":
                sizes.append(x * streams.slowdown())
            else:
                sizes.append(x)
        end = math.inf
        launched = 0
        for q in range(d):
            if q * delay > end:  # done before this timer (a tie: the timer comes first)
                break
            launched += 1
            end = min(end, q * delay + sizes[q])
        winner = min(range(launched), key=lambda q: q * delay + sizes[q])
        expected = sizes[winner] + sum(end - q * delay + cd for q in range(launched) if q != winner)
        assert copies[0] == launched
        assert latency[0] == pytest.approx(end, rel=1e-12)
        assert cost[0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("discipline", ["FCFS", "PS"])
def test_a_timer_at_the_completion_time_launches_a_copy_that_never_runs(discipline):
    """Deterministic sizes 1 and delay 1, a job alone: its timer fires at its first
    copy's completion time, and comes first: a copy is launched (a copy of the job),
    reaches an idle server and is cancelled at once, before any service: like a copy
    that had not started, it costs nothing (no cancellation delay)."""
    model = hedge(
        N=5,
        load=0.001,
        d=3,
        delay=1.0,
        two_pools=False,
        size=D.Deterministic(1.0),
        discipline=discipline,
        cancel_delay=0.25,
    )
    latency, cost, copies, _ = run(model, 3, np.random.SeedSequence(1))
    np.testing.assert_array_equal(copies, [2, 2, 2])
    np.testing.assert_allclose(latency, 1.0, rtol=1e-12)
    np.testing.assert_allclose(cost, 1.0, rtol=1e-12)


# ---------------------------------------------------------------- budget and servers


@pytest.mark.parametrize("discipline", ["FCFS", "PS"])
@pytest.mark.parametrize("budget", [0.05, 0.3, 1.5])
def test_the_hedges_stay_within_the_budget(discipline, budget):
    """Each arrival earns ``budget`` tokens, a hedge spends one, the bucket starts empty:
    the hedges (copies beyond the first) are at most n budget. With a short delay nearly
    every job wants d - 1 = 2 hedges, so the budget binds: the hedges are then the tokens
    earned, less those lost at the cap and those left."""
    n = 2000
    lat, cost, copies, sim = run(
        hedge(N=6, load=0.4, d=3, delay=0.05, budget=budget, two_pools=False, discipline=discipline),
        n,
        np.random.SeedSequence(5),
    )
    hedges = copies.sum() - n
    assert np.all((copies >= 1) & (copies <= 3))
    assert hedges <= n * budget + 1e-9
    assert hedges >= min(n * budget, 2 * n * 0.9) - sim.h_cap - 1
    assert sim.h_cap == max(1.0, 100.0 * budget)


@pytest.mark.parametrize("discipline", ["FCFS", "PS"])
@pytest.mark.parametrize("two_pools", [False, True])
def test_copies_go_to_distinct_servers_the_first_hedge_to_the_other_pool(discipline, two_pools):
    model = hedge(N=6, load=0.5, d=4, delay=0.2, two_pools=two_pools, r_slow=0.5, discipline=discipline)
    _, _, copies, sim = run(model, 800, np.random.SeedSequence(8))
    p1 = int(encode_model(model).ints[E.I_POOL1])  # the first server of pool 1
    hedged = 0
    for job, c in zip(sim.jobs, copies):
        assert len(job.servers) == c == len(set(job.servers))
        if c > 1:
            hedged += 1
            if two_pools:
                assert (job.servers[0] < p1) != (job.servers[1] < p1)
    assert hedged > 100
    if not two_pools:  # the hedges spread over the servers
        seen = np.bincount([s for job in sim.jobs for s in job.servers[1:]], minlength=6)
        assert np.all(seen > 0.5 * seen.mean())


@pytest.mark.parametrize("discipline", ["FCFS", "PS"])
def test_a_zero_delay_launches_every_copy_at_arrival(discipline):
    model = hedge(N=6, load=0.5, d=3, delay=0.0, two_pools=False, discipline=discipline)
    latency, _, copies, sim = run(model, 500, np.random.SeedSequence(2))
    assert np.all(copies == 3)
    assert np.all(latency > 0)


def test_a_cancellation_delay_costs_the_copies_in_service():
    """On one seed, the delay only adds to the cost of jobs whose copies were cancelled
    in service (and, through the busier servers, to the later jobs' latencies)."""
    base = dict(N=6, load=0.3, d=2, delay=0.3, two_pools=False)
    seed = np.random.SeedSequence(4)
    lat0, cost0, copies0, _ = run(hedge(**base), 1000, seed)
    lat1, cost1, copies1, _ = run(hedge(**base, cancel_delay=0.5), 1000, seed)
    assert lat0[0] == lat1[0]
    assert cost1.mean() > cost0.mean() + 0.1 * (copies0.mean() - 1)


# ---------------------------------------------------------------- the event engine

EVENT_CASES = {
    "fcfs-one-pool-iid": dict(N=5, two_pools=False, d=3, delay=0.5, load=0.6),
    "fcfs-two-pools-sx-budget": dict(N=6, r_slow=0.5, dependence=SX_EXP, d=3, delay=0.3, budget=0.2, load=0.5),
    "fcfs-identical-delay0-cd": dict(N=5, two_pools=False, dependence="identical", d=2, delay=0.0, load=0.3),
    "fcfs-two-pools-h2-cd": dict(N=6, r_slow=0.4, size=H2, d=4, delay=1.0, budget=0.5, load=0.5, cancel_delay=0.2),
    "ps-one-pool-iid-cd": dict(N=5, two_pools=False, d=3, delay=0.5, load=0.5, cancel_delay=0.3),
    "ps-two-pools-identical": dict(N=6, r_slow=0.3, dependence="identical", d=2, delay=0.8, load=0.4),
    "ps-sx-budget": dict(N=6, two_pools=False, dependence=SX_EXP, d=3, delay=0.2, budget=0.1, load=0.4),
    # a timer at the first copy's completion time (deterministic sizes, delay = size)
    "fcfs-deterministic-tie-cd": dict(
        N=5, two_pools=False, size=D.Deterministic(1.0), d=3, delay=1.0, load=0.3, cancel_delay=0.2
    ),
    "ps-deterministic-tie-cd": dict(
        N=5, two_pools=False, size=D.Deterministic(1.0), d=3, delay=1.0, load=0.2, cancel_delay=0.2
    ),
}
#: The two deterministic cases put a copy's cancellation at the instant it reaches
#: service: every engine drops it at no cost, as the fast path does a replica that would
#: start at its job's completion time.


def _events_simulate_hedge():
    """The event engine's kernel, or None while it does not simulate Hedge."""
    try:
        from straggler.engines.simulation import events

        enc = encode_model(hedge(N=4, load=0.3, d=2, delay=0.1, two_pools=False))
        acc, _ = run_replication(events.run, enc, 1.0, 0, 50, np.random.SeedSequence(0))
    except Exception:  # noqa: BLE001 (an engine without Hedge may fail in any way)
        return None
    if acc.acc[S.A_N] != 50 or acc.acc[S.A_SUM_COPIES] <= 50:
        return None
    return events.run


@pytest.mark.parametrize(
    "name",
    [n for n in sorted(EVENT_CASES)],
)
def test_event_engine_hedge_equals_reference_job_by_job(name):
    kernel = _events_simulate_hedge()
    if kernel is None:
        pytest.skip("the event engine does not simulate Hedge yet")
    case = dict(EVENT_CASES[name])
    discipline = "PS" if name.startswith("ps") else "FCFS"
    load = case.pop("load")
    model = hedge(load=load, discipline=discipline, **case)
    enc = encode_model(model)
    lam = float(model.rates()[0])
    n = 2000
    seed = np.random.SeedSequence(20242)
    acc, trace = run_replication(kernel, enc, lam, 0, n, seed, trace=n)
    latency, cost, copies, _ = run(model, n, seed)
    assert acc.acc[S.A_N] == n
    np.testing.assert_allclose(trace[:, 0], latency, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(trace[:, 1], cost, rtol=1e-9, atol=1e-10)
    assert acc.acc[S.A_SUM_COPIES] == copies.sum()
