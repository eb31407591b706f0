"""The event engine's event set, chosen by measurement: nanoseconds per event of each
candidate on the engine's own access pattern.

The engine keeps one next-event time per queue (``Queues.next``) and asks, at every
event, for the queue with the earliest. An event then changes the time of the queue it
happened at and of the queues it touched (an arrival's d replicas, a completion's
cancelled ones). The candidates are:

* ``scan``: no structure; a pass over the times per event (:func:`_earliest`, the
  engine's until this comparison: four interleaved running minima, then the first
  queue with that time);
* ``tree``: a tournament tree, one leaf per queue (``events_state.tree_fix``);
* ``heap2`` and ``heap4``: indexed binary and 4-ary heaps (a queue's time changes in
  place, then sifts up or down).

The pattern replayed is a hold model like the engine's: at each event the earliest
queue gets a new time (the event's time plus an exponential with mean Q, which keeps
the set stationary), and with probability ``touch`` one other queue does too. A
fraction ``idle`` of the new times are ``inf`` (an empty queue has no next event). The
random numbers are drawn before the timing; every structure must return the same
winners (checked), so only the structure is timed.

A calendar queue is not among them: it sorts many pending events into buckets by time,
while this set has one slot per queue whose time changes in place. The tree and the
heaps are the indexed structures for that, and the survey of the field finds them
fastest at 10 to 1000 pending events.

Run: ``.venv/bin/python benchmarks/event_sets.py [--json] [--steps N]``. The docs show a
recorded run, ``docs/validation/event-sets.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, datetime

import numba
import numpy as np

from straggler.engines.simulation.events_state import TREE_MIN_QUEUES, earliest, tree_fix

SIZES = (4, 10, 50, 100, 1000, 10_000)
STRUCTURES = ("scan", "tree", "heap2", "heap4")
TOUCH = 0.5
IDLE = 0.3


@numba.njit(nogil=True)
def _new_time(t, e, u, Q):
    return np.inf if u < IDLE else t + e * Q


@numba.njit(nogil=True)
def _replay_scan(keys, exps, unis, picks):
    Q = keys.shape[0]
    check = 0
    for i in range(exps.shape[0]):
        q = earliest(keys, Q)
        if q < 0:
            q = picks[i] % Q
            t = 0.0
        else:
            t = keys[q]
        check += q
        keys[q] = _new_time(t, exps[i, 0], unis[i, 0], Q)
        if unis[i, 2] < TOUCH:
            o = picks[i] % Q
            keys[o] = _new_time(t, exps[i, 1], unis[i, 1], Q)
    return check


@numba.njit(nogil=True)
def _replay_tree(keys, exps, unis, picks):
    Q = keys.shape[0]
    P = 1
    while P < Q:
        P *= 2
    tree = np.empty(2 * P, dtype=np.int64)
    tval = np.full(2 * P, np.inf)
    for i in range(P):
        tree[P + i] = i
    for k in range(P - 1, 0, -1):
        tree[k] = tree[2 * k]
    for q in range(Q):
        tree_fix(tree, tval, P, q, keys[q])
    check = 0
    for i in range(exps.shape[0]):
        q = tree[1]
        t = tval[1]
        if t == np.inf:
            q = picks[i] % Q
            t = 0.0
        check += q
        tree_fix(tree, tval, P, q, _new_time(t, exps[i, 0], unis[i, 0], Q))
        if unis[i, 2] < TOUCH:
            o = picks[i] % Q
            tree_fix(tree, tval, P, o, _new_time(t, exps[i, 1], unis[i, 1], Q))
    return check


@numba.njit(nogil=True, inline="always")
def _before(keys, a, b):
    """a's time before b's (the lower queue on a tie, as the tree and the scan)."""
    return keys[a] < keys[b] or (keys[a] == keys[b] and a < b)


def _heap(arity: int):
    """An indexed heap of the given arity (a constant of its compiled code: a division by
    a variable costs tens of cycles), as its replay function."""

    @numba.njit(nogil=True)
    def set_time(heap, pos, keys, q, v):
        """Queue q's time becomes v: sift it up or down."""
        keys[q] = v
        i = pos[q]
        while i > 0:  # up
            p = (i - 1) // arity
            if not _before(keys, q, heap[p]):
                break
            heap[i] = heap[p]
            pos[heap[i]] = i
            i = p
        n = heap.shape[0]
        while True:  # down
            first = arity * i + 1
            if first >= n:
                break
            best = first
            for c in range(first + 1, min(first + arity, n)):
                if _before(keys, heap[c], heap[best]):
                    best = c
            if not _before(keys, heap[best], q):
                break
            heap[i] = heap[best]
            pos[heap[i]] = i
            i = best
        heap[i] = q
        pos[q] = i

    @numba.njit(nogil=True)
    def replay(keys, exps, unis, picks):
        Q = keys.shape[0]
        heap = np.arange(Q)
        pos = np.arange(Q)
        given = keys.copy()
        for q in range(Q):
            keys[q] = np.inf
        for q in range(Q):
            set_time(heap, pos, keys, q, given[q])
        check = 0
        for i in range(exps.shape[0]):
            q = heap[0]
            t = keys[q]
            if t == np.inf:
                q = picks[i] % Q
                t = 0.0
            check += q
            set_time(heap, pos, keys, q, _new_time(t, exps[i, 0], unis[i, 0], Q))
            if unis[i, 2] < TOUCH:
                o = picks[i] % Q
                set_time(heap, pos, keys, o, _new_time(t, exps[i, 1], unis[i, 1], Q))
        return check

    return replay


_REPLAY = {"scan": _replay_scan, "tree": _replay_tree, "heap2": _heap(2), "heap4": _heap(4)}


def _replay(structure: str, keys, exps, unis, picks) -> int:
    return _REPLAY[structure](keys, exps, unis, picks)


def measure(steps: int, repeat: int = 3, seed: int = 0) -> dict:
    """Nanoseconds per event of every structure at every size (best of ``repeat``)."""
    out: dict = {}
    for Q in SIZES:
        rng = np.random.default_rng([seed, Q])
        start = rng.exponential(size=Q) * Q
        exps = rng.exponential(size=(steps, 2))
        unis = rng.random(size=(steps, 3))
        picks = rng.integers(0, 2**62, size=steps)
        row, checks = {}, set()
        for structure in STRUCTURES:
            _replay(structure, start.copy(), exps[:100], unis[:100], picks[:100])  # compile
            best = np.inf
            for _ in range(repeat):
                keys = start.copy()
                t0 = time.perf_counter()
                checks.add(_replay(structure, keys, exps, unis, picks))
                best = min(best, time.perf_counter() - t0)
            row[structure] = 1e9 * best / steps
        if len(checks) != 1:
            raise AssertionError(f"Q = {Q}: the structures disagree on the winners")
        out[str(Q)] = row
    return out


def table(out: dict) -> str:
    lines = [f"{'queues':>8}" + "".join(f"{s:>9}" for s in STRUCTURES) + "   (ns per event; fastest *)"]
    for Q, row in out["sizes"].items():
        fastest = min(row, key=row.get)
        cells = "".join(f"{row[s]:>8.1f}{'*' if s == fastest else ' '}" for s in STRUCTURES)
        lines.append(f"{Q:>8}{cells}")
    lines.append(
        f"(the engine: the tree; a scan up to {out['tree_min_queues']} queues when a job places more than "
        "two replicas, and in the bound systems)"
    )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--steps", type=int, default=2_000_000, help="events per replay (default 2e6)")
    args = parser.parse_args(argv)
    out = {
        "created": datetime.now(UTC).strftime("%Y-%m-%d"),
        "steps": args.steps,
        "touch": TOUCH,
        "idle": IDLE,
        "tree_min_queues": TREE_MIN_QUEUES,
        "versions": {"numba": numba.__version__, "numpy": np.__version__},
        "sizes": measure(args.steps),
    }
    print(json.dumps(out, indent=1) if args.json else table(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
