"""straggler: parameter studies of redundancy policies in parallel-server systems.

Layers, bottom up (imports go one way, downwards; declared in ``layers.LAYERS`` and
checked from the source by tests/test_layers.py):

- ``numerics``, ``cdf5``, ``files``, ``catalog``, ``quantiles``: quadrature, the cell
  files' format, paths and small shared tables;
- ``distributions``, ``dependence``: job sizes and how replica sizes relate;
- ``two_pools``, ``cell_model``: pools, speeds, types, beliefs, one cell's model;
- ``policies``: the policy registry;
- ``analysis`` (one module per model family) and ``simulation`` (numba kernels),
  which do not import each other;
- ``config``, ``grid``, ``cell_build``, ``workunits``, ``verdict``, ``claims``: a
  study's configuration, its cells and how they are cut into jobs;
- ``evaluate``, ``dataset``, ``archive``, ``bench``, ``pilot``: one cell evaluated,
  the cells gathered into a dataset, an archive, the benchmarks;
- ``winners``, ``figures``, ``report``: what the dataset answers;
- ``pipeline``, ``cli``: the Snakemake rules' entry points and the ``straggler`` command.
"""

__version__ = "0.1.0"
