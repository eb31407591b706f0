"""The fast kernel against the event-driven reference, job by job, on one stream.

Both read the random streams of ``straggler.engines.simulation.streams`` in the order of
the contract in ``straggler.engines.simulation.contract`` (the kernel in blocks, the
reference one value at a time); their
dynamics are implemented independently (workload recursion versus explicit
queues and events), so equal per-job latencies and costs check the recursion of
every policy.
"""

import numpy as np
import pytest

from straggler.engines.registry import BY_NAME
from straggler.engines.simulation import encode_model, engine_for, fast, run_replication
from straggler.engines.simulation.reference import make_model, simulate_reference
from straggler.engines.simulation.streams import replication_streams
from straggler.model import distributions as D
from straggler.model.dependence import SX
from straggler.model.policies import POLICIES

H2 = D.Hyperexponential(p=(0.8, 0.2), rates=(2.0, 0.4))
SX_BIMODAL = SX(D.Discrete(values=(1.0, 4.0), p=(0.7, 0.3)))
SX_EXP = SX(D.Exponential(1.0))

CASES = {
    "zred-1pool": dict(policy="ZRed", N=3, load=0.8),
    "zred-2pool-h2": dict(policy="ZRed", N=4, r_slow=0.3, size=H2, load=0.7, alpha=[[0.7, 0.2], [0.3, 0.8]]),
    "kt-known": dict(policy="KT", N=4, r_slow=0.2, load=0.8, knowledge="known"),
    "fred-identical": dict(policy="FRed", N=4, r_slow=0.1, dependence="identical", load=0.35),
    "fred-iid-unequal-pools": dict(policy="FRed", N=5, pools=[2, 3], r_slow=0.5, load=0.6),
    "fred-sx": dict(policy="FRed", N=4, r_slow=0.5, dependence=SX_EXP, load=0.4),
    "coc-d2": dict(policy="CoC", N=6, d=2, load=0.8, two_pools=False),
    "coc-d3-2pool-sx": dict(policy="CoC", N=6, d=3, r_slow=0.5, dependence=SX_BIMODAL, load=0.3),
    "coc-dN": dict(policy="CoC", N=4, d=4, load=0.8, two_pools=False),
    "cos-d2": dict(policy="CoS", N=5, d=2, load=0.85, two_pools=False),
    "cos-d3-2pool": dict(policy="CoS", N=6, d=3, r_slow=0.4, size=H2, load=0.7),
    "riq-d2": dict(policy="RIQ", N=6, d=2, load=0.8, two_pools=False),
    "riq-d3-sx": dict(policy="RIQ", N=6, d=3, dependence=SX_EXP, load=0.6, two_pools=False),
    "fj-k2-d4": dict(policy="FJ", N=6, d=4, k=2, load=0.5, two_pools=False),
    "fj-k3-d4-2pool": dict(policy="FJ", N=6, d=4, k=3, r_slow=0.5, load=0.3),
    "fj-early-k2-d4": dict(policy="FJ", N=6, d=4, k=2, early=True, load=0.8, two_pools=False),
    "fj-early-k1": dict(policy="FJ", N=5, d=3, k=1, early=True, load=0.8, two_pools=False),
    "fj-early-k3-sx": dict(policy="FJ", N=6, d=5, k=3, early=True, dependence=SX_EXP, load=0.5, two_pools=False),
    "fj-keep3-k1-d5": dict(policy="FJ", N=6, d=5, k=1, keep=3, load=0.6, two_pools=False),
    "fj-keep3-k2-d4-2pool": dict(policy="FJ", N=6, d=4, k=2, keep=3, r_slow=0.5, load=0.5),
    "fj-keep4-k2-d6-sx": dict(policy="FJ", N=6, d=6, k=2, keep=4, dependence=SX_EXP, load=0.5, two_pools=False),
    "fj-keep2-k1-identical": dict(
        policy="FJ", N=5, d=5, k=1, keep=2, dependence="identical", load=0.7, two_pools=False
    ),
    "rer-identical": dict(policy="Rer", N=4, r_slow=0.2, dependence="identical", tau=(0.8, 1.5), load=0.5),
    "rer-iid": dict(policy="Rer", N=4, r_slow=0.5, tau=(0.5, 0.5), load=0.6),
    "rer-sx-pareto": dict(
        policy="Rer", N=6, r_slow=0.7, size=D.Pareto(xm=0.5, alpha=2.5), dependence=SX_BIMODAL, tau=(1.0, 2.0), load=0.5
    ),
    "rer-resume": dict(policy="Rer", N=4, r_slow=0.5, dependence="identical", tau=(0.5, 1.0), resume=True, load=0.6),
    "rer-tau0": dict(policy="Rer", N=4, r_slow=1.0, tau=(0.0, np.inf), load=0.4),
}


def build(case):
    c = dict(case)
    params = {}
    for key in ("k", "early", "keep", "resume", "delay", "max_extra_load"):
        if key in c:
            params[key] = c.pop(key)
    alpha = c.pop("alpha", None)
    tau = c.pop("tau", None)
    load = c.pop("load")
    model = make_model(c.pop("policy"), c.pop("N"), [load], params=params, **c)
    return model, encode_model(model, alpha=alpha, tau=tau)


@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_equals_reference_job_by_job(name):
    model, enc = build(CASES[name])
    lam = float(model.rates()[0])
    n = 3000
    seed = np.random.SeedSequence(20240)
    acc, trace = run_replication(fast.run, enc, lam, 0, n, seed, trace=n)
    latency, cost = simulate_reference(enc, lam, n, replication_streams(seed))
    np.testing.assert_allclose(trace[:, 0], latency, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(trace[:, 1], cost, rtol=1e-11, atol=1e-12)
    # the accumulators hold exactly these jobs
    assert acc.acc[0] == n
    assert acc.acc[1] == pytest.approx(latency.sum(), rel=1e-12)
    assert acc.acc[2] == pytest.approx(cost.sum(), rel=1e-12)


def test_reference_cases_cover_every_fast_policy():
    assert {c["policy"] for c in CASES.values()} == {
        n for n, spec in POLICIES.items() if BY_NAME["fast"].simulates(spec, ("FCFS", "per_server"))
    }


@pytest.mark.parametrize("name", ["coc-d2", "rer-iid", "fj-early-k2-d4"])
def test_warmup_discards_the_first_jobs(name):
    model, enc = build(CASES[name])
    lam = float(model.rates()[0])
    seed = np.random.SeedSequence(3)
    acc, trace = run_replication(fast.run, enc, lam, 500, 1500, seed, trace=2000)
    latency, cost = simulate_reference(enc, lam, 2000, replication_streams(seed))
    assert acc.acc[0] == 1500
    assert acc.acc[1] == pytest.approx(latency[500:].sum(), rel=1e-12)
    assert acc.acc[2] == pytest.approx(cost[500:].sum(), rel=1e-12)


# ---------------------------------------------------------------- PS: the event engine

# Per-server processor sharing: the event engine against the pure-Python PS
# reference (``PSReferenceSimulator``: every server advanced at every event, the
# policies' PS rules written literally). Affinity (r_slow = 0.1) and each
# dependence appear; exact agreement up to rounding (the two advance the
# residuals in different orders), since they read the same streams.
PS_CASES = {
    "ps-zred-2pool-h2": dict(policy="ZRed", N=4, r_slow=0.3, size=H2, load=0.25),
    "ps-kt-known-affinity": dict(policy="KT", N=4, r_slow=0.1, load=0.5, knowledge="known"),
    "ps-fred-identical-affinity": dict(policy="FRed", N=4, r_slow=0.1, dependence="identical", load=0.2),
    "ps-coc-d3-sx": dict(policy="CoC", N=6, d=3, r_slow=0.5, dependence=SX_BIMODAL, load=0.2),
    "ps-cos-d2": dict(policy="CoS", N=5, d=2, load=0.8, two_pools=False),
    "ps-cos-d3-affinity-sx": dict(policy="CoS", N=6, d=3, r_slow=0.1, dependence=SX_EXP, load=0.1),
    "ps-riq-d2": dict(policy="RIQ", N=6, d=2, load=0.7, two_pools=False),
    "ps-riq-d3-affinity-identical": dict(policy="RIQ", N=6, d=3, r_slow=0.1, dependence="identical", load=0.08),
    "ps-riq-d3-affinity-sx": dict(policy="RIQ", N=6, d=3, r_slow=0.1, dependence=SX_BIMODAL, load=0.05),
    "ps-fj-k2-d4": dict(policy="FJ", N=6, d=4, k=2, load=0.3, two_pools=False),
    "ps-hedge-d3-budget": dict(policy="Hedge", N=6, d=3, delay=0.4, max_extra_load=0.3, load=0.4, two_pools=False),
    "ps-hedge-affinity-sx": dict(
        policy="Hedge", N=6, d=2, delay=0.5, max_extra_load=float("inf"), r_slow=0.3, dependence=SX_EXP, load=0.1
    ),
    "ps-fj-k3-d4-affinity-sx": dict(policy="FJ", N=6, d=4, k=3, r_slow=0.1, dependence=SX_EXP, load=0.02),
    "ps-fj-k2-d3-affinity-identical": dict(policy="FJ", N=6, d=3, k=2, r_slow=0.1, dependence="identical", load=0.03),
    "ps-fj-early-k2-d4-identical": dict(
        policy="FJ", N=6, d=4, k=2, early=True, dependence="identical", load=0.3, two_pools=False
    ),
    "ps-fj-early-k1-affinity": dict(policy="FJ", N=6, d=3, k=1, early=True, r_slow=0.1, load=0.1),
    "ps-fj-early-k3-sx": dict(policy="FJ", N=6, d=5, k=3, early=True, dependence=SX_EXP, load=0.2, two_pools=False),
    "ps-rer-iid": dict(policy="Rer", N=4, r_slow=0.5, tau=(0.5, 0.5), load=0.4),
    "ps-rer-resume-affinity": dict(
        policy="Rer", N=4, r_slow=0.1, dependence="identical", tau=(1.0, 1.0), resume=True, load=0.1
    ),
    "ps-rep-iid-affinity": dict(policy="Rep", N=4, r_slow=0.1, tau=(1.0, 2.0), load=0.1),
    "ps-rep-identical-affinity": dict(policy="Rep", N=4, r_slow=0.1, dependence="identical", tau=(0.5, 0.5), load=0.1),
    "ps-rep-sx": dict(policy="Rep", N=6, r_slow=0.5, size=H2, dependence=SX_BIMODAL, tau=(0.5, 1.0), load=0.3),
}


def build_ps(case):
    return build({**case, "discipline": "PS"})


@pytest.mark.parametrize("name", sorted(PS_CASES))
def test_event_engine_ps_equals_reference_job_by_job(name):
    from straggler.engines.simulation import events

    model, enc = build_ps(PS_CASES[name])
    assert engine_for(model, "events").name == "events"
    lam = float(model.rates()[0])
    n = 3000
    seed = np.random.SeedSequence(20241)
    acc, trace = run_replication(events.run, enc, lam, 0, n, seed, trace=n)
    latency, cost = simulate_reference(enc, lam, n, replication_streams(seed))
    assert acc.acc[0] == n
    np.testing.assert_allclose(trace[:, 0], latency, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(trace[:, 1], cost, rtol=1e-9, atol=1e-10)


def test_ps_reference_cases_cover_every_ps_policy():

    assert {c["policy"] for c in PS_CASES.values()} == {
        n for n, spec in POLICIES.items() if BY_NAME["events"].simulates(spec, ("PS", "per_server"))
    }
    deps = {str(c.get("dependence", "iid")) for c in PS_CASES.values()}
    assert {"identical", "iid"} <= deps and len(deps) >= 3  # and sx


@pytest.mark.parametrize("dependence", ["identical", "iid"])
def test_one_server_is_one_system_for_every_policy_on_one_workload(dependence):
    """Common random numbers: on one server, ZRed and CoC, CoS, RIQ and FJ (k = 1) with
    d = 1 are the same system, and on one workload's streams they see the same
    arrivals and sizes: the same latency and cost job for job."""
    X = D.from_spec({"family": "pareto", "xm": 1, "alpha": 2.5, "scale_to_mean": 1})
    seed = np.random.SeedSequence(3, spawn_key=(7,))
    traces = {}
    for policy in ("ZRed", "CoC", "CoS", "RIQ", "FJ"):
        model = make_model(policy, 1, [0.7], size=X, dependence=dependence, d=None if policy == "ZRed" else 1)
        enc = encode_model(model)
        _, trace = run_replication(fast.run, enc, float(model.rates()[0]), 0, 3000, seed, trace=3000)
        traces[policy] = trace
    for policy, trace in traces.items():
        np.testing.assert_array_equal(trace, traces["ZRed"], err_msg=policy)
