"""The numba kernels of the mean-field tier: the forward march of the level-crossing
(Volterra) equation over the cells of a uniform grid, and the convolutions that give
the point values of ``P(Y <= w < Y + X)``.

The scheme (a finite-volume form of the forward march of the fixed-point equation in
Hellemans, Bodas and Van Houdt, "Performance analysis of workload dependent load
balancing policies", POMACS 3(2) 2019): the unknowns are the masses ``p_k = P(w_k < U <= w_{k+1})``
of the workload in the cells of the grid ``w_k = k h``, spread uniformly within a cell, so
that ``Fbar`` is piecewise linear. Every term ``P(Y <= w < Y + X)`` of an up-crossing rate
(``Y`` the workload, or the least of d of them, or of d - 1) is a convolution of the law
of ``Y`` with ``S``; averaged over cell ``k`` it is exactly

    G_k = a0 A[k] + sum_{j <= k} m_j delta[k - j]

where ``a0`` is ``P(Y = 0)``, ``m_j`` the mass of ``Y`` in cell ``j`` and ``A``, ``delta`` the
integrals of ``S`` against the cell and against the hat over two cells
(:mod:`.tables`): ``S`` enters only integrated, so an atom of the job size costs no
order of accuracy. The rate is then integrated over the cell by the product of the
cell averages (second order). The current cell's mass appears on both sides with a
weight ``O(h)``: a secant iteration solves it.

The past of each convolution is pushed forward (``acc[k + m] += m_k delta[m]``) rather
than summed at each step: an axpy over contiguous memory with no sum to reorder, and
the sequences a form needs share one loop over ``delta`` (measured: some 40 % faster
than one dot product per step and sequence).
"""

from __future__ import annotations

import numpy as np

from ...common.kernel_cache import kernel

#: the forms of the level-crossing equation, by the policy they come from
FORM_ONE = 0  # one copy to a random server (M/G/1)
FORM_LEAST = 1  # one copy to the least loaded of d (cancel on start)
FORM_REDUNDANT = 2  # d copies, cancel on complete (identical share c, i.i.d. 1 - c)
FORM_IDLE = 3  # copies to the idle among d, else one copy

#: a march that leaves [-BLOWUP, BLOWUP] has a wrong busy probability: it stops there
BLOWUP = 4.0


@kernel(nogil=True)
def _cell_mass(form, d, lam, b, c, h, fk, a_k, m_k, past_p, past_q, past_v, delta0, x0):
    """The mass ``x`` of the current cell: the fixed point of ``x = h * rate(x)`` by a
    secant iteration from ``x0`` (the rate's dependence on ``x`` has weight O(h))."""
    bd = b**d
    bd1 = b ** (d - 1)
    fkd = fk**d
    fkd1 = fk ** (d - 1)

    def rate_times_h(x):
        f1 = fk - x
        fm = fk - 0.5 * x
        if form == FORM_ONE:
            gu = (1.0 - b) * a_k + past_p + x * delta0
            return h * lam * gu
        if form == FORM_IDLE:
            return h * (lam * d * (1.0 - b) * m_k + lam * bd1 * (past_p + x * delta0))
        q = fkd - f1**d
        gmin = (1.0 - bd) * a_k + past_q + q * delta0
        if form == FORM_LEAST:
            return h * lam * gmin
        total = 0.0
        if c > 0.0:
            v = fkd1 - f1 ** (d - 1)
            gv = (1.0 - bd1) * a_k + past_v + v * delta0
            total += c * (gmin - fm * gv)
        if c < 1.0:
            gu = (1.0 - b) * a_k + past_p + x * delta0
            total += (1.0 - c) * gu * (fm + gu) ** (d - 1)
        return h * lam * d * total

    xa = x0
    ra = rate_times_h(xa) - xa
    xb = xa + ra
    for _ in range(60):
        rb = rate_times_h(xb) - xb
        if rb == 0.0 or abs(rb) <= 1e-15 * (abs(xb) + 1e-300):
            return xb
        den = rb - ra
        if den == 0.0:
            return xb
        xn = xb - rb * (xb - xa) / den
        xa, ra = xb, rb
        xb = xn
        if not np.isfinite(xb):
            return xb
    return xb


@kernel(nogil=True)
def march(form, d, lam, b, c, h, A, delta, M, n, stop_on_cross):
    """March the level-crossing equation over ``n`` cells from ``Fbar(0) = b``.

    ``A[k]``: the cell average of ``S``; ``delta``: the hat integrals (``delta[0]`` the
    half hat), zero beyond its length; ``M[k]``: the cell average of ``E[P(M_K > w)]``
    (the idle form's new busy periods; unused by the others). Returns ``(Fbar, p, cp,
    cq, cv, crossed)``: ``Fbar`` at the n + 1 grid points, the cell masses of ``U``, the
    convolutions (current cell included) of the masses of ``U``, of its least of d and
    of its least of d - 1 with ``delta``, and the first grid point where ``Fbar < 0``
    (-1: none). With ``stop_on_cross`` it stops there (the busy probability is too
    small); it stops anyway where ``|Fbar|`` leaves ``[-BLOWUP, BLOWUP]``, and then the
    arrays beyond are left at their last value (Fbar) or zero.
    """
    L = delta.shape[0]
    Fbar = np.zeros(n + 1)
    p = np.zeros(n)
    conv = np.zeros((3, n))  # the convolutions of U, U_min and V, current cell included
    acc = np.zeros((3, n))  # their past parts, pushed forward
    need = np.zeros(3, dtype=np.bool_)
    need[0] = form == FORM_ONE or form == FORM_IDLE or (form == FORM_REDUNDANT and c < 1.0)
    need[1] = form == FORM_LEAST or (form == FORM_REDUNDANT and c > 0.0)
    need[2] = form == FORM_REDUNDANT and c > 0.0
    # the least of one workload is the workload, of none is +inf: share or drop a sequence
    alias = np.arange(3)
    if need[1] and d == 1:
        alias[1] = 0
        need[0] = True
    if need[2] and d == 2:
        alias[2] = 0
        need[0] = True
    if need[2] and d == 1:
        need[2] = False
    slots = np.zeros(3, dtype=np.int64)
    nslots = 0
    for i in range(3):
        if need[i] and alias[i] == i:
            slots[nslots] = i
            nslots += 1
    a0 = acc[slots[0]]
    a1 = acc[slots[1]]
    a2 = acc[slots[2]]
    values = np.zeros(3)
    Fbar[0] = b
    crossed = -1
    x = 0.0
    delta0 = delta[0]
    for k in range(n):
        fk = Fbar[k]
        past_v = acc[alias[2], k] if d > 1 else 0.0
        x = _cell_mass(form, d, lam, b, c, h, fk, A[k], M[k], acc[0, k], acc[alias[1], k], past_v, delta0, x)
        f1 = fk - x
        Fbar[k + 1] = f1
        p[k] = x
        values[0] = x
        values[1] = fk**d - f1**d
        values[2] = fk ** (d - 1) - f1 ** (d - 1)
        for i in range(3):
            if need[i]:
                j = alias[i]
                conv[i, k] = acc[j, k] + values[j] * delta0
        top = min(L, n - k)
        x0 = values[slots[0]]
        x1 = values[slots[1]]
        x2 = values[slots[2]]
        if nslots == 1:
            for m in range(1, top):
                a0[k + m] += x0 * delta[m]
        elif nslots == 2:
            for m in range(1, top):
                dm = delta[m]
                a0[k + m] += x0 * dm
                a1[k + m] += x1 * dm
        elif nslots == 3:
            for m in range(1, top):
                dm = delta[m]
                a0[k + m] += x0 * dm
                a1[k + m] += x1 * dm
                a2[k + m] += x2 * dm
        if f1 < 0.0 and crossed < 0:
            crossed = k + 1
            if stop_on_cross:
                Fbar[k + 2 :] = f1
                return Fbar, p, conv[0], conv[1], conv[2], crossed
        if not (abs(f1) <= BLOWUP):
            Fbar[k + 2 :] = f1
            return Fbar, p, conv[0], conv[1], conv[2], crossed
    return Fbar, p, conv[0], conv[1], conv[2], crossed


@kernel(nogil=True)
def point_convolution(masses, a0, S_points, A):
    """``P(Y <= w_k < Y + X)`` at the grid points ``k = 0..n``: ``a0 S(w_k)`` for the atom
    of ``Y`` at 0, plus its cell masses ``masses[j]`` (uniform in their cells) against
    the cell averages ``A`` of ``S`` (``A[k - 1 - j]`` is the average over ``w_k - cell j``)."""
    n = masses.shape[0]
    L = A.shape[0]
    out = a0 * S_points[: n + 1].copy()
    for j in range(n):
        mj = masses[j]
        if mj == 0.0:
            continue
        top = min(L, n - j)
        for m in range(top):
            out[j + 1 + m] += mj * A[m]
    return out
