"""Every criterion of every policy as an interval from its best evidence.

One idea: for each policy, setting and load, and each criterion (``stability``: the
largest stable load; ``latency``: the mean response time E[T]; ``cost``: the server
time per job E[C]) the dataset proves that the value lies in ``[low, high]``. The
winners (:mod:`straggler.decide.winners`) are decided from these intervals only, so that a
one-sided bound never reads as a value and noise never reads as a difference.

The rules (each end is the tightest proven one; ends of several sources are
intersected):

stability, per setting (no load)
    ``lambda_max`` by ``lambda_max_kind``: ``exact`` gives ``[v, v]``; ``necessary``
    gives the upper end ``v``; ``sufficient`` the lower end ``v``; ``approximate``
    and ``conjectured`` prove nothing and are kept as ``estimate`` only.
    ``lambda_sufficient`` is a proven lower end. For a policy whose stability is
    monotone in the load (:func:`straggler.model.policies.stability_monotone`), the
    simulation's verdicts add ends: the largest load with verdict ``stable`` is a
    lower end (an open one: stable at ``l`` means ``lambda* > l``), the smallest load
    with verdict ``unstable`` an upper end.
E[C], per setting and load
    the analytic ``cost`` by ``cost_kind`` (``exact``: a point; ``lower_bound``,
    ``upper_bound``: half-lines; an approximation is no end), ``cost_lower`` and
    ``cost_upper`` (analytic bounds), and the simulation's ``cost_mean`` +-
    ``cost_mean_ci`` where the load is stable and that CI can be trusted
    (``cost_ci_reliable``, as for E[T]).
E[T], per setting and load
    the analytic ``latency_approx`` by ``latency_approx_kind`` (``exact``: a point;
    ``lower_bound``, ``upper_bound``: half-lines; an approximation is no end),
    ``latency_lower`` (a lower bound), and the simulation's ``latency_mean`` +-
    ``latency_mean_ci`` where the load is stable and that CI can be trusted
    (``ci_reliable``; where it cannot, an exact value stands alone and otherwise the
    bounds do, evidence ``unreliable CI``). An
    ``unstable`` load (or an infinite mean) is ``[inf, inf]``: it cannot win. An
    ``undetermined`` load is ``[best lower bound or 0, inf)``.

Every lower end is clipped at 0 (times, costs and loads are not negative). Where the
analytic ends and the simulation's disagree (an empty intersection) the evidence
says ``conflict`` and the simulation's interval is used (a CI that can be trusted
misses now and then: :mod:`straggler.decide.disagreements` sorts every such point out).
``evidence`` names the sources of the two ends that bind (``exact``, ``bound``,
``simulation``, ``verdicts``), joined by ``+``; ``undetermined``, ``unstable``,
``infinite mean``, ``unreliable CI``, ``estimate only`` (an approximation and nothing
proven) and ``no evidence`` stand alone.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ..model import policies as _policies

CRITERIA = ("stability", "latency", "cost")
"""The criteria, in the order the report lists them."""

MINIMISE = {"stability": False, "latency": True, "cost": True}
"""Whether smaller is better (E[T], E[C]) or larger (the stability bound)."""

UNITS = {"stability": "lambda_max", "latency": "E[T]", "cost": "E[C]"}
"""How the report names each criterion's value."""

EXACT, BOUND, SIMULATION, VERDICTS = "exact", "bound", "simulation", "verdicts"
UNRELIABLE = "unreliable CI"
"""Evidence of an E[T] or E[C] whose simulated CI cannot be trusted (``ci_reliable``,
``cost_ci_reliable`` = 0) and that has no exact value: the interval is the analysis's
bounds alone."""
LOCATED = "located"
"""Evidence of a stability end found between the grid's loads (:mod:`straggler.decide.frontier`)."""
UNDETERMINED, UNSTABLE, INFINITE, ESTIMATE_ONLY, NOTHING = (
    "undetermined",
    "unstable",
    "infinite mean",
    "estimate only",
    "no evidence",
)
CONFLICT = "conflict"
_ORDER = (EXACT, BOUND, VERDICTS, LOCATED, SIMULATION)


def setting_dims(ds: xr.Dataset) -> list[str]:
    """The axes of a setting: every grid axis but ``policy`` (no ``load``)."""
    return [str(d) for d in ds["lambda_max"].dims if d != "policy"]


def confidence(ds: xr.Dataset) -> float:
    """The CI level of the study (``simulation.confidence`` of its config, 0.95)."""
    import yaml

    try:
        return float(yaml.safe_load(ds.attrs["config"])["simulation"]["confidence"])
    except (KeyError, TypeError, ValueError, AttributeError, yaml.YAMLError):
        return 0.95


def _config_policies(ds: xr.Dataset) -> dict:
    import yaml

    try:
        return dict(yaml.safe_load(ds.attrs["config"]).get("policies") or {})
    except (KeyError, TypeError, ValueError, AttributeError, yaml.YAMLError):
        return {}


def monotone(ds: xr.Dataset) -> xr.DataArray:
    """True for the policies whose stability is monotone in the load (their verdicts
    bound lambda_max), per ``policy`` of ``ds`` with its configured parameters."""
    params = _config_policies(ds)
    out = []
    for p in ds["policy"].values:
        try:
            out.append(bool(_policies.stability_monotone(str(p), params.get(str(p)) or {})))
        except KeyError:  # a name outside the registry (synthetic data): assume monotone
            out.append(True)
    return xr.DataArray(np.array(out, dtype=bool), dims=("policy",), coords={"policy": ds["policy"].values})


# ------------------------------------------------------------------ array helpers


def spread(array: xr.DataArray, like: xr.DataArray, trail: tuple[str, ...] = ()) -> np.ndarray:
    """The values of ``array`` on the dims of ``like``, in their order, then its own
    dims ``trail``: what ``array.broadcast_like(like).transpose(*like.dims, *trail)
    .values`` gives, without xarray's alignment where the two share their coordinates
    (the variables of one dataset do). A decision table reads some fifty variables this
    way, and a located search builds a table at every probe: the alignment was most of
    its time."""
    dims = (*like.dims, *trail)
    mine, theirs = array.indexes, like.indexes
    same = set(trail) <= set(array.dims) <= set(dims) and all(
        d in trail
        or (
            array.sizes[d] == like.sizes[d]
            and (d in mine) == (d in theirs)
            and (d not in mine or mine[d] is theirs[d] or mine[d].equals(theirs[d]))
        )
        for d in array.dims
    )
    if not same:
        return array.broadcast_like(like).transpose(*dims).values
    values = array.variable.transpose(*[d for d in dims if d in array.dims]).values
    shape = tuple(array.sizes[d] if d in array.dims else 1 for d in dims)
    return np.broadcast_to(values.reshape(shape), (*like.shape, *(array.sizes[d] for d in trail)))


def _floats(ds: xr.Dataset, name: str, like: xr.DataArray) -> np.ndarray:
    if name not in ds:
        return np.full(like.shape, np.nan)
    return np.array(spread(ds[name], like), dtype=float)


def _strings(ds: xr.Dataset, name: str, like: xr.DataArray) -> np.ndarray:
    if name not in ds:
        return np.full(like.shape, "", dtype=object)
    values = spread(ds[name], like)
    return np.vectorize(
        lambda v: "" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v), otypes=[object]
    )(values)


class _Ends:
    """Lower and upper ends being intersected, with the source of each binding end."""

    def __init__(self, shape):
        self.low = np.zeros(shape)
        self.high = np.full(shape, np.inf)
        self.low_src = np.full(shape, "", dtype=object)
        self.high_src = np.full(shape, "", dtype=object)

    def copy(self) -> _Ends:
        out = _Ends(self.low.shape)
        out.low, out.high = self.low.copy(), self.high.copy()
        out.low_src, out.high_src = self.low_src.copy(), self.high_src.copy()
        return out

    def lower(self, values, source, where=None) -> None:
        v = np.maximum(np.asarray(values, dtype=float), 0.0)
        ok = np.isfinite(v) if where is None else (np.isfinite(v) & where)
        take = ok & ((v > self.low) | ((self.low_src == "") & (v > 0)))
        self.low = np.where(take, v, self.low)
        self.low_src = np.where(take, source, self.low_src)

    def upper(self, values, source, where=None) -> None:
        v = np.asarray(values, dtype=float)
        ok = ~np.isnan(v) if where is None else (~np.isnan(v) & where)
        take = ok & ((v < self.high) | ((self.high_src == "") & np.isfinite(v)))
        self.high = np.where(take, v, self.high)
        self.high_src = np.where(take, source, self.high_src)

    def point(self, values, source, where=None) -> None:
        self.lower(values, source, where)
        self.upper(values, source, where)

    def empty(self) -> np.ndarray:
        return self.low > self.high * (1 + 1e-12) + 1e-15

    def evidence(self) -> np.ndarray:
        def words(a, b):
            parts = {s for s in (a, b) if s}
            return " + ".join(sorted(parts, key=lambda s: (_ORDER.index(s) if s in _ORDER else len(_ORDER), s)))

        return np.vectorize(words, otypes=[object])(self.low_src, self.high_src)


def _combine(analytic: _Ends, sim_low, sim_high, sim_src):
    """Intersect the analytic ends with the simulation's (NaN where it has none; an
    upper end may be inf). On an empty intersection: the simulation's ends,
    ``conflict`` in the evidence. Returns (low, high, evidence)."""
    sim_low = np.asarray(sim_low, dtype=float)
    sim_high = np.asarray(sim_high, dtype=float)
    has_sim = ~np.isnan(sim_low) | ~np.isnan(sim_high)
    src = np.broadcast_to(np.asarray(sim_src, dtype=object), analytic.low.shape)
    inner = analytic.copy()
    inner.lower(sim_low, src)
    inner.upper(sim_high, src)
    low, high, evidence = inner.low, inner.high, inner.evidence()
    conflict = has_sim & inner.empty()
    low = np.where(conflict, np.maximum(np.where(np.isnan(sim_low), 0.0, sim_low), 0.0), low)
    high = np.where(conflict, np.where(np.isnan(sim_high), np.inf, sim_high), high)
    word = np.vectorize(lambda s: f"{CONFLICT}: {s}", otypes=[object])(src)
    evidence = np.where(conflict, word, evidence)
    bad = ~has_sim & analytic.empty()  # analytic bounds that disagree with each other
    evidence = np.where(bad, f"{CONFLICT}: analytic bounds", evidence)
    low = np.where(bad, 0.0, low)
    high = np.where(bad, np.inf, high)
    return low, high, evidence


def _kind_ends(ends: _Ends, value, kind, *, lower_kinds, upper_kinds, exact_kinds=("exact",)) -> np.ndarray:
    """Add ``value`` to ``ends`` as a point, a lower or an upper end by ``kind``;
    returns where it is only an estimate (an approximation)."""
    kind = np.asarray(kind, dtype=object)
    value = np.asarray(value, dtype=float)
    is_exact = np.isin(kind, exact_kinds)
    is_lower = np.isin(kind, lower_kinds) | np.vectorize(lambda k: str(k).endswith("lower_bound"), otypes=[bool])(kind)
    is_upper = np.isin(kind, upper_kinds) | np.vectorize(lambda k: str(k).endswith("upper_bound"), otypes=[bool])(kind)
    ends.point(value, EXACT, where=is_exact)
    ends.lower(value, BOUND, where=is_lower & ~is_exact)
    ends.upper(value, BOUND, where=is_upper & ~is_exact)
    return np.isfinite(value) & ~(is_exact | is_lower | is_upper)


# ------------------------------------------------------------------ per criterion


def present(ds: xr.Dataset) -> xr.DataArray:
    """True where a policy has anything at a setting (impossible grid points and
    policies not evaluated there are no contenders)."""
    like = ds["lambda_max"]
    any_value = np.isfinite(_floats(ds, "lambda_max", like)) | np.isfinite(_floats(ds, "cost", like))
    any_value |= _strings(ds, "lambda_max_kind", like) != ""
    for name in ("verdict",):
        if name in ds:
            v = ds[name].transpose(*like.dims, "load").values
            any_value |= (np.asarray(v, dtype=object).astype(str) != "").any(axis=-1)
    for name in ("latency_mean", "latency_approx"):
        if name in ds:
            v = np.asarray(spread(ds[name], _load_like(ds)), dtype=float)
            any_value |= ~np.isnan(v).all(axis=-1)
    return xr.DataArray(any_value, dims=like.dims, coords=like.coords)


def _load_like(ds: xr.Dataset) -> xr.DataArray:
    """``lambda_max`` spread along ``load``: the shape of a criterion per policy,
    setting and load (built directly: the broadcast's alignment is the same and slower)."""
    lm = ds["lambda_max"]
    if "load" in lm.dims:
        return lm
    out = lm.expand_dims(load=ds.indexes["load"], axis=-1)
    out.coords["load"].attrs.update(ds["load"].attrs)
    return out


def verdicts(ds: xr.Dataset) -> np.ndarray:
    """The verdict per grid point and load (``""`` where there is none)."""
    like = _load_like(ds)
    return _strings(ds, "verdict", like)


def stability_intervals(ds: xr.Dataset) -> xr.Dataset:
    """``low``, ``high``, ``estimate``, ``evidence`` of the largest stable load, per
    policy and setting (dims of ``lambda_max``)."""
    like = ds["lambda_max"]
    lm = _floats(ds, "lambda_max", like)
    kind = _strings(ds, "lambda_max_kind", like)
    ends = _Ends(like.shape)
    estimate_only = _kind_ends(
        ends, lm, kind, lower_kinds=("sufficient",), upper_kinds=("necessary", "necessary (simulation)")
    )
    ends.lower(_floats(ds, "lambda_sufficient", like), BOUND)
    estimate = np.where(np.isin(kind, ("exact",)) | estimate_only, lm, np.nan)
    sim_low = np.full(like.shape, np.nan)
    sim_high = np.full(like.shape, np.nan)
    if "verdict" in ds:
        v = verdicts(ds)
        loads = np.broadcast_to(np.asarray(ds["load"].values, dtype=float), v.shape)
        mono = spread(monotone(ds), like)
        stable_max = np.where(v == "stable", loads, -np.inf).max(axis=-1)
        unstable_min = np.where(v == "unstable", loads, np.inf).min(axis=-1)
        # stable at a load l means lambda* > l (unstable at l: lambda* <= l), so that
        # end is open: nudged up by one ulp, a policy stable at l beats one unstable at l
        sim_low = np.where(mono & np.isfinite(stable_max), np.nextafter(stable_max, np.inf), np.nan)
        sim_high = np.where(mono & np.isfinite(unstable_min), unstable_min, np.nan)
    src = np.full(like.shape, VERDICTS, dtype=object)
    if "located_stability_low" in ds:
        # a search between the grid's loads (straggler.decide.frontier.attach): stable at its
        # low end, unstable at its high end, both probed like the grid's loads
        said = _strings(ds, "located_stability_evidence", like)
        found = np.char.startswith(said.astype(str), "located") | np.char.startswith(said.astype(str), "undetermined")
        loc_low = np.where(found, np.nextafter(_floats(ds, "located_stability_low", like), np.inf), np.nan)
        loc_high = np.where(found, _floats(ds, "located_stability_high", like), np.nan)
        sim_low = np.fmax(sim_low, loc_low)
        sim_high = np.fmin(sim_high, loc_high)
        src = np.where(found, LOCATED, src)
    low, high, evidence = _combine(ends, sim_low, sim_high, src)
    evidence = np.where(evidence == "", np.where(estimate_only, ESTIMATE_ONLY, NOTHING), evidence)
    return _as_dataset(like, low, high, estimate, evidence)


def _as_dataset(like: xr.DataArray, low, high, estimate, evidence) -> xr.Dataset:
    return xr.Dataset(
        {
            "low": (like.dims, np.asarray(low, dtype=float)),
            "high": (like.dims, np.asarray(high, dtype=float)),
            "estimate": (like.dims, np.asarray(estimate, dtype=float)),
            "evidence": (like.dims, np.asarray(evidence, dtype=object)),
        },
        coords=like.coords,
    )


def cost_intervals(ds: xr.Dataset) -> xr.Dataset:
    """``low``, ``high``, ``estimate``, ``evidence`` of E[C] per policy, setting and load,
    and ``reliable``; an unreliable CI (``cost_ci_reliable`` = 0) is no evidence, as for
    E[T] (:func:`latency_intervals`)."""
    like = _load_like(ds)
    ends = _Ends(like.shape)
    cost = _floats(ds, "cost", like)
    approx = _kind_ends(ends, cost, _strings(ds, "cost_kind", like), lower_kinds=(), upper_kinds=())
    ends.lower(_floats(ds, "cost_lower", like), BOUND)
    ends.upper(_floats(ds, "cost_upper", like), BOUND)
    v = verdicts(ds)
    usable = (v == "stable") | (v == "")
    mean, ci = _floats(ds, "cost_mean", like), _floats(ds, "cost_mean_ci", like)
    ci = np.where(np.isfinite(ci), ci, 0.0)
    ok = usable & np.isfinite(mean)
    reliable = reliable_ci(ds, "cost")
    low, high, evidence, exact = _with_simulation(ends, mean, ci, ok, reliable)
    estimate = np.where(ok, mean, np.where(approx | exact, cost, np.nan))
    evidence = np.where(evidence == "", np.where(approx, ESTIMATE_ONLY, NOTHING), evidence)
    out = _as_dataset(like, low, high, estimate, evidence)
    out["reliable"] = (like.dims, reliable | ~ok)
    return out


def _with_simulation(ends: _Ends, mean, ci, ok, reliable):
    """The analytic ``ends`` intersected with the simulation's ``mean +- ci`` where it
    exists (``ok``) and can be trusted (``reliable``); where it cannot and no exact value
    stands in, the evidence is :data:`UNRELIABLE`. Returns (low, high, evidence, where
    the analysis is exact)."""
    used = ok & reliable
    low, high, evidence = _combine(
        ends, np.where(used, np.maximum(mean - ci, 0.0), np.nan), np.where(used, mean + ci, np.nan), SIMULATION
    )
    exact = ends.low_src == EXACT
    return low, high, np.where(ok & ~reliable & ~exact, UNRELIABLE, evidence), exact


RELIABLE = {"latency": "ci_reliable", "cost": "cost_ci_reliable"}
"""The variable that says where the simulation's CI of a criterion can be trusted."""


def reliable_ci(ds: xr.Dataset, criterion: str = "latency") -> np.ndarray:
    """Per policy, setting and load (the load-like shape), False where the simulation's
    CI of E[T] (or E[C]) cannot be trusted: ``ci_reliable`` (``cost_ci_reliable``) = 0,
    or, in a dataset older than that variable, ``latency_mean_kind`` =
    ``ci_undercovers`` for E[T] (a heavy tail)."""
    like = _load_like(ds)
    if RELIABLE[criterion] in ds:
        return ~(_floats(ds, RELIABLE[criterion], like) == 0.0)
    if criterion == "latency":
        return _strings(ds, "latency_mean_kind", like) != "ci_undercovers"
    return np.ones(like.shape, dtype=bool)


HEAVY_TAIL = "infinite variance"
"""Why a simulated E[T] cannot be trusted when the response time has an infinite
variance (the key of ``ci_reliable_reason``, the words before its first ``:``)."""


def unreliable_reason(ds: xr.Dataset) -> np.ndarray:
    """Per policy, setting and load (the load-like shape), why the simulation's CI of
    E[T] cannot be trusted, in the key words of ``ci_reliable_reason`` (``infinite
    variance``, ``not settled``); ``""`` where it can or the dataset does not say. A
    dataset older than that variable says ``latency_mean_kind`` = ``ci_undercovers``:
    an infinite variance."""
    like = _load_like(ds)
    if "ci_reliable_reason" in ds:
        said = _strings(ds, "ci_reliable_reason", like)
        return np.vectorize(lambda s: s.split(":", 1)[0].strip(), otypes=[object])(said)
    kind = _strings(ds, "latency_mean_kind", like)
    return np.where(kind == "ci_undercovers", HEAVY_TAIL, "").astype(object)


def latency_intervals(ds: xr.Dataset) -> xr.Dataset:
    """``low``, ``high``, ``estimate``, ``evidence`` of E[T] per policy, setting and load,
    ``reliable`` (:func:`reliable_ci`) and ``reason`` (why not, :func:`unreliable_reason`;
    ``""`` where it is). Where the simulation's CI is unreliable it
    is no evidence: an exact value stands alone, otherwise the analysis's bounds do
    (evidence ``unreliable CI``, open above without an upper bound)."""
    like = _load_like(ds)
    ends = _Ends(like.shape)
    approx_value = _floats(ds, "latency_approx", like)
    approx_kind = _strings(ds, "latency_approx_kind", like)
    finite = np.isfinite(approx_value)
    approx = _kind_ends(ends, np.where(finite, approx_value, np.nan), approx_kind, lower_kinds=(), upper_kinds=())
    ends.lower(_floats(ds, "latency_lower", like), BOUND)
    v = verdicts(ds)
    mean_kind = _strings(ds, "latency_mean_kind", like)
    mean, ci = _floats(ds, "latency_mean", like), _floats(ds, "latency_mean_ci", like)
    ci = np.where(np.isfinite(ci), ci, 0.0)
    ok = ((v == "stable") | (v == "")) & np.isfinite(mean)
    reliable = reliable_ci(ds)
    low, high, evidence, exact = _with_simulation(ends, mean, ci, ok, reliable)
    estimate = np.where(ok, mean, np.where(approx | exact, approx_value, np.nan))
    evidence = np.where(evidence == "", np.where(approx, ESTIMATE_ONLY, NOTHING), evidence)
    # no finite mean: unstable (by the verdict, an infinite mean or an exact infinite value)
    analytic_inf = (approx_kind == "exact") & np.isposinf(approx_value) & (v != "stable")
    infinite = (v == "unstable") | (mean_kind == "infinite") | analytic_inf
    open_ = (v == "undetermined") & ~infinite
    low = np.where(infinite, np.inf, np.where(open_, ends.low, low))
    high = np.where(infinite | open_, np.inf, high)
    estimate = np.where(infinite, np.inf, np.where(open_, np.nan, estimate))
    evidence = np.where(
        v == "unstable", UNSTABLE, np.where(infinite, INFINITE, np.where(open_, UNDETERMINED, evidence))
    )
    out = _as_dataset(like, low, high, estimate, evidence)
    out["reliable"] = (like.dims, reliable | ~ok)
    out["reason"] = (like.dims, np.where(reliable | ~ok, "", unreliable_reason(ds)).astype(object))
    return out


def tail_intervals(ds: xr.Dataset, level: float = 0.99) -> xr.Dataset:
    """``low``, ``high``, ``estimate``, ``evidence`` of the response time's ``level``
    quantile (p99) per policy, setting and load: the simulation's
    ``latency_quantile`` +- ``latency_quantile_ci`` (Student t over the replications'
    own quantiles) at stable loads, clipped at 0; ``[inf, inf]`` where unstable,
    ``[0, inf)`` where undetermined or without a CI (one replication). No analysis
    bounds the quantiles here, so the evidence is ``simulation`` or nothing. The
    ``tail`` criterion (:func:`straggler.decide.decision.decision_table`), and what decides the
    recommendation where E[T] cannot (:func:`straggler.decide.winners.on_the_tail`)."""
    like = _load_like(ds)
    nan = np.full(like.shape, np.nan)
    if "latency_quantile" not in ds:
        return _as_dataset(like, nan, nan, nan, np.full(like.shape, NOTHING, dtype=object))
    q = ds["latency_quantile"].sel(quantile=level, method="nearest").drop_vars("quantile")
    value = np.array(spread(q, like), dtype=float)
    if "latency_quantile_ci" in ds:
        half = ds["latency_quantile_ci"].sel(quantile=level, method="nearest").drop_vars("quantile")
        ci = np.array(spread(half, like), dtype=float)
    else:
        ci = nan
    v = verdicts(ds)
    ok = ((v == "stable") | (v == "")) & np.isfinite(value) & np.isfinite(ci)
    low = np.where(ok, np.maximum(value - ci, 0.0), 0.0)
    high = np.where(ok, value + ci, np.inf)
    estimate = np.where(np.isfinite(value) & (v != "unstable"), value, np.nan)
    evidence = np.where(ok, SIMULATION, np.where(np.isfinite(value), ESTIMATE_ONLY, NOTHING)).astype(object)
    unstable = v == "unstable"
    low, high = np.where(unstable, np.inf, low), np.where(unstable, np.inf, high)
    evidence = np.where(unstable, UNSTABLE, np.where(v == "undetermined", UNDETERMINED, evidence))
    return _as_dataset(like, low, high, estimate, evidence)


def size_mean(ds: xr.Dataset) -> xr.DataArray:
    """E[X] per grid point (``size_mean``, one copy of the job at full speed); NaN
    where the dataset does not have it (a dataset older than the variable)."""
    like = ds["lambda_max"]
    if "size_mean" not in ds:
        return xr.full_like(like, np.nan, dtype=float)
    mean = ds["size_mean"]
    return xr.DataArray(spread(mean, like), dims=like.dims, coords=like.coords, name=mean.name, attrs=mean.attrs)


def copy_mean(ds: xr.Dataset) -> xr.DataArray:
    """The mean time of one copy of the job at full speed per grid point (``copy_mean``:
    X S under an S&X dependence, X otherwise), the extra load's unit; ``size_mean`` in a
    dataset older than the variable (the same for every dependence but S&X)."""
    if "copy_mean" not in ds:
        return size_mean(ds)
    like = ds["lambda_max"]
    mean = ds["copy_mean"]
    return xr.DataArray(spread(mean, like), dims=like.dims, coords=like.coords, name=mean.name, attrs=mean.attrs)


def one_copy_words(ds: xr.Dataset) -> str:
    """How the extra load's unit is written: ``E[X]``, or ``E[X S]`` where one copy of the job
    is not its X (an S&X dependence: the copy takes X S, ``copy_mean`` differs from
    ``size_mean``)."""
    if "copy_mean" not in ds or "size_mean" not in ds:
        return "E[X]"
    one, job = np.asarray(ds["copy_mean"].values, float), np.asarray(ds["size_mean"].values, float)
    differ = np.isfinite(one) & np.isfinite(job) & ~np.isclose(one, job, rtol=1e-12, atol=0.0)
    return "E[X S]" if differ.any() else "E[X]"


def extra_load_intervals(ds: xr.Dataset) -> xr.Dataset:
    """``low``, ``high``, ``estimate``, ``evidence`` of the extra load E[C] / E[one copy] - 1
    per policy, setting and load: the E[C] interval (:func:`cost_intervals`) in units
    of one copy at full speed (``copy_mean``: E[X], or E[X] E[S] under S&X, where one
    copy takes X S), less the one copy every policy runs. Its evidence is E[C]'s: the
    unit is exact. Negative where the copies together spend less than one full copy
    (cancelled early: i.i.d. heavy-tailed replicas). A policy that sends one copy to a
    server of full speed has 0, whatever the dependence."""
    cost = cost_intervals(ds)
    mean = spread(copy_mean(ds), cost["low"])
    out = cost.copy()
    for key in ("low", "high", "estimate"):
        out[key] = cost[key].copy(data=cost[key].values / mean - 1.0)
    unknown = ~np.isfinite(mean)
    out["evidence"] = (cost["evidence"].dims, np.where(unknown, NOTHING, cost["evidence"].values).astype(object))
    return out


def hedges_intervals(ds: xr.Dataset) -> xr.Dataset:
    """``low``, ``high``, ``estimate``, ``evidence`` of the extra copies a job sends,
    ``copies_mean - 1`` +- ``copies_mean_ci``, per policy, setting and load: the budget a
    hedging stack counts (a copy counts whether it ran or was cancelled before it
    started). The simulation's only, at stable loads (clipped at 0); ``[inf, inf]``
    where unstable, ``[0, inf)`` where undetermined or not simulated."""
    like = _load_like(ds)
    nan = np.full(like.shape, np.nan)
    if "copies_mean" not in ds:
        return _as_dataset(like, nan, nan, nan, np.full(like.shape, NOTHING, dtype=object))
    value = _floats(ds, "copies_mean", like) - 1.0
    ci = _floats(ds, "copies_mean_ci", like)
    ci = np.where(np.isfinite(ci), ci, 0.0)
    v = verdicts(ds)
    ok = ((v == "stable") | (v == "")) & np.isfinite(value)
    low = np.where(ok, np.maximum(value - ci, 0.0), 0.0)
    high = np.where(ok, value + ci, np.inf)
    estimate = np.where(ok, value, np.nan)
    evidence = np.where(ok, SIMULATION, NOTHING).astype(object)
    unstable = v == "unstable"
    low, high = np.where(unstable, np.inf, low), np.where(unstable, np.inf, high)
    evidence = np.where(unstable, UNSTABLE, np.where(v == "undetermined", UNDETERMINED, evidence))
    return _as_dataset(like, low, high, estimate, evidence)


def intervals(ds: xr.Dataset) -> dict[str, xr.Dataset]:
    """The intervals of every criterion (:data:`CRITERIA`), each a dataset with
    ``low``, ``high``, ``estimate`` and ``evidence``; latency and cost also carry
    ``verdict`` (per load) and every one ``present``."""
    out = {
        "stability": stability_intervals(ds),
        "latency": latency_intervals(ds),
        "cost": cost_intervals(ds),
    }
    here = present(ds)
    like = _load_like(ds)
    v = verdicts(ds)
    for name, iv in out.items():
        iv["present"] = (iv["low"].dims, np.array(spread(here, iv["low"])))
        if name != "stability":
            iv["verdict"] = (like.dims, v)
    return out


def fmt_interval(low: float, high: float, digits: int = 4) -> str:
    """``[1.2, 1.3]``, ``1.25`` for a point, ``>= 1.2``, ``<= 1.3``, ``inf``, ``?``."""

    def f(x):
        return f"{x:.{digits}g}"

    if not np.isfinite(low) and low > 0:
        return "inf"
    if np.isnan(low) or np.isnan(high):
        return ""
    if low == high:
        return f(low)
    if np.isinf(high):
        return f">= {f(low)}" if low > 0 else "unknown"
    if low <= 0:
        return f"<= {f(high)}"
    return f"[{f(low)}, {f(high)}]"


def fmt_signed(low: float, high: float, digits: int = 4) -> str:
    """An interval whose ends may be negative (the extra load): ``[-0.02, 0.01]``, a point,
    ``>= -0.5`` for an open top, ``""`` when unknown."""

    def f(x):
        return f"{x:.{digits}g}"

    if np.isnan(low) or np.isnan(high):
        return ""
    if low == high:
        return f(low)
    if np.isinf(high):
        return "inf" if np.isinf(low) else f">= {f(low)}"
    return f"[{f(low)}, {f(high)}]"
