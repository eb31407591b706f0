"""Replica dependence models and their two-replica functionals (straggler.model.dependence).

- every Pair method against Monte Carlo from the numba joint sampler
  (within 4 estimated standard errors, fixed seeds);
- identical / iid closed forms against a generic quadrature of the joint
  survival function P(A > u, B > v);
- exact checks (E[min(X, X/r)] = E[X], iid exponential mean/(1+r), consistency of
  the sx special cases), heavy tails (Pareto alpha = 10/9), config parsing, and
  the sampler against a plain-Python reference on the same random stream.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from straggler.model import dependence as dm
from straggler.model import distributions as dd
from straggler.model.dependence import IID, SX, Identical, from_spec, pair, sample_jobs

N_MC = 200_000
N_SE = 4.0

X_SPECS = {
    "exp": {"family": "exponential", "mean": 2.0},
    "pareto": {"family": "pareto", "xm": 1.0, "alpha": 2.5},
    "uniform": {"family": "uniform", "low": 0.5, "high": 3.0},
    "det": {"family": "deterministic", "value": 1.5},
}
BIMODAL = dd.from_spec({"family": "discrete", "values": [1.0, 4.0], "p": [0.7, 0.3]})
DEPS = {
    "identical": Identical(),
    "iid": IID(),
    "sx_bimodal": SX(BIMODAL),
    "sx_exp": SX(dd.Exponential(1.0)),
    "mixture": dm.Mixture(0.35),
}
FACTORS = [(1.0, 0.5), (0.5, 1.0), (1.0, 1.0), (1.0, 0.2)]
# thresholds as multiples of E[A] (so that they fall where the mass is)
T_REL = [0.4, 1.3]
Y_REL = [0.0, 0.6, 1.7]


def _x(name: str) -> dd.Distribution:
    return dd.from_spec(X_SPECS[name])


# ----------------------------------------------------------------------------------
# Monte Carlo
# ----------------------------------------------------------------------------------


def _mc_quantities(p, A, B, t_vals, y_vals):
    """(label, analytic, sample array) for every Pair method."""
    out = [
        ("mean_A", p.mean_A(), A),
        ("second_A", p.second_A(), A * A),
        ("mean_min_AB", p.mean_min_AB(), np.minimum(A, B)),
    ]
    for t in t_vals:
        out += [
            (f"mean_min_A({t:g})", p.mean_min_A(t), np.minimum(A, t)),
            (f"second_min_A({t:g})", p.second_min_A(t), np.minimum(A, t) ** 2),
            (f"prob_A_exceeds({t:g})", p.prob_A_exceeds(t), (A > t).astype(float)),
            (f"mean_A_B_exceeds({t:g})", p.mean_A_B_exceeds(t), A * (B > t)),
            (f"second_A_B_exceeds({t:g})", p.second_A_B_exceeds(t), A * A * (B > t)),
        ]
    for y in y_vals:
        for m in (1, 2):
            out.append((f"k({m},{y:g})", p.k(m, y), np.where(A > y, np.minimum(A - y, B), 0.0) ** m))
    return out


def _check_mc(label, analytic, sample, heavy=False):
    """|analytic - MC| within N_SE estimated standard errors.

    ``heavy``: the estimator has infinite variance (E[g^2] = inf, e.g. A^2 for
    Pareto alpha = 2.5 < 4). Its sample mean misses the mass beyond the largest
    sample, so it is biased low and its standard error is meaningless; check
    only that it lies below the analytic value (up to N_SE SE) and within 30%.
    """
    est = float(sample.mean())
    se = float(sample.std(ddof=1)) / math.sqrt(sample.size)
    tol = N_SE * se + 1e-9 * (1.0 + abs(est))
    assert math.isfinite(analytic), label
    msg = f"{label}: analytic {analytic:.6g}, MC {est:.6g} +- {se:.2g}"
    if heavy:
        assert est - tol <= analytic <= 1.3 * est + tol, msg
    else:
        assert abs(analytic - est) <= tol, msg


def _heavy(label: str, depname: str, X: dd.Distribution) -> bool:
    """Second-order estimators with infinite variance when E[X^4] = inf."""
    if not (isinstance(X, dd.Pareto) and X.alpha <= 4.0):
        return False
    if label.startswith("second_min_A"):
        return False  # bounded
    if label.startswith("k(2") and depname == "iid":
        return False  # min(A - y, B) has tail index 2 alpha > 4
    return label.startswith(("second", "k(2"))


@pytest.mark.parametrize("xname", list(X_SPECS))
@pytest.mark.parametrize("depname", list(DEPS))
def test_pair_against_monte_carlo(depname, xname):
    dep, X = DEPS[depname], _x(xname)
    seed = 1000 + 17 * list(DEPS).index(depname) + list(X_SPECS).index(xname)
    sizes = sample_jobs(dep, X, N_MC, 2, np.random.default_rng(seed))
    for a, b in FACTORS:
        p = pair(dep, X, a, b)
        A, B = a * sizes[:, 0], b * sizes[:, 1]
        scale = p.mean_A()
        ts = [r * scale for r in T_REL]
        ys = [r * scale for r in Y_REL]
        for label, analytic, sample in _mc_quantities(p, A, B, ts, ys):
            heavy = _heavy(label, depname, X)
            _check_mc(f"{depname}/{xname}/a={a},b={b}/{label}", analytic, sample, heavy)


def test_sx_general_quadrature_against_monte_carlo():
    """Non-atomic X and a non-exponential slowdown: the nested quadrature (SXPair)."""
    dep = SX(dd.Uniform(0.5, 2.0))
    X = _x("exp")
    sizes = sample_jobs(dep, X, N_MC, 2, np.random.default_rng(77))
    for a, b in [(1.0, 0.5), (0.5, 1.0)]:
        p = pair(dep, X, a, b)
        assert isinstance(p, dm.SXPair)
        A, B = a * sizes[:, 0], b * sizes[:, 1]
        s = p.mean_A()
        for label, analytic, sample in _mc_quantities(p, A, B, [0.8 * s], [0.0, 0.7 * s]):
            _check_mc(f"sx_uniform/exp/a={a},b={b}/{label}", analytic, sample)


# ----------------------------------------------------------------------------------
# closed forms against a generic quadrature of the joint survival function
# ----------------------------------------------------------------------------------

GENERIC_X = {
    **X_SPECS,
    "discrete": {"family": "discrete", "values": [1.0, 3.0, 4.0], "p": [0.5, 0.3, 0.2]},
    "hyperexp": {"family": "hyperexponential", "p": [0.8, 0.2], "rates": [2.0, 0.25]},
    "weibull": {"family": "weibull", "shape": 0.7, "scale": 1.0},
    "lognormal": {"family": "lognormal", "mean": 1.0, "cv": 1.5},
    "bounded_pareto": {"family": "bounded_pareto", "low": 1.0, "high": 50.0, "alpha": 1.2},
    "shifted_exp": {"family": "shifted_exponential", "shift": 0.5, "mean": 1.5},
    "erlang": {"family": "erlang", "k": 3, "mean": 2.0},
}


def _joint_sf(kind, X, a, b):
    sf = X._sf_scalar
    if kind == "identical":
        return lambda u, v: sf(max(u / a, v / b))
    return lambda u, v: sf(u / a) * sf(v / b)


def _gquad(f, breaks, scale):
    """int_0^inf f by scipy.quad, split at breaks and at a few multiples of scale."""
    pts = sorted({float(p) for p in breaks if p > 0 and math.isfinite(p)} | {scale, 10 * scale, 100 * scale})
    edges = [0.0, *pts]
    total = sum(
        integrate.quad(f, lo, hi, limit=500, epsabs=1e-13, epsrel=1e-11)[0] for lo, hi in zip(edges[:-1], edges[1:])
    )
    return total + integrate.quad(f, edges[-1], math.inf, limit=500, epsabs=1e-13, epsrel=1e-11)[0]


def _generic(kind, X, a, b, what, arg=None, m=1):
    G = _joint_sf(kind, X, a, b)
    lo, hi = X.support()
    xs = [lo, hi, *X.atoms()]
    sc = max(a, b) * X.mean()
    if what == "mean_min_A":
        return _gquad(lambda s: G(s, -1.0) if s < arg else 0.0, [a * x for x in xs] + [arg], sc)
    if what == "mean_A_B_exceeds":
        return _gquad(lambda s: m * s ** (m - 1) * G(s, arg), [a * x for x in xs], sc)
    if what == "k":
        y = arg
        br = [a * x - y for x in xs] + [b * x for x in xs]
        if kind == "identical" and a > b:
            br.append(y * b / (a - b))
        return _gquad(lambda s: m * s ** (m - 1) * G(y + s, s), br, sc)
    raise AssertionError(what)


@pytest.mark.parametrize("xname", list(GENERIC_X))
@pytest.mark.parametrize("kind", ["identical", "iid"])
def test_closed_forms_against_generic_quadrature(kind, xname):
    X = dd.from_spec(GENERIC_X[xname])
    dep = {"identical": Identical(), "iid": IID()}[kind]
    for a, b in [(1.0, 0.4), (0.4, 1.0), (0.7, 0.7)]:
        p = pair(dep, X, a, b)
        s = p.mean_A()
        for t in [0.3 * s, 1.1 * s, 3.0 * s]:
            ref = _generic(kind, X, a, b, "mean_min_A", t)
            assert p.mean_min_A(t) == pytest.approx(ref, rel=1e-7, abs=1e-12)
            for m, meth in [(1, p.mean_A_B_exceeds), (2, p.second_A_B_exceeds)]:
                ref = _generic(kind, X, a, b, "mean_A_B_exceeds", t, m)
                assert meth(t) == pytest.approx(ref, rel=1e-6, abs=1e-12), (a, b, t, m)
        for y in [0.0, 0.5 * s, 1.2 * s, 4.0 * s]:
            for m in (1, 2):
                ref = _generic(kind, X, a, b, "k", y, m)
                assert p.k(m, y) == pytest.approx(ref, rel=1e-6, abs=1e-11), (a, b, y, m)
        assert p.mean_min_AB() == pytest.approx(_generic(kind, X, a, b, "k", 0.0, 1), rel=1e-7)


# ----------------------------------------------------------------------------------
# exact checks
# ----------------------------------------------------------------------------------


@pytest.mark.parametrize("xname", list(GENERIC_X))
@pytest.mark.parametrize("r", [0.1, 0.5, 1.0])
def test_identical_min_with_slower_copy_is_mean(xname, r):
    X = dd.from_spec(GENERIC_X[xname])
    p = pair(Identical(), X, 1.0, 1.0 / r)  # E[min(X, X/r)] = E[X] for r <= 1
    assert p.mean_min_AB() == pytest.approx(X.mean(), rel=1e-12)
    assert p.k(1, 0.0) == pytest.approx(X.mean(), rel=1e-9)


@pytest.mark.parametrize("r", [0.05, 0.3, 1.0, 2.0])
def test_iid_exponential_min(r):
    X = dd.Exponential(10.0)
    p = pair(IID(), X, 1.0, 1.0 / r)
    assert p.mean_min_AB() == pytest.approx(10.0 / (1.0 + r), rel=1e-12)
    assert p.k(1, 0.0) == pytest.approx(10.0 / (1.0 + r), rel=1e-12)


def test_k_limits_and_arguments():
    for dep in DEPS.values():
        for xname in ("exp", "det"):
            p = pair(dep, _x(xname), 1.0, 0.5)
            assert p.k(1, math.inf) == 0.0 and p.k(2, math.inf) == 0.0
            assert p.mean_min_A(math.inf) == pytest.approx(p.mean_A())
            assert p.second_min_A(math.inf) == pytest.approx(p.second_A())
            assert p.mean_A_B_exceeds(math.inf) == 0.0 and p.prob_A_exceeds(math.inf) == 0.0
            assert p.mean_A_B_exceeds(0.0) == pytest.approx(p.mean_A())
            assert p.k(1, 0.0) == pytest.approx(p.mean_min_AB(), rel=1e-9)
            # k(1, y) + E[min(A, y)] = E[min(A, B + y)] is at most E[A]
            assert p.k(1, 1.0) + p.mean_min_A(1.0) <= p.mean_A() * (1 + 1e-12)
            with pytest.raises(ValueError):
                p.k(3, 1.0)
            with pytest.raises(ValueError):
                p.mean_min_A(-1.0)
            with pytest.raises(ValueError):
                p.k(1, float("nan"))
    with pytest.raises(ValueError):
        pair(IID(), _x("exp"), 0.0, 1.0)
    with pytest.raises(ValueError):
        pair(IID(), _x("exp"), 1.0, math.inf)


def test_sx_special_cases_reduce_to_identical_and_iid():
    X = _x("pareto")
    S = dd.Uniform(0.5, 2.0)
    # S deterministic: X S_i = s X -> identical with factors a s, b s
    p_sx = pair(SX(dd.Deterministic(2.0)), X, 1.0, 0.4)
    p_id = pair(Identical(), X, 2.0, 0.8)
    # X deterministic: x S_i -> iid pair of S with factors a x, b x (speculation paper, X = 1)
    q_sx = pair(SX(S), dd.Deterministic(1.5), 1.0, 0.4)
    q_iid = pair(IID(), S, 1.5, 0.6)
    for t in (0.5, 1.7, 4.0):
        for name in ("mean_min_A", "second_min_A", "prob_A_exceeds", "mean_A_B_exceeds", "second_A_B_exceeds"):
            assert getattr(p_sx, name)(t) == pytest.approx(getattr(p_id, name)(t), rel=1e-12)
            assert getattr(q_sx, name)(t) == pytest.approx(getattr(q_iid, name)(t), rel=1e-12)
        for m in (1, 2):
            assert p_sx.k(m, t) == pytest.approx(p_id.k(m, t), rel=1e-12)
            assert q_sx.k(m, t) == pytest.approx(q_iid.k(m, t), rel=1e-12)
    assert p_sx.mean_A() == pytest.approx(p_id.mean_A())
    assert q_sx.mean_min_AB() == pytest.approx(q_iid.mean_min_AB())


def test_sx_atomic_slowdown_matches_general_quadrature():
    """A two-point slowdown through the exact mixture and through SXPair's quadrature
    (forced by calling SXPair directly) agree."""
    X = _x("exp")
    S = BIMODAL
    exact = pair(SX(S), X, 1.0, 0.5)
    assert isinstance(exact, dm.MixturePair)
    quad = dm.SXPair(X, S, 1.0, 0.5)
    for t in (0.5, 2.0, 7.0):
        for name in ("mean_min_A", "second_min_A", "prob_A_exceeds", "mean_A_B_exceeds", "second_A_B_exceeds"):
            assert getattr(quad, name)(t) == pytest.approx(getattr(exact, name)(t), rel=1e-7), (name, t)
        for m in (1, 2):
            assert quad.k(m, t) == pytest.approx(exact.k(m, t), rel=1e-7), (m, t)
    assert quad.mean_min_AB() == pytest.approx(exact.mean_min_AB(), rel=1e-12)


def test_speculation_x1_is_exact():
    """X = 1, bimodal slowdown: E[min(S1, tau)] + E[S2 1{S1 > tau}] by hand."""
    sm, sM, q = 1.0, 10.0, 0.8
    S = dd.Discrete((sm, sM), (q, 1 - q))
    p = pair(SX(S), dd.Deterministic(1.0), 1.0, 1.0)
    for tau in (0.5, 2.0, 5.0, 12.0):
        rho = p.mean_min_A(tau) + pair(SX(S), dd.Deterministic(1.0), 1.0, 1.0).mean_A_B_exceeds(tau)
        by_hand = q * min(sm, tau) + (1 - q) * min(sM, tau) + S.mean() * (q * (sm > tau) + (1 - q) * (sM > tau))
        assert rho == pytest.approx(by_hand, rel=1e-14)


# ----------------------------------------------------------------------------------
# heavy tails
# ----------------------------------------------------------------------------------

HEAVY = dd.Pareto(1.0, 10.0 / 9.0)


def _pareto_expect(h, alpha=10.0 / 9.0):
    """E[h(X)] for Pareto(1, alpha) by X = U^(-1/alpha), an integral over u in (0, 1)."""
    f = lambda u: h(u ** (-1.0 / alpha))  # noqa: E731
    return sum(
        integrate.quad(f, lo, hi, limit=500, epsabs=1e-13, epsrel=1e-10)[0]
        for lo, hi in [(0, 1e-6), (1e-6, 1e-3), (1e-3, 1)]
    )


@pytest.mark.parametrize("depname", list(DEPS))
def test_pareto_infinite_variance(depname):
    dep = DEPS[depname]
    for a, b in [(1.0, 0.5), (0.5, 1.0)]:
        p = pair(dep, HEAVY, a, b)
        for t in (0.5, 3.0, 40.0):
            for v in (p.mean_min_A(t), p.second_min_A(t), p.prob_A_exceeds(t), p.mean_A_B_exceeds(t), p.k(1, t)):
                assert math.isfinite(v) and v >= 0
            assert p.second_A_B_exceeds(t) == math.inf
            if depname == "iid":
                # min(A - y, B) has tail index 2 alpha > 2: finite
                assert math.isfinite(p.k(2, t)) and p.k(2, t) > 0
            else:
                assert p.k(2, t) == math.inf
        assert math.isfinite(p.mean_A()) and math.isfinite(p.mean_min_AB())
        assert p.second_A() == math.inf
        assert p.k(1, math.inf) == 0.0 and p.k(2, math.inf) == 0.0


def test_pareto_heavy_values():
    X = HEAVY
    # identical and iid against the generic joint-survival quadrature
    for kind, dep in [("identical", Identical()), ("iid", IID())]:
        for a, b in [(1.0, 0.5), (0.5, 1.0)]:
            p = pair(dep, X, a, b)
            for y in (0.0, 0.7, 5.0, 60.0):
                assert p.k(1, y) == pytest.approx(_generic(kind, X, a, b, "k", y, 1), rel=1e-6)
                if kind == "iid":
                    assert p.k(2, y) == pytest.approx(_generic(kind, X, a, b, "k", y, 2), rel=1e-5)
            assert p.mean_A_B_exceeds(3.0) == pytest.approx(_generic(kind, X, a, b, "mean_A_B_exceeds", 3.0), rel=1e-6)
    # sx with an exponential slowdown (mean mu): given X = x the pair is i.i.d. exponential
    mu = 1.0
    for a, b in [(1.0, 0.5), (0.5, 1.0)]:
        p = pair(SX(dd.Exponential(mu)), X, a, b)
        assert isinstance(p, dm.SXPair)
        c = a * b / (a + b)
        for y in (0.3, 4.0, 50.0):
            ref = _pareto_expect(lambda x: mu * x * c * math.exp(-y / (a * mu * x)))
            assert p.k(1, y) == pytest.approx(ref, rel=1e-6)
            ref = _pareto_expect(lambda x: a * mu * x * math.exp(-y / (b * mu * x)))
            assert p.mean_A_B_exceeds(y) == pytest.approx(ref, rel=1e-6)
            ref = _pareto_expect(lambda x: -a * mu * x * math.expm1(-y / (a * mu * x)))
            assert p.mean_min_A(y) == pytest.approx(ref, rel=1e-6)
        assert p.mean_min_AB() == pytest.approx(X.mean() * mu * c, rel=1e-12)


# ----------------------------------------------------------------------------------
# models and config
# ----------------------------------------------------------------------------------


def test_replica_moments():
    X = _x("pareto")
    assert Identical().replica_mean(X) == X.mean()
    assert IID().replica_marginal_moments(X) == (X.mean(), X.second_moment())
    m1, m2 = SX(BIMODAL).replica_marginal_moments(X)
    assert m1 == pytest.approx(X.mean() * BIMODAL.mean())
    assert m2 == pytest.approx(X.second_moment() * BIMODAL.second_moment())
    assert SX(BIMODAL).replica_mean(X) == pytest.approx(m1)
    assert SX(dd.Exponential(1.0)).replica_marginal_moments(HEAVY)[1] == math.inf


@pytest.mark.parametrize("q", [0.5, 0.95, 0.99, 0.999])
def test_a_copys_quantile_under_sx_is_that_of_x_times_s(q):
    """Exponential X and the two-point slowdown {1: 0.9, 3: 0.1}: P(X S <= t) =
    0.9 (1 - e^-t) + 0.1 (1 - e^(-t/3)) at the returned t is q; a continuous slowdown
    against 400,000 draws of X S (the empirical quantile's standard error at q = 0.999 is
    about 2 %: 5 of them)."""
    X = dd.Exponential(1.0)
    S = dd.Discrete(values=[1.0, 3.0], p=[0.9, 0.1])
    t = SX(S).replica_quantile(X, q)
    assert 0.9 * -math.expm1(-t) + 0.1 * -math.expm1(-t / 3) == pytest.approx(q, abs=1e-10)
    assert IID().replica_quantile(X, q) == pytest.approx(X.quantile(q))
    rng = np.random.default_rng(5)
    L = dd.Lognormal(1.0, 0.5)
    draws = rng.exponential(size=400_000) * rng.lognormal(L.mu, L.sigma, 400_000)
    assert SX(L).replica_quantile(X, q) == pytest.approx(np.quantile(draws, q), rel=0.1 if q == 0.999 else 0.02)


def test_from_spec():
    named = {"bimodal": BIMODAL, "exp": dd.Exponential(1.0)}
    assert from_spec("identical") == Identical()
    assert from_spec("iid", named) == IID()
    assert from_spec({"kind": "identical"}, {}) == Identical()
    assert from_spec({"kind": "iid"}) == IID()
    assert from_spec({"kind": "sx", "slowdown": "bimodal"}, named) == SX(BIMODAL)
    inline = from_spec({"kind": "sx", "slowdown": {"family": "discrete", "values": [1, 4], "p": [0.7, 0.3]}})
    assert inline.slowdown == BIMODAL
    assert from_spec(SX(BIMODAL)) == SX(BIMODAL)
    assert from_spec(SX(BIMODAL).to_spec()) == SX(BIMODAL)
    assert Identical().kind == "identical" and IID().kind == "iid" and SX(BIMODAL).kind == "sx"


@pytest.mark.parametrize(
    "spec, words",
    [
        ("indep", ["'indep'", "identical", "iid"]),
        ({"kind": "copula"}, ["kind", "'copula'", "sx"]),
        ({}, ["kind"]),
        ({"kind": "iid", "slowdown": "bimodal"}, ["slowdown", "iid"]),
        ({"kind": "sx"}, ["slowdown", "bimodal"]),
        ({"kind": "sx", "slowdown": "trimodal"}, ["slowdown", "'trimodal'", "bimodal"]),
        ({"kind": "sx", "slowdown": {"family": "nope"}}, ["slowdown", "nope"]),
        (
            {"kind": "sx", "slowdown": {"family": "discrete", "values": [0, 2], "p": [0.5, 0.5]}},
            ["slowdown", "P(S > 0)"],
        ),
        ({"kind": "sx", "slowdown": 3}, ["slowdown", "3"]),
        (["sx"], ["dependence"]),
    ],
)
def test_from_spec_errors(spec, words):
    with pytest.raises(ValueError) as e:
        from_spec(spec, {"bimodal": BIMODAL}, where="dependences.d")
    msg = str(e.value)
    assert "dependences.d" in msg
    for w in words:
        assert w in msg, msg


# ----------------------------------------------------------------------------------
# sampler
# ----------------------------------------------------------------------------------


def _reference_replicas(dep_code, x_code, x_params, s_code, s_params, n, rng):
    """Plain-Python reference of sample_replicas (distributions.sample.py_func)."""
    draw = dd.sample.py_func
    if dep_code == 0:
        return [draw(x_code, x_params, rng)] * n
    if dep_code == 1:
        return [draw(x_code, x_params, rng) for _ in range(n)]
    if dep_code == 3:  # mixture: the coin, then one draw for all or independent draws
        one = rng.random() < s_params[0]
        x = draw(x_code, x_params, rng)
        return [x if one or i == 0 else draw(x_code, x_params, rng) for i in range(n)]
    x = draw(x_code, x_params, rng)
    return [x * draw(s_code, s_params, rng) for _ in range(n)]


@pytest.mark.parametrize("depname", list(DEPS))
def test_sampler_matches_reference_stream(depname):
    dep, X = DEPS[depname], _x("pareto")
    args = dm.sampler_args(dep, X)
    assert isinstance(args[0], int) and isinstance(args[1], int) and isinstance(args[3], int)
    assert args[2].dtype == np.float64 and args[4].dtype == np.float64
    out = np.full(5, -1.0)
    rng1, rng2 = np.random.default_rng(5), np.random.default_rng(5)
    for _ in range(20):
        dm.sample_replicas(*args, 3, out, rng1)
        ref = _reference_replicas(*args, 3, rng2)
        np.testing.assert_allclose(out[:3], ref, rtol=1e-12)
        assert np.all(out[3:] == -1.0)


def test_sampler_structure():
    X = _x("exp")
    rng = np.random.default_rng(3)
    same = sample_jobs(Identical(), X, 1000, 3, rng)
    assert np.all(same == same[:, :1])
    ind = sample_jobs(IID(), X, 50_000, 2, rng)
    assert abs(np.corrcoef(ind[:, 0], ind[:, 1])[0, 1]) < 0.02
    sx = sample_jobs(SX(BIMODAL), X, 10_000, 4, rng)
    ratios = sx / sx[:, :1]
    assert set(np.round(np.unique(ratios), 12)) <= {0.25, 1.0, 4.0}
    dummy = dm.sampler_args(IID(), X)
    assert dummy[3] == dd.Deterministic.code


@pytest.mark.parametrize("m, y", [(1, 0.0), (1, 3.0), (2, 0.0), (2, 25.0)])
@pytest.mark.parametrize("a, b", [(1.0, 2.0), (2.0, 1.0)])
def test_iid_k_on_a_trace_is_the_double_sum_over_its_atoms(monkeypatch, a, b, m, y):
    """A trace with more atoms than the double sum takes (O(n^2)) is summed over its knots
    (O(n log n)): the same value, to rounding. The 300-value trace has ties, so both its
    atoms and the pieces between them matter."""
    from pathlib import Path

    from straggler.model.dependence import iid
    from straggler.model.distributions import Empirical

    trace = Empirical(str(Path(__file__).parents[2] / "data" / "request_ms.csv"), "duration_ms")
    assert len(trace.point_masses()) > 100
    monkeypatch.setattr(iid, "FEW_ATOMS", 100)
    knots = iid.IIDPair(trace, a, b).k(m, y)
    monkeypatch.setattr(iid, "FEW_ATOMS", 10**6)
    double_sum = iid.IIDPair(trace, a, b).k(m, y)
    assert knots == pytest.approx(double_sum, rel=1e-13, abs=1e-300)


def test_iid_k_on_a_quantile_table_is_the_quadrature():
    """A continuous tabulated law: the sum over its knots against the adaptive quadrature
    (its own tolerance, 1e-10)."""
    from straggler.model.dependence import iid
    from straggler.model.distributions import Quantiles

    law = Quantiles({0: 5.0, 0.5: 30.0, 0.9: 80.0, 0.99: 250.0, 1: 400.0})
    for a, b, m, y in [(1.0, 2.0, 1, 0.0), (2.0, 1.0, 2, 25.0), (1.0, 1.0, 1, 100.0)]:
        knots = iid.IIDPair(law, a, b).k(m, y)
        quadrature = iid.IIDPair(_without_pieces(law), a, b).k(m, y)
        assert knots == pytest.approx(quadrature, rel=1e-9)


def _without_pieces(law):
    """The same law with no quantile pieces (the quadrature's path)."""

    class Plain(type(law)):
        def quantile_pieces(self):
            return None

    return Plain(law.quantiles)


def test_sample_jobs_of_a_law_per_type_draws_each_job_from_its_own_type():
    """iid replicas of a type-j job are copies of X_j, not of the mixture: E[min of 2]
    is sum_j p_j E[min of 2 X_j] = 0.7998 (the mixture's own: 0.7455), within 5
    standard errors of 4e5 jobs."""
    from straggler.model.distributions import ByType

    a = dd.from_spec({"family": "quantiles", "quantiles": {0: 0.1, 0.5: 0.6, 0.9: 2.0, 1: 5.0}})
    b = dd.from_spec({"family": "discrete", "values": [1.0, 3.0], "p": [0.7, 0.3]})
    law = ByType((a, b), p=(0.6, 0.4))
    x = sample_jobs(IID(), law, 400_000, 2, np.random.default_rng(11))
    mins = x.min(axis=1)
    expected = 0.6 * a.mean_min_of(2) + 0.4 * b.mean_min_of(2)
    assert abs(law.mean_min_of(2) - expected) > 0.02  # the test tells the two apart
    assert abs(mins.mean() - expected) <= 5 * mins.std() / math.sqrt(mins.size)
    assert abs(x.mean() - law.mean()) <= 5 * x.std() / math.sqrt(x.size)
