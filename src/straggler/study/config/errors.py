"""Config errors: each names the key, the value and what is allowed."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass


class ConfigError(Exception):
    """An invalid config; ``errors`` holds every problem found, one message each."""

    def __init__(self, errors, source: str | None = None):
        if isinstance(errors, str):
            errors = [errors]
        self.errors: list[str] = list(errors)
        self.source = source
        super().__init__("\n".join(self.errors))

    def __str__(self) -> str:
        return "\n".join(self.errors)


@dataclass(frozen=True)
class Err:
    """One problem of a config: the key path it concerns and its message."""

    path: tuple
    text: str


def _key_text(part) -> str:
    """A key as written, quoted when it holds a control character (a message stays one
    line) and shortened when long."""
    text = str(part)
    if not text.isprintable():
        text = repr(text)
    return text if len(text) <= 80 else text[:77] + "..."


def fmt_path(parts) -> str:
    """A key path as written in a message: ``grid.N[1]``, or ``(top level)``."""
    out = ""
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + _key_text(part)
    return out or "(top level)"


def format_value(value, limit: int = 120) -> str:
    """A config value as the user would write it (strings quoted)."""

    def fmt(v) -> str:
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return repr(v)
        if isinstance(v, float):
            return repr(v)
        if isinstance(v, Mapping):
            return "{" + ", ".join(f"{k}: {fmt(x)}" for k, x in v.items()) + "}"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(fmt(x) for x in v) + "]"
        return str(v)

    text = fmt(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def did_you_mean(word, candidates) -> str:
    """``"; did you mean 'X'?"`` for the closest candidate, or ``""``."""
    if not isinstance(word, str):
        return ""
    cands = [c for c in candidates if isinstance(c, str)]
    lowered = {c.lower(): c for c in cands}
    if word.lower() in lowered and lowered[word.lower()] != word:
        return f"; did you mean {lowered[word.lower()]!r}?"
    # swapped letters first ('xs' for 'sx', 'stpe' for 'step', which is as close to 'stop')
    match = [c for c in lowered if sorted(c) == sorted(word.lower())][:1]
    if not match:
        match = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return f"; did you mean {lowered[match[0]]!r}?" if match else ""


def one_of(items) -> str:
    """Items as a comma-separated list, ``(none)`` when there are none."""
    items = [str(i) for i in items]
    return ", ".join(items) if items else "(none)"


def not_allowed(path, value, expected: str, hint: str = "") -> Err:
    """The error ``<path>: value <value> is not allowed; expected <expected><hint>``."""
    return Err(tuple(path), f"{fmt_path(path)}: value {format_value(value)} is not allowed; expected {expected}{hint}")
