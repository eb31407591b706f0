"""Replica dependence models (docs/background/model.md, "Replicas and their dependence").

A job has a size ``X`` (a :class:`~straggler.model.distributions.Distribution`); its
replica in pool ``i`` has size ``X_i``, and on a server of speed ``r`` it takes
``X_i / r``. How the replica sizes of one job relate is the *dependence*:

- ``identical``: ``X_i = X`` for every replica (perfect dependence);
- ``iid``: the ``X_i`` are independent copies of ``X``;
- ``sx`` (the S&X model of the speculation paper, Anselmi and Walton, arXiv
  2104.10426): ``X_i = X S_i``
  with ``X`` shared by the replicas and slowdowns ``S_i`` i.i.d. from a given
  slowdown distribution, independent of ``X``;
- ``mixture`` (``{kind: mixture, identical: c}``): with probability ``c`` every
  replica is ``X`` (one draw), else they are independent copies of ``X``; every
  replica keeps the law of ``X`` and only how they relate varies (``c = 0`` is
  ``iid``, ``c = 1`` ``identical``);
- ``pairs`` (``{kind: pairs, file: F}``, :mod:`.pairs`): a job's two copies take one
  measured pair of durations, replayed (at most two copies; ``X`` is the pairs' marginal).

A package; four things live here:

1. the models themselves (:class:`Identical`, :class:`IID`, :class:`SX`, each in
   its module :mod:`.identical`, :mod:`.iid`, :mod:`.sx` with its pair functionals;
   their common interface in :mod:`.base`) and :func:`from_spec` (:mod:`.kinds`),
   which builds one from its config form;
2. :func:`pair` (:mod:`.replicas`), the two-replica functionals that the threshold
   paper (docs: reference results, section 1) and the speculation paper need, for
   ``A = a X_i`` and ``B = b X_l`` where ``a = 1/r_ij`` and ``b = 1/r_lj`` are
   time-per-unit-size factors, built on the expectations over one size law of
   :mod:`.expectations`;
3. the joint sampler for the simulators (:mod:`.sampling`), :func:`sample_replicas`
   (numba) and :func:`sampler_args`, loaded when first asked for: importing numba
   is most of an analytic job's start-up, and only a simulation needs them;
4. the dependence measured from paired durations (:mod:`.measured`, ``straggler fit
   --pairs``, pure numpy): Spearman's rho, the tail dependence and the mixture's ``c``
   they imply, loaded only by that command.

Closed forms versus quadrature (see the docstrings of the pair classes):

- ``identical``: everything is a partial moment of ``X`` (closed form whenever
  the family has closed-form ``mean_min``/``partial_mean``/... ).
- ``iid``: marginal and ``E[A 1{B > t}]`` quantities are products of marginals;
  ``k(m, y)`` is closed form for exponential, hyperexponential and purely
  atomic ``X`` and one adaptive quadrature otherwise (~0.2-1 ms a call).
- ``sx``: with an atomic slowdown (discrete, deterministic) it is an exact finite
  mixture of identical pairs (``A = a s X``, ``B = b s' X``); with an atomic ``X``
  (deterministic: the speculation paper's ``X = 1``) an exact finite mixture of
  i.i.d. pairs of the slowdown; otherwise one quadrature over ``X`` of i.i.d.
  pairs of the slowdown given ``X = x`` (a single integral, ~1 ms, when the
  slowdown is exponential or hyperexponential; a nested one, ~15 ms for ``k``,
  otherwise). ``E[A]``, ``E[A^2]`` and ``E[min(A, B)]`` are exact in every case.

Second-order quantities return ``inf`` when they do not exist (e.g. Pareto with
``alpha <= 2``); first-order ones are finite whenever ``E[X]`` is.
"""

from __future__ import annotations

from .base import IDENTICAL_CODE, IID_CODE, MIXTURE_CODE, PAIRS_CODE, SX_CODE, Dependence, Pair
from .expectations import survival
from .identical import Identical, IdenticalPair
from .iid import IID, IIDPair
from .kinds import BUILTIN, KINDS, from_spec, mixture_of
from .mixture import Mixture, over_branches
from .pairs import MAX_COPIES, MeasuredPairs, marginal_spec
from .replicas import mean_min_replicas, pair
from .sx import SX, MixturePair, SXPair

__all__ = [
    "Dependence",
    "Identical",
    "IID",
    "SX",
    "Mixture",
    "MeasuredPairs",
    "MAX_COPIES",
    "marginal_spec",
    "mixture_of",
    "over_branches",
    "KINDS",
    "BUILTIN",
    "from_spec",
    "survival",
    "mean_min_replicas",
    "Pair",
    "IdenticalPair",
    "IIDPair",
    "MixturePair",
    "SXPair",
    "pair",
    "sample_replicas",
    "sampler_args",
    "sample_jobs",
    "IDENTICAL_CODE",
    "IID_CODE",
    "SX_CODE",
    "MIXTURE_CODE",
    "PAIRS_CODE",
]

_SAMPLERS = ("sample_jobs", "sample_replicas", "sampler_args")


def __getattr__(name: str):
    if name in _SAMPLERS:
        from . import sampling

        return getattr(sampling, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
