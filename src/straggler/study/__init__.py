"""A study: its configuration (``config``), its grid of cells (``grid``,
``cell_build``), how the cells are cut into jobs and timed (``workunits``, ``pilot``), a
run's progress through those jobs (``progress``), one cell evaluated by the engines
(``evaluate``, with its tuned knobs, ``tuning``, and its stability verdicts, ``verdict``),
and the cells gathered into a labelled dataset (``dataset``, ``variables``,
``provenance``).

May import: ``common``, ``model``, ``engines``.
"""
