"""straggler: parameter studies of redundancy policies in parallel-server systems.

Layers (imports go one way, downwards):

- ``distributions``, ``dependence``: job sizes and how replica sizes relate;
- ``policies``: canonical policy names, aliases and parameters;
- ``analysis``: one module per model family (threshold paper, ...);
- ``simulation``: numba kernels;
- ``config``, ``grid``, ``evaluate``, ``dataset``, ``plots``: the study pipeline;
- ``cli``: the ``straggler`` command.
"""

__version__ = "0.1.0"
