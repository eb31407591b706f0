"""A key of a config not yet validated: its value when it has the expected shape.

The semantic checks run on a config the schema may have refused: a section that is
not a mapping (or an axis that is not a list) is read as empty, and the schema's own
message names it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def section(node: Mapping, key: str) -> dict[Any, Any]:
    """``node[key]`` when it is a mapping, else an empty one."""
    value = node.get(key)
    return value if isinstance(value, dict) else {}


def list_at(node: Mapping, key: str) -> list[Any]:
    """``node[key]`` when it is a list, else an empty one."""
    value = node.get(key)
    return value if isinstance(value, list) else []
