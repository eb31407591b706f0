"""The dependence kinds by config name, and :func:`from_spec`, which builds a
dependence from its config form."""

from __future__ import annotations

from collections.abc import Mapping

from .. import distributions as _distributions
from ..distributions import Distribution
from .base import Dependence
from .identical import Identical
from .iid import IID
from .mixture import Mixture
from .pairs import MeasuredPairs
from .sx import SX

KINDS: dict[str, type[Dependence]] = {c.kind: c for c in (Identical, IID, SX, Mixture, MeasuredPairs)}
#: dependences that exist without being declared under ``dependences:`` in a config
BUILTIN: dict[str, Dependence] = {"identical": Identical(), "iid": IID()}


STUDY_KEYS = ("work", "checks")
"""Keys of a dependence's spec that place it in a study (the distribution it goes with, the
dependence it checks), not part of the model: :func:`from_spec` reads past them."""


def from_spec(
    spec,
    named_distributions: Mapping[str, Distribution] | None = None,
    where: str = "dependence",
) -> Dependence:
    """Build a dependence from its config form.

    ``spec`` is a built-in name (``"identical"``, ``"iid"``), a mapping
    ``{kind: identical | iid}``, ``{kind: mixture, identical: c}`` (``c`` in [0, 1]; 0 and
    1 give the built-in ``iid`` and ``identical`` themselves, so their numbers are those
    kinds') or ``{kind: sx, slowdown: S}`` where ``S`` is the
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
            "or a mapping {kind: mixture, identical: <c in [0, 1]>} or {kind: sx, slowdown: <distribution name or spec>}"
        )
    if not isinstance(spec, Mapping):
        raise ValueError(f"{where}: expected a name or a mapping with key 'kind', got {spec!r}")
    if "kind" not in spec:
        raise ValueError(f"{where}: missing key 'kind'; allowed kinds: {sorted(KINDS)}")
    kind = spec["kind"]
    if kind not in KINDS:
        raise ValueError(f"{where}.kind: unknown kind {kind!r}; allowed: {sorted(KINDS)}")
    allowed_keys = {
        "sx": {"kind", "slowdown"},
        "mixture": {"kind", "identical"},
        "pairs": {"kind", "file", "columns"},
    }.get(kind, {"kind"}) | set(STUDY_KEYS)
    extra = sorted(set(spec) - allowed_keys)
    if extra:
        raise ValueError(f"{where}: unknown key(s) {extra} for kind {kind!r}; allowed keys: {sorted(allowed_keys)}")
    if kind == "mixture":
        return mixture_of(spec.get("identical"), f"{where}.identical")
    if kind == "pairs":
        return pairs_of(spec, where)
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


def mixture_of(c, where: str = "dependence.identical") -> Dependence:
    """The mixture with probability ``c`` of one draw for all copies; ``c = 0`` is the
    built-in ``iid`` and ``c = 1`` the built-in ``identical`` (the same objects, so the
    same numbers on every engine and analysis)."""
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not (0.0 <= float(c) <= 1.0):
        raise ValueError(
            f"{where}: expected the probability that a job's copies are one draw, a number in [0, 1], got {c!r}"
        )
    if float(c) == 0.0:
        return BUILTIN["iid"]
    if float(c) == 1.0:
        return BUILTIN["identical"]
    return Mixture(float(c))


def pairs_of(spec: Mapping, where: str = "dependence") -> MeasuredPairs:
    """``{kind: pairs, file: F, columns: [A, B]}``: the pairs of ``F`` replayed
    (:class:`MeasuredPairs`); the file is read here, so a file refused is refused now, in
    one line naming it."""
    file = spec.get("file")
    if not isinstance(file, str) or not file:
        raise ValueError(
            f"{where}: kind 'pairs' needs key 'file', a file of paired durations (straggler fit --pairs reads it)"
        )
    columns = spec.get("columns")
    if columns is not None and not (
        isinstance(columns, (list, tuple))
        and len(columns) == 2
        and all(isinstance(c, str) or (isinstance(c, int) and not isinstance(c, bool) and c >= 0) for c in columns)
    ):
        raise ValueError(f"{where}.columns: expected two columns, headers or indices from 0, got {columns!r}")
    dep = MeasuredPairs(file, None if columns is None else tuple(columns))
    try:
        dep.values  # noqa: B018 - read now: a bad file is an error of the config
    except ValueError as err:
        # the reader speaks the command's option; here it is the key
        raise ValueError(f"{where}.file: {str(err).replace('--columns A,B', 'columns: [A, B]')}") from None
    return dep
