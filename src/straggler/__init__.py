"""straggler: parameter studies of redundancy policies in parallel-server systems.

Layers (imports go one way, downwards; declared in ``layers.LAYERS`` and checked
from the source by tests/test_layers.py):

- ``numerics``: quadrature and its tolerances;
- ``distributions``, ``dependence``: job sizes and how replica sizes relate;
- ``system``: pools, speeds, types, beliefs, assignment, one cell's model;
- ``policies``: the policy registry;
- ``analysis`` (one module per model family) and ``simulation`` (numba kernels),
  which do not import each other;
- ``config``, ``grid``, ``model``, ``evaluate``, ``dataset``, ``figures``, ``report``:
  the study pipeline;
- ``cli``: the ``straggler`` command.
"""

__version__ = "0.1.0"
