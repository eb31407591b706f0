"""A cancelled copy that keeps its server (CellModel.cancel_delay) in the analysis: at 0 nothing
changes; above 0 the values that carry it move the way they must, the others are NaN with a
note (straggler.engines.analysis.cancel_delay.restrict), and the carried work per pool agrees with a
direct computation."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from straggler.engines.analysis import cancel_delay, speculation, threshold
from straggler.engines.analysis.cell import HANDLERS, analyze
from straggler.engines.analysis.result import AnalyticResult
from straggler.model.dependence import IID, SX, Identical, IdenticalPair, IIDPair, pair
from straggler.model.distributions import Deterministic, Discrete, Exponential, Weibull
from straggler.model.policies import POLICIES
from straggler.study.cell_build import build_model
from straggler.study.config import resolve_config
from straggler.study.grid import build_grid

LOADS = [0.2, 0.5]
VALUES = cancel_delay.VALUES + ("rho",)
C = 0.3


def cell(policy: str, *, N: int = 4, d: int | None = 2, r_slow: float = 1.0, family=None, **extra):
    """The one cell of a small study (i.i.d. sizes, exponential of mean 1 unless ``family``)."""
    grid = {"policy": [policy], "distribution": ["x"], "dependence": ["iid"], "r_slow": [r_slow], "N": [N]}
    if POLICIES[policy].uses_d:
        grid["d"] = [d]
    cfg = {
        "study": "t",
        "grid": grid,
        "load": LOADS,
        "distributions": {"x": family or {"family": "exponential", "mean": 1}},
        "evaluate": ["analytic"],
    }
    cfg.update(extra)
    resolved = resolve_config(cfg)
    (only,) = build_grid(resolved).cells.values()
    return build_model(resolved, only)


FCFS, PS = {"discipline": "FCFS"}, {"discipline": "PS"}
HYPER = {"family": "hyperexponential", "p": [0.9, 0.1], "rates": [2.0, 0.1]}
CELLS = {
    "FRed": dict(policy="FRed", r_slow=0.5),
    "FRed one server per pool": dict(policy="FRed", N=2, r_slow=0.5),
    "Rer pools": dict(policy="Rer", r_slow=0.5),
    "Rer pools tau 1": dict(policy="Rer", r_slow=0.5, policies={"Rer": {"tau": 1.0}}),
    "Rer identical servers": dict(policy="Rer", family=HYPER),
    "Rer one server per pool": dict(policy="Rer", N=2, r_slow=0.5),
    "Rep": dict(policy="Rep", r_slow=0.5),
    "Rep one server per pool": dict(policy="Rep", N=2, r_slow=0.5),
    "CoC": dict(policy="CoC"),
    "CoC d = N": dict(policy="CoC", d=4),
    "CoC PS": dict(policy="CoC", system=PS),
    "CoC affinity": dict(policy="CoC", r_slow=0.5),
    "CoS": dict(policy="CoS"),
    "CoS d = N": dict(policy="CoS", d=4),
    "CoS PS": dict(policy="CoS", d=3, system=PS),
    "RIQ": dict(policy="RIQ"),
    "FJ": dict(policy="FJ", d=4),
    "FJ k = 2": dict(policy="FJ", d=4, policies={"FJ": {"k": 2}}),
    "FJ keep opt": dict(policy="FJ", d=4, policies={"FJ": {"keep": "opt"}}),
    "FJ early": dict(policy="FJ", d=4, policies={"FJ": {"k": 2, "early": True}}),
    "FJ d = 1": dict(policy="FJ", d=1),
}
NOT_CANCELLING = {"ZRed": dict(policy="ZRed", r_slow=0.5), "KT": dict(policy="KT", r_slow=0.5)}


def model(name: str, c: float = 0.0):
    kw = dict(CELLS.get(name) or NOT_CANCELLING[name])
    return dataclasses.replace(cell(kw.pop("policy"), **kw), cancel_delay=c)


def value(result: AnalyticResult, name: str) -> np.ndarray:
    return np.atleast_1d(np.asarray(getattr(result, name), dtype=float))


def assert_identical(a: AnalyticResult, b: AnalyticResult) -> None:
    for name in VALUES + ("tau_opt", "tau_opt_pool2", "q_opt", "keep_opt", "latency_group"):
        np.testing.assert_array_equal(value(a, name), value(b, name), err_msg=name)
    assert (a.lambda_max_kind, a.cost_kind, a.latency_approx_kind) == (
        b.lambda_max_kind,
        b.cost_kind,
        b.latency_approx_kind,
    )
    assert a.notes == b.notes


# ------------------------------------------------------------------ zero: nothing changes


@pytest.mark.parametrize("name", list(CELLS))
def test_a_zero_delay_changes_nothing(name):
    m = model(name)
    assert m.cancel_delay == 0.0
    plain = analyze(m)
    assert_identical(analyze(dataclasses.replace(m, cancel_delay=0.0)), plain)
    assert not plain.holds_with_cancel_delay  # no handler vouches at 0: nothing to vouch for
    assert not any("cancel_delay" in note for note in plain.notes)


@pytest.mark.parametrize("name", list(NOT_CANCELLING))
def test_a_policy_that_never_cancels_ignores_the_delay(name):
    assert_identical(analyze(model(name, c=C)), analyze(model(name)))


def test_restrict_is_a_no_op_without_a_delay():
    result = AnalyticResult(np.asarray(LOADS), lambda_max=0.7, lambda_max_kind="necessary", cost=2.0)
    before = dataclasses.replace(result, note_items=list(result.note_items))
    cancel_delay.restrict(model("CoC"), result)
    assert_identical(result, before)


# ------------------------------------------------------------------ above zero: carried or dropped


# the values that carry the delay and must strictly move: (cost up, lambda_max down)
STRICT = {"Rer pools", "Rer pools tau 1", "Rer identical servers", "FRed", "Rep", "CoS PS"}


@pytest.mark.parametrize("name", list(CELLS))
def test_carried_values_move_the_way_they_must(name):
    plain, delayed = analyze(model(name)), analyze(model(name, c=C))
    for lower_is_worse in ("cost", "cost_lower", "cost_upper"):
        a, b = value(plain, lower_is_worse), value(delayed, lower_is_worse)
        ok = np.isfinite(a) & np.isfinite(b)
        assert (b[ok] >= a[ok] * (1 - 1e-12)).all(), lower_is_worse
    for higher_is_better in ("lambda_max", "lambda_sufficient"):
        a, b = value(plain, higher_is_better), value(delayed, higher_is_better)
        ok = np.isfinite(a) & np.isfinite(b)
        assert (b[ok] <= a[ok] * (1 + 1e-12)).all(), higher_is_better
    if name in STRICT:
        assert delayed.cost > plain.cost and delayed.lambda_max < plain.lambda_max


@pytest.mark.parametrize("name", list(CELLS))
def test_every_nan_is_explained(name):
    result = analyze(model(name, c=C))
    for what in ("lambda_max", "cost", "latency_approx"):
        if np.isnan(value(result, what)).any():
            assert result.explains(what), what
    assert result.lambda_max_kind in {"exact", "necessary", "sufficient", "conjectured", "approximate"}


@pytest.mark.parametrize(
    "name, dropped",
    [
        ("FRed one server per pool", "latency_approx"),
        ("CoC d = N", "latency_approx"),
        ("CoS d = N", "latency_approx"),
        ("FJ", "latency_approx"),
        ("FJ k = 2", "latency_approx"),
    ],
)
def test_instant_cancellation_results_are_dropped_with_a_note(name, dropped):
    plain, delayed = analyze(model(name)), analyze(model(name, c=C))
    assert not np.isnan(value(plain, dropped)).any()
    assert np.isnan(value(delayed, dropped)).all() and delayed.explains(dropped)


@pytest.mark.parametrize(
    "name", ["FRed", "FRed one server per pool", "Rep", "Rep one server per pool"], ids=lambda n: n
)
def test_the_race_of_two_copies_becomes_an_approximation(name):
    """Rep's and FRed's loads count two copies in simultaneous service, which a held
    server breaks: with a delay they are approximations, never a necessary bound."""
    delayed = analyze(model(name, c=C))
    assert delayed.lambda_max_kind == "approximate" and delayed.cost_kind == "approximation"
    assert math.isnan(delayed.lambda_sufficient)


def test_kinds_that_lose_their_proof():
    """An exact bound that needs instant cancellation becomes necessary (Rer on identical
    FCFS servers: Theorem 1; CoC with i.i.d. exponential replicas), with a sufficient one
    carrying the delay where there is one."""
    rer = analyze(model("Rer identical servers", c=C))
    assert analyze(model("Rer identical servers")).lambda_max_kind == "exact"
    assert rer.lambda_max_kind == "necessary" and math.isnan(rer.lambda_sufficient)
    coc = analyze(model("CoC", c=C))
    assert coc.lambda_max_kind == "necessary" and coc.lambda_max == 1.0  # memoryless: E[C] >= E[X]
    assert coc.lambda_sufficient == pytest.approx(1.0 / (2 * (1.0 + C)), rel=1e-12)
    assert coc.cost_upper == pytest.approx(1.0 + C, rel=1e-12)  # section 6.1: E[X] + (d - 1) c


def test_unvouched_values_are_dropped(monkeypatch):
    """The dispatcher's safety net: a handler that says nothing about the delay loses every
    value above 0 (each named in a note), and keeps those it vouches for."""

    def handler(vouched):
        def make(m):
            r = AnalyticResult(m.loads, lambda_max=0.8, lambda_max_kind="necessary", cost=2.0, cost_kind="exact")
            r.latency_approx = np.array([1.0, 2.0])
            r.latency_approx_kind = "approximation"
            return cancel_delay.vouch(r, vouched) if m.cancel_delay > 0 else r

        return make

    monkeypatch.setitem(HANDLERS, "cancel_on_complete", handler(()))
    silent = analyze(model("CoC", c=C))
    assert math.isnan(silent.lambda_max) and silent.lambda_max_kind == "" and np.isnan(silent.rho).all()
    assert math.isnan(silent.cost) and np.isnan(silent.latency_approx).all()
    for name in ("lambda_max", "cost", "latency_approx"):
        assert silent.explains(name)
    assert analyze(model("CoC")).lambda_max == 0.8  # untouched without a delay
    monkeypatch.setitem(HANDLERS, "cancel_on_complete", handler(("cost",)))
    partly = analyze(model("CoC", c=C))
    assert partly.cost == 2.0 and partly.cost_kind == "exact" and math.isnan(partly.lambda_max)


def test_what_the_delay_does_not_touch_stays():
    """No copy is ever cancelled with work left: one copy, or identical copies on all N
    servers (they start and end together)."""
    for m in (model("FJ d = 1"), dataclasses.replace(model("CoC d = N"), dependence=Identical())):
        plain, delayed = analyze(m), analyze(dataclasses.replace(m, cancel_delay=C))
        for name in VALUES:
            np.testing.assert_array_equal(value(plain, name), value(delayed, name), err_msg=name)


# ------------------------------------------------------------------ the carried loads, directly


def test_rer_carries_the_killed_run_in_its_pool():
    """Prop. 1 with c: pool i gains c sum_j p_j alpha_ij P(A_ij > tau_i)."""
    m = model("Rer pools")
    system, X, dep = m.system, m.size, m.dependence
    alpha = np.array([[0.7, 0.2], [0.3, 0.8]])
    tau = (0.8, 1.7)
    extra = threshold.expected_work_rerouting(system, X, dep, alpha, tau, C) - threshold.expected_work_rerouting(
        system, X, dep, alpha, tau
    )
    r = np.asarray(system.speeds)
    direct = [C * sum(system.p[j] * alpha[i][j] * math.exp(-tau[i] * r[i][j]) for j in range(2)) for i in range(2)]
    np.testing.assert_allclose(extra, direct, rtol=1e-12)


def test_the_handlers_load_is_the_carried_work():
    """The Rer handler's lambda_max at c is 1 / max_i (E[B_i] / n_i) with the delay, at
    its own assignment and thresholds (load units: E[X] = 1, N = 4)."""
    m = model("Rer pools tau 1", c=C)
    result = analyze(m)
    work = threshold.expected_work_rerouting(m.system, m.size, m.dependence, result.alpha, (1.0, 1.0), C)
    rate = 1.0 / max(work[0] / m.system.n[0], work[1] / m.system.n[1])
    assert result.lambda_max == pytest.approx(rate / m.N, rel=1e-12)
    assert result.cost == pytest.approx(float(work.sum()), rel=1e-12)


def test_speculation_carries_the_killed_run():
    X = Weibull(shape=0.6, scale=1.0)
    for dep in (IID(), Identical()):
        for tau in (0.3, 2.0):
            extra = speculation.expected_work(tau, X, dep, cancel_delay=C) - speculation.expected_work(tau, X, dep)
            assert extra == pytest.approx(C * float(X.sf(tau)), rel=1e-12)
    assert speculation.expected_work(math.inf, X, IID(), cancel_delay=C) == X.mean()


def test_cos_on_ps_adds_the_cancelled_copies():
    result = analyze(model("CoS PS", c=C))  # d = 3: two copies cancelled at once, each holding c
    assert result.lambda_max_kind == "exact"
    assert result.lambda_max == pytest.approx(1.0 / (1.0 + 2 * C), rel=1e-12)
    assert result.cost == pytest.approx(1.0 + 2 * C, rel=1e-12)


def test_full_redundancy_charges_the_slower_copy():
    """Eq. 6 with c: identical replicas on speeds (1, 1/2) (type 0) and (1/2, 1) (type 1): the
    copy on the slow side always loses, so each pool gains c p_j of the type slow there; i.i.d.
    exponential: the copy in pool i loses with probability r_l / (r_i + r_l)."""
    m = model("FRed")
    system = m.system
    r = np.asarray(system.speeds)
    p = np.asarray(system.p)
    for dep, loses in (
        (Identical(), lambda i, j: float(r[i][j] < r[1 - i][j])),
        (IID(), lambda i, j: r[1 - i][j] / (r[i][j] + r[1 - i][j])),
    ):
        extra = threshold.expected_work_full_redundancy(system, m.size, dep, C) - (
            threshold.expected_work_full_redundancy(system, m.size, dep)
        )
        direct = [C * sum(p[j] * loses(i, j) for j in range(2)) for i in range(2)]
        np.testing.assert_allclose(extra, direct, rtol=1e-12)


def race_monte_carlo(draw_pair, a: float, b: float, y: float, n: int = 400_000, seed: int = 11):
    rng = np.random.default_rng(seed)
    x1, x2 = draw_pair(rng, n)
    A, B = a * x1, b * x2
    first = A - y > B * (1 + 1e-9)
    second = (B > (A - y) * (1 + 1e-9)) & (A > y)
    return first.mean(), second.mean()


@pytest.mark.parametrize(
    "dep, X, draw",
    [
        (IID(), Weibull(shape=0.7, scale=1.0), lambda r, n: (r.weibull(0.7, n), r.weibull(0.7, n))),
        (Identical(), Weibull(shape=0.7, scale=1.0), lambda r, n: (lambda x: (x, x))(r.weibull(0.7, n))),
        (
            SX(slowdown=Discrete(values=(1.0, 3.0), p=(0.7, 0.3))),
            Exponential(mean_value=1.0),
            lambda r, n: (
                lambda x: (x * r.choice([1.0, 3.0], n, p=[0.7, 0.3]), x * r.choice([1.0, 3.0], n, p=[0.7, 0.3]))
            )(r.exponential(1.0, n)),
        ),
        (IID(), Deterministic(1.0), lambda r, n: (np.ones(n), np.ones(n))),
    ],
    ids=["iid", "identical", "sx", "deterministic ties"],
)
@pytest.mark.parametrize("a, b, y", [(1.0, 2.0, 0.0), (2.0, 1.0, 0.5), (1.0, 1.0, 0.4), (2.0, 1.0, 0.0)])
def test_strict_losses_against_monte_carlo(dep, X, draw, a, b, y):
    """Rep's c-terms: P(A - y > B) and P(B > A - y > 0), ties (within a billionth) excluded."""
    first, second = cancel_delay.strict_losses(pair(dep, X, a, b), y)
    mc_first, mc_second = race_monte_carlo(draw, a, b, y)
    se = math.sqrt(0.25 / 400_000)
    assert abs(first - mc_first) <= 5 * se + 1e-12
    assert abs(second - mc_second) <= 5 * se + 1e-12


def test_strict_losses_closed_forms():
    X = Exponential(mean_value=2.0)
    first, second = cancel_delay.strict_losses(IIDPair(X, 1.0, 3.0), 0.5)
    alive = math.exp(-0.5 / 2.0)
    assert (first, second) == pytest.approx((alive / 4.0, 3.0 * alive / 4.0), rel=1e-12)
    assert cancel_delay.strict_losses(IdenticalPair(X, 1.0, 1.0), 0.0) == (0.0, 0.0)  # a tie
    assert cancel_delay.strict_losses(IdenticalPair(X, 1.0, 1.0), 0.5)[1] == pytest.approx(float(X.sf(0.5)))
    assert cancel_delay.strict_losses(IIDPair(X, 1.0, 1.0), math.inf) == (0.0, 0.0)


def test_orphans_by_policy_and_discipline():
    fcfs, ps = model("CoS"), model("CoS PS")
    assert cancel_delay.orphans(fcfs, 4, 1, "completion") == (0, 3)
    assert cancel_delay.orphans(fcfs, 4, 1, "start") == (0, 3)  # only those starting with the kept one
    assert cancel_delay.orphans(ps, 4, 2, "start") == (2, 2)  # PS: every copy starts when it joins
