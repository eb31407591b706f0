"""One replication of one load: an engine's kernel run on the replication's streams."""

from __future__ import annotations

import numpy as np

from . import statistics
from .encode import I_CHECK, I_N, Encoded
from .start import StartLaw, start_workloads
from .streams import replication_streams


def run_replication(
    kernel, enc: Encoded, lam: float, warmup: int, jobs: int, seed, trace: int = 0, start: StartLaw | None = None
):
    """One replication with a kernel; returns ``(Accumulator, trace array)``; the
    Accumulator's ``workloads`` is the servers' work at the last arrival.

    ``seed`` is the replication's ``SeedSequence`` (its streams come from
    :func:`.streams.replication_streams`) or already the tuple of streams. ``start``: the
    law of each server's work at t = 0 (:mod:`.start`; drawn from the seed's start
    stream), or None for an empty start."""
    rngs = replication_streams(seed) if isinstance(seed, np.random.SeedSequence) else tuple(seed)
    acc = statistics.new_accumulator()
    total = int(warmup) + int(jobs)
    check = int(enc.ints[I_CHECK])
    mon = statistics.new_monitor(total, check)
    tr = np.zeros((int(trace), 2))
    workloads = start_workloads(start, seed, int(enc.ints[I_N]))
    out = (acc.acc, acc.batches, acc.hist, mon, tr, workloads)  # what the kernel writes (its contract: .contract)
    kernel(*enc.kernel_args(), float(lam), int(warmup), int(jobs), out, rngs)
    acc.workloads = workloads
    return acc, tr
