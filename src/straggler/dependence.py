"""Replica dependence models (DESIGN.md, "The common system").

A job has a size ``X`` (a :class:`~straggler.distributions.Distribution`); its
replica in pool ``i`` has size ``X_i``, and on a server of speed ``r`` it takes
``X_i / r``. How the replica sizes of one job relate is the *dependence*:

- ``identical``: ``X_i = X`` for every replica (perfect dependence);
- ``iid``: the ``X_i`` are independent copies of ``X``;
- ``sx`` (the S&X model of the speculation paper, papers/001): ``X_i = X S_i``
  with ``X`` shared by the replicas and slowdowns ``S_i`` i.i.d. from a given
  slowdown distribution, independent of ``X``.

Three things live here:

1. the models themselves (:class:`Identical`, :class:`IID`, :class:`SX`) and
   :func:`from_spec`, which builds one from its config form;
2. :func:`pair`, the two-replica functionals that the threshold paper
   (papers/000, REFERENCES.md section 1) and the speculation paper need, for
   ``A = a X_i`` and ``B = b X_l`` where ``a = 1/r_ij`` and ``b = 1/r_lj`` are
   time-per-unit-size factors;
3. the joint sampler for the simulators, :func:`sample_replicas` (numba) and
   :func:`sampler_args`.

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

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from . import distributions as _distributions
from .distributions import Deterministic, Distribution, Exponential
from .distributions import sample as _sample
from .kernel_cache import kernel
from .numerics import RELATIVE_1E10, integrate_split

__all__ = [
    "Dependence",
    "Identical",
    "IID",
    "SX",
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
]

IDENTICAL_CODE = 0
IID_CODE = 1
SX_CODE = 2


# =====================================================================================
# The models
# =====================================================================================


@dataclass(frozen=True)
class Dependence(ABC):
    """How the replica sizes of one job relate (see the module docstring)."""

    kind: ClassVar[str]
    code: ClassVar[int]

    @abstractmethod
    def replica_marginal_moments(self, X: Distribution) -> tuple[float, float]:
        """``(E[X_i], E[X_i^2])`` of the size of one replica (speed 1)."""

    def replica_mean(self, X: Distribution) -> float:
        """``E[X_i]``: the size of one replica, the unit of ``load`` in DESIGN.md."""
        return self.replica_marginal_moments(X)[0]

    def slowdown_or_dummy(self) -> Distribution:
        """The slowdown law (``sx``) or a deterministic 1 (what the sampler reads)."""
        return Deterministic(1.0)

    def order_tail_index(self, X: Distribution, r: int = 1, k: int = 1) -> float:
        """Tail index (:meth:`Distribution.tail_index`) of the k-th smallest of ``r``
        replica sizes of one job (``r = k = 1``: one replica). Identical replicas
        keep X's; the k-th smallest of r i.i.d. sizes exceeds x only if r - k + 1 of
        them do, so P(X_{k:r} > x) is of the order of P(X > x)^(r-k+1) and its index
        is (r - k + 1) times X's."""
        return X.tail_index()

    def to_spec(self) -> dict:
        return {"kind": self.kind}


@dataclass(frozen=True)
class Identical(Dependence):
    """``X_i = X`` for every replica."""

    kind: ClassVar[str] = "identical"
    code: ClassVar[int] = IDENTICAL_CODE

    def replica_marginal_moments(self, X: Distribution) -> tuple[float, float]:
        return X.mean(), X.second_moment()


@dataclass(frozen=True)
class IID(Dependence):
    """The replica sizes are independent copies of ``X``."""

    kind: ClassVar[str] = "iid"
    code: ClassVar[int] = IID_CODE

    def replica_marginal_moments(self, X: Distribution) -> tuple[float, float]:
        return X.mean(), X.second_moment()

    def order_tail_index(self, X: Distribution, r: int = 1, k: int = 1) -> float:
        return (int(r) - int(k) + 1) * X.tail_index()


@dataclass(frozen=True)
class SX(Dependence):
    """S&X model: ``X_i = X S_i``, ``X`` shared, slowdowns ``S_i`` i.i.d. ~ ``slowdown``."""

    slowdown: Distribution
    kind: ClassVar[str] = "sx"
    code: ClassVar[int] = SX_CODE

    def __post_init__(self):
        s = self.slowdown
        if not isinstance(s, Distribution):
            raise ValueError(f"sx slowdown must be a Distribution, got {s!r}")
        lo, _ = s.support()
        m = s.mean()
        if not (lo >= 0 and math.isfinite(m) and m > 0):
            raise ValueError(f"sx slowdown must be non-negative with a finite positive mean, got {s!r}")
        if float(s.sf(0.0)) < 1.0 - 1e-12:
            raise ValueError(f"sx slowdown must satisfy P(S > 0) = 1, got {s!r}")

    def replica_marginal_moments(self, X: Distribution) -> tuple[float, float]:
        s = self.slowdown
        return X.mean() * s.mean(), X.second_moment() * s.second_moment()

    def slowdown_or_dummy(self) -> Distribution:
        return self.slowdown

    def order_tail_index(self, X: Distribution, r: int = 1, k: int = 1) -> float:
        # E[(X S_{k:r})^p] = E[X^p] E[S_{k:r}^p] (independent factors): finite iff
        # both are, and S_{k:r} has r - k + 1 times the slowdown's index
        return min(X.tail_index(), (int(r) - int(k) + 1) * self.slowdown.tail_index())

    def to_spec(self) -> dict:
        return {"kind": self.kind, "slowdown": self.slowdown.to_spec()}


KINDS: dict[str, type[Dependence]] = {c.kind: c for c in (Identical, IID, SX)}
#: dependences that exist without being declared under ``dependences:`` in a config
BUILTIN: dict[str, Dependence] = {"identical": Identical(), "iid": IID()}


def mean_min_replicas(X: Distribution, dep: Dependence, d: int) -> float:
    """``E[min(X_1, ..., X_d)]`` of one job's ``d`` replicas (PS paper, section 3.4).

    identical: ``E[X]``; iid: ``E[X_{1:d}]`` (:meth:`Distribution.mean_min_of`);
    sx: ``E[X] E[min(S_1..S_d)]``.
    """
    if isinstance(dep, IID):
        return X.mean_min_of(int(d))
    if isinstance(dep, SX):
        return X.mean() * dep.slowdown.mean_min_of(int(d))
    if isinstance(dep, Identical):
        return X.mean()
    raise ValueError(f"unknown dependence {dep!r}")


def from_spec(
    spec,
    named_distributions: Mapping[str, Distribution] | None = None,
    where: str = "dependence",
) -> Dependence:
    """Build a dependence from its config form.

    ``spec`` is a built-in name (``"identical"``, ``"iid"``), a mapping
    ``{kind: identical | iid}`` or ``{kind: sx, slowdown: S}`` where ``S`` is the
    name of an entry of ``named_distributions`` or an inline distribution spec
    (``{family: discrete, values: [...], p: [...]}``), or already a
    :class:`Dependence`. ``where`` is the config key path used in error messages.
    Raises ``ValueError`` naming the key, the value and what is allowed.
    """
    named_distributions = dict(named_distributions or {})
    if isinstance(spec, Dependence):
        return spec
    if isinstance(spec, str):
        if spec in BUILTIN:
            return BUILTIN[spec]
        raise ValueError(
            f"{where}: unknown dependence {spec!r}; allowed: {sorted(BUILTIN)} "
            "or a mapping {kind: sx, slowdown: <distribution name or spec>}"
        )
    if not isinstance(spec, Mapping):
        raise ValueError(f"{where}: expected a name or a mapping with key 'kind', got {spec!r}")
    if "kind" not in spec:
        raise ValueError(f"{where}: missing key 'kind'; allowed kinds: {sorted(KINDS)}")
    kind = spec["kind"]
    if kind not in KINDS:
        raise ValueError(f"{where}.kind: unknown kind {kind!r}; allowed: {sorted(KINDS)}")
    allowed_keys = {"kind", "slowdown"} if kind == "sx" else {"kind"}
    extra = sorted(set(spec) - allowed_keys)
    if extra:
        raise ValueError(f"{where}: unknown key(s) {extra} for kind {kind!r}; allowed keys: {sorted(allowed_keys)}")
    if kind != "sx":
        return BUILTIN[kind]
    if "slowdown" not in spec:
        raise ValueError(
            f"{where}: kind 'sx' needs key 'slowdown' (a distribution name "
            f"{sorted(named_distributions)} or an inline distribution spec)"
        )
    s = spec["slowdown"]
    key = f"{where}.slowdown"
    if isinstance(s, Distribution):
        slowdown = s
    elif isinstance(s, str):
        if s not in named_distributions:
            raise ValueError(
                f"{key}: unknown distribution {s!r}; allowed: {sorted(named_distributions)} "
                "or an inline distribution spec {family: ..., ...}"
            )
        slowdown = named_distributions[s]
    elif isinstance(s, Mapping):
        try:
            slowdown = _distributions.from_spec(dict(s))
        except Exception as e:  # noqa: BLE001 - re-raised with the config key
            raise ValueError(f"{key}: invalid distribution spec {dict(s)!r}: {e}") from e
    else:
        raise ValueError(f"{key}: expected a distribution name or spec mapping, got {s!r}")
    try:
        return SX(slowdown)
    except ValueError as e:
        raise ValueError(f"{key}: {e}") from e


# =====================================================================================
# Private numerical helpers
# =====================================================================================


def _atom_masses(X: Distribution) -> tuple[np.ndarray, np.ndarray]:
    """Atoms of ``X`` and their masses (``X.point_masses()``)."""
    pm = [(float(v), float(q)) for v, q in X.point_masses() if q > 0]
    if not pm:
        return np.empty(0), np.empty(0)
    v, m = zip(*sorted(pm))
    return np.asarray(v, dtype=float), np.asarray(m, dtype=float)


def _atomic_law(X: Distribution) -> tuple[np.ndarray, np.ndarray] | None:
    """``(values, probabilities)`` when ``X`` is purely atomic, else ``None``."""
    v, m = _atom_masses(X)
    if v.size and abs(m.sum() - 1.0) < 1e-9:
        return v, m / m.sum()
    return None


def survival(X: Distribution, x: float) -> float:
    """Scalar ``P(X > x)`` (the families' fast scalar path when they have one)."""
    f = getattr(X, "_sf_scalar", None)
    return float(f(x)) if f is not None else float(X.sf(x))


def _density(X: Distribution) -> Callable[[float], float]:
    """Scalar density of the absolutely continuous part of ``X``."""
    f = getattr(X, "_pdf_scalar", None)
    if f is not None:
        return lambda x: float(f(x))
    return lambda x: float(X.pdf(x))


def _expect(X: Distribution, h: Callable[[float], float], points=()) -> float:
    """``E[h(X)]``: a sum over the atoms of ``X`` plus a quadrature of ``h`` against
    the density of its continuous part, split at ``points`` (kinks of ``h``)."""
    v, m = _atom_masses(X)
    total = float(sum(mk * h(float(vk)) for vk, mk in zip(v, m)))
    if v.size and m.sum() >= 1.0 - 1e-12:
        return total
    pdf = _density(X)
    lo, hi = X.support()

    def integrand(x: float) -> float:
        p = pdf(x)
        return h(x) * p if p > 0.0 else 0.0

    return total + integrate_split(integrand, lo, hi, RELATIVE_1E10, tuple(points) + tuple(v), scale=X.mean())


def _tail1(X: Distribution, c: float) -> float:
    """``int_c^inf P(X > u) du = E[(X - c)^+]`` for ``c >= 0``."""
    if math.isinf(c):
        return 0.0
    return max(X.partial_mean(c) - c * survival(X, c), 0.0)


def _tail2(X: Distribution, c: float) -> float:
    """``int_c^inf 2u P(X > u) du = E[(X^2 - c^2)^+]`` for ``c >= 0`` (``inf`` if E[X^2] is)."""
    if math.isinf(c):
        return 0.0
    p2 = X.partial_second_moment(c)
    if math.isinf(p2):
        return math.inf
    return max(p2 - c * c * survival(X, c), 0.0)


def _check_arg(t: float, name: str) -> float:
    t = float(t)
    if math.isnan(t) or t < 0:
        raise ValueError(f"{name} must be >= 0 (inf allowed), got {t}")
    return t


def _check_m(m: int) -> int:
    if m not in (1, 2):
        raise ValueError(f"k(m, y) is defined for m = 1, 2; got m = {m!r}")
    return int(m)


def _check_factor(a: float, name: str) -> float:
    a = float(a)
    if not (math.isfinite(a) and a > 0):
        raise ValueError(f"{name} (time per unit size, 1/speed) must be finite and > 0, got {a}")
    return a


def _times(x: float, y: float) -> float:
    """``x * y`` with ``0 * inf = 0`` (an empty event carries no mass)."""
    return 0.0 if x == 0.0 or y == 0.0 else x * y


# =====================================================================================
# Two-replica functionals
# =====================================================================================


class Pair(ABC):
    """Two-replica functionals of ``A = a X_i`` and ``B = b X_l``.

    ``a = 1/r_ij`` and ``b = 1/r_lj``: the time per unit size of the job's
    replica in pool ``i`` and in the other pool ``l``. All arguments ``t``, ``y``
    are thresholds ``>= 0`` (``inf`` allowed). Notation of REFERENCES.md section 1:
    ``k(m, y)`` is ``k^m_{il,j}(y)``.
    """

    a: float
    b: float

    # marginal of A
    @abstractmethod
    def mean_A(self) -> float:
        """``E[A]``."""

    @abstractmethod
    def second_A(self) -> float:
        """``E[A^2]`` (``inf`` when it does not exist)."""

    @abstractmethod
    def mean_min_A(self, t: float) -> float:
        """``E[min(A, t)]``."""

    @abstractmethod
    def second_min_A(self, t: float) -> float:
        """``E[min(A, t)^2]``."""

    @abstractmethod
    def prob_A_exceeds(self, t: float) -> float:
        """``P(A > t)``."""

    # joint
    @abstractmethod
    def mean_A_B_exceeds(self, t: float) -> float:
        """``E[A 1{B > t}]`` (rerouting from the other pool, eq. 2)."""

    @abstractmethod
    def second_A_B_exceeds(self, t: float) -> float:
        """``E[A^2 1{B > t}]`` (``inf`` when it does not exist)."""

    @abstractmethod
    def k(self, m: int, y: float) -> float:
        """``k^m(y) = E[min(A - y, B)^m 1{A > y}]`` for ``m = 1, 2`` (eq. 4); ``k(m, inf) = 0``.

        Equivalently ``int_0^inf m s^(m-1) P(A > y + s, B > s) ds``.
        """

    @abstractmethod
    def mean_min_AB(self) -> float:
        """``E[min(A, B)] = k(1, 0)`` (full redundancy, eq. 6)."""


class _MarginalAX(Pair):
    """Marginal functionals of ``A = a X`` (shared by the identical and i.i.d. pairs)."""

    X: Distribution

    def mean_A(self) -> float:
        return self.a * self.X.mean()

    def second_A(self) -> float:
        return self.a * self.a * self.X.second_moment()

    def mean_min_A(self, t: float) -> float:
        t = _check_arg(t, "t")
        if math.isinf(t):
            return self.mean_A()
        return self.a * self.X.mean_min(t / self.a)

    def second_min_A(self, t: float) -> float:
        t = _check_arg(t, "t")
        if math.isinf(t):
            return self.second_A()
        return self.a * self.a * self.X.second_moment_min(t / self.a)

    def prob_A_exceeds(self, t: float) -> float:
        t = _check_arg(t, "t")
        return 0.0 if math.isinf(t) else survival(self.X, t / self.a)


@dataclass(frozen=True)
class IdenticalPair(_MarginalAX):
    """``A = a X``, ``B = b X`` (identical replicas). All closed forms in partial
    moments of ``X``; write ``c = t/a`` or ``y/a``, ``I1(c) = int_c^inf P(X>u) du =
    E[X 1{X>c}] - c P(X>c)``, ``I2(c) = int_c^inf 2u P(X>u) du = E[X^2 1{X>c}] - c^2 P(X>c)``.

    - ``E[min(A, t)] = a E[min(X, t/a)]``, ``E[min(A, t)^2] = a^2 E[min(X, t/a)^2]``,
      ``P(A > t) = P(X > t/a)``;
    - ``E[A 1{B > t}] = a E[X 1{X > t/b}]``, ``E[A^2 1{B > t}] = a^2 E[X^2 1{X > t/b}]``;
    - ``k``: ``P(A > y+s, B > s) = P(X > max((y+s)/a, s/b))``.
      If ``a <= b`` then ``(y+s)/a >= s/b`` always, ``min(A - y, B) = A - y`` and
      ``k^1 = a I1(y/a)``, ``k^2 = a^2 I2(y/a) - 2 a y I1(y/a)``.
      If ``a > b`` the two cross at ``X = d = y/(a-b)`` (``s = y b/(a-b)``): below,
      ``min = aX - y``; above, ``min = bX``; with ``c = y/a`` and
      ``J1 = I1(c) - I1(d)``, ``J2 = I2(c) - I2(d)`` (``int_c^d`` of ``P(X>u)``,
      ``2u P(X>u)``):
      ``k^1 = a J1 + b I1(d)``, ``k^2 = a^2 J2 - 2 a y J1 + b^2 I2(d)``.
      ``k(m, 0) = min(a, b)^m E[X^m]``.
    - ``E[min(A, B)] = min(a, b) E[X]``.
    """

    X: Distribution
    a: float
    b: float

    def mean_A_B_exceeds(self, t: float) -> float:
        t = _check_arg(t, "t")
        if math.isinf(t):
            return 0.0
        return self.a * self.X.partial_mean(t / self.b)

    def second_A_B_exceeds(self, t: float) -> float:
        t = _check_arg(t, "t")
        if math.isinf(t):
            return 0.0
        return _times(self.a * self.a, self.X.partial_second_moment(t / self.b))

    def k(self, m: int, y: float) -> float:
        m = _check_m(m)
        y = _check_arg(y, "y")
        if math.isinf(y):
            return 0.0
        X, a, b = self.X, self.a, self.b
        c = y / a
        if a <= b:
            i1 = _tail1(X, c)
            if m == 1:
                return a * i1
            i2 = _tail2(X, c)
            if math.isinf(i2):
                return math.inf
            return max(a * a * i2 - 2.0 * a * y * i1, 0.0)
        d = y / (a - b)
        i1c, i1d = _tail1(X, c), _tail1(X, d)
        j1 = max(i1c - i1d, 0.0)
        if m == 1:
            return a * j1 + b * i1d
        i2d = _tail2(X, d)
        if math.isinf(i2d):
            return math.inf
        # int_c^d 2u P(X>u) du; through the finite head when the tails are infinite
        j2 = max(_tail2(X, c) - i2d, 0.0)
        return max(a * a * j2 - 2.0 * a * y * j1, 0.0) + b * b * i2d

    def mean_min_AB(self) -> float:
        return min(self.a, self.b) * self.X.mean()


def _exponential_phases(X: Distribution) -> list[tuple[float, float]] | None:
    """``[(p_i, mean_i)]`` when ``X`` is an exponential or a hyperexponential, else ``None``."""
    if isinstance(X, Exponential):
        return [(1.0, X.mean())]
    if isinstance(X, _distributions.Hyperexponential):
        return [(float(p), 1.0 / float(r)) for p, r in zip(X.p, X.rates) if p > 0]
    return None


def _kappa(m: int, y: float, alpha, beta):
    """``min(alpha - y, beta)^m 1{alpha > y}``: ``k`` for deterministic sizes (vectorised)."""
    alpha = np.asarray(alpha, dtype=float)
    beta = np.asarray(beta, dtype=float)
    return np.where(alpha > y, np.minimum(alpha - y, beta), 0.0) ** m


@dataclass(frozen=True)
class IIDPair(_MarginalAX):
    """``A = a X_1``, ``B = b X_2`` with ``X_1, X_2`` i.i.d. ~ ``X``.

    - marginal functionals as for identical replicas;
    - ``E[A 1{B > t}] = a E[X] P(X > t/b)``, ``E[A^2 1{B > t}] = a^2 E[X^2] P(X > t/b)``;
    - ``k^m(y) = int_0^inf m s^(m-1) P(X > (y+s)/a) P(X > s/b) ds``: closed form for
      exponential ``X`` with mean ``mu`` (``theta = 1/(a mu) + 1/(b mu)``):
      ``k^m(y) = m! e^(-y/(a mu)) / theta^m``, and its double sum over the phases
      for a hyperexponential; an exact double sum for atomic ``X``;
      otherwise one adaptive quadrature split at the atoms and support ends.
      ``k^2`` is finite whenever ``E[X]`` is (``s P(X > s) -> 0``).
    - ``E[min(A, B)] = k^1(0)``; exponential: ``mu a b / (a + b)``.
    """

    X: Distribution
    a: float
    b: float

    def _prob_B_exceeds(self, t: float) -> float:
        return 0.0 if math.isinf(t) else survival(self.X, t / self.b)

    def mean_A_B_exceeds(self, t: float) -> float:
        t = _check_arg(t, "t")
        return _times(self.a * self.X.mean(), self._prob_B_exceeds(t))

    def second_A_B_exceeds(self, t: float) -> float:
        t = _check_arg(t, "t")
        return _times(self.a * self.a * self.X.second_moment(), self._prob_B_exceeds(t))

    def k(self, m: int, y: float) -> float:
        m = _check_m(m)
        y = _check_arg(y, "y")
        if math.isinf(y):
            return 0.0
        X, a, b = self.X, self.a, self.b
        phases = _exponential_phases(X)
        if phases is not None:
            # mixture of exponentials: sum_ij p_i p_j m! e^{-y/(a mu_i)} / (1/(a mu_i) + 1/(b mu_j))^m
            total = 0.0
            for pi, mi in phases:
                head = pi * math.factorial(m) * math.exp(-y / (a * mi))
                if head == 0.0:
                    continue
                for pj, mj in phases:
                    total += head * pj / (1.0 / (a * mi) + 1.0 / (b * mj)) ** m
            return total
        law = _atomic_law(X)
        if law is not None:
            v, p = law
            kap = _kappa(m, y, a * v[:, None], b * v[None, :])
            return float(p @ kap @ p)
        lo, hi = X.support()
        upper = min(a * hi - y, b * hi)
        if not upper > 0:
            return 0.0
        pts: list[float] = [a * lo - y, b * lo]
        for atom in X.atoms():
            pts += [a * atom - y, b * atom]

        def f(s: float) -> float:
            pa = survival(X, (y + s) / a)
            if pa == 0.0:
                return 0.0
            pb = survival(X, s / b)
            return (m * s ** (m - 1)) * pa * pb

        return integrate_split(f, 0.0, upper, RELATIVE_1E10, pts, scale=min(a, b) * X.mean())

    def mean_min_AB(self) -> float:
        return self.k(1, 0.0)


@dataclass(frozen=True)
class MixturePair(Pair):
    """A finite mixture ``sum_c w_c pair_c`` of pairs (all with the same ``a``, ``b``
    meaning): used for ``sx`` when the slowdown or ``X`` is atomic. Every functional
    is linear in the joint law, so it is the weighted sum of the components'."""

    components: tuple[tuple[float, Pair], ...]
    a: float
    b: float

    def _sum(self, name: str, *args) -> float:
        total = 0.0
        for w, p in self.components:
            total += _times(w, getattr(p, name)(*args))
        return total

    def mean_A(self) -> float:
        return self._sum("mean_A")

    def second_A(self) -> float:
        return self._sum("second_A")

    def mean_min_A(self, t: float) -> float:
        return self._sum("mean_min_A", t)

    def second_min_A(self, t: float) -> float:
        return self._sum("second_min_A", t)

    def prob_A_exceeds(self, t: float) -> float:
        return self._sum("prob_A_exceeds", t)

    def mean_A_B_exceeds(self, t: float) -> float:
        return self._sum("mean_A_B_exceeds", t)

    def second_A_B_exceeds(self, t: float) -> float:
        return self._sum("second_A_B_exceeds", t)

    def k(self, m: int, y: float) -> float:
        return self._sum("k", m, y)

    def mean_min_AB(self) -> float:
        return self._sum("mean_min_AB")


@dataclass(frozen=True)
class SXPair(Pair):
    """``A = a X S_1``, ``B = b X S_2`` (S&X) for continuous ``X`` and a non-atomic
    slowdown ``S``: given ``X = x`` the replicas are an i.i.d. pair of ``S`` with
    factors ``(a x, b x)`` (:class:`IIDPair`), and every functional is
    ``E_X[ IIDPair(S, a X, b X).functional ]``, one quadrature over the density of
    ``X`` split where the conditional functional has kinks (``x = t/(a s)``,
    ``t/(b s)`` for the support ends and atoms ``s`` of ``S``). Exact by
    homogeneity: ``E[A] = a E[X] E[S]``, ``E[A^2] = a^2 E[X^2] E[S^2]``,
    ``E[min(A, B)] = E[X] E[min(a S_1, b S_2)]``.

    Infinite second-order quantities: ``E[A^2 1{B > t}] = inf`` iff ``E[X^2]`` or
    ``E[S^2]`` is; ``k^2(y) = inf`` iff ``E[X^2]`` is (given ``X = x`` it is
    ``x^2 k^2_S(y/x)`` with ``k^2_S(0) > 0``; it is finite in ``S`` alone).
    """

    X: Distribution
    S: Distribution
    a: float
    b: float

    def _given(self, x: float) -> IIDPair:
        return IIDPair(self.S, self.a * x, self.b * x)

    def _kinks(self, t: float, factors: tuple[float, ...]) -> tuple[float, ...]:
        lo, hi = self.S.support()
        ss = [s for s in (lo, hi, *self.S.atoms()) if 0 < s < math.inf]
        return tuple(t / (f * s) for f in factors for s in ss)

    def _outer(self, name: str, t: float, factors: tuple[float, ...], *args) -> float:
        def h(x: float) -> float:
            if x <= 0.0:
                return 0.0
            return getattr(self._given(x), name)(*args)

        return _expect(self.X, h, self._kinks(t, factors) if t > 0 else ())

    def mean_A(self) -> float:
        return self.a * self.X.mean() * self.S.mean()

    def second_A(self) -> float:
        return self.a * self.a * self.X.second_moment() * self.S.second_moment()

    def mean_min_A(self, t: float) -> float:
        t = _check_arg(t, "t")
        if math.isinf(t):
            return self.mean_A()
        return self._outer("mean_min_A", t, (self.a,), t)

    def second_min_A(self, t: float) -> float:
        t = _check_arg(t, "t")
        if math.isinf(t):
            return self.second_A()
        return self._outer("second_min_A", t, (self.a,), t)

    def prob_A_exceeds(self, t: float) -> float:
        t = _check_arg(t, "t")
        if math.isinf(t):
            return 0.0
        if t == 0.0:
            return 1.0  # P(S > 0) = 1 (checked by SX) and X > 0 a.s. on the density part
        return self._outer("prob_A_exceeds", t, (self.a,), t)

    def mean_A_B_exceeds(self, t: float) -> float:
        t = _check_arg(t, "t")
        if math.isinf(t):
            return 0.0
        return self._outer("mean_A_B_exceeds", t, (self.b,), t)

    def second_A_B_exceeds(self, t: float) -> float:
        t = _check_arg(t, "t")
        if math.isinf(t):
            return 0.0
        if math.isinf(self.X.second_moment()) or math.isinf(self.S.second_moment()):
            return math.inf
        return self._outer("second_A_B_exceeds", t, (self.b,), t)

    def k(self, m: int, y: float) -> float:
        m = _check_m(m)
        y = _check_arg(y, "y")
        if math.isinf(y):
            return 0.0
        if m == 2 and math.isinf(self.X.second_moment()):
            return math.inf
        if y == 0.0:
            return _homogeneous_k0(self, m)
        return self._outer("k", y, (self.a,), m, y)

    def mean_min_AB(self) -> float:
        return self.X.mean() * IIDPair(self.S, self.a, self.b).mean_min_AB()


def _homogeneous_k0(p: SXPair, m: int) -> float:
    """``k^m(0) = E[min(A, B)^m] = E[X^m] E[min(a S_1, b S_2)^m]``."""
    xm = p.X.mean() if m == 1 else p.X.second_moment()
    return _times(xm, IIDPair(p.S, p.a, p.b).k(m, 0.0))


def pair(dep: Dependence, X: Distribution, a: float = 1.0, b: float = 1.0) -> Pair:
    """Two-replica functionals for ``A = a X_i``, ``B = b X_l`` under ``dep``.

    ``a = 1/r_ij`` and ``b = 1/r_lj`` (REFERENCES.md section 1). Returns an
    :class:`IdenticalPair`, :class:`IIDPair`, or for ``sx`` an exact
    :class:`MixturePair` (atomic slowdown: of identical pairs ``(a s, b s')``;
    atomic ``X``: of i.i.d. slowdown pairs ``(a x, b x)``) or an :class:`SXPair`.
    """
    a = _check_factor(a, "a")
    b = _check_factor(b, "b")
    if not isinstance(X, Distribution):
        raise ValueError(f"X must be a Distribution, got {X!r}")
    if isinstance(dep, Identical):
        return IdenticalPair(X, a, b)
    if isinstance(dep, IID):
        return IIDPair(X, a, b)
    if isinstance(dep, SX):
        S = dep.slowdown
        law_s = _atomic_law(S)
        if law_s is not None:
            v, p = law_s
            comps: tuple[tuple[float, Pair], ...] = tuple(
                (float(pi * pj), IdenticalPair(X, a * float(si), b * float(sj)))
                for si, pi in zip(v, p)
                for sj, pj in zip(v, p)
            )
            return MixturePair(comps, a, b)
        law_x = _atomic_law(X)
        if law_x is not None:
            v, p = law_x
            comps = tuple((float(pk), IIDPair(S, a * float(xk), b * float(xk))) for xk, pk in zip(v, p))
            return MixturePair(comps, a, b)
        return SXPair(X, S, a, b)
    raise ValueError(f"unknown dependence {dep!r}; allowed kinds: {sorted(KINDS)}")


# =====================================================================================
# Joint sampler (numba)
# =====================================================================================


@kernel()
def sample_replicas(dep_code, x_code, x_params, s_code, s_params, n_replicas, out, rng):
    """Fill ``out[:n_replicas]`` with one job's replica sizes (at speed 1).

    ``dep_code``: 0 identical (one draw of X, repeated), 1 iid (independent draws),
    2 sx (one draw of X times independent draws of S). The arguments after
    ``dep_code`` are those of :func:`sampler_args`; ``rng`` is a
    ``numpy.random.Generator``.
    """
    if dep_code == IDENTICAL_CODE:
        x = _sample(x_code, x_params, rng)
        for i in range(n_replicas):
            out[i] = x
    elif dep_code == IID_CODE:
        for i in range(n_replicas):
            out[i] = _sample(x_code, x_params, rng)
    else:
        x = _sample(x_code, x_params, rng)
        for i in range(n_replicas):
            out[i] = x * _sample(s_code, s_params, rng)


def sampler_args(dep: Dependence, X: Distribution) -> tuple[int, int, np.ndarray, int, np.ndarray]:
    """``(dep_code, x_code, x_params, s_code, s_params)`` for :func:`sample_replicas`
    (a deterministic 1 as the slowdown unless ``dep`` is ``sx``)."""
    S = dep.slowdown_or_dummy()
    return (
        int(dep.code),
        int(X.code),
        np.ascontiguousarray(X.sampler_params(), dtype=np.float64),
        int(S.code),
        np.ascontiguousarray(S.sampler_params(), dtype=np.float64),
    )


@kernel()
def _fill_jobs(dep_code, x_code, x_params, s_code, s_params, out, rng):
    for j in range(out.shape[0]):
        sample_replicas(dep_code, x_code, x_params, s_code, s_params, out.shape[1], out[j], rng)


def sample_jobs(dep: Dependence, X: Distribution, n_jobs: int, n_replicas: int, rng: np.random.Generator) -> np.ndarray:
    """``(n_jobs, n_replicas)`` replica sizes at speed 1 (tests and checks)."""
    out = np.empty((int(n_jobs), int(n_replicas)), dtype=np.float64)
    _fill_jobs(*sampler_args(dep, X), out, rng)
    return out
