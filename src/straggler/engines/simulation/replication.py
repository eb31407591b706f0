"""One replication of one load: an engine's kernel run on the replication's streams."""

from __future__ import annotations

import numpy as np

from . import statistics
from .encode import I_CHECK, Encoded
from .streams import replication_streams


def run_replication(kernel, enc: Encoded, lam: float, warmup: int, jobs: int, seed, trace: int = 0):
    """One replication with a kernel; returns ``(Accumulator, trace array)``.

    ``seed`` is the replication's ``SeedSequence`` (its streams come from
    :func:`.streams.replication_streams`) or already the tuple of streams."""
    rngs = replication_streams(seed) if isinstance(seed, np.random.SeedSequence) else tuple(seed)
    acc = statistics.new_accumulator()
    total = int(warmup) + int(jobs)
    check = int(enc.ints[I_CHECK])
    mon = statistics.new_monitor(total, check)
    tr = np.zeros((int(trace), 2))
    out = (acc.acc, acc.batches, acc.hist, mon, tr)  # what the kernel writes (its contract: .contract)
    kernel(*enc.kernel_args(), float(lam), int(warmup), int(jobs), out, rngs)
    return acc, tr
