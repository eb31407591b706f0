"""The JSON-schema fragments a family's parameters are described with.

Each family declares its parameters' schema (``Distribution.schema``); the config's
schema (:mod:`straggler.study.config.schema`) builds the family branches of
``$defs/distribution`` from them, so a family is declared in its class alone.
"""

from __future__ import annotations


def positive(description: str) -> dict:
    """A number > 0."""
    return {"type": "number", "exclusiveMinimum": 0, "description": description}


def non_negative(description: str) -> dict:
    """A number >= 0."""
    return {"type": "number", "minimum": 0, "description": description}


def positive_list(description: str) -> dict:
    """A non-empty list of numbers > 0."""
    return {
        "description": description,
        "type": "array",
        "minItems": 1,
        "items": {"type": "number", "exclusiveMinimum": 0},
    }


def probabilities(description: str) -> dict:
    """A probability vector (the schema's ``$defs/probabilities``)."""
    return {"$ref": "#/$defs/probabilities", "description": description}
