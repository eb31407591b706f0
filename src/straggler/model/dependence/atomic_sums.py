"""The i.i.d. pair functional ``k^m(y)`` of an atomic law with many atoms (a trace), in
one compiled pass (numba): :func:`straggler.model.dependence.iid._k_from_tables` reads it."""

from __future__ import annotations

from ...common.kernel_cache import kernel


@kernel()
def k_sum(av, p, bv, below, at_or_above, m, y):  # pragma: no cover - compiled
    # alpha = a v_i - y grows with i (av sorted), so the first j with b v_j >= alpha only
    # moves right: one merge-like pass instead of a binary search per atom. The sum is
    # compensated (Neumaier): within an ulp or two of the exactly rounded sum, the same
    # on every machine (no fast-math, a fixed order).
    n = av.shape[0]
    total = 0.0
    carry = 0.0
    j = 0
    for i in range(n):
        alpha = av[i] - y
        if not alpha > 0.0:
            continue
        while j < n and bv[j] < alpha:
            j += 1
        term = p[i] * (below[j] + alpha**m * at_or_above[j])
        t = total + term
        if abs(total) >= abs(term):
            carry += (total - t) + term
        else:
            carry += (term - t) + total
        total = t
    return total + carry
