"""Write the synthetic pairs ``config/data/pairs_ms.csv``: 5,000 requests, each run on two
servers to the end, their two durations in ms.

Run from the repository's root (standard library and numpy only):

    python config/data/make_pairs_ms.py config/data/pairs_ms.csv

The file is a CSV with the header ``server_a_ms,server_b_ms`` and a row per request,
``\\n`` line endings. The pairs follow the mixture dependence with ``C = 0.3``: exactly
1,500 requests (30 %, in an order drawn at random) take one duration on both servers,
the others two independent durations; every duration is from a lognormal law of median
8 ms (sigma 0.6 on the log scale), to 3 decimals (microseconds: few ties within a
column). So ``straggler fit --pairs config/data/pairs_ms.csv`` should find a Spearman's
rho near 0.3 and a tail dependence near 0.3 + 0.7 x 0.01 = 0.307. Every value is drawn
from ``numpy.random.default_rng(SEED)`` with ``SEED = 20260103``, in a fixed order.

The seed and the model were chosen once, not searched for a sample with given figures.
As with make_requests_ms.py, the output depends on nothing but the seed and numpy's
PCG64 streams; tests/workflow/test_trace_generator.py checks the committed file against a run,
byte for byte.
"""

import math
import sys

import numpy as np

SEED = 20260103
"""The seed of the one generator every value is drawn from."""
N = 5000
"""Requests (pairs) in the file."""
C = 0.3
"""The share of requests whose two copies take one duration."""
MEDIAN, SIGMA = 8.0, 0.6
"""The lognormal law of every duration: its median (ms) and sigma (of the log)."""


def pairs() -> str:
    """The CSV text of the pairs, header included."""
    rng = np.random.default_rng(SEED)
    same = rng.permutation(np.repeat([True, False], [round(C * N), N - round(C * N)]))
    durations = rng.lognormal(math.log(MEDIAN), SIGMA, (N, 2))
    durations[same, 1] = durations[same, 0]
    lines = ["server_a_ms,server_b_ms"]
    lines += [f"{a:.3f},{b:.3f}" for a, b in durations.tolist()]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python config/data/make_pairs_ms.py OUTPUT.csv", file=sys.stderr)
        return 2
    with open(argv[0], "w", encoding="ascii", newline="\n") as out:
        out.write(pairs())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
