"""What an answer assumes about a request's copies, and how far that assumption may move
before the answer changes.

Whether replication pays turns on how the durations of one request's copies relate: a
copy on another server draws a duration of its own (the slowness is the server's: i.i.d.
copies), or every copy takes as long (the slowness is the request's: identical copies).
The mixture dependence (:class:`straggler.model.dependence.Mixture`) keeps the measured law for
every copy and varies only that: with probability ``c`` the copies are one draw. A
question's study sweeps ``c`` (the axis ``<dependence>.identical``) beside the value the
answer assumes, and :func:`assumption_lines` reads from the finished dataset

- the assumption itself, in words;
- the margin: the values of ``c`` of the sweep, on the assumed one's side, at which the
  same contender is still the sole answer at every load (the answer holds there), and the
  nearest at which it is not;
- the answer at ``c = 1`` (identical copies);
- the contender that meets the constraints at every ``c`` of the sweep and every load, if
  one does (a choice that holds whatever the dependence), with its extra load against the
  answer's.

The margin is located by bisection to :data:`RESOLUTION`: on each side of the assumed
``c``, the sweep's values are walked outwards from it to the first at which the answer
does not hold, and the bracket between that one and the last that holds is halved
(:func:`probes_needed` names the midpoint to evaluate next; ``straggler recommend`` adds
it to the study's axis and runs it) until it is at most :data:`RESOLUTION` wide. The sweep
holds the question's values and the midpoints its own bisection asked for, nothing else
(``straggler recommend`` keeps a rerun's earlier midpoints only for the same question), so
the margin is a function of the question alone. It assumes, as a bisection must, that the
answer changes once between the two ends of the bracket.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import xarray as xr

STRENGTH = "identical"
"""The mixture's parameter swept: the probability that a job's copies are one draw."""

RESOLUTION = 0.05
"""How closely the margin in ``c`` is located: the bracket's width at the end."""


def strength_axis(ds: xr.Dataset) -> str | None:
    """The dataset's axis of the mixture's ``c`` (``<dependence>.identical``), if any."""
    values = ds["dependence"].values.ravel() if "dependence" in ds.coords else ()
    names = {f"{v}.{STRENGTH}" for v in values}
    axes = [d for d in ds.dims if str(d) in names]
    return str(axes[0]) if axes else None


def assumed_strength(ds: xr.Dataset, axis: str) -> float | None:
    """The ``c`` the study's dependence names (its config's value, the answer's assumption)."""
    try:
        return float(_spec(ds, axis.rsplit(".", 1)[0])[STRENGTH])
    except (KeyError, TypeError, ValueError):
        return None


def checked_dependence(ds: xr.Dataset) -> tuple[str, list[str]] | None:
    """``(the assumed dependence, the ones that check it)`` where the dataset's
    ``dependence`` axis holds dependences that name another by ``checks`` (a question
    under S&X: :func:`straggler.decide.question._sx_checks`), else None."""
    if "dependence" not in ds.dims:
        return None
    names = [str(v) for v in ds["dependence"].values]
    checks = [n for n in names if _spec(ds, n).get("checks") in names]
    if not checks:
        return None
    assumed = str(_spec(ds, checks[0])["checks"])
    return assumed, [n for n in checks if _spec(ds, n)["checks"] == assumed]


def at_dependence(ds: xr.Dataset, name: str) -> xr.Dataset:
    """``ds`` at the dependence ``name`` and the distribution it is evaluated with (its
    ``work``), both dimensions dropped."""
    at = {"dependence": name}
    work = _spec(ds, name).get("work")
    if work is not None and "distribution" in ds.dims:
        at["distribution"] = work
    return ds.sel(at)


def at_assumed(ds: xr.Dataset) -> xr.Dataset:
    """``ds`` at the ``c`` its study assumes, where it sweeps c and that value is on the
    sweep (the answer is the assumed c's; the sweep checks it); at the assumed dependence
    where others check it; ``ds`` otherwise."""
    checked = checked_dependence(ds)
    if checked is not None:
        return at_dependence(ds, checked[0])
    axis = strength_axis(ds)
    if axis is not None and assumed_strength(ds, axis) in [float(v) for v in ds[axis].values]:
        return ds.sel({axis: assumed_strength(ds, axis)})
    return ds


def _spec(ds: xr.Dataset, name: str | None) -> dict:
    """The study's ``dependences.<name>`` (its config in the dataset's attributes), or {}."""
    import yaml

    try:
        spec = (yaml.safe_load(ds.attrs["config"]) or {})["dependences"][name]
    except (KeyError, TypeError, ValueError, yaml.YAMLError):
        return {}
    return spec if isinstance(spec, dict) else {}


def dependence_words(c: float | None, kind: str | None = None) -> str:
    """The dependence in an engineer's words."""
    if kind == "sx":
        return "a copy's duration is the request's size times a slowdown of its own server (sx)"
    if kind not in (None, "mixture", "iid", "identical"):
        return f"the dependence {kind!r}"
    if c is None:
        return "an unstated dependence between a request's copies"
    if c == 0.0:
        return "each copy of a request takes a duration of its own (i.i.d. copies, c = 0)"
    if c == 1.0:
        return "every copy of a request takes as long as the first (identical copies, c = 1)"
    return f"a request's copies all take one duration with probability c = {c:g}, else durations of their own"


class _Sweep:
    """The answers at every ``c`` of the sweep, from one decision table of the whole
    dataset (the criteria's cost is xarray's, per call, not per point: one table for
    every ``c`` instead of one per value).

    ``chosen[c]`` and ``meets[c]`` are keyed by (setting index without the ``c`` axis,
    load index): per load, the recommended contenders and those sure to meet the
    constraints (:func:`straggler.decide.decision.answer`)."""

    def __init__(self, ds: xr.Dataset, axis: str):
        from .decision import (
            FAILS,
            MEETS,
            answer,
            budget_statuses,
            constraints,
            decision_table,
            joined_statuses,
            slo_statuses,
        )

        cons = constraints(ds)
        self.table = table = decision_table(ds, cons)
        self.axis = axis
        self.position = table.dims.index(axis)
        self.values = [float(v) for v in ds[axis].values]
        self.chosen: dict[float, dict] = {c: {} for c in self.values}
        self.meets: dict[float, dict] = {c: {} for c in self.values}
        for index, li in table.points():
            if li is None:
                continue
            c = self.values[index[self.position]]
            key = (index[: self.position] + index[self.position + 1 :], li)
            row = answer(table, index, li)
            at = (*index, li)
            self.chosen[c][key] = tuple(n for n in str(row["recommended"]).split(", ") if n)
            maps = [m for m in (slo_statuses(table, cons, at), budget_statuses(table, cons, at)) if m]
            joined = joined_statuses(*maps) if maps else {}
            self.meets[c][key] = {n for n, s in joined.items() if s == MEETS}
            self.meets[c][key] -= {n for n, s in joined.items() if s == FAILS}

    def at(self, c: float, key: tuple) -> tuple:
        """The table's point of ``key`` (a setting index without the ``c`` axis, a load
        index) at ``c``."""
        index, li = key
        return (*index[: self.position], self.values.index(c), *index[self.position :], li)

    def change(self, c: float, base: dict) -> str:
        """Where and how the answer at ``c`` differs from ``base``: the first load that
        differs and what it is there (``load 0.7: CoC d=2``; a tie's names; ``none
        qualifies``)."""
        table, chosen = self.table, self.chosen[c]
        for key, names in base.items():
            if chosen.get(key) != names:
                at = self.at(c, key)
                load = table.ds["load"].values[at[-1]]
                setting = table.setting(at[:-1])
                shown = {k: v for k, v in setting.items() if k != self.axis and table.ds.sizes[k] > 1}
                words = ", ".join(f"{k} = {v}" for k, v in shown.items())
                what = ", ".join(chosen.get(key) or ()) or "none qualifies"
                return f"{words + ', ' if words else ''}load {float(load):g}: {what}"
        return ""


def assumption_lines(ds: xr.Dataset) -> list[str]:
    """Two lines at most: what the answer assumes, and (with a sweep of ``c``) how far it
    holds, the answer under identical copies and the contender safe at every ``c``."""
    from .decision import hull_words

    axis = strength_axis(ds)
    source = _source(ds)
    checked = checked_dependence(ds)
    if checked is not None:
        return _checked_lines(ds, *checked, source)
    if axis is None:
        name = str(ds["dependence"].values.ravel()[0]) if "dependence" in ds.coords else None
        c = {"iid": 0.0, "identical": 1.0}.get(str(name))
        kind = name if c is not None else _kind(ds, name)
        if kind == "pairs":
            return [f"Assumed: {pairs_words(_spec(ds, name))}{source}; no other dependence was evaluated."]
        return [f"Assumed: {dependence_words(c, kind)}{source}; no other dependence was evaluated."]
    c0 = assumed_strength(ds, axis)
    values = sorted(float(v) for v in ds[axis].values)
    if c0 is None or c0 not in values:
        return [f"Assumed: {dependence_words(c0)}; its answer is not in the dataset."]
    measured = "" if c0 in (0.0, 1.0) else " (as given)"
    lines = [f"Assumed: {dependence_words(c0)}{measured}{source}."]
    sweep = _Sweep(ds, axis)
    base, table = sweep.chosen[c0], sweep.table

    def holds(c: float) -> bool:
        chosen = sweep.chosen[c]
        return all(len(v) == 1 and chosen.get(k) == v for k, v in base.items())

    parts = []
    if all(len(v) == 1 for v in base.values()) and base:
        for side, words in ((1.0, "up to"), (-1.0, "down to")):
            if any((c - c0) * side > 0 for c in values):
                walked = walk(values, c0, side, holds)
                change = "" if walked[1] is None else sweep.change(walked[1], base)
                parts.append(margin_words(walked, words, c0, change))
    else:
        parts.append("no single contender at every load to hold")
    if 1.0 in sweep.chosen and c0 != 1.0:
        ident = sorted({", ".join(v) or "none qualifies" for v in sweep.chosen[1.0].values()})
        parts.append("with identical copies (c = 1) the answer is " + "; ".join(ident))
    every_meets = [m for c in values for m in sweep.meets[c].values()]
    safe = set.intersection(*every_meets) if every_meets else set()
    if safe:
        pick = _safest(safe, sweep.chosen, base)
        first = sweep.at(c0, next(iter(base)))
        cost = hull_words(table, "extra_load", first, [pick])[0]
        mine = {n for v in base.values() for n in v}
        against = hull_words(table, "extra_load", first, sorted(mine))[0] if mine else ""
        parts.append(
            f"qualifies at every c: {pick}"
            + (f" (extra load {cost} against {against} at the first load)" if cost and pick not in mine else "")
        )
    else:
        parts.append("no contender qualifies at every c of the sweep")
    lines.append("The answer holds " + "; ".join(parts) + ".")
    return lines


def _answers(ds: xr.Dataset) -> dict:
    """The recommended contenders at each setting and load of ``ds``: ``{(setting
    index, load index): names}``."""
    from .decision import answer, constraints, decision_table

    table = decision_table(ds, constraints(ds))
    return {
        (index, li): tuple(n for n in str(answer(table, index, li)["recommended"]).split(", ") if n)
        for index, li in table.points()
        if li is not None
    }


def _checked_lines(ds: xr.Dataset, assumed: str, checks: list[str], source: str) -> list[str]:
    """What the answer under ``assumed`` is, and whether it holds under each of ``checks``
    (the same contender the sole answer at every load), else the first load where it differs
    and what the answer is there. Refits of the same family are one clause."""
    kind = _kind(ds, assumed)
    lines = [f"Assumed: {dependence_words(None, kind)}{source}."]
    base = _answers(at_dependence(ds, assumed))
    if not base or any(len(v) != 1 for v in base.values()):
        lines.append("No single contender at every load to check.")
        return lines
    groups: dict[str, list[str]] = {}
    for name in checks:
        groups.setdefault(check_words(ds, name), []).append(name)
    holds, changes = [], []
    for words, names in groups.items():
        tails = [_slowdown_tail(_spec(ds, n).get("slowdown")) for n in names]
        tails = [t for t in tails if t]
        said = words + (f" (P(S > 10 median) = {' and '.join(t.split(' = ')[1] for t in tails)})" if tails else "")
        differs = []
        for name in names:
            other = _answers(at_dependence(ds, name))
            key = next((k for k, v in base.items() if other.get(k) != v), None)
            if key is not None:
                load = float(ds["load"].values[key[1]])
                what = ", ".join(other.get(key) or ()) or "none qualifies"
                differs.append(f"{name} at load {load:g}: {what}" if len(names) > 1 else f"at load {load:g}: {what}")
        if differs:
            changes.append(f"{said}, {'; '.join(differs)}")
        else:
            holds.append(said)
    parts = []
    if holds:
        parts.append("The answer holds " + "; ".join(holds))
    if changes:
        parts.append(("It does not " if holds else "The answer does not hold ") + "; ".join(changes))
    lines.append(". ".join(parts) + ".")
    return lines


def check_words(ds: xr.Dataset, name: str) -> str:
    """A dependence that checks an S&X answer, in an engineer's words."""
    spec = _spec(ds, name)
    kind = spec.get("kind")
    if kind == "iid":
        return "with i.i.d. copies of one copy's law X S"
    if kind == "identical":
        return "with identical copies of one copy's law X S (every copy as long as the first)"
    if kind == "sx":
        return "at the S&X refits of the fit's bootstrap ends"
    return f"under the dependence {name}"


def _slowdown_tail(spec) -> str:
    """``P(S > 10 median) = 1.2 %`` of a slowdown's spec ("" when it cannot be read)."""
    from ..model.distributions import from_spec

    try:
        S = from_spec(dict(spec))
        above = float(S.sf(10.0 * float(S.quantile(0.5))))
    except (TypeError, ValueError, KeyError, ArithmeticError):
        return ""
    return f"P(S > 10 median) = {100 * above:.2g} %"


def _source(ds: xr.Dataset) -> str:
    """`` (<where it was measured>)``: the study's ``decision.dependence_source``, or ""."""
    from .decision import decision_section

    said = decision_section(ds).get("dependence_source")
    return f" ({said})" if isinstance(said, str) and said else ""


def pairs_words(spec: dict) -> str:
    """Replayed pairs in an engineer's words: the file and how many pairs."""
    from ..model.dependence.kinds import pairs_of

    file = spec.get("file", "?")
    try:
        n = f"{len(pairs_of(spec, '').values):,} "
    except ValueError:
        n = ""
    return (
        f"a request's two copies take one of the {n}measured pairs of {file}, replayed (their joint law is "
        "the measured one: no family fitted; one copy, either duration)"
    )


def _kind(ds: xr.Dataset, name: str | None) -> str | None:
    kind = _spec(ds, name).get("kind")
    return None if kind is None else str(kind)


def walk(values: list[float], c0: float, side: float, holds) -> tuple[float, float | None, float | None]:
    """On one ``side`` of ``c0`` (+1 above, -1 below): ``(last value where the answer
    holds, first where it does not or None, the midpoint still to evaluate or None)``.
    ``holds(c)`` is called only for values in ``values``."""
    have = set(values)
    outward = sorted((c for c in values if (c - c0) * side > 0), key=lambda c: abs(c - c0))
    last, fail = c0, None
    for c in outward:
        if not holds(c):
            fail = c
            break
        last = c
    if fail is None:
        return last, None, None
    while abs(fail - last) > RESOLUTION:
        mid = (last + fail) / 2.0
        if mid not in have:
            return last, fail, mid
        if holds(mid):
            last = mid
        else:
            fail = mid
    return last, fail, None


def margin_words(walked: tuple[float, float | None, float | None], words: str, c0: float, change: str = "") -> str:
    """``for c up to 0.31 (at 0.34, load 0.7: CoC d=2)``: how far the answer holds on one
    side, and what it is at the first value where it does not."""
    last, fail, _ = walked
    if fail is None:
        return f"for c {words} {last:g} (every value checked)"
    where = f"at {fail:.3g}" + (f", {change}" if change else "")
    if last == c0 and abs(fail - c0) <= RESOLUTION:
        return f"at c = {c0:g} only ({where})"
    return f"for c {words} {last:.3g} ({where})"


def probes_needed(ds: xr.Dataset) -> list[float]:
    """The values of ``c`` the bisection of the margin needs next (none: it is located
    to :data:`RESOLUTION`, or there is no sweep, or no single answer to hold)."""
    axis = strength_axis(ds)
    c0 = None if axis is None else assumed_strength(ds, axis)
    if axis is None or c0 is None:
        return []
    values = sorted(float(v) for v in ds[axis].values)
    if c0 not in values:
        return []
    sweep = _Sweep(ds, axis)
    base = sweep.chosen[c0]
    if not base or any(len(v) != 1 for v in base.values()):
        return []

    def holds(c: float) -> bool:
        chosen = sweep.chosen[c]
        return all(chosen.get(k) == v for k, v in base.items())

    need = [walk(values, c0, side, holds)[2] for side in (1.0, -1.0)]
    return sorted(c for c in need if c is not None)


def _safest(safe: set, chosen_at: dict, base: dict) -> str:
    """The safe contender most often the answer over the sweep, then by name."""
    counts = {n: 0 for n in safe}
    for chosen in chosen_at.values():
        for v in chosen.values():
            for n in v:
                if n in counts:
                    counts[n] += 1
    mine = {n for v in base.values() for n in v}
    return sorted(safe, key=lambda n: (n not in mine, -counts[n], n))[0]


def point_words(ds: xr.Dataset, point: dict) -> str:
    """What a point of a dataset (its coordinates) assumes of a job's copies, in words."""
    name = str(point.get("dependence", ds["dependence"].values.ravel()[0] if "dependence" in ds.coords else ""))
    c = {"iid": 0.0, "identical": 1.0}.get(name)
    kind = name if c is not None else _kind(ds, name)
    axis = f"{name}.{STRENGTH}"
    if kind == "mixture":
        if axis in point:
            c = float(point[axis])
        elif axis in ds.coords and ds[axis].size == 1:
            c = float(ds[axis].values.ravel()[0])
        else:
            c = assumed_strength(ds, axis)
    return dependence_words(c, kind)


def study_sentence(ds: xr.Dataset) -> str:
    """The report's lead on what the study assumes of a job's copies."""
    if "dependence" not in ds.coords:
        return ""
    names = [str(v) for v in ds["dependence"].values.ravel()]
    axis = strength_axis(ds)
    if len(names) == 1:
        text = f"It assumes that {point_words(ds, {'dependence': names[0]})}"
        if axis is not None:
            swept = ", ".join(f"{float(v):g}" for v in ds[axis].values)
            text += f", and evaluates every contender again at c = {swept} (how far the answer holds)"
        return text + "."
    each = "; ".join(f"{n}: {point_words(ds, {'dependence': n})}" for n in names)
    return f"How a job's copies relate is an axis of the study (dependence): {each}."
