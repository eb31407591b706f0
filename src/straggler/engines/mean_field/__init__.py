"""The mean-field tier: the N -> infinity equilibrium of one FCFS queue under a
redundancy policy, for a general job-size law, solved numerically to a stated tolerance.

The model: infinitely many servers of speed 1, each with its own FCFS queue; jobs
arrive at rate ``lambda`` per server (``load = lambda E[X]``), and the d servers a job
samples have independent workloads, each with the equilibrium law ``Fbar(w) = P(U > w)``
(the queues' asymptotic independence). A copy's completion is known when it arrives
(the workload recursion), so the workload drains at rate 1 and its density ``f = -Fbar'``
is the rate of up-crossings of each level ``w``. With ``S(x) = P(X > x)``, ``b = Fbar(0)``
and ``G_Y(w) = P(Y <= w < Y + X)`` for a workload ``Y`` (a convolution of its law with S):

- ZRed (one copy to a random server, M/G/1): ``f = lambda G_U``, ``b = load``, ``T = U + X``.
- CoS (cancel on start, the least loaded of d, LL(d)): Hellemans and Van Houdt, "On
  the power-of-d-choices with least loaded server selection", POMACS 2(2) 2018, and
  Hellemans, Bodas and Van Houdt, "Performance analysis of workload dependent load
  balancing policies", POMACS 3(2) 2019: ``f = lambda G_{U_min}``, ``P(U_min > u) =
  Fbar(u)^d``, ``b = load``, ``T = U_min + X``. The dependence plays no part.
- CoC with i.i.d. copies (redundancy-d, Red(d)): Hellemans, Bodas and Van Houdt 2019
  (the FDE ``f = lambda d G H^(d-1)``, ``H = Fbar + G_U = P(U + X > w)``, and its bisection on
  ``Fbar(0)``), after Gardner, Harchol-Balter, Scheller-Wolf, Velednitsky and Zbarsky,
  "Redundancy-d: the power of d choices for redundancy", Operations Research 65(4)
  2017, 1078-1094, whose exponential closed form ``E[T] = sum_n rho^n / (n (d - 1) + d)``
  as N -> infinity checks it.
  ``P(T > t) = H(t)^d``; ``b`` is unknown and found by shooting.
- CoC with identical copies: a tagged server at ``u <= w`` up-crosses ``w`` iff
  ``min(u, V) + X > w``, ``V`` the least of the other d - 1 workloads, so
  ``f = lambda d (G_{U_min} - Fbar G_V)``, ``P(V > v) = Fbar(v)^(d-1)``; ``T = U_min + X``.
- CoC with a mixture (identical with probability c): ``f = c f_identical + (1 - c) f_iid``
  from the same ``Fbar``, and ``P(T > t)`` the same mixture.
- RIQ (redundant to idle queues): Gardner, Harchol-Balter, Scheller-Wolf and Van Houdt,
  "A better model for job redundancy: decoupling server slowdown and job size",
  IEEE/ACM Transactions on Networking 25(6) 2017, 3353-3367. An idle server is sampled at rate
  ``lambda d`` and starts a busy period of ``M_K``, the least of the K copies sent to the
  idle among the d (``K - 1 ~ Binomial(d - 1, 1 - b)``); a busy one takes single copies
  at rate ``lambda b^(d-1)``: ``f = lambda d (1 - b) E[P(M_K > w)] + lambda b^(d-1) (G_U -
  (1 - b) S)``, linear given ``b``, which solves ``b = lambda d (1 - b) E[M_K] + lambda b^d E[X]``.
- FRed on two equal pools has the mean-field limit of CoC with d = 2.

Every policy costs ``E[C] = b / lambda`` per job; it is stable (a fixed point with
``b < 1`` exists) or not, and an unstable load is said so (:attr:`Equilibrium.stable`).

The numerics (:mod:`.solver`, :mod:`.kernels`, :mod:`.tables`): a uniform grid, the
level-crossing equation marched forward over its cells (O(cells x support) a march),
the grid refined until two agree on E[T]. Importing this package loads numpy and
the light modules only; numba loads with the kernels, on the first :func:`solve`.

May import: ``common``, ``model``.
"""

from __future__ import annotations

import math

from ...model import dependence as dependence_module
from ...model import distributions, policies
from ...model.distributions.base import check_d, is_number
from .equilibrium import Equilibrium

__all__ = ["POLICIES", "Equilibrium", "covered", "solve"]

#: the policies the tier solves, by the form of their level-crossing equation: keyed by
#: their codes, since a policy is named in its registry spec only
#: (tests/model/policies/test_policy_literals.py)
_CODES = {
    policies.ZRED_CODE: "one",
    policies.COS_CODE: "least",
    policies.COC_CODE: "redundant",
    policies.FRED_CODE: "redundant",
    policies.RIQ_CODE: "idle",
}

POLICIES: frozenset[str] = frozenset(name for name, spec in policies.POLICIES.items() if spec.kernel_code in _CODES)
"""The canonical names of the policies the tier solves."""

#: FRed: two equal pools, one copy in each, is CoC with d = 2 in the limit
_FRED_D = 2


def _canonical(policy: str) -> str | None:
    try:
        name = policies.canonical_policy(policy)
    except KeyError:
        return None
    return name if name in POLICIES else None


def covered(policy: str, dependence) -> str | None:
    """None if the tier solves this policy under this dependence (IID, Identical,
    Mixture), else a reason in words."""
    if _canonical(policy) is None:
        return f"the mean-field tier solves {', '.join(sorted(POLICIES))}, not {policy}"
    try:
        dep = dependence_module.from_spec(dependence)
    except ValueError as e:
        return f"not a dependence: {e}"
    if not isinstance(dep, (dependence_module.IID, dependence_module.Identical, dependence_module.Mixture)):
        return (
            f"the {dep.kind} dependence: the mean-field tier takes copies with the size law itself "
            "(independent, identical, or a mixture of the two)"
        )
    return None


def solve(policy: str, d: int, size, dependence, load: float, tolerance: float = 1e-3) -> Equilibrium:
    """The mean-field equilibrium of ``policy`` with ``d`` copies (ZRed takes one, FRed
    two, whatever ``d`` says), the size law ``size`` (a
    :class:`~straggler.model.distributions.Distribution` or its config form), the
    ``dependence`` (or its config form) and ``load = lambda E[X]`` per server, with E[T]
    to the relative ``tolerance`` (reached within the grid's cap of cells, else
    :attr:`Equilibrium.error` says how close)."""
    reason = covered(policy, dependence)
    if reason is not None:
        raise ValueError(reason)
    X = distributions.from_spec(size)
    if X.per_type:
        raise ValueError("a law per job type: the copies of a job share its type, which the tier does not model")
    dep = dependence_module.from_spec(dependence)
    if not (is_number(load) and math.isfinite(load) and load > 0):
        raise ValueError(f"load must be a positive number, got {load!r}")
    if not (is_number(tolerance) and tolerance > 0):
        raise ValueError(f"tolerance must be a positive number, got {tolerance!r}")
    name = _canonical(policy)
    assert name is not None
    code = policies.POLICIES[name].kernel_code
    form = _CODES[code]
    if code == policies.ZRED_CODE:
        copies = 1
    elif code == policies.FRED_CODE:
        copies = _FRED_D
    else:
        copies = check_d(d)
    if isinstance(dep, dependence_module.Mixture):
        c = dep.identical
    else:
        c = 1.0 if isinstance(dep, dependence_module.Identical) else 0.0
    from . import solver

    problem = solver.Problem(
        policy=name,
        form=solver.FORMS[form],
        d=copies,
        rate=float(load) / X.mean(),
        c=float(c),
        X=X,
        load=float(load),
    )
    return solver.solve_problem(problem, float(tolerance))
