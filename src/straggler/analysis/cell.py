"""The analytic answers for one grid cell, whatever its policy.

Each policy maps to the best result that theory gives, with its kind
(``lambda_max_kind``: exact, necessary, sufficient, conjectured, approximate;
``cost_kind`` and ``latency_approx_kind``: exact, approximation, upper_bound,
lower_bound). Where several valid bounds exist, the tightest is kept
(:func:`_bounds`): the fork-join paper's cost bounds for a symmetric policy that
sends r replicas and cancels on the first completion (section 6.1, Appendix B:
``E[X] <= E[C] <= r E[X_{1:r}]`` for log-concave tails, the reverse for
log-convex ones; FCFS, i.i.d. replicas), the stability bound they imply
(``lambda E[C] < N``, section 4.1), and the full-service bounds of
:mod:`.replica_bounds`, which hold for every cell (any speeds, dependence and
discipline). Notes (:mod:`.notes`) say which paper applies, and why a value is
NaN or +inf; they are rendered in the dataset's load basis in one place
(:func:`analyze`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from .. import system as two_pools
from ..dependence import IID, SX
from ..policies import POLICIES
from ..system import CellModel
from . import forkjoin, known_sizes, queues, redundancy_ps, replica_bounds, speculation, threshold
from .notes import NOMINAL, Load, LoadUnit, Note, Time, note


@dataclass
class AnalyticResult:
    loads: np.ndarray
    lambda_max: float = math.nan
    lambda_max_kind: str = ""
    lambda_sufficient: float = math.nan
    """A load below which stability is proven (a sufficient condition); equal to
    lambda_max when that is exact, NaN when no sufficient condition is known."""
    tau_opt: float = math.nan
    q_opt: float = math.nan
    rho: np.ndarray | None = None
    cost: float = math.nan
    cost_kind: str = ""
    latency_approx: np.ndarray | None = None
    latency_approx_kind: str = ""
    tau_opt_pool2: float = math.nan
    keep_opt: np.ndarray | None = None
    """FJ ``keep: opt``: the tasks kept (r of section 8.1) that the strategy of
    section 8.2 chose at each load (the simulation uses the same)."""
    latency_lower: np.ndarray | None = None
    """An analytic lower bound on the mean latency, where one is known besides
    ``latency_approx`` (FJ: Theorem 4's lower bound)."""
    cost_lower: float = math.nan
    cost_upper: float = math.nan
    latency_group: np.ndarray | None = None
    """FJ with r_f < n: the fork-join paper's section 8.2 estimate ``T_hat(r)``, the
    latency of *group-based* random (n, r, k) (r tasks starting together on one of
    n / r fixed groups). The simulation runs another system (a random r_f of the n
    servers), so this is not its latency and not ``latency_approx``."""
    latency_group_kind: str = ""
    """What ``latency_group`` is for the group-based system: ``exact`` (k = 1) or
    ``upper_bound`` (k > 1, Theorem 4's split-merge bound for a group) when r
    divides n; ``approximation`` otherwise (no such system of n / r groups exists,
    the estimate is section 8.2's as the paper uses it)."""
    alpha: np.ndarray | None = None
    """alpha[i, j]: fraction of type-j jobs first sent to pool i, as chosen by the
    analysis (the simulation uses the same assignment)."""
    note_items: list[Note] = field(default_factory=list)
    """The notes as data (:class:`.notes.Note`), loads in nominal units."""
    load_unit: LoadUnit = NOMINAL
    """The load basis the notes are rendered in (set by :func:`analyze`)."""

    def __post_init__(self):
        nan = np.full(len(self.loads), math.nan)
        if self.rho is None:
            self.rho = nan.copy()
        if self.latency_approx is None:
            self.latency_approx = nan.copy()
        if self.keep_opt is None:
            self.keep_opt = nan.copy()
        if self.latency_lower is None:
            self.latency_lower = nan.copy()
        if self.latency_group is None:
            self.latency_group = nan.copy()

    @property
    def notes(self) -> list[str]:
        """The notes as the dataset stores them (``cell_notes``), in the result's
        load basis."""
        return [item.render(self.load_unit) for item in self.note_items]

    def add_note(self, text: str, about=(), **fields) -> None:
        """Append a :class:`.notes.Note` (``text`` a template over ``fields``)."""
        self.note_items.append(note(text, about, **fields))

    def explains(self, variable: str) -> bool:
        """Does a note say something about ``variable`` (why it is NaN, +inf, a bound)?"""
        return any(variable in item.about for item in self.note_items)


def analyze(model: CellModel) -> AnalyticResult:
    """The analysis of one cell. Handlers (and their papers' formulas) speak nominal
    load; a cell in another basis (``load_basis: redundancy``) is analysed in nominal
    units and converted here, the one place where loads change basis: the load-valued
    answers (``lambda_max``, ``lambda_sufficient``) and every :class:`.notes.Load`
    in the notes (rendered with the basis factor). ``rho`` (busiest server's
    utilisation), latencies and costs are per arrival rate, the same in both bases.
    """
    nominal = model
    if model.load_basis != "nominal":
        nominal = replace(model, loads=model.nominal_loads, load_basis="nominal")
    handler = HANDLERS.get(POLICIES[model.policy].analysis) if model.policy in POLICIES else None
    if handler is None:
        result = AnalyticResult(nominal.loads)
        result.add_note(
            f"lambda_max, cost and latency_approx are NaN: no analysis of {model.policy} yet",
            about=("lambda_max", "cost", "latency_approx"),
        )
    else:
        result = handler(nominal)
    _explain_infinite_latency(nominal, result)
    _exact_cost_is_both_bounds(result)
    _explain_missing(nominal, result)
    result = _proven(result)
    if model.load_basis != "nominal":
        result.loads = model.loads
        result.lambda_max = result.lambda_max * model.load_factor
        result.lambda_sufficient = result.lambda_sufficient * model.load_factor
        result.load_unit = LoadUnit(model.load_basis, model.load_factor)
    return result


def _proven(result: AnalyticResult) -> AnalyticResult:
    """An exact stability bound is also a sufficient one."""
    if result.lambda_max_kind == "exact" and math.isnan(result.lambda_sufficient):
        result.lambda_sufficient = result.lambda_max
    return result


def _exact_cost_is_both_bounds(result: AnalyticResult) -> None:
    """An exact cost is its own lower and upper bound (README: exact cells have
    ``cost_lower = cost_upper = cost``), so checks can read the bounds alone."""
    if result.cost_kind == "exact" and math.isfinite(result.cost):
        result.cost_lower = result.cost_upper = result.cost


def _explain_infinite_latency(model: CellModel, result: AnalyticResult) -> None:
    """Say why a latency is +inf (it is a value, not an error)."""
    infinite = np.isinf(result.latency_approx)
    if not infinite.any():
        return
    _, m2 = model.dependence.replica_marginal_moments(model.size)
    if math.isinf(m2):
        result.add_note(
            "latency_approx is +inf: the replica size has an infinite second moment, so the "
            "Pollaczek-Khinchine waiting time is infinite",
            about="latency_approx",
        )
    overloaded = model.loads[infinite & (result.rho >= 1.0)]
    if overloaded.size:
        result.add_note(
            "latency_approx is +inf at {loads}: rho >= 1 (unstable)",
            about="latency_approx",
            loads=Load(overloaded.tolist()),
        )
    rest = model.loads[infinite & ~(result.rho >= 1.0)]
    if rest.size and not math.isinf(m2) and not result.explains("latency_approx"):
        result.add_note(
            "latency_approx is +inf at {loads}: the system the analysis uses for it is "
            "overloaded there (its kind says what it is)",
            about="latency_approx",
            loads=Load(rest.tolist()),
        )


def _explain_missing(model: CellModel, result: AnalyticResult) -> None:
    """No analytic value is NaN without a note: where a handler left one of the main
    values NaN and said nothing, say that no paper (and no project bound) gives it."""
    what = {"lambda_max": "a stability bound", "cost": "a server time per job", "latency_approx": "a mean latency"}
    for name, phrase in what.items():
        value = np.atleast_1d(getattr(result, name))
        said = any(name in item.about and name in item.text for item in result.note_items)
        if np.isnan(value).any() and not said:
            result.add_note(
                f"{name} is NaN: none of the four papers gives {phrase} for {model.policy} "
                f"in this setting ({_setting(model)})",
                about=name,
            )


def _setting(model: CellModel) -> str:
    parts = [f"{model.discipline}", f"{model.queueing} queues"]
    if model.system is not None:
        parts.append(f"pools {tuple(model.system.n)}")
    parts.append("identical servers" if _homogeneous(model) else "job-server affinity")
    if model.d is not None:
        parts.append(f"d = {model.d} of N = {model.N}")
    return ", ".join(parts)


def _zero_redundancy(model: CellModel, knowledge: str | None = None) -> AnalyticResult:
    """ZRed (the system's type knowledge) and KT (known types): eq. 5 with the
    assignment that maximises the stability bound (a linear programme)."""
    system = model.system
    if system is None:
        return _homogeneous_single_copy(model)
    if knowledge is not None:
        J = system.n_types
        system = replace(system, belief=two_pools.belief_matrix(knowledge, J))
    bound = two_pools.optimal_assignment_no_redundancy(system, model.size, model.dependence)
    alpha = two_pools.assignment_fractions(system, bound.q)
    result = _from_work(model, system, bound, kind="exact")
    result.q_opt = float(np.dot(system.p, alpha[0]))
    result.alpha = alpha
    if model.queueing == "per_server":
        result.latency_approx = np.array([_random_dispatch_latency(model, system, alpha, lam) for lam in model.rates()])
        result.latency_approx_kind = "exact"
    else:
        result.add_note(
            "latency_approx is NaN: with central pool queues each pool is an "
            "M/G/n_i queue, whose mean latency has no closed form (not computed)",
            about="latency_approx",
        )
    return result


def _single_server_pools(model: CellModel) -> bool:
    """One server per pool (the threshold paper's Section 6 setting): per-server and
    central queueing are then the same system."""
    return model.system is not None and tuple(model.system.n) == (1, 1)


def _full_redundancy(model: CellModel) -> AnalyticResult:
    """FRed: eq. 6. The paper proves the load condition necessary and conjectures
    it sufficient (Section 3), hence the kind ``necessary``; see
    :func:`_as_full_redundancy` for one server per pool (a single queue, exact)."""
    bound = threshold.full_redundancy_bound(model.system, model.size, model.dependence)
    kind = _replication_kind(model)
    result = _from_work(model, model.system, bound, kind=kind, cost_kind=_cost_kind(kind))
    if result.lambda_max_kind == "approximate":
        result.add_note(
            "per-server queues: the two copies do not start together, so eq. 6 (central "
            "queues, simultaneous service) is an approximation here",
            about=("lambda_max", "cost"),
        )
    return _as_full_redundancy(model, result)


def _as_full_redundancy(model: CellModel, result: AnalyticResult) -> AnalyticResult:
    """FRed, and Rep with thresholds (0, 0), which the threshold paper calls full
    redundancy (Section 2): one system, one set of values and kinds.

    With one server per pool every job holds both servers from its start to its
    first completion (FRed: both copies join the two FIFO queues, which therefore
    empty together; Rep at tau = 0: a job that starts is replicated at once, with
    priority, so at most one job is in service), so the system is a single M/G/1
    queue whose service is ``M = min(X_1 / r_1j, X_2 / r_2j)``: stable iff
    ``lam E[M] < 1`` (eq. 6 with n_1 = n_2 = 1, exact), cost ``2 E[M]`` (exact) and,
    FCFS, the threshold paper's Section 6 latency at tau = 0,
    ``E[T] = E[M] + lam E[M^2] / (2 (1 - lam E[M]))``, exact there ("the Poisson
    assumption is exact in the extreme cases of tau = 0"); PS: ``E[M] / (1 - lam E[M])``
    (M/G/1-PS). Larger pools: the paper's kinds (:func:`_replication_kind`), and its
    Section 6 latency needs one server per pool.
    """
    if not _single_server_pools(model):
        result.add_note(
            "latency_approx is NaN: the threshold paper's latency approximation (Section 6) needs one server per pool",
            about="latency_approx",
        )
        return result
    system, X, dep = model.system, model.size, model.dependence
    result.lambda_max_kind = "exact"
    result.lambda_sufficient = result.lambda_max
    result.cost_kind = "exact"
    alpha = (
        result.alpha
        if result.alpha is not None
        else two_pools.assignment_fractions(system, [0.5] * len(system.belief[0]))
    )
    if model.discipline == "FCFS":
        result.latency_approx = np.asarray(
            threshold.latency_replication(system, X, dep, alpha, (0.0, 0.0), model.rates()), dtype=float
        )
    else:
        m = float(threshold.expected_work_full_redundancy(system, X, dep)[0])
        result.latency_approx = np.array([_mg1_response(lam, m, math.nan, m, "PS") for lam in model.rates()])
    result.latency_approx_kind = "exact"
    result.add_note(
        "full redundancy on one server per pool: a single M/G/1 queue with "
        "service min(X_1/r_1j, X_2/r_2j) (threshold paper, eq. 6 and Section 6 "
        "at tau = 0): stability, cost and latency exact",
        about=("lambda_max", "cost", "latency_approx"),
    )
    return result


def _replication_kind(model: CellModel) -> str:
    """Replicas in both pools run simultaneously in the threshold paper's model (one
    central queue per pool, preemptive-resume priority for replicated jobs). On
    per-server FCFS queues with more than one server in a pool a job's two copies
    start at different times, so the work per pool differs from eqs. 4 and 6: the
    bound is then an approximation. With one server per pool the two queueings are
    the same system."""
    if model.queueing == "central" or _single_server_pools(model):
        return "necessary"
    return "approximate"


def _cost_kind(replication_kind: str) -> str:
    """The threshold paper's work per pool is exact in its own model (central
    queues; checked against simulation at 90 % of the bound) and an approximation
    on per-server queues, like its stability bound."""
    return "approximation" if replication_kind == "approximate" else "exact"


def _threshold_policy(model: CellModel, policy: str) -> AnalyticResult:
    """Rer (Prop. 1) and Rep (Prop. 2) with the threshold of the config, or with the
    (q, tau) that maximise the stability bound when ``tau: opt``. The paper shows
    the load condition necessary and conjectures it sufficient (Section 3).
    Rep whose thresholds are both 0 (given, or chosen by the optimisation) is full
    redundancy (the paper's Section 2), with FRed's values and kinds
    (:func:`_as_full_redundancy`)."""
    system = model.system
    tau = model.params.get("tau", "opt")
    if tau == "opt":
        optimise = threshold.optimal_rerouting if policy == "rerouting" else (threshold.optimal_replication)
        bound = optimise(system, model.size, model.dependence)
    else:
        bound = threshold.bound_at_threshold(system, model.size, model.dependence, policy, tau)
    kind = "necessary" if policy == "rerouting" else _replication_kind(model)
    result = _from_work(
        model, system, bound, kind=kind, cost_kind="exact" if policy == "rerouting" else _cost_kind(kind)
    )
    if kind == "approximate":
        result.add_note(
            "per-server queues: a job's replicas do not start together, so the threshold "
            "paper's work per pool (central queues with priority) is an approximation here",
            about=("lambda_max", "cost"),
        )
    result.tau_opt = bound.tau[0]
    result.tau_opt_pool2 = bound.tau[1]
    alpha = two_pools.assignment_fractions(system, bound.q)
    result.alpha = alpha
    result.q_opt = float(np.dot(system.p, alpha[0]))
    if policy == "replication" and bound.tau[0] == 0.0 and bound.tau[1] == 0.0:
        return _as_full_redundancy(model, result)
    if _single_server_pools(model) and model.discipline == "FCFS":
        latency = threshold.latency_rerouting if policy == "rerouting" else (threshold.latency_replication)
        result.latency_approx = np.asarray(
            latency(system, model.size, model.dependence, alpha, bound.tau, model.rates()),
            dtype=float,
        )
        result.latency_approx_kind = "approximation"
    else:
        result.add_note(
            "latency_approx is NaN: the latency approximation of the threshold paper "
            "(Section 6) needs one FCFS server per pool",
            about="latency_approx",
        )
    return result


def _known_sizes(model: CellModel) -> AnalyticResult:
    """KS: size-aware rerouting or replication (Props. 3-4), the larger bound, computed
    exactly through LP duality over the rational thresholds (Lemma 1, Remark 2)."""
    system = model.system
    bound = known_sizes.known_sizes_bound(system, model.size, model.dependence)
    per_server = 1.0 / bound.rate
    result = AnalyticResult(
        model.loads,
        lambda_max=model.to_load(bound.rate),
        lambda_max_kind="necessary",
        rho=model.rates() * per_server,
    )
    result.add_note(f"KS bound attained by size-aware {bound.policy}", about="lambda_max")
    if 0.0 < bound.weight < 1.0:
        # an interior optimal dual weight saturates both pools (complementary
        # slackness): E[B_i] / n_i = 1 / lambda_max for i = 1, 2, so the server time
        # per job of the optimal size-aware policy is sum_i E[B_i] = N / lambda_max
        result.cost = system.servers / bound.rate
        result.cost_kind = "exact"
    else:
        result.add_note(
            "cost is NaN: KS has one pool not saturated at the optimum, so "
            "the dual does not give the optimal policy's cost",
            about="cost",
        )
    return result


def _from_work(model, system, bound: two_pools.Bound, kind: str, cost_kind: str = "exact") -> AnalyticResult:
    per_server = max(bound.work[0] / system.n[0], bound.work[1] / system.n[1])
    return AnalyticResult(
        model.loads,
        lambda_max=model.to_load(bound.rate),
        lambda_max_kind=kind,
        q_opt=bound.q[0] if len(bound.q) == 1 else math.nan,
        rho=model.rates() * per_server,
        cost=float(sum(bound.work)),
        cost_kind=cost_kind,
    )


def _homogeneous_single_copy(model: CellModel) -> AnalyticResult:
    """One copy on a random one of N identical servers: N M/G/1 queues."""
    m1, m2 = model.dependence.replica_marginal_moments(model.size)
    rates = model.rates()
    result = AnalyticResult(
        model.loads, lambda_max=1.0, lambda_max_kind="exact", rho=rates * m1 / model.N, cost=m1, cost_kind="exact"
    )
    if model.queueing == "per_server":
        result.latency_approx = np.array([_mg1_response(lam / model.N, m1, m2, m1, model.discipline) for lam in rates])
        result.latency_approx_kind = "exact"
    return result


def _mg1_response(lam: float, m1: float, m2: float, job_mean: float, discipline: str) -> float:
    """Mean response time of a job with mean size ``job_mean`` at an M/G/1 station
    whose service times have moments (m1, m2)."""
    if discipline == "PS":
        return job_mean * queues.mg1_ps_slowdown(lam, m1)
    return job_mean + queues.mg1_waiting_time(lam, m1, m2)


def _random_dispatch_latency(model, system, alpha, lam: float) -> float:
    """Exact mean response time of random dispatch to per-server queues.

    By Poisson thinning each server of pool i is an M/G/1 queue with rate
    lambda sum_j p_j alpha_ij / n_i and a service time that is X_i / r_ij with
    probability proportional to p_j alpha_ij; Pollaczek-Khinchine (FCFS) or the
    M/G/1-PS slowdown 1 / (1 - rho) gives each type's response time.
    """
    m1, m2 = model.dependence.replica_marginal_moments(model.size)
    p = np.asarray(system.p)
    r = np.asarray(system.speeds)
    total = 0.0
    for i in range(2):
        weights = p * alpha[i]
        share = weights.sum()
        if share <= 0:
            continue
        lam_i = lam * share / system.n[i]
        used = weights > 0  # 0 * inf (an infinite second moment) must not become nan
        s1 = float(np.dot(weights[used], m1 / r[i][used]) / share)
        s2 = float(np.dot(weights[used], m2 / r[i][used] ** 2) / share)
        for j in range(system.n_types):
            if weights[j] > 0:
                total += weights[j] * _mg1_response(lam_i, s1, s2, m1 / r[i][j], model.discipline)
    return total


def _homogeneous(model: CellModel) -> bool:
    """All servers run every job at speed 1: the model of the speculation,
    PS-redundancy and fork-join papers."""
    if model.system is None:
        return True
    return all(r == 1.0 for row in model.system.speeds for r in row)


# =====================================================================================
# Bounds: the tightest of what the papers and full-service accounting give
# =====================================================================================

FULL_SERVICE = "full-service accounting (replica_bounds)"


@dataclass(frozen=True)
class PaperCost:
    """A paper's bounds on the server time per job, with where they come from."""

    lower: float
    upper: float
    source: str


def _same(a: float, b: float) -> bool:
    return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= replica_bounds.EXACT_RTOL * max(abs(a), abs(b))


def _partial_fork_cost(model: CellModel, r: int, source: str | None = None) -> tuple[PaperCost | None, str]:
    """The fork-join paper's cost bounds for a symmetric policy that gives a job r
    tasks of which the first to finish cancels the rest, the tasks possibly
    starting at different times (its (n, r, 1) partial fork with any symmetric
    choice of the r servers, e.g. uniform random; section 6.1, proof in Appendix
    B): ``E[X] <= E[C] <= r E[X_{1:r}]`` for a log-concave tail of X, the reverse
    for a log-convex one, ``E[C] = E[X]`` for the exponential
    (:func:`forkjoin.uniform_partial_fork_cost_bounds`).

    The proof writes the cost as ``C = S + sum_i (S - t_i)^+`` with ``t_i`` the
    tasks' start times relative to the first and ``S`` the first completion, and
    needs the start times to be independent of the job's own task sizes (true on
    FCFS queues, where they depend on the earlier jobs only), i.i.d. task sizes
    (section 2.1) and FCFS service (a task runs at full speed once started). So
    ``(None, reason)`` for PS, for identical or S&X replicas (the paper does not
    treat correlated tasks), and for a tail that is neither log-concave nor
    log-convex (Pareto type I, lognormal, ...), where the paper gives no bound.
    """
    X = model.size
    if model.discipline != "FCFS":
        return None, "the fork-join paper's cost bounds (section 6.1) need FCFS queues"
    if not isinstance(model.dependence, IID):
        return None, (
            "the fork-join paper assumes i.i.d. tasks (section 2.1), so its cost "
            "bounds (section 6.1) do not cover these replicas"
        )
    lo, hi, tc = forkjoin.uniform_partial_fork_cost_bounds(X, r)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None, (
            f"the fork-join paper's cost bounds (section 6.1) need a log-concave or "
            f"log-convex tail; the {X.family} tail is neither"
        )
    src = source or (
        f"fork-join paper, section 6.1 and Appendix B ({tc} tail: "
        + (
            "E[X] <= E[C] <= r E[X_{1:r}]"
            if tc == "log-concave"
            else "r E[X_{1:r}] <= E[C] <= E[X]"
            if tc == "log-convex"
            else "E[C] = E[X]"
        )
        + f", r = {r})"
    )
    return PaperCost(lo, hi, src), ""


MEMORYLESS = (
    "i.i.d. exponential replicas: server time accrues at least E[X] / r_max times as fast "
    "as the completion intensity (replica_bounds.memoryless_cost_lower)"
)


def _bounds(
    model: CellModel, why: str, k: int = 1, choice: str = "completion", paper: PaperCost | None = None
) -> AnalyticResult:
    """Stability and cost bounds of a replicating policy: the tightest of the
    full-service bounds of :mod:`.replica_bounds` (valid for every cell) and a
    paper's cost bounds ``paper`` where one applies.

    - cost: ``cost_lower`` the larger lower bound, ``cost_upper`` the smaller upper
      one; ``cost`` is ``cost_lower`` (kind ``lower_bound``), ``exact`` when they meet;
    - stability: the servers must carry ``lambda E[C] < N`` (fork-join paper,
      section 4.1), so on identical servers ``N / cost_lower`` is a necessary
      bound on the arrival rate (with the full-service lower cost it is
      :mod:`.replica_bounds`' own necessary bound; with affinity that one, optimised
      over pool weights, is kept); sufficient: every replica served in full
      (replica_bounds). Kind ``exact`` when the two meet.

    The note says which bound came from where; ``why`` names the setting.
    """
    X, dep, N = model.size, model.dependence, model.N
    pools = replica_bounds.Pools.of(model.system, N)
    b = replica_bounds.bounds(X, dep, pools, model.d, k, choice)
    lower, lower_src = b.cost_lower, FULL_SERVICE
    upper, upper_src = b.cost_upper, FULL_SERVICE
    if paper is not None:
        if paper.lower > lower * (1.0 + replica_bounds.EXACT_RTOL):
            lower, lower_src = paper.lower, paper.source
        if paper.upper < upper * (1.0 - replica_bounds.EXACT_RTOL):
            upper, upper_src = paper.upper, paper.source
    memoryless = replica_bounds.memoryless_cost_lower(X, dep, pools, k) if choice == "completion" else math.nan
    if memoryless > lower * (1.0 + replica_bounds.EXACT_RTOL):
        lower, lower_src = memoryless, MEMORYLESS
    necessary, nec_src = b.necessary_rate, FULL_SERVICE
    if (len(pools.n) == 1 or lower_src == MEMORYLESS) and lower_src != FULL_SERVICE and N / lower < necessary:
        # the N servers supply at most N of server time per unit time, whatever their speeds
        necessary = N / lower
        nec_src = "lambda E[C] < N (fork-join paper, section 4.1) with the lower cost bound"
    exact_rate = _same(necessary, b.sufficient_rate)
    exact_cost = _same(lower, upper)
    result = AnalyticResult(
        model.loads,
        lambda_max=model.to_load(necessary),
        lambda_max_kind="exact" if exact_rate else "necessary",
        lambda_sufficient=model.to_load(b.sufficient_rate),
        rho=model.rates() / necessary,
        cost=lower,
        cost_kind="exact" if exact_cost else "lower_bound",
        cost_lower=lower,
        cost_upper=upper,
    )
    sources = {lower_src, upper_src, nec_src} - {FULL_SERVICE}
    if sources:
        cost_src = "both: {lower_src}" if lower_src == upper_src else "lower: {lower_src}; upper: {upper_src}"
        text = (
            "{why}: server time per job in {cost} (" + cost_src + "); unstable above "
            "{necessary} (necessary: {nec_src}); stable below {sufficient} (sufficient: "
            "every replica served in full, replica_bounds)"
        )
    else:
        text = (
            "{why}: bounds from full-service accounting (replica_bounds): stable below "
            "{sufficient} (sufficient), unstable above {necessary} (necessary); server "
            "time per job in {cost}"
        )
    result.add_note(
        text,
        about=("lambda_max", "cost"),
        why=why,
        cost=Time((lower, upper)),
        lower_src=lower_src,
        upper_src=upper_src,
        necessary=Load(model.to_load(necessary)),
        nec_src=nec_src,
        sufficient=Load(model.to_load(b.sufficient_rate)),
    )
    return result


def _fill_bounds(
    result: AnalyticResult, model: CellModel, k: int, choice: str, why: str, paper: PaperCost | None = None
) -> AnalyticResult:
    """Fill what a paper's analysis of the cell leaves open (the stability bound, the
    cost) with :func:`_bounds`."""
    if math.isfinite(result.lambda_max) and math.isfinite(result.cost):
        return result
    bounds = _bounds(model, why, k, choice, paper)
    if not math.isfinite(result.lambda_max):
        result.lambda_max, result.lambda_max_kind = bounds.lambda_max, bounds.lambda_max_kind
        result.lambda_sufficient = bounds.lambda_sufficient
        result.rho = bounds.rho
    if not math.isfinite(result.cost):
        result.cost, result.cost_kind = bounds.cost, bounds.cost_kind
        result.cost_lower, result.cost_upper = bounds.cost_lower, bounds.cost_upper
    result.note_items.extend(bounds.note_items)
    return result


def _per_load(model: CellModel, fn) -> np.ndarray:
    return np.array([fn(lam) for lam in model.rates()], dtype=float)


def _rerouting(model: CellModel) -> AnalyticResult:
    """Rer: on identical servers the speculation paper's SLB (Theorems 1-2 and 4);
    with affinity the threshold paper's rerouting."""
    if not _homogeneous(model):
        if model.params.get("resume"):
            result = AnalyticResult(model.loads)
            result.add_note(
                "lambda_max, cost and latency_approx are NaN: the threshold paper "
                "analyses kill-and-restart only (Rer resume: true needs r_slow = 1)",
                about=("lambda_max", "cost", "latency_approx"),
            )
            return result
        return _threshold_policy(model, "rerouting")
    X, dep, N = model.size, model.dependence, model.N
    resume = bool(model.params.get("resume", False))
    bound = speculation.stability_bound(
        X, dep, N, tau=model.params.get("tau", "opt"), resume=resume, discipline=model.discipline
    )
    result = AnalyticResult(
        model.loads,
        lambda_max=bound.load,
        lambda_max_kind=bound.kind,
        tau_opt=bound.tau,
        cost=speculation.expected_work(bound.tau, X, dep, resume),
        cost_kind="exact",
    )
    result.rho = model.loads / bound.load
    result.add_note(f"speculation paper: {bound.note}", about="lambda_max")
    if model.discipline == "FCFS" and model.queueing == "per_server":
        result.latency_approx = _per_load(
            model, lambda lam: speculation.latency_approx(lam, bound.tau, X, dep, N, resume)
        )
        # tau = inf never re-routes: random dispatch, N M/G/1 queues (exact), as ZRed
        result.latency_approx_kind = "exact" if math.isinf(bound.tau) else "approximation"
    else:
        result.add_note(
            "latency_approx is NaN: the SLB latency approximation is for FCFS per-server queues", about="latency_approx"
        )
    return result


def _cancel_on_complete(model: CellModel) -> AnalyticResult:
    """CoC: redundancy-d with PS (PS paper); with FCFS the (N,1) fork-join queue
    when d = N (fork-join paper, section 5.1), the mean-field result for i.i.d.
    exponential replicas (Gardner et al. 2017, REFERENCES.md section 5), and for
    1 < d < N the fork-join paper's (n, r, 1) partial fork with uniform random
    choice (section 6.1 cost bounds, with the stability bound they imply) where
    its conditions hold (:func:`_partial_fork_cost`)."""
    X, dep, N, d = model.size, model.dependence, model.N, model.d
    if model.params.get("ps_bound") not in (None, "none"):
        result = AnalyticResult(model.loads)
        result.add_note(
            "lambda_max, cost and latency_approx are NaN: the PS bound systems are simulated only",
            about=("lambda_max", "cost", "latency_approx"),
        )
        return result
    if not _homogeneous(model):
        result = _bounds(model, "no paper analyses CoC with job-server affinity")
        result.add_note(
            "latency_approx is NaN: no paper gives the latency of CoC with job-server affinity", about="latency_approx"
        )
        return result
    if model.discipline == "PS":
        bound = redundancy_ps.stability_bound(X, dep, N, d)
        result = AnalyticResult(
            model.loads,
            lambda_max=bound.load,
            lambda_max_kind=bound.kind,
            lambda_sufficient=redundancy_ps.stability_sufficient(X, dep, N, d).load,
        )
        result.rho = model.loads / bound.load
        kinds = set()

        def latency(lam):
            value, kind = redundancy_ps.latency(lam, X, dep, N, d)
            kinds.add(kind)
            return value

        result.latency_approx = _per_load(model, latency)
        result.latency_approx_kind = kinds.pop() if len(kinds) == 1 else ""
        result.add_note(f"PS paper: {bound.note}", about="lambda_max")
        return _fill_bounds(result, model, 1, "completion", "the PS paper gives no server time per job")
    if d == 1:
        return _homogeneous_single_copy(model)  # one copy on a random server: M/G/1 each
    if d == N:
        rate = 1.0 / forkjoin.replica_min_moment(X, dep, N, 1)
        result = AnalyticResult(
            model.loads,
            lambda_max=model.to_load(rate),
            lambda_max_kind="exact",
            cost=N / rate,
            cost_kind="exact",
        )
        result.rho = model.rates() / rate
        result.latency_approx = _per_load(model, lambda lam: forkjoin.coc_full_replication(lam, X, dep, N).latency)
        result.latency_approx_kind = "exact"
        return result
    if isinstance(dep, IID) and X.family == "exponential":
        mu = 1.0 / X.mean()
        result = AnalyticResult(
            model.loads,
            lambda_max=1.0,
            lambda_max_kind="exact",
            cost=X.mean(),
            cost_kind="exact",
            rho=model.loads.copy(),
        )
        result.latency_approx = np.array([_mean_field_coc(rho, d) / mu for rho in model.loads])
        result.latency_approx_kind = "approximation"
        result.add_note(
            "i.i.d. exponential CoC: stability and cost exact (fork-join paper, "
            "section 6.1: E[C] = E[X]), latency the N -> infinity mean-field limit "
            "(Gardner et al. 2017)",
            about=("lambda_max", "cost", "latency_approx"),
        )
        return result
    paper, reason = _partial_fork_cost(model, d)
    where = (
        "CoC on FCFS queues with 1 < d < N, the fork-join paper's (n, r, 1) partial "
        "fork with uniform random choice (section 6, r = d)"
    )
    result = _bounds(model, where if paper else f"{where}; {reason}", paper=paper)
    result.add_note(
        "latency_approx is NaN: the fork-join paper gives the latency of the "
        "group-based (n, r, 1) partial fork only (section 6.1), not of uniform random "
        "choice (CoC), which section 6.3 compares with it in low traffic only",
        about="latency_approx",
    )
    return result


def _mean_field_coc(rho: float, d: int, terms: int = 100000) -> float:
    """E[T] mu = sum_n rho^n / (n (d - 1) + d): CoC with i.i.d. exponential replicas
    as N -> infinity (Gardner et al., Operations Research 65(4), 2017)."""
    if rho >= 1.0:
        return math.inf
    n = np.arange(terms, dtype=float)
    return float(np.sum(rho**n / (n * (d - 1) + d)))


def _cancel_on_start(model: CellModel) -> AnalyticResult:
    """CoS: one replica is served, so stability is that of load balancing
    (speculation paper, remark on CoS-d = LLW-d); d = N is M/G/N (fork-join
    paper, section 5.2: fork-early-cancel with k = 1)."""
    if not _homogeneous(model):
        result = _bounds(model, "no paper analyses CoS with job-server affinity", choice="start")
        result.add_note(
            "latency_approx is NaN: no paper gives the latency of CoS with job-server affinity", about="latency_approx"
        )
        return result
    X, dep, N, d = model.size, model.dependence, model.N, model.d
    bound = forkjoin.cos_stability(X, dep, N)
    result = AnalyticResult(
        model.loads,
        lambda_max=bound.load,
        lambda_max_kind=bound.kind,
        cost=dep.replica_mean(X),
        cost_kind="exact",
        rho=model.loads / bound.load,
    )
    if d == N and model.discipline == "FCFS" and not isinstance(dep, SX):
        estimates = [forkjoin.fork_early_cancel_n1(lam, X, N) for lam in model.rates()]
        result.latency_approx = np.array([e.latency for e in estimates])
        result.latency_approx_kind = estimates[0].latency_kind
    else:
        result.add_note(
            "latency_approx is NaN: the four papers give the latency of CoS only "
            "for d = N on FCFS queues (M/G/N, fork-join paper section 5.2)",
            about="latency_approx",
        )
    return result


def _fork_join(model: CellModel) -> AnalyticResult:
    """FJ, the generalised (n, r_f, r, k) fork-join of section 8.1 with n = N,
    r_f = d and r = keep, on i.i.d. tasks (with ``split: shift`` the task law is
    already ``ShiftedExp(Delta / k, mu)``, section 7.2).

    - d = 1 (whatever keep): one task on a random server, N M/G/1 queues (exact);
    - d = N, keep = d (plain (n, k) fork-join): exact for k = 1 (section 5.1);
      otherwise the tighter of Theorem 4's split-merge upper bound and, for k = n,
      Lemma 8's (``latency_approx``, kind ``upper_bound``), Theorem 4's lower
      bound (``latency_lower``), the cost bounds of section 7.1 (``cost_lower``,
      ``cost_upper``) and necessary stability;
    - d = N, keep = k (fork-early-cancel, section 7.3): cost k E[X]; k = 1 is
      M/G/n (section 5.2);
    - otherwise (r_f < n, or k < keep < d): the paper gives the latency of the
      group-based (n, r, k) system only, its section 8.2 estimate ``T_hat(r)``,
      stored as ``latency_group`` (not ``latency_approx``: the simulated system
      picks a random r_f of the n servers); cost bounds of section 6.1 for k = 1
      (:func:`_partial_fork_cost`, ``r = keep``), the stability bound they imply;
    - keep = opt: the section 8.2 strategy chooses keep at each load
      (:func:`_fork_join_strategy`);
    - job-server affinity, PS, or dependent tasks: the bounds of
      :mod:`.replica_bounds`; what the paper leaves open falls back to them too
      (:func:`_fill_bounds`, the tightest of both).

    Loads are in the model's load unit (with ``split: shift`` the unsplit job),
    so stability bounds are converted with :attr:`CellModel.load_mean`.
    """
    d = model.d
    k = int(model.params.get("k", 1))
    keep = model.params.get("keep", "d")
    # the first k to start run in full, chosen before their sizes are known
    choice = "start" if (model.params.get("early") or keep == k) else "completion"
    if not _homogeneous(model):
        result = _bounds(model, "no paper analyses FJ with job-server affinity", k, choice)
        result.add_note(
            "latency_approx is NaN: no paper gives the latency of FJ with job-server affinity", about="latency_approx"
        )
        return result
    if model.params.get("early"):
        keep = k
    elif keep == "d":
        keep = d
    if not isinstance(model.dependence, IID) or model.discipline != "FCFS":
        result = _bounds(model, "the fork-join paper's results need FCFS and i.i.d. tasks", k, choice)
        result.add_note(
            "latency_approx is NaN: the fork-join paper's results need FCFS and i.i.d. tasks", about="latency_approx"
        )
        return result
    if d == 1:  # r_f = r = k = 1 whatever keep says: one task on a random server
        result = _fork_join_paper(model, 1, 1)[0]
        if keep == "opt":
            result.keep_opt = np.ones(len(model.loads))
            result.add_note(
                "section 8.2 strategy with r_f = d = 1: keep 1 at every load (one "
                "task on a random server, the same system as keep: d)"
            )
        return result
    if keep == "opt":
        result, paper = _fork_join_strategy(model, k)
    else:
        result, paper = _fork_join_paper(model, k, int(keep))
    return _fill_bounds(
        result,
        model,
        k,
        choice,
        "the fork-join paper leaves this open" if paper is None else "FJ, the fork-join paper's partial fork",
        paper,
    )


def _kept_cost(model: CellModel, r: int, k: int) -> tuple[PaperCost | None, str]:
    """Cost bounds for FJ keeping ``r`` of its tasks (cancelling the others before
    they start) until ``k`` finish: ``r = k``: each kept task is served in full,
    ``k E[X]`` (section 7.3, fork-early-cancel); ``k = 1``: section 6.1
    (:func:`_partial_fork_cost`: the r kept tasks start at times that do not depend
    on their sizes); otherwise the paper gives none for r < n."""
    if r == k:
        c = k * model.size.mean()
        return PaperCost(c, c, "fork-join paper, section 7.3 (the k kept tasks are served in full: k E[X])"), ""
    if k == 1:
        return _partial_fork_cost(model, r)
    return None, "the fork-join paper gives cost bounds for k > 1 with all n tasks only"


def _group_latency(model: CellModel, result: AnalyticResult, rs, k: int) -> None:
    """``latency_group``: the section 8.2 estimate ``T_hat(r)`` at each load (``rs``:
    the r of each load), with its kind for the group-based system and a note."""
    N = model.N
    X = model.size
    values = [forkjoin.strategy_estimates(lam, X, N, int(r), k)[0] for lam, r in zip(model.rates(), rs)]
    result.latency_group = np.asarray(values, dtype=float)
    kinds = {("exact" if k == 1 else "upper_bound") if N % int(r) == 0 else "approximation" for r in rs}
    result.latency_group_kind = kinds.pop() if len(kinds) == 1 else "approximation"
    result.add_note(
        "latency_group is the fork-join paper's section 8.2 estimate T_hat(r) (r tasks "
        "starting together on one of n / r groups, rate lam r / n per group: group-based "
        "random (n, r, k), section 6), not the latency of the simulated system, which sends "
        "the tasks to a random r_f = d of the n servers",
        about="latency_group",
    )
    over = np.isinf(result.latency_group)
    if over.any():
        result.add_note(
            "latency_group is +inf at {loads}: a group of r servers is overloaded there (lam r / n E[X_{{k:r}}] >= 1)",
            about="latency_group",
            loads=Load(model.loads[over].tolist()),
        )


def _fork_join_paper(model: CellModel, k: int, keep: int) -> tuple[AnalyticResult, PaperCost | None]:
    """The fork-join paper's results for FJ (see :func:`_fork_join`), and the cost
    bounds to combine with the full-service ones where the paper's are partial."""
    X, N, d = model.size, model.N, model.d
    result = AnalyticResult(model.loads)

    def set_stability(rate: float, kind: str) -> None:
        result.lambda_max, result.lambda_max_kind = model.to_load(rate), kind
        result.rho = model.loads / result.lambda_max

    if d == 1:  # one task, k = keep = 1: N independent M/G/1 queues
        m1, m2 = X.mean(), X.second_moment()
        set_stability(N / m1, "exact")
        result.cost = result.cost_lower = result.cost_upper = m1
        result.cost_kind = "exact"
        result.latency_approx = _per_load(model, lambda lam: queues.mg1_fcfs_latency(lam / N, m1, m2))
        result.latency_approx_kind = "exact"
        return result, None
    if d == N and keep == d:
        necessary, sufficient = forkjoin.fork_join_stability(X, N, k)
        set_stability(necessary.rate, necessary.kind)
        result.lambda_sufficient = model.to_load(sufficient.rate)
        bounds = [forkjoin.fork_join_bounds(lam, X, N, k) for lam in model.rates()]
        result.latency_lower = np.array([b[0] for b in bounds])
        if k == 1:
            estimates = [forkjoin.fork_join_n1(lam, X, N) for lam in model.rates()]
            result.latency_approx = np.array([e.latency for e in estimates])
            result.latency_approx_kind = "exact"
            result.cost = result.cost_lower = result.cost_upper = estimates[0].cost
            result.cost_kind = "exact"
            return result, None
        split_merge = np.array([b[1] for b in bounds])
        result.latency_approx = split_merge
        result.latency_approx_kind = "upper_bound"
        if k == N:
            lemma8 = _per_load(model, lambda lam: forkjoin.fork_join_nn_upper_bound(lam, X, N))
            result.latency_approx = np.minimum(split_merge, lemma8)
            only = np.isinf(split_merge) & np.isfinite(lemma8)
            text = (
                "latency_approx: the smaller of Theorem 4's split-merge upper bound (M/G/1 "
                "with service X_{n:n}) and Lemma 8's for k = n (E[max of n independent "
                "M/G/1 response times], section 7.1)"
            )
            if only.any():
                result.add_note(
                    text.replace("{", "{{").replace("}", "}}") + "; only Lemma 8's is finite at {loads}",
                    about="latency_approx",
                    loads=Load(model.loads[only].tolist()),
                )
            else:
                result.add_note(text, about="latency_approx")
        over = np.isinf(result.latency_approx)
        if over.any():
            result.add_note(
                "latency_approx is +inf at {loads}: the bounding system is overloaded there "
                "(split-merge: lam E[X_{{k:n}}] >= 1); the fork-join system is stable up to at "
                "most lambda_max (necessary)",
                about="latency_approx",
                loads=Load(model.loads[over].tolist()),
            )
        cb = forkjoin.fork_join_cost_bounds(X, N, k)
        result.cost_lower, result.cost_upper = cb.lower, cb.upper
        result.cost = cb.lower
        # shifted exponential: both bounds are n Delta + k / mu, equal up to rounding
        if math.isclose(cb.lower, cb.upper, rel_tol=1e-12):
            result.cost_kind = "exact"
        elif math.isfinite(cb.lower):
            result.cost_kind = "lower_bound"
            result.add_note(
                "server time per job in {cost} (fork-join paper, section 7.1 cost bounds, {tail} tail)",
                about="cost",
                cost=Time((cb.lower, cb.upper)),
                tail=cb.tail_class,
            )
        return result, None
    if d == N and keep == k:
        bound = forkjoin.fork_early_cancel_stability(X, N, k)
        set_stability(bound.rate, bound.kind)
        result.cost = result.cost_lower = result.cost_upper = forkjoin.fork_early_cancel_cost(X, k)
        result.cost_kind = "exact"
        if k == 1:
            estimates = [forkjoin.fork_early_cancel_n1(lam, X, N) for lam in model.rates()]
            result.latency_approx = np.array([e.latency for e in estimates])
            result.latency_approx_kind = estimates[0].latency_kind
        else:
            result.add_note(
                "latency_approx is NaN: the fork-join paper gives the latency of "
                "(n, k) fork-early-cancel only for k = 1 (M/G/n, section 5.2)",
                about="latency_approx",
            )
        return result, None
    # r_f = d < n, or k < keep < d: the paper gives the group-based estimate only
    _group_latency(model, result, [keep] * len(model.loads), k)
    result.add_note(
        f"latency_approx is NaN: the fork-join paper gives no latency for the simulated "
        f"(n, r_f, r, k) = ({N}, {d}, {keep}, {k}) system (a random r_f of the n servers); see "
        f"latency_group",
        about="latency_approx",
    )
    paper, reason = _kept_cost(model, keep, k)
    if paper is None:
        result.add_note(reason, about="cost")
    return result, paper


def _fork_join_strategy(model: CellModel, k: int) -> tuple[AnalyticResult, PaperCost | None]:
    """FJ ``keep: opt``: the general strategy of section 8.2 at each load.

    ``r_f = d`` (the network limit; the paper conjectures the largest allowed
    r_f is best) and r = keep minimises the estimated latency ``T_hat(r)``
    subject to ``C_hat(r) <= cost_limit`` (:func:`forkjoin.general_strategy`).
    ``T_hat`` and ``C_hat`` describe group-based random (n, r, k) (r tasks starting
    together; section 8.2 says they abstract from r_f and the start times), so
    ``T_hat`` goes to ``latency_group``; ``latency_approx`` only where the chosen
    system is the one ``T_hat`` describes (r = r_f = n: the (n, k) fork-join, exact
    for k = 1, split-merge upper bound otherwise). The cost: the bounds of
    :func:`_kept_cost` over the r chosen at the loads (the cell has one cost).
    """
    X, N, d = model.size, model.N, model.d
    c_max = float(model.params.get("cost_limit", math.inf))
    result = AnalyticResult(model.loads)
    if k > d:
        result.add_note(
            f"lambda_max, cost and latency_approx are NaN: keep: opt needs k <= d, got k = {k}, d = {d}",
            about=("lambda_max", "cost", "latency_approx"),
        )
        return result, None
    choices = [forkjoin.general_strategy(lam, X, N, k, c_max, rf_max=d) for lam in model.rates()]
    rs = [c.r for c in choices]
    result.keep_opt = np.array(rs, dtype=float)
    _group_latency(model, result, rs, k)
    full = np.array([r == d == N for r in rs])
    if full.any():
        result.latency_approx = np.where(full, result.latency_group, math.nan)
        result.latency_approx_kind = "exact" if k == 1 else "upper_bound"
    if not full.all():
        result.add_note(
            "latency_approx is NaN at {loads}: the fork-join paper gives no latency for the "
            "simulated (n, r_f, r, k) system with r_f = d = {d} (section 8.2's T_hat, in "
            "latency_group, is the group-based system's)",
            about="latency_approx",
            loads=Load(model.loads[~full].tolist()),
            d=d,
        )
    result.add_note(
        "section 8.2 strategy, r_f = d = {d}, cost limit {c_max}: keep {rs} at {loads} (C_hat {c_hat})",
        d=d,
        c_max=Time(c_max),
        rs=rs,
        loads=Load(tuple(model.loads.tolist())),
        c_hat=Time(tuple(c.cost_estimate for c in choices)),
    )
    infeasible = [float(lo) for lo, c in zip(model.loads, choices) if not c.feasible]
    if infeasible:
        result.add_note("no keep meets the cost limit at {loads}: the cheapest is used", loads=Load(tuple(infeasible)))
    costs = [_kept_cost(model, r, k) for r in sorted(set(rs))]
    if all(c is not None for c, _ in costs):
        paper = PaperCost(
            min(c.lower for c, _ in costs),
            max(c.upper for c, _ in costs),
            "; ".join(c.source for c, _ in costs) + " (over the chosen keep)",
        )
        return result, paper
    result.add_note(next(reason for c, reason in costs if c is None), about="cost")
    return result, None


def _redundant_to_idle(model: CellModel) -> AnalyticResult:
    """Copies to the idle servers among d sampled: the speculation paper simulates
    it (Fig. 2) but gives no analysis; at least one replica is served in full, so the full-service bounds apply. On
    identical FCFS servers with i.i.d. replicas a job gets R in 1..d replicas
    (the idle ones among the d sampled, or one), all starting at once, so its
    cost is ``R E[X_{1:R}]`` (fork-join paper, section 5.1) with R independent of
    its sizes, and ``r E[X_{1:r}]`` is monotone in r (section 4.2): E[C] lies
    between ``E[X]`` and ``d E[X_{1:d}]``, the section 6.1 bounds with r = d."""
    why = f"none of the four papers analyses {model.policy} (the speculation paper simulates it)"
    paper = None
    if _homogeneous(model):
        paper, reason = _partial_fork_cost(model, model.d, source=None)
        if paper is not None:
            paper = replace(
                paper,
                source="fork-join paper, sections 4.2 and 5.1 (R replicas "
                "started together cost R E[X_{1:R}], monotone in R <= d)",
            )
    result = _bounds(model, why, paper=paper)
    result.add_note(
        f"latency_approx is NaN: none of the four papers gives the latency of {model.policy}", about="latency_approx"
    )
    return result


HANDLERS = {
    "zero_redundancy": _zero_redundancy,
    "known_types": lambda model: _zero_redundancy(model, knowledge="known"),
    "full_redundancy": _full_redundancy,
    "rerouting": _rerouting,
    "replication": lambda model: _threshold_policy(model, "replication"),
    "known_sizes": _known_sizes,
    "cancel_on_complete": _cancel_on_complete,
    "cancel_on_start": _cancel_on_start,
    "fork_join": _fork_join,
    "redundant_to_idle": _redundant_to_idle,
}
"""The analyses by name: a policy names its own in the registry (PolicySpec.analysis)."""
