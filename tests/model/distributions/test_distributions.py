"""Tests of straggler.model.distributions: closed forms against the base-class
quadrature, against Monte Carlo from the numba sampler, scaling, config round
trips, validation and tail classes."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import straggler.model.distributions as D
from straggler.model.distributions import (
    FAMILIES,
    PARAMETERS,
    BoundedPareto,
    ByType,
    Deterministic,
    Discrete,
    Distribution,
    Empirical,
    Erlang,
    Exponential,
    Hyperexponential,
    Lognormal,
    Pareto,
    Quantiles,
    ShiftedExponential,
    Uniform,
    Weibull,
    from_spec,
    sample,
    sample_many,
)

B = Distribution  # the generic (quadrature) implementations

# 300 request durations in ms (a lognormal body, a slow mode, rounded to 0.1 ms: ties)
TRACE = str(Path(__file__).parents[2] / "data" / "request_ms.csv")

CASES = [
    Exponential(1.0),
    Exponential(10.0),
    Deterministic(3.0),
    Pareto(1.0, 10.0 / 9.0),
    Pareto(2.0, 2.5),
    Pareto(0.5, 5.0),
    BoundedPareto(1.0, 1000.0, 1.5),
    BoundedPareto(0.1, 10.0, 1.0),
    BoundedPareto(1.5, 2.0, 3.0),
    ShiftedExponential(1.0, 2.0),
    ShiftedExponential(0.0, 1.0),
    Hyperexponential([0.3, 0.7], [0.2, 3.0]),
    Hyperexponential([0.2, 0.5, 0.3], [0.1, 1.0, 10.0]),
    Erlang(1, 2.0),
    Erlang(3, 6.0),
    Erlang(20, 1.0),
    Weibull(0.5, 2.0),
    Weibull(1.0, 1.0),
    Weibull(2.5, 2.0),
    Uniform(0.0, 1.0),
    Uniform(1.0, 4.0),
    Discrete([1.0, 10.0], [0.9, 0.1]),
    Discrete([0.5, 2.0, 1.0], [0.2, 0.3, 0.5]),
    Discrete([0.0, 2.0], [0.5, 0.5]),
    Lognormal(5.0, 2.0),
    Lognormal(1.0, 0.3),
    Empirical(TRACE, "duration_ms"),
    Empirical(TRACE, "duration_ms", interpolate=True, scale_to_mean=1.0),
    Quantiles({0: 0.1, 0.5: 1.0, 0.9: 4.0, 0.99: 12.0, 1: 40.0}),
    # a flat step (an atom of 0.3 at 2) and a probability written as a string
    Quantiles({0: 0.0, "0.2": 2.0, 0.5: 2.0, 1: 5.0}, scale_to_mean=1.0),
    # a law per job type, as one law (the mixture): every family a type may have, atoms
    # (discrete, deterministic) inside a continuous part (quantiles, uniform)
    ByType(
        (
            Quantiles({0: 0.1, 0.5: 1.0, 0.9: 4.0, 1: 10.0}),
            Discrete([0.5, 2.0, 7.0], [0.5, 0.3, 0.2]),
            Uniform(1.0, 3.0),
            Deterministic(2.0),
        ),
        p=(0.4, 0.3, 0.2, 0.1),
    ),
]


def case_id(d: Distribution) -> str:
    # a data-backed law by its file's name: the same id on every machine
    if isinstance(d, Empirical):
        return f"Empirical({Path(d.file).name}, interpolate={d.interpolate}, scale_to_mean={d.scale_to_mean})"
    if isinstance(d, ByType):
        return f"ByType({', '.join(law.family for law in d.laws)}, p={d.p})"
    return repr(d)


IDS = [case_id(d) for d in CASES]

EXPECTED_TAIL = {
    "Exponential(mean_value=1.0)": "both",
    "Exponential(mean_value=10.0)": "both",
    "Deterministic(value=3.0)": "log-concave",
    # log-convex on the support [xm, inf) only: the kink at xm is concave
    "Pareto(xm=1.0, alpha=1.1111111111111112)": "neither",
    "Pareto(xm=2.0, alpha=2.5)": "neither",
    "Pareto(xm=0.5, alpha=5.0)": "neither",
    "BoundedPareto(low=1.0, high=1000.0, alpha=1.5)": "neither",
    "BoundedPareto(low=0.1, high=10.0, alpha=1.0)": "neither",
    "BoundedPareto(low=1.5, high=2.0, alpha=3.0)": "log-concave",
    "ShiftedExponential(shift=1.0, tail_mean=2.0)": "log-concave",
    "ShiftedExponential(shift=0.0, tail_mean=1.0)": "both",
    "Hyperexponential(p=(0.3, 0.7), rates=(0.2, 3.0))": "log-convex",
    "Hyperexponential(p=(0.2, 0.5, 0.3), rates=(0.1, 1.0, 10.0))": "log-convex",
    "Erlang(k=1, mean_value=2.0)": "both",
    "Erlang(k=3, mean_value=6.0)": "log-concave",
    "Erlang(k=20, mean_value=1.0)": "log-concave",
    "Weibull(shape=0.5, scale=2.0)": "log-convex",
    "Weibull(shape=1.0, scale=1.0)": "both",
    "Weibull(shape=2.5, scale=2.0)": "log-concave",
    "Uniform(low=0.0, high=1.0)": "log-concave",
    "Uniform(low=1.0, high=4.0)": "log-concave",
    "Discrete(values=(1.0, 10.0), p=(0.9, 0.1))": "neither",
    "Discrete(values=(0.5, 2.0, 1.0), p=(0.2, 0.3, 0.5))": "neither",
    "Discrete(values=(0.0, 2.0), p=(0.5, 0.5))": "neither",
    "Lognormal(mean_value=5.0, cv=2.0)": "neither",
    "Lognormal(mean_value=1.0, cv=0.3)": "neither",
    "Empirical(request_ms.csv, interpolate=False, scale_to_mean=None)": "neither",
    "Empirical(request_ms.csv, interpolate=True, scale_to_mean=1.0)": "neither",
    "Quantiles(quantiles=((0.0, 0.1), (0.5, 1.0), (0.9, 4.0), (0.99, 12.0), (1.0, 40.0)), scale_to_mean=None)": "neither",
    "Quantiles(quantiles=((0.0, 0.0), (0.2, 2.0), (0.5, 2.0), (1.0, 5.0)), scale_to_mean=1.0)": "neither",
    "ByType(quantiles, discrete, uniform, deterministic, p=(0.4, 0.3, 0.2, 0.1))": "neither",
}
# where the shape on the support differs from the shape on x >= 0
EXPECTED_TAIL_ON_SUPPORT = {
    **EXPECTED_TAIL,
    "Pareto(xm=1.0, alpha=1.1111111111111112)": "log-convex",
    "Pareto(xm=2.0, alpha=2.5)": "log-convex",
    "Pareto(xm=0.5, alpha=5.0)": "log-convex",
    "ShiftedExponential(shift=1.0, tail_mean=2.0)": "both",
}


def test_cases_cover_every_family():
    assert {d.family for d in CASES} == set(FAMILIES)
    assert set(EXPECTED_TAIL) == set(IDS)


def points(dist: Distribution) -> list[float]:
    """Evaluation points: fractions of the mean, the support ends, the atoms."""
    m = dist.mean()
    lo, hi = dist.support()
    pts = [0.05 * m, 0.3 * m, m, 2.5 * m, 12.0 * m, lo, 0.5 * (lo + min(hi, 10 * m))]
    if math.isfinite(hi):
        pts += [hi, 0.999 * hi]
    pts += list(dist.atoms())
    return sorted({float(p) for p in pts if p >= 0})


def close(a: float, b: float, scale: float, rel: float = 1e-9) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= rel * max(abs(a), abs(b), scale)


def finite_moment(dist: Distribution, k: float) -> bool:
    """E[X^k] < inf (only the Pareto has infinite moments here)."""
    return not isinstance(dist, Pareto) or dist.alpha > k


# ----------------------------------------------------------------------------------
# closed forms against the generic quadrature
# ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dist", CASES, ids=IDS)
def test_closed_forms_match_quadrature(dist):
    m, m2 = dist.mean(), dist.second_moment()
    s2 = m2 if math.isfinite(m2) else m * m
    for t in points(dist):
        assert close(dist.mean_min(t), B.mean_min(dist, t), m), ("mean_min", t)
        assert close(dist.second_moment_min(t), B.second_moment_min(dist, t), s2), ("second_moment_min", t)
        assert close(dist.partial_mean(t), B.partial_mean(dist, t), m), ("partial_mean", t)
        assert close(dist.partial_second_moment(t), B.partial_second_moment(dist, t), s2), (
            "partial_second_moment",
            t,
        )
    for d in (1, 2, 3, 5, 10):
        assert close(dist.mean_min_of(d), B.mean_min_of(dist, d), m), ("mean_min_of", d)


@pytest.mark.parametrize("dist", CASES, ids=IDS)
def test_moments_match_density_and_survival(dist):
    m, m2 = dist.mean(), dist.second_moment()
    # int_0^inf P(X > x) dx, computed independently of the closed-form mean
    assert close(B.partial_mean(dist, 0.0), m, m)
    assert close(dist.expect(lambda x: 1.0), 1.0, 1.0)
    assert close(dist.expect(lambda x: x), m, m)
    if math.isfinite(m2):
        assert close(dist.expect(lambda x: x * x), m2, m2)
        assert close(B.partial_second_moment(dist, 0.0), m2, m2)
        assert dist.variance() >= -1e-12 * m2
    else:
        assert math.isinf(dist.variance()) and math.isinf(dist.scv())


@pytest.mark.parametrize("dist", CASES, ids=IDS)
def test_identities_and_limits(dist):
    m = dist.mean()
    assert dist.mean_min(0.0) == 0.0 and dist.second_moment_min(-1.0) == 0.0
    assert dist.mean_min(math.inf) == pytest.approx(m, rel=1e-12)
    assert dist.partial_mean(math.inf) == 0.0
    assert dist.partial_mean(0.0) == pytest.approx(m, rel=1e-12) or dist.sf(0.0) < 1
    prev = 0.0
    for t in points(dist):
        mm = dist.mean_min(t)
        # E[min(X,t)] + E[X 1{X>t}] - t P(X>t) = E[X]
        assert close(mm + dist.partial_mean(t) - t * dist.sf(t), m, m)
        assert mm <= min(t, m) * (1 + 1e-12) and mm >= prev - 1e-12 * m
        prev = mm
    for d in range(1, 6):
        assert dist.mean_min_of(d + 1) <= dist.mean_min_of(d) * (1 + 1e-12)
    assert dist.mean_min_of(1) == pytest.approx(m, rel=1e-12)


@pytest.mark.parametrize("dist", CASES, ids=IDS)
def test_sf_pdf_vectorised_and_consistent(dist):
    lo, hi = dist.support()
    xs = np.array(points(dist) + [-1.0])
    vec = dist.sf(xs)
    assert isinstance(vec, np.ndarray) and vec.shape == xs.shape
    assert isinstance(dist.sf(1.0), float) and isinstance(dist.pdf(1.0), float)
    for x, v in zip(xs, vec):
        assert v == pytest.approx(dist.sf(float(x)), rel=1e-12, abs=1e-15)
        assert v == pytest.approx(dist._sf_scalar(float(x)), rel=1e-12, abs=1e-15)
        assert 0.0 <= v <= 1.0
    assert dist.sf(-1.0) == 1.0
    assert np.allclose(dist.cdf(xs), 1.0 - vec)
    if math.isclose(sum(q for _, q in dist.point_masses()), 1.0):  # purely atomic
        assert np.all(dist.pdf(xs) == 0.0)
        return
    # pdf = -d/dx sf at interior points away from kinks
    m = dist.mean()
    for x in (0.3 * m, 0.9 * m, 2.0 * m):
        if not (lo < x - 1e-4 * m and x + 1e-4 * m < hi):
            continue
        h = 1e-5 * m
        deriv = -(dist.sf(x + h) - dist.sf(x - h)) / (2 * h)
        assert dist.pdf(x) == pytest.approx(deriv, rel=1e-5, abs=1e-9 / m)
        assert dist.pdf(x) == pytest.approx(dist._pdf_scalar(x), rel=1e-12)
        if dist.sf(x) > 0:
            assert dist.hazard(x) == pytest.approx(dist.pdf(x) / dist.sf(x), rel=1e-12)


# ----------------------------------------------------------------------------------
# Monte Carlo from the numba sampler
# ----------------------------------------------------------------------------------

MC_N = 200_000


def mc_check(name, values: np.ndarray, exact: float):
    n = values.size
    est = float(values.mean())
    se = float(values.std(ddof=1)) / math.sqrt(n)
    tol = 4.0 * se + 1e-12 * max(abs(exact), 1.0)
    assert abs(est - exact) <= tol, f"{name}: MC {est} +- {se}, exact {exact}"


def quantile_point(dist: Distribution, q: float) -> float:
    """Smallest t (to bisection accuracy) with P(X > t) <= q."""
    lo, hi = dist.support()
    a, b = 0.0, hi if math.isfinite(hi) else dist.mean()
    while dist.sf(b) > q:
        b *= 2.0
    for _ in range(200):
        mid = 0.5 * (a + b)
        a, b = (mid, b) if dist.sf(mid) > q else (a, mid)
    return b


@pytest.mark.parametrize("dist", CASES, ids=IDS)
def test_monte_carlo(dist):
    seed = 20240 + CASES.index(dist)
    x = sample_many(dist, MC_N, np.random.default_rng(seed))
    assert x.dtype == np.float64 and x.shape == (MC_N,)
    lo, hi = dist.support()
    assert x.min() >= lo - 1e-12 * max(lo, 1) and x.max() <= hi + 1e-12 * max(hi, 1)
    m = dist.mean()
    two, four = finite_moment(dist, 2), finite_moment(dist, 4)
    if two:
        mc_check("mean", x, m)
    if four:
        mc_check("second_moment", x * x, dist.second_moment())
    # at quantiles (sf 0.8, 0.5, 0.1) and at the mean, where no event is too rare
    for t in sorted({quantile_point(dist, q) for q in (0.8, 0.5, 0.1)} | {m}):
        mc_check(f"sf({t})", (x > t).astype(float), dist.sf(t))
        mc_check(f"mean_min({t})", np.minimum(x, t), dist.mean_min(t))
        mc_check(f"second_moment_min({t})", np.minimum(x, t) ** 2, dist.second_moment_min(t))
        if two:
            mc_check(f"partial_mean({t})", x * (x > t), dist.partial_mean(t))
        if four:
            mc_check(f"partial_second_moment({t})", x * x * (x > t), dist.partial_second_moment(t))
    for d in (2, 3):
        mins = x[: (MC_N // d) * d].reshape(-1, d).min(axis=1)
        # the minimum of d Pareto(alpha) is Pareto(d alpha): needs a finite variance
        if not isinstance(dist, Pareto) or d * dist.alpha > 2:
            mc_check(f"mean_min_of({d})", mins, dist.mean_min_of(d))


def test_sampler_kernel_direct_and_reproducible():
    dist = Hyperexponential([0.25, 0.75], [0.5, 2.0])
    a = sample_many(dist, 1000, np.random.default_rng(7))
    b = sample_many(dist, 1000, np.random.default_rng(7))
    assert np.array_equal(a, b)
    assert np.array_equal(sample_many(dist, 1000, 7), a)
    rng = np.random.default_rng(3)
    v = sample(dist.code, dist.sampler_params(), rng)
    assert isinstance(v, float) and v > 0
    with pytest.raises(ValueError, match="unknown distribution code"):
        sample(99, np.zeros(2), rng)


def test_sampler_params_and_codes():
    codes = [cls.code for cls in FAMILIES.values()]
    assert len(set(codes)) == len(codes)
    for dist in CASES:
        p = dist.sampler_params()
        assert p.dtype == np.float64 and p.ndim == 1 and np.all(np.isfinite(p))
    # variable-length families, zero-probability entries dropped: the hyperexponential's
    # [n, probs..., rates...], the discrete law's [n, cumulative probs..., values...]
    p = Hyperexponential([0.5, 0.0, 0.5], [1.0, 2.0, 3.0]).sampler_params()
    assert list(p) == [2.0, 0.5, 0.5, 1.0, 3.0]
    # (then its guide table: m = n buckets, g_0 = 0, g_1 = the first i with c_i > 0)
    p = Discrete([2.0, 1.0], [0.4, 0.6]).sampler_params()
    assert list(p) == [2.0, 0.6, 0.6 + 0.4, 1.0, 2.0, 2.0, 0.0, 0.0]


# ----------------------------------------------------------------------------------
# scaling, config round trip, scale_to_mean
# ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dist", CASES, ids=IDS)
def test_scaled(dist):
    f = 2.5
    s = dist.scaled(f)
    assert type(s) is type(dist) and s.tail_class() == dist.tail_class()
    m, m2 = dist.mean(), dist.second_moment()
    assert s.mean() == pytest.approx(f * m, rel=1e-12)
    assert s.second_moment() == pytest.approx(f * f * m2, rel=1e-12)
    for t in points(dist):
        assert s.sf(f * t) == pytest.approx(dist.sf(t), rel=1e-9, abs=1e-14)
        assert s.mean_min(f * t) == pytest.approx(f * dist.mean_min(t), rel=1e-9)
        assert s.partial_mean(f * t) == pytest.approx(f * dist.partial_mean(t), rel=1e-9, abs=1e-14 * m)
        assert s.second_moment_min(f * t) == pytest.approx(f * f * dist.second_moment_min(t), rel=1e-9)
    assert s.mean_min_of(3) == pytest.approx(f * dist.mean_min_of(3), rel=1e-9)
    assert s.scaled(1 / f).mean() == pytest.approx(m, rel=1e-12)
    for bad in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="scale factor"):
            dist.scaled(bad)


@pytest.mark.parametrize("dist", CASES, ids=IDS)
def test_spec_round_trip(dist):
    spec = dist.to_spec()
    # the required parameters, and the optional ones that are not their default
    assert (
        {"family", *PARAMETERS[dist.family]}
        <= set(spec)
        <= {"family", *PARAMETERS[dist.family], *D.OPTIONAL_PARAMETERS[dist.family]}
    )
    assert all(not isinstance(v, tuple) for v in spec.values())  # YAML/JSON friendly
    again = from_spec(spec)
    assert again == dist and hash(again) == hash(dist)
    assert from_spec(again) is again


def test_spec_spelling():
    assert Exponential(10).to_spec() == {"family": "exponential", "mean": 10}
    # mean is E[X] in every family: shift 1 plus an exponential part of mean 2
    assert ShiftedExponential(1, 2).to_spec() == {"family": "shifted_exponential", "shift": 1, "mean": 3}
    assert Lognormal(3, 0.5).to_spec() == {"family": "lognormal", "mean": 3, "cv": 0.5}
    assert Erlang(2, 4).to_spec() == {"family": "erlang", "k": 2, "mean": 4}
    assert from_spec({"family": "hyperexponential", "p": [0.5, 0.5], "rates": [1, 2]}).to_spec() == {
        "family": "hyperexponential",
        "p": [0.5, 0.5],
        "rates": [1.0, 2.0],
    }
    assert PARAMETERS == {
        "exponential": ("mean",),
        "deterministic": ("value",),
        "pareto": ("xm", "alpha"),
        "bounded_pareto": ("low", "high", "alpha"),
        "shifted_exponential": ("shift", "mean"),
        "hyperexponential": ("p", "rates"),
        "erlang": ("k", "mean"),
        "weibull": ("shape", "scale"),
        "uniform": ("low", "high"),
        "discrete": ("values", "p"),
        "lognormal": ("mean", "cv"),
        "empirical": ("file",),
        "quantiles": ("quantiles",),
        "by_type": ("laws",),
    }
    # lists are stored as tuples: hashable
    d = Discrete([1, 2], [0.5, 0.5])
    assert d.values == (1.0, 2.0) and isinstance(hash(d), int)
    assert ShiftedExponential(1, 2).mean() == 3  # shift + mean of the exponential part
    assert from_spec({"family": "shifted_exponential", "shift": 1, "mean": 3}) == ShiftedExponential(1, 2)


@pytest.mark.parametrize("shift, mean", [(1, 1), (10, 1), (2, 0.5)])
def test_shifted_exponential_mean_at_most_shift_is_refused(shift, mean):
    """The old spelling (mean = the exponential part's mean) must not pass silently."""
    with pytest.raises(ValueError) as err:
        from_spec({"family": "shifted_exponential", "shift": shift, "mean": mean})
    message = str(err.value)
    assert f"mean {mean} is not allowed" in message and f"shift = {shift}" in message
    assert "used to be the mean of the exponential part" in message
    assert f"mean: {shift + mean}" in message  # the same law in the new spelling


@pytest.mark.parametrize("dist", CASES, ids=IDS)
def test_scale_to_mean(dist):
    spec = {**dist.to_spec(), "scale_to_mean": 7.0}
    s = from_spec(spec)
    assert type(s) is type(dist)
    assert s.mean() == pytest.approx(7.0, rel=1e-12)
    if math.isfinite(dist.scv()):
        assert s.scv() == pytest.approx(dist.scv(), rel=1e-9, abs=1e-12)


def test_reference_scenario_specs():
    # sizes with mean N = 10 (docs: reference results, section 1)
    assert from_spec({"family": "exponential", "mean": 10}).mean() == 10
    assert from_spec({"family": "pareto", "xm": 1, "alpha": 10 / 9}).mean() == pytest.approx(10)
    assert from_spec({"family": "pareto", "xm": 1, "alpha": 2.2, "scale_to_mean": 10}).mean() == pytest.approx(10)


# ----------------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------------

BAD = [
    ({"family": "exponential", "mean": 0}, r"exponential: mean must be a positive finite number, got 0"),
    ({"family": "exponential", "mean": -2.0}, r"mean must be a positive"),
    ({"family": "exponential", "mean": "10"}, r"mean must be a positive finite number, got '10'"),
    ({"family": "exponential", "mean": True}, r"mean must be"),
    ({"family": "deterministic", "value": math.inf}, r"value must be a positive finite"),
    ({"family": "pareto", "xm": 1, "alpha": 0.9}, r"alpha must be > 1 so that the mean is finite, got 0\.9"),
    ({"family": "pareto", "xm": 1, "alpha": 1}, r"alpha must be > 1"),
    ({"family": "pareto", "xm": 0, "alpha": 2}, r"xm must be a positive"),
    ({"family": "bounded_pareto", "low": 2, "high": 1, "alpha": 1}, r"low must be < high, got low=2\.0, high=1\.0"),
    ({"family": "bounded_pareto", "low": 1, "high": 2, "alpha": -1}, r"alpha must be a positive"),
    ({"family": "shifted_exponential", "shift": -1, "mean": 1}, r"shift must be a non-negative"),
    ({"family": "shifted_exponential", "shift": 1, "mean": 0}, r"shifted_exponential: mean must be a positive"),
    (
        {"family": "hyperexponential", "p": [0.5, 0.6], "rates": [1, 2]},
        r"p must be non-negative and sum to 1, got \[0\.5, 0\.6\]",
    ),
    ({"family": "hyperexponential", "p": [1.5, -0.5], "rates": [1, 2]}, r"p must be non-negative"),
    ({"family": "hyperexponential", "p": [0.5, 0.5], "rates": [1, 0]}, r"rates must be positive, got \[1, 0\]"),
    (
        {"family": "hyperexponential", "p": [0.5, 0.5], "rates": [1, 2, 3]},
        r"p and rates must have the same length, got 2 and 3",
    ),
    ({"family": "hyperexponential", "p": [], "rates": []}, r"p must be a non-empty list"),
    ({"family": "hyperexponential", "p": 1.0, "rates": [1]}, r"p must be a non-empty list"),
    ({"family": "erlang", "k": 2.5, "mean": 1}, r"k must be a positive integer, got 2\.5"),
    ({"family": "erlang", "k": 0, "mean": 1}, r"k must be a positive integer"),
    ({"family": "weibull", "shape": 0, "scale": 1}, r"shape must be a positive"),
    ({"family": "weibull", "shape": 1, "scale": -3}, r"scale must be a positive"),
    ({"family": "uniform", "low": 1, "high": 1}, r"low must be < high"),
    ({"family": "uniform", "low": -1, "high": 1}, r"low must be a non-negative"),
    ({"family": "discrete", "values": [-1, 2], "p": [0.5, 0.5]}, r"values must be >= 0, got \[-1, 2\]"),
    ({"family": "discrete", "values": [1, 2], "p": [0.5, 0.6]}, r"p must be non-negative and sum to 1"),
    ({"family": "discrete", "values": [1, 2, 3], "p": [0.5, 0.5]}, r"values and p must have the same length"),
    ({"family": "discrete", "values": [0, 0], "p": [0.5, 0.5]}, r"values must have a positive mean"),
    ({"family": "discrete", "values": [1, math.nan], "p": [0.5, 0.5]}, r"values must be a list of finite numbers"),
    ({"family": "lognormal", "mean": 1, "cv": 0}, r"cv must be a positive"),
    (
        {"family": "gamma", "shape": 2},
        r"unknown distribution family 'gamma'; allowed: bounded_pareto, by_type, deterministic",
    ),
    ({"mean": 1}, r"missing 'family'"),
    (
        {"family": "exponential", "mean": 1, "rate": 2},
        r"exponential: unknown parameter 'rate'; allowed: mean, scale_to_mean",
    ),
    ({"family": "pareto", "xm": 1}, r"pareto: missing parameter 'alpha'; required: xm, alpha"),
    (
        {"family": "exponential", "mean": 1, "scale_to_mean": 0},
        r"scale_to_mean must be a positive finite number, got 0",
    ),
    ({"family": "exponential", "mean": 1, "scale_to_mean": "x"}, r"scale_to_mean"),
]


@pytest.mark.parametrize("spec, match", BAD, ids=[str(s) for s, _ in BAD])
def test_validation_errors(spec, match):
    with pytest.raises(ValueError, match=match):
        from_spec(spec)


def test_validation_on_direct_construction():
    with pytest.raises(ValueError, match=r"pareto: alpha must be > 1"):
        Pareto(1.0, 0.5)
    with pytest.raises(ValueError, match="not a mapping|mapping"):
        from_spec(["exponential"])
    with pytest.raises(ValueError, match="d must be an integer >= 1"):
        Exponential(1.0).mean_min_of(0)
    with pytest.raises(TypeError):
        Distribution()  # abstract


# ----------------------------------------------------------------------------------
# tail classes
# ----------------------------------------------------------------------------------


def observed_tail_class(dist: Distribution, start: float) -> str:
    """Signs of the second divided differences of log P(X > x) on a grid over
    (start, top), ignoring where P(X > x) is 0 or below e^-600."""
    lo, hi = dist.support()
    m = dist.mean()
    top = min(hi, 200.0 * m)
    grid = [np.linspace(start, top, 4001)[1:-1], np.geomspace(max(start, 0.01 * m), top, 1001)[1:-1]]
    xs = np.unique(np.concatenate(grid))
    xs = xs[(xs > start) & (xs < top)]
    with np.errstate(divide="ignore"):
        ls = np.log(np.asarray(dist.sf(xs)))
    ok = np.isfinite(ls) & (ls > -600)
    xs, ls = xs[ok], ls[ok]
    d1 = np.diff(ls) / np.diff(xs)
    d2 = np.diff(d1) / (0.5 * (xs[2:] - xs[:-2]))
    tol = 1e-6 / m**2
    convex, concave = bool(np.any(d2 > tol)), bool(np.any(d2 < -tol))
    return {(False, False): "both", (True, False): "log-convex", (False, True): "log-concave"}.get(
        (convex, concave), "neither"
    )


@pytest.mark.parametrize("dist", CASES, ids=IDS)
def test_tail_class(dist):
    expected = EXPECTED_TAIL[case_id(dist)]
    assert dist.tail_class() == expected
    assert dist.tail_class(on_support=True) == EXPECTED_TAIL_ON_SUPPORT[case_id(dist)]
    assert (
        dist.ageing_class()
        == {
            "log-concave": "NBU",
            "log-convex": "NWU",
            "both": "both",
            "neither": "neither",
        }[expected]
    )
    if dist.atoms():
        return
    # numerically, on x >= 0 and on the support
    assert observed_tail_class(dist, 0.0) == expected
    assert observed_tail_class(dist, dist.support()[0]) == EXPECTED_TAIL_ON_SUPPORT[case_id(dist)]


def test_pareto_is_neither_on_the_half_line():
    # r E[X_{1:r}] = r^2 alpha / (r alpha - 1) falls from r = 1 to 2, then rises
    dist = Pareto(1.0, 10.0 / 9.0)
    vals = [r * dist.mean_min_of(r) for r in range(1, 6)]
    assert vals[1] < vals[0] and vals[2] > vals[1]
    assert dist.ageing_class() == "neither"
    # neither NWU: P(X > s + t) < P(X > s) P(X > t) for s = 0.5, t = 1 ...
    assert dist.sf(1.5) < dist.sf(0.5) * dist.sf(1.0)
    # ... nor NBU: P(X > s + t) > P(X > s) P(X > t) for s = t = 10
    assert dist.sf(20.0) > dist.sf(10.0) ** 2


def test_rE_min_monotone_by_tail_class():
    # fork-join paper: r E[X_{1:r}] non-decreasing for log-concave, non-increasing for log-convex
    for dist in CASES:
        vals = [r * dist.mean_min_of(r) for r in range(1, 7)]
        diffs = np.diff(vals) / dist.mean()
        tc = dist.tail_class()
        if tc == "log-concave":
            assert np.all(diffs >= -1e-9), dist
        elif tc == "log-convex":
            assert np.all(diffs <= 1e-9), dist
        elif tc == "both":
            assert np.allclose(diffs, 0.0, atol=1e-9), dist


# ----------------------------------------------------------------------------------
# the heavy tail of the threshold paper: Pareto(xm = 1, alpha = 10/9), mean 10
# ----------------------------------------------------------------------------------


def test_heavy_tail_pareto_10_9():
    dist = Pareto(1.0, 10.0 / 9.0)
    assert dist.mean() == pytest.approx(10.0, rel=1e-14)
    assert math.isinf(dist.second_moment()) and math.isinf(dist.variance())
    assert math.isinf(dist.partial_second_moment(5.0)) and math.isinf(dist.second_moment_min(math.inf))
    for t in (0.5, 1.0, 2.0, 10.0, 100.0, 1e4, 1e8):
        tt = max(t, 1.0)
        # independent closed forms: 1 + 9 (1 - t^(-1/9)), 10 t^(-1/9), 1 + (9/4)(t^(8/9) - 1)
        mean_min = min(t, 1.0) if t <= 1 else 1.0 + 9.0 * (1.0 - t ** (-1.0 / 9.0))
        partial_mean = 10.0 * tt ** (-1.0 / 9.0)
        smm = t * t if t <= 1 else 1.0 + 2.25 * (t ** (8.0 / 9.0) - 1.0)
        assert dist.mean_min(t) == pytest.approx(mean_min, rel=1e-12)
        assert dist.partial_mean(t) == pytest.approx(partial_mean, rel=1e-12)
        assert dist.second_moment_min(t) == pytest.approx(smm, rel=1e-12)
        assert B.mean_min(dist, t) == pytest.approx(mean_min, rel=1e-9)
        assert B.partial_mean(dist, t) == pytest.approx(partial_mean, rel=1e-9)
        assert B.second_moment_min(dist, t) == pytest.approx(smm, rel=1e-9)
        assert math.isfinite(dist.mean_min(t)) and math.isfinite(dist.partial_mean(t))
    # E[min of 2] = 2 alpha / (2 alpha - 1) = 20 / 11
    assert dist.mean_min_of(2) == pytest.approx(20.0 / 11.0, rel=1e-14)
    assert B.mean_min_of(dist, 2) == pytest.approx(20.0 / 11.0, rel=1e-10)
    assert dist.expect(lambda x: x) == pytest.approx(10.0, rel=1e-8)
    # the scaled replica on a slow server (r = 0.1) keeps the same tail
    slow = dist.scaled(10.0)
    assert slow.mean() == pytest.approx(100.0) and slow.partial_mean(100.0) == pytest.approx(
        10 * dist.partial_mean(10.0)
    )
    # Monte Carlo on the bounded functionals only
    x = sample_many(dist, MC_N, np.random.default_rng(99))
    for t in (2.0, 10.0, 100.0):
        mc_check(f"mean_min({t})", np.minimum(x, t), dist.mean_min(t))
        mc_check(f"sf({t})", (x > t).astype(float), dist.sf(t))


# ----------------------------------------------------------------------------------
# exact small cases
# ----------------------------------------------------------------------------------


def test_exact_small_cases():
    d = Discrete([1.0, 10.0], [0.9, 0.1])
    assert d.mean() == pytest.approx(1.9)
    assert d.mean_min(5.0) == pytest.approx(0.9 + 0.5)
    assert d.partial_mean(1.0) == pytest.approx(1.0) and d.partial_mean(0.999) == pytest.approx(1.9)
    # min of 2: 10 only if both are 10
    assert d.mean_min_of(2) == pytest.approx(0.99 * 1 + 0.01 * 10)
    assert d.expect(lambda x: x**3) == pytest.approx(0.9 + 100.0)
    assert Deterministic(3.0).expect(lambda x: x * x) == 9.0
    u = Uniform(0.0, 1.0)
    assert u.mean_min_of(3) == pytest.approx(0.25) and u.second_moment() == pytest.approx(1 / 3)
    h = Hyperexponential([0.5, 0.5], [1.0, 2.0])
    # (e^{-x} + e^{-2x})^2 / 4 integrates to (1/2 + 2/3 + 1/4) / 4
    assert h.mean_min_of(2) == pytest.approx((0.5 + 2.0 / 3.0 + 0.25) / 4.0, rel=1e-14)
    assert h.tail_class() == "log-convex"
    assert Hyperexponential([0.5, 0.5], [2.0, 2.0]).tail_class() == "both"
    e = Erlang(3, 6.0)
    assert e.second_moment() == pytest.approx(6.0**2 * 4 / 3)  # Var = k / rate^2 = 12
    sx = ShiftedExponential(2.0, 1.0)
    # fork-join paper: r E[X_{1:r}] = r shift + mean
    assert [r * sx.mean_min_of(r) for r in (1, 2, 3)] == pytest.approx([3.0, 5.0, 7.0])
    assert Exponential(2.0).hazard(5.0) == pytest.approx(0.5)
    w = Weibull(2.0, 1.0)
    assert w.mean_min_of(4) == pytest.approx(w.mean() / 2.0)  # scale d^(-1/shape)
    ln = Lognormal(2.0, 1.0)
    assert ln.scv() == pytest.approx(1.0) and ln.second_moment() == pytest.approx(8.0)


def test_import_is_cheap_no_scipy():
    src = str(Path(D.__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", "")}
    # numba itself imports the top-level scipy package (~10 ms); the costly
    # subpackages must stay out until a quadrature or special function is needed
    code = (
        "import sys, straggler.model.distributions as d; d.Exponential(1).mean_min(2); d.Pareto(1, 2).mean_min_of(2);"
        "print(sorted(m for m in sys.modules if m.split('.')[:2] in "
        "(['scipy', 'integrate'], ['scipy', 'special'], ['scipy', 'stats'])))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ----------------------------------------------------------------------------------
# property tests
# ----------------------------------------------------------------------------------

pos = st.floats(min_value=0.05, max_value=20.0, allow_nan=False, allow_infinity=False)
frac = st.floats(min_value=0.01, max_value=8.0, allow_nan=False, allow_infinity=False)
ds = st.integers(min_value=1, max_value=6)


def check_against_quadrature(dist: Distribution, tf: float, d: int):
    m, m2 = dist.mean(), dist.second_moment()
    s2 = m2 if math.isfinite(m2) else m * m
    t = tf * m
    assert close(dist.mean_min(t), B.mean_min(dist, t), m, rel=1e-8)
    assert close(dist.second_moment_min(t), B.second_moment_min(dist, t), s2, rel=1e-8)
    assert close(dist.partial_mean(t), B.partial_mean(dist, t), m, rel=1e-8)
    assert close(dist.partial_second_moment(t), B.partial_second_moment(dist, t), s2, rel=1e-8)
    assert close(dist.mean_min_of(d), B.mean_min_of(dist, d), m, rel=1e-8)
    assert close(dist.mean_min(t) + dist.partial_mean(t) - t * dist.sf(t), m, m, rel=1e-10)
    s = dist.scaled(3.0)
    assert close(s.mean_min(3.0 * t), 3.0 * dist.mean_min(t), m, rel=1e-10)
    assert from_spec(dist.to_spec()) == dist


PROP = settings(max_examples=int(os.environ.get("HYP_N", 25)), deadline=None, derandomize=not os.environ.get("HYP_N"))


@PROP
@given(m=pos, tf=frac, d=ds)
def test_property_exponential(m, tf, d):
    check_against_quadrature(Exponential(m), tf, d)


@PROP
@given(xm=pos, alpha=st.floats(min_value=1.05, max_value=6.0), tf=frac, d=ds)
def test_property_pareto(xm, alpha, tf, d):
    check_against_quadrature(Pareto(xm, alpha), tf, d)


@PROP
@given(shape=st.floats(min_value=0.3, max_value=5.0), scale=pos, tf=frac, d=ds)
def test_property_weibull(shape, scale, tf, d):
    check_against_quadrature(Weibull(shape, scale), tf, d)


@PROP
@given(low=st.floats(min_value=0.0, max_value=10.0), width=pos, tf=frac, d=ds)
def test_property_uniform(low, width, tf, d):
    check_against_quadrature(Uniform(low, low + width), tf, d)


@PROP
@given(
    p1=st.floats(min_value=0.0, max_value=1.0),
    r1=st.floats(min_value=0.05, max_value=20.0),
    r2=st.floats(min_value=0.05, max_value=20.0),
    tf=frac,
    d=ds,
)
def test_property_hyperexponential(p1, r1, r2, tf, d):
    check_against_quadrature(Hyperexponential([p1, 1.0 - p1], [r1, r2]), tf, d)


@PROP
@given(
    low=pos, ratio=st.floats(min_value=1.1, max_value=1e4), alpha=st.floats(min_value=0.2, max_value=4.0), tf=frac, d=ds
)
def test_property_bounded_pareto(low, ratio, alpha, tf, d):
    check_against_quadrature(BoundedPareto(low, low * ratio, alpha), tf, d)


@PROP
@given(m=pos, cv=st.floats(min_value=0.1, max_value=3.0), tf=frac, d=ds)
def test_property_lognormal(m, cv, tf, d):
    check_against_quadrature(Lognormal(m, cv), tf, d)


def test_discrete_draws_by_binary_search_pick_what_a_scan_of_the_probabilities_picks():
    # the sampler searches the cumulative sums; the scan it replaced summed the p_i as it
    # went: the same index for every u, at and around each cumulative sum too
    # (and the guide table the sampler now starts from picks it too)
    from straggler.model.distributions.sampling import pick_component, pick_cumulative, pick_guided

    rng = np.random.default_rng(8)
    for n in (1, 2, 3, 7, 64, 999):
        p = rng.dirichlet(np.ones(n))
        law = D.Discrete(values=tuple(float(v) for v in range(1, n + 1)), p=tuple(float(q) for q in p))
        cumulative = law.sampler_params()
        masses = np.concatenate([[n], [q for _, q in law.point_masses()]])
        us = list(rng.random(200)) + [0.0, np.nextafter(1.0, 0.0)]
        for c in cumulative[1 : 1 + n]:
            us += [c, np.nextafter(c, 0.0), np.nextafter(c, 2.0)]
        for u in us:
            if u < 1.0:
                assert pick_cumulative(cumulative, n, u) == pick_component(masses, n, u), (n, u)
                assert pick_guided(cumulative, n, u) == pick_component(masses, n, u), (n, u)


# ----------------------------------------------------------------------------------
# the discrete law's guide table: the binary search's index, for every u
# ----------------------------------------------------------------------------------


def _guide_laws() -> dict[str, Discrete]:
    rng = np.random.default_rng(20260)
    big = rng.random(10_000)
    geometric = [2.0**-i for i in range(1, 70)]  # the last sums round to 1: ties, one bucket holds most
    geometric[-1] *= 2.0
    return {
        "two": Discrete((1.0, 10.0), (0.99, 0.01)),
        "two_even": Discrete((1.0, 2.0), (0.5, 0.5)),
        "three_inexact": Discrete((1.0, 2.0, 3.0), (0.1, 0.2, 0.7)),  # c_2 = 0.30000000000000004
        "three_below_one": Discrete((1.0, 2.0, 3.0), (0.7, 0.2, 0.1)),  # c_3 = 1 - 2^-53: u can pass it
        "zero_masses": Discrete((1.0, 2.0, 3.0, 4.0, 5.0, 6.0), (0.3, 0.0, 0.0, 0.2, 0.0, 0.5)),
        "one": Discrete((2.0,), (1.0,)),
        "geometric": Discrete(tuple(float(v) for v in range(1, 70)), tuple(geometric)),
        "random_10000": Discrete(tuple(float(v) for v in range(1, 10_001)), tuple((big / big.sum()).tolist())),
    }


def _raw_guided_params(masses) -> np.ndarray:
    """The discrete layout over probabilities as given, zeros kept (ties among the c_i)."""
    from straggler.model.distributions.bounded import discrete_guide_table

    cumulative, acc = [], 0.0
    for q in masses:
        acc += q
        cumulative.append(acc)
    n = len(cumulative)
    guide = discrete_guide_table(cumulative, n)
    return np.array([n, *cumulative, *range(1, n + 1), len(guide), *guide], dtype=np.float64)


def _adversarial_uniforms(params: np.ndarray) -> np.ndarray:
    """0, the largest float below 1, every bucket boundary j / m and every c_i, each with
    the floats two steps either side: the values in [0, 1)."""
    n = int(params[0])
    m = int(params[1 + 2 * n])
    points = np.concatenate([np.arange(m + 1) / m, params[1 : 1 + n], [0.0, 1.0]])
    around = [points]
    for direction in (0.0, 2.0):
        step = points
        for _ in range(2):
            step = np.nextafter(step, direction)
            around.append(step)
    u = np.unique(np.concatenate(around))
    return u[(u >= 0.0) & (u < 1.0)]


def _indices_by_guide_and_by_binary_search(params, us):
    import numba

    from straggler.model.distributions.sampling import pick_cumulative, pick_guided

    @numba.njit
    def both(params, us):
        n = int(params[0])
        guided = np.empty(us.shape[0], dtype=np.int64)
        binary = np.empty(us.shape[0], dtype=np.int64)
        for k in range(us.shape[0]):
            guided[k] = pick_guided(params, n, us[k])
            binary[k] = pick_cumulative(params, n, us[k])
        return guided, binary

    return both(params, us)


def _check_guide_against_binary_search(params: np.ndarray, seed: int) -> np.ndarray:
    n = int(params[0])
    cumulative = params[1 : 1 + n]
    adversarial = _adversarial_uniforms(params)
    for us in (np.random.default_rng(seed).random(10**6), adversarial):
        guided, binary = _indices_by_guide_and_by_binary_search(params, us)
        searched = np.minimum(np.searchsorted(cumulative, us, side="right"), n - 1)
        np.testing.assert_array_equal(binary, searched)
        bad = np.flatnonzero(guided != binary)
        assert bad.size == 0, [(float(us[k]), int(guided[k]), int(binary[k])) for k in bad[:5]]
    return adversarial


def test_discrete_guide_table_picks_the_binary_search_index_for_every_u():
    """A million uniforms and the adversarial ones (bucket boundaries, the cumulative sums,
    their float neighbours, 0 and 1^-) pick the binary search's index through the guide
    table, over the laws' sampler_params and over raw tables with zero masses kept (ties).
    Among the adversarial u are some whose bucket int(u m) rounds up past floor(u m): the
    case the table's one-bucket margin is for."""
    from fractions import Fraction

    rounded_up = 0
    tables = {name: law.sampler_params() for name, law in _guide_laws().items()}
    tables["raw_zero_masses"] = _raw_guided_params([0.3, 0.0, 0.0, 0.2, 0.0, 0.5])
    tables["raw_zeros_at_the_ends"] = _raw_guided_params([0.0, 0.0, 0.25, 0.25, 0.5, 0.0, 0.0])
    for seed, (name, params) in enumerate(tables.items()):
        n = int(params[0])
        m = int(params[1 + 2 * n])
        assert m == n and len(params) == 2 + 2 * n + m, name
        adversarial = _check_guide_against_binary_search(params, seed)
        rounded_up += sum(int(u * m) > math.floor(Fraction(float(u)) * m) for u in adversarial)
    assert rounded_up > 0


def test_discrete_guide_table_is_exact_at_its_boundaries():
    """g_j is the first i with c_i > (j - 1) / m in exact arithmetic (n - 1 if none), g_0 = 0."""
    from fractions import Fraction

    from straggler.model.distributions.bounded import discrete_guide_table

    for law in _guide_laws().values():
        params = law.sampler_params()
        n = int(params[0])
        cumulative = [float(c) for c in params[1 : 1 + n]]
        guide = discrete_guide_table(cumulative, n)
        assert list(params[2 + 2 * n :]) == guide
        assert guide[0] == 0
        for j in range(1, n, max(1, n // 500)):
            want = next((i for i, c in enumerate(cumulative) if Fraction(c) * n > j - 1), n - 1)
            assert guide[j] == want, (n, j)
    # a c_i that sits on a boundary (c_i = (j - 1) / m exactly) is skipped, the next is not
    assert discrete_guide_table([0.25, 0.5, 0.75, 1.0], 4) == [0, 0, 1, 2]
    assert discrete_guide_table([1.0], 1) == [0]
    with pytest.raises(ValueError, match="guide table"):
        discrete_guide_table([], 1)


def _old_rule_draws(law: Discrete, n_draws: int, seed: int) -> np.ndarray:
    """The draws before the guide table: values[first i with u < c_i] by a search of the
    cumulative sums (summed in order, as sampler_params sums them), from the uniforms the
    sampler reads."""
    masses = law.point_masses()
    cumulative, acc = [], 0.0
    for _, q in masses:
        acc += q
        cumulative.append(acc)
    values = np.array([v for v, _ in masses])
    u = np.random.default_rng(seed).random(n_draws)
    return values[np.minimum(np.searchsorted(np.array(cumulative), u, side="right"), len(masses) - 1)]


@pytest.mark.parametrize("name", list(_guide_laws()))
def test_discrete_sample_many_draws_what_the_binary_search_drew(name):
    """sample_many and the kernels' block refill draw, for a fixed seed, the same array as
    the binary search did (bit for bit: the shipped results do not move)."""
    from straggler.engines.simulation.streams import refill_family

    law = _guide_laws()[name]
    want = _old_rule_draws(law, 200_000, 31)
    np.testing.assert_array_equal(sample_many(law, 200_000, np.random.default_rng(31)), want)
    buf = np.empty(200_000)
    refill_family(law.code, law.sampler_params(), np.random.default_rng(31), buf, buf.shape[0])
    np.testing.assert_array_equal(buf, want)
