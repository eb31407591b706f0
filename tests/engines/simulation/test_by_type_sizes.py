"""A size law per job type (``by_type``) in the engines.

A by_type law's size streams hold uniforms (SIZES, and SLOWDOWNS under iid); every
engine turns the value it reads into the job's size with its type's quantile function
(:func:`straggler.model.distributions.sampling.size_of_type`) once the type is known, and
multiplies by a slowdown S (sx) only after. The checks: the kernel function is each
type's quantile function; a type-j job's size in a simulation is type j's quantile at
its uniform of the SIZES stream (exactly, on the fast path); and the fast path, the
event engine and the pure-Python reference see the same jobs, policy by policy, under
each dependence (two pools, r_slow < 1, so the types' speeds differ too).
"""

import numpy as np
import pytest

from straggler.engines.simulation import encode as E
from straggler.engines.simulation import encode_model, events, fast, run_replication
from straggler.engines.simulation.engines import supports
from straggler.engines.simulation.reference import make_model, simulate_reference
from straggler.engines.simulation.streams import ARRIVALS, SIZES, SLOWDOWNS, replication_streams
from straggler.model import distributions as D
from straggler.model.dependence import SX
from straggler.model.distributions import ByType, from_spec
from straggler.model.distributions.sampling import size_of_type

QUANTILES = {0: 0.1, 0.5: 0.6, 0.9: 2.0, 1: 5.0}
A = from_spec({"family": "quantiles", "quantiles": QUANTILES})
B = from_spec({"family": "discrete", "values": [1.0, 3.0], "p": [0.7, 0.3]})
P = (0.6, 0.4)
LAW = ByType(laws=(A, B), p=P)


def _a_at(u):
    """Type 0's quantile function, written out: linear between the table's points."""
    return np.interp(u, list(QUANTILES), list(QUANTILES.values()))


def _b_at(u):
    """Type 1's: 1.0 below 0.7, 3.0 above."""
    return np.where(u < 0.7, 1.0, 3.0)


# ---------------------------------------------------------------- the kernel function


def test_size_of_type_is_each_types_quantile_function():
    code, params = LAW.code, LAW.sampler_params()
    M = 100_000
    u = (np.arange(M) + 0.5) / M  # evenly spaced in (0, 1)
    sizes = {j: np.array([size_of_type(code, params, j, x) for x in u]) for j in range(2)}
    # type 1, the discrete law: 1.0 with probability 0.7, 3.0 otherwise
    assert set(np.unique(sizes[1])) == {1.0, 3.0}
    assert np.mean(sizes[1] == 1.0) == pytest.approx(0.7, abs=1.0 / M)
    np.testing.assert_array_equal(sizes[1], _b_at(u))
    # type 0, the quantiles law: its quantile function, so its mean over the grid
    assert sizes[0].min() >= 0.1 and sizes[0].max() <= 5.0
    assert sizes[0].mean() == pytest.approx(A.mean(), abs=1e-4)
    np.testing.assert_allclose(sizes[0], _a_at(u), rtol=1e-12, atol=0.0)
    # and type j's uniform is not the mixture's: the two types differ
    assert abs(sizes[0].mean() - sizes[1].mean()) > 0.5


@pytest.mark.parametrize(
    "law", [D.Exponential(1.0), D.Pareto(0.5, 2.5), A, B, D.Deterministic(2.0)], ids=["exp", "pareto", "q", "d", "det"]
)
def test_size_of_type_is_the_identity_for_any_other_law(law):
    params = law.sampler_params()
    for j in range(3):
        for x in (0.0, 0.37, 1.5, 123.456):
            assert size_of_type(law.code, params, j, x) == x


# ---------------------------------------------------------------- a type's sizes in a run


def _types_and_uniforms(seed, n, enc):
    """The n jobs' types (ARRIVALS: an interarrival time, then the type, per job) and
    the streams of a by_type law's uniforms (SIZES, SLOWDOWNS)."""
    rngs = replication_streams(seed)
    ut = -np.expm1(-rngs[ARRIVALS].standard_exponential(2 * n)[1::2])
    types = np.minimum(np.searchsorted(enc.type_cdf, ut, side="right"), 1)
    return types, rngs[SIZES], rngs[SLOWDOWNS]


@pytest.mark.parametrize("engine", ["fast", "events"])
def test_a_type_j_job_gets_type_js_size(engine):
    """ZRed with every speed 1: a job's cost is its size, which must be its type's
    quantile function at the job's uniform of the SIZES stream (the types from the
    ARRIVALS stream: an interarrival time, then the type, per job)."""
    model = make_model("ZRed", 2, [0.2], size=LAW, dependence="identical", r_slow=1.0, p=P)
    enc = encode_model(model)
    assert int(enc.ints[E.I_J]) == 2
    np.testing.assert_array_equal(enc.inv_speeds, 1.0)
    n = 20_000
    seed = np.random.SeedSequence(99)
    run = fast.run if engine == "fast" else events.run
    _, trace = run_replication(run, enc, float(model.rates()[0]), 0, n, seed, trace=n)
    cost = trace[:, 1]

    types, sizes, _ = _types_and_uniforms(seed, n, enc)
    u = sizes.random(n)
    assert 0.55 < np.mean(types == 0) < 0.65
    expected = np.array([size_of_type.py_func(LAW.code, enc.x_params, int(j), x) for j, x in zip(types, u)])
    np.testing.assert_allclose(expected, np.where(types == 0, _a_at(u), _b_at(u)), rtol=1e-12, atol=0.0)
    if engine == "fast":  # cost = size * 1.0
        np.testing.assert_array_equal(cost, expected)
    else:  # the attained service, summed over events
        np.testing.assert_allclose(cost, expected, rtol=1e-9, atol=1e-9)
    # each type's sizes follow its law
    c0, c1 = cost[types == 0], cost[types == 1]
    assert np.all((c0 >= 0.1 - 1e-9) & (c0 <= 5.0 + 1e-9))
    assert c0.mean() == pytest.approx(A.mean(), abs=4 * c0.std() / np.sqrt(c0.size))
    np.testing.assert_allclose(np.sort(np.unique(np.round(c1, 9))), [1.0, 3.0])
    share = np.mean(np.isclose(c1, 1.0))
    assert share == pytest.approx(0.7, abs=4 * np.sqrt(0.21 / c1.size))


def test_iid_replicas_after_the_first_are_of_the_jobs_type_too():
    """FJ with k = d = 2 and every speed 1 on the fast path: both replicas run to the
    end, so a job's cost is the sum of its two sizes, the first from SIZES, the second
    from SLOWDOWNS (iid), each type j's quantile function at its uniform."""
    model = make_model("FJ", 2, [0.2], size=LAW, dependence="iid", d=2, r_slow=1.0, p=P, params={"k": 2})
    enc = encode_model(model)
    np.testing.assert_array_equal(enc.inv_speeds, 1.0)
    n = 5000
    seed = np.random.SeedSequence(17)
    _, trace = run_replication(fast.run, enc, float(model.rates()[0]), 0, n, seed, trace=n)
    types, sizes, extra = _types_and_uniforms(seed, n, enc)
    u0, u1 = sizes.random(n), extra.random(n)
    x0 = np.where(types == 0, _a_at(u0), _b_at(u0))
    x1 = np.where(types == 0, _a_at(u1), _b_at(u1))
    np.testing.assert_allclose(trace[:, 1], x0 + x1, rtol=1e-12, atol=0.0)
    # a type-1 job's two replicas are 1.0 or 3.0 each
    np.testing.assert_array_equal(np.unique(trace[types == 1, 1]), [2.0, 4.0, 6.0])


# ---------------------------------------------------------------- the engines agree

SX_BIMODAL = SX(D.Discrete(values=(1.0, 4.0), p=(0.7, 0.3)))
DEPENDENCES = {"identical": "identical", "iid": "iid", "sx": SX_BIMODAL}
POLICY_CASES = {
    "zred": dict(policy="ZRed"),
    "fred": dict(policy="FRed"),
    "rer": dict(policy="Rer", params={"tau": 1.0}),
    "rer-resume": dict(policy="Rer", params={"tau": 1.0, "resume": True}),
    "rep": dict(policy="Rep", params={"tau": 1.0}),
    "coc-d2": dict(policy="CoC", d=2),
    # the other d-of-N policies: the fast path's other loops (FCFS), the event engine (PS)
    "cos-d2": dict(policy="CoS", d=2),
    "riq-d3": dict(policy="RIQ", d=3),
    "fj-early-k2-d3": dict(policy="FJ", d=3, params={"k": 2, "early": True}),
}
#: where the fast path and the FCFS reference give the same numbers bit for bit (the
#: others cancel replicas, which the two compute in other orders)
EXACT = ("zred", "fred", "rer", "rer-resume")


def _engines(name, discipline):
    """The engines that simulate a case: the fast path FCFS but Rep, the event engine
    PS and FCFS but CoS, RIQ and FJ."""
    if discipline == "PS":
        return {"events"}
    if name == "rep":
        return {"events"}
    if name in ("cos-d2", "riq-d3", "fj-early-k2-d3"):
        return {"fast"}
    return {"fast", "events"}


def _model(case, dep, discipline="FCFS", **kw):
    return make_model(
        case["policy"],
        4,
        [0.3],
        size=LAW,
        dependence=DEPENDENCES[dep],
        d=case.get("d"),
        r_slow=0.5,
        p=P,
        params=case.get("params"),
        discipline=discipline,
        **kw,
    )


@pytest.mark.parametrize("discipline", ["FCFS", "PS"])
@pytest.mark.parametrize("dep", sorted(DEPENDENCES))
@pytest.mark.parametrize("name", sorted(POLICY_CASES))
def test_engines_and_reference_agree_job_by_job(name, dep, discipline):
    """The fast path (FCFS, where it runs the policy), the event engine and the
    reference (FCFS or PS per server; it has no FCFS Rep) on one seed: the same jobs,
    to the tolerances of the ordinary laws' comparisons (the event engine sums the
    attained service over events; the fast path and the FCFS reference give the one-
    copy policies' and FRed's results bit for bit)."""
    model = _model(POLICY_CASES[name], dep, discipline)
    enc = encode_model(model)
    lam = float(model.rates()[0])
    n = 3000
    seed = np.random.SeedSequence(2024)
    traces = {}
    for engine, run in (("fast", fast.run), ("events", events.run)):
        if supports(engine, model):
            acc, traces[engine] = run_replication(run, enc, lam, 0, n, seed, trace=n)
            assert acc.acc[0] == n
    assert set(traces) == _engines(name, discipline)
    if discipline == "FCFS" and name == "rep":
        # no reference for FCFS Rep: with tau = inf it is ZRed (the same sizes, routing)
        if dep == "sx":  # Rep takes two slowdowns a job, ZRed one: other jobs
            return
        never = _model({**POLICY_CASES[name], "params": {"tau": np.inf}}, dep)
        zred = _model(POLICY_CASES["zred"], dep)
        _, a = run_replication(events.run, encode_model(never), lam, 0, n, seed, trace=n)
        _, b = run_replication(events.run, encode_model(zred), lam, 0, n, seed, trace=n)
        np.testing.assert_array_equal(a, b)
        return
    latency, cost = simulate_reference(enc, lam, n, replication_streams(seed))
    ref = np.column_stack([latency, cost])
    if "fast" in traces:
        np.testing.assert_allclose(traces["fast"], ref, rtol=1e-11, atol=1e-12)
        if name in EXACT:
            np.testing.assert_array_equal(traces["fast"], ref)
    if "events" in traces:
        np.testing.assert_allclose(traces["events"], ref, rtol=1e-9, atol=1e-9)
    if len(traces) == 2:
        np.testing.assert_allclose(traces["events"], traces["fast"], rtol=1e-9, atol=1e-9)
    # the sizes are the types' (a mean cost of uniforms would be about 0.5 to 1)
    assert cost.mean() > 1.2
