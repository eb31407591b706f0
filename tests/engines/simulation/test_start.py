"""A replication's start: empty, or with each server's work drawn from a law
(:mod:`straggler.engines.simulation.start`), in both engines, and the end state they keep."""

from __future__ import annotations

import numpy as np
import pytest

from straggler.engines.simulation import encode_model, events, fast, run_replication
from straggler.engines.simulation.reference import make_model
from straggler.engines.simulation.start import (
    LEVELS,
    Start,
    StartLaw,
    start_uniforms,
    start_workloads,
    tail_levels,
)
from straggler.engines.simulation.streams import replication_streams
from straggler.model.distributions import Exponential


def test_a_law_is_a_quantile_table_checked_when_built():
    law = StartLaw(np.array([0.0, 0.5, 1.0]), np.array([0.0, 0.0, 4.0]), "test")
    assert law.sample(np.array([0.25, 0.75, 1.0])).tolist() == [0.0, 2.0, 4.0]
    assert law.mean == pytest.approx(1.0)
    with pytest.raises(ValueError, match="levels increase from 0 to 1"):
        StartLaw(np.array([0.0, 0.4]), np.array([0.0, 1.0]), "x")
    with pytest.raises(ValueError, match="non-decreasing"):
        StartLaw(np.array([0.0, 1.0]), np.array([2.0, 1.0]), "x")
    with pytest.raises(ValueError, match="as many levels as values"):
        StartLaw(np.array([0.0, 1.0]), np.array([0.0]), "x")


def test_a_law_from_a_quantile_function_and_from_end_states():
    # half the servers idle, the others exponential(1) work: mean 0.5, with its tail tabled
    law = StartLaw.of_quantile(lambda u: np.where(u < 0.5, 0.0, -np.log(2.0 * (1.0 - u))), "q")
    assert np.array_equal(law.levels, tail_levels()) and law.values[0] == 0.0 and np.all(np.diff(law.values) >= 0)
    assert law.mean == pytest.approx(0.5, rel=1e-3)
    # end states of two replications pooled, each weighing the same
    tables = np.array([np.linspace(0, 1, LEVELS), np.linspace(0, 3, LEVELS)])
    pooled = StartLaw.of_workloads(tables, "end")
    assert pooled.values[0] == 0.0 and pooled.values[-1] == 3.0
    assert pooled.mean == pytest.approx(1.0, rel=1e-2)  # (0.5 + 1.5) / 2
    with pytest.raises(ValueError, match="no end state"):
        StartLaw.of_workloads(np.full((2, LEVELS), np.nan), "end")


def test_the_start_stream_is_the_seeds_own_and_leaves_the_five_others_as_they_were():
    seed = np.random.SeedSequence(11, spawn_key=(3,))
    a, b = start_uniforms(seed, 100), start_uniforms(seed, 100)
    assert np.array_equal(a, b) and a.shape == (100,)
    assert not np.array_equal(a, start_uniforms(np.random.SeedSequence(12, spawn_key=(3,)), 100))
    # the kernels' streams are children 0-4: the start's child 5 draws none of their numbers
    streams = [g.random(100) for g in replication_streams(seed)]
    assert all(not np.array_equal(a, s) for s in streams)
    assert np.array_equal(start_workloads(None, seed, 5), np.zeros(5))
    law = StartLaw(np.array([0.0, 1.0]), np.array([0.0, 2.0]), "x")
    assert np.array_equal(start_workloads(law, seed, 100), 2.0 * a)


def test_a_start_gives_each_load_its_law_and_warmup():
    law = StartLaw(np.array([0.0, 1.0]), np.array([0.0, 1.0]), "x")
    start = Start((None, law), (None, 7), (False, True))
    assert start.law(0) is None and start.law(1) is law and start.law(5) is None
    assert start.warmup(0, 100) == 100 and start.warmup(1, 100) == 7 and start.warmup(9, 100) == 100
    assert not start.decided_elsewhere(0) and start.decided_elsewhere(1) and not start.decided_elsewhere(4)


def _one_server(engine_kernel, w0: float):
    """ZRed on one FCFS server with ``w0`` of work at t = 0: its first job's latency."""
    model = make_model("ZRed", 1, [0.5], size=Exponential(1.0), two_pools=False)
    enc = encode_model(model)
    law = StartLaw(np.array([0.0, 1.0]), np.array([w0, w0]), "fixed")
    acc, trace = run_replication(
        engine_kernel, enc, float(model.rates()[0]), 0, 50, np.random.SeedSequence(4), trace=50, start=law
    )
    empty, trace0 = run_replication(
        engine_kernel, enc, float(model.rates()[0]), 0, 50, np.random.SeedSequence(4), trace=50
    )
    return trace, trace0, acc


@pytest.mark.parametrize("kernel", [fast.run, events.run], ids=["fast", "events"])
def test_the_first_job_waits_behind_the_start_s_work(kernel):
    w0 = 50.0  # more than the first jobs' arrival times: each of them waits for it
    trace, trace0, acc = _one_server(kernel, w0)
    # with an empty start the first job waits for nothing; with w0 of work it waits until
    # w0, and its size is the same draw: latency = w0 - arrival + size
    streams = replication_streams(np.random.SeedSequence(4))
    arrival = streams[0].standard_exponential() / 0.5
    assert trace[0, 0] == pytest.approx(w0 - arrival + trace0[0, 0])
    assert trace[0, 1] == trace0[0, 1]  # the start's work is no job's: no job pays for it
    assert acc.workloads is not None and acc.workloads.shape == (1,)


def test_both_engines_give_the_same_jobs_from_the_same_start():
    """CoC d = 2 on 8 FCFS servers, each starting with work from one law: the fast path and
    the event engine, job by job (as from an empty start, tests/engines/simulation)."""
    model = make_model("CoC", 8, [0.6], d=2, size=Exponential(1.0), two_pools=False)
    enc = encode_model(model)
    law = StartLaw(np.linspace(0.0, 1.0, 5), np.array([0.0, 0.0, 0.5, 2.0, 6.0]), "test")
    lam = float(model.rates()[0])
    seed = np.random.SeedSequence(21)
    _, a = run_replication(fast.run, enc, lam, 0, 3000, seed, trace=3000, start=law)
    _, b = run_replication(events.run, enc, lam, 0, 3000, seed, trace=3000, start=law)
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)
    _, empty = run_replication(fast.run, enc, lam, 0, 3000, seed, trace=3000)
    assert not np.allclose(a[:20], empty[:20])  # the start did change the first jobs


@pytest.mark.parametrize("kernel", [fast.run, events.run], ids=["fast", "events"])
def test_the_end_state_is_each_server_s_work_at_the_last_arrival(kernel):
    """ZRed (no copy cancelled later, so both engines' work is the queue's): every server's
    work at the last arrival, non-negative, and the two engines agree."""
    model = make_model("ZRed", 16, [0.7], size=Exponential(1.0), two_pools=False)
    enc = encode_model(model)
    acc, _ = run_replication(kernel, enc, float(model.rates()[0]), 0, 5000, np.random.SeedSequence(2))
    other, _ = run_replication(
        events.run if kernel is fast.run else fast.run, enc, float(model.rates()[0]), 0, 5000, np.random.SeedSequence(2)
    )
    assert acc.workloads.shape == (16,) and np.all(acc.workloads >= 0) and acc.workloads.sum() > 0
    np.testing.assert_allclose(acc.workloads, other.workloads, rtol=1e-9, atol=1e-9)
