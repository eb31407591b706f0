"""A Snakemake run's config: its study files, and its ``--config`` values read as a study
file reads them and named in errors (:func:`read_study_files` is the Snakefile's reading).

Snakemake passes ``--config key=value`` as text: a top-level value becomes an int,
a float or a boolean when it reads as one, and anything else is read by a YAML reader
that keeps every scalar a string (``load='[0.2,0.4]'`` arrives as ``['0.2', '0.4']``,
``simulation='{jobs: 1e5}'`` as ``{'jobs': '1e5'}``). :func:`read_overrides` reads each
such string again as the package's loader reads a plain scalar of a study file
(:func:`.loader.plain_scalar`), so
that a value means the same on the command line as in the file: ``'0.2'`` is 0.2,
``'1e5'`` is 1e5, ``'true'`` is true and ``'null'`` is null, while a name stays a name.
Only scalars are read again (never a mapping or a list given inside a string, which
would bypass the loader's bounds), and the result is the same in every job of a run,
whatever Snakemake passes on.

An error that still concerns a value given with ``--config`` says so, with the value
as a study file would spell it (:func:`with_override_hints`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import yaml

from .errors import ConfigError, fmt_path
from .loader import load_config, merge, plain_scalar

_HINT_CHARS = 120


def read_overrides(overrides: Mapping | None) -> dict:
    """``overrides`` (Snakemake's parsed ``--config``) with every string scalar read as
    a plain scalar of a study file (see the module docstring)."""

    def read(value):
        if isinstance(value, Mapping):
            return {k: read(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [read(v) for v in value]
        if isinstance(value, str):
            return plain_scalar(value)
        return value

    return {k: read(v) for k, v in dict(overrides or {}).items()}


def _leaves(node, path: tuple = ()):
    """The key paths that ``--config`` sets: mappings are merged key by key, anything
    else (a list too) replaces the file's value."""
    if isinstance(node, Mapping) and node:
        for key, value in node.items():
            yield from _leaves(value, path + (key,))
    elif path:
        yield path


def _spelling(overrides: dict, key) -> str:
    """The ``--config`` value of the top-level ``key`` as a line of a study file."""
    text = yaml.safe_dump(
        {key: overrides[key]}, default_flow_style=True, sort_keys=False, width=10**6, allow_unicode=True
    ).strip()
    text = text[1:-1] if text.startswith("{") and text.endswith("}") else text
    return text if len(text) <= _HINT_CHARS else text[: _HINT_CHARS - 3] + "..."


def _concerns(text: str, path: tuple) -> bool:
    where = fmt_path(path)
    return text.startswith(where) and text[len(where) : len(where) + 1] in (":", ".", "[", " ")


def with_override_hints(error: ConfigError, overrides: Mapping | None) -> ConfigError:
    """``error`` with each message about a value given with ``--config`` ending in
    where it came from and how a study file spells it."""
    given = read_overrides(overrides)
    leaves = list(_leaves(given))
    if not leaves:
        return error
    texts = []
    for text in error.errors:
        path = next((p for p in leaves if _concerns(text, p)), None)
        if path is not None:
            text += (
                f" (from --config: Snakemake passes text, read as the study-file line `{_spelling(given, path[0])}`)"
            )
        texts.append(text)
    return ConfigError(texts, source=error.source)


def read_study_files(files: Iterable, overrides: Mapping | None = None, default=None) -> dict:
    """The raw config of a Snakemake run, read here rather than taken from Snakemake:
    its ``--configfile`` files (merged in order, as Snakemake merges them) with its
    ``--config`` values merged over them, read as a study file reads them
    (:func:`read_overrides`: Snakemake passes text). Without files, or when they define no grid,
    the ``default`` file underneath (a study file is complete by itself: it is not merged
    into the default study, ``--config scale=paper`` alone applies to the default one)."""
    raw: dict = {}
    for file in files:
        raw = merge(raw, load_config(file))
    raw = merge(raw, read_overrides(overrides))
    if "grid" not in raw and default is not None:
        raw = {**load_config(default), **raw}
    return raw
