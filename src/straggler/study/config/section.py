"""How a key of the typed config is described once: :func:`held` gives a section's field its
dict form and JSON schema (beside its type and default), and :class:`Section`, the base of every
section, writes the section's dict form (``to_dict``, ``from_dict``) and its JSON schema from its
fields.

The dict form is written once, here, from each field's order and metadata: a new key is a
field of its section (:mod:`.sections`, :mod:`.decision`, :mod:`.resolved`), not four lines
of serialisation and a schema entry somewhere else.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import MISSING, field, fields
from typing import Any, ClassVar

# How a field is held in the resolved dict (its metadata ``form``): the serialisation
# below is written once, from the fields, for every section.
LIST = "list"
"""A list in the dict, a tuple here."""
MAPPING = "mapping"
"""A free-form mapping (a policy's parameters, a law's spec), copied both ways."""
OPTIONAL = "optional"
"""Left out of the dict when None (a key older studies do not have keeps their text)."""


def held(form: str = "", section: type | None = None, *, schema: dict | None, filled: bool = True, **kwargs):
    """A field held in the dict as ``form``, or as the nested ``section``, whose key has
    the JSON ``schema`` (its default comes from the field's; None: a field of the
    typed config that is no key of the file). A nested section is filled with its keys'
    defaults when the file leaves it out, unless not ``filled`` (it stays absent)."""
    return field(metadata={"form": form, "section": section, "schema": schema, "filled": filled}, **kwargs)


def listed(values) -> list:
    """``values`` as a list of deep copies (a held list, or a grid axis)."""
    return [copy.deepcopy(v) for v in values]


def _schema_default(f) -> Any:
    """The default a file may leave the field's key out for (MISSING: none)."""
    if f.default is MISSING and f.default_factory is MISSING:
        return MISSING
    if f.metadata.get("section") is not None:
        # the section is filled, then each of its keys (an unfilled one stays absent)
        return {} if f.metadata.get("filled", True) else MISSING
    if f.metadata.get("form") == OPTIONAL:
        return MISSING  # absent unless given
    value = f.default if f.default is not MISSING else f.default_factory()
    return list(value) if f.metadata.get("form") == LIST else value


class Section:
    """A frozen section of the resolved config whose dict form and JSON schema its fields
    say: the keys in field order, lists as tuples, nested sections, optional keys left
    out when None."""

    FILE_ONLY: ClassVar[dict[str, tuple[str, dict]]] = {}
    """Keys a file may have that the resolved section does not hold: key -> (the field
    it follows, its schema)."""
    SCHEMA_EXTRA: ClassVar[dict] = {}
    """Schema keywords of the section's object besides its properties."""

    @classmethod
    def schema(cls, description: dict | None = None) -> dict:
        """The section's JSON schema: an object of its fields' keys (``description``: the
        keywords its parent gives it, such as its description)."""
        properties: dict[str, Any] = {}
        required = []
        for f in fields(cls):  # type: ignore[arg-type]
            own = f.metadata.get("schema")
            if own is None:
                continue
            section = f.metadata.get("section")
            sub = section.schema(own) if section is not None else dict(own)
            default = _schema_default(f)
            if default is MISSING and f.metadata.get("form") != OPTIONAL and "default" not in own:
                required.append(f.name)
            elif default is not MISSING and "default" not in own:
                sub["default"] = default
            properties[f.name] = sub
            for key, (after, extra) in cls.FILE_ONLY.items():
                if after == f.name:
                    properties[key] = dict(extra)
        out = {**(description or {}), "type": "object", "additionalProperties": False}
        if required:
            out["required"] = required
        return {**out, "properties": properties, **copy.deepcopy(cls.SCHEMA_EXTRA)}

    def to_dict(self) -> dict[str, Any]:
        """The section as the resolved dict holds it."""
        out: dict[str, Any] = {}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            form, section = f.metadata.get("form", ""), f.metadata.get("section")
            if value is None and form == OPTIONAL:
                continue
            if section is not None and value is not None:
                out[f.name] = value.to_dict()
            elif form == LIST:
                out[f.name] = listed(value)
            else:
                out[f.name] = copy.deepcopy(dict(value) if form == MAPPING else value)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]):
        """The section from its dict (the schema has filled every key's default)."""
        values: dict[str, Any] = {}
        for f in fields(cls):  # type: ignore[arg-type]
            form, section = f.metadata.get("form", ""), f.metadata.get("section")
            if f.name not in data:
                if form != OPTIONAL:
                    raise KeyError(f.name)
                continue
            value = data[f.name]
            if section is not None and value is not None:
                value = section.from_dict(value)
            elif form == LIST:
                value = tuple(copy.deepcopy(value))
            elif form == MAPPING:
                value = copy.deepcopy(dict(value))
            else:
                value = copy.deepcopy(value)
            values[f.name] = value
        return cls(**values)
