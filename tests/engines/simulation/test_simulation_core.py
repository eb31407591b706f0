"""Simulation core: encoding, streams, statistics, the driver (fast, no long runs)."""

import math
import subprocess
import sys

import numpy as np
import pytest

from straggler.engines.simulation import (
    SimulationResult,
    encode_model,
    engine_for,
    load_seed_sequence,
    replication_seeds,
    simulate,
)
from straggler.engines.simulation import encode as E
from straggler.engines.simulation import statistics as S
from straggler.engines.simulation.reference import make_model
from straggler.engines.simulation.streams import (
    PyStreams,
    refill_exponential,
    refill_family,
    refill_uniform,
    replication_streams,
)
from straggler.model import distributions as D
from straggler.model import policies, two_pools
from straggler.model.dependence import SX
from straggler.model.distributions import sample_many

FAMILIES = [
    D.Exponential(2.0),
    D.Deterministic(1.5),
    D.Pareto(xm=1.0, alpha=2.2),
    D.BoundedPareto(low=1.0, high=100.0, alpha=1.5),
    D.ShiftedExponential(shift=0.5, tail_mean=1.0),
    D.Hyperexponential(p=(0.3, 0.7), rates=(0.5, 3.0)),
    D.Erlang(k=3, mean_value=2.0),
    D.Weibull(shape=0.7, scale=1.2),
    D.Uniform(low=0.5, high=2.0),
    D.Discrete(values=(1.0, 2.0, 10.0), p=(0.5, 0.3, 0.2)),
    D.Lognormal(mean_value=1.0, cv=2.0),
    D.Quantiles({0: 0.1, 0.5: 1.0, 0.9: 4.0, 0.99: 12.0, 1: 40.0}),
]


# ---------------------------------------------------------------- streams


@pytest.mark.parametrize("dist", FAMILIES, ids=lambda d: d.family)
def test_block_refill_draws_exactly_what_the_sampler_draws(dist):
    """The specialised fill loops are bit for bit distributions.sample, in order,
    across refills that keep unread values."""
    ref = sample_many(dist, 3000, np.random.default_rng(7))
    rng = np.random.default_rng(7)
    buf = np.empty(1024)
    pos = refill_family(dist.code, dist.sampler_params(), rng, buf, 1024)
    got = []
    while len(got) < 3000:
        take = 333
        if pos > 1024 - take:
            pos = refill_family(dist.code, dist.sampler_params(), rng, buf, pos)
        got.extend(buf[pos : pos + take])
        pos += take
    np.testing.assert_array_equal(np.array(got[:3000]), ref)


def test_uniform_and_exponential_refills_keep_the_stream_order():
    rng = np.random.default_rng(3)
    want_u = rng.random(2500)
    want_e = np.random.default_rng(4).standard_exponential(2500)
    for fill, want, seed in ((refill_uniform, want_u, 3), (refill_exponential, want_e, 4)):
        r = np.random.default_rng(seed)
        buf = np.empty(1024)
        pos = fill(r, buf, 1024)
        got = []
        while len(got) < 2500:
            if pos > 1024 - 7:
                pos = fill(r, buf, pos)
            got.extend(buf[pos : pos + 7])
            pos += 7
        np.testing.assert_array_equal(np.array(got[:2500]), want)


def test_replication_streams_are_independent_and_pure():
    seed = np.random.SeedSequence(1)
    a = [g.random() for g in replication_streams(seed)]
    b = [g.random() for g in replication_streams(seed)]
    assert a == b and len(set(a)) == 5


def test_pystreams_reads_the_four_streams():
    seed = np.random.SeedSequence(9)
    s = PyStreams(replication_streams(seed), 0, [1.0], 9, D.Discrete((1.0, 2.0), (0.5, 0.5)).sampler_params())
    g = replication_streams(seed)
    assert s.interarrival() == g[0].standard_exponential()
    assert s.uniform() == g[1].random()
    assert s.size() == g[2].standard_exponential()
    assert s.slowdown() in (1.0, 2.0)


# ---------------------------------------------------------------- statistics


def test_histogram_bins_cover_values_with_bounded_relative_width():
    fbuf = np.empty(1)
    ibuf = fbuf.view(np.int64)
    rng = np.random.default_rng(0)
    for x in np.exp(rng.uniform(-15, 25, 2000)):
        b = S.hist_index.py_func(x, fbuf, ibuf)
        lo, hi = S.bin_edges(b)
        assert lo <= x < hi
        assert (hi - lo) / lo <= 2.0**-S.HIST_SUB_BITS + 1e-15
    assert S.hist_index.py_func(0.0, fbuf, ibuf) == 0
    assert S.hist_index.py_func(1e300, fbuf, ibuf) == S.HIST_BINS - 1


def test_histogram_quantiles_match_the_sample_quantiles():
    x = np.random.default_rng(1).exponential(3.0, 200_000)
    hist = np.zeros(S.HIST_BINS, dtype=np.int64)
    fbuf = np.empty(1)
    ibuf = fbuf.view(np.int64)
    for v in x:
        hist[S.hist_index.py_func(v, fbuf, ibuf)] += 1
    got = S.hist_quantiles(hist)
    want = np.quantile(x, S.QUANTILES)
    np.testing.assert_allclose(got, want, rtol=2.0**-S.HIST_SUB_BITS)


def test_record_rows_adds_what_record_adds_job_by_job_bit_for_bit():
    # blocks that start in the warm-up, cross batch boundaries, end mid-batch and hold
    # one job: the sums, batches and histogram of record, called once a job
    rng = np.random.default_rng(3)
    warmup, jobs = 37, 1000
    lat = rng.pareto(2.5, warmup + jobs) + 1e-3
    cost = rng.exponential(2.0, warmup + jobs)
    copies = rng.integers(1, 4, warmup + jobs).astype(float)
    inv_batch = S.batch_scale(jobs)
    fbuf = np.empty(1)
    ibuf = fbuf.view(np.int64)
    by_job = S.new_accumulator()
    for n in range(warmup, warmup + jobs):
        S.record(*by_job.arrays(), fbuf, ibuf, n - warmup, lat[n], cost[n], copies[n], inv_batch)
    by_rows = S.new_accumulator()
    cuts = [0, 20, 80, 81, 500, 777, warmup + jobs]
    for n0, n1 in zip(cuts, cuts[1:], strict=False):
        rows = np.column_stack([lat[n0:n1], cost[n0:n1], copies[n0:n1]])
        S.record_rows(*by_rows.arrays(), fbuf, ibuf, rows, n0, n1, warmup, inv_batch)
    for got, want in zip(by_rows.arrays(), by_job.arrays(), strict=True):
        assert got.tobytes() == want.tobytes()
    assert by_rows.acc[S.A_N] == jobs


@pytest.mark.parametrize("n", [1, 2, 3, 10, 101, 1000])
def test_kth_smallest_and_median(n):
    rng = np.random.default_rng(n)
    x = rng.integers(0, max(n // 3, 1), n).astype(float)  # with ties
    for k in {0, n // 2, n - 1}:
        buf = x.copy()
        assert S.kth_smallest(buf, n, k) == np.partition(x, k)[k]
    assert S.median_inplace(x.copy(), n) == np.median(x)


def _acc(means, n=1000):
    accs = []
    for m in means:
        a = S.new_accumulator()
        a.acc[S.A_N] = n
        a.acc[S.A_SUM_T] = m * n
        a.acc[S.A_SUM_C] = 2 * m * n
        a.hist[1000] = n
        accs.append(a)
    return accs


def test_summarize_ci_over_replications_is_student_t():
    means = [1.0, 1.2, 0.9, 1.1]
    out = S.summarize(_acc(means), 0.95)
    assert out["latency_mean"] == pytest.approx(np.mean(means))
    half = 3.182446305284263 * np.std(means, ddof=1) / 2.0  # t_{0.975, 3}
    assert out["latency_mean_ci"] == pytest.approx(half, rel=1e-9)
    assert out["cost_mean_ci"] == pytest.approx(2 * half, rel=1e-9)
    assert out["fired"] is False and out["jobs"] == 4000


def test_summarize_one_replication_uses_batch_means():
    a = S.new_accumulator()
    bm = np.linspace(1.0, 2.0, S.N_BATCHES)
    a.batches[:, S.B_COUNT] = 10
    a.batches[:, S.B_SUM_T] = 10 * bm
    a.batches[:, S.B_SUM_C] = 10 * bm
    a.acc[S.A_N] = 10 * S.N_BATCHES
    a.acc[S.A_SUM_T] = a.acc[S.A_SUM_C] = 10 * bm.sum()
    out = S.summarize([a], 0.9)
    want = S.t_quantile(0.9, S.N_BATCHES - 1) * np.std(bm, ddof=1) / math.sqrt(S.N_BATCHES)
    assert out["latency_mean_ci"] == pytest.approx(want)


def test_summarize_keeps_what_an_unstable_load_measured_and_the_verdict_says_unstable():
    accs = _acc([1.0, 1.0])
    accs[1].acc[S.A_STABLE] = 0.0
    out = S.summarize(accs, 0.95)
    assert out["fired"] is True and out["jobs"] == 2000
    assert out["latency_mean"] == 1.0  # the sample mean; the verdict masks it
    assert S.simulation_verdict(accs, wait=1.0, servers=1, pool=1) == ("unstable", 0.0)


def test_monitor_wait_scales_with_the_second_moment():
    assert S.monitor_wait(1.0, 2.0) == S.WAIT_SCALE * 2.0
    assert S.monitor_wait(1.0, math.inf) == S.WAIT_CAP
    assert S.monitor_wait(2.0, 1e9) == S.WAIT_CAP * 2.0


# ---------------------------------------------------------------- encode


def test_encode_homogeneous_single_pool():
    m = make_model("CoC", 5, [0.5], d=3)
    assert m.system is None
    enc = encode_model(m)
    assert enc.policy == policies.COC_CODE and enc.d == 3 and enc.N == 5
    assert enc.pool_start == (0, 5, 5)
    np.testing.assert_array_equal(enc.speeds, [[1.0]])
    np.testing.assert_array_equal(enc.type_cdf, [1.0])
    assert enc.ints[E.I_POOLS] == 1 and enc.ints[E.I_J] == 1


def test_encode_two_pools_types_and_alpha_forms():
    m = make_model("ZRed", 6, [0.5], r_slow=0.25, p=(0.3, 0.7), pools=[2, 4])
    enc = encode_model(m)
    assert enc.pool_start == (0, 2, 6)
    np.testing.assert_allclose(enc.speeds, [[1.0, 0.25], [0.25, 1.0]])
    np.testing.assert_allclose(enc.inv_speeds, [[1.0, 4.0], [4.0, 1.0]])
    np.testing.assert_allclose(enc.type_cdf, [0.3, 1.0])
    np.testing.assert_allclose(enc.alpha, [[1 / 3, 1 / 3], [2 / 3, 2 / 3]])  # n_i / N
    np.testing.assert_allclose(encode_model(m, alpha=0.8).alpha, [[0.8, 0.8], [0.2, 0.2]])
    a = [[0.9, 0.1], [0.1, 0.9]]
    np.testing.assert_allclose(encode_model(m, alpha=a).alpha, a)
    with pytest.raises(ValueError, match="columns summing to 1"):
        encode_model(m, alpha=[[0.9, 0.1], [0.2, 0.9]])


def test_encode_known_types_per_class_q_and_kt_default():
    m = make_model("KT", 4, [0.5], r_slow=0.1, knowledge="known")
    np.testing.assert_allclose(encode_model(m, alpha=[1.0, 0.0]).alpha, [[1, 0], [0, 1]])
    kt = make_model("KT", 4, [0.5], r_slow=0.1)
    np.testing.assert_allclose(encode_model(kt).alpha, [[1, 0], [0, 1]], atol=1e-9)


def test_encode_rer_tau_and_errors():
    m = make_model("Rer", 4, [0.5], r_slow=0.5, params={"tau": "opt"})
    with pytest.raises(ValueError, match="tau_opt"):
        encode_model(m)
    assert encode_model(m, tau=2.0).tau == (2.0, 2.0)
    assert encode_model(m, tau=(1.0, math.inf)).tau == (1.0, math.inf)
    fixed = make_model("Rer", 4, [0.5], r_slow=0.5, params={"tau": 3.0, "resume": True})
    enc = encode_model(fixed)
    assert enc.tau == (3.0, 3.0) and enc.ints[E.I_RESUME] == 1
    with pytest.raises(ValueError, match="two pools"):
        encode_model(make_model("FRed", 3, [0.5]))
    with pytest.raises(ValueError, match="k = 3"):
        encode_model(make_model("FJ", 4, [0.5], d=2, params={"k": 3}, two_pools=False))


def test_engine_dispatch_names_the_missing_engine():
    assert engine_for(make_model("CoC", 4, [0.5], d=2)).name == "fast"
    for m in (
        make_model("CoC", 4, [0.5], d=2, discipline="PS"),
        make_model("CoS", 4, [0.5], d=2, discipline="PS"),
        make_model("FJ", 4, [0.5], d=2, discipline="PS"),
        make_model("ZRed", 4, [0.5], queueing="central"),
        make_model("Rep", 4, [0.5], params={"tau": 1.0}),
    ):
        assert engine_for(m).name == "events"
    for m in (
        make_model("CoC", 4, [0.5], d=2, params={"ps_bound": "lower"}),  # bounds need PS
        make_model("ZRed", 4, [0.5], discipline="PS", queueing="central"),  # no such model
        make_model("CoS", 4, [0.5], d=2, queueing="central"),
        make_model("CoC", 4, [0.5], d=2, queueing="central"),
    ):
        with pytest.raises(NotImplementedError, match="the event engine .*PS per-server"):
            simulate(m, np.random.SeedSequence(0), 100, 0, 1, 0.95)
    with pytest.raises(NotImplementedError):
        encode_model(make_model("KS", 4, [0.5]))


# ---------------------------------------------------------------- driver


def _equal(a: SimulationResult, b: SimulationResult, index_b=slice(None)):
    for name in (
        "latency_mean",
        "latency_mean_ci",
        "latency_quantile",
        "cost_mean",
        "cost_mean_ci",
        "verdict",
        "jobs",
        "jobs_to_verdict",
        "replications",
    ):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name)[index_b], err_msg=name)


def test_bitwise_reproducible_and_independent_of_other_loads_and_workers():
    seed = lambda: np.random.SeedSequence(12345, spawn_key=(7, 8))  # noqa: E731
    m = make_model("CoC", 10, [0.3, 0.6], d=2, dependence=SX(D.Exponential(1.0)), r_slow=0.5)
    a = simulate(m, seed(), 20_000, 2_000, 3, 0.95)
    b = simulate(m, seed(), 20_000, 2_000, 3, 0.95, workers=2)
    _equal(a, b)
    m3 = make_model("CoC", 10, [0.6, 0.45, 0.3], d=2, dependence=SX(D.Exponential(1.0)), r_slow=0.5)
    c = simulate(m3, seed(), 20_000, 2_000, 3, 0.95)
    _equal(a, c, index_b=[2, 0])
    other = simulate(m, np.random.SeedSequence(12346, spawn_key=(7, 8)), 20_000, 2_000, 3, 0.95)
    assert not np.array_equal(a.latency_mean, other.latency_mean)


def test_load_streams_are_keyed_by_value_not_position():
    s = np.random.SeedSequence(5, spawn_key=(1,))
    a = load_seed_sequence(s, 0.3)
    assert a.spawn_key[:1] == (1,) and len(a.spawn_key) == 5
    assert load_seed_sequence(s, 0.3).generate_state(2).tolist() == a.generate_state(2).tolist()
    assert load_seed_sequence(s, 0.30000000000000004).spawn_key != a.spawn_key
    r = replication_seeds(s, 0.3, 3)
    assert [x.spawn_key[-1] for x in r] == [0, 1, 2]


def test_result_shapes_and_values_for_the_dataset():
    m = make_model("ZRed", 3, [0.2, 0.5], two_pools=False)
    # a cap of the fixed budget: 5,000 jobs are far too few to exclude growth; at load
    # 0.2 they span 3.5 waits of time, and the servers idled 80 % of it: stable; at 0.5
    # 1.4 waits, too short: no verdict, an estimate of the jobs needed
    res = simulate(m, np.random.SeedSequence(0), 5_000, 500, 2, 0.95, max_jobs=10_000)
    assert res.latency_quantile.shape == (2, len(S.QUANTILES))
    assert res.jobs.tolist() == [10_000, 10_000]
    assert res.verdict.tolist() == ["stable", "undetermined"]
    assert res.evidence.tolist() == ["idle", "short"]
    assert np.isnan(res.stable[1]) and res.jobs_to_verdict[1] > 5_000
    assert np.isnan(res.extended_jobs).all()
    # by default an undetermined load is run longer until decided: the idle evidence
    longer = simulate(m, np.random.SeedSequence(0), 5_000, 500, 2, 0.95)
    assert longer.verdict.tolist() == ["stable", "stable"]
    assert longer.evidence.tolist() == ["idle", "idle"]
    assert longer.jobs[1] > 10_000 and longer.extended_jobs[1] > 5_000
    assert (longer.idle_fraction > 0.1).all()
    # the quantiles' CI over the replications' own quantiles: it covers the pooled one
    assert longer.latency_quantile_ci.shape == (2, len(S.QUANTILES)) and np.isfinite(longer.latency_quantile_ci).all()
    assert (longer.latency_quantile_ci > 0).all()
    v = res.values()
    assert set(v) == {
        "latency_mean",
        "latency_mean_ci",
        "latency_quantile",
        "cost_mean",
        "cost_mean_ci",
        "copies_mean",
        "copies_mean_ci",
        "stable",
        "jobs",
        "replications",
        "jobs_to_verdict",
        "precision_achieved",
        "idle_fraction",
        "latency_quantile_ci",
        "latency_replication_mean",
        "cost_replication_mean",
        "copies_replication_mean",
        "latency_replication_quantile",
        "warmup_batches",  # read by the verdicts into ci_reliable, not a dataset variable
    }
    assert v["latency_replication_mean"].shape == (2, 2)
    assert v["latency_replication_quantile"].shape == (2, len(S.QUANTILES), 2)
    assert res.engine == "fast"


def test_alpha_from_the_analysis_is_used():
    """q = 1 sends every job to pool 1: pool-2 servers never work, so with
    r_slow = 0.1 all type-2 jobs run at speed 0.1 (cost 10 E[X] for them)."""
    m = make_model("ZRed", 4, [0.05], r_slow=0.1)
    res = simulate(m, np.random.SeedSequence(3), 200_000, 0, 2, 0.95, alpha=1.0)
    assert res.cost_mean[0] == pytest.approx(0.5 * 1 + 0.5 * 10, rel=0.02)
    alpha = two_pools.assignment_fractions(m.system, [0.5])
    np.testing.assert_allclose(encode_model(m, alpha=alpha).alpha, 0.5)


def test_engine_can_be_forced_by_name():
    m = make_model("ZRed", 3, [0.5], two_pools=False)
    assert simulate(m, np.random.SeedSequence(0), 1000, 0, 1, 0.95, engine="fast").engine == "fast"
    assert simulate(m, np.random.SeedSequence(0), 1000, 0, 1, 0.95, engine="events").engine == "events"
    with pytest.raises(NotImplementedError, match="no simulation engine called 'nope'"):
        simulate(m, np.random.SeedSequence(0), 1000, 0, 1, 0.95, engine="nope")
    with pytest.raises(ValueError, match="confidence"):
        simulate(m, np.random.SeedSequence(0), 1000, 0, 1, 1.5)


def test_encode_refuses_an_empty_pool_that_gets_jobs():
    m = make_model("ZRed", 4, [0.5], pools=[0, 4])
    with pytest.raises(ValueError, match="no server"):
        encode_model(m, alpha=0.5)
    assert encode_model(m).alpha[1].tolist() == [1.0, 1.0]  # default n_i / N
    with pytest.raises(ValueError, match="no server"):
        encode_model(make_model("Rer", 4, [0.5], pools=[0, 4], params={"tau": 1.0}))


_CHILD = """
import numpy as np
from straggler.engines.simulation import simulate
from straggler.engines.simulation.reference import make_model
m = make_model("Rer", 4, [0.3, 0.5], r_slow=0.5, params={"tau": 1.0})
r = simulate(m, np.random.SeedSequence(99, spawn_key=(3,)), 5000, 500, 2, 0.95)
print(np.concatenate([r.latency_mean, r.latency_quantile.ravel(), r.cost_mean_ci]).tobytes().hex())
"""


def test_bitwise_identical_in_another_process():
    m = make_model("Rer", 4, [0.3, 0.5], r_slow=0.5, params={"tau": 1.0})
    r = simulate(m, np.random.SeedSequence(99, spawn_key=(3,)), 5000, 500, 2, 0.95)
    here = np.concatenate([r.latency_mean, r.latency_quantile.ravel(), r.cost_mean_ci]).tobytes().hex()
    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == here


def test_pool_of_each_server():
    enc = encode_model(make_model("ZRed", 5, [0.5], pools=[2, 3]))
    assert enc.pool_of.tolist() == [0, 0, 1, 1, 1]
