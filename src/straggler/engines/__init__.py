"""The engines that evaluate one cell's model: the analysis (one module per model
family, ``analysis``), the simulation (numba kernels, ``simulation``), which engine
simulates what (``registry``) and their throughput (``bench``). The analysis and the
simulation do not import each other. The mean-field tier (``mean_field``) solves the
N -> infinity equilibrium of the per-server FCFS policies for any size law, numerically.

May import: ``common``, ``model``.
"""
