"""The event engine's numbers, bit for bit, on fixed seeds: its accumulators, batch
means, histograms and per-job trace on Hedge (d = 2, 3) and Rep, on the bench's
heavy-tailed trace (:func:`straggler.engines.bench.heavy_trace`) and on exponential sizes, on
FCFS and PS servers, with i.i.d. and identical copies (identical copies of a heavy tail
build queues of thousands), central queues and a cancellation delay.

``GOLDEN`` holds each case's digest as the engine gave it before its queues became
linked lists (commit 948d1ca): a change to the engine's data structures must not move a
bit. A change that is meant to move numbers (a new random-number contract), or a numpy
or numba whose streams or arithmetic differ, is recorded here again: print the digests
with ``python tests/engines/simulation/test_event_engine_golden.py``.
"""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np
import pytest

from straggler.engines import bench
from straggler.engines.simulation import encode_model, events, run_replication
from straggler.engines.simulation.reference import make_model
from straggler.model.distributions import Exponential
from straggler.model.policies.hedging import hedge_delay

JOBS = 20_000

#: name -> (policy, sizes, d, discipline, queueing, dependence, load, cancel_delay)
CASES = {
    "hedge_d2_heavy_fcfs": ("Hedge", "heavy", 2, "FCFS", "per_server", "iid", 0.6, 0.0),
    "hedge_d3_heavy_fcfs": ("Hedge", "heavy", 3, "FCFS", "per_server", "iid", 0.6, 0.0),
    "hedge_d2_exp_fcfs": ("Hedge", "exp", 2, "FCFS", "per_server", "iid", 0.6, 0.0),
    "hedge_d3_exp_fcfs": ("Hedge", "exp", 3, "FCFS", "per_server", "iid", 0.6, 0.0),
    "hedge_d2_heavy_identical_fcfs": ("Hedge", "heavy", 2, "FCFS", "per_server", "identical", 0.6, 0.0),
    "hedge_d3_heavy_identical_delay_fcfs": ("Hedge", "heavy", 3, "FCFS", "per_server", "identical", 0.5, 0.05),
    "rep_heavy_fcfs": ("Rep", "heavy", None, "FCFS", "per_server", "iid", 0.6, 0.0),
    "rep_exp_fcfs": ("Rep", "exp", None, "FCFS", "per_server", "iid", 0.6, 0.0),
    "rep_heavy_identical_fcfs": ("Rep", "heavy", None, "FCFS", "per_server", "identical", 0.6, 0.0),
    "rep_heavy_identical_central": ("Rep", "heavy", None, "FCFS", "central", "identical", 0.6, 0.0),
    "rep_heavy_delay_central": ("Rep", "heavy", None, "FCFS", "central", "iid", 0.6, 0.05),
    "hedge_d2_heavy_ps": ("Hedge", "heavy", 2, "PS", "per_server", "iid", 0.6, 0.0),
    "hedge_d3_exp_ps": ("Hedge", "exp", 3, "PS", "per_server", "iid", 0.6, 0.0),
    "hedge_d2_heavy_identical_ps": ("Hedge", "heavy", 2, "PS", "per_server", "identical", 0.6, 0.0),
    "rep_heavy_ps": ("Rep", "heavy", None, "PS", "per_server", "iid", 0.6, 0.0),
    "rep_exp_ps": ("Rep", "exp", None, "PS", "per_server", "iid", 0.6, 0.0),
    "rep_heavy_identical_delay_ps": ("Rep", "heavy", None, "PS", "per_server", "identical", 0.6, 0.05),
    "coc_d2_heavy_identical_delay_fcfs": ("CoC", "heavy", 2, "FCFS", "per_server", "identical", 0.3, 0.05),
    "fred_heavy_central": ("FRed", "heavy", None, "FCFS", "central", "iid", 0.3, 0.0),
}

GOLDEN: dict[str, str] = {
    "coc_d2_heavy_identical_delay_fcfs": "2113ab743d728a21aa03",
    "fred_heavy_central": "6aeb97de7c7f9d8266d1",
    "hedge_d2_exp_fcfs": "c679f494f73002c76955",
    "hedge_d2_heavy_fcfs": "87e5a4010e3415449bbc",
    "hedge_d2_heavy_identical_fcfs": "0b3f1c34fe7838224707",
    "hedge_d2_heavy_identical_ps": "71a496b8c024d865c931",
    "hedge_d2_heavy_ps": "faf31cf2282bdc6e37b2",
    "hedge_d3_exp_fcfs": "f98323bf8df2e69dff29",
    "hedge_d3_exp_ps": "9273358ccfb2b6a65240",
    "hedge_d3_heavy_fcfs": "c7ed4098597a37a7c623",
    "hedge_d3_heavy_identical_delay_fcfs": "3820450c36473e889cf2",
    "rep_exp_fcfs": "733c48ec04d25681b8d6",
    "rep_exp_ps": "e4034d139afeba6b7b3c",
    "rep_heavy_delay_central": "9bad5c1d2e6778575543",
    "rep_heavy_fcfs": "d3333d43d1bb8387ebd2",
    "rep_heavy_identical_central": "32a3caead03de9818424",
    "rep_heavy_identical_delay_ps": "fc1f2f3a2fd67c29e2b3",
    "rep_heavy_identical_fcfs": "7ae08976918c71219318",
    "rep_heavy_ps": "0c2f4d9d92e4bae8ddcb",
}


def model(case):
    policy, sizes, d, discipline, queueing, dependence, load, delay = case
    size = bench.heavy_sizes() if sizes == "heavy" else Exponential(1.0)
    params = {"tau": 1.0}
    if policy == "Hedge":
        params = hedge_delay(size, {"delay": "p95", "max_extra_load": float("inf")})
    m = make_model(
        policy,
        32,
        [load],
        size=size,
        dependence=dependence,
        d=d,
        params=params,
        two_pools=policy not in ("Hedge", "CoC"),
        discipline=discipline,
        queueing=queueing,
    )
    return dataclasses.replace(m, cancel_delay=delay) if delay else m


def digest(case) -> tuple[str, np.ndarray]:
    m = model(case)
    acc, trace = run_replication(
        events.run, encode_model(m), float(m.rates()[0]), 1000, JOBS, np.random.SeedSequence(7), trace=JOBS + 1000
    )
    h = hashlib.sha256()
    for a in (acc.acc, acc.batches, acc.hist, trace):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:20], acc.acc


@pytest.mark.parametrize("name", sorted(CASES))
def test_event_engine_bit_for_bit(name):
    got, acc = digest(CASES[name])
    assert acc[5] == 1.0 and acc[0] == JOBS  # a full run (stable, every job measured)
    assert got == GOLDEN[name]


if __name__ == "__main__":
    for name in sorted(CASES):
        print(f'    "{name}": "{digest(CASES[name])[0]}",')
