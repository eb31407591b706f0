"""The mixture dependence (``{kind: mixture, identical: c}``) on every engine.

A job reads one COUPLING uniform u; ``u < c``: every copy is the first replica's size,
else the copies are i.i.d. Every job reads from SIZES and SLOWDOWNS what an i.i.d. job
reads, so a job keeps its sizes whatever ``c``: a run under the mixture's code with
``c = 0`` is the i.i.d. run and with ``c = 1`` the identical one, bit for bit (the
mixture built directly, bypassing ``from_spec``, which returns the built-in kinds for 0
and 1). The engines agree job by job at ``c = 0.4`` (the tolerances of the existing
cross-engine tests), on runs long enough to cross a refill of every stream's block.
Statistical checks: fixed seeds, tolerance 4 standard errors or CI half-widths.
"""

import math

import numpy as np
import pytest

from straggler.engines.simulation import encode as E
from straggler.engines.simulation import encode_model, events, fast, run_replication, simulate
from straggler.engines.simulation.reference import PSReferenceSimulator, ReferenceSimulator, make_model
from straggler.engines.simulation.streams import COUPLING, N_STREAMS, NAMES, PyStreams, replication_streams
from straggler.model import distributions as D
from straggler.model.dependence import IID, Identical, mean_min_replicas, sampler_args
from straggler.model.dependence.base import MIXTURE_CODE
from straggler.model.dependence.mixture import Mixture

MIX = Mixture(0.4)
H2 = D.Hyperexponential(p=(0.8, 0.2), rates=(2.0, 0.4))
N_JOBS = 5000  # more than a block of the sizes (4096 values): every engine refills
K = 4.0


def build(case, dependence=MIX, discipline="FCFS"):
    c = dict(case)
    params = {}
    for key in ("k", "early", "keep", "resume", "delay", "max_extra_load"):
        if key in c:
            params[key] = c.pop(key)
    tau = c.pop("tau", None)
    load = c.pop("load")
    model = make_model(
        c.pop("policy"), c.pop("N"), [load], params=params, dependence=dependence, discipline=discipline, **c
    )
    return model, encode_model(model, tau=tau)


def reference(model, enc, n, seed):
    sim = (PSReferenceSimulator if model.discipline == "PS" else ReferenceSimulator)(
        enc, float(model.rates()[0]), replication_streams(seed)
    )
    latency, cost = sim.run(n)
    return np.column_stack([latency, cost])


def kernel_run(kernel, model, enc, n, seed):
    return run_replication(kernel, enc, float(model.rates()[0]), 0, n, seed, trace=n)


# ---------------------------------------------------------------- the streams


def test_the_coupling_stream_is_a_fifth_child_and_leaves_the_others():
    seed = np.random.SeedSequence(17, spawn_key=(3,))
    five = replication_streams(seed)
    assert len(five) == N_STREAMS == 5 and NAMES[COUPLING] == "coupling"
    ss = np.random.SeedSequence(entropy=seed.entropy, spawn_key=seed.spawn_key)
    four = [np.random.Generator(np.random.PCG64(c)) for c in ss.spawn(4)]  # the streams before it
    for a, b in zip(five[:4], four):
        np.testing.assert_array_equal(a.random(1000), b.random(1000))
    fifth = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed.entropy, spawn_key=(3, 4))))
    np.testing.assert_array_equal(five[COUPLING].random(1000), fifth.random(1000))
    s = PyStreams(replication_streams(seed), 0, [1.0], 0, [1.0])
    assert s.coupling() == replication_streams(seed)[COUPLING].random()


@pytest.mark.parametrize("c", [0.0, 0.4, 1.0])
def test_sampler_args_carry_c_without_a_distribution(c):
    dep_code, x_code, _, s_code, s_params = sampler_args(Mixture(c), D.Exponential(1.0))
    assert dep_code == MIXTURE_CODE and s_code == D.DETERMINISTIC_CODE and x_code == D.EXPONENTIAL_CODE
    assert s_params.tolist() == [c]


# ---------------------------------------------------------------- the engines agree at c = 0.4

FCFS_CASES = {
    "zred-2pool-h2": dict(policy="ZRed", N=4, r_slow=0.3, size=H2, load=0.7),
    "kt-known": dict(policy="KT", N=4, r_slow=0.2, load=0.8, knowledge="known"),
    "fred": dict(policy="FRed", N=4, r_slow=0.5, load=0.4),
    "coc-d3": dict(policy="CoC", N=6, d=3, load=0.6, two_pools=False),
    "coc-d2-2pool-h2": dict(policy="CoC", N=6, d=2, r_slow=0.5, size=H2, load=0.4),
    "cos-d3-2pool": dict(policy="CoS", N=6, d=3, r_slow=0.4, load=0.7),
    "riq-d3": dict(policy="RIQ", N=6, d=3, load=0.6, two_pools=False),
    "fj-k2-d4": dict(policy="FJ", N=6, d=4, k=2, load=0.5, two_pools=False),
    "fj-early-k2-d4": dict(policy="FJ", N=6, d=4, k=2, early=True, load=0.6, two_pools=False),
    "fj-keep3-k2-d4-2pool": dict(policy="FJ", N=6, d=4, k=2, keep=3, r_slow=0.5, load=0.5),
    "rer": dict(policy="Rer", N=4, r_slow=0.5, tau=(0.5, 0.5), load=0.6),
    "rer-resume": dict(policy="Rer", N=4, r_slow=0.5, tau=(0.5, 1.0), resume=True, load=0.6),
}
#: the FCFS cases the event engine simulates (and Rep, which only it does)
EVENT_FCFS = ["zred-2pool-h2", "kt-known", "fred", "coc-d3", "coc-d2-2pool-h2", "rer", "rer-resume"]
PS_CASES = {
    "zred-2pool-h2": dict(policy="ZRed", N=4, r_slow=0.3, size=H2, load=0.25),
    "fred": dict(policy="FRed", N=4, r_slow=0.3, load=0.2),
    "coc-d3": dict(policy="CoC", N=6, d=3, r_slow=0.5, load=0.2),
    "cos-d3": dict(policy="CoS", N=6, d=3, r_slow=0.3, load=0.3),
    "riq-d3": dict(policy="RIQ", N=6, d=3, load=0.3, two_pools=False),
    "fj-k2-d4": dict(policy="FJ", N=6, d=4, k=2, load=0.2, two_pools=False),
    "fj-early-k2-d4": dict(policy="FJ", N=6, d=4, k=2, early=True, load=0.2, two_pools=False),
    "rer": dict(policy="Rer", N=4, r_slow=0.5, tau=(0.5, 0.5), load=0.3),
    "rep": dict(policy="Rep", N=4, r_slow=0.3, tau=(1.0, 2.0), load=0.15),
}
HEDGE_CASES = {
    "hedge-d3-budget": dict(policy="Hedge", N=6, d=3, delay=0.4, max_extra_load=0.3, load=0.4, two_pools=False),
    "hedge-d2-2pool": dict(policy="Hedge", N=6, d=2, delay=0.5, max_extra_load=math.inf, r_slow=0.3, load=0.15),
}


@pytest.mark.parametrize("name", sorted(FCFS_CASES))
def test_fast_path_equals_reference_job_by_job(name):
    model, enc = build(FCFS_CASES[name])
    assert int(enc.ints[E.I_DEP]) == MIXTURE_CODE
    seed = np.random.SeedSequence(20250)
    acc, trace = kernel_run(fast.run, model, enc, N_JOBS, seed)
    np.testing.assert_allclose(trace, reference(model, enc, N_JOBS, seed), rtol=1e-11, atol=1e-12)
    assert acc.acc[0] == N_JOBS


@pytest.mark.parametrize("name", EVENT_FCFS)
def test_event_engine_equals_fast_path_job_by_job(name):
    model, enc = build(FCFS_CASES[name])
    seed = np.random.SeedSequence(20251)
    _, a = kernel_run(fast.run, model, enc, N_JOBS, seed)
    _, b = kernel_run(events.run, model, enc, N_JOBS, seed)
    np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(
    "name,discipline",
    [(n, "PS") for n in sorted(PS_CASES)] + [(n, d) for n in sorted(HEDGE_CASES) for d in ("FCFS", "PS")],
)
def test_event_engine_equals_reference_job_by_job(name, discipline):
    model, enc = build({**PS_CASES, **HEDGE_CASES}[name], discipline=discipline)
    seed = np.random.SeedSequence(20252)
    acc, trace = kernel_run(events.run, model, enc, N_JOBS, seed)
    np.testing.assert_allclose(trace, reference(model, enc, N_JOBS, seed), rtol=1e-9, atol=1e-10)
    assert acc.acc[0] == N_JOBS


# ---------------------------------------------------------------- c = 0 is iid, c = 1 identical

EXTREMES = [
    ("fast", "FCFS", "coc-d3"),
    ("fast", "FCFS", "coc-d2-2pool-h2"),
    ("fast", "FCFS", "fred"),
    ("fast", "FCFS", "zred-2pool-h2"),
    ("fast", "FCFS", "cos-d3-2pool"),
    ("fast", "FCFS", "riq-d3"),
    ("fast", "FCFS", "fj-keep3-k2-d4-2pool"),
    ("fast", "FCFS", "fj-early-k2-d4"),
    ("fast", "FCFS", "rer"),
    ("events", "FCFS", "coc-d3"),
    ("events", "FCFS", "rer"),
    ("events", "FCFS", "rep"),
    ("events", "FCFS", "hedge-d3-budget"),
    ("events", "PS", "fj-k2-d4"),
    ("events", "PS", "riq-d3"),
    ("events", "PS", "rep"),
    ("events", "PS", "hedge-d2-2pool"),
    ("reference", "FCFS", "fj-keep3-k2-d4-2pool"),
    ("reference", "PS", "hedge-d3-budget"),
]


def _outcome(engine, case, dependence, discipline, seed):
    model, enc = build(case, dependence=dependence, discipline=discipline)
    if engine == "reference":
        return [reference(model, enc, N_JOBS, seed)]
    acc, trace = kernel_run({"fast": fast.run, "events": events.run}[engine], model, enc, N_JOBS, seed)
    return [acc.acc, acc.batches, acc.hist, trace]


@pytest.mark.parametrize("engine,discipline,name", EXTREMES, ids=["-".join(e) for e in EXTREMES])
def test_c0_is_iid_and_c1_identical_bit_for_bit(engine, discipline, name):
    own = FCFS_CASES if discipline == "FCFS" else PS_CASES
    case = own.get(name) or PS_CASES.get(name) or HEDGE_CASES[name]  # Rep: the PS case's setting
    seed = np.random.SeedSequence(20253)
    for c, plain in ((0.0, IID()), (1.0, Identical())):
        got = _outcome(engine, case, Mixture(c), discipline, seed)
        want = _outcome(engine, case, plain, discipline, seed)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w, err_msg=f"c = {c}")


# ---------------------------------------------------------------- the law of the copies


@pytest.mark.parametrize("engine,discipline", [("fast", "FCFS"), ("events", "PS")])
def test_a_jobs_copies_are_one_draw_with_probability_c(engine, discipline):
    """FJ with k = d = 2 on two servers, almost always empty at an arrival: a job's cost
    is the sum of its two copies and its latency the larger, so ``cost = 2 latency``
    exactly when they are one draw (a.s. never otherwise)."""
    model = make_model("FJ", 2, [0.002], d=2, params={"k": 2}, dependence=MIX, two_pools=False, discipline=discipline)
    n = 20_000
    kernel = {"fast": fast.run, "events": events.run}[engine]
    _, trace = kernel_run(kernel, model, encode_model(model), n, np.random.SeedSequence(41))
    # (the latency, ``(t + x) - t``, is rounded at the scale of the arrival time t: up
    # to 1e-9 here; two independent copies closer than 1e-6: about once in 10^6 jobs)
    one = np.isclose(trace[:, 1], 2.0 * trace[:, 0], rtol=0.0, atol=1e-6)
    se = math.sqrt(MIX.identical * (1.0 - MIX.identical) / n)
    assert abs(one.mean() - MIX.identical) <= K * se, (one.mean(), se)


@pytest.mark.parametrize("size", [D.Exponential(1.0), H2], ids=["exp", "h2"])
@pytest.mark.parametrize("engine", ["fast", "events"])
def test_mean_latency_at_a_low_load_is_the_mean_min_of_two_copies(size, engine):
    """CoC with d = N = 2 at a load of 0.002: the latency is the smaller copy (up to the
    rare job that waits), whose mean is ``c E[X] + (1 - c) E[X_{1:2}]``."""
    model = make_model("CoC", 2, [0.002], d=2, size=size, dependence=MIX, two_pools=False)
    res = simulate(
        model, np.random.SeedSequence(43), jobs=20_000, warmup=100, replications=8, confidence=0.95, engine=engine
    )
    mean, ci = float(res.latency_mean[0]), float(res.latency_mean_ci[0])
    expected = mean_min_replicas(size, MIX, 2)
    assert expected == pytest.approx(0.4 * size.mean() + 0.6 * size.mean_min_of(2))
    assert abs(mean - expected) <= K * ci, (mean, ci, expected)
