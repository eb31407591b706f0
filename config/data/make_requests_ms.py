"""Write the synthetic trace ``config/data/requests_ms.csv``: 5,000 request durations in ms.

Run from the repository's root (standard library and numpy only):

    python config/data/make_requests_ms.py config/data/requests_ms.csv

The file is a CSV with the header ``timestamp_s,endpoint,duration_ms`` and a row per
request, ``\\n`` line endings. Every value is drawn from ``numpy.random.default_rng(SEED)``
with ``SEED = 20260101``, in a fixed order:

- ``timestamp_s``: Poisson arrivals at ``RATE`` = 50 requests a second, the running sum
  of exponential gaps, in seconds to 3 decimals (non-decreasing: two requests less than
  half a millisecond apart may share a timestamp);
- ``endpoint``: one of ``GET /items``, ``GET /search`` and ``POST /cart``, each with
  probability 1/3, whatever the duration;
- ``duration_ms``: a mixture, to 2 decimals: 92 % of the requests from a lognormal body of
  median 8 ms (sigma 0.45 on the log scale), 7 % from a slower mode, a lognormal of median
  40 ms (sigma 0.5), and 1 % pauses uniform in 200-400 ms. The counts are exact (4,600,
  350 and 50 requests, in an order drawn at random): with each request's component drawn
  independently, the number of pauses alone (50 +- 7) would move the sample's mean by
  +- 0.4 ms and its scv by +- 0.3. The model's mean is 14.3 ms and its scv 4.9; the
  sample's are what ``straggler fit config/data/requests_ms.csv --column duration_ms``
  prints.

The seed and the model were chosen once, not searched for a sample with given figures.
The output depends on nothing but the seed and numpy's PCG64 streams, which are the same
on every platform, with floats printed in fixed formats and ``\\n`` line endings
(written with numpy 2.4): tests/workflow/test_trace_generator.py checks the committed file against
a run, byte for byte, so a numpy whose streams changed would be caught there.
"""

import math
import sys

import numpy as np

SEED = 20260101
"""The seed of the one generator every value is drawn from."""
N = 5000
"""Requests in the trace."""
RATE = 50.0
"""Arrivals a second (Poisson)."""
ENDPOINTS = ("GET /items", "GET /search", "POST /cart")
"""The endpoints, each drawn with probability 1/3."""
BODY = (0.92, 8.0, 0.45)
"""The body: its share of the requests, median (ms) and sigma (of the log)."""
SLOW = (0.07, 40.0, 0.5)
"""The slower mode: its share of the requests, median (ms) and sigma (of the log)."""
PAUSE = (0.01, 200.0, 400.0)
"""The pauses: their share of the requests and the bounds (ms) of their uniform law."""


def trace() -> str:
    """The CSV text of the trace, header included."""
    rng = np.random.default_rng(SEED)
    gaps = rng.exponential(1.0 / RATE, N)
    endpoints = rng.integers(0, len(ENDPOINTS), N)
    counts = [round(N * w) for w in (BODY[0], SLOW[0], PAUSE[0])]
    assert sum(counts) == N, counts
    component = rng.permutation(np.repeat([0, 1, 2], counts))
    body = rng.lognormal(math.log(BODY[1]), BODY[2], N)
    slow = rng.lognormal(math.log(SLOW[1]), SLOW[2], N)
    pause = rng.uniform(PAUSE[1], PAUSE[2], N)
    durations = np.choose(component, [body, slow, pause])
    lines = ["timestamp_s,endpoint,duration_ms"]
    t = 0.0
    for gap, e, d in zip(gaps.tolist(), endpoints.tolist(), durations.tolist()):
        t += gap  # a running sum in order, the same on every machine
        lines.append(f"{t:.3f},{ENDPOINTS[e]},{d:.2f}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python config/data/make_requests_ms.py OUTPUT.csv", file=sys.stderr)
        return 2
    with open(argv[0], "w", encoding="ascii", newline="\n") as out:
        out.write(trace())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
