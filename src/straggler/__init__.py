"""straggler: parameter studies of redundancy policies in parallel-server systems.

The package is a few rooms, bottom up; each may import the rooms below it, never one
above (each room's docstring says which; tests/common/test_layers.py checks the source):

- ``common``: quadrature, files written whole, the cell files' format, source hashes;
- ``model``: job-size laws, replica dependence, the policy registry, one cell's model;
- ``engines``: the analysis and the simulation of one cell's model;
- ``study``: a study's configuration, its grid, its jobs, a cell evaluated, the dataset;
- ``decide``: what the dataset decides: intervals, winners, the operator's decision,
  what it assumes, frontiers, break-even delays, the papers' claims;
- ``outputs``: figures, the report, the policy glossary, archives;
- ``run``: the steps the Snakemake rules call;
- ``cli``: the ``straggler`` command.

The names a script needs most are here, imported when first used (``import
straggler`` stays light: the Snakefile's parse imports the package)::

    from straggler import load_config, resolve_config, build_grid, evaluate_cell
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

#: the package's face: name -> the module that defines it
PUBLIC = {
    "load_config": "straggler.study.config",
    "resolve_config": "straggler.study.config",
    "ConfigError": "straggler.study.config",
    "build_grid": "straggler.study.grid",
    "evaluate_cell": "straggler.study.evaluate",
    "POLICIES": "straggler.model.policies",
    "bound_violations": "straggler.decide.bound_checks",
    "check_claims": "straggler.decide.claims",
    "best_at": "straggler.outputs.report",
}

__all__ = ["__version__", *PUBLIC]


def __getattr__(name: str) -> Any:
    # PEP 562: a re-exported name is imported when first asked for, so that importing
    # the package costs nothing beyond this file
    if name in PUBLIC:
        return getattr(importlib.import_module(PUBLIC[name]), name)
    raise AttributeError(f"module 'straggler' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *PUBLIC])
