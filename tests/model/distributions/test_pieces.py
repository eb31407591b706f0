"""Order statistics and replica sums of the tabulated laws (a sample, a quantile table, a
discrete law) as exact sums over their quantile function's pieces, each against an
independent evaluation: brute force over every tuple of a small sample, adaptive quadrature
of Q(u)^m against the Beta density, the generic quadrature of the replica sums, and Monte
Carlo of 10^7 draws."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from straggler.engines.analysis.order_statistics import order_statistic_moment
from straggler.engines.analysis.replica_bounds import mean_sum_smallest
from straggler.model.distributions import Discrete, Distribution, Empirical, Quantiles, sample_many

SAMPLE = [0.5, 1.5, 1.5, 2.0, 9.0]  # a tie: an atom of the interpolated law
TABLE = {0: 0.1, 0.5: 1.0, 0.9: 4.0, 0.99: 12.0, 1: 40.0}
KN = [(1, 1), (1, 2), (2, 2), (1, 3), (2, 3), (3, 3), (2, 5), (4, 7)]


@pytest.fixture(scope="module")
def sample_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("pieces") / "sizes.txt"
    path.write_text("\n".join(map(str, SAMPLE)) + "\n")
    return str(path)


def _quadrature_order_moment(law: Distribution, k: int, n: int, m: int) -> float:
    """int_0^1 Q(u)^m b_{k, n-k+1}(u) du by adaptive quadrature on each piece of u."""
    q = law.quantile_pieces()
    beta = stats.beta(k, n - k + 1)
    total = 0.0
    for u0, u1, x0, x1 in zip(q.u0, q.u1, q.x0, q.x1):

        def f(u, u0=u0, u1=u1, x0=x0, x1=x1):
            return (x0 + (u - u0) * (x1 - x0) / (u1 - u0)) ** m * beta.pdf(u)

        total += integrate.quad(f, u0, u1, epsabs=0.0, epsrel=1e-13, limit=200)[0]
    return total


def test_order_statistics_of_a_sample_are_the_average_over_every_tuple(sample_file):
    law = Empirical(sample_file)
    for k, n in [(k, n) for k, n in KN if n <= 5]:
        ordered = np.sort(np.array(list(itertools.product(SAMPLE, repeat=n))), axis=1)[:, k - 1]
        for m in (1, 2):
            assert order_statistic_moment(law, k, n, m) == pytest.approx(np.mean(ordered**m), rel=1e-13)


@pytest.mark.parametrize("kind", ["interpolated", "quantiles"])
def test_order_statistics_of_a_linear_quantile_function_are_its_integrals(sample_file, kind):
    law = Empirical(sample_file, interpolate=True) if kind == "interpolated" else Quantiles(TABLE)
    for k, n in KN + [(10, 40), (40, 40)]:
        for m in (1, 2):
            exact = order_statistic_moment(law, k, n, m)
            assert exact == pytest.approx(_quadrature_order_moment(law, k, n, m), rel=1e-11)
    # the minimum of d: the segment law's own exact sum of int P(X > x)^d dx
    for d in (2, 3, 8):
        assert order_statistic_moment(law, 1, d, 1) == pytest.approx(law.mean_min_of(d), rel=1e-13)


@pytest.mark.parametrize("kind", ["interpolated", "quantiles"])
def test_order_statistics_against_ten_million_draws(sample_file, kind):
    """Monte Carlo of 10^7 draws (the project's own sampler), within 4.5 standard errors."""
    law = Empirical(sample_file, interpolate=True) if kind == "interpolated" else Quantiles(TABLE)
    n = 3
    draws = sample_many(law, 9_999_999, np.random.default_rng(20261204)).reshape(-1, n)
    ordered = np.sort(draws, axis=1)
    for k in (1, 2, 3):
        for m in (1, 2):
            v = ordered[:, k - 1] ** m
            se = v.std(ddof=1) / math.sqrt(v.size)
            assert abs(order_statistic_moment(law, k, n, m) - v.mean()) < 4.5 * se


GROUPS = [[(1.0, 2)], [(1.0, 2), (0.5, 1)], [(2.0, 1), (0.25, 2)], [(1.0, 4)]]


@pytest.mark.parametrize("groups", GROUPS)
def test_replica_sums_of_a_sample_are_the_average_over_every_tuple(sample_file, groups):
    """E[sum of the k smallest of c_g X]: every tuple of the sample's values."""
    law = Empirical(sample_file)
    scales = [c for c, m in groups for _ in range(m)]
    tuples = np.array(list(itertools.product(SAMPLE, repeat=len(scales)))) * np.array(scales)
    ordered = np.sort(tuples, axis=1)
    for k in range(1, len(scales) + 1):
        brute = np.mean(ordered[:, :k].sum(axis=1))
        assert mean_sum_smallest(law, groups, k) == pytest.approx(brute, rel=1e-13)


def _shortfall_by_enumeration(law: Distribution, scales: list[float], k: int, t: float) -> float:
    """E[(k - N_t)^+], N_t the number of replicas c_s X_s done by t: every done/not-done
    outcome of the replicas, weighted by its probability."""
    done = [1.0 - law._sf_scalar(t / c) for c in scales]
    total = 0.0
    for outcome in itertools.product((0, 1), repeat=len(scales)):
        weight = math.prod(f if o else 1.0 - f for o, f in zip(outcome, done))
        total += weight * max(k - sum(outcome), 0)
    return total


@pytest.mark.parametrize("groups", GROUPS)
@pytest.mark.parametrize("kind", ["interpolated", "quantiles", "discrete"])
def test_replica_sums_are_the_integral_of_the_shortfall(sample_file, groups, kind):
    """int_0^inf E[(k - N_t)^+] dt by adaptive quadrature (relative 1e-13) between the
    scaled knots, the integrand by enumeration."""
    laws = {
        "interpolated": lambda: Empirical(sample_file, interpolate=True),
        "quantiles": lambda: Quantiles(TABLE),
        "discrete": lambda: Discrete((10.0, 1000.0, 3.0), (0.7, 0.01, 0.29)),
    }
    law = laws[kind]()
    scales = [c for c, m in groups for _ in range(m)]
    q = law.quantile_pieces()
    knots = np.unique(np.concatenate((q.x0, q.x1)))
    breaks = np.unique(np.concatenate([c * knots for c in scales]))
    for k in range(1, len(scales) + 1):
        below = k * breaks[0]  # nothing is done before the smallest scaled knot
        pieces = [
            integrate.quad(
                lambda t: _shortfall_by_enumeration(law, scales, k, t), a, b, epsabs=0.0, epsrel=1e-13, limit=200
            )[0]
            for a, b in zip(breaks, breaks[1:])
        ]
        assert mean_sum_smallest(law, groups, k) == pytest.approx(below + math.fsum(pieces), rel=1e-12)


def test_a_large_discrete_law_is_analysed_in_sums_not_quadratures():
    """10^4 atoms: the replica sum equals E[min of 2] (an identity), and the law's
    tails are fsum's correctly rounded sums, computed once."""
    rng = np.random.default_rng(4)
    values = np.round(rng.lognormal(2.0, 1.0, 10_000), 3)
    p = rng.random(10_000)
    law = Discrete(tuple(values.tolist()), tuple((p / p.sum()).tolist()))
    pair = mean_sum_smallest(law, [(1.0, 2)], 1)
    both = mean_sum_smallest(law, [(1.0, 2)], 2)
    assert pair == pytest.approx(law.mean_min_of(2), rel=1e-13)
    assert both == pytest.approx(2.0 * law.mean(), rel=1e-13)  # the sum of both copies
    atoms = law.point_masses()
    for j in (0, 1, 17, len(atoms) // 2, len(atoms) - 2, len(atoms) - 1):
        below = np.nextafter(atoms[j][0], 0.0)  # P(X > x) just below atom j: its tail
        assert law.sf(below) == min(1.0, math.fsum(q for _, q in atoms[j:]))
    # masses over 300 orders of magnitude: every tail is fsum's correctly rounded sum
    wide = rng.random(500) * 10.0 ** rng.integers(-300, 0, 500)
    spread = Discrete(tuple(range(1, 501)), tuple((wide / wide.sum()).tolist()))
    masses = spread.point_masses()
    tails = spread.sf(np.array([v for v, _ in masses]) - 0.5)
    assert tails.tolist() == [min(1.0, math.fsum(q for _, q in masses[j:])) for j in range(len(masses))]
    x = float(np.sort(values)[4321])
    assert law.sf(x) == law._sf_scalar(x) == min(1.0, math.fsum(q for v, q in law.point_masses() if v > x))


def test_a_two_atom_law_keeps_its_numbers():
    """The shipped studies' two-atom laws: the tails and E[min of d] are what the
    sequential sums gave."""
    law = Discrete((10.0, 1000.0), (0.99, 0.01))
    assert law.sf(5.0) == 0.99 + 0.01 and law.sf(10.0) == 0.01 and law.sf(1000.0) == 0.0
    for d in (1, 2, 4):
        assert law.mean_min_of(d) == math.fsum([10.0 * min(0.99 + 0.01, 1.0) ** d, 990.0 * 0.01**d])


@pytest.mark.parametrize("kind", ["sample", "interpolated", "quantiles", "discrete"])
def test_the_load_ratio_over_a_grid_of_timeouts_is_the_pointwise_one(sample_file, kind):
    """The speculation paper's L(tau) for a whole grid at once (prefix sums over the
    pieces) against L at each tau, with identical and i.i.d. replicas; for a sample the
    optimal timeout is the best atom, as evaluating L at every value of the sample says."""
    from straggler.engines.analysis import speculation
    from straggler.model.dependence import IID, Identical

    law = {
        "sample": lambda: Empirical(sample_file),
        "interpolated": lambda: Empirical(sample_file, interpolate=True),
        "quantiles": lambda: Quantiles(TABLE),
        "discrete": lambda: Discrete((10.0, 1000.0, 3.0), (0.7, 0.01, 0.29)),
    }[kind]()
    q = law.quantile_pieces()
    knots = np.unique(np.concatenate((q.x0, q.x1)))
    taus = np.concatenate((knots, np.nextafter(knots, 0.0), np.geomspace(0.01, 2000.0, 41), [0.0, math.inf]))
    for dep in (IID(), Identical()):
        curve = speculation.load_ratio_curve(taus, law, dep)
        pointwise = [speculation.load_ratio(t, law, dep) for t in taus]
        np.testing.assert_allclose(curve, pointwise, rtol=1e-13)
    if kind == "sample":
        best = min(SAMPLE, key=lambda v: speculation.load_ratio(v, law, IID()))
        found = speculation.optimal_timeout(law, IID())
        assert found.tau == best and found.L == speculation.load_ratio(best, law, IID())
