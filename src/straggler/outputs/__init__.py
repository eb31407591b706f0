"""What a user reads: the figures (``figures``, named in ``catalog``), the
comparison report (``report``, its first screen ``headline``, its template
``templates/``), the policy glossary (``glossary``) and the archived result sets
(``archive``).

May import: ``common``, ``model``, ``engines``, ``study``, ``decide``.
"""
