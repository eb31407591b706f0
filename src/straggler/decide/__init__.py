"""What a study's dataset decides, on intervals: every criterion's interval
(``intervals``), which policy wins where (``winners``), the operator's decision under
a latency target and a budget (``decision``), what that answer assumes and how far it
may move (``assumption``), what a client alone can deploy (``deploy``), frontiers
located between loads (``frontier``), break-even delays (``break_even``), the papers'
claims (``claims``), the bound checks (``bound_checks``), disagreements between the
engines (``disagreements``), the operator's question (``question``) and its answer in
words (``question_answer``).

May import: ``common``, ``model``, ``engines``, ``study``.
"""
