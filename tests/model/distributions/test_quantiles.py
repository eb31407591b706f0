"""The law of a quantile table (``family: quantiles``): exact functionals, draws, errors,
and a study that analyses and simulates it."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate

from straggler.model.distributions import Distribution, ParameterError, Quantiles, from_spec, sample_many
from straggler.study.config import ConfigError, resolve_config
from straggler.study.evaluate import evaluate_cell
from straggler.study.grid import build_grid

TABLE = {0: 0.1, 0.5: 1.0, 0.9: 4.0, 0.99: 12.0, 1: 40.0}
PS = [0.0, 0.5, 0.9, 0.99, 1.0]
XS = [0.1, 1.0, 4.0, 12.0, 40.0]


def quantile(u):
    """The table's quantile function, linear between its points (numpy's interp)."""
    return np.interp(u, PS, XS)


def test_the_functionals_are_the_quantile_function_s_integrals():
    """Each functional against an independent evaluation: E[g(X)] = int_0^1 g(Q(u)) du over
    the table's segments (Gauss-Kronrod on each, where Q is linear), and E[min of d] as
    int_0^inf P(X > x)^d dx by adaptive quadrature cut at the knots."""
    law = Quantiles(TABLE)

    def expect(g):
        return sum(
            integrate.quad(lambda u: g(quantile(u)), a, b, epsabs=1e-13, epsrel=1e-13)[0] for a, b in zip(PS, PS[1:])
        )

    assert law.mean() == pytest.approx(expect(lambda x: x), rel=1e-12)
    assert law.second_moment() == pytest.approx(expect(lambda x: x * x), rel=1e-12)
    for t in (0.05, 0.5, 2.0, 11.0, 50.0):
        assert law.mean_min(t) == pytest.approx(expect(lambda x: min(x, t)), rel=1e-12)
        assert law.second_moment_min(t) == pytest.approx(expect(lambda x: min(x, t) ** 2), rel=1e-12)
        assert law.partial_mean(t) == pytest.approx(expect(lambda x: x * (x > t)), rel=1e-10, abs=1e-13)
        assert law.partial_second_moment(t) == pytest.approx(expect(lambda x: x * x * (x > t)), rel=1e-10, abs=1e-12)
    for d in (1, 2, 3, 8):
        by_quadrature = Distribution.mean_min_of(law, d)  # the generic quadrature, cut at breaks()
        assert law.mean_min_of(d) == pytest.approx(by_quadrature, rel=1e-9)
    # P(X > Q(u)) = 1 - u, and the density integrates to 1
    u = np.linspace(0.001, 0.999, 97)
    np.testing.assert_allclose(law.sf(quantile(u)), 1.0 - u, atol=1e-12)
    total = sum(integrate.quad(lambda x: float(law.pdf(x)), a, b)[0] for a, b in zip(XS, XS[1:]))
    assert total == pytest.approx(1.0, rel=1e-12)


def test_monte_carlo_agrees_with_the_exact_values():
    """10^6 draws of the sampler: the sample mean, second moment and mean of the minimum of
    two within 4.5 standard errors of the exact values (a false alarm about once in 10^5)."""
    law = Quantiles(TABLE)
    draws = sample_many(law, 2_000_000, np.random.default_rng(3))
    pairs = np.minimum(draws[::2], draws[1::2])
    for values, exact in ((draws, law.mean()), (draws**2, law.second_moment()), (pairs, law.mean_min_of(2))):
        se = values.std(ddof=1) / np.sqrt(values.size)
        assert abs(values.mean() - exact) <= 4.5 * se, (values.mean(), exact, se)


def test_a_draw_is_the_quantile_function_at_one_uniform():
    law = Quantiles(TABLE)
    u = np.random.default_rng(11).random(10_000)
    np.testing.assert_allclose(sample_many(law, 10_000, np.random.default_rng(11)), quantile(u), rtol=1e-13)


def test_a_flat_step_is_an_atom_and_scaling_keeps_the_shape():
    law = Quantiles({0: 0.0, 0.2: 2.0, 0.5: 2.0, 1: 5.0}, scale_to_mean=1.0)
    assert law.mean() == pytest.approx(1.0, rel=1e-14)
    ((at, mass),) = law.point_masses()
    assert mass == pytest.approx(0.3) and at == pytest.approx(
        2.0 / Quantiles({0: 0.0, 0.2: 2.0, 0.5: 2.0, 1: 5.0}).mean()
    )
    assert from_spec({"family": "quantiles", "quantiles": {"0": 1, "1": 3}}).mean() == pytest.approx(2.0)


@pytest.mark.parametrize(
    "table, message",
    [
        ({0: 1.0, 0.5: 2.0}, "must include probabilities 0 and 1 .*missing 1"),
        ({0.5: 1.0, 1: 2.0}, "missing 0"),
        ({0: 1.0, 1.5: 2.0, 1: 3.0}, "1.5 is not a probability"),
        ({0: 1.0, "p50": 2.0, 1: 3.0}, "'p50' is not a probability"),
        ({0: 1.0, 0.5: 3.0, 1: 2.0}, "must not decrease: the size at 1 .*2.*below the size at 0.5"),
        ({0: 1.0, 1: -2.0}, "the size at 1 must be a finite number >= 0, got -2"),
        ({0: 0.0, 1: 0.0}, "positive mean"),
        ([1, 2, 3], "must map probabilities to sizes"),
    ],
)
def test_a_bad_table_names_what_is_wrong(table, message):
    with pytest.raises(ParameterError, match=message) as err:
        Quantiles(table)
    assert err.value.parameter == "quantiles"


def _study(**law):
    return {
        "study": "table",
        "grid": {"policy": ["ZRed", "CoC"], "distribution": ["p"], "dependence": ["iid"], "N": [3], "d": [2]},
        "load": [0.5],
        "distributions": {"p": {"family": "quantiles", **law}},
        "simulation": {"jobs": 20000, "warmup": 2000, "replications": 3},
    }


def test_a_bad_table_in_a_study_is_refused_before_any_work():
    with pytest.raises(ConfigError, match=r"distributions\.p\.quantiles: quantiles must not decrease"):
        resolve_config(_study(quantiles={0: 1.0, 0.5: 3.0, 1: 2.0}))


def test_a_quantile_table_is_analysed_and_simulated():
    """ZRed is random dispatch to M/G/1 queues: its latency is Pollaczek-Khinchine's from
    the table's two exact moments, and the simulation's interval holds it."""
    cfg = resolve_config(_study(quantiles=TABLE, scale_to_mean=1.0))
    law = from_spec(cfg.distributions["p"])
    zred = next(c for c in build_grid(cfg).cells if "ZRed" in c)
    ds = evaluate_cell(cfg, zred)
    lam = 0.5  # per server: load 0.5 with E[X] = 1
    pk = 1.0 + lam * law.second_moment() / (2 * (1 - lam))
    assert float(ds["latency_approx"].values[0]) == pytest.approx(pk, rel=1e-12)
    assert str(ds["latency_approx_kind"].values) == "exact"
    half = float(ds["latency_mean_ci"].values[0])
    assert abs(float(ds["latency_mean"].values[0]) - pk) <= half
