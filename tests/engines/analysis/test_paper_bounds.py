"""The analysis audited against the papers (issue 10): every bound the papers give
for the cells they cover, the tightest kept; an estimate labelled for the system it
describes; one kind per system; notes as data, in the dataset's load basis.

Independent checks: Monte Carlo of the fork-join paper's cost expression (fixed
seeds, 4 standard errors), closed forms, and short simulations (tolerance 4 CI
half-widths at 95 % over replications, as in test_simulation_statistical).
"""

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

from straggler.engines.analysis import forkjoin as fj
from straggler.engines.analysis.cell import analyze
from straggler.engines.analysis.notes import Load, LoadUnit, Time, note
from straggler.engines.simulation import simulate
from straggler.engines.simulation.reference import make_model
from straggler.model import dependence
from straggler.model import distributions as D
from straggler.study.cell_build import build_model
from straggler.study.config import load_config, resolve_config
from straggler.study.grid import build_grid

ROOT = Path(__file__).resolve().parents[3]
K = 4.0
SHIFTED = D.ShiftedExponential(1.0, 1.0)  # forkjoin_replicas: log-concave, E[X] = 2
IID = dependence.from_spec("iid")
sample_jobs = dependence.sample_jobs
HYPER = D.Hyperexponential((0.9, 0.1), (1.0, 0.1)).scaled(2.0 / 1.9)  # log-convex, mean 2


def _study(name, **override):
    resolved = resolve_config({**load_config(ROOT / "config" / "studies" / f"{name}.yaml"), **override})
    return resolved, {cid: build_model(resolved, c) for cid, c in build_grid(resolved).cells.items()}


def _sim(model, jobs=60_000, warmup=6_000, reps=8, seed=21, **kw):
    return simulate(model, np.random.SeedSequence(seed), jobs, warmup, reps, 0.95, **kw)


# ---------------------------------------------------------------- item 1: the papers' bounds


def _cost_by_definition(X, offsets, n, rng):
    """Fork-join paper, Appendix B: C = S + sum_i (S - t_i)^+ with S = min_i (t_i + X_i),
    the first task starting at t_1 = 0 and the others at ``offsets`` (not depending on the
    job's sizes); a task that has not started by S (t_i >= S) costs nothing."""
    r = len(offsets) + 1
    t = np.concatenate(([0.0], offsets))
    sizes = sample_jobs(IID, X, n, r, rng)  # i.i.d. task sizes (section 2.1)
    s = np.min(t[None, :] + sizes, axis=1)
    return np.sum(np.maximum(s[:, None] - t[None, :], 0.0), axis=1)


@pytest.mark.parametrize(
    "X,tail",
    [
        (SHIFTED, "log-concave"),
        (HYPER, "log-convex"),
        (D.Uniform(0.0, 2.0), "log-concave"),
        (D.Weibull(0.6, 1.0), "log-convex"),
    ],
)
@pytest.mark.parametrize("offsets", [(0.3,), (0.0, 0.5, 2.0), (0.1, 0.1, 0.1, 4.0)])
def test_partial_fork_cost_bounds_hold_for_staggered_starts(X, tail, offsets):
    """Section 6.1 / Appendix B: for any start times independent of the sizes, log-concave
    tails give E[X] <= E[C] <= r E[X_{1:r}], log-convex the reverse. Monte Carlo of the
    cost expression itself (fixed seed, 10^5 jobs, 4 s.e.)."""
    assert X.tail_class() == tail
    rng = np.random.default_rng(7)
    c = _cost_by_definition(X, np.asarray(offsets), 100_000, rng)
    mean, se = c.mean(), c.std(ddof=1) / math.sqrt(len(c))
    r = len(offsets) + 1
    lo, hi, tc = fj.uniform_partial_fork_cost_bounds(X, r)
    assert tc == tail
    assert lo - K * se <= mean <= hi + K * se, (mean, se, lo, hi)
    # both ends are attained: simultaneous starts cost r E[X_{1:r}], far-apart starts E[X]
    far = _cost_by_definition(X, np.full(r - 1, 1e9), 100_000, rng)
    assert abs(far.mean() - X.mean()) < K * far.std(ddof=1) / math.sqrt(len(far))


def test_partial_fork_bounds_have_power():
    """The Monte Carlo rejects the bounds of the wrong tail class: simultaneous starts of a
    log-concave law cost more than E[X] by far more than the error."""
    rng = np.random.default_rng(3)
    c = _cost_by_definition(SHIFTED, np.zeros(4), 100_000, rng)
    se = c.std(ddof=1) / math.sqrt(len(c))
    assert c.mean() - SHIFTED.mean() > 100 * se  # 5 E[X_{1:5}] = 6 against E[X] = 2


def test_coc_partial_fork_takes_the_papers_bounds():
    """forkjoin_replicas (N = 10, i.i.d. replicas, FCFS): the issue's numbers. Shifted
    exponential, d = 2: cost in [E[X], 2 E[X_{1:2}]] = [2, 3] (was 1.5 / 4), and lambda E[C]
    < N with E[C] >= E[X] gives load < 1 (d = 5 was 1.67); hyperexponential, d = 2: cost in
    [2 E[X_{1:2}], E[X]] = [1.30, 2] (was 0.65 / 4)."""
    _, models = _study("forkjoin_replicas")
    got = {(m.size.family, m.d): analyze(m) for m in models.values()}
    a = got["shifted_exponential", 2]
    assert (a.cost_lower, a.cost_upper) == pytest.approx((2.0, 3.0))
    assert a.cost == a.cost_lower and a.cost_kind == "lower_bound"
    assert a.lambda_max == pytest.approx(1.0) and a.lambda_max_kind == "necessary"
    assert got["shifted_exponential", 5].lambda_max == pytest.approx(1.0)
    assert got["shifted_exponential", 5].cost_upper == pytest.approx(6.0)  # 5 Delta + 1 / mu
    h = got["hyperexponential", 2]
    h_law = next(m.size for m in models.values() if m.size.family == "hyperexponential")
    two_min = 2 * fj.order_statistic_mean(h_law, 1, 2)
    assert (h.cost_lower, h.cost_upper) == pytest.approx((two_min, h_law.mean()))
    assert two_min == pytest.approx(1.3024, abs=1e-4)
    assert h.lambda_max == pytest.approx(h_law.mean() / two_min)
    for (_, d), res in got.items():
        if 1 < d < 10:
            text = " ".join(res.notes)
            assert "fork-join paper, section 6.1" in text and "no paper" not in text
            assert res.explains("latency_approx")


def test_forkjoin_replicas_shows_the_monotone_dichotomy():
    """Section 6.2: log-concave, the cost grows and the capacity falls with r; log-convex,
    the reverse (the figures cost.png and stability_vs_d.png; no V shape)."""
    _, models = _study("forkjoin_replicas")
    for family, sign in (("shifted_exponential", 1), ("hyperexponential", -1)):
        cells = sorted((m.d, analyze(m)) for m in models.values() if m.size.family == family)
        cost = np.array([a.cost for _, a in cells])
        lam = np.array([a.lambda_max for _, a in cells])
        assert np.all(sign * np.diff(cost) >= -1e-12), cost
        assert np.all(-sign * np.diff(lam) >= -1e-12), lam


@pytest.mark.parametrize(
    "X,dep,why",
    [
        (SHIFTED, "identical", "i.i.d. tasks"),
        (D.Pareto(1.0, 2.2), "iid", "neither"),
    ],
)
def test_coc_partial_fork_outside_the_papers_conditions_keeps_full_service(X, dep, why):
    m = make_model("CoC", 10, [0.2], d=3, size=X, dependence=dep, two_pools=False)
    a = analyze(m)
    full = [n for n in a.notes if "full-service" in n]
    assert full and why in " ".join(a.notes)
    assert a.cost_kind == "lower_bound" and a.lambda_max_kind == "necessary"


@pytest.mark.parametrize("policy,X,d", [("CoC", SHIFTED, 3), ("CoC", HYPER, 3), ("RIQ", SHIFTED, 3), ("RIQ", HYPER, 4)])
def test_simulated_cost_lies_within_the_tightest_bounds(policy, X, d):
    """The simulated server time per job of CoC and RIQ (random d of N = 8 FCFS servers,
    i.i.d. replicas) at a light and a heavier load lies within [cost_lower, cost_upper]."""
    m = make_model(policy, 8, [0.1, 0.45], d=d, size=X, two_pools=False)
    a = analyze(m)
    assert a.cost_lower < a.cost_upper
    res = _sim(m)
    assert np.all(res.verdict != "unstable")
    assert np.all(res.cost_mean >= a.cost_lower - K * res.cost_mean_ci), (res.cost_mean, a.cost_lower)
    assert np.all(res.cost_mean <= a.cost_upper + K * res.cost_mean_ci), (res.cost_mean, a.cost_upper)


def test_k_equals_n_latency_uses_lemma_8():
    """forkjoin_k_tradeoff, Delta = 1, k = 10, load 0.08: +inf with no note before, the
    simulation being stable at 4.75; now Lemma 8's finite bound with the note."""
    _, models = _study("forkjoin_k_tradeoff")
    m = next(m for cid, m in models.items() if cid.endswith("FJ.k=10") and "delta_small" in cid)
    a = analyze(m)
    assert a.latency_approx_kind == "upper_bound"
    light = m.loads < 0.1  # the study's heavy-traffic loads are beyond k = 10's capacity
    assert np.all(np.isfinite(a.latency_approx[light])) and not np.isfinite(a.latency_approx[~light]).any()
    assert a.latency_approx[1] == pytest.approx(fj.fork_join_nn_upper_bound(float(m.rates()[1]), m.size, 10))
    assert 4.75 < a.latency_approx[1] < 5.5 and np.all(a.latency_lower[light] < a.latency_approx[light])
    assert any("Lemma 8" in n and "only Lemma 8's is finite at loads [0.08]" in n for n in a.notes)


# ---------------------------------------------------------------- item 2: the system described


@pytest.mark.parametrize("d,kind", [(2, "exact"), (4, "approximation")])
def test_group_based_estimate_is_not_the_simulated_systems_latency(d, kind):
    """forkjoin_strategy, keep: d: the section 8.2 estimate is group-based random (n, r, 1)'s
    latency (exact when r divides n), so it goes to latency_group; latency_approx is NaN
    with a note (the simulation picks a random r of the n servers)."""
    X = D.Pareto(1.0, 2.2)
    m = make_model("FJ", 10, [0.1, 0.5], d=d, size=X, two_pools=False, params={"k": 1})
    a = analyze(m)
    assert np.all(np.isnan(a.latency_approx)) and a.latency_approx_kind == ""
    assert a.latency_group_kind == kind
    for lam, t in zip(m.rates(), a.latency_group):
        assert t == fj.strategy_estimates(lam, X, 10, d, 1)[0]
    assert a.explains("latency_approx") and a.explains("latency_group")
    if d == 2:
        assert a.latency_group[0] == pytest.approx(fj.partial_fork_group(m.rates()[0], X, 10, 2).latency)


def test_strategy_estimate_is_latency_approx_only_where_it_is_the_simulated_system():
    X = D.ShiftedExponential(0.5, 1.0)
    m = make_model("FJ", 4, [0.05, 0.5], d=4, size=X, two_pools=False, params={"k": 1, "keep": "opt"})
    a = analyze(m)
    full = a.keep_opt == 4  # r = r_f = n: the (n, 1) fork-join, exact
    assert full.any() and not full.all()
    np.testing.assert_array_equal(np.isfinite(a.latency_approx), full)
    np.testing.assert_allclose(a.latency_approx[full], [fj.fork_join_n1(lam, X, 4).latency for lam in m.rates()[full]])
    assert a.latency_approx_kind == "exact"


# ---------------------------------------------------------------- item 3: one kind per system

SAME = (
    "lambda_max",
    "lambda_max_kind",
    "lambda_sufficient",
    "cost",
    "cost_kind",
    "cost_lower",
    "cost_upper",
    "latency_approx",
    "latency_approx_kind",
    "rho",
)


def _same(a, b, fields=SAME):
    for f in fields:
        x, y = getattr(a, f), getattr(b, f)
        if isinstance(x, str):
            assert x == y, (f, x, y)
        else:
            np.testing.assert_allclose(x, y, rtol=1e-12, err_msg=f)


@pytest.mark.parametrize("X", [D.Pareto(1.0, 2.2), SHIFTED])
def test_fork_join_d1_is_one_system_whatever_keep(X):
    base = dict(d=1, size=X, two_pools=False)
    a = analyze(make_model("FJ", 10, [0.1, 0.5], params={"k": 1, "keep": "d"}, **base))
    b = analyze(make_model("FJ", 10, [0.1, 0.5], params={"k": 1, "keep": "opt", "cost_limit": 5}, **base))
    _same(a, b)
    assert a.latency_approx_kind == a.cost_kind == a.lambda_max_kind == "exact"
    assert np.all(b.keep_opt == 1)


@pytest.mark.parametrize(
    "pools,queueing", [((1, 1), "per_server"), ((1, 1), "central"), ((5, 5), "central"), ((5, 5), "per_server")]
)
@pytest.mark.parametrize("dep", ["identical", "iid"])
def test_rep_at_tau_zero_is_full_redundancy(pools, queueing, dep):
    common = dict(size=D.Exponential(1.0), dependence=dep, r_slow=0.1, pools=pools, queueing=queueing)
    N = sum(pools)
    fred = analyze(make_model("FRed", N, [0.1, 0.3], **common))
    rep = analyze(make_model("Rep", N, [0.1, 0.3], params={"tau": 0.0}, **common))
    _same(fred, rep)
    assert rep.tau_opt == rep.tau_opt_pool2 == 0.0
    if pools == (1, 1):  # a single M/G/1 queue with service min(X_1/r_1j, X_2/r_2j)
        assert fred.lambda_max_kind == fred.cost_kind == fred.latency_approx_kind == "exact"
    else:
        assert np.all(np.isnan(fred.latency_approx)) and fred.explains("latency_approx")


def test_rep_with_tau_zero_is_accepted_and_simulated_as_fred():
    raw = {
        "study": "t",
        "seed": 3,
        "grid": {
            "policy": ["Rep", "FRed"],
            "distribution": ["exp"],
            "dependence": ["identical"],
            "r_slow": [0.1],
            "N": [2],
        },
        "load": [0.2],
        "policies": {"Rep": {"tau": 0}},
        "distributions": {"exp": {"family": "exponential", "mean": 1}},
        "system": {"pools": [1, 1]},
    }
    resolved = resolve_config(raw)
    assert resolved.policies["Rep"]["tau"] == 0
    cells = {c.policy: build_model(resolved, c) for c in build_grid(resolved).cells.values()}
    a = analyze(cells["Rep"])
    res = _sim(cells["Rep"], alpha=a.alpha, tau=(0.0, 0.0))
    assert abs(res.latency_mean[0] - a.latency_approx[0]) <= K * res.latency_mean_ci[0]


# ---------------------------------------------------------------- item 5: notes as data


def test_note_renders_loads_in_the_basis_and_times_with_their_unit():
    n = note(
        "stable below {s} (sufficient), unstable above {u}; cost in {c}; at {loads}",
        about="lambda_max",
        s=Load(0.5),
        u=Load(1.0),
        c=Time((1.0, 2.0)),
        loads=Load([0.45, 0.475]),
    )
    assert n.render() == (
        "stable below load 0.5 (sufficient), unstable above load 1; cost in [1, 2] time units; at loads [0.45, 0.475]"
    )
    assert n.render(LoadUnit("redundancy", 2.0)) == (
        "stable below rho~ 1 (sufficient), unstable above rho~ 2; cost in [1, 2] time units; at rho~ [0.9, 0.95]"
    )
    assert note("E[X_{1:r}] as written").render() == "E[X_{1:r}] as written"


def test_ps_fig5_notes_speak_rho_tilde():
    """ps_fig5 (load_basis redundancy, identical replicas, d = 2): the full-service bounds
    are rho~ 1 (sufficient) and rho~ 2 (necessary), the dataset's units (lambda_sufficient
    = 1), not the nominal 0.5 and 1."""
    resolved, models = _study("ps_fig5")
    m = next(iter(models.values()))
    a = analyze(m)
    assert a.lambda_sufficient == pytest.approx(1.0)
    text = " ".join(a.notes)
    assert "stable below rho~ 1 (sufficient)" in text and "unstable above rho~ 2" in text
    assert "load 0.5" not in text
    # and the same cell in nominal units says 0.5 and 1
    nominal = analyze(dataclasses.replace(m, loads=m.nominal_loads, load_basis="nominal"))
    assert "stable below load 0.5 (sufficient)" in " ".join(nominal.notes)


def test_notes_with_loads_in_the_redundancy_basis_are_converted_once():
    """A note with a list of loads (an overloaded station) in rho~ units."""
    m = make_model(
        "CoC", 4, [0.9, 1.2], d=2, size=D.Exponential(1.0), dependence="identical", two_pools=False, discipline="PS"
    )
    m = dataclasses.replace(m, load_basis="redundancy")
    a = analyze(m)
    inf_note = next(n for n in a.notes if "+inf" in n)
    assert "rho~ [1.2]" in inf_note, inf_note


def test_dataset_keeps_the_public_form_of_notes():
    from straggler.study.evaluate import evaluate_cell

    resolved, models = _study("ps_fig5", evaluate=["analytic"])
    cid = next(iter(models))
    ds = evaluate_cell(resolved, cid)
    notes = json.loads(ds.attrs["notes"])
    assert notes and all(isinstance(n, str) for n in notes)
    assert any("rho~ 1 (sufficient)" in n for n in notes)
