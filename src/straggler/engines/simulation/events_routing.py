"""The event engine's arrivals (:mod:`.events`): the arriving job's type, where its
replicas go per policy (:func:`route_one`, :func:`route_fred`, :func:`route_sampled`)
and how long each runs, read from the streams' blocks in the order of the random-number
contract (:mod:`.contract`); and the interarrival times (:func:`next_exponential`).
"""

from __future__ import annotations

import numpy as np

from ...model import policies
from ...model.dependence import IDENTICAL_CODE, IID_CODE, MIXTURE_CODE, PAIRS_CODE, SX_CODE
from ...model.distributions.sampling import size_of_type
from . import statistics as S
from .events_state import Cursor, event_part
from .streams import distinct_servers, refill_exponential, refill_family, refill_uniform

# ---------------------------------------------------------------- streams


@event_part
def refill_for_arrival(st, dep, need_u, need_x, ui, xi, si):
    """The read positions (ui, xi, si), each stream's block refilled if an arrival
    could read past its end."""
    BU = st.ub.shape[0]
    BX = st.xb.shape[0]
    if ui > BU - need_u:
        ui = refill_uniform(st.ru, st.ub, ui)
    if xi > BX - need_x:
        if dep == MIXTURE_CODE:  # the coupling block, at the sizes' position (the same shift)
            refill_uniform(st.rc, st.cb, xi)
        xi = refill_family(st.xc, st.x_params, st.rx, st.xb, xi)
    if dep == SX_CODE and si > BX - need_x:
        si = refill_family(st.sc, st.s_params, st.rs, st.sb, si)
    elif (dep == IID_CODE or dep == MIXTURE_CODE or dep == PAIRS_CODE) and si > BX - need_x:
        si = refill_family(st.xc, st.x_params, st.rs, st.sb, si)
    return ui, xi, si


@event_part
def own_sizes(su, st, xi):
    """Whether the arriving job's replicas after the first take their own sizes from the
    second size stream: iid, and the mixture's jobs that are not coupled (the job's
    coupling uniform, ``cb[xi]`` at its size's index, not below c)."""
    if su.dep == MIXTURE_CODE:
        return not st.cb[xi] < st.coupling
    return su.dep == IID_CODE or su.dep == PAIRS_CODE


@event_part
def job_size(st, j, v):
    """A type-``j`` job's size from the value ``v`` of a size stream (the value itself
    but for a law per job type: :func:`~straggler.model.distributions.sampling.size_of_type`)."""
    return size_of_type(st.xc, st.x_params, j, v)


@event_part
def next_exponential(st, cur):
    """The next standard exponential of the arrivals stream: (it, the cursor after)."""
    e = cur.e
    if e >= st.eb.shape[0]:
        e = refill_exponential(st.re, st.eb, e)
    return st.eb[e], Cursor(e + 1, cur.u, cur.x, cur.s, cur.free_r, cur.free_j)


# ---------------------------------------------------------------- routing


@event_part
def job_type(su, st, cur):
    """The arriving job's type (one type: 0), from the arrivals stream: (it, the
    cursor after)."""
    j = 0
    if su.J > 1:  # a uniform, 1 - exp(-e)
        v, cur = next_exponential(st, cur)
        ut = -np.expm1(-v)
        while j < su.J - 1 and ut >= su.type_cdf[j]:
            j += 1
    return j, cur


@event_part
def _idle(qu, central, q):
    return qu.length[q] < qu.servers[q] if central else qu.length[q] == 0


@event_part
def route_fred(su, qu, st, stats, measured, j, srv, dur, ui, xi, si):
    """FRed: one replica in each pool. Returns the replicas placed and the new
    read positions."""
    ub = st.ub
    if su.central:
        srv[0] = 0
        srv[1] = 1
    else:
        srv[0] = int(ub[ui] * su.p1)
        srv[1] = su.p1 + int(ub[ui + 1] * (su.N - su.p1))
        ui += 2
    if measured:
        for r in range(2):
            S.see(stats.acc, r, _idle(qu, su.central, srv[r]))
    x = job_size(st, j, st.xb[xi])
    own = own_sizes(su, st, xi)
    for r in range(2):
        if own and r > 0:
            x = job_size(st, j, st.sb[si])
        du = x * su.inv_speeds[r, j]
        if su.dep == SX_CODE:
            du *= st.sb[si + r]
        dur[r] = du
    xi += 1
    if su.dep == IID_CODE or su.dep == MIXTURE_CODE or su.dep == PAIRS_CODE:
        si += 1
    elif su.dep == SX_CODE:
        si += 2
    return 2, ui, xi, si


@event_part
def route_sampled(su, qu, st, stats, measured, j, perm, srv, dur, ui, xi, si):
    """CoC, CoS, RIQ, FJ: d distinct servers, then the replicas that run (CoC all
    d; CoS, RIQ and FJ, on PS, where every replica starts when it joins).
    Returns the replicas placed and the new read positions."""
    d = su.d
    ui = distinct_servers(perm, su.N, d, srv, st.ub, ui)
    qn = qu.length
    if measured:
        for i in range(d):
            S.see(stats.acc, 0 if srv[i] < su.p1 else 1, qn[srv[i]] == 0)
    nr = d
    policy = su.policy
    if policy == policies.FJ_CODE:
        nr = su.k if su.early else d
    elif policy == policies.RIQ_CODE:
        nr = 0
        for i in range(d):
            s = srv[i]
            if qn[s] == 0:
                srv[nr] = s
                nr += 1
        if nr == 0:
            nr = 1
    elif policy == policies.COS_CODE:
        nr = 1
    x0 = job_size(st, j, st.xb[xi])
    x = x0
    own = own_sizes(su, st, xi)
    for r in range(nr):
        if own:
            x = x0 if r == 0 else job_size(st, j, st.sb[si + r - 1])
        du = x * su.inv_speeds[0 if srv[r] < su.p1 else 1, j]
        if su.dep == SX_CODE:
            du *= st.sb[si + r]
        dur[r] = du
    # every job takes d replica sizes, whichever run (common random numbers)
    xi += 1
    if su.dep == IID_CODE or su.dep == MIXTURE_CODE or su.dep == PAIRS_CODE:
        si += d - 1
    elif su.dep == SX_CODE:
        si += d
    return nr, ui, xi, si


@event_part
def route_one(su, qu, st, stats, measured, j, srv, dur, threshold, ui, xi, si):
    """ZRed, KT, Rer, Rep: a pool, then a server (or the pool's queue). Returns
    (its threshold, the second replica's queue, its service time) and the new
    read positions."""
    ub = st.ub
    i = 0
    if su.pools == 2:
        if ub[ui] >= su.alpha[0, j]:
            i = 1
        ui += 1
    if su.central:
        srv[0] = i
    else:
        lo = su.p_start[i]
        srv[0] = lo + int(ub[ui] * (su.p_start[i + 1] - lo))
        ui += 1
    if measured:
        S.see(stats.acc, i, _idle(qu, su.central, srv[0]))
    rt = np.inf
    q2 = -1
    d2 = 0.0
    if threshold:
        if su.dep == IID_CODE or su.dep == PAIRS_CODE:
            x0 = job_size(st, j, st.xb[xi])
            x1 = job_size(st, j, st.sb[si])
            xi += 1
            si += 1
        elif su.dep == IDENTICAL_CODE:
            x0 = job_size(st, j, st.xb[xi])
            x1 = x0
            xi += 1
        elif su.dep == MIXTURE_CODE:  # coupled: as identical, else as iid; one value of each
            x0 = job_size(st, j, st.xb[xi])
            x1 = job_size(st, j, st.sb[si]) if own_sizes(su, st, xi) else x0
            xi += 1
            si += 1
        else:
            x = job_size(st, j, st.xb[xi])
            xi += 1
            x0 = x * st.sb[si]
            x1 = x * st.sb[si + 1]
            si += 2
        du = x0 * su.inv_speeds[i, j]
        tau = su.tau0 if i == 0 else su.tau1
        if du > tau:
            rt = tau
            l = 1 - i
            if su.central:
                q2 = l
            else:
                lo = su.p_start[l]
                q2 = lo + int(ub[ui] * (su.p_start[l + 1] - lo))
                ui += 1
            if su.resume != 0 and not su.rep:
                d2 = (x0 - tau * su.speeds[i, j]) * su.inv_speeds[l, j]
            else:
                d2 = x1 * su.inv_speeds[l, j]
    else:
        du = job_size(st, j, st.xb[xi]) * su.inv_speeds[i, j]
        xi += 1
        if su.dep == SX_CODE:
            du *= st.sb[si]
            si += 1
    dur[0] = du
    return rt, q2, d2, ui, xi, si
