"""The mean-field tier against exact results (straggler.engines.mean_field).

Every tolerance on E[T] is the solver's own stated relative error (``Equilibrium.error``,
the change between its two finest grids plus its estimate of the tail beyond the grid),
never a number chosen to make a test pass: a failure means the solver is wrong or its
error estimate dishonest. Where a quantity the solver states no error for is checked
(the busy probability, a quantile), the test says which error bounds it and why.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from straggler.engines import mean_field as mf
from straggler.model import distributions as D
from straggler.model.dependence import IID, SX, Identical, Mixture

EXP = D.Exponential(1.0)
H2 = D.Hyperexponential(p=(0.9, 0.1), rates=(2.0, 0.2))
LOGNORMAL = D.Lognormal(mean_value=1.0, cv=1.5)
PARETO = D.Pareto(xm=1.0, alpha=2.2)
DETERMINISTIC = D.Deterministic(1.0)
DISCRETE = D.Discrete(values=(1.0, 3.0, 10.0), p=(0.6, 0.3, 0.1))
LOADS = (0.3, 0.5, 0.7, 0.9)


def close(value: float, exact: float, eq: mf.Equilibrium) -> bool:
    """``value`` within the solver's stated relative error of ``exact``."""
    return abs(value - exact) <= eq.error * abs(exact)


def coc_iid_exponential(rho: float, d: int) -> float:
    """Gardner et al., Operations Research 65(4) 2017: E[T] of redundancy-d with i.i.d.
    exponential copies (mu = 1) as N -> infinity."""
    return math.fsum(rho**n / (n * (d - 1) + d) for n in range(20_000))


# --------------------------------------------------------------------- exact checks


@pytest.mark.parametrize("rho", LOADS)
def test_zred_exponential_is_the_mm1_queue(rho):
    eq = mf.solve("ZRed", 1, EXP, IID(), rho)
    assert eq.stable and eq.d == 1 and eq.busy == rho and eq.cost == pytest.approx(1.0)
    assert close(eq.latency_mean, 1.0 / (1.0 - rho), eq)
    # Fbar(w) = rho e^{-(1-rho) w}, P(T > t) = e^{-(1-rho) t}. ``error`` holds the change of
    # the grid's mean of T, an integral of the arrays: it bounds their error in absolute
    # terms (far in the tail the relative error grows, as the decay rate is off by O(h^2))
    w = eq.step * np.arange(eq.workload_sf.size)
    assert np.max(np.abs(eq.workload_sf - rho * np.exp(-(1.0 - rho) * w))) <= eq.error * rho
    assert np.max(np.abs(eq.latency_sf - np.exp(-(1.0 - rho) * w))) <= eq.error
    # the p-quantile -ln(1-p)/(1-rho): the linear interpolation between grid points adds
    # at most h^2 |sf''| / 8 to P(T > t), i.e. (h (1-rho))^2 / 8 relative
    p = np.array([0.5, 0.9, 0.99, 0.999])
    exact_q = -np.log(1.0 - p) / (1.0 - rho)
    interp = (eq.step * (1.0 - rho)) ** 2 / 8.0
    assert np.all(np.abs(eq.latency_quantile(p) - exact_q) <= (eq.error + interp) * exact_q)


@pytest.mark.parametrize("X", [H2, LOGNORMAL, DISCRETE], ids=["h2", "lognormal", "discrete"])
@pytest.mark.parametrize("rho", [0.5, 0.9])
def test_zred_is_pollaczek_khinchine_and_its_grid_agrees(X, rho):
    lam = rho / X.mean()
    eq = mf.solve("ZRed", 1, X, IID(), rho)
    pk = X.mean() + lam * X.second_moment() / (2.0 * (1.0 - rho))
    assert close(eq.latency_mean, pk, eq)
    # the grid's own law of T has that mean too, up to the mass beyond its end
    mean, quadrature = grid_mean(eq)
    assert abs(mean - pk) <= eq.error * pk + quadrature + tail_bound(eq)


def grid_mean(eq: mf.Equilibrium) -> tuple[float, float]:
    """``int_0^W P(T > t) dt`` by the trapezoid rule on the grid's points, and the rule's
    error bound: its change from the rule on every other point (a bound for a rule of
    order one or more; P(T > t) jumps at a size's atoms, where the rule is of order one)."""
    s = eq.latency_sf
    n = (s.size - 1) // 2 * 2
    fine = float(eq.step * (s[: n + 1].sum() - 0.5 * (s[0] + s[n])))
    coarse = float(2.0 * eq.step * (s[: n + 1 : 2].sum() - 0.5 * (s[0] + s[n])))
    tail = float(eq.step * 0.5 * (s[n:-1].sum() + s[n + 1 :].sum()))
    return fine + tail, abs(fine - coarse)


def tail_bound(eq: mf.Equilibrium) -> float:
    """What the grid cannot hold of E[T]: ``int_W^inf P(T > t) dt``, bounded for the
    light tails used here by P(T > W) times a generous mean residual (the grid's end)."""
    return eq.truncated * eq.step * (eq.latency_sf.size - 1)


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("rho", LOADS)
def test_coc_iid_exponential_is_gardner_et_al(rho, d):
    eq = mf.solve("CoC", d, EXP, IID(), rho)
    assert eq.stable
    assert close(eq.latency_mean, coc_iid_exponential(rho, d), eq)
    # the server time per job is E[X] exactly (b = rho); ``error`` bounds the cost's too
    assert abs(eq.cost - 1.0) <= eq.error


def test_coc_iid_exponential_d2_closed_form_at_0_7():
    rho = 0.7
    exact = math.log(1.0 / (1.0 - rho)) / rho**2 - 1.0 / rho
    assert exact == pytest.approx(1.028516, abs=5e-7)
    eq = mf.solve("CoC", 2, EXP, IID(), rho)
    assert close(eq.latency_mean, exact, eq)


@pytest.mark.parametrize("lam", LOADS)
def test_cos_exponential_is_least_loaded_of_two(lam):
    eq = mf.solve("CoS", 2, EXP, IID(), lam)
    assert eq.busy == lam and eq.cost == pytest.approx(1.0)
    assert close(eq.latency_mean, -math.log(1.0 - lam**2) / lam**2, eq)


def test_cos_ignores_the_dependence():
    a = mf.solve("CoS", 2, LOGNORMAL, IID(), 0.6)
    b = mf.solve("CoS", 2, LOGNORMAL, Identical(), 0.6)
    assert a.latency_mean == b.latency_mean and np.array_equal(a.latency_sf, b.latency_sf)


# ------------------------------------------------------------------------ identities


@pytest.mark.parametrize("X", [EXP, LOGNORMAL, PARETO], ids=["exp", "lognormal", "pareto"])
@pytest.mark.parametrize(
    "policy, dependence",
    [
        ("CoC", IID()),
        ("CoC", Identical()),
        ("CoC", Mixture(0.4)),
        ("CoS", IID()),
        ("RIQ", IID()),
        ("RIQ", Mixture(0.4)),
    ],
)
def test_every_policy_with_one_copy_is_zred(X, policy, dependence):
    zred = mf.solve("ZRed", 1, X, IID(), 0.6)
    eq = mf.solve(policy, 1, X, dependence, 0.6)
    assert eq.busy == pytest.approx(zred.busy, rel=1e-14)
    assert eq.latency_mean == pytest.approx(zred.latency_mean, rel=1e-12)
    assert eq.step == zred.step
    n = min(eq.workload_sf.size, zred.workload_sf.size)
    assert np.max(np.abs(eq.workload_sf[:n] - zred.workload_sf[:n])) <= 1e-12
    assert np.max(np.abs(eq.latency_sf[:n] - zred.latency_sf[:n])) <= 1e-12


@pytest.mark.parametrize("policy", ["CoC", "RIQ"])
def test_a_mixture_of_zero_is_iid_and_of_one_identical(policy):
    for c, plain in ((0.0, IID()), (1.0, Identical())):
        mixed = mf.solve(policy, 2, H2, Mixture(c), 0.5)
        eq = mf.solve(policy, 2, H2, plain, 0.5)
        assert mixed.latency_mean == eq.latency_mean and mixed.busy == eq.busy
        assert np.array_equal(mixed.latency_sf, eq.latency_sf)


@pytest.mark.parametrize("X", [DETERMINISTIC, DISCRETE], ids=["deterministic", "discrete"])
@pytest.mark.parametrize("d", [2, 3])
def test_deterministic_copies_are_identical_whatever_the_dependence(X, d):
    """One size: i.i.d. copies are identical ones, so the i.i.d. equation (``lambda d G
    H^(d-1)``), the identical one (``lambda d (G_min - Fbar G_V)``) and a mixture of the
    two must give one equilibrium (the discrete law: only as a check that they differ)."""
    rho = 0.3 if d == 2 else 0.2
    iid = mf.solve("CoC", d, X, IID(), rho)
    ident = mf.solve("CoC", d, X, Identical(), rho)
    if X is DISCRETE:
        assert ident.latency_mean > iid.latency_mean * 1.1
        return
    mixed = mf.solve("CoC", d, X, Mixture(0.5), rho)
    for eq in (iid, mixed):
        tol = eq.error + ident.error  # each within its error of the one true value
        assert abs(eq.latency_mean - ident.latency_mean) <= tol * ident.latency_mean
        assert abs(eq.busy - ident.busy) <= tol * ident.busy


def test_fred_is_coc_with_two_copies():
    fred = mf.solve("FRed", 7, LOGNORMAL, IID(), 0.5)
    coc = mf.solve("CoC", 2, LOGNORMAL, IID(), 0.5)
    assert fred.d == 2 and fred.policy == "FRed"
    assert fred.latency_mean == coc.latency_mean and np.array_equal(fred.workload_sf, coc.workload_sf)


def test_riq_exponential_keeps_the_busy_probability_at_the_load():
    """Exponential copies: E[M_K] = (1 - b^d) / (d (1 - b)), so the balance
    ``b = lambda d (1 - b) E[M_K] + lambda b^d E[X]`` gives b = rho (memoryless)."""
    for d in (2, 3):
        eq = mf.solve("RIQ", d, EXP, IID(), 0.7)
        assert eq.busy == pytest.approx(0.7, rel=1e-12)


# ------------------------------------------------------------------ the stated error


@pytest.mark.parametrize(
    "policy, d, X, dependence, rho",
    [
        ("CoC", 2, LOGNORMAL, IID(), 0.6),
        ("CoC", 3, H2, IID(), 0.5),
        ("CoC", 2, H2, Identical(), 0.6),
        ("CoC", 2, LOGNORMAL, Mixture(0.5), 0.5),
        ("CoS", 3, PARETO, IID(), 0.8),
        ("RIQ", 2, DISCRETE, Mixture(0.3), 0.6),
        ("CoC", 2, DETERMINISTIC, IID(), 0.3),
    ],
)
def test_the_stated_error_holds_against_a_much_finer_grid(policy, d, X, dependence, rho, monkeypatch):
    """The reference, on the same span, is refined as far as the cap of cells allows
    with sixteen times the work the solver allows itself; it is within its own
    (smaller) error of the true value, so the default solve must be within the sum."""
    from straggler.engines.mean_field import solver

    eq = mf.solve(policy, d, X, dependence, rho)
    monkeypatch.setattr(solver, "WORK_BUDGET", 16 * solver.WORK_BUDGET)
    fine = mf.solve(policy, d, X, dependence, rho, tolerance=1e-9)
    assert fine.step < eq.step or fine.error < 1e-9
    assert fine.error <= eq.error <= eq.tolerance == 1e-3
    assert abs(eq.latency_mean - fine.latency_mean) <= (eq.error + fine.error) * fine.latency_mean
    assert abs(eq.busy - fine.busy) <= (eq.error + fine.error) * fine.busy


@pytest.mark.parametrize(
    "policy, dependence",
    [("ZRed", IID()), ("CoS", IID()), ("CoC", IID()), ("CoC", Identical()), ("CoC", Mixture(0.5)), ("RIQ", IID())],
)
def test_the_grid_s_law_of_the_latency_has_the_stated_mean(policy, dependence):
    """The arrays are the solution, not a by-product: for light tails, the mean of the
    latency's law on the grid is E[T] (up to the stated error and the mass beyond W)."""
    eq = mf.solve(policy, 2, H2, dependence, 0.6)
    assert eq.truncated < 1e-6
    mean, quadrature = grid_mean(eq)
    assert abs(mean - eq.latency_mean) <= eq.error * eq.latency_mean + quadrature + tail_bound(eq)


# ------------------------------------------------------------------------- stability


def test_an_unstable_load_says_so_quickly():
    mf.solve("CoC", 2, EXP, Identical(), 0.5)  # kernels loaded
    start = time.perf_counter()
    eq = mf.solve("CoC", 2, EXP, Identical(), 0.9)
    assert time.perf_counter() - start < 1.0
    assert not eq.stable and eq.busy == 1.0 and eq.latency_mean == math.inf and math.isnan(eq.cost)
    assert np.all(np.isinf(eq.latency_quantile(np.array([0.5, 0.99]))))
    assert np.all(np.isinf(eq.workload_quantile(np.array([0.1, 0.9]))))


def test_a_single_copy_at_full_load_is_unstable():
    for policy in ("ZRed", "CoS"):
        assert not mf.solve(policy, 2, H2, IID(), 1.0).stable


def test_deterministic_iid_copies_are_unstable_where_both_always_run():
    """Deterministic copies that start together run to the end together: at a load near
    1/d the copies' work nearly doubles, the fixed point leaves b < 1."""
    assert mf.solve("CoC", 2, DETERMINISTIC, IID(), 0.7).stable
    assert not mf.solve("CoC", 3, DETERMINISTIC, IID(), 0.7).stable


# ------------------------------------------------------------------- the quantiles


@pytest.mark.parametrize("policy, dependence", [("ZRed", IID()), ("CoC", Mixture(0.5)), ("RIQ", IID())])
def test_workload_quantile_is_zero_with_probability_one_minus_busy_and_follows_workload_sf(policy, dependence):
    eq = mf.solve(policy, 2, LOGNORMAL, dependence, 0.6)
    m = 200_000
    u = (np.arange(m) + 0.5) / m  # a stratified uniform sample: the law's quantiles
    x = eq.workload_quantile(u)
    assert np.all(np.diff(x) >= 0.0)
    assert abs(np.mean(x == 0.0) - (1.0 - eq.busy)) <= 1.0 / m
    w = eq.step * np.arange(eq.workload_sf.size)
    ks = np.linspace(0, eq.workload_sf.size - 1, 50).astype(int)
    frac = np.array([np.mean(x > w[k]) for k in ks])
    assert np.all(np.abs(frac - eq.workload_sf[ks]) <= 1.0 / m + 1e-12)


def test_quantiles_are_vectorised_and_checked():
    eq = mf.solve("CoC", 2, H2, IID(), 0.5)
    assert isinstance(eq.latency_quantile(0.5), float)
    q = eq.latency_quantile(np.array([[0.5, 0.9], [0.99, 0.999]]))
    assert q.shape == (2, 2) and np.all(np.diff(q.ravel()) > 0)
    with pytest.raises(ValueError):
        eq.latency_quantile(1.0)
    assert eq.workload_quantile(np.array([0.0])).tolist() == [0.0]


def test_a_quantile_beyond_the_grid_is_nan():
    eq = mf.solve("ZRed", 1, PARETO, IID(), 0.9)
    assert eq.truncated > 1e-6  # a heavy tail the grid cannot hold
    assert math.isnan(eq.latency_quantile(1.0 - eq.truncated / 2))
    assert math.isfinite(eq.latency_quantile(0.99))


# ----------------------------------------------------------------------- the face


def test_the_policies_and_what_is_covered():
    assert mf.POLICIES == frozenset({"ZRed", "CoC", "FRed", "CoS", "RIQ"})
    for policy in mf.POLICIES:
        for dep in (IID(), Identical(), Mixture(0.3), "iid", {"kind": "mixture", "identical": 0.5}):
            assert mf.covered(policy, dep) is None
        assert "sx" in mf.covered(policy, SX(D.Deterministic(1.0)))
    assert mf.covered("Red", IID()) is None  # an alias of CoC
    assert "FJ" in mf.covered("FJ", IID())
    with pytest.raises(ValueError, match="sx"):
        mf.solve("CoC", 2, EXP, SX(D.Deterministic(1.0)), 0.5)
    with pytest.raises(ValueError):
        mf.solve("CoC", 0, EXP, IID(), 0.5)


def test_importing_the_face_loads_no_numba():
    import subprocess
    import sys

    code = "import sys, straggler.engines.mean_field; print('numba' in sys.modules, 'scipy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_an_empirical_trace_solves_within_a_second():
    trace = D.from_spec(
        {"family": "empirical", "file": "config/data/requests_ms.csv", "column": "duration_ms"}
        | {"file": str(__import__("pathlib").Path(__file__).resolve().parents[3] / "config/data/requests_ms.csv")}
    )
    mf.solve("CoC", 2, trace, Mixture(0.5), 0.5)  # kernels loaded
    for policy, dep in (("ZRed", IID()), ("CoC", Identical()), ("CoC", Mixture(0.5)), ("RIQ", IID())):
        start = time.perf_counter()
        eq = mf.solve(policy, 2, trace, dep, 0.9 if policy != "CoC" else 0.7)
        assert time.perf_counter() - start < 1.0
        assert eq.stable and eq.error <= eq.tolerance
