"""Heavy tails on central FIFO queues of several servers (Scheller-Wolf and Sigman;
Scheller-Wolf and Vesilo): the number of big jobs that overload the other servers, the
waiting time's tail index j (a - 1), the verdicts at their boundaries, the single-server
rule as the case k = 0, each pool's offered load against its closed form, and the
claim against the simulated waiting time's tail."""

import math

import numpy as np
import pytest

from straggler.engines.analysis.tails import (
    blocking_jobs,
    central_pools,
    latency_tail,
    latency_tails,
    spare_servers,
)
from straggler.engines.simulation.reference import make_model
from straggler.model import distributions as D


def _largest_k(c, R):
    """k by its definition: the largest integer k >= 0 with R < c - k."""
    return max(k for k in range(c) if R < c - k)


@pytest.mark.parametrize(
    "c, R, k",
    [(2, 0.8, 1), (2, 1.5, 0), (2, 1.0, 0), (3, 0.5, 2), (3, 1.2, 1), (3, 2.9, 0), (5, 2.0, 2), (1, 0.7, 0)],
)
def test_spare_servers_is_the_largest_k_with_R_below_c_minus_k(c, R, k):
    assert spare_servers(c, R) == k == _largest_k(c, R)


def test_spare_servers_on_a_grid_and_its_closed_form():
    for c in range(1, 9):
        for R in np.linspace(0.0, c, 8 * c + 1)[:-1] + 0.01:
            if R >= c:
                continue
            k = spare_servers(c, R)
            assert k == _largest_k(c, R), (c, R)
            if R != math.floor(R):
                assert k == c - 1 - math.floor(R)
    with pytest.raises(ValueError):
        spare_servers(2, 2.0)


def test_blocking_jobs_is_k_plus_one_and_one_more_at_an_integer_load():
    assert [blocking_jobs(2, R) for R in (0.3, 0.8, 1.5, 1.99)] == [2, 2, 1, 1]
    assert [blocking_jobs(4, R) for R in (0.5, 1.5, 2.5, 3.5)] == [4, 3, 2, 1]
    # an integer R: k + 1 jobs leave the rest critically loaded, the proof needs k + 2
    assert blocking_jobs(2, 1.0) == 2 == spare_servers(2, 1.0) + 2
    assert blocking_jobs(4, 2.0) == 3 == spare_servers(4, 2.0) + 2
    # 0.5 x 2 servers computed in floating point is the integer 1
    assert blocking_jobs(2, 1.0 + 2e-16) == blocking_jobs(2, 1.0 - 2e-16) == 2
    assert blocking_jobs(2, 1.0 + 1e-6) == 1 and blocking_jobs(2, 1.0 - 1e-6) == 2


def mg2(alpha, load):
    """ZRed on one central queue of 2 servers: M/G/2 with Pareto(1, alpha) sizes, R = 2 load."""
    return make_model("ZRed", 2, [load], size=D.Pareto(1.0, alpha), two_pools=False, queueing="central")


@pytest.mark.parametrize(
    "alpha, load, mean_infinite, variance_infinite, index",
    [
        (1.8, 0.4, False, True, 1.6),  # R = 0.8: j = 2, W's index 2 x 0.8
        (1.8, 0.75, True, True, 0.8),  # R = 1.5: j = 1, Kiefer-Wolfowitz
        (1.8, 0.5, False, True, 1.6),  # R = 1, an integer: j = 2 (the weaker claim)
        (1.5, 0.4, True, True, 1.0),  # j (a - 1) = 1 exactly: E[W] = inf (E[S^1.5] = inf)
        (1.51, 0.4, False, True, 1.02),
        (2.0, 0.4, False, True, 2.0),  # W's index 2 and the job's own S's 2
        (2.05, 0.4, False, False, math.inf),  # 2.1 and 2.05: no claim
        (2.0, 0.75, True, True, 1.0),  # j = 1: the single-server rule
        (3.0, 0.75, False, True, 2.0),
        (3.05, 0.75, False, False, math.inf),
    ],
)
def test_the_verdicts_at_their_boundaries(alpha, load, mean_infinite, variance_infinite, index):
    tail = latency_tail(mg2(alpha, load), load)
    assert (tail.mean_infinite, tail.variance_infinite) == (mean_infinite, variance_infinite)
    if math.isfinite(index):
        assert tail.response_index == pytest.approx(index, rel=1e-12)
        assert "Scheller-Wolf" in tail.why
    else:
        assert tail.why == ""


def test_without_a_load_the_claim_holds_at_every_stable_load():
    # j = c: 5 big jobs at once on one queue of 5 servers, W's index 5 x 0.5 = 2.5; the
    # job's own service (index 1.5) still makes the variance infinite
    many = make_model("ZRed", 5, [0.3], size=D.Pareto(1.0, 1.5), two_pools=False, queueing="central")
    tail = latency_tail(many)
    assert not tail.mean_infinite and tail.variance_infinite and tail.response_index == 1.5
    for load in (0.05, 0.3, 0.5, 0.7, 0.95):  # at each load the claim is at least as strong
        assert latency_tail(many, load).response_index <= tail.response_index


@pytest.mark.parametrize("alpha", [1.3, 1.8, 2.0, 2.2, 2.9, 3.0, 3.5])
def test_k_zero_is_the_single_server_rule(alpha):
    """R in (c - 1, c): one big job suffices, as on one server: the same verdicts and
    W's index a - 1 (E[W^m] < inf iff E[S^(m+1)] < inf)."""
    X = D.Pareto(1.0, alpha)
    central = latency_tail(mg2(alpha, 0.75), 0.75)
    one = latency_tail(make_model("ZRed", 2, [0.75], size=X, two_pools=False), 0.75)  # two M/G/1 queues
    assert (central.mean_infinite, central.variance_infinite) == (one.mean_infinite, one.variance_infinite)
    if one.variance_infinite:
        assert central.response_index == pytest.approx(one.response_index) == pytest.approx(alpha - 1.0)


def test_one_server_per_pool_keeps_the_single_server_rule_at_any_load():
    for policy in ("ZRed", "FRed"):
        m = make_model(
            policy, 2, [0.1, 0.4], size=D.Pareto(1.0, 1.8), dependence="identical", pools=[1, 1], queueing="central"
        )
        assert [t.mean_infinite for t in latency_tails(m)] == [True, True]


def test_each_pools_offered_load_is_lambda_times_its_work_per_job():
    # ZRed, unknown types: q = 1/2 by symmetry, so a pool serves half the arrivals, half
    # of them at speed 1 and half at r_slow: E[S] = m (1 + 1 / r_slow) / 2
    X, r_slow, N, load = D.Pareto(1.0, 1.8), 0.5, 10, 0.3
    m = make_model("ZRed", N, [load], size=X, r_slow=r_slow, queueing="central")
    lam = load * N / X.mean()
    pools = central_pools(m, load)
    assert [p.servers for p in pools] == [5, 5]
    for p in pools:
        assert p.offered == pytest.approx(lam / 2 * X.mean() * (1 + 1 / r_slow) / 2, rel=1e-9)
        assert p.index == 1.8
    # KT with r_slow = 0.25 sends each type to its fast pool: R = lambda / 2 x m
    kt = make_model("KT", N, [load], size=X, r_slow=0.25, queueing="central")
    for p in central_pools(kt, load):
        assert p.offered == pytest.approx(lam / 2 * X.mean(), rel=1e-9)
    # an assignment given (the simulation's) is the one used: all jobs to pool 1
    one = central_pools(m, load, alpha=np.array([[1.0, 1.0], [0.0, 0.0]]))
    assert len(one) == 1 and one[0].offered == pytest.approx(lam * X.mean() * (1 + 1 / r_slow) / 2, rel=1e-9)


def test_copies_across_pools_make_no_claim_and_say_why():
    m = make_model("FRed", 10, [0.3], size=D.Pareto(1.0, 1.8), dependence="identical", queueing="central")
    tail = latency_tail(m, 0.3)
    assert not tail.variance_infinite and "no closed form" in tail.why


def test_per_load_claims_reach_the_verdicts():
    from straggler.study.verdict import Verdicts, apply

    m = make_model("ZRed", 2, [0.4, 0.75, 0.9], size=D.Pareto(1.0, 1.8), two_pools=False, queueing="central")
    tails = latency_tails(m)
    assert [t.mean_infinite for t in tails] == [False, True, True]
    n = len(m.loads)
    values = {
        "latency_mean": np.array([3.0, 9.0, 20.0]),
        "latency_mean_ci": np.array([0.1, 1.0, 2.0]),
        "cost_mean": np.full(n, 2.25),
        "cost_mean_ci": np.full(n, 0.1),
        "warmup_batches": np.zeros(n),
    }
    v = Verdicts(np.array(["stable", "stable", "unstable"], dtype=object), np.array(["simulation"] * n, dtype=object))
    out = apply(values, v, tails)
    assert out["latency_mean_kind"].tolist() == ["ci_undercovers", "infinite", ""]
    assert out["latency_mean"][0] == 3.0 and math.isinf(out["latency_mean"][1]) and math.isnan(out["latency_mean"][2])
    assert out["ci_reliable"][:2].tolist() == [0.0, 0.0] and math.isnan(out["ci_reliable"][2])
    assert out["ci_reliable_reason"][0].startswith("infinite variance: FCFS central queue of 2 servers")
    assert out["ci_reliable_reason"][1].startswith("infinite mean: FCFS central queue of 2 servers")
    assert sum("offered load R = 0.8 servers" in note for note in v.notes) == 1
    assert sum("offered load R = 1.5 servers" in note for note in v.notes) == 1


def waiting_tail_slope(load, jobs, replications=4, seed=2024):
    """log10 P(W > 10) / P(W > 100) of the M/G/2 queue of :func:`mg2` (Pareto 1.8) at
    ``load``: the slope of the waiting time's survival function on a log-log scale over a
    decade, an estimate of its tail index, from ``replications`` runs of the event engine
    (W = T - C per job: ZRed's server time is its one copy's service)."""
    from straggler.engines.simulation import encode_model, engine_for, run_replication

    m = mg2(1.8, load)
    engine, enc, lam = engine_for(m), encode_model(m), float(m.rates()[0])
    warmup = jobs // 10
    above = np.zeros(2)
    for r in range(replications):
        _, trace = run_replication(
            engine.kernel, enc, lam, warmup, jobs, np.random.SeedSequence([seed, r]), trace=warmup + jobs
        )
        w = (trace[:, 0] - trace[:, 1])[warmup:]
        above += [np.count_nonzero(w > 10.0), np.count_nonzero(w > 100.0)]
    return math.log10(above[0] / above[1])


TOLERANCE = 0.4
"""Half the gap between the two candidate indices 0.8 and 1.6, so that a pass also rules
out the other. Measured over repeated experiments (4 replications each, other seeds):
at 2M jobs a replication (the CI size) R = 0.8 gave 1.62 +- 0.14 (mean +- sd of 15) and
R = 1.5 0.90 +- 0.06 (a pre-asymptotic bias of +0.1: the decade still feels the body),
so the tolerance is 2.8 and 5 sd; at 8M (the full size) R = 0.8 gave 1.61 +- 0.09."""


@pytest.mark.slow
def test_the_simulated_waiting_time_has_the_claimed_tail_index(ci_scale):
    """The M/G/2 queue with Pareto 1.8 sizes: at R = 0.8 the rule says W's tail index is
    2 x 0.8 = 1.6 (E[W] finite), at R = 1.5 it says 0.8 (E[W] infinite), where the
    single-server rule would say 0.8 at both. The statistic is the slope of log P(W > w)
    between w = 10 and 100 (sizes of mean 2.25: the tail, where many big-job episodes
    still fall); these seeds gave 1.69 and 0.89 at the CI size, 1.72 and 0.90 at the full
    size."""
    jobs = int(8_000_000 * ci_scale)
    for load, index in ((0.4, 1.6), (0.75, 0.8)):
        assert latency_tail(mg2(1.8, load), load).response_index == pytest.approx(index)  # the claim
        slope = waiting_tail_slope(load, jobs)
        assert abs(slope - index) < TOLERANCE, (load, slope)


@pytest.mark.slow
def test_at_an_integer_load_the_simulated_index_lies_between_the_two_sides(ci_scale):
    """R = 1 on 2 servers: k + 1 = 1 big job leaves the other server critically loaded, so
    the sufficient side says E[W^m] < inf for m < 0.8 and the necessary side, which the
    rule claims, E[W^m] = inf for m >= 2 x 0.8 = 1.6. The slope (as above) lies between:
    1.31 +- 0.16 over 15 experiments at the CI size; these seeds gave 1.27 (CI) and 1.37."""
    jobs = int(8_000_000 * ci_scale)
    assert latency_tail(mg2(1.8, 0.5), 0.5).response_index == pytest.approx(1.6)
    slope = waiting_tail_slope(0.5, jobs)
    assert 0.8 - TOLERANCE < slope < 1.6 + TOLERANCE, slope
