"""A size law per job type: the two-pool system's types, each with its own measured sizes.

The threshold paper's system has job types j with probabilities p_j; its formulas sum
over the types (the work a type-j job brings to pool i is E[X / r_ij], eqs. 4-6), so
nothing in them needs one law for every type. ``{family: by_type, laws: [L_1, ..., L_J]}``
gives type j the law L_j (a trace of reads, another of writes); the types' probabilities
are the system's (``system.types.p``, which the study writes into the law when it is
resolved: ``p``). Replicas of a job are drawn from its own type's law, under the cell's
dependence (identical copies, i.i.d. draws, or X_j S).

As one law (:class:`ByType`) it is the mixture sum_j p_j L_j: the law of the size of a job
whose type is not known, which the load unit (E[X]) and a single-copy queue need. The
laws it admits have a distribution function that is linear (or constant) between
finitely many points (the tabulated laws, and the deterministic and uniform ones), and
so does the mixture: its moments, truncated moments and order statistics are the exact
segment sums of :class:`~.empirical.SegmentLaw`.

A simulation draws the job's type first, then its size: the size streams hold uniforms
(:func:`.sampling.sample` of :data:`.codes.BY_TYPE_CODE`) and the engines turn one into
the type's size with its quantile function (:func:`.sampling.size_of_type`), so every
policy compared on a workload sees the same types and sizes.
"""

from __future__ import annotations

import bisect
import functools
import math
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from .base import (
    PROBABILITY_SUM_TOLERANCE,
    Distribution,
    ParameterError,
    check_factor,
    format_value,
    is_number,
    scalar_or_array,
)
from .codes import BY_TYPE_CODE, DETERMINISTIC_CODE, DISCRETE_CODE, EMPIRICAL_CODE, QUANTILES_CODE, UNIFORM_CODE
from .empirical import SegmentLaw
from .pieces import QuantilePieces, pieces

TYPE_LAW_CODES = (EMPIRICAL_CODE, QUANTILES_CODE, DISCRETE_CODE, DETERMINISTIC_CODE, UNIFORM_CODE)
"""The codes of the families a type's law may be: those whose distribution function is
linear or constant between finitely many points, and whose quantile function the
engines evaluate at a uniform (:func:`.sampling.size_of_type`)."""

TYPE_LAW_FAMILIES = ("empirical", "quantiles", "discrete", "deterministic", "uniform")
"""Their config names, in the same order."""

MAX_TYPES = 100
"""As many as ``system.types.p`` may list."""


@dataclass(frozen=True)
class ByType(SegmentLaw):
    """Job type j's size drawn from ``laws[j]``; as one law, the mixture with weights ``p``."""

    laws: tuple[Distribution, ...]
    p: tuple[float, ...] | None = None
    family: ClassVar[str] = "by_type"
    code: ClassVar[int] = BY_TYPE_CODE
    optional: ClassVar[tuple[str, ...]] = ("p",)
    unswept: ClassVar[tuple[str, ...]] = ("p",)
    per_type: ClassVar[bool] = True
    schema: ClassVar[dict] = {
        "laws": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_TYPES,
            "items": {"$ref": "#/$defs/distribution"},
            "description": "One size law per job type, in the order of system.types.p: each an empirical, "
            "quantiles, discrete, deterministic or uniform law (a trace of each type's measured sizes, say). "
            "A job's replicas are drawn from its own type's law.",
        },
        "p": {
            "type": "array",
            "minItems": 1,
            "maxItems": MAX_TYPES,
            "items": {"type": "number", "minimum": 0, "maximum": 1},
            "description": "The types' probabilities: system.types.p, added when the study is resolved (write "
            "them under system.types.p, not here).",
        },
    }

    def __post_init__(self):
        laws = self.laws
        if not isinstance(laws, tuple | list) or not 1 <= len(laws) <= MAX_TYPES:
            raise ParameterError("laws", f"laws must list 1 to {MAX_TYPES} size laws, one per job type")
        for k, law in enumerate(laws):
            if not isinstance(law, Distribution) or law.code not in TYPE_LAW_CODES:
                family = law.family if isinstance(law, Distribution) else format_value(law)
                raise ParameterError(
                    "laws",
                    f"laws[{k}]: a type's law must be one of {', '.join(TYPE_LAW_FAMILIES)}, got {family}",
                )
            if getattr(law, "bootstrap", 0):
                raise ParameterError(
                    "laws",
                    f"laws[{k}]: bootstrap is not available inside by_type (resample a type's trace as a law of "
                    "its own)",
                )
        object.__setattr__(self, "laws", tuple(laws))
        if self.p is not None:
            p = self.p
            if not (
                isinstance(p, tuple | list)
                and all(is_number(x) and 0 <= x <= 1 for x in p)
                and abs(math.fsum(p) - 1.0) <= PROBABILITY_SUM_TOLERANCE
            ):
                raise ParameterError("p", f"p must be probabilities summing to 1, got {format_value(p)}")
            if len(p) != len(laws):
                raise ParameterError(
                    "laws",
                    f"laws has {len(laws)} laws but there are {len(p)} job types (system.types.p = "
                    f"{format_value(p)}); expected one law per type",
                )
            object.__setattr__(self, "p", tuple(float(x) for x in p))

    # -- the types --------------------------------------------------------------------
    def of_type(self, j: int) -> Distribution:
        return self.laws[j]

    @property
    def types(self) -> int:
        """The number of job types J."""
        return len(self.laws)

    def with_types(self, p) -> ByType:
        """The same laws with the types' probabilities ``p`` (a cell's system.types.p)."""
        return replace(self, p=tuple(float(x) for x in p))

    def type_probabilities(self) -> np.ndarray:
        """The types' probabilities p_j (refused while the law has none: before the study
        is resolved)."""
        if self.p is None:
            raise ParameterError(
                "p",
                "by_type: the mixture of the types' laws needs the types' probabilities (system.types.p), "
                "which the study adds when it is resolved",
            )
        return np.asarray(self.p, dtype=float)

    # -- the mixture as segments (SegmentLaw) --------------------------------------------
    @functools.cached_property
    def _knots(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The knots k_0 < ... < k_m (every type's breaks and support ends), P(X >= k_i)
        and P(X > k_i): between two knots every type's P(X > x) is linear, so the
        mixture's is too."""
        w = self.type_probabilities()
        points: set[float] = set()
        for law in self.laws:
            lo, hi = law.support()
            points.update((float(lo), float(hi)), (float(b) for b in law.breaks()))
        knots = np.array(sorted(points))
        above = np.zeros_like(knots)
        at = np.zeros_like(knots)
        for wj, law in zip(w, self.laws):
            if wj == 0.0:
                continue
            above += wj * np.asarray(law.sf(knots), dtype=float)
            masses = law.point_masses()
            if masses:
                xs = np.array([x for x, _ in masses])
                qs = np.array([q for _, q in masses])
                np.add.at(at, np.searchsorted(knots, xs), wj * qs)
        at_or_above = np.minimum(np.maximum(above + at, above), 1.0)
        at_or_above[0] = 1.0  # nothing lies below the smallest knot
        for a in (knots, at_or_above, above):
            a.setflags(write=False)
        return knots, at_or_above, above

    @property
    def values(self) -> np.ndarray:
        return self._knots[0]

    @functools.cached_property
    def _segments(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        knots, at_or_above, above = self._knots
        return knots[:-1], knots[1:], above[:-1], at_or_above[1:]

    def sf(self, x):
        x = np.asarray(x, dtype=float)
        knots, at_or_above, above = self._knots
        j = np.searchsorted(knots, x, side="right") - 1
        jj = np.clip(j, 0, max(knots.size - 2, 0))
        if knots.size < 2:
            out = np.where(j < 0, 1.0, 0.0)
            return scalar_or_array(x, out)
        lo, hi = knots[jj], knots[jj + 1]
        with np.errstate(invalid="ignore", divide="ignore"):
            within = np.where(hi > lo, (x - lo) / np.where(hi > lo, hi - lo, 1.0), 0.0)
        inside = above[jj] + within * (at_or_above[jj + 1] - above[jj])
        out = np.where(j < 0, 1.0, np.where(j >= knots.size - 1, above[-1], inside))
        return scalar_or_array(x, np.clip(out, 0.0, 1.0))

    def _sf_scalar(self, x: float) -> float:
        knots, at_or_above, above = self._listed
        j = bisect.bisect_right(knots, x) - 1
        if j < 0:
            return 1.0
        if j >= len(knots) - 1:
            return above[-1]
        lo, hi = knots[j], knots[j + 1]
        return above[j] + (x - lo) / (hi - lo) * (at_or_above[j + 1] - above[j])

    @functools.cached_property
    def _listed(self) -> tuple[list[float], list[float], list[float]]:
        knots, at_or_above, above = self._knots
        return knots.tolist(), at_or_above.tolist(), above.tolist()

    def pdf(self, x):
        x = np.asarray(x, dtype=float)
        a, b, sa, sb = self._segments
        j = np.searchsorted(self.values, x, side="right") - 1
        inside = (j >= 0) & (j < a.size)
        jj = np.clip(j, 0, max(a.size - 1, 0))
        if a.size == 0:
            return scalar_or_array(x, np.zeros_like(x))
        width = b[jj] - a[jj]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(inside & (width > 0), (sa[jj] - sb[jj]) / np.where(width > 0, width, 1.0), 0.0)
        return scalar_or_array(x, out)

    def point_masses(self) -> tuple[tuple[float, float], ...]:
        knots, at_or_above, above = self._knots
        mass = at_or_above - above
        keep = mass > 0
        return tuple(zip(knots[keep].tolist(), mass[keep].tolist()))

    def breaks(self) -> tuple[float, ...]:
        return tuple(self.values.tolist())

    def quantile_pieces(self) -> QuantilePieces:
        # u from 1 - P(X >= k_i) to 1 - P(X > k_i) is the atom at k_i; from 1 - P(X > k_i)
        # to 1 - P(X >= k_(i+1)) the quantile function runs linearly from k_i to k_(i+1)
        knots, at_or_above, above = self._knots
        u_at, u_past = 1.0 - at_or_above, 1.0 - above
        u0 = np.empty(2 * knots.size - 1)
        u1, x0, x1 = np.empty_like(u0), np.empty_like(u0), np.empty_like(u0)
        u0[0::2], u1[0::2], x0[0::2], x1[0::2] = u_at, u_past, knots, knots
        u0[1::2], u1[1::2], x0[1::2], x1[1::2] = u_past[:-1], u_at[1:], knots[:-1], knots[1:]
        return pieces(u0, u1, x0, x1)

    def tail_class(self, on_support: bool = False) -> str:
        return "log-concave" if self.values.size == 1 else "neither"

    def scaled(self, factor: float) -> ByType:
        f = check_factor(factor)
        return replace(self, laws=tuple(law.scaled(f) for law in self.laws))

    def sampler_params(self) -> np.ndarray:
        # [J, start_0 .. start_(J-1), code_0 .. code_(J-1), the laws' own parameters, one
        # after the other (start_j the index of type j's first)]: a draw is a uniform,
        # which size_of_type turns into type j's size with the law at start_j
        own = [law.sampler_params() for law in self.laws]
        J = len(own)
        starts, at = [], 1 + 2 * J
        for params in own:
            starts.append(at)
            at += params.size
        head = np.array([J, *starts, *(law.code for law in self.laws)], dtype=np.float64)
        return np.concatenate([head, *own]).astype(np.float64)

    # -- config form ----------------------------------------------------------------------
    @classmethod
    def from_config(cls, params: dict) -> ByType:
        from . import from_spec

        laws = params["laws"]
        if not isinstance(laws, list | tuple):
            raise ParameterError("laws", f"laws must be a list of size laws, one per job type, got {laws!r}")
        built = []
        for k, spec in enumerate(laws):
            if isinstance(spec, dict) and spec.get("family") == cls.family:
                raise ParameterError("laws", f"laws[{k}]: a type's law cannot itself be by_type")
            try:
                built.append(from_spec(spec))
            except ValueError as exc:
                raise ParameterError("laws", f"laws[{k}]: {exc}") from exc
        p = params.get("p")
        return cls(laws=tuple(built), p=None if p is None else tuple(p))

    def config_values(self) -> dict:
        values: dict = {"laws": [law.to_spec() for law in self.laws]}
        if self.p is not None:
            values["p"] = list(self.p)
        return values

    @classmethod
    def resolved_extras(cls, spec: dict) -> dict:
        """Each type's law with what the resolved config adds to it (a trace's digest)."""
        from . import FAMILIES

        laws = []
        for law in spec["laws"]:
            extras = FAMILIES[law["family"]].resolved_extras(law)
            laws.append({"family": law["family"], **{k: v for k, v in law.items() if k != "family"}, **extras})
        return {"laws": laws}
