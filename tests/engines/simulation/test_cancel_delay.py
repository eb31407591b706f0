"""The cancellation delay (``system.cancel_delay``): a copy cancelled in service keeps
its server that much longer and its cost counts it; a waiting one is dropped at once.

* the fast path against the event-driven reference, job by job, with a delay, for
  every FCFS policy the fast path runs (both read the streams of
  ``straggler.engines.simulation.streams``; the reference implements the delay literally,
  as a cancelled copy that stays on its server);
* the fast path against an independent recursion written here (plain Python and
  numpy, its own generator): CoC with d = 2 on N = 10 FCFS servers;
* E[C] grows with the delay (common random numbers); a delay of 0 is, bit for bit,
  the model without one.
"""

import math
from dataclasses import replace

import numpy as np
import pytest

from straggler.engines.registry import BY_NAME
from straggler.engines.simulation import encode as E
from straggler.engines.simulation import encode_model, fast, run_replication, simulate
from straggler.engines.simulation import statistics as S
from straggler.engines.simulation.reference import ReferenceSimulator, make_model
from straggler.engines.simulation.streams import replication_streams
from straggler.model import distributions as D
from straggler.model.dependence import SX
from straggler.model.policies import POLICIES

H2 = D.Hyperexponential(p=(0.8, 0.2), rates=(2.0, 0.4))
SX_EXP = SX(D.Exponential(1.0))
SX_BIMODAL = SX(D.Discrete(values=(1.0, 4.0), p=(0.7, 0.3)))

# Every FCFS policy of the fast path that cancels, with a delay. Low loads for CoS and
# FJ cancelling on start: there several sampled servers are idle at an arrival, so
# copies start together and those not kept are cancelled in service.
CASES = {
    "coc-d2": dict(policy="CoC", N=6, d=2, load=0.6, two_pools=False, cd=0.3),
    "coc-d3-2pool-sx": dict(policy="CoC", N=6, d=3, r_slow=0.5, dependence=SX_BIMODAL, load=0.25, cd=0.1),
    "coc-d2-identical": dict(policy="CoC", N=5, d=2, dependence="identical", load=0.3, two_pools=False, cd=0.2),
    "fred-iid": dict(policy="FRed", N=4, r_slow=0.5, load=0.4, cd=0.25),
    "fred-sx-unequal-pools": dict(policy="FRed", N=5, pools=[2, 3], r_slow=0.5, dependence=SX_EXP, load=0.3, cd=0.5),
    "fj-k2-d4": dict(policy="FJ", N=6, d=4, k=2, load=0.25, two_pools=False, cd=0.2),
    "fj-k3-d4-2pool-h2": dict(policy="FJ", N=6, d=4, k=3, r_slow=0.5, size=H2, load=0.25, cd=0.1),
    "fj-early-k2-d4": dict(policy="FJ", N=6, d=4, k=2, early=True, load=0.3, two_pools=False, cd=0.3),
    "fj-early-k1-d3-sx": dict(
        policy="FJ", N=5, d=3, k=1, early=True, dependence=SX_EXP, load=0.4, two_pools=False, cd=1.0
    ),
    "fj-keep3-k1-d5": dict(policy="FJ", N=6, d=5, k=1, keep=3, load=0.3, two_pools=False, cd=0.2),
    "fj-keep3-k2-d4-2pool": dict(policy="FJ", N=6, d=4, k=2, keep=3, r_slow=0.5, load=0.3, cd=0.4),
    "fj-keep2-k1-identical": dict(
        policy="FJ", N=5, d=5, k=1, keep=2, dependence="identical", load=0.3, two_pools=False, cd=0.2
    ),
    "cos-d2": dict(policy="CoS", N=5, d=2, load=0.5, two_pools=False, cd=0.5),
    "cos-d3-2pool-h2": dict(policy="CoS", N=6, d=3, r_slow=0.4, size=H2, load=0.3, cd=0.2),
    "riq-d2": dict(policy="RIQ", N=6, d=2, load=0.5, two_pools=False, cd=0.3),
    "riq-d3-sx": dict(policy="RIQ", N=6, d=3, dependence=SX_EXP, load=0.3, two_pools=False, cd=0.15),
    "rer-iid": dict(policy="Rer", N=4, r_slow=0.5, tau=(0.5, 0.5), load=0.4, cd=0.3),
    "rer-identical": dict(policy="Rer", N=4, r_slow=0.2, dependence="identical", tau=(0.8, 1.5), load=0.3, cd=0.2),
    "rer-resume": dict(
        policy="Rer", N=4, r_slow=0.5, dependence="identical", tau=(0.5, 1.0), resume=True, load=0.4, cd=0.1
    ),
    "rer-tau0": dict(policy="Rer", N=4, r_slow=1.0, tau=(0.0, np.inf), load=0.3, cd=0.2),
}


def build(case, cd=None):
    """``(model, encoded)`` of a case, with its delay (or ``cd``)."""
    c = dict(case)
    params = {key: c.pop(key) for key in ("k", "early", "keep", "resume") if key in c}
    alpha = c.pop("alpha", None)
    tau = c.pop("tau", None)
    load = c.pop("load")
    delay = c.pop("cd")
    model = make_model(c.pop("policy"), c.pop("N"), [load], params=params, **c)
    model = replace(model, cancel_delay=delay if cd is None else cd)
    return model, encode_model(model, alpha=alpha, tau=tau)


def reference(enc, lam, n, seed):
    """The reference's per-job latency, cost and copies."""
    sim = ReferenceSimulator(enc, lam, replication_streams(seed))
    latency, cost = sim.run(n)
    return latency, cost, sim.copies


# ---------------------------------------------------------------- fast path = reference


@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_equals_reference_job_by_job_with_a_cancellation_delay(name):
    model, enc = build(CASES[name])
    assert enc.cancel_delay == CASES[name]["cd"] > 0
    lam = float(model.rates()[0])
    n = 3000
    seed = np.random.SeedSequence(20250)
    acc, trace = run_replication(fast.run, enc, lam, 0, n, seed, trace=n)
    latency, cost, copies = reference(enc, lam, n, seed)
    # the same jobs: equal up to rounding (the kernel and the reference add a cut
    # copy's cost in different orders)
    np.testing.assert_allclose(trace[:, 0], latency, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(trace[:, 1], cost, rtol=1e-11, atol=1e-12)
    assert acc.acc[S.A_N] == n
    assert acc.acc[S.A_SUM_C] == pytest.approx(cost.sum(), rel=1e-12)
    assert acc.acc[S.A_SUM_COPIES] == copies.sum()
    # the delay is not vacuous here: copies were cancelled in service
    _, cost0, _ = reference(build(CASES[name], cd=0.0)[1], lam, n, seed)
    assert cost.sum() > cost0.sum() + 10 * CASES[name]["cd"]


def test_cases_cover_every_fast_policy_that_cancels():
    fast_policies = {n for n, spec in POLICIES.items() if BY_NAME["fast"].simulates(spec, ("FCFS", "per_server"))}
    cancelling = {n for n in fast_policies if POLICIES[n].cancels}
    assert {c["policy"] for c in CASES.values()} == cancelling
    assert cancelling == {"CoC", "FRed", "FJ", "CoS", "RIQ", "Rer"}
    fj = [c for c in CASES.values() if c["policy"] == "FJ"]
    assert any("early" in c for c in fj) and any("keep" in c for c in fj)
    assert any("early" not in c and "keep" not in c for c in fj)  # plain fork-join


@pytest.mark.parametrize("name", ["coc-d2", "fj-keep3-k1-d5", "rer-iid", "cos-d2"])
def test_warmup_discards_the_first_jobs_with_a_delay(name):
    model, enc = build(CASES[name])
    lam = float(model.rates()[0])
    seed = np.random.SeedSequence(4)
    acc, _ = run_replication(fast.run, enc, lam, 500, 1500, seed)
    latency, cost, _ = reference(enc, lam, 2000, seed)
    assert acc.acc[S.A_N] == 1500
    assert acc.acc[S.A_SUM_T] == pytest.approx(latency[500:].sum(), rel=1e-12)
    assert acc.acc[S.A_SUM_C] == pytest.approx(cost[500:].sum(), rel=1e-12)


def test_a_delay_changes_costs_and_queueing_but_not_the_first_jobs_latency():
    """The first job finds an empty system: its latency is the same with and without a
    delay; a CoC job with both copies started costs the delay more."""
    model, enc = build(CASES["coc-d2"])
    lam = float(model.rates()[0])
    seed = np.random.SeedSequence(9)
    _, with_delay = run_replication(fast.run, enc, lam, 0, 1, seed, trace=1)
    _, without = run_replication(fast.run, build(CASES["coc-d2"], cd=0.0)[1], lam, 0, 1, seed, trace=1)
    assert with_delay[0, 0] == without[0, 0]
    assert with_delay[0, 1] == pytest.approx(without[0, 1] + 0.3, rel=1e-14)


# ---------------------------------------------------------------- an independent reference


def coc2_recursion(N, load, cd, jobs, warmup, seed):
    """CoC with d = 2, i.i.d. exponential(1) copies, N FCFS servers, Poisson arrivals at
    rate load N (load = lambda E[X] / N), cancellation delay cd: per-job latency and cost
    of the measured jobs. Written from the semantics alone: under FCFS a job never
    affects the jobs before it, so each server's free time is all the state. At
    arrival t the copies start at a_i = max(t, free_i) and would end at f_i = a_i + x_i;
    the job is done at c = min f_i; the loser, if it started before c, is cancelled in
    service (its server busy until c + cd, cost c - a + cd), otherwise it never runs."""
    rng = np.random.default_rng(seed)
    total = warmup + jobs
    gaps = rng.exponential(1.0 / (load * N), total).tolist()
    sizes = rng.exponential(1.0, (total, 2)).tolist()
    first = rng.integers(0, N, total).tolist()
    second = rng.integers(0, N - 1, total).tolist()
    free = [0.0] * N
    latency = np.empty(total)
    cost = np.empty(total)
    t = 0.0
    for n in range(total):
        t += gaps[n]
        s1 = first[n]
        s2 = second[n] + (second[n] >= s1)  # uniform over the N - 1 others
        x1, x2 = sizes[n]
        a1 = max(t, free[s1])
        a2 = max(t, free[s2])
        f1 = a1 + x1
        f2 = a2 + x2
        if f1 > f2:  # copy 1 the winner
            s1, s2, a1, a2, f1, f2, x1, x2 = s2, s1, a2, a1, f2, f1, x2, x1
        c = f1
        free[s1] = c
        spent = x1
        if a2 < c:  # the loser was in service: cancelled, held cd longer
            free[s2] = c + cd
            spent += c - a2 + cd
        latency[n] = c - t
        cost[n] = spent
    return latency[warmup:], cost[warmup:]


def mean_ci(samples):
    """Mean and 95 % Student-t half-width of independent replication means."""
    m = np.asarray(samples)
    t975 = {5: 2.776, 6: 2.571, 7: 2.447, 8: 2.365, 9: 2.306, 10: 2.262}[len(m)]
    return float(m.mean()), float(t975 * m.std(ddof=1) / math.sqrt(len(m)))


@pytest.mark.parametrize("load", [0.3, 0.7])
@pytest.mark.parametrize("cd", [0.1, 0.5])
def test_coc2_with_a_delay_matches_an_independent_recursion(load, cd):
    """E[T] and E[C] of the package's simulation against the recursion above (10
    replications each, independent streams). The two estimates are independent, so
    their difference has the standard error sqrt(se_a^2 + se_b^2), and the combined
    95 % half-width is sqrt(ci_a^2 + ci_b^2) (about 2.3 standard errors of the
    difference, t with 9 degrees of freedom). Tolerance: 3 combined half-widths, about
    7 standard errors: a false alarm is out of reach for fixed seeds (measured: the
    differences are within 0.8 combined half-widths), while the errors this checks are
    not: a delay not counted in the cost is 3 (cd = 0.1) to 14 (cd = 0.5) tolerances
    away, one not held on its server leaves E[T] at its cd = 0 value, 4 tolerances away
    at cd = 0.5 (measured, same seeds)."""
    N, reps, jobs, warmup = 10, 10, 20_000, 2_000
    model = replace(make_model("CoC", N, [load], d=2, two_pools=False), cancel_delay=cd)
    res = simulate(model, np.random.SeedSequence(31), jobs, warmup, reps, 0.95)
    assert res.verdict[0] == "stable"
    ours = [coc2_recursion(N, load, cd, jobs, warmup, [1234, r, int(100 * load), int(100 * cd)]) for r in range(reps)]
    for what, k in (("latency", 0), ("cost", 1)):
        mean, ci = mean_ci([o[k].mean() for o in ours])
        sim_mean = float(getattr(res, f"{what}_mean")[0])
        sim_ci = float(getattr(res, f"{what}_mean_ci")[0])
        tol = 3.0 * math.hypot(ci, sim_ci)
        assert abs(sim_mean - mean) <= tol, f"{what}: simulated {sim_mean} +- {sim_ci}, recursion {mean} +- {ci}"


def test_the_independent_recursion_without_a_delay_is_coc2():
    """Sanity of the recursion itself: at low load and no delay, a job is almost always
    alone, so E[T] ~ E[min(X1, X2)] = 1/2 and E[C] ~ 2 E[min] = 1 (exponential)."""
    latency, cost = coc2_recursion(10, 0.01, 0.0, 40_000, 100, 5)
    assert latency.mean() == pytest.approx(0.5, abs=0.02)
    assert cost.mean() == pytest.approx(1.0, abs=0.03)


# ---------------------------------------------------------------- monotone, and 0 is no delay

MONOTONE = {
    "CoC": dict(policy="CoC", N=10, d=2, two_pools=False),
    "FJ": dict(policy="FJ", N=10, d=3, params={"k": 2}, two_pools=False),
    "RIQ": dict(policy="RIQ", N=10, d=3, two_pools=False),
    "CoS": dict(policy="CoS", N=10, d=2, two_pools=False),
}


@pytest.mark.parametrize("name", sorted(MONOTONE))
def test_cost_does_not_decrease_with_the_delay(name):
    """E[C] at delays 0, 0.01, 0.1, 0.5 on one seed (common random numbers: the same
    arrivals, servers and sizes), load 0.3: each step adds cost."""
    spec = dict(MONOTONE[name])
    costs = []
    for cd in (0.0, 0.01, 0.1, 0.5):
        model = make_model(spec["policy"], spec["N"], [0.3], d=spec["d"], params=spec.get("params"), two_pools=False)
        model = replace(model, cancel_delay=cd)
        enc = encode_model(model)
        acc, _ = run_replication(fast.run, enc, float(model.rates()[0]), 1000, 20_000, np.random.SeedSequence(8))
        assert acc.acc[S.A_STABLE] == 1.0
        costs.append(acc.acc[S.A_SUM_C] / acc.acc[S.A_N])
    assert np.all(np.diff(costs) > 0.0), costs


FAST_POLICIES = {
    "ZRed": dict(policy="ZRed", N=4),
    "KT": dict(policy="KT", N=4, r_slow=0.3, knowledge="known"),
    "CoC": dict(policy="CoC", N=6, d=3, r_slow=0.5, dependence=SX_EXP),
    "FRed": dict(policy="FRed", N=4, r_slow=0.5, dependence="identical"),
    "FJ": dict(policy="FJ", N=6, d=4, params={"k": 2}, two_pools=False),
    "FJ-early": dict(policy="FJ", N=6, d=4, params={"k": 2, "early": True}, two_pools=False),
    "FJ-keep": dict(policy="FJ", N=6, d=4, params={"k": 1, "keep": 2}, two_pools=False),
    "CoS": dict(policy="CoS", N=6, d=3, size=H2, two_pools=False),
    "RIQ": dict(policy="RIQ", N=6, d=2, two_pools=False),
    "Rer": dict(policy="Rer", N=4, r_slow=0.5, params={"tau": 0.5}),
}


@pytest.mark.parametrize("name", sorted(FAST_POLICIES))
def test_a_zero_delay_is_bit_for_bit_the_model_without_one(name):
    """A model with cancel_delay = 0 given and one without it (the default) write the
    same accumulators, batch sums, histogram, monitor and trace, bit for bit."""
    spec = dict(FAST_POLICIES[name])
    base = make_model(spec.pop("policy"), spec.pop("N"), [0.3], **spec)
    assert base.cancel_delay == 0.0
    zero = replace(base, cancel_delay=0.0)
    tiny = replace(base, cancel_delay=1e-9)
    outs = []
    for model in (base, zero, tiny):
        enc = encode_model(model, tau=0.5 if name == "Rer" else None)
        lam = float(model.rates()[0])
        acc = S.new_accumulator()
        mon = S.new_monitor(22_000, int(enc.ints[E.I_CHECK]))
        assert enc.cancel_delay == model.cancel_delay
        trace = np.zeros((300, 2))
        fast.run(
            *enc.kernel_args(),
            lam,
            2000,
            20_000,
            (acc.acc, acc.batches, acc.hist, mon, trace, np.zeros(model.N)),
            replication_streams(np.random.SeedSequence(6)),
        )
        assert acc.acc[S.A_STABLE] == 1.0
        outs.append((acc.acc, acc.batches, acc.hist, mon, trace))
    for a, b in zip(outs[0], outs[1]):
        np.testing.assert_array_equal(a, b)
    # a positive delay does change a policy that cuts copies in service
    if POLICIES[base.policy].cancels:
        assert outs[2][0][S.A_SUM_C] != outs[0][0][S.A_SUM_C]


# ---------------------------------------------------------------- the event engine with a delay

# The event engine (PS servers; on FCFS the policies it runs besides the fast path)
# against the reference, which holds a cancelled copy on its server literally: under PS
# it shares the server until its delay of work is done. Every PS policy that cancels.
EVENT_CASES = {
    "ps-coc-d3-sx": dict(policy="CoC", N=6, d=3, r_slow=0.5, dependence=SX_BIMODAL, load=0.2, cd=0.3),
    "ps-fred-identical": dict(policy="FRed", N=4, r_slow=0.3, dependence="identical", load=0.2, cd=0.2),
    "ps-cos-d3": dict(policy="CoS", N=6, d=3, load=0.4, two_pools=False, cd=0.2),
    "ps-riq-d3-sx": dict(policy="RIQ", N=6, d=3, dependence=SX_EXP, load=0.2, two_pools=False, cd=0.3),
    "ps-fj-k2-d4": dict(policy="FJ", N=6, d=4, k=2, load=0.2, two_pools=False, cd=0.1),
    "ps-fj-early-k2-d4": dict(policy="FJ", N=6, d=4, k=2, early=True, load=0.2, two_pools=False, cd=0.3),
    "ps-rer-iid": dict(policy="Rer", N=4, r_slow=0.5, tau=(0.5, 0.5), load=0.3, cd=0.2),
    "ps-rep-sx": dict(policy="Rep", N=6, r_slow=0.5, size=H2, dependence=SX_BIMODAL, tau=(0.5, 1.0), load=0.2, cd=0.3),
    "fcfs-coc-d2": dict(policy="CoC", N=6, d=2, load=0.5, two_pools=False, cd=0.3),
    "fcfs-fred-sx": dict(policy="FRed", N=4, r_slow=0.5, dependence=SX_EXP, load=0.3, cd=0.2),
    "fcfs-rer-resume": dict(
        policy="Rer", N=4, r_slow=0.5, dependence="identical", tau=(0.5, 1.0), resume=True, load=0.4, cd=0.1
    ),
}


@pytest.mark.parametrize("name", sorted(EVENT_CASES))
def test_event_engine_with_a_delay_equals_reference_job_by_job(name):
    from straggler.engines.simulation import events
    from straggler.engines.simulation.reference import PSReferenceSimulator

    case = dict(EVENT_CASES[name])
    discipline = "PS" if name.startswith("ps") else "FCFS"
    model, enc = build({**case, "discipline": discipline})
    assert enc.cancel_delay > 0
    lam = float(model.rates()[0])
    n = 2000
    seed = np.random.SeedSequence(20251)
    acc, trace = run_replication(events.run, enc, lam, 0, n, seed, trace=n)
    simulator = PSReferenceSimulator if discipline == "PS" else ReferenceSimulator
    sim = simulator(enc, lam, replication_streams(seed))
    latency, cost = sim.run(n)
    assert acc.acc[S.A_N] == n
    # the two advance the residuals in different orders: equal up to rounding
    np.testing.assert_allclose(trace[:, 0], latency, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(trace[:, 1], cost, rtol=1e-9, atol=1e-10)
    assert acc.acc[S.A_SUM_COPIES] == sim.copies.sum()


def test_event_cases_cover_every_ps_policy_that_cancels():
    ps = {n for n, spec in POLICIES.items() if BY_NAME["events"].simulates(spec, ("PS", "per_server"))}
    covered = {c["policy"] for name, c in EVENT_CASES.items() if name.startswith("ps")}
    # Hedge's cases: tests/engines/simulation/test_hedge_reference.py
    assert covered == {n for n in ps if POLICIES[n].cancels} - {"Hedge"}
