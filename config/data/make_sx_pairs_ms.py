"""Write the synthetic pairs ``config/data/sx_pairs_ms.csv``: 4,000 requests, each run on two
servers to the end, their two durations in ms, built the S&X way.

Run from the repository's root (standard library and numpy only):

    python config/data/make_sx_pairs_ms.py config/data/sx_pairs_ms.csv

The file is a CSV with the header ``server_a_ms,server_b_ms`` and a row per request,
``\\n`` line endings. A request's copy on a server takes ``X S``: ``X`` the request's work,
shared by its two copies, from a lognormal law of median 6 ms (sigma 0.6 on the log scale);
``S`` the server's slowdown, drawn for each copy independently of the other and of ``X``:
1 with probability 0.90, 3 with probability 0.09 and 25 with probability 0.01. Durations
are written to 3 decimals (microseconds). So ``straggler fit --pairs
config/data/sx_pairs_ms.csv`` should find S&X with a slowdown near {1: 0.90, 3: 0.09, 25:
0.01} (P(S > 2 x median) near 0.10, P(S > 10 x median) near 0.01) and the request's share
of the log-variance near 0.36 / (0.36 + Var(log S)) = 0.65, and should find that the
mixture of the same rho misses the faster copy's tail. Every value is drawn from
``numpy.random.default_rng(SEED)`` with ``SEED = 20260104``, in a fixed order: the works,
then the slowdowns (request by request, server a then b).

The seed and the model were chosen once, not searched for a sample with given figures.
As with make_pairs_ms.py, the output depends on nothing but the seed and numpy's PCG64
streams; tests/workflow/test_trace_generator.py checks the committed file against a run,
byte for byte.
"""

import math
import sys

import numpy as np

SEED = 20260104
"""The seed of the one generator every value is drawn from."""
N = 4000
"""Requests (pairs) in the file."""
MEDIAN, SIGMA = 6.0, 0.6
"""The lognormal law of a request's work X: its median (ms) and sigma (of the log)."""
SLOWDOWNS, P = (1.0, 3.0, 25.0), (0.90, 0.09, 0.01)
"""The slowdown S of a copy: its values and their probabilities."""


def pairs() -> str:
    """The CSV text of the pairs, header included."""
    rng = np.random.default_rng(SEED)
    work = rng.lognormal(math.log(MEDIAN), SIGMA, N)
    slowdown = rng.choice(np.array(SLOWDOWNS), p=np.array(P), size=(N, 2))
    durations = work[:, None] * slowdown
    lines = ["server_a_ms,server_b_ms"]
    lines += [f"{a:.3f},{b:.3f}" for a, b in durations.tolist()]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python config/data/make_sx_pairs_ms.py OUTPUT.csv", file=sys.stderr)
        return 2
    with open(argv[0], "w", encoding="ascii", newline="\n") as out:
        out.write(pairs())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
