"""docs/contributing.md, "Adding an event kind", followed once: the event engine's loop
with one more kind of event, written from its own kernels (simulation/events.py), its
state's operations (simulation/events_state.py) and its stream reads
(simulation/events_routing.py).

The toy event observes the number of jobs present every ``h`` time units. It is a
kernel (``_observe``) and a branch of the loop, with its own time source like the
arrivals. It changes no state, so every job's latency and cost are bit for bit the
engine's. What it measures is checked against M/M/1-PS's exact mean number in system,
rho / (1 - rho).
"""

from __future__ import annotations

import numpy as np
from scipy import stats as st

from straggler.common.kernel_cache import kernel
from straggler.engines.simulation import encode_model, run_replication
from straggler.engines.simulation import events as E
from straggler.engines.simulation import events_routing as R
from straggler.engines.simulation import events_state as ES
from straggler.engines.simulation import statistics as S
from straggler.engines.simulation.reference import make_model


@ES.event_part
def _observe(qu, seen, k):
    """The toy event: the jobs present (one server: its queue's replicas) into seen[k]."""
    total = 0
    for q in range(qu.count):
        total += qu.length[q]
    seen[k] = total
    return k + 1


@kernel(nogil=True, _nrt=False)
def _loop_with_observer(su, qu, wk, st, stats, cur, lam, total, check, wait, h, seen):
    """The engine's loop for per-server queues without thresholds (events._simulate),
    plus the toy event: its time ``t_obs``, its branch, and nothing to reschedule."""
    dirty = wk.dirty
    inv_lam = 1.0 / lam
    t = 0.0
    t_last = 0.0
    work_done = 0.0
    n = 0
    k = 0
    v, cur = R.next_exponential(st, cur)
    t_arr = v * inv_lam
    t_obs = h
    while True:
        qmin, tq = ES.next_queue(qu)
        t_next = min(t_arr if n < total else np.inf, tq)
        # the new kind of event (while jobs arrive: the drain after is not stationary)
        if n < total and t_obs < t_next and k < seen.shape[0]:
            k = _observe(qu, seen, k)
            t_obs += h
            continue
        if n < total and t_arr <= tq:
            t = t_arr
            t_last = t
            nd, cur = E.on_arrival(su, qu, wk, st, stats, t, n, True, False, False, False, cur)
            n += 1
            if n < total:
                v, cur = R.next_exponential(st, cur)
                t_arr = t + v * inv_lam
        elif qmin >= 0:
            t = tq
            ES.advance(qu, wk, qmin, t)
            nd, cost, cur = E.on_completion(su, qu, wk, stats, t, wk.job[qu.who[qmin]], qu.who[qmin], False, cur)
            work_done += cost
        else:
            break
        for i in range(nd):
            ES.reschedule(qu, wk, dirty[i], True, False)
    stats.acc[S.A_ARRIVALS] = n
    stats.acc[S.A_TIME] = t_last
    stats.acc[S.A_WORK] = work_done
    return k


@kernel(nogil=True)
def _run_with_observer(h, seen, *contract):
    return _loop_with_observer(*ES.records(*contract), h, seen)


def test_a_toy_event_kind_changes_nothing_and_measures_what_it_should():
    rho = 0.5
    model = make_model("ZRed", 1, [rho], discipline="PS")
    enc = encode_model(model)
    lam = float(model.rates()[0])
    warmup, jobs, h = 0, 200_000, 0.5
    seen = np.zeros(int(1.2 * jobs / lam / h), dtype=np.int64)
    observed = {}

    def with_observer(*contract):
        observed["count"] = _run_with_observer(h, seen, *contract)

    seed = np.random.SeedSequence(11)
    engine, engine_trace = run_replication(E.run, enc, lam, warmup, jobs, seed, trace=1000)
    toy, toy_trace = run_replication(with_observer, enc, lam, warmup, jobs, seed, trace=1000)

    # the observer changes no state: every job's latency and cost are the engine's
    for a, b in zip(engine.arrays(), toy.arrays()):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(engine_trace, toy_trace)

    # what it saw: the time average of jobs present, against M/M/1-PS's rho / (1 - rho)
    count = observed["count"]
    assert count > 0.95 * jobs / lam / h
    batches = seen[: count - count % 50].reshape(50, -1).mean(axis=1)  # batch means: nearly independent
    half = st.t.ppf(0.9995, len(batches) - 1) * batches.std(ddof=1) / np.sqrt(len(batches))
    assert abs(batches.mean() - rho / (1 - rho)) <= half, (batches.mean(), half)
