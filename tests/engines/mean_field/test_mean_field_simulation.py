"""The mean-field tier against the project's own simulator at N = 1,000 servers.

The mean-field equilibrium is the N -> infinity limit; at finite N the simulated mean
latency exceeds it by an O(1/N) bias. Measured with these laws at N = 100 and 250 (the
same runs as here), N times the relative bias is about 1.7 for CoC with identical
copies and 0.5 for RIQ, and the N = 1,000 runs agree within 0.2 %. The tolerance is
therefore 4 confidence-interval half-widths at 95 % (about 8 standard errors: the
simulation's noise) plus a bias allowance of 5 / N = 0.5 % (the largest measured
constant, with a margin of three), plus the solver's own stated error; the quantiles
add the width of a bin of the simulator's latency histogram (2^-8, relative). Each run
warms up over 2,000 jobs per server. CI runs them at a quarter of the size (the
intervals widen, the rule does not change).
"""

from __future__ import annotations

import numpy as np
import pytest

from straggler.engines import mean_field as mf
from straggler.engines.simulation import simulate
from straggler.engines.simulation.reference import make_model
from straggler.model import distributions as D
from straggler.model.dependence import from_spec

N = 1000
LOAD = 0.5
K = 4.0  # confidence-interval half-widths
BIAS = 5.0 / N  # the finite-N bias allowance, relative
HIST_BIN = 2.0**-8  # the simulator's latency histogram: relative width of a bin
QUANTILE_LEVELS = (0.5, 0.9, 0.99)  # of the simulator's levels, those the grid resolves

LOGNORMAL = D.Lognormal(mean_value=1.0, cv=1.5)
H2 = D.Hyperexponential(p=(0.9, 0.1), rates=(2.0, 0.2))


@pytest.mark.slow
@pytest.mark.parametrize(
    "policy, dependence, size",
    [
        ("CoC", "identical", LOGNORMAL),
        ("CoC", "iid", LOGNORMAL),
        ("CoC", {"kind": "mixture", "identical": 0.5}, LOGNORMAL),
        ("CoC", "iid", H2),
        ("RIQ", "iid", LOGNORMAL),
        ("CoS", "iid", H2),
    ],
    ids=[
        "coc-identical-lognormal",
        "coc-iid-lognormal",
        "coc-mixture-lognormal",
        "coc-iid-h2",
        "riq-iid-lognormal",
        "cos-h2",
    ],
)
def test_the_mean_field_limit_is_what_a_thousand_servers_do(policy, dependence, size, ci_scale):
    from straggler.engines.simulation.statistics import QUANTILES

    eq = mf.solve(policy, 2, size, from_spec(dependence), LOAD)
    assert eq.stable
    model = make_model(policy, N, [LOAD], size=size, dependence=dependence, d=2, two_pools=False)
    jobs = int(1_000_000 * ci_scale)
    res = simulate(model, np.random.SeedSequence(2025), jobs, 2_000 * N, 4, 0.95, workers=2)
    assert res.verdict[0] != "unstable"
    latency, latency_ci = float(res.latency_mean[0]), float(res.latency_mean_ci[0])
    assert latency_ci <= 0.01 * latency * (1.0 if ci_scale == 1.0 else 2.0)
    assert abs(latency - eq.latency_mean) <= K * latency_ci + (BIAS + eq.error) * eq.latency_mean, (latency, eq)
    cost, cost_ci = float(res.cost_mean[0]), float(res.cost_mean_ci[0])
    assert abs(cost - eq.cost) <= K * cost_ci + (BIAS + eq.error) * eq.cost, (cost, eq.cost)
    for level in QUANTILE_LEVELS:
        i = QUANTILES.index(level)
        sim_q, sim_ci = float(res.latency_quantile[0, i]), float(res.latency_quantile_ci[0, i])
        mf_q = eq.latency_quantile(level)
        assert abs(sim_q - mf_q) <= K * sim_ci + (BIAS + HIST_BIN + eq.error) * mf_q, (level, sim_q, sim_ci, mf_q)
