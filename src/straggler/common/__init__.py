"""Ground floor: helpers every room may use and that know nothing of queues.

Quadrature and its tolerances (``numerics``), files written whole and checked
(``files``), the cell files' format (``cdf5``), the latency quantiles the dataset holds
(``quantiles``), numba's kernel cache (``kernel_cache``), the hashes of the sources a
result depends on (``sources``) and the package's own plan (``layers``).

May import: nothing of the package.
"""
