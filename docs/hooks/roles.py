"""Griffe extension for the API pages: the package's docstrings cite each other with
Sphinx-style roles (``:func:`name```), which mkdocstrings would print verbatim; this
turns each into a plain code span (``name``) as the docstrings are loaded."""

from __future__ import annotations

import re

from griffe import Extension

ROLE = re.compile(r":(?:func|class|mod|data|attr|meth|exc|obj|const):`~?\.?([^`]+)`")


class PlainRoles(Extension):
    """Rewrite Sphinx roles in every docstring as code spans."""

    def on_instance(self, *, node, obj, agent, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(r"`\1`", obj.docstring.value)
