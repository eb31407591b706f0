"""A size law per job type (``by_type``) simulated against the exact analysis.

The law of test_by_type_sizes (type 0 a quantile table, type 1 a two-point law, types
p = (0.6, 0.4)) on the two-pool affinity system with r_slow = 0.5. Where the analysis
of the threshold paper's policies is exact, the simulated mean latency and cost per
job must match it, each type with its own law:

- ZRed on per-server FCFS queues: each server is an M/G/1 queue (Poisson thinning)
  whose service is X_j / r_ij of the type j it receives
  (``two_pool_handlers._random_dispatch_latency``), N = 2 and 4, loads 0.3 and 0.6 of
  the stability bound; the cost is eq. 5.
- FRed on one server per pool (N = 2): a single M/G/1 queue with service
  min(X_1 / r_1j, X_2 / r_2j) of the job's type j (``_as_full_redundancy``), at 0.6
  of its bound; the cost is eq. 6 (both copies run from the start to the first end).

And a negative control that shows the comparison has power: the same simulation
against the analysis of the mixture law given to every type (the law of a job whose
type is unknown; the same mean, so the same arrival rates) misses by many CIs under
iid FRed, where min(X_1 / r_1j, X_2 / r_2j) depends on each type's own law.

Conventions of test_simulation_statistical: fixed seeds, 10 replications, the
tolerance 4 CI half-widths at 95 % (about 9 standard errors), never widened to make
a test pass. Marked ``slow``; CI runs them at a quarter of the size (``ci_scale``).
"""

import functools

import numpy as np
import pytest

from straggler.engines.analysis.cell import analyze
from straggler.engines.simulation import simulate
from straggler.engines.simulation.reference import make_model
from straggler.model.distributions import ByType, from_spec

pytestmark = pytest.mark.slow

QUANTILES = {0: 0.1, 0.5: 0.6, 0.9: 2.0, 1: 5.0}
A = from_spec({"family": "quantiles", "quantiles": QUANTILES})
B = from_spec({"family": "discrete", "values": [1.0, 3.0], "p": [0.7, 0.3]})
P = (0.6, 0.4)
LAW = ByType(laws=(A, B), p=P)
R_SLOW = 0.5  # TwoPoolSystem.affinity(N, 0.5, p=P): each type is twice as fast in its own pool

# 4 CI half-widths, as test_simulation_statistical: with 10 replications that is
# 4 * t_{0.975, 9} = 9.05 standard errors, P(|t_9| > 9.05) = 8e-6 per comparison, so
# the 24 comparisons of the by_type analysis here fail by chance with probability
# < 2e-4 (a plain 95 % CI, K = 1, would fail one of them by chance most of the time:
# 1 - 0.95^24 = 0.71; K = 4 is beyond a Bonferroni correction for 24 at 5 %, which
# asks for t_9 = 4.3, 1.9 CI half-widths). It is never widened to make a test pass.
K = 4.0
JOBS = 1_000_000  # per replication, at full size (times ci_scale in CI)
REPS = 10
SEED = 2024


def _mixture():
    """The mixture sum_j p_j L_j as one quantiles law (its quantile function is piecewise
    linear and continuous: the atoms at 1 and 3 are flat pieces)."""
    q = LAW.quantile_pieces()
    assert np.array_equal(q.x1[:-1], q.x0[1:])  # continuous: a table of points gives it
    return from_spec({"family": "quantiles", "quantiles": {**dict(zip(q.u0.tolist(), q.x0.tolist())), 1: q.x1[-1]}})


MIXTURE = _mixture()


def _model(policy, N, dep, fractions, size=LAW):
    """The model at ``fractions`` of the stability bound of ``policy`` with the by_type
    law (the same loads for the mixture: the bound is the by_type law's)."""
    bound = analyze(make_model(policy, N, [0.1], size=LAW, dependence=dep, r_slow=R_SLOW, p=P)).lambda_max
    loads = [f * bound for f in fractions]
    return make_model(policy, N, loads, size=size, dependence=dep, r_slow=R_SLOW, p=P)


@functools.cache
def _run(policy, N, dep, fractions, scale, engine=None):
    """(analysis, simulation) of the by_type law; per-server FCFS queues."""
    m = _model(policy, N, dep, fractions)
    a = analyze(m)
    jobs = int(JOBS * scale)
    res = simulate(m, np.random.SeedSequence(SEED), jobs, jobs // 10, REPS, 0.95, alpha=a.alpha, engine=engine)
    assert np.all(res.verdict == "stable"), res.verdict
    return a, res


def _within(res, exact, what):
    mean = getattr(res, f"{what}_mean")
    ci = getattr(res, f"{what}_mean_ci")
    exact = np.broadcast_to(np.asarray(exact, dtype=float), mean.shape)
    assert np.all(np.isfinite(ci)) and np.all(ci > 0)
    return np.abs(mean - exact) <= K * ci


def _report(res, exact, what):
    mean, ci = getattr(res, f"{what}_mean"), getattr(res, f"{what}_mean_ci")
    return f"{what}: exact {np.asarray(exact)} sim {mean} +- {ci} ({(mean - exact) / ci} half-widths)"


@pytest.mark.parametrize("dep", ["identical", "iid"])
@pytest.mark.parametrize("N", [2, 4])
def test_zero_redundancy_per_server_is_an_mg1_queue_per_type_mixture(N, dep, ci_scale):
    """ZRed with the analysis's assignment: the latency of the random dispatch (exact,
    Poisson thinning) and eq. 5's cost, at 0.3 and 0.6 of the bound. ZRed sends one
    copy, so identical and iid give the same jobs (both are run: the analysis reads the
    replica's marginal moments through the dependence)."""
    a, res = _run("ZRed", N, dep, (0.3, 0.6), ci_scale)
    assert a.latency_approx_kind == "exact" and a.cost_kind == "exact"
    assert np.all(_within(res, a.latency_approx, "latency")), _report(res, a.latency_approx, "latency")
    assert np.all(_within(res, a.cost, "cost")), _report(res, a.cost, "cost")


@pytest.mark.parametrize("engine", [None, "events"])
@pytest.mark.parametrize("dep", ["identical", "iid"])
def test_full_redundancy_on_one_server_per_pool_is_one_mg1_queue(dep, engine, ci_scale):
    """FRed, N = 2 (pools (1, 1)), at 0.6 of its exact bound: M/G/1 with service
    min(X_1 / r_1j, X_2 / r_2j) of the job's type j, cost twice its mean. Under identical
    copies the minimum is X_j (each type has speed 1 in its own pool); under iid it is
    the minimum of two draws of type j's law at speeds 1 and 0.5. The default engine and
    the event engine."""
    a, res = _run("FRed", 2, dep, (0.6,), ci_scale, engine)
    assert a.lambda_max_kind == "exact" and a.latency_approx_kind == "exact" and a.cost_kind == "exact"
    assert np.all(_within(res, a.latency_approx, "latency")), _report(res, a.latency_approx, "latency")
    assert np.all(_within(res, a.cost, "cost")), _report(res, a.cost, "cost")


def test_the_mixture_for_every_type_is_rejected(ci_scale):
    """Negative control: iid FRed, N = 2, simulated with the by_type law (the run of the
    test above), against the analysis of the mixture law given to every type. The
    mixture has the by_type law's distribution (so its mean, the load unit and the
    arrival rates are the same), but a type-j job's two iid copies are then two draws
    of the mixture, not of type j's law: the analysis's E[T] and cost both lie far
    outside the simulation's CI (while the by_type analysis lies inside)."""
    xs = np.linspace(0.0, 6.0, 6001)
    np.testing.assert_allclose(MIXTURE.sf(xs), LAW.sf(xs), rtol=0, atol=1e-12)
    assert MIXTURE.mean() == pytest.approx(LAW.mean(), rel=1e-12)

    a, res = _run("FRed", 2, "iid", (0.6,), ci_scale, None)  # the run above
    m_mix = _model("FRed", 2, "iid", (0.6,), size=MIXTURE)
    np.testing.assert_allclose(m_mix.rates(), _model("FRed", 2, "iid", (0.6,)).rates(), rtol=1e-12)
    mix = analyze(m_mix)
    assert mix.latency_approx_kind == "exact" and mix.cost_kind == "exact"
    assert np.all(_within(res, a.latency_approx, "latency")) and np.all(_within(res, a.cost, "cost"))
    assert not np.any(_within(res, mix.latency_approx, "latency")), _report(res, mix.latency_approx, "latency")
    assert not np.any(_within(res, mix.cost, "cost")), _report(res, mix.cost, "cost")
    # and by a wide margin: more than twice the tolerance
    assert np.all(np.abs(res.latency_mean - mix.latency_approx) > 2 * K * res.latency_mean_ci)
    assert np.all(np.abs(res.cost_mean - mix.cost) > 2 * K * res.cost_mean_ci)
