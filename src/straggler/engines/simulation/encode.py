"""Turn a :class:`~straggler.model.cell_model.CellModel` into plain arrays for numba kernels.

Every simulation engine (the FCFS fast path in :mod:`.fast`, the event-driven
engine) receives the same :class:`Encoded` model: two small parameter vectors and
a handful of arrays, so that the kernels have one stable signature and policy is
*data*, not code. The layout (all indices are module constants):

``ints`` (int64)
    ``I_POLICY`` the policy's kernel code (``PolicySpec.kernel_code``, named
    ``<POLICY>_CODE`` in :mod:`straggler.model.policies`); ``I_D`` replicas placed at
    arrival (the policies that use d: ``d``; FRed: 2; one-copy policies: 1); ``I_K`` FJ's k (1 otherwise);
    ``I_EARLY`` 1 when FJ cancels tasks on start (keep them to the first
    ``I_KEEP`` to start: ``early: true`` or an integer ``keep``), 0 for plain FJ;
    ``I_KEEP`` the tasks kept, r of the (n, r_f = d, r, k) fork-join (CoS: 1; FJ:
    ``k <= keep <= d``; others: ``d``); ``I_RESUME`` Rer's resume flag;
    ``I_N`` servers; ``I_POOLS`` 1 (homogeneous, ``model.system is None``) or 2;
    ``I_POOL0``, ``I_POOL1``, ``I_POOL2`` pool boundaries: the servers of pool i
    are ``pool_start[i] .. pool_start[i+1]-1`` (pool 0 first, contiguous);
    ``I_J`` job types; ``I_DEP``, ``I_XCODE``, ``I_SCODE`` the dependence code and
    the size / slowdown family codes of :func:`straggler.model.dependence.sample_replicas`;
    ``I_DISCIPLINE`` (``FCFS`` / ``PS``), ``I_QUEUEING`` (``PER_SERVER`` /
    ``CENTRAL``), ``I_PS_BOUND`` (``BOUND_NONE`` / ``BOUND_LOWER`` /
    ``BOUND_UPPER``); ``I_CHECK`` the stability checkpoint interval in arrivals.

``flts`` (float64)
    ``F_TAU0``, ``F_TAU1``: Rer/Rep thresholds by *first* pool (``inf``: never);
    ``F_REPLICA_MEAN``: the load unit, ``E[size of one replica]`` (FJ with
    ``split: shift``: of the unsplit job, :attr:`~straggler.model.cell_model.CellModel.load_mean`);
    ``F_MONITOR_WAIT``: the work per server before the backlog monitor may fire
    (:func:`~straggler.engines.simulation.statistics.monitor_wait` at the slowest speed).
    ``F_POLICY`` .. ``F_POLICY + POLICY_SLOTS - 1``: the policy's numeric parameters
    that its kernel branch reads, in the order of its ``PolicySpec.kernel_parameters``
    (a new parametrised policy is encoded without code here); ``F_CANCEL_DELAY`` the time
    a cancelled copy in service keeps its server (``system.cancel_delay``, 0: instant).

arrays
    ``speeds[i, j]`` = r_ij (shape ``pools x J``) and ``inv_speeds = 1 / speeds``
    (a replica of size x on a server of pool i takes ``x * inv_speeds[i, j]``:
    engines and the reference simulator use this product, never ``x / r``, so
    their floating-point results agree bit for bit); ``type_cdf[j]`` the
    cumulative type probabilities (last entry exactly 1); ``alpha[i, j]`` the
    probability that a type-j job is first sent to pool i (shape ``pools x J``);
    ``x_params``, ``s_params`` the sampler parameters.

Server choice (documented here because every engine and the reference must draw
the same random numbers in the same order, see :mod:`.contract`): a one-copy policy
picks a pool with one uniform against ``alpha[0, j]`` (no draw with one pool),
then a server of that pool as ``start + int(u * n_pool)``; FRed draws one server
per pool (pool 0 first); the policies that use d draw d distinct servers among all
N by a partial Fisher-Yates shuffle of a permutation kept across jobs (O(d),
no rejection, flat in N).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...model import policies
from ...model.dependence import sampler_args
from ...model.policies import POLICIES

# ---------------------------------------------------------------- policy codes
#: the kernels' policy codes, from the registry (PolicySpec.kernel_code)
POLICY_CODES = {name: spec.kernel_code for name, spec in POLICIES.items() if spec.kernel_code is not None}
POLICY_NAMES = {v: k for k, v in POLICY_CODES.items()}
#: policies that choose a pool first (with alpha, ``PolicySpec.picks_pool``); FRed
#: takes one server per pool, the d-of-N policies choose among all N
POOL_POLICIES = frozenset(
    spec.kernel_code for spec in POLICIES.values() if spec.picks_pool and spec.kernel_code is not None
)

FCFS, PS = 0, 1
PER_SERVER, CENTRAL = 0, 1
BOUND_NONE, BOUND_LOWER, BOUND_UPPER = 0, 1, 2
_DISCIPLINES = {"FCFS": FCFS, "PS": PS}
_QUEUEING = {"per_server": PER_SERVER, "central": CENTRAL}
_BOUNDS = {None: BOUND_NONE, "none": BOUND_NONE, "lower": BOUND_LOWER, "upper": BOUND_UPPER}

# ---------------------------------------------------------------- ints layout
(
    I_POLICY,
    I_D,
    I_K,
    I_EARLY,
    I_RESUME,
    I_N,
    I_POOLS,
    I_POOL0,
    I_POOL1,
    I_POOL2,
    I_J,
    I_DEP,
    I_XCODE,
    I_SCODE,
    I_DISCIPLINE,
    I_QUEUEING,
    I_PS_BOUND,
    I_CHECK,
    I_KEEP,
) = range(19)
N_INTS = 19
# ---------------------------------------------------------------- flts layout
F_TAU0, F_TAU1, F_REPLICA_MEAN, F_MONITOR_WAIT, F_POLICY = range(5)
POLICY_SLOTS = 4
F_CANCEL_DELAY = F_POLICY + POLICY_SLOTS
N_FLTS = F_CANCEL_DELAY + 1


CHECKS_PER_WAIT = 16
"""The monitor's resolution: at least this many checkpoints per monitor wait (when
the scan's cost allows), so that its verdict is not quantised by the checkpoints."""


def replicas_per_job(enc: Encoded) -> int:
    """The replica sizes every job takes from the streams: ``d`` for a policy that
    places d replicas, else the registry's ``PolicySpec.replicas`` (1 or 2)."""
    code = int(enc.ints[I_POLICY])
    spec = next(p for p in policies.POLICIES.values() if p.kernel_code == code)
    return int(enc.ints[I_D]) if spec.uses_d else int(spec.replicas)


def check_interval(N: int, wait: float = math.inf, work_per_arrival: float = 1.0) -> int:
    """Arrivals between two stability checkpoints.

    At most ``4096`` and about ``1 / CHECKS_PER_WAIT`` of the arrivals that bring
    ``wait`` of work to each server (``N wait / work_per_arrival``, with the
    largest work an arrival may bring, so the estimate errs towards more
    checkpoints); at least ``16 N``, so that the O(N) backlog scan costs at most
    1/16 of a server lookup per job, and at least 256, so that the monitor's
    history stays small (10^8 arrivals: 4 10^5 rows). With N = 1 and exponential
    sizes the old fixed 4096 arrivals were 1.7 waits apart, and a load of 1.05
    needed a median of 13.5 waits to be flagged.
    """
    per_wait = N * wait / work_per_arrival if work_per_arrival > 0 else math.inf
    fine = min(4096.0, per_wait / CHECKS_PER_WAIT)
    return int(max(16 * int(N), 256, fine))


@dataclass(frozen=True)
class Encoded:
    """A model as kernel data (see the module docstring for the layout)."""

    ints: np.ndarray
    flts: np.ndarray
    speeds: np.ndarray
    inv_speeds: np.ndarray
    type_cdf: np.ndarray
    alpha: np.ndarray
    x_params: np.ndarray
    s_params: np.ndarray

    def kernel_args(self) -> tuple:
        """The model arguments of every engine kernel, in signature order."""
        return (
            self.ints,
            self.flts,
            self.speeds,
            self.inv_speeds,
            self.type_cdf,
            self.alpha,
            self.x_params,
            self.s_params,
        )

    # convenient read access (Python side)
    @property
    def policy(self) -> int:
        """The policy's kernel code (:attr:`straggler.model.policies.PolicySpec.kernel_code`)."""
        return int(self.ints[I_POLICY])

    @property
    def N(self) -> int:
        """The number of servers."""
        return int(self.ints[I_N])

    @property
    def d(self) -> int:
        """The replicas placed at arrival (``d``; FRed 2; a one-copy policy 1)."""
        return int(self.ints[I_D])

    @property
    def pool_start(self) -> tuple[int, int, int]:
        """The pool boundaries: pool i is servers ``pool_start[i] .. pool_start[i+1] - 1``."""
        return int(self.ints[I_POOL0]), int(self.ints[I_POOL1]), int(self.ints[I_POOL2])

    @property
    def pool_of(self) -> np.ndarray:
        """The pool (0 or 1) of each server: pools are contiguous ranges."""
        return (np.arange(self.N) >= int(self.ints[I_POOL1])).astype(np.int64)

    @property
    def tau(self) -> tuple[float, float]:
        """The thresholds by a job's first pool (``inf``: never)."""
        return float(self.flts[F_TAU0]), float(self.flts[F_TAU1])

    @property
    def cancel_delay(self) -> float:
        """The time a cancelled copy in service keeps its server (``F_CANCEL_DELAY``)."""
        return float(self.flts[F_CANCEL_DELAY])

    @property
    def replica_mean(self) -> float:
        """The load unit: the mean size of one replica (``F_REPLICA_MEAN``)."""
        return float(self.flts[F_REPLICA_MEAN])


def resolve_alpha(model, alpha=None) -> np.ndarray:
    """The first-pool assignment ``alpha[i, j]`` (pools x J) that the simulation uses.

    ``alpha`` may be a ``2 x J`` matrix, a per-class vector ``q`` (the fraction of
    each believed class sent first to pool 1, turned into alpha by
    :func:`~straggler.model.two_pools.assignment_fractions`, so for unknown
    types ``alpha_1j = q`` for all j) or a scalar q. ``None``: random dispatch
    over all N servers (``alpha_ij = n_i / N``) except for KT
    (``PolicySpec.type_aware_alpha``), whose type-aware optimal assignment is
    computed as the analysis does. With one pool
    (``model.system is None``) it is ``[[1, ..., 1]]``.
    """
    system = model.system
    if system is None:
        return np.ones((1, 1))
    J = system.n_types
    if alpha is None:
        if POLICIES[model.policy].type_aware_alpha:
            from dataclasses import replace

            from ...model import two_pools

            known = replace(system, belief=two_pools.belief_matrix("known", J))
            bound = two_pools.optimal_assignment_no_redundancy(known, model.size, model.dependence)
            return two_pools.assignment_fractions(known, bound.q)
        share = system.n[0] / system.servers
        return np.vstack([np.full(J, share), np.full(J, 1.0 - share)])
    a = np.asarray(alpha, dtype=float)
    if a.ndim == 2:
        if a.shape != (2, J):
            raise ValueError(f"alpha must be a 2 x J = 2 x {J} matrix, got shape {a.shape}")
    else:
        from ...model.two_pools import assignment_fractions

        q = np.atleast_1d(a)
        C = len(system.belief[0])
        if q.size == 1 and C > 1:
            q = np.full(C, float(q[0]))
        if q.size != C:
            raise ValueError(f"q must have one entry per believed class ({C}), got {q.tolist()}")
        a = assignment_fractions(system, q)
    if np.any(a < -1e-12) or np.any(np.abs(a.sum(axis=0) - 1.0) > 1e-9):
        raise ValueError(f"alpha must be non-negative with columns summing to 1, got {a.tolist()}")
    return np.clip(a, 0.0, 1.0)


def resolve_tau(model, tau=None) -> tuple[float, float]:
    """``(tau_1, tau_2)``: the threshold by first pool (the policies with a ``tau``
    parameter, Rer and Rep; ``inf`` otherwise).

    ``tau`` (a number or a pair) overrides the model's ``params['tau']``; a model
    whose tau is ``opt`` needs the analysis's choice passed as ``tau``.
    """
    if "tau" not in POLICIES[model.policy].parameters:
        return (math.inf, math.inf)
    if tau is None:
        tau = model.params.get("tau", "opt")
        if isinstance(tau, str):
            raise ValueError(
                f"{model.policy} has tau = {tau!r}: pass the threshold the analysis chose (simulate(..., tau=tau_opt))"
            )
    t = np.broadcast_to(np.asarray(tau, dtype=float), (2,))
    if np.any(np.isnan(t)) or np.any(t < 0):
        raise ValueError(f"tau must be in [0, inf], got {tau!r}")
    return float(t[0]), float(t[1])


def resolve_keep(model, keep=None) -> tuple[int, int]:
    """``(keep, early)`` of an FJ model with ``k`` and ``d``: the tasks kept and
    whether the kernel cancels tasks on start.

    ``keep`` (an integer) overrides ``params['keep']``; a model whose keep is
    ``opt`` needs the analysis's choice passed as ``keep``. ``keep: d`` is plain
    fork-join (early 0); ``early: true`` is keep = k; an integer keep cancels on
    start (early 1) unless it is d with k < d, plain fork-join again. So keep = k
    gives bitwise the results of ``early: true``, and keep = d (k < d) those of
    plain fork-join.
    """
    d = int(model.d)
    k = int(model.params.get("k", 1))
    value = model.params.get("keep", "d") if keep is None else keep
    early = bool(model.params.get("early", False))
    if isinstance(value, str) and value not in ("d", "opt"):
        raise ValueError(f"{model.policy}: keep must be an integer, d or opt, got {value!r}")
    if value == "opt":
        raise ValueError(
            f"{model.policy} has keep = 'opt': pass the keep the analysis chose (simulate(..., keep=keep_opt))"
        )
    if early:
        if value not in ("d", k):
            raise ValueError(f"{model.policy}: early: true is keep = k = {k}, but keep = {value!r}")
        return k, 1
    if value == "d":
        return d, 0
    value = int(value)
    if not k <= value <= d:
        raise ValueError(f"{model.policy}: keep = {value} must be in k..d = {k}..{d}")
    return value, int(value < d or value == k)


def encode(model, alpha=None, tau=None, keep=None) -> Encoded:
    """Encode ``model`` (a :class:`~straggler.model.cell_model.CellModel`) for the kernels.

    ``alpha``, ``tau`` and ``keep`` are the assignment, threshold and FJ's kept
    tasks that the analysis chose (see :func:`resolve_alpha`, :func:`resolve_tau`,
    :func:`resolve_keep`).
    """
    spec = POLICIES.get(model.policy)
    if spec is None or spec.kernel_code is None:
        raise NotImplementedError(f"no simulation of policy {model.policy!r}")
    code = spec.kernel_code
    N = int(model.N)
    pools, pool_start, speeds, type_cdf = _pool_layout(model, code, N)
    alpha_m = _first_pool_alpha(model, code, pools, pool_start, speeds, alpha)
    tau_pair = resolve_tau(model, tau)
    d, k, early, kept = _replica_counts(model, code, N, keep)
    resume, bound = _policy_flags(model, code)

    dep_code, x_code, x_params, s_code, s_params = sampler_args(model.dependence, model.size)
    ints = np.zeros(N_INTS, dtype=np.int64)
    ints[I_POLICY] = code
    ints[I_D] = d
    ints[I_K] = k
    ints[I_EARLY] = early
    ints[I_RESUME] = resume
    ints[I_N] = N
    ints[I_POOLS] = pools
    ints[I_POOL0 : I_POOL2 + 1] = pool_start
    ints[I_J] = speeds.shape[1]
    ints[I_DEP] = dep_code
    ints[I_XCODE] = x_code
    ints[I_SCODE] = s_code
    ints[I_DISCIPLINE] = _DISCIPLINES[model.discipline]
    ints[I_QUEUEING] = _QUEUEING[model.queueing]
    ints[I_PS_BOUND] = _BOUNDS[bound]
    ints[I_KEEP] = kept
    ints[I_CHECK], wait = _monitor(model, N, speeds, kept)
    flts = np.zeros(N_FLTS, dtype=np.float64)
    flts[F_TAU0], flts[F_TAU1] = tau_pair
    flts[F_REPLICA_MEAN] = float(model.load_mean)
    flts[F_MONITOR_WAIT] = wait
    flts[F_POLICY : F_POLICY + POLICY_SLOTS] = policy_slots(model)
    flts[F_CANCEL_DELAY] = _cancel_delay(model, bound)
    speeds = np.ascontiguousarray(speeds, dtype=np.float64)
    return Encoded(
        ints=ints,
        flts=flts,
        speeds=speeds,
        inv_speeds=np.ascontiguousarray(1.0 / speeds),
        type_cdf=np.ascontiguousarray(type_cdf, dtype=np.float64),
        alpha=np.ascontiguousarray(alpha_m, dtype=np.float64),
        x_params=x_params,
        s_params=s_params,
    )


def policy_slots(model) -> np.ndarray:
    """The policy's :attr:`~straggler.model.policies.PolicySpec.kernel_parameters` at the cell, as
    the kernels read them (unused slots 0)."""
    spec = POLICIES[model.policy]
    names = spec.kernel_parameters
    if len(names) > POLICY_SLOTS:
        raise ValueError(f"{model.policy}: {len(names)} kernel parameters, more than the {POLICY_SLOTS} slots")
    params = {**spec.parameters, **model.params}
    if spec.parameter_values is not None:  # relative to the law (Hedge's delay: p95)
        params = spec.parameter_values(model.size, params, model.dependence)
    slots = np.zeros(POLICY_SLOTS, dtype=np.float64)
    for i, name in enumerate(names):
        value = params.get(name)
        if not isinstance(value, (int, float)):  # a flag is 0 or 1
            raise ValueError(f"{model.policy}.{name} = {value!r}: a kernel parameter must be a number")
        slots[i] = float(value)
    return slots


def _pool_layout(model, code: int, N: int) -> tuple[int, tuple[int, int, int], np.ndarray, np.ndarray]:
    """``(pools, pool_start, speeds, type_cdf)`` of the model's servers, checked
    against what the policy needs."""
    system = model.system
    if system is None and model.size.per_type:  # one pool; the types differ in size only
        pools = 1
        pool_start = (0, N, N)
        speeds = np.ones((1, model.size.types))
        type_cdf = np.cumsum(np.asarray(model.size.p, dtype=float))
        type_cdf[-1] = 1.0
    elif system is None:
        pools = 1
        pool_start = (0, N, N)
        speeds = np.ones((1, 1))
        type_cdf = np.ones(1)
    else:
        pools = 2
        n0, n1 = system.n
        if n0 + n1 != N:
            raise ValueError(f"pools {system.n} do not add up to N = {N}")
        pool_start = (0, n0, n0 + n1)
        speeds = np.asarray(system.speeds, dtype=float)
        p = np.asarray(system.p, dtype=float)
        type_cdf = np.cumsum(p / p.sum())
        type_cdf[-1] = 1.0
    if code in (policies.FRED_CODE, policies.RER_CODE, policies.REP_CODE) and pools != 2:
        raise ValueError(f"{model.policy} needs two pools (model.system is None)")
    if code == policies.FRED_CODE and min(pool_start[1], N - pool_start[1]) < 1:
        raise ValueError(f"{model.policy} needs at least one server in each pool")
    if np.any(speeds <= 0) or not np.all(np.isfinite(speeds)):
        raise ValueError(f"speeds must be finite and > 0, got {speeds.tolist()}")
    if model.size.per_type and (model.size.types != speeds.shape[1] or model.size.p is None):
        # the kernels index the law's types by the system's: the two must be one list
        raise ValueError(
            f"the size law has {model.size.types} types (p = {model.size.p}) and the system "
            f"{speeds.shape[1]} (p = {None if system is None else system.p}): give the law one size law per job type"
        )
    if model.size.per_type and system is not None and tuple(model.size.p) != tuple(system.p):
        raise ValueError(f"the size law's type probabilities {model.size.p} are not the system's {system.p}")
    return pools, pool_start, speeds, type_cdf


def _first_pool_alpha(
    model, code: int, pools: int, pool_start: tuple[int, int, int], speeds: np.ndarray, alpha
) -> np.ndarray:
    """The first-pool assignment (:func:`resolve_alpha`), checked to send no job to an
    empty pool."""
    alpha_m = resolve_alpha(model, alpha)
    N = pool_start[2]
    if pools == 1:
        return np.ones((1, speeds.shape[1]))
    if code in POOL_POLICIES:
        for i in range(2):
            if pool_start[i + 1] == pool_start[i] and (
                code in (policies.RER_CODE, policies.REP_CODE) or alpha_m[i].max() > 0
            ):
                raise ValueError(
                    f"{model.policy} sends jobs to pool {i + 1}, which has no server "
                    f"(pools {pool_start[1]}, {N - pool_start[1]}; alpha {alpha_m.tolist()})"
                )
    return alpha_m


def _replica_counts(model, code: int, N: int, keep) -> tuple[int, int, int, int]:
    """``(d, k, early, kept)``: the replicas placed at arrival, FJ's k, whether tasks
    are cancelled on start, and the tasks kept (see the module docstring)."""
    d = 1
    k = 1
    early = 0
    if POLICIES[model.policy].uses_d:
        if model.d is None:
            raise ValueError(f"{model.policy} needs d")
        d = int(model.d)
        if not 1 <= d <= N:
            raise ValueError(f"{model.policy}: d = {d} must be in 1..N = {N}")
        kept = 1 if code == policies.COS_CODE else d
        if code == policies.HEDGE_CODE and not _hedges(model):
            kept = 1  # a hedge that never fires is ZRed, down to the monitor's checkpoints
        if code == policies.FJ_CODE:
            k = int(model.params.get("k", 1))
            if not 1 <= k <= d:
                raise ValueError(f"{model.policy}: k = {k} must be in 1..d = {d}")
            kept, early = resolve_keep(model, keep)
    elif code == policies.FRED_CODE:
        d = 2
        kept = 2
    else:
        kept = 1
    return d, k, early, kept


def _hedges(model) -> bool:
    """Can a Hedge model send a second copy (a finite delay, a budget above 0, d > 1)?"""
    delay, budget = policy_slots(model)[:2]  # its kernel parameters: delay, max_extra_load
    return math.isfinite(delay) and budget > 0.0 and int(model.d) > 1


def _policy_flags(model, code: int) -> tuple[int, str | None]:
    """``(resume, ps_bound)``: Rer's resume flag and CoC's bound system, checked with
    the discipline and the queueing."""
    resume = int(bool(model.params.get("resume", False))) if code == policies.RER_CODE else 0
    bound = model.params.get("ps_bound") if code == policies.COC_CODE else None
    if bound not in _BOUNDS:
        raise ValueError(f"{model.policy} ps_bound must be null, lower or upper, got {bound!r}")
    if model.discipline not in _DISCIPLINES:
        raise ValueError(f"discipline must be FCFS or PS, got {model.discipline!r}")
    if model.queueing not in _QUEUEING:
        raise ValueError(f"queueing must be per_server or central, got {model.queueing!r}")
    return resume, bound


def _cancel_delay(model, bound) -> float:
    """The cancellation delay, checked: a number >= 0, and 0 in CoC's PS bound systems
    (their rates are defined by the queue lengths of a job's servers, which a cancelled
    copy has left)."""
    delay = float(getattr(model, "cancel_delay", 0.0))
    if not delay >= 0.0 or not np.isfinite(delay):
        raise ValueError(f"cancel_delay must be a finite number >= 0, got {delay!r}")
    if delay > 0.0 and bound not in (None, "none"):
        raise ValueError(f"{model.policy} ps_bound = {bound}: the PS bound systems have no cancellation delay")
    return delay


def _monitor(model, N: int, speeds: np.ndarray, kept: int) -> tuple[int, float]:
    """``(check interval, monitor wait)``: the backlog monitor's settings at the
    slowest speed (:func:`~straggler.engines.simulation.statistics.monitor_wait`)."""
    from .statistics import monitor_wait

    m1, m2 = model.dependence.replica_marginal_moments(model.size)
    slow = float(np.max(1.0 / speeds))
    wait = monitor_wait(m1 * slow, m2 * slow * slow)
    return check_interval(N, wait, kept * m1 * slow), wait
