"""The entry points of the workflow: the steps the Snakemake rules call
(``pipeline``) and the rounds of a question's margin run in the command's own workers
(``margin_rounds``).

May import: ``common``, ``model``, ``engines``, ``study``, ``decide``, ``outputs``.
"""
