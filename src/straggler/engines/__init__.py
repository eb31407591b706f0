"""The engines that evaluate one cell's model: the analysis (one module per model
family, ``analysis``), the simulation (numba kernels, ``simulation``), which engine
simulates what (``registry``) and their throughput (``bench``). The analysis and the
simulation do not import each other.

May import: ``common``, ``model``.
"""
