"""Measured pairs replayed (``{kind: pairs, file: F}``): a job's two copies take one
measured pair, and one copy takes either duration; both engines give the same jobs; the
config refuses what a pair cannot give."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from straggler.engines.simulation import encode_model, events, fast, run_replication
from straggler.engines.simulation.reference import make_model
from straggler.model.dependence import MeasuredPairs, from_spec, marginal_spec, sample_jobs
from straggler.model.distributions import from_spec as law
from straggler.study.config import ConfigError, resolve_config

ROOT = Path(__file__).resolve().parents[3]
PAIRS = str(ROOT / "config" / "data" / "pairs_ms.csv")


@pytest.fixture(scope="module")
def replay():
    dep = from_spec({"kind": "pairs", "file": PAIRS})
    return dep, law(marginal_spec(dep))


def test_a_job_takes_a_measured_pair_in_either_order(replay):
    dep, X = replay
    assert isinstance(dep, MeasuredPairs) and X.mean() == pytest.approx(dep.values.mean())
    jobs = sample_jobs(dep, X, 40_000, 2, np.random.default_rng(3))
    pairs = {tuple(p) for p in dep.values.tolist()}
    assert all(tuple(j) in pairs or tuple(j[::-1]) in pairs for j in jobs[:2000].tolist())
    # either order, half each: the two copies have one law, the pooled columns'
    assert abs(np.mean(jobs[:, 0] < jobs[:, 1]) - np.mean(jobs[:, 0] > jobs[:, 1])) < 0.02
    assert jobs[:, 0].mean() == pytest.approx(X.mean(), rel=0.02)
    assert jobs.min(axis=1).mean() == pytest.approx(dep.values.min(axis=1).mean(), rel=0.02)


@pytest.mark.parametrize(
    "policy,d,two_pools,params",
    [
        ("CoC", 2, False, None),
        ("RIQ", 2, False, None),
        ("FRed", None, True, None),
        ("ZRed", None, False, None),
        ("Rer", None, True, {"tau": 5.0}),
    ],
)
def test_both_engines_replay_the_same_jobs(replay, policy, d, two_pools, params):
    dep, X = replay
    m = make_model(
        policy, 40, [0.4], size=X, dependence=dep, d=d, two_pools=two_pools, **({"params": params} if params else {})
    )
    enc, lam, seed = encode_model(m), float(m.rates()[0]), np.random.SeedSequence(11)
    _, a = run_replication(fast.run, enc, lam, 0, 5000, seed, trace=5000)
    _, b = run_replication(events.run, enc, lam, 0, 5000, seed, trace=5000)
    np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("policy,params", [("CoC", None), ("Hedge", {"delay": 0.0, "max_extra_load": float("inf")})])
def test_two_copies_on_idle_servers_finish_with_the_faster_of_the_pair(replay, policy, params):
    """At load 0.01 on 1,000 servers every copy finds its server idle: E[T] is E[min] of the
    pairs (Hedge with delay 0 sends its second copy at once: the pair's other duration)."""
    dep, X = replay
    m = make_model(
        policy, 1000, [0.01], size=X, dependence=dep, d=2, two_pools=False, **({"params": params} if params else {})
    )
    kernel = fast.run if policy == "CoC" else events.run
    acc, _ = run_replication(kernel, encode_model(m), float(m.rates()[0]), 0, 40_000, np.random.SeedSequence(2))
    mean = acc.acc[1] / acc.acc[0]
    faster = dep.values.min(axis=1)
    assert mean == pytest.approx(faster.mean(), abs=4 * faster.std() / np.sqrt(40_000) + 0.05)


def _study(**over):
    cfg = {
        "study": "pairs",
        "grid": {
            "policy": ["CoC"],
            "distribution": ["pairs"],
            "dependence": ["measured"],
            "r_slow": [1],
            "d": [2],
            "N": [10],
        },
        "load": [0.3],
        "distributions": {"pairs": {"family": "empirical", "file": PAIRS, "column": ["server_a_ms", "server_b_ms"]}},
        "dependences": {"measured": {"kind": "pairs", "file": PAIRS}},
        "evaluate": ["analytic"],
    }
    for key, value in over.items():
        cfg[key] = {**cfg[key], **value} if isinstance(value, dict) else value
    return cfg


def test_the_config_takes_the_pairs_with_their_marginal():
    resolved = resolve_config(_study())
    assert resolved.dependences["measured"]["kind"] == "pairs"


@pytest.mark.parametrize(
    "over,said",
    [
        ({"grid": {"d": [3]}}, "expected d <= 2 with dependences.measured (kind pairs)"),
        ({"distributions": {"pairs": {"family": "exponential", "mean": 1}}}, "expected the pairs' marginal"),
        (
            {"dependences": {"measured": {"kind": "pairs", "file": str(ROOT / "config" / "data" / "requests_ms.csv")}}},
            "3 columns",
        ),
        (
            {"dependences": {"measured": {"kind": "pairs", "file": PAIRS, "columns": ["x"]}}},
            "dependences.measured.columns",
        ),
    ],
)
def test_what_a_pair_cannot_give_is_refused_in_one_line(over, said):
    with pytest.raises(ConfigError) as err:
        resolve_config(_study(**over))
    assert said in str(err.value)
    assert str(err.value).count("\n") <= 2
