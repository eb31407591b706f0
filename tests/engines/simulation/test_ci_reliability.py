"""When a simulated confidence interval can be trusted: MSER's warm-up diagnostic, the
heavy-tail rules of E[T] and E[C], and ``ci_reliable`` in a cell's dataset."""

import math

import numpy as np
import pytest

from straggler.engines.analysis.tails import cost_tail, latency_tail
from straggler.engines.simulation import statistics as S
from straggler.engines.simulation.reference import make_model
from straggler.model import distributions as D
from straggler.study.verdict import ci_reliability, cost_ci_reliability


def mser_by_hand(y):
    """MSER written out from its definition, d = 0 .. n // 2."""
    n = len(y)
    stats = [np.sum((y[d:] - y[d:].mean()) ** 2) / (n - d) ** 2 for d in range(n // 2 + 1)]
    return int(np.argmin(stats))


def test_mser_truncation_is_its_definition():
    rng = np.random.default_rng(5)
    for _ in range(200):
        y = rng.standard_normal(32) + np.linspace(3, 0, 32) * rng.integers(0, 2)
        assert S.mser_truncation(y) == mser_by_hand(y)


def test_mser_keeps_a_settled_series_and_cuts_a_transient():
    rng = np.random.default_rng(11)
    settled = [S.mser_truncation(rng.standard_normal(32)) for _ in range(2000)]
    # the end of the search (half the run) is reached by chance at about 0.4 % of
    # independent series; one in a hundred would make the diagnostic useless
    assert np.mean(np.array(settled) == 16) < 0.01
    transient = np.concatenate([np.linspace(-10, 0, 8), np.zeros(24)]) + 0.01 * rng.standard_normal(32)
    assert 6 <= S.mser_truncation(transient) <= 9
    drifting = np.linspace(-10, 0, 32) + 0.01 * rng.standard_normal(32)
    assert S.mser_truncation(drifting) == 16


def replication(means):
    acc = S.new_accumulator()
    acc.batches[:, S.B_COUNT] = 100.0
    acc.batches[:, S.B_SUM_T] = 100.0 * np.asarray(means)
    return acc


def test_warmup_batches_reads_the_replications_averaged_batch_by_batch():
    """A drift common to every replication is found in their average; noise that is
    not common averages out."""
    rng = np.random.default_rng(3)
    drift = np.linspace(-10, 0, 32)
    reps = [replication(drift + rng.standard_normal(32)) for _ in range(4)]
    assert S.warmup_batches(reps) == 16
    settled = [replication(rng.standard_normal(32)) for _ in range(4)]
    assert S.warmup_batches(settled) < 16
    empty = replication(np.zeros(32))
    empty.batches[-1, S.B_COUNT] = 0.0
    assert math.isnan(S.warmup_batches([empty]))


def test_ci_reliability_says_why():
    stable = np.array([True, True, False])
    pareto = make_model("ZRed", 4, [0.3, 0.5, 0.7], size=D.Pareto(1.0, 2.2), two_pools=False)
    reliable, reason = ci_reliability(stable, latency_tail(pareto), np.array([0.0, 0.0, 0.0]))
    assert reliable[:2].tolist() == [0.0, 0.0] and math.isnan(reliable[2])
    assert reason[0].startswith("infinite variance: FCFS") and reason[2] == ""
    expo = make_model("ZRed", 4, [0.3, 0.5, 0.7], two_pools=False)
    reliable, reason = ci_reliability(stable, latency_tail(expo), np.array([3.0, 16.0, 16.0]))
    assert reliable[0] == 1.0 and reliable[1] == 0.0 and reason[1].startswith("not settled")
    assert math.isnan(reliable[2]) and reason[2] == ""  # not stable: no estimate to judge


@pytest.mark.parametrize(
    "alpha, policy, dependence, infinite",
    [
        (1.5, "ZRed", "iid", True),  # one full copy: C = X, index 1.5
        (2.2, "ZRed", "iid", False),  # Var X finite
        (1.5, "CoC", "iid", False),  # the smaller of 2 i.i.d.: index 3
        (1.5, "CoC", "identical", True),  # identical replicas: the smaller is X
        (1.5, "CoS", "iid", True),  # cancelled on start: one full copy
    ],
)
def test_cost_tail_is_the_blocking_replicas_tail(alpha, policy, dependence, infinite):
    model = make_model(policy, 4, [0.3], size=D.Pareto(1.0, alpha), dependence=dependence, d=2, two_pools=False)
    tail = cost_tail(model)
    assert tail.variance_infinite is infinite
    reliable, reason = cost_ci_reliability(np.array([True]), tail)
    assert bool(reliable[0] == 0.0) is infinite and (reason[0] != "") is infinite


def test_a_cells_dataset_carries_ci_reliable_with_its_reason():
    """A heavy-tailed ZRed cell (Pareto 2.2, FCFS) is unreliable at every stable load, with
    the reason (its E[C] is reliable: Var X is finite); an exponential one is reliable."""
    from straggler.study.config import resolve_config
    from straggler.study.evaluate import evaluate_cell
    from straggler.study.grid import build_grid

    resolved = resolve_config(
        {
            "study": "rel",
            "seed": 1,
            "grid": {"policy": ["ZRed"], "distribution": ["exp", "pareto"], "dependence": ["iid"], "N": [3]},
            "load": [0.3, 0.6],
            "distributions": {
                "exp": {"family": "exponential", "mean": 1},
                "pareto": {"family": "pareto", "xm": 1, "alpha": 2.2},
            },
            "simulation": {"jobs": 20000, "warmup": 2000, "replications": 2},
        }
    )
    for cid in build_grid(resolved).cells:
        ds = evaluate_cell(resolved, cid)
        values = ds["ci_reliable"].values.ravel()
        reasons = [str(r) for r in ds["ci_reliable_reason"].values.ravel()]
        stable = ds["verdict"].values.ravel() == "stable"
        assert stable.any()
        if "pareto" in cid:
            assert (values[stable] == 0.0).all() and all(r.startswith("infinite variance") for r in reasons)
            assert (ds["cost_ci_reliable"].values.ravel()[stable] == 1.0).all()
        else:
            assert (values[stable] == 1.0).all(), reasons


def test_a_central_queue_of_two_servers_is_judged_load_by_load():
    """ZRed on one central queue of 2 servers, Pareto 1.8 sizes (M/G/2): at R = 0.6 a long
    wait needs both servers held, E[T] is finite and its variance is not; at R = 1.4 one
    big job overloads the other server and E[T] = inf (:mod:`straggler.engines.analysis.tails`)."""
    from straggler.study.config import resolve_config
    from straggler.study.evaluate import evaluate_cell
    from straggler.study.grid import build_grid

    resolved = resolve_config(
        {
            "study": "central-tails",
            "seed": 1,
            "grid": {"policy": ["ZRed"], "distribution": ["pareto"], "dependence": ["iid"], "N": [2]},
            "load": [0.3, 0.7],
            "distributions": {"pareto": {"family": "pareto", "xm": 1, "alpha": 1.8}},
            "system": {"pools": 1, "queueing": "central"},
            "simulation": {"jobs": 20000, "warmup": 2000, "replications": 2},
        }
    )
    (cid,) = build_grid(resolved).cells
    ds = evaluate_cell(resolved, cid)
    assert ds["verdict"].values.ravel().tolist() == ["stable", "stable"]
    assert ds["latency_mean_kind"].values.ravel().tolist() == ["ci_undercovers", "infinite"]
    latency = ds["latency_mean"].values.ravel()
    assert math.isfinite(latency[0]) and math.isinf(latency[1])
    assert ds["ci_reliable"].values.ravel().tolist() == [0.0, 0.0]
    reasons = [str(r) for r in ds["ci_reliable_reason"].values.ravel()]
    assert reasons[0].startswith("infinite variance") and "R = 0.6 servers" in reasons[0]
    assert reasons[1].startswith("infinite mean") and "R = 1.4 servers" in reasons[1]
