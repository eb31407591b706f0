"""One copy per job on central FCFS queues: each pool an M/M/c queue (Erlang C, exact),
an M/G/1 queue (Pollaczek-Khinchine, exact) or an M/G/c queue (Lee-Longton, an
approximation), against closed forms computed here from the queue's parameters."""

import math

import numpy as np
import pytest

from straggler.engines.analysis import queues
from straggler.engines.analysis.cell import analyze
from straggler.engines.analysis.tails import latency_tail
from straggler.engines.simulation.reference import make_model
from straggler.model import distributions as D

LOADS = [0.1, 0.3, 0.6, 0.9]


def _central(policy, N, **kw):
    return analyze(make_model(policy, N, LOADS, queueing="central", **kw))


def test_one_queue_of_three_servers_is_mm3():
    # the cell: N = 3 (one pool), exponential sizes of mean 1, load 0.3;
    # the simulation measured 1.03314 there
    r = _central("ZRed", 3, two_pools=False)
    assert r.latency_approx_kind == "exact"
    assert r.latency_approx[1] == pytest.approx(1.0333470564, rel=1e-10)
    for load, t in zip(LOADS, r.latency_approx):
        assert t == pytest.approx(queues.mmc_response_time(3 * load, 1.0, 3), rel=1e-12)
    assert any("Erlang C" in n and "all N servers: M/M/3" in n for n in r.notes)


def test_one_queue_of_one_server_is_mm1():
    r = _central("ZRed", 1, two_pools=False, size=D.Exponential(2.0))
    for load, t in zip(LOADS, r.latency_approx):
        assert t == pytest.approx(1 / (0.5 - load / 2), rel=1e-12)  # 1 / (mu - lambda)
    assert r.latency_approx_kind == "exact"


def test_two_pools_of_identical_servers_are_two_mm5_queues():
    # r_slow = 1: every job runs at speed 1 in either pool; unknown types send half the
    # jobs to each pool, so each is M/M/5 with half the arrivals
    for policy in ("ZRed", "KT"):
        r = _central(policy, 10, pools=[5, 5], size=D.Exponential(2.0))
        assert r.latency_approx_kind == "exact", policy
        for load, t in zip(LOADS, r.latency_approx):
            lam = load * 10 / 2.0
            assert t == pytest.approx(queues.mmc_response_time(lam / 2, 0.5, 5), rel=1e-12)


def test_known_types_on_affinity_make_each_pool_mm_c():
    # r_slow = 0.25: KT sends each type to its fast pool (speed 1), so each pool serves
    # one exponential law at one speed: M/M/5, exact
    r = _central("KT", 10, r_slow=0.25)
    assert np.allclose(r.alpha, [[1.0, 0.0], [0.0, 1.0]])
    assert r.latency_approx_kind == "exact"
    for load, t in zip(LOADS, r.latency_approx):
        assert t == pytest.approx(queues.mmc_response_time(load * 10 / 2, 1.0, 5), rel=1e-12)


def test_unknown_types_mix_speeds_in_a_pool_and_get_lee_longton():
    # ZRed with unknown types sends both types to both pools (q = 1/2 by symmetry): a
    # pool serves Exp(1) at speed 1 and at speed 1/4, a hyperexponential service time,
    # not M/M/c: the Lee-Longton approximation, labelled so
    r_slow = 0.25
    r = _central("ZRed", 10, r_slow=r_slow)
    assert r.latency_approx_kind == "approximation"
    assert np.allclose(r.alpha, 0.5)
    s1 = 0.5 * 1.0 + 0.5 / r_slow
    s2 = 0.5 * 2.0 + 0.5 * 2.0 / r_slow**2
    for load, t in zip(LOADS, r.latency_approx):
        lam_pool = load * 10 / 2
        expected = s1 + queues.mgc_waiting_time(lam_pool, s1, s2, 5)
        assert t == pytest.approx(expected, rel=1e-12) if lam_pool * s1 < 5 else math.isinf(t)
    assert any("mixes mean service times 1, 4" in n and "Lee-Longton" in n for n in r.notes)


def test_general_sizes_get_lee_longton_and_no_second_moment_gets_nan():
    r = _central("ZRed", 4, two_pools=False, size=D.Pareto(1.0, 2.5))
    assert r.latency_approx_kind == "approximation"
    X = D.Pareto(1.0, 2.5)
    m1, m2 = X.mean(), X.second_moment()
    for load, t in zip(LOADS, r.latency_approx):
        assert t == pytest.approx(m1 + queues.mgc_waiting_time(load * 4 / m1, m1, m2, 4), rel=1e-12)
    heavy = _central("ZRed", 4, two_pools=False, size=D.Pareto(1.0, 1.5))
    assert np.all(np.isnan(heavy.latency_approx)) and heavy.explains("latency_approx")
    assert any("infinite second moment" in n and "M/G/4" in n for n in heavy.notes)


def test_single_server_pools_are_mg1_on_either_queueing():
    # one server per pool: central and per-server queueing are the same system, and
    # both analyses give Pollaczek-Khinchine's exact mean
    common = dict(size=D.Pareto(1.0, 2.5), r_slow=0.5, pools=[1, 1])
    central = analyze(make_model("ZRed", 2, LOADS, queueing="central", **common))
    per_server = analyze(make_model("ZRed", 2, LOADS, queueing="per_server", **common))
    assert central.latency_approx_kind == per_server.latency_approx_kind == "exact"
    np.testing.assert_allclose(central.latency_approx, per_server.latency_approx, rtol=1e-12)


def test_a_constant_slowdown_keeps_replicas_exponential():
    sx = {"kind": "sx", "slowdown": {"family": "deterministic", "value": 2.0}}
    r = _central("ZRed", 3, two_pools=False, dependence=sx)
    assert r.latency_approx_kind == "exact"
    for load, t in zip(LOADS, r.latency_approx):  # replicas Exp(mean 2), load in their units
        assert t == pytest.approx(queues.mmc_response_time(3 * load / 2, 0.5, 3), rel=1e-12)
    random_slowdown = {"kind": "sx", "slowdown": {"family": "discrete", "values": [1.0, 3.0], "p": [0.5, 0.5]}}
    assert _central("ZRed", 3, two_pools=False, dependence=random_slowdown).latency_approx_kind == "approximation"


def test_one_central_queue_of_several_servers_makes_no_heavy_tail_claim():
    # M/G/c may have a finite mean wait without a second moment (Scheller-Wolf and
    # Sigman), so no infinite mean is claimed for one queue of N servers; a single
    # server (M/G/1) still has one
    pareto = D.Pareto(1.0, 1.5)
    many = make_model("ZRed", 5, [0.3], size=pareto, two_pools=False, queueing="central")
    assert not latency_tail(many).mean_infinite
    one = make_model("ZRed", 1, [0.3], size=pareto, two_pools=False, queueing="central")
    assert latency_tail(one).mean_infinite
