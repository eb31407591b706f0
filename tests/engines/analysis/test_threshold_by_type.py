"""A size law per job type (``by_type``) in the threshold paper's analysis: every sum over
the types uses the type's own law (straggler.model.two_pools, straggler.engines.analysis.threshold,
two_pool_handlers), checked against evaluations written here from scratch.

- ``ByType((a, ..., a))`` is the plain law ``a``: every bound, work, threshold and latency
  is the same.
- With different laws per type, the works (ZRed eq. 5, FRed eq. 6, rerouting eq. 2) equal
  hand sums over the types, each from its own law, written with this file's own piecewise
  representation of the laws (atoms and uniform pieces): exact, and against Monte Carlo
  draws of each type's law (rerouting and replication at a finite threshold).
- ZRed's per-server latency is Pollaczek-Khinchine (and M/G/1-PS) with the per-type moments.
- Policies whose analysis has one law for every type (CoC, KS, ...) say so with NaN.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from straggler.engines.analysis import threshold as T
from straggler.engines.analysis import threshold_search as TS
from straggler.engines.analysis.cell import analyze
from straggler.model import dependence
from straggler.model.cell_model import CellModel
from straggler.model.distributions import ByType, Discrete, Quantiles, Uniform, sample_many
from straggler.model.two_pools import (
    TwoPoolSystem,
    assignment_fractions,
    expected_work_zero_redundancy,
    optimal_assignment_no_redundancy,
    replica_work,
)
from straggler.study.cell_build import build_model
from straggler.study.config import resolve_config
from straggler.study.grid import build_grid

# ------------------------------------------------------------------------------ the laws

A = Quantiles({0: 0.1, 0.5: 0.6, 0.9: 2.0, 1: 5.0})
B = Discrete([1, 3], [0.7, 0.3])
U = Uniform(0.5, 1.5)
SLOWDOWN = Discrete([1, 4], [0.8, 0.2])

# the same laws as this file's own pieces: ("atom", x, mass) and ("flat", x0, x1, mass)
# (mass spread uniformly on [x0, x1]); A's quantile table is linear between its points
PIECES = {
    "A": [("flat", 0.1, 0.6, 0.5), ("flat", 0.6, 2.0, 0.4), ("flat", 2.0, 5.0, 0.1)],
    "B": [("atom", 1.0, 0.7), ("atom", 3.0, 0.3)],
    "U": [("flat", 0.5, 1.5, 1.0)],
}
LAWS = {"A": A, "B": B, "U": U}
S_ATOMS = [(1.0, 0.8), (4.0, 0.2)]

DEPS = {
    "identical": dependence.from_spec({"kind": "identical"}, {}),
    "iid": dependence.from_spec({"kind": "iid"}, {}),
    "sx": dependence.from_spec(
        {"kind": "sx", "slowdown": {"family": "discrete", "values": [1, 4], "p": [0.8, 0.2]}}, {}
    ),
}

# the paper's system, one server per pool; and a larger one: pools (1, 3), three types,
# a speed matrix of its own, partly known types
SMALL = TwoPoolSystem.affinity(2, 0.5, p=[0.6, 0.4])
LARGE = TwoPoolSystem.affinity(
    4,
    0.5,
    p=[0.5, 0.3, 0.2],
    pools=(1, 3),
    knowledge="partial",
    belief=0.7,
    speeds=((1.0, 0.25, 0.8), (0.4, 1.5, 0.8)),
)
SYSTEMS = {"small": (SMALL, ("A", "B")), "large": (LARGE, ("A", "B", "U"))}


def by_type(system: TwoPoolSystem, names) -> ByType:
    return ByType(tuple(LAWS[n] for n in names), p=system.p)


# ------------------------------------------------------------------ hand evaluation


def _ym(kind, x, rest):
    """(upper end, mass) of a piece."""
    return (x, rest[0]) if kind == "atom" else (rest[0], rest[1])


def _summed(pieces, term) -> float:
    """sum over the pieces of ``term(atom?, x, y, mass)``: each piece's share of a functional."""
    return math.fsum(term(kind == "atom", x, *_ym(kind, x, rest)) for kind, x, *rest in pieces)


def mean(pieces) -> float:
    return _summed(pieces, lambda atom, x, y, m: m * (x + y) / 2)  # an atom's ends are both x


def second(pieces) -> float:
    return _summed(pieces, lambda atom, x, y, m: m * (x * x if atom else (x * x + x * y + y * y) / 3))


def sf(pieces, t: float) -> float:
    """P(X > t)."""

    def term(atom, x, y, m):
        if atom:
            return m if x > t else 0.0
        return m * min(max((y - t) / (y - x), 0.0), 1.0)

    return _summed(pieces, term)


def mean_min(pieces, c: float) -> float:
    """E[min(X, c)]."""

    def term(atom, x, y, m):
        if atom:
            return m * min(x, c)
        if c <= x:
            return m * c
        if c >= y:
            return m * (x + y) / 2
        return m * ((c * c - x * x) / 2 + c * (y - c)) / (y - x)  # E[min(U, c)], U uniform on [x, y]

    return _summed(pieces, term)


def mean_above(pieces, c: float) -> float:
    """E[X 1{X > c}]."""

    def term(atom, x, y, m):
        if atom:
            return m * x if x > c else 0.0
        if c <= x:
            return m * (x + y) / 2
        return m * (y - c) / (y - x) * (c + y) / 2 if c < y else 0.0

    return _summed(pieces, term)


def integral_sf_product(f, g, a: float, b: float) -> float:
    """int_0^inf P(aX > t) P(bY > t) dt = E[min(aX, bY)] for independent X ~ f, Y ~ g:
    piecewise quadratic between the scaled pieces' ends, so 2-point Gauss-Legendre on
    each interval is exact (and never evaluates at an atom)."""
    points = {0.0}
    for scale, pieces in ((a, f), (b, g)):
        for kind, x, *rest in pieces:
            y, _ = _ym(kind, x, rest)
            points.update((scale * x, scale * y))
    points = sorted(points)
    nodes = (0.5 - 0.5 / math.sqrt(3.0), 0.5 + 0.5 / math.sqrt(3.0))
    total = []
    for lo, hi in itertools.pairwise(points):
        for u in nodes:
            t = lo + u * (hi - lo)
            total.append(0.5 * (hi - lo) * sf(f, t / a) * sf(g, t / b))
    return math.fsum(total)


def hand_fred_type(pieces, r0: float, r1: float, dep: str) -> float:
    """E[min(X_0 / r0, X_1 / r1)] for one type."""
    if dep == "identical":
        return mean(pieces) / max(r0, r1)
    if dep == "iid":
        return integral_sf_product(pieces, pieces, 1.0 / r0, 1.0 / r1)
    # sx: X_i = X S_i, so min(X S_0 / r0, X S_1 / r1) = X min(S_0 / r0, S_1 / r1)
    return mean(pieces) * math.fsum(
        p * q * min(s / r0, t / r1) for (s, p), (t, q) in itertools.product(S_ATOMS, S_ATOMS)
    )


def hand_replica_moments(pieces, dep: str) -> tuple[float, float]:
    if dep == "sx":
        s1 = math.fsum(s * p for s, p in S_ATOMS)
        s2 = math.fsum(s * s * p for s, p in S_ATOMS)
        return mean(pieces) * s1, second(pieces) * s2
    return mean(pieces), second(pieces)


def hand_rerouting_type(pieces, r_i: float, r_l: float, tau_i: float, tau_l: float, dep: str):
    """(E[min(A_i, tau_i)], E[A_i 1{A_l > tau_l}]) of one type, A_i = X_i / r_i."""
    if dep == "identical":
        own = mean_min(pieces, tau_i * r_i) / r_i
        cross = mean_above(pieces, tau_l * r_l) / r_i
    elif dep == "iid":
        own = mean_min(pieces, tau_i * r_i) / r_i
        cross = mean(pieces) / r_i * sf(pieces, tau_l * r_l)
    else:  # given the slowdowns (s, t) of the two replicas, identical replicas X s and X t
        own = math.fsum(p * s / r_i * mean_min(pieces, tau_i * r_i / s) for s, p in S_ATOMS)
        cross = math.fsum(
            p * q * s / r_i * mean_above(pieces, tau_l * r_l / t)
            for (s, p), (t, q) in itertools.product(S_ATOMS, S_ATOMS)
        )
    return own, cross


def hand_rerouting_work(system: TwoPoolSystem, names, dep: str, alpha, tau) -> np.ndarray:
    """E[B_i] = sum_j p_j (alpha_ij E[min(A_ij, tau_i)] + alpha_lj E[A_ij 1{A_lj > tau_l}])."""
    r = system.speeds
    out = []
    for i in range(2):
        l = 1 - i
        terms = []
        for j, name in enumerate(names):
            own, cross = hand_rerouting_type(PIECES[name], r[i][j], r[l][j], tau[i], tau[l], dep)
            terms.append(system.p[j] * (alpha[i][j] * own + alpha[l][j] * cross))
        out.append(math.fsum(terms))
    return np.array(out)


def hand_pk_latency(system: TwoPoolSystem, names, dep: str, alpha, lam: float, discipline: str) -> float:
    """Random dispatch to per-server queues: each server of pool i an M/G/1 queue (rate
    lam sum_j p_j alpha_ij / n_i) whose service is X_j / r_ij with probability
    proportional to p_j alpha_ij."""
    r = system.speeds
    moments = [hand_replica_moments(PIECES[n], dep) for n in names]
    total = []
    for i in range(2):
        w = [system.p[j] * alpha[i][j] for j in range(len(names))]
        share = math.fsum(w)
        if share == 0:
            continue
        lam_i = lam * share / system.n[i]
        s1 = math.fsum(w[j] * moments[j][0] / r[i][j] for j in range(len(names))) / share
        s2 = math.fsum(w[j] * moments[j][1] / r[i][j] ** 2 for j in range(len(names))) / share
        rho = lam_i * s1
        assert rho < 1
        for j in range(len(names)):
            size = moments[j][0] / r[i][j]
            if discipline == "FCFS":
                total.append(w[j] * (size + lam_i * s2 / (2 * (1 - rho))))
            else:
                total.append(w[j] * size / (1 - rho))
    return math.fsum(total)


def test_the_hand_laws_are_the_library_s():
    """This file's pieces describe the same laws (else the hand checks prove nothing)."""
    for name, law in LAWS.items():
        assert mean(PIECES[name]) == pytest.approx(law.mean(), rel=1e-13)
        assert second(PIECES[name]) == pytest.approx(law.second_moment(), rel=1e-13)
        for t in (0.3, 0.9, 1.0, 2.5, 4.0):
            assert sf(PIECES[name], t) == pytest.approx(float(law.sf(t)), abs=1e-14)
    assert mean(PIECES["A"]) == pytest.approx(1.045, rel=1e-14)
    assert mean(PIECES["B"]) == pytest.approx(1.6, rel=1e-14)


# ---------------------------------------------------- ByType((a, ..., a)) is a

TAU = (0.8, 1.7)  # no atom of any A_ij sits at a threshold


def same_bound(x, y, rel=1e-12):
    assert x.rate == pytest.approx(y.rate, rel=rel)
    np.testing.assert_allclose(x.q, y.q, rtol=rel, atol=1e-12)
    np.testing.assert_allclose(x.work, y.work, rtol=rel)
    if hasattr(x, "tau"):
        np.testing.assert_allclose(x.tau, y.tau, rtol=rel)
        assert x.policy == y.policy


@pytest.mark.parametrize("dep", list(DEPS))
@pytest.mark.parametrize("which", list(SYSTEMS))
def test_one_law_for_every_type_is_the_plain_law(which, dep):
    system, names = SYSTEMS[which]
    X, D = ByType((A,) * len(names), p=system.p), DEPS[dep]
    np.testing.assert_allclose(replica_work(system, X, D), replica_work(system, A, D), rtol=1e-13)
    same_bound(optimal_assignment_no_redundancy(system, X, D), optimal_assignment_no_redundancy(system, A, D))
    np.testing.assert_allclose(
        T.expected_work_full_redundancy(system, X, D), T.expected_work_full_redundancy(system, A, D), rtol=1e-13
    )
    same_bound(T.full_redundancy_bound(system, X, D), T.full_redundancy_bound(system, A, D))
    same_bound(TS.optimal_rerouting(system, X, D), TS.optimal_rerouting(system, A, D))
    if not (which == "large" and dep == "iid"):  # i.i.d. replication needs quadrature: seconds
        same_bound(TS.optimal_replication(system, X, D), TS.optimal_replication(system, A, D))
    alpha = assignment_fractions(system, [0.3] * len(system.belief[0]))
    for fn in (
        T.expected_work_rerouting,
        T.expected_work_replication,
        T.second_moment_work_rerouting,
        T.second_moment_work_replication,
    ):
        np.testing.assert_allclose(fn(system, X, D, alpha, TAU), fn(system, A, D, alpha, TAU), rtol=1e-12)
    np.testing.assert_allclose(
        T.expected_work_rerouting_multi(system, X, D, alpha, [0.5, 1.5, 3.0]),
        T.expected_work_rerouting_multi(system, A, D, alpha, [0.5, 1.5, 3.0]),
        rtol=1e-12,
    )
    if system.n == (1, 1):
        lam = np.array([0.1, 0.4])
        for fn in (T.latency_rerouting, T.latency_replication):
            np.testing.assert_allclose(fn(system, X, D, alpha, TAU, lam), fn(system, A, D, alpha, TAU, lam), rtol=1e-12)


def cell(policy, system, size, dep, discipline="FCFS", queueing="per_server", params=None, loads=(0.2, 0.5)):
    return CellModel(
        policy=policy,
        params=dict(params or {}),
        size=size,
        dependence=DEPS[dep],
        N=system.servers,
        d=None,
        r_slow=0.5,
        system=system,
        discipline=discipline,
        queueing=queueing,
        loads=np.array(loads, dtype=float),
    )


CELLS = [
    ("ZRed", {}),
    ("KT", {}),
    ("FRed", {}),
    ("Rer", {"tau": list(TAU)}),
    ("Rep", {"tau": list(TAU)}),
    ("Rer", {"tau": "opt"}),
    ("Rep", {"tau": "opt"}),
]


# Rep at the optimal threshold with i.i.d. replicas needs quadrature (seconds): the
# optimiser's i.i.d. case is compared above
CELL_CASES = [
    pytest.param(policy, params, dep, id=f"{policy}-{params.get('tau', '')}-{dep}")
    for (policy, params), dep in itertools.product(CELLS, ("identical", "iid"))
    if not (policy == "Rep" and params.get("tau") == "opt" and dep == "iid")
]


@pytest.mark.parametrize("policy, params, dep", CELL_CASES)
def test_a_cell_with_one_law_for_every_type_is_analysed_as_the_plain_law(policy, params, dep):
    plain = analyze(cell(policy, SMALL, A, dep, params=params))
    typed = analyze(cell(policy, SMALL, ByType((A, A), p=SMALL.p), dep, params=params))
    for name in ("lambda_max", "cost", "q_opt", "tau_opt", "tau_opt_pool2"):
        a, b = getattr(plain, name), getattr(typed, name)
        assert (math.isnan(a) and math.isnan(b)) or b == pytest.approx(a, rel=1e-11), name
    for name in ("rho", "latency_approx"):
        np.testing.assert_allclose(getattr(typed, name), getattr(plain, name), rtol=1e-11, err_msg=name)
    assert typed.lambda_max_kind == plain.lambda_max_kind
    assert typed.latency_approx_kind == plain.latency_approx_kind
    assert math.isfinite(typed.lambda_max)
    assert [n.text for n in typed.note_items] == [n.text for n in plain.note_items]


# ------------------------------------------------------- a law per type, by hand


@pytest.mark.parametrize("dep", list(DEPS))
@pytest.mark.parametrize("which", list(SYSTEMS))
def test_full_redundancy_work_is_the_sum_over_types_of_each_type_s_min(which, dep):
    system, names = SYSTEMS[which]
    X = by_type(system, names)
    r = system.speeds
    hand = math.fsum(system.p[j] * hand_fred_type(PIECES[n], r[0][j], r[1][j], dep) for j, n in enumerate(names))
    work = T.expected_work_full_redundancy(system, X, DEPS[dep])
    np.testing.assert_allclose(work, [hand, hand], rtol=1e-10)
    bound = T.full_redundancy_bound(system, X, DEPS[dep])
    assert bound.rate == pytest.approx(1.0 / max(hand / system.n[0], hand / system.n[1]), rel=1e-10)


def test_iid_full_redundancy_by_hand_is_not_the_mixture_s():
    """The replicas of a type-j job are both drawn from type j's law: for SMALL with
    i.i.d. replicas that is not E[min] of two independent mixture draws."""
    X = by_type(SMALL, ("A", "B"))
    mixture_pieces = [(k, x, *rest[:-1], rest[-1] * 0.6) for k, x, *rest in PIECES["A"]] + [
        (k, x, *rest[:-1], rest[-1] * 0.4) for k, x, *rest in PIECES["B"]
    ]
    r = SMALL.speeds
    of_mixture = math.fsum(
        SMALL.p[j] * integral_sf_product(mixture_pieces, mixture_pieces, 1 / r[0][j], 1 / r[1][j]) for j in range(2)
    )
    work = T.expected_work_full_redundancy(SMALL, X, DEPS["iid"])[0]
    assert abs(work - of_mixture) > 1e-2
    hand = math.fsum(SMALL.p[j] * hand_fred_type(PIECES[n], r[0][j], r[1][j], "iid") for j, n in enumerate(("A", "B")))
    assert work == pytest.approx(hand, rel=1e-10)


@pytest.mark.parametrize("dep", list(DEPS))
@pytest.mark.parametrize("which", list(SYSTEMS))
def test_zero_redundancy_work_at_an_assignment_is_the_hand_sum(which, dep):
    system, names = SYSTEMS[which]
    X = by_type(system, names)
    r = system.speeds
    C = len(system.belief[0])
    for q in ([0.0] * C, [1.0] * C, [0.3] * C, [0.9, 0.2, 0.5][:C]):
        alpha = assignment_fractions(system, q)
        hand = [
            math.fsum(
                system.p[j] * alpha[i][j] * hand_replica_moments(PIECES[n], dep)[0] / r[i][j]
                for j, n in enumerate(names)
            )
            for i in range(2)
        ]
        np.testing.assert_allclose(expected_work_zero_redundancy(system, X, DEPS[dep], alpha), hand, rtol=1e-13)
        # rerouting at tau = inf and replication at tau = inf are zero redundancy
        np.testing.assert_allclose(T.expected_work_rerouting(system, X, DEPS[dep], alpha, math.inf), hand, rtol=1e-12)
        np.testing.assert_allclose(T.expected_work_replication(system, X, DEPS[dep], alpha, math.inf), hand, rtol=1e-12)


@pytest.mark.parametrize("dep", list(DEPS))
@pytest.mark.parametrize("which", list(SYSTEMS))
def test_zero_redundancy_lp_attains_the_best_assignment_on_a_grid(which, dep):
    """The LP's rate is attained at its q (hand work) and no q of a fine grid does better."""
    system, names = SYSTEMS[which]
    X = by_type(system, names)
    n = system.n
    r = system.speeds
    means = [hand_replica_moments(PIECES[name], dep)[0] for name in names]

    def rate(q):
        alpha = assignment_fractions(system, q)
        work = [math.fsum(system.p[j] * alpha[i][j] * means[j] / r[i][j] for j in range(len(names))) for i in range(2)]
        return 1.0 / max(work[0] / n[0], work[1] / n[1])

    bound = optimal_assignment_no_redundancy(system, X, DEPS[dep])
    assert bound.rate == pytest.approx(rate(bound.q), rel=1e-9)
    C = len(system.belief[0])
    grid = np.linspace(0.0, 1.0, 201 if C == 1 else 41)
    best = max(rate(list(q)) for q in itertools.product(grid, repeat=C))
    assert best <= bound.rate * (1 + 1e-9)
    assert best >= bound.rate * (1 - 2e-2)  # the grid comes close
    if C == 1:  # unknown types: the balancing q in closed form
        c0 = math.fsum(system.p[j] * means[j] / r[0][j] for j in range(len(names))) / n[0]
        c1 = math.fsum(system.p[j] * means[j] / r[1][j] for j in range(len(names))) / n[1]
        assert bound.q[0] == pytest.approx(c1 / (c0 + c1), rel=1e-9)
        assert bound.rate == pytest.approx((c0 + c1) / (c0 * c1), rel=1e-9)


@pytest.mark.parametrize("dep", list(DEPS))
@pytest.mark.parametrize("which", list(SYSTEMS))
def test_rerouting_work_at_a_finite_threshold_is_the_hand_sum(which, dep):
    system, names = SYSTEMS[which]
    X = by_type(system, names)
    C = len(system.belief[0])
    alpha = assignment_fractions(system, [0.35, 0.8, 0.1][:C])
    for tau in (TAU, (0.3, 2.6), (0.0, 1.1), (4.5, math.inf)):
        hand = hand_rerouting_work(system, names, dep, alpha, tau)
        np.testing.assert_allclose(T.expected_work_rerouting(system, X, DEPS[dep], alpha, tau), hand, rtol=1e-10)
        # one threshold per pool is Prop. 5 with n = 1
        multi = T.expected_work_rerouting_multi(system, X, DEPS[dep], alpha, [[tau[0]], [tau[1]]])
        np.testing.assert_allclose(multi, hand, rtol=1e-10)


# ----------------------------------------------------------------- Monte Carlo

N_MC = 10**6


def replica_draws(law, dep: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(X_0, X_1): a type's two replica sizes (speed 1) for pools 0 and 1, n draws."""
    x = sample_many(law, N_MC, seed)
    if dep == "identical":
        return x, x
    if dep == "iid":
        return x, sample_many(law, N_MC, seed + 1)
    s0, s1 = sample_many(SLOWDOWN, N_MC, seed + 2), sample_many(SLOWDOWN, N_MC, seed + 3)
    return x * s0, x * s1


def per_job_work(policy: str, a_i, a_l, tau_i, tau_l, alpha_i, alpha_l):
    """The work a type's job brings to pool i (A_i = X_i / r_ij, A_l = X_l / r_lj): it
    starts in i with probability alpha_i, in l with alpha_l; weighted by those."""
    if policy == "rerouting":
        started_here = np.minimum(a_i, tau_i)
        started_there = np.where(a_l > tau_l, a_i, 0.0)
    else:  # replication: both pools work until the first replica finishes
        started_here = np.minimum(a_i, tau_i) + np.where(a_i > tau_i, np.minimum(a_i - tau_i, a_l), 0.0)
        started_there = np.where(a_l > tau_l, np.minimum(a_l - tau_l, a_i), 0.0)
    return alpha_i * started_here + alpha_l * started_there


@pytest.mark.parametrize("dep", list(DEPS))
@pytest.mark.parametrize("which", list(SYSTEMS))
def test_threshold_works_against_monte_carlo_of_each_type(which, dep):
    """E[B_i] of rerouting (eq. 2) and replication (eq. 4) at a finite threshold within
    5 standard errors of the mean over 10^6 draws of each type's own law."""
    system, names = SYSTEMS[which]
    X = by_type(system, names)
    C = len(system.belief[0])
    alpha = assignment_fractions(system, [0.35, 0.8, 0.1][:C])
    r = system.speeds
    draws = [replica_draws(X.of_type(j), dep, seed=100 * j + 7) for j in range(len(names))]
    for j, name in enumerate(names):
        assert X.of_type(j) is LAWS[name]
        assert draws[j][0].mean() == pytest.approx(hand_replica_moments(PIECES[name], dep)[0], rel=2e-2)
    for policy, fn in (("rerouting", T.expected_work_rerouting), ("replication", T.expected_work_replication)):
        analytic = fn(system, X, DEPS[dep], alpha, TAU)
        for i in range(2):
            l = 1 - i
            estimate, variance = 0.0, 0.0
            for j in range(len(names)):
                a_i, a_l = draws[j][i] / r[i][j], draws[j][l] / r[l][j]
                w = per_job_work(policy, a_i, a_l, TAU[i], TAU[l], alpha[i][j], alpha[l][j])
                estimate += system.p[j] * w.mean()
                variance += system.p[j] ** 2 * w.var(ddof=1) / N_MC
            se = math.sqrt(variance)
            assert abs(analytic[i] - estimate) <= 5 * se, (policy, i, analytic[i], estimate, se)


# ------------------------------------------------------------------- latency


@pytest.mark.parametrize("discipline", ["FCFS", "PS"])
@pytest.mark.parametrize("dep", list(DEPS))
@pytest.mark.parametrize("which", list(SYSTEMS))
def test_zero_redundancy_latency_is_pollaczek_khinchine_with_each_type_s_moments(which, dep, discipline):
    system, names = SYSTEMS[which]
    X = by_type(system, names)
    lambda_max = analyze(cell("ZRed", system, X, dep, discipline=discipline)).lambda_max
    model = cell("ZRed", system, X, dep, discipline=discipline, loads=tuple(f * lambda_max for f in (0.2, 0.6, 0.95)))
    result = analyze(model)
    assert result.latency_approx_kind == "exact"
    alpha = result.alpha
    # the load unit is the mixture's replica mean: sum_j p_j E[X_j]
    unit = math.fsum(system.p[j] * hand_replica_moments(PIECES[n], dep)[0] for j, n in enumerate(names))
    rates = model.loads * system.servers / unit
    np.testing.assert_allclose(model.rates(), rates, rtol=1e-12)
    hand = [hand_pk_latency(system, names, dep, alpha, lam, discipline) for lam in rates]
    np.testing.assert_allclose(result.latency_approx, hand, rtol=1e-10)


@pytest.mark.parametrize("dep", list(DEPS))
def test_threshold_latency_at_infinite_tau_is_one_mg1_per_pool_with_each_type_s_moments(dep):
    """Section 6 at tau = inf (one server per pool): exact M/G/1 per pool."""
    X = by_type(SMALL, ("A", "B"))
    alpha = assignment_fractions(SMALL, [0.55])
    r = SMALL.speeds
    work = [
        math.fsum(
            SMALL.p[j] * alpha[i][j] * hand_replica_moments(PIECES[n], dep)[0] / r[i][j] for j, n in enumerate("AB")
        )
        for i in range(2)
    ]
    lams = [f / max(work) for f in (0.1, 0.5, 0.9)]  # below both pools' saturation
    hand = [hand_pk_latency(SMALL, ("A", "B"), dep, alpha, lam, "FCFS") for lam in lams]
    for fn in (T.latency_rerouting, T.latency_replication):
        np.testing.assert_allclose(fn(SMALL, X, DEPS[dep], alpha, math.inf, np.array(lams)), hand, rtol=1e-10)


@pytest.mark.parametrize("dep", list(DEPS))
def test_full_redundancy_latency_on_one_server_per_pool_is_one_mg1_of_each_type_s_min(dep):
    """FRed on (1, 1): one M/G/1 queue with service min(X_0 / r_0j, X_1 / r_1j) of the
    job's type; its mean E[M] from the hand sum, E[M^2] checked for identical replicas."""
    X = by_type(SMALL, ("A", "B"))
    model = cell("FRed", SMALL, X, dep, loads=(0.2, 0.5))
    result = analyze(model)
    r = SMALL.speeds
    m1 = math.fsum(SMALL.p[j] * hand_fred_type(PIECES[n], r[0][j], r[1][j], dep) for j, n in enumerate(("A", "B")))
    assert result.cost == pytest.approx(2 * m1, rel=1e-10)
    assert result.lambda_max == pytest.approx(model.to_load(1.0 / m1), rel=1e-10)
    if dep == "identical":  # M = X_j / max_i r_ij
        m2 = math.fsum(SMALL.p[j] * second(PIECES[n]) / max(r[0][j], r[1][j]) ** 2 for j, n in enumerate(("A", "B")))
        lams = model.rates()
        hand = [m1 + lam * m2 / (2 * (1 - lam * m1)) for lam in lams]
        np.testing.assert_allclose(result.latency_approx, hand, rtol=1e-10)


# ---------------------------------------------------- analyses with one law


A_SPEC = {"family": "quantiles", "quantiles": {0: 0.1, 0.5: 0.6, 0.9: 2.0, 1: 5.0}}
B_SPEC = {"family": "discrete", "values": [1, 3], "p": [0.7, 0.3]}


def config_model(policy: str, r_slow: float = 0.5, **extra) -> CellModel:
    """The one cell of a small study with a law per type (resolved and built as a run does)."""
    from straggler.model.policies import POLICIES

    grid = {"policy": [policy], "distribution": ["x"], "dependence": ["iid"], "r_slow": [r_slow], "N": [2]}
    if POLICIES[policy].uses_d:
        grid["d"] = [2]
    cfg = {
        "study": "t",
        "grid": grid,
        "load": [0.2, 0.5],
        "distributions": {"x": {"family": "by_type", "laws": [A_SPEC, B_SPEC]}},
        "system": {"types": {"p": [0.6, 0.4]}},
        "evaluate": ["analytic"],
        **extra,
    }
    resolved = resolve_config(cfg)
    (only,) = build_grid(resolved).cells.values()
    return build_model(resolved, only)


def test_a_built_cell_carries_the_types_probabilities_and_laws():
    model = config_model("ZRed")
    assert isinstance(model.size, ByType)
    assert model.size.p == (0.6, 0.4) == model.system.p
    assert model.size.of_type(0) == A and model.size.of_type(1) == B
    assert analyze(model).lambda_max == pytest.approx(
        analyze(cell("ZRed", SMALL, by_type(SMALL, ("A", "B")), "iid")).lambda_max, rel=1e-13
    )


@pytest.mark.parametrize("policy", ["CoC", "KS", "CoS", "RIQ", "FJ"])
def test_an_analysis_with_one_law_for_every_type_gives_nan_with_a_note(policy):
    result = analyze(config_model(policy))
    assert math.isnan(result.lambda_max)
    assert math.isnan(result.cost)
    assert np.isnan(result.latency_approx).all()
    (note,) = [n for n in result.note_items if "lambda_max" in n.about]
    assert policy in note.text and "by_type" in note.text and "simulated only" in note.text
    assert {"lambda_max", "cost", "latency_approx"} <= set(note.about)


def test_rerouting_on_identical_servers_restarts_from_the_job_s_own_type():
    """Rer with r_slow = 1 is sizes_by_type, so its analysis must be type-aware or NaN:
    with i.i.d. replicas a type-j job restarted after tau needs a new draw of X_j, so
    the work per job is sum_j p_j (E[min(X_j, tau)] + P(X_j > tau) E[X_j])."""
    tau = 1.0
    result = analyze(config_model("Rer", r_slow=1.0, policies={"Rer": {"tau": tau}}))
    hand = math.fsum(
        p * (mean_min(PIECES[n], tau) + sf(PIECES[n], tau) * mean(PIECES[n])) for p, n in zip((0.6, 0.4), ("A", "B"))
    )
    assert math.isnan(result.cost) or result.cost == pytest.approx(hand, rel=1e-9)
