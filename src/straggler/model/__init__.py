"""The model of one cell: what a study describes before anything is computed.

Job-size laws (``distributions``), how a job's replicas' sizes relate (``dependence``),
the policy registry (``policies``), the two-pool system with job-server affinity
(``two_pools``) and one grid cell's model (``cell_model``).

May import: ``common``.
"""
