"""Reading a study file: bounded, and the same reading for every entry point.

``straggler check-config`` and the Snakefile both read a study file here (the Snakefile
reads the files given with ``--configfile`` again, whatever Snakemake made of them), so
that one file means one config. Before PyYAML builds anything, the file is refused,
with the key path, when it is larger than :data:`.limits.MAX_CONFIG_BYTES`, is not UTF-8,
nests deeper than :data:`.limits.MAX_DEPTH`, has a key or value longer than
:data:`.limits.MAX_SCALAR_CHARS`, repeats a key, or uses an anchor or alias: YAML
aliases share nodes, and a few lines of them (a "billion laughs") expand to 10^10
nodes as soon as anything walks the config. The walk over the file's events is
iterative, so no file can exhaust Python's stack.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path

import yaml

from .errors import ConfigError, fmt_path, format_value
from .limits import MAX_CONFIG_BYTES, MAX_DEPTH, MAX_SCALAR_CHARS
from .resolved import KEY_ORDER


class _Loader(yaml.SafeLoader):
    """SafeLoader that reads ``1e-3`` as a float (YAML 1.1 wants ``1.0e-3``) and refuses
    duplicate keys (PyYAML silently keeps the last one)."""


_Loader.yaml_implicit_resolvers = {k: list(v) for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
    list("-+0123456789"),
)


def _construct_mapping(loader, node, deep=False):
    # a backstop: the event walk refuses a key written twice; this one sees keys that
    # are written differently but equal (1 and 0x1)
    loader.flatten_mapping(node)
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            duplicate = key in seen
        except TypeError:
            continue
        if duplicate:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark, f"found duplicate key {key!r}", key_node.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)

_SCALAR_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in ("int", "float", "bool", "null"))
"""The plain scalars :func:`plain_scalar` reads: a timestamp (``2024-01-01``) stays
text, as no key takes one."""


@functools.cache
def _resolver() -> _Loader:
    return _Loader("")


def plain_scalar(text: str):
    """``text`` as this loader reads it as a plain scalar of a study file when that is
    a number, a boolean or null (``'0.2'`` is 0.2, ``'1e5'`` 1e5, ``'true'`` true), else
    ``text`` itself: never a mapping or a list, which would bypass the bounds."""
    tag = _resolver().resolve(yaml.ScalarNode, text, (True, False))
    if tag not in _SCALAR_TAGS:
        return text
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass, and a plain scalar
    except (yaml.YAMLError, ValueError):  # an integer of more digits than Python reads
        return text


# libyaml's parser is ten times faster than PyYAML's and, like it, not recursive
_FAST_PARSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_NO_ALIASES = "plain YAML without anchors (&) or aliases (*): write each value out"


class _Refusal(Exception):
    """A problem of the file at a key path (raised by the walk, made a ConfigError by the caller)."""

    def __init__(self, path: tuple, text: str, mark=None):
        super().__init__(text)
        self.path, self.text, self.mark = path, text, mark


class _Frame:
    """An open mapping or list of the walk: the key or index being read."""

    __slots__ = ("is_map", "key", "want_key", "seen", "key_is_node")

    def __init__(self, is_map: bool):
        self.is_map = is_map
        self.key: object = None if is_map else 0
        self.want_key = is_map
        self.seen: dict[str, int] = {}
        self.key_is_node = False  # a mapping or list as a key (PyYAML refuses it later)


class _Walk:
    """The key path of every YAML event, followed without building the document."""

    def __init__(self) -> None:
        self.frames: list[_Frame] = []

    def path(self) -> tuple:
        """The key path of the node being read."""
        return tuple(f.key for f in self.frames if f.key is not None)

    def _done_with_node(self) -> None:
        if not self.frames:
            return
        top = self.frames[-1]
        if top.is_map:
            # after a value comes a key; after a key that is a mapping or list, its value
            top.want_key, top.key_is_node = not top.key_is_node, False
        else:
            top.key = int(top.key) + 1  # type: ignore[call-overload]

    def _key(self, event) -> None:
        top = self.frames[-1]
        text = event.value if isinstance(event, yaml.ScalarEvent) else "?"
        line = event.start_mark.line + 1
        if isinstance(event, yaml.ScalarEvent) and text in top.seen:
            top.key = text
            raise _Refusal(
                self.path(),
                f"duplicate key {format_value(text, 60)} (lines {top.seen[text]} and {line}) is not allowed; "
                "expected each key once (a YAML reader keeps the last one silently)",
            )
        if isinstance(event, yaml.ScalarEvent):
            top.seen[text] = line
        top.key = text
        top.want_key = False
        top.key_is_node = not isinstance(event, yaml.ScalarEvent)

    def step(self, event) -> None:
        """Take one parse event, refusing an alias, an anchor or too deep a nesting."""
        if isinstance(event, yaml.AliasEvent):
            raise _Refusal(
                self.path(), f"the alias *{event.anchor} is not allowed; expected {_NO_ALIASES}", event.start_mark
            )
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise _Refusal(
                self.path(), f"the anchor &{anchor} is not allowed; expected {_NO_ALIASES}", event.start_mark
            )
        if isinstance(event, yaml.ScalarEvent):
            self._scalar(event)
        elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            if self.frames and self.frames[-1].is_map and self.frames[-1].want_key:
                self._key(event)
            if len(self.frames) >= MAX_DEPTH:
                raise _Refusal(
                    self.path(),
                    f"nesting deeper than {MAX_DEPTH} levels is not allowed; expected at most {MAX_DEPTH} "
                    "nested mappings and lists (a study needs 7)",
                    event.start_mark,
                )
            self.frames.append(_Frame(isinstance(event, yaml.MappingStartEvent)))
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            self.frames.pop()
            self._done_with_node()

    def _scalar(self, event) -> None:
        is_key = bool(self.frames) and self.frames[-1].is_map and self.frames[-1].want_key
        if is_key:
            self._key(event)
        if len(event.value) > MAX_SCALAR_CHARS:
            what = "a key" if is_key else "a value"
            raise _Refusal(
                self.path(),
                f"{what} of {len(event.value)} characters ({format_value(event.value, 40)}) is not allowed; "
                f"expected at most {MAX_SCALAR_CHARS} characters",
                event.start_mark,
            )
        if not is_key:
            self._done_with_node()


def _walk(text: str, parser, until: int | None = None) -> tuple:
    """Walk the events of ``text``; raise _Refusal at the first problem. With ``until``
    (a character index), stop at the first event that reaches it and return its path."""
    walk = _Walk()
    for event in yaml.parse(text, Loader=parser):
        if until is not None and event.end_mark.index > until:
            return walk.path() + ((event.value,) if _is_key_scalar(walk, event) else ())
        walk.step(event)
    return walk.path()


def _is_key_scalar(walk: _Walk, event) -> bool:
    top = walk.frames[-1] if walk.frames else None
    return isinstance(event, yaml.ScalarEvent) and top is not None and top.is_map and top.want_key


def _refuse(source: str, path: tuple, text: str, mark=None) -> ConfigError:
    where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
    return ConfigError([f"{source}: {fmt_path(path)}: {text}{where}"], source=source)


def _check_events(text: str, source: str) -> None:
    """Refuse the file at the first alias, anchor, repeated key, too deep nesting or too
    long scalar. A syntax error is left to the loader, which reports it the same way
    whichever parser found it (PyYAML's: libyaml's texts differ)."""
    for parser in (_FAST_PARSER, yaml.SafeLoader):
        try:
            _walk(text, parser)
            return
        except _Refusal as problem:
            raise _refuse(source, problem.path, problem.text, problem.mark) from None
        except yaml.YAMLError:
            continue  # PyYAML's own walk goes as far as the syntax allows


def _read_bytes(path: Path) -> bytes:
    try:
        with path.open("rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)  # never more: the file may be /dev/zero
    except OSError as exc:
        raise ConfigError([f"{path}: cannot read the config file ({exc.strerror or exc})"], source=str(path)) from exc
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(
            [
                f"{path}: a file of more than {MAX_CONFIG_BYTES} bytes is not allowed; expected a study file of at "
                f"most {MAX_CONFIG_BYTES // 1024} KiB"
            ],
            source=str(path),
        )
    return data


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8")
        line, column = before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1
        try:  # the key whose value holds the byte
            path = _walk(data.decode("utf-8", errors="replace"), yaml.SafeLoader, until=len(before))
        except (_Refusal, yaml.YAMLError):
            path = ()
        bad = " ".join(f"0x{b:02x}" for b in data[exc.start : exc.end])
        raise ConfigError(
            [
                f"{source}: {fmt_path(path)}: the byte {bad} at line {line}, column {column} is not allowed; "
                "expected UTF-8 text"
            ],
            source=source,
        ) from None


def _parse(text: str, source: str):
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError([f"{source}: not valid YAML{where}: {problem}"], source=source) from None
    except ValueError as exc:  # a value Python refuses to build (the walk bounds its length)
        raise ConfigError([f"{source}: not valid YAML: {exc}"], source=source) from None


def load_config(path) -> dict:
    """Read a YAML config file, bounded (see the module docstring); a syntax error or a
    non-mapping top level is a ConfigError."""
    path = Path(path)
    source = str(path)
    text = _decode(_read_bytes(path), source)
    _check_events(text, source)
    data = _parse(text, source)
    if data is None:
        raise ConfigError([f"{path}: the file is empty; expected a mapping of config keys"], source=source)
    if not isinstance(data, dict):
        raise ConfigError(
            [
                f"{path}: the top level is {format_value(data, 60)}; expected a mapping of config keys "
                f"({', '.join(KEY_ORDER)})"
            ],
            source=source,
        )
    if "__use_yte__" in data:
        raise ConfigError(
            [
                f"{path}: __use_yte__: key '__use_yte__' is not allowed; expected a plain YAML study file (Snakemake "
                "renders YTE templates before the project reads the file: write the values out)"
            ],
            source=source,
        )
    return data


def merge(base: dict, over: Mapping) -> dict:
    """``base`` with ``over`` merged in: mappings recursively, anything else replaced
    (how Snakemake merges its config files and ``--config``)."""
    import copy

    out = dict(base)
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merge(dict(out[key]), value)
        else:
            out[key] = copy.deepcopy(value)
    return out
